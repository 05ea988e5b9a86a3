/* bench/w3_reduce.c - W3: reductions over 16M elements: the sum of u8
 * values (widened to u32 by a pointwise operator that fuses into the
 * reduction), the sum of f32 values, dot = sum(a * b) in full and relaxed
 * precision, and min + max of u8 values, without location (two built-in
 * fg_reduce siblings) and with location (fg_reduce_loc, the built-in
 * arg-min/arg-max, as RenderScript's findMinAndMax finds them), and mean +
 * variance of f32 values in one graph (sum(x) and sum(x * x) as sibling
 * reductions, then mean = s / n and variance = q / n - mean^2 on the 0-D
 * results).  Next to threaded C loops (`omp simd` where floats need
 * reassociation to vectorize; mean + variance in one pass) and cv::sum,
 * Mat::dot, cv::minMaxLoc, cv::meanStdDev. */
#include "peers.h"
#include "workloads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W3_N ((int64_t)16 << 20)

/* ---- C loops: each thread reduces its slice, then the slices in order -- */

typedef struct w3_job {
  const uint8_t *u8;
  const float *a, *b;
  int kind;                 /* 0 sum u8, 1 sum f32, 2 dot, 3 min/max loc,
                               4 sum and sum of squares of f32 */
  double part[64], part2[64]; /* per-thread results */
  int64_t minat[64], maxat[64];
  int minv[64], maxv[64];
} w3_job;

static void w3_slice(void *ctx, int64_t begin, int64_t end, int th) {
  w3_job *j = ctx;
  if (j->kind == 0) {
    uint32_t s = 0;
    const uint8_t *x = j->u8;
#pragma omp simd reduction(+ : s)
    for (int64_t i = begin; i < end; i++)
      s += x[i];
    j->part[th] = s;
  } else if (j->kind == 1) {
    float s = 0;
    const float *x = j->a;
#pragma omp simd reduction(+ : s)
    for (int64_t i = begin; i < end; i++)
      s += x[i];
    j->part[th] = s;
  } else if (j->kind == 2) {
    float s = 0;
    const float *x = j->a, *y = j->b;
#pragma omp simd reduction(+ : s)
    for (int64_t i = begin; i < end; i++)
      s += x[i] * y[i];
    j->part[th] = s;
  } else if (j->kind == 4) {
    double s = 0, q = 0;
    const float *x = j->a;
#pragma omp simd reduction(+ : s, q)
    for (int64_t i = begin; i < end; i++) {
      s += x[i];
      q += (double)x[i] * x[i];
    }
    j->part[th] = s;
    j->part2[th] = q;
  } else {
    /* per block of 4096 the extremes (vectorized); remember the first
     * block that improved each, then find the first index inside it */
    const uint8_t *x = j->u8;
    uint8_t lo = 255, hi = 0;
    int64_t lob = -1, hib = -1;
    for (int64_t b = begin; b < end; b += 4096) {
      int64_t e = b + 4096 < end ? b + 4096 : end;
      uint8_t bl = 255, bh = 0;
#pragma omp simd reduction(min : bl) reduction(max : bh)
      for (int64_t i = b; i < e; i++) {
        bl = x[i] < bl ? x[i] : bl;
        bh = x[i] > bh ? x[i] : bh;
      }
      if (bl < lo || lob < 0)
        lo = bl, lob = b;
      if (bh > hi || hib < 0)
        hi = bh, hib = b;
    }
    int64_t mi = -1, ma = -1;
    for (int64_t i = lob; mi < 0 && i >= 0 && i < end; i++)
      if (x[i] == lo)
        mi = i;
    for (int64_t i = hib; ma < 0 && i >= 0 && i < end; i++)
      if (x[i] == hi)
        ma = i;
    j->minv[th] = lo;
    j->maxv[th] = hi;
    j->minat[th] = mi;
    j->maxat[th] = ma;
  }
}

static void w3_c(void *ctx) { bench_parallel(W3_N, w3_slice, ctx); }

static double w3_sum_parts(const w3_job *j) {
  if (j->kind == 0) {
    uint32_t s = 0;
    for (int i = 0; i < bench.threads; i++)
      s += (uint32_t)j->part[i];
    return s;
  }
  float s = 0;
  for (int i = 0; i < bench.threads; i++)
    s += (float)j->part[i];
  return s;
}

/* min, its first index, max, its first index over the slices */
static void w3_minmax_parts(const w3_job *j, int r[4]) {
  int64_t at[2] = {-1, -1};
  int v[2] = {256, -1};
  for (int i = 0; i < bench.threads; i++) {
    if (j->minat[i] >= 0 && j->minv[i] < v[0])
      v[0] = j->minv[i], at[0] = j->minat[i];
    if (j->maxat[i] >= 0 && j->maxv[i] > v[1])
      v[1] = j->maxv[i], at[1] = j->maxat[i];
  }
  r[0] = v[0], r[1] = (int)at[0], r[2] = v[1], r[3] = (int)at[1];
}

/* ---- the table ---------------------------------------------------------- */

typedef struct w3_ctx {
  fg_context *ctx;
  bench_table *t;
} w3_ctx;

/* Times a graph whose output 0 is a 0-D result of out_size bytes, fused
 * and (when both) unfused, adding rows; value receives the fused result.
 * Returns the fused row. */
static int time_rows(w3_ctx *w, fg_graph *g, const char *what, fg_precision p,
                   int both, const void *const *in, int n_in, void *value,
                   double (*get)(const void *), double ref, double bytes,
                   int crow, int cvrow) {
  int rows[2] = {-1, -1};
  char buf[64];
  for (int fu = 0; fu < 1 + both; fu++) {
    fg_fusion fusion = fu ? FG_FUSION_OFF : FG_FUSION_ON;
    fg_program *prog = fgb_compile(w->ctx, g, fusion, p);
    int n_out = fg_program_output_count(prog);
    unsigned char scratch[4][64];
    void *outs[4] = {value, scratch[1], scratch[2], scratch[3]};
    double s = fgb_time(w->ctx, prog, n_in, in, n_out, outs);
    snprintf(buf, sizeof buf, "fieldgraph %s%s%s", what,
             !both ? "" : fu ? " unfused" : " fused",
             p == FG_PRECISION_RELAXED ? " relaxed" : "");
    rows[fu] = bench_row_add(w->t, buf, s, bytes, fabs(get(value) - ref));
    bench_row *r = &w->t->rows[rows[fu]];
    r->c = crow;
    r->opencv = cvrow;
    if (both)
      snprintf(r->note, sizeof r->note, "%d kernel%s",
               fg_program_kernel_count(prog),
               fg_program_kernel_count(prog) == 1 ? "" : "s");
    fg_program_free(prog);
  }
  if (both)
    w->t->rows[rows[0]].unfused = rows[1];
  return rows[0];
}

static double get_u32(const void *p) { return *(const uint32_t *)p; }
static double get_f32(const void *p) { return *(const float *)p; }

void bench_w3(fg_context *ctx) {
  const int64_t n = W3_N;
  uint8_t *u8 = bench_alloc((size_t)n);
  float *a = bench_alloc((size_t)n * sizeof(float));
  float *b = bench_alloc((size_t)n * sizeof(float));
  for (int64_t i = 0; i < n; i++) {
    uint32_t h = (uint32_t)i * 2654435761u;
    u8[i] = (uint8_t)(16 + (h >> 24) % 200);     /* min 16, max 215 */
    a[i] = (float)(h >> 8) / 16777216.0f;
    b[i] = (float)((h >> 4) & 0xffff) / 65536.0f - 0.25f;
  }
  u8[n / 3] = 3;           /* unique extremes away from the ends */
  u8[2 * n / 3] = 250;
  char title[200];
  snprintf(title, sizeof title, "W3 reductions over %lldM elements (%s); "
           "median of %d after %d warm-up; err: |result - C loop|",
           (long long)(n >> 20), fg_context_backend_name(ctx), bench.reps,
           bench.warmup);
  bench_table t;
  bench_table_init(&t, title);
  w3_ctx w = {ctx, &t};
  w3_job *job = calloc(1, sizeof *job);
  if (!job)
    abort();
  job->u8 = u8;
  job->a = a;
  job->b = b;
  fg_shape shape = fg_shape1(n);

  /* sum u8 */
  job->kind = 0;
  double s = bench_median(w3_c, job, -1, -1);
  double ref = w3_sum_parts(job);
  int crow = bench_row_add(&t, "sum u8: C loop (omp simd, threads)", s,
                           (double)n, 0);
  int cvrow = -1;
#ifdef BENCH_OPENCV
  {
    double v;
    cvrow = bench_row_add(&t, "sum u8: cv::sum", peer_cv_sum_u8(u8, n, &v),
                          (double)n, 0);
    t.rows[cvrow].err = fabs(v - ref);
    t.rows[cvrow].c = crow;
  }
#endif
  {
    fg_graph *g = fg_graph_new("w3_sum_u8");
    fg_field *x = fg_input(g, "x", fg_type_scalar(FG_U8, shape));
    fg_type tu = fg_type_scalar(FG_U32, shape);
    fg_op *op = fg_op_begin(g, "widen", 1, &tu);
    fg_write_tensor(op, 0, fg_convert(fg_read_tensor(op, x), FG_U32, 1));
    fg_output(g, "sum", fg_reduce(g, "sum", FG_REDUCE_SUM, fg_op_end(op)));
    fgb_check_graph(g, "W3 sum u8");
    uint32_t v;
    time_rows(&w, g, "sum u8", FG_PRECISION_FULL, 1, (const void *[]){u8}, 1,
            &v, get_u32, ref, (double)n, crow, cvrow);
    fg_graph_free(g);
  }

  /* sum f32 */
  job->kind = 1;
  s = bench_median(w3_c, job, -1, -1);
  ref = w3_sum_parts(job);
  crow = bench_row_add(&t, "sum f32: C loop (omp simd, threads)", s,
                       (double)n * 4, 0);
  cvrow = -1;
#ifdef BENCH_OPENCV
  {
    double v;
    cvrow = bench_row_add(&t, "sum f32: cv::sum", peer_cv_sum_f32(a, n, &v),
                          (double)n * 4, 0);
    t.rows[cvrow].err = fabs(v - ref);
    t.rows[cvrow].c = crow;
    snprintf(t.rows[cvrow].note, sizeof t.rows[cvrow].note,
             "sums in double");
  }
#endif
  {
    fg_graph *g = fg_graph_new("w3_sum_f32");
    fg_field *x = fg_input(g, "x", fg_type_scalar(FG_F32, shape));
    fg_output(g, "sum", fg_reduce(g, "sum", FG_REDUCE_SUM, x));
    fgb_check_graph(g, "W3 sum f32");
    float v;
    for (int p = 0; p < 2; p++)
      time_rows(&w, g, "sum f32", p ? FG_PRECISION_RELAXED : FG_PRECISION_FULL,
              0, (const void *[]){a}, 1, &v, get_f32, ref, (double)n * 4,
              crow, cvrow);
    /* OpenCL: the field kept on the device */
    int dr = fgb_device_row(&t, ctx, g, "sum f32", FG_FUSION_ON,
                            FG_PRECISION_FULL, crow, a, &v);
    if (dr >= 0)
      t.rows[dr].err = fabs(v - ref);
    fg_graph_free(g);
  }

  /* dot */
  job->kind = 2;
  s = bench_median(w3_c, job, -1, -1);
  ref = w3_sum_parts(job);
  crow = bench_row_add(&t, "dot f32: C loop (omp simd, threads)", s,
                       (double)n * 8, 0);
  cvrow = -1;
#ifdef BENCH_OPENCV
  {
    double v;
    cvrow = bench_row_add(&t, "dot f32: cv Mat::dot", peer_cv_dot(a, b, n, &v),
                          (double)n * 8, 0);
    t.rows[cvrow].err = fabs(v - ref);
    t.rows[cvrow].c = crow;
    snprintf(t.rows[cvrow].note, sizeof t.rows[cvrow].note,
             "sums in double");
  }
#endif
  {
    fg_graph *g = fg_graph_new("w3_dot");
    fg_type tf = fg_type_scalar(FG_F32, shape);
    fg_field *x = fg_input(g, "a", tf), *y = fg_input(g, "b", tf);
    fg_op *op = fg_op_begin(g, "mul", 1, &tf);
    fg_write_tensor(op, 0,
                    fg_mul(fg_read_tensor(op, x), fg_read_tensor(op, y)));
    fg_output(g, "dot", fg_reduce(g, "dot", FG_REDUCE_SUM, fg_op_end(op)));
    fgb_check_graph(g, "W3 dot");
    float v;
    for (int p = 0; p < 2; p++)
      time_rows(&w, g, "dot f32", p ? FG_PRECISION_RELAXED : FG_PRECISION_FULL,
              1, (const void *[]){a, b}, 2, &v, get_f32, ref, (double)n * 8,
              crow, cvrow);
    fg_graph_free(g);
  }
  /* min + max, u8 */
  job->kind = 3;
  s = bench_median(w3_c, job, -1, -1);
  int mm[4];
  w3_minmax_parts(job, mm);
  crow = bench_row_add(&t, "min+max u8: C loop (simd blocks)", s, (double)n,
                       0);
  if (mm[0] != 3 || mm[1] != n / 3 || mm[2] != 250 || mm[3] != 2 * n / 3) {
    fprintf(stderr, "bench: W3 C min/max loop is wrong\n");
    exit(1);
  }
  cvrow = -1;
  int cvloc = -1;
#ifdef BENCH_OPENCV
  for (int loc = 0; loc < 2; loc++) {
    double lo, hi;
    int64_t at[2] = {-1, -1};
    double sec = peer_cv_minmax_u8(u8, n, loc, &lo, &hi, &at[0], &at[1]);
    int r = bench_row_add(&t, loc ? "min+max u8: cv::minMaxLoc with loc"
                                  : "min+max u8: cv::minMaxLoc no loc",
                          sec, (double)n, 0);
    int bad = lo != mm[0] || hi != mm[2] ||
              (loc && (at[0] != mm[1] || at[1] != mm[3]));
    t.rows[r].err = bad ? INFINITY : 0;
    t.rows[r].c = crow;
    if (loc)
      cvloc = r;
    else
      cvrow = r;
  }
#endif
  {
    fg_graph *g = fg_graph_new("w3_minmax");
    fg_field *x = fg_input(g, "x", fg_type_scalar(FG_U8, shape));
    fg_output(g, "min", fg_reduce(g, "min", FG_REDUCE_MIN, x));
    fg_output(g, "max", fg_reduce(g, "max", FG_REDUCE_MAX, x));
    fgb_check_graph(g, "W3 min/max");
    fg_program *prog = fgb_compile(ctx, g, FG_FUSION_ON, FG_PRECISION_FULL);
    uint8_t lo = 0, hi = 0;
    double sec = fgb_time(ctx, prog, 1, (const void *[]){u8}, 2,
                          (void *[]){&lo, &hi});
    int r = bench_row_add(&t, "min+max u8: fieldgraph fg_reduce", sec,
                          (double)n, lo != mm[0] || hi != mm[2] ? INFINITY
                                                                : 0);
    t.rows[r].c = crow;
    t.rows[r].opencv = cvrow;
    snprintf(t.rows[r].note, sizeof t.rows[r].note,
             "no location; %d kernel%s", fg_program_kernel_count(prog),
             fg_program_kernel_count(prog) == 1 ? "" : "s");
    fg_program_free(prog);
    fg_graph_free(g);
  }
  {
    fg_graph *g = fg_graph_new("w3_minmaxloc");
    fg_field *x = fg_input(g, "x", fg_type_scalar(FG_U8, shape));
    fg_field *lmin = NULL, *lmax = NULL;
    fg_output(g, "min", fg_reduce_loc(g, "min", FG_REDUCE_MIN, x, &lmin));
    fg_output(g, "min_at", lmin);
    fg_output(g, "max", fg_reduce_loc(g, "max", FG_REDUCE_MAX, x, &lmax));
    fg_output(g, "max_at", lmax);
    fgb_check_graph(g, "W3 min/max location");
    fg_program *prog = fgb_compile(ctx, g, FG_FUSION_ON, FG_PRECISION_FULL);
    uint8_t lo = 0, hi = 0;
    int64_t at_lo[3] = {-1, -1, -1}, at_hi[3] = {-1, -1, -1};
    double sec = fgb_time(ctx, prog, 1, (const void *[]){u8}, 4,
                          (void *[]){&lo, at_lo, &hi, at_hi});
    int bad = lo != mm[0] || at_lo[2] != mm[1] || hi != mm[2] ||
              at_hi[2] != mm[3];
    int r = bench_row_add(&t, "min+max u8: fieldgraph fg_reduce_loc", sec,
                          (double)n, bad ? INFINITY : 0);
    t.rows[r].c = crow;
    t.rows[r].opencv = cvloc;
    snprintf(t.rows[r].note, sizeof t.rows[r].note,
             "value and first index in one pass; %d kernels",
             fg_program_kernel_count(prog));
    fg_program_free(prog);
    fg_graph_free(g);
  }
  /* mean + variance of f32 */
  job->kind = 4;
  s = bench_median(w3_c, job, -1, -1);
  double mv_ref[2];
  {
    double sum = 0, sq = 0;
    for (int i = 0; i < bench.threads; i++)
      sum += job->part[i], sq += job->part2[i];
    mv_ref[0] = sum / (double)n;
    mv_ref[1] = sq / (double)n - mv_ref[0] * mv_ref[0];
  }
  crow = bench_row_add(&t, "mean+var f32: C loop (one pass, double)", s,
                       (double)n * 4, 0);
  cvrow = -1;
#ifdef BENCH_OPENCV
  {
    double mu, var;
    cvrow = bench_row_add(&t, "mean+var f32: cv::meanStdDev",
                          peer_cv_meanvar_f32(a, n, &mu, &var),
                          (double)n * 4, 0);
    t.rows[cvrow].err = fmax(fabs(mu - mv_ref[0]), fabs(var - mv_ref[1]));
    t.rows[cvrow].c = crow;
  }
#endif
  for (int p = 0; p < 2; p++) {
    fg_graph *g = fg_graph_new("w3_meanvar");
    fg_field *x = fg_input(g, "x", fg_type_scalar(FG_F32, shape));
    fg_field *sum = fg_reduce(g, "sum", FG_REDUCE_SUM, x);
    fg_field *sq = fg_reduce(g, "sumsq", FG_REDUCE_SUM,
                             fg_binary(g, FG_OP_MUL, x, x));
    fg_field *mean = fg_binary_scalar(g, FG_OP_DIV, sum, (double)n);
    fg_field *var = fg_binary(g, FG_OP_SUB,
                              fg_binary_scalar(g, FG_OP_DIV, sq, (double)n),
                              fg_binary(g, FG_OP_MUL, mean, mean));
    fg_output(g, "mean", mean);
    fg_output(g, "var", var);
    fgb_check_graph(g, "W3 mean+var");
    fg_precision prec = p ? FG_PRECISION_RELAXED : FG_PRECISION_FULL;
    fg_program *prog = fgb_compile(ctx, g, FG_FUSION_ON, prec);
    float mu = 0, var_v = 0;
    double sec = fgb_time(ctx, prog, 1, (const void *[]){a}, 2,
                          (void *[]){&mu, &var_v});
    int r = bench_row_add(&t, p ? "mean+var f32: fieldgraph relaxed"
                                : "mean+var f32: fieldgraph",
                          sec, (double)n * 4,
                          fmax(fabs(mu - mv_ref[0]), fabs(var_v - mv_ref[1])));
    t.rows[r].c = crow;
    t.rows[r].opencv = cvrow;
    snprintf(t.rows[r].note, sizeof t.rows[r].note,
             "sum, sum of squares: %d kernels", fg_program_kernel_count(prog));
    fg_program_free(prog);
    fg_graph_free(g);
  }
  bench_table_print(&t);
  {
    /* double-precision sums: how far each float result is from exact */
    double da = 0, dd = 0;
    for (int64_t i = 0; i < n; i++) {
      da += a[i];
      dd += (double)a[i] * b[i];
    }
    printf("  exact sums (double): sum f32 %.9g, dot f32 %.9g\n", da, dd);
  }
  free(job);
  free(u8);
  free(a);
  free(b);
}
