// bench/peer_opencv_ops.cpp - the OpenCV peer of W6 (see peers_ops.h):
// OpenCV's own calls on Mats wrapping the caller's memory.
#include "bench.h"
#include "peers_ops.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace {

template <class F> double median_of(F &f) {
  return bench_median([](void *p) { (*static_cast<F *>(p))(); }, &f, -1, -1);
}

} // namespace

extern "C" double peer_cv_gaussian(const float *in, float *out, int w, int h,
                                   double sigma, int radius) {
  cv::Mat a(h, w, CV_32F, const_cast<float *>(in)), b(h, w, CV_32F, out);
  auto f = [&] {
    cv::GaussianBlur(a, b, cv::Size(2 * radius + 1, 2 * radius + 1), sigma,
                     sigma, cv::BORDER_REPLICATE);
  };
  return median_of(f);
}

extern "C" double peer_cv_filter3x3(const float *in, float *out, int w, int h,
                                    const float *k) {
  cv::Mat a(h, w, CV_32F, const_cast<float *>(in)), b(h, w, CV_32F, out);
  cv::Mat kern(3, 3, CV_32F, const_cast<float *>(k));
  auto f = [&] {
    cv::filter2D(a, b, CV_32F, kern, cv::Point(-1, -1), 0,
                 cv::BORDER_REPLICATE);
  };
  return median_of(f);
}

extern "C" double peer_cv_resize(const float *in, float *out, int w, int h,
                                 int ow, int oh) {
  cv::Mat a(h, w, CV_32F, const_cast<float *>(in)), b(oh, ow, CV_32F, out);
  auto f = [&] { cv::resize(a, b, b.size(), 0, 0, cv::INTER_LINEAR); };
  return median_of(f);
}

extern "C" double peer_cv_hist(const float *in, int64_t n, int bins, float lo,
                               float hi, float *counts) {
  cv::Mat a((int)(n / 4096), 4096, CV_32F, const_cast<float *>(in));
  cv::Mat h;
  int channels[] = {0}, sizes[] = {bins};
  float range[] = {lo, hi};
  const float *ranges[] = {range};
  auto f = [&] {
    cv::calcHist(&a, 1, channels, cv::Mat(), h, 1, sizes, ranges);
  };
  double s = median_of(f);
  for (int i = 0; i < bins; i++)
    counts[i] = h.at<float>(i);
  return s;
}

extern "C" double peer_cv_sum_rows(const float *in, int n, int m, float *out) {
  cv::Mat a(n, m, CV_32F, const_cast<float *>(in)), b(1, m, CV_32F, out);
  auto f = [&] { cv::reduce(a, b, 0, cv::REDUCE_SUM, CV_32F); };
  return median_of(f);
}

// ---- W8 (bench/w8_photo.c): u8 images of 1 or 3 channels ----------------

namespace {

cv::Mat u8_mat(const uint8_t *p, int w, int h, int ch) {
  return cv::Mat(h, w, CV_8UC(ch), const_cast<uint8_t *>(p));
}

} // namespace

extern "C" double peer_cv_u8_rgb_to_grey(const uint8_t *in, uint8_t *out,
                                         int w, int h) {
  cv::Mat a = u8_mat(in, w, h, 3), b = u8_mat(out, w, h, 1);
  auto f = [&] { cv::cvtColor(a, b, cv::COLOR_RGB2GRAY); };
  return median_of(f);
}

extern "C" double peer_cv_u8_gaussian(const uint8_t *in, uint8_t *out, int w,
                                      int h, int ch, double sigma,
                                      int radius) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, w, h, ch);
  auto f = [&] {
    cv::GaussianBlur(a, b, cv::Size(2 * radius + 1, 2 * radius + 1), sigma,
                     sigma, cv::BORDER_REFLECT_101);
  };
  return median_of(f);
}

extern "C" double peer_cv_u8_box(const uint8_t *in, uint8_t *out, int w,
                                 int h, int ch, int radius) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, w, h, ch);
  auto f = [&] {
    cv::blur(a, b, cv::Size(2 * radius + 1, 2 * radius + 1),
             cv::Point(-1, -1), cv::BORDER_REFLECT_101);
  };
  return median_of(f);
}

extern "C" double peer_cv_u8_resize(const uint8_t *in, uint8_t *out, int w,
                                    int h, int ch, int ow, int oh, int area) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, ow, oh, ch);
  auto f = [&] {
    cv::resize(a, b, b.size(), 0, 0, area ? cv::INTER_AREA : cv::INTER_LINEAR);
  };
  return median_of(f);
}

extern "C" double peer_cv_u8_flip(const uint8_t *in, uint8_t *out, int w,
                                  int h, int ch) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, w, h, ch);
  auto f = [&] { cv::flip(a, b, 1); };
  return median_of(f);
}

extern "C" double peer_cv_u8_scale_offset(const uint8_t *in, uint8_t *out,
                                          int w, int h, int ch, double alpha,
                                          double beta) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, w, h, ch);
  auto f = [&] { a.convertTo(b, CV_8U, alpha, beta); };
  return median_of(f);
}

extern "C" double peer_cv_u8_to_unit(const uint8_t *in, float *out, int w,
                                     int h, int ch) {
  cv::Mat a = u8_mat(in, w, h, ch), b(h, w, CV_32FC(ch), out);
  auto f = [&] { a.convertTo(b, CV_32F, 1.0 / 255.0); };
  return median_of(f);
}

// ---- W9 (bench/w9_photo_more.c): more operators on u8 and f32 images ------

extern "C" double peer_cv_u8_median3(const uint8_t *in, uint8_t *out, int w,
                                     int h, int ch) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, w, h, ch);
  auto f = [&] { cv::medianBlur(a, b, 3); };
  return median_of(f);
}

extern "C" double peer_cv_u8_sobel_dx(const uint8_t *in, float *out, int w,
                                      int h) {
  cv::Mat a = u8_mat(in, w, h, 1), b(h, w, CV_32F, out);
  auto f = [&] {
    cv::Sobel(a, b, CV_32F, 1, 0, 3, 1, 0, cv::BORDER_REFLECT_101);
  };
  return median_of(f);
}

extern "C" double peer_cv_u8_filter3x3(const uint8_t *in, uint8_t *out,
                                       int w, int h, int ch, const float *k) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, w, h, ch);
  cv::Mat kern(3, 3, CV_32F, const_cast<float *>(k));
  auto f = [&] {
    cv::filter2D(a, b, CV_8U, kern, cv::Point(-1, -1), 0,
                 cv::BORDER_REFLECT_101);
  };
  return median_of(f);
}

extern "C" double peer_cv_u8_threshold(const uint8_t *in, uint8_t *out,
                                       int w, int h, int ch, double t) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, w, h, ch);
  auto f = [&] { cv::threshold(a, b, t, 1, cv::THRESH_BINARY); };
  return median_of(f);
}

extern "C" double peer_cv_u8_abs_diff(const uint8_t *x, const uint8_t *y,
                                      uint8_t *out, int w, int h, int ch) {
  cv::Mat a = u8_mat(x, w, h, ch), b = u8_mat(y, w, h, ch),
          c = u8_mat(out, w, h, ch);
  auto f = [&] { cv::absdiff(a, b, c); };
  return median_of(f);
}

extern "C" double peer_cv_u8_add_weighted(const uint8_t *x, const uint8_t *y,
                                          uint8_t *out, int w, int h, int ch,
                                          double alpha, double beta) {
  cv::Mat a = u8_mat(x, w, h, ch), b = u8_mat(y, w, h, ch),
          c = u8_mat(out, w, h, ch);
  auto f = [&] { cv::addWeighted(a, alpha, b, beta, 0, c); };
  return median_of(f);
}

extern "C" double peer_cv_u8_lut(const uint8_t *in, const uint8_t *table,
                                 uint8_t *out, int w, int h, int ch) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, w, h, ch);
  cv::Mat t(1, 256, CV_8U, const_cast<uint8_t *>(table));
  auto f = [&] { cv::LUT(a, t, b); };
  return median_of(f);
}

namespace {

double cvt_colour(const void *in, void *out, int w, int h, int code,
                  int in_type, int out_type) {
  cv::Mat a(h, w, in_type, const_cast<void *>(in)), b(h, w, out_type, out);
  auto f = [&] { cv::cvtColor(a, b, code); };
  return median_of(f);
}

} // namespace

extern "C" double peer_cv_u8_rgb_to_hsv_f32(const float *in, float *out,
                                            int w, int h) {
  return cvt_colour(in, out, w, h, cv::COLOR_RGB2HSV, CV_32FC3,
                            CV_32FC3);
}

extern "C" double peer_cv_u8_grey_to_rgb(const uint8_t *in, uint8_t *out,
                                         int w, int h) {
  return cvt_colour(in, out, w, h, cv::COLOR_GRAY2RGB, CV_8UC1,
                            CV_8UC3);
}

extern "C" double peer_cv_u8_rgb_to_bgr(const uint8_t *in, uint8_t *out,
                                        int w, int h) {
  return cvt_colour(in, out, w, h, cv::COLOR_RGB2BGR, CV_8UC3,
                            CV_8UC3);
}

extern "C" double peer_cv_u8_nv21_to_rgba(const uint8_t *in, uint8_t *out,
                                          int w, int h) {
  cv::Mat a(h + h / 2, w, CV_8UC1, const_cast<uint8_t *>(in)),
      b = u8_mat(out, w, h, 4);
  auto f = [&] { cv::cvtColor(a, b, cv::COLOR_YUV2RGBA_NV21); };
  return median_of(f);
}

extern "C" double peer_cv_u8_warp_affine(const uint8_t *in, uint8_t *out,
                                         int w, int h, int ch,
                                         const double m[6]) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, w, h, ch);
  cv::Mat M(2, 3, CV_64F, const_cast<double *>(m));
  auto f = [&] {
    cv::warpAffine(a, b, M, b.size(), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP,
                   cv::BORDER_CONSTANT, cv::Scalar::all(0));
  };
  return median_of(f);
}

extern "C" double peer_cv_u8_rotate90(const uint8_t *in, uint8_t *out, int w,
                                      int h, int ch) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, h, w, ch);
  auto f = [&] { cv::rotate(a, b, cv::ROTATE_90_CLOCKWISE); };
  return median_of(f);
}

extern "C" double peer_cv_u8_transpose(const uint8_t *in, uint8_t *out, int w,
                                       int h, int ch) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, h, w, ch);
  auto f = [&] { cv::transpose(a, b); };
  return median_of(f);
}

extern "C" double peer_cv_u8_pad(const uint8_t *in, uint8_t *out, int w,
                                 int h, int ch, int p) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, w + 2 * p, h + 2 * p, ch);
  auto f = [&] {
    cv::copyMakeBorder(a, b, p, p, p, p, cv::BORDER_REFLECT_101);
  };
  return median_of(f);
}

extern "C" double peer_cv_u8_crop(const uint8_t *in, uint8_t *out, int w,
                                  int h, int ch, int x, int y, int cw,
                                  int chh) {
  cv::Mat a = u8_mat(in, w, h, ch), b = u8_mat(out, cw, chh, ch);
  auto f = [&] { a(cv::Rect(x, y, cw, chh)).copyTo(b); };
  return median_of(f);
}
