/* tests/check_graph.c - Check suite of the "graph" module: the type helpers
 * of fieldgraph/types.h (shapes, sizes, names, equality, printable forms),
 * the graph builder of fieldgraph/graph.h (inputs, constants, outputs,
 * counts and names), its argument and type checks with their status codes
 * and messages, sticky errors, fg_graph_set_error, and the status texts of
 * fieldgraph/status.h.  Nothing here compiles a kernel. */
#include "testutil.h"

#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fg_type img_type(void) { return fg_type_image(FG_F32, 4, 5, 4); }

/* ---- type helpers ------------------------------------------------------- */

START_TEST(test_graph_shape_points) {
  ck_assert_int_eq(fg_shape_points(fg_shape0()), 1);
  ck_assert_int_eq(fg_shape_points(fg_shape1(7)), 7);
  ck_assert_int_eq(fg_shape_points(fg_shape2(3, 4)), 12);
  ck_assert_int_eq(fg_shape_points(fg_shape3(2, 3, 4)), 24);
  /* 64-bit products do not overflow for large fields */
  ck_assert(fg_shape_points(fg_shape3(1 << 20, 1 << 20, 4)) ==
            ((int64_t)1 << 42));
  fg_shape s = fg_shape3(5, 6, 7);
  ck_assert_int_eq(s.ndim, 3);
  ck_assert_int_eq(s.dim[0], 5);
  ck_assert_int_eq(s.dim[1], 6);
  ck_assert_int_eq(s.dim[2], 7);
}
END_TEST

START_TEST(test_graph_shape_equal) {
  ck_assert(fg_shape_equal(fg_shape2(3, 4), fg_shape2(3, 4)));
  ck_assert(!fg_shape_equal(fg_shape2(3, 4), fg_shape2(4, 3)));
  ck_assert(!fg_shape_equal(fg_shape1(12), fg_shape2(3, 4)));
  ck_assert(fg_shape_equal(fg_shape0(), fg_shape0()));
  ck_assert(!fg_shape_equal(fg_shape0(), fg_shape1(1)));
}
END_TEST

START_TEST(test_graph_type_bytes) {
  /* scalar: 4 x 5 points of 4 bytes */
  ck_assert_uint_eq(fg_type_bytes(fg_type_scalar(FG_F32, fg_shape2(4, 5))),
                    80);
  /* 0-dimensional scalar field: one element */
  ck_assert_uint_eq(fg_type_bytes(fg_type_scalar(FG_F64, fg_shape0())), 8);
  /* vector: 10 x 10 points of 3 bytes */
  ck_assert_uint_eq(
      fg_type_bytes(fg_type_vector(FG_U8, fg_shape2(10, 10), 3)), 300);
  /* matrix: 2 x 3 points of 3 x 3 doubles */
  ck_assert_uint_eq(
      fg_type_bytes(fg_type_matrix(FG_F64, fg_shape2(2, 3), 3, 3)), 432);
  /* big tensor: 8 points of 4 x 4 floats */
  ck_assert_uint_eq(
      fg_type_bytes(fg_type_matrix(FG_F32, fg_shape1(8), 4, 4)), 512);
  /* 3-d field of u16 vectors */
  ck_assert_uint_eq(
      fg_type_bytes(fg_type_vector(FG_U16, fg_shape3(2, 3, 4), 2)), 96);
  /* invalid element type: size 0 */
  fg_type bad = fg_type_scalar((fg_elem)99, fg_shape1(10));
  ck_assert_uint_eq(fg_type_bytes(bad), 0);
  /* an image type */
  ck_assert_uint_eq(fg_type_bytes(fg_type_image(FG_U8, 480, 640, 4)),
                    480u * 640u * 4u);
}
END_TEST

START_TEST(test_graph_type_is_big) {
  fg_shape f = fg_shape2(8, 8);
  ck_assert_int_eq(fg_type_is_big(fg_type_scalar(FG_F32, f)), 0);
  ck_assert_int_eq(fg_type_is_big(fg_type_vector(FG_F32, f, 4)), 0);
  ck_assert_int_ne(fg_type_is_big(fg_type_vector(FG_F32, f, 5)), 0);
  ck_assert_int_eq(fg_type_is_big(fg_type_matrix(FG_F32, f, 2, 2)), 0);
  ck_assert_int_ne(fg_type_is_big(fg_type_matrix(FG_F32, f, 3, 3)), 0);
  ck_assert_int_eq(fg_type_tensor_elements(fg_type_scalar(FG_F32, f)), 1);
  ck_assert_int_eq(fg_type_tensor_elements(fg_type_vector(FG_F32, f, 5)), 5);
  ck_assert_int_eq(fg_type_tensor_elements(fg_type_matrix(FG_F32, f, 3, 3)),
                   9);
}
END_TEST

START_TEST(test_graph_type_image) {
  fg_type grey = fg_type_image(FG_U8, 3, 7, 1);
  ck_assert_int_eq(grey.elem, FG_U8);
  ck_assert_int_eq(grey.field.ndim, 2);
  ck_assert_int_eq(grey.field.dim[0], 3);
  ck_assert_int_eq(grey.field.dim[1], 7);
  ck_assert_int_eq(grey.tensor.ndim, 0);
  fg_type rgb = fg_type_image(FG_F32, 3, 7, 3);
  ck_assert_int_eq(rgb.tensor.ndim, 1);
  ck_assert_int_eq(rgb.tensor.dim[0], 3);
  ck_assert(fg_type_equal(rgb, fg_type_vector(FG_F32, fg_shape2(3, 7), 3)));
}
END_TEST

START_TEST(test_graph_type_str) {
  char buf[128];
  ck_assert_ptr_eq(
      fg_type_str(fg_type_vector(FG_F32, fg_shape2(512, 512), 4), buf,
                  sizeof buf),
      buf);
  ck_assert_str_eq(buf, "f32[512x512] vec4");
  fg_type_str(fg_type_scalar(FG_U8, fg_shape2(3, 4)), buf, sizeof buf);
  ck_assert_str_eq(buf, "u8[3x4]");
  fg_type_str(fg_type_matrix(FG_F64, fg_shape3(2, 3, 4), 3, 3), buf,
              sizeof buf);
  ck_assert_str_eq(buf, "f64[2x3x4] mat3x3");
  fg_type_str(fg_type_scalar(FG_I16, fg_shape1(9)), buf, sizeof buf);
  ck_assert_str_eq(buf, "i16[9]");
  fg_type_str(fg_type_scalar(FG_F32, fg_shape0()), buf, sizeof buf);
  ck_assert_str_eq(buf, "f32[]");
  /* a tensor shape of 3 dimensions is flagged, not printed as a matrix */
  fg_type bad = fg_type_scalar(FG_F32, fg_shape1(2));
  bad.tensor = fg_shape3(2, 2, 2);
  fg_type_str(bad, buf, sizeof buf);
  ck_assert_msg(strstr(buf, "bad tensor shape") != NULL, "got \"%s\"", buf);
  /* an invalid element type prints as "?" */
  fg_type_str(fg_type_scalar((fg_elem)42, fg_shape1(2)), buf, sizeof buf);
  ck_assert_str_eq(buf, "?[2]");
  /* truncation keeps the string terminated */
  memset(buf, 'Z', sizeof buf);
  fg_type_str(fg_type_vector(FG_F32, fg_shape2(512, 512), 4), buf, 5);
  ck_assert_str_eq(buf, "f32[");
  ck_assert_int_eq(buf[5], 'Z');
  /* NULL buffer or size 0: returns the buffer, writes nothing */
  ck_assert_ptr_null(fg_type_str(bad, NULL, 10));
  buf[0] = 'Q';
  ck_assert_ptr_eq(fg_type_str(bad, buf, 0), buf);
  ck_assert_int_eq(buf[0], 'Q');
}
END_TEST

START_TEST(test_graph_elem_name_size) {
  static const struct { fg_elem e; const char *name; size_t size; } t[] = {
    {FG_BOOL, "bool", 1}, {FG_I8, "i8", 1},   {FG_U8, "u8", 1},
    {FG_I16, "i16", 2},   {FG_U16, "u16", 2}, {FG_I32, "i32", 4},
    {FG_U32, "u32", 4},   {FG_I64, "i64", 8}, {FG_U64, "u64", 8},
    {FG_F32, "f32", 4},   {FG_F64, "f64", 8},
  };
  ck_assert_int_eq(sizeof t / sizeof t[0], FG_ELEM_COUNT_);
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    ck_assert_str_eq(fg_elem_name(t[i].e), t[i].name);
    ck_assert_uint_eq(fg_elem_size(t[i].e), t[i].size);
  }
  ck_assert_str_eq(fg_elem_name(FG_ELEM_COUNT_), "?");
  ck_assert_str_eq(fg_elem_name((fg_elem)-1), "?");
  ck_assert_uint_eq(fg_elem_size(FG_ELEM_COUNT_), 0);
  ck_assert_uint_eq(fg_elem_size((fg_elem)-1), 0);
}
END_TEST

START_TEST(test_graph_type_equal) {
  fg_type a = fg_type_vector(FG_F32, fg_shape2(4, 4), 4);
  ck_assert(fg_type_equal(a, fg_type_vector(FG_F32, fg_shape2(4, 4), 4)));
  ck_assert(!fg_type_equal(a, fg_type_vector(FG_U8, fg_shape2(4, 4), 4)));
  ck_assert(!fg_type_equal(a, fg_type_vector(FG_F32, fg_shape2(4, 5), 4)));
  ck_assert(!fg_type_equal(a, fg_type_vector(FG_F32, fg_shape1(16), 4)));
  ck_assert(!fg_type_equal(a, fg_type_vector(FG_F32, fg_shape2(4, 4), 3)));
  /* same element count, different tensor shape */
  ck_assert(!fg_type_equal(a, fg_type_matrix(FG_F32, fg_shape2(4, 4), 2, 2)));
  ck_assert(!fg_type_equal(fg_type_matrix(FG_F32, fg_shape1(3), 2, 3),
                           fg_type_matrix(FG_F32, fg_shape1(3), 3, 2)));
}
END_TEST

/* ---- building graphs ---------------------------------------------------- */

START_TEST(test_graph_new_is_empty) {
  fg_graph *g = fg_graph_new("demo");
  ck_assert_ptr_nonnull(g);
  expect_ok(g);
  ck_assert_int_eq(fg_graph_input_count(g), 0);
  ck_assert_int_eq(fg_graph_output_count(g), 0);
  ck_assert_int_eq(fg_graph_op_count(g), 0);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_inputs_constants_outputs) {
  fg_graph *g = fg_graph_new("demo");
  fg_type it = img_type();
  fg_type kt = fg_type_scalar(FG_I32, fg_shape1(3));
  int32_t kdata[3] = {1, 2, 3};
  fg_field *img = fg_input(g, "img", it);
  fg_field *mask = fg_input(g, "mask", fg_type_image(FG_U8, 4, 5, 1));
  fg_field *k = fg_constant(g, "k", kt, kdata);
  kdata[0] = 99; /* the constant holds a copy */
  ck_assert_ptr_nonnull(img);
  ck_assert_ptr_nonnull(mask);
  ck_assert_ptr_nonnull(k);
  ck_assert_ptr_ne(img, mask);
  expect_ok(g);
  ck_assert_int_eq(fg_graph_input_count(g), 2);  /* constants don't count */
  ck_assert_int_eq(fg_graph_output_count(g), 0);
  ck_assert_int_eq(fg_graph_op_count(g), 0);
  ck_assert_str_eq(fg_field_name(img), "img");
  ck_assert_str_eq(fg_field_name(mask), "mask");
  ck_assert_str_eq(fg_field_name(k), "k");
  ck_assert(fg_type_equal(fg_field_type(img), it));
  ck_assert(fg_type_equal(fg_field_type(k), kt));
  ck_assert_int_eq(fg_field_type(mask).elem, FG_U8);
  ck_assert_ptr_eq(fg_field_graph(img), g);
  ck_assert_ptr_eq(fg_field_graph(k), g);

  /* outputs return their field; one field may be output twice */
  ck_assert_ptr_eq(fg_output(g, "out", img), img);
  ck_assert_ptr_eq(fg_output(g, "again", img), img);
  ck_assert_ptr_eq(fg_output(g, "kout", k), k);
  expect_ok(g);
  ck_assert_int_eq(fg_graph_output_count(g), 3);
  ck_assert_int_eq(fg_graph_input_count(g), 2);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_op_count_and_field_names) {
  fg_graph *g = fg_graph_new("demo");
  fg_type t = img_type();
  fg_field *in = fg_input(g, "img", t);
  fg_op *op = fg_op_begin(g, "half", 2, (fg_type[]){t, t});
  fg_expr *v = fg_read_tensor(op, in);
  fg_write_tensor(op, 0, fg_divf(v, 2.0f));
  fg_write_tensor(op, 1, fg_mulf(v, 2.0f));
  fg_field *out0 = fg_op_end(op);
  ck_assert_ptr_nonnull(out0);
  fg_field *out1 = fg_op_output(op, 1);
  ck_assert_ptr_nonnull(out1);
  ck_assert_ptr_eq(fg_op_output(op, 0), out0);
  expect_ok(g);
  ck_assert_int_eq(fg_graph_op_count(g), 1);
  ck_assert_int_eq(fg_graph_input_count(g), 1);
  ck_assert_str_eq(fg_field_name(out0), "half.out0");
  ck_assert_str_eq(fg_field_name(out1), "half.out1");
  ck_assert(fg_type_equal(fg_field_type(out1), t));
  ck_assert_ptr_eq(fg_field_graph(out1), g);
  ck_assert_ptr_eq(fg_output(g, "h", out0), out0);
  ck_assert_int_eq(fg_graph_output_count(g), 1);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_extent_limits_accepted) {
  fg_graph *g = fg_graph_new("demo");
  /* the largest extent, and the largest tensor extent, are accepted */
  ck_assert_ptr_nonnull(fg_input(g, "wide",
                                 fg_type_scalar(FG_U8,
                                                fg_shape1(FG_MAX_DIM_EXTENT))));
  ck_assert_ptr_nonnull(
      fg_input(g, "longvec", fg_type_vector(FG_F32, fg_shape1(2), 4096)));
  ck_assert_ptr_nonnull(
      fg_input(g, "zero_d", fg_type_scalar(FG_F64, fg_shape0())));
  expect_ok(g);
  ck_assert_int_eq(fg_graph_input_count(g), 3);
  fg_graph_free(g);
}
END_TEST

/* ---- errors ------------------------------------------------------------- */

START_TEST(test_graph_input_null_name) {
  fg_graph *g = fg_graph_new("demo");
  ck_assert_ptr_null(fg_input(g, NULL, img_type()));
  expect_error(g, FG_EINVAL, "fg_input", "name is NULL", NULL);
  ck_assert_int_eq(fg_graph_input_count(g), 0);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_input_empty_name) {
  fg_graph *g = fg_graph_new("demo");
  ck_assert_ptr_null(fg_input(g, "", img_type()));
  expect_error(g, FG_EINVAL, "fg_input", "name is empty", NULL);
  ck_assert_int_eq(fg_graph_input_count(g), 0);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_constant_and_output_bad_names) {
  float data[20] = {0};
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(4, 5));
  fg_graph *g = fg_graph_new("demo");
  ck_assert_ptr_null(fg_constant(g, "", t, data));
  expect_error(g, FG_EINVAL, "fg_constant", "name is empty", NULL);
  fg_graph_free(g);

  g = fg_graph_new("demo");
  fg_field *in = fg_input(g, "in", t);
  ck_assert_ptr_null(fg_output(g, NULL, in));
  expect_error(g, FG_EINVAL, "fg_output", "name is NULL", NULL);
  ck_assert_int_eq(fg_graph_output_count(g), 0);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_duplicate_input_name) {
  fg_graph *g = fg_graph_new("demo");
  fg_field *a = fg_input(g, "img", img_type());
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_null(fg_input(g, "img", fg_type_image(FG_U8, 2, 2, 1)));
  expect_error(g, FG_EINVAL, "input 'img'", "already used",
               "graph 'demo'", NULL);
  ck_assert_int_eq(fg_graph_input_count(g), 1);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_duplicate_output_name) {
  fg_graph *g = fg_graph_new("demo");
  fg_field *a = fg_input(g, "a", img_type());
  fg_field *b = fg_input(g, "b", img_type());
  ck_assert_ptr_eq(fg_output(g, "res", a), a);
  ck_assert_ptr_null(fg_output(g, "res", b));
  expect_error(g, FG_EINVAL, "output 'res'", "already used", NULL);
  ck_assert_int_eq(fg_graph_output_count(g), 1);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_output_name_of_input) {
  /* inputs and outputs share one namespace, both ways */
  fg_graph *g = fg_graph_new("demo");
  fg_field *a = fg_input(g, "a", img_type());
  ck_assert_ptr_null(fg_output(g, "a", a));
  expect_error(g, FG_EINVAL, "output 'a'", "already used", NULL);
  fg_graph_free(g);

  g = fg_graph_new("demo");
  a = fg_input(g, "a", img_type());
  fg_output(g, "o", a);
  ck_assert_ptr_null(fg_input(g, "o", img_type()));
  expect_error(g, FG_EINVAL, "input 'o'", "already used", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_default_name_in_message) {
  /* a graph made with a NULL name is called "graph" in messages */
  fg_graph *g = fg_graph_new(NULL);
  ck_assert_ptr_nonnull(g);
  fg_input(g, "x", img_type());
  fg_input(g, "x", img_type());
  expect_error(g, FG_EINVAL, "input 'x'", "graph 'graph'", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_input_bool_elem) {
  fg_graph *g = fg_graph_new("demo");
  ck_assert_ptr_null(fg_input(g, "img", fg_type_image(FG_BOOL, 4, 4, 1)));
  expect_error(g, FG_ETYPE, "input 'img'", "not a field element type", NULL);
  ck_assert_int_eq(fg_graph_input_count(g), 0);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_input_elem_out_of_range) {
  fg_graph *g = fg_graph_new("demo");
  ck_assert_ptr_null(
      fg_input(g, "img", fg_type_scalar(FG_ELEM_COUNT_, fg_shape1(4))));
  expect_error(g, FG_ETYPE, "input 'img'", "element type 11",
               "not a field element type", NULL);
  fg_graph_free(g);

  g = fg_graph_new("demo");
  ck_assert_ptr_null(
      fg_input(g, "neg", fg_type_scalar((fg_elem)-3, fg_shape1(4))));
  expect_error(g, FG_ETYPE, "input 'neg'", "element type -3", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_input_four_dims) {
  fg_graph *g = fg_graph_new("demo");
  fg_type t = fg_type_scalar(FG_F32, fg_shape3(2, 2, 2));
  t.field.ndim = 4;
  ck_assert_ptr_null(fg_input(g, "vol", t));
  expect_error(g, FG_ESHAPE, "input 'vol'", "field shape has 4 dimensions",
               NULL);
  fg_graph_free(g);

  g = fg_graph_new("demo");
  t.field.ndim = -1;
  ck_assert_ptr_null(fg_input(g, "neg", t));
  expect_error(g, FG_ESHAPE, "input 'neg'", "field shape has -1 dimensions",
               NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_input_zero_extent) {
  fg_graph *g = fg_graph_new("demo");
  ck_assert_ptr_null(fg_input(g, "img", fg_type_image(FG_F32, 0, 5, 1)));
  expect_error(g, FG_ESHAPE, "input 'img'", "field extent 0 on axis 0",
               "out of range", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_input_negative_extent) {
  fg_graph *g = fg_graph_new("demo");
  ck_assert_ptr_null(fg_input(g, "img", fg_type_image(FG_F32, 4, -3, 1)));
  expect_error(g, FG_ESHAPE, "input 'img'", "field extent -3 on axis 1",
               NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_input_extent_too_large) {
  fg_graph *g = fg_graph_new("demo");
  ck_assert_ptr_null(fg_input(
      g, "huge", fg_type_scalar(FG_U8, fg_shape2(2, FG_MAX_DIM_EXTENT + 1))));
  expect_error(g, FG_ESHAPE, "input 'huge'", "field extent 2147483649",
               "axis 1", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_input_too_many_bytes) {
  /* every axis in range, but 2^52 bytes in all */
  fg_graph *g = fg_graph_new("demo");
  fg_type t = fg_type_scalar(FG_F64, fg_shape3(1 << 20, 1 << 20, 1 << 9));
  ck_assert_ptr_null(fg_input(g, "big", t));
  expect_error(g, FG_ESHAPE, "input 'big'", "more than a field may hold",
               NULL);
  fg_graph_free(g);
}
END_TEST

/* Three extents whose point count overflows int64: 2^21 each (2^63
 * points, a negative count) and 2^30 each (2^90, wrapping to 0) passed
 * the size check, and the run wrote 2^65 bytes through the caller's
 * buffer.  Refused now, as is a constant of that type; fg_type_bytes
 * says SIZE_MAX rather than a wrapped size. */
START_TEST(test_graph_input_points_overflow) {
  static const int64_t ext[] = {(int64_t)1 << 21, (int64_t)1 << 30,
                                FG_MAX_DIM_EXTENT};
  for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
    fg_graph *g = fg_graph_new("demo");
    fg_type t = fg_type_scalar(FG_F32, fg_shape3(ext[i], ext[i], ext[i]));
    ck_assert_uint_eq(fg_type_bytes(t), SIZE_MAX);
    ck_assert_ptr_null(fg_input(g, "big", t));
    expect_error(g, FG_ESHAPE, "input 'big'", "more than a field may hold",
                 NULL);
    fg_graph_free(g);
  }
  fg_type v = fg_type_vector(FG_F64, fg_shape3(1 << 20, 1 << 20, 1 << 20),
                             4);
  ck_assert_uint_eq(fg_type_bytes(v), SIZE_MAX);
  /* the largest that fits is exact */
  fg_type ok = fg_type_scalar(FG_F32, fg_shape3(1 << 10, 1 << 10, 1 << 10));
  ck_assert_uint_eq(fg_type_bytes(ok), (size_t)4 << 30);
}
END_TEST

START_TEST(test_graph_input_tensor_three_dims) {
  fg_graph *g = fg_graph_new("demo");
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(4, 4));
  t.tensor = fg_shape3(2, 2, 2);
  ck_assert_ptr_null(fg_input(g, "cube", t));
  expect_error(g, FG_ESHAPE, "input 'cube'", "tensor shape has 3 dimensions",
               NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_input_tensor_bad_extent) {
  fg_graph *g = fg_graph_new("demo");
  ck_assert_ptr_null(
      fg_input(g, "v0", fg_type_vector(FG_F32, fg_shape2(4, 4), 0)));
  expect_error(g, FG_ESHAPE, "input 'v0'", "tensor extent 0 on axis 0",
               NULL);
  fg_graph_free(g);

  g = fg_graph_new("demo");
  ck_assert_ptr_null(
      fg_input(g, "m", fg_type_matrix(FG_F32, fg_shape2(4, 4), 3, 4097)));
  expect_error(g, FG_ESHAPE, "input 'm'", "tensor extent 4097 on axis 1",
               NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_constant_null_data) {
  fg_graph *g = fg_graph_new("demo");
  ck_assert_ptr_null(
      fg_constant(g, "k", fg_type_scalar(FG_F32, fg_shape2(4, 5)), NULL));
  expect_error(g, FG_EINVAL, "constant 'k'", "data is NULL", "80 bytes",
               NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_constant_bad_type) {
  float data[4] = {0};
  fg_graph *g = fg_graph_new("demo");
  ck_assert_ptr_null(
      fg_constant(g, "k", fg_type_scalar(FG_BOOL, fg_shape1(4)), data));
  expect_error(g, FG_ETYPE, "constant 'k'", "not a field element type",
               NULL);
  fg_graph_free(g);

  g = fg_graph_new("demo");
  ck_assert_ptr_null(
      fg_constant(g, "k2", fg_type_scalar(FG_F32, fg_shape1(0)), data));
  expect_error(g, FG_ESHAPE, "constant 'k2'", "field extent 0", NULL);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_output_foreign_field) {
  fg_graph *g1 = fg_graph_new("one");
  fg_graph *g2 = fg_graph_new("two");
  fg_field *img = fg_input(g1, "img", img_type());
  ck_assert_ptr_nonnull(img);
  ck_assert_ptr_null(fg_output(g2, "out", img));
  expect_error(g2, FG_EINVAL, "output 'out'", "field 'img'",
               "belongs to another graph", NULL);
  ck_assert_int_eq(fg_graph_output_count(g2), 0);
  /* the field's own graph is untouched */
  expect_ok(g1);
  fg_graph_free(g1);
  fg_graph_free(g2);
}
END_TEST

START_TEST(test_graph_builder_call_with_open_operator) {
  fg_graph *g = fg_graph_new("demo");
  fg_type t = img_type();
  fg_field *in = fg_input(g, "in", t);
  fg_op *op = fg_op_begin(g, "half", 1, &t);
  ck_assert_ptr_nonnull(op);
  ck_assert_ptr_null(fg_input(g, "late", t));
  expect_error(g, FG_ESTATE, "fg_input 'late'", "fg_op_end", NULL);
  ck_assert_int_eq(fg_graph_input_count(g), 1);
  (void)in;
  fg_graph_free(g);

  g = fg_graph_new("demo");
  in = fg_input(g, "in", t);
  op = fg_op_begin(g, "half", 1, &t);
  ck_assert_ptr_null(fg_output(g, "o", in));
  expect_error(g, FG_ESTATE, "fg_output 'o'", "must be closed", NULL);
  fg_graph_free(g);
}
END_TEST

/* ---- sticky errors ------------------------------------------------------ */

START_TEST(test_graph_sticky_first_error) {
  fg_graph *g = fg_graph_new("demo");
  fg_field *good = fg_input(g, "good", img_type());
  ck_assert_ptr_nonnull(good);
  ck_assert_ptr_null(fg_input(g, "bad", fg_type_image(FG_BOOL, 4, 4, 1)));
  expect_error(g, FG_ETYPE, "input 'bad'", NULL);
  char first[1024];
  snprintf(first, sizeof first, "%s", fg_graph_errmsg(g));

  /* later valid calls do nothing */
  ck_assert_ptr_null(fg_input(g, "later", img_type()));
  ck_assert_ptr_null(
      fg_constant(g, "k", fg_type_scalar(FG_F32, fg_shape0()), &(float){1}));
  ck_assert_ptr_null(fg_output(g, "out", good));
  /* later invalid calls record nothing */
  ck_assert_ptr_null(fg_input(g, NULL, img_type()));
  ck_assert_ptr_null(fg_input(g, "x", fg_type_image(FG_F32, 0, 0, 1)));
  ck_assert_ptr_null(fg_constant(g, "k", img_type(), NULL));
  /* so does the DSL */
  ck_assert_ptr_null(fg_op_begin(g, "op", 1, (fg_type[]){img_type()}));
  ck_assert_ptr_null(fg_op_begin(g, "op", 0, NULL));

  ck_assert_int_eq(fg_graph_status(g), FG_ETYPE);
  ck_assert_str_eq(fg_graph_errmsg(g), first);
  ck_assert_int_eq(fg_graph_input_count(g), 1);
  ck_assert_int_eq(fg_graph_output_count(g), 0);
  ck_assert_int_eq(fg_graph_op_count(g), 0);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_null_field_is_named) {
  fg_graph *g = fg_graph_new("demo");
  /* a NULL field on a clean graph: nothing earlier explains it, so the
   * output would vanish silently; it is named (issue 17, finding 13) */
  ck_assert_ptr_null(fg_output(g, "out", NULL));
  expect_error(g, FG_EINVAL, "output 'out'", "field is NULL", NULL);
  ck_assert_int_eq(fg_graph_output_count(g), 0);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_null_graph_calls) {
  float k = 1;
  ck_assert_ptr_null(fg_input(NULL, "in", img_type()));
  ck_assert_ptr_null(
      fg_constant(NULL, "k", fg_type_scalar(FG_F32, fg_shape0()), &k));
  ck_assert_ptr_null(fg_output(NULL, "o", NULL));
  ck_assert_int_eq(fg_graph_status(NULL), FG_EINVAL);
  ck_assert_int_eq(fg_graph_input_count(NULL), 0);
  ck_assert_int_eq(fg_graph_output_count(NULL), 0);
  ck_assert_int_eq(fg_graph_op_count(NULL), 0);
  fg_graph_free(NULL);
}
END_TEST

START_TEST(test_graph_errmsg_null_graph) {
  const char *m = fg_graph_errmsg(NULL);
  ck_assert_ptr_nonnull(m);
  ck_assert_int_gt(strlen(m), 0);
  ck_assert_msg(strstr(m, "NULL") != NULL, "got \"%s\"", m);
}
END_TEST

START_TEST(test_graph_null_field_accessors) {
  fg_type t = fg_field_type(NULL);
  ck_assert_int_eq(t.elem, 0);
  ck_assert_int_eq(t.field.ndim, 0);
  ck_assert_int_eq(t.tensor.ndim, 0);
  ck_assert_int_eq(t.field.dim[0], 0);
  ck_assert_str_eq(fg_field_name(NULL), "");
  ck_assert_ptr_null(fg_field_graph(NULL));
}
END_TEST

START_TEST(test_graph_set_error_keeps_first) {
  fg_graph *g = fg_graph_new("demo");
  ck_assert_int_eq(
      fg_graph_set_error(g, FG_ESHAPE, "upsideDown: '%s' has %d dims", "v",
                         3),
      FG_ESHAPE);
  ck_assert_int_eq(fg_graph_status(g), FG_ESHAPE);
  ck_assert_str_eq(fg_graph_errmsg(g), "upsideDown: 'v' has 3 dims");
  /* a second error is ignored and the first status returned */
  ck_assert_int_eq(fg_graph_set_error(g, FG_ETYPE, "second"), FG_ESHAPE);
  ck_assert_int_eq(fg_graph_status(g), FG_ESHAPE);
  ck_assert_str_eq(fg_graph_errmsg(g), "upsideDown: 'v' has 3 dims");
  /* and the builder is blocked */
  ck_assert_ptr_null(fg_input(g, "in", img_type()));
  ck_assert_str_eq(fg_graph_errmsg(g), "upsideDown: 'v' has 3 dims");
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_set_error_after_builder_error) {
  fg_graph *g = fg_graph_new("demo");
  fg_input(g, "", img_type());
  ck_assert_int_eq(fg_graph_set_error(g, FG_ERULE, "mine"), FG_EINVAL);
  expect_error(g, FG_EINVAL, "name is empty", NULL);
  ck_assert_ptr_null(strstr(fg_graph_errmsg(g), "mine"));
  fg_graph_free(g);
}
END_TEST

START_TEST(test_graph_set_error_odd_arguments) {
  /* FG_OK is no error: it becomes FG_EINVAL */
  fg_graph *g = fg_graph_new("demo");
  ck_assert_int_eq(fg_graph_set_error(g, FG_OK, "oops"), FG_EINVAL);
  ck_assert_int_eq(fg_graph_status(g), FG_EINVAL);
  ck_assert_str_eq(fg_graph_errmsg(g), "oops");
  fg_graph_free(g);
  /* a NULL graph */
  ck_assert_int_eq(fg_graph_set_error(NULL, FG_ETYPE, "x"), FG_EINVAL);
}
END_TEST

/* ---- status codes ------------------------------------------------------- */

START_TEST(test_graph_status_strings_distinct) {
  for (int i = 0; i < FG_STATUS_COUNT_; i++) {
    const char *s = fg_status_str((fg_status)i);
    const char *n = fg_status_name((fg_status)i);
    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_nonnull(n);
    ck_assert_int_gt(strlen(s), 0);
    ck_assert_msg(!strncmp(n, "FG_", 3), "name %d is \"%s\"", i, n);
    for (int j = 0; j < i; j++) {
      ck_assert_str_ne(s, fg_status_str((fg_status)j));
      ck_assert_str_ne(n, fg_status_name((fg_status)j));
    }
  }
  ck_assert_str_eq(fg_status_name(FG_OK), "FG_OK");
  ck_assert_str_eq(fg_status_str(FG_OK), "success");
  ck_assert_str_eq(fg_status_name(FG_ETYPE), "FG_ETYPE");
  ck_assert_str_eq(fg_status_str(FG_ETYPE), "type mismatch");
  ck_assert_str_eq(fg_status_name(FG_ESHAPE), "FG_ESHAPE");
  ck_assert_str_eq(fg_status_str(FG_ESHAPE), "shape mismatch");
  ck_assert_str_eq(fg_status_name(FG_ECANCELED), "FG_ECANCELED");
}
END_TEST

START_TEST(test_graph_status_out_of_range) {
  fg_status bad[] = {FG_STATUS_COUNT_, (fg_status)(FG_STATUS_COUNT_ + 100),
                     (fg_status)-1};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    const char *s = fg_status_str(bad[k]);
    const char *n = fg_status_name(bad[k]);
    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_nonnull(n);
    /* not mistaken for any real code */
    for (int i = 0; i < FG_STATUS_COUNT_; i++) {
      ck_assert_str_ne(s, fg_status_str((fg_status)i));
      ck_assert_str_ne(n, fg_status_name((fg_status)i));
    }
  }
}
END_TEST

/* FG_TYPE_STR_MAX holds the longest text fg_type_str can write: every
 * extent at its largest, a matrix tensor, and a malformed tensor shape. */
START_TEST(test_graph_type_str_max_holds_every_type) {
  char buf[FG_TYPE_STR_MAX + 64];
  fg_type t = {0};
  t.elem = FG_BOOL;
  t.field.ndim = 3;
  for (int i = 0; i < 3; i++)
    t.field.dim[i] = INT64_MIN;
  t.tensor.ndim = 2;
  t.tensor.dim[0] = t.tensor.dim[1] = INT64_MIN;
  size_t longest = strlen(fg_type_str(t, buf, sizeof buf));
  t.tensor.ndim = 5;   /* "<bad tensor shape>" */
  size_t bad = strlen(fg_type_str(t, buf, sizeof buf));
  if (bad > longest)
    longest = bad;
  ck_assert_msg(longest < FG_TYPE_STR_MAX, "%zu bytes of text, "
                "FG_TYPE_STR_MAX %d", longest, FG_TYPE_STR_MAX);
  /* and a small buffer is cut, never overrun */
  char small[8];
  memset(small, 'z', sizeof small);
  fg_type_str(t, small, 4);
  ck_assert_int_eq(small[3], 0);
  ck_assert_int_eq(small[4], 'z');
}
END_TEST

/* Labels are what reports show; names stay the fields' identity. */
START_TEST(test_graph_field_labels) {
  fg_graph *g = fg_graph_new("labels");
  fg_field *in = fg_input(g, "img", fg_type_scalar(FG_F32, fg_shape2(2, 2)));
  ck_assert_str_eq(fg_field_label(in), "img");
  ck_assert_int_eq(fg_field_set_label(in, "photo (p.fgp:1)"), FG_OK);
  ck_assert_str_eq(fg_field_label(in), "photo (p.fgp:1)");
  ck_assert_str_eq(fg_field_name(in), "img");
  ck_assert_int_eq(fg_field_set_label(NULL, "x"), FG_EINVAL);
  ck_assert_int_eq(fg_field_set_label(in, NULL), FG_EINVAL);
  ck_assert_str_eq(fg_field_label(NULL), "");
  fg_graph_free(g);
}
END_TEST

static Suite *graph_suite(void) {
  Suite *s = suite_create("graph");
  TCase *tc = tcase_create("types");
  tcase_add_test(tc, test_graph_shape_points);
  tcase_add_test(tc, test_graph_shape_equal);
  tcase_add_test(tc, test_graph_type_bytes);
  tcase_add_test(tc, test_graph_type_is_big);
  tcase_add_test(tc, test_graph_type_image);
  tcase_add_test(tc, test_graph_type_str);
  tcase_add_test(tc, test_graph_elem_name_size);
  tcase_add_test(tc, test_graph_type_equal);
  suite_add_tcase(s, tc);

  tc = tcase_create("build");
  tcase_add_test(tc, test_graph_new_is_empty);
  tcase_add_test(tc, test_graph_inputs_constants_outputs);
  tcase_add_test(tc, test_graph_op_count_and_field_names);
  tcase_add_test(tc, test_graph_extent_limits_accepted);
  suite_add_tcase(s, tc);

  tc = tcase_create("errors");
  tcase_add_test(tc, test_graph_input_null_name);
  tcase_add_test(tc, test_graph_input_empty_name);
  tcase_add_test(tc, test_graph_constant_and_output_bad_names);
  tcase_add_test(tc, test_graph_duplicate_input_name);
  tcase_add_test(tc, test_graph_duplicate_output_name);
  tcase_add_test(tc, test_graph_output_name_of_input);
  tcase_add_test(tc, test_graph_default_name_in_message);
  tcase_add_test(tc, test_graph_input_bool_elem);
  tcase_add_test(tc, test_graph_input_elem_out_of_range);
  tcase_add_test(tc, test_graph_input_four_dims);
  tcase_add_test(tc, test_graph_input_zero_extent);
  tcase_add_test(tc, test_graph_input_negative_extent);
  tcase_add_test(tc, test_graph_input_extent_too_large);
  tcase_add_test(tc, test_graph_input_too_many_bytes);
  tcase_add_test(tc, test_graph_input_points_overflow);
  tcase_add_test(tc, test_graph_input_tensor_three_dims);
  tcase_add_test(tc, test_graph_input_tensor_bad_extent);
  tcase_add_test(tc, test_graph_constant_null_data);
  tcase_add_test(tc, test_graph_constant_bad_type);
  tcase_add_test(tc, test_graph_output_foreign_field);
  tcase_add_test(tc, test_graph_builder_call_with_open_operator);
  suite_add_tcase(s, tc);

  tc = tcase_create("sticky");
  tcase_add_test(tc, test_graph_sticky_first_error);
  tcase_add_test(tc, test_graph_null_field_is_named);
  tcase_add_test(tc, test_graph_null_graph_calls);
  tcase_add_test(tc, test_graph_errmsg_null_graph);
  tcase_add_test(tc, test_graph_null_field_accessors);
  tcase_add_test(tc, test_graph_set_error_keeps_first);
  tcase_add_test(tc, test_graph_set_error_after_builder_error);
  tcase_add_test(tc, test_graph_set_error_odd_arguments);
  suite_add_tcase(s, tc);

  tc = tcase_create("status");
  tcase_add_test(tc, test_graph_status_strings_distinct);
  tcase_add_test(tc, test_graph_status_out_of_range);
  tcase_add_test(tc, test_graph_type_str_max_holds_every_type);
  tcase_add_test(tc, test_graph_field_labels);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(graph_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failures = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failures ? 1 : 0;
}
