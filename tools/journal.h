/* tools/journal.h - the results journal of an output folder: one JSON line
 * per input done ({"id": ..., "results": {...}}) appended to
 * OUTDIR/.fieldgraph-results.jsonl, so that a resumed run
 * (--skip-existing) reports the results of the inputs it skips as the run
 * that made their outputs recorded them. */
#ifndef FG_TOOLS_JOURNAL_H
#define FG_TOOLS_JOURNAL_H

#include <stddef.h>

#define FGT_JOURNAL_NAME ".fieldgraph-results.jsonl"

typedef struct fgt_journal_entry {
  char *id;        /* the input's id (its path as given) */
  char *results;   /* the JSON object recorded for it */
  size_t seq;      /* its line's place in the file */
} fgt_journal_entry;

typedef struct fgt_journal {
  char path[4200];
  int fd;                     /* open for appending, or -1 */
  fgt_journal_entry *e;       /* what earlier runs recorded, by id */
  size_t n;
} fgt_journal;

/* Opens outdir's journal for appending and, when load, reads what earlier
 * runs recorded (the last line of an id wins; malformed lines are
 * ignored).  0, or -1 with errno when it cannot be opened (the batch then
 * runs without one). */
int fgt_journal_open(fgt_journal *j, const char *outdir, int load);
/* Appends one input's line with a single write (O_APPEND: lines of
 * concurrent shards do not interleave on a local file system). */
void fgt_journal_add(fgt_journal *j, const char *id, const char *results);
/* The results recorded for id, or NULL. */
const char *fgt_journal_find(const fgt_journal *j, const char *id);
void fgt_journal_close(fgt_journal *j);

#endif
