/* bench/bench.h - the benchmark suite's harness: timing (median of N runs
 * after warm-up), a parallel for over the machine's cores, the W0
 * memory-bandwidth probe, result checks and the tables every workload
 * prints.  Shared by the C workloads and the C++ peer code (OpenCV,
 * Halide), so it is plain C with C linkage.  A benchmark, never a test:
 * nothing here fails because a machine is slow; wrong results do fail.
 */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- settings, from the environment (read once by bench_init) ---------- */
typedef struct bench_cfg {
  int reps;      /* timed runs per measurement: $BENCH_REPS, default 5 */
  int warmup;    /* untimed runs before them: $BENCH_WARMUP, default 1 */
  int threads;   /* threads of the C loops: $BENCH_THREADS, else one per
                    online core */
  double w0_copy;   /* W0 copy bandwidth in bytes/s, once measured */
  int cpu_clock; /* $BENCH_CLOCK=cpu: times are the process's CPU time
                    (steadier on a loaded machine; meant with
                    BENCH_THREADS=1 and HL_NUM_THREADS=1) */
} bench_cfg;
extern bench_cfg bench;

/* Reads the settings; call first. */
void bench_init(void);
/* Monotonic seconds (CPU seconds of the process with BENCH_CLOCK=cpu). */
double bench_now(void);

/* Median seconds of bench.reps calls of fn(ctx) after bench.warmup
 * untimed ones (reps and warmup as given when >= 0, else bench's). */
typedef void (*bench_fn)(void *ctx);
double bench_median(bench_fn fn, void *ctx, int warmup, int reps);

/* Calls fn(ctx, begin, end, i) on bench.threads threads (a pool started on
 * first use; the caller is thread 0) over contiguous slices of [0, n), slice
 * i on thread i, and waits for all of them.  One caller at a time. */
typedef void (*bench_range_fn)(void *ctx, int64_t begin, int64_t end,
                               int thread);
void bench_parallel(int64_t n, bench_range_fn fn, void *ctx);

/* Allocates n bytes aligned to 64 and touched (pages faulted in); exits
 * when out of memory. */
void *bench_alloc(size_t n);

/* Largest |a[i] - b[i]| over n floats (NaN where one is NaN and the other
 * is not counts as infinity). */
double bench_max_abs_err(const float *a, const float *b, size_t n);
/* Same, for n pixels of a with stride sa floats against b with stride sb,
 * comparing the first `channels` of each. */
double bench_max_abs_err_strided(const float *a, int sa, const float *b,
                                 int sb, size_t n, int channels);

/* FNV-1a hash of n bytes: a fingerprint of an output printed in a row's
 * note, so that two builds' outputs can be compared bit for bit. */
uint32_t bench_hash(const void *p, size_t n);

/* ---- tables ------------------------------------------------------------- */
#define BENCH_MAX_ROWS 40

/* One line of a table.  Ratios are this row's time over the time of the
 * row named by the index (-1: none, printed as a dash). */
typedef struct bench_row {
  char label[48];
  double sec;       /* median seconds per run; NaN: not measured */
  double bytes;     /* least bytes one run must read + write; 0 when the
                       workload is not a streaming one */
  double err;       /* max abs error against the workload's reference (the C
                     * loop; W1: its formulas in double); NaN: not checked */
  int unfused;      /* row of the same variant unfused (fused/unfused) */
  int c;            /* row of the C loop (ours/C) */
  int halide;       /* row of the Halide peer (ours/Halide) */
  int opencv;       /* row of the OpenCV peer (ours/OpenCV) */
  char note[64];
} bench_row;

typedef struct bench_table {
  char title[160];
  double scale;       /* seconds to the printed unit: 1e3 ms, 1e6 us */
  const char *unit;   /* "ms" or "us" */
  bench_row rows[BENCH_MAX_ROWS];
  int n;
} bench_table;

/* Starts a table; the printed time unit is ms unless set otherwise. */
void bench_table_init(bench_table *t, const char *title);
/* Appends a row and returns its index; every comparison index -1. */
int bench_row_add(bench_table *t, const char *label, double sec,
                  double bytes, double err);
/* Prints the table with its ratio columns to stdout. */
void bench_table_print(const bench_table *t);

/* ---- targets (bench/targets.c) ----------------------------------------- */
/* Keeps a copy of a printed table (bench_table_print calls it). */
void bench_targets_note(const bench_table *t);
/* Prints each performance target whose workload ran in this program
 * (backend 1: bench_cpu, 2: bench_opencl): the measured ratio, its limit,
 * met or not. */
void bench_targets_print(int backend);

/* ---- W0: the memory-bandwidth limit ------------------------------------- */
/* Measures multithreaded copy (b = a) and triad (a = b + s * c) over
 * float arrays far larger than the caches, prints the W0 table and
 * stores copy's bandwidth in bench.w0_copy. */
void bench_w0(void);

#ifdef __cplusplus
}
#endif

#endif
