/* tests/check_rs_globals.c - script globals that every thread of a launch
 * shares, on the backend $FG_TEST_BACKEND names (tests/opencl-suites.sh
 * runs it again on OpenCL): atomics on elements of a script's global
 * arrays and on scalar globals, kernels that write globals, and pointer
 * globals written from kernels.  What a launch leaves in the globals is
 * what invokables and later launches read (the tests read it as apps do,
 * through an invokable's rsSendToClient).  Each script in
 * tests/rs/globals/ runs unmodified and is checked against plain C
 * loops. */
#ifndef FG_RS_DIR
#define FG_RS_DIR "tests/rs"
#endif
#include "testutil.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static fg_rs_script *load(const char *file) {
  return tu_rs_load("globals", file);
}

/* A w x h RGBA image of varied pixels. */
static uint8_t *pattern(int w, int h) { return tu_rgba_pattern(w, h, 2024); }

/* What invokables send with rsSendToClient: the last message of each id
 * (up to 8 ids of 32 ints). */
typedef struct inbox {
  int32_t msg[8][32];
  size_t size[8];
} inbox;

static void on_message(void *user, int id, const void *data, size_t size) {
  inbox *b = user;
  if (id >= 0 && id < 8 && size <= sizeof b->msg[id]) {
    memcpy(b->msg[id], data, size);
    b->size[id] = size;
  }
}

/* Calls invokable fn of s, which sends message id of n ints; returns it. */
static const int32_t *call_for(fg_rs_script *s, inbox *b, const char *fn,
                               int id, int n) {
  b->size[id] = 0;
  ck_assert_msg(fg_rs_call(s, fn) == FG_OK, "%s", fg_rs_script_errmsg(s));
  ck_assert_uint_eq(b->size[id], (size_t)n * sizeof(int32_t));
  return b->msg[id];
}

/* histo.rs: rsAtomicInc(&histo[l]) on a static global array, read back
 * by an invokable (fetch, which sends it) and by a later kernel of the
 * same graph
 * (readBin); a second run adds to what the first left, as a second
 * launch on Android does; every other atomic on int and uint scalars and
 * array elements, and atomics on members of a global struct. */
START_TEST(test_rs_globals_atomic_histogram) {
  enum { W = 37, H = 23, N = W * H };
  fg_rs_script *s = load("histo.rs");
  inbox box;
  fg_rs_set_message_handler(s, on_message, &box);
  uint8_t *px = pattern(W, H);
  int32_t want[256] = {0};
  for (int i = 0; i < N; i++) {
    const uint8_t *p = px + 4 * i;
    want[(p[0] * 77 + p[1] * 151 + p[2] * 28) >> 8]++;
  }
  fg_graph *g = fg_graph_new("histo");
  fg_field *img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  ck_assert_ptr_nonnull(fg_rs_map(g, s, "count", 1, &img, NULL));
  fg_rs_launch lo = {.shape = fg_shape1(256)};
  fg_output(g, "bins", fg_rs_map(g, s, "readBin", 0, NULL, &lo));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  int32_t bins[256];
  for (int run = 1; run <= 2; run++) {
    ck_assert_msg(fg_program_run(p, 1, (const void *[]){px}, 1,
                                 (void *[]){bins}) == FG_OK,
                  "%s", fg_context_errmsg(ctx));
    int64_t sum = 0;
    for (int i = 0; i < 256; i++) {
      ck_assert_msg(bins[i] == run * want[i], "run %d bin %d: %d, want %d",
                    run, i, bins[i], run * want[i]);
      sum += (int64_t)run * want[i] * (i + 1);
    }
    const int32_t *d = call_for(s, &box, "fetch", 1, 2);
    ck_assert_int_eq(d[0], (int32_t)sum);
    ck_assert_int_eq(d[1], run * want[128]);
  }
  /* an invokable that clears the histogram: the next run starts there */
  ck_assert_int_eq(fg_rs_call(s, "clear"), FG_OK);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){px}, 1,
                                  (void *[]){bins}), FG_OK);
  for (int i = 0; i < 256; i++)
    ck_assert_int_eq(bins[i], want[i]);
  fg_program_free(p);
  fg_graph_free(g);

  /* the other atomics, once */
  int32_t total = 0, subbed = 0, down = 0, lo_v = 1000000, hi_v = -1000000;
  uint32_t bor = 0, band = 0xffffffffu, bxor = 0, ulo = 0xffffffffu, uhi = 0;
  uint32_t ubins[8] = {0};
  bool hit[16] = {false};
  for (int i = 0; i < N; i++) {
    const uint8_t *q = px + 4 * i;
    uint32_t x = (uint32_t)(i % W);
    total += q[0];
    subbed -= q[1];
    down--;
    bor |= (uint32_t)q[2] << (x % 24);
    band &= ~(1u << (q[0] % 32));
    bxor ^= (uint32_t)q[1] * 2654435761u;
    int d = (int)q[0] - (int)q[2];
    lo_v = d < lo_v ? d : lo_v;
    hi_v = d > hi_v ? d : hi_v;
    ulo = q[1] + 7u < ulo ? q[1] + 7u : ulo;
    uhi = q[2] * 3u > uhi ? q[2] * 3u : uhi;
    hit[q[0] & 15] = true;
    ubins[q[3] & 7]++;
  }
  g = fg_graph_new("others");
  img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  ck_assert_ptr_nonnull(fg_rs_map(g, s, "others", 1, &img, NULL));
  /* no output: what the launch leaves in the globals is the result */
  p = tu_compile(ctx, g);
  ck_assert_msg(fg_program_run(p, 1, (const void *[]){px}, 0, NULL) == FG_OK,
                "%s", fg_context_errmsg(ctx));
  fg_program_free(p);
  fg_graph_free(g);
  const int32_t *d = call_for(s, &box, "report", 2, 18);
  ck_assert_int_eq(d[0], total);
  ck_assert_int_eq(d[1], subbed);
  ck_assert_int_eq(d[2], down);
  ck_assert_uint_eq((uint32_t)d[3], bor);
  ck_assert_uint_eq((uint32_t)d[4], band);
  ck_assert_uint_eq((uint32_t)d[5], bxor);
  ck_assert_int_eq(d[6], lo_v);
  ck_assert_int_eq(d[7], hi_v);
  ck_assert_uint_eq((uint32_t)d[8], ulo);
  ck_assert_uint_eq((uint32_t)d[9], uhi);
  for (int k = 0; k < 8; k++)
    ck_assert_uint_eq((uint32_t)d[10 + k], ubins[k]);
  /* fg_rs_get keeps the host's value, as Android's reflected getters do */
  int32_t host_total = -1;
  ck_assert_int_eq(fg_rs_get(s, "total", &host_total, sizeof host_total),
                   FG_OK);
  ck_assert_int_eq(host_total, 0);
  /* rsAtomicCas: the first thread to reach an empty slot claims it with
   * 1 + its x, and only slots some pixel reaches are claimed */
  const int32_t *slots = box.msg[3];
  ck_assert_uint_eq(box.size[3], 16 * sizeof(int32_t));
  for (int k = 0; k < 16; k++) {
    if (!hit[k]) {
      ck_assert_int_eq(slots[k], 0);
      continue;
    }
    bool some = false;
    for (int i = 0; i < N && !some; i++)
      some = (px[4 * i] & 15) == k && slots[k] == 1 + i % W;
    ck_assert_msg(some, "slot %d: %d is no claim of a pixel reaching it", k,
                  slots[k]);
  }
  /* members of a global struct */
  g = fg_graph_new("struct");
  img = fg_input(g, "img", fg_type_image(FG_U8, H, W, 4));
  ck_assert_ptr_nonnull(fg_rs_map(g, s, "countStruct", 1, &img, NULL));
  p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){px}, 0, NULL),
                   FG_OK);
  fg_program_free(p);
  fg_graph_free(g);
  int32_t sb[4] = {0};
  for (int i = 0; i < N; i++)
    sb[px[4 * i + 1] & 3] += 2;
  d = call_for(s, &box, "reportStruct", 4, 5);
  ck_assert_int_eq(d[0], N);
  for (int k = 0; k < 4; k++)
    ck_assert_int_eq(d[1 + k], sb[k]);
  tu_context_free(ctx);
  free(px);
  fg_rs_script_free(s);
}
END_TEST

/* flag.rs: a test kernel that sets a static bool flag (through a helper)
 * where a check fails, read by an invokable; a non-atomic counter, only
 * tested for nonzero, the point where it was last counted (some thread's
 * write) and a member of a global struct.  A launch before the writing
 * one reads the globals as they were, one after reads what it left. */
START_TEST(test_rs_globals_kernels_write_globals) {
  enum { N = 300 };
  fg_rs_script *s = load("flag.rs");
  inbox box;
  fg_rs_set_message_handler(s, on_message, &box);
  int32_t good[N], bad[N], o[N], before[N], after[N];
  for (int i = 0; i < N; i++) {
    good[i] = 2 * i;
    bad[i] = i == 77 ? 5 : 2 * i;
  }
  fg_graph *g = fg_graph_new("flag");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_output(g, "o", fg_rs_map(g, s, "check", 1, &in, NULL));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){good}, 1,
                                  (void *[]){o}), FG_OK);
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(o[i], good[i] + 1);
  const int32_t *d = call_for(s, &box, "verify", 1, 4);
  ck_assert_int_eq(d[0], 0);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){bad}, 1,
                                  (void *[]){o}), FG_OK);
  d = call_for(s, &box, "verify", 1, 4);
  ck_assert_int_eq(d[0], 1);
  /* verify() cleared the flag: a good run leaves it clear */
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){good}, 1,
                                  (void *[]){o}), FG_OK);
  d = call_for(s, &box, "verify", 1, 4);
  ck_assert_int_eq(d[0], 0);
  ck_assert_int_eq(d[1], 0);
  ck_assert_int_eq(d[2], -1);
  fg_program_free(p);
  fg_graph_free(g);
  /* the counter, between two readers */
  g = fg_graph_new("count");
  in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_output(g, "before", fg_rs_map(g, s, "readCount", 1, &in, NULL));
  ck_assert_ptr_nonnull(fg_rs_map(g, s, "mark", 1, &in, NULL));
  fg_output(g, "after", fg_rs_map(g, s, "readCount", 1, &in, NULL));
  p = tu_compile(ctx, g);
  int32_t vals[N];
  bool big = false;
  for (int i = 0; i < N; i++) {
    vals[i] = (i * 37) % 211;
    big |= vals[i] > 100;
  }
  ck_assert(big);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){vals}, 2,
                                  (void *[]){before, after}), FG_OK);
  d = call_for(s, &box, "verify", 1, 4);
  ck_assert_int_ne(d[1], 0);
  ck_assert_msg(d[2] >= 0 && d[2] < N && vals[d[2]] > 100, "where %d",
                d[2]);
  ck_assert_int_eq(d[3], 1);
  for (int i = 0; i < N; i++) {
    ck_assert_int_eq(before[i], 0);
    ck_assert_int_eq(after[i], d[1]);
  }
  fg_program_free(p);
  fg_graph_free(g);
  /* the check launched by an invokable run as a graph (rsForEach) */
  g = fg_graph_new("invoke");
  in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(N)));
  fg_field *res = NULL;
  ck_assert_msg(fg_rs_invoke(g, s, "runCheck", 1, &in, 1, &res) == FG_OK,
                "%s", fg_graph_errmsg(g));
  fg_output(g, "o", res);
  p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){bad}, 1,
                                  (void *[]){o}), FG_OK);
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(o[i], bad[i] + 1);
  d = call_for(s, &box, "verify", 1, 4);
  ck_assert_int_eq(d[0], 1);
  fg_program_free(p);
  fg_graph_free(g);
  /* a global the invokable assigns after such a launch: refused at it */
  g = fg_graph_new("invoke2");
  in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(N)));
  ck_assert_int_eq(fg_rs_invoke(g, s, "runThenSet", 1, &in, 1, &res),
                   FG_ENOTSUP);
  ck_assert_msg(strstr(fg_graph_errmsg(g), "flag.rs:54:5:") &&
                strstr(fg_graph_errmsg(g), "assigns global 'count' after a "
                       "launch that writes the script's globals"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  tu_context_free(ctx);
  fg_rs_script_free(s);
}
END_TEST

/* scatter.rs: kernels that write through pointer globals bound to
 * fields, at indices they compute: a transpose into a pointer global
 * (the launch's copy of the bound field, which later launches read and
 * fg_rs_allocation_field returns), a kernel that returns a value and
 * writes (an index outside skipped), and a float4 pointee. */
START_TEST(test_rs_globals_pointer_globals_written) {
  enum { W = 7, H = 5, N = W * H };
  fg_rs_script *s = load("scatter.rs");
  int32_t height = H, width = W;
  ck_assert_int_eq(fg_rs_set(s, "height", &height, sizeof height), FG_OK);
  ck_assert_int_eq(fg_rs_set(s, "width", &width, sizeof width), FG_OK);
  int32_t in[N], base[N], t[N], read[N], row[W], mv[W], mo[N];
  for (int i = 0; i < N; i++) {
    in[i] = i * i - 40;
    base[i] = -1 - i;
  }
  fg_graph *g = fg_graph_new("scatter");
  fg_field *fi = fg_input(g, "in", fg_type_image(FG_I32, H, W, 1));
  fg_field *fb = fg_input(g, "base", fg_type_scalar(FG_I32, fg_shape1(N)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "output", fb), FG_OK);
  fg_field *tr = fg_rs_map(g, s, "transpose", 1, &fi, NULL);
  ck_assert_msg(tr, "%s", fg_graph_errmsg(g));
  ck_assert_ptr_eq(fg_rs_allocation_field(s, "output"), tr);
  fg_output(g, "t", tr);
  fg_rs_launch ln = {.shape = fg_shape1(N)};
  fg_output(g, "read", fg_rs_map(g, s, "readOut", 0, NULL, &ln));
  /* the first row through mirror, writing a copy of the transpose */
  fg_field *fr = fg_input(g, "row", fg_type_scalar(FG_I32, fg_shape1(W)));
  fg_output(g, "mv", fg_rs_map(g, s, "mirror", 1, &fr, NULL));
  fg_output(g, "mo", fg_rs_allocation_field(s, "output"));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  for (int x = 0; x < W; x++)
    row[x] = 100 + x;
  tu_run(g, 3, (const void *[]){in, base, row}, 4,
         (void *[]){t, read, mv, mo});
  fg_graph_free(g);
  int32_t want[N];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      want[x * H + y] = in[y * W + x] * 3;
  for (int i = 0; i < N; i++) {
    ck_assert_msg(t[i] == want[i], "t[%d] = %d, want %d", i, t[i], want[i]);
    ck_assert_int_eq(read[i], want[i] + 1);
  }
  for (int x = 0; x < W; x++) {
    ck_assert_int_eq(mv[x], (row[x] + 1) * 2);
    want[W - 1 - x] = row[x] + 1;
  }
  for (int i = 0; i < N; i++)
    ck_assert_msg(mo[i] == want[i], "mo[%d] = %d, want %d", i, mo[i],
                  want[i]);
  /* compound assignments through the pointer global, over a fresh copy */
  int32_t cin[W], cb[W], cv[W], co[W];
  for (int x = 0; x < W; x++) {
    cin[x] = 7 * x - 11;
    cb[x] = 100 - x * x;
  }
  g = fg_graph_new("compound");
  fg_field *fcin = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(W)));
  fg_field *fcb = fg_input(g, "b", fg_type_scalar(FG_I32, fg_shape1(W)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "output", fcb), FG_OK);
  fg_output(g, "v", fg_rs_map(g, s, "compound", 1, &fcin, NULL));
  fg_output(g, "o", fg_rs_allocation_field(s, "output"));
  tu_run(g, 2, (const void *[]){cin, cb}, 2, (void *[]){cv, co});
  fg_graph_free(g);
  for (int x = 0; x < W; x++) {
    int32_t e = cb[x], old = e++;
    ++e;
    e += cin[x];
    e -= 3;
    e *= 2;
    --e;
    int32_t v = old + e--;
    ck_assert_int_eq(cv[x], v);
    ck_assert_int_eq(co[x], e);
  }
  /* a float4 pointee */
  enum { M = 9 };
  float f[M], c0[4 * M], c[4 * M];
  for (int i = 0; i < M; i++)
    f[i] = 0.5f * (float)i - 1.f;
  for (int i = 0; i < 4 * M; i++)
    c0[i] = 42.f;
  g = fg_graph_new("paint");
  fg_field *ff = fg_input(g, "f", fg_type_scalar(FG_F32, fg_shape1(M)));
  fg_field *fc = fg_input(g, "c0", fg_type_vector(FG_F32, fg_shape1(M), 4));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "colours", fc), FG_OK);
  fg_output(g, "c", fg_rs_map(g, s, "paint", 1, &ff, NULL));
  tu_run(g, 2, (const void *[]){f, c0}, 1, (void *[]){c});
  fg_graph_free(g);
  for (int i = 0; i < M; i++) {
    ck_assert(c[4 * i] == f[i] && c[4 * i + 1] == f[i] * 2.f &&
              c[4 * i + 2] == 0.f && c[4 * i + 3] == 1.f);
  }
  /* what fieldgraph does not run: refused at the line, named at load */
  const char *w = fg_rs_script_warnings(s);
  ck_assert_msg(strstr(w, "scatter.rs:39:5: kernel 'bump': pointer "
                       "global 'output' is used as") &&
                !strstr(w, "'transpose'"),
                "%s", w);
  g = fg_graph_new("bad");
  fi = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(N)));
  ck_assert_ptr_null(fg_rs_map(g, s, "bump", 1, &fi, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "scatter.rs:39:5: fg_rs_map "
                       "'scatter.bump': pointer global 'output' is used as "
                       "fieldgraph does not"), "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("bad2");
  fi = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(N)));
  ck_assert_ptr_null(fg_rs_reduce(g, s, "spill", 1, &fi, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "scatter.rs:45:5: fg_rs_reduce "
                       "'scatter.spill': writes through pointer global "
                       "'output' from a reduction"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  g = fg_graph_new("bad3");
  fi = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(N)));
  ck_assert_ptr_null(fg_rs_map(g, s, "both", 1, &fi, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "scatter.rs:62:5: fg_rs_map "
                       "'scatter.both': kernel 'both' writes global 'width' "
                       "and writes through pointer global 'output'"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* multi.rs: launches that set elements of several allocations, each
 * written allocation one more result of the launch (a copy of its bound
 * field with the writes, of its own element type): a mapping kernel that
 * returns a value and writes a float4 and a uchar allocation, then a
 * legacy root() that reads what it left and writes two; an invokable
 * launching a kernel that writes two, then one reading them (results:
 * the written parameter, then the globals in declaration order); an
 * invokable run as one thread writing its two parameters and a global,
 * and one writing two pointer globals, then a kernel writing both.
 * Every written allocation is compared with a plain C loop; a write
 * fieldgraph does not run is refused at its line while the script's
 * other kernels run. */
START_TEST(test_rs_globals_several_allocations_written) {
  enum { W = 7, H = 5, N = W * H };
  fg_rs_script *s = load("multi.rs");
  fg_graph *g = fg_graph_new("pick");
  fg_field *fp = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(W)));
  ck_assert_ptr_null(fg_rs_map(g, s, "pick", 1, &fp, NULL));
  expect_error(g, FG_ENOTSUP, "multi.rs:85:5: fg_rs_map 'multi.pick': "
               "rsSetElementAt_int writes an allocation it does not name "
               "directly", NULL);
  fg_graph_free(g);

  /* split, then root over what split left in gRe */
  float in[4 * N], re0[4 * N], im0[4 * N];
  uint8_t m0[N];
  for (int i = 0; i < 4 * N; i++) {
    in[i] = 0.25f * (float)(i % 19) - 1.5f;
    re0[i] = -7.f - (float)i;
    im0[i] = 0.5f * (float)i;
  }
  for (int i = 0; i < N; i++)
    m0[i] = (uint8_t)(200 + i);
  g = fg_graph_new("split");
  fg_field *fin = fg_input(g, "in", fg_type_vector(FG_F32, fg_shape2(H, W),
                                                   4));
  fg_field *fre = fg_input(g, "re", fg_type_vector(FG_F32, fg_shape2(H, W),
                                                   4));
  fg_field *fim = fg_input(g, "im", fg_type_vector(FG_F32, fg_shape2(H, W),
                                                   4));
  fg_field *fm = fg_input(g, "m", fg_type_image(FG_U8, H, W, 1));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gRe", fre), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gIm", fim), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gMask", fm), FG_OK);
  fg_field *v = fg_rs_map(g, s, "split", 1, &fin, NULL);
  ck_assert_msg(v, "%s", fg_graph_errmsg(g));
  fg_field *re1 = fg_rs_allocation_field(s, "gRe");
  fg_field *m1 = fg_rs_allocation_field(s, "gMask");
  ck_assert_ptr_ne(re1, fre);
  ck_assert_ptr_ne(m1, fm);
  fg_output(g, "v", v);
  fg_output(g, "re1", re1);
  fg_output(g, "m1", m1);
  fg_field *o = fg_rs_map(g, s, "root", 1, &fin, NULL);
  ck_assert_msg(o, "%s", fg_graph_errmsg(g));
  fg_output(g, "o", o);
  fg_output(g, "re2", fg_rs_allocation_field(s, "gRe"));
  fg_output(g, "im2", fg_rs_allocation_field(s, "gIm"));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  int32_t vo[N];
  uint8_t m1o[N];
  float re1o[4 * N], oo[4 * N], re2o[4 * N], im2o[4 * N];
  tu_run(g, 4, (const void *[]){in, re0, im0, m0}, 6,
         (void *[]){vo, re1o, m1o, oo, re2o, im2o});
  fg_graph_free(g);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int i = y * W + x;
      ck_assert_int_eq(vo[i], (int)in[4 * i] + x);
      ck_assert_int_eq(m1o[i], x % 2 == 0 ? (uint8_t)(x + 3 * y) : m0[i]);
      float h = 1.f / (1.f + (float)x + (float)y);
      for (int c = 0; c < 4; c++) {
        int e = 4 * i + c;
        float r = in[e] * 2.f;
        ck_assert_msg(re1o[e] == r, "re1[%d] = %g, want %g", e, re1o[e], r);
        ck_assert_float_eq_tol(oo[e], in[e] + r, 1e-6f);
        ck_assert_float_eq_tol(re2o[e], r * h, 1e-5f);
        ck_assert_float_eq_tol(im2o[e], im0[e] * h + in[e], 1e-4f);
      }
    }

  /* process(): mark writes gCount and gMask, readBack reads them */
  enum { M = 9 };
  int32_t src[M], c0[M], dst[M], cnt[M];
  uint8_t k0[M], msk[M];
  for (int i = 0; i < M; i++) {
    src[i] = 37 * i - 100;
    c0[i] = -1;
    k0[i] = 9;
  }
  int32_t width = M;
  ck_assert_int_eq(fg_rs_set(s, "width", &width, sizeof width), FG_OK);
  g = fg_graph_new("process");
  fg_field *fs = fg_input(g, "src", fg_type_scalar(FG_I32, fg_shape1(M)));
  fg_field *fc = fg_input(g, "c0", fg_type_scalar(FG_I32, fg_shape1(M)));
  fg_field *fk = fg_input(g, "k0", fg_type_scalar(FG_U8, fg_shape1(M)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gCount", fc), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gMask", fk), FG_OK);
  fg_field *res[3];
  ck_assert_msg(fg_rs_invoke(g, s, "process", 1, &fs, 3, res) == FG_OK, "%s",
                fg_graph_errmsg(g));
  ck_assert_ptr_eq(res[1], fg_rs_allocation_field(s, "gCount"));
  ck_assert_ptr_eq(res[2], fg_rs_allocation_field(s, "gMask"));
  for (int k = 0; k < 3; k++)
    fg_output(g, k == 0 ? "dst" : k == 1 ? "cnt" : "msk", res[k]);
  tu_run(g, 3, (const void *[]){src, c0, k0}, 3, (void *[]){dst, cnt, msk});
  fg_graph_free(g);
  for (int x = 0; x < M; x++) {
    ck_assert_int_eq(cnt[x], src[x] * 3);
    ck_assert_int_eq(msk[M - 1 - x], (uint8_t)(src[x] & 255));
  }
  for (int x = 0; x < M; x++)
    ck_assert_int_eq(dst[x], cnt[x] + msk[x] + src[x] + 1);
  /* the results count the written globals: a wrong count is named */
  g = fg_graph_new("count");
  fs = fg_input(g, "src", fg_type_scalar(FG_I32, fg_shape1(M)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gCount", fs), FG_OK);
  ck_assert_int_ne(fg_rs_invoke(g, s, "process", 1, &fs, 1, res), FG_OK);
  expect_error(g, FG_EINVAL, "writes 3 (dst; and the globals gCount, "
               "gMask); got 1 argument(s) and 1 result(s)", NULL);
  fg_graph_free(g);

  /* scan(): one thread writing a, b and gMask */
  int32_t a0[M], a1[M];
  float b0[M], b1[M];
  uint8_t k1[M];
  for (int i = 0; i < M; i++) {
    a0[i] = 11 - 5 * i;
    b0[i] = 1000.f;
  }
  g = fg_graph_new("scan");
  fg_field *fa = fg_input(g, "a", fg_type_scalar(FG_I32, fg_shape1(M)));
  fg_field *fb = fg_input(g, "b", fg_type_scalar(FG_F32, fg_shape1(M)));
  fk = fg_input(g, "k0", fg_type_scalar(FG_U8, fg_shape1(M)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gMask", fk), FG_OK);
  ck_assert_msg(fg_rs_invoke(g, s, "scan", 2, (fg_field *[]){fa, fb}, 3,
                             res) == FG_OK, "%s", fg_graph_errmsg(g));
  ck_assert_ptr_eq(res[2], fg_rs_allocation_field(s, "gMask"));
  for (int k = 0; k < 3; k++)
    fg_output(g, k == 0 ? "a1" : k == 1 ? "b1" : "k1", res[k]);
  tu_run(g, 3, (const void *[]){a0, b0, k0}, 3, (void *[]){a1, b1, k1});
  fg_graph_free(g);
  int32_t sum = 0;
  for (int i = 0; i < M; i++) {
    sum += a0[i];
    ck_assert_int_eq(a1[i], sum);
    ck_assert_float_eq_tol(b1[i], (float)sum / (float)(i + 1), 1e-6f);
    ck_assert_int_eq(k1[i], (uint8_t)(sum & 255));
  }

  /* rows(): one thread writing pointer globals d0 and d1 */
  enum { L = 8 };
  int32_t len = L, e0[L], e1[L], f0[L], f1[L];
  ck_assert_int_eq(fg_rs_set(s, "len", &len, sizeof len), FG_OK);
  for (int i = 0; i < L; i++) {
    e0[i] = 1000 + i;
    e1[i] = 3 - i;
  }
  g = fg_graph_new("rows");
  fg_field *g0 = fg_input(g, "e0", fg_type_scalar(FG_I32, fg_shape1(L)));
  fg_field *g1 = fg_input(g, "e1", fg_type_scalar(FG_I32, fg_shape1(L)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "d0", g0), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "d1", g1), FG_OK);
  ck_assert_msg(fg_rs_invoke(g, s, "rows", 0, NULL, 2, res) == FG_OK, "%s",
                fg_graph_errmsg(g));
  fg_output(g, "d0", res[0]);
  fg_output(g, "d1", res[1]);
  tu_run(g, 2, (const void *[]){e0, e1}, 2, (void *[]){f0, f1});
  fg_graph_free(g);
  int32_t w0[L], w1[L];
  memcpy(w1, e1, sizeof w1);
  for (int x = 0, t = 0; x < L; x++)
    w0[x] = t += x;
  for (int x = 1; x < L; x++)
    w1[x] = w0[x - 1] + w1[x - 1];
  for (int x = 0; x < L; x++) {
    ck_assert_int_eq(f0[x], w0[x]);
    ck_assert_int_eq(f1[x], w1[x]);
  }
  /* twoPtrs: a mapping kernel writing both pointer globals */
  g = fg_graph_new("twoPtrs");
  fg_field *gi = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(L)));
  g0 = fg_input(g, "e0", fg_type_scalar(FG_I32, fg_shape1(L)));
  g1 = fg_input(g, "e1", fg_type_scalar(FG_I32, fg_shape1(L)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "d0", g0), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "d1", g1), FG_OK);
  fg_field *t0 = fg_rs_map(g, s, "twoPtrs", 1, &gi, NULL);
  ck_assert_msg(t0, "%s", fg_graph_errmsg(g));
  ck_assert_ptr_eq(t0, fg_rs_allocation_field(s, "d0"));
  fg_output(g, "d0", t0);
  fg_output(g, "d1", fg_rs_allocation_field(s, "d1"));
  tu_run(g, 3, (const void *[]){w0, e0, e1}, 2, (void *[]){f0, f1});
  fg_graph_free(g);
  for (int x = 0; x < L; x++) {
    ck_assert_int_eq(f0[x], w0[x]);
    ck_assert_int_eq(f1[L - 1 - x], w0[x] * 2);
  }
  fg_rs_script_free(s);
}
END_TEST

/* multi.rs keepOdd(): rsForEach(evens, buf, buf) of a legacy kernel that
 * writes its output pointer only at even x; at the others the output
 * keeps the Allocation's contents, as on Android (HPFilter's filter()
 * launches its root() so). */
START_TEST(test_rs_globals_legacy_output_keeps_allocation) {
  enum { M = 9 };
  fg_rs_script *s = load("multi.rs");
  fg_field *res[1];
  int32_t kb[M], ka[M];
  for (int i = 0; i < M; i++)
    kb[i] = 5 - 3 * i;
  fg_graph *g = fg_graph_new("keep");
  fg_field *fkb = fg_input(g, "buf", fg_type_scalar(FG_I32, fg_shape1(M)));
  ck_assert_msg(fg_rs_invoke(g, s, "keepOdd", 1, &fkb, 1, res) == FG_OK, "%s",
                fg_graph_errmsg(g));
  fg_output(g, "kept", res[0]);
  tu_run(g, 1, (const void *[]){kb}, 1, (void *[]){ka});
  fg_graph_free(g);
  for (int x = 0; x < M; x++)
    ck_assert_int_eq(ka[x], x % 2 == 0 ? kb[x] * 10 : kb[x]);
  fg_rs_script_free(s);
}
END_TEST

/* A node has at most FG_MAX_OUTPUTS results: a kernel that returns a
 * value and writes ten allocations is refused at the write that is one
 * too many; one that writes the ten and returns nothing runs.  So for an
 * invokable run as one thread whose copy of the globals block takes the
 * place of the value: ten allocations are refused, nine run. */
START_TEST(test_rs_globals_written_allocations_limit) {
  char src[4096];
  size_t n = (size_t)snprintf(src, sizeof src, "#pragma version(1)\n"
                              "#pragma rs java_package_name(t)\n");
  for (int k = 0; k < 10; k++)
    n += (size_t)snprintf(src + n, sizeof src - n, "rs_allocation a%d;\n",
                          k);
  for (int r = 0; r < 2; r++) {
    n += (size_t)snprintf(src + n, sizeof src - n,
                          "%s RS_KERNEL %s(int v, uint32_t x) {\n",
                          r ? "void" : "int", r ? "all" : "ten");
    for (int k = 0; k < 10; k++)
      n += (size_t)snprintf(src + n, sizeof src - n,
                            "  rsSetElementAt_int(a%d, v + %d, x);\n", k, k);
    n += (size_t)snprintf(src + n, sizeof src - n, "%s",
                          r ? "}\n" : "  return v;\n}\n");
  }
  /* invokables run as one thread that also write a global: its copy of
   * the globals block is one more output */
  n += (size_t)snprintf(src + n, sizeof src - n, "int gcount;\n");
  for (int r = 0; r < 2; r++) {
    n += (size_t)snprintf(src + n, sizeof src - n, "void %s(int m) {\n"
                          "  for (int i = 0; i < m; i++) {\n",
                          r ? "nine" : "fill");
    for (int k = 0; k < 10 - r; k++)
      n += (size_t)snprintf(src + n, sizeof src - n,
                            "    rsSetElementAt_int(a%d, i + %d, i);\n", k,
                            k);
    n += (size_t)snprintf(src + n, sizeof src - n,
                          "  }\n  gcount = m;\n}\n");
  }
  n += (size_t)snprintf(src + n, sizeof src - n,
                        "int RS_KERNEL plus(int v) {\n"
                        "  return v + gcount;\n}\n");
  ck_assert_uint_lt(n, sizeof src);
  char err[1024];
  fg_rs_script *s = NULL;
  ck_assert_msg(fg_rs_script_new_source("t", "t.rs", src, n, &s, err,
                                        sizeof err) == FG_OK, "%s", err);
  enum { N = 6 };
  fg_graph *g = fg_graph_new("ten");
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_I32, fg_shape1(N)));
  for (int k = 0; k < 10; k++) {
    char name[24];
    snprintf(name, sizeof name, "a%d", k);
    ck_assert_int_eq(fg_rs_bind_allocation(s, name, x), FG_OK);
  }
  ck_assert_ptr_null(fg_rs_map(g, s, "ten", 1, &x, NULL));
  expect_error(g, FG_ENOTSUP, "t.rs:23:3: fg_rs_map 't.ten': "
               "rsSetElementAt_int writes one of 10 allocations of a kernel "
               "that also returns a value; fieldgraph runs a launch with at "
               "most 10 results", NULL);
  fg_graph_free(g);
  g = fg_graph_new("all");
  x = fg_input(g, "x", fg_type_scalar(FG_I32, fg_shape1(N)));
  for (int k = 0; k < 10; k++) {
    char name[24];
    snprintf(name, sizeof name, "a%d", k);
    ck_assert_int_eq(fg_rs_bind_allocation(s, name, x), FG_OK);
  }
  ck_assert_msg(fg_rs_map(g, s, "all", 1, &x, NULL), "%s",
                fg_graph_errmsg(g));
  int32_t in[N], out[10][N];
  void *outs[10];
  for (int k = 0; k < 10; k++) {
    char name[24];
    snprintf(name, sizeof name, "a%d", k);
    fg_output(g, name, fg_rs_allocation_field(s, name));
    outs[k] = out[k];
  }
  for (int i = 0; i < N; i++)
    in[i] = 3 * i - 4;
  tu_run(g, 1, (const void *[]){in}, 10, outs);
  fg_graph_free(g);
  for (int k = 0; k < 10; k++)
    for (int i = 0; i < N; i++)
      ck_assert_int_eq(out[k][i], in[i] + k);
  /* fill: ten allocations and the globals block are 11 outputs */
  int32_t m = N - 1;
  fg_field *res[10];
  g = fg_graph_new("fill");
  x = fg_input(g, "x", fg_type_scalar(FG_I32, fg_shape1(N)));
  for (int k = 0; k < 10; k++) {
    char name[24];
    snprintf(name, sizeof name, "a%d", k);
    ck_assert_int_eq(fg_rs_bind_allocation(s, name, x), FG_OK);
  }
  ck_assert_int_eq(fg_rs_invoke_args(g, s, "fill", (const void *[]){&m}, 0,
                                     NULL, 10, res), FG_ENOTSUP);
  expect_error(g, FG_ENOTSUP, "t.rs:50:5: ", "'t.fill': rsSetElementAt_int "
               "writes one of 10 allocations of a function that also "
               "writes script globals; fieldgraph runs a launch with at "
               "most 10 results", NULL);
  fg_graph_free(g);
  /* nine: nine results, then the globals block the kernel after it
   * reads */
  g = fg_graph_new("nine");
  x = fg_input(g, "x", fg_type_scalar(FG_I32, fg_shape1(N)));
  for (int k = 0; k < 10; k++) {
    char name[24];
    snprintf(name, sizeof name, "a%d", k);
    ck_assert_int_eq(fg_rs_bind_allocation(s, name, x), FG_OK);
  }
  ck_assert_msg(fg_rs_invoke_args(g, s, "nine", (const void *[]){&m}, 0,
                                  NULL, 9, res) == FG_OK, "%s",
                fg_graph_errmsg(g));
  for (int k = 0; k < 9; k++) {
    char name[24];
    snprintf(name, sizeof name, "a%d", k);
    ck_assert_ptr_eq(res[k], fg_rs_allocation_field(s, name));
    fg_output(g, name, res[k]);
    outs[k] = out[k];
  }
  fg_output(g, "plus", fg_rs_map(g, s, "plus", 1, &x, NULL));
  outs[9] = out[9];
  tu_run(g, 1, (const void *[]){in}, 10, outs);
  fg_graph_free(g);
  for (int k = 0; k < 9; k++)
    for (int i = 0; i < N; i++)
      ck_assert_int_eq(out[k][i], i < m ? i + k : in[i]);
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(out[9][i], in[i] + m);
  fg_rs_script_free(s);
}
END_TEST

/* The element of a that a[i] reads through a pointer global bound to a
 * field of n elements: i clamped to the field, as fieldgraph clamps. */
static float clamped(const float *a, int n, int i) {
  return a[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* ptrview.rs: pointer globals used beyond p[e]: *p and p->m, p + e
 * passed to helpers that index it (a read past the field clamped to
 * it), pass it on moved and write through it (the launch's copy of the
 * bound field), a double pointer global written and read as floats by
 * helpers taking float *; and the uses refused at their lines. */
START_TEST(test_rs_globals_pointer_views) {
  enum { NS = 16, W = 6, WF = 4, L = 5, D = 10, WS = 8 };
  fg_rs_script *s = load("ptrview.rs");
  int32_t len = L;
  ck_assert_int_eq(fg_rs_set(s, "len", &len, sizeof len), FG_OK);
  float stack[NS], in[W], tint[4] = {0.5f, -2.f, 3.f, 0.25f};
  int32_t off[W] = {0, 3, 7, 12, 13, 2};
  for (int i = 0; i < NS; i++)
    stack[i] = 1.5f * (float)i - 4.f + (float)(i % 3) * 0.25f;
  for (int x = 0; x < W; x++)
    in[x] = (float)x * 0.75f - 1.f;
  double ang0[D];
  for (int i = 0; i < D; i++)
    ang0[i] = -1.0 - i;
  fg_graph *g = fg_graph_new("views");
  fg_field *fin = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(W)));
  fg_field *fst = fg_input(g, "stack", fg_type_scalar(FG_F32, fg_shape1(NS)));
  fg_field *fof = fg_input(g, "off", fg_type_scalar(FG_I32, fg_shape1(W)));
  fg_field *fti = fg_input(g, "tint", fg_type_vector(FG_F32, fg_shape1(1), 4));
  fg_field *fan = fg_input(g, "ang", fg_type_scalar(FG_F64, fg_shape1(D)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "stack", fst), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "offsets", fof), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "tint", fti), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "angles", fan), FG_OK);
  fg_field *fl = fg_rs_map(g, s, "filter", 1, &fin, NULL);
  ck_assert_msg(fl, "%s", fg_graph_errmsg(g));
  fg_output(g, "filter", fl);
  fg_output(g, "shade", fg_rs_map(g, s, "shade", 1, &fin, NULL));
  fg_output(g, "mixed", fg_rs_map(g, s, "mixed", 1, &fin, NULL));
  fg_field *fin4 = fg_input(g, "in4", fg_type_scalar(FG_F32, fg_shape1(WF)));
  ck_assert_msg(fg_rs_map(g, s, "fill", 1, &fin4, NULL), "%s",
                fg_graph_errmsg(g));
  fg_output(g, "total", fg_rs_map(g, s, "total", 1, &fin4, NULL));
  fg_output(g, "angles_out", fg_rs_allocation_field(s, "angles"));
  fg_field *fin8 = fg_input(g, "in8", fg_type_scalar(FG_F32, fg_shape1(WS)));
  ck_assert_msg(fg_rs_map(g, s, "scale", 1, &fin8, NULL), "%s",
                fg_graph_errmsg(g));
  ck_assert_msg(fg_rs_map(g, s, "head", 1, &fin8, NULL), "%s",
                fg_graph_errmsg(g));
  fg_output(g, "stack_out", fg_rs_allocation_field(s, "stack"));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  float in4[WF], in8[WS];
  for (int x = 0; x < WF; x++)
    in4[x] = 0.5f + (float)x;
  for (int x = 0; x < WS; x++)
    in8[x] = 2.f - (float)x * 0.5f;
  float got_f[W], got_s[W], got_m[W], got_t[WF], got_st[NS];
  double got_a[D];
  tu_run(g, 7, (const void *[]){in, stack, off, tint, ang0, in4, in8},
         6, (void *[]){got_f, got_s, got_m, got_t, got_a, got_st});
  fg_graph_free(g);
  for (int x = 0; x < W; x++) {
    const float *a = stack + off[x];
    int n = NS - off[x];
    float t = 0.f;
    for (int i = 0; i < 3; i++)
      t += clamped(a, n, i) * (float)(i + 1);
    t += clamped(a, n, 1) + clamped(a, n, 2) + clamped(a, n, 3);
    float want = in[x] * stack[0] + t;
    ck_assert_msg(got_f[x] == want, "filter[%d] = %g, want %g", x,
                  (double)got_f[x], (double)want);
    ck_assert(got_s[x] == in[x] * tint[1] + tint[3]);
    ck_assert(got_m[x] == stack[0] + in[x]);
  }
  float af[2 * D];
  memcpy(af, ang0, sizeof ang0);
  for (int x = 0; x < WF; x++)
    for (int y = 0; y < L; y++)
      af[L * x + y] = in4[x] * (float)y;
  ck_assert_msg(!memcmp(got_a, af, sizeof af), "angles differ");
  for (int x = 0; x < WF; x++) {
    float want = 0.f;
    for (int y = 0; y < L; y++)
      want += af[L * x + y];
    want += in4[x];
    ck_assert_msg(got_t[x] == want, "total[%d] = %g, want %g", x,
                  (double)got_t[x], (double)want);
  }
  float st[NS];
  memcpy(st, stack, sizeof st);
  for (int x = 0; x < WS; x++) {
    st[2 * x] += in8[x];
    st[2 * x + 1] *= 2.f;
  }
  st[0] = in8[0];
  for (int i = 0; i < NS; i++)
    ck_assert_msg(got_st[i] == st[i], "stack[%d] = %g, want %g", i,
                  (double)got_st[i], (double)st[i]);
  /* refused at their lines */
  static const struct {
    const char *kernel, *msg;
  } bad[] = {
    {"alias", "ptrview.rs:78:19: fg_rs_map 'ptrview.alias': pointer 'a' "
              "is used as fieldgraph does not"},
    {"fromTable", "ptrview.rs:165:18: fg_rs_map 'ptrview.fromTable': "
                  "parameter 'a' of 'first' is given a pointer global "
                  "elsewhere and a script global's memory here"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    g = fg_graph_new("bad");
    fin = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(W)));
    ck_assert_ptr_null(fg_rs_map(g, s, bad[k].kernel, 1, &fin, NULL));
    ck_assert_msg(strstr(fg_graph_errmsg(g), bad[k].msg), "%s",
                  fg_graph_errmsg(g));
    fg_graph_free(g);
  }
  g = fg_graph_new("bad2");
  fin = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(W)));
  ck_assert_ptr_null(fg_rs_reduce(g, s, "spill", 1, &fin, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "ptrview.rs:98:10: fg_rs_reduce "
                       "'ptrview.spill': writes through pointer global "
                       "'stack' from a reduction"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  /* a bool pointer global: bytes set to 0 or 1 */
  int32_t bi[4] = {-3, 5, 300, 7}, bseen[4];
  uint8_t b0[2] = {0, 7}, bgot[2];
  g = fg_graph_new("bools");
  fin = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(4)));
  fg_field *fb = fg_input(g, "b", fg_type_scalar(FG_U8, fg_shape1(2)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "failed", fb), FG_OK);
  ck_assert_msg(fg_rs_map(g, s, "check", 1, &fin, NULL), "%s",
                fg_graph_errmsg(g));
  fg_output(g, "seen", fg_rs_map(g, s, "seen", 1, &fin, NULL));
  fg_output(g, "failed", fg_rs_allocation_field(s, "failed"));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  tu_run(g, 2, (const void *[]){bi, b0}, 2, (void *[]){bseen, bgot});
  fg_graph_free(g);
  ck_assert(bgot[0] == 1 && bgot[1] == 1);
  for (int x = 0; x < 4; x++)
    ck_assert_int_eq(bseen[x], bi[x]);
  g = fg_graph_new("bad3");
  fin = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(4)));
  ck_assert_ptr_null(fg_rs_map(g, s, "toggle", 1, &fin, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "ptrview.rs:123:5: fg_rs_map "
                       "'ptrview.toggle': pointer global 'failed' of bool "
                       "is updated"), "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  /* view locals: T *q = p + e; written through a helper, read */
  enum { WB = 5 };
  int32_t pin[WB] = {3, 10, 250, 0, 77}, unp[WB];
  uint8_t by0[4 * WB], by[4 * WB];
  for (int i = 0; i < 4 * WB; i++)
    by0[i] = (uint8_t)(i * 37 + 5);
  g = fg_graph_new("locals");
  fin = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(WB)));
  fb = fg_input(g, "b", fg_type_scalar(FG_U8, fg_shape1(4 * WB)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "bytes", fb), FG_OK);
  ck_assert_msg(fg_rs_map(g, s, "pack", 1, &fin, NULL), "%s",
                fg_graph_errmsg(g));
  fg_rs_launch lw = {.shape = fg_shape1(WB)};
  fg_output(g, "unpack", fg_rs_map(g, s, "unpack", 0, NULL, &lw));
  fg_output(g, "bytes", fg_rs_allocation_field(s, "bytes"));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  tu_run(g, 2, (const void *[]){pin, by0}, 2, (void *[]){unp, by});
  fg_graph_free(g);
  for (int x = 0; x < WB; x++) {
    uint8_t want[4] = {(uint8_t)pin[x], (uint8_t)(pin[x] + 1),
                       (uint8_t)(pin[x] + 2), (uint8_t)(by0[4 * x + 3] + 1)};
    ck_assert_msg(!memcmp(by + 4 * x, want, 4), "bytes of %d differ", x);
    ck_assert_int_eq(unp[x], want[0] + want[3]);
  }
  /* moved: slide (out = out + x; *out = in), then walk */
  g = fg_graph_new("moves");
  fin = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(WB)));
  fb = fg_input(g, "b", fg_type_scalar(FG_U8, fg_shape1(4 * WB)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "bytes", fb), FG_OK);
  ck_assert_msg(fg_rs_map(g, s, "slide", 1, &fin, NULL), "%s",
                fg_graph_errmsg(g));
  fg_output(g, "slid", fg_rs_allocation_field(s, "bytes"));
  ck_assert_msg(fg_rs_map(g, s, "walk", 1, &fin, NULL), "%s",
                fg_graph_errmsg(g));
  fg_output(g, "walked", fg_rs_allocation_field(s, "bytes"));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  uint8_t slid[4 * WB], walked[4 * WB];
  tu_run(g, 2, (const void *[]){pin, by0}, 2, (void *[]){slid, walked});
  fg_graph_free(g);
  for (int i = 0; i < 4 * WB; i++)
    ck_assert_int_eq(slid[i], i < WB ? (uint8_t)pin[i] : by0[i]);
  for (int x = 0; x < WB; x++)
    for (int i = 0; i < 4; i++)
      ck_assert_int_eq(walked[4 * x + i],
                       (uint8_t)(i == 1 ? (uint8_t)(pin[x] + 1) * 2
                                        : pin[x] + i));
  /* through a cast: (const uchar4 *)bytes + x */
  int32_t words[WB];
  g = fg_graph_new("cast");
  fb = fg_input(g, "b", fg_type_scalar(FG_U8, fg_shape1(4 * WB)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "bytes", fb), FG_OK);
  fg_output(g, "words", fg_rs_map(g, s, "asWords", 0, NULL, &lw));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  tu_run(g, 1, (const void *[]){by0}, 1, (void *[]){words});
  fg_graph_free(g);
  for (int x = 0; x < WB; x++)
    ck_assert_int_eq(words[x], by0[4 * x] + by0[4 * x + 3] * 256);
  /* a pointer local into a constant table given to a helper */
  int32_t tw[WB], tt[WB];
  g = fg_graph_new("table");
  fg_output(g, "tw", fg_rs_map(g, s, "tableWalk", 0, NULL, &lw));
  fg_output(g, "tt", fg_rs_map(g, s, "tableTwice", 0, NULL, &lw));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  tu_run(g, 0, NULL, 2, (void *[]){tw, tt});
  fg_graph_free(g);
  for (int x = 0; x < WB; x++) {
    ck_assert_int_eq(tw[x], 2 * (x % 3) + 3);
    ck_assert_int_eq(tt[x], 2 * (2 * (x % 3) + 3));
  }
  g = fg_graph_new("bad4");
  fin = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(4)));
  ck_assert_ptr_null(fg_rs_map(g, s, "lose", 1, &fin, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "ptrview.rs:183:5: fg_rs_map "
                       "'ptrview.lose': pointer 'q' is used as "
                       "fieldgraph does not"), "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  static const struct {
    const char *kernel, *msg;
  } unbound[] = {
    {"pairA", "ptrview.rs:232:12: fg_rs_map 'ptrview.pairA': uses global "
              "'pairs', which fieldgraph cannot hold (/"},
    {"pairA", "ptrview.rs:228:7: "
              "pointer global 'pairs' of type Pair * is not supported: "
              "fieldgraph binds pointer globals to numbers, vectors, "
              "bool and structs without pointer"},
    {"presetX", "ptrview.rs:236:12: fg_rs_map 'ptrview.presetX': uses "
                "global 'preset', which fieldgraph cannot hold (/"},
    {"presetX", "ptrview.rs:229:9: pointer global 'preset' has an "
                "initializer other than NULL; fieldgraph binds pointer "
                "globals declared without one or with NULL"},
  };
  for (size_t k = 0; k < sizeof unbound / sizeof *unbound; k++) {
    g = fg_graph_new("bad6");
    ck_assert_ptr_null(fg_rs_map(g, s, unbound[k].kernel, 0, NULL, &lw));
    ck_assert_msg(strstr(fg_graph_errmsg(g), unbound[k].msg), "%s",
                  fg_graph_errmsg(g));
    fg_graph_free(g);
  }
  g = fg_graph_new("bad5");
  fin = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(4)));
  ck_assert_ptr_null(fg_rs_map(g, s, "argMove", 1, &fin, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "ptrview.rs:197:10: fg_rs_map "
                       "'ptrview.argMove': pointer 'q' is used as "
                       "fieldgraph does not"), "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  /* the kernel's own array given to put3, which writes views elsewhere */
  int32_t l3[WB];
  g = fg_graph_new("local3");
  fin = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(WB)));
  fg_output(g, "l3", fg_rs_map(g, s, "local3", 1, &fin, NULL));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  tu_run(g, 1, (const void *[]){pin}, 1, (void *[]){l3});
  fg_graph_free(g);
  for (int x = 0; x < WB; x++)
    ck_assert_int_eq(l3[x], (uint8_t)pin[x] + (uint8_t)(pin[x] + 1) +
                                (uint8_t)(pin[x] + 2));
  /* a pointer global not bound, named as one */
  fg_rs_script *s2 = load("ptrview.rs");
  g = fg_graph_new("unbound");
  fin = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(4)));
  ck_assert_ptr_null(fg_rs_map(g, s2, "shade", 1, &fin, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "the kernel reads pointer global "
                       "'tint', which is not bound"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s2);
  ck_assert_int_eq(fg_rs_call(s, "peek"), FG_ENOTSUP);
  ck_assert_msg(strstr(fg_rs_script_errmsg(s), "ptrview.rs:103:21: "
                       "fg_rs_call 'ptrview.peek': reads or writes through "
                       "pointer global 'stack'"), "%s",
                fg_rs_script_errmsg(s));
  fg_rs_script_free(s);
}
END_TEST

/* structptr.rs: a static struct pointer that an invokable gives a float4
 * buffer the host binds, by a cast (Refocus's pattern): unpack writes
 * members at computed indices,
 * mark reads a neighbour's and updates members (+=, ++, *=, -=, through a
 * helper too), pack reads them through a helper and a const pointer local,
 * and a struct of ints over an int3 field; the buffer afterwards holds
 * exactly what plain C does to an array of the same struct, and the
 * float4 buffer global reads the same field. */
typedef struct spix {
  float red, green, blue;
  uint8_t depth, active, matte, dilated;
} spix;

START_TEST(test_rs_globals_struct_pointers) {
  enum { W = 9 };
  ck_assert_uint_eq(sizeof(spix), 16);
  fg_rs_script *s = load("structptr.rs");
  int32_t width = 5;
  ck_assert_int_eq(fg_rs_set(s, "width", &width, sizeof width), FG_OK);
  uint8_t *in = pattern(W, 1);
  in[4 * 3 + 3] = 200;          /* some points marked, some not */
  in[4 * 4 + 3] = 20;
  float buf0[4 * W], gain = 0.75f, got[W], rows[W / 3], lay[W];
  for (int i = 0; i < 4 * W; i++)
    buf0[i] = -1.f - (float)i;
  int32_t info[6] = {3, 7, -2, 4, 9, 11};
  spix buf[W];
  fg_graph *g = fg_graph_new("structs");
  fg_field *fin = fg_input(g, "in", fg_type_vector(FG_U8, fg_shape1(W), 4));
  fg_field *fb = fg_input(g, "buf", fg_type_vector(FG_F32, fg_shape1(W), 4));
  fg_field *fi = fg_input(g, "info", fg_type_vector(FG_I32, fg_shape1(2), 3));
  fg_field *fg = fg_input(g, "gain", fg_type_scalar(FG_F32, fg_shape1(1)));
  /* a struct of 16 bytes is no float (4 bytes a point) */
  ck_assert_int_eq(fg_rs_bind_allocation(s, "pixels", fg), FG_ETYPE);
  ck_assert_msg(strstr(fg_rs_script_errmsg(s), "field 'gain' is f32[1], 4 "
                       "bytes a point; the pointer global reads struct Pixel, "
                       "16 bytes"), "%s", fg_rs_script_errmsg(s));
  /* pixels = (Pixel_t *)buffer; on the host: pixels follows buffer's
   * binding, made before or after */
  ck_assert_msg(fg_rs_call(s, "setup") == FG_OK, "%s",
                fg_rs_script_errmsg(s));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "buffer", fb), FG_OK);
  ck_assert_ptr_eq(fg_rs_allocation_field(s, "pixels"), fb);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "info", fi), FG_OK);
  ck_assert_int_eq(fg_rs_bind_allocation(s, "gain", fg), FG_OK);
  ck_assert_msg(fg_rs_map(g, s, "unpack", 1, &fin, NULL), "%s",
                fg_graph_errmsg(g));
  ck_assert_msg(fg_rs_map(g, s, "mark", 1, &fin, NULL), "%s",
                fg_graph_errmsg(g));
  fg_rs_launch lw = {.shape = fg_shape1(W)};
  fg_output(g, "packed", fg_rs_map(g, s, "pack", 0, NULL, &lw));
  fg_rs_launch l3 = {.shape = fg_shape1(W / 3)};
  fg_output(g, "rows", fg_rs_map(g, s, "rowSum", 0, NULL, &l3));
  fg_output(g, "layered", fg_rs_map(g, s, "layered", 0, NULL, &lw));
  ck_assert_ptr_eq(fg_rs_allocation_field(s, "pixels"),
                   fg_rs_allocation_field(s, "buffer"));
  fg_output(g, "pixels_out", fg_rs_allocation_field(s, "buffer"));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  tu_run(g, 4, (const void *[]){in, buf0, info, &gain}, 4,
         (void *[]){got, rows, lay, buf});
  fg_graph_free(g);
  spix want[W];
  for (int x = 0; x < W; x++) {
    const uint8_t *p = in + 4 * x;
    want[x] = (spix){(float)p[0] * (1.f / 255.f),
                     (float)p[1] * (1.f / 255.f), (float)p[2] * gain,
                     (uint8_t)(p[3] >> 2), 0, 0, 0};
  }
  for (int x = 1; x < W; x++) {
    if (in[4 * x + 3] < 100)
      continue;
    spix *px = &want[x];
    px->dilated = want[x - 1].depth;
    px->active = 1;
    px->matte = (uint8_t)(px->matte + width);
    px->matte++;
    px->red *= 2.f;
    px->green -= 0.5f;
  }
  for (int x = 0; x < W; x++) {
    const spix *px = &want[x];
    float w = px->red + px->green * 2.f + px->blue * 4.f;
    w = w + (float)px->matte * 100.f + (float)px->active * 10.f +
        (float)px->dilated * 1000.f + (float)info[3 * (x % 2) + 1] * 0.5f +
        (float)info[5];
    ck_assert_msg(!memcmp(&buf[x], px, sizeof *px), "pixel %d differs", x);
    ck_assert_msg(got[x] == w, "pack[%d] = %g, want %g", x,
                  (double)got[x], (double)w);
  }
  int n_on = 0;
  for (int x = 0; x < W; x++) {
    int d = want[x].depth, k = (int)(want[x].red * 4.f) & 3;
    n_on += d >= 20 && d <= 40;
    float w = d >= 20 && d <= 40 ? (float)k * 0.5f + 1.f : -1.f;
    ck_assert_msg(lay[x] == w, "layered[%d] = %g, want %g", x,
                  (double)lay[x], (double)w);
  }
  ck_assert(n_on > 0 && n_on < W);        /* both branches taken */
  for (int x = 0; x < W / 3; x++) {
    float w = 0.f;
    for (int i = 0; i < 3; i++)
      w += want[3 * x + i].red;
    ck_assert_msg(rows[x] == w, "rowSum[%d] = %g, want %g", x,
                  (double)rows[x], (double)w);
  }
  free(in);
  /* refused at their lines; the rest of the script ran above */
  static const struct {
    const char *kernel, *msg;
  } bad[] = {
    {"badDivide", "structptr.rs:95:6: fg_rs_map 'structptr.badDivide': "
                  "pointer global 'pixels' is used as fieldgraph does not"},
    {"badWhole", "structptr.rs:100:5: fg_rs_map 'structptr.badWhole': the "
                 "struct that 'pixels' points to is updated whole"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    g = fg_graph_new("bad");
    fin = fg_input(g, "in", fg_type_vector(FG_U8, fg_shape1(W), 4));
    ck_assert_ptr_null(fg_rs_map(g, s, bad[k].kernel, 1, &fin, NULL));
    ck_assert_msg(strstr(fg_graph_errmsg(g), bad[k].msg), "%s",
                  fg_graph_errmsg(g));
    fg_graph_free(g);
  }
  ck_assert_int_eq(fg_rs_call(s, "badAlias"), FG_ENOTSUP);
  ck_assert_msg(strstr(fg_rs_script_errmsg(s), "structptr.rs:106:5: "
                       "fg_rs_call 'structptr.badAlias': assigns pointer "
                       "global 'floats' (elements of 4 bytes) the memory "
                       "of 'buffer' (elements of 16 bytes)"), "%s",
                fg_rs_script_errmsg(s));
  ck_assert_int_eq(fg_rs_call(s, "condAlias", 1), FG_ENOTSUP);
  ck_assert_msg(strstr(fg_rs_script_errmsg(s), "structptr.rs:111:9: "
                       "fg_rs_call 'structptr.condAlias': reads or writes "
                       "through pointer global 'pixels'"), "%s",
                fg_rs_script_errmsg(s));
  /* pixels = NULL; unbinds it, and buffer keeps its field */
  ck_assert_msg(fg_rs_call(s, "drop") == FG_OK, "%s",
                fg_rs_script_errmsg(s));
  ck_assert_ptr_null(fg_rs_allocation_field(s, "pixels"));
  g = fg_graph_new("dropped");
  fg_field *fb2 = fg_input(g, "buf", fg_type_vector(FG_F32, fg_shape1(W),
                                                    4));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "buffer", fb2), FG_OK);
  ck_assert_ptr_null(fg_rs_map(g, s, "pack", 0, NULL, &lw));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "the kernel reads pointer "
                       "global 'pixels', which is not bound"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  /* a float3 member (16 bytes, RenderScript's layout) and a struct
   * member, over a field of 32-byte points */
  typedef struct {
    float pos[4] __attribute__((aligned(16)));
    int32_t id;
    float w;
    int32_t n;
  } particle;
  ck_assert_uint_eq(sizeof(particle), 32);
  particle pt0[W], pt[W];
  float pin[W];
  memset(pt0, 0, sizeof pt0);
  for (int x = 0; x < W; x++) {
    for (int k = 0; k < 4; k++)
      pt0[x].pos[k] = (float)(x * 4 + k) * 0.5f;
    pt0[x].id = -1;
    pt0[x].w = 9.f;
    pt0[x].n = 100 + x;
    pin[x] = 0.25f * (float)x - 1.f;
  }
  g = fg_graph_new("particles");
  fin = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(W)));
  fg_field *fp = fg_input(g, "parts", fg_type_vector(FG_U64, fg_shape1(W),
                                                     4));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "parts", fp), FG_OK);
  ck_assert_msg(fg_rs_map(g, s, "move", 1, &fin, NULL), "%s",
                fg_graph_errmsg(g));
  fg_output(g, "parts_out", fg_rs_allocation_field(s, "parts"));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  tu_run(g, 2, (const void *[]){pin, pt0}, 1, (void *[]){pt});
  fg_graph_free(g);
  for (int x = 0; x < W; x++) {
    particle wp = pt0[x];
    for (int k = 0; k < 3; k++)
      wp.pos[k] += pin[x];
    wp.n += 2;
    wp.w = wp.pos[1];
    wp.id = x * 3;
    for (int k = 0; k < 3; k++)
      ck_assert_msg(pt[x].pos[k] == wp.pos[k], "pos[%d].%d", x, k);
    ck_assert_int_eq(pt[x].id, wp.id);
    ck_assert_int_eq(pt[x].n, wp.n);
    ck_assert_msg(pt[x].w == wp.w, "w[%d] = %g", x, (double)pt[x].w);
  }
  g = fg_graph_new("swizzle");
  fin = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(W)));
  ck_assert_ptr_null(fg_rs_map(g, s, "badSwizzle", 1, &fin, NULL));
  ck_assert_msg(strstr(fg_graph_errmsg(g), "structptr.rs:163:5: fg_rs_map "
                       "'structptr.badSwizzle': pointer global 'parts' is "
                       "used as fieldgraph does not"), "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

int main(void) {
  Suite *s = suite_create("rs_globals");
  TCase *tc = tcase_create("globals");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_rs_globals_atomic_histogram);
  tcase_add_test(tc, test_rs_globals_kernels_write_globals);
  tcase_add_test(tc, test_rs_globals_pointer_globals_written);
  tcase_add_test(tc, test_rs_globals_several_allocations_written);
  tcase_add_test(tc, test_rs_globals_written_allocations_limit);
  tcase_add_test(tc, test_rs_globals_legacy_output_keeps_allocation);
  tcase_add_test(tc, test_rs_globals_pointer_views);
  tcase_add_test(tc, test_rs_globals_struct_pointers);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
