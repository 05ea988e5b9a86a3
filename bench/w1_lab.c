/* bench/w1_lab.c - W1: sRGB to CIE L*a*b* on a 4096 x 4096 float4 image,
 * the formulas of examples/operators.c (RGBtoCIELAB) split into 8 small
 * pointwise operators, so fusion has something to merge.  Timed fused and
 * unfused, full and relaxed precision, next to a threaded C loop with
 * scalar libm calls (the same formulas in the same order, so full
 * precision should match it closely) and the peers: Halide with pow and
 * fast_pow, OpenCV's cvtColor.  Every row's max|err| is against the same
 * formulas in double (computed untimed, per pixel, after each run). */
#include "peers.h"
#include "workloads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define W1_SIZE 4096

/* One pointwise float4 operator: begin, read `in`, let body build the
 * result.  Returns the operator's output. */
static fg_op *begin4(fg_graph *g, const char *name, fg_field *like) {
  fg_type t = fg_field_type(like);
  return fg_op_begin(g, name, 1, &t);
}

fg_graph *bench_w1_graph(int64_t size) {
  fg_graph *g = fg_graph_new("w1_lab");
  fg_field *rgba = fg_input(g, "rgba",
                            fg_type_vector(FG_F32, fg_shape2(size, size), 4));
  /* 1: the sRGB decoding curve's power branch */
  fg_op *op = begin4(g, "gammaPow", rgba);
  fg_expr *c = fg_read_tensor(op, rgba);
  fg_write_tensor(op, 0, fg_pow(fg_divf(fg_addf(c, 0.055f), 1.055f),
                                fg_float(op, 2.4f)));
  fg_field *hi = fg_op_end(op);
  /* 2: choose the branch per channel */
  op = begin4(g, "linearize", rgba);
  c = fg_read_tensor(op, rgba);
  fg_write_tensor(op, 0, fg_select(fg_divf(c, 12.92f), fg_read_tensor(op, hi),
                                   fg_gt(c, fg_float(op, 0.04045f))));
  fg_field *lin = fg_op_end(op);
  /* 3: scale to 0..100 */
  op = begin4(g, "scale100", lin);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, lin), 100.0f));
  fg_field *scaled = fg_op_end(op);
  /* 4: linear RGB to XYZ */
  op = begin4(g, "toXYZ", scaled);
  fg_expr *v = fg_var(op, FG_F32, 4);
  fg_assign(v, fg_read_tensor(op, scaled));
  fg_expr *rgb = fg_swizzle(v, "xyz");
  fg_expr *xt = fg_float3(fg_float(op, 0.4124f), fg_float(op, 0.3576f),
                          fg_float(op, 0.1805f));
  fg_expr *yt = fg_float3(fg_float(op, 0.2126f), fg_float(op, 0.7152f),
                          fg_float(op, 0.0722f));
  fg_expr *zt = fg_float3(fg_float(op, 0.0193f), fg_float(op, 0.1192f),
                          fg_float(op, 0.9505f));
  fg_write_tensor(op, 0, fg_float4(fg_dot(rgb, xt), fg_dot(rgb, yt),
                                   fg_dot(rgb, zt), fg_swizzle(v, "w")));
  fg_field *xyz = fg_op_end(op);
  /* 5: divide by the reference white */
  op = begin4(g, "white", xyz);
  fg_write_tensor(op, 0, fg_div(fg_read_tensor(op, xyz),
                                fg_float4(fg_float(op, 95.047f),
                                          fg_float(op, 100.0f),
                                          fg_float(op, 108.883f),
                                          fg_float(op, 1.0f))));
  fg_field *t = fg_op_end(op);
  /* 6: the cube root branch of f(t) */
  op = begin4(g, "cbrt", t);
  fg_write_tensor(op, 0, fg_cbrt(fg_read_tensor(op, t)));
  fg_field *root = fg_op_end(op);
  /* 7: f(t), choosing the linear branch near black */
  op = begin4(g, "labF", t);
  fg_expr *tv = fg_read_tensor(op, t);
  fg_write_tensor(op, 0, fg_select(fg_addf(fg_mulf(tv, 7.787f), 16.0f / 116),
                                   fg_read_tensor(op, root),
                                   fg_gt(tv, fg_float(op, 0.008856f))));
  fg_field *f = fg_op_end(op);
  /* 8: L*, a*, b* and the input's alpha */
  op = begin4(g, "lab", f);
  fg_expr *fv = fg_var(op, FG_F32, 4);
  fg_assign(fv, fg_read_tensor(op, f));
  fg_expr *fx = fg_swizzle(fv, "x"), *fy = fg_swizzle(fv, "y");
  fg_expr *fz = fg_swizzle(fv, "z");
  fg_write_tensor(op, 0, fg_float4(fg_subf(fg_mulf(fy, 116.0f), 16.0f),
                                   fg_mulf(fg_sub(fx, fy), 500.0f),
                                   fg_mulf(fg_sub(fy, fz), 200.0f),
                                   fg_swizzle(fg_read_tensor(op, rgba), "w")));
  fg_output(g, "lab", fg_op_end(op));
  fgb_check_graph(g, "W1 graph");
  return g;
}

/* ---- the C loop: the same formulas, scalar libm ------------------------- */

typedef struct w1_job {
  const float *in;
  float *out;
} w1_job;

static float lin_c(float c) {
  return c > 0.04045f ? powf((c + 0.055f) / 1.055f, 2.4f) : c / 12.92f;
}

static float lab_f_c(float t) {
  return t > 0.008856f ? cbrtf(t) : t * 7.787f + 16.0f / 116;
}

static void w1_slice(void *ctx, int64_t begin, int64_t end, int thread) {
  (void)thread;
  w1_job *j = ctx;
  for (int64_t i = begin; i < end; i++) {
    const float *p = j->in + 4 * i;
    float r = lin_c(p[0]) * 100.0f, g = lin_c(p[1]) * 100.0f;
    float b = lin_c(p[2]) * 100.0f;
    float x = (r * 0.4124f + g * 0.3576f + b * 0.1805f) / 95.047f;
    float y = (r * 0.2126f + g * 0.7152f + b * 0.0722f) / 100.0f;
    float z = (r * 0.0193f + g * 0.1192f + b * 0.9505f) / 108.883f;
    float fx = lab_f_c(x), fy = lab_f_c(y), fz = lab_f_c(z);
    float *o = j->out + 4 * i;
    o[0] = fy * 116.0f - 16.0f;
    o[1] = (fx - fy) * 500.0f;
    o[2] = (fy - fz) * 200.0f;
    o[3] = p[3];
  }
}

static void w1_c(void *ctx) {
  bench_parallel((int64_t)W1_SIZE * W1_SIZE, w1_slice, ctx);
}

/* ---- the reference: the same formulas in double ------------------------ */

static double lin_d(float c) {
  return c > 0.04045f ? pow(((double)c + 0.055f) / 1.055f, 2.4f)
                      : (double)c / 12.92f;
}

static double lab_f_d(double t) {
  return t > 0.008856f ? cbrt(t) : t * 7.787f + (double)(16.0f / 116);
}

typedef struct w1_err_job {
  const float *in, *out;
  int stride, channels;      /* of out: float4, or OpenCV's float3 */
  double part[64];           /* per thread: bench.threads <= 64 */
} w1_err_job;

static void w1_err_slice(void *ctx, int64_t begin, int64_t end, int thread) {
  w1_err_job *j = ctx;
  double m = j->part[thread];
  for (int64_t i = begin; i < end; i++) {
    const float *p = j->in + 4 * i;
    double r = lin_d(p[0]) * 100.0f, g = lin_d(p[1]) * 100.0f;
    double b = lin_d(p[2]) * 100.0f;
    double x = (r * 0.4124f + g * 0.3576f + b * 0.1805f) / 95.047f;
    double y = (r * 0.2126f + g * 0.7152f + b * 0.0722f) / 100.0f;
    double z = (r * 0.0193f + g * 0.1192f + b * 0.9505f) / 108.883f;
    double fx = lab_f_d(x), fy = lab_f_d(y), fz = lab_f_d(z);
    const double want[4] = {fy * 116.0f - 16.0f, (fx - fy) * 500.0f,
                            (fy - fz) * 200.0f, p[3]};
    const float *o = j->out + (int64_t)j->stride * i;
    for (int k = 0; k < j->channels; k++) {
      double d = isnan(o[k]) ? INFINITY : fabs((double)o[k] - want[k]);
      m = d > m ? d : m;
    }
  }
  j->part[thread] = m;
}

/* Max |out - the double formulas| over the image's n pixels. */
static double w1_err(const float *in, const float *out, int stride,
                     int channels, int64_t n) {
  w1_err_job j = {in, out, stride, channels, {0}};
  bench_parallel(n, w1_err_slice, &j);
  double m = 0;
  for (int i = 0; i < 64; i++)
    m = j.part[i] > m ? j.part[i] : m;
  return m;
}

/* ---- the table ---------------------------------------------------------- */

/* W1's runs take up to a second each: at most 3 timed runs keep a full
 * make bench within minutes. */
#define W1_MAX_REPS 3

void bench_w1(fg_context *ctx) {
  const int saved_reps = bench.reps;
  bench.reps = bench.reps < W1_MAX_REPS ? bench.reps : W1_MAX_REPS;
  const int64_t n = (int64_t)W1_SIZE * W1_SIZE;
  const size_t bytes = (size_t)n * 4 * sizeof(float);
  float *in = bench_alloc(bytes), *ref = bench_alloc(bytes);
  float *out = bench_alloc(bytes);
  /* every channel value of [0, 1] in a scrambled order: both branches of
   * both curves are taken */
  for (int64_t i = 0; i < n; i++)
    for (int k = 0; k < 4; k++) {
      uint32_t h = (uint32_t)(i * 4 + k) * 2654435761u;
      in[4 * i + k] = (float)(h >> 16) / 65535.0f;
    }
  char title[200];
  snprintf(title, sizeof title, "W1 sRGB -> CIE L*a*b*, float4 %dx%d, 8 "
           "operators (%s); median of %d after %d warm-up; max|err| "
           "against the formulas in double",
           W1_SIZE, W1_SIZE, fg_context_backend_name(ctx), bench.reps,
           bench.warmup);
  bench_table t;
  bench_table_init(&t, title);
  double io = 2.0 * (double)bytes;   /* read the image, write L*a*b* */
  w1_job job = {in, ref};
  double c_sec = bench_median(w1_c, &job, -1, -1);
  int crow = bench_row_add(&t, "C loop (scalar libm, threads)", c_sec, io,
                           w1_err(in, ref, 4, 4, n));
  snprintf(t.rows[crow].note, sizeof t.rows[crow].note, "float powf, cbrtf");

  int hal[2] = {-1, -1};
#ifdef BENCH_HALIDE
  for (int fast = 0; fast < 2; fast++) {
    double s = peer_halide_lab(in, out, W1_SIZE, W1_SIZE, fast);
    hal[fast] = bench_row_add(&t, fast ? "Halide fast_pow" : "Halide pow", s,
                              io, w1_err(in, out, 4, 4, n));
    t.rows[hal[fast]].c = crow;
  }
#endif
  int cv = -1;
#ifdef BENCH_OPENCV
  {
    float *lab3 = bench_alloc((size_t)n * 3 * sizeof(float));
    double s = peer_cv_lab(in, lab3, W1_SIZE, W1_SIZE);
    cv = bench_row_add(&t, "OpenCV cvtColor RGB2Lab", s,
                       (double)bytes + (double)n * 3 * sizeof(float),
                       w1_err(in, lab3, 3, 3, n));
    snprintf(t.rows[cv].note, sizeof t.rows[cv].note,
             "its own constants; output float3");
    t.rows[cv].c = crow;
    free(lab3);
  }
#endif

  fg_graph *g = bench_w1_graph(W1_SIZE);
  for (int prec = 0; prec < 2; prec++) {
    fg_precision p = prec ? FG_PRECISION_RELAXED : FG_PRECISION_FULL;
    int rows[2];
    for (int fu = 0; fu < 2; fu++) {
      fg_fusion fusion = fu ? FG_FUSION_OFF : FG_FUSION_ON;
      fg_program *prog = fgb_compile(ctx, g, fusion, p);
      double s = fgb_time(ctx, prog, 1, (const void *[]){in}, 1,
                          (void *[]){out});
      char label[64];
      rows[fu] = bench_row_add(&t, fgb_label(label, sizeof label, NULL,
                                             fusion, p),
                               s, io, w1_err(in, out, 4, 4, n));
      bench_row *r = &t.rows[rows[fu]];
      r->c = crow;
      r->halide = hal[prec];
      r->opencv = cv;
      snprintf(r->note, sizeof r->note, "%d kernel%s",
               fg_program_kernel_count(prog),
               fg_program_kernel_count(prog) == 1 ? "" : "s");
      fg_program_free(prog);
    }
    t.rows[rows[0]].unfused = rows[1];
    int cpu = fgb_cpu_row(&t, ctx, g, p, rows[0], crow, 1,
                          (const void *[]){in}, 1, (void *[]){out}, ref,
                          (size_t)n * 4);
    if (cpu >= 0)
      t.rows[cpu].err = w1_err(in, out, 4, 4, n);
    /* OpenCL: the same with the fields kept on the device */
    int dev[2] = {-1, -1};
    for (int fu = 0; fu < 2 && cpu >= 0 && !prec; fu++) {
      dev[fu] = fgb_device_row(&t, ctx, g, NULL, fu ? FG_FUSION_OFF : FG_FUSION_ON,
                               p, crow, in, out);
      t.rows[dev[fu]].err = w1_err(in, out, 4, 4, n);
    }
    if (cpu >= 0 && !prec) {
      t.rows[dev[0]].unfused = dev[1];
      int pr = fgb_pinned_row(&t, ctx, g, p, crow, in, out);
      t.rows[pr].err = w1_err(in, out, 4, 4, n);
    }
  }
  fg_graph_free(g);
  bench_table_print(&t);
  free(in);
  free(ref);
  free(out);
  bench.reps = saved_reps;
}
