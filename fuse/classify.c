/* fuse/classify.c - what an operator's IR says about its edges: which
 * inputs it reads only locally (implicit addressing of whole tensors),
 * and whether it is simple enough to fuse (each output written once by a
 * top-level local _writeTensor; no work-group features, per-element
 * threads, for-each loops, element writes or explicit writes). */
#include "fuse.h"
#include "ir/visit.h"

/* What the walk over an operator's IR collects. */
typedef struct scan {
  const fgk_block *top;   /* the kernel's body */
  bool *nonlocal;         /* per input port: read other than locally */
  int *local_writes;      /* per output port: top-level local writes */
  bool ok;
  const char *why;        /* the last reason the node cannot fuse */
} scan;

/* Marks every input port that x reads other than by a local whole-tensor
 * read; a foreign callee reads its ports (a script's globals and bound
 * allocations, say) anywhere. */
static void scan_expr(const fg_expr *x, void *arg) {
  scan *sc = arg;
  if (x->kind == FGK_E_READ) {
    if (x->u.read.ncoords > 0 || x->u.read.element)
      sc->nonlocal[x->u.read.port] = true;
  } else if (x->kind == FGK_E_FOREIGN) {
    for (int i = 0; i < x->u.foreign.n_ports; i++)
      if (x->u.foreign.port[i] >= 0)
        sc->nonlocal[x->u.foreign.port[i]] = true;
  }
}

/* Whether x is a foreign call that writes an output itself (its value
 * is written or assigned too, as a RenderScript kernel that returns a
 * value and also sets elements of an allocation). */
static bool writes_itself(const fg_expr *x) {
  return x && x->kind == FGK_E_FOREIGN && x->u.foreign.n_outs > 0;
}

static bool in_block(const fgk_block *b, const fgk_stmt *s) {
  for (const fgk_stmt *t = b->first; t; t = t->next)
    if (t == s)
      return true;
  return false;
}

static void refuse(scan *sc, const char *why) {
  sc->ok = false;
  sc->why = why;
}

/* Notes what makes the node unfusable, and counts the top-level local
 * writes of each output. */
static void scan_stmt(const fgk_stmt *s, void *arg) {
  scan *sc = arg;
  switch (s->kind) {
  case FGK_S_ASSIGN:
    if (writes_itself(s->u.assign.rhs))
      refuse(sc, "writes an output inside a foreign call");
    break;
  case FGK_S_FOREACH:
    refuse(sc, "big-tensor for-each");
    break;
  case FGK_S_EXPR:
    if (writes_itself(s->u.expr))
      refuse(sc, "writes its output inside a foreign call");
    break;
  case FGK_S_WRITE: {
    const fgk_access *a = &s->u.write.at;
    if (writes_itself(s->u.write.value))
      refuse(sc, "writes an output inside a foreign call");
    if (a->ncoords > 0 || a->element || !in_block(sc->top, s))
      refuse(sc, a->element ? "element write" : "non-local write");
    else
      sc->local_writes[a->port]++;
    break;
  }
  default:
    break;
  }
}

bool fgf_classify(const fg__node *n, fgu_arena *a, fgf_node_info *info) {
  const fgk_kernel *k = n->kernel;
  bool *nonlocal = fgu_arena_alloc(a, (size_t)(k->n_in + 1) * sizeof *nonlocal);
  info->read_local = fgu_arena_alloc(a, (size_t)(k->n_in + 1) *
                                            sizeof *info->read_local);
  if (!nonlocal || !info->read_local)
    return false;
  int local_writes[FG_MAX_OUTPUTS] = {0};
  scan sc = {&k->body, nonlocal, local_writes, true, NULL};
  fgk_visit_block(&k->body, &(fgk_visitor){.expr = scan_expr,
                                           .stmt = scan_stmt, .arg = &sc});
  bool ok = sc.ok;
  const char *why = sc.why;
  if (k->grouped) {
    ok = false;
    why = "work-group kernel";
  } else if (k->thread_elements) {
    /* several threads per point: not the one-thread-per-tensor shape of
     * the kernels it would join */
    ok = false;
    why = "per-element threads";
  }
  for (int i = 0; ok && i < k->n_out; i++)
    if (local_writes[i] != 1 &&
        !(k->reduce.loc && k->reduce.loc_port == i)) {   /* the kernel's */
      ok = false;
      why = "output not written by one _writeTensor";
    }
  for (int i = 0; i < k->n_in; i++)
    info->read_local[i] = !nonlocal[i];
  info->simple = ok;
  info->why_not = ok ? NULL : why;
  return true;
}
