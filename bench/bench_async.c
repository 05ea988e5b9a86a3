/* bench/bench_async.c - throughput of asynchronous runs: a batch of 256
 * runs of a small pipeline (512 x 512: scale, 3x3 box blur, add, and the
 * sum of the scaled field) with 1, 2 and 4 runs in flight, on the CPU
 * backend and, when a device exists, on OpenCL; one table, speed-ups
 * relative to one run at a time measured in the same process.  A
 * benchmark, never a test.
 *
 *   bench_async [SIZE] [RUNS]
 */
#include "fieldgraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static fg_graph *pipeline(int64_t size) {
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(size, size));
  fg_graph *g = fg_graph_new("small");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "scale", 1, &t);
  fg_write_tensor(op, 0, fg_addf(fg_mulf(fg_read_tensor(op, x), 0.5f), 1.0f));
  fg_field *y = fg_op_end(op);
  op = fg_op_begin(g, "blur", 1, &t);
  fg_expr *acc = fg_var(op, FG_F32, 1);
  fg_assign(acc, fg_float(op, 0.0f));
  for (int dr = -1; dr <= 1; dr++)
    for (int dc = -1; dc <= 1; dc++) {
      fg_expr *r = fg_clamp(fg_addi(fg_row(op), dr), fg_int(op, 0),
                            fg_subi(fg_rows(op), 1));
      fg_expr *c = fg_clamp(fg_addi(fg_column(op), dc), fg_int(op, 0),
                            fg_subi(fg_columns(op), 1));
      fg_assign(acc, fg_add(acc, fg_read_tensor_at(op, y, 2, r, c)));
    }
  fg_write_tensor(op, 0, fg_divf(acc, 9.0f));
  fg_field *b = fg_op_end(op);
  op = fg_op_begin(g, "add", 1, &t);
  fg_write_tensor(op, 0, fg_add(fg_read_tensor(op, b), fg_read_tensor(op, x)));
  fg_output(g, "out", fg_op_end(op));
  fg_output(g, "sum", fg_reduce(g, "sum", FG_REDUCE_SUM, y));
  return g;
}

static int failures;

static void on_done(fg_run *run, fg_status st, void *user) {
  (void)user;
  if (st != FG_OK) {
    fprintf(stderr, "bench_async: %s\n", fg_run_errmsg(run));
    failures++;
  }
}

/* Seconds for `runs` runs with at most `inflight` at once. */
static double batch(fg_context *ctx, fg_program *p, const float *in,
                    float **out, float *sums, int runs, int inflight) {
  fg_context_set_max_runs(ctx, inflight);
  double t0 = now();
  for (int i = 0; i < runs; i++)
    if (fg_program_start(p, 1, (const void *[]){in}, 2,
                         (void *[]){out[i], &sums[i]}, on_done, NULL,
                         NULL) != FG_OK) {
      fprintf(stderr, "bench_async: %s\n", fg_context_errmsg(ctx));
      exit(1);
    }
  fg_context_wait(ctx);
  return now() - t0;
}

static void bench_backend(fg_backend_kind kind, const char *label,
                          int64_t size, int runs) {
  fg_context_options opt = {.backend = kind};
  fg_context *ctx;
  char err[1024];
  if (fg_context_new(&opt, &ctx, err, sizeof err) != FG_OK) {
    printf("%-8s (not available: %s)\n", label, err);
    return;
  }
  fg_graph *g = pipeline(size);
  fg_program *p;
  if (fg_compile(ctx, g, NULL, &p) != FG_OK) {
    fprintf(stderr, "bench_async: %s\n", fg_context_errmsg(ctx));
    exit(1);
  }
  size_t n = (size_t)(size * size);
  float *in = malloc(n * sizeof *in);
  float **out = calloc((size_t)runs, sizeof *out);
  float *sums = calloc((size_t)runs, sizeof *sums);
  for (size_t i = 0; i < n; i++)
    in[i] = (float)(i % 251) / 251.0f;
  for (int i = 0; i < runs; i++) {
    out[i] = malloc(n * sizeof **out);
    memset(out[i], 0, n * sizeof **out);      /* fault the pages in now */
  }
  batch(ctx, p, in, out, sums, 8, 4);          /* warm-up: buffers, caches */
  static const int flights[] = {1, 2, 4};
  double base = 0;
  for (int k = 0; k < 3; k++) {
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
      double t = batch(ctx, p, in, out, sums, runs, flights[k]);
      best = t < best ? t : best;
    }
    if (k == 0)
      base = best;
    printf("%-8s %9d %10.1f %12.3f %10.2fx\n", label, flights[k],
           runs / best, best * 1e3 / runs, base / best);
  }
  for (int i = 1; i < runs; i++)
    if (memcmp(out[i], out[0], n * sizeof **out) || sums[i] != sums[0]) {
      fprintf(stderr, "bench_async: run %d computed something else\n", i);
      failures++;
      break;
    }
  for (int i = 0; i < runs; i++)
    free(out[i]);
  free(out);
  free(sums);
  free(in);
  fg_program_free(p);
  fg_graph_free(g);
  fg_context_free(ctx);
}

int main(int argc, char **argv) {
  int64_t size = argc > 1 ? atoll(argv[1]) : 512;
  int runs = argc > 2 ? atoi(argv[2]) : 256;
  if (size < 3 || runs < 1) {
    fprintf(stderr, "usage: bench_async [SIZE >= 3] [RUNS >= 1]\n");
    return 2;
  }
  printf("async runs: %d runs of scale+blur+add+sum on %lldx%lld f32 (best "
         "of 3 batches)\n", runs, (long long)size, (long long)size);
  printf("%-8s %9s %10s %12s %11s\n", "backend", "in flight", "runs/s",
         "ms per run", "vs 1");
  bench_backend(FG_BACKEND_CPU, "cpu", size, runs);
  bench_backend(FG_BACKEND_OPENCL, "opencl", size, runs);
  return failures ? 1 : 0;
}
