/* bench/w8_photo.c - W8: the operator library on what photos are, an RGB
 * u8 4000 x 3000 image (and its grey u8 plane): RGB to grey, Gaussian
 * blur (sigma 2, radius 6, mirrored border) of the grey plane and of the
 * RGB image, a 5 x 5 box blur, bilinear resize to about half, area
 * resize to a quarter, a horizontal flip, and two pointwise conversions of
 * the RGB image (scale and offset back to u8, as convertTo(alpha, beta),
 * and u8 to f32 in [0, 1]).  Each fieldgraph row next
 * to OpenCV's call (when built with it), as a ratio within one run; the
 * error column is the largest difference from OpenCV's result in grey
 * levels (OpenCV rounds its own way, so a level or two is expected), or
 * in units of the f32 result.  The note gives the kernels and a hash of
 * fieldgraph's output. */
#include "peers_ops.h"
#include "workloads.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define W8_W 4000
#define W8_H 3000

/* Largest |a[i] - b[i]| over n floats. */
static double max_diff_f32(const float *a, const float *b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs((double)a[i] - (double)b[i]);
    m = d > m ? d : m;
  }
  return m;
}

/* Largest |a[i] - b[i]| over n bytes. */
static double max_diff_u8(const uint8_t *a, const uint8_t *b, size_t n) {
  int m = 0;
  for (size_t i = 0; i < n; i++) {
    int d = abs((int)a[i] - (int)b[i]);
    m = d > m ? d : m;
  }
  return m;
}

typedef struct w8_run {
  bench_table *t;
  fg_context *ctx;
  const uint8_t *in;
  uint8_t *out, *peer;
  bool f32_out;   /* the outputs are floats, n_out of them */
} w8_run;

/* Times graph g (input "x", output "y") fused at full precision and adds
 * its row against OpenCV's row cv (-1: none); n_out output bytes,
 * io the least bytes read + written. */
static void time_graph(w8_run *r, fg_graph *g, const char *label,
                       size_t n_out, double io, int cv) {
  fgb_check_graph(g, label);
  fg_program *p = fgb_compile(r->ctx, g, FG_FUSION_ON, FG_PRECISION_FULL);
  double s = fgb_time(r->ctx, p, 1, (const void *[]){r->in}, 1,
                      (void *[]){r->out});
  double err = cv < 0        ? (double)NAN
               : r->f32_out ? max_diff_f32((const float *)r->out,
                                           (const float *)r->peer, n_out)
                            : max_diff_u8(r->out, r->peer, n_out);
  int row = bench_row_add(r->t, label, s, io, err);
  r->t->rows[row].opencv = cv;
  snprintf(r->t->rows[row].note, sizeof r->t->rows[row].note,
           "%d kernel%s, out %08x", fg_program_kernel_count(p),
           fg_program_kernel_count(p) == 1 ? "" : "s",
           bench_hash(r->out, n_out * (r->f32_out ? 4 : 1)));
  fg_program_free(p);
  fg_graph_free(g);
}

/* Adds OpenCV's row (seconds s) and returns it; -1 when s is NaN. */
static int peer_row(w8_run *r, const char *label, double s, double io) {
  if (s != s)
    return -1;
  return bench_row_add(r->t, label, s, io, (double)NAN);
}

void bench_w8(fg_context *ctx) {
  const size_t n = (size_t)W8_W * W8_H, n3 = 3 * n;
  uint8_t *rgb = bench_alloc(n3), *grey = bench_alloc(n);
  /* room for f32 RGB outputs */
  uint8_t *out = bench_alloc(4 * n3), *peer = bench_alloc(4 * n3);
  uint32_t s = 12345;
  for (size_t i = 0; i < n3; i++) {
    s = s * 1664525u + 1013904223u;
    rgb[i] = (uint8_t)(s >> 24);
  }
  for (size_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    grey[i] = (uint8_t)(s >> 24);
  }
  char title[200];
  snprintf(title, sizeof title,
           "W8 photo u8 operators, RGB %dx%d (%s); median of %d after %d "
           "warm-up",
           W8_W, W8_H, fg_context_backend_name(ctx), bench.reps,
           bench.warmup);
  bench_table t;
  bench_table_init(&t, title);
  w8_run r = {&t, ctx, rgb, out, peer, false};
  fg_type trgb = fg_type_vector(FG_U8, fg_shape2(W8_H, W8_W), 3);
  fg_type tg = fg_type_scalar(FG_U8, fg_shape2(W8_H, W8_W));
  double nan = (double)NAN;
  int cv;
  fg_graph *g;

  /* RGB -> grey */
  double cs = nan;
#ifdef BENCH_OPENCV
  cs = peer_cv_u8_rgb_to_grey(rgb, peer, W8_W, W8_H);
#endif
  cv = peer_row(&r, "rgb->grey OpenCV cvtColor", cs, (double)n3 + n);
  g = fg_graph_new("w8_grey");
  fg_output(g, "y", fg_rgb_to_grey(g, fg_input(g, "x", trgb)));
  time_graph(&r, g, "rgb->grey fieldgraph", n, (double)n3 + n, cv);

  /* Gaussian sigma 2, radius 6 on the grey plane, then on RGB */
  r.in = grey;
#ifdef BENCH_OPENCV
  cs = peer_cv_u8_gaussian(grey, peer, W8_W, W8_H, 1, 2.0, 6);
#endif
  cv = peer_row(&r, "gauss r6 u8 grey OpenCV", cs, 2.0 * n);
  g = fg_graph_new("w8_gauss1");
  fg_output(g, "y", fg_gaussian_blur(g, fg_input(g, "x", tg), 2.0, 6,
                                     FG_BORDER_MIRROR));
  time_graph(&r, g, "gauss r6 u8 grey fieldgraph", n, 2.0 * n, cv);
  r.in = rgb;
#ifdef BENCH_OPENCV
  cs = peer_cv_u8_gaussian(rgb, peer, W8_W, W8_H, 3, 2.0, 6);
#endif
  cv = peer_row(&r, "gauss r6 u8x3 OpenCV", cs, 2.0 * n3);
  g = fg_graph_new("w8_gauss3");
  fg_output(g, "y", fg_gaussian_blur(g, fg_input(g, "x", trgb), 2.0, 6,
                                     FG_BORDER_MIRROR));
  time_graph(&r, g, "gauss r6 u8x3 fieldgraph", n3, 2.0 * n3, cv);

  /* 5 x 5 box on the grey plane */
  r.in = grey;
#ifdef BENCH_OPENCV
  cs = peer_cv_u8_box(grey, peer, W8_W, W8_H, 1, 2);
#endif
  cv = peer_row(&r, "box 5x5 u8 grey OpenCV", cs, 2.0 * n);
  g = fg_graph_new("w8_box");
  fg_output(g, "y",
            fg_box_blur(g, fg_input(g, "x", tg), 2, FG_BORDER_MIRROR));
  time_graph(&r, g, "box 5x5 u8 grey fieldgraph", n, 2.0 * n, cv);

  /* bilinear resize to about half, area resize to a quarter */
  r.in = rgb;
  const int bw = W8_W / 2 + 5, bh = W8_H / 2 + 7, aw = W8_W / 4,
            ah = W8_H / 4;
  double bio = (double)n3 + 3.0 * bw * bh, aio = (double)n3 + 3.0 * aw * ah;
#ifdef BENCH_OPENCV
  cs = peer_cv_u8_resize(rgb, peer, W8_W, W8_H, 3, bw, bh, 0);
#endif
  cv = peer_row(&r, "resize bilinear u8x3 OpenCV", cs, bio);
  g = fg_graph_new("w8_bilinear");
  fg_output(g, "y",
            fg_resize(g, fg_input(g, "x", trgb), bh, bw, FG_INTERP_BILINEAR));
  time_graph(&r, g, "resize bilinear u8x3 fieldgraph", 3 * (size_t)bw * bh,
             bio, cv);
#ifdef BENCH_OPENCV
  cs = peer_cv_u8_resize(rgb, peer, W8_W, W8_H, 3, aw, ah, 1);
#endif
  cv = peer_row(&r, "resize area /4 u8x3 OpenCV", cs, aio);
  g = fg_graph_new("w8_area");
  fg_output(g, "y",
            fg_resize(g, fg_input(g, "x", trgb), ah, aw, FG_INTERP_AREA));
  time_graph(&r, g, "resize area /4 u8x3 fieldgraph", 3 * (size_t)aw * ah,
             aio, cv);

  /* horizontal flip */
#ifdef BENCH_OPENCV
  cs = peer_cv_u8_flip(rgb, peer, W8_W, W8_H, 3);
#endif
  cv = peer_row(&r, "flip horizontal u8x3 OpenCV", cs, 2.0 * n3);
  g = fg_graph_new("w8_flip");
  fg_output(g, "y", fg_flip(g, fg_input(g, "x", trgb), true, false));
  time_graph(&r, g, "flip horizontal u8x3 fieldgraph", n3, 2.0 * n3, cv);

  /* pointwise on RGB: scale and offset (saturated to u8), u8 to f32 */
#ifdef BENCH_OPENCV
  cs = peer_cv_u8_scale_offset(rgb, peer, W8_W, W8_H, 3, 1.3, -20.0);
#endif
  cv = peer_row(&r, "scale_offset u8x3 OpenCV convertTo", cs, 2.0 * n3);
  g = fg_graph_new("w8_scale_offset");
  fg_output(g, "y", fg_scale_offset(g, fg_input(g, "x", trgb), 1.3, -20.0));
  time_graph(&r, g, "scale_offset u8x3 fieldgraph", n3, 2.0 * n3, cv);
#ifdef BENCH_OPENCV
  cs = peer_cv_u8_to_unit(rgb, (float *)peer, W8_W, W8_H, 3);
#endif
  cv = peer_row(&r, "to_unit u8x3->f32 OpenCV convertTo", cs, 5.0 * n3);
  g = fg_graph_new("w8_to_unit");
  fg_output(g, "y", fg_to_unit(g, fg_input(g, "x", trgb)));
  r.f32_out = true;
  time_graph(&r, g, "to_unit u8x3->f32 fieldgraph", n3, 5.0 * n3, cv);
  r.f32_out = false;

  bench_table_print(&t);
  free(rgb);
  free(grey);
  free(out);
  free(peer);
}
