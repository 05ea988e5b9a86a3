/* fuse/merge.c - one kernel IR from a group of operators.  Each member's
 * body is cloned in topological order with its variables renumbered, its
 * reads of fields produced inside the group replaced by the variable that
 * holds the value (a virtual field), and its _writeTensor turned into an
 * assignment of that variable; the materialized fields are written at the
 * end.  Values flow through variables of the fields' own tensor types, so
 * the fused kernel computes bit for bit what the separate kernels do. */
#include "fuse.h"

#include <stdlib.h>
#include <string.h>

typedef struct clone {
  fgu_arena *a;
  int var_base;
  int n_vars;                /* the member's */
  fgk_var **vars;            /* member var id -> clone */
  int *in_port;              /* member input port -> merged port, or -1 */
  fgk_var **in_virtual;      /* member input port -> variable (virtual) */
  fgk_var **out_var;         /* member output port -> variable */
  int *out_port;             /* member output port -> merged port */
  bool keep_writes;          /* an unfusable operator: writes stay */
  bool keep_reduce_write;    /* a FOREIGN reduction: its accumulating
                                call stays where it is, a write */
  bool failed;
} clone;

static void *alloc(clone *c, size_t n) {
  void *p = fgu_arena_alloc(c->a, n);
  if (!p)
    c->failed = true;
  return p;
}

static fgk_var *var_of(clone *c, const fgk_var *v) {
  if (!v || v->id < 0 || v->id >= c->n_vars)
    return NULL;
  if (!c->vars[v->id]) {
    fgk_var *n = alloc(c, sizeof *n);
    if (!n)
      return NULL;
    *n = *v;
    n->id = c->var_base + v->id;
    c->vars[v->id] = n;
  }
  return c->vars[v->id];
}

static fg_expr *var_expr(clone *c, fgk_var *v) {
  fg_expr *e = alloc(c, sizeof *e);
  if (e) {
    e->kind = FGK_E_VAR;
    e->type = v->type;
    e->u.var = v;
  }
  return e;
}

static fg_expr *cx(clone *c, const fg_expr *x);

static void clone_access(clone *c, fgk_access *to, const fgk_access *from) {
  *to = *from;
  for (int i = 0; i < from->ncoords; i++)
    to->coord[i] = cx(c, from->coord[i]);
  to->elem = from->elem ? cx(c, from->elem) : NULL;
}

static fg_expr *cx(clone *c, const fg_expr *x) {
  if (!x || c->failed)
    return NULL;
  if (x->kind == FGK_E_READ && c->in_port[x->u.read.port] < 0)
    return var_expr(c, c->in_virtual[x->u.read.port]);
  fg_expr *e = alloc(c, sizeof *e);
  if (!e)
    return NULL;
  *e = *x;
  e->op = NULL;
  switch (x->kind) {
  case FGK_E_EXTENT:
    /* a field produced inside the group has the group's thread shape
     * (fusion rule 3), so its extent is the thread extent */
    if (c->in_port[x->u.extent.port] < 0) {
      e->kind = FGK_E_THREAD;
      e->u.thread = x->u.extent.axis;
    } else {
      e->u.extent.port = c->in_port[x->u.extent.port];
    }
    break;
  case FGK_E_VAR:
    e->u.var = var_of(c, x->u.var);
    break;
  case FGK_E_UNARY:
    e->u.bin.a = cx(c, x->u.bin.a);
    break;
  case FGK_E_BINARY:
    e->u.bin.a = cx(c, x->u.bin.a);
    e->u.bin.b = cx(c, x->u.bin.b);
    break;
  case FGK_E_CALL:
    for (int i = 0; i < x->u.call.n; i++)
      e->u.call.arg[i] = cx(c, x->u.call.arg[i]);
    break;
  case FGK_E_SWIZZLE:
    e->u.swz.a = cx(c, x->u.swz.a);
    break;
  case FGK_E_VECTOR:
    for (int i = 0; i < x->u.vec.n; i++)
      e->u.vec.arg[i] = cx(c, x->u.vec.arg[i]);
    break;
  case FGK_E_CONVERT:
  case FGK_E_AS:
    e->u.conv.a = cx(c, x->u.conv.a);
    break;
  case FGK_E_READ:
    clone_access(c, &e->u.read, &x->u.read);
    e->u.read.port = c->in_port[x->u.read.port];
    break;
  case FGK_E_INDEX:
    e->u.index.var = var_of(c, x->u.index.var);
    for (int i = 0; i < x->u.index.n; i++)
      e->u.index.idx[i] = cx(c, x->u.index.idx[i]);
    break;
  case FGK_E_ADDR:
    e->u.addr = cx(c, x->u.addr);
    break;
  case FGK_E_ATOMIC:
    e->u.atomic.p = cx(c, x->u.atomic.p);
    e->u.atomic.a = cx(c, x->u.atomic.a);
    e->u.atomic.b = cx(c, x->u.atomic.b);
    break;
  case FGK_E_FOREIGN:
    e->u.foreign.arg = alloc(c, (size_t)(x->u.foreign.n + 1) *
                                    sizeof *e->u.foreign.arg);
    e->u.foreign.port = alloc(c, (size_t)(x->u.foreign.n_ports + 1) *
                                     sizeof(int));
    e->u.foreign.out_port = alloc(c, (size_t)(x->u.foreign.n_outs + 1) *
                                         sizeof(int));
    if (!e->u.foreign.arg || !e->u.foreign.port || !e->u.foreign.out_port)
      return NULL;
    for (int i = 0; i < x->u.foreign.n; i++)
      e->u.foreign.arg[i] = cx(c, x->u.foreign.arg[i]);
    /* ports are read non-locally, so never from inside the group */
    for (int i = 0; i < x->u.foreign.n_ports; i++)
      e->u.foreign.port[i] = x->u.foreign.port[i] < 0
                                 ? -1 : c->in_port[x->u.foreign.port[i]];
    for (int i = 0; i < x->u.foreign.n_outs; i++) {
      int o = x->u.foreign.out_port[i];
      e->u.foreign.out_port[i] = o < 0 ? -1 : c->out_port[o];
    }
    break;
  default:
    break;
  }
  return e;
}

static fgk_stmt *new_stmt(clone *c, fgk_block *b, fgk_stmt_kind kind) {
  fgk_stmt *s = alloc(c, sizeof *s);
  if (!s)
    return NULL;
  s->kind = kind;
  if (b->last)
    b->last->next = s;
  else
    b->first = s;
  b->last = s;
  return s;
}

static void clone_block(clone *c, fgk_block *to, const fgk_block *from);

static void clone_stmt(clone *c, fgk_block *to, const fgk_stmt *s) {
  if (s->kind == FGK_S_WRITE && !c->keep_writes && !c->keep_reduce_write) {
    /* a member's local _writeTensor: the value goes to its variable */
    fgk_stmt *d = new_stmt(c, to, FGK_S_ASSIGN);
    if (d) {
      d->u.assign.lhs = var_expr(c, c->out_var[s->u.write.at.port]);
      d->u.assign.rhs = cx(c, s->u.write.value);
    }
    return;
  }
  fgk_stmt *d = new_stmt(c, to, s->kind);
  if (!d)
    return;
  switch (s->kind) {
  case FGK_S_DECL:
    d->u.decl = var_of(c, s->u.decl);
    break;
  case FGK_S_ASSIGN:
    d->u.assign.lhs = cx(c, s->u.assign.lhs);
    d->u.assign.rhs = cx(c, s->u.assign.rhs);
    break;
  case FGK_S_IF:
    d->u.if_.cond = cx(c, s->u.if_.cond);
    clone_block(c, &d->u.if_.then, &s->u.if_.then);
    clone_block(c, &d->u.if_.els, &s->u.if_.els);
    break;
  case FGK_S_FOR:
    d->u.for_.var = var_of(c, s->u.for_.var);
    d->u.for_.init = cx(c, s->u.for_.init);
    d->u.for_.cond = cx(c, s->u.for_.cond);
    d->u.for_.step = cx(c, s->u.for_.step);
    clone_block(c, &d->u.for_.body, &s->u.for_.body);
    break;
  case FGK_S_WHILE:
    d->u.while_.cond = cx(c, s->u.while_.cond);
    clone_block(c, &d->u.while_.body, &s->u.while_.body);
    break;
  case FGK_S_FOREACH:
    d->u.foreach.count = s->u.foreach.count;
    clone_block(c, &d->u.foreach.body, &s->u.foreach.body);
    break;
  case FGK_S_WRITE:
    clone_access(c, &d->u.write.at, &s->u.write.at);
    d->u.write.at.port = c->out_port[s->u.write.at.port];
    d->u.write.value = cx(c, s->u.write.value);
    break;
  case FGK_S_BARRIER:
    d->u.global_fence = s->u.global_fence;
    break;
  case FGK_S_COMMENT:
    d->u.comment = s->u.comment;
    break;
  case FGK_S_EXPR:
    d->u.expr = cx(c, s->u.expr);
    break;
  }
}

static void clone_block(clone *c, fgk_block *to, const fgk_block *from) {
  for (const fgk_stmt *s = from->first; s && !c->failed; s = s->next)
    clone_stmt(c, to, s);
}

/* Index of field id in list[0..*n-1], appending it when absent. */
static int port_of(int *list, int *n, int id) {
  for (int i = 0; i < *n; i++)
    if (list[i] == id)
      return i;
  list[*n] = id;
  return (*n)++;
}

bool fgf_merge(fg_graph *g, fgf_kernel *kern, const bool *materialized,
               const int *group_of, int group, bool simple, fgu_arena *a) {
  clone c = {.a = a, .keep_writes = !simple};
  int max_in = 0, max_out = 0;
  for (int m = 0; m < kern->n_nodes; m++) {
    const fg__node *n = g->nodes.item[kern->nodes[m]];
    max_in += n->n_in;
    max_out += n->n_out;
  }
  fgk_kernel *k = alloc(&c, sizeof *k);
  kern->in_field = alloc(&c, (size_t)(max_in + 1) * sizeof(int));
  kern->out_field = alloc(&c, (size_t)(max_out + 1) * sizeof(int));
  fgk_var **field_var = alloc(&c, (size_t)(g->fields.n + 1) * sizeof *field_var);
  fg_type *out_type = alloc(&c, (size_t)(max_out + 1) * sizeof *out_type);
  if (c.failed)
    return false;
  const fg__node *lead = g->nodes.item[kern->nodes[0]];
  k->threads = lead->kernel->threads;
  k->thread_elements = lead->kernel->thread_elements;
  k->local[0] = lead->kernel->local[0];
  k->local[1] = lead->kernel->local[1];
  k->grouped = lead->kernel->grouped;
  /* the reductions, in member order: one, or siblings over the same
   * threads (partition.c) */
  const fg__node *reducer[FGK_MAX_REDUCTIONS];
  int n_reducer = 0;
  k->fp = lead->kernel->fp;
  for (int m = 0; m < kern->n_nodes; m++) {
    const fg__node *n = g->nodes.item[kern->nodes[m]];
    if (fgk_is_reduction(n->kernel->reduce)) {
      if (n_reducer == FGK_MAX_REDUCTIONS)
        return false;        /* partition.c never groups more */
      reducer[n_reducer++] = n;
    }
    k->fp = fgk_fp_merge(k->fp, n->kernel->fp);
  }
  int n_in = 0, n_out = 0, var_base = 0;
  /* output ports first: the materialized fields in member order */
  for (int m = 0; m < kern->n_nodes; m++) {
    const fg__node *n = g->nodes.item[kern->nodes[m]];
    for (int o = 0; o < n->n_out; o++)
      if (materialized[n->out[o]->id]) {
        int port = port_of(kern->out_field, &n_out, n->out[o]->id);
        out_type[port] = n->out[o]->type;
      }
  }
  fgu_buf name = {0};
  for (int m = 0; m < kern->n_nodes && !c.failed; m++) {
    const fg__node *n = g->nodes.item[kern->nodes[m]];
    const fgk_kernel *mk = n->kernel;
    fgu_buf_printf(&name, "%s%s", m ? "+" : "", n->name);
    c.var_base = var_base;
    c.n_vars = mk->n_vars;
    c.vars = alloc(&c, (size_t)(mk->n_vars + 1) * sizeof *c.vars);
    c.in_port = alloc(&c, (size_t)(n->n_in + 1) * sizeof(int));
    c.in_virtual = alloc(&c, (size_t)(n->n_in + 1) * sizeof *c.in_virtual);
    c.out_var = alloc(&c, (size_t)(n->n_out + 1) * sizeof *c.out_var);
    c.out_port = alloc(&c, (size_t)(n->n_out + 1) * sizeof(int));
    if (c.failed)
      break;
    for (int o = 0; o < n->n_out; o++)
      c.out_port[o] = materialized[n->out[o]->id]
                          ? port_of(kern->out_field, &n_out, n->out[o]->id)
                          : -1;
    var_base += mk->n_vars;
    c.keep_reduce_write = mk->reduce.kind == FGK_REDUCE_FOREIGN;
    for (int p = 0; p < n->n_in; p++) {
      const fg_field *f = n->in[p];
      bool inside = f->producer->kind == FG_NODE_OP &&
                    group_of[f->producer->id] == group;
      c.in_port[p] = inside ? -1 : port_of(kern->in_field, &n_in, f->id);
      c.in_virtual[p] = inside ? field_var[f->id] : NULL;
    }
    /* an output that starts as an input (read non-locally, so never
     * virtual) keeps doing so under the merged ports */
    for (int o = 0; o < n->n_out && mk->out_init && !c.failed; o++) {
      if (mk->out_init[o] < 0 || c.out_port[o] < 0)
        continue;
      if (!k->out_init) {
        k->out_init = alloc(&c, (size_t)(n_out + 1) * sizeof(int));
        for (int j = 0; k->out_init && j < n_out; j++)
          k->out_init[j] = -1;
      }
      int ip = c.in_port[mk->out_init[o]];
      if (k->out_init && ip >= 0)
        k->out_init[c.out_port[o]] = ip;
      else if (k->out_init)
        c.failed = true;        /* an inside (virtual) field: no buffer */
    }
    /* one variable per output, holding the value _writeTensor wrote */
    fgk_stmt *note = new_stmt(&c, &k->body, FGK_S_COMMENT);
    if (note)
      note->u.comment = fgu_arena_printf(a, "from operator '%s'", n->name);
    for (int o = 0; o < n->n_out && simple && !c.keep_reduce_write; o++) {
      fgk_var *v = alloc(&c, sizeof *v);
      if (!v)
        break;
      fg_type t = n->out[o]->type;
      v->id = var_base++;
      v->type = fgk_t(t.elem, fg_type_tensor_elements(t));
      fgk_stmt *d = new_stmt(&c, &k->body, FGK_S_DECL);
      if (d)
        d->u.decl = v;
      c.out_var[o] = v;
      field_var[n->out[o]->id] = v;
    }
    clone_block(&c, &k->body, &mk->body);
  }
  /* the materialized fields, written last (an unfusable operator wrote
   * its own) */
  for (int m = 0; m < kern->n_nodes && !c.failed && simple; m++) {
    const fg__node *n = g->nodes.item[kern->nodes[m]];
    for (int o = 0; o < n->n_out; o++) {
      const fg_field *f = n->out[o];
      if (!materialized[f->id] ||
          n->kernel->reduce.kind == FGK_REDUCE_FOREIGN ||
          (n->kernel->reduce.loc && n->kernel->reduce.loc_port == o))
        continue;        /* the kernel stores these itself */
      int port = port_of(kern->out_field, &n_out, f->id);
      fgk_stmt *w = new_stmt(&c, &k->body, FGK_S_WRITE);
      if (w) {
        w->u.write.at.port = port;
        w->u.write.value = var_expr(&c, field_var[f->id]);
      }
    }
  }
  if (n_reducer > 1 &&
      !(k->sibling = alloc(&c, (size_t)(n_reducer - 1) * sizeof *k->sibling)))
    return false;
  for (int r = 0; r < n_reducer; r++) {
    /* each reduction's result accumulates over the threads */
    fgk_reduction red = reducer[r]->kernel->reduce;
    red.port = port_of(kern->out_field, &n_out,
                       reducer[r]->out[red.port]->id);
    /* the index of the first point, where something reads it */
    if (red.loc && materialized[reducer[r]->out[red.loc_port]->id])
      red.loc_port = port_of(kern->out_field, &n_out,
                             reducer[r]->out[red.loc_port]->id);
    else
      red.loc = false, red.loc_port = -1;
    if (r == 0)
      k->reduce = red;
    else
      k->sibling[k->n_sibling++] = red;
  }
  k->n_in = n_in;
  k->n_out = n_out;
  k->n_vars = var_base;
  /* a member's output it may leave unwritten stays so (zeroed first) */
  for (int m = 0; m < kern->n_nodes && !c.failed; m++) {
    const fg__node *n = g->nodes.item[kern->nodes[m]];
    for (int o = 0; o < n->n_out && n->kernel->out_partial; o++) {
      if (!n->kernel->out_partial[o] || !materialized[n->out[o]->id])
        continue;
      if (!k->out_partial &&
          !(k->out_partial = alloc(&c, (size_t)n_out * sizeof(bool))))
        break;
      k->out_partial[port_of(kern->out_field, &n_out, n->out[o]->id)] = true;
    }
  }
  k->in_type = alloc(&c, (size_t)(n_in + 1) * sizeof *k->in_type);
  k->in_nonlocal = alloc(&c, (size_t)(n_in + 1) * sizeof(bool));
  k->out_type = out_type;
  for (int i = 0; !c.failed && i < n_in; i++)
    k->in_type[i] = ((fg_field *)g->fields.item[kern->in_field[i]])->type;
  char *nm = fgu_buf_take(&name);
  kern->name = nm ? fgu_arena_strdup(a, nm) : NULL;
  free(nm);
  k->name = kern->name;
  kern->k = k;
  return !c.failed && kern->name;
}
