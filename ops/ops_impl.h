/* ops/ops_impl.h - the one helper header of the operator library
 * (ops/ops_*.c): argument checks that record errors naming the operator,
 * broadcasting, numeric constants of any element type, fgo_map (a
 * pointwise operator from a function of scalars applied to every tensor
 * element), reads at explicit coordinates with a border rule, the float <->
 * element conversions every filter ends with, and the two-pass histogram.
 * Internal; prefix fgo_. */
#ifndef FG_OPS_OPS_IMPL_H
#define FG_OPS_OPS_IMPL_H

#include "fieldgraph.h"
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
/* A scalar constant of elem holding v (integers: v truncated, saturating
 * at the type's range: 2^63 is INT64_MAX for i64). */
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

/* ---- non-local operators: image reads, accumulators, histograms ---- */

/* True when g has no error and f is non-NULL (a NULL f after an earlier
 * failure records nothing). */
bool fgo_ready(fg_graph *g, fg_field *f);

/* Checks that f is an image-like field for operator opname: 2 or 3
 * field dimensions (rows, columns, optional layers in front) and a small
 * tensor.  False with an error recorded otherwise. */
bool fgo_image(fg_graph *g, const char *opname, fg_field *f);

/* Rows and columns of a 2-D or 3-D field. */
int64_t fgo_rows(fg_field *f);
int64_t fgo_cols(fg_field *f);

/* Layers, rows and columns of f as int expressions that op reads when its
 * kernel runs (fg_field_extent), never constants: what an operator's IR
 * holds instead of fgo_rows() so that one build serves every size. */
fg_expr *fgo_layers_x(fg_op *op, fg_field *f);
fg_expr *fgo_rows_x(fg_op *op, fg_field *f);
fg_expr *fgo_cols_x(fg_op *op, fg_field *f);

/* A 0-D constant field holding n (1-4) values v of elem: a number the host
 * derives from field sizes (a scale factor, a point count) that a kernel
 * reads when it runs rather than holding it in its source.  Made before
 * fg_op_begin (one operator is open at a time); NULL on error (recorded on
 * g). */
fg_field *fgo_uniform(fg_graph *g, const char *name, fg_elem elem, int n,
                      const double *v);

/* fg_pad whose margins the host derived from in's size (a letterbox):
 * top and left are read when the kernel runs, so one build serves every
 * size (the pad reads then are not a stencil's: a little slower than
 * fg_pad's, which builds per margin). */
fg_field *fgo_pad_sized(fg_graph *g, fg_field *in, int64_t top,
                        int64_t bottom, int64_t left, int64_t right,
                        fg_border border, double value);

/* The tensor of f at (row, col), in this thread's layer when f has 3
 * dimensions.  Outside the field the nearest edge tensor (clamp). */
fg_expr *fgo_read(fg_op *op, fg_field *f, fg_expr *row, fg_expr *col);

/* The tensor of f at (row, col) under border rule b: constant gives
 * value (converted to f's element type) outside the field. */
fg_expr *fgo_read_border(fg_op *op, fg_field *f, fg_expr *row, fg_expr *col,
                             int b, double value);

/* The float type filters of f accumulate in: f64 for f64, else f32. */
fg_elem fgo_acc(fg_elem e);
/* v converted to float type acc, keeping its width. */
fg_expr *fgo_to_acc(fg_expr *v, fg_elem acc);
/* A float value converted to elem: floats by value, integers rounded to
 * nearest even and saturated. */
fg_expr *fgo_from_acc(fg_expr *v, fg_elem elem);

/* A literal of float type acc. */
fg_expr *fgo_flit(fg_op *op, fg_elem acc, double v);

/* How a histogram bins channel ch of a point's tensor v: returns the bin
 * (an int expression) and sets *valid to a condition (NULL: always). */
typedef fg_expr *(*fgo_bin_fn)(fg_op *op, fg_expr *v, int ch,
                                   fg_expr **valid, const void *user);

/* A histogram of in (1-3 dimensions, small tensors) as two operators: one
 * thread per few rows counts their points (restricted to rect's rows and
 * columns when rect is non-NULL) into a per-thread field, then one thread
 * per bin sums the rows.  Returns a 1-D field of bins points holding
 * channels counts of count_elem (i32 or u32) each. */
fg_field *fgo_histogram(fg_graph *g, const char *name, fg_field *in,
                            int bins, int channels, fg_elem count_elem,
                            fgo_bin_fn fn, const void *user,
                            const fg_restriction *rect);

#endif
