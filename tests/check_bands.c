/* tests/check_bands.c - chains of kernels run in row bands (fuse/bands.c,
 * fg__be_launch_band) on the backend $FG_TEST_BACKEND names: separable
 * blurs (a horizontal pass, then a vertical one reading it a few rows
 * either side) give exactly the bits of a plain C loop that does the same
 * float operations in the same order, at every border rule and at sizes
 * that leave the bands nothing, little or much to do (1 x 1, one row, one
 * column, smaller than the radius, tall enough for many tiles), on one
 * thread and on several; a general chain of three user operators whose
 * first result is also an output and read by the third; chains whose
 * intermediates only later kernels of the chain read, which the CPU
 * backend keeps in windows of rows (exact at many heights), and those
 * whose intermediates it must not; a blur written with explicit clamps
 * and one whose taps are a counted loop; the fusion report names the pairs on the CPU
 * backend and no pair where the second kernel reads rows the first has
 * not made in order (a vertical flip) or that reads further than the
 * bands reach. */
#include "backend-cpu/pool.h"
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool on_cpu(void) {
  const char *b = getenv("FG_TEST_BACKEND");
  return !(b && !strcmp(b, "opencl"));
}

static fg_context *context_opts(int threads, unsigned disable) {
  fg_context_options opt = {.threads = threads, .disable = disable};
  opt.backend = on_cpu() ? FG_BACKEND_CPU : FG_BACKEND_OPENCL;
  fg_context *ctx = NULL;
  char err[1024];
  fg_status st = fg_context_new(&opt, &ctx, err, sizeof err);
  ck_assert_msg(st == FG_OK, "fg_context_new: %s", err);
  return ctx;
}

static fg_context *context_threads(int threads) {
  return context_opts(threads, 0);
}

/* Index i of an extent n under border b, written out as the rules read
 * (OpenCV's names: MIRROR is reflect-101, REFLECT repeats the edge);
 * -1 for CONSTANT outside. */
static int border_index(int i, int n, fg_border b) {
  switch (b) {
  case FG_BORDER_CLAMP:
    return i < 0 ? 0 : i >= n ? n - 1 : i;
  case FG_BORDER_MIRROR:
    while (n > 1 && (i < 0 || i >= n))
      i = i < 0 ? -i : 2 * (n - 1) - i;
    return n > 1 ? i : 0;
  case FG_BORDER_REFLECT:
    while (i < 0 || i >= n)
      i = i < 0 ? -1 - i : 2 * n - 1 - i;
    return i;
  case FG_BORDER_WRAP:
    return (i % n + n) % n;
  default:
    return i < 0 || i >= n ? -1 : i;
  }
}

/* A separable blur of an h x w image of n u8 channels as the operator
 * library defines it: each pass sums the taps of equal weight (a
 * Gaussian's mirrored pair, a box's every tap; in int for the u8 input,
 * in float for the f32 intermediate), multiplies each sum by its weight
 * and adds the products in the order of the groups' first taps; the
 * horizontal pass keeps floats, the vertical one rounds to nearest even
 * and saturates. */
static void blur_ref(const uint8_t *in, int h, int w, int n, int rad,
                     const float *wt, fg_border b, uint8_t *out) {
  float *mid = malloc(sizeof *mid * (size_t)h * (size_t)w * (size_t)n);
  ck_assert_ptr_nonnull(mid);
  int first[2 * 64 + 1];      /* each tap's group: its first equal tap */
  for (int i = 0; i <= 2 * rad; i++) {
    first[i] = i;
    for (int j = 0; j < i && first[i] == i; j++)
      if (wt[j] == wt[i])
        first[i] = j;
  }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < n; c++) {
        float acc = 0.0f;
        for (int i = 0; i <= 2 * rad; i++) {
          if (first[i] != i)
            continue;
          int sum = 0;
          for (int j = i; j <= 2 * rad; j++) {
            int xx = border_index(x + j - rad, w, b);
            if (first[j] == i && xx >= 0)
              sum += in[((size_t)y * w + xx) * n + c];
          }
          float p = (float)sum * wt[i];
          acc = acc + p;
        }
        mid[((size_t)y * w + x) * n + c] = acc;
      }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < n; c++) {
        float acc = 0.0f;
        for (int i = 0; i <= 2 * rad; i++) {
          if (first[i] != i)
            continue;
          float sum = 0.0f;
          bool any = false;
          for (int j = i; j <= 2 * rad; j++) {
            if (first[j] != i)
              continue;
            int yy = border_index(y + j - rad, h, b);
            float v = yy < 0 ? 0.0f : mid[((size_t)yy * w + x) * n + c];
            sum = any ? sum + v : v;
            any = true;
          }
          float p = sum * wt[i];
          acc = acc + p;
        }
        float r = rintf(acc);
        out[((size_t)y * w + x) * n + c] =
            (uint8_t)(r > 0 ? (r < 255 ? r : 255) : 0);
      }
  free(mid);
}

/* The float weights of fg_gaussian_blur(sigma, radius) (radius 0: from
 * sigma) or, for sigma 0, fg_box_blur(radius); the radius. */
static int weights(double sigma, int radius, float *wt) {
  double d[2 * 64 + 1], sum = 0;
  if (sigma == 0) {
    for (int i = 0; i <= 2 * radius; i++)
      wt[i] = (float)(1.0 / (2 * radius + 1));
    return radius;
  }
  if (radius == 0)
    radius = (int)ceil(3 * sigma);
  for (int i = -radius; i <= radius; i++)
    sum += d[i + radius] = exp(-(double)i * i / (2 * sigma * sigma));
  for (int i = 0; i <= 2 * radius; i++)
    wt[i] = (float)(d[i] / sum);
  return radius;
}

static uint8_t *noise(size_t n, uint32_t seed) {
  uint8_t *p = malloc(n + 1);
  ck_assert_ptr_nonnull(p);
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    /* runs of equal values now and then: ties for rint */
    p[i] = (seed >> 28) == 0 && i ? p[i - 1] : (uint8_t)(seed >> 24);
  }
  return p;
}

/* Runs the blur (box for sigma 0) of an h x w image of n channels in
 * ctx and compares it with blur_ref bit for bit. */
static void blur_case(fg_context *ctx, double sigma, int radius, int h,
                      int w, int n, fg_border b) {
  float wt[2 * 64 + 1];
  int rad = weights(sigma, radius, wt);
  size_t bytes = (size_t)h * (size_t)w * (size_t)n;
  uint8_t *in = noise(bytes, (uint32_t)(h * 131 + w * 7 + n + (int)b));
  uint8_t *want = malloc(bytes), *got = malloc(bytes);
  ck_assert(want && got);
  blur_ref(in, h, w, n, rad, wt, b, want);
  fg_graph *g = fg_graph_new("bands");
  fg_field *x = fg_input(g, "x", fg_type_image(FG_U8, h, w, n));
  fg_output(g, "y", sigma == 0 ? fg_box_blur(g, x, radius, b)
                               : fg_gaussian_blur(g, x, sigma, radius, b));
  fg_program *p = tu_compile(ctx, g);
  const void *ins[1] = {in};
  void *outs[1] = {got};
  ck_assert_msg(fg_program_run(p, 1, ins, 1, outs) == FG_OK,
                "fg_program_run: %s", fg_context_errmsg(ctx));
  size_t bad = 0;
  while (bad < bytes && got[bad] == want[bad])
    bad++;
  ck_assert_msg(bad == bytes, "%s r%d (sigma %g) border %d, %d x %d x %d: "
                "byte %zu (row %zu) is %d, expected %d", sigma == 0 ? "box"
                : "gaussian", rad, sigma, (int)b, h, w, n, bad,
                bad / ((size_t)w * n), bad < bytes ? got[bad] : 0,
                bad < bytes ? want[bad] : 0);
  fg_program_free(p);
  fg_graph_free(g);
  free(in);
  free(want);
  free(got);
}

/* Sizes: a point, a row, a column, smaller than every radius, and
 * tall ones that the CPU backend splits into tiles of bands with rows
 * left over between them (some not a multiple of a band). */
static const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {3, 2}, {5, 40},
                               {301, 61}, {487, 37}};

static void blurs_on(int threads) {
  fg_context *ctx = context_threads(threads);
  for (int b = FG_BORDER_CLAMP; b <= FG_BORDER_CONSTANT; b++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      blur_case(ctx, 0, 2, sizes[s][0], sizes[s][1], 1, (fg_border)b);
      blur_case(ctx, 2.0, 6, sizes[s][0], sizes[s][1], 1, (fg_border)b);
      blur_case(ctx, 1.2, 0, sizes[s][0], sizes[s][1], 3, (fg_border)b);
    }
  tu_context_free(ctx);
}

START_TEST(test_bands_blurs_exact_one_thread) { blurs_on(1); }
END_TEST

START_TEST(test_bands_blurs_exact_threads) { blurs_on(5); }
END_TEST

/* y = 3 x (a map), then z(r, c) = y(wrap(r - 3), wrap(c + 1)) -
 * y(wrap(r + 2), c), then u(r, c) = z(mirror(r - 1), c) + z(mirror(r +
 * 1), c) - y(r, c): a chain of three user operators, the third reading
 * the first's result too, which is also an output. */
START_TEST(test_bands_user_chain_with_shared_output) {
  const int h = 517, w = 45;
  size_t n = (size_t)h * w;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y),
        *z = malloc(n * sizeof *z), *u = malloc(n * sizeof *u);
  ck_assert(x && y && z && u);
  for (size_t i = 0; i < n; i++)
    x[i] = (float)((int)(i * 2654435761u >> 20) % 1000) / 7.0f - 50.0f;
  fg_graph *g = fg_graph_new("chain");
  fg_type t = fg_type_image(FG_F32, h, w, 1);
  fg_field *in = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "triple", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, in), 3.0f));
  fg_field *yf = fg_op_end(op);
  op = fg_op_begin(g, "rows", 1, &t);
  fg_expr *a = fg_read_tensor_at_border(
      op, yf, FG_BORDER_WRAP, 2, fg_subi(fg_row(op), 3),
      fg_addi(fg_column(op), 1));
  fg_expr *bb = fg_read_tensor_at_border(op, yf, FG_BORDER_WRAP, 2,
                                         fg_addi(fg_row(op), 2),
                                         fg_column(op));
  fg_write_tensor(op, 0, fg_sub(a, bb));
  fg_field *zf = fg_op_end(op);
  op = fg_op_begin(g, "more_rows", 1, &t);
  a = fg_read_tensor_at_border(op, zf, FG_BORDER_MIRROR, 2,
                               fg_subi(fg_row(op), 1), fg_column(op));
  bb = fg_read_tensor_at_border(op, zf, FG_BORDER_MIRROR, 2,
                                fg_addi(fg_row(op), 1), fg_column(op));
  fg_write_tensor(op, 0, fg_sub(fg_add(a, bb), fg_read_tensor(op, yf)));
  fg_output(g, "u", fg_op_end(op));
  fg_output(g, "y", yf);
  fg_context *ctx = context_threads(3);
  fg_program *p = tu_compile(ctx, g);
  const char *rep = fg_program_fusion_report(p);
  if (on_cpu())
    ck_assert_msg(strstr(rep, "kernel 1: rows (in row bands with kernel 0, "
                              "reading 3 rows") &&
                  strstr(rep, "kernel 2: more_rows (in row bands with "
                              "kernel 1, reading 1 rows"), "report: %s", rep);
  const void *ins[1] = {x};
  void *outs[2] = {u, y};
  ck_assert_msg(fg_program_run(p, 1, ins, 2, outs) == FG_OK,
                "fg_program_run: %s", fg_context_errmsg(ctx));
  for (int r = 0; r < h; r++)
    for (int c = 0; c < w; c++) {
      float y0 = x[(size_t)r * w + c] * 3.0f;
      ck_assert_msg(y[(size_t)r * w + c] == y0, "y(%d, %d)", r, c);
      z[(size_t)r * w + c] = x[(size_t)((r - 3 + h) % h) * w + (c + 1) % w] *
                                 3.0f -
                             x[(size_t)((r + 2) % h) * w + c] * 3.0f;
    }
  for (int r = 0; r < h; r++)
    for (int c = 0; c < w; c++) {
      int r0 = r == 0 ? 1 : r - 1, r1 = r == h - 1 ? h - 2 : r + 1;
      float want = z[(size_t)r0 * w + c] + z[(size_t)r1 * w + c] -
                   x[(size_t)r * w + c] * 3.0f;
      ck_assert_msg(u[(size_t)r * w + c] == want, "u(%d, %d) is %g, "
                    "expected %g", r, c, u[(size_t)r * w + c], want);
    }
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  free(x);
  free(y);
  free(z);
  free(u);
}
END_TEST

/* The report names the blur's pair on the CPU backend (the kernels that
 * run in bands), on OpenCL none; a vertical flip after a map reads rows
 * from the far end and is never paired. */
START_TEST(test_bands_report) {
  fg_context *ctx = tu_context();
  fg_graph *g = fg_graph_new("box");
  fg_field *x = fg_input(g, "x", fg_type_image(FG_U8, 64, 64, 1));
  fg_output(g, "y", fg_box_blur(g, x, 2, FG_BORDER_MIRROR));
  fg_program *p = tu_compile(ctx, g);
  const char *rep = fg_program_fusion_report(p);
  bool banded = strstr(rep, "kernel 1: box_blur.v (in row bands with "
                            "kernel 0, reading 2 rows either side)") != NULL;
  ck_assert_msg(banded == on_cpu(), "report: %s", rep);
  fg_program_free(p);
  fg_graph_free(g);
  g = fg_graph_new("flip");
  x = fg_input(g, "x", fg_type_image(FG_F32, 64, 64, 1));
  fg_output(g, "y", fg_flip(g, fg_binary_scalar(g, FG_OP_MUL, x, 2.0),
                            false, true));
  p = tu_compile(ctx, g);
  rep = fg_program_fusion_report(p);
  ck_assert_msg(strstr(rep, "kernels: 2") && !strstr(rep, "row bands"),
                "report: %s", rep);
  fg_program_free(p);
  fg_graph_free(g);
  /* nor a stencil reaching further than FGF_BAND_REACH (64) rows */
  g = fg_graph_new("far");
  fg_type t = fg_type_image(FG_F32, 300, 8, 1);
  x = fg_input(g, "x", t);
  fg_field *y = fg_binary_scalar(g, FG_OP_MUL, x, 2.0);
  fg_op *op = fg_op_begin(g, "far", 1, &t);
  fg_write_tensor(op, 0, fg_read_tensor_at(op, y, 2, fg_addi(fg_row(op), 65),
                                           fg_column(op)));
  fg_output(g, "z", fg_op_end(op));
  p = tu_compile(ctx, g);
  rep = fg_program_fusion_report(p);
  ck_assert_msg(strstr(rep, "kernels: 2") && !strstr(rep, "row bands"),
                "report: %s", rep);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

/* Chains whose intermediates only later kernels of the chain read keep
 * them in windows of rows on the CPU backend (the report says so, the
 * context counts the launches): a = x * 0.5 + 1; b(r, c) = a(r - 3, c)
 * (mirror) + 2 a(r, c) - a(r + 2, c) (reflect); y(r, c) = b(r - 1, c)
 * (clamp) * b(r + 1, c) (clamp) - a(r, c) - x(r + 4, c) (clamp), the
 * last kernel reading the first's result too (unsharp's shape).  Exact
 * against a C loop at heights that leave the tiles nothing, little or
 * much, on one thread and on several, and with the windows turned off. */
static float chain_x(int r, int c) {
  return (float)((r * 37 + c * 11) % 29) * 0.25f - 3.0f;
}

static void windows_exact(void) {
  static const int heights[] = {1, 2, 5, 9, 64, 333, 1001};
  const int w = 67;
  for (int th = 1; th <= 5; th += 2) {
    /* the third time without windows (FG_CAP_ROW_WINDOWS) */
    bool windows = th < 5;
    fg_context *ctx = context_opts(th, windows ? 0 : FG_CAP_ROW_WINDOWS);
    for (size_t hi = 0; hi < sizeof heights / sizeof heights[0]; hi++) {
      int h = heights[hi];
      size_t n = (size_t)h * w;
      float *x = malloc(n * sizeof *x), *a = malloc(n * sizeof *a),
            *b = malloc(n * sizeof *b), *y = malloc(n * sizeof *y);
      ck_assert(x && a && b && y);
      for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++)
          x[(size_t)r * w + c] = chain_x(r, c);
      fg_graph *g = fg_graph_new("windows");
      fg_type t = fg_type_image(FG_F32, h, w, 1);
      fg_field *in = fg_input(g, "x", t);
      fg_op *op = fg_op_begin(g, "a", 1, &t);
      fg_write_tensor(op, 0, fg_addf(fg_mulf(fg_read_tensor(op, in), 0.5f),
                                     1.0f));
      fg_field *af = fg_op_end(op);
      op = fg_op_begin(g, "b", 1, &t);
      fg_expr *up = fg_read_tensor_at_border(op, af, FG_BORDER_MIRROR, 2,
                                             fg_subi(fg_row(op), 3),
                                             fg_column(op));
      fg_expr *down = fg_read_tensor_at_border(op, af, FG_BORDER_REFLECT, 2,
                                               fg_addi(fg_row(op), 2),
                                               fg_column(op));
      fg_write_tensor(op, 0, fg_sub(fg_add(up, fg_mulf(fg_read_tensor(op, af),
                                                       2.0f)), down));
      fg_field *bf = fg_op_end(op);
      op = fg_op_begin(g, "y", 1, &t);
      up = fg_read_tensor_at(op, bf, 2, fg_subi(fg_row(op), 1),
                             fg_column(op));
      down = fg_read_tensor_at(op, bf, 2, fg_addi(fg_row(op), 1),
                               fg_column(op));
      fg_expr *far = fg_read_tensor_at(op, in, 2, fg_addi(fg_row(op), 4),
                                       fg_column(op));
      fg_write_tensor(op, 0, fg_sub(fg_sub(fg_mul(up, down),
                                           fg_read_tensor(op, af)), far));
      fg_output(g, "y", fg_op_end(op));
      fg_program *p = tu_compile(ctx, g);
      const char *rep = fg_program_fusion_report(p);
      if (on_cpu() && h >= 9 && windows)
        ck_assert_msg(strstr(rep, "kernel 0: a; in bands, rows of a.out0 "
                                  "kept only while read") &&
                      strstr(rep, "rows of b.out0 kept only while read"),
                      "report: %s", rep);
      if (!windows)
        ck_assert_msg(!strstr(rep, "kept only while read"), "report: %s",
                      rep);
      fg_context_stats before, after;
      ck_assert_int_eq(fg_context_get_stats(ctx, &before), FG_OK);
      const void *ins[1] = {x};
      void *outs[1] = {y};
      ck_assert_msg(fg_program_run(p, 1, ins, 1, outs) == FG_OK,
                    "fg_program_run: %s", fg_context_errmsg(ctx));
      ck_assert_int_eq(fg_context_get_stats(ctx, &after), FG_OK);
      /* tall enough for tiles of bands: the windows were used */
      if (on_cpu() && h >= 333 && windows)
        ck_assert_uint_eq(after.windowed_chains, before.windowed_chains + 1);
      if (!on_cpu() || h < 9 || !windows)
        ck_assert_uint_eq(after.windowed_chains, before.windowed_chains);
      for (size_t i = 0; i < n; i++)
        a[i] = x[i] * 0.5f + 1.0f;
      for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++)
          b[(size_t)r * w + c] =
              a[(size_t)border_index(r - 3, h, FG_BORDER_MIRROR) * w + c] +
              a[(size_t)r * w + c] * 2.0f -
              a[(size_t)border_index(r + 2, h, FG_BORDER_REFLECT) * w + c];
      for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++) {
          float want =
              b[(size_t)border_index(r - 1, h, FG_BORDER_CLAMP) * w + c] *
                  b[(size_t)border_index(r + 1, h, FG_BORDER_CLAMP) * w + c] -
              a[(size_t)r * w + c] -
              x[(size_t)border_index(r + 4, h, FG_BORDER_CLAMP) * w + c];
          ck_assert_msg(y[(size_t)r * w + c] == want, "%d threads, %d rows: "
                        "y(%d, %d) is %g, expected %g", th, h, r, c,
                        y[(size_t)r * w + c], want);
        }
      fg_program_free(p);
      fg_graph_free(g);
      free(x);
      free(a);
      free(b);
      free(y);
    }
    tu_context_free(ctx);
  }
}

START_TEST(test_bands_windows_exact) { windows_exact(); }
END_TEST

/* The same where no ring can be mapped: windows in flat memory, their
 * rows moved to its start as they advance. */
START_TEST(test_bands_windows_exact_flat) {
  fgp_test_rings(false);
  windows_exact();
  fgp_test_rings(true);
}
END_TEST

/* The longest chain (8 kernels), each reading the one before at its own
 * reach and border rule, the last also reading the first: every
 * intermediate in a window of its own, exact against a C loop, tall and
 * short, one thread and four. */
START_TEST(test_bands_windows_long_chain) {
  static const int reach[8] = {0, 1, 5, 2, 3, 1, 4, 2};
  static const fg_border rule[8] = {FG_BORDER_CLAMP, FG_BORDER_MIRROR,
                                    FG_BORDER_REFLECT, FG_BORDER_CLAMP,
                                    FG_BORDER_MIRROR, FG_BORDER_REFLECT,
                                    FG_BORDER_CLAMP, FG_BORDER_MIRROR};
  static const int heights[] = {37, 150, 1003};
  const int w = 21;
  for (int th = 1; th <= 4; th += 3) {
    fg_context *ctx = context_threads(th);
    for (size_t hi = 0; hi < sizeof heights / sizeof heights[0]; hi++) {
      int h = heights[hi];
      size_t n = (size_t)h * w;
      fg_graph *g = fg_graph_new("long");
      fg_type t = fg_type_image(FG_I32, h, w, 1);
      fg_field *f[8], *x = fg_input(g, "x", t);
      for (int k = 0; k < 8; k++) {
        fg_op *op = fg_op_begin(g, "k", 1, &t);
        fg_field *src = k ? f[k - 1] : x;
        fg_expr *up = fg_read_tensor_at_border(op, src, rule[k], 2,
                                               fg_subi(fg_row(op), reach[k]),
                                               fg_column(op));
        fg_expr *down = fg_read_tensor_at_border(
            op, src, rule[(k + 3) % 8], 2, fg_addi(fg_row(op), reach[k]),
            fg_column(op));
        fg_expr *v = fg_sub(fg_mul(up, fg_int(op, 3)), down);
        if (k == 7)
          v = fg_add(v, fg_read_tensor(op, f[0]));
        fg_write_tensor(op, 0, fg_band(v, fg_int(op, 0xffff)));
        f[k] = fg_op_end(op);
      }
      fg_output(g, "y", f[7]);
      fg_program *p = tu_compile(ctx, g);
      const char *rep = fg_program_fusion_report(p);
      if (on_cpu() && h >= 150)
        ck_assert_msg(strstr(rep, "kernel 7: k (in row bands with kernel 6") &&
                      strstr(rep, "kernel 6: k (in row bands with kernel 5, "
                                  "reading 4 rows either side); in bands, "
                                  "rows of"), "report: %s", rep);
      int32_t *buf[9];
      for (int k = 0; k < 9; k++) {
        buf[k] = malloc(n * sizeof **buf);
        ck_assert_ptr_nonnull(buf[k]);
      }
      for (size_t i = 0; i < n; i++)
        buf[0][i] = (int32_t)((i * 2654435761u) >> 18);
      int32_t *got = malloc(n * sizeof *got);
      ck_assert_ptr_nonnull(got);
      ck_assert_msg(fg_program_run(p, 1, (const void *[]){buf[0]}, 1,
                                   (void *[]){got}) == FG_OK,
                    "fg_program_run: %s", fg_context_errmsg(ctx));
      for (int k = 0; k < 8; k++)
        for (int r = 0; r < h; r++)
          for (int c = 0; c < w; c++) {
            int32_t up = buf[k][border_index(r - reach[k], h, rule[k]) * w + c];
            int32_t dn = buf[k][border_index(r + reach[k], h,
                                             rule[(k + 3) % 8]) * w + c];
            /* the kernels' int arithmetic wraps: unsigned here */
            int32_t v = (int32_t)((uint32_t)up * 3u - (uint32_t)dn +
                                  (k == 7 ? (uint32_t)buf[1][r * w + c] : 0));
            buf[k + 1][r * w + c] = v & 0xffff;
          }
      for (size_t i = 0; i < n; i++)
        ck_assert_msg(got[i] == buf[8][i], "%d threads, %d rows: y(%zu, %zu) "
                      "is %d, expected %d", th, h, i / w, i % w, got[i],
                      buf[8][i]);
      for (int k = 0; k < 9; k++)
        free(buf[k]);
      free(got);
      fg_program_free(p);
      fg_graph_free(g);
    }
    tu_context_free(ctx);
  }
}
END_TEST

/* Random chains with a fixed seed: 2 to 6 kernels, each reading the one
 * before at two rows of random reach (0 to 7) and border rule (wrap
 * included, which keeps the full fields) and a random column, now and
 * then an earlier result at its own row, now and then an intermediate
 * that is also an output; random heights (tall enough for tiles of bands
 * or not) and widths, 1 to 4 threads.  Every output exact against a C
 * loop: both ways of running bands, windows or not, on shapes nobody
 * chose. */
static uint32_t rnd(uint32_t *s, uint32_t n) {
  *s = *s * 1664525u + 1013904223u;
  return (*s >> 8) % n;
}

START_TEST(test_bands_random_chains) {
  uint32_t seed = 20261127;
  for (int round = 0; round < 32; round++) {
    int n = 2 + (int)rnd(&seed, 5), h = 2 + (int)rnd(&seed, 1200);
    int w = 1 + (int)rnd(&seed, 120), th = 1 + (int)rnd(&seed, 4);
    int up[6], dn[6], dc[6], side[6], out_too[6];
    fg_border bu[6], bd[6];
    for (int k = 0; k < n; k++) {
      up[k] = (int)rnd(&seed, 8);
      dn[k] = (int)rnd(&seed, 8);
      dc[k] = (int)rnd(&seed, 5) - 2;
      /* clamp, mirror, reflect; wrap (full fields) one time in 16 */
      bu[k] = rnd(&seed, 16) ? (fg_border)rnd(&seed, 3) : FG_BORDER_WRAP;
      bd[k] = rnd(&seed, 16) ? (fg_border)rnd(&seed, 3) : FG_BORDER_WRAP;
      side[k] = k >= 2 && rnd(&seed, 3) == 0 ? (int)rnd(&seed, (uint32_t)k - 1)
                                             : -1;
      out_too[k] = k < n - 1 && rnd(&seed, 10) == 0;
    }
    fg_context *ctx = context_threads(th);
    fg_graph *g = fg_graph_new("random");
    fg_type t = fg_type_image(FG_I32, h, w, 1);
    fg_field *f[7];
    f[0] = fg_input(g, "x", t);
    int n_out = 0;
    for (int k = 0; k < n; k++) {
      fg_op *op = fg_op_begin(g, "k", 1, &t);
      fg_expr *c = fg_clamp(fg_addi(fg_column(op), dc[k]), fg_int(op, 0),
                            fg_subi(fg_columns(op), 1));
      fg_expr *a = fg_read_tensor_at_border(op, f[k], bu[k], 2,
                                            fg_subi(fg_row(op), up[k]), c);
      fg_expr *b = fg_read_tensor_at_border(op, f[k], bd[k], 2,
                                            fg_addi(fg_row(op), dn[k]),
                                            fg_column(op));
      fg_expr *v = fg_sub(fg_mul(a, fg_int(op, 5)), b);
      if (side[k] >= 0)
        v = fg_add(v, fg_read_tensor(op, f[side[k] + 1]));
      fg_write_tensor(op, 0, fg_band(v, fg_int(op, 0xfffff)));
      f[k + 1] = fg_op_end(op);
      if (out_too[k] || k == n - 1) {
        char name[16];
        snprintf(name, sizeof name, "y%d", k);
        fg_output(g, name, f[k + 1]);
        n_out++;
      }
    }
    fg_program *p = tu_compile(ctx, g);
    size_t np = (size_t)h * w;
    int32_t *ref[7], *got[7];
    void *outs[7];
    for (int k = 0; k <= n; k++) {
      ref[k] = malloc(np * sizeof **ref);
      got[k] = malloc(np * sizeof **got);
      ck_assert(ref[k] && got[k]);
    }
    for (size_t i = 0; i < np; i++)
      ref[0][i] = (int32_t)((i * 2654435761u + (uint32_t)round) >> 13);
    for (int k = 0, o = 0; k < n; k++)
      if (out_too[k] || k == n - 1)
        outs[o++] = got[k + 1];
    ck_assert_msg(fg_program_run(p, 1, (const void *[]){ref[0]}, n_out,
                                 outs) == FG_OK,
                  "fg_program_run: %s", fg_context_errmsg(ctx));
    for (int k = 0; k < n; k++)
      for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++) {
          int cc = c + dc[k] < 0 ? 0 : c + dc[k] >= w ? w - 1 : c + dc[k];
          int32_t a = ref[k][border_index(r - up[k], h, bu[k]) * w + cc];
          int32_t b = ref[k][border_index(r + dn[k], h, bd[k]) * w + c];
          /* the kernels' int arithmetic wraps: unsigned here */
          int32_t v = (int32_t)((uint32_t)a * 5u - (uint32_t)b +
                                (side[k] >= 0
                                     ? (uint32_t)ref[side[k] + 1][r * w + c]
                                     : 0));
          ref[k + 1][r * w + c] = v & 0xfffff;
        }
    for (int k = 0; k < n; k++) {
      if (!out_too[k] && k != n - 1)
        continue;
      for (size_t i = 0; i < np; i++)
        ck_assert_msg(got[k + 1][i] == ref[k + 1][i], "round %d (%d kernels, "
                      "%d x %d, %d threads): output of kernel %d at (%zu, "
                      "%zu) is %d, expected %d\n%s", round, n, h, w, th, k,
                      i / w, i % w, got[k + 1][i], ref[k + 1][i],
                      fg_program_fusion_report(p));
    }
    for (int k = 0; k <= n; k++) {
      free(ref[k]);
      free(got[k]);
    }
    fg_program_free(p);
    fg_graph_free(g);
    tu_context_free(ctx);
  }
}
END_TEST

/* No windows where an intermediate is also an output, read by a kernel
 * outside the chain or read across the field (wrap): the report keeps
 * quiet and the launches use the fields' memory (the other outputs
 * checked too). */
START_TEST(test_bands_windows_only_for_private_rows) {
  fg_context *ctx = tu_context();
  fg_type t = fg_type_image(FG_F32, 400, 40, 1);
  for (int v = 0; v < 3; v++) {
    fg_graph *g = fg_graph_new("shared");
    fg_field *in = fg_input(g, "x", t);
    fg_field *a = fg_binary_scalar(g, FG_OP_MUL, in, 2.0);
    fg_op *op = fg_op_begin(g, "v", 1, &t);
    fg_write_tensor(op, 0, fg_read_tensor_at_border(
                               op, a, v == 2 ? FG_BORDER_WRAP
                                             : FG_BORDER_CLAMP,
                               2, fg_addi(fg_row(op), 1), fg_column(op)));
    fg_field *b = fg_op_end(op);
    fg_output(g, "b", b);
    if (v == 0)
      fg_output(g, "a", a);             /* an output */
    else if (v == 1)                    /* read after the chain */
      fg_output(g, "s", fg_flip(g, a, false, true));
    fg_program *p = tu_compile(ctx, g);
    const char *rep = fg_program_fusion_report(p);
    ck_assert_msg(!strstr(rep, "kept only while read"), "case %d: %s", v,
                  rep);
    if (on_cpu())
      ck_assert_msg(strstr(rep, "in row bands"), "case %d: %s", v, rep);
    float *x = calloc(400 * 40, sizeof *x), *o1 = calloc(400 * 40, sizeof *o1),
          *o2 = calloc(400 * 40, sizeof *o2);   /* a, or a flipped */
    ck_assert(x && o1 && o2);
    for (int i = 0; i < 400 * 40; i++)
      x[i] = (float)(i % 97);
    fg_context_stats before, after;
    ck_assert_int_eq(fg_context_get_stats(ctx, &before), FG_OK);
    const void *ins[1] = {x};
    void *outs[2] = {o1, o2};
    ck_assert_msg(fg_program_run(p, 1, ins, v == 2 ? 1 : 2, outs) == FG_OK,
                  "fg_program_run: %s", fg_context_errmsg(ctx));
    ck_assert_int_eq(fg_context_get_stats(ctx, &after), FG_OK);
    ck_assert_uint_eq(after.windowed_chains, before.windowed_chains);
    for (int r = 0; r < 400; r++)
      for (int c = 0; c < 40; c++) {
        int rr = v == 2 ? (r + 1) % 400 : r + 1 < 400 ? r + 1 : 399;
        ck_assert_msg(o1[r * 40 + c] == x[rr * 40 + c] * 2.0f,
                      "case %d: b(%d, %d)", v, r, c);
        rr = v == 1 ? 399 - r : r;
        ck_assert_msg(v == 2 || o2[r * 40 + c] == x[rr * 40 + c] * 2.0f,
                      "case %d: a(%d, %d)", v, r, c);
      }
    fg_program_free(p);
    fg_graph_free(g);
    free(x);
    free(o1);
    free(o2);
  }
  tu_context_free(ctx);
}
END_TEST

/* A separable 5-tap sum written with explicit clamps, as a Cog stencil
 * writes them (clamp(_row + d, 0, _rows - 1)): banded and windowed like
 * the clamp border rule, exact against a C loop; a clamp to other rows
 * (here _rows - 3) may read rows far from its own and is never paired. */
static fg_field *sum5(fg_graph *g, fg_field *f, fg_type t, bool vertical,
                      int hi_k) {
  fg_op *op = fg_op_begin(g, vertical ? "v" : "h", 1, &t);
  fg_expr *acc = NULL;
  for (int d = -2; d <= 2; d++) {
    fg_expr *r = fg_row(op), *c = fg_column(op);
    if (vertical)
      r = fg_clamp(fg_addi(r, d), fg_int(op, 0), fg_subi(fg_rows(op), hi_k));
    else
      c = fg_clamp(fg_addi(c, d), fg_int(op, 0),
                   fg_subi(fg_columns(op), 1));
    fg_expr *tap = fg_read_tensor_at(op, f, 2, r, c);
    acc = acc ? fg_add(acc, tap) : tap;
  }
  fg_write_tensor(op, 0, acc);
  return fg_op_end(op);
}

START_TEST(test_bands_explicit_clamps) {
  const int h = 700, w = 53;
  fg_context *ctx = tu_context();
  for (int hi_k = 1; hi_k <= 3; hi_k += 2) {
    fg_graph *g = fg_graph_new("clamps");
    fg_type t = fg_type_image(FG_F32, h, w, 1);
    fg_field *x = fg_input(g, "x", t);
    fg_output(g, "y", sum5(g, sum5(g, x, t, false, 1), t, true, hi_k));
    fg_program *p = tu_compile(ctx, g);
    const char *rep = fg_program_fusion_report(p);
    bool paired = strstr(rep, "kernel 1: v (in row bands with kernel 0, "
                              "reading 2 rows either side)") != NULL;
    bool kept = strstr(rep, "rows of h.out0 kept only while read") != NULL;
    ck_assert_msg(paired == (on_cpu() && hi_k == 1) && kept == paired,
                  "clamp to _rows - %d: %s", hi_k, rep);
    float *in = malloc(sizeof(float) * h * w), *mid = malloc(sizeof(float) *
                                                            h * w),
          *out = malloc(sizeof(float) * h * w);
    ck_assert(in && mid && out);
    for (int i = 0; i < h * w; i++)
      in[i] = (float)((i * 7919) % 1013) * 0.125f;
    const void *ins[1] = {in};
    void *outs[1] = {out};
    ck_assert_msg(fg_program_run(p, 1, ins, 1, outs) == FG_OK,
                  "fg_program_run: %s", fg_context_errmsg(ctx));
    for (int r = 0; r < h; r++)
      for (int c = 0; c < w; c++) {
        float acc = 0;
        for (int d = -2; d <= 2; d++) {
          float v = in[r * w + border_index(c + d, w, FG_BORDER_CLAMP)];
          acc = d == -2 ? v : acc + v;
        }
        mid[r * w + c] = acc;
      }
    for (int r = 0; r < h; r++)
      for (int c = 0; c < w; c++) {
        float acc = 0;
        for (int d = -2; d <= 2; d++) {
          int rr = r + d < 0 ? 0 : r + d > h - hi_k ? h - hi_k : r + d;
          acc = d == -2 ? mid[rr * w + c] : acc + mid[rr * w + c];
        }
        ck_assert_msg(out[r * w + c] == acc, "clamp to _rows - %d: y(%d, %d) "
                      "is %g, expected %g", hi_k, r, c, out[r * w + c], acc);
      }
    free(in);
    free(mid);
    free(out);
    fg_program_free(p);
    fg_graph_free(g);
  }
  tu_context_free(ctx);
}
END_TEST

/* A vertical stencil whose taps are a counted loop, for (i = -3; i <= 3;
 * i++) acc += f(_row + i, _column) (mirror border), after a map: paired
 * and windowed, exact against a C loop.  The reach counted is 4, the
 * value i keeps after the loop (fgk_counter_range does not look at where
 * the read is). */
START_TEST(test_bands_loop_taps) {
  const int h = 611, w = 29;
  fg_context *ctx = tu_context();
  fg_graph *g = fg_graph_new("loop_taps");
  fg_type t = fg_type_image(FG_F32, h, w, 1);
  fg_field *x = fg_input(g, "x", t);
  fg_field *m = fg_binary_scalar(g, FG_OP_MUL, x, 0.5);
  fg_op *op = fg_op_begin(g, "taps", 1, &t);
  fg_expr *i = fg_var(op, FG_I32, 1), *acc = fg_var(op, FG_F32, 1);
  fg_assign(acc, fg_float(op, 0.0f));
  fg_for(i, fg_int(op, -3), fg_le(i, fg_int(op, 3)), fg_int(op, 1));
  fg_assign(acc, fg_add(acc, fg_read_tensor_at_border(
                                 op, m, FG_BORDER_MIRROR, 2,
                                 fg_add(fg_row(op), i), fg_column(op))));
  fg_end(op);
  fg_write_tensor(op, 0, acc);
  fg_output(g, "y", fg_op_end(op));
  fg_program *p = tu_compile(ctx, g);
  const char *rep = fg_program_fusion_report(p);
  if (on_cpu())
    ck_assert_msg(strstr(rep, "kernel 1: taps (in row bands with kernel 0, "
                              "reading 4 rows either side)") &&
                  strstr(rep, "kept only while read"), "report: %s", rep);
  float *in = malloc(sizeof(float) * h * w), *out = malloc(sizeof(float) *
                                                           h * w);
  ck_assert(in && out);
  for (int k = 0; k < h * w; k++)
    in[k] = (float)((k * 104729) % 2011) - 1000.0f;
  ck_assert_msg(fg_program_run(p, 1, (const void *[]){in}, 1,
                               (void *[]){out}) == FG_OK,
                "fg_program_run: %s", fg_context_errmsg(ctx));
  for (int r = 0; r < h; r++)
    for (int c = 0; c < w; c++) {
      float want = 0.0f;
      for (int d = -3; d <= 3; d++)
        want = want +
               in[border_index(r + d, h, FG_BORDER_MIRROR) * w + c] * 0.5f;
      ck_assert_msg(out[r * w + c] == want, "y(%d, %d) is %g, expected %g",
                    r, c, out[r * w + c], want);
    }
  free(in);
  free(out);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("bands");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_bands_blurs_exact_one_thread);
  tcase_add_test(tc, test_bands_blurs_exact_threads);
  tcase_add_test(tc, test_bands_user_chain_with_shared_output);
  tcase_add_test(tc, test_bands_report);
  tcase_add_test(tc, test_bands_windows_exact);
  tcase_add_test(tc, test_bands_windows_exact_flat);
  tcase_add_test(tc, test_bands_windows_long_chain);
  tcase_add_test(tc, test_bands_random_chains);
  tcase_add_test(tc, test_bands_windows_only_for_private_rows);
  tcase_add_test(tc, test_bands_explicit_clamps);
  tcase_add_test(tc, test_bands_loop_taps);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
