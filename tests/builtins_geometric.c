/* tests/builtins_geometric.c - the geometric functions (cross, dot,
 * length, distance, normalize and their fast forms) on float and double
 * vectors, against long double references.
 * Run by tests/check_builtins.c on the backend $FG_TEST_BACKEND names. */
#include "builtins_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { GN = 96, GSPECIAL = 88 };   /* vectors; the first special one */

/* Vector i of the geometric inputs: small integers (exact products),
 * random values over 40 binary orders of magnitude, then special
 * vectors: zero, huge (squares overflow a float), tiny (squares
 * underflow), infinite, NaN, -0. */
static void geo_vector(int i, double a[4], double b[4]) {
  static const double sp[8][4] = {
    {0, 0, 0, 0}, {1e20, 1e20, -1e20, 0}, {3e-30, 4e-30, 0, 0},
    {INFINITY, 1, 0, 2}, {NAN, 1, 2, 3}, {INFINITY, -INFINITY, 0, 0},
    {-0.0, 0, -0.0, 0}, {1, -2, 3, -4}};
  for (int c = 0; c < 4; c++) {
    if (i < 32) {
      a[c] = (double)(rnd() % 17) - 8;
      b[c] = (double)(rnd() % 17) - 8;
    } else if (i < GSPECIAL) {
      a[c] = rndf(-100, 100) * pow(2.0, (double)(rnd() % 41) - 20);
      b[c] = rndf(-100, 100) * pow(2.0, (double)(rnd() % 41) - 20);
    } else {
      a[c] = sp[i - GSPECIAL][c];
      b[c] = rndf(-10, 10);
    }
  }
}

/* Stores the first w components of v (as float, or double) at p[i]. */
static void put_vec(void *p, bool dbl, int w, int i, const double *v) {
  for (int c = 0; c < w; c++) {
    if (dbl)
      ((double *)p)[i * w + c] = v[c];
    else
      ((float *)p)[i * w + c] = (float)v[c];
  }
}

static double get_f(const void *p, bool dbl, size_t i) {
  return dbl ? ((const double *)p)[i] : ((const float *)p)[i];
}

/* The geometric results of one (type, vector) checked against long
 * double computations: out[] holds the outputs (NULL when not computed)
 * for cross, dot, length, distance, normalize, fast_length,
 * fast_distance, fast_normalize. */
enum { G_CROSS, G_DOT, G_LENGTH, G_DISTANCE, G_NORMALIZE, G_FAST_LENGTH,
       G_FAST_DISTANCE, G_FAST_NORMALIZE, G_COUNT_ };
static const char *const gfn_name[G_COUNT_] = {
  "cross", "dot", "length", "distance", "normalize", "fast_length",
  "fast_distance", "fast_normalize"};

static void geo_check(void *const out[G_COUNT_], bool dbl, int w, int i,
                      const void *pa, const void *pb) {
  long double a[4] = {0}, b[4] = {0};
  for (int c = 0; c < w; c++) {
    a[c] = get_f(pa, dbl, (size_t)(i * w + c));
    b[c] = get_f(pb, dbl, (size_t)(i * w + c));
  }
  double eps = dbl ? DBL_EPSILON / 2 : FLT_EPSILON / 2;
  const char *ty = dbl ? "double" : "float";
  bool special = i >= GSPECIAL;
  bool finite = true;
  for (int c = 0; c < w; c++)
    finite = finite && isfinite(a[c]);
  long double dot = 0, dabs = 0, len2 = 0, dist2 = 0;
  for (int c = 0; c < w; c++) {
    dot += a[c] * b[c];
    dabs += fabsl(a[c] * b[c]);
    len2 += a[c] * a[c];
    dist2 += (a[c] - b[c]) * (a[c] - b[c]);
  }
  long double len = sqrtl(len2);
  if (out[G_CROSS] && !special) {
    static const int u[3] = {1, 2, 0}, v[3] = {2, 0, 1};
    for (int c = 0; c < w; c++) {
      long double p = c < 3 ? a[u[c]] * b[v[c]] : 0;
      long double q = c < 3 ? a[v[c]] * b[u[c]] : 0;
      double got = get_f(out[G_CROSS], dbl, (size_t)(i * w + c));
      ck_assert_msg(fabsl(got - (p - q)) <= 4 * eps * (fabsl(p) + fabsl(q)),
                    "cross %s%d vector %d component %d = %.17g, want %.17Lg",
                    ty, w, i, c, got, p - q);
    }
  }
  if (out[G_DOT] && !special) {
    double got = get_f(out[G_DOT], dbl, (size_t)i);
    ck_assert_msg(fabsl(got - dot) <= (w + 1) * eps * dabs,
                  "dot %s%d vector %d = %.17g, want %.17Lg", ty, w, i, got,
                  dot);
  }
  if (out[G_LENGTH]) {
    double got = get_f(out[G_LENGTH], dbl, (size_t)i);
    long double want = finite ? len : isnan(len2) ? NAN : INFINITY;
    ck_assert_msg(close_to(got, want, 6, 0, dbl), "length %s%d vector %d = "
                  "%.17g, want %.17Lg", ty, w, i, got, want);
  }
  if (out[G_DISTANCE] && !special) {
    double got = get_f(out[G_DISTANCE], dbl, (size_t)i);
    ck_assert_msg(close_to(got, sqrtl(dist2), 10, 0, dbl), "distance %s%d "
                  "vector %d = %.17g, want %.17Lg", ty, w, i, got,
                  sqrtl(dist2));
  }
  if (out[G_NORMALIZE] || out[G_FAST_NORMALIZE]) {
    /* OpenCL: zeros stay, a NaN makes all NaN, infinities count as +-1
     * and the finite components then as 0 */
    long double n[4], m2 = 0;
    bool has_inf = false, has_nan = false, zero = true;
    for (int c = 0; c < w; c++) {
      has_inf = has_inf || isinf(a[c]);
      has_nan = has_nan || isnan(a[c]);
      zero = zero && a[c] == 0;
    }
    for (int c = 0; c < w; c++) {
      n[c] = has_inf ? (isinf(a[c]) ? copysignl(1, a[c]) : 0) : a[c];
      m2 += n[c] * n[c];
    }
    for (int c = 0; c < w; c++) {
      long double want = has_nan ? NAN : zero ? a[c] : n[c] / sqrtl(m2);
      for (int k = 0; k < 2; k++) {
        void *o = out[k ? G_FAST_NORMALIZE : G_NORMALIZE];
        if (!o || (k && special && !zero))
          continue;
        double got = get_f(o, dbl, (size_t)(i * w + c));
        /* PoCL (3.1) computes a scalar normalize as sign(x), which is 0
         * for a NaN where OpenCL asks for NaN: accepted, for that case */
        if (w == 1 && has_nan && got == 0)
          continue;
        ck_assert_msg(close_to(got, want, k ? 8192 : 8, 0, dbl),
                      "%s %s%d vector %d component %d = %.17g, want %.17Lg",
                      gfn_name[k ? G_FAST_NORMALIZE : G_NORMALIZE], ty, w, i,
                      c, got, want);
      }
    }
  }
  if (out[G_FAST_LENGTH] && !special) {
    double got = get_f(out[G_FAST_LENGTH], dbl, (size_t)i);
    ck_assert_msg(close_to(got, len, 8192, 0, dbl), "fast_length %s%d vector "
                  "%d = %.17g, want %.17Lg", ty, w, i, got, len);
  }
  if (out[G_FAST_DISTANCE] && !special) {
    double got = get_f(out[G_FAST_DISTANCE], dbl, (size_t)i);
    ck_assert_msg(close_to(got, sqrtl(dist2), 8192, 0, dbl), "fast_distance "
                  "%s%d vector %d = %.17g, want %.17Lg", ty, w, i, got,
                  sqrtl(dist2));
  }
}

START_TEST(test_builtins_geometric) {
  /* inputs by width: float 1-4, double 3-4 */
  void *fa[5], *fb[5], *da[5], *db[5];
  for (int w = 1; w <= 4; w++) {
    fa[w] = malloc(GN * w * sizeof(float));
    fb[w] = malloc(GN * w * sizeof(float));
    da[w] = malloc(GN * w * sizeof(double));
    db[w] = malloc(GN * w * sizeof(double));
  }
  for (int i = 0; i < GN; i++) {
    double a[4], b[4];
    geo_vector(i, a, b);
    for (int w = 1; w <= 4; w++) {
      put_vec(fa[w], false, w, i, a);
      put_vec(fb[w], false, w, i, b);
    }
    if (i == GSPECIAL + 1 || i == GSPECIAL + 2) {
      /* the huge and tiny vectors, at the ends of double's range */
      for (int c = 0; c < 4; c++)
        a[c] *= i == GSPECIAL + 1 ? 1e180 : 1e-270;
    }
    for (int w = 1; w <= 4; w++) {
      put_vec(da[w], true, w, i, a);
      put_vec(db[w], true, w, i, b);
    }
  }
  tb *t = tb_new("geometric");
  fg_field *in_fa[5], *in_fb[5], *in_da[5], *in_db[5];
  for (int w = 1; w <= 4; w++) {
    in_fa[w] = tb_input(t, FG_F32, w, GN, fa[w]);
    in_fb[w] = tb_input(t, FG_F32, w, GN, fb[w]);
  }
  for (int w = 3; w <= 4; w++) {
    in_da[w] = tb_input(t, FG_F64, w, GN, da[w]);
    in_db[w] = tb_input(t, FG_F64, w, GN, db[w]);
  }
  /* outputs: [type][function] -> index in t->out, -1 when absent */
  int at[2][5][G_COUNT_];
  memset(at, -1, sizeof at);
  /* float4: all eight */
  ot o1[8] = {{FG_F32, 4}, {FG_F32, 1}, {FG_F32, 1}, {FG_F32, 1},
              {FG_F32, 4}, {FG_F32, 1}, {FG_F32, 1}, {FG_F32, 4}};
  fg_op *op = tb_begin(t, "g4", GN, 8, o1);
  fg_expr *a = fg_read_tensor(op, in_fa[4]), *b = fg_read_tensor(op, in_fb[4]);
  fg_write_tensor(op, 0, fg_cross(a, b));
  fg_write_tensor(op, 1, fg_dot(a, b));
  fg_write_tensor(op, 2, fg_length(a));
  fg_write_tensor(op, 3, fg_distance(a, b));
  fg_write_tensor(op, 4, fg_normalize(a));
  fg_write_tensor(op, 5, fg_fast_length(a));
  fg_write_tensor(op, 6, fg_fast_distance(a, b));
  fg_write_tensor(op, 7, fg_fast_normalize(a));
  int k = tb_end(t, op, GN, 8, o1);
  for (int f = 0; f < 8; f++)
    at[0][4][f] = k + f;
  /* float3 */
  ot o2[6] = {{FG_F32, 3}, {FG_F32, 1}, {FG_F32, 1}, {FG_F32, 1},
              {FG_F32, 3}, {FG_F32, 3}};
  op = tb_begin(t, "g3", GN, 6, o2);
  a = fg_read_tensor(op, in_fa[3]);
  b = fg_read_tensor(op, in_fb[3]);
  fg_write_tensor(op, 0, fg_cross(a, b));
  fg_write_tensor(op, 1, fg_dot(a, b));
  fg_write_tensor(op, 2, fg_length(a));
  fg_write_tensor(op, 3, fg_distance(a, b));
  fg_write_tensor(op, 4, fg_normalize(a));
  fg_write_tensor(op, 5, fg_fast_normalize(a));
  k = tb_end(t, op, GN, 6, o2);
  static const int f3[6] = {G_CROSS, G_DOT, G_LENGTH, G_DISTANCE,
                            G_NORMALIZE, G_FAST_NORMALIZE};
  for (int f = 0; f < 6; f++)
    at[0][3][f3[f]] = k + f;
  /* float2 and float */
  ot o3[9] = {{FG_F32, 1}, {FG_F32, 1}, {FG_F32, 1}, {FG_F32, 2},
              {FG_F32, 1}, {FG_F32, 1}, {FG_F32, 1}, {FG_F32, 1},
              {FG_F32, 1}};
  op = tb_begin(t, "g21", GN, 9, o3);
  a = fg_read_tensor(op, in_fa[2]);
  b = fg_read_tensor(op, in_fb[2]);
  fg_write_tensor(op, 0, fg_dot(a, b));
  fg_write_tensor(op, 1, fg_length(a));
  fg_write_tensor(op, 2, fg_distance(a, b));
  fg_write_tensor(op, 3, fg_normalize(a));
  a = fg_read_tensor(op, in_fa[1]);
  b = fg_read_tensor(op, in_fb[1]);
  fg_write_tensor(op, 4, fg_dot(a, b));
  fg_write_tensor(op, 5, fg_length(a));
  fg_write_tensor(op, 6, fg_distance(a, b));
  fg_write_tensor(op, 7, fg_normalize(a));
  fg_write_tensor(op, 8, fg_fast_length(a));
  k = tb_end(t, op, GN, 9, o3);
  static const int f21[9] = {G_DOT, G_LENGTH, G_DISTANCE, G_NORMALIZE,
                             G_DOT, G_LENGTH, G_DISTANCE, G_NORMALIZE,
                             G_FAST_LENGTH};
  for (int f = 0; f < 9; f++)
    at[0][f < 4 ? 2 : 1][f21[f]] = k + f;
  /* double3 and double4 */
  ot o4[9] = {{FG_F64, 3}, {FG_F64, 1}, {FG_F64, 1}, {FG_F64, 1},
              {FG_F64, 3}, {FG_F64, 4}, {FG_F64, 1}, {FG_F64, 1},
              {FG_F64, 4}};
  op = tb_begin(t, "gd", GN, 9, o4);
  a = fg_read_tensor(op, in_da[3]);
  b = fg_read_tensor(op, in_db[3]);
  fg_write_tensor(op, 0, fg_cross(a, b));
  fg_write_tensor(op, 1, fg_dot(a, b));
  fg_write_tensor(op, 2, fg_length(a));
  fg_write_tensor(op, 3, fg_distance(a, b));
  fg_write_tensor(op, 4, fg_normalize(a));
  a = fg_read_tensor(op, in_da[4]);
  b = fg_read_tensor(op, in_db[4]);
  fg_write_tensor(op, 5, fg_cross(a, b));
  fg_write_tensor(op, 6, fg_dot(a, b));
  fg_write_tensor(op, 7, fg_length(a));
  fg_write_tensor(op, 8, fg_normalize(a));
  k = tb_end(t, op, GN, 9, o4);
  static const int fd[9] = {G_CROSS, G_DOT, G_LENGTH, G_DISTANCE,
                            G_NORMALIZE, G_CROSS, G_DOT, G_LENGTH,
                            G_NORMALIZE};
  for (int f = 0; f < 9; f++)
    at[1][f < 5 ? 3 : 4][fd[f]] = k + f;
  tb_run(t);

  for (int dbl = 0; dbl < 2; dbl++)
    for (int w = 1; w <= 4; w++) {
      void *out[G_COUNT_];
      bool any = false;
      for (int f = 0; f < G_COUNT_; f++) {
        out[f] = at[dbl][w][f] < 0 ? NULL : t->out[at[dbl][w][f]];
        any = any || out[f];
      }
      if (!any)
        continue;
      for (int i = 0; i < GN; i++)
        geo_check(out, dbl, w, i, dbl ? da[w] : fa[w], dbl ? db[w] : fb[w]);
    }
  tb_free(t);
  for (int w = 1; w <= 4; w++) {
    free(fa[w]);
    free(fb[w]);
    free(da[w]);
    free(db[w]);
  }
}
END_TEST

void builtins_geometric_tests(TCase *tc) {
  tcase_add_test(tc, test_builtins_geometric);
}
