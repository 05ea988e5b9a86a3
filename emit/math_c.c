/* emit/math_c.c - vectorizable single-precision math for the C dialect
 * and for OpenCL C on a CPU device (fgk_dialect_cl_cpu): cbrt, exp, exp2,
 * exp10, log, log2, log10, pow (and pown, powr) on f32, as text the dialect puts
 * among a kernel's helpers the first time the kernel calls one of them,
 * after a few lines that say how the dialect spells bit casts and the
 * built-ins the routines use.  glibc's scalar calls (and cbrtf, which clang
 * maps to no vector library at all) keep clang's loop vectorizer from
 * widening a thread loop; these routines are branch-free and table-free,
 * and work in float only (16 lanes to a 512-bit register, where double
 * gets 8), so it can, at full width.  Full precision carries the
 * logarithm and the exponent of pow and exp in two floats (an exact
 * product by FMA, or by Dekker's split without it) and handles the special
 * values of C99 Annex F / OpenCL C (within 2 ulp; OpenCL allows 2 for
 * cbrt, 3 for exp and log, 16 for pow); relaxed precision (the kernel is
 * compiled with -ffast-math and FGK_FAST_MATH, which select it) does less
 * of that, within OpenCL's relaxed-math bounds, stated in the text.
 * Double arguments keep the C library's calls.  tests/check_math.c holds
 * both grades to their bounds over the whole float range. */
#include "math_c.h"

#include <math.h>
#include <string.h>

/* What the routines below need from their dialect: bit casts, the
 * scalar built-ins they call, infinity and NaN, how they are declared,
 * whether FMA is fast (FGK_M_HAVE_FMA) and how compensated steps keep
 * their order (FGK_M_EXACT). */
static const char math_c_dialect[] =
  "#define FGK_M_EXACT _Pragma(\"clang fp reassociate(off)\") \\\n"
  "  _Pragma(\"clang fp contract(off)\")\n"
  "#define FGK_M_INLINE static inline\n"
  "/* 512-bit vectors, where the machine has them, for the thread loops\n"
  " * that call these routines (emit/dialect_c.c); those loops and the\n"
  " * kernel's entry (FGK_M_ENTRY) realign the stack, so that their vector\n"
  " * spills are aligned: a 16-byte aligned stack has them straddle cache\n"
  " * lines or not by where the calling thread's stack happened to start */\n"
  "#if defined(__x86_64__) || defined(__i386__)\n"
  "#define FGK_M_ENTRY __attribute__((force_align_arg_pointer))\n"
  "#else\n"
  "#define FGK_M_ENTRY\n"
  "#endif\n"
  "#if defined(__AVX512F__)\n"
  "#define FGK_M_THREADS FGK_M_ENTRY __attribute__((min_vector_width(512)))\n"
  "#else\n"
  "#define FGK_M_THREADS FGK_M_ENTRY\n"
  "#endif\n"
  "static inline uint fgk_m_fb(float x) {\n"
  "  uint u; memcpy(&u, &x, 4); return u; }\n"
  "static inline float fgk_m_bf(uint u) {\n"
  "  float x; memcpy(&x, &u, 4); return x; }\n"
  "#if defined(__FMA__) || defined(__ARM_FEATURE_FMA)\n"
  "#define FGK_M_HAVE_FMA 1\n"
  "#endif\n"
  "#define fgk_m_fma(a, b, c) __builtin_fmaf(a, b, c)\n"
  "#define fgk_m_fabs(x) __builtin_fabsf(x)\n"
  "#define fgk_m_rint(x) __builtin_rintf(x)\n"
  "#define fgk_m_copysign(x, y) __builtin_copysignf(x, y)\n"
  "#define fgk_m_signbit(x) __builtin_signbit(x)\n"
  "#define FGK_M_INF __builtin_inff()\n"
  "#define FGK_M_NAN __builtin_nanf(\"\")\n";

/* The same in OpenCL C, for a CPU device (PoCL's): always inlined, so
 * that the compiler's loop vectorizer widens a work-item's column loop
 * that calls them (emit/dialect_cl.c); contraction is off around the
 * helpers (cl_open_kernel), so FGK_M_EXACT is empty.  OpenCL C names
 * no fast-FMA test PoCL answers, so the backend says (FGK_FAST_FMA). */
static const char math_cl_dialect[] =
  "#define FGK_M_EXACT\n"
  "#define FGK_M_INLINE inline __attribute__((always_inline))\n"
  "FGK_M_INLINE uint fgk_m_fb(float x) { return as_uint(x); }\n"
  "FGK_M_INLINE float fgk_m_bf(uint u) { return as_float(u); }\n"
  "#if defined(FP_FAST_FMAF) || defined(FGK_FAST_FMA)\n"
  "#define FGK_M_HAVE_FMA 1\n"
  "#endif\n"
  "#define fgk_m_fma(a, b, c) fma(a, b, c)\n"
  "#define fgk_m_fabs(x) fabs(x)\n"
  "#define fgk_m_rint(x) rint(x)\n"
  "#define fgk_m_copysign(x, y) copysign(x, y)\n"
  "#define fgk_m_signbit(x) signbit(x)\n"
  "#define FGK_M_INF INFINITY\n"
  "#define FGK_M_NAN NAN\n";

static const char math_text[] =
  "/* Vectorizable float math: cbrt, exp, exp2, exp10, log, log2, log10, pow.\n"
  " * Branch-free and table-free, in float only, so clang's loop vectorizer\n"
  " * widens loops that call them.  Full precision (no FGK_FAST_MATH) handles\n"
  " * every special value as C99 Annex F and OpenCL C do; the ulp bounds\n"
  " * below are OpenCL C's, and tests/check_math.c holds the routines to them\n"
  " * over the whole float range.  Compensated steps (a value carried as a\n"
  " * float and the float of its error) keep their order under -ffast-math:\n"
  " * reassociation and contraction are off inside the routines. */\n"
  "/* a b + c, fused where the machine has FMA (one rounding: the routines'\n"
  " * bounds hold either way; -ffp-contract=off keeps user code unfused) */\n"
  "#ifdef FGK_M_HAVE_FMA\n"
  "#define fgk_m_fmaf(a, b, c) fgk_m_fma(a, b, c)\n"
  "#else\n"
  "#define fgk_m_fmaf(a, b, c) ((a) * (b) + (c))\n"
  "#endif\n"
  "/* a b = result + *lo exactly: by FMA, or by Dekker's split without it\n"
  " * (|a|, |b| below 2^100, the product not below 2^-100) */\n"
  "FGK_M_INLINE float fgk_m_mul2(float a, float b, float *lo) {\n"
  "  FGK_M_EXACT\n"
  "  float p = a * b;\n"
  "#ifdef FGK_M_HAVE_FMA\n"
  "  *lo = fgk_m_fma(a, b, -p);\n"
  "#else\n"
  "  float ca = 4097.0f * a, ah = ca - (ca - a), al = a - ah;\n"
  "  float cb = 4097.0f * b, bh = cb - (cb - b), bl = b - bh;\n"
  "  *lo = ((ah * bh - p) + ah * bl + al * bh) + al * bl;\n"
  "#endif\n"
  "  return p;\n"
  "}\n"
  "/* log2(a) = result + *lo (relative error below 2^-28) for a positive\n"
  " * finite float a (subnormals too): a = 2^e m, m in [sqrt(1/2), sqrt(2)),\n"
  " * f = m - 1 (exact), s = f / (2 + f) = sh + sl in two floats, log2 m =\n"
  " * C atanh(s) = C s + C s z P(z), C = 2 log2(e) = Ch + Cl in two floats,\n"
  " * z = s^2 <= 0.0295, C P through z^5 (truncation below 2^-34): C s in\n"
  " * two floats, C s z P(z) (below 1% of it) in one, plus e. */\n"
  "FGK_M_INLINE float fgk_m_log2x(float a, float *lo) {\n"
  "  FGK_M_EXACT\n"
  "  int sub = a < 1.17549435e-38f;\n"
  "  a = sub ? a * 16777216.0f : a;\n"
  "  uint b = fgk_m_fb(a), d = b - 0x3f3504f3u;\n"
  "  int e = (int)d >> 23;\n"
  "  float m = fgk_m_bf(b - ((uint)e << 23));\n"
  "  float f = m - 1.0f, rc = 1.0f / (2.0f + f);\n"
  "  float sh = f * rc, pl, ph = fgk_m_mul2(sh, f, &pl);\n"
  "  float sl = (((f - 2.0f * sh) - ph) - pl) * rc;   /* f - 2sh is exact */\n"
  "  /* C sh exactly as qh + ql, then ql gathers the rest: one float each */\n"
  "  float z = sh * fgk_m_fmaf(2.0f, sl, sh), z2 = z * z;   /* Estrin */\n"
  "  float p = fgk_m_fmaf(z, 0.221953079f, 0.26230818f);      /* C / 13 */\n"
  "  p = fgk_m_fmaf(z2, p, fgk_m_fmaf(z, 0.3205989f, 0.412198573f));\n"
  "  p = fgk_m_fmaf(z2, p, fgk_m_fmaf(z, 0.577078044f, 0.961796701f));\n"
  "  float ql, qh = fgk_m_mul2(sh, 2.88539004f, &ql);\n"
  "  ql = fgk_m_fmaf(sh * z, p, fgk_m_fmaf(sh, 3.85192607e-8f,\n"
  "                                         fgk_m_fmaf(sl, 2.88539004f, ql)));\n"
  "  float qt = qh + ql;                   /* |ql| < |qh| / 64 */\n"
  "  ql -= qt - qh;\n"
  "  qh = qt;\n"
  "  float k = (float)(e - (sub ? 24 : 0));\n"
  "  float h = k + qh;                     /* |k| >= 1 > |qh| or k = 0 */\n"
  "  *lo = (qh - (h - k)) + ql;\n"
  "  return h;\n"
  "}\n"
  "/* 2^(h + l) for |l| <= 2^-16 |h|: h = n + r, |r| <= 1/2, 2^r = 1 + r ln2\n"
  " * + r^2 Q(r), Q by the Taylor series through degree 8 (error below\n"
  " * 2^-31), with r ln2 = uh + ul in two floats (ln2 in two floats too), so\n"
  " * that 1 + uh is summed exactly and the sum of everything rounds once\n"
  " * (below 0.6 ulp); 2^l as 1 + l ln2; then 2^n in two exact steps; h\n"
  " * beyond +-192 saturates to +inf or +0, NaN gives NaN. */\n"
  "FGK_M_INLINE float fgk_m_exp2x(float h, float l) {\n"
  "  FGK_M_EXACT\n"
  "  l = fgk_m_fabs(h) < 192.0f ? l : 0.0f;\n"
  "  h = h > 192.0f ? 192.0f : h;\n"
  "  h = h < -192.0f ? -192.0f : h;\n"
  "  float n = fgk_m_rint(h), r = h - n;\n"
  "  float r2 = r * r, r4 = r2 * r2;\n"
  "  float q = fgk_m_fmaf(\n"
  "      r4, fgk_m_fmaf(r2, 1.32154867e-6f,\n"
  "                     fgk_m_fmaf(r, 1.52527338e-5f, 1.54035304e-4f)),\n"
  "      fgk_m_fmaf(r2, fgk_m_fmaf(r, 1.33335581e-3f, 9.61812911e-3f),\n"
  "                 fgk_m_fmaf(r, 5.55041087e-2f, 0.240226507f)));\n"
  "  float ul, uh = fgk_m_mul2(r, 0.693147182f, &ul);\n"
  "  float ll = l * 0.693147182f;\n"
  "  float lo = fgk_m_fmaf(r2, q, fgk_m_fmaf(r, -1.90465421e-9f, ul));\n"
  "  lo += fgk_m_fmaf(ll, fgk_m_fmaf(r2, q, uh), ll);      /* 2^r l ln2 */\n"
  "  float sh = 1.0f + uh;\n"
  "  float p = sh + (((1.0f - sh) + uh) + lo);      /* |uh| < 1: exact */\n"
  "  int i = (int)n, j = i >> 1;   /* half into p's exponent, exact, then */\n"
  "  float s = fgk_m_bf(fgk_m_fb(p) + ((uint)j << 23));   /* one rounding */\n"
  "  return s * fgk_m_bf((uint)(i - j + 127) << 23);\n"
  "}\n"
  "/* |x|^(1/3) for a finite float x: a^(-1/3) from a guess on the bits\n"
  " * (within 3.5%) and one step of the series r (1 - u)^(-1/3) = r (1 + u/3\n"
  " * + 2u^2/9 + 14u^3/81 + ...), u = 1 - a r^3, in float (2^-15.5),\n"
  " * y = a r^2, then one Newton step for y^3 = a with y^3 - a computed from\n"
  " * an exact square (error below 0.6 ulp).  |x| below 2^-60 is scaled by\n"
  " * 2^72 first, so no step underflows (nor flushes to zero). */\n"
  "FGK_M_INLINE float fgk_m_cbrtx(float x) {\n"
  "  FGK_M_EXACT\n"
  "  float a = fgk_m_fabs(x);\n"
  "  int sub = a < 8.67361738e-19f;\n"
  "  a = sub ? a * 4.72236648e21f : a;\n"
  "  float r = fgk_m_bf(0x54a2fa8cu - fgk_m_fb(a) / 3);\n"
  "  float u = fgk_m_fmaf(-(a * r), r * r, 1.0f);   /* |u| < 0.11 */\n"
  "  float q = fgk_m_fmaf(u, fgk_m_fmaf(u, 0.172839507f, 0.222222224f),\n"
  "                       0.333333343f);\n"
  "  r = fgk_m_fmaf(r * u, q, r);\n"
  "  float y = a * r * r;\n"
  "  float yl, yh = fgk_m_mul2(y, y, &yl);\n"
  "#ifdef FGK_M_HAVE_FMA\n"
  "  float d = fgk_m_fma(yh, y, -a) + yl * y;\n"
  "#else\n"
  "  float cl, ch = fgk_m_mul2(yh, y, &cl);\n"
  "  float d = (ch - a) + (cl + yl * y);\n"
  "#endif\n"
  "  y = fgk_m_fmaf(-d, r * r * (1.0f / 3), y);\n"
  "  return sub ? y * 5.96046448e-8f : y;\n"
  "}\n"
  "/* 2^(n + r) for an integer n and |r| <= 1/2 (below 1.5 ulp: a degree 6\n"
  " * minimax polynomial); n outside [-152, 129] saturates to +0 or +inf.\n"
  " * Full precision's pow uses it too (its bound, 16 ulp, leaves room). */\n"
  "FGK_M_INLINE float fgk_mr_exp2(float n, float r) {\n"
  "  float r2 = r * r, r4 = r2 * r2;   /* Estrin's scheme: short chains */\n"
  "  float hi = fgk_m_fmaf(r, 1.5252733804e-5f, 1.5403530393e-4f);\n"
  "  hi = fgk_m_fmaf(r2, hi,\n"
  "                  fgk_m_fmaf(r, 1.3333558146e-3f, 9.6181291076e-3f));\n"
  "  float p = fgk_m_fmaf(r, 5.5504108665e-2f, 0.24022650696f);\n"
  "  p = fgk_m_fmaf(r2, p, fgk_m_fmaf(r, 0.69314718056f, 1.0f));\n"
  "  p = fgk_m_fmaf(r4, hi, p);\n"
  "  n = n < -152.0f ? -152.0f : n > 129.0f ? 129.0f : n;\n"
  "  int i = (int)n, h = i >> 1;   /* exact half into p's exponent, then */\n"
  "  float q = fgk_m_bf(fgk_m_fb(p) + ((uint)h << 23));   /* one rounding */\n"
  "  return q * fgk_m_bf((uint)(i - h + 127) << 23);\n"
  "}\n"
  "/* OpenCL's powr(x, y) given r = pow(|x|, y): NaN for x < 0, 0^0,\n"
  " * inf^0, 1^inf and NaN arguments, else r (fgk_math_powrf; RenderScript's\n"
  " * powr, rs/compat.c, with its own pow). */\n"
  "FGK_M_INLINE float fgk_m_powr(float x, float y, float r) {\n"
  "  return x != x || y != y || x < 0 || (x == 0 && y == 0) ||\n"
  "         (x == FGK_M_INF && y == 0) || (x == 1 && fgk_m_fabs(y) == FGK_M_INF)\n"
  "             ? FGK_M_NAN : r;\n"
  "}\n"
  "#if !defined(__FAST_MATH__) && !defined(FGK_FAST_MATH)\n"
  "/* cbrt: <= 1 ulp (OpenCL: 2); +-0, +-inf and NaN return themselves. */\n"
  "FGK_M_INLINE float fgk_math_cbrtf(float x) {\n"
  "  float y = fgk_m_copysign(fgk_m_cbrtx(x), x);\n"
  "  return x == 0 || !(fgk_m_fabs(x) <= 3.4028235e38f) ? x + x : y;\n"
  "}\n"
  "/* exp, exp2, exp10: <= 0.8 ulp (OpenCL: 3), x c in two floats; overflow\n"
  " * to +inf, underflow through the subnormals to +0, NaN to NaN. */\n"
  "FGK_M_INLINE float fgk_math_exp2f(float x) {\n"
  "  float y = fgk_m_exp2x(x, 0.0f);\n"
  "  return x != x ? x + x : y;\n"
  "}\n"
  "FGK_M_INLINE float fgk_math_expf(float x) {\n"
  "  FGK_M_EXACT\n"
  "  float l, h = fgk_m_mul2(x, 1.44269502f, &l);\n"
  "  float y = fgk_m_exp2x(h, fgk_m_fmaf(x, 1.92596303e-8f, l));\n"
  "  return x != x ? x + x : y;\n"
  "}\n"
  "FGK_M_INLINE float fgk_math_exp10f(float x) {\n"
  "  FGK_M_EXACT\n"
  "  float l, h = fgk_m_mul2(x, 3.32192802f, &l);\n"
  "  float y = fgk_m_exp2x(h, fgk_m_fmaf(x, 7.05953696e-8f, l));\n"
  "  return x != x ? x + x : y;\n"
  "}\n"
  "/* log, log2, log10: <= 1 ulp (OpenCL: 3), log2 x times c = ch + cl in\n"
  " * two floats; log(+-0) = -inf, log(x < 0) = NaN, log(+inf) = +inf. */\n"
  "FGK_M_INLINE float fgk_m_logc(float x, float ch, float cl) {\n"
  "  FGK_M_EXACT\n"
  "  float l, h = fgk_m_log2x(x, &l);\n"
  "  float pl, ph = fgk_m_mul2(h, ch, &pl);\n"
  "  float y = ph + (pl + fgk_m_fmaf(h, cl, l * ch));\n"
  "  y = x == 0 ? -FGK_M_INF : y;\n"
  "  y = x < 0 ? FGK_M_NAN : y;\n"
  "  return !(x < FGK_M_INF) ? x + x : y;\n"
  "}\n"
  "FGK_M_INLINE float fgk_math_logf(float x) {\n"
  "  return fgk_m_logc(x, 0.693147182f, -1.90465421e-9f);\n"
  "}\n"
  "FGK_M_INLINE float fgk_math_log2f(float x) {\n"
  "  return fgk_m_logc(x, 1.0f, 0.0f);\n"
  "}\n"
  "FGK_M_INLINE float fgk_math_log10f(float x) {\n"
  "  return fgk_m_logc(x, 0.30103001f, -1.43209888e-8f);\n"
  "}\n"
  "/* pow: <= 2.5 ulp where the result is a normal float (OpenCL: 16), as\n"
  " * 2^(y log2 |x|) with log2 |x| and the product in two floats, their sum's\n"
  " * fraction rounded to one float for fgk_mr_exp2, with C99's\n"
  " * and OpenCL's special cases: pow(x, +-0) = pow(1, y) = 1 even for NaN,\n"
  " * pow(-1, +-inf) = 1, odd integer y keeps the sign of x (also of -0 and\n"
  " * -inf), x < 0 with finite non-integer y is NaN, zeros and infinities by\n"
  " * the sign of y and whether |x| < 1.  y is clamped to +-2^32 for the\n"
  " * product (the result saturates the same way beyond). */\n"
  "FGK_M_INLINE float fgk_math_powf(float x, float y) {\n"
  "  FGK_M_EXACT\n"
  "  float ax = fgk_m_fabs(x);\n"
  "  float ll, lh = fgk_m_log2x(ax, &ll);\n"
  "  lh = ax == 0 ? -FGK_M_INF : lh;\n"
  "  lh = ax == FGK_M_INF ? FGK_M_INF : lh;\n"
  "  float yc = y > 4294967296.0f ? 4294967296.0f : y;\n"
  "  yc = yc < -4294967296.0f ? -4294967296.0f : yc;\n"
  "  float tl, th = fgk_m_mul2(yc, lh, &tl);\n"
  "  tl = fgk_m_fabs(th) < 192.0f ? fgk_m_fmaf(yc, ll, tl) : 0.0f;\n"
  "  th = th > 192.0f ? 192.0f : th;\n"
  "  th = th < -192.0f ? -192.0f : th;\n"
  "  float n = fgk_m_rint(th);\n"
  "  float r = fgk_mr_exp2(n, (th - n) + tl);   /* |tl| <= 2^-16 |th| */\n"
  "  r = th != th ? 1.0f : r;                 /* 0 * inf: |x| = 1 or y = 0 */\n"
  "  float ay = fgk_m_fabs(y);\n"
  "  int yint = (y == fgk_m_rint(y)) & (ay < FGK_M_INF);\n"
  "  int yodd = yint & (ay < 16777216.0f) &\n"
  "             ((int)(ay < 16777216.0f ? y : 0.0f) & 1);\n"
  "  r = fgk_m_signbit(x) && yodd ? -r : r;\n"
  "  r = x < 0 && ax < FGK_M_INF && !yint && ay < FGK_M_INF\n"
  "          ? FGK_M_NAN : r;\n"
  "  r = x != x || y != y ? x + y : r;\n"
  "  return y == 0 || x == 1 ? 1.0f : r;\n"
  "}\n"
  "/* pow(x, y) for a y the kernel fixes, |y| <= 16 (fge_math_c_template\n"
  " * chooses it; the compiler folds what depends on y alone): <= 5 ulp\n"
  " * where the result is a normal float (OpenCL: 16), the special values as\n"
  " * fgk_math_powf; y = 2, 1 and -1 as x x, x and 1 / x (correctly\n"
  " * rounded, the same special values).  With |y| bounded, log |x| needs\n"
  " * no second float but\n"
  " * for its exponent: |x| = 2^k m, m in [sqrt(1/2), sqrt(2)), f = m - 1\n"
  " * (exact), ln m = f + c with c = s (hf + R) - hf, s = f / (2 + f),\n"
  " * hf = f^2 / 2, R = 2 atanh(s) / s - 2 by its series through s^8\n"
  " * (truncation below 2^-28 of ln m), so the rounding errors fall on c\n"
  " * (|c| < 0.06) alone; y k and (y log2 e) f are exact in two floats each,\n"
  " * and the exponent of two y log2 |x| = y k + y log2(e) (f + c) is summed\n"
  " * to an integer n and a remainder off by a few 2^-25 for fgk_mr_exp2\n"
  " * (3.4 ulp measured with FMA, 4.0 without, tests/check_math.c). */\n"
  "FGK_M_INLINE float fgk_math_powkf(float x, float y) {\n"
  "  FGK_M_EXACT\n"
  "  float a = fgk_m_fabs(x);\n"
  "  int sub = a < 1.17549435e-38f;\n"
  "  a = sub ? a * 16777216.0f : a;\n"
  "  uint b = fgk_m_fb(a), d = b - 0x3f3504f3u;\n"
  "  int e = (int)d >> 23;\n"
  "  float m = fgk_m_bf(b - ((uint)e << 23));\n"
  "  float k = (float)(e - (sub ? 24 : 0));\n"
  "  float f = m - 1.0f, s = f / (2.0f + f), z = s * s;\n"
  "  float q = fgk_m_fmaf(z, 2.0f / 9, 2.0f / 7);\n"
  "  q = fgk_m_fmaf(q, z, 2.0f / 5);\n"
  "  q = fgk_m_fmaf(q, z, 2.0f / 3) * z;\n"
  "  float hf = 0.5f * f * f;\n"
  "  float c = fgk_m_fmaf(s, hf + q, -hf);\n"
  "  float yl, yh = fgk_m_mul2(y, 1.44269502f, &yl);   /* y log2 e */\n"
  "  yl = fgk_m_fmaf(y, 1.92596303e-8f, yl);\n"
  "  float al, ah = fgk_m_mul2(y, k, &al);\n"
  "  float bl, bh = fgk_m_mul2(yh, f, &bl);\n"
  "  float lo = fgk_m_fmaf(yh, c, fgk_m_fmaf(yl, f, al + bl));\n"
  "  float n = fgk_m_rint(ah + (bh + lo));\n"
  "  float r = fgk_mr_exp2(n, ((ah - n) + bh) + lo);   /* ah - n: exact */\n"
  "  int yint = y == fgk_m_rint(y), yodd = yint & ((int)y & 1);\n"
  "  r = a == 0 ? (y > 0 ? 0.0f : FGK_M_INF) : r;\n"
  "  r = a == FGK_M_INF ? (y > 0 ? FGK_M_INF : 0.0f) : r;\n"
  "  r = fgk_m_signbit(x) && yodd ? -r : r;\n"
  "  r = x < 0 && a < FGK_M_INF && !yint ? FGK_M_NAN : r;\n"
  "  r = x != x ? x + x : r;\n"
  "  r = y == 2 ? x * x : y == 1 ? x : y == -1 ? 1.0f / x : r;   /* exact */\n"
  "  return y == 0 ? 1.0f : r;\n"
  "}\n"
  "#else\n"
  "/* Relaxed precision (-ffast-math without finite-math-only; OpenCL's\n"
  " * -cl-unsafe-math-optimizations): finite arguments and results only\n"
  " * (infinities and NaN are undefined there), subnormals may flush to zero,\n"
  " * fewer compensated steps.  Bounds met, from OpenCL C's relaxed-math\n"
  " * table: exp, exp2, exp10 <= 3 ulp (OpenCL: 3 + floor(|2x|)); log, log2,\n"
  " * log10 <= 3 ulp, absolute error <= 2^-21 for x in [0.5, 2]; pow <= 8192\n"
  " * ulp where the result is a normal float (OpenCL: derived as\n"
  " * exp2(y log2 x)); cbrt is full precision's. */\n"
  "/* 2^(x c) with x c = h + l in two floats, c = ch + cl. */\n"
  "FGK_M_INLINE float fgk_mr_exp2c(float x, float ch, float cl) {\n"
  "  FGK_M_EXACT\n"
  "  float l, h = fgk_m_mul2(x, ch, &l), n = fgk_m_rint(h);\n"
  "  return fgk_mr_exp2(n, (h - n) + fgk_m_fmaf(x, cl, l));\n"
  "}\n"
  "/* log(a) for a > 0 as k ln2 + result: a = 2^k m, m in [sqrt(1/2),\n"
  " * sqrt(2)), log m = 2 atanh(s) by its series through s^9. */\n"
  "FGK_M_INLINE float fgk_mr_logm(float a, float *k) {\n"
  "  int sub = a < 1.17549435e-38f;\n"
  "  a = sub ? a * 16777216.0f : a;\n"
  "  uint b = fgk_m_fb(a), d = b - 0x3f3504f3u;\n"
  "  int e = (int)(d >> 23) - (int)((d >> 31) << 9);  /* d >> 23, signed */\n"
  "  float m = fgk_m_bf(b - ((uint)e << 23));\n"
  "  float f = m - 1.0f, s = f / (2.0f + f), z = s * s;\n"
  "  float p = 1.0f / 9;\n"
  "  p = fgk_m_fmaf(p, z, 1.0f / 7);\n"
  "  p = fgk_m_fmaf(p, z, 1.0f / 5);\n"
  "  p = fgk_m_fmaf(p, z, 1.0f / 3);\n"
  "  *k = (float)(e - (sub ? 24 : 0));\n"
  "  return 2.0f * s + 2.0f * s * (z * p);\n"
  "}\n"
  "FGK_M_INLINE float fgk_math_cbrtf(float x) {\n"
  "  float y = fgk_m_copysign(fgk_m_cbrtx(x), x);\n"
  "  return x == 0 ? x : y;\n"
  "}\n"
  "FGK_M_INLINE float fgk_math_exp2f(float x) {\n"
  "  float n = fgk_m_rint(x);\n"
  "  return fgk_mr_exp2(n, x - n);\n"
  "}\n"
  "FGK_M_INLINE float fgk_math_expf(float x) {\n"
  "  return fgk_mr_exp2c(x, 1.44269502f, 1.92596303e-8f);\n"
  "}\n"
  "FGK_M_INLINE float fgk_math_exp10f(float x) {\n"
  "  return fgk_mr_exp2c(x, 3.32192802f, 7.05953696e-8f);\n"
  "}\n"
  "/* k c_hi exact (c_hi has 12 bits, |k| < 200), then the rest. */\n"
  "FGK_M_INLINE float fgk_math_log2f(float x) {\n"
  "  float k, l = fgk_mr_logm(x, &k);\n"
  "  return k + l * 1.44269504089f;\n"
  "}\n"
  "FGK_M_INLINE float fgk_math_logf(float x) {\n"
  "  float k, l = fgk_mr_logm(x, &k);\n"
  "  return k * 0.693115234375f + (k * 3.19461833e-05f + l);\n"
  "}\n"
  "FGK_M_INLINE float fgk_math_log10f(float x) {\n"
  "  float k, l = fgk_mr_logm(x, &k);\n"
  "  return k * 0.301025390625f + (k * 4.60503907e-06f + l * 0.434294482f);\n"
  "}\n"
  "/* pow for x > 0, and x < 0 with an integer y (sign by y's parity); 1\n"
  " * for y = 0, 0 for x = 0 and y > 0.  log2 |x| = k + log m log2(e) in two\n"
  " * floats (k - lh is exact), the product by y in two floats. */\n"
  "FGK_M_INLINE float fgk_math_powf(float x, float y) {\n"
  "  FGK_M_EXACT\n"
  "  float ax = fgk_m_fabs(x), k, l = fgk_mr_logm(ax, &k);\n"
  "  float lh = fgk_m_fmaf(l, 1.44269502f, k);\n"
  "  float ll = fgk_m_fmaf(l, 1.44269502f, k - lh);\n"
  "  float tl, th = fgk_m_mul2(y, lh, &tl), n = fgk_m_rint(th);\n"
  "  float r = fgk_mr_exp2(n, (th - n) + fgk_m_fmaf(y, ll, tl));\n"
  "  float ay = fgk_m_fabs(y);\n"
  "  int yodd = (ay < 16777216.0f) &\n"
  "             ((int)(ay < 16777216.0f ? y : 0.0f) & 1);\n"
  "  r = x < 0 && yodd ? -r : r;\n"
  "  r = x == 0 ? (y > 0 ? 0.0f : FGK_M_INF) : r;\n"
  "  return y == 0 ? 1.0f : r;\n"
  "}\n"
  "FGK_M_INLINE float fgk_math_powkf(float x, float y) {\n"
  "  return fgk_math_powf(x, y);\n"
  "}\n"
  "#endif\n"
  "FGK_M_INLINE float fgk_math_powrf(float x, float y) {\n"
  "  return fgk_m_powr(x, y, fgk_math_powf(fgk_m_fabs(x), y));\n"
  "}\n";

const char *fge_math_c_spelling(fgk_builtin fn, fg_elem el) {
  const char *t;
  if (el != FG_F32)
    return NULL;
  switch (fn) {
  case FGK_FN_cbrt: t = "fgk_math_cbrtf(%0)"; break;
  case FGK_FN_exp: t = "fgk_math_expf(%0)"; break;
  case FGK_FN_exp2: t = "fgk_math_exp2f(%0)"; break;
  case FGK_FN_exp10: t = "fgk_math_exp10f(%0)"; break;
  case FGK_FN_log: t = "fgk_math_logf(%0)"; break;
  case FGK_FN_log2: t = "fgk_math_log2f(%0)"; break;
  case FGK_FN_log10: t = "fgk_math_log10f(%0)"; break;
  case FGK_FN_pow: t = "fgk_math_powf(%0, %1)"; break;
  case FGK_FN_powr: t = "fgk_math_powrf(%0, %1)"; break;
  /* pown(x, n) is powf(x, (float)n), as the table's template has it */
  case FGK_FN_pown: t = "fgk_math_powf(%0, (float)%1)"; break;
  default: return NULL;
  }
  return t;
}

/* Whether x is built of constants alone (f32 or integer; negation, +, -,
 * * and / folded as the kernel's float arithmetic folds them) and *v its
 * value. */
static bool const_value(const fg_expr *x, float *v) {
  float a, b;
  switch (x->kind) {
  case FGK_E_CONST:
    if (x->type.width != 1 || x->type.elem == FG_F64)
      return false;
    *v = x->type.elem == FG_F32   ? (float)x->u.k.f
         : fgk_is_int(x->type.elem) && !fgk_is_signed(x->type.elem)
             ? (float)x->u.k.u
             : (float)x->u.k.i;
    return fgk_is_float(x->type.elem) || fgk_is_int(x->type.elem);
  case FGK_E_CONVERT:
    return x->type.elem == FG_F32 && const_value(x->u.conv.a, v);
  case FGK_E_UNARY:
    if (x->u.bin.op != FGK_NEG || x->type.elem != FG_F32 ||
        !const_value(x->u.bin.a, &a))
      return false;
    *v = -a;
    return true;
  case FGK_E_BINARY:
    if (x->type.elem != FG_F32 || !const_value(x->u.bin.a, &a) ||
        !const_value(x->u.bin.b, &b))
      return false;
    switch (x->u.bin.op) {
    case FGK_ADD: *v = a + b; return true;
    case FGK_SUB: *v = a - b; return true;
    case FGK_MUL: *v = a * b; return true;
    case FGK_DIV: *v = a / b; return true;
    default: return false;
    }
  default:
    return false;
  }
}

bool fge_math_c_const_exponent(const fg_expr *call) {
  if (call->kind != FGK_E_CALL || call->u.call.n != 2 ||
      (call->u.call.fn != FGK_FN_pow && call->u.call.fn != FGK_FN_pown) ||
      call->u.call.arg[0]->type.elem != FG_F32)
    return false;
  const fg_expr *y = call->u.call.arg[1];
  int n = y->kind == FGK_E_VECTOR ? y->u.vec.n : 1;
  for (int i = 0; i < n; i++) {
    float v;
    if (!const_value(y->kind == FGK_E_VECTOR ? y->u.vec.arg[i] : y, &v) ||
        !(fabsf(v) <= 16.0f))
      return false;
  }
  return true;
}

/* The routines' text, once per kernel (fgk_first_use "fgk_math_text"). */
static void add_text(fgk_emitter *e) {
  if (fgk_first_use(e, "fgk_math_text")) {
    fgu_buf_puts(&e->help, e->d->id == FGK_DIALECT_CL ? math_cl_dialect
                                                     : math_c_dialect);
    fgu_buf_puts(&e->help, math_text);
  }
}

const char *fge_math_c_template(fgk_emitter *e, const fg_expr *call) {
  fgk_builtin fn = call->u.call.fn;
  const char *t = fge_math_c_spelling(fn, call->u.call.arg[0]->type.elem);
  if (t && fge_math_c_const_exponent(call))
    t = fn == FGK_FN_pow ? "fgk_math_powkf(%0, %1)"
                         : "fgk_math_powkf(%0, (float)%1)";
  if (t) {
    add_text(e);
    fgk_first_use(e, "fgk_math");   /* a call: wide thread loops */
  }
  return t;
}

void fge_math_c_require(fgk_emitter *e) {
  if (e->d->id == FGK_DIALECT_C)
    add_text(e);
}

void fge_math_c_text(fgu_buf *b) {
  fgu_buf_puts(b, math_c_dialect);
  fgu_buf_puts(b, math_text);
}

bool fge_math_c_used(const fgk_emitter *e) {
  /* fgk_first_use records "fgk_math" in e->names, one name a line */
  for (const char *s = e->names.s; s && *s;) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    if (len == 8 && !memcmp(s, "fgk_math", 8))
      return true;
    s += len + (nl ? 1 : 0);
  }
  return false;
}
