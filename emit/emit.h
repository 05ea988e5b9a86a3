/* emit/emit.h - turning a kernel's IR into source text.
 *
 * The C dialect (for backend-cpu) produces one function
 *
 *   void NAME(void *const *buf, const int64_t *dim,
 *             int64_t t0, int64_t t1, int64_t c0, int64_t c1);
 *
 * buf[] holds the kernel's inputs, then its outputs; dim[] holds (layers,
 * rows, columns) for each buffer in the same order (1 for missing axes),
 * then the thread shape.  The function runs the threads whose flattened
 * (layer, row) index lies in [t0, t1) and whose column lies in [c0, c1).
 * The OpenCL C dialect (for backend-opencl) produces one __kernel taking
 * the buffers (inputs, then outputs) and then, as long arguments, the same
 * (layers, rows, columns) triples; work-item (column, flattened row) is
 * one thread, with a guard for the round-up of the global size.
 *
 * Field extents are arguments, not constants, so one build serves every
 * image size.  Internal.
 */
#ifndef FG_EMIT_EMIT_H
#define FG_EMIT_EMIT_H

#include "ir/ir.h"

typedef enum fgk_dialect { FGK_DIALECT_C, FGK_DIALECT_CL } fgk_dialect;

/* Source text of kernel k as a function named fn_name (an identifier), in
 * dialect d; malloc'd, NULL when out of memory. */
char *fgk_emit(const fgk_kernel *k, fgk_dialect d, const char *fn_name);

/* Writes an identifier made from name (letters, digits, '_') into out. */
void fgk_identifier(const char *name, char *out, size_t size);

/* Whether the thread loop of kernel k, emitted in dialect d at the given
 * precision, can be vectorized across threads (emit/vectorize.c): false
 * when it calls a function the compiler has no vector form of (scalar
 * libm on the CPU), with *why (if why) naming it.
 * The fusion cost rule keeps such operators apart from vectorizable ones. */
bool fge_vectorizes(const fgk_kernel *k, fgk_dialect d, bool relaxed,
                    const char **why);

/* Calls fn on every expression of x (x first, then its operands) or of
 * every statement of b (emit/visit.c). */
typedef void (*fge_visit_fn)(const fg_expr *x, void *arg);
void fge_visit(const fg_expr *x, fge_visit_fn fn, void *arg);
void fge_visit_block(const fgk_block *b, fge_visit_fn fn, void *arg);

#endif
