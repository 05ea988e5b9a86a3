/* bench/bench_half.c - speed of Cog's `half` on a 4096 x 4096 float field
 * on the CPU backend, next to a multithreaded memcpy of the same bytes and
 * a plain multithreaded C loop doing the same job, measured in one run and
 * reported as ratios (a benchmark, never a test: nothing here fails
 * because a machine is slow).
 *
 *   bench_half [SIZE] [REPEATS]
 */
#include "fieldgraph.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct job {
  const float *src;
  float *dst;
  size_t n;
  int copy;     /* 1: memcpy, 0: dst = src / 2 */
} job;

static void *work(void *arg) {
  job *j = arg;
  if (j->copy) {
    memcpy(j->dst, j->src, j->n * sizeof(float));
  } else {
    const float *restrict s = j->src;
    float *restrict d = j->dst;
    for (size_t i = 0; i < j->n; i++)
      d[i] = s[i] / 2.0f;
  }
  return NULL;
}

/* Runs the copy or the loop on nthreads threads; returns seconds. */
static double threaded(const float *src, float *dst, size_t n, int nthreads,
                       int copy) {
  pthread_t t[64];
  job j[64];
  size_t chunk = (n + (size_t)nthreads - 1) / (size_t)nthreads;
  double t0 = now();
  for (int i = 0; i < nthreads; i++) {
    size_t a = (size_t)i * chunk, b = a + chunk < n ? a + chunk : n;
    j[i] = (job){src + a, dst + a, b > a ? b - a : 0, copy};
    pthread_create(&t[i], NULL, work, &j[i]);
  }
  for (int i = 0; i < nthreads; i++)
    pthread_join(t[i], NULL);
  return now() - t0;
}

int main(int argc, char **argv) {
  int64_t size = argc > 1 ? atoll(argv[1]) : 4096;
  int repeats = argc > 2 ? atoi(argv[2]) : 10;
  size_t n = (size_t)(size * size);
  int nthreads = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (nthreads < 1 || nthreads > 64)
    nthreads = nthreads < 1 ? 1 : 64;
  float *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
  if (!src || !dst)
    return 1;
  for (size_t i = 0; i < n; i++)
    src[i] = (float)(i % 1000);
  memset(dst, 0, n * sizeof *dst);

  fg_graph *g = fg_graph_new("bench");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape2(size, size)));
  fg_op *op = fg_op_begin(g, "half", 1, (fg_type[]){fg_field_type(in)});
  fg_write_tensor(op, 0, fg_divf(fg_read_tensor(op, in), 2.0f));
  fg_output(g, "out", fg_op_end(op));
  fg_context *ctx;
  fg_program *prog;
  char err[512];
  if (fg_context_new(NULL, &ctx, err, sizeof err) != FG_OK) {
    fprintf(stderr, "bench_half: %s\n", err);
    return 1;
  }
  if (fg_compile(ctx, g, NULL, &prog) != FG_OK) {
    fprintf(stderr, "bench_half: %s\n", fg_context_errmsg(ctx));
    return 1;
  }
  double best_copy = 1e9, best_loop = 1e9, best_fg = 1e9;
  for (int r = 0; r < repeats; r++) {
    double t = threaded(src, dst, n, nthreads, 1);
    best_copy = t < best_copy ? t : best_copy;
    t = threaded(src, dst, n, nthreads, 0);
    best_loop = t < best_loop ? t : best_loop;
    double t0 = now();
    if (fg_program_run(prog, 1, (const void *[]){src}, 1,
                       (void *[]){dst}) != FG_OK) {
      fprintf(stderr, "bench_half: %s\n", fg_context_errmsg(ctx));
      return 1;
    }
    t = now() - t0;
    best_fg = t < best_fg ? t : best_fg;
  }
  for (size_t i = 0; i < n; i += 4099)
    if (dst[i] != src[i] / 2.0f) {
      fprintf(stderr, "bench_half: wrong result at %zu\n", i);
      return 1;
    }
  double gb = 2.0 * (double)n * sizeof(float) / 1e9;   /* read + write */
  printf("half on a %lldx%lld f32 field, %d threads, best of %d runs "
         "(%s)\n", (long long)size, (long long)size, nthreads, repeats,
         fg_context_device(ctx));
  printf("  %-28s %9s %9s %s\n", "", "ms", "GB/s", "vs memcpy");
  printf("  %-28s %9.2f %9.2f %9.2f\n", "memcpy (threaded)", best_copy * 1e3,
         gb / best_copy, 1.0);
  printf("  %-28s %9.2f %9.2f %9.2f\n", "plain C loop (threaded)",
         best_loop * 1e3, gb / best_loop, best_copy / best_loop);
  printf("  %-28s %9.2f %9.2f %9.2f\n", "fieldgraph cpu backend",
         best_fg * 1e3, gb / best_fg, best_copy / best_fg);
  printf("ratio fieldgraph/memcpy bandwidth: %.2f\n", best_copy / best_fg);
  fg_program_free(prog);
  fg_context_free(ctx);
  fg_graph_free(g);
  free(src);
  free(dst);
  return 0;
}
