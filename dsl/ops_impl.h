/* dsl/ops_impl.h - helpers the operator library's files (dsl/ops_*.c)
 * share: argument checks that name the operator, broadcasting, numeric
 * constants of any element type, and fgo_map, which builds a pointwise
 * operator from a function of scalars applied to every tensor element.
 * Internal. */
#ifndef FG_DSL_OPS_IMPL_H
#define FG_DSL_OPS_IMPL_H

#include "dsl_impl.h"
#include "fieldgraph/ops_pointwise.h"

#include <stdbool.h>

/* Builds the value of one result element from the matching elements x[0..n)
 * of the inputs (scalar expressions of the inputs' element types); ctx is
 * the caller's.  The result is converted to the operator's element type. */
typedef fg_expr *(*fgo_scalar_fn)(fg_op *op, fg_expr *const *x,
                                  const void *ctx);

/* False, with an error naming the operator, when g is unusable or a field
 * is NULL (then nothing is recorded: an earlier call failed) or belongs to
 * another graph. */
bool fgo_fields_ok(fg_graph *g, const char *name, int n,
                   fg_field *const *f);
/* Records "name: message" on g; returns NULL. */
void *fgo_fail(fg_graph *g, fg_status st, const char *name, const char *fmt,
               ...) __attribute__((format(printf, 4, 5)));
/* The broadcast result of n fields (ops_pointwise.h's rule) in *out (its
 * element type left as the first field's); false with an error naming the
 * operator when they do not combine. */
bool fgo_broadcast(fg_graph *g, const char *name, int n,
                   fg_field *const *f, fg_type *out);
/* The higher element type of a and b in fg_elem's order. */
fg_elem fgo_common(fg_elem a, fg_elem b);
/* f32, or f64 for f64: the float type an operation on e computes in. */
fg_elem fgo_float_of(fg_elem e);
/* A scalar constant of elem holding v (integers: v truncated). */
fg_expr *fgo_const(fg_op *op, fg_elem elem, double v);
/* x converted to elem (C's rules) unless it already is elem. */
fg_expr *fgo_to(fg_expr *x, fg_elem elem);
/* A vector (n 2-4) or scalar (n 1) of elem from n scalar expressions. */
fg_expr *fgo_vec(fg_elem elem, int n, fg_expr *const *c);
/* Component i of a small-tensor value v of width w (v itself when w is 1).
 */
fg_expr *fgo_comp(fg_expr *v, int w, int i);
/* A pointwise operator named name over n inputs: the result has
 * fgo_broadcast's shape and tensor and element type out_elem; each result
 * element is fn of the inputs' matching elements.  Returns its output or
 * NULL. */
fg_field *fgo_map(fg_graph *g, const char *name, int n, fg_field *const *in,
                  fg_elem out_elem, fgo_scalar_fn fn, const void *ctx);
/* Whether a restriction fits a field of rows x columns; false with an error
 * naming the operator otherwise.  NULL fits. */
bool fgo_restriction_ok(fg_graph *g, const char *name,
                        const fg_restriction *r, fg_shape s);
/* An int expression, nonzero when this thread lies inside r (NULL: always
 * true, returned as NULL so callers skip the test). */
fg_expr *fgo_inside(fg_op *op, const fg_restriction *r);

#endif
