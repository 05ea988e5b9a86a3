/* ops/table.c - the operator library as one table (fieldgraph/op_table.h):
 * one row per operator, naming its parameters, their kinds and defaults,
 * a one-line description and the library call it makes, with the adapter
 * that calls it from generic arguments (fg_op_args, by parameter position,
 * already checked against the row's signature by fg_ops_call or a front
 * end).  The pipeline language, `fieldgraph ops`, the reference table of
 * docs/pipeline.md (tests/check_ops_table.c compares them) and C users of
 * fg_ops_table() all read it.
 *
 * To add an operator: its function in ops/ (declared in
 * include/fieldgraph/ops_*.h), a CALL adapter below, one row in the
 * table, its line in docs/pipeline.md, and its test.
 */
#include "ops_impl.h"
#include "fieldgraph/op_table.h"

#include <math.h>
#include <string.h>

/* An adapter: call_<n> makes one library call (c, the row's c_call) from
 * the row's arguments. */
#define CALL(n, c)                                                            \
  static const char call_name_##n[] = c;                                      \
  static fg_field *call_##n(fg_graph *g, const fg_op_args *a)
#define F0 a->field[0]
#define I(k) ((int)a->num[k])
#define L(k) ((int64_t)a->num[k])

/* The 2-D field type of f, or an error on the graph (returns 0). */
static int image_dims(fg_graph *g, const char *op, fg_field *f,
                      int64_t *rows, int64_t *cols) {
  fg_type t = fg_field_type(f);
  if (!f)
    return 0;
  if (t.field.ndim != 2) {
    fg_graph_set_error(g, FG_ESHAPE, "%s: expected a 2-D image, '%s' has %d "
                       "dimensions", op, fg_field_label(f), t.field.ndim);
    return 0;
  }
  *rows = t.field.dim[0];
  *cols = t.field.dim[1];
  return 1;
}

/* A list of exactly n numbers, else an error naming what (returns NULL). */
static const float *floats(fg_graph *g, const char *op, const char *what,
                           const fg_op_list *w, int n) {
  if (w->n != n) {
    fg_graph_set_error(g, FG_EINVAL, "%s: expected %d numbers for %s, found "
                       "%d", op, n, what, w->n);
    return NULL;
  }
  return w->v;
}

/* ---- geometry and resizing ---------------------------------------------- */

CALL(flip, "fg_flip") { return fg_flip(g, F0, a->num[1] != 0, a->num[2] != 0); }
CALL(transpose, "fg_transpose") { return fg_transpose(g, F0); }
CALL(rotate90, "fg_rotate90") { return fg_rotate90(g, F0, I(1)); }
CALL(rotate, "fg_rotate_angle") {
  return fg_rotate_angle(g, F0, a->num[1], (fg_interp)I(2),
                         (fg_border)I(3), a->num[4]);
}
CALL(overlay, "fg_overlay") {
  return fg_overlay(g, F0, a->field[1], L(2), L(3));
}
CALL(crop, "fg_crop") { return fg_crop(g, F0, L(1), L(2), L(3), L(4)); }
/* Margins, or with to = [width, height] the image centred on a canvas of
 * that size (a letterbox; the odd pixel goes to the bottom and right). */
CALL(pad, "fg_pad") {
  const fg_op_list *to = a->list[7];
  int64_t m[4] = {L(1), L(2), L(3), L(4)};
  if (to && !(to->n == 1 && to->v[0] == 0)) {
    fg_type t = fg_field_type(F0);
    if (to->n != 2 || t.field.ndim != 2) {
      fg_graph_set_error(g, FG_EINVAL, "pad: to is [width, height] of a 2-D "
                         "image; found %d numbers", to->n);
      return NULL;
    }
    int64_t w = (int64_t)to->v[0], h = (int64_t)to->v[1];
    int64_t dw = w - t.field.dim[1], dh = h - t.field.dim[0];
    if (dw < 0 || dh < 0 || m[0] || m[1] || m[2] || m[3]) {
      fg_graph_set_error(g, FG_EINVAL, "pad: to [%lld, %lld] %s (the image "
                         "is %lld x %lld)", (long long)w, (long long)h,
                         dw < 0 || dh < 0 ? "is smaller than the image"
                                          : "and margins together",
                         (long long)t.field.dim[1], (long long)t.field.dim[0]);
      return NULL;
    }
    m[0] = dh / 2, m[1] = dh - dh / 2, m[2] = dw / 2, m[3] = dw - dw / 2;
    /* margins from the image's size: read when the kernel runs */
    return fgo_pad_sized(g, F0, m[0], m[1], m[2], m[3], (fg_border)I(5),
                         a->num[6]);
  }
  return fg_pad(g, F0, m[0], m[1], m[2], m[3], (fg_border)I(5), a->num[6]);
}
CALL(warp_affine, "fg_warp_affine") {
  double m[6];
  const float *v = floats(g, "warp_affine", "the 2x3 matrix", a->list[1], 6);
  if (!v)
    return NULL;
  for (int i = 0; i < 6; i++)
    m[i] = v[i];
  return fg_warp_affine(g, F0, m, L(2), L(3), (fg_interp)I(4),
                        (fg_border)I(5), a->num[6]);
}
/* rows x cols (height, width the same); one of them 0 keeps the aspect
 * ratio (rounded to nearest, at least 1). */
CALL(resize, "fg_resize") {
  int64_t rows = L(1) ? L(1) : L(5), cols = L(2) ? L(2) : L(4);
  fg_type t = fg_field_type(F0);
  if ((L(1) && L(5) && L(1) != L(5)) || (L(2) && L(4) && L(2) != L(4)) ||
      (!rows && !cols) || t.field.ndim != 2) {
    fg_graph_set_error(g, FG_EINVAL, "resize: expected rows (height) and/or "
                       "cols (width) of a 2-D image, each given once");
    return NULL;
  }
  double h = (double)t.field.dim[0], w = (double)t.field.dim[1];
  if (!rows)
    rows = (int64_t)fmax(1, floor(h * (double)cols / w + 0.5));
  if (!cols)
    cols = (int64_t)fmax(1, floor(w * (double)rows / h + 0.5));
  return fg_resize(g, F0, rows, cols, (fg_interp)I(3));
}
/* resize so that the longer side is `size` (never enlarged), keeping the
 * aspect ratio (sides rounded to nearest, at least 1). */
CALL(thumbnail, "fg_resize") {
  int64_t rows, cols, size = L(1);
  if (!image_dims(g, "thumbnail", F0, &rows, &cols))
    return NULL;
  if (size < 1) {
    fg_graph_set_error(g, FG_EINVAL, "thumbnail: size %lld; expected >= 1",
                       (long long)size);
    return NULL;
  }
  int64_t longer = rows > cols ? rows : cols;
  if (longer > size) {
    rows = (int64_t)fmax(1, floor((double)rows * size / longer + 0.5));
    cols = (int64_t)fmax(1, floor((double)cols * size / longer + 0.5));
  }
  return fg_resize(g, F0, rows, cols, (fg_interp)I(2));
}
CALL(downsample2, "fg_downsample2") { return fg_downsample2(g, F0); }
CALL(upsample2, "fg_upsample2") { return fg_upsample2(g, F0); }

/* ---- filters ------------------------------------------------------------- */

/* The kernel's size: a nested list gives it; a flat one must be square. */
CALL(convolve, "fg_convolve") {
  const fg_op_list *w = a->list[1];
  int rows = w->rows, cols = w->cols;
  if (rows == 1) {
    int s = (int)lround(sqrt(w->n));
    if (s * s != w->n) {
      fg_graph_set_error(g, FG_EINVAL, "convolve: a flat kernel of %d "
                         "weights is not square; write its rows as "
                         "[[...], [...], ...]", w->n);
      return NULL;
    }
    rows = cols = s;
  }
  return fg_convolve(g, F0, rows, cols, w->v, (fg_border)I(2));
}
CALL(gaussian_blur, "fg_gaussian_blur") {
  return fg_gaussian_blur(g, F0, a->num[1], I(2), (fg_border)I(3));
}
CALL(unsharp, "fg_unsharp") {
  return fg_unsharp(g, F0, a->num[1], a->num[2], (fg_border)I(3));
}
CALL(box_blur, "fg_box_blur") { return fg_box_blur(g, F0, I(1), (fg_border)I(2)); }
CALL(sobel_x, "fg_sobel") {
  fg_field *gx = NULL, *gy = NULL;
  fg_sobel(g, F0, (fg_border)I(1), &gx, &gy);
  return gx;
}
CALL(sobel_y, "fg_sobel") {
  fg_field *gx = NULL, *gy = NULL;
  fg_sobel(g, F0, (fg_border)I(1), &gx, &gy);
  return gy;
}
CALL(median3x3, "fg_median3x3") { return fg_median3x3(g, F0); }

/* ---- RenderScript intrinsics (whole image: no restriction) -------------- */

CALL(rs_blur, "fg_intrinsic_blur") { return fg_intrinsic_blur(g, F0, I(1), NULL); }
CALL(rs_convolve3x3, "fg_intrinsic_convolve3x3") {
  const float *c = floats(g, "rs_convolve3x3", "the coefficients", a->list[1],
                          9);
  return c ? fg_intrinsic_convolve3x3(g, F0, c, NULL) : NULL;
}
CALL(rs_convolve5x5, "fg_intrinsic_convolve5x5") {
  const float *c = floats(g, "rs_convolve5x5", "the coefficients", a->list[1],
                          25);
  return c ? fg_intrinsic_convolve5x5(g, F0, c, NULL) : NULL;
}
CALL(rs_resize, "fg_intrinsic_resize") { return fg_intrinsic_resize(g, F0, L(1), L(2), NULL); }
CALL(rs_histogram, "fg_intrinsic_histogram") { return fg_intrinsic_histogram(g, F0, NULL); }
CALL(rs_histogram_dot, "fg_intrinsic_histogram_dot") {
  const float *c = floats(g, "rs_histogram_dot", "the coefficients",
                          a->list[1], 4);
  return c ? fg_intrinsic_histogram_dot(g, F0, c, NULL) : NULL;
}
CALL(rs_blend, "fg_intrinsic_blend") {
  return fg_intrinsic_blend(g, (fg_blend_mode)I(2), F0, a->field[1], NULL);
}
CALL(rs_color_matrix, "fg_intrinsic_color_matrix") {
  const float *m = floats(g, "rs_color_matrix", "the 4x4 matrix", a->list[1],
                          16);
  const float *add = floats(g, "rs_color_matrix", "add", a->list[2], 4);
  return m && add ? fg_intrinsic_color_matrix(g, F0, I(3), m, add, NULL)
                  : NULL;
}

/* ---- reductions ---------------------------------------------------------- */

CALL(histogram, "fg_histogram") { return fg_histogram(g, F0, I(1), a->num[2], a->num[3]); }
/* The axes of a list: 0-2 field axes, 3 the tensor's elements. */
static unsigned axes_mask(fg_graph *g, const fg_op_list *w) {
  unsigned m = 0;
  for (int i = 0; i < w->n; i++) {
    if (w->v[i] != floorf(w->v[i]) || w->v[i] < 0 || w->v[i] > 3) {
      fg_graph_set_error(g, FG_EINVAL, "axes: %g; expected 0-2 (field axes, "
                         "outermost first) or 3 (the tensor)", w->v[i]);
      return 0;
    }
    m |= w->v[i] == 3 ? FG_AXIS_TENSOR : FG_AXIS((int)w->v[i]);
  }
  return m;
}
CALL(reduce_axes, "fg_reduce_axes") {
  unsigned m = axes_mask(g, a->list[2]);
  return m ? fg_reduce_axes(g, "reduce_axes", (fg_reduce_op)I(1), F0, m,
                            a->num[3] != 0)
           : NULL;
}
CALL(mean_axes, "fg_mean_axes") {
  unsigned m = axes_mask(g, a->list[1]);
  return m ? fg_mean_axes(g, "mean_axes", F0, m, a->num[2] != 0) : NULL;
}
CALL(mean, "fg_reduce_mean") { return fg_reduce_mean(g, F0); }

/* ---- pointwise ----------------------------------------------------------- */

CALL(binary, "fg_binary") { return fg_binary(g, (fg_binop)I(2), F0, a->field[1]); }
CALL(unary, "fg_unary") { return fg_unary(g, (fg_unop)I(1), F0); }
CALL(absdiff, "fg_binary") { return fg_binary(g, FG_OP_ABSDIFF, F0, a->field[1]); }
CALL(add_sat, "fg_binary") { return fg_binary(g, FG_OP_ADD_SAT, F0, a->field[1]); }
CALL(sub_sat, "fg_binary") { return fg_binary(g, FG_OP_SUB_SAT, F0, a->field[1]); }
CALL(where, "fg_where") { return fg_where(g, F0, a->field[1], a->field[2]); }
CALL(scale_offset, "fg_scale_offset") { return fg_scale_offset(g, F0, a->num[1], a->num[2]); }
CALL(cast, "fg_cast") { return fg_cast(g, F0, (fg_elem)I(1)); }
CALL(cast_sat, "fg_cast_sat") { return fg_cast_sat(g, F0, (fg_elem)I(1)); }
CALL(to_unit, "fg_to_unit") { return fg_to_unit(g, F0); }
CALL(from_unit, "fg_from_unit") { return fg_from_unit(g, F0, (fg_elem)I(1)); }
CALL(to_u8, "fg_from_unit") { return fg_from_unit(g, F0, FG_U8); }
CALL(channel, "fg_channel") { return fg_channel(g, F0, I(1)); }
CALL(channels, "fg_channels") { return fg_channels(g, F0, a->str[1]); }
/* 2-4 fields (those given) merged into one vector field. */
CALL(merge, "fg_merge") {
  fg_field *parts[4];
  int n = 0;
  for (int i = 0; i < 4; i++)
    if (a->field[i])
      parts[n++] = a->field[i];
  return fg_merge(g, n, parts);
}

/* ---- colour -------------------------------------------------------------- */

/* Grey of any image: 1 channel as is, grey+alpha its grey, RGB(A) the
 * library's Rec. 601 luma. */
CALL(grey, "fg_rgb_to_grey") {
  int n = fg_type_tensor_elements(fg_field_type(F0));
  if (F0 && n <= 2)
    return n == 1 ? F0 : fg_channel(g, F0, 0);
  return fg_rgb_to_grey(g, F0);
}
/* A 0-D constant of elem's opaque alpha: 1 for floats and bools, else
 * the type's largest value (exact for 64-bit types too). */
static fg_field *type_max(fg_graph *g, fg_elem elem) {
  union {
    int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32;
    uint32_t u32; int64_t i64; uint64_t u64; float f32; double f64;
  } u;
  memset(&u, 0, sizeof u);
  switch (elem) {
  case FG_BOOL: u.u8 = 1; break;
  case FG_I8: u.i8 = INT8_MAX; break;
  case FG_U8: u.u8 = UINT8_MAX; break;
  case FG_I16: u.i16 = INT16_MAX; break;
  case FG_U16: u.u16 = UINT16_MAX; break;
  case FG_I32: u.i32 = INT32_MAX; break;
  case FG_U32: u.u32 = UINT32_MAX; break;
  case FG_I64: u.i64 = INT64_MAX; break;
  case FG_U64: u.u64 = UINT64_MAX; break;
  case FG_F32: u.f32 = 1.0f; break;
  default: u.f64 = 1.0; break;
  }
  return fg_constant(g, "alpha", fg_type_scalar(elem, fg_shape0()), &u);
}

/* Any image as RGBA: grey spread to three channels, alpha the type's
 * maximum where the image has none. */
CALL(rgba, "fg_merge") {
  fg_type t = fg_field_type(F0);
  int n = fg_type_tensor_elements(t);
  if (!F0)
    return NULL;
  if (n == 1)
    return fg_grey_to_rgb(g, F0, 4);
  if (n == 2)
    return fg_channels(g, F0, "xxxy");
  if (n == 4)
    return F0;
  fg_field *one = fg_broadcast(g, type_max(g, t.elem), t.field, 1);
  fg_field *parts[2] = {F0, one};
  return fg_merge(g, 2, parts);
}
CALL(rgb_to_grey, "fg_rgb_to_grey") { return fg_rgb_to_grey(g, F0); }
CALL(grey_to_rgb, "fg_grey_to_rgb") { return fg_grey_to_rgb(g, F0, I(1)); }
CALL(rgb_to_hsv, "fg_rgb_to_hsv") { return fg_rgb_to_hsv(g, F0); }
CALL(hsv_to_rgb, "fg_hsv_to_rgb") { return fg_hsv_to_rgb(g, F0); }
CALL(srgb_decode, "fg_srgb_decode") { return fg_srgb_decode(g, F0); }
CALL(srgb_encode, "fg_srgb_encode") { return fg_srgb_encode(g, F0); }
CALL(linear_to_xyz, "fg_linear_to_xyz") { return fg_linear_to_xyz(g, F0); }
CALL(xyz_to_linear, "fg_xyz_to_linear") { return fg_xyz_to_linear(g, F0); }
CALL(xyz_to_lab, "fg_xyz_to_lab") { return fg_xyz_to_lab(g, F0); }
CALL(lab_to_xyz, "fg_lab_to_xyz") { return fg_lab_to_xyz(g, F0); }
CALL(srgb_to_lab, "fg_srgb_to_lab") { return fg_srgb_to_lab(g, F0); }
CALL(lab_to_srgb, "fg_lab_to_srgb") { return fg_lab_to_srgb(g, F0); }
/* A 3x3 matrix (RGB) or 4x4, offsets added after, out channels. */
CALL(colour_matrix, "fg_colour_matrix") {
  const fg_op_list *w = a->list[1], *add = a->list[2];
  float m[16] = {0}, off[4] = {0};
  int k = w->n == 9 ? 3 : w->n == 16 ? 4 : 0;
  if (!k || add->n > 4) {
    fg_graph_set_error(g, FG_EINVAL, "colour_matrix: expected a 3x3 or 4x4 "
                       "matrix (%d numbers) and at most 4 offsets (%d)",
                       w->n, add->n);
    return NULL;
  }
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++)
      m[4 * i + j] = w->v[k * i + j];
  for (int i = 0; i < add->n; i++)
    off[i] = add->v[i];
  return fg_colour_matrix(g, F0, m, off, I(3) ? I(3) : k);
}

/* ---- look-up tables, locations -------------------------------------------- */

/* A 1-D table from a list of numbers (f32 entries) applied to image. */
CALL(lut1d, "fg_lut1d") {
  const fg_op_list *w = a->list[1];
  fg_field *t = fg_constant(g, "lut1d.table", fg_type_vector(FG_F32,
                            fg_shape1(w->n), 1), w->v);
  return t ? fg_lut1d(g, F0, t) : NULL;
}
/* Four 256-entry channel tables of u8 values. */
CALL(rs_lut, "fg_intrinsic_lut") {
  uint8_t t[4][256];
  static const char *const what[4] = {"red", "green", "blue", "alpha"};
  for (int c = 0; c < 4; c++) {
    const fg_op_list *w = a->list[1 + c];
    if (w->n != 256) {
      fg_graph_set_error(g, FG_EINVAL, "rs_lut: expected 256 numbers for "
                         "%s, found %d", what[c], w->n);
      return NULL;
    }
    for (int i = 0; i < 256; i++) {
      float v = w->v[i];
      if (!(v >= 0 && v <= 255) || v != floorf(v)) {
        fg_graph_set_error(g, FG_EINVAL, "rs_lut: %s[%d] is %g; expected an "
                           "integer in [0, 255]", what[c], i, v);
        return NULL;
      }
      t[c][i] = (uint8_t)v;
    }
  }
  return fg_intrinsic_lut(g, F0, t[0], t[1], t[2], t[3], NULL);
}
/* Where the smallest / largest tensor of a scalar field first occurs. */
static fg_field *location(fg_graph *g, const char *name, fg_reduce_op op,
                          fg_field *in) {
  fg_field *loc = NULL;
  return fg_reduce_loc(g, name, op, in, &loc) ? loc : NULL;
}
CALL(min_loc, "fg_reduce_loc") {
  return location(g, "min_loc", FG_REDUCE_MIN, F0);
}
CALL(max_loc, "fg_reduce_loc") {
  return location(g, "max_loc", FG_REDUCE_MAX, F0);
}

/* ---- value conversions (expressions) ------------------------------------ */

static fg_expr *sat_u8(fg_expr *e) {
  return fg_convert_sat(e, FG_U8, fg_expr_width(e));
}

static fg_expr *to_f32(fg_expr *e) {
  return fg_convert(e, FG_F32, fg_expr_width(e));
}

/* ---- the table ----------------------------------------------------------- */

#define EXPR1C(n, p, f, c, d)                                                 \
  {.name = n, .kind = FG_OPK_EXPR1, .params = p, .sig = "F", .doc = d,        \
   .c_call = c, .expr1 = f}
#define EXPR1(n, p, f, d) EXPR1C(n, p, f, #f, d)
#define EXPR2(n, p, f, d)                                                     \
  {.name = n, .kind = FG_OPK_EXPR2, .params = p, .sig = "FF", .doc = d,       \
   .c_call = #f, .expr2 = f}
#define EXPR3(n, p, f, d)                                                     \
  {.name = n, .kind = FG_OPK_EXPR3, .params = p, .sig = "FFF", .doc = d,      \
   .c_call = #f, .expr3 = f}
#define OP(n, s, p, f, d)                                                     \
  {.name = n, .kind = FG_OPK_GRAPH, .params = p, .sig = s, .doc = d,          \
   .c_call = call_name_##f, .build = call_##f}
#define FIELD1(n, f, d) OP(n, "F", "image", f, d)
#define REDUCE(n, op, c, d)                                                   \
  {.name = n, .kind = FG_OPK_REDUCE, .params = "field", .sig = "F",           \
   .doc = d, .c_call = c, .reduce_op = op}

static const fg_op_info table[] = {
  /* conversions (input() gives f32 in [0, 1]; save() converts back) */
  FIELD1("to_unit", to_unit, "u8/u16 to f32 in [0, 1]"),
  FIELD1("to_u8", to_u8, "f32 in [0, 1] to u8, rounding, saturating"),
  OP("from_unit", "FE", "image,elem=u8", from_unit,
     "f32 in [0, 1] to u8 or u16, rounding, saturating"),
  OP("cast", "FE", "x,elem", cast, "value conversion (C's rules)"),
  OP("cast_sat", "FE", "x,elem", cast_sat,
     "value conversion, rounding and saturating"),
  EXPR1C("u8", "x", sat_u8, "fg_convert_sat", "to u8, rounding and saturating (no scale)"),
  EXPR1C("f32", "x", to_f32, "fg_convert", "to f32 (no scale)"),
  OP("channel", "Fi", "image,index", channel, "one channel (0-based)"),
  OP("channels", "Fs", "image,pick", channels,
     "channels by letters: \"bgr\", \"rrr\", \"xyzw\""),
  OP("merge", "FFFF", "a,b,c=none,d=none", merge,
     "2-4 fields' channels into one vector field"),
  /* colour */
  FIELD1("cielab", srgb_to_lab, "sRGB in [0, 1] to CIE L*a*b* (Cog's)"),
  FIELD1("grey", grey, "luma: RGB(A) as rgb_to_grey; grey(+alpha) as is"),
  FIELD1("rgba", rgba,
         "1-4 channels to RGBA: the image's alpha, else the maximum"),
  FIELD1("rgb_to_grey", rgb_to_grey, "0.299 R + 0.587 G + 0.114 B"),
  OP("grey_to_rgb", "Fi", "image,channels=3", grey_to_rgb,
     "grey to RGB (3) or RGBA (4)"),
  FIELD1("rgb_to_hsv", rgb_to_hsv, "RGB(A) to HSV(A), H in degrees"),
  FIELD1("hsv_to_rgb", hsv_to_rgb, "HSV(A) to RGB(A)"),
  FIELD1("srgb_decode", srgb_decode, "sRGB to linear light"),
  FIELD1("srgb_encode", srgb_encode, "linear light to sRGB"),
  FIELD1("linear_to_xyz", linear_to_xyz, "linear RGB to CIE XYZ"),
  FIELD1("xyz_to_linear", xyz_to_linear, "CIE XYZ to linear RGB"),
  FIELD1("xyz_to_lab", xyz_to_lab, "CIE XYZ to L*a*b* (D65)"),
  FIELD1("lab_to_xyz", lab_to_xyz, "L*a*b* to CIE XYZ"),
  FIELD1("srgb_to_lab", srgb_to_lab, "sRGB to L*a*b* (as cielab)"),
  FIELD1("lab_to_srgb", lab_to_srgb, "L*a*b* to sRGB"),
  OP("colour_matrix", "Fwwi", "image,matrix,add=0,channels=0",
     colour_matrix, "3x3 or 4x4 matrix, then offsets (floats)"),
  OP("lut1d", "Fw", "image,table", lut1d,
     "a 1-D table (list), interpolated for floats in [0, 1]"),
  /* arithmetic on fields beyond + - * / */
  OP("binary", "FFO", "a,b,op", binary, "a binary op by name: absdiff, "
     "atan2, lt, ..."),
  OP("unary", "FU", "x,op", unary, "a unary op by name: floor, sign, ..."),
  OP("absdiff", "FF", "a,b", absdiff, "|a - b| without overflow"),
  OP("add_sat", "FF", "a,b", add_sat, "a + b, integers saturating"),
  OP("sub_sat", "FF", "a,b", sub_sat, "a - b, integers saturating"),
  OP("where", "FFF", "cond,a,b", where, "a where cond is nonzero, else b"),
  OP("scale_offset", "Fdd", "x,scale,offset=0", scale_offset,
     "x * scale + offset"),
  /* geometry and resizing */
  OP("flip", "Fbb", "image,horizontal=0,vertical=1", flip,
     "mirror: upside down by default (Cog's upsideDown)"),
  FIELD1("transpose", transpose, "rows <-> columns"),
  OP("rotate90", "Fi", "image,turns=1", rotate90,
     "quarter turns clockwise"),
  OP("rotate", "FdIBd", "image,degrees,interp=bilinear,border=constant,"
     "value=0", rotate, "degrees clockwise, canvas grown (quarter turns "
     "exact)"),
  OP("crop", "Fllll", "image,row,col,rows,cols", crop, "a rectangle"),
  OP("pad", "FllllBdw", "image,top=0,bottom=0,left=0,right=0,"
     "border=constant,value=0,to=0", pad,
     "margins by a border rule, or centred on to=[width, height]"),
  OP("overlay", "FFll", "base,top,x=0,y=0", overlay,
     "top over base at column x, row y, through top's alpha"),
  OP("warp_affine", "FwllIBd", "image,matrix,rows,cols,interp=bilinear,"
     "border=constant,value=0", warp_affine,
     "affine map (2x3, output to input)"),
  OP("resize", "FllIll", "image,rows=0,cols=0,interp=bilinear,width=0,"
     "height=0", resize, "resample to rows x cols; one 0: aspect kept"),
  OP("thumbnail", "FlI", "image,size,interp=area", thumbnail,
     "longer side to size, aspect kept (never enlarged)"),
  FIELD1("downsample2", downsample2, "half size, 2x2 means"),
  FIELD1("upsample2", upsample2, "double size"),
  /* filters */
  OP("convolve", "FwB", "image,kernel,border=clamp", convolve,
     "correlation with [[...], ...] (odd sizes)"),
  OP("gaussian_blur", "FdiB", "image,sigma,radius=0,border=clamp",
     gaussian_blur, "separable Gaussian (radius 0: 3 sigma)"),
  OP("unsharp", "FddB", "image,sigma,amount=1,border=clamp", unsharp,
     "sharpen: image + amount (image - gaussian_blur)"),
  OP("box_blur", "FiB", "image,radius=1,border=clamp", box_blur,
     "mean over a (2 radius + 1)^2 box"),
  OP("sobel_x", "FB", "image,border=clamp", sobel_x, "Sobel d/dx"),
  OP("sobel_y", "FB", "image,border=clamp", sobel_y, "Sobel d/dy"),
  FIELD1("median3x3", median3x3, "3x3 median"),
  /* RenderScript intrinsics (u8 RGBA images, as the Toolkit) */
  OP("rs_blur", "Fi", "image,radius=5", rs_blur, "ScriptIntrinsicBlur"),
  OP("rs_convolve3x3", "Fw", "image,coefficients", rs_convolve3x3,
     "ScriptIntrinsicConvolve3x3"),
  OP("rs_convolve5x5", "Fw", "image,coefficients", rs_convolve5x5,
     "ScriptIntrinsicConvolve5x5"),
  OP("rs_resize", "Fll", "image,rows,cols", rs_resize,
     "ScriptIntrinsicResize (bicubic)"),
  FIELD1("rs_histogram", rs_histogram, "ScriptIntrinsicHistogram"),
  OP("rs_histogram_dot", "Fw", "image,coefficients", rs_histogram_dot,
     "ScriptIntrinsicHistogram's histogramDot"),
  OP("rs_blend", "FFM", "src,dst,mode=src_over", rs_blend,
     "ScriptIntrinsicBlend: src_over, multiply, ..."),
  OP("rs_lut", "Fwwww", "image,red,green,blue,alpha", rs_lut,
     "ScriptIntrinsicLUT: four 256-entry u8 tables"),
  OP("rs_color_matrix", "Fwwi", "image,matrix,add=0,channels=4",
     rs_color_matrix, "ScriptIntrinsicColorMatrix"),
  /* reductions: 0-D fields, reported with report() */
  REDUCE("sum", FG_REDUCE_SUM, "fg_reduce_sum", "sum of every tensor"),
  REDUCE("min", FG_REDUCE_MIN, "fg_reduce_min", "smallest tensor, per element"),
  REDUCE("max", FG_REDUCE_MAX, "fg_reduce_max", "largest tensor, per element"),
  REDUCE("prod", FG_REDUCE_PROD, "fg_reduce", "product of every tensor"),
  FIELD1("mean", mean, "mean of every tensor"),
  OP("reduce_axes", "FRwb", "field,op,axes,keepdims=0", reduce_axes,
     "sum/min/max/prod over axes [0-2, 3 tensor]"),
  OP("mean_axes", "Fwb", "field,axes,keepdims=0", mean_axes,
     "mean over axes"),
  OP("histogram", "Fidd", "image,bins=256,lo=0,hi=1", histogram,
     "counts (u32) of a scalar field"),
  FIELD1("min_loc", min_loc, "(layer, row, column) of the first minimum "
         "(i64 vec3)"),
  FIELD1("max_loc", max_loc, "(layer, row, column) of the first maximum "
         "(i64 vec3)"),
  /* builtins with named parameters (others: positional, via fg_call) */
  EXPR3("clamp", "x,lo,hi", fg_clamp, "min(max(x, lo), hi)"),
  EXPR3("mix", "x,y,a", fg_mix, "x + (y - x) * a"),
  EXPR3("fma", "a,b,c", fg_fma, "a * b + c, rounded once"),
  EXPR2("pow", "x,y", fg_pow, "x to the power y"),
  EXPR2("fmin", "x,y", fg_fmin, "smaller of x and y"),
  EXPR2("fmax", "x,y", fg_fmax, "larger of x and y"),
  EXPR2("step", "edge,x", fg_step, "0 if x < edge, else 1"),
  EXPR2("dot", "a,b", fg_dot, "dot product"),
  EXPR1("sqrt", "x", fg_sqrt, "square root"),
  EXPR1("exp", "x", fg_exp, "e to the x"),
  EXPR1("log", "x", fg_log, "natural logarithm"),
  EXPR1("fabs", "x", fg_fabs, "absolute value"),
  EXPR1("length", "p", fg_length, "vector length"),
};

/* Enum names in value order (the headers' enums). */
static const char *const border_names[] = {"clamp", "mirror", "reflect",
                                           "wrap", "constant", NULL};
static const char *const interp_names[] = {"nearest", "bilinear", "bicubic",
                                           "area", NULL};
static const char *const blend_names[] = {
  "clear", "src", "dst", "src_over", "dst_over", "src_in", "dst_in",
  "src_out", "dst_out", "src_atop", "dst_atop", "xor", "multiply", "add",
  "subtract", NULL};
static const char *const elem_names[] = {"bool", "i8", "u8", "i16", "u16",
                                         "i32", "u32", "i64", "u64", "f32",
                                         "f64", NULL};
static const char *const binop_names[] = {
  "add", "sub", "mul", "div", "mod", "min", "max", "add_sat", "sub_sat",
  "absdiff", "pow", "atan2", "hypot", "eq", "ne", "lt", "le", "gt", "ge",
  "and", "or", "xor", "band", "bor", "bxor", NULL};
static const char *const unop_names[] = {
  "neg", "abs", "not", "bnot", "sqrt", "exp", "log", "exp2", "log2", "log10",
  "sin", "cos", "tan", "atan", "tanh", "floor", "ceil", "trunc", "round",
  "rint", "sign", NULL};
static const char *const reduce_names[] = {"sum", "min", "max", "prod",
                                           NULL};

_Static_assert(sizeof blend_names / sizeof *blend_names ==
               FG_BLEND_MODE_COUNT_ + 1, "blend names");
_Static_assert(sizeof elem_names / sizeof *elem_names == FG_ELEM_COUNT_ + 1,
               "element names");
_Static_assert(sizeof binop_names / sizeof *binop_names ==
               FG_BINOP_COUNT_ + 1, "binary op names");
_Static_assert(sizeof unop_names / sizeof *unop_names == FG_UNOP_COUNT_ + 1,
               "unary op names");

const char *const *fg_ops_enum_names(char c) {
  switch (c) {
  case 'B': return border_names;
  case 'I': return interp_names;
  case 'M': return blend_names;
  case 'E': return elem_names;
  case 'O': return binop_names;
  case 'U': return unop_names;
  case 'R': return reduce_names;
  default: return NULL;
  }
}

const fg_op_info *fg_ops_table(int *n) {
  if (n)
    *n = (int)(sizeof table / sizeof table[0]);
  return table;
}

const fg_op_info *fg_ops_find(const char *name) {
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, name) == 0)
      return &table[i];
  return NULL;
}
