// bench/peer_halide.cpp - the Halide peer of the benchmark suite (see
// peers.h): each workload's algorithm written once in Halide, scheduled
// the way a Halide user would (parallel over rows or tiles, vectorized
// across pixels), JIT-compiled for the host, then realized into the
// caller's memory.  JIT compiling is not timed.  Only in the CPU program:
// Halide 14's LLVM and PoCL's crash when loaded into one process.
#include "bench.h"
#include "peers.h"

#include <Halide.h>

#include <string>
#include <vector>

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

// The host as Halide 14 should target it.  Its detection turns on
// Sapphire Rapids' features (AVX512-FP16) on every CPU with AVX512-BF16,
// AMD's Zen 4 included, which then stops on vmovw (illegal instruction).
Target host_target() {
  Target t = get_jit_target_from_environment();
  if (!__builtin_cpu_supports("avx512fp16"))
    t = t.without_feature(Target::AVX512_SapphireRapids);
  return t;
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
  out.compile_jit(host_target());
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
  out.compile_jit(host_target());
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
  out.compile_jit(host_target());
  Buffer<float> ib = planar(src, w, h), ob = planar(dst, w, h);
  in.set(ib);
  enum { batch = 200 };
  auto run = [&] {
    for (int i = 0; i < batch; i++)
      out.realize(ob);
  };
  return median_of(run, -1, -1) / batch;
}

// W11: Halide's apps/blur (u16, the app's sliding-window schedule).
extern "C" double peer_halide_app_blur(const uint16_t *src, uint16_t *dst,
                                       int w, int h) {
  Var x("x"), y("y"), yi("yi");
  ImageParam in(UInt(16), 2, "in");
  Func e = BoundaryConditions::repeat_edge(in);
  Func blur_x("blur_x"), blur_y("blur_y");
  blur_x(x, y) = (e(x - 1, y) + e(x, y) + e(x + 1, y)) / 3;
  blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
  blur_y.split(y, y, yi, 8).parallel(y).vectorize(x, 32);
  blur_x.store_at(blur_y, y).compute_at(blur_y, yi).vectorize(x, 32);
  blur_y.compile_jit(host_target());
  halide_dimension_t shape[2] = {{0, w, 1}, {0, h, w}};
  Buffer<uint16_t> ib(const_cast<uint16_t *>(src), 2, shape), ob(dst, 2, shape);
  in.set(ib);
  auto run = [&] { blur_y.realize(ob); };
  return median_of(run, -1, -1);
}

namespace {

// grey of an interleaved float3 image, edges repeated (apps/unsharp and
// apps/harris)
Func app_grey(ImageParam &in, Var x, Var y) {
  in.dim(0).set_stride(3);
  in.dim(2).set_stride(1).set_bounds(0, 3);
  Func e = BoundaryConditions::repeat_edge(in);
  Func grey("gray");
  grey(x, y) = 0.299f * e(x, y, 0) + 0.587f * e(x, y, 1) + 0.114f * e(x, y, 2);
  return grey;
}

}  // namespace

// W11: Halide's apps/unsharp with its CPU schedule.
extern "C" double peer_halide_app_unsharp(const float *src, float *dst, int w,
                                          int h, const float k[4]) {
  Var x("x"), y("y"), c("c"), yo("yo"), yi("yi");
  ImageParam in(Float(32), 3, "in");
  Func grey = app_grey(in, x, y);
  Func blur_y("blur_y"), blur_x("blur_x"), sharpen("sharpen"), ratio("ratio");
  Func out("out");
  blur_y(x, y) = k[0] * grey(x, y) + k[1] * (grey(x, y - 1) + grey(x, y + 1)) +
                 k[2] * (grey(x, y - 2) + grey(x, y + 2)) +
                 k[3] * (grey(x, y - 3) + grey(x, y + 3));
  blur_x(x, y) = k[0] * blur_y(x, y) +
                 k[1] * (blur_y(x - 1, y) + blur_y(x + 1, y)) +
                 k[2] * (blur_y(x - 2, y) + blur_y(x + 2, y)) +
                 k[3] * (blur_y(x - 3, y) + blur_y(x + 3, y));
  sharpen(x, y) = 2 * grey(x, y) - blur_x(x, y);
  ratio(x, y) = sharpen(x, y) / grey(x, y);
  out(x, y, c) = ratio(x, y) * in(x, y, c);
  const int vec = host_target().natural_vector_size<float>();
  out.output_buffer().dim(0).set_stride(3);
  out.output_buffer().dim(2).set_stride(1).set_bounds(0, 3);
  out.bound(c, 0, 3).reorder(c, x, y).unroll(c);
  out.split(y, yo, yi, 32).parallel(yo).vectorize(x, vec);
  grey.compute_at(out, yo).store_at(out, yo).vectorize(x, vec);
  blur_y.compute_at(out, yi).vectorize(x, vec);
  ratio.compute_at(out, yi).vectorize(x, vec);
  out.compile_jit(host_target());
  Buffer<float> ib = interleaved(src, w, h, 3), ob = interleaved(dst, w, h, 3);
  in.set(ib);
  auto run = [&] { out.realize(ob); };
  return median_of(run, -1, -1);
}

// W11: Halide's apps/harris with its CPU schedule.
extern "C" double peer_halide_app_harris(const float *src, float *dst, int w,
                                         int h) {
  Var x("x"), y("y"), yi("yi");
  ImageParam in(Float(32), 3, "in");
  Func grey = app_grey(in, x, y);
  Func Ix("Ix"), Iy("Iy"), Ixx("Ixx"), Iyy("Iyy"), Ixy("Ixy");
  Func Sxx("Sxx"), Syy("Syy"), Sxy("Sxy"), out("out");
  Iy(x, y) = grey(x - 1, y - 1) * (-1.0f / 12) + grey(x - 1, y + 1) * (1.0f / 12) +
             grey(x, y - 1) * (-2.0f / 12) + grey(x, y + 1) * (2.0f / 12) +
             grey(x + 1, y - 1) * (-1.0f / 12) + grey(x + 1, y + 1) * (1.0f / 12);
  Ix(x, y) = grey(x - 1, y - 1) * (-1.0f / 12) + grey(x + 1, y - 1) * (1.0f / 12) +
             grey(x - 1, y) * (-2.0f / 12) + grey(x + 1, y) * (2.0f / 12) +
             grey(x - 1, y + 1) * (-1.0f / 12) + grey(x + 1, y + 1) * (1.0f / 12);
  Ixx(x, y) = Ix(x, y) * Ix(x, y);
  Iyy(x, y) = Iy(x, y) * Iy(x, y);
  Ixy(x, y) = Ix(x, y) * Iy(x, y);
  RDom box(-1, 3, -1, 3);
  Sxx(x, y) += Ixx(x + box.x, y + box.y);
  Syy(x, y) += Iyy(x + box.x, y + box.y);
  Sxy(x, y) += Ixy(x + box.x, y + box.y);
  Expr det = Sxx(x, y) * Syy(x, y) - Sxy(x, y) * Sxy(x, y);
  Expr trace = Sxx(x, y) + Syy(x, y);
  out(x, y) = det - 0.04f * trace * trace;
  const int vec = host_target().natural_vector_size<float>();
  out.split(y, y, yi, 32).parallel(y).vectorize(x, vec);
  grey.store_at(out, y).compute_at(out, yi).vectorize(x, vec);
  Iy.store_at(out, y).compute_at(out, yi).vectorize(x, vec);
  Ix.store_at(out, y).compute_at(out, yi).vectorize(x, vec);
  Ix.compute_with(Iy, x);
  out.compile_jit(host_target());
  Buffer<float> ib = interleaved(src, w, h, 3), ob = planar(dst, w, h);
  in.set(ib);
  auto run = [&] { out.realize(ob); };
  return median_of(run, -1, -1);
}

// W11: Halide's apps/stencil_chain: every stage computed per row of the
// output and stored per strip (a sliding window through all of them).
extern "C" double peer_halide_app_stencil_chain(const uint16_t *src,
                                                uint16_t *dst, int w, int h,
                                                int stages) {
  Var x("x"), y("y"), yo("yo"), yi("yi");
  ImageParam in(UInt(16), 2, "in");
  std::vector<Func> stage;
  stage.push_back(BoundaryConditions::repeat_edge(in));
  for (int s = 0; s < stages; s++) {
    Func f("stage" + std::to_string(s));
    Expr acc = 12;
    for (int dy = -2; dy <= 2; dy++)
      for (int dx = -2; dx <= 2; dx++)
        acc = acc + cast<int>(stage.back()(x + dx, y + dy));
    f(x, y) = cast<uint16_t>(acc / 25);
    stage.push_back(f);
  }
  Func out = stage.back();
  const int vec = host_target().natural_vector_size<uint16_t>();
  out.split(y, yo, yi, 64).parallel(yo).vectorize(x, vec);
  for (int s = 1; s < stages; s++)
    stage[s].store_at(out, yo).compute_at(out, yi).vectorize(x, vec);
  out.compile_jit(host_target());
  halide_dimension_t shape[2] = {{0, w, 1}, {0, h, w}};
  Buffer<uint16_t> ib(const_cast<uint16_t *>(src), 2, shape), ob(dst, 2, shape);
  in.set(ib);
  auto run = [&] { out.realize(ob); };
  return median_of(run, -1, -1);
}
