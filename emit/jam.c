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
 * transformation only where it proves it legal.
 *
 * Where the loops' bounds are the same for every column (fge_jam_lanes),
 * a stencil's interior instead runs FGE_LANES columns at a time with
 * the loops outside: each private variable an array of the block's
 * columns, each loop's body a loop over them (walk.c), which clang's
 * loop vectorizer widens.  A step of an axis reduction then reads a run
 * of FGE_LANES values of each layer, where 8 columns read half a cache
 * line of each: on AMD Zen 4 (1 MiB, 8-way second level cache) the
 * other half of each layer's line was often gone when the next 8
 * columns came for it, and [64, 512, 512] f32 summed over axis 0, one
 * thread, took 6 or 17 ms by where the pages fell; in lanes of 128, 4.7
 * to 4.8 ms (64: 5.5, 256: 4.7 to 5.6). */
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

/* ---- column lanes ------------------------------------------------------- */

/* Whether v is a loop counter of the lanes (the same in every column). */
bool fge_lane_uniform(const fgk_emitter *e, const fgk_var *v) {
  for (int i = 0; i < e->n_lane_uniform; i++)
    if (e->lane_uniform[i] == v)
      return true;
  return false;
}

/* Whether x has the same value in every column of a row: constants,
 * extents, the row's coordinates and the thread shape, and the lanes'
 * counters, combined by pure operations. */
static bool uniform(const fgk_emitter *e, const fg_expr *x) {
  switch (x->kind) {
  case FGK_E_CONST: case FGK_E_EXTENT:
    return true;
  case FGK_E_THREAD:
    return x->u.thread == FG_LAYER || x->u.thread == FG_ROW ||
           x->u.thread == FG_LAYERS || x->u.thread == FG_ROWS ||
           x->u.thread == FG_COLUMNS;
  case FGK_E_VAR:
    return fge_lane_uniform(e, x->u.var);
  case FGK_E_UNARY:
    return uniform(e, x->u.bin.a);
  case FGK_E_BINARY:
    return uniform(e, x->u.bin.a) && uniform(e, x->u.bin.b);
  case FGK_E_CONVERT: case FGK_E_AS:
    return uniform(e, x->u.conv.a);
  default:
    return false;
  }
}

/* Adds the bytes of the lanes' array of each variable s declares. */
static void lane_bytes(const fgk_stmt *s, void *arg) {
  if (s->kind == FGK_S_DECL)
    *(size_t *)arg += (size_t)FGE_LANES * fg_elem_size(s->u.decl->type.elem) *
                      (size_t)(s->u.decl->type.width == 3
                                   ? 4 : s->u.decl->type.width);
}

/* Whether straight block b assigns v. */
static bool assigns_var(const fgk_block *b, const fgk_var *v) {
  for (const fgk_stmt *s = b->first; s; s = s->next)
    if (s->kind == FGK_S_ASSIGN && s->u.assign.lhs->kind == FGK_E_VAR &&
        s->u.assign.lhs->u.var == v)
      return true;
  return false;
}

bool fge_jam_lanes(fgk_emitter *e) {
  const fgk_kernel *k = e->k;
  e->n_lane_uniform = 0;
  if (!e->d->jam_lanes || !fge_jam_columns(e) || e->interior_flat > 1 ||
      e->coltab || e->col_block || e->n_hoist || e->per_thread)
    return false;
  for (int i = 0; e->split && i < k->n_vars; i++)
    if (e->split[i])
      return false;
  /* the counters: every top-level loop's, set nowhere else but by
   * top-level assignments */
  for (const fgk_stmt *s = k->body.first; s; s = s->next) {
    if (s->kind == FGK_S_DECL && (s->u.decl->local || s->u.decl->ndims ||
                                  s->u.decl->volatile_))
      return false;
    if (s->kind == FGK_S_ASSIGN && s->u.assign.lhs->kind != FGK_E_VAR)
      return false;
    if (s->kind == FGK_S_FOR) {
      const fgk_var *v = s->u.for_.var;
      if (!v || v->ndims || v->local || v->type.width != 1 ||
          e->n_lane_uniform == FGE_LANE_COUNTERS)
        return false;
      if (!fge_lane_uniform(e, v))
        e->lane_uniform[e->n_lane_uniform++] = v;
    } else if (s->kind != FGK_S_DECL && s->kind != FGK_S_ASSIGN &&
               s->kind != FGK_S_WRITE && s->kind != FGK_S_COMMENT) {
      return false;
    }
  }
  /* the arrays live on the stack of a pool thread */
  size_t bytes = 0;
  fgk_visit_block(&k->body, &(fgk_visitor){.stmt = lane_bytes,
                                           .arg = &bytes});
  if (!e->n_lane_uniform || bytes > FGE_LANES_BYTES)
    return false;
  for (const fgk_stmt *s = k->body.first; s; s = s->next) {
    if (s->kind == FGK_S_ASSIGN &&
        fge_lane_uniform(e, s->u.assign.lhs->u.var) &&
        !uniform(e, s->u.assign.rhs))
      return false;
    if (s->kind != FGK_S_FOR)
      continue;
    if (!s->u.for_.init || !s->u.for_.cond || !s->u.for_.step ||
        !uniform(e, s->u.for_.init) || !uniform(e, s->u.for_.cond) ||
        !uniform(e, s->u.for_.step))
      return false;
    for (int i = 0; i < e->n_lane_uniform; i++)
      if (assigns_var(&s->u.for_.body, e->lane_uniform[i]))
        return false;
  }
  return true;
}
