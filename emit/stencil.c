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

static void visit(taps *t, const fg_expr *x);

static void visit_all(taps *t, struct fg_expr *const *a, int n) {
  for (int i = 0; i < n; i++)
    visit(t, a[i]);
}

/* Records the column offsets of the reads in x. */
static void visit(taps *t, const fg_expr *x) {
  if (!x)
    return;
  switch (x->kind) {
  case FGK_E_READ: {
    const fgk_access *a = &x->u.read;
    long dc;
    if (a->ncoords > 0 && a->port >= 0 && a->port < t->n_in &&
        fge_column_offset(a->coord[a->ncoords - 1], &dc)) {
      int p = a->port;
      t->lo[p] = !t->any[p] || dc < t->lo[p] ? dc : t->lo[p];
      t->hi[p] = !t->any[p] || dc > t->hi[p] ? dc : t->hi[p];
      t->any[p] = true;
    }
    visit_all(t, a->coord, a->ncoords);
    visit(t, a->elem);
    break;
  }
  case FGK_E_UNARY:
  case FGK_E_BINARY:
    visit(t, x->u.bin.a);
    visit(t, x->u.bin.b);
    break;
  case FGK_E_CALL:
    visit_all(t, x->u.call.arg, x->u.call.n);
    break;
  case FGK_E_SWIZZLE:
    visit(t, x->u.swz.a);
    break;
  case FGK_E_VECTOR:
    visit_all(t, x->u.vec.arg, x->u.vec.n);
    break;
  case FGK_E_CONVERT:
  case FGK_E_AS:
    visit(t, x->u.conv.a);
    break;
  case FGK_E_INDEX:
    visit_all(t, x->u.index.idx, x->u.index.n);
    break;
  case FGK_E_ADDR:
    visit(t, x->u.addr);
    break;
  case FGK_E_ATOMIC:
    visit(t, x->u.atomic.p);
    visit(t, x->u.atomic.a);
    visit(t, x->u.atomic.b);
    break;
  case FGK_E_RSCALL:
    visit_all(t, x->u.rs.arg, x->u.rs.n);
    break;
  default:
    break;
  }
}

static void visit_block(taps *t, const fgk_block *b) {
  for (const fgk_stmt *s = b->first; s; s = s->next) {
    switch (s->kind) {
    case FGK_S_ASSIGN:
      visit(t, s->u.assign.lhs);
      visit(t, s->u.assign.rhs);
      break;
    case FGK_S_IF:
      visit(t, s->u.if_.cond);
      visit_block(t, &s->u.if_.then);
      visit_block(t, &s->u.if_.els);
      break;
    case FGK_S_FOR:
      visit(t, s->u.for_.init);
      visit(t, s->u.for_.cond);
      visit(t, s->u.for_.step);
      visit_block(t, &s->u.for_.body);
      break;
    case FGK_S_WHILE:
      visit(t, s->u.while_.cond);
      visit_block(t, &s->u.while_.body);
      break;
    case FGK_S_FOREACH:
      visit_block(t, &s->u.foreach.body);
      break;
    case FGK_S_WRITE:
      visit_all(t, s->u.write.at.coord, s->u.write.at.ncoords);
      visit(t, s->u.write.at.elem);
      visit(t, s->u.write.value);
      break;
    case FGK_S_EXPR:
      visit(t, s->u.expr);
      break;
    default:
      break;
    }
  }
}

bool fge_stencil_bounds(const fgk_emitter *e, fgu_buf *out) {
  const fgk_kernel *k = e->k;
  if (!e->d->split_stencils || k->grouped || k->reduce ||
      k->thread_elements || k->n_in <= 0)
    return false;
  taps t = {.n_in = k->n_in};
  t.any = calloc((size_t)k->n_in, sizeof *t.any);
  t.lo = calloc((size_t)k->n_in, sizeof *t.lo);
  t.hi = calloc((size_t)k->n_in, sizeof *t.hi);
  bool found = false;
  if (t.any && t.lo && t.hi) {
    visit_block(&t, &k->body);
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
