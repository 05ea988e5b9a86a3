/* tools/ops_lib.c - the pipeline table's operators as library calls: each
 * fgt_op_<name> takes the row's arguments (fgt_args, by parameter position,
 * already checked against the row's signature by eval.c) and makes one
 * call of include/fieldgraph/ops_pointwise.h or ops_nonlocal.h.  The few
 * that add something (thumbnail, grey, rgba, sobel_x/y, merge) say what.
 * Library calls record their own errors on the graph; eval.c reports them
 * at the call's position.
 */
#include "tools/fgt.h"

#include <math.h>

#define A fgt_args
#define OP(n) fg_field *fgt_op_##n(fg_graph *g, const A *a)
#define F0 a->F[0]
#define I(k) ((int)a->d[k])
#define L(k) ((int64_t)a->d[k])

/* The 2-D field type of f, or an error on the graph (returns 0). */
static int image_dims(fg_graph *g, const char *op, fg_field *f,
                      int64_t *rows, int64_t *cols) {
  fg_type t = fg_field_type(f);
  if (!f)
    return 0;
  if (t.field.ndim != 2) {
    fg_graph_set_error(g, FG_ESHAPE, "%s: expected a 2-D image, '%s' has %d "
                       "dimensions", op, fg_field_name(f), t.field.ndim);
    return 0;
  }
  *rows = t.field.dim[0];
  *cols = t.field.dim[1];
  return 1;
}

/* A list of exactly n numbers, else an error naming what (returns NULL). */
static const float *floats(fg_graph *g, const char *op, const char *what,
                           const fgt_floats *w, int n) {
  if (w->n != n) {
    fg_graph_set_error(g, FG_EINVAL, "%s: expected %d numbers for %s, found "
                       "%d", op, n, what, w->n);
    return NULL;
  }
  return w->v;
}

/* ---- geometry and resizing ---------------------------------------------- */

OP(flip) { return fg_flip(g, F0, a->d[1] != 0, a->d[2] != 0); }
OP(transpose) { return fg_transpose(g, F0); }
OP(rotate90) { return fg_rotate90(g, F0, I(1)); }
OP(crop) { return fg_crop(g, F0, L(1), L(2), L(3), L(4)); }
OP(pad) {
  return fg_pad(g, F0, L(1), L(2), L(3), L(4), (fg_border)I(5), a->d[6]);
}
OP(warp_affine) {
  double m[6];
  const float *v = floats(g, "warp_affine", "the 2x3 matrix", a->w[1], 6);
  if (!v)
    return NULL;
  for (int i = 0; i < 6; i++)
    m[i] = v[i];
  return fg_warp_affine(g, F0, m, L(2), L(3), (fg_interp)I(4),
                        (fg_border)I(5), a->d[6]);
}
OP(resize) { return fg_resize(g, F0, L(1), L(2), (fg_interp)I(3)); }
/* resize so that the longer side is `size` (never enlarged), keeping the
 * aspect ratio (sides rounded to nearest, at least 1). */
OP(thumbnail) {
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
OP(downsample2) { return fg_downsample2(g, F0); }
OP(upsample2) { return fg_upsample2(g, F0); }

/* ---- filters ------------------------------------------------------------- */

/* The kernel's size: a nested list gives it; a flat one must be square. */
OP(convolve) {
  const fgt_floats *w = a->w[1];
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
OP(gaussian_blur) {
  return fg_gaussian_blur(g, F0, a->d[1], I(2), (fg_border)I(3));
}
OP(box_blur) { return fg_box_blur(g, F0, I(1), (fg_border)I(2)); }
OP(sobel_x) {
  fg_field *gx = NULL, *gy = NULL;
  fg_sobel(g, F0, (fg_border)I(1), &gx, &gy);
  return gx;
}
OP(sobel_y) {
  fg_field *gx = NULL, *gy = NULL;
  fg_sobel(g, F0, (fg_border)I(1), &gx, &gy);
  return gy;
}
OP(median3x3) { return fg_median3x3(g, F0); }

/* ---- RenderScript intrinsics (whole image: no restriction) -------------- */

OP(rs_blur) { return fg_intrinsic_blur(g, F0, I(1), NULL); }
OP(rs_convolve3x3) {
  const float *c = floats(g, "rs_convolve3x3", "the coefficients", a->w[1],
                          9);
  return c ? fg_intrinsic_convolve3x3(g, F0, c, NULL) : NULL;
}
OP(rs_convolve5x5) {
  const float *c = floats(g, "rs_convolve5x5", "the coefficients", a->w[1],
                          25);
  return c ? fg_intrinsic_convolve5x5(g, F0, c, NULL) : NULL;
}
OP(rs_resize) { return fg_intrinsic_resize(g, F0, L(1), L(2), NULL); }
OP(rs_histogram) { return fg_intrinsic_histogram(g, F0, NULL); }
OP(rs_histogram_dot) {
  const float *c = floats(g, "rs_histogram_dot", "the coefficients",
                          a->w[1], 4);
  return c ? fg_intrinsic_histogram_dot(g, F0, c, NULL) : NULL;
}
OP(rs_blend) {
  return fg_intrinsic_blend(g, (fg_blend_mode)I(2), F0, a->F[1], NULL);
}
OP(rs_color_matrix) {
  const float *m = floats(g, "rs_color_matrix", "the 4x4 matrix", a->w[1],
                          16);
  const float *add = floats(g, "rs_color_matrix", "add", a->w[2], 4);
  return m && add ? fg_intrinsic_color_matrix(g, F0, I(3), m, add, NULL)
                  : NULL;
}

/* ---- reductions ---------------------------------------------------------- */

OP(histogram) { return fg_histogram(g, F0, I(1), a->d[2], a->d[3]); }
/* The axes of a list: 0-2 field axes, 3 the tensor's elements. */
static unsigned axes_mask(fg_graph *g, const fgt_floats *w) {
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
OP(reduce_axes) {
  unsigned m = axes_mask(g, a->w[2]);
  return m ? fg_reduce_axes(g, "reduce_axes", (fg_reduce_op)I(1), F0, m,
                            a->d[3] != 0)
           : NULL;
}
OP(mean_axes) {
  unsigned m = axes_mask(g, a->w[1]);
  return m ? fg_mean_axes(g, "mean_axes", F0, m, a->d[2] != 0) : NULL;
}
OP(mean) { return fg_reduce_mean(g, F0); }

/* ---- pointwise ----------------------------------------------------------- */

OP(binary) { return fg_binary(g, (fg_binop)I(2), F0, a->F[1]); }
OP(unary) { return fg_unary(g, (fg_unop)I(1), F0); }
OP(absdiff) { return fg_binary(g, FG_OP_ABSDIFF, F0, a->F[1]); }
OP(add_sat) { return fg_binary(g, FG_OP_ADD_SAT, F0, a->F[1]); }
OP(sub_sat) { return fg_binary(g, FG_OP_SUB_SAT, F0, a->F[1]); }
OP(where) { return fg_where(g, F0, a->F[1], a->F[2]); }
OP(scale_offset) { return fg_scale_offset(g, F0, a->d[1], a->d[2]); }
OP(cast) { return fg_cast(g, F0, (fg_elem)I(1)); }
OP(cast_sat) { return fg_cast_sat(g, F0, (fg_elem)I(1)); }
OP(to_unit) { return fg_to_unit(g, F0); }
OP(from_unit) { return fg_from_unit(g, F0, (fg_elem)I(1)); }
OP(to_u8) { return fg_from_unit(g, F0, FG_U8); }
OP(channel) { return fg_channel(g, F0, I(1)); }
OP(channels) { return fg_channels(g, F0, a->s[1]); }
/* 2-4 fields (those given) merged into one vector field. */
OP(merge) {
  fg_field *parts[4];
  int n = 0;
  for (int i = 0; i < 4; i++)
    if (a->F[i])
      parts[n++] = a->F[i];
  return fg_merge(g, n, parts);
}

/* ---- colour -------------------------------------------------------------- */

/* Grey of any image: 1 channel as is, grey+alpha its grey, RGB(A) the
 * library's Rec. 601 luma. */
OP(grey) {
  int n = fg_type_tensor_elements(fg_field_type(F0));
  if (F0 && n <= 2)
    return n == 1 ? F0 : fg_channel(g, F0, 0);
  return fg_rgb_to_grey(g, F0);
}
/* Any image as RGBA: grey spread to three channels, alpha the type's
 * maximum where the image has none. */
OP(rgba) {
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
  fg_field *one = fg_broadcast(g, fg_scalar_constant(g, t.elem,
                               t.elem == FG_F32 || t.elem == FG_F64 ? 1.0
                               : t.elem == FG_U16 ? 65535 : 255), t.field, 1);
  fg_field *parts[2] = {F0, one};
  return fg_merge(g, 2, parts);
}
OP(rgb_to_grey) { return fg_rgb_to_grey(g, F0); }
OP(grey_to_rgb) { return fg_grey_to_rgb(g, F0, I(1)); }
OP(rgb_to_hsv) { return fg_rgb_to_hsv(g, F0); }
OP(hsv_to_rgb) { return fg_hsv_to_rgb(g, F0); }
OP(srgb_decode) { return fg_srgb_decode(g, F0); }
OP(srgb_encode) { return fg_srgb_encode(g, F0); }
OP(linear_to_xyz) { return fg_linear_to_xyz(g, F0); }
OP(xyz_to_linear) { return fg_xyz_to_linear(g, F0); }
OP(xyz_to_lab) { return fg_xyz_to_lab(g, F0); }
OP(lab_to_xyz) { return fg_lab_to_xyz(g, F0); }
OP(srgb_to_lab) { return fg_srgb_to_lab(g, F0); }
OP(lab_to_srgb) { return fg_lab_to_srgb(g, F0); }
/* A 3x3 matrix (RGB) or 4x4, offsets added after, out channels. */
OP(colour_matrix) {
  const fgt_floats *w = a->w[1], *add = a->w[2];
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

/* ---- value conversions (expressions) ------------------------------------ */

fg_expr *fgt_sat_u8(fg_expr *e) {
  return fg_convert_sat(e, FG_U8, fg_expr_width(e));
}

fg_expr *fgt_to_f32(fg_expr *e) {
  return fg_convert(e, FG_F32, fg_expr_width(e));
}
