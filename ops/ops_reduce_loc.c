/* ops/ops_reduce_loc.c - fg_reduce_loc: the minimum or maximum of a scalar
 * field and the (layer, row, column) of its first occurrence in row-major
 * order, from the built-in reduction with an index (fg_reduce_index: one
 * pass gives fg_reduce's value and the flat index of the first point
 * equal to it) and a 0-D operator that turns the index into coordinates.
 */
#include "ops_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

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
  int64_t rows = s.ndim >= 2 ? s.dim[s.ndim - 2] : 1;
  int64_t cols = s.ndim >= 1 ? s.dim[s.ndim - 1] : 1;
  char sub[160];

  snprintf(sub, sizeof sub, "%s.value", opname);
  fg_field *first = NULL;
  fg_field *best = fg_reduce_index(g, sub, op, in, &first);
  if (!best)
    return NULL;

  /* the value and its coordinates; none (only NaNs): NaN and -1s.  The
   * sizes it divides by are read when the kernel runs (a constant field
   * of rows, columns), so one build serves every size. */
  fg_field *dims = fgo_uniform(g, "reduce_loc.dims", FG_I64, 2,
                               (const double[]){(double)rows, (double)cols});
  if (!dims)
    return NULL;
  fg_type ot[2] = {fg_type_scalar(t.elem, fg_shape0()),
                   fg_type_vector(FG_I64, fg_shape0(), 3)};
  fg_op *f = fg_op_begin(g, opname, 2, ot);
  fg_expr *i = fg_var(f, FG_I64, 1);
  fg_assign(i, fg_read_tensor(f, first));
  fg_expr *v = fg_var(f, t.elem, 1);
  fg_assign(v, fg_read_tensor(f, best));
  fg_expr *loc = fg_var(f, FG_I64, 3), *d = fg_var(f, FG_I64, 2);
  fg_assign(d, fg_read_tensor(f, dims));
  fg_expr *dr = fg_swizzle(d, "x"), *dc = fg_swizzle(d, "y");
  fg_if(fg_lt(i, fg_long(f, 0)));
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
