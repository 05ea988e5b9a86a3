/* ops/ops_arith.c - arithmetic on fields: binary operators with
 * broadcasting (fields, and a number on either side), unary operators and
 * math functions, fg_where (select), clamp and scale-offset.  Each is one
 * pointwise operator built by fgo_map from a function of scalars. */
#include "ops_impl.h"

#include <stdio.h>

static const char *const binop_names[FG_BINOP_COUNT_] = {
  "add", "sub", "mul", "div", "mod", "min", "max", "add_sat", "sub_sat",
  "absdiff", "pow", "atan2", "hypot", "eq", "ne", "lt", "le", "gt", "ge",
  "and", "or", "xor", "band", "bor", "bxor"};

static const char *const unop_names[FG_UNOP_COUNT_] = {
  "neg", "abs", "not", "bnot", "sqrt", "exp", "log", "exp2", "log2",
  "log10", "sin", "cos", "tan", "atan", "tanh", "floor", "ceil", "trunc",
  "round", "rint", "sign"};

static bool is_float(fg_elem e) { return e == FG_F32 || e == FG_F64; }
static bool is_signed(fg_elem e) {
  return e == FG_I8 || e == FG_I16 || e == FG_I32 || e == FG_I64;
}

/* The element type a binary operation computes in, given the operands'
 * common type. */
static fg_elem work_elem(fg_binop op, fg_elem common) {
  return op >= FG_OP_POW && op <= FG_OP_HYPOT ? fgo_float_of(common)
                                              : common;
}

static fg_elem binop_result(fg_binop op, fg_elem common) {
  if (op >= FG_OP_EQ && op <= FG_OP_XOR)
    return FG_U8;
  return work_elem(op, common);
}

/* a op b on two scalars of elem w (already converted). */
static fg_expr *apply_binop(fg_op *op, fg_binop o, fg_expr *a, fg_expr *b,
                            fg_elem w) {
  fg_expr *zero = fgo_const(op, w, 0);
  switch (o) {
  case FG_OP_ADD: return fg_add(a, b);
  case FG_OP_SUB: return fg_sub(a, b);
  case FG_OP_MUL: return fg_mul(a, b);
  case FG_OP_DIV: return fg_div(a, b);
  case FG_OP_MOD: return is_float(w) ? fg_fmod(a, b) : fg_mod(a, b);
  case FG_OP_MIN: return fg_min(a, b);
  case FG_OP_MAX: return fg_max(a, b);
  case FG_OP_ADD_SAT: return is_float(w) ? fg_add(a, b) : fg_add_sat(a, b);
  case FG_OP_SUB_SAT: return is_float(w) ? fg_sub(a, b) : fg_sub_sat(a, b);
  case FG_OP_ABSDIFF:
    if (is_float(w))
      return fg_fabs(fg_sub(a, b));
    return is_signed(w) ? fg_convert_sat(fg_abs_diff(a, b), w, 1)
                        : fg_abs_diff(a, b);
  case FG_OP_POW: return fg_pow(a, b);
  case FG_OP_ATAN2: return fg_atan2(a, b);
  case FG_OP_HYPOT: return fg_hypot(a, b);
  case FG_OP_EQ: return fg_eq(a, b);
  case FG_OP_NE: return fg_ne(a, b);
  case FG_OP_LT: return fg_lt(a, b);
  case FG_OP_LE: return fg_le(a, b);
  case FG_OP_GT: return fg_gt(a, b);
  case FG_OP_GE: return fg_ge(a, b);
  case FG_OP_AND: return fg_land(fg_ne(a, zero), fg_ne(b, zero));
  case FG_OP_OR: return fg_lor(fg_ne(a, zero), fg_ne(b, zero));
  case FG_OP_XOR: return fg_ne(fg_ne(a, zero), fg_ne(b, zero));
  case FG_OP_BAND: return fg_band(a, b);
  case FG_OP_BOR: return fg_bor(a, b);
  case FG_OP_BXOR: return fg_bxor(a, b);
  default: return NULL;
  }
}

typedef struct bin_ctx {
  fg_binop op;
  fg_elem work;
  int scalar_side;      /* 0: two fields; 1: number on the right; 2: left */
  double s;
} bin_ctx;

static fg_expr *bin_fn(fg_op *op, fg_expr *const *x, const void *ctx) {
  const bin_ctx *c = ctx;
  fg_expr *a, *b;
  if (c->scalar_side == 0) {
    a = fgo_to(x[0], c->work);
    b = fgo_to(x[1], c->work);
  } else {
    fg_expr *k = fgo_to(fgo_const(op, fg_expr_elem(x[0]), c->s), c->work);
    a = c->scalar_side == 1 ? fgo_to(x[0], c->work) : k;
    b = c->scalar_side == 1 ? k : fgo_to(x[0], c->work);
  }
  return apply_binop(op, c->op, a, b, c->work);
}

static bool binop_ok(fg_graph *g, fg_binop op, fg_elem common) {
  if (!g || fg_graph_status(g) != FG_OK)
    return false;
  if ((unsigned)op >= FG_BINOP_COUNT_)
    return fgo_fail(g, FG_EINVAL, "fg_binary", "operation %d is not an "
                    "fg_binop", (int)op) != NULL;
  if (op >= FG_OP_BAND && is_float(common))
    return fgo_fail(g, FG_ETYPE, binop_names[op], "bitwise operations need "
                    "integer fields, got %s", fg_elem_name(common)) != NULL;
  return true;
}

fg_field *fg_binary(fg_graph *g, fg_binop op, fg_field *a, fg_field *b) {
  fg_field *in[2] = {a, b};
  if (!fgo_fields_ok(g, "fg_binary", 2, in))
    return NULL;
  fg_elem common = fgo_common(fg_field_type(a).elem, fg_field_type(b).elem);
  if (!binop_ok(g, op, common))
    return NULL;
  bin_ctx c = {op, work_elem(op, common), 0, 0};
  return fgo_map(g, binop_names[op], 2, in, binop_result(op, common), bin_fn,
                 &c);
}

static fg_field *with_number(fg_graph *g, fg_binop op, fg_field *a, double s,
                             int side) {
  if (!fgo_fields_ok(g, "fg_binary_scalar", 1, &a))
    return NULL;
  fg_elem common = fg_field_type(a).elem;
  if (!binop_ok(g, op, common))
    return NULL;
  bin_ctx c = {op, work_elem(op, common), side, s};
  return fgo_map(g, binop_names[op], 1, &a, binop_result(op, common), bin_fn,
                 &c);
}

fg_field *fg_binary_scalar(fg_graph *g, fg_binop op, fg_field *a, double s) {
  return with_number(g, op, a, s, 1);
}

fg_field *fg_scalar_binary(fg_graph *g, fg_binop op, double s, fg_field *a) {
  return with_number(g, op, a, s, 2);
}

/* ---- unary ---------------------------------------------------------------- */

typedef struct un_ctx {
  fg_unop op;
  fg_elem work;
} un_ctx;

static fg_expr *un_fn(fg_op *op, fg_expr *const *x, const void *ctx) {
  const un_ctx *c = ctx;
  fg_expr *a = fgo_to(x[0], c->work);
  fg_elem w = c->work;
  fg_expr *zero = fgo_const(op, w, 0);
  switch (c->op) {
  case FG_OP_NEG: return fg_neg(a);
  case FG_OP_ABS: return is_float(w) ? fg_fabs(a)
                                     : fgo_to(fg_abs(a), w);
  case FG_OP_NOT: return fg_eq(a, zero);
  case FG_OP_BNOT: return fg_bnot(a);
  case FG_OP_SQRT: return fg_sqrt(a);
  case FG_OP_EXP: return fg_exp(a);
  case FG_OP_LOG: return fg_log(a);
  case FG_OP_EXP2: return fg_exp2(a);
  case FG_OP_LOG2: return fg_log2(a);
  case FG_OP_LOG10: return fg_log10(a);
  case FG_OP_SIN: return fg_sin(a);
  case FG_OP_COS: return fg_cos(a);
  case FG_OP_TAN: return fg_tan(a);
  case FG_OP_ATAN: return fg_atan(a);
  case FG_OP_TANH: return fg_tanh(a);
  case FG_OP_FLOOR: return is_float(w) ? fg_floor(a) : a;
  case FG_OP_CEIL: return is_float(w) ? fg_ceil(a) : a;
  case FG_OP_TRUNC: return is_float(w) ? fg_trunc(a) : a;
  case FG_OP_ROUND: return is_float(w) ? fg_round(a) : a;
  case FG_OP_RINT: return is_float(w) ? fg_rint(a) : a;
  case FG_OP_SIGN:
    if (is_float(w))
      return fg_sign(a);
    return fg_sub(fg_gt(a, zero), fg_lt(a, zero));
  default: return NULL;
  }
}

fg_field *fg_unary(fg_graph *g, fg_unop op, fg_field *a) {
  if (!fgo_fields_ok(g, "fg_unary", 1, &a))
    return NULL;
  if ((unsigned)op >= FG_UNOP_COUNT_)
    return fgo_fail(g, FG_EINVAL, "fg_unary", "operation %d is not an "
                    "fg_unop", (int)op);
  fg_elem e = fg_field_type(a).elem;
  if (op == FG_OP_BNOT && is_float(e))
    return fgo_fail(g, FG_ETYPE, "bnot", "needs an integer field, '%s' is "
                    "%s", fg_field_label(a), fg_elem_name(e));
  un_ctx c = {op, e};
  fg_elem out = e;
  if (op >= FG_OP_SQRT && op <= FG_OP_TANH)
    c.work = out = fgo_float_of(e);
  if (op == FG_OP_NOT)
    out = FG_U8;
  return fgo_map(g, unop_names[op], 1, &a, out, un_fn, &c);
}

/* ---- select, clamp, scale-offset ----------------------------------------- */

static fg_expr *where_fn(fg_op *op, fg_expr *const *x, const void *ctx) {
  fg_elem w = *(const fg_elem *)ctx;
  fg_expr *c = fg_ne(x[0], fgo_const(op, fg_expr_elem(x[0]), 0));
  return fg_select(fgo_to(x[2], w), fgo_to(x[1], w), c);
}

fg_field *fg_where(fg_graph *g, fg_field *cond, fg_field *a, fg_field *b) {
  fg_field *in[3] = {cond, a, b};
  if (!fgo_fields_ok(g, "where", 3, in))
    return NULL;
  if (fg_field_type(a).elem != fg_field_type(b).elem)
    return fgo_fail(g, FG_ETYPE, "where", "'%s' is %s but '%s' is %s; the "
                    "two choices need one element type", fg_field_label(a),
                    fg_elem_name(fg_field_type(a).elem), fg_field_label(b),
                    fg_elem_name(fg_field_type(b).elem));
  fg_elem w = fg_field_type(a).elem;
  return fgo_map(g, "where", 3, in, w, where_fn, &w);
}

typedef struct two_numbers {
  double lo, hi;
} two_numbers;

static fg_expr *clamp_fn(fg_op *op, fg_expr *const *x, const void *ctx) {
  const two_numbers *n = ctx;
  fg_elem e = fg_expr_elem(x[0]);
  return fg_clamp(x[0], fgo_const(op, e, n->lo), fgo_const(op, e, n->hi));
}

fg_field *fg_clamp_field(fg_graph *g, fg_field *a, double lo, double hi) {
  if (!fgo_fields_ok(g, "clamp", 1, &a))
    return NULL;
  if (!(lo <= hi))
    return fgo_fail(g, FG_EINVAL, "clamp", "lower bound %g is above the "
                    "upper bound %g", lo, hi);
  two_numbers n = {lo, hi};
  return fgo_map(g, "clamp", 1, &a, fg_field_type(a).elem, clamp_fn, &n);
}

static fg_expr *scale_fn(fg_op *op, fg_expr *const *x, const void *ctx) {
  const two_numbers *n = ctx;
  fg_elem e = fg_expr_elem(x[0]), w = fgo_float_of(e);
  /* the product in its own statement: never contracted into an fma, so
   * both backends round alike */
  fg_expr *p = fg_var(op, w, 1);
  fg_assign(p, fg_mul(fgo_to(x[0], w), fgo_const(op, w, n->lo)));
  fg_expr *v = fg_add(p, fgo_const(op, w, n->hi));
  return is_float(e) ? v : fg_convert_sat(v, e, 1);
}

fg_field *fg_scale_offset(fg_graph *g, fg_field *a, double scale,
                          double offset) {
  if (!fgo_fields_ok(g, "scale_offset", 1, &a))
    return NULL;
  two_numbers n = {scale, offset};
  return fgo_map(g, "scale_offset", 1, &a, fg_field_type(a).elem, scale_fn, &n);
}
