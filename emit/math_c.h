/* emit/math_c.h - the C dialect's vectorizable float math (emit/math_c.c),
 * which OpenCL C on a CPU device uses too.  Internal. */
#ifndef FG_EMIT_MATH_C_H
#define FG_EMIT_MATH_C_H

#include "emit_impl.h"

/* The spelling (a c_template of the built-in table, with %0 and %1 for
 * the arguments) of built-in call (a FGK_E_CALL) when the dialect
 * (C, or OpenCL C on a CPU device) computes it with these routines: cbrt,
 * exp, exp2, exp10, log, log2, log10, pow, pown and powr on f32.  The first such
 * call of a kernel adds the routines, in e's dialect, to its helpers
 * (before the helper being written).  NULL for every other function and
 * type (of the first argument): the table's spelling stands. */
const char *fge_math_c_template(fgk_emitter *e, const fg_expr *call);
/* Whether call is pow or pown of f32 whose exponent is a constant of the
 * kernel (every component, folded through negation, + - * / and
 * conversions) no larger than 16 in magnitude: its spelling is then the
 * cheaper fgk_math_powkf, and a helper that holds it is named apart. */
bool fge_math_c_const_exponent(const fg_expr *call);
/* The same spelling without adding anything to a kernel (what the fusion
 * cost rule asks: these routines vectorize). */
const char *fge_math_c_spelling(fgk_builtin fn, fg_elem el);
/* Puts the routines among the helpers of e, once, where e's dialect is C
 * (a front end's text calls them: RenderScript's float math, rs/compat.c);
 * other dialects have their own.  Such kernels keep their vector width:
 * fge_math_c_used counts the calls fge_math_c_template spells. */
void fge_math_c_require(fgk_emitter *e);
/* Whether the kernel e writes calls these routines through
 * fge_math_c_template (their helpers are among its helpers). */
bool fge_math_c_used(const fgk_emitter *e);

#endif
