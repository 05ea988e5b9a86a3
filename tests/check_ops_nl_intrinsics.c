/* tests/check_ops_intrinsics.c - the RenderScript intrinsics that read
 * neighbours (Blur, Convolve 3x3 and 5x5, Resize, Histogram,
 * HistogramDot) tested the way the Toolkit's own tests do: layouts 3x4
 * and 160x100 (width x height), with and without a restriction
 * rectangle, every vector size each intrinsic accepts, blur radii 1, 3,
 * 8 and 25, and a photo.  The references below are plain C transcriptions
 * of the Toolkit's C++ (float weights, evaluation order, truncation,
 * clamped edges; 0 outside the restriction), and every output is
 * compared bit for bit. */
#include "ops_ref.h"

static int clampi(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

static bool inside(const fg_restriction *r, int x, int y) {
  return x >= r->x0 && x < r->x1 && y >= r->y0 && y < r->y1;
}

/* The Toolkit's ComputeGaussianWeights; radius passes through a volatile
 * so the compiler evaluates powf at run time, as the library does. */
static void blur_weights(int radius_in, float *w) {
  volatile int vr = radius_in;
  int radius = vr;
  float e = 2.718281828459045f, pi = 3.1415926535897932f;
  float sigma = 0.4f * (float)radius + 0.6f;
  float coeff1 = 1.0f / (sqrtf(2.0f * pi) * sigma);
  float coeff2 = -1.0f / (2.0f * sigma * sigma);
  float norm = 0.0f;
  for (int r = -radius; r <= radius; r++) {
    float fr = (float)r;
    w[r + radius] = coeff1 * powf(e, fr * fr * coeff2);
    norm += w[r + radius];
  }
  norm = 1.0f / norm;
  for (int r = 0; r <= 2 * radius; r++)
    w[r] *= norm;
}

/* OneVU4 / OneHU4 of the C++: a vertical float pass, then a horizontal
 * one, truncated. */
static void blur_ref(const uint8_t *in, int W, int H, int n, int radius,
                     const fg_restriction *r, uint8_t *out) {
  float w[51];
  blur_weights(radius, w);
  float *tmp = malloc(sizeof *tmp * (size_t)(W * H * n));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < n; c++) {
        float acc = 0;
        for (int k = -radius; k <= radius; k++) {
          float p = (float)in[(clampi(y + k, 0, H - 1) * W + x) * n + c] *
                    w[k + radius];
          acc = acc + p;
        }
        tmp[(y * W + x) * n + c] = acc;
      }
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < n; c++) {
        float acc = 0;
        for (int k = -radius; k <= radius; k++) {
          float p =
              tmp[(y * W + clampi(x + k, 0, W - 1)) * n + c] * w[k + radius];
          acc = acc + p;
        }
        out[(y * W + x) * n + c] = inside(r, x, y) ? (uint8_t)acc : 0;
      }
  free(tmp);
}

/* ConvolveOneU4 of the C++ (3x3 and 5x5). */
static void convolve_ref(const uint8_t *in, int W, int H, int n, int size,
                         const float *coef, const fg_restriction *r, uint8_t *out) {
  int h = size / 2;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < n; c++) {
        float acc = 0;
        for (int k = 0; k < size * size; k++) {
          int yy = clampi(y + k / size - h, 0, H - 1);
          int xx = clampi(x + k % size - h, 0, W - 1);
          float p = (float)in[(yy * W + xx) * n + c] * coef[k];
          acc = acc + p;
        }
        acc = acc + 0.5f;
        acc = acc < 0 ? 0 : acc > 255 ? 255 : acc;
        out[(y * W + x) * n + c] = inside(r, x, y) ? (uint8_t)acc : 0;
      }
}

static float cubic_ref(float p0, float p1, float p2, float p3, float x) {
  return p1 + 0.5f * x *
                  (p2 - p0 +
                   x * (2.f * p0 - 5.f * p1 + 4.f * p2 - p3 +
                        x * (3.f * (p1 - p2) + p3 - p0)));
}

/* OneBiCubic of the C++ and its source coordinates. */
static void resize_ref(const uint8_t *in, int W, int H, int n, int OW, int OH,
                       const fg_restriction *r, uint8_t *out) {
  float scx = (float)W / (float)OW, scy = (float)H / (float)OH;
  for (int y = 0; y < OH; y++)
    for (int x = 0; x < OW; x++) {
      float yf = ((float)y + 0.5f) * scy - 0.5f;
      float xf = ((float)x + 0.5f) * scx - 0.5f;
      int sy = (int)floorf(yf) - 1, sx = (int)floorf(xf) - 1;
      yf = yf - floorf(yf);
      xf = xf - floorf(xf);
      for (int c = 0; c < n; c++) {
        float p[4];
        for (int j = 0; j < 4; j++) {
          int yy = clampi(sy + j, 0, H - 1);
          float q[4];
          for (int k = 0; k < 4; k++)
            q[k] = (float)in[(yy * W + clampi(sx + k, 0, W - 1)) * n + c];
          p[j] = cubic_ref(q[0], q[1], q[2], q[3], xf);
        }
        float v = cubic_ref(p[0], p[1], p[2], p[3], yf);
        v = v + 0.5f;
        v = v < 0 ? 0 : v > 255 ? 255 : v;
        out[(y * OW + x) * n + c] = inside(r, x, y) ? (uint8_t)v : 0;
      }
    }
}

static void histogram_ref(const uint8_t *in, int W, int n, const fg_restriction *r,
                          int32_t *out) {
  memset(out, 0, sizeof *out * 256 * (size_t)n);
  for (int64_t y = r->y0; y < r->y1; y++)
    for (int64_t x = r->x0; x < r->x1; x++)
      for (int c = 0; c < n; c++)
        out[in[(y * W + x) * n + c] * n + c]++;
}

static void histogram_dot_ref(const uint8_t *in, int W, int n,
                              const float *coef, const fg_restriction *r,
                              int32_t *out) {
  int ci[4];
  for (int k = 0; k < 4; k++)
    ci[k] = (int)(coef[k] * 256.0f + 0.5f);
  memset(out, 0, sizeof *out * 256);
  for (int64_t y = r->y0; y < r->y1; y++)
    for (int64_t x = r->x0; x < r->x1; x++) {
      int t = 0;
      for (int c = 0; c < n; c++)
        t += ci[c] * in[(y * W + x) * n + c];
      out[(t + 0x7f) >> 8]++;
    }
}

static void expect_bytes(const char *what, const void *got, const void *want,
                         size_t n) {
  const uint8_t *g = got, *w = want;
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(g[i] == w[i], "%s: byte %zu is %d, expected %d", what, i,
                  g[i], w[i]);
}

static const int radii[4] = {1, 3, 8, 25};
static const float conv3[9] = {0.0625f, -0.375f, 0.25f, 0.5f, 0.125f,
                               0.3f,    -0.2f,   0.75f, 0.1f};
static const float dotc[4] = {0.2f, 0.5f, 0.125f, 0.1f};

/* Every intrinsic on a W x H field of n channels, with restriction r or
 * none (r NULL), resizing to OW x OH with the output restriction ro. */
static void intrinsics_on(const uint8_t *in, int W, int H, int n,
                          const fg_restriction *r, int OW, int OH, const fg_restriction *ro) {
  float conv5[25];
  for (int k = 0; k < 25; k++)
    conv5[k] = (float)((k * 7) % 11 - 4) / 16.0f;
  fg_type t = fg_type_image(FG_U8, H, W, n);
  fg_graph *g = fg_graph_new("intrinsics");
  fg_field *f = fg_input(g, "in", t);
  bool blur = n == 1 || n == 4;
  if (blur)
    for (int i = 0; i < 4; i++)
      out_n(g, fg_intrinsic_blur(g, f, radii[i], r));
  out_n(g, fg_intrinsic_convolve3x3(g, f, conv3, r));
  out_n(g, fg_intrinsic_convolve5x5(g, f, conv5, r));
  out_n(g, fg_intrinsic_resize(g, f, OH, OW, ro));
  out_n(g, fg_intrinsic_histogram(g, f, r));
  out_n(g, fg_intrinsic_histogram_dot(g, f, NULL, r));
  out_n(g, fg_intrinsic_histogram_dot(g, f, dotc, r));
  int nout = blur ? 10 : 6;
  void *out[10];
  run_graph(g, in, nout, out);
  fg_restriction whole = {.x0 = 0, .y0 = 0, .x1 = W, .y1 = H}, owhole = {.x0 = 0, .y0 = 0, .x1 = OW, .y1 = OH};
  const fg_restriction *rr = r ? r : &whole, *rro = ro ? ro : &owhole;
  size_t np = (size_t)(W * H * n);
  uint8_t *want = malloc((size_t)(OW * OH * n) + np + 4096);
  char what[128];
  int o = 0;
  if (blur)
    for (int i = 0; i < 4; i++, o++) {
      blur_ref(in, W, H, n, radii[i], rr, want);
      snprintf(what, sizeof what, "blur %dx%d vec%d radius %d%s", W, H, n,
               radii[i], r ? " restricted" : "");
      expect_bytes(what, out[o], want, np);
    }
  convolve_ref(in, W, H, n, 3, conv3, rr, want);
  snprintf(what, sizeof what, "convolve3x3 %dx%d vec%d%s", W, H, n,
           r ? " restricted" : "");
  expect_bytes(what, out[o++], want, np);
  convolve_ref(in, W, H, n, 5, conv5, rr, want);
  snprintf(what, sizeof what, "convolve5x5 %dx%d vec%d%s", W, H, n,
           r ? " restricted" : "");
  expect_bytes(what, out[o++], want, np);
  resize_ref(in, W, H, n, OW, OH, rro, want);
  snprintf(what, sizeof what, "resize %dx%d -> %dx%d vec%d%s", W, H, OW, OH, n,
           ro ? " restricted" : "");
  expect_bytes(what, out[o++], want, (size_t)(OW * OH * n));
  histogram_ref(in, W, n, rr, (int32_t *)want);
  snprintf(what, sizeof what, "histogram %dx%d vec%d%s", W, H, n,
           r ? " restricted" : "");
  expect_bytes(what, out[o++], want, 256 * sizeof(int32_t) * (size_t)n);
  static const float def[4] = {0.299f, 0.587f, 0.114f, 0};
  histogram_dot_ref(in, W, n, def, rr, (int32_t *)want);
  snprintf(what, sizeof what, "histogramDot %dx%d vec%d%s", W, H, n,
           r ? " restricted" : "");
  expect_bytes(what, out[o++], want, 256 * sizeof(int32_t));
  histogram_dot_ref(in, W, n, dotc, rr, (int32_t *)want);
  expect_bytes(what, out[o++], want, 256 * sizeof(int32_t));
  for (int i = 0; i < nout; i++)
    free(out[i]);
  free(want);
  fg_graph_free(g);
}

static void layout(int W, int H, const fg_restriction *r, int OW, int OH,
                   const fg_restriction *ro) {
  for (int n = 1; n <= 4; n++) {
    uint8_t *d = random_data(FG_U8, (size_t)(W * H * n), (uint64_t)(W + n));
    intrinsics_on(d, W, H, n, NULL, OW, OH, NULL);
    intrinsics_on(d, W, H, n, r, OW, OH, ro);
    free(d);
  }
}

START_TEST(test_intrinsics_layout_3x4) {
  fg_restriction r = {.x0 = 1, .y0 = 1, .x1 = 3, .y1 = 3}, ro = {.x0 = 1, .y0 = 2, .x1 = 4, .y1 = 6};
  layout(3, 4, &r, 5, 7, &ro);
}
END_TEST

START_TEST(test_intrinsics_layout_160x100) {
  fg_restriction r = {.x0 = 4, .y0 = 3, .x1 = 151, .y1 = 77}, ro = {.x0 = 20, .y0 = 5, .x1 = 200, .y1 = 60};
  layout(160, 100, &r, 233, 71, &ro);
}
END_TEST

START_TEST(test_intrinsics_photo) {
  char path[1024], err[256];
  fg_image img;
  ck_assert_msg(fg_image_read(tu_sample("chelsea.png", path, sizeof path), &img,
                              err, sizeof err) == FG_OK,
                "%s", err);
  /* RGB to RGBA, as an app hands a bitmap to the Toolkit */
  size_t np = (size_t)img.width * img.height;
  uint8_t *rgba = malloc(np * 4);
  for (size_t i = 0; i < np; i++) {
    memcpy(rgba + 4 * i, img.data + 3 * i, 3);
    rgba[4 * i + 3] = 255;
  }
  fg_restriction r = {.x0 = 50, .y0 = 40, .x1 = 400, .y1 = 260}, ro = {.x0 = 10, .y0 = 10, .x1 = 200, .y1 = 100};
  intrinsics_on(rgba, img.width, img.height, 4, &r, 225, 150, &ro);
  free(rgba);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_intrinsics_errors) {
  fg_graph *g = fg_graph_new("errors");
  fg_field *in = fg_input(g, "in", fg_type_image(FG_U8, 4, 3, 4));
  ck_assert_ptr_null(fg_intrinsic_blur(g, in, 26, NULL));
  expect_error(g, FG_EINVAL, "intrinsic_blur", "radius 26", NULL);
  fg_graph_free(g);

  g = fg_graph_new("errors");
  in = fg_input(g, "in", fg_type_image(FG_U8, 4, 3, 3));
  ck_assert_ptr_null(fg_intrinsic_blur(g, in, 2, NULL));
  expect_error(g, FG_ETYPE, "intrinsic_blur", "1 or 4 channels", NULL);
  fg_graph_free(g);

  g = fg_graph_new("errors");
  in = fg_input(g, "in", fg_type_image(FG_F32, 4, 3, 4));
  ck_assert_ptr_null(fg_intrinsic_convolve3x3(g, in, conv3, NULL));
  expect_error(g, FG_ETYPE, "intrinsic_convolve3x3", "uchar", NULL);
  fg_graph_free(g);

  g = fg_graph_new("errors");
  in = fg_input(g, "in", fg_type_image(FG_U8, 4, 3, 4));
  fg_restriction bad = {.x0 = 0, .y0 = 0, .x1 = 4, .y1 = 4};
  ck_assert_ptr_null(fg_intrinsic_histogram(g, in, &bad));
  expect_error(g, FG_EINVAL, "intrinsic_histogram", "restriction", NULL);
  fg_graph_free(g);

  g = fg_graph_new("errors");
  in = fg_input(g, "in", fg_type_image(FG_U8, 4, 3, 4));
  static const float heavy[4] = {0.5f, 0.5f, 0.5f, 0};
  ck_assert_ptr_null(fg_intrinsic_histogram_dot(g, in, heavy, NULL));
  expect_error(g, FG_EINVAL, "intrinsic_histogram_dot", "sum", NULL);
  fg_graph_free(g);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("ops_intrinsics");
  TCase *tc = tcase_create("intrinsics");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_intrinsics_layout_3x4);
  tcase_add_test(tc, test_intrinsics_layout_160x100);
  tcase_add_test(tc, test_intrinsics_photo);
  tcase_add_test(tc, test_intrinsics_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run_suite(suite());
}
