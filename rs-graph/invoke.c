/* rs/invoke.c - Single-Source RenderScript: an invokable function that
 * launches kernels (rsForEach) runs as part of a graph (fg_rs_invoke).
 *
 * The function is not compiled: its body is read once, statement by
 * statement, and each rsForEach becomes the node fg_rs_map would build, so
 * its kernels fuse like any other launches (invert then greyscale through
 * a temporary allocation is one pass, the temporary virtual).  The body
 * must be straight-line code of
 *   - integer locals initialized (or assigned) from integer constants,
 *     rsAllocationGetDimX/Y/Z and + - * / % of those;
 *   - rs_allocation locals from rsCreateAllocation_<type>(x[, y[, z]]) or
 *     from another allocation;
 *   - rs_script_call_t locals (= {0} or uninitialized) whose xStart, xEnd,
 *     yStart, yEnd, zStart, zEnd are assigned;
 *   - rsForEach(kernel, in..., out), rsForEachWithOptions(kernel, &opts,
 *     in..., out) and rsClearObject(&alloc);
 *   - calls of the script's functions that the host runs (rs/host.c),
 *     with integer arguments: they run when the node is built, with the
 *     script's globals (an rs_allocation global's dimensions as this
 *     point of the body has them), so what they set (a lookup table, a
 *     width) is what the launches after them read;
 *   - numeric globals assigned an integer expression (width =
 *     rsAllocationGetDimX(in)), set the same way;
 *   - rsDebug("text"[, integer expressions]), logged then too;
 *   - the older rsForEach(script, in, out[, 0[, len]][, &opts]) that runs
 *     root(), the script an rs_script parameter or global.
 * Anything else is an error at its file:line:column.  A function that
 * launches no kernel runs whole instead, as one thread over its
 * allocations and the values of its numeric, vector and bool parameters
 * (nodes.c, fgr_invoke_single).  The function's
 * rs_allocation parameters are its interface: a parameter it reads (as a
 * launch input or for its dimensions) before any launch writes it is an
 * argument, one a launch writes is a result; rs_allocation globals are
 * read from their bindings and, when a launch writes them (as its output,
 * or a kernel setting their elements: fgr_kernel_sets), are results too
 * (after the parameters).  An Allocation's contents are a field, and
 * a launch writing an Allocation makes a new field. */
#include "rs-graph/graph.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_VARS = 64, MAX_ARGS = FGK_MAX_INPUTS + 2 };

/* A value of C arithmetic as an invokable's assignments compute it: an
 * integer (held in 64 bits, as int_expr computes), a float or a double,
 * with C's usual arithmetic conversions (double beats float beats the
 * integers), so `f = (1.0f + gain) * (1.0f + gain)` rounds as the
 * script's own code would. */
typedef enum nkind { N_INT, N_FLOAT, N_DOUBLE } nkind;
typedef struct num {
  nkind k;
  int64_t i;
  double d;             /* N_FLOAT holds a float's value */
} num;

typedef enum vkind { V_INT, V_ALLOC, V_OPTS, V_SCRIPT, V_NUM } vkind;

typedef struct var {
  const char *name;
  int len;
  vkind kind;
  int64_t value;                /* INT */
  num nv;                       /* NUM: a numeric scalar parameter's value */
  fg_elem ne;                   /* ... and its type */
  int64_t range[3][2];          /* OPTS: (x, y, z) [start, end) */
  /* ALLOC: its contents (NULL while none), and its type when known (a
   * created allocation, an argument, or the last launch's output) */
  fg_field *field;
  bool typed;
  fg_type type;
  int param;                    /* the parameter it is, or -1 */
  int global;                   /* the rs_allocation global it is, or -1 */
} var;

typedef struct inv {
  fg_graph *g;
  fg_rs_script *s;
  const fgr_unit *u;
  const fgr_func *f;
  const char *what;             /* "fg_rs_invoke 'script.function'" */
  var v[MAX_VARS];
  int n;
  bool failed;
  bool returned;                /* a `return;` ended the body */
} inv;

static const char supported[] = "an invokable run as a graph holds "
  "straight-line code of integer locals, rsAllocationGetDimX/Y/Z, "
  "rsCreateAllocation_<type>, rs_script_call_t locals, rsForEach, "
  "rsForEachWithOptions, rsClearObject, rsDebug, calls of the script's "
  "functions that run on the host and assignments of arithmetic "
  "expressions (constants, integer locals, numeric globals, casts, "
  "+ - * / %) to its numeric globals";

/* Records the first error, at token t, on the graph; returns false. */
static bool fail_at(inv *in, fg_status st, int t, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool fail_at(inv *in, fg_status st, int t, const char *fmt, ...) {
  if (in->failed)
    return false;
  in->failed = true;
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const fgr_tok *k = &in->u->toks[t];
  fg__fail(in->g, st, "%s:%d:%d: %s: %s", in->u->files[k->file], k->line, k->col,
           in->what, msg);
  return false;
}

static bool is(const inv *in, int i, const char *s) {
  return fgr_tok_is(in->u, i, s);
}

static bool ident(const inv *in, int i) {
  return in->u->toks[i].kind == FGR_T_IDENT;
}

/* The text of token i, as a quoted string for messages. */
static const char *text(inv *in, int i) {
  int len;
  const char *p = fgr_tok_text(in->u, i, &len);
  const char *r = fgu_arena_printf(&in->g->arena, "'%.*s'", len, p);
  return r ? r : "?";
}

static var *lookup(inv *in, int t) {
  int len;
  const char *p = fgr_tok_text(in->u, t, &len);
  for (int k = in->n - 1; k >= 0; k--)
    if (in->v[k].len == len && !memcmp(in->v[k].name, p, (size_t)len))
      return &in->v[k];
  return NULL;
}

static var *declare(inv *in, int t, vkind kind) {
  if (lookup(in, t))
    return fail_at(in, FG_ENOTSUP, t, "%s is declared twice (%s)", text(in, t),
                   supported), NULL;
  if (in->n == MAX_VARS)
    return fail_at(in, FG_ENOTSUP, t, "more than %d locals", MAX_VARS), NULL;
  var *v = &in->v[in->n++];
  memset(v, 0, sizeof *v);
  v->name = fgr_tok_text(in->u, t, &v->len);
  v->kind = kind;
  v->param = -1;
  v->global = -1;
  return v;
}

/* The variable of kind `kind` that token t names, or NULL (error set). */
static var *use(inv *in, int t, vkind kind) {
  static const char *const kn[] = {"an integer", "an rs_allocation",
                                   "an rs_script_call_t", "an rs_script"};
  var *v = ident(in, t) ? lookup(in, t) : NULL;
  if (!v)
    return fail_at(in, FG_ENOTSUP, t, "expected %s local or parameter, got "
                   "%s (%s)", kn[kind], text(in, t), supported), NULL;
  if (v->kind != kind)
    return fail_at(in, FG_ETYPE, t, "%s is %s, expected %s", text(in, t),
                   kn[v->kind], kn[kind]), NULL;
  return v;
}

/* ---- integer expressions ------------------------------------------------ */



typedef struct cursor {
  int i, end;                   /* tokens [i, end) */
} cursor;

static int64_t expr(inv *in, cursor *c);

/* An Allocation's extent along axis a (0 x, 1 y, 2 z), 0 when it has no
 * such dimension (what rsAllocationGetDimY returns for a 1-D one). */
static int64_t extent(const var *v, int a) {
  fg_shape s = v->type.field;
  return a < s.ndim ? s.dim[s.ndim - 1 - a] : 0;
}

static int64_t primary(inv *in, cursor *c) {
  if (in->failed || c->i >= c->end)
    return fail_at(in, FG_ENOTSUP, c->i < c->end ? c->i : c->end - 1,
                   "expected an integer expression"), 0;
  int t = c->i;
  if (is(in, t, "(")) {
    int close = in->u->match[t];
    cursor sub = {t + 1, close};
    int64_t r = expr(in, &sub);
    if (!in->failed && sub.i != close)
      fail_at(in, FG_ENOTSUP, sub.i, "unexpected %s", text(in, sub.i));
    c->i = close + 1;
    return r;
  }
  if (is(in, t, "-") || is(in, t, "+")) {
    /* a run of signs, counted rather than recursed (a script may hold
     * thousands) */
    bool neg = false;
    for (; c->i < c->end && (is(in, c->i, "-") || is(in, c->i, "+"));
         c->i++)
      neg ^= is(in, c->i, "-");
    int64_t r = primary(in, c);
    return neg ? (int64_t)(0 - (uint64_t)r) : r;
  }
  if (in->u->toks[t].kind == FGR_T_NUMBER) {
    int len;
    const char *p = fgr_tok_text(in->u, t, &len);
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", len, p);
    char *e;
    errno = 0;
    long long r = strtoll(buf, &e, 0);
    if (errno == ERANGE)
      return fail_at(in, FG_EINVAL, t, "integer constant %s does not fit "
                     "in long", text(in, t)), 0;
    while (*e && strchr("uUlL", *e))
      e++;
    c->i++;
    if (*e)
      return fail_at(in, FG_ENOTSUP, t, "%s is not an integer constant",
                     text(in, t)), 0;
    return r;
  }
  static const char *const dims[3] = {"rsAllocationGetDimX",
                                      "rsAllocationGetDimY",
                                      "rsAllocationGetDimZ"};
  for (int a = 0; a < 3; a++) {
    if (!is(in, t, dims[a]))
      continue;
    if (!is(in, t + 1, "(") || in->u->match[t + 1] != t + 3)
      return fail_at(in, FG_ENOTSUP, t, "%s takes one rs_allocation",
                     dims[a]), 0;
    var *v = use(in, t + 2, V_ALLOC);
    c->i = t + 4;
    if (!v)
      return 0;
    if (!v->typed)
      return fail_at(in, FG_ENOTSUP, t + 2, "the dimensions of %s are not "
                     "known here (no launch has written it yet)",
                     text(in, t + 2)), 0;
    return extent(v, a);
  }
  if (ident(in, t) && !is(in, t + 1, "(")) {
    var *v = use(in, t, V_INT);
    c->i++;
    return v ? v->value : 0;
  }
  return fail_at(in, FG_ENOTSUP, t, "%s is not supported in an integer "
                 "expression (%s)", text(in, t), supported), 0;
}

static int64_t term(inv *in, cursor *c) {
  int64_t r = primary(in, c);
  while (!in->failed && c->i < c->end &&
         (is(in, c->i, "*") || is(in, c->i, "/") || is(in, c->i, "%"))) {
    int op = c->i++;
    int64_t b = primary(in, c);
    if (is(in, op, "*"))
      r = (int64_t)((uint64_t)r * (uint64_t)b);
    else if (b == 0)
      return fail_at(in, FG_EINVAL, op, "division by zero"), 0;
    else if (r == INT64_MIN && b == -1)
      return fail_at(in, FG_EINVAL, op, "%lld %s -1 overflows long "
                     "(undefined in C)", (long long)r, text(in, op)), 0;
    else
      r = is(in, op, "/") ? r / b : r % b;
  }
  return r;
}

static int64_t expr(inv *in, cursor *c) {
  int64_t r = term(in, c);
  while (!in->failed && c->i < c->end &&
         (is(in, c->i, "+") || is(in, c->i, "-"))) {
    bool plus = is(in, c->i++, "+");
    int64_t b = term(in, c);
    r = (int64_t)(plus ? (uint64_t)r + (uint64_t)b
                       : (uint64_t)r - (uint64_t)b);
  }
  return r;
}

static num num_expr(inv *in, int a, int b);
static int64_t n_to_int(num a, size_t size, bool is_signed);

/* The integer value of the expression in tokens [a, b) (num_expr's, as C
 * converts it to an integer): dimensions, launch bounds, arguments. */
static int64_t int_expr(inv *in, int a, int b) {
  return n_to_int(num_expr(in, a, b), 8, true);
}

/* ---- arithmetic expressions ---------------------------------------------- */

static num n_int(int64_t v) { return (num){N_INT, v, 0}; }
static num n_real(nkind k, double v) {
  return (num){k, 0, k == N_FLOAT ? (double)(float)v : v};
}
static double n_dbl(num a) { return a.k == N_INT ? (double)a.i : a.d; }

/* C's conversion of a to an integer of the given size and signedness:
 * the value truncated toward zero, then its low bytes. */
static int64_t n_to_int(num a, size_t size, bool is_signed) {
  int64_t v = a.k == N_INT ? a.i : (int64_t)a.d;
  if (size >= 8)
    return v;
  uint64_t m = ((uint64_t)1 << (8 * size)) - 1, u = (uint64_t)v & m;
  if (is_signed && (u >> (8 * size - 1)))
    return (int64_t)(u | ~m);
  return (int64_t)u;
}

/* The type a cast names at tokens [t, close): 1 with *k (and the
 * integer's size and signedness) filled, 0 when it is no numeric type. */
static bool cast_type(inv *in, int t, int close, nkind *k, size_t *size,
                      bool *is_signed) {
  static const struct { const char *name; size_t size; bool sgn; } ints[] = {
    {"char", 1, true}, {"uchar", 1, false}, {"short", 2, true},
    {"ushort", 2, false}, {"int", 4, true}, {"uint", 4, false},
    {"long", 8, true}, {"ulong", 8, false}, {"int8_t", 1, true},
    {"uint8_t", 1, false}, {"int16_t", 2, true}, {"uint16_t", 2, false},
    {"int32_t", 4, true}, {"uint32_t", 4, false}, {"int64_t", 8, true},
    {"uint64_t", 8, false}, {"size_t", 8, false}, {"unsigned", 4, false},
    {"signed", 4, true}};
  int a = t;
  while (a < close && is(in, a, "const"))
    a++;
  if (a + 1 == close && is(in, a, "float")) {
    *k = N_FLOAT;
    return true;
  }
  if (a + 1 == close && is(in, a, "double")) {
    *k = N_DOUBLE;
    return true;
  }
  /* "unsigned int", "unsigned char", ...: the last word's size, the
   * first word's signedness */
  if (a >= close || close - a > 2)
    return false;
  bool sgn = true, first = true;
  size_t sz = 0;
  for (int w = a; w < close; w++) {
    size_t j;
    for (j = 0; j < sizeof ints / sizeof *ints; j++)
      if (is(in, w, ints[j].name))
        break;
    if (j == sizeof ints / sizeof *ints)
      return false;
    if (first)
      sgn = ints[j].sgn;
    if (!first || close - a == 1 || strcmp(ints[j].name, "unsigned"))
      sz = ints[j].size;
    first = false;
  }
  *k = N_INT;
  *size = sz ? sz : 4;
  *is_signed = sgn;
  return true;
}

static num nexpr(inv *in, cursor *c);

/* The value of type e at p (little-endian, as the script lays it out). */
static num load_num(const unsigned char *p, fg_elem e) {
  switch (e) {
  case FG_F32: { float f; memcpy(&f, p, 4); return n_real(N_FLOAT, f); }
  case FG_F64: { double d; memcpy(&d, p, 8); return n_real(N_DOUBLE, d); }
  case FG_BOOL: case FG_U8: return n_int(*p);
  case FG_I8: return n_int((int8_t)*p);
  case FG_U16: { uint16_t v; memcpy(&v, p, 2); return n_int(v); }
  case FG_I16: { int16_t v; memcpy(&v, p, 2); return n_int(v); }
  case FG_U32: { uint32_t v; memcpy(&v, p, 4); return n_int(v); }
  case FG_I32: { int32_t v; memcpy(&v, p, 4); return n_int(v); }
  default: { int64_t v; memcpy(&v, p, 8); return n_int(v); }
  }
}

/* A numeric scalar global's script value (what kernels read), or its C
 * value when it is const. */
static num global_value(inv *in, int t, int k) {
  const fgr_global *gl = &in->u->globals[k];
  const fgr_type *ty = gl->type;
  if (ty->kind != FGR_NUM || ty->width != 1 || gl->alloc_index >= 0 ||
      (!gl->buffered && !gl->has_value))
    return fail_at(in, FG_ENOTSUP, t, "global %s is %s; an invokable run as "
                   "a graph reads numeric scalar globals only", text(in, t),
                   ty->name), n_int(0);
  /* after a launch that writes globals, the values are its copy's, which
   * are not known while the graph is built */
  for (int i = 0; gl->buffered && i < in->g->fields.n; i++)
    if (((fg_field *)in->g->fields.item[i])->sink == &in->s->u->live)
      return fail_at(in, FG_ENOTSUP, t, "reads global %s after a launch "
                     "that writes the script's globals; fieldgraph knows "
                     "its value only before those launches", text(in, t)),
             n_int(0);
  const unsigned char *p = (gl->buffered ? in->s->u->live.bytes
                                         : in->s->u->c_values) + gl->offset;
  return load_num(p, ty->elem);
}

static num nprimary(inv *in, cursor *c) {
  if (in->failed || c->i >= c->end)
    return fail_at(in, FG_ENOTSUP, c->i < c->end ? c->i : c->end - 1,
                   "expected an expression"), n_int(0);
  int t = c->i;
  if (is(in, t, "(")) {
    int close = in->u->match[t];
    nkind k;
    size_t size = 0;
    bool sgn = true;
    if (cast_type(in, t + 1, close, &k, &size, &sgn)) {
      c->i = close + 1;
      num v = nprimary(in, c);
      if (k == N_INT)
        return n_int(n_to_int(v, size, sgn));
      return n_real(k, n_dbl(v));
    }
    cursor sub = {t + 1, close};
    num r = nexpr(in, &sub);
    if (!in->failed && sub.i != close)
      fail_at(in, FG_ENOTSUP, sub.i, "unexpected %s", text(in, sub.i));
    c->i = close + 1;
    return r;
  }
  if (is(in, t, "-") || is(in, t, "+")) {
    bool neg = false;
    for (; c->i < c->end && (is(in, c->i, "-") || is(in, c->i, "+"));
         c->i++)
      neg ^= is(in, c->i, "-");
    num r = nprimary(in, c);
    if (!neg)
      return r;
    return r.k == N_INT ? n_int((int64_t)(0 - (uint64_t)r.i))
                        : n_real(r.k, -r.d);
  }
  if (in->u->toks[t].kind == FGR_T_NUMBER) {
    int len;
    const char *p = fgr_tok_text(in->u, t, &len);
    bool hex = len > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    bool real = false;
    for (int j = 0; j < len; j++)
      if (p[j] == '.' || (!hex && (p[j] == 'e' || p[j] == 'E')) ||
          (hex && (p[j] == 'p' || p[j] == 'P')))
        real = true;
    if (!real)
      return n_int(primary(in, c));
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", len, p);
    char *e;
    double d = strtod(buf, &e);
    bool f = *e == 'f' || *e == 'F';
    if (f || *e == 'l' || *e == 'L')
      e++;
    c->i++;
    if (*e)
      return fail_at(in, FG_ENOTSUP, t, "%s is not a number", text(in, t)),
             n_int(0);
    return n_real(f ? N_FLOAT : N_DOUBLE, d);
  }
  var *lv = ident(in, t) && !is(in, t + 1, "(") ? lookup(in, t) : NULL;
  if (lv && lv->kind == V_NUM) {
    c->i++;
    return lv->nv;
  }
  if (ident(in, t) && !is(in, t + 1, "(") && !lv) {
    int len;
    const char *p = fgr_tok_text(in->u, t, &len);
    char name[128];
    snprintf(name, sizeof name, "%.*s", len, p);
    int k = fgr_find_global(in->u, name);
    if (k >= 0) {
      c->i++;
      return global_value(in, t, k);
    }
  }
  return n_int(primary(in, c));
}

/* a op b with C's usual arithmetic conversions; op at token o. */
static num arith(inv *in, int o, num a, num b) {
  if (a.k != N_INT || b.k != N_INT) {
    nkind k = a.k == N_DOUBLE || b.k == N_DOUBLE ? N_DOUBLE : N_FLOAT;
    if (is(in, o, "%"))
      return fail_at(in, FG_EINVAL, o, "%% of a floating-point value "
                     "(invalid in C)"), n_int(0);
    if (k == N_FLOAT) {
      float x = (float)n_dbl(a), y = (float)n_dbl(b);
      float r = is(in, o, "*") ? x * y : is(in, o, "/") ? x / y
              : is(in, o, "+") ? x + y : x - y;
      return n_real(N_FLOAT, r);
    }
    double x = n_dbl(a), y = n_dbl(b);
    return n_real(N_DOUBLE, is(in, o, "*") ? x * y : is(in, o, "/") ? x / y
                            : is(in, o, "+") ? x + y : x - y);
  }
  uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i;
  if (is(in, o, "+"))
    return n_int((int64_t)(x + y));
  if (is(in, o, "-"))
    return n_int((int64_t)(x - y));
  if (is(in, o, "*"))
    return n_int((int64_t)(x * y));
  if (b.i == 0)
    return fail_at(in, FG_EINVAL, o, "division by zero"), n_int(0);
  if (a.i == INT64_MIN && b.i == -1)
    return fail_at(in, FG_EINVAL, o, "%lld %s -1 overflows long (undefined "
                   "in C)", (long long)a.i, text(in, o)), n_int(0);
  return n_int(is(in, o, "/") ? a.i / b.i : a.i % b.i);
}

static num nterm(inv *in, cursor *c) {
  num r = nprimary(in, c);
  while (!in->failed && c->i < c->end &&
         (is(in, c->i, "*") || is(in, c->i, "/") || is(in, c->i, "%"))) {
    int op = c->i++;
    num b = nprimary(in, c);
    if (!in->failed)
      r = arith(in, op, r, b);
  }
  return r;
}

static num nexpr(inv *in, cursor *c) {
  num r = nterm(in, c);
  while (!in->failed && c->i < c->end &&
         (is(in, c->i, "+") || is(in, c->i, "-"))) {
    int op = c->i++;
    num b = nterm(in, c);
    if (!in->failed)
      r = arith(in, op, r, b);
  }
  return r;
}

/* The arithmetic expression in tokens [a, b): integer and floating-point
 * constants, integer locals, the script's numeric scalar globals, casts,
 * + - * / %, parentheses, rsAllocationGetDimX/Y/Z. */
static num num_expr(inv *in, int a, int b) {
  if (a >= b)
    return fail_at(in, FG_ENOTSUP, a, "expected an expression"), n_int(0);
  cursor c = {a, b};
  num r = nexpr(in, &c);
  if (!in->failed && c.i != b)
    fail_at(in, FG_ENOTSUP, c.i, "unexpected %s (%s)", text(in, c.i),
            supported);
  return r;
}

/* v stored as a value of element type e (size bytes at dst). */
static void store_num(unsigned char *dst, fg_elem e, num v) {
  if (e == FG_F32) {
    float x = (float)n_dbl(v);
    memcpy(dst, &x, 4);
  } else if (e == FG_F64) {
    double x = n_dbl(v);
    memcpy(dst, &x, 8);
  } else if (e == FG_BOOL) {
    *dst = v.k == N_INT ? v.i != 0 : v.d != 0;
  } else {
    bool sgn = e == FG_I8 || e == FG_I16 || e == FG_I32 || e == FG_I64;
    int64_t x = n_to_int(v, fg_elem_size(e), sgn);
    memcpy(dst, &x, fg_elem_size(e));   /* the low bytes */
  }
}

/* ---- statements --------------------------------------------------------- */

/* Splits the arguments of the call whose '(' is token lp at depth-0 commas:
 * arg[k] = first token, argend[k] = one past its last; returns the count
 * or -1. */
static int split_args(inv *in, int lp, int *arg, int *argend, int max) {
  int rp = in->u->match[lp];
  if (rp == lp + 1)
    return 0;
  int n = 0, start = lp + 1;
  for (int i = lp + 1; i <= rp; i++) {
    if (i < rp && (is(in, i, "(") || is(in, i, "{") || is(in, i, "["))) {
      i = in->u->match[i];
      continue;
    }
    if (i == rp || is(in, i, ",")) {
      if (n == max)
        return fail_at(in, FG_ENOTSUP, i, "too many arguments"), -1;
      if (start == i)
        return fail_at(in, FG_ENOTSUP, i, "empty argument"), -1;
      arg[n] = start;
      argend[n++] = i;
      start = i + 1;
    }
  }
  return n;
}

static bool elem_of(const char *p, int len, fg_elem *e, int *w) {
  static const struct { const char *n; fg_elem e; } names[] = {
    {"char", FG_I8}, {"uchar", FG_U8}, {"short", FG_I16},
    {"ushort", FG_U16}, {"int", FG_I32}, {"uint", FG_U32},
    {"long", FG_I64}, {"ulong", FG_U64}, {"float", FG_F32},
    {"double", FG_F64}};
  *w = 1;
  if (len > 1 && p[len - 1] >= '2' && p[len - 1] <= '4') {
    *w = p[len - 1] - '0';
    len--;
  }
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if ((int)strlen(names[k].n) == len && !memcmp(names[k].n, p, (size_t)len)) {
      *e = names[k].e;
      return true;
    }
  return false;
}

/* rsCreateAllocation_<type>(x[, y[, z]]) at token t, into v. */
static bool create_alloc(inv *in, int t, var *v) {
  int len;
  const char *p = fgr_tok_text(in->u, t, &len);
  const int pl = (int)strlen("rsCreateAllocation_");
  fg_elem e;
  int w;
  if (len <= pl || !elem_of(p + pl, len - pl, &e, &w) || w == 3)
    return fail_at(in, FG_ENOTSUP, t, "%s: fieldgraph creates allocations "
                   "of char, uchar, short, ushort, int, uint, long, ulong, "
                   "float and double, with widths 1, 2 and 4", text(in, t));
  if (!is(in, t + 1, "("))
    return fail_at(in, FG_ENOTSUP, t, "expected '(' after %s", text(in, t));
  int arg[4], argend[4];
  int n = split_args(in, t + 1, arg, argend, 3);
  if (n < 0)
    return false;
  if (n < 1)
    return fail_at(in, FG_EINVAL, t, "%s takes 1 to 3 dimensions",
                   text(in, t));
  int64_t d[3];
  for (int k = 0; k < n; k++) {
    d[k] = int_expr(in, arg[k], argend[k]);
    if (in->failed)
      return false;
    if (d[k] < 1)
      return fail_at(in, FG_ESHAPE, arg[k], "dimension %c of %s is %lld "
                     "(expected at least 1)", "XYZ"[k], text(in, t),
                     (long long)d[k]);
  }
  fg_shape s = n == 1 ? fg_shape1(d[0]) : n == 2 ? fg_shape2(d[1], d[0])
                                                 : fg_shape3(d[2], d[1], d[0]);
  v->typed = true;
  v->type = w == 1 ? fg_type_scalar(e, s) : fg_type_vector(e, s, w);
  v->field = NULL;
  return true;
}

/* Whether token t names the script itself (an rs_script parameter of the
 * function, or an rs_script global not shadowed by a local): the first
 * argument of the launches of API 14 to 23, rsForEach(script, in, out
 * [, usrData[, usrDataLen]][, &sc]), which run the script's root(). */
static bool script_handle(const inv *in, int t) {
  if (!ident(in, t))
    return false;
  int len;
  const char *p = fgr_tok_text(in->u, t, &len);
  for (int k = in->n - 1; k >= 0; k--)
    if (in->v[k].len == len && !memcmp(in->v[k].name, p, (size_t)len))
      return in->v[k].kind == V_SCRIPT;
  for (int k = 0; k < in->u->n_bad_globals; k++)
    if (in->u->bad_globals[k].script && fgr_tok_is(in->u, t,
                                                   in->u->bad_globals[k].name))
      return true;
  return false;
}

/* Where a launch's arguments (arg, argend: n of them) put its kernel's
 * inputs and its output: the inputs are arguments [*in0, *in1), the
 * output *out; *opts the &opts argument or -1.  An old launch
 * (script_handle) has one input and takes usrData (which the kernel may not read), a length,
 * and &sc; false (error set) when its arguments are other. */
static bool launch_args(inv *in, int t, bool with_options, const int *arg,
                        const int *argend, int n, int *in0, int *in1,
                        int *out, int *opts) {
  *opts = with_options ? 1 : -1;
  if (!with_options && n >= 3 && script_handle(in, arg[0])) {
    *in0 = 1;
    *in1 = 2;
    *out = 2;
    for (int k = 3; k < n; k++) {
      /* usrData: a kernel that reads it is refused when it is launched
       * (scan.c), so what is passed does not matter */
      if (k == 3)
        continue;
      if (k == n - 1 && k > 3 && is(in, arg[k], "&") &&
          argend[k] == arg[k] + 2) {
        *opts = k;
        continue;
      }
      if (k == 4)
        continue;       /* usrDataLen, of no user data */
      return fail_at(in, FG_ENOTSUP, arg[k], "argument %d of %s is not "
                     "rsForEach(script, in, out[, usrData[, usrDataLen]]"
                     "[, &sc])", k + 1, text(in, t));
    }
    return true;
  }
  *in0 = with_options ? 2 : 1;
  *in1 = n - 1;
  *out = n - 1;
  return true;
}

/* rsForEach(kernel, in..., out) or, with opts, rsForEachWithOptions(
 * kernel, &opts, in..., out), at token t; or the launch of root() that
 * scripts before API 24 write, rsForEach(script, in, out, ...). */
static bool for_each(inv *in, int t, bool with_options) {
  int arg[MAX_ARGS + 1], argend[MAX_ARGS + 1];
  int n = split_args(in, t + 1, arg, argend, MAX_ARGS);
  if (n < 0)
    return false;
  int first = with_options ? 2 : 1;
  if (n < first + 1)
    return fail_at(in, FG_EINVAL, t, "%s takes a kernel, %sinput "
                   "allocations and an output allocation", text(in, t),
                   with_options ? "a pointer to an rs_script_call_t, " : "");
  int in0, in1, oarg, oi;
  if (!launch_args(in, t, with_options, arg, argend, n, &in0, &in1, &oarg,
                   &oi))
    return false;
  bool old = !with_options && n >= 3 && script_handle(in, arg[0]);
  for (int k = 0; k < n; k++)
    if (argend[k] != arg[k] + 1 && k != oi && !(old && k > oarg))
      return fail_at(in, FG_ENOTSUP, arg[k], "argument %d of %s must be a "
                     "name", k + 1, text(in, t));
  int ktok = arg[0];
  int klen;
  const char *kp = fgr_tok_text(in->u, ktok, &klen);
  char kname[128];
  if (old)
    snprintf(kname, sizeof kname, "root");
  else
    snprintf(kname, sizeof kname, "%.*s", klen, kp);
  const fgr_func *kf = fgr_find_func(in->u, kname);
  if (!kf || !kf->is_kernel || !kf->has_body)
    return fail_at(in, FG_EINVAL, ktok, old ? "%s launches root(), which "
                   "the script does not define as a kernel"
                   : "%s is not a mapping kernel of the script",
                   text(in, ktok));
  fg_rs_launch opt = {0};
  if (oi >= 0) {
    if (argend[oi] != arg[oi] + 2 || !is(in, arg[oi], "&"))
      return fail_at(in, FG_ENOTSUP, arg[oi], "argument %d of %s must be "
                     "&name of an rs_script_call_t local", oi + 1,
                     text(in, t));
    var *o = use(in, arg[oi] + 1, V_OPTS);
    if (!o)
      return false;
    opt.x_start = o->range[0][0];
    opt.x_end = o->range[0][1];
    opt.y_start = o->range[1][0];
    opt.y_end = o->range[1][1];
    opt.z_start = o->range[2][0];
    opt.z_end = o->range[2][1];
  }
  int n_in = in1 - in0;
  fg_field *ins[MAX_ARGS];
  for (int k = 0; k < n_in; k++) {
    var *a = use(in, arg[in0 + k], V_ALLOC);
    if (!a)
      return false;
    if (!a->field)
      return fail_at(in, FG_EINVAL, arg[in0 + k], "%s is read before a "
                     "launch writes it", text(in, arg[in0 + k]));
    ins[k] = a->field;
  }
  int otok = arg[oarg];
  var *out = use(in, otok, V_ALLOC);
  if (!out)
    return false;
  /* a legacy root() without an input pointer launched with one
   * (rsForEach(script, in, out)): Android's runtime launches it over the
   * input's cells and passes the root nothing of it */
  if (kf->legacy && kf->legacy_in < 0 && n_in == 1) {
    opt.shape = ins[0]->type.field;
    n_in = 0;
  } else if (n_in == 0) {
    if (!out->typed)
      return fail_at(in, FG_ENOTSUP, otok, "kernel %s takes no input, and "
                     "the dimensions of %s are not known here", kname,
                     text(in, otok));
    opt.shape = out->type.field;
  }
  /* the output Allocation must be what the launch writes */
  fgk_type rt;
  if (out->typed && fgr_type_fgk(kf->ret, &rt)) {
    fg_shape sh = n_in ? ins[0]->type.field : opt.shape;
    fg_type want = rt.width == 1 ? fg_type_scalar(rt.elem, sh)
                                 : fg_type_vector(rt.elem, sh, rt.width);
    if (!fg_type_equal(out->type, want)) {
      char ta[128], tb[128];
      return fail_at(in, FG_ETYPE, otok, "kernel %s writes %s, but %s is %s",
                     kname, fg_type_str(want, ta, sizeof ta),
                     text(in, otok), fg_type_str(out->type, tb, sizeof tb));
    }
  }
  /* outside a launch range the output keeps the Allocation's contents,
   * and so does what a legacy root() does not write through its output
   * pointer */
  bool ranged = opt.x_end || opt.y_end || opt.z_end;
  bool kept = kf->legacy && kf->legacy_out >= 0 && out->typed &&
              fgr_type_fgk(kf->ret, &rt);     /* of the type checked above */
  opt.base = ranged || kept ? out->field : NULL;
  fg_field *r = fg_rs_map(in->g, in->s, kname, n_in, ins, &opt);
  if (!r) {
    /* the launch's own message, located at the rsForEach */
    char msg[sizeof in->g->errmsg + 1024];
    const fgr_tok *k = &in->u->toks[t];
    snprintf(msg, sizeof msg, "%s:%d:%d: %s: %s", in->u->files[k->file], k->line,
             k->col, in->what, in->g->errmsg);
    size_t len = strlen(msg);
    if (len >= sizeof in->g->errmsg)
      len = sizeof in->g->errmsg - 1;
    memcpy(in->g->errmsg, msg, len);
    in->g->errmsg[len] = 0;
    in->failed = true;
    return false;
  }
  out->field = r;
  out->typed = true;
  out->type = r->type;
  /* the globals the kernel set elements of are rebound to their copies */
  bool *ks = calloc((size_t)in->u->n_globals + 1, 1);
  if (!ks)
    return fail_at(in, FG_ENOMEM, t, "out of memory");
  fgr_kernel_sets(in->s, kf, ks);
  for (int j = 0; j < in->n; j++) {
    var *v = &in->v[j];
    fg_field *b = v->kind == V_ALLOC && v->global >= 0 && ks[v->global]
                      ? fgr_bound_field(in->s,
                                        in->u->globals[v->global].alloc_index)
                      : NULL;
    if (b && v != out) {
      v->field = b;
      v->typed = true;
      v->type = b->type;
    }
  }
  free(ks);
  return true;
}

/* The member of rs_script_call_t that token t names: axis and end. */
static bool opts_member(inv *in, int t, int *axis, int *end) {
  static const char *const m[6] = {"xStart", "xEnd", "yStart", "yEnd",
                                   "zStart", "zEnd"};
  for (int k = 0; k < 6; k++)
    if (is(in, t, m[k])) {
      *axis = k / 2;
      *end = k % 2;
      return true;
    }
  return fail_at(in, FG_ENOTSUP, t, "rs_script_call_t member %s is not "
                 "supported (xStart, xEnd, yStart, yEnd, zStart, zEnd are)",
                 text(in, t));
}

static bool zero_tok(const inv *in, int t) {
  int len;
  const char *p = fgr_tok_text(in->u, t, &len);
  return in->u->toks[t].kind == FGR_T_NUMBER && len == 1 && *p == '0';
}

static bool is_int_type(const inv *in, int t) {
  static const char *const names[] = {
    "int", "uint", "long", "ulong", "short", "ushort", "char", "uchar",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
    "uint32_t", "uint64_t", "size_t", "unsigned", "signed"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (is(in, t, names[k]))
      return true;
  return false;
}

/* The x, y, z of each rs_allocation global as this point of the
 * function sees them (what a launch wrote, else the binding's), for a
 * host call; malloc'd (NULL when the script has none or out of memory). */
static long *alloc_dims(inv *in) {
  const fgr_unit *u = in->u;
  long *d = u->n_allocs ? calloc((size_t)u->n_allocs * 3, sizeof *d) : NULL;
  for (int k = 0; d && k < u->n_globals; k++) {
    int a = u->globals[k].alloc_index;
    if (a < 0)
      continue;
    const var *v = NULL;
    for (int j = 0; j < in->n; j++)
      if (in->v[j].kind == V_ALLOC && in->v[j].global == k)
        v = &in->v[j];
    fg_field *b = fgr_bound_field(in->s, a);
    for (int x = 0; x < 3; x++)
      d[3 * a + x] = v && v->typed ? (long)extent(v, x)
                     : b ? (long)extent(&(var){.type = b->type}, x) : 0;
  }
  return d;
}

/* name(args); calling a function of the script that the host runs
 * (fgr_host_why): it runs now, while the graph is built, with the
 * script's globals, so what it sets is what the launches after it see;
 * its numeric arguments are arithmetic expressions (num_expr). */
static bool host_statement(inv *in, int t, int semi, const fgr_func *f) {
  int why_tok;
  const char *why = fgr_host_why(in->u, f, &why_tok);
  if (why) {
    const fgr_tok *k = &in->u->toks[why_tok];
    return fail_at(in, FG_ENOTSUP, t, "%s cannot run on the host: %s:%d:%d: "
                   "it %s", text(in, t), in->u->files[k->file], k->line,
                   k->col, why);
  }
  if (!is(in, t + 1, "(") || in->u->match[t + 1] != semi - 1)
    return fail_at(in, FG_ENOTSUP, t, "expected %s(...);", text(in, t));
  int arg[MAX_ARGS + 1], argend[MAX_ARGS + 1];
  int n = split_args(in, t + 1, arg, argend, MAX_ARGS);
  if (n < 0)
    return false;
  if (n != f->n_params)
    return fail_at(in, FG_EINVAL, t, "%s takes %d argument(s), got %d",
                   text(in, t), f->n_params, n);
  union { int64_t i; uint64_t u; double d; float f; } val[MAX_ARGS];
  const void *ptr[MAX_ARGS + 1];
  for (int k = 0; k < n; k++) {
    const fgr_type *pt = f->params[k].type;
    if (pt->kind != FGR_NUM || pt->width != 1)
      return fail_at(in, FG_ENOTSUP, arg[k], "parameter %d of %s is %s; a "
                     "call from an invokable run as a graph passes "
                     "arithmetic expressions", k + 1, text(in, t), pt->name);
    num v = num_expr(in, arg[k], argend[k]);
    if (in->failed)
      return false;
    /* the value as the parameter's type lays it out (little-endian), as
     * C converts an argument to its parameter's type */
    memset(&val[k], 0, sizeof val[k]);
    store_num((unsigned char *)&val[k], pt->elem, v);
    ptr[k] = &val[k];
  }
  long *dims = alloc_dims(in);
  if (in->u->n_allocs && !dims)
    return fail_at(in, FG_ENOMEM, t, "out of memory");
  char err[1024] = "";
  fg_status st = fgr_host_call(in->s, f, ptr, dims, err, sizeof err);
  free(dims);
  if (st != FG_OK)
    return fail_at(in, st, t, "%s", err);
  return true;
}

/* rsDebug("text"[, integer expressions]); written when the node is built,
 * as the host's rsDebug formats it: one integer as "text n", two to four
 * as Android's float overloads, "text {a, b}". */
static bool debug_statement(inv *in, int t, int semi) {
  if (!is(in, t + 1, "(") || in->u->match[t + 1] != semi - 1)
    return fail_at(in, FG_ENOTSUP, t, "expected rsDebug(...);");
  int arg[6], argend[6];
  int n = split_args(in, t + 1, arg, argend, 5);
  if (n < 0)
    return false;
  if (n < 1 || argend[0] != arg[0] + 1 ||
      in->u->toks[arg[0]].kind != FGR_T_STRING)
    return fail_at(in, FG_ENOTSUP, t, "rsDebug in an invokable run as a "
                   "graph takes a string literal, then integer expressions");
  int len;
  const char *p = fgr_tok_text(in->u, arg[0], &len);
  fgu_buf b = {0};
  fgu_buf_printf(&b, "%.*s", len > 1 ? len - 2 : 0, p + 1);
  for (int k = 1; k < n; k++) {
    int64_t v = int_expr(in, arg[k], argend[k]);
    if (in->failed) {
      fgu_buf_free(&b);
      return false;
    }
    if (n == 2)
      fgu_buf_printf(&b, " %lld", (long long)v);
    else
      fgu_buf_printf(&b, "%s%f%s", k == 1 ? " {" : ", ", (double)v,
                     k == n - 1 ? "}" : "");
  }
  if (b.oom) {
    fgu_buf_free(&b);
    return fail_at(in, FG_ENOMEM, t, "out of memory");
  }
  fgr_host_log(in->s, b.s ? b.s : "");
  fgu_buf_free(&b);
  return true;
}

/* global = arithmetic expression (num_expr), for a numeric scalar global
 * of the script: its script value (what kernels read) is set now, as an
 * invokable's write on Android is seen by the launches after it; the
 * value converted to the global's type as C converts it. */
static bool global_statement(inv *in, int t, int semi, int k) {
  const fgr_global *gl = &in->u->globals[k];
  const fgr_type *ty = gl->type;
  if (ty->kind != FGR_NUM || ty->width != 1 || gl->is_const)
    return fail_at(in, FG_ENOTSUP, t, "global %s is %s%s; an invokable run "
                   "as a graph assigns numeric scalar globals only",
                   text(in, t), gl->is_const ? "const " : "", ty->name);
  num v = num_expr(in, t + 2, semi);
  if (in->failed)
    return false;
  if (!gl->buffered)
    return true;        /* no kernel reads it */
  /* after a launch that writes globals, later launches read its copy,
   * which this value, known now, cannot enter */
  for (int i = 0; i < in->g->fields.n; i++)
    if (((fg_field *)in->g->fields.item[i])->sink == &in->s->u->live)
      return fail_at(in, FG_ENOTSUP, t, "assigns global %s after a launch "
                     "that writes the script's globals; fieldgraph runs "
                     "such assignments before those launches", text(in, t));
  store_num(in->s->u->live.bytes + gl->offset, ty->elem, v);
  return true;
}

/* One statement at token t, ending at its ';' (*next: the token after). */
static bool statement(inv *in, int t, int end, int *next) {
  int semi = t;
  while (semi < end && !is(in, semi, ";")) {
    if (is(in, semi, "(") || is(in, semi, "{") || is(in, semi, "["))
      semi = in->u->match[semi];
    semi++;
  }
  *next = semi + 1;
  if (semi >= end)
    return fail_at(in, FG_ENOTSUP, t, "%s: expected a statement ending in "
                   "';' (%s)", text(in, t), supported);
  if (semi == t)
    return true;
  if (is(in, t, "return") && semi == t + 1) {   /* the body ends here */
    in->returned = true;
    return true;
  }
  if (is(in, t, "rsForEach") || is(in, t, "rsForEachWithOptions")) {
    if (!is(in, t + 1, "(") || in->u->match[t + 1] != semi - 1)
      return fail_at(in, FG_ENOTSUP, t, "expected %s(...);", text(in, t));
    return for_each(in, t, is(in, t, "rsForEachWithOptions"));
  }
  if (is(in, t, "rsClearObject")) {
    if (!is(in, t + 1, "(") || !is(in, t + 2, "&") || !is(in, t + 4, ")") ||
        t + 5 != semi)
      return fail_at(in, FG_ENOTSUP, t, "expected rsClearObject(&name);");
    var *v = use(in, t + 3, V_ALLOC);
    if (v) {      /* the handle is gone; the field lives while it is used */
      v->field = NULL;
      v->typed = false;
    }
    return v != NULL;
  }
  int d = t;
  while (is(in, d, "const"))
    d++;
  if (is(in, d, "rs_allocation")) {
    if (!ident(in, d + 1) || !is(in, d + 2, "=") || d + 3 >= semi)
      return fail_at(in, FG_ENOTSUP, d, "expected rs_allocation name = "
                     "rsCreateAllocation_<type>(...) or another allocation");
    var *v = declare(in, d + 1, V_ALLOC);
    if (!v)
      return false;
    int x = d + 3;
    int len;
    const char *p = fgr_tok_text(in->u, x, &len);
    if (len > 19 && !memcmp(p, "rsCreateAllocation_", 19)) {
      if (!is(in, x + 1, "(") || in->u->match[x + 1] != semi - 1)
        return fail_at(in, FG_ENOTSUP, x, "expected %s(...);", text(in, x));
      return create_alloc(in, x, v);
    }
    if (x + 1 == semi && ident(in, x)) {
      var *o = use(in, x, V_ALLOC);
      if (o) {
        v->field = o->field;
        v->typed = o->typed;
        v->type = o->type;
      }
      return o != NULL;
    }
    return fail_at(in, FG_ENOTSUP, x, "%s: rs_allocation locals come from "
                   "rsCreateAllocation_<type>(x[, y[, z]]) (%s)",
                   text(in, x), supported);
  }
  bool sc = is(in, d, "struct") && is(in, d + 1, "rs_script_call");
  if (is(in, d, "rs_script_call_t") || sc) {
    if (sc)
      d++;
    var *v = ident(in, d + 1) ? declare(in, d + 1, V_OPTS) : NULL;
    if (!v)
      return in->failed ? false
                        : fail_at(in, FG_ENOTSUP, d, "expected a name");
    if (d + 2 == semi)
      return true;      /* the members are assigned below */
    if (is(in, d + 2, "=") && is(in, d + 3, "{") &&
        in->u->match[d + 3] == semi - 1 &&
        (d + 5 == semi || (d + 6 == semi && zero_tok(in, d + 4))))
      return true;
    return fail_at(in, FG_ENOTSUP, d + 2, "rs_script_call_t locals are "
                   "initialized with = {0} (then their members assigned)");
  }
  if (is_int_type(in, d)) {
    while (is_int_type(in, d))
      d++;
    if (!ident(in, d) || !is(in, d + 1, "="))
      return fail_at(in, FG_ENOTSUP, d, "expected an integer local with an "
                     "initializer");
    var *v = declare(in, d, V_INT);
    if (!v)
      return false;
    v->value = n_to_int(num_expr(in, d + 2, semi), 8, true);
    return !in->failed;
  }
  if (ident(in, t) && is(in, t + 1, ".") && is(in, t + 3, "=") &&
      (is(in, t + 2, "strategy") || is(in, t + 2, "arrayStart") ||
       is(in, t + 2, "arrayEnd"))) {
    /* the launch's strategy and array range: nothing to set here
     * (fieldgraph schedules launches itself; no array dimensions) */
    return use(in, t, V_OPTS) != NULL;
  }
  if (ident(in, t) && is(in, t + 1, ".") && is(in, t + 3, "=")) {
    var *v = use(in, t, V_OPTS);
    int axis = 0, e = 0;
    if (!v || !opts_member(in, t + 2, &axis, &e))
      return false;
    v->range[axis][e] = int_expr(in, t + 4, semi);
    return !in->failed;
  }
  if (ident(in, t) && is(in, t + 1, "=")) {
    var *v = lookup(in, t);
    if (v && v->kind == V_INT) {
      v->value = n_to_int(num_expr(in, t + 2, semi), 8, true);
      return !in->failed;
    }
    if (v && v->kind == V_NUM) {    /* C converts to the parameter's type */
      unsigned char b[8] = {0};
      store_num(b, v->ne, num_expr(in, t + 2, semi));
      v->nv = load_num(b, v->ne);
      return !in->failed;
    }
    int len;
    const char *p = fgr_tok_text(in->u, t, &len);
    char name[128];
    snprintf(name, sizeof name, "%.*s", len, p);
    int k = v ? -1 : fgr_find_global(in->u, name);
    if (k >= 0 && in->u->globals[k].alloc_index < 0)
      return global_statement(in, t, semi, k);
  }
  if (is(in, t, "rsDebug"))
    return debug_statement(in, t, semi);
  if (ident(in, t) && is(in, t + 1, "(") && !lookup(in, t)) {
    int len;
    const char *p = fgr_tok_text(in->u, t, &len);
    char name[128];
    snprintf(name, sizeof name, "%.*s", len, p);
    const fgr_func *f = fgr_find_func(in->u, name);
    if (f && f->has_body && !f->is_kernel)
      return host_statement(in, t, semi, f);
  }
  return fail_at(in, FG_ENOTSUP, t, "%s is not supported (%s)", text(in, t),
                 supported);
}

/* ---- roles of the parameters -------------------------------------------- */

/* The slot token t names: an rs_allocation parameter (its index), else
 * an rs_allocation global (n_params + its index in globals), else -1. */
static int slot_of(const inv *in, int t) {
  const fgr_func *f = in->f;
  if (!ident(in, t))
    return -1;
  for (int p = 0; p < f->n_params; p++)
    if (f->params[p].name && fgr_tok_is(in->u, t, f->params[p].name))
      return f->params[p].type->kind == FGR_ALLOC ? p : -1;
  for (int k = 0; k < in->u->n_globals; k++)
    if (in->u->globals[k].alloc_index >= 0 &&
        fgr_tok_is(in->u, t, in->u->globals[k].name))
      return f->n_params + k;
  return -1;
}

/* Marks set[k] for each rs_allocation global k that the kernel of the
 * launch at token t (arguments arg, n of them) sets elements of
 * (fgr_kernel_sets): its launch writes them too. */
static void launch_sets(inv *in, int t, bool with_options, const int *arg,
                        int n, bool *set) {
  bool old = !with_options && n >= 3 && script_handle(in, arg[0]);
  int len;
  const char *p = fgr_tok_text(in->u, arg[0], &len);
  char kname[128];
  snprintf(kname, sizeof kname, "%.*s", old ? 4 : len, old ? "root" : p);
  const fgr_func *kf = fgr_find_func(in->u, kname);
  bool *ks = calloc((size_t)in->u->n_globals + 1, 1);
  if (!ks) {
    fail_at(in, FG_ENOMEM, t, "out of memory");
    return;
  }
  if (kf && kf->is_kernel && kf->has_body)
    fgr_kernel_sets(in->s, kf, ks);
  for (int k = 0; k < in->u->n_globals; k++)
    set[k] = set[k] || ks[k];
  free(ks);
}

/* Whether each rs_allocation parameter or global (slot_of) is read
 * before any launch writes it (an argument, or the field the global is
 * bound to) and whether a launch writes it (a result); from the order of
 * the tokens, which in straight-line code is the order of execution (a
 * launch reads its inputs before it writes its output). */
static void roles(inv *in, int a, int b, bool *read, bool *written) {
  for (int i = a; i < b && !in->failed; i++) {
    if (!ident(in, i))
      continue;
    bool opt = is(in, i, "rsForEachWithOptions");
    if ((is(in, i, "rsForEach") || opt) && is(in, i + 1, "(") &&
        in->u->match[i + 1] > i + 1) {
      int rp = in->u->match[i + 1];
      int arg[MAX_ARGS + 1], argend[MAX_ARGS + 1], in0, in1, o, oi;
      int n = split_args(in, i + 1, arg, argend, MAX_ARGS);
      if (n < 2 || !launch_args(in, i, opt, arg, argend, n, &in0, &in1, &o,
                                &oi))
        return;
      for (int k = in0; k < in1; k++)
        for (int j = arg[k]; j < argend[k]; j++) {
          int sl = slot_of(in, j);
          if (sl >= 0 && !written[sl])
            read[sl] = true;
        }
      int sl = argend[o] == arg[o] + 1 ? slot_of(in, arg[o]) : -1;
      if (sl >= 0)
        written[sl] = true;
      launch_sets(in, i, opt, arg, n, written + in->f->n_params);
      i = rp;
      continue;
    }
    int sl = slot_of(in, i);
    if (sl >= 0 && !written[sl])
      read[sl] = true;
  }
}

/* "a, b" of the parameters flagged in which, for messages. */
static const char *param_list(inv *in, const bool *which) {
  fgu_buf b = {0};
  for (int p = 0; p < in->f->n_params; p++)
    if (which[p])
      fgu_buf_printf(&b, "%s%s", b.len ? ", " : "", in->f->params[p].name);
  char *s = fgu_buf_take(&b);
  const char *r = fgu_arena_strdup(&in->g->arena, s && *s ? s : "none");
  free(s);
  return r ? r : "?";
}

fg_status fg_rs_invoke(fg_graph *g, fg_rs_script *s, const char *function,
                       int n_args, fg_field *const *args, int n_results,
                       fg_field **results) {
  return fg_rs_invoke_args(g, s, function, NULL, n_args, args, n_results,
                           results);
}

fg_status fg_rs_invoke_args(fg_graph *g, fg_rs_script *s,
                            const char *function, const void *const *values,
                            int n_args, fg_field *const *args, int n_results,
                            fg_field **results) {
  for (int k = 0; results && k < n_results; k++)
    results[k] = NULL;
  if (!g)
    return FG_EINVAL;
  if (g->status != FG_OK)
    return g->status;
  if (!s || !function) {
    fg__fail(g, FG_EINVAL, "fg_rs_invoke: %s is NULL",
             s ? "the function name" : "the script");
    return g->status;
  }
  inv in = {.g = g, .s = s, .u = s->u};
  in.what = fgu_arena_printf(&g->arena, "fg_rs_invoke '%s.%s'", s->u->name,
                             function);
  if (!in.what) {
    fg__fail(g, FG_ENOMEM, "fg_rs_invoke: out of memory");
    return g->status;
  }
  const fgr_func *f = fgr_find_func(s->u, function);
  if (!f || !f->has_body || f->is_kernel || f->is_static) {
    fg__fail(g, FG_EINVAL, "%s: script '%s' has no invokable function '%s'%s",
             in.what, s->u->name, function,
             f && f->is_kernel ? " (it is a kernel: use fg_rs_map)"
             : f && f->is_static ? " (a static function is not invokable)"
             : "");
    return g->status;
  }
  in.f = f;
  if (f->ret->kind != FGR_VOID || f->ret_ptr) {
    fail_at(&in, FG_ENOTSUP, f->name_tok, "'%s' returns %s; fieldgraph runs "
            "invokables that return void", f->name, f->ret->name);
    return g->status;
  }
  if (n_args < 0 || n_results < 0 || (n_args && !args) ||
      (n_results && !results)) {
    fg__fail(g, FG_EINVAL, "%s: bad argument or result array", in.what);
    return g->status;
  }
  if (f->n_params > 64) {
    fail_at(&in, FG_ENOTSUP, f->lparen, "more than 64 parameters");
    return g->status;
  }
  /* one that launches no kernel runs whole, loops and all, as one thread
   * over its allocations (rsGetElementAt / rsSetElementAt on them) and
   * the values of its other parameters */
  if (fgr_func_mention(s->u, f, "rsForEach", true) < 0) {
    fg_field *r[FG_MAX_OUTPUTS];
    int nr = 0;
    if (fgr_invoke_single(g, s, f, in.what, values, n_args, args, r, &nr) !=
        FG_OK)
      return g->status;
    if (n_results != nr) {
      char w[64] = "no allocation (only globals)";
      if (nr)
        snprintf(w, sizeof w, "%d allocation(s)", nr);
      fg__fail(g, FG_EINVAL, "%s: '%s' runs as one thread and writes %s; "
               "got %d result slot(s)", in.what, f->name, w, n_results);
      return g->status;
    }
    memcpy(results, r, (size_t)nr * sizeof *r);
    return FG_OK;
  }
  for (int p = 0; p < f->n_params; p++) {
    const fgr_param *pa = &f->params[p];
    bool script = pa->type->kind == FGR_OPAQUE && !pa->ptr &&
                  !strcmp(pa->type->name, "rs_script");
    bool scalar = pa->type->kind == FGR_NUM && pa->type->width == 1 &&
                  !pa->ptr && pa->name;
    if (scalar && values && values[p]) {
      /* a numeric parameter: its value, as the invokable's code reads it
       * (launch bounds, assignments to globals, arguments) */
      var *v = &in.v[in.n++];
      memset(v, 0, sizeof *v);
      v->name = pa->name;
      v->len = (int)strlen(v->name);
      v->kind = V_NUM;
      v->ne = pa->type->elem;
      v->nv = load_num(values[p], pa->type->elem);
      v->param = p;
      v->global = -1;
      continue;
    }
    if (scalar) {
      fail_at(&in, FG_EINVAL, pa->tok, "parameter %s of '%s' is %s; pass "
              "its value with fg_rs_invoke_args", pa->name, f->name,
              pa->type->name);
      return g->status;
    }
    if ((pa->type->kind != FGR_ALLOC && !script) || pa->ptr || !pa->name) {
      fail_at(&in, FG_ENOTSUP, pa->tok, "parameter %s of '%s' is %s%s; an "
              "invokable run as a graph takes named rs_allocation, "
              "rs_script and numeric scalar parameters only",
              pa->name ? pa->name : "?", f->name, pa->type->name,
              pa->ptr ? " *" : "");
      return g->status;
    }
    if (script) {       /* the script itself: what old launches name */
      var *v = &in.v[in.n++];
      memset(v, 0, sizeof *v);
      v->name = pa->name;
      v->len = (int)strlen(v->name);
      v->kind = V_SCRIPT;
      v->param = p;
      v->global = -1;
    }
  }
  /* slots: the parameters, then the rs_allocation globals */
  int n_slots = f->n_params + s->u->n_globals;
  bool *read = calloc((size_t)n_slots + 1, 1);
  bool *written = calloc((size_t)n_slots + 1, 1);
  if (!read || !written) {
    free(read);
    free(written);
    fg__fail(g, FG_ENOMEM, "%s: out of memory", in.what);
    return g->status;
  }
  int close = f->tok1 - 1, open = s->u->match[close];
  roles(&in, open + 1, close, read, written);
  int want_in = 0, want_out = 0;
  for (int p = 0; p < n_slots; p++) {
    want_in += p < f->n_params && read[p];
    want_out += written[p];
  }
  if (!in.failed && (n_args != want_in || n_results != want_out)) {
    const char *gw = "";
    for (int k = 0; k < s->u->n_globals; k++)
      if (written[f->n_params + k])
        gw = fgu_arena_printf(&g->arena, "%s%s%s", gw, *gw ? ", " : "; and "
                              "the globals ", s->u->globals[k].name);
    fail_at(&in, FG_EINVAL, f->name_tok, "'%s' reads %d allocation "
            "parameter(s) (%s) and writes %d (%s%s); got %d "
            "argument(s) and %d result(s)", f->name, want_in,
            param_list(&in, read), want_out, param_list(&in, written),
            gw ? gw : "", n_args, n_results);
  }
  int a = 0;
  for (int p = 0; p < f->n_params && !in.failed; p++) {
    if (f->params[p].type->kind != FGR_ALLOC)
      continue;
    var *v = &in.v[in.n++];
    memset(v, 0, sizeof *v);
    v->name = f->params[p].name;
    v->len = (int)strlen(v->name);
    v->kind = V_ALLOC;
    v->param = p;
    v->global = -1;
    if (!read[p])
      continue;
    fg_field *x = args[a];
    if (!x || x->graph != g) {
      fg__fail(g, FG_EINVAL, "%s: argument %d (%s) is %s", in.what, a,
               v->name, x ? "a field of another graph" : "NULL");
      in.failed = true;
      break;
    }
    v->field = x;
    v->typed = true;
    v->type = x->type;
    a++;
  }
  /* the rs_allocation globals it uses: those it reads are the fields they
   * are bound to (fg_rs_bind_allocation) */
  for (int k = 0; k < s->u->n_globals && !in.failed; k++) {
    const fgr_global *gl = &s->u->globals[k];
    int sl = f->n_params + k;
    if (gl->alloc_index < 0 || (!read[sl] && !written[sl]))
      continue;
    if (in.n == MAX_VARS) {
      fail_at(&in, FG_ENOTSUP, gl->tok, "more than %d locals", MAX_VARS);
      break;
    }
    var *v = &in.v[in.n++];
    memset(v, 0, sizeof *v);
    v->name = gl->name;
    v->len = (int)strlen(v->name);
    v->kind = V_ALLOC;
    v->param = -1;
    v->global = k;
    if (!read[sl])
      continue;
    fg_field *x = fgr_bound_field(s, gl->alloc_index);
    if (!x || x->graph != g) {
      fg__fail(g, FG_EINVAL, "%s: it reads rs_allocation global '%s', which "
               "is %s", in.what, gl->name,
               x ? "bound to a field of another graph"
                 : "not bound (fg_rs_bind_allocation)");
      in.failed = true;
      break;
    }
    v->field = x;
    v->typed = true;
    v->type = x->type;
  }
  for (int t = open + 1; t < close && !in.failed && !in.returned;) {
    int next;
    if (!statement(&in, t, close, &next))
      break;
    t = next;
  }
  if (in.failed || g->status != FG_OK) {
    free(read);
    free(written);
    return g->status;
  }
  /* results: the parameters written, then the globals, in their order */
  int r = 0;
  for (int sl = 0; sl < n_slots; sl++) {
    if (!written[sl])
      continue;
    for (int k = 0; k < in.n; k++)
      if (in.v[k].kind == V_ALLOC &&
          (sl < f->n_params ? in.v[k].param == sl
                            : in.v[k].global == sl - f->n_params))
        results[r] = in.v[k].field;
    r++;
  }
  free(read);
  free(written);
  return FG_OK;
}
