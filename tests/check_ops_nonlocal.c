/* tests/check_ops_nonlocal.c - the operator library's filters, geometry,
 * resizing, histograms and reductions on the backend $FG_TEST_BACKEND
 * names, each against a plain C loop written here (in double, from the
 * definitions in fieldgraph/ops_nonlocal.h, border rules by cases), on
 * random data of several element types and tensor widths, odd and
 * degenerate sizes (1x1, 1xN, primes, layers) and a photo.
 *
 * Tolerances: exact for copies (geometry, nearest resize, median,
 * histograms, min, max, integer sums); float results within 1e-3 + 1e-5
 * |v| (the library computes in f32, the references in double); integer
 * results of float filters within 1 (a float sum rounding to the other
 * side of .5).  Axis reductions fused and unfused are bit-identical. */
#include "ops_ref.h"

#define RTOL 1e-5

static double atol_of(fg_elem e) {
  return e == FG_F32 || e == FG_F64 ? 1e-3 : 1.0;
}

static const fg_border borders[5] = {FG_BORDER_CLAMP, FG_BORDER_MIRROR,
                                     FG_BORDER_REFLECT, FG_BORDER_WRAP,
                                     FG_BORDER_CONSTANT};
static const char *const border_names[5] = {"clamp", "mirror", "reflect",
                                            "wrap", "constant"};

static size_t ref_n(const ref_img *r) {
  return (size_t)(r->L * r->H * r->W * r->C);
}

/* Correlation with a kr x kc kernel in double. */
static double *conv_ref(const ref_img *r, int kr, int kc, const double *w,
                        fg_border b) {
  double *o = malloc(ref_n(r) * sizeof *o);
  size_t i = 0;
  for (int64_t l = 0; l < r->L; l++)
    for (int64_t y = 0; y < r->H; y++)
      for (int64_t x = 0; x < r->W; x++)
        for (int c = 0; c < r->C; c++, i++) {
          double acc = 0;
          for (int k = 0; k < kr * kc; k++)
            acc += w[k] * ref_at(r, l, y + k / kc - kr / 2, x + k % kc - kc / 2,
                                 c, b, 0);
          o[i] = acc;
        }
  return o;
}

/* Separable filter with 1-D weights w[0..2 rad]: rows, then columns. */
static double *sep_ref(const ref_img *r, int rad, const double *w,
                       fg_border b) {
  ref_img t = *r;
  t.v = conv_ref(r, 1, 2 * rad + 1, w, b);
  double *o = conv_ref(&t, 2 * rad + 1, 1, w, b);
  free(t.v);
  return o;
}

static void round_to(fg_elem e, double *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    v[i] = as_elem(e, v[i]);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double *median_ref(const ref_img *r) {
  double *o = malloc(ref_n(r) * sizeof *o);
  size_t i = 0;
  for (int64_t l = 0; l < r->L; l++)
    for (int64_t y = 0; y < r->H; y++)
      for (int64_t x = 0; x < r->W; x++)
        for (int c = 0; c < r->C; c++, i++) {
          double v[9];
          for (int k = 0; k < 9; k++)
            v[k] = ref_at(r, l, y + k / 3 - 1, x + k % 3 - 1, c,
                          FG_BORDER_CLAMP, 0);
          qsort(v, 9, sizeof *v, cmp_double);
          o[i] = v[4];
        }
  return o;
}

/* Every filter under every border rule on one field type. */
static void filters_on(fg_type t, const void *data, const char *label) {
  static const float k35[15] = {0.1f,    -0.2f, 0.3f,  0.05f,   0.5f,
                                1.0f,    0.25f, 0,     -0.125f, 0.2f,
                                0.0625f, 0.3f,  -0.1f, 0.15f,   0.01f};
  fg_graph *g = fg_graph_new("filters");
  fg_field *in = fg_input(g, "in", t);
  for (int b = 0; b < 5; b++) {
    out_n(g, fg_convolve(g, in, 3, 5, k35, borders[b]));
    out_n(g, fg_gaussian_blur(g, in, 1.2, 0, borders[b]));
  }
  out_n(g, fg_box_blur(g, in, 2, FG_BORDER_REFLECT));
  fg_field *gx, *gy;
  fg_sobel(g, in, FG_BORDER_MIRROR, &gx, &gy);
  out_n(g, gx);
  out_n(g, gy);
  out_n(g, fg_median3x3(g, in));
  void *out[14];
  run_graph(g, data, 14, out);
  ref_img r = ref_from(t, data);
  size_t n = ref_n(&r);
  double kd[15], gw[9], bw[5], sum = 0;
  for (int i = 0; i < 15; i++)
    kd[i] = k35[i];
  for (int i = -4; i <= 4; i++)
    sum += gw[i + 4] = exp(-(double)(i * i) / (2 * 1.2 * 1.2));
  for (int i = 0; i < 9; i++)
    gw[i] /= sum;
  for (int i = 0; i < 5; i++)
    bw[i] = 0.2;
  char what[128];
  for (int b = 0; b < 5; b++) {
    double *w = conv_ref(&r, 3, 5, kd, borders[b]);
    round_to(t.elem, w, n);
    snprintf(what, sizeof what, "%s convolve %s", label, border_names[b]);
    expect_close(what, t.elem, out[2 * b], w, n, atol_of(t.elem), RTOL);
    free(w);
    w = sep_ref(&r, 4, gw, borders[b]);
    round_to(t.elem, w, n);
    snprintf(what, sizeof what, "%s gaussian %s", label, border_names[b]);
    expect_close(what, t.elem, out[2 * b + 1], w, n, atol_of(t.elem), RTOL);
    free(w);
  }
  double *w = sep_ref(&r, 2, bw, FG_BORDER_REFLECT);
  round_to(t.elem, w, n);
  snprintf(what, sizeof what, "%s box", label);
  expect_close(what, t.elem, out[10], w, n, atol_of(t.elem), RTOL);
  free(w);
  static const double sx[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
  static const double sy[9] = {-1, -2, -1, 0, 0, 0, 1, 2, 1};
  fg_elem fe = t.elem == FG_F64 ? FG_F64 : FG_F32;
  w = conv_ref(&r, 3, 3, sx, FG_BORDER_MIRROR);
  snprintf(what, sizeof what, "%s sobel x", label);
  expect_close(what, fe, out[11], w, n, 1e-3, RTOL);
  free(w);
  w = conv_ref(&r, 3, 3, sy, FG_BORDER_MIRROR);
  snprintf(what, sizeof what, "%s sobel y", label);
  expect_close(what, fe, out[12], w, n, 1e-3, RTOL);
  free(w);
  w = median_ref(&r);
  snprintf(what, sizeof what, "%s median", label);
  expect_close(what, t.elem, out[13], w, n, 0, 0);
  free(w);
  for (int i = 0; i < 14; i++)
    free(out[i]);
  free(r.v);
  fg_graph_free(g);
}

START_TEST(test_ops_filters_random) {
  struct {
    fg_type t;
    const char *label;
  } cases[] = {
      {fg_type_image(FG_U8, 37, 29, 4), "u8x4 37x29"},
      {fg_type_scalar(FG_F32, fg_shape2(1, 1)), "f32 1x1"},
      {fg_type_vector(FG_F32, fg_shape2(1, 17), 2), "f32x2 1x17"},
      {fg_type_vector(FG_U16, fg_shape3(3, 13, 11), 3), "u16x3 3x13x11"},
  };
  for (int i = 0; i < 4; i++) {
    size_t n = fg_type_bytes(cases[i].t) / fg_elem_size(cases[i].t.elem);
    void *d = random_data(cases[i].t.elem, n, 10 + i);
    filters_on(cases[i].t, d, cases[i].label);
    free(d);
  }
}
END_TEST

/* A bundled photo as a u8 field. */
static fg_image photo(const char *name) {
  char path[1024], err[256];
  fg_image img;
  ck_assert_msg(fg_image_read(tu_sample(name, path, sizeof path), &img, err,
                              sizeof err) == FG_OK,
                "%s", err);
  return img;
}

START_TEST(test_ops_filters_photo) {
  fg_image img = photo("coffee.png");
  fg_type t = fg_type_image(FG_U8, img.height, img.width, img.channels);
  fg_graph *g = fg_graph_new("photo");
  fg_field *in = fg_input(g, "in", t);
  static const float sharpen[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
  out_n(g, fg_gaussian_blur(g, in, 2.0, 0, FG_BORDER_MIRROR));
  out_n(g, fg_convolve(g, in, 3, 3, sharpen, FG_BORDER_CLAMP));
  out_n(g, fg_median3x3(g, in));
  void *out[3];
  run_graph(g, img.data, 3, out);
  ref_img r = ref_from(t, img.data);
  size_t n = ref_n(&r);
  double gw[13], sum = 0, kd[9];
  for (int i = -6; i <= 6; i++)
    sum += gw[i + 6] = exp(-(double)(i * i) / 8.0);
  for (int i = 0; i < 13; i++)
    gw[i] /= sum;
  for (int i = 0; i < 9; i++)
    kd[i] = sharpen[i];
  double *w = sep_ref(&r, 6, gw, FG_BORDER_MIRROR);
  round_to(FG_U8, w, n);
  expect_close("photo gaussian", FG_U8, out[0], w, n, 1, 0);
  free(w);
  w = conv_ref(&r, 3, 3, kd, FG_BORDER_CLAMP);
  round_to(FG_U8, w, n);
  expect_close("photo sharpen", FG_U8, out[1], w, n, 1, 0);
  free(w);
  w = median_ref(&r);
  expect_close("photo median", FG_U8, out[2], w, n, 0, 0);
  free(w);
  for (int i = 0; i < 3; i++)
    free(out[i]);
  free(r.v);
  fg_graph_free(g);
  fg_image_free(&img);
}
END_TEST

/* Unsharp mask against x + amount (x - blur(x)) in double, the blur the
 * separable reference above, on a random u8 RGB field (the result rounded
 * and saturated to u8: within 1 of it), a random f32 field and a photo;
 * out-of-range arguments are refused by name. */
static void unsharp_on(fg_type t, const void *data, double sigma,
                       double amount, fg_border b, const char *label) {
  fg_graph *g = fg_graph_new("unsharp");
  fg_field *in = fg_input(g, "in", t);
  out_n(g, fg_unsharp(g, in, sigma, amount, b));
  void *out[1];
  run_graph(g, data, 1, out);
  ref_img r = ref_from(t, data);
  size_t n = ref_n(&r);
  int rad = (int)ceil(3 * sigma);
  double gw[2 * 64 + 1], sum = 0;
  for (int i = -rad; i <= rad; i++)
    sum += gw[i + rad] = exp(-(double)i * i / (2 * sigma * sigma));
  for (int i = 0; i <= 2 * rad; i++)
    gw[i] /= sum;
  double *w = sep_ref(&r, rad, gw, b);
  for (size_t i = 0; i < n; i++)
    w[i] = as_elem(t.elem, r.v[i] + amount * (r.v[i] - w[i]));
  int is_int = t.elem != FG_F32 && t.elem != FG_F64;
  expect_close(label, t.elem, out[0], w, n, is_int ? 1 : 1e-4, RTOL);
  free(w);
  free(out[0]);
  free(r.v);
  fg_graph_free(g);
}

START_TEST(test_ops_unsharp) {
  fg_type t8 = fg_type_image(FG_U8, 23, 31, 3);
  void *d8 = random_data(FG_U8, (size_t)23 * 31 * 3, 41);
  unsharp_on(t8, d8, 1.5, 1.0, FG_BORDER_CLAMP, "unsharp u8x3");
  unsharp_on(t8, d8, 0.8, 2.5, FG_BORDER_MIRROR, "unsharp u8x3 mirror");
  free(d8);
  fg_type tf = fg_type_scalar(FG_F32, fg_shape2(19, 17));
  void *df = random_data(FG_F32, (size_t)19 * 17, 42);
  unsharp_on(tf, df, 2.0, 0.7, FG_BORDER_REFLECT, "unsharp f32");
  free(df);
  fg_image img = photo("coffee.png");
  unsharp_on(fg_type_image(FG_U8, img.height, img.width, img.channels),
             img.data, 1.0, 1.0, FG_BORDER_CLAMP, "unsharp photo");
  fg_image_free(&img);
  static const double bad[][2] = {{0, 1}, {-1, 1}, {22, 1}, {1, -0.5},
                                  {1, 101}, {NAN, 1}, {1, NAN}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fg_graph *g = fg_graph_new("bad");
    fg_field *in = fg_input(g, "in", t8);
    ck_assert_ptr_null(fg_unsharp(g, in, bad[i][0], bad[i][1],
                                  FG_BORDER_CLAMP));
    expect_error(g, FG_EINVAL, "unsharp", "sigma", "amount", NULL);
    fg_graph_free(g);
  }
}
END_TEST

/* out(l, y, x) = in(l, fy(y, x), fx(y, x)) for a geometric map. */
typedef void (*geo_map)(int64_t y, int64_t x, int64_t H, int64_t W, int64_t *sy,
                        int64_t *sx, const int64_t *arg);

static void map_flip(int64_t y, int64_t x, int64_t H, int64_t W, int64_t *sy,
                     int64_t *sx, const int64_t *a) {
  *sy = a[1] ? H - 1 - y : y;
  *sx = a[0] ? W - 1 - x : x;
}
static void map_transpose(int64_t y, int64_t x, int64_t H, int64_t W,
                          int64_t *sy, int64_t *sx, const int64_t *a) {
  (void)H, (void)W, (void)a;
  *sy = x;
  *sx = y;
}
/* clockwise quarter turns, one at a time on the destination */
static void map_rot(int64_t y, int64_t x, int64_t H, int64_t W, int64_t *sy,
                    int64_t *sx, const int64_t *a) {
  int k = (int)(((a[0] % 4) + 4) % 4);
  for (int i = 0; i < k; i++) {
    /* one clockwise turn of an h x w image: out(y, x) = in(h-1-x, y) where
     * h is the source height of that step */
    int64_t h = (k - i) % 2 ? H : W;
    int64_t ny = h - 1 - x, nx = y;
    y = ny, x = nx;
  }
  (void)W;
  *sy = y;
  *sx = x;
}
static void map_crop(int64_t y, int64_t x, int64_t H, int64_t W, int64_t *sy,
                     int64_t *sx, const int64_t *a) {
  (void)H, (void)W;
  *sy = y + a[0];
  *sx = x + a[1];
}

static void expect_geo(const char *what, fg_type t, const void *in,
                       const void *got, int64_t oh, int64_t ow, geo_map f,
                       const int64_t *arg, fg_border b, double cval) {
  ref_img r = ref_from(t, in);
  size_t n = (size_t)(r.L * oh * ow * r.C), i = 0;
  double *w = malloc(n * sizeof *w + 8);
  for (int64_t l = 0; l < r.L; l++)
    for (int64_t y = 0; y < oh; y++)
      for (int64_t x = 0; x < ow; x++) {
        int64_t sy, sx;
        f(y, x, r.H, r.W, &sy, &sx, arg);
        for (int c = 0; c < r.C; c++)
          w[i++] = ref_at(&r, l, sy, sx, c, b, cval);
      }
  expect_close(what, t.elem, got, w, n, 0, 0);
  free(w);
  free(r.v);
}

static void map_pad(int64_t y, int64_t x, int64_t H, int64_t W, int64_t *sy,
                    int64_t *sx, const int64_t *a) {
  (void)H, (void)W;
  *sy = y - a[0];
  *sx = x - a[1];
}

START_TEST(test_ops_geometry) {
  fg_shape shapes[4] = {fg_shape2(7, 5), fg_shape2(1, 1), fg_shape2(1, 13),
                        fg_shape3(3, 4, 6)};
  for (int s = 0; s < 4; s++) {
    fg_type t = fg_type_vector(FG_U16, shapes[s], 2);
    int nd = t.field.ndim;
    int64_t H = t.field.dim[nd - 2], W = t.field.dim[nd - 1];
    void *d = random_data(FG_U16, fg_type_bytes(t) / 2, 40 + s);
    fg_graph *g = fg_graph_new("geometry");
    fg_field *in = fg_input(g, "in", t);
    out_n(g, fg_flip(g, in, true, false));
    out_n(g, fg_flip(g, in, false, true));
    out_n(g, fg_flip(g, in, true, true));
    out_n(g, fg_transpose(g, in));
    static const int turns[6] = {-1, 0, 1, 2, 3, 5};
    for (int k = 0; k < 6; k++)
      out_n(g, fg_rotate90(g, in, turns[k]));
    out_n(g, fg_crop(g, in, H / 2, W / 3, H - H / 2, W - W / 3));
    for (int b = 0; b < 5; b++)
      out_n(g, fg_pad(g, in, 3, 5, 7, 2, borders[b], 4321));
    void *out[16];
    run_graph(g, d, 16, out);
    int64_t a[2][2] = {{1, 0}, {0, 1}}, hv[2] = {1, 1};
    expect_geo("flip h", t, d, out[0], H, W, map_flip, a[0], 0, 0);
    expect_geo("flip v", t, d, out[1], H, W, map_flip, a[1], 0, 0);
    expect_geo("flip hv", t, d, out[2], H, W, map_flip, hv, 0, 0);
    expect_geo("transpose", t, d, out[3], W, H, map_transpose, NULL, 0, 0);
    for (int k = 0; k < 6; k++) {
      int64_t arg = turns[k];
      bool odd = ((turns[k] % 4) + 4) % 2;
      char what[64];
      snprintf(what, sizeof what, "rotate90 %d (shape %d)", turns[k], s);
      expect_geo(what, t, d, out[4 + k], odd ? W : H, odd ? H : W, map_rot,
                 &arg, 0, 0);
    }
    int64_t ca[2] = {H / 2, W / 3};
    expect_geo("crop", t, d, out[10], H - H / 2, W - W / 3, map_crop, ca, 0, 0);
    for (int b = 0; b < 5; b++) {
      int64_t pa[2] = {3, 7};
      char what[64];
      snprintf(what, sizeof what, "pad %s (shape %d)", border_names[b], s);
      expect_geo(what, t, d, out[11 + b], H + 8, W + 9, map_pad, pa, borders[b],
                 4321);
    }
    for (int i = 0; i < 16; i++)
      free(out[i]);
    free(d);
    fg_graph_free(g);
  }
}
END_TEST

START_TEST(test_ops_geometry_photo) {
  fg_image img = photo("astronaut.png");
  fg_type t = fg_type_image(FG_U8, img.height, img.width, img.channels);
  int64_t H = img.height, W = img.width;
  fg_graph *g = fg_graph_new("geometry photo");
  fg_field *in = fg_input(g, "in", t);
  out_n(g, fg_rotate90(g, in, 1));
  out_n(g, fg_pad(g, in, 40, 3, 1, 77, FG_BORDER_MIRROR, 0));
  out_n(g, fg_flip(g, fg_crop(g, in, 101, 13, 211, 307), true, false));
  void *out[3];
  run_graph(g, img.data, 3, out);
  int64_t one = 1, pa[2] = {40, 1};
  expect_geo("photo rotate90", t, img.data, out[0], W, H, map_rot, &one, 0,
             0);
  expect_geo("photo pad mirror", t, img.data, out[1], H + 43, W + 78, map_pad,
             pa, FG_BORDER_MIRROR, 0);
  /* flip of a crop: column 306 - x + 13, row y + 101 */
  ref_img r = ref_from(t, img.data);
  size_t n = 211 * 307 * 3, i = 0;
  double *w = malloc(n * sizeof *w);
  for (int64_t y = 0; y < 211; y++)
    for (int64_t x = 0; x < 307; x++)
      for (int c = 0; c < 3; c++)
        w[i++] = ref_at(&r, 0, y + 101, 306 - x + 13, c, FG_BORDER_CLAMP, 0);
  expect_close("photo crop+flip", FG_U8, out[2], w, n, 0, 0);
  free(w);
  free(r.v);
  for (int k = 0; k < 3; k++)
    free(out[k]);
  fg_graph_free(g);
  fg_image_free(&img);
}
END_TEST

/* The warp's source coordinate, as the header defines it, in float with
 * each product rounded (as the library computes it). */
static float warp_coord(const double *m, int64_t x, int64_t y) {
  float s = (float)m[2], p = (float)x * (float)m[0];
  s = s + p;
  p = (float)y * (float)m[1];
  return s + p;
}

START_TEST(test_ops_warp_affine) {
  const double ang = 0.3, sc = 1.25;
  const int64_t H = 23, W = 19, OH = 17, OW = 29;
  double m[6] = {cos(ang) * sc, -sin(ang) * sc, 4.5,
                 sin(ang) * sc, cos(ang) * sc,  -3.25};
  fg_type t = fg_type_vector(FG_F32, fg_shape2(H, W), 4);
  void *d = random_data(FG_F32, (size_t)(H * W * 4), 77);
  fg_graph *g = fg_graph_new("warp");
  fg_field *in = fg_input(g, "in", t);
  out_n(g, fg_warp_affine(g, in, m, OH, OW, FG_INTERP_NEAREST,
                          FG_BORDER_CONSTANT, 7));
  out_n(g, fg_warp_affine(g, in, m, OH, OW, FG_INTERP_BILINEAR, FG_BORDER_WRAP,
                          0));
  void *out[2];
  run_graph(g, d, 2, out);
  ref_img r = ref_from(t, d);
  size_t n = (size_t)(OH * OW * 4);
  double *wn = malloc(n * sizeof *wn), *wl = malloc(n * sizeof *wl);
  for (int64_t y = 0, i = 0; y < OH; y++)
    for (int64_t x = 0; x < OW; x++)
      for (int c = 0; c < 4; c++, i++) {
        float sx = warp_coord(m, x, y), sy = warp_coord(m + 3, x, y);
        wn[i] = ref_at(&r, 0, (int64_t)floorf(sy + 0.5f),
                       (int64_t)floorf(sx + 0.5f), c, FG_BORDER_CONSTANT, 7);
        double fx = floor(sx), fy = floor(sy);
        double ax = sx - fx, ay = sy - fy;
        double v = 0;
        for (int k = 0; k < 4; k++)
          v += (k % 2 ? ax : 1 - ax) * (k / 2 ? ay : 1 - ay) *
               ref_at(&r, 0, (int64_t)fy + k / 2, (int64_t)fx + k % 2, c,
                      FG_BORDER_WRAP, 0);
        wl[i] = v;
      }
  expect_close("warp nearest", FG_F32, out[0], wn, n, 0, 0);
  expect_close("warp bilinear", FG_F32, out[1], wl, n, 1e-3, RTOL);
  free(wn);
  free(wl);
  free(out[0]);
  free(out[1]);
  free(r.v);
  free(d);
  fg_graph_free(g);
}
END_TEST

/* Keys' cubic weight at distance d, a = -0.75. */
static double keys(double d) {
  const double a = -0.75;
  d = fabs(d);
  if (d <= 1)
    return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2)
    return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

/* fg_resize by the header's definitions, in double. */
static double *resize_ref(const ref_img *r, int64_t oh, int64_t ow,
                          fg_interp ip) {
  size_t n = (size_t)(r->L * oh * ow * r->C), i = 0;
  double *o = malloc(n * sizeof *o + 8);
  double sy = (double)r->H / oh, sx = (double)r->W / ow;
  if (ip == FG_INTERP_AREA && (sy < 1 || sx < 1))
    ip = FG_INTERP_BILINEAR;
  for (int64_t l = 0; l < r->L; l++)
    for (int64_t y = 0; y < oh; y++)
      for (int64_t x = 0; x < ow; x++)
        for (int c = 0; c < r->C; c++, i++) {
          double v = 0;
          if (ip == FG_INTERP_NEAREST) {
            v = ref_at(r, l, y * r->H / oh, x * r->W / ow, c, FG_BORDER_CLAMP,
                       0);
          } else if (ip == FG_INTERP_AREA) {
            double y0 = y * sy, y1 = (y + 1) * sy, x0 = x * sx,
                   x1 = (x + 1) * sx;
            for (int64_t iy = (int64_t)floor(y0); iy < y1; iy++)
              for (int64_t ix = (int64_t)floor(x0); ix < x1; ix++) {
                double wy = fmin(iy + 1, y1) - fmax(iy, y0);
                double wx = fmin(ix + 1, x1) - fmax(ix, x0);
                v += wy * wx * ref_at(r, l, iy, ix, c, FG_BORDER_CLAMP, 0);
              }
            v /= sy * sx;
          } else {
            double fy = (y + 0.5) * sy - 0.5, fx = (x + 0.5) * sx - 0.5;
            int64_t iy = (int64_t)floor(fy), ix = (int64_t)floor(fx);
            int lo = ip == FG_INTERP_BICUBIC ? -1 : 0;
            int hi = ip == FG_INTERP_BICUBIC ? 2 : 1;
            for (int dy = lo; dy <= hi; dy++)
              for (int dx = lo; dx <= hi; dx++) {
                double wy = ip == FG_INTERP_BICUBIC ? keys(fy - (iy + dy))
                                                    : 1 - fabs(fy - (iy + dy));
                double wx = ip == FG_INTERP_BICUBIC ? keys(fx - (ix + dx))
                                                    : 1 - fabs(fx - (ix + dx));
                v += wy * wx *
                     ref_at(r, l, iy + dy, ix + dx, c, FG_BORDER_CLAMP, 0);
              }
          }
          o[i] = v;
        }
  return o;
}

static void resize_case(fg_type t, const void *d, int64_t oh, int64_t ow,
                        const char *label) {
  fg_graph *g = fg_graph_new("resize");
  fg_field *in = fg_input(g, "in", t);
  for (int ip = 0; ip < 4; ip++)
    out_n(g, fg_resize(g, in, oh, ow, (fg_interp)ip));
  void *out[4];
  run_graph(g, d, 4, out);
  ref_img r = ref_from(t, d);
  size_t n = (size_t)(r.L * oh * ow * r.C);
  static const char *const names[4] = {"nearest", "bilinear", "bicubic",
                                       "area"};
  for (int ip = 0; ip < 4; ip++) {
    double *w = resize_ref(&r, oh, ow, (fg_interp)ip);
    round_to(t.elem, w, n);
    char what[128];
    snprintf(what, sizeof what, "%s -> %lldx%lld %s", label, (long long)oh,
             (long long)ow, names[ip]);
    expect_close(what, t.elem, out[ip], w, n, ip ? atol_of(t.elem) : 0,
                 ip ? RTOL : 0);
    free(w);
    free(out[ip]);
  }
  free(r.v);
  fg_graph_free(g);
}

START_TEST(test_ops_resize) {
  fg_type t = fg_type_vector(FG_F32, fg_shape2(17, 13), 2);
  void *d = random_data(FG_F32, 17 * 13 * 2, 5);
  resize_case(t, d, 5, 7, "f32x2 17x13");   /* non-integer shrink */
  resize_case(t, d, 40, 29, "f32x2 17x13"); /* growth */
  free(d);
  fg_type one = fg_type_scalar(FG_F32, fg_shape2(1, 1));
  float v = 3.5f;
  resize_case(one, &v, 3, 2, "f32 1x1");
  fg_type row = fg_type_vector(FG_U8, fg_shape3(2, 1, 11), 3);
  d = random_data(FG_U8, 2 * 11 * 3, 6);
  resize_case(row, d, 2, 4, "u8x3 2x1x11");
  free(d);
  fg_image img = photo("chelsea.png");
  fg_type pt = fg_type_image(FG_U8, img.height, img.width, img.channels);
  resize_case(pt, img.data, 100, 150, "photo"); /* exactly a third */
  resize_case(pt, img.data, 131, 223, "photo");
  fg_image_free(&img);
}
END_TEST

/* Area shrinks by whole factors (2 x 3, 4 x 4, 1 x 2, 3 x 1), which run
 * counted loops over each cell (no poll of the stop flag in the C
 * dialect's kernel) with weights 1: bit for bit the float sums of the
 * general loop, row by row, times 1 / (sy sx) as a float; u8x3 rounded to
 * nearest even, f32 with -0, infinities and a NaN. */
START_TEST(test_ops_resize_area_whole_factors) {
  enum { H = 12, W = 12 };
  static const int f[4][2] = {{2, 3}, {4, 4}, {1, 2}, {3, 1}};
  uint64_t seed = 77;
  uint8_t *u = random_data(FG_U8, H * W * 3, seed);
  float *x = random_data(FG_F32, H * W, seed + 1);
  x[0] = -0.0f;
  x[1] = -0.0f;
  x[30] = INFINITY;
  x[100] = NAN;
  for (int c = 0; c < 4; c++) {
    int oh = H / f[c][0], ow = W / f[c][1];
    fg_graph *g = fg_graph_new("area_whole");
    fg_field *iu = fg_input(g, "u", fg_type_image(FG_U8, H, W, 3));
    fg_field *ix = fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape2(H, W)));
    fg_output(g, "ou", fg_resize(g, iu, oh, ow, FG_INTERP_AREA));
    fg_output(g, "ox", fg_resize(g, ix, oh, ow, FG_INTERP_AREA));
    fg_context *ctx = tu_context();
    fg_program *p = tu_compile(ctx, g);
    for (int k = 0; k < fg_program_kernel_count(p); k++) {
      const char *src = fg_program_kernel_source(p, k);
      if (strstr(fg_program_kernel_name(p, k), "resize") &&
          !strstr(src, "__kernel"))
        ck_assert_msg(!strstr(src, "fgk_go(fgk_stop)"),
                      "%dx%d: the cells' loops are not counted", f[c][0],
                      f[c][1]);
    }
    uint8_t *ou = malloc((size_t)oh * ow * 3);
    float *ox = malloc(sizeof(float) * oh * ow);
    ck_assert_int_eq(fg_program_run(p, 2, (const void *[]){u, x}, 2,
                                    (void *[]){ou, ox}),
                     FG_OK);
    float norm = (float)(1.0 / ((double)f[c][0] * f[c][1]));
    for (int y = 0; y < oh; y++)
      for (int xx = 0; xx < ow; xx++)
        for (int ch = 0; ch < 4; ch++) {   /* 0-2: u8x3, 3: f32 */
          float acc = 0;
          for (int i = 0; i < f[c][0]; i++) {
            float racc = 0;
            for (int j = 0; j < f[c][1]; j++) {
              int at = (y * f[c][0] + i) * W + xx * f[c][1] + j;
              volatile float t = ch < 3 ? (float)u[at * 3 + ch] : x[at];
              racc = racc + t;
            }
            acc = acc + racc;
          }
          volatile float v = acc * norm;
          if (ch < 3) {
            float r = rintf(v);
            int want = r <= 0 ? 0 : r >= 255 ? 255 : (int)r;
            int got = ou[(y * ow + xx) * 3 + ch];
            ck_assert_msg(got == want, "%dx%d u8 at (%d, %d, %d): %d, want "
                          "%d", f[c][0], f[c][1], y, xx, ch, got, want);
          } else {
            float got = ox[y * ow + xx], want = v;
            ck_assert_msg(memcmp(&got, &want, sizeof got) == 0 ||
                              (isnan(got) && isnan(want)),
                          "%dx%d f32 at (%d, %d): %a, want %a", f[c][0],
                          f[c][1], y, xx, (double)got, (double)want);
          }
        }
    free(ou);
    free(ox);
    fg_program_free(p);
    tu_context_free(ctx);
    fg_graph_free(g);
  }
  free(u);
  free(x);
}
END_TEST

/* ---- gathered small tensors of narrow elements (emit/taps.c) ---------- */

/* Element c of pixel (y, x) of an h x w image of n elements of el (u8,
 * u16 or i16) under border b (constant: cval). */
static float tap_ref(fg_elem el, const void *p, int h, int w, int n, int y,
                     int x, int c, fg_border b, float cval) {
  int64_t yy = border_ref(y, h, b), xx = border_ref(x, w, b);
  if (yy < 0 || xx < 0)
    return cval;
  size_t i = ((size_t)yy * w + xx) * n + c;
  return el == FG_U8    ? ((const uint8_t *)p)[i]
         : el == FG_U16 ? ((const uint16_t *)p)[i]
                        : ((const int16_t *)p)[i];
}

/* v rounded to nearest even and saturated to el, as an int. */
static long sat_ref(fg_elem el, float v) {
  float r = rintf(v);
  float lo = el == FG_I16 ? -32768 : 0;
  float hi = el == FG_U8 ? 255 : el == FG_U16 ? 65535 : 32767;
  return r <= lo ? (long)lo : r >= hi ? (long)hi : (long)r;
}

static long got_elem(fg_elem el, const void *p, size_t i) {
  return el == FG_U8    ? ((const uint8_t *)p)[i]
         : el == FG_U16 ? ((const uint16_t *)p)[i]
                        : ((const int16_t *)p)[i];
}

/* One bilinear output element, the library's float steps one by one
 * (volatile: no contraction), clamped taps. */
static long bilinear_ref(fg_elem el, const void *p, int h, int w, int n,
                         int oh, int ow, int y, int x, int c) {
  volatile float sy = (float)((double)h / oh), sx = (float)((double)w / ow);
  volatile float fy = (float)y + 0.5f, fx = (float)x + 0.5f;
  fy = fy * sy;
  fy = fy - 0.5f;
  fx = fx * sx;
  fx = fx - 0.5f;
  float gy = floorf(fy), gx = floorf(fx);
  int iy = (int)gy, ix = (int)gx;
  fy = fy - gy;
  fx = fx - gx;
  volatile float wx0 = 1.0f - fx, wy0 = 1.0f - fy, acc = 0;
  for (int r = 0; r < 2; r++) {
    volatile float row = 0, t;
    t = tap_ref(el, p, h, w, n, iy + r, ix, c, FG_BORDER_CLAMP, 0) * wx0;
    row = row + t;
    t = tap_ref(el, p, h, w, n, iy + r, ix + 1, c, FG_BORDER_CLAMP, 0) * fx;
    row = row + t;
    t = row * (r ? fy : wy0);
    acc = acc + t;
  }
  return sat_ref(el, acc);
}

/* Whether a CPU kernel of p named like name holds text (OpenCL kernels,
 * "__kernel", say nothing: true). */
static bool cpu_source_has(fg_program *p, const char *name,
                           const char *text) {
  for (int k = 0; k < fg_program_kernel_count(p); k++) {
    const char *src = fg_program_kernel_source(p, k);
    if (strstr(fg_program_kernel_name(p, k), name) &&
        !strstr(src, "__kernel") && !strstr(src, text))
      return false;
  }
  return true;
}

/* Nearest and bilinear resizes (down and up, sizes of no vector width)
 * and nearest warps under every border rule of u8, u16 and i16 images of
 * 2-4 elements, exactly as the float steps written out here compute them.
 * Their taps are gathers: the CPU kernels read each of at most 4 bytes as
 * one word (fgk_tap4; a resize's row by row into tables, fgk_rowgatherw,
 * emit/rowtaps.c), the last pixels' words ending at the end of the input
 * (allocated to its size, no slack); a 1 x 1 u8x3 image has fewer bytes
 * than a word, and 6- and 8-byte tensors more: read per element. */
START_TEST(test_ops_resize_word_taps) {
  static const struct { fg_elem el; int n, h, w; const char *tap; } ty[] = {
    {FG_U8, 3, 7, 5, "fgk_tap4("},  {FG_U8, 2, 9, 6, "fgk_tap4("},
    {FG_U8, 4, 5, 11, "fgk_tap4("}, {FG_U16, 3, 7, 5, NULL},
    {FG_U16, 2, 3, 9, "fgk_tap4("}, {FG_I16, 2, 6, 7, "fgk_tap4("},
    {FG_I16, 4, 6, 7, NULL},        {FG_U8, 3, 1, 1, NULL}};
  static const int osz[3][2] = {{3, 4}, {11, 13}, {2, 17}};
  const double m[6] = {0.93, 0.21, -3.5, -0.17, 1.07, 2.25};
  for (size_t t = 0; t < sizeof ty / sizeof *ty; t++) {
    fg_elem el = ty[t].el;
    int n = ty[t].n, h = ty[t].h, w = ty[t].w;
    size_t bytes = (size_t)h * w * n * fg_elem_size(el);
    void *d = random_data(el == FG_I16 ? FG_U16 : el, bytes, 40 + t);
    void *in = malloc(bytes);      /* no slack after the last pixel */
    memcpy(in, d, bytes);
    fg_graph *g = fg_graph_new("word_taps");
    fg_field *x = fg_input(g, "in", fg_type_image(el, h, w, n));
    for (int o = 0; o < 3; o++) {
      out_n(g, fg_resize(g, x, osz[o][0], osz[o][1], FG_INTERP_NEAREST));
      out_n(g, fg_resize(g, x, osz[o][0], osz[o][1], FG_INTERP_BILINEAR));
    }
    for (int b = 0; b < 5; b++)
      out_n(g, fg_warp_affine(g, x, m, 8, 9, FG_INTERP_NEAREST, borders[b],
                              7));
    ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
    fg_context *ctx = tu_context();
    fg_program *p = tu_compile(ctx, g);
    /* (a resize's word taps fill row tables, emit/rowtaps.c) */
    ck_assert_msg(cpu_source_has(p, "resize", ty[t].tap ? "fgk_rowgatherw("
                                                        : "fgk_at"),
                  "type %zu: the taps' reads", t);
    ck_assert_msg(cpu_source_has(p, "warp", ty[t].tap ? ty[t].tap
                                                      : "fgk_at"),
                  "type %zu: the warps' reads", t);
    ck_assert_msg(ty[t].tap || cpu_source_has(p, "resize", "in0["),
                  "type %zu: bytewise reads", t);
    void *out[11];
    for (int i = 0; i < 11; i++)
      out[i] = malloc(fg_type_bytes(fg_program_output_type(p, i)));
    ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){in}, 11, out),
                     FG_OK);
    for (int o = 0; o < 3; o++) {
      int oh = osz[o][0], ow = osz[o][1];
      for (int y = 0; y < oh; y++)
        for (int xx = 0; xx < ow; xx++)
          for (int c = 0; c < n; c++) {
            size_t i = ((size_t)y * ow + xx) * n + c;
            long want = (long)tap_ref(el, in, h, w, n,
                                      (int)((int64_t)y * h / oh),
                                      (int)((int64_t)xx * w / ow), c,
                                      FG_BORDER_CLAMP, 0);
            ck_assert_msg(got_elem(el, out[2 * o], i) == want,
                          "type %zu nearest %dx%d at %zu: %ld, want %ld", t,
                          oh, ow, i, got_elem(el, out[2 * o], i), want);
            want = bilinear_ref(el, in, h, w, n, oh, ow, y, xx, c);
            ck_assert_msg(got_elem(el, out[2 * o + 1], i) == want,
                          "type %zu bilinear %dx%d at %zu: %ld, want %ld", t,
                          oh, ow, i, got_elem(el, out[2 * o + 1], i), want);
          }
    }
    for (int b = 0; b < 5; b++)
      for (int y = 0; y < 8; y++)
        for (int xx = 0; xx < 9; xx++) {
          volatile float sx = (float)m[2], sy = (float)m[5], q;
          q = (float)xx * (float)m[0];
          sx = sx + q;
          q = (float)y * (float)m[1];
          sx = sx + q;
          q = (float)xx * (float)m[3];
          sy = sy + q;
          q = (float)y * (float)m[4];
          sy = sy + q;
          int ix = (int)floorf(sx + 0.5f), iy = (int)floorf(sy + 0.5f);
          for (int c = 0; c < n; c++) {
            size_t i = ((size_t)y * 9 + xx) * n + c;
            long want = (long)tap_ref(el, in, h, w, n, iy, ix, c, borders[b],
                                      7);
            ck_assert_msg(got_elem(el, out[6 + b], i) == want,
                          "type %zu warp %s at %zu: %ld, want %ld", t,
                          border_names[b], i, got_elem(el, out[6 + b], i),
                          want);
          }
        }
    for (int i = 0; i < 11; i++)
      free(out[i]);
    fg_program_free(p);
    tu_context_free(ctx);
    fg_graph_free(g);
    free(in);
    free(d);
  }
}
END_TEST

/* Nearest and bilinear resizes whose source column, fraction and weights
 * the CPU kernels compute once per block of columns into tables
 * (emit/coltab.c; "fgk_col"): outputs wider than the widest block (8192
 * columns, so several blocks and a partial last one), up and down, odd
 * sizes, 1 x 1; u8, u16 and i16 of one element, u8x3, u8x4 and i16x2
 * (row tables of words, emit/rowtaps.c: groups of columns in windows of
 * the row and not), exactly as the float steps written out here compute
 * them. */
START_TEST(test_ops_resize_column_tables) {
  static const struct { fg_elem el; int n; } ty[] = {
    {FG_U8, 1}, {FG_U8, 3}, {FG_U16, 1}, {FG_I16, 1}, {FG_U8, 4},
    {FG_I16, 2}};
  static const int sz[5][4] = {{5, 3001, 1, 9001}, {40, 3001, 70, 8500},
                                {70, 5003, 41, 1999}, {1, 1, 2, 3},
                                {6, 9, 13, 8}};
  for (size_t t = 0; t < sizeof ty / sizeof *ty; t++)
    for (int z = 0; z < 5; z++) {
      fg_elem el = ty[t].el;
      int n = ty[t].n, h = sz[z][0], w = sz[z][1], oh = sz[z][2],
          ow = sz[z][3];
      size_t bytes = (size_t)h * w * n * fg_elem_size(el);
      void *in = random_data(FG_U8, bytes, 90 + 4 * t + (size_t)z);
      fg_graph *g = fg_graph_new("column_tables");
      fg_field *x = fg_input(g, "in", fg_type_image(el, h, w, n));
      out_n(g, fg_resize(g, x, oh, ow, FG_INTERP_NEAREST));
      out_n(g, fg_resize(g, x, oh, ow, FG_INTERP_BILINEAR));
      ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
      fg_context *ctx = tu_context();
      fg_program *p = tu_compile(ctx, g);
      ck_assert_msg(cpu_source_has(p, "resize", "fgk_col"),
                    "type %zu size %d: no column tables", t, z);
      void *out[2];
      for (int i = 0; i < 2; i++)
        out[i] = malloc(fg_type_bytes(fg_program_output_type(p, i)));
      ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){in}, 2, out),
                       FG_OK);
      for (int y = 0; y < oh; y++)
        for (int xx = 0; xx < ow; xx++)
          for (int c = 0; c < n; c++) {
            size_t i = ((size_t)y * ow + xx) * n + c;
            long want = (long)tap_ref(el, in, h, w, n,
                                      (int)((int64_t)y * h / oh),
                                      (int)((int64_t)xx * w / ow), c,
                                      FG_BORDER_CLAMP, 0);
            ck_assert_msg(got_elem(el, out[0], i) == want,
                          "type %zu size %d nearest at %zu: %ld, want %ld",
                          t, z, i, got_elem(el, out[0], i), want);
            want = bilinear_ref(el, in, h, w, n, oh, ow, y, xx, c);
            ck_assert_msg(got_elem(el, out[1], i) == want,
                          "type %zu size %d bilinear at %zu: %ld, want %ld",
                          t, z, i, got_elem(el, out[1], i), want);
          }
      free(out[0]);
      free(out[1]);
      fg_program_free(p);
      tu_context_free(ctx);
      fg_graph_free(g);
      free(in);
    }
}
END_TEST

/* One output element of a shrink of an h x w image of n elements of el
 * by whole factors fy x fx (fg_downsample2: 2 x 2, clamped taps, times
 * 0.25; an area resize: rows' sums, times 1 / (fy fx) as a float), the
 * library's float steps one by one. */
static long shrink_ref(fg_elem el, const void *p, int h, int w, int n,
                       int fy, int fx, bool half, int y, int x, int c) {
  volatile float acc = 0, t;
  for (int i = 0; i < fy; i++) {
    volatile float racc = 0;
    for (int j = 0; j < fx; j++) {
      t = tap_ref(el, p, h, w, n, y * fy + i, x * fx + j, c, FG_BORDER_CLAMP,
                  0);
      if (half)
        acc = acc + t;
      else
        racc = racc + t;
    }
    if (!half)
      acc = acc + racc;
  }
  volatile float v = acc * (half ? 0.25f : (float)(1.0 / ((double)fy * fx)));
  return sat_ref(el, v);
}

/* Shrinks by whole factors whose threads each read a block of points
 * (fg_downsample2's 2 x 2, area resizes' f x f) of 8- and 16-bit
 * tensors: where a thread's bytes divide into 16- or 32-bit words, the
 * CPU kernels' interior reads each element as a shift of its word
 * ("fgk_ldw2" / "fgk_ldw4": u8x3 by 2, 6 bytes, in 16-bit words; u8x3 by
 * 4 and u16x3 by 2, 12 bytes, in 32-bit ones), and where they do not
 * (u8x3 by 3, 9 bytes) element by element; odd widths (a clamped last
 * column of downsample2, outside the interior) and a 1 x 1 image (no
 * interior), the input allocated to its size (no slack after the last
 * row's words); exactly as the float steps written out here compute
 * them. */
START_TEST(test_ops_shrink_stride_words) {
  static const struct {
    fg_elem el;
    int n, h, w, fy, fx; /* fy = 0: fg_downsample2 */
    const char *word;    /* NULL: read per element */
  } cs[] = {
    {FG_U8, 3, 7, 13, 0, 0, "fgk_ldw2("},  {FG_U8, 3, 8, 16, 4, 4, "fgk_ldw4("},
    {FG_U8, 3, 9, 12, 3, 3, NULL},         {FG_U8, 2, 5, 11, 0, 0, "fgk_ldw4("},
    {FG_U8, 4, 6, 9, 0, 0, "fgk_ldw4("},   {FG_U8, 4, 9, 12, 3, 3, "fgk_ldw4("},
    {FG_U16, 3, 7, 9, 0, 0, "fgk_ldw4("},  {FG_I16, 2, 6, 10, 2, 2, "fgk_ldw4("},
    {FG_U8, 3, 6, 12, 3, 2, "fgk_ldw2("},  {FG_U8, 3, 6, 12, 2, 3, NULL},
    {FG_U8, 3, 1, 1, 0, 0, "fgk_ldw2("}};
  for (size_t t = 0; t < sizeof cs / sizeof *cs; t++) {
    fg_elem el = cs[t].el;
    int n = cs[t].n, h = cs[t].h, w = cs[t].w, fy = cs[t].fy, fx = cs[t].fx;
    bool half = fy == 0;
    int oh = half ? (h + 1) / 2 : h / fy, ow = half ? (w + 1) / 2 : w / fx;
    size_t bytes = (size_t)h * w * n * fg_elem_size(el);
    void *in = random_data(FG_U8, bytes, 300 + t); /* no slack */
    fg_graph *g = fg_graph_new("stride_words");
    fg_field *x = fg_input(g, "in", fg_type_image(el, h, w, n));
    out_n(g, half ? fg_downsample2(g, x)
                  : fg_resize(g, x, oh, ow, FG_INTERP_AREA));
    ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
    fg_context *ctx = tu_context();
    fg_program *p = tu_compile(ctx, g);
    const char *name = half ? "downsample2" : "resize";
    if (cs[t].word)
      ck_assert_msg(cpu_source_has(p, name, cs[t].word),
                    "case %zu: no %s", t, cs[t].word);
    for (int k = 0; !cs[t].word && k < fg_program_kernel_count(p); k++)
      ck_assert_msg(!strstr(fg_program_kernel_source(p, k), "fgk_ldw"),
                    "case %zu: words", t);
    void *out = malloc(fg_type_bytes(fg_program_output_type(p, 0)));
    ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){in}, 1,
                                    (void *[]){out}),
                     FG_OK);
    for (int y = 0; y < oh; y++)
      for (int xx = 0; xx < ow; xx++)
        for (int c = 0; c < n; c++) {
          size_t i = ((size_t)y * ow + xx) * n + c;
          long want = shrink_ref(el, in, h, w, n, half ? 2 : fy,
                                 half ? 2 : fx, half, y, xx, c);
          ck_assert_msg(got_elem(el, out, i) == want,
                        "case %zu at (%d, %d, %d): %ld, want %ld", t, y, xx,
                        c, got_elem(el, out, i), want);
        }
    free(out);
    fg_program_free(p);
    tu_context_free(ctx);
    fg_graph_free(g);
    free(in);
  }
}
END_TEST

/* One bilinear output element of an h x w f32 image, the library's float
 * steps one by one (volatile: no contraction), clamped taps. */
static float bilinear_f32_ref(const float *p, int h, int w, int oh, int ow,
                              int y, int x) {
  volatile float sy = (float)((double)h / oh), sx = (float)((double)w / ow);
  volatile float fy = (float)y + 0.5f, fx = (float)x + 0.5f;
  fy = fy * sy;
  fy = fy - 0.5f;
  fx = fx * sx;
  fx = fx - 0.5f;
  float gy = floorf(fy), gx = floorf(fx);
  int iy = (int)gy, ix = (int)gx;
  fy = fy - gy;
  fx = fx - gx;
  volatile float wx0 = 1.0f - fx, wy0 = 1.0f - fy, acc = 0;
  for (int r = 0; r < 2; r++) {
    volatile float row = 0, t;
    int yy = (int)border_ref(iy + r, h, FG_BORDER_CLAMP);
    t = p[(size_t)yy * w + border_ref(ix, w, FG_BORDER_CLAMP)] * wx0;
    row = row + t;
    t = p[(size_t)yy * w + border_ref(ix + 1, w, FG_BORDER_CLAMP)] * fx;
    row = row + t;
    t = row * (r ? fy : wy0);
    acc = acc + t;
  }
  return acc;
}

/* Nearest, bilinear and bicubic resizes of f32 images, whose taps the
 * CPU kernels copy row by row into tables (emit/rowtaps.c;
 * "fgk_rowgather4"): shrinks by less than 2 (each group of columns' taps
 * in one window of the row: permutes), by more (element by element),
 * growth, outputs narrower than a group, a window that would pass the
 * row's end, several blocks of columns, 1 x 1; the input allocated to its
 * size.  Nearest and bilinear exactly as the float steps written out here
 * compute them, bicubic within rounding of the definition in double. */
START_TEST(test_ops_resize_row_taps) {
  static const int sz[7][4] = {{37, 300, 23, 211}, {20, 100, 9, 33},
                               {9, 40, 17, 95},    {5, 7, 3, 5},
                               {1, 1, 2, 3},       {3, 9000, 2, 8500},
                               {6, 33, 4, 17}};
  for (int z = 0; z < 7; z++) {
    int h = sz[z][0], w = sz[z][1], oh = sz[z][2], ow = sz[z][3];
    size_t n = (size_t)h * w;
    float *d = random_data(FG_F32, n, 500 + (uint64_t)z);
    float *in = malloc(n * sizeof *in);      /* no slack after the row */
    memcpy(in, d, n * sizeof *in);
    fg_graph *g = fg_graph_new("row_taps");
    fg_type t = fg_type_scalar(FG_F32, fg_shape2(h, w));
    fg_field *x = fg_input(g, "in", t);
    out_n(g, fg_resize(g, x, oh, ow, FG_INTERP_NEAREST));
    out_n(g, fg_resize(g, x, oh, ow, FG_INTERP_BILINEAR));
    out_n(g, fg_resize(g, x, oh, ow, FG_INTERP_BICUBIC));
    ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
    fg_context *ctx = tu_context();
    fg_program *p = tu_compile(ctx, g);
    ck_assert_msg(cpu_source_has(p, "resize", "fgk_rowgather4("),
                  "size %d: no row taps", z);
    float *out[3];
    for (int i = 0; i < 3; i++)
      out[i] = malloc(fg_type_bytes(fg_program_output_type(p, i)));
    ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){in}, 3,
                                    (void **)out),
                     FG_OK);
    for (int y = 0; y < oh; y++)
      for (int xx = 0; xx < ow; xx++) {
        size_t i = (size_t)y * ow + xx;
        float want = in[(size_t)((int64_t)y * h / oh) * w +
                        (size_t)((int64_t)xx * w / ow)];
        ck_assert_msg(memcmp(&out[0][i], &want, sizeof want) == 0,
                      "size %d nearest at (%d, %d): %a, want %a", z, y, xx,
                      (double)out[0][i], (double)want);
        want = bilinear_f32_ref(in, h, w, oh, ow, y, xx);
        ck_assert_msg(memcmp(&out[1][i], &want, sizeof want) == 0,
                      "size %d bilinear at (%d, %d): %a, want %a", z, y, xx,
                      (double)out[1][i], (double)want);
      }
    /* (a float coordinate in the thousands keeps a fraction of 1e-3 at
     * best: the 9000 columns' bicubic is exact only to the float steps) */
    if (w <= 512) {
      ref_img r = ref_from(t, in);
      double *wc = resize_ref(&r, oh, ow, FG_INTERP_BICUBIC);
      char what[64];
      snprintf(what, sizeof what, "size %d bicubic", z);
      expect_close(what, FG_F32, out[2], wc, (size_t)oh * ow, 1e-2, RTOL);
      free(wc);
      free(r.v);
    }
    for (int i = 0; i < 3; i++)
      free(out[i]);
    fg_program_free(p);
    tu_context_free(ctx);
    fg_graph_free(g);
    free(in);
    free(d);
  }
}
END_TEST

START_TEST(test_ops_half_and_double) {
  fg_type t = fg_type_vector(FG_F32, fg_shape2(17, 13), 2);
  void *d = random_data(FG_F32, 17 * 13 * 2, 8);
  fg_graph *g = fg_graph_new("half");
  fg_field *in = fg_input(g, "in", t);
  out_n(g, fg_downsample2(g, in));
  out_n(g, fg_upsample2(g, in));
  void *out[2];
  run_graph(g, d, 2, out);
  ref_img r = ref_from(t, d);
  double *w = malloc(9 * 7 * 2 * sizeof *w);
  for (int y = 0, i = 0; y < 9; y++)
    for (int x = 0; x < 7; x++)
      for (int c = 0; c < 2; c++, i++) {
        w[i] = 0;
        for (int k = 0; k < 4; k++)
          w[i] += 0.25 * ref_at(&r, 0, 2 * y + k / 2, 2 * x + k % 2, c,
                                FG_BORDER_CLAMP, 0);
      }
  expect_close("downsample2", FG_F32, out[0], w, 9 * 7 * 2, 1e-3, RTOL);
  free(w);
  w = resize_ref(&r, 34, 26, FG_INTERP_BILINEAR);
  expect_close("upsample2", FG_F32, out[1], w, 34 * 26 * 2, 1e-3, RTOL);
  free(w);
  free(out[0]);
  free(out[1]);
  free(r.v);
  free(d);
  fg_graph_free(g);
}
END_TEST

static void hist_ref(const float *v, size_t n, int bins, double lo, double hi,
                     uint32_t *want) {
  memset(want, 0, sizeof *want * (size_t)bins);
  float flo = (float)lo, fhi = (float)hi, sc = (float)(bins / (hi - lo));
  for (size_t i = 0; i < n; i++) {
    if (!(v[i] >= flo && v[i] <= fhi))
      continue;
    int b = (int)floorf((v[i] - flo) * sc);
    want[b < 0 ? 0 : b >= bins ? bins - 1 : b]++;
  }
}

START_TEST(test_ops_histogram) {
  fg_shape shapes[3] = {fg_shape2(37, 29), fg_shape1(101), fg_shape3(3, 5, 7)};
  for (int s = 0; s < 3; s++) {
    fg_type t = fg_type_scalar(FG_F32, shapes[s]);
    size_t n = (size_t)fg_shape_points(shapes[s]);
    float *d = random_data(FG_F32, n, 90 + s);
    d[0] = 50.0f;  /* == hi: the last bin */
    d[1] = -50.0f; /* == lo: the first */
    d[2] = NAN;    /* ignored */
    fg_graph *g = fg_graph_new("hist");
    fg_field *in = fg_input(g, "in", t);
    out_n(g, fg_histogram(g, in, 7, -50, 50));
    out_n(g, fg_histogram(g, in, 256, -100, 100));
    void *out[2];
    run_graph(g, d, 2, out);
    uint32_t want[256];
    hist_ref(d, n, 7, -50, 50, want);
    for (int b = 0; b < 7; b++)
      ck_assert_uint_eq(((uint32_t *)out[0])[b], want[b]);
    hist_ref(d, n, 256, -100, 100, want);
    for (int b = 0; b < 256; b++)
      ck_assert_uint_eq(((uint32_t *)out[1])[b], want[b]);
    free(out[0]);
    free(out[1]);
    free(d);
    fg_graph_free(g);
  }
  /* a photo, 16 bins of its grey values */
  fg_image img = photo("camera.png");
  fg_type t = fg_type_image(FG_U8, img.height, img.width, 1);
  fg_graph *g = fg_graph_new("hist");
  out_n(g, fg_histogram(g, fg_input(g, "in", t), 16, 0, 256));
  void *out[1];
  run_graph(g, img.data, 1, out);
  uint32_t want[16] = {0};
  for (int i = 0; i < img.width * img.height; i++)
    want[img.data[i] / 16]++;
  for (int b = 0; b < 16; b++)
    ck_assert_uint_eq(((uint32_t *)out[0])[b], want[b]);
  free(out[0]);
  fg_graph_free(g);
  fg_image_free(&img);
}
END_TEST

/* Runs g (one input) at precision p; returns its outputs. */
static void run_graph_at(fg_graph *g, const void *in, int n_out, void **out,
                         fg_precision p) {
  ck_assert_msg(fg_graph_status(g) == FG_OK, "graph: %s", fg_graph_errmsg(g));
  fg_context *ctx = tu_context();
  fg_compile_options o = {.precision = p, .fusion = FG_FUSION_ON};
  fg_program *prog = NULL;
  ck_assert_msg(fg_compile(ctx, g, &o, &prog) == FG_OK, "compile: %s",
                fg_context_errmsg(ctx));
  for (int i = 0; i < n_out; i++)
    out[i] = calloc(1, fg_type_bytes(fg_program_output_type(prog, i)) + 8);
  fg_status st = fg_program_run(prog, 1, &in, n_out, out);
  ck_assert_msg(st == FG_OK, "run: %s", fg_context_errmsg(ctx));
  fg_program_free(prog);
  tu_context_free(ctx);
}

/* Histograms of u8, i8, u16 and f32 fields against a count in C: ranges
 * where the kernel skips the validity test, floor and the clamps (u8 over
 * [0, 256), f32 over [0, 1), i8 over [-128, 128)) and where it may not
 * (an offset large for the bins' width, 1e6 + [0, 3]), bins not dividing
 * the range, 256 bins (two histograms a thread) and 5000 (one), values
 * at, just inside and just beyond each range's edges, the types'
 * extremes, infinities and NaN; rows more than the threads
 * (several rows a thread, the last thread's partial).  Relaxed math, which
 * may reorder (v - lo) * scale, counts the same values in range. */
START_TEST(test_ops_histogram_types) {
  static const fg_elem elems[] = {FG_U8, FG_I8, FG_U16, FG_F32};
  static const struct {
    double lo, hi;
    int bins;
  } rg[] = {{0, 256, 256},   {0, 256, 7},     {0, 255, 256},
            {10.5, 200, 13}, {-128, 128, 256}, {-3, 5, 7},
            {0, 1, 256},     {100, 40000, 9}, {0, 65536, 256},
            {1e6, 1e6 + 3, 256}, {-1e-3, 1e-3, 5},
            {-100, 100, 5000}}; /* one histogram a thread, not two */
  enum { NR = sizeof rg / sizeof rg[0] };
  fg_shape shapes[2] = {fg_shape2(301, 50), fg_shape3(3, 5, 7)};
  for (int e = 0; e < 4; e++)
    for (int sh = 0; sh < 2; sh++)
      for (int prec = 0; prec < 2; prec++) {
        fg_elem el = elems[e];
        size_t n = (size_t)fg_shape_points(shapes[sh]);
        float *v = malloc(n * sizeof *v); /* the values, for the count */
        void *d = malloc(n * fg_elem_size(el));
        uint64_t st = 77 + (uint64_t)e;
        for (size_t i = 0; i < n; i++) {
          uint32_t r = rnd(&st);
          /* the edges: lo and hi of each range and their neighbours */
          double edge = rg[i / 6 % NR].lo, f;
          if (i % 6 >= 3)
            edge = rg[i / 6 % NR].hi;
          switch (el) {
          case FG_U8:
            ((uint8_t *)d)[i] = (uint8_t)(i < 256 ? i : r);
            v[i] = ((uint8_t *)d)[i];
            break;
          case FG_I8:
            ((int8_t *)d)[i] = (int8_t)(uint8_t)(i < 256 ? i : r);
            v[i] = ((int8_t *)d)[i];
            break;
          case FG_U16:
            f = i < 6 * NR ? edge + (int)(i % 3) - 1 : (double)(uint16_t)r;
            f = f < 0 ? 0 : f > 65535 ? 65535 : floor(f);
            ((uint16_t *)d)[i] = i == 6 * NR ? 65535 : (uint16_t)f;
            v[i] = ((uint16_t *)d)[i];
            break;
          default:
            if (i < 6 * NR) {
              float fe = (float)edge;
              v[i] = i % 3 == 0   ? nextafterf(fe, -INFINITY)
                     : i % 3 == 1 ? fe
                                  : nextafterf(fe, INFINITY);
            } else if (i % 97 == 0) {
              v[i] = (float)(r % 4000) / 1000.0f - 2.0f; /* near [0, 1] */
            } else if (i % 89 == 0) { /* in 1e6 + [0, 3], 1/16 apart */
              v[i] = 1e6f + (float)(r % 50) * 0.0625f;
            } else {
              v[i] = (float)((r % 2000000) / 10000.0 - 100);
            }
            if (i == 6 * NR)
              v[i] = NAN;
            if (i == 6 * NR + 1)
              v[i] = INFINITY;
            if (i == 6 * NR + 2)
              v[i] = -INFINITY;
            if (i == 6 * NR + 3)
              v[i] = -0.0f;
            ((float *)d)[i] = v[i];
          }
        }
        fg_graph *g = fg_graph_new("hist_types");
        fg_field *in = fg_input(g, "in", fg_type_scalar(el, shapes[sh]));
        for (int k = 0; k < NR; k++)
          out_n(g, fg_histogram(g, in, rg[k].bins, rg[k].lo, rg[k].hi));
        void *out[NR];
        run_graph_at(g, d, NR, out,
                     prec ? FG_PRECISION_RELAXED : FG_PRECISION_FULL);
        for (int k = 0; k < NR; k++) {
          uint32_t want[5000];
          const uint32_t *got = out[k];
          hist_ref(v, n, rg[k].bins, rg[k].lo, rg[k].hi, want);
          uint64_t tg = 0, tw = 0;
          for (int b = 0; b < rg[k].bins; b++) {
            tg += got[b];
            tw += want[b];
            ck_assert_msg(prec || got[b] == want[b],
                          "%s %s, %d bins over [%g, %g]: bin %d counts "
                          "%u, expected %u",
                          fg_elem_name(el), sh ? "3-D" : "2-D", rg[k].bins,
                          rg[k].lo, rg[k].hi, b, got[b], want[b]);
          }
          ck_assert_msg(tg == tw,
                        "%s, %d bins over [%g, %g], relaxed %d: %llu counted, "
                        "expected %llu",
                        fg_elem_name(el), rg[k].bins, rg[k].lo, rg[k].hi,
                        prec, (unsigned long long)tg,
                        (unsigned long long)tw);
          free(out[k]);
        }
        fg_graph_free(g);
        free(d);
        free(v);
      }
}
END_TEST

START_TEST(test_ops_whole_reductions) {
  fg_type t = fg_type_vector(FG_I32, fg_shape2(31, 17), 3);
  size_t n = 31 * 17;
  int32_t *d = random_data(FG_I32, n * 3, 21);
  fg_graph *g = fg_graph_new("whole");
  fg_field *in = fg_input(g, "in", t);
  out_n(g, fg_reduce_sum(g, in));
  out_n(g, fg_reduce_min(g, in));
  out_n(g, fg_reduce_max(g, in));
  out_n(g, fg_reduce_mean(g, in));
  void *out[4];
  run_graph(g, d, 4, out);
  for (int c = 0; c < 3; c++) {
    int64_t s = 0;
    int32_t mn = d[c], mx = d[c];
    for (size_t i = 0; i < n; i++) {
      int32_t v = d[i * 3 + c];
      s += v;
      mn = v < mn ? v : mn;
      mx = v > mx ? v : mx;
    }
    ck_assert_int_eq(((int32_t *)out[0])[c], s);
    ck_assert_int_eq(((int32_t *)out[1])[c], mn);
    ck_assert_int_eq(((int32_t *)out[2])[c], mx);
    ck_assert_float_eq_tol(((float *)out[3])[c], (double)s / n, 1e-4);
  }
  for (int i = 0; i < 4; i++)
    free(out[i]);
  free(d);
  fg_graph_free(g);
}
END_TEST

/* ---- reductions along axes -------------------------------------------- */

static fg_field *affine_op(fg_graph *g, fg_field *in, float a, float b) {
  fg_type t = fg_field_type(in);
  fg_op *op = fg_op_begin(g, "affine", 1, &t);
  fg_write_tensor(op, 0, fg_addf(fg_mulf(fg_read_tensor(op, in), a), b));
  return fg_op_end(op);
}

/* x[N,H,W] vec4 reduced over axes (bits 0-2 field, 3 tensor) by op in
 * double, in index order; mean divides the sum. */
static double *axes_ref(const float *x, const int64_t dim[3], unsigned axes,
                        int op, size_t *n_out) {
  int64_t od[4] = {dim[0], dim[1], dim[2], 4};
  for (int a = 0; a < 4; a++)
    if (axes >> a & 1)
      od[a] = 1;
  size_t n = (size_t)(od[0] * od[1] * od[2] * od[3]);
  double *o = malloc(n * sizeof *o), *cnt = calloc(n, sizeof *cnt);
  for (size_t i = 0; i < n; i++)
    o[i] = op == 1 ? INFINITY : op == 2 ? -INFINITY : 0;
  for (int64_t l = 0; l < dim[0]; l++)
    for (int64_t y = 0; y < dim[1]; y++)
      for (int64_t xx = 0; xx < dim[2]; xx++)
        for (int c = 0; c < 4; c++) {
          /* the producer, in float as the operator computes it */
          float fv = x[((l * dim[1] + y) * dim[2] + xx) * 4 + c] * 2.0f;
          double v = fv + 1.0f;
          int64_t ol = axes & 1 ? 0 : l, oy = axes & 2 ? 0 : y;
          int64_t ox = axes & 4 ? 0 : xx, oc = axes & 8 ? 0 : c;
          size_t i = (size_t)(((ol * od[1] + oy) * od[2] + ox) * od[3] + oc);
          if (op == 1)
            o[i] = fmin(o[i], v);
          else if (op == 2)
            o[i] = fmax(o[i], v);
          else
            o[i] += v;
          cnt[i]++;
        }
  for (size_t i = 0; i < n; i++) {
    if (op == 3)
      o[i] /= cnt[i];
    o[i] = (float)o[i] * 0.5f; /* the consumer */
  }
  free(cnt);
  *n_out = n;
  return o;
}

START_TEST(test_ops_reduce_axes_fused_and_unfused) {
  const int64_t dim[3] = {5, 7, 6};
  fg_type t = fg_type_vector(FG_F32, fg_shape3(dim[0], dim[1], dim[2]), 4);
  size_t n = (size_t)(dim[0] * dim[1] * dim[2] * 4);
  float *x = random_data(FG_F32, n, 33);
  static const unsigned masks[7] = {1, 2, 4, 8, 3, 7, 15};
  fg_graph *g = fg_graph_new("axes");
  fg_field *in = fg_input(g, "x", t);
  fg_field *p = affine_op(g, in, 2.0f, 1.0f);
  int n_out = 0;
  for (int m = 0; m < 7; m++)
    for (int keep = 0; keep < 2; keep++)
      for (int op = 0; op < 4; op++) {
        fg_field *r = op == 3 ? fg_mean_axes(g, NULL, p, masks[m], keep)
                              : fg_reduce_axes(g, NULL, (fg_reduce_op)op, p,
                                               masks[m], keep);
        out_n(g, affine_op(g, r, 0.5f, 0.0f));
        n_out++;
      }
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  fg_context *ctx = tu_context();
  fg_program *prog[2];
  void *out[2][56];
  for (int f = 0; f < 2; f++) {
    fg_compile_options o = {.fusion = f ? FG_FUSION_OFF : FG_FUSION_ON};
    ck_assert_msg(fg_compile(ctx, g, &o, &prog[f]) == FG_OK, "%s",
                  fg_context_errmsg(ctx));
    for (int i = 0; i < n_out; i++)
      out[f][i] = calloc(1, fg_type_bytes(fg_program_output_type(prog[f], i)));
    ck_assert_int_eq(
        fg_program_run(prog[f], 1, (const void *[]){x}, n_out, out[f]), FG_OK);
  }
  int i = 0;
  for (int m = 0; m < 7; m++)
    for (int keep = 0; keep < 2; keep++)
      for (int op = 0; op < 4; op++, i++) {
        fg_type ot = fg_program_output_type(prog[0], i);
        size_t bytes = fg_type_bytes(ot), nw;
        double *w = axes_ref(x, dim, masks[m], op, &nw);
        ck_assert_uint_eq(bytes, nw * sizeof(float));
        /* dimensions: kept (1) or removed */
        int nd = 0;
        for (int a = 0; a < 3; a++)
          nd += !(masks[m] >> a & 1) || keep;
        ck_assert_int_eq(ot.field.ndim, nd);
        ck_assert_int_eq(fg_type_tensor_elements(ot), masks[m] & 8 ? 1 : 4);
        char what[64];
        snprintf(what, sizeof what, "axes 0x%x keep %d op %d", masks[m], keep,
                 op);
        expect_close(what, FG_F32, out[0][i], w, nw,
                     op == 1 || op == 2 ? 0 : 1e-3,
                     op == 1 || op == 2 ? 0 : RTOL);
        ck_assert_msg(memcmp(out[0][i], out[1][i], bytes) == 0,
                      "%s: fused and unfused differ", what);
        free(w);
      }
  for (int f = 0; f < 2; f++) {
    for (int k = 0; k < n_out; k++)
      free(out[f][k]);
    fg_program_free(prog[f]);
  }
  tu_context_free(ctx);
  fg_graph_free(g);
  free(x);
}
END_TEST

/* Regression (found by fuzz/fuzz_diff.c): sums and products along axes of
 * 8- and 16-bit integers were refused ("cannot assign int to a short
 * variable": C promotes the operands to int); they wrap in the element
 * type, as documented. */
START_TEST(test_ops_regression_reduce_axes_small_integers) {
  enum { R = 3, C = 5 };
  int16_t x[R][C][2];
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++)
      for (int k = 0; k < 2; k++)
        x[r][c][k] = (int16_t)(9000 * (r + 1) - 700 * c + 31 * k);
  fg_graph *g = fg_graph_new("axes16");
  fg_field *in = fg_input(g, "x", fg_type_vector(FG_I16, fg_shape2(R, C), 2));
  fg_output(g, "sum_rows", fg_reduce_axes(g, NULL, FG_REDUCE_SUM, in,
                                          FG_AXIS(0), false));
  fg_output(g, "prod_cols", fg_reduce_axes(g, NULL, FG_REDUCE_PROD, in,
                                           FG_AXIS(1), false));
  fg_output(g, "sum_tensor", fg_reduce_axes(g, NULL, FG_REDUCE_SUM, in,
                                            FG_AXIS_TENSOR, false));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  int16_t sr[C][2], pc[R][2], st[R][C];
  tu_run(g, 1, (const void *[]){x}, 3, (void *[]){sr, pc, st});
  for (int c = 0; c < C; c++)
    for (int k = 0; k < 2; k++) {
      uint16_t s = 0;
      for (int r = 0; r < R; r++)
        s = (uint16_t)(s + (uint16_t)x[r][c][k]);
      ck_assert_int_eq(sr[c][k], (int16_t)s);
    }
  for (int r = 0; r < R; r++)
    for (int k = 0; k < 2; k++) {
      uint16_t p = 1;
      for (int c = 0; c < C; c++)
        p = (uint16_t)((uint32_t)p * (uint16_t)x[r][c][k]);
      ck_assert_int_eq(pc[r][k], (int16_t)p);
    }
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++)
      ck_assert_int_eq(st[r][c], (int16_t)(uint16_t)((uint16_t)x[r][c][0] +
                                                     (uint16_t)x[r][c][1]));
  fg_graph_free(g);
}
END_TEST

/* Kernels of a producer -> reduction -> consumer chain, fused. */
static int chain_kernels(unsigned axes, int *unfused) {
  fg_type t = fg_type_vector(FG_F32, fg_shape3(4, 3, 5), 4);
  fg_graph *g = fg_graph_new("chain");
  fg_field *p = affine_op(g, fg_input(g, "x", t), 2.0f, 1.0f);
  out_n(g, affine_op(g, fg_reduce_axes(g, "sum", FG_REDUCE_SUM, p, axes, true),
                     0.5f, 0.0f));
  fg_context *ctx = tu_context();
  fg_program *prog = tu_compile(ctx, g);
  fg_fusion_stats s;
  ck_assert_int_eq(fg_program_fusion_stats(prog, &s), FG_OK);
  *unfused = s.kernels_unfused;
  fg_program_free(prog);
  tu_context_free(ctx);
  fg_graph_free(g);
  return s.kernels;
}

START_TEST(test_ops_reduce_axes_fusion) {
  int unfused;
  /* over a field axis: the producer is materialized (one kernel), the
   * consumer fuses after the reduction (one kernel) */
  for (int a = 0; a < 3; a++) {
    ck_assert_int_eq(chain_kernels(FG_AXIS(a), &unfused), 2);
    ck_assert_int_eq(unfused, 3);
  }
  /* over the tensor: pointwise, all three in one kernel */
  ck_assert_int_eq(chain_kernels(FG_AXIS_TENSOR, &unfused), 1);
  /* over every field axis: the producer fuses into the reduction; the
   * keepdims reshape and the consumer make the second kernel */
  ck_assert_int_eq(chain_kernels(7, &unfused), 2);
}
END_TEST

START_TEST(test_ops_errors_name_the_operator) {
  fg_graph *g = fg_graph_new("errors");
  fg_field *in = fg_input(g, "in", fg_type_image(FG_U8, 8, 8, 4));
  float k[4] = {0};
  ck_assert_ptr_null(fg_convolve(g, in, 2, 2, k, FG_BORDER_CLAMP));
  expect_error(g, FG_EINVAL, "convolve", "odd", NULL);
  fg_graph_free(g);

  g = fg_graph_new("errors");
  fg_field *line = fg_input(g, "line", fg_type_scalar(FG_F32, fg_shape1(8)));
  ck_assert_ptr_null(fg_gaussian_blur(g, line, 1, 0, FG_BORDER_CLAMP));
  expect_error(g, FG_ESHAPE, "gaussian_blur", "line", NULL);
  fg_graph_free(g);

  /* a sigma whose 3 sigma is no int (fuzz_pipeline: 7.8e42; and
   * infinity) is refused, not converted */
  for (int i = 0; i < 2; i++) {
    g = fg_graph_new("errors");
    in = fg_input(g, "in", fg_type_image(FG_U8, 8, 8, 4));
    ck_assert_ptr_null(fg_gaussian_blur(g, in, i ? INFINITY : 7.8e42, 0,
                                        FG_BORDER_CLAMP));
    expect_error(g, FG_EINVAL, "gaussian_blur", "at most 64", NULL);
    fg_graph_free(g);
  }

  g = fg_graph_new("errors");
  in = fg_input(g, "in", fg_type_image(FG_U8, 8, 8, 4));
  ck_assert_ptr_null(fg_crop(g, in, 4, 4, 5, 1));
  expect_error(g, FG_ESHAPE, "crop", "does not lie inside", NULL);
  ck_assert_ptr_null(fg_flip(g, in, true, true)); /* sticky: no message */
  expect_error(g, FG_ESHAPE, "crop", NULL);
  fg_graph_free(g);

  g = fg_graph_new("errors");
  in = fg_input(g, "in", fg_type_image(FG_U8, 8, 8, 4));
  ck_assert_ptr_null(
      fg_reduce_axes(g, "r", FG_REDUCE_SUM, in, FG_AXIS(2), false));
  expect_error(g, FG_EINVAL, "r", "axes 0x4", NULL);
  fg_graph_free(g);

  g = fg_graph_new("errors");
  fg_field *big =
      fg_input(g, "big", fg_type_matrix(FG_F32, fg_shape2(4, 4), 3, 3));
  ck_assert_ptr_null(fg_resize(g, big, 2, 2, FG_INTERP_BILINEAR));
  expect_error(g, FG_ETYPE, "resize", "small tensors", NULL);
  fg_graph_free(g);

  g = fg_graph_new("errors");
  in = fg_input(g, "in", fg_type_image(FG_F32, 8, 8, 1));
  ck_assert_ptr_null(fg_histogram(g, in, 0, 0, 1));
  expect_error(g, FG_EINVAL, "histogram", "bins", NULL);
  fg_graph_free(g);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("ops_nonlocal");
  TCase *tc = tcase_create("ops");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_ops_filters_random);
  tcase_add_test(tc, test_ops_filters_photo);
  tcase_add_test(tc, test_ops_unsharp);
  tcase_add_test(tc, test_ops_geometry);
  tcase_add_test(tc, test_ops_geometry_photo);
  tcase_add_test(tc, test_ops_warp_affine);
  tcase_add_test(tc, test_ops_resize);
  tcase_add_test(tc, test_ops_resize_area_whole_factors);
  tcase_add_test(tc, test_ops_resize_word_taps);
  tcase_add_test(tc, test_ops_resize_column_tables);
  tcase_add_test(tc, test_ops_shrink_stride_words);
  tcase_add_test(tc, test_ops_resize_row_taps);
  tcase_add_test(tc, test_ops_half_and_double);
  tcase_add_test(tc, test_ops_histogram);
  tcase_add_test(tc, test_ops_histogram_types);
  tcase_add_test(tc, test_ops_whole_reductions);
  tcase_add_test(tc, test_ops_reduce_axes_fused_and_unfused);
  tcase_add_test(tc, test_ops_reduce_axes_fusion);
  tcase_add_test(tc, test_ops_regression_reduce_axes_small_integers);
  tcase_add_test(tc, test_ops_errors_name_the_operator);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_run_suite(suite());
}
