/* tests/check_math.c - accuracy of the single-precision exponential,
 * logarithm, power and cube root built-ins (fg_cbrt, fg_exp, fg_exp2,
 * fg_exp10, fg_log, fg_log2, fg_log10, fg_pow, fg_pown) on the backend
 * $FG_TEST_BACKEND names, in full and relaxed precision, against double
 * precision references from the C library.  Inputs: every 257th float bit
 * pattern (16.7M values, all exponents, both signs, subnormals; every
 * 514th for relaxed precision) plus the special values, and for pow a
 * grid of bases over every exponent times exponents from 2^-200 to 2^200,
 * integers of both parities, and the IEEE edge cases; cbrt, log2 and
 * pow(x, 2.4) on every float of [1/16, 8); pow with constant exponents
 * (a routine of their own) over the sweep; and the full sweep again with
 * kernels built for a machine without FMA.  Full precision is
 * held to OpenCL C's ulp bounds and exact special values (C99 Annex F);
 * relaxed precision to OpenCL C's relaxed-math bounds on finite
 * arguments with normal results.  On the
 * CPU these are the C dialect's own routines (emit/math_c.c), on OpenCL
 * the device's built-ins. */
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double exp10(double);   /* GNU extension math.h hides in C11 */

enum { STRIDE = 257, SLICES = 4, N_UNARY = 7 };

/* ---- measuring ---------------------------------------------------------- */

static float from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* Error of float r against the exact value ref in ulps of the float
 * format at ref (2^-149 below FLT_MIN; an infinite r counts as 2^128).
 * Infinite and NaN references, and zeros, must be met exactly (with the
 * sign of a zero); a reference beyond FLT_MAX is met by an infinity of
 * its sign or by a finite value within the ulps at 2^127. */
static double ulp_error(float r, double ref) {
  if (isnan(ref))
    return isnan(r) ? 0 : INFINITY;
  if (isnan(r))
    return INFINITY;
  if (isinf(ref))
    return r == ref ? 0 : INFINITY;
  if (ref == 0)
    return r == 0 && !signbit(r) == !signbit(ref) ? 0 : INFINITY;
  double a = fabs(ref), u = 0x1p-149;
  if (a >= 0x1p-126) {
    int e;
    frexp(a, &e);
    u = ldexp(1.0, e - 24);
  }
  if (a > FLT_MAX) {
    if (isinf(r) && !signbit(r) == !signbit(ref))
      return 0;
    u = 0x1p104;
  }
  double rr = isinf(r) ? copysign(0x1p128, r) : r;
  return fabs(rr - ref) / u;
}

static bool is_normal_float(double v) {
  return isfinite(v) && fabs(v) >= FLT_MIN && fabs(v) <= FLT_MAX;
}

/* The error seen furthest above (or least below) its bound, and where;
 * starts with bound = INFINITY. */
typedef struct worst {
  double err, bound;
  float x, y, got;
  double want;
} worst;

static void note(worst *w, double err, double bound, float x, float y,
                 float got, double want) {
  if (err - bound > w->err - w->bound) {
    w->err = err;
    w->bound = bound;
    w->x = x;
    w->y = y;
    w->got = got;
    w->want = want;
  }
}

/* ---- the unary functions ------------------------------------------------ */

typedef struct unary {
  const char *name;
  double (*ref)(double);
  fg_expr *(*fn)(fg_expr *);
  double full_ulps;       /* OpenCL C, full profile */
  int kind;               /* 0 cbrt, 1 exp-like (scale), 2 log-like */
  double scale;           /* exp: x * scale is the exponent of two */
} unary;

static const unary unaries[N_UNARY] = {
  {"cbrt", cbrt, fg_cbrt, 2, 0, 0},
  {"exp", exp, fg_exp, 3, 1, 1.4426950408889634},
  {"exp2", exp2, fg_exp2, 3, 1, 1.0},
  {"exp10", exp10, fg_exp10, 3, 1, 3.3219280948873623},
  {"log", log, fg_log, 3, 2, 0},
  {"log2", log2, fg_log2, 3, 2, 0},
  {"log10", log10, fg_log10, 3, 2, 0},
};

/* Error of r = f(x) in ulps and the bound it must meet, for full or
 * relaxed precision; false when relaxed math leaves the case undefined
 * (an argument or result that is not a normal float, a log of x <= 0). */
static bool unary_error(const unary *u, bool relaxed, float x, float r,
                        double *err, double *bound) {
  double ref = u->ref((double)x);
  if (!relaxed) {
    *err = ulp_error(r, ref);
    *bound = u->full_ulps;
    return true;
  }
  if (!is_normal_float(x) || !is_normal_float(ref))
    return false;
  *err = ulp_error(r, ref);
  switch (u->kind) {
  case 1:
    /* OpenCL: exp and exp2 <= 3 + floor(|2x|) ulp; exp10 is derived as
     * exp2(x log2 10), so its x is the exponent of two */
    *bound = 3 + floor(fabs(2.0 * x * u->scale));
    return true;
  case 2:
    if (x >= 0.5f && x <= 2.0f) {       /* absolute error <= 2^-21 */
      *err = fabs((double)r - ref) * 0x1p21;
      *bound = 1;
      return true;
    }
    *bound = 3;
    return true;
  default:
    *bound = u->full_ulps;             /* not in the relaxed table */
    return true;
  }
}

static const float unary_specials[] = {
  0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, -NAN,
  0x1p-149f, -0x1p-149f, 0x1.fffffcp-127f, FLT_MIN, -FLT_MIN, FLT_MAX,
  -FLT_MAX, 0.5f, 2.0f, 8.0f, -27.0f, 10.0f, 100.0f, 1e-3f, 88.72283f,
  88.72284f, -87.33654f, -103.97208f, -103.972084f, 128.0f, -149.0f,
  -150.0f, 127.99999f, 38.53184f, -44.85346f, 0x1.000002p0f,
  0x1.fffffep-1f,
  /* where the float routines change path: cbrt scales below 2^-60, the
   * exponent saturates beyond +-192, logs scale the subnormals */
  0x1p-60f, 0x1.fffffep-61f, -0x1p-60f, -0x1.fffffep-61f, 192.0f, -192.0f,
  191.99998f, -191.99998f, 0x1.fffffcp-127f, -0x1.fffffcp-127f, 0x1p-127f,
};

/* Runs the seven unary functions on a scalar float field over every
 * stride-th bit pattern (in SLICES runs of one compiled program) and the
 * special values, and asserts each function's bound. */
static void check_unary(fg_precision prec, int stride) {
  bool relaxed = prec == FG_PRECISION_RELAXED;
  const int64_t n_sweep = ((int64_t)1 << 32) / stride / SLICES + 1;
  const int n_spec = (int)(sizeof unary_specials / sizeof *unary_specials);
  const int64_t n = n_sweep + n_spec;
  fg_graph *g = fg_graph_new("math_unary");
  fg_type ft = fg_type_scalar(FG_F32, fg_shape1(n));
  fg_field *in = fg_input(g, "x", ft);
  fg_type ot[N_UNARY];
  for (int i = 0; i < N_UNARY; i++)
    ot[i] = ft;
  fg_op *op = fg_op_begin(g, "unary", N_UNARY, ot);
  fg_expr *x = fg_read_tensor(op, in);
  for (int i = 0; i < N_UNARY; i++)
    fg_write_tensor(op, i, unaries[i].fn(x));
  fg_op_end(op);
  for (int i = 0; i < N_UNARY; i++) {
    char name[16];
    snprintf(name, sizeof name, "y%d", i);
    fg_output(g, name, fg_op_output(op, i));
  }
  fg_context *ctx = tu_context();
  ck_assert_msg(fg_graph_status(g) == FG_OK, "graph: %s", fg_graph_errmsg(g));
  fg_compile_options opt = {.precision = prec};
  fg_program *p = NULL;
  ck_assert_msg(fg_compile(ctx, g, &opt, &p) == FG_OK, "fg_compile: %s",
                fg_context_errmsg(ctx));

  float *xs = malloc((size_t)n * sizeof *xs);
  float *ys[N_UNARY];
  void *outs[N_UNARY];
  for (int i = 0; i < N_UNARY; i++)
    outs[i] = ys[i] = malloc((size_t)n * sizeof **ys);
  worst w[N_UNARY];
  for (int i = 0; i < N_UNARY; i++)
    w[i] = (worst){.bound = INFINITY};
  int64_t checked[N_UNARY] = {0};
  for (int s = 0; s < SLICES; s++) {
    for (int64_t j = 0; j < n_sweep; j++) {
      uint64_t b = ((uint64_t)s * n_sweep + (uint64_t)j) * (uint64_t)stride;
      xs[j] = from_bits((uint32_t)b);     /* wraps past 2^32: fine */
    }
    memcpy(xs + n_sweep, unary_specials, sizeof unary_specials);
    const void *ins[1] = {xs};
    fg_status st = fg_program_run(p, 1, ins, N_UNARY, outs);
    ck_assert_msg(st == FG_OK, "run: %s", fg_context_errmsg(ctx));
    for (int i = 0; i < N_UNARY; i++)
      for (int64_t j = 0; j < n; j++) {
        double err, bound;
        if (!unary_error(&unaries[i], relaxed, xs[j], ys[i][j], &err, &bound))
          continue;
        checked[i]++;
        note(&w[i], err, bound, xs[j], 0, ys[i][j],
             unaries[i].ref((double)xs[j]));
      }
  }
  for (int i = 0; i < N_UNARY; i++) {
    printf("%s %s: max error %.3f (bound %.0f) over %ld inputs\n",
           relaxed ? "relaxed" : "full", unaries[i].name, w[i].err,
           w[i].bound, (long)checked[i]);
    int64_t least = ((int64_t)1 << 32) / stride / (relaxed ? 3 : 1);
    ck_assert_msg(checked[i] > least,
                  "%s: only %ld inputs checked", unaries[i].name,
                  (long)checked[i]);
    ck_assert_msg(w[i].err <= w[i].bound, "%s %s(%a) = %a, want %a: error "
                  "%g > %g", relaxed ? "relaxed" : "full", unaries[i].name,
                  w[i].x, w[i].got, w[i].want, w[i].err, w[i].bound);
  }
  for (int i = 0; i < N_UNARY; i++)
    free(ys[i]);
  free(xs);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
}

START_TEST(test_math_unary_full) { check_unary(FG_PRECISION_FULL, STRIDE); }
END_TEST

/* relaxed: every other pattern of the full sweep's (its bounds are looser
 * and its domain smaller) */
START_TEST(test_math_unary_relaxed) {
  check_unary(FG_PRECISION_RELAXED, 2 * STRIDE);
}
END_TEST

/* ---- pow and pown ------------------------------------------------------- */

static const float pow_x_specials[] = {
  0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 0.5f, -0.5f, 2.0f,
  -2.0f, 0x1p-149f, -0x1p-149f, FLT_MAX, -FLT_MAX, 3.0f, -3.0f, 10.0f,
  0x1.000002p0f, 0x1.fffffep-1f, -0x1.fffffep-1f, 1e-3f, -1e-3f, 1e30f,
};
static const float pow_y_specials[] = {
  0.0f, -0.0f, 1.0f, -1.0f, 2.0f, -2.0f, 3.0f, -3.0f, 0.5f, -0.5f,
  INFINITY, -INFINITY, NAN, 0x1p24f, -0x1p24f, 16777215.0f, -16777215.0f,
  1e10f, 1.5f, 0x1p-149f, 127.0f, -149.0f, 128.0f, 0.25f, 2.4f,
  1.0f / 3, 0x1p31f, -0x1.fffffep127f,
  /* the float pow clamps y to +-2^32 for its product */
  0x1p32f, -0x1p32f, 0x1.000002p32f, -0x1.000002p32f, 0x1p33f, 0x1p25f,
  -0x1p25f, 0x1.fffffep31f,
};
enum { PX = 2048, PY = 512 };
#define N_PX_SPEC (int)(sizeof pow_x_specials / sizeof *pow_x_specials)
#define N_PY_SPEC (int)(sizeof pow_y_specials / sizeof *pow_y_specials)

/* x of the grid: every exponent and both signs (bit patterns spaced by a
 * prime); y: magnitudes 2^-200..2^200 (zero beyond float's range is
 * skipped), alternating signs, every 7th an integer in [-150, 150]. */
static float grid_x(int i) {
  return i < N_PX_SPEC ? pow_x_specials[i]
                       : from_bits((uint32_t)(i - N_PX_SPEC) * 2097143u);
}
static float grid_y(int j) {
  if (j < N_PY_SPEC)
    return pow_y_specials[j];
  j -= N_PY_SPEC;
  if (j % 7 == 0)
    return (float)(j % 301 - 150);
  float y = (float)ldexp(1.0 + (j % 13) / 13.0, (j * 83) % 253 - 126);
  return j & 1 ? -y : y;
}

/* pown(x, n) of the grid: n = (int)y where y is an integer within int's
 * range, else the grid's index as an integer. */
static int grid_n(float y, int j) {
  return y == rintf(y) && fabsf(y) < 0x1p30f ? (int)y : j % 301 - 150;
}

/* Runs pow and pown on float4 fields (every lane through the vector
 * helper) over the grid and the special values and asserts the bounds:
 * full precision 16 ulp and special values as C99; relaxed precision
 * (OpenCL derives pow as exp2(y log2 x)) 8192 ulp, OpenCL's bound for a
 * non-derived pow, for x > 0 or x < 0 with an integer y, normal x and
 * results. */
static void check_pow(fg_precision prec) {
  bool relaxed = prec == FG_PRECISION_RELAXED;
  const int nx = PX + N_PX_SPEC, ny = PY + N_PY_SPEC;
  const int64_t n = (int64_t)nx * ny, n4 = (n + 3) / 4;
  float *xs = calloc((size_t)n4 * 4, sizeof *xs);
  float *ys = calloc((size_t)n4 * 4, sizeof *ys);
  int32_t *ns = calloc((size_t)n4 * 4, sizeof *ns);
  float *r_pow = calloc((size_t)n4 * 4, sizeof *r_pow);
  float *r_pown = calloc((size_t)n4 * 4, sizeof *r_pown);
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      int64_t k = (int64_t)i * ny + j;
      xs[k] = grid_x(i);
      ys[k] = grid_y(j);
      ns[k] = grid_n(ys[k], j);
    }
  fg_graph *g = fg_graph_new("math_pow");
  fg_type t4 = fg_type_vector(FG_F32, fg_shape1(n4), 4);
  fg_field *fx = fg_input(g, "x", t4), *fy = fg_input(g, "y", t4);
  fg_field *fn = fg_input(g, "n", fg_type_vector(FG_I32, fg_shape1(n4), 4));
  fg_op *op = fg_op_begin(g, "pow", 2, (fg_type[]){t4, t4});
  fg_expr *x = fg_read_tensor(op, fx);
  fg_write_tensor(op, 0, fg_pow(x, fg_read_tensor(op, fy)));
  fg_write_tensor(op, 1, fg_pown(x, fg_read_tensor(op, fn)));
  fg_op_end(op);
  fg_output(g, "pow", fg_op_output(op, 0));
  fg_output(g, "pown", fg_op_output(op, 1));
  fg_context *ctx = tu_context();
  ck_assert_msg(fg_graph_status(g) == FG_OK, "graph: %s", fg_graph_errmsg(g));
  fg_compile_options opt = {.precision = prec};
  fg_program *p = NULL;
  ck_assert_msg(fg_compile(ctx, g, &opt, &p) == FG_OK, "fg_compile: %s",
                fg_context_errmsg(ctx));
  const void *ins[3] = {xs, ys, ns};
  void *outs[2] = {r_pow, r_pown};
  fg_status st = fg_program_run(p, 3, ins, 2, outs);
  ck_assert_msg(st == FG_OK, "run: %s", fg_context_errmsg(ctx));

  worst w[2] = {{.bound = INFINITY}, {.bound = INFINITY}};
  int64_t checked = 0;
  double bound = relaxed ? 8192 : 16;
  for (int64_t k = 0; k < n; k++)
    for (int f = 0; f < 2; f++) {
      float xv = xs[k], yv = f ? (float)ns[k] : ys[k];
      float got = f ? r_pown[k] : r_pow[k];
      double ref = pow((double)xv, (double)yv);
      if (relaxed && (!is_normal_float(xv) || !isfinite(yv) ||
                      !is_normal_float(ref) ||
                      (xv < 0 && yv != rintf(yv))))
        continue;
      checked++;
      note(&w[f], ulp_error(got, ref), bound, xv, yv, got, ref);
    }
  static const char *const names[2] = {"pow", "pown"};
  for (int f = 0; f < 2; f++) {
    printf("%s %s: max error %.3f ulp (bound %.0f)\n",
           relaxed ? "relaxed" : "full", names[f], w[f].err, bound);
    ck_assert_msg(w[f].err <= bound, "%s %s(%a, %a) = %a, want %a: error "
                  "%g ulp > %g", relaxed ? "relaxed" : "full", names[f],
                  w[f].x, w[f].y, w[f].got, w[f].want, w[f].err, bound);
  }
  ck_assert_msg(checked > (relaxed ? 300000 : 2000000), "only %ld checked",
                (long)checked);
  free(xs);
  free(ys);
  free(ns);
  free(r_pow);
  free(r_pown);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
}

START_TEST(test_math_pow_full) { check_pow(FG_PRECISION_FULL); }
END_TEST

START_TEST(test_math_pow_relaxed) { check_pow(FG_PRECISION_RELAXED); }
END_TEST

/* ---- pow with an exponent the kernel fixes ------------------------------ */

/* Exponents written as constants (folded ones too: 1 / 2.4, -(1 / 3)),
 * which take the routine for a fixed exponent (emit/math_c.c), with
 * integers of both parities, 2, 1 and -1 (a product, x itself, a
 * quotient), zeros and the ends of its range +-16; the last two are
 * pown's. */
enum { N_KEXP = 20 };

static fg_expr *k_exponent(fg_op *op, int j, double *y) {
  static const float ys[N_KEXP - 5] = {
    2.4f, -2.4f, 1.0f / 3, 0.5f, -0.5f, 2.0f, 3.0f, -3.0f, 16.0f, -16.0f,
    15.5f, 1e-7f, 1.0f, 0.0f, -1.0f};
  if (j < N_KEXP - 5) {
    *y = ys[j];
    return fg_float(op, ys[j]);
  }
  switch (j) {
  case N_KEXP - 5:
    *y = 1.0f / 2.4f;
    return fg_div(fg_float(op, 1.0f), fg_float(op, 2.4f));
  case N_KEXP - 4:
    *y = -(1.0f / 3.0f);
    return fg_neg(fg_div(fg_float(op, 1.0f), fg_float(op, 3.0f)));
  case N_KEXP - 3:
    *y = -0.0;
    return fg_float(op, -0.0f);
  case N_KEXP - 2:
    *y = 5;
    return fg_int(op, 5);
  default:
    *y = -4;
    return fg_int(op, -4);
  }
}

/* pow(x, c) and pown(x, n) for constant exponents over every 257th float
 * bit pattern and the special bases, at full precision: OpenCL's 16 ulp
 * and C99's special values, the same as a run-time exponent; the CPU
 * backend's kernel takes the fixed-exponent routine for each of them. */
static void check_pow_constant(void) {
  const int64_t n = ((int64_t)1 << 32) / STRIDE / SLICES + 1 + N_PX_SPEC;
  fg_graph *g = fg_graph_new("math_pow_k");
  fg_type ft = fg_type_scalar(FG_F32, fg_shape1(n));
  fg_field *in = fg_input(g, "x", ft);
  fg_type outs[N_KEXP / 2];
  for (int j = 0; j < N_KEXP / 2; j++)
    outs[j] = ft;
  double y[N_KEXP];
  for (int half = 0; half < 2; half++) {   /* operators take 10 outputs */
    fg_op *op = fg_op_begin(g, "powk", N_KEXP / 2, outs);
    fg_expr *x = fg_read_tensor(op, in);
    for (int i = 0; i < N_KEXP / 2; i++) {
      int j = half * N_KEXP / 2 + i;
      fg_expr *e = k_exponent(op, j, &y[j]);
      fg_write_tensor(op, i, j >= N_KEXP - 2 ? fg_pown(x, e) : fg_pow(x, e));
    }
    fg_op_end(op);
    for (int i = 0; i < N_KEXP / 2; i++) {
      char name[16];
      snprintf(name, sizeof name, "p%d", half * N_KEXP / 2 + i);
      fg_output(g, name, fg_op_output(op, i));
    }
  }
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  const char *backend = getenv("FG_TEST_BACKEND");
  for (int k = 0; (!backend || strcmp(backend, "opencl")) &&
                  k < fg_program_kernel_count(p); k++) {
    const char *src = fg_program_kernel_source(p, k);
    ck_assert_msg(src && strstr(src, "fgk_math_powkf(") &&
                  !strstr(src, "fgk_math_powf(a"), "kernel %d does not "
                  "take the fixed-exponent pow everywhere", k);
  }
  float *xs = malloc((size_t)n * sizeof *xs), *r[N_KEXP];
  void *rv[N_KEXP];
  for (int j = 0; j < N_KEXP; j++)
    rv[j] = r[j] = malloc((size_t)n * sizeof **r);
  worst w = {.bound = INFINITY};
  int64_t checked = 0;
  for (int slice = 0; slice < SLICES; slice++) {
    uint32_t b = (uint32_t)slice * STRIDE;
    for (int64_t i = 0; i < n; i++)
      if (i < N_PX_SPEC) {
        xs[i] = pow_x_specials[i];
      } else {
        xs[i] = from_bits(b);
        b += STRIDE * SLICES;
      }
    fg_status st = fg_program_run(p, 1, (const void *[]){xs}, N_KEXP, rv);
    ck_assert_msg(st == FG_OK, "run: %s", fg_context_errmsg(ctx));
    for (int64_t i = 0; i < n; i++)
      for (int j = 0; j < N_KEXP; j++) {
        double ref = pow((double)xs[i], y[j]);
        note(&w, ulp_error(r[j][i], ref), 16, xs[i], (float)y[j], r[j][i],
             ref);
        checked++;
      }
  }
  printf("full pow, constant exponents: max error %.3f ulp (bound 16) over "
         "%ld\n", w.err, (long)checked);
  ck_assert_msg(w.err <= w.bound, "pow(%a, %a) = %a, want %a: error %g ulp "
                "> %g", w.x, w.y, w.got, w.want, w.err, w.bound);
  ck_assert_int_eq(checked, (int64_t)SLICES * n * N_KEXP);
  for (int j = 0; j < N_KEXP; j++)
    free(r[j]);
  free(xs);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
}

START_TEST(test_math_pow_constant_exponents) { check_pow_constant(); }
END_TEST

/* ---- every float of a range --------------------------------------------- */

enum { DENSE_SLICE = 1 << 23 };

/* cbrt, log2 and W1's sRGB curve pow(x, 2.4) at full precision on every
 * float of [1/16, 8): seven binades, so every mantissa meets each of the
 * three exponent residues of cbrt's first guess and both halves of the
 * logarithm's reduction; bounds as above, against the C library. */
START_TEST(test_math_dense) {
  const uint32_t lo = 0x3d800000u, hi = 0x41000000u;   /* 1/16, 8 */
  fg_graph *g = fg_graph_new("math_dense");
  fg_type ft = fg_type_scalar(FG_F32, fg_shape1(DENSE_SLICE));
  fg_field *in = fg_input(g, "x", ft);
  fg_op *op = fg_op_begin(g, "dense", 3, (fg_type[]){ft, ft, ft});
  fg_expr *x = fg_read_tensor(op, in);
  fg_write_tensor(op, 0, fg_cbrt(x));
  fg_write_tensor(op, 1, fg_log2(x));
  fg_write_tensor(op, 2, fg_pow(x, fg_float(op, 2.4f)));
  fg_op_end(op);
  fg_output(g, "cbrt", fg_op_output(op, 0));
  fg_output(g, "log2", fg_op_output(op, 1));
  fg_output(g, "pow", fg_op_output(op, 2));
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  float *xs = malloc(DENSE_SLICE * sizeof *xs);
  float *ys[3];
  for (int f = 0; f < 3; f++)
    ys[f] = malloc(DENSE_SLICE * sizeof **ys);
  static const char *const names[3] = {"cbrt", "log2", "pow(x, 2.4)"};
  static const double bounds[3] = {2, 3, 16};
  worst w[3] = {{.bound = INFINITY}, {.bound = INFINITY}, {.bound = INFINITY}};
  int64_t checked = 0;
  for (uint32_t b0 = lo; b0 < hi; b0 += DENSE_SLICE) {
    for (uint32_t j = 0; j < DENSE_SLICE; j++)
      xs[j] = from_bits(b0 + j);
    fg_status st = fg_program_run(p, 1, (const void *[]){xs}, 3,
                                  (void *[]){ys[0], ys[1], ys[2]});
    ck_assert_msg(st == FG_OK, "run: %s", fg_context_errmsg(ctx));
    for (uint32_t j = 0; j < DENSE_SLICE; j++) {
      double xd = xs[j], ref[3] = {cbrt(xd), log2(xd), pow(xd, 2.4f)};
      for (int f = 0; f < 3; f++)
        note(&w[f], ulp_error(ys[f][j], ref[f]), bounds[f], xs[j], 0,
             ys[f][j], ref[f]);
      checked++;
    }
  }
  for (int f = 0; f < 3; f++) {
    printf("dense %s: max error %.3f ulp (bound %.0f) over %ld inputs\n",
           names[f], w[f].err, bounds[f], (long)checked);
    ck_assert_msg(w[f].err <= w[f].bound, "%s(%a) = %a, want %a: error %g "
                  "> %g", names[f], w[f].x, w[f].got, w[f].want, w[f].err,
                  w[f].bound);
  }
  ck_assert_int_eq(checked, hi - lo);
  for (int f = 0; f < 3; f++)
    free(ys[f]);
  free(xs);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* Full precision where the kernels are built for x86-64's baseline, a
 * machine without FMA: the routines' exact products take Dekker's split
 * there, which must meet the same bounds and special values. */
START_TEST(test_math_no_fma) {
  ck_assert_int_eq(setenv("FG_CPU_MARCH", "x86-64", 1), 0);
  check_unary(FG_PRECISION_FULL, 3 * STRIDE);
  check_pow(FG_PRECISION_FULL);
  check_pow_constant();
  unsetenv("FG_CPU_MARCH");
}
END_TEST

/* The C dialect gives a kernel that calls the routines 512-bit vectors
 * where the machine has AVX-512 (16 lanes to the thread loop, a function
 * allowed zmm registers) and a realigned stack for their spills, and a
 * kernel without them nothing of the kind;
 * the values of such kernels are the other tests'. */
START_TEST(test_math_kernels_take_wide_vectors) {
  fg_context *ctx = tu_context();
  for (int math = 0; math < 2; math++) {
    fg_graph *g = fg_graph_new("wide");
    fg_type t = fg_type_vector(FG_F32, fg_shape2(3, 45), 4);
    fg_field *in = fg_input(g, "x", t);
    fg_op *op = fg_op_begin(g, "f", 1, &t);
    fg_expr *x = fg_read_tensor(op, in);
    fg_write_tensor(op, 0, math ? fg_pow(x, fg_float(op, 2.4f))
                                : fg_mulf(x, 2.4f));
    fg_output(g, "y", fg_op_end(op));
    ck_assert_msg(fg_graph_status(g) == FG_OK, "graph: %s",
                  fg_graph_errmsg(g));
    fg_compile_options opt = {.precision = FG_PRECISION_FULL};
    fg_program *p = NULL;
    ck_assert_msg(fg_compile(ctx, g, &opt, &p) == FG_OK, "fg_compile: %s",
                  fg_context_errmsg(ctx));
    const char *src = fg_program_kernel_source(p, 0);
    ck_assert_ptr_nonnull(src);
    bool wide = strstr(src, "FGK_M_THREADS static void fgk_threads(") &&
                strstr(src, "#if defined(__AVX512F__)\n    #pragma clang "
                       "loop vectorize_width(16) interleave_count(2)\n");
    ck_assert_msg(wide == (math == 1), "%s kernel %s 512-bit vectors",
                  math ? "pow" : "multiply", wide ? "asks for" : "lacks");
    /* and realigns its stack for their spills, from the entry on */
    bool realign = strstr(src, "FGK_M_ENTRY void ") != NULL;
    ck_assert_msg(realign == (math == 1), "%s kernel %s its stack",
                  math ? "pow" : "multiply", realign ? "realigns" : "keeps");
    fg_program_free(p);
    fg_graph_free(g);
  }
  tu_context_free(ctx);
}
END_TEST

/* Relaxed precision on an OpenCL CPU device takes the routines' relaxed
 * grade, as the CPU backend does: exp of the same inputs, bit for bit
 * the same on both (the full grade's differ in the last bit of many); its
 * strip loop asks for 16 lanes where the device has AVX-512.  A
 * GPU, which has its own exp, is held to the relaxed bound instead. */
START_TEST(test_math_relaxed_opencl_matches_cpu) {
  enum { N = 1 << 16 };
  float *x = malloc(sizeof(float) * N), *y[2];
  for (int i = 0; i < N; i++)
    x[i] = -80.0f + (float)i * (160.0f / N);
  bool strips = false;
  for (int b = 0; b < 2; b++) {
    fg_graph *g = fg_graph_new("relaxed_exp");
    fg_type t = fg_type_scalar(FG_F32, fg_shape1(N));
    fg_field *in = fg_input(g, "x", t);
    fg_op *op = fg_op_begin(g, "e", 1, &t);
    fg_write_tensor(op, 0, fg_exp(fg_read_tensor(op, in)));
    fg_output(g, "y", fg_op_end(op));
    ck_assert_msg(fg_graph_status(g) == FG_OK, "graph: %s",
                  fg_graph_errmsg(g));
    fg_context *ctx;
    if (b == 0) {
      fg_context_options o = {.backend = FG_BACKEND_CPU};
      char err[1024];
      ck_assert_msg(fg_context_new(&o, &ctx, err, sizeof err) == FG_OK, "%s",
                    err);
    } else {
      ctx = tu_context();
    }
    fg_compile_options opt = {.precision = FG_PRECISION_RELAXED};
    fg_program *p = NULL;
    ck_assert_msg(fg_compile(ctx, g, &opt, &p) == FG_OK, "fg_compile: %s",
                  fg_context_errmsg(ctx));
    if (b == 1) {   /* a CPU device's strips (emit/dialect_cl.c) */
      const char *src = fg_program_kernel_source(p, 0);
      strips = src && strstr(src, "fgk_c0 = ") != NULL;
      /* whose loop calling the routines asks for 16 lanes on AVX-512 */
      ck_assert(!strips || strstr(src, "#if defined(__AVX512F__)\n  #pragma "
                                       "clang loop vectorize_width(16) "
                                       "interleave_count(2)\n"));
    }
    y[b] = malloc(sizeof(float) * N);
    ck_assert_msg(fg_program_run(p, 1, (const void *[]){x}, 1,
                                 (void *[]){y[b]}) == FG_OK, "run: %s",
                  fg_context_errmsg(ctx));
    fg_program_free(p);
    tu_context_free(ctx);
    fg_graph_free(g);
  }
  for (int i = 0; i < N; i++) {
    if (strips)
      ck_assert_msg(!memcmp(&y[0][i], &y[1][i], sizeof(float)),
                    "exp(%a): CPU backend %a, OpenCL %a", (double)x[i],
                    (double)y[0][i], (double)y[1][i]);
    double bound = 3 + floor(fabs(2.0 * x[i]));
    ck_assert_msg(ulp_error(y[1][i], exp((double)x[i])) <= bound,
                  "exp(%a) = %a on OpenCL: beyond %g ulp", (double)x[i],
                  (double)y[1][i], bound);
  }
  free(x);
  free(y[0]);
  free(y[1]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("math");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_math_unary_full);
  tcase_add_test(tc, test_math_unary_relaxed);
  tcase_add_test(tc, test_math_pow_full);
  tcase_add_test(tc, test_math_pow_relaxed);
  tcase_add_test(tc, test_math_dense);
  tcase_add_test(tc, test_math_pow_constant_exponents);
  const char *backend = getenv("FG_TEST_BACKEND");
  bool c_dialect = !backend || strcmp(backend, "opencl");
  if (c_dialect)   /* the C dialect's thread loops */
    tcase_add_test(tc, test_math_kernels_take_wide_vectors);
  else   /* a CPU device's strips against the CPU backend */
    tcase_add_test(tc, test_math_relaxed_opencl_matches_cpu);
#ifdef __x86_64__
  /* the CPU backend builds for the host; FG_CPU_MARCH names an x86 one */
  if (c_dialect)
    tcase_add_test(tc, test_math_no_fma);
#endif
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
