/* bench/peers_ops.h - OpenCV peers of W6, the operator library's
 * workloads (bench/w6_ops.c), in bench/peer_opencv_ops.cpp (built with
 * BENCH_OPENCV).  Each does the job on the caller's float data, writes
 * its result and returns the median seconds as bench_median does. */
#ifndef BENCH_PEERS_OPS_H
#define BENCH_PEERS_OPS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cv::GaussianBlur, kernel 2 radius + 1, sigma, replicated border. */
double peer_cv_gaussian(const float *in, float *out, int w, int h, double sigma,
                        int radius);
/* cv::filter2D with a 3x3 kernel (correlation), replicated border. */
double peer_cv_filter3x3(const float *in, float *out, int w, int h,
                         const float *k);
/* cv::resize INTER_LINEAR from w x h to ow x oh. */
double peer_cv_resize(const float *in, float *out, int w, int h, int ow,
                      int oh);
/* cv::calcHist of n floats, bins over [lo, hi). */
double peer_cv_hist(const float *in, int64_t n, int bins, float lo, float hi,
                    float *counts);
/* cv::reduce REDUCE_SUM over the rows of an n x m matrix. */
double peer_cv_sum_rows(const float *in, int n, int m, float *out);

#ifdef __cplusplus
}
#endif

#endif
