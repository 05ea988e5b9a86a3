/* emit/dialect_c.c - the C dialect, for the CPU backend.  C11 with clang's
 * ext_vector_type vectors (OpenCL-style float4, swizzles, scalar
 * broadcast, vector comparisons), so the IR's vector semantics carry over
 * unchanged.  Built-in functions, never-trapping integer division,
 * saturating conversions, splats and unaligned loads become small static
 * inline helpers, emitted only when the kernel uses them.  The thread loop
 * runs along columns innermost with restrict pointers so clang can
 * vectorize it. */
#include "abi.h"
#include "emit_impl.h"
#include "math_c.h"

#include <stdio.h>
#include <string.h>

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

const char fge_c_helpers[] =
  "#define FGK_PI 3.14159265358979323846\n"
  "#define FGK_1_PI 0.31830988618379067154\n"
  "#define FGK_180_PI 57.295779513082320876\n"
  "#define FGK_PI_180 0.017453292519943295769\n"
  "#define fgk_go(p) (!*(p))      /* the run goes on (emit/abi.h) */\n"
  "#define fgk_max(a, b) ((a) < (b) ? (b) : (a))\n"
  "#define fgk_min(a, b) ((b) < (a) ? (b) : (a))\n"
  "static inline long fgk_ci(long i, long n) {\n"
  "  return i < 0 ? 0 : i >= n ? n - 1 : i;\n"
  "}\n"
  "/* Flat index of (l, r, c) clamped into an L x R x C field. */\n"
  "static inline long fgk_at(long L, long R, long C,\n"
  "                             long l, long r, long c) {\n"
  "  return (fgk_ci(l, L) * R + fgk_ci(r, R)) * C + fgk_ci(c, C);\n"
  "}\n"
  "/* fgk_at in 32 bits, for a field of under 2^31 elements and int\n"
  " * coordinates (emit/index32.c) */\n"
  "static inline int fgk_ci32(int i, int n) {\n"
  "  return i < 0 ? 0 : i >= n ? n - 1 : i;\n"
  "}\n"
  "static inline int fgk_at32(long L, long R, long C,\n"
  "                           long l, long r, long c) {\n"
  "  return (fgk_ci32((int)l, (int)L) * (int)R + fgk_ci32((int)r, (int)R)) *\n"
  "         (int)C + fgk_ci32((int)c, (int)C);\n"
  "}\n"
  "/* Flat index of (l, r, c), l and r clamped, c inside the field. */\n"
  "static inline long fgk_atx(long L, long R, long C,\n"
  "                           long l, long r, long c) {\n"
  "  return (fgk_ci(l, L) * R + fgk_ci(r, R)) * C + c;\n"
  "}\n"
  "/* Flat index of (l, r, c) in an L x R x C field, -1 outside it. */\n"
  "static inline long fgk_wat(long L, long R, long C,\n"
  "                              long l, long r, long c) {\n"
  "  if (l < 0 || l >= L || r < 0 || r >= R || c < 0 || c >= C)\n"
  "    return -1;\n"
  "  return (l * R + r) * C + c;\n"
  "}\n"
  "/* OpenCL's sign: +-1, x itself for +-0, and 0 for a NaN */\n"
  "static inline float fgk_signf(float x) {\n"
  "  return x > 0 ? 1.0f : x < 0 ? -1.0f : x == 0 ? x : 0.0f;\n"
  "}\n"
  "static inline double fgk_sign(double x) {\n"
  "  return x > 0 ? 1.0 : x < 0 ? -1.0 : x == 0 ? x : 0.0;\n"
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
  "/* x^(1/n) with OpenCL's cases: NaN for n = 0 and for x < 0 with n\n"
  " * even, odd roots of negatives (and -0) negative; the exponent 1/n in\n"
  " * long double keeps large x within an ulp or two. */\n"
  "static inline double fgk_rootn(double x, int n) {\n"
  "  if (n == 0 || (x < 0 && !(n & 1))) return NAN;\n"
  "  double r = (double)powl(fabsl((long double)x), 1.0L / (long double)n);\n"
  "  return signbit(x) && (n & 1) ? -r : r;\n"
  "}\n"
  "static inline float fgk_rootnf(float x, int n) {\n"
  "  return (float)fgk_rootn(x, n);\n"
  "}\n"
  "/* pow for x >= 0 only, as OpenCL's powr: NaN for x < 0, 0^0, inf^0,\n"
  " * 1^inf and NaN arguments (float: fgk_math_powrf, emit/math_c.c). */\n"
  "static inline double fgk_powr(double x, double y) {\n"
  "  if (isnan(x) || isnan(y) || x < 0 || (x == 0 && y == 0) ||\n"
  "      (isinf(x) && y == 0) || (x == 1 && isinf(y))) return NAN;\n"
  "  return pow(fabs(x), y);\n"
  "}\n"

  "/* sin(pi x) (c = 0) or cos(pi x) (c = 1): x reduced exactly to f, at\n"
  " * most 1/4 from a multiple k/2, so that multiples of 1/2 give exact\n"
  " * zeros and ones and large x loses nothing; zeros signed as OpenCL's\n"
  " * sinpi (the sign of x) and cospi (+0). */\n"
  "static inline double fgk_sincospi(double x, int c) {\n"
  "  if (!isfinite(x)) return x - x;\n"
  "  double r = remainder(x, 2.0), k = rint(r * 2), f = r - k * 0.5;\n"
  "  int q = ((int)k + 4 + c) & 3;\n"
  "  double s = q & 1 ? cos(FGK_PI * f) : sin(FGK_PI * f);\n"
  "  s = q & 2 ? -s : s;\n"
  "  return s == 0 ? (c ? 0.0 : copysign(0.0, x)) : s;\n"
  "}\n"
  "static inline double fgk_sinpi(double x) { return fgk_sincospi(x, 0); }\n"
  "static inline double fgk_cospi(double x) { return fgk_sincospi(x, 1); }\n"
  "/* tan(pi x): +-inf at n + 1/2 (+ for even n), signed zeros at n. */\n"
  "static inline double fgk_tanpi(double x) {\n"
  "  return fgk_sincospi(x, 0) / fgk_sincospi(x, 1);\n"
  "}\n"
  "static inline float fgk_sinpif(float x) { return (float)fgk_sinpi(x); }\n"
  "static inline float fgk_cospif(float x) { return (float)fgk_cospi(x); }\n"
  "static inline float fgk_tanpif(float x) { return (float)fgk_tanpi(x); }\n";


/* ---- helpers emitted on demand ------------------------------------------ */

/* The type argument i of built-in call x is passed as: T (the first
 * argument's type), except ldexp/pown/rootn's int count and select's
 * condition, which keep their own kind. */
static fgk_type c_param(const fg_expr *x, int i) {
  const fgk_builtin_info *b = &fgk_builtins[x->u.call.fn];
  fgk_type t = x->u.call.arg[0]->type, a = x->u.call.arg[i]->type;
  if (i == 1 && b->rule == FGK_RULE_FLTINT)
    return fgk_t(FG_I32, a.width);
  if (i == 2 && b->rule == FGK_RULE_SELECT)
    return a;
  return t;
}

/* The per-element-type scalar helper fgk_<name>_<S> of the integer
 * functions, bitselect and nan (templates with %t), with OpenCL's
 * semantics: saturation, high halves through a wider type, clz(0) = bit
 * width, rotation modulo the width, halving adds that never overflow. */
static void c_scalar_helper(fgk_emitter *e, fgk_builtin fn, fg_elem el) {
  char name[96];
  snprintf(name, sizeof name, "fgk_%s_%s", fgk_builtins[fn].name,
           cscalar(el));
  if (!fgk_first_use(e, name))
    return;
  fgu_buf *h = &e->help;
  const char *S = cscalar(el);
  bool sg = fgk_is_signed(el);
  const char *U = cscalar(sg ? (fg_elem)(el + 1) : el);
  int W = (int)fg_elem_size(el) * 8;
  const char *lo = fgk_int_min_literal(el), *hi = fgk_int_max_literal(el);
  /* twice as wide as S, for products */
  const char *wide = W == 64 ? (sg ? "__int128" : "unsigned __int128")
                             : (sg ? "long" : "ulong");
  switch (fn) {
  case FGK_FN_abs:
    fgu_buf_printf(h, "static inline %s %s(%s x) {\n  return x < 0 ? (%s)(0 "
                   "- (%s)x) : (%s)x;\n}\n", U, name, S, U, U, U);
    return;
  case FGK_FN_abs_diff:
    fgu_buf_printf(h, "static inline %s %s(%s x, %s y) {\n  return x > y ? "
                   "(%s)((%s)x - (%s)y) : (%s)((%s)y - (%s)x);\n}\n", U, name,
                   S, S, U, U, U, U, U, U);
    return;
  case FGK_FN_add_sat:
  case FGK_FN_sub_sat: {
    bool add = fn == FGK_FN_add_sat;
    char over[96];
    if (sg)
      snprintf(over, sizeof over, "y < 0 ? %s : %s", add ? lo : hi,
               add ? hi : lo);
    else
      snprintf(over, sizeof over, "%s", add ? hi : "0");
    fgu_buf_printf(h, "static inline %s %s(%s x, %s y) {\n  %s r;\n"
                   "  if (__builtin_%s_overflow(x, y, &r))\n    return %s;\n"
                   "  return r;\n}\n", S, name, S, S, S, add ? "add" : "sub",
                   over);
    return;
  }
  case FGK_FN_hadd:
  case FGK_FN_rhadd:
    fgu_buf_printf(h, "static inline %s %s(%s x, %s y) {\n  return (%s)((x "
                   ">> 1) + (y >> 1) + (%s & 1));\n}\n", S, name, S, S, S,
                   fn == FGK_FN_hadd ? "(x & y)" : "(x | y)");
    return;
  case FGK_FN_clz:
    if (W == 64)
      fgu_buf_printf(h, "static inline %s %s(%s x) {\n  return x == 0 ? 64 : "
                     "(%s)__builtin_clzl((ulong)x);\n}\n", S, name, S, S);
    else
      fgu_buf_printf(h, "static inline %s %s(%s x) {\n  return x == 0 ? %d : "
                     "(%s)(__builtin_clz((uint)(%s)x) - %d);\n}\n", S, name, S,
                     W, S, U, 32 - W);
    return;
  case FGK_FN_mul_hi:
    fgu_buf_printf(h, "static inline %s %s(%s x, %s y) {\n  return (%s)(((%s)"
                   "x * (%s)y) >> %d);\n}\n", S, name, S, S, S, wide, wide, W);
    return;
  case FGK_FN_mad_hi:
    fgu_buf_printf(h, "static inline %s %s(%s x, %s y, %s z) {\n  return (%s)"
                   "((%s)(((%s)x * (%s)y) >> %d) + (%s)z);\n}\n", S, name, S, S,
                   S, S, U, wide, wide, W, U);
    return;
  case FGK_FN_mad_sat:
    if (sg)
      fgu_buf_printf(h, "static inline %s %s(%s x, %s y, %s z) {\n"
                     "  __int128 v = (__int128)x * y + z;\n"
                     "  return v < %s ? %s : v > %s ? %s : (%s)v;\n}\n", S,
                     name, S, S, S, lo, lo, hi, hi, S);
    else
      fgu_buf_printf(h, "static inline %s %s(%s x, %s y, %s z) {\n"
                     "  unsigned __int128 v = (unsigned __int128)x * y + z;\n"
                     "  return v > %s ? %s : (%s)v;\n}\n", S, name, S, S, S,
                     hi, hi, S);
    return;
  case FGK_FN_rotate:
    fgu_buf_printf(h, "static inline %s %s(%s x, %s y) {\n"
                   "  unsigned n = (unsigned)((%s)y & %d);\n"
                   "  ulong v = (%s)x;\n"
                   "  return (%s)(%s)((v << n) | (v >> ((%d - n) & %d)));\n"
                   "}\n", S, name, S, S, U, W - 1, U, S, U, W, W - 1);
    return;
  case FGK_FN_mul24:
    fgu_buf_printf(h, "static inline %s %s(%s x, %s y) {\n  return (%s)((%s)x "
                   "* (%s)y);\n}\n", S, name, S, S, S, U, U);
    return;
  case FGK_FN_mad24:
    fgu_buf_printf(h, "static inline %s %s(%s x, %s y, %s z) {\n  return (%s)"
                   "((%s)x * (%s)y + (%s)z);\n}\n", S, name, S, S, S, S, U, U,
                   U);
    return;
  case FGK_FN_bitselect:
    if (fgk_is_float(el))
      fgu_buf_printf(h, "static inline %s %s(%s x, %s y, %s z) {\n"
                     "  union { %s f; %s u; } a = {x}, b = {y}, c = {z}, r;\n"
                     "  r.u = (a.u & ~c.u) | (b.u & c.u);\n  return r.f;\n}\n",
                     S, name, S, S, S, S, el == FG_F32 ? "uint" : "ulong");
    else
      fgu_buf_printf(h, "static inline %s %s(%s x, %s y, %s z) {\n  return "
                     "(%s)((x & ~z) | (y & z));\n}\n", S, name, S, S, S, S);
    return;
  case FGK_FN_nan:
    if (el == FG_U64)
      fgu_buf_printf(h, "static inline double %s(ulong x) {\n"
                     "  union { ulong u; double f; } v;\n"
                     "  v.u = 0x7ff8000000000000UL | (x & 0x7ffffffffffffUL);"
                     "\n  return v.f;\n}\n", name);
    else
      fgu_buf_printf(h, "static inline float %s(uint x) {\n"
                     "  union { uint u; float f; } v;\n"
                     "  v.u = 0x7fc00000u | (x & 0x3fffffu);\n"
                     "  return v.f;\n}\n", name);
    return;
  default:
    return;
  }
}

/* The body of a built-in the C dialect writes whole (empty template):
 * reductions, cross, normalize, any/all and select, on parameters a0..a2
 * of types pt, result type r. */
static void c_whole_body(fgk_emitter *e, fgk_builtin fn, const fgk_type *pt,
                         fgk_type r, bool spread) {
  fgu_buf *h = &e->help;
  fgk_type t = pt[0];
  int w = t.width;
  const char *sc = cscalar(t.elem);
  char ix[4][8];      /* component suffixes: "", ".s0".. or (spread) "_0".. */
  for (int c = 0; c < 4; c++)
    snprintf(ix[c], sizeof ix[c], w == 1 ? "" : spread ? "_%d" : ".s%d", c);
  switch (fn) {
  case FGK_FN_dot:
    fgu_buf_printf(h, "  %s s = 0;\n", sc);
    for (int c = 0; c < w; c++)
      fgu_buf_printf(h, "  s += a0%s * a1%s;\n", ix[c], ix[c]);
    fgu_buf_puts(h, "  return s;\n");
    return;
  case FGK_FN_length:
  case FGK_FN_fast_length:
  case FGK_FN_distance:
  case FGK_FN_fast_distance: {
    /* floats add their squares in double (no overflow or underflow, one
     * rounding); doubles are scaled by a power of two first */
    bool dist = fn == FGK_FN_distance || fn == FGK_FN_fast_distance;
    for (int c = 0; c < w; c++) {
      if (dist)
        fgu_buf_printf(h, "  double d%d = (double)a0%s - (double)a1%s;\n", c,
                       ix[c], ix[c]);
      else
        fgu_buf_printf(h, "  double d%d = a0%s;\n", c, ix[c]);
    }
    fgu_buf_puts(h, "  double s = 0, m = 0;\n  int ex = 0;\n");
    if (t.elem == FG_F64) {
      for (int c = 0; c < w; c++)
        fgu_buf_printf(h, "  m = fmax(m, fabs(d%d));\n", c);
      fgu_buf_puts(h, "  frexp(m, &ex);\n");
      for (int c = 0; c < w; c++)
        fgu_buf_printf(h, "  d%d = ldexp(d%d, -ex);\n", c, c);
    }
    for (int c = 0; c < w; c++)
      fgu_buf_printf(h, "  s += d%d * d%d;\n", c, c);
    fgu_buf_printf(h, "  (void)m;\n  return (%s)ldexp(sqrt(s), ex);\n", sc);
    return;
  }
  case FGK_FN_cross:
    fgu_buf_printf(h, "  %s r;\n  r.x = a0.y * a1.z - a0.z * a1.y;\n"
                   "  r.y = a0.z * a1.x - a0.x * a1.z;\n"
                   "  r.z = a0.x * a1.y - a0.y * a1.x;\n", cty(t));
    if (w == 4)
      fgu_buf_puts(h, "  r.w = 0;\n");
    fgu_buf_puts(h, "  return r;\n");
    return;
  case FGK_FN_normalize:
  case FGK_FN_fast_normalize:
    /* in double, scaled by a power of two so that nothing overflows;
     * infinities count as +-1 and the finite components as 0, as in
     * OpenCL; all zeros come back as they are, a NaN makes all NaN */
    for (int c = 0; c < w; c++)
      fgu_buf_printf(h, "  double c%d = a0%s;\n", c, ix[c]);
    fgu_buf_puts(h, "  if (");
    for (int c = 0; c < w; c++)
      fgu_buf_printf(h, "%sc%d == 0", c ? " && " : "", c);
    fgu_buf_puts(h, ")\n    return a0;\n  if (");
    for (int c = 0; c < w; c++)
      fgu_buf_printf(h, "%sisinf(c%d)", c ? " || " : "", c);
    fgu_buf_puts(h, ") {\n");
    for (int c = 0; c < w; c++)
      fgu_buf_printf(h, "    c%d = isinf(c%d) ? copysign(1.0, c%d) : 0.0 * "
                     "c%d;\n", c, c, c, c);
    fgu_buf_puts(h, "  }\n  double m = 0, s = 0;\n  int ex = 0;\n");
    for (int c = 0; c < w; c++)
      fgu_buf_printf(h, "  m = fmax(m, fabs(c%d));\n", c);
    fgu_buf_puts(h, "  frexp(m, &ex);\n");
    for (int c = 0; c < w; c++)
      fgu_buf_printf(h, "  c%d = ldexp(c%d, -ex);\n  s += c%d * c%d;\n", c, c,
                     c, c);
    fgu_buf_puts(h, "  s = sqrt(s);\n");
    if (w == 1) {
      fgu_buf_printf(h, "  return (%s)(c0 / s);\n", sc);
    } else {
      fgu_buf_printf(h, "  %s r;\n", cty(t));
      for (int c = 0; c < w; c++)
        fgu_buf_printf(h, "  r%s = (%s)(c%d / s);\n", ix[c], sc, c);
      fgu_buf_puts(h, "  return r;\n");
    }
    return;
  case FGK_FN_any:
  case FGK_FN_all:
    fgu_buf_puts(h, "  return ");
    for (int c = 0; c < w; c++)
      fgu_buf_printf(h, "%s(a0%s < 0)", c ? fn == FGK_FN_any ? " || " : " && "
                                          : "", ix[c]);
    fgu_buf_puts(h, ";\n");
    return;
  case FGK_FN_select:
    if (w == 1) {
      fgu_buf_puts(h, "  return a2 ? a1 : a0;\n");
    } else {
      /* the most significant bit of each component of c selects */
      fg_elem ce = pt[2].elem;
      fg_elem se = fgk_is_signed(ce) ? ce : (fg_elem)(ce - 1);
      fgu_buf_printf(h, "  %s r;\n  for (int i = 0; i < %d; i++)\n"
                     "    r[i] = (%s)a2[i] < 0 ? a1[i] : a0[i];\n"
                     "  return r;\n", cty(r), w, cscalar(se));
    }
    return;
  default:
    fgu_buf_printf(h, "  return (%s)0;\n", cty(r));
    return;
  }
}

/* A built-in as a static inline helper named by the function and its
 * parameter types, e.g. fgk_fn_sqrt_float4: component-wise through the
 * scalar template (relational results become 1/0 for scalars and -1/0 for
 * vectors, as in OpenCL), or written whole; emits the definition once and
 * writes the call. */
static void c_call(fgk_emitter *e, const fg_expr *x) {
  fgk_builtin fn = x->u.call.fn;
  const fgk_builtin_info *b = &fgk_builtins[fn];
  int n = x->u.call.n;
  fgk_type t = x->u.call.arg[0]->type, r = x->type;
  fgk_type pt[3];
  for (int i = 0; i < n; i++)
    pt[i] = c_param(x, i);
  /* with small tensors as scalars, a reduction of vectors (dot, length,
   * any) takes its components as scalar parameters, so no vector value
   * stands in the thread loop */
  bool spread = e->split && r.width == 1 && t.width > 1 &&
                (b->rule == FGK_RULE_FLTRED || b->rule == FGK_RULE_F32RED ||
                 b->rule == FGK_RULE_SINTRED);
  char name[160];
  size_t len = (size_t)snprintf(name, sizeof name, "fgk_fn_%s_%s%s%s",
                                b->name, fgk_type_name(t), spread ? "_c" : "",
                                fge_math_c_const_exponent(x) ? "_k" : "");
  for (int i = 1; i < n && len < sizeof name; i++)
    if (!fgk_type_eq(pt[i], t))
      len += (size_t)snprintf(name + len, sizeof name - len, "_%s",
                              fgk_type_name(pt[i]));
  if (fgk_first_use(e, name)) {
    /* f32 cbrt, exp, log, pow...: vectorizable routines (emit/math_c.c) */
    const char *tpl = fge_math_c_template(e, x);
    if (!tpl)
      tpl = b->c_template;
    if (strstr(b->c_template, "%t"))
      c_scalar_helper(e, fn, t.elem);   /* before the helper that calls it */
    fgu_buf *h = &e->help;
    fgu_buf_printf(h, "static inline %s %s(", cty(r), name);
    for (int i = 0; i < n; i++) {
      if (!spread) {
        fgu_buf_printf(h, "%s%s a%d", i ? ", " : "", cty(pt[i]), i);
        continue;
      }
      for (int c = 0; c < pt[i].width; c++)
        fgu_buf_printf(h, "%s%s a%d_%d", i || c ? ", " : "",
                       cscalar(pt[i].elem), i, c);
    }
    fgu_buf_puts(h, ") {\n");
    if (!*b->c_template) {
      c_whole_body(e, fn, pt, r, spread);
      fgu_buf_puts(h, "}\n");
    } else {
      bool rel = b->rule == FGK_RULE_REL;
      if (r.width > 1)
        fgu_buf_printf(h, "  %s r;\n  for (int i = 0; i < %d; i++)\n"
                       "    r[i] = ", cty(r), r.width);
      else
        fgu_buf_puts(h, "  return ");
      if (rel)
        fgu_buf_putc(h, '(');
      const char *sfx = t.elem == FG_F32 ? "f" : "";
      for (const char *p = tpl; *p; p++) {
        if (*p == '%' && p[1] >= '0' && p[1] <= '2') {
          int a = p[1] - '0';
          fgu_buf_printf(h, "a%d%s", a, pt[a].width > 1 ? "[i]" : "");
          p++;
        } else if (*p == '%' && p[1] == 'f') {
          fgu_buf_puts(h, sfx);
          p++;
        } else if (*p == '%' && p[1] == 't') {
          fgu_buf_puts(h, cscalar(t.elem));
          p++;
        } else {
          fgu_buf_putc(h, *p);
        }
      }
      if (rel)
        fgu_buf_puts(h, r.width > 1 ? ") ? -1 : 0" : ") ? 1 : 0");
      fgu_buf_puts(h, r.width > 1 ? ";\n  return r;\n}\n" : ";\n}\n");
    }
  }
  fgk_putf(e, "%s(", name);
  for (int i = 0; i < n; i++) {
    const fg_expr *a = x->u.call.arg[i];
    if (i)
      fgk_put(e, ", ");
    if (!spread) {
      fgk_ex_as_type(e, a, pt[i]);
      continue;
    }
    for (int c = 0; c < pt[i].width; c++) {
      fgk_putf(e, "%s(%s)(", c ? ", " : "", cscalar(pt[i].elem));
      fge_comp(e, a, c);
      fgk_put(e, ")");
    }
  }
  fgk_put(e, ")");
}

static void c_splat(fgk_emitter *e, const fg_expr *x, fgk_type t) {
  char name[64];
  snprintf(name, sizeof name, "fgk_splat_%s", fgk_type_name(t));
  if (fgk_first_use(e, name)) {
    const char *ty = cty(t), *ety = cscalar(t.elem);
    fgu_buf_printf(&e->help, "static inline %s %s(%s s) {\n  %s r = {", ty,
                   name, ety, ty);
    for (int i = 0; i < t.width; i++)
      fgu_buf_printf(&e->help, "%ss", i ? ", " : "");
    fgu_buf_puts(&e->help, "};\n  return r;\n}\n");
  }
  fgk_putf(e, "%s((%s)(", name, cscalar(t.elem));
  fgk_ex(e, x);
  fgk_put(e, "))");
}

static void c_vconvert(fgk_emitter *e, const fg_expr *x, fgk_type t) {
  fgk_put(e, "__builtin_convertvector(");
  fgk_ex(e, x);
  fgk_putf(e, ", %s)", cty(t));
}

/* Saturating conversion from f to t, rounding floats to nearest even. */
static void c_convert_sat(fgk_emitter *e, const fg_expr *x, fgk_type f,
                          fgk_type t) {
  char name[96];
  snprintf(name, sizeof name, "fgk_sat_%s_%s", fgk_type_name(t),
           fgk_type_name(f));
  if (fgk_first_use(e, name)) {
    fgu_buf *h = &e->help;
    const char *ty = cty(t), *ety = cscalar(t.elem);
    const char *lo = fgk_int_min_literal(t.elem);
    const char *hi = fgk_int_max_literal(t.elem);
    fgu_buf_printf(h, "static inline %s %s(%s a) {\n  %s r;\n", ty, name,
                   cty(f), ty);
    for (int c = 0; c < t.width; c++) {
      char ix[16] = "";
      if (t.width > 1)
        snprintf(ix, sizeof ix, ".s%d", c);
      if (fgk_is_float(f.elem)) {
        /* a float rounds to an integer that is a float: rintf gives the
         * bits rint would, at twice the vector width */
        const char *ft = f.elem == FG_F32 ? "float" : "double";
        if (t.elem == FG_U8 || t.elem == FG_U16) {
          /* both bounds exact floats, the lower 0, which NaN gets as
           * well: two comparisons that clang makes a max and a min */
          fgu_buf_printf(h, "  { %s v = rint%s((%s)a%s);\n    r%s = (%s)(v "
                         "> (%s)0 ? v < (%s)%s ? v : (%s)%s : (%s)0); }\n",
                         ft, f.elem == FG_F32 ? "f" : "", ft, ix, ix, ety, ft,
                         ft, hi, ft, hi, ft);
          continue;
        }
        fgu_buf_printf(h, "  { %s v = rint%s((%s)a%s);\n    r%s = v != v"
                       " ? 0 : v <= (%s)%s ? %s : v >= (%s)%s ? %s : "
                       "(%s)v; }\n", ft, f.elem == FG_F32 ? "f" : "", ft, ix,
                       ix, ft, lo, lo, ft, hi, hi, ety);
      } else if (fgk_is_signed(f.elem)) {
        fgu_buf_printf(h, "  { long v = (long)a%s;\n    r%s = v < (long)%s ? "
                       "%s : v > 0 && (unsigned long)v > (unsigned long)%s "
                       "? %s : (%s)v; }\n", ix, ix, lo, lo, hi, hi, ety);
      } else {
        fgu_buf_printf(h, "  { unsigned long v = (unsigned long)a%s;\n    "
                       "r%s = v > (unsigned long)%s ? %s : (%s)v; }\n", ix, ix,
                       hi, hi, ety);
      }
    }
    fgu_buf_puts(h, "  return r;\n}\n");
  }
  fgk_putf(e, "%s(", name);
  fgk_ex(e, x);
  fgk_put(e, ")");
}

static void c_as(fgk_emitter *e, const fg_expr *x, fgk_type t) {
  char name[96];
  snprintf(name, sizeof name, "fgk_as_%s_%s", fgk_type_name(t),
           fgk_type_name(x->type));
  if (fgk_first_use(e, name))
    fgu_buf_printf(&e->help, "static inline %s %s(%s a) {\n  %s r;\n"
                   "  memcpy(&r, &a, sizeof r);\n  return r;\n}\n", cty(t),
                   name, cty(x->type), cty(t));
  fgk_putf(e, "%s(", name);
  fgk_ex(e, x);
  fgk_put(e, ")");
}

static void c_vec_open(fgk_emitter *e, fgk_type t) {
  fgk_putf(e, "((%s){", cty(t));
}

/* Loads and stores of small tensors: memcpy makes them alignment-free and
 * reads exactly the tensor's elements (3, not 4, for a float3). */
static void c_load_open(fgk_emitter *e, fgk_type t) {
  char name[64];
  snprintf(name, sizeof name, "fgk_ld_%s", fgk_type_name(t));
  if (fgk_first_use(e, name))
    fgu_buf_printf(&e->help, "static inline %s %s(const %s *p) {\n  %s v;\n"
                   "  memcpy(&v, p, %d * sizeof(%s));\n  return v;\n}\n",
                   cty(t), name, cscalar(t.elem), cty(t), t.width,
                   cscalar(t.elem));
  fgk_putf(e, "%s(", name);
}

static void c_store(fgk_emitter *e, fgk_type t, const char *ptr,
                    const fg_expr *value) {
  char name[64];
  snprintf(name, sizeof name, "fgk_st_%s", fgk_type_name(t));
  if (fgk_first_use(e, name))
    fgu_buf_printf(&e->help, "static inline void %s(%s *p, %s v) {\n"
                   "  memcpy(p, &v, %d * sizeof(%s));\n}\n", name,
                   cscalar(t.elem), cty(t), t.width, cscalar(t.elem));
  fgk_putf(e, "%s(%s, ", name, ptr);
  fgk_ex(e, value);
  fgk_put(e, ");\n");
}

/* Buffer pfx<i> (at slot in fgk_buf) as a restrict parameter of the
 * thread function (part 0), as its argument in the call (part 1), or its
 * extents (part 2). */
static void c_buffer(fgu_buf *o, int part, const char *pfx, int i, int slot,
                     fg_type t, bool is_const) {
  const char *q = is_const ? "const " : "";
  if (part == 0) {
    fgu_buf_printf(o, "%s%s *restrict %s%d, ", q, cscalar(t.elem), pfx, i);
    return;
  }
  if (part == 1) {
    fgu_buf_printf(o, "(%s%s *)fgk_buf[%d], ", q, cscalar(t.elem), slot);
    return;
  }
  fgu_buf_printf(o, "  const long %s%d_L = fgk_dim[%d], %s%d_R = fgk_dim[%d], "
                 "%s%d_C = fgk_dim[%d];\n", pfx, i,
                 FGE_DIM_AXES * slot + FGE_DIM_LAYERS, pfx, i,
                 FGE_DIM_AXES * slot + FGE_DIM_ROWS, pfx, i,
                 FGE_DIM_AXES * slot + FGE_DIM_COLUMNS);
  fgu_buf_printf(o, "  const long %s%d_P = %s%d_L * %s%d_R * %s%d_C;\n", pfx,
                 i, pfx, i, pfx, i, pfx, i);
  fgu_buf_printf(o, "  (void)%s%d_P;\n", pfx, i);
}

/* Opens the loop over fgk_t, the kernel's (layer, row) pairs, rows being
 * per_layer per layer (rows, or groups of rows).  With per-element threads
 * (_globalThreads(fieldShape, tensorShape)) the backend launches that many
 * times as many: the element is the outermost part of the index. */
static void c_open_row_loop(fgu_buf *o, const fgk_kernel *k,
                            const char *per_layer) {
  if (!k->thread_elements) {
    fgu_buf_puts(o, "  for (long fgk_t = fgk_t0; fgk_t < fgk_t1; ++fgk_t) {\n");
    return;
  }
  fgu_buf_printf(o, "  for (long fgk_u = fgk_t0; fgk_u < fgk_t1; ++fgk_u) {\n"
                 "    const int _tensorElement = (int)(fgk_u / ((long)_layers "
                 "* %s));\n"
                 "    const long fgk_t = fgk_u %% ((long)_layers * %s);\n"
                 "    (void)_tensorElement;\n", per_layer, per_layer);
}

#define C_CLOSE_KERNEL "    }\n  }\n}\n"
#define C_CLOSE_KERNEL_TABLES "    }\n  }\n  }\n}\n"

static void c_thread_loops(fgk_emitter *e, fgu_buf *o);

static void c_open_kernel(fgk_emitter *e, fgu_buf *o, const char *helpers,
                          const char *fn_name) {
  const fgk_kernel *k = e->k;
  fgu_buf_puts(o, fgk_c_prelude);
  if (e->has_foreign)
    fgu_buf_puts(o, FGE_VECTOR_VALUES_LINE);
  fgu_buf_puts(o, fge_c_helpers);
  fgu_buf_puts(o, helpers);
  /* gathers: a copy of the threads indexing in 32 bits, run when every
   * input is small enough (emit/index32.c) */
  bool i32 = fge_index32(e);
  if (i32) {
    fgu_buf_printf(o, "#define fgk_at fgk_at32\n#define fgk_tap4 fgk_tap4_32\n"
                   "%sstatic void fgk_threads32(",
                   fge_math_c_used(e) ? "FGK_M_THREADS " : "");
    for (int i = 0; i < k->n_in; i++)
      c_buffer(o, 0, "in", i, i, k->in_type[i], true);
    for (int i = 0; i < k->n_out; i++)
      c_buffer(o, 0, "out", i, k->n_in + i, k->out_type[i], false);
    fgu_buf_puts(o, "const long *restrict fgk_dim,\n    long fgk_t0, long "
                 "fgk_t1, long fgk_c0, long fgk_c1,\n    "
                 "const volatile int *fgk_stop) {\n");
    c_thread_loops(e, o);
    if (e->out.s)
      fgu_buf_puts(o, e->out.s);
    fgu_buf_puts(o, e->coltab_pre_text.s || e->col_block
                        ? C_CLOSE_KERNEL_TABLES
                        : C_CLOSE_KERNEL);
    fgu_buf_puts(o, "#undef fgk_at\n#undef fgk_tap4\n");
  }
  /* the threads run in a function taking the buffers as restrict
   * parameters: clang draws no-alias facts from those (not from restrict
   * local variables), which the loop vectorizer needs; the entry point
   * only unpacks fgk_buf */
  const char *wide = fge_math_c_used(e) ? "FGK_M_THREADS " : "";
  for (int pass = 0; pass < 3; pass++) {
    if (pass == 0)
      fgu_buf_printf(o, "%sstatic void fgk_threads(", wide);
    else if (pass == 1)
      fgu_buf_printf(o, "%svoid %s(void *const *restrict fgk_buf, "
                     "const long *restrict fgk_dim,\n    long fgk_t0, long "
                     "fgk_t1, long fgk_c0, long fgk_c1,\n    "
                     "const volatile int *fgk_stop) {\n",
                     *wide ? "FGK_M_ENTRY " : "", fn_name);
    if (pass == 1 && i32) {
      /* every flat index of an input (point index times the tensor's
       * elements, at most 16) fits an int */
      fgu_buf_puts(o, "  if (1");
      for (int i = 0; i < k->n_in; i++)
        fgu_buf_printf(o, " && fgk_dim[%d] * fgk_dim[%d] * fgk_dim[%d] <= "
                       "0x7fffffffL / 16", FGE_DIM_AXES * i + FGE_DIM_LAYERS,
                       FGE_DIM_AXES * i + FGE_DIM_ROWS,
                       FGE_DIM_AXES * i + FGE_DIM_COLUMNS);
      fgu_buf_puts(o, ") {\n    fgk_threads32(");
      for (int i = 0; i < k->n_in; i++)
        c_buffer(o, 1, "in", i, i, k->in_type[i], true);
      for (int i = 0; i < k->n_out; i++)
        c_buffer(o, 1, "out", i, k->n_in + i, k->out_type[i], false);
      fgu_buf_puts(o, "fgk_dim, fgk_t0, fgk_t1, fgk_c0, fgk_c1, fgk_stop);\n"
                   "    return;\n  }\n");
    }
    if (pass == 1)
      fgu_buf_puts(o, "  fgk_threads(");
    else if (pass == 2)
      fgu_buf_printf(o, "%sstatic void fgk_threads(", wide);
    for (int i = 0; i < k->n_in; i++)
      c_buffer(o, pass & 1, "in", i, i, k->in_type[i], true);
    for (int i = 0; i < k->n_out; i++)
      c_buffer(o, pass & 1, "out", i, k->n_in + i, k->out_type[i], false);
    fgu_buf_puts(o, pass == 1 ? "fgk_dim, fgk_t0, fgk_t1, fgk_c0, fgk_c1, "
                                "fgk_stop);\n}\n"
                 : "const long *restrict fgk_dim,\n    long fgk_t0, long "
                   "fgk_t1, long fgk_c0, long fgk_c1,\n    "
                   "const volatile int *fgk_stop)");
    fgu_buf_puts(o, pass == 0 ? ";\n" : pass == 2 ? " {\n" : "");
  }
  c_thread_loops(e, o);
}

/* The body of a threads function up to the thread's own code: the
 * buffers' extents, the loops over rows and columns (or partials, or
 * work-groups). */
static void c_thread_loops(fgk_emitter *e, fgu_buf *o) {
  const fgk_kernel *k = e->k;
  int nb = k->n_in + k->n_out;
  for (int i = 0; i < k->n_in; i++)
    c_buffer(o, 2, "in", i, i, k->in_type[i], true);
  for (int i = 0; i < k->n_out; i++)
    c_buffer(o, 2, "out", i, k->n_in + i, k->out_type[i], false);
  fgu_buf_printf(o, "  const int _layers = (int)fgk_dim[%d], "
                 "_rows = (int)fgk_dim[%d], _columns = (int)fgk_dim[%d];\n",
                 FGE_DIM_AXES * nb + FGE_DIM_LAYERS,
                 FGE_DIM_AXES * nb + FGE_DIM_ROWS,
                 FGE_DIM_AXES * nb + FGE_DIM_COLUMNS);
  fgu_buf_puts(o, "  (void)_layers;\n");
  if (fgk_is_reduction(k->reduce)) {
    /* c counts partials: each reduces a fixed chunk of the flattened
     * threads, so the order of additions depends only on the shape */
    fgu_buf_printf(o, "  const long fgk_N = (long)_layers * _rows * _columns;\n"
                   "  const long fgk_P = out%d_C;\n"
                   "  const long fgk_chunk = %s;\n"
                   "  for (long fgk_p = fgk_c0; fgk_p < fgk_c1; ++fgk_p) {\n",
                   k->reduce.port, fgk_reduce_chunk_text(k));
    fgk_reduce_acc_decl(e, o);
    /* the chunk row by row: the coordinates of a row's first point cost
     * two divisions, the points of a row step through the columns, so
     * the inner loop is a plain counted loop clang can vectorize */
    fgu_buf_puts(o, "    const long fgk_end = (fgk_p + 1) * fgk_chunk < fgk_N "
                 "? (fgk_p + 1) * fgk_chunk : fgk_N;\n");
    /* a reduction with a location folds in blocks (emit/reduce.c) */
    const char *from, *to;
    fge_loc_blocks_open(e, o, &from, &to);
    fgu_buf_printf(o, "    for (long fgk_r0 = %s; fgk_r0 < %s;) "
                   "{\n"
                   "      const long fgk_lr = fgk_r0 / _columns;\n"
                   "      const int _layer = (int)(fgk_lr / _rows), "
                   "_row = (int)(fgk_lr %% _rows);\n"
                   "      const long fgk_cb = fgk_r0 - fgk_lr * _columns;\n"
                   "      const long fgk_ce = fgk_cb + (%s - fgk_r0) < "
                   "_columns ? fgk_cb + (%s - fgk_r0) : _columns;\n"
                   "      const long fgk_row0 = fgk_lr * _columns;\n"
                   "      fgk_r0 = fgk_row0 + fgk_ce;\n"
                   "      (void)_layer; (void)_row;\n", from, to, to, to);
    /* a built-in reduction's column loops come from the walker (its
     * lanes, emit/walk.c); a foreign one folds point by point */
    if (k->reduce.kind == FGK_REDUCE_FOREIGN)
      fgu_buf_puts(o, "      for (long fgk_c = fgk_cb; fgk_c < fgk_ce; "
                   "++fgk_c) {\n"
                   "      const int _column = (int)fgk_c;\n"
                   "      const long fgk_i = fgk_row0 + fgk_c;\n"
                   "      (void)_column;\n");
    return;
  }
  if (k->grouped) {
    /* t and c count work-groups: (layer, group row) flattened, and group
     * columns; the threads of a group run one after another, phase by
     * phase, which is what a barrier needs */
    fgu_buf_printf(o, "  enum { fgk_LY = %d, fgk_LX = %d };\n"
                   "  const int _localLayers = 1, _localRows = fgk_LY, "
                   "_localColumns = fgk_LX;\n"
                   "  const long fgk_GY = (_rows + fgk_LY - 1) / fgk_LY;\n"
                   "  (void)_localLayers; (void)_localRows; "
                   "(void)_localColumns;\n", k->local[0], k->local[1]);
    c_open_row_loop(o, k, "fgk_GY");
    fgu_buf_puts(o, "    const int _layer = (int)(fgk_t / fgk_GY), "
                 "_groupRow = (int)(fgk_t % fgk_GY);\n"
                 "    const int _groupLayer = _layer, _localLayer = 0;\n"
                 "    (void)_groupLayer; (void)_localLayer;\n"
                 "    for (long fgk_c = fgk_c0; fgk_c < fgk_c1; ++fgk_c) {\n"
                 "      const int _groupColumn = (int)fgk_c;\n"
                 "      (void)_groupColumn;\n");
    return;
  }
  static const char *const thread =
    "      const int _column = (int)fgk_c;\n"
    "      const long fgk_i = fgk_t * _columns + fgk_c;\n"
    "      (void)_column; (void)fgk_i;\n";
  const char *c_from = "fgk_c0", *c_to = "fgk_c1";
  if (e->coltab_pre_text.s) {
    /* column statements once per block of columns, into tables the
     * rows' threads read (emit/coltab.c) */
    /* blocks as wide as 128 KiB of tables allow, at least 256 and at
     * most 8192 columns: a narrower block re-walks the rows more often,
     * which cost a warp a third of its time at 1024 */
    int cb = 8192;
    if (e->n_rowtap) {
      /* row taps (emit/rowtaps.c) read whole input rows the wider the
       * block: 256 KiB of tables, by their elements' sizes (W6's resize
       * of f32 4096^2 to 3000^2, one thread: 17.3 ms with blocks of 2048
       * columns, 14.8 with 4096) */
      while (cb > 256 && (size_t)cb * (size_t)e->coltab_bytes > 262144)
        cb /= 2;
    }
    while (!e->n_rowtap && cb > 256 &&
           (size_t)cb * 8 * (size_t)e->n_coltab_tables > 131072)
      cb /= 2;
    fgu_buf_printf(o, "  enum { fgk_CB = %d };\n", cb);
    if (e->coltab_decl.s)
      fgu_buf_puts(o, e->coltab_decl.s);
    if (e->rowtap_decl.s)
      fgu_buf_puts(o, e->rowtap_decl.s);
    fgu_buf_puts(o, "  for (long fgk_cb = fgk_c0; fgk_cb < fgk_c1; "
                 "fgk_cb += fgk_CB) {\n"
                 "    const long fgk_ce = fgk_c1 - fgk_cb < fgk_CB ? fgk_c1 "
                 ": fgk_cb + fgk_CB;\n"
                 "    for (long fgk_c = fgk_cb; fgk_c < fgk_ce; ++fgk_c) {\n"
                 "      const int _column = (int)fgk_c;\n"
                 "      (void)_column;\n");
    fgu_buf_puts(o, e->coltab_pre_text.s);
    fgu_buf_puts(o, "    }\n");
    fge_rowtap_windows(e, o);
    c_from = "fgk_cb";
    c_to = "fgk_ce";
  } else if (e->col_block) {
    /* reads across rows: the rows inside blocks of columns
     * (emit/blocks.c) */
    fgu_buf_printf(o, "  for (long fgk_cb = fgk_c0; fgk_cb < fgk_c1; "
                   "fgk_cb += %d) {\n"
                   "    const long fgk_ce = fgk_c1 - fgk_cb < %d ? fgk_c1 "
                   ": fgk_cb + %d;\n", e->col_block, e->col_block,
                   e->col_block);
    c_from = "fgk_cb";
    c_to = "fgk_ce";
  }
  c_open_row_loop(o, k, "_rows");
  fgu_buf_puts(o, "    const int _layer = (int)(fgk_t / _rows), "
               "_row = (int)(fgk_t % _rows);\n"
               "    (void)_layer; (void)_row;\n");
  if (e->rowtap_pre.s)    /* the row's taps into tables (emit/rowtaps.c) */
    fgu_buf_printf(o, "    {\n%s    }\n", e->rowtap_pre.s);
  /* a loop over a reduced axis inside: 8 columns' chains side by side
   * (emit/jam.c) */
  const char *jam = fge_jam_columns(e) ? "    #pragma unroll_and_jam(8)\n"
                                       : "";
  if (e->interior_body.s && fge_stencil_bounds(e, o)) {
    /* a stencil: the interior columns first, then the others */
    fge_based_bounds(e, o);
    /* whole blocks of column lanes first, their loops outside
     * (emit/jam.c), then the interior's last columns one by one */
    const char *from = e->lanes_body.s ? "fgk_lj" : "fgk_lo";
    if (e->lanes_body.s)
      fgu_buf_printf(o, "    long fgk_lj = fgk_lo;\n"
                     "    for (; fgk_lj + %d <= fgk_hi; fgk_lj += %d) {\n"
                     "      const long fgk_cb = fgk_lj;\n%s    }\n",
                     FGE_LANES, FGE_LANES, e->lanes_body.s);
    fgu_buf_puts(o, jam);
    int n = e->interior_flat;
    if (n > 1)   /* over the row's elements (emit/flat.c) */
      fgu_buf_printf(o, "    for (long fgk_j = fgk_lo * %d; fgk_j < fgk_hi * "
                     "%d; ++fgk_j) {\n      const long fgk_c = fgk_j / %d;\n"
                     "%s%s    }\n", n, n, n, thread, e->interior_body.s);
    else
      fgu_buf_printf(o, "    for (long fgk_c = %s; fgk_c < fgk_hi; ++fgk_c) "
                     "{\n%s%s    }\n", from, thread, e->interior_body.s);
    fgu_buf_puts(o, "    for (long fgk_c = fgk_lo == fgk_c0 ? fgk_hi : fgk_c0;"
                 " fgk_c < fgk_c1;\n         fgk_c = fgk_c + 1 == fgk_lo ? "
                 "fgk_hi : fgk_c + 1) {\n");
  } else {
    /* the math routines (emit/math_c.c) are long dependency chains: two
     * iterations in flight hide their latency (W1 fused, 8 lanes: 20%
     * less time), where clang's cost model would interleave none; with
     * AVX-512, 16 lanes to a vector (FGK_M_THREADS lets the function
     * have 512-bit registers), where clang would prefer 8: W1 fused,
     * relaxed, one thread, through fg_program_run: 108 -> 97 ms (full
     * precision: no change there, though the kernel alone went 138 ->
     * 115) */
    if (fge_math_c_used(e))
      fgu_buf_puts(o, "#if defined(__AVX512F__)\n"
                   "    #pragma clang loop vectorize_width(16) "
                   "interleave_count(2)\n"
                   "#else\n"
                   "    #pragma clang loop interleave_count(2)\n"
                   "#endif\n");
    else
      fgu_buf_puts(o, jam);
    int n = e->interior_flat;
    if (n > 1)   /* pointwise, over the row's elements (emit/flat.c) */
      fgu_buf_printf(o, "    for (long fgk_j = %s * %d; fgk_j < %s * "
                     "%d; ++fgk_j) {\n      const long fgk_c = fgk_j / %d;\n",
                     c_from, n, c_to, n, n);
    else
      fgu_buf_printf(o, "    for (long fgk_c = %s; fgk_c < %s; ++fgk_c) "
                     "{\n", c_from, c_to);
  }
  fgu_buf_puts(o, thread);
}

/* Atomics of a grouped kernel: its threads run one at a time on one OS
 * thread and groups share no memory, so a plain read-modify-write is
 * atomic here. */
static void c_atomic(fgk_emitter *e, const fg_expr *x) {
  fgk_atomic at = x->u.atomic.op;
  const char *ty = cty(x->type);
  char name[64];
  snprintf(name, sizeof name, "fgk_%s_%s", fgk_atomic_name(at), ty);
  if (fgk_first_use(e, name)) {
    static const char *const update[FGK_AT_COUNT_] = {
      "o + a", "o - a", "a", "a < o ? a : o", "a > o ? a : o", "o & a",
      "o | a", "o ^ a", "o + 1", "o - 1", "o == a ? b : o"};
    fgu_buf_printf(&e->help, "static inline %s %s(volatile %s *p, %s a, "
                   "%s b) {\n  %s o = *p;\n  (void)a; (void)b;\n"
                   "  *p = %s;\n  return o;\n}\n", ty, name, ty, ty, ty,
                   ty, update[at]);
  }
  fgk_putf(e, "(fgk_live ? %s(", name);
  fgk_ex(e, x->u.atomic.p);
  fgk_put(e, ", ");
  if (x->u.atomic.a)
    fgk_ex_as_type(e, x->u.atomic.a, x->type);
  else
    fgk_put(e, "0");
  fgk_put(e, ", ");
  if (x->u.atomic.b)
    fgk_ex_as_type(e, x->u.atomic.b, x->type);
  else
    fgk_put(e, "0");
  fgk_putf(e, ") : (%s)0)", ty);
}

/* clang types a comparison of 8-bit vectors as a vector of plain char,
 * which char4 (of schar) is not: passing it to a helper taking char4 does
 * not compile.  Converted, element by element (-1 stays -1). */
static bool c_vcompare_open(fgk_emitter *e, fgk_type t) {
  if (fg_elem_size(t.elem) != 1)
    return false;
  fgk_put(e, "__builtin_convertvector(");
  return true;
}

static void c_vcompare_close(fgk_emitter *e, fgk_type t) {
  fgk_putf(e, ", %s)", cty(t));
}

const fgk_dialect_i fgk_dialect_c = {
  .name = "C dialect",
  .id = FGK_DIALECT_C,
  .type_name = cty,
  .splat = c_splat,
  .vconvert = c_vconvert,
  .vcompare_open = c_vcompare_open,
  .vcompare_close = c_vcompare_close,
  .convert_sat = c_convert_sat,
  .as = c_as,
  .call = c_call,
  .vec_open = c_vec_open,
  .vec_close = "})",
  .helper_prefix = "static inline ",
  .load_open = c_load_open,
  .store = c_store,
  .open_kernel = c_open_kernel,
  .close_kernel = C_CLOSE_KERNEL,
  .close_kernel_tables = C_CLOSE_KERNEL_TABLES,
  .column_tables = true,
  .atomic = c_atomic,
  .split_phases = true,
  .phase_open =
    "      for (int fgk_lt = 0; fgk_lt < fgk_LX * fgk_LY; ++fgk_lt) {\n"
    "        const int _localRow = fgk_lt / fgk_LX, "
    "_localColumn = fgk_lt % fgk_LX;\n"
    "        const int _row = _groupRow * fgk_LY + _localRow;\n"
    "        const int _column = _groupColumn * fgk_LX + _localColumn;\n"
    "        const int fgk_live = _row < _rows && _column < _columns;\n"
    "        const long fgk_i = ((long)_layer * _rows + (_row < _rows ? _row "
    ": _rows - 1)) * _columns + (_column < _columns ? _column : _columns - "
    "1);\n"
    "        (void)_localRow; (void)_localColumn; (void)fgk_live; "
    "(void)fgk_i;\n",
  .phase_close = "      }\n",
  .local_qualifier = "",
  .locals_at_kernel_scope = false,
  .close_reduce = "  }\n}\n",
  .scalarize = true,
  .split_stencils = true,
  .based_columns = true,
  .flat_interior = true,
  .word_taps = true,
  .reduce_block_pragma =
    "      #pragma clang loop vectorize(disable) interleave(disable)\n",
  .reduce_vector_fold = true,
  .jam_lanes = true,
};
