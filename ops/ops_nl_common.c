/* ops/ops_nl_common.c - the checks, border rules and conversions the
 * operator library shares (ops/ops_impl.h).  Built on the public builder
 * API only. */
#include "ops_impl.h"

#include <string.h>

bool fgo_ready(fg_graph *g, fg_field *f) {
  return g && fg_graph_status(g) == FG_OK && f;
}

bool fgo_image(fg_graph *g, const char *opname, fg_field *f) {
  if (!fgo_ready(g, f))
    return false;
  fg_type t = fg_field_type(f);
  char ts[FG_TYPE_STR_MAX];
  if (t.field.ndim < 2) {
    fg_graph_set_error(g, FG_ESHAPE,
                       "%s: field '%s' is %s; expected 2 "
                       "dimensions (rows, columns) or 3 (layers of them)",
                       opname, fg_field_label(f), fg_type_str(t, ts, sizeof ts));
    return false;
  }
  if (fg_type_is_big(t)) {
    fg_graph_set_error(g, FG_ETYPE,
                       "%s: field '%s' is %s; expected small "
                       "tensors (at most %d channels)",
                       opname, fg_field_label(f), fg_type_str(t, ts, sizeof ts),
                       FG_MAX_SMALL_TENSOR);
    return false;
  }
  return true;
}

int64_t fgo_rows(fg_field *f) {
  fg_type t = fg_field_type(f);
  return t.field.dim[t.field.ndim - 2];
}

int64_t fgo_cols(fg_field *f) {
  fg_type t = fg_field_type(f);
  return t.field.dim[t.field.ndim - 1];
}

fg_expr *fgo_layers_x(fg_op *op, fg_field *f) {
  return fg_field_extent(op, f, FG_LAYERS);
}

fg_expr *fgo_rows_x(fg_op *op, fg_field *f) {
  return fg_field_extent(op, f, FG_ROWS);
}

fg_expr *fgo_cols_x(fg_op *op, fg_field *f) {
  return fg_field_extent(op, f, FG_COLUMNS);
}

fg_field *fgo_uniform(fg_graph *g, const char *name, fg_elem elem, int n,
                      const double *v) {
  union { float f[4]; double d[4]; int32_t i[4]; int64_t l[4]; } u;
  memset(&u, 0, sizeof u);
  for (int k = 0; k < n && k < 4; k++) {
    switch (elem) {
    case FG_F64: u.d[k] = v[k]; break;
    case FG_I64: u.l[k] = (int64_t)v[k]; break;
    case FG_I32: u.i[k] = (int32_t)v[k]; break;
    default: u.f[k] = (float)v[k]; break;
    }
  }
  if (elem != FG_F64 && elem != FG_I64 && elem != FG_I32)
    elem = FG_F32;
  return fg_constant(g, name, fg_type_vector(elem, fg_shape0(), n), &u);
}

fg_expr *fgo_read(fg_op *op, fg_field *f, fg_expr *row, fg_expr *col) {
  if (fg_field_type(f).field.ndim == 3)
    return fg_read_tensor_at(op, f, 3, fg_layer(op), row, col);
  return fg_read_tensor_at(op, f, 2, row, col);
}

fg_expr *fgo_read_border(fg_op *op, fg_field *f, fg_expr *row, fg_expr *col,
                             int b, double value) {
  if (b != FG_BORDER_CONSTANT) {
    /* the read remaps what lies outside (fg_read_tensor_at_border) */
    if (fg_field_type(f).field.ndim == 3)
      return fg_read_tensor_at_border(op, f, (fg_border)b, 3, fg_layer(op),
                                      row, col);
    return fg_read_tensor_at_border(op, f, (fg_border)b, 2, row, col);
  }
  fg_type t = fg_field_type(f);
  int n = fg_type_tensor_elements(t);
  fg_expr *v = fg_var(op, t.elem, n);
  fg_expr *inside = fg_land(
      fg_land(fg_ge(row, fg_int(op, 0)), fg_lt(row, fgo_rows_x(op, f))),
      fg_land(fg_ge(col, fg_int(op, 0)), fg_lt(col, fgo_cols_x(op, f))));
  fg_if(inside);
  fg_assign(v, fgo_read(op, f, row, col));
  fg_else(op);
  fg_expr *k = t.elem == FG_F64   ? fg_double(op, value)
               : t.elem == FG_F32 ? fg_float(op, (float)value)
                                  : fg_long(op, (int64_t)value);
  fg_assign(v, fg_convert(k, t.elem, n));
  fg_end(op);
  return v;
}

fg_elem fgo_acc(fg_elem e) {
  return e == FG_F64 ? FG_F64 : FG_F32;
}

fg_expr *fgo_to_acc(fg_expr *v, fg_elem acc) {
  return fg_convert(v, acc, fg_expr_width(v));
}

fg_expr *fgo_from_acc(fg_expr *v, fg_elem elem) {
  if (elem == FG_F32 || elem == FG_F64)
    return fg_convert(v, elem, fg_expr_width(v));
  return fg_convert_sat(v, elem, fg_expr_width(v));
}

fg_expr *fgo_flit(fg_op *op, fg_elem acc, double v) {
  return acc == FG_F64 ? fg_double(op, v) : fg_float(op, (float)v);
}
