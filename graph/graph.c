/* graph/graph.c - the graph object: its arena, sticky error, inputs,
 * constants and outputs.  Operator nodes are added by the DSL builder
 * (dsl/builder.c) through fg__node_new. */
#include "graph_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fg_graph *fg_graph_new(const char *name) {
  fg_graph *g = calloc(1, sizeof *g);
  if (!g)
    return NULL;
  g->name = fgu_arena_strdup(&g->arena, name ? name : "graph");
  if (!g->name) {
    free(g);
    return NULL;
  }
  return g;
}

void fg_graph_free(fg_graph *g) {
  if (!g)
    return;
  for (int i = 0; i < g->held.n; i++)
    fg__live_unref(g->held.item[i]);
  if (g->alive) {
    g->alive->alive = false;
    fg__alive_unref(g->alive);
  }
  fgu_arena_free(&g->arena);
  free(g);
}

fg_status fg_graph_status(const fg_graph *g) {
  return g ? g->status : FG_EINVAL;
}

const char *fg_graph_errmsg(const fg_graph *g) {
  return g ? g->errmsg : "graph is NULL";
}

void *fg__fail(fg_graph *g, fg_status st, const char *fmt, ...) {
  if (!g || g->status != FG_OK)
    return NULL;
  g->status = st;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g->errmsg, sizeof g->errmsg, fmt, ap);
  va_end(ap);
  return NULL;
}

fg_status fg_graph_set_error(fg_graph *g, fg_status st, const char *fmt,
                             ...) {
  if (!g)
    return FG_EINVAL;
  if (g->status != FG_OK)
    return g->status;
  g->status = st == FG_OK ? FG_EINVAL : st;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g->errmsg, sizeof g->errmsg, fmt ? fmt : "(no message)", ap);
  va_end(ap);
  return g->status;
}

int fg__vec_push(fg_graph *g, fg__vec *v, void *p) {
  if (v->n == v->cap) {
    int cap = v->cap ? v->cap * 2 : 8;
    void **item = fgu_arena_alloc(&g->arena, (size_t)cap * sizeof *item);
    if (!item) {
      fg__fail(g, FG_ENOMEM, "graph '%s': out of memory", g->name);
      return 0;
    }
    if (v->n)
      memcpy(item, v->item, (size_t)v->n * sizeof *item);
    v->item = item;
    v->cap = cap;
  }
  v->item[v->n++] = p;
  return 1;
}

void fg__live_ref(fg__live *l) { l->refs++; }

void fg__live_unref(fg__live *l) {
  if (l && --l->refs == 0)
    l->destroy(l);
}

fg__alive *fg__graph_alive(fg_graph *g) {
  if (!g->alive) {
    g->alive = calloc(1, sizeof *g->alive);
    if (!g->alive)
      return NULL;
    g->alive->refs = 1;
    g->alive->alive = true;
  }
  g->alive->refs++;
  return g->alive;
}

void fg__alive_unref(fg__alive *a) {
  if (a && --a->refs == 0)
    free(a);
}

int fg__graph_hold(fg_graph *g, fg__live *l) {
  for (int i = 0; i < g->held.n; i++)
    if (g->held.item[i] == l)
      return 1;
  if (!fg__vec_push(g, &g->held, l))
    return 0;
  fg__live_ref(l);
  return 1;
}

int fg__check_type(fg_graph *g, const char *what, fg_type t) {
  if ((unsigned)t.elem >= FG_ELEM_COUNT_ || t.elem == FG_BOOL) {
    fg__fail(g, FG_ETYPE, "%s: element type %d is not a field element type "
             "(expected u8, i8, u16, i16, u32, i32, u64, i64, f32 or f64)",
             what, (int)t.elem);
    return 0;
  }
  if (t.field.ndim < 0 || t.field.ndim > 3) {
    fg__fail(g, FG_ESHAPE, "%s: field shape has %d dimensions (expected "
             "0 to 3)", what, t.field.ndim);
    return 0;
  }
  for (int i = 0; i < t.field.ndim; i++)
    if (t.field.dim[i] < 1 || t.field.dim[i] > FG_MAX_DIM_EXTENT) {
      fg__fail(g, FG_ESHAPE, "%s: field extent %lld on axis %d is out of "
               "range (expected 1 to %lld)", what,
               (long long)t.field.dim[i], i, (long long)FG_MAX_DIM_EXTENT);
      return 0;
    }
  if (t.tensor.ndim < 0 || t.tensor.ndim > 2) {
    fg__fail(g, FG_ESHAPE, "%s: tensor shape has %d dimensions (expected "
             "0 for a scalar, 1 for a vector, 2 for a matrix)", what,
             t.tensor.ndim);
    return 0;
  }
  if (t.tensor.ndim == 1 && t.tensor.dim[0] < 0) {
    fg__fail(g, FG_ETYPE, "%s: an image type of %lld channels "
             "(fg_type_image takes 1 to 4)", what,
             (long long)-t.tensor.dim[0] - 1);
    return 0;
  }
  for (int i = 0; i < t.tensor.ndim; i++)
    if (t.tensor.dim[i] < 1 || t.tensor.dim[i] > 4096) {
      fg__fail(g, FG_ESHAPE, "%s: tensor extent %lld on axis %d is out of "
               "range (expected 1 to 4096)", what,
               (long long)t.tensor.dim[i], i);
      return 0;
    }
  /* in double, axis by axis: fg_shape_points' int64 product wraps for
   * three extents of 2^21 (to a negative count) or 2^30 (to 0), and such
   * a field passed this check with a "size" of nothing */
  double points = 1;
  for (int i = 0; i < t.field.ndim; i++)
    points *= (double)t.field.dim[i];
  double bytes = points * (double)fg_type_tensor_elements(t) *
                 (double)fg_elem_size(t.elem);
  if (bytes > (double)((size_t)1 << 46)) {
    char ts[FG_TYPE_STR_MAX];
    fg__fail(g, FG_ESHAPE, "%s: type %s needs %.0f bytes, more than a "
             "field may hold", what, fg_type_str(t, ts, sizeof ts), bytes);
    return 0;
  }
  return 1;
}

fg__node *fg__node_new(fg_graph *g, fg__node_kind kind, const char *name,
                       int n_out, const fg_type *types) {
  fg__node *n = fgu_arena_alloc(&g->arena, sizeof *n);
  if (!n)
    return fg__fail(g, FG_ENOMEM, "graph '%s': out of memory", g->name);
  n->id = g->nodes.n;
  n->kind = kind;
  n->name = fgu_arena_strdup(&g->arena, name);
  n->n_out = n_out;
  for (int i = 0; i < n_out; i++) {
    fg_field *f = fgu_arena_alloc(&g->arena, sizeof *f);
    if (!f)
      return fg__fail(g, FG_ENOMEM, "graph '%s': out of memory", g->name);
    f->id = g->fields.n;
    f->type = types[i];
    f->name = kind == FG_NODE_OP || n_out > 1
                  ? fgu_arena_printf(&g->arena, "%s.out%d", name, i)
                  : n->name;
    f->producer = n;
    f->port = i;
    f->graph = g;
    n->out[i] = f;
    if (!fg__vec_push(g, &g->fields, f))
      return NULL;
  }
  if (!fg__vec_push(g, &g->nodes, n))
    return NULL;
  return n;
}

/* Checks what every graph-level builder call checks; returns 0 (and maybe
 * records an error) when the call must do nothing. */
static int builder_ok(fg_graph *g, const char *call, const char *name) {
  if (!g || g->status != FG_OK)
    return 0;
  if (g->open_op) {
    fg__fail(g, FG_ESTATE, "%s '%s': operator being built must be closed "
             "with fg_op_end first", call, name ? name : "(null)");
    return 0;
  }
  if (!name || !*name) {
    fg__fail(g, FG_EINVAL, "%s: name is %s (expected a non-empty string)",
             call, name ? "empty" : "NULL");
    return 0;
  }
  return 1;
}

static int name_taken(fg_graph *g, const char *name) {
  for (int i = 0; i < g->inputs.n; i++)
    if (!strcmp(((fg_field *)g->inputs.item[i])->name, name))
      return 1;
  for (int i = 0; i < g->outputs.n; i++)
    if (!strcmp(((fg__output *)g->outputs.item[i])->name, name))
      return 1;
  return 0;
}

fg_field *fg_input(fg_graph *g, const char *name, fg_type type) {
  if (!builder_ok(g, "fg_input", name))
    return NULL;
  char what[256];
  snprintf(what, sizeof what, "input '%s'", name);
  if (!fg__check_type(g, what, type))
    return NULL;
  if (name_taken(g, name))
    return fg__fail(g, FG_EINVAL, "input '%s': the name is already used "
                    "by an input or output of graph '%s'", name, g->name);
  fg__node *n = fg__node_new(g, FG_NODE_INPUT, name, 1, &type);
  if (!n || !fg__vec_push(g, &g->inputs, n->out[0]))
    return NULL;
  return n->out[0];
}

fg_field *fg_constant(fg_graph *g, const char *name, fg_type type,
                      const void *data) {
  if (!builder_ok(g, "fg_constant", name))
    return NULL;
  char what[256];
  snprintf(what, sizeof what, "constant '%s'", name);
  if (!fg__check_type(g, what, type))
    return NULL;
  if (!data)
    return fg__fail(g, FG_EINVAL, "constant '%s': data is NULL (expected "
                    "%zu bytes)", name, fg_type_bytes(type));
  void *copy = fgu_arena_alloc(&g->arena, fg_type_bytes(type));
  if (!copy)
    return fg__fail(g, FG_ENOMEM, "constant '%s': out of memory", name);
  memcpy(copy, data, fg_type_bytes(type));
  fg__node *n = fg__node_new(g, FG_NODE_CONST, name, 1, &type);
  if (!n)
    return NULL;
  n->data = copy;
  return n->out[0];
}

fg_field *fg_output(fg_graph *g, const char *name, fg_field *field) {
  if (!builder_ok(g, "fg_output", name))
    return NULL;
  if (!field)       /* a clean graph: no earlier call explains the NULL */
    return fg__fail(g, FG_EINVAL, "output '%s': field is NULL", name);
  if (field->graph != g)
    return fg__fail(g, FG_EINVAL, "output '%s': field '%s' belongs to "
                    "another graph", name, field->name);
  if (name_taken(g, name))
    return fg__fail(g, FG_EINVAL, "output '%s': the name is already used "
                    "by an input or output of graph '%s'", name, g->name);
  fg__output *o = fgu_arena_alloc(&g->arena, sizeof *o);
  if (!o)
    return fg__fail(g, FG_ENOMEM, "output '%s': out of memory", name);
  o->name = fgu_arena_strdup(&g->arena, name);
  o->field = field;
  if (!o->name || !fg__vec_push(g, &g->outputs, o))
    return NULL;
  return field;
}

fg_type fg_field_type(const fg_field *f) {
  if (!f) {
    fg_type zero;
    memset(&zero, 0, sizeof zero);
    return zero;
  }
  return f->type;
}

const char *fg_field_name(const fg_field *f) { return f ? f->name : ""; }

fg_status fg_field_set_label(fg_field *f, const char *label) {
  if (!f || !label)
    return FG_EINVAL;
  const char *l = fgu_arena_strdup(&f->graph->arena, label);
  if (!l)
    return FG_ENOMEM;
  f->label = l;
  if (f->producer)
    f->producer->label = l;
  return FG_OK;
}

const char *fg_field_label(const fg_field *f) {
  return !f ? "" : f->label ? f->label : f->name;
}
fg_graph *fg_field_graph(const fg_field *f) { return f ? f->graph : NULL; }
int fg_graph_input_count(const fg_graph *g) { return g ? g->inputs.n : 0; }
int fg_graph_output_count(const fg_graph *g) { return g ? g->outputs.n : 0; }

int fg_graph_op_count(const fg_graph *g) {
  int n = 0;
  for (int i = 0; g && i < g->nodes.n; i++)
    n += ((fg__node *)g->nodes.item[i])->kind == FG_NODE_OP;
  return n;
}
