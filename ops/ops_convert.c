/* ops/ops_convert.c - conversions and channel operators: casts (C's and
 * saturating), the normalising conversions between u8/u16 and floats in
 * [0, 1], channel extract / merge / pick, broadcasting a 0-D field and
 * 0-D constants.  All pointwise. */
#include "ops_impl.h"

#include <math.h>
#include <string.h>

static bool is_int(fg_elem e) { return e >= FG_I8 && e <= FG_U64; }

static fg_expr *cast_fn(fg_op *op, fg_expr *const *x, const void *ctx) {
  (void)op;
  return fgo_to(x[0], *(const fg_elem *)ctx);
}

static bool elem_ok(fg_graph *g, const char *name, fg_elem e) {
  if ((unsigned)e > FG_F64 || e == FG_BOOL)
    return fgo_fail(g, FG_EINVAL, name, "element type %d is not a field "
                    "element type", (int)e) != NULL;
  return true;
}

fg_field *fg_cast(fg_graph *g, fg_field *a, fg_elem elem) {
  if (!fgo_fields_ok(g, "cast", 1, &a) || !elem_ok(g, "cast", elem))
    return NULL;
  return fgo_map(g, "cast", 1, &a, elem, cast_fn, &elem);
}

static fg_expr *cast_sat_fn(fg_op *op, fg_expr *const *x, const void *ctx) {
  (void)op;
  return fg_convert_sat(x[0], *(const fg_elem *)ctx, 1);
}

fg_field *fg_cast_sat(fg_graph *g, fg_field *a, fg_elem elem) {
  if (!fgo_fields_ok(g, "cast_sat", 1, &a) || !elem_ok(g, "cast_sat", elem))
    return NULL;
  if (!is_int(elem))
    return fgo_fail(g, FG_ETYPE, "cast_sat", "target must be an integer "
                    "type, got %s", fg_elem_name(elem));
  return fgo_map(g, "cast_sat", 1, &a, elem, cast_sat_fn, &elem);
}

static double unit_max(fg_elem e) { return e == FG_U8 ? 255.0 : 65535.0; }

static fg_expr *to_unit_fn(fg_op *op, fg_expr *const *x, const void *ctx) {
  (void)ctx;
  fg_elem e = fg_expr_elem(x[0]);
  if (e == FG_F32 || e == FG_F64)
    return x[0];
  return fg_div(fg_convert(x[0], FG_F32, 1),
                fg_float(op, (float)unit_max(e)));
}

fg_field *fg_to_unit(fg_graph *g, fg_field *a) {
  if (!fgo_fields_ok(g, "to_unit", 1, &a))
    return NULL;
  fg_elem e = fg_field_type(a).elem;
  if (e != FG_U8 && e != FG_U16 && e != FG_F32 && e != FG_F64)
    return fgo_fail(g, FG_ETYPE, "to_unit", "'%s' is %s; expected u8, u16 "
                    "or a float field", fg_field_label(a), fg_elem_name(e));
  return fgo_map(g, "to_unit", 1, &a, e == FG_F64 ? FG_F64 : FG_F32,
                 to_unit_fn, NULL);
}

static fg_expr *from_unit_fn(fg_op *op, fg_expr *const *x, const void *ctx) {
  fg_elem to = *(const fg_elem *)ctx;
  fg_elem w = fg_expr_elem(x[0]);
  return fg_convert_sat(fg_mul(x[0], fgo_const(op, w, unit_max(to))), to,
                        1);
}

fg_field *fg_from_unit(fg_graph *g, fg_field *a, fg_elem elem) {
  if (!fgo_fields_ok(g, "from_unit", 1, &a))
    return NULL;
  fg_elem e = fg_field_type(a).elem;
  if (e != FG_F32 && e != FG_F64)
    return fgo_fail(g, FG_ETYPE, "from_unit", "'%s' is %s; expected a float "
                    "field", fg_field_label(a), fg_elem_name(e));
  if (elem != FG_U8 && elem != FG_U16)
    return fgo_fail(g, FG_ETYPE, "from_unit", "target must be u8 or u16, "
                    "got %s", fg_elem_name(elem));
  return fgo_map(g, "from_unit", 1, &a, elem, from_unit_fn, &elem);
}

/* ---- channels ------------------------------------------------------------- */

/* Checks that a is a small-tensor field; false with an error naming the
 * operator. */
static bool small_ok(fg_graph *g, const char *name, fg_field *a) {
  if (fg_type_is_big(fg_field_type(a))) {
    char ts[FG_TYPE_STR_MAX];
    return fgo_fail(g, FG_ETYPE, name, "'%s' is %s; channels exist for "
                    "small tensors (at most %d elements)", fg_field_label(a),
                    fg_type_str(fg_field_type(a), ts, sizeof ts),
                    FG_MAX_SMALL_TENSOR) != NULL;
  }
  return true;
}

/* An operator writing the channels idx[0..n) of a (a vector field of
 * width w). */
static fg_field *pick(fg_graph *g, const char *name, fg_field *a,
                      const int *idx, int n) {
  fg_type t = fg_field_type(a);
  t.tensor = n == 1 ? fg_shape0() : fg_shape1(n);
  int w = fg_type_tensor_elements(fg_field_type(a));
  fg_op *op = fg_op_begin(g, name, 1, &t);
  fg_expr *v = fg_tensor_var(op, a);
  fg_assign(v, fg_read_tensor(op, a));
  fg_expr *c[4];
  for (int i = 0; i < n; i++)
    c[i] = fgo_comp(v, w, idx[i]);
  fg_write_tensor(op, 0, fgo_vec(t.elem, n, c));
  return fg_op_end(op);
}

fg_field *fg_channel(fg_graph *g, fg_field *a, int i) {
  if (!fgo_fields_ok(g, "channel", 1, &a) || !small_ok(g, "channel", a))
    return NULL;
  int w = fg_type_tensor_elements(fg_field_type(a));
  if (i < 0 || i >= w)
    return fgo_fail(g, FG_EINVAL, "channel", "channel %d of '%s', which has "
                    "%d", i, fg_field_label(a), w);
  return pick(g, "channel", a, &i, 1);
}

fg_field *fg_channels(fg_graph *g, fg_field *a, const char *letters) {
  if (!fgo_fields_ok(g, "channels", 1, &a) || !small_ok(g, "channels", a))
    return NULL;
  int w = fg_type_tensor_elements(fg_field_type(a));
  int n = letters ? (int)strlen(letters) : 0;
  if (n < 1 || n > 4)
    return fgo_fail(g, FG_EINVAL, "channels", "pick \"%s\" needs 1-4 "
                    "letters of xyzw or rgba", letters ? letters : "(null)");
  int idx[4];
  for (int i = 0; i < n; i++) {
    const char *p = strchr("xyzw", letters[i]), *q = strchr("rgba",
                                                             letters[i]);
    idx[i] = p && *p ? (int)(p - "xyzw") : q && *q ? (int)(q - "rgba") : -1;
    if (idx[i] < 0 || idx[i] >= w)
      return fgo_fail(g, FG_EINVAL, "channels", "letter '%c' of \"%s\" names "
                      "no channel of '%s' (%d channels)", letters[i],
                      letters, fg_field_label(a), w);
  }
  return pick(g, "channels", a, idx, n);
}

fg_field *fg_merge(fg_graph *g, int n, fg_field *const *parts) {
  if (!g || fg_graph_status(g) != FG_OK)
    return NULL;
  if (n < 1 || n > 4 || !parts)
    return fgo_fail(g, FG_EINVAL, "merge", "%d parts; expected 1-4", n);
  if (!fgo_fields_ok(g, "merge", n, parts))
    return NULL;
  int total = 0;
  for (int i = 0; i < n; i++) {
    if (!small_ok(g, "merge", parts[i]))
      return NULL;
    total += fg_type_tensor_elements(fg_field_type(parts[i]));
    if (fg_field_type(parts[i]).elem != fg_field_type(parts[0]).elem ||
        !fg_shape_equal(fg_field_type(parts[i]).field, fg_field_type(parts[0]).field)) {
      char a[FG_TYPE_STR_MAX], b[FG_TYPE_STR_MAX];
      return fgo_fail(g, FG_ETYPE, "merge", "'%s' (%s) and '%s' (%s) differ "
                      "in element type or field shape", fg_field_label(parts[0]),
                      fg_type_str(fg_field_type(parts[0]), a, sizeof a),
                      fg_field_label(parts[i]),
                      fg_type_str(fg_field_type(parts[i]), b, sizeof b));
    }
  }
  if (total < 2 || total > 4)
    return fgo_fail(g, FG_EINVAL, "merge", "the parts hold %d channels; "
                    "expected 2-4", total);
  fg_type t = fg_type_vector(fg_field_type(parts[0]).elem, fg_field_type(parts[0]).field,
                             total);
  fg_op *op = fg_op_begin(g, "merge", 1, &t);
  fg_expr *c[4];
  int k = 0;
  for (int i = 0; i < n; i++) {
    int w = fg_type_tensor_elements(fg_field_type(parts[i]));
    fg_expr *v = fg_tensor_var(op, parts[i]);
    fg_assign(v, fg_read_tensor(op, parts[i]));
    for (int j = 0; j < w; j++)
      c[k++] = fgo_comp(v, w, j);
  }
  fg_write_tensor(op, 0, fgo_vec(t.elem, total, c));
  return fg_op_end(op);
}

fg_field *fg_broadcast(fg_graph *g, fg_field *a, fg_shape shape,
                       int channels) {
  if (!fgo_fields_ok(g, "broadcast", 1, &a))
    return NULL;
  int w = fg_type_tensor_elements(fg_field_type(a));
  if (fg_field_type(a).field.ndim != 0 && !fg_shape_equal(fg_field_type(a).field, shape))
    return fgo_fail(g, FG_ESHAPE, "broadcast", "'%s' is neither "
                    "0-dimensional nor of the target shape", fg_field_label(a));
  if (channels > 1 && (w != 1 || channels > 4))
    return fgo_fail(g, FG_EINVAL, "broadcast", "%d channels from '%s' of %d "
                    "elements; repeating needs one element and at most 4 "
                    "channels", channels, fg_field_label(a), w);
  if (!small_ok(g, "broadcast", a))
    return NULL;
  fg_type t = fg_field_type(a);
  t.field = shape;
  if (channels > 1)
    t.tensor = fg_shape1(channels);
  fg_op *op = fg_op_begin(g, "broadcast", 1, &t);
  fg_expr *v = fg_read_tensor(op, a);
  if (channels > 1)
    v = fg_vector(t.elem, channels, 1, v);
  fg_write_tensor(op, 0, v);
  return fg_op_end(op);
}

/* The open interval (lo, hi) a double must lie in to fit integer type e
 * once truncated toward zero (bounds exact in double); false for
 * floats. */
static bool int_range(fg_elem e, double *lo, double *hi) {
  static const struct { fg_elem e; double lo, hi; } r[] = {
      {FG_I8, -129.0, 128.0}, {FG_U8, -1.0, 256.0},
      {FG_I16, -32769.0, 32768.0}, {FG_U16, -1.0, 65536.0},
      {FG_I32, -2147483649.0, 2147483648.0}, {FG_U32, -1.0, 4294967296.0},
      {FG_I64, -9223372036854777856.0, 9223372036854775808.0},
      {FG_U64, -1.0, 18446744073709551616.0}};
  for (size_t i = 0; i < sizeof r / sizeof *r; i++)
    if (r[i].e == e) {
      *lo = r[i].lo;
      *hi = r[i].hi;
      return true;
    }
  return false;
}

fg_field *fg_scalar_constant(fg_graph *g, fg_elem elem, double value) {
  if (!g || fg_graph_status(g) != FG_OK || !elem_ok(g, "scalar_constant", elem))
    return NULL;
  double lo, hi;
  if (int_range(elem, &lo, &hi) && !(value > lo && value < hi))
    return fgo_fail(g, FG_EINVAL, "scalar_constant", "value %.17g does not "
                    "fit %s (truncated toward zero: it must lie strictly "
                    "between %.0f and %.0f)", value, fg_elem_name(elem), lo,
                    hi);
  union {
    int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32;
    uint32_t u32; int64_t i64; uint64_t u64; float f32; double f64;
  } u;
  memset(&u, 0, sizeof u);
  switch (elem) {
  case FG_I8: u.i8 = (int8_t)value; break;
  case FG_U8: u.u8 = (uint8_t)value; break;
  case FG_I16: u.i16 = (int16_t)value; break;
  case FG_U16: u.u16 = (uint16_t)value; break;
  case FG_I32: u.i32 = (int32_t)value; break;
  case FG_U32: u.u32 = (uint32_t)value; break;
  case FG_I64: u.i64 = (int64_t)value; break;
  case FG_U64: u.u64 = (uint64_t)value; break;
  case FG_F32: u.f32 = (float)value; break;
  default: u.f64 = value; break;
  }
  return fg_constant(g, "scalar", fg_type_scalar(elem, fg_shape0()), &u);
}
