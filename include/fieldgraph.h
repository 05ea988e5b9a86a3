/* fieldgraph.h - the whole public API of libfieldgraph.
 *
 * Build a graph of tensor fields and operators (fieldgraph/graph.h), write
 * operators with the kernel DSL (fieldgraph/dsl.h), compile and run it in a
 * context (fieldgraph/context.h), and read or write images
 * (fieldgraph/image.h), draw graphs before and after fusion
 * (fieldgraph/viz.h), use RenderScript kernels as nodes
 * (fieldgraph/renderscript.h).  Status codes are in fieldgraph/status.h.
 */
#ifndef FIELDGRAPH_H
#define FIELDGRAPH_H

#ifdef __cplusplus
extern "C" {
#endif

#include "fieldgraph/status.h"
#include "fieldgraph/types.h"
#include "fieldgraph/graph.h"
#include "fieldgraph/builtins.h"
#include "fieldgraph/dsl.h"
#include "fieldgraph/context.h"
#include "fieldgraph/image.h"
#include "fieldgraph/viz.h"
#include "fieldgraph/renderscript.h"
#include "fieldgraph/ops.h"

/* Version of the library, "MAJOR.MINOR.PATCH". */
const char *fg_version(void);

#ifdef __cplusplus
}
#endif

#endif
