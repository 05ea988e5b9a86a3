/* fuzz/fuzz_diff.c - differential libFuzzer target of the compiler: the
 * input bytes drive a generator of random VALID graphs (small inputs of a
 * few element types and shapes; pointwise operators written with the DSL:
 * arithmetic, comparisons, selects, built-ins of builtins.h with or
 * without their domains respected, conversions safe and saturating,
 * swizzles, variables, if/else and counted for loops, stencil reads;
 * operators of the library's table called with valid arguments through
 * fg_ops_call; reductions; multi-output operators; RenderScript mapping
 * kernels from a small grammar as .rs text).  A step the builder refuses
 * anyway is dropped and the graph built again without it, so nearly every
 * input compiles.  Each graph is compiled and run fused and unfused
 * (FG_FUSION_ON, FG_FUSION_OFF) on the CPU backend and every output
 * compared: DESIGN.md promises the same bits (integers exact, floats bit
 * for bit, any NaN equal to any NaN); the fused program runs over
 * buffers (fg_buffer: on the device, some wrapping the host memory) too,
 * to the bytes of its run over host memory.  With FG_DIFF_OPENCL=1 (=unfused)
 * the fused (unfused) program also builds and runs on OpenCL, its outputs
 * the CPU's bits unless an operation of bounded error took part (see
 * opencl_close).  A mismatch prints the generated graph as text, the
 * fusion report and the Graphviz drawing, the first differing element of
 * each differing output, and aborts.  FG_DIFF_VERBOSE=1 prints why steps were dropped
 * and graphs not compiled, FG_DIFF_VERBOSE=2 each graph too; with
 * FG_DIFF_DROPS=file the dropped steps are appended there; FG_DIFF_SKIP=
 * 1,3 leaves steps 1 and 3 out (minimizing by hand).  Bounded: at most 6 steps, fields of at most 32 x 32
 * points, loops of at most 4 rounds, a run deadline; kernels are cached
 * under $FG_CACHE_DIR or $TMPDIR.  Built by scripts/fuzz; replayed by
 * tests/fuzz_replay_diff. */
#include "fieldgraph.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Text that does not fit is cut on purpose (a listing, generated code the
 * script parser then refuses). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define MAXF 32       /* fields in the pool */
#define MAXSTEPS 6
#define MAXIN 3
#define MAXOUT 6
#define MAXEXT 32     /* largest extent a field may grow to */
#define TXT (1 << 16) /* bytes of expression text */
#define LOG (1 << 15) /* bytes of the listing */

static fg_context *cpu, *ocl;
static int verbose;

/* ---- the generator's state ----------------------------------------------- */

typedef struct X {     /* an expression and its text */
  fg_expr *e;
  const char *s;
} X;

typedef struct gen {
  const uint8_t *d;
  size_t n, at;
  uint64_t rng;        /* bytes past the input's end */
  fg_graph *g;
  fg_field *pool[MAXF];
  char name[MAXF][16];
  int used[MAXF];
  int npool;
  fg_shape shape;      /* the inputs' field shape */
  fg_type in_type[MAXIN];
  int nin;
  fg_rs_script *scripts[MAXSTEPS];
  int nscripts;
  float lists[8][256]; /* storage of list arguments */
  fg_op_list list[8];
  int nlists;
  int inexact;         /* an operation whose OpenCL result may differ in
                          its last places (transcendentals, /, sqrt) */
  char picks[MAXSTEPS][5]; /* channels' strings */
  int npicks;
  char txt[TXT];
  size_t txtlen;
  char log[LOG];
  size_t loglen;
} gen;

/* The next input byte; past the end, a sequence seeded by the input, so
 * short inputs still make varied graphs. */
static unsigned byte(gen *G) {
  if (G->at < G->n)
    return G->d[G->at++];
  G->rng ^= G->rng << 13;
  G->rng ^= G->rng >> 7;
  G->rng ^= G->rng << 17;
  return (unsigned)(G->rng >> 24) & 255;
}
static unsigned pick(gen *G, unsigned n) { return n ? byte(G) % n : 0; }
static int chance(gen *G, unsigned percent) {
  return byte(G) % 100 < percent;
}

static void logf_(gen *G, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void logf_(gen *G, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (G->loglen < LOG) {
    int k = vsnprintf(G->log + G->loglen, LOG - G->loglen, fmt, ap);
    if (k > 0)
      G->loglen += (size_t)k < LOG - G->loglen ? (size_t)k
                                                 : LOG - G->loglen - 1;
  }
  va_end(ap);
}

/* Text in the generator's arena ("..." once it is full). */
static const char *str(gen *G, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static const char *str(gen *G, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = G->txt + G->txtlen;
  size_t room = TXT - G->txtlen;
  int k = room > 1 ? vsnprintf(p, room, fmt, ap) : -1;
  va_end(ap);
  if (k < 0 || (size_t)k >= room)
    return "...";
  G->txtlen += (size_t)k + 1;
  return p;
}

static int is_float(fg_elem e) { return e == FG_F32 || e == FG_F64; }
static int is_signed(fg_elem e) {
  return e == FG_I8 || e == FG_I16 || e == FG_I32 || e == FG_I64;
}
/* Tensor elements of a field, 0 for big tensors and matrices. */
static int width_of(fg_type t) {
  if (t.tensor.ndim > 1 || fg_type_is_big(t))
    return 0;
  return fg_type_tensor_elements(t);
}
static int dims(fg_field *f) { return fg_field_type(f).field.ndim; }
static fg_shape shape_of(fg_field *f) { return fg_field_type(f).field; }

static const fg_elem field_elems[] = {FG_U8, FG_I8, FG_U16, FG_I16, FG_I32,
                                      FG_U32, FG_I64, FG_U64, FG_F32, FG_F64};
#define NELEMS (int)(sizeof field_elems / sizeof *field_elems)

/* Adds a field to the pool under a short name; returns it. */
static fg_field *add(gen *G, fg_field *f, const char *what) {
  if (!f)
    logf_(G, "  refused: %s\n", what);
  if (!f || G->npool >= MAXF)
    return f;
  char ts[FG_TYPE_STR_MAX];
  snprintf(G->name[G->npool], sizeof G->name[0], "f%d", G->npool);
  logf_(G, "  %s = %s  : %s\n", G->name[G->npool], what,
        fg_type_str(fg_field_type(f), ts, sizeof ts));
  G->pool[G->npool++] = f;
  return f;
}
static const char *nm(gen *G, fg_field *f) {
  for (int i = 0; i < G->npool; i++)
    if (G->pool[i] == f)
      return G->name[i];
  return "?";
}

/* A random pool field for which ok() holds (NULL ok: any small tensor);
 * NULL when none. */
static fg_field *choose(gen *G, int (*ok)(gen *, fg_field *)) {
  int idx[MAXF], k = 0;
  for (int i = 0; i < G->npool; i++)
    if (width_of(fg_field_type(G->pool[i])) > 0 && (!ok || ok(G, G->pool[i])))
      idx[k++] = i;
  if (!k)
    return NULL;
  /* later fields are likelier: chains rather than fans of the inputs */
  int j = (int)pick(G, (unsigned)(2 * k));
  j = j >= k ? k - 1 - (j - k) / 2 : j;
  G->used[idx[j]] = 1;
  return G->pool[idx[j]];
}

/* ---- expressions ------------------------------------------------------- */

typedef struct body {
  fg_op *op;
  X leaf[8];     /* reads, variables, loop counters */
  int nleaf;
  fg_field *src[MAXF]; /* fields readable here (thread shape or 0-D) */
  int nsrc;
  int budget;    /* nodes left */
} body;

static const char *tname(fg_elem e) { return fg_elem_name(e); }

static X mk(fg_expr *e, const char *s) { return (X){e, s}; }

static X constant(gen *G, body *B, fg_elem e) {
  static const float fvals[] = {0.0f, 1.0f, -1.0f, 0.5f, 2.0f, -0.0f, 3.25f,
                                255.0f, 1e-3f, 1e30f, -7.5f, 100.0f};
  static const int32_t ivals[] = {0, 1, -1, 2, 3, 7, 255, -128, 65535,
                                  0x7fffffff, (int32_t)0x80000000, 31, 64};
  fg_op *op = B->op;
  unsigned k = byte(G);
  if (is_float(e)) {
    float v = fvals[k % (sizeof fvals / sizeof *fvals)];
    if (k >= 250)
      v = k == 250 ? NAN : k == 251 ? INFINITY : k == 252 ? -INFINITY
                                               : 1.0e-40f;
    if (e == FG_F64)
      return mk(fg_double(op, v), str(G, "%gd", (double)v));
    return mk(fg_float(op, v), str(G, "%gf", (double)v));
  }
  int32_t v = ivals[k % (sizeof ivals / sizeof *ivals)];
  switch (e) {
  case FG_I32: return mk(fg_int(op, v), str(G, "%d", v));
  case FG_U32: return mk(fg_uint(op, (uint32_t)v), str(G, "%uu", (uint32_t)v));
  case FG_I64: return mk(fg_long(op, v), str(G, "%dL", v));
  case FG_U64: return mk(fg_ulong(op, (uint64_t)(int64_t)v),
                         str(G, "%luUL", (unsigned long)(int64_t)v));
  default:
    return mk(fg_convert(fg_int(op, v), e, 1),
              str(G, "(%s)%d", tname(e), v));
  }
}

/* Largest and smallest values of e that every float type holds, within
 * e's range: what a float is clamped to before an exact conversion. */
static void int_range(fg_elem e, double *lo, double *hi) {
  switch (e) {
  case FG_I8: *lo = -128; *hi = 127; break;
  case FG_U8: *lo = 0; *hi = 255; break;
  case FG_I16: *lo = -32768; *hi = 32767; break;
  case FG_U16: *lo = 0; *hi = 65535; break;
  case FG_I32: *lo = -2147483648.0; *hi = 2147483520.0; break;
  case FG_U32: *lo = 0; *hi = 4294967040.0; break;
  case FG_I64: *lo = -9.2e18; *hi = 9.2e18; break;
  default: *lo = 0; *hi = 1.8e19; break;
  }
}

static const char swz[] = "xyzw";

/* e converted to elem with width w by defined conversions only: a bool
 * becomes 0/1 first, floats are clamped (fmax/fmin, which drop NaN) into
 * the integer type's range, or converted with saturation; vectors are
 * narrowed by a swizzle, scalars widened by replication. */
static X coerce(gen *G, body *B, X x, fg_elem elem, int w) {
  if (!x.e)
    return x;
  fg_op *op = B->op;
  fg_elem e = fg_expr_elem(x.e);
  int xw = fg_expr_width(x.e);
  if (e == FG_BOOL) {
    x = mk(fg_select(fg_int(op, 0), fg_int(op, 1), x.e),
           str(G, "(%s?1:0)", x.s));
    e = FG_I32;
  }
  if (xw > 1 && xw != w) {
    char c[5] = {0};
    int k = w > 1 ? w : 1;
    unsigned r = byte(G);
    for (int i = 0; i < k; i++)
      c[i] = swz[(r >> (2 * i)) % (unsigned)xw];
    x = mk(fg_swizzle(x.e, c), str(G, "%s.%s", x.s, c));
    xw = k;
  }
  if (e == elem && xw == w)
    return x;
  if (is_float(e) && !is_float(elem)) {
    if (chance(G, 50))
      return mk(fg_convert_sat(x.e, elem, w),
                str(G, "convert_%sx%d_sat_rte(%s)", tname(elem), w, x.s));
    double lo, hi;
    int_range(elem, &lo, &hi);
    fg_expr *l = e == FG_F64 ? fg_double(op, lo) : fg_float(op, (float)lo);
    fg_expr *h = e == FG_F64 ? fg_double(op, hi) : fg_float(op, (float)hi);
    if (e == FG_F32 && (float)hi > hi) /* rounded up: out of range */
      h = fg_float(op, nextafterf((float)hi, 0));
    return mk(fg_convert(fg_fmin(fg_fmax(x.e, l), h), elem, w),
              str(G, "convert_%sx%d(fmin(fmax(%s,%g),%g))", tname(elem), w,
                  x.s, lo, hi));
  }
  return mk(fg_convert(x.e, elem, w),
            str(G, "convert_%sx%d(%s)", tname(elem), w, x.s));
}

static X expr(gen *G, body *B, int depth);

/* A leaf: a read (at the thread's point, or a stencil read at an offset
 * with a border rule), a constant, a thread coordinate, a variable. */
static X leaf(gen *G, body *B) {
  fg_op *op = B->op;
  unsigned k = pick(G, 10);
  if (k < 5 && B->nleaf)
    return B->leaf[pick(G, (unsigned)B->nleaf)];
  if (k == 5 && B->nsrc) {
    fg_field *f = B->src[pick(G, (unsigned)B->nsrc)];
    int nd = dims(f);
    if (nd >= 1) {
      static const fg_border borders[] = {FG_BORDER_CLAMP, FG_BORDER_MIRROR,
                                          FG_BORDER_REFLECT, FG_BORDER_WRAP};
      static const char *const bn[] = {"clamp", "mirror", "reflect", "wrap"};
      int b = (int)pick(G, 4);
      fg_expr *c[3];
      int off[3];
      static const fg_thread_const axes[3] = {FG_LAYER, FG_ROW, FG_COLUMN};
      for (int i = 0; i < nd; i++) {
        off[i] = (int)pick(G, 5) - 2;
        c[i] = fg_addi(fg_thread(op, axes[3 - nd + i]), off[i]);
      }
      fg_expr *r = nd == 1 ? fg_read_tensor_at_border(op, f, borders[b], 1,
                                                      c[0])
                   : nd == 2 ? fg_read_tensor_at_border(op, f, borders[b], 2,
                                                        c[0], c[1])
                             : fg_read_tensor_at_border(op, f, borders[b], 3,
                                                        c[0], c[1], c[2]);
      return mk(r, str(G, "%s[%+d,%+d,%+d %s]", nm(G, f), off[0],
                       nd > 1 ? off[1] : 0, nd > 2 ? off[2] : 0, bn[b]));
    }
  }
  if (k == 6) {
    static const fg_thread_const t[] = {FG_COLUMN, FG_ROW, FG_COLUMNS,
                                        FG_ROWS};
    static const char *const tn[] = {"column", "row", "columns", "rows"};
    int i = (int)pick(G, 4);
    return mk(fg_thread(op, t[i]), tn[i]);
  }
  return constant(G, B, field_elems[pick(G, NELEMS)]);
}

/* Built-ins by argument class. */
enum { BF, BI, BA, BFN, BFI, BG, BR, BS, BN, BM24, BNAT, BFAST };
typedef struct bi {
  const char *name;
  int nargs, cls;
  int domain;   /* 1: argument >= 0 wanted, 2: in [-1, 1] */
} bi;
static const bi builtins[] = {
  {"acos", 1, BF, 2}, {"acosh", 1, BF, 1}, {"acospi", 1, BF, 2},
  {"asin", 1, BF, 2}, {"asinh", 1, BF, 0}, {"asinpi", 1, BF, 2},
  {"atan", 1, BF, 0}, {"atanh", 1, BF, 2}, {"atanpi", 1, BF, 0},
  {"cbrt", 1, BF, 0}, {"ceil", 1, BF, 0}, {"cos", 1, BF, 0},
  {"cosh", 1, BF, 0}, {"cospi", 1, BF, 0}, {"erf", 1, BF, 0},
  {"erfc", 1, BF, 0}, {"exp", 1, BF, 0}, {"exp2", 1, BF, 0},
  {"exp10", 1, BF, 0}, {"expm1", 1, BF, 0}, {"fabs", 1, BF, 0},
  {"floor", 1, BF, 0}, {"lgamma", 1, BF, 0}, {"log", 1, BF, 1},
  {"log2", 1, BF, 1}, {"log10", 1, BF, 1}, {"log1p", 1, BF, 1},
  {"logb", 1, BF, 0}, {"rint", 1, BF, 0}, {"round", 1, BF, 0},
  {"rsqrt", 1, BF, 1}, {"sin", 1, BF, 0}, {"sinh", 1, BF, 0},
  {"sinpi", 1, BF, 0}, {"sqrt", 1, BF, 1}, {"tan", 1, BF, 0},
  {"tanh", 1, BF, 0}, {"tanpi", 1, BF, 0}, {"tgamma", 1, BF, 0},
  {"trunc", 1, BF, 0}, {"degrees", 1, BF, 0}, {"radians", 1, BF, 0},
  {"sign", 1, BF, 0},
  {"atan2", 2, BF, 0}, {"atan2pi", 2, BF, 0}, {"copysign", 2, BF, 0},
  {"fdim", 2, BF, 0}, {"fmax", 2, BF, 0}, {"fmin", 2, BF, 0},
  {"fmod", 2, BF, 0}, {"hypot", 2, BF, 0}, {"maxmag", 2, BF, 0},
  {"minmag", 2, BF, 0}, {"nextafter", 2, BF, 0}, {"pow", 2, BF, 0},
  {"powr", 2, BF, 1}, {"remainder", 2, BF, 0}, {"step", 2, BF, 0},
  {"fma", 3, BF, 0}, {"mad", 3, BF, 0}, {"mix", 3, BF, 0},
  {"ldexp", 2, BFN, 0}, {"pown", 2, BFN, 0}, {"rootn", 2, BFN, 0},
  {"ilogb", 1, BFI, 0},
  {"dot", 2, BG, 0}, {"distance", 2, BG, 0}, {"length", 1, BG, 0},
  {"normalize", 1, BG, 0}, {"cross", 2, BG, 0},
  {"fast_distance", 2, BFAST, 0}, {"fast_length", 1, BFAST, 0},
  {"fast_normalize", 1, BFAST, 0}, {"native_divide", 2, BNAT, 0},
  {"isequal", 2, BR, 0}, {"isnotequal", 2, BR, 0}, {"isgreater", 2, BR, 0},
  {"isgreaterequal", 2, BR, 0}, {"isless", 2, BR, 0},
  {"islessequal", 2, BR, 0}, {"islessgreater", 2, BR, 0},
  {"isfinite", 1, BR, 0}, {"isinf", 1, BR, 0}, {"isnan", 1, BR, 0},
  {"isnormal", 1, BR, 0}, {"isordered", 2, BR, 0},
  {"isunordered", 2, BR, 0}, {"signbit", 1, BR, 0},
  {"abs", 1, BI, 0}, {"clz", 1, BI, 0}, {"abs_diff", 2, BI, 0},
  {"add_sat", 2, BI, 0}, {"hadd", 2, BI, 0}, {"rhadd", 2, BI, 0},
  {"mul_hi", 2, BI, 0}, {"rotate", 2, BI, 0}, {"sub_sat", 2, BI, 0},
  {"mad_hi", 3, BI, 0}, {"mad_sat", 3, BI, 0},
  {"mad24", 3, BM24, 0}, {"mul24", 2, BM24, 0},
  {"max", 2, BA, 0}, {"min", 2, BA, 0}, {"clamp", 3, BA, 0},
  {"bitselect", 3, BA, 0},
  {"any", 1, BS, 0}, {"all", 1, BS, 0}, {"nan", 1, BN, 0},
};
#define NBUILTINS (int)(sizeof builtins / sizeof *builtins)

/* A call of a random built-in, its arguments made to fit (or, for a few
 * calls, its domain left unrespected: NaN and infinities are fine). */
static X call(gen *G, body *B, int depth) {
  const bi *f = &builtins[pick(G, NBUILTINS)];
  X a = expr(G, B, depth - 1);
  if (!a.e)
    return a;
  fg_elem e = fg_expr_elem(a.e);
  int w = fg_expr_width(a.e);
  fg_op *op = B->op;
  switch (f->cls) {
  case BF: case BFN: case BFI: case BR: case BG:
    if (!is_float(e))
      e = chance(G, 70) ? FG_F32 : FG_F64;
    break;
  case BFAST: case BNAT:
    e = FG_F32;
    break;
  case BI:
    if (is_float(e) || e == FG_BOOL)
      e = field_elems[pick(G, 8)];
    break;
  case BM24:
    e = chance(G, 50) ? FG_I32 : FG_U32;
    break;
  case BS:
    if (!is_signed(e))
      e = (fg_elem[]){FG_I8, FG_I16, FG_I32, FG_I64}[pick(G, 4)];
    break;
  case BN:
    e = chance(G, 50) ? FG_U32 : FG_U64;
    break;
  default:
    if (e == FG_BOOL)
      e = FG_I32;
    break;
  }
  if (f->cls == BG && !strcmp(f->name, "cross"))
    w = chance(G, 50) ? 3 : 4;
  a = coerce(G, B, a, e, w);
  if (f->domain && chance(G, 80)) {
    a = mk(fg_fabs(a.e), str(G, "fabs(%s)", a.s));
    if (f->domain == 2)
      a = mk(fg_fmin(a.e, e == FG_F64 ? fg_double(op, 1) : fg_float(op, 1)),
             str(G, "fmin(%s,1)", a.s));
  }
  if (f->cls == BM24) /* defined only for 24-bit operands */
    a = mk(fg_band(a.e, fg_convert(fg_int(op, 0xfff), e, w)),
           str(G, "(%s&0xfff)", a.s));
  static const char *const exact[] = {
      "fabs", "floor", "ceil", "trunc", "rint", "round", "copysign", "fmax",
      "fmin", "fdim", "fmod", "maxmag", "minmag", "nextafter", "sign", "step",
      "fma", "ldexp", "ilogb", "logb", NULL};
  if (f->cls == BF || f->cls == BFN || f->cls == BG || f->cls == BFAST ||
      f->cls == BNAT) {
    int ex = 0;
    for (int i = 0; exact[i]; i++)
      ex |= !strcmp(exact[i], f->name);
    G->inexact |= !ex;
  }
  fg_expr *args[3] = {a.e, NULL, NULL};
  const char *as[3] = {a.s, "", ""};
  for (int i = 1; i < f->nargs; i++) {
    X b = expr(G, B, depth - 1);
    fg_elem be = e;
    if (f->cls == BFN)
      be = FG_I32;
    b = coerce(G, B, b, be, w);
    if (f->cls == BFN) /* keep pown, rootn, ldexp reasonable */
      b = mk(fg_clamp(b.e, fg_convert(fg_int(op, -40), FG_I32, w),
                      fg_convert(fg_int(op, 40), FG_I32, w)),
             str(G, "clamp(%s,-40,40)", b.s));
    if (f->cls == BM24)
      b = mk(fg_band(b.e, fg_convert(fg_int(op, 0xfff), e, w)),
             str(G, "(%s&0xfff)", b.s));
    args[i] = b.e;
    as[i] = b.s;
  }
  if (!strcmp(f->name, "clamp") && chance(G, 90)) {
    /* lo <= hi: clamp is undefined otherwise */
    fg_expr *lo = args[1], *hi = args[2];
    args[1] = fg_min(lo, hi);
    args[2] = fg_max(lo, hi);
  }
  return mk(fg_call(f->name, f->nargs, args),
            str(G, "%s(%s%s%s%s%s)", f->name, as[0], f->nargs > 1 ? "," : "",
                as[1], f->nargs > 2 ? "," : "", as[2]));
}

/* A scalar condition: a comparison of two scalars, maybe combined. */
static X cond(gen *G, body *B, int depth) {
  X a = expr(G, B, depth - 1), b = expr(G, B, depth - 1);
  if (!a.e || !b.e)
    return mk(NULL, "");
  fg_elem e = fg_expr_elem(a.e);
  if (e == FG_BOOL)
    e = FG_I32;
  a = coerce(G, B, a, e, 1);
  b = coerce(G, B, b, e, 1);
  static fg_expr *(*const cmp[])(fg_expr *, fg_expr *) = {
      fg_lt, fg_le, fg_gt, fg_ge, fg_eq, fg_ne};
  static const char *const cn[] = {"<", "<=", ">", ">=", "==", "!="};
  int k = (int)pick(G, 6);
  X c = mk(cmp[k](a.e, b.e), str(G, "(%s %s %s)", a.s, cn[k], b.s));
  switch (depth <= 0 ? 3 : pick(G, 6)) {
  case 0: return mk(fg_lnot(c.e), str(G, "!%s", c.s));
  case 1: {
    X d = cond(G, B, depth - 1);
    return mk(fg_land(c.e, d.e), str(G, "(%s && %s)", c.s, d.s));
  }
  case 2: {
    X d = cond(G, B, depth - 1);
    return mk(fg_lor(c.e, d.e), str(G, "(%s || %s)", c.s, d.s));
  }
  default: return c;
  }
}

static X expr(gen *G, body *B, int depth) {
  if (depth <= 0 || B->budget <= 0)
    return leaf(G, B);
  B->budget--;
  fg_op *op = B->op;
  unsigned k = pick(G, 12);
  switch (k) {
  case 0: case 1: case 2: { /* arithmetic and bitwise */
    X a = expr(G, B, depth - 1), b = expr(G, B, depth - 1);
    if (!a.e || !b.e)
      return a.e ? a : b;
    fg_elem e = fg_expr_elem(a.e);
    if (e == FG_BOOL)
      e = FG_I32;
    int w = fg_expr_width(a.e);
    a = coerce(G, B, a, e, w);
    b = chance(G, 20) && fg_expr_width(b.e) == 1
            ? coerce(G, B, b, e, 1)      /* scalar with vector */
            : coerce(G, B, b, e, w);
    static fg_expr *(*const ops[])(fg_expr *, fg_expr *) = {
        fg_add, fg_sub, fg_mul, fg_div, fg_mod, fg_band, fg_bor, fg_bxor,
        fg_shl, fg_shr};
    static const char *const on[] = {"+", "-", "*", "/", "%",
                                     "&", "|", "^", "<<", ">>"};
    int i = (int)pick(G, is_float(e) ? 4 : 10);
    if (is_float(e) && i == 3)
      G->inexact = 1; /* OpenCL's float / is within 2.5 ulp */
    return mk(ops[i](a.e, b.e), str(G, "(%s %s %s)", a.s, on[i], b.s));
  }
  case 3: { /* select on a comparison */
    X a = expr(G, B, depth - 1), b = expr(G, B, depth - 1);
    if (!a.e || !b.e)
      return a.e ? a : b;
    fg_elem e = fg_expr_elem(a.e);
    if (e == FG_BOOL)
      e = FG_I32;
    int w = fg_expr_width(a.e);
    a = coerce(G, B, a, e, w);
    b = coerce(G, B, b, e, w);
    if (w == 1) {
      X c = cond(G, B, depth - 1);
      return mk(fg_select(a.e, b.e, c.e),
                str(G, "(%s ? %s : %s)", c.s, b.s, a.s));
    }
    /* vectors: a comparison of T gives the integer vector select wants */
    X c = coerce(G, B, expr(G, B, depth - 1), e, w);
    X d = coerce(G, B, expr(G, B, depth - 1), e, w);
    return mk(fg_select(a.e, b.e, fg_lt(c.e, d.e)),
              str(G, "select(%s,%s,%s<%s)", a.s, b.s, c.s, d.s));
  }
  case 4: { /* unary */
    X a = expr(G, B, depth - 1);
    if (!a.e)
      return a;
    fg_elem e = fg_expr_elem(a.e);
    if (e == FG_BOOL)
      return mk(fg_lnot(a.e), str(G, "!%s", a.s));
    if (!is_float(e) && chance(G, 50))
      return mk(fg_bnot(a.e), str(G, "~%s", a.s));
    return mk(fg_neg(a.e), str(G, "-%s", a.s));
  }
  case 5: case 6:
    return call(G, B, depth);
  case 7: { /* conversion, maybe to another width */
    X a = expr(G, B, depth - 1);
    fg_elem e = field_elems[pick(G, NELEMS)];
    int w = 1 + (int)pick(G, 4);
    if (a.e && fg_expr_width(a.e) > 1 && w > 1)
      w = fg_expr_width(a.e);
    return coerce(G, B, a, e, w);
  }
  case 8: { /* swizzle */
    X a = expr(G, B, depth - 1);
    int w = a.e ? fg_expr_width(a.e) : 0;
    if (w < 2 || fg_expr_elem(a.e) == FG_BOOL)
      return a;
    char c[5] = {0};
    int n = 1 + (int)pick(G, 4);
    for (int i = 0; i < n; i++)
      c[i] = (chance(G, 50) ? "xyzw" : "rgba")[pick(G, (unsigned)w)];
    for (int i = 1; i < n; i++) /* one alphabet per swizzle */
      c[i] = (strchr("xyzw", c[0]) ? "xyzw" : "rgba")
          [(strchr("xyzwrgba", c[i]) - "xyzwrgba") & 3];
    return mk(fg_swizzle(a.e, c), str(G, "%s.%s", a.s, c));
  }
  case 9: { /* a vector literal of scalars */
    int w = 2 + (int)pick(G, 3);
    X a = expr(G, B, depth - 1);
    if (!a.e)
      return a;
    fg_elem e = fg_expr_elem(a.e);
    if (e == FG_BOOL)
      e = FG_I32;
    X p[4];
    for (int i = 0; i < w; i++)
      p[i] = coerce(G, B, i ? expr(G, B, depth - 2) : a, e, 1);
    fg_expr *v = w == 2 ? fg_vector(e, 2, 2, p[0].e, p[1].e)
                 : w == 3 ? fg_vector(e, 3, 3, p[0].e, p[1].e, p[2].e)
                          : fg_vector(e, 4, 4, p[0].e, p[1].e, p[2].e,
                                      p[3].e);
    return mk(v, str(G, "(%sx%d)(%s,%s%s%s%s%s)", tname(e), w, p[0].s, p[1].s,
                     w > 2 ? "," : "", w > 2 ? p[2].s : "", w > 3 ? "," : "",
                     w > 3 ? p[3].s : ""));
  }
  case 10: { /* reinterpretation */
    X a = expr(G, B, depth - 1);
    if (!a.e || fg_expr_elem(a.e) == FG_BOOL)
      return a;
    fg_elem e = fg_expr_elem(a.e);
    int w = fg_expr_width(a.e);
    size_t bytes = fg_elem_size(e) * (size_t)(w == 3 ? 4 : w);
    fg_elem to = field_elems[pick(G, NELEMS)];
    size_t es = fg_elem_size(to);
    if (w == 3 || bytes % es || bytes / es > 4 || bytes / es == 3)
      return a;
    return mk(fg_as(a.e, to, (int)(bytes / es)),
              str(G, "as_%sx%d(%s)", tname(to), (int)(bytes / es), a.s));
  }
  default:
    (void)op;
    return leaf(G, B);
  }
}

/* ---- steps --------------------------------------------------------------- */

/* Fields a body of thread shape s may read at its point: those of shape s
 * and the 0-D ones. */
static void sources(gen *G, body *B, fg_shape s) {
  B->nsrc = 0;
  for (int i = 0; i < G->npool; i++) {
    fg_type t = fg_field_type(G->pool[i]);
    if (width_of(t) > 0 && (fg_shape_equal(t.field, s) || t.field.ndim == 0))
      B->src[B->nsrc++] = G->pool[i];
  }
}

static int has_dims(gen *G, fg_field *f) {
  (void)G;
  return dims(f) >= 1;
}

/* A pointwise operator of the DSL over the shape of a random field: reads,
 * variables, an if/else or a counted for loop, and 1-3 outputs (several
 * make a multi-output operator; the first may have its type inferred). */
static void step_dsl(gen *G, int idx) {
  fg_field *first = choose(G, has_dims);
  if (!first)
    return;
  fg_shape s = shape_of(first);
  body B = {.budget = 24};
  sources(G, &B, s);
  int nout = chance(G, 25) ? 2 + (int)pick(G, 2) : 1;
  int infer = nout == 1 && chance(G, 50);
  fg_type types[3];
  for (int i = 0; i < nout; i++) {
    fg_elem e = field_elems[pick(G, NELEMS)];
    int w = 1 + (int)pick(G, 4);
    types[i] = w == 1 ? fg_type_scalar(e, s) : fg_type_vector(e, s, w);
  }
  char name[16];
  snprintf(name, sizeof name, "p%d", idx);
  B.op = infer ? fg_op_begin_map(G->g, name, s)
               : fg_op_begin(G->g, name, nout, types);
  if (!B.op)
    return;
  G->txtlen = 0;
  logf_(G, "  op %s (pointwise, %d output%s%s):\n", name, nout,
        nout > 1 ? "s" : "", infer ? ", inferred type" : "");
  /* reads of the fields at this point */
  int nreads = 1 + (int)pick(G, 3);
  for (int i = 0; i < nreads && B.nsrc; i++) {
    fg_field *f = i == 0 ? first : B.src[pick(G, (unsigned)B.nsrc)];
    for (int j = 0; j < G->npool; j++)
      if (G->pool[j] == f)
        G->used[j] = 1;
    B.leaf[B.nleaf++] = mk(fg_read_tensor(B.op, f), nm(G, f));
  }
  /* variables and control flow */
  if (chance(G, 40)) {
    X init = expr(G, &B, 2);
    fg_elem e = init.e ? fg_expr_elem(init.e) : FG_I32;
    if (e == FG_BOOL)
      e = FG_I32;
    int w = init.e ? fg_expr_width(init.e) : 1;
    const char *vn = B.nleaf == 0 ? "v0" : B.nleaf == 1 ? "v1" : "v2";
    X v = mk(fg_var(B.op, e, w), vn);
    init = coerce(G, &B, init, e, w);
    fg_assign(v.e, init.e);
    logf_(G, "    %sx%d %s = %s;\n", tname(e), w, vn, init.s);
    switch (pick(G, 3)) {
    case 0: {
      X c = cond(G, &B, 2);
      fg_if(c.e);
      X t = coerce(G, &B, expr(G, &B, 2), e, w);
      fg_assign(v.e, t.e);
      logf_(G, "    if %s { %s = %s; }", c.s, vn, t.s);
      if (chance(G, 60)) {
        fg_else(B.op);
        X f = coerce(G, &B, expr(G, &B, 2), e, w);
        fg_assign(v.e, f.e);
        logf_(G, " else { %s = %s; }", vn, f.s);
      }
      fg_end(B.op);
      logf_(G, "\n");
      break;
    }
    case 1: {
      int n = 1 + (int)pick(G, 4);
      X i = mk(fg_var(B.op, FG_I32, 1), "i");
      fg_for(i.e, fg_int(B.op, 0), fg_lt(i.e, fg_int(B.op, n)),
             fg_int(B.op, 1));
      B.leaf[B.nleaf++] = i;
      X t = coerce(G, &B, expr(G, &B, 2), e, w);
      fg_assign(v.e, coerce(G, &B, mk(fg_add(v.e, t.e), ""), e, w).e);
      logf_(G, "    for i < %d { %s += %s; }\n", n, vn, t.s);
      B.nleaf--;
      fg_end(B.op);
      break;
    }
    default:
      break;
    }
    B.leaf[B.nleaf++] = v;
  }
  for (int i = 0; i < nout; i++) {
    X r = expr(G, &B, 3);
    if (!infer)
      r = coerce(G, &B, r, types[i].elem, width_of(types[i]));
    else if (r.e && fg_expr_elem(r.e) == FG_BOOL)
      r = coerce(G, &B, r, FG_I32, 1);
    fg_write_tensor(B.op, i, r.e);
    logf_(G, "    out%d = %s\n", i, r.s);
  }
  fg_field *o = fg_op_end(B.op);
  add(G, o, name);
  for (int i = 1; i < nout && o; i++) {
    char what[24];
    snprintf(what, sizeof what, "%s.out%d", name, i);
    add(G, fg_op_output(B.op, i), what);
  }
}

/* List argument storage: n numbers from f(i). */
static const fg_op_list *list(gen *G, int n, int rows, int cols) {
  if (G->nlists >= 8 || n > 256)
    return NULL;
  float *v = G->lists[G->nlists];
  for (int i = 0; i < n; i++)
    v[i] = 0;
  fg_op_list *l = &G->list[G->nlists++];
  *l = (fg_op_list){.n = n, .rows = rows, .cols = cols, .v = v};
  return l;
}
static float small(gen *G) { return (float)((int)pick(G, 17) - 8) / 4; }

static int any_small(gen *G, fg_field *f) { (void)G; (void)f; return 1; }
static int is_2d(gen *G, fg_field *f) { (void)G; return dims(f) == 2; }
static int fl_field(gen *G, fg_field *f) {
  (void)G;
  return is_float(fg_field_type(f).elem) && dims(f) >= 1;
}
static int fl_rgb(gen *G, fg_field *f) {
  int w = width_of(fg_field_type(f));
  return fg_field_type(f).elem == FG_F32 && dims(f) >= 1 &&
         (w == 3 || w == 4);
}
static int unit_src(gen *G, fg_field *f) {
  (void)G;
  fg_elem e = fg_field_type(f).elem;
  return e == FG_U8 || e == FG_U16;
}
static int u8x4_2d(gen *G, fg_field *f) {
  fg_type t = fg_field_type(f);
  return is_2d(G, f) && t.elem == FG_U8 && width_of(t) == 4;
}
static int scalar_nd(gen *G, fg_field *f) {
  (void)G;
  return width_of(fg_field_type(f)) == 1 && dims(f) >= 1 &&
         fg_field_type(f).elem != FG_BOOL;
}
static int with_dims(gen *G, fg_field *f) { (void)G; return dims(f) >= 1; }

/* Another field that combines with a pointwise: the same shape (or 0-D)
 * and, when same_elem, the same element type. */
static fg_field *partner(gen *G, fg_field *a, int same_elem) {
  fg_type ta = fg_field_type(a);
  int idx[MAXF], k = 0;
  for (int i = 0; i < G->npool; i++) {
    fg_type t = fg_field_type(G->pool[i]);
    if (width_of(t) > 0 &&
        (fg_shape_equal(t.field, ta.field) || t.field.ndim == 0) &&
        (!same_elem || t.elem == ta.elem) &&
        (width_of(t) == 1 || width_of(ta) == 1 ||
         width_of(t) == width_of(ta)))
      idx[k++] = i;
  }
  if (!k)
    return a;
  int j = idx[pick(G, (unsigned)k)];
  G->used[j] = 1;
  return G->pool[j];
}

/* What the first field of table row r must be. */
static int (*row_pred(const char *r))(gen *, fg_field *) {
  int (*ok)(gen *, fg_field *) = with_dims;
  if (!strcmp(r, "to_unit"))
    ok = unit_src;
  else if (!strcmp(r, "to_u8") || !strcmp(r, "from_unit"))
    ok = fl_field;
  else if (!strcmp(r, "srgb_decode") || !strcmp(r, "srgb_encode"))
    ok = fl_rgb;
  else if (strstr(r, "lab") || strstr(r, "xyz") || strstr(r, "hsv") ||
           !strcmp(r, "colour_matrix"))
    ok = fl_rgb;
  else if (!strncmp(r, "rs_", 3))
    ok = u8x4_2d;
  else if (!strcmp(r, "histogram") || strstr(r, "_loc"))
    ok = scalar_nd;
  else if (strstr(r, "blur") || strstr(r, "sobel") || !strcmp(r, "median3x3")
           || !strcmp(r, "convolve") || !strcmp(r, "flip") ||
           !strcmp(r, "transpose") || !strcmp(r, "rotate90") ||
           !strcmp(r, "crop") || !strcmp(r, "pad") || strstr(r, "sample2") ||
           !strcmp(r, "resize") || !strcmp(r, "thumbnail") ||
           !strcmp(r, "warp_affine"))
    ok = is_2d;
  return ok;
}

/* Whether some pool field fits row r. */
static int fits_some(gen *G, const char *r) {
  int (*ok)(gen *, fg_field *) = row_pred(r);
  for (int i = 0; i < G->npool; i++)
    if (width_of(fg_field_type(G->pool[i])) > 0 && ok(G, G->pool[i]))
      return 1;
  return 0;
}

/* One row of the operator table, called through fg_ops_call with
 * arguments that fit it. */
static void step_table(gen *G) {
  int n;
  const fg_op_info *t = fg_ops_table(&n);
  const fg_op_info *row = NULL;
  for (int tries = 0; tries < 8 && !row; tries++) {
    row = &t[pick(G, (unsigned)n)];
    if ((row->kind != FG_OPK_GRAPH && row->kind != FG_OPK_REDUCE) ||
        !fits_some(G, row->name))
      row = NULL;
  }
  if (!row)
    return;
  const char *r = row->name;
  fg_op_args a;
  memset(&a, 0, sizeof a);
  int (*ok)(gen *, fg_field *) = row_pred(r);
  fg_field *f = choose(G, ok == with_dims ? any_small : ok);
  if (!f || (ok == with_dims && dims(f) < 1 && strcmp(r, "cast") &&
             strcmp(r, "cast_sat") && strcmp(r, "binary") &&
             strcmp(r, "unary") && strcmp(r, "scale_offset")))
    return;
  fg_type ft = fg_field_type(f);
  int w = width_of(ft);
  int64_t rows = ft.field.ndim >= 2 ? ft.field.dim[ft.field.ndim - 2] : 1;
  int64_t cols = ft.field.ndim >= 1 ? ft.field.dim[ft.field.ndim - 1] : 1;
  a.field[0] = f;
  char args[160] = "";
  const char *sig = row->sig;
  /* defaults by signature letter, then what each row needs */
  for (int i = 0; sig[i]; i++) {
    switch (sig[i]) {
    case 'd': a.num[i] = small(G); break;
    case 'i': a.num[i] = pick(G, 4); break;
    case 'l': a.num[i] = 1 + pick(G, 4); break;
    case 'b': a.num[i] = pick(G, 2); break;
    case 'B': a.num[i] = pick(G, 5); break;
    case 'I': a.num[i] = pick(G, 3); break;
    case 'M': a.num[i] = pick(G, FG_BLEND_MODE_COUNT_); break;
    case 'E': a.num[i] = field_elems[pick(G, NELEMS)]; break;
    case 'R': a.num[i] = pick(G, 4); break;
    case 'w': a.list[i] = list(G, 0, 1, 0); break;
    default: break;
    }
  }
  if (!strcmp(r, "from_unit"))
    a.num[1] = chance(G, 50) ? FG_U8 : FG_U16;
  else if (!strcmp(r, "cast")) {
    /* C's conversion of out-of-range floats is undefined: floats stay
     * floats */
    if (is_float(ft.elem))
      a.num[1] = chance(G, 50) ? FG_F32 : FG_F64;
  } else if (!strcmp(r, "cast_sat")) {
    a.num[1] = field_elems[pick(G, 8)];
  } else if (!strcmp(r, "channel"))
    a.num[1] = pick(G, (unsigned)w);
  else if (!strcmp(r, "channels")) {
    char *p = G->picks[G->npicks++ % MAXSTEPS];
    int k = 1 + (int)pick(G, 4);
    for (int i = 0; i < k; i++)
      p[i] = "xyzw"[pick(G, (unsigned)w)];
    p[k] = 0;
    a.str[1] = p;
  } else if (!strcmp(r, "merge")) {
    int total = w;
    for (int i = 1; i < 4; i++) {
      fg_field *b = partner(G, f, 1);
      int bw = width_of(fg_field_type(b));
      if (i >= 2 && chance(G, 50))
        break;
      if (total + bw > 4 || !fg_shape_equal(shape_of(b), ft.field))
        break;
      a.field[i] = b;
      total += bw;
    }
    if (!a.field[1])
      return;
  } else if (!strcmp(r, "grey_to_rgb")) {
    if (w != 1)
      return;
    a.num[1] = 3 + pick(G, 2);
  } else if (!strcmp(r, "rgb_to_grey") && w < 3)
    return;
  else if (!strcmp(r, "colour_matrix")) {
    int k = chance(G, 50) ? 3 : 4;
    fg_op_list *m = (fg_op_list *)list(G, k * k, k, k);
    fg_op_list *ad = (fg_op_list *)list(G, (int)pick(G, 5), 1, 0);
    if (!m || !ad)
      return;
    for (int i = 0; i < k * k; i++)
      ((float *)m->v)[i] = small(G);
    for (int i = 0; i < ad->n; i++)
      ((float *)ad->v)[i] = small(G);
    ad->cols = ad->n;
    a.list[1] = m;
    a.list[2] = ad;
    a.num[3] = 0;
  } else if (!strcmp(r, "lut1d")) {
    fg_op_list *l = (fg_op_list *)list(G, 2 + (int)pick(G, 7), 1, 0);
    if (!l)
      return;
    l->cols = l->n;
    for (int i = 0; i < l->n; i++)
      ((float *)l->v)[i] = small(G);
    a.list[1] = l;
  } else if (!strcmp(r, "binary") || !strcmp(r, "absdiff") ||
             !strcmp(r, "add_sat") || !strcmp(r, "sub_sat")) {
    a.field[1] = partner(G, f, chance(G, 60));
    int bin = (int)pick(G, FG_BINOP_COUNT_);
    fg_elem e2 = fg_field_type(a.field[1]).elem;
    if ((is_float(ft.elem) || is_float(e2)) &&
        (bin == FG_OP_BAND || bin == FG_OP_BOR || bin == FG_OP_BXOR))
      bin = FG_OP_ADD;
    a.num[2] = bin;
  } else if (!strcmp(r, "unary")) {
    int u = (int)pick(G, FG_UNOP_COUNT_);
    if (is_float(ft.elem) && u == FG_OP_BNOT)
      u = FG_OP_NEG;
    a.num[1] = u;
  } else if (!strcmp(r, "where")) {
    a.field[1] = partner(G, f, 0);
    a.field[2] = partner(G, a.field[1], 1);
    if (!fg_type_equal(fg_field_type(a.field[1]), fg_field_type(a.field[2])))
      a.field[2] = a.field[1];
  } else if (!strcmp(r, "scale_offset")) {
    a.num[1] = small(G);
    a.num[2] = small(G);
  } else if (!strcmp(r, "rotate90"))
    a.num[1] = (int)pick(G, 7) - 3;
  else if (!strcmp(r, "crop")) {
    a.num[1] = pick(G, (unsigned)rows);
    a.num[2] = pick(G, (unsigned)cols);
    a.num[3] = 1 + pick(G, (unsigned)(rows - (int64_t)a.num[1]));
    a.num[4] = 1 + pick(G, (unsigned)(cols - (int64_t)a.num[2]));
  } else if (!strcmp(r, "pad")) {
    for (int i = 1; i <= 4; i++)
      a.num[i] = pick(G, 3);
    a.num[6] = small(G);
    if (rows + a.num[1] + a.num[2] > MAXEXT || cols + a.num[3] + a.num[4] >
        MAXEXT)
      return;
  } else if (!strcmp(r, "warp_affine")) {
    fg_op_list *m = (fg_op_list *)list(G, 6, 2, 3);
    if (!m)
      return;
    float *v = (float *)m->v;
    v[0] = 1 + small(G) / 4; v[1] = small(G) / 4; v[2] = small(G);
    v[3] = small(G) / 4; v[4] = 1 + small(G) / 4; v[5] = small(G);
    a.list[1] = m;
    a.num[2] = 1 + pick(G, 12);
    a.num[3] = 1 + pick(G, 12);
    a.num[4] = pick(G, 2); /* nearest or bilinear */
    a.num[6] = small(G);
  } else if (!strcmp(r, "resize") || !strcmp(r, "rs_resize")) {
    a.num[1] = 1 + pick(G, 16);
    a.num[2] = 1 + pick(G, 16);
    a.num[3] = pick(G, 4);
  } else if (!strcmp(r, "thumbnail")) {
    a.num[1] = 1 + pick(G, 12);
    a.num[2] = pick(G, 4);
  } else if (!strcmp(r, "upsample2")) {
    if (2 * rows > MAXEXT || 2 * cols > MAXEXT)
      return;
  } else if (!strcmp(r, "convolve")) {
    int kr = 1 + 2 * (int)pick(G, 3), kc = 1 + 2 * (int)pick(G, 3);
    fg_op_list *m = (fg_op_list *)list(G, kr * kc, kr, kc);
    if (!m)
      return;
    for (int i = 0; i < kr * kc; i++)
      ((float *)m->v)[i] = small(G);
    if (kr == 1 && kc != 1) { /* a flat list must be square */
      m->rows = 1;
      m->n = kc;
    }
    a.list[1] = m;
  } else if (!strcmp(r, "gaussian_blur")) {
    a.num[1] = 0.5 + pick(G, 8) / 4.0;
    a.num[2] = pick(G, 4);
  } else if (!strcmp(r, "box_blur"))
    a.num[1] = pick(G, 4);
  else if (!strcmp(r, "rs_blur"))
    a.num[1] = 1 + pick(G, 6);
  else if (!strcmp(r, "rs_convolve3x3") || !strcmp(r, "rs_convolve5x5") ||
           !strcmp(r, "rs_histogram_dot")) {
    int k = r[3] == 'h' ? 4 : r[13] == '3' ? 9 : 25;
    fg_op_list *m = (fg_op_list *)list(G, k, 1, k);
    if (!m)
      return;
    for (int i = 0; i < k; i++)
      ((float *)m->v)[i] = r[3] == 'h' ? pick(G, 100) / 100.0f : small(G);
    a.list[1] = m;
  } else if (!strcmp(r, "rs_blend")) {
    a.field[1] = choose(G, u8x4_2d);
    if (!fg_shape_equal(shape_of(a.field[1]), ft.field))
      a.field[1] = f;
  } else if (!strcmp(r, "rs_lut")) {
    for (int c = 0; c < 4; c++) {
      fg_op_list *l = (fg_op_list *)list(G, 256, 1, 256);
      if (!l)
        return;
      unsigned m = byte(G), o = byte(G);
      for (int i = 0; i < 256; i++)
        ((float *)l->v)[i] = (float)((i * (m | 1) + o) & 255);
      a.list[1 + c] = l;
    }
  } else if (!strcmp(r, "rs_color_matrix")) {
    fg_op_list *m = (fg_op_list *)list(G, 16, 4, 4);
    fg_op_list *ad = (fg_op_list *)list(G, 4, 1, 4);
    if (!m || !ad)
      return;
    for (int i = 0; i < 16; i++)
      ((float *)m->v)[i] = small(G);
    for (int i = 0; i < 4; i++)
      ((float *)ad->v)[i] = small(G);
    a.list[1] = m;
    a.list[2] = ad;
    a.num[3] = 1 + pick(G, 4);
  } else if (!strcmp(r, "reduce_axes") || !strcmp(r, "mean_axes")) {
    int li = r[0] == 'r' ? 2 : 1;
    unsigned mask = 1 + pick(G, 15);
    fg_op_list *l = (fg_op_list *)list(G, 0, 1, 0);
    if (!l)
      return;
    for (int ax = 0; ax < 4; ax++)
      if (mask & (1u << ax) && (ax == 3 || ax < ft.field.ndim))
        ((float *)l->v)[l->n++] = (float)ax;
    if (!l->n)
      ((float *)l->v)[l->n++] = 0;
    l->cols = l->n;
    a.list[li] = l;
    a.num[li + 1] = pick(G, 2);
  } else if (!strcmp(r, "histogram")) {
    a.num[1] = 1 + pick(G, 16);
    a.num[2] = small(G);
    a.num[3] = a.num[2] + 0.25 + pick(G, 40);
  }
  for (int i = 0; sig[i]; i++) {
    size_t l = strlen(args);
    if (sig[i] == 'F')
      snprintf(args + l, sizeof args - l, "%s%s", i ? "," : "",
               a.field[i] ? nm(G, a.field[i]) : "none");
    else if (sig[i] == 's')
      snprintf(args + l, sizeof args - l, ",\"%s\"", a.str[i]);
    else if (sig[i] == 'w')
      snprintf(args + l, sizeof args - l, ",[%d]", a.list[i] ? a.list[i]->n
                                                             : 0);
    else
      snprintf(args + l, sizeof args - l, ",%g", a.num[i]);
  }
  /* rows whose float results are the same bits on every backend */
  static const char *const exact_rows[] = {
      "flip", "transpose", "rotate90", "crop", "pad", "channel", "channels",
      "merge", "cast", "cast_sat", "convolve", "sobel_x", "sobel_y",
      "median3x3", "colour_matrix", "scale_offset", "where", "absdiff",
      "add_sat", "sub_sat", "grey", "rgb_to_grey", "grey_to_rgb", "rgba",
      "sum", "min", "max", "prod", "reduce_axes", "min_loc", "max_loc",
      "downsample2", NULL};
  int ex = 0;
  for (int i = 0; exact_rows[i]; i++)
    ex |= !strcmp(exact_rows[i], r);
  if (!strcmp(r, "binary"))
    ex = a.num[2] != FG_OP_DIV && a.num[2] != FG_OP_POW &&
         a.num[2] != FG_OP_ATAN2 && a.num[2] != FG_OP_HYPOT;
  if (!strcmp(r, "unary"))
    ex = a.num[1] < FG_OP_SQRT || a.num[1] > FG_OP_TANH;
  G->inexact |= !ex;
  fg_field *o = fg_ops_call(G->g, row, &a);
  if (o && (fg_field_type(o).field.dim[0] > MAXEXT ||
            fg_field_type(o).field.dim[1] > MAXEXT ||
            fg_field_type(o).field.dim[2] > MAXEXT))
    o = NULL; /* too big to grow further: not pooled, not an output */
  add(G, o, str(G, "%s(%s)", r, args));
}

/* The operators of two outputs: Sobel's gx and gy, and reduce_loc's value
 * and location. */
static void step_multi(gen *G) {
  if (chance(G, 50)) {
    fg_field *f = choose(G, is_2d);
    if (!f)
      return;
    fg_field *gx = NULL, *gy = NULL;
    int b = (int)pick(G, 5);
    fg_sobel(G->g, f, (fg_border)b, &gx, &gy);
    add(G, gx, str(G, "sobel(%s, border %d).gx", nm(G, f), b));
    add(G, gy, str(G, "sobel(%s).gy", nm(G, f)));
  } else {
    fg_field *f = choose(G, scalar_nd);
    if (!f)
      return;
    fg_field *loc = NULL;
    int mx = chance(G, 50);
    fg_field *v = fg_reduce_loc(G->g, NULL, mx ? FG_REDUCE_MAX : FG_REDUCE_MIN,
                                f, &loc);
    add(G, v, str(G, "reduce_loc(%s, %s).value", nm(G, f), mx ? "max" : "min"));
    add(G, loc, str(G, "reduce_loc(%s).location", nm(G, f)));
  }
}

/* A built-in reduction (fg_reduce) of a field. */
static void step_reduce(gen *G) {
  fg_field *f = choose(G, with_dims);
  if (!f)
    return;
  fg_reduce_op op = (fg_reduce_op)pick(G, 4);
  static const char *const rn[] = {"sum", "min", "max", "prod"};
  add(G, fg_reduce(G->g, rn[op], op, f), str(G, "%s(%s)", rn[op], nm(G, f)));
}

/* RenderScript type name of elem with width w. */
static const char *rs_type(fg_elem e, int w, char *buf, size_t size) {
  static const char *const names[] = {"bool", "char", "uchar", "short",
                                      "ushort", "int", "uint", "long",
                                      "ulong", "float", "double"};
  if (w > 1)
    snprintf(buf, size, "%s%d", names[e], w);
  else
    snprintf(buf, size, "%s", names[e]);
  return buf;
}

/* An RS expression over a and b (type T, width w) of the small grammar:
 * + - * (and / for floats), min, max, and for floats a few math calls;
 * integer constants small enough for any type. */
static void rs_expr(gen *G, char *out, size_t size, const char *sc, int fl,
                    int w, int depth, int nin) {
  unsigned k = depth <= 0 ? pick(G, 3) : pick(G, 10);
  char l[512], r[512];
  switch (k) {
  case 0: snprintf(out, size, "a"); return;
  case 1: snprintf(out, size, nin > 1 ? "b" : "a"); return;
  case 2: /* constants of the scalar type: min(long, int) is ambiguous */
    snprintf(out, size, "((%s)%d.5)", sc, (int)pick(G, 8));
    if (!fl)
      snprintf(out, size, "((%s)%d)", sc, (int)pick(G, 8));
    return;
  case 3: case 4: case 5: {
    rs_expr(G, l, sizeof l, sc, fl, w, depth - 1, nin);
    rs_expr(G, r, sizeof r, sc, fl, w, depth - 1, nin);
    const char *ops = fl ? "+-*/" : "+-*";
    char o = ops[pick(G, (unsigned)strlen(ops))];
    snprintf(out, size, "(%s %c %s)", l, o, r);
    return;
  }
  case 6: case 7: {
    rs_expr(G, l, sizeof l, sc, fl, w, depth - 1, nin);
    rs_expr(G, r, sizeof r, sc, fl, w, depth - 1, nin);
    if (l[0] == '(' && l[1] == '(') /* min(v, s) wants the vector first */
      snprintf(out, size, "%s(%s, %s)", pick(G, 2) ? "min" : "max", r, l);
    else
      snprintf(out, size, "%s(%s, %s)", pick(G, 2) ? "min" : "max", l, r);
    return;
  }
  default:
    rs_expr(G, l, sizeof l, sc, fl, w, depth - 1, nin);
    if (fl) {
      static const char *const fn[] = {"sqrt(fabs", "sin(", "floor(",
                                       "fabs(", "exp(-fabs"};
      int i = (int)pick(G, 5);
      snprintf(out, size, "%s(%s))", fn[i], l);
      if (i >= 1 && i <= 3)
        snprintf(out, size, "%s%s)", fn[i], l);
    } else {
      snprintf(out, size, "(%s & 0x7f)", l);
    }
    return;
  }
}

/* A RenderScript mapping kernel over 1-2 fields of one type: source text
 * from a small grammar (a converted local, an optional if/else and counted
 * loop), the coordinates x and y as arguments when asked. */
static void step_rs(gen *G, int idx) {
  fg_field *f = choose(G, with_dims);
  if (!f || G->nscripts >= MAXSTEPS)
    return;
  fg_type ft = fg_field_type(f);
  int w = width_of(ft);
  fg_field *in[2] = {f, NULL};
  int nin = 1;
  if (chance(G, 40)) {
    fg_field *b = partner(G, f, 1);
    if (fg_type_equal(fg_field_type(b), ft)) {
      in[1] = b;
      nin = 2;
    }
  }
  int fl = is_float(ft.elem);
  /* integers compute in int (long for 64 bits), floats in their type */
  fg_elem ce = fl ? ft.elem : fg_elem_size(ft.elem) == 8 ? FG_I64 : FG_I32;
  char it[16], ct[16], src[4096], e1[1024], e2[1024], e3[1024], c1[1024];
  rs_type(ft.elem, w, it, sizeof it);
  rs_type(ce, w, ct, sizeof ct);
  char sct[16];
  rs_type(ce, 1, sct, sizeof sct);
  int use_xy = dims(f) >= 1 && chance(G, 40);
  int has_y = dims(f) >= 2;
  char conv_a[64], conv_b[64];
  if (w > 1) {
    snprintf(conv_a, sizeof conv_a, "convert_%s(in)", ct);
    snprintf(conv_b, sizeof conv_b, "convert_%s(in2)", ct);
  } else {
    snprintf(conv_a, sizeof conv_a, "(%s)in", ct);
    snprintf(conv_b, sizeof conv_b, "(%s)in2", ct);
  }
  rs_expr(G, e1, sizeof e1, sct, fl, w, 3, nin);
  rs_expr(G, e2, sizeof e2, sct, fl, w, 2, nin);
  rs_expr(G, e3, sizeof e3, sct, fl, w, 2, nin);
  rs_expr(G, c1, sizeof c1, sct, fl, w, 1, nin);
  const char *comp = w > 1 ? ".x" : "";
  int ctl = (int)pick(G, 3), n = 1 + (int)pick(G, 4);
  char ctl_text[2048] = "";
  if (ctl == 1)
    snprintf(ctl_text, sizeof ctl_text,
             "  if ((a + %s)%s > (a)%s) r = %s; else r = %s;\n", c1, comp,
             comp,
             e2, e3);
  else if (ctl == 2)
    snprintf(ctl_text, sizeof ctl_text,
             "  for (int i = 0; i < %d; i++) r = r + %s;\n", n, e2);
  char coords[64] = "";
  if (use_xy)
    snprintf(coords, sizeof coords, "%s", has_y ? ", uint32_t x, uint32_t y"
                                                : ", uint32_t x");
  char xy[96] = "";
  if (use_xy)
    snprintf(xy, sizeof xy, "  r = r + (%s)(%s);\n", fl ? (ce == FG_F64 ?
                                                           "double" : "float")
                                                        : "int",
             has_y ? "x + 2 * y" : "x");
  char conv_out[64];
  /* back to the field's type: floats stay floats; integers wrap */
  if (w > 1)
    snprintf(conv_out, sizeof conv_out, "convert_%s(r)", it);
  else
    snprintf(conv_out, sizeof conv_out, "(%s)r", it);
  char bdecl[96] = "";
  if (nin > 1)
    snprintf(bdecl, sizeof bdecl, "  %s b = %s;\n", ct, conv_b);
  snprintf(src, sizeof src,
           "#pragma version(1)\n"
           "#pragma rs java_package_name(fuzz.diff)\n"
           "%s RS_KERNEL k(%s in%s%s%s%s) {\n"
           "  %s a = %s;\n"
           "%s"
           "  %s r = %s;\n"
           "%s%s"
           "  return %s;\n"
           "}\n",
           it, it, nin > 1 ? ", " : "", nin > 1 ? it : "",
           nin > 1 ? " in2" : "", coords, ct, conv_a, bdecl, ct, e1,
           ctl_text, xy, conv_out);
  if (fl && (strstr(src, "sqrt") || strstr(src, "sin(") ||
             strstr(src, "exp(") || strstr(src, "fgk_rs_div") ||
             strstr(src, " / ")))
    G->inexact = 1;
  char name[16], err[512];
  snprintf(name, sizeof name, "rs%d", idx);
  fg_rs_script *s = NULL;
  if (fg_rs_script_new_source(name, NULL, src, (size_t)-1, &s, err,
                              sizeof err) != FG_OK) {
    if (verbose)
      fprintf(stderr, "fuzz_diff: script refused: %s\n%s", err, src);
    return;
  }
  G->scripts[G->nscripts++] = s;
  logf_(G, "  script %s:\n%s", name, src);
  add(G, fg_rs_map(G->g, s, "k", nin, in, NULL),
      str(G, "%s.k(%s%s%s)", name, nm(G, f), nin > 1 ? "," : "",
          nin > 1 ? nm(G, in[1]) : ""));
}

/* ---- inputs -------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* Data of a field of type t: small values mostly, some extremes, for
 * floats some NaN, infinities, -0 and denormals (spice: how often). */
static void fill(void *buf, fg_type t, uint64_t seed, unsigned spice) {
  size_t n = fg_type_bytes(t) / fg_elem_size(t.elem);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = rng_next(&seed);
    unsigned k = (unsigned)(r & 255);
    double v = (double)((int64_t)(r >> 8) % 41 - 10);
    if (k < spice) {
      static const double sp[] = {NAN, INFINITY, -INFINITY, -0.0, 1e-40,
                                  1e30, -1e30, 0.5, 255, 65535, 1e10};
      v = sp[(r >> 8) % (sizeof sp / sizeof *sp)];
    } else if (k < 96) {
      v = (double)((int64_t)(r >> 8) % 2000) / 8;
    }
    uint64_t bits = r >> 16;
    int raw = k >= 240; /* any bits, for integers */
    switch (t.elem) {
    case FG_I8: ((int8_t *)buf)[i] = raw ? (int8_t)bits : isfinite(v) &&
                 fabs(v) < 127 ? (int8_t)v : 0; break;
    case FG_U8: ((uint8_t *)buf)[i] = raw ? (uint8_t)bits : isfinite(v) &&
                 v >= 0 && v < 255 ? (uint8_t)v : (uint8_t)bits; break;
    case FG_I16: ((int16_t *)buf)[i] = raw ? (int16_t)bits : isfinite(v) &&
                  fabs(v) < 32767 ? (int16_t)v : 0; break;
    case FG_U16: ((uint16_t *)buf)[i] = raw ? (uint16_t)bits : isfinite(v) &&
                  v >= 0 && v < 65535 ? (uint16_t)v : 0; break;
    case FG_I32: ((int32_t *)buf)[i] = raw ? (int32_t)bits : isfinite(v) &&
                  fabs(v) < 2e9 ? (int32_t)v : 0; break;
    case FG_U32: ((uint32_t *)buf)[i] = raw ? (uint32_t)bits : isfinite(v) &&
                  v >= 0 && v < 4e9 ? (uint32_t)v : 0; break;
    case FG_I64: ((int64_t *)buf)[i] = raw ? (int64_t)r : isfinite(v) &&
                  fabs(v) < 9e18 ? (int64_t)v : 0; break;
    case FG_U64: ((uint64_t *)buf)[i] = raw ? r : isfinite(v) && v >= 0 &&
                  v < 1.8e19 ? (uint64_t)v : 0; break;
    case FG_F32: ((float *)buf)[i] = (float)v; break;
    case FG_F64: ((double *)buf)[i] = v; break;
    default: break;
    }
  }
}

/* ---- comparing ----------------------------------------------------------- */

/* Text of element i of an output of type t. */
static void elem_str(const void *p, fg_elem e, size_t i, char *buf,
                     size_t size) {
  switch (e) {
  case FG_I8: snprintf(buf, size, "%d", ((const int8_t *)p)[i]); break;
  case FG_U8: snprintf(buf, size, "%u", ((const uint8_t *)p)[i]); break;
  case FG_I16: snprintf(buf, size, "%d", ((const int16_t *)p)[i]); break;
  case FG_U16: snprintf(buf, size, "%u", ((const uint16_t *)p)[i]); break;
  case FG_I32: snprintf(buf, size, "%d", ((const int32_t *)p)[i]); break;
  case FG_U32: snprintf(buf, size, "%u", ((const uint32_t *)p)[i]); break;
  case FG_I64: snprintf(buf, size, "%lld",
                        (long long)((const int64_t *)p)[i]); break;
  case FG_U64: snprintf(buf, size, "%llu",
                        (unsigned long long)((const uint64_t *)p)[i]); break;
  case FG_F32: snprintf(buf, size, "%.9g (0x%08x)", ((const float *)p)[i],
                        ((const uint32_t *)p)[i]); break;
  case FG_F64: snprintf(buf, size, "%.17g", ((const double *)p)[i]); break;
  default: snprintf(buf, size, "?"); break;
  }
}

static double as_double(const void *p, fg_elem e, size_t i) {
  switch (e) {
  case FG_I8: return ((const int8_t *)p)[i];
  case FG_U8: return ((const uint8_t *)p)[i];
  case FG_I16: return ((const int16_t *)p)[i];
  case FG_U16: return ((const uint16_t *)p)[i];
  case FG_I32: return ((const int32_t *)p)[i];
  case FG_U32: return ((const uint32_t *)p)[i];
  case FG_I64: return (double)((const int64_t *)p)[i];
  case FG_U64: return (double)((const uint64_t *)p)[i];
  case FG_F32: return ((const float *)p)[i];
  case FG_F64: return ((const double *)p)[i];
  default: return 0;
  }
}

/* Whether element i of a and b (element type e) are the same: the same
 * bits, or both NaN. */
static int same(const void *a, const void *b, fg_elem e, size_t i) {
  size_t s = fg_elem_size(e);
  if (!memcmp((const char *)a + i * s, (const char *)b + i * s, s))
    return 1;
  return is_float(e) && isnan(as_double(a, e, i)) && isnan(as_double(b, e, i));
}

/* Whether OpenCL's element i (of a) may stand beside the CPU's (of b):
 * the same bits (any NaN for a NaN), which ops_pointwise.h promises for
 * float +, -, *, conversions and integer operations; anything when the
 * graph used an operation of bounded error (inexact: transcendentals,
 * float /, sqrt, whose last places may differ, and which later roundings,
 * comparisons or fmod turn into any difference at all). */
static int opencl_close(const void *a, const void *b, fg_elem e, size_t i,
                        int inexact) {
  return inexact || same(a, b, e, i);
}

/* ---- driver -------------------------------------------------------------- */

static void dump(gen *G, fg_program *p, const char *why) {
  fprintf(stderr, "fuzz_diff: %s\n--- graph (inputs %d):\n%s", why, G->nin,
          G->log);
  if (p) {
    fprintf(stderr, "--- fusion:\n%s\n", fg_program_fusion_report(p));
    const char *tmp = getenv("TMPDIR");
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/fuzz_diff.dot", tmp ? tmp : "/tmp");
    if (fg_graph_draw(G->g, p, path, err, sizeof err) == FG_OK) {
      FILE *f = fopen(path, "r");
      char line[512];
      fprintf(stderr, "--- drawing (%s):\n", path);
      while (f && fgets(line, sizeof line, f))
        fputs(line, stderr);
      if (f)
        fclose(f);
    }
  }
}

/* Appends a refused step and the graph up to it to the file
 * $FG_DIFF_DROPS names, if any: what a campaign reviews for library
 * operators refusing arguments they document as valid. */
static void note_drop(gen *G, int k) {
  const char *path = getenv("FG_DIFF_DROPS");
  FILE *f = path && *path ? fopen(path, "a") : NULL;
  if (!f)
    return;
  fprintf(f, "step %d dropped: %s\n%s\n", k, fg_graph_errmsg(G->g), G->log);
  fclose(f);
}

/* Builds the graph; returns the index of the step that put it in error
 * (-1 when none; MAXSTEPS for the outputs). */
static int build(gen *G, const size_t *skip_end, size_t *step_end,
                 const uint8_t *data, size_t size) {
  memset(G, 0, offsetof(gen, txt));
  G->txtlen = G->loglen = 0;
  G->log[0] = 0;
  G->d = data;
  G->n = size;
  G->rng = 0x2545f4914f6cdd1du;
  for (size_t i = 0; i < size; i++)
    G->rng = (G->rng ^ data[i]) * 0x100000001b3u;
  G->rng |= 1;
  G->g = fg_graph_new("fuzz_diff");
  unsigned h = byte(G);
  int nd = h % 16 == 0 ? 1 : h % 16 == 1 ? 3 : 2;
  int64_t rows = 1 + pick(G, 9), cols = 1 + pick(G, 13);
  G->shape = nd == 1 ? fg_shape1(cols) : nd == 2 ? fg_shape2(rows, cols)
                                                 : fg_shape3(2, rows, cols);
  G->nin = 1 + (int)pick(G, MAXIN);
  for (int i = 0; i < G->nin; i++) {
    fg_elem e = field_elems[pick(G, NELEMS)];
    int w = 1 + (int)pick(G, 4);
    unsigned kind = pick(G, 10);
    if (kind < 2) { /* images: what the RenderScript intrinsics take */
      e = FG_U8;
      w = 4;
    } else if (kind < 3) { /* colours */
      e = FG_F32;
      w = 3 + (int)pick(G, 2);
    }
    fg_shape s = i && chance(G, 15) ? fg_shape0() : G->shape;
    G->in_type[i] = w == 1 ? fg_type_scalar(e, s) : fg_type_vector(e, s, w);
    char name[8];
    snprintf(name, sizeof name, "in%d", i);
    add(G, fg_input(G->g, name, G->in_type[i]), name);
  }
  int nsteps = 1 + (int)pick(G, MAXSTEPS);
  for (int k = 0; k < nsteps; k++) {
    size_t at = G->at;
    if (skip_end[k]) {
      G->at = skip_end[k];
      step_end[k] = skip_end[k];
      continue;
    }
    unsigned what = pick(G, 20);
    if (what < 7)
      step_dsl(G, k);
    else if (what < 13)
      step_table(G);
    else if (what < 15)
      step_reduce(G);
    else if (what < 16)
      step_multi(G);
    else
      step_rs(G, k);
    step_end[k] = G->at > at ? G->at : at;
    if (fg_graph_status(G->g) != FG_OK) {
      if (verbose)
        fprintf(stderr, "fuzz_diff: step %d dropped: %s\n", k,
                fg_graph_errmsg(G->g));
      note_drop(G, k);
      if (G->at == at) /* consumed nothing: skip it by one byte */
        step_end[k] = at + 1 <= size ? at + 1 : at;
      return k;
    }
  }
  /* outputs: every field nothing read, and some that others read too
   * (consumed inside and outside a fusion group) */
  int nout = 0;
  /* FG_DIFF_ALL_OUTPUTS=1: every field an output (localizing a
   * difference; it changes what fuses) */
  const char *all = getenv("FG_DIFF_ALL_OUTPUTS");
  int every = all && *all == '1';
  for (int i = G->npool - 1; i >= G->nin && nout < (every ? MAXF : MAXOUT);
       i--) {
    if (every || !G->used[i] || chance(G, 30)) {
      char name[8];
      snprintf(name, sizeof name, "o%d", nout++);
      if (every)
        snprintf(name, sizeof name, "%s", G->name[i]);
      fg_output(G->g, name, G->pool[i]);
      logf_(G, "  output %s = %s\n", name, G->name[i]);
    }
  }
  if (!nout && G->npool > 0) {
    fg_output(G->g, "o0", G->pool[G->npool - 1]);
    logf_(G, "  output o0 = %s\n", G->name[G->npool - 1]);
  }
  return fg_graph_status(G->g) == FG_OK ? -1 : MAXSTEPS;
}

static void free_gen(gen *G) {
  fg_graph_free(G->g);
  G->g = NULL;
  for (int i = 0; i < G->nscripts; i++)
    fg_rs_script_free(G->scripts[i]);
  G->nscripts = 0;
}

/* Runs p on inputs; outputs allocated here (caller frees). */
/* Runs p; *secs (if not NULL) receives the wall time it took. */
static fg_status run_timed(fg_program *p, const void *const *ins,
                           void **outs, double *secs) {
  int n = fg_program_output_count(p);
  for (int i = 0; i < n; i++)
    outs[i] = calloc(1, fg_type_bytes(fg_program_output_type(p, i)) + 1);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  fg_status st = fg_program_run(p, fg_program_input_count(p), ins, n,
                                (void *const *)outs);
  clock_gettime(CLOCK_MONOTONIC, &b);
  if (secs)
    *secs = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
  return st;
}

static fg_status run(fg_program *p, const void *const *ins, void **outs) {
  return run_timed(p, ins, outs, NULL);
}

/* Runs p over buffers of ctx (fg_buffer) holding ins; the outputs are
 * read back into outs (allocated here, caller frees). */
static fg_status run_buffers(fg_context *ctx, fg_program *p,
                             const void *const *ins, void **outs) {
  int ni = fg_program_input_count(p), no = fg_program_output_count(p);
  fg_buffer *inbuf[MAXIN + 1] = {0}, *outbuf[MAXF + 2] = {0};
  fg_status st = FG_OK;
  /* odd inputs and even outputs over the host memory itself
   * (fg_buffer_wrap; runs only read inputs), the rest on the device */
  for (int i = 0; i < ni && st == FG_OK; i++) {
    fg_type t = fg_program_input_type(p, i);
    if (i % 2) {
      st = fg_buffer_wrap(ctx, t, (void *)ins[i], &inbuf[i]);
      continue;
    }
    st = fg_buffer_new(ctx, t, &inbuf[i]);
    if (st == FG_OK)
      st = fg_buffer_write(inbuf[i], ins[i], fg_type_bytes(t));
  }
  for (int o = 0; o < no; o++) {
    fg_type t = fg_program_output_type(p, o);
    outs[o] = calloc(1, fg_type_bytes(t) + 1);
    if (st == FG_OK && outs[o] && o % 2 == 0)
      st = fg_buffer_wrap(ctx, t, outs[o], &outbuf[o]);
    else if (st == FG_OK)
      st = fg_buffer_new(ctx, t, &outbuf[o]);
  }
  if (st == FG_OK)
    st = fg_program_run_buffers(p, ni, inbuf, no, outbuf);
  for (int o = 0; o < no && st == FG_OK; o++)
    st = fg_buffer_read(outbuf[o], outs[o],
                        fg_type_bytes(fg_program_output_type(p, o)));
  for (int i = 0; i < ni; i++)
    fg_buffer_free(inbuf[i]);
  for (int o = 0; o < no; o++)
    fg_buffer_free(outbuf[o]);
  return st;
}

/* Runs p (of ctx) over buffers and asserts the outputs are want's bytes:
 * the same program over host memory gave want.  Returns a message, or
 * "" (why, size bytes). */
static void same_over_buffers(fg_context *ctx, fg_program *p,
                              const void *const *ins, void *const *want,
                              double want_secs, char *why, size_t size) {
  void *ob[MAXF + 2] = {0};
  int no = fg_program_output_count(p);
  fg_status st = run_buffers(ctx, p, ins, ob);
  if (st == FG_ETIMEDOUT && want_secs > 6.0) {
    if (verbose)
      fprintf(stderr, "fuzz_diff: over buffers past the run deadline: "
              "inconclusive\n");
  } else if (st != FG_OK) {
    snprintf(why, size, "\n  the run over buffers failed: %s",
             fg_context_errmsg(ctx));
  }
  for (int o = 0; o < no && st == FG_OK; o++)
    if (memcmp(ob[o], want[o],
               fg_type_bytes(fg_program_output_type(p, o)))) {
      size_t l = strlen(why);
      snprintf(why + l, size - l, "\n  output %s differs over buffers "
               "from the run over host memory",
               fg_program_output_name(p, o));
    }
  for (int o = 0; o < no; o++)
    free(ob[o]);
}

/* Whether a run that passed the 60 s deadline says nothing: both did, or
 * the other one, which ended, took over a tenth of it (a machine starved
 * by other work, not a kernel that never ends: the generated loops are
 * bounded, so one that spins while its twin ends quickly is a finding). */
static int inconclusive(fg_status a, fg_status b, double b_secs) {
  return a == FG_ETIMEDOUT && (b == FG_ETIMEDOUT || b_secs > 6.0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *v = getenv("FG_DIFF_VERBOSE");
  verbose = v ? atoi(v) : 0;
  fg_context_options opt = {.backend = FG_BACKEND_CPU, .threads = 1,
                            .run_timeout_ms = 60000};
  char err[512];
  if (fg_context_new(&opt, &cpu, err, sizeof err) != FG_OK) {
    fprintf(stderr, "fuzz_diff: %s\n", err);
    abort();
  }
  const char *o = getenv("FG_DIFF_OPENCL");
  if (o && (*o == '1' || !strcmp(o, "unfused"))) {
    opt.backend = FG_BACKEND_OPENCL;
    if (fg_context_new(&opt, &ocl, err, sizeof err) != FG_OK)
      fprintf(stderr, "fuzz_diff: no OpenCL (%s): CPU only\n", err);
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4)
    return 0;
  static gen G;
  size_t skip_end[MAXSTEPS] = {0}, step_end[MAXSTEPS] = {0};
  int bad = -1;
  for (int tries = 0; tries <= MAXSTEPS; tries++) {
    bad = build(&G, skip_end, step_end, data, size);
    if (bad < 0 || bad == MAXSTEPS)
      break;
    skip_end[bad] = step_end[bad];
    free_gen(&G);
  }
  /* FG_DIFF_SKIP=2,4: steps 2 and 4 left out (by hand, to minimize) */
  const char *skip = getenv("FG_DIFF_SKIP");
  if (bad < 0 && skip && *skip) {
    for (const char *p = skip; *p;) {
      int k = atoi(p);
      if (k >= 0 && k < MAXSTEPS && step_end[k])
        skip_end[k] = step_end[k];
      p += strcspn(p, ",");
      p += *p == ',';
    }
    free_gen(&G);
    bad = build(&G, skip_end, step_end, data, size);
  }
  if (bad >= 0) {
    free_gen(&G);
    return 0;
  }
  if (verbose > 1)
    fprintf(stderr, "fuzz_diff: graph:\n%s", G.log);
  /* inputs */
  void *in[MAXIN];
  uint64_t seed = 0;
  for (size_t i = 0; i < size && i < 64; i++)
    seed = seed * 131 + data[i];
  unsigned spice = data[size - 1] % 32;
  for (int i = 0; i < G.nin; i++) {
    in[i] = calloc(1, fg_type_bytes(G.in_type[i]) + 1);
    fill(in[i], G.in_type[i], seed + (uint64_t)i, spice);
  }
  fg_compile_options fused = {.fusion = FG_FUSION_ON};
  fg_compile_options unfused = {.fusion = FG_FUSION_OFF};
  fg_program *pf = NULL, *pu = NULL, *po = NULL;
  fg_status sf = fg_compile(cpu, G.g, &fused, &pf);
  char ferr[1024];
  snprintf(ferr, sizeof ferr, "%s", fg_context_errmsg(cpu));
  fg_status su = fg_compile(cpu, G.g, &unfused, &pu);
  if ((sf == FG_OK) != (su == FG_OK)) {
    char why[2048];
    snprintf(why, sizeof why, "fused compile %s, unfused %s: %s",
             fg_status_str(sf), fg_status_str(su),
             sf != FG_OK ? ferr : fg_context_errmsg(cpu));
    dump(&G, pf ? pf : pu, why);
    abort();
  }
  if (sf == FG_EBUILD) {
    /* the builder accepted the graph: its kernels must compile */
    char why[1200];
    snprintf(why, sizeof why, "a valid graph does not build: %s", ferr);
    dump(&G, NULL, why);
    abort();
  }
  if (sf != FG_OK) {
    if (verbose)
      fprintf(stderr, "fuzz_diff: not compiled: %s\n", ferr);
    goto done;
  }
  void *of[MAXF + 2] = {0}, *ou[MAXF + 2] = {0}, *oo[MAXF + 2] = {0};
  int nout = fg_program_output_count(pf);
  double tf = 0, tu = 0;
  fg_status rf = run_timed(pf, (const void *const *)in, of, &tf);
  char rerr[1024];
  snprintf(rerr, sizeof rerr, "%s", fg_context_errmsg(cpu));
  fg_status ru = run_timed(pu, (const void *const *)in, ou, &tu);
  if (inconclusive(rf, ru, tu) || inconclusive(ru, rf, tf)) {
    if (verbose)
      fprintf(stderr, "fuzz_diff: past the run deadline (%.1f s, %.1f s): "
              "inconclusive\n", tf, tu);
    for (int o = 0; o < nout; o++) {
      free(of[o]);
      free(ou[o]);
    }
    goto done;
  }
  if (rf != FG_OK || ru != FG_OK) {
    char why[2200];
    snprintf(why, sizeof why, "run failed: fused %s (%s), unfused %s (%s)",
             fg_status_str(rf), rf ? rerr : "", fg_status_str(ru),
             ru ? fg_context_errmsg(cpu) : "");
    dump(&G, pf, why);
    abort();
  }
  /* every differing output, each by its first differing element */
  char why[4096] = "";
  for (int o = 0; o < nout; o++) {
    fg_type t = fg_program_output_type(pf, o);
    size_t n = fg_type_bytes(t) / fg_elem_size(t.elem);
    for (size_t i = 0; i < n; i++) {
      if (same(of[o], ou[o], t.elem, i))
        continue;
      char a[64], b[64];
      elem_str(of[o], t.elem, i, a, sizeof a);
      elem_str(ou[o], t.elem, i, b, sizeof b);
      int per = fg_type_tensor_elements(t);
      size_t l = strlen(why);
      snprintf(why + l, sizeof why - l, "\n  fused and unfused differ: "
               "output %s (%s), point %zu element %d: fused %s, unfused %s",
               fg_program_output_name(pf, o), fg_elem_name(t.elem),
               i / (size_t)per, (int)(i % (size_t)per), a, b);
      break;
    }
  }
  /* the fused program over device buffers (fg_buffer): the same bits */
  if (!why[0])
    same_over_buffers(cpu, pf, (const void *const *)in, of, tf, why,
                      sizeof why);
  if (why[0]) {
    dump(&G, pf, why);
    abort();
  }
  /* FG_DIFF_OPENCL=unfused: OpenCL without fusion (telling an OpenCL
   * difference of fusion from one of the dialect) */
  const char *oclmode = getenv("FG_DIFF_OPENCL");
  int ocl_unfused = oclmode && !strcmp(oclmode, "unfused");
  if (ocl && fg_compile(ocl, G.g, ocl_unfused ? &unfused : &fused, &po) ==
                 FG_OK) {
    fg_status ro = run(po, (const void *const *)in, oo);
    /* PoCL runs a kernel some 10 to 100 times slower than the CPU
     * backend: past the deadline says nothing when the CPU's took over
     * 0.6 s (the deadline's hundredth) */
    if (ro == FG_ETIMEDOUT && tf > 0.6) {
      if (verbose)
        fprintf(stderr, "fuzz_diff: OpenCL past the run deadline: "
                "inconclusive\n");
    } else if (ro != FG_OK) {
      snprintf(why, sizeof why, "OpenCL run failed: %s",
               fg_context_errmsg(ocl));
      dump(&G, po, why);
      abort();
    }
    if (ro == FG_OK)
      same_over_buffers(ocl, po, (const void *const *)in, oo, 0, why,
                        sizeof why);
    for (int o = 0; o < nout && ro == FG_OK; o++) {
      fg_type t = fg_program_output_type(pf, o);
      size_t n = fg_type_bytes(t) / fg_elem_size(t.elem);
      for (size_t i = 0; i < n; i++) {
        if (opencl_close(oo[o], of[o], t.elem, i, G.inexact))
          continue;
        char a[64], b[64];
        elem_str(oo[o], t.elem, i, a, sizeof a);
        elem_str(of[o], t.elem, i, b, sizeof b);
        size_t l = strlen(why);
        snprintf(why + l, sizeof why - l, "\n  OpenCL and CPU differ: output "
                 "%s (%s), element %zu: OpenCL %s, CPU %s",
                 fg_program_output_name(pf, o), fg_elem_name(t.elem), i, a, b);
        break;
      }
    }
    if (why[0]) {
      dump(&G, po, why);
      abort();
    }
  } else if (ocl) {
    snprintf(why, sizeof why, "OpenCL did not compile: %s",
             fg_context_errmsg(ocl));
    if (strstr(why, "BUILD_PROGRAM_FAILURE")) {
      dump(&G, NULL, why); /* the CPU built it: so must OpenCL */
      abort();
    }
    if (verbose)
      fprintf(stderr, "fuzz_diff: %s\n", why);
  }
  for (int o = 0; o < nout; o++) {
    free(of[o]);
    free(ou[o]);
    free(oo[o]);
  }
done:
  fg_program_free(pf);
  fg_program_free(pu);
  fg_program_free(po);
  for (int i = 0; i < G.nin; i++)
    free(in[i]);
  free_gen(&G);
  return 0;
}
