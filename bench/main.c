/* bench/main.c - the benchmark suite's programs: bench_cpu (the CPU
 * backend, with the Halide and OpenCV peers when built with them) and
 * bench_opencl (the OpenCL backend; never Halide, whose LLVM crashes next
 * to PoCL's).  Each prints W0 (its own memory-bandwidth limit) and then
 * W1-W11, or the workloads named on the command line:
 *
 *   bench_cpu [W1 W2 W3 W4 W5 W6 W7 W8 W9 W10 W11]   BENCH_REPS=5 BENCH_WARMUP=1
 *
 * BENCH_THREADS sets the threads of the C loops and of the library;
 * BENCH_CLOCK=cpu times CPU seconds instead of wall seconds (with
 * BENCH_THREADS=1 HL_NUM_THREADS=1: comparable on a loaded machine).
 *
 * BENCH_BACKEND (1 CPU, 2 OpenCL) is set per program by Makefile.am.
 */
#include "workloads.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#ifndef BENCH_BACKEND
#define BENCH_BACKEND FG_BACKEND_CPU
#endif

static int wanted(int argc, char **argv, const char *w) {
  if (argc < 2)
    return 1;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], w))
      return 1;
  return 0;
}

int main(int argc, char **argv) {
  bench_init();
  fg_backend_kind kind = BENCH_BACKEND;
  /* the library's workers: as many as the C loops' (BENCH_THREADS) */
  fg_context_options o = {.backend = kind, .threads = bench.threads};
  fg_context *ctx;
  char err[1024];
  if (fg_context_new(&o, &ctx, err, sizeof err) != FG_OK) {
    printf("%s backend not available: %s\n",
           kind == FG_BACKEND_OPENCL ? "OpenCL" : "CPU", err);
    return 0;
  }
  struct utsname u;
  uname(&u);
  char date[32];
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
  printf("==== fieldgraph benchmarks, %s backend: %s\n",
         fg_context_backend_name(ctx), fg_context_device(ctx));
  printf("     %s, %s %s, %d threads for C loops, peers:%s%s\n", date,
         u.machine, u.release, bench.threads,
#ifdef BENCH_HALIDE
         " Halide",
#else
         "",
#endif
#ifdef BENCH_OPENCV
         " OpenCV"
#else
         ""
#endif
  );
  printf("     columns: time; GB/s = least bytes read + written / time; "
         "/W0cp = that over W0 copy;\n     ratios = this row's time over "
         "the fused/unfused, C loop, Halide, OpenCV row's (< 1: faster)\n");
  if (wanted(argc, argv, "W0") || argc < 2)
    bench_w0();
  if (wanted(argc, argv, "W1"))
    bench_w1(ctx);
  if (wanted(argc, argv, "W2"))
    bench_w2(ctx);
  if (wanted(argc, argv, "W3"))
    bench_w3(ctx);
  if (wanted(argc, argv, "W4"))
    bench_w4(ctx);
  if (wanted(argc, argv, "W5"))
    bench_w5(kind);
  if (wanted(argc, argv, "W6"))
    bench_w6(ctx);
  if (wanted(argc, argv, "W7"))
    bench_w7(kind);
  if (wanted(argc, argv, "W8"))
    bench_w8(ctx);
  if (wanted(argc, argv, "W9"))
    bench_w9(ctx);
  if (wanted(argc, argv, "W10"))
    bench_w10(ctx);
  if (wanted(argc, argv, "W11"))
    bench_w11(ctx);
  bench_targets_print(kind == FG_BACKEND_OPENCL ? 2 : 1);
  fg_context_free(ctx);
  return 0;
}
