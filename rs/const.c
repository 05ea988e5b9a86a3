/* rs/const.c - the RenderScript scanner's constant evaluator: C
 * constant expressions over a script's tokens (numbers, character
 * constants, true and false, object-like macros, const scalar globals
 * declared before, casts to scalar types, C's operators with
 * its integer promotions) and the initializers of globals (scalars,
 * vectors, arrays, structs, designated members), written into the C
 * layout the host packs and the device reads.  Errors leave the scan
 * through fgr_scan_fail, at the token they concern. */
#include "scan_impl.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool is(fgr_scan *s, int i, const char *str) {
  return fgr_tok_is(s->u, i, str);
}

/* ---- constant expressions ----------------------------------------------- */

typedef struct cexpr {
  fgr_scan *s;
  int *t;                       /* token indices, macros expanded */
  int n, p;
  int at;                       /* token for messages */
  struct cexpr *up;             /* the evaluation this one is inside */
} cexpr;

/* Registers c with its scanner (c->s->evals), so that a failure anywhere
 * inside frees c->t; end() undoes it on the way out. */
static void begin(cexpr *c) {
  c->up = c->s->evals;
  c->s->evals = c;
}

static void end(cexpr *c) {
  c->s->evals = c->up;
  free(c->t);
  c->t = NULL;
}

void fgr_const_abandon(fgr_scan *s) {
  for (cexpr *c = s->evals; c; c = c->up) {
    free(c->t);
    c->t = NULL;
  }
  s->evals = NULL;
}

static const fgr_macro *find_macro(const fgr_unit *u, const char *name,
                                   int len) {
  for (int k = u->n_macros - 1; k >= 0; k--)
    if ((int)strlen(u->macros[k].name) == len &&
        !memcmp(u->macros[k].name, name, (size_t)len))
      return &u->macros[k];
  return NULL;
}

/* Appends tokens [a, b) to c->t, expanding object-like macros. */
static void expand(cexpr *c, int a, int b, int depth) {
  fgr_scan *s = c->s;
  for (int i = a; i < b; i++) {
    int len;
    const char *p = fgr_tok_text(s->u, i, &len);
    const fgr_macro *m = fgr_scan_tok(s, i)->kind == FGR_T_IDENT
                             ? find_macro(s->u, p, len)
                             : NULL;
    if (m && !m->function_like && depth < 32) {
      expand(c, m->tok0, m->tok1, depth + 1);
      continue;
    }
    if (m)
      fgr_scan_fail(s, i,
                    "cannot evaluate function-like macro '%.*s' in a "
                    "constant expression",
                    len, p);
    if (c->n % 64 == 0) {
      int *nt = realloc(c->t, (size_t)(c->n + 64) * sizeof *nt);
      if (!nt)
        fgr_scan_fail(s, i, "out of memory");
      c->t = nt;
    }
    c->t[c->n++] = i;
  }
}

static int cur(cexpr *c) { return c->p < c->n ? c->t[c->p] : -1; }

static bool cis(cexpr *c, const char *str) {
  return cur(c) >= 0 && is(c->s, cur(c), str);
}

static _Noreturn void cfail(cexpr *c, const char *what) {
  int t = cur(c) >= 0 ? cur(c) : c->at;
  fgr_scan_fail(c->s, t,
                "cannot evaluate %s: fieldgraph evaluates constant "
                "expressions of numbers, macros, const globals, casts and operators (at %s)",
                what, cur(c) >= 0 ? fgr_scan_quote(c->s, cur(c)) : "its end");
}

static fgr_cval cond_expr(cexpr *c);

fgr_cval fgr_cval_to_int(fgr_cval v) {
  if (v.f) {
    v.i = (int64_t)v.d;
    v.f = false;
  }
  return v;
}

static double as_double(fgr_cval v) {
  return v.f ? v.d : v.uns ? (double)(uint64_t)v.i : (double)v.i;
}

static fgr_cval number(cexpr *c, int t) {
  int len;
  const char *p = fgr_tok_text(c->s->u, t, &len);
  char buf[80];
  if (len >= (int)sizeof buf)
    cfail(c, "a number");
  memcpy(buf, p, (size_t)len);
  buf[len] = 0;
  fgr_cval v = {0};
  bool hex = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
  if ((!hex && strpbrk(buf, ".eE")) || (hex && strpbrk(buf, ".pP"))) {
    char *end;
    v.f = true;
    v.d = strtod(buf, &end);
    if (*end == 'f' || *end == 'F') {
      v.d = (float)v.d;
      end++;
    }
    if (*end)
      cfail(c, "a number");
    return v;
  }
  char *end;
  errno = 0;
  v.i = (int64_t)strtoull(buf, &end, 0);
  for (; *end; end++) {
    if (*end == 'u' || *end == 'U')
      v.uns = true;
    else if (*end != 'l' && *end != 'L')
      cfail(c, "a number");
  }
  return v;
}

/* A cast's scalar type at the cursor ("(uint32_t)"), or NULL. */
static const fgr_type *cast_type(cexpr *c) {
  if (!cis(c, "(") || c->p + 2 >= c->n || !is(c->s, c->t[c->p + 2], ")"))
    return NULL;
  int t = c->t[c->p + 1];
  if (fgr_scan_tok(c->s, t)->kind != FGR_T_IDENT)
    return NULL;
  const fgr_type *ty = fgr_scan_builtin(c->s, t);
  if (!ty) {
    static const struct { const char *n; fg_elem e; } kw[] = {
      {"char", FG_I8}, {"short", FG_I16}, {"int", FG_I32}, {"long", FG_I64},
      {"float", FG_F32}, {"double", FG_F64}};
    for (size_t k = 0; k < 6 && !ty; k++)
      if (is(c->s, t, kw[k].n))
        ty = fgr_scan_num_type(c->s, kw[k].e, 1);
    const fgr_named *n =
        ty ? NULL
           : fgr_scan_find_named(c->s->u, fgr_scan_tok_str(c->s, t), false);
    ty = ty ? ty : n ? n->type : NULL;
  }
  return ty && ty->kind == FGR_NUM && ty->width == 1 ? ty : NULL;
}

static fgr_cval convert(fgr_cval v, fg_elem e) {
  if (fgk_is_float(e)) {
    double d = as_double(v);
    return (fgr_cval){.f = true, .d = e == FG_F32 ? (float)d : d};
  }
  v = fgr_cval_to_int(v);
  uint64_t u = (uint64_t)v.i;
  int bits = (int)fg_elem_size(e) * 8;
  if (bits < 64) {
    u &= (1ull << bits) - 1;
    if (fgk_is_signed(e) && (u >> (bits - 1)))
      u |= ~0ull << bits;
  }
  return (fgr_cval){.i = (int64_t)u, .uns = !fgk_is_signed(e)};
}

/* The const scalar global that identifier t names, declared before t
 * with an initializer (C reads `static const int N = 17;` as a constant
 * too, and scripts size arrays and fill vectors with it), or NULL. */
static const fgr_global *const_global(cexpr *c, int t) {
  int k = fgr_find_global(c->s->u, fgr_scan_tok_str(c->s, t));
  if (k < 0)
    return NULL;
  const fgr_global *g = &c->s->u->globals[k];
  if (!g->is_const || g->init0 < 0 || g->tok >= t || (g->init0 <= t && t < g->init1) ||
      g->type->kind != FGR_NUM || g->type->width != 1)
    return NULL;
  int depth = 0;
  for (const cexpr *e = c; e; e = e->up)
    depth++;
  return depth < 32 ? g : NULL;
}

static fgr_cval unary(cexpr *c) {
  const fgr_type *ct = cast_type(c);
  if (ct) {
    c->p += 3;
    return convert(unary(c), ct->elem);
  }
  if (cis(c, "-") || cis(c, "+") || cis(c, "~") || cis(c, "!")) {
    char op = *(c->s->u->text + fgr_scan_tok(c->s, cur(c))->off);
    c->p++;
    fgr_cval v = unary(c);
    if (op == '-') {
      if (v.f)
        v.d = -v.d;
      else
        v.i = (int64_t)(0 - (uint64_t)v.i);
    } else if (op == '~') {
      v = fgr_cval_to_int(v);
      v.i = ~v.i;
    } else if (op == '!') {
      v = (fgr_cval){.i = v.f ? v.d == 0 : v.i == 0};
    }
    return v;
  }
  if (cis(c, "(")) {
    c->p++;
    fgr_cval v = cond_expr(c);
    if (!cis(c, ")"))
      cfail(c, "a parenthesized expression");
    c->p++;
    return v;
  }
  int t = cur(c);
  if (t >= 0 && fgr_scan_tok(c->s, t)->kind == FGR_T_NUMBER) {
    c->p++;
    return number(c, t);
  }
  if (t >= 0 && fgr_scan_tok(c->s, t)->kind == FGR_T_IDENT) {
    if (is(c->s, t, "true") || is(c->s, t, "false")) {
      c->p++;
      return (fgr_cval){.i = is(c->s, t, "true")};
    }
    int64_t ev;
    if (fgr_scan_enum_value(c->s, t, &ev)) {
      c->p++;
      return (fgr_cval){.i = ev};
    }
    const fgr_global *g = const_global(c, t);
    if (g) {
      c->p++;
      return convert(fgr_const_eval(c->s, g->init0, g->init1, "a constant"),
                     g->type->elem);
    }
  }
  if (t >= 0 && fgr_scan_tok(c->s, t)->kind == FGR_T_CHAR) {
    int len;
    const char *p = fgr_tok_text(c->s->u, t, &len);
    c->p++;
    if (len == 3)
      return (fgr_cval){.i = (unsigned char)p[1]};
    cfail(c, "a character constant");
  }
  cfail(c, "an expression");
}

static int prec(cexpr *c, const char **op) {
  static const struct { const char *op; int p; } tab[] = {
    {"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4}, {"&", 5}, {"==", 6},
    {"!=", 6}, {"<", 7}, {">", 7}, {"<=", 7}, {">=", 7}, {"<<", 8},
    {">>", 8}, {"+", 9}, {"-", 9}, {"*", 10}, {"/", 10}, {"%", 10}};
  for (size_t k = 0; k < sizeof tab / sizeof *tab; k++)
    if (cis(c, tab[k].op)) {
      *op = tab[k].op;
      return tab[k].p;
    }
  return 0;
}

static fgr_cval binop(cexpr *c, const char *op, fgr_cval a, fgr_cval b) {
  bool fl = a.f || b.f;
  bool uns = a.uns || b.uns;
  if (!strcmp(op, "||") || !strcmp(op, "&&")) {
    bool x = a.f ? a.d != 0 : a.i != 0, y = b.f ? b.d != 0 : b.i != 0;
    return (fgr_cval){.i = op[0] == '|' ? (x || y) : (x && y)};
  }
  if (fl) {
    double x = as_double(a), y = as_double(b);
    if (!strcmp(op, "+")) return (fgr_cval){.f = true, .d = x + y};
    if (!strcmp(op, "-")) return (fgr_cval){.f = true, .d = x - y};
    if (!strcmp(op, "*")) return (fgr_cval){.f = true, .d = x * y};
    if (!strcmp(op, "/")) return (fgr_cval){.f = true, .d = x / y};
    if (!strcmp(op, "<")) return (fgr_cval){.i = x < y};
    if (!strcmp(op, ">")) return (fgr_cval){.i = x > y};
    if (!strcmp(op, "<=")) return (fgr_cval){.i = x <= y};
    if (!strcmp(op, ">=")) return (fgr_cval){.i = x >= y};
    if (!strcmp(op, "==")) return (fgr_cval){.i = x == y};
    if (!strcmp(op, "!=")) return (fgr_cval){.i = x != y};
    cfail(c, "an integer operator on floating-point values");
  }
  uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i;
  fgr_cval r = {.uns = uns};
  if (!strcmp(op, "+")) r.i = (int64_t)(x + y);
  else if (!strcmp(op, "-")) r.i = (int64_t)(x - y);
  else if (!strcmp(op, "*")) r.i = (int64_t)(x * y);
  else if (!strcmp(op, "/") || !strcmp(op, "%")) {
    if (y == 0)
      cfail(c, "a division by zero");
    if (uns)
      r.i = (int64_t)(op[0] == '/' ? x / y : x % y);
    else
      r.i = op[0] == '/' ? a.i / b.i : a.i % b.i;
  } else if (!strcmp(op, "<<")) r.i = (int64_t)(x << (y & 63));
  else if (!strcmp(op, ">>"))
    r.i = uns ? (int64_t)(x >> (y & 63)) : a.i >> (y & 63);
  else if (!strcmp(op, "&")) r.i = (int64_t)(x & y);
  else if (!strcmp(op, "|")) r.i = (int64_t)(x | y);
  else if (!strcmp(op, "^")) r.i = (int64_t)(x ^ y);
  else {
    r.uns = false;
    if (!strcmp(op, "<")) r.i = uns ? x < y : a.i < b.i;
    else if (!strcmp(op, ">")) r.i = uns ? x > y : a.i > b.i;
    else if (!strcmp(op, "<=")) r.i = uns ? x <= y : a.i <= b.i;
    else if (!strcmp(op, ">=")) r.i = uns ? x >= y : a.i >= b.i;
    else if (!strcmp(op, "==")) r.i = x == y;
    else r.i = x != y;
  }
  return r;
}

static fgr_cval binary(cexpr *c, int min_prec) {
  fgr_cval a = unary(c);
  for (;;) {
    const char *op;
    int p = prec(c, &op);
    if (!p || p < min_prec)
      return a;
    c->p++;
    fgr_cval b = binary(c, p + 1);
    a = binop(c, op, a, b);
  }
}

static fgr_cval cond_expr(cexpr *c) {
  fgr_cval v = binary(c, 1);
  if (cis(c, "?")) {
    c->p++;
    fgr_cval a = cond_expr(c);
    if (!cis(c, ":"))
      cfail(c, "a conditional expression");
    c->p++;
    fgr_cval b = cond_expr(c);
    v = (v.f ? v.d != 0 : v.i != 0) ? a : b;
  }
  return v;
}

/* Evaluates the constant expression in tokens [a, b). */
fgr_cval fgr_const_eval(fgr_scan *s, int a, int b, const char *what) {
  cexpr c = {.s = s, .at = a};
  begin(&c);
  expand(&c, a, b, 0);
  if (!c.n)
    fgr_scan_fail(s, a, "expected %s, got %s", what, fgr_scan_quote(s, a));
  fgr_cval v = cond_expr(&c);
  if (c.p != c.n)
    fgr_scan_fail(s, c.t[c.p], "unexpected %s in %s",
                  fgr_scan_quote(s, c.t[c.p]), what);
  end(&c);
  return v;
}

/* ---- initializers of globals -------------------------------------------- */

static void store(unsigned char *p, fg_elem e, fgr_cval v) {
  v = convert(v, e);
  switch (e) {
  case FG_F32: { float f = (float)v.d; memcpy(p, &f, 4); break; }
  case FG_F64: memcpy(p, &v.d, 8); break;
  default: {
    uint64_t u = (uint64_t)v.i;
    size_t n = fg_elem_size(e);
    memcpy(p, &u, n);    /* little endian, as every supported device */
  }
  }
}

/* Evaluates the initializer at c (a cursor over an expanded list) for an
 * object of type t at p. */
static void init_object(cexpr *c, const fgr_type *t, unsigned char *p);

static void init_scalar_expr(cexpr *c, const fgr_type *t, unsigned char *p) {
  /* one assignment-expression: up to ',' or '}' at depth 0 */
  int depth = 0, start = c->p;
  while (c->p < c->n) {
    if (cis(c, "(") || cis(c, "[") || cis(c, "{"))
      depth++;
    else if (cis(c, ")") || cis(c, "]") || (cis(c, "}") && depth > 0))
      depth--;
    else if (depth == 0 && (cis(c, ",") || cis(c, "}")))
      break;
    c->p++;
  }
  cexpr sub = {.s = c->s, .t = c->t + start, .n = c->p - start,
               .at = start < c->n ? c->t[start] : c->at};
  if (!sub.n)
    cfail(c, "an initializer");
  fgr_cval v = cond_expr(&sub);
  if (sub.p != sub.n)
    cfail(&sub, "an initializer");
  if (t->kind == FGR_NUM) {
    for (int k = 0; k < t->width; k++)
      store(p + (int64_t)fg_elem_size(t->elem) * k, t->elem, v);
  } else if (t->kind == FGR_BOOL) {
    p[0] = v.f ? v.d != 0 : v.i != 0;
  } else {
    cfail(&sub, "an initializer of an aggregate");
  }
}

static void init_list(cexpr *c, const fgr_type *t, unsigned char *p,
                      bool braced) {
  int n = t->kind == FGR_STRUCT ? t->n_members
          : t->kind == FGR_ARRAY ? (int)t->count
          : t->kind == FGR_NUM ? t->width : 1;
  for (int k = 0; k < n; k++) {
    if (cis(c, "}") || c->p >= c->n)
      break;
    if (t->kind == FGR_STRUCT && cis(c, ".")) {
      /* a designator: .member = */
      c->p++;
      int mt = cur(c);
      int m = -1;
      for (int j = 0; mt >= 0 && j < t->n_members; j++)
        if (is(c->s, mt, t->members[j].name))
          m = j;
      if (m < 0)
        cfail(c, "a designated initializer");
      c->p++;
      if (!cis(c, "="))
        cfail(c, "a designated initializer");
      c->p++;
      k = m;
    }
    if (t->kind == FGR_STRUCT)
      init_object(c, t->members[k].type, p + t->members[k].offset);
    else if (t->kind == FGR_ARRAY)
      init_object(c, t->of, p + t->of->size * k);
    else if (t->kind == FGR_NUM)
      init_scalar_expr(c, fgr_scan_num_type(c->s, t->elem, 1),
                       p + (int64_t)fg_elem_size(t->elem) * k);
    else
      init_scalar_expr(c, t, p);
    if (cis(c, ","))
      c->p++;
    else
      break;
    if (!braced && k + 1 < n && cis(c, "}"))
      break;
  }
}

static void init_object(cexpr *c, const fgr_type *t, unsigned char *p) {
  if (cis(c, "{")) {
    c->p++;
    init_list(c, t, p, true);
    if (cis(c, ","))
      c->p++;
    if (!cis(c, "}"))
      cfail(c, "an initializer list");
    c->p++;
    return;
  }
  if (t->kind == FGR_STRUCT || t->kind == FGR_ARRAY) {
    init_list(c, t, p, false);     /* brace elision */
    return;
  }
  init_scalar_expr(c, t, p);
}

/* Writes the initial value of global g (zeros without an initializer). */
void fgr_init_global(fgr_scan *s, const fgr_global *g, unsigned char *p) {
  memset(p, 0, (size_t)g->type->size);
  if (g->init0 < 0)
    return;
  cexpr c = {.s = s, .at = g->init0};
  begin(&c);
  expand(&c, g->init0, g->init1, 0);
  init_object(&c, g->type, p);
  if (c.p != c.n)
    fgr_scan_fail(s, c.t[c.p], "unexpected %s in the initializer of '%s'",
                  fgr_scan_quote(s, c.t[c.p]), g->name);
  end(&c);
}

/* fgr_init_global where failing is no error: g->has_value tells. */
void fgr_try_init_global(fgr_scan *s, fgr_global *g, unsigned char *p) {
  jmp_buf saved;
  memcpy(saved, s->fail, sizeof saved);
  struct cexpr *outer = s->evals;   /* a failure here abandons only ours */
  s->evals = NULL;
  if (!setjmp(s->fail)) {
    fgr_init_global(s, g, p);
    g->has_value = true;
  }
  s->evals = outer;
  memcpy(s->fail, saved, sizeof saved);
}
