/* tests/check_rs_runtime.c - the RenderScript script object as on Android,
 * on the backend $FG_TEST_BACKEND names (tests/opencl-suites.sh runs it
 * again on OpenCL): init() when a script is created, invokables called
 * from the host (fg_rs_call, fg_rs_call_args) whose writes to static
 * globals are what later kernel launches see, rsDebug / rsSendToClient /
 * rsRand in invokables, rs_matrix4x4 and rsMatrixMultiply in kernels, and
 * legacy root() kernels, the YUV getters on an NV21 frame, rsSample, an
 * ICS-era filter (rs_script and pointer globals, legacy kernels besides
 * root(), the untyped rsGetElementAt) that runs what it can, kernels that
 * set elements of bound allocations (rsSetElementAt_<type>), a histogram
 * counted with rsAtomicInc into a bound allocation, rsRand in kernels,
 * invokables run as one thread with numeric, vector and bool parameters
 * (fg_rs_invoke_args) that set globals for the kernels after them (and
 * elements of several allocations with them), and the errors that name
 * what cannot run at its line.  Each script in tests/rs/ runs unmodified
 * and is checked against plain C loops. */
#ifndef FG_RS_DIR
#define FG_RS_DIR "tests/rs"
#endif
#include "testutil.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

static fg_rs_script *load(const char *file) {
  return tu_rs_load("", file);
}

/* A w x h RGBA image of varied pixels. */
static uint8_t *pattern(int w, int h) { return tu_rgba_pattern(w, h, 12345); }

/* Runs kernel `kernel` of s over an h x w RGBA image. */
static void map_rgba(fg_rs_script *s, const char *kernel, int w, int h,
                     const uint8_t *in, uint8_t *out) {
  fg_graph *g = fg_graph_new("rt");
  fg_field *img = fg_input(g, "img", fg_type_image(FG_U8, h, w, 4));
  fg_field *o = fg_rs_map(g, s, kernel, 1, &img, NULL);
  fg_output(g, "out", o);
  const void *ins[] = {in};
  void *outs[] = {out};
  tu_run(g, 1, ins, 1, outs);
  fg_graph_free(g);
}

/* colormatrix.rs's arithmetic, in plain C */
static void colormatrix_ref(float sat, int invert, float bright,
                            const uint8_t *in, uint8_t *out, int n) {
  const float w[3] = {0.299f, 0.587f, 0.114f};
  float m[9];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      float v = (1.0f - sat) * w[c];
      if (r == c)
        v += sat;
      m[r * 3 + c] = invert ? -v : v;
    }
  float bias = invert ? 255.f + bright : bright;
  for (int i = 0; i < n; i++) {
    const uint8_t *p = in + 4 * i;
    for (int r = 0; r < 3; r++) {
      float v = m[r * 3] * (float)p[0];
      v = v + m[r * 3 + 1] * (float)p[1];
      v = v + m[r * 3 + 2] * (float)p[2];
      v = v + bias;
      v = v < 0.f ? 0.f : v > 255.f ? 255.f : v;
      out[4 * i + r] = (uint8_t)v;
    }
    out[4 * i + 3] = p[3];
  }
}

START_TEST(test_rs_invokable_sets_a_colour_matrix_before_a_kernel) {
  enum { W = 37, H = 23, N = W * H };
  uint8_t *in = pattern(W, H), *out = malloc(4 * N), *ref = malloc(4 * N);
  fg_rs_script *s = load("colormatrix.rs");
  /* init() ran: the identity, not the initializer's zeros */
  map_rgba(s, "apply", W, H, in, out);
  for (int i = 0; i < N; i++)
    for (int c = 0; c < 4; c++)
      ck_assert_msg(out[4 * i + c] == in[4 * i + c], "identity at %d.%d: "
                    "%d, expected %d", i, c, out[4 * i + c], in[4 * i + c]);
  /* the invokable computes the matrix from parameters */
  ck_assert_msg(fg_rs_call(s, "setParams", 0.25, 0, 10.0) == FG_OK, "%s",
                fg_rs_script_errmsg(s));
  map_rgba(s, "apply", W, H, in, out);
  colormatrix_ref(0.25f, 0, 10.f, in, ref, N);
  ck_assert_int_eq(memcmp(out, ref, 4 * N), 0);
  /* again, by pointers, inverting */
  float sat = 1.5f, bright = -20.f;
  int inv = 1;
  const void *args[] = {&sat, &inv, &bright};
  ck_assert_msg(fg_rs_call_args(s, "setParams", 3, args) == FG_OK, "%s",
                fg_rs_script_errmsg(s));
  map_rgba(s, "apply", W, H, in, out);
  colormatrix_ref(1.5f, 1, -20.f, in, ref, N);
  ck_assert_int_eq(memcmp(out, ref, 4 * N), 0);
  /* the C value of a global the script wrote is what the host set */
  int seen = -1;
  ck_assert_int_eq(fg_rs_get(s, "calls_seen", &seen, sizeof seen), FG_OK);
  ck_assert_int_eq(seen, 0);
  /* wrong calls */
  ck_assert_int_eq(fg_rs_call_args(s, "setParams", 2, args), FG_EINVAL);
  ck_assert_msg(strstr(fg_rs_script_errmsg(s), "takes 3"), "%s",
                fg_rs_script_errmsg(s));
  ck_assert_int_eq(fg_rs_call(s, "nothere"), FG_EINVAL);
  ck_assert_int_eq(fg_rs_call(s, "apply"), FG_ENOTSUP);
  ck_assert_msg(strstr(fg_rs_script_errmsg(s), "colormatrix.rs:") &&
                strstr(fg_rs_script_errmsg(s), "is a kernel"), "%s",
                fg_rs_script_errmsg(s));
  fg_rs_script_free(s);
  free(in);
  free(out);
  free(ref);
}
END_TEST

START_TEST(test_rs_init_that_cannot_run_is_named_at_load) {
  /* kernels would otherwise run with the initializer init() replaces */
  const char *text = "#pragma version(1)\n"
                     "static float gain = 1.f;\n"
                     "void init() {\n"
                     "  gain = rsFrobnicate(2.f);\n"
                     "}\n"
                     "float RS_KERNEL k(float v) { return v * gain; }\n";
  fg_rs_script *s = NULL;
  char err[1024];
  ck_assert_int_eq(fg_rs_script_new_source("bad", "bad.rs", text, (size_t)-1,
                                           &s, err, sizeof err),
                   FG_ENOTSUP);
  ck_assert_ptr_null(s);
  ck_assert_msg(strstr(err, "bad.rs:4:10: ") && strstr(err, "init()") &&
                strstr(err, "initializers"), "%s", err);
  /* an init() whose host code does not compile: clang's message at the
   * script's line */
  text = "#pragma version(1)\n"
         "static int n;\n"
         "void init() {\n"
         "  n = undeclared_thing;\n"
         "}\n";
  ck_assert_int_eq(fg_rs_script_new_source("bad", "bad2.rs", text,
                                           (size_t)-1, &s, err, sizeof err),
                   FG_EBUILD);
  ck_assert_msg(strstr(err, "bad2.rs:4:") &&
                strstr(err, "undeclared_thing"), "%s", err);
}
END_TEST

typedef struct captured {
  char lines[8][128];
  int n_lines;
  int ids[4], n_msgs;
  int data[4][2];
  size_t sizes[4];
} captured;

static void on_log(void *user, const char *line) {
  captured *c = user;
  if (c->n_lines < 8)
    snprintf(c->lines[c->n_lines], sizeof c->lines[0], "%s", line);
  c->n_lines++;
}

static void on_message(void *user, int id, const void *data, size_t size) {
  captured *c = user;
  if (c->n_msgs < 4) {
    c->ids[c->n_msgs] = id;
    c->sizes[c->n_msgs] = size;
    if (data && size == sizeof c->data[0])
      memcpy(c->data[c->n_msgs], data, size);
  }
  c->n_msgs++;
}

START_TEST(test_rs_debug_messages_and_rand_in_invokables) {
  fg_rs_script *s = load("runtime_calls.rs");
  captured c = {0};
  fg_rs_set_log(s, on_log, &c);
  fg_rs_set_message_handler(s, on_message, &c);
  ck_assert_msg(fg_rs_call(s, "fill", 5, 1.5) == FG_OK, "%s",
                fg_rs_script_errmsg(s));
  ck_assert_int_eq(c.n_lines, 4);
  ck_assert_str_eq(c.lines[0], "fill n 5");
  ck_assert_str_eq(c.lines[1], "fill scale 1.500000");
  ck_assert_str_eq(c.lines[2], "fill vec {1.500000, 3.000000}");
  /* an int64_t (rsUptimeMillis's type) takes rs_debug.rsh's long long */
  ck_assert_str_eq(c.lines[3], "fill big 5000000000000");
  ck_assert_int_eq(c.n_msgs, 2);
  ck_assert_int_eq(c.ids[0], 7);
  ck_assert_int_eq((int)c.sizes[0], 8);
  ck_assert_int_eq(c.data[0][1], 5);
  int sum = c.data[0][0];
  /* eight draws in [0, 5) */
  ck_assert_msg(sum >= 0 && sum <= 32, "sum %d", sum);
  ck_assert_int_eq(c.ids[1], 8);
  ck_assert_int_eq((int)c.sizes[1], 0);
  /* the kernel sees offset; its rsDebug prints nothing */
  enum { N = 50 };
  int32_t in[N], out[N];
  for (int i = 0; i < N; i++)
    in[i] = i * 3 - 40;
  fg_graph *g = fg_graph_new("rt");
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_output(g, "y", fg_rs_map(g, s, "shifted", 1, &x, NULL));
  const void *ins[] = {in};
  void *outs[] = {out};
  tu_run(g, 1, ins, 1, outs);
  fg_graph_free(g);
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(out[i], in[i] + sum + 1000);
  ck_assert_int_eq(c.n_lines, 4);
  /* two calls draw different numbers (a sequence, not a constant) */
  int sums[6];
  for (int k = 0; k < 6; k++) {
    c.n_msgs = 0;
    ck_assert_int_eq(fg_rs_call(s, "fill", 1000, 1.0), FG_OK);
    sums[k] = c.data[0][0];
  }
  bool differ = false;
  for (int k = 1; k < 6; k++)
    differ |= sums[k] != sums[0];
  ck_assert(differ);
  fg_rs_script_free(s);
}
END_TEST

/* column-major 4x4 products as the runtime computes them: d = l * r */
static void mat_mul(float *d, const float *l, const float *r) {
  float t[16];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      float s = 0.f;
      for (int k = 0; k < 4; k++)
        s = s + l[k * 4 + j] * r[i * 4 + k];
      t[i * 4 + j] = s;
    }
  memcpy(d, t, sizeof t);
}

static void mat_identity(float *m) {
  for (int i = 0; i < 16; i++)
    m[i] = i % 5 == 0 ? 1.f : 0.f;
}

START_TEST(test_rs_kernel_using_rsmatrixmultiply) {
  enum { N = 64 };
  float in[N * 4], out[N * 4], back[N * 4];
  for (int i = 0; i < N * 4; i++)
    in[i] = (float)((i * 37) % 23) - 11.f + (i % 4 == 3 ? 12.f : 0.f);
  fg_rs_script *s = load("matrix.rs");
  ck_assert_msg(fg_rs_call(s, "setup", 3.0, -2.0, 1.5, 30.0) == FG_OK, "%s",
                fg_rs_script_errmsg(s));
  /* the same matrix in plain C */
  float m[16], t[16];
  mat_identity(m);
  m[12] = 3.f;
  m[13] = -2.f;
  mat_identity(t);
  t[0] = 1.5f;
  t[5] = 1.5f;
  mat_mul(m, m, t);
  float a = 30.f * (float)(3.14159265358979323846 / 180.0);
  float c = cosf(a), sn = sinf(a);
  mat_identity(t);
  t[0] = c;
  t[4] = -sn;
  t[1] = sn;
  t[5] = c;
  t[10] = 1.f;
  mat_mul(m, m, t);
  m[3 * 4 + 2] += 0.5f;
  fg_graph *g = fg_graph_new("mx");
  fg_field *v = fg_input(g, "v", fg_type_vector(FG_F32, fg_shape1(N), 4));
  fg_field *o = fg_rs_map(g, s, "transform", 1, &v, NULL);
  fg_output(g, "o", o);
  fg_output(g, "b", fg_rs_map(g, s, "untransform", 1, &o, NULL));
  const void *ins[] = {in};
  void *outs[] = {out, back};
  tu_run(g, 1, ins, 2, outs);
  fg_graph_free(g);
  for (int i = 0; i < N; i++) {
    const float *x = in + 4 * i;
    for (int r = 0; r < 4; r++) {
      float e = m[r] * x[0] + m[4 + r] * x[1] + m[8 + r] * x[2] +
                m[12 + r] * x[3];
      ck_assert_msg(out[4 * i + r] == e, "%d.%d: %g, expected %g", i, r,
                    out[4 * i + r], e);
      ck_assert_msg(fabsf(back[4 * i + r] - x[r]) <= 1e-4f * (1 + fabsf(x[r])),
                    "inverse at %d.%d: %g, expected %g", i, r,
                    back[4 * i + r], x[r]);
    }
  }
  fg_rs_script_free(s);
}
END_TEST

/* legacy_root.rs's filter, in plain C */
static void legacy_ref(int threshold, const uint8_t *in, uint8_t *out, int w,
                       int h) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t *p = in + 4 * (y * w + x);
      uint8_t *o = out + 4 * (y * w + x);
      uint8_t l = (uint8_t)((p[0] * 77 + p[1] * 151 + p[2] * 28) >> 8);
      if (l < threshold && ((x + y) & 1) == 0)
        l = (uint8_t)(255 - l);
      o[0] = l;
      o[1] = (uint8_t)((l + x) & 255);
      o[2] = (uint8_t)((l ^ y) & 255);
      o[3] = p[3];
    }
}

START_TEST(test_rs_legacy_root_filter) {
  enum { W = 301, H = 19, N = W * H, M = 1000 };
  uint8_t *in = pattern(W, H), *out = malloc(4 * N), *ref = malloc(4 * N);
  fg_rs_script *s = load("legacy_root.rs");
  map_rgba(s, "root", W, H, in, out);
  legacy_ref(100, in, ref, W, H);
  ck_assert_int_eq(memcmp(out, ref, 4 * N), 0);
  int t = 180;
  ck_assert_int_eq(fg_rs_set(s, "threshold", &t, sizeof t), FG_OK);
  map_rgba(s, "root", W, H, in, out);
  legacy_ref(180, in, ref, W, H);
  ck_assert_int_eq(memcmp(out, ref, 4 * N), 0);
  /* root is a kernel, not an invokable */
  ck_assert_int_eq(fg_rs_call(s, "root"), FG_ENOTSUP);
  fg_rs_script_free(s);
  /* a float4 root() with only its two pointers */
  s = load("legacy_root_f.rs");
  float *v = malloc(sizeof(float) * 4 * M), *o = malloc(sizeof(float) * 4 * M);
  for (int i = 0; i < 4 * M; i++)
    v[i] = (float)(i % 97) * 0.37f - 11.f;
  fg_graph *g = fg_graph_new("legacy");
  fg_field *x = fg_input(g, "v", fg_type_vector(FG_F32, fg_shape1(M), 4));
  fg_output(g, "o", fg_rs_map(g, s, "root", 1, &x, NULL));
  const void *ins[] = {v};
  void *outs[] = {o};
  tu_run(g, 1, ins, 1, outs);
  fg_graph_free(g);
  for (int i = 0; i < 4 * M; i++)
    ck_assert_msg(o[i] == v[i] * 0.5f + 1.5f, "at %d: %g", i, (double)o[i]);
  fg_rs_script_free(s);
  /* a root() whose parameters are no legacy kernel's is named when the
   * script loads (its warnings) and refused when launched; the script's
   * other kernels still run */
  char err[1024];
  const char *bad = "#pragma version(1)\n#pragma rs java_package_name(a)\n"
                    "void root(const uchar4 *in, float f) {}\n"
                    "uchar RS_KERNEL twice(uchar v) { return v * 2; }\n";
  s = NULL;
  ck_assert_msg(fg_rs_script_new_source("bad", "bad.rs", bad, strlen(bad),
                                        &s, err, sizeof err) == FG_OK,
                "%s", err);
  const char *w = fg_rs_script_warnings(s);
  ck_assert_msg(strstr(w, "bad.rs:3:") && strstr(w, "legacy kernel 'root'"),
                "%s", w);
  g = fg_graph_new("bad");
  x = fg_input(g, "v", fg_type_scalar(FG_U8, fg_shape1(8)));
  ck_assert_ptr_null(fg_rs_map(g, s, "root", 1, &x, NULL));
  ck_assert_int_eq(fg_graph_status(g), FG_ENOTSUP);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "bad.rs:3:") &&
                strstr(fg_graph_errmsg(g), "legacy kernel 'root'"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("good");
  x = fg_input(g, "v", fg_type_scalar(FG_U8, fg_shape1(8)));
  fg_output(g, "o", fg_rs_map(g, s, "twice", 1, &x, NULL));
  uint8_t b8[8], o8[8];
  for (int i = 0; i < 8; i++)
    b8[i] = (uint8_t)(i * 7);
  tu_run(g, 1, (const void *[]){b8}, 1, (void *[]){o8});
  for (int i = 0; i < 8; i++)
    ck_assert_int_eq(o8[i], (uint8_t)(b8[i] * 2));
  fg_graph_free(g);
  fg_rs_script_free(s);
  free(v);
  free(o);
  free(in);
  free(out);
  free(ref);
}
END_TEST

/* old_filter.rs's kernels, in plain C */
static uint8_t pack_c(float v) {
  v = v * 255.f + 0.5f;
  return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static void old_filter_ref(const uint8_t *in, int w, int h, uint8_t *root,
                           uint8_t *post, uint8_t *relief) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t *p = in + 4 * (y * w + x);
      const uint8_t *n = in + 4 * (y * w + (x + 1 < w ? x + 1 : w - 1));
      uint8_t *r = root + 4 * (y * w + x), *q = post + 4 * (y * w + x);
      uint8_t *e = relief + 4 * (y * w + x);
      for (int c = 0; c < 3; c++) {
        float f = p[c] * (1.0f / 255.0f) * 1.5f - 0.25f;
        r[c] = pack_c(f < 0.f ? 0.f : f > 1.f ? 1.f : f);
        e[c] = (uint8_t)((p[c] - n[c]) / 2 + 128);
      }
      r[3] = 255;
      e[3] = 255;
      const float step = 255.0f / 3;
      q[0] = (uint8_t)((float)(int)(p[0] / step + 0.5f) * step);
      q[1] = (uint8_t)(p[1] * 3 / 4 + 5);
      q[2] = p[2];
      q[3] = p[3];
    }
}

/* An ICS-era filter (tests/rs/old_filter.rs) loads and its kernels run:
 * root() and another legacy kernel, a neighbour read through the untyped
 * rsGetElementAt, const globals in constant expressions, a helper
 * assigning to its const parameter, `int a = 3,b = 5;`; its invokables
 * that launch root() with rsForEach(script, in, out, ...) run as graphs
 * (fg_rs_invoke), on allocation globals or parameters; pointer globals
 * read p[i], *(p + i) and (p + i)->m of the field bound to them; a global
 * array passed to a helper's pointer parameter (OpenCL).  What
 * cannot run (such an invokable on the host, a launch passing user
 * data) is refused at its line, in
 * the warnings at load and when launched or called; a legacy kernel
 * without output runs, to no visible effect. */
START_TEST(test_rs_old_filter_script_runs_what_it_can) {
  fg_rs_script *s = load("old_filter.rs");
  const char *w = fg_rs_script_warnings(s);
  ck_assert_msg(!strstr(w, "'tally'") && !strstr(w, "'count'") &&
                !strstr(w, "'blend'"), "%s", w);
  int32_t v = -1;
  ck_assert_int_eq(fg_rs_get(s, "gain", &v, sizeof v), FG_OK);
  ck_assert_int_eq(v, 3);
  ck_assert_int_eq(fg_rs_get(s, "bias", &v, sizeof v), FG_OK);
  ck_assert_int_eq(v, 5);
  ck_assert_uint_eq(fg_rs_global_size(s, "table"), 8 * sizeof(float));
  /* the invokable reaching the rs_script global */
  ck_assert_int_eq(fg_rs_call(s, "filter"), FG_ENOTSUP);
  const char *m = fg_rs_script_errmsg(s);
  ck_assert_msg(strstr(m, "old_filter.rs:30:") && strstr(m, "gScript") &&
                strstr(m, "rs_script"), "%s", m);
  /* the kernels */
  const int W = 13, H = 7;
  uint8_t *in = pattern(W, H);
  uint8_t *o[3], *ref[3];
  for (int k = 0; k < 3; k++) {
    o[k] = malloc((size_t)W * H * 4);
    ref[k] = malloc((size_t)W * H * 4);
  }
  old_filter_ref(in, W, H, ref[0], ref[1], ref[2]);
  fg_graph *g = fg_graph_new("old");
  fg_field *img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gIn", img), FG_OK);
  fg_output(g, "root", fg_rs_map(g, s, "root", 1, &img, NULL));
  fg_output(g, "post", fg_rs_map(g, s, "posterize", 1, &img, NULL));
  fg_output(g, "relief", fg_rs_map(g, s, "relief", 1, &img, NULL));
  /* the pointer global reads the field bound to it, in memory order */
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gPixels", img), FG_OK);
  fg_output(g, "blend", fg_rs_map(g, s, "blend", 1, &img, NULL));
  fg_output(g, "shifted", fg_rs_map(g, s, "shifted", 1, &img, NULL));
  fg_output(g, "tabled", fg_rs_map(g, s, "tabled", 1, &img, NULL));
  /* hits[x]++ through a pointer global, over one row (each x its own
   * element): a copy of the bound field, one more at each x */
  fg_graph *bad = fg_graph_new("tally");
  fg_field *bimg = fg_input(bad, "img", fg_type_image(FG_U8, 1, W, 4));
  fg_field *bh = fg_input(bad, "h", fg_type_scalar(FG_I32, fg_shape1(W)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "hits", bh), FG_OK);
  fg_output(bad, "row", fg_rs_map(bad, s, "tally", 1, &bimg, NULL));
  fg_output(bad, "hits", fg_rs_allocation_field(s, "hits"));
  int32_t h0[W], h1[W];
  uint8_t row[4 * W];
  for (int x = 0; x < W; x++)
    h0[x] = 5 * x - 9;
  tu_run(bad, 2, (const void *[]){in, h0}, 2, (void *[]){row, h1});
  fg_graph_free(bad);
  ck_assert_int_eq(memcmp(row, in, sizeof row), 0);
  for (int x = 0; x < W; x++)
    ck_assert_int_eq(h1[x], h0[x] + 1);
  bad = fg_graph_new("bad");
  bimg = fg_input(bad, "img", fg_type_image(FG_U8, H, W, 4));
  /* one without an output pointer runs, to no visible effect */
  ck_assert_ptr_nonnull(fg_rs_map(bad, s, "count", 1, &bimg, NULL));
  ck_assert_msg(fg_graph_status(bad) == FG_OK, "%s", fg_graph_errmsg(bad));
  fg_graph_free(bad);
  uint8_t *ob = malloc((size_t)W * H * 4), *os = malloc((size_t)W * H * 4);
  float *ot = malloc(sizeof(float) * W * H);
  tu_run(g, 1, (const void *[]){in}, 6,
         (void *[]){o[0], o[1], o[2], ob, os, ot});
  fg_graph_free(g);
  for (int i = 0; i < W * H; i++)
    ck_assert_msg(ot[i] == (float)((in[4 * i] & 3) * 10 + in[4 * i + 1]),
                  "tabled at %d: %g", i, (double)ot[i]);
  free(ot);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const uint8_t *p = in + 4 * (y * W + x), *q = in + 4 * x;
      const uint8_t *n = in + 4 * (x + 1), *b = ob + 4 * (y * W + x);
      const uint8_t *h = os + 4 * (y * W + x);
      for (int c = 0; c < 4; c++)
        ck_assert_msg(b[c] == p[c] / 2 + q[c] / 2, "blend (%d, %d): %d, "
                      "C %d", x, y, b[c], p[c] / 2 + q[c] / 2);
      ck_assert_msg(h[0] == q[1] && h[1] == n[2] && h[2] == p[2] &&
                    h[3] == 255, "shifted (%d, %d)", x, y);
    }
  free(ob);
  free(os);
  static const char *const names[3] = {"root", "posterize", "relief"};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < W * H * 4; i++)
      ck_assert_msg(abs(o[k][i] - ref[k][i]) <= (k == 0), "%s at %d: %d, "
                    "C %d", names[k], i, o[k][i], ref[k][i]);
  /* the invokables that launch root() the old way run as graphs: filter()
   * reads the bound gIn and writes gOut (its result); filterTo() takes
   * the script and its allocations as parameters */
  g = fg_graph_new("old");
  img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gIn", img), FG_OK);
  fg_field *r1 = NULL, *r2 = NULL;
  ck_assert_msg(fg_rs_invoke(g, s, "filter", 0, NULL, 1, &r1) == FG_OK, "%s",
                fg_graph_errmsg(g));
  ck_assert_msg(fg_rs_invoke(g, s, "filterTo", 1, &img, 1, &r2) == FG_OK,
                "%s", fg_graph_errmsg(g));
  fg_output(g, "filter", r1);
  fg_output(g, "filterTo", r2);
  tu_run(g, 1, (const void *[]){in}, 2, (void *[]){o[1], o[2]});
  fg_graph_free(g);
  for (int k = 1; k < 3; k++)
    for (int i = 0; i < W * H * 4; i++)
      ck_assert_msg(abs(o[k][i] - ref[0][i]) <= 1, "%s at %d: %d, C %d",
                    k == 1 ? "filter" : "filterTo", i, o[k][i], ref[0][i]);
  /* user data that root() does not read: the launch runs as without */
  g = fg_graph_new("usrData");
  img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gIn", img), FG_OK);
  ck_assert_msg(fg_rs_invoke(g, s, "withData", 0, NULL, 1, &r1) == FG_OK,
                "%s", fg_graph_errmsg(g));
  fg_output(g, "withData", r1);
  tu_run(g, 1, (const void *[]){in}, 1, (void *[]){o[1]});
  fg_graph_free(g);
  for (int i = 0; i < W * H * 4; i++)
    ck_assert_msg(abs(o[1][i] - ref[0][i]) <= 1, "withData at %d: %d, C %d",
                  i, o[1][i], ref[0][i]);
  for (int k = 0; k < 3; k++) {
    free(o[k]);
    free(ref[k]);
  }
  free(in);
  fg_rs_script_free(s);
}
END_TEST

/* NV21 (w x h, even) to RGBA as nv21.rs computes it, in plain C */
static int clamp255(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }
static void nv21_ref(const uint8_t *f, int w, int h, uint8_t *out) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t *vu = f + w * h + (y / 2) * w + (x / 2) * 2;
      int Y = f[y * w + x] - 16, V = vu[0] - 128, U = vu[1] - 128;
      uint8_t *o = out + 4 * (y * w + x);
      o[0] = (uint8_t)clamp255((Y * 298 + V * 409 + 128) >> 8);
      o[1] = (uint8_t)clamp255((Y * 298 - U * 100 - V * 208 + 128) >> 8);
      o[2] = (uint8_t)clamp255((Y * 298 + U * 516 + 128) >> 8);
      o[3] = 255;
    }
}

START_TEST(test_rs_nv21_to_rgba_with_the_yuv_getters) {
  enum { W = 64, H = 38, N = W * H, F = W * H * 3 / 2 };
  uint8_t *frame = pattern(F / 4 + 1, 1), *out = malloc(4 * N),
          *ref = malloc(4 * N);
  fg_rs_script *s = load("nv21.rs");
  fg_graph *g = fg_graph_new("nv21");
  fg_field *fr = fg_input(g, "frame", fg_type_scalar(FG_U8,
                                                     fg_shape2(H * 3 / 2, W)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gCurrentFrame", fr), FG_OK);
  fg_rs_launch opt = {0};
  opt.shape = fg_shape2(H, W);
  fg_field *rgba = fg_rs_map(g, s, "yuv2rgba", 0, NULL, &opt);
  ck_assert_msg(rgba != NULL, "%s", fg_graph_errmsg(g));
  fg_output(g, "rgba", rgba);
  /* the same through the runtime's rsYuvToRGBA_uchar4 */
  fg_field *rgba2 = fg_rs_map(g, s, "yuv2rgba_rt", 0, NULL, &opt);
  ck_assert_msg(rgba2 != NULL, "%s", fg_graph_errmsg(g));
  fg_output(g, "rgba2", rgba2);
  /* and rsYuvToRGBA_float4 */
  fg_field *rgbaf = fg_rs_map(g, s, "yuv2float", 0, NULL, &opt);
  ck_assert_msg(rgbaf != NULL, "%s", fg_graph_errmsg(g));
  fg_output(g, "rgbaf", rgbaf);
  uint8_t *out2 = malloc(4 * N);
  float *outf = malloc(4 * N * sizeof *outf);
  const void *ins[] = {frame};
  void *outs[] = {out, out2, outf};
  tu_run(g, 1, ins, 3, outs);
  fg_graph_free(g);
  nv21_ref(frame, W, H, ref);
  for (int i = 0; i < 4 * N; i++) {
    ck_assert_msg(out[i] == ref[i], "at pixel %d.%d: %d, expected %d", i / 4,
                  i % 4, out[i], ref[i]);
    ck_assert_msg(out2[i] == ref[i], "rsYuvToRGBA_uchar4 at pixel %d.%d: "
                  "%d, expected %d", i / 4, i % 4, out2[i], ref[i]);
  }
  /* Android's float formula: luma / 255 plus (u - 128) and (v - 128)
   * times its factors, clamped to [0, 1]; alpha the luma */
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const uint8_t *vu = frame + W * H + (y / 2) * W + (x / 2) * 2;
      double l = frame[y * W + x] / 255.0, V = vu[0] - 128.0,
             U = vu[1] - 128.0;
      double want[4] = {l + 1.603 / 255 * V,
                        l - 0.392 / 255 * U - 0.815 / 255 * V,
                        l + 2.02 / 255 * U, l};
      for (int c = 0; c < 4; c++) {
        double w = want[c] < 0 ? 0 : want[c] > 1 ? 1 : want[c];
        float got = outf[4 * (y * W + x) + c];
        ck_assert_msg(fabs(got - w) < 1e-5, "rsYuvToRGBA_float4 at (%d, "
                      "%d).%d: %g, expected %g", x, y, c, (double)got, w);
      }
    }
  free(outf);
  free(out2);
  /* an odd width: the last column's U has no byte of its own; it reads
   * the buffer's last (never past it: check-asan watches) */
  {
    enum { w = 5, h = 4, n = w * h * 3 / 2 };
    uint8_t odd[n], o[4 * w * h], r[4 * w * h];
    for (int i = 0; i < n; i++)
      odd[i] = (uint8_t)(37 * i + 11);
    fg_graph *go = fg_graph_new("nv21 odd");
    fg_field *fo = fg_input(go, "frame", fg_type_scalar(FG_U8,
                                                        fg_shape2(h * 3 / 2, w)));
    ck_assert_int_eq(fg_rs_bind_allocation(s, "gCurrentFrame", fo), FG_OK);
    fg_rs_launch oo = {.shape = fg_shape2(h, w)};
    fg_output(go, "rgba", fg_rs_map(go, s, "yuv2rgba_rt", 0, NULL, &oo));
    tu_run(go, 1, (const void *[]){odd}, 1, (void *[]){o});
    fg_graph_free(go);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        int v = w * h + (y / 2) * w + (x & ~1), u = v + 1 < n ? v + 1 : n - 1;
        int Y = odd[y * w + x] - 16, V = odd[v] - 128, U = odd[u] - 128;
        uint8_t *q = r + 4 * (y * w + x);
        q[0] = (uint8_t)clamp255((Y * 298 + V * 409 + 128) >> 8);
        q[1] = (uint8_t)clamp255((Y * 298 - U * 100 - V * 208 + 128) >> 8);
        q[2] = (uint8_t)clamp255((Y * 298 + U * 516 + 128) >> 8);
        q[3] = 255;
      }
    ck_assert_int_eq(memcmp(o, r, sizeof o), 0);
  }
  /* a frame bound as anything but h * 3 / 2 rows of uchar is refused at
   * the getter's line */
  g = fg_graph_new("nv21 bad");
  fr = fg_input(g, "frame", fg_type_scalar(FG_U8, fg_shape2(H, W)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gCurrentFrame", fr), FG_OK);
  ck_assert(fg_rs_map(g, s, "yuv2rgba", 0, NULL, &opt) == NULL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "nv21.rs:14:") &&
                strstr(fg_graph_errmsg(g), "NV21"), "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
  free(frame);
  free(out);
  free(ref);
}
END_TEST

/* Android's rsSample of a w x h RGBA image at (u, v), clamped: filter 1
 * bilinear, 0 nearest (rs_sample.c's arithmetic, in plain C) */
static int wrap_clamp(int c, int n) { return c < 0 ? 0 : c > n - 1 ? n - 1 : c; }
static void sample_ref(const uint8_t *img, int w, int h, int filter, float u,
                       float v, float *r) {
  float px = u * (float)w, py = v * (float)h;
  int ix = (int)px, iy = (int)py;
  if (filter == 0) {
    const uint8_t *p = img + 4 * (wrap_clamp(iy, h) * w + wrap_clamp(ix, w));
    for (int c = 0; c < 4; c++)
      r[c] = (float)p[c] * 0.003921569f;
    return;
  }
  float fx = px - (float)ix, fy = py - (float)iy;
  if (fx < 0.5f) { ix -= 1; fx += 0.5f; } else { fx -= 0.5f; }
  if (fy < 0.5f) { iy -= 1; fy += 0.5f; } else { fy -= 0.5f; }
  float gx = 1.0f - fx, gy = 1.0f - fy;
  int x0 = wrap_clamp(ix, w), x1 = wrap_clamp(ix + 1, w);
  int y0 = wrap_clamp(iy, h), y1 = wrap_clamp(iy + 1, h);
  for (int c = 0; c < 4; c++) {
    float s = (float)img[4 * (y0 * w + x0) + c] * (gx * gy);
    s = s + (float)img[4 * (y0 * w + x1) + c] * (fx * gy);
    s = s + (float)img[4 * (y1 * w + x0) + c] * (gx * fy);
    s = s + (float)img[4 * (y1 * w + x1) + c] * (fx * fy);
    r[c] = s * 0.003921569f;
  }
}

START_TEST(test_rs_bilinear_rssample) {
  enum { W = 23, H = 17, OW = 61, OH = 40, ON = OW * OH };
  uint8_t *img = pattern(W, H);
  float *out = malloc(sizeof(float) * 4 * ON);
  fg_rs_script *s = load("sample.rs");
  int ow = OW, oh = OH;
  ck_assert_int_eq(fg_rs_set(s, "gOutWidth", &ow, sizeof ow), FG_OK);
  ck_assert_int_eq(fg_rs_set(s, "gOutHeight", &oh, sizeof oh), FG_OK);
  for (int filter = 1; filter >= 0; filter--) {
    fg_rs_sampler smp = {filter, filter, FG_RS_SAMPLER_CLAMP,
                         FG_RS_SAMPLER_CLAMP};
    ck_assert_int_eq(fg_rs_set(s, "gSampler", &smp, sizeof smp), FG_OK);
    fg_graph *g = fg_graph_new("sample");
    fg_field *in = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
    ck_assert_int_eq(fg_rs_bind_allocation(s, "gIn", in), FG_OK);
    fg_rs_launch opt = {0};
    opt.shape = fg_shape2(OH, OW);
    fg_field *o = fg_rs_map(g, s, "resample", 0, NULL, &opt);
    ck_assert_msg(o != NULL, "%s", fg_graph_errmsg(g));
    fg_output(g, "out", o);
    const void *ins[] = {img};
    void *outs[] = {out};
    tu_run(g, 1, ins, 1, outs);
    fg_graph_free(g);
    double worst = 0;
    for (int y = 0; y < OH; y++)
      for (int x = 0; x < OW; x++) {
        float u = ((float)x + 0.5f) / (float)OW * 1.25f - 0.125f;
        float v = ((float)y + 0.5f) / (float)OH * 1.25f - 0.125f;
        float r[4];
        sample_ref(img, W, H, filter, u, v, r);
        for (int c = 0; c < 4; c++) {
          double d = fabs((double)out[4 * (y * OW + x) + c] - (double)r[c]);
          worst = d > worst ? d : worst;
        }
      }
    ck_assert_msg(worst <= 1e-6, "filter %d: off by %g", filter, worst);
  }
  /* rsSample of an Allocation that is no RGBA image is refused at its
   * line */
  fg_graph *g = fg_graph_new("sample bad");
  fg_field *in = fg_input(g, "img", fg_type_image(FG_U8, H, W, 3));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gIn", in), FG_OK);
  fg_rs_launch opt = {0};
  opt.shape = fg_shape2(OH, OW);
  ck_assert(fg_rs_map(g, s, "resample", 0, NULL, &opt) == NULL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "sample.rs:16:") &&
                strstr(fg_graph_errmsg(g), "uchar4"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
  free(img);
  free(out);
}
END_TEST

START_TEST(test_rs_histogram_with_atomics) {
  enum { W = 40, H = 9, N = W * H };
  fg_rs_script *s = load("atomic_hist.rs");
  uint8_t *in = pattern(W, H), out[N];
  int32_t h0[256], m0[256], hist[256], mx[256];
  for (int i = 0; i < 256; i++) {
    h0[i] = i % 3;              /* the counts add to what the field held */
    m0[i] = -1;
  }
  fg_graph *g = fg_graph_new("hist");
  fg_field *img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  fg_field *hf = fg_input(g, "h0", fg_type_scalar(FG_I32, fg_shape1(256)));
  fg_field *mf = fg_input(g, "m0", fg_type_scalar(FG_I32, fg_shape1(256)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gHist", hf), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gMax", mf), FG_OK);
  fg_field *counted = fg_rs_map(g, s, "count", 1, &img, NULL);
  fg_field *maxed = fg_rs_map(g, s, "maxima", 1, &img, NULL);
  ck_assert_msg(counted && maxed, "%s", fg_graph_errmsg(g));
  ck_assert_ptr_eq(fg_rs_allocation_field(s, "gHist"), counted);
  fg_output(g, "hist", counted);
  fg_output(g, "max", maxed);
  fg_output(g, "l", fg_rs_map(g, s, "luma", 1, &img, NULL));
  const void *ins[] = {in, h0, m0};
  void *outs[] = {hist, mx, out};
  tu_run(g, 3, ins, 3, outs);
  fg_graph_free(g);
  int32_t want[256], wmax[256];
  memcpy(want, h0, sizeof want);
  memcpy(wmax, m0, sizeof wmax);
  for (int i = 0; i < N; i++) {
    const uint8_t *p = in + 4 * i;
    int l = (p[0] * 77 + p[1] * 151 + p[2] * 28) >> 8;
    want[l]++;
    if (p[0] > wmax[p[1]])
      wmax[p[1]] = p[0];
    ck_assert_int_eq(out[i], l);
  }
  for (int i = 0; i < 256; i++) {
    ck_assert_msg(hist[i] == want[i], "bin %d: %d, want %d", i, hist[i],
                  want[i]);
    ck_assert_msg(mx[i] == wmax[i], "max %d: %d, want %d", i, mx[i],
                  wmax[i]);
  }
  /* an atomic on the script's global array: a later kernel reads what
   * the launch left */
  g = fg_graph_new("global");
  img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  ck_assert_ptr_nonnull(fg_rs_map(g, s, "countGlobal", 1, &img, NULL));
  fg_rs_launch l256 = {.shape = fg_shape1(256)};
  fg_output(g, "tally", fg_rs_map(g, s, "readTally", 0, NULL, &l256));
  tu_run(g, 1, (const void *[]){in}, 1, (void *[]){hist});
  fg_graph_free(g);
  memset(want, 0, sizeof want);
  for (int i = 0; i < N; i++)
    want[in[4 * i]]++;
  for (int i = 0; i < 256; i++)
    ck_assert_int_eq(hist[i], want[i]);
  /* an atomic on a float global: refused at its line */
  g = fg_graph_new("fglobal");
  img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  ck_assert(fg_rs_map(g, s, "countFloat", 1, &img, NULL) == NULL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "atomic_hist.rs:39:5:") &&
                strstr(fg_graph_errmsg(g), "rsAtomicInc updates float of "
                       "global 'ftally' (expected an int or a uint)"),
                "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  /* a histogram bound to floats is refused, naming the field's type */
  g = fg_graph_new("float");
  img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  hf = fg_input(g, "h", fg_type_scalar(FG_F32, fg_shape1(256)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gHist", hf), FG_OK);
  ck_assert(fg_rs_map(g, s, "count", 1, &img, NULL) == NULL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "expected i32 or u32"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
  free(in);
}
END_TEST

/* Kernels that set elements of bound allocations (tests/rs/set_element.rs):
 * each launch makes a copy of the allocation's field with its writes, and
 * later launches (and fg_rs_allocation_field) see the copy; writes
 * outside the allocation are skipped. */
START_TEST(test_rs_set_element_makes_a_new_field) {
  enum { W = 23, H = 7, N = W * H };
  fg_rs_script *s = load("set_element.rs");
  uint8_t *in = pattern(W, H), *base = pattern(H, W);
  uint8_t g0[N];
  for (int i = 0; i < N; i++)
    g0[i] = (uint8_t)(i * 7);
  fg_graph *g = fg_graph_new("set");
  fg_field *img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  fg_field *b = fg_input(g, "base", fg_type_image(FG_U8, H, W, 4));
  fg_field *gb = fg_input(g, "grey0", fg_type_image(FG_U8, H, W, 1));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gOut", b), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gGrey", gb), FG_OK);
  fg_field *m = fg_rs_map(g, s, "mirror", 1, &img, NULL);
  ck_assert_msg(m != NULL, "%s", fg_graph_errmsg(g));
  ck_assert_ptr_eq(fg_rs_allocation_field(s, "gOut"), m);
  fg_field *gr = fg_rs_map(g, s, "grey", 1, &img, NULL);
  fg_field *ev = fg_rs_map(g, s, "evens", 1, &img, NULL);
  fg_field *after = fg_rs_allocation_field(s, "gOut");
  fg_rs_launch opt = {.shape = fg_shape2(H, W)};
  fg_field *rb = fg_rs_map(g, s, "readBack", 0, NULL, &opt);
  ck_assert_msg(gr && ev && after && rb, "%s", fg_graph_errmsg(g));
  ck_assert_ptr_ne(after, m);
  fg_output(g, "m", m);
  fg_output(g, "gr", gr);
  fg_output(g, "ev", ev);
  fg_output(g, "after", after);
  fg_output(g, "rb", rb);
  uint8_t om[N * 4], ogr[N], oaf[N * 4], orb[N * 4];
  int32_t oev[N];
  const void *ins[] = {in, base, g0};
  void *outs[] = {om, ogr, oev, oaf, orb};
  tu_run(g, 3, ins, 5, outs);
  fg_graph_free(g);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int i = y * W + x, j = y * W + (W - 1 - x);
      const uint8_t *p = in + 4 * i;
      for (int c = 0; c < 4; c++) {
        /* mirror: every point written, with the channels reversed */
        ck_assert_int_eq(om[4 * j + c], p[3 - c]);
        /* evens: even columns take the input, odd keep the mirror */
        uint8_t want = x % 2 == 0 ? p[c] : om[4 * i + c];
        ck_assert_int_eq(oaf[4 * i + c], want);
        ck_assert_int_eq(orb[4 * i + c], want);
      }
      ck_assert_int_eq(ogr[i], (p[0] + p[1] + p[2]) / 3);
      ck_assert_int_eq(oev[i], p[0] + x);
    }
  /* a kernel that returns void and sets nothing runs, to no effect
   * (check_rs_lang); one that writes an unbound allocation names it */
  fg_rs_script *t = NULL;
  char err[1024];
  ck_assert_int_eq(fg_rs_script_new_source("t", "t.rs",
      "#pragma version(1)\n#pragma rs java_package_name(t)\n"
      "rs_allocation a;\nint n;\n"
      "void RS_KERNEL nothing(uchar4 in) { uchar c = in.x; (void)c; }\n"
      "void RS_KERNEL set(uchar4 in, uint32_t x) {\n"
      "  rsSetElementAt_uchar4(a, in, x, 0);\n}\n", (size_t)-1, &t, err,
      sizeof err), FG_OK);
  g = fg_graph_new("bad");
  img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  ck_assert(fg_rs_map(g, t, "nothing", 1, &img, NULL) != NULL);
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("bad2");
  img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  ck_assert(fg_rs_map(g, t, "set", 1, &img, NULL) == NULL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "rs_allocation 'a', which is "
                       "not bound"), "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(t);
  fg_rs_script_free(s);
  free(in);
  free(base);
}
END_TEST

/* rsRand in kernels, as Android's grain filter calls it: each point's
 * sequence is mulberry32 seeded by a hash of the point's coordinates (the
 * documented scheme, written again here), the same on every run. */
static uint32_t seed_ref(uint32_t x, uint32_t y, uint32_t z) {
  uint32_t h = x * 0x9E3779B1u ^ (y + 0x7F4A7C15u) * 0x85EBCA77u ^
               (z + 0x165667B1u) * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  return h ^ (h >> 15);
}

static uint32_t next_ref(uint32_t *s) {
  uint32_t t = *s += 0x6D2B79F5u;
  t = (t ^ (t >> 15)) * (t | 1u);
  t ^= t + (t ^ (t >> 7)) * (t | 61u);
  return t ^ (t >> 14);
}

START_TEST(test_rs_rand_in_kernels) {
  enum { W = 64, H = 48, N = W * H };
  fg_rs_script *s = NULL;
  char err[1024];
  ck_assert_int_eq(fg_rs_script_new_source("grain", "grain.rs",
      "#pragma version(1)\n#pragma rs java_package_name(t)\n"
      "uchar __attribute__((kernel)) genRand() {\n"
      "    return (uchar)rsRand(0xff);\n}\n"
      "static int two(void) { return rsRand(10, 20); }\n"
      "int RS_KERNEL pair(uint32_t x) { int a = rsRand(7); return a * 100 + "
      "two(); }\n"
      "float RS_KERNEL unit(uint32_t x, uint32_t y) { return rsRand(2.0f, "
      "3.0f); }\n", (size_t)-1, &s, err, sizeof err), FG_OK);
  uint8_t g1[N], g2[N];
  int32_t pr[N];
  float un[N];
  for (int run = 0; run < 2; run++) {
    fg_graph *g = fg_graph_new("rand");
    fg_rs_launch o2 = {.shape = fg_shape2(H, W)}, o1 = {.shape = fg_shape1(N)};
    fg_output(g, "g", fg_rs_map(g, s, "genRand", 0, NULL, &o2));
    fg_output(g, "p", fg_rs_map(g, s, "pair", 0, NULL, &o1));
    fg_output(g, "u", fg_rs_map(g, s, "unit", 0, NULL, &o2));
    ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
    void *outs[] = {run ? g2 : g1, pr, un};
    tu_run(g, 0, NULL, 3, outs);
    fg_graph_free(g);
  }
  ck_assert_int_eq(memcmp(g1, g2, N), 0);
  double mean = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int i = y * W + x;
      uint32_t st = seed_ref((uint32_t)x, (uint32_t)y, 0);
      ck_assert_int_eq(g1[i], next_ref(&st) % 255u);
      mean += g1[i];
      st = seed_ref((uint32_t)x, (uint32_t)y, 0);
      float want = 2.0f + (float)(next_ref(&st) >> 8) * (1.f / 16777216.f) *
                   1.0f;
      ck_assert_msg(un[i] == want && un[i] >= 2.0f && un[i] < 3.0f,
                    "unit at %d: %g, want %g", i, (double)un[i],
                    (double)want);
    }
  for (int i = 0; i < N; i++) {
    uint32_t st = seed_ref((uint32_t)i, 0, 0);
    int a = (int)(next_ref(&st) % 7u);
    int b = 10 + (int)(next_ref(&st) % 10u);
    ck_assert_int_eq(pr[i], a * 100 + b);
  }
  mean /= N;
  ck_assert_msg(mean > 120 && mean < 134, "mean %g", mean);
  fg_rs_script_free(s);
}
END_TEST

/* Invokables that loop over their allocations (tests/rs/loops.rs) run
 * whole as one thread: the written allocation is a copy with the writes,
 * a later step reading what an earlier one wrote. */
START_TEST(test_rs_invokable_loops_over_allocations) {
  enum { W = 13, H = 6, N = 50 };
  fg_rs_script *s = load("loops.rs");
  uint8_t *src = pattern(W, H);     /* W * H * 4 bytes; the first W * H */
  int32_t lut[8], d0[W * H], mir[W * H], a0[N], sum[N];
  for (int i = 0; i < 8; i++)
    lut[i] = 3 * i - 5;
  for (int i = 0; i < W * H; i++)
    d0[i] = 1000 + i;
  for (int i = 0; i < N; i++)
    a0[i] = (i * 37) % 11 - 5;
  fg_graph *g = fg_graph_new("loops");
  fg_field *fs = fg_input(g, "src", fg_type_scalar(FG_U8, fg_shape2(H, W)));
  fg_field *fd = fg_input(g, "dst", fg_type_scalar(FG_I32, fg_shape2(H, W)));
  fg_field *fl = fg_input(g, "lut", fg_type_scalar(FG_I32, fg_shape1(8)));
  fg_field *fa = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape1(N)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gLut", fl), FG_OK);
  fg_field *r[1];
  ck_assert_msg(fg_rs_invoke(g, s, "mirrorScaled", 2, (fg_field *[]){fs, fd},
                             1, r) == FG_OK, "%s", fg_graph_errmsg(g));
  fg_output(g, "mir", r[0]);
  ck_assert_msg(fg_rs_invoke(g, s, "prefix", 1, &fa, 1, r) == FG_OK, "%s",
                fg_graph_errmsg(g));
  fg_output(g, "sum", r[0]);
  const void *ins[] = {src, d0, lut, a0};
  void *outs[] = {mir, sum};
  tu_run(g, 4, ins, 2, outs);
  fg_graph_free(g);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int v = src[y * W + x];
      ck_assert_int_eq(mir[(H - 1 - y) * W + (W - 1 - x)], v * lut[v & 7]);
    }
  int run = 0;
  for (int i = 0; i < N; i++) {
    run += a0[i];
    ck_assert_int_eq(sum[i], run);
  }
  /* one that writes no allocation is refused at its line */
  g = fg_graph_new("nothing");
  fa = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape1(N)));
  ck_assert_int_eq(fg_rs_invoke(g, s, "nothing", 1, &fa, 1, r), FG_ENOTSUP);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "loops.rs:30:6:") &&
                strstr(fg_graph_errmsg(g), "launches no kernel and sets no "
                       "element"), "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
  free(src);
}
END_TEST

/* Invokables that launch no kernel and take int and float parameters
 * (invoke_values.rs): fg_rs_invoke_args runs each as one thread with the
 * values, which reach a helper writing a pointer global's elements and
 * the body writing an allocation parameter; fg_rs_invoke without values
 * refuses them naming the parameter.  Before, every such parameter was
 * refused ("takes named rs_allocation parameters only"). */
START_TEST(test_rs_invokable_one_thread_with_values) {
  enum { N = 12, M = 9 };
  fg_rs_script *s = load("invoke_values.rs");
  fg_graph *g = fg_graph_new("values");
  fg_field *fo = fg_input(g, "offsets", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_field *ft = fg_input(g, "table", fg_type_scalar(FG_F32, fg_shape1(M)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "offsets", fo), FG_OK);
  fg_field *r[2] = {0};
  ck_assert_int_eq(fg_rs_invoke(g, s, "setOffsets", 0, NULL, 1, r),
                   FG_EINVAL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "invoke_values.rs:22:21: "
                       "fg_rs_invoke 'invoke_values.setOffsets': parameter "
                       "w of 'setOffsets' is int; pass its value with "
                       "fg_rs_invoke_args") != NULL, "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("values");
  fo = fg_input(g, "offsets", fg_type_scalar(FG_I32, fg_shape1(N)));
  ft = fg_input(g, "table", fg_type_scalar(FG_F32, fg_shape1(M)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "offsets", fo), FG_OK);
  int32_t w = 7, n = N - 2, bias = -3;
  float scale = 0.75f, tscale = 1.5f;
  ck_assert_msg(fg_rs_invoke_args(g, s, "setOffsets",
                                  (const void *[]){&w, &n, &scale}, 0, NULL,
                                  1, &r[0]) == FG_OK, "%s",
                fg_graph_errmsg(g));
  ck_assert_msg(fg_rs_invoke_args(g, s, "ramp",
                                  (const void *[]){NULL, &tscale, &bias}, 1,
                                  &ft, 1, &r[1]) == FG_OK, "%s",
                fg_graph_errmsg(g));
  fg_output(g, "offsets_out", r[0]);
  fg_output(g, "table_out", r[1]);
  /* hello.rs: *result = a + b, and rsDebug given the pointer (which was
   * refused as a use of the pointer fieldgraph does not make) */
  fg_field *fr = fg_input(g, "result", fg_type_scalar(FG_I32, fg_shape1(1)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "result", fr), FG_OK);
  int32_t a = 40, b = -7, sum0 = 0, sum = 0;
  fg_field *rs = NULL;
  ck_assert_msg(fg_rs_invoke_args(g, s, "hello", (const void *[]){&a, &b},
                                  0, NULL, 1, &rs) == FG_OK, "%s",
                fg_graph_errmsg(g));
  fg_output(g, "sum", rs);
  int32_t o0[N], o[N];
  float t0[M], t[M];
  for (int i = 0; i < N; i++)
    o0[i] = -100 - i;
  for (int i = 0; i < M; i++)
    t0[i] = 99.f;
  tu_run(g, 3, (const void *[]){o0, t0, &sum0}, 3, (void *[]){o, t, &sum});
  fg_graph_free(g);
  ck_assert_int_eq(sum, a + b);
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(o[i], i < n ? i * w + (int)(scale * (float)i) : o0[i]);
  for (int i = 0; i < M; i++)
    ck_assert_msg(t[i] == tscale * (float)i + (float)bias, "%d: %g", i,
                  (double)t[i]);
  fg_rs_script_free(s);
}
END_TEST

/* As prepare_converter then convert (ARGBToNV12.rs): a one-thread
 * invokable sets static globals from its parameters and fills a pointer
 * global's rows, and the kernel launched after it in the graph reads
 * both; one that sets only a global (setGain) takes no result slot and
 * the kernel after it scales by the value.  Writing a global from a
 * one-thread invokable was refused ("which fieldgraph does not run"). */
START_TEST(test_rs_invokable_one_thread_sets_globals_for_a_kernel) {
  enum { W = 5, H = 4, DW = 9, DH = 7 };
  fg_rs_script *s = load("invoke_values.rs");
  fg_graph *g = fg_graph_new("prepare");
  fg_field *img = fg_input(g, "img", fg_type_scalar(FG_U8, fg_shape2(H, W)));
  fg_field *fo = fg_input(g, "offsets",
                          fg_type_scalar(FG_I32, fg_shape1(DH)));
  fg_field *fd = fg_input(g, "dst",
                          fg_type_scalar(FG_U8, fg_shape1(DW * DH)));
  fg_field *fa = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(W)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "offsets", fo), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "dst", fd), FG_OK);
  int32_t pw = DW, ph = 4, left = 2, top = 1;
  fg_field *rows = NULL;
  ck_assert_msg(fg_rs_invoke_args(g, s, "prepare",
                                  (const void *[]){&pw, &ph, &left, &top},
                                  0, NULL, 1, &rows) == FG_OK, "%s",
                fg_graph_errmsg(g));
  fg_field *placed = fg_rs_map(g, s, "place", 1, &img, NULL);
  fg_output(g, "dst_out", placed);
  fg_output(g, "rows", rows);
  float gv = 2.5f;
  bool neg = true;
  fg_field *none = NULL;
  ck_assert_msg(fg_rs_invoke_args(g, s, "setGain",
                                  (const void *[]){&gv, &neg}, 0, NULL, 0,
                                  &none) == FG_OK, "%s", fg_graph_errmsg(g));
  fg_output(g, "scaled", fg_rs_map(g, s, "scale", 1, &fa, NULL));
  uint8_t in[H * W], d0[DW * DH], d[DW * DH];
  int32_t o0[DH], o[DH];
  float a[W], sc[W];
  for (int i = 0; i < H * W; i++)
    in[i] = (uint8_t)(i * 11 + 3);
  for (int i = 0; i < DW * DH; i++)
    d0[i] = (uint8_t)(200 + i % 50);
  for (int i = 0; i < DH; i++)
    o0[i] = 5000 + i;
  for (int i = 0; i < W; i++)
    a[i] = 0.5f * (float)i - 1.f;
  tu_run(g, 4, (const void *[]){in, o0, d0, a}, 3,
         (void *[]){d, o, sc});
  fg_graph_free(g);
  uint8_t want[DW * DH];
  memcpy(want, d0, sizeof want);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      if (y + top < ph && x + left < pw)
        want[(y + top) * pw + x + left] = (uint8_t)(in[y * W + x] + left);
  for (int i = 0; i < DW * DH; i++)
    ck_assert_msg(d[i] == want[i], "dst %d: %d, want %d", i, d[i], want[i]);
  for (int i = 0; i < DH; i++)
    ck_assert_int_eq(o[i], i < ph ? i * pw : o0[i]);
  for (int i = 0; i < W; i++)
    ck_assert_msg(sc[i] == a[i] * -gv, "%d: %g", i, (double)sc[i]);
  /* a result slot for an invokable that writes only globals */
  g = fg_graph_new("gain");
  fg_field *one = NULL;
  ck_assert_int_eq(fg_rs_invoke_args(g, s, "setGain",
                                     (const void *[]){&gv, &neg}, 0, NULL,
                                     1, &one), FG_EINVAL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "runs as one thread and writes "
                       "no allocation (only globals); got 1 result slot(s)"),
                "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* Vector, bool and long parameters of a one-thread invokable
 * (invoke_values.rs paint): float3 passed as 4 floats, int2, bool, uchar4
 * and long, each as the script reads it. */
START_TEST(test_rs_invokable_one_thread_vector_and_bool_values) {
  enum { N = 6 };
  fg_rs_script *s = load("invoke_values.rs");
  fg_graph *g = fg_graph_new("paint");
  fg_field *fi = fg_input(g, "img", fg_type_vector(FG_F32, fg_shape1(N), 4));
  float tint[4] = {0.5f, -1.f, 2.f, 0.f};
  int32_t at[2] = {3, 7};
  bool flip = true;
  uint8_t base[4] = {10, 20, 30, 40};
  int64_t big = ((int64_t)5 << 32) + 9;
  fg_field *r = NULL;
  ck_assert_int_eq(fg_rs_invoke(g, s, "paint", 1, &fi, 1, &r), FG_EINVAL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "parameter tint of 'paint' is "
                       "float3; pass its value with fg_rs_invoke_args"),
                "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("paint");
  fi = fg_input(g, "img", fg_type_vector(FG_F32, fg_shape1(N), 4));
  ck_assert_msg(fg_rs_invoke_args(g, s, "paint",
                                  (const void *[]){NULL, tint, at, &flip,
                                                   base, &big},
                                  1, &fi, 1, &r) == FG_OK, "%s",
                fg_graph_errmsg(g));
  fg_output(g, "img_out", r);
  float i0[N * 4] = {0}, o[N * 4];
  tu_run(g, 1, (const void *[]){i0}, 1, (void *[]){o});
  fg_graph_free(g);
  for (int i = 0; i < N; i++)
    for (int c = 0; c < 4; c++) {
      float v = -(float)base[c];
      if (c < 3)
        v += tint[c] * (float)(i + at[0]);
      else
        v += (float)at[1] + (float)(big >> 32);
      ck_assert_msg(o[i * 4 + c] == v, "(%d, %d): %g, want %g", i, c,
                    (double)o[i * 4 + c], (double)v);
    }
  fg_rs_script_free(s);
}
END_TEST

/* invoke_values.rs calibrate: a one-thread invokable that sets elements
 * of a parameter and of two pointer globals and also writes a global:
 * three results, the parameter's copy first, then the globals' in the
 * order they are declared (offsets, dst; not the order the body writes
 * them), and the kernel after it scales by the global it set.  The two
 * branches that ran invokables this way kept one written allocation with
 * the globals, or several allocations without them. */
START_TEST(test_rs_invokable_one_thread_writes_allocations_and_globals) {
  enum { N = 8, M = 10, W = 5 };
  fg_rs_script *s = load("invoke_values.rs");
  float gv = 0.5f;
  int32_t n = N - 2;
  for (int slots = 2; slots <= 3; slots++) {
    fg_graph *g = fg_graph_new("calibrate");
    fg_field *fl = fg_input(g, "lut", fg_type_scalar(FG_F32, fg_shape1(M)));
    fg_field *fo = fg_input(g, "offsets",
                            fg_type_scalar(FG_I32, fg_shape1(N)));
    fg_field *fd = fg_input(g, "dst", fg_type_scalar(FG_U8, fg_shape1(N)));
    fg_field *fa = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(W)));
    ck_assert_int_eq(fg_rs_bind_allocation(s, "offsets", fo), FG_OK);
    ck_assert_int_eq(fg_rs_bind_allocation(s, "dst", fd), FG_OK);
    fg_field *r[3] = {0};
    fg_status st = fg_rs_invoke_args(g, s, "calibrate",
                                     (const void *[]){NULL, &gv, &n}, 1, &fl,
                                     slots, r);
    if (slots == 2) {
      ck_assert_int_eq(st, FG_EINVAL);
      ck_assert_msg(strstr(fg_graph_errmsg(g), "'calibrate' runs as one "
                           "thread and writes 3 allocation(s); got 2 result "
                           "slot(s)"), "%s", fg_graph_errmsg(g));
      fg_graph_free(g);
      continue;
    }
    ck_assert_msg(st == FG_OK, "%s", fg_graph_errmsg(g));
    ck_assert_ptr_eq(r[1], fg_rs_allocation_field(s, "offsets"));
    ck_assert_ptr_eq(r[2], fg_rs_allocation_field(s, "dst"));
    fg_output(g, "lut_out", r[0]);
    fg_output(g, "offsets_out", r[1]);
    fg_output(g, "dst_out", r[2]);
    fg_output(g, "scaled", fg_rs_map(g, s, "scale", 1, &fa, NULL));
    float l0[M], l[M], a[W], sc[W];
    int32_t o0[N], o[N];
    uint8_t d0[N], d[N];
    for (int i = 0; i < M; i++)
      l0[i] = -7.f;
    for (int i = 0; i < N; i++) {
      o0[i] = 100 + i;
      d0[i] = (uint8_t)(250 - i);
    }
    for (int i = 0; i < W; i++)
      a[i] = 1.5f * (float)i - 2.f;
    tu_run(g, 4, (const void *[]){l0, o0, d0, a}, 4,
           (void *[]){l, o, d, sc});
    fg_graph_free(g);
    for (int i = 0; i < M; i++)
      ck_assert_msg(l[i] == (i < n ? gv * (float)i : l0[i]), "lut %d: %g",
                    i, (double)l[i]);
    for (int i = 0; i < N; i++) {
      ck_assert_int_eq(o[i], i < n ? -i : o0[i]);
      ck_assert_int_eq(d[i], i < n ? 3 * i + 1 : d0[i]);
    }
    for (int i = 0; i < W; i++)
      ck_assert_msg(sc[i] == a[i] * (gv + 1.f), "%d: %g", i, (double)sc[i]);
  }
  fg_rs_script_free(s);
}
END_TEST

int main(void) {
  Suite *s = suite_create("rs_runtime");
  TCase *tc = tcase_create("runtime");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_rs_invokable_sets_a_colour_matrix_before_a_kernel);
  tcase_add_test(tc, test_rs_init_that_cannot_run_is_named_at_load);
  tcase_add_test(tc, test_rs_debug_messages_and_rand_in_invokables);
  tcase_add_test(tc, test_rs_kernel_using_rsmatrixmultiply);
  tcase_add_test(tc, test_rs_legacy_root_filter);
  tcase_add_test(tc, test_rs_old_filter_script_runs_what_it_can);
  tcase_add_test(tc, test_rs_nv21_to_rgba_with_the_yuv_getters);
  tcase_add_test(tc, test_rs_bilinear_rssample);
  tcase_add_test(tc, test_rs_histogram_with_atomics);
  tcase_add_test(tc, test_rs_set_element_makes_a_new_field);
  tcase_add_test(tc, test_rs_rand_in_kernels);
  tcase_add_test(tc, test_rs_invokable_loops_over_allocations);
  tcase_add_test(tc, test_rs_invokable_one_thread_with_values);
  tcase_add_test(tc, test_rs_invokable_one_thread_sets_globals_for_a_kernel);
  tcase_add_test(tc, test_rs_invokable_one_thread_vector_and_bool_values);
  tcase_add_test(tc,
                 test_rs_invokable_one_thread_writes_allocations_and_globals);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
