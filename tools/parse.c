/* tools/parse.c - the pipeline file's grammar, by recursive descent:
 *
 *   file      := { [stmt] (NEWLINE | ';') }
 *   stmt      := NAME {',' NAME} '=' expr      named values (several:
 *                                              an invokable's results)
 *              | NAME '.' NAME '=' expr        a script global
 *              | expr                          a call: save(...), report(...)
 *   expr      := term { ('+' | '-') term }
 *   term      := unary { ('*' | '/' | '%') unary }
 *   unary     := '-' unary | power
 *   power     := postfix [ '^' unary ]
 *   postfix   := primary { '.' NAME | '(' [arg {',' arg}] ')' }
 *   arg       := [NAME '='] expr
 *   primary   := NUMBER | STRING | NAME | '(' expr ')'
 *              | '[' expr {',' expr} ']'
 *
 * The first error stops the parse with a diagnostic naming what was
 * expected (file:line:col, the line, a caret).
 */
#include "tools/fgt.h"
#include "util/fs.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct parser {
  fgt_lexer lx;
  fgt_tok tok;
  const fgt_source *src;
  char *err;
  size_t errlen;
  int failed;
  int depth;            /* unary() calls open: every recursion passes there */
} parser;

static void next(parser *p) { p->tok = fgt_lex_next(&p->lx); }

/* What the current token is, for "expected X, found Y". */
static void describe(const fgt_tok *t, char *buf, size_t size) {
  switch (t->kind) {
  case FGT_T_EOF: snprintf(buf, size, "end of file"); break;
  case FGT_T_NEWLINE: snprintf(buf, size, "end of line"); break;
  case FGT_T_NAME: snprintf(buf, size, "'%.*s'", t->len, t->start); break;
  case FGT_T_NUMBER: snprintf(buf, size, "number %.*s", t->len, t->start);
    break;
  case FGT_T_STRING: snprintf(buf, size, "a string"); break;
  case FGT_T_PUNCT: snprintf(buf, size, "'%c'", t->punct); break;
  default: snprintf(buf, size, "'%c'", t->start ? *t->start : '"'); break;
  }
}

static void fail_expected(parser *p, const char *what) {
  if (p->failed)
    return;
  p->failed = 1;
  if (p->tok.kind == FGT_T_ERROR && !p->tok.start) {
    fgt_diag(p->err, p->errlen, p->src, p->tok.pos, "unterminated string "
             "(expected '\"' before the end of the line)");
    return;
  }
  char found[64];
  describe(&p->tok, found, sizeof found);
  fgt_diag(p->err, p->errlen, p->src, p->tok.pos, "expected %s, found %s",
           what, found);
}

static int is_punct(const parser *p, char c) {
  return p->tok.kind == FGT_T_PUNCT && p->tok.punct == c;
}

static char *dup_tok(const fgt_tok *t) {
  char *s = malloc((size_t)t->len + 1);
  if (s) {
    memcpy(s, t->start, (size_t)t->len);
    s[t->len] = '\0';
  }
  return s;
}

static fgt_node *node(parser *p, fgt_node_kind kind, fgt_pos pos) {
  fgt_node *n = calloc(1, sizeof *n);
  if (!n) {
    p->failed = 1;
    snprintf(p->err, p->errlen, "%s: out of memory", p->src->path);
    return NULL;
  }
  n->kind = kind;
  n->pos = pos;
  n->height = 1;
  return n;
}

/* Fails unless an expression d levels deep is allowed (FGT_MAX_DEPTH):
 * a file of "((((..." or "1 + 1 + ..." must not overflow the stack of
 * the parser, the evaluator or node_free.  Returns 0 or -1. */
static int check_depth(parser *p, int d, fgt_pos pos) {
  if (d <= FGT_MAX_DEPTH)
    return 0;
  if (!p->failed) {
    p->failed = 1;
    fgt_diag(p->err, p->errlen, p->src, pos, "expression nested too deeply "
             "(more than %d levels)", FGT_MAX_DEPTH);
  }
  return -1;
}

/* Makes child an operand of parent as far as heights go. */
static void grow(parser *p, fgt_node *parent, const fgt_node *child) {
  if (parent && child && child->height >= parent->height) {
    parent->height = child->height + 1;
    check_depth(p, parent->height, parent->pos);
  }
}

static void node_free(fgt_node *n) {
  if (!n)
    return;
  free(n->text);
  node_free(n->a);
  node_free(n->b);
  for (int i = 0; i < n->n; i++) {
    node_free(n->items[i]);
    if (n->arg_names)
      free(n->arg_names[i]);
  }
  free(n->items);
  free(n->arg_names);
  free(n->arg_pos);
  free(n);
}

static fgt_node *expr(parser *p);

/* Appends item (and its argument name) to a VECTOR or CALL node. */
static int push(parser *p, fgt_node *n, fgt_node *item, char *name,
                fgt_pos pos) {
  fgt_node **items = realloc(n->items, sizeof *items * (size_t)(n->n + 1));
  char **names = realloc(n->arg_names, sizeof *names * (size_t)(n->n + 1));
  fgt_pos *at = realloc(n->arg_pos, sizeof *at * (size_t)(n->n + 1));
  if (items)
    n->items = items;
  if (names)
    n->arg_names = names;
  if (at)
    n->arg_pos = at;
  if (!items || !names || !at) {
    node_free(item);
    free(name);
    p->failed = 1;
    return -1;
  }
  grow(p, n, item);
  n->items[n->n] = item;
  n->arg_names[n->n] = name;
  n->arg_pos[n->n] = pos;
  n->n++;
  return 0;
}

static fgt_node *primary(parser *p) {
  fgt_tok t = p->tok;
  fgt_node *n = NULL;
  switch (t.kind) {
  case FGT_T_NUMBER:
    if (!isfinite(t.number)) {  /* strtod made 1e999 infinity */
      p->failed = 1;
      fgt_diag(p->err, p->errlen, p->src, t.pos, "number %.*s is out of "
               "range (expected a finite number, at most %g)", t.len,
               t.start, DBL_MAX);
      return NULL;
    }
    if ((n = node(p, FGT_N_NUMBER, t.pos))) {
      n->number = t.number;
      n->is_integer = t.is_integer;
    }
    next(p);
    return n;
  case FGT_T_STRING:
  case FGT_T_NAME:
    if ((n = node(p, t.kind == FGT_T_NAME ? FGT_N_NAME : FGT_N_STRING,
                  t.pos)))
      n->text = dup_tok(&t);
    next(p);
    return n;
  case FGT_T_PUNCT:
    if (t.punct == '(') {
      next(p);
      n = expr(p);
      if (!p->failed && !is_punct(p, ')'))
        fail_expected(p, "')'");
      next(p);
      return n;
    }
    if (t.punct == '[') {
      next(p);
      n = node(p, FGT_N_VECTOR, t.pos);
      while (n && !p->failed) {
        fgt_node *item = expr(p);
        if (p->failed) {
          node_free(item);    /* what the failed item built so far */
          break;
        }
        if (push(p, n, item, NULL, item->pos))
          break;
        if (is_punct(p, ']'))
          break;
        if (!is_punct(p, ',')) {
          fail_expected(p, "',' or ']' in a vector");
          break;
        }
        next(p);
      }
      /* a value holds 1-4 numbers (eval.c); longer lists are number
       * list arguments (a kernel, a matrix) */
      if (!p->failed && (n->n < 1 || n->n > FGT_MAX_FLOATS)) {
        p->failed = 1;
        fgt_diag(p->err, p->errlen, p->src, t.pos, "expected a vector of "
                 "1 to %d numbers, found %d", FGT_MAX_FLOATS, n->n);
      }
      next(p);
      return n;
    }
    break;
  default:
    break;
  }
  fail_expected(p, "a value (a name, a number, a string, '(' or '[')");
  return NULL;
}

static fgt_node *postfix(parser *p) {
  fgt_node *n = primary(p);
  while (!p->failed) {
    fgt_pos pos = p->tok.pos;
    if (is_punct(p, '.')) {
      next(p);
      if (p->tok.kind != FGT_T_NAME) {
        fail_expected(p, "a name after '.'");
        break;
      }
      fgt_node *m = node(p, FGT_N_MEMBER, p->tok.pos);
      if (!m)
        break;
      m->a = n;
      grow(p, m, n);
      m->text = dup_tok(&p->tok);
      n = m;
      next(p);
    } else if (is_punct(p, '(')) {
      fgt_node *c = node(p, FGT_N_CALL, n ? n->pos : pos);
      if (!c)
        break;
      c->a = n;
      grow(p, c, c->a);
      n = c;
      fgt_pos open = p->tok.pos;
      next(p);
      while (!p->failed && !is_punct(p, ')')) {
        char *name = NULL;
        fgt_pos at = p->tok.pos;
        if (p->tok.kind == FGT_T_NAME) {
          /* a named argument is NAME '=' (peek with a copy of the lexer) */
          fgt_lexer save = p->lx;
          fgt_tok name_tok = p->tok;
          next(p);
          if (is_punct(p, '=')) {
            name = dup_tok(&name_tok);
            next(p);
          } else {
            p->lx = save;
            p->tok = name_tok;
          }
        }
        fgt_node *arg = expr(p);
        if (p->failed) {
          node_free(arg);
          free(name);
          break;
        }
        if (!name && c->n && c->arg_names[c->n - 1]) {
          p->failed = 1;
          fgt_diag(p->err, p->errlen, p->src, arg->pos, "expected a named "
                   "argument (NAME = value): positional arguments come "
                   "first");
          node_free(arg);
          break;
        }
        if (push(p, c, arg, name, at))
          break;
        if (is_punct(p, ',')) {
          next(p);
        } else if (!is_punct(p, ')')) {
          char what[96];
          if (p->tok.pos.line != open.line)
            snprintf(what, sizeof what, "',' or ')' after an argument (the "
                     "'(' at %d:%d is not closed)", open.line, open.col);
          else
            snprintf(what, sizeof what, "',' or ')' after an argument");
          fail_expected(p, what);
        }
      }
      if (!p->failed)
        next(p);
    } else {
      break;
    }
  }
  return n;
}

static fgt_node *binary(parser *p, char op, fgt_pos pos, fgt_node *a,
                        fgt_node *b) {
  fgt_node *n = node(p, FGT_N_BINARY, pos);
  if (!n) {
    node_free(a);
    node_free(b);
    return NULL;
  }
  n->op = op;
  n->a = a;
  n->b = b;
  grow(p, n, a);
  grow(p, n, b);
  return n;
}

static fgt_node *unary(parser *p);

static fgt_node *power(parser *p) {
  fgt_node *n = postfix(p);
  if (!p->failed && is_punct(p, '^')) {
    fgt_pos pos = p->tok.pos;
    next(p);
    n = binary(p, '^', pos, n, unary(p));
  }
  return n;
}

static fgt_node *unary(parser *p) {
  fgt_node *n = NULL;
  if (check_depth(p, ++p->depth, p->tok.pos)) {
    /* the caller sees the failure */
  } else if (is_punct(p, '-')) {
    fgt_pos pos = p->tok.pos;
    next(p);
    n = node(p, FGT_N_UNARY, pos);
    if (n) {
      n->op = '-';
      n->a = unary(p);
      grow(p, n, n->a);
    }
  } else {
    n = power(p);
  }
  p->depth--;
  return n;
}

static fgt_node *term(parser *p) {
  fgt_node *n = unary(p);
  while (!p->failed &&
         (is_punct(p, '*') || is_punct(p, '/') || is_punct(p, '%'))) {
    char op = p->tok.punct;
    fgt_pos pos = p->tok.pos;
    next(p);
    n = binary(p, op, pos, n, unary(p));
  }
  return n;
}

static fgt_node *expr(parser *p) {
  fgt_node *n = term(p);
  while (!p->failed && (is_punct(p, '+') || is_punct(p, '-'))) {
    char op = p->tok.punct;
    fgt_pos pos = p->tok.pos;
    next(p);
    n = binary(p, op, pos, n, term(p));
  }
  return n;
}

/* Adds a statement to pl; -1 when memory runs out. */
static int add_stmt(parser *p, fgt_pipeline *pl, const fgt_stmt *s) {
  fgt_stmt *v = realloc(pl->stmts, sizeof *v * (size_t)(pl->n_stmts + 1));
  if (!v) {
    p->failed = 1;
    return -1;
  }
  pl->stmts = v;
  pl->stmts[pl->n_stmts++] = *s;
  return 0;
}

static void stmt_free(fgt_stmt *s) {
  for (int i = 0; i < s->n_names; i++)
    free(s->names[i]);
  free(s->names);
  free(s->name_pos);
  node_free(s->expr);
}

/* One statement starting at the current token. */
static void statement(parser *p, fgt_pipeline *pl) {
  fgt_stmt s = {.pos = p->tok.pos};
  if (p->tok.kind == FGT_T_NAME) {
    /* NAME {',' NAME} '=' or NAME '.' NAME '=': look ahead on a copy */
    fgt_lexer save = p->lx;
    fgt_tok first = p->tok;
    fgt_tok names[FGT_MAX_IO];
    int n = 0, set = 0;
    names[n++] = p->tok;
    next(p);
    if (is_punct(p, '.')) {
      next(p);
      if (p->tok.kind == FGT_T_NAME) {
        names[n++] = p->tok;
        next(p);
        set = is_punct(p, '=');
      }
    } else {
      while (is_punct(p, ',')) {
        if (n == FGT_MAX_IO) {
          p->failed = 1;
          fgt_diag(p->err, p->errlen, p->src, p->tok.pos, "expected at most "
                   "%d names on the left of '=', found more", FGT_MAX_IO);
          return;
        }
        next(p);
        if (p->tok.kind != FGT_T_NAME) {
          fail_expected(p, "a name in the list of results");
          return;
        }
        names[n++] = p->tok;
        next(p);
      }
      if (n > 1 && !is_punct(p, '=')) {
        fail_expected(p, "'=' after the list of names");
        return;
      }
    }
    if (is_punct(p, '=') && (set || n == 1 || !is_punct(p, '.'))) {
      s.kind = set ? FGT_S_SET : FGT_S_ASSIGN;
      s.n_names = n;
      s.names = calloc((size_t)n, sizeof *s.names);
      s.name_pos = calloc((size_t)n, sizeof *s.name_pos);
      if (!s.names || !s.name_pos) {
        p->failed = 1;
        stmt_free(&s);
        return;
      }
      for (int i = 0; i < n; i++) {
        s.names[i] = dup_tok(&names[i]);
        s.name_pos[i] = names[i].pos;
      }
      next(p);
      s.expr = expr(p);
    } else {
      p->lx = save;
      p->tok = first;
    }
  }
  if (!s.expr && !p->failed) {
    s.kind = FGT_S_EXPR;
    s.expr = expr(p);
    if (!p->failed && s.expr && s.expr->kind != FGT_N_CALL) {
      p->failed = 1;
      fgt_diag(p->err, p->errlen, p->src, s.expr->pos, "expected a call "
               "(save(...), report(...)) or NAME = value; a value alone "
               "does nothing");
    }
  }
  if (!p->failed && p->tok.kind != FGT_T_NEWLINE && p->tok.kind != FGT_T_EOF
      && !is_punct(p, ';'))
    fail_expected(p, "end of line after the statement");
  if (p->failed || add_stmt(p, pl, &s))
    stmt_free(&s);
}

fgt_pipeline *fgt_pipeline_parse(const char *path, const char *text,
                                 char *err, size_t errlen) {
  fgt_pipeline *pl = calloc(1, sizeof *pl);
  if (!pl || !(pl->src.path = strdup(path)) ||
      !(pl->src.text = strdup(text))) {
    snprintf(err, errlen, "%s: out of memory", path);
    fgt_pipeline_free(pl);
    return NULL;
  }
  pl->src.len = strlen(text);
  parser p = {.src = &pl->src, .err = err, .errlen = errlen};
  fgt_lex_init(&p.lx, &pl->src);
  next(&p);
  while (!p.failed && p.tok.kind != FGT_T_EOF) {
    if (p.tok.kind == FGT_T_NEWLINE || is_punct(&p, ';')) {
      next(&p);
      continue;
    }
    if (p.tok.kind == FGT_T_ERROR) {
      fail_expected(&p, "a statement");
      break;
    }
    statement(&p, pl);
  }
  if (p.failed) {
    fgt_pipeline_free(pl);
    return NULL;
  }
  return pl;
}

fgt_pipeline *fgt_pipeline_load(const char *path, char *err, size_t errlen) {
  size_t n;
  char *text = fgu_read_file(path, (size_t)1 << 24, &n);
  if (!text) {
    /* why, for the message: fgu_read_file says only that it failed */
    struct stat st;
    int e = stat(path, &st) ? errno : 0;
    const char *why = e ? strerror(e)
      : S_ISDIR(st.st_mode) ? "found a folder"
      : S_ISFIFO(st.st_mode) ? "found a FIFO"
      : S_ISSOCK(st.st_mode) ? "found a socket"
      : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "found a device"
      : !S_ISREG(st.st_mode) ? "found no regular file"
      : st.st_size > (off_t)1 << 24 ? "found a file over 16 MiB"
      : access(path, R_OK) ? strerror(EACCES) : "read error";
    snprintf(err, errlen, "%s: cannot read the pipeline file (expected a "
             "text file; %s)", path, why);
    return NULL;
  }
  if (strlen(text) != n) {
    snprintf(err, errlen, "%s: not a text file (NUL byte)", path);
    free(text);
    return NULL;
  }
  fgt_pipeline *pl = fgt_pipeline_parse(path, text, err, errlen);
  free(text);
  return pl;
}

void fgt_pipeline_free(fgt_pipeline *p) {
  if (!p)
    return;
  for (int i = 0; i < p->n_stmts; i++)
    stmt_free(&p->stmts[i]);
  free(p->stmts);
  free(p->src.path);
  free(p->src.text);
  free(p);
}
