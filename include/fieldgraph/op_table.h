/* fieldgraph/op_table.h - the operator library as one table: a row per
 * operator with its name, parameters (names, kinds, defaults), a one-line
 * description, the C call it makes and a generic way to call it.  Front
 * ends build from it (the fieldgraph command's pipeline language, bindings
 * of other languages), `fieldgraph ops` prints it and the reference table
 * of docs/pipeline.md is checked against it.
 *
 *   const fg_op_info *op = fg_ops_find("box_blur");
 *   fg_op_args a = {.field = {img}, .num = {0, 2, FG_BORDER_MIRROR}};
 *   fg_field *out = fg_ops_call(g, op, &a);     // fg_box_blur(g, img, 2, ..)
 */
#ifndef FIELDGRAPH_OP_TABLE_H
#define FIELDGRAPH_OP_TABLE_H

#include "dsl.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a row is called. */
typedef enum fg_op_kind {
  FG_OPK_EXPR1,   /* a builtin of builtins.h of 1, 2 or 3 operands */
  FG_OPK_EXPR2,   /*   (expr1/2/3): applied pointwise by the front end, */
  FG_OPK_EXPR3,   /*   one operator per call, fused with its neighbours */
  FG_OPK_GRAPH,   /* build(g, args): one call of the operator library */
  FG_OPK_REDUCE   /* fg_reduce(g, name, reduce_op, args->field[0]) */
} fg_op_kind;

/* Most parameters of a row. */
#define FG_OP_MAX_PARAMS 8

/* A list of numbers (a 'w' parameter): n values, read as rows x cols for a
 * matrix (a flat list: rows 1, cols n). */
typedef struct fg_op_list {
  int n, rows, cols;
  const float *v;
} fg_op_list;

/* The arguments of a call, by parameter position i: field[i] for 'F'
 * (NULL: an optional field left out), num[i] for 'd', 'i', 'l', 'b' and
 * for enums (the enum's value), str[i] for 's', list[i] for 'w'. */
typedef struct fg_op_args {
  fg_field *field[FG_OP_MAX_PARAMS];
  double num[FG_OP_MAX_PARAMS];
  const char *str[FG_OP_MAX_PARAMS];
  const fg_op_list *list[FG_OP_MAX_PARAMS];
} fg_op_args;

/* One row of the table. */
typedef struct fg_op_info {
  const char *name;     /* the operator's name in pipelines: "box_blur" */
  fg_op_kind kind;
  const char *params;   /* names, with defaults: "image,radius=1,border=clamp"
                           ("none": an optional field left out) */
  const char *sig;      /* one letter per parameter: F field, d number,
                           i int, l int64, b 0/1, s string, w number list,
                           or an enum (fg_ops_enum_names' letters) */
  const char *doc;      /* one line */
  const char *c_call;   /* the library function the row calls: "fg_box_blur" */
  fg_field *(*build)(fg_graph *g, const fg_op_args *a);   /* FG_OPK_GRAPH */
  fg_expr *(*expr1)(fg_expr *a);                          /* FG_OPK_EXPR1 */
  fg_expr *(*expr2)(fg_expr *a, fg_expr *b);              /* FG_OPK_EXPR2 */
  fg_expr *(*expr3)(fg_expr *a, fg_expr *b, fg_expr *c);  /* FG_OPK_EXPR3 */
  fg_reduce_op reduce_op;                                 /* FG_OPK_REDUCE */
} fg_op_info;

/* The whole table, *n rows, in the order of the reference docs. */
const fg_op_info *fg_ops_table(int *n);

/* The row named name, or NULL. */
const fg_op_info *fg_ops_find(const char *name);

/* The names of the enum of signature letter c in value order,
 * NULL-terminated (B border, I interpolation, M blend mode, E element
 * type, O binary op, U unary op, R reduce op); NULL for other letters. */
const char *const *fg_ops_enum_names(char c);

/* Number of parameters of row op (the length of its sig; 1, 2 or 3 for
 * expression rows, 1 for reductions). */
int fg_ops_param_count(const fg_op_info *op);

/* Calls a FG_OPK_GRAPH or FG_OPK_REDUCE row with arguments a: its field
 * arguments are checked (non-NULL where required, of graph g) and a list
 * argument must be present; the result, or NULL with g's error set (naming
 * the operator).  Expression rows give NULL with FG_EINVAL: a front end
 * applies op->expr1/2/3 inside an operator of its own. */
fg_field *fg_ops_call(fg_graph *g, const fg_op_info *op, const fg_op_args *a);

#ifdef __cplusplus
}
#endif

#endif
