/* ir/foreign.h - foreign calls: calls from kernel IR into code that a
 * front end carries along (a RenderScript script, say), and the text
 * writer through which such a call puts itself into a kernel's source.
 *
 * An FGK_E_FOREIGN expression (ir/ir.h) names its callee only through a
 * hook table and an opaque payload, both the front end's: the fusion
 * pass treats the call as opaque (its ports are read non-locally, it runs
 * exactly once per thread), and the emitter asks the hooks to write it.
 * The hooks write through an fgk_writer, which the emitter implements
 * over its own state, so a front end never sees the emitter and the
 * emitter never names a front end.
 *
 * A kernel whose reduction is FGK_REDUCE_FOREIGN (ir/ir.h) accumulates
 * by a foreign call: its reduction output's write has that call as its
 * value, and the same hooks then declare the accumulator and store each
 * partial into the output.
 *
 * Names the hooks may use in the text they write (the emitter's kernel
 * ABI, emit/emit.h): in<k> and out<k> are the buffers of input and
 * output port k, in<k>_C, _R, _L their columns, rows and layers (present
 * for the axes a field has); _column, _row, _layer and _columns, _rows,
 * _layers the thread's coordinates and the thread shape; in a reduction
 * kernel fgk_acc is the accumulator, fgk_p the partial being accumulated
 * and fgk_P the number of partials.  Internal; prefix fgk_. */
#ifndef FG_IR_FOREIGN_H
#define FG_IR_FOREIGN_H

#include "ir/ir.h"

#include <stdarg.h>

/* The source dialect text is written in. */
typedef enum fgk_dialect { FGK_DIALECT_C, FGK_DIALECT_CL } fgk_dialect;

/* ---- the text writer ---------------------------------------------------- */

typedef struct fgk_writer fgk_writer;

/* What a writer does; every slot is required.  "The text" is where the
 * emitter is writing when it calls a hook: the thread body, or the
 * kernel's opening for an accumulator's declaration. */
typedef struct fgk_writer_i {
  /* Appends s (or the formatted arguments) to the text. */
  void (*put)(fgk_writer *w, const char *s);
  void (*vprintf)(fgk_writer *w, const char *fmt, va_list ap);
  /* Appends expression x, an operand of the call, to the text. */
  void (*expr)(fgk_writer *w, const fg_expr *x);
  /* Spelling of IR type t in the dialect ("float4", "uchar"). */
  const char *(*type_name)(fgk_writer *w, fgk_type t);
  fgk_dialect (*dialect)(fgk_writer *w);
  /* The kernel being written (its ports' types, its thread shape). */
  const fgk_kernel *(*kernel)(fgk_writer *w);
  /* The helper section: text placed before the kernel function, in
   * order of first use; helpers append to it directly (its oom flag
   * reports failure).  first_use is true the first time name is seen in
   * this kernel (and records it), so each helper is written once. */
  fgu_buf *(*helpers)(fgk_writer *w);
  bool (*first_use)(fgk_writer *w, const char *name);
  /* Records that the text uses double precision. */
  void (*use_fp64)(fgk_writer *w);
  /* Puts the dialect's vectorizable float math (fgk_math_cbrtf, expf,
   * exp2f, exp10f, logf, log2f, log10f, powf, powkf of emit/math_c.c)
   * among the helpers, once per kernel; the C dialect only. */
  void (*use_math)(fgk_writer *w);
} fgk_writer_i;

/* A writer: implementations put this first in their own state. */
struct fgk_writer {
  const fgk_writer_i *i;
};

static inline void fgk_writer_put(fgk_writer *w, const char *s) {
  w->i->put(w, s);
}
void fgk_writer_printf(fgk_writer *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void fgk_writer_expr(fgk_writer *w, const fg_expr *x) {
  w->i->expr(w, x);
}
static inline const char *fgk_writer_type(fgk_writer *w, fgk_type t) {
  return w->i->type_name(w, t);
}
static inline fgk_dialect fgk_writer_dialect(fgk_writer *w) {
  return w->i->dialect(w);
}
static inline const fgk_kernel *fgk_writer_kernel(fgk_writer *w) {
  return w->i->kernel(w);
}
static inline fgu_buf *fgk_writer_helpers(fgk_writer *w) {
  return w->i->helpers(w);
}
static inline bool fgk_writer_first_use(fgk_writer *w, const char *name) {
  return w->i->first_use(w, name);
}
static inline void fgk_writer_use_fp64(fgk_writer *w) { w->i->use_fp64(w); }
static inline void fgk_writer_use_math(fgk_writer *w) { w->i->use_math(w); }

/* Writes an identifier made from name (letters, digits, '_'; "k_" in
 * front when it would start with a digit or be empty) into out, size
 * bytes: what generated code names things after kernels and scripts. */
void fgk_identifier(const char *name, char *out, size_t size);

/* ---- the hooks of a foreign call ----------------------------------------- */

/* How a foreign call is written; a front end fills one per kind of call
 * (designated initializers).  x is the FGK_E_FOREIGN expression; its
 * u.foreign.payload says what it calls. */
struct fgk_foreign_i {
  const char *name;           /* for messages: "RenderScript" */
  /* Writes the call as an expression of type x->type (helpers it needs go
   * to the helper section). */
  void (*emit)(fgk_writer *w, const fg_expr *x);
  /* For FGK_REDUCE_FOREIGN kernels whose accumulating call is x: writes
   * the statements declaring and initializing the accumulator fgk_acc of
   * one partial.  NULL when the call never accumulates. */
  void (*acc_decl)(fgk_writer *w, const fg_expr *x);
  /* Writes the statements storing partial fgk_p's accumulator into
   * output port `port`.  NULL when the call never accumulates. */
  void (*store_partial)(fgk_writer *w, const fg_expr *x, int port);
  /* Whether the callee's code needs double precision (what the compiler
   * checks against the device's capabilities before building).  NULL:
   * only if its operands or result do. */
  bool (*uses_fp64)(const fg_expr *x);
};

/* The hooks' wrappers; the reduction hooks do nothing where NULL. */
static inline void fgk_foreign_emit(fgk_writer *w, const fg_expr *x) {
  x->u.foreign.hooks->emit(w, x);
}
static inline void fgk_foreign_acc_decl(fgk_writer *w, const fg_expr *x) {
  if (x->u.foreign.hooks->acc_decl)
    x->u.foreign.hooks->acc_decl(w, x);
}
static inline void fgk_foreign_store_partial(fgk_writer *w, const fg_expr *x,
                                             int port) {
  if (x->u.foreign.hooks->store_partial)
    x->u.foreign.hooks->store_partial(w, x, port);
}

#endif
