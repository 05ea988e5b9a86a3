/* ops/ops_common.c - what the operator library's families share: checks
 * that name the operator, the broadcasting rule, typed constants, and
 * fgo_map, the builder of pointwise operators from a function of scalars
 * (small tensors as one vector per point, big ones element by element). */
#include "ops_impl.h"

#include <stdarg.h>
#include <stdio.h>

void *fgo_fail(fg_graph *g, fg_status st, const char *name, const char *fmt,
               ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fg_graph_set_error(g, st, "%s: %s", name, msg);
  return NULL;
}

bool fgo_fields_ok(fg_graph *g, const char *name, int n,
                   fg_field *const *f) {
  if (!g || fg_graph_status(g) != FG_OK)
    return false;
  for (int i = 0; i < n; i++) {
    if (!f[i])
      return false;
    if (fg_field_graph(f[i]) != g) {
      fgo_fail(g, FG_EINVAL, name, "field '%s' belongs to another graph",
               fg_field_label(f[i]));
      return false;
    }
  }
  return true;
}

bool fgo_broadcast(fg_graph *g, const char *name, int n,
                   fg_field *const *f, fg_type *out) {
  *out = fg_field_type(f[0]);
  for (int i = 1; i < n; i++) {
    fg_type t = fg_field_type(f[i]);
    char a[FG_TYPE_STR_MAX], b[FG_TYPE_STR_MAX];
    if (!fg_shape_equal(out->field, t.field) && out->field.ndim != 0 &&
        t.field.ndim != 0)
      return fgo_fail(g, FG_ESHAPE, name, "field shapes of %s and '%s' (%s) "
                      "differ and neither is 0-dimensional",
                      fg_type_str(*out, a, sizeof a), fg_field_label(f[i]),
                      fg_type_str(t, b, sizeof b)) != NULL;
    int ea = fg_type_tensor_elements(*out), eb = fg_type_tensor_elements(t);
    if (ea != eb && ea != 1 && eb != 1)
      return fgo_fail(g, FG_ESHAPE, name, "tensors of %s and '%s' (%s) "
                      "differ and neither has one element",
                      fg_type_str(*out, a, sizeof a), fg_field_label(f[i]),
                      fg_type_str(t, b, sizeof b)) != NULL;
    if (out->field.ndim == 0)
      out->field = t.field;
    if (ea == 1 && eb != 1)
      out->tensor = t.tensor;
  }
  return true;
}

fg_elem fgo_common(fg_elem a, fg_elem b) { return a > b ? a : b; }

fg_elem fgo_float_of(fg_elem e) { return e == FG_F64 ? FG_F64 : FG_F32; }

/* v as an int64_t, saturating (2^63, what INT64_MAX becomes as a double,
 * gives INT64_MAX); NaN gives 0.  C leaves the conversion of values out
 * of range undefined. */
static int64_t sat_i64(double v) {
  if (v != v)
    return 0;
  if (v >= 0x1p63)
    return INT64_MAX;
  if (v < -0x1p63)
    return INT64_MIN;
  return (int64_t)v;
}

/* v as an int32_t, saturating; NaN gives 0. */
static int32_t sat_i32(double v) {
  int64_t i = sat_i64(v);
  return i > INT32_MAX ? INT32_MAX : i < INT32_MIN ? INT32_MIN : (int32_t)i;
}

fg_expr *fgo_const(fg_op *op, fg_elem elem, double v) {
  switch (elem) {
  case FG_F32: return fg_float(op, (float)v);
  case FG_F64: return fg_double(op, v);
  case FG_U32: return fg_uint(op, (uint32_t)sat_i64(v));
  case FG_I32: return fg_int(op, sat_i32(v));
  case FG_U64: return fg_ulong(op, v < 0 ? (uint64_t)sat_i64(v)
                                   : v >= 0x1p64 ? UINT64_MAX
                                                 : (uint64_t)v);
  case FG_I64: return fg_long(op, sat_i64(v));
  default: return fg_convert(fg_int(op, sat_i32(v)), elem, 1);
  }
}

fg_expr *fgo_to(fg_expr *x, fg_elem elem) {
  if (!x || (fg_expr_elem(x) == elem && fg_expr_width(x) == 1))
    return x;
  return fg_convert(x, elem, 1);
}

fg_expr *fgo_vec(fg_elem elem, int n, fg_expr *const *c) {
  switch (n) {
  case 1: return fgo_to(c[0], elem);
  case 2: return fg_vector(elem, 2, 2, c[0], c[1]);
  case 3: return fg_vector(elem, 3, 3, c[0], c[1], c[2]);
  default: return fg_vector(elem, 4, 4, c[0], c[1], c[2], c[3]);
  }
}

fg_expr *fgo_comp(fg_expr *v, int w, int i) {
  static const char *const names[4] = {"x", "y", "z", "w"};
  return w == 1 ? v : fg_swizzle(v, names[i]);
}

fg_field *fgo_map(fg_graph *g, const char *name, int n, fg_field *const *in,
                  fg_elem out_elem, fgo_scalar_fn fn, const void *ctx) {
  enum { MAXIN = 4 };
  fg_type t;
  if (n > MAXIN || !fgo_fields_ok(g, name, n, in) ||
      !fgo_broadcast(g, name, n, in, &t))
    return NULL;
  t.elem = out_elem;
  int ne = fg_type_tensor_elements(t);
  fg_op *op = fg_op_begin(g, name, 1, &t);
  fg_expr *x[MAXIN];
  if (ne <= FG_MAX_SMALL_TENSOR) {
    fg_expr *v[MAXIN];
    int w[MAXIN];
    for (int i = 0; i < n; i++) {
      v[i] = fg_tensor_var(op, in[i]);
      fg_assign(v[i], fg_read_tensor(op, in[i]));
      w[i] = fg_type_tensor_elements(fg_field_type(in[i]));
    }
    fg_expr *r[4];
    for (int k = 0; k < ne; k++) {
      for (int i = 0; i < n; i++)
        x[i] = fgo_comp(v[i], w[i], k);
      r[k] = fgo_to(fn(op, x, ctx), out_elem);
    }
    fg_write_tensor(op, 0, fgo_vec(out_elem, ne, r));
  } else {
    fg_for_each_tensor_element(op, t.tensor);
    for (int i = 0; i < n; i++)
      x[i] = fg_read_element(op, in[i],
                             fg_type_tensor_elements(fg_field_type(in[i])) == 1
                                 ? fg_int(op, 0) : NULL);
    fg_write_element(op, 0, fgo_to(fn(op, x, ctx), out_elem), NULL);
    fg_end(op);
  }
  return fg_op_end(op);
}

bool fgo_restriction_ok(fg_graph *g, const char *name,
                        const fg_restriction *r, fg_shape s) {
  if (!r)
    return true;
  if (s.ndim != 2)
    return fgo_fail(g, FG_ESHAPE, name, "a restriction needs a 2-D field, "
                    "got %d dimensions", s.ndim) != NULL;
  if (r->x0 < 0 || r->x0 >= r->x1 || r->x1 > s.dim[1] || r->y0 < 0 ||
      r->y0 >= r->y1 || r->y1 > s.dim[0])
    return fgo_fail(g, FG_EINVAL, name, "restriction columns [%lld, %lld) "
                    "rows [%lld, %lld) is empty or leaves the %lld x %lld "
                    "field", (long long)r->x0, (long long)r->x1,
                    (long long)r->y0, (long long)r->y1, (long long)s.dim[0],
                    (long long)s.dim[1]) != NULL;
  return true;
}

fg_expr *fgo_inside(fg_op *op, const fg_restriction *r) {
  if (!r)
    return NULL;
  fg_expr *x = fg_column(op), *y = fg_row(op);
  return fg_land(fg_land(fg_ge(x, fg_int(op, (int32_t)r->x0)),
                         fg_lt(x, fg_int(op, (int32_t)r->x1))),
                 fg_land(fg_ge(y, fg_int(op, (int32_t)r->y0)),
                         fg_lt(y, fg_int(op, (int32_t)r->y1))));
}
