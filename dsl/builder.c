/* dsl/builder.c - the statement half of the kernel DSL: opening and
 * closing operators, variables, arrays, assignments, blocks, reads and
 * writes of tensor fields, and the GPUOperator rules that govern them.
 * Expressions are built in dsl/expr.c. */
#include "dsl_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- operators ---------------------------------------------------------- */

fg_op *fg_op_begin(fg_graph *g, const char *name, int n_outputs,
                   const fg_type *out_types) {
  if (!g || g->status != FG_OK)
    return NULL;
  if (!name || !*name)
    return fg__fail(g, FG_EINVAL, "fg_op_begin: operator name is %s "
                    "(expected a non-empty string)", name ? "empty" : "NULL");
  if (g->open_op)
    return fg__fail(g, FG_ESTATE, "operator '%s': operator '%s' is still "
                    "open (close it with fg_op_end first)", name,
                    g->open_op->name);
  if (n_outputs < 1 || n_outputs > FG_MAX_OUTPUTS)
    return fg__fail(g, FG_ERULE, "operator '%s': %d outputs requested "
                    "(expected 1 to %d)", name, n_outputs, FG_MAX_OUTPUTS);
  if (!out_types)
    return fg__fail(g, FG_EINVAL, "operator '%s': output types are NULL",
                    name);
  for (int i = 0; i < n_outputs; i++) {
    char what[300];
    snprintf(what, sizeof what, "operator '%s' output %d", name, i);
    if (!fg__check_type(g, what, out_types[i]))
      return NULL;
  }
  fg_op *op = fgu_arena_alloc(&g->arena, sizeof *op);
  if (!op || !(op->name = fgu_arena_strdup(&g->arena, name)))
    return fg__fail(g, FG_ENOMEM, "operator '%s': out of memory", name);
  op->g = g;
  op->n_out = n_outputs;
  memcpy(op->out_type, out_types, (size_t)n_outputs * sizeof *out_types);
  op->threads = out_types[0].field;
  /* Cog's default work-group: 16 x 16, or a row of 256 for 1-D fields */
  op->local[0] = op->threads.ndim >= 2 ? 16 : 1;
  op->local[1] = op->threads.ndim >= 2 ? 16 : op->threads.ndim == 1 ? 256 : 1;
  g->open_op = op;
  g->open_op_name = op->name;
  return op;
}

fg_op *fg_op_begin_map(fg_graph *g, const char *name, fg_shape shape) {
  fg_type t = fg_type_scalar(FG_F32, shape);   /* until the write says */
  fg_op *op = fg_op_begin(g, name, 1, &t);
  if (op)
    op->infer_out = true;
  return op;
}

fg_graph *fg_op_graph(fg_op *op) { return op ? op->g : NULL; }

fg_field *fg_op_output(fg_op *op, int i) {
  if (!op || !op->node || !op->g || op->g->status != FG_OK)
    return NULL;
  if (i < 0 || i >= op->n_out)
    return fgk_fail(op, FG_EINVAL, "fg_op_output: output %d does not exist "
                    "(the operator has outputs 0 to %d)", i, op->n_out - 1);
  return op->node->out[i];
}

static const char *frame_opener(fgk_frame_kind k) {
  switch (k) {
  case FGK_F_THEN: return "fg_if";
  case FGK_F_ELSE: return "fg_else";
  case FGK_F_FOR: return "fg_for";
  case FGK_F_WHILE: return "fg_while";
  case FGK_F_FOREACH: return "fg_for_each_tensor_element";
  }
  return "?";
}

/* Whether output i is where op's reduction stores the index of its
 * result's first point (the kernel writes it, never the body). */
static bool is_loc_port(const fg_op *op, int i) {
  return fgk_is_reduction(op->reduce) && op->reduce.loc &&
         op->reduce.loc_port == i;
}

fg_field *fg_op_end(fg_op *op) {
  if (!fgk_op_usable(op))
    return NULL;
  if (op->depth > 0)
    return fgk_fail(op, FG_ERULE, "fg_op_end: the block opened by %s is "
                    "not closed (call fg_end)",
                    frame_opener(op->stack[op->depth - 1].kind));
  for (int i = 0; i < op->n_out; i++)
    if (!op->written[i] && !op->out_init[i] && !is_loc_port(op, i))
      return fgk_fail(op, FG_ERULE, "output %d (_out%d) is never written",
                      i, i);
  if (fgk_is_reduction(op->reduce) && (op->thread_elements || op->grouped))
    return fgk_fail(op, FG_ERULE, "a reduction runs one thread per point "
                    "and no work-group features");
  fg_graph *g = op->g;
  fgk_kernel *k = fgu_arena_alloc(&g->arena, sizeof *k);
  fg_type *in_type =
      fgu_arena_alloc(&g->arena, (size_t)(op->n_in + 1) * sizeof *in_type);
  bool *nonlocal =
      fgu_arena_alloc(&g->arena, (size_t)(op->n_in + 1) * sizeof *nonlocal);
  if (!k || !in_type || !nonlocal)
    return fgk_fail(op, FG_ENOMEM, "out of memory");
  for (int i = 0; i < op->n_in; i++) {
    in_type[i] = op->in[i]->type;
    nonlocal[i] = op->in_nonlocal[i];
  }
  k->name = op->name;
  k->n_in = op->n_in;
  k->n_out = op->n_out;
  k->in_type = in_type;
  k->in_nonlocal = nonlocal;
  k->out_type = fgu_arena_alloc(&g->arena, sizeof op->out_type);
  if (!k->out_type)
    return fgk_fail(op, FG_ENOMEM, "out of memory");
  memcpy(k->out_type, op->out_type, sizeof op->out_type);
  k->threads = op->threads;
  k->thread_elements = op->thread_elements;
  k->local[0] = op->local[0];
  k->local[1] = op->local[1];
  k->grouped = op->grouped;
  k->reduce = op->reduce;
  k->body = op->body;
  k->n_vars = op->n_vars;
  /* outputs not written at every point by a top-level implicit write
   * (a reduction's is set by the runtime) come back zeroed, never with
   * what the device buffer held */
  for (int i = 0; i < op->n_out; i++)
    if (op->out_init[i]) {
      if (!k->out_init &&
          !(k->out_init = fgu_arena_alloc(&g->arena, (size_t)op->n_out *
                                                         sizeof(int))))
        return fgk_fail(op, FG_ENOMEM, "out of memory");
      for (int j = 0; j < op->n_out; j++)
        k->out_init[j] = op->out_init[j] - 1;
      break;
    }
  for (int i = 0; i < op->n_out; i++)
    if (!op->local_written[i] && !op->out_init[i] &&
        !(fgk_is_reduction(op->reduce) && op->reduce.port == i) &&
        !is_loc_port(op, i)) {
      if (!k->out_partial &&
          !(k->out_partial = fgu_arena_alloc(&g->arena, sizeof op->written)))
        return fgk_fail(op, FG_ENOMEM, "out of memory");
      k->out_partial[i] = true;
    }
  g->open_op = NULL;
  fg__node *n = fg__node_new(g, FG_NODE_OP, op->name, op->n_out,
                             op->out_type);
  if (!n)
    return NULL;
  n->kernel = k;
  n->in = fgu_arena_alloc(&g->arena, (size_t)(op->n_in + 1) * sizeof *n->in);
  if (!n->in)
    return fgk_fail(op, FG_ENOMEM, "out of memory");
  memcpy(n->in, op->in, (size_t)op->n_in * sizeof *n->in);
  n->n_in = op->n_in;
  op->node = n;
  return n->out[0];
}

bool fgk_op_output_starts_as(fg_op *op, int out, fg_field *f) {
  if (!fgk_op_usable(op))
    return false;
  if (out < 0 || out >= op->n_out || !f) {
    fgk_fail(op, FG_EINVAL, "output %d starting as %s: the operator has %d "
             "output%s", out, f ? f->name : "(null)", op->n_out,
             op->n_out == 1 ? "" : "s");
    return false;
  }
  if (!fg_type_equal(f->type, op->out_type[out])) {
    char a[FG_TYPE_STR_MAX], b[FG_TYPE_STR_MAX];
    fgk_fail(op, FG_ETYPE, "output %d is %s; it cannot start as field '%s' "
             "of type %s", out, fg_type_str(op->out_type[out], a, sizeof a),
             f->name, fg_type_str(f->type, b, sizeof b));
    return false;
  }
  int p = fgk_op_input(op, f, "output start");
  if (p < 0)
    return false;
  op->in_nonlocal[p] = true;
  op->out_init[out] = 1 + p;
  return true;
}

bool fgk_op_set_reduction(fg_op *op, fgk_reduction r) {
  if (!fgk_op_usable(op))
    return false;
  if (fgk_is_reduction(op->reduce)) {
    fgk_fail(op, FG_ERULE, "the operator is a reduction already");
    return false;
  }
  if (r.port < 0 || r.port >= op->n_out) {
    fgk_fail(op, FG_EINVAL, "reduction output %d: the operator has %d "
             "output%s", r.port, op->n_out, op->n_out == 1 ? "" : "s");
    return false;
  }
  if (op->out_type[r.port].field.ndim != 0) {
    fgk_fail(op, FG_ESHAPE, "reduction output %d has %d dimensions "
             "(expected 0)", r.port, op->out_type[r.port].field.ndim);
    return false;
  }
  if (r.kind == FGK_REDUCE_BUILTIN && (unsigned)r.op > FG_REDUCE_PROD) {
    fgk_fail(op, FG_EINVAL, "reduction operation %d is not FG_REDUCE_SUM, "
             "_MIN, _MAX or _PROD", (int)r.op);
    return false;
  }
  if (r.loc) {
    fg_type vt = op->out_type[r.port];
    if (r.kind != FGK_REDUCE_BUILTIN ||
        (r.op != FG_REDUCE_MIN && r.op != FG_REDUCE_MAX) ||
        fg_type_tensor_elements(vt) != 1) {
      fgk_fail(op, FG_EINVAL, "a reduction with a location is a minimum or "
               "maximum of scalars (operation %d over %d elements)",
               (int)r.op, fg_type_tensor_elements(vt));
      return false;
    }
    if (r.loc_port < 0 || r.loc_port >= op->n_out || r.loc_port == r.port ||
        !fg_type_equal(op->out_type[r.loc_port],
                       fg_type_scalar(FG_I64, fg_shape0()))) {
      fgk_fail(op, FG_EINVAL, "reduction location output %d: expected an "
               "i64 0-D output other than the value's (%d) among %d",
               r.loc_port, r.port, op->n_out);
      return false;
    }
  }
  op->reduce = r;
  return true;
}

/* ---- statements --------------------------------------------------------- */

static fgk_block *cur_block(fg_op *op) {
  return op->depth ? op->stack[op->depth - 1].blk : &op->body;
}

/* Appends a new statement of the given kind after checking the ordering
 * rules; NULL (error recorded) when the statement is not allowed here. */
static fgk_stmt *append(fg_op *op, fgk_stmt_kind kind, const char *call,
                        bool local_write) {
  if (op->depth == 0) {
    if (op->foreach_seen)
      return fgk_fail(op, FG_ERULE, "%s after _forEachTensorElement: no "
                      "executed statement may follow a "
                      "_forEachTensorElement block", call);
    if (op->top_write_seen && !local_write)
      return fgk_fail(op, FG_ERULE, "%s after _writeTensor: _writeTensor "
                      "must be the last executable statement(s) of the "
                      "operator", call);
    if (kind == FGK_S_FOREACH && op->top_stmts > 0)
      return fgk_fail(op, FG_ERULE, "_forEachTensorElement must be the "
                      "first statement executed (found %d statement(s) "
                      "before it)", op->top_stmts);
    op->top_stmts++;
  }
  fgk_stmt *s = fgu_arena_alloc(&op->g->arena, sizeof *s);
  if (!s)
    return fgk_fail(op, FG_ENOMEM, "out of memory");
  s->kind = kind;
  fgk_block *b = cur_block(op);
  if (b->last)
    b->last->next = s;
  else
    b->first = s;
  b->last = s;
  return s;
}

bool fgk_op_eval(fg_op *op, fg_expr *e) {
  if (!fgk_op_usable(op) || !e)
    return false;
  fgk_stmt *s = append(op, FGK_S_EXPR, "expression statement", false);
  if (!s)
    return false;
  s->u.expr = e;
  return true;
}

static bool push(fg_op *op, fgk_frame_kind kind, fgk_block *blk,
                 fgk_stmt *s, const char *call) {
  if (op->depth == FGK_MAX_DEPTH) {
    fgk_fail(op, FG_ERULE, "%s: blocks nested deeper than %d", call,
             FGK_MAX_DEPTH);
    return false;
  }
  op->stack[op->depth++] = (fgk_frame){kind, blk, s};
  return true;
}

static fgk_var *new_var(fg_op *op, fgk_type t, int ndims, const int *dims,
                        const char *call) {
  if (!fgk_op_usable(op))
    return NULL;
  if ((unsigned)t.elem >= FG_ELEM_COUNT_)
    return fgk_fail(op, FG_ETYPE, "%s: element type %d is invalid", call,
                    (int)t.elem);
  if (t.width < 1 || t.width > 4 || (t.elem == FG_BOOL && t.width != 1))
    return fgk_fail(op, FG_ETYPE, "%s: width %d for %s (expected 1 to 4; "
                    "bool is scalar only)", call, t.width,
                    fg_elem_name(t.elem));
  fgk_var *v = fgu_arena_alloc(&op->g->arena, sizeof *v);
  if (!v)
    return fgk_fail(op, FG_ENOMEM, "out of memory");
  v->id = op->n_vars++;
  v->type = t;
  v->ndims = ndims;
  for (int i = 0; i < ndims; i++)
    v->dims[i] = dims[i];
  fgk_stmt *s = append(op, FGK_S_DECL, call, false);
  if (!s)
    return NULL;
  s->u.decl = v;
  return v;
}

fg_expr *fg_var(fg_op *op, fg_elem elem, int width) {
  fgk_var *v = new_var(op, fgk_t(elem, width), 0, NULL, "fg_var");
  if (!v)
    return NULL;
  fg_expr *e = fgk_expr_new(op, FGK_E_VAR, v->type);
  if (e)
    e->u.var = v;
  return e;
}

/* The kernel type of what a tensor variable or array declared from field
 * holds: one tensor (element false; small tensors only) or one tensor
 * element.  False, with an error unless field is NULL (an earlier
 * failure), when field cannot give one. */
static bool tensor_decl_type(fg_op *op, fg_field *field, bool element,
                             const char *call, fgk_type *t) {
  if (!fgk_op_usable(op))
    return false;
  if (!field) {     /* a clean operator: no earlier call explains it */
    fgk_fail(op, FG_EINVAL, "%s: field is NULL", call);
    return false;
  }
  if (field->graph != op->g) {
    fgk_fail(op, FG_EINVAL, "%s: field '%s' belongs to another graph", call,
             field->name);
    return false;
  }
  int n = fg_type_tensor_elements(field->type);
  if (!element && n > FG_MAX_SMALL_TENSOR) {
    fgk_fail(op, FG_ETYPE, "%s: field '%s' holds big tensors (%d "
             "elements); use %s", call, field->name, n,
             strcmp(call, "_tensorVar") ? "_tensorElementArray"
                                        : "_tensorElementVar");
    return false;
  }
  *t = fgk_t(field->type.elem, element ? 1 : n);
  return true;
}

fg_expr *fg_tensor_var(fg_op *op, fg_field *field) {
  fgk_type t;
  if (!tensor_decl_type(op, field, false, "_tensorVar", &t))
    return NULL;
  return fg_var(op, t.elem, t.width);
}

fg_expr *fg_tensor_element_var(fg_op *op, fg_field *field) {
  fgk_type t;
  if (!tensor_decl_type(op, field, true, "_tensorElementVar", &t))
    return NULL;
  return fg_var(op, t.elem, t.width);
}

enum { FGK_MAX_ARRAY = 16384 };

/* Declares an array of type t with ndims extents taken from ap; call names
 * the DSL call in messages. */
static fg_expr *array_of(fg_op *op, fgk_type t, int ndims, va_list ap,
                         const char *call) {
  if (ndims < 1 || ndims > 3)
    return fgk_fail(op, FG_EINVAL, "%s: %d dimensions (expected 1 to 3)",
                    call, ndims);
  int dims[3];
  long total = 1;
  for (int i = 0; i < ndims; i++)
    dims[i] = va_arg(ap, int);
  for (int i = 0; i < ndims; i++) {
    if (dims[i] < 1 || dims[i] > FGK_MAX_ARRAY)
      return fgk_fail(op, FG_EINVAL, "%s: extent %d on axis %d (expected 1 "
                      "to %d)", call, dims[i], i, FGK_MAX_ARRAY);
    total *= dims[i];
  }
  if (total > FGK_MAX_ARRAY)
    return fgk_fail(op, FG_EINVAL, "%s: %ld elements (at most %d per "
                    "thread)", call, total, FGK_MAX_ARRAY);
  fgk_var *v = new_var(op, t, ndims, dims, call);
  if (!v)
    return NULL;
  fg_expr *e = fgk_expr_new(op, FGK_E_VAR, v->type);
  if (e)
    e->u.var = v;
  return e;
}

fg_expr *fg_array(fg_op *op, fg_elem elem, int width, int ndims, ...) {
  if (!fgk_op_usable(op))
    return NULL;
  va_list ap;
  va_start(ap, ndims);
  fg_expr *e = array_of(op, fgk_t(elem, width), ndims, ap, "fg_array");
  va_end(ap);
  return e;
}

fg_expr *fg_tensor_array(fg_op *op, fg_field *field, int ndims, ...) {
  fgk_type t;
  if (!tensor_decl_type(op, field, false, "_tensorArray", &t))
    return NULL;
  va_list ap;
  va_start(ap, ndims);
  fg_expr *e = array_of(op, t, ndims, ap, "_tensorArray");
  va_end(ap);
  return e;
}

fg_expr *fg_tensor_element_array(fg_op *op, fg_field *field, int ndims,
                                 ...) {
  fgk_type t;
  if (!tensor_decl_type(op, field, true, "_tensorElementArray", &t))
    return NULL;
  va_list ap;
  va_start(ap, ndims);
  fg_expr *e = array_of(op, t, ndims, ap, "_tensorElementArray");
  va_end(ap);
  return e;
}

fg_expr *fg_at(fg_expr *array, int nidx, ...) {
  if (!array || !fgk_op_usable(array->op))
    return NULL;
  fg_op *op = array->op;
  if (array->kind != FGK_E_VAR || array->u.var->ndims == 0)
    return fgk_fail(op, FG_EINVAL, "fg_at: the expression is not an array "
                    "variable");
  fgk_var *v = array->u.var;
  if (nidx != v->ndims)
    return fgk_fail(op, FG_EINVAL, "fg_at: %d indices for a %d-dimensional "
                    "array", nidx, v->ndims);
  fg_expr *idx[3] = {0};
  va_list ap;
  va_start(ap, nidx);
  for (int i = 0; i < nidx; i++)
    idx[i] = va_arg(ap, fg_expr *);
  va_end(ap);
  for (int i = 0; i < nidx; i++)
    if (!fgk_check_index(op, idx[i], "fg_at", "an array index"))
      return NULL;
  fg_expr *e = fgk_expr_new(op, FGK_E_INDEX, v->type);
  if (!e)
    return NULL;
  e->u.index.var = v;
  e->u.index.n = nidx;
  memcpy(e->u.index.idx, idx, sizeof idx);
  return e;
}

/* Checks a value operand of a statement; false (maybe with an error) when
 * the statement must not be added. */
static bool operand_ok(fg_op *op, fg_expr *e, const char *call) {
  if (!fgk_op_usable(op))
    return false;
  if (!e) {       /* a clean operator: no earlier call explains the NULL */
    fgk_fail(op, FG_EINVAL, "%s: operand is NULL", call);
    return false;
  }
  if (e->op != op) {
    fgk_fail(op, FG_EINVAL, "%s: expression was built in operator '%s'",
             call, e->op ? e->op->name : "?");
    return false;
  }
  return true;
}

void fg_assign(fg_expr *lhs, fg_expr *rhs) {
  if (!lhs || !operand_ok(lhs->op, rhs, "fg_assign"))
    return;
  fg_op *op = lhs->op;
  bool is_lvalue = (lhs->kind == FGK_E_VAR && lhs->u.var->ndims == 0) ||
                   lhs->kind == FGK_E_INDEX;
  if (!is_lvalue) {
    fgk_fail(op, FG_EINVAL, "fg_assign: the left side is not a variable "
             "or array element (swizzles and expressions are read-only)");
    return;
  }
  if (!fgk_implicit_ok(rhs->type, lhs->type)) {
    fgk_fail(op, FG_ETYPE, "fg_assign: cannot assign %s to a %s variable "
             "(convert explicitly with fg_convert)",
             fgk_type_name(rhs->type), fgk_type_name(lhs->type));
    return;
  }
  fgk_stmt *s = append(op, FGK_S_ASSIGN, "fg_assign", false);
  if (s) {
    s->u.assign.lhs = lhs;
    s->u.assign.rhs = rhs;
  }
}

static bool cond_ok(fg_op *op, fg_expr *cond, const char *call) {
  if (!operand_ok(op, cond, call))
    return false;
  if (cond->type.width != 1 || cond->type.elem == FG_F32 ||
      cond->type.elem == FG_F64) {
    fgk_fail(op, FG_ETYPE, "%s: condition must be an integer or bool "
             "scalar, got %s", call, fgk_type_name(cond->type));
    return false;
  }
  return true;
}

void fg_if(fg_expr *cond) {
  if (!cond || !cond_ok(cond->op, cond, "fg_if"))
    return;
  fg_op *op = cond->op;
  fgk_stmt *s = append(op, FGK_S_IF, "fg_if", false);
  if (!s)
    return;
  s->u.if_.cond = cond;
  push(op, FGK_F_THEN, &s->u.if_.then, s, "fg_if");
}

void fg_elseif(fg_expr *cond) {
  if (!cond || !cond_ok(cond->op, cond, "fg_elseif"))
    return;
  fg_op *op = cond->op;
  fgk_frame *f = op->depth ? &op->stack[op->depth - 1] : NULL;
  if (!f || f->kind != FGK_F_THEN) {
    fgk_fail(op, FG_ERULE, "fg_elseif without an open fg_if block");
    return;
  }
  fgk_stmt *s = fgu_arena_alloc(&op->g->arena, sizeof *s);
  if (!s) {
    fgk_fail(op, FG_ENOMEM, "out of memory");
    return;
  }
  s->kind = FGK_S_IF;
  s->u.if_.cond = cond;
  f->stmt->u.if_.els.first = f->stmt->u.if_.els.last = s;
  f->stmt = s;
  f->blk = &s->u.if_.then;
}

void fg_else(fg_op *op) {
  if (!fgk_op_usable(op))
    return;
  fgk_frame *f = op->depth ? &op->stack[op->depth - 1] : NULL;
  if (!f || f->kind != FGK_F_THEN) {
    fgk_fail(op, FG_ERULE, "fg_else without an open fg_if block");
    return;
  }
  f->kind = FGK_F_ELSE;
  f->blk = &f->stmt->u.if_.els;
}

void fg_for(fg_expr *var, fg_expr *init, fg_expr *cond, fg_expr *step) {
  if (!var || !operand_ok(var->op, init, "fg_for") ||
      !cond_ok(var->op, cond, "fg_for") ||
      !operand_ok(var->op, step, "fg_for"))
    return;
  fg_op *op = var->op;
  if (var->kind != FGK_E_VAR || var->u.var->ndims != 0 ||
      var->type.width != 1) {
    fgk_fail(op, FG_EINVAL, "fg_for: the loop variable must be a scalar "
             "variable");
    return;
  }
  if (!fgk_implicit_ok(init->type, var->type) ||
      !fgk_implicit_ok(step->type, var->type)) {
    fgk_fail(op, FG_ETYPE, "fg_for: start %s and step %s must convert to "
             "the loop variable's type %s", fgk_type_name(init->type),
             fgk_type_name(step->type), fgk_type_name(var->type));
    return;
  }
  fgk_stmt *s = append(op, FGK_S_FOR, "fg_for", false);
  if (!s)
    return;
  s->u.for_.var = var->u.var;
  s->u.for_.init = init;
  s->u.for_.cond = cond;
  s->u.for_.step = step;
  push(op, FGK_F_FOR, &s->u.for_.body, s, "fg_for");
}

void fg_while(fg_expr *cond) {
  if (!cond || !cond_ok(cond->op, cond, "fg_while"))
    return;
  fg_op *op = cond->op;
  fgk_stmt *s = append(op, FGK_S_WHILE, "fg_while", false);
  if (!s)
    return;
  s->u.while_.cond = cond;
  push(op, FGK_F_WHILE, &s->u.while_.body, s, "fg_while");
}

void fg_end(fg_op *op) {
  if (!fgk_op_usable(op))
    return;
  if (op->depth == 0) {
    fgk_fail(op, FG_ERULE, "fg_end without an open block");
    return;
  }
  op->depth--;
}

void fg_for_each_tensor_element(fg_op *op, fg_shape tensor_shape) {
  if (!fgk_op_usable(op))
    return;
  if (fgk_in_foreach(op) || op->depth > 0) {
    fgk_fail(op, FG_ERULE, "_forEachTensorElement must be the first "
             "statement executed, at the top level of the operator");
    return;
  }
  if (op->thread_elements) {
    fgk_fail(op, FG_ERULE, "_forEachTensorElement after _globalThreads("
             "fieldShape, tensorShape): each thread already has its "
             "_tensorElement");
    return;
  }
  if (tensor_shape.ndim < 0 || tensor_shape.ndim > 2 ||
      fg_shape_points(tensor_shape) < 1) {
    fgk_fail(op, FG_ESHAPE, "_forEachTensorElement: invalid tensor shape "
             "(%d dimensions)", tensor_shape.ndim);
    return;
  }
  int64_t count = fg_shape_points(tensor_shape);
  for (int i = 0; i < op->n_out; i++)
    if (fg_type_tensor_elements(op->out_type[i]) != count) {
      char ts[FG_TYPE_STR_MAX];
      fgk_fail(op, FG_ESHAPE, "_forEachTensorElement over %lld elements, "
               "but output %d is %s", (long long)count, i,
               fg_type_str(op->out_type[i], ts, sizeof ts));
      return;
    }
  fgk_stmt *s = append(op, FGK_S_FOREACH, "_forEachTensorElement", false);
  if (!s)
    return;
  s->u.foreach.count = (int)count;
  op->foreach_seen = true;
  op->foreach_count = (int)count;
  push(op, FGK_F_FOREACH, &s->u.foreach.body, s, "_forEachTensorElement");
}

/* ---- reading and writing tensor fields ---------------------------------- */

/* Collects ncoords coordinate expressions and checks them against the
 * field's dimensions.  Returns false with an error recorded on mismatch. */
static bool coords_ok(fg_op *op, const char *call, const char *fname,
                      int fdims, int ncoords, fg_expr **coord) {
  if (ncoords != fdims) {
    fgk_fail(op, FG_ERULE, "%s('%s'): explicit addressing needs %d "
             "coordinate(s) for a %d-dimensional field, got %d", call, fname,
             fdims, fdims, ncoords);
    return false;
  }
  for (int i = 0; i < ncoords; i++)
    if (!fgk_check_index(op, coord[i], call, "a coordinate"))
      return false;
  return true;
}

static fg_expr *read_common(fg_op *op, fg_field *f, bool element,
                            fg_expr *elem, int ncoords, fg_expr **coord,
                            fg_border border, const char *call) {
  if (!fgk_op_usable(op))
    return NULL;
  if (!f)           /* a clean operator: no earlier call explains it */
    return fgk_fail(op, FG_EINVAL, "%s: field is NULL", call);
  for (int i = 0; i < ncoords && i < 3; i++)
    if (!coord[i])
      return NULL;
  if (ncoords < 0 || ncoords > 3)
    return fgk_fail(op, FG_ERULE, "%s('%s'): %d coordinates (expected 0 to "
                    "3)", call, f->name, ncoords);
  int n = fg_type_tensor_elements(f->type);
  if (!element) {
    if (fgk_in_foreach(op))
      return fgk_fail(op, FG_ERULE, "%s is illegal in big-tensor mode "
                      "(inside _forEachTensorElement); use "
                      "_readTensorElement", call);
    if (n > FG_MAX_SMALL_TENSOR)
      return fgk_fail(op, FG_ERULE, "%s('%s'): the field holds big tensors "
                      "(%d elements); read them with _readTensorElement",
                      call, f->name, n);
  } else if (!elem) {
    if (!fgk_has_tensor_element(op))
      return fgk_fail(op, FG_ERULE, "%s('%s'): no element index given and "
                      "no _tensorElement (no _forEachTensorElement block is "
                      "open, no _globalThreads(fieldShape, tensorShape))",
                      call, f->name);
  } else if (!fgk_check_index(op, elem, call, "the element index")) {
    return NULL;
  }
  if (ncoords > 0 &&
      !coords_ok(op, call, f->name, f->type.field.ndim, ncoords, coord))
    return NULL;
  if (ncoords == 0 && f->type.field.ndim > 0 &&
      !fg_shape_equal(f->type.field, op->threads)) {
    char a[FG_TYPE_STR_MAX], b[FG_TYPE_STR_MAX];
    fg_type tt = fg_type_scalar(f->type.elem, op->threads);
    return fgk_fail(op, FG_ESHAPE, "%s('%s'): implicit addressing needs the "
                    "field's shape to equal the thread shape; field is %s, "
                    "threads are %s", call, f->name,
                    fg_type_str(f->type, a, sizeof a),
                    fg_type_str(tt, b, sizeof b));
  }
  int port = fgk_op_input(op, f, call);
  if (port < 0)
    return NULL;
  if (ncoords > 0)
    op->in_nonlocal[port] = true;
  fg_expr *e = fgk_expr_new(op, FGK_E_READ,
                            fgk_t(f->type.elem, element ? 1 : n));
  if (!e)
    return NULL;
  e->u.read.port = port;
  e->u.read.element = element;
  e->u.read.elem = elem;
  e->u.read.ncoords = ncoords;
  e->u.read.border = border;
  for (int i = 0; i < ncoords; i++)
    e->u.read.coord[i] = coord[i];
  return e;
}

#define COLLECT_COORDS(last, ncoords, coord)                                 \
  fg_expr *coord[3] = {0};                                                   \
  do {                                                                       \
    va_list ap;                                                              \
    va_start(ap, last);                                                      \
    for (int i_ = 0; i_ < (ncoords) && i_ < 3; i_++)                         \
      coord[i_] = va_arg(ap, fg_expr *);                                     \
    va_end(ap);                                                              \
  } while (0)

fg_expr *fg_read_tensor(fg_op *op, fg_field *field) {
  return read_common(op, field, false, NULL, 0, NULL, FG_BORDER_CLAMP,
                     "_readTensor");
}

fg_expr *fg_read_tensor_at(fg_op *op, fg_field *field, int ncoords, ...) {
  COLLECT_COORDS(ncoords, ncoords, coord);
  return read_common(op, field, false, NULL, ncoords, coord, FG_BORDER_CLAMP,
                     "_readTensor");
}

fg_expr *fg_read_tensor_at_border(fg_op *op, fg_field *field,
                                  fg_border border, int ncoords, ...) {
  COLLECT_COORDS(ncoords, ncoords, coord);
  /* a NULL field or operator is read_common's to report */
  if (fgk_op_usable(op) && field && (unsigned)border > FG_BORDER_WRAP)
    return fgk_fail(op, FG_EINVAL, "_readTensor('%s'): border %d is not "
                    "FG_BORDER_CLAMP, _MIRROR, _REFLECT or _WRAP (for "
                    "_CONSTANT test the coordinates)", field->name,
                    (int)border);
  return read_common(op, field, false, NULL, ncoords, coord, border,
                     "_readTensor");
}

fg_expr *fg_read_element(fg_op *op, fg_field *field, fg_expr *element) {
  return read_common(op, field, true, element, 0, NULL, FG_BORDER_CLAMP,
                     "_readTensorElement");
}

fg_expr *fg_read_element_at(fg_op *op, fg_field *field, fg_expr *element,
                            int ncoords, ...) {
  COLLECT_COORDS(ncoords, ncoords, coord);
  return read_common(op, field, true, element, ncoords, coord,
                     FG_BORDER_CLAMP, "_readTensorElement");
}

static void write_common(fg_op *op, int out, fg_expr *value, bool element,
                         fg_expr *elem, int ncoords, fg_expr **coord,
                         const char *call) {
  if (!operand_ok(op, value, call))
    return;
  for (int i = 0; i < ncoords && i < 3; i++)
    if (!coord[i])
      return;
  if (out < 0 || out >= op->n_out) {
    fgk_fail(op, FG_EINVAL, "%s: output %d does not exist (the operator "
             "has outputs 0 to %d)", call, out, op->n_out - 1);
    return;
  }
  if (ncoords < 0 || ncoords > 3) {
    fgk_fail(op, FG_ERULE, "%s(_out%d): %d coordinates (expected 0 to 3)",
             call, out, ncoords);
    return;
  }
  if (op->infer_out && !element && ncoords == 0 && value->type.width >= 1) {
    /* fg_op_begin_map: the first whole-tensor write gives output 0 its
     * type (a bool is stored as i32, as comparisons are) */
    fg_elem e = value->type.elem == FG_BOOL ? FG_I32 : value->type.elem;
    int w = value->type.width;
    if (e != value->type.elem)
      value = fg_convert(value, e, w);
    if (!value)
      return;
    op->out_type[0] = w > 1 ? fg_type_vector(e, op->threads, w)
                            : fg_type_scalar(e, op->threads);
    op->infer_out = false;
  }
  fg_type ot = op->out_type[out];
  int n = fg_type_tensor_elements(ot);
  fgk_type want = fgk_t(ot.elem, element ? 1 : n);
  char ts[FG_TYPE_STR_MAX];
  if (!element) {
    if (fgk_in_foreach(op)) {
      fgk_fail(op, FG_ERULE, "%s is illegal in big-tensor mode (inside "
               "_forEachTensorElement); use _writeTensorElement", call);
      return;
    }
    if (n > FG_MAX_SMALL_TENSOR) {
      fgk_fail(op, FG_ERULE, "%s(_out%d): the output holds big tensors (%d "
               "elements); write them with _writeTensorElement", call, out,
               n);
      return;
    }
    if (ncoords == 0 && op->depth > 0) {
      fgk_fail(op, FG_ERULE, "%s(_out%d) must be the last executable "
               "statement, at the top level of the operator, not inside a "
               "block", call, out);
      return;
    }
    if (ncoords == 0 && op->thread_elements) {
      fgk_fail(op, FG_ERULE, "%s(_out%d): after _globalThreads(fieldShape, "
               "tensorShape) %d threads share each location; write one "
               "element each with _writeTensorElement, or give "
               "coordinates", call, out, op->thread_elements);
      return;
    }
  } else if (!elem) {
    if (!fgk_has_tensor_element(op)) {
      fgk_fail(op, FG_ERULE, "%s(_out%d): no element index given and no "
               "_tensorElement (no _forEachTensorElement block is open, no "
               "_globalThreads(fieldShape, tensorShape))", call, out);
      return;
    }
  } else if (!fgk_check_index(op, elem, call, "the element index")) {
    return;
  }
  if (!fgk_type_eq(value->type, want) &&
      !(value->type.width == 1 && fgk_implicit_ok(value->type, want))) {
    fgk_fail(op, FG_ETYPE, "%s(_out%d): value is %s but output %d holds "
             "%s (%s); convert it with fg_convert", call, out,
             fgk_type_name(value->type), out, fg_type_str(ot, ts, sizeof ts),
             fgk_type_name(want));
    return;
  }
  char oname[16];
  snprintf(oname, sizeof oname, "_out%d", out);
  if (ncoords > 0 &&
      !coords_ok(op, call, oname, ot.field.ndim, ncoords, coord))
    return;
  if (ncoords == 0 && ot.field.ndim > 0 &&
      !fg_shape_equal(ot.field, op->threads)) {
    char b[128];
    fgk_fail(op, FG_ESHAPE, "%s(_out%d): implicit addressing needs the "
             "output's shape to equal the thread shape; output is %s, "
             "threads are %s", call, out, fg_type_str(ot, ts, sizeof ts),
             fg_type_str(fg_type_scalar(ot.elem, op->threads), b,
                         sizeof b));
    return;
  }
  bool local = ncoords == 0 && !element;
  if (local && op->local_written[out]) {
    fgk_fail(op, FG_ERULE, "%s(_out%d): output %d is already written by "
             "_writeTensor", call, out, out);
    return;
  }
  fgk_stmt *s = append(op, FGK_S_WRITE, call, local);
  if (!s)
    return;
  s->u.write.at.port = out;
  s->u.write.at.element = element;
  s->u.write.at.elem = elem;
  s->u.write.at.ncoords = ncoords;
  for (int i = 0; i < ncoords; i++)
    s->u.write.at.coord[i] = coord[i];
  s->u.write.value = value;
  op->written[out] = true;
  if (local) {
    op->local_written[out] = true;
    op->top_write_seen = true;
  }
}

void fg_write_tensor(fg_op *op, int out, fg_expr *value) {
  write_common(op, out, value, false, NULL, 0, NULL, "_writeTensor");
}

void fg_write_tensor_at(fg_op *op, int out, fg_expr *value, int ncoords,
                        ...) {
  COLLECT_COORDS(ncoords, ncoords, coord);
  write_common(op, out, value, false, NULL, ncoords, coord, "_writeTensor");
}

void fg_write_element(fg_op *op, int out, fg_expr *value, fg_expr *element) {
  write_common(op, out, value, true, element, 0, NULL, "_writeTensorElement");
}

void fg_write_element_at(fg_op *op, int out, fg_expr *value,
                         fg_expr *element, int ncoords, ...) {
  COLLECT_COORDS(ncoords, ncoords, coord);
  write_common(op, out, value, true, element, ncoords, coord,
               "_writeTensorElement");
}

/* ---- thread allocation and work groups ---------------------------------- */

/* Thread allocation must come before executable code (Cog's rule). */
static bool allocation_ok(fg_op *op, const char *call) {
  if (!fgk_op_usable(op))
    return false;
  if (op->top_stmts > 0 || op->depth > 0) {
    fgk_fail(op, FG_ERULE, "%s: thread allocation calls must precede "
             "executable code (%d statement(s) come before it)", call,
             op->top_stmts);
    return false;
  }
  return true;
}

void fg_local_threads(fg_op *op, fg_shape shape) {
  if (!allocation_ok(op, "_localThreads"))
    return;
  int64_t r, c;
  if (shape.ndim == 1) {
    r = 1;
    c = shape.dim[0];
  } else if (shape.ndim == 2 || (shape.ndim == 3 && shape.dim[0] == 1)) {
    r = shape.dim[shape.ndim - 2];
    c = shape.dim[shape.ndim - 1];
  } else {
    fgk_fail(op, FG_ESHAPE, "_localThreads: a work-group is (columns), "
             "(rows, columns) or (1, rows, columns); got %d dimensions%s",
             shape.ndim, shape.ndim == 3 ? " spanning several layers" : "");
    return;
  }
  if (r < 1 || c < 1 || r * c > 1024) {
    fgk_fail(op, FG_ESHAPE, "_localThreads: %lld x %lld threads (expected "
             "1 to 1024 in all)", (long long)r, (long long)c);
    return;
  }
  op->local[0] = (int)r;
  op->local[1] = (int)c;
  op->grouped = true;
}

void fg_global_threads(fg_op *op, fg_shape shape) {
  if (!allocation_ok(op, "_globalThreads"))
    return;
  char what[300];
  snprintf(what, sizeof what, "operator '%s' _globalThreads", op->name);
  if (!fg__check_type(op->g, what, fg_type_scalar(FG_F32, shape)))
    return;
  op->threads = shape;
  op->thread_elements = 0;
}

void fg_global_threads_elements(fg_op *op, fg_shape field_shape,
                                fg_shape tensor_shape) {
  if (!allocation_ok(op, "_globalThreads"))
    return;
  /* the shapes of a field type: the checks (and messages) of any field */
  char what[300];
  snprintf(what, sizeof what, "operator '%s' _globalThreads(fieldShape, "
           "tensorShape)", op->name);
  fg_type t = {.elem = FG_F32, .field = field_shape, .tensor = tensor_shape};
  if (!fg__check_type(op->g, what, t))
    return;
  op->threads = field_shape;
  op->thread_elements = (int)fg_shape_points(tensor_shape);
}

int fg_op_local_extent(fg_op *op, fg_thread_const axis) {
  if (!fgk_op_usable(op))
    return 0;
  switch (axis) {
  case FG_LAYERS: return 1;
  case FG_ROWS: return op->local[0];
  case FG_COLUMNS: return op->local[1];
  default:
    fgk_fail(op, FG_EINVAL, "fg_op_local_extent: axis must be FG_LAYERS, "
             "FG_ROWS or FG_COLUMNS");
    return 0;
  }
}

/* The variable a fresh declaration expression names, or NULL with an error
 * when e is not one. */
static fgk_var *declared_var(fg_expr *e, const char *call) {
  if (!e || !fgk_op_usable(e->op))
    return NULL;
  if (e->kind != FGK_E_VAR) {
    fgk_fail(e->op, FG_EINVAL, "%s: the argument must be a variable or "
             "array just declared", call);
    return NULL;
  }
  return e->u.var;
}

fg_expr *fg_local(fg_expr *var) {
  fgk_var *v = declared_var(var, "_local");
  if (!v)
    return NULL;
  if (v->type.elem == FG_BOOL)
    return fgk_fail(var->op, FG_ETYPE, "_local: bool variables cannot be "
                    "shared");
  v->local = true;
  var->op->grouped = true;
  return var;
}

fg_expr *fg_volatile(fg_expr *var) {
  fgk_var *v = declared_var(var, "_volatile");
  if (!v)
    return NULL;
  v->volatile_ = true;
  return var;
}

static void barrier(fg_op *op, bool global, const char *call) {
  if (!fgk_op_usable(op))
    return;
  if (op->depth > 0) {
    fgk_fail(op, FG_ERULE, "%s must be at the top level of the operator, "
             "where every thread of a work-group reaches it (found inside "
             "a %s block)", call, frame_opener(op->stack[op->depth - 1].kind));
    return;
  }
  fgk_stmt *s = append(op, FGK_S_BARRIER, call, false);
  if (s) {
    s->u.global_fence = global;
    op->grouped = true;
  }
}

void fg_sync_threads_local(fg_op *op) {
  barrier(op, false, "_syncThreadsLocal");
}
void fg_sync_threads_global(fg_op *op) {
  barrier(op, true, "_syncThreadsGlobal");
}

fg_expr *fg_pointer_to(fg_expr *lv) {
  if (!lv || !fgk_op_usable(lv->op))
    return NULL;
  bool ok = (lv->kind == FGK_E_VAR && lv->u.var->ndims == 0) ||
            lv->kind == FGK_E_INDEX;
  if (!ok)
    return fgk_fail(lv->op, FG_EINVAL, "_pointerTo: the argument must be a "
                    "variable or an array element");
  fg_expr *e = fgk_expr_new(lv->op, FGK_E_ADDR, lv->type);
  if (e)
    e->u.addr = lv;
  return e;
}


static fg_expr *atomic(fgk_atomic at, fg_expr *p, fg_expr *a, fg_expr *b,
                       int nargs) {
  const char *call = fgk_atomic_name(at);
  if (!p || !fgk_op_usable(p->op) || (nargs > 1 && !a) || (nargs > 2 && !b))
    return NULL;
  fg_op *op = p->op;
  if ((a && a->op != op) || (b && b->op != op))
    return fgk_fail(op, FG_EINVAL, "_%s: arguments come from different "
                    "operators", call);
  if (p->kind != FGK_E_ADDR)
    return fgk_fail(op, FG_ETYPE, "_%s: the first argument must be a "
                    "pointer (_pointerTo(variable))", call);
  const fg_expr *lv = p->u.addr;
  const fgk_var *v = lv->kind == FGK_E_VAR ? lv->u.var : lv->u.index.var;
  fgk_type t = lv->type;
  if (!v->local || !v->volatile_ || t.width != 1 ||
      (t.elem != FG_I32 && t.elem != FG_U32))
    return fgk_fail(op, FG_ERULE, "_%s: atomics need a _local(_volatile(...)) "
                    "int or uint variable or array; got a %s%s%s variable",
                    call, v->local ? "local " : "private ",
                    v->volatile_ ? "volatile " : "", fgk_type_name(t));
  fg_expr *args[2] = {a, b};
  for (int i = 0; i < nargs - 1; i++)
    if (!fgk_implicit_ok(args[i]->type, t) &&
        !(args[i]->type.width == 1 && fgk_is_int(args[i]->type.elem)))
      return fgk_fail(op, FG_ETYPE, "_%s: argument %d is %s, expected %s",
                      call, i + 2, fgk_type_name(args[i]->type),
                      fgk_type_name(t));
  fg_expr *e = fgk_expr_new(op, FGK_E_ATOMIC, t);
  if (!e)
    return NULL;
  e->u.atomic.op = at;
  e->u.atomic.p = p;
  e->u.atomic.a = a;
  e->u.atomic.b = b;
  op->grouped = true;
  return e;
}

fg_expr *fg_atomic_add(fg_expr *p, fg_expr *v) {
  return atomic(FGK_AT_ADD, p, v, NULL, 2);
}
fg_expr *fg_atomic_sub(fg_expr *p, fg_expr *v) {
  return atomic(FGK_AT_SUB, p, v, NULL, 2);
}
fg_expr *fg_atomic_xchg(fg_expr *p, fg_expr *v) {
  return atomic(FGK_AT_XCHG, p, v, NULL, 2);
}
fg_expr *fg_atomic_min(fg_expr *p, fg_expr *v) {
  return atomic(FGK_AT_MIN, p, v, NULL, 2);
}
fg_expr *fg_atomic_max(fg_expr *p, fg_expr *v) {
  return atomic(FGK_AT_MAX, p, v, NULL, 2);
}
fg_expr *fg_atomic_and(fg_expr *p, fg_expr *v) {
  return atomic(FGK_AT_AND, p, v, NULL, 2);
}
fg_expr *fg_atomic_or(fg_expr *p, fg_expr *v) {
  return atomic(FGK_AT_OR, p, v, NULL, 2);
}
fg_expr *fg_atomic_xor(fg_expr *p, fg_expr *v) {
  return atomic(FGK_AT_XOR, p, v, NULL, 2);
}
fg_expr *fg_atomic_inc(fg_expr *p) { return atomic(FGK_AT_INC, p, NULL, NULL, 1); }
fg_expr *fg_atomic_dec(fg_expr *p) { return atomic(FGK_AT_DEC, p, NULL, NULL, 1); }
fg_expr *fg_atomic_compxchg(fg_expr *p, fg_expr *cmp, fg_expr *v) {
  return atomic(FGK_AT_CMPXCHG, p, cmp, v, 3);
}
