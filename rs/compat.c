/* rs/compat.c - the RenderScript runtime as each dialect sees it: the
 * RS scalar and vector type names, rs_allocation and rs_kernel_context,
 * rsUnpackColor8888 / rsPackColorTo8888, rsGetDimX/Y/Z,
 * rsAllocationGetDimX/Y/Z and rsGetElementAt_<type>.  OpenCL C has the
 * math functions, dot, clamp and convert_* itself; the C dialect gets
 * them here as clang overloadable functions (component-wise over
 * ext_vector types), under fgk_rs_ names that the script's text reaches
 * through function-like macros defined only around it (rs-kernel/emit_hooks.c), so
 * they never clash with <math.h> in the rest of the kernel.  Also which
 * runtime functions kernels and host code may call (fgr_runtime_has,
 * fgr_host_runtime_has), which the scanner asks. */
#include "rs_impl.h"
#include <string.h>

/* Functions the C dialect renames around a script's text. */
#define FGR_OBJECT_HANDLES \
  "typedef struct { long fgk_h; } rs_element;\n" \
  "typedef struct { long fgk_h; } rs_type;\n" \
  "typedef struct { long fgk_h; } rs_script;\n" \
  "typedef struct { long fgk_h; } rs_mesh;\n" \
  "typedef struct { long fgk_h; } rs_font;\n" \
  "typedef struct { long fgk_h; } rs_path;\n" \
  "typedef struct { long fgk_h; } rs_program_fragment;\n" \
  "typedef struct { long fgk_h; } rs_program_vertex;\n" \
  "typedef struct { long fgk_h; } rs_program_raster;\n" \
  "typedef struct { long fgk_h; } rs_program_store;\n"

const char *const fgr_c_renames[] = {
  "acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "ceil", "cos",
  "cosh", "erf", "erfc", "exp", "exp2", "exp10", "expm1", "fabs", "floor",
  "lgamma", "log", "log10", "log1p", "log2", "logb", "rint", "round", "sin",
  "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc", "rsqrt", "sign",
  "degrees", "radians", "fract", "native_exp", "native_exp2",
  "native_exp10", "native_log", "native_log2", "native_log10",
  "native_sqrt", "native_rsqrt", "native_sin", "native_cos", "native_tan",
  "native_recip", "half_sqrt", "half_rsqrt", "half_recip", "atan2",
  "copysign", "fdim", "fmax", "fmin", "fmod", "hypot", "nextafter", "pow",
  "remainder", "powr", "native_powr", "pown", "min", "max", "clamp", "abs",
  "mix", "step", "mad", "fma", "dot", "length", "distance", "normalize",
  "cross", "native_length", "native_distance", "native_normalize",
  "fast_length", "fast_distance", "fast_normalize", "acospi", "asinpi",
  "atanpi", "cospi", "sinpi", "tanpi", "atan2pi",
  /* the rest of rs_math.rsh: results through pointers, integer exponents
   * and the native_ variants of every function that has one */
  "frexp", "ldexp", "modf", "remquo", "sincos", "ilogb", "nan", "rootn",
  "clz", "native_acos", "native_acosh", "native_acospi", "native_asin",
  "native_asinh", "native_asinpi", "native_atan", "native_atanh",
  "native_atanpi", "native_atan2", "native_atan2pi", "native_cbrt",
  "native_cosh", "native_cospi", "native_divide", "native_expm1",
  "native_hypot", "native_log1p", "native_rootn", "native_sincos",
  "native_sinh", "native_sinpi", "native_tanh", "native_tanpi", NULL};

/* Functions OpenCL C has but renamed around a script's text, to give them
 * RenderScript's overload sets (two-argument math: float only). */
const char *const fgr_cl_renames[] = {
  "clamp", "atan2", "copysign", "fdim", "fmod", "hypot", "nextafter", "pow",
  "remainder", "powr", "native_powr", NULL};

/* The runtime functions a script may call in kernels beside
 * fgr_c_renames (names ending in '*': prefixes). */
const char *const fgr_runtime_names[] = {
  "rsUnpackColor8888", "rsPackColorTo8888", "rsGetDimX", "rsGetDimY",
  "rsGetDimZ", "rsAllocationGetDimX", "rsAllocationGetDimY",
  "rsAllocationGetDimZ", "rsClamp", "convert_*", "rsGetElementAt_*",
  "rsSetElementAt_*",
  "pown", "rsDebug", "rsMatrixMultiply", "rsMatrixGet",
  "rsGetElementAtYuv_uchar_Y", "rsGetElementAtYuv_uchar_U",
  "rsGetElementAtYuv_uchar_V", "rsYuvToRGBA_uchar4", "rsYuvToRGBA_float4",
  "rsSample", "rsRand", "rsAtomicInc", "rsAtomicDec", "rsAtomicAdd",
  "rsAtomicSub", "rsAtomicAnd", "rsAtomicOr", "rsAtomicXor", "rsAtomicMin",
  "rsAtomicMax", "rsAtomicCas", "rsQuaternion*", "rsFrac",
  /* scalars: C's <math.h> macros, OpenCL C's built-ins */
  "isnan", "isinf", "isfinite", NULL};

/* rsSetElementAt_<T>(a, v, x[, y[, z]]) of both dialects, inside the
 * FGK_RS_GET* macros (fgk_rs_st_##T stores element i): a point outside
 * the allocation is skipped (reads clamp; a write there has no place). */
#define FGR_SIDX \
  "static inline __attribute__((unused)) long fgk_rs_sidx(rs_allocation " \
  "a, long x, long y,\n    long z) {\n" \
  "  long X = a.x > 0 ? a.x : 1, Y = a.y > 0 ? a.y : 1, " \
  "Z = a.z > 0 ? a.z : 1;\n" \
  "  if (x < 0 || x >= X || y < 0 || y >= Y || z < 0 || z >= Z) " \
  "return -1;\n" \
  "  return (z * Y + y) * X + x; }\n"
#define FGR_SET \
  "  FGK_RS_F void rsSetElementAt_##T(rs_allocation a, T v, uint x) {\\\n" \
  "    fgk_rs_st_##T(a, fgk_rs_sidx(a, x, 0, 0), v); }\\\n" \
  "  FGK_RS_F void rsSetElementAt_##T(rs_allocation a, T v, uint x, " \
  "uint y) {\\\n" \
  "    fgk_rs_st_##T(a, fgk_rs_sidx(a, x, y, 0), v); }\\\n" \
  "  FGK_RS_F void rsSetElementAt_##T(rs_allocation a, T v, uint x, " \
  "uint y, uint z) {\\\n" \
  "    fgk_rs_st_##T(a, fgk_rs_sidx(a, x, y, z), v); }\\\n"

/* Untyped rsGetElementAt(a, x[, y[, z]]) given to a pointer local T *p
 * (emit_hooks.c writes fgk_rs_eptr(sizeof(*p), a, ...)): the address of
 * the element, coordinates clamped, in address space Q. */
#define FGR_EPTR(Q) \
  "FGK_RS_F " Q "const void *fgk_rs_eptr(long s, rs_allocation a, uint x) " \
  "{\n  return a.p + fgk_rs_idx(a, x, 0, 0) * s; }\n" \
  "FGK_RS_F " Q "const void *fgk_rs_eptr(long s, rs_allocation a, uint x, " \
  "uint y) {\n  return a.p + fgk_rs_idx(a, x, y, 0) * s; }\n" \
  "FGK_RS_F " Q "const void *fgk_rs_eptr(long s, rs_allocation a, uint x, " \
  "uint y, uint z) {\n  return a.p + fgk_rs_idx(a, x, y, z) * s; }\n"

/* rsGetElementAtYuv_uchar_Y/U/V of both dialects, rsYuvToRGBA_uchar4
 * (Android's BT.601 integer formula) and rsYuvToRGBA_float4 (its float
 * one: alpha is the luma, as Android's is); the allocation is an
 * NV21 buffer bound as a 2-D uchar field of h * 3 / 2 rows and w columns
 * (the buffer as it lies: h rows of Y, then h / 2 rows of interleaved V,
 * U pairs); coordinates are clamped to the w x h image. */
#define FGR_YUV \
  "static inline __attribute__((unused)) long fgk_rs_yuv_at(rs_allocation "\
  "a, uint x, uint y, " \
  "int k) {\n" \
  "  long w = a.x > 0 ? a.x : 1, h = a.y * 2 / 3;\n" \
  "  long X = (long)x < w ? (long)x : w - 1;\n" \
  "  long Y = (long)y < h ? (long)y : h - 1;\n" \
  "  if (Y < 0) Y = 0;\n" \
  "  if (k < 0) return Y * w + X;\n" \
  "  long i = w * h + (Y >> 1) * w + (X & ~1L) + k, n = w * a.y;\n" \
  /* an odd width's last U has no byte of its own: the buffer's last */ \
  "  return i < n ? i : n - 1; }\n" \
  "#define rsGetElementAtYuv_uchar_Y(a, x, y) " \
  "((uchar)(a).p[fgk_rs_yuv_at((a), (x), (y), -1)])\n" \
  "#define rsGetElementAtYuv_uchar_U(a, x, y) " \
  "((uchar)(a).p[fgk_rs_yuv_at((a), (x), (y), 1)])\n" \
  "#define rsGetElementAtYuv_uchar_V(a, x, y) " \
  "((uchar)(a).p[fgk_rs_yuv_at((a), (x), (y), 0)])\n" \
  "static inline __attribute__((unused)) uchar fgk_rs_yuv_c(int v) {\n" \
  "  return (uchar)(v < 0 ? 0 : v > 255 ? 255 : v); }\n" \
  "FGK_RS_F uchar4 rsYuvToRGBA_uchar4(uchar y, uchar u, uchar v) {\n" \
  "  int Y = (int)y - 16, U = (int)u - 128, V = (int)v - 128;\n" \
  "  uchar4 c;\n" \
  "  c.x = fgk_rs_yuv_c((Y * 298 + V * 409 + 128) >> 8);\n" \
  "  c.y = fgk_rs_yuv_c((Y * 298 - U * 100 - V * 208 + 128) >> 8);\n" \
  "  c.z = fgk_rs_yuv_c((Y * 298 + U * 516 + 128) >> 8);\n" \
  "  c.w = 255;\n  return c; }\n" \
  "static inline __attribute__((unused)) float fgk_rs_yuv_f(float v) {\n" \
  "  return v < 0.f ? 0.f : v > 1.f ? 1.f : v; }\n" \
  "FGK_RS_F float4 rsYuvToRGBA_float4(uchar y, uchar u, uchar v) {\n" \
  "  float l = (float)y * 0.003921569f;\n" \
  "  float U = (float)u - 128.f, V = (float)v - 128.f;\n" \
  "  float4 c;\n" \
  "  c.x = fgk_rs_yuv_f(l + V * 0.00628627511f);\n" \
  "  c.y = fgk_rs_yuv_f(l + U * -0.0015372549f + V * -0.00319607859f);\n" \
  "  c.z = fgk_rs_yuv_f(l + U * 0.00792156905f);\n" \
  "  c.w = fgk_rs_yuv_f(l);\n  return c; }\n"

/* rsRand in kernels (invokables on the host have their own, rs/host.c):
 * each point's own sequence, from a hash of its coordinates
 * (fgk_rs_seed, set by the kernel's wrapper) stepped by mulberry32, so a
 * launch gives the same numbers on every run and backend, whatever the
 * order its threads run in. */
#define FGR_RAND \
  "static inline __attribute__((unused)) uint fgk_rs_seed(uint x, uint y, " \
  "uint z) {\n" \
  "  uint h = x * 0x9E3779B1u ^ (y + 0x7F4A7C15u) * 0x85EBCA77u ^\n" \
  "           (z + 0x165667B1u) * 0xC2B2AE3Du;\n" \
  "  h ^= h >> 15; h *= 0x2C1B3C6Du; h ^= h >> 12; h *= 0x297A2D39u;\n" \
  "  return h ^ (h >> 15); }\n" \
  "static inline __attribute__((unused)) uint fgk_rs_next(uint *s) {\n" \
  "  uint t = *s + 0x6D2B79F5u;\n  *s = t;\n" \
  "  t = (t ^ (t >> 15)) * (t | 1u);\n" \
  "  t ^= t + (t ^ (t >> 7)) * (t | 61u);\n  return t ^ (t >> 14); }\n" \
  "FGK_RS_F int fgk_rs_krand(uint *s, int max) {\n" \
  "  return max <= 0 ? 0 : (int)(fgk_rs_next(s) % (uint)max); }\n" \
  "FGK_RS_F int fgk_rs_krand(uint *s, int min, int max) {\n" \
  "  return max <= min ? min\n" \
  "       : min + (int)(fgk_rs_next(s) % (uint)(max - min)); }\n" \
  "FGK_RS_F float fgk_rs_krand(uint *s, float max) {\n" \
  "  return (float)(fgk_rs_next(s) >> 8) * (1.f / 16777216.f) * max; }\n" \
  "FGK_RS_F float fgk_rs_krand(uint *s, float min, float max) {\n" \
  "  return min + (float)(fgk_rs_next(s) >> 8) * (1.f / 16777216.f) *\n" \
  "         (max - min); }\n"

#define FGR_PTR_OP(NAME, OP) \
  "  FGK_RS_F T fgk_rs_" #NAME "_##T(rs_allocation a, long i, T v, " \
  "int post) {\\\n" \
  "    long n = (a.x > 0 ? a.x : 1) * (a.y > 0 ? a.y : 1) * " \
  "(a.z > 0 ? a.z : 1);\\\n" \
  "    if (i < 0 || i >= n) return v;\\\n" \
  "    T o = fgk_rs_ld_##T(a, i), r = o " #OP " v;\\\n" \
  "    fgk_rs_st_##T(a, i, r);\\\n" \
  "    return post ? o : r; }\\\n"

/* p[i] of a pointer global bound like an allocation (emit_hooks.c
 * rewrites p[i], *(p + i) and (p + i)->m as fgk_rs_ptr_T(p, i)): element
 * i of the bound field in memory order, i clamped to the field, as
 * rsGetElementAt clamps its coordinates; and p[i] = v in a kernel
 * (fgk_rs_pst_T(p, i, v), the assignment's value), p[i] += v, -= v, *= v,
 * ++ and -- (fgk_rs_padd_T and fgk_rs_pmul_T(p, i, v, post): the new
 * value, or with post the old), which skip an i outside the field as
 * rsSetElementAt_<type> skips a point outside.  Ends a FGK_RS_GET*
 * macro. */
#define FGR_PTR_READ FGR_PTR_RW FGR_PTR_OP(padd, +) FGR_PTR_OP(pmul, *)
#define FGR_PTR_RW \
  "  FGK_RS_F T fgk_rs_ptr_##T(rs_allocation a, long i) {\\\n" \
  "    long n = (a.x > 0 ? a.x : 1) * (a.y > 0 ? a.y : 1) * " \
  "(a.z > 0 ? a.z : 1);\\\n" \
  "    return fgk_rs_ld_##T(a, i < 0 ? 0 : i >= n ? n - 1 : i); }\\\n" \
  "  FGK_RS_F T fgk_rs_pst_##T(rs_allocation a, long i, T v) {\\\n" \
  "    long n = (a.x > 0 ? a.x : 1) * (a.y > 0 ? a.y : 1) * " \
  "(a.z > 0 ? a.z : 1);\\\n" \
  "    fgk_rs_st_##T(a, i < n ? i : -1, v);\\\n" \
  "    return v; }\\\n"

/* A pointer global passed to a helper's pointer parameter (emit_hooks.c
 * rewrites the parameter's type as fgk_rs_view): fgk_rs_view_T(p, e) is
 * p + e, the field bound to p as bytes and e elements of T into them;
 * fgk_rs_vadd_T(v, e) is v + e for a view read as T, fgk_rs_vmove_T(&v,
 * e) moves v by e.  Reads, writes and
 * updates through a view (fgk_rs_ptr_T, fgk_rs_pst_T, fgk_rs_padd_T,
 * fgk_rs_pmul_T, the pointer globals' calls) take element e of T at the
 * view's byte offset, so a helper may read the memory as another type
 * than the global's, as C does; a read outside the field is clamped to
 * it, a write outside skipped, as through the pointer global itself.  ES:
 * the bytes of a T in the field.  Ends a FGK_RS_GET* macro. */
#define FGR_VIEW_OP(NAME, OP, ES) \
  "  FGK_RS_F T fgk_rs_" #NAME "_##T(fgk_rs_view v, long i, T x, " \
  "int post) {\\\n" \
  "    long p = fgk_rs_vwr(v, i, " ES ");\\\n" \
  "    if (p < 0) return x;\\\n" \
  "    T o = fgk_rs_vld_##T(v, p), r = o " #OP " x;\\\n" \
  "    fgk_rs_vst_##T(v, p, r);\\\n" \
  "    return post ? o : r; }\\\n"
#define FGR_VIEW(ES) FGR_VIEW_BASE(ES, "return (T)0;") \
  FGR_VIEW_OP(padd, +, ES) FGR_VIEW_OP(pmul, *, ES) "\n"
/* The same without the updates, for a struct T (a read outside a field
 * smaller than one T gives zero bytes). */
#define FGR_VIEW_STRUCT(ES) FGR_VIEW_BASE(ES, "{ T z; for (long k = 0; " \
  "k < (long)sizeof z; k++) ((uchar *)&z)[k] = 0; return z; }") "\n"
#define FGR_VIEW_BASE(ES, ZERO) \
  "  FGK_RS_F fgk_rs_view fgk_rs_view_##T(rs_allocation a, long e) {\\\n" \
  "    fgk_rs_view v;\\\n    v.p = a.p;\\\n    v.q = 0;\\\n" \
  "    v.n = (a.x > 0 ? a.x : 1) * (a.y > 0 ? a.y : 1) * " \
  "(a.z > 0 ? a.z : 1) * " ES ";\\\n" \
  "    v.o = e * " ES ";\\\n    return v; }\\\n" \
  "  FGK_RS_F fgk_rs_view fgk_rs_vadd_##T(fgk_rs_view v, long e) {\\\n" \
  "    v.o += e * " ES ";\\\n    return v; }\\\n" \
  "  FGK_RS_F void fgk_rs_vmove_##T(fgk_rs_view *v, long e) {\\\n" \
  "    v->o += e * " ES "; }\\\n" \
  "  FGK_RS_F T fgk_rs_ptr_##T(fgk_rs_view v, long i) {\\\n" \
  "    long p = fgk_rs_vrd(v, i, " ES ");\\\n" \
  "    if (p < 0) " ZERO "\\\n" \
  "    return fgk_rs_vld_##T(v, p); }\\\n" \
  "  FGK_RS_F T fgk_rs_pst_##T(fgk_rs_view v, long i, T x) {\\\n" \
  "    long p = fgk_rs_vwr(v, i, " ES ");\\\n" \
  "    if (p >= 0) fgk_rs_vst_##T(v, p, x);\\\n" \
  "    return x; }\\\n"
/* The element of T at byte p of a view's memory (the bound field's, or a
 * script's own array, q), and storing one: the C dialect's. */
#define FGR_VIEW_LDST_C \
  "  static inline __attribute__((unused)) T fgk_rs_vld_##T(fgk_rs_view v, " \
  "long p) {\\\n" \
  "    return fgk_rs_ld_##T(fgk_rs_alloc((v.q ? (const uchar *)v.q : v.p) " \
  "+ p, 1, 1, 1), 0); }\\\n" \
  "  static inline __attribute__((unused)) void fgk_rs_vst_##T(" \
  "fgk_rs_view v, long p, T x) {\\\n" \
  "    fgk_rs_st_##T(fgk_rs_alloc((v.q ? (const uchar *)v.q : v.p) + p, 1, " \
  "1, 1), 0, x); }\\\n"

/* The byte offset of element i of a view read as elements of es bytes:
 * clamped into the view's field for a read (-1: the field is smaller
 * than one), -1 outside it for a write.  fgk_rs_pview(q): a view of the
 * script's own memory (a local array given to a parameter that is given
 * pointer globals elsewhere), read and written as C would.
 * fgk_rs_vmem(v, b): v moved by b bytes (a struct member, at its offset);
 * fgk_rs_vnull(): a view of nothing (T *q = NULL), reads zero, writes
 * skipped. */
#define FGR_VIEW_POS \
  "static inline __attribute__((unused)) fgk_rs_view fgk_rs_pview(" \
  "const void *q) {\n" \
  "  fgk_rs_view v;\n  v.p = 0;\n  v.q = (uchar *)q;\n" \
  "  v.n = (long)1 << 60;\n  v.o = 0;\n  return v; }\n" \
  "static inline __attribute__((unused)) fgk_rs_view fgk_rs_vmem(" \
  "fgk_rs_view v, long b) {\n  v.o += b;\n  return v; }\n" \
  "static inline __attribute__((unused)) fgk_rs_view fgk_rs_vnull(void) {\n" \
  "  fgk_rs_view v;\n  v.p = 0;\n  v.q = 0;\n  v.n = 0;\n  v.o = 0;\n" \
  "  return v; }\n" \
  "static inline __attribute__((unused)) long fgk_rs_vrd(fgk_rs_view v, " \
  "long i, long es) {\n" \
  "  long p = v.o + i * es, m = v.n - es;\n" \
  "  return m < 0 ? -1 : p < 0 ? 0 : p > m ? m : p; }\n" \
  "static inline __attribute__((unused)) long fgk_rs_vwr(fgk_rs_view v, " \
  "long i, long es) {\n" \
  "  long p = v.o + i * es;\n" \
  "  return p < 0 || p > v.n - es ? -1 : p; }\n"

const char fgr_compat_c[] =
  "/* RenderScript runtime, C dialect */\n"
  "#define FGK_RS_F static inline __attribute__((overloadable, unused))\n"
  "typedef struct { const uchar *p; long x, y, z; } rs_allocation;\n"
  "typedef struct { const uchar *p; uchar *q; long n, o; } fgk_rs_view;\n"
  FGR_VIEW_POS
  "typedef struct { uint x, y, z; } rs_kernel_context;\n"
  "typedef struct { long fgk_unused; } rs_script_call_t;\n"
  /* the other object handles: a struct may hold one (it is then no
   * value fieldgraph passes, decl.c), and its type must still compile */
  FGR_OBJECT_HANDLES
  "#ifndef true\n#define true 1\n#define false 0\n#endif\n"
  /* kernels print nothing; invokables on the host log (rs/host.c) */
  "#ifndef FGK_RS_HOST\n#define rsDebug(...) ((void)0)\n#endif\n"
  "static inline __attribute__((unused)) rs_allocation fgk_rs_alloc(\n"
  "    const void *p, long x, long y, long z) {\n"
  "  rs_allocation a = {(const uchar *)p, x, y, z};\n  return a;\n}\n"
  "static inline __attribute__((unused)) rs_kernel_context fgk_rs_ctx(\n"
  "    long x, long y, long z) {\n"
  "  rs_kernel_context c = {(uint)x, (uint)y, (uint)z};\n  return c;\n}\n"
  "#define convert_char(...) ((schar)(__VA_ARGS__))\n"
  "#define convert_uchar(...) ((uchar)(__VA_ARGS__))\n"
  "#define convert_short(...) ((short)(__VA_ARGS__))\n"
  "#define convert_ushort(...) ((ushort)(__VA_ARGS__))\n"
  "#define convert_int(...) ((int)(__VA_ARGS__))\n"
  "#define convert_uint(...) ((uint)(__VA_ARGS__))\n"
  "#define convert_long(...) ((long)(__VA_ARGS__))\n"
  "#define convert_ulong(...) ((ulong)(__VA_ARGS__))\n"
  "#define convert_float(...) ((float)(__VA_ARGS__))\n"
  "#define convert_double(...) ((double)(__VA_ARGS__))\n"
  /* convert_T<N>(v): a vector conversion (RenderScript's are not
   * saturating); macros cannot be generated by macros, so spelled out.
   * Variadic, as an argument may hold commas outside parentheses (a
   * compound literal, convert_uchar4((float4){r, g, b, 255})) */
  "#define convert_char2(...) __builtin_convertvector((__VA_ARGS__), char2)\n"
  "#define convert_char3(...) __builtin_convertvector((__VA_ARGS__), char3)\n"
  "#define convert_char4(...) __builtin_convertvector((__VA_ARGS__), char4)\n"
  "#define convert_uchar2(...) __builtin_convertvector((__VA_ARGS__), uchar2)\n"
  "#define convert_uchar3(...) __builtin_convertvector((__VA_ARGS__), uchar3)\n"
  "#define convert_uchar4(...) __builtin_convertvector((__VA_ARGS__), uchar4)\n"
  "#define convert_short2(...) __builtin_convertvector((__VA_ARGS__), short2)\n"
  "#define convert_short3(...) __builtin_convertvector((__VA_ARGS__), short3)\n"
  "#define convert_short4(...) __builtin_convertvector((__VA_ARGS__), short4)\n"
  "#define convert_ushort2(...) __builtin_convertvector((__VA_ARGS__), ushort2)\n"
  "#define convert_ushort3(...) __builtin_convertvector((__VA_ARGS__), ushort3)\n"
  "#define convert_ushort4(...) __builtin_convertvector((__VA_ARGS__), ushort4)\n"
  "#define convert_int2(...) __builtin_convertvector((__VA_ARGS__), int2)\n"
  "#define convert_int3(...) __builtin_convertvector((__VA_ARGS__), int3)\n"
  "#define convert_int4(...) __builtin_convertvector((__VA_ARGS__), int4)\n"
  "#define convert_uint2(...) __builtin_convertvector((__VA_ARGS__), uint2)\n"
  "#define convert_uint3(...) __builtin_convertvector((__VA_ARGS__), uint3)\n"
  "#define convert_uint4(...) __builtin_convertvector((__VA_ARGS__), uint4)\n"
  "#define convert_long2(...) __builtin_convertvector((__VA_ARGS__), long2)\n"
  "#define convert_long3(...) __builtin_convertvector((__VA_ARGS__), long3)\n"
  "#define convert_long4(...) __builtin_convertvector((__VA_ARGS__), long4)\n"
  "#define convert_ulong2(...) __builtin_convertvector((__VA_ARGS__), ulong2)\n"
  "#define convert_ulong3(...) __builtin_convertvector((__VA_ARGS__), ulong3)\n"
  "#define convert_ulong4(...) __builtin_convertvector((__VA_ARGS__), ulong4)\n"
  "#define convert_float2(...) __builtin_convertvector((__VA_ARGS__), float2)\n"
  "#define convert_float3(...) __builtin_convertvector((__VA_ARGS__), float3)\n"
  "#define convert_float4(...) __builtin_convertvector((__VA_ARGS__), float4)\n"
  "#define convert_double2(...) __builtin_convertvector((__VA_ARGS__), double2)\n"
  "#define convert_double3(...) __builtin_convertvector((__VA_ARGS__), double3)\n"
  "#define convert_double4(...) __builtin_convertvector((__VA_ARGS__), double4)\n"
  /* component-wise families */
  "#define FGK_RS_U1(F, T, E) FGK_RS_F T F(T a) { return E(a); }\n"
  "#define FGK_RS_UN(F, T, N, E) FGK_RS_F T##N F(T##N a) {\\\n"
  "  T##N r; for (int i = 0; i < N; i++) r[i] = E(a[i]); return r; }\n"
  "#define FGK_RS_UT(F, T, E) FGK_RS_U1(F, T, E) FGK_RS_UN(F, T, 2, E)\\\n"
  "  FGK_RS_UN(F, T, 3, E) FGK_RS_UN(F, T, 4, E)\n"
  "#define FGK_RS_U(F, EF, ED) FGK_RS_UT(F, float, EF) "
  "FGK_RS_UT(F, double, ED)\n"
  "#define FGK_RS_B1(F, T, E) FGK_RS_F T F(T a, T b) { return E(a, b); }\n"
  "#define FGK_RS_BN(F, T, N, E) FGK_RS_F T##N F(T##N a, T##N b) {\\\n"
  "  T##N r; for (int i = 0; i < N; i++) r[i] = E(a[i], b[i]); return r; }\n"
  "#define FGK_RS_BS(F, T, N, E) FGK_RS_F T##N F(T##N a, T b) {\\\n"
  "  T##N r; for (int i = 0; i < N; i++) r[i] = E(a[i], b); return r; }\n"
  "#define FGK_RS_BT(F, T, E) FGK_RS_B1(F, T, E) FGK_RS_BN(F, T, 2, E)\\\n"
  "  FGK_RS_BN(F, T, 3, E) FGK_RS_BN(F, T, 4, E)\n"
  "#define FGK_RS_BTS(F, T, E) FGK_RS_BT(F, T, E) FGK_RS_BS(F, T, 2, E)\\\n"
  "  FGK_RS_BS(F, T, 3, E) FGK_RS_BS(F, T, 4, E)\n"
  "#define FGK_RS_B(F, EF, ED) FGK_RS_BT(F, float, EF) "
  "FGK_RS_BT(F, double, ED)\n"
  "#define FGK_RS_BSF(F, EF, ED) FGK_RS_BTS(F, float, EF) "
  "FGK_RS_BTS(F, double, ED)\n"
  "#define FGK_RS_T1(F, T, E) FGK_RS_F T F(T a, T b, T c) "
  "{ return E(a, b, c); }\n"
  "#define FGK_RS_TN(F, T, N, E) FGK_RS_F T##N F(T##N a, T##N b, T##N c) "
  "{\\\n"
  "  T##N r; for (int i = 0; i < N; i++) r[i] = E(a[i], b[i], c[i]);\\\n"
  "  return r; }\n"
  "#define FGK_RS_TS(F, T, N, E) FGK_RS_F T##N F(T##N a, T b, T c) {\\\n"
  "  T##N r; for (int i = 0; i < N; i++) r[i] = E(a[i], b, c); return r; }\n"
  "#define FGK_RS_TT(F, T, E) FGK_RS_T1(F, T, E) FGK_RS_TN(F, T, 2, E)\\\n"
  "  FGK_RS_TN(F, T, 3, E) FGK_RS_TN(F, T, 4, E)\n"
  "#define FGK_RS_TTS(F, T, E) FGK_RS_TT(F, T, E) FGK_RS_TS(F, T, 2, E)\\\n"
  "  FGK_RS_TS(F, T, 3, E) FGK_RS_TS(F, T, 4, E)\n"
  "#define FGK_RS_EACH_INT(M, F, E) M(F, schar, E) M(F, uchar, E)\\\n"
  "  M(F, short, E) M(F, ushort, E) M(F, int, E) M(F, uint, E)\\\n"
  "  M(F, long, E) M(F, ulong, E)\n"
  "typedef schar schar2 __attribute__((ext_vector_type(2)));\n"
  "typedef schar schar3 __attribute__((ext_vector_type(3)));\n"
  "typedef schar schar4 __attribute__((ext_vector_type(4)));\n"
  /* scalar implementations */
  "#define FGK_RS_S(N, T, X) static inline __attribute__((unused)) T N\n"
  "FGK_RS_S(fgk_rs_rsqrtf, float, 0)(float x) { return 1.0f / sqrtf(x); }\n"
  "FGK_RS_S(fgk_rs_rsqrtd, double, 0)(double x) { return 1.0 / sqrt(x); }\n"
  "FGK_RS_S(fgk_rs_recipf, float, 0)(float x) { return 1.0f / x; }\n"
  "FGK_RS_S(fgk_rs_recipd, double, 0)(double x) { return 1.0 / x; }\n"
  "FGK_RS_S(fgk_rs_degf, float, 0)(float x) { return x * "
  "57.295779513082321f; }\n"
  "FGK_RS_S(fgk_rs_degd, double, 0)(double x) { return x * "
  "57.295779513082321; }\n"
  "FGK_RS_S(fgk_rs_radf, float, 0)(float x) { return x * "
  "0.017453292519943295f; }\n"
  "FGK_RS_S(fgk_rs_radd, double, 0)(double x) { return x * "
  "0.017453292519943295; }\n"
  "FGK_RS_S(fgk_rs_fractf, float, 0)(float x) {\n"
  "  return fminf(x - floorf(x), 0x1.fffffep-1f); }\n"
  "FGK_RS_S(fgk_rs_fractd, double, 0)(double x) {\n"
  "  return fmin(x - floor(x), 0x1.fffffffffffffp-1); }\n"
  "FGK_RS_S(fgk_rs_minf, float, 0)(float a, float b) { return b < a ? b : a; }\n"
  "FGK_RS_S(fgk_rs_mind, double, 0)(double a, double b) "
  "{ return b < a ? b : a; }\n"
  "FGK_RS_S(fgk_rs_maxf, float, 0)(float a, float b) { return a < b ? b : a; }\n"
  "FGK_RS_S(fgk_rs_maxd, double, 0)(double a, double b) "
  "{ return a < b ? b : a; }\n"
  "FGK_RS_S(fgk_rs_clampf, float, 0)(float x, float lo, float hi) {\n"
  "  return fminf(fmaxf(x, lo), hi); }\n"
  "FGK_RS_S(fgk_rs_clampd, double, 0)(double x, double lo, double hi) {\n"
  "  return fmin(fmax(x, lo), hi); }\n"
  "FGK_RS_S(fgk_rs_mixf, float, 0)(float a, float b, float t) "
  "{ return a + (b - a) * t; }\n"
  "FGK_RS_S(fgk_rs_mixd, double, 0)(double a, double b, double t) "
  "{ return a + (b - a) * t; }\n"
  "FGK_RS_S(fgk_rs_stepf, float, 0)(float e, float x) "
  "{ return x < e ? 0.0f : 1.0f; }\n"
  "FGK_RS_S(fgk_rs_stepd, double, 0)(double e, double x) "
  "{ return x < e ? 0.0 : 1.0; }\n"
  "FGK_RS_S(fgk_rs_madf, float, 0)(float a, float b, float c) "
  "{ return a * b + c; }\n"
  "FGK_RS_S(fgk_rs_madd, double, 0)(double a, double b, double c) "
  "{ return a * b + c; }\n"
  "#define fgk_rs_imin(a, b) ((b) < (a) ? (b) : (a))\n"
  "#define fgk_rs_imax(a, b) ((a) < (b) ? (b) : (a))\n"
  "#define fgk_rs_iclamp(x, lo, hi) fgk_rs_imin(fgk_rs_imax(x, lo), hi)\n"
  /* the families */
  "#define FGK_RS_STD(F) FGK_RS_U(fgk_rs_##F, F##f, F)\n"
  /* float cbrt, exp and log families and pow: the vectorizable routines
   * the IR's built-ins use (emit/math_c.c), so a loop calling them
   * widens; pow with an exponent the compiler sees constant, |y| <= 16,
   * takes the cheaper routine for it */
  "#define FGK_RS_M(F) FGK_RS_U(fgk_rs_##F, fgk_math_##F##f, F)\n"
  "FGK_RS_S(fgk_rs_powf, float, 0)(float x, float y) {\n"
  "  return __builtin_constant_p(y) && __builtin_fabsf(y) <= 16.0f\n"
  "             ? fgk_math_powkf(x, y) : fgk_math_powf(x, y); }\n"
  /* OpenCL's powr: pow of |x| with powr's NaN cases (emit/math_c.c) */
  "FGK_RS_S(fgk_rs_powrf, float, 0)(float x, float y) {\n"
  "  return fgk_m_powr(x, y, fgk_rs_powf(__builtin_fabsf(x), y)); }\n"
  "FGK_RS_STD(acos) FGK_RS_STD(acosh) FGK_RS_STD(asin) FGK_RS_STD(asinh)\n"
  "FGK_RS_STD(atan) FGK_RS_STD(atanh) FGK_RS_M(cbrt) FGK_RS_STD(ceil)\n"
  "FGK_RS_STD(cos) FGK_RS_STD(cosh) FGK_RS_STD(erf) FGK_RS_STD(erfc)\n"
  "FGK_RS_M(exp) FGK_RS_M(exp2) FGK_RS_M(exp10) FGK_RS_STD(expm1)\n"
  "FGK_RS_STD(fabs) FGK_RS_STD(floor) FGK_RS_STD(lgamma) FGK_RS_M(log)\n"
  "FGK_RS_M(log10) FGK_RS_STD(log1p) FGK_RS_M(log2) FGK_RS_STD(logb)\n"
  "FGK_RS_STD(rint) FGK_RS_STD(round) FGK_RS_STD(sin) FGK_RS_STD(sinh)\n"
  "FGK_RS_STD(sqrt) FGK_RS_STD(tan) FGK_RS_STD(tanh) FGK_RS_STD(tgamma)\n"
  "FGK_RS_STD(trunc)\n"
  "FGK_RS_U(fgk_rs_rsqrt, fgk_rs_rsqrtf, fgk_rs_rsqrtd)\n"
  /* the pi-scaled trigonometry OpenCL C has, through double */
  "#define FGK_RS_PI1(F, G) \\\n"
  "  FGK_RS_S(fgk_rs_##F##f, float, 0)(float x) "
  "{ return (float)G(x * 3.14159265358979323846); }\\\n"
  "  FGK_RS_S(fgk_rs_##F##d, double, 0)(double x) "
  "{ return G(x * 3.14159265358979323846); }\\\n"
  "  FGK_RS_U(fgk_rs_##F, fgk_rs_##F##f, fgk_rs_##F##d)\n"
  "#define FGK_RS_API(F, G) \\\n"
  "  FGK_RS_S(fgk_rs_##F##f, float, 0)(float x) "
  "{ return (float)(G((double)x) / 3.14159265358979323846); }\\\n"
  "  FGK_RS_S(fgk_rs_##F##d, double, 0)(double x) "
  "{ return G(x) / 3.14159265358979323846; }\\\n"
  "  FGK_RS_U(fgk_rs_##F, fgk_rs_##F##f, fgk_rs_##F##d)\n"
  "FGK_RS_PI1(cospi, cos) FGK_RS_PI1(sinpi, sin) FGK_RS_PI1(tanpi, tan)\n"
  "FGK_RS_API(acospi, acos) FGK_RS_API(asinpi, asin) "
  "FGK_RS_API(atanpi, atan)\n"
  "FGK_RS_S(fgk_rs_atan2pif, float, 0)(float y, float x) "
  "{ return (float)(atan2((double)y, (double)x) / 3.14159265358979323846); }\n"
  "FGK_RS_S(fgk_rs_atan2pid, double, 0)(double y, double x) "
  "{ return atan2(y, x) / 3.14159265358979323846; }\n"
  "FGK_RS_B(fgk_rs_atan2pi, fgk_rs_atan2pif, fgk_rs_atan2pid)\n"
  "FGK_RS_U(fgk_rs_sign, fgk_signf, fgk_sign)\n"
  "FGK_RS_U(fgk_rs_degrees, fgk_rs_degf, fgk_rs_degd)\n"
  "FGK_RS_U(fgk_rs_radians, fgk_rs_radf, fgk_rs_radd)\n"
  "FGK_RS_U(fgk_rs_fract, fgk_rs_fractf, fgk_rs_fractd)\n"
  "FGK_RS_U(fgk_rs_native_exp, fgk_math_expf, exp)\n"
  "FGK_RS_U(fgk_rs_native_exp2, fgk_math_exp2f, exp2)\n"
  "FGK_RS_U(fgk_rs_native_exp10, fgk_math_exp10f, exp10)\n"
  "FGK_RS_U(fgk_rs_native_log, fgk_math_logf, log)\n"
  "FGK_RS_U(fgk_rs_native_log2, fgk_math_log2f, log2)\n"
  "FGK_RS_U(fgk_rs_native_log10, fgk_math_log10f, log10)\n"
  "FGK_RS_U(fgk_rs_native_sqrt, sqrtf, sqrt)\n"
  "FGK_RS_U(fgk_rs_native_rsqrt, fgk_rs_rsqrtf, fgk_rs_rsqrtd)\n"
  "FGK_RS_U(fgk_rs_native_sin, sinf, sin)\n"
  "FGK_RS_U(fgk_rs_native_cos, cosf, cos)\n"
  "FGK_RS_U(fgk_rs_native_tan, tanf, tan)\n"
  "FGK_RS_U(fgk_rs_native_recip, fgk_rs_recipf, fgk_rs_recipd)\n"
  "FGK_RS_U(fgk_rs_half_sqrt, sqrtf, sqrt)\n"
  "FGK_RS_U(fgk_rs_half_rsqrt, fgk_rs_rsqrtf, fgk_rs_rsqrtd)\n"
  "FGK_RS_U(fgk_rs_half_recip, fgk_rs_recipf, fgk_rs_recipd)\n"
  /* two-argument math is float only, as in RenderScript's headers:
   * pow(255.0, g) is pow(float, float) there, where double overloads
   * would make it ambiguous */
  "#define FGK_RS_STD2(F) FGK_RS_BT(fgk_rs_##F, float, F##f)\n"
  "FGK_RS_STD2(atan2) FGK_RS_STD2(copysign) FGK_RS_STD2(fdim)\n"
  "FGK_RS_STD2(fmod) FGK_RS_STD2(hypot) FGK_RS_STD2(nextafter)\n"
  "FGK_RS_STD2(remainder)\n"
  "FGK_RS_BT(fgk_rs_pow, float, fgk_rs_powf)\n"
  "FGK_RS_BT(fgk_rs_powr, float, fgk_rs_powrf)\n"
  "FGK_RS_BT(fgk_rs_native_powr, float, fgk_rs_powrf)\n"
  "FGK_RS_BSF(fgk_rs_fmax, fmaxf, fmax)\n"
  "FGK_RS_BSF(fgk_rs_fmin, fminf, fmin)\n"
  "FGK_RS_BSF(fgk_rs_min, fgk_rs_minf, fgk_rs_mind)\n"
  "FGK_RS_BSF(fgk_rs_max, fgk_rs_maxf, fgk_rs_maxd)\n"
  "FGK_RS_EACH_INT(FGK_RS_BTS, fgk_rs_min, fgk_rs_imin)\n"
  "FGK_RS_EACH_INT(FGK_RS_BTS, fgk_rs_max, fgk_rs_imax)\n"
  "FGK_RS_TTS(fgk_rs_clamp, float, fgk_rs_clampf)\n"
  "FGK_RS_EACH_INT(FGK_RS_TTS, fgk_rs_clamp, fgk_rs_iclamp)\n"
  "FGK_RS_TT(fgk_rs_mad, float, fgk_rs_madf)\n"
  "FGK_RS_TT(fgk_rs_mad, double, fgk_rs_madd)\n"
  "FGK_RS_TT(fgk_rs_fma, float, fmaf)\n"
  "FGK_RS_TT(fgk_rs_fma, double, fma)\n"
  "FGK_RS_TT(fgk_rs_mix, float, fgk_rs_mixf)\n"
  "FGK_RS_TT(fgk_rs_mix, double, fgk_rs_mixd)\n"
  /* fract with the floor written through a pointer, and the deprecated
   * rsClamp (integers) */
  "#define FGK_RS_FRACT2(T) FGK_RS_F T fgk_rs_fract(T v, T *fl) {\\\n"
  "  *fl = fgk_rs_floor(v); return fgk_rs_fract(v); }\n"
  "FGK_RS_FRACT2(float) FGK_RS_FRACT2(float2) FGK_RS_FRACT2(float3)\n"
  "FGK_RS_FRACT2(float4) FGK_RS_FRACT2(double) FGK_RS_FRACT2(double2)\n"
  "FGK_RS_FRACT2(double3) FGK_RS_FRACT2(double4)\n"
  "#define FGK_RS_RSCLAMP(T) FGK_RS_F T rsClamp(T a, T lo, T hi) {\\\n"
  "  return a < lo ? lo : a > hi ? hi : a; }\n"
  "FGK_RS_RSCLAMP(schar) FGK_RS_RSCLAMP(uchar) FGK_RS_RSCLAMP(short)\n"
  "FGK_RS_RSCLAMP(ushort) FGK_RS_RSCLAMP(int) FGK_RS_RSCLAMP(uint)\n"
  "#define FGK_RS_MIXS(T, N) FGK_RS_F T##N fgk_rs_mix(T##N a, T##N b, T t) "
  "{\\\n"
  "  return a + (b - a) * t; }\n"
  "FGK_RS_MIXS(float, 2) FGK_RS_MIXS(float, 3) FGK_RS_MIXS(float, 4)\n"
  "FGK_RS_MIXS(double, 2) FGK_RS_MIXS(double, 3) FGK_RS_MIXS(double, 4)\n"
  "FGK_RS_BT(fgk_rs_step, float, fgk_rs_stepf)\n"
  "FGK_RS_BT(fgk_rs_step, double, fgk_rs_stepd)\n"
  "#define FGK_RS_STEPS(T, N) FGK_RS_F T##N fgk_rs_step(T e, T##N x) {\\\n"
  "  T##N r; for (int i = 0; i < N; i++) r[i] = x[i] < e ? 0 : 1; "
  "return r; }\n"
  "FGK_RS_STEPS(float, 2) FGK_RS_STEPS(float, 3) FGK_RS_STEPS(float, 4)\n"
  /* abs of integers is unsigned, as in RenderScript and OpenCL */
  "#define FGK_RS_ABS(S, U) FGK_RS_F U fgk_rs_abs(S a) "
  "{ return a < 0 ? (U)(0 - (U)a) : (U)a; }\\\n"
  "  FGK_RS_ABSN(S, U, 2) FGK_RS_ABSN(S, U, 3) FGK_RS_ABSN(S, U, 4)\n"
  "#define FGK_RS_ABSN(S, U, N) FGK_RS_F U##N fgk_rs_abs(S##N a) {\\\n"
  "  U##N r; for (int i = 0; i < N; i++) r[i] = a[i] < 0 ? (U)(0 - "
  "(U)a[i]) : (U)a[i];\\\n  return r; }\n"
  "FGK_RS_ABS(schar, uchar) FGK_RS_ABS(short, ushort) FGK_RS_ABS(int, uint)\n"
  "FGK_RS_ABS(long, ulong)\n"
  "FGK_RS_F uchar fgk_rs_abs(uchar a) { return a; }\n"
  "FGK_RS_F ushort fgk_rs_abs(ushort a) { return a; }\n"
  "FGK_RS_F uint fgk_rs_abs(uint a) { return a; }\n"
  "FGK_RS_F ulong fgk_rs_abs(ulong a) { return a; }\n"
  "FGK_RS_UT(fgk_rs_abs, float, fabsf)\n"
  /* geometry, in the element type, left to right */
  "#define FGK_RS_GEO(T, N) \\\n"
  "  FGK_RS_F T fgk_rs_dot(T##N a, T##N b) {\\\n"
  "    T s = 0; for (int i = 0; i < N; i++) s += a[i] * b[i]; return s; }\\\n"
  "  FGK_RS_F T fgk_rs_length(T##N a) { return sqrt(fgk_rs_dot(a, a)); }\\\n"
  "  FGK_RS_F T fgk_rs_distance(T##N a, T##N b) "
  "{ return fgk_rs_length(a - b); }\\\n"
  "  FGK_RS_F T##N fgk_rs_normalize(T##N a) {\\\n"
  "    T l = fgk_rs_length(a); return l == 0 ? a : a / l; }\n"
  "FGK_RS_GEO(float, 2) FGK_RS_GEO(float, 3) FGK_RS_GEO(float, 4)\n"
  "FGK_RS_GEO(double, 2) FGK_RS_GEO(double, 3) FGK_RS_GEO(double, 4)\n"
  "FGK_RS_F float fgk_rs_dot(float a, float b) { return a * b; }\n"
  "FGK_RS_F float fgk_rs_length(float a) { return fabsf(a); }\n"
  "FGK_RS_F float fgk_rs_distance(float a, float b) { return fabsf(a - b); }\n"
  "FGK_RS_F float fgk_rs_normalize(float a) "
  "{ return a == 0 ? a : a < 0 ? -1.0f : 1.0f; }\n"
  "#define fgk_rs_native_length fgk_rs_length\n"
  "#define fgk_rs_fast_length fgk_rs_length\n"
  "#define fgk_rs_native_distance fgk_rs_distance\n"
  "#define fgk_rs_fast_distance fgk_rs_distance\n"
  "#define fgk_rs_native_normalize fgk_rs_normalize\n"
  "#define fgk_rs_fast_normalize fgk_rs_normalize\n"
  "FGK_RS_F float3 fgk_rs_cross(float3 a, float3 b) {\n"
  "  float3 r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,\n"
  "              a.x * b.y - a.y * b.x};\n  return r; }\n"
  "FGK_RS_F float4 fgk_rs_cross(float4 a, float4 b) {\n"
  "  float4 r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,\n"
  "              a.x * b.y - a.y * b.x, 0.0f};\n  return r; }\n"
  "FGK_RS_F float fgk_rs_pown(float x, int n) {\n"
  "  return fgk_rs_powf(x, (float)n); }\n"
  "FGK_RS_F double fgk_rs_pown(double x, int n) { return pow(x, n); }\n"
  /* the rest of rs_math.rsh (float and its vectors; double where C
   * has it): results through pointers (frexp, modf, remquo, sincos,
   * lgamma), integer exponents (ldexp, rootn, ilogb), nan, clz, and
   * native_ variants (RenderScript lets them be less precise: the full
   * functions are within that) */
  "#define FGK_RS_PV(F, T, N, P, E) FGK_RS_F T##N F(T##N a, P##N *q) {\\\n"
  "  T##N r; P##N o; for (int i = 0; i < N; i++) { P t; r[i] = E(a[i], &t);"
  " o[i] = t; }\\\n  *q = o; return r; }\n"
  "#define FGK_RS_PT(F, T, P, E) FGK_RS_F T F(T a, P *q) "
  "{ return E(a, q); }\\\n"
  "  FGK_RS_PV(F, T, 2, P, E) FGK_RS_PV(F, T, 3, P, E) "
  "FGK_RS_PV(F, T, 4, P, E)\n"
  "FGK_RS_PT(fgk_rs_frexp, float, int, frexpf)\n"
  "FGK_RS_PT(fgk_rs_frexp, double, int, frexp)\n"
  "FGK_RS_PT(fgk_rs_modf, float, float, modff)\n"
  "FGK_RS_PT(fgk_rs_modf, double, double, modf)\n"
  "FGK_RS_S(fgk_rs_sincosf, float, 0)(float x, float *c) {\n"
  "  *c = cosf(x); return sinf(x); }\n"
  "FGK_RS_PT(fgk_rs_sincos, float, float, fgk_rs_sincosf)\n"
  "#define fgk_rs_native_sincos fgk_rs_sincos\n"
  "FGK_RS_PT(fgk_rs_lgamma, float, int, lgammaf_r)\n"
  "FGK_RS_F float fgk_rs_remquo(float a, float b, int *q) "
  "{ return remquof(a, b, q); }\n"
  "#define FGK_RS_REMQUO(N) FGK_RS_F float##N fgk_rs_remquo(float##N a, "
  "float##N b,\\\n    int##N *q) {\\\n"
  "  float##N r; int##N o; for (int i = 0; i < N; i++) { int t;\\\n"
  "    r[i] = remquof(a[i], b[i], &t); o[i] = t; }\\\n  *q = o; return r; }\n"
  "FGK_RS_REMQUO(2) FGK_RS_REMQUO(3) FGK_RS_REMQUO(4)\n"
  /* rootn: the real n-th root (odd n of a negative x is negative) */
  "FGK_RS_S(fgk_rs_rootnf, float, 0)(float x, int n) {\n"
  "  if (n == 0) return __builtin_nanf(\"\");\n"
  "  if (x < 0 && (n & 1)) return -(float)pow(-(double)x, 1.0 / n);\n"
  "  return (float)pow((double)x, 1.0 / n); }\n"
  "#define FGK_RS_IEXP(F, E) FGK_RS_F float F(float a, int n) "
  "{ return E(a, n); }\\\n"
  "  FGK_RS_IEXPN(F, E, 2) FGK_RS_IEXPN(F, E, 3) FGK_RS_IEXPN(F, E, 4)\n"
  "#define FGK_RS_IEXPN(F, E, N) FGK_RS_F float##N F(float##N a, "
  "int##N n) {\\\n"
  "  float##N r; for (int i = 0; i < N; i++) r[i] = E(a[i], n[i]); "
  "return r; }\n"
  "FGK_RS_IEXP(fgk_rs_rootn, fgk_rs_rootnf)\n"
  "FGK_RS_IEXP(fgk_rs_native_rootn, fgk_rs_rootnf)\n"
  "FGK_RS_IEXP(fgk_rs_ldexp, ldexpf)\n"
  "FGK_RS_IEXPN(fgk_rs_pown, fgk_rs_pown, 2) "
  "FGK_RS_IEXPN(fgk_rs_pown, fgk_rs_pown, 3)\n"
  "FGK_RS_IEXPN(fgk_rs_pown, fgk_rs_pown, 4)\n"
  "#define FGK_RS_LDEXPS(N) FGK_RS_F float##N fgk_rs_ldexp(float##N a, "
  "int n) {\\\n"
  "  float##N r; for (int i = 0; i < N; i++) r[i] = ldexpf(a[i], n); "
  "return r; }\n"
  "FGK_RS_LDEXPS(2) FGK_RS_LDEXPS(3) FGK_RS_LDEXPS(4)\n"
  "FGK_RS_F int fgk_rs_ilogb(float a) { return ilogbf(a); }\n"
  "FGK_RS_F float fgk_rs_nan(uint a) { (void)a; "
  "return __builtin_nanf(\"\"); }\n"
  "#define FGK_RS_ILOGBN(N) FGK_RS_F int##N fgk_rs_ilogb(float##N a) {\\\n"
  "  int##N r; for (int i = 0; i < N; i++) r[i] = ilogbf(a[i]); "
  "return r; }\\\n"
  "  FGK_RS_F float##N fgk_rs_nan(uint##N a) { (void)a; "
  "return (float##N)__builtin_nanf(\"\"); }\n"
  "FGK_RS_ILOGBN(2) FGK_RS_ILOGBN(3) FGK_RS_ILOGBN(4)\n"
  /* clz: leading zero bits in the element's own width */
  "#define FGK_RS_CLZ1(S, U) FGK_RS_F S fgk_rs_clz(S a) {\\\n"
  "  return (S)((U)a == 0 ? (int)(8 * sizeof(U))\\\n"
  "             : __builtin_clzll((U)a) - (int)(64 - 8 * sizeof(U))); }\n"
  "#define FGK_RS_CLZN(S, N) FGK_RS_F S##N fgk_rs_clz(S##N a) {\\\n"
  "  S##N r; for (int i = 0; i < N; i++) r[i] = fgk_rs_clz(a[i]); "
  "return r; }\n"
  "#define FGK_RS_CLZ(S, U) FGK_RS_CLZ1(S, U) FGK_RS_CLZN(S, 2) "
  "FGK_RS_CLZN(S, 3)\\\n  FGK_RS_CLZN(S, 4)\n"
  "FGK_RS_CLZ(schar, uchar) FGK_RS_CLZ(uchar, uchar) "
  "FGK_RS_CLZ(short, ushort)\n"
  "FGK_RS_CLZ(ushort, ushort) FGK_RS_CLZ(int, uint) FGK_RS_CLZ(uint, uint)\n"
  /* a script's plain char stays char, a type of its own to overloads */
  "FGK_RS_CLZ1(char, uchar)\n"
  "#define FGK_RS_NAT1(F) FGK_RS_U(fgk_rs_native_##F, fgk_rs_##F, "
  "fgk_rs_##F)\n"
  "FGK_RS_NAT1(acos) FGK_RS_NAT1(acosh) FGK_RS_NAT1(acospi) "
  "FGK_RS_NAT1(asin)\n"
  "FGK_RS_NAT1(asinh) FGK_RS_NAT1(asinpi) FGK_RS_NAT1(atan) "
  "FGK_RS_NAT1(atanh)\n"
  "FGK_RS_NAT1(atanpi) FGK_RS_NAT1(cbrt) FGK_RS_NAT1(cosh) "
  "FGK_RS_NAT1(cospi)\n"
  "FGK_RS_NAT1(expm1) FGK_RS_NAT1(log1p) FGK_RS_NAT1(sinh) "
  "FGK_RS_NAT1(sinpi)\n"
  "FGK_RS_NAT1(tanh) FGK_RS_NAT1(tanpi)\n"
  "FGK_RS_BT(fgk_rs_native_atan2, float, fgk_rs_atan2)\n"
  "FGK_RS_BT(fgk_rs_native_atan2pi, float, fgk_rs_atan2pi)\n"
  "FGK_RS_BT(fgk_rs_native_hypot, float, fgk_rs_hypot)\n"
  "FGK_RS_S(fgk_rs_dividef, float, 0)(float a, float b) { return a / b; }\n"
  "FGK_RS_BT(fgk_rs_native_divide, float, fgk_rs_dividef)\n"
  /* never-trapping division and modulo (emit_hooks.c rewrites the
   * script's / and % into these): the type of (a) / (b), then its
   * overload */
  "#define fgk_rs_div(a, b) ({ __typeof__((a) / (b)) fgk_dx = (a), "
  "fgk_dy = (b);\\\n  fgk_rs_div1(fgk_dx, fgk_dy); })\n"
  "#define fgk_rs_mod(a, b) ({ __typeof__((a) % (b)) fgk_dx = (a), "
  "fgk_dy = (b);\\\n  fgk_rs_mod1(fgk_dx, fgk_dy); })\n"
  "#define FGK_RS_DIVEQ(l, r) ((l) = fgk_rs_div((l), (r)))\n"
  "#define FGK_RS_MODEQ(l, r) ((l) = fgk_rs_mod((l), (r)))\n"
  "#define FGK_RS_DIVS(T, U) FGK_RS_F T fgk_rs_div1(T x, T y) {\\\n"
  "  return y == 0 ? (T)0 : y == (T)-1 ? (T)(0 - (U)x) : (T)(x / y); }\\\n"
  "  FGK_RS_F T fgk_rs_mod1(T x, T y) {\\\n"
  "  return y == 0 || y == (T)-1 ? (T)0 : (T)(x % y); }\n"
  "#define FGK_RS_DIVU(T) FGK_RS_F T fgk_rs_div1(T x, T y) {\\\n"
  "  return y == 0 ? (T)0 : (T)(x / y); }\\\n"
  "  FGK_RS_F T fgk_rs_mod1(T x, T y) { return y == 0 ? (T)0 : (T)(x % y); }\n"
  "#define FGK_RS_DIVN(T, N) FGK_RS_F T##N fgk_rs_div1(T##N x, T##N y) {\\\n"
  "  T##N r; for (int i = 0; i < N; i++) r[i] = fgk_rs_div1(x[i], y[i]);\\\n"
  "  return r; }\\\n"
  "  FGK_RS_F T##N fgk_rs_mod1(T##N x, T##N y) {\\\n"
  "  T##N r; for (int i = 0; i < N; i++) r[i] = fgk_rs_mod1(x[i], y[i]);\\\n"
  "  return r; }\n"
  "#define FGK_RS_DIVV(T) FGK_RS_DIVN(T, 2) FGK_RS_DIVN(T, 3) "
  "FGK_RS_DIVN(T, 4)\n"
  "#define FGK_RS_DIVF(T) FGK_RS_F T fgk_rs_div1(T x, T y) { return x / y; }\n"
  "#define FGK_RS_DIVFV(T) FGK_RS_DIVF(T) FGK_RS_DIVF(T##2) FGK_RS_DIVF(T##3) "
  "FGK_RS_DIVF(T##4)\n"
  "FGK_RS_DIVS(schar, uchar) FGK_RS_DIVU(uchar) FGK_RS_DIVS(short, ushort)\n"
  "FGK_RS_DIVU(ushort) FGK_RS_DIVS(int, uint) FGK_RS_DIVU(uint)\n"
  "FGK_RS_DIVS(long, ulong) FGK_RS_DIVU(ulong)\n"
  "FGK_RS_DIVS(long long, unsigned long long) FGK_RS_DIVU(unsigned long long)\n"
  "FGK_RS_DIVV(schar) FGK_RS_DIVV(uchar) FGK_RS_DIVV(short) "
  "FGK_RS_DIVV(ushort)\n"
  "FGK_RS_DIVV(int) FGK_RS_DIVV(uint) FGK_RS_DIVV(long) FGK_RS_DIVV(ulong)\n"
  "FGK_RS_DIVFV(float) FGK_RS_DIVFV(double)\n"
  /* colors */
  "FGK_RS_F float4 rsUnpackColor8888(uchar4 c) {\n"
  "  float4 r = __builtin_convertvector(c, float4);\n"
  "  return r * 0.003921569f; }\n"
  "FGK_RS_F uchar4 rsPackColorTo8888(float4 color) {\n"
  "  color *= 255.f;\n  color += 0.5f;\n"
  "  color = fgk_rs_clamp(color, 0.f, 255.f);\n"
  "  uchar4 c = {(uchar)color.x, (uchar)color.y, (uchar)color.z,\n"
  "              (uchar)color.w};\n  return c; }\n"
  "FGK_RS_F uchar4 rsPackColorTo8888(float3 color) {\n"
  "  float4 c = {color.x, color.y, color.z, 1.0f};\n"
  "  return rsPackColorTo8888(c); }\n"
  "FGK_RS_F uchar4 rsPackColorTo8888(float r, float g, float b) {\n"
  "  float4 c = {r, g, b, 1.0f};\n  return rsPackColorTo8888(c); }\n"
  "FGK_RS_F uchar4 rsPackColorTo8888(float r, float g, float b, float a) {\n"
  "  float4 c = {r, g, b, a};\n  return rsPackColorTo8888(c); }\n"
  /* dimensions and allocations */
  "#define rsGetDimX(c) ((uint)(c).x)\n"
  "#define rsGetDimY(c) ((uint)(c).y)\n"
  "#define rsGetDimZ(c) ((uint)(c).z)\n"
  "#define rsAllocationGetDimX(a) ((uint)(a).x)\n"
  "#define rsAllocationGetDimY(a) ((uint)(a).y)\n"
  "#define rsAllocationGetDimZ(a) ((uint)(a).z)\n"
  "static inline __attribute__((unused)) long fgk_rs_idx(rs_allocation a, "
  "long x, long y,\n    long z) {\n"
  "  long X = a.x > 0 ? a.x : 1, Y = a.y > 0 ? a.y : 1, "
  "Z = a.z > 0 ? a.z : 1;\n"
  "  x = x < 0 ? 0 : x >= X ? X - 1 : x;\n"
  "  y = y < 0 ? 0 : y >= Y ? Y - 1 : y;\n"
  "  z = z < 0 ? 0 : z >= Z ? Z - 1 : z;\n"
  "  return (z * Y + y) * X + x; }\n"
  FGR_SIDX
  FGR_EPTR("")
  /* RenderScript's implicit vector conversions (emit_hooks.c): to D
   * (T elements, N of them) from every vector of N elements, by value,
   * and from every scalar, splatted */
  "#define FGK_RS_CV1(D, T, N, S) \\\n"
  "  FGK_RS_F D fgk_rs_cv_##D(S##N v) { return __builtin_convertvector(v, "
  "D); }\\\n"
  "  FGK_RS_F D fgk_rs_cv_##D(S v) { return (D)((T)v); }\n"
  "#define FGK_RS_CV(D, T, N) FGK_RS_CV1(D, T, N, schar) "
  "FGK_RS_CV1(D, T, N, uchar)\\\n"
  "  FGK_RS_CV1(D, T, N, short) FGK_RS_CV1(D, T, N, ushort) "
  "FGK_RS_CV1(D, T, N, int)\\\n"
  "  FGK_RS_CV1(D, T, N, uint) FGK_RS_CV1(D, T, N, long) "
  "FGK_RS_CV1(D, T, N, ulong)\\\n"
  "  FGK_RS_CV1(D, T, N, float) FGK_RS_CV1(D, T, N, double)\n"
  "#define FGK_RS_GET(T, S, N) \\\n"
  "  static inline __attribute__((unused)) T fgk_rs_ld_##T(rs_allocation "
  "a, long i) {\\\n"
  "    T v; memcpy(&v, a.p + i * (long)(N * sizeof(S)), N * sizeof(S)); "
  "return v; }\\\n"
  "  FGK_RS_F T rsGetElementAt_##T(rs_allocation a, uint x) {\\\n"
  "    return fgk_rs_ld_##T(a, fgk_rs_idx(a, x, 0, 0)); }\\\n"
  "  FGK_RS_F T rsGetElementAt_##T(rs_allocation a, uint x, uint y) {\\\n"
  "    return fgk_rs_ld_##T(a, fgk_rs_idx(a, x, y, 0)); }\\\n"
  "  FGK_RS_F T rsGetElementAt_##T(rs_allocation a, uint x, uint y, "
  "uint z) {\\\n"
  "    return fgk_rs_ld_##T(a, fgk_rs_idx(a, x, y, z)); }\\\n"
  "  static inline __attribute__((unused)) void fgk_rs_st_##T(rs_allocation "
  "a, long i, T v) {\\\n"
  "    if (i >= 0) memcpy((uchar *)a.p + i * (long)(N * sizeof(S)), &v, "
  "N * sizeof(S)); }\\\n"
  FGR_SET
  FGR_PTR_READ
  FGR_VIEW_LDST_C
  FGR_VIEW("(long)(N * sizeof(S))")
  "#define FGK_RS_GETS(T, S) FGK_RS_GET(T, S, 1) FGK_RS_GET(T##2, S, 2)\\\n"
  "  FGK_RS_GET(T##3, S, 3) FGK_RS_GET(T##4, S, 4)\n"
  /* a struct pointee of pointer globals and views (emit_hooks.c names
   * each struct so): its bytes in the field, in its C layout */
  "#define FGK_RS_SGET(T) \\\n"
  "  static inline __attribute__((unused)) T fgk_rs_ld_##T(rs_allocation "
  "a, long i) {\\\n"
  "    T v; memcpy(&v, a.p + i * (long)sizeof(T), sizeof(T)); "
  "return v; }\\\n"
  "  static inline __attribute__((unused)) void fgk_rs_st_##T(rs_allocation "
  "a, long i, T v) {\\\n"
  "    if (i >= 0) memcpy((uchar *)a.p + i * (long)sizeof(T), &v, "
  "sizeof(T)); }\\\n"
  FGR_PTR_RW
  FGR_VIEW_LDST_C
  FGR_VIEW_STRUCT("(long)sizeof(T)")
  "typedef schar fgk_rs_char;\n"
  "FGK_RS_GET(schar, schar, 1) FGK_RS_GET(char2, schar, 2)\n"
  "FGK_RS_GET(char3, schar, 3) FGK_RS_GET(char4, schar, 4)\n"
  "#define rsGetElementAt_char rsGetElementAt_schar\n"
  "#define rsSetElementAt_char rsSetElementAt_schar\n"
  "#define fgk_rs_ptr_char fgk_rs_ptr_schar\n"
  "#define fgk_rs_pst_char fgk_rs_pst_schar\n"
  "#define fgk_rs_padd_char fgk_rs_padd_schar\n"
  "#define fgk_rs_pmul_char fgk_rs_pmul_schar\n"
  "#define fgk_rs_view_char fgk_rs_view_schar\n"
  "#define fgk_rs_vadd_char fgk_rs_vadd_schar\n"
  "#define fgk_rs_vmove_char fgk_rs_vmove_schar\n"
  "FGK_RS_GETS(uchar, uchar) FGK_RS_GETS(short, short)\n"
  "FGK_RS_GETS(ushort, ushort) FGK_RS_GETS(int, int)\n"
  "FGK_RS_GETS(uint, uint) FGK_RS_GETS(long, long)\n"
  "FGK_RS_GETS(ulong, ulong) FGK_RS_GETS(float, float)\n"
  "FGK_RS_GETS(double, double)\n"
  FGR_YUV
  FGR_RAND
  /* atomics on an allocation's elements (fgk_rs_aptr_T: the rewritten
   * (volatile int32_t *)rsGetElementAt, clamped as reads are) */
  "#define FGK_RS_APTR(T) \\\n"
  "  FGK_RS_F volatile T *fgk_rs_aptr_##T(rs_allocation a, uint x) {\\\n"
  "    return (volatile T *)a.p + fgk_rs_idx(a, x, 0, 0); }\\\n"
  "  FGK_RS_F volatile T *fgk_rs_aptr_##T(rs_allocation a, uint x, "
  "uint y) {\\\n"
  "    return (volatile T *)a.p + fgk_rs_idx(a, x, y, 0); }\\\n"
  "  FGK_RS_F volatile T *fgk_rs_aptr_##T(rs_allocation a, uint x, uint y, "
  "uint z) {\\\n"
  "    return (volatile T *)a.p + fgk_rs_idx(a, x, y, z); }\\\n"
  "  FGK_RS_F T rsAtomicInc(volatile T *p) {\\\n"
  "    return __atomic_fetch_add(p, 1, __ATOMIC_RELAXED); }\\\n"
  "  FGK_RS_F T rsAtomicDec(volatile T *p) {\\\n"
  "    return __atomic_fetch_sub(p, 1, __ATOMIC_RELAXED); }\\\n"
  "  FGK_RS_F T rsAtomicAdd(volatile T *p, T v) {\\\n"
  "    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }\\\n"
  "  FGK_RS_F T rsAtomicSub(volatile T *p, T v) {\\\n"
  "    return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }\\\n"
  "  FGK_RS_F T rsAtomicAnd(volatile T *p, T v) {\\\n"
  "    return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }\\\n"
  "  FGK_RS_F T rsAtomicOr(volatile T *p, T v) {\\\n"
  "    return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }\\\n"
  "  FGK_RS_F T rsAtomicXor(volatile T *p, T v) {\\\n"
  "    return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }\\\n"
  "  FGK_RS_F T rsAtomicMin(volatile T *p, T v) {\\\n"
  "    return __atomic_fetch_min(p, v, __ATOMIC_RELAXED); }\\\n"
  "  FGK_RS_F T rsAtomicMax(volatile T *p, T v) {\\\n"
  "    return __atomic_fetch_max(p, v, __ATOMIC_RELAXED); }\\\n"
  "  FGK_RS_F T rsAtomicCas(volatile T *p, T c, T v) {\\\n"
  "    __atomic_compare_exchange_n(p, &c, v, 0, __ATOMIC_RELAXED,\\\n"
  "                                __ATOMIC_RELAXED);\\\n"
  "    return c; }\n"
  "FGK_RS_APTR(int) FGK_RS_APTR(uint)\n";

const char fgr_compat_cl[] =
  "/* RenderScript runtime, OpenCL C */\n"
  "typedef char int8_t;\ntypedef uchar uint8_t;\n"
  "typedef short int16_t;\ntypedef ushort uint16_t;\n"
  "typedef int int32_t;\ntypedef uint uint32_t;\n"
  "typedef long int64_t;\ntypedef ulong uint64_t;\n"
  "typedef struct { __global const uchar *p; long x, y, z; } "
  "rs_allocation;\n"
  "typedef struct { __global const uchar *p; uchar *q; long n, o; } "
  "fgk_rs_view;\n"
  FGR_VIEW_POS
  "typedef struct { uint x, y, z; } rs_kernel_context;\n"
  "typedef struct { long fgk_unused; } rs_script_call_t;\n"
  /* the other object handles: a struct may hold one (it is then no
   * value fieldgraph passes, decl.c), and its type must still compile */
  FGR_OBJECT_HANDLES
  "#define FGK_RS_F static inline __attribute__((overloadable))\n"
  "static inline rs_allocation fgk_rs_alloc(__global const void *p, long x,\n"
  "    long y, long z) {\n"
  "  rs_allocation a;\n  a.p = (__global const uchar *)p;\n"
  "  a.x = x;\n  a.y = y;\n  a.z = z;\n  return a;\n}\n"
  "static inline rs_kernel_context fgk_rs_ctx(long x, long y, long z) {\n"
  "  rs_kernel_context c;\n  c.x = (uint)x;\n  c.y = (uint)y;\n"
  "  c.z = (uint)z;\n  return c;\n}\n"
  "FGK_RS_F float4 rsUnpackColor8888(uchar4 c) {\n"
  "  return convert_float4(c) * 0.003921569f; }\n"
  "FGK_RS_F uchar4 rsPackColorTo8888(float4 color) {\n"
  "  color *= 255.f;\n  color += 0.5f;\n"
  "  color = clamp(color, 0.f, 255.f);\n"
  "  return convert_uchar4(color); }\n"
  "FGK_RS_F uchar4 rsPackColorTo8888(float3 color) {\n"
  "  return rsPackColorTo8888((float4)(color, 1.0f)); }\n"
  "FGK_RS_F uchar4 rsPackColorTo8888(float r, float g, float b) {\n"
  "  return rsPackColorTo8888((float4)(r, g, b, 1.0f)); }\n"
  "FGK_RS_F uchar4 rsPackColorTo8888(float r, float g, float b, float a) {\n"
  "  return rsPackColorTo8888((float4)(r, g, b, a)); }\n"
  /* never-trapping division and modulo (emit_hooks.c rewrites the
   * script's / and % into these): the type of (a) / (b), then its
   * overload */
  "#define fgk_rs_div(a, b) ({ __typeof__((a) / (b)) fgk_dx = (a), "
  "fgk_dy = (b);\\\n  fgk_rs_div1(fgk_dx, fgk_dy); })\n"
  "#define fgk_rs_mod(a, b) ({ __typeof__((a) % (b)) fgk_dx = (a), "
  "fgk_dy = (b);\\\n  fgk_rs_mod1(fgk_dx, fgk_dy); })\n"
  "#define FGK_RS_DIVEQ(l, r) ((l) = fgk_rs_div((l), (r)))\n"
  "#define FGK_RS_MODEQ(l, r) ((l) = fgk_rs_mod((l), (r)))\n"
  "#define FGK_RS_DIVS(T, U) FGK_RS_F T fgk_rs_div1(T x, T y) {\\\n"
  "  return y == 0 ? (T)0 : y == (T)-1 ? (T)(0 - (U)x) : (T)(x / y); }\\\n"
  "  FGK_RS_F T fgk_rs_mod1(T x, T y) {\\\n"
  "  return y == 0 || y == (T)-1 ? (T)0 : (T)(x % y); }\n"
  "#define FGK_RS_DIVU(T) FGK_RS_F T fgk_rs_div1(T x, T y) {\\\n"
  "  return y == 0 ? (T)0 : (T)(x / y); }\\\n"
  "  FGK_RS_F T fgk_rs_mod1(T x, T y) { return y == 0 ? (T)0 : (T)(x % y); }\n"
  "#define FGK_RS_DIVN(T, N) FGK_RS_F T##N fgk_rs_div1(T##N x, T##N y) {\\\n"
  "  T##N r; for (int i = 0; i < N; i++) r[i] = fgk_rs_div1(x[i], y[i]);\\\n"
  "  return r; }\\\n"
  "  FGK_RS_F T##N fgk_rs_mod1(T##N x, T##N y) {\\\n"
  "  T##N r; for (int i = 0; i < N; i++) r[i] = fgk_rs_mod1(x[i], y[i]);\\\n"
  "  return r; }\n"
  "#define FGK_RS_DIVV(T) FGK_RS_DIVN(T, 2) FGK_RS_DIVN(T, 3) "
  "FGK_RS_DIVN(T, 4)\n"
  "#define FGK_RS_DIVF(T) FGK_RS_F T fgk_rs_div1(T x, T y) { return x / y; }\n"
  "#define FGK_RS_DIVFV(T) FGK_RS_DIVF(T) FGK_RS_DIVF(T##2) FGK_RS_DIVF(T##3) "
  "FGK_RS_DIVF(T##4)\n"
  "FGK_RS_DIVS(char, uchar) FGK_RS_DIVU(uchar) FGK_RS_DIVS(short, ushort)\n"
  "FGK_RS_DIVU(ushort) FGK_RS_DIVS(int, uint) FGK_RS_DIVU(uint)\n"
  "FGK_RS_DIVS(long, ulong) FGK_RS_DIVU(ulong)\n"
  "FGK_RS_DIVV(char) FGK_RS_DIVV(uchar) FGK_RS_DIVV(short) "
  "FGK_RS_DIVV(ushort)\n"
  "FGK_RS_DIVV(int) FGK_RS_DIVV(uint) FGK_RS_DIVV(long) FGK_RS_DIVV(ulong)\n"
  "FGK_RS_DIVFV(float)\n"
  "#define rsGetDimX(c) ((uint)(c).x)\n"
  "#define rsGetDimY(c) ((uint)(c).y)\n"
  "#define rsGetDimZ(c) ((uint)(c).z)\n"
  "#define rsAllocationGetDimX(a) ((uint)(a).x)\n"
  "#define rsAllocationGetDimY(a) ((uint)(a).y)\n"
  "#define rsAllocationGetDimZ(a) ((uint)(a).z)\n"
  "static inline long fgk_rs_idx(rs_allocation a, long x, long y, long z) "
  "{\n"
  "  long X = a.x > 0 ? a.x : 1, Y = a.y > 0 ? a.y : 1, "
  "Z = a.z > 0 ? a.z : 1;\n"
  "  x = clamp(x, 0L, X - 1);\n  y = clamp(y, 0L, Y - 1);\n"
  "  z = clamp(z, 0L, Z - 1);\n"
  "  return (z * Y + y) * X + x; }\n"
  FGR_SIDX
  FGR_EPTR("__global ")
  /* RenderScript's implicit vector conversions (emit_hooks.c; double
   * added where the kernel has it) */
  "#define FGK_RS_CV1(D, T, N, S) \\\n"
  "  FGK_RS_F D fgk_rs_cv_##D(S##N v) { return convert_##D(v); }\\\n"
  "  FGK_RS_F D fgk_rs_cv_##D(S v) { return (D)((T)v); }\n"
  "#define FGK_RS_CV(D, T, N) FGK_RS_CV1(D, T, N, char) "
  "FGK_RS_CV1(D, T, N, uchar)\\\n"
  "  FGK_RS_CV1(D, T, N, short) FGK_RS_CV1(D, T, N, ushort) "
  "FGK_RS_CV1(D, T, N, int)\\\n"
  "  FGK_RS_CV1(D, T, N, uint) FGK_RS_CV1(D, T, N, long) "
  "FGK_RS_CV1(D, T, N, ulong)\\\n"
  "  FGK_RS_CV1(D, T, N, float)\n"
  "#define FGK_RS_LD1(T, S) ((__global const S *)a.p)[i]\n"
  "#define FGK_RS_LDN(T, S, N) vload##N(i, (__global const S *)a.p)\n"
  "#define FGK_RS_ST1(T, S) ((__global S *)a.p)[i] = v\n"
  "#define FGK_RS_STN(T, S, N) vstore##N(v, i, (__global S *)a.p)\n"
  "#define FGK_RS_PLD1(T, S) ((const S *)q)[0]\n"
  "#define FGK_RS_PLDN(T, S, N) vload##N(0, (const S *)q)\n"
  "#define FGK_RS_PST1(T, S) ((S *)q)[0] = x\n"
  "#define FGK_RS_PSTN(T, S, N) vstore##N(x, 0, (S *)q)\n"
  "#define FGK_RS_GETX(T, LD, ST, ES, PLD, PST) \\\n"
  "  static inline void fgk_rs_st_##T(rs_allocation a, long i, T v) "
  "{ if (i >= 0) ST; }\\\n"
  FGR_SET
  "  static inline T fgk_rs_ld_##T(rs_allocation a, long i) "
  "{ return LD; }\\\n"
  "  FGK_RS_F T rsGetElementAt_##T(rs_allocation a, uint x) {\\\n"
  "    return fgk_rs_ld_##T(a, fgk_rs_idx(a, x, 0, 0)); }\\\n"
  "  FGK_RS_F T rsGetElementAt_##T(rs_allocation a, uint x, uint y) {\\\n"
  "    return fgk_rs_ld_##T(a, fgk_rs_idx(a, x, y, 0)); }\\\n"
  "  FGK_RS_F T rsGetElementAt_##T(rs_allocation a, uint x, uint y, "
  "uint z) {\\\n"
  "    return fgk_rs_ld_##T(a, fgk_rs_idx(a, x, y, z)); }\\\n"
  FGR_PTR_READ
  "  static inline T fgk_rs_vld_##T(fgk_rs_view v, long p) {\\\n"
  "    if (v.q) { uchar *q = v.q + p; return PLD; }\\\n"
  "    return fgk_rs_ld_##T(fgk_rs_alloc(v.p + p, 1, 1, 1), 0); }\\\n"
  "  static inline void fgk_rs_vst_##T(fgk_rs_view v, long p, T x) {\\\n"
  "    if (v.q) { uchar *q = v.q + p; PST; return; }\\\n"
  "    fgk_rs_st_##T(fgk_rs_alloc(v.p + p, 1, 1, 1), 0, x); }\\\n"
  FGR_VIEW("ES")
  "#define FGK_RS_GETS(T) FGK_RS_GETX(T, FGK_RS_LD1(T, T), "
  "FGK_RS_ST1(T, T), (long)sizeof(T), FGK_RS_PLD1(T, T), "
  "FGK_RS_PST1(T, T))\\\n"
  "  FGK_RS_GETX(T##2, FGK_RS_LDN(T##2, T, 2), FGK_RS_STN(T##2, T, 2), "
  "(long)sizeof(T##2), FGK_RS_PLDN(T##2, T, 2), "
  "FGK_RS_PSTN(T##2, T, 2))\\\n"
  "  FGK_RS_GETX(T##3, FGK_RS_LDN(T##3, T, 3), FGK_RS_STN(T##3, T, 3), "
  "3 * (long)sizeof(T), FGK_RS_PLDN(T##3, T, 3), "
  "FGK_RS_PSTN(T##3, T, 3))\\\n"
  "  FGK_RS_GETX(T##4, FGK_RS_LDN(T##4, T, 4), FGK_RS_STN(T##4, T, 4), "
  "(long)sizeof(T##4), FGK_RS_PLDN(T##4, T, 4), "
  "FGK_RS_PSTN(T##4, T, 4))\n"
  "FGK_RS_GETS(char) FGK_RS_GETS(uchar) FGK_RS_GETS(short)\n"
  /* a struct pointee (emit_hooks.c): its bytes in the field */
  "#define FGK_RS_SGET(T) \\\n"
  "  static inline void fgk_rs_st_##T(rs_allocation a, long i, T v) "
  "{ if (i >= 0) ((__global T *)a.p)[i] = v; }\\\n"
  "  static inline T fgk_rs_ld_##T(rs_allocation a, long i) "
  "{ return ((__global const T *)a.p)[i]; }\\\n"
  FGR_PTR_RW
  "  static inline T fgk_rs_vld_##T(fgk_rs_view v, long p) {\\\n"
  "    if (v.q) return *(const T *)(v.q + p);\\\n"
  "    return fgk_rs_ld_##T(fgk_rs_alloc(v.p + p, 1, 1, 1), 0); }\\\n"
  "  static inline void fgk_rs_vst_##T(fgk_rs_view v, long p, T x) {\\\n"
  "    if (v.q) { *(T *)(v.q + p) = x; return; }\\\n"
  "    fgk_rs_st_##T(fgk_rs_alloc(v.p + p, 1, 1, 1), 0, x); }\\\n"
  FGR_VIEW_STRUCT("(long)sizeof(T)")
  "FGK_RS_GETS(ushort) FGK_RS_GETS(int) FGK_RS_GETS(uint)\n"
  "FGK_RS_GETS(long) FGK_RS_GETS(ulong) FGK_RS_GETS(float)\n"
  FGR_YUV
  FGR_RAND
  /* atomics on an allocation's elements, OpenCL C's 32-bit atomics */
  "#define FGK_RS_APTR(T) \\\n"
  "  FGK_RS_F volatile __global T *fgk_rs_aptr_##T(rs_allocation a, "
  "uint x) {\\\n"
  "    return (volatile __global T *)a.p + fgk_rs_idx(a, x, 0, 0); }\\\n"
  "  FGK_RS_F volatile __global T *fgk_rs_aptr_##T(rs_allocation a, uint x, "
  "uint y) {\\\n"
  "    return (volatile __global T *)a.p + fgk_rs_idx(a, x, y, 0); }\\\n"
  "  FGK_RS_F volatile __global T *fgk_rs_aptr_##T(rs_allocation a, uint x, "
  "uint y, uint z) {\\\n"
  "    return (volatile __global T *)a.p + fgk_rs_idx(a, x, y, z); }\\\n"
  "  FGK_RS_F T rsAtomicInc(volatile __global T *p) { return atomic_inc(p); "
  "}\\\n"
  "  FGK_RS_F T rsAtomicDec(volatile __global T *p) { return atomic_dec(p); "
  "}\\\n"
  "  FGK_RS_F T rsAtomicAdd(volatile __global T *p, T v) {\\\n"
  "    return atomic_add(p, v); }\\\n"
  "  FGK_RS_F T rsAtomicSub(volatile __global T *p, T v) {\\\n"
  "    return atomic_sub(p, v); }\\\n"
  "  FGK_RS_F T rsAtomicAnd(volatile __global T *p, T v) {\\\n"
  "    return atomic_and(p, v); }\\\n"
  "  FGK_RS_F T rsAtomicOr(volatile __global T *p, T v) {\\\n"
  "    return atomic_or(p, v); }\\\n"
  "  FGK_RS_F T rsAtomicXor(volatile __global T *p, T v) {\\\n"
  "    return atomic_xor(p, v); }\\\n"
  "  FGK_RS_F T rsAtomicMin(volatile __global T *p, T v) {\\\n"
  "    return atomic_min(p, v); }\\\n"
  "  FGK_RS_F T rsAtomicMax(volatile __global T *p, T v) {\\\n"
  "    return atomic_max(p, v); }\\\n"
  "  FGK_RS_F T rsAtomicCas(volatile __global T *p, T c, T v) {\\\n"
  "    return atomic_cmpxchg(p, c, v); }\n"
  "FGK_RS_APTR(int) FGK_RS_APTR(uint)\n"
  /* RenderScript's one-argument fract (OpenCL C has only the one that
   * writes the floor), and the deprecated rsClamp (integers) */
  "#define FGK_RS_FRACT1(T) FGK_RS_F T fract(T v) { T i; return fract(v, "
  "&i); }\n"
  "FGK_RS_FRACT1(float) FGK_RS_FRACT1(float2) FGK_RS_FRACT1(float3)\n"
  "FGK_RS_FRACT1(float4)\n"
  /* RenderScript's overload sets: rsClamp of integer scalars only, clamp
   * of float and integer types (no double: clamp(float, double, double)
   * is the float one) */
  "#define FGK_RS_RSCLAMP(T) FGK_RS_F T rsClamp(T a, T lo, T hi) {\\\n"
  "  return clamp(a, lo, hi); }\n"
  "FGK_RS_RSCLAMP(char) FGK_RS_RSCLAMP(uchar) FGK_RS_RSCLAMP(short)\n"
  "FGK_RS_RSCLAMP(ushort) FGK_RS_RSCLAMP(int) FGK_RS_RSCLAMP(uint)\n"
  "#define FGK_RS_CL1(T) FGK_RS_F T fgk_rs_clamp(T a, T b, T c) "
  "{ return clamp(a, b, c); }\n"
  "#define FGK_RS_CLV(T) FGK_RS_CL1(T) FGK_RS_CL1(T##2) FGK_RS_CL1(T##3) "
  "FGK_RS_CL1(T##4)\\\n"
  "  FGK_RS_F T##2 fgk_rs_clamp(T##2 a, T b, T c) { return clamp(a, b, c); "
  "}\\\n"
  "  FGK_RS_F T##3 fgk_rs_clamp(T##3 a, T b, T c) { return clamp(a, b, c); "
  "}\\\n"
  "  FGK_RS_F T##4 fgk_rs_clamp(T##4 a, T b, T c) { return clamp(a, b, c); "
  "}\n"
  "FGK_RS_CLV(float) FGK_RS_CLV(char) FGK_RS_CLV(uchar) FGK_RS_CLV(short)\n"
  "FGK_RS_CLV(ushort) FGK_RS_CLV(int) FGK_RS_CLV(uint) FGK_RS_CLV(long)\n"
  "FGK_RS_CLV(ulong)\n"
  /* F pasted directly (PoCL's headers define some builtins as macros,
   * which a nested expansion would replace before the paste) */
  "#define FGK_RS_M2V(F) "
  "FGK_RS_F float fgk_rs_##F(float a, float b) { return F(a, b); }\\\n"
  "  FGK_RS_F float2 fgk_rs_##F(float2 a, float2 b) { return F(a, b); }\\\n"
  "  FGK_RS_F float3 fgk_rs_##F(float3 a, float3 b) { return F(a, b); }\\\n"
  "  FGK_RS_F float4 fgk_rs_##F(float4 a, float4 b) { return F(a, b); }\n"
  "FGK_RS_M2V(atan2) FGK_RS_M2V(copysign) FGK_RS_M2V(fdim) FGK_RS_M2V(fmod)\n"
  "FGK_RS_M2V(hypot) FGK_RS_M2V(nextafter) FGK_RS_M2V(pow)\n"
  "FGK_RS_M2V(remainder) FGK_RS_M2V(powr) FGK_RS_M2V(native_powr)\n"
  /* RenderScript's native_ functions that OpenCL C has only in full
   * precision (within the native ones' bounds), and lgamma with its
   * sign (OpenCL C's lgamma_r) */
  "#define native_acos acos\n#define native_acosh acosh\n"
  "#define native_acospi acospi\n#define native_asin asin\n"
  "#define native_asinh asinh\n#define native_asinpi asinpi\n"
  "#define native_atan atan\n#define native_atanh atanh\n"
  "#define native_atanpi atanpi\n#define native_atan2 atan2\n"
  "#define native_atan2pi atan2pi\n#define native_cbrt cbrt\n"
  "#define native_cosh cosh\n#define native_cospi cospi\n"
  "#define native_expm1 expm1\n#define native_hypot hypot\n"
  "#define native_log1p log1p\n#define native_rootn rootn\n"
  "#define native_sincos sincos\n#define native_sinh sinh\n"
  "#define native_sinpi sinpi\n#define native_tanh tanh\n"
  "#define native_tanpi tanpi\n"
  /* the sign as C's lgammaf_r gives it (the CPU backend's): -1 for -0 and
   * for a negative non-integer whose floor is odd, else 1; NVIDIA's
   * lgamma_r left it 0 */
  "FGK_RS_F int fgk_rs_lgs(float v) {\n"
  "  if (v == 0.f) return signbit(v) ? -1 : 1;\n"
  "  if (!(v < 0.f) || isinf(v)) return 1;\n"
  "  float f = floor(v);\n"
  "  return f == v || fmod(f, 2.f) == 0.f ? 1 : -1; }\n"
  "FGK_RS_F float lgamma(float v, int *s) {\n"
  "  *s = fgk_rs_lgs(v); return lgamma(v); }\n"
  "FGK_RS_F float2 lgamma(float2 v, int2 *s) {\n"
  "  *s = (int2)(fgk_rs_lgs(v.x), fgk_rs_lgs(v.y)); return lgamma(v); }\n"
  "FGK_RS_F float3 lgamma(float3 v, int3 *s) {\n"
  "  *s = (int3)(fgk_rs_lgs(v.x), fgk_rs_lgs(v.y), fgk_rs_lgs(v.z));\n"
  "  return lgamma(v); }\n"
  "FGK_RS_F float4 lgamma(float4 v, int4 *s) {\n"
  "  *s = (int4)(fgk_rs_lgs(v.x), fgk_rs_lgs(v.y), fgk_rs_lgs(v.z),\n"
  "              fgk_rs_lgs(v.w));\n"
  "  return lgamma(v); }\n";

const char fgr_compat_cl_f64[] = "FGK_RS_GETS(double)\n"
  "FGK_RS_DIVFV(double)\n"
  "FGK_RS_FRACT1(double) FGK_RS_FRACT1(double2) FGK_RS_FRACT1(double3)\n"
  "FGK_RS_FRACT1(double4)\n";

static bool name_in(const char *const *list, const char *p, int len) {
  for (int k = 0; list[k]; k++) {
    size_t n = strlen(list[k]);
    if (n && list[k][n - 1] == '*') {
      if ((size_t)len >= n - 1 && !memcmp(p, list[k], n - 1))
        return true;
    } else if (n == (size_t)len && !memcmp(p, list[k], n)) {
      return true;
    }
  }
  return false;
}

bool fgr_runtime_has(const char *p, int len) {
  return name_in(fgr_c_renames, p, len) || name_in(fgr_runtime_names, p, len);
}

bool fgr_host_runtime_has(const char *p, int len) {
  static const char *const names[] = {"rsDebug", "rsSendToClient",
                                      "rsSendToClientBlocking", "rsRand",
                                      NULL};
  for (int k = 0; names[k]; k++)
    if ((int)strlen(names[k]) == len && !memcmp(names[k], p, (size_t)len))
      return true;
  return (len > 8 && !memcmp(p, "rsMatrix", 8)) || fgr_time_has(p, len);
}
