/* emit/index32.c - gathers in 32 bits in the C dialect.  A kernel that
 * reads its inputs at computed coordinates (a resize, a remap: clamped
 * flat indices per point) vectorizes into gathers, whose 64-bit indices
 * halve the lanes of every index operation and of the gather itself.
 * Such a kernel gets a second copy of its threads whose clamped flat
 * indices are ints (fgk_at32), run when every input holds under 2^31 / 16
 * elements, so each index is the same number.  Only kernels whose read
 * coordinates are ints take it (a wider coordinate would not survive the
 * narrowing before its clamp), and only loop-free ones: a thread that
 * loops is not one vector lane (its gathers do not vectorize), and the
 * copy doubles the kernel's build time. */
#include "emit_impl.h"
#include "ir/visit.h"

#include <string.h>

typedef struct scan32 {
  bool bad;
} scan32;

/* Whether coordinate type t narrows to int without changing its value. */
static bool int_coord(fgk_type t) {
  if (!fgk_is_int(t.elem) || t.width != 1)
    return false;
  size_t sz = fg_elem_size(t.elem);
  return fgk_is_signed(t.elem) ? sz <= 4 : sz <= 2;
}

static void loops(const fgk_stmt *st, void *arg) {
  if (st->kind == FGK_S_FOR || st->kind == FGK_S_WHILE ||
      st->kind == FGK_S_FOREACH)
    ((scan32 *)arg)->bad = true;
}

static void check(const fg_expr *x, void *arg) {
  scan32 *s = arg;
  if (x->kind == FGK_E_FOREIGN || x->kind == FGK_E_ATOMIC) {
    s->bad = true;
    return;
  }
  if (x->kind != FGK_E_READ)
    return;
  const fgk_access *a = &x->u.read;
  for (int i = 0; i < a->ncoords; i++)
    if (a->coord[i] && !int_coord(a->coord[i]->type))
      s->bad = true;
}

bool fge_index32(const fgk_emitter *e) {
  const fgk_kernel *k = e->k;
  if (e->d->id != FGK_DIALECT_C || k->grouped ||
      fgk_is_reduction(k->reduce) || k->out_init || k->n_in <= 0 ||
      !e->out.s || !strstr(e->out.s, "fgk_at(") ||
      fge_stencil_bounds(e, NULL))
    return false;
  scan32 s = {false};
  fgk_visit_block(&k->body, &(fgk_visitor){.expr = check, .stmt = loops,
                                          .arg = &s});
  return !s.bad;
}
