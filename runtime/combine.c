/* runtime/combine.c - folding a built-in reduction's partials on the
 * host, in their fixed order, with the kernels' own arithmetic (wrapping
 * integers, IEEE floats), so results never depend on the backend or the
 * number of threads. */
#include "program_impl.h"
#include "ir/reduce.h"

/* Combines a reduction's partials in order, as the kernels combine the
 * values of a chunk: acc = acc op partial, from the identity (the table
 * the kernels start from too). */
#define COMBINE(T, IS_FLOAT, UT)                                            \
  {                                                                        \
    const T *in = partials;                                                \
    T *acc = out;                                                          \
    T id;                                                                  \
    if (!fgk_reduce_identity_host(op, elem, &id))                          \
      break;                                                               \
    for (int c = 0; c < width; c++) {                                      \
      T a = id;                                                            \
      for (int64_t p = 0; p < n; p++) {                                    \
        T v = in[p * width + c];                                           \
        switch (op) {                                                      \
        case FG_REDUCE_SUM: a = IS_FLOAT ? (T)(a + v)                      \
                                         : (T)((UT)a + (UT)v); break;      \
        case FG_REDUCE_PROD: a = IS_FLOAT ? (T)(a * v)                     \
                                          : (T)((UT)a * (UT)v); break;     \
        case FG_REDUCE_MIN: a = v < a ? v : a; break;                      \
        default: a = v > a ? v : a; break;                                 \
        }                                                                  \
      }                                                                    \
      acc[c] = a;                                                          \
    }                                                                      \
  }

void fg__combine_partials(fg_reduce_op op, fg_elem elem, int width,
                    const void *partials, int64_t n, void *out) {
  switch (elem) {
#define INTCASE(E, T, UT)                                                   \
  case E:                                                                  \
    COMBINE(T, 0, UT)                                                      \
    break;
    INTCASE(FG_I8, int8_t, uint8_t)
    INTCASE(FG_U8, uint8_t, uint8_t)
    INTCASE(FG_I16, int16_t, uint16_t)
    INTCASE(FG_U16, uint16_t, uint16_t)
    INTCASE(FG_I32, int32_t, uint32_t)
    INTCASE(FG_U32, uint32_t, uint32_t)
    INTCASE(FG_I64, int64_t, uint64_t)
    INTCASE(FG_U64, uint64_t, uint64_t)
#undef INTCASE
  case FG_F32:
    COMBINE(float, 1, uint32_t)
    break;
  case FG_F64:
    COMBINE(double, 1, uint64_t)
    break;
  default:
    break;
  }
}
#undef COMBINE
