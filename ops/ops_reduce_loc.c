/* ops/ops_reduce_loc.c - fg_reduce_loc: the minimum or maximum of a scalar
 * field and the (layer, row, column) of its first occurrence in row-major
 * order, built from the built-in reduction in two passes: fg_reduce finds
 * the value, then a second fg_reduce takes the least flat index of the
 * points equal to it (a pointwise match fused into that reduction), and a
 * 0-D operator turns the index into coordinates.  Integer minima are
 * exact in any order, so the index is the first occurrence whatever the
 * backend or the threads. */
#include "ops_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

/* An integer literal of type e (I32 or I64). */
static fg_expr *ilit(fg_op *op, fg_elem e, int64_t v) {
  return e == FG_I64 ? fg_long(op, v) : fg_int(op, (int32_t)v);
}

/* A thread coordinate as an integer of type e. */
static fg_expr *coord(fg_op *op, fg_thread_const which, fg_elem e) {
  return fg_convert(fg_thread(op, which), e, 1);
}

/* The flat row-major index of this thread's point in a field of shape s
 * (the thread shape), as an integer of type e; the extents are the
 * thread shape's, read when the kernel runs. */
static fg_expr *flat_index(fg_op *op, fg_shape s, fg_elem e) {
  if (s.ndim == 0)
    return ilit(op, e, 0);
  fg_expr *i = coord(op, FG_COLUMN, e);
  if (s.ndim >= 2) {
    fg_expr *r = fg_mul(coord(op, FG_ROW, e), coord(op, FG_COLUMNS, e));
    i = fg_add(r, i);
  }
  if (s.ndim == 3) {
    fg_expr *l = fg_mul(coord(op, FG_LAYER, e),
                        fg_mul(coord(op, FG_ROWS, e),
                               coord(op, FG_COLUMNS, e)));
    i = fg_add(l, i);
  }
  return i;
}

/* The points of the thread shape, as an integer of type e. */
static fg_expr *points(fg_op *op, fg_elem e) {
  return fg_mul(fg_mul(coord(op, FG_LAYERS, e), coord(op, FG_ROWS, e)),
                coord(op, FG_COLUMNS, e));
}

fg_field *fg_reduce_loc(fg_graph *g, const char *name, fg_reduce_op op,
                        fg_field *in, fg_field **location) {
  const char *opname = name ? name : "reduce_loc";
  if (location)
    *location = NULL;
  if (!fgo_ready(g, in))
    return NULL;
  fg_type t = fg_field_type(in);
  char ts[FG_TYPE_STR_MAX];
  if (!location || (op != FG_REDUCE_MIN && op != FG_REDUCE_MAX)) {
    fg_graph_set_error(g, FG_EINVAL, "%s: operation %d over '%s' with "
                       "location %s; expected FG_REDUCE_MIN or "
                       "FG_REDUCE_MAX and a location pointer", opname,
                       (int)op, fg_field_label(in), location ? "set" : "NULL");
    return NULL;
  }
  if (fg_type_is_big(t) || fg_type_tensor_elements(t) != 1 ||
      t.elem == FG_BOOL) {
    fg_graph_set_error(g, FG_ETYPE, "%s: field '%s' is %s; expected a "
                       "scalar field of numbers", opname, fg_field_label(in),
                       fg_type_str(t, ts, sizeof ts));
    return NULL;
  }
  fg_shape s = t.field;
  int64_t n = fg_shape_points(s);
  int64_t rows = s.ndim >= 2 ? s.dim[s.ndim - 2] : 1;
  int64_t cols = s.ndim >= 1 ? s.dim[s.ndim - 1] : 1;
  /* the index's type: 32 bits while every index and n fit */
  fg_elem ie = n < INT32_MAX ? FG_I32 : FG_I64;
  char sub[160];

  snprintf(sub, sizeof sub, "%s.value", opname);
  fg_field *best = fg_reduce(g, sub, op, in);
  if (!best)
    return NULL;

  /* each point's flat index where it equals the value, else n */
  snprintf(sub, sizeof sub, "%s.match", opname);
  fg_type mt = fg_type_scalar(ie, s);
  fg_op *m = fg_op_begin(g, sub, 1, &mt);
  fg_expr *at = fg_var(m, ie, 1);
  fg_assign(at, points(m, ie));
  fg_if(fg_eq(fg_read_tensor(m, in), fg_read_tensor(m, best)));
  fg_assign(at, flat_index(m, s, ie));
  fg_end(m);
  fg_write_tensor(m, 0, at);
  fg_field *match = fg_op_end(m);
  snprintf(sub, sizeof sub, "%s.index", opname);
  fg_field *first = match ? fg_reduce(g, sub, FG_REDUCE_MIN, match) : NULL;
  if (!first)
    return NULL;

  /* the value and its coordinates; none (only NaNs): NaN and -1s.  The
   * sizes it divides by are read when the kernel runs (a constant field
   * of n, rows, columns), so one build serves every size. */
  fg_field *dims = fgo_uniform(g, "reduce_loc.dims", FG_I64, 3,
                               (const double[]){(double)n, (double)rows,
                                                (double)cols});
  if (!dims)
    return NULL;
  fg_type ot[2] = {fg_type_scalar(t.elem, fg_shape0()),
                   fg_type_vector(FG_I64, fg_shape0(), 3)};
  fg_op *f = fg_op_begin(g, opname, 2, ot);
  fg_expr *i = fg_var(f, FG_I64, 1);
  fg_assign(i, fg_convert(fg_read_tensor(f, first), FG_I64, 1));
  fg_expr *v = fg_var(f, t.elem, 1);
  fg_assign(v, fg_read_tensor(f, best));
  fg_expr *loc = fg_var(f, FG_I64, 3), *d = fg_var(f, FG_I64, 3);
  fg_assign(d, fg_read_tensor(f, dims));
  fg_expr *dn = fg_swizzle(d, "x"), *dr = fg_swizzle(d, "y"),
          *dc = fg_swizzle(d, "z");
  fg_if(fg_eq(i, dn));
  fg_assign(loc, fg_vector(FG_I64, 3, 1, fg_long(f, -1)));
  if (t.elem == FG_F32 || t.elem == FG_F64)
    fg_assign(v, fgo_flit(f, t.elem, NAN));
  fg_else(f);
  fg_assign(loc, fg_vector(FG_I64, 3, 3, fg_div(i, fg_mul(dr, dc)),
                           fg_mod(fg_div(i, dc), dr), fg_mod(i, dc)));
  fg_end(f);
  fg_write_tensor(f, 0, v);
  fg_write_tensor(f, 1, loc);
  fg_field *value = fg_op_end(f);
  if (!value)
    return NULL;
  *location = fg_op_output(f, 1);
  return value;
}
