/* tests/check_builtins.c - the built-in function families of Cog's
 * GPUOperator (integer, math, geometric, common and relational functions,
 * vector literals, type conversion and reinterpretation), run on the
 * backend $FG_TEST_BACKEND names (cpu by default) over fields of inputs
 * that include the edge cases (0, -0, negative values, the limits of each
 * integer type, NaN, infinities, subnormals), each compared with the C
 * library or with an independent computation written here: exactly for
 * integers, relational results and conversions, and within a stated
 * number of ulps for floating point.  Several functions share one
 * operator (up to FG_MAX_OUTPUTS outputs) to keep the kernel count low. */
#ifndef FG_SAMPLES_DIR             /* testutil.h wants it; unused here */
#define FG_SAMPLES_DIR "data/samples"
#endif
#include "testutil.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef __int128 i128;
typedef unsigned __int128 u128;

/* ---- building and running a graph --------------------------------------- */

enum { MAX_IO = 160 };

/* A graph with its input data and output buffers in declaration order. */
typedef struct tb {
  fg_graph *g;
  int n_in, n_out;
  const void *in[MAX_IO];
  void *out[MAX_IO];
} tb;

/* An output's element type and width. */
typedef struct ot {
  fg_elem e;
  int w;
} ot;

static fg_type vtype(fg_elem e, int w, int64_t n) {
  return w == 1 ? fg_type_scalar(e, fg_shape1(n))
                : fg_type_vector(e, fg_shape1(n), w);
}

static tb *tb_new(const char *name) {
  tb *t = calloc(1, sizeof *t);
  t->g = fg_graph_new(name);
  return t;
}

/* A graph input of n tensors of (e, w) holding data. */
static fg_field *tb_input(tb *t, fg_elem e, int w, int64_t n,
                          const void *data) {
  char name[16];
  ck_assert_int_lt(t->n_in, MAX_IO);
  snprintf(name, sizeof name, "in%d", t->n_in);
  t->in[t->n_in++] = data;
  return fg_input(t->g, name, vtype(e, w, n));
}

/* An operator over n threads with k outputs of the types o. */
static fg_op *tb_begin(tb *t, const char *name, int64_t n, int k,
                       const ot *o) {
  fg_type ty[FG_MAX_OUTPUTS];
  for (int i = 0; i < k; i++)
    ty[i] = vtype(o[i].e, o[i].w, n);
  return fg_op_begin(t->g, name, k, ty);
}

/* Closes op and makes its k outputs graph outputs with buffers; returns
 * the index of the first in t->out. */
static int tb_end(tb *t, fg_op *op, int64_t n, int k, const ot *o) {
  fg_op_end(op);
  int first = t->n_out;
  for (int i = 0; i < k; i++) {
    char name[16];
    ck_assert_int_lt(t->n_out, MAX_IO);
    snprintf(name, sizeof name, "out%d", t->n_out);
    fg_output(t->g, name, fg_op_output(op, i));
    t->out[t->n_out++] = calloc((size_t)(n * o[i].w), fg_elem_size(o[i].e));
  }
  return first;
}

static void tb_run(tb *t) { tu_run(t->g, t->n_in, t->in, t->n_out, t->out); }

static void tb_free(tb *t) {
  for (int i = 0; i < t->n_out; i++)
    free(t->out[i]);
  fg_graph_free(t->g);
  free(t);
}

/* ---- element access ----------------------------------------------------- */

static int bits(fg_elem e) { return (int)fg_elem_size(e) * 8; }
static bool is_signed(fg_elem e) {
  return e == FG_I8 || e == FG_I16 || e == FG_I32 || e == FG_I64;
}
static fg_elem unsigned_of(fg_elem e) {
  return is_signed(e) ? (fg_elem)(e + 1) : e;
}
static i128 tmin(fg_elem e) {
  return is_signed(e) ? -((i128)1 << (bits(e) - 1)) : 0;
}
static i128 tmax(fg_elem e) {
  return is_signed(e) ? ((i128)1 << (bits(e) - 1)) - 1
                      : ((i128)1 << bits(e)) - 1;
}
/* v reduced modulo 2^bits into e's range. */
static i128 wrap(i128 v, fg_elem e) {
  int w = bits(e);
  u128 u = (u128)v & (((u128)1 << w) - 1);
  if (is_signed(e) && ((u >> (w - 1)) & 1))
    return (i128)u - ((i128)1 << w);
  return (i128)u;
}
static i128 sat(i128 v, fg_elem e) {
  return v < tmin(e) ? tmin(e) : v > tmax(e) ? tmax(e) : v;
}

static i128 get_i(const void *p, fg_elem e, size_t i) {
  switch (e) {
  case FG_I8: return ((const int8_t *)p)[i];
  case FG_U8: return ((const uint8_t *)p)[i];
  case FG_I16: return ((const int16_t *)p)[i];
  case FG_U16: return ((const uint16_t *)p)[i];
  case FG_I32: return ((const int32_t *)p)[i];
  case FG_U32: return ((const uint32_t *)p)[i];
  case FG_I64: return ((const int64_t *)p)[i];
  case FG_U64: return ((const uint64_t *)p)[i];
  default: ck_abort_msg("get_i: not an integer type"); return 0;
  }
}

static void set_i(void *p, fg_elem e, size_t i, i128 v) {
  v = wrap(v, e);
  switch (e) {
  case FG_I8: ((int8_t *)p)[i] = (int8_t)v; break;
  case FG_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
  case FG_I16: ((int16_t *)p)[i] = (int16_t)v; break;
  case FG_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
  case FG_I32: ((int32_t *)p)[i] = (int32_t)v; break;
  case FG_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
  case FG_I64: ((int64_t *)p)[i] = (int64_t)v; break;
  case FG_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
  default: ck_abort_msg("set_i: not an integer type");
  }
}

/* Decimal text of v (for messages). */
static const char *i128s(i128 v, char *buf) {
  char tmp[48];
  int n = 0;
  u128 u = v < 0 ? (u128)0 - (u128)v : (u128)v;
  do {
    tmp[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  int j = 0;
  if (v < 0)
    buf[j++] = '-';
  while (n)
    buf[j++] = tmp[--n];
  buf[j] = 0;
  return buf;
}

static uint64_t lcg_state = 12345;
static uint64_t rnd(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return lcg_state ^ (lcg_state >> 29);
}
/* Uniform in [lo, hi). */
static double rndf(double lo, double hi) {
  return lo + (hi - lo) * (double)(rnd() >> 11) / 9007199254740992.0;
}

/* ---- floating-point comparisons ----------------------------------------- */

/* The spacing of floats (double when dbl) at |v|. */
static double ulp_at(double v, bool dbl) {
  int ex;
  v = fabs(v);
  double lowest = dbl ? 4.9406564584124654e-324 : 1.40129846e-45;
  double minnorm = dbl ? DBL_MIN : FLT_MIN;
  if (v < minnorm)
    return lowest;
  frexp(v, &ex);
  return ldexp(1.0, ex - (dbl ? 53 : 24));
}

/* got within ulps of the reference want (float or double results), or
 * both NaN, or equal infinities; abs is an absolute allowance for the
 * reference's own error near zeros. */
static bool close_to(double got, long double want, double ulps, double abs,
                     bool dbl) {
  if (isnan(want))
    return isnan(got);
  if (isnan(got))
    return false;
  double wr = dbl ? (double)want : (double)(float)want;
  if (isinf(wr) || isinf(got))
    return got == wr;
  if (!dbl && fabsl(want) < FLT_MIN && got == 0)
    return true;         /* OpenCL lets float subnormals flush to zero */
  long double err = fabsl((long double)got - want);
  return err <= (long double)ulps * ulp_at((double)want, dbl) + abs;
}

/* Bitwise equality of floats or doubles, any NaN matching any NaN. */
static bool same_f(double got, double want) {
  if (isnan(want))
    return isnan(got);
  return got == want && signbit(got) == signbit(want);
}

/* ==== integer functions ================================================== */

enum ifn {
  I_ABS, I_ABS_DIFF, I_ADD_SAT, I_SUB_SAT, I_HADD, I_RHADD, I_CLZ, I_MUL_HI,
  I_MAD_HI, I_MAD_SAT, I_ROTATE, I_MIN, I_MAX, I_CLAMP, I_CLAMP_S, I_MUL24,
  I_MAD24, I_COUNT_
};
static const char *const ifn_name[I_COUNT_] = {
  "abs", "abs_diff", "add_sat", "sub_sat", "hadd", "rhadd", "clz", "mul_hi",
  "mad_hi", "mad_sat", "rotate", "min", "max", "clamp", "clamp(x, 5, 100)",
  "mul24", "mad24"};

/* The high half of x * y for type e, through 128-bit arithmetic. */
static i128 ref_mul_hi(i128 x, i128 y, fg_elem e) {
  int w = bits(e);
  if (w == 64 && !is_signed(e))
    return (i128)(((u128)x * (u128)y) >> 64);
  return (x * y) >> w;        /* an arithmetic shift: floor */
}

/* OpenCL's answer for integer function f of type e, written out from the
 * definitions with 128-bit arithmetic and bit loops. */
static i128 iref(int f, fg_elem e, i128 x, i128 y, i128 z) {
  int w = bits(e);
  u128 mask = ((u128)1 << w) - 1;
  switch (f) {
  case I_ABS: return x < 0 ? -x : x;
  case I_ABS_DIFF: return x > y ? x - y : y - x;
  case I_ADD_SAT: return sat(x + y, e);
  case I_SUB_SAT: return sat(x - y, e);
  case I_HADD: return (x + y) >> 1;
  case I_RHADD: return (x + y + 1) >> 1;
  case I_CLZ: {
    u128 u = (u128)x & mask;
    int n = 0;
    for (int b = w - 1; b >= 0 && !((u >> b) & 1); b--)
      n++;
    return n;
  }
  case I_MUL_HI: return ref_mul_hi(x, y, e);
  case I_MAD_HI: return wrap(ref_mul_hi(x, y, e) + z, e);
  case I_MAD_SAT:
    if (w == 64 && !is_signed(e)) {
      u128 p = (u128)x * (u128)y + (u128)z;
      return p > (u128)tmax(e) ? tmax(e) : (i128)p;
    }
    return sat(x * y + z, e);
  case I_ROTATE: {
    u128 u = (u128)x & mask;
    int n = (int)(((u128)y & mask) % (u128)w);
    for (int k = 0; k < n; k++)
      u = ((u << 1) | (u >> (w - 1))) & mask;
    return wrap((i128)u, e);
  }
  case I_MIN: return y < x ? y : x;
  case I_MAX: return x < y ? y : x;
  case I_CLAMP: {
    i128 lo = y < z ? y : z, hi = y < z ? z : y;
    return x < lo ? lo : x > hi ? hi : x;
  }
  case I_CLAMP_S: return x < 5 ? 5 : x > 100 ? 100 : x;
  case I_MUL24: return wrap(x * y, e);
  case I_MAD24: return wrap(x * y + z, e);
  default: return 0;
  }
}

/* Fills x, y, z (m elements of e) with every triple of the type's edge
 * values, then random values. */
static void int_inputs(fg_elem e, size_t m, void *x, void *y, void *z) {
  const i128 edge[12] = {0, 1, 2, 3, -1, -3, tmin(e), tmin(e) + 1, tmax(e),
                         tmax(e) - 1, tmax(e) / 2, tmax(e) / 2 + 1};
  for (size_t i = 0; i < m; i++) {
    if (i < 12 * 12 * 12) {
      set_i(x, e, i, edge[i % 12]);
      set_i(y, e, i, edge[i / 12 % 12]);
      set_i(z, e, i, edge[i / 144]);
    } else {
      set_i(x, e, i, (i128)rnd());
      set_i(y, e, i, (i128)rnd());
      set_i(z, e, i, (i128)rnd());
    }
  }
}

typedef struct icase {
  fg_elem e;
  int w;
  void *x, *y, *z, *x24, *y24;
  int first[2];         /* first output of each operator */
} icase;

START_TEST(test_builtins_integer) {
  enum { M = 2304 };    /* 12^3 edge triples + random; divisible by 2, 3, 4 */
  icase cs[] = {{.e = FG_I8, .w = 4},  {.e = FG_U8, .w = 1},
                {.e = FG_I16, .w = 2}, {.e = FG_U16, .w = 3},
                {.e = FG_I32, .w = 1}, {.e = FG_U32, .w = 4},
                {.e = FG_I64, .w = 2}, {.e = FG_U64, .w = 1}};
  enum { NC = sizeof cs / sizeof *cs };
  tb *t = tb_new("integer");
  for (int c = 0; c < NC; c++) {
    icase *k = &cs[c];
    fg_elem e = k->e, u = unsigned_of(e);
    int w = k->w;
    int64_t n = M / w;
    size_t sz = fg_elem_size(e);
    k->x = malloc(M * sz);
    k->y = malloc(M * sz);
    k->z = malloc(M * sz);
    int_inputs(e, M, k->x, k->y, k->z);
    fg_field *fx = tb_input(t, e, w, n, k->x);
    fg_field *fy = tb_input(t, e, w, n, k->y);
    fg_field *fz = tb_input(t, e, w, n, k->z);
    bool is32 = e == FG_I32 || e == FG_U32;
    fg_field *fx24 = NULL, *fy24 = NULL;
    if (is32) {
      /* mul24/mad24 are defined for 24-bit operands only */
      k->x24 = malloc(M * sz);
      k->y24 = malloc(M * sz);
      for (int i = 0; i < M; i++) {
        i128 a = get_i(k->x, e, i), b = get_i(k->y, e, i);
        set_i(k->x24, e, i, e == FG_I32 ? wrap(a * 256, e) >> 8 : a & 0xffffff);
        set_i(k->y24, e, i, e == FG_I32 ? wrap(b * 256, e) >> 8 : b & 0xffffff);
      }
      fx24 = tb_input(t, e, w, n, k->x24);
      fy24 = tb_input(t, e, w, n, k->y24);
    }
    /* abs .. mul_hi */
    ot o1[8] = {{u, w}, {u, w}, {e, w}, {e, w}, {e, w}, {e, w}, {e, w},
                {e, w}};
    fg_op *op = tb_begin(t, "int1", n, 8, o1);
    fg_expr *x = fg_read_tensor(op, fx), *y = fg_read_tensor(op, fy);
    fg_write_tensor(op, 0, fg_abs(x));
    fg_write_tensor(op, 1, fg_abs_diff(x, y));
    fg_write_tensor(op, 2, fg_add_sat(x, y));
    fg_write_tensor(op, 3, fg_sub_sat(x, y));
    fg_write_tensor(op, 4, fg_hadd(x, y));
    fg_write_tensor(op, 5, fg_rhadd(x, y));
    fg_write_tensor(op, 6, fg_clz(x));
    fg_write_tensor(op, 7, fg_mul_hi(x, y));
    k->first[0] = tb_end(t, op, n, 8, o1);
    /* mad_hi .. clamp with scalar bounds (T _clamp(T x, S lo, S hi)),
     * mul24, mad24 */
    ot o2[9] = {{e, w}, {e, w}, {e, w}, {e, w}, {e, w}, {e, w}, {e, w},
                {e, w}, {e, w}};
    int k2 = is32 ? 9 : 7;
    op = tb_begin(t, "int2", n, k2, o2);
    x = fg_read_tensor(op, fx);
    y = fg_read_tensor(op, fy);
    fg_expr *z = fg_read_tensor(op, fz);
    fg_write_tensor(op, 0, fg_mad_hi(x, y, z));
    fg_write_tensor(op, 1, fg_mad_sat(x, y, z));
    fg_write_tensor(op, 2, fg_rotate(x, y));
    fg_write_tensor(op, 3, fg_min(x, y));
    fg_write_tensor(op, 4, fg_max(x, y));
    fg_write_tensor(op, 5, fg_clamp(x, fg_min(y, z), fg_max(y, z)));
    fg_write_tensor(op, 6, fg_clamp(x, fg_convert(fg_int(op, 5), e, 1),
                                    fg_convert(fg_int(op, 100), e, 1)));
    if (is32) {
      fg_expr *x24 = fg_read_tensor(op, fx24), *y24 = fg_read_tensor(op, fy24);
      fg_write_tensor(op, 7, fg_mul24(x24, y24));
      fg_write_tensor(op, 8, fg_mad24(x24, y24, z));
    }
    k->first[1] = tb_end(t, op, n, k2, o2);
  }
  tb_run(t);
  /* output index of each function within its operator */
  static const int slot[I_COUNT_][2] = {
    [I_ABS] = {0, 0}, [I_ABS_DIFF] = {0, 1}, [I_ADD_SAT] = {0, 2},
    [I_SUB_SAT] = {0, 3}, [I_HADD] = {0, 4}, [I_RHADD] = {0, 5},
    [I_CLZ] = {0, 6}, [I_MUL_HI] = {0, 7}, [I_MAD_HI] = {1, 0},
    [I_MAD_SAT] = {1, 1}, [I_ROTATE] = {1, 2}, [I_MIN] = {1, 3},
    [I_MAX] = {1, 4}, [I_CLAMP] = {1, 5}, [I_CLAMP_S] = {1, 6},
    [I_MUL24] = {1, 7}, [I_MAD24] = {1, 8}};
  for (int c = 0; c < NC; c++) {
    icase *k = &cs[c];
    fg_elem e = k->e;
    bool is32 = e == FG_I32 || e == FG_U32;
    for (int f = 0; f < I_COUNT_; f++) {
      if ((f == I_MUL24 || f == I_MAD24) && !is32)
        continue;
      bool tou = f == I_ABS || f == I_ABS_DIFF;
      fg_elem re = tou ? unsigned_of(e) : e;
      const void *out = t->out[k->first[slot[f][0]] + slot[f][1]];
      bool b24 = f == I_MUL24 || f == I_MAD24;
      for (int i = 0; i < M; i++) {
        i128 x = get_i(b24 ? k->x24 : k->x, e, i);
        i128 y = get_i(b24 ? k->y24 : k->y, e, i);
        i128 z = get_i(k->z, e, i);
        i128 want = iref(f, e, x, y, z), got = get_i(out, re, i);
        if (got != want) {
          char b[5][48];
          ck_abort_msg("%s(%s, %s, %s) on %s%d = %s, want %s", ifn_name[f],
                       i128s(x, b[0]), i128s(y, b[1]), i128s(z, b[2]),
                       fg_elem_name(e), k->w, i128s(got, b[3]),
                       i128s(want, b[4]));
        }
      }
    }
    free(k->x);
    free(k->y);
    free(k->z);
    free(k->x24);
    free(k->y24);
  }
  tb_free(t);
}
END_TEST

/* ==== math functions ===================================================== */

static const long double PI_L = 3.141592653589793238462643383279502884L;

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
 * both operands and the quotient are normal numbers. */
static bool divide_comparable(double x, double y, bool dbl) {
  double q = x / y, mn = dbl ? DBL_MIN : FLT_MIN, mx = dbl ? DBL_MAX : FLT_MAX;
  return isfinite(x) && isfinite(y) && y != 0 && fabs(y) >= mn &&
         fabs(q) >= mn && fabs(q) <= mx / 2;
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

/* ==== geometric functions ================================================ */

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

/* ==== common functions =================================================== */

START_TEST(test_builtins_common) {
  enum { M = 1024, N = M / 4, NS = 16 };
  float *x = malloc(M * sizeof *x), *y = malloc(M * sizeof *y);
  float *a = malloc(M * sizeof *a);
  double *xd = malloc(N * sizeof *xd), *yd = malloc(N * sizeof *yd);
  double *ad = malloc(N * sizeof *ad);
  static const float fe[8] = {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, -1.5f, 1e30f,
                              -3e-20f};
  for (int i = 0; i < M; i++) {
    x[i] = i < 64 ? fe[i % 8] : (float)rndf(-1000, 1000);
    y[i] = i < 64 ? fe[i / 8] : (float)rndf(-1000, 1000);
    a[i] = (float)rndf(0, 1);
  }
  for (int i = 0; i < N; i++) {
    xd[i] = i < 64 ? fe[i % 8] : rndf(-1000, 1000);
    yd[i] = i < 64 ? fe[i / 8] : rndf(-1000, 1000);
    ad[i] = rndf(0, 1);
  }
  /* sign over the special values, NaN included */
  static const float sv[NS] = {NAN, -NAN, 0.0f, -0.0f, INFINITY, -INFINITY,
                               1e-40f, -1e-40f, 3.0f, -3.0f, FLT_MAX, -FLT_MIN,
                               0.5f, -0.5f, 1e-3f, -7.0f};
  tb *t = tb_new("common");
  fg_field *fx = tb_input(t, FG_F32, 4, N, x);
  fg_field *fy = tb_input(t, FG_F32, 4, N, y);
  fg_field *fa = tb_input(t, FG_F32, 4, N, a);
  fg_field *fxd = tb_input(t, FG_F64, 1, N, xd);
  fg_field *fyd = tb_input(t, FG_F64, 1, N, yd);
  fg_field *fad = tb_input(t, FG_F64, 1, N, ad);
  fg_field *fs = tb_input(t, FG_F32, 4, NS / 4, sv);
  ot f4[10];
  for (int i = 0; i < 10; i++)
    f4[i] = (ot){FG_F32, 4};
  fg_op *op = tb_begin(t, "c4", N, 10, f4);
  fg_expr *ex = fg_read_tensor(op, fx), *ey = fg_read_tensor(op, fy);
  fg_expr *ea = fg_read_tensor(op, fa);
  /* floatn _clamp(floatn x, float min, float max) and the vector form */
  fg_write_tensor(op, 0, fg_clamp(ex, fg_float(op, -1.5f), fg_float(op, 2.5f)));
  fg_write_tensor(op, 1, fg_clamp(ex, fg_fmin(ey, ea), fg_fmax(ey, ea)));
  fg_write_tensor(op, 2, fg_degrees(ex));
  fg_write_tensor(op, 3, fg_radians(ex));
  fg_write_tensor(op, 4, fg_max(ex, ey));
  fg_write_tensor(op, 5, fg_min(ex, fg_float(op, 0.5f)));
  fg_write_tensor(op, 6, fg_mix(ex, ey, ea));
  fg_write_tensor(op, 7, fg_mix(ex, ey, fg_float(op, 0.25f)));
  fg_write_tensor(op, 8, fg_sign(ex));
  fg_write_tensor(op, 9, fg_step(ey, ex));
  int c4 = tb_end(t, op, N, 10, f4);
  ot d1[8];
  for (int i = 0; i < 8; i++)
    d1[i] = (ot){FG_F64, 1};
  op = tb_begin(t, "cd", N, 8, d1);
  ex = fg_read_tensor(op, fxd);
  ey = fg_read_tensor(op, fyd);
  ea = fg_read_tensor(op, fad);
  fg_write_tensor(op, 0, fg_clamp(ex, fg_fmin(ey, ea), fg_fmax(ey, ea)));
  fg_write_tensor(op, 1, fg_degrees(ex));
  fg_write_tensor(op, 2, fg_radians(ex));
  fg_write_tensor(op, 3, fg_max(ex, ey));
  fg_write_tensor(op, 4, fg_min(ex, ey));
  fg_write_tensor(op, 5, fg_mix(ex, ey, ea));
  fg_write_tensor(op, 6, fg_sign(ex));
  fg_write_tensor(op, 7, fg_step(ey, ex));
  int cd = tb_end(t, op, N, 8, d1);
  op = tb_begin(t, "csign", NS / 4, 1, f4);
  fg_write_tensor(op, 0, fg_sign(fg_read_tensor(op, fs)));
  int cs = tb_end(t, op, NS / 4, 1, f4);
  tb_run(t);

  for (int dbl = 0; dbl < 2; dbl++) {
    int n = dbl ? N : M;
    for (int i = 0; i < n; i++) {
      double vx = dbl ? xd[i] : x[i], vy = dbl ? yd[i] : y[i];
      double va = dbl ? ad[i] : a[i];
      double lo = fmin(vy, va), hi = fmax(vy, va);
      /* clamp, degrees, radians, max, min, mix, sign, step */
      double got[8], want[8], ulps[8] = {-1, 2, 2, -1, -1, 0, -1, -1};
      const char *names[8] = {"clamp", "degrees", "radians", "max", "min",
                              "mix", "sign", "step"};
      int slot[8] = {1, 2, 3, 4, 5, 6, 8, 9};
      for (int f = 0; f < 8; f++)
        got[f] = dbl ? ((double *)t->out[cd + f])[i]
                     : ((float *)t->out[c4 + slot[f]])[i];
      want[0] = vx < lo ? lo : vx > hi ? hi : vx;
      want[1] = (double)((long double)vx * (180.0L / PI_L));
      want[2] = (double)((long double)vx * (PI_L / 180.0L));
      want[3] = vx < vy ? vy : vx;
      want[4] = dbl ? (vy < vx ? vy : vx) : (0.5 < vx ? 0.5 : vx);
      want[5] = vx + (vy - vx) * va;
      want[6] = vx > 0 ? 1 : vx < 0 ? -1 : vx;
      want[7] = vx < vy ? 0 : 1;
      for (int f = 0; f < 8; f++) {
        bool ok;
        if (f == 5) {          /* mix: within 4 ulps of the larger input */
          double big = fmax(fmax(fabs(vx), fabs(vy)), fabs(want[5]));
          ok = fabs(got[5] - want[5]) <= 4 * ulp_at(big, dbl);
        } else if (ulps[f] < 0) {
          ok = got[f] == want[f] &&
               (f != 6 || signbit(got[f]) == signbit(want[f]));
        } else {
          ok = close_to(got[f], want[f], ulps[f], 0, dbl);
        }
        ck_assert_msg(ok, "%s on %s at x=%.9g y=%.9g a=%.9g: %.17g, want "
                      "%.17g", names[f], dbl ? "double" : "float4", vx, vy,
                      va, got[f], want[f]);
      }
      if (!dbl) {
        float c0 = ((float *)t->out[c4])[i];
        float want0 = x[i] < -1.5f ? -1.5f : x[i] > 2.5f ? 2.5f : x[i];
        ck_assert_msg(c0 == want0, "clamp(%g, -1.5, 2.5) = %g", x[i], c0);
        float m7 = ((float *)t->out[c4 + 7])[i];
        double w7 = vx + (vy - vx) * 0.25;
        ck_assert_msg(fabs(m7 - w7) <= 4 * ulp_at(fmax(fabs(vx), fabs(vy)),
                                                  false),
                      "mix(%g, %g, 0.25) = %g, want %g", vx, vy, m7, w7);
      }
    }
  }
  /* OpenCL: sign is 1.0 for x > 0, -1.0 for x < 0, x itself for +-0 and
   * 0.0 for a NaN (subnormals may count as zeros when they flush) */
  for (int i = 0; i < NS; i++) {
    float got = ((float *)t->out[cs])[i], v = sv[i];
    float want = isnan(v) ? 0.0f : v > 0 ? 1.0f : v < 0 ? -1.0f : v;
    bool ok = got == want && signbit(got) == signbit(want);
    if (fabsf(v) < FLT_MIN && v != 0)
      ok = ok || (got == 0 && signbit(got) == signbit(v));
    ck_assert_msg(ok, "sign(%g) = %g, want %g", v, got, want);
  }
  tb_free(t);
  free(x);
  free(y);
  free(a);
  free(xd);
  free(yd);
  free(ad);
}
END_TEST

/* ==== relational functions =============================================== */

enum rfn {
  R_ISEQUAL, R_ISNOTEQUAL, R_ISGREATER, R_ISGREATEREQUAL, R_ISLESS,
  R_ISLESSEQUAL, R_ISLESSGREATER, R_ISORDERED, R_ISUNORDERED, R_SIGNBIT,
  R_ISFINITE, R_ISINF, R_ISNAN, R_ISNORMAL, R_COUNT_
};
static const char *const rfn_name[R_COUNT_] = {
  "isequal", "isnotequal", "isgreater", "isgreaterequal", "isless",
  "islessequal", "islessgreater", "isordered", "isunordered", "signbit",
  "isfinite", "isinf", "isnan", "isnormal"};

static fg_expr *rcall(int f, fg_expr *x, fg_expr *y) {
  switch (f) {
  case R_ISEQUAL: return fg_isequal(x, y);
  case R_ISNOTEQUAL: return fg_isnotequal(x, y);
  case R_ISGREATER: return fg_isgreater(x, y);
  case R_ISGREATEREQUAL: return fg_isgreaterequal(x, y);
  case R_ISLESS: return fg_isless(x, y);
  case R_ISLESSEQUAL: return fg_islessequal(x, y);
  case R_ISLESSGREATER: return fg_islessgreater(x, y);
  case R_ISORDERED: return fg_isordered(x, y);
  case R_ISUNORDERED: return fg_isunordered(x, y);
  case R_SIGNBIT: return fg_signbit(x);
  case R_ISFINITE: return fg_isfinite(x);
  case R_ISINF: return fg_isinf(x);
  case R_ISNAN: return fg_isnan(x);
  default: return fg_isnormal(x);
  }
}

/* The truth of relational f at (x, y), from IEEE comparisons and the
 * value's class, written without the C library's macros. */
static bool rref(int f, double x, double y, bool dbl) {
  bool un = x != x || y != y;
  double ax = fabs(x);
  switch (f) {
  case R_ISEQUAL: return !un && x == y;
  case R_ISNOTEQUAL: return un || x != y;
  case R_ISGREATER: return !un && x > y;
  case R_ISGREATEREQUAL: return !un && x >= y;
  case R_ISLESS: return !un && x < y;
  case R_ISLESSEQUAL: return !un && x <= y;
  case R_ISLESSGREATER: return !un && (x < y || x > y);
  case R_ISORDERED: return !un;
  case R_ISUNORDERED: return un;
  case R_SIGNBIT: {
    uint64_t bitsd;
    float xf = (float)x;
    uint32_t bitsf;
    memcpy(&bitsd, &x, sizeof bitsd);
    memcpy(&bitsf, &xf, sizeof bitsf);
    return dbl ? bitsd >> 63 : bitsf >> 31;
  }
  case R_ISFINITE: return x == x && ax <= (dbl ? DBL_MAX : FLT_MAX);
  case R_ISINF: return ax > (dbl ? DBL_MAX : FLT_MAX) && x == x;
  case R_ISNAN: return x != x;
  default: return ax >= (dbl ? DBL_MIN : FLT_MIN) &&
                  ax <= (dbl ? DBL_MAX : FLT_MAX);
  }
}

/* An input of n tensors of (e, w) filled with random integers whose
 * components' most significant bits are all clear (tensor i % 4 == 0),
 * all set (1) or random. */
static void *msb_data(fg_elem e, int w, int n) {
  void *p = malloc((size_t)(n * w) * fg_elem_size(e));
  for (int i = 0; i < n; i++)
    for (int c = 0; c < w; c++) {
      i128 v = wrap((i128)rnd(), e);
      if (i % 4 == 0 && v < 0)
        v = -(v + 1);
      if (i % 4 == 1 && v >= 0)
        v = -v - 1;
      set_i(p, e, (size_t)(i * w + c), v);
    }
  return p;
}

START_TEST(test_builtins_relational) {
  enum { M = 144, N = M / 4, NS = 72 };
  const float fe[12] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -1.0f,
                        FLT_MIN, 1e-40f, -FLT_MAX, 3.5f, -NAN};
  const double de[12] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0,
                         DBL_MIN, 4.9406564584124654e-324, -DBL_MAX, 3.5,
                         -NAN};
  float x[M], y[M];
  double xd[M], yd[M];
  for (int i = 0; i < M; i++) {
    x[i] = fe[i % 12];
    y[i] = fe[i / 12];
    xd[i] = de[i % 12];
    yd[i] = de[i / 12];
  }
  tb *t = tb_new("relational");
  fg_field *fx = tb_input(t, FG_F32, 4, N, x);
  fg_field *fy = tb_input(t, FG_F32, 4, N, y);
  fg_field *fxd = tb_input(t, FG_F64, 1, M, xd);
  fg_field *fyd = tb_input(t, FG_F64, 1, M, yd);
  fg_field *fxd2 = tb_input(t, FG_F64, 2, M / 2, xd);
  fg_field *fyd2 = tb_input(t, FG_F64, 2, M / 2, yd);
  /* float4 -> int4 masks: the ten binary ones (and signbit), then the
   * four classifications */
  ot i4[10], i1[10], l2[5];
  for (int i = 0; i < 10; i++) {
    i4[i] = (ot){FG_I32, 4};
    i1[i] = (ot){FG_I32, 1};
  }
  for (int i = 0; i < 5; i++)
    l2[i] = (ot){FG_I64, 2};
  fg_op *op = tb_begin(t, "r1", N, 10, i4);
  fg_expr *a = fg_read_tensor(op, fx), *b = fg_read_tensor(op, fy);
  for (int f = 0; f < 10; f++)
    fg_write_tensor(op, f, rcall(f, a, b));
  int r1 = tb_end(t, op, N, 10, i4);
  op = tb_begin(t, "r2", N, 4, i4);
  a = fg_read_tensor(op, fx);
  for (int f = 0; f < 4; f++)
    fg_write_tensor(op, f, rcall(R_ISFINITE + f, a, NULL));
  int r2 = tb_end(t, op, N, 4, i4);
  /* double -> int (1 or 0) */
  op = tb_begin(t, "r3", M, 10, i1);
  a = fg_read_tensor(op, fxd);
  b = fg_read_tensor(op, fyd);
  for (int f = 0; f < 10; f++)
    fg_write_tensor(op, f, rcall(f + (f >= 6 ? 4 : 0), a, b));
  int r3 = tb_end(t, op, M, 10, i1);
  /* double2 -> long2 masks */
  op = tb_begin(t, "r4", M / 2, 5, l2);
  a = fg_read_tensor(op, fxd2);
  b = fg_read_tensor(op, fyd2);
  static const int f4[5] = {R_ISLESS, R_ISFINITE, R_ISINF, R_ISNAN,
                            R_ISNORMAL};
  for (int f = 0; f < 5; f++)
    fg_write_tensor(op, f, rcall(f4[f], a, b));
  int r4 = tb_end(t, op, M / 2, 5, l2);

  /* any / all over signed integers of every size */
  void *c4 = msb_data(FG_I8, 4, NS), *s1 = msb_data(FG_I32, 1, NS);
  void *q2 = msb_data(FG_I64, 2, NS), *h3 = msb_data(FG_I16, 3, NS);
  fg_field *fc4 = tb_input(t, FG_I8, 4, NS, c4);
  fg_field *fs1 = tb_input(t, FG_I32, 1, NS, s1);
  fg_field *fq2 = tb_input(t, FG_I64, 2, NS, q2);
  fg_field *fh3 = tb_input(t, FG_I16, 3, NS, h3);
  op = tb_begin(t, "anyall", NS, 8, i1);
  fg_expr *v[4] = {fg_read_tensor(op, fc4), fg_read_tensor(op, fs1),
                   fg_read_tensor(op, fq2), fg_read_tensor(op, fh3)};
  for (int k = 0; k < 4; k++) {
    fg_write_tensor(op, 2 * k, fg_any(v[k]));
    fg_write_tensor(op, 2 * k + 1, fg_all(v[k]));
  }
  int ra = tb_end(t, op, NS, 8, i1);

  /* bitselect and select */
  void *ua = msb_data(FG_U32, 1, NS), *ub = msb_data(FG_U32, 1, NS);
  void *uc = msb_data(FG_U32, 1, NS);
  float *fa = malloc(NS * 4 * sizeof *fa), *fb = malloc(NS * 4 * sizeof *fb);
  double *da = malloc(NS * 2 * sizeof *da), *db = malloc(NS * 2 * sizeof *db);
  for (int i = 0; i < NS * 4; i++) {
    fa[i] = (float)rndf(-100, 100);
    fb[i] = (float)rndf(-100, 100);
  }
  for (int i = 0; i < NS * 2; i++) {
    da[i] = rndf(-100, 100);
    db[i] = rndf(-100, 100);
  }
  void *ic4 = msb_data(FG_I32, 4, NS), *uc4 = msb_data(FG_U32, 4, NS);
  void *sa = msb_data(FG_I32, 1, NS), *sb = msb_data(FG_I32, 1, NS);
  int32_t *sc = malloc(NS * sizeof *sc);
  for (int i = 0; i < NS; i++)      /* scalar select tests c != 0 */
    sc[i] = i % 3 == 0 ? 0 : i % 3 == 1 ? 1 << (i % 31) : -(i + 1);
  void *ha = msb_data(FG_U8, 4, NS), *hb = msb_data(FG_U8, 4, NS);
  void *hc = msb_data(FG_I8, 4, NS), *lc = msb_data(FG_I64, 2, NS);
  void *ulc = msb_data(FG_U64, 2, NS);
  void *wa = msb_data(FG_I16, 3, NS), *wb = msb_data(FG_I16, 3, NS);
  void *wc = msb_data(FG_U16, 3, NS);
  fg_field *fua = tb_input(t, FG_U32, 1, NS, ua);
  fg_field *fub = tb_input(t, FG_U32, 1, NS, ub);
  fg_field *fuc = tb_input(t, FG_U32, 1, NS, uc);
  fg_field *ffa = tb_input(t, FG_F32, 4, NS, fa);
  fg_field *ffb = tb_input(t, FG_F32, 4, NS, fb);
  fg_field *fic4 = tb_input(t, FG_I32, 4, NS, ic4);
  fg_field *fuc4 = tb_input(t, FG_U32, 4, NS, uc4);
  fg_field *fsa = tb_input(t, FG_I32, 1, NS, sa);
  fg_field *fsb = tb_input(t, FG_I32, 1, NS, sb);
  fg_field *fsc = tb_input(t, FG_I32, 1, NS, sc);
  fg_field *fha = tb_input(t, FG_U8, 4, NS, ha);
  fg_field *fhb = tb_input(t, FG_U8, 4, NS, hb);
  fg_field *fhc = tb_input(t, FG_I8, 4, NS, hc);
  fg_field *fda = tb_input(t, FG_F64, 2, NS, da);
  fg_field *fdb = tb_input(t, FG_F64, 2, NS, db);
  fg_field *flc = tb_input(t, FG_I64, 2, NS, lc);
  fg_field *fulc = tb_input(t, FG_U64, 2, NS, ulc);
  fg_field *fwa = tb_input(t, FG_I16, 3, NS, wa);
  fg_field *fwb = tb_input(t, FG_I16, 3, NS, wb);
  fg_field *fwc = tb_input(t, FG_U16, 3, NS, wc);
  ot os[10] = {{FG_U32, 1}, {FG_F32, 4}, {FG_F32, 4}, {FG_F32, 4},
               {FG_I32, 1}, {FG_U8, 4}, {FG_F64, 2}, {FG_F64, 2},
               {FG_F32, 1}, {FG_I16, 3}};
  op = tb_begin(t, "select", NS, 10, os);
  fg_expr *fva = fg_read_tensor(op, ffa), *fvb = fg_read_tensor(op, ffb);
  fg_expr *dva = fg_read_tensor(op, fda), *dvb = fg_read_tensor(op, fdb);
  fg_write_tensor(op, 0, fg_bitselect(fg_read_tensor(op, fua),
                                      fg_read_tensor(op, fub),
                                      fg_read_tensor(op, fuc)));
  fg_write_tensor(op, 1, fg_bitselect(fva, fvb,
                                      fg_as_float4(fg_read_tensor(op, fuc4))));
  fg_write_tensor(op, 2, fg_select(fva, fvb, fg_read_tensor(op, fic4)));
  fg_write_tensor(op, 3, fg_select(fva, fvb, fg_read_tensor(op, fuc4)));
  fg_write_tensor(op, 4, fg_select(fg_read_tensor(op, fsa),
                                   fg_read_tensor(op, fsb),
                                   fg_read_tensor(op, fsc)));
  fg_write_tensor(op, 5, fg_select(fg_read_tensor(op, fha),
                                   fg_read_tensor(op, fhb),
                                   fg_read_tensor(op, fhc)));
  fg_write_tensor(op, 6, fg_select(dva, dvb, fg_read_tensor(op, flc)));
  fg_write_tensor(op, 7, fg_bitselect(dva, dvb,
                                      fg_as_double2(fg_read_tensor(op, fulc))));
  fg_write_tensor(op, 8, fg_select(fg_swizzle(fva, "x"), fg_swizzle(fvb, "y"),
                                   fg_read_tensor(op, fsc)));
  fg_write_tensor(op, 9, fg_select(fg_read_tensor(op, fwa),
                                   fg_read_tensor(op, fwb),
                                   fg_read_tensor(op, fwc)));
  int rs = tb_end(t, op, NS, 10, os);
  tb_run(t);

  for (int i = 0; i < M; i++) {
    for (int f = 0; f < R_COUNT_; f++) {
      int vf = f < 10 ? ((int32_t *)t->out[r1 + f])[i]
                      : ((int32_t *)t->out[r2 + f - 10])[i];
      int want = rref(f, x[i], y[i], false) ? -1 : 0;
      ck_assert_msg(vf == want, "%s(%g, %g) on float4 = %d, want %d",
                    rfn_name[f], x[i], y[i], vf, want);
    }
    for (int k = 0; k < 10; k++) {
      int f = k + (k >= 6 ? 4 : 0);
      int vd = ((int32_t *)t->out[r3 + k])[i];
      int want = rref(f, xd[i], yd[i], true) ? 1 : 0;
      ck_assert_msg(vd == want, "%s(%g, %g) on double = %d, want %d",
                    rfn_name[f], xd[i], yd[i], vd, want);
    }
    for (int k = 0; k < 5; k++) {
      int64_t vl = ((int64_t *)t->out[r4 + k])[i];
      int64_t want = rref(f4[k], xd[i], yd[i], true) ? -1 : 0;
      ck_assert_msg(vl == want, "%s(%g, %g) on double2 = %lld, want %lld",
                    rfn_name[f4[k]], xd[i], yd[i], (long long)vl,
                    (long long)want);
    }
  }
  /* any / all: the most significant bits of the components */
  const void *av[4] = {c4, s1, q2, h3};
  const fg_elem ae[4] = {FG_I8, FG_I32, FG_I64, FG_I16};
  const int aw[4] = {4, 1, 2, 3};
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < NS; i++) {
      int any = 0, all = 1;
      for (int c = 0; c < aw[k]; c++) {
        bool msb = get_i(av[k], ae[k], (size_t)(i * aw[k] + c)) < 0;
        any |= msb;
        all &= msb;
      }
      int ga = ((int32_t *)t->out[ra + 2 * k])[i];
      int gl = ((int32_t *)t->out[ra + 2 * k + 1])[i];
      ck_assert_msg(ga == any && gl == all, "any/all on %s%d tensor %d = "
                    "%d/%d, want %d/%d", fg_elem_name(ae[k]), aw[k], i, ga,
                    gl, any, all);
    }
  /* bitselect: bits of b where c has 1s; select: the MSB of each vector
   * component (c ? b : a for scalars) */
  for (int i = 0; i < NS; i++) {
    uint32_t u0 = ((uint32_t *)ua)[i], u1 = ((uint32_t *)ub)[i];
    uint32_t u2 = ((uint32_t *)uc)[i];
    ck_assert_uint_eq(((uint32_t *)t->out[rs])[i], (u0 & ~u2) | (u1 & u2));
    for (int c = 0; c < 4; c++) {
      int j = i * 4 + c;
      uint32_t bx, by, bg, cm = ((uint32_t *)uc4)[j];
      memcpy(&bx, &fa[j], 4);
      memcpy(&by, &fb[j], 4);
      memcpy(&bg, &((float *)t->out[rs + 1])[j], 4);
      ck_assert_uint_eq(bg, (bx & ~cm) | (by & cm));
      float s2 = ((float *)t->out[rs + 2])[j];
      float s3 = ((float *)t->out[rs + 3])[j];
      ck_assert(s2 == (((int32_t *)ic4)[j] < 0 ? fb[j] : fa[j]));
      ck_assert(s3 == (cm >> 31 ? fb[j] : fa[j]));
      uint8_t h = ((uint8_t *)t->out[rs + 5])[j];
      ck_assert_uint_eq(h, ((int8_t *)hc)[j] < 0 ? ((uint8_t *)hb)[j]
                                                 : ((uint8_t *)ha)[j]);
    }
    ck_assert_int_eq(((int32_t *)t->out[rs + 4])[i],
                     sc[i] ? ((int32_t *)sb)[i] : ((int32_t *)sa)[i]);
    for (int c = 0; c < 2; c++) {
      int j = i * 2 + c;
      double d6 = ((double *)t->out[rs + 6])[j];
      ck_assert(d6 == (((int64_t *)lc)[j] < 0 ? db[j] : da[j]));
      uint64_t bx, by, bg, cm = ((uint64_t *)ulc)[j];
      memcpy(&bx, &da[j], 8);
      memcpy(&by, &db[j], 8);
      memcpy(&bg, &((double *)t->out[rs + 7])[j], 8);
      ck_assert(bg == ((bx & ~cm) | (by & cm)));
    }
    float f8 = ((float *)t->out[rs + 8])[i];
    ck_assert(f8 == (sc[i] ? fb[i * 4 + 1] : fa[i * 4]));
    for (int c = 0; c < 3; c++) {
      int j = i * 3 + c;
      ck_assert_int_eq(((int16_t *)t->out[rs + 9])[j],
                       ((uint16_t *)wc)[j] >> 15 ? ((int16_t *)wb)[j]
                                                 : ((int16_t *)wa)[j]);
    }
  }
  tb_free(t);
  void *bufs[] = {c4, s1, q2, h3, ua, ub, uc, fa, fb, da, db, ic4, uc4, sa,
                  sb, sc, ha, hb, hc, lc, ulc, wa, wb, wc};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    free(bufs[i]);
}
END_TEST

/* ==== vector literals ==================================================== */

/* An expression and the type it must have. */
typedef struct tycase {
  fg_expr *x;
  fg_elem e;
  int w;
} tycase;

static void check_types(fg_graph *g, const tycase *c, int n,
                        const char *what) {
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s: %s", what,
                fg_graph_errmsg(g));
  for (int i = 0; i < n; i++) {
    ck_assert_msg(c[i].x != NULL, "%s %d: NULL", what, i);
    ck_assert_msg(fg_expr_elem(c[i].x) == c[i].e &&
                  fg_expr_width(c[i].x) == c[i].w,
                  "%s %d: %s%d, want %s%d", what, i,
                  fg_elem_name(fg_expr_elem(c[i].x)), fg_expr_width(c[i].x),
                  fg_elem_name(c[i].e), c[i].w);
  }
}

START_TEST(test_builtins_vector_literal) {
  /* every fg_<type><n> macro, from one scalar and from n scalars */
  fg_graph *g = fg_graph_new("literals");
  fg_op *op = fg_op_begin(g, "types", 1,
                          (fg_type[]){fg_type_scalar(FG_F32, fg_shape1(4))});
  fg_expr *sc = fg_var(op, FG_I32, 1);
  tycase all[] = {
    {fg_char2(sc), FG_I8, 2}, {fg_char2(sc, sc), FG_I8, 2},
    {fg_char3(sc), FG_I8, 3}, {fg_char3(sc, sc, sc), FG_I8, 3},
    {fg_char4(sc), FG_I8, 4}, {fg_char4(sc, sc, sc, sc), FG_I8, 4},
    {fg_uchar2(sc), FG_U8, 2}, {fg_uchar2(sc, sc), FG_U8, 2},
    {fg_uchar3(sc), FG_U8, 3}, {fg_uchar3(sc, sc, sc), FG_U8, 3},
    {fg_uchar4(sc), FG_U8, 4}, {fg_uchar4(sc, sc, sc, sc), FG_U8, 4},
    {fg_short2(sc), FG_I16, 2}, {fg_short2(sc, sc), FG_I16, 2},
    {fg_short3(sc), FG_I16, 3}, {fg_short3(sc, sc, sc), FG_I16, 3},
    {fg_short4(sc), FG_I16, 4}, {fg_short4(sc, sc, sc, sc), FG_I16, 4},
    {fg_ushort2(sc), FG_U16, 2}, {fg_ushort2(sc, sc), FG_U16, 2},
    {fg_ushort3(sc), FG_U16, 3}, {fg_ushort3(sc, sc, sc), FG_U16, 3},
    {fg_ushort4(sc), FG_U16, 4}, {fg_ushort4(sc, sc, sc, sc), FG_U16, 4},
    {fg_int2(sc), FG_I32, 2}, {fg_int2(sc, sc), FG_I32, 2},
    {fg_int3(sc), FG_I32, 3}, {fg_int3(sc, sc, sc), FG_I32, 3},
    {fg_int4(sc), FG_I32, 4}, {fg_int4(sc, sc, sc, sc), FG_I32, 4},
    {fg_uint2(sc), FG_U32, 2}, {fg_uint2(sc, sc), FG_U32, 2},
    {fg_uint3(sc), FG_U32, 3}, {fg_uint3(sc, sc, sc), FG_U32, 3},
    {fg_uint4(sc), FG_U32, 4}, {fg_uint4(sc, sc, sc, sc), FG_U32, 4},
    {fg_long2(sc), FG_I64, 2}, {fg_long2(sc, sc), FG_I64, 2},
    {fg_long3(sc), FG_I64, 3}, {fg_long3(sc, sc, sc), FG_I64, 3},
    {fg_long4(sc), FG_I64, 4}, {fg_long4(sc, sc, sc, sc), FG_I64, 4},
    {fg_ulong2(sc), FG_U64, 2}, {fg_ulong2(sc, sc), FG_U64, 2},
    {fg_ulong3(sc), FG_U64, 3}, {fg_ulong3(sc, sc, sc), FG_U64, 3},
    {fg_ulong4(sc), FG_U64, 4}, {fg_ulong4(sc, sc, sc, sc), FG_U64, 4},
    {fg_float2(sc), FG_F32, 2}, {fg_float2(sc, sc), FG_F32, 2},
    {fg_float3(sc), FG_F32, 3}, {fg_float3(sc, sc, sc), FG_F32, 3},
    {fg_float4(sc), FG_F32, 4}, {fg_float4(sc, sc, sc, sc), FG_F32, 4},
    {fg_double2(sc), FG_F64, 2}, {fg_double2(sc, sc), FG_F64, 2},
    {fg_double3(sc), FG_F64, 3}, {fg_double3(sc, sc, sc), FG_F64, 3},
    {fg_double4(sc), FG_F64, 4}, {fg_double4(sc, sc, sc, sc), FG_F64, 4},
  };
  check_types(g, all, (int)(sizeof all / sizeof *all), "vector literal");
  fg_graph_free(g);

  enum { N = 64 };
  int32_t s[N];
  float x[N], v2[2 * N];
  uint8_t u2[2 * N];
  int16_t h2[2 * N];
  for (int i = 0; i < N; i++) {
    s[i] = (int32_t)(rnd() % 101);
    x[i] = (float)rndf(-100, 100);
    for (int c = 0; c < 2; c++) {
      v2[2 * i + c] = (float)rndf(-100, 100);
      u2[2 * i + c] = (uint8_t)rnd();
      h2[2 * i + c] = (int16_t)rnd();
    }
  }
  tb *t = tb_new("literals");
  fg_field *fs = tb_input(t, FG_I32, 1, N, s);
  fg_field *fx = tb_input(t, FG_F32, 1, N, x);
  fg_field *fv2 = tb_input(t, FG_F32, 2, N, v2);
  fg_field *fu2 = tb_input(t, FG_U8, 2, N, u2);
  fg_field *fh2 = tb_input(t, FG_I16, 2, N, h2);
  ot o1[10] = {{FG_F32, 2}, {FG_F32, 3}, {FG_F32, 4}, {FG_I32, 2},
               {FG_I32, 3}, {FG_I32, 4}, {FG_U8, 4}, {FG_F64, 2},
               {FG_I64, 3}, {FG_I16, 4}};
  op = tb_begin(t, "lit1", N, 10, o1);
  fg_expr *es = fg_read_tensor(op, fs), *ex = fg_read_tensor(op, fx);
  fg_expr *ev2 = fg_read_tensor(op, fv2), *eu2 = fg_read_tensor(op, fu2);
  fg_expr *eh2 = fg_read_tensor(op, fh2);
  fg_write_tensor(op, 0, fg_float2(ex));
  fg_write_tensor(op, 1, fg_float3(ev2, ex));
  fg_write_tensor(op, 2, fg_float4(ex, ev2, ex));
  fg_write_tensor(op, 3, fg_int2(es, fg_muli(es, 2)));
  fg_write_tensor(op, 4, fg_int3(es));
  fg_write_tensor(op, 5, fg_int4(fg_int2(es, fg_addi(es, 1)),
                                 fg_int2(fg_addi(es, 2), fg_addi(es, 3))));
  fg_write_tensor(op, 6, fg_uchar4(eu2, es, fg_addi(es, 1)));
  fg_write_tensor(op, 7, fg_double2(ex, fg_double(op, 2.5)));
  fg_write_tensor(op, 8, fg_long3(es));
  fg_write_tensor(op, 9, fg_short4(es, eh2, es));
  int k1 = tb_end(t, op, N, 10, o1);
  ot o2[10] = {{FG_I8, 2}, {FG_I8, 3}, {FG_U16, 3}, {FG_U32, 2},
               {FG_U64, 4}, {FG_F64, 4}, {FG_U8, 2}, {FG_I16, 2},
               {FG_I64, 2}, {FG_F64, 3}};
  op = tb_begin(t, "lit2", N, 10, o2);
  es = fg_read_tensor(op, fs);
  ex = fg_read_tensor(op, fx);
  eh2 = fg_read_tensor(op, fh2);
  fg_write_tensor(op, 0, fg_char2(es, fg_neg(es)));
  fg_write_tensor(op, 1, fg_char3(es));
  fg_write_tensor(op, 2, fg_ushort3(es, fg_addi(es, 1), fg_addi(es, 2)));
  fg_write_tensor(op, 3, fg_uint2(es, fg_addi(es, 7)));
  fg_write_tensor(op, 4, fg_ulong4(es, fg_addi(es, 1), fg_addi(es, 2),
                                   fg_addi(es, 3)));
  fg_write_tensor(op, 5, fg_double4(ex, ex, ex, fg_double(op, -1.0)));
  fg_write_tensor(op, 6, fg_uchar2(es));
  fg_write_tensor(op, 7, fg_short2(fg_swizzle(eh2, "yx")));
  fg_write_tensor(op, 8, fg_long2(es, fg_long(op, -5)));
  fg_write_tensor(op, 9, fg_double3(fg_double2(ex, ex), ex));
  int k2 = tb_end(t, op, N, 10, o2);
  tb_run(t);

  for (int i = 0; i < N; i++) {
    int32_t v = s[i];
    float f = x[i], a = v2[2 * i], b = v2[2 * i + 1];
    float w0[2] = {f, f}, w1[3] = {a, b, f}, w2[4] = {f, a, b, f};
    ck_assert(!memcmp(&((float *)t->out[k1])[2 * i], w0, sizeof w0));
    ck_assert(!memcmp(&((float *)t->out[k1 + 1])[3 * i], w1, sizeof w1));
    ck_assert(!memcmp(&((float *)t->out[k1 + 2])[4 * i], w2, sizeof w2));
    int32_t i3[2] = {v, 2 * v}, i4[3] = {v, v, v}, i5[4] = {v, v + 1, v + 2,
                                                           v + 3};
    ck_assert(!memcmp(&((int32_t *)t->out[k1 + 3])[2 * i], i3, sizeof i3));
    ck_assert(!memcmp(&((int32_t *)t->out[k1 + 4])[3 * i], i4, sizeof i4));
    ck_assert(!memcmp(&((int32_t *)t->out[k1 + 5])[4 * i], i5, sizeof i5));
    uint8_t c6[4] = {u2[2 * i], u2[2 * i + 1], (uint8_t)v, (uint8_t)(v + 1)};
    ck_assert(!memcmp(&((uint8_t *)t->out[k1 + 6])[4 * i], c6, sizeof c6));
    double d7[2] = {f, 2.5};
    ck_assert(!memcmp(&((double *)t->out[k1 + 7])[2 * i], d7, sizeof d7));
    int64_t l8[3] = {v, v, v};
    ck_assert(!memcmp(&((int64_t *)t->out[k1 + 8])[3 * i], l8, sizeof l8));
    int16_t s9[4] = {(int16_t)v, h2[2 * i], h2[2 * i + 1], (int16_t)v};
    ck_assert(!memcmp(&((int16_t *)t->out[k1 + 9])[4 * i], s9, sizeof s9));

    int8_t c0[2] = {(int8_t)v, (int8_t)-v}, c1[3] = {(int8_t)v, (int8_t)v,
                                                   (int8_t)v};
    ck_assert(!memcmp(&((int8_t *)t->out[k2])[2 * i], c0, sizeof c0));
    ck_assert(!memcmp(&((int8_t *)t->out[k2 + 1])[3 * i], c1, sizeof c1));
    uint16_t u3[3] = {(uint16_t)v, (uint16_t)(v + 1), (uint16_t)(v + 2)};
    ck_assert(!memcmp(&((uint16_t *)t->out[k2 + 2])[3 * i], u3, sizeof u3));
    uint32_t u4[2] = {(uint32_t)v, (uint32_t)v + 7};
    ck_assert(!memcmp(&((uint32_t *)t->out[k2 + 3])[2 * i], u4, sizeof u4));
    uint64_t u5[4] = {(uint64_t)v, (uint64_t)v + 1, (uint64_t)v + 2,
                      (uint64_t)v + 3};
    ck_assert(!memcmp(&((uint64_t *)t->out[k2 + 4])[4 * i], u5, sizeof u5));
    double d6[4] = {f, f, f, -1.0};
    ck_assert(!memcmp(&((double *)t->out[k2 + 5])[4 * i], d6, sizeof d6));
    uint8_t c7[2] = {(uint8_t)v, (uint8_t)v};
    ck_assert(!memcmp(&((uint8_t *)t->out[k2 + 6])[2 * i], c7, sizeof c7));
    int16_t s8[2] = {h2[2 * i + 1], h2[2 * i]};
    ck_assert(!memcmp(&((int16_t *)t->out[k2 + 7])[2 * i], s8, sizeof s8));
    int64_t l9[2] = {v, -5};
    ck_assert(!memcmp(&((int64_t *)t->out[k2 + 8])[2 * i], l9, sizeof l9));
    double d10[3] = {f, f, f};
    ck_assert(!memcmp(&((double *)t->out[k2 + 9])[3 * i], d10, sizeof d10));
  }
  tb_free(t);
}
END_TEST

/* ==== type conversion and reinterpretation =============================== */

START_TEST(test_builtins_conversion) {
  /* every fg_convert_<type>[n] and fg_as_<type>[n] macro */
  fg_graph *g = fg_graph_new("conversions");
  fg_op *op = fg_op_begin(g, "types", 1,
                          (fg_type[]){fg_type_scalar(FG_F32, fg_shape1(4))});
  fg_expr *sc = fg_var(op, FG_I32, 1), *v2 = fg_var(op, FG_I32, 2);
  fg_expr *v3 = fg_var(op, FG_F32, 3), *v4 = fg_var(op, FG_I32, 4);
  fg_expr *hs = fg_var(op, FG_I16, 1), *bs = fg_var(op, FG_U8, 1);
  fg_expr *l4 = fg_var(op, FG_I64, 4);
  tycase all[] = {
    {fg_convert_char(sc), FG_I8, 1},
    {fg_convert_char2(v2), FG_I8, 2},
    {fg_convert_char3(v3), FG_I8, 3},
    {fg_convert_char4(v4), FG_I8, 4},
    {fg_convert_uchar(sc), FG_U8, 1},
    {fg_convert_uchar2(v2), FG_U8, 2},
    {fg_convert_uchar3(v3), FG_U8, 3},
    {fg_convert_uchar4(v4), FG_U8, 4},
    {fg_convert_short(sc), FG_I16, 1},
    {fg_convert_short2(v2), FG_I16, 2},
    {fg_convert_short3(v3), FG_I16, 3},
    {fg_convert_short4(v4), FG_I16, 4},
    {fg_convert_ushort(sc), FG_U16, 1},
    {fg_convert_ushort2(v2), FG_U16, 2},
    {fg_convert_ushort3(v3), FG_U16, 3},
    {fg_convert_ushort4(v4), FG_U16, 4},
    {fg_convert_int(sc), FG_I32, 1},
    {fg_convert_int2(v2), FG_I32, 2},
    {fg_convert_int3(v3), FG_I32, 3},
    {fg_convert_int4(v4), FG_I32, 4},
    {fg_convert_uint(sc), FG_U32, 1},
    {fg_convert_uint2(v2), FG_U32, 2},
    {fg_convert_uint3(v3), FG_U32, 3},
    {fg_convert_uint4(v4), FG_U32, 4},
    {fg_convert_long(sc), FG_I64, 1},
    {fg_convert_long2(v2), FG_I64, 2},
    {fg_convert_long3(v3), FG_I64, 3},
    {fg_convert_long4(v4), FG_I64, 4},
    {fg_convert_ulong(sc), FG_U64, 1},
    {fg_convert_ulong2(v2), FG_U64, 2},
    {fg_convert_ulong3(v3), FG_U64, 3},
    {fg_convert_ulong4(v4), FG_U64, 4},
    {fg_convert_float(sc), FG_F32, 1},
    {fg_convert_float2(v2), FG_F32, 2},
    {fg_convert_float3(v3), FG_F32, 3},
    {fg_convert_float4(v4), FG_F32, 4},
    {fg_convert_double(sc), FG_F64, 1},
    {fg_convert_double2(v2), FG_F64, 2},
    {fg_convert_double3(v3), FG_F64, 3},
    {fg_convert_double4(v4), FG_F64, 4},
    {fg_as_char(bs), FG_I8, 1},
    {fg_as_char2(hs), FG_I8, 2},
    {fg_as_char3(sc), FG_I8, 3},
    {fg_as_char4(sc), FG_I8, 4},
    {fg_as_uchar(bs), FG_U8, 1},
    {fg_as_uchar2(hs), FG_U8, 2},
    {fg_as_uchar3(sc), FG_U8, 3},
    {fg_as_uchar4(sc), FG_U8, 4},
    {fg_as_short(hs), FG_I16, 1},
    {fg_as_short2(sc), FG_I16, 2},
    {fg_as_short3(v2), FG_I16, 3},
    {fg_as_short4(v2), FG_I16, 4},
    {fg_as_ushort(hs), FG_U16, 1},
    {fg_as_ushort2(sc), FG_U16, 2},
    {fg_as_ushort3(v2), FG_U16, 3},
    {fg_as_ushort4(v2), FG_U16, 4},
    {fg_as_int(sc), FG_I32, 1},
    {fg_as_int2(v2), FG_I32, 2},
    {fg_as_int3(v4), FG_I32, 3},
    {fg_as_int4(v4), FG_I32, 4},
    {fg_as_uint(sc), FG_U32, 1},
    {fg_as_uint2(v2), FG_U32, 2},
    {fg_as_uint3(v4), FG_U32, 3},
    {fg_as_uint4(v4), FG_U32, 4},
    {fg_as_long(v2), FG_I64, 1},
    {fg_as_long2(v4), FG_I64, 2},
    {fg_as_long3(l4), FG_I64, 3},
    {fg_as_long4(l4), FG_I64, 4},
    {fg_as_ulong(v2), FG_U64, 1},
    {fg_as_ulong2(v4), FG_U64, 2},
    {fg_as_ulong3(l4), FG_U64, 3},
    {fg_as_ulong4(l4), FG_U64, 4},
    {fg_as_float(sc), FG_F32, 1},
    {fg_as_float2(v2), FG_F32, 2},
    {fg_as_float3(v4), FG_F32, 3},
    {fg_as_float4(v4), FG_F32, 4},
    {fg_as_double(v2), FG_F64, 1},
    {fg_as_double2(v4), FG_F64, 2},
    {fg_as_double3(l4), FG_F64, 3},
    {fg_as_double4(l4), FG_F64, 4},
  };
  check_types(g, all, (int)(sizeof all / sizeof *all), "conversion");
  fg_graph_free(g);

  enum { N = 64 };
  float x[4 * N];
  int32_t iv[4 * N];
  double d[N];
  uint32_t u[N];
  for (int i = 0; i < 4 * N; i++) {
    x[i] = (float)rndf(-1000, 1000);
    iv[i] = (int32_t)rnd();
  }
  for (int i = 0; i < N; i++) {
    d[i] = rndf(-1e9, 1e9);
    u[i] = (uint32_t)rnd();
  }
  tb *t = tb_new("conversions");
  fg_field *fx = tb_input(t, FG_F32, 4, N, x);
  fg_field *fi = tb_input(t, FG_I32, 4, N, iv);
  fg_field *fd = tb_input(t, FG_F64, 1, N, d);
  fg_field *fu = tb_input(t, FG_U32, 1, N, u);
  ot o1[10] = {{FG_I32, 4}, {FG_F32, 4}, {FG_U8, 4}, {FG_F64, 1},
               {FG_I64, 1}, {FG_I16, 3}, {FG_U32, 4}, {FG_F32, 4},
               {FG_I32, 2}, {FG_I8, 4}};
  op = tb_begin(t, "conv1", N, 10, o1);
  fg_expr *ex = fg_read_tensor(op, fx), *ei = fg_read_tensor(op, fi);
  fg_expr *ed = fg_read_tensor(op, fd), *eu = fg_read_tensor(op, fu);
  fg_write_tensor(op, 0, fg_convert_int4(ex));
  fg_write_tensor(op, 1, fg_convert_float4(ei));
  fg_write_tensor(op, 2, fg_convert_uchar4(ei));
  fg_write_tensor(op, 3, fg_convert_double(fg_swizzle(ex, "x")));
  fg_write_tensor(op, 4, fg_convert_long(ed));
  fg_write_tensor(op, 5, fg_convert_short3(fg_swizzle(ei, "xyz")));
  fg_write_tensor(op, 6, fg_as_uint4(ex));
  fg_write_tensor(op, 7, fg_as_float4(ei));
  fg_write_tensor(op, 8, fg_as_int2(ed));
  fg_write_tensor(op, 9, fg_as_char4(eu));
  int k1 = tb_end(t, op, N, 10, o1);
  ot o2[8] = {{FG_F32, 1}, {FG_U64, 1}, {FG_U16, 2}, {FG_U32, 2},
              {FG_F32, 1}, {FG_F64, 1}, {FG_U64, 3}, {FG_I8, 1}};
  op = tb_begin(t, "conv2", N, 8, o2);
  ex = fg_read_tensor(op, fx);
  ei = fg_read_tensor(op, fi);
  ed = fg_read_tensor(op, fd);
  eu = fg_read_tensor(op, fu);
  fg_write_tensor(op, 0, fg_as_float(fg_swizzle(ei, "w")));
  fg_write_tensor(op, 1, fg_as_ulong(ed));
  fg_write_tensor(op, 2, fg_as_ushort2(eu));
  fg_write_tensor(op, 3, fg_convert_uint2(fg_fabs(fg_swizzle(ex, "zw"))));
  fg_write_tensor(op, 4, fg_convert_float(ed));
  fg_write_tensor(op, 5, fg_as_double(fg_as_long(ed)));
  fg_write_tensor(op, 6, fg_convert_ulong3(fg_swizzle(ei, "xyz")));
  fg_write_tensor(op, 7, fg_convert_char(fg_swizzle(ei, "x")));
  int k2 = tb_end(t, op, N, 8, o2);
  tb_run(t);

  for (int i = 0; i < N; i++) {
    for (int c = 0; c < 4; c++) {
      int j = 4 * i + c;
      ck_assert_int_eq(((int32_t *)t->out[k1])[j], (int32_t)x[j]);
      ck_assert(((float *)t->out[k1 + 1])[j] == (float)iv[j]);
      ck_assert_uint_eq(((uint8_t *)t->out[k1 + 2])[j], (uint8_t)iv[j]);
      uint32_t bx;
      memcpy(&bx, &x[j], 4);
      ck_assert_uint_eq(((uint32_t *)t->out[k1 + 6])[j], bx);
      ck_assert(!memcmp(&((float *)t->out[k1 + 7])[j], &iv[j], 4));
    }
    ck_assert(((double *)t->out[k1 + 3])[i] == (double)x[4 * i]);
    ck_assert_int_eq(((int64_t *)t->out[k1 + 4])[i], (int64_t)d[i]);
    for (int c = 0; c < 3; c++)
      ck_assert_int_eq(((int16_t *)t->out[k1 + 5])[3 * i + c],
                       (int16_t)iv[4 * i + c]);
    ck_assert(!memcmp(&((int32_t *)t->out[k1 + 8])[2 * i], &d[i], 8));
    ck_assert(!memcmp(&((int8_t *)t->out[k1 + 9])[4 * i], &u[i], 4));
    ck_assert(!memcmp(&((float *)t->out[k2])[i], &iv[4 * i + 3], 4));
    ck_assert(!memcmp(&((uint64_t *)t->out[k2 + 1])[i], &d[i], 8));
    ck_assert(!memcmp(&((uint16_t *)t->out[k2 + 2])[2 * i], &u[i], 4));
    for (int c = 0; c < 2; c++)
      ck_assert_uint_eq(((uint32_t *)t->out[k2 + 3])[2 * i + c],
                        (uint32_t)fabsf(x[4 * i + 2 + c]));
    ck_assert(((float *)t->out[k2 + 4])[i] == (float)d[i]);
    ck_assert(((double *)t->out[k2 + 5])[i] == d[i]);
    for (int c = 0; c < 3; c++)
      ck_assert(((uint64_t *)t->out[k2 + 6])[3 * i + c] ==
                (uint64_t)(int64_t)iv[4 * i + c]);
    ck_assert_int_eq(((int8_t *)t->out[k2 + 7])[i], (int8_t)iv[4 * i]);
  }
  tb_free(t);
}
END_TEST

/* ==== type rules ========================================================= */

/* Builds one call on fresh variables of the given types; returns the
 * graph's status (the call's result type through *e, *w). */
static fg_status try_call(const char *fn, int n, const ot *args, fg_elem *e,
                          int *w) {
  fg_graph *g = fg_graph_new("rules");
  fg_op *op = fg_op_begin(g, "rules", 1,
                          (fg_type[]){fg_type_scalar(FG_F32, fg_shape1(4))});
  fg_expr *a[3];
  for (int i = 0; i < n; i++)
    a[i] = fg_var(op, args[i].e, args[i].w);
  fg_expr *r = fg_call(fn, n, a);
  fg_status st = fg_graph_status(g);
  ck_assert_msg((r == NULL) == (st != FG_OK), "%s: result and status "
                "disagree", fn);
  if (r) {
    *e = fg_expr_elem(r);
    *w = fg_expr_width(r);
  }
  fg_graph_free(g);
  return st;
}

START_TEST(test_builtins_type_rules) {
  /* result types, as OpenCL's */
  struct { const char *fn; int n; ot a[3]; ot r; } ok[] = {
    {"abs", 1, {{FG_I8, 4}}, {FG_U8, 4}},
    {"abs_diff", 2, {{FG_I64, 1}, {FG_I64, 1}}, {FG_U64, 1}},
    {"abs", 1, {{FG_U16, 2}}, {FG_U16, 2}},
    {"clz", 1, {{FG_U64, 3}}, {FG_U64, 3}},
    {"mul24", 2, {{FG_U32, 2}, {FG_U32, 2}}, {FG_U32, 2}},
    {"add_sat", 2, {{FG_I16, 4}, {FG_I16, 1}}, {FG_I16, 4}},
    {"nan", 1, {{FG_U32, 1}}, {FG_F32, 1}},
    {"nan", 1, {{FG_U64, 3}}, {FG_F64, 3}},
    {"native_divide", 2, {{FG_F32, 4}, {FG_F32, 1}}, {FG_F32, 4}},
    {"cross", 2, {{FG_F64, 4}, {FG_F64, 4}}, {FG_F64, 4}},
    {"fast_length", 1, {{FG_F32, 4}}, {FG_F32, 1}},
    {"fast_normalize", 1, {{FG_F32, 3}}, {FG_F32, 3}},
    {"normalize", 1, {{FG_F64, 2}}, {FG_F64, 2}},
    {"isnan", 1, {{FG_F32, 3}}, {FG_I32, 3}},
    {"isnan", 1, {{FG_F64, 2}}, {FG_I64, 2}},
    {"isequal", 2, {{FG_F64, 1}, {FG_F64, 1}}, {FG_I32, 1}},
    {"signbit", 1, {{FG_F32, 1}}, {FG_I32, 1}},
    {"any", 1, {{FG_I16, 3}}, {FG_I32, 1}},
    {"all", 1, {{FG_I64, 1}}, {FG_I32, 1}},
    {"bitselect", 3, {{FG_F32, 2}, {FG_F32, 2}, {FG_F32, 2}}, {FG_F32, 2}},
    {"select", 3, {{FG_U8, 4}, {FG_U8, 4}, {FG_I8, 4}}, {FG_U8, 4}},
    {"select", 3, {{FG_F64, 2}, {FG_F64, 2}, {FG_U64, 2}}, {FG_F64, 2}},
    {"select", 3, {{FG_F32, 1}, {FG_F32, 1}, {FG_I32, 1}}, {FG_F32, 1}},
    {"max", 2, {{FG_I8, 4}, {FG_I8, 1}}, {FG_I8, 4}},
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    fg_elem e = FG_BOOL;
    int w = 0;
    fg_status st = try_call(ok[i].fn, ok[i].n, ok[i].a, &e, &w);
    ck_assert_msg(st == FG_OK, "%s case %zu refused", ok[i].fn, i);
    ck_assert_msg(e == ok[i].r.e && w == ok[i].r.w, "%s case %zu: %s%d, want "
                  "%s%d", ok[i].fn, i, fg_elem_name(e), w,
                  fg_elem_name(ok[i].r.e), ok[i].r.w);
  }
  /* refused with a type error */
  struct { const char *fn; int n; ot a[3]; } bad[] = {
    {"abs", 1, {{FG_F32, 1}}},                       /* integers only */
    {"mad24", 3, {{FG_I64, 1}, {FG_I64, 1}, {FG_I64, 1}}},  /* 32-bit */
    {"mul24", 2, {{FG_I16, 2}, {FG_I16, 2}}},
    {"clz", 1, {{FG_F64, 1}}},
    {"add_sat", 2, {{FG_I32, 2}, {FG_I32, 4}}},      /* widths differ */
    {"nan", 1, {{FG_I32, 1}}},                       /* unsigned codes */
    {"native_divide", 2, {{FG_F64, 1}, {FG_F64, 1}}},  /* float only */
    {"cross", 2, {{FG_F32, 2}, {FG_F32, 2}}},        /* 3 or 4 wide */
    {"fast_length", 1, {{FG_F64, 4}}},              /* float only */
    {"fast_normalize", 1, {{FG_F64, 1}}},
    {"isnan", 1, {{FG_I32, 1}}},                     /* floats only */
    {"isless", 2, {{FG_F32, 4}, {FG_F64, 4}}},
    {"any", 1, {{FG_U32, 4}}},                       /* signed only */
    {"all", 1, {{FG_F32, 1}}},
    {"select", 3, {{FG_F32, 4}, {FG_F32, 4}, {FG_I16, 4}}},  /* size */
    {"select", 3, {{FG_F32, 4}, {FG_F32, 4}, {FG_I32, 2}}},  /* width */
    {"select", 3, {{FG_F32, 4}, {FG_F32, 4}, {FG_F32, 4}}},  /* integer c */
    {"select", 3, {{FG_I32, 1}, {FG_I32, 1}, {FG_I32, 4}}},
    {"bitselect", 3, {{FG_BOOL, 1}, {FG_BOOL, 1}, {FG_BOOL, 1}}},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    fg_elem e;
    int w;
    fg_status st = try_call(bad[i].fn, bad[i].n, bad[i].a, &e, &w);
    ck_assert_msg(st == FG_ETYPE, "%s bad case %zu: status %d, want a type "
                  "error", bad[i].fn, i, (int)st);
  }
}
END_TEST

/* ==== main =============================================================== */

int main(void) {
  Suite *s = suite_create("builtins");
  TCase *tc = tcase_create("builtins");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_builtins_integer);
  tcase_add_test(tc, test_builtins_math);
  tcase_add_test(tc, test_builtins_geometric);
  tcase_add_test(tc, test_builtins_common);
  tcase_add_test(tc, test_builtins_relational);
  tcase_add_test(tc, test_builtins_vector_literal);
  tcase_add_test(tc, test_builtins_conversion);
  tcase_add_test(tc, test_builtins_type_rules);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
