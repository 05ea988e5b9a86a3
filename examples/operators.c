/* examples/operators.c - Cog's GPUOperator examples (half, halfDouble,
 * square, upsideDown; RGBtoCIELAB through the operator library) and the
 * conversions the example pipeline needs, each a direct transcription of
 * the reference's Scala into fieldgraph's C DSL. */
#include "operators.h"

fg_field *ex_half(fg_graph *g, fg_field *in) {
  fg_op *op = fg_op_begin(g, "half", 1, (fg_type[]){fg_field_type(in)});
  fg_write_tensor(op, 0, fg_divf(fg_read_tensor(op, in), 2.0f));
  return fg_op_end(op);
}

void ex_half_double(fg_graph *g, fg_field *in, fg_field **half,
                    fg_field **twice) {
  fg_type t = fg_field_type(in);
  fg_op *op = fg_op_begin(g, "halfDouble", 2, (fg_type[]){t, t});
  fg_expr *v = fg_tensor_var(op, in);
  fg_assign(v, fg_read_tensor(op, in));
  fg_write_tensor(op, 0, fg_divf(v, 2.0f));
  fg_write_tensor(op, 1, fg_mulf(v, 2.0f));
  *half = fg_op_end(op);
  *twice = fg_op_output(op, 1);
}

fg_field *ex_square(fg_graph *g, fg_field *v) {
  fg_type t = fg_field_type(v);
  fg_op *op = fg_op_begin(g, "square", 1, &t);
  if (fg_type_is_big(t)) {
    /* big tensor kernel */
    fg_for_each_tensor_element(op, t.tensor);
    fg_expr *element = fg_tensor_element_var(op, v);
    fg_assign(element, fg_read_element(op, v, fg_tensor_element(op)));
    fg_write_element(op, 0, fg_mul(element, element), fg_tensor_element(op));
    fg_end(op);
  } else {
    /* small tensor kernel */
    fg_expr *tensor = fg_tensor_var(op, v);
    fg_assign(tensor, fg_read_tensor(op, v));
    fg_write_tensor(op, 0, fg_mul(tensor, tensor));
  }
  return fg_op_end(op);
}

fg_field *ex_upside_down(fg_graph *g, fg_field *field) {
  fg_type t = fg_field_type(field);
  /* semantic check before defining the operator, as Cog's require() */
  if (field && t.field.ndim != 2) {
    fg_graph_set_error(g, FG_ESHAPE, "upsideDown: requires a 2D field, "
                       "'%s' has %d dimensions", fg_field_name(field),
                       t.field.ndim);
    return NULL;
  }
  fg_op *op = fg_op_begin(g, "upsideDown", 1, &t);
  fg_expr *read_row = fg_subi(fg_sub(fg_rows(op), fg_row(op)), 1);
  fg_expr *read_column = fg_column(op);
  fg_expr *x = fg_read_tensor_at(op, field, 2, read_row, read_column);
  fg_write_tensor(op, 0, x);
  return fg_op_end(op);
}

/* RGBtoCIELAB now lives in the operator library (ops/ops_colour.c), where
 * pixelRGBtoXYZ and pixelXYZtoCIELAB are written exactly as the reference
 * writes them; the example calls it. */
fg_field *ex_rgb_to_cielab(fg_graph *g, fg_field *image) {
  return fg_srgb_to_lab(g, image);
}

fg_field *ex_to_unit_float(fg_graph *g, fg_field *img) {
  fg_type t = fg_field_type(img);
  int n = fg_type_tensor_elements(t);
  t.elem = FG_F32;
  fg_op *op = fg_op_begin(g, "toUnitFloat", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_convert(fg_read_tensor(op, img), FG_F32,
                                            n), 1.0f / 255.0f));
  return fg_op_end(op);
}

fg_field *ex_to_u8(fg_graph *g, fg_field *img) {
  fg_type t = fg_field_type(img);
  int n = fg_type_tensor_elements(t);
  t.elem = FG_U8;
  fg_op *op = fg_op_begin(g, "toU8", 1, &t);
  fg_write_tensor(op, 0, fg_convert_sat(fg_mulf(fg_read_tensor(op, img),
                                                255.0f), FG_U8, n));
  return fg_op_end(op);
}

fg_field *ex_lightness_u8(fg_graph *g, fg_field *lab) {
  fg_type t = fg_type_scalar(FG_U8, fg_field_type(lab).field);
  fg_op *op = fg_op_begin(g, "lightness", 1, &t);
  fg_expr *L = fg_swizzle(fg_read_tensor(op, lab), "x");
  fg_write_tensor(op, 0, fg_convert_sat(fg_mulf(L, 2.55f), FG_U8, 1));
  return fg_op_end(op);
}

/* tile: a GPU function reading a work-group's tile of field into local
 * memory, every thread copying its own tensor, then a barrier. */
static fg_expr *tile(fg_op *op, fg_field *field) {
  fg_expr *memory = fg_local(fg_tensor_array(
      op, field, 2, fg_op_local_extent(op, FG_ROWS),
      fg_op_local_extent(op, FG_COLUMNS)));
  fg_assign(fg_at(memory, 2, fg_local_row(op), fg_local_column(op)),
            fg_read_tensor_at(op, field, 2, fg_row(op), fg_column(op)));
  fg_sync_threads_global(op);
  return memory;
}

fg_field *ex_identity_transform(fg_graph *g, fg_field *field, int rows,
                                int columns) {
  fg_type t = fg_field_type(field);
  fg_op *op = fg_op_begin(g, "identityTransform", 1, &t);
  if (rows > 0)
    fg_local_threads(op, fg_shape2(rows, columns));
  fg_expr *input_tile = tile(op, field);
  fg_expr *local_row = fg_sub(fg_row(op), fg_mul(fg_group_row(op),
                                                 fg_local_rows(op)));
  fg_expr *local_column = fg_sub(fg_column(op), fg_mul(fg_group_column(op),
                                                       fg_local_columns(op)));
  fg_write_tensor(op, 0, fg_at(input_tile, 2, local_row, local_column));
  return fg_op_end(op);
}

fg_field *ex_group_tickets(fg_graph *g, fg_shape shape, int rows,
                           int columns) {
  fg_type t = fg_type_scalar(FG_I32, shape);
  fg_op *op = fg_op_begin(g, "groupTickets", 1, &t);
  fg_local_threads(op, fg_shape2(rows, columns));
  fg_expr *counter = fg_volatile(fg_local(fg_var(op, FG_I32, 1)));
  fg_expr *ticket = fg_var(op, FG_I32, 1);
  fg_assign(ticket, fg_atomic_inc(fg_pointer_to(counter)));
  fg_sync_threads_local(op);
  fg_write_tensor(op, 0, fg_add(fg_muli(counter, 1000), ticket));
  return fg_op_end(op);
}
