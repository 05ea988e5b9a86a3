/* dsl/dsl_impl.h - the body of fg_op while it is being built, shared by the
 * statement builder (dsl/builder.c) and the expression builder
 * (dsl/expr.c).  Internal. */
#ifndef FG_DSL_IMPL_H
#define FG_DSL_IMPL_H

#include "graph/graph_impl.h"

enum { FGK_MAX_DEPTH = 64, FGK_MAX_INPUTS = 64 };

typedef enum fgk_frame_kind {
  FGK_F_THEN, FGK_F_ELSE, FGK_F_FOR, FGK_F_WHILE, FGK_F_FOREACH
} fgk_frame_kind;

typedef struct fgk_frame {
  fgk_frame_kind kind;
  fgk_block *blk;
  fgk_stmt *stmt;
} fgk_frame;

struct fg_op {
  fg_graph *g;
  const char *name;
  int n_out;
  fg_type out_type[FG_MAX_OUTPUTS];
  fg_field *in[FGK_MAX_INPUTS];
  bool in_nonlocal[FGK_MAX_INPUTS];
  int n_in;
  fgk_block body;
  fgk_frame stack[FGK_MAX_DEPTH];
  int depth;
  int n_vars;
  int top_stmts;             /* statements at the top level so far */
  bool local_written[FG_MAX_OUTPUTS];
  bool written[FG_MAX_OUTPUTS];
  bool top_write_seen;       /* a local _writeTensor closed the body */
  bool foreach_seen;         /* a top-level _forEachTensorElement */
  int foreach_count;         /* its element count */
  fg__node *node;            /* set by fg_op_end */
  fg_shape threads;          /* output 0's field shape or _globalThreads */
  int thread_elements;       /* > 0: threads per point, _tensorElement */
  int local[2];              /* work-group (rows, columns) */
  bool grouped;              /* uses work-group features */
  fgk_reduction reduce;      /* fgk_op_set_reduction's, else NONE */
  int out_init[FG_MAX_OUTPUTS]; /* 1 + the input port output o starts as
                               (fgk_op_output_starts_as), 0: none */
  bool infer_out;            /* fg_op_begin_map: output 0's tensor type
                                comes from its fg_write_tensor */
};

/* NULL when op cannot take more building (NULL, errored graph, closed). */
bool fgk_op_usable(fg_op *op);
/* Records an error naming the operator; returns NULL. */
void *fgk_fail(fg_op *op, fg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Index of field as an input of op, registering it on first use; -1 with an
 * error recorded when the field cannot be read. */
int fgk_op_input(fg_op *op, fg_field *f, const char *call);
/* True inside a _forEachTensorElement block. */
bool fgk_in_foreach(fg_op *op);
/* True where the thread constant _tensorElement is defined: inside a
 * _forEachTensorElement block, or anywhere after _globalThreads(fieldShape,
 * tensorShape). */
bool fgk_has_tensor_element(fg_op *op);
/* New expression node of op, or NULL (error recorded) when out of memory. */
fg_expr *fgk_expr_new(fg_op *op, fgk_expr_kind kind, fgk_type type);
/* Checks that e is an integer scalar usable as a coordinate or index. */
bool fgk_check_index(fg_op *op, fg_expr *e, const char *call,
                     const char *what);
/* Marks op as a reduction (ir/ir.h): output r.port, which must be 0-D,
 * accumulates what the threads write to it.  Call before fg_op_end, at
 * most once.  False with an error recorded when op is unusable or r does
 * not fit it. */
bool fgk_op_set_reduction(fg_op *op, fgk_reduction r);
/* Output out of op holds the values of field f (same type; registered as a
 * non-local input) before any thread runs, for a kernel that updates
 * points of a copy of f (written by a foreign call that writes out
 * itself).  False with an error recorded when they do not fit. */
bool fgk_op_output_starts_as(fg_op *op, int out, fg_field *f);
/* Appends e, evaluated for its effect (a foreign call that writes an
 * output itself), as a statement at the current point of op. */
bool fgk_op_eval(fg_op *op, fg_expr *e);
/* Nonzero when a value of type from may be assigned or passed where to is
 * expected without an explicit conversion. */
bool fgk_implicit_ok(fgk_type from, fgk_type to);

#endif
