/* fieldgraph/ops_pointwise.h - the operator library's pointwise
 * operators.  Placeholder on this branch: the pointwise library lands
 * from its own branch, whose version of this file replaces this one. */
#ifndef FIELDGRAPH_OPS_POINTWISE_H
#define FIELDGRAPH_OPS_POINTWISE_H

#include "graph.h"

#endif
