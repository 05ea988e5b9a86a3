/* tests/builtins_relational.c - the relational functions (isequal and
 * the other comparisons, isnan and the other classifications, signbit,
 * any, all, select), exactly, on scalars and vectors.
 * Run by tests/check_builtins.c on the backend $FG_TEST_BACKEND names. */
#include "builtins_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

void builtins_relational_tests(TCase *tc) {
  tcase_add_test(tc, test_builtins_relational);
}
