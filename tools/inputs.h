/* tools/inputs.h - the input list of `fieldgraph run` (inputs.c). */
#ifndef FG_TOOLS_INPUTS_H
#define FG_TOOLS_INPUTS_H

#include "tools/fgt.h"

#include <stdint.h>
#include <stdio.h>

typedef struct fgt_item {
  char *path;          /* as found: the item's id in reports */
  char *rel;           /* relative to the directory it was found under */
  int unreadable_dir;  /* a directory that could not be listed */
  long index;          /* position in the whole list, kept by --shard:
                          what {index} expands to */
} fgt_item;

typedef struct fgt_inputs {
  fgt_item *items;
  int n, cap;
  int follow_symlinks;   /* set before adding: walks follow links to
                            directories (each directory is listed once) */
  FILE *log;             /* set before adding: where a walk says what it
                            skips (FIFOs, devices, links), NULL: nowhere */
} fgt_inputs;

/* Adds a command-line input: a file, a directory (the regular files
 * under it, recursively, sorted; glob filters file names, NULL: PNG,
 * JPEG and PNM), a list file "@list.txt" or "-" (stdin), one path a line.
 * 0, or -1 with a message: a path that does not exist, a directory
 * holding no image, a list that cannot be read, no memory.  An
 * unreadable directory under one is an input (unreadable_dir) that
 * fails when run. */
int fgt_inputs_add(fgt_inputs *in, const char *arg, const char *glob,
                   char *err, size_t errlen);
/* Keeps shard k of n (1 <= k <= n): the items whose path hashes to k - 1
 * modulo n, so a shard's inputs do not depend on the list's order. */
void fgt_inputs_shard(fgt_inputs *in, int k, int n);
uint64_t fgt_hash_id(const char *s);
void fgt_inputs_free(fgt_inputs *in);

#endif
