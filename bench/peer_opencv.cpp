// bench/peer_opencv.cpp - the OpenCV peer of the benchmark suite (see
// peers.h): the library's own calls for each workload, on Mats wrapping
// the caller's memory (no copies), with OpenCV's default threading.
#include "bench.h"
#include "peers.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace {

// Calls f once per timed run (see bench_median).
template <class F> double median_of(F &f) {
  return bench_median([](void *p) { (*static_cast<F *>(p))(); }, &f, -1, -1);
}

// A 1 x n Mat when n fits OpenCV's int sizes, else rows of 4096.
cv::Mat wrap(const void *p, int64_t n, int type) {
  int cols = n <= (int64_t)1 << 30 ? (int)n : 4096;
  return cv::Mat((int)(n / cols), cols, type, const_cast<void *>(p));
}

}  // namespace

extern "C" double peer_cv_lab(const float *rgba, float *lab, int w, int h) {
  cv::Mat in(h, w, CV_32FC4, const_cast<float *>(rgba));
  cv::Mat out(h, w, CV_32FC3, lab);
  auto f = [&] { cv::cvtColor(in, out, cv::COLOR_RGB2Lab); };
  return median_of(f);
}

extern "C" double peer_cv_blur(const float *src, float *dst, int w, int h,
                               float scale, float offset) {
  cv::Mat in(h, w, CV_32F, const_cast<float *>(src));
  cv::Mat out(h, w, CV_32F, dst);
  cv::Mat tmp(h, w, CV_32F);
  auto f = [&] {
    cv::blur(in, tmp, cv::Size(3, 3), cv::Point(-1, -1),
             cv::BORDER_REPLICATE);
    tmp.convertTo(out, CV_32F, scale, offset);
    cv::max(out, 0.0, out);
    cv::min(out, 1.0, out);
  };
  return median_of(f);
}

extern "C" double peer_cv_sum_u8(const uint8_t *x, int64_t n, double *sum) {
  cv::Mat m = wrap(x, n, CV_8U);
  auto f = [&] { *sum = cv::sum(m)[0]; };
  return median_of(f);
}

extern "C" double peer_cv_sum_f32(const float *x, int64_t n, double *sum) {
  cv::Mat m = wrap(x, n, CV_32F);
  auto f = [&] { *sum = cv::sum(m)[0]; };
  return median_of(f);
}

extern "C" double peer_cv_meanvar_f32(const float *x, int64_t n,
                                      double *mean, double *var) {
  cv::Mat m = wrap(x, n, CV_32F);
  auto f = [&] {
    cv::Scalar mu, sd;
    cv::meanStdDev(m, mu, sd);
    *mean = mu[0];
    *var = sd[0] * sd[0];
  };
  return median_of(f);
}

extern "C" double peer_cv_dot(const float *a, const float *b, int64_t n,
                              double *dot) {
  cv::Mat ma = wrap(a, n, CV_32F), mb = wrap(b, n, CV_32F);
  auto f = [&] { *dot = ma.dot(mb); };
  return median_of(f);
}

extern "C" double peer_cv_minmax_u8(const uint8_t *x, int64_t n, int locate,
                                    double *min, double *max,
                                    int64_t *min_at, int64_t *max_at) {
  cv::Mat m = wrap(x, n, CV_8U);
  cv::Point lo, hi;
  auto f = [&] {
    if (locate)
      cv::minMaxLoc(m, min, max, &lo, &hi);
    else
      cv::minMaxLoc(m, min, max);
  };
  double s = median_of(f);
  if (locate) {
    *min_at = (int64_t)lo.y * m.cols + lo.x;
    *max_at = (int64_t)hi.y * m.cols + hi.x;
  }
  return s;
}
