/* tests/check_reduce_loc.c - fg_reduce_loc on the backend
 * $FG_TEST_BACKEND names: the minimum and maximum of scalar fields of
 * every element type and where they first occur, against a plain C loop
 * over the points in row-major order: ties, all points equal, NaNs (and
 * only NaNs), 1x1, 1-D and 3-D fields, odd shapes and more than 256
 * partials; extremes at lane, block and partial boundaries, signed
 * zeros (the value fg_reduce's bits), extremes equal to the identity;
 * fg_reduce_index (one kernel with siblings); the arguments refused. */
#include "testutil.h"

#include <math.h>
#include <stdint.h>

/* The first minimum (want_max 0) or maximum of n values of element type
 * e as doubles (exact for every type used here), skipping NaNs; -1 when
 * there is none. */
static int64_t ref_loc(const void *data, fg_elem e, int64_t n, int want_max,
                       double *value) {
  int64_t at = -1;
  double best = 0;
  for (int64_t i = 0; i < n; i++) {
    double v;
    switch (e) {
    case FG_I8: v = ((const int8_t *)data)[i]; break;
    case FG_U8: v = ((const uint8_t *)data)[i]; break;
    case FG_I16: v = ((const int16_t *)data)[i]; break;
    case FG_U16: v = ((const uint16_t *)data)[i]; break;
    case FG_I32: v = ((const int32_t *)data)[i]; break;
    case FG_U32: v = ((const uint32_t *)data)[i]; break;
    case FG_I64: v = (double)((const int64_t *)data)[i]; break;
    case FG_U64: v = (double)((const uint64_t *)data)[i]; break;
    case FG_F32: v = ((const float *)data)[i]; break;
    default: v = ((const double *)data)[i]; break;
    }
    if (isnan(v))
      continue;
    if (at < 0 || (want_max ? v > best : v < best)) {
      at = i;
      best = v;
    }
  }
  *value = at < 0 ? NAN : best;
  return at;
}

/* The value of out (0-D, element type e) as a double. */
static double value_of(const void *out, fg_elem e) {
  double v;
  ref_loc(out, e, 1, 0, &v);
  return v;
}

/* Builds min and max with location over data (shape s, element e), runs
 * it, and checks both against ref_loc. */
static void check_case(fg_elem e, fg_shape s, const void *data) {
  fg_graph *g = fg_graph_new("loc");
  fg_field *in = fg_input(g, "in", fg_type_scalar(e, s));
  fg_field *lmin = NULL, *lmax = NULL;
  fg_field *vmin = fg_reduce_loc(g, "min", FG_REDUCE_MIN, in, &lmin);
  fg_field *vmax = fg_reduce_loc(g, "max", FG_REDUCE_MAX, in, &lmax);
  expect_ok(g);
  ck_assert_ptr_nonnull(lmin);
  ck_assert_ptr_nonnull(lmax);
  fg_output(g, "vmin", vmin);
  fg_output(g, "lmin", lmin);
  fg_output(g, "vmax", vmax);
  fg_output(g, "lmax", lmax);
  double omin[2] = {0}, omax[2] = {0};   /* room for any element */
  int64_t locmin[3] = {7, 7, 7}, locmax[3] = {7, 7, 7};
  const void *ins[1] = {data};
  void *outs[4] = {omin, locmin, omax, locmax};
  tu_run(g, 1, ins, 4, outs);
  int64_t n = fg_shape_points(s);
  int64_t rows = s.ndim >= 2 ? s.dim[s.ndim - 2] : 1;
  int64_t cols = s.ndim >= 1 ? s.dim[s.ndim - 1] : 1;
  for (int k = 0; k < 2; k++) {
    double want;
    int64_t at = ref_loc(data, e, n, k, &want);
    const int64_t *loc = k ? locmax : locmin;
    double got = value_of(k ? omax : omin, e);
    int64_t wl[3] = {-1, -1, -1};
    if (at >= 0) {
      wl[0] = at / (rows * cols);
      wl[1] = at / cols % rows;
      wl[2] = at % cols;
    }
    ck_assert_msg(loc[0] == wl[0] && loc[1] == wl[1] && loc[2] == wl[2],
                  "%s of elem %d, %lld points: location (%lld, %lld, %lld),"
                  " expected (%lld, %lld, %lld)", k ? "max" : "min", (int)e,
                  (long long)n, (long long)loc[0], (long long)loc[1],
                  (long long)loc[2], (long long)wl[0], (long long)wl[1],
                  (long long)wl[2]);
    ck_assert_msg(isnan(want) ? isnan(got) : got == want,
                  "%s of elem %d: value %g, expected %g", k ? "max" : "min",
                  (int)e, got, want);
  }
  fg_graph_free(g);
}

static const fg_elem every_elem[] = {FG_I8, FG_U8, FG_I16, FG_U16, FG_I32,
                                     FG_U32, FG_I64, FG_U64, FG_F32, FG_F64};

/* Fills n elements of e from a pseudo-random sequence with few distinct
 * values (so that ties are common). */
static void *fill(fg_elem e, int64_t n, unsigned seed, int distinct) {
  void *p = malloc((size_t)(n ? n : 1) * 8);
  uint32_t x = seed * 2654435761u + 1;
  for (int64_t i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    int v = (int)((x >> 8) % (unsigned)distinct) - distinct / 3;
    switch (e) {
    case FG_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case FG_U8: ((uint8_t *)p)[i] = (uint8_t)(v + distinct); break;
    case FG_I16: ((int16_t *)p)[i] = (int16_t)(v * 100); break;
    case FG_U16: ((uint16_t *)p)[i] = (uint16_t)(v + distinct); break;
    case FG_I32: ((int32_t *)p)[i] = v * 100000; break;
    case FG_U32: ((uint32_t *)p)[i] = (uint32_t)(v + distinct) * 100000u;
      break;
    case FG_I64: ((int64_t *)p)[i] = (int64_t)v * ((int64_t)1 << 40); break;
    case FG_U64: ((uint64_t *)p)[i] = (uint64_t)(v + distinct) << 40; break;
    case FG_F32: ((float *)p)[i] = (float)v * 0.25f; break;
    default: ((double *)p)[i] = (double)v * 0.125; break;
    }
  }
  return p;
}

START_TEST(test_loc_every_type_with_ties_and_odd_shapes) {
  const fg_shape shapes[] = {fg_shape2(1, 1), fg_shape2(37, 53),
                             fg_shape1(1001), fg_shape3(3, 17, 29)};
  for (size_t e = 0; e < sizeof every_elem / sizeof *every_elem; e++)
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
      int64_t n = fg_shape_points(shapes[s]);
      void *d = fill(every_elem[e], n, (unsigned)(e * 7 + s), 9);
      check_case(every_elem[e], shapes[s], d);
      free(d);
    }
}
END_TEST

/* More than 256 partials of 16384 points, the extremes only near the end
 * and tied several times (the first tie is the answer), and all equal. */
START_TEST(test_loc_u8_and_f32_many_partials) {
  const int64_t R = 2053, C = 2111;       /* 4.3M points, 265 chunks */
  int64_t n = R * C;
  uint8_t *u = malloc((size_t)n);
  float *f = malloc((size_t)n * sizeof *f);
  for (int64_t i = 0; i < n; i++) {
    u[i] = (uint8_t)(10 + (i * 31) % 200);
    f[i] = (float)((i * 17) % 1000) * 0.5f + 1.0f;
  }
  u[n - 5] = 3;  u[n - 2] = 3;  u[n - 1000] = 250;  u[n - 3] = 250;
  f[n - 7] = -2; f[n - 1] = -2; f[n - 77] = 9999;   f[n - 4] = 9999;
  check_case(FG_U8, fg_shape2(R, C), u);
  check_case(FG_F32, fg_shape2(R, C), f);
  for (int64_t i = 0; i < n; i++) {
    u[i] = 42;
    f[i] = 0.5f;
  }
  check_case(FG_U8, fg_shape2(R, C), u);
  check_case(FG_F32, fg_shape2(R, C), f);
  free(u);
  free(f);
}
END_TEST

/* NaNs are skipped wherever they are; only NaNs give NaN and -1s;
 * infinities are ordinary values. */
START_TEST(test_loc_nan_policy) {
  float a[7] = {NAN, 3, NAN, -1, 5, -1, NAN};
  check_case(FG_F32, fg_shape1(7), a);
  float b[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
  check_case(FG_F32, fg_shape2(2, 3), b);
  double c[5] = {NAN, INFINITY, NAN, -INFINITY, NAN};
  check_case(FG_F64, fg_shape1(5), c);
  float d[1] = {NAN};
  check_case(FG_F32, fg_shape2(1, 1), d);
  /* NaN value and -1 location, checked literally too */
  fg_graph *g = fg_graph_new("nan");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(6)));
  fg_field *loc = NULL;
  fg_output(g, "v", fg_reduce_loc(g, NULL, FG_REDUCE_MIN, in, &loc));
  fg_output(g, "l", loc);
  float v = 0;
  int64_t l[3] = {0, 0, 0};
  tu_run(g, 1, (const void *const[]){b}, 2, (void *const[]){&v, l});
  ck_assert(isnan(v));
  ck_assert(l[0] == -1 && l[1] == -1 && l[2] == -1);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_loc_rejects_bad_arguments) {
  fg_graph *g = fg_graph_new("bad");
  fg_field *v4 = fg_input(g, "v4", fg_type_vector(FG_F32, fg_shape1(8), 4));
  fg_field *loc = (fg_field *)&loc;
  ck_assert_ptr_null(fg_reduce_loc(g, "m", FG_REDUCE_MIN, v4, &loc));
  ck_assert_ptr_null(loc);
  expect_error(g, FG_ETYPE, "m:", "v4", NULL);
  fg_graph_free(g);
  g = fg_graph_new("bad");
  fg_field *s = fg_input(g, "s", fg_type_scalar(FG_F32, fg_shape1(8)));
  ck_assert_ptr_null(fg_reduce_loc(g, NULL, FG_REDUCE_SUM, s, &loc));
  expect_error(g, FG_EINVAL, "reduce_loc", "FG_REDUCE_MIN", NULL);
  fg_graph_free(g);
  g = fg_graph_new("bad");
  s = fg_input(g, "s", fg_type_scalar(FG_F32, fg_shape1(8)));
  ck_assert_ptr_null(fg_reduce_loc(g, NULL, FG_REDUCE_MAX, s, NULL));
  expect_error(g, FG_EINVAL, "location", NULL);
  fg_graph_free(g);
}
END_TEST

/* Sets point i of p (element type e) to the type's smallest (hi 0) or
 * largest value; for floats -1e30 / 1e30 (f32) or -inf / +inf (f64). */
static void put_extreme(void *p, fg_elem e, int64_t i, int hi) {
  switch (e) {
  case FG_I8: ((int8_t *)p)[i] = hi ? INT8_MAX : INT8_MIN; break;
  case FG_U8: ((uint8_t *)p)[i] = hi ? UINT8_MAX : 0; break;
  case FG_I16: ((int16_t *)p)[i] = hi ? INT16_MAX : INT16_MIN; break;
  case FG_U16: ((uint16_t *)p)[i] = hi ? UINT16_MAX : 0; break;
  case FG_I32: ((int32_t *)p)[i] = hi ? INT32_MAX : INT32_MIN; break;
  case FG_U32: ((uint32_t *)p)[i] = hi ? UINT32_MAX : 0; break;
  case FG_I64: ((int64_t *)p)[i] = hi ? INT64_MAX - 1 : INT64_MIN + 1; break;
  case FG_U64: ((uint64_t *)p)[i] = hi ? UINT64_MAX - 1 : 1; break;
  case FG_F32: ((float *)p)[i] = hi ? 1e30f : -1e30f; break;
  default: ((double *)p)[i] = hi ? INFINITY : -INFINITY; break;
  }
}

/* The documented chunk of a partial for n points (fg_reduce's order). */
static int64_t chunk_of(int64_t n) {
  int64_t P = (n + 16383) / 16384;
  if (P > 256)
    P = 256;
  int64_t c = (n + P - 1) / P;
  return (c + 15) / 16 * 16;
}

/* Unique extremes (then a tie further on) at the first and last points,
 * at lane, block (4096 points) and partial boundaries, in 1-D, 2-D and
 * 3-D fields whose sizes are no multiple of a lane, block or row. */
START_TEST(test_loc_extremes_at_block_and_partial_boundaries) {
  const fg_shape shapes[] = {fg_shape1(100003), fg_shape2(313, 331),
                             fg_shape3(5, 97, 211)};
  const fg_elem elems[] = {FG_U8, FG_I16, FG_U32, FG_I64, FG_F32, FG_F64};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t n = fg_shape_points(shapes[s]), c = chunk_of(n);
    const int64_t at[] = {0, 1, 15, 16, 4095, 4096, c - 1, c, c + 4095,
                          c + 4096, 3 * c + 2 * 4096 - 1, n - 4097, n - 1};
    for (size_t e = 0; e < sizeof elems / sizeof *elems; e++)
      for (size_t a = 0; a < sizeof at / sizeof *at; a++) {
        void *d = fill(elems[e], n, (unsigned)(s * 31 + e * 7 + a), 50);
        put_extreme(d, elems[e], at[a], 0);
        put_extreme(d, elems[e], n - 1 - at[a], 1);
        /* ties after them: the first one stays the answer */
        if (at[a] + 4096 * 2 + 5 < n)
          put_extreme(d, elems[e], at[a] + 4096 * 2 + 5, 0);
        if (n - 1 - at[a] - 4096 >= 0)
          put_extreme(d, elems[e], n - 1 - at[a] - 4096, 1);
        check_case(elems[e], shapes[s], d);
        free(d);
      }
  }
}
END_TEST

/* Random fields of every element type with many distinct values (few
 * ties), over several partials in every rank. */
START_TEST(test_loc_random_fields_every_type_and_rank) {
  const fg_shape shapes[] = {fg_shape1(70001), fg_shape2(257, 263),
                             fg_shape3(3, 123, 191), fg_shape1(17)};
  for (size_t e = 0; e < sizeof every_elem / sizeof *every_elem; e++)
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
      int64_t n = fg_shape_points(shapes[s]);
      void *d = fill(every_elem[e], n, (unsigned)(e * 13 + s + 100),
                     every_elem[e] == FG_I8 || every_elem[e] == FG_U8 ? 150
                                                                     : 30011);
      check_case(every_elem[e], shapes[s], d);
      free(d);
    }
}
END_TEST

/* Where the extreme is the reduction's identity (the type's largest
 * value for a minimum, +inf), the first point equal to it still counts;
 * NaNs before it in whole partials do not. */
START_TEST(test_loc_extreme_equal_to_identity) {
  const int64_t n = 70000;
  uint8_t *u = malloc((size_t)n);
  memset(u, 255, (size_t)n);
  check_case(FG_U8, fg_shape1(n), u);      /* min 255 at 0, max 255 at 0 */
  memset(u, 0, (size_t)n);
  check_case(FG_U8, fg_shape2(7, n / 7), u);
  free(u);
  float *f = malloc((size_t)n * sizeof *f);
  for (int64_t i = 0; i < n; i++)
    f[i] = NAN;
  f[50001] = INFINITY;                     /* after three partials of NaN */
  f[60000] = INFINITY;
  check_case(FG_F32, fg_shape1(n), f);
  f[50001] = -INFINITY;
  check_case(FG_F32, fg_shape2(100, 700), f);
  free(f);
}
END_TEST

/* -0.0 and +0.0 are equal: the location is the first zero whichever sign
 * it has, and the value is fg_reduce's, bit for bit (the lane order may
 * give the other zero). */
START_TEST(test_loc_signed_zeros_value_bits) {
  const int64_t n = 40000;
  for (int k = 0; k < 8; k++) {
    int is64 = k & 1, want_max = (k >> 1) & 1, neg_first = k >> 2;
    void *d = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) {
      double v = (want_max ? -1.0 : 1.0) * (double)(1 + i % 97);
      if (is64)
        ((double *)d)[i] = v;
      else
        ((float *)d)[i] = (float)v;
    }
    /* a zero in lane 1 first, the other in lane 0 of a later block, and
     * more of both in another partial */
    const int64_t z[4] = {17, 32 + 4096, 20000, 30001};
    for (int j = 0; j < 4; j++) {
      double zero = (j % 2 == 0) == neg_first ? -0.0 : 0.0;
      if (is64)
        ((double *)d)[z[j]] = zero;
      else
        ((float *)d)[z[j]] = (float)zero;
    }
    fg_elem e = is64 ? FG_F64 : FG_F32;
    fg_graph *g = fg_graph_new("zeros");
    fg_field *in = fg_input(g, "in", fg_type_scalar(e, fg_shape1(n)));
    fg_field *loc = NULL;
    fg_reduce_op op = want_max ? FG_REDUCE_MAX : FG_REDUCE_MIN;
    fg_output(g, "v", fg_reduce_loc(g, "loc", op, in, &loc));
    fg_output(g, "l", loc);
    fg_output(g, "r", fg_reduce(g, "plain", op, in));
    expect_ok(g);
    double v = 1, r = 2;
    int64_t l[3] = {7, 7, 7};
    tu_run(g, 1, (const void *const[]){d}, 3, (void *const[]){&v, l, &r});
    ck_assert_msg(l[0] == 0 && l[1] == 0 && l[2] == 17,
                  "case %d: location (%lld, %lld, %lld), expected (0, 0, 17)",
                  k, (long long)l[0], (long long)l[1], (long long)l[2]);
    ck_assert_msg(!memcmp(&v, &r, is64 ? 8 : 4), "case %d: value bits differ "
                  "from fg_reduce's", k);
    float vf;
    memcpy(&vf, &v, sizeof vf);
    ck_assert(is64 ? v == 0 : vf == 0);
    fg_graph_free(g);
    free(d);
  }
}
END_TEST

/* fg_reduce_index: min and max with indices of a fused pointwise
 * producer beside a plain sum, all in one kernel that reads the input
 * once; the indices against a C loop over the producer's values. */
START_TEST(test_reduce_index_siblings_one_kernel) {
  const int64_t R = 211, C = 307, n = R * C;
  float *x = malloc((size_t)n * sizeof *x);
  for (int64_t i = 0; i < n; i++)
    x[i] = (float)((i * 7919) % 10007) * 0.5f;
  x[12345] = NAN;
  fg_graph *g = fg_graph_new("index");
  fg_field *in = fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape2(R, C)));
  fg_type ty = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_op *op = fg_op_begin(g, "shift", 1, &ty);
  fg_write_tensor(op, 0, fg_sub(fg_read_tensor(op, in), fg_float(op, 100)));
  fg_field *y = fg_op_end(op);
  fg_field *imin = NULL, *imax = NULL;
  fg_output(g, "min", fg_reduce_index(g, "min", FG_REDUCE_MIN, y, &imin));
  fg_output(g, "imin", imin);
  fg_output(g, "max", fg_reduce_index(g, "max", FG_REDUCE_MAX, y, &imax));
  fg_output(g, "imax", imax);
  fg_output(g, "sum", fg_reduce(g, "sum", FG_REDUCE_SUM, y));
  expect_ok(g);
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_kernel_count(p), 1);
  float vmin = 0, vmax = 0, sum = 0;
  int64_t i0 = -2, i1 = -2;
  ck_assert_int_eq(fg_program_run(p, 1, (const void *const[]){x}, 5,
                                  (void *const[]){&vmin, &i0, &vmax, &i1,
                                                  &sum}), FG_OK);
  int64_t w0 = -1, w1 = -1;
  for (int64_t i = 0; i < n; i++) {
    float v = x[i] - 100;
    if (isnan(v))
      continue;
    if (w0 < 0 || v < x[w0] - 100)
      w0 = i;
    if (w1 < 0 || v > x[w1] - 100)
      w1 = i;
  }
  ck_assert_int_eq(i0, w0);
  ck_assert_int_eq(i1, w1);
  ck_assert(vmin == x[w0] - 100 && vmax == x[w1] - 100);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  free(x);
}
END_TEST

START_TEST(test_reduce_index_rejects_bad_arguments) {
  fg_graph *g = fg_graph_new("bad");
  fg_field *s = fg_input(g, "s", fg_type_scalar(FG_I32, fg_shape1(8)));
  fg_field *idx = (fg_field *)&idx;
  ck_assert_ptr_null(fg_reduce_index(g, "i", FG_REDUCE_SUM, s, &idx));
  ck_assert_ptr_null(idx);
  expect_error(g, FG_EINVAL, "fg_reduce_index 'i'", "FG_REDUCE_MIN", NULL);
  fg_graph_free(g);
  g = fg_graph_new("bad");
  fg_field *v2 = fg_input(g, "v2", fg_type_vector(FG_I32, fg_shape1(8), 2));
  ck_assert_ptr_null(fg_reduce_index(g, "i", FG_REDUCE_MAX, v2, &idx));
  expect_error(g, FG_ETYPE, "v2", "scalar", NULL);
  fg_graph_free(g);
  g = fg_graph_new("bad");
  s = fg_input(g, "s", fg_type_scalar(FG_I32, fg_shape1(8)));
  ck_assert_ptr_null(fg_reduce_index(g, "i", FG_REDUCE_MAX, s, NULL));
  expect_error(g, FG_EINVAL, "index", NULL);
  fg_graph_free(g);
}
END_TEST

int main(void) {
  Suite *s = suite_create("reduce_loc");
  TCase *tc = tcase_create("reduce_loc");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_loc_every_type_with_ties_and_odd_shapes);
  tcase_add_test(tc, test_loc_u8_and_f32_many_partials);
  tcase_add_test(tc, test_loc_nan_policy);
  tcase_add_test(tc, test_loc_rejects_bad_arguments);
  tcase_add_test(tc, test_loc_extremes_at_block_and_partial_boundaries);
  tcase_add_test(tc, test_loc_random_fields_every_type_and_rank);
  tcase_add_test(tc, test_loc_extreme_equal_to_identity);
  tcase_add_test(tc, test_loc_signed_zeros_value_bits);
  tcase_add_test(tc, test_reduce_index_siblings_one_kernel);
  tcase_add_test(tc, test_reduce_index_rejects_bad_arguments);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
