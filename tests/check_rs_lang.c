/* tests/check_rs_lang.c - RenderScript's language as published, on the
 * backend $FG_TEST_BACKEND names (tests/opencl-suites.sh runs it again on
 * OpenCL): identifiers that OpenCL C reserves, enums, attributes on types,
 * arrays sized by their initializers, untyped rsGetElementAt, implicit
 * vector conversions, the time functions, no-op kernels and relaxed
 * precision without finite-math assumptions, rs_math.rsh's whole
 * family of functions, C arithmetic and numeric parameters in
 * invokables run as graphs, and overloadable functions.  Each script in tests/rs/lang/
 * runs unmodified and is checked against plain C loops. */
#ifndef FG_RS_DIR
#define FG_RS_DIR "tests/rs"
#endif
#include "testutil.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

static fg_rs_script *load(const char *file) {
  return tu_rs_load("lang", file);
}

/* OpenCL C's keywords and reserved type names (kernel, global, local,
 * constant, private, read_only, image2d_t, sampler_t, event_t, __kernel,
 * ...) and the generated code's own prefix (fgk_) as names of a script's
 * globals, functions, parameters, locals, members, macros and types. */
START_TEST(test_rs_lang_reserved_identifiers) {
  enum { N = 37 };
  fg_rs_script *s = load("keywords.rs");
  int32_t kern[N], img[N], a[N], out[N];
  for (int i = 0; i < N; i++) {
    kern[i] = i * 7 - 50;
    img[i] = 1000 - i * i;
    a[i] = i % 5 - 2;
  }
  /* host lookups keep the script's names; an invokable on the host sets
   * the globals called private and constant, which the kernel reads
   * (fg_rs_get keeps the host's value, as on Android) */
  int32_t constant = 0;
  ck_assert_int_eq(fg_rs_get(s, "constant", &constant, sizeof constant),
                   FG_OK);
  ck_assert_int_eq(constant, 3);
  ck_assert_int_eq(fg_rs_call(s, "read_write_set", 0.75, 11), FG_OK);
  constant = 11;
  fg_graph *g = fg_graph_new("kw");
  fg_field *fk = fg_input(g, "k", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_field *fi = fg_input(g, "i", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_field *fa = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape1(N)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "kernel", fk), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "image2d_t", fi), FG_OK);
  fg_output(g, "o", fg_rs_map(g, s, "event_t", 1, &fa, NULL));
  fg_output(g, "r", fg_rs_reduce(g, s, "local", 1, &fa, NULL));
  int32_t sum = 0, want = 0;
  tu_run(g, 3, (const void *[]){kern, img, a}, 2, (void *[]){out, &sum});
  fg_graph_free(g);
  for (int i = 0; i < N; i++) {
    ck_assert_int_eq(out[i], (kern[i] * 2 - a[i]) + (constant + 1) + 3 +
                     img[i]);
    want += a[i] * constant;
  }
  ck_assert_int_eq(sum, want);
  fg_rs_script_free(s);
}
END_TEST

/* enum types (named, anonymous, typedef'd; explicit values, constant
 * expressions) as types of globals, locals and parameters and as
 * constants; packed and aligned structs; arrays sized by their
 * initializers (also [][3]); an outconverter writing through a
 * pointer-to-array parameter. */
START_TEST(test_rs_lang_enums_attributes_and_sized_arrays) {
  enum { N = 41 };
  fg_rs_script *s = load("enums.rs");
  int32_t a[N], out[N], bins[4];
  float lk[N];
  for (int i = 0; i < N; i++)
    a[i] = (i * 29) % 23 - 9;
  /* a second script with constants and tags of the same names, fused
   * into the same kernel */
  fg_rs_script *t = NULL;
  char err[1024];
  ck_assert_msg(fg_rs_script_new_source("other", "other.rs",
      "#pragma version(1)\n#pragma rs java_package_name(t)\n"
      "enum Mode { MUL = 40, SUB };\n"
      "typedef enum { RED = 1000 } Colour;\n"
      "int RS_KERNEL plus(int in) { enum Mode m = SUB; Colour c = RED;\n"
      "  return in + m + c; }\n", (size_t)-1, &t, err, sizeof err) == FG_OK,
      "%s", err);
  fg_graph *g = fg_graph_new("enums");
  fg_field *fa = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_field *fe = fg_rs_map(g, s, "enums", 1, &fa, NULL);
  fg_output(g, "o", fg_rs_map(g, t, "plus", 1, &fe, NULL));
  fg_output(g, "l", fg_rs_map(g, s, "lookup", 1, &fa, NULL));
  fg_output(g, "b", fg_rs_reduce(g, s, "bins", 1, &fa, NULL));
  tu_run(g, 1, (const void *[]){a}, 3, (void *[]){out, lk, bins});
  fg_graph_free(g);
  int32_t mode = 0, colour = 0;
  ck_assert_int_eq(fg_rs_get(s, "mode", &mode, sizeof mode), FG_OK);
  ck_assert_int_eq(fg_rs_get(s, "colour", &colour, sizeof colour), FG_OK);
  ck_assert_int_eq(mode, 6);
  ck_assert_int_eq(colour, 'b');
  const float map[] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f};
  const int table[2][3] = {{1, 2, 3}, {4, 5, 6}};
  int count[4] = {0};
  for (int i = 0; i < N; i++) {
    int m = i % 4, v;          /* ADD 0, SUB 5, MUL 6, SHIFT 14; LAST 2 */
    /* the shift as on the device: the bits, not C's undefined shift of a
     * negative int */
    v = m == 0 ? a[i] + 2 : m == 1 ? a[i] - 2 : m == 2 ? a[i] * 2
                          : (int)((uint32_t)a[i] << 1);
    ck_assert_int_eq(out[i], v + 'b' + (5 * 100 + 16) * 1000 + 7 - 1 + 8 +
                     41 + 1000);
    int k = a[i] < 0 ? -a[i] : a[i];
    ck_assert(lk[i] == map[k % 5] + (float)table[k % 2][k % 3]);
    count[a[i] & 3]++;
  }
  for (int k = 0; k < 4; k++)
    ck_assert_int_eq(bins[k], count[k] * 10 + k);
  fg_rs_script_free(s);
  fg_rs_script_free(t);
}
END_TEST

/* T *p = rsGetElementAt(a, x, y) without a cast, and same-size Element
 * reinterpretation (uchar4 read as char4, a struct or a uint32_t; U8 as
 * char); a pointer of another size than the Element is refused at its
 * line, the script's other kernels unaffected. */
START_TEST(test_rs_lang_untyped_get_and_reinterpretation) {
  enum { W = 9, H = 5 };
  fg_rs_script *s = load("gets.rs");
  float vec[H][W][4], vout[H][W][4];
  uint8_t img[H][W][4], bytes[W];
  int32_t rout[H][W];
  uint32_t r = 99;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < 4; c++) {
        r = r * 1103515245u + 12345u;
        vec[y][x][c] = (float)(r >> 20) / 7.f - 100.f;
        img[y][x][c] = (uint8_t)(r >> 13);
      }
  for (int x = 0; x < W; x++)
    bytes[x] = (uint8_t)(x * 37 + 100);
  fg_graph *g = fg_graph_new("gets");
  fg_field *fv = fg_input(g, "v", fg_type_image(FG_F32, H, W, 4));
  fg_field *fi = fg_input(g, "i", fg_type_image(FG_U8, H, W, 4));
  fg_field *fb = fg_input(g, "b", fg_type_scalar(FG_U8, fg_shape1(W)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "vecs", fv), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "img", fi), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "bytes", fb), FG_OK);
  fg_rs_launch o = {.shape = fg_shape2(H, W)};
  fg_output(g, "vo", fg_rs_map(g, s, "viaPointer", 0, NULL, &o));
  fg_output(g, "ro", fg_rs_map(g, s, "reinterpret", 0, NULL, &o));
  tu_run(g, 3, (const void *[]){vec, img, bytes}, 2,
         (void *[]){vout, rout});
  fg_graph_free(g);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int x1 = x + 1 < W ? x + 1 : W - 1;        /* clamped */
      for (int c = 0; c < 4; c++)
        ck_assert(vout[y][x][c] == vec[y][x][c] + vec[y][x1][3 - c]);
      const uint8_t *p = img[y][x];
      uint32_t word = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
                      (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
      int want = (int8_t)p[0] + (int8_t)p[1] + (int8_t)p[2] + (int8_t)p[3] +
                 (int8_t)bytes[x] * 1000 + p[1] * 100000 + (int)(word >> 24);
      ck_assert_int_eq(rout[y][x], want);
    }
  /* 8 bytes read from a 1-byte Element: refused where it is */
  g = fg_graph_new("wrong");
  fb = fg_input(g, "b", fg_type_scalar(FG_U8, fg_shape1(W)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "bytes", fb), FG_OK);
  fg_rs_launch o1 = {.shape = fg_shape1(W)};
  ck_assert_ptr_null(fg_rs_map(g, s, "wrongSize", 0, NULL, &o1));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "gets.rs:29:15:") &&
                strstr(fg_graph_errmsg(g), "rsGetElementAt as double") &&
                strstr(fg_graph_errmsg(g), "same size"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  /* the pointer assigned after its declaration: named, not run */
  g = fg_graph_new("later");
  ck_assert_ptr_null(fg_rs_map(g, s, "assignedLater", 0, NULL, &o));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "gets.rs:35:7:") &&
                strstr(fg_graph_errmsg(g), "rsGetElementAt's pointer"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* Implicit conversions between vectors of as many elements (uint4 to
 * int4, int4 to float4, float4 to int4, int2 to short2...) in
 * initializers, assignments (compound too), arguments and returns: per element, as C converts
 * scalars (OpenCL C rejects them; the C dialect would reinterpret or
 * reject them); explicit convert_* of compound literals; a double
 * splatted; braces with fewer elements than the vector. */
START_TEST(test_rs_lang_implicit_vector_conversions) {
  enum { N = 33 };
  fg_rs_script *s = load("convert.rs");
  uint32_t in[N][4];
  int32_t out[N][4], in2[N][2];
  float nout[N][2];
  uint8_t lit[N][4];
  uint32_t r = 7;
  for (int i = 0; i < N; i++) {
    for (int c = 0; c < 4; c++) {
      r = r * 1103515245u + 12345u;
      in[i][c] = i == 3 ? 0xFFFFFFF0u + (uint32_t)c : r >> 8;
    }
    in2[i][0] = (int32_t)(r >> 3) - (1 << 27);
    in2[i][1] = i * 4099 - 70000;
  }
  fg_graph *g = fg_graph_new("conv");
  fg_field *fi = fg_input(g, "in", fg_type_vector(FG_U32, fg_shape1(N), 4));
  fg_field *f2 = fg_input(g, "in2", fg_type_vector(FG_I32, fg_shape1(N), 2));
  fg_output(g, "o", fg_rs_map(g, s, "convert", 1, &fi, NULL));
  fg_output(g, "n", fg_rs_map(g, s, "narrow", 1, &f2, NULL));
  fg_output(g, "l", fg_rs_map(g, s, "literal", 1, &f2, NULL));
  fg_output(g, "d", fg_rs_map(g, s, "splat_literal", 1, &f2, NULL));
  fg_output(g, "b", fg_rs_map(g, s, "short_braces", 1, &f2, NULL));
  uint8_t dsplat[N][4];
  float braces[N][4];
  tu_run(g, 2, (const void *[]){in, in2}, 5,
         (void *[]){out, nout, lit, dsplat, braces});
  fg_graph_free(g);
  for (int i = 0; i < N; i++) {
    int32_t a[4];
    uint32_t b[4];
    for (int c = 0; c < 4; c++) {
      a[c] = (int32_t)in[i][c];
      b[c] = (uint32_t)a[c] - 5u;
    }
    float gx = (float)in[i][0];
    for (int c = 0; c < 4; c++) {
      float f = (float)a[c];
      int32_t rr = (int32_t)((uint32_t)a[c] * 2u);
      int32_t t = (int32_t)(f * 0.5f);
      uint32_t cc = in[i][c] + 1u + in[i][c];
      ck_assert_int_eq(out[i][c], (int32_t)((uint32_t)rr + (uint32_t)t +
                                            (uint32_t)(int32_t)(gx * 0.25f) +
                                            (uint32_t)(int32_t)b[1] + cc));
    }
    for (int c = 0; c < 2; c++)
      ck_assert(nout[i][c] == (float)(int16_t)in2[i][c]);
    /* convert_uchar4 of a compound literal (the C dialect's macro took
     * its commas for more arguments), plus 2, wrapping */
    ck_assert_int_eq(lit[i][0], (uint8_t)((in2[i][0] & 127) + 2));
    ck_assert_int_eq(lit[i][1], (uint8_t)((in2[i][1] & 63) + 2));
    ck_assert_int_eq(lit[i][2], 5);
    ck_assert_int_eq(lit[i][3], 1);
    /* a double splatted: each element (uchar)(0.25 * (x & 255) + 0.5) */
    for (int c = 0; c < 4; c++)
      ck_assert_int_eq(dsplat[i][c],
                       (uint8_t)(0.25 * (in2[i][0] & 255) + 0.5));
    /* braces with fewer elements than the vector: zeros after them */
    float bx = (float)in2[i][0], by = (float)in2[i][1];
    ck_assert(braces[i][0] == bx + 1.5f + 0.25f);
    ck_assert(braces[i][1] == by + bx);
    ck_assert(braces[i][2] == 3.f);
    ck_assert(braces[i][3] == 0.f);
  }
  fg_rs_script_free(s);
}
END_TEST

static long long mono_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* rsUptimeMillis in init(), rsUptimeNanos, rsGetDt, rsTime and
 * rsLocaltime in an invokable on the host, read back by a kernel and
 * checked against the host's clocks around the calls; a kernel calling
 * rsUptimeMillis is refused at its line, the others run. */
START_TEST(test_rs_lang_time_functions) {
  long long t0 = mono_ns();
  time_t s0 = time(NULL);
  fg_rs_script *s = load("time.rs");
  long long t1 = mono_ns();
  ck_assert_int_eq(fg_rs_call(s, "stamp"), FG_OK);
  long long t2 = mono_ns();
  time_t s1 = time(NULL);
  int64_t v[7];
  fg_graph *g = fg_graph_new("time");
  fg_rs_launch o = {.shape = fg_shape1(7)};
  fg_output(g, "v", fg_rs_map(g, s, "report", 0, NULL, &o));
  tu_run(g, 0, NULL, 1, (void *[]){v});
  fg_graph_free(g);
  ck_assert(v[0] >= t0 / 1000000 && v[0] <= t1 / 1000000);
  ck_assert(v[1] >= t1 && v[1] <= t2);
  /* since the script's creation, then since that call */
  ck_assert(v[2] > 0 && v[2] <= (t2 - t0) / 1000 + 1);
  ck_assert(v[3] >= 0 && v[3] <= v[2]);
  ck_assert(v[6] >= s0 && v[6] <= s1);
  struct tm tm;
  time_t now = (time_t)v[6];
  localtime_r(&now, &tm);
  ck_assert_int_eq(v[4], tm.tm_year + 1900);
  ck_assert_int_eq(v[5], tm.tm_yday);
  g = fg_graph_new("clock");
  fg_field *fa = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape1(4)));
  ck_assert_ptr_null(fg_rs_map(g, s, "clockInKernel", 1, &fa, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "time.rs:38:56:") &&
                strstr(fg_graph_errmsg(g), "'rsUptimeMillis' runs only in "
                       "invokables on the host"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* Android's rs_quaternion.rsh, written again in plain C. */
typedef struct { float x, y, z, w; } quat;
static void q_set(quat *q, float w, float x, float y, float z) {
  q->w = w, q->x = x, q->y = y, q->z = z;
}
static void q_scale(quat *q, float s) {
  q->w *= s, q->x *= s, q->y *= s, q->z *= s;
}
static float q_dot(const quat *a, const quat *b) {
  return a->w * b->w + a->x * b->x + a->y * b->y + a->z * b->z;
}
static void q_rot_unit(quat *q, float rot, float x, float y, float z) {
  rot *= (float)(M_PI / 180.0) * 0.5f;
  float c = cosf(rot), s = sinf(rot);
  q_set(q, c, x * s, y * s, z * s);
}
static void q_rot(quat *q, float rot, float x, float y, float z) {
  float len = x * x + y * y + z * z;
  if (len != 1) {
    float r = 1.f / sqrtf(len);
    x *= r, y *= r, z *= r;
  }
  q_rot_unit(q, rot, x, y, z);
}
static void q_mul(quat *q, const quat *r) {
  quat t = *q;
  q->w = t.w * r->w - t.x * r->x - t.y * r->y - t.z * r->z;
  q->x = t.w * r->x + t.x * r->w + t.y * r->z - t.z * r->y;
  q->y = t.w * r->y + t.y * r->w + t.z * r->x - t.x * r->z;
  q->z = t.w * r->z + t.z * r->w + t.x * r->y - t.y * r->x;
  float len = q_dot(q, q);
  if (len != 1)
    q_scale(q, 1.f / sqrtf(len));
}
static void q_slerp(quat *q, const quat *q0, const quat *q1, float t) {
  if (t <= 0.0f) { *q = *q0; return; }
  if (t >= 1.0f) { *q = *q1; return; }
  quat a = *q0, b = *q1;
  float angle = q_dot(q0, q1), scale, inv;
  if (angle < 0) { q_scale(&a, -1.0f); angle *= -1.0f; }
  if (angle + 1.0f > 0.05f) {
    if (1.0f - angle >= 0.05f) {
      float th = acosf(angle), is = 1.0f / sinf(th);
      scale = sinf(th * (1.0f - t)) * is;
      inv = sinf(th * t) * is;
    } else {
      scale = 1.0f - t, inv = t;
    }
  } else {
    q_set(&b, a.z, -a.y, a.x, -a.w);
    scale = sinf(3.14159265f * (0.5f - t));
    inv = sinf(3.14159265f * t);
  }
  q_set(q, a.w * scale + b.w * inv, a.x * scale + b.x * inv,
        a.y * scale + b.y * inv, a.z * scale + b.z * inv);
}

static void close_to(float got, double want, int i, int c) {
  ck_assert_msg(fabs(got - want) <= 2e-5 * (1 + fabs(want)),
                "point %d, %d: %.9g, want %.9g", i, c, (double)got, want);
}

/* rsQuaternion*, rsFrac and cospi / atan2pi in a kernel against plain C
 * (Android's formulas), within float rounding. */
START_TEST(test_rs_lang_quaternions_and_more_runtime) {
  enum { N = 64 };
  fg_rs_script *s = load("quaternion.rs");
  float in[N][4], out[N][4];
  for (int i = 0; i < N; i++) {
    in[i][0] = (float)i / N * 2 - 1;
    in[i][1] = (float)(i % 7) / 3 - 1;
    in[i][2] = (float)(i % 11) / 8 - 0.2f;
    in[i][3] = (float)i * 0.37f - 5;
  }
  fg_graph *g = fg_graph_new("quat");
  fg_field *fi = fg_input(g, "in", fg_type_vector(FG_F32, fg_shape1(N), 4));
  fg_output(g, "o", fg_rs_map(g, s, "quat", 1, &fi, NULL));
  tu_run(g, 1, (const void *[]){in}, 1, (void *[]){out});
  fg_graph_free(g);
  for (int i = 0; i < N; i++) {
    quat a, b, c, q;
    q_rot(&a, in[i][0] * 90.f, 1.f, 2.f, 3.f);
    q_rot_unit(&b, in[i][1] * 45.f, 0.f, 0.f, 1.f);
    q_mul(&a, &b);
    c = a;
    c.x = -c.x, c.y = -c.y, c.z = -c.z;
    c.w += b.w, c.x += b.x, c.y += b.y, c.z += b.z;
    q_scale(&c, 0.5f);
    q_slerp(&q, &a, &b, in[i][2]);
    float m1 = 2.0f * (q.x * q.y + q.z * q.w);
    float m6 = 2.0f * (q.y * q.z + q.x * q.w);
    float m9 = 2.0f * (q.y * q.z - q.x * q.w);
    float v = in[i][3] * 3.3f;
    close_to(out[i][0], m1 + q_dot(&c, &q), i, 0);
    close_to(out[i][1], m6 - m9, i, 1);
    close_to(out[i][2], fminf(v - floorf(v), 0x1.fffffep-1f), i, 2);
    close_to(out[i][3], cos(in[i][0] * M_PI) +
             atan2(in[i][1], in[i][2]) / M_PI, i, 3);
  }
  fg_rs_script_free(s);
}
END_TEST

/* Kernels that Android's runtime tests launch to check types: void
 * kernels with no visible effect run (their value: zeros of the launch's
 * shape), a legacy root() with only an input too; bool inputs and results
 * travel as u8 fields of 0 and 1. */
START_TEST(test_rs_lang_void_kernels_and_bool) {
  enum { W = 11, H = 3, N = W * H };
  fg_rs_script *s = load("void.rs");
  ck_assert_str_eq(fg_rs_script_warnings(s), "");
  uint8_t flags[N], img[N][4], z1[N], z2[N], z3[N], neg[N];
  int32_t ints[N], cnt[N];
  for (int i = 0; i < N; i++) {
    flags[i] = (uint8_t)(i % 3 == 0);
    ints[i] = i * 5;
    for (int c = 0; c < 4; c++)
      img[i][c] = (uint8_t)(i + c);
    z1[i] = z2[i] = z3[i] = 0xAA;
  }
  fg_graph *g = fg_graph_new("void");
  fg_field *fb = fg_input(g, "b", fg_type_scalar(FG_U8, fg_shape1(N)));
  fg_field *fi = fg_input(g, "i", fg_type_image(FG_U8, H, W, 4));
  fg_field *fn = fg_input(g, "n", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_output(g, "z1", fg_rs_map(g, s, "test_bool", 1, &fb, NULL));
  fg_output(g, "z2", fg_rs_map(g, s, "test_uchar4", 1, &fi, NULL));
  fg_output(g, "z3", fg_rs_map(g, s, "root", 1, &fn, NULL));
  fg_output(g, "neg", fg_rs_map(g, s, "negate", 1, &fb, NULL));
  fg_output(g, "cnt", fg_rs_map(g, s, "count", 1, &fb, NULL));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  tu_run(g, 3, (const void *[]){flags, img, ints}, 5,
         (void *[]){z1, z2, z3, neg, cnt});
  fg_graph_free(g);
  for (int i = 0; i < N; i++) {
    ck_assert_int_eq(z1[i], 0);
    ck_assert_int_eq(z2[i], 0);
    ck_assert_int_eq(z3[i], 0);
    ck_assert_int_eq(neg[i], !flags[i]);
    ck_assert_int_eq(cnt[i], flags[i] ? i : -1);
  }
  fg_rs_script_free(s);
}
END_TEST

/* rs_fp_relaxed assumes no finite math: fmax / fmin with NaN return the
 * other argument, isnan, isinf and isfinite tell, and comparisons with NaN
 * are false, as in plain C. */
START_TEST(test_rs_lang_relaxed_keeps_nan_and_inf) {
  enum { N = 8 };
  fg_rs_script *s = load("relaxed.rs");
  ck_assert_int_eq(fg_rs_script_fp(s), FG_RS_FP_RELAXED);
  const float nan = NAN, inf = INFINITY;
  const float in[N][2] = {{1.f, nan}, {nan, 3.f}, {nan, nan}, {-inf, nan},
                          {inf, -inf}, {2.5f, 2.5f}, {-1.f, 4.f},
                          {nan, -inf}};
  float out[N][4];
  fg_graph *g = fg_graph_new("relaxed");
  fg_field *fi = fg_input(g, "in", fg_type_vector(FG_F32, fg_shape1(N), 2));
  fg_output(g, "o", fg_rs_map(g, s, "nans", 1, &fi, NULL));
  tu_run(g, 1, (const void *[]){in}, 1, (void *[]){out});
  fg_graph_free(g);
  for (int i = 0; i < N; i++) {
    float a = in[i][0], b = in[i][1];
    float mx = fmaxf(a, b), mn = fminf(a, b);
    ck_assert_msg(isnan(mx) ? isnan(out[i][0]) : out[i][0] == mx,
                  "fmax at %d: %g, want %g", i, (double)out[i][0], (double)mx);
    ck_assert_msg(isnan(mn) ? isnan(out[i][1]) : out[i][1] == mn,
                  "fmin at %d: %g, want %g", i, (double)out[i][1], (double)mn);
    float z = isnan(a) ? 1.f : isinf(a) ? 2.f : isfinite(a) ? 3.f : 4.f;
    float w = a != a ? 5.f : a < b ? 6.f : a == b ? 7.f : 8.f;
    ck_assert_msg(out[i][2] == z && out[i][3] == w, "tests at %d: %g %g, "
                  "want %g %g", i, (double)out[i][2], (double)out[i][3],
                  (double)z, (double)w);
  }
  fg_rs_script_free(s);
}
END_TEST

/* Unions (typedef'd and tagged, a global one in the globals block),
 * structs holding pointers used as locals, pointer and function-pointer
 * typedefs: the script loads, its kernels run; a global struct holding a
 * pointer is refused where a kernel uses it. */
START_TEST(test_rs_lang_unions_and_pointer_types) {
  enum { N = 29 };
  fg_rs_script *s = load("types.rs");
  ck_assert_uint_eq(fg_rs_global_size(s, "gBits"), 4);
  uint32_t key = 0x5A5A1234u;
  ck_assert_int_eq(fg_rs_set(s, "gBits", &key, sizeof key), FG_OK);
  float f[N], lf[N];
  uint8_t px[N][4];
  uint32_t bits[N];
  int32_t pr[N];
  for (int i = 0; i < N; i++) {
    f[i] = (float)i * 1.75f - 20.f;
    for (int c = 0; c < 4; c++)
      px[i][c] = (uint8_t)(i * 13 + c * 71);
  }
  fg_graph *g = fg_graph_new("types");
  fg_field *ff = fg_input(g, "f", fg_type_scalar(FG_F32, fg_shape1(N)));
  fg_field *fp = fg_input(g, "p", fg_type_vector(FG_U8, fg_shape1(N), 4));
  fg_output(g, "bits", fg_rs_map(g, s, "floatBits", 1, &ff, NULL));
  fg_output(g, "pairs", fg_rs_map(g, s, "pairs", 1, &fp, NULL));
  fg_output(g, "lf", fg_rs_map(g, s, "localFilter", 1, &ff, NULL));
  tu_run(g, 2, (const void *[]){f, px}, 3, (void *[]){bits, pr, lf});
  fg_graph_free(g);
  const float taps[3] = {0.25f, 0.5f, 0.25f};
  for (int i = 0; i < N; i++) {
    uint32_t u;
    int32_t w;
    memcpy(&u, &f[i], 4);
    memcpy(&w, px[i], 4);
    ck_assert_uint_eq(bits[i], u ^ key);
    ck_assert_int_eq(pr[i], w);
    float sum = 0.f;
    for (int k = 0; k < 3; k++)
      sum += taps[k] * f[i] + taps[k];
    ck_assert(lf[i] == sum);
  }
  g = fg_graph_new("ptr");
  fg_field *fi = fg_input(g, "i", fg_type_scalar(FG_I32, fg_shape1(N)));
  ck_assert_ptr_null(fg_rs_map(g, s, "usesGlobalFilter", 1, &fi, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "types.rs:38:") &&
                strstr(fg_graph_errmsg(g), "'gFilter'") &&
                strstr(fg_graph_errmsg(g), "pointer member"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* Asserts got is within rel of want (NaN matching NaN). */
static void near(float got, double want, double rel, const char *what,
                 int i) {
  if (isnan(want)) {
    ck_assert_msg(isnan(got), "%s at %d: %g, expected NaN", what, i, got);
    return;
  }
  ck_assert_msg(fabs(got - want) <= rel * (1 + fabs(want)),
                "%s at %d: %.9g, expected %.9g", what, i, got, want);
}

/* The clz of v in a field of bits bits. */
static int clz_bits(uint32_t v, int bits) {
  int n = 0;
  for (int b = bits - 1; b >= 0 && !(v >> b & 1); b--)
    n++;
  return n;
}

/* rs_math.rsh's whole family beyond the common functions (mathfam.rs):
 * frexp, modf, sincos, remquo and lgamma through pointers, scalar and
 * vector; rootn, ldexp, ilogb, nan; clz of every integer width; the
 * native_ variants of every function that has one.  Each was refused as
 * a call the runtime does not provide, which lost Android's CTS math
 * kernels. */
START_TEST(test_rs_lang_math_family) {
  enum { N = 53 };
  fg_rs_script *s = load("mathfam.rs");
  ck_assert_str_eq(fg_rs_script_warnings(s), "");
  float v[N], v4[N][4], ptrs[N][4], vec[N][4], iexp[N][4], nat[N][4];
  int32_t iv[N], clzs[N][4];
  for (int i = 0; i < N; i++) {
    v[i] = 0.03f + 0.9f * (float)i / N;
    for (int c = 0; c < 4; c++)
      v4[i][c] = 0.05f + 0.017f * (float)(i * 4 + c);
    iv[i] = (i * 2654435761u) >> (i % 29);
    if (i % 7 == 0)
      iv[i] = -iv[i];
  }
  fg_graph *g = fg_graph_new("mathfam");
  fg_field *fv = fg_input(g, "v", fg_type_scalar(FG_F32, fg_shape1(N)));
  fg_field *f4 = fg_input(g, "v4", fg_type_vector(FG_F32, fg_shape1(N), 4));
  fg_field *fi = fg_input(g, "i", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_output(g, "ptrs", fg_rs_map(g, s, "ptrs", 1, &fv, NULL));
  fg_output(g, "vec", fg_rs_map(g, s, "vecptrs", 1, &f4, NULL));
  fg_output(g, "iexp", fg_rs_map(g, s, "iexp", 1, &fv, NULL));
  fg_output(g, "clz", fg_rs_map(g, s, "clzs", 1, &fi, NULL));
  fg_output(g, "nat", fg_rs_map(g, s, "natives", 1, &fv, NULL));
  fg_output(g, "pown", fg_rs_map(g, s, "pownv", 1, &f4, NULL));
  float pw[N][4];
  tu_run(g, 3, (const void *[]){v, v4, iv}, 6,
         (void *[]){ptrs, vec, iexp, clzs, nat, pw});
  fg_graph_free(g);
  const double pi = 3.14159265358979323846;
  for (int i = 0; i < N; i++) {
    double x = v[i];
    int e, q, sg;
    double m = frexp(x * 37.0, &e), ip, f = modf(x * 9.5, &ip);
    double r = remquo(x * 10.0, 0.75, &q);
    double lg = lgamma(x + 0.5);
    sg = tgamma(x + 0.5) < 0 ? -1 : 1;
    near(ptrs[i][0], m + e, 1e-5, "frexp", i);
    near(ptrs[i][1], f + ip * 100, 1e-5, "modf", i);
    near(ptrs[i][2], sin(x) + cos(x) * 10 + sin(2 * x) + cos(2 * x), 1e-4,
         "sincos", i);
    /* remquo gives the quotient's low 3 bits at least (PoCL more) */
    near(ptrs[i][3], r + (q & 7) * 100 + lg + sg * 1000, 1e-5,
         "remquo+lgamma", i);
    {
      /* pown(float4, int4) + (pown(xy, {2, 3}), pown(xyz, {1, 2, -1}).zy) */
      const double *w = (const double[]){v4[i][0], v4[i][1], v4[i][2]};
      near(pw[i][0], w[0] + w[0] * w[0], 1e-5, "pown float4/float2", i);
      near(pw[i][1], w[1] * w[1] + w[1] * w[1] * w[1], 1e-5,
           "pown float4/float2", i);
      near(pw[i][2], w[2] * w[2] * w[2] + 1 / w[2], 1e-4,
           "pown float4/float3", i);
      near(pw[i][3], 1 / ((double)v4[i][3] * v4[i][3]) + w[1] * w[1], 1e-3,
           "pown float4/float3", i);
    }
    for (int c = 0; c < 4; c++) {
      double y = v4[i][c];
      double vm = frexp(y * 37.0, &e), vip, vf = modf(y * 9.5, &vip);
      near(vec[i][c], vm + e + vf + vip * 100 + y * 4 + ldexp(y, c + 1),
           1e-5, "vector frexp/modf/ldexp", i);
    }
    int n = i % 5 + 1;
    double a = x * 50 - 20;
    double root = a < 0 && (n & 1) ? -pow(-a, 1.0 / n) : pow(a, 1.0 / n);
    near(iexp[i][0], root, 1e-4, "rootn", i);
    near(iexp[i][1], ldexp(x, n), 1e-6, "ldexp", i);
    near(iexp[i][2], ilogb(x * 1000) + 0.5, 0, "ilogb, nan", i);
    near(iexp[i][3], cbrt(x), 1e-4, "native_rootn", i);
    uint32_t u = (uint32_t)iv[i];
    ck_assert_int_eq(clzs[i][0], clz_bits(u, 32));
    ck_assert_int_eq(clzs[i][1], clz_bits(u & 0xff, 8) +
                     100 * clz_bits((u >> 2) & 0xff, 8));
    ck_assert_int_eq(clzs[i][2], clz_bits((u * 77) & 0xffff, 16) +
                     100 * clz_bits((u * 3) & 0xffff, 16));
    ck_assert_int_eq(clzs[i][3], clz_bits(u >> 3, 32));
    near(nat[i][0], acos(x) + asin(x) + atan(x) + acosh(x + 1) + asinh(x) +
         atanh(x * 0.5), 1e-4, "native_ inverse trigonometry", i);
    near(nat[i][1], acos(x) / pi + asin(x) / pi + atan(x) / pi + cbrt(x) +
         cosh(x) + cos(x * pi), 1e-4, "native_ pi and cbrt, cosh", i);
    near(nat[i][2], expm1(x) + log1p(x) + sinh(x) + sin(x * pi) + tanh(x) +
         tan(x * 0.2 * pi), 1e-4, "native_ expm1, log1p, hyperbolic", i);
    near(nat[i][3], atan2(x, 0.5) + atan2(x, 0.25) / pi + hypot(x, 3) +
         x / 3, 1e-4, "native_ two-argument", i);
  }
  fg_rs_script_free(s);
}
END_TEST

/* An invokable run as a graph (setup.rs) that computes float, double,
 * integer and uchar statics from float, double and integer globals with
 * C's arithmetic (float stays float, 1.0 / 3 is double, casts truncate
 * and wrap), passes float expressions to a helper run on the host, and
 * sets launch bounds from a global before rsForEach: each was refused as
 * "not an integer constant" or "not supported in an integer expression". */
START_TEST(test_rs_lang_invokable_arithmetic) {
  enum { W = 6, H = 5 };
  fg_rs_script *s = load("setup.rs");
  float contrast = 0.3f;
  int32_t shift = 11;
  ck_assert_int_eq(fg_rs_set(s, "gContrast", &contrast, sizeof contrast),
                   FG_OK);
  ck_assert_int_eq(fg_rs_set(s, "gShift", &shift, sizeof shift), FG_OK);
  fg_graph *g = fg_graph_new("setup");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape2(H, W)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gIn", a), FG_OK);
  fg_field *out = NULL;
  ck_assert_msg(fg_rs_invoke(g, s, "filter", 0, NULL, 1, &out) == FG_OK,
                "%s", fg_graph_errmsg(g));
  fg_output(g, "out", out);
  float in[H * W], o[H * W];
  for (int i = 0; i < H * W; i++)
    in[i] = 0.37f * (float)i - 2.f;
  tu_run(g, 1, (const void *[]){in}, 1, (void *[]){o});
  fg_graph_free(g);
  /* the same in C, with the script's types */
  double bias = 0.125;
  uint32_t rows = 3;
  float factor = (1.0f + contrast) * (1.0f + contrast);
  float offset = (float)(contrast / 3 + shift - 0.1);
  int steps = (int)(contrast * 100.0f) + shift % 4 - (int)2.9f;
  double fine = 1.0 / 3 + bias * W;
  uint8_t wrapped = (uint8_t)(shift * 50);
  float scaled = -((contrast * 2.0f + 0.25f) * (shift / 2)) + 2.f;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int i = y * W + x;
      /* rows 1 .. gRows are launched; the rest keep the output's zeros */
      float want = y >= 1 && y < (int)rows + 1
                       ? in[i] * factor + offset + steps + (float)fine +
                             wrapped + scaled
                       : 0.f;
      ck_assert_msg(o[i] == want, "(%d, %d): %.9g, want %.9g", x, y,
                    (double)o[i], (double)want);
    }
  fg_rs_script_free(s);
}
END_TEST

/* An invokable with float, int and uint parameters that launches a kernel
 * (params.rs), run with fg_rs_invoke_args: the parameters set globals,
 * pass through a helper run on the host and bound the launch; fg_rs_invoke
 * without values refuses it naming the parameter's line. */
START_TEST(test_rs_lang_invokable_scalar_parameters) {
  enum { W = 5, H = 6 };
  fg_rs_script *s = load("params.rs");
  fg_graph *g = fg_graph_new("params");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape2(H, W)));
  fg_field *out = NULL;
  ck_assert_int_eq(fg_rs_invoke(g, s, "apply", 1, &a, 1, &out), FG_EINVAL);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "params.rs:19:55: fg_rs_invoke "
                       "'params.apply': parameter g of 'apply' is float; "
                       "pass its value with fg_rs_invoke_args") != NULL,
                "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("params");
  a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape2(H, W)));
  float gv = 0.3f;
  int32_t lv = -4;
  uint32_t rows = 4;
  ck_assert_msg(fg_rs_invoke_args(g, s, "apply",
                                  (const void *[]){NULL, NULL, &gv, &lv,
                                                   &rows},
                                  1, &a, 1, &out) == FG_OK,
                "%s", fg_graph_errmsg(g));
  fg_output(g, "out", out);
  float in[H * W], o[H * W];
  for (int i = 0; i < H * W; i++)
    in[i] = 0.25f * (float)i - 1.5f;
  tu_run(g, 1, (const void *[]){in}, 1, (void *[]){o});
  fg_graph_free(g);
  float gain = gv * 2.0f, half = (gv + lv) / 2;
  int lift = lv + 1;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int i = y * W + x;
      float want = y < (int)rows ? in[i] * gain + lift + half : 0.f;
      ck_assert_msg(o[i] == want, "(%d, %d): %.9g, want %.9g", x, y,
                    (double)o[i], (double)want);
    }
  fg_rs_script_free(s);
}
END_TEST

/* rsForEach(script, in, out) of a legacy root() that has no input pointer
 * (noinput.rs): Android launches it over the input's cells; it was
 * refused as a launch with one input too many.  The invokable's closing
 * `return;` was refused too. */
START_TEST(test_rs_lang_legacy_root_launched_with_unused_input) {
  enum { W = 7, H = 4 };
  fg_rs_script *s = load("noinput.rs");
  fg_graph *g = fg_graph_new("noinput");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape2(H, W)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gIn", a), FG_OK);
  fg_field *out = NULL;
  ck_assert_msg(fg_rs_invoke(g, s, "run", 0, NULL, 1, &out) == FG_OK, "%s",
                fg_graph_errmsg(g));
  fg_output(g, "out", out);
  int32_t in[H * W], o[H * W];
  for (int i = 0; i < H * W; i++)
    in[i] = i * i - 40;
  tu_run(g, 1, (const void *[]){in}, 1, (void *[]){o});
  fg_graph_free(g);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      ck_assert_int_eq(o[y * W + x], in[y * W + x] * 2 + x + 10 * y + 3);
  fg_rs_script_free(s);
}
END_TEST

/* Functions overloaded with clang's overloadable attribute (several
 * definitions of one name, one defined after its use through a
 * prototype, some made by macros), in kernels of each type and in an
 * invokable on the host, against C; one name defined twice without the
 * attribute is refused naming the attribute. */
START_TEST(test_rs_lang_overloadable_functions) {
  enum { N = 29 };
  fg_rs_script *s = load("overload.rs");
  float fin[N], fout[N], f2in[N][2], f2out[N][2];
  int32_t iin[N], iout[N];
  uint32_t uin[N], uout[N];
  for (int i = 0; i < N; i++) {
    fin[i] = i == 4 ? 0.5f : (float)i * 0.75f - 3.0f;
    f2in[i][0] = (float)i - 9.5f;
    f2in[i][1] = i % 3 ? 1.0f : (float)i;
    iin[i] = i == 2 ? 7 : i * 37 - 400;
    uin[i] = 0x9E3779B9u * (uint32_t)i;
  }
  fg_graph *g = fg_graph_new("overload");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(N)));
  fg_field *b = fg_input(g, "b", fg_type_vector(FG_F32, fg_shape1(N), 2));
  fg_field *c = fg_input(g, "c", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_field *d = fg_input(g, "d", fg_type_scalar(FG_U32, fg_shape1(N)));
  fg_output(g, "f1", fg_rs_map(g, s, "f1", 1, &a, NULL));
  fg_output(g, "f2", fg_rs_map(g, s, "f2", 1, &b, NULL));
  fg_output(g, "i1", fg_rs_map(g, s, "i1", 1, &c, NULL));
  fg_output(g, "u1", fg_rs_map(g, s, "u1", 1, &d, NULL));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  tu_run(g, 4, (const void *[]){fin, f2in, iin, uin}, 4,
         (void *[]){fout, f2out, iout, uout});
  fg_graph_free(g);
  for (int i = 0; i < N; i++) {
    ck_assert(fout[i] == 2.0f * fin[i] + 1.0f + (fin[i] == 0.5f));
    ck_assert(f2out[i][0] == f2in[i][0] * 3.0f + (f2in[i][1] == 1.0f));
    ck_assert(f2out[i][1] == f2in[i][1] * 3.0f);
    ck_assert_int_eq(iout[i], iin[i] * 5 - 1 + (iin[i] == 7));
    ck_assert_uint_eq(uout[i], uin[i] << 1);
  }
  int32_t v = 12;
  float w = 2.25f;
  ck_assert_msg(fg_rs_call_args(s, "compute", 2, (const void *[]){&v, &w}) ==
                FG_OK, "%s", fg_rs_script_errmsg(s));
  /* what the invokable left in the global, as a later kernel reads it */
  g = fg_graph_new("after");
  c = fg_input(g, "c", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_output(g, "r", fg_rs_map(g, s, "plus_result", 1, &c, NULL));
  tu_run(g, 1, (const void *[]){iin}, 1, (void *[]){iout});
  fg_graph_free(g);
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(iout[i], iin[i] + 12 * 5 - 1 + (int)(2.0f * 2.25f + 1.0f));
  fg_rs_script_free(s);
  /* without the attribute a second definition is C's redefinition */
  char err[512];
  fg_rs_script *bad = NULL;
  const char *text = "#pragma version(1)\n"
                     "#pragma rs java_package_name(t)\n"
                     "static int f(int v) { return v; }\n"
                     "static float f(float v) { return v; }\n"
                     "int RS_KERNEL k(int in) { return f(in); }\n";
  ck_assert_int_ne(fg_rs_script_new_source("twice", "twice.rs", text,
                                           strlen(text), &bad, err,
                                           sizeof err), FG_OK);
  ck_assert_ptr_null(bad);
  ck_assert_msg(strstr(err, "twice.rs:4:") &&
                strstr(err, "redefinition of function 'f'"), "%s", err);
}
END_TEST

int main(void) {
  Suite *s = suite_create("rs_lang");
  TCase *tc = tcase_create("lang");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_rs_lang_reserved_identifiers);
  tcase_add_test(tc, test_rs_lang_enums_attributes_and_sized_arrays);
  tcase_add_test(tc, test_rs_lang_untyped_get_and_reinterpretation);
  tcase_add_test(tc, test_rs_lang_implicit_vector_conversions);
  tcase_add_test(tc, test_rs_lang_time_functions);
  tcase_add_test(tc, test_rs_lang_quaternions_and_more_runtime);
  tcase_add_test(tc, test_rs_lang_void_kernels_and_bool);
  tcase_add_test(tc, test_rs_lang_relaxed_keeps_nan_and_inf);
  tcase_add_test(tc, test_rs_lang_unions_and_pointer_types);
  tcase_add_test(tc, test_rs_lang_math_family);
  tcase_add_test(tc, test_rs_lang_invokable_arithmetic);
  tcase_add_test(tc, test_rs_lang_invokable_scalar_parameters);
  tcase_add_test(tc, test_rs_lang_legacy_root_launched_with_unused_input);
  tcase_add_test(tc, test_rs_lang_overloadable_functions);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
