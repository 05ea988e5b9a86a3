/* emit/emit.h - turning a kernel's IR into source text.
 *
 * The C dialect (for backend-cpu) produces one C function, the OpenCL C
 * dialect (for backend-opencl) one __kernel; both follow the calling
 * convention that emit/abi.h fixes (buffer order, extent triples, thread
 * ranges, argument order).
 *
 * Field extents are arguments, not constants, so one build serves every
 * image size.  Internal.
 */
#ifndef FG_EMIT_EMIT_H
#define FG_EMIT_EMIT_H

#include "ir/foreign.h"      /* fgk_dialect */

/* Source text of kernel k as a function named fn_name (an identifier), in
 * dialect d; malloc'd, NULL when out of memory. */
char *fgk_emit(const fgk_kernel *k, fgk_dialect d, const char *fn_name);
/* What the device does with the source (fg__caps): strip > 1 asks for the
 * OpenCL C of a CPU device that widens a work-item's loops but not its
 * vector types (small tensors as scalars, the C dialect's float math), each
 * work-item running a row of strip columns as a loop; strip_rows > 1 lets
 * such a work-item whose kernel has values of the column alone run that
 * many rows of its strip, computing those values once into tables
 * (emit/coltab.c); fast_fma says that its fma is an instruction.  rows is
 * fgk_emit_for's answer: the rows one work-item runs (1, or strip_rows
 * for a strip kernel with tables), which the launch divides the rows by
 * (emit/abi.h). */
typedef struct fgk_emit_target {
  int strip;
  int strip_rows;
  bool fast_fma;
  int rows;            /* set by fgk_emit_for */
} fgk_emit_target;
/* The columns one work-item of kernel k runs in dialect d on a device that
 * takes strip (fg__caps.strip): strip for a plain OpenCL kernel (neither
 * grouped nor a reduction), else 1.  The launch divides the columns by it
 * (emit/abi.h). */
int fge_strip(const fgk_kernel *k, fgk_dialect d, int strip);
/* fgk_emit for target t (NULL: strip 1), setting t->rows. */
char *fgk_emit_for(const fgk_kernel *k, fgk_dialect d, const char *fn_name,
                   fgk_emit_target *t);

/* Whether the thread loop of kernel k, emitted in dialect d for a device
 * taking strip (fg__caps.strip) at the given precision, can be vectorized
 * across threads (emit/vectorize.c): false when it calls a function the
 * compiler has no vector form of (scalar libm on the CPU, a CPU OpenCL
 * device's own sin), with *why (if why) naming it.
 * The fusion cost rule keeps such operators apart from vectorizable ones. */
bool fge_vectorizes(const fgk_kernel *k, fgk_dialect d, int strip,
                    bool relaxed, const char **why);

/* The C dialect's helper functions (OpenCL's sign, maxmag, powr..., the
 * clamped indexing), written after fgk_c_prelude: the C text of
 * RenderScript's runtime calls them, in kernels and on the host. */
extern const char fge_c_helpers[];
/* Appends the C dialect's vectorizable float math (emit/math_c.c:
 * fgk_math_cbrtf, expf, logf, powf, ...) to b: for C a front end writes
 * outside a kernel (RenderScript's host code), whose runtime calls them. */
void fge_math_c_text(fgu_buf *b);

#endif
