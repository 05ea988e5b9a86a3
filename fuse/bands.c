/* fuse/bands.c - which kernels may run interleaved in bands of rows.  A
 * separable filter is two kernels: a horizontal pass that writes a
 * full-size intermediate and a vertical pass that reads it a few rows
 * above and below its own.  Run one after the other, the intermediate
 * goes out to memory and comes back; run in bands (the producer's rows
 * for a band, then the consumer's rows those complete, as Halide's
 * compute_at/store_at sliding window) it is read while still in cache.
 * Nothing about the kernels changes: each runs the same threads on the
 * same inputs, only the order of their rows does, so results are the
 * same bits.  This file says, from the IR, whether a kernel qualifies;
 * the compile (runtime/compile.c) pairs the kernels and a backend that
 * can (fg__be_launch_band) runs them. */
#include "fuse.h"
#include "ir/visit.h"

#include <stdlib.h>

/* Whether x is _row + d, d + _row or _row - d, d a constant or a counted
 * loop's variable of kernel k (fgk_counter_range: a stencil's taps in a
 * loop), |d| <= FGF_BAND_REACH (or _row itself), or such a row clamped
 * to the field as a stencil written with explicit clamps reads it,
 * clamp(_row + d, 0, _rows - 1) (the clamp border rule spelt out); the
 * greatest |d|. */
static bool row_plus(const fgk_kernel *k, const fg_expr *x, long *most) {
  long hi = 0;
  if (x->kind == FGK_E_CALL && x->u.call.fn == FGK_FN_clamp &&
      x->u.call.n == 3) {
    const fg_expr *l = x->u.call.arg[1];
    if (l->kind != FGK_E_CONST || !fgk_is_int(l->type.elem) ||
        l->u.k.i != 0 || !fgk_thread_plus(x->u.call.arg[2], FG_ROWS, &hi) ||
        hi != -1)
      return false;
    x = x->u.call.arg[0];
  }
  long d;
  if (fgk_thread_plus(x, FG_ROW, &d)) {
    *most = d < 0 ? -d : d;
    return *most <= FGF_BAND_REACH;
  }
  if (x->kind != FGK_E_BINARY ||
      (x->u.bin.op != FGK_ADD && x->u.bin.op != FGK_SUB))
    return false;
  const fg_expr *a = x->u.bin.a, *b = x->u.bin.b;
  if (x->u.bin.op == FGK_ADD && b->kind == FGK_E_THREAD) {
    const fg_expr *t = a;
    a = b;
    b = t;
  }
  long lo;
  if (a->kind != FGK_E_THREAD || a->u.thread != FG_ROW ||
      b->kind != FGK_E_VAR || !fgk_counter_range(k, b->u.var, &lo, &hi))
    return false;
  *most = -lo > hi ? -lo : hi;
  return *most <= FGF_BAND_REACH;
}

typedef struct reach {
  const fgk_kernel *k;
  int port;
  long most;      /* greatest |row offset| so far */
  bool ok;
  bool near_edges;
} reach;

static void reach_expr(const fg_expr *x, void *arg) {
  reach *r = arg;
  if (x->kind == FGK_E_FOREIGN) {
    /* a foreign callee reads its ports anywhere */
    for (int i = 0; i < x->u.foreign.n_ports; i++)
      if (x->u.foreign.port[i] == r->port)
        r->ok = false;
    return;
  }
  if (x->kind != FGK_E_READ || x->u.read.port != r->port ||
      x->u.read.ncoords == 0)
    return;
  long k;
  /* (row, column) or (layer, row, column); the layer is the only one of
   * a single-layer field, which the compile checks */
  if (x->u.read.ncoords < 2 ||
      !row_plus(r->k, x->u.read.coord[x->u.read.ncoords - 2], &k)) {
    r->ok = false;
    return;
  }
  r->most = k > r->most ? k : r->most;
  if (x->u.read.border == FG_BORDER_WRAP)
    r->near_edges = false;
}

bool fgf_band_reach(const fgk_kernel *k, int port, long *most,
                    bool *near_edges) {
  reach r = {.k = k, .port = port, .most = 0, .ok = true,
             .near_edges = true};
  fgk_visit_block(&k->body, &(fgk_visitor){.expr = reach_expr, .arg = &r});
  *most = r.most;
  *near_edges = r.near_edges;
  return r.ok;
}

typedef struct plain {
  const fgk_block *top;
  bool ok;
} plain;

static void plain_stmt(const fgk_stmt *s, void *arg) {
  plain *p = arg;
  if (s->kind == FGK_S_FOREACH || s->kind == FGK_S_BARRIER) {
    p->ok = false;
  } else if (s->kind == FGK_S_WRITE) {
    const fgk_access *a = &s->u.write.at;
    bool top = false;
    for (const fgk_stmt *t = p->top->first; t && !top; t = t->next)
      top = t == s;
    if (a->ncoords > 0 || a->element || !top)
      p->ok = false;
  }
}

static void plain_expr(const fg_expr *x, void *arg) {
  plain *p = arg;
  /* a foreign callee may keep state across threads (a script's
   * globals), and an atomic orders threads: rows in another order
   * could see other values */
  if (x->kind == FGK_E_FOREIGN || x->kind == FGK_E_ATOMIC)
    p->ok = false;
}

bool fgf_band_plain(const fgk_kernel *k) {
  if (k->grouped || k->thread_elements || fgk_is_reduction(k->reduce) ||
      k->out_partial || k->out_init)
    return false;
  plain p = {.top = &k->body, .ok = true};
  fgk_visit_block(&k->body, &(fgk_visitor){.expr = plain_expr,
                                           .stmt = plain_stmt, .arg = &p});
  return p.ok;
}
