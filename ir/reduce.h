/* ir/reduce.h - the identities of the built-in reductions: the value an
 * accumulator starts from, in one table that both the emitters (as
 * literal text in a kernel) and the host combiner (runtime/combine.c, as
 * a host value) read, so the two can never disagree.  The reduction
 * itself (fgk_reduction) is described in ir/ir.h.  Internal; prefix fgk_.
 */
#ifndef FG_IR_REDUCE_H
#define FG_IR_REDUCE_H

#include "ir/ir.h"

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
