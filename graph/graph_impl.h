/* graph/graph_impl.h - the bodies of fg_graph, fg_field and graph nodes,
 * shared by the graph builder, the DSL builder and the compiler.  Internal.
 */
#ifndef FG_GRAPH_IMPL_H
#define FG_GRAPH_IMPL_H

#include "ir/ir.h"

typedef enum fg__node_kind {
  FG_NODE_INPUT, FG_NODE_CONST, FG_NODE_OP
} fg__node_kind;

typedef struct fg__node fg__node;

/* Bytes a constant takes its value from at the start of every run (a
 * RenderScript script's globals), shared by reference count between their
 * owner, the graphs that read them and the programs compiled from those.
 * destroy frees the whole owner when the last reference goes. */
typedef struct fg__live {
  int refs;
  size_t size;
  unsigned char *bytes;
  void (*destroy)(struct fg__live *l);
} fg__live;

void fg__live_ref(fg__live *l);
/* Drops a reference; NULL does nothing. */
void fg__live_unref(fg__live *l);

/* Whether a graph still exists, for those that keep pointers into it
 * beyond its life (a script's bound allocations): shared by reference
 * count between the graph and each holder; alive turns false in
 * fg_graph_free, so a holder never dereferences a freed field. */
typedef struct fg__alive {
  int refs;
  bool alive;
} fg__alive;

/* A new reference on g's token (made on first use); NULL on out of
 * memory. */
fg__alive *fg__graph_alive(fg_graph *g);
/* Drops a reference; NULL does nothing. */
void fg__alive_unref(fg__alive *a);

struct fg_field {
  int id;                 /* index in graph->fields */
  fg_type type;
  const char *name;
  const char *label;      /* fg_field_set_label's, or NULL */
  fg__node *producer;
  int port;               /* which output of the producer */
  fg_graph *graph;
  fg__live *sink;         /* when set (the graph holds it), the field's
                             value at the end of each successful run is
                             copied into sink->bytes: what a script's
                             launch left in its globals */
};

struct fg__node {
  int id;                 /* index in graph->nodes; topological order */
  fg__node_kind kind;
  const char *name;
  const char *label;      /* its output's fg_field_set_label, or NULL */
  int n_out;
  fg_field *out[FG_MAX_OUTPUTS];
  const void *data;       /* FG_NODE_CONST: fg_type_bytes(out[0]) bytes */
  fg__live *live;         /* FG_NODE_CONST: when set, the value at each
                             run is live->bytes, not data */
  fgk_kernel *kernel;     /* FG_NODE_OP */
  fg_field **in;          /* FG_NODE_OP: the fields the kernel reads, in */
  int n_in;               /* the order of its input ports */
};

typedef struct fg__output {
  const char *name;
  fg_field *field;
} fg__output;

/* A growable array of pointers in the graph's arena. */
typedef struct fg__vec {
  void **item;
  int n, cap;
} fg__vec;

struct fg_graph {
  fgu_arena arena;
  const char *name;
  fg_status status;
  char errmsg[1024];
  fg__vec nodes, fields, inputs, outputs;   /* fg__node*, fg_field*,
                                               fg_field*, fg__output* */
  fg__vec held;           /* fg__live* the graph holds a reference on */
  fg__alive *alive;       /* one reference, or NULL: none was asked */
  fg_op *open_op;         /* operator being built, if any */
  const char *open_op_name;
};

/* Records the first error on g (later ones are ignored); returns NULL so
 * builders can `return fg__fail(...)`. */
void *fg__fail(fg_graph *g, fg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends p to v in g's arena; 0 on out-of-memory (recorded on g). */
int fg__vec_push(fg_graph *g, fg__vec *v, void *p);
/* New node with n_out output fields of the given types, named
 * "<name>.out<i>" (or name when n_out is 1 and the node is no operator). */
/* What drawings and reports call node n: its label, else its name. */
static inline const char *fg__node_label(const fg__node *n) {
  return n->label ? n->label : n->name;
}

fg__node *fg__node_new(fg_graph *g, fg__node_kind kind, const char *name,
                       int n_out, const fg_type *types);
/* Makes g hold a reference on l until fg_graph_free (once per l). */
int fg__graph_hold(fg_graph *g, fg__live *l);

/* Checks that t is a valid field type; on failure records a message about
 * what (e.g. "input 'img'") on g and returns 0. */
int fg__check_type(fg_graph *g, const char *what, fg_type t);

#endif
