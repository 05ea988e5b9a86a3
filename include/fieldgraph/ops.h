/* fieldgraph/ops.h - the built-in operator library: ready operators that
 * build graph nodes, each written in the kernel IR (dsl.h) so that it fuses
 * exactly like an operator of the user's own.
 *
 *   fg_field *f   = fg_to_unit(g, img);                  // u8 -> [0, 1]
 *   fg_field *lab = fg_srgb_to_lab(g, f);
 *   fg_field *out = fg_intrinsic_blend(g, FG_BLEND_SRC_OVER, src, dst, NULL);
 *
 * Pointwise operators, colour conversions, look-up tables and the
 * pointwise RenderScript intrinsics are in ops_pointwise.h; the non-local
 * operators and the reductions in ops_nonlocal.h; the whole library as
 * one table of rows (names, parameters, docs, a generic call) in
 * op_table.h.
 */
#ifndef FIELDGRAPH_OPS_H
#define FIELDGRAPH_OPS_H

#include "ops_pointwise.h"
#include "ops_nonlocal.h"
#include "op_table.h"

#endif
