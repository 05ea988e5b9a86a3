/* tests/check_staging.c - runs on an OpenCL device copy large inputs and
 * outputs through page-locked staging buffers in chunks
 * (backend-opencl/staging.c) where the device does not share the host's
 * memory: a discrete GPU, or PoCL's CPU device with zero copy disabled,
 * which is how these cases reach the staging path here.  Every case
 * compares the results with a C computation and with the same runs
 * copied directly (FG_CAP_STAGING disabled), byte for byte, at sizes
 * below the staging threshold, below, at and several times a chunk, odd
 * byte counts and unaligned pointers, and counts what was staged
 * (fg_context_stats).  Exits 77 (skipped) only when no OpenCL device
 * exists and $FG_REQUIRE_OPENCL is unset. */
#include "config.h"
#include "backend-opencl/cl_impl.h"
#include "testutil.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#define SCALE 3.0f
#define OFFSET (-1.0f)

/* One size of the graph: nf floats in x and y, nb bytes in m and m3. */
typedef struct sizes {
  size_t nf, nb;
  const char *what;
} sizes;

static const sizes SMALL = {1000, 4001, "below the threshold"};
static const sizes UNDER = {FGCL_STAGE_MIN / 4 + 17, FGCL_STAGE_CHUNK - 5,
                            "below a chunk"};
static const sizes CHUNK = {FGCL_STAGE_CHUNK / 4, FGCL_STAGE_CHUNK,
                            "one chunk"};
/* more chunks than a transfer has staging buffers: they are reused */
static const sizes SEVERAL = {(FGCL_STAGE_LANES + 1) * FGCL_STAGE_CHUNK / 4 +
                                  1237,
                              (2 * FGCL_STAGE_LANES + 1) * FGCL_STAGE_CHUNK +
                                  4097,
                              "several chunks"};

/* y = x * SCALE + OFFSET over nf floats, m3 = m * 3 + 1 over nb bytes:
 * two kernels, two inputs up and two outputs down per run. */
static fg_graph *st_graph(const sizes *z) {
  fg_type tf = fg_type_scalar(FG_F32, fg_shape1((int64_t)z->nf));
  fg_type tb = fg_type_scalar(FG_U8, fg_shape1((int64_t)z->nb));
  fg_graph *g = fg_graph_new("staging");
  fg_field *x = fg_input(g, "x", tf);
  fg_field *m = fg_input(g, "m", tb);
  fg_op *op = fg_op_begin(g, "scale", 1, &tf);
  fg_write_tensor(op, 0, fg_addf(fg_mulf(fg_read_tensor(op, x), SCALE),
                                 OFFSET));
  fg_output(g, "y", fg_op_end(op));
  op = fg_op_begin(g, "m3", 1, &tb);
  fg_expr *mi = fg_convert(fg_read_tensor(op, m), FG_I32, 1);
  fg_write_tensor(op, 0, fg_convert(fg_add(fg_mul(mi, fg_int(op, 3)),
                                           fg_int(op, 1)), FG_U8, 1));
  fg_output(g, "m3", fg_op_end(op));
  return g;
}

/* One run's memory, each array `skew` bytes past an aligned block. */
typedef struct stbufs {
  unsigned char *block[4];
  float *x, *y;
  uint8_t *m, *m3;
  size_t nf, nb;
} stbufs;

static void *skewed(stbufs *b, int i, size_t bytes, size_t skew) {
  ck_assert_int_eq(posix_memalign((void **)&b->block[i], 64, bytes + 64),
                   0);
  memset(b->block[i], 0xee, bytes + 64);
  return b->block[i] + skew;
}

/* Inputs that follow seed (every float exact, so y is exact). */
static void stbufs_init(stbufs *b, const sizes *z, int seed, size_t skew) {
  b->nf = z->nf;
  b->nb = z->nb;
  b->x = skewed(b, 0, z->nf * 4, skew);
  b->y = skewed(b, 1, z->nf * 4, skew);
  b->m = skewed(b, 2, z->nb, skew);
  b->m3 = skewed(b, 3, z->nb, skew);
  for (size_t i = 0; i < z->nf; i++) {
    float v = (float)((i * 7 + (size_t)seed * 131) % 4093) - 2000.0f;
    memcpy(b->x + i, &v, sizeof v);
  }
  for (size_t i = 0; i < z->nb; i++)
    b->m[i] = (uint8_t)((i * 13 + (size_t)seed) % 85);
}

static void stbufs_free(stbufs *b) {
  for (int i = 0; i < 4; i++)
    free(b->block[i]);
}

static void *const *outs(stbufs *b, void *o[2]) {
  o[0] = b->y;
  o[1] = b->m3;
  return o;
}

static fg_status stbufs_start(fg_program *p, stbufs *b, fg_run **r) {
  void *o[2];
  return fg_program_start(p, 2, (const void *[]){b->x, b->m}, 2, outs(b, o),
                          NULL, NULL, r);
}

static fg_status stbufs_run(fg_program *p, stbufs *b) {
  void *o[2];
  return fg_program_run(p, 2, (const void *[]){b->x, b->m}, 2, outs(b, o));
}

/* Checks b's outputs against C, and the guard bytes after them (one
 * assertion for all: Check records every assertion it passes). */
static void stbufs_check(const stbufs *b, const char *what) {
  for (size_t i = 0; i < b->nf; i++) {
    float x, y;
    memcpy(&x, b->x + i, sizeof x);
    memcpy(&y, b->y + i, sizeof y);
    if (y != x * SCALE + OFFSET)
      ck_abort_msg("%s: y[%zu] %.9g, expected %.9g", what, i, y,
                   x * SCALE + OFFSET);
  }
  for (size_t i = 0; i < b->nb; i++)
    if (b->m3[i] != (uint8_t)(b->m[i] * 3 + 1))
      ck_abort_msg("%s: m3[%zu] %u, expected %u", what, i, b->m3[i],
                   (uint8_t)(b->m[i] * 3 + 1));
  const unsigned char *gy = (const unsigned char *)(b->y + b->nf);
  ck_assert_msg(gy[0] == 0xee && b->m3[b->nb] == 0xee, "%s: written past "
                "an output's end", what);
}

static void stbufs_same(const stbufs *a, const stbufs *b) {
  ck_assert_int_eq(memcmp(a->y, b->y, a->nf * 4), 0);
  ck_assert_int_eq(memcmp(a->m3, b->m3, a->nb), 0);
}

/* An OpenCL context whose runs copy (zero copy off), staged or not. */
static fg_context *staged_context(bool staging) {
  fg_context_options opt = {
    .backend = FG_BACKEND_OPENCL,
    .disable = FG_CAP_ZERO_COPY | (staging ? 0 : FG_CAP_STAGING)};
  fg_context *ctx = NULL;
  char err[2048];
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  return ctx;
}

static fg_context_stats stats(fg_context *ctx) {
  fg_context_stats s;
  ck_assert_int_eq(fg_context_get_stats(ctx, &s), FG_OK);
  return s;
}

/* What one run of z stages: each of its four copies at or above the
 * threshold. */
static void expect_staged(const sizes *z, uint64_t *n, uint64_t *bytes) {
  size_t each[4] = {z->nf * 4, z->nb, z->nf * 4, z->nb};
  *n = *bytes = 0;
  for (int i = 0; i < 4; i++)
    if (each[i] >= FGCL_STAGE_MIN) {
      ++*n;
      *bytes += each[i];
    }
}

/* Runs z twice (the second reusing the pool's buffers) with staging on
 * and off, at skew, and compares everything. */
static void same_both_ways(const sizes *z, size_t skew) {
  fg_context *on = staged_context(true), *off = staged_context(false);
  fg_graph *g = st_graph(z);
  fg_program *pon = tu_compile(on, g), *poff = tu_compile(off, g);
  char what[128];
  for (int rep = 0; rep < 2; rep++) {
    stbufs a, b;
    stbufs_init(&a, z, rep + 1, skew);
    stbufs_init(&b, z, rep + 1, skew);
    fg_context_stats s0 = stats(on);
    ck_assert_msg(stbufs_run(pon, &a) == FG_OK, "%s",
                  fg_context_errmsg(on));
    ck_assert_msg(stbufs_run(poff, &b) == FG_OK, "%s",
                  fg_context_errmsg(off));
    fg_context_stats s1 = stats(on);
    snprintf(what, sizeof what, "%s, skew %zu, run %d, staged", z->what,
             skew, rep);
    stbufs_check(&a, what);
    snprintf(what, sizeof what, "%s, skew %zu, run %d, direct", z->what,
             skew, rep);
    stbufs_check(&b, what);
    stbufs_same(&a, &b);
    uint64_t n, bytes;
    expect_staged(z, &n, &bytes);
    ck_assert_int_eq(s1.staged - s0.staged, n);
    ck_assert_int_eq(s1.staged_bytes - s0.staged_bytes, bytes);
    ck_assert_int_eq(s1.copied - s0.copied, 4);
    stbufs_free(&a);
    stbufs_free(&b);
  }
  ck_assert_int_eq(stats(off).staged, 0);
  ck_assert_int_eq(stats(off).staged_bytes, 0);
  fg_program_free(pon);
  fg_program_free(poff);
  fg_graph_free(g);
  tu_context_free(on);
  tu_context_free(off);
}

START_TEST(test_staging_below_threshold_is_direct) {
  same_both_ways(&SMALL, 0);
}
END_TEST

START_TEST(test_staging_below_a_chunk) { same_both_ways(&UNDER, 0); }
END_TEST

START_TEST(test_staging_one_chunk) { same_both_ways(&CHUNK, 0); }
END_TEST

START_TEST(test_staging_several_chunks) { same_both_ways(&SEVERAL, 0); }
END_TEST

START_TEST(test_staging_unaligned_pointers) {
  /* floats one and three bytes past alignment: every copy still staged */
  same_both_ways(&SEVERAL, 1);
  same_both_ways(&UNDER, 3);
}
END_TEST

START_TEST(test_staging_named_in_description) {
  fg_context *on = staged_context(true), *off = staged_context(false);
  ck_assert_msg(strstr(fg_context_device(on),
                       "through pinned staging buffers"), "%s",
                fg_context_device(on));
  ck_assert_msg(strstr(fg_context_device(off), "(staging disabled)"), "%s",
                fg_context_device(off));
  tu_context_free(on);
  tu_context_free(off);
}
END_TEST

START_TEST(test_staging_env_switch) {
  /* FG_DISABLE lists several names separated by commas */
  const sizes *z = &UNDER;
  fg_graph *g = st_graph(z);
  uint64_t n, bytes;
  expect_staged(z, &n, &bytes);
  for (int staging = 0; staging < 2; staging++) {
    setenv("FG_DISABLE", staging ? "zero_copy" : "zero_copy,staging", 1);
    fg_context_options opt = {.backend = FG_BACKEND_OPENCL};
    fg_context *ctx = NULL;
    char err[2048];
    ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                  err);
    unsetenv("FG_DISABLE");
    fg_program *p = tu_compile(ctx, g);
    stbufs b;
    stbufs_init(&b, z, 9, 0);
    ck_assert_msg(stbufs_run(p, &b) == FG_OK, "%s", fg_context_errmsg(ctx));
    stbufs_check(&b, staging ? "FG_DISABLE=zero_copy"
                             : "FG_DISABLE=zero_copy,staging");
    ck_assert_int_eq(stats(ctx).staged, staging ? n : 0);
    ck_assert_int_eq(stats(ctx).staged_bytes, staging ? bytes : 0);
    stbufs_free(&b);
    fg_program_free(p);
    tu_context_free(ctx);
  }
  fg_graph_free(g);
}
END_TEST

START_TEST(test_staging_runs_in_flight_at_once) {
  /* more runs than max_runs, each wanting more staging buffers than the
   * pool holds: transfers share the pool, some copy directly */
  fg_context *ctx = staged_context(true);
  fg_graph *g = st_graph(&SEVERAL);
  fg_program *p = tu_compile(ctx, g);
  enum { NRUN = 6 };
  stbufs b[NRUN];
  fg_run *r[NRUN];
  for (int i = 0; i < NRUN; i++) {
    stbufs_init(&b[i], &SEVERAL, 20 + i, (size_t)(i % 3));
    ck_assert_int_eq(stbufs_start(p, &b[i], &r[i]), FG_OK);
  }
  for (int i = 0; i < NRUN; i++) {
    ck_assert_msg(fg_run_wait(r[i]) == FG_OK, "%s", fg_context_errmsg(ctx));
    fg_run_free(r[i]);
    char what[32];
    snprintf(what, sizeof what, "run %d", i);
    stbufs_check(&b[i], what);
    stbufs_free(&b[i]);
  }
  fg_context_stats s = stats(ctx);
  ck_assert_int_ge(s.staged, 1);
  ck_assert_int_le(s.staged, 4 * NRUN);
  ck_assert_int_eq(s.copied, 4 * NRUN);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

START_TEST(test_staging_cancel_then_run_again) {
  unsigned before = fgcl_contexts_outlived();
  fg_context *ctx = staged_context(true);
  fg_graph *g = st_graph(&SEVERAL);
  fg_program *p = tu_compile(ctx, g);
  stbufs b;
  stbufs_init(&b, &SEVERAL, 5, 0);
  for (int i = 0; i < 3; i++) {
    /* cancelled at once: its staged uploads end, nothing after them
     * starts */
    fg_run *r = NULL;
    ck_assert_int_eq(stbufs_start(p, &b, &r), FG_OK);
    fg_run_cancel(r);
    ck_assert_int_eq(fg_run_wait(r), FG_ECANCELED);
    fg_run_free(r);
  }
  ck_assert_msg(stbufs_run(p, &b) == FG_OK, "%s", fg_context_errmsg(ctx));
  stbufs_check(&b, "after cancelled runs");
  stbufs_free(&b);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
  /* the staging buffers and workers went with the context */
  ck_assert_int_eq(fgcl_contexts_outlived(), before);
}
END_TEST

/* What a direct download's done saw. */
typedef struct down_seen {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int calls;
  cl_int err;
} down_seen;

static void down_done(void *arg, cl_int err, const char *call) {
  down_seen *d = arg;
  (void)call;
  pthread_mutex_lock(&d->lock);
  d->calls++;
  d->err = err;
  pthread_cond_broadcast(&d->cond);
  pthread_mutex_unlock(&d->lock);
}

/* Byte i of the stager cases' data, round r. */
static unsigned char st_byte(size_t i, int r) {
  return (unsigned char)((i * 131 + (i >> 13) * 7 + (size_t)r * 29) & 0xff);
}

/* The stager by itself, twice over the same pooled staging buffers (the
 * second time finding their last writes perhaps still in flight): an
 * upload of more chunks than it has staging buffers hands out one event
 * after which the device holds every byte, and the caller's memory may be
 * reused as soon as it returns; a download chained on that event alone
 * (no host wait between) reports once, with the same bytes. */
START_TEST(test_staging_stager_chains_by_events) {
  fgcl_device_info *list;
  int n;
  char err[8192];
  ck_assert_int_eq(fgcl_devices(&list, &n, err, sizeof err), FG_OK);
  int i = fgcl_select(list, n, NULL, err, sizeof err);
  ck_assert_int_ge(i, 0);
  cl_int rc;
  cl_context ctx = clCreateContext(NULL, 1, &list[i].device, NULL, NULL, &rc);
  ck_assert_int_eq(rc, CL_SUCCESS);
  cl_command_queue q = clCreateCommandQueue(ctx, list[i].device, 0, &rc);
  ck_assert_int_eq(rc, CL_SUCCESS);
  size_t bytes = (2 * FGCL_STAGE_LANES + 1) * FGCL_STAGE_CHUNK + 4097;
  cl_mem mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
  ck_assert_int_eq(rc, CL_SUCCESS);
  unsigned char *in = malloc(bytes), *dev = malloc(bytes),
                *out = malloc(bytes);
  ck_assert(in && dev && out);
  fgcl_stager *s = fgcl_stager_new(ctx, q);
  ck_assert_ptr_nonnull(s);
  for (int r = 0; r < 2; r++) {
    for (size_t k = 0; k < bytes; k++)
      in[k] = st_byte(k, r);
    cl_event ev;
    const char *call;
    ck_assert_int_eq(fgcl_stage_upload(s, mem, in, bytes, NULL, 0, &ev,
                                       &call), CL_SUCCESS);
    ck_assert_ptr_nonnull(ev);
    memset(in, 0xa5, bytes);            /* the caller's memory, reused */
    down_seen seen = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                      0, CL_SUCCESS};
    memset(out, 0, bytes);
    ck_assert_int_eq(fgcl_stage_download(s, mem, out, bytes, &ev, 1,
                                         down_done, &seen), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(q, mem, CL_TRUE, 0, bytes, dev, 1,
                                         &ev, NULL), CL_SUCCESS);
    pthread_mutex_lock(&seen.lock);
    while (seen.calls == 0)
      pthread_cond_wait(&seen.cond, &seen.lock);
    pthread_mutex_unlock(&seen.lock);
    clReleaseEvent(ev);
    for (size_t k = 0; k < bytes; k++) {
      if (dev[k] != st_byte(k, r))
        ck_abort_msg("round %d: device byte %zu is %u, expected %u", r, k,
                     dev[k], st_byte(k, r));
      if (out[k] != st_byte(k, r))
        ck_abort_msg("round %d: downloaded byte %zu is %u, expected %u", r,
                     k, out[k], st_byte(k, r));
    }
    ck_assert_int_eq(seen.calls, 1);
    ck_assert_int_eq(seen.err, CL_SUCCESS);
  }
  fgcl_stager_free(s);
  clReleaseMemObject(mem);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  free(in);
  free(dev);
  free(out);
  free(list);
}
END_TEST

/* One thread's copies through a shared fgcl_pcopy. */
typedef struct pc_job {
  fgcl_pcopy *p;
  int seed;
  int bad;                    /* bytes that differ from the source */
} pc_job;

/* Copies sizes around the split threshold and over several parts, at odd
 * offsets, through p; counts bytes that differ from the source. */
static void *pc_thread(void *arg) {
  pc_job *j = arg;
  static const size_t lens[] = {0, 1, 4095, (1u << 20) - 1, 1u << 20,
                                (1u << 20) + 1, 3 * (1u << 20) + 77,
                                (8u << 20) + 4097};
  for (size_t z = 0; z < sizeof lens / sizeof *lens; z++) {
    size_t n = lens[z];
    unsigned char *src = malloc(n + 8), *dst = malloc(n + 8);
    ck_assert(src && dst);
    for (size_t k = 0; k < n + 8; k++) {
      src[k] = st_byte(k, j->seed);
      dst[k] = 0x5a;
    }
    fgcl_pcopy_run(j->p, dst + 3, src + 5, n);
    for (size_t k = 0; k < n; k++)
      j->bad += dst[3 + k] != src[5 + k];
    for (size_t k = 0; k < 3; k++)
      j->bad += dst[k] != 0x5a;           /* nothing before */
    for (size_t k = n + 3; k < n + 8; k++)
      j->bad += dst[k] != 0x5a;           /* nothing past the end */
    free(src);
    free(dst);
  }
  return NULL;
}

/* The split copy the staging buffers' host copies use, from three threads
 * at once: each copy equals its source byte for byte and writes nothing
 * outside its destination. */
START_TEST(test_staging_split_copies_are_exact) {
  fgcl_pcopy *p = fgcl_pcopy_new();
  ck_assert_ptr_nonnull(p);
  pc_job job[3];
  pthread_t th[3];
  for (int i = 0; i < 3; i++) {
    job[i] = (pc_job){p, i + 1, 0};
    ck_assert_int_eq(pthread_create(&th[i], NULL, pc_thread, &job[i]), 0);
  }
  for (int i = 0; i < 3; i++) {
    pthread_join(th[i], NULL);
    ck_assert_int_eq(job[i].bad, 0);
  }
  fgcl_pcopy_free(p);
}
END_TEST

int main(void) {
  if (!tu_opencl_device_exists()) {
    const char *req = getenv("FG_REQUIRE_OPENCL");
    fprintf(stderr, "check_staging: no OpenCL device%s\n",
            req && *req ? " (FG_REQUIRE_OPENCL is set: failing)" : "");
    return req && *req ? 1 : 77;
  }
  Suite *s = suite_create("staging");
  TCase *tc = tcase_create("staging");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_staging_below_threshold_is_direct);
  tcase_add_test(tc, test_staging_below_a_chunk);
  tcase_add_test(tc, test_staging_one_chunk);
  tcase_add_test(tc, test_staging_several_chunks);
  tcase_add_test(tc, test_staging_unaligned_pointers);
  tcase_add_test(tc, test_staging_named_in_description);
  tcase_add_test(tc, test_staging_env_switch);
  tcase_add_test(tc, test_staging_runs_in_flight_at_once);
  tcase_add_test(tc, test_staging_cancel_then_run_again);
  tcase_add_test(tc, test_staging_stager_chains_by_events);
  tcase_add_test(tc, test_staging_split_copies_are_exact);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
