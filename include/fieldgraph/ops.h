/* fieldgraph/ops.h - the built-in operator library: pointwise operators
 * (fieldgraph/ops_pointwise.h) and non-local operators and reductions
 * (fieldgraph/ops_nonlocal.h). */
#ifndef FIELDGRAPH_OPS_H
#define FIELDGRAPH_OPS_H

#include "ops_pointwise.h"
#include "ops_nonlocal.h"

#endif
