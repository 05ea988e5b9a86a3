/* tests/check_ops_pointwise.c - the pointwise operator library
 * (fieldgraph/ops_pointwise.h) on the backend $FG_TEST_BACKEND names:
 * arithmetic with broadcasting, unary math, select, casts and normalising
 * conversions, channels, colour conversions (on random data and on a real
 * photo, sRGB white and primaries against published L*a*b* values), the
 * 1-D and 3-D tables, fusion of a chain into one kernel, and errors that
 * name the operator.  Every result is checked against a plain C loop here;
 * the tolerance is stated where a result is not exact. */
#include "testutil.h"

#include <math.h>
#include <stdint.h>

static uint32_t rng = 12345;
static uint32_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}
/* uniform in [lo, hi) */
static float rndf(float lo, float hi) {
  return lo + (hi - lo) * (float)(rnd() >> 8) / 16777216.0f;
}

/* |got - want| within rel * |want| + abs. */
static void near(double got, double want, double rel, double abs_,
                 const char *what, size_t i) {
  ck_assert_msg(fabs(got - want) <= rel * fabs(want) + abs_ ||
                    (isnan(got) && isnan(want)),
                "%s [%zu]: %.9g, want %.9g", what, i, got, want);
}

/* ---- arithmetic ------------------------------------------------------------ */

START_TEST(test_ops_binary_f32_every_op) {
  enum { R = 37, C = 53, N = R * C * 4 };
  fg_type t = fg_type_vector(FG_F32, fg_shape2(R, C), 4);
  static const fg_binop ops[] = {
    FG_OP_ADD, FG_OP_SUB, FG_OP_MUL, FG_OP_DIV, FG_OP_MOD, FG_OP_MIN,
    FG_OP_MAX, FG_OP_POW, FG_OP_ATAN2, FG_OP_HYPOT, FG_OP_LT, FG_OP_GE,
    FG_OP_EQ, FG_OP_AND, FG_OP_XOR, FG_OP_ABSDIFF};
  enum { NOPS = sizeof ops / sizeof *ops };
  fg_graph *g = fg_graph_new("binary");
  fg_field *a = fg_input(g, "a", t), *b = fg_input(g, "b", t);
  for (int i = 0; i < NOPS; i++) {
    char name[32];
    snprintf(name, sizeof name, "o%d", i);
    fg_output(g, name, fg_binary(g, ops[i], a, b));
  }
  float *x = malloc(N * 4), *y = malloc(N * 4);
  for (int i = 0; i < N; i++) {
    x[i] = rndf(0.01f, 4);                 /* positive: pow is defined */
    y[i] = i % 17 == 0 ? x[i] : rndf(-3, 3);
    if (i % 23 == 0)
      y[i] = 0;
  }
  void *out[NOPS];
  for (int i = 0; i < NOPS; i++)
    out[i] = malloc(N * 4);
  tu_run(g, 2, (const void *[]){x, y}, NOPS, out);
  for (int k = 0; k < NOPS; k++)
    for (size_t i = 0; i < N; i++) {
      float *f = out[k];
      uint8_t *u = out[k];
      float p = x[i], q = y[i];
      switch (ops[k]) {   /* exact unless a tolerance is given */
      case FG_OP_ADD: ck_assert_float_eq(f[i], p + q); break;
      case FG_OP_SUB: ck_assert_float_eq(f[i], p - q); break;
      case FG_OP_MUL: ck_assert_float_eq(f[i], p * q); break;
      case FG_OP_DIV:
        if (q != 0)
          near(f[i], p / q, 1e-6, 0, "div", i);
        else
          ck_assert(isinf(f[i]));
        break;
      case FG_OP_MOD:
        if (q != 0)
          near(f[i], fmodf(p, q), 1e-6, 1e-6, "mod", i);
        break;
      case FG_OP_MIN: ck_assert_float_eq(f[i], fminf(p, q)); break;
      case FG_OP_MAX: ck_assert_float_eq(f[i], fmaxf(p, q)); break;
      case FG_OP_POW: near(f[i], pow(p, q), 2e-6, 0, "pow", i); break;
      case FG_OP_ATAN2: near(f[i], atan2(p, q), 2e-6, 1e-7, "atan2", i); break;
      case FG_OP_HYPOT: near(f[i], hypot(p, q), 2e-6, 0, "hypot", i); break;
      case FG_OP_LT: ck_assert_uint_eq(u[i], p < q); break;
      case FG_OP_GE: ck_assert_uint_eq(u[i], p >= q); break;
      case FG_OP_EQ: ck_assert_uint_eq(u[i], p == q); break;
      case FG_OP_AND: ck_assert_uint_eq(u[i], p != 0 && q != 0); break;
      case FG_OP_XOR: ck_assert_uint_eq(u[i], (p != 0) != (q != 0)); break;
      case FG_OP_ABSDIFF: ck_assert_float_eq(f[i], fabsf(p - q)); break;
      default: break;
      }
    }
  for (int i = 0; i < NOPS; i++)
    free(out[i]);
  free(x);
  free(y);
  fg_graph_free(g);
}
END_TEST

/* fg_scalar_constant: an integer type takes the value truncated toward
 * zero; one that does not fit (or NaN) is an FG_EINVAL naming the value
 * and the type, where the conversion was undefined behaviour. */
START_TEST(test_ops_scalar_constant_range) {
  static const struct { fg_elem e; double v; } bad[] = {
      {FG_I8, 255}, {FG_I8, -129}, {FG_U8, 256}, {FG_U8, -1},
      {FG_I16, 32768}, {FG_U16, 65536}, {FG_I32, 2147483648.0},
      {FG_U32, -1}, {FG_U32, 4294967296.0}, {FG_I64, 9223372036854775808.0},
      {FG_U64, 18446744073709551616.0}, {FG_U64, -1}, {FG_I32, NAN},
      {FG_U8, INFINITY}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    fg_graph *g = fg_graph_new("bad_constant");
    ck_assert_ptr_null(fg_scalar_constant(g, bad[i].e, bad[i].v));
    ck_assert_int_eq(fg_graph_status(g), FG_EINVAL);
    const char *m = fg_graph_errmsg(g);
    ck_assert_msg(strstr(m, "does not fit") &&
                  strstr(m, fg_elem_name(bad[i].e)), "%s", m);
    fg_graph_free(g);
  }
  /* the edges that fit, truncated toward zero */
  fg_graph *g = fg_graph_new("edge_constants");
  fg_shape s1 = fg_shape1(2);
  fg_output(g, "a", fg_broadcast(g, fg_scalar_constant(g, FG_I8, 127.9), s1,
                                 1));
  fg_output(g, "b", fg_broadcast(g, fg_scalar_constant(g, FG_I8, -128.9), s1,
                                 1));
  fg_output(g, "c", fg_broadcast(g, fg_scalar_constant(g, FG_U8, -0.5), s1,
                                 1));
  fg_output(g, "d", fg_broadcast(g, fg_scalar_constant(
                                        g, FG_U64, 18446744073709549568.0),
                                 s1, 1));
  fg_output(g, "e", fg_broadcast(g, fg_scalar_constant(
                                        g, FG_I64, -9223372036854775808.0),
                                 s1, 1));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  int8_t a[2], b[2];
  uint8_t c[2];
  uint64_t d[2];
  int64_t e[2];
  tu_run(g, 0, NULL, 5, (void *[]){a, b, c, d, e});
  ck_assert_int_eq(a[1], 127);
  ck_assert_int_eq(b[1], -128);
  ck_assert_int_eq(c[1], 0);
  ck_assert(d[1] == 18446744073709549568ull);
  ck_assert(e[1] == INT64_MIN);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_ops_binary_integers_wrap_saturate_broadcast) {
  /* u8 RGB (a), a u8 scalar field (b, repeated over the channels), a 0-D
   * i16 constant (c): exact integer results */
  enum { R = 13, C = 29, P = R * C };
  fg_shape s = fg_shape2(R, C);
  fg_graph *g = fg_graph_new("ints");
  fg_field *a = fg_input(g, "a", fg_type_vector(FG_U8, s, 3));
  fg_field *b = fg_input(g, "b", fg_type_scalar(FG_U8, s));
  fg_field *c = fg_scalar_constant(g, FG_I16, -300);
  static const fg_binop ops[] = {FG_OP_ADD, FG_OP_ADD_SAT, FG_OP_SUB_SAT,
                                 FG_OP_ABSDIFF, FG_OP_MUL, FG_OP_DIV,
                                 FG_OP_MOD, FG_OP_BXOR, FG_OP_MAX};
  enum { NOPS = sizeof ops / sizeof *ops };
  for (int i = 0; i < NOPS; i++) {
    char name[32];
    snprintf(name, sizeof name, "o%d", i);
    fg_output(g, name, fg_binary(g, ops[i], a, b));
  }
  fg_output(g, "plus_c", fg_binary(g, FG_OP_ADD, a, c));      /* i16 */
  fg_output(g, "minus7", fg_binary_scalar(g, FG_OP_SUB, a, 7)); /* wraps */
  fg_output(g, "100_div", fg_scalar_binary(g, FG_OP_DIV, 100, a));
  uint8_t *x = malloc(P * 3), *y = malloc(P);
  for (int i = 0; i < P * 3; i++)
    x[i] = (uint8_t)rnd();
  for (int i = 0; i < P; i++)
    y[i] = i % 11 == 0 ? 0 : (uint8_t)rnd();
  uint8_t *o[NOPS], *m7 = malloc(P * 3), *dv = malloc(P * 3);
  int16_t *pc = malloc(P * 3 * 2);
  void *outs[NOPS + 3];
  for (int i = 0; i < NOPS; i++)
    outs[i] = o[i] = malloc(P * 3);
  outs[NOPS] = pc;
  outs[NOPS + 1] = m7;
  outs[NOPS + 2] = dv;
  tu_run(g, 2, (const void *[]){x, y}, NOPS + 3, outs);
  for (int i = 0; i < P * 3; i++) {
    int p = x[i], q = y[i / 3];
    int want[NOPS] = {(p + q) & 255, p + q > 255 ? 255 : p + q,
                      p - q < 0 ? 0 : p - q, abs(p - q), (p * q) & 255,
                      q ? p / q : 0, q ? p % q : 0, p ^ q, p > q ? p : q};
    for (int k = 0; k < NOPS; k++)
      ck_assert_msg(o[k][i] == want[k], "op %d at %d: %d %d -> %d, want %d",
                    (int)ops[k], i, p, q, o[k][i], want[k]);
    ck_assert_int_eq(pc[i], p - 300);
    ck_assert_uint_eq(m7[i], (uint8_t)(p - 7));
    ck_assert_uint_eq(dv[i], p ? 100 / p : 0);
  }
  for (int i = 0; i < NOPS; i++)
    free(o[i]);
  free(pc);
  free(m7);
  free(dv);
  free(x);
  free(y);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_ops_unary_float_and_integer) {
  enum { N = 4099 };   /* prime: a 1-D field with a ragged end */
  static const fg_unop fops[] = {
    FG_OP_NEG, FG_OP_ABS, FG_OP_NOT, FG_OP_SQRT, FG_OP_EXP, FG_OP_LOG,
    FG_OP_SIN, FG_OP_COS, FG_OP_TANH, FG_OP_ATAN, FG_OP_FLOOR, FG_OP_CEIL,
    FG_OP_ROUND, FG_OP_RINT, FG_OP_SIGN, FG_OP_LOG2, FG_OP_EXP2};
  enum { NF = sizeof fops / sizeof *fops };
  static const fg_unop iops[] = {FG_OP_NEG, FG_OP_ABS, FG_OP_SIGN,
                                 FG_OP_BNOT, FG_OP_NOT};
  enum { NI = sizeof iops / sizeof *iops };
  fg_graph *g = fg_graph_new("unary");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(N)));
  fg_field *b = fg_input(g, "b", fg_type_scalar(FG_I8, fg_shape1(N)));
  for (int i = 0; i < NF; i++) {
    char name[32];
    snprintf(name, sizeof name, "f%d", i);
    fg_output(g, name, fg_unary(g, fops[i], a));
  }
  for (int i = 0; i < NI; i++) {
    char name[32];
    snprintf(name, sizeof name, "i%d", i);
    fg_output(g, name, fg_unary(g, iops[i], b));
  }
  float *x = malloc(N * 4);
  int8_t *y = malloc(N);
  for (int i = 0; i < N; i++) {
    x[i] = i % 13 == 0 ? 0 : i % 7 == 0 ? (float)(i % 9) - 4.5f
                                        : rndf(-20, 20);
    y[i] = (int8_t)rnd();
  }
  y[0] = -128;
  void *out[NF + NI];
  for (int i = 0; i < NF + NI; i++)
    out[i] = malloc(N * 4);
  tu_run(g, 2, (const void *[]){x, y}, NF + NI, out);
  for (int k = 0; k < NF; k++)
    for (size_t i = 0; i < N; i++) {
      float *f = out[k], p = x[i], ap = fabsf(p);
      uint8_t *u = out[k];
      switch (fops[k]) {   /* math functions: 2e-6 relative (OpenCL) */
      case FG_OP_NEG: ck_assert_float_eq(f[i], -p); break;
      case FG_OP_ABS: ck_assert_float_eq(f[i], ap); break;
      case FG_OP_NOT: ck_assert_uint_eq(u[i], p == 0); break;
      case FG_OP_SQRT:
        if (p < 0)
          ck_assert(isnan(f[i]));
        else
          near(f[i], sqrt(p), 1e-6, 0, "sqrt", i);
        break;
      case FG_OP_EXP: near(f[i], exp(p), 2e-6, 0, "exp", i); break;
      case FG_OP_LOG:
        if (p > 0)
          near(f[i], log(p), 2e-6, 1e-7, "log", i);
        break;
      case FG_OP_SIN: near(f[i], sin(p), 2e-6, 2e-7, "sin", i); break;
      case FG_OP_COS: near(f[i], cos(p), 2e-6, 2e-7, "cos", i); break;
      case FG_OP_TANH: near(f[i], tanh(p), 2e-6, 1e-7, "tanh", i); break;
      case FG_OP_ATAN: near(f[i], atan(p), 2e-6, 1e-7, "atan", i); break;
      case FG_OP_FLOOR: ck_assert_float_eq(f[i], floorf(p)); break;
      case FG_OP_CEIL: ck_assert_float_eq(f[i], ceilf(p)); break;
      case FG_OP_ROUND: ck_assert_float_eq(f[i], roundf(p)); break;
      case FG_OP_RINT: ck_assert_float_eq(f[i], rintf(p)); break;
      case FG_OP_SIGN:
        ck_assert_float_eq(f[i], p > 0 ? 1.0f : p < 0 ? -1.0f : 0.0f);
        break;
      case FG_OP_LOG2:
        if (p > 0)
          near(f[i], log2(p), 2e-6, 1e-7, "log2", i);
        break;
      case FG_OP_EXP2: near(f[i], exp2(p), 2e-6, 0, "exp2", i); break;
      default: break;
      }
    }
  for (int k = 0; k < NI; k++)
    for (size_t i = 0; i < N; i++) {
      int8_t *o = out[NF + k];
      int p = y[i];
      int want = iops[k] == FG_OP_NEG ? (int8_t)-p
                 : iops[k] == FG_OP_ABS ? (int8_t)abs(p)   /* -128 stays */
                 : iops[k] == FG_OP_SIGN ? (p > 0) - (p < 0)
                 : iops[k] == FG_OP_BNOT ? (int8_t)~p : -999;
      if (iops[k] == FG_OP_NOT)
        ck_assert_uint_eq(((uint8_t *)o)[i], p == 0);
      else
        ck_assert_int_eq(o[i], want);
    }
  for (int i = 0; i < NF + NI; i++)
    free(out[i]);
  free(x);
  free(y);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_ops_where_clamp_scale_and_casts) {
  enum { R = 31, C = 17, P = R * C };
  fg_shape s = fg_shape2(R, C);
  fg_graph *g = fg_graph_new("misc");
  fg_field *cond = fg_input(g, "cond", fg_type_scalar(FG_U8, s));
  fg_field *a = fg_input(g, "a", fg_type_vector(FG_F32, s, 2));
  fg_field *b = fg_input(g, "b", fg_type_vector(FG_F32, s, 2));
  fg_field *u = fg_input(g, "u", fg_type_scalar(FG_U8, s));
  fg_field *w = fg_input(g, "w", fg_type_scalar(FG_U16, s));
  fg_output(g, "where", fg_where(g, cond, a, b));
  fg_output(g, "clamp", fg_clamp_field(g, a, -1, 1.5));
  fg_output(g, "scale", fg_scale_offset(g, u, 1.7, -20));     /* u8 */
  fg_output(g, "cast", fg_cast(g, a, FG_I16));                /* trunc */
  fg_output(g, "cast_sat", fg_cast_sat(g, a, FG_U8));         /* rte, sat */
  fg_output(g, "u8_round_trip", fg_from_unit(g, fg_to_unit(g, u), FG_U8));
  fg_output(g, "u16_unit", fg_to_unit(g, w));
  fg_output(g, "to_u16", fg_from_unit(g, a, FG_U16));
  uint8_t cv[P], uv[P];
  uint16_t wv[P];
  float av[P * 2], bv[P * 2];
  for (int i = 0; i < P; i++) {
    cv[i] = i % 3 == 0 ? 0 : (uint8_t)(rnd() | 1);
    uv[i] = (uint8_t)rnd();
    wv[i] = (uint16_t)rnd();
  }
  for (int i = 0; i < 2 * P; i++) {
    av[i] = i % 5 == 0 ? (float)(i % 7) + 0.5f : rndf(-300, 300);
    bv[i] = rndf(-1, 1);
  }
  av[3] = NAN;
  float o_where[P * 2], o_clamp[P * 2], o_u16u[P];
  uint8_t o_scale[P], o_sat[P * 2], o_rt[P];
  int16_t o_cast[P * 2];
  uint16_t o_to16[P * 2];
  tu_run(g, 5, (const void *[]){cv, av, bv, uv, wv}, 8,
         (void *[]){o_where, o_clamp, o_scale, o_cast, o_sat, o_rt, o_u16u,
                    o_to16});
  for (int i = 0; i < 2 * P; i++) {
    float p = av[i];
    if (i != 3) {
      ck_assert_float_eq(o_where[i], cv[i / 2] ? p : bv[i]);
      ck_assert_float_eq(o_clamp[i], p < -1 ? -1 : p > 1.5f ? 1.5f : p);
      ck_assert_int_eq(o_cast[i], (int16_t)p);
      float r = rintf(p);
      ck_assert_uint_eq(o_sat[i], r < 0 ? 0 : r > 255 ? 255 : (int)r);
      float r16 = rintf(p * 65535.0f);
      ck_assert_uint_eq(o_to16[i], r16 < 0 ? 0 : r16 > 65535 ? 65535
                                                              : (int)r16);
    } else {
      ck_assert_uint_eq(o_sat[i], 0);      /* NaN saturates to 0 */
    }
  }
  for (int i = 0; i < P; i++) {
    float v = rintf((float)uv[i] * 1.7f + -20.0f);
    ck_assert_uint_eq(o_scale[i], v < 0 ? 0 : v > 255 ? 255 : (int)v);
    ck_assert_uint_eq(o_rt[i], uv[i]);     /* exact round trip */
    ck_assert_float_eq(o_u16u[i], (float)wv[i] / 65535.0f);
  }
  fg_graph_free(g);
}
END_TEST

START_TEST(test_ops_channels_merge_broadcast_big_tensors) {
  enum { R = 7, C = 11, P = R * C };
  fg_shape s = fg_shape2(R, C);
  fg_graph *g = fg_graph_new("channels");
  fg_field *a = fg_input(g, "a", fg_type_vector(FG_U8, s, 4));
  fg_field *big = fg_input(g, "big", fg_type_vector(FG_F32, s, 6));
  fg_field *k0 = fg_scalar_constant(g, FG_F32, 2.5);
  fg_output(g, "g", fg_channel(g, a, 1));
  fg_output(g, "bgra", fg_channels(g, a, "bgra"));
  fg_output(g, "merged", fg_merge(g, 2, (fg_field *[]){
      fg_channel(g, a, 3), fg_channels(g, a, "rg")}));
  fg_output(g, "bc", fg_broadcast(g, k0, s, 3));
  fg_output(g, "big_mul", fg_binary(g, FG_OP_MUL, big, k0));
  fg_output(g, "big_sqrt", fg_unary(g, FG_OP_SQRT, big));
  uint8_t av[P * 4];
  float bv[P * 6];
  for (int i = 0; i < P * 4; i++)
    av[i] = (uint8_t)rnd();
  for (int i = 0; i < P * 6; i++)
    bv[i] = rndf(0, 100);
  uint8_t og[P], obgra[P * 4], om[P * 3];
  float obc[P * 3], obm[P * 6], obs[P * 6];
  tu_run(g, 2, (const void *[]){av, bv}, 6,
         (void *[]){og, obgra, om, obc, obm, obs});
  for (int p = 0; p < P; p++) {
    const uint8_t *px = av + 4 * p;
    ck_assert_uint_eq(og[p], px[1]);
    ck_assert_uint_eq(obgra[4 * p], px[2]);
    ck_assert_uint_eq(obgra[4 * p + 1], px[1]);
    ck_assert_uint_eq(obgra[4 * p + 2], px[0]);
    ck_assert_uint_eq(obgra[4 * p + 3], px[3]);
    ck_assert_uint_eq(om[3 * p], px[3]);
    ck_assert_uint_eq(om[3 * p + 1], px[0]);
    ck_assert_uint_eq(om[3 * p + 2], px[1]);
    for (int c = 0; c < 3; c++)
      ck_assert_float_eq(obc[3 * p + c], 2.5f);
  }
  /* big tensors are stored one plane per element: element-wise anyway */
  for (int i = 0; i < P * 6; i++) {
    ck_assert_float_eq(obm[i], bv[i] * 2.5f);
    near(obs[i], sqrt(bv[i]), 1e-6, 0, "big sqrt", (size_t)i);
  }
  fg_graph_free(g);
}
END_TEST

/* ---- colour ------------------------------------------------------------------ */

static double srgb_dec(double c) {
  return c > 0.04045 ? pow((c + 0.055) / 1.055, 2.4) : c / 12.92;
}
static const double M[9] = {0.4124, 0.3576, 0.1805, 0.2126, 0.7152, 0.0722,
                            0.0193, 0.1192, 0.9505};
static const double W[3] = {0.95047, 1.0, 1.08883};
static double labf(double t) {
  return t > 0.008856 ? cbrt(t) : 7.787 * t + 16.0 / 116;
}
static void ref_lab(const double rgb[3], double lab[3]) {
  double lin[3], xyz[3], f[3];
  for (int i = 0; i < 3; i++)
    lin[i] = srgb_dec(rgb[i]);
  for (int i = 0; i < 3; i++) {
    xyz[i] = M[3 * i] * lin[0] + M[3 * i + 1] * lin[1] + M[3 * i + 2] * lin[2];
    f[i] = labf(xyz[i] / W[i]);
  }
  lab[0] = 116 * f[1] - 16;
  lab[1] = 500 * (f[0] - f[1]);
  lab[2] = 200 * (f[1] - f[2]);
}
static void ref_hsv(const double c[3], double hsv[3]) {
  double v = fmax(fmax(c[0], c[1]), c[2]), d = v - fmin(fmin(c[0], c[1]),
                                                        c[2]);
  double h = 0;
  if (d > 0) {
    h = v == c[0] ? 60 * (c[1] - c[2]) / d
        : v == c[1] ? 120 + 60 * (c[2] - c[0]) / d
                    : 240 + 60 * (c[0] - c[1]) / d;
    if (h < 0)
      h += 360;
  }
  hsv[0] = h;
  hsv[1] = v > 0 ? d / v : 0;
  hsv[2] = v;
}

/* Every colour conversion on the photo `sample`, against the double
 * formulas above.  Tolerances: grey 1 level (u8, f32 vs double rounding
 * ties), HSV 1e-3 degrees / 1e-5, sRGB 2e-5, L*a*b* 2e-3, round trips
 * 1e-3 of full scale. */
static void colour_photo(const char *sample) {
  char path[4096], err[512];
  fg_image img;
  ck_assert_msg(fg_image_read(tu_sample(sample, path, sizeof path), &img, err,
                              sizeof err) == FG_OK, "%s", err);
  ck_assert_int_eq(img.channels, 3);
  fg_graph *g = fg_graph_new("colour");
  fg_field *in = fg_input(g, "img", fg_type_image(FG_U8, img.height,
                                                  img.width, 3));
  fg_field *f = fg_to_unit(g, in);
  fg_output(g, "grey", fg_rgb_to_grey(g, in));
  fg_output(g, "hsv", fg_rgb_to_hsv(g, f));
  fg_output(g, "hsv_rt", fg_hsv_to_rgb(g, fg_rgb_to_hsv(g, f)));
  fg_field *lin = fg_srgb_decode(g, f);
  fg_output(g, "lin", lin);
  fg_output(g, "enc_rt", fg_srgb_encode(g, lin));
  fg_output(g, "lab", fg_srgb_to_lab(g, f));
  fg_output(g, "lab_chain", fg_xyz_to_lab(g, fg_linear_to_xyz(g, lin)));
  fg_output(g, "lab_rt", fg_lab_to_srgb(g, fg_srgb_to_lab(g, f)));
  fg_output(g, "xyz_rt", fg_xyz_to_linear(g, fg_linear_to_xyz(g, lin)));
  size_t np = (size_t)img.width * (size_t)img.height;
  uint8_t *grey = malloc(np);
  float *o[8];
  for (int i = 0; i < 8; i++)
    o[i] = malloc(np * 3 * sizeof(float));
  tu_run(g, 1, (const void *[]){img.data}, 9,
         (void *[]){grey, o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]});
  for (size_t p = 0; p < np; p++) {
    const uint8_t *px = img.data + 3 * p;
    double c[3], hsv[3], lab[3];
    for (int i = 0; i < 3; i++)
      c[i] = (float)px[i] / 255.0f;
    double y = 0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2];
    ck_assert_msg(fabs(grey[p] - y) <= 0.5 + 1e-3, "grey %zu: %d vs %g", p,
                  grey[p], y);
    ref_hsv(c, hsv);
    ref_lab(c, lab);
    near(o[0][3 * p], hsv[0], 0, 1e-3, "hue", p);
    for (int i = 1; i < 3; i++)
      near(o[0][3 * p + i], hsv[i], 0, 1e-5, "hsv", p);
    for (int i = 0; i < 3; i++) {
      near(o[1][3 * p + i], c[i], 0, 1e-5, "hsv round trip", p);
      near(o[2][3 * p + i], srgb_dec(c[i]), 0, 2e-5, "srgb decode", p);
      near(o[3][3 * p + i], c[i], 0, 2e-5, "srgb round trip", p);
      near(o[4][3 * p + i], lab[i], 0, 2e-3, "lab", p);
      near(o[5][3 * p + i], lab[i], 0, 2e-3, "lab chain", p);
      near(o[6][3 * p + i], c[i], 0, 1e-3, "lab round trip", p);
      near(o[7][3 * p + i], srgb_dec(c[i]), 0, 1e-3, "xyz round trip", p);
    }
  }
  for (int i = 0; i < 8; i++)
    free(o[i]);
  free(grey);
  fg_image_free(&img);
  fg_graph_free(g);
}

START_TEST(test_ops_colour_on_a_photo) { colour_photo("chelsea.png"); }
END_TEST

START_TEST(test_ops_lab_of_white_and_primaries_published) {
  /* sRGB (D65) to L*a*b*, published values (e.g. Lindbloom's calculator,
   * colormine): white 100/0/0, black 0/0/0, red 53.24/80.09/67.20, green
   * 87.73/-86.18/83.18, blue 32.30/79.19/-107.86.  Tolerance 0.05 (the
   * 4-digit matrix and D65 white of Cog's RGBtoCIELAB). */
  static const float rgb[5][3] = {{1, 1, 1}, {0, 0, 0}, {1, 0, 0},
                                  {0, 1, 0}, {0, 0, 1}};
  static const double want[5][3] = {{100, 0, 0}, {0, 0, 0},
                                    {53.24, 80.09, 67.20},
                                    {87.73, -86.18, 83.18},
                                    {32.30, 79.19, -107.86}};
  fg_graph *g = fg_graph_new("primaries");
  fg_field *in = fg_input(g, "rgb", fg_type_vector(FG_F32, fg_shape1(5), 3));
  fg_output(g, "lab", fg_srgb_to_lab(g, in));
  fg_output(g, "chain", fg_xyz_to_lab(g, fg_linear_to_xyz(
                                            g, fg_srgb_decode(g, in))));
  float lab[15], chain[15];
  tu_run(g, 1, (const void *[]){rgb}, 2, (void *[]){lab, chain});
  for (int p = 0; p < 5; p++)
    for (int c = 0; c < 3; c++) {
      near(lab[3 * p + c], want[p][c], 0, 0.05, "srgb_to_lab", (size_t)p);
      near(chain[3 * p + c], want[p][c], 0, 0.05, "chain", (size_t)p);
    }
  fg_graph_free(g);
}
END_TEST

START_TEST(test_ops_colour_matrix_and_grey_alpha) {
  enum { R = 19, C = 23, P = R * C };
  fg_shape s = fg_shape2(R, C);
  fg_graph *g = fg_graph_new("matrix");
  fg_field *a = fg_input(g, "a", fg_type_vector(FG_F32, s, 4));
  fg_field *grey = fg_input(g, "grey", fg_type_scalar(FG_U8, s));
  float m[16], add[4];
  for (int i = 0; i < 16; i++)
    m[i] = rndf(-2, 2);
  for (int i = 0; i < 4; i++)
    add[i] = rndf(-1, 1);
  fg_output(g, "m", fg_colour_matrix(g, a, m, add, 3));
  fg_output(g, "rgba", fg_grey_to_rgb(g, grey, 4));
  float av[P * 4], om[P * 3];
  uint8_t gv[P], og[P * 4];
  for (int i = 0; i < P * 4; i++)
    av[i] = rndf(0, 1);
  for (int i = 0; i < P; i++)
    gv[i] = (uint8_t)rnd();
  tu_run(g, 2, (const void *[]){av, gv}, 2, (void *[]){om, og});
  for (int p = 0; p < P; p++) {
    for (int i = 0; i < 3; i++) {
      float sum = m[4 * i] * av[4 * p];     /* the stated order */
      for (int j = 1; j < 4; j++)
        sum = sum + m[4 * i + j] * av[4 * p + j];
      near(om[3 * p + i], sum + add[i], 1e-6, 1e-6, "colour matrix",
           (size_t)p);
    }
    for (int c = 0; c < 3; c++)
      ck_assert_uint_eq(og[4 * p + c], gv[p]);
    ck_assert_uint_eq(og[4 * p + 3], 255);
  }
  fg_graph_free(g);
}
END_TEST

/* ---- tables ---------------------------------------------------------------- */

START_TEST(test_ops_lut1d_and_lut3d) {
  enum { R = 9, C = 14, P = R * C, N = 17, D0 = 5, D1 = 4, D2 = 3 };
  fg_shape s = fg_shape2(R, C);
  fg_graph *g = fg_graph_new("luts");
  fg_field *u = fg_input(g, "u", fg_type_vector(FG_U8, s, 3));
  fg_field *f = fg_input(g, "f", fg_type_vector(FG_F32, s, 4));
  fg_field *tu = fg_input(g, "tu", fg_type_vector(FG_U16, fg_shape1(256), 3));
  fg_field *tf = fg_input(g, "tf", fg_type_scalar(FG_F32, fg_shape1(N)));
  fg_field *cube = fg_input(g, "cube", fg_type_vector(
                                           FG_F32, fg_shape3(D2, D1, D0), 3));
  fg_output(g, "lu", fg_lut1d(g, u, tu));
  fg_output(g, "lf", fg_lut1d(g, f, tf));
  fg_output(g, "l3", fg_lut3d(g, f, cube));
  uint8_t uv[P * 3];
  float fv[P * 4], tfv[N], cv[D0 * D1 * D2 * 3];
  uint16_t tuv[256 * 3];
  for (int i = 0; i < P * 3; i++)
    uv[i] = (uint8_t)rnd();
  for (int i = 0; i < P * 4; i++)
    fv[i] = i % 31 == 0 ? (float)(i % 3) * 0.5f : rndf(-0.1f, 1.1f);
  for (int i = 0; i < 256 * 3; i++)
    tuv[i] = (uint16_t)rnd();
  for (int i = 0; i < N; i++)
    tfv[i] = rndf(-5, 5);
  for (int i = 0; i < D0 * D1 * D2 * 3; i++)
    cv[i] = rndf(0, 1);
  uint16_t olu[P * 3];
  float olf[P * 4], ol3[P * 4];
  tu_run(g, 5, (const void *[]){uv, fv, tuv, tfv, cv}, 3,
         (void *[]){olu, olf, ol3});
  for (int i = 0; i < P * 3; i++)
    ck_assert_uint_eq(olu[i], tuv[uv[i] * 3 + i % 3]);
  for (int i = 0; i < P * 4; i++) {
    double x = fmin(fmax(fv[i], 0), 1) * (N - 1);
    int i0 = (int)floor(x) > N - 2 ? N - 2 : (int)floor(x);
    double want = tfv[i0] + (tfv[i0 + 1] - tfv[i0]) * (x - i0);
    near(olf[i], want, 0, 1e-5, "lut1d float", (size_t)i);
  }
  const int dim[3] = {D0, D1, D2};
  for (int p = 0; p < P; p++) {
    int i0[3];
    double fr[3];
    for (int c = 0; c < 3; c++) {
      double x = fmin(fmax(fv[4 * p + c], 0), 1) * (dim[c] - 1);
      i0[c] = (int)floor(x) > dim[c] - 2 ? dim[c] - 2 : (int)floor(x);
      fr[c] = x - i0[c];
    }
    for (int ch = 0; ch < 3; ch++) {
      double acc = 0;
      for (int corner = 0; corner < 8; corner++) {
        int dx = corner & 1, dy = (corner >> 1) & 1, dz = corner >> 2;
        double w = (dx ? fr[0] : 1 - fr[0]) * (dy ? fr[1] : 1 - fr[1]) *
                   (dz ? fr[2] : 1 - fr[2]);
        acc += w * cv[(((i0[2] + dz) * D1 + i0[1] + dy) * D0 + i0[0] + dx) *
                          3 + ch];
      }
      near(ol3[4 * p + ch], acc, 0, 1e-5, "lut3d", (size_t)p);
    }
    ck_assert_float_eq(ol3[4 * p + 3], fv[4 * p + 3]);  /* alpha passes */
  }
  fg_graph_free(g);
}
END_TEST

/* Saturating casts of 3- and 4-channel floats at the edges of each
 * target type: ties to even, NaN to 0, infinities and the largest floats
 * below and at 2^31 and 2^32.  The C dialect converts each component by a
 * scalar helper (a vector helper unpacked per component kept clang from
 * vectorizing the pixel loop of every u8x3 blur and resize). */
/* One operator: in's tensor into a variable, written converted to elem
 * whole (as the filters write their accumulators, ops/ops_filter.c). */
static fg_field *sat_of_var(fg_graph *g, fg_field *in, fg_elem elem) {
  fg_type t = fg_field_type(in);
  int n = fg_type_tensor_elements(t);
  t.elem = elem;
  fg_op *op = fg_op_begin(g, "sat_of_var", 1, &t);
  fg_expr *v = fg_var(op, FG_F32, n);
  fg_assign(v, fg_read_tensor(op, in));
  fg_write_tensor(op, 0, fg_convert_sat(v, elem, n));
  return fg_op_end(op);
}

START_TEST(test_ops_cast_sat_vectors_edges) {
  enum { N = 16 };
  static const float v[N] = {
      2.5f,          -2.5f,         0.49999997f,   255.5f,
      254.5f,        -0.4f,         1.5f,          65535.5f,
      2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f,
      4294967040.0f, 4294967296.0f, INFINITY,      -INFINITY};
  fg_shape s = fg_shape2(4, 5);
  enum { P = 4 * 5 };
  fg_graph *g = fg_graph_new("cast_sat_edges");
  fg_field *a3 = fg_input(g, "a3", fg_type_vector(FG_F32, s, 3));
  fg_field *a4 = fg_input(g, "a4", fg_type_vector(FG_F32, s, 4));
  fg_output(g, "u8", sat_of_var(g, a3, FG_U8));
  fg_output(g, "i32", sat_of_var(g, a3, FG_I32));
  fg_output(g, "u32", sat_of_var(g, a4, FG_U32));
  fg_output(g, "u16", sat_of_var(g, a4, FG_U16));
  float x3[P * 3], x4[P * 4];
  for (int i = 0; i < P * 3; i++)
    x3[i] = i == 7 ? NAN : v[i % N];
  for (int i = 0; i < P * 4; i++)
    x4[i] = i == 5 ? NAN : v[(i + 3) % N];
  uint8_t o8[P * 3];
  int32_t o32[P * 3];
  uint32_t ou32[P * 4];
  uint16_t o16[P * 4];
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  for (int k = 0; k < fg_program_kernel_count(p); k++) {
    const char *src = fg_program_kernel_source(p, k);
    if (!strstr(src, "__kernel"))   /* the C dialect */
      ck_assert_msg(!strstr(src, "fgk_sat_uchar3") &&
                        !strstr(src, "fgk_sat_int3") &&
                        !strstr(src, "fgk_sat_uint4") &&
                        !strstr(src, "fgk_sat_ushort4"),
                    "kernel %s converts through a vector helper",
                    fg_program_kernel_name(p, k));
    /* u8 and u16 clamp with two comparisons (a max and a min), NaN
     * falling to 0 with the values below */
    if (!strstr(src, "__kernel") && strstr(src, "fgk_sat_uchar_float("))
      ck_assert_msg(strstr(src, "(v > (float)0 ? v < (float)255 ? v : "
                                "(float)255 : (float)0)") != NULL,
                    "kernel %s: u8 saturation not as max and min",
                    fg_program_kernel_name(p, k));
  }
  ck_assert_int_eq(fg_program_run(p, 2, (const void *[]){x3, x4}, 4,
                                  (void *[]){o8, o32, ou32, o16}),
                   FG_OK);
  for (int i = 0; i < P * 3; i++) {
    double r = rint((double)x3[i]);
    bool nan = x3[i] != x3[i];
    ck_assert_msg(o8[i] == (nan ? 0 : r < 0 ? 0 : r > 255 ? 255 : (int)r),
                  "u8 of %a: %d", (double)x3[i], o8[i]);
    int32_t w = nan ? 0 : r <= -2147483648.0 ? INT32_MIN
              : r >= 2147483647.0 ? INT32_MAX : (int32_t)r;
    ck_assert_msg(o32[i] == w, "i32 of %a: %d, want %d", (double)x3[i],
                  o32[i], w);
  }
  for (int i = 0; i < P * 4; i++) {
    double r = rint((double)x4[i]);
    bool nan = x4[i] != x4[i];
    uint32_t w = nan || r <= 0 ? 0 : r >= 4294967295.0 ? UINT32_MAX
               : (uint32_t)r;
    ck_assert_msg(ou32[i] == w, "u32 of %a: %u, want %u", (double)x4[i],
                  ou32[i], w);
    uint16_t w16 = nan || r <= 0 ? 0 : r >= 65535 ? 65535 : (uint16_t)r;
    ck_assert_msg(o16[i] == w16, "u16 of %a: %u, want %u", (double)x4[i],
                  o16[i], w16);
  }
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* ---- fusion and errors ------------------------------------------------------- */

START_TEST(test_ops_chain_fuses_into_one_kernel) {
  fg_shape s = fg_shape2(64, 48);
  fg_graph *g = fg_graph_new("chain");
  fg_field *in = fg_input(g, "in", fg_type_vector(FG_U8, s, 3));
  fg_field *f = fg_srgb_decode(g, fg_to_unit(g, in));
  f = fg_binary_scalar(g, FG_OP_MUL, f, 0.5);
  fg_output(g, "out", fg_from_unit(g, fg_srgb_encode(g, f), FG_U8));
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_kernel_count(p), 1);
  ck_assert_str_eq(fg_program_kernel_name(p, 0),
                   "to_unit+srgb_decode+mul+srgb_encode+from_unit");
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_ops_errors_name_the_operator) {
  fg_graph *g = fg_graph_new("errors");
  fg_field *a = fg_input(g, "a", fg_type_vector(FG_F32, fg_shape2(4, 5), 3));
  fg_field *b = fg_input(g, "b", fg_type_vector(FG_F32, fg_shape2(5, 4), 2));
  ck_assert_ptr_null(fg_binary(g, FG_OP_ADD, a, b));
  expect_error(g, FG_ESHAPE, "add", "'b'", NULL);
  ck_assert_ptr_null(fg_unary(g, FG_OP_SQRT, a));   /* sticky: no message */
  expect_error(g, FG_ESHAPE, "add", NULL);
  fg_graph_free(g);

  g = fg_graph_new("errors2");
  fg_field *u = fg_input(g, "u", fg_type_vector(FG_U8, fg_shape2(4, 5), 3));
  ck_assert_ptr_null(fg_rgb_to_hsv(g, u));
  expect_error(g, FG_ETYPE, "rgb_to_hsv", "'u'", "fg_to_unit", NULL);
  fg_graph_free(g);

  g = fg_graph_new("errors3");
  a = fg_input(g, "a", fg_type_vector(FG_F32, fg_shape2(4, 5), 3));
  ck_assert_ptr_null(fg_binary(g, FG_OP_BAND, a, a));
  expect_error(g, FG_ETYPE, "band", "integer", NULL);
  fg_graph_free(g);

  g = fg_graph_new("errors4");
  u = fg_input(g, "u", fg_type_vector(FG_U8, fg_shape2(4, 5), 3));
  ck_assert_ptr_null(fg_channels(g, u, "rgba"));
  expect_error(g, FG_EINVAL, "channels", "'a'", NULL);
  fg_graph_free(g);
}
END_TEST

/* Regression (found by fuzz/fuzz_diff.c under UBSan): grey_to_rgb's
 * alpha, the type's maximum, went through a double: 2^63 and 2^64 were
 * converted to i64 and u64 out of range (undefined behaviour on the host,
 * a wrong alpha). */
START_TEST(test_ops_regression_grey_to_rgb_alpha_of_64_bit_integers) {
  enum { N = 3 };
  int64_t gi[N] = {-5, 0, 7}, oi[N][4];
  uint64_t gu[N] = {1, 2, UINT64_MAX}, ou[N][4];
  fg_graph *g = fg_graph_new("alpha64");
  fg_field *fi = fg_input(g, "i", fg_type_scalar(FG_I64, fg_shape1(N)));
  fg_field *fu = fg_input(g, "u", fg_type_scalar(FG_U64, fg_shape1(N)));
  fg_output(g, "oi", fg_grey_to_rgb(g, fi, 4));
  fg_output(g, "ou", fg_grey_to_rgb(g, fu, 4));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  tu_run(g, 2, (const void *[]){gi, gu}, 2, (void *[]){oi, ou});
  for (int i = 0; i < N; i++) {
    for (int c = 0; c < 3; c++) {
      ck_assert(oi[i][c] == gi[i]);
      ck_assert(ou[i][c] == gu[i]);
    }
    ck_assert(oi[i][3] == INT64_MAX);
    ck_assert(ou[i][3] == UINT64_MAX);
  }
  fg_graph_free(g);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ops_pointwise");
  TCase *tc = tcase_create("ops");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_ops_binary_f32_every_op);
  tcase_add_test(tc, test_ops_binary_integers_wrap_saturate_broadcast);
  tcase_add_test(tc, test_ops_scalar_constant_range);
  tcase_add_test(tc, test_ops_unary_float_and_integer);
  tcase_add_test(tc, test_ops_cast_sat_vectors_edges);
  tcase_add_test(tc, test_ops_where_clamp_scale_and_casts);
  tcase_add_test(tc, test_ops_channels_merge_broadcast_big_tensors);
  tcase_add_test(tc, test_ops_colour_on_a_photo);
  tcase_add_test(tc, test_ops_lab_of_white_and_primaries_published);
  tcase_add_test(tc, test_ops_colour_matrix_and_grey_alpha);
  tcase_add_test(tc, test_ops_lut1d_and_lut3d);
  tcase_add_test(tc, test_ops_chain_fuses_into_one_kernel);
  tcase_add_test(tc, test_ops_errors_name_the_operator);
  tcase_add_test(tc, test_ops_regression_grey_to_rgb_alpha_of_64_bit_integers);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
