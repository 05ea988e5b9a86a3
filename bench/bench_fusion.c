/* bench/bench_fusion.c - what fusion buys: an 8-operator pointwise chain
 * on a 4096 x 4096 float4 field, compiled fused and unfused, timed in one
 * run (best of N) on the default backend; prints both and their ratio,
 * with the memory traffic each moves.  A benchmark, never a test.
 *
 *   bench_fusion [SIZE] [REPEATS]
 */
#include "fieldgraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Operator i of the chain: alternately scale, offset, clamp and mix. */
static fg_field *step(fg_graph *g, fg_field *in, int i) {
  char name[32];
  snprintf(name, sizeof name, "op%d", i);
  fg_type t = fg_field_type(in);
  fg_op *op = fg_op_begin(g, name, 1, &t);
  fg_expr *x = fg_read_tensor(op, in);
  fg_expr *y;
  switch (i % 4) {
  case 0: y = fg_mulf(x, 1.001f); break;
  case 1: y = fg_addf(x, 0.5f); break;
  case 2: y = fg_clamp(x, fg_float(op, -100.0f), fg_float(op, 100.0f)); break;
  default: y = fg_mix(x, fg_mul(x, x), fg_float(op, 0.25f)); break;
  }
  fg_write_tensor(op, 0, y);
  return fg_op_end(op);
}

/* Best time of repeats runs of prog. */
static double best_of(fg_context *ctx, fg_program *prog, const float *in,
                      float *out, int repeats) {
  double best = 1e30;
  for (int r = 0; r < repeats; r++) {
    double t0 = now();
    if (fg_program_run(prog, 1, (const void *[]){in}, 1, (void *[]){out}) !=
        FG_OK) {
      fprintf(stderr, "bench_fusion: %s\n", fg_context_errmsg(ctx));
      exit(1);
    }
    double t = now() - t0;
    best = t < best ? t : best;
  }
  return best;
}

int main(int argc, char **argv) {
  int64_t size = argc > 1 ? atoll(argv[1]) : 4096;
  int repeats = argc > 2 ? atoi(argv[2]) : 5;
  fg_type t = fg_type_vector(FG_F32, fg_shape2(size, size), 4);
  fg_graph *g = fg_graph_new("chain");
  fg_field *f = fg_input(g, "in", t);
  for (int i = 0; i < 8; i++)
    f = step(g, f, i);
  fg_output(g, "out", f);
  size_t n = fg_type_bytes(t) / sizeof(float);
  float *in = malloc(n * sizeof *in), *a = malloc(n * sizeof *a);
  float *b = malloc(n * sizeof *b);
  if (!in || !a || !b)
    return 1;
  for (size_t i = 0; i < n; i++)
    in[i] = (float)(i % 977) * 0.01f - 3.0f;
  fg_context *ctx;
  char err[512];
  if (fg_context_new(NULL, &ctx, err, sizeof err) != FG_OK) {
    fprintf(stderr, "bench_fusion: %s\n", err);
    return 1;
  }
  fg_program *fused, *unfused;
  fg_compile_options on = {.fusion = FG_FUSION_ON};
  fg_compile_options off = {.fusion = FG_FUSION_OFF};
  if (fg_compile(ctx, g, &on, &fused) != FG_OK ||
      fg_compile(ctx, g, &off, &unfused) != FG_OK) {
    fprintf(stderr, "bench_fusion: %s\n", fg_context_errmsg(ctx));
    return 1;
  }
  double tu = best_of(ctx, unfused, in, b, repeats);
  double tf = best_of(ctx, fused, in, a, repeats);
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) {
      fprintf(stderr, "bench_fusion: fused and unfused differ at %zu\n", i);
      return 1;
    }
  fg_fusion_stats sf, su;
  fg_program_fusion_stats(fused, &sf);
  fg_program_fusion_stats(unfused, &su);
  printf("8-operator pointwise chain on a %lldx%lld float4 field, best of %d "
         "(%s)\n", (long long)size, (long long)size, repeats,
         fg_context_device(ctx));
  printf("  %-10s %8s %8s %12s %9s\n", "", "kernels", "ms", "MB moved",
         "GB/s");
  printf("  %-10s %8d %8.1f %12.0f %9.2f\n", "unfused", su.kernels, tu * 1e3,
         (double)su.bytes / 1e6, (double)su.bytes / tu / 1e9);
  printf("  %-10s %8d %8.1f %12.0f %9.2f\n", "fused", sf.kernels, tf * 1e3,
         (double)sf.bytes / 1e6, (double)sf.bytes / tf / 1e9);
  printf("fused speedup: %.2fx\n", tu / tf);
  fg_program_free(fused);
  fg_program_free(unfused);
  fg_context_free(ctx);
  fg_graph_free(g);
  free(in);
  free(a);
  free(b);
  return 0;
}
