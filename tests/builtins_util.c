/* tests/builtins_util.c - what the built-in function suites share
 * (tests/builtins_util.h): graphs of one operator with many outputs,
 * integer element access through 128-bit arithmetic, a repeatable random
 * sequence, and comparisons of floating-point results in ulps. */
#include "builtins_util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- building and running a graph --------------------------------------- */

fg_type vtype(fg_elem e, int w, int64_t n) {
  return w == 1 ? fg_type_scalar(e, fg_shape1(n))
                : fg_type_vector(e, fg_shape1(n), w);
}

tb *tb_new(const char *name) {
  tb *t = calloc(1, sizeof *t);
  t->g = fg_graph_new(name);
  return t;
}

/* A graph input of n tensors of (e, w) holding data. */
fg_field *tb_input(tb *t, fg_elem e, int w, int64_t n,
                   const void *data) {
  char name[16];
  ck_assert_int_lt(t->n_in, MAX_IO);
  snprintf(name, sizeof name, "in%d", t->n_in);
  t->in[t->n_in++] = data;
  return fg_input(t->g, name, vtype(e, w, n));
}

/* An operator over n threads with k outputs of the types o. */
fg_op *tb_begin(tb *t, const char *name, int64_t n, int k,
                const ot *o) {
  fg_type ty[FG_MAX_OUTPUTS];
  for (int i = 0; i < k; i++)
    ty[i] = vtype(o[i].e, o[i].w, n);
  return fg_op_begin(t->g, name, k, ty);
}

/* Closes op and makes its k outputs graph outputs with buffers; returns
 * the index of the first in t->out. */
int tb_end(tb *t, fg_op *op, int64_t n, int k, const ot *o) {
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

void tb_run(tb *t) { tu_run(t->g, t->n_in, t->in, t->n_out, t->out); }

void tb_free(tb *t) {
  for (int i = 0; i < t->n_out; i++)
    free(t->out[i]);
  fg_graph_free(t->g);
  free(t);
}

/* ---- element access ----------------------------------------------------- */

int bits(fg_elem e) { return (int)fg_elem_size(e) * 8; }
bool is_signed(fg_elem e) {
  return e == FG_I8 || e == FG_I16 || e == FG_I32 || e == FG_I64;
}
fg_elem unsigned_of(fg_elem e) {
  return is_signed(e) ? (fg_elem)(e + 1) : e;
}
i128 tmin(fg_elem e) {
  return is_signed(e) ? -((i128)1 << (bits(e) - 1)) : 0;
}
i128 tmax(fg_elem e) {
  return is_signed(e) ? ((i128)1 << (bits(e) - 1)) - 1
                      : ((i128)1 << bits(e)) - 1;
}
/* v reduced modulo 2^bits into e's range. */
i128 wrap(i128 v, fg_elem e) {
  int w = bits(e);
  u128 u = (u128)v & (((u128)1 << w) - 1);
  if (is_signed(e) && ((u >> (w - 1)) & 1))
    return (i128)u - ((i128)1 << w);
  return (i128)u;
}
i128 sat(i128 v, fg_elem e) {
  return v < tmin(e) ? tmin(e) : v > tmax(e) ? tmax(e) : v;
}

i128 get_i(const void *p, fg_elem e, size_t i) {
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

void set_i(void *p, fg_elem e, size_t i, i128 v) {
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
const char *i128s(i128 v, char *buf) {
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
uint64_t rnd(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return lcg_state ^ (lcg_state >> 29);
}
/* Uniform in [lo, hi). */
double rndf(double lo, double hi) {
  return lo + (hi - lo) * (double)(rnd() >> 11) / 9007199254740992.0;
}

/* ---- floating-point comparisons ----------------------------------------- */

/* The spacing of floats (double when dbl) at |v|. */
double ulp_at(double v, bool dbl) {
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
bool close_to(double got, long double want, double ulps, double abs,
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
bool same_f(double got, double want) {
  if (isnan(want))
    return isnan(got);
  return got == want && signbit(got) == signbit(want);
}


/* ---- result types -------------------------------------------------------- */

void check_types(fg_graph *g, const tycase *c, int n,
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
