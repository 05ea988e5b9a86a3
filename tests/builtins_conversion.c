/* tests/builtins_conversion.c - type conversion and reinterpretation:
 * conversions with and without saturation, and reinterpretation of bits,
 * exactly.
 * Run by tests/check_builtins.c on the backend $FG_TEST_BACKEND names. */
#include "builtins_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

void builtins_conversion_tests(TCase *tc) {
  tcase_add_test(tc, test_builtins_conversion);
}
