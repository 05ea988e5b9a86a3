/* bench/peers.h - the peers the suite compares with, each in its own C++
 * file compiled only when configure found the library: OpenCV
 * (peer_opencv.cpp, BENCH_OPENCV) and Halide JIT (peer_halide.cpp,
 * BENCH_HALIDE; never in the OpenCL program: Halide's LLVM and PoCL's
 * crash in one process).  Every function does the workload's job on the
 * caller's data, writes its result for checking and returns the median
 * seconds of bench.reps runs after bench.warmup (the Halide ones also
 * after JIT compiling, which is not timed). */
#ifndef BENCH_PEERS_H
#define BENCH_PEERS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* W1: rgba (w*h float4, sRGB in [0, 1]) to CIE L*a*b* with OpenCV's
 * cvtColor(COLOR_RGB2Lab); lab gets w*h float3 (alpha dropped). */
double peer_cv_lab(const float *rgba, float *lab, int w, int h);
/* W2: cv::blur 3x3 (replicated border), then scale, add, clamp to [0, 1]. */
double peer_cv_blur(const float *in, float *out, int w, int h, float scale,
                    float offset);
/* W3: cv::sum of n u8 / f32 values, Mat::dot of two f32 arrays,
 * cv::minMaxLoc of n u8 values (with and without locations). */
double peer_cv_sum_u8(const uint8_t *x, int64_t n, double *sum);
double peer_cv_sum_f32(const float *x, int64_t n, double *sum);
double peer_cv_dot(const float *a, const float *b, int64_t n, double *dot);
double peer_cv_minmax_u8(const uint8_t *x, int64_t n, int locate,
                         double *min, double *max, int64_t *min_at,
                         int64_t *max_at);
/* W3: cv::meanStdDev of n f32 values; *var is the square of its stddev. */
double peer_cv_meanvar_f32(const float *x, int64_t n, double *mean,
                           double *var);

/* W1 with Halide: the same formulas (pow for the cube root), fast != 0
 * uses fast_pow; parallel over rows, vectorized across pixels. */
double peer_halide_lab(const float *rgba, float *out, int w, int h,
                       int fast);
/* W2 with Halide: the same 3x3 sum, computed per tile of the output. */
double peer_halide_blur(const float *in, float *out, int w, int h,
                        float scale, float offset);
/* W11, Halide's own apps with their CPU schedules (bench/w11_apps.c):
 * apps/blur on u16 w x h, apps/unsharp on interleaved float3 with the
 * 7 weights k[0..3], apps/harris on interleaved float3 into w x h floats.
 * Edges repeat. */
double peer_halide_app_blur(const uint16_t *in, uint16_t *out, int w, int h);
double peer_halide_app_unsharp(const float *in, float *out, int w, int h,
                               const float k[4]);
double peer_halide_app_harris(const float *in, float *out, int w, int h);
/* apps/stencil_chain: `stages` 5x5 means (sum + 12) / 25 of u16 in a row,
 * every stage slid along strips of rows of the output. */
double peer_halide_app_stencil_chain(const uint16_t *in, uint16_t *out, int w,
                                     int h, int stages);
/* W4 with Halide: seconds per realize of y = x * 0.5 + 1 on w x h. */
double peer_halide_small(const float *in, float *out, int w, int h);

#ifdef __cplusplus
}
#endif

#endif
