/* tests/check_reduce.c - the built-in reductions on the backend
 * $FG_TEST_BACKEND names: sums, minima, maxima and products of every kind
 * of field (1-3 dimensions, scalars and vectors, integers that wrap),
 * checked against plain C; pointwise producers fused into the reduction
 * (one kernel reading only the original inputs, the product never
 * written), fused and unfused bit-identical; a reduction's result read by
 * a later operator; sibling reductions sharing one pass (min and max, sum
 * and sum of squares, mixed types) and those that must stay apart
 * (different threads, one reading the other's result). */
#include "testutil.h"

#include <math.h>
#include <stdint.h>

static fg_field *mul_op(fg_graph *g, fg_field *a, fg_field *b) {
  fg_type t = fg_field_type(a);
  fg_op *op = fg_op_begin(g, "mul", 1, &t);
  fg_write_tensor(op, 0, fg_mul(fg_read_tensor(op, a), fg_read_tensor(op, b)));
  return fg_op_end(op);
}

/* fg_reduce's documented order (include/fieldgraph/graph.h) in plain C:
 * partials of a lane-aligned chunk, 16 lanes each taking i % 16, a
 * halving tree over the lanes, the partials folded in order.  What every
 * backend must give bit for bit. */
static double ref_op(fg_reduce_op op, double a, double b, int is_f32) {
  double r;
  switch (op) {
  case FG_REDUCE_SUM: r = a + b; break;
  case FG_REDUCE_PROD: r = a * b; break;
  case FG_REDUCE_MIN: r = b < a ? b : a; break;
  default: r = b > a ? b : a; break;
  }
  return is_f32 ? (double)(float)r : r;
}

/* v holds n floats (is_f32) or doubles; returns the reduction, rounded to
 * the element type at every step as the kernels round. */
static double ref_reduce(fg_reduce_op op, const void *v, int64_t n,
                         int is_f32) {
  double id = op == FG_REDUCE_SUM ? 0 : op == FG_REDUCE_PROD ? 1
              : op == FG_REDUCE_MIN ? INFINITY : -INFINITY;
  int64_t parts = (n + 16383) / 16384;
  if (parts > 256)
    parts = 256;
  int64_t chunk = ((n + parts - 1) / parts + 15) / 16 * 16;
  double r = id;
  for (int64_t p = 0; p < parts; p++) {
    double lane[16];
    for (int l = 0; l < 16; l++)
      lane[l] = id;
    for (int64_t i = p * chunk; i < (p + 1) * chunk && i < n; i++) {
      double x = is_f32 ? (double)((const float *)v)[i]
                        : ((const double *)v)[i];
      lane[i % 16] = ref_op(op, lane[i % 16], x, is_f32);
    }
    for (int w = 8; w >= 1; w /= 2)
      for (int l = 0; l < w; l++)
        lane[l] = ref_op(op, lane[l], lane[l + w], is_f32);
    r = ref_op(op, r, lane[0], is_f32);
  }
  return r;
}

static fg_program *compile_with(fg_context *ctx, fg_graph *g, fg_fusion f) {
  fg_compile_options o = {.fusion = f};
  fg_program *p = NULL;
  ck_assert_msg(fg_compile(ctx, g, &o, &p) == FG_OK, "%s",
                fg_context_errmsg(ctx));
  return p;
}

START_TEST(test_reduce_dot_product_fuses_into_one_kernel) {
  const int R = 1031, C = 777;
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("dot");
  fg_field *a = fg_input(g, "a", t), *b = fg_input(g, "b", t);
  fg_output(g, "dot", fg_reduce(g, "sum", FG_REDUCE_SUM, mul_op(g, a, b)));
  float *x = malloc(sizeof(float) * R * C), *y = malloc(sizeof(float) * R * C);
  double want = 0;
  for (int i = 0; i < R * C; i++) {
    x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    y[i] = (float)((i * 11) % 53) / 26.0f - 1.0f;
    want += (double)(x[i] * y[i]);
  }
  fg_context *ctx = tu_context();
  fg_program *fused = compile_with(ctx, g, FG_FUSION_ON);
  fg_program *unfused = compile_with(ctx, g, FG_FUSION_OFF);
  ck_assert_int_eq(fg_program_kernel_count(fused), 1);
  ck_assert_str_eq(fg_program_kernel_name(fused, 0), "mul+sum");
  ck_assert_ptr_null(fg_program_field_reason(fused, "mul.out0"));  /* virtual */
  ck_assert_int_eq(fg_program_kernel_count(unfused), 2);
  fg_fusion_stats s;
  fg_program_fusion_stats(fused, &s);
  /* reads a and b once, writes one float: nothing of a * b */
  ck_assert_int_eq(s.bytes, 2 * (int64_t)sizeof(float) * R * C + 4);
  float r1, r2;
  ck_assert_int_eq(fg_program_run(fused, 2, (const void *[]){x, y}, 1,
                                  (void *[]){&r1}), FG_OK);
  ck_assert_int_eq(fg_program_run(unfused, 2, (const void *[]){x, y}, 1,
                                  (void *[]){&r2}), FG_OK);
  ck_assert_int_eq(memcmp(&r1, &r2, sizeof r1), 0);
  ck_assert_msg(fabs(r1 - want) < 1e-3 * (1 + fabs(want)), "%g vs %g", r1,
                want);
  fg_program_free(fused);
  fg_program_free(unfused);
  tu_context_free(ctx);
  fg_graph_free(g);
  free(x);
  free(y);
}
END_TEST

START_TEST(test_reduce_every_op_on_integers_and_vectors) {
  /* i32 vec2 over a 3-D field: sums wrap, min, max exact */
  fg_shape s = fg_shape3(3, 71, 129);
  int64_t n = fg_shape_points(s);
  fg_type t = fg_type_vector(FG_I32, s, 2);
  fg_graph *g = fg_graph_new("ints");
  fg_field *x = fg_input(g, "x", t);
  fg_output(g, "sum", fg_reduce(g, "s", FG_REDUCE_SUM, x));
  fg_output(g, "min", fg_reduce(g, "mn", FG_REDUCE_MIN, x));
  fg_output(g, "max", fg_reduce(g, "mx", FG_REDUCE_MAX, x));
  int32_t *v = malloc(sizeof(int32_t) * 2 * n);
  uint32_t want_sum[2] = {0, 0};
  int32_t want_min[2] = {INT32_MAX, INT32_MAX}, want_max[2] = {INT32_MIN,
                                                                INT32_MIN};
  for (int64_t i = 0; i < 2 * n; i++) {
    v[i] = (int32_t)((uint32_t)i * 2654435761u);   /* big: sums wrap */
    want_sum[i % 2] += (uint32_t)v[i];
    want_min[i % 2] = v[i] < want_min[i % 2] ? v[i] : want_min[i % 2];
    want_max[i % 2] = v[i] > want_max[i % 2] ? v[i] : want_max[i % 2];
  }
  int32_t sum[2], mn[2], mx[2];
  tu_run(g, 1, (const void *[]){v}, 3, (void *[]){sum, mn, mx});
  for (int c = 0; c < 2; c++) {
    ck_assert_int_eq(sum[c], (int32_t)want_sum[c]);
    ck_assert_int_eq(mn[c], want_min[c]);
    ck_assert_int_eq(mx[c], want_max[c]);
  }
  free(v);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_reduce_u8_image_and_float_product) {
  /* the maximum of a u8 RGBA line, and the product of a 1-D float field */
  fg_graph *g = fg_graph_new("misc");
  fg_field *img = fg_input(g, "img", fg_type_vector(FG_U8, fg_shape1(5000), 4));
  fg_field *f = fg_input(g, "f", fg_type_scalar(FG_F64, fg_shape1(300)));
  fg_output(g, "max", fg_reduce(g, "mx", FG_REDUCE_MAX, img));
  fg_output(g, "min", fg_reduce(g, "mn", FG_REDUCE_MIN, img));
  fg_output(g, "prod", fg_reduce(g, "p", FG_REDUCE_PROD, f));
  uint8_t *px = malloc(5000 * 4);
  double fv[300], want_prod = 1;
  uint8_t want_max[4] = {0}, want_min[4] = {255, 255, 255, 255};
  for (int i = 0; i < 5000 * 4; i++) {
    px[i] = (uint8_t)((i * 97 + 13) % 251);
    want_max[i % 4] = px[i] > want_max[i % 4] ? px[i] : want_max[i % 4];
    want_min[i % 4] = px[i] < want_min[i % 4] ? px[i] : want_min[i % 4];
  }
  for (int i = 0; i < 300; i++) {
    fv[i] = 1.0 + ((i % 7) - 3) * 0.001;
    want_prod *= fv[i];
  }
  uint8_t mx[4], mn[4];
  double prod;
  tu_run(g, 2, (const void *[]){px, fv}, 3, (void *[]){mx, mn, &prod});
  for (int c = 0; c < 4; c++) {
    ck_assert_uint_eq(mx[c], want_max[c]);
    ck_assert_uint_eq(mn[c], want_min[c]);
  }
  /* the documented order, bit for bit; within rounding of the loop */
  double ref = ref_reduce(FG_REDUCE_PROD, fv, 300, 0);
  ck_assert_msg(!memcmp(&prod, &ref, sizeof ref), "%.17g vs %.17g", prod,
                ref);
  ck_assert_double_eq_tol(prod, want_prod, 1e-14);
  free(px);
  fg_graph_free(g);
}
END_TEST

/* Every op over every element type, on fields of a few partials whose
 * values sit where a wrong identity would show: minima near the type's
 * largest value, maxima near its smallest, sums and products of small
 * integers (exact in floats; integers wrap).  The expected values fold
 * the field in plain C from its first element, never from an identity. */
#define IDENTITY_CASE(E, T, UT, LO, HI, FL)                                  \
  static void identity_case_##E(void) {                                     \
    enum { N = 40000 };                                                     \
    fg_graph *g = fg_graph_new("identities");                               \
    fg_type t = fg_type_scalar(E, fg_shape1(N));                            \
    static const fg_reduce_op ops[4] = {FG_REDUCE_SUM, FG_REDUCE_MIN,       \
                                        FG_REDUCE_MAX, FG_REDUCE_PROD};     \
    T *v[4], got[4], want[4];                                               \
    const void *in[4];                                                      \
    void *out[4];                                                           \
    for (int o = 0; o < 4; o++) {                                           \
      char name[16], res[16];                                               \
      snprintf(name, sizeof name, "x%d", o);                                \
      snprintf(res, sizeof res, "r%d", o);                                  \
      fg_output(g, res, fg_reduce(g, res, ops[o], fg_input(g, name, t)));   \
      v[o] = malloc(N * sizeof(T));                                         \
      ck_assert_ptr_nonnull(v[o]);                                          \
      in[o] = v[o];                                                         \
      out[o] = &got[o];                                                     \
    }                                                                       \
    for (int i = 0; i < N; i++) {                                           \
      int k = (i * 37 + 11) % 100;                                          \
      v[0][i] = (T)(i % 3);                                                 \
      v[1][i] = FL ? (T)(1e30 * (1 + k * 0.01)) : (T)(HI - (T)k);           \
      v[2][i] = FL ? (T)(-1e30 * (1 + k * 0.01)) : (T)(LO + (T)k);          \
      v[3][i] = (T)(i % 9973 == 17 ? 2 : 1);                                \
    }                                                                       \
    for (int o = 0; o < 4; o++)                                             \
      want[o] = v[o][0];                                                    \
    for (int i = 1; i < N; i++) {                                           \
      want[0] = FL ? (T)(want[0] + v[0][i])                                 \
                   : (T)((UT)want[0] + (UT)v[0][i]);                        \
      want[1] = v[1][i] < want[1] ? v[1][i] : want[1];                      \
      want[2] = v[2][i] > want[2] ? v[2][i] : want[2];                      \
      want[3] = FL ? (T)(want[3] * v[3][i])                                 \
                   : (T)((UT)want[3] * (UT)v[3][i]);                        \
    }                                                                       \
    tu_run(g, 4, in, 4, out);                                               \
    for (int o = 0; o < 4; o++) {                                           \
      ck_assert_msg(!memcmp(&got[o], &want[o], sizeof(T)),                  \
                    "%s of %s: got %.17g, expected %.17g",                  \
                    o == 0 ? "sum" : o == 1 ? "min" : o == 2 ? "max"        \
                                                     : "prod",              \
                    #E, (double)got[o], (double)want[o]);                   \
      free(v[o]);                                                           \
    }                                                                       \
    fg_graph_free(g);                                                       \
  }
IDENTITY_CASE(FG_I8, int8_t, uint8_t, INT8_MIN, INT8_MAX, 0)
IDENTITY_CASE(FG_U8, uint8_t, uint8_t, 0, UINT8_MAX, 0)
IDENTITY_CASE(FG_I16, int16_t, uint16_t, INT16_MIN, INT16_MAX, 0)
IDENTITY_CASE(FG_U16, uint16_t, uint16_t, 0, UINT16_MAX, 0)
IDENTITY_CASE(FG_I32, int32_t, uint32_t, INT32_MIN, INT32_MAX, 0)
IDENTITY_CASE(FG_U32, uint32_t, uint32_t, 0, UINT32_MAX, 0)
IDENTITY_CASE(FG_I64, int64_t, uint64_t, INT64_MIN, INT64_MAX, 0)
IDENTITY_CASE(FG_U64, uint64_t, uint64_t, 0, UINT64_MAX, 0)
IDENTITY_CASE(FG_F32, float, uint32_t, 0, 0, 1)
IDENTITY_CASE(FG_F64, double, uint64_t, 0, 0, 1)
#undef IDENTITY_CASE

START_TEST(test_reduce_every_op_on_every_element_type) {
  identity_case_FG_I8();
  identity_case_FG_U8();
  identity_case_FG_I16();
  identity_case_FG_U16();
  identity_case_FG_I32();
  identity_case_FG_U32();
  identity_case_FG_I64();
  identity_case_FG_U64();
  identity_case_FG_F32();
  identity_case_FG_F64();
}
END_TEST

START_TEST(test_reduce_result_read_by_a_later_operator) {
  /* normalize: x / sum(x); the sum is a boundary, its result in memory */
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(40, 50));
  fg_graph *g = fg_graph_new("normalize");
  fg_field *x = fg_input(g, "x", t);
  fg_field *total = fg_reduce(g, "total", FG_REDUCE_SUM, x);
  fg_op *op = fg_op_begin(g, "norm", 1, &t);
  fg_write_tensor(op, 0, fg_div(fg_read_tensor(op, x),
                                fg_read_tensor(op, total)));
  fg_output(g, "y", fg_op_end(op));
  fg_context *ctx = tu_context();
  fg_program *p = compile_with(ctx, g, FG_FUSION_ON);
  ck_assert_int_eq(fg_program_kernel_count(p), 2);
  const char *why = fg_program_field_reason(p, "total.out0");
  ck_assert_ptr_nonnull(why);
  ck_assert_msg(strstr(why, "reduction result read by norm"), "%s", why);
  float xs[2000], ys[2000];
  float sum = 0;
  for (int i = 0; i < 2000; i++)
    xs[i] = 1.0f + (float)(i % 10);
  for (int i = 0; i < 2000; i++)
    sum += xs[i];   /* small integers: exact in any order */
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){xs}, 1,
                                  (void *[]){ys}), FG_OK);
  for (int i = 0; i < 2000; i++)
    ck_assert_float_eq(ys[i], xs[i] / sum);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* Float sums, products, minima and maxima of random data on fields of one
 * partial, several, and more than the most partials, odd shapes included:
 * equal bit for bit to the documented order on this backend (the suite
 * runs again on the other, so the backends agree bit for bit), fused with
 * a pointwise producer and unfused alike. */
START_TEST(test_reduce_float_order_is_documented_and_backend_free) {
  static const fg_shape shapes[] = {
    {1, {1}}, {1, {17}}, {2, {3, 5}}, {2, {129, 127}}, {3, {3, 301, 999}},
    {2, {2111, 2003}}};
  fg_context *ctx = tu_context();
  uint64_t seed = 12345;
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
    fg_shape sh = shapes[si];
    int64_t n = fg_shape_points(sh);
    float *x = malloc(sizeof(float) * (size_t)n);
    double *d = malloc(sizeof(double) * (size_t)n);
    float *sq = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      x[i] = (float)((int64_t)(seed >> 33) - (1ll << 30)) / (float)(1 << 20);
      d[i] = 1.0 + (double)(seed >> 40) * 1e-13;
      sq[i] = x[i] * 3.0f;
    }
    fg_graph *g = fg_graph_new("order");
    fg_field *fx = fg_input(g, "x", fg_type_scalar(FG_F32, sh));
    fg_field *fd = fg_input(g, "d", fg_type_scalar(FG_F64, sh));
    fg_output(g, "sum", fg_reduce(g, "s", FG_REDUCE_SUM, fx));
    fg_output(g, "min", fg_reduce(g, "mn", FG_REDUCE_MIN, fx));
    fg_output(g, "max", fg_reduce(g, "mx", FG_REDUCE_MAX, fx));
    fg_output(g, "prod", fg_reduce(g, "p", FG_REDUCE_PROD, fd));
    /* a fused producer: sum(3 * x) */
    fg_type t = fg_field_type(fx);
    fg_op *op = fg_op_begin(g, "triple", 1, &t);
    fg_write_tensor(op, 0, fg_mul(fg_read_tensor(op, fx),
                                  fg_float(op, 3.0f)));
    fg_output(g, "sum3", fg_reduce(g, "s3", FG_REDUCE_SUM, fg_op_end(op)));
    float got[4][2];
    double prod[2];
    for (int f = 0; f < 2; f++) {
      fg_program *p = compile_with(ctx, g, f ? FG_FUSION_OFF : FG_FUSION_ON);
      ck_assert_int_eq(fg_program_run(p, 2, (const void *[]){x, d}, 5,
                                      (void *[]){&got[0][f], &got[1][f],
                                                 &got[2][f], &prod[f],
                                                 &got[3][f]}),
                       FG_OK);
      fg_program_free(p);
    }
    float want[4] = {(float)ref_reduce(FG_REDUCE_SUM, x, n, 1),
                     (float)ref_reduce(FG_REDUCE_MIN, x, n, 1),
                     (float)ref_reduce(FG_REDUCE_MAX, x, n, 1),
                     (float)ref_reduce(FG_REDUCE_SUM, sq, n, 1)};
    double want_prod = ref_reduce(FG_REDUCE_PROD, d, n, 0);
    for (int f = 0; f < 2; f++) {
      for (int o = 0; o < 4; o++)
        ck_assert_msg(!memcmp(&got[o][f], &want[o], sizeof(float)),
                      "shape %zu, output %d, %s: %.9g, documented order "
                      "%.9g", si, o, f ? "unfused" : "fused",
                      (double)got[o][f], (double)want[o]);
      ck_assert_msg(!memcmp(&prod[f], &want_prod, sizeof(double)),
                    "shape %zu, product: %.17g vs %.17g", si, prod[f],
                    want_prod);
    }
    fg_graph_free(g);
    free(x);
    free(d);
    free(sq);
  }
  tu_context_free(ctx);
}
END_TEST

/* Vector-typed reductions (a 3-wide float with its padding, a 2-wide
 * double) and an integer sibling sharing the float lanes, over values
 * with NaN, infinities and signed zeros and over shapes whose rows do
 * not start on a lane boundary: each component in the documented order,
 * bit for bit, fused and unfused (the CPU backend folds whole blocks of
 * lanes as one vector). */
START_TEST(test_reduce_vector_lanes_keep_the_documented_order) {
  static const fg_shape shapes[] = {{1, {5}}, {2, {3, 37}}, {2, {129, 127}},
                                    {2, {517, 301}}};
  static const fg_reduce_op ops[] = {FG_REDUCE_SUM, FG_REDUCE_MIN,
                                     FG_REDUCE_MAX};
  fg_context *ctx = tu_context();
  uint64_t seed = 777;
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
    fg_shape sh = shapes[si];
    int64_t n = fg_shape_points(sh);
    float *x = malloc(sizeof(float) * 3 * (size_t)n);
    double *d = malloc(sizeof(double) * 2 * (size_t)n);
    uint8_t *b = malloc((size_t)n);
    for (int64_t i = 0; i < 3 * n; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      unsigned r = (unsigned)(seed >> 40);
      x[i] = r % 97 == 0 ? NAN : r % 89 == 0 ? -0.0f : r % 83 == 0 ? 0.0f
             : r % 211 == 0 ? -INFINITY
             : (float)((int)(r % 2000001) - 1000000) / 1024.0f;
      if (i < 2 * n)
        d[i] = (double)((int64_t)(seed >> 20) - (1ll << 43)) / 3.0;
      if (i < n)
        b[i] = (uint8_t)(seed >> 56);
    }
    fg_graph *g = fg_graph_new("vlanes");
    fg_field *fx = fg_input(g, "x", fg_type_vector(FG_F32, sh, 3));
    fg_field *fd = fg_input(g, "d", fg_type_vector(FG_F64, sh, 2));
    fg_field *fb = fg_input(g, "b", fg_type_scalar(FG_U8, sh));
    for (int o = 0; o < 3; o++)
      fg_output(g, o == 0 ? "s" : o == 1 ? "mn" : "mx",
                fg_reduce(g, o == 0 ? "s" : o == 1 ? "mn" : "mx", ops[o],
                          fx));
    fg_output(g, "sd", fg_reduce(g, "sd", FG_REDUCE_SUM, fd));
    fg_output(g, "mb", fg_reduce(g, "mb", FG_REDUCE_MAX, fb));
    float got[3][2][3];
    double gd[2][2];
    uint8_t gb[2];
    for (int f = 0; f < 2; f++) {
      fg_program *p = compile_with(ctx, g, f ? FG_FUSION_OFF : FG_FUSION_ON);
      ck_assert_int_eq(fg_program_run(p, 3, (const void *[]){x, d, b}, 5,
                                      (void *[]){got[0][f], got[1][f],
                                                 got[2][f], gd[f], &gb[f]}),
                       FG_OK);
      fg_program_free(p);
    }
    float *cx = malloc(sizeof(float) * (size_t)n);
    double *cd = malloc(sizeof(double) * (size_t)n);
    uint8_t want_b = 0;
    for (int64_t i = 0; i < n; i++)
      want_b = b[i] > want_b ? b[i] : want_b;
    for (int c = 0; c < 3; c++) {
      for (int64_t i = 0; i < n; i++)
        cx[i] = x[3 * i + c];
      for (int o = 0; o < 3; o++) {
        float want = (float)ref_reduce(ops[o], cx, n, 1);
        /* a NaN's bits are the device's (a GPU gives its own NaN) */
        for (int f = 0; f < 2; f++)
          ck_assert_msg(isnan(want) ? isnan(got[o][f][c])
                                    : !memcmp(&got[o][f][c], &want,
                                              sizeof want),
                        "shape %zu, op %d, component %d, %s: %.9g, "
                        "documented order %.9g", si, o, c,
                        f ? "unfused" : "fused", (double)got[o][f][c],
                        (double)want);
      }
    }
    for (int c = 0; c < 2; c++) {
      for (int64_t i = 0; i < n; i++)
        cd[i] = d[2 * i + c];
      double want = ref_reduce(FG_REDUCE_SUM, cd, n, 0);
      for (int f = 0; f < 2; f++)
        ck_assert_msg(!memcmp(&gd[f][c], &want, sizeof want),
                      "shape %zu, f64x2 sum component %d: %.17g vs %.17g",
                      si, c, gd[f][c], want);
    }
    ck_assert_int_eq(gb[0], want_b);
    ck_assert_int_eq(gb[1], want_b);
    fg_graph_free(g);
    free(x);
    free(d);
    free(b);
    free(cx);
    free(cd);
  }
  tu_context_free(ctx);
}
END_TEST

START_TEST(test_reduce_rejects_bad_arguments) {
  fg_graph *g = fg_graph_new("bad");
  fg_field *big = fg_input(g, "m", fg_type_matrix(FG_F32, fg_shape1(4), 3, 3));
  ck_assert_ptr_null(fg_reduce(g, "s", FG_REDUCE_SUM, big));
  ck_assert_int_eq(fg_graph_status(g), FG_ETYPE);
  ck_assert_ptr_nonnull(strstr(fg_graph_errmsg(g), "reductions take small"));
  fg_graph_free(g);
  g = fg_graph_new("bad");
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape1(4)));
  ck_assert_ptr_null(fg_reduce(g, "s", (fg_reduce_op)9, x));
  ck_assert_ptr_nonnull(strstr(fg_graph_errmsg(g), "operation 9"));
  fg_graph_free(g);
}
END_TEST

/* ---- sibling reductions ---------------------------------------------------
 * Reductions over the same threads that read the same fields share one
 * kernel (one pass, an accumulator set each); each result must be what it
 * is alone: the documented order (ref_reduce), and the unfused program's
 * bits. */

/* Runs g fused and unfused (FG_FUSION_OFF) on in; the fused outputs go
 * to out (sizes bytes each), the unfused ones are compared with them bit
 * for bit.  Returns the fused kernel count; *unfused_kernels gets the
 * other. */
static int run_fused_and_unfused(fg_graph *g, int n_in, const void **in,
                                 int n_out, void **out, const size_t *sizes,
                                 int *unfused_kernels) {
  fg_context *ctx = tu_context();
  fg_program *fused = compile_with(ctx, g, FG_FUSION_ON);
  fg_program *unfused = compile_with(ctx, g, FG_FUSION_OFF);
  void *uo[8];
  ck_assert_int_le(n_out, 8);
  for (int i = 0; i < n_out; i++)
    uo[i] = calloc(1, sizes[i]);
  ck_assert_int_eq(fg_program_run(fused, n_in, in, n_out, out), FG_OK);
  ck_assert_int_eq(fg_program_run(unfused, n_in, in, n_out, uo), FG_OK);
  for (int i = 0; i < n_out; i++) {
    ck_assert_msg(memcmp(out[i], uo[i], sizes[i]) == 0,
                  "output %d: fused and unfused differ", i);
    free(uo[i]);
  }
  int k = fg_program_kernel_count(fused);
  *unfused_kernels = fg_program_kernel_count(unfused);
  fg_program_free(fused);
  fg_program_free(unfused);
  tu_context_free(ctx);
  return k;
}

/* n f32 values of no pattern a reduction could hide behind, some
 * negative, the extremes in the middle of a partial. */
static float *sibling_data(int64_t n) {
  float *x = malloc(sizeof(float) * (size_t)n);
  uint32_t h = 12345;
  for (int64_t i = 0; i < n; i++) {
    h = h * 1664525u + 1013904223u;
    x[i] = (float)(h >> 8) / 16777216.0f * 2.0f - 0.75f;
  }
  x[n / 3] = -7.5f;
  x[n / 2 + 5] = 9.25f;
  return x;
}

START_TEST(test_reduce_siblings_min_and_max_share_one_pass) {
  /* several partials and a ragged last chunk */
  const int R = 517, C = 333;
  const int64_t n = (int64_t)R * C;
  fg_graph *g = fg_graph_new("minmax");
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape2(R, C)));
  fg_output(g, "lo", fg_reduce(g, "lo", FG_REDUCE_MIN, x));
  fg_output(g, "hi", fg_reduce(g, "hi", FG_REDUCE_MAX, x));
  float *xs = sibling_data(n);
  float lo = 0, hi = 0;
  int ku;
  int k = run_fused_and_unfused(g, 1, (const void *[]){xs}, 2,
                                (void *[]){&lo, &hi},
                                (size_t[]){sizeof lo, sizeof hi}, &ku);
  ck_assert_int_eq(k, 1);
  ck_assert_int_eq(ku, 2);
  ck_assert_float_eq(lo, -7.5f);
  ck_assert_float_eq(hi, 9.25f);
  ck_assert_float_eq(lo, (float)ref_reduce(FG_REDUCE_MIN, xs, n, 1));
  ck_assert_float_eq(hi, (float)ref_reduce(FG_REDUCE_MAX, xs, n, 1));
  free(xs);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_reduce_siblings_sum_and_sum_of_squares) {
  /* mean and variance as the W3 benchmark builds them: sum(x) and
   * sum(x * x) in one pass over x, the product never written */
  const int R = 1031, C = 257;
  const int64_t n = (int64_t)R * C;
  fg_graph *g = fg_graph_new("meanvar");
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape2(R, C)));
  fg_field *s = fg_reduce(g, "s", FG_REDUCE_SUM, x);
  fg_type t = fg_field_type(x);
  fg_op *op = fg_op_begin(g, "sq", 1, &t);
  fg_write_tensor(op, 0, fg_mul(fg_read_tensor(op, x), fg_read_tensor(op, x)));
  fg_field *q = fg_reduce(g, "q", FG_REDUCE_SUM, fg_op_end(op));
  fg_field *mean = fg_binary_scalar(g, FG_OP_DIV, s, (double)n);
  fg_field *var = fg_binary(g, FG_OP_SUB,
                            fg_binary_scalar(g, FG_OP_DIV, q, (double)n),
                            fg_binary(g, FG_OP_MUL, mean, mean));
  fg_output(g, "s", s);
  fg_output(g, "q", q);
  fg_output(g, "mean", mean);
  fg_output(g, "var", var);
  expect_ok(g);
  float *xs = sibling_data(n), *sq = malloc(sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; i++)
    sq[i] = xs[i] * xs[i];
  float o[4];
  int ku;
  fg_context *ctx = tu_context();
  fg_program *p = compile_with(ctx, g, FG_FUSION_ON);
  /* s, mul and q in one kernel; the one-point arithmetic after them */
  int reducer = -1;
  for (int i = 0; i < fg_program_kernel_count(p); i++)
    if (strstr(fg_program_kernel_name(p, i), "s+sq+q"))
      reducer = i;
  ck_assert_msg(reducer >= 0, "%s", fg_program_fusion_report(p));
  ck_assert_msg(!fg_program_field_reason(p, "sq.out0"), "%s",
                fg_program_fusion_report(p));  /* virtual */
  ck_assert_msg(!fg_program_field_reason(p, "mul.out0"), "%s",
                fg_program_fusion_report(p));  /* mean * mean: virtual */
  fg_program_free(p);
  tu_context_free(ctx);
  int k = run_fused_and_unfused(g, 1, (const void *[]){xs}, 4,
                                (void *[]){&o[0], &o[1], &o[2], &o[3]},
                                (size_t[]){4, 4, 4, 4}, &ku);
  /* unfused: s, sq, q and four one-point operators; fused: the sums,
   * then the one-point arithmetic in one kernel (mean * mean and q / n
   * both read by the subtraction: neither is written) */
  ck_assert_int_eq(ku, 7);
  ck_assert_int_eq(k, 2);
  ck_assert_float_eq(o[0], (float)ref_reduce(FG_REDUCE_SUM, xs, n, 1));
  ck_assert_float_eq(o[1], (float)ref_reduce(FG_REDUCE_SUM, sq, n, 1));
  /* each operation rounded to float on its own, as the kernels round */
  volatile float m = o[0] / (float)n, qn = o[1] / (float)n, mm = m * m;
  volatile float want_var = qn - mm;
  ck_assert_int_eq(memcmp(&o[2], (const void *)&m, 4), 0);
  ck_assert_int_eq(memcmp(&o[3], (const void *)&want_var, 4), 0);
  free(xs);
  free(sq);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_reduce_siblings_of_mixed_types_and_widths) {
  /* u8x4 sums (wrapping) and maxima beside f32x4 sums and f32 minima of
   * pointwise fields computed from the same u8x4 input: integers and
   * floats, vectors and scalars, share the float reductions' lanes */
  const int R = 301, C = 257;
  const int64_t n = (int64_t)R * C;
  fg_type t = fg_type_vector(FG_U8, fg_shape2(R, C), 4);
  fg_graph *g = fg_graph_new("mixed");
  fg_field *a = fg_input(g, "a", t);
  fg_type wt = fg_type_vector(FG_F32, fg_shape2(R, C), 4);
  fg_op *op = fg_op_begin(g, "wide", 1, &wt);
  fg_write_tensor(op, 0, fg_mul(fg_convert(fg_read_tensor(op, a), FG_F32, 4),
                                fg_float(op, 0.5f)));
  fg_field *wide = fg_op_end(op);
  fg_type lt = fg_type_scalar(FG_F32, fg_shape2(R, C));
  op = fg_op_begin(g, "lum", 1, &lt);
  fg_expr *v = fg_convert(fg_read_tensor(op, a), FG_F32, 4);
  fg_write_tensor(op, 0, fg_add(fg_swizzle(v, "x"),
                                fg_mul(fg_swizzle(v, "y"),
                                       fg_float(op, 0.25f))));
  fg_field *lum = fg_op_end(op);
  fg_output(g, "sa", fg_reduce(g, "sa", FG_REDUCE_SUM, a));
  fg_output(g, "ma", fg_reduce(g, "ma", FG_REDUCE_MAX, a));
  fg_output(g, "sw", fg_reduce(g, "sw", FG_REDUCE_SUM, wide));
  fg_output(g, "ml", fg_reduce(g, "ml", FG_REDUCE_MIN, lum));
  expect_ok(g);
  uint8_t *as = malloc((size_t)n * 4);
  float *wc[4], *lc = malloc(sizeof(float) * (size_t)n);
  for (int c = 0; c < 4; c++)
    wc[c] = malloc(sizeof(float) * (size_t)n);
  uint8_t want_sa[4] = {0}, want_ma[4] = {0};
  for (int64_t i = 0; i < n; i++) {
    for (int c = 0; c < 4; c++) {
      as[i * 4 + c] = (uint8_t)((i * (7 + 2 * c) + c * 31 + i / 97) % 251);
      want_sa[c] = (uint8_t)(want_sa[c] + as[i * 4 + c]);
      if (as[i * 4 + c] > want_ma[c])
        want_ma[c] = as[i * 4 + c];
      wc[c][i] = (float)as[i * 4 + c] * 0.5f;
    }
    lc[i] = (float)as[i * 4] + (float)as[i * 4 + 1] * 0.25f;
  }
  uint8_t sa[4], ma[4];
  float sw[4], ml;
  int ku;
  int k = run_fused_and_unfused(g, 1, (const void *[]){as}, 4,
                                (void *[]){sa, ma, sw, &ml},
                                (size_t[]){4, 4, 16, 4}, &ku);
  ck_assert_int_eq(k, 1);
  ck_assert_int_eq(ku, 6);
  ck_assert_int_eq(memcmp(sa, want_sa, 4), 0);
  ck_assert_int_eq(memcmp(ma, want_ma, 4), 0);
  for (int c = 0; c < 4; c++)
    ck_assert_float_eq(sw[c], (float)ref_reduce(FG_REDUCE_SUM, wc[c], n, 1));
  ck_assert_float_eq(ml, (float)ref_reduce(FG_REDUCE_MIN, lc, n, 1));
  for (int c = 0; c < 4; c++)
    free(wc[c]);
  free(lc);
  free(as);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_reduce_siblings_over_a_shared_producer) {
  /* y = x + 1 feeds sum(y) and, through y * y, max(y * y): the second
   * reduction's group reads y from the first's, so joining them leaves y
   * virtual: one kernel reading x once */
  const int R = 129, C = 511;
  const int64_t n = (int64_t)R * C;
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("shared");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "inc", 1, &t);
  fg_write_tensor(op, 0, fg_add(fg_read_tensor(op, x), fg_float(op, 1.0f)));
  fg_field *y = fg_op_end(op);
  fg_output(g, "s", fg_reduce(g, "s", FG_REDUCE_SUM, y));
  fg_output(g, "m", fg_reduce(g, "m", FG_REDUCE_MAX, mul_op(g, y, y)));
  expect_ok(g);
  float *xs = sibling_data(n), *ys = malloc(sizeof(float) * (size_t)n),
        *yy = malloc(sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; i++) {
    ys[i] = xs[i] + 1.0f;
    yy[i] = ys[i] * ys[i];
  }
  float o[2];
  int ku;
  fg_context *ctx = tu_context();
  fg_program *p = compile_with(ctx, g, FG_FUSION_ON);
  ck_assert_msg(!fg_program_field_reason(p, "inc.out0"), "%s",
                fg_program_fusion_report(p));  /* virtual */
  fg_program_free(p);
  tu_context_free(ctx);
  int k = run_fused_and_unfused(g, 1, (const void *[]){xs}, 2,
                                (void *[]){&o[0], &o[1]}, (size_t[]){4, 4},
                                &ku);
  ck_assert_int_eq(k, 1);
  ck_assert_int_eq(ku, 4);
  ck_assert_float_eq(o[0], (float)ref_reduce(FG_REDUCE_SUM, ys, n, 1));
  ck_assert_float_eq(o[1], (float)ref_reduce(FG_REDUCE_MAX, yy, n, 1));
  free(xs);
  free(ys);
  free(yy);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_reduce_siblings_of_different_shapes_stay_apart) {
  /* sum(x) and the sum of x's transpose read the same input over
   * different threads: two kernels */
  const int R = 40, C = 70;
  fg_graph *g = fg_graph_new("shapes");
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape2(R, C)));
  fg_type tt = fg_type_scalar(FG_F32, fg_shape2(C, R));
  fg_op *op = fg_op_begin(g, "tr", 1, &tt);
  fg_write_tensor(op, 0, fg_read_tensor_at(op, x, 2, fg_column(op),
                                           fg_row(op)));
  fg_field *xt = fg_op_end(op);
  fg_output(g, "s", fg_reduce(g, "s", FG_REDUCE_SUM, x));
  fg_output(g, "st", fg_reduce(g, "st", FG_REDUCE_MAX, xt));
  expect_ok(g);
  float *xs = sibling_data(R * C);
  float s = 0, st = 0;
  int ku;
  int k = run_fused_and_unfused(g, 1, (const void *[]){xs}, 2,
                                (void *[]){&s, &st}, (size_t[]){4, 4}, &ku);
  ck_assert_int_eq(k, 2);
  ck_assert_int_eq(ku, 3);
  ck_assert_float_eq(s, (float)ref_reduce(FG_REDUCE_SUM, xs, R * C, 1));
  ck_assert_float_eq(st, 9.25f);
  free(xs);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_reduce_siblings_that_depend_stay_apart) {
  /* sum(x - mean) reads the result of sum(x): joining them would need
   * the first result before its own pass ends; two reduction kernels */
  const int R = 33, C = 1000;
  const int64_t n = (int64_t)R * C;
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("dependent");
  fg_field *x = fg_input(g, "x", t);
  fg_field *s = fg_reduce(g, "s", FG_REDUCE_SUM, x);
  fg_op *op = fg_op_begin(g, "centre", 1, &t);
  fg_write_tensor(op, 0, fg_sub(fg_read_tensor(op, x),
                                fg_read_tensor(op, s)));
  fg_field *cx = fg_op_end(op);
  fg_output(g, "s", s);
  fg_output(g, "d", fg_reduce(g, "d", FG_REDUCE_MAX, cx));
  expect_ok(g);
  float *xs = sibling_data(n), *cs = malloc(sizeof(float) * (size_t)n);
  float o[2];
  int ku;
  int k = run_fused_and_unfused(g, 1, (const void *[]){xs}, 2,
                                (void *[]){&o[0], &o[1]}, (size_t[]){4, 4},
                                &ku);
  ck_assert_int_eq(k, 2);
  ck_assert_int_eq(ku, 3);
  float want_s = (float)ref_reduce(FG_REDUCE_SUM, xs, n, 1);
  for (int64_t i = 0; i < n; i++)
    cs[i] = xs[i] - want_s;
  ck_assert_float_eq(o[0], want_s);
  ck_assert_float_eq(o[1], (float)ref_reduce(FG_REDUCE_MAX, cs, n, 1));
  free(xs);
  free(cs);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_reduce_siblings_joined_through_a_third_kernel_stay_apart) {
  /* max(x * (2 * sum(x))): the second reduction needs the first's result
   * through a one-point operator in a kernel of its own; three kernels in
   * dependency order, never a cycle */
  const int R = 64, C = 300;
  const int64_t n = (int64_t)R * C;
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("through");
  fg_field *x = fg_input(g, "x", t);
  fg_field *s = fg_reduce(g, "s", FG_REDUCE_SUM, x);
  fg_field *c = fg_binary_scalar(g, FG_OP_MUL, s, 2.0);
  fg_op *op = fg_op_begin(g, "scale", 1, &t);
  fg_write_tensor(op, 0, fg_mul(fg_read_tensor(op, x), fg_read_tensor(op, c)));
  fg_field *scaled = fg_op_end(op);
  fg_output(g, "s", s);
  fg_output(g, "m", fg_reduce(g, "m", FG_REDUCE_MAX, scaled));
  expect_ok(g);
  float *xs = sibling_data(n), *ys = malloc(sizeof(float) * (size_t)n);
  float o[2];
  int ku;
  int k = run_fused_and_unfused(g, 1, (const void *[]){xs}, 2,
                                (void *[]){&o[0], &o[1]}, (size_t[]){4, 4},
                                &ku);
  ck_assert_int_eq(k, 3);
  ck_assert_int_eq(ku, 4);
  float want_s = (float)ref_reduce(FG_REDUCE_SUM, xs, n, 1);
  float want_c = want_s * 2.0f;
  for (int64_t i = 0; i < n; i++)
    ys[i] = xs[i] * want_c;
  ck_assert_float_eq(o[0], want_s);
  ck_assert_float_eq(o[1], (float)ref_reduce(FG_REDUCE_MAX, ys, n, 1));
  free(xs);
  free(ys);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_reduce_one_point_results_share_a_kernel) {
  /* s / n and max * 2 - 1 as outputs of their own (no consumer joins
   * them), and an i32 sum's quotient by an integer zero: the one-point
   * operators after the reductions (sibling sums over x) share one
   * kernel (one launch), and give what C gives */
  const int R = 77, C = 301;
  const int64_t n = (int64_t)R * C;
  fg_graph *g = fg_graph_new("points");
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape2(R, C)));
  fg_field *k = fg_cast(g, fg_binary_scalar(g, FG_OP_MUL, x, 1000.0),
                        FG_I32);
  fg_field *s = fg_reduce(g, "s", FG_REDUCE_SUM, x);
  fg_field *m = fg_reduce(g, "m", FG_REDUCE_MAX, x);
  fg_field *ks = fg_reduce(g, "ks", FG_REDUCE_SUM, k);
  fg_output(g, "mean", fg_binary_scalar(g, FG_OP_DIV, s, (double)n));
  fg_output(g, "m2", fg_binary_scalar(g, FG_OP_SUB,
                                      fg_binary_scalar(g, FG_OP_MUL, m, 2.0),
                                      1.0));
  fg_output(g, "kq", fg_binary(g, FG_OP_DIV, ks,
                               fg_scalar_constant(g, FG_I32, 0.0)));
  fg_output(g, "kr", fg_binary_scalar(g, FG_OP_DIV, ks, 7.0));
  expect_ok(g);
  float *xs = sibling_data(n);
  uint32_t want_ks = 0;
  for (int64_t i = 0; i < n; i++) {
    volatile float v = xs[i] * 1000.0f;
    want_ks += (uint32_t)(int32_t)v;
  }
  float mean = 0, m2 = 0;
  int32_t kq = 5, kr = 0;
  int ku;
  int kf = run_fused_and_unfused(g, 1, (const void *[]){xs}, 4,
                                 (void *[]){&mean, &m2, &kq, &kr},
                                 (size_t[]){4, 4, 4, 4}, &ku);
  /* unfused: mul, cast, three sums and five one-point operators (the
   * constant zero is no kernel); fused: the sums (the product and the
   * cast fused in), then all the arithmetic */
  ck_assert_int_eq(ku, 10);
  ck_assert_int_eq(kf, 2);
  volatile float ws = (float)ref_reduce(FG_REDUCE_SUM, xs, n, 1);
  volatile float want_mean = ws / (float)n, twice = 9.25f * 2.0f;
  volatile float want_m2 = twice - 1.0f;
  ck_assert_int_eq(memcmp(&mean, (const void *)&want_mean, 4), 0);
  ck_assert_int_eq(memcmp(&m2, (const void *)&want_m2, 4), 0);
  ck_assert_int_eq(kq, 0);
  ck_assert_int_eq(kr, (int32_t)want_ks / 7);
  free(xs);
  fg_graph_free(g);
}
END_TEST

/* ---- one-point kernels on the host -----------------------------------------
 * A one-point kernel of plain arithmetic on values the host holds runs on
 * the host (FG_CAP_HOST_EVAL); its bits must be the device's. */

/* A context on $FG_TEST_BACKEND with the given capabilities disabled. */
static fg_context *context_without(unsigned disable) {
  fg_context_options opt = {.disable = disable};
  const char *b = getenv("FG_TEST_BACKEND");
  opt.backend = b && !strcmp(b, "opencl") ? FG_BACKEND_OPENCL : FG_BACKEND_CPU;
  fg_context *ctx = NULL;
  char err[1024];
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  return ctx;
}

/* Runs g with host evaluation and without (every kernel on the device),
 * each fused; the outputs (sizes bytes each) must match bit for bit and
 * go to out.  Returns how many kernels the host evaluated (from the
 * fusion report); the device context must have none. */
static int run_host_and_device(fg_graph *g, int n_in, const void **in,
                               int n_out, void **out, const size_t *sizes,
                               int *kernels) {
  void *dev[16];
  ck_assert_int_le(n_out, 16);
  int on_host[2] = {0, 0};
  for (int m = 0; m < 2; m++) {
    fg_context *ctx = context_without(m ? FG_CAP_HOST_EVAL : 0);
    fg_program *p = compile_with(ctx, g, FG_FUSION_ON);
    for (const char *r = fg_program_fusion_report(p);
         (r = strstr(r, "(on the host)")); r++)
      on_host[m]++;
    if (m == 0)
      *kernels = fg_program_kernel_count(p);
    else
      ck_assert_int_eq(fg_program_kernel_count(p), *kernels);
    for (int i = 0; m && i < n_out; i++) {
      dev[i] = malloc(sizes[i]);
      memset(dev[i], 0x5a, sizes[i]);
    }
    for (int rep = 0; rep < 2; rep++)      /* pooled buffers the second time */
      ck_assert_msg(fg_program_run(p, n_in, in, n_out, m ? dev : out) ==
                        FG_OK, "%s", fg_context_errmsg(ctx));
    fg_program_free(p);
    tu_context_free(ctx);
  }
  ck_assert_int_eq(on_host[1], 0);
  for (int i = 0; i < n_out; i++) {
    ck_assert_msg(memcmp(out[i], dev[i], sizes[i]) == 0, "output %d: host "
                  "and device differ", i);
    free(dev[i]);
  }
  return on_host[0];
}

START_TEST(test_reduce_one_point_arithmetic_on_the_host) {
  /* after sibling sums of x (f32) and of x * 1000 as i32: division by a
   * zero, INT_MIN / -1, NaN in comparisons, mixed types (i32 with f32,
   * f64, i64), select, negation, a 0-D graph input; all in one kernel
   * the host evaluates, equal to the device's and to C */
  const int R = 97, C = 211;
  const int64_t n = (int64_t)R * C;
  fg_graph *g = fg_graph_new("host");
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape2(R, C)));
  fg_field *w = fg_input(g, "w", fg_type_scalar(FG_F32, fg_shape0()));
  fg_field *s = fg_reduce(g, "s", FG_REDUCE_SUM, x);
  fg_field *ks = fg_reduce(g, "ks", FG_REDUCE_SUM,
                           fg_cast(g, fg_binary_scalar(g, FG_OP_MUL, x, 1000.0),
                                   FG_I32));
  fg_field *zero = fg_scalar_constant(g, FG_I32, 0.0);
  fg_field *imin = fg_scalar_constant(g, FG_I32, -2147483648.0);
  fg_field *nan = fg_binary(g, FG_OP_DIV, fg_binary_scalar(g, FG_OP_MUL, s, 0.0),
                            fg_binary_scalar(g, FG_OP_MUL, s, 0.0));
  fg_output(g, "kdiv0", fg_binary(g, FG_OP_DIV, ks, zero));
  fg_output(g, "kmod0", fg_binary(g, FG_OP_MOD, ks, zero));
  fg_output(g, "minneg", fg_binary_scalar(g, FG_OP_DIV, imin, -1.0));
  fg_output(g, "kdiv7", fg_binary_scalar(g, FG_OP_DIV, ks, -7.0));
  fg_output(g, "nanlt", fg_binary_scalar(g, FG_OP_LT, nan, 1.0));
  fg_output(g, "nanne", fg_binary(g, FG_OP_NE, nan, nan));
  fg_output(g, "mixed", fg_binary(g, FG_OP_SUB, ks, s));         /* f32 */
  fg_output(g, "wide", fg_binary_scalar(g, FG_OP_MUL, fg_cast(g, s, FG_F64),
                                        1.0 / 3.0));
  fg_output(g, "long", fg_binary_scalar(g, FG_OP_MUL, fg_cast(g, ks, FG_I64),
                                        4294967296.0));
  fg_output(g, "pick", fg_where(g, fg_binary_scalar(g, FG_OP_GT, s, 0.0),
                                fg_unary(g, FG_OP_NEG, s), w));
  fg_output(g, "perw", fg_binary(g, FG_OP_DIV, s, w));
  expect_ok(g);
  float *xs = sibling_data(n), wv = 3.0f;
  int32_t kdiv0 = 1, kmod0 = 1, minneg = 0, kdiv7 = 0;
  uint8_t nanlt = 9, nanne = 9;
  float mixed = 0, pick = 0, perw = 0;
  double wide = 0;
  int64_t lng = 0;
  void *out[] = {&kdiv0, &kmod0, &minneg, &kdiv7, &nanlt, &nanne, &mixed,
                 &wide, &lng, &pick, &perw};
  size_t sizes[] = {4, 4, 4, 4, 1, 1, 4, 8, 8, 4, 4};
  int k;
  int host = run_host_and_device(g, 2, (const void *[]){xs, &wv}, 11, out,
                                 sizes, &k);
  ck_assert_int_eq(k, 2);          /* the sums, then the arithmetic */
  ck_assert_int_eq(host, 1);
  /* $FG_DISABLE=host_eval keeps it on the device too */
  setenv("FG_DISABLE", "host_eval", 1);
  fg_context *ctx = context_without(0);
  unsetenv("FG_DISABLE");
  fg_program *p = compile_with(ctx, g, FG_FUSION_ON);
  ck_assert_ptr_null(strstr(fg_program_fusion_report(p), "on the host"));
  fg_program_free(p);
  tu_context_free(ctx);
  /* and what C gives */
  volatile float ws = (float)ref_reduce(FG_REDUCE_SUM, xs, n, 1);
  uint32_t uks = 0;
  for (int64_t i = 0; i < n; i++) {
    volatile float v = xs[i] * 1000.0f;
    uks += (uint32_t)(int32_t)v;
  }
  int32_t wks = (int32_t)uks;
  ck_assert_int_eq(kdiv0, 0);
  ck_assert_int_eq(kmod0, 0);
  ck_assert_int_eq(minneg, INT32_MIN);
  ck_assert_int_eq(kdiv7, wks / -7);
  ck_assert_int_eq(nanlt, 0);
  ck_assert_int_eq(nanne, 1);
  volatile float want_mixed = (float)wks - ws;
  ck_assert_int_eq(memcmp(&mixed, (const void *)&want_mixed, 4), 0);
  volatile double want_wide = (double)ws * (1.0 / 3.0);
  ck_assert_int_eq(memcmp(&wide, (const void *)&want_wide, 8), 0);
  ck_assert(lng == (int64_t)((uint64_t)(int64_t)wks << 32));
  volatile float want_pick = ws > 0 ? -ws : wv, want_perw = ws / wv;
  ck_assert_int_eq(memcmp(&pick, (const void *)&want_pick, 4), 0);
  ck_assert_int_eq(memcmp(&perw, (const void *)&want_perw, 4), 0);
  free(xs);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_reduce_one_point_calls_stay_on_the_device) {
  /* sqrt of a sum: a call the host does not evaluate (the device's
   * rounding of it is its own), so the kernel stays on the device, and
   * a device kernel reading a host result (x * (2 * sum(x))) gets it
   * uploaded */
  const int R = 50, C = 300;
  const int64_t n = (int64_t)R * C;
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("calls");
  fg_field *x = fg_input(g, "x", t);
  fg_field *s = fg_reduce(g, "s", FG_REDUCE_SUM, x);
  fg_output(g, "root", fg_unary(g, FG_OP_SQRT, fg_unary(g, FG_OP_ABS, s)));
  expect_ok(g);
  float *xs = sibling_data(n), root = 0;
  int k;
  int host = run_host_and_device(g, 1, (const void *[]){xs}, 1,
                                 (void *[]){&root}, (size_t[]){4}, &k);
  ck_assert_int_eq(host, 0);
  ck_assert_int_eq(k, 2);
  ck_assert_float_eq_tol(root, sqrtf(fabsf((float)ref_reduce(FG_REDUCE_SUM,
                                                             xs, n, 1))),
                         1e-3f);
  fg_graph_free(g);

  g = fg_graph_new("upload");
  x = fg_input(g, "x", t);
  s = fg_reduce(g, "s", FG_REDUCE_SUM, x);
  fg_field *c = fg_binary_scalar(g, FG_OP_MUL, s, 2.0);
  fg_field *m = fg_reduce(g, "m", FG_REDUCE_MAX, fg_binary(g, FG_OP_MUL, x, c));
  fg_output(g, "c", c);
  fg_output(g, "m", m);
  expect_ok(g);
  float o[2];
  host = run_host_and_device(g, 1, (const void *[]){xs}, 2,
                             (void *[]){&o[0], &o[1]}, (size_t[]){4, 4}, &k);
  ck_assert_int_eq(host, 1);
  ck_assert_int_eq(k, 3);
  float want_c = (float)ref_reduce(FG_REDUCE_SUM, xs, n, 1) * 2.0f;
  float *ys = malloc(sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < n; i++)
    ys[i] = xs[i] * want_c;
  ck_assert_float_eq(o[0], want_c);
  ck_assert_float_eq(o[1], (float)ref_reduce(FG_REDUCE_MAX, ys, n, 1));
  free(ys);
  free(xs);
  fg_graph_free(g);
}
END_TEST

int main(void) {
  Suite *s = suite_create("reduce");
  TCase *tc = tcase_create("reduce");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_reduce_dot_product_fuses_into_one_kernel);
  tcase_add_test(tc, test_reduce_every_op_on_integers_and_vectors);
  tcase_add_test(tc, test_reduce_u8_image_and_float_product);
  tcase_add_test(tc, test_reduce_every_op_on_every_element_type);
  tcase_add_test(tc, test_reduce_result_read_by_a_later_operator);
  tcase_add_test(tc, test_reduce_float_order_is_documented_and_backend_free);
  tcase_add_test(tc, test_reduce_vector_lanes_keep_the_documented_order);
  tcase_add_test(tc, test_reduce_rejects_bad_arguments);
  tcase_add_test(tc, test_reduce_siblings_min_and_max_share_one_pass);
  tcase_add_test(tc, test_reduce_siblings_sum_and_sum_of_squares);
  tcase_add_test(tc, test_reduce_siblings_of_mixed_types_and_widths);
  tcase_add_test(tc, test_reduce_siblings_over_a_shared_producer);
  tcase_add_test(tc, test_reduce_siblings_of_different_shapes_stay_apart);
  tcase_add_test(tc, test_reduce_siblings_that_depend_stay_apart);
  tcase_add_test(tc, test_reduce_siblings_joined_through_a_third_kernel_stay_apart);
  tcase_add_test(tc, test_reduce_one_point_results_share_a_kernel);
  tcase_add_test(tc, test_reduce_one_point_arithmetic_on_the_host);
  tcase_add_test(tc, test_reduce_one_point_calls_stay_on_the_device);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
