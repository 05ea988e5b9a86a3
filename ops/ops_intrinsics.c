/* ops/ops_intrinsics.c - the RenderScript intrinsics that read
 * neighbours (Blur, Convolve 3x3 and 5x5, Resize, Histogram and
 * HistogramDot) with the semantics of the Intrinsics Replacement
 * Toolkit's C++ library: its float weights and evaluation order, its
 * truncations, its clamped edges and its restriction rectangle.  Every
 * float product and sum is a statement of its own, so no backend
 * contracts them into fused multiply-adds and integer results are the
 * same bits on every backend. */
#include "ops_impl.h"

#include <math.h>
#include <stdio.h>

/* Checks a uchar 2-D input of 1-4 channels (or the widths in mask: bit n
 * for n channels) and the restriction; fills *r with the rectangle. */
static bool check(fg_graph *g, const char *name, fg_field *in, unsigned widths,
                  const fg_restriction *restriction, fg_restriction *r) {
  if (!fgo_ready(g, in))
    return false;
  fg_type t = fg_field_type(in);
  int n = fg_type_tensor_elements(t);
  char ts[FG_TYPE_STR_MAX];
  if (t.elem != FG_U8 || t.field.ndim != 2 || !(widths >> n & 1)) {
    fg_graph_set_error(g, FG_ETYPE,
                       "%s: field '%s' is %s; expected a 2-D "
                       "uchar field of %s",
                       name, fg_field_label(in), fg_type_str(t, ts, sizeof ts),
                       widths == 0x12 ? "1 or 4 channels" : "1 to 4 channels");
    return false;
  }
  int64_t h = t.field.dim[0], w = t.field.dim[1];
  *r = restriction ? *restriction : (fg_restriction){
      .x0 = 0, .y0 = 0, .x1 = w, .y1 = h};
  if (r->x0 < 0 || r->y0 < 0 || r->x1 > w || r->y1 > h || r->x0 >= r->x1 ||
      r->y0 >= r->y1) {
    fg_graph_set_error(g, FG_EINVAL,
                       "%s: restriction x [%lld, %lld) y "
                       "[%lld, %lld) is empty or leaves '%s' (%lld x %lld)",
                       name, (long long)r->x0, (long long)r->x1,
                       (long long)r->y0, (long long)r->y1, fg_field_label(in),
                       (long long)h, (long long)w);
    return false;
  }
  return true;
}

/* Whether r is a strict part of a rows x cols field. */
static bool partial(const fg_restriction *r, int64_t rows, int64_t cols) {
  return r->x0 > 0 || r->y0 > 0 || r->x1 < cols || r->y1 < rows;
}

/* Opens the "inside the restriction" block of a uchar output kernel:
 * returns the result variable (0 outside); the caller assigns it and
 * closes with end_rect. */
static fg_expr *begin_rect(fg_op *op, const fg_restriction *r, bool part, int n) {
  fg_expr *res = fg_var(op, FG_U8, n);
  if (part) {
    fg_expr *x = fg_column(op), *y = fg_row(op);
    fg_if(fg_land(fg_land(fg_ge(x, fg_int(op, (int32_t)r->x0)),
                          fg_lt(x, fg_int(op, (int32_t)r->x1))),
                  fg_land(fg_ge(y, fg_int(op, (int32_t)r->y0)),
                          fg_lt(y, fg_int(op, (int32_t)r->y1)))));
  }
  return res;
}

static fg_field *end_rect(fg_op *op, fg_expr *res, bool part) {
  if (part)
    fg_end(op);
  fg_write_tensor(op, 0, res);
  return fg_op_end(op);
}

/* acc = acc + float(v) * w, in two statements. */
static void madd(fg_op *op, fg_expr *acc, fg_expr *v, float w) {
  fg_expr *p = fg_var(op, FG_F32, fg_expr_width(acc));
  fg_assign(p,
            fg_mul(fg_convert(v, FG_F32, fg_expr_width(acc)), fg_float(op, w)));
  fg_assign(acc, fg_add(acc, p));
}

/* The Toolkit's Gaussian weights for radius (its ComputeGaussianWeights,
 * in float). */
static void blur_weights(int radius, float *w) {
  float e = 2.718281828459045f, pi = 3.1415926535897932f;
  float sigma = 0.4f * (float)radius + 0.6f;
  float coeff1 = 1.0f / (sqrtf(2.0f * pi) * sigma);
  float coeff2 = -1.0f / (2.0f * sigma * sigma);
  float norm = 0.0f;
  for (int r = -radius; r <= radius; r++) {
    float fr = (float)r;
    w[r + radius] = coeff1 * powf(e, fr * fr * coeff2);
    norm += w[r + radius];
  }
  norm = 1.0f / norm;
  for (int r = 0; r <= 2 * radius; r++)
    w[r] *= norm;
}

fg_field *fg_intrinsic_blur(fg_graph *g, fg_field *in, int radius,
                            const fg_restriction *restriction) {
  const char *name = "intrinsic_blur";
  fg_restriction r;
  if (!check(g, name, in, 0x12, restriction, &r))
    return NULL;
  if (radius < 1 || radius > 25) {
    fg_graph_set_error(g, FG_EINVAL, "%s: radius %d; expected 1 to 25", name,
                       radius);
    return NULL;
  }
  fg_type t = fg_field_type(in);
  int n = fg_type_tensor_elements(t);
  int64_t h = t.field.dim[0], w = t.field.dim[1];
  float wt[51];
  blur_weights(radius, wt);
  /* vertical pass over the rows of the restriction and the columns its
   * horizontal pass reads */
  int64_t cx0 = r.x0 - radius > 0 ? r.x0 - radius : 0;
  int64_t cx1 = r.x1 + radius < w ? r.x1 + radius : w;
  fg_type vt = fg_type_vector(FG_F32, fg_shape2(r.y1 - r.y0, cx1 - cx0), n);
  fg_op *op = fg_op_begin(g, "intrinsic_blur.v", 1, &vt);
  fg_expr *acc = fg_var(op, FG_F32, n);
  for (int k = 0; k <= 2 * radius; k++)
    madd(op, acc,
         fg_read_tensor_at(op, in, 2,
                           fg_addi(fg_row(op), (int32_t)r.y0 + k - radius),
                           fg_addi(fg_column(op), (int32_t)cx0)),
         wt[k]);
  fg_write_tensor(op, 0, acc);
  fg_field *tmp = fg_op_end(op);
  if (!tmp)
    return NULL;
  bool part = partial(&r, h, w);
  op = fg_op_begin(g, name, 1, &t);
  fg_expr *res = begin_rect(op, &r, part, n);
  acc = fg_var(op, FG_F32, n);
  /* tmp spans every column these rows reach (cx0, cx1 above), so the
   * read's own clamp to tmp's edges is the image's clamp */
  for (int k = 0; k <= 2 * radius; k++)
    madd(op, acc,
         fg_read_tensor_at(op, tmp, 2, fg_addi(fg_row(op), -(int32_t)r.y0),
                           fg_addi(fg_column(op), k - radius - (int32_t)cx0)),
         wt[k]);
  fg_assign(res, fg_convert(acc, FG_U8, n));
  return end_rect(op, res, part);
}

/* Convolve 3x3 and 5x5: size x size taps, clamped, px + 0.5 clamped to
 * [0, 255], truncated. */
static fg_field *convolve(fg_graph *g, const char *name, fg_field *in, int size,
                          const float *c, const fg_restriction *restriction) {
  fg_restriction r;
  if (!check(g, name, in, 0x1e, restriction, &r))
    return NULL;
  if (!c) {
    fg_graph_set_error(g, FG_EINVAL, "%s: no coefficients", name);
    return NULL;
  }
  fg_type t = fg_field_type(in);
  int n = fg_type_tensor_elements(t);
  bool part = partial(&r, t.field.dim[0], t.field.dim[1]);
  fg_op *op = fg_op_begin(g, name, 1, &t);
  fg_expr *res = begin_rect(op, &r, part, n);
  fg_expr *acc = fg_var(op, FG_F32, n);
  int h = size / 2;
  for (int k = 0; k < size * size; k++)
    madd(op, acc,
         fg_read_tensor_at(op, in, 2, fg_addi(fg_row(op), k / size - h),
                           fg_addi(fg_column(op), k % size - h)),
         c[k]);
  fg_assign(acc, fg_add(acc, fg_float(op, 0.5f)));
  fg_assign(acc, fg_clamp(acc, fg_float(op, 0.0f), fg_float(op, 255.0f)));
  fg_assign(res, fg_convert(acc, FG_U8, n));
  return end_rect(op, res, part);
}

fg_field *fg_intrinsic_convolve3x3(fg_graph *g, fg_field *in,
                                   const float coefficients[9],
                                   const fg_restriction *restriction) {
  return convolve(g, "intrinsic_convolve3x3", in, 3, coefficients, restriction);
}

fg_field *fg_intrinsic_convolve5x5(fg_graph *g, fg_field *in,
                                   const float coefficients[25],
                                   const fg_restriction *restriction) {
  return convolve(g, "intrinsic_convolve5x5", in, 5, coefficients, restriction);
}

/* The Toolkit's cubicInterpolate, p1 + 0.5 x (p2 - p0 + x (2 p0 - 5 p1 +
 * 4 p2 - p3 + x (3 (p1 - p2) + p3 - p0))), step by step in C's order. */
static fg_expr *cubic(fg_op *op, fg_expr *const p[4], fg_expr *x, int n) {
  fg_expr *a = fg_var(op, FG_F32, n), *b = fg_var(op, FG_F32, n);
  fg_expr *s = fg_var(op, FG_F32, 1);
  fg_assign(a, fg_sub(p[1], p[2]));
  fg_assign(a, fg_mul(fg_float(op, 3.0f), a));
  fg_assign(a, fg_add(a, p[3]));
  fg_assign(a, fg_sub(a, p[0]));
  fg_assign(a, fg_mul(x, a)); /* x (3 (p1-p2) ...) */
  fg_assign(b, fg_mul(fg_float(op, 2.0f), p[0]));
  fg_expr *t = fg_var(op, FG_F32, n);
  fg_assign(t, fg_mul(fg_float(op, 5.0f), p[1]));
  fg_assign(b, fg_sub(b, t));
  fg_assign(t, fg_mul(fg_float(op, 4.0f), p[2]));
  fg_assign(b, fg_add(b, t));
  fg_assign(b, fg_sub(b, p[3]));
  fg_assign(b, fg_add(b, a));
  fg_assign(b, fg_mul(x, b));
  fg_assign(a, fg_sub(p[2], p[0]));
  fg_assign(a, fg_add(a, b));
  fg_assign(s, fg_mul(fg_float(op, 0.5f), x));
  fg_assign(a, fg_mul(s, a));
  fg_assign(a, fg_add(p[1], a));
  return a;
}

/* Splits the Toolkit's source coordinate (i + 0.5) scale - 0.5 into the
 * four clamped source indices and the fraction. */
static fg_expr *source(fg_op *op, fg_expr *i, fg_expr *scale, fg_expr *n,
                       fg_expr *idx[4]) {
  fg_expr *f = fg_var(op, FG_F32, 1), *fl = fg_var(op, FG_F32, 1);
  fg_assign(f, fg_add(fg_convert(i, FG_F32, 1), fg_float(op, 0.5f)));
  fg_assign(f, fg_mul(f, scale));
  fg_assign(f, fg_sub(f, fg_float(op, 0.5f)));
  fg_assign(fl, fg_floor(f));
  fg_expr *start = fg_var(op, FG_I32, 1);
  fg_assign(start, fg_subi(fg_convert(fl, FG_I32, 1), 1));
  for (int k = 0; k < 4; k++)
    idx[k] =
        fg_clamp(fg_addi(start, k), fg_int(op, 0), fg_subi(n, 1));
  fg_assign(f, fg_sub(f, fl));
  return f;
}

fg_field *fg_intrinsic_resize(fg_graph *g, fg_field *in, int64_t rows,
                              int64_t cols, const fg_restriction *restriction) {
  const char *name = "intrinsic_resize";
  fg_restriction r;
  if (!check(g, name, in, 0x1e, NULL, &r))
    return NULL;
  if (rows < 1 || cols < 1) {
    fg_graph_set_error(g, FG_EINVAL, "%s: output %lld x %lld", name,
                       (long long)rows, (long long)cols);
    return NULL;
  }
  r = restriction ? *restriction : (fg_restriction){
      .x0 = 0, .y0 = 0, .x1 = cols, .y1 = rows};
  if (r.x0 < 0 || r.y0 < 0 || r.x1 > cols || r.y1 > rows || r.x0 >= r.x1 ||
      r.y0 >= r.y1) {
    fg_graph_set_error(g, FG_EINVAL,
                       "%s: restriction is empty or leaves "
                       "the %lld x %lld output",
                       name, (long long)rows, (long long)cols);
    return NULL;
  }
  fg_type t = fg_field_type(in);
  int n = fg_type_tensor_elements(t);
  int64_t h = t.field.dim[0], w = t.field.dim[1];
  fg_type ot = fg_type_vector(FG_U8, fg_shape2(rows, cols), n);
  bool part = partial(&r, rows, cols);
  /* the scales depend on the sizes: read when the kernel runs */
  fg_field *scale = fgo_uniform(
      g, "intrinsic_resize.scale", FG_F32, 2,
      (const double[]){(float)h / (float)rows, (float)w / (float)cols});
  if (!scale)
    return NULL;
  fg_op *op = fg_op_begin(g, name, 1, &ot);
  fg_expr *res = begin_rect(op, &r, part, n);
  fg_expr *ys[4], *xs[4], *sv = fg_var(op, FG_F32, 2);
  fg_assign(sv, fg_read_tensor(op, scale));
  fg_expr *yf = source(op, fg_row(op), fg_swizzle(sv, "x"),
                       fgo_rows_x(op, in), ys);
  fg_expr *xf = source(op, fg_column(op), fg_swizzle(sv, "y"),
                       fgo_cols_x(op, in), xs);
  fg_expr *p[4];
  for (int j = 0; j < 4; j++) {
    fg_expr *q[4];
    for (int k = 0; k < 4; k++) {
      q[k] = fg_var(op, FG_F32, n);
      fg_assign(q[k], fg_convert(fg_read_tensor_at(op, in, 2, ys[j], xs[k]),
                                 FG_F32, n));
    }
    p[j] = fg_var(op, FG_F32, n);
    fg_assign(p[j], cubic(op, q, xf, n));
  }
  fg_expr *v = cubic(op, p, yf, n);
  fg_assign(v, fg_add(v, fg_float(op, 0.5f)));
  fg_assign(v, fg_clamp(v, fg_float(op, 0.0f), fg_float(op, 255.0f)));
  fg_assign(res, fg_convert(v, FG_U8, n));
  return end_rect(op, res, part);
}

static fg_expr *channel(fg_expr *v, int ch) {
  static const char *const comp[4] = {"x", "y", "z", "w"};
  return fg_expr_width(v) == 1 ? v : fg_swizzle(v, comp[ch]);
}

static fg_expr *value_bin(fg_op *op, fg_expr *v, int ch, fg_expr **valid,
                          const void *user) {
  (void)op;
  (void)user;
  *valid = NULL;
  return fg_convert(channel(v, ch), FG_I32, 1);
}

fg_field *fg_intrinsic_histogram(fg_graph *g, fg_field *in,
                                 const fg_restriction *restriction) {
  fg_restriction r;
  if (!check(g, "intrinsic_histogram", in, 0x1e, restriction, &r))
    return NULL;
  fg_type t = fg_field_type(in);
  int n = fg_type_tensor_elements(t);
  return fgo_histogram(g, "intrinsic_histogram", in, 256, n, FG_I32,
                       value_bin, NULL,
                       partial(&r, t.field.dim[0], t.field.dim[1]) ? &r
                                                                   : NULL);
}

static fg_expr *dot_bin(fg_op *op, fg_expr *v, int ch, fg_expr **valid,
                        const void *user) {
  (void)ch;
  const int *ci = user;
  *valid = NULL;
  fg_expr *t = fg_var(op, FG_I32, 1);
  for (int k = 0; k < fg_expr_width(v); k++)
    fg_assign(t,
              fg_add(t, fg_muli(fg_convert(channel(v, k), FG_I32, 1), ci[k])));
  return fg_min(fg_shr(fg_addi(t, 0x7f), fg_int(op, 8)), fg_int(op, 255));
}

fg_field *fg_intrinsic_histogram_dot(fg_graph *g, fg_field *in,
                                     const float coefficients[4],
                                     const fg_restriction *restriction) {
  const char *name = "intrinsic_histogram_dot";
  fg_restriction r;
  if (!check(g, name, in, 0x1e, restriction, &r))
    return NULL;
  static const float def[4] = {0.299f, 0.587f, 0.114f, 0.0f};
  const float *c = coefficients ? coefficients : def;
  float sum = 0;
  int ci[4];
  for (int k = 0; k < 4; k++) {
    if (!(c[k] >= 0)) {
      fg_graph_set_error(g, FG_EINVAL,
                         "%s: coefficient %d is %g; expected "
                         ">= 0",
                         name, k, c[k]);
      return NULL;
    }
    sum += c[k];
    ci[k] = (int)(c[k] * 256.0f + 0.5f);
  }
  if (sum > 1.0f) {
    fg_graph_set_error(g, FG_EINVAL,
                       "%s: coefficients sum to %g; expected "
                       "at most 1",
                       name, sum);
    return NULL;
  }
  fg_type t = fg_field_type(in);
  return fgo_histogram(g, name, in, 256, 1, FG_I32, dot_bin, ci,
                       partial(&r, t.field.dim[0], t.field.dim[1]) ? &r
                                                                   : NULL);
}
