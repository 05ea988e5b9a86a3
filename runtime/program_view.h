/* runtime/program_view.h - what the drawing code (viz/) may read of a
 * compiled program: which kernel each graph node went to, how many
 * reductions a kernel carries, and why each field is held in memory.
 * Internal. */
#ifndef FG_RUNTIME_PROGRAM_VIEW_H
#define FG_RUNTIME_PROGRAM_VIEW_H

#include "graph/graph_impl.h"

/* Whether p was compiled from g (same nodes and field names). */
bool fg__program_matches(const fg_program *p, const fg_graph *g);
/* The kernel (index) that runs graph node `node`, -1 when none does
 * (inputs, constants, dead operators). */
int fg__program_node_kernel(const fg_program *p, int node);
/* How many reductions kernel k computes in its one pass: 0, 1, or more
 * for fused siblings (fuse/partition.c); 0 for an index out of range. */
int fg__program_kernel_reductions(const fg_program *p, int k);
/* Why field `field` is materialized; NULL when it is virtual (or not an
 * operator output). */
const char *fg__program_field_reason(const fg_program *p, int field);

#endif
