/* bench/bench_rs.c - RenderScript reductions against plain C loops of the
 * same job, in one run: addint over 16M ints and histogram over a
 * 4096 x 4096 u8 image (tests/rs/reductions.rs), on $FG_BACKEND.  Reports
 * the best of 5 runs after a warm-up; checks the results.  Not a test. */
#include "fieldgraph.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "tests/rs/reductions.rs";
  char err[1024];
  fg_rs_script *s;
  fg_context *ctx;
  if (fg_rs_script_new_file(path, &s, err, sizeof err) != FG_OK ||
      fg_context_new(NULL, &ctx, err, sizeof err) != FG_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  const int64_t N = (int64_t)16 << 20, S = 4096;
  int32_t *iv = malloc(sizeof *iv * N);
  uint8_t *img = malloc((size_t)(S * S));
  for (int64_t i = 0; i < N; i++)
    iv[i] = (int32_t)((uint32_t)(i * 2654435761u) >> 8) - 1000;
  for (int64_t i = 0; i < S * S; i++)
    img[i] = (uint8_t)((i * 7 + (i >> 12) * 13) ^ (i >> 5));
  fg_graph *g = fg_graph_new("bench_rs");
  fg_field *a = fg_input(g, "ints", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_output(g, "sum", fg_rs_reduce(g, s, "addint", 1, &a, NULL));
  fg_graph *g2 = fg_graph_new("bench_rs_hist");
  fg_field *b2 = fg_input(g2, "img", fg_type_scalar(FG_U8, fg_shape2(S, S)));
  fg_output(g2, "hist", fg_rs_reduce(g2, s, "histogram", 1, &b2, NULL));
  fg_program *p1, *p2;
  if (fg_compile(ctx, g, NULL, &p1) != FG_OK ||
      fg_compile(ctx, g2, NULL, &p2) != FG_OK) {
    fprintf(stderr, "%s\n", fg_context_errmsg(ctx));
    return 1;
  }
  int32_t sum = 0;
  uint32_t hist[256];
  double best1 = 1e9, best2 = 1e9, bestc1 = 1e9, bestc2 = 1e9;
  uint32_t csum = 0;
  uint32_t ch[256];
  for (int r = 0; r < 6; r++) {
    double t0 = now();
    if (fg_program_run(p1, 1, (const void *[]){iv}, 1, (void *[]){&sum}))
      return fprintf(stderr, "%s\n", fg_context_errmsg(ctx)), 1;
    double t1 = now();
    if (fg_program_run(p2, 1, (const void *[]){img}, 1, (void *[]){hist}))
      return fprintf(stderr, "%s\n", fg_context_errmsg(ctx)), 1;
    double t2 = now();
    csum = 0;
    for (int64_t i = 0; i < N; i++)
      csum += (uint32_t)iv[i];
    double t3 = now();
    memset(ch, 0, sizeof ch);
    for (int64_t i = 0; i < S * S; i++)
      ch[img[i]]++;
    double t4 = now();
    if (r) {   /* the first run warms caches and pools */
      best1 = t1 - t0 < best1 ? t1 - t0 : best1;
      best2 = t2 - t1 < best2 ? t2 - t1 : best2;
      bestc1 = t3 - t2 < bestc1 ? t3 - t2 : bestc1;
      bestc2 = t4 - t3 < bestc2 ? t4 - t3 : bestc2;
    }
  }
  int ok = (uint32_t)sum == csum && !memcmp(hist, ch, sizeof ch);
  printf("bench_rs on %s (%s)\n", fg_context_backend_name(ctx),
         fg_context_device(ctx));
  printf("  addint    16M ints:     fieldgraph %8.2f ms   C loop %8.2f ms\n",
         best1 * 1e3, bestc1 * 1e3);
  printf("  histogram 4096x4096 u8: fieldgraph %8.2f ms   C loop %8.2f ms\n",
         best2 * 1e3, bestc2 * 1e3);
  printf("  results %s\n", ok ? "match" : "DIFFER");
  fg_program_free(p1);
  fg_program_free(p2);
  fg_context_free(ctx);
  fg_graph_free(g);
  fg_graph_free(g2);
  fg_rs_script_free(s);
  free(iv);
  free(img);
  return ok ? 0 : 1;
}
