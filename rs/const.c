/* rs/const.c - the RenderScript scanner's constant evaluator: C
 * constant expressions over a script's tokens (numbers, character
 * constants, true and false, object-like macros, const scalar globals
 * declared before, casts to scalar types, C's operators with
 * its integer promotions) and the initializers of globals (scalars,
 * vectors, arrays, structs, designated members), written into the C
 * layout the host packs and the device reads.  Errors leave the scan
 * through fgr_scan_fail, at the token they concern.
 *
 * A hostile script cannot make it misbehave: integers have C's types
 * (int, unsigned int, long, unsigned long), unsigned arithmetic wraps as
 * C says, and what C leaves undefined (signed overflow, INT_MIN / -1,
 * shifts by a negative count or past the width, a double out of an
 * integer type's range) is an error naming the operation, unless it sits
 * in an operand C does not evaluate (0 && x, the branch ?: skips);
 * nesting is bounded (FGR_MAX_NESTING), so is a macro's expansion
 * (FGR_MAX_MACRO_TOKENS), and each const global is evaluated once. */
#include "scan_impl.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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
  int dead;                     /* > 0: in an operand C does not evaluate */
  int from_macros;              /* tokens of t that macros gave */
  struct cexpr *up;             /* the evaluation this one is inside */
} cexpr;

/* A const global's value, evaluated once (fgr_scan.memo). */
typedef struct fgr_memo {
  enum { MEMO_NONE, MEMO_STARTED, MEMO_DONE } state;   /* STARTED and not
                                   under way: its evaluation failed */
  fgr_cval v;
} fgr_memo;

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

/* One more level of nesting in what (a "constant expression") at token
 * tok: fails past FGR_MAX_NESTING. */
static void enter(fgr_scan *s, int tok, const char *what) {
  if (++s->depth > FGR_MAX_NESTING)
    fgr_scan_fail(s, tok, "%s nested deeper than %d levels", what,
                  FGR_MAX_NESTING);
}

static const fgr_macro *find_macro(const fgr_unit *u, const char *name,
                                   int len) {
  for (int k = u->n_macros - 1; k >= 0; k--)
    if ((int)strlen(u->macros[k].name) == len &&
        !memcmp(u->macros[k].name, name, (size_t)len))
      return &u->macros[k];
  return NULL;
}

/* Appends tokens [a, b) to c->t, expanding object-like macros; fails
 * past FGR_MAX_MACRO_TOKENS tokens from macros (macros of macros grow
 * exponentially). */
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
    if (m) {
      s->soft = true;
      fgr_scan_fail(s, i,
                    "cannot evaluate function-like macro '%.*s' in a "
                    "constant expression",
                    len, p);
    }
    if (depth && ++c->from_macros > FGR_MAX_MACRO_TOKENS)
      fgr_scan_fail(s, c->at, "macros expand to more than %d tokens in one "
                    "constant expression", FGR_MAX_MACRO_TOKENS);
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

/* Fails on a construct fieldgraph does not evaluate (a call, a member, a
 * compound literal), which may well be valid C: soft, so a constant kept
 * as code (fgr_try_init_global) loads without a value. */
static _Noreturn void cfail(cexpr *c, const char *what) {
  int t = cur(c) >= 0 ? cur(c) : c->at;
  c->s->soft = true;
  fgr_scan_fail(c->s, t,
                "cannot evaluate %s: fieldgraph evaluates constant "
                "expressions of numbers, macros, const globals, casts and operators (at %s)",
                what, cur(c) >= 0 ? fgr_scan_quote(c->s, cur(c)) : "its end");
}

/* Whether token t (-1: the end) cannot go on a C expression where one
 * stopped or is expected: a failure there is the script's error, not a
 * construct fieldgraph lacks. */
static bool malformed_at(cexpr *c, int t, bool operand) {
  if (t < 0)
    return true;
  fgr_tok_kind k = fgr_scan_tok(c->s, t)->kind;
  if (k == FGR_T_NUMBER)
    return true;
  if (k != FGR_T_PUNCT)
    return false;
  static const char *const maybe_operand[] = {"(", "{", "&", "*", "++", "--",
                                              NULL};
  static const char *const maybe_postfix[] = {"(", "[", ".", "->", "++",
                                              "--", NULL};
  const char *const *ok = operand ? maybe_operand : maybe_postfix;
  for (int k2 = 0; ok[k2]; k2++)
    if (is(c->s, t, ok[k2]))
      return false;
  return true;
}

/* The type of an integer value, as C spells it. */
static const char *int_type(fgr_cval v) {
  return v.wide ? (v.uns ? "unsigned long" : "long")
                : (v.uns ? "unsigned int" : "int");
}

/* An operation whose result C leaves undefined, at token tok: an error,
 * or 0 in an operand C does not evaluate. */
__attribute__((format(printf, 3, 4)))
static fgr_cval undefined(cexpr *c, int tok, const char *fmt, ...) {
  if (c->dead)
    return (fgr_cval){0};
  char msg[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fgr_scan_fail(c->s, tok, "%s (undefined in C)", msg);
}

static fgr_cval cond_expr(cexpr *c);

fgr_cval fgr_cval_to_int(fgr_cval v) {
  if (v.f) {
    double d = v.d;
    v.i = d != d ? 0 : d >= 0x1p63 ? INT64_MAX : d < -0x1p63 ? INT64_MIN
                                                               : (int64_t)d;
    v.f = false;
    v.uns = false;
    v.wide = true;
  }
  return v;
}

static double as_double(fgr_cval v) {
  return v.f ? v.d : v.uns ? (double)(uint64_t)v.i : (double)v.i;
}

/* An integer constant's value and its C type (C11 6.4.4.1: the first of
 * int, unsigned int (not for decimals), long, unsigned long holding it,
 * from the one its suffix names). */
static fgr_cval number(cexpr *c, int t) {
  int len;
  const char *p = fgr_tok_text(c->s->u, t, &len);
  char buf[80];
  if (len >= (int)sizeof buf)
    fgr_scan_fail(c->s, t, "number %s is too long", fgr_scan_quote(c->s, t));
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
    if (*end) {
      c->s->soft = true;      /* a form of clang's own, maybe */
      fgr_scan_fail(c->s, t, "cannot evaluate the number %s",
                    fgr_scan_quote(c->s, t));
    }
    return v;
  }
  char *end;
  errno = 0;
  uint64_t u = strtoull(buf, &end, 0);
  if (errno == ERANGE)
    fgr_scan_fail(c->s, t, "integer constant %s does not fit in unsigned "
                  "long", fgr_scan_quote(c->s, t));
  bool uns = false, lng = false;
  for (; *end; end++) {
    if (*end == 'u' || *end == 'U')
      uns = true;
    else if (*end == 'l' || *end == 'L')
      lng = true;
    else {
      c->s->soft = true;      /* 0b101, a suffix of clang's own */
      fgr_scan_fail(c->s, t, "cannot evaluate the number %s",
                    fgr_scan_quote(c->s, t));
    }
  }
  bool decimal = buf[0] != '0' || !buf[1];
  v.i = (int64_t)u;
  if (!lng && !uns && u <= INT32_MAX) {
  } else if (!lng && u <= UINT32_MAX && (uns || !decimal)) {
    v.uns = true;
  } else {
    v.wide = true;
    v.uns = uns || u > INT64_MAX;   /* a decimal past long: clang too */
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

/* Element type e as RenderScript spells it, for messages. */
static const char *elem_type(fg_elem e) {
  switch (e) {
  case FG_I8: return "char";
  case FG_U8: return "uchar";
  case FG_I16: return "short";
  case FG_U16: return "ushort";
  case FG_I32: return "int";
  case FG_U32: return "uint";
  case FG_I64: return "long";
  case FG_U64: return "ulong";
  default: return fg_elem_name(e);
  }
}

/* v converted to element type e as C converts (then promotes: char and
 * short become int); a double outside e's range is undefined in C, an
 * error at tok. */
static fgr_cval convert(cexpr *c, int tok, fgr_cval v, fg_elem e) {
  if (fgk_is_float(e)) {
    double d = as_double(v);
    return (fgr_cval){.f = true, .d = e == FG_F32 ? (float)d : d};
  }
  int bits = (int)fg_elem_size(e) * 8;
  bool sgn = fgk_is_signed(e);
  if (v.f) {
    /* in range when trunc(d) lies in [min, max]; the bounds are powers of
     * two, exact in a double */
    double lo = sgn ? -ldexp(1, bits - 1) : 0, hi = ldexp(1, bits - sgn);
    if (!(v.d > lo - 1 && v.d < hi))
      return undefined(c, tok, "conversion of %g to %s is out of its range",
                       v.d, elem_type(e));
    v = (fgr_cval){.i = v.d >= 0 ? (int64_t)(uint64_t)v.d : (int64_t)v.d,
                   .wide = true};
  }
  uint64_t u = (uint64_t)v.i;
  if (bits < 64) {
    u &= (1ull << bits) - 1;
    if (sgn && (u >> (bits - 1)))
      u |= ~0ull << bits;
  }
  return (fgr_cval){.i = (int64_t)u, .uns = !sgn && bits >= 32,
                    .wide = bits == 64};
}

/* The const scalar global that identifier t names, declared before t
 * with an initializer (C reads `static const int N = 17;` as a constant
 * too, and scripts size arrays and fill vectors with it), or NULL. */
static const fgr_global *const_global(cexpr *c, int t, int *index) {
  int k = fgr_find_global(c->s->u, fgr_scan_tok_str(c->s, t));
  if (k < 0)
    return NULL;
  const fgr_global *g = &c->s->u->globals[k];
  if (!g->is_const || g->init0 < 0 || g->tok >= t || (g->init0 <= t && t < g->init1) ||
      g->type->kind != FGR_NUM || g->type->width != 1)
    return NULL;
  *index = k;
  return g;
}

/* The value of const global g (globals[k]) named at token t: evaluated
 * the first time, remembered after (a chain of constants each adding up
 * the one before costs each once). */
static fgr_cval global_value(cexpr *c, int t, const fgr_global *g, int k) {
  fgr_scan *s = c->s;
  if (k >= s->n_memo) {
    int n = s->u->n_globals > k ? s->u->n_globals : k + 1;
    fgr_memo *m = realloc(s->memo, (size_t)n * sizeof *m);
    if (!m)
      fgr_scan_fail(s, t, "out of memory");
    memset(m + s->n_memo, 0, (size_t)(n - s->n_memo) * sizeof *m);
    s->memo = m;
    s->n_memo = n;
  }
  if (s->memo[k].state == MEMO_STARTED) {
    s->soft = true;
    fgr_scan_fail(s, t, "cannot evaluate '%s': its initializer is not a "
                  "constant fieldgraph evaluates", g->name);
  }
  if (s->memo[k].state == MEMO_NONE) {
    s->memo[k].state = MEMO_STARTED;
    cexpr at = {.s = s, .at = g->init0};
    fgr_cval v = fgr_const_eval(s, g->init0, g->init1, "a constant");
    s->memo[k].v = convert(&at, g->init0, v, g->type->elem);
    s->memo[k].state = MEMO_DONE;
  }
  return s->memo[k].v;
}

static fgr_cval unary(cexpr *c);

static fgr_cval unary_at(cexpr *c) {
  const fgr_type *ct = cast_type(c);
  if (ct) {
    int t = cur(c);
    c->p += 3;
    return convert(c, t, unary(c), ct->elem);
  }
  if (cis(c, "-") || cis(c, "+") || cis(c, "~") || cis(c, "!")) {
    int t = cur(c);
    char op = *(c->s->u->text + fgr_scan_tok(c->s, t)->off);
    c->p++;
    fgr_cval v = unary(c);
    if (op == '-') {
      if (v.f)
        v.d = -v.d;
      else if (v.uns)
        v.i = (int64_t)((0 - (uint64_t)v.i) & (v.wide ? ~0ull : 0xffffffffull));
      else if (v.i == (v.wide ? INT64_MIN : INT32_MIN))
        return undefined(c, t, "overflow in '-': the negation of %lld does "
                         "not fit in %s", (long long)v.i, int_type(v));
      else
        v.i = -v.i;
    } else if (op == '~') {
      if (v.f)
        fgr_scan_fail(c->s, t, "operator '~' needs an integer operand, not "
                      "a floating-point one");
      v.i = v.uns && !v.wide ? (int64_t)(~(uint64_t)v.i & 0xffffffffull)
                             : ~v.i;
    } else if (op == '!') {
      v = (fgr_cval){.i = v.f ? v.d == 0 : v.i == 0};
    }
    return v;
  }
  if (cis(c, "(")) {
    c->p++;
    fgr_cval v = cond_expr(c);
    if (!cis(c, ")")) {
      if (malformed_at(c, cur(c), false))
        fgr_scan_fail(c->s, cur(c) >= 0 ? cur(c) : c->at,
                      "expected ')', got %s",
                      cur(c) >= 0 ? fgr_scan_quote(c->s, cur(c)) : "its end");
      cfail(c, "a parenthesized expression");
    }
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
    int k;
    const fgr_global *g = const_global(c, t, &k);
    if (g) {
      c->p++;
      return global_value(c, t, g, k);
    }
  }
  if (t >= 0 && fgr_scan_tok(c->s, t)->kind == FGR_T_CHAR) {
    int len;
    const char *p = fgr_tok_text(c->s->u, t, &len);
    c->p++;
    if (len == 3)
      return (fgr_cval){.i = (unsigned char)p[1]};
    c->p--;
    cfail(c, "a character constant");
  }
  if (malformed_at(c, t, true))
    fgr_scan_fail(c->s, t >= 0 ? t : c->at, "expected an expression, got %s",
                  t >= 0 ? fgr_scan_quote(c->s, t) : "its end");
  cfail(c, "an expression");
}

/* A cast-expression: each one is a level of nesting. */
static fgr_cval unary(cexpr *c) {
  enter(c->s, cur(c) >= 0 ? cur(c) : c->at, "constant expression");
  fgr_cval v = unary_at(c);
  c->s->depth--;
  return v;
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

static bool truth(fgr_cval v) { return v.f ? v.d != 0 : v.i != 0; }

/* a << b or a >> b (operator token ot): the type is a's, a count that is
 * negative or not below its width is undefined, so is a signed left
 * shift of a negative value or past the type's maximum. */
static fgr_cval shift(cexpr *c, int ot, bool left, fgr_cval a, fgr_cval b) {
  int bits = a.wide ? 64 : 32;
  const char *op = left ? "<<" : ">>";
  if (!b.uns && b.i < 0)
    return undefined(c, ot, "shift count %lld in '%s' is negative",
                     (long long)b.i, op);
  if ((uint64_t)b.i >= (uint64_t)bits)
    return undefined(c, ot, "shift count %llu in '%s' is not less than the "
                     "width of %s (%d bits)", (unsigned long long)b.i, op,
                     int_type(a), bits);
  int n = (int)b.i;
  fgr_cval r = {.uns = a.uns, .wide = a.wide};
  uint64_t mask = a.wide ? ~0ull : 0xffffffffull;
  if (a.uns) {
    uint64_t x = (uint64_t)a.i & mask;
    r.i = (int64_t)((left ? x << n : x >> n) & mask);
  } else if (!left) {
    r.i = a.i < 0 ? ~(~a.i >> n) : a.i >> n;   /* arithmetic, as clang */
  } else {
    int64_t max = a.wide ? INT64_MAX : INT32_MAX;
    if (a.i < 0)
      return undefined(c, ot, "left shift of the negative value %lld",
                       (long long)a.i);
    if (a.i > (max >> n))
      return undefined(c, ot, "overflow in '<<': %lld << %d does not fit in "
                       "%s", (long long)a.i, n, int_type(a));
    r.i = a.i << n;
  }
  return r;
}

/* a op b with operator token ot, in C's usual arithmetic conversions. */
static fgr_cval binop(cexpr *c, int ot, const char *op, fgr_cval a,
                      fgr_cval b) {
  if (!strcmp(op, "||") || !strcmp(op, "&&"))
    return (fgr_cval){.i = op[0] == '|' ? (truth(a) || truth(b))
                                        : (truth(a) && truth(b))};
  if (a.f || b.f) {
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
    fgr_scan_fail(c->s, ot, "operator '%s' needs integer operands, not "
                  "floating-point ones", op);
  }
  if (!strcmp(op, "<<") || !strcmp(op, ">>"))
    return shift(c, ot, op[0] == '<', a, b);
  /* the common type: long when either is, unsigned when the widest
   * unsigned operand is at least as wide as the other (long holds every
   * unsigned int) */
  bool wide = a.wide || b.wide;
  bool uns = wide ? (a.wide && a.uns) || (b.wide && b.uns) : a.uns || b.uns;
  fgr_cval r = {.uns = uns, .wide = wide};
  uint64_t mask = wide ? ~0ull : 0xffffffffull;
  uint64_t x = (uint64_t)a.i & mask, y = (uint64_t)b.i & mask;
  int64_t sx = a.i, sy = b.i;    /* exact when the type is signed */
  char o = op[0];
  if (!strcmp(op, "<") || !strcmp(op, ">") || !strcmp(op, "<=") ||
      !strcmp(op, ">=") || !strcmp(op, "==") || !strcmp(op, "!=")) {
    int cmp = uns ? (x > y) - (x < y) : (sx > sy) - (sx < sy);
    bool v = !strcmp(op, "<") ? cmp < 0 : !strcmp(op, ">") ? cmp > 0
             : !strcmp(op, "<=") ? cmp <= 0 : !strcmp(op, ">=") ? cmp >= 0
             : !strcmp(op, "==") ? cmp == 0 : cmp != 0;
    return (fgr_cval){.i = v};
  }
  if ((o == '/' || o == '%') && y == 0)
    return undefined(c, ot, "division by zero in '%s'", op);
  if (uns) {
    uint64_t v = o == '+' ? x + y : o == '-' ? x - y : o == '*' ? x * y
                 : o == '/' ? x / y : o == '%' ? x % y : o == '&' ? x & y
                 : o == '|' ? x | y : x ^ y;
    r.i = (int64_t)(v & mask);
    return r;
  }
  int64_t v = 0;
  bool over = false;
  switch (o) {
  case '+': over = __builtin_add_overflow(sx, sy, &v); break;
  case '-': over = __builtin_sub_overflow(sx, sy, &v); break;
  case '*': over = __builtin_mul_overflow(sx, sy, &v); break;
  case '/': case '%':
    over = sx == INT64_MIN && sy == -1;
    v = over ? 0 : o == '/' ? sx / sy : sx % sy;
    if (!wide && sx == INT32_MIN && sy == -1)
      over = true;          /* INT_MIN % -1 too: C11 6.5.5p6 */
    break;
  case '&': v = sx & sy; break;
  case '|': v = sx | sy; break;
  default: v = sx ^ sy; break;
  }
  if (over || (!wide && (v < INT32_MIN || v > INT32_MAX)))
    return undefined(c, ot, "overflow in '%s': %lld %s %lld does not fit in "
                     "%s", op, (long long)sx, op, (long long)sy, int_type(r));
  r.i = v;
  return r;
}

static fgr_cval binary(cexpr *c, int min_prec) {
  fgr_cval a = unary(c);
  for (;;) {
    const char *op;
    int p = prec(c, &op);
    if (!p || p < min_prec)
      return a;
    int ot = cur(c);
    c->p++;
    /* the right operand of && and || is not evaluated when the left one
     * decides */
    bool skip = (!strcmp(op, "&&") && !truth(a)) ||
                (!strcmp(op, "||") && truth(a));
    c->dead += skip;
    fgr_cval b = binary(c, p + 1);
    c->dead -= skip;
    a = binop(c, ot, op, a, b);
  }
}

/* Evaluates the branch of a conditional at the cursor, not evaluated in
 * C's sense unless live (its nesting counts). */
static fgr_cval branch(cexpr *c, bool live) {
  enter(c->s, cur(c) >= 0 ? cur(c) : c->at, "constant expression");
  c->dead += !live;
  fgr_cval v = cond_expr(c);
  c->dead -= !live;
  c->s->depth--;
  return v;
}

static fgr_cval cond_expr(cexpr *c) {
  fgr_cval v = binary(c, 1);
  if (cis(c, "?")) {
    c->p++;
    bool yes = truth(v);
    fgr_cval a = branch(c, yes);
    if (!cis(c, ":"))
      fgr_scan_fail(c->s, cur(c) >= 0 ? cur(c) : c->at,
                    "expected ':' in a conditional expression, got %s",
                    cur(c) >= 0 ? fgr_scan_quote(c->s, cur(c)) : "its end");
    c->p++;
    fgr_cval b = branch(c, !yes);
    v = yes ? a : b;
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
  if (c.p != c.n) {
    s->soft = !malformed_at(&c, c.t[c.p], false);
    fgr_scan_fail(s, c.t[c.p], "unexpected %s in %s",
                  fgr_scan_quote(s, c.t[c.p]), what);
  }
  end(&c);
  return v;
}

/* ---- initializers of globals -------------------------------------------- */

/* Stores v, converted to e, at p; tok is the value's first token. */
static void store(cexpr *c, int tok, unsigned char *p, fg_elem e,
                  fgr_cval v) {
  v = convert(c, tok, v, e);
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
  if (!sub.n)                   /* {1,,2}: not C */
    fgr_scan_fail(c->s, cur(c) >= 0 ? cur(c) : c->at,
                  "expected an initializer, got %s",
                  cur(c) >= 0 ? fgr_scan_quote(c->s, cur(c)) : "its end");
  fgr_cval v = cond_expr(&sub);
  if (sub.p != sub.n) {
    if (malformed_at(&sub, cur(&sub), false))
      fgr_scan_fail(c->s, cur(&sub), "unexpected %s in an initializer",
                    fgr_scan_quote(c->s, cur(&sub)));
    cfail(&sub, "an initializer");
  }
  if (t->kind == FGR_NUM) {
    for (int k = 0; k < t->width; k++)
      store(&sub, sub.at, p + (int64_t)fg_elem_size(t->elem) * k, t->elem,
            v);
  } else if (t->kind == FGR_BOOL) {
    p[0] = truth(v);
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

static void init_object_at(cexpr *c, const fgr_type *t, unsigned char *p);

/* Each object is a level of nesting: structs of structs through typedefs
 * nest without brackets (brace elision). */
static void init_object(cexpr *c, const fgr_type *t, unsigned char *p) {
  enter(c->s, cur(c) >= 0 ? cur(c) : c->at, "initializer");
  init_object_at(c, t, p);
  c->s->depth--;
}

static void init_object_at(cexpr *c, const fgr_type *t, unsigned char *p) {
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

/* fgr_init_global where a construct fieldgraph does not evaluate (a call,
 * a member: s->soft) is no error, g->has_value tells; a malformed
 * initializer, C's undefined behaviour or a bound passed still fails the
 * scan, though the constant may be unused (the compiler never sees it). */
void fgr_try_init_global(fgr_scan *s, fgr_global *g, unsigned char *p) {
  jmp_buf saved;
  memcpy(saved, s->fail, sizeof saved);
  struct cexpr *outer = s->evals;   /* a failure here abandons only ours */
  int depth = s->depth;
  s->evals = NULL;
  s->soft = false;
  bool hard = setjmp(s->fail) ? !s->soft : false;
  if (!hard && !g->has_value && !s->soft) {
    fgr_init_global(s, g, p);
    g->has_value = true;
  }
  s->evals = outer;
  s->depth = depth;
  memcpy(s->fail, saved, sizeof saved);
  if (hard) {                 /* the message is in s->err already */
    fgr_const_abandon(s);
    longjmp(s->fail, 1);
  }
}
