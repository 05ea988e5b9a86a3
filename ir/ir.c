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
