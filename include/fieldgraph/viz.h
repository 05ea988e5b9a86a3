/* fieldgraph/viz.h - drawing graphs with Graphviz.
 *
 *   fg_graph_draw(g, NULL, "before.svg", err, sizeof err);   // as built
 *   fg_graph_draw(g, prog, "after.svg", err, sizeof err);    // as fused
 *
 * Operators are boxes labelled with their name and output type; fields
 * are edges labelled with their shape.  With a program compiled from g,
 * each kernel is a cluster, fused-away (virtual) fields are dashed,
 * materialized ones solid, and each edge that was not fused says why.
 */
#ifndef FIELDGRAPH_VIZ_H
#define FIELDGRAPH_VIZ_H

#include "context.h"

/* Writes g (with prog's fusion when prog is non-NULL; prog must have been
 * compiled from g) to path as Graphviz DOT (.dot or .gv), SVG (.svg) or
 * PNG (.png), chosen by the extension.  The file is written to a temporary
 * name and renamed, so a failure leaves no partial file.  On failure err
 * (errlen bytes, may be NULL) says why.  The graph's thread. */
fg_status fg_graph_draw(fg_graph *g, const fg_program *prog,
                        const char *path, char *err, size_t errlen);

#endif
