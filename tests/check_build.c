/* tests/check_build.c - the kernels of one program build at once, on the
 * backend $FG_TEST_BACKEND names: a program of many unfused kernels
 * builds and computes what a C loop does, each kernel counted once as
 * compiled or loaded from the cache; when several kernels fail, the
 * message is the first failing kernel's (in kernel order), naming it, and
 * nothing is left alive; a graph of every size-dependent operator of
 * the library builds the same kernels for two image sizes (one cache
 * entry each), so a pipeline compiles once for any size; the CPU
 * backend's kernels that call its math routines interleave their loop;
 * kernels with values of vector type (RenderScript's) go through LLVM's
 * opt, to the same bits. */
#include "testutil.h"

#include <fieldgraph/renderscript.h>

#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <stdint.h>
#include <unistd.h>

/* A CPU context whose kernel cache is the new directory made from the
 * mkdtemp template dir (the test counts and removes its files). */
static fg_context *cpu_context_in(char *dir) {
  ck_assert_ptr_nonnull(mkdtemp(dir));
  fg_context_options opt = {.backend = FG_BACKEND_CPU, .cache_dir = dir};
  fg_context *ctx = NULL;
  char err[1024];
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  return ctx;
}

/* A chain of n operators, each adding k + 1 (distinct sources). */
START_TEST(test_build_many_kernels) {
  enum { N = 9, P = 1000 };
  fg_type t = fg_type_scalar(FG_I32, fg_shape1(P));
  fg_graph *g = fg_graph_new("chain");
  fg_field *f = fg_input(g, "in", t);
  for (int k = 0; k < N; k++) {
    char name[16];
    snprintf(name, sizeof name, "add%d", k);
    fg_op *op = fg_op_begin(g, name, 1, &t);
    fg_write_tensor(op, 0, fg_addi(fg_read_tensor(op, f), k + 1));
    f = fg_op_end(op);
  }
  fg_output(g, "out", f);
  fg_context *ctx = tu_context();
  fg_compile_options o = {.fusion = FG_FUSION_OFF};
  fg_program *p = NULL;
  ck_assert_msg(fg_compile(ctx, g, &o, &p) == FG_OK, "%s",
                fg_context_errmsg(ctx));
  ck_assert_int_eq(fg_program_kernel_count(p), N);
  fg_context_stats st;
  ck_assert_int_eq(fg_context_get_stats(ctx, &st), FG_OK);
  ck_assert_int_eq((int)(st.kernels_compiled + st.cache_hits), N);
  int32_t in[P], out[P];
  for (int i = 0; i < P; i++)
    in[i] = i * 3 - 500;
  ck_assert_int_eq(fg_program_run(p, 1, (const void *const[]){in}, 1,
                                  (void *const[]){out}), FG_OK);
  for (int i = 0; i < P; i++)
    ck_assert_int_eq(out[i], in[i] + N * (N + 1) / 2);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* Kernels 1 and 3 of five fail (each naming its own undeclared name);
 * the message is kernel 1's. */
START_TEST(test_build_first_failure_is_reported) {
  static const char src[] =
      "#pragma version(1)\n"
      "#pragma rs java_package_name(t)\n"
      "int RS_KERNEL ok(int v) { return v + 1; }\n"
      "int RS_KERNEL bad_a(int v) { return v + first_undeclared; }\n"
      "int RS_KERNEL bad_b(int v) { return v + second_undeclared; }\n";
  fg_rs_script *s = NULL;
  char err[1024] = "";
  ck_assert_msg(fg_rs_script_new_source("t", "t.rs", src, (size_t)-1, &s,
                                        err, sizeof err) == FG_OK, "%s", err);
  fg_graph *g = fg_graph_new("g");
  fg_field *f = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(64)));
  const char *const order[] = {"ok", "bad_a", "ok", "bad_b", "ok"};
  for (int k = 0; k < 5; k++)
    f = fg_rs_map(g, s, order[k], 1, &f, NULL);
  ck_assert_msg(f != NULL, "%s", fg_graph_errmsg(g));
  fg_output(g, "out", f);
  for (int rep = 0; rep < 3; rep++) {
    fg_context *ctx = tu_context();
    fg_compile_options o = {.fusion = FG_FUSION_OFF};
    fg_program *p = (fg_program *)&p;
    ck_assert_int_eq(fg_compile(ctx, g, &o, &p), FG_EBUILD);
    ck_assert_ptr_null(p);
    const char *msg = fg_context_errmsg(ctx);
    ck_assert_msg(strstr(msg, "first_undeclared") &&
                      !strstr(msg, "second_undeclared") &&
                      strstr(msg, "bad_a"), "%s", msg);
    tu_context_free(ctx);
  }
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST


/* Files under dir, recursively (removing them when rm). */
static int count_files(const char *dir, bool rm) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    DIR *sub = opendir(path);
    if (sub) {
      closedir(sub);
      n += count_files(path, rm);
      if (rm)
        rmdir(path);
    } else {
      n++;
      if (rm)
        unlink(path);
    }
  }
  closedir(d);
  return n;
}

static const fg_yuv_format yuv_formats[3] = {FG_YUV_NV21, FG_YUV_YV12,
                                             FG_YUV_I420};

/* Every operator of the library whose IR could depend on the size of an
 * rgb image (float3), a grey one (float), a uchar4 one and YUV frames of
 * h x w (even). */
static fg_graph *sized_graph(int64_t h, int64_t w) {
  fg_graph *g = fg_graph_new("sized");
  fg_field *img = fg_input(g, "img", fg_type_vector(FG_F32, fg_shape2(h, w), 3));
  fg_field *grey = fg_input(g, "grey", fg_type_scalar(FG_F32, fg_shape2(h, w)));
  fg_field *u8 = fg_input(g, "u8", fg_type_vector(FG_U8, fg_shape2(h, w), 4));
  fg_field *yuv[3];
  for (int k = 0; k < 3; k++)
    yuv[k] = fg_input(g, k == 0 ? "nv21" : k == 1 ? "yv12" : "i420",
                      fg_type_scalar(FG_U8, fg_shape1(fg_yuv_frame_bytes(
                                                yuv_formats[k], w, h))));
  static const float k3[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
  static const double m[6] = {0.9, 0.1, 1.5, -0.1, 0.9, 2.5};
  fg_field *f[] = {
      fg_flip(g, img, true, true),
      fg_transpose(g, img),
      fg_rotate90(g, img, 1),
      fg_rotate90(g, img, 2),
      fg_rotate90(g, img, 3),
      fg_rotate_angle(g, img, 30, FG_INTERP_BILINEAR, FG_BORDER_CONSTANT, 0),
      fg_rotate_angle(g, img, -20, FG_INTERP_NEAREST, FG_BORDER_CONSTANT, 1),
      fg_crop(g, img, 1, 2, 8, 9),
      fg_pad(g, img, 2, 3, 4, 5, FG_BORDER_CONSTANT, 0.5),
      fg_pad(g, img, 2, 3, 4, 5, FG_BORDER_CLAMP, 0),
      fg_warp_affine(g, img, m, 16, 16, FG_INTERP_BILINEAR,
                     FG_BORDER_CONSTANT, 0.25),
      fg_overlay(g, img, fg_downsample2(g, img), 3, 4),
      fg_resize(g, img, 16, 12, FG_INTERP_NEAREST),
      fg_resize(g, img, 16, 12, FG_INTERP_BILINEAR),
      fg_resize(g, img, 16, 12, FG_INTERP_BICUBIC),
      fg_resize(g, img, 16, 12, FG_INTERP_AREA),
      fg_upsample2(g, img),
      fg_convolve(g, img, 3, 3, k3, FG_BORDER_CLAMP),
      fg_convolve(g, img, 3, 3, k3, FG_BORDER_MIRROR),
      fg_gaussian_blur(g, grey, 1.5, 3, FG_BORDER_REFLECT),
      fg_box_blur(g, grey, 2, FG_BORDER_WRAP),
      fg_pad(g, grey, 3, 1, 2, 4, FG_BORDER_MIRROR, 0),
      fg_histogram(g, grey, 10, 0, 1),
      fg_reduce_mean(g, img),
      fg_reduce_sum(g, grey),
      fg_mean_axes(g, "mrows", img, FG_AXIS(0), false),
      fg_mean_axes(g, "mcols", img, FG_AXIS(1) | FG_AXIS_TENSOR, true),
      fg_reduce_axes(g, "maxrows", FG_REDUCE_MAX, grey, FG_AXIS(1), false),
      NULL, /* reduce_loc's location */
      fg_intrinsic_blur(g, u8, 2, NULL),
      fg_intrinsic_convolve3x3(g, u8, k3, NULL),
      fg_intrinsic_resize(g, u8, 10, 14, NULL),
      fg_intrinsic_histogram(g, u8, NULL),
      fg_intrinsic_histogram_dot(g, u8, NULL, NULL),
      fg_intrinsic_yuv_to_rgb(g, yuv[0], yuv_formats[0], w, h),
      fg_intrinsic_yuv_to_rgb(g, yuv[1], yuv_formats[1], w, h),
      fg_intrinsic_yuv_to_rgb(g, yuv[2], yuv_formats[2], w, h),
  };
  int nf = (int)(sizeof f / sizeof f[0]);
  fg_field *loc = NULL;
  fg_field *best = fg_reduce_loc(g, "argmax", FG_REDUCE_MAX, grey, &loc);
  for (int i = 0; i < nf; i++) {
    char name[16];
    snprintf(name, sizeof name, "o%d", i);
    fg_output(g, name, f[i] ? f[i] : loc);
  }
  fg_output(g, "best", best);
  fg_field *gx = NULL, *gy = NULL;
  fg_sobel(g, grey, FG_BORDER_REFLECT, &gx, &gy);
  fg_output(g, "gx", gx);
  fg_output(g, "gy", gy);
  fg_output(g, "median", fg_median3x3(g, img));
  fg_output(g, "min", fg_reduce_min(g, grey));
  fg_output(g, "blur5", fg_intrinsic_convolve5x5(
                            g, u8, (const float[25]){[12] = 1}, NULL));
  /* the pipelines' letterbox: pad(image, to=[64, 64]) */
  fg_op_list to = {2, 1, 2, (const float[]){64, 64}};
  fg_op_args pa = {.field = {img}, .num = {0, 0, 0, 0, 0, FG_BORDER_CONSTANT,
                                          0.25},
                   .list = {[7] = &to}};
  fg_output(g, "letterbox", fg_ops_call(g, fg_ops_find("pad"), &pa));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  return g;
}

/* The graph above compiled for two sizes into an empty kernel cache: the
 * second compile adds no file to it (every kernel's source is the first
 * size's), and its flip and mean compute what C does. */
START_TEST(test_build_one_kernel_set_for_any_size) {
  char dir[] = "/tmp/fg-sized-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  fg_context_options opt = {0};
  const char *b = getenv("FG_TEST_BACKEND");
  opt.backend = b && !strcmp(b, "opencl") ? FG_BACKEND_OPENCL : FG_BACKEND_CPU;
  opt.cache_dir = dir;
  fg_context *ctx = NULL;
  char err[1024];
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  static const int64_t size[2][2] = {{40, 56}, {46, 38}};
  int files[2], kernels[2];
  for (int s = 0; s < 2; s++) {
    int64_t h = size[s][0], w = size[s][1];
    fg_graph *g = sized_graph(h, w);
    fg_program *p = NULL;
    ck_assert_msg(fg_compile(ctx, g, NULL, &p) == FG_OK, "%s",
                  fg_context_errmsg(ctx));
    kernels[s] = fg_program_kernel_count(p);
    files[s] = count_files(dir, false);
    /* run it: the flipped image and the mean against C */
    size_t np = (size_t)(h * w);
    float *img = malloc(np * 3 * sizeof *img), *grey = malloc(np * sizeof *grey);
    uint8_t *u8 = malloc(np * 4);
    ck_assert(img && grey && u8);
    for (size_t i = 0; i < np * 3; i++)
      img[i] = (float)((i * 7919) % 1000) / 1000.0f;
    for (size_t i = 0; i < np; i++)
      grey[i] = (float)((i * 104729) % 997) / 997.0f;
    for (size_t i = 0; i < np * 4; i++)
      u8[i] = (uint8_t)(i * 31);
    uint8_t *yuv[3];
    for (int k = 0; k < 3; k++) {
      size_t nb = (size_t)fg_yuv_frame_bytes(yuv_formats[k], w, h);
      ck_assert_ptr_nonnull(yuv[k] = malloc(nb));
      for (size_t i = 0; i < nb; i++)
        yuv[k][i] = (uint8_t)(i * 13 + (size_t)k);
    }
    int nout = fg_program_output_count(p);
    void **out = calloc((size_t)nout, sizeof *out);
    for (int o = 0; o < nout; o++)
      out[o] = malloc(fg_type_bytes(fg_program_output_type(p, o)));
    ck_assert_int_eq(fg_program_run(p, 6,
                                    (const void *const[]){img, grey, u8,
                                                          yuv[0], yuv[1],
                                                          yuv[2]},
                                    nout, out), FG_OK);
    ck_assert_int_eq(fg_program_output_index(p, "o0"), 0);
    ck_assert_int_eq(fg_program_output_index(p, "o23"), 23);
    const float *flip = out[0];
    for (int64_t r = 0; r < h; r++)
      for (int64_t c = 0; c < w; c++)
        for (int k = 0; k < 3; k++)
          ck_assert_float_eq(flip[(r * w + c) * 3 + k],
                             img[((h - 1 - r) * w + (w - 1 - c)) * 3 + k]);
    double sum[3] = {0, 0, 0};
    for (size_t i = 0; i < np; i++)
      for (int k = 0; k < 3; k++)
        sum[k] += img[i * 3 + k];
    const float *mean = out[23];
    for (int k = 0; k < 3; k++)
      ck_assert_float_eq_tol(mean[k], sum[k] / (double)np, 1e-5);
    for (int o = 0; o < nout; o++)
      free(out[o]);
    free(out);
    free(img);
    free(grey);
    free(u8);
    for (int k = 0; k < 3; k++)
      free(yuv[k]);
    fg_program_free(p);
    fg_graph_free(g);
  }
  ck_assert_int_eq(kernels[0], kernels[1]);
  ck_assert_int_gt(files[0], 0);
  ck_assert_msg(files[1] == files[0], "%d cache files after the second "
                "size, %d after the first: some kernel's source depends on "
                "the image size", files[1], files[0]);
  tu_context_free(ctx);
  count_files(dir, true);
  rmdir(dir);
}
END_TEST

/* When clang itself crashes on a kernel at -march=native (clang 14 cannot
 * select some AVX-512 mask shifts: found by fuzz_diff), the CPU backend
 * builds it again for x86-64-v3 and the program runs; a real error in the
 * source is still reported.  The crash is a compiler of the test's own
 * that fails as clang's backend does whenever it is given -march=native. */
START_TEST(test_build_falls_back_when_the_compiler_crashes) {
  char dir[64] = "/tmp/fg-crashcc-XXXXXX", cc[128], cache[128];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  /* the real compiler behind the crashing one: the run's own, if named */
  const char *real = getenv("FG_CLANG");
  char real_cc[1024];
  snprintf(real_cc, sizeof real_cc, "%s",
           real && *real ? real : FG_CLANG_FOR_TESTS);
  snprintf(cc, sizeof cc, "%s/clang", dir);
  snprintf(cache, sizeof cache, "%s/cache", dir);
  FILE *f = fopen(cc, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "#!/bin/sh\nfor a; do\n  if [ \"$a\" = -march=native ]; then\n"
             "    echo 'fatal error: error in backend: Cannot select: "
             "X86ISD::KSHIFTR' >&2\n    exit 70\n  fi\ndone\n"
             "exec %s \"$@\"\n", real_cc);
  fclose(f);
  ck_assert_int_eq(chmod(cc, 0755), 0);
  setenv("FG_CLANG", cc, 1);
  setenv("FG_CACHE_DIR", cache, 1);
  unsetenv("FG_CPU_MARCH");
  fg_graph *g = fg_graph_new("g");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(64)));
  fg_output(g, "out", fg_scale_offset(g, in, 3, 1));
  int32_t x[64], y[64];
  for (int i = 0; i < 64; i++)
    x[i] = i - 20;
  /* the CPU backend's matter, whichever backend the suite runs on */
  fg_context_options opt = {.backend = FG_BACKEND_CPU};
  fg_context *ctx = NULL;
  char err[1024];
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  fg_program *p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){x}, 1,
                                  (void *[]){y}), FG_OK);
  for (int i = 0; i < 64; i++)
    ck_assert_int_eq(y[i], 3 * x[i] + 1);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  char rm[160];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  ck_assert_int_eq(system(rm), 0);
}
END_TEST

/* Counts the kernel sources (.c) under dir that call needle's routine and
 * those that do not, asserting that the first kind asks clang for two
 * loop iterations in flight and the second does not. */
static void count_interleaved(const char *dir, const char *needle,
                              int *with, int *without) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t n = strlen(de->d_name);
    if (n < 3 || strcmp(de->d_name + n - 2, ".c"))
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    bool calls = strstr(text, needle) != NULL;
    bool asks = strstr(text, "#pragma clang loop interleave_count(2)") != NULL;
    ck_assert_msg(calls == asks, "%s: calls %s: %d, interleaves: %d", path,
                  needle, calls, asks);
    *(calls ? with : without) += 1;
  }
  closedir(d);
}

/* The CPU backend's kernels that call the C dialect's math routines (long
 * dependency chains: pow, cbrt) ask clang to keep two iterations of their
 * column loop in flight; a kernel without them leaves the choice to
 * clang.  Read from the sources in the kernel cache. */
START_TEST(test_build_math_kernels_interleave) {
  char dir[] = "/tmp/fg-interleave-XXXXXX";
  fg_context *ctx = cpu_context_in(dir);
  for (int math = 0; math < 2; math++) {
    fg_graph *g = fg_graph_new(math ? "curve" : "twice");
    fg_type t = fg_type_scalar(FG_F32, fg_shape2(16, 64));
    fg_field *in = fg_input(g, "x", t);
    fg_op *op = fg_op_begin(g, math ? "curve" : "twice", 1, &t);
    fg_expr *x = fg_read_tensor(op, in);
    fg_write_tensor(op, 0, math ? fg_pow(x, fg_float(op, 2.4f))
                                : fg_mulf(x, 2.0f));
    fg_output(g, "y", fg_op_end(op));
    fg_program *p = tu_compile(ctx, g);
    float xs[16 * 64], ys[16 * 64];
    for (int i = 0; i < 16 * 64; i++)
      xs[i] = (float)i / 1024;
    fg_status st = fg_program_run(p, 1, (const void *[]){xs}, 1,
                                  (void *[]){ys});
    ck_assert_msg(st == FG_OK, "run: %s", fg_context_errmsg(ctx));
    for (int i = 0; i < 16 * 64; i++) {
      double want = math ? pow(xs[i], 2.4f) : 2.0 * xs[i];
      ck_assert_msg(fabs(ys[i] - want) <= 2e-7 * fabs(want), "%s(%g) = %g, "
                    "want %g", math ? "pow" : "twice", xs[i], ys[i], want);
    }
    fg_program_free(p);
    fg_graph_free(g);
  }
  tu_context_free(ctx);
  char sub[64];
  snprintf(sub, sizeof sub, "%s/cpu", dir);
  int with = 0, without = 0;
  count_interleaved(sub, "fgk_math_powf(", &with, &without);
  ck_assert_int_eq(with, 1);
  ck_assert_int_eq(without, 1);
  count_files(dir, true);
  rmdir(dir);
}
END_TEST

/* Whether some kernel source (.c) under dir holds needle; how many do. */
static int sources_with(const char *dir, const char *needle) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  struct dirent *de;
  int with = 0;
  while ((de = readdir(d))) {
    size_t n = strlen(de->d_name);
    if (n < 3 || strcmp(de->d_name + n - 2, ".c"))
      continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    with += strstr(text, needle) != NULL;
  }
  closedir(d);
  return with;
}

/* A reduction along a field axis that is not the columns (a thread loops
 * over layers or rows) asks clang to unroll-and-jam its column loop, and
 * still sums each point in index order: bit-identical to a C loop; a
 * pointwise kernel does not ask.  Read from the kernel cache's sources. */
START_TEST(test_build_axis_reductions_jam_columns) {
  char dir[] = "/tmp/fg-jam-XXXXXX";
  fg_context *ctx = cpu_context_in(dir);
  enum { L = 5, R = 7, C = 37 };
  static float xs[L * R * C];
  for (int i = 0; i < L * R * C; i++)
    xs[i] = (float)((i * 7919) % 1013) / 97.0f - 3.0f;
  for (int axis = 0; axis < 2; axis++) {
    fg_graph *g = fg_graph_new("axis");
    fg_field *in = fg_input(g, "x", fg_type_scalar(FG_F32,
                                                   fg_shape3(L, R, C)));
    fg_output(g, "y", fg_reduce_axes(g, "s", FG_REDUCE_SUM, in,
                                     FG_AXIS(axis), false));
    fg_program *p = tu_compile(ctx, g);
    static float ys[R * C];
    fg_status st = fg_program_run(p, 1, (const void *[]){xs}, 1,
                                  (void *[]){ys});
    ck_assert_msg(st == FG_OK, "run: %s", fg_context_errmsg(ctx));
    int n0 = axis ? L : R, n1 = axis ? R : L;
    for (int a = 0; a < n0; a++)
      for (int c = 0; c < C; c++) {
        float want = 0;
        for (int z = 0; z < n1; z++)
          want += axis ? xs[(a * R + z) * C + c] : xs[(z * R + a) * C + c];
        ck_assert_msg(ys[a * C + c] == want, "axis %d at (%d, %d): %.9g, "
                      "want %.9g", axis, a, c, ys[a * C + c], want);
      }
    fg_program_free(p);
    fg_graph_free(g);
  }
  char sub[64];
  snprintf(sub, sizeof sub, "%s/cpu", dir);
  ck_assert_int_eq(sources_with(sub, "#pragma unroll_and_jam"), 2);
  fg_graph *g = fg_graph_new("twice");
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(16, 64));
  fg_field *in = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "twice", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, in), 2.0f));
  fg_output(g, "y", fg_op_end(op));
  fg_program *p = tu_compile(ctx, g);
  static float ys[16 * 64];
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){xs}, 1,
                                  (void *[]){ys}), FG_OK);
  for (int i = 0; i < 16 * 64; i++)
    ck_assert(ys[i] == 2.0f * xs[i]);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
  ck_assert_int_eq(sources_with(sub, "#pragma unroll_and_jam"), 2);
  ck_assert_int_eq(sources_with(sub, "fgk_threads"), 3);
  count_files(dir, true);
  rmdir(dir);
}
END_TEST

/* Where a reduction's loop is the same for every column (its bounds
 * constants and extents), the interior also runs blocks of 128 column
 * lanes with the loop outside (emit/jam.c); 300 columns are two blocks
 * and 44 one by one.  Sums and maxima along layers and rows are still
 * bit-identical to a C loop in index order, and a loop whose bound
 * depends on the column keeps its columns apart. */
START_TEST(test_build_axis_reductions_column_lanes) {
  char dir[] = "/tmp/fg-lanes-XXXXXX";
  fg_context *ctx = cpu_context_in(dir);
  enum { L = 5, R = 3, C = 300 };
  static float xs[L * R * C], ys[L * C];
  for (int i = 0; i < L * R * C; i++)
    xs[i] = (float)((i * 7919) % 1013) / 97.0f - 3.0f;
  fg_type t = fg_type_scalar(FG_F32, fg_shape3(L, R, C));
  for (int axis = 0; axis < 2; axis++)
    for (int max = 0; max < 2; max++) {
      fg_graph *g = fg_graph_new("lanes");
      fg_output(g, "y", fg_reduce_axes(g, "r", max ? FG_REDUCE_MAX
                                                   : FG_REDUCE_SUM,
                                       fg_input(g, "x", t), FG_AXIS(axis),
                                       false));
      fg_program *p = tu_compile(ctx, g);
      ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){xs}, 1,
                                      (void *[]){ys}), FG_OK);
      int n0 = axis ? L : R, n1 = axis ? R : L;
      for (int a = 0; a < n0; a++)
        for (int c = 0; c < C; c++) {
          float want = max ? -INFINITY : 0;
          for (int z = 0; z < n1; z++) {
            float x = axis ? xs[(a * R + z) * C + c] : xs[(z * R + a) * C + c];
            want = max ? (x > want ? x : want) : want + x;
          }
          ck_assert_msg(ys[a * C + c] == want, "axis %d %s at (%d, %d): "
                        "%.9g, want %.9g", axis, max ? "max" : "sum", a, c,
                        ys[a * C + c], want);
        }
      fg_program_free(p);
      fg_graph_free(g);
    }
  char sub[64];
  snprintf(sub, sizeof sub, "%s/cpu", dir);
  ck_assert_int_eq(sources_with(sub, "fgk_k < 128"), 4);
  /* the sum of the first column % 4 + 1 layers */
  fg_graph *g = fg_graph_new("ragged");
  fg_field *in = fg_input(g, "x", t);
  fg_type ot = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_op *op = fg_op_begin(g, "ragged", 1, &ot);
  fg_expr *acc = fg_var(op, FG_F32, 1), *z = fg_var(op, FG_I32, 1);
  fg_for(z, fg_int(op, 0),
         fg_lt(z, fg_addi(fg_mod(fg_column(op), fg_int(op, 4)), 1)),
         fg_int(op, 1));
  fg_assign(acc, fg_add(acc, fg_read_tensor_at(op, in, 3, z, fg_row(op),
                                               fg_column(op))));
  fg_end(op);
  fg_write_tensor(op, 0, acc);
  fg_output(g, "y", fg_op_end(op));
  fg_program *p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){xs}, 1,
                                  (void *[]){ys}), FG_OK);
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) {
      float want = 0;
      for (int l = 0; l < c % 4 + 1; l++)
        want += xs[(l * R + r) * C + c];
      ck_assert_msg(ys[r * C + c] == want, "ragged at (%d, %d): %.9g, want "
                    "%.9g", r, c, ys[r * C + c], want);
    }
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
  ck_assert_int_eq(sources_with(sub, "fgk_k < 128"), 4);
  ck_assert_int_eq(sources_with(sub, "fgk_threads"), 5);
  count_files(dir, true);
  rmdir(dir);
}
END_TEST

/* A transpose walks its tile in blocks of columns (emit/blocks.c), 64
 * per byte of its pixel rounded up to a power of two, at most 512: u8
 * 64, u8x3 256, f32x3 512; every element lands where a C loop puts it,
 * the last block of 700 columns a partial one. */
START_TEST(test_build_transpose_blocks_by_pixel_bytes) {
  char dir[] = "/tmp/fg-blocks-XXXXXX";
  fg_context *ctx = cpu_context_in(dir);
  enum { H = 700, W = 300 };
  static uint8_t in[H * W * 12], out[H * W * 12];
  for (int i = 0; i < H * W * 12; i++)
    in[i] = (uint8_t)((i * 2654435761u) >> 11);
  const fg_elem elem[3] = {FG_U8, FG_U8, FG_F32};
  const int comps[3] = {1, 3, 3};
  for (int c = 0; c < 3; c++) {
    fg_graph *g = fg_graph_new("transpose");
    fg_type t = comps[c] == 1
                    ? fg_type_scalar(elem[c], fg_shape2(H, W))
                    : fg_type_vector(elem[c], fg_shape2(H, W), comps[c]);
    fg_output(g, "y", fg_transpose(g, fg_input(g, "x", t)));
    fg_program *p = tu_compile(ctx, g);
    ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){in}, 1,
                                    (void *[]){out}), FG_OK);
    size_t px = fg_elem_size(elem[c]) * (size_t)comps[c];
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        ck_assert_msg(!memcmp(out + ((size_t)x * H + y) * px,
                              in + ((size_t)y * W + x) * px, px),
                      "pixel of %zu bytes at (%d, %d)", px, y, x);
    fg_program_free(p);
    fg_graph_free(g);
  }
  tu_context_free(ctx);
  char sub[64];
  snprintf(sub, sizeof sub, "%s/cpu", dir);
  ck_assert_int_eq(sources_with(sub, "fgk_cb += 64)"), 1);
  ck_assert_int_eq(sources_with(sub, "fgk_cb += 256)"), 1);
  ck_assert_int_eq(sources_with(sub, "fgk_cb += 512)"), 1);
  count_files(dir, true);
  rmdir(dir);
}
END_TEST

/* A kernel that gathers (a transpose: each thread reads at computed
 * coordinates) gets a copy of its threads indexing in 32 bits, which
 * small inputs run: every element lands where a C loop puts it, for
 * 8-bit and 4-element tensors; a pointwise kernel gets no copy. */
START_TEST(test_build_gathers_index_in_32_bits) {
  char dir[] = "/tmp/fg-index32-XXXXXX";
  fg_context *ctx = cpu_context_in(dir);
  enum { R = 13, C = 37 };
  static uint8_t xs[R * C * 4], ys[R * C * 4];
  for (int i = 0; i < R * C * 4; i++)
    xs[i] = (uint8_t)(i * 7 + i / 5);
  for (int n = 1; n <= 4; n += 3) {
    fg_graph *g = fg_graph_new("transpose");
    fg_field *in = fg_input(g, "x", fg_type_vector(FG_U8, fg_shape2(R, C),
                                                   n));
    fg_output(g, "y", fg_transpose(g, in));
    fg_program *p = tu_compile(ctx, g);
    fg_status st = fg_program_run(p, 1, (const void *[]){xs}, 1,
                                  (void *[]){ys});
    ck_assert_msg(st == FG_OK, "run: %s", fg_context_errmsg(ctx));
    for (int r = 0; r < C; r++)
      for (int c = 0; c < R; c++)
        for (int k = 0; k < n; k++)
          ck_assert_msg(ys[(r * R + c) * n + k] == xs[(c * C + r) * n + k],
                        "width %d at (%d, %d, %d): %d, want %d", n, r, c, k,
                        ys[(r * R + c) * n + k], xs[(c * C + r) * n + k]);
    fg_program_free(p);
    fg_graph_free(g);
  }
  char sub[64];
  snprintf(sub, sizeof sub, "%s/cpu", dir);
  ck_assert_int_eq(sources_with(sub, "fgk_threads32("), 2);
  fg_graph *g = fg_graph_new("twice");
  fg_type t = fg_type_scalar(FG_U8, fg_shape2(R, C));
  fg_field *in = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "twice", 1, &t);
  fg_expr *x = fg_read_tensor(op, in);
  fg_write_tensor(op, 0, fg_convert(fg_add(x, x), FG_U8, 1));
  fg_output(g, "y", fg_op_end(op));
  fg_program *p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){xs}, 1,
                                  (void *[]){ys}), FG_OK);
  for (int i = 0; i < R * C; i++)
    ck_assert_int_eq(ys[i], (uint8_t)(2 * xs[i]));
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
  ck_assert_int_eq(sources_with(sub, "fgk_threads32("), 2);
  ck_assert_int_eq(sources_with(sub, "fgk_threads("), 3);
  count_files(dir, true);
  rmdir(dir);
}
END_TEST

/* A script of RenderScript kernels on uchar4 and float4 values: invert,
 * a grey level through float4 arithmetic and rsPackColorTo8888, and a
 * float4 result. */
static const char vector_script[] =
  "#pragma version(1)\n#pragma rs java_package_name(t)\n"
  "uchar4 RS_KERNEL invert(uchar4 in) {\n"
  "  uchar4 o = in; o.rgb = 255 - in.rgb; return o; }\n"
  "uchar4 RS_KERNEL grey(uchar4 in) {\n"
  "  float4 f = rsUnpackColor8888(in);\n"
  "  float g = dot(f.rgb, (float3){0.299f, 0.587f, 0.114f});\n"
  "  return rsPackColorTo8888((float4){g, g * 0.5f, 1.5f * g, f.a}); }\n"
  "float4 RS_KERNEL mix3(uchar4 in) {\n"
  "  float4 f = convert_float4(in) * (1.0f / 255);\n"
  "  return f.zyxw * f - 0.25f; }\n";

/* Runs invert, grey (on invert's result) and mix3 of vector_script over
 * a W x H image px on a CPU context made under FG_CLANG cc (NULL: the
 * run's own) and FG_CACHE_DIR cache, into inv, grey (uchar4) and mix
 * (float4); *marked: whether every kernel's text says it computes values
 * of vector type. */
static void run_vector_script(const char *cc, const char *cache, int W,
                              int H, const uint8_t *px, uint8_t *inv,
                              uint8_t *grey, float *mix, bool *marked) {
  const char *old = getenv("FG_CLANG");
  char saved[1024] = "";
  if (old)
    snprintf(saved, sizeof saved, "%s", old);
  if (cc)
    setenv("FG_CLANG", cc, 1);
  setenv("FG_CACHE_DIR", cache, 1);
  char err[1024];
  fg_rs_script *s = NULL;
  ck_assert_msg(fg_rs_script_new_source("vec", "vec.rs", vector_script,
                                        (size_t)-1, &s, err, sizeof err) ==
                FG_OK, "%s", err);
  fg_graph *g = fg_graph_new("vec");
  fg_field *img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  fg_field *i = fg_rs_map(g, s, "invert", 1, &img, NULL);
  fg_output(g, "inv", i);
  fg_output(g, "grey", fg_rs_map(g, s, "grey", 1, &i, NULL));
  fg_output(g, "mix", fg_rs_map(g, s, "mix3", 1, &img, NULL));
  fg_rs_script_free(s);
  fg_context_options opt = {.backend = FG_BACKEND_CPU};
  fg_context *ctx = NULL;
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  if (cc && old)
    setenv("FG_CLANG", saved, 1);
  else if (cc)
    unsetenv("FG_CLANG");
  fg_program *p = tu_compile(ctx, g);
  *marked = true;
  for (int k = 0; k < fg_program_kernel_count(p); k++)
    *marked &= strstr(fg_program_kernel_source(p, k),
                      "/* fgk: thread loop with vector values */\n") != NULL;
  ck_assert_msg(fg_program_run(p, 1, (const void *[]){px}, 3,
                               (void *[]){inv, grey, mix}) == FG_OK, "%s",
                fg_context_errmsg(ctx));
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
}

/* A kernel computing values of vector type (RenderScript's uchar4 and
 * float4) goes through LLVM's opt, whose scalarizer splits them before
 * the loop vectorizer; a kernel of the DSL, split already, does not.
 * The opt seen is a logging one beside a compiler of the test's own (the
 * backend takes the opt beside clang's real path).  The bits are those
 * of clang alone (a compiler with no opt beside it) and of a C loop. */
START_TEST(test_build_vector_values_split_before_vectorizing) {
  char dir[64] = "/tmp/fg-optcc-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  const char *env = getenv("FG_CLANG");
  char *real = realpath(env && *env ? env : FG_CLANG_FOR_TESTS, NULL);
  ck_assert_ptr_nonnull(real);
  char real_opt[1100], cc[128], opt[128], cc_alone[128], log[128];
  snprintf(real_opt, sizeof real_opt, "%.*s/opt",
           (int)(strrchr(real, '/') - real), real);
  ck_assert_msg(access(real_opt, X_OK) == 0, "LLVM's opt is not beside "
                "clang (%s): scripts/setup installs it", real_opt);
  snprintf(cc, sizeof cc, "%s/clang", dir);
  snprintf(opt, sizeof opt, "%s/opt", dir);
  snprintf(log, sizeof log, "%s/opt.log", dir);
  snprintf(cc_alone, sizeof cc_alone, "%s/alone", dir);
  ck_assert_int_eq(mkdir(cc_alone, 0700), 0);
  snprintf(cc_alone, sizeof cc_alone, "%s/alone/clang", dir);
  const char *scripts[3][2] = {{cc, "exec %s \"$@\"\n"},
                               {cc_alone, "exec %s \"$@\"\n"},
                               {opt, "echo run >> %s.log\nexec %s \"$@\"\n"}};
  for (int k = 0; k < 3; k++) {
    FILE *f = fopen(scripts[k][0], "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "#!/bin/sh\n");
    if (k < 2)
      fprintf(f, scripts[k][1], real);
    else
      fprintf(f, scripts[k][1], opt, real_opt);
    fclose(f);
    ck_assert_int_eq(chmod(scripts[k][0], 0755), 0);
  }
  free(real);
  enum { W = 37, H = 5 };
  uint8_t px[W * H * 4], inv[2][W * H * 4], grey[2][W * H * 4];
  float mix[2][W * H * 4];
  for (int k = 0; k < W * H * 4; k++)
    px[k] = (uint8_t)(k * 37 + k / 7);
  char cache[2][128];
  bool marked[2];
  for (int b = 0; b < 2; b++) {
    snprintf(cache[b], sizeof cache[b], "%s/cache%d", dir, b);
    run_vector_script(b ? cc_alone : cc, cache[b], W, H, px, inv[b], grey[b],
                      mix[b], &marked[b]);
    ck_assert(marked[b]);
  }
  ck_assert_msg(access(log, F_OK) == 0, "opt did not run");
  /* the same bits either way, invert and mix3 those of C */
  ck_assert(!memcmp(inv[0], inv[1], sizeof inv[0]));
  ck_assert(!memcmp(grey[0], grey[1], sizeof grey[0]));
  ck_assert(!memcmp(mix[0], mix[1], sizeof mix[0]));
  for (int p = 0; p < W * H; p++)
    for (int c = 0; c < 4; c++) {
      int k = 4 * p + c;
      ck_assert_int_eq(inv[0][k], c < 3 ? 255 - px[k] : px[k]);
      float f = px[k] * (1.0f / 255), sw = px[4 * p + (c < 3 ? 2 - c : 3)] *
                                           (1.0f / 255);
      ck_assert_float_eq(mix[0][k], sw * f - 0.25f);
    }
  /* a kernel of the DSL: no opt */
  ck_assert_int_eq(unlink(log), 0);
  setenv("FG_CLANG", cc, 1);
  fg_graph *g = fg_graph_new("g");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(64)));
  fg_output(g, "out", fg_scale_offset(g, in, 3, 1));
  fg_context_options o = {.backend = FG_BACKEND_CPU};
  fg_context *ctx = NULL;
  char err[1024];
  ck_assert_msg(fg_context_new(&o, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  if (env && *env)
    setenv("FG_CLANG", env, 1);
  else
    unsetenv("FG_CLANG");
  fg_program *p = tu_compile(ctx, g);
  ck_assert(!strstr(fg_program_kernel_source(p, 0), "fgk: thread loop"));
  ck_assert_msg(access(log, F_OK) != 0, "opt ran for a kernel of the DSL");
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  char rm[160];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  ck_assert_int_eq(system(rm), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("build");
  TCase *tc = tcase_create("build");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_build_many_kernels);
  tcase_add_test(tc, test_build_first_failure_is_reported);
  tcase_add_test(tc, test_build_one_kernel_set_for_any_size);
  tcase_add_test(tc, test_build_falls_back_when_the_compiler_crashes);
  tcase_add_test(tc, test_build_math_kernels_interleave);
  tcase_add_test(tc, test_build_axis_reductions_jam_columns);
  tcase_add_test(tc, test_build_axis_reductions_column_lanes);
  tcase_add_test(tc, test_build_transpose_blocks_by_pixel_bytes);
  tcase_add_test(tc, test_build_gathers_index_in_32_bits);
  tcase_add_test(tc, test_build_vector_values_split_before_vectorizing);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
