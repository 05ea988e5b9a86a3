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

/* Whether the thread loop of kernel k, emitted in dialect d at the given
 * precision, can be vectorized across threads (emit/vectorize.c): false
 * when it calls a function the compiler has no vector form of (scalar
 * libm on the CPU), with *why (if why) naming it.
 * The fusion cost rule keeps such operators apart from vectorizable ones. */
bool fge_vectorizes(const fgk_kernel *k, fgk_dialect d, bool relaxed,
                    const char **why);

/* The C dialect's helper functions (OpenCL's sign, maxmag, powr..., the
 * clamped indexing), written after fgk_c_prelude: the C text of
 * RenderScript's runtime calls them, in kernels and on the host. */
extern const char fge_c_helpers[];

#endif
