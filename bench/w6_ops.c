/* bench/w6_ops.c - W6: operators of the library on a float 4096 x 4096
 * field: Gaussian blur (sigma 2, radius 6), a 3x3 convolution, bilinear
 * resize to 3000 x 3000, a 256-bin histogram, and the sum over axis 0 of
 * a [64, 512, 512] field.  Each next to a threaded C loop doing the same
 * arithmetic (the error column is against it) and OpenCV's call when
 * built with it. */
#include "peers_ops.h"
#include "workloads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W6_SIZE 4096
#define W6_RESIZE 3000
#define W6_BINS 256

typedef struct w6_job {
  const float *in;
  float *tmp, *out;
  const float *w; /* weights */
  int n, r;       /* size, radius */
  int m;          /* resize: output size; axis sum: layers */
  uint32_t (*hist)[W6_BINS];
} w6_job;

static int clampi(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

/* Separable Gaussian as the library computes it: each mirrored pair of
 * taps summed, then multiplied by its weight, the pairs from the outside
 * in, the centre tap last.  Rows [b, e) of the horizontal pass into
 * tmp. */
static void gauss_h(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  w6_job *j = ctx;
  for (int64_t y = b; y < e; y++) {
    const float *row = j->in + y * j->n;
    for (int x = 0; x < j->n; x++) {
      float acc = 0;
      for (int k = -j->r; k < 0; k++) {
        float p = (row[clampi(x + k, 0, j->n - 1)] +
                   row[clampi(x - k, 0, j->n - 1)]) * j->w[k + j->r];
        acc = acc + p;
      }
      float p = row[x] * j->w[j->r];
      j->tmp[y * j->n + x] = acc + p;
    }
  }
}

static void gauss_v(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  w6_job *j = ctx;
  for (int64_t y = b; y < e; y++)
    for (int x = 0; x < j->n; x++) {
      float acc = 0;
      for (int k = -j->r; k < 0; k++) {
        float p = (j->tmp[(int64_t)clampi((int)y + k, 0, j->n - 1) * j->n + x] +
                   j->tmp[(int64_t)clampi((int)y - k, 0, j->n - 1) * j->n + x]) *
                  j->w[k + j->r];
        acc = acc + p;
      }
      float p = j->tmp[y * j->n + x] * j->w[j->r];
      j->out[y * j->n + x] = acc + p;
    }
}

static void gauss_c(void *ctx) {
  bench_parallel(((w6_job *)ctx)->n, gauss_h, ctx);
  bench_parallel(((w6_job *)ctx)->n, gauss_v, ctx);
}

static void conv_rows(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  w6_job *j = ctx;
  for (int64_t y = b; y < e; y++)
    for (int x = 0; x < j->n; x++) {
      float acc = 0;
      for (int k = 0; k < 9; k++) {
        int yy = clampi((int)y + k / 3 - 1, 0, j->n - 1);
        float p =
            j->in[(int64_t)yy * j->n + clampi(x + k % 3 - 1, 0, j->n - 1)] *
            j->w[k];
        acc = acc + p;
      }
      j->out[y * j->n + x] = acc;
    }
}

static void conv_c(void *ctx) {
  bench_parallel(((w6_job *)ctx)->n, conv_rows, ctx);
}

static void resize_rows(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  w6_job *j = ctx;
  float sc = (float)((double)j->n / j->m);
  for (int64_t y = b; y < e; y++) {
    float sy = ((float)y + 0.5f) * sc - 0.5f, fy = floorf(sy);
    int iy = (int)fy;
    sy -= fy;
    for (int x = 0; x < j->m; x++) {
      float sx = ((float)x + 0.5f) * sc - 0.5f, fx = floorf(sx);
      int ix = (int)fx;
      sx -= fx;
      float acc = 0;
      for (int r = 0; r < 2; r++) {
        const float *row = j->in + (int64_t)clampi(iy + r, 0, j->n - 1) * j->n;
        float v = row[clampi(ix, 0, j->n - 1)] * (1 - sx);
        v += row[clampi(ix + 1, 0, j->n - 1)] * sx;
        acc += v * (r ? sy : 1 - sy);
      }
      j->out[y * j->m + x] = acc;
    }
  }
}

static void resize_c(void *ctx) {
  bench_parallel(((w6_job *)ctx)->m, resize_rows, ctx);
}

static void hist_rows(void *ctx, int64_t b, int64_t e, int t) {
  w6_job *j = ctx;
  uint32_t *h = j->hist[t];
  memset(h, 0, sizeof *j->hist);
  for (int64_t i = b * j->n; i < e * j->n; i++) {
    float v = j->in[i];
    if (v >= 0.0f && v <= 1.0f) {
      int k = (int)floorf(v * (float)W6_BINS);
      h[k > W6_BINS - 1 ? W6_BINS - 1 : k]++;
    }
  }
}

static void hist_c(void *ctx) {
  w6_job *j = ctx;
  bench_parallel(j->n, hist_rows, ctx);
  for (int k = 0; k < W6_BINS; k++) {
    uint32_t s = 0;
    for (int t = 0; t < bench.threads; t++)
      s += j->hist[t][k];
    j->out[k] = (float)s;
  }
}

static void axis_cols(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  w6_job *j = ctx;
  int64_t plane = (int64_t)j->n * j->n;
  for (int64_t p = b; p < e; p++) {
    float acc = 0;
    for (int l = 0; l < j->m; l++)
      acc += j->in[l * plane + p];
    j->out[p] = acc;
  }
}

static void axis_c(void *ctx) {
  w6_job *j = ctx;
  bench_parallel((int64_t)j->n * j->n, axis_cols, ctx);
}

/* Times graph g (one input, one output) fused at full precision and adds
 * its row, compared with ref. */
static void time_graph(bench_table *t, fg_context *ctx, fg_graph *g,
                       const char *label, const float *in, float *out,
                       const float *ref, size_t n_out, bool counts, double io,
                       int crow, int cvrow) {
  fgb_check_graph(g, label);
  fg_program *p = fgb_compile(ctx, g, FG_FUSION_ON, FG_PRECISION_FULL);
  double s = fgb_time(ctx, p, 1, (const void *[]){in}, 1, (void *[]){out});
  if (counts) /* u32 counts as floats, for the error column */
    for (size_t i = 0; i < n_out; i++)
      out[i] = (float)((uint32_t *)out)[i];
  int row = bench_row_add(t, label, s, io, bench_max_abs_err(out, ref, n_out));
  t->rows[row].c = crow;
  t->rows[row].opencv = cvrow;
  snprintf(t->rows[row].note, sizeof t->rows[row].note, "%d kernel%s",
           fg_program_kernel_count(p),
           fg_program_kernel_count(p) == 1 ? "" : "s");
  fg_program_free(p);
  fg_graph_free(g);
}

void bench_w6(fg_context *ctx) {
  const size_t n = (size_t)W6_SIZE * W6_SIZE, bytes = n * sizeof(float);
  float *in = bench_alloc(bytes), *ref = bench_alloc(bytes);
  float *out = bench_alloc(bytes), *tmp = bench_alloc(bytes);
  for (size_t i = 0; i < n; i++)
    in[i] = (float)(((uint32_t)i * 2654435761u) >> 8) / 16777216.0f;
  char title[200];
  snprintf(title, sizeof title,
           "W6 operator library on float %dx%d (%s); "
           "median of %d after %d warm-up",
           W6_SIZE, W6_SIZE, fg_context_backend_name(ctx), bench.reps,
           bench.warmup);
  bench_table t;
  bench_table_init(&t, title);
  fg_type ft = fg_type_scalar(FG_F32, fg_shape2(W6_SIZE, W6_SIZE));
  int cv = -1;
  double cs = 0; /* a peer's seconds, taken before its error */
  (void)cs;

  /* Gaussian sigma 2, radius 6 (OpenCV's 13 x 13) */
  float gw[13];
  double gsum = 0, gd[13];
  for (int i = -6; i <= 6; i++)
    gsum += gd[i + 6] = exp(-(double)i * i / 8.0);
  for (int i = 0; i < 13; i++)
    gw[i] = (float)(gd[i] / gsum);
  w6_job job = {in, tmp, ref, gw, W6_SIZE, 6, 0, NULL};
  int crow = bench_row_add(&t, "gauss C loop (2 passes)",
                           bench_median(gauss_c, &job, -1, -1), 2.0 * bytes, 0);
#ifdef BENCH_OPENCV
  cs = peer_cv_gaussian(in, out, W6_SIZE, W6_SIZE, 2.0, 6);
  cv = bench_row_add(&t, "gauss OpenCV GaussianBlur", cs, 2.0 * bytes,
                     bench_max_abs_err(out, ref, n));
  t.rows[cv].c = crow;
#endif
  fg_graph *g = fg_graph_new("w6_gauss");
  fg_output(g, "y",
            fg_gaussian_blur(g, fg_input(g, "x", ft), 2.0, 6, FG_BORDER_CLAMP));
  time_graph(&t, ctx, g, "gauss fieldgraph", in, out, ref, n, false,
             2.0 * bytes, crow, cv);
  /* the same under OpenCV's default border (edges differ from the C loop's
   * clamping, so the error column shows that, not a mistake) */
  g = fg_graph_new("w6_gauss_mirror");
  fg_output(g, "y", fg_gaussian_blur(g, fg_input(g, "x", ft), 2.0, 6,
                                     FG_BORDER_MIRROR));
  time_graph(&t, ctx, g, "gauss fieldgraph, mirror border", in, out, ref, n,
             false, 2.0 * bytes, crow, cv);
  /* each pass alone, as a 1 x 13 and a 13 x 1 convolution with the same
   * weights: where the two-kernel time goes.  The C loop left its
   * horizontal pass in tmp, the reference of the first and the input of
   * the second (whose reference is the whole blur's).  A convolution adds
   * its products in order where the blur sums mirrored pairs first: the
   * error column shows that rounding, about 2e-7. */
  g = fg_graph_new("w6_gauss_h");
  fg_output(g, "y", fg_convolve(g, fg_input(g, "x", ft), 1, 13, gw,
                                FG_BORDER_CLAMP));
  time_graph(&t, ctx, g, "gauss fieldgraph, horizontal pass", in, out, tmp,
             n, false, 2.0 * bytes, -1, -1);
  g = fg_graph_new("w6_gauss_v");
  fg_output(g, "y", fg_convolve(g, fg_input(g, "x", ft), 13, 1, gw,
                                FG_BORDER_CLAMP));
  time_graph(&t, ctx, g, "gauss fieldgraph, vertical pass", tmp, out, ref, n,
             false, 2.0 * bytes, -1, -1);

  /* 3x3 convolution */
  static const float k3[9] = {0.0625f, 0.125f,  0.0625f, 0.125f, -0.75f,
                              0.125f,  0.0625f, 0.125f,  0.0625f};
  job.w = k3;
  crow = bench_row_add(&t, "conv3x3 C loop", bench_median(conv_c, &job, -1, -1),
                       2.0 * bytes, 0);
  cv = -1;
#ifdef BENCH_OPENCV
  cs = peer_cv_filter3x3(in, out, W6_SIZE, W6_SIZE, k3);
  cv = bench_row_add(&t, "conv3x3 OpenCV filter2D", cs, 2.0 * bytes,
                     bench_max_abs_err(out, ref, n));
  t.rows[cv].c = crow;
#endif
  g = fg_graph_new("w6_conv");
  fg_output(g, "y",
            fg_convolve(g, fg_input(g, "x", ft), 3, 3, k3, FG_BORDER_CLAMP));
  time_graph(&t, ctx, g, "conv3x3 fieldgraph", in, out, ref, n, false,
             2.0 * bytes, crow, cv);

  /* bilinear resize */
  size_t nr = (size_t)W6_RESIZE * W6_RESIZE;
  double rio = (double)bytes + nr * sizeof(float);
  job.m = W6_RESIZE;
  crow = bench_row_add(&t, "resize C loop",
                       bench_median(resize_c, &job, -1, -1), rio, 0);
  cv = -1;
#ifdef BENCH_OPENCV
  cs = peer_cv_resize(in, out, W6_SIZE, W6_SIZE, W6_RESIZE, W6_RESIZE);
  cv = bench_row_add(&t, "resize OpenCV INTER_LINEAR", cs, rio,
                     bench_max_abs_err(out, ref, nr));
  t.rows[cv].c = crow;
#endif
  g = fg_graph_new("w6_resize");
  fg_output(g, "y",
            fg_resize(g, fg_input(g, "x", ft), W6_RESIZE, W6_RESIZE,
                      FG_INTERP_BILINEAR));
  time_graph(&t, ctx, g, "resize fieldgraph", in, out, ref, nr, false, rio,
             crow, cv);

  /* histogram */
  job.hist = calloc((size_t)bench.threads, sizeof *job.hist);
  crow = bench_row_add(&t, "hist C loop", bench_median(hist_c, &job, -1, -1),
                       (double)bytes, 0);
  cv = -1;
#ifdef BENCH_OPENCV
  cs = peer_cv_hist(in, (int64_t)n, W6_BINS, 0.0f, 1.0f, out);
  cv = bench_row_add(&t, "hist OpenCV calcHist", cs, (double)bytes,
                     bench_max_abs_err(out, ref, W6_BINS));
  t.rows[cv].c = crow;
#endif
  g = fg_graph_new("w6_hist");
  fg_output(g, "h", fg_histogram(g, fg_input(g, "x", ft), W6_BINS, 0, 1));
  time_graph(&t, ctx, g, "hist fieldgraph", in, out, ref, W6_BINS, true,
             (double)bytes, crow, cv);
  free(job.hist);

  /* sum over axis 0 of [64, 512, 512] (the same 64 MB) */
  job.n = 512;
  job.m = 64;
  size_t np = 512 * 512;
  double aio = (double)bytes + np * sizeof(float);
  crow = bench_row_add(&t, "axis0 sum C loop",
                       bench_median(axis_c, &job, -1, -1), aio, 0);
  cv = -1;
#ifdef BENCH_OPENCV
  cs = peer_cv_sum_rows(in, 64, (int)np, out);
  cv = bench_row_add(&t, "axis0 sum OpenCV reduce", cs, aio,
                     bench_max_abs_err(out, ref, np));
  t.rows[cv].c = crow;
#endif
  g = fg_graph_new("w6_axis");
  fg_output(
      g, "s",
      fg_reduce_axes(
          g, "sum0", FG_REDUCE_SUM,
          fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape3(64, 512, 512))),
          FG_AXIS(0), false));
  time_graph(&t, ctx, g, "axis0 sum fieldgraph", in, out, ref, np, false, aio,
             crow, cv);

  bench_table_print(&t);
  free(in);
  free(ref);
  free(out);
  free(tmp);
}
