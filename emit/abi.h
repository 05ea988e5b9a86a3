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
 *             int64_t t0, int64_t t1, int64_t c0, int64_t c1,
 *             const volatile int *stop);
 *
 * runs the threads whose flattened (layer, row) index lies in [t0, t1) and
 * whose column lies in [c0, c1); a grouped kernel counts whole work-groups
 * instead of threads.
 *
 * OpenCL C dialect (backend-opencl): one __kernel taking the buffers, then
 * every dim[] entry as a long argument, in dim[] order, then the stop
 * flag as a __global volatile const int pointer.  Work-item
 * (column, flattened row) is one thread: global size 0 covers the columns,
 * 1 the rows and 2 the layers, each rounded up to the work-group (the
 * kernel guards the excess).  On a CPU device a plain kernel's work-item
 * runs a strip of columns (fge_strip), and one with column tables that
 * many rows of it (fgk_emit_target.rows): the launch divides the columns
 * and rows by them, rounding up.
 *
 * Stop flag: the run's; never NULL.  Loops that may not end (a while
 * loop, a for loop the IR cannot prove counted, unless it holds a
 * barrier; every loop of a RenderScript function body) test fgk_go(stop), false once the runtime
 * set the flag (fg_run_cancel, a deadline), and the kernel returns early;
 * its outputs are then undefined and the run fails.  Counted loops do not
 * poll (the test would keep the compiler from unrolling them).
 *
 * Field extents are arguments, not constants, so one build serves every
 * image size. */
#ifndef FG_EMIT_ABI_H
#define FG_EMIT_ABI_H

#include "fieldgraph/types.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

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

/* The C dialect's kernel function: buffers, extents, the thread range
 * [t0, t1) of flattened (layer, row) and [c0, c1) of columns, and the
 * stop flag. */
typedef void (*fge_c_kernel_fn)(void *const *buf, const int64_t *dim,
                                int64_t t0, int64_t t1, int64_t c0,
                                int64_t c1, const volatile int *stop);

/* OpenCL argument index of buffer b, and of dim[] entry i, for a kernel
 * of nbuf buffers. */
static inline unsigned fge_cl_buffer_arg(int b) { return (unsigned)b; }
static inline unsigned fge_cl_dim_arg(int nbuf, int i) {
  return (unsigned)(nbuf + i);
}
/* OpenCL argument index of the stop flag. */
static inline unsigned fge_cl_stop_arg(int nbuf) {
  return (unsigned)(nbuf + fge_abi_dim_count(nbuf));
}

/* Alignment and size of the block holding a run's stop flag: an OpenCL
 * device sharing the host's memory reads it in place (CL_MEM_USE_HOST_PTR
 * wants aligned memory). */
#define FGE_STOP_ALIGN 128

/* Whether generated source polls the stop flag: a kernel that may run
 * until it is stopped (the poll's text, fgk_go(fgk_..., appears nowhere
 * else). */
static inline bool fge_source_polls(const char *source) {
  return strstr(source, "fgk_go(fgk_") != NULL;
}

/* The line the C dialect puts in a kernel whose thread loop computes
 * values of vector type (a front end's code: RenderScript's float4 and
 * uchar4), and whether source has it: clang's loop vectorizer widens
 * scalar code only, so the CPU backend has such kernels' vector values
 * split into scalars first (backend-cpu/cpu.c). */
#define FGE_VECTOR_VALUES_LINE "/* fgk: thread loop with vector values */\n"
static inline bool fge_source_vector_values(const char *source) {
  return strstr(source, FGE_VECTOR_VALUES_LINE) != NULL;
}

/* OpenCL NDRange axis of each thread axis: columns vary fastest. */
enum { FGE_CL_AXIS_COLUMNS = 0, FGE_CL_AXIS_ROWS = 1, FGE_CL_AXIS_LAYERS = 2 };

#endif
