/* runtime/reduce.c - what the runtime does for a built-in reduction whose
 * partials are combined on the host: their sizes, and folding them in
 * their fixed order with the kernels' own arithmetic (wrapping integers,
 * IEEE floats), so results never depend on the backend or the number of
 * threads. */
#include "program_impl.h"
#include "ir/reduce.h"

#include "emit/abi.h"

#include <math.h>

/* Points each partial folds at most: a fixed chunk, so that the number of
 * partials, and with it the order of operations, depends only on the
 * shape, never on the backend or the threads (ir/reduce.h). */
#define REDUCE_CHUNK FGK_REDUCE_CHUNK

void fg__reduce_plan(fg__pkernel *pk, const fgk_kernel *k) {
  int64_t n = fg_shape_points(k->threads);
  pk->partials = (n + REDUCE_CHUNK - 1) / REDUCE_CHUNK;
  if (pk->partials > FGK_MAX_PARTIALS)
    pk->partials = FGK_MAX_PARTIALS;
  pk->n_red = fgk_reduce_count(k);
  pk->kind = FG__LAUNCH_PARTIALS;
  pk->work_per_item = pk->partials ? (n + pk->partials - 1) / pk->partials
                                   : 0;
  /* every reduction of the kernel has the same threads, so the same
   * partials over the same chunks (ir/reduce.h) */
  for (int r = 0; r < pk->n_red; r++) {
    pk->red[r] = fgk_reduce_at(k, r);
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
