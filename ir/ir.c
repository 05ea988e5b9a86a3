/* ir/ir.c - the kernel IR's tables: the built-in function table, the
 * OpenCL spelling of IR types and the names of the atomic functions.  What
 * the builders, the fusion pass and the emitters look up alike. */
#include "ir.h"
#include "visit.h"

const fgk_builtin_info fgk_builtins[FGK_FN_COUNT_] = {
#define FGK__BUILTIN_ROW(name, arity, rule, ctmpl, clname, text) \
  {#name, arity, FGK_RULE_##rule, ctmpl, clname, text},
  FGK_BUILTINS(FGK__BUILTIN_ROW)
#undef FGK__BUILTIN_ROW
};

const char fgk_c_prelude[] =
  "#include <math.h>\n"
  "#include <stdint.h>\n"
  "double exp10(double);   /* GNU extensions math.h hides in C11 */\n"
  "float exp10f(float);\n"
  "#include <string.h>\n"
  "_Static_assert(sizeof(long) == 8, \"LP64 expected\");\n"
  "typedef signed char schar;\n"
  "typedef unsigned char uchar;\n"
  "typedef unsigned short ushort;\n"
  "typedef unsigned int uint;\n"
  "typedef unsigned long ulong;\n"
  "#define FGK_VEC(T, N) typedef T T##N __attribute__((ext_vector_type(N)));\n"
  "#define FGK_VECS(T) FGK_VEC(T, 2) FGK_VEC(T, 3) FGK_VEC(T, 4)\n"
  "FGK_VECS(uchar) FGK_VECS(ushort) FGK_VECS(short) FGK_VECS(int)\n"
  "FGK_VECS(uint) FGK_VECS(long) FGK_VECS(ulong) FGK_VECS(float)\n"
  "FGK_VECS(double)\n"
  "typedef schar char2 __attribute__((ext_vector_type(2)));\n"
  "typedef schar char3 __attribute__((ext_vector_type(3)));\n"
  "typedef schar char4 __attribute__((ext_vector_type(4)));\n";

const char *fgk_type_name(fgk_type t) {
  static const char *const names[FG_ELEM_COUNT_][4] = {
    [FG_BOOL] = {"bool", "bool2", "bool3", "bool4"},
    [FG_I8] = {"char", "char2", "char3", "char4"},
    [FG_U8] = {"uchar", "uchar2", "uchar3", "uchar4"},
    [FG_I16] = {"short", "short2", "short3", "short4"},
    [FG_U16] = {"ushort", "ushort2", "ushort3", "ushort4"},
    [FG_I32] = {"int", "int2", "int3", "int4"},
    [FG_U32] = {"uint", "uint2", "uint3", "uint4"},
    [FG_I64] = {"long", "long2", "long3", "long4"},
    [FG_U64] = {"ulong", "ulong2", "ulong3", "ulong4"},
    [FG_F32] = {"float", "float2", "float3", "float4"},
    [FG_F64] = {"double", "double2", "double3", "double4"},
  };
  if ((unsigned)t.elem >= FG_ELEM_COUNT_ || t.width < 1 || t.width > 4)
    return "<invalid type>";
  return names[t.elem][t.width - 1];
}

static const char *const atomic_name[FGK_AT_COUNT_] = {
  "atomic_add", "atomic_sub", "atomic_xchg", "atomic_min", "atomic_max",
  "atomic_and", "atomic_or", "atomic_xor", "atomic_inc", "atomic_dec",
  "atomic_cmpxchg"};

const char *fgk_atomic_name(fgk_atomic a) { return atomic_name[a]; }

bool fgk_thread_plus(const fg_expr *x, fg_thread_const t, long *k) {
  if (x->kind == FGK_E_THREAD && x->u.thread == t) {
    *k = 0;
    return true;
  }
  if (x->kind != FGK_E_BINARY ||
      (x->u.bin.op != FGK_ADD && x->u.bin.op != FGK_SUB))
    return false;
  const fg_expr *a = x->u.bin.a, *b = x->u.bin.b;
  if (x->u.bin.op == FGK_ADD && a->kind == FGK_E_CONST) {
    const fg_expr *s = a;
    a = b;
    b = s;
  }
  if (a->kind != FGK_E_THREAD || a->u.thread != t ||
      b->kind != FGK_E_CONST || !fgk_is_int(b->type.elem) ||
      !fgk_is_signed(b->type.elem) || b->u.k.i < -65536 || b->u.k.i > 65536)
    return false;
  *k = x->u.bin.op == FGK_ADD ? (long)b->u.k.i : -(long)b->u.k.i;
  return true;
}

/* Whether x is a signed integer constant within +-65536; its value. */
static bool counter_const(const fg_expr *x, long *v) {
  if (x->kind != FGK_E_CONST || !fgk_is_int(x->type.elem) ||
      !fgk_is_signed(x->type.elem) || x->u.k.i < -65536 ||
      x->u.k.i > 65536)
    return false;
  *v = (long)x->u.k.i;
  return true;
}

/* The state of a walk looking for the statements that set a variable. */
typedef struct counter_scan {
  const fgk_var *v;
  const fgk_stmt *loop;   /* the one for loop over v */
  int loops;
  bool bad;               /* assigned or its address taken */
} counter_scan;

static void counter_stmt(const fgk_stmt *s, void *arg) {
  counter_scan *c = arg;
  if (s->kind == FGK_S_FOR && s->u.for_.var == c->v) {
    c->loop = s;
    c->loops++;
  } else if (s->kind == FGK_S_ASSIGN) {
    const fg_expr *l = s->u.assign.lhs;
    while (l->kind == FGK_E_SWIZZLE)
      l = l->u.swz.a;
    if ((l->kind == FGK_E_VAR && l->u.var == c->v) ||
        (l->kind == FGK_E_INDEX && l->u.index.var == c->v))
      c->bad = true;
  }
}

static void counter_expr(const fg_expr *x, void *arg) {
  counter_scan *c = arg;
  if (x->kind == FGK_E_ADDR && x->u.addr->kind == FGK_E_VAR &&
      x->u.addr->u.var == c->v)
    c->bad = true;
}

bool fgk_counter_range(const fgk_kernel *k, const fgk_var *v, long *lo,
                       long *hi) {
  if (!k || v->ndims || v->local || v->volatile_ || v->type.width != 1 ||
      v->type.elem != FG_I32)
    return false;
  counter_scan c = {.v = v};
  fgk_visit_block(&k->body, &(fgk_visitor){.expr = counter_expr,
                                          .stmt = counter_stmt, .arg = &c});
  if (c.bad || c.loops != 1)
    return false;
  const fg_expr *init = c.loop->u.for_.init, *cond = c.loop->u.for_.cond,
                *step = c.loop->u.for_.step;
  long a, b, one;
  if (!init || !cond || !step || !counter_const(init, &a) ||
      !counter_const(step, &one) || one != 1 || cond->kind != FGK_E_BINARY ||
      (cond->u.bin.op != FGK_LT && cond->u.bin.op != FGK_LE) ||
      cond->u.bin.a->kind != FGK_E_VAR || cond->u.bin.a->u.var != v ||
      !counter_const(cond->u.bin.b, &b))
    return false;
  /* before the loop v holds its declaration's 0; after it, the first
   * value past the bound (or a, when the loop never ran) */
  long end = cond->u.bin.op == FGK_LT ? b : b + 1;
  *lo = a < 0 ? a : 0;
  *hi = end > a ? end : a;
  *hi = *hi > 0 ? *hi : 0;
  return true;
}

/* ---- value ranges of integer expressions -------------------------------- */

/* What a walk learns of the statements that set a variable. */
typedef struct def_scan {
  const fgk_var *v;
  const fg_expr *rhs;     /* its one assignment's value */
  int defs;
  bool bad;               /* a loop's variable, an element, or addressed */
} def_scan;

static void def_stmt(const fgk_stmt *s, void *arg) {
  def_scan *d = arg;
  if (s->kind == FGK_S_FOR && s->u.for_.var == d->v) {
    d->bad = true;
  } else if (s->kind == FGK_S_ASSIGN) {
    const fg_expr *l = s->u.assign.lhs;
    if (l->kind == FGK_E_VAR && l->u.var == d->v) {
      d->rhs = s->u.assign.rhs;
      d->defs++;
    }
    while (l->kind == FGK_E_SWIZZLE)
      l = l->u.swz.a;
    if ((l->kind == FGK_E_VAR && l->u.var == d->v && l != s->u.assign.lhs) ||
        (l->kind == FGK_E_INDEX && l->u.index.var == d->v))
      d->bad = true;
  }
}

static void def_expr(const fg_expr *x, void *arg) {
  def_scan *d = arg;
  if (x->kind == FGK_E_ADDR && x->u.addr->kind == FGK_E_VAR &&
      x->u.addr->u.var == d->v)
    d->bad = true;
}

/* The range of an integer type's values, where it is narrower than a
 * long's. */
static bool type_range(fg_elem e, long *lo, long *hi) {
  switch (e) {
  case FG_BOOL: *lo = 0; *hi = 1; return true;
  case FG_I8: *lo = INT8_MIN; *hi = INT8_MAX; return true;
  case FG_U8: *lo = 0; *hi = UINT8_MAX; return true;
  case FG_I16: *lo = INT16_MIN; *hi = INT16_MAX; return true;
  case FG_U16: *lo = 0; *hi = UINT16_MAX; return true;
  case FG_I32: *lo = INT32_MIN; *hi = INT32_MAX; return true;
  case FG_U32: *lo = 0; *hi = UINT32_MAX; return true;
  default: return false;
  }
}

static bool range_at(const fgk_kernel *k, const fg_expr *x, long *lo,
                     long *hi, int depth);

/* Ranges of both arguments of a two-argument form. */
static bool range2(const fgk_kernel *k, const fg_expr *a, const fg_expr *b,
                   long r[4], int depth) {
  return range_at(k, a, &r[0], &r[1], depth) &&
         range_at(k, b, &r[2], &r[3], depth);
}

static bool range_at(const fgk_kernel *k, const fg_expr *x, long *lo,
                     long *hi, int depth) {
  if (depth > 8 || x->type.width != 1 || !fgk_is_int(x->type.elem))
    return false;
  long r[6];
  switch (x->kind) {
  case FGK_E_CONST:
    if (fgk_is_signed(x->type.elem) ||
        x->u.k.u <= (uint64_t)INT64_MAX) {
      *lo = *hi = (long)x->u.k.i;
      return true;
    }
    break;
  case FGK_E_CONVERT:
    /* a value that the new type holds is unchanged */
    if (range_at(k, x->u.conv.a, &r[0], &r[1], depth + 1) &&
        (!type_range(x->type.elem, &r[2], &r[3]) ||
         (r[0] >= r[2] && r[1] <= r[3]))) {
      *lo = r[0];
      *hi = r[1];
      return true;
    }
    break;
  case FGK_E_CALL:
    if (x->u.call.fn == FGK_FN_clamp &&
        range_at(k, x->u.call.arg[1], &r[2], &r[3], depth + 1) &&
        range_at(k, x->u.call.arg[2], &r[4], &r[5], depth + 1) &&
        r[2] <= r[5]) {
      /* min(max(a, l), h): within [least l, greatest h] */
      *lo = r[2];
      *hi = r[5];
      if (range_at(k, x->u.call.arg[0], &r[0], &r[1], depth + 1)) {
        *lo = r[0] > *lo ? (r[0] < r[5] ? r[0] : r[5]) : *lo;
        *hi = r[1] < *hi ? (r[1] > r[2] ? r[1] : r[2]) : *hi;
      }
      return true;
    }
    if ((x->u.call.fn == FGK_FN_min || x->u.call.fn == FGK_FN_max) &&
        range2(k, x->u.call.arg[0], x->u.call.arg[1], r, depth + 1)) {
      bool mn = x->u.call.fn == FGK_FN_min;
      *lo = mn ? (r[0] < r[2] ? r[0] : r[2]) : (r[0] > r[2] ? r[0] : r[2]);
      *hi = mn ? (r[1] < r[3] ? r[1] : r[3]) : (r[1] > r[3] ? r[1] : r[3]);
      return true;
    }
    break;
  case FGK_E_BINARY:
    /* a mask by a constant of at least 0 */
    if (x->u.bin.op == FGK_BAND &&
        ((x->u.bin.b->kind == FGK_E_CONST &&
          range_at(k, x->u.bin.b, &r[0], &r[1], depth + 1)) ||
         (x->u.bin.a->kind == FGK_E_CONST &&
          range_at(k, x->u.bin.a, &r[0], &r[1], depth + 1))) &&
        r[0] >= 0) {
      *lo = 0;
      *hi = r[0];
      return true;
    }
    break;
  case FGK_E_VAR: {
    /* set once (its declaration's 0 before that) */
    const fgk_var *v = x->u.var;
    if (!k || v->ndims || v->local || v->volatile_)
      break;
    def_scan d = {.v = v};
    fgk_visit_block(&k->body, &(fgk_visitor){.expr = def_expr,
                                            .stmt = def_stmt, .arg = &d});
    if (d.bad || d.defs != 1 ||
        !range_at(k, d.rhs, &r[0], &r[1], depth + 1))
      break;
    *lo = r[0] < 0 ? r[0] : 0;
    *hi = r[1] > 0 ? r[1] : 0;
    return true;
  }
  default:
    break;
  }
  /* else what its type holds */
  return type_range(x->type.elem, lo, hi);
}

bool fgk_int_range(const fgk_kernel *k, const fg_expr *x, long *lo,
                   long *hi) {
  return range_at(k, x, lo, hi, 0);
}
