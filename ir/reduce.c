/* ir/reduce.c - the identity table of the built-in reductions
 * (ir/reduce.h): one row per operation, one entry per element type. */
#include "reduce.h"

#include <math.h>
#include <string.h>

#define I(t, v) {t, {.i = (v)}}
#define U(t, v) {t, {.u = (v)}}
#define F(t, v) {t, {.f = (v)}}

static const fgk_identity identity[FG_REDUCE_PROD + 1][FG_ELEM_COUNT_] = {
  [FG_REDUCE_SUM] = {
    [FG_I8] = I("0", 0), [FG_U8] = U("0", 0), [FG_I16] = I("0", 0),
    [FG_U16] = U("0", 0), [FG_I32] = I("0", 0), [FG_U32] = U("0", 0),
    [FG_I64] = I("0", 0), [FG_U64] = U("0", 0), [FG_F32] = F("0", 0.0),
    [FG_F64] = F("0", 0.0)},
  [FG_REDUCE_PROD] = {
    [FG_I8] = I("1", 1), [FG_U8] = U("1", 1), [FG_I16] = I("1", 1),
    [FG_U16] = U("1", 1), [FG_I32] = I("1", 1), [FG_U32] = U("1", 1),
    [FG_I64] = I("1", 1), [FG_U64] = U("1", 1), [FG_F32] = F("1", 1.0),
    [FG_F64] = F("1", 1.0)},
  [FG_REDUCE_MIN] = {
    [FG_I8] = I("127", INT8_MAX), [FG_U8] = U("255", UINT8_MAX),
    [FG_I16] = I("32767", INT16_MAX), [FG_U16] = U("65535", UINT16_MAX),
    [FG_I32] = I("2147483647", INT32_MAX),
    [FG_U32] = U("4294967295u", UINT32_MAX),
    [FG_I64] = I("9223372036854775807L", INT64_MAX),
    [FG_U64] = U("18446744073709551615UL", UINT64_MAX),
    [FG_F32] = F("INFINITY", INFINITY), [FG_F64] = F("INFINITY", INFINITY)},
  [FG_REDUCE_MAX] = {
    [FG_I8] = I("(-128)", INT8_MIN), [FG_U8] = U("0", 0),
    [FG_I16] = I("(-32768)", INT16_MIN), [FG_U16] = U("0", 0),
    [FG_I32] = I("(-2147483647 - 1)", INT32_MIN), [FG_U32] = U("0", 0),
    [FG_I64] = I("(-9223372036854775807L - 1)", INT64_MIN),
    [FG_U64] = U("0", 0), [FG_F32] = F("-INFINITY", -INFINITY),
    [FG_F64] = F("-INFINITY", -INFINITY)},
};

#undef I
#undef U
#undef F

const fgk_identity *fgk_reduce_identity(fg_reduce_op op, fg_elem e) {
  if ((unsigned)op > FG_REDUCE_PROD || (unsigned)e >= FG_ELEM_COUNT_ ||
      !identity[op][e].text)
    return NULL;
  return &identity[op][e];
}

bool fgk_reduce_identity_host(fg_reduce_op op, fg_elem e, void *out) {
  const fgk_identity *id = fgk_reduce_identity(op, e);
  if (!id)
    return false;
  fgk_const v = id->value;
  switch (e) {
#define HOST(E, T, M)                                                       \
  case E: {                                                                \
    T x = (T)v.M;                                                          \
    memcpy(out, &x, sizeof x);                                             \
    return true;                                                           \
  }
    HOST(FG_I8, int8_t, i)
    HOST(FG_U8, uint8_t, u)
    HOST(FG_I16, int16_t, i)
    HOST(FG_U16, uint16_t, u)
    HOST(FG_I32, int32_t, i)
    HOST(FG_U32, uint32_t, u)
    HOST(FG_I64, int64_t, i)
    HOST(FG_U64, uint64_t, u)
    HOST(FG_F32, float, f)
    HOST(FG_F64, double, f)
#undef HOST
  default:
    return false;
  }
}
