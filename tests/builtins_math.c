/* tests/builtins_math.c - the math functions, against long double
 * references (the C library or computed here), within each function's
 * stated ulps, over inputs that include 0, -0, NaN, infinities and
 * subnormals.
 * Run by tests/check_builtins.c on the backend $FG_TEST_BACKEND names. */
#include "builtins_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* sin(pi x) (or cos(pi x)) in long double, reduced exactly to the nearest
 * multiple of 1/2 so that zeros and ones come out exact. */
static long double ref_sincospi(double x, bool cosine) {
  if (!isfinite(x))
    return NAN;
  long double r = fmodl((long double)x, 2.0L);     /* exact */
  long double k = roundl(r * 2);
  long double f = r - k / 2;                       /* exact, |f| <= 1/4 */
  int q = (((int)k % 4) + 4 + (cosine ? 1 : 0)) % 4;
  long double sn = sinl(PI_L * f), cs = cosl(PI_L * f);
  switch (q) {
  case 0: return sn;
  case 1: return cs;
  case 2: return -sn;
  default: return -cs;
  }
}

static long double ref_tanpi(double x) {
  long double c = ref_sincospi(x, true);
  if (c == 0) {          /* x = n + 1/2: +inf for even n, -inf for odd n */
    long double n = (long double)x - 0.5L;
    return fmodl(n, 2.0L) == 0 ? INFINITY : -INFINITY;
  }
  return ref_sincospi(x, false) / c;
}

static long double ref_rootn(double x, int n) {
  if (n == 0 || (x < 0 && n % 2 == 0) || isnan(x))
    return NAN;
  long double v = powl(fabsl((long double)x), 1.0L / n);
  return signbit(x) && n % 2 ? -v : v;
}

static long double ref_powr(double x, double y) {
  if (isnan(x) || isnan(y) || (x < 0) || (x == 0 && y == 0) ||
      (isinf(x) && y == 0) || (x == 1 && isinf(y)))
    return NAN;
  return powl(fabsl((long double)x), (long double)y);
}

static double ref_maxmag(double x, double y, bool dbl) {
  if (fabs(x) > fabs(y))
    return x;
  if (fabs(y) > fabs(x))
    return y;
  return dbl ? fmax(x, y) : fmaxf((float)x, (float)y);
}

static double ref_minmag(double x, double y, bool dbl) {
  if (fabs(x) < fabs(y))
    return x;
  if (fabs(y) < fabs(x))
    return y;
  return dbl ? fmin(x, y) : fminf((float)x, (float)y);
}

/* native_divide's precision is the implementation's: compare it where
 * both operands, the quotient and 1 / y are normal numbers (GPUs compute
 * x * (1 / y): NVIDIA's -7.75 / FLT_MAX is 0, 1 / FLT_MAX being
 * subnormal and flushed). */
static bool divide_comparable(double x, double y, bool dbl) {
  double q = x / y, mn = dbl ? DBL_MIN : FLT_MIN, mx = dbl ? DBL_MAX : FLT_MAX;
  return isfinite(x) && isfinite(y) && y != 0 && fabs(y) >= mn &&
         fabs(1 / y) >= mn && fabs(q) >= mn && fabs(q) <= mx / 2;
}

enum mfn {
  MF_NATIVE_DIVIDE, MF_HYPOT, MF_FMOD, MF_REMAINDER, MF_FDIM, MF_COPYSIGN,
  MF_NEXTAFTER, MF_MAXMAG, MF_MINMAG, MF_ATAN2PI,
  MF_COSPI, MF_SINPI, MF_TANPI, MF_EXPM1, MF_LOG1P, MF_ASINH, MF_ACOSPI,
  MF_RSQRT, MF_LOGB, MF_ILOGB,
  MF_LDEXP, MF_POWN, MF_ROOTN, MF_POWR, MF_FMA, MF_NAN, MF_TGAMMA, MF_EXP10,
  MF_COUNT_
};
static const char *const mfn_name[MF_COUNT_] = {
  "native_divide", "hypot", "fmod", "remainder", "fdim", "copysign",
  "nextafter", "maxmag", "minmag", "atan2pi", "cospi", "sinpi", "tanpi",
  "expm1", "log1p", "asinh", "acospi", "rsqrt", "logb", "ilogb", "ldexp",
  "pown", "rootn", "powr", "fma", "nan", "tgamma", "exp10"};
/* Allowed error in ulps (OpenCL's full-profile limits for float), -1 for
 * exact results; native_divide and nan are checked apart. */
static const double mfn_ulps[MF_COUNT_] = {
  [MF_NATIVE_DIVIDE] = 4, [MF_HYPOT] = 4, [MF_FMOD] = -1,
  [MF_REMAINDER] = -1, [MF_FDIM] = -1, [MF_COPYSIGN] = -1,
  [MF_NEXTAFTER] = -1, [MF_MAXMAG] = -1, [MF_MINMAG] = -1,
  [MF_ATAN2PI] = 6, [MF_COSPI] = 4, [MF_SINPI] = 4, [MF_TANPI] = 6,
  [MF_EXPM1] = 3, [MF_LOG1P] = 2, [MF_ASINH] = 4, [MF_ACOSPI] = 5,
  [MF_RSQRT] = 2, [MF_LOGB] = -1, [MF_ILOGB] = -1, [MF_LDEXP] = -1,
  [MF_POWN] = 16, [MF_ROOTN] = 16, [MF_POWR] = 16, [MF_FMA] = -1,
  [MF_NAN] = 0, [MF_TGAMMA] = 16, [MF_EXP10] = 3};

/* The C library's (or the definition's) answer for f at (x, y, n). */
static long double mref(int f, double x, double y, int n, bool dbl) {
  switch (f) {
  case MF_NATIVE_DIVIDE: return (long double)x / y;
  case MF_HYPOT: return hypotl(x, y);
  case MF_FMOD: return dbl ? fmod(x, y) : fmodf((float)x, (float)y);
  case MF_REMAINDER:
    return dbl ? remainder(x, y) : remainderf((float)x, (float)y);
  case MF_FDIM: return dbl ? fdim(x, y) : fdimf((float)x, (float)y);
  case MF_COPYSIGN: return copysign(x, y);
  case MF_NEXTAFTER:
    return dbl ? nextafter(x, y) : nextafterf((float)x, (float)y);
  case MF_MAXMAG: return ref_maxmag(x, y, dbl);
  case MF_MINMAG: return ref_minmag(x, y, dbl);
  case MF_ATAN2PI: return atan2l(x, y) / PI_L;
  case MF_COSPI: return ref_sincospi(x, true);
  case MF_SINPI: return ref_sincospi(x, false);
  case MF_TANPI: return ref_tanpi(x);
  case MF_EXPM1: return expm1l(x);
  case MF_LOG1P: return log1pl(x);
  case MF_ASINH: return asinhl(x);
  case MF_ACOSPI: return acosl(x) / PI_L;
  case MF_RSQRT: return 1.0L / sqrtl(x);
  case MF_LOGB: return logb(x);
  case MF_ILOGB: return ilogb(x);
  case MF_LDEXP: return dbl ? ldexp(x, n) : ldexpf((float)x, n);
  case MF_POWN: return powl(x, n);
  case MF_ROOTN: return ref_rootn(x, n);
  case MF_POWR: return ref_powr(x, y);
  case MF_FMA: return dbl ? fma(x, y, x) : fmaf((float)x, (float)y, (float)x);
  case MF_TGAMMA: return tgammal(x);
  case MF_EXP10: return powl(10.0L, x);
  default: return 0;
  }
}

/* Checks got for function f at (x, y, n), failing with a message. */
static void mcheck(int f, double got, double x, double y, int n, bool dbl,
                   const char *ty) {
  long double want = mref(f, x, y, n, dbl);
  if (f == MF_NATIVE_DIVIDE && !divide_comparable(x, y, dbl))
    return;
  bool ok;
  if (f == MF_ILOGB) {
    /* FP_ILOGB0 and FP_ILOGBNAN are the implementation's choice */
    int g = (int)got;
    if (x == 0)
      ok = g == INT_MIN || g == -INT_MAX;
    else if (isnan(x))
      ok = g == INT_MIN || g == INT_MAX;
    else
      ok = g == (int)want;
  } else if ((f == MF_MAXMAG || f == MF_MINMAG) && x == 0 && y == 0) {
    ok = got == 0;       /* fmax/fmin may return either zero */
  } else if (mfn_ulps[f] < 0) {
    ok = same_f(got, (double)want);
  } else {
    ok = close_to(got, want, mfn_ulps[f], 0, dbl);
  }
  ck_assert_msg(ok, "%s(%.9g, %.9g, n=%d) on %s = %.17g, want %.17Lg",
                mfn_name[f], x, y, n, ty, got, want);
}

START_TEST(test_builtins_math) {
  enum { M = 1024, N = M / 4, MD = 512, ND = MD / 2 };
  static const float fe[24] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, -2.5f, 3.0f, 0.25f, 1e-3f,
    -7.75f, 100.5f, 1e10f, -1e-10f, INFINITY, -INFINITY, NAN, 1e-40f,
    FLT_MAX, FLT_MIN, 0.3f, 4.4f, -0.7f};
  static const int ne[12] = {0, 1, -1, 2, 3, -3, 5, 7, 10, -10, 127, -150};
  float *x = malloc(M * sizeof *x), *y = malloc(M * sizeof *y);
  int32_t *ni = malloc(M * sizeof *ni);
  uint32_t *code = malloc(M * sizeof *code);
  for (int i = 0; i < M; i++) {
    if (i < 24 * 24) {
      x[i] = fe[i % 24];
      y[i] = fe[i / 24];
    } else {
      x[i] = (float)(rndf(-10, 10) * pow(2.0, (double)(rnd() % 9) - 4));
      y[i] = (float)rndf(-10, 10);
    }
    ni[i] = ne[(i + i / 24) % 12];
    code[i] = (uint32_t)rnd();
  }
  static const double de[16] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-300, 1e300, -7.75, INFINITY,
    -INFINITY, NAN, 4.9406564584124654e-324, 0.3, 100.5};
  double *xd = malloc(MD * sizeof *xd), *yd = malloc(MD * sizeof *yd);
  uint64_t *coded = malloc(MD * sizeof *coded);
  for (int i = 0; i < MD; i++) {
    if (i < 16 * 16) {
      xd[i] = de[i % 16];
      yd[i] = de[i / 16];
    } else {
      xd[i] = rndf(-10, 10) * pow(2.0, (double)(rnd() % 41) - 20);
      yd[i] = rndf(-10, 10);
    }
    coded[i] = rnd();
  }

  tb *t = tb_new("math");
  fg_field *fx = tb_input(t, FG_F32, 4, N, x);
  fg_field *fy = tb_input(t, FG_F32, 4, N, y);
  fg_field *fn = tb_input(t, FG_I32, 4, N, ni);
  fg_field *fc = tb_input(t, FG_U32, 4, N, code);
  fg_field *fxd = tb_input(t, FG_F64, 2, ND, xd);
  fg_field *fyd = tb_input(t, FG_F64, 2, ND, yd);
  fg_field *fcd = tb_input(t, FG_U64, 2, ND, coded);
  ot f4[10];
  for (int i = 0; i < 10; i++)
    f4[i] = (ot){FG_F32, 4};
  /* binary: native_divide .. atan2pi */
  fg_op *op = tb_begin(t, "m1", N, 10, f4);
  fg_expr *a = fg_read_tensor(op, fx), *b = fg_read_tensor(op, fy);
  fg_write_tensor(op, 0, fg_native_divide(a, b));
  fg_write_tensor(op, 1, fg_hypot(a, b));
  fg_write_tensor(op, 2, fg_fmod(a, b));
  fg_write_tensor(op, 3, fg_remainder(a, b));
  fg_write_tensor(op, 4, fg_fdim(a, b));
  fg_write_tensor(op, 5, fg_copysign(a, b));
  fg_write_tensor(op, 6, fg_nextafter(a, b));
  fg_write_tensor(op, 7, fg_maxmag(a, b));
  fg_write_tensor(op, 8, fg_minmag(a, b));
  fg_write_tensor(op, 9, fg_atan2pi(a, b));
  int m1 = tb_end(t, op, N, 10, f4);
  /* unary: cospi .. ilogb */
  ot o2[10];
  memcpy(o2, f4, sizeof o2);
  o2[9] = (ot){FG_I32, 4};
  op = tb_begin(t, "m2", N, 10, o2);
  a = fg_read_tensor(op, fx);
  fg_write_tensor(op, 0, fg_cospi(a));
  fg_write_tensor(op, 1, fg_sinpi(a));
  fg_write_tensor(op, 2, fg_tanpi(a));
  fg_write_tensor(op, 3, fg_expm1(a));
  fg_write_tensor(op, 4, fg_log1p(a));
  fg_write_tensor(op, 5, fg_asinh(a));
  fg_write_tensor(op, 6, fg_acospi(a));
  fg_write_tensor(op, 7, fg_rsqrt(a));
  fg_write_tensor(op, 8, fg_logb(a));
  fg_write_tensor(op, 9, fg_ilogb(a));
  int m2 = tb_end(t, op, N, 10, o2);
  /* with integer arguments, fma, nan, tgamma, exp10 */
  op = tb_begin(t, "m3", N, 8, f4);
  a = fg_read_tensor(op, fx);
  b = fg_read_tensor(op, fy);
  fg_expr *n = fg_read_tensor(op, fn);
  fg_write_tensor(op, 0, fg_ldexp(a, n));
  fg_write_tensor(op, 1, fg_pown(a, n));
  fg_write_tensor(op, 2, fg_rootn(a, n));
  fg_write_tensor(op, 3, fg_powr(a, b));
  fg_write_tensor(op, 4, fg_fma(a, b, a));
  fg_write_tensor(op, 5, fg_nan(fg_read_tensor(op, fc)));
  fg_write_tensor(op, 6, fg_tgamma(a));
  fg_write_tensor(op, 7, fg_exp10(a));
  int m3 = tb_end(t, op, N, 8, f4);
  /* double2 */
  ot d2[10];
  for (int i = 0; i < 10; i++)
    d2[i] = (ot){FG_F64, 2};
  op = tb_begin(t, "md", ND, 10, d2);
  a = fg_read_tensor(op, fxd);
  b = fg_read_tensor(op, fyd);
  fg_write_tensor(op, 0, fg_fdim(a, b));
  fg_write_tensor(op, 1, fg_hypot(a, b));
  fg_write_tensor(op, 2, fg_fmod(a, b));
  fg_write_tensor(op, 3, fg_remainder(a, b));
  fg_write_tensor(op, 4, fg_maxmag(a, b));
  fg_write_tensor(op, 5, fg_cospi(a));
  fg_write_tensor(op, 6, fg_sinpi(a));
  fg_write_tensor(op, 7, fg_tanpi(a));
  fg_write_tensor(op, 8, fg_fma(a, b, a));
  fg_write_tensor(op, 9, fg_nan(fg_read_tensor(op, fcd)));
  int md = tb_end(t, op, ND, 10, d2);
  tb_run(t);

  static const int in1[10] = {MF_NATIVE_DIVIDE, MF_HYPOT, MF_FMOD,
                              MF_REMAINDER, MF_FDIM, MF_COPYSIGN,
                              MF_NEXTAFTER, MF_MAXMAG, MF_MINMAG, MF_ATAN2PI};
  static const int in2[10] = {MF_COSPI, MF_SINPI, MF_TANPI, MF_EXPM1,
                              MF_LOG1P, MF_ASINH, MF_ACOSPI, MF_RSQRT,
                              MF_LOGB, MF_ILOGB};
  static const int in3[8] = {MF_LDEXP, MF_POWN, MF_ROOTN, MF_POWR, MF_FMA,
                             MF_NAN, MF_TGAMMA, MF_EXP10};
  static const int ind[10] = {MF_FDIM, MF_HYPOT, MF_FMOD,
                              MF_REMAINDER, MF_MAXMAG, MF_COSPI, MF_SINPI,
                              MF_TANPI, MF_FMA, MF_NAN};
  for (int i = 0; i < M; i++) {
    for (int k = 0; k < 10; k++)
      mcheck(in1[k], ((float *)t->out[m1 + k])[i], x[i], y[i], 0, false,
             "float4");
    for (int k = 0; k < 10; k++) {
      double got = in2[k] == MF_ILOGB ? (double)((int32_t *)t->out[m2 + k])[i]
                                      : (double)((float *)t->out[m2 + k])[i];
      mcheck(in2[k], got, x[i], y[i], 0, false, "float4");
    }
    for (int k = 0; k < 8; k++) {
      float got = ((float *)t->out[m3 + k])[i];
      if (in3[k] == MF_NAN)
        ck_assert_msg(isnan(got), "nan(%u) = %g", code[i], got);
      else
        mcheck(in3[k], got, x[i], y[i], ni[i], false, "float4");
    }
  }
  for (int i = 0; i < MD; i++)
    for (int k = 0; k < 10; k++) {
      double got = ((double *)t->out[md + k])[i];
      if (ind[k] == MF_NAN)
        ck_assert_msg(isnan(got), "nan(%llu) = %g",
                      (unsigned long long)coded[i], got);
      else
        mcheck(ind[k], got, xd[i], yd[i], 0, true, "double2");
    }
  tb_free(t);
  free(x);
  free(y);
  free(ni);
  free(code);
  free(xd);
  free(yd);
  free(coded);
}
END_TEST

void builtins_math_tests(TCase *tc) {
  tcase_add_test(tc, test_builtins_math);
}
