/* rs/ptrview.c - pointer globals beyond p[e]: *p and p->m, and views of
 * the field bound to a pointer global passed to a script function's
 * pointer parameter, f(p) or f(p + e) (the parameter is then a "view
 * parameter", fgr_param.view, read and written as the pointer global
 * itself and passed on the same way), or given to a pointer local,
 * T *q = p + e; (a "view local", fgr_vlocal).  The scanner marks them
 * once per script (fgr_mark_views); the kernel emitter rewrites them
 * (emit_hooks.c), and launches ask here which uses they cannot run
 * (fgr_bad_ptr_use) and which write the field.  A pointee may be a
 * struct (its bytes in the field, in its C layout): members are read
 * through the whole struct, p->m, and written one at a time
 * (fgr_ptr_mwrite); a struct pointer local may start NULL. */
#include "scan_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool view_shape(const fgr_unit *u, int i, int end);

bool fgr_operand_end(const fgr_unit *u, int t) {
  if (t < 0)
    return false;
  static const char *const kw[] = {"return", "case", "else", "do", "goto",
                                   NULL};
  for (int k = 0; kw[k]; k++)
    if (fgr_tok_is(u, t, kw[k]))
      return false;
  fgr_tok_kind k = u->toks[t].kind;
  return k == FGR_T_IDENT || k == FGR_T_NUMBER || k == FGR_T_CHAR ||
         k == FGR_T_STRING || fgr_tok_is(u, t, ")") ||
         fgr_tok_is(u, t, "]");
}

/* Whether the ')' at t closes a statement's condition (if, while, for,
 * switch) or a cast to a named type (a '*' after it dereferences). */
static bool closes_prefix(const fgr_unit *u, int t) {
  int o = fgr_tok_is(u, t, ")") ? u->match[t] : -1;
  if (o < 1)
    return false;
  static const char *const kw[] = {"if", "while", "for", "switch", NULL};
  for (int k = 0; kw[k]; k++)
    if (fgr_tok_is(u, o - 1, kw[k]))
      return true;
  if (o + 1 == t)
    return false;
  static const char *const words[] = {
    "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
    "float", "double", "half", "bool", "unsigned", "signed", "const",
    "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
    "uint16_t", "uint32_t", "uint64_t", NULL};
  for (int j = o + 1; j < t; j++) {
    bool type = false;
    for (int k = 0; words[k] && !type; k++)
      type = fgr_tok_is(u, j, words[k]);
    for (int k = 0; k < u->n_named && !type; k++)
      type = !u->named[k].tag && fgr_tok_is(u, j, u->named[k].name);
    int len;
    const char *p = fgr_tok_text(u, j, &len);
    /* a vector type: float4, uchar2... */
    if (!type && len > 1 && p[len - 1] >= '2' && p[len - 1] <= '4')
      for (int k = 0; words[k] && k < 10 && !type; k++)
        type = (int)strlen(words[k]) == len - 1 &&
               !memcmp(words[k], p, (size_t)len - 1);
    if (!type)
      return false;
  }
  return true;
}

bool fgr_member_assigned(const fgr_unit *u, int t) {
  while (t < u->n_toks) {
    if ((fgr_tok_is(u, t, ".") || fgr_tok_is(u, t, "->")) &&
        t + 1 < u->n_toks && u->toks[t + 1].kind == FGR_T_IDENT)
      t += 2;
    else if (fgr_tok_is(u, t, "[") && u->match[t] > t)
      t = u->match[t] + 1;
    else
      break;
  }
  return fgr_assign_op(u, t);
}

bool fgr_ptr_deref(const fgr_unit *u, int i, int *deref, bool *write) {
  if (fgr_tok_is(u, i - 1, ".") || fgr_tok_is(u, i - 1, "->"))
    return false;
  if (fgr_tok_is(u, i + 1, "->") && !fgr_tok_is(u, i - 1, "&") &&
      !fgr_tok_is(u, i - 1, "++") && !fgr_tok_is(u, i - 1, "--") &&
      i + 2 < u->n_toks && u->toks[i + 2].kind == FGR_T_IDENT &&
      !fgr_member_assigned(u, i + 1)) {
    *deref = i + 1;                             /* p->m, read */
    *write = false;
    return true;
  }
  if (!fgr_tok_is(u, i - 1, "*") ||
      (fgr_operand_end(u, i - 2) && !closes_prefix(u, i - 2)) ||
      fgr_tok_is(u, i - 2, "++") || fgr_tok_is(u, i - 2, "--") ||
      fgr_tok_is(u, i - 2, "&") || fgr_tok_is(u, i + 1, "[") ||
      fgr_tok_is(u, i + 1, "->") || fgr_tok_is(u, i + 1, "++") ||
      fgr_tok_is(u, i + 1, "--"))
    return false;
  /* (*p) assigned or incremented: not taken */
  if (fgr_tok_is(u, i - 2, "(") && u->match[i - 2] == i + 1 &&
      fgr_assign_op(u, i + 2))
    return false;
  *deref = i - 1;
  *write = false;
  if (!fgr_assign_op(u, i + 1))
    return true;                                /* *p, read */
  static const char *const ops[] = {"=", "+=", "-=", "*=", NULL};
  for (int k = 0; ops[k]; k++)
    if (fgr_tok_is(u, i + 1, ops[k]))
      *write = true;                            /* *p = v, += ... */
  return *write;
}

const fgr_type *fgr_ptr_at(const fgr_unit *u, const fgr_func *f, int i) {
  if (i < 0 || i >= u->n_toks || u->toks[i].kind != FGR_T_IDENT ||
      fgr_tok_is(u, i - 1, ".") || fgr_tok_is(u, i - 1, "->"))
    return NULL;
  if (u->vlocal_of && u->vlocal_of[i] >= 0)
    return u->vlocals[u->vlocal_of[i]].type;
  for (int p = 0; f && p < f->n_params; p++)
    if (f->params[p].name && fgr_tok_is(u, i, f->params[p].name))
      return f->params[p].view ? f->params[p].type : NULL;
  for (int k = 0; k < u->n_globals; k++)
    if (u->globals[k].pointee && fgr_tok_is(u, i, u->globals[k].name))
      return u->globals[k].pointee;
  return NULL;
}

bool fgr_ptr_is_view(const fgr_unit *u, const fgr_func *f, int i) {
  if (!fgr_ptr_at(u, f, i))
    return false;
  if (u->vlocal_of && u->vlocal_of[i] >= 0)
    return true;
  for (int p = 0; f && p < f->n_params; p++)
    if (f->params[p].name && fgr_tok_is(u, i, f->params[p].name))
      return true;
  return false;
}

const fgr_vlocal *fgr_vlocal_init(const fgr_unit *u, int i) {
  for (int k = 0; k < u->n_vlocals; k++)
    if (u->vlocals[k].init == i)
      return &u->vlocals[k];
  return NULL;
}

/* Tokens a walk back to a for's parentheses passes at most (a bound on
 * what a hostile script makes each token cost). */
enum { MAX_WALK = 4096 };

/* The end of the expression statement or for-clause from token i: its
 * ';', ',' or unmatched ')'. */
static int clause_end(const fgr_unit *u, int i) {
  while (i < u->n_toks && !fgr_tok_is(u, i, ";") && !fgr_tok_is(u, i, ",") &&
         !fgr_tok_is(u, i, ")") && !fgr_tok_is(u, i, "}")) {
    if ((fgr_tok_is(u, i, "(") || fgr_tok_is(u, i, "[")) && u->match[i] > i)
      i = u->match[i];
    i++;
  }
  return i;
}

/* Whether token t is inside the parentheses of a for. */
static bool in_for_header(const fgr_unit *u, int t) {
  for (int j = t - 1, steps = 0; j > 0 && steps < MAX_WALK; j--, steps++) {
    if ((fgr_tok_is(u, j, ")") || fgr_tok_is(u, j, "]")) && u->match[j] >= 0
        && u->match[j] < j) {
      j = u->match[j];
      continue;
    }
    if (fgr_tok_is(u, j, "("))
      return fgr_tok_is(u, j - 1, "for");
    if (fgr_tok_is(u, j, "{") || fgr_tok_is(u, j, "}"))
      return false;
  }
  return false;
}

/* Whether tokens [t, end) are a statement or a for-clause. */
static bool clause(const fgr_unit *u, int t, int end) {
  if (fgr_tok_is(u, t - 1, ",") || fgr_tok_is(u, t - 1, "(") ||
      !fgr_tok_is(u, end, ";"))
    return in_for_header(u, t);
  return fgr_tok_is(u, t - 1, ";") || fgr_tok_is(u, t - 1, "{") ||
         fgr_tok_is(u, t - 1, "}") || fgr_tok_is(u, t - 1, ")") ||
         fgr_tok_is(u, t - 1, "else");
}

int fgr_vlocal_move(const fgr_unit *u, const fgr_func *f, int i, int *end) {
  int v = u->vlocal_of && i >= 0 && i < u->n_toks ? u->vlocal_of[i] : -1;
  if (v < 0 || i == u->vlocals[v].name_tok)
    return -1;
  bool pre = fgr_tok_is(u, i - 1, "++") || fgr_tok_is(u, i - 1, "--");
  if (!pre && !fgr_tok_is(u, i + 1, "=") && !fgr_tok_is(u, i + 1, "+=") &&
      !fgr_tok_is(u, i + 1, "-=") && !fgr_tok_is(u, i + 1, "++") &&
      !fgr_tok_is(u, i + 1, "--"))
    return -1;                  /* no move: no walk to the clause's end */
  *end = clause_end(u, i + 1);
  if (pre)
    return clause(u, i - 1, *end) && *end == i + 1 ? v : -1;
  if (!clause(u, i, *end))
    return -1;
  if (fgr_tok_is(u, i + 1, "++") || fgr_tok_is(u, i + 1, "--"))
    return *end == i + 2 ? v : -1;
  if (fgr_tok_is(u, i + 1, "+=") || fgr_tok_is(u, i + 1, "-="))
    return *end > i + 2 ? v : -1;
  if (fgr_tok_is(u, i + 1, "=") && fgr_ptr_at(u, f, i + 2) &&
      view_shape(u, i + 2, *end))
    return v;
  return -1;
}

const fgr_vlocal *fgr_vlocal_source(const fgr_unit *u, const fgr_func *f,
                                    int i) {
  const fgr_vlocal *v = fgr_vlocal_init(u, i);
  int end;
  if (!v && fgr_tok_is(u, i - 1, "=")) {
    int k = fgr_vlocal_move(u, f, i - 2, &end);
    v = k >= 0 ? &u->vlocals[k] : NULL;
  }
  return v;
}

/* Whether t is a struct that pointers read as bytes of a field: sized,
 * no pointer or object members (compat.c's FGK_RS_SGET). */
static bool field_struct(const fgr_type *t) {
  return t && t->kind == FGR_STRUCT && t->size > 0 && !t->has_ptr;
}

/* Whether param is a pointer to a number or a struct, which a view may be
 * given to. */
static bool viewable(const fgr_param *p) {
  return p->ptr == 1 && ((p->type->kind == FGR_NUM &&
                          p->type->elem != FG_BOOL) ||
                         field_struct(p->type));
}

/* The member called name of struct t, or NULL. */
static const fgr_member *member_of(const fgr_unit *u, const fgr_type *t,
                                   int tok) {
  for (int k = 0; t->kind == FGR_STRUCT && k < t->n_members; k++)
    if (t->members[k].name && fgr_tok_is(u, tok, t->members[k].name))
      return &t->members[k];
  return NULL;
}

bool fgr_ptr_mwrite(const fgr_unit *u, int i, const fgr_type *t,
                    fgr_mwrite *w) {
  if (!field_struct(t) || fgr_tok_is(u, i - 1, ".") ||
      fgr_tok_is(u, i - 1, "->"))
    return false;
  *w = (fgr_mwrite){.open = -1, .close = -1, .plus = -1};
  if (fgr_tok_is(u, i + 1, "->")) {                     /* p->m */
    w->sel = i + 1;
  } else if (fgr_tok_is(u, i + 1, "[") && u->match[i + 1] > i + 1 &&
             fgr_tok_is(u, u->match[i + 1] + 1, ".")) {  /* p[e].m */
    w->open = i + 1;
    w->close = u->match[i + 1];
    w->sel = w->close + 1;
  } else if (fgr_tok_is(u, i - 1, "(") && u->match[i - 1] > i &&
             (fgr_tok_is(u, i + 1, "+") || fgr_tok_is(u, i + 1, "-")) &&
             view_shape(u, i, u->match[i - 1]) &&
             fgr_tok_is(u, u->match[i - 1] + 1, "->")) { /* (p + e)->m */
    w->open = i - 1;
    w->close = u->match[i - 1];
    w->plus = i + 1;
    w->sel = w->close + 1;
  } else {
    return false;
  }
  if (fgr_tok_is(u, w->open, "[") && (fgr_tok_is(u, i - 1, "&") ||
                                      fgr_tok_is(u, i - 1, "*")))
    return false;
  if (fgr_tok_is(u, w->open, "(") && (fgr_tok_is(u, i - 2, "&") ||
                                      fgr_tok_is(u, i - 2, "*")))
    return false;
  int m = w->sel + 1;
  const fgr_member *mb = member_of(u, t, m);
  while (mb && mb->type->kind == FGR_STRUCT && fgr_tok_is(u, m + 1, ".")) {
    m += 2;
    mb = member_of(u, mb->type, m);
  }
  if (!mb || (mb->type->kind != FGR_NUM && mb->type->kind != FGR_BOOL))
    return false;
  w->m1 = m;
  w->op = m + 1;
  w->mt = mb->type;
  /* before the members, no ++ or -- (++p->m is taken for no write) */
  int first = w->open >= 0 && fgr_tok_is(u, w->open, "(") ? w->open : i;
  if (fgr_tok_is(u, first - 1, "++") || fgr_tok_is(u, first - 1, "--"))
    return false;
  if (fgr_tok_is(u, w->op, "="))
    return true;
  static const char *const upd[] = {"+=", "-=", "*=", "++", "--", NULL};
  for (int k = 0; upd[k]; k++)
    if (fgr_tok_is(u, w->op, upd[k]))
      return mb->type->kind == FGR_NUM;         /* a bool is set only */
  return false;
}

/* Arguments before the one asked about that fgr_call_arg walks back
 * over: a bound on what a hostile script makes each token cost (a call
 * with more is taken for no call: its pointer arguments are refused). */
enum { MAX_ARG_WALK = 4096 };

int fgr_call_arg(const fgr_unit *u, int i, int *k, int *end) {
  if (!fgr_tok_is(u, i - 1, "(") && !fgr_tok_is(u, i - 1, ","))
    return -1;
  int n = 0, j = i - 1, steps = 0;
  while (j >= 0 && !fgr_tok_is(u, j, "(")) {
    if (++steps > MAX_ARG_WALK)
      return -1;
    if (fgr_tok_is(u, j, ")") || fgr_tok_is(u, j, "]") ||
        fgr_tok_is(u, j, "}")) {
      if (u->match[j] < 0 || u->match[j] >= j)
        return -1;
      j = u->match[j] - 1;
      continue;
    }
    if (fgr_tok_is(u, j, "{") || fgr_tok_is(u, j, "[") ||
        fgr_tok_is(u, j, ";"))
      return -1;
    n += fgr_tok_is(u, j, ",");
    j--;
  }
  if (j < 1 || u->match[j] < 0 || u->toks[j - 1].kind != FGR_T_IDENT ||
      fgr_tok_is(u, j - 2, ".") || fgr_tok_is(u, j - 2, "->"))
    return -1;
  int len;
  const char *p = fgr_tok_text(u, j - 1, &len);
  char name[128];
  if (len >= (int)sizeof name)
    return -1;
  memcpy(name, p, (size_t)len);
  name[len] = 0;
  if (!fgr_find_func(u, name))
    return -1;
  int rp = u->match[j], e = i;
  while (e < rp && !fgr_tok_is(u, e, ",")) {
    if (++steps > 2 * MAX_ARG_WALK)
      return -1;
    if ((fgr_tok_is(u, e, "(") || fgr_tok_is(u, e, "[") ||
         fgr_tok_is(u, e, "{")) && u->match[e] > e)
      e = u->match[e];
    e++;
  }
  *k = n;
  *end = e;
  return j - 1;
}

/* Whether argument [i, end) is p, or p + e or p - e with no operator
 * binding looser than + and - outside brackets (its value then is p
 * moved by the rest). */
static bool view_shape(const fgr_unit *u, int i, int end) {
  if (end == i + 1)
    return true;
  if (!fgr_tok_is(u, i + 1, "+") && !fgr_tok_is(u, i + 1, "-"))
    return false;
  static const char *const loose[] = {"<<", ">>", "<", ">", "<=", ">=",
                                      "==", "!=", "&", "^", "|", "&&", "||",
                                      "?", ":", NULL};
  for (int j = i + 2; j < end; j++) {
    if ((fgr_tok_is(u, j, "(") || fgr_tok_is(u, j, "[") ||
         fgr_tok_is(u, j, "{")) && u->match[j] > j) {
      j = u->match[j];
      continue;
    }
    if (fgr_assign_op(u, j))
      return false;
    for (int k = 0; loose[k]; k++)
      if (fgr_tok_is(u, j, loose[k]))
        return false;
  }
  return true;
}

const fgr_func *fgr_view_arg(const fgr_unit *u, const fgr_func *f, int i,
                             int *k, int *end) {
  if (!fgr_ptr_at(u, f, i))
    return NULL;
  int name = fgr_call_arg(u, i, k, end);
  if (name < 0 || !view_shape(u, i, *end))
    return NULL;
  char buf[128];
  int len;
  const char *p = fgr_tok_text(u, name, &len);
  memcpy(buf, p, (size_t)len);
  buf[len] = 0;
  return fgr_find_func(u, buf);
}

/* Sets what (view, or view_written) on parameter k of every function
 * called name; whether any changed. */
static bool mark(fgr_unit *u, const char *name, int k, bool written) {
  bool changed = false;
  for (int f = 0; f < u->n_funcs; f++) {
    fgr_func *c = &u->funcs[f];
    if (strcmp(c->name, name) || k >= c->n_params || !viewable(&c->params[k]))
      continue;
    bool *b = written ? &c->params[k].view_written : &c->params[k].view;
    changed |= !*b;
    *b = true;
  }
  return changed;
}

bool fgr_ptr_writes(const fgr_unit *u, const fgr_func *f, int i) {
  int c, d, k, end;
  bool w;
  fgr_mwrite mw;
  const fgr_type *t = fgr_ptr_at(u, f, i);
  if (fgr_ptr_write(u, i, &c) || (fgr_ptr_deref(u, i, &d, &w) && w) ||
      (t && fgr_ptr_mwrite(u, i, t, &mw)))
    return true;
  const fgr_vlocal *v = fgr_vlocal_source(u, f, i);
  if (v)
    return v->written;
  const fgr_func *callee = fgr_view_arg(u, f, i, &k, &end);
  return callee && k < callee->n_params && callee->params[k].view_written;
}

/* The number type that tokens from a (before b) name, [const] T [const]
 * (T a C scalar, unsigned one, a RenderScript type or a typedef): the
 * token after it, T into *t; else -1. */
static int num_type(fgr_scan *s, int a, int b, const fgr_type **t) {
  fgr_unit *u = s->u;
  int i = a;
  while (i < b && fgr_tok_is(u, i, "const"))
    i++;
  if (i >= b || u->toks[i].kind != FGR_T_IDENT)
    return -1;
  static const struct { const char *n; fg_elem e; } c[] = {
    {"char", FG_I8}, {"short", FG_I16}, {"int", FG_I32}, {"long", FG_I64},
    {"float", FG_F32}, {"double", FG_F64}};
  const fgr_type *ty = NULL;
  bool uns = fgr_tok_is(u, i, "unsigned") && i + 1 < b;
  for (size_t k = 0; k < sizeof c / sizeof *c && !ty; k++)
    if (fgr_tok_is(u, i + uns, c[k].n))
      ty = fgr_scan_num_type(s, uns && c[k].e < FG_F32
                                    ? (fg_elem)(c[k].e + 1) : c[k].e, 1);
  i += uns;
  if (!ty)
    ty = fgr_scan_builtin(s, i);
  if (!ty) {
    int len;
    const char *p = fgr_tok_text(u, i, &len);
    char name[128];
    if (len >= (int)sizeof name)
      return -1;
    memcpy(name, p, (size_t)len);
    name[len] = 0;
    const fgr_named *n = fgr_scan_find_named(u, name, false);
    ty = n ? n->type : NULL;
  }
  if (!ty && fgr_tok_is(u, i, "struct") && i + 1 < b) {
    int len;
    const char *p = fgr_tok_text(u, ++i, &len);
    char name[128];
    if (len >= (int)sizeof name)
      return -1;
    memcpy(name, p, (size_t)len);
    name[len] = 0;
    const fgr_named *n = fgr_scan_find_named(u, name, true);
    ty = n ? n->type : NULL;
  }
  if (!ty || ((ty->kind != FGR_NUM || ty->elem == FG_BOOL) &&
              !field_struct(ty)))
    return -1;
  i++;
  while (i < b && fgr_tok_is(u, i, "const"))
    i++;
  *t = ty;
  return i;
}

/* Whether [a, b) is `[const] T [const] * q = ` with T a number type: q's
 * token, T into *t; else -1. */
static int view_decl(fgr_scan *s, int a, int b, const fgr_type **t) {
  fgr_unit *u = s->u;
  int i = num_type(s, a, b, t);
  if (i < 0 || i + 2 >= b || !fgr_tok_is(u, i, "*") ||
      u->toks[i + 1].kind != FGR_T_IDENT || !fgr_tok_is(u, i + 2, "="))
    return -1;
  return i + 1;
}

/* The token after a pointer cast ([const] T *) at token i (the memory
 * read as q's type, as C reads it), or i when there is none. */
static int after_cast(fgr_scan *s, int i) {
  fgr_unit *u = s->u;
  const fgr_type *t;
  int m = fgr_tok_is(u, i, "(") ? u->match[i] : -1;
  int j = m > i ? num_type(s, i + 1, m, &t) : -1;
  return j >= 0 && j + 1 == m && fgr_tok_is(u, j, "*") ? m + 1 : i;
}

/* View locals a script may have: a bound on what a hostile script makes
 * the scan cost (more are plain locals: refused where given a pointer
 * global). */
enum { MAX_VLOCALS = 256 };

/* Records the view locals of fn that are not yet: declarations at a
 * statement's start, T *q = p + e; with p a pointer (or (T *)p + e, the
 * memory read as T); whether any was. */
static bool find_vlocals(fgr_scan *s, const fgr_func *fn, int *cap) {
  fgr_unit *u = s->u;
  bool found = false;
  for (int i = fn->rparen + 2; i < fn->tok1; i++) {
    if (!fgr_tok_is(u, i - 1, "{") && !fgr_tok_is(u, i - 1, ";") &&
        !fgr_tok_is(u, i - 1, "}"))
      continue;
    int semi = i;
    while (semi < fn->tok1 && !fgr_tok_is(u, semi, ";") &&
           !fgr_tok_is(u, semi, "{") && !fgr_tok_is(u, semi, "}") &&
           !fgr_tok_is(u, semi, ","))
      semi = (fgr_tok_is(u, semi, "(") || fgr_tok_is(u, semi, "[")) &&
             u->match[semi] > semi ? u->match[semi] + 1 : semi + 1;
    const fgr_type *t;
    int q = fgr_tok_is(u, semi, ";") ? view_decl(s, i, semi, &t) : -1;
    int init = q >= 0 ? after_cast(s, q + 2) : -1;
    /* T *q = NULL; of a struct T: a view given p + e later */
    bool null = q >= 0 && field_struct(t) && semi == q + 3 &&
                (fgr_tok_is(u, q + 2, "NULL") || fgr_tok_is(u, q + 2, "0"));
    if (q < 0 || (u->vlocal_of && u->vlocal_of[q] >= 0) ||
        u->n_vlocals >= MAX_VLOCALS || init >= semi ||
        (!null && (!fgr_ptr_at(u, fn, init) || !view_shape(u, init, semi))))
      continue;
    /* its scope: to the end of the block that holds it */
    int end = fn->tok1 - 1;
    for (int j = i - 1; j > fn->rparen; j--)
      if (fgr_tok_is(u, j, "{") && u->match[j] > q) {
        end = u->match[j];
        break;
      }
    if (!u->vlocal_of) {
      u->vlocal_of = fgr_scan_zalloc(s, (size_t)u->n_toks * sizeof(int));
      for (int j = 0; j < u->n_toks; j++)
        u->vlocal_of[j] = -1;
    }
    u->vlocals = fgr_scan_grow(s, u->vlocals, cap, u->n_vlocals,
                               sizeof *u->vlocals);
    int v = u->n_vlocals++;
    u->vlocals[v] = (fgr_vlocal){q, i, init, semi, t, false, null};
    const char *name = fgr_scan_tok_str(s, q);
    for (int j = q; j < end; j++)
      if (fgr_tok_is(u, j, name) && !fgr_tok_is(u, j - 1, ".") &&
          !fgr_tok_is(u, j - 1, "->"))
        u->vlocal_of[j] = v;
    found = true;
  }
  return found;
}

void fgr_mark_views(fgr_scan *s) {
  fgr_unit *u = s->u;
  int cap = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (int f = 0; f < u->n_funcs; f++) {
      fgr_func *fn = &u->funcs[f];
      if (!fn->has_body)
        continue;
      changed |= find_vlocals(s, fn, &cap);
      for (int i = fn->rparen + 1; i < fn->tok1; i++) {
        int k, end;
        const fgr_func *callee = fgr_view_arg(u, fn, i, &k, &end);
        if (callee)
          changed |= mark(u, callee->name, k, false);
        if (!fgr_ptr_at(u, fn, i) || !fgr_ptr_writes(u, fn, i))
          continue;
        /* a view written here is written by what gave it */
        int v = u->vlocal_of ? u->vlocal_of[i] : -1;
        if (v >= 0 && i != u->vlocals[v].name_tok && !u->vlocals[v].written) {
          u->vlocals[v].written = true;
          changed = true;
        }
        for (int p = 0; p < fn->n_params && v < 0; p++)
          if (fn->params[p].view && !fn->params[p].view_written &&
              fn->params[p].name && fgr_tok_is(u, i, fn->params[p].name))
            changed |= mark(u, fn->name, p, true);
      }
    }
  }
}

const fgr_func *fgr_arg_callee(const fgr_unit *u, int i, int *k, int *end) {
  int ct = fgr_call_arg(u, i, k, end);
  if (ct < 0)
    return NULL;
  int cl;
  const char *cp = fgr_tok_text(u, ct, &cl);
  char cn[128];
  snprintf(cn, sizeof cn, "%.*s", cl, cp);
  const fgr_func *callee = fgr_find_func(u, cn);
  return callee && *k < callee->n_params ? callee : NULL;
}

bool fgr_private_arg(const fgr_unit *u, const fgr_func *f, int i, int end) {
  if (end <= i || fgr_ptr_at(u, f, i))
    return false;
  for (int j = i; j < end; j++) {
    if (u->toks[j].kind != FGR_T_IDENT || fgr_tok_is(u, j - 1, ".") ||
        fgr_tok_is(u, j - 1, "->"))
      continue;
    bool param = false;
    for (int p = 0; p < f->n_params && !param; p++)
      param = f->params[p].name && fgr_tok_is(u, j, f->params[p].name);
    int len;
    const char *t = fgr_tok_text(u, j, &len);
    char name[128];
    snprintf(name, sizeof name, "%.*s", len, t);
    if (!param && fgr_find_global(u, name) >= 0)
      return false;
  }
  return true;
}

int fgr_bad_ptr_use(const fgr_unit *u, const fgr_func *const *roots,
                    int n_roots, char *why, size_t n_why) {
  bool *seen = calloc((size_t)u->n_funcs + 1, 1);
  if (!seen)
    return -1;
  fgr_reach(u, roots, n_roots, seen);
  int found = -1;
  for (int f = 0; f < u->n_funcs && found < 0; f++) {
    const fgr_func *fn = &u->funcs[f];
    if (!seen[f])
      continue;
    for (int i = fn->rparen + 1; i < fn->tok1 && found < 0; i++) {
      int o, c, pl, d, k, end;
      bool w;
      const fgr_type *t = fgr_ptr_at(u, fn, i);
      int len;
      const char *name = fgr_tok_text(u, i, &len);
      if (t && ((u->vlocal_of && u->vlocal_of[i] >= 0 &&
                 u->vlocals[u->vlocal_of[i]].name_tok == i) ||
                fgr_vlocal_source(u, fn, i) ||
                fgr_vlocal_move(u, fn, i, &end) >= 0))
        continue;               /* T *q = p + e; q = p + e; q += e... */
      /* rsDebug("x", p) prints p's address on Android and nothing in a
       * kernel */
      if (t && fgr_tok_is(u, i - 1, ",") && fgr_tok_is(u, i + 1, ")") &&
          u->match[i + 1] > 0 &&
          fgr_tok_is(u, u->match[i + 1] - 1, "rsDebug"))
        continue;
      fgr_mwrite mw;
      if (t && fgr_ptr_mwrite(u, i, t, &mw))
        continue;               /* p->m = v, p[e].m += v... */
      if (t && (fgr_ptr_compare(u, fn, i) >= 0 ||
                fgr_ptr_compare(u, fn, i - 2) >= 0))
        continue;               /* q != r */
      /* a struct is read and set whole, never updated */
      if (t && t->kind == FGR_STRUCT &&
          ((fgr_ptr_write(u, i, &c) && !fgr_tok_is(u, c + 1, "=")) ||
           (fgr_ptr_deref(u, i, &d, &w) && w &&
            !fgr_tok_is(u, i + 1, "=")))) {
        found = i;
        snprintf(why, n_why, "the struct that '%.*s' points to is "
                 "updated whole; fieldgraph reads and sets a struct "
                 "through a pointer, and updates its number members",
                 len, name);
        break;
      }
      if (t) {
        const fgr_func *callee = fgr_view_arg(u, fn, i, &k, &end);
        /* a bool is set (to 0 or 1), not updated */
        bool upd = t->kind == FGR_BOOL &&
                   ((fgr_ptr_write(u, i, &c) && !fgr_tok_is(u, c + 1, "=")) ||
                    (fgr_ptr_deref(u, i, &d, &w) && w &&
                     !fgr_tok_is(u, i + 1, "=")));
        if (!upd && (fgr_ptr_read(u, i, &o, &c, &pl, &d) ||
                     fgr_ptr_write(u, i, &c) ||
                     fgr_ptr_deref(u, i, &d, &w) ||
                     (callee && k < callee->n_params &&
                      callee->params[k].view)))
          continue;
        found = i;
        bool global = !fgr_ptr_is_view(u, fn, i);
        if (upd) {
          snprintf(why, n_why, "pointer global '%.*s' of bool is updated; "
                   "fieldgraph sets a bool through a pointer global (p[i] = "
                   "v, *p = v) and does not update one", len, name);
          break;
        }
        snprintf(why, n_why, "%s '%.*s' is used as fieldgraph does not: "
                 "it reads p[i], *p, *(p + i), p->m and (p + i)->m of the "
                 "field bound to it, writes p[i] = v, *p = v, +=, -=, *=, "
                 "++ and --, a struct's number members p->m = v, p[i].m = v "
                 "and (p + i)->m = v (and +=, -=, *=, ++, --), and passes p "
                 "or p + i to a script function's parameter of type pointer "
                 "to a number or struct",
                 global ? "pointer global" : "pointer", len, name);
        break;
      }
      /* a view parameter given the script's own memory (a local
       * array) is given a view of it; a script global's is refused */
      const fgr_func *callee = fgr_arg_callee(u, i, &k, &end);
      if (!callee || !callee->params[k].view || fgr_private_arg(u, fn, i, end))
        continue;
      found = i;
      snprintf(why, n_why, "parameter '%s' of '%s' is given a pointer "
               "global elsewhere and a script global's memory here; "
               "fieldgraph passes a view parameter pointer globals, views "
               "and the function's own arrays", callee->params[k].name
               ? callee->params[k].name : "?", callee->name);
    }
  }
  free(seen);
  return found;
}

/* ---- pointer globals assigned on the host -------------------------------- */

/* The pointer global token i names in f (no parameter of f hiding it),
 * or -1. */
static int ptr_global_at(const fgr_unit *u, const fgr_func *f, int i) {
  if (i < 0 || i >= u->n_toks || u->toks[i].kind != FGR_T_IDENT ||
      fgr_tok_is(u, i - 1, ".") || fgr_tok_is(u, i - 1, "->"))
    return -1;
  for (int p = 0; p < f->n_params; p++)
    if (f->params[p].name && fgr_tok_is(u, i, f->params[p].name))
      return -1;
  for (int k = 0; k < u->n_globals; k++)
    if (u->globals[k].pointee && fgr_tok_is(u, i, u->globals[k].name))
      return k;
  return -1;
}

/* Whether token i starts a statement of f's body itself (not of a
 * nested block, loop or if). */
static bool top_statement(const fgr_unit *u, const fgr_func *f, int i) {
  int close = f->tok1 - 1;
  if (close <= f->rparen || !fgr_tok_is(u, close, "}") || i <= f->rparen ||
      i >= close)
    return false;
  int open = u->match[close];
  if (!fgr_tok_is(u, i - 1, "{") && !fgr_tok_is(u, i - 1, ";") &&
      !fgr_tok_is(u, i - 1, "}"))
    return false;
  for (int j = i - 1, steps = 0; j > open; j--) {
    if (++steps > MAX_WALK)
      return false;
    if ((fgr_tok_is(u, j, "}") || fgr_tok_is(u, j, ")") ||
         fgr_tok_is(u, j, "]")) && u->match[j] >= 0 && u->match[j] < j) {
      j = u->match[j];
      continue;
    }
    if (fgr_tok_is(u, j, "{") || fgr_tok_is(u, j, "(") ||
        fgr_tok_is(u, j, "["))
      return false;             /* inside a nested block */
  }
  return true;
}

/* The bytes of an element a pointer of pointee t reads. */
static int64_t pointee_bytes(const fgr_type *t) {
  if (t->kind == FGR_BOOL)
    return 1;
  if (t->kind == FGR_NUM)
    return (int64_t)fg_elem_size(t->elem) * t->width;
  return t->size;
}

int fgr_ptr_alias(const fgr_unit *u, const fgr_func *f, int i, int *dst,
                  int *src) {
  int d = ptr_global_at(u, f, i);
  if (d < 0 || !fgr_tok_is(u, i + 1, "=") || !top_statement(u, f, i))
    return -1;
  int j = i + 2;
  /* (T *) Q: a cast to a pointer, any pointee (checked below) */
  if (fgr_tok_is(u, j, "(") && u->match[j] > j &&
      fgr_tok_is(u, u->match[j] - 1, "*") &&
      u->toks[j + 1].kind == FGR_T_IDENT)
    j = u->match[j] + 1;
  int sg = -1;
  if (fgr_tok_is(u, j, "NULL") || fgr_tok_is(u, j, "0")) {
    /* unbound */
  } else if ((sg = ptr_global_at(u, f, j)) < 0) {
    return -1;
  }
  if (!fgr_tok_is(u, j + 1, ";"))
    return -1;
  *dst = d;
  *src = sg;
  return j + 1;
}

int fgr_ptr_host_use(const fgr_unit *u, const fgr_func *f,
                     const char **why, char *buf, size_t n_buf) {
  bool *seen = calloc((size_t)u->n_funcs + 1, 1);
  if (!seen)
    return -1;
  const fgr_func *roots[1] = {f};
  fgr_reach(u, roots, 1, seen);
  int found = -1;
  for (int k = 0; k < u->n_funcs && found < 0; k++) {
    const fgr_func *g = &u->funcs[k];
    if (!seen[k])
      continue;
    for (int i = g->rparen + 1; i < g->tok1 && found < 0; i++) {
      int d, sg, end = g == f ? fgr_ptr_alias(u, g, i, &d, &sg) : -1;
      if (end >= 0 && sg >= 0 &&
          pointee_bytes(u->globals[d].pointee) !=
              pointee_bytes(u->globals[sg].pointee)) {
        found = i;
        *why = buf;
        snprintf(buf, n_buf, "assigns pointer global '%s' (elements of "
                 "%lld bytes) the memory of '%s' (elements of %lld bytes); "
                 "fieldgraph aliases pointer globals whose elements have "
                 "the same size", u->globals[d].name,
                 (long long)pointee_bytes(u->globals[d].pointee),
                 u->globals[sg].name,
                 (long long)pointee_bytes(u->globals[sg].pointee));
      } else if (end >= 0) {
        i = end;                /* P = Q; P = (T *)Q; P = NULL; */
      } else if ((d = ptr_global_at(u, g, i)) >= 0) {
        found = i;
        *why = u->globals[d].host_why;
      }
    }
  }
  free(seen);
  return found;
}

int fgr_ptr_compare(const fgr_unit *u, const fgr_func *f, int i) {
  static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">=", NULL};
  bool op = false;
  for (int k = 0; ops[k] && !op; k++)
    op = fgr_tok_is(u, i + 1, ops[k]);
  if (!op || !fgr_ptr_is_view(u, f, i) || !fgr_ptr_is_view(u, f, i + 2))
    return -1;
  /* whole operands: nothing binding tighter on either side */
  static const char *const before[] = {"(", ";", ",", "&&", "||", "!", "?",
                                       ":", "=", "return", NULL};
  static const char *const after[] = {")", ";", ",", "&&", "||", "?", ":",
                                      NULL};
  bool b = false, a = false;
  for (int k = 0; before[k] && !b; k++)
    b = fgr_tok_is(u, i - 1, before[k]);
  for (int k = 0; after[k] && !a; k++)
    a = fgr_tok_is(u, i + 3, after[k]);
  return a && b ? i + 2 : -1;
}
