/* rs/lex.c - the RenderScript tokenizer: C99 tokens of the preprocessed
 * script (pp.c) with their file, line and column in the user's sources,
 * comments and line splices dropped, and each remaining directive
 * (#pragma) bracketed by FGR_T_PP_BEGIN / FGR_T_PP_END so the scanner
 * can read it as one unit.  clang's line markers ("# 12 \"x.rsh\" 2") set
 * the file and line; columns, which clang -E keeps only for a line's first
 * token, come from matching each token against its source line.  The
 * scanner (scan.c) and the emitter (emit_hooks.c) work on these tokens
 * only. */
#include "rs_impl.h"
#include "util/fs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A source file, for columns: its text and where its lines start. */
typedef struct srcfile {
  const char *name;
  char *owned;                  /* read from disk (NULL: the main text) */
  const char *text;
  size_t len;
  int *starts, n_lines;         /* offsets of lines 1 .. n_lines */
  bool tried;
} srcfile;

typedef struct lexer {
  const char *file, *s;
  size_t n, i;
  int line, col;                /* physical, in the preprocessed text */
  fgr_tok *t;
  int nt, cap;
  char *err;
  size_t errlen;
  /* the user's position: file index and line = physical line + delta */
  int map_file, delta;
  srcfile *files;
  int n_files;
  fgu_arena *arena;
  int cur_file, cur_line, cur_at;  /* the realigning cursor */
  const fgr_lex_in *in;
} lexer;

static int file_index(lexer *L, const char *name, size_t n) {
  for (int k = 0; k < L->n_files; k++)
    if (strlen(L->files[k].name) == n && !memcmp(L->files[k].name, name, n))
      return k;
  srcfile *f = realloc(L->files, (size_t)(L->n_files + 1) * sizeof *f);
  char *nm = fgu_arena_alloc(L->arena, n + 1);
  if (!f || !nm) {
    if (f)
      L->files = f;
    return -1;
  }
  memcpy(nm, name, n);
  L->files = f;
  L->files[L->n_files] = (srcfile){.name = nm};
  return L->n_files++;
}

/* Loads file k's text and line starts (once); false when unavailable. */
static bool load_lines(lexer *L, int k) {
  srcfile *f = &L->files[k];
  if (f->tried)
    return f->starts != NULL;
  f->tried = true;
  if (k == 0) {
    f->text = L->in->src;
    f->len = L->in->src_len;
  } else {
    f->owned = fgu_read_file(f->name, (size_t)64 << 20, &f->len);
    f->text = f->owned;
  }
  if (!f->text)
    return false;
  int n = 1;
  for (size_t i = 0; i < f->len; i++)
    n += f->text[i] == '\n';
  f->starts = malloc((size_t)(n + 1) * sizeof *f->starts);
  if (!f->starts)
    return false;
  f->starts[0] = 0;
  f->n_lines = 1;
  for (size_t i = 0; i < f->len; i++)
    if (f->text[i] == '\n')
      f->starts[f->n_lines++] = (int)(i + 1);
  f->starts[f->n_lines] = (int)f->len + 1;
  return true;
}

/* The column of a token (spelling p, n bytes) on line `line` of file k:
 * its next occurrence after the previous token of that line in the
 * source, or col (clang's) when it is not there (a macro's expansion). */
static int realign(lexer *L, int k, int line, const char *p, size_t n,
                   int col) {
  if (k != L->cur_file || line != L->cur_line) {
    L->cur_file = k;
    L->cur_line = line;
    L->cur_at = 0;
  }
  if (k < 0 || !load_lines(L, k) || line < 1 || line > L->files[k].n_lines)
    return col;
  const srcfile *f = &L->files[k];
  const char *s = f->text + f->starts[line - 1];
  int len = f->starts[line] - 1 - f->starts[line - 1];
  for (int at = L->cur_at; at + (int)n <= len; at++)
    if (!memcmp(s + at, p, n)) {
      L->cur_at = at + (int)n;
      return at + 1;
    }
  return col;
}

/* A line marker "# N "file" flags..." (or "#line N "file"") at the
 * cursor, just after the '#'; consumes the line.  False when the
 * directive is something else (the cursor is then unchanged). */
static bool line_marker(lexer *L) {
  size_t j = L->i;
  while (j < L->n && (L->s[j] == ' ' || L->s[j] == '\t'))
    j++;
  if (j + 4 < L->n && !memcmp(L->s + j, "line", 4) &&
      (L->s[j + 4] == ' ' || L->s[j + 4] == '\t')) {
    j += 4;
    while (j < L->n && (L->s[j] == ' ' || L->s[j] == '\t'))
      j++;
  }
  if (j >= L->n || !isdigit((unsigned char)L->s[j]))
    return false;
  long num = 0;
  while (j < L->n && isdigit((unsigned char)L->s[j])) {
    /* a line number past 2^30 is kept at it: never overflowing, nor
     * when the lines after it are counted on */
    if (num < (1L << 30))
      num = num * 10 + (L->s[j] - '0');
    if (num > (1L << 30))
      num = 1L << 30;
    j++;
  }
  while (j < L->n && (L->s[j] == ' ' || L->s[j] == '\t'))
    j++;
  if (j < L->n && L->s[j] == '"') {
    char name[4096];
    size_t n = 0;
    j++;
    while (j < L->n && L->s[j] != '"' && L->s[j] != '\n') {
      if (L->s[j] == '\\' && j + 1 < L->n)
        j++;
      if (n + 1 < sizeof name)
        name[n++] = L->s[j];
      j++;
    }
    L->map_file = file_index(L, name, n);
  }
  while (j < L->n && L->s[j] != '\n')
    j++;
  /* the next physical line is line num */
  L->delta = (int)num - (L->line + 1);
  while (L->i < j)
    L->i++;
  return true;
}

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
  int uline = line + L->delta;
  int ucol = kind == FGR_T_PP_END || kind == FGR_T_EOF
                 ? col
                 : realign(L, L->map_file, uline, L->s + off, len, col);
  L->t[L->nt++] = (fgr_tok){kind, (int)off, (int)len, uline, ucol,
                            L->map_file < 0 ? 0 : L->map_file, space};
  return true;
}

static bool fail(lexer *L, int line, int col, const char *msg) {
  const char *file = L->map_file >= 0 ? L->files[L->map_file].name : L->file;
  snprintf(L->err, L->errlen, "%s:%d:%d: %s", file, line + L->delta, col,
           msg);
  return false;
}

/* Multi-character punctuators, longest first. */
static const char *const puncts[] = {
  "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
  "!=", "&&", "||", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##",
  NULL};

static bool lex(lexer *L0);

bool fgr_lex(const fgr_lex_in *in, fgr_tok **out, int *n_out,
             const char ***files, int *n_files, char *err, size_t errlen) {
  lexer L = {.file = in->file, .s = in->text, .n = in->len, .line = 1,
             .col = 1, .err = err, .errlen = errlen, .arena = in->arena,
             .in = in, .cur_file = -1};
  *out = NULL;
  *n_out = 0;
  L.map_file = file_index(&L, in->file, strlen(in->file));
  bool ok = false;
  if (L.map_file != 0)
    snprintf(err, errlen, "%s: out of memory", in->file);
  else
    ok = lex(&L);
  const char **names = ok ? fgu_arena_alloc(in->arena, (size_t)L.n_files *
                                            sizeof *names) : NULL;
  if (ok && !names) {
    snprintf(err, errlen, "%s: out of memory", in->file);
    ok = false;
  }
  for (int k = 0; k < L.n_files; k++) {
    if (names)
      names[k] = L.files[k].name;
    free(L.files[k].owned);
    free(L.files[k].starts);
  }
  free(L.files);
  if (!ok) {
    free(L.t);
    return false;
  }
  *out = L.t;
  *n_out = L.nt;
  *files = names;
  *n_files = L.n_files;
  return true;
}

static bool lex(lexer *L0) {
  lexer L = *L0;
  bool in_pp = false, line_start = true, space = false;
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
        return fail(&L, line, col, "unterminated /* comment"), *L0 = L,
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
      if (line_marker(&L))
        continue;
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
               *L0 = L, false;
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
        *L0 = L;
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
  *L0 = L;
  return true;
fail:
  *L0 = L;
  return false;
}
