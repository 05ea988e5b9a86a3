/* bench/peers_ops.h - OpenCV peers of W6, W8 and W9, the operator library's
 * workloads (bench/w6_ops.c on floats, bench/w8_photo.c and
 * bench/w9_photo_more.c on u8 images), in
 * bench/peer_opencv_ops.cpp (built with BENCH_OPENCV).  Each does the job
 * on the caller's data, writes its result and returns the median seconds
 * as bench_median does. */
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

/* W8: u8 images of w x h pixels of ch interleaved channels. */
/* cv::cvtColor COLOR_RGB2GRAY. */
double peer_cv_u8_rgb_to_grey(const uint8_t *in, uint8_t *out, int w, int h);
/* cv::GaussianBlur, kernel 2 radius + 1, sigma, BORDER_REFLECT_101. */
double peer_cv_u8_gaussian(const uint8_t *in, uint8_t *out, int w, int h,
                           int ch, double sigma, int radius);
/* cv::blur, kernel 2 radius + 1 square, BORDER_REFLECT_101. */
double peer_cv_u8_box(const uint8_t *in, uint8_t *out, int w, int h, int ch,
                      int radius);
/* cv::resize to ow x oh, INTER_AREA when area, else INTER_LINEAR. */
double peer_cv_u8_resize(const uint8_t *in, uint8_t *out, int w, int h,
                         int ch, int ow, int oh, int area);
/* cv::flip around the vertical axis (mirrors each row). */
double peer_cv_u8_flip(const uint8_t *in, uint8_t *out, int w, int h, int ch);
/* Mat::convertTo(CV_8U, alpha, beta): saturate(round(alpha x + beta)). */
double peer_cv_u8_scale_offset(const uint8_t *in, uint8_t *out, int w, int h,
                               int ch, double alpha, double beta);
/* Mat::convertTo(CV_32F, 1 / 255.0): u8 to f32 in [0, 1]. */
double peer_cv_u8_to_unit(const uint8_t *in, float *out, int w, int h, int ch);

/* W9: more operators, u8 images of w x h pixels of ch channels. */
/* cv::medianBlur, 3 x 3. */
double peer_cv_u8_median3(const uint8_t *in, uint8_t *out, int w, int h,
                          int ch);
/* cv::Sobel dx 1, 3 x 3, to CV_32F, BORDER_REFLECT_101, of a grey plane. */
double peer_cv_u8_sobel_dx(const uint8_t *in, float *out, int w, int h);
/* cv::filter2D to CV_8U with a 3 x 3 kernel, BORDER_REFLECT_101. */
double peer_cv_u8_filter3x3(const uint8_t *in, uint8_t *out, int w, int h,
                            int ch, const float *k);
/* cv::threshold THRESH_BINARY to 0 / 1 (x > t). */
double peer_cv_u8_threshold(const uint8_t *in, uint8_t *out, int w, int h,
                            int ch, double t);
/* cv::absdiff of two images. */
double peer_cv_u8_abs_diff(const uint8_t *a, const uint8_t *b, uint8_t *out,
                           int w, int h, int ch);
/* cv::addWeighted(a, alpha, b, beta, 0). */
double peer_cv_u8_add_weighted(const uint8_t *a, const uint8_t *b,
                               uint8_t *out, int w, int h, int ch,
                               double alpha, double beta);
/* cv::LUT through one 256-entry u8 table for every channel. */
double peer_cv_u8_lut(const uint8_t *in, const uint8_t *table, uint8_t *out,
                      int w, int h, int ch);
/* cv::cvtColor COLOR_RGB2HSV of f32 RGB in [0, 1] (H in degrees). */
double peer_cv_u8_rgb_to_hsv_f32(const float *in, float *out, int w, int h);
/* cv::cvtColor COLOR_GRAY2RGB. */
double peer_cv_u8_grey_to_rgb(const uint8_t *in, uint8_t *out, int w, int h);
/* cv::cvtColor COLOR_RGB2BGR. */
double peer_cv_u8_rgb_to_bgr(const uint8_t *in, uint8_t *out, int w, int h);
/* cv::cvtColor COLOR_YUV2RGBA_NV21 of a w x h frame. */
double peer_cv_u8_nv21_to_rgba(const uint8_t *in, uint8_t *out, int w, int h);
/* cv::warpAffine INTER_LINEAR | WARP_INVERSE_MAP with m (2 x 3, row-major),
 * BORDER_CONSTANT 0, to w x h. */
double peer_cv_u8_warp_affine(const uint8_t *in, uint8_t *out, int w, int h,
                              int ch, const double m[6]);
/* cv::rotate ROTATE_90_CLOCKWISE (out is h x w). */
double peer_cv_u8_rotate90(const uint8_t *in, uint8_t *out, int w, int h,
                           int ch);
/* cv::transpose (out is h x w). */
double peer_cv_u8_transpose(const uint8_t *in, uint8_t *out, int w, int h,
                            int ch);
/* cv::copyMakeBorder p on each side, BORDER_REFLECT_101. */
double peer_cv_u8_pad(const uint8_t *in, uint8_t *out, int w, int h, int ch,
                      int p);
/* The cw x chh window at column x, row y, copied out. */
double peer_cv_u8_crop(const uint8_t *in, uint8_t *out, int w, int h, int ch,
                       int x, int y, int cw, int chh);

#ifdef __cplusplus
}
#endif

#endif
