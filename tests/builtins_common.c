/* tests/builtins_common.c - the common functions (clamp, degrees,
 * radians, mix, step, sign, min and max of floats), against references
 * computed here.
 * Run by tests/check_builtins.c on the backend $FG_TEST_BACKEND names. */
#include "builtins_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

void builtins_common_tests(TCase *tc) {
  tcase_add_test(tc, test_builtins_common);
}
