/* tests/check_fuse.c - operator fusion (fuse/, fg_compile_options.fusion)
 * on the backend $FG_TEST_BACKEND names (cpu by default): pointwise
 * chains and diamonds become one kernel; a non-local read (a stencil, a
 * flip) is a boundary on that input only; a field used inside its kernel
 * and by another kernel is written once, with the reason; check mode and
 * $FG_FUSION; the fusion report and statistics.  Every graph is compiled
 * both fused and unfused and the outputs must be byte-identical; where a
 * result is also computed here in plain C, the operations are chosen so
 * that C gives the same bits.  The property test builds random DAGs from
 * a fixed seed (200; 100 on OpenCL; $FG_FUSE_DAGS overrides), with
 * pointwise operators, non-local ones and reductions, and checks the
 * results and the partition's invariants on each.  A stencil with
 * asymmetric taps is checked at every kind of image edge, a stencil over
 * RGB(A) pixels with and without mixing channels, reversed columns (a
 * flip's), and the
 * vectorization cost rule keeps scalar-only calls out of vector kernels. */
/* testutil.h's tu_sample names it; the Makefile defines it. */
#ifndef FG_SAMPLES_DIR
#define FG_SAMPLES_DIR "data/samples"
#endif
#include "testutil.h"

#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------ */

/* Compiles g with the given fusion mode, failing with the message. */
static fg_program *compile_mode(fg_context *ctx, fg_graph *g,
                                fg_fusion mode) {
  ck_assert_msg(fg_graph_status(g) == FG_OK, "graph: %s", fg_graph_errmsg(g));
  fg_compile_options opt = {.fusion = mode};
  fg_program *p = NULL;
  fg_status st = fg_compile(ctx, g, &opt, &p);
  ck_assert_msg(st == FG_OK, "fg_compile (fusion mode %d): %s", (int)mode,
                fg_context_errmsg(ctx));
  return p;
}

static void run_ok(fg_context *ctx, fg_program *p, int n_in,
                   const void *const *in, int n_out, void *const *out) {
  fg_status st = fg_program_run(p, n_in, in, n_out, out);
  ck_assert_msg(st == FG_OK, "fg_program_run: %s", fg_context_errmsg(ctx));
}

/* A small deterministic generator (xorshift64*), so that every run and
 * every platform sees the same graphs and data. */
typedef struct rng {
  uint64_t s;
} rng;

static uint64_t rng_next(rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 2685821657736338717ull;
}

/* Uniform in [0, n). */
static int rng_int(rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }

/* Floats in [-4, 4), on a 1/256 grid now and then (exact values too). */
static void fill_floats(rng *r, float *a, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint64_t v = rng_next(r);
    a[i] = (v & 7) == 0 ? (float)((int)(v >> 32 & 2047) - 1024) / 256.0f
                        : (float)((double)(v >> 11) / 9007199254740992.0 *
                                  8.0 - 4.0);
  }
}

/* out = f(in) for one tensor, pointwise; the body is given as a function
 * of the read expression. */
typedef fg_expr *(*unary_body)(fg_op *op, fg_expr *x);

static fg_field *pointwise(fg_graph *g, const char *name, fg_field *in,
                           unary_body body) {
  fg_op *op = fg_op_begin(g, name, 1, (fg_type[]){fg_field_type(in)});
  fg_write_tensor(op, 0, body(op, fg_read_tensor(op, in)));
  return fg_op_end(op);
}

static fg_expr *body_mul(fg_op *op, fg_expr *x) {
  (void)op;
  return fg_mulf(x, 1.5f);
}
static fg_expr *body_add(fg_op *op, fg_expr *x) {
  (void)op;
  return fg_addf(x, 0.25f);
}
static fg_expr *body_root(fg_op *op, fg_expr *x) {
  (void)op;
  return fg_sqrt(fg_fabs(x));
}
static fg_expr *body_neg(fg_op *op, fg_expr *x) {
  (void)op;
  return fg_neg(x);
}

/* v rounded to float and kept apart: no fused multiply-add in the C
 * reference even where this file's compiler would contract one. */
static float rounded(float v) {
  volatile float t = v;
  return t;
}

static bool contains(const char *hay, const char *needle) {
  return hay && strstr(hay, needle) != NULL;
}

/* ---- fixed graphs -------------------------------------------------------- */

START_TEST(test_fuse_pointwise_chain_is_one_kernel) {
  const int R = 37, C = 53, N = R * C * 4;
  static const unary_body bodies[4] = {body_mul, body_add, body_root,
                                       body_neg};
  static const char *const kinds[4] = {"mul", "add", "root", "neg"};
  fg_graph *g = fg_graph_new("chain");
  fg_field *f = fg_input(g, "x", fg_type_vector(FG_F32, fg_shape2(R, C), 4));
  char want_name[256] = "";
  for (int i = 0; i < 10; i++) {
    char name[16];
    snprintf(name, sizeof name, "%s%d", kinds[i % 4], i);
    f = pointwise(g, name, f, bodies[i % 4]);
    strcat(want_name, i ? "+" : "");
    strcat(want_name, name);
  }
  fg_output(g, "y", f);
  fg_context *ctx = tu_context();
  fg_program *fused = compile_mode(ctx, g, FG_FUSION_ON);
  fg_program *unfused = compile_mode(ctx, g, FG_FUSION_OFF);
  ck_assert_int_eq(fg_program_kernel_count(fused), 1);
  ck_assert_str_eq(fg_program_kernel_name(fused, 0), want_name);
  ck_assert_ptr_null(fg_program_kernel_name(fused, 1));
  ck_assert_int_eq(fg_program_kernel_count(unfused), 10);
  ck_assert_str_eq(fg_program_kernel_name(unfused, 0), "mul0");
  ck_assert_str_eq(fg_program_kernel_name(unfused, 9), "add9");

  fg_fusion_stats s;
  ck_assert_int_eq(fg_program_fusion_stats(fused, &s), FG_OK);
  ck_assert_int_eq(s.kernels_unfused, 10);
  ck_assert_int_eq(s.kernels, 1);
  ck_assert_int_eq(s.fields_virtual, 9);
  ck_assert_int_eq(s.fields_materialized, 1);
  ck_assert_int_gt(s.bytes, 0);
  ck_assert_msg(s.bytes < s.bytes_unfused, "fused %lld bytes, unfused %lld",
                (long long)s.bytes, (long long)s.bytes_unfused);
  /* in and out once each, against ten kernels reading and writing */
  ck_assert_int_eq(s.bytes, 2 * (int64_t)N * 4);
  ck_assert_int_eq(s.bytes_unfused, 20 * (int64_t)N * 4);
  fg_fusion_stats u;
  ck_assert_int_eq(fg_program_fusion_stats(unfused, &u), FG_OK);
  ck_assert_int_eq(u.kernels, 10);
  ck_assert_int_eq(u.kernels_unfused, 10);
  ck_assert_int_eq(u.fields_virtual, 0);
  ck_assert_int_eq(u.fields_materialized, 10);
  ck_assert_int_eq(u.bytes, u.bytes_unfused);
  ck_assert_ptr_null(fg_program_field_reason(fused, "mul4.out0"));
  ck_assert_str_eq(fg_program_field_reason(fused, "add9.out0"),
                   "graph output");
  ck_assert_ptr_nonnull(fg_program_field_reason(unfused, "mul4.out0"));

  float *x = malloc(sizeof(float) * N), *a = malloc(sizeof(float) * N);
  float *b = malloc(sizeof(float) * N);
  rng r = {0x1234567887654321ull};
  fill_floats(&r, x, (size_t)N);
  memset(a, 0xa5, sizeof(float) * N);
  memset(b, 0x5a, sizeof(float) * N);
  run_ok(ctx, fused, 1, (const void *[]){x}, 1, (void *[]){a});
  run_ok(ctx, unfused, 1, (const void *[]){x}, 1, (void *[]){b});
  ck_assert_msg(memcmp(a, b, sizeof(float) * N) == 0,
                "fused and unfused chains differ");
  for (int i = 0; i < N; i++) {
    double v = x[i];     /* the same chain in double: close, not equal */
    for (int k = 0; k < 10; k++)
      v = k % 4 == 0 ? v * 1.5 : k % 4 == 1 ? v + 0.25
          : k % 4 == 2 ? sqrt(fabs(v)) : -v;
    ck_assert_msg(fabs(a[i] - v) <= 1e-5 * (1 + fabs(v)), "chain(%g) = %g, "
                  "want %g", (double)x[i], (double)a[i], v);
  }
  free(x);
  free(a);
  free(b);
  fg_program_free(fused);
  fg_program_free(unfused);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_fuse_diamond_is_one_kernel) {
  /* a = 2x; b = a + 1; c = a * a; d = b - c, on a 3-D float2 field */
  const int L = 3, R = 11, C = 17, N = L * R * C * 2;
  fg_type t = fg_type_vector(FG_F32, fg_shape3(L, R, C), 2);
  fg_graph *g = fg_graph_new("diamond");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "a", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, x), 2.0f));
  fg_field *a = fg_op_end(op);
  op = fg_op_begin(g, "b", 1, &t);
  fg_write_tensor(op, 0, fg_addf(fg_read_tensor(op, a), 1.0f));
  fg_field *b = fg_op_end(op);
  op = fg_op_begin(g, "c", 1, &t);
  fg_expr *v = fg_tensor_var(op, a);
  fg_assign(v, fg_read_tensor(op, a));
  fg_write_tensor(op, 0, fg_mul(v, v));
  fg_field *c = fg_op_end(op);
  op = fg_op_begin(g, "d", 1, &t);
  fg_write_tensor(op, 0, fg_sub(fg_read_tensor(op, b), fg_read_tensor(op, c)));
  fg_output(g, "d", fg_op_end(op));
  fg_context *ctx = tu_context();
  fg_program *fused = compile_mode(ctx, g, FG_FUSION_ON);
  fg_program *unfused = compile_mode(ctx, g, FG_FUSION_OFF);
  ck_assert_int_eq(fg_program_kernel_count(fused), 1);
  ck_assert_str_eq(fg_program_kernel_name(fused, 0), "a+b+c+d");
  ck_assert_int_eq(fg_program_kernel_count(unfused), 4);
  fg_fusion_stats s;
  ck_assert_int_eq(fg_program_fusion_stats(fused, &s), FG_OK);
  ck_assert_int_eq(s.kernels_unfused, 4);
  ck_assert_int_eq(s.fields_virtual, 3);
  ck_assert_int_eq(s.fields_materialized, 1);
  ck_assert_msg(s.bytes < s.bytes_unfused, "fused %lld bytes, unfused %lld",
                (long long)s.bytes, (long long)s.bytes_unfused);
  ck_assert_ptr_null(fg_program_field_reason(fused, "a.out0"));
  ck_assert_ptr_null(fg_program_field_reason(fused, "b.out0"));
  ck_assert_ptr_null(fg_program_field_reason(fused, "c.out0"));

  float *in = malloc(sizeof(float) * N), *o1 = malloc(sizeof(float) * N);
  float *o2 = malloc(sizeof(float) * N);
  rng r = {0xfeedfacecafebeefull};
  fill_floats(&r, in, (size_t)N);
  run_ok(ctx, fused, 1, (const void *[]){in}, 1, (void *[]){o1});
  run_ok(ctx, unfused, 1, (const void *[]){in}, 1, (void *[]){o2});
  ck_assert_msg(memcmp(o1, o2, sizeof(float) * N) == 0,
                "fused and unfused diamonds differ");
  for (int i = 0; i < N; i++) {
    float fa = rounded(in[i] * 2.0f), fb = fa + 1.0f;
    float fc = rounded(fa * fa);
    float want = fb - fc;
    ck_assert_msg(memcmp(&o1[i], &want, sizeof want) == 0,
                  "d at %d: %a, want %a", i, (double)o1[i], (double)want);
  }
  free(in);
  free(o1);
  free(o2);
  fg_program_free(fused);
  fg_program_free(unfused);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* An operator reading one field of each of its inputs with a body of two
 * reads. */
static fg_field *binary_op(fg_graph *g, const char *name, fg_field *a,
                           fg_field *b, fg_binop which) {
  fg_type t = fg_field_type(a);
  fg_op *op = fg_op_begin(g, name, 1, &t);
  fg_expr *x = fg_read_tensor(op, a), *y = fg_read_tensor(op, b);
  fg_write_tensor(op, 0, which == FG_OP_SUB ? fg_sub(x, y) : fg_add(x, y));
  return fg_op_end(op);
}

/* rows reversed: a non-local read of in */
static fg_field *flip_rows(fg_graph *g, const char *name, fg_field *in) {
  fg_type t = fg_field_type(in);
  fg_op *op = fg_op_begin(g, name, 1, &t);
  fg_write_tensor(op, 0, fg_read_tensor_at(
      op, in, 2, fg_subi(fg_sub(fg_rows(op), fg_row(op)), 1), fg_column(op)));
  return fg_op_end(op);
}

START_TEST(test_fuse_consumer_joins_both_producers) {
  /* a = 1.5 x and b = y + 0.25 start kernels of their own (neither reads
   * the other); c = a - b reads both locally: one kernel, neither a nor b
   * written */
  const int R = 23, C = 41, N = R * C;
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("fan_in");
  fg_field *x = fg_input(g, "x", t), *y = fg_input(g, "y", t);
  fg_field *a = pointwise(g, "a", x, body_mul);
  fg_field *b = pointwise(g, "b", y, body_add);
  fg_output(g, "c", binary_op(g, "c", a, b, FG_OP_SUB));
  fg_context *ctx = tu_context();
  fg_program *fused = compile_mode(ctx, g, FG_FUSION_ON);
  fg_program *unfused = compile_mode(ctx, g, FG_FUSION_OFF);
  ck_assert_msg(fg_program_kernel_count(fused) == 1, "%s",
                fg_program_fusion_report(fused));
  ck_assert_str_eq(fg_program_kernel_name(fused, 0), "a+b+c");
  ck_assert_int_eq(fg_program_kernel_count(unfused), 3);
  ck_assert_ptr_null(fg_program_field_reason(fused, "a.out0"));
  ck_assert_ptr_null(fg_program_field_reason(fused, "b.out0"));
  float *xs = malloc(sizeof(float) * N), *ys = malloc(sizeof(float) * N);
  float *o1 = malloc(sizeof(float) * N), *o2 = malloc(sizeof(float) * N);
  rng r = {0x5eed1234abcdull};
  fill_floats(&r, xs, (size_t)N);
  fill_floats(&r, ys, (size_t)N);
  run_ok(ctx, fused, 2, (const void *[]){xs, ys}, 1, (void *[]){o1});
  run_ok(ctx, unfused, 2, (const void *[]){xs, ys}, 1, (void *[]){o2});
  ck_assert_msg(memcmp(o1, o2, sizeof(float) * N) == 0,
                "fused and unfused differ");
  for (int i = 0; i < N; i++) {
    float want = rounded(xs[i] * 1.5f) - rounded(ys[i] + 0.25f);
    ck_assert_msg(memcmp(&o1[i], &want, sizeof want) == 0,
                  "c at %d: %a, want %a", i, (double)o1[i], (double)want);
  }
  free(xs);
  free(ys);
  free(o1);
  free(o2);
  fg_program_free(fused);
  fg_program_free(unfused);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_fuse_consumer_keeps_a_path_through_a_third_kernel_apart) {
  /* a = 1.5 x; t = a with rows reversed, u = t with rows reversed (each
   * reads non-locally: kernels of their own); c = u + a joins u's kernel
   * and reads a locally, but a's kernel cannot join it: t's kernel lies
   * between them.  Three kernels in order, a written once */
  const int R = 19, C = 37, N = R * C;
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("through");
  fg_field *x = fg_input(g, "x", t);
  fg_field *a = pointwise(g, "a", x, body_mul);
  fg_field *u = flip_rows(g, "u", flip_rows(g, "t", a));
  fg_output(g, "c", binary_op(g, "c", u, a, FG_OP_ADD));
  fg_context *ctx = tu_context();
  fg_program *fused = compile_mode(ctx, g, FG_FUSION_ON);
  fg_program *unfused = compile_mode(ctx, g, FG_FUSION_OFF);
  ck_assert_msg(fg_program_kernel_count(fused) == 3, "%s",
                fg_program_fusion_report(fused));
  ck_assert_str_eq(fg_program_kernel_name(fused, 0), "a");
  ck_assert_str_eq(fg_program_kernel_name(fused, 1), "t");
  ck_assert_str_eq(fg_program_kernel_name(fused, 2), "u+c");
  float *xs = malloc(sizeof(float) * N);
  float *o1 = malloc(sizeof(float) * N), *o2 = malloc(sizeof(float) * N);
  rng r = {0x0ddba11ull};
  fill_floats(&r, xs, (size_t)N);
  run_ok(ctx, fused, 1, (const void *[]){xs}, 1, (void *[]){o1});
  run_ok(ctx, unfused, 1, (const void *[]){xs}, 1, (void *[]){o2});
  ck_assert_msg(memcmp(o1, o2, sizeof(float) * N) == 0,
                "fused and unfused differ");
  for (int i = 0; i < N; i++) {
    float av = rounded(xs[i] * 1.5f), want = av + av;
    ck_assert_msg(memcmp(&o1[i], &want, sizeof want) == 0,
                  "c at %d: %a, want %a", i, (double)o1[i], (double)want);
  }
  free(xs);
  free(o1);
  free(o2);
  fg_program_free(fused);
  fg_program_free(unfused);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* x -> pre -> blur (3x3 box of pre, explicit reads) -> p1 -> p2 */
static fg_graph *blur_graph(int R, int C) {
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("blur");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "pre", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, x), 2.0f));
  fg_field *pre = fg_op_end(op);
  op = fg_op_begin(g, "blur", 1, &t);
  fg_expr *sum = NULL;
  for (int dr = -1; dr <= 1; dr++)
    for (int dc = -1; dc <= 1; dc++) {
      fg_expr *v = fg_read_tensor_at(op, pre, 2, fg_addi(fg_row(op), dr),
                                     fg_addi(fg_column(op), dc));
      sum = sum ? fg_add(sum, v) : v;
    }
  fg_write_tensor(op, 0, fg_divf(sum, 9.0f));
  fg_field *blur = fg_op_end(op);
  op = fg_op_begin(g, "p1", 1, &t);
  fg_write_tensor(op, 0, fg_subf(fg_read_tensor(op, blur), 0.125f));
  fg_field *p1 = fg_op_end(op);
  op = fg_op_begin(g, "p2", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, p1), 3.0f));
  fg_output(g, "y", fg_op_end(op));
  return g;
}

static int clampi(int v, int n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

START_TEST(test_fuse_blur_then_pointwise) {
  const int R = 29, C = 41, N = R * C;
  fg_graph *g = blur_graph(R, C);
  fg_context *ctx = tu_context();
  fg_program *fused = compile_mode(ctx, g, FG_FUSION_ON);
  fg_program *unfused = compile_mode(ctx, g, FG_FUSION_OFF);
  ck_assert_int_eq(fg_program_kernel_count(fused), 2);
  ck_assert_str_eq(fg_program_kernel_name(fused, 0), "pre");
  ck_assert_str_eq(fg_program_kernel_name(fused, 1), "blur+p1+p2");
  ck_assert_int_eq(fg_program_kernel_count(unfused), 4);
  const char *why = fg_program_field_reason(fused, "pre.out0");
  ck_assert_msg(contains(why, "non-local read by blur"),
                "pre.out0's reason is '%s'", why ? why : "(null)");
  ck_assert_ptr_null(fg_program_field_reason(fused, "blur.out0"));
  ck_assert_ptr_null(fg_program_field_reason(fused, "p1.out0"));
  ck_assert_str_eq(fg_program_field_reason(fused, "p2.out0"), "graph output");
  ck_assert_ptr_null(fg_program_field_reason(fused, "x"));  /* an input */
  ck_assert_ptr_null(fg_program_field_reason(fused, "nonexistent.out0"));
  fg_fusion_stats s;
  ck_assert_int_eq(fg_program_fusion_stats(fused, &s), FG_OK);
  ck_assert_int_eq(s.kernels, 2);
  ck_assert_int_eq(s.kernels_unfused, 4);
  ck_assert_int_eq(s.fields_materialized, 2);
  ck_assert_int_eq(s.fields_virtual, 2);

  float *x = malloc(sizeof(float) * N), *o1 = malloc(sizeof(float) * N);
  float *o2 = malloc(sizeof(float) * N), *pre = malloc(sizeof(float) * N);
  rng r = {0x0badc0ffee0ddf00ull};
  fill_floats(&r, x, (size_t)N);
  run_ok(ctx, fused, 1, (const void *[]){x}, 1, (void *[]){o1});
  run_ok(ctx, unfused, 1, (const void *[]){x}, 1, (void *[]){o2});
  ck_assert_msg(memcmp(o1, o2, sizeof(float) * N) == 0,
                "fused and unfused blur pipelines differ");
  for (int i = 0; i < N; i++)
    pre[i] = x[i] * 2.0f;
  for (int row = 0; row < R; row++)
    for (int col = 0; col < C; col++) {
      float sum = 0;
      bool first = true;
      for (int dr = -1; dr <= 1; dr++)
        for (int dc = -1; dc <= 1; dc++) {
          float v = pre[clampi(row + dr, R) * C + clampi(col + dc, C)];
          sum = first ? v : sum + v;
          first = false;
        }
      float blur = sum / 9.0f, p1 = blur - 0.125f, want = p1 * 3.0f;
      /* (pre = 2x is exact, and nothing multiplies into an add) */
      float got = o1[row * C + col];
      ck_assert_msg(memcmp(&got, &want, sizeof want) == 0,
                    "y[%d][%d] = %a, want %a", row, col, (double)got,
                    (double)want);
    }
  free(x);
  free(o1);
  free(o2);
  free(pre);
  fg_program_free(fused);
  fg_program_free(unfused);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* A stencil with asymmetric taps on two inputs: x at rows -1, 0, +2 and
 * columns -2, -1, 0, +1, +3 (each tap its own weight, so a mirrored or
 * shifted tap shows; powers of two, so products are exact and a device
 * contracting multiply-adds gives the same bits), y at (row, column + 2);
 * then a pointwise scale that
 * fuses into it.  On the CPU the column loop splits into an interior
 * without clamping and a clamped border: every size where the interior
 * is empty, one column or wider than a tile is compared with a plain C
 * computation that clamps every tap. */
static fg_graph *taps_graph(int R, int C) {
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("taps");
  fg_field *x = fg_input(g, "x", t), *y = fg_input(g, "y", t);
  fg_op *op = fg_op_begin(g, "taps", 1, &t);
  static const int dr[3] = {-1, 0, 2}, dc[5] = {-2, -1, 0, 1, 3};
  fg_expr *sum = NULL;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 5; j++) {
      fg_expr *v = fg_read_tensor_at(op, x, 2, fg_addi(fg_row(op), dr[i]),
                                     fg_addi(fg_column(op), dc[j]));
      v = fg_mulf(v, ldexpf(1.0f, i * 5 + j - 8));
      sum = sum ? fg_add(sum, v) : v;
    }
  sum = fg_add(sum, fg_read_tensor_at(op, y, 2, fg_row(op),
                                      fg_addi(fg_column(op), 2)));
  fg_write_tensor(op, 0, sum);
  fg_field *taps = fg_op_end(op);
  op = fg_op_begin(g, "half", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, taps), 0.5f));
  fg_output(g, "out", fg_op_end(op));
  return g;
}

START_TEST(test_fuse_stencil_edges_match_clamped_c) {
  static const int size[][2] = {{1, 1}, {2, 2}, {3, 7}, {7, 3}, {1, 17},
                                {17, 1}, {5, 4}, {9, 6}, {31, 45},
                                {67, 301}};
  fg_context *ctx = tu_context();
  rng r = {0x5eed5eed5eedull};
  for (size_t s = 0; s < sizeof size / sizeof size[0]; s++) {
    const int R = size[s][0], C = size[s][1], N = R * C;
    fg_graph *g = taps_graph(R, C);
    fg_program *fused = compile_mode(ctx, g, FG_FUSION_ON);
    fg_program *unfused = compile_mode(ctx, g, FG_FUSION_OFF);
    ck_assert_int_eq(fg_program_kernel_count(fused), 1);
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N);
    float *o1 = malloc(sizeof(float) * N), *o2 = malloc(sizeof(float) * N);
    fill_floats(&r, x, (size_t)N);
    fill_floats(&r, y, (size_t)N);
    run_ok(ctx, fused, 2, (const void *[]){x, y}, 1, (void *[]){o1});
    run_ok(ctx, unfused, 2, (const void *[]){x, y}, 1, (void *[]){o2});
    static const int dr[3] = {-1, 0, 2}, dc[5] = {-2, -1, 0, 1, 3};
    for (int row = 0; row < R; row++)
      for (int col = 0; col < C; col++) {
        float sum = 0;
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 5; j++) {
            float v = x[clampi(row + dr[i], R) * C + clampi(col + dc[j], C)] *
                      ldexpf(1.0f, i * 5 + j - 8);
            sum = i || j ? sum + v : v;
          }
        sum = sum + y[row * C + clampi(col + 2, C)];
        float want = sum * 0.5f;
        int at = row * C + col;
        ck_assert_msg(memcmp(&o1[at], &want, sizeof want) == 0 &&
                      memcmp(&o2[at], &want, sizeof want) == 0,
                      "%dx%d at (%d, %d): fused %a, unfused %a, want %a", R,
                      C, row, col, (double)o1[at], (double)o2[at],
                      (double)want);
      }
    free(x);
    free(y);
    free(o1);
    free(o2);
    fg_program_free(fused);
    fg_program_free(unfused);
    fg_graph_free(g);
  }
  tu_context_free(ctx);
}
END_TEST

/* A stencil over n-channel pixels: "chan" computes every channel alike
 * from the same channel of its taps (weights on a 1/8 grid, so float
 * sums of u8 values are exact, plus a quarter of the column, a scalar
 * the channels share), rounded and saturated to u8; "swap" adds the
 * left neighbour's channels reversed (.zyx) to the right one's.  The C
 * dialect and OpenCL's strips run chan's interior over the row's flat
 * elements (emit/flat.c: the loop "fgk_j"), never swap's, whose channels
 * mix; both are compared with C at widths from inside the taps to wide
 * rows, and at 3 and 4 channels. */
static fg_graph *channels_graph(int R, int C, int n, bool swap) {
  fg_type t = fg_type_vector(FG_U8, fg_shape2(R, C), n);
  fg_graph *g = fg_graph_new(swap ? "swap" : "chan");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, swap ? "swap" : "chan", 1, &t);
  if (swap) {
    fg_expr *l = fg_read_tensor_at(op, x, 2, fg_row(op),
                                   fg_addi(fg_column(op), -1));
    fg_expr *r = fg_read_tensor_at(op, x, 2, fg_row(op),
                                   fg_addi(fg_column(op), 1));
    fg_write_tensor(op, 0, fg_add(fg_swizzle(l, n == 3 ? "zyx" : "wzyx"),
                                  r));
  } else {
    fg_expr *acc = fg_var(op, FG_F32, n);
    fg_assign(acc, fg_convert(fg_mulf(fg_convert(fg_column(op), FG_F32, 1),
                                      0.25f),
                              FG_F32, n));
    for (int dc = -2; dc <= 2; dc++) {
      fg_expr *v = fg_convert(
          fg_read_tensor_at(op, x, 2, fg_row(op), fg_addi(fg_column(op), dc)),
          FG_F32, n);
      fg_assign(acc, fg_add(acc, fg_mulf(v, (float)(3 - dc) * 0.125f)));
    }
    fg_write_tensor(op, 0, fg_convert_sat(acc, FG_U8, n));
  }
  fg_output(g, "out", fg_op_end(op));
  return g;
}

START_TEST(test_fuse_stencil_channels_flat_interior) {
  static const int size[][2] = {{1, 1}, {3, 4}, {2, 5}, {5, 9}, {7, 77}};
  fg_context *ctx = tu_context();
  rng rg = {0xc4a77e15ull};
  for (int n = 3; n <= 4; n++)
    for (int swap = 0; swap < 2; swap++)
      for (size_t s = 0; s < sizeof size / sizeof size[0]; s++) {
        const int R = size[s][0], C = size[s][1], N = R * C * n;
        fg_graph *g = channels_graph(R, C, n, swap);
        fg_program *p = compile_mode(ctx, g, FG_FUSION_ON);
        const char *src = fg_program_kernel_source(p, 0);
        /* C, or OpenCL C whose work-items run strips (a CPU device) */
        if (!strstr(src, "__kernel") || strstr(src, "fgk_c0 = "))
          ck_assert_msg((strstr(src, "fgk_j = fgk_lo") != NULL) == !swap,
                        "%s x%d: flat interior %s", swap ? "swap" : "chan",
                        n, swap ? "though channels mix" : "missing");
        uint8_t *x = malloc((size_t)N), *o = malloc((size_t)N);
        for (int i = 0; i < N; i++)
          x[i] = (uint8_t)rng_next(&rg);
        run_ok(ctx, p, 1, (const void *[]){x}, 1, (void *[]){o});
        for (int row = 0; row < R; row++)
          for (int col = 0; col < C; col++)
            for (int k = 0; k < n; k++) {
              const uint8_t *px = x + (size_t)row * C * n;
              int want;
              if (swap) {
                want = (uint8_t)(px[clampi(col - 1, C) * n + n - 1 - k] +
                                 px[clampi(col + 1, C) * n + k]);
              } else {
                float acc = (float)col * 0.25f;
                for (int dc = -2; dc <= 2; dc++)
                  acc += (float)px[clampi(col + dc, C) * n + k] *
                         ((float)(3 - dc) * 0.125f);
                float v = rintf(acc);
                want = v > 255 ? 255 : (int)v;
              }
              int got = o[((size_t)row * C + col) * n + k];
              ck_assert_msg(got == want, "%s x%d %dx%d at (%d, %d, %d): "
                            "%d, want %d", swap ? "swap" : "chan", n, R, C,
                            row, col, k, got, want);
            }
        free(x);
        free(o);
        fg_program_free(p);
        fg_graph_free(g);
      }
  tu_context_free(ctx);
}
END_TEST

/* Pointwise kernels over n-element pixels: "chan" scales each element
 * by 1.25 and adds half the column (a scalar all elements share),
 * converting back to the element type (rounded, saturated for integers),
 * then a second operator doubles it (wrapping for integers): one fused
 * kernel that computes every element alike, so the C dialect and
 * OpenCL's strips run its whole column loop over the row's flat elements
 * (emit/flat.c: the loop "fgk_j = fgk_c0"); "mix" adds the reversed
 * pixel (.zyx) to itself, whose elements mix, and must not.  Both are
 * compared with C for u8 x2/x3/x4, u16 x3, i16 x4 and f32 x3 at widths
 * that are no multiple of a vector's. */
static fg_graph *pointwise_graph(fg_elem el, int R, int C, int n, bool mix) {
  fg_type t = fg_type_vector(el, fg_shape2(R, C), n);
  fg_graph *g = fg_graph_new(mix ? "mix" : "chan");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, mix ? "mix" : "scale", 1, &t);
  fg_expr *v = fg_read_tensor(op, x);
  if (mix) {
    static const char *const rev[] = {"", "", "yx", "zyx", "wzyx"};
    fg_write_tensor(op, 0, fg_add(fg_swizzle(v, rev[n]), v));
    fg_output(g, "out", fg_op_end(op));
    return g;
  }
  fg_expr *col = fg_convert(fg_mulf(fg_convert(fg_column(op), FG_F32, 1),
                                    0.5f), FG_F32, n);
  fg_expr *f = fg_var(op, FG_F32, n);
  fg_assign(f, fg_mulf(fg_convert(v, FG_F32, n), 1.25f));
  f = fg_add(f, col);
  fg_write_tensor(op, 0, el == FG_F32 ? f : fg_convert_sat(f, el, n));
  fg_field *y = fg_op_end(op);
  op = fg_op_begin(g, "twice", 1, &t);
  v = fg_read_tensor(op, y);
  fg_write_tensor(op, 0, fg_add(v, v));
  fg_output(g, "out", fg_op_end(op));
  return g;
}

/* Element i of a buffer of el as a double, and v stored there. */
static double elem_get(fg_elem el, const void *b, size_t i) {
  switch (el) {
  case FG_U8: return ((const uint8_t *)b)[i];
  case FG_U16: return ((const uint16_t *)b)[i];
  case FG_I16: return ((const int16_t *)b)[i];
  default: return ((const float *)b)[i];
  }
}

START_TEST(test_fuse_pointwise_channels_flat_loop) {
  static const struct { fg_elem el; int n; } kind[] = {
    {FG_U8, 3}, {FG_U8, 4}, {FG_U8, 2}, {FG_U16, 3}, {FG_I16, 4},
    {FG_F32, 3}};
  static const int size[][2] = {{1, 1}, {3, 5}, {2, 17}, {4, 33}, {3, 70}};
  fg_context *ctx = tu_context();
  rng rg = {0x9017e5ull};
  for (size_t kd = 0; kd < sizeof kind / sizeof kind[0]; kd++)
    for (int mix = 0; mix < 2; mix++)
      for (size_t s = 0; s < sizeof size / sizeof size[0]; s++) {
        const fg_elem el = kind[kd].el;
        const int n = kind[kd].n, R = size[s][0], C = size[s][1];
        const size_t N = (size_t)R * C * n, es = fg_elem_size(el);
        fg_graph *g = pointwise_graph(el, R, C, n, mix);
        fg_program *p = compile_mode(ctx, g, FG_FUSION_ON);
        ck_assert_int_eq(fg_program_kernel_count(p), 1);
        const char *src = fg_program_kernel_source(p, 0);
        if (!strstr(src, "__kernel") || strstr(src, "fgk_c0 = "))
          ck_assert_msg((strstr(src, "fgk_j = fgk_c0") != NULL) == !mix,
                        "%s %s x%d: flat loop %s", mix ? "mix" : "chan",
                        fg_elem_name(el), n,
                        mix ? "though elements mix" : "missing");
        uint8_t *x = malloc(N * es), *o = malloc(N * es);
        for (size_t i = 0; i < N; i++) {
          uint64_t r = rng_next(&rg);
          switch (el) {
          case FG_U8: ((uint8_t *)x)[i] = (uint8_t)r; break;
          case FG_U16: ((uint16_t *)x)[i] = (uint16_t)r; break;
          case FG_I16: ((int16_t *)x)[i] = (int16_t)r; break;
          default: ((float *)x)[i] = (float)((int)(r % 4096) - 2048) * 0.25f;
          }
        }
        run_ok(ctx, p, 1, (const void *[]){x}, 1, (void *[]){o});
        for (int row = 0; row < R; row++)
          for (int col = 0; col < C; col++)
            for (int k = 0; k < n; k++) {
              size_t px = ((size_t)row * C + col) * n;
              double want;
              if (mix) {
                want = elem_get(el, x, px + k) + elem_get(el, x, px + n - 1 - k);
              } else {
                /* exact in float: 1.25 x and x / 2 on coarse grids */
                double v = elem_get(el, x, px + k) * 1.25 + col * 0.5;
                if (el != FG_F32) {
                  double lo = el == FG_I16 ? -32768 : 0;
                  double hi = el == FG_U8 ? 255 : el == FG_U16 ? 65535 : 32767;
                  v = rint(v);
                  v = v < lo ? lo : v > hi ? hi : v;
                }
                want = v * 2;
              }
              /* integers wrap */
              if (el == FG_U8)
                want = (uint8_t)(long)want;
              else if (el == FG_U16)
                want = (uint16_t)(long)want;
              else if (el == FG_I16)
                want = (int16_t)(uint16_t)(long)want;
              double got = elem_get(el, o, px + k);
              ck_assert_msg(got == want, "%s %s x%d %dx%d at (%d, %d, %d): "
                            "%g, want %g", mix ? "mix" : "chan",
                            fg_elem_name(el), n, R, C, row, col, k, got, want);
            }
        free(x);
        free(o);
        fg_program_free(p);
        fg_graph_free(g);
      }
  tu_context_free(ctx);
}
END_TEST

/* The built-in pointwise operators write each element's chain apart
 * (a swizzle .k, a scalar chain, a vector literal of the results):
 * scale_offset, and to_unit then scale_offset fused, must take the flat
 * loop too (element 0's chain standing for every element's), while
 * "perm", written per element as (.y, .x, .z, .w), mixes elements and
 * must not.  Compared with C over u8 x3/x4, u16 x3 and f32 x3. */
static fg_graph *ops_graph(fg_elem el, int R, int C, int n, int which) {
  fg_type t = fg_type_vector(el, fg_shape2(R, C), n);
  fg_graph *g = fg_graph_new("ops");
  fg_field *x = fg_input(g, "x", t), *y;
  if (which == 0) {
    y = fg_scale_offset(g, x, 1.5, -7.0);
  } else if (which == 1) {
    y = fg_scale_offset(g, fg_to_unit(g, x), 3.0, 0.5);
  } else {
    fg_op *op = fg_op_begin(g, "perm", 1, &t);
    fg_expr *v = fg_tensor_var(op, x);
    fg_assign(v, fg_read_tensor(op, x));
    static const char *const c[] = {"y", "x", "z", "w"};
    fg_expr *e[4];
    for (int k = 0; k < n; k++)
      e[k] = fg_add(fg_swizzle(v, c[k]), fg_swizzle(v, c[k]));
    fg_write_tensor(op, 0, n == 3 ? fg_vector(el, 3, 3, e[0], e[1], e[2])
                                  : fg_vector(el, 4, 4, e[0], e[1], e[2],
                                              e[3]));
    y = fg_op_end(op);
  }
  fg_output(g, "out", y);
  return g;
}

START_TEST(test_fuse_pointwise_ops_flat_loop) {
  static const struct { fg_elem el; int n; } kind[] = {
    {FG_U8, 3}, {FG_U8, 4}, {FG_U16, 3}, {FG_F32, 3}};
  static const int size[][2] = {{1, 1}, {3, 5}, {2, 17}, {3, 70}};
  fg_context *ctx = tu_context();
  rng rg = {0x5ca1e0ffull};
  for (size_t kd = 0; kd < sizeof kind / sizeof kind[0]; kd++)
    for (int which = 0; which < 3; which++)
      for (size_t s = 0; s < sizeof size / sizeof size[0]; s++) {
        const fg_elem el = kind[kd].el;
        const int n = kind[kd].n, R = size[s][0], C = size[s][1];
        const size_t N = (size_t)R * C * n, es = fg_elem_size(el);
        /* to_unit's result is f32 */
        const fg_elem oel = which == 1 ? FG_F32 : el;
        fg_graph *g = ops_graph(el, R, C, n, which);
        fg_program *p = compile_mode(ctx, g, FG_FUSION_ON);
        ck_assert_int_eq(fg_program_kernel_count(p), 1);
        const char *src = fg_program_kernel_source(p, 0);
        if (!strstr(src, "__kernel") || strstr(src, "fgk_c0 = "))
          ck_assert_msg((strstr(src, "fgk_j = fgk_c0") != NULL) ==
                            (which != 2),
                        "op %d %s x%d: flat loop %s", which, fg_elem_name(el),
                        n, which == 2 ? "though elements mix" : "missing");
        uint8_t *x = malloc(N * es), *o = malloc(N * 4);
        for (size_t i = 0; i < N; i++) {
          uint64_t r = rng_next(&rg);
          switch (el) {
          case FG_U8: ((uint8_t *)x)[i] = (uint8_t)r; break;
          case FG_U16: ((uint16_t *)x)[i] = (uint16_t)r; break;
          default: ((float *)x)[i] = (float)((int)(r % 4096) - 2048) * 0.25f;
          }
        }
        run_ok(ctx, p, 1, (const void *[]){x}, 1, (void *[]){o});
        for (size_t i = 0; i < N; i++) {
          size_t k = i % (size_t)n;
          double want;
          if (which == 2) {
            size_t j = i - k + (k == 0 ? 1 : k == 1 ? 0 : k);
            want = elem_get(el, x, j) * 2;
            if (el == FG_U8)
              want = (uint8_t)(long)want;
            else if (el == FG_U16)
              want = (uint16_t)(long)want;
          } else {
            float v = (float)elem_get(el, x, i);
            if (which == 1 && el != FG_F32)
              v = v / (el == FG_U8 ? 255.0f : 65535.0f);
            volatile float prod = v * (which ? 3.0f : 1.5f);
            float w = prod + (which ? 0.5f : -7.0f);
            if (oel != FG_F32) {
              float hi = el == FG_U8 ? 255.0f : 65535.0f;
              w = rintf(w);
              w = w <= 0 ? 0 : w >= hi ? hi : w;
            }
            want = w;
          }
          double got = elem_get(oel, o, i);
          ck_assert_msg(got == want, "op %d %s x%d %dx%d element %zu: %g, "
                        "want %g", which, fg_elem_name(el), n, R, C, i, got,
                        want);
        }
        free(x);
        free(o);
        fg_program_free(p);
        fg_graph_free(g);
      }
  tu_context_free(ctx);
}
END_TEST

/* Reversed columns, as a flip reads them: out(r, c) = x(r, W + k - c)
 * for k = -1 (fg_flip's), -3 and 2, and y(r, Wy - 1 - c) with y narrower
 * than the threads.  On the CPU the columns where such a read lies in
 * its field run as a stencil's interior, unclamped (the loop "fgk_c <
 * fgk_hi" and the column "in0_C + -1L - fgk_c"); the rest clamp.
 * Compared with C that clamps every column. */
static fg_graph *reversed_graph(int R, int C, int Cy) {
  fg_type t = fg_type_vector(FG_U8, fg_shape2(R, C), 3);
  fg_type ty = fg_type_vector(FG_U8, fg_shape2(R, Cy), 3);
  fg_graph *g = fg_graph_new("reversed");
  fg_field *x = fg_input(g, "x", t), *y = fg_input(g, "y", ty);
  fg_output(g, "flip", fg_flip(g, x, true, false));
  static const int k[2] = {-3, 2};
  for (int i = 0; i < 2; i++) {
    fg_op *op = fg_op_begin(g, "rev", 1, &t);
    fg_expr *col = fg_sub(fg_addi(fg_field_extent(op, x, FG_COLUMNS), k[i]),
                          fg_column(op));
    fg_write_tensor(op, 0, fg_read_tensor_at(op, x, 2, fg_row(op), col));
    fg_output(g, i ? "rev_p2" : "rev_m3", fg_op_end(op));
  }
  fg_op *op = fg_op_begin(g, "rev_y", 1, &t);
  fg_expr *col = fg_sub(fg_subi(fg_field_extent(op, y, FG_COLUMNS), 1),
                        fg_column(op));
  fg_write_tensor(op, 0, fg_read_tensor_at(op, y, 2, fg_row(op), col));
  fg_output(g, "rev_y", fg_op_end(op));
  return g;
}

START_TEST(test_fuse_reversed_columns_match_c) {
  static const int size[][3] = {{1, 1, 1}, {2, 3, 2}, {3, 5, 1},
                                {4, 9, 4}, {5, 40, 33}};
  fg_context *ctx = tu_context();
  rng rg = {0xf11b5ull};
  for (size_t s = 0; s < sizeof size / sizeof size[0]; s++) {
    const int R = size[s][0], C = size[s][1], Cy = size[s][2];
    fg_graph *g = reversed_graph(R, C, Cy);
    fg_program *p = compile_mode(ctx, g, FG_FUSION_ON);
    for (int i = 0; i < fg_program_kernel_count(p); i++) {
      const char *src = fg_program_kernel_source(p, i);
      if (!strstr(src, "__kernel") &&
          strstr(fg_program_kernel_name(p, i), "flip"))
        ck_assert_msg(strstr(src, "fgk_c < fgk_hi") &&
                          strstr(src, "_C + -1L - fgk_c"),
                      "%s: no unclamped interior",
                      fg_program_kernel_name(p, i));
    }
    size_t n = (size_t)R * C * 3, ny = (size_t)R * Cy * 3;
    uint8_t *x = malloc(n), *y = malloc(ny), *o[4];
    for (size_t i = 0; i < n; i++)
      x[i] = (uint8_t)rng_next(&rg);
    for (size_t i = 0; i < ny; i++)
      y[i] = (uint8_t)rng_next(&rg);
    for (int i = 0; i < 4; i++)
      o[i] = malloc(n);
    run_ok(ctx, p, 2, (const void *[]){x, y}, 4,
           (void *[]){o[0], o[1], o[2], o[3]});
    static const int k[3] = {-1, -3, 2};
    for (int row = 0; row < R; row++)
      for (int col = 0; col < C; col++)
        for (int ch = 0; ch < 3; ch++) {
          size_t at = ((size_t)row * C + col) * 3 + ch;
          for (int i = 0; i < 3; i++) {
            int want = x[((size_t)row * C + clampi(C + k[i] - col, C)) * 3 +
                         ch];
            ck_assert_msg(o[i][at] == want, "%dx%d k %d at (%d, %d, %d): "
                          "%d, want %d", R, C, k[i], row, col, ch, o[i][at],
                          want);
          }
          int want = y[((size_t)row * Cy + clampi(Cy - 1 - col, Cy)) * 3 + ch];
          ck_assert_msg(o[3][at] == want, "%dx%d from %d columns at (%d, %d, "
                        "%d): %d, want %d", R, C, Cy, row, col, ch, o[3][at],
                        want);
        }
    free(x);
    free(y);
    for (int i = 0; i < 4; i++)
      free(o[i]);
    fg_program_free(p);
    fg_graph_free(g);
  }
  tu_context_free(ctx);
}
END_TEST

/* Reads of a flat u8 field at a base of the row plus the column: a plane
 * at row * C + _column + dc (dc = -1, 0, 2) and a 4:2:0 chroma pair at
 * R * C + (row >> 1) * C + (_column >> 1) * 2 + 1, the field a byte short
 * of the last pair, so that clamps bite at both ends.  On the CPU the
 * columns where every such read lies inside the field run unclamped and
 * affine (no fgk_at in that loop: contiguous loads, not gathers; the pair
 * as two loads and a choice by the column's parity); the rest clamp.
 * A tap of a second input at 1 + _column (a constant base) stays a
 * stencil's tap, bounded as one.  Compared with C that clamps each flat
 * index. */
static const int based_dc[3] = {-1, 0, 2};

static int64_t based_len(int R, int C) {
  return (int64_t)R * C + (int64_t)((R + 1) / 2) * C - 1;
}

static fg_graph *based_graph(int R, int C) {
  fg_type to = fg_type_scalar(FG_I32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("based");
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_U8,
                                                fg_shape1(based_len(R, C))));
  fg_field *y = fg_input(g, "y", fg_type_scalar(FG_U8, fg_shape2(R, C)));
  fg_op *op = fg_op_begin(g, "based", 1, &to);
  fg_expr *w = fg_columns(op), *sum = NULL;
  for (int k = 0; k < 4; k++) {
    fg_expr *i;
    if (k < 3)
      i = fg_add(fg_mul(fg_row(op), w), fg_addi(fg_column(op), based_dc[k]));
    else
      i = fg_add(fg_addi(fg_add(fg_mul(fg_shr(fg_row(op), fg_int(op, 1)), w),
                                fg_mul(w, fg_rows(op))), 1),
                 fg_muli(fg_shr(fg_column(op), fg_int(op, 1)), 2));
    fg_expr *v = fg_muli(fg_convert(fg_read_tensor_at(op, x, 1, i), FG_I32,
                                    1), 1 << (k == 3 ? 22 : 8 * k));
    sum = sum ? fg_add(sum, v) : v;
  }
  sum = fg_add(sum, fg_muli(fg_convert(fg_read_tensor_at(
                                op, y, 2, fg_row(op),
                                fg_add(fg_int(op, 1), fg_column(op))),
                            FG_I32, 1), 3));
  fg_write_tensor(op, 0, sum);
  fg_output(g, "o", fg_op_end(op));
  return g;
}

START_TEST(test_fuse_based_columns_match_c) {
  static const int size[][2] = {{1, 1}, {1, 3}, {2, 1}, {3, 5}, {4, 17},
                                {5, 33}, {6, 40}, {3, 67}};
  fg_context *ctx = tu_context();
  rng rg = {0xba5edull};
  for (size_t s = 0; s < sizeof size / sizeof size[0]; s++) {
    const int R = size[s][0], C = size[s][1];
    const int64_t n = based_len(R, C);
    fg_graph *g = based_graph(R, C);
    fg_program *p = compile_mode(ctx, g, FG_FUSION_ON);
    const char *src = fg_program_kernel_source(p, 0);
    if (!strstr(src, "__kernel")) {
      const char *in = strstr(src, "for (long fgk_c = fgk_lo; fgk_c < "
                                   "fgk_hi; ++fgk_c)");
      ck_assert_msg(in != NULL, "%dx%d: no interior loop", R, C);
      const char *end = strstr(in, "for (long fgk_c = fgk_lo == fgk_c0");
      ck_assert_ptr_nonnull(end);
      const char *at = strstr(in, "fgk_at(");
      ck_assert_msg(!at || at > end, "%dx%d: a clamped read in the "
                    "interior", R, C);
      ck_assert_msg(strstr(in, "fgk_x - 1") && strstr(in, "fgk_c & 1"),
                    "%dx%d: the pair is not two loads", R, C);
      ck_assert_msg(strstr(src, "if (fgk_hi > in1_C - 1L)") != NULL,
                    "%dx%d: the tap at 1 + _column is not bounded as one",
                    R, C);
    }
    uint8_t *x = malloc((size_t)n), *y = malloc((size_t)R * C);
    int32_t *o = malloc((size_t)R * C * sizeof *o);
    for (int64_t i = 0; i < n; i++)
      x[i] = (uint8_t)rng_next(&rg);
    for (int i = 0; i < R * C; i++)
      y[i] = (uint8_t)rng_next(&rg);
    run_ok(ctx, p, 2, (const void *[]){x, y}, 1, (void *[]){o});
    for (int row = 0; row < R; row++)
      for (int col = 0; col < C; col++) {
        int64_t idx[4];
        for (int k = 0; k < 3; k++)
          idx[k] = (int64_t)row * C + col + based_dc[k];
        idx[3] = (int64_t)R * C + (int64_t)(row / 2) * C + col / 2 * 2 + 1;
        int32_t want = 0;
        for (int k = 0; k < 4; k++) {
          int64_t i = idx[k] < 0 ? 0 : idx[k] >= n ? n - 1 : idx[k];
          want += (int32_t)x[i] * (1 << (k == 3 ? 22 : 8 * k));
        }
        want += 3 * y[(size_t)row * C + clampi(col + 1, C)];
        ck_assert_msg(o[(size_t)row * C + col] == want, "%dx%d at (%d, %d):"
                      " %d, want %d", R, C, row, col,
                      o[(size_t)row * C + col], want);
      }
    free(x);
    free(y);
    free(o);
    fg_program_free(p);
    fg_graph_free(g);
  }
  tu_context_free(ctx);
}
END_TEST

/* Taps whose column the operator clamps itself, as Cog's stencils write
 * them: clamp(_column + dc, lo, hi) with hi = _columns - 1 or - 3, a
 * constant (40: above some widths, below others), or lo above 0.  The
 * CPU's interior loop reads them unclamped only where every such clamp
 * keeps its value; compared with C that applies each clamp and then the
 * read's own. */
static const int ctap_dc[4] = {-1, 2, 1, 0}, ctap_lo[4] = {0, 0, 3, -3};
static int ctap_hi(int k, int C) {
  return k == 1 ? 40 : k == 2 ? C - 3 : C - 1;
}

static fg_graph *clamped_taps_graph(int R, int C) {
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("clamped_taps");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "ctaps", 1, &t);
  fg_expr *sum = NULL;
  for (int k = 0; k < 4; k++) {
    fg_expr *hi = k == 1 ? fg_int(op, 40)
                         : fg_subi(fg_columns(op), k == 2 ? 3 : 1);
    fg_expr *c = fg_clamp(fg_addi(fg_column(op), ctap_dc[k]),
                          fg_int(op, ctap_lo[k]), hi);
    fg_expr *r = fg_clamp(fg_addi(fg_row(op), k - 1), fg_int(op, 0),
                          fg_subi(fg_rows(op), 1));
    fg_expr *v = fg_mulf(fg_read_tensor_at(op, x, 2, r, c),
                         ldexpf(1.0f, 3 * k - 4));
    sum = sum ? fg_add(sum, v) : v;
  }
  fg_write_tensor(op, 0, sum);
  fg_field *f = fg_op_end(op);
  op = fg_op_begin(g, "neg", 1, &t);
  fg_write_tensor(op, 0, fg_neg(fg_read_tensor(op, f)));
  fg_output(g, "out", fg_op_end(op));
  return g;
}

START_TEST(test_fuse_stencil_explicit_clamps_match_c) {
  static const int size[][2] = {{1, 1}, {2, 3}, {3, 1}, {1, 6}, {4, 5},
                                {6, 7}, {13, 37}, {11, 300}};
  fg_context *ctx = tu_context();
  rng r = {0xc1a3bc1a3bull};
  for (size_t s = 0; s < sizeof size / sizeof size[0]; s++) {
    const int R = size[s][0], C = size[s][1], N = R * C;
    fg_graph *g = clamped_taps_graph(R, C);
    fg_program *fused = compile_mode(ctx, g, FG_FUSION_ON);
    ck_assert_int_eq(fg_program_kernel_count(fused), 1);
    float *x = malloc(sizeof(float) * N), *o = malloc(sizeof(float) * N);
    fill_floats(&r, x, (size_t)N);
    run_ok(ctx, fused, 1, (const void *[]){x}, 1, (void *[]){o});
    for (int row = 0; row < R; row++)
      for (int col = 0; col < C; col++) {
        float sum = 0;
        for (int k = 0; k < 4; k++) {
          int c = col + ctap_dc[k], hi = ctap_hi(k, C);
          c = c < ctap_lo[k] ? ctap_lo[k] : c;
          c = c > hi ? hi : c;
          int rr = row + k - 1;
          rr = rr < 0 ? 0 : rr > R - 1 ? R - 1 : rr;
          float v = x[rr * C + clampi(c, C)] * ldexpf(1.0f, 3 * k - 4);
          sum = k ? sum + v : v;
        }
        float want = -sum;
        int at = row * C + col;
        ck_assert_msg(memcmp(&o[at], &want, sizeof want) == 0,
                      "%dx%d at (%d, %d): got %a, want %a", R, C, row, col,
                      (double)o[at], (double)want);
      }
    free(x);
    free(o);
    fg_program_free(fused);
    fg_graph_free(g);
  }
  tu_context_free(ctx);
}
END_TEST

/* Whether program p's first kernel is OpenCL C whose work-items each run a
 * strip of columns (a CPU device's form, emit/dialect_cl.c). */
static bool strip_kernels(fg_program *p) {
  const char *src = fg_program_kernel_source(p, 0);
  return src && strstr(src, "__kernel") && strstr(src, "fgk_c0 = ");
}

/* Taps of a field smaller than the thread shape: x (R - 2) x (C - 3) read
 * at rows and columns the operator clamps to the thread's own extents
 * (clamp(_row + dr, 0, _rows - 1)), so the read clamps them again into
 * x; y (R x C) read at unclamped offsets.  OpenCL reads both through row
 * pointers and columns computed once per work-item (emit/hoist.c), one
 * clamp per coordinate, none at y's own row and column; compared with C
 * that applies both clamps. */
static fg_graph *small_taps_graph(int R, int C) {
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_type ts = fg_type_scalar(FG_F32, fg_shape2(R - 2, C - 3));
  fg_graph *g = fg_graph_new("small_taps");
  fg_field *x = fg_input(g, "x", ts), *y = fg_input(g, "y", t);
  fg_op *op = fg_op_begin(g, "staps", 1, &t);
  fg_expr *sum = NULL;
  for (int dr = -1; dr <= 1; dr++)
    for (int dc = -1; dc <= 1; dc++) {
      fg_expr *r = fg_clamp(fg_addi(fg_row(op), dr), fg_int(op, 0),
                            fg_subi(fg_rows(op), 1));
      fg_expr *c = fg_clamp(fg_addi(fg_column(op), dc), fg_int(op, 0),
                            fg_subi(fg_columns(op), 1));
      float w = ldexpf(1.0f, 3 * dr + dc);
      fg_expr *v = fg_add(fg_mulf(fg_read_tensor_at(op, x, 2, r, c), w),
                          fg_read_tensor_at(op, y, 2,
                                            fg_addi(fg_row(op), dr),
                                            fg_addi(fg_column(op), dc)));
      sum = sum ? fg_add(sum, v) : v;
    }
  fg_write_tensor(op, 0, sum);
  fg_output(g, "out", fg_op_end(op));
  return g;
}

START_TEST(test_fuse_stencil_smaller_input_match_c) {
  static const int size[][2] = {{3, 4}, {4, 5}, {5, 9}, {40, 77}};
  fg_context *ctx = tu_context();
  rng rg = {0x5a11ba95ull};
  for (size_t s = 0; s < sizeof size / sizeof size[0]; s++) {
    const int R = size[s][0], C = size[s][1], Rs = R - 2, Cs = C - 3;
    fg_graph *g = small_taps_graph(R, C);
    fg_program *p = compile_mode(ctx, g, FG_FUSION_ON);
    ck_assert_int_eq(fg_program_kernel_count(p), 1);
    const char *src = fg_program_kernel_source(p, 0);
    if (strip_kernels(p)) {
      /* a CPU device's strips: an interior loop with unclamped columns
       * beside the border loop, as the C dialect's (emit/stencil.c) */
      ck_assert_msg(strstr(src, "fgk_c < fgk_hi") &&
                    strstr(src, "fgk_atx(in"), "no interior loop");
    } else if (strstr(src, "__kernel")) {
      /* OpenCL: no tap computes its clamped flat index by itself, and
       * y's own column (y as wide as the threads) is not clamped */
      ck_assert_msg(!strstr(src, "fgk_at(in") && strstr(src, "fgk_h") &&
                    strstr(src, "= (long)_column;"),
                    "taps not hoisted:\n%s", src);
    }
    float *x = malloc(sizeof(float) * Rs * Cs);
    float *y = malloc(sizeof(float) * R * C), *o = malloc(sizeof(float) * R * C);
    fill_floats(&rg, x, (size_t)(Rs * Cs));
    fill_floats(&rg, y, (size_t)(R * C));
    run_ok(ctx, p, 2, (const void *[]){x, y}, 1, (void *[]){o});
    for (int row = 0; row < R; row++)
      for (int col = 0; col < C; col++) {
        float sum = 0;
        for (int dr = -1; dr <= 1; dr++)
          for (int dc = -1; dc <= 1; dc++) {
            int rr = clampi(clampi(row + dr, R), Rs);
            int cc = clampi(clampi(col + dc, C), Cs);
            float v = x[rr * Cs + cc] * ldexpf(1.0f, 3 * dr + dc) +
                      y[clampi(row + dr, R) * C + clampi(col + dc, C)];
            sum = dr > -1 || dc > -1 ? sum + v : v;
          }
        int at = row * C + col;
        ck_assert_msg(memcmp(&o[at], &sum, sizeof sum) == 0,
                      "%dx%d at (%d, %d): got %a, want %a", R, C, row, col,
                      (double)o[at], (double)sum);
      }
    free(x);
    free(y);
    free(o);
    fg_program_free(p);
    fg_graph_free(g);
  }
  tu_context_free(ctx);
}
END_TEST

/* Reads at a multiple of the thread's column plus a constant (a 2x2
 * shrink's taps, fg_downsample2): x (R x CX) at 2 _column + dc for dc in
 * -1..2 and y (R x CY) at 3 _column + dc for dc in {-2, 0, 4}, each
 * weighted by a power of two and summed in order; with mixed, x is also
 * read at 3 _column.  The C dialect (and OpenCL's strips) run an
 * interior loop with those columns unclamped (fgk_c * 2L), except when
 * one input is read at two scales; every sum is C's with clamped
 * columns, bit for bit, whether the inputs are narrower or wider than
 * the scaled thread columns. */
static fg_graph *scaled_taps_graph(int R, int C, int CX, int CY, bool mixed) {
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("scaled_taps");
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape2(R, CX)));
  fg_field *y = fg_input(g, "y", fg_type_scalar(FG_F32, fg_shape2(R, CY)));
  fg_op *op = fg_op_begin(g, "staps", 1, &t);
  fg_expr *sum = NULL;
  for (int k = 0; k < 8; k++) {
    fg_field *f = k < 4 ? x : k < 7 ? y : x;
    int s = k < 4 ? 2 : 3, dc = k < 4 ? k - 1 : k == 4 ? -2 : k == 5 ? 0 : 4;
    if (k == 7) {
      if (!mixed)
        break;
      dc = 0;
    }
    fg_expr *c = fg_addi(fg_muli(fg_column(op), s), dc);
    fg_expr *v = fg_mulf(fg_read_tensor_at(op, f, 2, fg_row(op), c),
                         ldexpf(1.0f, 2 * k - 5));
    sum = sum ? fg_add(sum, v) : v;
  }
  fg_write_tensor(op, 0, sum);
  fg_output(g, "out", fg_op_end(op));
  return g;
}

START_TEST(test_fuse_stencil_scaled_columns_match_c) {
  static const int size[][4] = {{3, 1, 1, 1},   {2, 7, 2, 3},
                                {4, 5, 9, 14},  {5, 9, 18, 27},
                                {3, 33, 20, 50}, {6, 40, 77, 130}};
  fg_context *ctx = tu_context();
  rng rg = {0x5ca1edull};
  for (size_t s = 0; s < sizeof size / sizeof size[0]; s++)
    for (int mixed = 0; mixed < 2; mixed++) {
      const int R = size[s][0], C = size[s][1], CX = size[s][2],
                CY = size[s][3];
      fg_graph *g = scaled_taps_graph(R, C, CX, CY, mixed);
      ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
      fg_program *p = compile_mode(ctx, g, FG_FUSION_ON);
      ck_assert_int_eq(fg_program_kernel_count(p), 1);
      const char *src = fg_program_kernel_source(p, 0);
      if (strip_kernels(p) || !strstr(src, "__kernel"))
        ck_assert_msg((strstr(src, "fgk_c * 2L") != NULL) == !mixed &&
                          (strstr(src, "fgk_c * 3L") != NULL) == !mixed,
                      "interior loop %s expected:\n%s",
                      mixed ? "not" : "", src);
      float *x = malloc(sizeof(float) * R * CX),
            *y = malloc(sizeof(float) * R * CY),
            *o = malloc(sizeof(float) * R * C);
      fill_floats(&rg, x, (size_t)(R * CX));
      fill_floats(&rg, y, (size_t)(R * CY));
      run_ok(ctx, p, 2, (const void *[]){x, y}, 1, (void *[]){o});
      for (int row = 0; row < R; row++)
        for (int col = 0; col < C; col++) {
          float sum = 0;
          for (int k = 0; k < 7 + mixed; k++) {
            int sc = k < 4 ? 2 : 3,
                dc = k < 4 ? k - 1 : k == 4 ? -2 : k == 5 ? 0 : k == 6 ? 4 : 0;
            float v = k < 4 || k == 7
                          ? x[row * CX + clampi(sc * col + dc, CX)]
                          : y[row * CY + clampi(sc * col + dc, CY)];
            v *= ldexpf(1.0f, 2 * k - 5);
            sum = k ? sum + v : v;
          }
          int at = row * C + col;
          ck_assert_msg(memcmp(&o[at], &sum, sizeof sum) == 0,
                        "%dx%d (x %d, y %d columns, mixed %d) at (%d, %d): "
                        "got %a, want %a",
                        R, C, CX, CY, mixed, row, col, (double)o[at],
                        (double)sum);
        }
      free(x);
      free(y);
      free(o);
      fg_program_free(p);
      fg_graph_free(g);
    }
  tu_context_free(ctx);
}
END_TEST

/* Block sums in counted loops (an area resize's by a whole factor S):
 * out (R x C, f32x3) sums, for u and v in [0, S), x (u8x3, RX x CX) at
 * (S _row + u, S _column + v + dc), each weighted by 2^(S u + v), in that
 * order; "<=" loops over v with v <= S - 1.  The C dialect (and OpenCL's
 * strips) take S _column + v for a shrink's block of columns: an
 * interior loop reads them unclamped (fgk_c * SL + (long)(v), or words at
 * the block's first column, fgk_c * SL + 0L) where the whole block lies
 * in x.  With reassigned, v is also set after its loop
 * to 2 S + 1 and x read there once more: no counter, so that read stays
 * clamped (and the kernel unsplit).  Every value is C's, clamped, bit for
 * bit, on sizes S does not divide, narrower and wider than S C. */
static fg_graph *counter_taps_graph(int R, int C, int RX, int CX, int S,
                                    int dc, bool le, bool reassigned) {
  fg_type t = fg_type_vector(FG_F32, fg_shape2(R, C), 3);
  fg_graph *g = fg_graph_new("counter_taps");
  fg_field *x = fg_input(g, "x", fg_type_vector(FG_U8, fg_shape2(RX, CX), 3));
  fg_op *op = fg_op_begin(g, "ctaps", 1, &t);
  fg_expr *acc = fg_var(op, FG_F32, 3), *w = fg_var(op, FG_F32, 1);
  fg_expr *u = fg_var(op, FG_I32, 1), *v = fg_var(op, FG_I32, 1);
  fg_assign(w, fg_float(op, 1.0f));
  fg_for(u, fg_int(op, 0), fg_lt(u, fg_int(op, S)), fg_int(op, 1));
  fg_for(v, fg_int(op, 0),
         le ? fg_le(v, fg_int(op, S - 1)) : fg_lt(v, fg_int(op, S)),
         fg_int(op, 1));
  fg_expr *c = fg_addi(fg_add(fg_muli(fg_column(op), S), v), dc);
  fg_expr *r = fg_add(fg_muli(fg_row(op), S), u);
  fg_assign(acc, fg_add(acc, fg_mul(fg_convert(fg_read_tensor_at(op, x, 2,
                                                                 r, c),
                                               FG_F32, 3),
                                    w)));
  fg_assign(w, fg_mulf(w, 2.0f));
  fg_end(op);
  fg_end(op);
  if (reassigned) {
    fg_assign(v, fg_int(op, 2 * S + 1));
    fg_expr *c2 = fg_add(fg_muli(fg_column(op), S), v);
    fg_assign(acc, fg_add(acc, fg_convert(fg_read_tensor_at(op, x, 2,
                                                            fg_row(op), c2),
                                          FG_F32, 3)));
  }
  fg_write_tensor(op, 0, acc);
  fg_output(g, "out", fg_op_end(op));
  return g;
}

START_TEST(test_fuse_stencil_counter_columns_match_c) {
  static const int size[][5] = {
      {1, 1, 1, 1, 2},   {1, 1, 3, 5, 3},     {2, 3, 4, 7, 2},
      {3, 5, 12, 21, 4}, {4, 33, 9, 100, 3},  {5, 40, 20, 161, 4},
      {2, 9, 5, 17, 2}};
  fg_context *ctx = tu_context();
  rng rg = {0xb10c5ull};
  for (size_t s = 0; s < sizeof size / sizeof size[0]; s++)
    for (int var = 0; var < 4; var++) {
      const int R = size[s][0], C = size[s][1], RX = size[s][2],
                CX = size[s][3], S = size[s][4];
      const int dc = var == 1 ? -1 : 0;
      const bool le = var == 2, re = var == 3;
      fg_graph *g = counter_taps_graph(R, C, RX, CX, S, dc, le, re);
      ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
      fg_program *p = compile_mode(ctx, g, FG_FUSION_ON);
      ck_assert_int_eq(fg_program_kernel_count(p), 1);
      const char *src = fg_program_kernel_source(p, 0);
      /* (or the block's first column, where its bytes are read as words,
       * emit/taps.c) */
      char want[32], words[32];
      snprintf(want, sizeof want, "fgk_c * %dL + (long)(", S);
      snprintf(words, sizeof words, "fgk_c * %dL + 0L) * ", S);
      if (strip_kernels(p) || !strstr(src, "__kernel"))
        ck_assert_msg((strstr(src, want) || strstr(src, words)) == !re,
                      "%dx%d of %dx%d by %d (variant %d): unclamped block "
                      "columns (%s) %sexpected",
                      R, C, RX, CX, S, var, want, re ? "not " : "");
      uint8_t *x = malloc((size_t)RX * CX * 3);
      float *o = malloc(sizeof(float) * R * C * 3);
      for (int i = 0; i < RX * CX * 3; i++)
        x[i] = (uint8_t)rng_next(&rg);
      run_ok(ctx, p, 1, (const void *[]){x}, 1, (void *[]){o});
      for (int row = 0; row < R; row++)
        for (int col = 0; col < C; col++)
          for (int k = 0; k < 3; k++) {
            float sum = 0, wt = 1;
            for (int uu = 0; uu < S; uu++)
              for (int vv = 0; vv < S; vv++) {
                int rr = clampi(S * row + uu, RX),
                    cc = clampi(S * col + vv + dc, CX);
                sum = sum + (float)x[(rr * CX + cc) * 3 + k] * wt;
                wt = wt * 2.0f;
              }
            if (re)
              sum = sum + (float)x[(clampi(row, RX) * CX +
                                    clampi(S * col + 2 * S + 1, CX)) * 3 + k];
            int at = (row * C + col) * 3 + k;
            ck_assert_msg(memcmp(&o[at], &sum, sizeof sum) == 0,
                          "%dx%d of %dx%d by %d (variant %d) at (%d, %d, "
                          "%d): got %a, want %a",
                          R, C, RX, CX, S, var, row, col, k, (double)o[at],
                          (double)sum);
          }
      free(x);
      free(o);
      fg_program_free(p);
      fg_graph_free(g);
    }
  tu_context_free(ctx);
}
END_TEST

/* Reads across rows: out (R x C) = x at (C - 1 - _column + dr, _row)
 * for dr in {-1, 0} (x is C x R: a quarter turn's read and its
 * neighbour, the row clamped; the rows through variables) times 2 plus
 * y at the thread's own point; a transpose of u8x3 pixels beside it (its
 * row the column itself).  The C dialect
 * walks such a kernel in blocks of columns (fgk_cb); every value is C's,
 * at sizes narrower than a block, across several, and with fewer rows
 * than the backend's tiles (a launch split by columns). */
static fg_field *turn_op(fg_graph *g, fg_field *x, fg_field *y) {
  fg_type t = fg_field_type(y);
  fg_op *op = fg_op_begin(g, "turn", 1, &t);
  fg_expr *sum = NULL;
  for (int dr = -1; dr <= 0; dr++) {
    /* the row through variables of the row and the column, as a warp
     * computes its source row (so no column table holds it) */
    fg_expr *c = fg_var(op, FG_I32, 1), *r = fg_var(op, FG_I32, 1);
    fg_assign(c, fg_add(fg_column(op), fg_row(op)));
    fg_assign(r, fg_add(fg_addi(fg_sub(fg_subi(fg_field_extent(op, x,
                                                               FG_ROWS),
                                               1), c), dr),
                        fg_row(op)));
    fg_expr *v = fg_read_tensor_at(op, x, 2, r, fg_row(op));
    sum = sum ? fg_add(fg_mulf(sum, 2.0f), v) : v;
  }
  fg_write_tensor(op, 0, fg_add(sum, fg_read_tensor(op, y)));
  return fg_op_end(op);
}

/* Whether a C-dialect kernel of p (not OpenCL's) lacks column blocks. */
static bool unblocked_kernel(fg_program *p) {
  for (int i = 0; i < fg_program_kernel_count(p); i++) {
    const char *src = fg_program_kernel_source(p, i);
    if (!strstr(src, "__kernel") && !strstr(src, "fgk_cb += "))
      return true;
  }
  return false;
}

START_TEST(test_fuse_column_blocks_match_c) {
  static const int size[][2] = {{1, 1}, {5, 3}, {7, 64}, {2, 300},
                                {33, 130}, {130, 45}};
  fg_context *ctx = tu_context();
  rng rg = {0xb10cull};
  for (size_t s = 0; s < sizeof size / sizeof size[0]; s++) {
    const int R = size[s][0], C = size[s][1];
    fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
    fg_type tx = fg_type_scalar(FG_F32, fg_shape2(C, R));
    fg_type p3 = fg_type_vector(FG_U8, fg_shape2(C, R), 3);
    fg_graph *g = fg_graph_new("blocks");
    fg_field *x = fg_input(g, "x", tx), *y = fg_input(g, "y", t),
             *px = fg_input(g, "px", p3);
    fg_output(g, "out", turn_op(g, x, y));
    fg_output(g, "tr", fg_transpose(g, px));
    fg_program *p = compile_mode(ctx, g, FG_FUSION_ON);
    ck_assert_msg(!unblocked_kernel(p), "no column blocks");
    /* the turn alone: only its rows through variables hold the column */
    fg_graph *g1 = fg_graph_new("blocks1");
    fg_output(g1, "out", turn_op(g1, fg_input(g1, "x", tx),
                                 fg_input(g1, "y", t)));
    fg_program *p1 = compile_mode(ctx, g1, FG_FUSION_ON);
    ck_assert_msg(!unblocked_kernel(p1), "no column blocks (variables)");
    fg_program_free(p1);
    fg_graph_free(g1);
    float *xv = malloc(sizeof(float) * R * C),
          *yv = malloc(sizeof(float) * R * C),
          *o = malloc(sizeof(float) * R * C);
    uint8_t *pv = malloc((size_t)3 * R * C), *po = malloc((size_t)3 * R * C);
    fill_floats(&rg, xv, (size_t)(R * C));
    fill_floats(&rg, yv, (size_t)(R * C));
    for (int i = 0; i < 3 * R * C; i++)
      pv[i] = (uint8_t)(rng_next(&rg) >> 24);
    run_ok(ctx, p, 3, (const void *[]){xv, yv, pv}, 2, (void *[]){o, po});
    for (int row = 0; row < R; row++)
      for (int col = 0; col < C; col++) {
        float want = xv[clampi(C - 1 - col - 1, C) * R + row] * 2.0f +
                     xv[(C - 1 - col) * R + row] + yv[row * C + col];
        int at = row * C + col;
        ck_assert_msg(memcmp(&o[at], &want, sizeof want) == 0,
                      "%dx%d at (%d, %d): got %a, want %a", R, C, row, col,
                      (double)o[at], (double)want);
      }
    /* tr is R x C of px (C x R): tr(r, c) = px(c, r) */
    for (int row = 0; row < R; row++)
      for (int col = 0; col < C; col++)
        for (int k = 0; k < 3; k++)
          ck_assert_msg(po[(row * C + col) * 3 + k] ==
                            pv[(col * R + row) * 3 + k],
                        "transpose %dx%d at (%d, %d, %d)", R, C, row, col, k);
    free(xv);
    free(yv);
    free(o);
    free(pv);
    free(po);
    fg_program_free(p);
    fg_graph_free(g);
  }
  tu_context_free(ctx);
}
END_TEST

/* A thread per row sums, by loops over x: a's row for x < a's columns
 * (out0: the read needs no clamp); b's row (narrower) for x < a's
 * columns (out1: clamped at b's last column); a's row for x < a's
 * columns + 2 (out2: clamped); a at x and x + 1 with x stepped by the
 * body too (out3: clamped).  Only out0's read loses its clamp (fgk_atx),
 * on both dialects; every sum matches C's clamping. */
START_TEST(test_fuse_column_loop_reads) {
  enum { R = 5, CA = 9, CB = 6 };
  fg_graph *g = fg_graph_new("column_loops");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape2(R, CA)));
  fg_field *b = fg_input(g, "b", fg_type_scalar(FG_F32, fg_shape2(R, CB)));
  fg_type ot = fg_type_scalar(FG_F32, fg_shape1(R));
  fg_op *op = fg_op_begin(g, "sums", 4, (fg_type[]){ot, ot, ot, ot});
  fg_expr *row = fg_column(op), *accs[4];
  for (int k = 0; k < 4; k++) {
    fg_expr *acc = accs[k] = fg_var(op, FG_F32, 1);
    fg_expr *x = fg_var(op, FG_I32, 1);
    fg_expr *end = fg_field_extent(op, a, FG_COLUMNS);
    fg_for(x, fg_int(op, 0), fg_lt(x, k == 2 ? fg_addi(end, 2) : end),
           fg_int(op, 1));
    fg_assign(acc, fg_add(acc, fg_read_tensor_at(op, k == 1 ? b : a, 2, row,
                                                 x)));
    if (k == 3) {
      fg_assign(x, fg_addi(x, 1));
      fg_assign(acc, fg_add(acc, fg_mulf(fg_read_tensor_at(op, a, 2, row, x),
                                         0.5f)));
    }
    fg_end(op);
  }
  for (int k = 0; k < 4; k++)
    fg_write_tensor(op, k, accs[k]);
  fg_output(g, "s0", fg_op_end(op));
  fg_output(g, "s1", fg_op_output(op, 1));
  fg_output(g, "s2", fg_op_output(op, 2));
  fg_output(g, "s3", fg_op_output(op, 3));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  fg_context *ctx = tu_context();
  fg_program *p = compile_mode(ctx, g, FG_FUSION_ON);
  ck_assert_int_eq(fg_program_kernel_count(p), 1);
  const char *src = fg_program_kernel_source(p, 0);
  const char *atx = strstr(src, "fgk_atx(in0_L");
  ck_assert_msg(atx && !strstr(atx + 1, "fgk_atx(") &&
                    strstr(src, "fgk_at(in1_L") && strstr(src, "fgk_at(in0_L"),
                "one unclamped column expected:\n%s", src);
  float av[R * CA], bv[R * CB], o[4][R];
  for (int i = 0; i < R * CA; i++)
    av[i] = (float)(i * 7 % 13);
  for (int i = 0; i < R * CB; i++)
    bv[i] = (float)(i * 5 % 11);
  run_ok(ctx, p, 2, (const void *[]){av, bv}, 4,
         (void *[]){o[0], o[1], o[2], o[3]});
  for (int r = 0; r < R; r++) {
    float want[4] = {0, 0, 0, 0};
    for (int x = 0; x < CA; x++) {
      want[0] += av[r * CA + x];
      want[1] += bv[r * CB + clampi(x, CB)];
    }
    for (int x = 0; x < CA + 2; x++)
      want[2] += av[r * CA + clampi(x, CA)];
    for (int x = 0; x < CA; x++) {
      want[3] += av[r * CA + x];
      x++;
      want[3] += av[r * CA + clampi(x, CA)] * 0.5f;
    }
    for (int k = 0; k < 4; k++)
      ck_assert_msg(o[k][r] == want[k], "out%d row %d: %g, expected %g", k, r,
                    (double)o[k][r], (double)want[k]);
  }
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

/* Explicit reads under each border rule (fg_read_tensor_at_border) at
 * column offsets -3..+2 and row offsets -2..+1, on sizes where taps reach
 * past both edges, one period and more: compared with C remapping every
 * coordinate; the CPU reads the interior columns unremapped. */
static int border_index(int i, int n, fg_border b) {
  if (b == FG_BORDER_MIRROR) {
    if (n == 1)
      return 0;
    int p = 2 * n - 2, m = (i < 0 ? -i : i) % p;
    return m < p - m ? m : p - m;
  }
  if (b == FG_BORDER_REFLECT) {
    int p = 2 * n, m = (i < -1 - i ? -1 - i : i) % p;
    return m < p - 1 - m ? m : p - 1 - m;
  }
  if (b == FG_BORDER_WRAP)
    return (i % n + n) % n;
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}

static fg_graph *border_graph(int R, int C, fg_border b) {
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("border_taps");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "btaps", 1, &t);
  fg_expr *sum = NULL;
  for (int k = 0; k < 6; k++) {
    fg_expr *v = fg_read_tensor_at_border(op, x, b, 2,
                                          fg_addi(fg_row(op), k % 4 - 2),
                                          fg_addi(fg_column(op), k - 3));
    v = fg_mulf(v, ldexpf(1.0f, 2 * k - 5));
    sum = sum ? fg_add(sum, v) : v;
  }
  fg_write_tensor(op, 0, sum);
  fg_output(g, "out", fg_op_end(op));
  return g;
}

START_TEST(test_fuse_stencil_border_rules_match_c) {
  static const int size[][2] = {{1, 1}, {2, 2}, {3, 1}, {1, 5}, {4, 7},
                                {9, 31}, {5, 203}};
  static const fg_border rule[] = {FG_BORDER_CLAMP, FG_BORDER_MIRROR,
                                   FG_BORDER_REFLECT, FG_BORDER_WRAP};
  fg_context *ctx = tu_context();
  rng r = {0xb0bde7ull};
  for (size_t s = 0; s < sizeof size / sizeof size[0]; s++)
    for (int b = 0; b < 4; b++) {
      const int R = size[s][0], C = size[s][1], N = R * C;
      fg_graph *g = border_graph(R, C, rule[b]);
      fg_program *p = compile_mode(ctx, g, FG_FUSION_ON);
      float *x = malloc(sizeof(float) * N), *o = malloc(sizeof(float) * N);
      fill_floats(&r, x, (size_t)N);
      run_ok(ctx, p, 1, (const void *[]){x}, 1, (void *[]){o});
      for (int row = 0; row < R; row++)
        for (int col = 0; col < C; col++) {
          float sum = 0;
          for (int k = 0; k < 6; k++) {
            int rr = border_index(row + k % 4 - 2, R, rule[b]);
            int cc = border_index(col + k - 3, C, rule[b]);
            float v = x[rr * C + cc] * ldexpf(1.0f, 2 * k - 5);
            sum = k ? sum + v : v;
          }
          int at = row * C + col;
          ck_assert_msg(memcmp(&o[at], &sum, sizeof sum) == 0,
                        "rule %d, %dx%d at (%d, %d): got %a, want %a", b, R,
                        C, row, col, (double)o[at], (double)sum);
        }
      free(x);
      free(o);
      fg_program_free(p);
      fg_graph_free(g);
    }
  /* CONSTANT is no coordinate rule: refused, naming the field */
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(3, 3));
  fg_graph *g = fg_graph_new("constant_border");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "c", 1, &t);
  ck_assert_ptr_null(fg_read_tensor_at_border(op, x, FG_BORDER_CONSTANT, 2,
                                              fg_row(op), fg_column(op)));
  ck_assert_int_eq(fg_graph_status(g), FG_EINVAL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "'x'") &&
                strstr(fg_graph_errmsg(g), "_WRAP"),
                "message: %s", fg_graph_errmsg(g));
  fg_graph_free(g);
  /* a NULL field is reported as such, whatever the rule */
  g = fg_graph_new("null_field");
  op = fg_op_begin(g, "n", 1, &t);
  ck_assert_ptr_null(fg_read_tensor_at_border(op, NULL, FG_BORDER_CONSTANT, 2,
                                              fg_row(op), fg_column(op)));
  ck_assert_int_eq(fg_graph_status(g), FG_EINVAL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "field is NULL"), "message: %s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

static fg_expr *body_erf(fg_op *op, fg_expr *x) {
  (void)op;
  return fg_erf(x);
}

/* The vectorization cost rule: on the CPU a call into scalar libm (erf)
 * keeps a loop scalar, so mul -> erf -> erf -> add -> sqrt(|x|) fuses
 * into mul | erf+erf | add+sqrt (sqrt and fabs vectorize), and the
 * report gives the rule as the reason; so on a CPU OpenCL device, whose
 * strips of columns its compiler widens as clang does (its erf is a call);
 * OpenCL GPUs run calls in SIMT, so there the chain is one kernel.  Results
 * are the same either way. */
START_TEST(test_fuse_cost_rule_keeps_scalar_calls_apart) {
  const int N = 1000;
  fg_type t = fg_type_scalar(FG_F32, fg_shape1(N));
  fg_graph *g = fg_graph_new("costrule");
  fg_field *f = fg_input(g, "x", t);
  f = pointwise(g, "mul", f, body_mul);
  f = pointwise(g, "erf1", f, body_erf);
  f = pointwise(g, "erf2", f, body_erf);
  f = pointwise(g, "add", f, body_add);
  f = pointwise(g, "root", f, body_root);
  fg_output(g, "y", f);
  fg_context *ctx = tu_context();
  fg_program *fused = compile_mode(ctx, g, FG_FUSION_ON);
  fg_program *unfused = compile_mode(ctx, g, FG_FUSION_OFF);
  const char *be = getenv("FG_TEST_BACKEND");
  if (be && !strcmp(be, "opencl") && !strip_kernels(unfused)) {
    ck_assert_int_eq(fg_program_kernel_count(fused), 1);
  } else {
    ck_assert_int_eq(fg_program_kernel_count(fused), 3);
    ck_assert_str_eq(fg_program_kernel_name(fused, 0), "mul");
    ck_assert_str_eq(fg_program_kernel_name(fused, 1), "erf1+erf2");
    ck_assert_str_eq(fg_program_kernel_name(fused, 2), "add+root");
    const char *why = fg_program_field_reason(fused, "mul.out0");
    ck_assert_msg(contains(why, "cost rule: erf1 calls erf"),
                  "mul.out0's reason is '%s'", why ? why : "(null)");
    why = fg_program_field_reason(fused, "erf2.out0");
    ck_assert_msg(contains(why, "cost rule: erf1 calls erf") &&
                  contains(why, "(add)"),
                  "erf2.out0's reason is '%s'", why ? why : "(null)");
  }
  float *x = malloc(sizeof(float) * N), *o1 = malloc(sizeof(float) * N);
  float *o2 = malloc(sizeof(float) * N);
  rng r = {0xc0575eedull};
  fill_floats(&r, x, (size_t)N);
  run_ok(ctx, fused, 1, (const void *[]){x}, 1, (void *[]){o1});
  run_ok(ctx, unfused, 1, (const void *[]){x}, 1, (void *[]){o2});
  ck_assert_msg(memcmp(o1, o2, sizeof(float) * N) == 0,
                "fused and unfused differ");
  free(x);
  free(o1);
  free(o2);
  fg_program_free(fused);
  fg_program_free(unfused);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* x -> a (pointwise); a -> b (pointwise); a -> s (vertical pair of a,
 * explicit reads).  Outputs b and s. */
static fg_graph *shared_graph(int R, int C) {
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("shared");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "a", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, x), 1.5f));
  fg_field *a = fg_op_end(op);
  op = fg_op_begin(g, "b", 1, &t);
  fg_write_tensor(op, 0, fg_addf(fg_read_tensor(op, a), 0.25f));
  fg_output(g, "b", fg_op_end(op));
  op = fg_op_begin(g, "s", 1, &t);
  fg_write_tensor(op, 0, fg_add(
      fg_read_tensor_at(op, a, 2, fg_subi(fg_row(op), 1), fg_column(op)),
      fg_read_tensor_at(op, a, 2, fg_addi(fg_row(op), 1), fg_column(op))));
  fg_output(g, "s", fg_op_end(op));
  return g;
}

START_TEST(test_fuse_field_used_by_pointwise_and_stencil) {
  const int R = 23, C = 31, N = R * C;
  fg_graph *g = shared_graph(R, C);
  fg_context *ctx = tu_context();
  fg_program *fused = compile_mode(ctx, g, FG_FUSION_ON);
  fg_program *unfused = compile_mode(ctx, g, FG_FUSION_OFF);
  ck_assert_int_eq(fg_program_kernel_count(fused), 2);
  ck_assert_str_eq(fg_program_kernel_name(fused, 0), "a+b");
  ck_assert_str_eq(fg_program_kernel_name(fused, 1), "s");
  ck_assert_int_eq(fg_program_kernel_count(unfused), 3);
  const char *why = fg_program_field_reason(fused, "a.out0");
  ck_assert_ptr_nonnull(why);
  ck_assert_msg(contains(why, "non-local read by s"), "a.out0's reason is "
                "'%s'", why);
  ck_assert_str_eq(fg_program_field_reason(fused, "b.out0"), "graph output");
  ck_assert_str_eq(fg_program_field_reason(fused, "s.out0"), "graph output");
  fg_fusion_stats s;
  ck_assert_int_eq(fg_program_fusion_stats(fused, &s), FG_OK);
  ck_assert_int_eq(s.fields_materialized, 3);   /* a once, b, s */
  ck_assert_int_eq(s.fields_virtual, 0);
  ck_assert_int_eq(s.kernels_unfused, 3);
  /* a+b reads x and writes a and b; s reads a and writes s: five field
   * passes where the three unfused kernels make six */
  int64_t fb = (int64_t)N * 4;
  ck_assert_int_eq(s.bytes, 5 * fb);
  ck_assert_int_eq(s.bytes_unfused, 6 * fb);

  float *x = malloc(sizeof(float) * N);
  float *b1 = malloc(sizeof(float) * N), *s1 = malloc(sizeof(float) * N);
  float *b2 = malloc(sizeof(float) * N), *s2 = malloc(sizeof(float) * N);
  rng r = {0x5eed5eed5eed5eedull};
  fill_floats(&r, x, (size_t)N);
  run_ok(ctx, fused, 1, (const void *[]){x}, 2, (void *[]){b1, s1});
  run_ok(ctx, unfused, 1, (const void *[]){x}, 2, (void *[]){b2, s2});
  ck_assert_msg(memcmp(b1, b2, sizeof(float) * N) == 0, "b differs");
  ck_assert_msg(memcmp(s1, s2, sizeof(float) * N) == 0, "s differs");
  for (int row = 0; row < R; row++)
    for (int col = 0; col < C; col++) {
      int i = row * C + col;
      float want_b = rounded(x[i] * 1.5f) + 0.25f;
      float up = rounded(x[clampi(row - 1, R) * C + col] * 1.5f);
      float down = rounded(x[clampi(row + 1, R) * C + col] * 1.5f);
      float want_s = up + down;
      ck_assert_msg(memcmp(&b1[i], &want_b, 4) == 0, "b[%d][%d] = %a, want "
                    "%a", row, col, (double)b1[i], (double)want_b);
      ck_assert_msg(memcmp(&s1[i], &want_s, 4) == 0, "s[%d][%d] = %a, want "
                    "%a", row, col, (double)s1[i], (double)want_s);
    }
  free(x);
  free(b1);
  free(s1);
  free(b2);
  free(s2);
  fg_program_free(fused);
  fg_program_free(unfused);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_fuse_check_mode_and_env) {
  const int R = 29, C = 41, N = R * C;
  unsetenv("FG_FUSION");
  fg_graph *g = blur_graph(R, C);
  fg_context *ctx = tu_context();
  float *x = malloc(sizeof(float) * N), *o1 = malloc(sizeof(float) * N);
  float *o2 = malloc(sizeof(float) * N);
  rng r = {0x7777777712345678ull};
  fill_floats(&r, x, (size_t)N);

  /* check mode: builds both, runs both, compares; launches the fused one */
  fg_program *p = compile_mode(ctx, g, FG_FUSION_CHECK);
  ck_assert_int_eq(fg_program_kernel_count(p), 2);
  ck_assert_str_eq(fg_program_kernel_name(p, 1), "blur+p1+p2");
  run_ok(ctx, p, 1, (const void *[]){x}, 1, (void *[]){o1});
  fg_program_free(p);
  p = compile_mode(ctx, g, FG_FUSION_OFF);
  run_ok(ctx, p, 1, (const void *[]){x}, 1, (void *[]){o2});
  ck_assert_msg(memcmp(o1, o2, sizeof(float) * N) == 0,
                "check mode's result differs from the unfused program's");
  fg_program_free(p);

  /* the default follows $FG_FUSION */
  p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_kernel_count(p), 2);
  fg_program_free(p);
  setenv("FG_FUSION", "0", 1);
  ctx = tu_context_renew(ctx);   /* the context reads it once */
  p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_kernel_count(p), 4);
  fg_program_free(p);
  setenv("FG_FUSION", "off", 1);
  ctx = tu_context_renew(ctx);   /* the context reads it once */
  p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_kernel_count(p), 4);
  fg_program_free(p);
  /* explicit options win over the environment */
  p = compile_mode(ctx, g, FG_FUSION_ON);
  ck_assert_int_eq(fg_program_kernel_count(p), 2);
  fg_program_free(p);
  setenv("FG_FUSION", "1", 1);
  ctx = tu_context_renew(ctx);   /* the context reads it once */
  p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_kernel_count(p), 2);
  fg_program_free(p);
  setenv("FG_FUSION", "check", 1);
  ctx = tu_context_renew(ctx);   /* the context reads it once */
  p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_kernel_count(p), 2);
  memset(o1, 0, sizeof(float) * N);
  run_ok(ctx, p, 1, (const void *[]){x}, 1, (void *[]){o1});
  ck_assert_msg(memcmp(o1, o2, sizeof(float) * N) == 0,
                "$FG_FUSION=check result differs");
  fg_program_free(p);
  setenv("FG_FUSION", "bogus", 1);
  ctx = tu_context_renew(ctx);   /* the context reads it once */
  p = (fg_program *)1;
  ck_assert_int_eq(fg_compile(ctx, g, NULL, &p), FG_EINVAL);
  ck_assert_ptr_null(p);
  ck_assert_msg(contains(fg_context_errmsg(ctx), "FG_FUSION"),
                "message: %s", fg_context_errmsg(ctx));
  ck_assert_msg(contains(fg_context_errmsg(ctx), "bogus"),
                "message: %s", fg_context_errmsg(ctx));
  unsetenv("FG_FUSION");
  ctx = tu_context_renew(ctx);
  /* an out-of-range mode in the options is refused too */
  fg_compile_options bad = {.fusion = (fg_fusion)42};
  p = (fg_program *)1;
  ck_assert_int_eq(fg_compile(ctx, g, &bad, &p), FG_EINVAL);
  ck_assert_ptr_null(p);
  free(x);
  free(o1);
  free(o2);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_fuse_report_text) {
  fg_graph *g = shared_graph(23, 31);
  fg_context *ctx = tu_context();
  fg_program *p = compile_mode(ctx, g, FG_FUSION_ON);
  const char *rep = fg_program_fusion_report(p);
  ck_assert_msg(contains(rep, "kernels: "), "report:\n%s", rep);
  ck_assert_msg(contains(rep, "a+b"), "report:\n%s", rep);
  static const char *const fields[] = {"a.out0", "b.out0", "s.out0"};
  for (int i = 0; i < 3; i++) {
    const char *why = fg_program_field_reason(p, fields[i]);
    ck_assert_ptr_nonnull(why);
    char line[256];
    snprintf(line, sizeof line, "%s: %s", fields[i], why);
    ck_assert_msg(contains(rep, line), "'%s' missing from the report:\n%s",
                  line, rep);
  }
  fg_program_free(p);
  fg_graph_free(g);

  /* fused-away fields are not listed as materialized */
  g = blur_graph(29, 41);
  p = compile_mode(ctx, g, FG_FUSION_ON);
  rep = fg_program_fusion_report(p);
  ck_assert_msg(contains(rep, "kernels: "), "report:\n%s", rep);
  ck_assert_msg(contains(rep, "pre.out0: "), "report:\n%s", rep);
  ck_assert_msg(contains(rep, "p2.out0: "), "report:\n%s", rep);
  ck_assert_msg(!contains(rep, "blur.out0"), "report:\n%s", rep);
  ck_assert_msg(!contains(rep, "p1.out0"), "report:\n%s", rep);
  ck_assert_msg(contains(rep, "blur+p1+p2"), "report:\n%s", rep);
  fg_program_free(p);
  ck_assert_str_eq(fg_program_fusion_report(NULL), "");
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* Saturating float-to-u8 conversions of four lanes (scale_offset on u8x4),
 * whose lane 0 an integer comparison reads: clang 14 with AVX-512 lowers
 * the select the SLP vectorizer makes of them wrongly (backend-cpu/cpu.c),
 * so that lane 0 kept bytes of lanes 1-3 and the fused kernel took the
 * other branch.  Each column c holds c + 37k in channel k, so lane 0 goes below
 * zero while another lane is 0; fused, unfused and C must agree. */
static const char sat_select_rs[] =
    "#pragma version(1)\n"
    "#pragma rs java_package_name(fuse.test)\n"
    "uchar4 RS_KERNEL dbl(uchar4 in) {\n"
    "  int4 a = convert_int4(in);\n"
    "  int4 r;\n"
    "  if (a.x > 0) r = (a & 0x7f) + a; else r = a & 0x7f;\n"
    "  return convert_uchar4(r);\n"
    "}\n"
    "uchar4 RS_KERNEL pick(uchar4 in, uchar4 in2, uint32_t x) {\n"
    "  int4 a = convert_int4(in);\n"
    "  int4 b = convert_int4(in2);\n"
    "  int4 r;\n"
    "  if ((a + max(a, b)).x > a.x) r = 5; else r = b - 4;\n"
    "  return convert_uchar4(r + (int)x);\n"
    "}\n";

START_TEST(test_fuse_sat_u8_select_avx512) {
  enum { R = 3, C = 256, N = R * C * 4 };
  char err[512];
  fg_rs_script *s = NULL;
  ck_assert_msg(fg_rs_script_new_source("satsel", NULL, sat_select_rs,
                                        strlen(sat_select_rs), &s, err,
                                        sizeof err) == FG_OK,
                "%s", err);
  fg_graph *g = fg_graph_new("satsel");
  fg_field *x = fg_input(g, "x", fg_type_vector(FG_U8, fg_shape2(R, C), 4));
  fg_field *d = fg_rs_map(g, s, "dbl", 1, &x, NULL);
  fg_field *so = fg_scale_offset(g, d, -2, 2);
  fg_field *p = fg_rs_map(g, s, "pick", 2, (fg_field *[]){so, d}, NULL);
  fg_output(g, "y", p);
  fg_context *ctx = tu_context();
  fg_program *fused = compile_mode(ctx, g, FG_FUSION_ON);
  fg_program *unfused = compile_mode(ctx, g, FG_FUSION_OFF);
  ck_assert_int_eq(fg_program_kernel_count(fused), 1);
  ck_assert_int_eq(fg_program_kernel_count(unfused), 3);

  uint8_t in[N], a[N], b[N];
  for (int i = 0; i < R * C; i++)
    for (int k = 0; k < 4; k++)
      in[i * 4 + k] = (uint8_t)(i % C + 37 * k);
  run_ok(ctx, fused, 1, (const void *[]){in}, 1, (void *[]){a});
  run_ok(ctx, unfused, 1, (const void *[]){in}, 1, (void *[]){b});
  for (int i = 0; i < R * C; i++) {
    const uint8_t *v = in + i * 4;
    int dbl[4], sat0, pick;
    for (int k = 0; k < 4; k++)
      dbl[k] = (v[0] > 0 ? (v[k] & 0x7f) + v[k] : v[k] & 0x7f) & 0xff;
    /* scale_offset: 2 - 2 dbl, rounded and saturated to [0, 255] */
    sat0 = dbl[0] == 0 ? 2 : 0;
    pick = sat0 + (sat0 < dbl[0] ? dbl[0] : sat0) > sat0;
    for (int k = 0; k < 4; k++) {
      int want = ((pick ? 5 : dbl[k] - 4) + i % C) & 0xff;
      ck_assert_msg(a[i * 4 + k] == want && b[i * 4 + k] == want,
                    "point %d (x %d) lane %d, input %d %d %d %d: fused %d, "
                    "unfused %d, expected %d", i, i % C, k, v[0], v[1], v[2],
                    v[3], a[i * 4 + k], b[i * 4 + k], want);
    }
  }
  fg_program_free(fused);
  fg_program_free(unfused);
  tu_context_free(ctx);
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

START_TEST(test_fuse_stats_ignore_dead_outputs) {
  /* halfDouble with only output 0 used: the kernel keeps output 1 in a
   * register, fused or not, so an unfused run moves in + out0 and fusion
   * (one operator: nothing to fuse) saves nothing. */
  const int N = 100;
  fg_type t = fg_type_scalar(FG_F32, fg_shape1(N));
  fg_graph *g = fg_graph_new("dead");
  fg_field *in = fg_input(g, "in", t);
  fg_op *op = fg_op_begin(g, "halfDouble", 2, (fg_type[]){t, t});
  fg_expr *v = fg_tensor_var(op, in);
  fg_assign(v, fg_read_tensor(op, in));
  fg_write_tensor(op, 0, fg_divf(v, 2.0f));
  fg_write_tensor(op, 1, fg_mulf(v, 2.0f));
  fg_output(g, "half", fg_op_end(op));
  fg_context *ctx = tu_context();
  fg_program *fused = compile_mode(ctx, g, FG_FUSION_ON);
  fg_program *unfused = compile_mode(ctx, g, FG_FUSION_OFF);
  ck_assert_ptr_null(fg_program_field_reason(unfused, "halfDouble.out1"));
  fg_fusion_stats s, u;
  ck_assert_int_eq(fg_program_fusion_stats(fused, &s), FG_OK);
  ck_assert_int_eq(fg_program_fusion_stats(unfused, &u), FG_OK);
  ck_assert_int_eq(s.kernels, 1);
  ck_assert_int_eq(s.kernels_unfused, 1);
  char rep[1024];
  snprintf(rep, sizeof rep, "%s", fg_program_fusion_report(fused));
  /* free first: the failing check below must not leak under CK_FORK=no */
  fg_program_free(fused);
  fg_program_free(unfused);
  tu_context_free(ctx);
  fg_graph_free(g);
  int64_t field = (int64_t)N * 4;
  ck_assert_int_eq(u.bytes, 2 * field);
  ck_assert_int_eq(s.bytes, 2 * field);
  ck_assert_msg(u.bytes_unfused == u.bytes && s.bytes_unfused == s.bytes,
                "bytes_unfused counts the dead output: the unfused program "
                "moves %lld bytes, but the unfused traffic is reported as "
                "%lld (unfused program) and %lld (fused)\n%s",
                (long long)u.bytes, (long long)u.bytes_unfused,
                (long long)s.bytes_unfused, rep);
}
END_TEST

/* ---- the property test: random DAGs --------------------------------------
 *
 * A DAG is a list of operators over the fields made so far, all of one
 * type (f32 or f32x2 on one 2-D shape) except the 0-D results of
 * reductions, which pointwise operators read as their only tensor
 * (explicit reads need the 2-D fields).  The vocabulary is small and its
 * constants fixed, so that kernels repeat and the kernel cache serves most
 * of them. */

typedef enum dkind {
  D_SCALE,      /* x * 1.5 */
  D_OFFSET,     /* x + 0.25 */
  D_ROOT,       /* sqrt(|x|) */
  D_BLEND,      /* a * 0.75 + b (a multiply feeding an add) */
  D_HALFDOUBLE, /* two outputs: x / 2, x * 2 */
  D_STENCIL,    /* a at (row - 1, column + 1), plus b read locally */
  D_FLIP,       /* upsideDown: a at (rows - 1 - row, column) */
  D_WFLIP,      /* the flip by explicit writes: never fusable */
  D_TILE,       /* -x through a work-group's local memory: never fusable */
  D_SUM,        /* fg_reduce: the 0-D sum (min, max, product) of x, into */
  D_MIN,        /* which its pointwise producers fuse */
  D_MAX,
  D_PROD,
  D_KINDS
} dkind;

static const char *const dkind_name[D_KINDS] = {
    "scale", "offset", "root", "blend", "halfDouble", "stencil", "flip",
    "wflip", "tile", "sum", "min", "max", "prod"};

static bool dkind_reduces(dkind k) { return k >= D_SUM && k <= D_PROD; }

enum { MAX_OPS = 12, MAX_FIELDS = 2 + 2 * MAX_OPS, MAX_OUTS = 3 };

typedef struct dop {
  dkind kind;
  int n_in, in[2];        /* field indices */
  int n_out, out[2];
  char name[32];
} dop;

typedef struct dag {
  int rows, cols, width;
  int n_inputs, n_ops, n_fields, n_outputs;
  dop op[MAX_OPS];
  int producer[MAX_FIELDS];        /* op index, -1 for a graph input */
  bool zero_d[MAX_FIELDS];         /* a reduction's 0-D result */
  char fname[MAX_FIELDS][40];
  int output[MAX_OUTS];            /* field indices */
} dag;

static int dkind_inputs(dkind k) {
  return k == D_BLEND || k == D_STENCIL ? 2 : 1;
}

/* An earlier field: the newest one half of the time (chains), else one
 * nobody reads yet (so that few operators are dead), else any (fan-out);
 * a 2-D one when need_2d (then the newest 2-D field instead of a 0-D
 * pick). */
static int pick_field(rng *r, const dag *d, const bool *used, bool need_2d) {
  int u = rng_int(r, 4), pick = d->n_fields - 1;
  if (u == 2) {
    int n_unused = 0;
    for (int i = 0; i < d->n_fields; i++)
      n_unused += !used[i];
    int k = n_unused ? rng_int(r, n_unused) : -1;
    for (int i = 0; i < d->n_fields && k >= 0; i++)
      if (!used[i] && k-- == 0)
        pick = i;
  } else if (u == 3) {
    pick = rng_int(r, d->n_fields);
  }
  if (need_2d)
    while (d->zero_d[pick])
      pick--;                   /* the graph inputs come first, all 2-D */
  return pick;
}

/* Whether input p of an operator of kind k is read at explicit
 * coordinates, which a 0-D field does not have. */
static bool dkind_reads_2d(dkind k, int p) {
  return p == 0 && (k == D_STENCIL || k == D_FLIP || k == D_TILE);
}

static void dag_random(rng *r, dag *d) {
  static const int shapes[][2] = {{13, 17}, {16, 16}, {7, 33}, {1, 29}};
  /* weights per kind: mostly fusable, with boundaries now and then, and a
   * reduction in about one operator of eight */
  static const int weight[D_KINDS] = {10, 10, 8, 12, 8, 7, 6, 3, 3,
                                      4, 2, 2, 1};
  memset(d, 0, sizeof *d);
  int sh = rng_int(r, 4);
  d->rows = shapes[sh][0];
  d->cols = shapes[sh][1];
  d->width = rng_int(r, 3) ? 1 : 2;
  d->n_inputs = 1 + rng_int(r, 2);
  for (int i = 0; i < d->n_inputs; i++) {
    d->producer[d->n_fields] = -1;
    snprintf(d->fname[d->n_fields++], sizeof d->fname[0], "in%d", i);
  }
  /* 3 to 12 operators, mostly few: small graphs repeat kernels */
  int extra = MAX_OPS - 3;
  for (int i = 0; i < 3; i++) {
    int e = rng_int(r, MAX_OPS - 2);
    extra = e < extra ? e : extra;
  }
  d->n_ops = 3 + extra;
  bool used[MAX_FIELDS] = {false};
  int count[D_KINDS] = {0}, total = 0;
  for (int k = 0; k < D_KINDS; k++)
    total += weight[k];
  for (int i = 0; i < d->n_ops; i++) {
    dop *o = &d->op[i];
    int w = rng_int(r, total), k = 0;
    while (w >= weight[k])
      w -= weight[k++];
    o->kind = (dkind)k;
    /* "blend0", "blend1": names, hence kernel sources, recur */
    snprintf(o->name, sizeof o->name, "%s%d", dkind_name[k], count[k]++);
    o->n_in = dkind_inputs(o->kind);
    for (int p = 0; p < o->n_in; p++)
      used[o->in[p] = pick_field(r, d, used, dkind_reads_2d(o->kind, p))] =
          true;
    o->n_out = o->kind == D_HALFDOUBLE ? 2 : 1;
    for (int j = 0; j < o->n_out; j++) {
      char opname[sizeof o->name];   /* a copy: the compiler cannot see */
      memcpy(opname, o->name, sizeof opname);   /* that fname and op differ */
      o->out[j] = d->n_fields;
      d->producer[d->n_fields] = i;
      d->zero_d[d->n_fields] = dkind_reduces(o->kind);
      snprintf(d->fname[d->n_fields++], sizeof d->fname[0], "%.28s.out%c",
               opname, (char)('0' + j));
    }
  }
  d->n_outputs = 1 + rng_int(r, MAX_OUTS);
  for (int i = 0; i < d->n_outputs; i++)
    d->output[i] = i == 0 && rng_int(r, 4) ? d->n_fields - 1
                                           : pick_field(r, d, used, false);
}

/* A one-line description from which the DAG can be rebuilt by hand. */
static void dag_describe(const dag *d, int index, char *buf, size_t size) {
  size_t n = (size_t)snprintf(buf, size, "DAG %d: f32x%d[%dx%d], inputs",
                              index, d->width, d->rows, d->cols);
  for (int i = 0; i < d->n_inputs && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, " %s", d->fname[i]);
  for (int i = 0; i < d->n_ops && n < size; i++) {
    const dop *o = &d->op[i];
    n += (size_t)snprintf(buf + n, size - n, "; %s = %s(%s%s%s)", o->name,
                          dkind_name[o->kind], d->fname[o->in[0]],
                          o->n_in > 1 ? ", " : "",
                          o->n_in > 1 ? d->fname[o->in[1]] : "");
  }
  for (int i = 0; i < d->n_outputs && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%s o%d = %s",
                          i ? "," : "; outputs", i, d->fname[d->output[i]]);
}

/* Builds the graph of d; f[] receives its fields. */
static fg_graph *dag_build(const dag *d, fg_field **f) {
  fg_graph *g = fg_graph_new("random");
  fg_type t = d->width == 1
                  ? fg_type_scalar(FG_F32, fg_shape2(d->rows, d->cols))
                  : fg_type_vector(FG_F32, fg_shape2(d->rows, d->cols), 2);
  for (int i = 0; i < d->n_inputs; i++)
    f[i] = fg_input(g, d->fname[i], t);
  for (int i = 0; i < d->n_ops; i++) {
    const dop *o = &d->op[i];
    fg_field *a = f[o->in[0]], *b = o->n_in > 1 ? f[o->in[1]] : NULL;
    if (dkind_reduces(o->kind)) {
      fg_reduce_op rop = (fg_reduce_op)(FG_REDUCE_SUM + (o->kind - D_SUM));
      f[o->out[0]] = fg_reduce(g, o->name, rop, a);
      continue;
    }
    fg_op *op = fg_op_begin(g, o->name, o->n_out, (fg_type[]){t, t});
    fg_expr *v;
    switch (o->kind) {
    case D_SCALE:
      fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, a), 1.5f));
      break;
    case D_OFFSET:
      fg_write_tensor(op, 0, fg_addf(fg_read_tensor(op, a), 0.25f));
      break;
    case D_ROOT:
      fg_write_tensor(op, 0, fg_sqrt(fg_fabs(fg_read_tensor(op, a))));
      break;
    case D_BLEND:
      fg_write_tensor(op, 0, fg_add(fg_mulf(fg_read_tensor(op, a), 0.75f),
                                    fg_read_tensor(op, b)));
      break;
    case D_HALFDOUBLE:
      v = fg_tensor_var(op, a);
      fg_assign(v, fg_read_tensor(op, a));
      fg_write_tensor(op, 0, fg_divf(v, 2.0f));
      fg_write_tensor(op, 1, fg_mulf(v, 2.0f));
      break;
    case D_STENCIL:
      fg_write_tensor(op, 0, fg_add(
          fg_read_tensor_at(op, a, 2, fg_subi(fg_row(op), 1),
                            fg_addi(fg_column(op), 1)),
          fg_read_tensor(op, b)));
      break;
    case D_FLIP:
      fg_write_tensor(op, 0, fg_read_tensor_at(
          op, a, 2, fg_subi(fg_sub(fg_rows(op), fg_row(op)), 1),
          fg_column(op)));
      break;
    case D_WFLIP:
      fg_write_tensor_at(op, 0, fg_read_tensor(op, a), 2,
                         fg_subi(fg_sub(fg_rows(op), fg_row(op)), 1),
                         fg_column(op));
      break;
    case D_TILE:
      /* examples/operators.c's identityTransform, negated */
      v = fg_local(fg_tensor_array(op, a, 2, fg_op_local_extent(op, FG_ROWS),
                                   fg_op_local_extent(op, FG_COLUMNS)));
      fg_assign(fg_at(v, 2, fg_local_row(op), fg_local_column(op)),
                fg_read_tensor_at(op, a, 2, fg_row(op), fg_column(op)));
      fg_sync_threads_local(op);
      fg_write_tensor(op, 0, fg_neg(fg_at(v, 2, fg_local_row(op),
                                          fg_local_column(op))));
      break;
    case D_SUM:
    case D_MIN:
    case D_MAX:
    case D_PROD:
    case D_KINDS:
      break;
    }
    fg_op_end(op);
    for (int j = 0; j < o->n_out; j++)
      f[o->out[j]] = fg_op_output(op, j);
  }
  for (int i = 0; i < d->n_outputs; i++) {
    char name[16];
    snprintf(name, sizeof name, "o%d", i);
    fg_output(g, name, f[d->output[i]]);
  }
  return g;
}

/* Whether op reads field fi with explicit addressing. */
static bool reads_nonlocal(const dop *o, int fi) {
  switch (o->kind) {
  case D_STENCIL:
  case D_FLIP:
  case D_TILE:
    return o->in[0] == fi;
  default:
    return false;
  }
}

static int op_named(const dag *d, const char *name, size_t len) {
  for (int i = 0; i < d->n_ops; i++)
    if (strlen(d->op[i].name) == len && !strncmp(d->op[i].name, name, len))
      return i;
  return -1;
}

/* Fills kern[op] with the kernel each operator of d runs in (-1: none),
 * from the kernel names; fails when an operator is missing, repeated or
 * unknown. */
static void kernels_of(const dag *d, const fg_program *p, const bool *op_live,
                       int *kern, const char *desc, const char *what) {
  for (int i = 0; i < d->n_ops; i++)
    kern[i] = -1;
  int nk = fg_program_kernel_count(p);
  for (int k = 0; k < nk; k++) {
    const char *name = fg_program_kernel_name(p, k);
    ck_assert_msg(name && *name, "%s: %s kernel %d has no name", desc, what,
                  k);
    for (const char *s = name; *s;) {
      size_t len = strcspn(s, "+");
      int o = op_named(d, s, len);
      ck_assert_msg(o >= 0, "%s: %s kernel '%s' names an unknown operator",
                    desc, what, name);
      ck_assert_msg(kern[o] < 0, "%s: %s: operator %s is in kernels %d and "
                    "%d", desc, what, d->op[o].name, kern[o], k);
      ck_assert_msg(op_live[o], "%s: %s: dead operator %s is compiled", desc,
                    what, d->op[o].name);
      kern[o] = k;
      s += len;
      if (*s == '+')
        s++;
    }
  }
  for (int i = 0; i < d->n_ops; i++)
    ck_assert_msg(!op_live[i] || kern[i] >= 0, "%s: %s: live operator %s is "
                  "in no kernel", desc, what, d->op[i].name);
}

/* The DAG being checked, for a crash: Check then reports only the
 * signal, so the handler names the DAG on stderr first. */
static char crash_desc[2048];

static void on_crash(int sig) {
  static const char head[] = "\ncheck_fuse: crashed while checking ";
  ssize_t ignored = write(2, head, sizeof head - 1);
  ignored = write(2, crash_desc, strlen(crash_desc));
  ignored = write(2, "\n", 1);
  (void)ignored;
  signal(sig, SIG_DFL);
  raise(sig);
}

/* What the DAGs checked so far had, to show that the mix exercised what it
 * is meant to. */
typedef struct dag_tally {
  int saved;               /* DAGs where fusion saved kernels */
  int reductions;          /* live reductions */
  int reductions_fused;    /* ... with a producer fused into them */
  int zero_d_read;         /* live operators reading a reduction's result */
  int siblings;            /* reductions sharing a kernel with another */
} dag_tally;

/* Whether operator a is a (transitive) producer of operator b's inputs. */
static bool feeds(const dag *d, int a, int b) {
  for (int p = 0; p < d->op[b].n_in; p++) {
    int prod = d->producer[d->op[b].in[p]];
    if (prod >= 0 && (prod == a || feeds(d, a, prod)))
      return true;
  }
  return false;
}

/* Compiles, runs and checks one DAG; adds what it had to *t. */
static void check_dag(fg_context *ctx, const dag *d, int index, rng *r,
                      dag_tally *t) {
  char *desc = crash_desc;
  dag_describe(d, index, desc, sizeof crash_desc);
  fg_field *f[MAX_FIELDS];
  fg_graph *g = dag_build(d, f);
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s: graph: %s", desc,
                fg_graph_errmsg(g));

  /* liveness, from the outputs back */
  bool live[MAX_FIELDS] = {false}, op_live[MAX_OPS] = {false};
  bool is_output[MAX_FIELDS] = {false};
  for (int i = 0; i < d->n_outputs; i++)
    live[d->output[i]] = is_output[d->output[i]] = true;
  int n_live_ops = 0, n_live_fields = 0;
  for (int i = d->n_ops - 1; i >= 0; i--) {
    const dop *o = &d->op[i];
    for (int j = 0; j < o->n_out; j++)
      op_live[i] |= live[o->out[j]];
    if (!op_live[i])
      continue;
    n_live_ops++;
    for (int j = 0; j < o->n_out; j++)
      n_live_fields += live[o->out[j]];
    for (int p = 0; p < o->n_in; p++)
      live[o->in[p]] = true;
  }

  fg_compile_options on = {.fusion = FG_FUSION_ON};
  fg_compile_options off = {.fusion = FG_FUSION_OFF};
  fg_program *pf = NULL, *pu = NULL;
  ck_assert_msg(fg_compile(ctx, g, &on, &pf) == FG_OK, "%s: fused compile: "
                "%s", desc, fg_context_errmsg(ctx));
  ck_assert_msg(fg_compile(ctx, g, &off, &pu) == FG_OK, "%s: unfused "
                "compile: %s", desc, fg_context_errmsg(ctx));
  const char *rep = fg_program_fusion_report(pf);
  int kf = fg_program_kernel_count(pf), ku = fg_program_kernel_count(pu);
  ck_assert_msg(ku == n_live_ops, "%s: unfused has %d kernels for %d live "
                "operators", desc, ku, n_live_ops);
  ck_assert_msg(kf >= (ku > 0) && kf <= ku, "%s: fused has %d kernels, "
                "unfused %d", desc, kf, ku);

  /* the same data through both */
  size_t pts = (size_t)d->rows * (size_t)d->cols * (size_t)d->width;
  size_t bytes = pts * sizeof(float), out_bytes[MAX_OUTS];
  float *in[2] = {NULL, NULL}, *of[MAX_OUTS], *ou[MAX_OUTS];
  for (int i = 0; i < d->n_inputs; i++) {
    in[i] = malloc(bytes);
    fill_floats(r, in[i], pts);
  }
  for (int i = 0; i < d->n_outputs; i++) {
    out_bytes[i] = d->zero_d[d->output[i]] ? d->width * sizeof(float) : bytes;
    of[i] = malloc(out_bytes[i]);
    ou[i] = malloc(out_bytes[i]);
    memset(of[i], 0xa5, out_bytes[i]);
    memset(ou[i], 0x5a, out_bytes[i]);
  }
  fg_status st = fg_program_run(pf, d->n_inputs, (const void *const *)in,
                                d->n_outputs, (void *const *)of);
  ck_assert_msg(st == FG_OK, "%s: fused run: %s", desc,
                fg_context_errmsg(ctx));
  st = fg_program_run(pu, d->n_inputs, (const void *const *)in, d->n_outputs,
                      (void *const *)ou);
  ck_assert_msg(st == FG_OK, "%s: unfused run: %s", desc,
                fg_context_errmsg(ctx));
  for (int i = 0; i < d->n_outputs; i++) {
    size_t at = 0;
    const unsigned char *a = (const void *)of[i], *b = (const void *)ou[i];
    while (at < out_bytes[i] && a[at] == b[at])
      at++;
    ck_assert_msg(at == out_bytes[i], "%s: output o%d (%s) differs at "
                  "float %zu: fused %a, unfused %a\n%s", desc, i,
                  d->fname[d->output[i]], at / 4, (double)of[i][at / 4],
                  (double)ou[i][at / 4], rep);
  }

  /* reasons: NULL (fused away) or a non-empty phrase; outputs always */
  int n_mat = 0;
  for (int fi = d->n_inputs; fi < d->n_fields; fi++) {
    const char *why = fg_program_field_reason(pf, d->fname[fi]);
    ck_assert_msg(!why || *why, "%s: %s is materialized with an empty "
                  "reason", desc, d->fname[fi]);
    ck_assert_msg(!why || live[fi], "%s: dead field %s is materialized (%s)",
                  desc, d->fname[fi], why);
    if (is_output[fi])
      ck_assert_msg(why && *why, "%s: output field %s has no reason", desc,
                    d->fname[fi]);
    if (why) {
      n_mat++;
      ck_assert_msg(contains(rep, d->fname[fi]), "%s: %s missing from the "
                    "report\n%s", desc, d->fname[fi], rep);
    }
    const char *uwhy = fg_program_field_reason(pu, d->fname[fi]);
    ck_assert_msg(!live[fi] || (uwhy && *uwhy), "%s: unfused: live field %s "
                  "is not materialized", desc, d->fname[fi]);
  }
  fg_fusion_stats s, su;
  ck_assert_int_eq(fg_program_fusion_stats(pf, &s), FG_OK);
  ck_assert_int_eq(fg_program_fusion_stats(pu, &su), FG_OK);
  ck_assert_msg(s.kernels == kf && s.kernels_unfused == ku &&
                s.fields_materialized == n_mat &&
                s.fields_materialized + s.fields_virtual == n_live_fields &&
                s.bytes <= s.bytes_unfused && su.bytes == s.bytes_unfused &&
                su.bytes_unfused == s.bytes_unfused,
                "%s: fused stats: kernels %d/%d, fields %d/%d of %d live, "
                "bytes %lld/%lld (unfused run %lld)\n%s", desc, s.kernels,
                s.kernels_unfused, s.fields_materialized, s.fields_virtual,
                n_live_fields, (long long)s.bytes,
                (long long)s.bytes_unfused, (long long)su.bytes, rep);
  ck_assert_msg(su.kernels == ku && su.fields_virtual == 0 &&
                su.fields_materialized == n_live_fields, "%s: unfused stats: "
                "kernels %d, fields %d/%d of %d", desc, su.kernels,
                su.fields_materialized, su.fields_virtual, n_live_fields);

  /* the partition: every live operator in one kernel, kernels in
   * dependency order, a field fused away only when every consumer is in
   * its producer's kernel and reads it locally, unfusable operators
   * alone */
  int kern[MAX_OPS], ukern[MAX_OPS];
  kernels_of(d, pf, op_live, kern, desc, "fused");
  kernels_of(d, pu, op_live, ukern, desc, "unfused");
  for (int c = 0; c < d->n_ops; c++) {
    const dop *o = &d->op[c];
    if (!op_live[c])
      continue;
    for (int p = 0; p < o->n_in; p++) {
      int fi = o->in[p], prod = d->producer[fi];
      if (prod < 0)
        continue;
      ck_assert_msg(ukern[prod] < ukern[c], "%s: unfused: %s runs before "
                    "its producer %s", desc, o->name, d->op[prod].name);
      ck_assert_msg(kern[prod] <= kern[c], "%s: kernel of %s (%d) runs "
                    "before that of its producer %s (%d)\n%s", desc,
                    o->name, kern[c], d->op[prod].name, kern[prod], rep);
      const char *why = fg_program_field_reason(pf, d->fname[fi]);
      if (reads_nonlocal(o, fi))
        ck_assert_msg(kern[prod] != kern[c] && why, "%s: %s reads %s "
                      "non-locally inside one kernel\n%s", desc, o->name,
                      d->fname[fi], rep);
      if (kern[prod] != kern[c])
        ck_assert_msg(why != NULL, "%s: %s crosses from kernel %d to %d "
                      "but is not materialized\n%s", desc, d->fname[fi],
                      kern[prod], kern[c], rep);
    }
    for (int j = 0; j < o->n_out; j++) {
      /* ... and held in memory only when something needs it there */
      int fi = o->out[j];
      if (!fg_program_field_reason(pf, d->fname[fi]))
        continue;
      bool needed = is_output[fi] || o->kind == D_WFLIP || o->kind == D_TILE;
      for (int k = c + 1; k < d->n_ops && !needed; k++)
        for (int q = 0; q < d->op[k].n_in; q++)
          needed |= op_live[k] && d->op[k].in[q] == fi &&
                    (kern[k] != kern[c] || reads_nonlocal(&d->op[k], fi));
      ck_assert_msg(needed, "%s: %s is materialized (%s) though every "
                    "reader reads it locally in its kernel\n%s", desc,
                    d->fname[fi], fg_program_field_reason(pf, d->fname[fi]),
                    rep);
    }
    if (o->kind == D_WFLIP || o->kind == D_TILE) {
      for (int k = 0; k < d->n_ops; k++)
        ck_assert_msg(k == c || kern[k] != kern[c], "%s: %s (not "
                      "fusable) shares a kernel with %s\n%s", desc, o->name,
                      d->op[k].name, rep);
      ck_assert_msg(fg_program_field_reason(pf, d->fname[o->out[0]]),
                    "%s: %s's output is not materialized", desc, o->name);
    }
    for (int p = 0; p < o->n_in; p++)
      t->zero_d_read += d->zero_d[o->in[p]];
    if (dkind_reduces(o->kind)) {
      /* a reduction ends its kernel: it shares it with pointwise
       * operators over its input's shape (its producers, fused into its
       * input, and their other consumers) and with sibling reductions
       * (neither feeding the other), never with anything reading its
       * result; that result is written */
      bool fused_in = false, sibling = false;
      for (int k = 0; k < d->n_ops; k++) {
        if (k == c || !op_live[k] || kern[k] != kern[c])
          continue;
        ck_assert_msg(!feeds(d, c, k) && !(dkind_reduces(d->op[k].kind) &&
                                           feeds(d, k, c)),
                      "%s: %s shares the kernel of reduction %s\n%s", desc,
                      d->op[k].name, o->name, rep);
        fused_in |= feeds(d, k, c);
        sibling |= dkind_reduces(d->op[k].kind);
      }
      t->siblings += sibling;
      ck_assert_msg(fg_program_field_reason(pf, d->fname[o->out[0]]),
                    "%s: the result of reduction %s is not materialized\n%s",
                    desc, o->name, rep);
      t->reductions++;
      t->reductions_fused += fused_in;
    }
  }

  for (int i = 0; i < d->n_inputs; i++)
    free(in[i]);
  for (int i = 0; i < d->n_outputs; i++) {
    free(of[i]);
    free(ou[i]);
  }
  fg_program_free(pf);
  fg_program_free(pu);
  fg_graph_free(g);
  t->saved += kf < ku;
}

/* Compiles DAGs w, w + step, ... of dags[0..n-1] both ways, running
 * nothing: fills the kernel cache.  Runs in forked children too, so it
 * asserts nothing; a DAG that fails here fails later in check_dag. */
static void compile_only(fg_context *ctx, const dag *dags, int n, int w,
                         int step) {
  for (int i = w; i < n; i += step) {
    fg_field *f[MAX_FIELDS];
    fg_graph *g = dag_build(&dags[i], f);
    for (int m = 0; m < 2; m++) {
      fg_compile_options opt = {.fusion = m ? FG_FUSION_OFF : FG_FUSION_ON};
      fg_program *p = NULL;
      if (fg_compile(ctx, g, &opt, &p) == FG_OK)
        fg_program_free(p);
    }
    fg_graph_free(g);
  }
}

static int child_compile(const dag *dags, int n, int w, int step) {
  fg_context_options opt = {0};
  const char *b = getenv("FG_TEST_BACKEND");
  opt.backend = b && !strcmp(b, "opencl") ? FG_BACKEND_OPENCL : FG_BACKEND_CPU;
  fg_context *ctx = NULL;
  if (fg_context_new(&opt, &ctx, NULL, 0) != FG_OK)
    return 1;
  compile_only(ctx, dags, n, w, step);
  tu_context_free(ctx);
  return 0;
}

START_TEST(test_fuse_random_dags_match_unfused) {
  /* 200 DAGs; 100 on OpenCL, whose compiler is slower (PoCL: ~0.5 s a
   * kernel); $FG_FUSE_DAGS overrides (a quick valgrind run, a long soak) */
  const char *env = getenv("FG_FUSE_DAGS"), *be = getenv("FG_TEST_BACKEND");
  int n = env && *env ? atoi(env) : be && !strcmp(be, "opencl") ? 100 : 200;
  ck_assert_int_gt(n, 0);
  dag *dags = malloc((size_t)n * sizeof *dags);
  ck_assert_ptr_nonnull(dags);
  rng r = {0x2545f4914f6cdd1dull};
  for (int i = 0; i < n; i++)
    dag_random(&r, &dags[i]);

  /* Most of the time goes into building kernels the first time (a few
   * hundred distinct ones, at a few tenths of a second each).  Where Check
   * forks (so no backend has been started in this process yet), children
   * build a share of them in parallel into the on-disk cache first; the
   * checks below then load them.  The children's results count for
   * nothing: every DAG is compiled again, and checked, here. */
  const char *ck_fork = getenv("CK_FORK");
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int workers = ck_fork && !strcmp(ck_fork, "no") ? 1
                : cpus > 8 ? 8 : cpus > 1 ? (int)cpus : 1;
  pid_t kids[8];
  for (int w = 1; w < workers; w++) {
    kids[w] = fork();
    ck_assert_int_ge(kids[w], 0);
    if (kids[w] == 0)
      _exit(child_compile(dags, n, w, workers));
  }
  fg_context *ctx = tu_context();
  if (workers > 1) {
    compile_only(ctx, dags, n, 0, workers);
    for (int w = 1; w < workers; w++) {
      int st;
      ck_assert_int_eq(waitpid(kids[w], &st, 0), kids[w]);
    }
  }

  rng data = {0x9e3779b97f4a7c15ull};
  dag_tally tally = {0};
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  void (*old[5])(int);
  for (int i = 0; i < 5; i++)
    old[i] = signal(sigs[i], on_crash);
  for (int i = 0; i < n; i++)
    check_dag(ctx, &dags[i], i, &data, &tally);
  for (int i = 0; i < 5; i++)
    signal(sigs[i], old[i]);
  ck_assert_msg(2 * tally.saved > n, "fusion saved kernels in only %d of %d "
                "DAGs", tally.saved, n);
  /* the mix had reductions, some fusing their producers, some results
   * read by later operators (every DAG count of 50 or more has them) */
  if (n >= 50)
    ck_assert_msg(tally.reductions_fused > 0 && tally.zero_d_read > 0 &&
                  tally.reductions > tally.reductions_fused &&
                  tally.siblings > 0,
                  "%d DAGs: %d live reductions, %d with producers fused "
                  "in, %d reads of their results, %d sharing a kernel with "
                  "a sibling", n, tally.reductions, tally.reductions_fused,
                  tally.zero_d_read, tally.siblings);
  tu_context_free(ctx);
  free(dags);
}
END_TEST

int main(void) {
  Suite *s = suite_create("fuse");
  TCase *tc = tcase_create("fuse");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_fuse_pointwise_chain_is_one_kernel);
  tcase_add_test(tc, test_fuse_diamond_is_one_kernel);
  tcase_add_test(tc, test_fuse_consumer_joins_both_producers);
  tcase_add_test(tc, test_fuse_consumer_keeps_a_path_through_a_third_kernel_apart);
  tcase_add_test(tc, test_fuse_blur_then_pointwise);
  tcase_add_test(tc, test_fuse_stencil_edges_match_clamped_c);
  tcase_add_test(tc, test_fuse_stencil_channels_flat_interior);
  tcase_add_test(tc, test_fuse_pointwise_channels_flat_loop);
  tcase_add_test(tc, test_fuse_pointwise_ops_flat_loop);
  tcase_add_test(tc, test_fuse_reversed_columns_match_c);
  tcase_add_test(tc, test_fuse_based_columns_match_c);
  tcase_add_test(tc, test_fuse_stencil_explicit_clamps_match_c);
  tcase_add_test(tc, test_fuse_stencil_smaller_input_match_c);
  tcase_add_test(tc, test_fuse_stencil_scaled_columns_match_c);
  tcase_add_test(tc, test_fuse_stencil_counter_columns_match_c);
  tcase_add_test(tc, test_fuse_column_blocks_match_c);
  tcase_add_test(tc, test_fuse_column_loop_reads);
  tcase_add_test(tc, test_fuse_stencil_border_rules_match_c);
  tcase_add_test(tc, test_fuse_cost_rule_keeps_scalar_calls_apart);
  tcase_add_test(tc, test_fuse_field_used_by_pointwise_and_stencil);
  tcase_add_test(tc, test_fuse_check_mode_and_env);
  tcase_add_test(tc, test_fuse_random_dags_match_unfused);
  tcase_add_test(tc, test_fuse_report_text);
  tcase_add_test(tc, test_fuse_stats_ignore_dead_outputs);
  tcase_add_test(tc, test_fuse_sat_u8_select_avx512);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
