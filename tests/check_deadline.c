/* tests/check_deadline.c - stopping kernels that never end, on the backend
 * $FG_TEST_BACKEND names: an endless DSL fg_while (no side effects, which
 * a C compiler may otherwise delete) and RenderScript kernels looping in
 * while (1) and for (;;) are cancelled (FG_ECANCELED within a second) or
 * ended by a deadline (FG_ETIMEDOUT, per run or per context); freeing the
 * program with such a run in flight returns; the context still runs other
 * programs correctly, and counted loops keep no poll in their source.
 * Each test arms alarm() too, so that a hang fails without Check's fork
 * (CK_FORK=no) as well. */
#include "testutil.h"

#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

enum { R = 8, C = 8, N = R * C, BIG_R = 256, BIG_C = 256 };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static fg_context *context_with_timeout(unsigned ms) {
  fg_context_options opt = {0};
  const char *b = getenv("FG_TEST_BACKEND");
  opt.backend = b && !strcmp(b, "opencl") ? FG_BACKEND_OPENCL : FG_BACKEND_CPU;
  opt.run_timeout_ms = ms;
  fg_context *ctx = NULL;
  char err[1024];
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  return ctx;
}

/* out = x, after while (v >= 0) v = v * 1 with v = |x|: never ends, and
 * the loop has no side effect. */
static fg_graph *dsl_endless(int rows, int cols) {
  fg_type t = fg_type_scalar(FG_I32, fg_shape2(rows, cols));
  fg_graph *g = fg_graph_new("endless");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "spin", 1, &t);
  fg_expr *v = fg_var(op, FG_I32, 1);
  fg_assign(v, fg_read_tensor(op, x));
  fg_while(fg_ge(fg_mul(v, v), fg_int(op, 0)));
  fg_assign(v, fg_mul(v, fg_int(op, 1)));
  fg_end(op);
  fg_write_tensor(op, 0, v);
  fg_output(g, "y", fg_op_end(op));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  return g;
}

static const char script[] =
  "#pragma version(1)\n"
  "#pragma rs java_package_name(fg.test)\n"
  "static int tri(int n) {\n"
  "  int s = 0;\n"
  "  for (int i = 0; i < n; i++)\n"
  "    s += i;\n"
  "  int k = 3;\n"
  "  while (k > 0)\n"
  "    k--;\n"
  "  do { s += k; } while (k < 0);\n"
  "  return s;\n"
  "}\n"
  "int RS_KERNEL spin_while(int in) {\n"
  "  int n = in;\n"
  "  while (1) { n = n * 1; }\n"
  "  return n;\n"
  "}\n"
  "static int forever(int n) {\n"
  "  for (;;) { n ^= 0; }\n"
  "  return n;\n"
  "}\n"
  "int RS_KERNEL spin_for(int in) {\n"
  "  return forever(in);\n"
  "}\n"
  "int RS_KERNEL triangle(int in) {\n"
  "  return tri(in & 63);\n"
  "}\n";

/* One RenderScript kernel of script over an int field of rows x cols. */
static fg_graph *rs_graph(fg_rs_script **s, const char *kernel, int rows,
                          int cols) {
  char err[1024];
  fg_status st = fg_rs_script_new_source("deadline", NULL, script,
                                         (size_t)-1, s, err, sizeof err);
  ck_assert_msg(st == FG_OK, "%s", err);
  fg_type t = fg_type_scalar(FG_I32, fg_shape2(rows, cols));
  fg_graph *g = fg_graph_new(kernel);
  fg_field *x = fg_input(g, "x", t);
  fg_output(g, "y", fg_rs_map(g, *s, kernel, 1, &x, NULL));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  return g;
}

static void cancel_cb(uv_timer_t *h) { fg_run_cancel(h->data); }

/* Starts a run of p over x, cancels it after 100 ms from a timer on the
 * context's loop, and expects FG_ECANCELED within a second of that. */
static void expect_cancel(fg_context *ctx, fg_program *p, const int32_t *x,
                          int32_t *y) {
  fg_run *run = NULL;
  ck_assert_int_eq(fg_program_start(p, 1, (const void *[]){x}, 1,
                                    (void *[]){y}, NULL, NULL, &run), FG_OK);
  uv_timer_t t;
  uv_timer_init(fg_context_loop(ctx), &t);
  t.data = run;
  uv_timer_start(&t, cancel_cb, 100, 0);
  double t0 = now_s();
  fg_status st = fg_run_wait(run);
  double took = now_s() - t0;
  ck_assert_msg(st == FG_ECANCELED, "fg_run_wait: %s (%s)",
                fg_status_name(st), fg_run_errmsg(run));
  ck_assert_msg(took < 1.1, "the cancelled run ended after %.2f s", took);
  ck_assert_ptr_null(fg_run_output(run, 0));
  fg_run_free(run);
  uv_close((uv_handle_t *)&t, NULL);
  uv_run(fg_context_loop(ctx), UV_RUN_NOWAIT);
}

/* A run of p given a 150 ms deadline ends with FG_ETIMEDOUT. */
static void expect_timeout(fg_program *p, const int32_t *x, int32_t *y) {
  fg_run *run = NULL;
  ck_assert_int_eq(fg_program_start(p, 1, (const void *[]){x}, 1,
                                    (void *[]){y}, NULL, NULL, &run), FG_OK);
  ck_assert_int_eq(fg_run_set_timeout(run, 150), FG_OK);
  double t0 = now_s();
  fg_status st = fg_run_wait(run);
  double took = now_s() - t0;
  ck_assert_msg(st == FG_ETIMEDOUT, "fg_run_wait: %s (%s)",
                fg_status_name(st), fg_run_errmsg(run));
  ck_assert_msg(strstr(fg_run_errmsg(run), "deadline of 150 ms"), "%s",
                fg_run_errmsg(run));
  ck_assert_msg(took < 1.2, "the run ended %.2f s after its start", took);
  fg_run_free(run);
}

/* The context still runs an ordinary program, correctly (without a
 * deadline: a device's first launch may build for a while). */
static void expect_ordinary_run(fg_context *ctx) {
  fg_rs_script *s;
  fg_graph *g = rs_graph(&s, "triangle", R, C);
  fg_program *p = tu_compile(ctx, g);
  int32_t x[N], y[N];
  for (int i = 0; i < N; i++)
    x[i] = i * 5;
  fg_run *run = NULL;
  ck_assert_int_eq(fg_program_start(p, 1, (const void *[]){x}, 1,
                                    (void *[]){y}, NULL, NULL, &run), FG_OK);
  ck_assert_int_eq(fg_run_set_timeout(run, 0), FG_OK);
  fg_status st = fg_run_wait(run);
  ck_assert_msg(st == FG_OK, "%s", fg_run_errmsg(run));
  fg_run_free(run);
  for (int i = 0; i < N; i++) {
    int n = x[i] & 63;
    ck_assert_int_eq(y[i], n * (n - 1) / 2);
  }
  fg_program_free(p);
  fg_graph_free(g);
  fg_rs_script_free(s);
}

START_TEST(test_deadline_dsl_while_cancel) {
  alarm(60);
  fg_context *ctx = tu_context();
  fg_graph *g = dsl_endless(R, C);
  fg_program *p = tu_compile(ctx, g);
  ck_assert_ptr_nonnull(strstr(fg_program_kernel_source(p, 0), "fgk_go("
                               "fgk_stop)"));
  int32_t x[N], y[N];
  for (int i = 0; i < N; i++)
    x[i] = i - 5;
  expect_cancel(ctx, p, x, y);
  expect_ordinary_run(ctx);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

START_TEST(test_deadline_dsl_while_timeout) {
  alarm(60);
  fg_context *ctx = tu_context();
  /* big enough to run on every worker */
  fg_graph *g = dsl_endless(BIG_R, BIG_C);
  fg_program *p = tu_compile(ctx, g);
  int32_t *x = calloc(BIG_R * BIG_C, sizeof *x);
  int32_t *y = calloc(BIG_R * BIG_C, sizeof *y);
  expect_timeout(p, x, y);
  expect_timeout(p, x, y);
  expect_ordinary_run(ctx);
  fg_program_free(p);
  fg_graph_free(g);
  free(x);
  free(y);
  tu_context_free(ctx);
}
END_TEST

START_TEST(test_deadline_rs_while_cancel) {
  alarm(60);
  fg_context *ctx = tu_context();
  fg_rs_script *s;
  fg_graph *g = rs_graph(&s, "spin_while", R, C);
  fg_program *p = tu_compile(ctx, g);
  int32_t x[N] = {0}, y[N];
  expect_cancel(ctx, p, x, y);
  expect_timeout(p, x, y);
  expect_ordinary_run(ctx);
  fg_program_free(p);
  fg_graph_free(g);
  fg_rs_script_free(s);
  tu_context_free(ctx);
}
END_TEST

START_TEST(test_deadline_rs_for_context_timeout) {
  alarm(60);
  fg_context *ctx = context_with_timeout(300);
  fg_rs_script *s;
  fg_graph *g = rs_graph(&s, "spin_for", R, C);
  fg_program *p = tu_compile(ctx, g);
  int32_t x[N] = {0}, y[N];
  double t0 = now_s();
  fg_status st = fg_program_run(p, 1, (const void *[]){x}, 1, (void *[]){y});
  ck_assert_msg(st == FG_ETIMEDOUT, "fg_program_run: %s (%s)",
                fg_status_name(st), fg_context_errmsg(ctx));
  ck_assert_msg(now_s() - t0 < 1.5, "took %.2f s", now_s() - t0);
  expect_cancel(ctx, p, x, y);
  expect_ordinary_run(ctx);
  fg_program_free(p);
  fg_graph_free(g);
  fg_rs_script_free(s);
  tu_context_free(ctx);
}
END_TEST

/* Regression (found by fuzz/fuzz_diff.c): a deadline was timed from the
 * loop's cached clock, which stands still while the loop does not run (the
 * caller compiling the next program, say): a run started after more than
 * the timeout of such idleness failed at once with FG_ETIMEDOUT. */
START_TEST(test_deadline_regression_after_idle_loop) {
  alarm(60);
  fg_context *ctx = context_with_timeout(300);
  /* two kernels (a flip reads its input non-locally), so the run cannot
   * end while it starts */
  fg_graph *g = fg_graph_new("plus1");
  fg_type t = fg_type_scalar(FG_I32, fg_shape2(BIG_R, BIG_C));
  fg_field *in = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "plus1", 1, &t);
  fg_write_tensor(op, 0, fg_addi(fg_read_tensor(op, in), 1));
  fg_output(g, "y", fg_flip(g, fg_op_end(op), true, false));
  fg_program *p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_program_kernel_count(p), 2);
  enum { M = BIG_R * BIG_C };
  int32_t *x = malloc(sizeof *x * M), *y = malloc(sizeof *y * M);
  for (int i = 0; i < M; i++)
    x[i] = i;
  for (int k = 0; k < 3; k++) {
    if (k)
      usleep(700 * 1000); /* the loop idle for more than the timeout */
    fg_status st = fg_program_run(p, 1, (const void *[]){x}, 1,
                                  (void *[]){y});
    ck_assert_msg(st == FG_OK, "run %d: %s (%s)", k, fg_status_name(st),
                  fg_context_errmsg(ctx));
    for (int r = 0; r < BIG_R; r++)
      for (int c = 0; c < BIG_C; c++)
        ck_assert_int_eq(y[r * BIG_C + c], x[r * BIG_C + BIG_C - 1 - c] + 1);
  }
  free(x);
  free(y);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}
END_TEST

/* Freeing a program, then its context, with an endless run in flight
 * (its handle released, no deadline) returns: the run is cancelled. */
START_TEST(test_deadline_free_with_endless_run) {
  alarm(60);
  fg_context *ctx = tu_context();
  fg_graph *g = dsl_endless(BIG_R, BIG_C);
  fg_program *p = tu_compile(ctx, g);
  int32_t *x = calloc(BIG_R * BIG_C, sizeof *x);
  int32_t *y = calloc(BIG_R * BIG_C, sizeof *y);
  ck_assert_int_eq(fg_program_start(p, 1, (const void *[]){x}, 1,
                                    (void *[]){y}, NULL, NULL, NULL), FG_OK);
  uv_run(fg_context_loop(ctx), UV_RUN_NOWAIT);
  usleep(100000);              /* the kernel spins */
  double t0 = now_s();
  fg_program_free(p);
  ck_assert_msg(now_s() - t0 < 1.0, "fg_program_free took %.2f s",
                now_s() - t0);
  fg_graph_free(g);
  tu_context_free(ctx);
  free(x);
  free(y);
}
END_TEST

/* Loops that end still compute the right values, and a counted loop
 * (constant bounds, as stencil taps are) has no poll in its source. */
START_TEST(test_deadline_counted_loops_no_poll) {
  alarm(60);
  fg_context *ctx = tu_context();
  fg_type t = fg_type_scalar(FG_I32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("counted");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "taps", 1, &t);
  fg_expr *i = fg_var(op, FG_I32, 1), *s = fg_var(op, FG_I32, 1);
  fg_assign(s, fg_int(op, 0));
  fg_for(i, fg_int(op, -2), fg_lt(i, fg_int(op, 3)), fg_int(op, 1));
  fg_assign(s, fg_add(s, fg_add(fg_read_tensor(op, x), i)));
  fg_end(op);
  fg_write_tensor(op, 0, s);
  fg_output(g, "y", fg_op_end(op));
  fg_program *p = tu_compile(ctx, g);
  ck_assert_ptr_null(strstr(fg_program_kernel_source(p, 0), "fgk_go(fgk_"));
  int32_t in[N], out[N];
  for (int k = 0; k < N; k++)
    in[k] = k * 3 - 7;
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){in}, 1,
                                  (void *[]){out}), FG_OK);
  for (int k = 0; k < N; k++)
    ck_assert_int_eq(out[k], 5 * in[k]);
  fg_program_free(p);
  fg_graph_free(g);
  expect_ordinary_run(ctx);
  tu_context_free(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("deadline");
  TCase *tc = tcase_create("deadline");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_deadline_dsl_while_cancel);
  tcase_add_test(tc, test_deadline_dsl_while_timeout);
  tcase_add_test(tc, test_deadline_rs_while_cancel);
  tcase_add_test(tc, test_deadline_rs_for_context_timeout);
  tcase_add_test(tc, test_deadline_free_with_endless_run);
  tcase_add_test(tc, test_deadline_counted_loops_no_poll);
  tcase_add_test(tc, test_deadline_regression_after_idle_loop);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
