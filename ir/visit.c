/* ir/visit.c - the read-only walk over a kernel's IR (ir/visit.h):
 * statements, nested blocks, expressions and the coordinates of every
 * access. */
#include "visit.h"

static void visit_all(struct fg_expr *const *a, int n, const fgk_visitor *v) {
  for (int i = 0; i < n; i++)
    fgk_visit_expr(a[i], v);
}

static void visit_access(const fgk_access *a, const fgk_visitor *v) {
  visit_all(a->coord, a->ncoords, v);
  fgk_visit_expr(a->elem, v);
}

void fgk_visit_expr(const fg_expr *x, const fgk_visitor *v) {
  if (!x)
    return;
  if (v->expr)
    v->expr(x, v->arg);
  switch (x->kind) {
  case FGK_E_READ:
    visit_access(&x->u.read, v);
    break;
  case FGK_E_UNARY:
  case FGK_E_BINARY:
    fgk_visit_expr(x->u.bin.a, v);
    fgk_visit_expr(x->u.bin.b, v);
    break;
  case FGK_E_CALL:
    visit_all(x->u.call.arg, x->u.call.n, v);
    break;
  case FGK_E_SWIZZLE:
    fgk_visit_expr(x->u.swz.a, v);
    break;
  case FGK_E_VECTOR:
    visit_all(x->u.vec.arg, x->u.vec.n, v);
    break;
  case FGK_E_CONVERT:
  case FGK_E_AS:
    fgk_visit_expr(x->u.conv.a, v);
    break;
  case FGK_E_INDEX:
    visit_all(x->u.index.idx, x->u.index.n, v);
    break;
  case FGK_E_ADDR:
    fgk_visit_expr(x->u.addr, v);
    break;
  case FGK_E_ATOMIC:
    fgk_visit_expr(x->u.atomic.p, v);
    fgk_visit_expr(x->u.atomic.a, v);
    fgk_visit_expr(x->u.atomic.b, v);
    break;
  case FGK_E_FOREIGN:
    visit_all(x->u.foreign.arg, x->u.foreign.n, v);
    break;
  case FGK_E_CONST:
  case FGK_E_THREAD:
  case FGK_E_EXTENT:
  case FGK_E_VAR:
    break;
  }
}

void fgk_visit_block(const fgk_block *b, const fgk_visitor *v) {
  for (const fgk_stmt *s = b->first; s; s = s->next) {
    if (v->stmt)
      v->stmt(s, v->arg);
    switch (s->kind) {
    case FGK_S_ASSIGN:
      fgk_visit_expr(s->u.assign.lhs, v);
      fgk_visit_expr(s->u.assign.rhs, v);
      break;
    case FGK_S_IF:
      fgk_visit_expr(s->u.if_.cond, v);
      fgk_visit_block(&s->u.if_.then, v);
      fgk_visit_block(&s->u.if_.els, v);
      break;
    case FGK_S_FOR:
      fgk_visit_expr(s->u.for_.init, v);
      fgk_visit_expr(s->u.for_.cond, v);
      fgk_visit_expr(s->u.for_.step, v);
      fgk_visit_block(&s->u.for_.body, v);
      break;
    case FGK_S_WHILE:
      fgk_visit_expr(s->u.while_.cond, v);
      fgk_visit_block(&s->u.while_.body, v);
      break;
    case FGK_S_FOREACH:
      fgk_visit_block(&s->u.foreach.body, v);
      break;
    case FGK_S_WRITE:
      visit_access(&s->u.write.at, v);
      fgk_visit_expr(s->u.write.value, v);
      break;
    case FGK_S_EXPR:
      fgk_visit_expr(s->u.expr, v);
      break;
    case FGK_S_DECL:
    case FGK_S_BARRIER:
    case FGK_S_COMMENT:
      break;
    }
  }
}
