/* dsl/op_state.c - what every call of the DSL checks and uses of the
 * operator it builds in, whether it makes a statement (builder.c) or an
 * expression (expr.c): is the operator still open, recording a failure
 * that names it, the block it is in, allocating an expression, checking
 * an index, taking a field as one of its inputs.  The ground both halves
 * of the DSL stand on. */
#include "dsl_impl.h"

#include <stdarg.h>
#include <stdio.h>

bool fgk_op_usable(fg_op *op) {
  if (!op || !op->g || op->g->status != FG_OK)
    return false;                 /* an earlier failure: stay silent */
  if (op->node || op->g->open_op != op) {
    fg__fail(op->g, FG_ESTATE, "operator '%s' is closed (fg_op_end was "
             "called): its variables and expressions cannot be used while "
             "building %s%s%s", op->name,
             op->g->open_op ? "operator '" : "another operator",
             op->g->open_op ? op->g->open_op_name : "",
             op->g->open_op ? "'" : "");
    return false;
  }
  return true;
}

void *fgk_fail(fg_op *op, fg_status st, const char *fmt, ...) {
  if (!op || !op->g || op->g->status != FG_OK)
    return NULL;
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return fg__fail(op->g, st, "operator '%s': %s", op->name, msg);
}

bool fgk_in_foreach(fg_op *op) {
  for (int i = 0; i < op->depth; i++)
    if (op->stack[i].kind == FGK_F_FOREACH)
      return true;
  return false;
}

bool fgk_has_tensor_element(fg_op *op) {
  return op->thread_elements > 0 || fgk_in_foreach(op);
}

fg_expr *fgk_expr_new(fg_op *op, fgk_expr_kind kind, fgk_type type) {
  fg_expr *e = fgu_arena_alloc(&op->g->arena, sizeof *e);
  if (!e)
    return fgk_fail(op, FG_ENOMEM, "out of memory");
  e->kind = kind;
  e->type = type;
  e->op = op;
  return e;
}

bool fgk_check_index(fg_op *op, fg_expr *e, const char *call,
                     const char *what) {
  if (!e)
    return false;
  if (e->op != op) {
    fgk_fail(op, FG_EINVAL, "%s: %s was built in operator '%s'", call, what,
             e->op ? e->op->name : "?");
    return false;
  }
  if (e->type.width != 1 || !fgk_is_int(e->type.elem)) {
    fgk_fail(op, FG_ETYPE, "%s: %s must be an integer scalar, got %s", call,
             what, fgk_type_name(e->type));
    return false;
  }
  return true;
}

int fgk_op_input(fg_op *op, fg_field *f, const char *call) {
  if (!f)
    return -1;
  if (f->graph != op->g) {
    fgk_fail(op, FG_EINVAL, "%s: field '%s' belongs to another graph", call,
             f->name);
    return -1;
  }
  for (int i = 0; i < op->n_in; i++)
    if (op->in[i] == f)
      return i;
  if (op->n_in == FGK_MAX_INPUTS) {
    fgk_fail(op, FG_ERULE, "%s: more than %d input fields", call,
             FGK_MAX_INPUTS);
    return -1;
  }
  op->in[op->n_in] = f;
  return op->n_in++;
}
