/* dsl/expr.c - the expression half of the kernel DSL: constants, thread
 * constants, operators, swizzles, vector literals, conversions and calls
 * of the built-in function table, each type-checked as it is built with
 * OpenCL C's rules for scalars and vectors. */
#include "dsl_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool fgk_implicit_ok(fgk_type from, fgk_type to) {
  if (fgk_type_eq(from, to))
    return true;
  if (from.width != 1)
    return false;                 /* vectors never convert implicitly */
  if (to.elem == FG_BOOL)
    return true;                  /* any scalar tests as a truth value */
  return from.elem <= to.elem;    /* no implicit narrowing */
}

/* Checks operands of a binary (what names it) or unary (what NULL)
 * operation: non-NULL, same operator, operator still open.  Returns the
 * operator or NULL. */
static fg_op *operands(fg_expr *a, fg_expr *b, const char *what) {
  if (!a)
    return NULL;
  fg_op *op = a->op;
  if (!fgk_op_usable(op))
    return NULL;
  if (!what)
    return op;                    /* unary: b is unused */
  if (!b)
    return NULL;
  if (b->op != op)
    return fgk_fail(op, FG_EINVAL, "%s: operands come from different "
                    "operators ('%s' and '%s')", what, op->name,
                    b->op ? b->op->name : "?");
  return op;
}

fg_op *fg_expr_op(const fg_expr *e) { return e ? e->op : NULL; }
fg_elem fg_expr_elem(const fg_expr *e) { return e ? e->type.elem : FG_BOOL; }
int fg_expr_width(const fg_expr *e) { return e ? e->type.width : 0; }

/* ---- constants and thread constants ------------------------------------- */

static fg_expr *konst(fg_op *op, fg_elem elem) {
  if (!fgk_op_usable(op))
    return NULL;
  return fgk_expr_new(op, FGK_E_CONST, fgk_t(elem, 1));
}

fg_expr *fg_float(fg_op *op, float v) {
  fg_expr *e = konst(op, FG_F32);
  if (e)
    e->u.k.f = v;
  return e;
}
fg_expr *fg_double(fg_op *op, double v) {
  fg_expr *e = konst(op, FG_F64);
  if (e)
    e->u.k.f = v;
  return e;
}
fg_expr *fg_int(fg_op *op, int32_t v) {
  fg_expr *e = konst(op, FG_I32);
  if (e)
    e->u.k.i = v;
  return e;
}
fg_expr *fg_uint(fg_op *op, uint32_t v) {
  fg_expr *e = konst(op, FG_U32);
  if (e)
    e->u.k.u = v;
  return e;
}
fg_expr *fg_long(fg_op *op, int64_t v) {
  fg_expr *e = konst(op, FG_I64);
  if (e)
    e->u.k.i = v;
  return e;
}
fg_expr *fg_ulong(fg_op *op, uint64_t v) {
  fg_expr *e = konst(op, FG_U64);
  if (e)
    e->u.k.u = v;
  return e;
}
fg_expr *fg_bool(fg_op *op, int v) {
  fg_expr *e = konst(op, FG_BOOL);
  if (e)
    e->u.k.i = v != 0;
  return e;
}

fg_expr *fg_thread(fg_op *op, fg_thread_const which) {
  if (!fgk_op_usable(op))
    return NULL;
  if ((unsigned)which >= FG_THREAD_CONST_COUNT_)
    return fgk_fail(op, FG_EINVAL, "fg_thread: unknown thread constant %d",
                    (int)which);
  if (which == FG_TENSOR_ELEMENT && !fgk_has_tensor_element(op))
    return fgk_fail(op, FG_ERULE, "_tensorElement is only defined inside "
                    "_forEachTensorElement or after _globalThreads("
                    "fieldShape, tensorShape)");
  if (which >= FG_LOCAL_LAYERS)
    op->grouped = true;           /* work-group identity: a grouped kernel */
  fg_expr *e = fgk_expr_new(op, FGK_E_THREAD, fgk_t(FG_I32, 1));
  if (e)
    e->u.thread = which;
  return e;
}

fg_expr *fg_field_extent(fg_op *op, fg_field *f, fg_thread_const axis) {
  if (!fgk_op_usable(op) || !f)
    return NULL;
  if (axis != FG_LAYERS && axis != FG_ROWS && axis != FG_COLUMNS)
    return fgk_fail(op, FG_EINVAL, "fg_field_extent('%s'): axis %d is not "
                    "FG_LAYERS, FG_ROWS or FG_COLUMNS", fg_field_name(f),
                    (int)axis);
  int port = fgk_op_input(op, f, "fg_field_extent");
  if (port < 0)
    return NULL;
  fg_expr *e = fgk_expr_new(op, FGK_E_EXTENT, fgk_t(FG_I32, 1));
  if (e) {
    e->u.extent.port = port;
    e->u.extent.axis = axis;
  }
  return e;
}

/* ---- operators ---------------------------------------------------------- */

static const char *const binop_name[FGK_BINOP_COUNT_] = {
  "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||",
  "&", "|", "^", "<<", ">>"};

/* Type of a scalar after C's integer promotions. */
static fgk_type promote(fgk_type t) {
  if (t.width == 1 && t.elem < FG_I32)
    t.elem = FG_I32;
  return t;
}

/* The signed integer type comparisons of vectors of t produce. */
static fg_elem mask_elem(fg_elem e) {
  switch (fg_elem_size(e)) {
  case 1: return FG_I8;
  case 2: return FG_I16;
  case 8: return FG_I64;
  default: return FG_I32;
  }
}

/* Type of a op b under OpenCL C's rules, or width 0 when not allowed
 * (message written to why). */
static fgk_type arith_type(fgk_type a, fgk_type b, char *why, size_t n) {
  if (a.width == 1 && b.width == 1) {
    a = promote(a);
    b = promote(b);
    return a.elem >= b.elem ? a : b;
  }
  if (a.width > 1 && b.width > 1) {
    if (fgk_type_eq(a, b))
      return a;
    snprintf(why, n, "vector operands must have the same type");
    return fgk_t(a.elem, 0);
  }
  fgk_type v = a.width > 1 ? a : b, s = a.width > 1 ? b : a;
  if (s.elem <= v.elem || fgk_is_int(s.elem) || s.elem == FG_BOOL)
    return v;        /* the scalar converts to the element type */
  snprintf(why, n, "the scalar's type ranks above the vector's elements");
  return fgk_t(a.elem, 0);
}

static fg_expr *binary(fgk_binop opc, fg_expr *a, fg_expr *b) {
  const char *name = binop_name[opc];
  fg_op *op = operands(a, b, name);
  if (!op)
    return NULL;
  char why[160] = "";
  bool is_cmp = opc >= FGK_EQ && opc <= FGK_GE;
  bool is_logic = opc == FGK_LAND || opc == FGK_LOR;
  bool int_only = opc == FGK_MOD || opc >= FGK_BAND;
  if (is_logic && (a->type.width != 1 || b->type.width != 1))
    return fgk_fail(op, FG_ETYPE, "operator %s needs scalar operands, got "
                    "%s and %s", name, fgk_type_name(a->type),
                    fgk_type_name(b->type));
  if (int_only && (fgk_is_float(a->type.elem) || fgk_is_float(b->type.elem)))
    return fgk_fail(op, FG_ETYPE, "operator %s needs integer operands, got "
                    "%s and %s", name, fgk_type_name(a->type),
                    fgk_type_name(b->type));
  fgk_type t;
  if (is_logic) {
    t = fgk_t(FG_I32, 1);
  } else if (opc == FGK_SHL || opc == FGK_SHR) {
    if (a->type.width == 1 && b->type.width > 1)
      return fgk_fail(op, FG_ETYPE, "operator %s: cannot shift a scalar %s "
                      "by a vector %s", name, fgk_type_name(a->type),
                      fgk_type_name(b->type));
    if (a->type.width > 1 && b->type.width > 1 &&
        a->type.width != b->type.width)
      return fgk_fail(op, FG_ETYPE, "operator %s: widths of %s and %s "
                      "differ", name, fgk_type_name(a->type),
                      fgk_type_name(b->type));
    t = promote(a->type);
  } else {
    t = arith_type(a->type, b->type, why, sizeof why);
    if (t.width == 0)
      return fgk_fail(op, FG_ETYPE, "operator %s: cannot combine %s and %s "
                      "(%s)", name, fgk_type_name(a->type),
                      fgk_type_name(b->type), why);
    if (is_cmp)
      t = t.width == 1 ? fgk_t(FG_I32, 1) : fgk_t(mask_elem(t.elem), t.width);
  }
  fg_expr *e = fgk_expr_new(op, FGK_E_BINARY, t);
  if (e) {
    e->u.bin.op = opc;
    e->u.bin.a = a;
    e->u.bin.b = b;
  }
  return e;
}

fg_expr *fg_add(fg_expr *a, fg_expr *b) { return binary(FGK_ADD, a, b); }
fg_expr *fg_sub(fg_expr *a, fg_expr *b) { return binary(FGK_SUB, a, b); }
fg_expr *fg_mul(fg_expr *a, fg_expr *b) { return binary(FGK_MUL, a, b); }
fg_expr *fg_div(fg_expr *a, fg_expr *b) { return binary(FGK_DIV, a, b); }
fg_expr *fg_mod(fg_expr *a, fg_expr *b) { return binary(FGK_MOD, a, b); }
fg_expr *fg_eq(fg_expr *a, fg_expr *b) { return binary(FGK_EQ, a, b); }
fg_expr *fg_ne(fg_expr *a, fg_expr *b) { return binary(FGK_NE, a, b); }
fg_expr *fg_lt(fg_expr *a, fg_expr *b) { return binary(FGK_LT, a, b); }
fg_expr *fg_le(fg_expr *a, fg_expr *b) { return binary(FGK_LE, a, b); }
fg_expr *fg_gt(fg_expr *a, fg_expr *b) { return binary(FGK_GT, a, b); }
fg_expr *fg_ge(fg_expr *a, fg_expr *b) { return binary(FGK_GE, a, b); }
fg_expr *fg_land(fg_expr *a, fg_expr *b) { return binary(FGK_LAND, a, b); }
fg_expr *fg_lor(fg_expr *a, fg_expr *b) { return binary(FGK_LOR, a, b); }
fg_expr *fg_band(fg_expr *a, fg_expr *b) { return binary(FGK_BAND, a, b); }
fg_expr *fg_bor(fg_expr *a, fg_expr *b) { return binary(FGK_BOR, a, b); }
fg_expr *fg_bxor(fg_expr *a, fg_expr *b) { return binary(FGK_BXOR, a, b); }
fg_expr *fg_shl(fg_expr *a, fg_expr *b) { return binary(FGK_SHL, a, b); }
fg_expr *fg_shr(fg_expr *a, fg_expr *b) { return binary(FGK_SHR, a, b); }

fg_expr *fg_addf(fg_expr *a, float b) {
  return a ? binary(FGK_ADD, a, fg_float(a->op, b)) : NULL;
}
fg_expr *fg_subf(fg_expr *a, float b) {
  return a ? binary(FGK_SUB, a, fg_float(a->op, b)) : NULL;
}
fg_expr *fg_mulf(fg_expr *a, float b) {
  return a ? binary(FGK_MUL, a, fg_float(a->op, b)) : NULL;
}
fg_expr *fg_divf(fg_expr *a, float b) {
  return a ? binary(FGK_DIV, a, fg_float(a->op, b)) : NULL;
}
fg_expr *fg_addi(fg_expr *a, int32_t b) {
  return a ? binary(FGK_ADD, a, fg_int(a->op, b)) : NULL;
}
fg_expr *fg_subi(fg_expr *a, int32_t b) {
  return a ? binary(FGK_SUB, a, fg_int(a->op, b)) : NULL;
}
fg_expr *fg_muli(fg_expr *a, int32_t b) {
  return a ? binary(FGK_MUL, a, fg_int(a->op, b)) : NULL;
}

static fg_expr *unary(fgk_unop opc, fg_expr *a, const char *name) {
  fg_op *op = operands(a, NULL, NULL);
  if (!op)
    return NULL;
  fgk_type t = promote(a->type);
  if (opc == FGK_LNOT) {
    if (a->type.width != 1)
      return fgk_fail(op, FG_ETYPE, "operator %s needs a scalar, got %s",
                      name, fgk_type_name(a->type));
    t = fgk_t(FG_I32, 1);
  } else if (opc == FGK_BNOT && fgk_is_float(a->type.elem)) {
    return fgk_fail(op, FG_ETYPE, "operator %s needs an integer, got %s",
                    name, fgk_type_name(a->type));
  }
  fg_expr *e = fgk_expr_new(op, FGK_E_UNARY, t);
  if (e) {
    e->u.bin.op = opc;
    e->u.bin.a = a;
  }
  return e;
}

fg_expr *fg_neg(fg_expr *a) { return unary(FGK_NEG, a, "-"); }
fg_expr *fg_lnot(fg_expr *a) { return unary(FGK_LNOT, a, "!"); }
fg_expr *fg_bnot(fg_expr *a) { return unary(FGK_BNOT, a, "~"); }

/* ---- swizzles, vector literals, conversions ----------------------------- */

fg_expr *fg_swizzle(fg_expr *v, const char *components) {
  fg_op *op = operands(v, NULL, NULL);
  if (!op)
    return NULL;
  if (!components)
    return fgk_fail(op, FG_EINVAL, "fg_swizzle: components are NULL");
  size_t n = strlen(components);
  if (n < 1 || n > 4)
    return fgk_fail(op, FG_EINVAL, "fg_swizzle(\"%s\"): 1 to 4 components "
                    "expected", components);
  if (v->type.width == 1)
    return fgk_fail(op, FG_ETYPE, "fg_swizzle(\"%s\"): %s is not a vector",
                    components, fgk_type_name(v->type));
  const char *set = strchr("xyzw", components[0]) ? "xyzw" : "rgba";
  fg_expr *e = fgk_expr_new(op, FGK_E_SWIZZLE, fgk_t(v->type.elem, (int)n));
  if (!e)
    return NULL;
  for (size_t i = 0; i < n; i++) {
    const char *p = components[i] ? strchr(set, components[i]) : NULL;
    if (!p)
      return fgk_fail(op, FG_EINVAL, "fg_swizzle(\"%s\"): '%c' is not one "
                      "of %s (sets cannot be mixed)", components,
                      components[i], set);
    int c = (int)(p - set);
    if (c >= v->type.width)
      return fgk_fail(op, FG_ETYPE, "fg_swizzle(\"%s\"): component '%c' "
                      "does not exist in %s", components, components[i],
                      fgk_type_name(v->type));
    e->u.swz.comp[i] = c;
  }
  e->u.swz.a = v;
  e->u.swz.n = (int)n;
  return e;
}

fg_expr *fg_vector(fg_elem elem, int width, int nargs, ...) {
  fg_expr *arg[4] = {0};
  va_list ap;
  if (nargs < 1 || nargs > 4) {
    fg_expr *first = NULL;
    if (nargs > 4) {
      va_start(ap, nargs);
      first = va_arg(ap, fg_expr *);
      va_end(ap);
    }
    if (first && fgk_op_usable(first->op))
      fgk_fail(first->op, FG_EINVAL, "vector literal: %d arguments "
               "(expected 1 to 4)", nargs);
    return NULL;
  }
  va_start(ap, nargs);
  for (int i = 0; i < nargs; i++)
    arg[i] = va_arg(ap, fg_expr *);
  va_end(ap);
  fg_op *op = NULL;
  for (int i = 0; i < nargs; i++) {
    if (!arg[i])
      return NULL;
    op = op ? op : arg[i]->op;
    if (!operands(arg[i], arg[0], "vector literal"))
      return NULL;
  }
  if (!fgk_op_usable(op))
    return NULL;
  fgk_type t = fgk_t(elem, width);
  if (width < 2 || width > 4 || (unsigned)elem >= FG_ELEM_COUNT_ ||
      elem == FG_BOOL)
    return fgk_fail(op, FG_ETYPE, "vector literal: %s with width %d is not "
                    "a vector type", fg_elem_name(elem), width);
  int comps = 0;
  for (int i = 0; i < nargs; i++) {
    if (arg[i]->type.width > 1 && arg[i]->type.elem != elem)
      return fgk_fail(op, FG_ETYPE, "_%s(...): argument %d is %s; vector "
                      "arguments must have element type %s",
                      fgk_type_name(t), i + 1, fgk_type_name(arg[i]->type),
                      fgk_type_name(fgk_t(elem, 1)));
    comps += arg[i]->type.width;
  }
  if (!(nargs == 1 && arg[0]->type.width == 1) && comps != width)
    return fgk_fail(op, FG_ETYPE, "_%s(...): arguments have %d components, "
                    "expected %d (or one scalar to replicate)",
                    fgk_type_name(t), comps, width);
  fg_expr *e = fgk_expr_new(op, FGK_E_VECTOR, t);
  if (e) {
    e->u.vec.n = nargs;
    memcpy(e->u.vec.arg, arg, sizeof arg);
  }
  return e;
}

static fg_expr *conversion(fgk_expr_kind kind, fg_expr *a, fg_elem elem,
                           int width, bool sat, const char *call) {
  fg_op *op = operands(a, NULL, NULL);
  if (!op)
    return NULL;
  if ((unsigned)elem >= FG_ELEM_COUNT_)
    return fgk_fail(op, FG_ETYPE, "%s: invalid target element type %d",
                    call, (int)elem);
  if (width == 0)
    width = a->type.width;
  if (elem == FG_BOOL && width > 1)
    return fgk_fail(op, FG_ETYPE, "%s: cannot convert %s to a bool vector "
                    "(bool is scalar only)", call, fgk_type_name(a->type));
  if (width < 1 || width > 4)
    return fgk_fail(op, FG_ETYPE, "%s: width %d (expected 1 to 4)", call,
                    width);
  fgk_type t = fgk_t(elem, width);
  if (kind == FGK_E_CONVERT && a->type.width != 1 && a->type.width != width)
    return fgk_fail(op, FG_ETYPE, "%s: cannot convert %s to %s (widths "
                    "differ)", call, fgk_type_name(a->type),
                    fgk_type_name(t));
  if (kind == FGK_E_AS) {
    size_t from = fg_elem_size(a->type.elem) *
                  (size_t)(a->type.width == 3 ? 4 : a->type.width);
    size_t to = fg_elem_size(elem) * (size_t)(width == 3 ? 4 : width);
    if (from != to || a->type.elem == FG_BOOL || elem == FG_BOOL)
      return fgk_fail(op, FG_ETYPE, "%s: cannot reinterpret %s (%zu bytes) "
                      "as %s (%zu bytes)", call, fgk_type_name(a->type),
                      from, fgk_type_name(t), to);
  }
  fg_expr *e = fgk_expr_new(op, kind, t);
  if (e) {
    e->u.conv.a = a;
    e->u.conv.sat = sat;
  }
  return e;
}

fg_expr *fg_convert(fg_expr *e, fg_elem elem, int width) {
  return conversion(FGK_E_CONVERT, e, elem, width, false, "_convert");
}
fg_expr *fg_convert_sat(fg_expr *e, fg_elem elem, int width) {
  if (e && fgk_op_usable(e->op) && (!fgk_is_int(elem)))
    return fgk_fail(e->op, FG_ETYPE, "_convert_sat: target must be an "
                    "integer type, got %s", fg_elem_name(elem));
  return conversion(FGK_E_CONVERT, e, elem, width, true, "_convert_sat");
}
fg_expr *fg_as(fg_expr *e, fg_elem elem, int width) {
  return conversion(FGK_E_AS, e, elem, width, false, "_as");
}

/* ---- built-in functions ------------------------------------------------- */

/* Whether rule accepts t as the type of a built-in's first argument; what
 * writes the kind of type wanted when not. */
static bool rule_accepts(fgk_rule rule, fgk_type t, const char **what) {
  fg_elem el = t.elem;
  switch (rule) {
  case FGK_RULE_NUM:
  case FGK_RULE_SELECT:
    *what = "numeric";
    return el != FG_BOOL;
  case FGK_RULE_INT:
  case FGK_RULE_INTU:
    *what = "integer";
    return fgk_is_int(el);
  case FGK_RULE_INT32:
    *what = "int or uint";
    return el == FG_I32 || el == FG_U32;
  case FGK_RULE_SINTRED:
    *what = "signed integer";
    return fgk_is_signed(el);
  case FGK_RULE_F32:
  case FGK_RULE_F32RED:
    *what = "float";
    return el == FG_F32;
  case FGK_RULE_FLT34:
    *what = "float3, float4, double3 or double4";
    return fgk_is_float(el) && (t.width == 3 || t.width == 4);
  case FGK_RULE_NANCODE:
    *what = "uint or ulong";
    return el == FG_U32 || el == FG_U64;
  default:
    *what = "float or double";
    return fgk_is_float(el);
  }
}

/* The type a call of a built-in with rule and first argument type t has. */
static fgk_type rule_result(fgk_rule rule, fgk_type t) {
  switch (rule) {
  case FGK_RULE_INTU:
    return fgk_t(fgk_is_signed(t.elem) ? (fg_elem)(t.elem + 1) : t.elem,
                 t.width);
  case FGK_RULE_FLTRED:
  case FGK_RULE_F32RED:
    return fgk_t(t.elem, 1);
  case FGK_RULE_FLTI:
    return fgk_t(FG_I32, t.width);
  case FGK_RULE_REL:
    return t.width == 1 ? fgk_t(FG_I32, 1) : fgk_t(mask_elem(t.elem), t.width);
  case FGK_RULE_SINTRED:
    return fgk_t(FG_I32, 1);
  case FGK_RULE_NANCODE:
    return fgk_t(t.elem == FG_U64 ? FG_F64 : FG_F32, t.width);
  default:
    return t;
  }
}

static fg_expr *call_builtin(fgk_builtin fn, int nargs, fg_expr *const *arg) {
  const fgk_builtin_info *info = &fgk_builtins[fn];
  if (nargs < 1)
    return NULL;
  for (int i = 0; i < nargs; i++)
    if (!arg[i] || !operands(arg[i], arg[0], info->name))
      return NULL;
  fg_op *op = arg[0]->op;
  if (nargs != info->arity)
    return fgk_fail(op, FG_EINVAL, "_%s takes %d argument(s), got %d",
                    info->name, info->arity, nargs);
  fgk_type t = arg[0]->type;
  const char *what = "";
  if (!rule_accepts(info->rule, t, &what))
    return fgk_fail(op, FG_ETYPE, "_%s needs %s arguments, argument 1 is %s",
                    info->name, what, fgk_type_name(t));
  for (int i = 1; i < nargs; i++) {
    fgk_type want = t, at = arg[i]->type;
    if (info->rule == FGK_RULE_FLTINT && i == 1) {
      if (!fgk_is_int(at.elem) || (at.width != 1 && at.width != t.width))
        return fgk_fail(op, FG_ETYPE, "_%s: argument 2 must be int or an "
                        "int vector of width %d, got %s", info->name, t.width,
                        fgk_type_name(at));
      continue;
    }
    if (info->rule == FGK_RULE_SELECT && i == 2) {
      /* vectors: the MSB of each component of c selects, so c is an
       * integer vector of T's width and element size; scalars: c ? b : a */
      bool ok = t.width == 1
                    ? at.width == 1 && (fgk_is_int(at.elem) ||
                                        at.elem == FG_BOOL)
                    : at.width == t.width && fgk_is_int(at.elem) &&
                          fg_elem_size(at.elem) == fg_elem_size(t.elem);
      if (!ok)
        return fgk_fail(op, FG_ETYPE, "_select: argument 3 is %s; expected "
                        "%s", fgk_type_name(at), t.width == 1
                        ? "an integer scalar" : "an integer vector of the "
                        "width and element size of arguments 1 and 2");
      continue;
    }
    bool ok = fgk_type_eq(at, want) ||
              (at.width == 1 && fgk_implicit_ok(at, fgk_t(want.elem, 1)));
    if (!ok)
      return fgk_fail(op, FG_ETYPE, "_%s: argument %d is %s, expected %s "
                      "(or a scalar converting to %s)", info->name, i + 1,
                      fgk_type_name(at), fgk_type_name(want),
                      fgk_type_name(fgk_t(want.elem, 1)));
  }
  fgk_type r = rule_result(info->rule, t);
  fg_expr *e = fgk_expr_new(op, FGK_E_CALL, r);
  if (e) {
    e->u.call.fn = fn;
    e->u.call.n = nargs;
    for (int i = 0; i < nargs; i++)
      e->u.call.arg[i] = arg[i];
  }
  return e;
}

const char *fg_builtin_name(int i) {
  return i >= 0 && i < FGK_FN_COUNT_ ? fgk_builtins[i].name : NULL;
}

fg_expr *fg_call(const char *name, int nargs, fg_expr *const *args) {
  if (!args || nargs < 1)
    return NULL;
  if (nargs > 3) {
    if (args[0] && fgk_op_usable(args[0]->op))
      fgk_fail(args[0]->op, FG_EINVAL, "fg_call(\"%s\"): %d arguments (no "
               "built-in takes more than 3)", name ? name : "(null)", nargs);
    return NULL;
  }
  for (int i = 0; i < nargs; i++)
    if (!args[i])
      return NULL;
  for (int fn = 0; name && fn < FGK_FN_COUNT_; fn++)
    if (!strcmp(fgk_builtins[fn].name, name))
      return call_builtin((fgk_builtin)fn, nargs, args);
  return fgk_fail(args[0]->op, FG_EINVAL, "fg_call: no built-in function "
                  "named '%s'", name ? name : "(null)");
}

/* Every row has its public declaration in fieldgraph/builtins.h: naming
 * an undeclared function does not compile, and a declaration of another
 * arity conflicts with the definition below. */
#define FGK__DECLARED(name, arity, rule, ctmpl, clname, text)               \
  _Static_assert(sizeof(&fg_##name) > 0, "fg_" #name " is declared");
FGK_BUILTINS(FGK__DECLARED)
#undef FGK__DECLARED

#define FGK__DEF_1(n) \
  fg_expr *fg_##n(fg_expr *a) { return call_builtin(FGK_FN_##n, 1, &a); }
#define FGK__DEF_2(n)                                                        \
  fg_expr *fg_##n(fg_expr *a, fg_expr *b) {                                  \
    fg_expr *args[2] = {a, b};                                               \
    return call_builtin(FGK_FN_##n, 2, args);                                \
  }
#define FGK__DEF_3(n)                                                        \
  fg_expr *fg_##n(fg_expr *a, fg_expr *b, fg_expr *c) {                      \
    fg_expr *args[3] = {a, b, c};                                            \
    return call_builtin(FGK_FN_##n, 3, args);                                \
  }
#define FGK__DEF(name, arity, rule, ctmpl, clname, text) FGK__DEF_##arity(name)
FGK_BUILTINS(FGK__DEF)
#undef FGK__DEF
