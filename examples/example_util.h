/* examples/example_util.h - the compile-and-run boilerplate the small
 * example programs share: one context, one program, one synchronous run,
 * errors printed with the name of the example. */
#ifndef FG_EXAMPLE_UTIL_H
#define FG_EXAMPLE_UTIL_H

#include "fieldgraph.h"

#include <stdio.h>

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
