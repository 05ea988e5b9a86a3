/* dsl/emit_c.c - C source emitter for the CPU backend.  The dialect is C11
 * with clang's ext_vector_type vectors (OpenCL-style float4, swizzles,
 * scalar broadcast, vector comparisons), so the IR's vector semantics carry
 * over unchanged.  Built-in functions, safe integer division, saturating
 * conversions and splats become small static inline helpers, emitted only
 * when the kernel uses them.  The thread loop runs along columns innermost
 * with restrict pointers so clang can vectorize it. */
#include "emit.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Emission state for one kernel. */
typedef struct E {
  const fgk_kernel *k;
  fgu_buf out;         /* the kernel function */
  fgu_buf help;        /* helpers, in order of first use */
  fgu_buf names;       /* "\n"-separated names of emitted helpers */
  int indent;
  int foreach_count;   /* > 0 inside _forEachTensorElement */
} E;

/* ---- types -------------------------------------------------------------- */

/* C spelling of a type: OpenCL names, except that the scalar i8 is
 * "schar" (plain char's signedness varies) and bool is _Bool. */
static const char *cty(fgk_type t) {
  if (t.width == 1 && t.elem == FG_I8)
    return "schar";
  if (t.width == 1 && t.elem == FG_BOOL)
    return "_Bool";
  return fgk_type_name(t);
}

static const char *cscalar(fg_elem e) { return cty(fgk_t(e, 1)); }

static const char *prelude =
  "#include <math.h>\n"
  "#include <stdint.h>\n"
  "#include <string.h>\n"
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
  "typedef schar char4 __attribute__((ext_vector_type(4)));\n"
  "#define FGK_PI 3.14159265358979323846\n"
  "#define FGK_1_PI 0.31830988618379067154\n"
  "#define FGK_180_PI 57.295779513082320876\n"
  "#define FGK_PI_180 0.017453292519943295769\n"
  "#define fgk_max(a, b) ((a) < (b) ? (b) : (a))\n"
  "#define fgk_min(a, b) ((b) < (a) ? (b) : (a))\n"
  "static inline int64_t fgk_ci(int64_t i, int64_t n) {\n"
  "  return i < 0 ? 0 : i >= n ? n - 1 : i;\n"
  "}\n"
  "/* Flat index of (l, r, c) clamped into an L x R x C field. */\n"
  "static inline int64_t fgk_at(int64_t L, int64_t R, int64_t C,\n"
  "                             int64_t l, int64_t r, int64_t c) {\n"
  "  return (fgk_ci(l, L) * R + fgk_ci(r, R)) * C + fgk_ci(c, C);\n"
  "}\n"
  "/* Flat index of (l, r, c) in an L x R x C field, -1 outside it. */\n"
  "static inline int64_t fgk_wat(int64_t L, int64_t R, int64_t C,\n"
  "                              int64_t l, int64_t r, int64_t c) {\n"
  "  if (l < 0 || l >= L || r < 0 || r >= R || c < 0 || c >= C)\n"
  "    return -1;\n"
  "  return (l * R + r) * C + c;\n"
  "}\n"
  "static inline float fgk_signf(float x) {\n"
  "  return x > 0 ? 1.0f : x < 0 ? -1.0f : x == 0 ? copysignf(0.0f, x) : x;\n"
  "}\n"
  "static inline double fgk_sign(double x) {\n"
  "  return x > 0 ? 1.0 : x < 0 ? -1.0 : x == 0 ? copysign(0.0, x) : x;\n"
  "}\n"
  "static inline float fgk_maxmagf(float x, float y) {\n"
  "  float ax = fabsf(x), ay = fabsf(y);\n"
  "  return ax > ay ? x : ay > ax ? y : fmaxf(x, y);\n"
  "}\n"
  "static inline double fgk_maxmag(double x, double y) {\n"
  "  double ax = fabs(x), ay = fabs(y);\n"
  "  return ax > ay ? x : ay > ax ? y : fmax(x, y);\n"
  "}\n"
  "static inline float fgk_minmagf(float x, float y) {\n"
  "  float ax = fabsf(x), ay = fabsf(y);\n"
  "  return ax < ay ? x : ay < ax ? y : fminf(x, y);\n"
  "}\n"
  "static inline double fgk_minmag(double x, double y) {\n"
  "  double ax = fabs(x), ay = fabs(y);\n"
  "  return ax < ay ? x : ay < ax ? y : fmin(x, y);\n"
  "}\n"
  "static inline float fgk_rootnf(float x, int n) {\n"
  "  if (n == 0) return NAN;\n"
  "  if (x < 0 && (n & 1)) return -powf(-x, 1.0f / (float)n);\n"
  "  return powf(x, 1.0f / (float)n);\n"
  "}\n"
  "static inline double fgk_rootn(double x, int n) {\n"
  "  if (n == 0) return NAN;\n"
  "  if (x < 0 && (n & 1)) return -pow(-x, 1.0 / (double)n);\n"
  "  return pow(x, 1.0 / (double)n);\n"
  "}\n";

/* ---- output helpers ----------------------------------------------------- */

static void put(E *e, const char *s) { fgu_buf_puts(&e->out, s); }

static void putf(E *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void putf(E *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fgu_buf_vprintf(&e->out, fmt, ap);
  va_end(ap);
}

static void line(E *e) {
  for (int i = 0; i < e->indent; i++)
    put(e, "  ");
}

/* True (and records the name) the first time a helper name is seen. */
static bool first_use(E *e, const char *name) {
  size_t n = strlen(name);
  const char *s = e->names.s;
  while (s && *s) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    if (len == n && !memcmp(s, name, n))
      return false;
    s = nl ? nl + 1 : s + len;
  }
  fgu_buf_printf(&e->names, "%s\n", name);
  return true;
}

void fgk_identifier(const char *name, char *out, size_t size) {
  size_t j = 0;
  if (size == 0)
    return;
  for (size_t i = 0; name && name[i] && j + 1 < size; i++) {
    unsigned char c = (unsigned char)name[i];
    out[j++] = (char)(isalnum(c) ? c : '_');
  }
  out[j] = 0;
  if (j == 0 || isdigit((unsigned char)out[0]))
    snprintf(out, size, "k_%s", j ? out : "");
}

/* ---- helpers emitted on demand ------------------------------------------ */

/* Name of a helper applying scalar template tmpl component-wise, e.g.
 * fgk_sqrt_float4; emits its definition (and the scalar one) once. */
static const char *builtin_helper(E *e, fgk_builtin fn, fgk_type t,
                                  fgk_type a1, char *name, size_t size) {
  const fgk_builtin_info *b = &fgk_builtins[fn];
  fgk_type r = t;
  if (b->rule == FGK_RULE_FLTRED)
    r = fgk_t(t.elem, 1);
  else if (b->rule == FGK_RULE_FLTI)
    r = fgk_t(FG_I32, t.width);
  snprintf(name, size, "fgk_%s_%s", b->name, fgk_type_name(t));
  if (!first_use(e, name))
    return name;
  fgu_buf *h = &e->help;
  const char *ty = cty(t), *rty = cty(r);
  const char *sfx = t.elem == FG_F32 ? "f" : "";
  fgu_buf_printf(h, "static inline %s %s(%s a0", rty, name, ty);
  for (int i = 1; i < b->arity; i++)
    fgu_buf_printf(h, ", %s a%d", i == 1 && b->rule == FGK_RULE_FLTINT
                                      ? cty(a1) : ty, i);
  fgu_buf_puts(h, ") {\n");
  if (b->rule == FGK_RULE_FLTRED) {
    const char *ety = cscalar(t.elem);
    const char *sq = t.elem == FG_F32 ? "sqrtf" : "sqrt";
    bool two = fn == FGK_FN_dot || fn == FGK_FN_distance;
    fgu_buf_printf(h, "  %s s = 0;\n", ety);
    for (int c = 0; c < t.width; c++) {
      const char *ix = t.width == 1 ? "" : (const char *[]){"[0]", "[1]",
                                                            "[2]", "[3]"}[c];
      if (fn == FGK_FN_dot)
        fgu_buf_printf(h, "  s += a0%s * a1%s;\n", ix, ix);
      else if (two)
        fgu_buf_printf(h, "  s += (a0%s - a1%s) * (a0%s - a1%s);\n", ix, ix,
                       ix, ix);
      else
        fgu_buf_printf(h, "  s += a0%s * a0%s;\n", ix, ix);
    }
    if (fn == FGK_FN_dot)
      fgu_buf_puts(h, "  return s;\n}\n");
    else
      fgu_buf_printf(h, "  return %s(s);\n}\n", sq);
    return name;
  }
  if (t.width > 1) {
    fgu_buf_printf(h, "  %s r;\n  for (int i = 0; i < %d; i++)\n    r[i] = ",
                   rty, t.width);
  } else {
    fgu_buf_puts(h, "  return ");
  }
  const char *elem_ix = t.width > 1 ? "[i]" : "";
  for (const char *p = b->c_template; *p; p++) {
    if (*p == '%' && p[1] >= '0' && p[1] <= '2') {
      int a = p[1] - '0';
      bool arg_vec = !(b->rule == FGK_RULE_FLTINT && a == 1 && a1.width == 1);
      fgu_buf_printf(h, "a%d%s", a, arg_vec ? elem_ix : "");
      p++;
    } else if (*p == '%' && p[1] == 'f') {
      fgu_buf_puts(h, sfx);
      p++;
    } else {
      fgu_buf_putc(h, *p);
    }
  }
  fgu_buf_puts(h, t.width > 1 ? ";\n  return r;\n}\n" : ";\n}\n");
  return name;
}

/* Helper for integer division or modulo that never traps: x / 0 and
 * x % 0 are 0, and MIN / -1 wraps. */
static const char *divmod_helper(E *e, bool mod, fgk_type t, char *name,
                                 size_t size) {
  snprintf(name, size, "fgk_%s_%s", mod ? "mod" : "div", fgk_type_name(t));
  if (!first_use(e, name))
    return name;
  const char *ty = cty(t), *ety = cscalar(t.elem);
  fgu_buf *h = &e->help;
  fgu_buf_printf(h, "static inline %s %s(%s a, %s b) {\n", ty, name, ty, ty);
  if (t.width > 1)
    fgu_buf_printf(h, "  %s r;\n  for (int i = 0; i < %d; i++) {\n"
                   "    %s x = a[i], y = b[i];\n", ty, t.width, ety);
  else
    fgu_buf_printf(h, "  %s r;\n  {\n    %s x = a, y = b;\n", ty, ety);
  const char *dst = t.width > 1 ? "r[i]" : "r";
  if (fgk_is_signed(t.elem))
    fgu_buf_printf(h, "    %s = y == 0 ? 0 : y == -1 ? (%s)(%s) : x %c y;\n",
                   dst, ety, mod ? "0" : "0u - (unsigned long)x",
                   mod ? '%' : '/');
  else
    fgu_buf_printf(h, "    %s = y == 0 ? 0 : x %c y;\n", dst,
                   mod ? '%' : '/');
  fgu_buf_puts(h, "  }\n  return r;\n}\n");
  return name;
}

/* Helper replicating a scalar into a vector of type t. */
static const char *splat_helper(E *e, fgk_type t, char *name, size_t size) {
  snprintf(name, size, "fgk_splat_%s", fgk_type_name(t));
  if (first_use(e, name)) {
    const char *ty = cty(t), *ety = cscalar(t.elem);
    fgu_buf_printf(&e->help, "static inline %s %s(%s s) {\n  %s r = {", ty,
                   name, ety, ty);
    for (int i = 0; i < t.width; i++)
      fgu_buf_printf(&e->help, "%ss", i ? ", " : "");
    fgu_buf_puts(&e->help, "};\n  return r;\n}\n");
  }
  return name;
}

/* Loads and stores of small tensors: memcpy makes them alignment-free. */
static const char *ldst_helper(E *e, bool store, fgk_type t, char *name,
                               size_t size) {
  snprintf(name, size, "fgk_%s_%s", store ? "st" : "ld", fgk_type_name(t));
  if (first_use(e, name)) {
    const char *ty = cty(t), *ety = cscalar(t.elem);
    if (store)
      fgu_buf_printf(&e->help, "static inline void %s(%s *p, %s v) {\n"
                     "  memcpy(p, &v, %d * sizeof(%s));\n}\n", name, ety, ty,
                     t.width, ety);
    else
      fgu_buf_printf(&e->help, "static inline %s %s(const %s *p) {\n"
                     "  %s v;\n  memcpy(&v, p, %d * sizeof(%s));\n"
                     "  return v;\n}\n", ty, name, ety, ty, t.width, ety);
  }
  return name;
}

/* Saturating, round-to-nearest-even conversion from f to t. */
static const char *sat_helper(E *e, fgk_type f, fgk_type t, char *name,
                              size_t size) {
  snprintf(name, size, "fgk_sat_%s_%s", fgk_type_name(t), fgk_type_name(f));
  if (!first_use(e, name))
    return name;
  static const char *const lo[FG_ELEM_COUNT_] = {
    [FG_I8] = "-128", [FG_U8] = "0", [FG_I16] = "-32768", [FG_U16] = "0",
    [FG_I32] = "-2147483648.0", [FG_U32] = "0", [FG_I64] = "-9223372036854775808.0",
    [FG_U64] = "0"};
  static const char *const hi[FG_ELEM_COUNT_] = {
    [FG_I8] = "127", [FG_U8] = "255", [FG_I16] = "32767", [FG_U16] = "65535",
    [FG_I32] = "2147483647", [FG_U32] = "4294967295",
    [FG_I64] = "9223372036854775807", [FG_U64] = "18446744073709551615"};
  fgu_buf *h = &e->help;
  const char *ty = cty(t), *fty = cty(f), *ety = cscalar(t.elem);
  int w = t.width;
  fgu_buf_printf(h, "static inline %s %s(%s a) {\n  %s r;\n", ty, name, fty,
                 ty);
  fgu_buf_printf(h, "  for (int i = 0; i < %d; i++) {\n", w);
  const char *src = f.width > 1 ? "a[i]" : "a";
  const char *dst = w > 1 ? "r[i]" : "r";
  if (fgk_is_float(f.elem)) {
    bool big = fg_elem_size(t.elem) >= 4;
    fgu_buf_printf(h, "    double x = rint((double)%s);\n", src);
    fgu_buf_printf(h, "    %s = x != x ? 0 : x <= %s ? (%s)%s : x >= %s%s ? "
                   "(%s)%s : (%s)x;\n", dst, lo[t.elem], ety, lo[t.elem],
                   hi[t.elem], big ? ".0" : "", ety, hi[t.elem], ety);
  } else {
    bool fs = fgk_is_signed(f.elem), ts = fgk_is_signed(t.elem);
    if (fs && !ts)
      fgu_buf_printf(h, "    %s = %s < 0 ? 0 : (unsigned long)%s > %sul ? "
                     "(%s)%s : (%s)%s;\n", dst, src, src, hi[t.elem], ety,
                     hi[t.elem], ety, src);
    else if (!fs)
      fgu_buf_printf(h, "    %s = (unsigned long)%s > %sul ? (%s)%s : "
                     "(%s)%s;\n", dst, src, hi[t.elem], ety, hi[t.elem], ety,
                     src);
    else
      fgu_buf_printf(h, "    %s = (long)%s < %sl ? (%s)(%s) : (long)%s > "
                     "%sl ? (%s)%s : (%s)%s;\n", dst, src,
                     t.elem == FG_I64 ? "(-9223372036854775807l-1)" : lo[t.elem],
                     ety, t.elem == FG_I64 ? "(-9223372036854775807l-1)" : lo[t.elem],
                     src, hi[t.elem], ety, hi[t.elem], ety, src);
  }
  if (w == 1)
    fgu_buf_puts(h, "    break;\n");
  fgu_buf_puts(h, "  }\n  return r;\n}\n");
  return name;
}

/* Reinterpretation of the bits of f as t. */
static const char *as_helper(E *e, fgk_type f, fgk_type t, char *name,
                             size_t size) {
  snprintf(name, size, "fgk_as_%s_%s", fgk_type_name(t), fgk_type_name(f));
  if (first_use(e, name))
    fgu_buf_printf(&e->help, "static inline %s %s(%s a) {\n  %s r;\n"
                   "  memcpy(&r, &a, sizeof r);\n  return r;\n}\n", cty(t),
                   name, cty(f), cty(t));
  return name;
}

/* ---- expressions -------------------------------------------------------- */

static void ex(E *e, const fg_expr *x);

/* Emits x converted to type t (a cast, a splat or a vector conversion). */
static void ex_as_type(E *e, const fg_expr *x, fgk_type t) {
  char name[96];
  if (fgk_type_eq(x->type, t)) {
    ex(e, x);
  } else if (t.width == 1) {
    putf(e, "((%s)(", cty(t));
    ex(e, x);
    put(e, "))");
  } else if (x->type.width == 1) {
    putf(e, "%s((%s)(", splat_helper(e, t, name, sizeof name),
         cscalar(t.elem));
    ex(e, x);
    put(e, "))");
  } else {
    put(e, "__builtin_convertvector(");
    ex(e, x);
    putf(e, ", %s)", cty(t));
  }
}

static void ex_literal(E *e, const fg_expr *x) {
  fg_elem el = x->type.elem;
  switch (el) {
  case FG_F32:
  case FG_F64: {
    double v = x->u.k.f;
    const char *sfx = el == FG_F32 ? "f" : "";
    if (isnan(v)) {
      putf(e, "((%s)NAN)", cscalar(el));
    } else if (isinf(v)) {
      putf(e, "((%s)%sINFINITY)", cscalar(el), v < 0 ? "-" : "");
    } else {
      char num[64];
      snprintf(num, sizeof num, el == FG_F32 ? "%.9g" : "%.17g", v);
      bool has_point = strpbrk(num, ".e") != NULL;
      putf(e, "(%s%s%s)", num, has_point ? "" : ".0", sfx);
    }
    break;
  }
  case FG_I64:
    if (x->u.k.i == INT64_MIN)
      put(e, "(-9223372036854775807L - 1)");
    else
      putf(e, "(%lldL)", (long long)x->u.k.i);
    break;
  case FG_U64:
    putf(e, "(%lluUL)", (unsigned long long)x->u.k.u);
    break;
  case FG_U32:
    putf(e, "(%lluu)", (unsigned long long)x->u.k.u);
    break;
  case FG_I32:
    if (x->u.k.i == INT32_MIN)
      put(e, "(-2147483647 - 1)");
    else
      putf(e, "(%lld)", (long long)x->u.k.i);
    break;
  default:
    putf(e, "((%s)%lld)", cscalar(el), (long long)x->u.k.i);
  }
}

static const char *const thread_name[FG_THREAD_CONST_COUNT_] = {
  "_layer", "_row", "_column", "_layers", "_rows", "_columns",
  "_tensorElement", "_tensorElements"};

static const char *const binop_c[FGK_BINOP_COUNT_] = {
  "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||",
  "&", "|", "^", "<<", ">>"};

/* Emits "in<port>" or "out<port>" index arithmetic for an access. */
static void ex_index(E *e, const char *buf, const fgk_access *a, int n,
                     bool big, bool zero_d) {
  if (a->ncoords > 0) {
    putf(e, "fgk_at(%s_L, %s_R, %s_C, ", buf, buf, buf);
    int nc = a->ncoords;
    for (int i = 0; i < 3; i++) {
      int ci = i - (3 - nc);
      if (i)
        put(e, ", ");
      if (ci < 0) {
        put(e, "0");
      } else {
        put(e, "(int64_t)(");
        ex(e, a->coord[ci]);
        put(e, ")");
      }
    }
    put(e, ")");
  } else {
    put(e, zero_d ? "0" : "fgk_i");
  }
  if (a->element) {
    if (big) {
      put(e, " + fgk_ci(");
    } else {
      putf(e, " * %d + fgk_ci(", n);
    }
    if (a->elem)
      ex(e, a->elem);
    else
      put(e, "_tensorElement");
    putf(e, ", %d)", n);
    if (big)
      putf(e, " * %s_P", buf);
  } else if (n > 1) {
    putf(e, " * %d", n);
  }
}

static void ex(E *e, const fg_expr *x) {
  char name[96];
  const fgk_kernel *k = e->k;
  switch (x->kind) {
  case FGK_E_CONST:
    ex_literal(e, x);
    break;
  case FGK_E_VAR:
    putf(e, "v%d", x->u.var->id);
    break;
  case FGK_E_THREAD:
    if (x->u.thread == FG_TENSOR_ELEMENTS)
      putf(e, "%d", e->foreach_count > 0
                        ? e->foreach_count
                        : fg_type_tensor_elements(k->out_type[0]));
    else
      put(e, thread_name[x->u.thread]);
    break;
  case FGK_E_UNARY:
    put(e, "(");
    put(e, x->u.bin.op == FGK_NEG ? "-" : x->u.bin.op == FGK_LNOT ? "!" : "~");
    ex_as_type(e, x->u.bin.a, x->u.bin.op == FGK_LNOT ? x->u.bin.a->type
                                                      : x->type);
    put(e, ")");
    break;
  case FGK_E_BINARY: {
    int opc = x->u.bin.op;
    const fg_expr *a = x->u.bin.a, *b = x->u.bin.b;
    /* the type both operands take before the operation */
    fgk_type ot = x->type;
    if (opc >= FGK_EQ && opc <= FGK_GE) {
      ot = a->type.width > 1 ? a->type : b->type;
      if (a->type.width == 1 && b->type.width == 1) {
        fgk_type pa = a->type, pb = b->type;
        if (pa.elem < FG_I32) pa.elem = FG_I32;
        if (pb.elem < FG_I32) pb.elem = FG_I32;
        ot = pa.elem >= pb.elem ? pa : pb;
      }
    }
    if (opc == FGK_LAND || opc == FGK_LOR) {
      put(e, "(");
      ex(e, a);
      putf(e, " %s ", binop_c[opc]);
      ex(e, b);
      put(e, ")");
    } else if (opc == FGK_SHL || opc == FGK_SHR) {
      int bits = (int)fg_elem_size(x->type.elem) * 8;
      put(e, "(");
      ex_as_type(e, a, x->type);
      putf(e, " %s (", binop_c[opc]);
      ex_as_type(e, b, b->type.width > 1 ? x->type : fgk_t(x->type.elem, 1));
      putf(e, " & %d))", bits - 1);
    } else if ((opc == FGK_DIV || opc == FGK_MOD) && fgk_is_int(ot.elem)) {
      putf(e, "%s(", divmod_helper(e, opc == FGK_MOD, ot, name, sizeof name));
      ex_as_type(e, a, ot);
      put(e, ", ");
      ex_as_type(e, b, ot);
      put(e, ")");
    } else {
      /* scalars of a vector operation convert to its element type */
      fgk_type ta = a->type.width == 1 && ot.width > 1
                        ? fgk_t(ot.elem, 1) : ot;
      fgk_type tb = b->type.width == 1 && ot.width > 1
                        ? fgk_t(ot.elem, 1) : ot;
      put(e, "(");
      ex_as_type(e, a, ta);
      putf(e, " %s ", binop_c[opc]);
      ex_as_type(e, b, tb);
      put(e, ")");
    }
    break;
  }
  case FGK_E_CALL: {
    const fgk_builtin_info *b = &fgk_builtins[x->u.call.fn];
    fgk_type t = x->u.call.arg[0]->type;
    fgk_type a1 = x->u.call.n > 1 ? x->u.call.arg[1]->type : t;
    if (b->rule == FGK_RULE_FLTINT)
      a1 = fgk_t(FG_I32, a1.width);
    putf(e, "%s(", builtin_helper(e, x->u.call.fn, t, a1, name, sizeof name));
    for (int i = 0; i < x->u.call.n; i++) {
      if (i)
        put(e, ", ");
      ex_as_type(e, x->u.call.arg[i],
                 i == 1 && b->rule == FGK_RULE_FLTINT ? a1 : t);
    }
    put(e, ")");
    break;
  }
  case FGK_E_SWIZZLE:
    put(e, "(");
    ex(e, x->u.swz.a);
    put(e, ").");
    for (int i = 0; i < x->u.swz.n; i++)
      putf(e, "%c", "xyzw"[x->u.swz.comp[i]]);
    break;
  case FGK_E_VECTOR: {
    fgk_type t = x->type;
    if (x->u.vec.n == 1 && x->u.vec.arg[0]->type.width == 1) {
      ex_as_type(e, x->u.vec.arg[0], t);
      break;
    }
    putf(e, "((%s){", cty(t));
    int comp = 0;
    for (int i = 0; i < x->u.vec.n; i++) {
      const fg_expr *a = x->u.vec.arg[i];
      for (int c = 0; c < a->type.width; c++, comp++) {
        if (comp)
          put(e, ", ");
        if (a->type.width == 1) {
          ex_as_type(e, a, fgk_t(t.elem, 1));
        } else {
          put(e, "(");
          ex(e, a);
          putf(e, ").%c", "xyzw"[c]);
        }
      }
    }
    put(e, "})");
    break;
  }
  case FGK_E_CONVERT: {
    const fg_expr *a = x->u.conv.a;
    if (x->u.conv.sat && fgk_is_int(x->type.elem)) {
      fgk_type src = a->type;
      if (src.width == 1 && x->type.width > 1) {
        /* replicate first, then convert */
        putf(e, "%s(", sat_helper(e, fgk_t(src.elem, x->type.width), x->type,
                                  name, sizeof name));
        ex_as_type(e, a, fgk_t(src.elem, x->type.width));
        put(e, ")");
      } else {
        putf(e, "%s(", sat_helper(e, src, x->type, name, sizeof name));
        ex(e, a);
        put(e, ")");
      }
    } else if (x->type.elem == FG_BOOL) {
      put(e, "((");
      ex(e, a);
      put(e, ") != 0)");
    } else if (a->type.width == 1 && x->type.width > 1) {
      ex_as_type(e, a, x->type);
    } else {
      ex_as_type(e, a, x->type);
    }
    break;
  }
  case FGK_E_AS:
    putf(e, "%s(", as_helper(e, x->u.conv.a->type, x->type, name,
                             sizeof name));
    ex(e, x->u.conv.a);
    put(e, ")");
    break;
  case FGK_E_READ: {
    const fgk_access *a = &x->u.read;
    fg_type ft = k->in_type[a->port];
    int n = fg_type_tensor_elements(ft);
    char buf[16];
    snprintf(buf, sizeof buf, "in%d", a->port);
    if (!a->element && n > 1) {
      putf(e, "%s(%s + (", ldst_helper(e, false, x->type, name, sizeof name),
           buf);
      ex_index(e, buf, a, n, false, ft.field.ndim == 0);
      put(e, "))");
    } else {
      putf(e, "%s[", buf);
      ex_index(e, buf, a, n, n > FG_MAX_SMALL_TENSOR,
               ft.field.ndim == 0);
      put(e, "]");
    }
    break;
  }
  case FGK_E_INDEX: {
    const fgk_var *v = x->u.index.var;
    putf(e, "v%d", v->id);
    for (int i = 0; i < x->u.index.n; i++) {
      put(e, "[fgk_ci(");
      ex(e, x->u.index.idx[i]);
      putf(e, ", %d)]", v->dims[i]);
    }
    break;
  }
  }
}

/* ---- statements --------------------------------------------------------- */

static void block(E *e, const fgk_block *b);

static void zero_value(E *e, fgk_type t) {
  if (t.width == 1)
    putf(e, "(%s)0", cty(t));
  else
    putf(e, "(%s){0}", cty(t));
}

static void stmt(E *e, const fgk_stmt *s) {
  char name[96];
  const fgk_kernel *k = e->k;
  switch (s->kind) {
  case FGK_S_DECL: {
    const fgk_var *v = s->u.decl;
    line(e);
    if (v->ndims)
      putf(e, "memset(v%d, 0, sizeof v%d);\n", v->id, v->id);
    else {
      putf(e, "v%d = ", v->id);
      zero_value(e, v->type);
      put(e, ";\n");
    }
    break;
  }
  case FGK_S_ASSIGN:
    line(e);
    ex(e, s->u.assign.lhs);
    put(e, " = ");
    ex_as_type(e, s->u.assign.rhs, s->u.assign.lhs->type);
    put(e, ";\n");
    break;
  case FGK_S_IF:
    line(e);
    put(e, "if (");
    ex(e, s->u.if_.cond);
    put(e, ") {\n");
    e->indent++;
    block(e, &s->u.if_.then);
    e->indent--;
    if (s->u.if_.els.first) {
      line(e);
      put(e, "} else {\n");
      e->indent++;
      block(e, &s->u.if_.els);
      e->indent--;
    }
    line(e);
    put(e, "}\n");
    break;
  case FGK_S_FOR: {
    const fgk_var *v = s->u.for_.var;
    line(e);
    putf(e, "for (v%d = ", v->id);
    ex_as_type(e, s->u.for_.init, v->type);
    put(e, "; ");
    ex(e, s->u.for_.cond);
    putf(e, "; v%d += ", v->id);
    ex_as_type(e, s->u.for_.step, v->type);
    put(e, ") {\n");
    e->indent++;
    block(e, &s->u.for_.body);
    e->indent--;
    line(e);
    put(e, "}\n");
    break;
  }
  case FGK_S_WHILE:
    line(e);
    put(e, "while (");
    ex(e, s->u.while_.cond);
    put(e, ") {\n");
    e->indent++;
    block(e, &s->u.while_.body);
    e->indent--;
    line(e);
    put(e, "}\n");
    break;
  case FGK_S_FOREACH:
    line(e);
    putf(e, "for (int _tensorElement = 0; _tensorElement < %d; "
         "++_tensorElement) {\n", s->u.foreach.count);
    e->indent++;
    e->foreach_count = s->u.foreach.count;
    block(e, &s->u.foreach.body);
    e->foreach_count = 0;
    e->indent--;
    line(e);
    put(e, "}\n");
    break;
  case FGK_S_WRITE: {
    const fgk_access *a = &s->u.write.at;
    fg_type ot = k->out_type[a->port];
    int n = fg_type_tensor_elements(ot);
    bool big = n > FG_MAX_SMALL_TENSOR;
    fgk_type vt = fgk_t(ot.elem, a->element ? 1 : n);
    char buf[16];
    snprintf(buf, sizeof buf, "out%d", a->port);
    line(e);
    put(e, "{\n");
    e->indent++;
    line(e);
    put(e, "const int64_t fgk_w = ");
    if (a->ncoords > 0) {
      putf(e, "fgk_wat(%s_L, %s_R, %s_C, ", buf, buf, buf);
      for (int i = 0; i < 3; i++) {
        int ci = i - (3 - a->ncoords);
        if (i)
          put(e, ", ");
        if (ci < 0) {
          put(e, "0");
        } else {
          put(e, "(int64_t)(");
          ex(e, a->coord[ci]);
          put(e, ")");
        }
      }
      put(e, ");\n");
    } else {
      put(e, ot.field.ndim == 0 ? "0;\n" : "fgk_i;\n");
    }
    line(e);
    if (a->element) {
      put(e, "const int64_t fgk_e = ");
      if (a->elem)
        ex(e, a->elem);
      else
        put(e, "_tensorElement");
      put(e, ";\n");
      line(e);
      putf(e, "if (fgk_w >= 0 && fgk_e >= 0 && fgk_e < %d)\n", n);
      line(e);
      if (big)
        putf(e, "  %s[fgk_e * %s_P + fgk_w] = ", buf, buf);
      else
        putf(e, "  %s[fgk_w * %d + fgk_e] = ", buf, n);
      ex_as_type(e, s->u.write.value, vt);
      put(e, ";\n");
    } else {
      /* local writes always land inside the field: no guard, so the
       * column loop stays vectorizable */
      if (a->ncoords > 0) {
        put(e, "if (fgk_w >= 0)\n");
        line(e);
        put(e, "  ");
      }
      if (n == 1) {
        putf(e, "%s[fgk_w] = ", buf);
        ex_as_type(e, s->u.write.value, vt);
        put(e, ";\n");
      } else {
        putf(e, "%s(%s + fgk_w * %d, ",
             ldst_helper(e, true, vt, name, sizeof name), buf, n);
        ex_as_type(e, s->u.write.value, vt);
        put(e, ");\n");
      }
    }
    e->indent--;
    line(e);
    put(e, "}\n");
    break;
  }
  }
}

static void block(E *e, const fgk_block *b) {
  for (const fgk_stmt *s = b->first; s; s = s->next)
    stmt(e, s);
}

/* Declares every variable of the kernel (at the top of the thread body, so
 * that C's block scoping never hides one the IR still uses). */
static void declare_vars(E *e, const fgk_block *b) {
  for (const fgk_stmt *s = b->first; s; s = s->next) {
    switch (s->kind) {
    case FGK_S_DECL: {
      const fgk_var *v = s->u.decl;
      line(e);
      putf(e, "%s v%d", cty(v->type), v->id);
      for (int i = 0; i < v->ndims; i++)
        putf(e, "[%d]", v->dims[i]);
      put(e, ";\n");
      break;
    }
    case FGK_S_IF:
      declare_vars(e, &s->u.if_.then);
      declare_vars(e, &s->u.if_.els);
      break;
    case FGK_S_FOR:
      declare_vars(e, &s->u.for_.body);
      break;
    case FGK_S_WHILE:
      declare_vars(e, &s->u.while_.body);
      break;
    case FGK_S_FOREACH:
      declare_vars(e, &s->u.foreach.body);
      break;
    default:
      break;
    }
  }
}

static void buffer_params(E *e, const char *pfx, int i, int slot,
                          fg_type t, bool is_const) {
  line(e);
  putf(e, "%s%s *restrict %s%d = (%s%s *)fgk_buf[%d];\n",
       is_const ? "const " : "", cscalar(t.elem), pfx, i,
       is_const ? "const " : "", cscalar(t.elem), slot);
  line(e);
  putf(e, "const int64_t %s%d_L = fgk_dim[%d], %s%d_R = fgk_dim[%d], "
       "%s%d_C = fgk_dim[%d];\n", pfx, i, 3 * slot, pfx, i, 3 * slot + 1,
       pfx, i, 3 * slot + 2);
  line(e);
  putf(e, "const int64_t %s%d_P = %s%d_L * %s%d_R * %s%d_C;\n", pfx, i, pfx,
       i, pfx, i, pfx, i);
  line(e);
  putf(e, "(void)%s%d_P;\n", pfx, i);
}

char *fgk_emit(const fgk_kernel *k, fgk_dialect d, const char *fn_name) {
  (void)d;
  E e = {.k = k, .indent = 1};
  int nb = k->n_in + k->n_out;
  putf(&e, "void %s(void *const *restrict fgk_buf, "
       "const int64_t *restrict fgk_dim,\n    int64_t fgk_t0, int64_t fgk_t1, "
       "int64_t fgk_c0, int64_t fgk_c1) {\n", fn_name);
  for (int i = 0; i < k->n_in; i++)
    buffer_params(&e, "in", i, i, k->in_type[i], true);
  for (int i = 0; i < k->n_out; i++)
    buffer_params(&e, "out", i, k->n_in + i, k->out_type[i], false);
  putf(&e, "  const int _layers = (int)fgk_dim[%d], _rows = (int)fgk_dim[%d], "
       "_columns = (int)fgk_dim[%d];\n", 3 * nb, 3 * nb + 1, 3 * nb + 2);
  put(&e, "  (void)_layers;\n");
  put(&e, "  for (int64_t fgk_t = fgk_t0; fgk_t < fgk_t1; ++fgk_t) {\n");
  put(&e, "    const int _layer = (int)(fgk_t / _rows), "
          "_row = (int)(fgk_t % _rows);\n");
  put(&e, "    (void)_layer; (void)_row;\n");
  put(&e, "    for (int64_t fgk_c = fgk_c0; fgk_c < fgk_c1; ++fgk_c) {\n");
  put(&e, "      const int _column = (int)fgk_c;\n");
  put(&e, "      const int64_t fgk_i = fgk_t * _columns + fgk_c;\n");
  put(&e, "      (void)_column; (void)fgk_i;\n");
  e.indent = 3;
  declare_vars(&e, &k->body);
  block(&e, &k->body);
  put(&e, "    }\n  }\n}\n");
  fgu_buf src = {0};
  fgu_buf_printf(&src, "/* fieldgraph kernel '%s' (C dialect) */\n", k->name);
  fgu_buf_puts(&src, prelude);
  if (e.help.s)
    fgu_buf_puts(&src, e.help.s);
  if (e.out.s)
    fgu_buf_puts(&src, e.out.s);
  bool oom = e.out.oom || e.help.oom || e.names.oom;
  fgu_buf_free(&e.out);
  fgu_buf_free(&e.help);
  fgu_buf_free(&e.names);
  if (oom) {
    fgu_buf_free(&src);
    return NULL;
  }
  return fgu_buf_take(&src);
}
