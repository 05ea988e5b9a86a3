/* tests/check_rs.c - RenderScript kernels as graph nodes, on the backend
 * $FG_TEST_BACKEND names (cpu by default; tests/opencl-suites.sh runs it
 * again on OpenCL): the scanner's declarations and its errors with
 * file:line:column, the reference's kernels (invert, greyscale, the
 * single-source pipeline fused into one pass, also through fg_rs_invoke
 * of its process() with a temporary allocation, addint, findMinAndMax,
 * dotProduct, fz2, histogram, mode) on a real photo and on synthetic
 * inputs checked against plain C, script globals (set, get, per-run
 * values), bound allocations, special arguments, launch ranges, the rules
 * on mandatory combiners, type and shape mismatches, compiler errors at
 * the user's line, fusion with DSL operators and between scripts,
 * fg_rs_invoke's subset and its errors, each kernel's precision from the
 * fp pragmas, locals shadowing globals, fract and rsClamp, structs
 * between kernels, and the refusal of rsSetElementAt. */
#ifndef FG_SAMPLES_DIR
#define FG_SAMPLES_DIR "data/samples"
#endif
#ifndef FG_RS_DIR
#define FG_RS_DIR "tests/rs"
#endif
#include "testutil.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- helpers ------------------------------------------------------------ */

static fg_rs_script *load(const char *file) {
  return tu_rs_load("", file);
}

static fg_rs_script *source(const char *name, const char *text) {
  char err[1024];
  fg_rs_script *s = NULL;
  fg_status st = fg_rs_script_new_source(name, NULL, text, (size_t)-1, &s,
                                         err, sizeof err);
  ck_assert_msg(st == FG_OK, "%s", err);
  return s;
}

/* The error a script's text gives (FG_EFORMAT expected). */
static const char *bad_source(const char *file, const char *text, char *err,
                              size_t errlen) {
  fg_rs_script *s = NULL;
  fg_status st = fg_rs_script_new_source("bad", file, text, (size_t)-1, &s,
                                         err, errlen);
  ck_assert_msg(st == FG_EFORMAT, "expected FG_EFORMAT, got %s",
                fg_status_name(st));
  ck_assert_ptr_null(s);
  return err;
}

/* An RGBA copy of a bundled photo. */
static uint8_t *photo_rgba(const char *name, int *w, int *h) {
  char path[1024], err[512];
  fg_image img;
  ck_assert_msg(fg_image_read(tu_sample(name, path, sizeof path), &img, err,
                              sizeof err) == FG_OK, "%s", err);
  *w = img.width;
  *h = img.height;
  uint8_t *p = malloc((size_t)img.width * img.height * 4);
  for (int i = 0; i < img.width * img.height; i++)
    for (int c = 0; c < 4; c++)
      p[4 * i + c] = c < img.channels ? img.data[i * img.channels + c]
                     : c == 3 ? 255 : img.data[i * img.channels];
  fg_image_free(&img);
  return p;
}

static fg_program *compile_fusion(fg_context *ctx, fg_graph *g, fg_fusion f) {
  ck_assert_msg(fg_graph_status(g) == FG_OK, "graph: %s", fg_graph_errmsg(g));
  fg_compile_options o = {.fusion = f};
  fg_program *p = NULL;
  ck_assert_msg(fg_compile(ctx, g, &o, &p) == FG_OK, "fg_compile: %s",
                fg_context_errmsg(ctx));
  return p;
}

static void run(fg_context *ctx, fg_program *p, int n_in,
                const void *const *in, int n_out, void *const *out) {
  ck_assert_msg(fg_program_run(p, n_in, in, n_out, out) == FG_OK,
                "fg_program_run: %s", fg_context_errmsg(ctx));
}

/* greyscale's arithmetic, as the script does it in float */
static uint8_t grey_of(const uint8_t *px) {
  const float w[4] = {0.299f, 0.587f, 0.114f, 0.0f};
  float d = 0;
  for (int c = 0; c < 4; c++)
    d += (float)px[c] * 0.003921569f * w[c];
  float v = d * 255.f + 0.5f;
  v = v < 0 ? 0 : v > 255 ? 255 : v;
  return (uint8_t)v;
}

/* ---- the scanner -------------------------------------------------------- */

START_TEST(test_rs_scan_reads_the_reference_scripts) {
  fg_rs_script *s = load("singlesource.rs");
  ck_assert_str_eq(fg_rs_script_name(s), "singlesource");
  ck_assert_int_eq(fg_rs_script_fp(s), FG_RS_FP_FULL);
  /* a static global is the script's own */
  ck_assert_int_eq(fg_rs_global_size(s, "weight"), 16);
  float w[4];
  ck_assert_int_eq(fg_rs_get(s, "weight", w, sizeof w), FG_EINVAL);
  ck_assert_msg(strstr(fg_rs_script_errmsg(s), "static"), "%s",
                fg_rs_script_errmsg(s));
  fg_rs_script_free(s);
  fg_rs_script *r = load("reductions.rs");
  fg_rs_script_free(r);
  fg_rs_script *f = source("fp", "#pragma version(1)\n"
                           "#pragma rs_fp_relaxed\n"
                           "float RS_KERNEL twice(float v) { return 2 * v; }\n");
  ck_assert_int_eq(fg_rs_script_fp(f), FG_RS_FP_RELAXED);
  fg_rs_script_free(f);
}
END_TEST

START_TEST(test_rs_scan_errors_carry_line_and_column) {
  char err[1024];
  bad_source("bad.rs", "#pragma version(1)\n\nint gain = ;\n", err,
             sizeof err);
  ck_assert_msg(strstr(err, "bad.rs:3:12:"), "%s", err);
  bad_source("bad.rs", "#pragma version(2)\n", err, sizeof err);
  ck_assert_msg(strstr(err, "bad.rs:1:17:") && strstr(err, "version"), "%s",
                err);
  bad_source("bad.rs", "static int f(int a) {\n  return a;\n", err,
             sizeof err);
  ck_assert_msg(strstr(err, "bad.rs:1:21:") && strstr(err, "never closed"),
                "%s", err);
  bad_source("bad.rs", "int x;\n  @\n", err, sizeof err);
  ck_assert_msg(strstr(err, "bad.rs:2:3:"), "%s", err);
  bad_source("bad.rs", "#include \"rs_debug.rsh\"\n#include \"nothere.rsh\"\n",
             err, sizeof err);
  ck_assert_msg(strstr(err, "bad.rs:2:10:") && strstr(err, "nothere.rsh"),
                "%s", err);
  bad_source("bad.rs", "#if 1\n#error no such feature\n#endif\n", err,
             sizeof err);
  ck_assert_msg(strstr(err, "bad.rs:2:2:") && strstr(err, "no such feature"),
                "%s", err);
  /* columns of tokens after a macro's expansion stay the user's */
  bad_source("bad.rs", "#define N 4\nint  a[N] =  { 1, 2 }, b = ;\n", err,
             sizeof err);
  ck_assert_msg(strstr(err, "bad.rs:2:28:"), "%s", err);
  bad_source("bad.rs", "uchar4 RS_KERNEL k(uchar4 in, float x) "
             "{ return in; }\n", err, sizeof err);
  ck_assert_msg(strstr(err, "bad.rs:1:37:") && strstr(err, "special"), "%s",
                err);
  bad_source("bad.rs", "#pragma rs reduce(r) accumulator(acc)\n"
             "void acc(int *a, int v) { *a += v; }\n", err, sizeof err);
  ck_assert_msg(strstr(err, "bad.rs:2:6:") && strstr(err, "static"), "%s",
                err);
  /* the API's own checks */
  fg_rs_script *s = (fg_rs_script *)1;
  ck_assert_int_eq(fg_rs_script_new_source(NULL, NULL, "", 0, &s, err,
                                           sizeof err), FG_EINVAL);
  ck_assert_ptr_null(s);
  ck_assert_int_eq(fg_rs_script_new_file("/nonexistent/x.rs", &s, err,
                                         sizeof err), FG_EIO);
  ck_assert_msg(strstr(err, "/nonexistent/x.rs"), "%s", err);
}
END_TEST

START_TEST(test_rs_combiner_rules) {
  char err[1024];
  /* more than one input */
  bad_source("c.rs", "#pragma rs reduce(dp) accumulator(acc)\n"
             "static void acc(float *a, float p, float q) { *a += p * q; }\n",
             err, sizeof err);
  ck_assert_msg(strstr(err, "c.rs:1:12:") && strstr(err, "combiner") &&
                strstr(err, "2 inputs"), "%s", err);
  /* an input type that is not the accumulator's */
  bad_source("c.rs", "#pragma rs reduce(cnt) accumulator(acc)\n"
             "static void acc(int *a, uchar v) { *a += v; }\n", err,
             sizeof err);
  ck_assert_msg(strstr(err, "combiner") && strstr(err, "uchar"), "%s", err);
  /* special arguments */
  bad_source("c.rs", "#pragma rs reduce(sx) accumulator(acc)\n"
             "static void acc(int *a, int v, int x) { *a += v * x; }\n", err,
             sizeof err);
  ck_assert_msg(strstr(err, "combiner") && strstr(err, "special"), "%s", err);
  /* an outconverter of the wrong shape */
  bad_source("c.rs", "#pragma rs reduce(s) accumulator(acc) "
             "outconverter(out)\n"
             "static void acc(int *a, int v) { *a += v; }\n"
             "static void out(int *r, const float *a) { *r = *a; }\n", err,
             sizeof err);
  ck_assert_msg(strstr(err, "c.rs:3:13:") && strstr(err, "outconverter"),
                "%s", err);
  /* one input of the accumulator's type and no special argument: the
   * accumulator stands in for the combiner */
  fg_rs_script *ok = source("ok", "#pragma rs reduce(s) accumulator(acc)\n"
                            "static void acc(int *a, int v) { *a += v; }\n");
  fg_rs_script_free(ok);
}
END_TEST

/* ---- preprocessing ------------------------------------------------------ */

/* A suite of two scripts sharing a header (include guard, function-like
 * macros, #if on RS_VERSION, a static helper), one also including a
 * header from a user include path and choosing code with #ifdef; each
 * checked against plain C; an error inside a header names the header's
 * line and column. */
static int mix_channel_c(int a, int b) {
  int v = a * 3 / 4 + b / 4 + 7;
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

START_TEST(test_rs_preprocessor_suite_shares_a_header) {
  char err[1024];
  const char *dirs[] = {FG_RS_DIR "/include"};
  fg_rs_options o = {.include_dirs = dirs, .n_include_dirs = 1};
  fg_rs_script *tint = NULL, *gain = NULL;
  ck_assert_msg(fg_rs_script_new_file_opt(FG_RS_DIR "/suite/tint.rs", &o,
                                          &tint, err, sizeof err) == FG_OK,
                "%s", err);
  ck_assert_msg(fg_rs_script_new_file_opt(FG_RS_DIR "/suite/gain.rs", &o,
                                          &gain, err, sizeof err) == FG_OK,
                "%s", err);
  /* without the include path, the header is missing at its line */
  fg_rs_script *none = NULL;
  ck_assert_int_eq(fg_rs_script_new_file(FG_RS_DIR "/suite/gain.rs", &none,
                                         err, sizeof err), FG_EFORMAT);
  ck_assert_msg(strstr(err, "gain.rs:7:10:") && strstr(err, "gain_params"),
                "%s", err);
  ck_assert_int_eq(fg_rs_script_new_file(FG_RS_DIR "/suite/uses_bad.rs",
                                         &none, err, sizeof err), FG_EFORMAT);
  ck_assert_msg(strstr(err, "bad_header.rsh:3:25:"), "%s", err);
  enum { N = 300 };
  fg_graph *g = fg_graph_new("suite");
  fg_field *img = fg_input(g, "img", fg_type_vector(FG_U8, fg_shape1(N), 4));
  fg_field *v = fg_input(g, "v", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_output(g, "tint", fg_rs_map(g, tint, "tint", 1, &img, NULL));
  fg_output(g, "gain", fg_rs_map(g, gain, "gain", 1, &v, NULL));
  fg_rs_script_free(tint);
  fg_rs_script_free(gain);
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  uint8_t px[N * 4], out[N * 4];
  int32_t vi[N], vo[N];
  for (int i = 0; i < N * 4; i++)
    px[i] = (uint8_t)(i * 37 + 11);
  for (int i = 0; i < N; i++)
    vi[i] = i - 150;
  run(ctx, p, 2, (const void *[]){px, vi}, 2, (void *[]){out, vo});
  const int tc[3] = {10, 200, 30};
  for (int i = 0; i < N; i++) {
    for (int c = 0; c < 3; c++)
      ck_assert_int_eq(out[4 * i + c], mix_channel_c(px[4 * i + c], tc[c]));
    ck_assert_int_eq(out[4 * i + 3], px[4 * i + 3]);
    ck_assert_int_eq(vo[i], vi[i] * vi[i] * 3 + mix_channel_c(vi[i], 0));
  }
  fg_program_free(p);
  tu_context_free(ctx);
}
END_TEST

/* ---- unsupported calls -------------------------------------------------- */

/* One unsupported call (in a kernel's helper, in an invokable) is named
 * at its file:line:column when the script loads (fg_rs_script_warnings)
 * and when a node launches that kernel; the script's other kernels build
 * with only what they reach and run. */
START_TEST(test_rs_unsupported_call_spares_other_kernels) {
  fg_rs_script *s = NULL;
  char err[1024];
  ck_assert_int_eq(fg_rs_script_new_source("mixed", "mixed.rs",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "static int now(void) { return rsTime(0); }\n"
    "static int twice(int v) { return 2 * v; }\n"
    "int RS_KERNEL stamp(int v) { return v + now(); }\n"
    "int RS_KERNEL good(int v) { return twice(v) + 1; }\n"
    "void setup(int seed) { rsSetObjectThing(seed); }\n",
    (size_t)-1, &s, err, sizeof err), FG_OK);
  const char *w = fg_rs_script_warnings(s);
  ck_assert_msg(strstr(w, "mixed.rs:3:31: kernel 'stamp' calls 'rsTime'"),
                "%s", w);
  ck_assert_msg(!strstr(w, "good"), "%s", w);
  fg_graph *g = fg_graph_new("mixed");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape1(64)));
  fg_output(g, "good", fg_rs_map(g, s, "good", 1, &a, NULL));
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  int32_t in[64], out[64];
  for (int i = 0; i < 64; i++)
    in[i] = i * 7 - 100;
  run(ctx, p, 1, (const void *[]){in}, 1, (void *[]){out});
  for (int i = 0; i < 64; i++)
    ck_assert_int_eq(out[i], 2 * in[i] + 1);
  fg_program_free(p);
  ck_assert_ptr_null(fg_rs_map(g, s, "stamp", 1, &a, NULL));
  ck_assert_int_eq(fg_graph_status(g), FG_ENOTSUP);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "mixed.rs:3:31: fg_rs_map "
                       "'mixed.stamp': 'rsTime'"), "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  tu_context_free(ctx);
  fg_rs_script_free(s);
}
END_TEST

/* ---- defects on valid scripts ------------------------------------------ */

static int32_t div_c(int32_t x, int32_t y) {
  return y == 0 ? 0 : y == -1 ? (int32_t)(0u - (uint32_t)x) : x / y;
}
static int32_t mod_c(int32_t x, int32_t y) {
  return y == 0 || y == -1 ? 0 : x % y;
}

/* Issue 14's defects 3-8 on valid scripts, each kernel against plain C:
 * RenderScript's rsClamp and clamp overloads, a static local table on
 * OpenCL, no contraction at full precision (bit-exact on both backends),
 * integer division by zero and INT_MIN / -1 in scalars and vectors, a
 * pointer local into a global array, and rsGetElementAt_<T> of a bound
 * field of another type refused at its line; true and false. */
START_TEST(test_rs_defects_on_valid_scripts) {
  enum { N = 4096 };
  fg_rs_script *s = load("defects.rs");
  ck_assert_str_eq(fg_rs_script_warnings(s), "");
  fg_graph *g = fg_graph_new("defects");
  fg_field *f = fg_input(g, "f", fg_type_scalar(FG_F32, fg_shape1(N)));
  fg_field *i = fg_input(g, "i", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_field *i4 = fg_input(g, "i4", fg_type_vector(FG_I32, fg_shape1(N), 4));
  fg_field *src = fg_input(g, "src", fg_type_scalar(FG_F32, fg_shape1(N + 8)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "src", src), FG_OK);
  static const char *const names[] = {"clampi", "clampf", "table", "conv",
                                      "divz", "divmin", "divvec",
                                      "negative"};
  fg_field *const ins[] = {f, f, i, f, i, i, i4, i};
  for (int k = 0; k < 8; k++)
    fg_output(g, names[k], fg_rs_map(g, s, names[k], 1, &ins[k], NULL));
  /* rsGetElementAt_float of a field of uchar4 */
  fg_graph *g2 = fg_graph_new("wrong type");
  fg_field *f2 = fg_input(g2, "f", fg_type_scalar(FG_F32, fg_shape1(N)));
  fg_field *img = fg_input(g2, "img", fg_type_vector(FG_U8, fg_shape1(N), 4));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "src", img), FG_OK);
  ck_assert_ptr_null(fg_rs_map(g2, s, "conv", 1, &f2, NULL));
  ck_assert_int_eq(fg_graph_status(g2), FG_ETYPE);
  ck_assert_msg(strstr(fg_graph_errmsg(g2), "defects.rs:29:17: fg_rs_map "
                       "'defects.conv': rsGetElementAt_float reads "
                       "rs_allocation 'src'"), "%s", fg_graph_errmsg(g2));
  fg_graph_free(g2);
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  static float fi[N], sv[N + 8], oclampf[N], oconv[N];
  static int32_t ii[N], i4v[4 * N], oclampi[N], otable[N], odivz[N],
      odivmin[N], odivvec[4 * N], oneg[N];
  uint32_t seed = 12345;
  for (int k = 0; k < N + 8; k++) {
    seed = seed * 1664525u + 1013904223u;
    sv[k] = (float)(seed >> 8) / 16777216.0f * 3.0f - 1.0f;
  }
  for (int k = 0; k < N; k++) {
    fi[k] = (float)k * 0.00377f - 6.1f;
    ii[k] = k % 5 == 0 ? INT32_MIN : k * 7919 - 9000000;
    for (int c = 0; c < 4; c++)
      i4v[4 * k + c] = k % 3 == 0 ? INT32_MIN : k * 31 - 50000 + c;
  }
  for (int round = 0; round < 2; round++) {
    run(ctx, p, 4, (const void *[]){fi, ii, i4v, sv}, 8,
        (void *[]){oclampi, oclampf, otable, oconv, odivz, odivmin,
                   odivvec, oneg});
    int32_t dv = round == 0 ? 0 : -3;
    const float w[9] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f};
    const int lut[4] = {5, 7, 11, 13};
    for (int k = 0; k < N; k++) {
      int t = (int)fi[k];
      ck_assert_int_eq(oclampi[k], t < -3 ? -3 : t > 4 ? 4 : t);
      ck_assert_float_eq(oclampf[k], fminf(fmaxf(fi[k], 0.25f), 0.75f));
      ck_assert_int_eq(otable[k], lut[ii[k] & 3]);
      volatile float acc = fi[k];
      for (int j = 0; j < 9; j++) {
        volatile float prod = w[j] * sv[k + j];
        acc = acc + prod;
      }
      ck_assert_msg(oconv[k] == acc, "conv[%d] = %a, want %a", k, oconv[k],
                    (double)acc);
      int32_t v = ii[k];
      ck_assert_int_eq(oneg[k], v < 0);
      ck_assert_int_eq(odivz[k], div_c(v, dv) + mod_c(v, dv));
      ck_assert_int_eq(odivmin[k], div_c(div_c(v, -1), (int32_t)(k & 1)) +
                                       mod_c(v, -1));
      const int32_t d[4] = {0, -1, 2, 3};
      for (int c = 0; c < 4; c++)
        ck_assert_int_eq(odivvec[4 * k + c], div_c(i4v[4 * k + c], d[c]) +
                                                 mod_c(i4v[4 * k + c], d[c]));
    }
    ck_assert_int_eq(fg_rs_set(s, "divisor", &(int32_t){-3}, 4), FG_OK);
  }
  fg_program_free(p);
  tu_context_free(ctx);
  fg_rs_script_free(s);
}
END_TEST

/* ---- mapping kernels ---------------------------------------------------- */

/* Counts pixels where grey (4 channels, each the grey value) or, when
 * non-NULL, inv differ from the reference's invert then greyscale of the
 * RGBA photo px (grey within 1). */
static int invert_grey_mismatches(const uint8_t *px, int W, int H,
                                  const uint8_t *inv, const uint8_t *grey) {
  int bad = 0;
  for (size_t i = 0; i < (size_t)W * H; i++) {
    uint8_t want[4] = {(uint8_t)(255 - px[4 * i]),
                       (uint8_t)(255 - px[4 * i + 1]),
                       (uint8_t)(255 - px[4 * i + 2]), px[4 * i + 3]};
    if (inv)
      bad += memcmp(inv + 4 * i, want, 4) != 0;
    uint8_t gv = grey_of(want);
    for (int c = 0; c < 4; c++)   /* (float4){ v } splats v */
      bad += abs((int)grey[4 * i + c] - gv) > 1;
  }
  return bad;
}

START_TEST(test_rs_invert_greyscale_photo_fused_into_one_pass) {
  int W, H;
  uint8_t *px = photo_rgba("chelsea.png", &W, &H);
  fg_rs_script *s = load("singlesource.rs");
  fg_graph *g = fg_graph_new("process");
  fg_field *img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  fg_field *inv = fg_rs_map(g, s, "invert", 1, &img, NULL);
  fg_output(g, "inverted", inv);
  fg_output(g, "grey", fg_rs_map(g, s, "greyscale", 1, &inv, NULL));
  fg_rs_script_free(s);     /* the graph keeps what it needs */
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  ck_assert_int_eq(fg_program_kernel_count(p), 1);
  ck_assert_str_eq(fg_program_kernel_name(p, 0), "invert+greyscale");
  size_t n = (size_t)W * H * 4;
  uint8_t *inv_out = malloc(n), *grey = malloc(n);
  run(ctx, p, 1, (const void *[]){px}, 2, (void *[]){inv_out, grey});
  ck_assert_int_eq(invert_grey_mismatches(px, W, H, inv_out, grey), 0);
  fg_program_free(p);
  tu_context_free(ctx);
  free(px);
  free(inv_out);
  free(grey);
}
END_TEST

/* The reference's single-source process(): invert, then greyscale through
 * a temporary rsCreateAllocation_uchar4, as one fused kernel. */
START_TEST(test_rs_invoke_single_source_process_fuses_into_one_kernel) {
  int W, H;
  uint8_t *px = photo_rgba("chelsea.png", &W, &H);
  fg_rs_script *s = load("singlesource.rs");
  fg_graph *g = fg_graph_new("invoke");
  fg_field *img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  fg_field *out = NULL;
  ck_assert_int_eq(fg_rs_invoke(g, s, "process", 1, &img, 1, &out), FG_OK);
  ck_assert_ptr_nonnull(out);
  char ts[128], ts2[128];
  ck_assert_str_eq(fg_type_str(fg_field_type(out), ts, sizeof ts),
                   fg_type_str(fg_type_image(FG_U8, H, W, 4), ts2,
                               sizeof ts2));
  fg_output(g, "grey", out);
  fg_rs_script_free(s);
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  ck_assert_int_eq(fg_program_kernel_count(p), 1);
  ck_assert_str_eq(fg_program_kernel_name(p, 0), "invert+greyscale");
  size_t n = (size_t)W * H * 4;
  uint8_t *grey = malloc(n);
  memset(grey, 7, n);
  run(ctx, p, 1, (const void *[]){px}, 1, (void *[]){grey});
  ck_assert_int_eq(invert_grey_mismatches(px, W, H, NULL, grey), 0);
  fg_program_free(p);
  tu_context_free(ctx);
  free(px);
  free(grey);
}
END_TEST

/* Options, dimensions arithmetic, a zero-input kernel, an in-place
 * parameter (argument and result), and rsClearObject. */
START_TEST(test_rs_invoke_options_dims_and_in_place) {
  fg_rs_script *s = source("inv2",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "int RS_KERNEL twice(int v) { return 2 * v; }\n"
    "int RS_KERNEL coord(uint32_t x, uint32_t y) { return x + 1000 * y; }\n"
    "int RS_KERNEL add(int a, int b) { return a + b; }\n"
    "void run(rs_allocation io, rs_allocation made) {\n"
    "  const uint32_t w = rsAllocationGetDimX(io);\n"
    "  uint32_t h = rsAllocationGetDimY(io);\n"
    "  rs_allocation c = rsCreateAllocation_int(w, h);\n"
    "  rsForEach(coord, c);\n"
    "  rs_script_call_t opts = {0};\n"
    "  opts.xStart = 1; opts.xEnd = w - 1;\n"
    "  opts.yStart = h / 2; opts.yEnd = (h / 2) + 1;\n"
    "  rsForEachWithOptions(twice, &opts, io, io);\n"
    "  rsForEach(add, io, c, made);\n"
    "  rsClearObject(&c);\n"
    "}\n");
  const int W = 7, H = 5;
  fg_graph *g = fg_graph_new("invoke2");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape2(H, W)));
  fg_field *res[2] = {NULL, NULL};
  ck_assert_msg(fg_rs_invoke(g, s, "run", 1, &a, 2, res) == FG_OK, "%s",
                fg_graph_errmsg(g));
  fg_output(g, "io", res[0]);
  fg_output(g, "made", res[1]);
  fg_rs_script_free(s);
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  int32_t in[H * W], io[H * W], made[H * W];
  for (int i = 0; i < H * W; i++)
    in[i] = 3 * i - 40;
  run(ctx, p, 1, (const void *[]){in}, 2, (void *[]){io, made});
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int i = y * W + x;
      int want = y == H / 2 && x >= 1 && x < W - 1 ? 2 * in[i] : in[i];
      ck_assert_int_eq(io[i], want);
      ck_assert_int_eq(made[i], want + x + 1000 * y);
    }
  fg_program_free(p);
  tu_context_free(ctx);
}
END_TEST

/* A log callback collecting lines into a buffer of 256 bytes. */
static void append_line(void *user, const char *line) {
  char *b = user;
  size_t n = strlen(b);
  snprintf(b + n, 256 - n, "%s\n", line);
}

/* An invokable run as a graph calls the script's own set-up function on
 * the host before its launch, as the filters of many apps do (a lookup
 * table from a global, the image's size from a bound allocation), and
 * assigns a global from the allocation's dimensions; the launch then
 * reads what they set.  pow(2.0, 2.0f) is RenderScript's pow(float,
 * float) in both the host code and the kernel (not ambiguous). */
START_TEST(test_rs_invoke_runs_host_setup_before_launches) {
  fg_rs_script *s = source("setup",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "rs_allocation gIn;\nrs_allocation gOut;\nrs_script gScript;\n"
    "float gGain = 3.0f;\n"
    "static int width, height, cols;\n"
    "static float lut[16];\n"
    "static void setup(int steps) {\n"
    "  width = rsAllocationGetDimX(gIn);\n"
    "  height = rsAllocationGetDimY(gIn);\n"
    "  for (int i = 0; i < 16; i++)\n"
    "    lut[i] = gGain * i / steps + pow(2.0, 2.0f) - 4.0f;\n"
    "}\n"
    "void root(const int *in, float *out, const void *usr, uint32_t x,\n"
    "          uint32_t y) {\n"
    "  *out = lut[*in & 15] + (float)(width - 1 - (int)x) +\n"
    "         100.f * (height - 1 - (int)y) + 10000.f * cols +\n"
    "         pow(2.0, 2.0f) - 4.0f;\n"
    "}\n"
    "void filter() {\n"
    "  rsDebug(\"size\", rsAllocationGetDimX(gIn), rsAllocationGetDimY(gIn));\n"
    "  rsDebug(\"steps\", 4);\n"
    "  setup(4);\n"
    "  cols = rsAllocationGetDimX(gIn) * 2 + 1;\n"
    "  rsForEach(gScript, gIn, gOut, 0, 0);\n"
    "}\n");
  const int W = 7, H = 5;
  char log[256] = "";
  fg_rs_set_log(s, append_line, log);
  fg_graph *g = fg_graph_new("setup");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape2(H, W)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gIn", a), FG_OK);
  fg_field *out = NULL;
  ck_assert_msg(fg_rs_invoke(g, s, "filter", 0, NULL, 1, &out) == FG_OK,
                "%s", fg_graph_errmsg(g));
  fg_output(g, "out", out);
  fg_rs_script_free(s);
  /* rsDebug lines, as the host's rsDebug writes them */
  ck_assert_str_eq(log, "size {7.000000, 5.000000}\nsteps 4\n");
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  int32_t in[H * W];
  float o[H * W];
  for (int i = 0; i < H * W; i++)
    in[i] = 7 * i + 3;
  run(ctx, p, 1, (const void *[]){in}, 1, (void *[]){o});
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int i = y * W + x;
      double want = 3.0 * (in[i] & 15) / 4 + (W - 1 - x) +
                    100.0 * (H - 1 - y) + 10000.0 * (2 * W + 1);
      ck_assert_msg(o[i] == (float)want, "(%d, %d): %g, want %g", x, y,
                    (double)o[i], want);
    }
  fg_program_free(p);
  tu_context_free(ctx);
}
END_TEST

/* An ICS-era reduction by a restricted launch, as apps wrote one: root()
 * sums numElements floats from its point through the input pointer, the
 * invokable sets numElements from the input's width, declares a struct
 * rs_script_call (strategy and array members ignored) and passes usrData
 * root() does not read. */
START_TEST(test_rs_invoke_restricted_row_sums) {
  fg_rs_script *s = source("rowsum",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "uint32_t numElements = 0;\n"
    "void root(const float *in, float *out, const void *usrData, uint32_t x,"
    " uint32_t y) {\n"
    "  float sum = 0.0f;\n"
    "  for (uint32_t i = 0; i < numElements; ++i)\n    sum += in[i];\n"
    "  *out = sum;\n}\n"
    "void run(rs_script s, rs_allocation in, rs_allocation out) {\n"
    "  numElements = rsAllocationGetDimX(in);\n"
    "  struct rs_script_call sc;\n"
    "  uint32_t empty = 0;\n"
    "  sc.strategy = RS_FOR_EACH_STRATEGY_DONT_CARE;\n"
    "  sc.xStart = 0;\n  sc.xEnd = 1;\n"
    "  sc.yStart = 0;\n  sc.yEnd = rsAllocationGetDimY(in);\n"
    "  sc.zStart = 0;\n  sc.zEnd = 0;\n"
    "  sc.arrayStart = 0;\n  sc.arrayEnd = 0;\n"
    "  rsForEach(s, in, out, &empty, sizeof(uint32_t), &sc);\n}\n");
  enum { W = 11, H = 5 };
  fg_graph *g = fg_graph_new("rowsum");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape2(H, W)));
  fg_field *r = NULL;
  ck_assert_msg(fg_rs_invoke(g, s, "run", 1, &a, 1, &r) == FG_OK, "%s",
                fg_graph_errmsg(g));
  fg_output(g, "r", r);
  fg_rs_script_free(s);
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  float in[H * W], out[H * W];
  for (int i = 0; i < H * W; i++)
    in[i] = (float)((i * 7) % 13) - 6.0f;
  run(ctx, p, 1, (const void *[]){in}, 1, (void *[]){out});
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      float want = 0.0f;
      for (int i = 0; x == 0 && i < W; i++)
        want += in[y * W + i];
      ck_assert_msg(out[y * W + x] == want, "(%d, %d): %g, want %g", x, y,
                    (double)out[y * W + x], (double)want);
    }
  fg_program_free(p);
  tu_context_free(ctx);
}
END_TEST

/* What fg_rs_invoke cannot run is an error naming file:line:column. */
START_TEST(test_rs_invoke_errors_name_file_line_column) {
  static const struct { const char *body, *want; } cases[] = {
    {"  if (rsAllocationGetDimX(in) > 2)\n    rsForEach(k, in, out);\n",
     "t.rs:5:3: fg_rs_invoke 't.run': 'if' is not supported"},
    {"  rsForEach(k, in, out);\n  float f = 1.0f;\n",
     "t.rs:6:3: fg_rs_invoke 't.run': 'float' is not supported"},
    {"  rs_allocation t = rsCreateAllocation_float(3);\n"
     "  rsForEach(k, in, t);\n  rsForEach(k, t, out);\n",
     "t.rs:6:20: fg_rs_invoke 't.run': kernel k writes i32[4], but 't' is "
     "f32[3]"},
    {"  rsForEach(nope, in, out);\n",
     "t.rs:5:13: fg_rs_invoke 't.run': 'nope' is not a mapping kernel"},
    {"  rsForEach(k, in, in, out);\n",
     "t.rs:5:3: fg_rs_invoke 't.run': fg_rs_map 't.k': got 2 input(s)"},
    {"  rs_allocation t = rsCreateAllocation(3);\n  rsForEach(k, in, out);\n",
     "t.rs:5:21: fg_rs_invoke 't.run': 'rsCreateAllocation': rs_allocation "
     "locals come from rsCreateAllocation_<type>"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    char text[1024], err[1024];
    snprintf(text, sizeof text, "#pragma version(1)\n"
             "#pragma rs java_package_name(t)\n"
             "int RS_KERNEL k(int v) { return v + 1; }\n"
             "void run(rs_allocation in, rs_allocation out) {\n%s}\n",
             cases[c].body);
    fg_rs_script *s = NULL;
    ck_assert_int_eq(fg_rs_script_new_source("t", "t.rs", text, (size_t)-1,
                                              &s, err, sizeof err), FG_OK);
    fg_graph *g = fg_graph_new("bad");
    fg_field *a = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape1(4)));
    fg_field *r = (fg_field *)1;
    ck_assert_int_ne(fg_rs_invoke(g, s, "run", 1, &a, 1, &r), FG_OK);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(fg_graph_errmsg(g), cases[c].want) != NULL,
                  "case %zu: got \"%s\", want \"%s\"", c, fg_graph_errmsg(g),
                  cases[c].want);
    fg_graph_free(g);
    fg_rs_script_free(s);
  }
  /* the interface: what the function reads and writes */
  fg_rs_script *s = load("singlesource.rs");
  fg_graph *g = fg_graph_new("bad");
  fg_field *a = fg_input(g, "a", fg_type_image(FG_U8, 4, 4, 4));
  fg_field *r[2];
  ck_assert_int_eq(fg_rs_invoke(g, s, "process", 1, &a, 2, r), FG_EINVAL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "'process' reads 1 allocation "
                       "parameter(s) (inputImage) and writes 1 "
                       "(outputImage); got 1 argument(s) and 2 result(s)"),
                "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("bad2");
  a = fg_input(g, "a", fg_type_image(FG_U8, 4, 4, 4));
  ck_assert_int_eq(fg_rs_invoke(g, s, "invert", 1, &a, 1, r), FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(fg_graph_errmsg(g), "use fg_rs_map"));
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* A local or parameter named like a global is the local in its scope
 * (a for's variable to the end of the loop, a block's to its '}'); the
 * global elsewhere. */
START_TEST(test_rs_locals_shadow_globals_in_their_scope) {
  fg_rs_script *s = source("shadow",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "float gain = 2.0f;\n"
    "int count = 5;\n"
    "static float bump(float gain) { return gain + 1.0f; }\n"
    "float RS_KERNEL scaled(float v) {\n"
    "  float r;\n"
    "  {\n"
    "    float gain = 0.5f, count = 0.25f;\n"
    "    r = v * gain + count;\n"
    "  }\n"
    "  for (int count = 0; count < 2; count++)\n"
    "    r += 1.0f;\n"
    "  r += count;\n"
    "  return bump(r) + gain;\n"
    "}\n");
  float g3 = 3.0f;
  ck_assert_int_eq(fg_rs_set(s, "gain", &g3, sizeof g3), FG_OK);
  fg_graph *g = fg_graph_new("shadow");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(16)));
  fg_output(g, "r", fg_rs_map(g, s, "scaled", 1, &a, NULL));
  fg_rs_script_free(s);
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  float in[16], out[16];
  for (int i = 0; i < 16; i++)
    in[i] = (float)i - 4.0f;
  run(ctx, p, 1, (const void *[]){in}, 1, (void *[]){out});
  for (int i = 0; i < 16; i++) {
    float r = in[i] * 0.5f + 0.25f;
    r += 1.0f;
    r += 1.0f;
    r += 5.0f;
    ck_assert_float_eq_tol(out[i], r + 1.0f + 3.0f, 1e-5f);
  }
  fg_program_free(p);
  tu_context_free(ctx);
}
END_TEST

/* RenderScript's one-argument fract, the two-argument one and rsClamp, on
 * every backend (OpenCL C has only the two-argument fract). */
START_TEST(test_rs_fract_and_rsclamp_on_every_backend) {
  fg_rs_script *s = source("fr",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "float RS_KERNEL fr(float v) {\n"
    "  float fl;\n"
    "  const float a = fract(v, &fl);\n"
    "  return fract(v) + 10.0f * a + 100.0f * fl;\n"
    "}\n"
    "float2 RS_KERNEL fr2(float2 v) { return fract(v); }\n"
    "int RS_KERNEL cl(int v) { return rsClamp(v, -3, 4); }\n");
  fg_graph *g = fg_graph_new("fract");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(32)));
  fg_field *a2 = fg_input(g, "a2", fg_type_vector(FG_F32, fg_shape1(16), 2));
  fg_field *b = fg_input(g, "b", fg_type_scalar(FG_I32, fg_shape1(32)));
  fg_output(g, "fr", fg_rs_map(g, s, "fr", 1, &a, NULL));
  fg_output(g, "fr2", fg_rs_map(g, s, "fr2", 1, &a2, NULL));
  fg_output(g, "cl", fg_rs_map(g, s, "cl", 1, &b, NULL));
  fg_rs_script_free(s);
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  float in[32], out[32], out2[32];
  int32_t bi[32], bo[32];
  for (int i = 0; i < 32; i++) {
    in[i] = (float)i * 0.37f - 5.3f;
    bi[i] = i - 16;
  }
  run(ctx, p, 3, (const void *[]){in, in, bi}, 3,
      (void *[]){out, out2, bo});
  for (int i = 0; i < 32; i++) {
    float fl = floorf(in[i]);
    float f = fminf(in[i] - fl, 0x1.fffffep-1f);
    ck_assert_float_eq_tol(out[i], f + 10.0f * f + 100.0f * fl, 1e-3f);
    ck_assert_float_eq_tol(out2[i], f, 1e-6f);
    ck_assert_int_eq(bo[i], bi[i] < -3 ? -3 : bi[i] > 4 ? 4 : bi[i]);
  }
  fg_program_free(p);
  tu_context_free(ctx);
}
END_TEST

/* rsSetElementAt_<type> from a kernel, through a helper function: the
 * launch returns the kernel's value and makes a copy of the bound field
 * with the writes.  What cannot run is named at its line: a write from a
 * reduction, one to an allocation that is not a global.  (Kernels that
 * write two allocations: check_rs_globals.c.) */
START_TEST(test_rs_set_element_through_a_helper_and_its_limits) {
  char err[1024];
  fg_rs_script *s = NULL;
  ck_assert_int_eq(fg_rs_script_new_source("t", "t.rs",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "rs_allocation dst;\nrs_allocation other;\n"
    "static void put(int v, uint32_t x) { rsSetElementAt_int(dst, v, x); }\n"
    "int RS_KERNEL k(int v, uint32_t x) { if (x % 3 == 0) put(3 * v, x);"
    " return v + 1; }\n"
    "void RS_KERNEL two(int v, uint32_t x) {\n"
    "  rsSetElementAt_int(dst, v, x);\n  rsSetElementAt_int(other, v, x);\n}\n"
    "void RS_KERNEL viaLocal(int v, uint32_t x) {\n"
    "  rs_allocation a = dst;\n  rsSetElementAt_int(a, v, x);\n}\n"
    "#pragma rs reduce(total) accumulator(acc)\n"
    "static void acc(int *a, int v) { *a += v; rsSetElementAt_int(dst, v, 0); }\n",
    (size_t)-1, &s, err, sizeof err), FG_OK);
  enum { N = 8 };
  fg_graph *g = fg_graph_new("set");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_field *d = fg_input(g, "d", fg_type_scalar(FG_I32, fg_shape1(N)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "dst", d), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "other", d), FG_OK);
  fg_field *r = fg_rs_map(g, s, "k", 1, &a, NULL);
  ck_assert_msg(r != NULL, "%s", fg_graph_errmsg(g));
  fg_output(g, "r", r);
  fg_output(g, "copy", fg_rs_allocation_field(s, "dst"));
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  int32_t in[N], d0[N], out[N], copy[N];
  for (int i = 0; i < N; i++) {
    in[i] = 5 * i - 11;
    d0[i] = 100 + i;
  }
  run(ctx, p, 2, (const void *[]){in, d0}, 2, (void *[]){out, copy});
  for (int i = 0; i < N; i++) {
    ck_assert_int_eq(out[i], in[i] + 1);
    ck_assert_int_eq(copy[i], i % 3 == 0 ? 3 * in[i] : d0[i]);
  }
  fg_program_free(p);
  tu_context_free(ctx);
  static const struct { const char *kernel, *want; } bad[] = {
    {"viaLocal", "t.rs:13:3: fg_rs_map 't.viaLocal': rsSetElementAt_int "
                 "writes something that is not an rs_allocation global"},
  };
  for (size_t c = 0; c < sizeof bad / sizeof *bad; c++) {
    fg_graph *b = fg_graph_new("bad");
    fg_field *x = fg_input(b, "a", fg_type_scalar(FG_I32, fg_shape1(N)));
    fg_field *y = fg_input(b, "d", fg_type_scalar(FG_I32, fg_shape1(N)));
    ck_assert_int_eq(fg_rs_bind_allocation(s, "dst", y), FG_OK);
    ck_assert_int_eq(fg_rs_bind_allocation(s, "other", y), FG_OK);
    ck_assert_ptr_null(fg_rs_map(b, s, bad[c].kernel, 1, &x, NULL));
    ck_assert_int_eq(fg_graph_status(b), FG_ENOTSUP);
    ck_assert_msg(strstr(fg_graph_errmsg(b), bad[c].want), "%s: %s",
                  bad[c].kernel, fg_graph_errmsg(b));
    fg_graph_free(b);
  }
  fg_graph *b = fg_graph_new("bad");
  fg_field *x = fg_input(b, "a", fg_type_scalar(FG_I32, fg_shape1(N)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "dst", x), FG_OK);
  ck_assert_ptr_null(fg_rs_reduce(b, s, "total", 1, &x, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(b), "t.rs:16:43: fg_rs_reduce "
                       "'t.total': rsSetElementAt_int writes a bound "
                       "allocation from a reduction"), "%s",
                fg_graph_errmsg(b));
  fg_graph_free(b);
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* A legacy kernel's input pointer reads other elements as Android's does
 * (in[e], *(in + e): element e after the point's, in memory order; here
 * clamped to the field), the way old blur filters step by the image
 * width; an output pointer reaches only its own element (out[x] would
 * write past it): refused at the use's line. */
START_TEST(test_rs_legacy_pointers_reach_one_element) {
  char err[1024];
  fg_rs_script *s = NULL;
  ck_assert_int_eq(fg_rs_script_new_source("t", "t.rs",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "int width;\n"
    "void ok(const int *in, int *out) { *out = in[0] + *in; }\n"
    "void far(const int *in, int *out) { *out = in[1] * 10 + *(in + -1); }\n"
    "void wide(const int *in, int *out, uint32_t x) { out[x] = *in; }\n"
    "void below(const int *in, int *out, uint32_t x, uint32_t y) {\n"
    "  *out = in[width] - *in;\n}\n",
    (size_t)-1, &s, err, sizeof err), FG_OK);
  const char *w = fg_rs_script_warnings(s);
  ck_assert_msg(strstr(w, "t.rs:6:50: legacy kernel 'wide' uses its output "
                       "pointer 'out'") && !strstr(w, "'ok'") &&
                !strstr(w, "'far'") && !strstr(w, "'below'"), "%s", w);
  enum { W = 9, H = 4, N = W * H };
  int32_t wd = W;
  ck_assert_int_eq(fg_rs_set(s, "width", &wd, sizeof wd), FG_OK);
  fg_graph *g = fg_graph_new("ptr");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_field *b = fg_input(g, "b", fg_type_scalar(FG_I32, fg_shape2(H, W)));
  fg_output(g, "o", fg_rs_map(g, s, "ok", 1, &a, NULL));
  fg_output(g, "f", fg_rs_map(g, s, "far", 1, &a, NULL));
  fg_output(g, "d", fg_rs_map(g, s, "below", 1, &b, NULL));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  int32_t in[N], o[N], f[N], d[N];
  for (int i = 0; i < N; i++)
    in[i] = (i * 29) % 17 - 8;
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  run(ctx, p, 2, (const void *[]){in, in}, 3, (void *[]){o, f, d});
  for (int i = 0; i < N; i++) {
    int nx = in[i + 1 < N ? i + 1 : N - 1], pv = in[i > 0 ? i - 1 : 0];
    ck_assert_int_eq(o[i], 2 * in[i]);
    ck_assert_int_eq(f[i], nx * 10 + pv);
    ck_assert_int_eq(d[i], in[i + W < N ? i + W : N - 1] - in[i]);
  }
  fg_program_free(p);
  tu_context_free(ctx);
  g = fg_graph_new("wide");
  a = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape1(N)));
  ck_assert(fg_rs_map(g, s, "wide", 1, &a, NULL) == NULL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "t.rs:6:50: fg_rs_map 't.wide'"),
                "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* Legacy kernels whose input or output pointer is void *, read as the
 * body casts it (CTS's void_ptr.rs): the Element is the cast's type,
 * reached through *(T *)p or a local T *q = (T *)p; q indexed past the
 * point's element is refused at its line. */
START_TEST(test_rs_legacy_void_pointers_take_the_cast_type) {
  char err[1024];
  fg_rs_script *s = NULL;
  ck_assert_int_eq(fg_rs_script_new_source("t", "t.rs",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "rs_allocation aOut;\n"
    "void set_int(void *out, uint32_t x, uint32_t y) {\n"
    "  int *o = (int *)out;\n  *o = x * 10 + y;\n}\n"
    "void set_char(void *out, uint32_t x) { *(uchar *)out = x * 3; }\n"
    "void copy_short(const void *in, uint32_t x, uint32_t y) {\n"
    "  const short *i = (const short *)in;\n"
    "  rsSetElementAt_short(aOut, *i * 2, x, y);\n}\n"
    "void both(const void *in, void *out) {\n"
    "  float *o = (float *)out;\n  *o = *(const float *)in + 0.5f;\n}\n"
    "void past(void *out, uint32_t x) {\n"
    "  int *o = (int *)out;\n  o[1] = x;\n}\n",
    (size_t)-1, &s, err, sizeof err), FG_OK);
  const char *w = fg_rs_script_warnings(s);
  ck_assert_msg(strstr(w, "t.rs:19:3: legacy kernel 'past' uses its output "
                       "pointer 'out'") && !strstr(w, "'set_int'") &&
                !strstr(w, "'copy_short'") && !strstr(w, "'both'"), "%s", w);
  enum { W = 7, H = 3, N = W * H };
  fg_graph *g = fg_graph_new("voidptr");
  fg_field *sh = fg_input(g, "sh", fg_type_scalar(FG_I16, fg_shape2(H, W)));
  fg_field *fl = fg_input(g, "fl", fg_type_scalar(FG_F32, fg_shape2(H, W)));
  fg_field *ao = fg_input(g, "ao", fg_type_scalar(FG_I16, fg_shape2(H, W)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "aOut", ao), FG_OK);
  fg_field *si = fg_rs_map(g, s, "set_int", 0, NULL,
                           &(fg_rs_launch){.shape = fg_shape2(H, W)});
  fg_field *sc = fg_rs_map(g, s, "set_char", 0, NULL,
                           &(fg_rs_launch){.shape = fg_shape1(N)});
  ck_assert_msg(si && sc, "%s", fg_graph_errmsg(g));
  ck_assert_int_eq(fg_field_type(si).elem, FG_I32);
  ck_assert_int_eq(fg_field_type(sc).elem, FG_U8);
  fg_output(g, "si", si);
  fg_output(g, "sc", sc);
  fg_output(g, "cp", fg_rs_map(g, s, "copy_short", 1, &sh, NULL));
  fg_output(g, "b", fg_rs_map(g, s, "both", 1, &fl, NULL));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  int16_t shv[N], aov[N], cp[N];
  float flv[N], b[N];
  int32_t siv[N];
  uint8_t scv[N];
  for (int i = 0; i < N; i++) {
    shv[i] = (int16_t)(i * 37 - 300);
    flv[i] = (float)i * 0.25f - 2.0f;
    aov[i] = (int16_t)-1;
  }
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  run(ctx, p, 3, (const void *[]){shv, flv, aov}, 4,
      (void *[]){siv, scv, cp, b});
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int i = y * W + x;
      ck_assert_int_eq(siv[i], x * 10 + y);
      ck_assert_int_eq(cp[i], (int16_t)(shv[i] * 2));
      ck_assert(b[i] == flv[i] + 0.5f);
    }
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(scv[i], (uint8_t)(i * 3));
  fg_program_free(p);
  tu_context_free(ctx);
  fg_rs_script_free(s);
}
END_TEST

/* A kernel that writes a script global (a counter, a table) loads and
 * launches (its launch writes its copy of the globals); a reduction that
 * writes one is refused when launched, at the write, leaving the
 * script's kernels alone; a kernel whose local shadows the global runs. */
START_TEST(test_rs_global_writes_outside_kernels_are_refused) {
  char err[1024];
  fg_rs_script *s = NULL;
  ck_assert_int_eq(fg_rs_script_new_source("t", "t.rs",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "int counter;\nint table[4];\n"
    "static void bump(void) { counter++; }\n"
    "int RS_KERNEL k(int v) { bump(); return v; }\n"
    "int RS_KERNEL t2(int v) { table[v & 3] += 1; return v; }\n"
    "int RS_KERNEL own(int v) { int counter = v; counter = counter * 2;"
    " return counter + table[0]; }\n"
    "#pragma rs reduce(tally) accumulator(acc)\n"
    "static void acc(int *a, int v) { *a += v; rsAtomicInc(&table[1]); }\n",
    (size_t)-1, &s, err, sizeof err), FG_OK);
  const char *w = fg_rs_script_warnings(s);
  ck_assert_msg(!strstr(w, "'k'") && !strstr(w, "'t2'") && !strstr(w,
                "'own'"), "%s", w);
  fg_graph *g = fg_graph_new("gw");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape1(4)));
  fg_output(g, "o", fg_rs_map(g, s, "own", 1, &a, NULL));
  fg_output(g, "k", fg_rs_map(g, s, "k", 1, &a, NULL));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  ck_assert(fg_rs_reduce(g, s, "tally", 1, &a, NULL) == NULL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "t.rs:10:43: fg_rs_reduce "
                       "'t.tally': writes global 'table' from a reduction"),
                "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* What a script holds that fieldgraph does not is named at load, at its
 * line, and refused only in the kernels that use it: a global struct with
 * an rs_allocation member, and the half type. */
START_TEST(test_rs_struct_allocations_and_half_are_named) {
  char err[1024];
  fg_rs_script *s = NULL;
  ck_assert_int_eq(fg_rs_script_new_source("t", "t.rs",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "typedef struct { rs_allocation in; int w; } Params;\n"
    "Params gParams;\n"
    "float RS_KERNEL usesParams(float v) { return v + gParams.w; }\n"
    "float RS_KERNEL usesHalf(float v) { half h = (half)v; return (float)h; }\n"
    "float RS_KERNEL plain(float v) { return v * 2.0f; }\n"
    "half gHalf;\n"
    "half RS_KERNEL hk(half v) { return v; }\n",
    (size_t)-1, &s, err, sizeof err), FG_OK);
  const char *w = fg_rs_script_warnings(s);
  ck_assert_msg(strstr(w, "t.rs:9:16: kernel 'hk' returns half"), "%s", w);
  ck_assert_msg(strstr(w, "t.rs:5:50: kernel 'usesParams' uses global "
                       "'gParams'") && strstr(w, "rs_allocation member") &&
                strstr(w, "t.rs:6:37: kernel 'usesHalf' uses type 'half'") &&
                !strstr(w, "'plain'"), "%s", w);
  fg_graph *g = fg_graph_new("named");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(4)));
  fg_output(g, "p", fg_rs_map(g, s, "plain", 1, &a, NULL));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  ck_assert(fg_rs_map(g, s, "usesHalf", 1, &a, NULL) == NULL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "t.rs:6:37: fg_rs_map "
                       "'t.usesHalf'"), "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("named2");
  a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(4)));
  ck_assert(fg_rs_map(g, s, "usesParams", 1, &a, NULL) == NULL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "gParams") &&
                strstr(fg_graph_errmsg(g), "rs_allocation member"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* An int literal beside a vector of narrower elements, as RenderScript
 * takes it (uchar4 / 2: the literal becomes the element type; OpenCL C
 * alone refuses it), and the same literals in scalar arithmetic, where
 * they stay ints (200 * v overflows no uchar). */
START_TEST(test_rs_int_literals_beside_narrow_vectors) {
  fg_rs_script *s = source("lit",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "uchar4 RS_KERNEL k(uchar4 in) { return in / 2 + in * 2 - 1; }\n"
    "int RS_KERNEL sc(uchar4 in) { int v = in.x; return v * 200 / 7 - 3 + "
    "(1000 - v) % 9 + (v << 2); }\n");
  enum { N = 64 };
  fg_graph *g = fg_graph_new("lit");
  fg_field *a = fg_input(g, "a", fg_type_vector(FG_U8, fg_shape1(N), 4));
  fg_output(g, "k", fg_rs_map(g, s, "k", 1, &a, NULL));
  fg_output(g, "sc", fg_rs_map(g, s, "sc", 1, &a, NULL));
  fg_rs_script_free(s);
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  uint8_t in[4 * N], k[4 * N];
  int32_t sc[N];
  for (int i = 0; i < 4 * N; i++)
    in[i] = (uint8_t)(i * 37 + 11);
  run(ctx, p, 1, (const void *[]){in}, 2, (void *[]){k, sc});
  for (int i = 0; i < 4 * N; i++)
    ck_assert_int_eq(k[i], (uint8_t)(in[i] / 2 + (uint8_t)(in[i] * 2) - 1));
  for (int i = 0; i < N; i++) {
    int v = in[4 * i];
    ck_assert_int_eq(sc[i], v * 200 / 7 - 3 + (1000 - v) % 9 + (v << 2));
  }
  fg_program_free(p);
  tu_context_free(ctx);
}
END_TEST

/* A kernel returning a struct writes its bytes into a field of the
 * struct's carrier type (8 bytes: u64, 12: 3 x u32); a kernel taking that
 * struct reads it back, and the two fuse. */
START_TEST(test_rs_kernels_return_and_take_structs) {
  fg_rs_script *s = source("st",
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "typedef struct { float sum; int count; } Stat;\n"
    "struct Tri { float a, b; int c; };\n"
    "Stat RS_KERNEL stat(float v, uint32_t x) {\n"
    "  Stat s;\n  s.sum = v * 2.0f;\n  s.count = (int)x - 3;\n  return s;\n"
    "}\n"
    "struct Tri RS_KERNEL tri(float v) {\n"
    "  struct Tri t = {v, -v, 7};\n  return t;\n}\n"
    "float RS_KERNEL use(Stat s) { return s.sum + (float)s.count; }\n");
  fg_graph *g = fg_graph_new("structs");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(20)));
  fg_field *st = fg_rs_map(g, s, "stat", 1, &a, NULL);
  fg_field *tr = fg_rs_map(g, s, "tri", 1, &a, NULL);
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  char ts[128];
  ck_assert_str_eq(fg_type_str(fg_field_type(st), ts, sizeof ts),
                   "u64[20]");
  ck_assert_int_eq((int)fg_type_bytes(fg_field_type(tr)), 20 * 12);
  fg_output(g, "stat", st);
  fg_output(g, "tri", tr);
  fg_output(g, "use", fg_rs_map(g, s, "use", 1, &st, NULL));
  fg_rs_script_free(s);
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_graph_free(g);
  /* stat and use fuse (tri, a sibling, is a kernel of its own) */
  int fused = 0;
  for (int k = 0; k < fg_program_kernel_count(p); k++)
    fused += !strcmp(fg_program_kernel_name(p, k), "stat+use");
  ck_assert_int_eq(fused, 1);
  float in[20], use[20];
  struct { float sum; int32_t count; } stv[20];
  struct { float a, b; int32_t c; } trv[20];
  for (int i = 0; i < 20; i++)
    in[i] = (float)i * 0.5f - 2.0f;
  run(ctx, p, 1, (const void *[]){in}, 3, (void *[]){stv, trv, use});
  for (int i = 0; i < 20; i++) {
    ck_assert_float_eq(stv[i].sum, in[i] * 2.0f);
    ck_assert_int_eq(stv[i].count, i - 3);
    ck_assert_float_eq(trv[i].a, in[i]);
    ck_assert_float_eq(trv[i].b, -in[i]);
    ck_assert_int_eq(trv[i].c, 7);
    ck_assert_float_eq(use[i], in[i] * 2.0f + (float)(i - 3));
  }
  fg_program_free(p);
  tu_context_free(ctx);
}
END_TEST

static fg_field *dsl_add(fg_graph *g, fg_field *a, int k) {
  fg_type t = fg_field_type(a);
  fg_op *op = fg_op_begin(g, "add", 1, &t);
  fg_write_tensor(op, 0, fg_convert(fg_add(fg_read_tensor(op, a),
                                           fg_int(op, k)), t.elem, 1));
  return fg_op_end(op);
}

/* rs_fp_relaxed / rs_fp_imprecise build relaxed kernels, rs_fp_full (the
 * default) full ones; a fused kernel is relaxed only if all its operators
 * allow it. */
START_TEST(test_rs_fp_pragmas_choose_each_kernels_precision) {
  fg_rs_script *rel = source("rel", "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n#pragma rs_fp_relaxed\n"
    "float RS_KERNEL halve(float v) { return v * 0.5f; }\n");
  fg_rs_script *imp = source("imp", "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n#pragma rs_fp_imprecise\n"
    "float RS_KERNEL third(float v) { return v / 3.0f; }\n");
  fg_rs_script *full = source("full", "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "float RS_KERNEL twice(float v) { return v * 2.0f; }\n");
  ck_assert_int_eq(fg_rs_script_fp(rel), FG_RS_FP_RELAXED);
  ck_assert_int_eq(fg_rs_script_fp(imp), FG_RS_FP_IMPRECISE);
  ck_assert_int_eq(fg_rs_script_fp(full), FG_RS_FP_FULL);
  fg_context *ctx = tu_context();
  float in[64], out[64];
  for (int i = 0; i < 64; i++)
    in[i] = (float)i * 1.25f - 20.0f;
  /* 0: relaxed alone, 1: relaxed + imprecise, 2: relaxed + full, 3: full
   * with relaxed options, 4: relaxed + a DSL operator (the options decide),
   * 5: the same with relaxed options */
  static const fg_precision want[6] = {
    FG_PRECISION_RELAXED, FG_PRECISION_RELAXED, FG_PRECISION_FULL,
    FG_PRECISION_FULL, FG_PRECISION_FULL, FG_PRECISION_RELAXED};
  for (int c = 0; c < 6; c++) {
    fg_graph *g = fg_graph_new("fp");
    fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(64)));
    fg_field *x = fg_rs_map(g, c == 3 ? full : rel, c == 3 ? "twice"
                                                           : "halve", 1, &a,
                            NULL);
    if (c == 1)
      x = fg_rs_map(g, imp, "third", 1, &x, NULL);
    else if (c == 2)
      x = fg_rs_map(g, full, "twice", 1, &x, NULL);
    else if (c >= 4) {
      fg_type t = fg_field_type(x);
      fg_op *op = fg_op_begin(g, "neg", 1, &t);
      fg_write_tensor(op, 0, fg_neg(fg_read_tensor(op, x)));
      x = fg_op_end(op);
    }
    fg_output(g, "x", x);
    ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
    fg_compile_options o = {.fusion = FG_FUSION_ON,
                            .precision = c == 3 || c == 5
                                ? FG_PRECISION_RELAXED : FG_PRECISION_FULL};
    fg_program *p = NULL;
    ck_assert_msg(fg_compile(ctx, g, &o, &p) == FG_OK, "%s",
                  fg_context_errmsg(ctx));
    fg_graph_free(g);
    ck_assert_int_eq(fg_program_kernel_count(p), 1);
    ck_assert_msg(fg_program_kernel_precision(p, 0) == want[c],
                  "case %d: precision %d, want %d", c,
                  (int)fg_program_kernel_precision(p, 0), (int)want[c]);
    run(ctx, p, 1, (const void *[]){in}, 1, (void *[]){out});
    for (int i = 0; i < 64; i++) {
      float v = c == 3 ? in[i] * 2.0f : in[i] * 0.5f;
      v = c == 1 ? v / 3.0f : c == 2 ? v * 2.0f : c >= 4 ? -v : v;
      ck_assert_float_eq_tol(out[i], v, 1e-4f * (1.0f + fabsf(v)));
    }
    fg_program_free(p);
  }
  ck_assert_int_eq(fg_program_kernel_precision(NULL, 0), FG_PRECISION_FULL);
  tu_context_free(ctx);
  fg_rs_script_free(rel);
  fg_rs_script_free(imp);
  fg_rs_script_free(full);
}
END_TEST

START_TEST(test_rs_fuses_with_dsl_operators_and_other_scripts) {
  /* two scripts with the same static names and different bodies */
  fg_rs_script *a = source("a", "static int f(int v) { return v * 3; }\n"
                           "static const int K = 1;\n"
                           "#define M 100\n"
                           "int RS_KERNEL k(int v) { return f(v) + K + M; }\n");
  fg_rs_script *b = source("b", "static int f(int v) { return v - 7; }\n"
                           "static const int K = 2;\n"
                           "#define M 1000\n"
                           "int RS_KERNEL k(int v, int x, int y) {\n"
                           "  return f(v) * K + M + x - y;\n}\n");
  const int R = 19, C = 33;
  fg_graph *g = fg_graph_new("mix");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape2(R, C)));
  fg_field *x = dsl_add(g, in, 5);
  fg_field *y = fg_rs_map(g, a, "k", 1, &x, NULL);
  fg_field *z = fg_rs_map(g, b, "k", 1, &y, NULL);
  fg_output(g, "out", dsl_add(g, z, -1));
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_program *q = compile_fusion(ctx, g, FG_FUSION_OFF);
  ck_assert_int_eq(fg_program_kernel_count(p), 1);
  ck_assert_int_eq(fg_program_kernel_count(q), 4);
  int32_t v[R * C], o1[R * C], o2[R * C];
  for (int i = 0; i < R * C; i++)
    v[i] = i * 13 - 400;
  run(ctx, p, 1, (const void *[]){v}, 1, (void *[]){o1});
  run(ctx, q, 1, (const void *[]){v}, 1, (void *[]){o2});
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) {
      int i = r * C + c;
      int want = (((v[i] + 5) * 3 + 1 + 100) - 7) * 2 + 1000 + c - r - 1;
      ck_assert_int_eq(o1[i], want);
      ck_assert_int_eq(o2[i], want);
    }
  fg_program_free(p);
  fg_program_free(q);
  tu_context_free(ctx);
  fg_graph_free(g);
  fg_rs_script_free(a);
  fg_rs_script_free(b);
}
END_TEST

START_TEST(test_rs_globals_set_get_and_per_run_values) {
  fg_rs_script *s = source("gl",
      "#pragma version(1)\n"
      "float gain = 1.5f;\n"
      "int2 offset = {3, -4};\n"
      "static int hidden = 7;\n"
      "const int LIMIT = 2 * 50;\n"
      "float4 RS_KERNEL scale(float4 v, int x) {\n"
      "  return v * gain + (float)(offset.x + offset.y + hidden + x);\n"
      "}\n");
  float gain = 0;
  int32_t off[2], lim = 0;
  ck_assert_int_eq(fg_rs_get(s, "gain", &gain, sizeof gain), FG_OK);
  ck_assert_float_eq(gain, 1.5f);
  ck_assert_int_eq(fg_rs_get(s, "offset", off, sizeof off), FG_OK);
  ck_assert_int_eq(off[0], 3);
  ck_assert_int_eq(off[1], -4);
  ck_assert_int_eq(fg_rs_get(s, "LIMIT", &lim, sizeof lim), FG_OK);
  ck_assert_int_eq(lim, 100);
  ck_assert_int_eq(fg_rs_set(s, "LIMIT", &lim, sizeof lim), FG_EINVAL);
  ck_assert_msg(strstr(fg_rs_script_errmsg(s), "const"), "%s",
                fg_rs_script_errmsg(s));
  ck_assert_int_eq(fg_rs_set(s, "hidden", &lim, sizeof lim), FG_EINVAL);
  ck_assert_int_eq(fg_rs_set(s, "gain", &gain, 8), FG_EINVAL);
  ck_assert_msg(strstr(fg_rs_script_errmsg(s), "4 bytes"), "%s",
                fg_rs_script_errmsg(s));
  ck_assert_int_eq(fg_rs_set(s, "nothere", &gain, 4), FG_EINVAL);
  const int N = 50;
  fg_graph *g = fg_graph_new("g");
  fg_field *in = fg_input(g, "in", fg_type_vector(FG_F32, fg_shape1(N), 4));
  fg_output(g, "out", fg_rs_map(g, s, "scale", 1, &in, NULL));
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  float v[4 * N], o[4 * N];
  for (int i = 0; i < 4 * N; i++)
    v[i] = (float)i * 0.25f;
  run(ctx, p, 1, (const void *[]){v}, 1, (void *[]){o});
  for (int i = 0; i < 4 * N; i++)
    ck_assert_float_eq(o[i], v[i] * 1.5f + (float)(3 - 4 + 7 + i / 4));
  /* a new value reaches the next run of the same program */
  gain = -2.0f;
  off[0] = 10;
  ck_assert_int_eq(fg_rs_set(s, "gain", &gain, sizeof gain), FG_OK);
  ck_assert_int_eq(fg_rs_set(s, "offset", off, sizeof off), FG_OK);
  float back = 0;
  ck_assert_int_eq(fg_rs_get(s, "gain", &back, sizeof back), FG_OK);
  ck_assert_float_eq(back, -2.0f);
  run(ctx, p, 1, (const void *[]){v}, 1, (void *[]){o});
  for (int i = 0; i < 4 * N; i++)
    ck_assert_float_eq(o[i], v[i] * -2.0f + (float)(10 - 4 + 7 + i / 4));
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

START_TEST(test_rs_bound_allocation_is_a_non_local_read) {
  fg_rs_script *s = source("lut",
      "rs_allocation table;\n"
      "uchar RS_KERNEL look(uchar v, uint32_t x) {\n"
      "  uint32_t n = rsAllocationGetDimX(table);\n"
      "  return rsGetElementAt_uchar(table, (v + x) % n);\n"
      "}\n");
  const int N = 1000, T = 200;
  fg_graph *g = fg_graph_new("g");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_U8, fg_shape1(N)));
  fg_field *tab = fg_input(g, "tab", fg_type_scalar(FG_U8, fg_shape1(T)));
  /* unbound: an error naming the global */
  ck_assert_ptr_null(fg_rs_map(g, s, "look", 1, &in, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "'table'"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("g");
  in = fg_input(g, "in", fg_type_scalar(FG_U8, fg_shape1(N)));
  tab = fg_input(g, "tab", fg_type_scalar(FG_U8, fg_shape1(T)));
  fg_field *tab2 = dsl_add(g, tab, 1);       /* produced in the graph */
  ck_assert_int_eq(fg_rs_bind_allocation(s, "table", tab2), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "nothere", tab2), FG_EINVAL);
  fg_field *out = fg_rs_map(g, s, "look", 1, &in, NULL);
  fg_output(g, "out", out);
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  /* the table is materialized: the script reads it anywhere */
  const char *why = fg_program_field_reason(p, "add.out0");
  ck_assert_msg(why && strstr(why, "non-local"), "%s", why ? why : "(null)");
  uint8_t v[N], t[T], o[N];
  for (int i = 0; i < N; i++)
    v[i] = (uint8_t)(i * 31);
  for (int i = 0; i < T; i++)
    t[i] = (uint8_t)(i * 3 + 11);
  run(ctx, p, 2, (const void *[]){v, t}, 1, (void *[]){o});
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(o[i], (uint8_t)(t[(v[i] + i) % T] + 1));
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

START_TEST(test_rs_map_checks_types_shapes_and_arity) {
  fg_rs_script *s = load("singlesource.rs");
  fg_rs_script *two = source("two", "float RS_KERNEL add(float a, float b) "
                             "{ return a + b; }\n");
  fg_graph *g = fg_graph_new("g");
  fg_field *f = fg_input(g, "f", fg_type_image(FG_F32, 8, 8, 4));
  ck_assert_ptr_null(fg_rs_map(g, s, "invert", 1, &f, NULL));
  ck_assert_int_eq(fg_graph_status(g), FG_ETYPE);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "uchar4") &&
                strstr(fg_graph_errmsg(g), "'f'") &&
                strstr(fg_graph_errmsg(g), "singlesource.rs:8:"),
                "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("g");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape2(4, 5)));
  fg_field *b = fg_input(g, "b", fg_type_scalar(FG_F32, fg_shape2(5, 4)));
  ck_assert_ptr_null(fg_rs_map(g, two, "add", 2, (fg_field *[]){a, b},
                               NULL));
  ck_assert_int_eq(fg_graph_status(g), FG_ESHAPE);
  fg_graph_free(g);
  g = fg_graph_new("g");
  a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape2(4, 5)));
  ck_assert_ptr_null(fg_rs_map(g, two, "add", 1, &a, NULL));
  ck_assert_int_eq(fg_graph_status(g), FG_EINVAL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "takes 2"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("g");
  a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape2(4, 5)));
  ck_assert_ptr_null(fg_rs_map(g, two, "nothere", 1, &a, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "add"), "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
  fg_rs_script_free(two);
}
END_TEST

START_TEST(test_rs_kernel_error_reported_at_the_users_line) {
  fg_rs_script *s = NULL;
  char err[512];
  ck_assert_int_eq(fg_rs_script_new_source(
      "oops", "oops.rs",
      "#pragma version(1)\n"
      "float RS_KERNEL k(float v) {\n"
      "  float w = v * 2;\n"
      "  return w + undeclared_thing;\n"
      "}\n", (size_t)-1, &s, err, sizeof err), FG_OK);
  fg_graph *g = fg_graph_new("g");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(8)));
  fg_output(g, "out", fg_rs_map(g, s, "k", 1, &in, NULL));
  fg_context *ctx = tu_context();
  fg_program *p = NULL;
  ck_assert_int_eq(fg_compile(ctx, g, NULL, &p), FG_EBUILD);
  ck_assert_msg(strstr(fg_context_errmsg(ctx), "oops.rs:4:"), "%s",
                fg_context_errmsg(ctx));
  ck_assert_msg(strstr(fg_context_errmsg(ctx), "undeclared_thing"), "%s",
                fg_context_errmsg(ctx));
  tu_context_free(ctx);
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

START_TEST(test_rs_specials_context_and_launch_range) {
  fg_rs_script *s = source("sp",
      "int RS_KERNEL coords(uint32_t x, uint32_t y, uint32_t z,\n"
      "                     rs_kernel_context context) {\n"
      "  return x + 100 * y + 10000 * z + 1000000 * rsGetDimX(context)\n"
      "         + 100000000 * rsGetDimZ(context);\n"
      "}\n");
  const int L = 3, R = 4, C = 5;
  fg_graph *g = fg_graph_new("g");
  fg_rs_launch opt = {.shape = fg_shape3(L, R, C)};
  fg_output(g, "all", fg_rs_map(g, s, "coords", 0, NULL, &opt));
  fg_field *base = fg_input(g, "base", fg_type_scalar(FG_I32,
                                                      fg_shape3(L, R, C)));
  fg_rs_launch sub = {.shape = fg_shape3(L, R, C), .x_start = 1, .x_end = 4,
                      .y_start = 2, .y_end = 3, .base = base};
  fg_output(g, "sub", fg_rs_map(g, s, "coords", 0, NULL, &sub));
  fg_rs_launch bad = {.shape = fg_shape1(4), .y_start = 0, .y_end = 2};
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  int32_t all[L * R * C], part[L * R * C], b[L * R * C];
  for (int i = 0; i < L * R * C; i++)
    b[i] = -i;
  run(ctx, p, 1, (const void *[]){b}, 2, (void *[]){all, part});
  for (int z = 0; z < L; z++)
    for (int y = 0; y < R; y++)
      for (int x = 0; x < C; x++) {
        int i = (z * R + y) * C + x;
        int want = x + 100 * y + 10000 * z + 1000000 * C + 100000000 * L;
        ck_assert_int_eq(all[i], want);
        bool in = x >= 1 && x < 4 && y == 2;
        ck_assert_int_eq(part[i], in ? want : -i);
      }
  ck_assert_ptr_null(fg_rs_map(g, s, "coords", 0, NULL, &bad));
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* ---- reductions --------------------------------------------------------- */

START_TEST(test_rs_reference_reductions) {
  fg_rs_script *s = load("reductions.rs");
  int W, H;
  uint8_t *px = photo_rgba("astronaut.png", &W, &H);
  const int N = 300007, FR = 61, FC = 53;
  fg_graph *g = fg_graph_new("red");
  fg_field *ints = fg_input(g, "ints", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_field *longs = fg_input(g, "longs", fg_type_scalar(FG_I64,
                                                        fg_shape1(N)));
  fg_field *fa = fg_input(g, "fa", fg_type_scalar(FG_F32, fg_shape2(FR, FC)));
  fg_field *fb = fg_input(g, "fb", fg_type_scalar(FG_F32, fg_shape2(FR, FC)));
  fg_field *z2 = fg_input(g, "z2", fg_type_scalar(FG_I32, fg_shape2(FR, FC)));
  fg_field *nz = fg_input(g, "nz", fg_type_scalar(FG_I32, fg_shape2(FR, FC)));
  fg_field *grey = fg_input(g, "grey", fg_type_scalar(FG_U8,
                                                      fg_shape2(H, W)));
  fg_output(g, "addint", fg_rs_reduce(g, s, "addint", 1, &ints, NULL));
  fg_output(g, "mm", fg_rs_reduce(g, s, "findMinAndMax", 1, &longs, NULL));
  fg_output(g, "dot", fg_rs_reduce(g, s, "dotProduct", 2,
                                   (fg_field *[]){fa, fb}, NULL));
  fg_output(g, "fz2", fg_rs_reduce(g, s, "fz2", 1, &z2, NULL));
  fg_output(g, "fz2none", fg_rs_reduce(g, s, "fz2", 1, &nz, NULL));
  fg_field *hist = fg_rs_reduce(g, s, "histogram", 1, &grey, NULL);
  fg_output(g, "hist", hist);
  fg_output(g, "mode", fg_rs_reduce(g, s, "mode", 1, &grey, NULL));
  ck_assert_int_eq(fg_field_type(hist).elem, FG_U32);
  ck_assert_int_eq(fg_type_tensor_elements(fg_field_type(hist)), 256);
  int32_t *iv = malloc(sizeof *iv * N);
  int64_t *lv = malloc(sizeof *lv * N);
  float a[FR * FC], b[FR * FC];
  int32_t zv[FR * FC], nzv[FR * FC];
  uint8_t *gv = malloc((size_t)W * H);
  uint32_t isum = 0;
  int64_t lmin = INT64_MAX, lmax = INT64_MIN;
  for (int i = 0; i < N; i++) {
    iv[i] = (int32_t)((i * 2654435761u) >> 7) - 1000;
    isum += (uint32_t)iv[i];
    lv[i] = (int64_t)(((int64_t)i * 7919) % 100003) * 1000003 - 50000000000LL;
    lmin = lv[i] < lmin ? lv[i] : lmin;
    lmax = lv[i] > lmax ? lv[i] : lmax;
  }
  double dot = 0;
  for (int i = 0; i < FR * FC; i++) {
    a[i] = (float)(i % 17) * 0.5f - 3;
    b[i] = (float)(i % 13) * 0.25f + 1;
    dot += (double)a[i] * b[i];
    zv[i] = 1 + i % 5;
    nzv[i] = 1 + i % 7;
  }
  zv[17 * FC + 29] = 0;
  uint32_t h[256] = {0};
  for (int i = 0; i < W * H; i++) {
    gv[i] = grey_of(px + 4 * i);
    h[gv[i]]++;
  }
  int mode = 0;
  for (int i = 1; i < 256; i++)
    if (h[i] > h[mode])
      mode = i;
  int32_t r_add, r_mm[2], r_fz[2], r_fzn[2], r_mode[2];
  float r_dot;
  uint32_t r_h[256];
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  run(ctx, p, 7, (const void *[]){iv, lv, a, b, zv, nzv, gv}, 7,
      (void *[]){&r_add, r_mm, &r_dot, r_fz, r_fzn, r_h, r_mode});
  ck_assert_int_eq((uint32_t)r_add, isum);
  /* any location of the min and max, as the reference defines it */
  ck_assert(r_mm[0] >= 0 && r_mm[0] < N && r_mm[1] >= 0 && r_mm[1] < N);
  ck_assert(lv[r_mm[0]] == lmin);
  ck_assert(lv[r_mm[1]] == lmax);
  ck_assert_msg(fabs(r_dot - dot) < 1e-4 * fabs(dot) + 1e-3, "%g vs %g",
                r_dot, dot);
  ck_assert_int_eq(r_fz[0], 29);
  ck_assert_int_eq(r_fz[1], 17);
  ck_assert_int_eq(r_fzn[0], -1);
  ck_assert_int_eq(r_fzn[1], -1);
  ck_assert_int_eq(memcmp(r_h, h, sizeof h), 0);
  ck_assert_int_eq(r_mode[0], mode);
  ck_assert_int_eq(r_mode[1], (int32_t)h[mode]);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  fg_rs_script_free(s);
  free(px);
  free(iv);
  free(lv);
  free(gv);
}
END_TEST

/* A script reduction's result read by pointwise operators and an output:
 * the fold that writes the result (its foreign call writes the output
 * itself, not fusable) stays a kernel of its own, and the operators read
 * the written result.  The join of one-point groups (fuse/partition.c,
 * absorbable) checked only the joining group's lead, so the operators
 * joined the fold's kernel and compiling it crashed (no value for the
 * result they read). */
START_TEST(test_rs_reduction_result_feeds_an_operator) {
  enum { N = 1000 };
  fg_rs_script *s = load("reductions.rs");
  fg_graph *g = fg_graph_new("feeds");
  fg_field *v = fg_input(g, "v", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_field *sum = fg_rs_reduce(g, s, "addint", 1, &v, NULL);
  ck_assert_msg(sum, "%s", fg_graph_errmsg(g));
  fg_output(g, "sum", sum);
  fg_output(g, "twice", fg_binary_scalar(g, FG_OP_MUL,
                                         fg_binary_scalar(g, FG_OP_ADD, sum,
                                                          3), 2));
  int32_t in[N], got[2];
  int32_t want = 0;
  for (int i = 0; i < N; i++) {
    in[i] = i % 37 - 11;
    want += in[i];
  }
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  run(ctx, p, 1, (const void *[]){in}, 2, (void *[]){&got[0], &got[1]});
  ck_assert_int_eq(got[0], want);
  ck_assert_int_eq(got[1], (want + 3) * 2);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

START_TEST(test_rs_reduction_dims_ranges_and_empty_range) {
  fg_rs_script *s = load("reductions.rs");
  const int L = 3, R = 41, C = 67, N = L * R * C;
  fg_graph *g = fg_graph_new("dims");
  fg_field *v1 = fg_input(g, "v1", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_field *v2 = fg_input(g, "v2", fg_type_scalar(FG_I32, fg_shape2(L * R,
                                                                    C)));
  fg_field *v3 = fg_input(g, "v3", fg_type_scalar(FG_I32,
                                                  fg_shape3(L, R, C)));
  fg_field *lv = fg_input(g, "lv", fg_type_scalar(FG_I64, fg_shape1(N)));
  fg_rs_launch box = {.x_start = 5, .x_end = 60, .y_start = 10,
                      .y_end = 30, .z_start = 1, .z_end = 3};
  fg_rs_launch empty = {.x_start = 7, .x_end = 7};
  fg_output(g, "s1", fg_rs_reduce(g, s, "addint", 1, &v1, NULL));
  fg_output(g, "s2", fg_rs_reduce(g, s, "addint", 1, &v2, NULL));
  fg_output(g, "s3", fg_rs_reduce(g, s, "addint", 1, &v3, NULL));
  fg_output(g, "box", fg_rs_reduce(g, s, "addint", 1, &v3, &box));
  fg_output(g, "e_add", fg_rs_reduce(g, s, "addint", 1, &v1, &empty));
  /* the initializer's value through the outconverter */
  fg_output(g, "e_mm", fg_rs_reduce(g, s, "findMinAndMax", 1, &lv, &empty));
  fg_rs_launch bad = {.x_start = 0, .x_end = N + 1};
  ck_assert_ptr_null(fg_rs_reduce(g, s, "addint", 1, &v1, &bad));
  ck_assert_int_eq(fg_graph_status(g), FG_EINVAL);
  fg_graph_free(g);
  g = fg_graph_new("dims");
  v1 = fg_input(g, "v1", fg_type_scalar(FG_I32, fg_shape1(N)));
  v2 = fg_input(g, "v2", fg_type_scalar(FG_I32, fg_shape2(L * R, C)));
  v3 = fg_input(g, "v3", fg_type_scalar(FG_I32, fg_shape3(L, R, C)));
  lv = fg_input(g, "lv", fg_type_scalar(FG_I64, fg_shape1(N)));
  fg_output(g, "s1", fg_rs_reduce(g, s, "addint", 1, &v1, NULL));
  fg_output(g, "s2", fg_rs_reduce(g, s, "addint", 1, &v2, NULL));
  fg_output(g, "s3", fg_rs_reduce(g, s, "addint", 1, &v3, NULL));
  fg_output(g, "box", fg_rs_reduce(g, s, "addint", 1, &v3, &box));
  fg_output(g, "e_add", fg_rs_reduce(g, s, "addint", 1, &v1, &empty));
  fg_output(g, "e_mm", fg_rs_reduce(g, s, "findMinAndMax", 1, &lv, &empty));
  int32_t *v = malloc(sizeof *v * N);
  int64_t *l = malloc(sizeof *l * N);
  uint32_t all = 0, inbox = 0;
  for (int i = 0; i < N; i++) {
    v[i] = i % 1009 - 500;
    l[i] = i;
    all += (uint32_t)v[i];
    int z = i / (R * C), y = i / C % R, x = i % C;
    if (x >= 5 && x < 60 && y >= 10 && y < 30 && z >= 1)
      inbox += (uint32_t)v[i];
  }
  int32_t s1, s2, s3, sb, e_add, e_mm[2];
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  run(ctx, p, 4, (const void *[]){v, v, v, l}, 6,
      (void *[]){&s1, &s2, &s3, &sb, &e_add, e_mm});
  ck_assert_int_eq((uint32_t)s1, all);
  ck_assert_int_eq((uint32_t)s2, all);
  ck_assert_int_eq((uint32_t)s3, all);
  ck_assert_int_eq((uint32_t)sb, inbox);
  ck_assert_int_eq(e_add, 0);
  ck_assert_int_eq(e_mm[0], -1);
  ck_assert_int_eq(e_mm[1], -1);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  fg_rs_script_free(s);
  free(v);
  free(l);
}
END_TEST

/* Regression (found by fuzz/fuzz_diff.c): the names a script's text
 * renames (clamp, pow, ...) were #undef'd after it, which on PoCL, whose
 * clamp is a macro, left a fused operator after the script calling an
 * undeclared clamp: the kernel did not build on OpenCL. */
/* fg_rs_function_kind answers from the script as compiled: a kernel a
 * macro defines, a legacy root, a reduction, an invokable; a static
 * helper, a prototype without a body and an unknown name are none. */
START_TEST(test_rs_function_kinds) {
  fg_rs_script *s = NULL;
  char err[512];
  ck_assert_msg(fg_rs_script_new_source("kinds", NULL,
      "#pragma version(1)\n#pragma rs java_package_name(t)\n"
      "#define K(n) float RS_KERNEL n(float v) { return v + 1; }\n"
      "K(made)\n"
      "void root(const float *in, float *out) { *out = *in; }\n"
      "#pragma rs reduce(total) accumulator(acc)\n"
      "static void acc(float *a, float v) { *a += v; }\n"
      "static float helper(float v) { return v; }\n"
      "void later(void);\n"
      "float gain;\nvoid set_gain(float g) { gain = helper(g); }\n",
      (size_t)-1, &s, err, sizeof err) == FG_OK, "%s", err);
  ck_assert_int_eq(fg_rs_function_kind(s, "made"), FG_RS_KERNEL);
  ck_assert_int_eq(fg_rs_function_kind(s, "root"), FG_RS_KERNEL);
  ck_assert_int_eq(fg_rs_function_kind(s, "total"), FG_RS_REDUCTION);
  ck_assert_int_eq(fg_rs_function_kind(s, "set_gain"), FG_RS_INVOKABLE);
  ck_assert_int_eq(fg_rs_function_kind(s, "helper"), FG_RS_NONE);
  ck_assert_int_eq(fg_rs_function_kind(s, "later"), FG_RS_NONE);
  ck_assert_int_eq(fg_rs_function_kind(s, "K"), FG_RS_NONE);
  ck_assert_int_eq(fg_rs_function_kind(s, "nothing"), FG_RS_NONE);
  ck_assert_int_eq(fg_rs_function_kind(NULL, "made"), FG_RS_NONE);
  ck_assert_int_eq(fg_rs_function_kind(s, NULL), FG_RS_NONE);
  /* parameters: a numeric scalar's type; others are no number */
  fg_elem e = FG_U8;
  ck_assert_int_eq(fg_rs_function_param(s, "set_gain", 0, &e), FG_OK);
  ck_assert_int_eq(e, FG_F32);
  ck_assert_int_eq(fg_rs_function_param(s, "root", 0, &e), FG_ETYPE);
  ck_assert_int_eq(fg_rs_function_param(s, "set_gain", 1, &e), FG_EINVAL);
  ck_assert_int_eq(fg_rs_function_param(s, "set_gain", -1, &e), FG_EINVAL);
  ck_assert_int_eq(fg_rs_function_param(s, "nothing", 0, &e), FG_EINVAL);
  ck_assert_int_eq(fg_rs_function_param(NULL, "set_gain", 0, &e),
                   FG_EINVAL);
  fg_rs_script_free(s);
}
END_TEST

/* An unknown pragma is ignored with a warning at its line, as clang (and
 * Android's compiler) ignores it: a misspelt precision pragma leaves the
 * script at full precision and its kernels run. */
START_TEST(test_rs_unknown_pragma_is_a_warning) {
  fg_rs_script *s = NULL;
  char err[512];
  ck_assert_msg(fg_rs_script_new_source("typo", "typo.rs",
      "#pragma version(1)\n#pragma rs java_package_name(t)\n"
      "#pragma rs_fp_relaxes\n"
      "#pragma rs set_something(1, 2)\n"
      "float RS_KERNEL twice(float v) { return v * 2; }\n",
      (size_t)-1, &s, err, sizeof err) == FG_OK, "%s", err);
  const char *w = fg_rs_script_warnings(s);
  ck_assert_msg(strstr(w, "typo.rs:3:9: unknown #pragma 'rs_fp_relaxes' "
                       "ignored"), "%s", w);
  ck_assert_msg(strstr(w, "typo.rs:4:12: unknown #pragma rs "
                       "'set_something' ignored"), "%s", w);
  ck_assert_int_eq(fg_rs_script_fp(s), FG_RS_FP_FULL);
  fg_graph *g = fg_graph_new("g");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(5)));
  fg_output(g, "out", fg_rs_map(g, s, "twice", 1, &in, NULL));
  float x[5] = {1, -2, 3.5f, 0, 8}, y[5];
  tu_run(g, 1, (const void *[]){x}, 1, (void *[]){y});
  for (int i = 0; i < 5; i++)
    ck_assert(y[i] == x[i] * 2);
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* A struct holding an object handle (rs_element, rs_type...) has no
 * size fieldgraph can hold: the script loads, its other kernels run, and
 * the kernel taking the struct is refused at its line. */
START_TEST(test_rs_struct_of_object_handles_sinks_no_script) {
  fg_rs_script *s = NULL;
  char err[512];
  ck_assert_msg(fg_rs_script_new_source("objs", "objs.rs",
      "#pragma version(1)\n#pragma rs java_package_name(t)\n"
      "typedef struct { rs_element e; rs_type t; } holder;\n"
      "void is_obj(const holder *in, int *out) {\n"
      "  *out = rsIsObject(in->e) ? 1 : 0;\n}\n"
      "int RS_KERNEL plus(int v) { return v + 3; }\n",
      (size_t)-1, &s, err, sizeof err) == FG_OK, "%s", err);
  fg_graph *g = fg_graph_new("g");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(4)));
  ck_assert_ptr_null(fg_rs_map(g, s, "is_obj", 1, &in, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "objs.rs:4:"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("g");
  in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(4)));
  fg_output(g, "out", fg_rs_map(g, s, "plus", 1, &in, NULL));
  int32_t x[4] = {1, -5, 0, 40}, y[4];
  tu_run(g, 1, (const void *[]){x}, 1, (void *[]){y});
  for (int i = 0; i < 4; i++)
    ck_assert_int_eq(y[i], x[i] + 3);
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

START_TEST(test_rs_regression_renamed_builtin_after_script) {
  fg_rs_script *s = NULL;
  char err[512];
  ck_assert_int_eq(fg_rs_script_new_source(
      "clampy", NULL,
      "#pragma version(1)\n#pragma rs java_package_name(t)\n"
      "float RS_KERNEL k(float v) { return clamp(v * 2.f, -1.f, 1.f); }\n",
      (size_t)-1, &s, err, sizeof err), FG_OK);
  enum { N = 9 };
  fg_graph *g = fg_graph_new("after");
  fg_type t = fg_type_scalar(FG_F32, fg_shape1(N));
  fg_field *in = fg_input(g, "in", t);
  fg_field *k = fg_rs_map(g, s, "k", 1, &in, NULL);
  fg_op *op = fg_op_begin(g, "after", 1, &t);
  fg_expr *x = fg_read_tensor(op, k);
  fg_write_tensor(op, 0, fg_add(fg_clamp(x, fg_float(op, -0.5f),
                                         fg_float(op, 0.5f)),
                                fg_pow(fg_fabs(x), fg_float(op, 2.0f))));
  fg_output(g, "out", fg_op_end(op));
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  ck_assert_int_eq(fg_program_kernel_count(p), 1);
  float v[N], o[N];
  for (int i = 0; i < N; i++)
    v[i] = (float)(i - 4) / 5.0f;
  run(ctx, p, 1, (const void *[]){v}, 1, (void *[]){o});
  for (int i = 0; i < N; i++) {
    float y = fminf(fmaxf(v[i] * 2.f, -1.f), 1.f);
    float want = fminf(fmaxf(y, -0.5f), 0.5f) + y * y;
    ck_assert_msg(fabsf(o[i] - want) <= 1e-6f, "%d: %g, C %g", i, o[i],
                  want);
  }
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

START_TEST(test_rs_reduction_fuses_its_producer_and_feeds_a_node) {
  fg_rs_script *s = load("reductions.rs");
  const int R = 123, C = 77;
  fg_graph *g = fg_graph_new("fuse");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape2(R, C)));
  fg_field *x = dsl_add(g, in, 3);
  fg_field *sum = fg_rs_reduce(g, s, "addint", 1, &x, NULL);
  ck_assert_int_eq(fg_field_type(sum).field.ndim, 0);
  fg_output(g, "sum", sum);
  /* the 0-D result read by a later operator */
  fg_type t = fg_type_scalar(FG_I32, fg_shape2(R, C));
  fg_op *op = fg_op_begin(g, "plus_sum", 1, &t);
  fg_write_tensor(op, 0, fg_add(fg_read_tensor(op, in),
                                fg_read_tensor(op, sum)));
  fg_output(g, "plus", fg_op_end(op));
  fg_context *ctx = tu_context();
  fg_program *p = compile_fusion(ctx, g, FG_FUSION_ON);
  fg_program *q = compile_fusion(ctx, g, FG_FUSION_OFF);
  /* add fused into the accumulate pass; add.out0 never written */
  ck_assert_str_eq(fg_program_kernel_name(p, 0), "add+addint.accumulate");
  ck_assert_ptr_null(fg_program_field_reason(p, "add.out0"));
  ck_assert_int_eq(fg_program_kernel_count(p), 3);
  ck_assert_int_eq(fg_program_kernel_count(q), 4);
  int32_t v[R * C], o1[R * C], o2[R * C], s1, s2;
  uint32_t want = 0;
  for (int i = 0; i < R * C; i++) {
    v[i] = (i * 37) % 1001 - 480;
    want += (uint32_t)(v[i] + 3);
  }
  run(ctx, p, 1, (const void *[]){v}, 2, (void *[]){&s1, o1});
  run(ctx, q, 1, (const void *[]){v}, 2, (void *[]){&s2, o2});
  ck_assert_int_eq((uint32_t)s1, want);
  ck_assert_int_eq(s1, s2);
  for (int i = 0; i < R * C; i++) {
    ck_assert_int_eq(o1[i], (int32_t)((uint32_t)v[i] + want));
    ck_assert_int_eq(o2[i], o1[i]);
  }
  fg_program_free(p);
  fg_program_free(q);
  tu_context_free(ctx);
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

START_TEST(test_rs_reduce_checks_inputs) {
  fg_rs_script *s = load("reductions.rs");
  fg_graph *g = fg_graph_new("g");
  fg_field *f = fg_input(g, "f", fg_type_scalar(FG_F32, fg_shape1(10)));
  ck_assert_ptr_null(fg_rs_reduce(g, s, "addint", 1, &f, NULL));
  ck_assert_int_eq(fg_graph_status(g), FG_ETYPE);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "reductions.rs:7:"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("g");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(10)));
  fg_field *b = fg_input(g, "b", fg_type_scalar(FG_F32, fg_shape1(11)));
  ck_assert_ptr_null(fg_rs_reduce(g, s, "dotProduct", 2,
                                  (fg_field *[]){a, b}, NULL));
  ck_assert_int_eq(fg_graph_status(g), FG_ESHAPE);
  fg_graph_free(g);
  g = fg_graph_new("g");
  a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(10)));
  ck_assert_ptr_null(fg_rs_reduce(g, s, "nothere", 1, &a, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "histogram"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

int main(void) {
  Suite *s = suite_create("rs");
  TCase *tc = tcase_create("rs");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_rs_scan_reads_the_reference_scripts);
  tcase_add_test(tc, test_rs_scan_errors_carry_line_and_column);
  tcase_add_test(tc, test_rs_combiner_rules);
  tcase_add_test(tc, test_rs_preprocessor_suite_shares_a_header);
  tcase_add_test(tc, test_rs_unsupported_call_spares_other_kernels);
  tcase_add_test(tc, test_rs_defects_on_valid_scripts);
  tcase_add_test(tc, test_rs_invert_greyscale_photo_fused_into_one_pass);
  tcase_add_test(tc,
                 test_rs_invoke_single_source_process_fuses_into_one_kernel);
  tcase_add_test(tc, test_rs_invoke_options_dims_and_in_place);
  tcase_add_test(tc, test_rs_invoke_errors_name_file_line_column);
  tcase_add_test(tc, test_rs_invoke_runs_host_setup_before_launches);
  tcase_add_test(tc, test_rs_invoke_restricted_row_sums);
  tcase_add_test(tc, test_rs_fuses_with_dsl_operators_and_other_scripts);
  tcase_add_test(tc, test_rs_kernels_return_and_take_structs);
  tcase_add_test(tc, test_rs_locals_shadow_globals_in_their_scope);
  tcase_add_test(tc, test_rs_fract_and_rsclamp_on_every_backend);
  tcase_add_test(tc, test_rs_set_element_through_a_helper_and_its_limits);
  tcase_add_test(tc, test_rs_legacy_pointers_reach_one_element);
  tcase_add_test(tc, test_rs_legacy_void_pointers_take_the_cast_type);
  tcase_add_test(tc, test_rs_global_writes_outside_kernels_are_refused);
  tcase_add_test(tc, test_rs_struct_allocations_and_half_are_named);
  tcase_add_test(tc, test_rs_int_literals_beside_narrow_vectors);
  tcase_add_test(tc, test_rs_fp_pragmas_choose_each_kernels_precision);
  tcase_add_test(tc, test_rs_globals_set_get_and_per_run_values);
  tcase_add_test(tc, test_rs_bound_allocation_is_a_non_local_read);
  tcase_add_test(tc, test_rs_map_checks_types_shapes_and_arity);
  tcase_add_test(tc, test_rs_kernel_error_reported_at_the_users_line);
  tcase_add_test(tc, test_rs_specials_context_and_launch_range);
  tcase_add_test(tc, test_rs_reference_reductions);
  tcase_add_test(tc, test_rs_reduction_dims_ranges_and_empty_range);
  tcase_add_test(tc, test_rs_reduction_result_feeds_an_operator);
  tcase_add_test(tc, test_rs_reduction_fuses_its_producer_and_feeds_a_node);
  tcase_add_test(tc, test_rs_reduce_checks_inputs);
  tcase_add_test(tc, test_rs_function_kinds);
  tcase_add_test(tc, test_rs_unknown_pragma_is_a_warning);
  tcase_add_test(tc, test_rs_struct_of_object_handles_sinks_no_script);
  tcase_add_test(tc, test_rs_regression_renamed_builtin_after_script);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
