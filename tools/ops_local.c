/* tools/ops_local.c - operators the pipeline table needs that the library
 * does not have yet, written with the DSL: flip (Cog's upsideDown),
 * cielab (Cog's RGBtoCIELAB), grey, and the conversions between u8 pixels
 * and floats in [0, 1].  TO BE REPLACED by include/fieldgraph/ops.h's
 * colour conversions and geometry once that library lands: each row of
 * ops_table.c then names the library's call instead.
 */
#include "tools/fgt.h"

fg_field *fgt_flip(fg_graph *g, fg_field *image, bool horizontal,
                   bool vertical) {
  fg_type t = fg_field_type(image);
  if (image && t.field.ndim != 2) {
    fg_graph_set_error(g, FG_ESHAPE, "flip: expected a 2-D image, '%s' has "
                       "%d dimensions", fg_field_name(image), t.field.ndim);
    return NULL;
  }
  fg_op *op = fg_op_begin(g, "flip", 1, &t);
  fg_expr *row = vertical ? fg_subi(fg_sub(fg_rows(op), fg_row(op)), 1)
                          : fg_row(op);
  fg_expr *col = horizontal
                     ? fg_subi(fg_sub(fg_columns(op), fg_column(op)), 1)
                     : fg_column(op);
  fg_write_tensor(op, 0, fg_read_tensor_at(op, image, 2, row, col));
  return fg_op_end(op);
}

/* One sRGB channel to linear light. */
static void linearize(fg_op *op, fg_expr *c) {
  fg_if(fg_gt(c, fg_float(op, 0.04045f)));
  fg_assign(c, fg_pow(fg_divf(fg_addf(c, 0.055f), 1.055f),
                      fg_float(op, 2.4f)));
  fg_else(op);
  fg_assign(c, fg_divf(c, 12.92f));
  fg_end(op);
}

/* The CIE L*a*b* companding of one normalized XYZ coordinate. */
static void lab_f(fg_op *op, fg_expr *c) {
  fg_if(fg_gt(c, fg_float(op, 0.008856f)));
  fg_assign(c, fg_pow(c, fg_float(op, 1.0f / 3)));
  fg_else(op);
  fg_assign(c, fg_addf(fg_mulf(c, 7.787f), 16.0f / 116));
  fg_end(op);
}

static fg_expr *fvar(fg_op *op, fg_expr *init) {
  fg_expr *v = fg_var(op, FG_F32, 1);
  fg_assign(v, init);
  return v;
}

fg_field *fgt_cielab(fg_graph *g, fg_field *image) {
  fg_type t = fg_field_type(image);
  int ch = fg_type_tensor_elements(t);
  if (image && (t.elem != FG_F32 || ch > 4)) {
    fg_graph_set_error(g, FG_ETYPE, "cielab: expected an f32 image with 1-4 "
                       "channels in [0, 1], '%s' is %s with %d",
                       fg_field_name(image), fg_elem_name(t.elem), ch);
    return NULL;
  }
  fg_type lab = fg_type_vector(FG_F32, t.field, 3);
  fg_op *op = fg_op_begin(g, "cielab", 1, &lab);
  fg_expr *r, *gr, *b;
  if (ch >= 3) {
    fg_expr *px = fg_var(op, FG_F32, ch);
    fg_assign(px, fg_read_tensor(op, image));
    r = fvar(op, fg_swizzle(px, "x"));
    gr = fvar(op, fg_swizzle(px, "y"));
    b = fvar(op, fg_swizzle(px, "z"));
  } else {
    fg_expr *v = ch == 1 ? fg_read_tensor(op, image)
                         : fg_read_element(op, image, fg_int(op, 0));
    r = fvar(op, v);
    gr = fvar(op, r);
    b = fvar(op, r);
  }
  linearize(op, r);
  linearize(op, gr);
  linearize(op, b);
  fg_expr *s = fg_mulf(fg_float3(r, gr, b), 100.0f);
  fg_expr *x = fvar(op, fg_divf(fg_dot(s, fg_float3(fg_float(op, 0.4124f),
      fg_float(op, 0.3576f), fg_float(op, 0.1805f))), 95.047f));
  fg_expr *y = fvar(op, fg_divf(fg_dot(s, fg_float3(fg_float(op, 0.2126f),
      fg_float(op, 0.7152f), fg_float(op, 0.0722f))), 100.0f));
  fg_expr *z = fvar(op, fg_divf(fg_dot(s, fg_float3(fg_float(op, 0.0193f),
      fg_float(op, 0.1192f), fg_float(op, 0.9505f))), 108.883f));
  lab_f(op, x);
  lab_f(op, y);
  lab_f(op, z);
  fg_write_tensor(op, 0, fg_float3(fg_subf(fg_mulf(y, 116.0f), 16.0f),
                                   fg_mulf(fg_sub(x, y), 500.0f),
                                   fg_mulf(fg_sub(y, z), 200.0f)));
  return fg_op_end(op);
}

fg_field *fgt_grey(fg_graph *g, fg_field *image) {
  fg_type t = fg_field_type(image);
  int ch = fg_type_tensor_elements(t);
  if (image && (t.elem != FG_F32 || ch > 4)) {
    fg_graph_set_error(g, FG_ETYPE, "grey: expected an f32 image with 1-4 "
                       "channels, '%s' is %s with %d", fg_field_name(image),
                       fg_elem_name(t.elem), ch);
    return NULL;
  }
  fg_type out = fg_type_scalar(FG_F32, t.field);
  fg_op *op = fg_op_begin(g, "grey", 1, &out);
  fg_expr *px = fg_read_tensor(op, image);
  fg_expr *y;
  if (ch >= 3)    /* Rec. 709 luma of the (gamma-encoded) channels */
    y = fg_dot(fg_swizzle(px, "xyz"), fg_float3(fg_float(op, 0.2126f),
               fg_float(op, 0.7152f), fg_float(op, 0.0722f)));
  else
    y = ch == 1 ? px : fg_swizzle(px, "x");
  fg_write_tensor(op, 0, y);
  return fg_op_end(op);
}

fg_field *fgt_rgba(fg_graph *g, fg_field *image) {
  fg_type t = fg_field_type(image);
  int ch = fg_type_tensor_elements(t);
  if (image && (t.elem != FG_F32 || ch > 4)) {
    fg_graph_set_error(g, FG_ETYPE, "rgba: expected an f32 image with 1-4 "
                       "channels, '%s' is %s with %d", fg_field_name(image),
                       fg_elem_name(t.elem), ch);
    return NULL;
  }
  fg_type out = fg_type_vector(FG_F32, t.field, 4);
  fg_op *op = fg_op_begin(g, "rgba", 1, &out);
  fg_expr *px = fg_read_tensor(op, image), *one = fg_float(op, 1.0f), *v;
  if (ch == 4)
    v = px;
  else if (ch == 3)
    v = fg_float4(px, one);
  else if (ch == 2)
    v = fg_float4(fg_swizzle(px, "xxx"), fg_swizzle(px, "y"));
  else
    v = fg_float4(px, px, px, one);
  fg_write_tensor(op, 0, v);
  return fg_op_end(op);
}

fg_field *fgt_to_unit(fg_graph *g, fg_field *image) {
  fg_type t = fg_field_type(image);
  int n = fg_type_tensor_elements(t);
  t.elem = FG_F32;
  fg_op *op = fg_op_begin(g, "to_unit", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_convert(fg_read_tensor(op, image),
                                            FG_F32, n), 1.0f / 255.0f));
  return fg_op_end(op);
}

fg_field *fgt_to_u8(fg_graph *g, fg_field *image) {
  fg_type t = fg_field_type(image);
  int n = fg_type_tensor_elements(t);
  if (image && t.elem != FG_F32 && t.elem != FG_F64) {
    fg_graph_set_error(g, FG_ETYPE, "to_u8: expected a float image in "
                       "[0, 1], '%s' is %s", fg_field_name(image),
                       fg_elem_name(t.elem));
    return NULL;
  }
  t.elem = FG_U8;
  fg_op *op = fg_op_begin(g, "to_u8", 1, &t);
  fg_write_tensor(op, 0, fg_convert_sat(fg_mulf(fg_read_tensor(op, image),
                                                255.0f), FG_U8, n));
  return fg_op_end(op);
}

fg_expr *fgt_sat_u8(fg_expr *e) {
  return fg_convert_sat(e, FG_U8, fg_expr_width(e));
}

fg_expr *fgt_to_f32(fg_expr *e) {
  return fg_convert(e, FG_F32, fg_expr_width(e));
}
