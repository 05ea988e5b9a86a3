/* tools/suggest.c - the closest known name to a misspelt one (tools/
 * suggest.h): optimal string alignment distance (Levenshtein with adjacent
 * transpositions), case-insensitive, accepted when small against the
 * word's length, as compilers' and git's "did you mean" do. */
#include "tools/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Names longer than this are never suggested (nor compared). */
#define MAX_LEN 64

static int lower(int c) { return tolower((unsigned char)c); }

static int distance(const char *a, size_t n, const char *b, size_t m) {
  int d[MAX_LEN + 1][MAX_LEN + 1];
  for (size_t i = 0; i <= n; i++)
    d[i][0] = (int)i;
  for (size_t j = 0; j <= m; j++)
    d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      int cost = lower(a[i - 1]) != lower(b[j - 1]);
      int v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v)
        v = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < v)
        v = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1]) && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[n][m];
}

void fgt_suggest_begin(fgt_suggest *s, const char *word, size_t len) {
  *s = (fgt_suggest){.word = word, .word_len = len, .best_dist = 1 << 30};
}

void fgt_suggest_offer(fgt_suggest *s, const char *name, size_t len) {
  if (!name || !s->word || len == 0 || len > MAX_LEN || s->word_len == 0 ||
      s->word_len > MAX_LEN)
    return;
  if (len == s->word_len && !strncmp(name, s->word, len))
    return;   /* the word itself is no suggestion */
  int d = distance(s->word, s->word_len, name, len);
  /* a typo: none for one or two letters, 1 edit for short words, 2 from 6
   * letters, 3 from 12 */
  int limit = s->word_len >= 12 ? 3 : s->word_len >= 6 ? 2
              : s->word_len >= 3 ? 1 : 0;
  if (d <= limit && d < s->best_dist) {
    s->best = name;
    s->best_len = len;
    s->best_dist = d;
  }
}

const char *fgt_suggest_text(const fgt_suggest *s, char *buf, size_t size) {
  if (!s->best) {
    if (size)
      buf[0] = 0;
    return buf;
  }
  snprintf(buf, size, " (did you mean '%.*s'?)", (int)s->best_len, s->best);
  return buf;
}
