/* emit/hoist.c - read locations computed once per work-item, for dialects
 * that ask for it (OpenCL C, one point per work-item).  A clamped read at
 * coordinates that depend only on the thread (a stencil's clamp(_row + dr,
 * 0, _rows - 1), its column _column + dc) splits its flat index into a
 * row, a pointer to the clamped layer's and row's first element, and a
 * clamped column; each distinct row and column is a constant declared once
 * before the thread body, and the read becomes row[column].  A 3x3 blur
 * then clamps three rows and three columns instead of nine of each, twice,
 * and multiplies three times instead of eighteen, and PoCL's work-item
 * loop vectorizer widens it (8 lanes; gathers of clamped columns).  The
 * element read is the one fgk_at locates, so results are unchanged. */
#include "emit_impl.h"
#include "abi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether x depends only on the thread's identity and constants: no
 * variable, read, atomic or foreign call (evaluating it before the body,
 * once, is then the same as where it stands; the integer divisions the
 * dialect emits never trap). */
static bool invariant(const fg_expr *x) {
  if (!x)
    return true;
  switch (x->kind) {
  case FGK_E_CONST:
  case FGK_E_THREAD:
  case FGK_E_EXTENT:
    return true;
  case FGK_E_UNARY:
  case FGK_E_BINARY:
    return invariant(x->u.bin.a) && invariant(x->u.bin.b);
  case FGK_E_CALL:
    for (int i = 0; i < x->u.call.n; i++)
      if (!invariant(x->u.call.arg[i]))
        return false;
    return true;
  case FGK_E_CONVERT:
  case FGK_E_AS:
    return invariant(x->u.conv.a);
  default:
    return false;
  }
}

/* The name of the hoisted constant of value text (taking ownership of
 * text), declaring it on first use: a pointer to elements of type el, or
 * a long when el is FG_ELEM_COUNT_; false when out of memory. */
static bool hoisted(fgk_emitter *e, char *text, char *name, size_t size,
                    fg_elem el) {
  if (!text)
    return false;
  for (int i = 0; i < e->n_hoist; i++)
    if (!strcmp(e->hoist_text[i], text)) {
      free(text);
      snprintf(name, size, "fgk_h%d", i);
      return true;
    }
  if (e->n_hoist % 16 == 0) {
    char **t = realloc(e->hoist_text,
                       (size_t)(e->n_hoist + 16) * sizeof *t);
    if (!t) {
      free(text);
      return false;
    }
    e->hoist_text = t;
  }
  int i = e->n_hoist++;
  e->hoist_text[i] = text;
  snprintf(name, size, "fgk_h%d", i);
  if (el == FG_ELEM_COUNT_)
    fgu_buf_printf(&e->hoist, "      const long %s = %s;\n", name, text);
  else
    fgu_buf_printf(&e->hoist, "      __global const %s *const %s = %s;\n",
                   e->d->type_name(fgk_t(el, 1)), name, text);
  return true;
}

/* Whether coordinate x of a read of input port along axis (FGE_DIM_*)
 * is the thread's own index there, unclamped or clamped by the operator
 * to [lo <= 0, _<axis>s - 1], and the input as long as the thread shape
 * on that axis: then no clamp changes it, and the taps at that index are
 * affine in the work-item (consecutive loads, not gathers).  The shapes
 * are the compiled ones: a kernel built for an input as long as the
 * threads says so in its text, so no other shape shares its build. */
static bool own_index(const fgk_emitter *e, const fg_expr *x, int port,
                      int axis) {
  static const fg_thread_const at[3] = {FG_LAYER, FG_ROW, FG_COLUMN};
  static const fg_thread_const ext[3] = {FG_LAYERS, FG_ROWS, FG_COLUMNS};
  const fgk_kernel *k = e->k;
  int64_t din[FGE_DIM_AXES], dth[FGE_DIM_AXES];
  fge_abi_shape_dims(k->in_type[port].field, din);
  fge_abi_shape_dims(k->threads, dth);
  if (k->thread_elements || k->grouped || din[axis] != dth[axis])
    return false;
  long d;
  if (x->kind == FGK_E_CALL && x->u.call.fn == FGK_FN_clamp &&
      x->u.call.n == 3) {
    const fg_expr *lo = x->u.call.arg[1];
    if (lo->kind != FGK_E_CONST || !fgk_is_int(lo->type.elem) ||
        (fgk_is_signed(lo->type.elem) ? lo->u.k.i > 0 : lo->u.k.i != 0) ||
        !fgk_thread_plus(x->u.call.arg[2], ext[axis], &d) || d != -1)
      return false;
    x = x->u.call.arg[0];
  }
  return fgk_thread_plus(x, at[axis], &d) && d == 0;
}

/* The text of coordinate x clamped into [0, n) for extent n (an
 * argument's name): an operator's own clamp(a, 0, hi) of ints becomes
 * clamp(a, 0, max(min(hi, n - 1), 0)), in one clamp the value of
 * clamping it again (a hi below 0, as _columns - 3 of one column, gives
 * hi and then 0, as there); anything else fgk_ci(x, n).  One clamp per coordinate keeps the taps of a stencil
 * from looking alike enough for the SLP vectorizer to pack them into
 * short vectors, which stops PoCL's work-item loop vectorizer. */
static char *clamped_text(fgk_emitter *e, const fg_expr *x, const char *n,
                          int port, int axis) {
  fgk_type i32 = fgk_t(FG_I32, 1);
  fgu_buf saved = e->out;
  e->out = (fgu_buf){0};
  if (own_index(e, x, port, axis)) {
    fgk_putf(e, "(long)%s", axis == FGE_DIM_LAYERS ? "_layer"
                            : axis == FGE_DIM_ROWS ? "_row" : "_column");
  } else if (x->kind == FGK_E_CALL && x->u.call.fn == FGK_FN_clamp &&
      x->u.call.n == 3 && x->type.elem == FG_I32 && x->type.width == 1 &&
      x->u.call.arg[0]->type.elem == FG_I32 &&
      x->u.call.arg[0]->type.width == 1 &&
      x->u.call.arg[1]->kind == FGK_E_CONST && x->u.call.arg[1]->u.k.i == 0) {
    fgk_put(e, "(long)clamp(");
    fgk_ex_as_type(e, x->u.call.arg[0], i32);
    fgk_put(e, ", 0, max(min(");
    fgk_ex_as_type(e, x->u.call.arg[2], i32);
    fgk_putf(e, ", (int)%s - 1), 0))", n);
  } else {
    fgk_put(e, "fgk_ci((long)(");
    fgk_ex(e, x);
    fgk_putf(e, "), %s)", n);
  }
  fgu_buf t = e->out;
  e->out = saved;
  if (t.oom) {
    fgu_buf_free(&t);
    return NULL;
  }
  return fgu_buf_take(&t);
}

bool fge_hoist_base(fgk_emitter *e, const char *buf, const fgk_access *a,
                    int n, bool big, char *ptr, size_t size) {
  const fgk_kernel *k = e->k;
  snprintf(ptr, size, "%s", buf);
  e->hoist_col[0] = 0;
  if (!e->d->hoist_reads || e->per_thread || fgk_is_reduction(k->reduce) ||
      a->ncoords <= 0 || a->ncoords > 3 || a->border > FG_BORDER_CLAMP ||
      a->port < 0 || a->port >= k->n_in)
    return false;
  for (int i = 0; i < a->ncoords; i++)
    if (!invariant(a->coord[i]))
      return false;
  const fg_expr *lc = a->ncoords == 3 ? a->coord[0] : NULL;
  const fg_expr *rc = a->ncoords >= 2 ? a->coord[a->ncoords - 2] : NULL;
  char ln[32], rn[32], cn[32];
  snprintf(ln, sizeof ln, "%s_L", buf);
  snprintf(rn, sizeof rn, "%s_R", buf);
  snprintf(cn, sizeof cn, "%s_C", buf);
  char *l = lc ? clamped_text(e, lc, ln, a->port, FGE_DIM_LAYERS) : NULL;
  char *r = rc ? clamped_text(e, rc, rn, a->port, FGE_DIM_ROWS) : NULL;
  char *c = clamped_text(e, a->coord[a->ncoords - 1], cn, a->port,
                         FGE_DIM_COLUMNS);
  fgu_buf row = {0};
  if ((!lc || l) && (!rc || r) && c) {
    /* the row's first element, (ci(l, L) * R + ci(r, R)) * C as fgk_at,
     * as a pointer: taps then share column indices, not sums */
    char l0[48];
    snprintf(l0, sizeof l0, "fgk_ci(0, %s)", ln);
    fgu_buf_printf(&row, "%s + (%s * %s + %s) * %s", buf, l ? l : l0, rn,
                   r ? r : "0", cn);
    if (!big && n > 1)
      fgu_buf_printf(&row, " * %d", n);
  }
  free(l);
  free(r);
  char rname[32];
  bool ok = row.s && !row.oom && c;
  if (ok) {
    ok = hoisted(e, fgu_buf_take(&row), rname, sizeof rname,
                 k->in_type[a->port].elem);
    ok = hoisted(e, c, e->hoist_col, sizeof e->hoist_col, FG_ELEM_COUNT_) && ok;
  } else {
    free(c);
    fgu_buf_free(&row);
  }
  if (!ok) {
    e->hoist.oom = 1;     /* reported with the other buffers */
    e->hoist_col[0] = 0;
    return false;
  }
  snprintf(ptr, size, "%s", rname);
  return true;
}

void fge_hoist_free(fgk_emitter *e) {
  for (int i = 0; i < e->n_hoist; i++)
    free(e->hoist_text[i]);
  free(e->hoist_text);
  e->hoist_text = NULL;
  e->n_hoist = 0;
  fgu_buf_free(&e->hoist);
}
