/* emit/stencil.c - stencils for dialects that split the column loop (the
 * C dialect).  A read whose column coordinate is the thread's own column
 * plus a constant (_column + dc, as a 3x3 blur's taps) needs clamping
 * only within |dc| of the field's edge.  Such a kernel's threads run in
 * two loops per row: an interior loop over the columns where every such
 * tap lies inside its field, whose reads are affine and unclamped in the
 * column (rows and layers stay clamped: loop-invariant there), and a
 * border loop over the rest, with the clamped reads of every other
 * kernel.  Both read the same elements, so results are unchanged. */
#include "emit_impl.h"

#include <stdlib.h>

bool fge_column_offset(const fg_expr *x, long *dc) {
  if (x->kind == FGK_E_THREAD && x->u.thread == FG_COLUMN) {
    *dc = 0;
    return true;
  }
  if (x->kind != FGK_E_BINARY ||
      (x->u.bin.op != FGK_ADD && x->u.bin.op != FGK_SUB))
    return false;
  const fg_expr *a = x->u.bin.a, *b = x->u.bin.b;
  if (x->u.bin.op == FGK_ADD && a->kind == FGK_E_CONST) {
    const fg_expr *t = a;
    a = b;
    b = t;
  }
  if (a->kind != FGK_E_THREAD || a->u.thread != FG_COLUMN ||
      b->kind != FGK_E_CONST || !fgk_is_int(b->type.elem) ||
      !fgk_is_signed(b->type.elem))
    return false;
  int64_t k = b->u.k.i;
  if (k < -65536 || k > 65536)
    return false;
  *dc = x->u.bin.op == FGK_ADD ? (long)k : -(long)k;
  return true;
}

typedef struct taps {
  int n_in;
  bool *any;      /* n_in: an input read with a column offset */
  long *lo, *hi;  /* n_in: least and greatest offset */
} taps;

/* Records the column offset of read x. */
static void tap(const fg_expr *x, void *arg) {
  taps *t = arg;
  const fgk_access *a = &x->u.read;
  long dc;
  if (x->kind != FGK_E_READ || a->ncoords == 0 || a->port < 0 ||
      a->port >= t->n_in ||
      !fge_column_offset(a->coord[a->ncoords - 1], &dc))
    return;
  int p = a->port;
  t->lo[p] = !t->any[p] || dc < t->lo[p] ? dc : t->lo[p];
  t->hi[p] = !t->any[p] || dc > t->hi[p] ? dc : t->hi[p];
  t->any[p] = true;
}

bool fge_stencil_bounds(const fgk_emitter *e, fgu_buf *out) {
  const fgk_kernel *k = e->k;
  if (!e->d->split_stencils || k->grouped || fgk_is_reduction(k->reduce) ||
      k->thread_elements || k->n_in <= 0)
    return false;
  taps t = {.n_in = k->n_in};
  t.any = calloc((size_t)k->n_in, sizeof *t.any);
  t.lo = calloc((size_t)k->n_in, sizeof *t.lo);
  t.hi = calloc((size_t)k->n_in, sizeof *t.hi);
  bool found = false;
  if (t.any && t.lo && t.hi) {
    fge_visit_block(&k->body, tap, &t);
    for (int p = 0; p < k->n_in; p++)
      found |= t.any[p];
  }
  if (found && out) {
    /* [fgk_lo, fgk_hi): the columns where every tap of every input lies
     * inside that input's columns, within this launch's [c0, c1) */
    fgu_buf_puts(out, "    long fgk_lo = fgk_c0, fgk_hi = fgk_c1;\n");
    for (int p = 0; p < k->n_in; p++) {
      if (!t.any[p])
        continue;
      fgu_buf_printf(out, "    if (fgk_lo < %ldL) fgk_lo = %ldL;\n",
                     -t.lo[p], -t.lo[p]);
      fgu_buf_printf(out, "    if (fgk_hi > in%d_C - %ldL) fgk_hi = in%d_C - "
                     "%ldL;\n", p, t.hi[p], p, t.hi[p]);
    }
    fgu_buf_puts(out, "    if (fgk_hi < fgk_lo) fgk_hi = fgk_lo;\n");
  }
  free(t.any);
  free(t.lo);
  free(t.hi);
  return found;
}
