/* tests/check_zero_copy.c - runs on an OpenCL device that shares the
 * host's memory (PoCL's CPU device) use the caller's inputs and outputs in
 * place (zero copy) where their pointers are aligned for the element type,
 * and copy them otherwise or when FG_CAP_ZERO_COPY is disabled.  Every
 * case checks the results against a C computation and against the same
 * runs with copies, and counts what was used in place
 * (fg_context_stats).  Exits 77 (skipped) only when no OpenCL device
 * exists and $FG_REQUIRE_OPENCL is unset. */
#include "testutil.h"

#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

enum { ZR = 67, ZC = 131, ZN = ZR * ZC };  /* odd: strips with tails */

#define ZSCALE 1.75f
#define ZOFFSET (-0.25f)

/* blur: a 3x3 mean with clamped borders (a kernel of its own: the next
 * one reads it non-locally), y = clamp(blur * ZSCALE + ZOFFSET, 0, 1)
 * (one fused kernel reading blur), outputs blur, y, y again (a second
 * output of one field) and m3 = m * 3 + 1 on u8 (m below 85). */
static fg_graph *zc_graph(void) {
  fg_shape s = fg_shape2(ZR, ZC);
  fg_type t = fg_type_scalar(FG_F32, s), tm = fg_type_scalar(FG_U8, s);
  fg_graph *g = fg_graph_new("zero_copy");
  fg_field *x = fg_input(g, "x", t);
  fg_field *m = fg_input(g, "m", tm);
  tu_blur_clamp_m3(g, x, m, ZSCALE, ZOFFSET);
  return g;
}

/* One run's memory, each array at `skew` bytes past an aligned block
 * (skew 0: aligned). */
typedef struct zbufs {
  unsigned char *block[6];
  float *x, *blur, *y, *y2;
  uint8_t *m, *m3;
} zbufs;

static void *skewed(zbufs *z, int i, size_t bytes, size_t skew) {
  ck_assert_int_eq(posix_memalign((void **)&z->block[i], 64, bytes + 64), 0);
  memset(z->block[i], 0xee, bytes + 64);
  return z->block[i] + skew;
}

/* Buffers whose inputs follow `seed`; skew_f for the floats, skew_u8 for
 * the bytes. */
static void zbufs_init(zbufs *z, int seed, size_t skew_f, size_t skew_u8) {
  z->x = skewed(z, 0, ZN * sizeof(float), skew_f);
  z->blur = skewed(z, 1, ZN * sizeof(float), skew_f);
  z->y = skewed(z, 2, ZN * sizeof(float), skew_f);
  z->y2 = skewed(z, 3, ZN * sizeof(float), skew_f);
  z->m = skewed(z, 4, ZN, skew_u8);
  z->m3 = skewed(z, 5, ZN, skew_u8);
  float x;
  for (int i = 0; i < ZN; i++) {
    x = (float)((unsigned)(i * 2654435761u + (unsigned)seed * 40503u) >> 8) /
        16777215.0f;
    memcpy(z->x + i, &x, sizeof x);      /* skewed: no aligned store */
    z->m[i] = (uint8_t)((i * 7 + seed * 13) % 81);   /* m * 3 + 1 fits */
  }
}

static void zbufs_free(zbufs *z) {
  for (int i = 0; i < 6; i++)
    free(z->block[i]);
}

static fg_status zbufs_run(fg_program *p, zbufs *z) {
  return fg_program_run(p, 2, (const void *[]){z->x, z->m}, 4,
                        (void *[]){z->blur, z->y, z->y2, z->m3});
}

static float at(const float *a, int i) {
  float v;
  memcpy(&v, a + i, sizeof v);
  return v;
}

/* Checks z's outputs against the computation in C. */
static void zbufs_check(const zbufs *z, const char *what) {
  for (int r = 0; r < ZR; r++)
    for (int c = 0; c < ZC; c++) {
      float acc = 0;
      for (int dr = -1; dr <= 1; dr++)
        for (int dc = -1; dc <= 1; dc++) {
          int rr = r + dr < 0 ? 0 : r + dr >= ZR ? ZR - 1 : r + dr;
          int cc = c + dc < 0 ? 0 : c + dc >= ZC ? ZC - 1 : c + dc;
          acc += at(z->x, rr * ZC + cc);
        }
      float b = acc / 9.0f, v = b * ZSCALE + ZOFFSET;
      float y = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
      int i = r * ZC + c;
      ck_assert_msg(fabsf(at(z->blur, i) - b) <= 1e-6f, "%s: blur[%d][%d] "
                    "%.9g, expected %.9g", what, r, c, at(z->blur, i), b);
      ck_assert_msg(fabsf(at(z->y, i) - y) <= 4e-6f, "%s: y[%d][%d] %.9g, "
                    "expected %.9g", what, r, c, at(z->y, i), y);
      ck_assert_msg(!memcmp(z->y + i, z->y2 + i, sizeof(float)),
                    "%s: y2[%d][%d] differs from y", what, r, c);
      ck_assert_msg(z->m3[i] == (uint8_t)(z->m[i] * 3 + 1), "%s: m3[%d] %u, "
                    "expected %u", what, i, z->m3[i],
                    (uint8_t)(z->m[i] * 3 + 1));
    }
}

/* The outputs of a and b, byte for byte. */
static void zbufs_same(const zbufs *a, const zbufs *b) {
  ck_assert_int_eq(memcmp(a->blur, b->blur, ZN * sizeof(float)), 0);
  ck_assert_int_eq(memcmp(a->y, b->y, ZN * sizeof(float)), 0);
  ck_assert_int_eq(memcmp(a->y2, b->y2, ZN * sizeof(float)), 0);
  ck_assert_int_eq(memcmp(a->m3, b->m3, ZN), 0);
}

static fg_context *cl_context(unsigned disable) {
  fg_context_options opt = {.backend = FG_BACKEND_OPENCL,
                            .disable = disable};
  fg_context *ctx = NULL;
  char err[2048];
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  return ctx;
}

/* Whether ctx's device works on the host's memory: a CPU device (the
 * backend's description says which). */
static bool host_device(fg_context *ctx) {
  return strstr(fg_context_device(ctx), "(CPU, ") != NULL;
}

static fg_context_stats stats(fg_context *ctx) {
  fg_context_stats s;
  ck_assert_int_eq(fg_context_get_stats(ctx, &s), FG_OK);
  return s;
}

START_TEST(test_zero_copy_matches_copies) {
  fg_context *on = cl_context(0), *off = cl_context(FG_CAP_ZERO_COPY);
  fg_graph *g = zc_graph();
  fg_program *pon = tu_compile(on, g), *poff = tu_compile(off, g);
  zbufs a, b;
  zbufs_init(&a, 1, 0, 0);
  zbufs_init(&b, 1, 0, 0);
  ck_assert_msg(zbufs_run(pon, &a) == FG_OK, "%s", fg_context_errmsg(on));
  ck_assert_msg(zbufs_run(poff, &b) == FG_OK, "%s", fg_context_errmsg(off));
  zbufs_check(&a, "zero copy");
  zbufs_check(&b, "copies");
  zbufs_same(&a, &b);
  fg_context_stats s = stats(on), t = stats(off);
  /* disabled: 2 inputs up, 4 outputs down, nothing in place */
  ck_assert_int_eq(t.in_place, 0);
  ck_assert_int_eq(t.copied, 6);
  if (host_device(on)) {
    /* x, m, blur, y and m3 in place; y2 copied from y's memory */
    ck_assert_int_eq(s.in_place, 5);
    ck_assert_int_eq(s.copied, 1);
    ck_assert_msg(strstr(fg_context_device(on), "zero copy: kernels use"),
                  "%s", fg_context_device(on));
    ck_assert_msg(strstr(fg_context_device(off), "zero copy disabled"),
                  "%s", fg_context_device(off));
  } else {
    ck_assert_int_eq(s.in_place, 0);
  }
  zbufs_free(&a);
  zbufs_free(&b);
  fg_program_free(pon);
  fg_program_free(poff);
  fg_graph_free(g);
  tu_context_free(on);
  tu_context_free(off);
}
END_TEST

START_TEST(test_zero_copy_env_switch) {
  setenv("FG_DISABLE", "zero_copy", 1);
  fg_context *ctx = cl_context(0);
  unsetenv("FG_DISABLE");
  fg_graph *g = zc_graph();
  fg_program *p = tu_compile(ctx, g);
  zbufs a;
  zbufs_init(&a, 2, 0, 0);
  ck_assert_msg(zbufs_run(p, &a) == FG_OK, "%s", fg_context_errmsg(ctx));
  zbufs_check(&a, "FG_DISABLE=zero_copy");
  ck_assert_int_eq(stats(ctx).in_place, 0);
  ck_assert_int_eq(stats(ctx).copied, 6);
  zbufs_free(&a);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

START_TEST(test_zero_copy_unaligned_pointers_are_copied) {
  fg_context *ctx = cl_context(0);
  fg_graph *g = zc_graph();
  fg_program *p = tu_compile(ctx, g);
  zbufs ref, odd, two;
  zbufs_init(&ref, 3, 0, 0);
  /* floats one byte past alignment: copied; bytes at odd addresses are
   * aligned for u8: in place */
  zbufs_init(&odd, 3, 1, 1);
  /* floats two bytes past: copied too */
  zbufs_init(&two, 3, 2, 3);
  ck_assert_msg(zbufs_run(p, &ref) == FG_OK, "%s", fg_context_errmsg(ctx));
  fg_context_stats s0 = stats(ctx);
  ck_assert_msg(zbufs_run(p, &odd) == FG_OK, "%s", fg_context_errmsg(ctx));
  fg_context_stats s1 = stats(ctx);
  ck_assert_msg(zbufs_run(p, &two) == FG_OK, "%s", fg_context_errmsg(ctx));
  zbufs_check(&ref, "aligned");
  zbufs_check(&odd, "skewed by 1");
  zbufs_check(&two, "skewed by 2");
  zbufs_same(&ref, &odd);
  zbufs_same(&ref, &two);
  if (host_device(ctx)) {
    /* x, blur, y, y2 copied; m and m3 in place */
    ck_assert_int_eq(s1.copied - s0.copied, 4);
    ck_assert_int_eq(s1.in_place - s0.in_place, 2);
  }
  zbufs_free(&ref);
  zbufs_free(&odd);
  zbufs_free(&two);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

START_TEST(test_zero_copy_output_reused_across_runs) {
  fg_context *ctx = cl_context(0);
  fg_graph *g = zc_graph();
  fg_program *p = tu_compile(ctx, g);
  zbufs z;
  zbufs_init(&z, 0, 0, 0);
  for (int run = 0; run < 4; run++) {
    /* new inputs, the same outputs; every other run a skewed input, so
     * runs alternate between aliasing and copying x */
    zbufs in;
    zbufs_init(&in, 10 + run, run % 2, 0);
    z.x = in.x;
    z.m = in.m;
    ck_assert_msg(zbufs_run(p, &z) == FG_OK, "%s", fg_context_errmsg(ctx));
    char what[32];
    snprintf(what, sizeof what, "run %d", run);
    zbufs_check(&z, what);
    zbufs_free(&in);
  }
  zbufs_free(&z);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

typedef struct ended {
  int calls;
  fg_status st;
} ended;

static void on_end(fg_run *r, fg_status st, void *user) {
  (void)r;
  ended *e = user;
  e->calls++;
  e->st = st;
}

START_TEST(test_zero_copy_runs_in_flight_at_once) {
  fg_context *ctx = cl_context(0);
  fg_graph *g = zc_graph();
  fg_program *p = tu_compile(ctx, g);
  enum { NRUN = 6 };
  zbufs z[NRUN];
  ended e[NRUN] = {{0}};
  for (int i = 0; i < NRUN; i++) {
    zbufs_init(&z[i], 20 + i, i % 3 == 2 ? 1 : 0, 0);
    ck_assert_int_eq(fg_program_start(p, 2, (const void *[]){z[i].x, z[i].m},
                                      4, (void *[]){z[i].blur, z[i].y,
                                                    z[i].y2, z[i].m3},
                                      on_end, &e[i], NULL), FG_OK);
  }
  ck_assert_int_eq(fg_context_wait(ctx), FG_OK);
  for (int i = 0; i < NRUN; i++) {
    ck_assert_int_eq(e[i].calls, 1);
    ck_assert_int_eq(e[i].st, FG_OK);
    char what[32];
    snprintf(what, sizeof what, "run %d", i);
    zbufs_check(&z[i], what);
    zbufs_free(&z[i]);
  }
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

START_TEST(test_zero_copy_cancel_then_run_again) {
  fg_context *ctx = cl_context(0);
  fg_graph *g = zc_graph();
  fg_program *p = tu_compile(ctx, g);
  zbufs z;
  zbufs_init(&z, 5, 0, 0);
  fg_run *r = NULL;
  ck_assert_int_eq(fg_program_start(p, 2, (const void *[]){z.x, z.m}, 4,
                                    (void *[]){z.blur, z.y, z.y2, z.m3},
                                    NULL, NULL, &r), FG_OK);
  fg_run_cancel(r);
  fg_status st = fg_run_wait(r);
  /* the first kernel may have been queued already; it finishes (it does
   * not poll), the rest never start */
  ck_assert_int_eq(st, FG_ECANCELED);
  fg_run_free(r);
  /* its buffers went back; the same memory runs again correctly */
  ck_assert_msg(zbufs_run(p, &z) == FG_OK, "%s", fg_context_errmsg(ctx));
  zbufs_check(&z, "after a cancelled run");
  zbufs_free(&z);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

START_TEST(test_zero_copy_refuses_in_place_runs) {
  fg_context *ctx = cl_context(0);
  fg_graph *g = zc_graph();
  fg_program *p = tu_compile(ctx, g);
  zbufs z;
  zbufs_init(&z, 6, 0, 0);
  /* y written over x: refused before anything runs, x unchanged */
  float x0 = z.x[0];
  ck_assert_int_eq(fg_program_run(p, 2, (const void *[]){z.x, z.m}, 4,
                                  (void *[]){z.blur, z.x, z.y2, z.m3}),
                   FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(fg_context_errmsg(ctx), "overlaps input 'x'"));
  ck_assert_int_eq(fg_program_run(p, 2, (const void *[]){z.x, z.m}, 4,
                                  (void *[]){z.blur, z.blur + 1, z.y2,
                                             z.m3}),
                   FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(fg_context_errmsg(ctx), "overlaps output"));
  ck_assert(z.x[0] == x0);
  ck_assert_int_eq(stats(ctx).in_place + stats(ctx).copied, 0);
  zbufs_free(&z);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST


int main(void) {
  if (!tu_opencl_device_exists()) {
    const char *req = getenv("FG_REQUIRE_OPENCL");
    fprintf(stderr, "check_zero_copy: no OpenCL device%s\n",
            req && *req ? " (FG_REQUIRE_OPENCL is set: failing)" : "");
    return req && *req ? 1 : 77;
  }
  Suite *s = suite_create("zero_copy");
  TCase *tc = tcase_create("zero_copy");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_zero_copy_matches_copies);
  tcase_add_test(tc, test_zero_copy_env_switch);
  tcase_add_test(tc, test_zero_copy_unaligned_pointers_are_copied);
  tcase_add_test(tc, test_zero_copy_output_reused_across_runs);
  tcase_add_test(tc, test_zero_copy_runs_in_flight_at_once);
  tcase_add_test(tc, test_zero_copy_cancel_then_run_again);
  tcase_add_test(tc, test_zero_copy_refuses_in_place_runs);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
