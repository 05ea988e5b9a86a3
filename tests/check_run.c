/* tests/check_run.c - compiling and running graphs end to end on the
 * backend $FG_TEST_BACKEND names (cpu by default; `make check` runs the
 * suite on both): kernels over 0-3 dimensional fields and every element
 * type, tiling across threads, explicit addressing at the edges, built-in
 * math against the C library, constants, dead operators, run validation.
 * The test_run_cpu_* cases are the CPU backend's own: its on-disk kernel
 * cache (a second context compiles nothing; concurrent builders never see
 * half a file), its compiler, relaxed precision.  Every expected value is
 * computed here, in plain C. */
#include "testutil.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* out = layer * 1000000 + row * 1000 + column, from the thread constants. */
static fg_field *coords_op(fg_graph *g, fg_shape shape) {
  fg_type t = fg_type_scalar(FG_I32, shape);
  fg_op *op = fg_op_begin(g, "coords", 1, &t);
  fg_expr *v = fg_add(fg_add(fg_muli(fg_layer(op), 1000000),
                             fg_muli(fg_row(op), 1000)), fg_column(op));
  fg_write_tensor(op, 0, v);
  return fg_op_end(op);
}

static void check_coords(fg_shape shape) {
  fg_graph *g = fg_graph_new("coords");
  fg_output(g, "c", coords_op(g, shape));
  int64_t L = shape.ndim == 3 ? shape.dim[0] : 1;
  int64_t R = shape.ndim >= 2 ? shape.dim[shape.ndim - 2] : 1;
  int64_t C = shape.ndim >= 1 ? shape.dim[shape.ndim - 1] : 1;
  int32_t *out = calloc((size_t)(L * R * C), sizeof *out);
  tu_run(g, 0, NULL, 1, (void *[]){out});
  for (int64_t l = 0; l < L; l++)
    for (int64_t r = 0; r < R; r++)
      for (int64_t c = 0; c < C; c++) {
        int64_t i = (l * R + r) * C + c;
        ck_assert_int_eq(out[i], (int32_t)(l * 1000000 + r * 1000 + c));
      }
  free(out);
  fg_graph_free(g);
}

START_TEST(test_run_thread_constants_every_dimension) {
  check_coords(fg_shape0());
  check_coords(fg_shape1(100003));     /* split by columns */
  check_coords(fg_shape2(517, 333));   /* split by rows */
  check_coords(fg_shape3(3, 201, 97)); /* layers x rows */
}
END_TEST

START_TEST(test_run_half_large_field_matches_c) {
  const int64_t R = 1031, C = 2049;
  fg_graph *g = fg_graph_new("half");
  fg_field *in = fg_input(g, "in", fg_type_vector(FG_F32, fg_shape2(R, C), 2));
  fg_op *op = fg_op_begin(g, "half", 1, (fg_type[]){fg_field_type(in)});
  fg_write_tensor(op, 0, fg_divf(fg_read_tensor(op, in), 2.0f));
  fg_output(g, "out", fg_op_end(op));
  size_t n = (size_t)(R * C * 2);
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  for (size_t i = 0; i < n; i++)
    a[i] = (float)((i * 7919) % 10007) - 5000.5f;
  tu_run(g, 1, (const void *[]){a}, 1, (void *[]){b});
  for (size_t i = 0; i < n; i++)
    ck_assert_float_eq(b[i], a[i] / 2.0f);
  free(a);
  free(b);
  fg_graph_free(g);
}
END_TEST

/* a * b + a / b and a % b for one integer element type, 4 wide; the
 * operator reads two inputs and writes two outputs. */
static void check_int_arith(fg_elem e) {
  fg_shape s = fg_shape1(256);
  fg_type t = fg_type_vector(e, s, 4);
  fg_graph *g = fg_graph_new("int");
  fg_field *a = fg_input(g, "a", t), *b = fg_input(g, "b", t);
  fg_op *op = fg_op_begin(g, "arith", 2, (fg_type[]){t, t});
  fg_expr *x = fg_read_tensor(op, a), *y = fg_read_tensor(op, b);
  fg_write_tensor(op, 0, fg_add(fg_mul(x, y), fg_div(x, y)));
  fg_write_tensor(op, 1, fg_mod(x, y));
  fg_output(g, "r0", fg_op_end(op));
  fg_output(g, "r1", fg_op_output(op, 1));
  size_t es = fg_elem_size(e), n = 1024;
  unsigned char *A = malloc(n * es), *B = malloc(n * es);
  unsigned char *R0 = malloc(n * es), *R1 = malloc(n * es);
  for (size_t i = 0; i < n * es; i++) {
    A[i] = (unsigned char)(i * 37 + 11);
    B[i] = (unsigned char)(i % 5 == 0 ? 0 : i * 13 + 3);  /* zeros too */
  }
  tu_run(g, 2, (const void *[]){A, B}, 2, (void *[]){R0, R1});
  bool is_signed = e == FG_I8 || e == FG_I16 || e == FG_I32 || e == FG_I64;
  for (size_t i = 0; i < n; i++) {
    /* independent computation with the element type's own C type */
#define CASE(T)                                                              \
    {                                                                        \
      T va = ((T *)A)[i], vb = ((T *)B)[i];                                    \
      bool neg1 = is_signed && vb == (T)-1; /* MIN / -1 wraps, no trap */ \
      T q = vb == 0 ? 0 : neg1 ? (T)(0 - (uint64_t)va) : (T)(va / vb);      \
      T m = vb == 0 || neg1 ? 0 : (T)(va % vb);                             \
      /* products wrap in the element type: compute them unsigned */         \
      T want0 = (T)((T)((uint64_t)va * (uint64_t)vb) + (uint64_t)q);     \
      ck_assert_msg(((T *)R0)[i] == want0, "%s[%zu]: %lld*%lld+%lld/%lld "   \
                    "got %lld want %lld", fg_elem_name(e), i, (long long)va, \
                    (long long)vb, (long long)va, (long long)vb,             \
                    (long long)((T *)R0)[i], (long long)want0);              \
      ck_assert_msg(((T *)R1)[i] == m, "%s[%zu]: %% got %lld want %lld",     \
                    fg_elem_name(e), i, (long long)((T *)R1)[i],             \
                    (long long)m);                                           \
    }
    switch (e) {
    case FG_U8: CASE(uint8_t) break;
    case FG_I8: CASE(int8_t) break;
    case FG_U16: CASE(uint16_t) break;
    case FG_I16: CASE(int16_t) break;
    case FG_U32: CASE(uint32_t) break;
    case FG_I32: CASE(int32_t) break;
    case FG_U64: CASE(uint64_t) break;
    case FG_I64: CASE(int64_t) break;
    default: ck_abort();
    }
#undef CASE
  }
  free(A);
  free(B);
  free(R0);
  free(R1);
  fg_graph_free(g);
}

/* Few rows and many columns: the CPU backend splits such a launch by
 * columns, and every row of each column range must be computed (it once
 * ran row 0 only).  Shapes with 1 to 7 rows (and layers), each point a
 * function of its coordinates, every type of thread count. */
START_TEST(test_run_few_rows_many_columns_every_row) {
  const int64_t shapes[][3] = {{1, 2, 9001}, {1, 3, 9001}, {1, 7, 4099},
                               {2, 3, 6007}, {3, 1, 8191}, {1, 1, 40000}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    const int64_t L = shapes[s][0], R = shapes[s][1], C = shapes[s][2];
    fg_graph *g = fg_graph_new("few_rows");
    fg_field *in = fg_input(g, "in", fg_type_scalar(FG_I32,
                                                     fg_shape3(L, R, C)));
    fg_op *op = fg_op_begin(g, "mark", 1, (fg_type[]){fg_field_type(in)});
    fg_expr *v = fg_add(fg_read_tensor(op, in),
                        fg_add(fg_mul(fg_layer(op), fg_int(op, 1000000)),
                               fg_add(fg_mul(fg_row(op), fg_int(op, 100000)),
                                      fg_column(op))));
    fg_write_tensor(op, 0, v);
    fg_output(g, "out", fg_op_end(op));
    size_t n = (size_t)(L * R * C);
    int32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++)
      a[i] = (int32_t)(i % 7);
    memset(b, 0xff, n * sizeof *b);
    tu_run(g, 1, (const void *[]){a}, 1, (void *[]){b});
    for (int64_t l = 0; l < L; l++)
      for (int64_t r = 0; r < R; r++)
        for (int64_t c = 0; c < C; c++) {
          size_t i = (size_t)((l * R + r) * C + c);
          int32_t want = a[i] + (int32_t)(l * 1000000 + r * 100000 + c);
          ck_assert_msg(b[i] == want, "[%lld,%lld,%lld] of %lldx%lldx%lld: "
                        "%d, expected %d", (long long)l, (long long)r,
                        (long long)c, (long long)L, (long long)R,
                        (long long)C, b[i], want);
        }
    free(a);
    free(b);
    fg_graph_free(g);
  }
}
END_TEST

START_TEST(test_run_integer_vectors_every_type) {
  /* Vector arithmetic does not promote: it wraps in the element type. */
  fg_elem types[] = {FG_U8, FG_I8, FG_U16, FG_I16, FG_U32, FG_I32, FG_U64,
                     FG_I64};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    check_int_arith(types[i]);
}
END_TEST

START_TEST(test_run_explicit_reads_clamp_and_writes_drop) {
  const int R = 37, C = 53;
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("edges");
  fg_field *in = fg_input(g, "in", t);
  fg_op *op = fg_op_begin(g, "shift", 2, (fg_type[]){t, t});
  /* out0 reads 3 rows up and 5 columns left (clamped at the edge) */
  fg_expr *v = fg_read_tensor_at(op, in, 2, fg_subi(fg_row(op), 3),
                                 fg_subi(fg_column(op), 5));
  /* out1: each thread writes its input 2 columns to the right; threads
   * whose target is outside the field write nothing */
  fg_write_tensor_at(op, 1, fg_read_tensor(op, in), 2, fg_row(op),
                     fg_addi(fg_column(op), 2));
  fg_write_tensor_at(op, 1, fg_float(op, -1.0f), 2, fg_row(op),
                     fg_subi(fg_column(op), C - 2));
  fg_write_tensor(op, 0, v);
  fg_output(g, "shifted", fg_op_end(op));
  fg_output(g, "pushed", fg_op_output(op, 1));
  float *a = malloc(sizeof(float) * R * C), *o0 = malloc(sizeof(float) * R * C);
  float *o1 = malloc(sizeof(float) * R * C);
  for (int i = 0; i < R * C; i++)
    a[i] = (float)i;
  tu_run(g, 1, (const void *[]){a}, 2, (void *[]){o0, o1});
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) {
      int rr = r - 3 < 0 ? 0 : r - 3, cc = c - 5 < 0 ? 0 : c - 5;
      ck_assert_float_eq(o0[r * C + c], a[rr * C + cc]);
      float want = c >= 2 ? a[r * C + c - 2] : -1.0f;
      ck_assert_float_eq(o1[r * C + c], want);
    }
  free(a);
  free(o0);
  free(o1);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_run_math_builtins_match_libm) {
  const int N = 4096;
  fg_type t = fg_type_vector(FG_F32, fg_shape1(N), 4);
  fg_graph *g = fg_graph_new("math");
  fg_field *in = fg_input(g, "x", t);
  const char *fns[] = {"sqrt", "exp", "log", "sin", "cos", "tanh", "cbrt",
                       "floor", "fabs", "atan", "erf", "exp2", "log10",
                       "rint", "sign", "degrees"};
  enum { NF = sizeof fns / sizeof *fns };
  for (int f = 0; f < NF; f++) {
    fg_op *op = fg_op_begin(g, fns[f], 1, &t);
    fg_expr *x = fg_read_tensor(op, in);
    fg_write_tensor(op, 0, fg_call(fns[f], 1, (fg_expr *[]){x}));
    fg_output(g, fns[f], fg_op_end(op));
  }
  /* binary and ternary: pow(|x|, y), fmax, clamp, mix, dot, length */
  fg_op *op = fg_op_begin(g, "pow", 1, &t);
  fg_expr *x = fg_read_tensor(op, in);
  fg_write_tensor(op, 0, fg_pow(fg_fabs(x), fg_float(op, 2.4f)));
  fg_output(g, "pow", fg_op_end(op));
  op = fg_op_begin(g, "clampmix", 1, &t);
  x = fg_read_tensor(op, in);
  fg_write_tensor(op, 0, fg_mix(fg_clamp(x, fg_float(op, -1.0f),
                                         fg_float(op, 2.0f)),
                                fg_fmax(x, fg_float(op, 0.5f)),
                                fg_float(op, 0.25f)));
  fg_output(g, "clampmix", fg_op_end(op));
  fg_type ts = fg_type_scalar(FG_F32, fg_shape1(N));
  op = fg_op_begin(g, "dotlen", 1, &ts);
  x = fg_read_tensor(op, in);
  fg_write_tensor(op, 0, fg_add(fg_dot(x, x), fg_length(x)));
  fg_output(g, "dotlen", fg_op_end(op));

  float *a = malloc(sizeof(float) * 4 * N);
  for (int i = 0; i < 4 * N; i++)
    a[i] = (float)(i - 2 * N) / 700.0f;
  void *outs[NF + 3];
  for (int f = 0; f < NF + 3; f++)
    outs[f] = malloc(sizeof(float) * 4 * N);
  tu_run(g, 1, (const void *[]){a}, NF + 3, outs);
  for (int i = 0; i < 4 * N; i++) {
    double v = a[i];
    double want[NF] = {sqrt(v), exp(v), log(v), sin(v), cos(v), tanh(v),
                       cbrt(v), floor(v), fabs(v), atan(v), erf(v), exp2(v),
                       log10(v), rint(v), v > 0 ? 1 : v < 0 ? -1 : 0,
                       v * 180.0 / M_PI};
    for (int f = 0; f < NF; f++) {
      float got = ((float *)outs[f])[i];
      if (isnan(want[f])) {
        ck_assert_msg(isnan(got), "%s(%g) = %g, want NaN", fns[f], v, got);
        continue;
      }
      double tol = 4e-7 * fabs(want[f]) + 1e-30;
      ck_assert_msg(fabs(got - want[f]) <= tol || (isinf(got) && isinf(want[f])),
                    "%s(%.9g) = %.9g, want %.9g", fns[f], v, got, want[f]);
    }
    double pw = pow(fabs(v), (double)2.4f);
    ck_assert_msg(fabs(((float *)outs[NF])[i] - pw) <= 4e-7 * pw + 1e-30,
                  "pow(|%g|, 2.4)", v);
    double cl = v < -1 ? -1 : v > 2 ? 2 : v, mx = v > 0.5 ? v : 0.5;
    double mix = cl + (mx - cl) * 0.25;
    ck_assert_msg(fabs(((float *)outs[NF + 1])[i] - mix) <= 1e-6 * (1 + fabs(mix)),
                  "clamp/mix at %g", v);
  }
  for (int i = 0; i < N; i++) {
    double d = 0;
    for (int c = 0; c < 4; c++)
      d += (double)a[4 * i + c] * a[4 * i + c];
    double want = d + sqrt(d);
    ck_assert_msg(fabs(((float *)outs[NF + 2])[i] - want) <= 1e-5 * (1 + want),
                  "dot+length at %d", i);
  }
  for (int f = 0; f < NF + 3; f++)
    free(outs[f]);
  free(a);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_run_constants_zero_d_and_conversions) {
  /* out = convert_sat_uchar(in * k) where k is a 0-D constant field. */
  fg_shape s = fg_shape2(64, 70);
  float k = 300.0f;
  fg_graph *g = fg_graph_new("consts");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_F32, s));
  fg_field *kf = fg_constant(g, "k", fg_type_scalar(FG_F32, fg_shape0()), &k);
  fg_type t = fg_type_scalar(FG_U8, s);
  fg_op *op = fg_op_begin(g, "scale", 1, &t);
  fg_write_tensor(op, 0, fg_convert_sat(fg_mul(fg_read_tensor(op, in),
                                               fg_read_tensor(op, kf)),
                                        FG_U8, 1));
  fg_output(g, "out", fg_op_end(op));
  float *a = malloc(sizeof(float) * 64 * 70);
  uint8_t *o = malloc(64 * 70);
  for (int i = 0; i < 64 * 70; i++)
    a[i] = (float)(i % 300) / 299.0f * 1.2f - 0.1f;
  a[5] = NAN;
  tu_run(g, 1, (const void *[]){a}, 1, (void *[]){o});
  for (int i = 0; i < 64 * 70; i++) {
    double v = rint((double)(a[i] * k));
    uint8_t want = isnan(a[i]) ? 0 : v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
    ck_assert_int_eq(o[i], want);
  }
  free(a);
  free(o);
  fg_graph_free(g);
}
END_TEST

/* A context on the test backend that treats fp64 as missing, through the
 * options or, when by_env, through $FG_DISABLE. */
static fg_context *context_without_fp64(bool by_env) {
  fg_context_options opt = {0};
  const char *b = getenv("FG_TEST_BACKEND");
  opt.backend = b && !strcmp(b, "opencl") ? FG_BACKEND_OPENCL : FG_BACKEND_CPU;
  if (by_env)
    setenv("FG_DISABLE", "fp64", 1);
  else
    opt.disable = FG_CAP_FP64;
  fg_context *ctx = NULL;
  char err[1024];
  fg_status st = fg_context_new(&opt, &ctx, err, sizeof err);
  unsetenv("FG_DISABLE");
  ck_assert_msg(st == FG_OK, "fg_context_new: %s", err);
  return ctx;
}

/* in (f32) -> "scale" (f32) -> "widen" (f32 buffers, f64 arithmetic only
 * inside its code) -> out */
static fg_graph *graph_with_inner_f64(int n) {
  fg_type t = fg_type_scalar(FG_F32, fg_shape1(n));
  fg_graph *g = fg_graph_new("inner_f64");
  fg_field *in = fg_input(g, "in", t);
  fg_op *op = fg_op_begin(g, "scale", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, in), 2.0f));
  fg_field *s = fg_op_end(op);
  op = fg_op_begin(g, "widen", 1, &t);
  fg_expr *d = fg_convert(fg_read_tensor(op, s), FG_F64, 1);
  fg_write_tensor(op, 0, fg_convert(fg_mul(d, d), FG_F32, 1));
  fg_output(g, "out", fg_op_end(op));
  return g;
}

START_TEST(test_run_compile_refuses_fp64_without_the_capability) {
  enum { N = 37 };
  fg_graph *g = graph_with_inner_f64(N);
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  for (int by_env = 0; by_env < 2; by_env++) {
    fg_context *ctx = context_without_fp64(by_env);
    fg_program *p = (fg_program *)1;
    ck_assert_int_eq(fg_compile(ctx, g, NULL, &p), FG_ENOTSUP);
    ck_assert_ptr_null(p);
    const char *msg = fg_context_errmsg(ctx);
    ck_assert_msg(strstr(msg, "'widen'") && strstr(msg, "fp64"),
                  "message names neither operator nor capability: %s", msg);
    ck_assert_msg(!strstr(msg, "'scale'"), "wrong operator named: %s", msg);
    /* refused before anything was built */
    fg_context_stats s;
    ck_assert_int_eq(fg_context_get_stats(ctx, &s), FG_OK);
    ck_assert_int_eq(s.kernels_compiled + s.cache_hits, 0);
    /* f64 in a buffer type is refused too, naming its operator */
    fg_type t = fg_type_scalar(FG_F64, fg_shape1(N));
    fg_graph *g2 = fg_graph_new("f64_buffers");
    fg_field *in = fg_input(g2, "in", t);
    fg_op *op = fg_op_begin(g2, "negate64", 1, &t);
    fg_write_tensor(op, 0, fg_neg(fg_read_tensor(op, in)));
    fg_output(g2, "out", fg_op_end(op));
    ck_assert_int_eq(fg_compile(ctx, g2, NULL, &p), FG_ENOTSUP);
    ck_assert_msg(strstr(fg_context_errmsg(ctx), "'negate64'"), "%s",
                  fg_context_errmsg(ctx));
    fg_graph_free(g2);
    tu_context_free(ctx);
  }
  /* the same graph compiles and runs where fp64 is there */
  fg_context *ctx = tu_context();
  fg_program *p = NULL;
  if (fg_compile(ctx, g, NULL, &p) == FG_OK) {
    float x[N], y[N];
    for (int i = 0; i < N; i++)
      x[i] = (float)i * 0.25f - 3.0f;
    ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){x}, 1,
                                    (void *[]){y}), FG_OK);
    for (int i = 0; i < N; i++) {
      double d = (double)(x[i] * 2.0f);
      ck_assert_float_eq(y[i], (float)(d * d));
    }
    fg_program_free(p);
  } else {
    /* a real device without doubles: the same refusal */
    ck_assert_int_eq(fg_compile(ctx, g, NULL, &p), FG_ENOTSUP);
    ck_assert_ptr_nonnull(strstr(fg_context_errmsg(ctx), "fp64"));
  }
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_run_context_rejects_unknown_disable) {
  fg_context_options opt = {.backend = FG_BACKEND_CPU, .disable = 1u << 30};
  fg_context *ctx = NULL;
  char err[256];
  ck_assert_int_eq(fg_context_new(&opt, &ctx, err, sizeof err), FG_EINVAL);
  ck_assert_ptr_null(ctx);
  ck_assert_ptr_nonnull(strstr(err, "disable"));
  opt.disable = 0;
  setenv("FG_DISABLE", "fp64,warp_drive", 1);
  ck_assert_int_eq(fg_context_new(&opt, &ctx, err, sizeof err), FG_EINVAL);
  unsetenv("FG_DISABLE");
  ck_assert_ptr_nonnull(strstr(err, "warp_drive"));
}
END_TEST

START_TEST(test_run_outputs_alias_inputs_and_each_other) {
  /* the same field as two outputs, an input as an output, and a dead
   * operator that must not be compiled */
  fg_type t = fg_type_scalar(FG_I32, fg_shape1(10));
  fg_graph *g = fg_graph_new("alias");
  fg_field *in = fg_input(g, "in", t);
  fg_op *op = fg_op_begin(g, "inc", 1, &t);
  fg_write_tensor(op, 0, fg_addi(fg_read_tensor(op, in), 1));
  fg_field *inc = fg_op_end(op);
  op = fg_op_begin(g, "dead", 1, &t);
  fg_write_tensor(op, 0, fg_read_tensor(op, inc));
  fg_op_end(op);
  fg_output(g, "a", inc);
  fg_output(g, "b", inc);
  fg_output(g, "c", in);
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  fg_graph_free(g);   /* the program owns what it needs */
  ck_assert_int_eq(fg_program_kernel_count(p), 1);
  ck_assert_str_eq(fg_program_kernel_name(p, 0), "inc");
  ck_assert_int_eq(fg_program_output_index(p, "c"), 2);
  ck_assert_int_eq(fg_program_input_index(p, "nope"), -1);
  int32_t x[10], a[10], b[10], c[10];
  for (int i = 0; i < 10; i++)
    x[i] = i * i;
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){x}, 3,
                                  (void *[]){a, b, c}), FG_OK);
  for (int i = 0; i < 10; i++) {
    ck_assert_int_eq(a[i], i * i + 1);
    ck_assert_int_eq(b[i], i * i + 1);
    ck_assert_int_eq(c[i], i * i);
  }
  fg_program_free(p);
  tu_context_free(ctx);
}
END_TEST

START_TEST(test_run_run_rejects_bad_arguments) {
  fg_type t = fg_type_scalar(FG_I32, fg_shape1(10));
  fg_graph *g = fg_graph_new("args");
  fg_field *in = fg_input(g, "in", t);
  fg_op *op = fg_op_begin(g, "neg", 1, &t);
  fg_write_tensor(op, 0, fg_neg(fg_read_tensor(op, in)));
  fg_output(g, "out", fg_op_end(op));
  fg_output(g, "out2", fg_op_output(op, 0));
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  int32_t buf[30] = {0};
  ck_assert_int_eq(fg_program_run(p, 0, NULL, 2, (void *[]){buf, buf + 10}),
                   FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(fg_context_errmsg(ctx), "got 0 input(s)"));
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){NULL}, 2,
                                  (void *[]){buf, buf + 10}), FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(fg_context_errmsg(ctx), "input 0 ('in')"));
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){buf}, 2,
                                  (void *[]){buf + 5, buf + 20}), FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(fg_context_errmsg(ctx), "overlaps input 'in'"));
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){buf}, 2,
                                  (void *[]){buf + 10, buf + 15}), FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(fg_context_errmsg(ctx), "overlaps output"));
  /* nothing was written by the refused runs */
  for (int i = 10; i < 30; i++)
    ck_assert_int_eq(buf[i], 0);
  ck_assert_int_eq(fg_program_run(NULL, 0, NULL, 0, NULL), FG_EINVAL);
  fg_program_free(p);
  fg_program *none = (fg_program *)1;
  ck_assert_int_eq(fg_compile(ctx, NULL, NULL, &none), FG_EINVAL);
  ck_assert_ptr_null(none);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_run_compile_rejects_graph_without_outputs) {
  fg_graph *g = fg_graph_new("empty");
  fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(10)));
  fg_context *ctx = tu_context();
  fg_program *p = (fg_program *)1;
  ck_assert_int_eq(fg_compile(ctx, g, NULL, &p), FG_EINVAL);
  ck_assert_ptr_null(p);
  ck_assert_ptr_nonnull(strstr(fg_context_errmsg(ctx), "no outputs"));
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* A graph whose kernel source is unique to this test run (the constant
 * differs), so the cache starts cold. */
static fg_graph *unique_graph(unsigned salt) {
  fg_type t = fg_type_scalar(FG_U32, fg_shape1(1000));
  fg_graph *g = fg_graph_new("salted");
  fg_field *in = fg_input(g, "in", t);
  fg_op *op = fg_op_begin(g, "salt", 1, &t);
  fg_write_tensor(op, 0, fg_bxor(fg_read_tensor(op, in), fg_uint(op, salt)));
  fg_output(g, "out", fg_op_end(op));
  return g;
}

static fg_context *context_in(const char *dir) {
  fg_context_options opt = {.backend = FG_BACKEND_CPU, .cache_dir = dir};
  fg_context *ctx = NULL;
  char err[512];
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  return ctx;
}

static void run_salted(fg_context *ctx, unsigned salt) {
  fg_graph *g = unique_graph(salt);
  fg_program *p = tu_compile(ctx, g);
  uint32_t in[1000], out[1000];
  for (unsigned i = 0; i < 1000; i++)
    in[i] = i * 2654435761u;
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){in}, 1,
                                  (void *[]){out}), FG_OK);
  for (unsigned i = 0; i < 1000; i++)
    ck_assert_uint_eq(out[i], in[i] ^ salt);
  fg_program_free(p);
  fg_graph_free(g);
}

START_TEST(test_run_cpu_cache_second_context_compiles_nothing) {
  char dir[] = "/tmp/fg-cache-test-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  fg_context_stats s;
  fg_context *ctx = context_in(dir);
  run_salted(ctx, 12345u);
  fg_context_get_stats(ctx, &s);
  ck_assert_uint_eq(s.kernels_compiled, 1);
  ck_assert_uint_eq(s.cache_hits, 0);
  tu_context_free(ctx);
  ctx = context_in(dir);            /* as a second process start would */
  run_salted(ctx, 12345u);
  fg_context_get_stats(ctx, &s);
  ck_assert_uint_eq(s.kernels_compiled, 0);
  ck_assert_uint_eq(s.cache_hits, 1);
  run_salted(ctx, 54321u);          /* different source: a new build */
  fg_context_get_stats(ctx, &s);
  ck_assert_uint_eq(s.kernels_compiled, 1);
  tu_context_free(ctx);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* What one concurrent builder does, without Check's assertions (a forked
 * child must not write to Check's channel): 0 when the kernel built,
 * loaded and computed the right answer. */
static int child_build(const char *dir, unsigned salt) {
  fg_context_options opt = {.backend = FG_BACKEND_CPU, .cache_dir = dir};
  fg_context *ctx = NULL;
  if (fg_context_new(&opt, &ctx, NULL, 0) != FG_OK)
    return 1;
  fg_graph *g = unique_graph(salt);
  fg_program *p = NULL;
  int bad = fg_compile(ctx, g, NULL, &p) != FG_OK;
  uint32_t in[1000], out[1000];
  for (unsigned i = 0; i < 1000; i++)
    in[i] = i * 2654435761u;
  if (!bad)
    bad = fg_program_run(p, 1, (const void *[]){in}, 1, (void *[]){out}) !=
          FG_OK;
  for (unsigned i = 0; i < 1000 && !bad; i++)
    bad = out[i] != (in[i] ^ salt);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
  return bad ? 2 : 0;
}

START_TEST(test_run_cpu_cache_concurrent_builders_agree) {
  /* Four processes build the same new kernel into one cache at once; each
   * must load a whole object and compute the right answer. */
  char dir[] = "/tmp/fg-cache-race-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  pid_t kids[4];
  for (int i = 0; i < 4; i++) {
    kids[i] = fork();
    ck_assert_int_ge(kids[i], 0);
    if (kids[i] == 0)
      _exit(child_build(dir, 777u));
  }
  for (int i = 0; i < 4; i++) {
    int st;
    ck_assert_int_eq(waitpid(kids[i], &st, 0), kids[i]);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "builder %d failed", i);
  }
  /* exactly one object, and no temporary files, remain */
  char cmd[256];
  snprintf(cmd, sizeof cmd, "test $(ls %s/cpu | grep -c '\\.so$') -eq 1 && "
           "test $(ls %s/cpu | grep -Ec '\\.[0-9]+\\.[0-9]+\\.') -eq 0",
           dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_run_cpu_missing_compiler_is_a_clear_error) {
  setenv("FG_CLANG", "/nonexistent/clang", 1);
  fg_context_options opt = {.backend = FG_BACKEND_CPU};
  fg_context *ctx = (fg_context *)1;
  char err[512];
  ck_assert_int_eq(fg_context_new(&opt, &ctx, err, sizeof err), FG_ENODEV);
  ck_assert_ptr_null(ctx);
  ck_assert_ptr_nonnull(strstr(err, "/nonexistent/clang"));
  unsetenv("FG_CLANG");
}
END_TEST

/* Issue 17 finding 11: when the compiler cannot be started (its log cannot
 * be created, as on a full disk; the program is gone), the message names
 * the errno, not "could not run, code -1".  Injected: the version check's
 * log path is a directory; the compiler disappears after fg_context_new. */
START_TEST(test_run_cpu_compiler_failure_names_the_cause) {
  char dir[] = "/tmp/fg-cache-test-XXXXXX", sub[64], log[96], cc[64];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(sub, sizeof sub, "%s/cpu", dir);
  snprintf(log, sizeof log, "%s/version.%d.log", sub, (int)getpid());
  ck_assert_int_eq(mkdir(sub, 0755), 0);
  ck_assert_int_eq(mkdir(log, 0755), 0);
  fg_context_options opt = {.backend = FG_BACKEND_CPU, .cache_dir = dir};
  fg_context *ctx = (fg_context *)1;
  char err[1024];
  ck_assert_int_eq(fg_context_new(&opt, &ctx, err, sizeof err), FG_ENODEV);
  ck_assert_ptr_null(ctx);
  ck_assert_msg(strstr(err, strerror(EISDIR)) && strstr(err, log),
                "message: %s", err);
  ck_assert_int_eq(rmdir(log), 0);

  /* a compiler that works for fg_context_new, then is removed */
  snprintf(cc, sizeof cc, "%s/clang", dir);
  FILE *f = fopen(cc, "w");
  ck_assert_ptr_nonnull(f);
  const char *real = getenv("FG_CLANG");
  fprintf(f, "#!/bin/sh\nexec %s \"$@\"\n", real && *real ? real : "clang");
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(chmod(cc, 0755), 0);
  setenv("FG_CLANG", cc, 1);
  ctx = context_in(dir);
  ck_assert_int_eq(unlink(cc), 0);
  fg_graph *g = unique_graph((unsigned)getpid() * 2654435761u);
  fg_program *p = NULL;
  fg_status st = fg_compile(ctx, g, NULL, &p);
  const char *msg = fg_context_errmsg(ctx);
  ck_assert_msg(st == FG_EIO, "status %s: %s", fg_status_name(st), msg);
  ck_assert_msg(strstr(msg, strerror(ENOENT)) && !strstr(msg, "code -1"),
                "message: %s", msg);
  ck_assert_ptr_null(p);
  fg_graph_free(g);
  tu_context_free(ctx);
  if (real)
    setenv("FG_CLANG", real, 1);
  else
    unsetenv("FG_CLANG");
}
END_TEST

START_TEST(test_run_context_rejects_bad_options) {
  fg_context *ctx = NULL;
  char err[512];
  fg_context_options opt = {.backend = 42};
  ck_assert_int_eq(fg_context_new(&opt, &ctx, err, sizeof err), FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(err, "backend 42"));
  opt = (fg_context_options){.threads = -3};
  ck_assert_int_eq(fg_context_new(&opt, &ctx, err, sizeof err), FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(err, "threads is -3"));
  setenv("FG_BACKEND", "tpu", 1);
  ck_assert_int_eq(fg_context_new(NULL, &ctx, err, sizeof err), FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(err, "FG_BACKEND is 'tpu'"));
  unsetenv("FG_BACKEND");
  ck_assert_int_eq(fg_context_new(NULL, NULL, err, sizeof err), FG_EINVAL);
}
END_TEST

START_TEST(test_run_cpu_relaxed_precision_close_to_full) {
  /* the same math-heavy kernel compiled both ways agrees within the
   * approximation error libmvec documents (4 ulp), far below 1e-5 */
  const int N = 8192;
  fg_type t = fg_type_scalar(FG_F32, fg_shape1(N));
  fg_graph *g = fg_graph_new("mathy");
  fg_field *in = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "mathy", 1, &t);
  fg_expr *x = fg_read_tensor(op, in);
  fg_write_tensor(op, 0, fg_add(fg_exp(fg_mulf(x, 0.5f)),
                                fg_pow(fg_addf(fg_fabs(x), 1.0f),
                                       fg_float(op, 0.7f))));
  fg_output(g, "y", fg_op_end(op));
  fg_context *ctx = tu_context();
  float *a = malloc(N * sizeof *a), *full = malloc(N * sizeof *a);
  float *fast = malloc(N * sizeof *a);
  for (int i = 0; i < N; i++)
    a[i] = (float)(i - N / 2) / 1000.0f;
  fg_program *p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){a}, 1,
                                  (void *[]){full}), FG_OK);
  fg_program_free(p);
  fg_compile_options opt = {.precision = FG_PRECISION_RELAXED};
  ck_assert_msg(fg_compile(ctx, g, &opt, &p) == FG_OK, "%s",
                fg_context_errmsg(ctx));
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){a}, 1,
                                  (void *[]){fast}), FG_OK);
  for (int i = 0; i < N; i++) {
    double want = exp(a[i] * 0.5) + pow(fabs(a[i]) + 1.0, (double)0.7f);
    ck_assert_msg(fabs(full[i] - want) <= 2e-7 * want, "full at %d", i);
    ck_assert_msg(fabs(fast[i] - want) <= 1e-5 * want, "relaxed at %d: %g "
                  "vs %g", i, fast[i], want);
  }
  fg_program_free(p);
  opt.precision = 7;
  ck_assert_int_eq(fg_compile(ctx, g, &opt, &p), FG_EINVAL);
  ck_assert_ptr_null(p);
  ck_assert_ptr_nonnull(strstr(fg_context_errmsg(ctx), "precision 7"));
  free(a);
  free(full);
  free(fast);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* Issue 17 finding 7: elements no thread writes come back zero on every
 * backend, whatever the caller's buffer (or the device's) held. */
START_TEST(test_run_unwritten_output_elements_are_zero) {
  const int R = 5, C = 9;
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("even");
  fg_field *in = fg_input(g, "in", t);
  fg_op *op = fg_op_begin(g, "even_columns", 1, (fg_type[]){t});
  /* thread (r, c) writes in(r, c) + 1 to column 2c: odd columns, and
   * columns 2c >= C, are never written */
  fg_write_tensor_at(op, 0, fg_add(fg_read_tensor(op, in), fg_float(op, 1)),
                     2, fg_row(op), fg_muli(fg_column(op), 2));
  fg_output(g, "out", fg_op_end(op));
  float *a = malloc(sizeof(float) * R * C), *o = malloc(sizeof(float) * R * C);
  for (int i = 0; i < R * C; i++)
    a[i] = (float)(i + 1);
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  for (int rep = 0; rep < 2; rep++) {
    memset(o, 0xA5, sizeof(float) * R * C); /* garbage, not 0 */
    fg_status st = fg_program_run(p, 1, (const void *[]){a}, 1,
                                  (void *[]){o});
    ck_assert_msg(st == FG_OK, "run: %s", fg_context_errmsg(ctx));
    for (int r = 0; r < R; r++)
      for (int c = 0; c < C; c++) {
        float want = c % 2 ? 0.0f : a[r * C + c / 2] + 1.0f;
        ck_assert_msg(o[r * C + c] == want, "(%d, %d): %g, expected %g", r,
                      c, (double)o[r * C + c], (double)want);
      }
  }
  fg_program_free(p);
  tu_context_free(ctx);
  free(a);
  free(o);
  fg_graph_free(g);
}
END_TEST

/* fg_program_kernel_time counts every launch of every kernel over the
 * program's runs, and its time grows with them; bad indices are refused. */
START_TEST(test_run_kernel_times_count_launches) {
  fg_graph *g = fg_graph_new("prof");
  fg_field *in = fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape2(64, 64)));
  fg_field *t = fg_transpose(g, fg_scale_offset(g, in, 2, 1));
  fg_output(g, "y", fg_scale_offset(g, t, 3, 0));
  fg_output(g, "s", fg_reduce_sum(g, in));
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  static float x[64][64], y[64][64], s;
  int nk = fg_program_kernel_count(p);
  ck_assert_int_ge(nk, 2);
  for (int r = 0; r < 3; r++)
    ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){x}, 2,
                                    (void *[]){y, &s}), FG_OK);
  for (int k = 0; k < nk; k++) {
    double sec = -1;
    long long n = -1;
    ck_assert_int_eq(fg_program_kernel_time(p, k, &sec, &n), FG_OK);
    ck_assert_msg(n == 3, "kernel %d (%s): %lld launches, 3 runs", k,
                  fg_program_kernel_name(p, k), n);
    ck_assert(sec >= 0 && sec < 60);
  }
  ck_assert_int_eq(fg_program_kernel_time(p, nk, NULL, NULL), FG_EINVAL);
  ck_assert_int_eq(fg_program_kernel_time(NULL, 0, NULL, NULL), FG_EINVAL);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

int main(void) {
  Suite *s = suite_create("run");
  TCase *tc = tcase_create("run");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_run_thread_constants_every_dimension);
  tcase_add_test(tc, test_run_kernel_times_count_launches);
  tcase_add_test(tc, test_run_half_large_field_matches_c);
  tcase_add_test(tc, test_run_few_rows_many_columns_every_row);
  tcase_add_test(tc, test_run_integer_vectors_every_type);
  tcase_add_test(tc, test_run_explicit_reads_clamp_and_writes_drop);
  tcase_add_test(tc, test_run_math_builtins_match_libm);
  tcase_add_test(tc, test_run_constants_zero_d_and_conversions);
  tcase_add_test(tc, test_run_outputs_alias_inputs_and_each_other);
  tcase_add_test(tc, test_run_compile_refuses_fp64_without_the_capability);
  tcase_add_test(tc, test_run_context_rejects_unknown_disable);
  tcase_add_test(tc, test_run_run_rejects_bad_arguments);
  tcase_add_test(tc, test_run_compile_rejects_graph_without_outputs);
  tcase_add_test(tc, test_run_cpu_cache_second_context_compiles_nothing);
  tcase_add_test(tc, test_run_cpu_cache_concurrent_builders_agree);
  tcase_add_test(tc, test_run_cpu_missing_compiler_is_a_clear_error);
  tcase_add_test(tc, test_run_context_rejects_bad_options);
  tcase_add_test(tc, test_run_cpu_relaxed_precision_close_to_full);
  tcase_add_test(tc, test_run_unwritten_output_elements_are_zero);
  tcase_add_test(tc, test_run_cpu_compiler_failure_names_the_cause);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
