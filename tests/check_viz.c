/* tests/check_viz.c - Graphviz drawings: the unfused and fused views of a
 * blur pipeline written as DOT (clusters per kernel, dashed virtual
 * fields, the reason on an edge that was not fused) and rendered as SVG;
 * sibling reductions in one cluster that says so;
 * bad paths and mismatched programs refused with nothing written. */
#include "../examples/operators.h"
#include "testutil.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static fg_field *box3(fg_graph *g, fg_field *in) {
  fg_type t = fg_field_type(in);
  fg_op *op = fg_op_begin(g, "blur", 1, &t);
  fg_expr *sum = fg_var(op, FG_F32, 1);
  for (int d = -1; d <= 1; d++)
    fg_assign(sum, fg_add(sum, fg_read_tensor_at(op, in, 2, fg_row(op),
                                                 fg_addi(fg_column(op), d))));
  fg_write_tensor(op, 0, fg_divf(sum, 3.0f));
  return fg_op_end(op);
}

static fg_graph *blur_graph(void) {
  fg_graph *g = fg_graph_new("blurry");
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape2(8, 8)));
  fg_output(g, "y", ex_half(g, box3(g, ex_half(g, x))));
  return g;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return buf;
}

START_TEST(test_viz_dot_before_and_after_fusion) {
  char dir[] = "/tmp/fg-viz-XXXXXX", path[128], err[512];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  fg_graph *g = blur_graph();
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  snprintf(path, sizeof path, "%s/before.dot", dir);
  ck_assert_msg(fg_graph_draw(g, NULL, path, err, sizeof err) == FG_OK, "%s",
                err);
  char *dot = slurp(path);
  ck_assert_ptr_null(strstr(dot, "cluster"));
  ck_assert_ptr_nonnull(strstr(dot, "blur"));
  ck_assert_ptr_nonnull(strstr(dot, "f32[8x8]"));
  snprintf(path, sizeof path, "%s/after.dot", dir);
  ck_assert_msg(fg_graph_draw(g, p, path, err, sizeof err) == FG_OK, "%s",
                err);
  dot = slurp(path);
  /* half alone, then blur+half: two clusters; the first half's result is
   * materialized because blur reads it non-locally, blur's is fused */
  ck_assert_ptr_nonnull(strstr(dot, "cluster_k0"));
  ck_assert_ptr_nonnull(strstr(dot, "cluster_k1"));
  ck_assert_ptr_null(strstr(dot, "cluster_k2"));
  ck_assert_ptr_nonnull(strstr(dot, "non-local read by blur"));
  ck_assert_ptr_nonnull(strstr(dot, "dashed"));
  snprintf(path, sizeof path, "%s/after.svg", dir);
  ck_assert_msg(fg_graph_draw(g, p, path, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert_ptr_nonnull(strstr(slurp(path), "<svg"));
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_viz_sibling_reductions_drawn_in_one_kernel) {
  /* min and max of one field: one cluster that says it carries both */
  char dir[] = "/tmp/fg-viz-XXXXXX", path[128], err[512];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  fg_graph *g = fg_graph_new("range");
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_F32, fg_shape2(8, 8)));
  fg_output(g, "lo", fg_reduce(g, "lo", FG_REDUCE_MIN, x));
  fg_output(g, "hi", fg_reduce(g, "hi", FG_REDUCE_MAX, x));
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  snprintf(path, sizeof path, "%s/after.dot", dir);
  ck_assert_msg(fg_graph_draw(g, p, path, err, sizeof err) == FG_OK, "%s",
                err);
  char *dot = slurp(path);
  ck_assert_ptr_nonnull(strstr(dot, "cluster_k0"));
  ck_assert_ptr_null(strstr(dot, "cluster_k1"));
  ck_assert_msg(strstr(dot, "kernel 0: 2 reductions, one pass"), "%s", dot);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_viz_refuses_bad_requests_and_writes_nothing) {
  char dir[] = "/tmp/fg-viz-XXXXXX", path[128], err[512];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  fg_graph *g = blur_graph(), *other = blur_graph();
  fg_output(other, "extra", fg_input(other, "z",
                                     fg_type_scalar(FG_F32, fg_shape1(3))));
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, other);
  snprintf(path, sizeof path, "%s/graph.jpeg", dir);
  ck_assert_int_eq(fg_graph_draw(g, NULL, path, err, sizeof err), FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(err, ".svg"));
  ck_assert_int_ne(access(path, F_OK), 0);
  snprintf(path, sizeof path, "%s/graph.svg", dir);
  ck_assert_int_eq(fg_graph_draw(g, p, path, err, sizeof err), FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(err, "not compiled from graph 'blurry'"));
  ck_assert_int_ne(access(path, F_OK), 0);
  snprintf(path, sizeof path, "%s/no/such/dir/graph.dot", dir);
  ck_assert_int_eq(fg_graph_draw(g, NULL, path, err, sizeof err), FG_EIO);
  ck_assert_ptr_nonnull(strstr(err, path));
  ck_assert_int_eq(fg_graph_draw(NULL, NULL, path, err, sizeof err),
                   FG_EINVAL);
  /* nothing but the directory itself is left */
  char cmd[160];
  snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\" && rm -rf %s", dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
  fg_graph_free(other);
}
END_TEST

int main(void) {
  Suite *s = suite_create("viz");
  TCase *tc = tcase_create("viz");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_viz_dot_before_and_after_fusion);
  tcase_add_test(tc, test_viz_refuses_bad_requests_and_writes_nothing);
  tcase_add_test(tc, test_viz_sibling_reductions_drawn_in_one_kernel);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
