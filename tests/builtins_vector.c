/* tests/builtins_vector.c - vector literals: every fg_<type><n> macro,
 * from one scalar and from n scalars, their types and their values.
 * Run by tests/check_builtins.c on the backend $FG_TEST_BACKEND names. */
#include "builtins_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

void builtins_vector_tests(TCase *tc) {
  tcase_add_test(tc, test_builtins_vector_literal);
}
