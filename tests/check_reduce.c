/* tests/check_reduce.c - the built-in reductions on the backend
 * $FG_TEST_BACKEND names: sums, minima, maxima and products of every kind
 * of field (1-3 dimensions, scalars and vectors, integers that wrap),
 * checked against plain C; pointwise producers fused into the reduction
 * (one kernel reading only the original inputs, the product never
 * written), fused and unfused bit-identical; a reduction's result read by
 * a later operator. */
#include "testutil.h"

#include <math.h>
#include <stdint.h>

static fg_field *mul_op(fg_graph *g, fg_field *a, fg_field *b) {
  fg_type t = fg_field_type(a);
  fg_op *op = fg_op_begin(g, "mul", 1, &t);
  fg_write_tensor(op, 0, fg_mul(fg_read_tensor(op, a), fg_read_tensor(op, b)));
  return fg_op_end(op);
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
  /* one chunk: the same order of multiplications as the loop above */
  ck_assert_double_eq(prod, want_prod);
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
    sum += xs[i];   /* one chunk: exactly the kernel's order */
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){xs}, 1,
                                  (void *[]){ys}), FG_OK);
  for (int i = 0; i < 2000; i++)
    ck_assert_float_eq(ys[i], xs[i] / sum);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
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

int main(void) {
  Suite *s = suite_create("reduce");
  TCase *tc = tcase_create("reduce");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_reduce_dot_product_fuses_into_one_kernel);
  tcase_add_test(tc, test_reduce_every_op_on_integers_and_vectors);
  tcase_add_test(tc, test_reduce_u8_image_and_float_product);
  tcase_add_test(tc, test_reduce_every_op_on_every_element_type);
  tcase_add_test(tc, test_reduce_result_read_by_a_later_operator);
  tcase_add_test(tc, test_reduce_rejects_bad_arguments);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
