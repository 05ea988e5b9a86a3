/* tests/builtins_integer.c - the integer functions (abs, abs_diff,
 * add_sat, sub_sat, hadd, rhadd, clz, mul_hi, mad_hi, mad_sat, rotate,
 * min, max, clamp, mul24, mad24) on every integer type, over inputs that
 * include each type's limits, each compared exactly with 128-bit
 * arithmetic.
 * Run by tests/check_builtins.c on the backend $FG_TEST_BACKEND names. */
#include "builtins_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

void builtins_integer_tests(TCase *tc) {
  tcase_add_test(tc, test_builtins_integer);
}
