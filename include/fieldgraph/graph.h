/* fieldgraph/graph.h - building a dataflow graph of fields and operators.
 *
 *   fg_graph *g = fg_graph_new("demo");
 *   fg_field *img = fg_input(g, "img", fg_type_image(FG_F32, 512, 512, 4));
 *   fg_field *out = my_operator(g, img);      // built with fieldgraph/dsl.h
 *   fg_output(g, "out", out);
 *   if (fg_graph_status(g) != FG_OK) puts(fg_graph_errmsg(g));
 *
 * Errors are sticky: the first failing call records a message naming the
 * node and the offending types or shapes and returns NULL; every later call
 * that is passed NULL, or that finds the graph in error, returns NULL and
 * records nothing, so a chain of builder calls needs one check at its end.
 * A graph and everything built in it belong to one thread at a time.
 */
#ifndef FIELDGRAPH_GRAPH_H
#define FIELDGRAPH_GRAPH_H

#include "status.h"
#include "types.h"

typedef struct fg_graph fg_graph;
typedef struct fg_field fg_field;

/* New empty graph; name is copied and may be NULL.  NULL only when out of
 * memory. */
fg_graph *fg_graph_new(const char *name);
/* Frees the graph, its fields and operators; NULL does nothing. */
void fg_graph_free(fg_graph *g);
/* FG_OK, or the status of the first failed builder call. */
fg_status fg_graph_status(const fg_graph *g);
/* Message of the first failed builder call, "" when none; owned by g, valid
 * until fg_graph_free.  Never NULL (a NULL graph gives a fixed text). */
const char *fg_graph_errmsg(const fg_graph *g);

/* Records an error of the user's own (an operator's semantic check, as
 * Cog's require) on g, unless g already has one; returns g's status. */
fg_status fg_graph_set_error(fg_graph *g, fg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A graph input of the given type, bound to data at each run.  Names are
 * unique among inputs and outputs. */
fg_field *fg_input(fg_graph *g, const char *name, fg_type type);
/* A constant field; copies fg_type_bytes(type) bytes from data. */
fg_field *fg_constant(fg_graph *g, const char *name, fg_type type,
                      const void *data);
/* Marks field as a graph output named name; returns field.  A field may be
 * an output under several names. */
fg_field *fg_output(fg_graph *g, const char *name, fg_field *field);

/* Built-in reductions. */
typedef enum fg_reduce_op {
  FG_REDUCE_SUM, FG_REDUCE_MIN, FG_REDUCE_MAX, FG_REDUCE_PROD
} fg_reduce_op;

/* A 0-dimensional field holding the sum (minimum, maximum, product) of
 * every tensor of field, element by element (small tensors).  Integers
 * wrap; floats are combined in a fixed order that depends only on the
 * field's size, so every backend, thread count and fusion gives the same
 * bits.  The order: the n points, flattened in row-major order (index i),
 * form P = min(ceil(n / 16384), 256) partials of chunk =
 * roundup(ceil(n / P), 16) points each ([p * chunk, (p + 1) * chunk) cut
 * at n).  In a partial, 16 lanes each start from the identity (0, 1, the
 * type's largest or smallest value, +-infinity) and lane i % 16 takes
 * point i in increasing i: lane = lane op value; then
 * lane[l] = lane[l] op lane[l + w] for l < w, w = 8, 4, 2, 1 gives the
 * partial; the result is identity op partial 0 op partial 1 ... in order.
 * (min and max replace only on strictly smaller or larger values, so NaNs
 * never win.)  The 16 independent lanes let the loop use vector registers
 * without reassociating any float operation.  Pointwise producers of
 * field fuse into the reduction: sum(a * b) reads a and b once and never
 * writes a * b.  Sibling reductions over the same threads that read a
 * field in common share one pass (min and max of x; sum(x) and
 * sum(x * x)), each result still in this order. */
fg_field *fg_reduce(fg_graph *g, const char *name, fg_reduce_op op,
                    fg_field *field);
/* fg_reduce's minimum (op FG_REDUCE_MIN) or maximum (FG_REDUCE_MAX) of a
 * scalar field of numbers, the same bits, and in *index a 0-D i64 field:
 * the row-major flat index of the first point equal (==) to it (-0.0 and
 * +0.0 are equal; NaNs never are), -1 where there is none (only NaNs).
 * One pass over field (XLA's argmin/argmax); siblings share it as
 * fg_reduce's do.  NULL with the graph's error set on failure. */
fg_field *fg_reduce_index(fg_graph *g, const char *name, fg_reduce_op op,
                          fg_field *field, fg_field **index);

/* Type of a field; an all-zero type for NULL. */
fg_type fg_field_type(const fg_field *field);
/* Name of a field ("img", "half.out0", ...); "" for NULL.  Owned by the
 * graph. */
const char *fg_field_name(const fg_field *field);
/* The graph a field belongs to, NULL for NULL. */
fg_graph *fg_field_graph(const fg_field *field);
/* Sets the text that drawings (viz.h) and fusion reports show for field
 * and for the operator producing it: a front end's own name for it, such
 * as "lab (lab.fgp:3)".  The field's name, its identity in messages and
 * outputs, does not change.  FG_EINVAL for NULL arguments; FG_ENOMEM. */
fg_status fg_field_set_label(fg_field *field, const char *label);
/* The label set on field, else its name; "" for NULL. */
const char *fg_field_label(const fg_field *field);

/* Number of graph inputs / outputs, in declaration order. */
int fg_graph_input_count(const fg_graph *g);
int fg_graph_output_count(const fg_graph *g);
/* Number of operator nodes (not counting inputs, constants and outputs). */
int fg_graph_op_count(const fg_graph *g);

#endif
