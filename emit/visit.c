/* emit/visit.c - a read-only walk over every expression of a kernel's IR
 * (statements, nested expressions, access coordinates), for the analyses
 * of emission (stencil taps, calls that keep a loop scalar). */
#include "emit.h"

static void visit_all(struct fg_expr *const *a, int n, fge_visit_fn fn,
                      void *arg) {
  for (int i = 0; i < n; i++)
    fge_visit(a[i], fn, arg);
}

void fge_visit(const fg_expr *x, fge_visit_fn fn, void *arg) {
  if (!x)
    return;
  fn(x, arg);
  switch (x->kind) {
  case FGK_E_READ:
    visit_all(x->u.read.coord, x->u.read.ncoords, fn, arg);
    fge_visit(x->u.read.elem, fn, arg);
    break;
  case FGK_E_UNARY:
  case FGK_E_BINARY:
    fge_visit(x->u.bin.a, fn, arg);
    fge_visit(x->u.bin.b, fn, arg);
    break;
  case FGK_E_CALL:
    visit_all(x->u.call.arg, x->u.call.n, fn, arg);
    break;
  case FGK_E_SWIZZLE:
    fge_visit(x->u.swz.a, fn, arg);
    break;
  case FGK_E_VECTOR:
    visit_all(x->u.vec.arg, x->u.vec.n, fn, arg);
    break;
  case FGK_E_CONVERT:
  case FGK_E_AS:
    fge_visit(x->u.conv.a, fn, arg);
    break;
  case FGK_E_INDEX:
    visit_all(x->u.index.idx, x->u.index.n, fn, arg);
    break;
  case FGK_E_ADDR:
    fge_visit(x->u.addr, fn, arg);
    break;
  case FGK_E_ATOMIC:
    fge_visit(x->u.atomic.p, fn, arg);
    fge_visit(x->u.atomic.a, fn, arg);
    fge_visit(x->u.atomic.b, fn, arg);
    break;
  case FGK_E_FOREIGN:
    visit_all(x->u.foreign.arg, x->u.foreign.n, fn, arg);
    break;
  default:
    break;
  }
}

void fge_visit_block(const fgk_block *b, fge_visit_fn fn, void *arg) {
  for (const fgk_stmt *s = b->first; s; s = s->next) {
    switch (s->kind) {
    case FGK_S_ASSIGN:
      fge_visit(s->u.assign.lhs, fn, arg);
      fge_visit(s->u.assign.rhs, fn, arg);
      break;
    case FGK_S_IF:
      fge_visit(s->u.if_.cond, fn, arg);
      fge_visit_block(&s->u.if_.then, fn, arg);
      fge_visit_block(&s->u.if_.els, fn, arg);
      break;
    case FGK_S_FOR:
      fge_visit(s->u.for_.init, fn, arg);
      fge_visit(s->u.for_.cond, fn, arg);
      fge_visit(s->u.for_.step, fn, arg);
      fge_visit_block(&s->u.for_.body, fn, arg);
      break;
    case FGK_S_WHILE:
      fge_visit(s->u.while_.cond, fn, arg);
      fge_visit_block(&s->u.while_.body, fn, arg);
      break;
    case FGK_S_FOREACH:
      fge_visit_block(&s->u.foreach.body, fn, arg);
      break;
    case FGK_S_WRITE:
      visit_all(s->u.write.at.coord, s->u.write.at.ncoords, fn, arg);
      fge_visit(s->u.write.at.elem, fn, arg);
      fge_visit(s->u.write.value, fn, arg);
      break;
    case FGK_S_EXPR:
      fge_visit(s->u.expr, fn, arg);
      break;
    default:
      break;
    }
  }
}
