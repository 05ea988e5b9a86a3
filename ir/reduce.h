/* ir/reduce.h - the identities of the built-in reductions: the value an
 * accumulator starts from, in one table that both the emitters (as
 * literal text in a kernel) and the host combiner (runtime/combine.c, as
 * a host value) read, so the two can never disagree.  The reduction
 * itself (fgk_reduction) is described in ir/ir.h.  Internal; prefix fgk_.
 */
#ifndef FG_IR_REDUCE_H
#define FG_IR_REDUCE_H

#include "ir/ir.h"

/* The order of a built-in reduction, the same on every backend, so that
 * a result depends only on the shape and the data, never on the backend,
 * the threads or fusion.  The n points of the thread shape, flattened in
 * row-major order (index i), are split into P partials (runtime/reduce.c
 * picks P from n alone) of chunk = roundup(ceil(n / P), FGK_REDUCE_LANES)
 * points: partial p takes [p * chunk, min((p + 1) * chunk, n)).  Within a
 * partial, lane l (0 <= l < FGK_REDUCE_LANES) starts from the identity and
 * folds the points with i % FGK_REDUCE_LANES == l in increasing i:
 * acc[l] = acc[l] op v.  The lanes then fold by a fixed tree, halving:
 * for w = LANES/2, LANES/4, ..., 1: acc[l] = acc[l] op acc[l + w] for
 * l < w (min and max keep acc[l] unless acc[l + w] is strictly smaller or
 * larger); acc[0] is the partial.  The host folds the partials in order
 * from the identity: r = r op partial[p].  Independent lanes are what lets
 * the loop vectorize without reassociating any floating-point operation.
 * Integer reductions give the same bits in every order, so their kernels
 * keep one accumulator and let the compiler pick the vector width (or
 * share the lanes of a float sibling in the same kernel).  Sibling
 * reductions fused into one kernel (fgk_kernel.sibling) each follow this
 * order on their own accumulators, over the same partials. */
#define FGK_REDUCE_LANES 16
/* Points a partial folds at most before the runtime adds partials, and
 * the most partials: P = min(ceil(n / CHUNK), MAX_PARTIALS); both are
 * part of the order fg_reduce documents. */
#define FGK_REDUCE_CHUNK 16384
/* Points of a block of a reduction with a location (emit/reduce.c): after
 * each, the extremes are checked; a first point is looked for in at most
 * a few of them.  A multiple of the lanes. */
#define FGK_REDUCE_LOC_BLOCK 4096

typedef struct fgk_identity {
  /* The value as a C and OpenCL C literal, to be cast to the element
   * type: "0", "1", "INFINITY", "-INFINITY", "255", "(-128)". */
  const char *text;
  /* The same value as an FGK_E_CONST of the element type holds it. */
  fgk_const value;
} fgk_identity;

/* The identity of op over elements of type e (sum 0, product 1, minimum
 * the type's largest value, maximum its smallest; infinities for floats);
 * NULL for FG_BOOL (fields never hold it) or an op out of range. */
const fgk_identity *fgk_reduce_identity(fg_reduce_op op, fg_elem e);

/* Writes the identity of op over e as one host element of e
 * (fg_elem_size(e) bytes) at out; false, writing nothing, where
 * fgk_reduce_identity is NULL. */
bool fgk_reduce_identity_host(fg_reduce_op op, fg_elem e, void *out);

#endif
