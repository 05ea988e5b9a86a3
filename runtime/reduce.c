/* runtime/reduce.c - what the runtime does for a built-in reduction whose
 * partials are combined on the host: their sizes, and folding them in
 * their fixed order with the kernels' own arithmetic (wrapping integers,
 * IEEE floats), so results never depend on the backend or the number of
 * threads. */
#include "program_impl.h"
#include "ir/reduce.h"

#include "emit/abi.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* Points each partial folds at most: a fixed chunk, so that the number of
 * partials, and with it the order of operations, depends only on the
 * shape, never on the backend or the threads (ir/reduce.h). */
#define REDUCE_CHUNK FGK_REDUCE_CHUNK

void fg__reduce_plan(fg__pkernel *pk, const fgk_kernel *k) {
  int64_t n = fg_shape_points(k->threads);
  pk->partials = (n + REDUCE_CHUNK - 1) / REDUCE_CHUNK;
  if (pk->partials > FGK_MAX_PARTIALS)
    pk->partials = FGK_MAX_PARTIALS;
  pk->n_red = pk->n_kred = fgk_reduce_count(k);
  pk->kind = FG__LAUNCH_PARTIALS;
  pk->work_per_item = pk->partials ? (n + pk->partials - 1) / pk->partials
                                   : 0;
  /* the first points' indices come back as partials of their own, one
   * per partial of the value */
  for (int r = 0; r < pk->n_kred; r++) {
    pk->red[r] = fgk_reduce_at(k, r);
    pk->loc_of[r] = -1;
    if (pk->red[r].loc && pk->red[r].kind == FGK_REDUCE_BUILTIN) {
      pk->red[pk->n_red] = fgk_reduce_builtin(pk->red[r].op,
                                              pk->red[r].loc_port);
      pk->loc_of[pk->n_red++] = r;
    }
  }
  /* every reduction of the kernel has the same threads, so the same
   * partials over the same chunks (ir/reduce.h) */
  for (int r = 0; r < pk->n_red; r++) {
    int64_t *d = fge_abi_buffer_dims(pk->dims, k->n_in + pk->red[r].port);
    d[FGE_DIM_LAYERS] = d[FGE_DIM_ROWS] = 1;
    d[FGE_DIM_COLUMNS] = pk->partials;
  }
  pk->threads[0] = pk->threads[1] = 1;
  pk->threads[2] = pk->partials;
}

bool fg__reduce_on_host(const fg__pkernel *k) {
  return k->n_red > 0 && fgk_reduce_on_host(k->red[0]);
}

void fg__reduce_bytes(const fg_program *p, const fg__pkernel *k, int r,
                      size_t *partials, size_t *result) {
  fg_type t = p->f[k->field[k->n_in + k->red[r].port]].type;
  *result = (size_t)fg_type_tensor_elements(t) * fg_elem_size(t.elem);
  *partials = (size_t)k->partials * *result;
}

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


void fg__reduce_combine(const fg_program *p, const fg__pkernel *k, int r,
                        const void *partials, void *out) {
  fg_type ty = p->f[k->field[k->n_in + k->red[r].port]].type;
  fg__combine_partials(k->red[r].op, ty.elem,
                       fg_type_tensor_elements(ty), partials, k->partials,
                       out);
}

/* The first partial whose value equals the combined one (==: -0.0 is
 * +0.0, a NaN equals nothing) and that found a point: partials cover
 * increasing indices, and each holds its first point equal to its own
 * value, so this is the field's first point equal to the result.  A
 * partial whose value only equals the result as the identity (all NaNs)
 * has none (-1) and is passed over. */
#define FIRST_EQUAL(T)                                                      \
  {                                                                        \
    const T *pv = value_partials;                                          \
    T best;                                                                \
    memcpy(&best, value, sizeof best);                                     \
    for (int64_t q = 0; q < n && at < 0; q++)                              \
      if (pv[q] == best && idx[q] >= 0)                                    \
        at = idx[q];                                                       \
  }

void fg__reduce_combine_loc(const fg_program *p, const fg__pkernel *k, int r,
                            const void *value_partials, const void *value,
                            const void *partials, void *out) {
  int v = k->loc_of[r];
  assert(v >= 0);
  fg_elem elem = p->f[k->field[k->n_in + k->red[v].port]].type.elem;
  const int64_t *idx = partials;
  int64_t n = k->partials, at = -1;
  switch (elem) {
  case FG_I8: FIRST_EQUAL(int8_t) break;
  case FG_U8: FIRST_EQUAL(uint8_t) break;
  case FG_I16: FIRST_EQUAL(int16_t) break;
  case FG_U16: FIRST_EQUAL(uint16_t) break;
  case FG_I32: FIRST_EQUAL(int32_t) break;
  case FG_U32: FIRST_EQUAL(uint32_t) break;
  case FG_I64: FIRST_EQUAL(int64_t) break;
  case FG_U64: FIRST_EQUAL(uint64_t) break;
  case FG_F32: FIRST_EQUAL(float) break;
  case FG_F64: FIRST_EQUAL(double) break;
  default: break;
  }
  memcpy(out, &at, sizeof at);
}
#undef FIRST_EQUAL
