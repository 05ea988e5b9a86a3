/* rs-graph/graph.h - a script's kernels, reductions and invokables as
 * graph nodes (nodes.c: fg_rs_map, fg_rs_reduce, ...) and invokables that
 * launch kernels, run while the graph is built (invoke.c: fg_rs_invoke).
 * The top part of the RenderScript front end.  Internal; prefix fgr_. */
#ifndef FG_RS_GRAPH_GRAPH_H
#define FG_RS_GRAPH_GRAPH_H

#include "rs-host/host.h"

/* Runs invokable f, which launches no kernel, as one thread over its
 * rs_allocation parameters (args, one field each, in order) and the
 * values of its numeric and bool parameters (values: one pointer per
 * parameter, as fg_rs_invoke_args takes them; NULL refuses such a
 * parameter) as part of g: the node fg_rs_invoke builds for it.  A
 * parameter or global it sets elements of is a copy of its field with
 * the writes: *result (a global is rebound to it); NULL when it writes
 * none.  Script globals it writes go to a copy of the globals block that
 * later launches in g read.  what names the call. */
fg_status fgr_invoke_single(fg_graph *g, fg_rs_script *s, const fgr_func *f,
                            const char *what, const void *const *values,
                            int n_args, fg_field *const *args,
                            fg_field **result);

#endif
