/* tests/check_badinput.c - the bad-input matrix: what a careless or hostile
 * user can hand the public API (NULL for pointer arguments, mismatched
 * shapes and types, fields of other or freed graphs, outputs never
 * written, oversized fields, kernels that fail to build, writes outside a
 * field, NaN and Inf, scripts that are directories or endless devices,
 * objects freed in an unusual order).  Each case asserts a clear error
 * naming what was wrong, and that nothing else happened; the regression
 * tests of issue 17's findings live here too.  Runs on the backend
 * $FG_TEST_BACKEND names. */
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

/* Asserts that msg contains every phrase of the NULL-terminated list. */
static void expect_msg(const char *msg, ...) {
  ck_assert_ptr_nonnull(msg);
  va_list ap;
  va_start(ap, msg);
  for (const char *p = va_arg(ap, const char *); p;
       p = va_arg(ap, const char *))
    ck_assert_msg(strstr(msg, p) != NULL, "message \"%s\" lacks \"%s\"", msg,
                  p);
  va_end(ap);
}

/* A script with one kernel reading an rs_allocation and one that does
 * not. */
static const char alloc_rs[] =
    "#pragma version(1)\n"
    "#pragma rs java_package_name(t)\n"
    "rs_allocation tab;\n"
    "int RS_KERNEL look(int v) { return rsGetElementAt_int(tab, v & 3); }\n"
    "int RS_KERNEL plain(int v) { return v + 1; }\n";

static fg_rs_script *load(const char *src) {
  fg_rs_script *s = NULL;
  char err[1024];
  fg_status st = fg_rs_script_new_source("t", "t.rs", src, (size_t)-1, &s,
                                         err, sizeof err);
  ck_assert_msg(st == FG_OK, "%s", err);
  return s;
}

/* ---- issue 17's findings ------------------------------------------------ */

/* Finding 3: a script outlives the graph of the field it is bound to; the
 * next launch reading that allocation fails with a clear error instead of
 * reading the freed field (use after free, or another graph's field at
 * the same address). */
START_TEST(test_badinput_rs_bound_field_of_freed_graph) {
  fg_rs_script *s = load(alloc_rs);
  fg_graph *g1 = fg_graph_new("image 1");
  fg_field *t1 = fg_input(g1, "tab1", fg_type_scalar(FG_I32, fg_shape1(4)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "tab", t1), FG_OK);
  fg_graph_free(g1);
  /* a graph per image, bound once: the binding lapsed with image 1 */
  for (int k = 0; k < 3; k++) {
    fg_graph *g = fg_graph_new("image 2");
    fg_field *in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(8)));
    fg_input(g, "tab2", fg_type_scalar(FG_I32, fg_shape1(4)));
    ck_assert_ptr_null(fg_rs_map(g, s, "look", 1, &in, NULL));
    expect_error(g, FG_ESTATE, "rs_allocation 'tab'", "field 'tab1'",
                 "graph that was freed", "fg_rs_bind_allocation", NULL);
    fg_graph_free(g);
  }
  /* kernels that do not read it still launch */
  fg_graph *g = fg_graph_new("plain");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(8)));
  ck_assert_ptr_nonnull(fg_rs_map(g, s, "plain", 1, &in, NULL));
  expect_ok(g);
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* Finding 3, the other order: the script freed first, then the graph. */
START_TEST(test_badinput_rs_script_freed_before_graph) {
  fg_rs_script *s = load(alloc_rs);
  fg_graph *g = fg_graph_new("g");
  fg_field *t = fg_input(g, "tab", fg_type_scalar(FG_I32, fg_shape1(4)));
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(8)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "tab", t), FG_OK);
  fg_output(g, "o", fg_rs_map(g, s, "look", 1, &in, NULL));
  fg_rs_script_free(s);
  expect_ok(g);
  int32_t iv[8], tv[4] = {10, 20, 30, 40}, ov[8];
  for (int i = 0; i < 8; i++)
    iv[i] = i;
  tu_run(g, 2, (const void *[]){tv, iv}, 1, (void *[]){ov});
  for (int i = 0; i < 8; i++)
    ck_assert_int_eq(ov[i], tv[i & 3]);
  fg_graph_free(g);
}
END_TEST

/* Finding 12: a binding to a field of another live graph blocks only the
 * kernels that read that allocation. */
START_TEST(test_badinput_rs_binding_other_graph_only_readers) {
  fg_rs_script *s = load(alloc_rs);
  fg_graph *g1 = fg_graph_new("one");
  fg_field *t1 = fg_input(g1, "tab1", fg_type_scalar(FG_I32, fg_shape1(4)));
  ck_assert_int_eq(fg_rs_bind_allocation(s, "tab", t1), FG_OK);
  fg_graph *g2 = fg_graph_new("two");
  fg_field *in = fg_input(g2, "in", fg_type_scalar(FG_I32, fg_shape1(8)));
  fg_field *o = fg_rs_map(g2, s, "plain", 1, &in, NULL);
  ck_assert_ptr_nonnull(o);
  expect_ok(g2);
  ck_assert_ptr_null(fg_rs_map(g2, s, "look", 1, &in, NULL));
  expect_error(g2, FG_EINVAL, "rs_allocation 'tab'", "field 'tab1'",
               "another graph", NULL);
  fg_graph_free(g2);
  fg_graph_free(g1);
  fg_rs_script_free(s);
}
END_TEST

/* Finding 8: a directory, and a device that never ends. */
START_TEST(test_badinput_rs_script_file_limits) {
  fg_rs_script *s = (fg_rs_script *)&s;
  char err[512];
  ck_assert_int_eq(fg_rs_script_new_file("/tmp", &s, err, sizeof err),
                   FG_EIO);
  ck_assert_ptr_null(s);
  expect_msg(err, "/tmp", "is a directory", NULL);
  ck_assert_int_eq(fg_rs_script_new_file("/dev/zero", &s, err, sizeof err),
                   FG_EFORMAT);
  ck_assert_ptr_null(s);
  expect_msg(err, "/dev/zero", "FG_RS_MAX_SOURCE", NULL);
  /* a regular file over the limit is refused by its size, unread */
  char path[] = "/tmp/fg-big-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(ftruncate(fd, (off_t)FG_RS_MAX_SOURCE + 1), 0);
  close(fd);
  ck_assert_int_eq(fg_rs_script_new_file(path, &s, err, sizeof err),
                   FG_EFORMAT);
  unlink(path);
  expect_msg(err, "fg-big-", "more than a script may have", NULL);
  ck_assert_int_eq(fg_rs_script_new_file("/nonexistent/x.rs", &s, err,
                                         sizeof err), FG_EIO);
  expect_msg(err, "/nonexistent/x.rs", "cannot open", NULL);
}
END_TEST

/* Finding 9: failing constant expressions free what they held (the leak
 * shows under check-asan's LeakSanitizer). */
START_TEST(test_badinput_rs_const_error_frees) {
  static const char *const bad[] = {
    "#pragma version(a)\n",
    "#pragma version(1)\nint a[(2 * (3 +))];\n",
    /* malformed, though unused: an error too */
    "#pragma version(1)\nstatic const int k = (1 +);\n",
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    fg_rs_script *s = NULL;
    char err[512] = "";
    fg_status st = fg_rs_script_new_source("t", "t.rs", bad[k], (size_t)-1,
                                           &s, err, sizeof err);
    ck_assert_msg(st == FG_EFORMAT, "case %zu: %s (%s)", k,
                  fg_status_name(st), err);
    ck_assert_ptr_null(s);
    expect_msg(err, "t.rs:", NULL);
  }
  /* an initializer it cannot evaluate, valid C, is no error: the global
   * has no C value */
  fg_rs_script *s = load("#pragma version(1)\n"
                         "static const float k = sqrt(2.0f);\n");
  int v;
  ck_assert_int_eq(fg_rs_get(s, "k", &v, sizeof v), FG_EINVAL);
  expect_msg(fg_rs_script_errmsg(s), "'k'", NULL);
  fg_rs_script_free(s);
}
END_TEST

/* A graph and program of one pointwise operator, out = in + 1. */
static fg_graph *plus_one(int n) {
  fg_graph *g = fg_graph_new("plus");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(n)));
  fg_type t = fg_type_scalar(FG_F32, fg_shape1(n));
  fg_op *op = fg_op_begin(g, "plus1", 1, &t);
  fg_write_tensor(op, 0, fg_add(fg_read_tensor(op, in), fg_float(op, 1)));
  fg_output(g, "out", fg_op_end(op));
  expect_ok(g);
  return g;
}

/* Finding 10: the context freed before its program, and a run handle
 * freed after both: the context lingers until the last of them is freed
 * (no use after free under check-asan). */
START_TEST(test_badinput_context_freed_first) {
  fg_graph *g = plus_one(16);
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  fg_graph_free(g);
  float in[16], out[16];
  for (int i = 0; i < 16; i++)
    in[i] = (float)i;
  fg_run *r = NULL;
  ck_assert_int_eq(fg_program_start(p, 1, (const void *[]){in}, 1,
                                    (void *[]){out}, NULL, NULL, &r),
                   FG_OK);
  fg_context_free(ctx);          /* waits for the run, then lingers */
  ck_assert(fg_run_done(r));
  ck_assert_int_eq(fg_run_status(r), FG_OK);
  for (int i = 0; i < 16; i++)
    ck_assert_float_eq(out[i], (float)i + 1);
  fg_program_free(p);
  fg_run_free(r);                /* the last one frees the context */
}
END_TEST

/* Finding 13: calls that used to accept bad input silently. */
START_TEST(test_badinput_silent_acceptance) {
  fg_graph *g = fg_graph_new("g");
  ck_assert_ptr_null(fg_input(g, "img", fg_type_image(FG_U8, 4, 4, 5)));
  expect_error(g, FG_ETYPE, "input 'img'", "5 channels", "1 to 4", NULL);
  fg_graph_free(g);
  g = fg_graph_new("g");
  ck_assert_ptr_null(fg_input(g, "img", fg_type_image(FG_U8, 4, 4, 0)));
  expect_error(g, FG_ETYPE, "0 channels", NULL);
  fg_graph_free(g);
  g = fg_graph_new("g");
  ck_assert_ptr_null(fg_output(g, "lost", NULL));
  expect_error(g, FG_EINVAL, "output 'lost'", "field is NULL", NULL);
  fg_graph_free(g);
  g = fg_graph_new("g");
  ck_assert_ptr_null(fg_reduce(g, "sum", FG_REDUCE_SUM, NULL));
  expect_error(g, FG_EINVAL, "fg_reduce 'sum'", "field is NULL", NULL);
  fg_graph_free(g);
  /* fg_call with NULL arguments has no operator to blame; the statement
   * receiving its NULL does */
  g = fg_graph_new("g");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(4)));
  fg_type t = fg_type_scalar(FG_F32, fg_shape1(4));
  fg_op *op = fg_op_begin(g, "pw", 1, &t);
  (void)in;
  fg_expr *x = fg_call("pow", 2, NULL);
  ck_assert_ptr_null(x);
  fg_write_tensor(op, 0, x);
  expect_error(g, FG_EINVAL, "operator 'pw'", "_writeTensor",
               "operand is NULL", NULL);
  ck_assert_ptr_null(fg_op_end(op));
  fg_graph_free(g);
  /* a program drawn with another graph */
  fg_graph *a = plus_one(8), *b = plus_one(16);
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, a);
  char err[512];
  char path[64];
  snprintf(path, sizeof path, "/tmp/fg-draw-%d.dot", (int)getpid());
  unlink(path);
  ck_assert_int_eq(fg_graph_draw(b, p, path, err, sizeof err), FG_EINVAL);
  expect_msg(err, "not compiled from graph 'plus'", NULL);
  ck_assert_int_ne(access(path, F_OK), 0);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(a);
  fg_graph_free(b);
}
END_TEST

/* ---- NULL for every pointer argument ------------------------------------ */

/* graph.h, types.h, dsl.h, builtins.h: NULL graphs, names, fields, ops
 * and expressions are refused without a crash; on a clean graph the first
 * one is named in the graph's message. */
START_TEST(test_badinput_null_builder) {
  ck_assert_int_eq(fg_graph_status(NULL), FG_EINVAL);
  ck_assert_str_eq(fg_graph_errmsg(NULL), "graph is NULL");
  fg_graph_free(NULL);
  ck_assert_int_eq(fg_graph_set_error(NULL, FG_EINVAL, "x"), FG_EINVAL);
  fg_type t = fg_type_scalar(FG_F32, fg_shape1(4));
  ck_assert_ptr_null(fg_input(NULL, "x", t));
  ck_assert_ptr_null(fg_constant(NULL, "x", t, (float[4]){0}));
  ck_assert_ptr_null(fg_output(NULL, "x", NULL));
  ck_assert_ptr_null(fg_reduce(NULL, "x", FG_REDUCE_SUM, NULL));
  ck_assert_ptr_null(fg_field_graph(NULL));
  ck_assert_str_eq(fg_field_name(NULL), "");
  ck_assert_int_eq(fg_graph_input_count(NULL), 0);
  ck_assert_int_eq(fg_graph_output_count(NULL), 0);
  ck_assert_int_eq(fg_graph_op_count(NULL), 0);
  ck_assert_ptr_null(fg_op_begin(NULL, "op", 1, &t));
  ck_assert_ptr_null(fg_op_end(NULL));
  ck_assert_ptr_null(fg_op_output(NULL, 0));
  ck_assert_ptr_null(fg_op_graph(NULL));
  ck_assert_ptr_null(fg_expr_op(NULL));
  ck_assert_ptr_null(fg_float(NULL, 1));
  ck_assert_ptr_null(fg_var(NULL, FG_F32, 1));
  ck_assert_ptr_null(fg_read_tensor(NULL, NULL));
  ck_assert_ptr_null(fg_add(NULL, NULL));
  ck_assert_ptr_null(fg_sqrt(NULL));
  ck_assert_ptr_null(fg_call(NULL, 1, NULL));
  ck_assert_ptr_null(fg_at(NULL, 0));
  fg_assign(NULL, NULL);
  fg_if(NULL);
  fg_while(NULL);
  fg_end(NULL);
  fg_else(NULL);
  fg_write_tensor(NULL, 0, NULL);

  /* each NULL on a clean graph is named */
  struct { const char *what; fg_status st; } cases[] = {
    {"input name", FG_EINVAL}, {"constant data", FG_EINVAL},
    {"op name", FG_EINVAL}, {"op types", FG_EINVAL},
    {"read field", FG_EINVAL}, {"tensor var field", FG_EINVAL},
    {"assign rhs", FG_EINVAL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    fg_graph *g = fg_graph_new("nulls");
    fg_field *in = fg_input(g, "in", t);
    fg_op *op = NULL;
    switch (k) {
    case 0: ck_assert_ptr_null(fg_input(g, NULL, t)); break;
    case 1: ck_assert_ptr_null(fg_constant(g, "c", t, NULL)); break;
    case 2: ck_assert_ptr_null(fg_op_begin(g, NULL, 1, &t)); break;
    case 3: ck_assert_ptr_null(fg_op_begin(g, "op", 1, NULL)); break;
    case 4:
      op = fg_op_begin(g, "op", 1, &t);
      ck_assert_ptr_null(fg_read_tensor(op, NULL));
      break;
    case 5:
      op = fg_op_begin(g, "op", 1, &t);
      ck_assert_ptr_null(fg_tensor_var(op, NULL));
      break;
    case 6:
      op = fg_op_begin(g, "op", 1, &t);
      fg_assign(fg_var(op, FG_F32, 1), NULL);
      break;
    }
    (void)in;
    ck_assert_msg(fg_graph_status(g) == cases[k].st,
                  "%s: status %s (%s)", cases[k].what,
                  fg_status_name(fg_graph_status(g)), fg_graph_errmsg(g));
    ck_assert_msg(strstr(fg_graph_errmsg(g), "NULL") != NULL,
                  "%s: message \"%s\" does not say what was NULL",
                  cases[k].what, fg_graph_errmsg(g));
    fg_graph_free(g);
  }
}
END_TEST

/* context.h, renderscript.h, image.h, viz.h: NULL objects and pointers
 * return FG_EINVAL (or a neutral value) and change nothing. */
START_TEST(test_badinput_null_runtime) {
  char err[256];
  ck_assert_int_eq(fg_context_new(NULL, NULL, err, sizeof err), FG_EINVAL);
  fg_context_free(NULL);
  ck_assert_str_eq(fg_context_errmsg(NULL), "context is NULL");
  ck_assert_int_eq(fg_context_get_stats(NULL, NULL), FG_EINVAL);
  ck_assert_int_eq(fg_context_live(NULL, NULL), FG_EINVAL);
  ck_assert_int_eq(fg_compile(NULL, NULL, NULL, NULL), FG_EINVAL);
  fg_program_free(NULL);
  ck_assert_int_eq(fg_program_run(NULL, 0, NULL, 0, NULL), FG_EINVAL);
  ck_assert_int_eq(fg_program_start(NULL, 0, NULL, 0, NULL, NULL, NULL,
                                    NULL), FG_EINVAL);
  ck_assert_int_eq(fg_run_wait(NULL), FG_EINVAL);
  fg_run_cancel(NULL);
  fg_run_free(NULL);
  ck_assert_ptr_null(fg_run_output(NULL, 0));
  ck_assert_int_eq(fg_run_get(NULL, 0, NULL, 0), FG_EINVAL);
  ck_assert_int_eq(fg_context_wait(NULL), FG_EINVAL);
  ck_assert_ptr_null(fg_context_loop(NULL));
  ck_assert_int_eq(fg_context_set_max_runs(NULL, 1), FG_EINVAL);
  ck_assert_int_eq(fg_program_input_count(NULL), 0);
  ck_assert_ptr_null(fg_program_input_name(NULL, 0));
  ck_assert_int_eq(fg_program_input_index(NULL, NULL), -1);
  ck_assert_ptr_null(fg_program_kernel_source(NULL, 0));
  ck_assert_int_eq(fg_program_fusion_stats(NULL, NULL), FG_EINVAL);
  ck_assert_ptr_null(fg_program_field_reason(NULL, NULL));

  /* a live context with NULL arguments */
  fg_context *ctx = tu_context();
  fg_graph *g = plus_one(4);
  ck_assert_int_eq(fg_compile(ctx, NULL, NULL, NULL), FG_EINVAL);
  ck_assert_str_ne(fg_context_errmsg(ctx), "");
  fg_program *p = NULL;
  ck_assert_int_eq(fg_compile(ctx, g, NULL, NULL), FG_EINVAL);
  p = tu_compile(ctx, g);
  float out[4] = {7, 7, 7, 7};
  ck_assert_int_eq(fg_program_run(p, 1, NULL, 1, (void *[]){out}),
                   FG_EINVAL);
  expect_msg(fg_context_errmsg(ctx), "NULL", NULL);
  ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){NULL}, 1,
                                  (void *[]){out}), FG_EINVAL);
  expect_msg(fg_context_errmsg(ctx), "NULL", NULL);
  for (int i = 0; i < 4; i++)
    ck_assert_float_eq(out[i], 7);            /* untouched */
  ck_assert_int_eq(fg_program_fusion_stats(p, NULL), FG_EINVAL);
  ck_assert_int_eq(fg_program_output_index(p, NULL), -1);
  ck_assert_ptr_null(fg_program_field_reason(p, NULL));
  ck_assert_int_eq(fg_graph_draw(NULL, NULL, "/tmp/x.dot", err, sizeof err),
                   FG_EINVAL);
  ck_assert_int_eq(fg_graph_draw(g, p, NULL, err, sizeof err), FG_EINVAL);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);

  /* scripts */
  fg_rs_script *s = (fg_rs_script *)&s;
  ck_assert_int_eq(fg_rs_script_new_source(NULL, NULL, "", 0, &s, err,
                                           sizeof err), FG_EINVAL);
  ck_assert_ptr_null(s);
  ck_assert_int_eq(fg_rs_script_new_source("t", NULL, NULL, 0, &s, err,
                                           sizeof err), FG_EINVAL);
  ck_assert_int_eq(fg_rs_script_new_source("t", NULL, "", 0, NULL, err,
                                           sizeof err), FG_EINVAL);
  ck_assert_int_eq(fg_rs_script_new_file(NULL, &s, NULL, 0), FG_EINVAL);
  ck_assert_int_eq(fg_rs_set(NULL, "g", &s, 4), FG_EINVAL);
  ck_assert_int_eq(fg_rs_get(NULL, "g", &s, 4), FG_EINVAL);
  ck_assert_int_eq(fg_rs_bind_allocation(NULL, "g", NULL), FG_EINVAL);
  ck_assert_uint_eq(fg_rs_global_size(NULL, "g"), 0);
  ck_assert_str_eq(fg_rs_script_name(NULL), "");
  fg_rs_script_free(NULL);
  s = load(alloc_rs);
  ck_assert_int_eq(fg_rs_set(s, NULL, &s, 4), FG_EINVAL);
  expect_msg(fg_rs_script_errmsg(s), "(null)", NULL);
  ck_assert_int_eq(fg_rs_set(s, "tab", NULL, 4), FG_EINVAL);
  expect_msg(fg_rs_script_errmsg(s), "value is NULL", NULL);
  ck_assert_int_eq(fg_rs_bind_allocation(s, NULL, NULL), FG_EINVAL);
  g = fg_graph_new("g");
  ck_assert_ptr_null(fg_rs_map(g, NULL, "look", 0, NULL, NULL));
  expect_error(g, FG_EINVAL, "script is NULL", NULL);
  fg_graph_free(g);
  g = fg_graph_new("g");
  ck_assert_ptr_null(fg_rs_map(g, s, NULL, 0, NULL, NULL));
  ck_assert_int_eq(fg_graph_status(g), FG_EINVAL);
  fg_graph_free(g);
  g = fg_graph_new("g");
  ck_assert_ptr_null(fg_rs_map(g, s, "plain", 1, NULL, NULL));
  ck_assert_int_eq(fg_graph_status(g), FG_EINVAL);
  fg_graph_free(g);
  fg_rs_script_free(s);

  /* images */
  fg_image img = {0};
  ck_assert_int_eq(fg_image_read(NULL, &img, err, sizeof err), FG_EINVAL);
  ck_assert_int_eq(fg_image_read("/tmp/x.png", NULL, err, sizeof err),
                   FG_EINVAL);
  ck_assert_int_eq(fg_image_write(NULL, &img, 90, err, sizeof err),
                   FG_EINVAL);
  ck_assert_int_eq(fg_image_write("/tmp/x.png", NULL, 90, err, sizeof err),
                   FG_EINVAL);
  ck_assert_int_eq(fg_image_alloc(NULL, 1, 1, 1), FG_EINVAL);
  fg_image_free(NULL);
}
END_TEST

/* ---- shapes, types, graphs ---------------------------------------------- */

/* Mismatches at builder calls name the object, the expected and the
 * actual, and leave the graph as it was (sticky: later calls add
 * nothing). */
START_TEST(test_badinput_mismatches) {
  fg_graph *g = fg_graph_new("g");
  fg_field *a = fg_input(g, "a", fg_type_scalar(FG_F32, fg_shape1(4)));
  fg_field *b = fg_input(g, "b", fg_type_scalar(FG_F32, fg_shape1(5)));
  fg_type t = fg_type_scalar(FG_F32, fg_shape1(4));
  fg_op *op = fg_op_begin(g, "wrong", 1, &t);
  fg_expr *x = fg_read_tensor(op, b);
  ck_assert_ptr_null(x);
  expect_error(g, FG_ESHAPE, "wrong", "b", NULL);
  int ops = fg_graph_op_count(g);
  ck_assert_ptr_null(fg_op_end(op));
  ck_assert_ptr_null(fg_output(g, "o", a));
  ck_assert_int_eq(fg_graph_output_count(g), 0);
  ck_assert_int_eq(fg_graph_op_count(g), ops);
  fg_graph_free(g);

  g = fg_graph_new("g");
  a = fg_input(g, "a", fg_type_vector(FG_F32, fg_shape1(4), 4));
  op = fg_op_begin(g, "types", 1, &t);
  fg_write_tensor(op, 0, fg_read_tensor(op, a));
  expect_error(g, FG_ETYPE, "operator 'types'", "float4", "float", NULL);
  fg_graph_free(g);

  /* an output never written */
  g = fg_graph_new("g");
  fg_type t2[2] = {t, t};
  op = fg_op_begin(g, "half", 2, t2);
  fg_write_tensor(op, 0, fg_float(op, 1));
  ck_assert_ptr_null(fg_op_end(op));
  expect_error(g, FG_ERULE, "operator 'half'", "output 1", "never written",
               NULL);
  fg_graph_free(g);

  /* a field of another graph */
  fg_graph *g1 = fg_graph_new("one");
  fg_field *f1 = fg_input(g1, "f1", t);
  g = fg_graph_new("two");
  ck_assert_ptr_null(fg_output(g, "o", f1));
  expect_error(g, FG_EINVAL, "output 'o'", "f1", "another graph", NULL);
  fg_graph_free(g);
  g = fg_graph_new("two");
  op = fg_op_begin(g, "reader", 1, &t);
  ck_assert_ptr_null(fg_read_tensor(op, f1));
  ck_assert_int_eq(fg_graph_status(g), FG_EINVAL);
  expect_msg(fg_graph_errmsg(g), "f1", NULL);
  fg_graph_free(g);
  fg_graph_free(g1);

  /* an explicit-address write with too many coordinates */
  g = fg_graph_new("g");
  op = fg_op_begin(g, "scatter", 1, &t);
  fg_write_tensor_at(op, 0, fg_float(op, 1), 2, fg_int(op, 0),
                     fg_int(op, 0));
  ck_assert_int_ne(fg_graph_status(g), FG_OK);
  expect_msg(fg_graph_errmsg(g), "scatter", "_out0", NULL);
  fg_graph_free(g);
}
END_TEST

/* Oversized fields are refused when declared, naming the bytes. */
START_TEST(test_badinput_oversized_field) {
  fg_graph *g = fg_graph_new("g");
  fg_type huge = fg_type_vector(FG_F64, fg_shape3(1 << 20, 1 << 20, 1 << 10),
                                4);
  ck_assert_ptr_null(fg_input(g, "huge", huge));
  expect_error(g, FG_ESHAPE, "input 'huge'", "bytes", NULL);
  ck_assert_int_eq(fg_graph_input_count(g), 0);
  fg_graph_free(g);
  /* a field that may exist but not on this machine: compiling it or
   * running it fails with a status, never a crash */
  g = fg_graph_new("g");
  fg_type big = fg_type_scalar(FG_F32, fg_shape2(1 << 20, 1 << 20));
  fg_field *in = fg_input(g, "in", big);
  fg_op *op = fg_op_begin(g, "neg", 1, &big);
  fg_write_tensor(op, 0, fg_neg(fg_read_tensor(op, in)));
  fg_output(g, "out", fg_op_end(op));
  expect_ok(g);
  fg_context *ctx = tu_context();
  fg_program *p = NULL;
  fg_status st = fg_compile(ctx, g, NULL, &p);
  if (st == FG_OK) {
    /* 4 TiB: the run's buffers cannot be had; NULL output makes the run
     * allocate it */
    static float one;
    fg_run *r = NULL;
    st = fg_program_start(p, 1, (const void *[]){&one}, 1, NULL, NULL, NULL,
                          &r);
    if (st == FG_OK) {
      st = fg_run_wait(r);
      ck_assert_int_eq(st, FG_ENOMEM);
      expect_msg(fg_run_errmsg(r), "memory", NULL);
      fg_run_free(r);
    } else {
      ck_assert_int_eq(st, FG_ENOMEM);
      expect_msg(fg_context_errmsg(ctx), "memory", NULL);
    }
    fg_program_free(p);
  } else {
    ck_assert_int_eq(st, FG_ENOMEM);
    expect_msg(fg_context_errmsg(ctx), "bytes", NULL);
  }
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* A kernel that fails to build: an RS body the C compiler refuses is
 * reported by fg_compile with the compiler's message; nothing is left
 * alive. */
START_TEST(test_badinput_kernel_build_fails) {
  static const char src[] =
      "#pragma version(1)\n"
      "#pragma rs java_package_name(t)\n"
      "int RS_KERNEL k(int v) { return v + undeclared_thing; }\n";
  fg_rs_script *s = NULL;
  char err[1024] = "";
  fg_status st = fg_rs_script_new_source("t", "t.rs", src, (size_t)-1, &s,
                                         err, sizeof err);
  if (st != FG_OK) {
    /* refused at load already: as good, if it names the line */
    expect_msg(err, "t.rs:3", NULL);
    return;
  }
  fg_graph *g = fg_graph_new("g");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(4)));
  fg_field *o = fg_rs_map(g, s, "k", 1, &in, NULL);
  if (!o) {
    expect_msg(fg_graph_errmsg(g), "undeclared_thing", NULL);
  } else {
    fg_output(g, "o", o);
    fg_context *ctx = tu_context();
    fg_program *p = (fg_program *)&p;
    ck_assert_int_eq(fg_compile(ctx, g, NULL, &p), FG_EBUILD);
    ck_assert_ptr_null(p);
    expect_msg(fg_context_errmsg(ctx), "undeclared_thing", NULL);
    tu_context_free(ctx);
  }
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

/* NaN and Inf inputs come out as IEEE arithmetic says, on every
 * backend. */
START_TEST(test_badinput_nan_inf) {
  fg_graph *g = plus_one(8);
  float in[8] = {NAN, INFINITY, -INFINITY, -0.0f, 3e38f, -1, 1e-45f, 0};
  float out[8];
  tu_run(g, 1, (const void *[]){in}, 1, (void *[]){out});
  ck_assert(isnan(out[0]));
  ck_assert(isinf(out[1]) && out[1] > 0);
  ck_assert(isinf(out[2]) && out[2] < 0);
  ck_assert_float_eq(out[3], 1);
  ck_assert_float_eq(out[4], 3e38f + 1);
  ck_assert_float_eq(out[5], 0);
  ck_assert_float_eq(out[6], 1);
  ck_assert_float_eq(out[7], 1);
  fg_graph_free(g);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("badinput");
  TCase *tc = tcase_create("badinput");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_badinput_rs_bound_field_of_freed_graph);
  tcase_add_test(tc, test_badinput_rs_script_freed_before_graph);
  tcase_add_test(tc, test_badinput_rs_binding_other_graph_only_readers);
  tcase_add_test(tc, test_badinput_rs_script_file_limits);
  tcase_add_test(tc, test_badinput_rs_const_error_frees);
  tcase_add_test(tc, test_badinput_context_freed_first);
  tcase_add_test(tc, test_badinput_silent_acceptance);
  tcase_add_test(tc, test_badinput_null_builder);
  tcase_add_test(tc, test_badinput_null_runtime);
  tcase_add_test(tc, test_badinput_mismatches);
  tcase_add_test(tc, test_badinput_oversized_field);
  tcase_add_test(tc, test_badinput_kernel_build_fails);
  tcase_add_test(tc, test_badinput_nan_inf);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
