/* rs/scan.c - the RenderScript declaration scanner.  Reads a script's
 * tokens (lex.c) as a sequence of top-level declarations: directives
 * (#pragma version, java_package_name, the fp pragmas, rs reduce;
 * #define and #undef), typedefs and structs, globals with initializers,
 * functions (kernels, static helpers, invokables, init).  decl.c reads
 * the specifiers and declarators and computes the C layout of every type
 * (the host packs globals exactly as the device reads them), const.c
 * evaluates the initializers of the globals; the scanner checks the
 * reference's rules for mapping and reduction kernels.  Bodies of functions are not parsed: the kernel compiler reads
 * them, with #line directives pointing at the user's file.  Everything
 * else it does not understand is an error with its line and column. */
#include "scan_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

const fgr_tok *fgr_scan_tok(fgr_scan *s, int i) {
  return &s->u->toks[i < s->u->n_toks ? i : s->u->n_toks - 1];
}

bool fgr_tok_is(const fgr_unit *u, int i, const char *str) {
  if (i < 0 || i >= u->n_toks)
    return false;
  const fgr_tok *t = &u->toks[i];
  size_t n = strlen(str);
  return (t->kind == FGR_T_IDENT || t->kind == FGR_T_PUNCT) &&
         (size_t)t->len == n && !memcmp(u->text + t->off, str, n);
}

static bool is(fgr_scan *s, int i, const char *str) {
  return fgr_tok_is(s->u, i, str);
}

char *fgr_scan_tok_str(fgr_scan *s, int i) {
  const fgr_tok *t = fgr_scan_tok(s, i);
  char *p = fgu_arena_alloc(&s->u->arena, (size_t)t->len + 1);
  if (p)
    memcpy(p, s->u->text + t->off, (size_t)t->len);
  return p ? p : (char *)"";
}

_Noreturn void fgr_scan_fail(fgr_scan *s, int tok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

_Noreturn void fgr_scan_fail(fgr_scan *s, int tok, const char *fmt, ...) {
  const fgr_tok *t = fgr_scan_tok(s, tok);
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* a token of an included file that is no script or header (#include
   * "/etc/shadow"): its contents are not quoted */
  const char *f = s->u->files[t->file];
  size_t fl = strlen(f);
  static const char *const ext[] = {".rs", ".rsh", ".h", ".inc", NULL};
  bool header = t->file == 0;
  for (int k = 0; ext[k] && !header; k++)
    header = fl > strlen(ext[k]) && !strcmp(f + fl - strlen(ext[k]), ext[k]);
  if (!header)
    snprintf(msg, sizeof msg, "not RenderScript: an included file that is "
             "not a script or header (.rs, .rsh, .h, .inc) reached the "
             "declarations");
  snprintf(s->err, s->errlen, "%s:%d:%d: %s", f, t->line, t->col, msg);
  fgr_const_abandon(s);
  longjmp(s->fail, 1);
}

/* A short quotation of token i for messages. */
const char *fgr_scan_quote(fgr_scan *s, int i) {
  const fgr_tok *t = fgr_scan_tok(s, i);
  if (t->kind == FGR_T_EOF)
    return "end of file";
  if (t->kind == FGR_T_PP_END)
    return "end of line";
  return fgu_arena_printf(&s->u->arena, "'%.*s'", t->len > 40 ? 40 : t->len,
                          s->u->text + t->off);
}

/* ---- types (decl.c parses them) --------------------------------------- */

static bool type_equal(const fgr_type *a, const fgr_type *b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind)
    return false;
  switch (a->kind) {
  case FGR_NUM: return a->elem == b->elem && a->width == b->width;
  case FGR_ARRAY: return a->count == b->count && type_equal(a->of, b->of);
  case FGR_STRUCT: return false;
  default: return true;
  }
}

static fgr_item *new_item(fgr_scan *s, fgr_item_kind kind, int tok0) {
  fgr_item *it = FGR_SCAN_PUSH(s, s->u->items, n_items, cap_items);
  memset(it, 0, sizeof *it);
  it->kind = kind;
  it->tok0 = tok0;
  it->func = -1;
  return it;
}

/* Parameters between lparen and its match. */
static void params(fgr_scan *s, fgr_func *f) {
  int close = s->u->match[f->lparen];
  if (close < 0)
    fgr_scan_fail(s, f->lparen, "unbalanced '('");
  f->rparen = close;
  s->i = f->lparen + 1;
  if (is(s, s->i, "void") && s->i + 1 == close) {
    s->i = close + 1;
    return;
  }
  int cap = 0;
  while (s->i < close) {
    if (is(s, s->i, "..."))
      fgr_scan_fail(s, s->i, "variadic functions are not supported");
    int spec0 = s->i;
    fgr_spec sp = fgr_scan_specifiers(s, false);
    fgr_declarator d = fgr_scan_declarator(s, sp.type, true);
    if (d.is_func)
      fgr_scan_fail(s, d.lparen, "function parameters are not supported");
    if (f->n_params == cap) {
      int nc = cap ? cap * 2 : 8;
      fgr_param *p = fgr_scan_zalloc(s, (size_t)nc * sizeof *p);
      if (cap)
        memcpy(p, f->params, (size_t)cap * sizeof *p);
      f->params = p;
      cap = nc;
    }
    f->params[f->n_params++] = (fgr_param){d.name, d.type, d.ptr, sp.is_const,
                                           d.name ? d.name_tok : spec0,
                                           spec0, false, false};
    if (is(s, s->i, ","))
      s->i++;
    else if (s->i != close)
      fgr_scan_fail(s, s->i, "expected ',' or ')', got %s",
                    fgr_scan_quote(s, s->i));
  }
  s->i = close + 1;
}

static void function(fgr_scan *s, fgr_spec sp, fgr_declarator d, int tok0) {
  fgr_func *f = FGR_SCAN_PUSH(s, s->u->funcs, n_funcs, cap_funcs);
  memset(f, 0, sizeof *f);
  f->name = d.name;
  f->is_static = sp.is_static;
  f->is_kernel = sp.is_kernel;
  f->ret = sp.type;
  f->ret_ptr = d.ptr;
  f->name_tok = d.name_tok;
  f->lparen = d.lparen;
  f->tok0 = tok0;
  for (int k = 0; k < FGR_SPECIAL_COUNT_; k++)
    f->special[k] = -1;
  f->unsupported = -1;
  f->bad_tok = -1;
  params(s, f);
  fgr_attrs at = {0};
  fgr_scan_attributes(s, &at);
  f->is_kernel |= at.kernel;
  f->overloadable = sp.is_overloadable || d.at.overloadable ||
                    at.overloadable;
  if (is(s, s->i, ";")) {
    s->i++;
  } else if (is(s, s->i, "{")) {
    int close = s->u->match[s->i];
    if (close < 0)
      fgr_scan_fail(s, s->i, "unbalanced '{'");
    f->has_body = true;
    s->i = close + 1;
  } else {
    fgr_scan_fail(s, s->i,
                  "expected '{' or ';' after the parameters of '%s', got "
                  "%s",
                  f->name, fgr_scan_quote(s, s->i));
  }
  f->tok1 = s->i;
  fgr_item *it = new_item(s, FGR_I_FUNC, tok0);
  it->tok1 = s->i;
  it->func = s->u->n_funcs - 1;
}

/* Whether a pointer global to t is bound like an allocation: a number,
 * vector or bool (a field of bytes, as Android's BOOLEAN Element), or a
 * struct of a C size without pointer or object members (a field whose
 * points are sizeof(struct) bytes, read and written in the struct's C
 * layout, rs-graph/nodes.c). */
static bool ptr_pointee(const fgr_type *t) {
  return t->kind == FGR_NUM || t->kind == FGR_BOOL ||
         (t->kind == FGR_STRUCT && t->size > 0 && !t->has_ptr);
}

/* Whether the initializer from token i to the declarator's end (',' or
 * ';' outside brackets) is a null pointer, NULL, 0 or (void *)0 in
 * parentheses or not: the pointer global is then declared unbound. */
static bool null_init(fgr_scan *s, int i) {
  while (is(s, i, "("))
    i++;
  if (is(s, i, "void") && is(s, i + 1, "*") && is(s, i + 2, ")")) {
    i += 3;
    while (is(s, i, "("))
      i++;
  }
  if (!is(s, i, "NULL") && !is(s, i, "0"))
    return false;
  i++;
  while (is(s, i, ")"))
    i++;
  return is(s, i, ",") || is(s, i, ";");
}

/* Why a global declared as d cannot be held (a pointer: scripts bind
 * rs_allocation instead; a type without a size: rs_script and the other
 * object handles), in buf; NULL when it can. */
static const char *bad_global_why(const fgr_declarator *d, bool init,
                                  char *buf, size_t n) {
  if (d->ptr == 1 && ptr_pointee(d->type) && init)
    snprintf(buf, n, "pointer global '%s' has an initializer other than "
             "NULL; fieldgraph binds pointer globals declared without one "
             "or with NULL (fg_rs_bind_allocation)", d->name);
  else if (d->ptr)
    snprintf(buf, n, "pointer global '%s' of type %s%s is not supported: "
             "fieldgraph binds pointer globals to numbers, vectors, bool "
             "and structs without pointer or object members (bind an "
             "rs_allocation instead)", d->name, d->type->name,
             d->ptr > 1 ? " **" : " *");
  else if (d->type->kind == FGR_STRUCT && d->type->has_ptr)
    snprintf(buf, n, "global '%s' of type %s holds a pointer member, "
             "which a value passed between the host and kernels cannot "
             "hold", d->name, d->type->name);
  else if (d->type->kind == FGR_STRUCT && d->type->size <= 0)
    snprintf(buf, n, "global '%s' of type %s holds an rs_allocation "
             "member, which fieldgraph does not bind (declare the "
             "allocation as a global of its own and bind that)", d->name,
             d->type->name);
  else if (d->type->kind != FGR_ALLOC && d->type->size <= 0)
    snprintf(buf, n, "global '%s' of type %s is not supported", d->name,
             d->type->name);
  else
    return NULL;
  return buf;
}

/* One declaration of globals.  A declaration of only globals fieldgraph
 * cannot hold is recorded (fgr_bad_global) and not emitted: the
 * functions that use them are refused, the rest of the script runs. */
static void globals(fgr_scan *s, fgr_spec sp, fgr_declarator d, int tok0) {
  fgr_item *it = new_item(s, FGR_I_GLOBAL, tok0);
  int item = s->u->n_items - 1;
  it->spec0 = sp.tok0;
  it->spec1 = sp.tok1;
  it->constant = sp.is_const;
  if (sp.is_extern)
    fgr_scan_fail(s, tok0, "extern globals are not supported");
  int n_good = 0, first_bad = -1, n_ptr = 0;
  char why[256];
  for (;;) {
    if (fgr_scan_find_named(s->u, d.name, false) ||
        fgr_find_global(s->u, d.name) >= 0)
      fgr_scan_fail(s, d.name_tok, "redefinition of '%s'", d.name);
    fgr_global *g = NULL;
    /* `const T *p;` or `T *p = NULL;` bound like an allocation
     * (ptr_pointee) */
    bool null = is(s, s->i, "=") && null_init(s, s->i + 1);
    bool ptr_alloc = d.ptr == 1 && ptr_pointee(d.type) &&
                     (!is(s, s->i, "=") || null);
    if (!ptr_alloc && bad_global_why(&d, is(s, s->i, "="), why,
                                     sizeof why)) {
      fgr_bad_global *b = FGR_SCAN_PUSH(s, s->u->bad_globals, n_bad_globals,
                               cap_bad_globals);
      b->name = d.name;
      b->tok = d.name_tok;
      b->why = fgu_arena_strdup(&s->u->arena, why);
      b->script = !d.ptr && !strcmp(d.type->name, "rs_script");
      if (!b->why)
        fgr_scan_fail(s, d.name_tok, "out of memory");
      if (first_bad < 0)
        first_bad = s->u->n_bad_globals - 1;
    } else {
      n_good++;
      g = FGR_SCAN_PUSH(s, s->u->globals, n_globals, cap_globals);
      memset(g, 0, sizeof *g);
      g->name = d.name;
      g->type = d.type;
      g->is_static = sp.is_static;
      g->is_const = sp.is_const;
      g->tok = d.name_tok;
      g->decl0 = d.first;
      g->decl1 = s->i;
      g->init0 = -1;
      g->item = item;
      g->alloc_index = -1;
      if (ptr_alloc) {
        g->type = s->t_alloc;
        g->pointee = d.type;
        g->host_why = fgu_arena_printf(&s->u->arena, "reads or writes "
            "through pointer global '%s', whose elements are those of the "
            "field bound to it, which invokables cannot do on the host "
            "(fg_rs_invoke runs such invokables in a graph)", d.name);
        if (!g->host_why)
          fgr_scan_fail(s, d.name_tok, "out of memory");
        n_ptr++;
      }
      if (g->type->kind == FGR_ALLOC)
        g->alloc_index = s->u->n_allocs++;
    }
    if (is(s, s->i, "=")) {
      s->i++;
      int init0 = s->i;
      int depth = 0;
      while (fgr_scan_tok(s, s->i)->kind != FGR_T_EOF) {
        if (is(s, s->i, "{") || is(s, s->i, "(") || is(s, s->i, "["))
          depth++;
        else if (is(s, s->i, "}") || is(s, s->i, ")") || is(s, s->i, "]"))
          depth--;
        else if (depth == 0 && (is(s, s->i, ",") || is(s, s->i, ";")))
          break;
        s->i++;
      }
      if (s->i == init0)
        fgr_scan_fail(s, init0, "expected an initializer for '%s'", d.name);
      if (g && !g->pointee) {     /* NULL: the pointer global unbound */
        g->init0 = init0;
        g->init1 = s->i;
      }
    }
    if (is(s, s->i, ",")) {
      s->i++;
      d = fgr_scan_declarator(s, sp.type, false);
      if (d.is_func)
        fgr_scan_fail(s, d.lparen, "a function declared beside variables");
      continue;
    }
    fgr_scan_expect(s, ";");
    break;
  }
  it->tok1 = s->i;
  if (first_bad >= 0 && n_good > 0) {
    /* the declaration is emitted whole: it cannot keep some of its names */
    const fgr_bad_global *b = &s->u->bad_globals[first_bad];
    fgr_scan_fail(s, b->tok, "%s", b->why);
  }
  if (n_ptr && n_ptr != n_good)
    fgr_scan_fail(s, tok0, "a pointer global declared beside other "
                  "globals is not supported");
  it->skip = first_bad >= 0 || n_ptr > 0;
}

/* ---- directives --------------------------------------------------------- */

/* The identifier inside "(" name ")" at the cursor. */
static const char *paren_name(fgr_scan *s, const char *what) {
  fgr_scan_expect(s, "(");
  if (fgr_scan_tok(s, s->i)->kind != FGR_T_IDENT)
    fgr_scan_fail(s, s->i, "expected the %s's name, got %s", what,
                  fgr_scan_quote(s, s->i));
  const char *n = fgr_scan_tok_str(s, s->i);
  s->i++;
  fgr_scan_expect(s, ")");
  return n;
}

static const fgr_func *must_func(fgr_scan *s, int tok, const char *role,
                                 const char *name) {
  const fgr_func *f = fgr_find_func(s->u, name);
  if (!f || !f->has_body)
    fgr_scan_fail(s, tok, "%s function '%s' is not defined", role, name);
  if (!f->is_static)
    fgr_scan_fail(s, f->name_tok,
                  "%s function '%s' must be static (the "
                  "functions of a reduction kernel are)",
                  role, name);
  return f;
}

typedef struct pending_reduce {
  int tok;                      /* the pragma's "reduce" */
  const char *name;
  const char *fn[4];            /* initializer accumulator combiner out */
  int fn_tok[4];
} pending_reduce;

static void pragma(fgr_scan *s, int end, pending_reduce **pr, int *npr) {
  int t = s->i;
  if (is(s, t, "version")) {
    s->i++;
    fgr_scan_expect(s, "(");
    fgr_cval v = fgr_cval_to_int(
        fgr_const_eval(s, s->i, s->u->match[s->i - 1], "a version"));
    if (v.i != 1)
      fgr_scan_fail(s, s->i,
                    "#pragma version(%lld): 1 is the only valid version",
                    (long long)v.i);
    s->i = s->u->match[s->i - 1] + 1;
  } else if (is(s, t, "rs_fp_full") || is(s, t, "rs_fp_relaxed") ||
             is(s, t, "rs_fp_imprecise")) {
    s->u->fp = is(s, t, "rs_fp_full") ? FG_RS_FP_FULL
               : is(s, t, "rs_fp_relaxed") ? FG_RS_FP_RELAXED
                                           : FG_RS_FP_IMPRECISE;
    s->i++;
  } else if (is(s, t, "rs") && is(s, t + 1, "java_package_name")) {
    s->i = end;                 /* accepted, ignored */
  } else if (is(s, t, "rs") && (is(s, t + 1, "rs_fp_full") ||
                                is(s, t + 1, "rs_fp_relaxed") ||
                                is(s, t + 1, "rs_fp_imprecise"))) {
    s->i++;
    pragma(s, end, pr, npr);
    return;
  } else if (is(s, t, "rs") && is(s, t + 1, "reduce")) {
    s->i += 2;
    pending_reduce *r = realloc(*pr, (size_t)(*npr + 1) * sizeof *r);
    if (!r)
      fgr_scan_fail(s, t, "out of memory");
    *pr = r;
    r = &r[(*npr)++];
    memset(r, 0, sizeof *r);
    r->tok = t + 1;
    r->name = paren_name(s, "reduction kernel");
    static const char *const role[4] = {"initializer", "accumulator",
                                        "combiner", "outconverter"};
    while (s->i < end) {
      int k = 0;
      while (k < 4 && !is(s, s->i, role[k]))
        k++;
      if (k == 4)
        fgr_scan_fail(s, s->i,
                      "expected initializer, accumulator, combiner or "
                      "outconverter in #pragma rs reduce, got %s",
                      fgr_scan_quote(s, s->i));
      if (r->fn[k])
        fgr_scan_fail(s, s->i, "%s given twice", role[k]);
      r->fn_tok[k] = s->i;
      s->i++;
      r->fn[k] = paren_name(s, role[k]);
    }
    if (!r->fn[1])
      fgr_scan_fail(s, r->tok,
                    "reduction kernel '%s' has no accumulator (it is "
                    "mandatory)",
                    r->name);
  } else {
    /* as clang (and so Android's compiler) ignores a pragma it does not
     * know, with a warning: a misspelt `#pragma rs_fp_relaxes` sinks no
     * script, and the warning says it was not applied */
    bool ns = is(s, t, "rs") && t + 1 < end;   /* #pragma rs <name> */
    int n = ns ? t + 1 : t;
    fgu_buf_printf(&s->notes, "%s:%d:%d: unknown #pragma %s%s ignored\n",
                   fgr_tok_file(s->u, n), s->u->toks[n].line,
                   s->u->toks[n].col, ns ? "rs " : "", fgr_scan_quote(s, n));
    s->i = end;
    return;
  }
  if (s->i != end)
    fgr_scan_fail(s, s->i, "unexpected %s after the pragma",
                  fgr_scan_quote(s, s->i));
}

static void directive(fgr_scan *s, pending_reduce **pr, int *npr) {
  int begin = s->i;
  int end = begin + 1;
  while (fgr_scan_tok(s, end)->kind != FGR_T_PP_END &&
         fgr_scan_tok(s, end)->kind != FGR_T_EOF)
    end++;
  s->i = begin + 1;
  fgr_item *it = NULL;
  if (s->i == end) {
    /* a null directive */
  } else if (is(s, s->i, "pragma")) {
    s->i++;
    it = new_item(s, FGR_I_PRAGMA, begin);
    pragma(s, end, pr, npr);
  } else if (is(s, s->i, "define") || is(s, s->i, "undef")) {
    bool def = is(s, s->i, "define");
    s->i++;
    if (fgr_scan_tok(s, s->i)->kind != FGR_T_IDENT)
      fgr_scan_fail(s, s->i, "expected a macro name, got %s",
                    fgr_scan_quote(s, s->i));
    fgr_macro *m = FGR_SCAN_PUSH(s, s->u->macros, n_macros, cap_macros);
    m->name = fgr_scan_tok_str(s, s->i);
    m->function_like =
        def && is(s, s->i + 1, "(") && !fgr_scan_tok(s, s->i + 1)->space;
    m->tok0 = s->i + 1;
    m->tok1 = def ? end : s->i + 1;   /* an #undef expands to nothing */
    it = new_item(s, FGR_I_DIRECTIVE, begin);
  } else if (is(s, s->i, "include")) {
    fgr_scan_fail(
        s, s->i,
        "#include is not supported: fieldgraph provides the "
        "RenderScript runtime functions itself; paste the included code "
        "into the script");
  } else {
    fgr_scan_fail(s, s->i,
                  "#%.*s is not supported by fieldgraph's RenderScript "
                  "front end",
                  fgr_scan_tok(s, s->i)->len,
                  s->u->text + fgr_scan_tok(s, s->i)->off);
  }
  s->i = end + 1;
  if (it)
    it->tok1 = s->i;
}

/* ---- semantic checks ---------------------------------------------------- */

static bool is_index_type(const fgr_type *t) {
  return t->kind == FGR_NUM && t->width == 1 &&
         (t->elem == FG_I32 || t->elem == FG_U32);
}

/* Marks kernel f as one fieldgraph cannot run, at token tok, why
 * formatted: it is refused when launched and listed in the script's
 * warnings, and the rest of the script runs. */
static void refuse(fgr_scan *s, fgr_func *f, int tok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void refuse(fgr_scan *s, fgr_func *f, int tok, const char *fmt, ...) {
  char why[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  f->bad_tok = tok;
  f->bad_why = fgu_arena_strdup(&s->u->arena, why);
  if (!f->bad_why)
    fgr_scan_fail(s, tok, "out of memory");
}

/* Sorts f's parameters (from `first` on) into inputs and special
 * arguments, checking the special arguments' types. */
static void specials(fgr_scan *s, fgr_func *f, int first) {
  static const char *const names[FGR_SPECIAL_COUNT_] = {"x", "y", "z",
                                                        "context"};
  for (int p = first; p < f->n_params; p++) {
    fgr_param *pa = &f->params[p];
    int k = 0;
    while (k < FGR_SPECIAL_COUNT_ && !(pa->name && !strcmp(pa->name,
                                                           names[k])))
      k++;
    if (k == FGR_SPECIAL_COUNT_) {
      if (f->n_inputs != p - first)
        fgr_scan_fail(s, pa->tok,
                      "input argument '%s' of '%s' comes after a "
                      "special argument (x, y, z and context come last)",
                      pa->name ? pa->name : "?", f->name);
      f->n_inputs++;
      if (!pa->ptr && pa->type->kind == FGR_OPAQUE && !f->bad_why) {
        /* half, say: refused when launched, the rest of the script runs */
        refuse(s, f, pa->tok, "input argument '%s' of '%s' is %s, which "
               "fieldgraph does not support", pa->name ? pa->name : "?",
               f->name, pa->type->name);
        continue;
      }
      if (pa->ptr || pa->type->kind == FGR_VOID || pa->type->size <= 0)
        fgr_scan_fail(s, pa->tok,
                      "input argument '%s' of '%s' must be a value of "
                      "an Element type, not %s%s",
                      pa->name ? pa->name : "?", f->name, pa->type->name,
                      pa->ptr ? " *" : "");
      continue;
    }
    if (f->special[k] >= 0)
      fgr_scan_fail(s, pa->tok, "special argument '%s' given twice", names[k]);
    f->special[k] = p;
    if (k == FGR_SPECIAL_CONTEXT ? pa->type->kind != FGR_CONTEXT || pa->ptr
                                 : !is_index_type(pa->type) || pa->ptr)
      fgr_scan_fail(s, pa->tok,
                    "special argument '%s' of '%s' must be of type %s, "
                    "not %s",
                    names[k], f->name,
                    k == FGR_SPECIAL_CONTEXT ? "rs_kernel_context"
                                             : "int or uint32_t",
                    pa->type->name);
  }
}

static void check_kernel(fgr_scan *s, fgr_func *f) {
  if (!f->has_body)
    return;
  specials(s, f, 0);
  if (!f->ret_ptr && f->ret->kind == FGR_OPAQUE) {
    /* half, say: refused when launched (and in the warnings) */
    refuse(s, f, f->name_tok, "kernel '%s' returns %s, which fieldgraph "
           "does not support", f->name, f->ret->name);
    return;
  }
  if (f->ret_ptr || (f->ret->kind != FGR_VOID && f->ret->size <= 0))
    fgr_scan_fail(s, f->name_tok,
                  "kernel '%s' returns %s, which is no Element "
                  "type",
                  f->name, f->ret->name);
}

/* The type that tokens [a, b) name when they are a cast's type name
 * before its '*' ((const T *)p: C's type keywords, qualifiers, built-in
 * types, typedef names, struct or union with a known tag); NULL
 * otherwise, without failing the scan. */
static const fgr_type *cast_pointee(fgr_scan *s, int a, int b) {
  static const char *const kw[] = {
    "const", "volatile", "unsigned", "signed", "char", "short", "int",
    "long", "float", "double", "bool", "_Bool", NULL};
  fgr_unit *u = s->u;
  if (a >= b)
    return NULL;
  for (int i = a; i < b; i++) {
    if (u->toks[i].kind != FGR_T_IDENT)
      return NULL;
    if (fgr_tok_is(u, i, "struct") || fgr_tok_is(u, i, "union")) {
      if (i + 1 >= b ||
          !fgr_scan_find_named(u, fgr_scan_tok_str(s, i + 1), true))
        return NULL;
      i++;
      continue;
    }
    bool known = false;
    for (int k = 0; kw[k] && !known; k++)
      known = fgr_tok_is(u, i, kw[k]);
    if (!known && !fgr_scan_builtin(s, i) &&
        !fgr_scan_find_named(u, fgr_scan_tok_str(s, i), false))
      return NULL;
  }
  int save = s->i;
  s->i = a;
  fgr_spec sp = fgr_scan_specifiers(s, false);
  bool whole = s->i == b;
  s->i = save;
  return whole && sp.type && sp.type->size > 0 ? sp.type : NULL;
}

/* The pointee of a pointer cast (T *) just before token i of f's body,
 * its '(' into *open when open is not NULL; NULL when there is none. */
static const fgr_type *cast_before(fgr_scan *s, const fgr_func *f, int i,
                                   int *open) {
  fgr_unit *u = s->u;
  if (!fgr_tok_is(u, i - 1, ")") || !fgr_tok_is(u, i - 2, "*"))
    return NULL;
  int o = u->match[i - 1];
  if (o <= f->rparen || !fgr_tok_is(u, o, "("))
    return NULL;
  if (open)
    *open = o;
  return cast_pointee(s, o + 1, i - 2);
}

/* The pointee of the first cast (T *)name in f's body: the element type
 * a legacy kernel's void pointer parameter name points at, as the body
 * reads it; NULL when there is none. */
static const fgr_type *void_ptr_cast(fgr_scan *s, const fgr_func *f,
                                     const char *name) {
  for (int i = f->rparen + 1; i + 1 < f->tok1; i++) {
    const fgr_type *t =
        fgr_tok_is(s->u, i, name) ? cast_before(s, f, i, NULL) : NULL;
    if (t)
      return t;
  }
  return NULL;
}

/* Whether pointer pn of legacy kernel f reaches only the copy of the
 * point's element from token from on: *pn, pn->m, pn[0], a cast of it
 * dereferenced (*(T *)pn) or naming a local pointer (T *q = (T *)pn;)
 * that does the same, and for a numeric input reads of other elements
 * (in[e], *(in + e)); else the offending token into *bad. */
static bool copy_uses(fgr_scan *s, const fgr_func *f, const char *pn,
                      int from, bool input, bool numeric, int depth,
                      bool *indexed, int *bad) {
  fgr_unit *u = s->u;
  for (int i = from; i < f->tok1; i++) {
    if (!fgr_tok_is(u, i, pn) || fgr_tok_is(u, i - 1, ".") ||
        fgr_tok_is(u, i - 1, "->"))
      continue;
    bool deref = fgr_tok_is(u, i - 1, "*") && !fgr_tok_is(u, i + 1, "[") &&
                 !fgr_tok_is(u, i + 1, "++") && !fgr_tok_is(u, i + 1, "--");
    bool arrow = fgr_tok_is(u, i + 1, "->");
    int zl = 0;
    const char *z = fgr_tok_text(u, i + 2, &zl);
    bool index0 = fgr_tok_is(u, i + 1, "[") && fgr_tok_is(u, i + 3, "]") &&
                  zl == 1 && *z == '0';
    if (deref || arrow || index0)
      continue;
    /* a read of another element of a numeric input: supported */
    int o, c, pl, d;
    if (input && numeric && fgr_ptr_read(u, i, &o, &c, &pl, &d)) {
      *indexed = true;
      continue;
    }
    /* (T *)pn: dereferenced, or the value of a local pointer q */
    int open = -1;
    if (depth == 0 && cast_before(s, f, i, &open)) {
      if (!fgr_tok_is(u, i + 1, "[")) {
        if (fgr_tok_is(u, open - 1, "*") &&
            !fgr_tok_is(u, open - 2, ")") &&
            u->toks[open - 2].kind != FGR_T_IDENT)
          continue;
        if (fgr_tok_is(u, open - 1, "=") &&
            u->toks[open - 2].kind == FGR_T_IDENT &&
            fgr_tok_is(u, open - 3, "*") && fgr_tok_is(u, i + 1, ";") &&
            copy_uses(s, f, fgr_scan_tok_str(s, open - 2), i + 1, input,
                      false, depth + 1, indexed, bad))
          continue;
      }
    }
    if (*bad < 0)
      *bad = i;
    return false;
  }
  return true;
}

/* A legacy kernel (a root() without the kernel attribute, as Android's
 * compiler takes it; since API 14 also any other non-static void function
 * whose first parameter is a pointer, reflected as forEach_<name>): by
 * position, a const pointer to the input, a pointer to the output, an
 * optional usrData pointer, then up to three index parameters (x, y, z).
 * It maps like a kernel that returns *out.  Returns the token and the
 * reason (in why, n_why bytes) when f has not that shape; NULL when it
 * has. */
static const char *legacy_shape(fgr_scan *s, fgr_func *f, int *tok,
                                char *why, size_t n_why) {
  int in = -1, out = -1, usr = -1, n_index = 0, special[3];
  *tok = f->name_tok;
  if (f->ret->kind != FGR_VOID || f->ret_ptr) {
    snprintf(why, n_why, "legacy kernel '%s' must return void (it "
             "writes through its output pointer)", f->name);
    return why;
  }
  const fgr_type *cast[3] = {NULL, NULL, NULL};
  for (int p = 0; p < f->n_params; p++) {
    fgr_param *pa = &f->params[p];
    /* a void pointer to the input or output, read as the body casts it
     * (Android reflects such a function as forEach_<name> too) */
    const fgr_type *vt =
        pa->ptr == 1 && pa->type->kind == FGR_VOID && pa->name &&
                n_index == 0 && out < 0 && (pa->is_const ? in < 0 : 1)
            ? void_ptr_cast(s, f, pa->name) : NULL;
    bool data = pa->ptr == 1 && (pa->type->kind != FGR_VOID || vt);
    if (vt && p < 3)
      cast[p] = vt;
    if (data && n_index == 0 && pa->is_const && in < 0 && out < 0) {
      in = p;
    } else if (data && n_index == 0 && !pa->is_const && out < 0) {
      out = p;
    } else if (pa->ptr == 1 && n_index == 0 && usr < 0 &&
               (out >= 0 || in >= 0)) {
      usr = p;
    } else if (!pa->ptr && is_index_type(pa->type) && n_index < 3) {
      special[n_index++] = p;
    } else {
      *tok = pa->tok;
      snprintf(why, n_why, "parameter '%s' of legacy kernel '%s' is "
               "not one of (const T *in, T *out, const void *usrData, "
               "uint32_t x, uint32_t y, uint32_t z)",
               pa->name ? pa->name : "?", f->name);
      return why;
    }
  }
  /* a void pointer's Element is the type its cast reads */
  for (int p = 0; p < 3 && p < f->n_params; p++)
    if (cast[p] && (p == in || p == out))
      f->params[p].type = cast[p];
  if (out < 0 && in < 0) {
    snprintf(why, n_why, "legacy kernel '%s' has neither an input nor an "
             "output pointer", f->name);
    return why;
  }
  /* the input and output pointers point at one element, a copy: *p,
   * p->m and p[0] reach it; p[i], p + i or p passed on would reach
   * memory that is not the allocation's (refused, rather than reading or
   * writing past the copy) */
  for (int k = 0; k < 2; k++) {
    int pi = k ? out : in;
    const char *pn = pi >= 0 ? f->params[pi].name : NULL;
    bool indexed = false;
    int bad = -1;
    if (pn && !copy_uses(s, f, pn, f->rparen + 1, !k,
                         f->params[pi].type->kind == FGR_NUM, 0, &indexed,
                         &bad)) {
      *tok = bad;
      snprintf(why, n_why, "legacy kernel '%s' uses its %s pointer '%s' "
               "other than as *%s, %s->m or %s[0]%s: it points at a copy of "
               "the point's element", f->name, k ? "output" : "input", pn, pn,
               pn, pn, k ? "" : " or in a read (in[e], *(in + e))");
      return why;
    }
    f->legacy_in_indexed |= indexed;
  }
  /* fieldgraph passes usrData NULL: a kernel that reads it is refused
   * (rather than crashing its run) */
  const char *un = usr >= 0 ? f->params[usr].name : NULL;
  for (int i = f->rparen + 1; un && i < f->tok1; i++)
    if (fgr_tok_is(s->u, i, un)) {
      *tok = i;
      snprintf(why, n_why, "legacy kernel '%s' reads its usrData '%s', "
               "which fieldgraph does not pass (rsForEach's user data)",
               f->name, un);
      return why;
    }
  if (out >= 0 && f->params[out].type->size <= 0) {
    *tok = f->params[out].tok;
    snprintf(why, n_why, "the output of legacy kernel '%s' is %s, "
             "which is no Element type", f->name,
             f->params[out].type->name);
    return why;
  }
  if (in >= 0 && f->params[in].type->size <= 0) {
    *tok = f->params[in].tok;
    snprintf(why, n_why, "the input of legacy kernel '%s' is %s, "
             "which is no Element type", f->name, f->params[in].type->name);
    return why;
  }
  (void)s;
  f->legacy = true;
  f->is_kernel = true;
  f->legacy_in = in;
  f->legacy_out = out;
  f->legacy_usr = usr;
  for (int k = 0; k < n_index; k++)
    f->special[k] = special[k];
  f->n_inputs = in >= 0;
  if (out >= 0)     /* else void: it sets elements of an allocation */
    f->ret = f->params[out].type;
  return NULL;
}

/* root() is a kernel whatever its shape: one that fieldgraph cannot run
 * is refused when launched (f->bad_why, also in the script's warnings),
 * not at load, so that the script's other kernels and invokables run. */
static void check_legacy_root(fgr_scan *s, fgr_func *f) {
  int tok;
  char buf[512];
  const char *why = legacy_shape(s, f, &tok, buf, sizeof buf);
  if (!why)
    return;
  f->legacy = true;
  f->is_kernel = true;
  f->legacy_in = f->legacy_out = f->legacy_usr = -1;
  refuse(s, f, tok, "%s", why);
}

/* A non-static void function whose first parameter is a pointer to data
 * and that no reduction names: Android's compiler reflects it as a kernel
 * (forEach_<name>), so it is one here too, refused when launched if it
 * has not the shape fieldgraph runs (as root()). */
static void check_legacy_kernel(fgr_scan *s, fgr_func *f,
                                const pending_reduce *pr, int npr) {
  if (f->is_static || !f->has_body || f->n_params == 0 ||
      f->params[0].ptr != 1 || f->ret->kind != FGR_VOID || f->ret_ptr ||
      (f->params[0].type->kind == FGR_VOID &&
       (!f->params[0].name || !void_ptr_cast(s, f, f->params[0].name))))
    return;
  for (int k = 0; k < npr; k++)
    for (int j = 0; j < 4; j++)
      if (pr[k].fn[j] && !strcmp(pr[k].fn[j], f->name))
        return;
  check_legacy_root(s, f);
}

static void check_reduce(fgr_scan *s, const pending_reduce *p, fgr_reduce *r) {
  r->name = p->name;
  r->line = fgr_scan_tok(s, p->tok)->line;
  r->col = fgr_scan_tok(s, p->tok)->col;
  fgr_func *acc = (fgr_func *)must_func(s, p->fn_tok[1], "accumulator",
                                        p->fn[1]);
  r->accum = acc;
  if (acc->ret->kind != FGR_VOID || acc->ret_ptr)
    fgr_scan_fail(s, acc->name_tok,
                  "accumulator function '%s' must return void", acc->name);
  if (acc->n_params < 2 || acc->params[0].ptr != 1 ||
      acc->params[0].is_const)
    fgr_scan_fail(s, acc->name_tok,
                  "accumulator function '%s' must take a pointer "
                  "to the accumulator data item and at least one input",
                  acc->name);
  r->acc_type = acc->params[0].type;
  if (r->acc_type->size <= 0)
    fgr_scan_fail(s, acc->params[0].tok, "the accumulator type %s has no size",
                  r->acc_type->name);
  if (acc->n_inputs == 0 && acc->special[0] < 0 && acc->special[1] < 0 &&
      acc->special[2] < 0 && acc->special[3] < 0)
    specials(s, acc, 1);
  if (acc->n_inputs < 1)
    fgr_scan_fail(s, acc->name_tok,
                  "accumulator function '%s' takes no input "
                  "argument (a reduction kernel has one or more inputs)",
                  acc->name);
  if (p->fn[0]) {
    const fgr_func *f = must_func(s, p->fn_tok[0], "initializer", p->fn[0]);
    if (f->ret->kind != FGR_VOID || f->n_params != 1 ||
        f->params[0].ptr != 1 || !type_equal(f->params[0].type, r->acc_type))
      fgr_scan_fail(s, f->name_tok,
                    "initializer function '%s' must be "
                    "void %s(%s *accum)",
                    f->name, f->name, r->acc_type->name);
    r->init = f;
  }
  if (p->fn[2]) {
    const fgr_func *f = must_func(s, p->fn_tok[2], "combiner", p->fn[2]);
    if (f->ret->kind != FGR_VOID || f->n_params != 2 ||
        f->params[0].ptr != 1 || f->params[1].ptr != 1 ||
        !type_equal(f->params[0].type, r->acc_type) ||
        !type_equal(f->params[1].type, r->acc_type))
      fgr_scan_fail(s, f->name_tok,
                    "combiner function '%s' must be void %s(%s "
                    "*accum, const %s *other)",
                    f->name, f->name, r->acc_type->name, r->acc_type->name);
    r->comb = f;
  } else {
    /* the accumulator stands in for the combiner only when it has one
     * input of the accumulator's type and no special arguments */
    const char *why = NULL;
    char buf[160];
    bool special = false;
    for (int k = 0; k < FGR_SPECIAL_COUNT_; k++)
      special |= acc->special[k] >= 0;
    if (acc->n_inputs > 1) {
      snprintf(buf, sizeof buf, "the accumulator '%s' takes %d inputs",
               acc->name, acc->n_inputs);
      why = buf;
    } else if (!type_equal(acc->params[1].type, r->acc_type)) {
      snprintf(buf, sizeof buf, "the input type %s is not the accumulator "
               "type %s", acc->params[1].type->name, r->acc_type->name);
      why = buf;
    } else if (special) {
      snprintf(buf, sizeof buf, "the accumulator '%s' takes special "
               "arguments", acc->name);
      why = buf;
    }
    if (why)
      fgr_scan_fail(s, p->tok,
                    "reduction kernel '%s' needs a combiner function: %s",
                    r->name, why);
  }
  r->res_type = r->acc_type;
  if (p->fn[3]) {
    const fgr_func *f = must_func(s, p->fn_tok[3], "outconverter", p->fn[3]);
    if (f->ret->kind != FGR_VOID || f->n_params != 2 ||
        f->params[0].ptr != 1 || f->params[1].ptr != 1 ||
        !type_equal(f->params[1].type, r->acc_type))
      fgr_scan_fail(s, f->name_tok,
                    "outconverter function '%s' must be void %s("
                    "resultType *result, const %s *accum)",
                    f->name, f->name, r->acc_type->name);
    r->res_type = f->params[0].type;
    if (r->res_type->size <= 0)
      fgr_scan_fail(s, f->params[0].tok, "the result type %s has no size",
                    r->res_type->name);
    r->outc = f;
  }
}

/* ---- the unit ----------------------------------------------------------- */

const fgr_func *fgr_find_func(const fgr_unit *u, const char *name) {
  const fgr_func *proto = NULL;
  for (int k = 0; k < u->n_funcs; k++)
    if (!strcmp(u->funcs[k].name, name)) {
      if (u->funcs[k].has_body)
        return &u->funcs[k];
      proto = &u->funcs[k];
    }
  return proto;
}

int fgr_find_global(const fgr_unit *u, const char *name) {
  for (int k = 0; k < u->n_globals; k++)
    if (!strcmp(u->globals[k].name, name))
      return k;
  return -1;
}

const fgr_reduce *fgr_find_reduce(const fgr_unit *u, const char *name) {
  for (int k = 0; k < u->n_reduces; k++)
    if (!strcmp(u->reduces[k].name, name))
      return &u->reduces[k];
  return NULL;
}

/* The first token in [a, b) naming identifier name (or, with prefix, one
 * that starts with it), following the script functions and macros the
 * range uses; -1 when none. */
static int mentions(const fgr_unit *u, int a, int b, const char *name,
                    bool prefix, bool *seen_f, bool *seen_m) {
  size_t nl = strlen(name);
  for (int i = a; i < b; i++) {
    if (u->toks[i].kind != FGR_T_IDENT)
      continue;
    int len;
    const char *p = fgr_tok_text(u, i, &len);
    if (prefix ? (size_t)len >= nl && !memcmp(p, name, nl)
               : fgr_tok_is(u, i, name))
      return i;
    for (int k = 0; k < u->n_funcs; k++)
      if (!seen_f[k] && u->funcs[k].has_body &&
          (int)strlen(u->funcs[k].name) == len &&
          !memcmp(u->funcs[k].name, p, (size_t)len)) {
        seen_f[k] = true;
        int r = mentions(u, u->funcs[k].rparen, u->funcs[k].tok1, name,
                         prefix, seen_f, seen_m);
        if (r >= 0)
          return r;
      }
    for (int k = 0; k < u->n_macros; k++)
      if (!seen_m[k] && (int)strlen(u->macros[k].name) == len &&
          !memcmp(u->macros[k].name, p, (size_t)len)) {
        seen_m[k] = true;
        int r = mentions(u, u->macros[k].tok0, u->macros[k].tok1, name,
                         prefix, seen_f, seen_m);
        if (r >= 0)
          return r;
      }
  }
  return -1;
}

int fgr_func_mention(const fgr_unit *u, const fgr_func *f, const char *name,
                     bool prefix) {
  bool *seen_f = calloc((size_t)u->n_funcs + 1, 1);
  bool *seen_m = calloc((size_t)u->n_macros + 1, 1);
  int r = seen_f && seen_m
              ? mentions(u, f->rparen, f->tok1, name, prefix, seen_f, seen_m)
              : -1;
  free(seen_f);
  free(seen_m);
  return r;
}

bool fgr_func_mentions(const fgr_unit *u, const fgr_func *f,
                       const char *name) {
  return fgr_func_mention(u, f, name, false) >= 0;
}

bool fgr_assign_op(const fgr_unit *u, int t) {
  static const char *const ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=",
                                    "|=", "^=", "<<=", ">>=", "++", "--",
                                    NULL};
  for (int k = 0; ops[k]; k++)
    if (fgr_tok_is(u, t, ops[k]))
      return true;
  return false;
}

bool fgr_ptr_read(const fgr_unit *u, int i, int *open, int *close,
                  int *plus, int *deref) {
  if (fgr_tok_is(u, i - 1, "++") || fgr_tok_is(u, i - 1, "--") ||
      fgr_tok_is(u, i - 1, "&"))
    return false;
  if (fgr_tok_is(u, i + 1, "[")) {           /* p[e] */
    int c = u->match[i + 1];
    if (c < 0 || fgr_member_assigned(u, c + 1))
      return false;
    *open = i + 1;
    *close = c;
    *plus = *deref = -1;
    return true;
  }
  /* ( p + e ) preceded by '*' or followed by '->' */
  if (!fgr_tok_is(u, i - 1, "(") || !fgr_tok_is(u, i + 1, "+"))
    return false;
  int c = u->match[i - 1];
  if (c < 0)
    return false;
  if (fgr_tok_is(u, i - 2, "*") && !fgr_tok_is(u, c + 1, "->") &&
      !fgr_assign_op(u, c + 1)) {
    /* a dereference, not a product: no operand before the '*' */
    if (fgr_operand_end(u, i - 3))
      return false;
    *deref = i - 2;
  } else if (fgr_tok_is(u, c + 1, "->") && !fgr_member_assigned(u, c + 1)) {
    *deref = c + 1;
  } else {
    return false;
  }
  *open = i - 1;
  *close = c;
  *plus = i + 1;
  return true;
}

bool fgr_ptr_write(const fgr_unit *u, int i, int *close) {
  if (fgr_tok_is(u, i - 1, "&") || fgr_tok_is(u, i - 1, ".") ||
      fgr_tok_is(u, i - 1, "->") || !fgr_tok_is(u, i + 1, "["))
    return false;
  int c = u->match[i + 1];
  if (c < 0)
    return false;
  bool pre = fgr_tok_is(u, i - 1, "++") || fgr_tok_is(u, i - 1, "--");
  static const char *const ops[] = {"=", "+=", "-=", "*=", "++", "--",
                                    NULL};
  bool op = false;
  for (int k = 0; ops[k] && !op; k++)
    op = fgr_tok_is(u, c + 1, ops[k]);
  if (pre == op)
    return false;
  *close = c;
  return true;
}

int fgr_bad_global_use(const fgr_unit *u, const fgr_func *const *roots,
                       int n_roots, const fgr_bad_global **bad) {
  for (int r = 0; r < n_roots; r++) {
    if (!roots[r] || !roots[r]->has_body)
      continue;
    for (int k = 0; k < u->n_bad_globals; k++) {
      int t = fgr_func_mention(u, roots[r], u->bad_globals[k].name, false);
      if (t >= 0) {
        *bad = &u->bad_globals[k];
        return t;
      }
    }
  }
  return -1;
}

static void unit_destroy(fg__live *l) {
  fgr_unit *u = (fgr_unit *)l;
  free(u->toks);
  free(u->match);
  free(u->live.bytes);
  free(u->c_values);
  free(u->text);
  fgu_arena_free(&u->arena);
  free(u);
}

static void compute_matches(fgr_scan *s) {
  fgr_unit *u = s->u;
  int *stack = malloc((size_t)u->n_toks * sizeof *stack);
  if (!stack)
    fgr_scan_fail(s, 0, "out of memory");
  int sp = 0;
  for (int i = 0; i < u->n_toks; i++) {
    u->match[i] = -1;
    const fgr_tok *t = &u->toks[i];
    if (t->kind == FGR_T_PP_BEGIN || t->kind == FGR_T_PP_END) {
      /* directives balance on their own line */
      continue;
    }
    if (t->kind != FGR_T_PUNCT || t->len != 1)
      continue;
    char c = u->text[t->off];
    if (c == '(' || c == '[' || c == '{') {
      if (sp == FGR_MAX_NESTING) {    /* every descent below is bounded */
        free(stack);
        fgr_scan_fail(s, i, "brackets nested deeper than %d levels",
                      FGR_MAX_NESTING);
      }
      stack[sp++] = i;
    } else if (c == ')' || c == ']' || c == '}') {
      char want = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (!sp || u->text[u->toks[stack[sp - 1]].off] != want) {
        free(stack);
        fgr_scan_fail(s, i, "unbalanced '%c'", c);
      }
      int o = stack[--sp];
      u->match[o] = i;
      u->match[i] = o;
    }
  }
  int open = sp ? stack[sp - 1] : -1;
  free(stack);
  if (open >= 0)
    fgr_scan_fail(s, open, "'%c' is never closed", u->text[u->toks[open].off]);
}

static bool parse(fgr_scan *s, pending_reduce **prp, int *nprp);

/* Whether name (len bytes) names a number or vector type (uchar4, float,
 * int2, ...), one that rsGetElementAt_<name> reads. */
static bool element_name(const char *p, int len) {
  static const char *const base[] = {"char", "uchar", "short", "ushort",
    "int", "uint", "long", "ulong", "float", "double", NULL};
  for (int k = 0; base[k]; k++) {
    int n = (int)strlen(base[k]);
    if (len >= n && !memcmp(p, base[k], (size_t)n) &&
        (len == n || (len == n + 1 && p[n] >= '2' && p[n] <= '4')))
      return true;
  }
  return false;
}

bool fgr_untyped_get(const fgr_unit *u, int i, int *first, int *type) {
  if (!fgr_tok_is(u, i, "rsGetElementAt") || !fgr_tok_is(u, i + 1, "(") ||
      !fgr_tok_is(u, i - 1, ")") || !fgr_tok_is(u, i - 2, "*"))
    return false;
  int t = i - 3, o = t - 1, len;
  if (t < 2 || u->toks[t].kind != FGR_T_IDENT)
    return false;
  const char *p = fgr_tok_text(u, t, &len);
  if (!element_name(p, len))
    return false;
  if (fgr_tok_is(u, o, "const"))
    o--;
  if (o < 1 || !fgr_tok_is(u, o, "(") || !fgr_tok_is(u, o - 1, "*"))
    return false;
  *first = o - 1;
  *type = t;
  return true;
}

bool fgr_untyped_ptr(const fgr_unit *u, int i, fgr_eptr *e) {
  if (!fgr_tok_is(u, i, "rsGetElementAt") || !fgr_tok_is(u, i + 1, "(") ||
      i < 4)
    return false;
  int k = i - 1;
  e->cast_open = e->cast_close = -1;
  if (fgr_tok_is(u, k, ")") && u->match[k] >= 0 && u->match[k] < k &&
      fgr_tok_is(u, k - 1, "*")) {
    e->cast_open = u->match[k];
    e->cast_close = k;
    k = e->cast_open - 1;
  }
  if (!fgr_tok_is(u, k, "=") || k < 4 || u->toks[k - 1].kind != FGR_T_IDENT)
    return false;
  e->name = k - 1;
  k -= 2;
  while (k > 0 && (fgr_tok_is(u, k, "const") || fgr_tok_is(u, k, "volatile")))
    k--;
  if (!fgr_tok_is(u, k, "*") || fgr_tok_is(u, k - 1, "*"))
    return false;
  k--;
  while (k > 0 && fgr_tok_is(u, k, "const"))
    k--;
  if (k < 1 || u->toks[k].kind != FGR_T_IDENT)
    return false;
  e->type = k;
  e->is_struct = fgr_tok_is(u, k - 1, "struct");
  k -= e->is_struct ? 2 : 1;
  while (k > 0 && fgr_tok_is(u, k, "const"))
    k--;
  if (!fgr_tok_is(u, k, ";") && !fgr_tok_is(u, k, "{") &&
      !fgr_tok_is(u, k, "}") && !fgr_tok_is(u, k, "("))
    return false;
  e->decl = k + 1;
  return true;
}

bool fgr_atomic_get(const fgr_unit *u, int i, int *first, bool *is_uint) {
  if (!fgr_tok_is(u, i, "rsGetElementAt") || !fgr_tok_is(u, i + 1, "(") ||
      !fgr_tok_is(u, i - 1, ")") || !fgr_tok_is(u, i - 2, "*") || i < 5)
    return false;
  int t = i - 3, o = t - 1;
  bool s = fgr_tok_is(u, t, "int") || fgr_tok_is(u, t, "int32_t");
  bool us = fgr_tok_is(u, t, "uint") || fgr_tok_is(u, t, "uint32_t");
  if (!s && !us)
    return false;
  if (fgr_tok_is(u, o, "volatile"))
    o--;
  if (!fgr_tok_is(u, o, "(") || fgr_tok_is(u, o - 1, "*"))
    return false;
  *first = o;
  *is_uint = us;
  return true;
}

/* Words before '(' that call nothing. */
static bool not_a_call(const fgr_unit *u, int i) {
  static const char *const words[] = {
    "if", "while", "for", "switch", "return", "sizeof", "do", "case",
    "else", "__attribute__", "__attribute", "_Alignof", "__alignof__",
    "__typeof__", "typeof", "__extension__", "defined", NULL};
  for (int k = 0; words[k]; k++)
    if (fgr_tok_is(u, i, words[k]))
      return true;
  return false;
}

int fgr_first_unsupported(const fgr_unit *u, const fgr_func *f, bool host) {
  for (int i = f->rparen + 1; i + 1 < f->tok1; i++) {
    if (u->toks[i].kind != FGR_T_IDENT || !fgr_tok_is(u, i + 1, "(") ||
        not_a_call(u, i))
      continue;
    if (fgr_tok_is(u, i - 1, ".") || fgr_tok_is(u, i - 1, "->"))
      continue;
    int d0, ty;
    bool uns;
    fgr_eptr ep;
    if (fgr_untyped_get(u, i, &d0, &ty) || fgr_atomic_get(u, i, &d0, &uns) ||
        fgr_untyped_ptr(u, i, &ep))
      continue;
    int len;
    const char *p = fgr_tok_text(u, i, &len);
    bool script = false;
    for (int k = 0; k < u->n_funcs && !script; k++)
      script = u->funcs[k].has_body &&
               (int)strlen(u->funcs[k].name) == len &&
               !memcmp(u->funcs[k].name, p, (size_t)len);
    for (int k = 0; k < u->n_macros && !script; k++)
      script = (int)strlen(u->macros[k].name) == len &&
               !memcmp(u->macros[k].name, p, (size_t)len);
    if (!script && !fgr_runtime_has(p, len) &&
        !(host && fgr_host_runtime_has(p, len)))
      return i;
  }
  return -1;
}

void fgr_reach(const fgr_unit *u, const fgr_func *const *roots, int n_roots,
               bool *seen) {
  /* a worklist: each function's body is read once (iterating to a fixed
   * point read a chain of n functions n times over) */
  int *stack = malloc(((size_t)u->n_funcs + 1) * sizeof *stack);
  int sp = 0;
  for (int r = 0; r < n_roots; r++)
    if (roots[r] && roots[r]->has_body && !seen[roots[r] - u->funcs]) {
      seen[roots[r] - u->funcs] = true;
      if (stack)
        stack[sp++] = (int)(roots[r] - u->funcs);
    }
  bool fixpoint = !stack;       /* out of memory: the slow way */
  for (bool changed = fixpoint; sp > 0 || changed;) {
    int f0 = 0, f1 = u->n_funcs;
    if (!fixpoint)
      f1 = (f0 = stack[--sp]) + 1;
    changed = false;
    for (int f = f0; f < f1; f++) {
      if (!seen[f])
        continue;
      for (int i = u->funcs[f].rparen + 1; i < u->funcs[f].tok1; i++) {
        if (u->toks[i].kind != FGR_T_IDENT || !fgr_tok_is(u, i + 1, "("))
          continue;
        int len;
        const char *p = fgr_tok_text(u, i, &len);
        for (int k = 0; k < u->n_funcs; k++)
          if (!seen[k] && u->funcs[k].has_body &&
              u->funcs[k].name[0] == p[0] &&
              (int)strlen(u->funcs[k].name) == len &&
              !memcmp(u->funcs[k].name, p, (size_t)len)) {
            seen[k] = changed = true;
            if (!fixpoint)
              stack[sp++] = k;
          }
      }
    }
    if (!fixpoint)
      changed = false;
  }
  free(stack);
}

int fgr_unsupported_call(const fgr_unit *u, const fgr_func *const *roots,
                         int n_roots) {
  bool *seen = calloc((size_t)u->n_funcs + 1, 1);
  int *stack = malloc(((size_t)u->n_funcs + 1) * sizeof *stack);
  int sp = 0, found = -1;
  for (int r = 0; r < n_roots && seen && stack; r++)
    if (roots[r] && !seen[roots[r] - u->funcs]) {
      seen[roots[r] - u->funcs] = true;
      stack[sp++] = (int)(roots[r] - u->funcs);
    }
  while (sp > 0 && found < 0) {
    const fgr_func *f = &u->funcs[stack[--sp]];
    if (f->unsupported >= 0) {
      found = f->unsupported;
      break;
    }
    for (int i = f->rparen + 1; i < f->tok1; i++) {
      if (u->toks[i].kind != FGR_T_IDENT || !fgr_tok_is(u, i + 1, "("))
        continue;
      int len;
      const char *p = fgr_tok_text(u, i, &len);
      for (int k = 0; k < u->n_funcs; k++)
        if (!seen[k] && u->funcs[k].has_body &&
            (int)strlen(u->funcs[k].name) == len &&
            !memcmp(u->funcs[k].name, p, (size_t)len)) {
          seen[k] = true;
          stack[sp++] = k;
        }
    }
  }
  free(seen);
  free(stack);
  return found;
}

/* The first token in f's body that writes global g (g = , g += , g++,
 * ++g, g[i] = , g.m = ), -1 when none; a function with a parameter or a
 * local of that name (a declaration "T g") is taken to mean its own. */
static int global_write(const fgr_unit *u, const fgr_func *f, int g) {
  const char *name = u->globals[g].name;
  for (int p = 0; p < f->n_params; p++)
    if (f->params[p].name && !strcmp(f->params[p].name, name))
      return -1;
  for (int i = f->rparen + 1; i < f->tok1; i++)
    if (fgr_tok_is(u, i, name) && (u->toks[i - 1].kind == FGR_T_IDENT ||
                                   fgr_tok_is(u, i - 1, "*")) &&
        !fgr_tok_is(u, i - 1, "return") && !fgr_tok_is(u, i - 1, "sizeof"))
      return -1;
  for (int i = f->rparen + 1; i < f->tok1; i++) {
    if (!fgr_tok_is(u, i, name) || fgr_tok_is(u, i - 1, ".") ||
        fgr_tok_is(u, i - 1, "->"))
      continue;
    if (fgr_tok_is(u, i - 1, "++") || fgr_tok_is(u, i - 1, "--"))
      return i;
    int j = i + 1;
    while (j < f->tok1 && (fgr_tok_is(u, j, "[") || fgr_tok_is(u, j, "."))) {
      if (fgr_tok_is(u, j, "[") && u->match[j] > j)
        j = u->match[j] + 1;
      else
        j += 2;                 /* . member */
    }
    if (j < f->tok1 && fgr_assign_op(u, j))
      return i;
  }
  return -1;
}

int fgr_global_write(const fgr_unit *u, const fgr_func *const *roots,
                     int n_roots, int *global) {
  bool *seen = calloc((size_t)u->n_funcs + 1, 1);
  if (!seen)
    return -1;
  fgr_reach(u, roots, n_roots, seen);
  int t = -1;
  for (int f = 0; f < u->n_funcs && t < 0; f++)
    for (int g = 0; seen[f] && g < u->n_globals && t < 0; g++)
      if (u->globals[g].alloc_index < 0 &&
          (t = global_write(u, &u->funcs[f], g)) >= 0)
        *global = g;
  free(seen);
  return t;
}

/* What a kernel's body (with what it calls) does that fieldgraph does
 * not run, refused at its token (the first that applies):
 *   - half (API 24's 16-bit float) has no type on either backend here,
 *     rather than failing to compile or computing in float where Android
 *     rounds to half;
 *   - a kernel that returns void keeps only what it sets through
 *     rsSetElementAt_<type> or rsAtomic*: one that sets nothing. */
static void refuse_kernel_body(fgr_scan *s, fgr_func *f) {
  fgr_unit *u = s->u;
  static const char *const halves[] = {"half", "half2", "half3", "half4"};
  int t = -1;
  for (int h = 0; h < 4 && t < 0; h++)
    t = fgr_func_mention(u, f, halves[h], false);
  if (t >= 0) {
    int len;
    const char *p = fgr_tok_text(u, t, &len);
    refuse(s, f, t, "kernel '%s' uses type '%.*s', which fieldgraph does "
           "not support (16-bit floats; use float)", f->name, len, p);
    return;
  }
  /* a kernel that writes globals writes its launch's copy of them
   * (nodes.c) */
  /* a void kernel that sets nothing runs as Android runs it, to no
   * visible effect (fg_rs_map) */
}

/* Notes each function's first unsupported call, and lists in u->warnings
 * those that kernels and reductions reach. */
static void note_unsupported(fgr_scan *s) {
  fgr_unit *u = s->u;
  for (int k = 0; k < u->n_funcs; k++)
    if (u->funcs[k].has_body)
      u->funcs[k].unsupported = fgr_first_unsupported(u, &u->funcs[k],
                                                      false);
  for (int k = 0; k < u->n_funcs; k++)
    if (u->funcs[k].is_kernel && u->funcs[k].has_body && !u->funcs[k].bad_why)
      refuse_kernel_body(s, &u->funcs[k]);
  fgu_buf b = {0};
  if (s->notes.s)
    fgu_buf_puts(&b, s->notes.s);
  for (int k = 0; k < u->n_funcs + u->n_reduces; k++) {
    const fgr_func *roots[4] = {0};
    const char *what;
    if (k < u->n_funcs) {
      if (!u->funcs[k].is_kernel || !u->funcs[k].has_body)
        continue;
      roots[0] = &u->funcs[k];
      what = "kernel";
    } else {
      const fgr_reduce *r = &u->reduces[k - u->n_funcs];
      roots[0] = r->init;
      roots[1] = r->accum;
      roots[2] = r->comb;
      roots[3] = r->outc;
      what = "reduction kernel";
    }
    if (k < u->n_funcs && u->funcs[k].bad_why) {
      int t = u->funcs[k].bad_tok;
      fgu_buf_printf(&b, "%s:%d:%d: %s\n", fgr_tok_file(u, t),
                     u->toks[t].line, u->toks[t].col, u->funcs[k].bad_why);
      continue;
    }
    char why[600];
    int pt = fgr_bad_ptr_use(u, roots, 4, why, sizeof why);
    if (pt >= 0) {
      fgu_buf_printf(&b, "%s:%d:%d: %s '%s': %s\n", fgr_tok_file(u, pt),
                     u->toks[pt].line, u->toks[pt].col, what,
                     k < u->n_funcs ? u->funcs[k].name
                                    : u->reduces[k - u->n_funcs].name,
                     why);
      continue;
    }
    const fgr_bad_global *bad = NULL;
    int t = fgr_bad_global_use(u, roots, 4, &bad);
    if (t >= 0) {
      fgu_buf_printf(&b, "%s:%d:%d: %s '%s' uses global '%s': %s\n",
                     fgr_tok_file(u, t), u->toks[t].line, u->toks[t].col,
                     what, k < u->n_funcs ? u->funcs[k].name
                                          : u->reduces[k - u->n_funcs].name,
                     bad->name, bad->why);
      continue;
    }
    t = fgr_unsupported_call(u, roots, 4);
    if (t < 0)
      continue;
    int len;
    const char *p = fgr_tok_text(u, t, &len);
    fgu_buf_printf(&b, "%s:%d:%d: %s '%s' calls '%.*s', which fieldgraph's "
                   "RenderScript runtime does not provide\n",
                   fgr_tok_file(u, t), u->toks[t].line, u->toks[t].col, what,
                   k < u->n_funcs ? u->funcs[k].name
                                  : u->reduces[k - u->n_funcs].name,
                   len, p);
  }
  u->warnings = fgu_arena_strdup(&u->arena, b.s ? b.s : "");
  fgu_buf_free(&b);
  if (!u->warnings)
    fgr_scan_fail(s, 0, "out of memory");
}

fgr_unit *fgr_unit_new(const char *name, const char *file, const char *text,
                       size_t len, const fgr_pp *pp, char *err,
                       size_t errlen) {
  fgr_unit *u = calloc(1, sizeof *u);
  if (!u) {
    snprintf(err, errlen, "%s: out of memory", file);
    return NULL;
  }
  u->live.refs = 1;
  u->live.destroy = unit_destroy;
  u->name = fgu_arena_strdup(&u->arena, name);
  u->file = fgu_arena_strdup(&u->arena, file);
  if (!u->name || !u->file) {
    snprintf(err, errlen, "%s: out of memory", file);
    unit_destroy(&u->live);
    return NULL;
  }
  if (pp->raw) {
    u->text = malloc(len + 1);
    if (u->text) {
      memcpy(u->text, text, len);
      u->text[len] = 0;
      u->text_len = len;
    } else {
      snprintf(err, errlen, "%s: out of memory", file);
    }
  } else {
    u->text = fgr_preprocess(pp, file, text, len, &u->text_len, err,
                             errlen);
  }
  if (!u->text) {
    unit_destroy(&u->live);
    return NULL;
  }
  fgr_lex_in lin = {.file = u->file, .src = text, .src_len = len,
                    .text = u->text, .len = u->text_len,
                    .arena = &u->arena};
  if (!fgr_lex(&lin, &u->toks, &u->n_toks, &u->files, &u->n_files, err,
               errlen)) {
    unit_destroy(&u->live);
    return NULL;
  }
  fgr_scan *s = calloc(1, sizeof *s);
  pending_reduce *pr = NULL;
  int npr = 0;
  if (!s || !(u->match = malloc((size_t)u->n_toks * sizeof *u->match))) {
    free(s);
    snprintf(err, errlen, "%s: out of memory", file);
    unit_destroy(&u->live);
    return NULL;
  }
  s->u = u;
  s->err = err;
  s->errlen = errlen;
  bool ok = parse(s, &pr, &npr);
  free(pr);
  free(s->memo);
  fgu_buf_free(&s->members);
  fgu_buf_free(&s->notes);
  free(s);
  if (!ok) {
    unit_destroy(&u->live);
    return NULL;
  }
  if (errlen)
    err[0] = 0;
  return u;
}

/* Everything the scanner does after tokenizing; false on an error (the
 * message is in s->err). */
static bool parse(fgr_scan *s, pending_reduce **prp, int *nprp) {
  fgr_unit *u = s->u;
  size_t len = u->text_len;
  const char *name = u->name;
  if (setjmp(s->fail))
    return false;
  fgr_type *own = fgr_scan_zalloc(s, 4 * sizeof *own);
  own[0] = (fgr_type){.kind = FGR_VOID, .name = "void"};
  own[1] = (fgr_type){.kind = FGR_BOOL, .size = 1, .align = 1,
                      .name = "bool"};
  own[2] = (fgr_type){.kind = FGR_ALLOC, .name = "rs_allocation"};
  own[3] = (fgr_type){.kind = FGR_CONTEXT, .name = "rs_kernel_context"};
  s->t_void = &own[0];
  s->t_bool = &own[1];
  s->t_alloc = &own[2];
  s->t_context = &own[3];
  compute_matches(s);
  while (fgr_scan_tok(s, s->i)->kind != FGR_T_EOF) {
    int t0 = s->i;
    if (fgr_scan_tok(s, t0)->kind == FGR_T_PP_BEGIN) {
      directive(s, prp, nprp);
      continue;
    }
    if (is(s, t0, ";")) {
      s->i++;
      continue;
    }
    if (fgr_scan_tok(s, t0)->kind != FGR_T_IDENT)
      fgr_scan_fail(s, t0, "expected a declaration, got %s",
                    fgr_scan_quote(s, t0));
    fgr_spec sp = fgr_scan_specifiers(s, true);
    if (sp.is_typedef) {
      bool fn_type = false;
      for (;;) {
        fgr_declarator d = fgr_scan_declarator(s, sp.type, false);
        const fgr_type *dt = d.type;
        if (d.is_func || d.ptr) {
          /* a pointer or function type: no value fieldgraph holds, so a
           * global or argument of it is refused where it is used, while
           * function bodies may declare locals of it */
          fgr_type *o = fgr_scan_zalloc(s, sizeof *o);
          o->kind = FGR_OPAQUE;
          o->name = d.name;
          dt = o;
          fn_type |= d.is_func || !strcmp(d.type->name, "function pointer");
          if (d.is_func)
            s->i = s->u->match[d.lparen] + 1;
        }
        fgr_named *n = FGR_SCAN_PUSH(s, u->named, n_named, cap_named);
        *n = (fgr_named){d.name, dt, false};
        if (dt->kind == FGR_STRUCT && (!strcmp(dt->name, "struct") ||
                                       !strcmp(dt->name, "union")))
          ((fgr_type *)dt)->name = d.name;
        if (!is(s, s->i, ","))
          break;
        s->i++;
      }
      fgr_scan_expect(s, ";");
      fgr_item *ti = new_item(s, FGR_I_TYPE, t0);
      ti->tok1 = s->i;
      ti->no_cl = fn_type;
      continue;
    }
    if (is(s, s->i, ";")) {
      if (!sp.defines)
        fgr_scan_fail(s, s->i, "declaration declares nothing");
      s->i++;
      new_item(s, FGR_I_TYPE, t0)->tok1 = s->i;
      continue;
    }
    fgr_declarator d = fgr_scan_declarator(s, sp.type, false);
    if (d.is_func)
      function(s, sp, d, t0);
    else
      globals(s, sp, d, t0);
  }
  u->member_names = fgu_arena_strdup(&u->arena, s->members.s ? s->members.s
                                                              : "");
  fgr_mark_views(s);
  /* kernels, then reductions, by the reference's rules */
  pending_reduce *pr = *prp;
  int npr = *nprp;
  for (int k = 0; k < u->n_funcs; k++) {
    fgr_func *f = &u->funcs[k];
    if (f->is_kernel)
      check_kernel(s, f);
    else if (f->has_body && !strcmp(f->name, "root"))
      check_legacy_root(s, f);
    else
      check_legacy_kernel(s, f, pr, npr);
    if (!f->has_body && !fgr_find_func(u, f->name)->has_body &&
        (f->is_static || f->is_kernel))
      fgr_scan_fail(s, f->name_tok,
                    "function '%s' is declared but never defined", f->name);
    for (int j = 0; j < k; j++)
      if (u->funcs[j].has_body && f->has_body &&
          !strcmp(u->funcs[j].name, f->name) &&
          !(u->funcs[j].overloadable && f->overloadable))
        fgr_scan_fail(s, f->name_tok, "redefinition of function '%s'%s",
                      f->name, u->funcs[j].overloadable || f->overloadable
                      ? " (overloads are each __attribute__((overloadable)))"
                      : "");
  }
  u->reduces = npr ? fgr_scan_zalloc(s, (size_t)npr * sizeof *u->reduces) : NULL;
  for (int k = 0; k < npr; k++) {
    for (int j = 0; j < k; j++)
      if (!strcmp(pr[j].name, pr[k].name))
        fgr_scan_fail(s, pr[k].tok, "reduction kernel '%s' defined twice",
                      pr[k].name);
    check_reduce(s, &pr[k], &u->reduces[k]);
    u->n_reduces++;
  }
  note_unsupported(s);
  /* the globals block: every non-const global with a value, laid out as
   * the emitted struct (natural alignment) */
  int64_t off = 0;
  for (int k = 0; k < u->n_globals; k++) {
    fgr_global *g = &u->globals[k];
    if (g->alloc_index >= 0 || g->is_const)
      continue;
    g->buffered = true;
    off = (off + g->type->align - 1) / g->type->align * g->type->align;
    g->offset = off;
    off += g->type->size;
  }
  u->block_size = (off + 1 + 15) / 16 * 16;   /* + fgk_pad */
  /* non-static constants: fg_rs_get reads them after the block */
  int64_t coff = u->block_size;
  for (int k = 0; k < u->n_globals; k++) {
    fgr_global *g = &u->globals[k];
    if (g->buffered) {
      u->n_buffered++;
    } else if (g->alloc_index < 0) {
      coff = (coff + g->type->align - 1) / g->type->align * g->type->align;
      g->offset = coff;
      coff += g->type->size;
    }
    if (coff > FGR_MAX_OBJECT_BYTES)
      fgr_scan_fail(s, g->tok, "the script's globals take more than %lld "
                    "bytes", (long long)FGR_MAX_OBJECT_BYTES);
  }
  u->live.size = (size_t)u->block_size;
  u->live.bytes = calloc(1, u->live.size);
  u->c_values = calloc(1, (size_t)coff);
  if (!u->live.bytes || !u->c_values)
    fgr_scan_fail(s, 0, "out of memory");
  for (int k = 0; k < u->n_globals; k++) {
    fgr_global *g = &u->globals[k];
    if (g->buffered) {
      fgr_init_global(s, g, u->c_values + g->offset);
      g->has_value = true;
    } else if (g->alloc_index < 0) {
      /* a constant stays code; its value is only for fg_rs_get, so one
       * fieldgraph cannot evaluate is not an error */
      fgr_try_init_global(s, g, u->c_values + g->offset);
    }
  }
  memcpy(u->live.bytes, u->c_values, u->live.size);
  for (int i = 0; i < u->n_toks; i++)
    if (fgr_tok_is(u, i, "double"))
      u->uses_double = true;
  for (int w = 1; w <= 4; w++)
    if (s->builtin[FG_F64][w])
      u->uses_double = true;
  /* names in generated code: the script's name and a hash of its text */
  fgu_sha256 h;
  fgu_sha256_init(&h);
  fgu_sha256_update(&h, u->text, len);
  fgu_sha256_hex(&h, u->hash);
  char ident[24];
  fgk_identifier(name, ident, sizeof ident);
  snprintf(u->mangle, sizeof u->mangle, "rs_%s_%.8s_", ident, u->hash);
  return true;
}

int64_t fgr_record_bytes(const fgr_reduce *r) {
  return 16 + r->acc_type->size * FGK_MAX_PARTIALS;
}
