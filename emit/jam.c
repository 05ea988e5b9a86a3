/* emit/jam.c - reductions along an axis in the C dialect: a kernel whose
 * thread loops over a reduced axis (acc = acc + in[z, row, column], as
 * fg_reduce_axes and fg_mean_axes write it, or any such loop of straight
 * code) is one dependency chain per output point, and clang vectorizes
 * no loop that holds another loop.  Unrolling the column loop and jamming
 * its copies into the inner loop (clang's unroll-and-jam, asked for by a
 * pragma) gives each inner iteration the same step of 8 adjacent
 * columns: independent chains whose reads are contiguous, as a GPU
 * reduction's block of columns does.  Each point still combines its
 * values in the same order, so results are unchanged; clang applies the
 * transformation only where it proves it legal. */
#include "emit_impl.h"
#include "ir/visit.h"

/* Whether block b holds only declarations, assignments and comments. */
static bool straight(const fgk_block *b, int *n) {
  for (const fgk_stmt *s = b->first; s; s = s->next) {
    if (s->kind != FGK_S_DECL && s->kind != FGK_S_ASSIGN &&
        s->kind != FGK_S_COMMENT)
      return false;
    (*n)++;
  }
  return true;
}

/* What jam finds in a block: loops whose bodies are straight code, and
 * anything that rules the transformation out. */
typedef struct jam_scan {
  int loops, stmts;
  bool bad;
} jam_scan;

static void scan(const fgk_block *b, jam_scan *j) {
  for (const fgk_stmt *s = b->first; s && !j->bad; s = s->next) {
    switch (s->kind) {
    case FGK_S_FOR:
      if (!straight(&s->u.for_.body, &j->stmts))
        j->bad = true;
      j->loops++;
      break;
    case FGK_S_IF:
      scan(&s->u.if_.then, j);
      scan(&s->u.if_.els, j);
      break;
    case FGK_S_DECL: case FGK_S_ASSIGN: case FGK_S_WRITE:
    case FGK_S_COMMENT:
      break;
    default:
      j->bad = true;
      break;
    }
  }
}

/* Expressions that keep the transformation out: atomics, foreign calls,
 * local arrays (indexing). */
static void bad_expr(const fg_expr *x, void *arg) {
  if (x->kind == FGK_E_ATOMIC || x->kind == FGK_E_FOREIGN ||
      x->kind == FGK_E_INDEX || x->kind == FGK_E_ADDR)
    *(bool *)arg = true;
}

bool fge_jam_columns(const fgk_emitter *e) {
  const fgk_kernel *k = e->k;
  if (!e->d->split_stencils || k->grouped || fgk_is_reduction(k->reduce) ||
      k->thread_elements || k->out_init)
    return false;
  jam_scan j = {0, 0, false};
  scan(&k->body, &j);
  if (j.bad || j.loops == 0 || j.stmts > 8)
    return false;
  bool bad = false;
  fgk_visit_block(&k->body, &(fgk_visitor){.expr = bad_expr, .arg = &bad});
  return !bad;
}
