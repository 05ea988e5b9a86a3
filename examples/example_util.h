/* examples/example_util.h - the boilerplate the small example programs
 * share: one context, one program, one synchronous run, errors printed with
 * the name of the example; the output directory and file names of the
 * programs that write images. */
#ifndef FG_EXAMPLE_UTIL_H
#define FG_EXAMPLE_UTIL_H

#include "fieldgraph.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The file name of path without its directory and extension
 * ("data/chelsea.png" gives "chelsea"). */
static inline void example_stem(const char *path, char *out, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(out, size, "%s", base);
  char *dot = strrchr(out, '.');
  if (dot && dot != out)
    *dot = 0;
}

/* Reads an optional leading "-o OUTDIR" (default "out") into *outdir;
 * returns the index of the first argument after it. */
static inline int example_outdir(int argc, char **argv,
                                 const char **outdir) {
  *outdir = "out";
  if (argc > 2 && !strcmp(argv[1], "-o")) {
    *outdir = argv[2];
    return 3;
  }
  return 1;
}

/* Creates directory dir unless it exists; 0 on success, else prints why
 * (prefixed with who) and returns 1. */
static inline int example_mkdir(const char *who, const char *dir) {
  if (mkdir(dir, 0755) == 0 || errno == EEXIST)
    return 0;
  fprintf(stderr, "%s: cannot create %s: %s\n", who, dir, strerror(errno));
  return 1;
}

/* Compiles g on the default backend and runs it once; 0 on success, else
 * prints why (prefixed with who) and returns 1. */
static inline int example_run(const char *who, fg_graph *g, int n_in,
                              const void *const *in, int n_out,
                              void *const *out) {
  fg_context *ctx = NULL;
  fg_program *prog = NULL;
  char err[512];
  int rc = 1;
  if (fg_graph_status(g) != FG_OK)
    fprintf(stderr, "%s: %s\n", who, fg_graph_errmsg(g));
  else if (fg_context_new(NULL, &ctx, err, sizeof err) != FG_OK)
    fprintf(stderr, "%s: %s\n", who, err);
  else if (fg_compile(ctx, g, NULL, &prog) != FG_OK ||
           fg_program_run(prog, n_in, in, n_out, out) != FG_OK)
    fprintf(stderr, "%s: %s\n", who, fg_context_errmsg(ctx));
  else
    rc = 0;
  fg_program_free(prog);
  fg_context_free(ctx);
  return rc;
}

#endif
