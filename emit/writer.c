/* emit/writer.c - the text writer of ir/foreign.h over an emitter: what a
 * foreign call's hooks (a front end's) may do to the kernel being written,
 * and nothing more.  Their text goes where the emitter is writing, their
 * helpers to its helper section. */
#include "emit_impl.h"
#include "math_c.h"

/* The emitter a writer belongs to: the writer is its first member. */
static fgk_emitter *em(fgk_writer *w) { return (fgk_emitter *)w; }

static void w_put(fgk_writer *w, const char *s) { fgk_put(em(w), s); }

static void w_vprintf(fgk_writer *w, const char *fmt, va_list ap) {
  fgu_buf_vprintf(&em(w)->out, fmt, ap);
}

static void w_expr(fgk_writer *w, const fg_expr *x) { fgk_ex(em(w), x); }

static const char *w_type_name(fgk_writer *w, fgk_type t) {
  return em(w)->d->type_name(t);
}

static fgk_dialect w_dialect(fgk_writer *w) {
  return em(w)->d->id;
}

static const fgk_kernel *w_kernel(fgk_writer *w) { return em(w)->k; }

static fgu_buf *w_helpers(fgk_writer *w) { return &em(w)->help; }

static bool w_first_use(fgk_writer *w, const char *name) {
  return fgk_first_use(em(w), name);
}

static void w_use_fp64(fgk_writer *w) { em(w)->uses_fp64 = true; }

static void w_use_math(fgk_writer *w) { fge_math_c_require(em(w)); }

const fgk_writer_i fge_writer_i = {
  .put = w_put,
  .vprintf = w_vprintf,
  .expr = w_expr,
  .type_name = w_type_name,
  .dialect = w_dialect,
  .kernel = w_kernel,
  .helpers = w_helpers,
  .first_use = w_first_use,
  .use_fp64 = w_use_fp64,
  .use_math = w_use_math,
};
