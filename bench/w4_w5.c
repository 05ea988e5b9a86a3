/* bench/w4_w5.c - the fixed costs: W4, the time of one run of a compiled
 * 1-node graph on a 64 x 64 float field (blocking, and with 4 runs in
 * flight), next to a C loop doing the same job and Halide's realize; W5,
 * the compile time of the 8-node W1 graph with an empty kernel cache (a
 * fresh temporary directory per compile) and with a warm one. */
#define _GNU_SOURCE
#include "peers.h"
#include "workloads.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W4_SIZE 64
#define W4_BATCH 200      /* runs per timed batch */

typedef struct w4_job {
  fg_context *ctx;
  fg_program *prog;
  const float *in;
  float **out;            /* W4_BATCH outputs */
  } w4_job;

static void w4_fail(fg_context *ctx) {
  fprintf(stderr, "bench: W4: %s\n", fg_context_errmsg(ctx));
  exit(1);
}

/* Blocking runs and the C loop write one output, as Halide's realize does;
 * runs in flight need one each. */
static void w4_blocking(void *arg) {
  w4_job *j = arg;
  for (int i = 0; i < W4_BATCH; i++)
    if (fg_program_run(j->prog, 1, (const void *[]){j->in}, 1,
                       (void *[]){j->out[0]}) != FG_OK)
      w4_fail(j->ctx);
}

static void w4_async(void *arg) {
  w4_job *j = arg;
  for (int i = 0; i < W4_BATCH; i++)
    if (fg_program_start(j->prog, 1, (const void *[]){j->in}, 1,
                         (void *[]){j->out[i]}, NULL, NULL, NULL) != FG_OK)
      w4_fail(j->ctx);
  if (fg_context_wait(j->ctx) != FG_OK)
    w4_fail(j->ctx);
}

static void w4_c(void *arg) {
  w4_job *j = arg;
  for (int k = 0; k < W4_BATCH; k++) {
    float *restrict o = j->out[0];
    const float *restrict x = j->in;
    for (int i = 0; i < W4_SIZE * W4_SIZE; i++)
      o[i] = x[i] * 0.5f + 1.0f;
  }
}

void bench_w4(fg_context *ctx) {
  const int n = W4_SIZE * W4_SIZE;
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(W4_SIZE, W4_SIZE));
  fg_graph *g = fg_graph_new("w4_small");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "halfPlusOne", 1, &t);
  fg_write_tensor(op, 0, fg_addf(fg_mulf(fg_read_tensor(op, x), 0.5f), 1.0f));
  fg_output(g, "y", fg_op_end(op));
  fgb_check_graph(g, "W4 graph");
  fg_program *prog = fgb_compile(ctx, g, FG_FUSION_ON, FG_PRECISION_FULL);
  float *in = bench_alloc((size_t)n * sizeof *in);
  float *ref = bench_alloc((size_t)n * sizeof *ref);
  float **out = calloc(W4_BATCH, sizeof *out);
  if (!out)
    abort();
  for (int i = 0; i < n; i++)
    in[i] = (float)(i % 97) * 0.125f;
  for (int i = 0; i < W4_BATCH; i++)
    out[i] = bench_alloc((size_t)n * sizeof **out);
  w4_job j = {ctx, prog, in, out};
  char title[200];
  snprintf(title, sizeof title, "W4 one run of a 1-node graph, float "
           "%dx%d (%s); per run, median of %d batches of %d",
           W4_SIZE, W4_SIZE, fg_context_backend_name(ctx), bench.reps,
           W4_BATCH);
  bench_table tb;
  bench_table_init(&tb, title);
  tb.scale = 1e6;
  tb.unit = "us";
  int crow = bench_row_add(&tb, "C loop (one thread, no launch)",
                           bench_median(w4_c, &j, -1, -1) / W4_BATCH, 0, 0);
  memcpy(ref, out[0], (size_t)n * sizeof *ref);
  int hal = -1;
#ifdef BENCH_HALIDE
  double hs = peer_halide_small(in, out[0], W4_SIZE, W4_SIZE);
  hal = bench_row_add(&tb, "Halide realize (vectorized)", hs, 0,
                      bench_max_abs_err(out[0], ref, (size_t)n));
  tb.rows[hal].c = crow;
#endif
  memset(out[0], 0, (size_t)n * sizeof **out);
  double s = bench_median(w4_blocking, &j, -1, -1) / W4_BATCH;
  double err = bench_max_abs_err(out[0], ref, (size_t)n);
  memset(out[0], 0, (size_t)n * sizeof **out);
  int r = bench_row_add(&tb, "fieldgraph fg_program_run (blocking)", s, 0,
                        err);
  tb.rows[r].c = crow;
  tb.rows[r].halide = hal;
  fg_context_set_max_runs(ctx, 4);
  s = bench_median(w4_async, &j, -1, -1) / W4_BATCH;
  err = 0;
  for (int i = 0; i < W4_BATCH; i++) {
    double e = bench_max_abs_err(out[i], ref, (size_t)n);
    err = e > err ? e : err;
  }
  r = bench_row_add(&tb, "fieldgraph fg_program_start, 4 in flight", s, 0,
                    err);
  tb.rows[r].c = crow;
  tb.rows[r].halide = hal;
  bench_table_print(&tb);
  for (int i = 0; i < W4_BATCH; i++)
    free(out[i]);
  free(out);
  free(in);
  free(ref);
  fg_program_free(prog);
  fg_graph_free(g);
}

/* ---- W5 ----------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag,
                    struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

static fg_context *w5_context(fg_backend_kind kind, const char *dir) {
  fg_context_options o = {.backend = kind, .cache_dir = dir};
  fg_context *ctx;
  char err[1024];
  if (fg_context_new(&o, &ctx, err, sizeof err) != FG_OK) {
    fprintf(stderr, "bench: W5: %s\n", err);
    exit(1);
  }
  return ctx;
}

/* Seconds of one compile of g in ctx; the kernels it built into *built. */
static double w5_compile(fg_context *ctx, fg_graph *g, fg_fusion fusion,
                         uint64_t *built) {
  fg_context_stats a, b;
  fg_context_get_stats(ctx, &a);
  double t0 = bench_now();
  fg_program *p = fgb_compile(ctx, g, fusion, FG_PRECISION_FULL);
  double s = bench_now() - t0;
  fg_context_get_stats(ctx, &b);
  *built = b.kernels_compiled - a.kernels_compiled;
  fg_program_free(p);
  return s;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

void bench_w5(fg_backend_kind kind) {
  const int cold_reps = bench.reps < 3 ? bench.reps : 3;
  fg_graph *g = bench_w1_graph(4096);
  bench_table tb;
  char title[200];
  snprintf(title, sizeof title, "W5 compile of the 8-node W1 graph (%s); "
           "cold: median of %d, each in a fresh cache dir; warm: median "
           "of %d", kind == FG_BACKEND_OPENCL ? "opencl" : "cpu", cold_reps,
           bench.reps);
  bench_table_init(&tb, title);
  int unfused_rows[3] = {-1, -1, -1};     /* cold, warm, warm new context */
  for (int fu = 0; fu < 2; fu++) {
    fg_fusion fusion = fu ? FG_FUSION_ON : FG_FUSION_OFF;
    const char *name = fu ? "fused" : "unfused";
    double cold[16], warm_same[16], warm_new[16];
    uint64_t built_cold = 0, built_warm = 0, b;
    char dir[] = "/tmp/fg-bench-cacheXXXXXX";
    for (int r = 0; r < cold_reps; r++) {
      if (!mkdtemp(dir)) {
        perror("bench: W5: mkdtemp");
        exit(1);
      }
      fg_context *ctx = w5_context(kind, dir);
      cold[r] = w5_compile(ctx, g, fusion, &built_cold);
      fg_context_free(ctx);
      if (r + 1 < cold_reps) {
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        strcpy(dir + strlen(dir) - 6, "XXXXXX");
      }
    }
    /* warm: the cache directory the last cold compile filled */
    fg_context *ctx = w5_context(kind, dir);
    for (int r = 0; r < bench.reps && r < 16; r++)
      warm_same[r] = w5_compile(ctx, g, fusion, &b);
    built_warm = b;
    fg_context_free(ctx);
    for (int r = 0; r < bench.reps && r < 16; r++) {
      ctx = w5_context(kind, dir);
      warm_new[r] = w5_compile(ctx, g, fusion, &b);
      fg_context_free(ctx);
      built_warm += b;
    }
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    int nw = bench.reps < 16 ? bench.reps : 16;
    qsort(cold, (size_t)cold_reps, sizeof *cold, cmp_d);
    qsort(warm_same, (size_t)nw, sizeof *cold, cmp_d);
    qsort(warm_new, (size_t)nw, sizeof *cold, cmp_d);
    char label[64];
    snprintf(label, sizeof label, "%s cold (empty cache dir)", name);
    int r = bench_row_add(&tb, label, cold[cold_reps / 2], 0, NAN);
    snprintf(tb.rows[r].note, sizeof tb.rows[r].note,
             "%llu kernel%s built%s", (unsigned long long)built_cold,
             built_cold == 1 ? "" : "s",
             kind == FG_BACKEND_OPENCL ? "; PoCL's own cache not cleared"
                                       : "");
    snprintf(label, sizeof label, "%s warm (same context)", name);
    r = bench_row_add(&tb, label, warm_same[nw / 2], 0, NAN);
    snprintf(label, sizeof label, "%s warm (new context)", name);
    int r2 = bench_row_add(&tb, label, warm_new[nw / 2], 0, NAN);
    snprintf(tb.rows[r2].note, sizeof tb.rows[r2].note,
             "%llu kernel%s built when warm",
             (unsigned long long)built_warm, built_warm == 1 ? "" : "s");
    for (int k = 0; k < 3; k++) {          /* rows r - 1, r, r2 */
      int row = k == 0 ? r - 1 : k == 1 ? r : r2;
      if (fu)
        tb.rows[row].unfused = unfused_rows[k];
      else
        unfused_rows[k] = row;
    }
  }
  bench_table_print(&tb);
  fg_graph_free(g);
}
