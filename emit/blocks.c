/* emit/blocks.c - column blocks for kernels that read across rows (C
 * dialect).  A transpose or a quarter turn reads its input at a row that
 * the thread's column gives (in(_column, _row)): walking a tile row after
 * row, each output row touches one cache line in every input row, and
 * the lines are gone again before the next output row, which reads the
 * bytes beside them.  Such a kernel walks its tile in blocks of columns
 * instead, the rows inside each block (the loop the column tables of
 * emit/coltab.c run in), so a block's input lines stay in the cache from
 * one row to the next.  Every point computes what it did before, in its
 * own thread, so results are unchanged. */
#include "emit_impl.h"
#include "ir/visit.h"

/* Columns per block: input rows whose current line stays in the first
 * level cache (64 lines of 64 bytes, 4 KiB, with room for the output's
 * lines and the prefetcher's). */
enum { COLUMN_BLOCK = 64 };

/* Whether x holds the thread's column. */
static void has_column(const fg_expr *x, void *arg) {
  if (x->kind == FGK_E_THREAD && x->u.thread == FG_COLUMN)
    *(bool *)arg = true;
}

typedef struct across {
  int n_in;
  bool found;
} across;

/* Records a read of an input whose row coordinate holds the column. */
static void read_across(const fg_expr *x, void *arg) {
  across *a = arg;
  const fgk_access *r = &x->u.read;
  if (x->kind != FGK_E_READ || r->port < 0 || r->port >= a->n_in ||
      r->ncoords < 2 || a->found)
    return;
  fgk_visit_expr(r->coord[r->ncoords - 2],
                 &(fgk_visitor){.expr = has_column, .arg = &a->found});
}

int fge_column_block(const fgk_emitter *e) {
  const fgk_kernel *k = e->k;
  if (!e->d->column_tables || k->grouped || fgk_is_reduction(k->reduce) ||
      k->thread_elements || k->n_in <= 0 || e->flat || e->coltab ||
      fge_stencil_bounds(e, NULL))
    return 0;
  across a = {.n_in = k->n_in};
  fgk_visit_block(&k->body, &(fgk_visitor){.expr = read_across, .arg = &a});
  return a.found ? COLUMN_BLOCK : 0;
}
