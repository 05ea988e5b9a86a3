/* tools/ops_table.c - the pipeline file's operators by name: one row per
 * operator, naming the library call that builds it.  Pointwise rows
 * (EXPR1-3) wrap a builtin of builtins.h; eval.c makes each call one
 * operator of the graph and fusion merges them.  Builtins without a row
 * are still callable positionally, through fg_call.
 *
 * To add an operator of include/fieldgraph/ops.h, add one line naming
 * its C parameters after the graph (F field, d double, i int, l int64_t,
 * b bool; see fgt_op_row) and their names, with defaults where the
 * pipeline may leave them out:
 *   OP("transpose", "F", "image", fg_transpose, "rows <-> columns"),
 *   OP("box_blur", "Fii", "image,radius=1,border=0", fg_box_blur, "..."),
 * A signature eval.c's call_graph does not know yet is one more case
 * there (a line).
 */
#include "tools/fgt.h"

#include <string.h>

#define FN(f) ((void (*)(void))(f))
#define EXPR1(n, p, f, d) {n, FGT_OP_EXPR1, p, FN(f), 0, d, NULL}
#define EXPR2(n, p, f, d) {n, FGT_OP_EXPR2, p, FN(f), 0, d, NULL}
#define EXPR3(n, p, f, d) {n, FGT_OP_EXPR3, p, FN(f), 0, d, NULL}
#define OP(n, sig, p, f, d) {n, FGT_OP_GRAPH, p, FN(f), 0, d, sig}
#define FIELD1(n, p, f, d) OP(n, "F", p, f, d)
#define REDUCE(n, op, d) {n, FGT_OP_REDUCE, "field", NULL, op, d, NULL}

static const fgt_op_row table[] = {
  /* image operators (ops_local.c until ops.h has them) */
  OP("flip", "Fbb", "image,horizontal=0,vertical=1", fgt_flip,
     "mirror: upside down by default (Cog's upsideDown)"),
  FIELD1("cielab", "image", fgt_cielab, "sRGB in [0,1] to CIE L*a*b*"),
  FIELD1("grey", "image", fgt_grey, "Rec. 709 luma of an RGB(A) image"),
  FIELD1("rgba", "image", fgt_rgba, "1-4 channels to float4, alpha 1"),
  FIELD1("to_unit", "image", fgt_to_unit, "u8 pixels to f32 in [0,1]"),
  FIELD1("to_u8", "image", fgt_to_u8, "f32 in [0,1] to u8, saturating"),
  EXPR1("u8", "x", fgt_sat_u8, "to u8, rounding and saturating (no scale)"),
  EXPR1("f32", "x", fgt_to_f32, "to f32 (no scale)"),
  /* reductions: 0-D fields, reported with report() */
  REDUCE("sum", FG_REDUCE_SUM, "sum of every tensor"),
  REDUCE("min", FG_REDUCE_MIN, "smallest tensor, per element"),
  REDUCE("max", FG_REDUCE_MAX, "largest tensor, per element"),
  REDUCE("prod", FG_REDUCE_PROD, "product of every tensor"),
  REDUCE("mean", -1, "sum divided by the number of points"),
  /* builtins with named parameters (others: positional, via fg_call) */
  EXPR3("clamp", "x,lo,hi", fg_clamp, "min(max(x, lo), hi)"),
  EXPR3("mix", "x,y,a", fg_mix, "x + (y - x) * a"),
  EXPR3("fma", "a,b,c", fg_fma, "a * b + c, rounded once"),
  EXPR2("pow", "x,y", fg_pow, "x to the power y"),
  EXPR2("fmin", "x,y", fg_fmin, "smaller of x and y"),
  EXPR2("fmax", "x,y", fg_fmax, "larger of x and y"),
  EXPR2("step", "edge,x", fg_step, "0 if x < edge, else 1"),
  EXPR2("dot", "a,b", fg_dot, "dot product"),
  EXPR1("sqrt", "x", fg_sqrt, "square root"),
  EXPR1("exp", "x", fg_exp, "e to the x"),
  EXPR1("log", "x", fg_log, "natural logarithm"),
  EXPR1("fabs", "x", fg_fabs, "absolute value"),
  EXPR1("length", "p", fg_length, "vector length"),
};

const fgt_op_row *fgt_op_find(const char *name) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, name) == 0)
      return &table[i];
  return NULL;
}

const fgt_op_row *fgt_op_table(int *n) {
  *n = (int)(sizeof table / sizeof table[0]);
  return table;
}
