/* rs/lex.c - the RenderScript tokenizer: C99 tokens with their line
 * and column in the user's file, comments and line splices dropped, and
 * each preprocessor directive bracketed by FGR_T_PP_BEGIN / FGR_T_PP_END
 * so the scanner can read it as one unit.  The scanner (scan.c) and the
 * emitter (emit_hooks.c) work on these tokens only. */
#include "rs_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lexer {
  const char *file, *s;
  size_t n, i;
  int line, col;
  fgr_tok *t;
  int nt, cap;
  char *err;
  size_t errlen;
} lexer;

static int peek(lexer *L, size_t k) {
  return L->i + k < L->n ? (unsigned char)L->s[L->i + k] : -1;
}

static void advance(lexer *L) {
  if (L->i < L->n && L->s[L->i] == '\n') {
    L->line++;
    L->col = 1;
  } else {
    L->col++;
  }
  L->i++;
}

/* Skips a backslash-newline splice at the cursor; true if it did. */
static bool splice(lexer *L) {
  if (peek(L, 0) == '\\' && peek(L, 1) == '\n') {
    advance(L);
    advance(L);
    return true;
  }
  if (peek(L, 0) == '\\' && peek(L, 1) == '\r' && peek(L, 2) == '\n') {
    advance(L);
    advance(L);
    advance(L);
    return true;
  }
  return false;
}

static bool push(lexer *L, fgr_tok_kind kind, size_t off, size_t len,
                 int line, int col, bool space) {
  if (L->nt == L->cap) {
    int cap = L->cap ? L->cap * 2 : 256;
    fgr_tok *t = realloc(L->t, (size_t)cap * sizeof *t);
    if (!t) {
      snprintf(L->err, L->errlen, "%s: out of memory", L->file);
      return false;
    }
    L->t = t;
    L->cap = cap;
  }
  L->t[L->nt++] = (fgr_tok){kind, (int)off, (int)len, line, col, space};
  return true;
}

static bool fail(lexer *L, int line, int col, const char *msg) {
  snprintf(L->err, L->errlen, "%s:%d:%d: %s", L->file, line, col, msg);
  return false;
}

/* Multi-character punctuators, longest first. */
static const char *const puncts[] = {
  "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
  "!=", "&&", "||", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##",
  NULL};

bool fgr_lex(const char *file, const char *text, size_t n, fgr_tok **out,
             int *n_out, char *err, size_t errlen) {
  lexer L = {.file = file, .s = text, .n = n, .line = 1, .col = 1,
             .err = err, .errlen = errlen};
  bool in_pp = false, line_start = true, space = false;
  *out = NULL;
  *n_out = 0;
  while (L.i < L.n) {
    int c = peek(&L, 0);
    if (splice(&L)) {
      space = true;
      continue;
    }
    if (c == '\n') {
      if (in_pp && !push(&L, FGR_T_PP_END, L.i, 0, L.line, L.col, space))
        goto fail;
      in_pp = false;
      line_start = true;
      space = true;
      advance(&L);
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      space = true;
      advance(&L);
      continue;
    }
    if (c == '/' && peek(&L, 1) == '/') {
      while (L.i < L.n && peek(&L, 0) != '\n')
        if (!splice(&L))
          advance(&L);
      space = true;
      continue;
    }
    if (c == '/' && peek(&L, 1) == '*') {
      int line = L.line, col = L.col;
      advance(&L);
      advance(&L);
      while (L.i < L.n && !(peek(&L, 0) == '*' && peek(&L, 1) == '/'))
        advance(&L);
      if (L.i >= L.n)
        return fail(&L, line, col, "unterminated /* comment"), free(L.t),
               false;
      advance(&L);
      advance(&L);
      space = true;
      continue;
    }
    int line = L.line, col = L.col;
    size_t start = L.i;
    if (c == '#' && line_start && !in_pp) {
      advance(&L);
      if (!push(&L, FGR_T_PP_BEGIN, start, 1, line, col, space))
        goto fail;
      in_pp = true;
      line_start = false;
      space = false;
      continue;
    }
    line_start = false;
    fgr_tok_kind kind;
    if (isalpha(c) || c == '_') {
      while (isalnum(peek(&L, 0)) || peek(&L, 0) == '_')
        advance(&L);
      kind = FGR_T_IDENT;
    } else if (isdigit(c) || (c == '.' && isdigit(peek(&L, 1)))) {
      /* a pp-number: digits, letters, '.', and signs after e/E/p/P */
      for (;;) {
        int d = peek(&L, 0);
        if ((d == '+' || d == '-') && L.i > start &&
            strchr("eEpP", L.s[L.i - 1]) &&
            !(L.i - start >= 2 && (L.s[start + 1] == 'x' ||
                                   L.s[start + 1] == 'X') &&
              (L.s[L.i - 1] == 'e' || L.s[L.i - 1] == 'E')))
          advance(&L);
        else if (isalnum(d) || d == '.' || d == '_')
          advance(&L);
        else
          break;
      }
      kind = FGR_T_NUMBER;
    } else if (c == '"' || c == '\'') {
      advance(&L);
      while (L.i < L.n && peek(&L, 0) != c && peek(&L, 0) != '\n') {
        if (peek(&L, 0) == '\\')
          advance(&L);
        advance(&L);
      }
      if (peek(&L, 0) != c)
        return fail(&L, line, col, c == '"' ? "unterminated string literal"
                                            : "unterminated character "
                                              "constant"),
               free(L.t), false;
      advance(&L);
      kind = c == '"' ? FGR_T_STRING : FGR_T_CHAR;
    } else {
      size_t len = 1;
      for (int p = 0; puncts[p]; p++) {
        size_t pl = strlen(puncts[p]);
        if (L.i + pl <= L.n && !memcmp(L.s + L.i, puncts[p], pl)) {
          len = pl;
          break;
        }
      }
      if (len == 1 && !strchr("{}[]()<>;:,.?+-*/%&|^!~=#", c)) {
        char msg[96];
        if (isprint(c))
          snprintf(msg, sizeof msg, "stray '%c' in program", c);
        else
          snprintf(msg, sizeof msg, "stray byte 0x%02x in program", c);
        fail(&L, line, col, msg);
        free(L.t);
        return false;
      }
      for (size_t k = 0; k < len; k++)
        advance(&L);
      kind = FGR_T_PUNCT;
    }
    if (!push(&L, kind, start, L.i - start, line, col, space))
      goto fail;
    space = false;
  }
  if (in_pp && !push(&L, FGR_T_PP_END, L.i, 0, L.line, L.col, space))
    goto fail;
  if (!push(&L, FGR_T_EOF, L.i, 0, L.line, L.col, true))
    goto fail;
  *out = L.t;
  *n_out = L.nt;
  return true;
fail:
  free(L.t);
  return false;
}
