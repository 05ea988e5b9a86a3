/* ops/ops_reduce.c - reductions of the operator library: whole-field
 * sum, min, max and mean (built on fg_reduce, so pointwise producers fuse
 * into them), and reductions along axes (fg_reduce_axes, fg_mean_axes):
 * over some field axes one thread per output point loops over the reduced
 * axes in index order (non-local reads; consumers fuse after it), over
 * every field axis it is fg_reduce, over the tensor elements a pointwise
 * operator.  Field axes are reduced first, then the tensor, so the
 * tensor step fuses after the field step. */
#include "ops_impl.h"

#include <stdio.h>

static const char *const op_names[] = {"sum", "min", "max", "prod"};

/* a OP b for a reduction op, in a's type: C promotes 8- and 16-bit
 * scalars to int for + and *, and the sum wraps in the element type. */
static fg_expr *combine(fg_reduce_op r, fg_expr *a, fg_expr *b) {
  fg_expr *v;
  switch (r) {
  case FG_REDUCE_MIN:
    return fg_min(a, b);
  case FG_REDUCE_MAX:
    return fg_max(a, b);
  case FG_REDUCE_PROD:
    v = fg_mul(a, b);
    break;
  default:
    v = fg_add(a, b);
    break;
  }
  if (v && fg_expr_elem(v) != fg_expr_elem(a))
    v = fg_convert(v, fg_expr_elem(a), fg_expr_width(a));
  return v;
}

/* The float type a mean of elem accumulates in. */
static fg_elem mean_elem(fg_elem e) {
  return e == FG_F64 || e == FG_I64 || e == FG_U64 ? FG_F64 : FG_F32;
}

/* A pointwise operator converting in to elem (same width). */
static fg_field *convert(fg_graph *g, const char *name, fg_field *in,
                         fg_elem elem) {
  fg_type t = fg_field_type(in);
  t.elem = elem;
  fg_op *op = fg_op_begin(g, name, 1, &t);
  fg_write_tensor(
      op, 0,
      fg_convert(fg_read_tensor(op, in), elem, fg_type_tensor_elements(t)));
  return fg_op_end(op);
}

/* A pointwise operator on in (any shape) writing type ot: divide by
 * count when count > 0, combine the tensor's elements with r when
 * tensor; ot's field may differ from in's only when in is 0-D (a
 * reshape of the one value).  A count that depends on field sizes
 * (sized) is read from a constant field when the kernel runs, so the
 * kernel's source is the same for every size. */
static fg_field *finish(fg_graph *g, const char *name, fg_field *in, fg_type ot,
                        fg_reduce_op r, bool tensor, double count,
                        bool sized) {
  int n = fg_type_tensor_elements(fg_field_type(in));
  fg_field *cf = NULL;
  if (count > 0 && sized) {
    char cname[112];
    snprintf(cname, sizeof cname, "%s.count", name);
    if (!(cf = fgo_uniform(g, cname, ot.elem, 1, &count)))
      return NULL;
  }
  fg_op *op = fg_op_begin(g, name, 1, &ot);
  fg_expr *v = fg_var(op, ot.elem, n);
  fg_assign(v, fg_convert(fg_read_tensor(op, in), ot.elem, n));
  fg_expr *res = v;
  if (tensor && n > 1) {
    static const char *const comp[4] = {"x", "y", "z", "w"};
    res = fg_var(op, ot.elem, 1);
    fg_assign(res, fg_swizzle(v, "x"));
    for (int k = 1; k < n; k++)
      fg_assign(res, combine(r, res, fg_swizzle(v, comp[k])));
  }
  if (count > 0)
    res = fg_div(res, cf ? fg_read_tensor(op, cf)
                         : fgo_flit(op, ot.elem, count));
  fg_write_tensor(op, 0, res);
  return fg_op_end(op);
}

/* The extent of field axis a (0-based, of nd) of f, read when the kernel
 * runs. */
static fg_expr *extent(fg_op *op, fg_field *f, int nd, int a) {
  return fg_field_extent(op, f, (fg_thread_const)(FG_LAYERS + 3 - nd + a));
}

/* Shared body of fg_reduce_axes and fg_mean_axes. */
static fg_field *reduce_axes(fg_graph *g, const char *name, fg_reduce_op r,
                             bool mean, fg_field *in, unsigned axes,
                             bool keepdims) {
  const char *opname = name ? name : mean ? "mean_axes" : "reduce_axes";
  if (!fgo_ready(g, in))
    return NULL;
  fg_type t = fg_field_type(in);
  int nd = t.field.ndim;
  int n = fg_type_tensor_elements(t);
  unsigned field_bits = (1u << nd) - 1;
  char ts[FG_TYPE_STR_MAX];
  if (fg_type_is_big(t)) {
    fg_graph_set_error(g, FG_ETYPE,
                       "%s: field '%s' is %s; expected small "
                       "tensors",
                       opname, fg_field_label(in),
                       fg_type_str(t, ts, sizeof ts));
    return NULL;
  }
  if ((unsigned)r > FG_REDUCE_PROD || axes == 0 ||
      (axes & ~(field_bits | FG_AXIS_TENSOR))) {
    fg_graph_set_error(g, FG_EINVAL,
                       "%s: axes 0x%x over '%s' (%s) with "
                       "operation %d; expected a nonempty mask of "
                       "FG_AXIS(0..%d) and FG_AXIS_TENSOR and an "
                       "fg_reduce_op",
                       opname, axes, fg_field_label(in),
                       fg_type_str(t, ts, sizeof ts), nd - 1, (int)r);
    return NULL;
  }
  unsigned fa = axes & field_bits;
  bool tensor = (axes & FG_AXIS_TENSOR) && n > 1;
  fg_elem ae = mean ? mean_elem(t.elem) : t.elem;
  /* the output's field shape, and the count of points reduced */
  fg_shape os = {0, {0, 0, 0}};
  double count = 1;
  for (int a = 0; a < nd; a++) {
    if (fa >> a & 1) {
      count *= (double)t.field.dim[a];
      if (keepdims)
        os.dim[os.ndim++] = 1;
    } else {
      os.dim[os.ndim++] = t.field.dim[a];
    }
  }
  char sub[96];
  fg_field *cur = in;
  double div = 0; /* what the pointwise tail divides by */
  bool sized = false; /* div depends on the field's size */
  if (fa == field_bits && nd > 0) {
    /* every field axis: a reduction, producers fuse into it */
    snprintf(sub, sizeof sub, "%s.all", opname);
    if (mean && t.elem != ae) {
      char cname[96];
      snprintf(cname, sizeof cname, "%s.float", opname);
      cur = convert(g, cname, cur, ae);
    }
    cur = fg_reduce(g, sub, mean ? FG_REDUCE_SUM : r, cur);
    if (!mean && !tensor && !keepdims)
      return cur;
    div = mean ? count * (tensor ? n : 1) : 0;
    sized = true;
  } else if (fa) {
    snprintf(sub, sizeof sub, "%s.axes", opname);
    fg_type ot = fg_type_vector(ae, os, n);
    fg_op *op = fg_op_begin(g, tensor ? sub : opname, 1, &ot);
    /* input coordinates: loop variables on reduced axes, the thread's
     * coordinates (the output's axes, last-aligned) elsewhere */
    fg_expr *coord[3] = {NULL, NULL, NULL}, *zero[3] = {NULL, NULL, NULL};
    int oj = 0;
    for (int a = 0; a < nd; a++) {
      if (fa >> a & 1) {
        coord[a] = fg_var(op, FG_I32, 1);
        zero[a] = fg_int(op, 0);
        if (keepdims)
          oj++;
      } else {
        coord[a] = zero[a] =
            fg_thread(op, (fg_thread_const)(FG_LAYER + 3 - os.ndim + oj++));
      }
    }
    /* the points reduced: the product of in's reduced extents, read
     * when the kernel runs, in 64 bits and converted once (the double
     * product converted to ae was the same value) */
    fg_expr *cnt = NULL;
    if (mean) {
      cnt = fg_var(op, FG_I64, 1);
      fg_assign(cnt, fg_long(op, 1));
      for (int a = 0; a < nd; a++)
        if (fa >> a & 1)
          fg_assign(cnt, fg_mul(cnt, fg_convert(extent(op, in, nd, a),
                                                FG_I64, 1)));
    }
    fg_expr *acc = fg_var(op, ae, n);
    if (r == FG_REDUCE_PROD && !mean) {
      fg_assign(acc, fg_convert(fg_int(op, 1), ae, n));
    } else if ((r == FG_REDUCE_MIN || r == FG_REDUCE_MAX) && !mean) {
      /* min / max start from the first point (visited again below) */
      fg_assign(acc, fg_read_tensor_at(op, in, nd, zero[0], zero[1], zero[2]));
    }
    for (int a = 0; a < nd; a++)
      if (fa >> a & 1)
        fg_for(coord[a], fg_int(op, 0),
               fg_lt(coord[a], extent(op, in, nd, a)),
               fg_int(op, 1));
    fg_expr *v = fg_read_tensor_at(op, in, nd, coord[0], coord[1], coord[2]);
    if (mean)
      v = fg_convert(v, ae, n);
    fg_assign(acc, combine(mean ? FG_REDUCE_SUM : r, acc, v));
    for (int a = 0; a < nd; a++)
      if (fa >> a & 1)
        fg_end(op);
    fg_write_tensor(op, 0,
                    mean ? fg_div(acc, fg_convert(cnt, ae, 1)) : acc);
    cur = fg_op_end(op);
    if (!tensor)
      return cur;
    div = mean ? n : 0;
  } else {
    if (!tensor && !mean)
      return in; /* the tensor of one element: as it is */
    div = mean ? n : 0;
  }
  if (!cur)
    return NULL;
  /* the pointwise tail: combine the tensor, divide, reshape a 0-D value */
  fg_type ot = fg_type_vector(
      ae, fa == field_bits ? os : fg_field_type(cur).field, tensor ? 1 : n);
  return finish(g, opname, cur, ot, mean ? FG_REDUCE_SUM : r, tensor, div,
                sized);
}

fg_field *fg_reduce_axes(fg_graph *g, const char *name, fg_reduce_op op,
                         fg_field *in, unsigned axes, bool keepdims) {
  return reduce_axes(g, name, op, false, in, axes, keepdims);
}

fg_field *fg_mean_axes(fg_graph *g, const char *name, fg_field *in,
                       unsigned axes, bool keepdims) {
  return reduce_axes(g, name, FG_REDUCE_SUM, true, in, axes, keepdims);
}

/* Whole-field reductions: every field axis, element by element. */
static fg_field *whole(fg_graph *g, fg_reduce_op r, bool mean, fg_field *in) {
  if (!fgo_ready(g, in))
    return NULL;
  fg_type t = fg_field_type(in);
  unsigned all = (1u << t.field.ndim) - 1;
  if (t.field.ndim == 0) {
    fg_graph_set_error(g, FG_ESHAPE,
                       "%s: field '%s' is 0-dimensional "
                       "already",
                       mean ? "mean" : op_names[r], fg_field_label(in));
    return NULL;
  }
  return reduce_axes(g, mean ? "mean" : op_names[r], r, mean, in, all, false);
}

fg_field *fg_reduce_sum(fg_graph *g, fg_field *in) {
  return whole(g, FG_REDUCE_SUM, false, in);
}
fg_field *fg_reduce_min(fg_graph *g, fg_field *in) {
  return whole(g, FG_REDUCE_MIN, false, in);
}
fg_field *fg_reduce_max(fg_graph *g, fg_field *in) {
  return whole(g, FG_REDUCE_MAX, false, in);
}
fg_field *fg_reduce_mean(fg_graph *g, fg_field *in) {
  return whole(g, FG_REDUCE_SUM, true, in);
}
