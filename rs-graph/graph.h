/* rs-graph/graph.h - a script's kernels, reductions and invokables as
 * graph nodes (nodes.c: fg_rs_map, fg_rs_reduce, ...) and invokables that
 * launch kernels, run while the graph is built (invoke.c: fg_rs_invoke).
 * The top part of the RenderScript front end.  Internal; prefix fgr_. */
#ifndef FG_RS_GRAPH_GRAPH_H
#define FG_RS_GRAPH_GRAPH_H

#include "rs-host/host.h"

/* Runs invokable f, which launches no kernel, as one thread over its
 * rs_allocation parameters (args, one field each, in order) and the
 * values of its numeric, vector and bool parameters (values: one pointer
 * per parameter, as fg_rs_invoke_args takes them; NULL refuses such a
 * parameter) as part of g: the node fg_rs_invoke builds for it.  Each
 * parameter or global it sets elements of is a copy of its field with the
 * writes, one result each (a global is rebound to its copy):
 * results[0 .. *n_results - 1] (room for FG_MAX_OUTPUTS), the parameters
 * in order, then the globals in the order they are declared.  Script
 * globals it writes go to a copy of the globals block (the node's output
 * after those results, no result itself) that later launches in g read.
 * what names the call. */
fg_status fgr_invoke_single(fg_graph *g, fg_rs_script *s, const fgr_func *f,
                            const char *what, const void *const *values,
                            int n_args, fg_field *const *args,
                            fg_field **results, int *n_results);

/* Marks set[k] (one per global of s) for each rs_allocation global that
 * kernel kf, or a function it calls, sets elements of: the allocations
 * its launch writes beside its output (fg_rs_map).  Marks none where
 * fg_rs_map would refuse the writes. */
void fgr_kernel_sets(fg_rs_script *s, const fgr_func *kf, bool *set);

#endif
