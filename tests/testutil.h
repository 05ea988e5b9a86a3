/* tests/testutil.h - helpers the Check suites share: a context per test
 * (Check forks each test, so contexts are made inside it), compiling and
 * running a graph with assertions that print the library's message, and
 * finding the sample photos. */
#ifndef FG_TESTUTIL_H
#define FG_TESTUTIL_H

#include "fieldgraph.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A context on the backend named by $FG_TEST_BACKEND ("cpu" default). */
static inline fg_context *tu_context(void) {
  fg_context_options opt = {0};
  const char *b = getenv("FG_TEST_BACKEND");
  opt.backend = b && !strcmp(b, "opencl") ? FG_BACKEND_OPENCL : FG_BACKEND_CPU;
  fg_context *ctx = NULL;
  char err[1024];
  fg_status st = fg_context_new(&opt, &ctx, err, sizeof err);
  ck_assert_msg(st == FG_OK, "fg_context_new: %s", err);
  return ctx;
}

/* Asserts that nothing of ctx is alive but the context itself (every
 * program, run, kernel, buffer and event freed; its one loop handle
 * open), then frees it: the leak check each test ends with. */
static inline void tu_context_free(fg_context *ctx) {
  fg_live_objects l;
  ck_assert_int_eq(fg_context_live(ctx, &l), FG_OK);
  ck_assert_msg(l.programs == 0 && l.runs == 0 && l.kernels == 0 &&
                l.buffers == 0 && l.events == 0 && l.loop_handles == 1,
                "leaked: %lld programs, %lld runs, %lld kernels, %lld "
                "buffers, %lld events, %lld loop handles (1 expected)",
                (long long)l.programs, (long long)l.runs,
                (long long)l.kernels, (long long)l.buffers,
                (long long)l.events, (long long)l.loop_handles);
  fg_context_free(ctx);
}

/* A fresh context in place of ctx (which must hold nothing): what a test
 * changing the environment needs, as a context reads it once. */
static inline fg_context *tu_context_renew(fg_context *ctx) {
  tu_context_free(ctx);
  return tu_context();
}

/* Compiles g in ctx, failing the test with the message on error. */
static inline fg_program *tu_compile(fg_context *ctx, fg_graph *g) {
  ck_assert_msg(fg_graph_status(g) == FG_OK, "graph: %s", fg_graph_errmsg(g));
  fg_program *p = NULL;
  fg_status st = fg_compile(ctx, g, NULL, &p);
  ck_assert_msg(st == FG_OK, "fg_compile: %s", fg_context_errmsg(ctx));
  return p;
}

/* Compiles and runs g once in a fresh context; frees what it made. */
static inline void tu_run(fg_graph *g, int n_in, const void *const *in,
                          int n_out, void *const *out) {
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  fg_status st = fg_program_run(p, n_in, in, n_out, out);
  ck_assert_msg(st == FG_OK, "fg_program_run: %s", fg_context_errmsg(ctx));
  fg_program_free(p);
  tu_context_free(ctx);
}

/* Path of a bundled sample photo. */
static inline const char *tu_sample(const char *name, char *buf,
                                    size_t size) {
  const char *dir = getenv("FG_SAMPLES_DIR");
  snprintf(buf, size, "%s/%s", dir && *dir ? dir : FG_SAMPLES_DIR, name);
  return buf;
}

/* Asserts that g failed with status st and that its message contains every
 * phrase of the NULL-terminated list. */
static inline void expect_error(fg_graph *g, fg_status st, ...) {
  const char *msg = fg_graph_errmsg(g);
  ck_assert_ptr_nonnull(msg);
  ck_assert_msg(fg_graph_status(g) == st, "status %s, expected %s (%s)",
                fg_status_name(fg_graph_status(g)), fg_status_name(st), msg);
  va_list ap;
  va_start(ap, st);
  for (const char *p = va_arg(ap, const char *); p;
       p = va_arg(ap, const char *))
    ck_assert_msg(strstr(msg, p) != NULL, "message \"%s\" lacks \"%s\"", msg,
                  p);
  va_end(ap);
}

/* Asserts that g has no error (and an empty message). */
static inline void expect_ok(fg_graph *g) {
  ck_assert_msg(fg_graph_status(g) == FG_OK, "unexpected error: %s",
                fg_graph_errmsg(g));
  ck_assert_str_eq(fg_graph_errmsg(g), "");
}

/* Runs every test case of suite s; the exit status for main. */
static inline int tu_run_suite(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

#endif
