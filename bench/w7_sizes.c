/* bench/w7_sizes.c - W7: the README pipeline (examples/lab.fgp: each photo
 * flipped and halved, its L* lightness as a grey image, its mean
 * lightness) built and compiled per image, as the fieldgraph command does,
 * over N images of N different sizes against N images of one size, each
 * series starting from an empty kernel cache in a fresh context.  The
 * images are the bundled samples cropped to the sizes at run time.  Kernel
 * sources that do not depend on the image size make the two series build
 * the same kernels, once: the ratio of their times should stay near 1
 * (target <= 1.2). */
#define _GNU_SOURCE
#include "workloads.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef BENCH_SAMPLES
#define BENCH_SAMPLES "data/samples"
#endif

enum { W7_N = 40 };

static const char *const w7_samples[] = {"chelsea.png", "coffee.png",
                                         "astronaut.png"};

/* The lab.fgp graph over a u8 RGB image of h x w. */
static fg_graph *w7_graph(int64_t h, int64_t w) {
  fg_graph *g = fg_graph_new("lab");
  fg_field *in = fg_input(g, "photo",
                          fg_type_vector(FG_U8, fg_shape2(h, w), 3));
  fg_field *rgb = fg_to_unit(g, in);
  fg_field *half = fg_binary_scalar(g, FG_OP_MUL,
                                    fg_flip(g, rgb, false, true), 0.5);
  fg_output(g, "flipped_half", fg_from_unit(g, half, FG_U8));
  fg_field *l = fg_channel(g, fg_srgb_to_lab(g, rgb), 0);
  fg_output(g, "lightness",
            fg_from_unit(g, fg_binary_scalar(g, FG_OP_DIV, l, 100), FG_U8));
  fg_output(g, "mean", fg_reduce_mean(g, l));
  fgb_check_graph(g, "W7");
  return g;
}

static int w7_rm(const char *path, const struct stat *sb, int flag,
                 struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

static int w7_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Image i of a series cropped to h x w from a bundled sample. */
typedef struct w7_image {
  int64_t h, w;
  uint8_t *px;
} w7_image;

/* Seconds to build, compile and run the graph for each of the n images,
 * in a fresh context over an empty cache directory; the kernels built
 * into *built and the mean lightness summed into *check. */
static double w7_series(fg_backend_kind kind, const w7_image *im, int n,
                        uint64_t *built, double *check) {
  char dir[] = "/tmp/fg-bench-w7XXXXXX";
  if (!mkdtemp(dir)) {
    perror("bench: W7: mkdtemp");
    exit(1);
  }
  fg_context_options o = {.backend = kind, .cache_dir = dir};
  fg_context *ctx;
  char err[1024];
  if (fg_context_new(&o, &ctx, err, sizeof err) != FG_OK) {
    fprintf(stderr, "bench: W7: %s\n", err);
    exit(1);
  }
  fg_context_stats a, b;
  fg_context_get_stats(ctx, &a);
  *check = 0;
  double t0 = bench_now();
  for (int i = 0; i < n; i++) {
    fg_graph *g = w7_graph(im[i].h, im[i].w);
    fg_program *p = fgb_compile(ctx, g, FG_FUSION_ON, FG_PRECISION_FULL);
    size_t np = (size_t)(im[i].h * im[i].w);
    uint8_t *o1 = malloc(np * 3), *o2 = malloc(np);
    float mean = 0;
    if (!o1 || !o2) {
      fprintf(stderr, "bench: W7: out of memory\n");
      exit(1);
    }
    int i1 = fg_program_output_index(p, "flipped_half");
    int i2 = fg_program_output_index(p, "lightness");
    int i3 = fg_program_output_index(p, "mean");
    void *out[3];
    out[i1] = o1, out[i2] = o2, out[i3] = &mean;
    if (fg_program_run(p, 1, (const void *const[]){im[i].px}, 3, out) !=
        FG_OK) {
      fprintf(stderr, "bench: W7: %s\n", fg_context_errmsg(ctx));
      exit(1);
    }
    *check += mean;
    free(o1);
    free(o2);
    fg_program_free(p);
    fg_graph_free(g);
  }
  double s = bench_now() - t0;
  fg_context_get_stats(ctx, &b);
  *built = b.kernels_compiled - a.kernels_compiled;
  fg_context_free(ctx);
  nftw(dir, w7_rm, 16, FTW_DEPTH | FTW_PHYS);
  return s;
}

/* Crops sample s (loaded) at its top left to h x w into a new image. */
static w7_image w7_crop(const fg_image *s, int64_t h, int64_t w) {
  w7_image im = {h, w, malloc((size_t)(h * w * 3))};
  if (!im.px) {
    fprintf(stderr, "bench: W7: out of memory\n");
    exit(1);
  }
  for (int64_t r = 0; r < h; r++)
    for (int64_t c = 0; c < w; c++)
      for (int k = 0; k < 3; k++)
        im.px[(r * w + c) * 3 + k] =
            s->data[((size_t)r * (size_t)s->width + (size_t)c) *
                        (size_t)s->channels +
                    (size_t)(k < s->channels ? k : 0)];
  return im;
}

void bench_w7(fg_backend_kind kind) {
  fg_image smp[3];
  char err[512];
  for (int k = 0; k < 3; k++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", BENCH_SAMPLES, w7_samples[k]);
    if (fg_image_read(path, &smp[k], err, sizeof err) != FG_OK) {
      fprintf(stderr, "bench: W7: %s\n", err);
      exit(1);
    }
  }
  /* 40 sizes between 160 x 200 and 296 x 446 (all fit every sample), and
   * 40 images of the middle size (about the same pixels in all) from the
   * same samples */
  w7_image var[W7_N], same[W7_N];
  for (int i = 0; i < W7_N; i++) {
    const fg_image *s = &smp[i % 3];
    var[i] = w7_crop(s, 160 + (int64_t)i * 136 / (W7_N - 1),
                     200 + (int64_t)i * 246 / (W7_N - 1));
  }
  for (int i = 0; i < W7_N; i++)
    same[i] = w7_crop(&smp[i % 3], var[W7_N / 2].h, var[W7_N / 2].w);
  enum { W7_REPS_MAX = 9 };
  int reps = bench.reps < 1 ? 1 : bench.reps > W7_REPS_MAX ? W7_REPS_MAX
                                                           : bench.reps;
  bench_table tb;
  char title[200];
  snprintf(title, sizeof title, "W7 lab.fgp per image (graph, compile, run), "
           "%d images (%s), empty cache per series, median of %d", W7_N,
           kind == FG_BACKEND_OPENCL ? "opencl" : "cpu", reps);
  bench_table_init(&tb, title);
  uint64_t built_same = 0, built_var = 0;
  double chk_same = 0, chk_var = 0;
  /* a throwaway series first (the process's first compiles pay for
   * loading the toolchain), then the two series alternately, medians */
  (void)w7_series(kind, same, 1, &built_same, &chk_same);
  double ts[W7_REPS_MAX], tv[W7_REPS_MAX];
  for (int k = 0; k < reps; k++) {
    ts[k] = w7_series(kind, same, W7_N, &built_same, &chk_same);
    tv[k] = w7_series(kind, var, W7_N, &built_var, &chk_var);
  }
  qsort(ts, (size_t)reps, sizeof *ts, w7_cmp);
  qsort(tv, (size_t)reps, sizeof *tv, w7_cmp);
  double t_same = ts[reps / 2], t_var = tv[reps / 2];
  char label[48];
  snprintf(label, sizeof label, "one size (%lld x %lld)",
           (long long)same[0].h, (long long)same[0].w);
  int r = bench_row_add(&tb, label, t_same, 0, NAN);
  snprintf(tb.rows[r].note, sizeof tb.rows[r].note, "%llu kernel builds",
           (unsigned long long)built_same);
  r = bench_row_add(&tb, "40 sizes (160x200..296x446)", t_var, 0, NAN);
  snprintf(tb.rows[r].note, sizeof tb.rows[r].note,
           "%llu kernel builds; %.2fx one size",
           (unsigned long long)built_var, t_var / t_same);
  bench_table_print(&tb);
  printf("     W7 sizes/one-size time ratio %.3f (target <= 1.2); kernel "
         "builds %llu vs %llu; mean lightness sums %.3f, %.3f\n",
         t_var / t_same, (unsigned long long)built_var,
         (unsigned long long)built_same, chk_var, chk_same);
  for (int i = 0; i < W7_N; i++) {
    free(var[i].px);
    free(same[i].px);
  }
  for (int k = 0; k < 3; k++)
    fg_image_free(&smp[k]);
}
