/* bench/fgb.c - fieldgraph helpers the workloads share: compile with a
 * fusion and precision, time a program's blocking runs, labels, and on
 * OpenCL the same graph on the CPU backend for the ratio between them.  Any
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

int fgb_cpu_row(bench_table *t, fg_context *ctx, fg_graph *g, fg_precision p,
                int ocl_row, int crow, int n_in, const void *const *in,
                int n_out, void *const *out, const float *ref,
                size_t n_ref) {
  static fg_context *cpu;
  if (strcmp(fg_context_backend_name(ctx), "opencl"))
    return -1;
  if (!cpu) {
    fg_context_options o = {.backend = FG_BACKEND_CPU};
    char msg[1024];
    if (fg_context_new(&o, &cpu, msg, sizeof msg) != FG_OK) {
      fprintf(stderr, "bench: CPU backend: %s\n", msg);
      exit(1);
    }
  }
  fg_program *prog = fgb_compile(cpu, g, FG_FUSION_ON, p);
  double s = fgb_time(cpu, prog, n_in, in, n_out, out);
  fg_program_free(prog);
  char label[64];
  int r = bench_row_add(t, fgb_label(label, sizeof label, NULL, FG_FUSION_ON,
                                     p), s, t->rows[ocl_row].bytes,
                        bench_max_abs_err(out[0], ref, n_ref));
  snprintf(t->rows[r].label + strlen(t->rows[r].label),
           sizeof t->rows[r].label - strlen(t->rows[r].label), ", CPU");
  t->rows[r].c = crow;
  char *note = t->rows[ocl_row].note;
  snprintf(note + strlen(note), sizeof t->rows[ocl_row].note - strlen(note),
           "; %.2fx the CPU backend", t->rows[ocl_row].sec / s);
  return r;
}

typedef struct buffer_run {
  fg_context *ctx;
  fg_program *p;
  fg_buffer *in, *out;
} buffer_run;

static void run_buffers_once(void *arg) {
  buffer_run *a = arg;
  if (fg_program_run_buffers(a->p, 1, &a->in, 1, &a->out) != FG_OK) {
    fprintf(stderr, "bench: run over buffers: %s\n",
            fg_context_errmsg(a->ctx));
    exit(1);
  }
}

int fgb_device_row(bench_table *t, fg_context *ctx, fg_graph *g,
                   const char *what, fg_fusion fusion, fg_precision p,
                   int crow, const void *in, void *out) {
  if (strcmp(fg_context_backend_name(ctx), "opencl"))
    return -1;
  buffer_run a = {ctx, fgb_compile(ctx, g, fusion, p), NULL, NULL};
  fg_type ti = fg_program_input_type(a.p, 0);
  fg_type to = fg_program_output_type(a.p, 0);
  if (fg_buffer_new(ctx, ti, &a.in) != FG_OK ||
      fg_buffer_new(ctx, to, &a.out) != FG_OK ||
      fg_buffer_write(a.in, in, fg_type_bytes(ti)) != FG_OK) {
    fprintf(stderr, "bench: buffers: %s\n", fg_context_errmsg(ctx));
    exit(1);
  }
  double s = bench_median(run_buffers_once, &a, -1, -1);
  if (fg_buffer_read(a.out, out, fg_type_bytes(to)) != FG_OK) {
    fprintf(stderr, "bench: buffers: %s\n", fg_context_errmsg(ctx));
    exit(1);
  }
  char label[80];
  fgb_label(label, sizeof label, what, fusion, p);
  snprintf(label + strlen(label), sizeof label - strlen(label),
           ", on the device");
  int r = bench_row_add(t, label, s,
                        (double)fg_type_bytes(ti) + (double)fg_type_bytes(to),
                        0);
  t->rows[r].c = crow;
  snprintf(t->rows[r].note, sizeof t->rows[r].note, "%d kernel%s; no copy",
           fg_program_kernel_count(a.p),
           fg_program_kernel_count(a.p) == 1 ? "" : "s");
  fg_buffer_free(a.in);
  fg_buffer_free(a.out);
  fg_program_free(a.p);
  return r;
}

int fgb_pinned_row(bench_table *t, fg_context *ctx, fg_graph *g,
                   fg_precision p, int crow, const void *in, void *out) {
  if (strcmp(fg_context_backend_name(ctx), "opencl"))
    return -1;
  fg_program *prog = fgb_compile(ctx, g, FG_FUSION_ON, p);
  size_t bi = fg_type_bytes(fg_program_input_type(prog, 0));
  size_t bo = fg_type_bytes(fg_program_output_type(prog, 0));
  void *pin = fg_host_alloc(ctx, bi), *pout = fg_host_alloc(ctx, bo);
  if (!pin || !pout) {
    fprintf(stderr, "bench: fg_host_alloc: %s\n", fg_context_errmsg(ctx));
    exit(1);
  }
  memcpy(pin, in, bi);
  double s = fgb_time(ctx, prog, 1, (const void *[]){pin}, 1,
                      (void *[]){pout});
  memcpy(out, pout, bo);
  char label[80];
  fgb_label(label, sizeof label, NULL, FG_FUSION_ON, p);
  snprintf(label + strlen(label), sizeof label - strlen(label),
           ", pinned host memory");
  int r = bench_row_add(t, label, s, (double)bi + (double)bo, 0);
  t->rows[r].c = crow;
  snprintf(t->rows[r].note, sizeof t->rows[r].note, "fg_host_alloc");
  fg_host_free(ctx, pin);
  fg_host_free(ctx, pout);
  fg_program_free(prog);
  return r;
}

const char *fgb_label(char *buf, size_t size, const char *what,
                      fg_fusion fusion, fg_precision precision) {
  snprintf(buf, size, "fieldgraph %s%s%s", what ? what : "",
           what ? " " : "", fusion == FG_FUSION_OFF ? "unfused" : "fused");
  if (precision == FG_PRECISION_RELAXED)
    snprintf(buf + strlen(buf), size - strlen(buf), " relaxed");
  return buf;
}
