/* tests/check_async.c - asynchronous runs on the backend $FG_TEST_BACKEND
 * names: 64 runs of one program in flight with different inputs, runs of
 * two programs interleaved, an injected kernel failure that reaches only
 * its own run's callback, cancelling queued and running runs, a user's
 * libuv loop, waiting from inside a callback, freeing a program with runs
 * in flight, check mode, futures (outputs kept by the run, get blocks, the
 * callback form does not), and argument errors.  Every output is compared
 * with a plain C computation of the same graph. */
#include "testutil.h"
#include "runtime/run_hooks.h"

#include <stdint.h>
#include <uv.h>

enum { R = 37, C = 53, N = R * C };

/* y = 3x + k (pointwise), z = y upside down (a non-local read), w = z + x
 * (fuses after the flip), s = sum(y) (a reduction): several kernels that
 * depend on each other, and the partials path of reductions. */
static fg_graph *make_graph(int k) {
  fg_type t = fg_type_scalar(FG_I32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new(k == 1 ? "async_a" : "async_b");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "scale", 1, &t);
  fg_write_tensor(op, 0, fg_add(fg_mul(fg_read_tensor(op, x), fg_int(op, 3)),
                                fg_int(op, k)));
  fg_field *y = fg_op_end(op);
  op = fg_op_begin(g, "flip", 1, &t);
  fg_write_tensor(op, 0, fg_read_tensor_at(
                             op, y, 2, fg_subi(fg_sub(fg_rows(op), fg_row(op)), 1),
                             fg_column(op)));
  fg_field *z = fg_op_end(op);
  op = fg_op_begin(g, "add", 1, &t);
  fg_write_tensor(op, 0, fg_add(fg_read_tensor(op, z), fg_read_tensor(op, x)));
  fg_output(g, "w", fg_op_end(op));
  fg_output(g, "s", fg_reduce(g, "sum", FG_REDUCE_SUM, y));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  return g;
}

/* One run's memory: its input, outputs, and what the callback saw. */
typedef struct job {
  int32_t x[N], w[N], s;
  int k, seed;
  int calls;
  fg_status status;
  char msg[512];
} job;

static void fill(job *j, int seed, int k) {
  j->seed = seed;
  j->k = k;
  for (int i = 0; i < N; i++)
    j->x[i] = (int32_t)((i * 7 + seed * 131) % 1000) - 500;
  for (int i = 0; i < N; i++)
    j->w[i] = -7;                      /* a sentinel kernels overwrite */
  j->s = -7;
  j->calls = 0;
  j->status = FG_ESTATE;
}

static void check_outputs(const job *j) {
  int32_t sum = 0;
  for (int i = 0; i < N; i++)
    sum += 3 * j->x[i] + j->k;
  ck_assert_msg(j->s == sum, "run %d: sum %d, expected %d", j->seed, j->s,
                sum);
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) {
      int32_t want = 3 * j->x[(R - 1 - r) * C + c] + j->k + j->x[r * C + c];
      ck_assert_msg(j->w[r * C + c] == want, "run %d: w[%d][%d] = %d, "
                    "expected %d", j->seed, r, c, j->w[r * C + c], want);
    }
}

static void untouched(const job *j) {
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(j->w[i], -7);
  ck_assert_int_eq(j->s, -7);
}

static void on_done(fg_run *run, fg_status st, void *user) {
  job *j = user;
  j->calls++;
  j->status = st;
  snprintf(j->msg, sizeof j->msg, "%s", fg_run_errmsg(run));
  ck_assert(fg_run_done(run));
  ck_assert_int_eq(fg_run_status(run), st);
}

static void start_job(fg_program *p, job *j, fg_run **out) {
  fg_status st = fg_program_start(p, 1, (const void *[]){j->x}, 2,
                                  (void *[]){j->w, &j->s}, on_done, j, out);
  ck_assert_msg(st == FG_OK, "fg_program_start: %s", fg_status_name(st));
}

static fg_context *context_with(int max_runs, uv_loop_t *loop) {
  fg_context_options opt = {0};
  const char *b = getenv("FG_TEST_BACKEND");
  opt.backend = b && !strcmp(b, "opencl") ? FG_BACKEND_OPENCL : FG_BACKEND_CPU;
  opt.max_runs = max_runs;
  opt.loop = loop;
  fg_context *ctx = NULL;
  char err[1024];
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  return ctx;
}

START_TEST(test_async_64_runs_in_flight) {
  fg_context *ctx = context_with(64, NULL);
  fg_graph *g = make_graph(1);
  fg_program *p = tu_compile(ctx, g);
  ck_assert_int_ge(fg_program_kernel_count(p), 2);
  job *jobs = calloc(64, sizeof *jobs);
  for (int i = 0; i < 64; i++) {
    fill(&jobs[i], i, 1);
    start_job(p, &jobs[i], NULL);
  }
  ck_assert_int_eq(fg_context_wait(ctx), FG_OK);
  for (int i = 0; i < 64; i++) {
    ck_assert_int_eq(jobs[i].calls, 1);
    ck_assert_msg(jobs[i].status == FG_OK, "run %d: %s", i, jobs[i].msg);
    check_outputs(&jobs[i]);
  }
  fg_context_stats s;
  fg_context_get_stats(ctx, &s);
  ck_assert_int_eq(s.runs, 64);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
  free(jobs);
}
END_TEST

START_TEST(test_async_two_programs_interleaved) {
  fg_context *ctx = context_with(3, NULL);
  fg_graph *ga = make_graph(1), *gb = make_graph(-5);
  fg_program *pa = tu_compile(ctx, ga), *pb = tu_compile(ctx, gb);
  job *jobs = calloc(40, sizeof *jobs);
  fg_run *runs[40];
  for (int i = 0; i < 40; i++) {
    fill(&jobs[i], i, i % 2 ? -5 : 1);
    start_job(i % 2 ? pb : pa, &jobs[i], &runs[i]);
  }
  /* waiting for the last run leaves the others to finish in any order */
  ck_assert_int_eq(fg_run_wait(runs[39]), FG_OK);
  for (int i = 0; i < 40; i++) {
    ck_assert_int_eq(fg_run_wait(runs[i]), FG_OK);
    ck_assert_int_eq(jobs[i].calls, 1);
    check_outputs(&jobs[i]);
    fg_run_free(runs[i]);
  }
  fg_program_free(pa);
  fg_program_free(pb);
  fg_graph_free(ga);
  fg_graph_free(gb);
  tu_context_free(ctx);
  free(jobs);
}
END_TEST

START_TEST(test_async_failing_kernel_reaches_its_own_callback) {
  fg_context *ctx = context_with(4, NULL);
  fg_graph *g = make_graph(1);
  fg_program *p = tu_compile(ctx, g);
  int last = fg_program_kernel_count(p) - 1;
  job *jobs = calloc(12, sizeof *jobs);
  /* the sixth run's last kernel fails as a device would report it */
  fg__context_fail_kernel(ctx, 5, last, "injected: device lost");
  for (int i = 0; i < 12; i++) {
    fill(&jobs[i], i, 1);
    start_job(p, &jobs[i], NULL);
  }
  fg_context_wait(ctx);
  for (int i = 0; i < 12; i++) {
    ck_assert_int_eq(jobs[i].calls, 1);
    if (i == 5) {
      ck_assert_int_eq(jobs[i].status, FG_EBACKEND);
      ck_assert_msg(strstr(jobs[i].msg, "injected: device lost"), "%s",
                    jobs[i].msg);
    } else {
      ck_assert_msg(jobs[i].status == FG_OK, "run %d: %s", i, jobs[i].msg);
      check_outputs(&jobs[i]);
    }
  }
  /* the context and the program go on working */
  job again;
  fill(&again, 99, 1);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){again.x}, 2,
                                  (void *[]){again.w, &again.s}), FG_OK);
  check_outputs(&again);
  /* and a blocking run reports the failure through the context */
  fg__context_fail_kernel(ctx, 0, 0, "injected again");
  fill(&again, 100, 1);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){again.x}, 2,
                                  (void *[]){again.w, &again.s}),
                   FG_EBACKEND);
  ck_assert_msg(strstr(fg_context_errmsg(ctx), "injected again"), "%s",
                fg_context_errmsg(ctx));
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
  free(jobs);
}
END_TEST

START_TEST(test_async_cancel) {
  fg_context *ctx = context_with(2, NULL);
  fg_graph *g = make_graph(1);
  fg_program *p = tu_compile(ctx, g);
  job *jobs = calloc(24, sizeof *jobs);
  fg_run *runs[24];
  for (int i = 0; i < 24; i++) {
    fill(&jobs[i], i, 1);
    start_job(p, &jobs[i], &runs[i]);
  }
  /* run 0 has begun (its kernels are in flight: nothing ran the loop yet),
   * runs 12.. wait in the queue */
  fg_run_cancel(runs[0]);
  for (int i = 12; i < 24; i++)
    fg_run_cancel(runs[i]);
  ck_assert(!fg_run_done(runs[0]));
  ck_assert_int_eq(fg_run_status(runs[0]), FG_ESTATE);
  fg_context_wait(ctx);
  for (int i = 0; i < 24; i++) {
    ck_assert_int_eq(jobs[i].calls, 1);
    if (i == 0 || i >= 12) {
      ck_assert_int_eq(jobs[i].status, FG_ECANCELED);
      ck_assert_int_eq(fg_run_status(runs[i]), FG_ECANCELED);
      if (i >= 12)
        untouched(&jobs[i]);            /* never started */
    } else {
      ck_assert_msg(jobs[i].status == FG_OK, "run %d: %s", i, jobs[i].msg);
      check_outputs(&jobs[i]);
    }
    fg_run_cancel(runs[i]);             /* an ended run: nothing happens */
    ck_assert_int_eq(jobs[i].calls, 1);
    fg_run_free(runs[i]);
  }
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
  free(jobs);
}
END_TEST

START_TEST(test_async_user_loop) {
  uv_loop_t loop;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  fg_context *ctx = context_with(0, &loop);
  ck_assert_ptr_eq(fg_context_loop(ctx), &loop);
  fg_graph *g = make_graph(1);
  fg_program *p = tu_compile(ctx, g);
  job *jobs = calloc(10, sizeof *jobs);
  for (int i = 0; i < 10; i++) {
    fill(&jobs[i], i, 1);
    start_job(p, &jobs[i], NULL);
  }
  /* the loop returns by itself once nothing is in flight */
  uv_run(&loop, UV_RUN_DEFAULT);
  for (int i = 0; i < 10; i++) {
    ck_assert_int_eq(jobs[i].calls, 1);
    ck_assert_int_eq(jobs[i].status, FG_OK);
    check_outputs(&jobs[i]);
  }
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
  uv_run(&loop, UV_RUN_DEFAULT);        /* closes the context's handle */
  ck_assert_int_eq(uv_loop_close(&loop), 0);
  free(jobs);
}
END_TEST

/* From a callback: start another run and wait for it there. */
typedef struct nested {
  fg_program *p;
  job first, second;
  fg_status inner;
} nested;

static void on_first(fg_run *run, fg_status st, void *user) {
  nested *n = user;
  on_done(run, st, &n->first);
  fg_run *r2;
  start_job(n->p, &n->second, &r2);
  n->inner = fg_run_wait(r2);
  fg_run_free(r2);
}

START_TEST(test_async_wait_inside_callback) {
  fg_context *ctx = context_with(0, NULL);
  fg_graph *g = make_graph(1);
  nested *n = calloc(1, sizeof *n);
  n->p = tu_compile(ctx, g);
  fill(&n->first, 1, 1);
  fill(&n->second, 2, 1);
  fg_run *r;
  ck_assert_int_eq(fg_program_start(n->p, 1, (const void *[]){n->first.x}, 2,
                                    (void *[]){n->first.w, &n->first.s},
                                    on_first, n, &r), FG_OK);
  ck_assert_int_eq(fg_run_wait(r), FG_OK);
  fg_run_free(r);
  ck_assert_int_eq(n->inner, FG_OK);
  check_outputs(&n->first);
  check_outputs(&n->second);
  ck_assert_int_eq(n->second.calls, 1);
  fg_program_free(n->p);
  fg_graph_free(g);
  tu_context_free(ctx);
  free(n);
}
END_TEST

START_TEST(test_async_free_program_with_runs_in_flight) {
  fg_context *ctx = context_with(2, NULL);
  fg_graph *g = make_graph(1);
  fg_program *p = tu_compile(ctx, g);
  job *jobs = calloc(8, sizeof *jobs);
  for (int i = 0; i < 8; i++) {
    fill(&jobs[i], i, 1);
    start_job(p, &jobs[i], NULL);
  }
  fg_program_free(p);            /* cancels them and waits for the kernels */
  for (int i = 0; i < 8; i++) {
    ck_assert_int_eq(jobs[i].calls, 1);
    ck_assert(jobs[i].status == FG_ECANCELED || jobs[i].status == FG_OK);
    if (jobs[i].status == FG_OK)
      check_outputs(&jobs[i]);
  }
  fg_graph_free(g);
  tu_context_free(ctx);
  free(jobs);
}
END_TEST

START_TEST(test_async_check_mode_runs) {
  fg_context *ctx = context_with(8, NULL);
  fg_graph *g = make_graph(1);
  fg_compile_options o = {.fusion = FG_FUSION_CHECK};
  fg_program *p;
  ck_assert_int_eq(fg_compile(ctx, g, &o, &p), FG_OK);
  job *jobs = calloc(16, sizeof *jobs);
  for (int i = 0; i < 16; i++) {
    fill(&jobs[i], i, 1);
    start_job(p, &jobs[i], NULL);
  }
  fg_context_wait(ctx);
  for (int i = 0; i < 16; i++) {
    ck_assert_msg(jobs[i].status == FG_OK, "%s", jobs[i].msg);
    check_outputs(&jobs[i]);
  }
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
  free(jobs);
}
END_TEST

START_TEST(test_async_argument_errors) {
  fg_context *ctx = context_with(0, NULL);
  fg_graph *g = make_graph(1);
  fg_program *p = tu_compile(ctx, g);
  job j;
  fill(&j, 0, 1);
  fg_run *r = (fg_run *)&j;
  ck_assert_int_eq(fg_program_start(p, 2, (const void *[]){j.x, j.x}, 2,
                                    (void *[]){j.w, &j.s}, on_done, &j, &r),
                   FG_EINVAL);
  ck_assert_ptr_null(r);
  ck_assert_msg(strstr(fg_context_errmsg(ctx), "got 2 input(s)"), "%s",
                fg_context_errmsg(ctx));
  ck_assert_int_eq(fg_program_start(p, 1, (const void *[]){j.x}, 2,
                                    (void *[]){j.x, &j.s}, on_done, &j, &r),
                   FG_EINVAL);
  ck_assert_msg(strstr(fg_context_errmsg(ctx), "overlaps input 'x'"), "%s",
                fg_context_errmsg(ctx));
  ck_assert_int_eq(fg_program_start(NULL, 0, NULL, 0, NULL, NULL, NULL, &r),
                   FG_EINVAL);
  ck_assert_int_eq(fg_context_set_max_runs(ctx, 0), FG_EINVAL);
  ck_assert_msg(strstr(fg_context_errmsg(ctx), "n is 0"), "%s",
                fg_context_errmsg(ctx));
  ck_assert_int_eq(fg_run_wait(NULL), FG_EINVAL);
  ck_assert_int_eq(fg_run_status(NULL), FG_EINVAL);
  fg_run_cancel(NULL);
  fg_run_free(NULL);
  fg_context_wait(ctx);
  ck_assert_int_eq(j.calls, 0);          /* nothing started, nothing called */
  untouched(&j);
  fg_context_options bad = {.max_runs = -1};
  fg_context *c2 = NULL;
  char err[256];
  ck_assert_int_eq(fg_context_new(&bad, &c2, err, sizeof err), FG_EINVAL);
  ck_assert_msg(strstr(err, "max_runs is -1"), "%s", err);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

/* Callback form of a future: reads the run's own output, never blocks. */
static void on_future(fg_run *run, fg_status st, void *user) {
  job *j = user;
  j->calls++;
  j->status = st;
  const int32_t *s = fg_run_output(run, 1);
  ck_assert_ptr_nonnull(s);
  j->s = *s;
  memcpy(j->w, fg_run_output(run, 0), sizeof j->w);
}

START_TEST(test_async_futures) {
  fg_context *ctx = context_with(0, NULL);
  fg_graph *g = make_graph(1);
  fg_program *p = tu_compile(ctx, g);
  job a, b;
  fill(&a, 3, 1);
  fill(&b, 4, 1);
  /* get blocks: both outputs kept by the run */
  fg_run *ra, *rb;
  ck_assert_int_eq(fg_program_start(p, 1, (const void *[]){a.x}, 2, NULL,
                                    NULL, NULL, &ra), FG_OK);
  ck_assert_ptr_null(fg_run_output(ra, 1));        /* not yet */
  ck_assert_int_eq(fg_run_get(ra, 1, &a.s, sizeof a.s), FG_OK);
  ck_assert_int_eq(fg_run_get(ra, 0, a.w, sizeof a.w), FG_OK);
  check_outputs(&a);
  ck_assert_int_eq(fg_run_get(ra, 1, &a.s, 2), FG_EINVAL);
  ck_assert_msg(strstr(fg_context_errmsg(ctx), "holds 4 bytes"), "%s",
                fg_context_errmsg(ctx));
  ck_assert_int_eq(fg_run_get(ra, 2, &a.s, 4), FG_EINVAL);
  fg_run_free(ra);
  /* the callback form, with one output in the caller's memory */
  ck_assert_int_eq(fg_program_start(p, 1, (const void *[]){b.x}, 2,
                                    (void *[]){b.w, NULL}, on_future, &b,
                                    &rb), FG_OK);
  fg_context_wait(ctx);
  ck_assert_int_eq(b.calls, 1);
  check_outputs(&b);
  fg_run_free(rb);
  /* a failed run's future reports the failure */
  fg__context_fail_kernel(ctx, 0, 0, "injected into a future");
  ck_assert_int_eq(fg_program_start(p, 1, (const void *[]){a.x}, 2, NULL,
                                    NULL, NULL, &ra), FG_OK);
  ck_assert_int_eq(fg_run_get(ra, 1, &a.s, sizeof a.s), FG_EBACKEND);
  ck_assert_msg(strstr(fg_context_errmsg(ctx), "injected into a future"),
                "%s", fg_context_errmsg(ctx));
  ck_assert_ptr_null(fg_run_output(ra, 1));
  fg_run_free(ra);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

START_TEST(test_async_out_of_memory_fails_only_that_run) {
  /* a 2^20 x 2^20 float field (4 TiB, more than memory and swap):
   * twice's result, which the flip reads, must be held in memory and
   * cannot be, so the run
   * fails before any kernel reads its input, and the next run of another
   * program works.  The result is kept by the run (the input's huge
   * extent would overlap any memory of ours). */
  fg_context *ctx = context_with(0, NULL);
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(1 << 20, 1 << 20));
  fg_graph *g = fg_graph_new("huge");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "twice", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, x), 2.0f));
  fg_field *y = fg_op_end(op);
  op = fg_op_begin(g, "flip", 1, &t);
  fg_write_tensor(op, 0, fg_read_tensor_at(
                             op, y, 2, fg_subi(fg_sub(fg_rows(op), fg_row(op)), 1),
                             fg_column(op)));
  fg_output(g, "s", fg_reduce(g, "sum", FG_REDUCE_SUM, fg_op_end(op)));
  fg_program *p = tu_compile(ctx, g);
  float *dummy = malloc(16);
  job j;
  fill(&j, 0, 1);
  fg_run *r;
  ck_assert_int_eq(fg_program_start(p, 1, (const void *[]){dummy}, 1, NULL,
                                    on_done, &j, &r), FG_OK);
  ck_assert_int_eq(fg_run_wait(r), FG_ENOMEM);
  ck_assert_int_eq(j.calls, 1);
  ck_assert_msg(strstr(j.msg, "bytes"), "message: %s", j.msg);
  ck_assert_ptr_null(fg_run_output(r, 0));
  fg_run_free(r);
  fg_graph *g2 = make_graph(1);
  fg_program *p2 = tu_compile(ctx, g2);
  fill(&j, 1, 1);
  ck_assert_int_eq(fg_program_run(p2, 1, (const void *[]){j.x}, 2,
                                  (void *[]){j.w, &j.s}), FG_OK);
  check_outputs(&j);
  fg_program_free(p);
  fg_program_free(p2);
  fg_graph_free(g);
  fg_graph_free(g2);
  tu_context_free(ctx);
  free(dummy);
}
END_TEST

int main(void) {
  Suite *s = suite_create("async");
  TCase *tc = tcase_create("runs");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_async_64_runs_in_flight);
  tcase_add_test(tc, test_async_two_programs_interleaved);
  tcase_add_test(tc, test_async_failing_kernel_reaches_its_own_callback);
  tcase_add_test(tc, test_async_cancel);
  tcase_add_test(tc, test_async_user_loop);
  tcase_add_test(tc, test_async_wait_inside_callback);
  tcase_add_test(tc, test_async_free_program_with_runs_in_flight);
  tcase_add_test(tc, test_async_check_mode_runs);
  tcase_add_test(tc, test_async_argument_errors);
  tcase_add_test(tc, test_async_futures);
  tcase_add_test(tc, test_async_out_of_memory_fails_only_that_run);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
