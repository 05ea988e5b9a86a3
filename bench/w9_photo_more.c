/* bench/w9_photo_more.c - W9: the rest of the operator library a photo
 * user calls, on W8's RGB u8 4000 x 3000 image (and its grey plane):
 * 3 x 3 median, Sobel, 3 x 3 convolution, threshold, absdiff, a weighted
 * sum of two images (addWeighted), a look-up table, RGB to HSV (f32),
 * grey to RGB, RGB to BGR, NV21 to RGBA, an affine warp, a quarter turn,
 * transpose, 2 x 2 shrink, pad and crop.  Each fieldgraph row (fused, full
 * precision, one kernel thread) next to OpenCV's call on the same data,
 * as a ratio within one run; the error column is the largest difference
 * from OpenCV's result (grey levels, or units of an f32 result).  Where
 * the two define rounding or interpolation differently the column says by
 * how much; exact copies and exact integer operators read 0.  The note
 * gives the kernels and a hash of fieldgraph's output (a change to the
 * emitter that keeps every bit keeps every hash). */
#include "peers_ops.h"
#include "workloads.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define W9_W 4000
#define W9_H 3000

#ifdef BENCH_OPENCV
#define CV(call) (call)
#else
#define CV(call) ((double)NAN)
#endif

typedef struct w9_run {
  bench_table *t;
  fg_context *ctx;
  uint8_t *out, *peer;
} w9_run;

/* Largest |a[i] - b[i]| over n elements, bytes or floats. */
static double max_diff(const void *a, const void *b, size_t n, bool f32) {
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    double d = f32 ? fabs((double)((const float *)a)[i] -
                          (double)((const float *)b)[i])
                   : fabs((double)((const uint8_t *)a)[i] -
                          (double)((const uint8_t *)b)[i]);
    m = d > m ? d : m;
  }
  return m;
}

/* Adds OpenCV's row (seconds cs, NaN: not built) and then fieldgraph's for
 * g (inputs in[0..n_in), one output of n_out elements, f32 or u8), fused
 * at full precision, its error against OpenCV's output; io is the least
 * bytes read + written.  Frees g. */
static void pair(w9_run *r, const char *what, double cs, fg_graph *g,
                 int n_in, const void *const *in, size_t n_out, bool f32,
                 double io) {
  char label[48];
  int cv = -1;
  if (cs == cs) {
    snprintf(label, sizeof label, "%s OpenCV", what);
    cv = bench_row_add(r->t, label, cs, io, (double)NAN);
  }
  snprintf(label, sizeof label, "%s fieldgraph", what);
  fgb_check_graph(g, label);
  fg_program *p = fgb_compile(r->ctx, g, FG_FUSION_ON, FG_PRECISION_FULL);
  double s = fgb_time(r->ctx, p, n_in, in, 1, (void *[]){r->out});
  double err = cv < 0 ? (double)NAN : max_diff(r->out, r->peer, n_out, f32);
  int row = bench_row_add(r->t, label, s, io, err);
  r->t->rows[row].opencv = cv;
  snprintf(r->t->rows[row].note, sizeof r->t->rows[row].note,
           "%d kernel%s, out %08x", fg_program_kernel_count(p),
           fg_program_kernel_count(p) == 1 ? "" : "s",
           bench_hash(r->out, n_out * (f32 ? 4 : 1)));
  fg_program_free(p);
  fg_graph_free(g);
}

/* A new graph named name with its first input, "x" of type tx, in *a. */
static fg_graph *graph1(const char *name, fg_type tx, fg_field **a) {
  fg_graph *g = fg_graph_new(name);
  *a = fg_input(g, "x", tx);
  return g;
}

void bench_w9(fg_context *ctx) {
  const int W = W9_W, H = W9_H;
  const size_t n = (size_t)W * H, n3 = 3 * n;
  const int pad = 16;
  const size_t npad = (size_t)(W + 2 * pad) * (H + 2 * pad) * 3;
  uint8_t *rgb = bench_alloc(n3), *rgb2 = bench_alloc(n3),
          *grey = bench_alloc(n), *nv21 = bench_alloc(n + n / 2);
  float *rgbf = bench_alloc(4 * n3);
  /* room for the largest output: f32 RGB */
  uint8_t *out = bench_alloc(4 * npad), *peer = bench_alloc(4 * npad);
  uint8_t table[256];
  uint32_t s = 54321;
#define NEXT (s = s * 1664525u + 1013904223u, (uint8_t)(s >> 24))
  for (size_t i = 0; i < n3; i++)
    rgb[i] = NEXT;
  for (size_t i = 0; i < n3; i++)
    rgb2[i] = NEXT;
  for (size_t i = 0; i < n; i++)
    grey[i] = NEXT;
  for (size_t i = 0; i < n + n / 2; i++)
    nv21[i] = NEXT;
#undef NEXT
  for (size_t i = 0; i < n3; i++)
    rgbf[i] = (float)rgb[i] / 255.0f;
  for (int i = 0; i < 256; i++)   /* a gamma-like curve */
    table[i] = (uint8_t)lrint(255.0 * pow(i / 255.0, 0.45));

  char title[200];
  snprintf(title, sizeof title,
           "W9 more photo operators, RGB %dx%d (%s); median of %d after %d "
           "warm-up",
           W, H, fg_context_backend_name(ctx), bench.reps, bench.warmup);
  bench_table t;
  bench_table_init(&t, title);
  w9_run r = {&t, ctx, out, peer};
  fg_type trgb = fg_type_vector(FG_U8, fg_shape2(H, W), 3);
  fg_type tg = fg_type_scalar(FG_U8, fg_shape2(H, W));
  fg_type tf3 = fg_type_vector(FG_F32, fg_shape2(H, W), 3);
  const void *in_rgb[] = {rgb}, *in_grey[] = {grey};
  fg_graph *g;
  fg_field *x;

  /* filters */
  double cs = CV(peer_cv_u8_median3(grey, peer, W, H, 1));
  g = graph1("w9_median1", tg, &x);
  fg_output(g, "y", fg_median3x3(g, x));
  pair(&r, "median 3x3 u8 grey", cs, g, 1, in_grey, n, false, 2.0 * n);
  cs = CV(peer_cv_u8_median3(rgb, peer, W, H, 3));
  g = graph1("w9_median3", trgb, &x);
  fg_output(g, "y", fg_median3x3(g, x));
  pair(&r, "median 3x3 u8x3", cs, g, 1, in_rgb, n3, false, 2.0 * n3);

  cs = CV(peer_cv_u8_sobel_dx(grey, (float *)peer, W, H));
  g = graph1("w9_sobel", tg, &x);
  fg_field *gx, *gy;
  fg_sobel(g, x, FG_BORDER_MIRROR, &gx, &gy);
  fg_output(g, "y", gx);
  pair(&r, "sobel dx u8 grey->f32", cs, g, 1, in_grey, n, true, 5.0 * n);

  static const float sharpen[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
  cs = CV(peer_cv_u8_filter3x3(rgb, peer, W, H, 3, sharpen));
  g = graph1("w9_filter3", trgb, &x);
  fg_output(g, "y", fg_convolve(g, x, 3, 3, sharpen, FG_BORDER_MIRROR));
  pair(&r, "filter2D 3x3 u8x3", cs, g, 1, in_rgb, n3, false, 2.0 * n3);

  /* pointwise */
  cs = CV(peer_cv_u8_threshold(rgb, peer, W, H, 3, 128));
  g = graph1("w9_threshold", trgb, &x);
  fg_output(g, "y", fg_binary_scalar(g, FG_OP_GT, x, 128));
  pair(&r, "threshold >128 u8x3", cs, g, 1, in_rgb, n3, false, 2.0 * n3);

  const void *in_two[] = {rgb, rgb2};
  cs = CV(peer_cv_u8_abs_diff(rgb, rgb2, peer, W, H, 3));
  g = graph1("w9_absdiff", trgb, &x);
  fg_output(g, "y", fg_binary(g, FG_OP_ABSDIFF, x, fg_input(g, "x2", trgb)));
  pair(&r, "absdiff u8x3", cs, g, 2, in_two, n3, false, 3.0 * n3);

  cs = CV(peer_cv_u8_add_weighted(rgb, rgb2, peer, W, H, 3, 0.7, 0.3));
  g = graph1("w9_add_weighted", trgb, &x);
  {
    fg_field *a = fg_binary_scalar(g, FG_OP_MUL, fg_cast(g, x, FG_F32), 0.7);
    fg_field *b = fg_binary_scalar(
        g, FG_OP_MUL, fg_cast(g, fg_input(g, "x2", trgb), FG_F32), 0.3);
    fg_output(g, "y", fg_cast_sat(g, fg_binary(g, FG_OP_ADD, a, b), FG_U8));
  }
  pair(&r, "addWeighted u8x3", cs, g, 2, in_two, n3, false, 3.0 * n3);

  const void *in_lut[] = {rgb, table};
  cs = CV(peer_cv_u8_lut(rgb, table, peer, W, H, 3));
  g = graph1("w9_lut", trgb, &x);
  fg_output(g, "y",
            fg_lut1d(g, x,
                     fg_input(g, "table",
                              fg_type_scalar(FG_U8, fg_shape1(256)))));
  pair(&r, "LUT u8x3", cs, g, 2, in_lut, n3, false, 2.0 * n3);

  const void *in_f[] = {rgbf};
  cs = CV(peer_cv_u8_rgb_to_hsv_f32(rgbf, (float *)peer, W, H));
  g = graph1("w9_hsv", tf3, &x);
  fg_output(g, "y", fg_rgb_to_hsv(g, x));
  pair(&r, "rgb->hsv f32x3", cs, g, 1, in_f, n3, true, 8.0 * n3);

  cs = CV(peer_cv_u8_grey_to_rgb(grey, peer, W, H));
  g = graph1("w9_grey_rgb", tg, &x);
  fg_output(g, "y", fg_grey_to_rgb(g, x, 3));
  pair(&r, "grey->rgb u8", cs, g, 1, in_grey, n3, false, (double)n + n3);

  cs = CV(peer_cv_u8_rgb_to_bgr(rgb, peer, W, H));
  g = graph1("w9_bgr", trgb, &x);
  fg_output(g, "y", fg_channels(g, x, "bgr"));
  pair(&r, "rgb->bgr u8x3", cs, g, 1, in_rgb, n3, false, 2.0 * n3);

  const void *in_nv[] = {nv21};
  cs = CV(peer_cv_u8_nv21_to_rgba(nv21, peer, W, H));
  g = graph1("w9_nv21", fg_type_scalar(FG_U8, fg_shape1((int64_t)(n + n / 2))),
             &x);
  fg_output(g, "y", fg_intrinsic_yuv_to_rgb(g, x, FG_YUV_NV21, W, H));
  pair(&r, "NV21->rgba u8", cs, g, 1, in_nv, 4 * n, false, 5.5 * n);

  /* geometry */
  const double pi = 3.14159265358979323846, a = 10 * pi / 180;
  const double m[6] = {cos(a), -sin(a),
                       W / 2.0 - cos(a) * W / 2.0 + sin(a) * H / 2.0,
                       sin(a), cos(a),
                       H / 2.0 - sin(a) * W / 2.0 - cos(a) * H / 2.0};
  cs = CV(peer_cv_u8_warp_affine(rgb, peer, W, H, 3, m));
  g = graph1("w9_warp", trgb, &x);
  fg_output(g, "y", fg_warp_affine(g, x, m, H, W, FG_INTERP_BILINEAR,
                                   FG_BORDER_CONSTANT, 0));
  pair(&r, "warpAffine 10deg bilinear u8x3", cs, g, 1, in_rgb, n3, false,
       2.0 * n3);

  cs = CV(peer_cv_u8_rotate90(rgb, peer, W, H, 3));
  g = graph1("w9_rot90", trgb, &x);
  fg_output(g, "y", fg_rotate90(g, x, 1));
  pair(&r, "rotate 90 u8x3", cs, g, 1, in_rgb, n3, false, 2.0 * n3);

  cs = CV(peer_cv_u8_transpose(grey, peer, W, H, 1));
  g = graph1("w9_transpose", tg, &x);
  fg_output(g, "y", fg_transpose(g, x));
  pair(&r, "transpose u8 grey", cs, g, 1, in_grey, n, false, 2.0 * n);

  cs = CV(peer_cv_u8_resize(rgb, peer, W, H, 3, W / 2, H / 2, 1));
  g = graph1("w9_down2", trgb, &x);
  fg_output(g, "y", fg_downsample2(g, x));
  pair(&r, "downsample2 u8x3 (area /2)", cs, g, 1, in_rgb, n3 / 4, false,
       1.25 * n3);

  cs = CV(peer_cv_u8_pad(rgb, peer, W, H, 3, pad));
  g = graph1("w9_pad", trgb, &x);
  fg_output(g, "y", fg_pad(g, x, pad, pad, pad, pad, FG_BORDER_MIRROR, 0));
  pair(&r, "pad 16 mirror u8x3", cs, g, 1, in_rgb, npad, false,
       (double)n3 + npad);

  const int cw = W / 2, chh = H / 2, cx = W / 4 + 1, cy = H / 4 + 1;
  const size_t ncrop = (size_t)cw * chh * 3;
  cs = CV(peer_cv_u8_crop(rgb, peer, W, H, 3, cx, cy, cw, chh));
  g = graph1("w9_crop", trgb, &x);
  fg_output(g, "y", fg_crop(g, x, cy, cx, chh, cw));
  pair(&r, "crop half u8x3", cs, g, 1, in_rgb, ncrop, false, 2.0 * ncrop);

  bench_table_print(&t);
  free(rgb);
  free(rgb2);
  free(grey);
  free(nv21);
  free(rgbf);
  free(out);
  free(peer);
}
