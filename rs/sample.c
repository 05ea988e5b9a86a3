/* rs/sample.c - rs_sampler and rsSample of the RenderScript runtime, in
 * both dialects (one text: it uses only what both have).  A sampler is
 * the value the host sets with fg_rs_set (fg_rs_sampler: Android's
 * Sampler.Builder fields, its rs_sampler_value numbers); rsSample reads a
 * 2-D uchar4 Allocation at normalized coordinates as Android's runtime
 * does (rs_sample.c): the magnification filter at lod 0, the
 * minification filter above; nearest or bilinear (pixel centres at
 * +0.5, the integer part by truncation), wrap modes clamp, repeat and
 * mirrored repeat; the result is a float4 scaled to [0, 1]. */
#include "rs_impl.h"

const char fgr_sample_rt[] =
  "/* rs_sampler and rsSample */\n"
  "typedef struct { int mag, min, wrap_s, wrap_t; } rs_sampler;\n"
  "static inline __attribute__((unused)) int fgk_rs_wrap(int wrap, int c,\n"
  "    int size) {\n"
  "  if (wrap == 3) {\n"
  "    c = c % size;\n    if (c < 0) c += size;\n"
  "  } else if (wrap == 6) {\n"
  "    int p = 2 * size;\n    c = c % p;\n    if (c < 0) c += p;\n"
  "    if (c >= size) c = p - 1 - c;\n  }\n"
  "  return c < 0 ? 0 : c > size - 1 ? size - 1 : c; }\n"
  "static inline __attribute__((unused)) float4 fgk_rs_texel(\n"
  "    rs_allocation a, int x, int y) {\n"
  "  return convert_float4(fgk_rs_ld_uchar4(a, (long)y * a.x + x)); }\n"
  "FGK_RS_F float4 rsSample(rs_allocation a, rs_sampler s, float2 uv,\n"
  "    float lod) {\n"
  "  int w = (int)(a.x > 0 ? a.x : 1), h = (int)(a.y > 0 ? a.y : 1);\n"
  "  int filter = lod <= 0.0f ? s.mag : s.min;\n"
  "  float px = uv.x * (float)w, py = uv.y * (float)h;\n"
  "  int ix = (int)px, iy = (int)py;\n"
  "  if (filter == 0)\n"
  "    return fgk_rs_texel(a, fgk_rs_wrap(s.wrap_s, ix, w),\n"
  "                        fgk_rs_wrap(s.wrap_t, iy, h)) * 0.003921569f;\n"
  "  float fx = px - (float)ix, fy = py - (float)iy;\n"
  "  if (fx < 0.5f) { ix -= 1; fx += 0.5f; } else { fx -= 0.5f; }\n"
  "  if (fy < 0.5f) { iy -= 1; fy += 0.5f; } else { fy -= 0.5f; }\n"
  "  float gx = 1.0f - fx, gy = 1.0f - fy;\n"
  "  int x0 = fgk_rs_wrap(s.wrap_s, ix, w);\n"
  "  int x1 = fgk_rs_wrap(s.wrap_s, ix + 1, w);\n"
  "  int y0 = fgk_rs_wrap(s.wrap_t, iy, h);\n"
  "  int y1 = fgk_rs_wrap(s.wrap_t, iy + 1, h);\n"
  "  float4 r = fgk_rs_texel(a, x0, y0) * (gx * gy);\n"
  "  r = r + fgk_rs_texel(a, x1, y0) * (fx * gy);\n"
  "  r = r + fgk_rs_texel(a, x0, y1) * (gx * fy);\n"
  "  r = r + fgk_rs_texel(a, x1, y1) * (fx * fy);\n"
  "  return r * 0.003921569f; }\n"
  "FGK_RS_F float4 rsSample(rs_allocation a, rs_sampler s, float2 uv) {\n"
  "  return rsSample(a, s, uv, 0.0f); }\n";
