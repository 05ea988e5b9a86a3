/* tests/testutil.h - helpers the Check suites share: a context per test
 * (Check forks each test, so contexts are made inside it), compiling and
 * running a graph with assertions that print the library's message,
 * finding the sample photos (where FG_SAMPLES_DIR is defined), temporary
 * folders, files and shell commands with their output captured, and
 * RenderScript scripts and images for the script suites. */
#ifndef FG_TESTUTIL_H
#define FG_TESTUTIL_H

#include "fieldgraph.h"

#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Whether an OpenCL device exists, asked in a child process: OpenCL must
 * not be initialized in main, whose forked tests would inherit a driver
 * whose threads did not survive the fork (STYLE rule 25). */
static inline bool tu_opencl_device_exists(void) {
  pid_t pid = fork();
  if (pid == 0) {
    fg_device_desc d;
    int n = 0;
    _exit(fg_opencl_devices(&d, 1, &n, NULL, 0) == FG_OK && n > 0 ? 0 : 1);
  }
  int st;
  return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
         WEXITSTATUS(st) == 0;
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

#ifdef FG_SAMPLES_DIR
/* Path of a bundled sample photo. */
static inline const char *tu_sample(const char *name, char *buf,
                                    size_t size) {
  const char *dir = getenv("FG_SAMPLES_DIR");
  snprintf(buf, size, "%s/%s", dir && *dir ? dir : FG_SAMPLES_DIR, name);
  return buf;
}
#endif

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

/* ---- folders, files and commands ---------------------------------------- */

/* A fresh temporary folder, /tmp/fg-check-<tag>-XXXXXX; its path in buf. */
static inline void tu_tmpdir(char *buf, size_t size, const char *tag) {
  int n = snprintf(buf, size, "/tmp/fg-check-%s-XXXXXX", tag);
  ck_assert_msg(n > 0 && (size_t)n < size, "no room for a folder name");
  ck_assert_msg(mkdtemp(buf) != NULL, "mkdtemp %s failed", buf);
}

/* Removes folder dir and everything in it. */
static inline void tu_rm_rf(const char *dir) {
  char cmd[4200];
  int n = snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_msg(n > 0 && (size_t)n < sizeof cmd, "folder name too long");
  ck_assert_int_eq(system(cmd), 0);
}

/* The whole of file dir/name (at most 1 MiB), NUL-terminated (malloc'd). */
static inline char *tu_slurp(const char *dir, const char *name) {
  char path[4096];
  int len = snprintf(path, sizeof path, "%s/%s", dir, name);
  ck_assert_msg(len > 0 && (size_t)len < sizeof path, "path too long: %s/%s",
                dir, name);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  char *s = calloc(1, 1 << 20);
  size_t n = fread(s, 1, (1 << 20) - 1, f);
  s[n] = '\0';
  fclose(f);
  return s;
}

/* Writes text to the file at path (replacing it). */
static inline void tu_write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert(f != NULL);
  fputs(text, f);
  fclose(f);
}

/* Runs the shell command fmt, ... with its stdout and stderr to the files
 * dir/stdout and dir/stderr; returns its exit status (asserts it ran). */
static inline int tu_shell(const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int tu_shell(const char *dir, const char *fmt, ...) {
  char cmd[16384];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  ck_assert_msg(n >= 0 && (size_t)n < sizeof cmd, "command too long: %s", cmd);
  int m = snprintf(cmd + n, sizeof cmd - (size_t)n, " >%s/stdout 2>%s/stderr",
                   dir, dir);
  ck_assert_msg(m > 0 && (size_t)m < sizeof cmd - (size_t)n,
                "command too long: %s", cmd);
  int st = system(cmd);
  ck_assert_msg(st != -1 && WIFEXITED(st), "could not run: %s", cmd);
  return WEXITSTATUS(st);
}

/* Runs the shell command fmt, ... quietly, asserting that it succeeds. */
static inline void tu_sh(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static inline void tu_sh(const char *fmt, ...) {
  char cmd[2048];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  ck_assert_msg(n >= 0 && (size_t)n < sizeof cmd, "command too long: %s", cmd);
  char full[2200];
  n = snprintf(full, sizeof full, "%s 2>/dev/null >/dev/null", cmd);
  ck_assert_msg(n > 0 && (size_t)n < sizeof full, "command too long: %s", cmd);
  ck_assert_msg(system(full) == 0, "failed: %s", cmd);
}

/* ---- RenderScript suites -------------------------------------------------- */

#ifdef FG_RS_DIR
/* The script FG_RS_DIR/folder/file ("" folder: FG_RS_DIR/file), asserting
 * that it loads. */
static inline fg_rs_script *tu_rs_load(const char *folder, const char *file) {
  char path[1024], err[1024];
  snprintf(path, sizeof path, "%s/%s%s%s", FG_RS_DIR, folder,
           *folder ? "/" : "", file);
  fg_rs_script *s = NULL;
  fg_status st = fg_rs_script_new_file(path, &s, err, sizeof err);
  ck_assert_msg(st == FG_OK, "%s", err);
  return s;
}
#endif

/* A w x h RGBA image of varied pixels, the same for the same seed
 * (malloc'd). */
static inline uint8_t *tu_rgba_pattern(int w, int h, uint32_t seed) {
  uint8_t *p = malloc((size_t)w * h * 4);
  uint32_t x = seed;
  for (int i = 0; i < w * h * 4; i++) {
    x = x * 1103515245u + 12345u;
    p[i] = (uint8_t)(x >> 16);
  }
  return p;
}

/* A 3x3 mean of the f32 field x with clamped borders, as an operator
 * "blur3x3" of its own (a later operator reading it non-locally cannot
 * fuse with it); the result, named blur3x3's output. */
static inline fg_field *tu_mean3x3(fg_graph *g, fg_field *x) {
  fg_type t = fg_field_type(x);
  fg_op *op = fg_op_begin(g, "blur3x3", 1, &t);
  fg_expr *acc = fg_var(op, FG_F32, 1);
  fg_assign(acc, fg_float(op, 0.0f));
  for (int dr = -1; dr <= 1; dr++)
    for (int dc = -1; dc <= 1; dc++) {
      fg_expr *r = fg_clamp(fg_addi(fg_row(op), dr), fg_int(op, 0),
                            fg_subi(fg_rows(op), 1));
      fg_expr *c = fg_clamp(fg_addi(fg_column(op), dc), fg_int(op, 0),
                            fg_subi(fg_columns(op), 1));
      fg_assign(acc, fg_add(acc, fg_read_tensor_at(op, x, 2, r, c)));
    }
  fg_write_tensor(op, 0, fg_divf(acc, 9.0f));
  return fg_op_end(op);
}

/* Outputs of g from f32 x and u8 m (same shape): blur (tu_mean3x3 of x),
 * y = clamp(blur * scale + offset, 0, 1) (one fused kernel reading blur),
 * y2 the same field again, m3 = m * 3 + 1 on u8.  The outputs of every
 * kind a run places: a kernel's own, a second output of one field, a
 * fused one (check_zero_copy, check_buffers). */
static inline void tu_blur_clamp_m3(fg_graph *g, fg_field *x, fg_field *m,
                                    float scale, float offset) {
  fg_type t = fg_field_type(x), tm = fg_field_type(m);
  fg_field *b = tu_mean3x3(g, x);
  fg_output(g, "blur", b);
  fg_op *op = fg_op_begin(g, "scale_clamp", 1, &t);
  fg_expr *v = fg_addf(fg_mulf(fg_read_tensor(op, b), scale), offset);
  fg_write_tensor(op, 0, fg_clamp(v, fg_float(op, 0.0f), fg_float(op, 1.0f)));
  fg_field *y = fg_op_end(op);
  fg_output(g, "y", y);
  fg_output(g, "y2", y);
  op = fg_op_begin(g, "m3", 1, &tm);
  fg_expr *mi = fg_convert(fg_read_tensor(op, m), FG_I32, 1);
  fg_write_tensor(op, 0, fg_convert(fg_add(fg_mul(mi, fg_int(op, 3)),
                                           fg_int(op, 1)), FG_U8, 1));
  fg_output(g, "m3", fg_op_end(op));
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
