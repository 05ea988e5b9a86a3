/* tools/suggest.h - "did you mean": the known name closest to a misspelt
 * one, for the command's messages about unknown operators, parameters,
 * template fields, names and script globals. */
#ifndef FG_TOOLS_SUGGEST_H
#define FG_TOOLS_SUGGEST_H

#include <stddef.h>

/* Collects candidates and keeps the closest to word. */
typedef struct fgt_suggest {
  const char *word;
  size_t word_len;      /* compare only this many bytes of word */
  const char *best;     /* NULL: nothing close enough yet */
  size_t best_len;
  int best_dist;
} fgt_suggest;

/* Starts a search for names close to the first len bytes of word. */
void fgt_suggest_begin(fgt_suggest *s, const char *word, size_t len);
/* Offers the first len bytes of name as a candidate. */
void fgt_suggest_offer(fgt_suggest *s, const char *name, size_t len);
/* " (did you mean 'NAME'?)" for the closest candidate within a distance
 * that a typo makes (transpositions, one or two letters for longer
 * words), or "" when none is; buf holds the text. */
const char *fgt_suggest_text(const fgt_suggest *s, char *buf, size_t size);

#endif
