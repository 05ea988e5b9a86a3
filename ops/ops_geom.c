/* ops/ops_geom.c - geometric operators of the operator library: flips,
 * transpose, quarter-turn rotations, crop, pad with border rules and the
 * affine warp.  Each is one operator reading its input at explicit
 * coordinates computed from the thread's own; all but the warp copy
 * tensors exactly. */
#include "ops_impl.h"

#include <math.h>

/* t with its last two field extents replaced. */
static fg_type with_size(fg_type t, int64_t rows, int64_t cols) {
  t.field.dim[t.field.ndim - 2] = rows;
  t.field.dim[t.field.ndim - 1] = cols;
  return t;
}

/* One operator of output type ot writing in(row, col). */
static fg_field *copy_at(fg_op *op, fg_field *in, fg_expr *row, fg_expr *col) {
  fg_write_tensor(op, 0, fgo_read(op, in, row, col));
  return fg_op_end(op);
}

/* n - 1 - e, n an extent read when the kernel runs */
static fg_expr *rev(fg_expr *n, fg_expr *e) {
  return fg_sub(fg_subi(n, 1), e);
}

fg_field *fg_flip(fg_graph *g, fg_field *in, bool horizontal, bool vertical) {
  if (!fgo_image(g, "flip", in))
    return NULL;
  fg_type t = fg_field_type(in);
  fg_op *op = fg_op_begin(g, "flip", 1, &t);
  fg_expr *r = fg_row(op), *c = fg_column(op);
  return copy_at(op, in, vertical ? rev(fgo_rows_x(op, in), r) : r,
                 horizontal ? rev(fgo_cols_x(op, in), c) : c);
}

fg_field *fg_transpose(fg_graph *g, fg_field *in) {
  if (!fgo_image(g, "transpose", in))
    return NULL;
  fg_type t = with_size(fg_field_type(in), fgo_cols(in), fgo_rows(in));
  fg_op *op = fg_op_begin(g, "transpose", 1, &t);
  return copy_at(op, in, fg_column(op), fg_row(op));
}

fg_field *fg_rotate90(fg_graph *g, fg_field *in, int turns) {
  if (!fgo_image(g, "rotate90", in))
    return NULL;
  int k = ((turns % 4) + 4) % 4;
  int64_t h = fgo_rows(in), w = fgo_cols(in);
  fg_type t = fg_field_type(in);
  if (k % 2)
    t = with_size(t, w, h);
  fg_op *op = fg_op_begin(g, "rotate90", 1, &t);
  fg_expr *r = fg_row(op), *c = fg_column(op);
  switch (k) {
  case 1:
    return copy_at(op, in, rev(fgo_rows_x(op, in), c), r);
  case 2:
    return copy_at(op, in, rev(fgo_rows_x(op, in), r),
                   rev(fgo_cols_x(op, in), c));
  case 3:
    return copy_at(op, in, c, rev(fgo_cols_x(op, in), r));
  default:
    return copy_at(op, in, r, c);
  }
}

/* fg_warp_affine; uniform: the matrix is read from two constant fields
 * when the kernel runs instead of being literals of its source (a matrix
 * derived from the input's size, as rotate's). */
static fg_field *warp(fg_graph *g, fg_field *in, const double m[6],
                      int64_t rows, int64_t cols, fg_interp interp,
                      fg_border border, double value, bool uniform) {
  if (!fgo_image(g, "warp_affine", in))
    return NULL;
  if (!m || rows < 1 || cols < 1 ||
      (interp != FG_INTERP_NEAREST && interp != FG_INTERP_BILINEAR) ||
      (unsigned)border > FG_BORDER_CONSTANT) {
    fg_graph_set_error(g, FG_EINVAL,
                       "warp_affine: expected a matrix, an "
                       "output of at least 1 x 1 (got %lld x %lld), NEAREST "
                       "or BILINEAR and an fg_border",
                       (long long)rows, (long long)cols);
    return NULL;
  }
  fg_type t = with_size(fg_field_type(in), rows, cols);
  int n = fg_type_tensor_elements(t);
  fg_elem ae = fgo_acc(t.elem);
  fg_field *mrow[2] = {NULL, NULL};
  for (int k = 0; k < 2 && uniform; k++)
    if (!(mrow[k] = fgo_uniform(g, k ? "warp_affine.m1" : "warp_affine.m0",
                                ae, 3, m + 3 * k)))
      return NULL;
  fg_op *op = fg_op_begin(g, "warp_affine", 1, &t);
  fg_expr *x = fg_var(op, ae, 1), *y = fg_var(op, ae, 1);
  fg_assign(x, fg_convert(fg_column(op), ae, 1));
  fg_assign(y, fg_convert(fg_row(op), ae, 1));
  fg_expr *sx = fg_var(op, ae, 1), *sy = fg_var(op, ae, 1);
  /* each product its own statement: no contraction on any backend */
  fg_expr *p = fg_var(op, ae, 1);
  for (int k = 0; k < 2; k++) {
    fg_expr *s = k ? sy : sx, *mk[3];
    for (int j = 0; j < 3; j++)
      mk[j] = uniform ? fg_swizzle(fg_read_tensor(op, mrow[k]),
                                   (const char *[]){"x", "y", "z"}[j])
                      : fgo_flit(op, ae, m[3 * k + j]);
    fg_assign(s, mk[2]);
    fg_assign(p, fg_mul(x, mk[0]));
    fg_assign(s, fg_add(s, p));
    fg_assign(p, fg_mul(y, mk[1]));
    fg_assign(s, fg_add(s, p));
  }
  if (interp == FG_INTERP_NEAREST) {
    fg_expr *ix =
        fg_convert(fg_floor(fg_add(sx, fgo_flit(op, ae, 0.5))), FG_I32, 1);
    fg_expr *iy =
        fg_convert(fg_floor(fg_add(sy, fgo_flit(op, ae, 0.5))), FG_I32, 1);
    fg_write_tensor(op, 0,
                    fgo_read_border(op, in, iy, ix, (int)border, value));
    return fg_op_end(op);
  }
  fg_expr *fx = fg_var(op, ae, 1), *fy = fg_var(op, ae, 1);
  fg_assign(fx, fg_floor(sx));
  fg_assign(fy, fg_floor(sy));
  fg_expr *x0 = fg_var(op, FG_I32, 1), *y0 = fg_var(op, FG_I32, 1);
  fg_assign(x0, fg_convert(fx, FG_I32, 1));
  fg_assign(y0, fg_convert(fy, FG_I32, 1));
  fg_assign(fx, fg_sub(sx, fx));
  fg_assign(fy, fg_sub(sy, fy));
  fg_expr *v[4];
  for (int i = 0; i < 4; i++) {
    v[i] = fg_var(op, ae, n);
    fg_assign(v[i], fgo_to_acc(fgo_read_border(
                                       op, in, fg_addi(y0, i / 2),
                                       fg_addi(x0, i % 2), (int)border, value),
                                   ae));
  }
  /* a + (b - a) f, rows first, then between them */
  fg_expr *d = fg_var(op, ae, n);
  for (int i = 0; i < 4; i += 2) {
    fg_assign(d, fg_mul(fg_sub(v[i + 1], v[i]), fx));
    fg_assign(v[i], fg_add(v[i], d));
  }
  fg_assign(d, fg_mul(fg_sub(v[2], v[0]), fy));
  fg_assign(v[0], fg_add(v[0], d));
  fg_write_tensor(op, 0, fgo_from_acc(v[0], t.elem));
  return fg_op_end(op);
}

fg_field *fg_warp_affine(fg_graph *g, fg_field *in, const double m[6],
                         int64_t rows, int64_t cols, fg_interp interp,
                         fg_border border, double value) {
  return warp(g, in, m, rows, cols, interp, border, value, false);
}

/* The canvas side that holds a rotated extent (a few 1e-9 of rounding
 * never add a column: 90.000000001 degrees keeps the quarter turn's). */
static int64_t grown(double v) { return (int64_t)ceil(v - 1e-6); }

fg_field *fg_rotate_angle(fg_graph *g, fg_field *in, double degrees,
                          fg_interp interp, fg_border border,
                          double value) {
  if (!fgo_image(g, "rotate", in))
    return NULL;
  if (!isfinite(degrees) || fabs(degrees) > 1e9) {
    fg_graph_set_error(g, FG_EINVAL, "rotate: %g degrees; expected a finite "
                       "angle within +-1e9", degrees);
    return NULL;
  }
  if (interp != FG_INTERP_NEAREST && interp != FG_INTERP_BILINEAR) {
    fg_graph_set_error(g, FG_EINVAL, "rotate: interpolation %d; expected "
                       "nearest or bilinear", (int)interp);
    return NULL;
  }
  double turns = degrees / 90.0;
  if (turns == floor(turns))
    return fg_rotate90(g, in, (int)fmod(turns, 4.0));
  double a = degrees * (3.14159265358979323846 / 180.0);
  double c = cos(a), s = sin(a);
  double h = (double)fgo_rows(in), w = (double)fgo_cols(in);
  int64_t ow = grown(fabs(w * c) + fabs(h * s));
  int64_t oh = grown(fabs(w * s) + fabs(h * c));
  if (ow < 1)
    ow = 1;
  if (oh < 1)
    oh = 1;
  /* output pixel centre (x', y') to input (x, y), both about the centres
   * ((cols - 1) / 2, (rows - 1) / 2): the inverse of a clockwise turn in
   * y-down coordinates */
  double cx = (w - 1) / 2, cy = (h - 1) / 2;
  double ocx = ((double)ow - 1) / 2, ocy = ((double)oh - 1) / 2;
  double m[6] = {c, s, cx - c * ocx - s * ocy, -s, c, cy + s * ocx - c * ocy};
  /* the matrix depends on the input's size: read when the kernel runs */
  return warp(g, in, m, oh, ow, interp, border, value, true);
}

fg_field *fg_crop(fg_graph *g, fg_field *in, int64_t row, int64_t col,
                  int64_t rows, int64_t cols) {
  if (!fgo_image(g, "crop", in))
    return NULL;
  int64_t h = fgo_rows(in), w = fgo_cols(in);
  if (row < 0 || col < 0 || rows < 1 || cols < 1 || row + rows > h ||
      col + cols > w) {
    fg_graph_set_error(g, FG_ESHAPE,
                       "crop: window %lld x %lld at (%lld, "
                       "%lld) does not lie inside '%s' (%lld x %lld)",
                       (long long)rows, (long long)cols, (long long)row,
                       (long long)col, fg_field_label(in), (long long)h,
                       (long long)w);
    return NULL;
  }
  fg_type t = with_size(fg_field_type(in), rows, cols);
  fg_op *op = fg_op_begin(g, "crop", 1, &t);
  return copy_at(op, in, fg_addi(fg_row(op), (int32_t)row),
                 fg_addi(fg_column(op), (int32_t)col));
}

/* fg_pad; uniform: top and left are read from a constant field when the
 * kernel runs instead of being literals of its source (margins derived
 * from the image's size, as a letterbox's). */
static fg_field *pad(fg_graph *g, fg_field *in, int64_t top, int64_t bottom,
                     int64_t left, int64_t right, fg_border border,
                     double value, bool uniform) {
  if (!fgo_image(g, "pad", in))
    return NULL;
  if (top < 0 || bottom < 0 || left < 0 || right < 0 ||
      (unsigned)border > FG_BORDER_CONSTANT) {
    fg_graph_set_error(g, FG_EINVAL,
                       "pad: widths %lld %lld %lld %lld and "
                       "border %d; expected widths >= 0 and an fg_border",
                       (long long)top, (long long)bottom, (long long)left,
                       (long long)right, (int)border);
    return NULL;
  }
  fg_type t = with_size(fg_field_type(in), fgo_rows(in) + top + bottom,
                        fgo_cols(in) + left + right);
  fg_field *margins = NULL;
  if (uniform && !(margins = fgo_uniform(g, "pad.margins", FG_I32, 2,
                                         (const double[]){(double)top,
                                                          (double)left})))
    return NULL;
  fg_op *op = fg_op_begin(g, "pad", 1, &t);
  fg_expr *r = fg_row(op), *c = fg_column(op);
  if (uniform) {
    fg_expr *m = fg_var(op, FG_I32, 2);
    fg_assign(m, fg_read_tensor(op, margins));
    r = fg_sub(r, fg_swizzle(m, "x"));
    c = fg_sub(c, fg_swizzle(m, "y"));
  } else {
    r = fg_subi(r, (int32_t)top);
    c = fg_subi(c, (int32_t)left);
  }
  fg_write_tensor(op, 0, fgo_read_border(op, in, r, c, (int)border, value));
  return fg_op_end(op);
}

fg_field *fg_pad(fg_graph *g, fg_field *in, int64_t top, int64_t bottom,
                 int64_t left, int64_t right, fg_border border, double value) {
  return pad(g, in, top, bottom, left, right, border, value, false);
}

fg_field *fgo_pad_sized(fg_graph *g, fg_field *in, int64_t top,
                        int64_t bottom, int64_t left, int64_t right,
                        fg_border border, double value) {
  return pad(g, in, top, bottom, left, right, border, value, true);
}

