/* tests/check_ops_intrinsics.c - the RenderScript intrinsics of the
 * operator library (Blend, ColorMatrix, LUT, LUT3D, YuvToRgb) on the
 * backend $FG_TEST_BACKEND names, tested the way the Intrinsics
 * Replacement Toolkit tests them: layouts 3x4 and 160x100, with and without
 * a restriction rectangle, every blend mode, every ColorMatrix vector size
 * in and out; every u8 result bit-exact against a C loop here that follows
 * the Toolkit's C++ (and Android's documented YV12 plane order); the LUT
 * and YUV conversions also on a real photo. */
#include "testutil.h"

#include <stdint.h>

static uint32_t rng = 777;
static uint32_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

static int inside(const fg_restriction *r, int x, int y) {
  return !r || (x >= r->x0 && x < r->x1 && y >= r->y0 && y < r->y1);
}
static int clip(int v) { return v > 255 ? 255 : v; }

/* The Toolkit C++'s blend of one pixel, s into d (in place). */
static void ref_blend(int mode, const uint8_t *s, uint8_t *d) {
  int o[4];
  for (int c = 0; c < 4; c++) {
    int a = s[c], b = d[c];
    switch (mode) {
    case FG_BLEND_CLEAR: o[c] = 0; break;
    case FG_BLEND_SRC: o[c] = a; break;
    case FG_BLEND_DST: o[c] = b; break;
    case FG_BLEND_SRC_OVER: o[c] = clip(a + ((b * (255 - s[3])) >> 8)); break;
    case FG_BLEND_DST_OVER: o[c] = clip(b + ((a * (255 - d[3])) >> 8)); break;
    case FG_BLEND_SRC_IN: o[c] = (a * d[3]) >> 8; break;
    case FG_BLEND_DST_IN: o[c] = (b * s[3]) >> 8; break;
    case FG_BLEND_SRC_OUT: o[c] = (a * (255 - d[3])) >> 8; break;
    case FG_BLEND_DST_OUT: o[c] = (b * (255 - s[3])) >> 8; break;
    case FG_BLEND_SRC_ATOP:
      o[c] = c == 3 ? b : clip((a * d[3] + b * (255 - s[3])) >> 8);
      break;
    case FG_BLEND_DST_ATOP:
      o[c] = c == 3 ? a : clip((b * s[3] + a * (255 - d[3])) >> 8);
      break;
    case FG_BLEND_XOR: o[c] = a ^ b; break;
    case FG_BLEND_MULTIPLY: o[c] = (a * b) >> 8; break;
    case FG_BLEND_ADD: o[c] = clip(a + b); break;
    default: o[c] = b - a < 0 ? 0 : b - a; break;   /* SUBTRACT */
    }
  }
  for (int c = 0; c < 4; c++)
    d[c] = (uint8_t)o[c];
}

/* The C++'s ColorMatrix of one u8 pixel (vin channels) to vout channels. */
static void ref_color_matrix(const uint8_t *in, int vin, uint8_t *out,
                             int vout, const float *m, const float *add) {
  float f[4] = {0, 0, 0, 0};
  for (int j = 0; j < vin; j++)
    f[j] = (float)in[j];
  for (int i = 0; i < vout; i++) {
    float p0 = f[0] * m[i], p1 = f[1] * m[4 + i], p2 = f[2] * m[8 + i],
          p3 = f[3] * m[12 + i];
    float sum = p0 + p1;
    sum = sum + p2;
    sum = sum + p3;
    sum += add[i] * 255.0f;
    sum = sum < 0 ? 0 : (sum > 255.5f ? 255.5f : sum);
    out[i] = (uint8_t)sum;
  }
}

/* The C++'s LUT3D of one pixel through cube (dx x dy x dz u8x4). */
static void ref_lut3d(const uint8_t *in, uint8_t *out, const uint8_t *cube,
                      const int dim[3]) {
  int c1[3];
  uint32_t w1[3], w2[3];
  for (int c = 0; c < 3; c++) {
    float m = (1.0f / 255.0f) * (float)(dim[c] - 1);
    int mul = (int)(m * (float)0x8000);
    int base = in[c] * mul;
    c1[c] = base >> 15;
    w2[c] = (uint32_t)(base & 0x7fff);
    w1[c] = 0x8000u - w2[c];
  }
  for (int ch = 0; ch < 3; ch++) {
    uint32_t yz[4];
    for (int j = 0; j < 4; j++) {
      int y = c1[1] + (j & 1), z = c1[2] + (j >> 1);
      int x0 = c1[0], x1 = c1[0] + 1 < dim[0] ? c1[0] + 1 : dim[0] - 1;
      y = y < dim[1] ? y : dim[1] - 1;
      z = z < dim[2] ? z : dim[2] - 1;
      uint32_t v0 = cube[((z * dim[1] + y) * dim[0] + x0) * 4 + ch];
      uint32_t v1 = cube[((z * dim[1] + y) * dim[0] + x1) * 4 + ch];
      yz[j] = (v0 * w1[0] + v1 * w2[0]) >> 7;
    }
    uint32_t z0 = (yz[0] * w1[1] + yz[1] * w2[1]) >> 15;
    uint32_t z1 = (yz[2] * w1[1] + yz[3] * w2[1]) >> 15;
    uint32_t v = (z0 * w1[2] + z1 * w2[2]) >> 15;
    out[ch] = (uint8_t)((v + 0x7f) >> 8);
  }
  out[3] = in[3];
}

enum { NMODES = FG_BLEND_MODE_COUNT_, NCM = 16 };

/* Every intrinsic but YuvToRgb on one layout and restriction, one graph. */
static void layout_case(int w, int h, const fg_restriction *r) {
  int np = w * h;
  fg_shape s = fg_shape2(h, w);
  static const int cdim[3] = {7, 5, 11};   /* red, green, blue sides */
  fg_graph *g = fg_graph_new("intrinsics");
  fg_field *src = fg_input(g, "src", fg_type_vector(FG_U8, s, 4));
  fg_field *dst = fg_input(g, "dst", fg_type_vector(FG_U8, s, 4));
  fg_field *vin[4];
  for (int v = 0; v < 4; v++) {
    char name[32];
    snprintf(name, sizeof name, "in%d", v + 1);
    vin[v] = fg_input(g, name, fg_type_image(FG_U8, h, w, v + 1));
  }
  fg_field *cube = fg_input(g, "cube", fg_type_vector(
                                           FG_U8, fg_shape3(cdim[2], cdim[1],
                                                            cdim[0]), 4));
  float m[16], add[4];
  for (int i = 0; i < 16; i++)   /* the Toolkit test: random in [-1, 1] */
    m[i] = (float)(int)(rnd() % 2001) / 1000.0f - 1.0f;
  for (int i = 0; i < 4; i++)
    add[i] = (float)(int)(rnd() % 2001) / 1000.0f - 1.0f;
  uint8_t tab[4][256];
  for (int c = 0; c < 4; c++)
    for (int i = 0; i < 256; i++)
      tab[c][i] = (uint8_t)rnd();
  for (int mode = 0; mode < NMODES; mode++) {
    char name[32];
    snprintf(name, sizeof name, "blend%d", mode);
    fg_output(g, name, fg_intrinsic_blend(g, (fg_blend_mode)mode, src, dst,
                                          r));
  }
  for (int k = 0; k < NCM; k++) {
    char name[32];
    snprintf(name, sizeof name, "cm%d", k);
    fg_output(g, name, fg_intrinsic_color_matrix(g, vin[k / 4], k % 4 + 1, m,
                                                 add, r));
  }
  fg_output(g, "lut", fg_intrinsic_lut(g, src, tab[0], tab[1], tab[2],
                                       tab[3], r));
  fg_output(g, "lut3d", fg_intrinsic_lut3d(g, src, cube, r));
  uint8_t *sv = malloc((size_t)np * 4), *dv = malloc((size_t)np * 4);
  uint8_t *iv[4];
  int ncube = cdim[0] * cdim[1] * cdim[2] * 4;
  uint8_t *cv = malloc((size_t)ncube);
  for (int i = 0; i < np * 4; i++) {
    sv[i] = (uint8_t)rnd();
    dv[i] = (uint8_t)rnd();
  }
  for (int v = 0; v < 4; v++) {
    iv[v] = malloc((size_t)np * (v + 1));
    for (int i = 0; i < np * (v + 1); i++)
      iv[v][i] = (uint8_t)rnd();
  }
  for (int i = 0; i < ncube; i++)
    cv[i] = (uint8_t)rnd();
  enum { NOUT = NMODES + NCM + 2 };
  void *out[NOUT];
  for (int i = 0; i < NOUT; i++)
    out[i] = malloc((size_t)np * 4);
  tu_run(g, 7, (const void *[]){sv, dv, iv[0], iv[1], iv[2], iv[3], cv},
         NOUT, out);
  for (int p = 0; p < np; p++) {
    int x = p % w, y = p / w, in = inside(r, x, y);
    for (int mode = 0; mode < NMODES; mode++) {
      uint8_t want[4];
      memcpy(want, dv + 4 * p, 4);
      if (in)
        ref_blend(mode, sv + 4 * p, want);
      ck_assert_msg(!memcmp((uint8_t *)out[mode] + 4 * p, want, 4),
                    "%dx%d blend mode %d pixel (%d, %d)", w, h, mode, x, y);
    }
    for (int k = 0; k < NCM; k++) {
      int vi = k / 4 + 1, vo = k % 4 + 1;
      uint8_t want[4] = {0, 0, 0, 0};
      if (in)
        ref_color_matrix(iv[vi - 1] + vi * p, vi, want, vo, m, add);
      ck_assert_msg(!memcmp((uint8_t *)out[NMODES + k] + vo * p, want,
                            (size_t)vo),
                    "%dx%d colour matrix %d->%d pixel (%d, %d)", w, h, vi,
                    vo, x, y);
    }
    uint8_t want[4] = {0, 0, 0, 0};
    if (in)
      for (int c = 0; c < 4; c++)
        want[c] = tab[c][sv[4 * p + c]];
    ck_assert(!memcmp((uint8_t *)out[NMODES + NCM] + 4 * p, want, 4));
    uint8_t want3[4] = {0, 0, 0, 0};
    if (in)
      ref_lut3d(sv + 4 * p, want3, cv, cdim);
    ck_assert_msg(!memcmp((uint8_t *)out[NMODES + NCM + 1] + 4 * p, want3, 4),
                  "%dx%d lut3d pixel (%d, %d)", w, h, x, y);
  }
  for (int i = 0; i < NOUT; i++)
    free(out[i]);
  for (int v = 0; v < 4; v++)
    free(iv[v]);
  free(sv);
  free(dv);
  free(cv);
  fg_graph_free(g);
}

START_TEST(test_ops_intrinsics_3x4) {
  layout_case(3, 4, NULL);
  layout_case(3, 4, &(fg_restriction){1, 3, 1, 3});
}
END_TEST

START_TEST(test_ops_intrinsics_160x100) {
  layout_case(160, 100, NULL);
  layout_case(160, 100, &(fg_restriction){13, 147, 7, 91});
}
END_TEST

/* ---- YuvToRgb --------------------------------------------------------------- */

static uint8_t yuv_px(int y, int u, int v, int c) {
  int Y = y - 16, U = u - 128, V = v - 128;
  int r = c == 0 ? (Y * 298 + V * 409 + 128) >> 8
          : c == 1 ? (Y * 298 - U * 100 - V * 208 + 128) >> 8
                   : (Y * 298 + U * 516 + 128) >> 8;
  return (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
}

/* The Y, U and V samples of pixel (x, y) in a frame, written out for each
 * format from its definition (Android's YV12: V plane first, strides
 * rounded up to 16). */
static void yuv_at(fg_yuv_format f, const uint8_t *fr, int w, int h, int x,
                   int y, int *Y, int *U, int *V) {
  int cx = x / 2, cy = y / 2;
  if (f == FG_YUV_NV21 || f == FG_YUV_NV12) {
    *Y = fr[y * w + x];
    const uint8_t *c = fr + w * h + cy * w + cx * 2;
    *V = f == FG_YUV_NV21 ? c[0] : c[1];
    *U = f == FG_YUV_NV21 ? c[1] : c[0];
  } else if (f == FG_YUV_YV12) {
    int ys = (w + 15) / 16 * 16, cs = (ys / 2 + 15) / 16 * 16;
    *Y = fr[y * ys + x];
    *V = fr[ys * h + cy * cs + cx];
    *U = fr[ys * h + cs * (h / 2) + cy * cs + cx];
  } else {
    *Y = fr[y * w + x];
    *U = fr[w * h + cy * (w / 2) + cx];
    *V = fr[w * h + (w / 2) * (h / 2) + cy * (w / 2) + cx];
  }
}

static void yuv_case(int w, int h, const uint8_t *rgb) {
  fg_graph *g = fg_graph_new("yuv");
  uint8_t *frames[4];
  for (int f = 0; f < 4; f++) {
    int64_t n = fg_yuv_frame_bytes((fg_yuv_format)f, w, h);
    ck_assert_int_gt(n, 0);
    frames[f] = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++)
      frames[f][i] = (uint8_t)rnd();
    if (rgb)   /* a real photo's luma and chroma in every format */
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
          const uint8_t *p = rgb + 3 * (y * w + x);
          int Y = ((66 * p[0] + 129 * p[1] + 25 * p[2] + 128) >> 8) + 16;
          int ys = f == FG_YUV_YV12 ? (w + 15) / 16 * 16 : w;
          frames[f][y * ys + x] = (uint8_t)Y;
        }
    char name[32], oname[32];
    snprintf(name, sizeof name, "f%d", f);
    snprintf(oname, sizeof oname, "o%d", f);
    fg_output(g, oname, fg_intrinsic_yuv_to_rgb(
                           g, fg_input(g, name, fg_type_vector(
                                           FG_U8, fg_shape1(n), 1)),
                           (fg_yuv_format)f, w, h));
  }
  uint8_t *out[4];
  for (int f = 0; f < 4; f++)
    out[f] = malloc((size_t)w * h * 4);
  tu_run(g, 4, (const void *const *)frames, 4, (void *const *)out);
  for (int f = 0; f < 4; f++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        int Y, U, V;
        yuv_at((fg_yuv_format)f, frames[f], w, h, x, y, &Y, &U, &V);
        const uint8_t *o = out[f] + 4 * (y * w + x);
        for (int c = 0; c < 3; c++)
          ck_assert_msg(o[c] == yuv_px(Y, U, V, c), "format %d %dx%d "
                        "pixel (%d, %d) channel %d: %d, want %d", f, w, h, x,
                        y, c, o[c], yuv_px(Y, U, V, c));
        ck_assert_uint_eq(o[3], 255);
      }
  for (int f = 0; f < 4; f++) {
    free(frames[f]);
    free(out[f]);
  }
  fg_graph_free(g);
}

START_TEST(test_ops_intrinsics_yuv_every_format) {
  yuv_case(160, 100, NULL);
  yuv_case(18, 6, NULL);    /* YV12 strides padded: 32 and 16 */
  /* the smallest frame, and widths off any vector's length (the CPU's
   * interior columns, read unclamped, and its clamped rest) */
  yuv_case(2, 2, NULL);
  yuv_case(34, 4, NULL);
  yuv_case(70, 6, NULL);
}
END_TEST

START_TEST(test_ops_intrinsics_on_a_photo) {
  char path[4096], err[512];
  fg_image img;
  ck_assert_msg(fg_image_read(tu_sample("coffee.png", path, sizeof path),
                              &img, err, sizeof err) == FG_OK, "%s", err);
  ck_assert_int_eq(img.channels, 3);
  int w = img.width & ~1, h = img.height & ~1;
  uint8_t *rgb = malloc((size_t)w * h * 3);
  for (int y = 0; y < h; y++)
    memcpy(rgb + (size_t)y * w * 3, img.data + (size_t)y * img.width * 3,
           (size_t)w * 3);
  yuv_case(w, h, rgb);
  /* the photo through a sepia colour matrix (the Toolkit's example) */
  static const float sepia[16] = {0.393f, 0.349f, 0.272f, 0,
                                  0.769f, 0.686f, 0.534f, 0,
                                  0.189f, 0.168f, 0.131f, 0, 0, 0, 0, 1};
  fg_graph *g = fg_graph_new("sepia");
  fg_field *in = fg_input(g, "in", fg_type_image(FG_U8, h, w, 3));
  fg_output(g, "out", fg_intrinsic_color_matrix(g, in, 3, sepia, NULL,
                                                NULL));
  uint8_t *out = malloc((size_t)w * h * 3);
  tu_run(g, 1, (const void *[]){rgb}, 1, (void *[]){out});
  static const float zero[4];
  for (int p = 0; p < w * h; p++) {
    uint8_t want[3];
    ref_color_matrix(rgb + 3 * p, 3, want, 3, sepia, zero);
    ck_assert(!memcmp(out + 3 * p, want, 3));
  }
  free(out);
  free(rgb);
  fg_graph_free(g);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_ops_intrinsics_reject_bad_arguments) {
  fg_graph *g = fg_graph_new("bad");
  fg_field *a = fg_input(g, "a", fg_type_image(FG_U8, 4, 3, 3));
  ck_assert_ptr_null(fg_intrinsic_blend(g, FG_BLEND_SRC_OVER, a, a, NULL));
  expect_error(g, FG_ETYPE, "blend_src_over", "'a'", "u8 vec4", NULL);
  fg_graph_free(g);
  g = fg_graph_new("bad2");
  a = fg_input(g, "a", fg_type_image(FG_U8, 4, 3, 4));
  ck_assert_ptr_null(fg_intrinsic_lut3d(g, a, a, NULL));
  expect_error(g, FG_ETYPE, "intrinsic_lut3d", "cube", NULL);
  fg_graph_free(g);
  g = fg_graph_new("bad3");
  a = fg_input(g, "a", fg_type_image(FG_U8, 4, 3, 4));
  ck_assert_ptr_null(fg_intrinsic_color_matrix(
      g, a, 4, (float[16]){0}, NULL, &(fg_restriction){0, 4, 0, 4}));
  expect_error(g, FG_EINVAL, "intrinsic_color_matrix", "restriction", NULL);
  fg_graph_free(g);
  g = fg_graph_new("bad4");
  a = fg_input(g, "a", fg_type_vector(FG_U8, fg_shape1(100), 1));
  ck_assert_ptr_null(fg_intrinsic_yuv_to_rgb(g, a, FG_YUV_NV21, 3, 4));
  expect_error(g, FG_EINVAL, "intrinsic_yuv_to_rgb", "even", NULL);
  fg_graph_free(g);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ops_intrinsics");
  TCase *tc = tcase_create("intrinsics");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_ops_intrinsics_3x4);
  tcase_add_test(tc, test_ops_intrinsics_160x100);
  tcase_add_test(tc, test_ops_intrinsics_yuv_every_format);
  tcase_add_test(tc, test_ops_intrinsics_on_a_photo);
  tcase_add_test(tc, test_ops_intrinsics_reject_bad_arguments);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
