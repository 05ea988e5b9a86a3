/* tests/check_build.c - the kernels of one program build at once, on the
 * backend $FG_TEST_BACKEND names: a program of many unfused kernels
 * builds and computes what a C loop does, each kernel counted once as
 * compiled or loaded from the cache; when several kernels fail, the
 * message is the first failing kernel's (in kernel order), naming it, and
 * nothing is left alive. */
#include "testutil.h"

#include <stdint.h>

/* A chain of n operators, each adding k + 1 (distinct sources). */
START_TEST(test_build_many_kernels) {
  enum { N = 9, P = 1000 };
  fg_type t = fg_type_scalar(FG_I32, fg_shape1(P));
  fg_graph *g = fg_graph_new("chain");
  fg_field *f = fg_input(g, "in", t);
  for (int k = 0; k < N; k++) {
    char name[16];
    snprintf(name, sizeof name, "add%d", k);
    fg_op *op = fg_op_begin(g, name, 1, &t);
    fg_write_tensor(op, 0, fg_addi(fg_read_tensor(op, f), k + 1));
    f = fg_op_end(op);
  }
  fg_output(g, "out", f);
  fg_context *ctx = tu_context();
  fg_compile_options o = {.fusion = FG_FUSION_OFF};
  fg_program *p = NULL;
  ck_assert_msg(fg_compile(ctx, g, &o, &p) == FG_OK, "%s",
                fg_context_errmsg(ctx));
  ck_assert_int_eq(fg_program_kernel_count(p), N);
  fg_context_stats st;
  ck_assert_int_eq(fg_context_get_stats(ctx, &st), FG_OK);
  ck_assert_int_eq((int)(st.kernels_compiled + st.cache_hits), N);
  int32_t in[P], out[P];
  for (int i = 0; i < P; i++)
    in[i] = i * 3 - 500;
  ck_assert_int_eq(fg_program_run(p, 1, (const void *const[]){in}, 1,
                                  (void *const[]){out}), FG_OK);
  for (int i = 0; i < P; i++)
    ck_assert_int_eq(out[i], in[i] + N * (N + 1) / 2);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* Kernels 1 and 3 of five fail (each naming its own undeclared name);
 * the message is kernel 1's. */
START_TEST(test_build_first_failure_is_reported) {
  static const char src[] =
      "#pragma version(1)\n"
      "#pragma rs java_package_name(t)\n"
      "int RS_KERNEL ok(int v) { return v + 1; }\n"
      "int RS_KERNEL bad_a(int v) { return v + first_undeclared; }\n"
      "int RS_KERNEL bad_b(int v) { return v + second_undeclared; }\n";
  fg_rs_script *s = NULL;
  char err[1024] = "";
  ck_assert_msg(fg_rs_script_new_source("t", "t.rs", src, (size_t)-1, &s,
                                        err, sizeof err) == FG_OK, "%s", err);
  fg_graph *g = fg_graph_new("g");
  fg_field *f = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(64)));
  const char *const order[] = {"ok", "bad_a", "ok", "bad_b", "ok"};
  for (int k = 0; k < 5; k++)
    f = fg_rs_map(g, s, order[k], 1, &f, NULL);
  ck_assert_msg(f != NULL, "%s", fg_graph_errmsg(g));
  fg_output(g, "out", f);
  for (int rep = 0; rep < 3; rep++) {
    fg_context *ctx = tu_context();
    fg_compile_options o = {.fusion = FG_FUSION_OFF};
    fg_program *p = (fg_program *)&p;
    ck_assert_int_eq(fg_compile(ctx, g, &o, &p), FG_EBUILD);
    ck_assert_ptr_null(p);
    const char *msg = fg_context_errmsg(ctx);
    ck_assert_msg(strstr(msg, "first_undeclared") &&
                      !strstr(msg, "second_undeclared") &&
                      strstr(msg, "bad_a"), "%s", msg);
    tu_context_free(ctx);
  }
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

int main(void) {
  Suite *s = suite_create("build");
  TCase *tc = tcase_create("build");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_build_many_kernels);
  tcase_add_test(tc, test_build_first_failure_is_reported);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
