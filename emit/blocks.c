/* emit/blocks.c - column blocks for kernels that read across rows (C
 * dialect).  A transpose or a quarter turn reads its input at a row that
 * the thread's column gives (in(_column, _row)), an affine warp at a row
 * computed from it: walking a tile row after row, each output row touches
 * a cache line in each of many input rows, and the lines are gone again
 * before the next output row, which reads the bytes beside them.  Such a
 * kernel walks its tile in blocks of columns instead, the rows inside
 * each block (the loop the column tables of emit/coltab.c run in), so a
 * block's input lines stay in the cache from one row to the next.  Every
 * point computes what it did before, in its own thread, so results are
 * unchanged. */
#include "emit_impl.h"
#include "ir/visit.h"

#include <stdlib.h>

/* Columns per block: a transpose's block reads 64 input rows, one line
 * of each in the first level cache at a time (a warp's at a small angle
 * a few more); W9's warp took 80 ms at 64, 90 at 256, 100 at 1024 or
 * unblocked. */
enum { COLUMN_BLOCK = 64, COLUMN_BLOCK_MAX = 512 };
/* A read at a row the column gives itself (a transpose or quarter turn,
 * not a warp's computed row) of pixels wider than a byte takes blocks of
 * 64 columns per byte of its pixel, rounded up to a power of two: the
 * block's row of output then spans more than a few lines.  A 4000 x
 * 3000 transpose, one thread, AMD Zen 4, at 64 / 256 / 512 columns: u8
 * 8.7 / 9.9 / 10.4 ms, u8x3 32 / 23 / 18.5, u8x4 46 / 21.4 / 23, f32
 * 17 / 12 / 12.2; the warp of u8x3, 83 at 64, 92 to 97 at 192. */

typedef struct across {
  int n_in;
  int direct;             /* -1, or the input a read found reads at a
                             row holding the column itself */
  const fgk_var **vars;   /* n_vars: variables a value of the column may
                             reach (over-approximated: any assignment) */
  int n_vars, cap;
  bool hit, oom, found;
} across;

static bool column_var(const across *a, const fgk_var *v) {
  for (int i = 0; i < a->n_vars; i++)
    if (a->vars[i] == v)
      return true;
  return false;
}

/* Sets a->hit when x is the thread's column or a variable it reaches. */
static void has_column(const fg_expr *x, void *arg) {
  across *a = arg;
  if ((x->kind == FGK_E_THREAD && x->u.thread == FG_COLUMN) ||
      (x->kind == FGK_E_VAR && column_var(a, x->u.var)))
    a->hit = true;
}

static bool holds_column(across *a, const fg_expr *x) {
  a->hit = false;
  if (x)
    fgk_visit_expr(x, &(fgk_visitor){.expr = has_column, .arg = a});
  return a->hit;
}

static void add_var(across *a, const fgk_var *v) {
  if (!v || column_var(a, v))
    return;
  if (a->n_vars == a->cap) {
    int cap = a->cap ? 2 * a->cap : 16;
    const fgk_var **p = realloc(a->vars, (size_t)cap * sizeof *p);
    if (!p) {
      a->oom = true;
      return;
    }
    a->vars = p;
    a->cap = cap;
  }
  a->vars[a->n_vars++] = v;
}

/* Adds the variables of x (an assignment's target) to the set. */
static void target_vars(const fg_expr *x, void *arg) {
  if (x->kind == FGK_E_VAR)
    add_var(arg, x->u.var);
}

/* One pass of the propagation: a variable assigned a value holding the
 * column, or a variable that holds it, holds it too. */
static void propagate(const fgk_stmt *s, void *arg) {
  across *a = arg;
  if (s->kind == FGK_S_ASSIGN && holds_column(a, s->u.assign.rhs))
    fgk_visit_expr(s->u.assign.lhs,
                   &(fgk_visitor){.expr = target_vars, .arg = a});
  else if (s->kind == FGK_S_FOR && (holds_column(a, s->u.for_.init) ||
                                    holds_column(a, s->u.for_.step)))
    add_var(a, s->u.for_.var);
}

/* Records a read of an input whose row coordinate holds the column. */
static void read_across(const fg_expr *x, void *arg) {
  across *a = arg;
  const fgk_access *r = &x->u.read;
  if (x->kind != FGK_E_READ || r->port < 0 || r->port >= a->n_in ||
      r->ncoords < 2 || a->found)
    return;
  a->found = holds_column(a, r->coord[r->ncoords - 2]);
  across itself = {.n_in = a->n_in};
  if (a->found && holds_column(&itself, r->coord[r->ncoords - 2]))
    a->direct = r->port;
}

int fge_column_block(const fgk_emitter *e) {
  const fgk_kernel *k = e->k;
  /* the C dialect's column-block loop; OpenCL's strips have none */
  if (e->d->id != FGK_DIALECT_C || !e->d->column_tables || k->grouped || fgk_is_reduction(k->reduce) ||
      k->thread_elements || k->n_in <= 0 || e->flat || e->coltab ||
      fge_stencil_bounds(e, NULL))
    return 0;
  across a = {.n_in = k->n_in, .direct = -1};
  int n;
  do {
    n = a.n_vars;
    fgk_visit_block(&k->body, &(fgk_visitor){.stmt = propagate, .arg = &a});
  } while (a.n_vars > n && !a.oom);
  if (!a.oom)
    fgk_visit_block(&k->body,
                    &(fgk_visitor){.expr = read_across, .arg = &a});
  free(a.vars);
  if (!a.found || a.oom)
    return 0;
  int block = COLUMN_BLOCK;
  if (a.direct >= 0) {
    fg_type t = k->in_type[a.direct];
    size_t bytes = fg_elem_size(t.elem) * (size_t)fg_type_tensor_elements(t);
    while (block < COLUMN_BLOCK_MAX && (size_t)block < COLUMN_BLOCK * bytes)
      block *= 2;
  }
  return block;
}
