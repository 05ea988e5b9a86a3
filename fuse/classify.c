/* fuse/classify.c - what an operator's IR says about its edges: which
 * inputs it reads only locally (implicit addressing of whole tensors),
 * and whether it is simple enough to fuse (each output written once by a
 * top-level local _writeTensor; no work-group features, per-element
 * threads, for-each loops, element writes or explicit writes). */
#include "fuse.h"

/* Marks in nonlocal[] every input port that e reads other than by a local
 * whole-tensor read. */
static void scan_expr(const fg_expr *e, bool *nonlocal) {
  if (!e)
    return;
  switch (e->kind) {
  case FGK_E_READ:
    if (e->u.read.ncoords > 0 || e->u.read.element)
      nonlocal[e->u.read.port] = true;
    for (int i = 0; i < e->u.read.ncoords; i++)
      scan_expr(e->u.read.coord[i], nonlocal);
    scan_expr(e->u.read.elem, nonlocal);
    break;
  case FGK_E_UNARY:
    scan_expr(e->u.bin.a, nonlocal);
    break;
  case FGK_E_BINARY:
    scan_expr(e->u.bin.a, nonlocal);
    scan_expr(e->u.bin.b, nonlocal);
    break;
  case FGK_E_CALL:
    for (int i = 0; i < e->u.call.n; i++)
      scan_expr(e->u.call.arg[i], nonlocal);
    break;
  case FGK_E_SWIZZLE:
    scan_expr(e->u.swz.a, nonlocal);
    break;
  case FGK_E_VECTOR:
    for (int i = 0; i < e->u.vec.n; i++)
      scan_expr(e->u.vec.arg[i], nonlocal);
    break;
  case FGK_E_CONVERT:
  case FGK_E_AS:
    scan_expr(e->u.conv.a, nonlocal);
    break;
  case FGK_E_INDEX:
    for (int i = 0; i < e->u.index.n; i++)
      scan_expr(e->u.index.idx[i], nonlocal);
    break;
  case FGK_E_ADDR:
    scan_expr(e->u.addr, nonlocal);
    break;
  case FGK_E_ATOMIC:
    scan_expr(e->u.atomic.p, nonlocal);
    scan_expr(e->u.atomic.a, nonlocal);
    scan_expr(e->u.atomic.b, nonlocal);
    break;
  case FGK_E_FOREIGN:
    /* the callee reads its ports (a script's globals and bound
     * allocations, say) anywhere */
    for (int i = 0; i < e->u.foreign.n; i++)
      scan_expr(e->u.foreign.arg[i], nonlocal);
    for (int i = 0; i < e->u.foreign.n_ports; i++)
      if (e->u.foreign.port[i] >= 0)
        nonlocal[e->u.foreign.port[i]] = true;
    break;
  default:
    break;
  }
}

/* Whether e is a foreign call that writes an output itself (its value
 * is written or assigned too, as a RenderScript kernel that returns a
 * value and also sets elements of an allocation). */
static bool writes_itself(const fg_expr *e) {
  return e && e->kind == FGK_E_FOREIGN && e->u.foreign.out_port >= 0;
}

/* Scans a block; returns false (with why) when it makes the node
 * unfusable. */
static bool scan_block(const fgk_block *b, bool top, bool *nonlocal,
                       int *local_writes, const char **why) {
  bool ok = true;
  for (const fgk_stmt *s = b->first; s; s = s->next) {
    switch (s->kind) {
    case FGK_S_ASSIGN:
      scan_expr(s->u.assign.lhs, nonlocal);
      scan_expr(s->u.assign.rhs, nonlocal);
      if (writes_itself(s->u.assign.rhs)) {
        *why = "writes an output inside a foreign call";
        ok = false;
      }
      break;
    case FGK_S_IF:
      scan_expr(s->u.if_.cond, nonlocal);
      ok &= scan_block(&s->u.if_.then, false, nonlocal, local_writes, why);
      ok &= scan_block(&s->u.if_.els, false, nonlocal, local_writes, why);
      break;
    case FGK_S_FOR:
      scan_expr(s->u.for_.init, nonlocal);
      scan_expr(s->u.for_.cond, nonlocal);
      scan_expr(s->u.for_.step, nonlocal);
      ok &= scan_block(&s->u.for_.body, false, nonlocal, local_writes, why);
      break;
    case FGK_S_WHILE:
      scan_expr(s->u.while_.cond, nonlocal);
      ok &= scan_block(&s->u.while_.body, false, nonlocal, local_writes, why);
      break;
    case FGK_S_FOREACH:
      *why = "big-tensor for-each";
      ok = false;
      scan_block(&s->u.foreach.body, false, nonlocal, local_writes, why);
      break;
    case FGK_S_EXPR:
      scan_expr(s->u.expr, nonlocal);
      if (s->u.expr->kind == FGK_E_FOREIGN &&
          s->u.expr->u.foreign.out_port >= 0) {
        *why = "writes its output inside a foreign call";
        ok = false;
      }
      break;
    case FGK_S_WRITE: {
      const fgk_access *a = &s->u.write.at;
      scan_expr(s->u.write.value, nonlocal);
      if (writes_itself(s->u.write.value)) {
        *why = "writes an output inside a foreign call";
        ok = false;
      }
      for (int i = 0; i < a->ncoords; i++)
        scan_expr(a->coord[i], nonlocal);
      scan_expr(a->elem, nonlocal);
      if (a->ncoords > 0 || a->element || !top) {
        *why = a->element ? "element write" : "non-local write";
        ok = false;
      } else {
        local_writes[a->port]++;
      }
      break;
    }
    default:
      break;
    }
  }
  return ok;
}

bool fgf_classify(const fg__node *n, fgu_arena *a, fgf_node_info *info) {
  const fgk_kernel *k = n->kernel;
  bool *nonlocal = fgu_arena_alloc(a, (size_t)(k->n_in + 1) * sizeof *nonlocal);
  info->read_local = fgu_arena_alloc(a, (size_t)(k->n_in + 1) *
                                            sizeof *info->read_local);
  if (!nonlocal || !info->read_local)
    return false;
  int local_writes[FG_MAX_OUTPUTS] = {0};
  const char *why = NULL;
  bool ok = scan_block(&k->body, true, nonlocal, local_writes, &why);
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
    if (local_writes[i] != 1) {
      ok = false;
      why = "output not written by one _writeTensor";
    }
  for (int i = 0; i < k->n_in; i++)
    info->read_local[i] = !nonlocal[i];
  info->simple = ok;
  info->why_not = ok ? NULL : why;
  return true;
}
