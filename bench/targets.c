/* bench/targets.c - the performance targets, judged from the tables this
 * run printed: each target names a workload's table (by its title's first
 * word), the row it judges and either a row to divide it by or a limit
 * in seconds or a share of W0's copy bandwidth.  bench_table_print hands
 * every table here; bench_targets_print, at the end of the run, prints
 * one line per target whose table ran: the ratio, the limit, met or not,
 * or why it was not measured (a peer not built in).  Rows are found by
 * the start of their label, so a label's detail (sizes, counts) may
 * change.  Only ratios within this run: never a test, never a failure. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_TABLES 16

/* How a target's measure is formed. */
typedef enum target_kind {
  VS_ROW,      /* row's time over another row's time */
  SECONDS,     /* row's time in seconds */
  COPY_SHARE   /* row's bandwidth over W0's copy bandwidth (at least) */
} target_kind;

typedef struct target {
  int backend;          /* 0: both programs, 1: bench_cpu, 2: bench_opencl */
  const char *table;    /* the title's first word: "W1" */
  const char *row;      /* the judged row's label, or its start */
  target_kind kind;
  const char *other;    /* VS_ROW: the row it is divided by */
  double limit;         /* at most this (COPY_SHARE: at least this) */
  const char *what;     /* printed */
} target;

static const target targets[] = {
    {1, "W1", "fieldgraph fused", VS_ROW, "Halide pow", 1.0,
     "W1 fused / Halide pow"},
    {1, "W1", "fieldgraph fused relaxed", VS_ROW, "Halide fast_pow", 1.0,
     "W1 fused relaxed / Halide fast_pow"},
    {1, "W1", "fieldgraph fused", VS_ROW, "fieldgraph unfused", 1.0 / 3,
     "W1 fused / unfused"},
    {2, "W1", "fieldgraph fused", VS_ROW, "fieldgraph unfused", 0.5,
     "W1 fused / unfused"},
    {2, "W1", "fieldgraph fused", VS_ROW, "fieldgraph fused, CPU", 2.0,
     "W1 fused / the CPU backend's"},
    {2, "W1", "fieldgraph fused, on the device", VS_ROW,
     "fieldgraph unfused, on the device", 0.5,
     "W1 on the device: fused / unfused"},
    {2, "W1", "fieldgraph fused, on the device", VS_ROW,
     "fieldgraph fused, CPU", 2.0, "W1 on the device / the CPU backend's"},
    {1, "W2", "fieldgraph fused", VS_ROW, "Halide", 1.2,
     "W2 fused / Halide tiled"},
    {2, "W2", "fieldgraph fused", VS_ROW, "fieldgraph unfused", 0.5,
     "W2 fused / unfused"},
    {2, "W2", "fieldgraph fused", VS_ROW, "fieldgraph fused, CPU", 2.0,
     "W2 fused / the CPU backend's"},
    {2, "W2", "fieldgraph fused, on the device", VS_ROW,
     "fieldgraph unfused, on the device", 0.5,
     "W2 on the device: fused / unfused"},
    {2, "W2", "fieldgraph fused, on the device", VS_ROW,
     "fieldgraph fused, CPU", 2.0, "W2 on the device / the CPU backend's"},
    {0, "W3", "fieldgraph sum f32", COPY_SHARE, NULL, 0.8,
     "W3 sum f32 bandwidth / W0 copy"},
    {1, "W3", "fieldgraph dot f32 fused", VS_ROW,
     "dot f32: C loop", 1.1, "W3 dot f32 fused / C loop"},
    {0, "W3", "min+max u8: fieldgraph fg_reduce_loc", VS_ROW,
     "min+max u8: cv::minMaxLoc with loc", 1.0,
     "W3 min+max with locations / cv::minMaxLoc"},
    {0, "W4", "fieldgraph fg_program_run (blocking)", SECONDS, NULL, 5e-6,
     "W4 blocking run (s)"},
    {0, "W5", "fused cold", SECONDS, NULL, 0.150, "W5 fused cold compile (s)"},
    {0, "W5", "fused warm (new context)", SECONDS, NULL, 0.002,
     "W5 fused warm compile (s)"},
    {0, "W6", "resize fieldgraph", VS_ROW, "resize OpenCV", 1.0,
     "W6 resize / OpenCV"},
    {0, "W6", "hist fieldgraph", VS_ROW, "hist C loop", 1.0,
     "W6 histogram / C loop"},
    {0, "W6", "axis0 sum fieldgraph", VS_ROW, "axis0 sum OpenCV", 1.0,
     "W6 axis-0 sum / OpenCV"},
    {0, "W7", "40 sizes", VS_ROW, "one size", 1.2,
     "W7 40 sizes / one size"},
};

static bench_table tables[MAX_TABLES];
static int n_tables;

void bench_targets_note(const bench_table *t) {
  if (n_tables < MAX_TABLES)
    tables[n_tables++] = *t;
}

/* The table whose title starts with name and a space, or NULL. */
static const bench_table *find_table(const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < n_tables; i++)
    if (!strncmp(tables[i].title, name, n) && tables[i].title[n] == ' ')
      return &tables[i];
  return NULL;
}

/* The row whose label is label, else the first that starts with it. */
static const bench_row *find_row(const bench_table *t, const char *label) {
  for (int i = 0; i < t->n; i++)
    if (!strcmp(t->rows[i].label, label))
      return &t->rows[i];
  size_t n = strlen(label);
  for (int i = 0; i < t->n; i++)
    if (!strncmp(t->rows[i].label, label, n))
      return &t->rows[i];
  return NULL;
}

void bench_targets_print(int backend) {
  int printed = 0;
  for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
    const target *g = &targets[i];
    const bench_table *t = find_table(g->table);
    if (!t || (g->backend && g->backend != backend))
      continue;
    if (!printed++)
      printf("\nTargets (this run's ratios; see the README's Speed section)"
             "\n  %-46s %10s %10s  %s\n", "target", "measured", "limit",
             "verdict");
    const bench_row *r = find_row(t, g->row);
    const bench_row *o = g->kind == VS_ROW ? find_row(t, g->other) : NULL;
    double v = NAN;
    if (r && !isnan(r->sec) && r->sec > 0) {
      if (g->kind == SECONDS)
        v = r->sec;
      else if (g->kind == COPY_SHARE && r->bytes > 0 && bench.w0_copy > 0)
        v = r->bytes / r->sec / bench.w0_copy;
      else if (o && !isnan(o->sec) && o->sec > 0)
        v = r->sec / o->sec;
    }
    printf("  %-46s", g->what);
    if (isnan(v)) {
      printf(" %10s %10s  not measured (%s)\n", "-", "-",
             !r ? "no such row"
             : g->kind == COPY_SHARE ? "run W0 first"
                                     : "no peer row");
      continue;
    }
    int met = g->kind == COPY_SHARE ? v >= g->limit : v <= g->limit;
    const char *cmp = g->kind == COPY_SHARE ? ">=" : "<=";
    if (g->kind == SECONDS)
      printf(" %10.3g %s%8.3g  %s\n", v, cmp, g->limit,
             met ? "met" : "NOT MET");
    else
      printf(" %9.2fx %s%7.2fx  %s\n", v, cmp, g->limit,
             met ? "met" : "NOT MET");
  }
  fflush(stdout);
}
