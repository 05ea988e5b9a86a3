/* tests/check_dsl.c - Check suite of the "dsl" module: the kernel builder's
 * checks (fieldgraph/dsl.h).  Each refused program checks the status code
 * and that the message names the operator ("operator 'NAME'") and the
 * problem; sticky errors are followed through chains of calls and into
 * fg_compile; accepted programs (if/elseif/else, nested and plain loops,
 * while, arrays, vector literals, swizzles, conversions, big tensors,
 * variables and arrays typed after a field, one thread per tensor
 * element) are built and most of them compiled and run on the backend $FG_TEST_BACKEND
 * names (the CPU by default) against values computed here in plain C.
 * The "regressions" case holds tests of library bugs these tests once
 * found. */
#include "testutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

/* Compiles g on the backend $FG_TEST_BACKEND names and runs it once. */
static void run_graph(fg_graph *g, int n_in, const void *const *in,
                      int n_out, void *const *out) {
  expect_ok(g);
  fg_context *ctx = tu_context();
  fg_program *prog = NULL;
  char err[1024] = "";
  fg_status st = fg_compile(ctx, g, NULL, &prog);
  if (st == FG_OK)
    st = fg_program_run(prog, n_in, in, n_out, out);
  snprintf(err, sizeof err, "%s", fg_context_errmsg(ctx));
  fg_program_free(prog);
  tu_context_free(ctx);
  ck_assert_msg(st == FG_OK, "compile/run: %s", err);
}

/* A 4 x 4 float field and an operator "op" writing one of them, opened on a
 * fresh graph with input "in". */
typedef struct fixture {
  fg_graph *g;
  fg_field *in;
  fg_op *op;
  fg_type t;
} fixture;

static fixture open_op(const char *name, fg_type in_t, fg_type out_t) {
  fixture f;
  f.g = fg_graph_new("t");
  ck_assert_ptr_nonnull(f.g);
  f.t = out_t;
  f.in = fg_input(f.g, "in", in_t);
  ck_assert_ptr_nonnull(f.in);
  f.op = fg_op_begin(f.g, name, 1, &out_t);
  ck_assert_ptr_nonnull(f.op);
  return f;
}

static fg_type f44(void) { return fg_type_scalar(FG_F32, fg_shape2(4, 4)); }

/* ---- wrong types -------------------------------------------------------- */

START_TEST(test_dsl_write_float4_to_u8_vec4_refused) {
  fg_shape s = fg_shape2(4, 4);
  fixture f = open_op("toU8", fg_type_vector(FG_F32, s, 4),
                      fg_type_vector(FG_U8, s, 4));
  fg_expr *v = fg_read_tensor(f.op, f.in);
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(fg_expr_width(v), 4);
  ck_assert_int_eq(fg_expr_elem(v), FG_F32);
  fg_write_tensor(f.op, 0, v);
  expect_error(f.g, FG_ETYPE, "operator 'toU8'", "_writeTensor(_out0)",
               "value is float4", "uchar4", "fg_convert", NULL);
  ck_assert_ptr_null(fg_op_end(f.op));
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_assign_float_to_int_refused) {
  fixture f = open_op("narrow", f44(), f44());
  fg_expr *i = fg_var(f.op, FG_I32, 1);
  ck_assert_ptr_nonnull(i);
  fg_assign(i, fg_float(f.op, 1.5f));
  expect_error(f.g, FG_ETYPE, "operator 'narrow'", "fg_assign",
               "cannot assign float", "int variable", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_add_float4_int2_refused) {
  fixture f = open_op("mix", f44(), f44());
  fg_expr *a = fg_var(f.op, FG_F32, 4);
  fg_expr *b = fg_var(f.op, FG_I32, 2);
  expect_ok(f.g);
  ck_assert_ptr_null(fg_add(a, b));
  expect_error(f.g, FG_ETYPE, "operator 'mix'", "operator +",
               "float4", "int2", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_sqrt_of_int_refused) {
  fixture f = open_op("root", f44(), f44());
  ck_assert_ptr_null(fg_sqrt(fg_int(f.op, 4)));
  expect_error(f.g, FG_ETYPE, "operator 'root'", "_sqrt",
               "float or double", "int", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_dot_float3_float4_refused) {
  fixture f = open_op("dots", f44(), f44());
  fg_expr *a = fg_var(f.op, FG_F32, 3);
  fg_expr *b = fg_var(f.op, FG_F32, 4);
  ck_assert_ptr_null(fg_dot(a, b));
  expect_error(f.g, FG_ETYPE, "operator 'dots'", "_dot", "argument 2",
               "float4", "float3", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_swizzle_w_of_float3_refused) {
  fixture f = open_op("swz", f44(), f44());
  fg_expr *v = fg_var(f.op, FG_F32, 3);
  ck_assert_ptr_nonnull(fg_swizzle(v, "z")); /* z exists */
  expect_ok(f.g);
  ck_assert_ptr_null(fg_swizzle(v, "w"));
  expect_error(f.g, FG_ETYPE, "operator 'swz'", "component 'w'",
               "does not exist", "float3", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_swizzle_of_scalar_refused) {
  fixture f = open_op("swz", f44(), f44());
  ck_assert_ptr_null(fg_swizzle(fg_read_tensor(f.op, f.in), "x"));
  expect_error(f.g, FG_ETYPE, "operator 'swz'", "fg_swizzle",
               "float is not a vector", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_swizzle_bad_letters_refused) {
  /* mixing xyzw and rgba */
  fixture f = open_op("swz", f44(), f44());
  ck_assert_ptr_null(fg_swizzle(fg_var(f.op, FG_F32, 4), "xg"));
  expect_error(f.g, FG_EINVAL, "operator 'swz'", "'g'", "cannot be mixed",
               NULL);
  fg_graph_free(f.g);
  /* five letters */
  f = open_op("swz", f44(), f44());
  ck_assert_ptr_null(fg_swizzle(fg_var(f.op, FG_F32, 4), "xyzwx"));
  expect_error(f.g, FG_EINVAL, "operator 'swz'", "1 to 4 components", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_vector_literal_wrong_count_refused) {
  fixture f = open_op("lit", f44(), f44());
  fg_expr *x = fg_float(f.op, 1.0f);
  ck_assert_ptr_null(fg_float4(x, x, x));
  expect_error(f.g, FG_ETYPE, "operator 'lit'", "_float4",
               "3 components", "expected 4", NULL);
  fg_graph_free(f.g);
  /* a vector argument counts all its components: 3 + 2 > 4 */
  f = open_op("lit", f44(), f44());
  x = fg_float(f.op, 1.0f);
  ck_assert_ptr_null(fg_float4(fg_float3(x, x, x), fg_float2(x, x)));
  expect_error(f.g, FG_ETYPE, "operator 'lit'", "5 components", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_vector_literal_wrong_elem_refused) {
  fixture f = open_op("lit", f44(), f44());
  fg_expr *i2 = fg_var(f.op, FG_I32, 2);
  ck_assert_ptr_null(fg_float4(i2, fg_float(f.op, 0), fg_float(f.op, 0)));
  expect_error(f.g, FG_ETYPE, "operator 'lit'", "argument 1 is int2",
               "element type float", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_as_size_mismatch_refused) {
  fixture f = open_op("bits", f44(), f44());
  fg_expr *v = fg_var(f.op, FG_F32, 4);
  ck_assert_ptr_null(fg_as(v, FG_I32, 2));
  expect_error(f.g, FG_ETYPE, "operator 'bits'", "_as",
               "cannot reinterpret float4 (16 bytes)", "int2 (8 bytes)",
               NULL);
  fg_graph_free(f.g);
  /* scalar: float (4 bytes) as double (8 bytes) */
  f = open_op("bits", f44(), f44());
  ck_assert_ptr_null(fg_as(fg_float(f.op, 1), FG_F64, 1));
  expect_error(f.g, FG_ETYPE, "operator 'bits'", "float (4 bytes)",
               "double (8 bytes)", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_convert_width_mismatch_refused) {
  fixture f = open_op("conv", f44(), f44());
  ck_assert_ptr_null(fg_convert(fg_var(f.op, FG_F32, 4), FG_I32, 2));
  expect_error(f.g, FG_ETYPE, "operator 'conv'", "_convert",
               "float4 to int2", "widths differ", NULL);
  fg_graph_free(f.g);
  /* saturation only makes sense toward integers */
  f = open_op("conv", f44(), f44());
  ck_assert_ptr_null(fg_convert_sat(fg_int(f.op, 3), FG_F32, 1));
  expect_error(f.g, FG_ETYPE, "operator 'conv'", "_convert_sat",
               "integer type", "f32", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_if_float_condition_refused) {
  fixture f = open_op("cond", f44(), f44());
  fg_if(fg_read_tensor(f.op, f.in));
  expect_error(f.g, FG_ETYPE, "operator 'cond'", "fg_if",
               "integer or bool scalar", "got float", NULL);
  fg_graph_free(f.g);
  /* a vector comparison is no condition either */
  f = open_op("cond", f44(), f44());
  fg_expr *v = fg_var(f.op, FG_I32, 4);
  fg_while(fg_lt(v, v));
  expect_error(f.g, FG_ETYPE, "operator 'cond'", "fg_while", "got int4",
               NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_integer_only_operators_refused) {
  fixture f = open_op("ints", f44(), f44());
  ck_assert_ptr_null(fg_mod(fg_float(f.op, 5), fg_int(f.op, 2)));
  expect_error(f.g, FG_ETYPE, "operator 'ints'", "operator %",
               "integer operands", NULL);
  fg_graph_free(f.g);
}
END_TEST

/* ---- shapes ------------------------------------------------------------- */

START_TEST(test_dsl_implicit_read_shape_mismatch_refused) {
  fixture f = open_op("crop", fg_type_scalar(FG_F32, fg_shape2(4, 4)),
                      fg_type_scalar(FG_F32, fg_shape2(4, 5)));
  ck_assert_ptr_null(fg_read_tensor(f.op, f.in));
  expect_error(f.g, FG_ESHAPE, "operator 'crop'", "_readTensor('in')",
               "implicit addressing", "thread shape", "f32[4x4]", "f32[4x5]",
               NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_implicit_read_0d_field_accepted) {
  /* a 0-dimensional field is readable from any thread shape */
  fg_graph *g = fg_graph_new("t");
  fg_field *k = fg_input(g, "k", fg_type_scalar(FG_F32, fg_shape0()));
  fg_field *in = fg_input(g, "in", f44());
  fg_op *op = fg_op_begin(g, "scale", 1, (fg_type[]){f44()});
  fg_write_tensor(op, 0, fg_mul(fg_read_tensor(op, in),
                                fg_read_tensor(op, k)));
  fg_field *out = fg_op_end(op);
  expect_ok(g);
  fg_output(g, "out", out);
  float kv = 3.0f, iv[16], ov[16];
  for (int i = 0; i < 16; i++)
    iv[i] = (float)i - 4.0f;
  run_graph(g, 2, (const void *[]){&kv, iv}, 1, (void *[]){ov});
  for (int i = 0; i < 16; i++)
    ck_assert_float_eq(ov[i], iv[i] * 3.0f);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_implicit_write_shape_mismatch_refused) {
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", f44());
  fg_type t0 = f44(), t1 = fg_type_scalar(FG_F32, fg_shape2(2, 2));
  fg_op *op = fg_op_begin(g, "pyramid", 2, (fg_type[]){t0, t1});
  fg_expr *v = fg_read_tensor(op, in);
  fg_write_tensor(op, 0, v);
  expect_ok(g);
  fg_write_tensor(op, 1, v);
  expect_error(g, FG_ESHAPE, "operator 'pyramid'", "_writeTensor(_out1)",
               "implicit addressing", "f32[2x2]", "f32[4x4]", NULL);
  ck_assert_ptr_null(fg_op_end(op));
  fg_graph_free(g);
}
END_TEST

/* ---- outputs ------------------------------------------------------------ */

START_TEST(test_dsl_write_missing_output_refused) {
  fixture f = open_op("one", f44(), f44());
  fg_write_tensor(f.op, 1, fg_read_tensor(f.op, f.in));
  expect_error(f.g, FG_EINVAL, "operator 'one'", "_writeTensor",
               "output 1 does not exist", "outputs 0 to 0", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_write_negative_output_refused) {
  fixture f = open_op("one", f44(), f44());
  fg_write_tensor(f.op, -1, fg_read_tensor(f.op, f.in));
  expect_error(f.g, FG_EINVAL, "operator 'one'", "output -1 does not exist",
               NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_output_never_written_refused) {
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", f44());
  fg_op *op = fg_op_begin(g, "pair", 2, (fg_type[]){f44(), f44()});
  fg_write_tensor(op, 0, fg_read_tensor(op, in));
  expect_ok(g);
  ck_assert_ptr_null(fg_op_end(op));
  expect_error(g, FG_ERULE, "operator 'pair'", "output 1 (_out1)",
               "never written", NULL);
  ck_assert_int_eq(fg_graph_op_count(g), 0);
  fg_graph_free(g);

  /* an empty body */
  g = fg_graph_new("t");
  op = fg_op_begin(g, "empty", 1, (fg_type[]){f44()});
  ck_assert_ptr_null(fg_op_end(op));
  expect_error(g, FG_ERULE, "operator 'empty'", "output 0 (_out0)",
               "never written", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_output_written_twice_refused) {
  fixture f = open_op("twice", f44(), f44());
  fg_expr *v = fg_read_tensor(f.op, f.in);
  fg_write_tensor(f.op, 0, v);
  fg_write_tensor(f.op, 0, v);
  expect_error(f.g, FG_ERULE, "operator 'twice'", "_writeTensor(_out0)",
               "already written", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_eleven_outputs_refused) {
  fg_type t[11];
  for (int i = 0; i < 11; i++)
    t[i] = f44();
  fg_graph *g = fg_graph_new("t");
  ck_assert_ptr_null(fg_op_begin(g, "many", 11, t));
  expect_error(g, FG_ERULE, "operator 'many'", "11 outputs requested",
               "1 to 10", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_zero_outputs_refused) {
  fg_graph *g = fg_graph_new("t");
  ck_assert_ptr_null(fg_op_begin(g, "none", 0, (fg_type[]){f44()}));
  expect_error(g, FG_ERULE, "operator 'none'", "0 outputs requested", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_bad_output_type_refused) {
  fg_graph *g = fg_graph_new("t");
  ck_assert_ptr_null(fg_op_begin(g, "bad", 2, (fg_type[]){
      f44(), fg_type_scalar(FG_BOOL, fg_shape2(4, 4))}));
  expect_error(g, FG_ETYPE, "operator 'bad' output 1",
               "not a field element type", NULL);
  fg_graph_free(g);
  g = fg_graph_new("t");
  ck_assert_ptr_null(fg_op_begin(g, "", 1, (fg_type[]){f44()}));
  expect_error(g, FG_EINVAL, "fg_op_begin", "name is empty", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_ten_outputs_accepted) {
  fg_type t[10];
  for (int i = 0; i < 10; i++)
    t[i] = f44();
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", f44());
  fg_op *op = fg_op_begin(g, "fan", 10, t);
  ck_assert_ptr_nonnull(op);
  fg_expr *v = fg_read_tensor(op, in);
  for (int i = 0; i < 10; i++)
    fg_write_tensor(op, i, fg_mulf(v, (float)i));
  fg_field *o0 = fg_op_end(op);
  expect_ok(g);
  ck_assert_ptr_nonnull(o0);
  ck_assert_str_eq(fg_field_name(fg_op_output(op, 9)), "fan.out9");
  ck_assert_int_eq(fg_graph_op_count(g), 1);
  /* output 10 does not exist */
  ck_assert_ptr_null(fg_op_output(op, 10));
  expect_error(g, FG_EINVAL, "operator 'fan'", "fg_op_output",
               "output 10 does not exist", NULL);
  fg_graph_free(g);
}
END_TEST

/* ---- big tensors -------------------------------------------------------- */

static fg_type m33(void) {
  return fg_type_matrix(FG_F32, fg_shape2(2, 3), 3, 3);
}

START_TEST(test_dsl_read_tensor_in_foreach_refused) {
  fixture f = open_op("bigsq", m33(), m33());
  fg_for_each_tensor_element(f.op, m33().tensor);
  expect_ok(f.g);
  ck_assert_ptr_null(fg_read_tensor(f.op, f.in));
  expect_error(f.g, FG_ERULE, "operator 'bigsq'", "_readTensor",
               "big-tensor mode", "_readTensorElement", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_read_big_tensor_outside_foreach_refused) {
  fixture f = open_op("trace", m33(),
                      fg_type_scalar(FG_F32, fg_shape2(2, 3)));
  ck_assert_ptr_null(fg_read_tensor(f.op, f.in));
  expect_error(f.g, FG_ERULE, "operator 'trace'", "_readTensor('in')",
               "big tensors (9 elements)", "_readTensorElement", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_write_tensor_in_foreach_refused) {
  fixture f = open_op("bigsq", m33(), m33());
  fg_for_each_tensor_element(f.op, m33().tensor);
  fg_expr *e = fg_read_element(f.op, f.in, NULL);
  ck_assert_ptr_nonnull(e);
  fg_write_tensor(f.op, 0, e);
  expect_error(f.g, FG_ERULE, "operator 'bigsq'", "_writeTensor",
               "illegal in big-tensor mode", "_writeTensorElement", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_write_big_tensor_outside_foreach_refused) {
  fixture f = open_op("bigout", f44(),
                      fg_type_matrix(FG_F32, fg_shape2(4, 4), 3, 3));
  fg_write_tensor(f.op, 0, fg_read_tensor(f.op, f.in));
  expect_error(f.g, FG_ERULE, "operator 'bigout'", "_writeTensor(_out0)",
               "big tensors (9 elements)", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_tensor_element_outside_foreach_refused) {
  fixture f = open_op("elem", m33(), m33());
  ck_assert_ptr_null(fg_tensor_element(f.op));
  expect_error(f.g, FG_ERULE, "operator 'elem'", "_tensorElement",
               "only defined inside _forEachTensorElement", NULL);
  fg_graph_free(f.g);
  /* the implicit element index of _readTensorElement too */
  f = open_op("elem", m33(), m33());
  ck_assert_ptr_null(fg_read_element(f.op, f.in, NULL));
  expect_error(f.g, FG_ERULE, "operator 'elem'", "_readTensorElement('in')",
               "no element index", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_foreach_count_mismatch_refused) {
  fixture f = open_op("bigsq", m33(), m33());
  fg_for_each_tensor_element(f.op, fg_shape2(2, 2));
  expect_error(f.g, FG_ESHAPE, "operator 'bigsq'", "over 4 elements",
               "output 0", "mat3x3", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_tensor_var_of_big_field_refused) {
  fixture f = open_op("bigvar", m33(), m33());
  ck_assert_ptr_null(fg_tensor_var(f.op, f.in));
  expect_error(f.g, FG_ETYPE, "operator 'bigvar'", "_tensorVar",
               "field 'in'", "_tensorElementVar", NULL);
  fg_graph_free(f.g);
}
END_TEST

/* ---- variables and arrays typed after a field ---------------------------- */

START_TEST(test_dsl_tensor_decls_follow_the_field) {
  /* _tensorVar/_tensorArray hold a field's tensors, _tensorElementVar/
   * _tensorElementArray its elements, whatever the element type */
  fg_graph *g = fg_graph_new("t");
  fg_shape s = fg_shape2(3, 4);
  fg_field *rgba = fg_input(g, "rgba", fg_type_vector(FG_U8, s, 4));
  fg_field *d = fg_input(g, "d", fg_type_scalar(FG_F64, s));
  fg_field *m = fg_input(g, "m", fg_type_matrix(FG_I16, s, 3, 3));
  fg_op *op = fg_op_begin(g, "decls", 1, (fg_type[]){f44()});
  fg_expr *ta = fg_tensor_array(op, rgba, 2, 4, 4);
  fg_expr *tea = fg_tensor_element_array(op, rgba, 1, 8);
  fg_expr *da = fg_tensor_array(op, d, 3, 2, 2, 2);
  fg_expr *ma = fg_tensor_element_array(op, m, 1, 9);
  fg_expr *mv = fg_tensor_element_var(op, m);
  expect_ok(g);
  ck_assert_int_eq(fg_expr_elem(ta), FG_U8);
  ck_assert_int_eq(fg_expr_width(ta), 4);
  ck_assert_int_eq(fg_expr_elem(tea), FG_U8);
  ck_assert_int_eq(fg_expr_width(tea), 1);
  ck_assert_int_eq(fg_expr_elem(da), FG_F64);
  ck_assert_int_eq(fg_expr_width(da), 1);
  ck_assert_int_eq(fg_expr_elem(ma), FG_I16);
  ck_assert_int_eq(fg_expr_width(ma), 1);
  ck_assert_int_eq(fg_expr_elem(mv), FG_I16);
  /* arrays: indexed with as many indices as dimensions, never assigned
   * whole */
  fg_expr *z = fg_int(op, 0);
  ck_assert_int_eq(fg_expr_width(fg_at(ta, 2, z, z)), 4);
  ck_assert_int_eq(fg_expr_elem(fg_at(da, 3, z, z, z)), FG_F64);
  expect_ok(g);
  ck_assert_ptr_null(fg_at(ta, 1, z));
  expect_error(g, FG_EINVAL, "operator 'decls'", "fg_at",
               "1 indices for a 2-dimensional array", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_tensor_decls_refused) {
  /* a field of another graph does not exist in this one: each call says
   * so, naming itself */
  static const char *const calls[4] = {"_tensorVar", "_tensorArray",
                                       "_tensorElementVar",
                                       "_tensorElementArray"};
  fg_graph *other = fg_graph_new("other");
  fg_field *alien = fg_input(other, "alien", f44());
  for (int i = 0; i < 4; i++) {
    fixture f = open_op("decl", f44(), f44());
    fg_expr *v = i == 0   ? fg_tensor_var(f.op, alien)
                 : i == 1 ? fg_tensor_array(f.op, alien, 1, 4)
                 : i == 2 ? fg_tensor_element_var(f.op, alien)
                          : fg_tensor_element_array(f.op, alien, 1, 4);
    ck_assert_ptr_null(v);
    expect_error(f.g, FG_EINVAL, "operator 'decl'", calls[i],
                 "field 'alien'", "another graph", NULL);
    fg_graph_free(f.g);
  }
  expect_ok(other);
  fg_graph_free(other);

  /* an output port that does not exist is reported where it is asked
   * for; the array built from its NULL adds nothing */
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", f44());
  fg_op *a = fg_op_begin(g, "a", 1, (fg_type[]){f44()});
  fg_write_tensor(a, 0, fg_read_tensor(a, in));
  fg_op_end(a);
  fg_op *b = fg_op_begin(g, "b", 1, (fg_type[]){f44()});
  ck_assert_ptr_null(fg_tensor_array(b, fg_op_output(a, 3), 2, 4, 4));
  expect_error(g, FG_EINVAL, "operator 'a'", "output 3 does not exist",
               "outputs 0 to 0", NULL);
  ck_assert_ptr_null(fg_tensor_element_array(b, fg_op_output(a, 0), 1, 4));
  expect_error(g, FG_EINVAL, "output 3 does not exist", NULL);
  fg_graph_free(g);

  /* a NULL field on a clean graph has no earlier failure to explain it:
   * the first call receiving it is named (issue 17, finding 13) */
  fixture f = open_op("decl", f44(), f44());
  ck_assert_ptr_null(fg_tensor_array(f.op, NULL, 1, 4));
  ck_assert_ptr_null(fg_tensor_element_array(f.op, NULL, 1, 4));
  ck_assert_ptr_null(fg_tensor_element_var(f.op, NULL));
  expect_error(f.g, FG_EINVAL, "operator 'decl'", "_tensorArray",
               "field is NULL", NULL);
  fg_graph_free(f.g);

  /* big tensors have no tensor array; their elements do */
  f = open_op("bigarr", m33(), m33());
  ck_assert_ptr_nonnull(fg_tensor_element_array(f.op, f.in, 2, 3, 3));
  ck_assert_ptr_null(fg_tensor_array(f.op, f.in, 2, 3, 3));
  expect_error(f.g, FG_ETYPE, "operator 'bigarr'", "_tensorArray",
               "field 'in'", "9 elements", "_tensorElementArray", NULL);
  fg_graph_free(f.g);

  /* extents as fg_array's, with the call named */
  f = open_op("dims", f44(), f44());
  ck_assert_ptr_null(fg_tensor_array(f.op, f.in, 4, 2, 2, 2, 2));
  expect_error(f.g, FG_EINVAL, "operator 'dims'", "_tensorArray",
               "4 dimensions (expected 1 to 3)", NULL);
  fg_graph_free(f.g);
  f = open_op("dims", f44(), f44());
  ck_assert_ptr_null(fg_tensor_element_array(f.op, f.in, 2, 3, 0));
  expect_error(f.g, FG_EINVAL, "operator 'dims'", "_tensorElementArray",
               "extent 0 on axis 1", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_tensor_arrays_run) {
  /* img: u8 RGB pixels; m: 2x3 matrices (big, one plane per element).
   *   t = _tensorArray(img, 3):         t[0] = px, t[k] = t[k-1] + px
   *   e = _tensorElementArray(m, 2, 3): e[r][c] = element 3r + c
   *   out0 = t[2] (3 px, wrapping), out1 = sum of e[r][c] * (3r + c + 1) */
  enum { R = 5, C = 7, P = R * C, E = 6 };
  fg_shape s = fg_shape2(R, C);
  fg_type ti = fg_type_vector(FG_U8, s, 3);
  fg_type tm = fg_type_matrix(FG_F32, s, 2, 3);
  fg_type ts = fg_type_scalar(FG_F32, s);
  fg_graph *g = fg_graph_new("t");
  fg_field *img = fg_input(g, "img", ti);
  fg_field *m = fg_input(g, "m", tm);
  fg_op *op = fg_op_begin(g, "arrays", 2, (fg_type[]){ti, ts});
  fg_expr *px = fg_tensor_var(op, img);
  fg_assign(px, fg_read_tensor(op, img));
  fg_expr *t = fg_tensor_array(op, img, 1, 3);
  fg_expr *e = fg_tensor_element_array(op, m, 2, 2, 3);
  fg_expr *sum = fg_tensor_element_var(op, m);
  fg_expr *k = fg_var(op, FG_I32, 1);
  fg_expr *r = fg_var(op, FG_I32, 1);
  fg_expr *c = fg_var(op, FG_I32, 1);
  fg_assign(fg_at(t, 1, fg_int(op, 0)), px);
  fg_for(k, fg_int(op, 1), fg_lt(k, fg_int(op, 3)), fg_int(op, 1));
  fg_assign(fg_at(t, 1, k), fg_add(fg_at(t, 1, fg_subi(k, 1)), px));
  fg_end(op);
  fg_for(r, fg_int(op, 0), fg_lt(r, fg_int(op, 2)), fg_int(op, 1));
  fg_for(c, fg_int(op, 0), fg_lt(c, fg_int(op, 3)), fg_int(op, 1));
  fg_assign(fg_at(e, 2, r, c),
            fg_read_element(op, m, fg_add(fg_muli(r, 3), c)));
  fg_end(op);
  fg_end(op);
  fg_for(r, fg_int(op, 0), fg_lt(r, fg_int(op, 2)), fg_int(op, 1));
  fg_for(c, fg_int(op, 0), fg_lt(c, fg_int(op, 3)), fg_int(op, 1));
  fg_assign(sum, fg_add(sum, fg_mul(fg_at(e, 2, r, c),
                                    fg_convert(fg_addi(fg_add(fg_muli(r, 3),
                                                              c), 1),
                                               FG_F32, 1))));
  fg_end(op);
  fg_end(op);
  fg_write_tensor(op, 0, fg_at(t, 1, fg_int(op, 2)));
  fg_write_tensor(op, 1, sum);
  fg_output(g, "thrice", fg_op_end(op));
  fg_output(g, "weighted", fg_op_output(op, 1));
  expect_ok(g);
  uint8_t pix[P][3], out0[P][3];
  float mat[E][P], out1[P];
  for (int p = 0; p < P; p++)
    for (int j = 0; j < 3; j++)
      pix[p][j] = (uint8_t)(p * 37 + j * 101);
  for (int q = 0; q < E; q++)
    for (int p = 0; p < P; p++)
      mat[q][p] = (float)(q * 10 - p) * 0.5f;   /* small halves: exact */
  run_graph(g, 2, (const void *[]){pix, mat}, 2, (void *[]){out0, out1});
  for (int p = 0; p < P; p++) {
    for (int j = 0; j < 3; j++)
      ck_assert_uint_eq(out0[p][j], (uint8_t)(3 * pix[p][j]));
    float want = 0;
    for (int q = 0; q < E; q++)
      want += mat[q][p] * (float)(q + 1);
    ck_assert_msg(out1[p] == want, "point %d: got %g, want %g", p, out1[p],
                  want);
  }
  fg_graph_free(g);
}
END_TEST

/* ---- statement order ---------------------------------------------------- */

START_TEST(test_dsl_statement_after_write_refused) {
  fixture f = open_op("late", f44(), f44());
  fg_expr *v = fg_var(f.op, FG_F32, 1);
  fg_assign(v, fg_read_tensor(f.op, f.in));
  fg_write_tensor(f.op, 0, v);
  expect_ok(f.g);
  fg_assign(v, fg_float(f.op, 0.0f));
  expect_error(f.g, FG_ERULE, "operator 'late'", "fg_assign after "
               "_writeTensor", "last executable statement", NULL);
  fg_graph_free(f.g);
  /* a block after the write is refused as well */
  f = open_op("late", f44(), f44());
  fg_write_tensor(f.op, 0, fg_read_tensor(f.op, f.in));
  fg_if(fg_int(f.op, 1));
  expect_error(f.g, FG_ERULE, "operator 'late'", "fg_if after _writeTensor",
               NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_statement_before_foreach_refused) {
  fixture f = open_op("bigsq", m33(), m33());
  fg_expr *v = fg_var(f.op, FG_F32, 1);
  ck_assert_ptr_nonnull(v);
  fg_for_each_tensor_element(f.op, m33().tensor);
  expect_error(f.g, FG_ERULE, "operator 'bigsq'", "_forEachTensorElement",
               "first statement", "1 statement(s) before it", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_statement_after_foreach_refused) {
  fixture f = open_op("bigsq", m33(), m33());
  fg_for_each_tensor_element(f.op, m33().tensor);
  fg_write_element(f.op, 0, fg_read_element(f.op, f.in, NULL), NULL);
  fg_end(f.op);
  expect_ok(f.g);
  ck_assert_ptr_null(fg_var(f.op, FG_F32, 1));
  expect_error(f.g, FG_ERULE, "operator 'bigsq'",
               "fg_var after _forEachTensorElement",
               "no executed statement may follow", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_foreach_inside_block_refused) {
  fixture f = open_op("bigsq", m33(), m33());
  fg_if(fg_int(f.op, 1));
  fg_for_each_tensor_element(f.op, m33().tensor);
  expect_error(f.g, FG_ERULE, "operator 'bigsq'", "_forEachTensorElement",
               "top level", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_write_inside_if_refused) {
  fixture f = open_op("guard", f44(), f44());
  fg_expr *v = fg_read_tensor(f.op, f.in);
  fg_if(fg_gt(v, fg_float(f.op, 0.0f)));
  expect_ok(f.g);
  fg_write_tensor(f.op, 0, v);
  expect_error(f.g, FG_ERULE, "operator 'guard'", "_writeTensor(_out0)",
               "not inside a block", NULL);
  fg_graph_free(f.g);
}
END_TEST

/* ---- explicit addressing ------------------------------------------------ */

START_TEST(test_dsl_read_at_three_coords_on_2d_refused) {
  fixture f = open_op("look", f44(), f44());
  fg_expr *z = fg_int(f.op, 0);
  ck_assert_ptr_null(fg_read_tensor_at(f.op, f.in, 3, z, fg_row(f.op),
                                       fg_column(f.op)));
  expect_error(f.g, FG_ERULE, "operator 'look'", "_readTensor('in')",
               "needs 2 coordinate(s)", "2-dimensional", "got 3", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_write_at_one_coord_on_2d_refused) {
  fixture f = open_op("scatter", f44(), f44());
  fg_write_tensor_at(f.op, 0, fg_read_tensor(f.op, f.in), 1,
                     fg_column(f.op));
  expect_error(f.g, FG_ERULE, "operator 'scatter'", "_writeTensor",
               "needs 2 coordinate(s)", "got 1", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_float_coordinate_refused) {
  fixture f = open_op("look", f44(), f44());
  ck_assert_ptr_null(fg_read_tensor_at(f.op, f.in, 2, fg_row(f.op),
                                       fg_float(f.op, 1.0f)));
  expect_error(f.g, FG_ETYPE, "operator 'look'", "_readTensor",
               "coordinate must be an integer scalar", "got float", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_array_index_checks) {
  fixture f = open_op("arr", f44(), f44());
  fg_expr *a = fg_array(f.op, FG_F32, 1, 2, 3, 3);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_null(fg_at(a, 1, fg_int(f.op, 0)));
  expect_error(f.g, FG_EINVAL, "operator 'arr'", "fg_at",
               "1 indices for a 2-dimensional array", NULL);
  fg_graph_free(f.g);
  f = open_op("arr", f44(), f44());
  a = fg_array(f.op, FG_F32, 1, 1, 4);
  ck_assert_ptr_null(fg_at(a, 1, fg_float(f.op, 1.0f)));
  expect_error(f.g, FG_ETYPE, "operator 'arr'", "fg_at",
               "index must be an integer scalar", NULL);
  fg_graph_free(f.g);
  /* an array as a whole cannot be assigned */
  f = open_op("arr", f44(), f44());
  a = fg_array(f.op, FG_F32, 1, 1, 4);
  fg_assign(a, fg_float(f.op, 1.0f));
  expect_error(f.g, FG_EINVAL, "operator 'arr'", "fg_assign",
               "not a variable or array element", NULL);
  fg_graph_free(f.g);
}
END_TEST

/* ---- blocks and operators ----------------------------------------------- */

START_TEST(test_dsl_else_without_if_refused) {
  fixture f = open_op("blk", f44(), f44());
  fg_else(f.op);
  expect_error(f.g, FG_ERULE, "operator 'blk'",
               "fg_else without an open fg_if block", NULL);
  fg_graph_free(f.g);
  /* the innermost open block is a while, not an if */
  f = open_op("blk", f44(), f44());
  fg_while(fg_int(f.op, 0));
  expect_ok(f.g);
  fg_else(f.op);
  expect_error(f.g, FG_ERULE, "operator 'blk'", "fg_else without", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_elseif_without_if_refused) {
  fixture f = open_op("blk", f44(), f44());
  fg_elseif(fg_int(f.op, 1));
  expect_error(f.g, FG_ERULE, "operator 'blk'",
               "fg_elseif without an open fg_if block", NULL);
  fg_graph_free(f.g);
  /* after fg_else, no more fg_elseif */
  f = open_op("blk", f44(), f44());
  fg_if(fg_int(f.op, 1));
  fg_else(f.op);
  expect_ok(f.g);
  fg_elseif(fg_int(f.op, 1));
  expect_error(f.g, FG_ERULE, "operator 'blk'", "fg_elseif without", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_end_without_block_refused) {
  fixture f = open_op("blk", f44(), f44());
  fg_if(fg_int(f.op, 1));
  fg_end(f.op);
  expect_ok(f.g);
  fg_end(f.op);
  expect_error(f.g, FG_ERULE, "operator 'blk'",
               "fg_end without an open block", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_op_end_with_open_if_refused) {
  fixture f = open_op("open", f44(), f44());
  fg_write_tensor_at(f.op, 0, fg_float(f.op, 1.0f), 2, fg_row(f.op),
                     fg_column(f.op));
  fg_if(fg_int(f.op, 1));
  expect_ok(f.g);
  ck_assert_ptr_null(fg_op_end(f.op));
  expect_error(f.g, FG_ERULE, "operator 'open'", "fg_op_end",
               "opened by fg_if", "not closed", NULL);
  fg_graph_free(f.g);
  /* same for an open loop */
  f = open_op("open", f44(), f44());
  fg_expr *i = fg_var(f.op, FG_I32, 1);
  fg_for(i, fg_int(f.op, 0), fg_lt(i, fg_int(f.op, 3)), fg_int(f.op, 1));
  ck_assert_ptr_null(fg_op_end(f.op));
  expect_error(f.g, FG_ERULE, "operator 'open'", "opened by fg_for", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_op_begin_while_open_refused) {
  fixture f = open_op("first", f44(), f44());
  ck_assert_ptr_null(fg_op_begin(f.g, "second", 1, &f.t));
  expect_error(f.g, FG_ESTATE, "operator 'second'", "operator 'first'",
               "still open", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_expr_from_other_operator_refused) {
  /* A is closed; its expressions must not be used in B */
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", f44());
  fg_op *a = fg_op_begin(g, "a", 1, (fg_type[]){f44()});
  fg_expr *ra = fg_read_tensor(a, in);
  fg_write_tensor(a, 0, ra);
  ck_assert_ptr_nonnull(fg_op_end(a));
  fg_op *b = fg_op_begin(g, "b", 1, (fg_type[]){f44()});
  expect_ok(g);
  fg_write_tensor(b, 0, ra);
  expect_error(g, FG_EINVAL, "operator 'b'", "_writeTensor",
               "built in operator 'a'", NULL);
  ck_assert_ptr_null(fg_op_end(b));
  fg_graph_free(g);

  /* as the second operand of a binary operator */
  g = fg_graph_new("t");
  in = fg_input(g, "in", f44());
  a = fg_op_begin(g, "a", 1, (fg_type[]){f44()});
  ra = fg_read_tensor(a, in);
  fg_write_tensor(a, 0, ra);
  fg_op_end(a);
  b = fg_op_begin(g, "b", 1, (fg_type[]){f44()});
  ck_assert_ptr_null(fg_add(fg_read_tensor(b, in), ra));
  expect_error(g, FG_EINVAL, "operator 'b'", "different operators",
               "'b' and 'a'", NULL);
  fg_graph_free(g);

  /* as a coordinate */
  g = fg_graph_new("t");
  in = fg_input(g, "in", f44());
  a = fg_op_begin(g, "a", 1, (fg_type[]){f44()});
  fg_expr *row_a = fg_row(a);
  fg_write_tensor(a, 0, fg_read_tensor(a, in));
  fg_op_end(a);
  b = fg_op_begin(g, "b", 1, (fg_type[]){f44()});
  ck_assert_ptr_null(fg_read_tensor_at(b, in, 2, row_a, fg_column(b)));
  expect_error(g, FG_EINVAL, "operator 'b'", "coordinate",
               "built in operator 'a'", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_field_from_other_graph_refused) {
  fg_graph *other = fg_graph_new("other");
  fg_field *foreign = fg_input(other, "alien", f44());
  fixture f = open_op("reader", f44(), f44());
  ck_assert_ptr_null(fg_read_tensor(f.op, foreign));
  expect_error(f.g, FG_EINVAL, "operator 'reader'", "field 'alien'",
               "another graph", NULL);
  expect_ok(other);
  fg_graph_free(f.g);
  fg_graph_free(other);
}
END_TEST

/* ---- sticky errors ------------------------------------------------------ */

START_TEST(test_dsl_null_chain_keeps_first_error) {
  fixture f = open_op("half", f44(), f44());
  fg_expr *bad = fg_sqrt(fg_int(f.op, 4));
  ck_assert_ptr_null(bad);
  expect_error(f.g, FG_ETYPE, "operator 'half'", "_sqrt", NULL);
  char first[1024];
  snprintf(first, sizeof first, "%s", fg_graph_errmsg(f.g));

  /* the chain of the brief, and more of the same: no crash, nothing new */
  fg_write_tensor(f.op, 0, fg_divf(fg_read_tensor(f.op, NULL), 2.0f));
  ck_assert_ptr_null(fg_read_tensor(f.op, f.in));
  ck_assert_ptr_null(fg_divf(NULL, 2.0f));
  ck_assert_ptr_null(fg_add(bad, NULL));
  ck_assert_ptr_null(fg_float(f.op, 1.0f));
  ck_assert_ptr_null(fg_var(f.op, FG_F32, 1));
  ck_assert_ptr_null(fg_row(f.op));
  ck_assert_ptr_null(fg_swizzle(bad, "x"));
  ck_assert_ptr_null(fg_float4(bad, bad, bad, bad));
  ck_assert_ptr_null(fg_convert(bad, FG_U8, 0));
  ck_assert_ptr_null(fg_pow(bad, bad));
  ck_assert_ptr_null(fg_at(bad, 1, bad));
  ck_assert_ptr_null(fg_read_tensor_at(f.op, f.in, 2, bad, bad));
  fg_assign(bad, bad);
  fg_if(bad);
  fg_elseif(bad);
  fg_else(f.op);
  fg_while(bad);
  fg_for(bad, bad, bad, bad);
  fg_end(f.op);
  fg_for_each_tensor_element(f.op, fg_shape0());
  fg_write_tensor(f.op, 7, bad);
  fg_write_tensor_at(f.op, 0, bad, 5, bad, bad, bad, bad, bad);
  fg_write_element(f.op, 0, bad, NULL);
  /* an invalid call that would fail on its own records nothing either */
  ck_assert_ptr_null(fg_op_begin(f.g, "other", 1, &f.t));

  ck_assert_int_eq(fg_graph_status(f.g), FG_ETYPE);
  ck_assert_str_eq(fg_graph_errmsg(f.g), first);
  ck_assert_ptr_null(fg_op_end(f.op));
  ck_assert_ptr_null(fg_op_output(f.op, 0));
  ck_assert_ptr_null(fg_output(f.g, "out", NULL));
  ck_assert_str_eq(fg_graph_errmsg(f.g), first);
  ck_assert_int_eq(fg_graph_op_count(f.g), 0);

  /* fg_compile refuses the graph and passes on its message */
  fg_context *ctx = NULL;
  char err[512] = "";
  ck_assert_msg(fg_context_new(NULL, &ctx, err, sizeof err) == FG_OK,
                "fg_context_new: %s", err);
  fg_program *prog = (fg_program *)&prog; /* must be reset to NULL */
  fg_status st = fg_compile(ctx, f.g, NULL, &prog);
  char cmsg[2048];
  snprintf(cmsg, sizeof cmsg, "%s", fg_context_errmsg(ctx));
  fg_program_free(st == FG_OK ? prog : NULL);
  tu_context_free(ctx);
  ck_assert_int_eq(st, FG_ETYPE);
  ck_assert_ptr_null(prog);
  ck_assert_msg(strstr(cmsg, first) != NULL, "\"%s\" lacks \"%s\"", cmsg,
                first);
  ck_assert_msg(strstr(cmsg, "graph 't'") != NULL, "got \"%s\"", cmsg);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_null_field_on_good_graph_is_named) {
  /* nothing earlier explains the NULL: the first call receiving it is
   * named, later ones add nothing (issue 17, finding 13) */
  fixture f = open_op("half", f44(), f44());
  ck_assert_ptr_null(fg_read_tensor(f.op, NULL));
  ck_assert_ptr_null(fg_tensor_var(f.op, NULL));
  fg_write_tensor(f.op, 0, NULL);
  expect_error(f.g, FG_EINVAL, "operator 'half'", "_readTensor",
               "field is NULL", NULL);
  ck_assert_ptr_null(fg_op_end(f.op));
  expect_error(f.g, FG_EINVAL, "_readTensor", NULL);
  fg_graph_free(f.g);
}
END_TEST

START_TEST(test_dsl_compile_with_open_operator_fails) {
  fixture f = open_op("dangling", f44(), f44());
  fg_context *ctx = NULL;
  char err[512] = "";
  ck_assert_msg(fg_context_new(NULL, &ctx, err, sizeof err) == FG_OK,
                "fg_context_new: %s", err);
  fg_program *prog = NULL;
  fg_status st = fg_compile(ctx, f.g, NULL, &prog);
  char cmsg[1024];
  snprintf(cmsg, sizeof cmsg, "%s", fg_context_errmsg(ctx));
  fg_program_free(prog);
  tu_context_free(ctx);
  ck_assert_int_eq(st, FG_ESTATE);
  ck_assert_msg(strstr(cmsg, "operator 'dangling'") && strstr(cmsg, "open"),
                "got \"%s\"", cmsg);
  fg_graph_free(f.g);
}
END_TEST

/* ---- accepted programs -------------------------------------------------- */

START_TEST(test_dsl_elseif_chain_runs) {
  enum { N = 9 };
  fg_type t = fg_type_scalar(FG_F32, fg_shape1(N));
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "classify", 1, &t);
  fg_expr *x = fg_var(op, FG_F32, 1);
  fg_assign(x, fg_read_tensor(op, in));
  fg_expr *y = fg_var(op, FG_F32, 1);
  fg_if(fg_lt(x, fg_float(op, 0.0f)));
  fg_assign(y, fg_float(op, -1.0f));
  fg_elseif(fg_lt(x, fg_float(op, 10.0f)));
  fg_assign(y, fg_float(op, 1.0f));
  fg_elseif(fg_lt(x, fg_float(op, 20.0f)));
  fg_assign(y, fg_float(op, 2.0f));
  fg_else(op);
  fg_assign(y, fg_float(op, 3.0f));
  fg_end(op);
  fg_write_tensor(op, 0, y);
  fg_output(g, "y", fg_op_end(op));
  expect_ok(g);
  float xs[N] = {-5.0f, -0.1f, 0.0f, 9.5f, 10.0f, 15.0f, 19.99f, 20.0f, 1e6f};
  float ys[N];
  memset(ys, 0xff, sizeof ys);
  run_graph(g, 1, (const void *[]){xs}, 1, (void *[]){ys});
  for (int i = 0; i < N; i++) {
    float want = xs[i] < 0 ? -1 : xs[i] < 10 ? 1 : xs[i] < 20 ? 2 : 3;
    ck_assert_msg(ys[i] == want, "x = %g: got %g, want %g", xs[i], ys[i],
                  want);
  }
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_nested_loops_run) {
  /* 3 x 3 box sum with clamp-to-edge reads, two nested fg_for loops */
  enum { R = 5, C = 6 };
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(R, C));
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "img", t);
  fg_op *op = fg_op_begin(g, "box", 1, &t);
  fg_expr *sum = fg_var(op, FG_F32, 1);
  fg_expr *dy = fg_var(op, FG_I32, 1);
  fg_expr *dx = fg_var(op, FG_I32, 1);
  fg_for(dy, fg_int(op, -1), fg_le(dy, fg_int(op, 1)), fg_int(op, 1));
  fg_for(dx, fg_int(op, -1), fg_le(dx, fg_int(op, 1)), fg_int(op, 1));
  fg_assign(sum, fg_add(sum, fg_read_tensor_at(op, in, 2,
                                               fg_add(fg_row(op), dy),
                                               fg_add(fg_column(op), dx))));
  fg_end(op);
  fg_end(op);
  fg_write_tensor(op, 0, sum);
  fg_output(g, "box", fg_op_end(op));
  expect_ok(g);
  float img[R][C], out[R][C];
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++)
      img[r][c] = (float)(r * 10 + c);
  run_graph(g, 1, (const void *[]){img}, 1, (void *[]){out});
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) {
      float want = 0;
      for (int y = r - 1; y <= r + 1; y++)
        for (int x = c - 1; x <= c + 1; x++) {
          int yy = y < 0 ? 0 : y >= R ? R - 1 : y;
          int xx = x < 0 ? 0 : x >= C ? C - 1 : x;
          want += img[yy][xx];
        }
      ck_assert_msg(out[r][c] == want, "(%d,%d): got %g, want %g", r, c,
                    out[r][c], want);
    }
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_for_sum_runs) {
  /* s = sum of k for k = 0, 2, 4, ... < n */
  enum { N = 12 };
  fg_type t = fg_type_scalar(FG_I32, fg_shape1(N));
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "n", t);
  fg_op *op = fg_op_begin(g, "evensum", 1, &t);
  fg_expr *n = fg_var(op, FG_I32, 1);
  fg_assign(n, fg_read_tensor(op, in));
  fg_expr *s = fg_var(op, FG_I32, 1);
  fg_expr *k = fg_var(op, FG_I32, 1);
  fg_for(k, fg_int(op, 0), fg_lt(k, n), fg_int(op, 2));
  fg_assign(s, fg_add(s, k));
  fg_end(op);
  fg_write_tensor(op, 0, s);
  fg_output(g, "s", fg_op_end(op));
  expect_ok(g);
  int32_t ns[N], ss[N];
  for (int i = 0; i < N; i++)
    ns[i] = i * 3 - 4; /* includes n <= 0: no iteration */
  run_graph(g, 1, (const void *[]){ns}, 1, (void *[]){ss});
  for (int i = 0; i < N; i++) {
    int32_t want = 0;
    for (int32_t kk = 0; kk < ns[i]; kk += 2)
      want += kk;
    ck_assert_int_eq(ss[i], want);
  }
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_while_loop_runs) {
  /* Collatz steps of n: while (x > 1) x = x even ? x / 2 : 3x + 1 */
  enum { N = 16 };
  fg_type t = fg_type_scalar(FG_I32, fg_shape1(N));
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "n", t);
  fg_op *op = fg_op_begin(g, "collatz", 1, &t);
  fg_expr *x = fg_var(op, FG_I32, 1);
  fg_assign(x, fg_read_tensor(op, in));
  fg_expr *steps = fg_var(op, FG_I32, 1);
  fg_while(fg_gt(x, fg_int(op, 1)));
  fg_if(fg_eq(fg_mod(x, fg_int(op, 2)), fg_int(op, 0)));
  fg_assign(x, fg_div(x, fg_int(op, 2)));
  fg_else(op);
  fg_assign(x, fg_addi(fg_muli(x, 3), 1));
  fg_end(op);
  fg_assign(steps, fg_addi(steps, 1));
  fg_end(op);
  fg_write_tensor(op, 0, steps);
  fg_output(g, "steps", fg_op_end(op));
  expect_ok(g);
  int32_t ns[N], out[N];
  for (int i = 0; i < N; i++)
    ns[i] = i + 1;
  ns[N - 1] = 27; /* 111 steps */
  run_graph(g, 1, (const void *[]){ns}, 1, (void *[]){out});
  for (int i = 0; i < N; i++) {
    int32_t v = ns[i], want = 0;
    while (v > 1) {
      v = v % 2 == 0 ? v / 2 : 3 * v + 1;
      want++;
    }
    ck_assert_msg(out[i] == want, "n = %d: got %d, want %d", ns[i], out[i],
                  want);
  }
  ck_assert_int_eq(out[N - 1], 111);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_arrays_run) {
  /* a[k] = x * k (1-D float array), b[r][c] = 3r + c (2-D int array),
   * z untouched (zero-initialized): out = a[4] + a[1] + b[1][2] + z[2] */
  enum { N = 7 };
  fg_type t = fg_type_scalar(FG_F32, fg_shape1(N));
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "arrays", 1, &t);
  fg_expr *x = fg_var(op, FG_F32, 1);
  fg_assign(x, fg_read_tensor(op, in));
  fg_expr *a = fg_array(op, FG_F32, 1, 1, 5);
  fg_expr *b = fg_array(op, FG_I32, 1, 2, 2, 3);
  fg_expr *z = fg_array(op, FG_F32, 1, 1, 3);
  fg_expr *k = fg_var(op, FG_I32, 1);
  fg_expr *r = fg_var(op, FG_I32, 1);
  fg_expr *c = fg_var(op, FG_I32, 1);
  fg_for(k, fg_int(op, 0), fg_lt(k, fg_int(op, 5)), fg_int(op, 1));
  fg_assign(fg_at(a, 1, k), fg_mul(x, fg_convert(k, FG_F32, 1)));
  fg_end(op);
  fg_for(r, fg_int(op, 0), fg_lt(r, fg_int(op, 2)), fg_int(op, 1));
  fg_for(c, fg_int(op, 0), fg_lt(c, fg_int(op, 3)), fg_int(op, 1));
  fg_assign(fg_at(b, 2, r, c), fg_add(fg_muli(r, 3), c));
  fg_end(op);
  fg_end(op);
  fg_assign(fg_at(z, 1, fg_int(op, 0)), fg_float(op, 100.0f));
  fg_expr *sum = fg_add(fg_at(a, 1, fg_int(op, 4)), fg_at(a, 1, fg_int(op, 1)));
  sum = fg_add(sum, fg_convert(fg_at(b, 2, fg_int(op, 1), fg_int(op, 2)),
                               FG_F32, 1));
  sum = fg_add(sum, fg_at(z, 1, fg_int(op, 2)));
  fg_write_tensor(op, 0, sum);
  fg_output(g, "out", fg_op_end(op));
  expect_ok(g);
  float xs[N] = {0.0f, 1.0f, -2.0f, 0.5f, 3.25f, 100.0f, -7.75f}, out[N];
  run_graph(g, 1, (const void *[]){xs}, 1, (void *[]){out});
  for (int i = 0; i < N; i++) {
    float a4 = xs[i] * 4.0f, a1 = xs[i] * 1.0f;
    float want = a4 + a1 + 5.0f + 0.0f;
    ck_assert_msg(out[i] == want, "x = %g: got %g, want %g", xs[i], out[i],
                  want);
  }
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_vectors_and_swizzles_run) {
  /* out0 = (v.zyx, v.w); out1 = v.rgb + (float3)(10); out2 = (float4)(v.w)
   * * (1, 2, 3, 4) */
  enum { R = 2, C = 3, P = R * C };
  fg_shape s = fg_shape2(R, C);
  fg_type t4 = fg_type_vector(FG_F32, s, 4), t3 = fg_type_vector(FG_F32, s, 3);
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "v", t4);
  fg_op *op = fg_op_begin(g, "swz", 3, (fg_type[]){t4, t3, t4});
  fg_expr *v = fg_tensor_var(op, in);
  ck_assert_int_eq(fg_expr_width(v), 4);
  fg_assign(v, fg_read_tensor(op, in));
  fg_expr *zyx = fg_swizzle(v, "zyx");
  fg_expr *rgb = fg_swizzle(v, "rgb");
  fg_expr *w = fg_swizzle(v, "w");
  ck_assert_int_eq(fg_expr_width(zyx), 3);
  ck_assert_int_eq(fg_expr_width(rgb), 3);
  ck_assert_int_eq(fg_expr_width(w), 1);
  fg_expr *ten3 = fg_float3(fg_float(op, 10.0f));
  ck_assert_int_eq(fg_expr_width(ten3), 3);
  fg_expr *ramp = fg_float4(fg_float(op, 1), fg_float(op, 2),
                            fg_float(op, 3), fg_float(op, 4));
  fg_write_tensor(op, 0, fg_float4(zyx, w));
  fg_write_tensor(op, 1, fg_add(rgb, ten3));
  fg_write_tensor(op, 2, fg_mul(fg_float4(w), ramp));
  fg_field *o0 = fg_op_end(op);
  expect_ok(g);
  fg_output(g, "o0", o0);
  fg_output(g, "o1", fg_op_output(op, 1));
  fg_output(g, "o2", fg_op_output(op, 2));
  expect_ok(g);
  float vin[P][4], out0[P][4], out1[P][3], out2[P][4];
  for (int i = 0; i < P; i++) {
    vin[i][0] = (float)i;
    vin[i][1] = (float)i + 0.5f;
    vin[i][2] = (float)i + 0.25f;
    vin[i][3] = -(float)i - 1.0f;
  }
  run_graph(g, 1, (const void *[]){vin}, 3, (void *[]){out0, out1, out2});
  for (int i = 0; i < P; i++) {
    float x = vin[i][0], y = vin[i][1], z = vin[i][2], ww = vin[i][3];
    ck_assert_float_eq(out0[i][0], z);
    ck_assert_float_eq(out0[i][1], y);
    ck_assert_float_eq(out0[i][2], x);
    ck_assert_float_eq(out0[i][3], ww);
    ck_assert_float_eq(out1[i][0], x + 10.0f);
    ck_assert_float_eq(out1[i][1], y + 10.0f);
    ck_assert_float_eq(out1[i][2], z + 10.0f);
    for (int j = 0; j < 4; j++)
      ck_assert_float_eq(out2[i][j], ww * (float)(j + 1));
  }
  fg_graph_free(g);
}
END_TEST

/* Round half to even, written out (independent of the FPU's mode). */
static double round_half_even(double x) {
  double f = floor(x), d = x - f;
  if (d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0.0))
    f += 1.0;
  return f;
}

START_TEST(test_dsl_conversions_run) {
  /* out0 = _convert_int(x), out1 = _convert_uchar_sat_rte(x),
   * out2 = _as_uint(x), out3 = _convert_float4(_as_int4 of x replicated) */
  enum { N = 10 };
  fg_shape s = fg_shape1(N);
  fg_type tf = fg_type_scalar(FG_F32, s), ti = fg_type_scalar(FG_I32, s);
  fg_type tu8 = fg_type_scalar(FG_U8, s), tu32 = fg_type_scalar(FG_U32, s);
  fg_type tu84 = fg_type_vector(FG_U8, s, 4);
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "x", tf);
  fg_op *op = fg_op_begin(g, "conv", 4, (fg_type[]){ti, tu8, tu32, tu84});
  fg_expr *x = fg_var(op, FG_F32, 1);
  fg_assign(x, fg_read_tensor(op, in));
  fg_expr *ci = fg_convert(x, FG_I32, 0);
  fg_expr *cs = fg_convert_sat(x, FG_U8, 0);
  fg_expr *as = fg_as(x, FG_U32, 0);
  fg_expr *bytes = fg_as(x, FG_U8, 4); /* 4 bytes as uchar4 */
  ck_assert_int_eq(fg_expr_elem(ci), FG_I32);
  ck_assert_int_eq(fg_expr_elem(cs), FG_U8);
  ck_assert_int_eq(fg_expr_width(bytes), 4);
  fg_write_tensor(op, 0, ci);
  fg_write_tensor(op, 1, cs);
  fg_write_tensor(op, 2, as);
  fg_write_tensor(op, 3, bytes);
  fg_output(g, "i", fg_op_end(op));
  fg_output(g, "sat", fg_op_output(op, 1));
  fg_output(g, "bits", fg_op_output(op, 2));
  fg_output(g, "bytes", fg_op_output(op, 3));
  expect_ok(g);
  float xs[N] = {-3.7f, 2.5f, 3.5f, 300.0f, -5.0f,
                 127.5f, 0.49f, 254.5f, 255.49f, -0.5f};
  int32_t oi[N];
  uint8_t os[N], ob[N][4];
  uint32_t ou[N];
  run_graph(g, 1, (const void *[]){xs}, 4, (void *[]){oi, os, ou, ob});
  for (int i = 0; i < N; i++) {
    ck_assert_int_eq(oi[i], (int32_t)xs[i]); /* truncation toward zero */
    double r = round_half_even(xs[i]);
    uint8_t want = r < 0 ? 0 : r > 255 ? 255 : (uint8_t)r;
    ck_assert_msg(os[i] == want, "sat(%g): got %u, want %u", xs[i],
                  (unsigned)os[i], (unsigned)want);
    uint32_t bits;
    memcpy(&bits, &xs[i], 4);
    ck_assert_uint_eq(ou[i], bits);
    ck_assert_int_eq(memcmp(ob[i], &xs[i], 4), 0);
  }
  /* spot checks of the rounding rule itself */
  ck_assert_uint_eq(os[1], 2);   /* 2.5 -> 2 */
  ck_assert_uint_eq(os[2], 4);   /* 3.5 -> 4 */
  ck_assert_uint_eq(os[3], 255); /* saturated */
  ck_assert_uint_eq(os[4], 0);   /* saturated */
  ck_assert_int_eq(oi[0], -3);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_big_tensor_foreach_runs) {
  /* out[e] = in[e] * in[e] + e for each of the 9 elements of a 3x3 matrix */
  enum { P = 6, E = 9 };
  fg_type t = m33();
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "m", t);
  fg_op *op = fg_op_begin(g, "sq", 1, &t);
  fg_for_each_tensor_element(op, t.tensor);
  fg_expr *e = fg_tensor_element_var(op, in);
  fg_assign(e, fg_read_element(op, in, fg_tensor_element(op)));
  fg_write_element(op, 0, fg_add(fg_mul(e, e),
                                 fg_convert(fg_tensor_element(op), FG_F32, 1)),
                   NULL);
  fg_end(op);
  fg_output(g, "sq", fg_op_end(op));
  expect_ok(g);
  /* big tensors are stored one plane per element */
  float m[E][P], out[E][P];
  for (int k = 0; k < E; k++)
    for (int p = 0; p < P; p++)
      m[k][p] = (float)(k * 10 + p) * 0.5f;
  run_graph(g, 1, (const void *[]){m}, 1, (void *[]){out});
  for (int k = 0; k < E; k++)
    for (int p = 0; p < P; p++)
      ck_assert_float_eq(out[k][p], m[k][p] * m[k][p] + (float)k);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_accepted_programs_build) {
  /* accepted without running: implicit widening on assignment, scalar
   * broadcast to a vector output, elseif with bool conditions */
  fg_graph *g = fg_graph_new("t");
  fg_type t4 = fg_type_vector(FG_F32, fg_shape2(4, 4), 4);
  fg_field *in = fg_input(g, "in", f44());
  fg_op *op = fg_op_begin(g, "misc", 1, &t4);
  fg_expr *d = fg_var(op, FG_F64, 1);
  fg_assign(d, fg_int(op, 3));              /* int -> double */
  fg_expr *flag = fg_var(op, FG_BOOL, 1);
  fg_assign(flag, fg_read_tensor(op, in));  /* any scalar -> bool */
  fg_if(flag);
  fg_elseif(fg_bool(op, 0));
  fg_else(op);
  fg_end(op);
  fg_write_tensor(op, 0, fg_read_tensor(op, in)); /* float -> float4 */
  ck_assert_ptr_nonnull(fg_op_end(op));
  expect_ok(g);
  ck_assert_int_eq(fg_graph_op_count(g), 1);
  fg_graph_free(g);
}
END_TEST

/* ---- regressions: bugs these tests found, fixed since ----------------- */

/* Regression (was a library bug): an expression of a CLOSED operator used as the FIRST operand
 * (fg_add(a_expr, b_expr)) or as the target of fg_assign in another
 * operator returns NULL / drops the statement without recording any error
 * (dsl/expr.c operands() and dsl/builder.c fg_assign() return as for an
 * "earlier failure" because fgk_op_usable(a) is false), so the graph stays
 * FG_OK.  Used as the second operand the same mistake is reported. */
START_TEST(test_dsl_regression_closed_operator_expr_first_operand) {
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", f44());
  fg_op *a = fg_op_begin(g, "a", 1, (fg_type[]){f44()});
  fg_expr *ra = fg_read_tensor(a, in);
  fg_write_tensor(a, 0, ra);
  fg_op_end(a);
  fg_op *b = fg_op_begin(g, "b", 1, (fg_type[]){f44()});
  fg_expr *sum = fg_add(ra, fg_read_tensor(b, in));
  fg_status st = fg_graph_status(g);
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  ck_assert_ptr_null(sum);
  ck_assert_msg(st == FG_EINVAL || st == FG_ESTATE,
                "fg_add(expr of closed 'a', expr of 'b') "
                "returned NULL but the graph status is %s (\"%s\")",
                fg_status_name(st), msg);
  ck_assert_msg(strstr(msg, "operator 'a'") || strstr(msg, "operator 'b'"),
                "got \"%s\"", msg);
}
END_TEST

/* Regression (was a library bug): see above; here the dropped statement even lets an invalid
 * operator pass fg_op_end. */
START_TEST(test_dsl_regression_assign_to_closed_operator_variable) {
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", f44());
  fg_op *a = fg_op_begin(g, "a", 1, (fg_type[]){f44()});
  fg_expr *va = fg_var(a, FG_F32, 1);
  fg_assign(va, fg_read_tensor(a, in));
  fg_write_tensor(a, 0, va);
  fg_op_end(a);
  fg_op *b = fg_op_begin(g, "b", 1, (fg_type[]){f44()});
  fg_expr *rb = fg_read_tensor(b, in);
  fg_assign(va, rb); /* writes a variable of operator 'a' from 'b' */
  fg_write_tensor(b, 0, rb);
  fg_field *out = fg_op_end(b);
  fg_status st = fg_graph_status(g);
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  ck_assert_msg(st != FG_OK, "fg_assign(variable of closed 'a', expr of 'b') "
                "was silently dropped; graph status FG_OK");
  ck_assert_ptr_null(out);
  ck_assert_msg(strstr(msg, "operator 'a'") != NULL, "got \"%s\"", msg);
}
END_TEST

/* Regression (was a library bug): dsl/expr.c conversion() checks "bool is scalar only" before
 * resolving width 0 to the source width, so fg_convert(float4, FG_BOOL, 0)
 * is accepted as a bool4 (fg_convert(.., FG_BOOL, 4) is refused).  The C
 * emitter then produces a vector mask: converting it back to float gives
 * -1.0 for true instead of 1.0. */
START_TEST(test_dsl_regression_convert_to_bool_vector) {
  fg_graph *g = fg_graph_new("t");
  fg_type t4 = fg_type_vector(FG_F32, fg_shape1(2), 4);
  fg_field *in = fg_input(g, "in", t4);
  fg_op *op = fg_op_begin(g, "tobool", 1, &t4);
  fg_expr *explicit4 = fg_convert(fg_var(op, FG_F32, 4), FG_BOOL, 4);
  fg_status st4 = fg_graph_status(g);
  fg_graph_free(g);
  /* the explicit width is refused, as it should be */
  ck_assert_ptr_null(explicit4);
  ck_assert_int_eq(st4, FG_ETYPE);

  g = fg_graph_new("t");
  in = fg_input(g, "in", t4);
  op = fg_op_begin(g, "tobool", 1, &t4);
  fg_expr *implicit4 = fg_convert(fg_read_tensor(op, in), FG_BOOL, 0);
  fg_status st0 = fg_graph_status(g);
  int width = fg_expr_width(implicit4);
  fg_graph_free(g);
  ck_assert_msg(implicit4 == NULL && st0 == FG_ETYPE,
                "fg_convert(float4, FG_BOOL, 0) accepted as a bool%d "
                "(status %s)", width, fg_status_name(st0));
}
END_TEST

/* Regression (was a library bug): fg_vector with more than 4 arguments (and fg_call with more
 * than 3) returns NULL on a good graph without recording an error, although
 * the operator is known from the arguments (dsl/expr.c fg_vector, fg_call):
 * graph.h promises that the first failing call records a message. */
START_TEST(test_dsl_regression_vector_too_many_args_silent) {
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", f44());
  fg_op *op = fg_op_begin(g, "lit", 1, (fg_type[]){f44()});
  fg_expr *x = fg_read_tensor(op, in);
  fg_expr *v = fg_vector(FG_F32, 4, 5, x, x, x, x, x);
  fg_status st = fg_graph_status(g);
  fg_graph_free(g);
  ck_assert_ptr_null(v);
  ck_assert_msg(st != FG_OK, "fg_vector(.., nargs = 5, ..) returned NULL and "
                "recorded no error");
}
END_TEST

/* Regression (was a library bug): the same for fg_call with 4 arguments (dsl/expr.c fg_call
 * returns NULL for nargs > 3 before looking at the operator). */
START_TEST(test_dsl_regression_call_too_many_args_silent) {
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", f44());
  fg_op *op = fg_op_begin(g, "call", 1, (fg_type[]){f44()});
  fg_expr *x = fg_read_tensor(op, in);
  fg_expr *r = fg_call("fma", 4, (fg_expr *[]){x, x, x, x});
  fg_status st = fg_graph_status(g);
  fg_graph_free(g);
  ck_assert_ptr_null(r);
  ck_assert_msg(st != FG_OK, "fg_call(\"fma\", 4, ..) returned NULL and "
                "recorded no error");
}
END_TEST

/* Regression (was a library bug): (wrong message) for a wrong coordinate count the message of
 * fg_write_tensor_at names the output as '_out' instead of _out0
 * (dsl/builder.c write_common passes "_out" to coords_ok), so it does not
 * say which output is meant. */
START_TEST(test_dsl_regression_write_at_message_names_output) {
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", f44());
  fg_op *op = fg_op_begin(g, "scatter", 2, (fg_type[]){f44(), f44()});
  fg_expr *v = fg_read_tensor(op, in);
  fg_write_tensor(op, 0, v);
  fg_write_tensor_at(op, 1, v, 1, fg_int(op, 0));
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", fg_graph_errmsg(g));
  fg_graph_free(g);
  ck_assert_msg(strstr(msg, "got 1") != NULL, "got \"%s\"", msg);
  ck_assert_msg(strstr(msg, "_out1") != NULL,
                "message does not name output 1: \"%s\"", msg);
}
END_TEST

/* ---- work-group features: their rules ----------------------------------- */

/* Builds a fresh graph with one open operator over a 4 x 4 float field. */
static fg_op *wg_open(fg_graph **g, fg_field **in) {
  *g = fg_graph_new("wg");
  *in = fg_input(*g, "in", f44());
  return fg_op_begin(*g, "wg", 1, (fg_type[]){f44()});
}

static void wg_expect(fg_graph *g, fg_status st, const char *phrase) {
  expect_error(g, st, "operator 'wg'", phrase, (const char *)NULL);
}

START_TEST(test_dsl_barrier_only_at_top_level) {
  fg_graph *g;
  fg_field *in;
  fg_op *op = wg_open(&g, &in);
  fg_if(fg_gt(fg_row(op), fg_int(op, 1)));
  fg_sync_threads_local(op);
  wg_expect(g, FG_ERULE, "top level");
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_thread_allocation_before_code) {
  fg_graph *g;
  fg_field *in;
  fg_op *op = wg_open(&g, &in);
  fg_var(op, FG_F32, 1);
  fg_local_threads(op, fg_shape2(8, 8));
  wg_expect(g, FG_ERULE, "thread allocation calls must precede");
  fg_graph_free(g);
  op = wg_open(&g, &in);
  fg_var(op, FG_F32, 1);
  fg_global_threads(op, fg_shape2(8, 8));
  wg_expect(g, FG_ERULE, "must precede executable code");
  fg_graph_free(g);
  op = wg_open(&g, &in);
  fg_local_threads(op, fg_shape2(64, 64));
  wg_expect(g, FG_ESHAPE, "64 x 64 threads");
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_atomics_need_local_volatile_int) {
  fg_graph *g;
  fg_field *in;
  fg_op *op = wg_open(&g, &in);
  fg_expr *priv = fg_volatile(fg_var(op, FG_I32, 1));   /* not local */
  fg_expr *r = fg_var(op, FG_I32, 1);
  fg_assign(r, fg_atomic_inc(fg_pointer_to(priv)));
  wg_expect(g, FG_ERULE, "_local(_volatile(...)) int or uint");
  fg_graph_free(g);
  op = wg_open(&g, &in);
  fg_expr *f = fg_volatile(fg_local(fg_var(op, FG_F32, 1)));   /* float */
  fg_assign(fg_var(op, FG_F32, 1), fg_atomic_add(fg_pointer_to(f),
                                                 fg_float(op, 1)));
  wg_expect(g, FG_ERULE, "float");
  fg_graph_free(g);
  op = wg_open(&g, &in);
  fg_expr *c = fg_volatile(fg_local(fg_var(op, FG_I32, 1)));
  fg_assign(r = fg_var(op, FG_I32, 1), fg_atomic_add(c, fg_int(op, 1)));
  wg_expect(g, FG_ETYPE, "must be a pointer");
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_global_threads_changes_implicit_shape) {
  /* with _globalThreads(8 x 8), an implicit read of a 4 x 4 field no
   * longer matches the thread shape */
  fg_graph *g;
  fg_field *in;
  fg_op *op = wg_open(&g, &in);
  fg_global_threads(op, fg_shape2(8, 8));
  fg_read_tensor(op, in);
  wg_expect(g, FG_ESHAPE, "threads are f32[8x8]");
  fg_graph_free(g);
}
END_TEST

/* ---- _globalThreads(fieldShape, tensorShape) ----------------------------- */

START_TEST(test_dsl_global_threads_elements_run) {
  /* one thread per element of a 2x3 matrix at each point of a 2x3x4 field:
   *   out0[e] = in[e] * 2 + e + 100 * _tensorElements (implicit element)
   *   out1[e] = 1000 _layer + 100 _row + 10 _column + e (thread identity)
   *   out2 = in transposed: element (r, c) written to (c, r)
   * and, in a second operator whose output is not the thread shape, the
   * field flattened: flat[(point * 9) + e] = m[e] (explicit writes) */
  enum { L = 2, R = 3, C = 4, P = L * R * C, E = 6, E9 = 9 };
  fg_shape fs = fg_shape3(L, R, C);
  fg_type tm = fg_type_matrix(FG_F32, fs, 2, 3);
  fg_type ti = fg_type_matrix(FG_I32, fs, 2, 3);
  fg_type tt = fg_type_matrix(FG_F32, fs, 3, 2);
  fg_type t9 = fg_type_matrix(FG_F32, fs, 3, 3);
  fg_type tflat = fg_type_scalar(FG_F32, fg_shape1(P * E9));
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", tm);
  fg_field *m = fg_input(g, "m", t9);
  fg_op *op = fg_op_begin(g, "perElement", 3, (fg_type[]){tm, ti, tt});
  fg_global_threads_elements(op, fs, fg_shape2(2, 3));
  fg_expr *te = fg_tensor_element(op);
  fg_expr *x = fg_tensor_element_var(op, in);
  fg_assign(x, fg_read_element(op, in, NULL));
  fg_write_element(op, 0, fg_add(fg_add(fg_mulf(x, 2.0f),
                                        fg_convert(te, FG_F32, 1)),
                                 fg_convert(fg_muli(fg_tensor_elements(op),
                                                    100), FG_F32, 1)),
                   NULL);
  fg_write_element(op, 1, fg_add(fg_add(fg_muli(fg_layer(op), 1000),
                                        fg_muli(fg_row(op), 100)),
                                 fg_add(fg_muli(fg_column(op), 10), te)),
                   NULL);
  fg_write_element(op, 2, x,
                   fg_add(fg_muli(fg_mod(te, fg_int(op, 3)), 2),
                          fg_div(te, fg_int(op, 3))));
  fg_output(g, "scaled", fg_op_end(op));
  fg_output(g, "ids", fg_op_output(op, 1));
  fg_output(g, "transposed", fg_op_output(op, 2));
  op = fg_op_begin(g, "flatten", 1, &tflat);
  fg_global_threads_elements(op, fs, t9.tensor);
  fg_expr *point = fg_add(fg_muli(fg_add(fg_muli(fg_layer(op), R),
                                         fg_row(op)), C), fg_column(op));
  fg_write_tensor_at(op, 0, fg_read_element(op, m, NULL), 1,
                     fg_add(fg_muli(point, E9), fg_tensor_element(op)));
  fg_output(g, "flat", fg_op_end(op));
  expect_ok(g);

  /* big tensors: one plane of P points per element */
  static float vin[E][P], mv[E9][P], o0[E][P], o2[E][P], flat[P * E9];
  static int32_t o1[E][P];
  for (int e = 0; e < E; e++)
    for (int p = 0; p < P; p++)
      vin[e][p] = (float)(e * 31 - p) * 0.25f;
  for (int e = 0; e < E9; e++)
    for (int p = 0; p < P; p++)
      mv[e][p] = (float)(e * 1000 + p);
  run_graph(g, 2, (const void *[]){vin, mv}, 4,
            (void *[]){o0, o1, o2, flat});
  for (int l = 0, p = 0; l < L; l++)
    for (int r = 0; r < R; r++)
      for (int c = 0; c < C; c++, p++)
        for (int e = 0; e < E; e++) {
          ck_assert_float_eq(o0[e][p], vin[e][p] * 2 + (float)e + 600);
          ck_assert_int_eq(o1[e][p], l * 1000 + r * 100 + c * 10 + e);
          ck_assert_float_eq(o2[(e % 3) * 2 + e / 3][p], vin[e][p]);
        }
  for (int p = 0; p < P; p++)
    for (int e = 0; e < E9; e++)
      ck_assert_float_eq(flat[p * E9 + e], mv[e][p]);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_per_element_threads_do_not_fuse) {
  /* per-element threads over float4 pixels: ramp[e] = v[e] * (e + 1);
   * a pointwise consumer cannot join it (four threads per point) */
  enum { R = 5, C = 6, P = R * C };
  fg_shape s = fg_shape2(R, C);
  fg_type t = fg_type_vector(FG_F32, s, 4);
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "v", t);
  fg_op *op = fg_op_begin(g, "ramp", 1, &t);
  fg_global_threads_elements(op, s, fg_shape1(4));
  fg_write_element(op, 0, fg_mul(fg_read_element(op, in, NULL),
                                 fg_convert(fg_addi(fg_tensor_element(op), 1),
                                            FG_F32, 1)), NULL);
  fg_field *ramp = fg_op_end(op);
  op = fg_op_begin(g, "plus1", 1, &t);
  fg_write_tensor(op, 0, fg_addf(fg_read_tensor(op, ramp), 1.0f));
  fg_output(g, "out", fg_op_end(op));
  expect_ok(g);
  fg_context *ctx = tu_context();
  fg_compile_options on = {.fusion = FG_FUSION_ON};
  fg_program *p = NULL;
  ck_assert_msg(fg_compile(ctx, g, &on, &p) == FG_OK, "%s",
                fg_context_errmsg(ctx));
  ck_assert_int_eq(fg_program_kernel_count(p), 2);
  const char *why = fg_program_field_reason(p, "ramp.out0");
  ck_assert_msg(why && strstr(why, "per-element threads"), "reason: %s",
                why ? why : "(none)");
  float v[P][4], out[P][4];
  for (int i = 0; i < P; i++)
    for (int e = 0; e < 4; e++)
      v[i][e] = (float)(i - 3 * e) * 0.5f;
  ck_assert_msg(fg_program_run(p, 1, (const void *[]){v}, 1,
                               (void *[]){out}) == FG_OK, "%s",
                fg_context_errmsg(ctx));
  for (int i = 0; i < P; i++)
    for (int e = 0; e < 4; e++)
      ck_assert_float_eq(out[i][e], v[i][e] * (float)(e + 1) + 1.0f);
  fg_program_free(p);
  tu_context_free(ctx);
  fg_graph_free(g);
}
END_TEST

/* fg_field_extent: an operator reading a field's extents when it runs.
 * "tag" adds rows * 100 + columns of the field it reads locally (fused:
 * that field is virtual, its extents the thread shape's); "flip" reads
 * another at (rows - 1 - row, columns - 1 - column) of its own extents.
 * Fused and unfused, against C; a bad axis is refused by name. */
START_TEST(test_dsl_field_extent_runs) {
  enum { R = 5, C = 7, P = R * C };
  fg_type t = fg_type_scalar(FG_I32, fg_shape2(R, C));
  for (int fu = 0; fu < 2; fu++) {
    fg_graph *g = fg_graph_new("t");
    fg_field *in = fg_input(g, "in", t);
    fg_op *op = fg_op_begin(g, "inc", 1, &t);
    fg_write_tensor(op, 0, fg_addi(fg_read_tensor(op, in), 1));
    fg_field *inc = fg_op_end(op);
    op = fg_op_begin(g, "tag", 1, &t);
    fg_write_tensor(op, 0, fg_add(fg_read_tensor(op, inc),
                                  fg_add(fg_muli(fg_field_extent(op, inc,
                                                                 FG_ROWS),
                                                 100),
                                         fg_field_extent(op, inc,
                                                         FG_COLUMNS))));
    fg_field *tag = fg_op_end(op);
    op = fg_op_begin(g, "flip", 1, &t);
    fg_expr *r = fg_sub(fg_subi(fg_field_extent(op, tag, FG_ROWS), 1),
                        fg_row(op));
    fg_expr *c = fg_sub(fg_subi(fg_field_extent(op, tag, FG_COLUMNS), 1),
                        fg_column(op));
    fg_write_tensor(op, 0, fg_add(fg_read_tensor_at(op, tag, 2, r, c),
                                  fg_muli(fg_field_extent(op, tag, FG_LAYERS),
                                          1000)));
    fg_output(g, "out", fg_op_end(op));
    expect_ok(g);
    fg_context *ctx = tu_context();
    fg_compile_options o = {.fusion = fu ? FG_FUSION_ON : FG_FUSION_OFF};
    fg_program *p = NULL;
    ck_assert_msg(fg_compile(ctx, g, &o, &p) == FG_OK, "%s",
                  fg_context_errmsg(ctx));
    ck_assert_int_eq(fg_program_kernel_count(p), fu ? 2 : 3);
    int32_t v[P], out[P];
    for (int i = 0; i < P; i++)
      v[i] = i * 3 - 7;
    ck_assert_msg(fg_program_run(p, 1, (const void *[]){v}, 1,
                                 (void *[]){out}) == FG_OK, "%s",
                  fg_context_errmsg(ctx));
    for (int i = 0; i < R; i++)
      for (int j = 0; j < C; j++)
        ck_assert_int_eq(out[i * C + j],
                         v[(R - 1 - i) * C + (C - 1 - j)] + 1 + R * 100 + C +
                             1000);
    fg_program_free(p);
    tu_context_free(ctx);
    fg_graph_free(g);
  }
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", t);
  fg_op *op = fg_op_begin(g, "bad", 1, &t);
  fg_write_tensor(op, 0, fg_field_extent(op, in, FG_ROW));
  fg_op_end(op);
  expect_error(g, FG_EINVAL, "operator 'bad'", "fg_field_extent('in')",
               "FG_LAYERS, FG_ROWS or FG_COLUMNS", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_global_threads_elements_with_work_groups) {
  /* per-element threads in 4 x 4 work-groups sharing a tile of elements:
   * out(r, c)[e] = in(r, c ^ 1)[e] * 2, the neighbour read from the tile;
   * 6 rows leave a partial group whose extra threads write nothing */
  enum { R = 6, C = 8, P = R * C };
  fg_shape s = fg_shape2(R, C);
  fg_type t = fg_type_vector(FG_F32, s, 3);
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "v", t);
  fg_op *op = fg_op_begin(g, "swapPairs", 1, &t);
  fg_global_threads_elements(op, s, fg_shape1(3));
  fg_local_threads(op, fg_shape2(4, 4));
  fg_expr *tile = fg_local(fg_tensor_element_array(op, in, 2, 4, 4));
  fg_assign(fg_at(tile, 2, fg_local_row(op), fg_local_column(op)),
            fg_read_element(op, in, NULL));
  fg_sync_threads_local(op);
  fg_write_element(op, 0, fg_mulf(fg_at(tile, 2, fg_local_row(op),
                                        fg_bxor(fg_local_column(op),
                                                fg_int(op, 1))), 2.0f),
                   NULL);
  fg_output(g, "out", fg_op_end(op));
  expect_ok(g);
  float v[P][3], out[P][3];
  for (int i = 0; i < P; i++)
    for (int e = 0; e < 3; e++)
      v[i][e] = (float)(i * 3 + e);
  memset(out, 0, sizeof out);
  run_graph(g, 1, (const void *[]){v}, 1, (void *[]){out});
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++)
      for (int e = 0; e < 3; e++)
        ck_assert_float_eq(out[r * C + c][e], v[r * C + (c ^ 1)][e] * 2);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_dsl_global_threads_elements_refused) {
  fg_graph *g;
  fg_field *in;
  fg_shape s = fg_shape2(4, 4), t22 = fg_shape2(2, 2);
  /* thread allocation before code */
  fg_op *op = wg_open(&g, &in);
  fg_var(op, FG_F32, 1);
  fg_global_threads_elements(op, s, t22);
  wg_expect(g, FG_ERULE, "must precede executable code");
  fg_graph_free(g);
  /* shapes checked as a field type's */
  op = wg_open(&g, &in);
  fg_global_threads_elements(op, s, fg_shape3(2, 2, 2));
  wg_expect(g, FG_ESHAPE, "tensor shape has 3 dimensions");
  fg_graph_free(g);
  op = wg_open(&g, &in);
  fg_global_threads_elements(op, s, fg_shape1(0));
  wg_expect(g, FG_ESHAPE, "tensor extent 0");
  fg_graph_free(g);
  op = wg_open(&g, &in);
  fg_global_threads_elements(op, fg_shape2(0, 4), t22);
  wg_expect(g, FG_ESHAPE, "field extent 0");
  fg_graph_free(g);
  /* _tensorElement is the thread's: no for-each loop over elements */
  op = wg_open(&g, &in);
  fg_global_threads_elements(op, s, t22);
  fg_for_each_tensor_element(op, t22);
  wg_expect(g, FG_ERULE, "_forEachTensorElement after _globalThreads");
  fg_graph_free(g);
  /* four threads share each point: no implicit _writeTensor */
  op = wg_open(&g, &in);
  fg_global_threads_elements(op, s, t22);
  fg_write_tensor(op, 0, fg_read_tensor(op, in));
  wg_expect(g, FG_ERULE, "4 threads share each location");
  fg_graph_free(g);
  /* implicit reads address the field shape given */
  op = wg_open(&g, &in);
  fg_global_threads_elements(op, fg_shape2(8, 8), t22);
  fg_read_element(op, in, NULL);
  wg_expect(g, FG_ESHAPE, "threads are f32[8x8]");
  fg_graph_free(g);
  /* without it (or after the one-shape form replaced it) there is no
   * _tensorElement */
  op = wg_open(&g, &in);
  fg_global_threads_elements(op, s, t22);
  fg_global_threads(op, s);
  ck_assert_ptr_null(fg_tensor_element(op));
  wg_expect(g, FG_ERULE, "or after _globalThreads(fieldShape, tensorShape)");
  fg_graph_free(g);
  op = wg_open(&g, &in);
  fg_write_element(op, 0, fg_float(op, 1.0f), NULL);
  wg_expect(g, FG_ERULE, "no _tensorElement");
  fg_graph_free(g);
}
END_TEST

/* fg_op_begin_map: the output's type is the written value's (a product
 * of f32 vec3 by a number, a dot product to a scalar, a comparison stored
 * as i32), computed in one build, checked against C. */
START_TEST(test_dsl_map_infers_result_type) {
  enum { H = 3, W = 4 };
  float px[H][W][3];
  for (int r = 0; r < H; r++)
    for (int c = 0; c < W; c++)
      for (int k = 0; k < 3; k++)
        px[r][c][k] = (float)(r * 10 + c + k) / 8.0f - 1.0f;
  fg_graph *g = fg_graph_new("map");
  fg_field *in = fg_input(g, "px", fg_type_image(FG_F32, H, W, 3));
  fg_shape sh = fg_field_type(in).field;
  fg_op *op = fg_op_begin_map(g, "twice", sh);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, in), 2.0f));
  fg_field *twice = fg_op_end(op);
  op = fg_op_begin_map(g, "norm2", sh);
  fg_expr *v = fg_read_tensor(op, in);
  fg_write_tensor(op, 0, fg_dot(v, v));
  fg_field *norm2 = fg_op_end(op);
  op = fg_op_begin_map(g, "positive", sh);
  fg_write_tensor(op, 0, fg_lt(fg_float(op, 0.0f),
                               fg_swizzle(fg_read_tensor(op, in), "x")));
  fg_field *pos = fg_op_end(op);
  expect_ok(g);
  ck_assert(fg_type_equal(fg_field_type(twice),
                          fg_type_vector(FG_F32, sh, 3)));
  ck_assert(fg_type_equal(fg_field_type(norm2), fg_type_scalar(FG_F32, sh)));
  ck_assert(fg_type_equal(fg_field_type(pos), fg_type_scalar(FG_I32, sh)));
  fg_output(g, "twice", twice);
  fg_output(g, "norm2", norm2);
  fg_output(g, "pos", pos);
  float o2[H][W][3], on[H][W];
  int32_t op_[H][W];
  tu_run(g, 1, (const void *[]){px}, 3, (void *[]){o2, on, op_});
  for (int r = 0; r < H; r++)
    for (int c = 0; c < W; c++) {
      const float *p = px[r][c];
      for (int k = 0; k < 3; k++)
        ck_assert(o2[r][c][k] == 2.0f * p[k]);
      float d = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
      ck_assert_msg(fabsf(on[r][c] - d) <= 1e-5f * (1 + d), "dot %g, C %g",
                    on[r][c], d);
      ck_assert_int_eq(op_[r][c] != 0, p[0] > 0.0f);
    }
  fg_graph_free(g);

  /* never written: the usual rule */
  g = fg_graph_new("map");
  op = fg_op_begin_map(g, "empty", fg_shape2(2, 2));
  ck_assert_ptr_null(fg_op_end(op));
  expect_error(g, FG_ERULE, "never written", NULL);
  fg_graph_free(g);
}
END_TEST

/* Regression (found by fuzz/fuzz_diff.c): clang types the comparison of
 * two uchar4 (or char4) vectors as a vector of plain char, which the C
 * dialect's char4 (of signed char) is not, so select(a, b, a < b) on u8
 * vectors did not compile on the CPU backend. */
START_TEST(test_dsl_regression_select_on_8bit_vector_comparison) {
  enum { N = 6 };
  uint8_t a[N][4], b[N][4];
  int8_t sa[N][4];
  uint32_t lo[N], lt[N], smin[N];
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 4; k++) {
      a[i][k] = (uint8_t)(40 * i + 70 * k);
      b[i][k] = (uint8_t)(255 - 50 * i + 9 * k);
      sa[i][k] = (int8_t)a[i][k];
    }
  fg_graph *g = fg_graph_new("cmp8");
  fg_type t = fg_type_vector(FG_U8, fg_shape1(N), 4);
  fg_type ts = fg_type_vector(FG_I8, fg_shape1(N), 4);
  fg_type tu = fg_type_scalar(FG_U32, fg_shape1(N));
  fg_field *fa = fg_input(g, "a", t), *fb = fg_input(g, "b", t);
  fg_field *fs = fg_input(g, "s", ts);
  fg_op *op = fg_op_begin(g, "lower", 3, (fg_type[]){tu, tu, tu});
  fg_expr *x = fg_read_tensor(op, fa), *y = fg_read_tensor(op, fb);
  fg_expr *s = fg_read_tensor(op, fs);
  /* as_uint keeps each select a whole vector expression */
  fg_write_tensor(op, 0, fg_as(fg_select(y, x, fg_lt(x, y)), FG_U32, 1));
  fg_write_tensor(op, 1, fg_as(fg_lt(x, y), FG_U32, 1));
  fg_write_tensor(op, 2, fg_as(fg_select(fg_neg(s), s, fg_lt(s, fg_neg(s))),
                               FG_U32, 1));
  fg_field *out = fg_op_end(op);
  fg_output(g, "lo", out);
  fg_output(g, "lt", fg_op_output(op, 1));
  fg_output(g, "smin", fg_op_output(op, 2));
  run_graph(g, 3, (const void *[]){a, b, sa}, 3, (void *[]){lo, lt, smin});
  for (int i = 0; i < N; i++) {
    uint8_t elo[4], elt[4], esmin[4];
    for (int k = 0; k < 4; k++) {
      int m = a[i][k] < b[i][k];
      elo[k] = m ? a[i][k] : b[i][k];
      elt[k] = m ? 0xff : 0;
      int8_t v = sa[i][k], nv = (int8_t)-v;
      esmin[k] = (uint8_t)(v < nv ? v : nv);
    }
    ck_assert_mem_eq(&lo[i], elo, 4);
    ck_assert_mem_eq(&lt[i], elt, 4);
    ck_assert_mem_eq(&smin[i], esmin, 4);
  }
  fg_graph_free(g);
}
END_TEST

/* Regression (found by fuzz/fuzz_diff.c): a shift's count is masked to
 * the bit width with "& 15", an int, which OpenCL C refuses beside a
 * short4 ("scalar operand type has greater rank"): shifts of 8- and
 * 16-bit vectors did not build on OpenCL. */
START_TEST(test_dsl_regression_shift_of_short4) {
  enum { N = 5 };
  int16_t a[N][4], b[N][4], shr[N][4], shl[N][4];
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 4; k++) {
      a[i][k] = (int16_t)(-3000 + 1234 * i - 777 * k);
      b[i][k] = (int16_t)(7 * i + 5 * k - 9);  /* wraps at 16 */
    }
  fg_graph *g = fg_graph_new("shift");
  fg_type t = fg_type_vector(FG_I16, fg_shape1(N), 4);
  fg_field *fa = fg_input(g, "a", t), *fb = fg_input(g, "b", t);
  fg_op *op = fg_op_begin(g, "shifts", 2, (fg_type[]){t, t});
  fg_expr *x = fg_read_tensor(op, fa), *y = fg_read_tensor(op, fb);
  fg_write_tensor(op, 0, fg_shr(x, y));
  fg_write_tensor(op, 1, fg_shl(x, y));
  fg_output(g, "shr", fg_op_end(op));
  fg_output(g, "shl", fg_op_output(op, 1));
  run_graph(g, 2, (const void *[]){a, b}, 2, (void *[]){shr, shl});
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 4; k++) {
      int n = b[i][k] & 15;
      ck_assert_int_eq(shr[i][k], (int16_t)(a[i][k] >> n));
      ck_assert_int_eq(shl[i][k], (int16_t)(uint16_t)((uint32_t)(uint16_t)
                                                      a[i][k] << n));
    }
  fg_graph_free(g);
}
END_TEST

/* Regression (found by fuzz/fuzz_diff.c): PoCL folds its own
 * convert_<type>_sat_rte of an out-of-range float constant to poison and
 * the kernel then wrote nothing; saturating conversions of constants and
 * of values give the range's ends, NaN 0. */
START_TEST(test_dsl_regression_convert_sat_of_out_of_range_constants) {
  enum { N = 4 };
  float x[N] = {1e30f, -1e30f, NAN, 5e9f};
  uint32_t ou[N], cu[N];
  int32_t oi[N];
  uint8_t ob[N];
  int16_t ov[N][2];
  fg_graph *g = fg_graph_new("sat");
  fg_shape sh = fg_shape1(N);
  fg_field *in = fg_input(g, "x", fg_type_scalar(FG_F32, sh));
  fg_op *op = fg_op_begin(g, "sat", 5, (fg_type[]){
      fg_type_scalar(FG_U32, sh), fg_type_scalar(FG_I32, sh),
      fg_type_scalar(FG_U8, sh), fg_type_vector(FG_I16, sh, 2),
      fg_type_scalar(FG_U32, sh)});
  fg_write_tensor(op, 0, fg_convert_sat(fg_float(op, 1e30f), FG_U32, 1));
  fg_write_tensor(op, 1, fg_convert_sat(fg_float(op, 1e30f), FG_I32, 1));
  fg_write_tensor(op, 2, fg_convert_sat(fg_float(op, -1e30f), FG_U8, 1));
  fg_write_tensor(op, 3, fg_convert_sat(fg_vector(FG_F32, 2, 2,
                                                  fg_float(op, -7e9f),
                                                  fg_float(op, NAN)),
                                        FG_I16, 2));
  fg_write_tensor(op, 4, fg_convert_sat(fg_read_tensor(op, in), FG_U32, 1));
  fg_output(g, "u", fg_op_end(op));
  fg_output(g, "i", fg_op_output(op, 1));
  fg_output(g, "b", fg_op_output(op, 2));
  fg_output(g, "v", fg_op_output(op, 3));
  fg_output(g, "c", fg_op_output(op, 4));
  run_graph(g, 1, (const void *[]){x}, 5, (void *[]){ou, oi, ob, ov, cu});
  static const uint32_t want_c[N] = {UINT32_MAX, 0, 0, UINT32_MAX};
  for (int i = 0; i < N; i++) {
    ck_assert_uint_eq(ou[i], UINT32_MAX);
    ck_assert_int_eq(oi[i], INT32_MAX);
    ck_assert_uint_eq(ob[i], 0);
    ck_assert_int_eq(ov[i][0], INT16_MIN);
    ck_assert_int_eq(ov[i][1], 0);
    ck_assert_uint_eq(cu[i], want_c[i]);
  }
  fg_graph_free(g);
}
END_TEST

/* Regression (found by fuzz/fuzz_diff.c): PoCL folds rint of a constant
 * of 2^31 or more to poison, and such a kernel wrote nothing. */
START_TEST(test_dsl_regression_rint_of_large_constants) {
  enum { N = 3 };
  float x[N][4] = {{1e30f, 2.5f, -3.5f, 0.5f}, {5e9f, -2.5f, 1.5f, -0.0f},
                   {8388609.0f, 3.5f, -1e30f, 1e-3f}};
  float o[N][4], c[N][2];
  fg_graph *g = fg_graph_new("rint");
  fg_shape sh = fg_shape1(N);
  fg_field *in = fg_input(g, "x", fg_type_vector(FG_F32, sh, 4));
  fg_op *op = fg_op_begin(g, "rint", 2, (fg_type[]){
      fg_type_vector(FG_F32, sh, 4), fg_type_vector(FG_F32, sh, 2)});
  fg_write_tensor(op, 0, fg_rint(fg_read_tensor(op, in)));
  fg_write_tensor(op, 1, fg_vector(FG_F32, 2, 2,
                                   fg_rint(fg_float(op, 1e30f)),
                                   fg_rint(fg_float(op, -5e9f))));
  fg_output(g, "o", fg_op_end(op));
  fg_output(g, "c", fg_op_output(op, 1));
  run_graph(g, 1, (const void *[]){x}, 2, (void *[]){o, c});
  for (int i = 0; i < N; i++) {
    for (int k = 0; k < 4; k++)
      ck_assert_msg(o[i][k] == rintf(x[i][k]) &&
                    signbit(o[i][k]) == signbit(rintf(x[i][k])),
                    "rint(%g) = %g", x[i][k], o[i][k]);
    ck_assert(c[i][0] == 1e30f);
    ck_assert(c[i][1] == -5e9f);
  }
  fg_graph_free(g);
}
END_TEST

/* Regression (found by fuzz/fuzz_diff.c): OpenCL C contracts a * b + c
 * into an fma unless told not to, so operators of the DSL and the library
 * (grey's weighted sum) differed from the CPU backend, which builds with
 * -ffp-contract=off, in the last place: float +, -, * are IEEE on both. */
START_TEST(test_dsl_regression_no_fp_contraction) {
  enum { N = 4 };
  /* a * a rounds away 2^-24, which an fma would keep */
  float a[N] = {1.0f + 0x1p-12f, 1.0f + 0x1p-11f, 3.0f, 1.0f + 0x1p-12f};
  float c[N] = {-1.0f, -1.0f, 0.5f, 0.25f}, o[N];
  fg_graph *g = fg_graph_new("contract");
  fg_type t = fg_type_scalar(FG_F32, fg_shape1(N));
  fg_field *fa = fg_input(g, "a", t), *fc = fg_input(g, "c", t);
  fg_op *op = fg_op_begin(g, "mul_add", 1, &t);
  fg_expr *x = fg_read_tensor(op, fa);
  fg_write_tensor(op, 0, fg_add(fg_mul(x, x), fg_read_tensor(op, fc)));
  fg_output(g, "o", fg_op_end(op));
  run_graph(g, 2, (const void *[]){a, c}, 1, (void *[]){o});
  for (int i = 0; i < N; i++) {
    volatile float p = a[i] * a[i];   /* rounded, never contracted */
    float want = p + c[i];
    ck_assert_msg(o[i] == want, "%d: %a, C %a", i, (double)o[i],
                  (double)want);
  }
  fg_graph_free(g);
}
END_TEST

/* Reads of a table at computed columns: where the column's range is
 * known inside the table (a byte into 256 entries, a clamp to the
 * length, a mask) the kernel reads it unclamped (fgk_atx); where it is
 * not (a clamp past a shorter table, a byte into 200 entries, a value
 * set twice) the read clamps as always.  Every result against C. */
START_TEST(test_dsl_lookup_columns_known_inside) {
  enum { N = 1000 };
  static const int lens[2] = {256, 200};
  for (int li = 0; li < 2; li++) {
    int len = lens[li];
    fg_type tx = fg_type_scalar(FG_U8, fg_shape1(N));
    fg_type ti = fg_type_scalar(FG_I32, fg_shape1(N));
    fg_type tt = fg_type_scalar(FG_I32, fg_shape1(len));
    fg_graph *g = fg_graph_new("lookup");
    fg_field *x = fg_input(g, "x", tx), *k = fg_input(g, "k", ti);
    fg_field *tab = fg_input(g, "tab", tt);
    fg_type to = fg_type_vector(FG_I32, fg_shape1(N), 4);
    fg_op *op = fg_op_begin(g, "lookups", 1, &to);
    fg_expr *byte = fg_convert(fg_read_tensor(op, x), FG_I32, 1);
    fg_expr *kv = fg_read_tensor(op, k);
    fg_expr *set = fg_var(op, FG_I32, 1);     /* set twice: no range */
    fg_assign(set, fg_int(op, 0));
    fg_assign(set, kv);
    fg_expr *e[4] = {
        fg_read_tensor_at(op, tab, 1, byte),
        fg_read_tensor_at(op, tab, 1, fg_clamp(kv, fg_int(op, 0),
                                               fg_int(op, 255))),
        fg_read_tensor_at(op, tab, 1, fg_band(kv, fg_int(op, 127))),
        fg_read_tensor_at(op, tab, 1, set)};
    fg_write_tensor(op, 0, fg_int4(e[0], e[1], e[2], e[3]));
    fg_output(g, "y", fg_op_end(op));
    uint8_t xs[N];
    int32_t ks[N], ts[256], y[4 * N];
    for (int i = 0; i < N; i++) {
      xs[i] = (uint8_t)(i * 37 + 11);
      ks[i] = (int32_t)(i * 7919 % 700) - 200;
    }
    for (int i = 0; i < len; i++)
      ts[i] = i * 3 + 1000;
    fg_context *ctx = tu_context();
    fg_program *p = tu_compile(ctx, g);
    const char *src = fg_program_kernel_source(p, 0);
    int unclamped = 0, clamped = 0;
    for (const char *q = src; (q = strstr(q, "fgk_atx(in2")); q++)
      unclamped++;
    for (const char *q = src; (q = strstr(q, "fgk_at(in2")); q++)
      clamped++;
    /* per copy of the loop (the CPU's has one per index width): the byte
     * and the mask inside 256 entries, the clamp to 255 too; into 200
     * entries only the mask */
    int want = len == 256 ? 3 : 1;
    if (clamped < 1 || unclamped * (4 - want) != clamped * want)
      fprintf(stderr, "%s\n", src);
    ck_assert_msg(clamped >= 1 && unclamped * (4 - want) == clamped * want,
                  "table of %d: %d unclamped reads, %d clamped (the source "
                  "is on stderr)", len, unclamped, clamped);
    ck_assert_int_eq(fg_program_run(p, 3, (const void *[]){xs, ks, ts}, 1,
                                    (void *[]){y}), FG_OK);
    for (int i = 0; i < N; i++) {
      int c[4] = {xs[i], ks[i] < 0 ? 0 : ks[i] > 255 ? 255 : ks[i],
                  ks[i] & 127, ks[i]};
      for (int j = 0; j < 4; j++) {
        int at = c[j] < 0 ? 0 : c[j] >= len ? len - 1 : c[j];
        ck_assert_msg(y[4 * i + j] == ts[at], "table of %d, point %d, "
                      "read %d: %d, expected table[%d] = %d", len, i, j,
                      y[4 * i + j], at, ts[at]);
      }
    }
    fg_program_free(p);
    tu_context_free(ctx);
    fg_graph_free(g);
  }
}
END_TEST

static Suite *dsl_suite(void) {
  Suite *s = suite_create("dsl");
  TCase *tc = tcase_create("types");
  tcase_add_test(tc, test_dsl_write_float4_to_u8_vec4_refused);
  tcase_add_test(tc, test_dsl_assign_float_to_int_refused);
  tcase_add_test(tc, test_dsl_add_float4_int2_refused);
  tcase_add_test(tc, test_dsl_sqrt_of_int_refused);
  tcase_add_test(tc, test_dsl_dot_float3_float4_refused);
  tcase_add_test(tc, test_dsl_swizzle_w_of_float3_refused);
  tcase_add_test(tc, test_dsl_swizzle_of_scalar_refused);
  tcase_add_test(tc, test_dsl_swizzle_bad_letters_refused);
  tcase_add_test(tc, test_dsl_vector_literal_wrong_count_refused);
  tcase_add_test(tc, test_dsl_vector_literal_wrong_elem_refused);
  tcase_add_test(tc, test_dsl_as_size_mismatch_refused);
  tcase_add_test(tc, test_dsl_convert_width_mismatch_refused);
  tcase_add_test(tc, test_dsl_if_float_condition_refused);
  tcase_add_test(tc, test_dsl_integer_only_operators_refused);
  suite_add_tcase(s, tc);

  tc = tcase_create("shapes_outputs");
  tcase_add_test(tc, test_dsl_implicit_read_shape_mismatch_refused);
  tcase_add_test(tc, test_dsl_implicit_write_shape_mismatch_refused);
  tcase_add_test(tc, test_dsl_write_missing_output_refused);
  tcase_add_test(tc, test_dsl_write_negative_output_refused);
  tcase_add_test(tc, test_dsl_output_never_written_refused);
  tcase_add_test(tc, test_dsl_output_written_twice_refused);
  tcase_add_test(tc, test_dsl_eleven_outputs_refused);
  tcase_add_test(tc, test_dsl_zero_outputs_refused);
  tcase_add_test(tc, test_dsl_bad_output_type_refused);
  tcase_add_test(tc, test_dsl_ten_outputs_accepted);
  suite_add_tcase(s, tc);

  tc = tcase_create("big_tensors");
  tcase_add_test(tc, test_dsl_read_tensor_in_foreach_refused);
  tcase_add_test(tc, test_dsl_read_big_tensor_outside_foreach_refused);
  tcase_add_test(tc, test_dsl_write_tensor_in_foreach_refused);
  tcase_add_test(tc, test_dsl_write_big_tensor_outside_foreach_refused);
  tcase_add_test(tc, test_dsl_tensor_element_outside_foreach_refused);
  tcase_add_test(tc, test_dsl_foreach_count_mismatch_refused);
  tcase_add_test(tc, test_dsl_tensor_var_of_big_field_refused);
  suite_add_tcase(s, tc);

  tc = tcase_create("tensor_decls");
  tcase_set_timeout(tc, 120); /* compiles a kernel */
  tcase_add_test(tc, test_dsl_tensor_decls_follow_the_field);
  tcase_add_test(tc, test_dsl_tensor_decls_refused);
  tcase_add_test(tc, test_dsl_tensor_arrays_run);
  tcase_add_test(tc, test_dsl_field_extent_runs);
  suite_add_tcase(s, tc);

  tc = tcase_create("order_addressing_blocks");
  tcase_add_test(tc, test_dsl_statement_after_write_refused);
  tcase_add_test(tc, test_dsl_statement_before_foreach_refused);
  tcase_add_test(tc, test_dsl_statement_after_foreach_refused);
  tcase_add_test(tc, test_dsl_foreach_inside_block_refused);
  tcase_add_test(tc, test_dsl_write_inside_if_refused);
  tcase_add_test(tc, test_dsl_read_at_three_coords_on_2d_refused);
  tcase_add_test(tc, test_dsl_write_at_one_coord_on_2d_refused);
  tcase_add_test(tc, test_dsl_float_coordinate_refused);
  tcase_add_test(tc, test_dsl_array_index_checks);
  tcase_add_test(tc, test_dsl_else_without_if_refused);
  tcase_add_test(tc, test_dsl_elseif_without_if_refused);
  tcase_add_test(tc, test_dsl_end_without_block_refused);
  tcase_add_test(tc, test_dsl_op_end_with_open_if_refused);
  tcase_add_test(tc, test_dsl_op_begin_while_open_refused);
  tcase_add_test(tc, test_dsl_expr_from_other_operator_refused);
  tcase_add_test(tc, test_dsl_field_from_other_graph_refused);
  suite_add_tcase(s, tc);

  tc = tcase_create("sticky");
  tcase_add_test(tc, test_dsl_null_chain_keeps_first_error);
  tcase_add_test(tc, test_dsl_null_field_on_good_graph_is_named);
  tcase_add_test(tc, test_dsl_compile_with_open_operator_fails);
  suite_add_tcase(s, tc);

  tc = tcase_create("accepted");
  tcase_set_timeout(tc, 120); /* compiles kernels with clang */
  tcase_add_test(tc, test_dsl_implicit_read_0d_field_accepted);
  tcase_add_test(tc, test_dsl_elseif_chain_runs);
  tcase_add_test(tc, test_dsl_nested_loops_run);
  tcase_add_test(tc, test_dsl_for_sum_runs);
  tcase_add_test(tc, test_dsl_while_loop_runs);
  tcase_add_test(tc, test_dsl_arrays_run);
  tcase_add_test(tc, test_dsl_vectors_and_swizzles_run);
  tcase_add_test(tc, test_dsl_conversions_run);
  tcase_add_test(tc, test_dsl_big_tensor_foreach_runs);
  tcase_add_test(tc, test_dsl_accepted_programs_build);
  suite_add_tcase(s, tc);

  tc = tcase_create("workgroups");
  tcase_add_test(tc, test_dsl_barrier_only_at_top_level);
  tcase_add_test(tc, test_dsl_thread_allocation_before_code);
  tcase_add_test(tc, test_dsl_atomics_need_local_volatile_int);
  tcase_add_test(tc, test_dsl_global_threads_changes_implicit_shape);
  suite_add_tcase(s, tc);
  tc = tcase_create("global_threads_elements");
  tcase_set_timeout(tc, 120); /* compiles kernels */
  tcase_add_test(tc, test_dsl_global_threads_elements_run);
  tcase_add_test(tc, test_dsl_per_element_threads_do_not_fuse);
  tcase_add_test(tc, test_dsl_global_threads_elements_with_work_groups);
  tcase_add_test(tc, test_dsl_global_threads_elements_refused);
  suite_add_tcase(s, tc);

  tc = tcase_create("regressions");
  tcase_add_test(tc, test_dsl_regression_closed_operator_expr_first_operand);
  tcase_add_test(tc, test_dsl_regression_assign_to_closed_operator_variable);
  tcase_add_test(tc, test_dsl_regression_convert_to_bool_vector);
  tcase_add_test(tc, test_dsl_regression_vector_too_many_args_silent);
  tcase_add_test(tc, test_dsl_regression_call_too_many_args_silent);
  tcase_add_test(tc, test_dsl_regression_write_at_message_names_output);
  suite_add_tcase(s, tc);
  tc = tcase_create("map");
  tcase_set_timeout(tc, 120); /* compiles kernels */
  tcase_add_test(tc, test_dsl_map_infers_result_type);
  tcase_add_test(tc, test_dsl_regression_select_on_8bit_vector_comparison);
  tcase_add_test(tc, test_dsl_regression_shift_of_short4);
  tcase_add_test(tc, test_dsl_regression_convert_sat_of_out_of_range_constants);
  tcase_add_test(tc, test_dsl_regression_rint_of_large_constants);
  tcase_add_test(tc, test_dsl_regression_no_fp_contraction);
  tcase_add_test(tc, test_dsl_lookup_columns_known_inside);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(dsl_suite()); }
