/* dsl/ops_nl_impl.h - helpers the operator library (dsl/ops_*.c) shares:
 * argument checks that record errors naming the operator, reads at
 * explicit coordinates with a border rule, and the float <-> element
 * conversions every filter ends with.  Everything here goes through the
 * public builder API, so library operators are built exactly like user
 * code.  Internal; prefix fgk_ops_. */
#ifndef FG_DSL_OPS_IMPL_H
#define FG_DSL_OPS_IMPL_H

#include "fieldgraph.h"

#include <stdbool.h>

/* True when g has no error and f is non-NULL (a NULL f after an earlier
 * failure records nothing). */
bool fgk_ops_ready(fg_graph *g, fg_field *f);

/* Checks that f is an image-like field for operator opname: 2 or 3
 * field dimensions (rows, columns, optional layers in front) and a small
 * tensor.  False with an error recorded otherwise. */
bool fgk_ops_image(fg_graph *g, const char *opname, fg_field *f);

/* Rows and columns of a 2-D or 3-D field. */
int64_t fgk_ops_rows(fg_field *f);
int64_t fgk_ops_cols(fg_field *f);

/* The tensor of f at (row, col), in this thread's layer when f has 3
 * dimensions.  Outside the field the nearest edge tensor (clamp). */
fg_expr *fgk_ops_read(fg_op *op, fg_field *f, fg_expr *row, fg_expr *col);

/* The tensor of f at (row, col) under border rule b: constant gives
 * value (converted to f's element type) outside the field. */
fg_expr *fgk_ops_read_border(fg_op *op, fg_field *f, fg_expr *row, fg_expr *col,
                             int b, double value);

/* The float type filters of f accumulate in: f64 for f64, else f32. */
fg_elem fgk_ops_acc(fg_elem e);
/* v converted to float type acc, keeping its width. */
fg_expr *fgk_ops_to_acc(fg_expr *v, fg_elem acc);
/* A float value converted to elem: floats by value, integers rounded to
 * nearest even and saturated. */
fg_expr *fgk_ops_from_acc(fg_expr *v, fg_elem elem);

/* A literal of float type acc. */
fg_expr *fgk_ops_flit(fg_op *op, fg_elem acc, double v);

/* How a histogram bins channel ch of a point's tensor v: returns the bin
 * (an int expression) and sets *valid to a condition (NULL: always). */
typedef fg_expr *(*fgk_ops_bin_fn)(fg_op *op, fg_expr *v, int ch,
                                   fg_expr **valid, const void *user);

/* A histogram of in (1-3 dimensions, small tensors) as two operators: one
 * thread per few rows counts their points (restricted to rect's rows and
 * columns when rect is non-NULL) into a per-thread field, then one thread
 * per bin sums the rows.  Returns a 1-D field of bins points holding
 * channels counts of count_elem (i32 or u32) each. */
fg_field *fgk_ops_histogram(fg_graph *g, const char *name, fg_field *in,
                            int bins, int channels, fg_elem count_elem,
                            fgk_ops_bin_fn fn, const void *user,
                            const fg_restriction *rect);

#endif
