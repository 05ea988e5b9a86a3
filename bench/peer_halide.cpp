// bench/peer_halide.cpp - the Halide peer of the benchmark suite (see
// peers.h): each workload's algorithm written once in Halide, scheduled
// the way a Halide user would (parallel over rows or tiles, vectorized
// across pixels), JIT-compiled for the host, then realized into the
// caller's memory.  JIT compiling is not timed.  Only in the CPU program:
// Halide 14's LLVM and PoCL's crash when loaded into one process.
#include "bench.h"
#include "peers.h"

#include <Halide.h>

using namespace Halide;

namespace {

template <class F> double median_of(F &f, int warmup, int reps) {
  return bench_median([](void *p) { (*static_cast<F *>(p))(); }, &f, warmup,
                      reps);
}

// An interleaved w x h image of `channels` floats at data.
Buffer<float> interleaved(const float *data, int w, int h, int channels) {
  halide_dimension_t shape[3] = {{0, w, channels},
                                 {0, h, w * channels},
                                 {0, channels, 1}};
  return Buffer<float>(const_cast<float *>(data), 3, shape);
}

Buffer<float> planar(const float *data, int w, int h) {
  halide_dimension_t shape[2] = {{0, w, 1}, {0, h, w}};
  return Buffer<float>(const_cast<float *>(data), 2, shape);
}

}  // namespace

extern "C" double peer_halide_lab(const float *rgba, float *lab, int w,
                                  int h, int fast) {
  Var x("x"), y("y"), c("c"), yo("yo");
  ImageParam in(Float(32), 3, "rgba");
  auto pw = [fast](Expr a, Expr b) {
    return fast ? fast_pow(a, b) : pow(a, b);
  };
  Func lin("lin"), t("t"), f("f"), out("lab");
  Expr v = in(x, y, c);
  lin(x, y, c) = select(v > 0.04045f, pw((v + 0.055f) / 1.055f, 2.4f),
                        v / 12.92f) * 100.0f;
  Expr r = lin(x, y, 0), g = lin(x, y, 1), b = lin(x, y, 2);
  t(x, y, c) = mux(c, {(r * 0.4124f + g * 0.3576f + b * 0.1805f) / 95.047f,
                       (r * 0.2126f + g * 0.7152f + b * 0.0722f) / 100.0f,
                       (r * 0.0193f + g * 0.1192f + b * 0.9505f) / 108.883f});
  Expr tv = t(x, y, c);
  f(x, y, c) = select(tv > 0.008856f, pw(tv, 1.0f / 3),
                      tv * 7.787f + 16.0f / 116);
  out(x, y, c) = mux(c, {f(x, y, 1) * 116.0f - 16.0f,
                         (f(x, y, 0) - f(x, y, 1)) * 500.0f,
                         (f(x, y, 1) - f(x, y, 2)) * 200.0f, in(x, y, 3)});
  // interleaved input and output: x strides over 4 floats, c over 1
  in.dim(0).set_stride(4);
  in.dim(2).set_stride(1).set_bounds(0, 4);
  out.output_buffer().dim(0).set_stride(4);
  out.output_buffer().dim(2).set_stride(1).set_bounds(0, 4);
  out.bound(c, 0, 4).reorder(c, x, y).unroll(c);
  out.split(y, yo, y, 8).parallel(yo).vectorize(x, 16);
  for (Func *s : {&f, &t, &lin})
    s->compute_at(out, x).reorder(c, x, y).unroll(c).vectorize(x);
  out.compile_jit(get_jit_target_from_environment());
  Buffer<float> ib = interleaved(rgba, w, h, 4), ob = interleaved(lab, w, h, 4);
  in.set(ib);
  auto run = [&] { out.realize(ob); };
  return median_of(run, -1, -1);
}

extern "C" double peer_halide_blur(const float *src, float *dst, int w, int h,
                                   float scale, float offset) {
  Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), tile("tile");
  ImageParam in(Float(32), 2, "x");
  Func e = BoundaryConditions::repeat_edge(in);
  Func blur("blur"), out("out");
  Expr acc = 0.0f;
  for (int dr = -1; dr <= 1; dr++)          // the taps in the C loop's order
    for (int dc = -1; dc <= 1; dc++)
      acc = acc + e(x + dc, y + dr);
  blur(x, y) = acc / 9.0f;
  out(x, y) = clamp(blur(x, y) * scale + offset, 0.0f, 1.0f);
  out.tile(x, y, xo, yo, xi, yi, 256, 32).fuse(xo, yo, tile).parallel(tile)
      .vectorize(xi, 16);
  blur.compute_at(out, tile).vectorize(x, 16);
  out.compile_jit(get_jit_target_from_environment());
  Buffer<float> ib = planar(src, w, h), ob = planar(dst, w, h);
  in.set(ib);
  auto run = [&] { out.realize(ob); };
  return median_of(run, -1, -1);
}

extern "C" double peer_halide_small(const float *src, float *dst, int w,
                                    int h) {
  Var x("x"), y("y");
  ImageParam in(Float(32), 2, "x");
  Func out("out");
  out(x, y) = in(x, y) * 0.5f + 1.0f;
  out.vectorize(x, 16);
  out.compile_jit(get_jit_target_from_environment());
  Buffer<float> ib = planar(src, w, h), ob = planar(dst, w, h);
  in.set(ib);
  enum { batch = 200 };
  auto run = [&] {
    for (int i = 0; i < batch; i++)
      out.realize(ob);
  };
  return median_of(run, -1, -1) / batch;
}
