/* tools/lexer.c - tokens of a pipeline file (names, numbers, strings,
 * punctuation, newlines outside brackets; '#' starts a comment) and the
 * diagnostics every stage prints: "file:line:col: error: ...", the source
 * line and a caret under the column.
 */
#include "tools/fgt.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fgt_diag(char *buf, size_t size, const fgt_source *src, fgt_pos pos,
              const char *fmt, ...) {
  if (!size)
    return;
  int n = snprintf(buf, size, "%s:%d:%d: error: ", src->path, pos.line,
                   pos.col);
  if (n < 0 || (size_t)n >= size)
    return;
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(buf + n, size - (size_t)n, fmt, ap);
  va_end(ap);
  if (m < 0 || (size_t)(n + m) >= size)
    return;
  n += m;
  /* the line itself */
  const char *p = src->text;
  for (int l = 1; l < pos.line && *p; p++)
    if (*p == '\n')
      l++;
  const char *e = strchr(p, '\n');
  int len = e ? (int)(e - p) : (int)strlen(p);
  m = snprintf(buf + n, size - (size_t)n, "\n    %.*s\n    ", len, p);
  if (m < 0 || (size_t)(n + m) >= size)
    return;
  n += m;
  /* caret: tabs copied so it lines up under the column */
  for (int c = 1; c < pos.col && (size_t)n + 2 < size; c++)
    buf[n++] = (c - 1 < len && p[c - 1] == '\t') ? '\t' : ' ';
  if ((size_t)n + 2 < size) {
    buf[n++] = '^';
    buf[n] = '\0';
  }
}

void fgt_lex_init(fgt_lexer *lx, const fgt_source *src) {
  lx->src = src;
  lx->p = src->text;
  lx->pos = (fgt_pos){1, 1};
  lx->depth = 0;
}

static void advance(fgt_lexer *lx) {
  if (*lx->p == '\n') {
    lx->pos.line++;
    lx->pos.col = 1;
  } else {
    lx->pos.col++;
  }
  lx->p++;
}

fgt_tok fgt_lex_next(fgt_lexer *lx) {
  for (;;) {
    char c = *lx->p;
    if (c == ' ' || c == '\t' || c == '\r' || (c == '\n' && lx->depth > 0)) {
      advance(lx);
    } else if (c == '#') {
      while (*lx->p && *lx->p != '\n')
        advance(lx);
    } else if (c == '\\' && lx->p[1] == '\n') {
      advance(lx);       /* a line continued */
      advance(lx);
    } else {
      break;
    }
  }
  fgt_tok t = {.pos = lx->pos, .start = lx->p, .len = 1};
  char c = *lx->p;
  if (!c) {
    t.kind = FGT_T_EOF;
    t.len = 0;
    return t;
  }
  if (c == '\n') {
    t.kind = FGT_T_NEWLINE;
    advance(lx);
    return t;
  }
  if (isalpha((unsigned char)c) || c == '_') {
    while (isalnum((unsigned char)*lx->p) || *lx->p == '_')
      advance(lx);
    t.kind = FGT_T_NAME;
    t.len = (int)(lx->p - t.start);
    return t;
  }
  if (isdigit((unsigned char)c) ||
      (c == '.' && isdigit((unsigned char)lx->p[1]))) {
    char *end;
    t.number = strtod(lx->p, &end);
    t.is_integer = 1;
    for (const char *q = lx->p; q < end; q++)
      if (*q == '.' || *q == 'e' || *q == 'E' || *q == 'x' || *q == 'X')
        t.is_integer = 0;
    while (lx->p < end)
      advance(lx);
    t.kind = FGT_T_NUMBER;
    t.len = (int)(lx->p - t.start);
    if (isalpha((unsigned char)*lx->p) || *lx->p == '_') {
      t.kind = FGT_T_ERROR;
      t.start = lx->p;
      t.pos = lx->pos;
    }
    return t;
  }
  if (c == '"') {
    advance(lx);
    t.start = lx->p;
    while (*lx->p && *lx->p != '"' && *lx->p != '\n')
      advance(lx);
    if (*lx->p != '"') {
      t.kind = FGT_T_ERROR;
      t.start = NULL;     /* unterminated string */
      return t;
    }
    t.kind = FGT_T_STRING;
    t.len = (int)(lx->p - t.start);
    advance(lx);
    return t;
  }
  if (strchr("()[],.=+-*/%^;", c)) {
    if (c == '(' || c == '[')
      lx->depth++;
    else if ((c == ')' || c == ']') && lx->depth > 0)
      lx->depth--;
    t.kind = FGT_T_PUNCT;
    t.punct = c;
    advance(lx);
    return t;
  }
  t.kind = FGT_T_ERROR;
  return t;
}
