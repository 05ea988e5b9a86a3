/* emit/vectorize.c - which kernels' thread loops the target compiler can
 * vectorize across threads, for the fusion cost rule (fuse/fuse.h).
 *
 * OpenCL GPUs run every work-item function in SIMT, calls included.  A CPU
 * device's strip kernels (emit/dialect_cl.c: a work-item's loop over
 * columns, which PoCL's compiler widens) are judged as the C dialect's
 * loops at full precision.  The C dialect's loops are vectorized by clang,
 * which widens arithmetic, comparisons, selects and the libm functions it
 * maps to instructions (sqrt, fabs, floor, fmin, ...), but no other call:
 * at full precision a call into scalar libm (pow, cbrt, exp, ...) keeps
 * the whole loop scalar; relaxed precision adds the functions libmvec has
 * (-fveclib=libmvec in clang 14: sin, cos, exp, log, pow).  A built-in is
 * judged by the function its C template calls: when vectorizable math
 * routines replace a libm call in the C dialect, add that name to the
 * lists below; the C dialect's own routines (math_c.c: cbrt, exp, log,
 * pow... on f32) vectorize in both precisions.  A RenderScript call counts
 * as vectorizable: its script's functions are emitted into the same
 * source, where clang inlines them. */
#include "emit.h"
#include "math_c.h"
#include "ir/visit.h"

#include <string.h>

/* Callees (without the float suffix) that clang vectorizes. */
static const char *const vector_full[] = {
  "ceil", "copysign", "fabs", "floor", "fma", "fmax", "fmin", "rint",
  "round", "sqrt", "trunc", "fgk_sign", "fgk_maxmag", "fgk_minmag", NULL};
static const char *const vector_relaxed[] = {"sin", "cos", "exp", "log",
                                             "pow", NULL};

static bool listed(const char *const *list, const char *name, size_t n) {
  for (int i = 0; list[i]; i++)
    if (strlen(list[i]) == n && !strncmp(list[i], name, n))
      return true;
  return false;
}

/* Whether built-in fn, spelled by the C dialect, vectorizes. */
static bool c_builtin_vectorizes(fgk_builtin fn, bool relaxed) {
  const char *t = fgk_builtins[fn].c_template;
  switch (fn) {
  case FGK_FN_length:
  case FGK_FN_distance:
  case FGK_FN_normalize:
  case FGK_FN_fast_length:
  case FGK_FN_fast_distance:
  case FGK_FN_fast_normalize:
    return false;            /* written whole, through ldexp */
  default:
    break;
  }
  /* every "name%f(" of the template is a call */
  for (const char *p = strstr(t, "%f("); p; p = strstr(p + 3, "%f(")) {
    const char *b = p;
    while (b > t && (b[-1] == '_' || (b[-1] >= 'a' && b[-1] <= 'z') ||
                     (b[-1] >= '0' && b[-1] <= '9')))
      b--;
    size_t n = (size_t)(p - b);
    if (!listed(vector_full, b, n) &&
        !(relaxed && listed(vector_relaxed, b, n)))
      return false;
  }
  return true;
}

typedef struct scan {
  bool relaxed;
  const char *why;
} scan;

static void check(const fg_expr *x, void *arg) {
  scan *s = arg;
  if (s->why)
    return;
  if (x->kind == FGK_E_CALL &&
      !fge_math_c_spelling(x->u.call.fn, x->u.call.n ? x->u.call.arg[0]->type.elem
                                                   : x->type.elem) &&
      !c_builtin_vectorizes(x->u.call.fn, s->relaxed))
    s->why = fgk_builtins[x->u.call.fn].name;
}

bool fge_vectorizes(const fgk_kernel *k, fgk_dialect d, int strip,
                    bool relaxed, const char **why) {
  if (why)
    *why = NULL;
  if (d != FGK_DIALECT_C && fge_strip(k, d, strip) <= 1)
    return true;
  /* a CPU OpenCL device's strips (emit/dialect_cl.c) are loops its
   * compiler widens as clang does the C dialect's, with the same float
   * math routines; its other built-ins are its own, which it inlines where
   * clang has an instruction (fabs, floor, sqrt...) and calls otherwise
   * (PoCL: sin, atan, log1p), and it maps none to a vector library */
  scan s = {.relaxed = relaxed && d == FGK_DIALECT_C};
  fgk_visit_block(&k->body, &(fgk_visitor){.expr = check, .arg = &s});
  if (why)
    *why = s.why;
  return s.why == NULL;
}
