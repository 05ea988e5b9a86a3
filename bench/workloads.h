/* bench/workloads.h - the workloads W1-W5 of the benchmark suite, each
 * timing fieldgraph (fused and unfused, full and relaxed precision) on
 * the context's backend next to a plain C loop and the peers this program
 * was built with, checking every result against the C loop and printing
 * one table; and the fieldgraph helpers they share. */
#ifndef BENCH_WORKLOADS_H
#define BENCH_WORKLOADS_H

#include "bench.h"
#include "fieldgraph.h"

/* Compiles g for ctx with the given fusion and precision; exits with the
 * context's message on failure. */
fg_program *fgb_compile(fg_context *ctx, fg_graph *g, fg_fusion fusion,
                        fg_precision precision);
/* Median seconds of fg_program_run(p, ...) (warm-up and repetitions as
 * bench); exits with the message when a run fails. */
double fgb_time(fg_context *ctx, fg_program *p, int n_in,
                const void *const *in, int n_out, void *const *out);
/* Exits with "what: <message of the graph>" when g is in error. */
void fgb_check_graph(fg_graph *g, const char *what);
/* On an OpenCL context: times g fused at precision p on a CPU-backend
 * context too (the same inputs and outputs), adds the row "fieldgraph
 * fused on the CPU backend" (ours/C against crow) and writes into the
 * note of OpenCL row ocl_row how many times the CPU backend's time it
 * takes; the error is out[0]'s (n_ref floats) against ref.  On a CPU
 * context nothing.  Returns the new row or -1. */
int fgb_cpu_row(bench_table *t, fg_context *ctx, fg_graph *g, fg_precision p,
                int ocl_row, int crow, int n_in, const void *const *in,
                int n_out, void *const *out, const float *ref, size_t n_ref);
/* On an OpenCL context: times g (one input, one output) with fusion and
 * precision p over fields kept on the device between runs (fg_buffer:
 * the input written once, fg_program_run_buffers timed, no copy to or
 * from the host), adds the row "fieldgraph [what] <fusion>, on the
 * device" (against crow) and leaves its result in out for the caller's
 * error.  On a CPU context nothing.  Returns the new row or -1. */
int fgb_device_row(bench_table *t, fg_context *ctx, fg_graph *g,
                   const char *what, fg_fusion fusion, fg_precision p,
                   int crow, const void *in, void *out);
/* On an OpenCL context: times g (one input, one output) fused at
 * precision p with its input and output in fg_host_alloc's memory
 * (page-locked on a GPU), adds the row "fieldgraph fused, pinned host
 * memory" (against crow) and leaves its result in out.  On a CPU context
 * nothing.  Returns the new row or -1. */
int fgb_pinned_row(bench_table *t, fg_context *ctx, fg_graph *g,
                   fg_precision p, int crow, const void *in, void *out);
/* The label "fieldgraph <fusion> <precision>" into buf. */
const char *fgb_label(char *buf, size_t size, const char *what,
                      fg_fusion fusion, fg_precision precision);

/* W1 sRGB -> CIE L*a*b* as 8 pointwise float4 operators, 4096 x 4096. */
void bench_w1(fg_context *ctx);
/* W2 3x3 blur -> scale -> add -> clamp on a float 4096 x 4096 field. */
void bench_w2(fg_context *ctx);
/* W3 reductions over 16M elements: sums, dot, min/max (with location). */
void bench_w3(fg_context *ctx);
/* W4 per-run latency of a 1-node 64 x 64 graph, blocking and 4 in
 * flight. */
void bench_w4(fg_context *ctx);
/* W5 compile time of the W1 graph, cold (empty kernel cache) and warm;
 * kind is the backend to make fresh contexts of. */
void bench_w5(fg_backend_kind kind);

/* W6 operator library: Gaussian blur, 3x3 convolution, bilinear resize,
 * histogram (float 4096 x 4096) and the axis-0 sum of [64, 512, 512]. */
void bench_w6(fg_context *ctx);

/* W7 the README pipeline (examples/lab.fgp) built, compiled and run per
 * image over 40 images of 40 sizes against 40 of one size, each series
 * from an empty kernel cache: the time ratio and the kernels built. */
void bench_w7(fg_backend_kind kind);

/* W8 photo operators on an RGB u8 4000 x 3000 image and its grey plane:
 * RGB to grey, Gaussian and box blurs, bilinear and area resize, flip,
 * each against OpenCV's call. */
void bench_w8(fg_context *ctx);

/* W9 more photo operators on W8's image: median, Sobel, 3x3 convolution,
 * threshold, absdiff, addWeighted, LUT, HSV, channel conversions, NV21,
 * affine warp, quarter turn, transpose, 2x2 shrink, pad and crop, each
 * against OpenCV's call. */
void bench_w9(fg_context *ctx);

/* W10 RenderScript kernels (invert, greyscale, a float4 tone curve with
 * pow, exp and log2, full and relaxed precision), each against a C loop
 * of the same formulas. */
void bench_w10(fg_context *ctx);
/* W11 Halide's apps blur (u16), unsharp and harris (float3) as a user
 * writes them, one operator per Halide Func, against Halide with the apps'
 * schedules and C loops. */
void bench_w11(fg_context *ctx);

/* The 8-node W1 graph over a size x size float4 image (shared by W1 and
 * W5). */
fg_graph *bench_w1_graph(int64_t size);

#endif
