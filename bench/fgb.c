/* bench/fgb.c - fieldgraph helpers the workloads share: compile with a
 * fusion and precision, time a program's blocking runs, labels.  Any
 * failure of the library ends the benchmark with its message: a number
 * for a run that failed would be a lie. */
#include "workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fg_program *fgb_compile(fg_context *ctx, fg_graph *g, fg_fusion fusion,
                        fg_precision precision) {
  fg_compile_options o = {.precision = precision, .fusion = fusion};
  fg_program *p;
  if (fg_compile(ctx, g, &o, &p) != FG_OK) {
    fprintf(stderr, "bench: compile: %s\n", fg_context_errmsg(ctx));
    exit(1);
  }
  return p;
}

typedef struct run_args {
  fg_context *ctx;
  fg_program *p;
  int n_in, n_out;
  const void *const *in;
  void *const *out;
} run_args;

static void run_once(void *ctx) {
  run_args *a = ctx;
  if (fg_program_run(a->p, a->n_in, a->in, a->n_out, a->out) != FG_OK) {
    fprintf(stderr, "bench: run: %s\n", fg_context_errmsg(a->ctx));
    exit(1);
  }
}

double fgb_time(fg_context *ctx, fg_program *p, int n_in,
                const void *const *in, int n_out, void *const *out) {
  run_args a = {ctx, p, n_in, n_out, in, out};
  return bench_median(run_once, &a, -1, -1);
}

void fgb_check_graph(fg_graph *g, const char *what) {
  if (fg_graph_status(g) != FG_OK) {
    fprintf(stderr, "bench: %s: %s\n", what, fg_graph_errmsg(g));
    exit(1);
  }
}

const char *fgb_label(char *buf, size_t size, const char *what,
                      fg_fusion fusion, fg_precision precision) {
  snprintf(buf, size, "fieldgraph %s%s%s", what ? what : "",
           what ? " " : "", fusion == FG_FUSION_OFF ? "unfused" : "fused");
  if (precision == FG_PRECISION_RELAXED)
    snprintf(buf + strlen(buf), size - strlen(buf), " relaxed");
  return buf;
}
