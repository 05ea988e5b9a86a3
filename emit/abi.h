/* emit/abi.h - the calling convention of generated kernels, in one place:
 * the emitters write it, the runtime lays out its arguments, the backends
 * pass them.  Internal; prefix fge_.
 *
 * Buffers: a kernel takes its n_in inputs, then its n_out outputs, one
 * pointer (C) or __global pointer (OpenCL) each.
 *
 * Extents: dim[] holds one (layers, rows, columns) triple per buffer in
 * the same order (1 for a missing axis), then one more triple, the thread
 * shape the kernel iterates.  A reduction kernel iterates that shape
 * itself and is launched over its partials instead.
 *
 * C dialect (backend-cpu): one function
 *
 *   void NAME(void *const *buf, const int64_t *dim,
 *             int64_t t0, int64_t t1, int64_t c0, int64_t c1);
 *
 * runs the threads whose flattened (layer, row) index lies in [t0, t1) and
 * whose column lies in [c0, c1); a grouped kernel counts whole work-groups
 * instead of threads.
 *
 * OpenCL C dialect (backend-opencl): one __kernel taking the buffers, then
 * every dim[] entry as a long argument, in dim[] order.  Work-item
 * (column, flattened row) is one thread: global size 0 covers the columns,
 * 1 the rows and 2 the layers, each rounded up to the work-group (the
 * kernel guards the excess).
 *
 * Field extents are arguments, not constants, so one build serves every
 * image size. */
#ifndef FG_EMIT_ABI_H
#define FG_EMIT_ABI_H

#include "fieldgraph/types.h"

#include <stdint.h>

/* Entries of one extent triple. */
enum { FGE_DIM_LAYERS, FGE_DIM_ROWS, FGE_DIM_COLUMNS, FGE_DIM_AXES };

/* Entries of dim[] for a kernel of nbuf buffers. */
static inline int fge_abi_dim_count(int nbuf) {
  return FGE_DIM_AXES * (nbuf + 1);
}

/* The triple of buffer b (0 <= b < nbuf) in dim[]. */
static inline int64_t *fge_abi_buffer_dims(int64_t *dim, int b) {
  return dim + FGE_DIM_AXES * b;
}
static inline const int64_t *fge_abi_buffer_dims_c(const int64_t *dim,
                                                   int b) {
  return dim + FGE_DIM_AXES * b;
}

/* The thread-shape triple in dim[], after the nbuf buffers' triples. */
static inline const int64_t *fge_abi_thread_dims(const int64_t *dim,
                                                 int nbuf) {
  return dim + FGE_DIM_AXES * nbuf;
}

/* The extent triple of a field of shape s (a 2-D field is one layer). */
static inline void fge_abi_shape_dims(fg_shape s, int64_t *d) {
  d[FGE_DIM_LAYERS] = s.ndim == 3 ? s.dim[0] : 1;
  d[FGE_DIM_ROWS] = s.ndim >= 2 ? s.dim[s.ndim - 2] : 1;
  d[FGE_DIM_COLUMNS] = s.ndim >= 1 ? s.dim[s.ndim - 1] : 1;
}

/* Points of a triple. */
static inline int64_t fge_abi_points(const int64_t *triple) {
  return triple[FGE_DIM_LAYERS] * triple[FGE_DIM_ROWS] *
         triple[FGE_DIM_COLUMNS];
}

/* The C dialect's kernel function: buffers, extents, then the thread range
 * [t0, t1) of flattened (layer, row) and [c0, c1) of columns. */
typedef void (*fge_c_kernel_fn)(void *const *buf, const int64_t *dim,
                                int64_t t0, int64_t t1, int64_t c0,
                                int64_t c1);

/* OpenCL argument index of buffer b, and of dim[] entry i, for a kernel
 * of nbuf buffers. */
static inline unsigned fge_cl_buffer_arg(int b) { return (unsigned)b; }
static inline unsigned fge_cl_dim_arg(int nbuf, int i) {
  return (unsigned)(nbuf + i);
}

/* OpenCL NDRange axis of each thread axis: columns vary fastest. */
enum { FGE_CL_AXIS_COLUMNS = 0, FGE_CL_AXIS_ROWS = 1, FGE_CL_AXIS_LAYERS = 2 };

#endif
