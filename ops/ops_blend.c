/* ops/ops_blend.c - the Toolkit's Blend intrinsic: the 15 Porter-Duff and
 * arithmetic modes on u8 RGBA in 32-bit integer arithmetic, shifting
 * products right by 8 exactly as its C++ does, with the restriction
 * rectangle (outside it the destination passes unchanged). */
#include "ops_impl.h"

static const char *const mode_names[FG_BLEND_MODE_COUNT_] = {
  "blend_clear", "blend_src", "blend_dst", "blend_src_over",
  "blend_dst_over", "blend_src_in", "blend_dst_in", "blend_src_out",
  "blend_dst_out", "blend_src_atop", "blend_dst_atop", "blend_xor",
  "blend_multiply", "blend_add", "blend_subtract"};

/* (a * b) >> 8 for int4 a and an int scalar or int4 b. */
static fg_expr *mul8(fg_expr *a, fg_expr *b) {
  return fg_shr(fg_mul(a, b), fg_int(fg_expr_op(a), 8));
}

/* 255 - x */
static fg_expr *inv(fg_expr *x) {
  return fg_sub(fg_int(fg_expr_op(x), 255), x);
}

/* The mode's result, an int4 in [0, 255], from int4 src s and dst d. */
static fg_expr *blend(fg_op *op, fg_blend_mode mode, fg_expr *s,
                      fg_expr *d) {
  fg_expr *max = fg_int(op, 255), *sw = fg_swizzle(s, "w"),
          *dw = fg_swizzle(d, "w");
  switch (mode) {
  case FG_BLEND_CLEAR: return fg_vector(FG_I32, 4, 1, fg_int(op, 0));
  case FG_BLEND_SRC: return s;
  case FG_BLEND_DST: return d;
  case FG_BLEND_SRC_OVER: return fg_min(fg_add(s, mul8(d, inv(sw))), max);
  case FG_BLEND_DST_OVER: return fg_min(fg_add(d, mul8(s, inv(dw))), max);
  case FG_BLEND_SRC_IN: return mul8(s, dw);
  case FG_BLEND_DST_IN: return mul8(d, sw);
  case FG_BLEND_SRC_OUT: return mul8(s, inv(dw));
  case FG_BLEND_DST_OUT: return mul8(d, inv(sw));
  case FG_BLEND_SRC_ATOP:
  case FG_BLEND_DST_ATOP: {
    bool src = mode == FG_BLEND_SRC_ATOP;
    fg_expr *a = src ? s : d, *b = src ? d : s;
    fg_expr *aw = src ? sw : dw, *bw = src ? dw : sw;
    /* both products summed, then shifted once (the C++) */
    fg_expr *rgb = fg_shr(fg_add(fg_mul(fg_swizzle(a, "xyz"), bw),
                                 fg_mul(fg_swizzle(b, "xyz"), inv(aw))),
                          fg_int(op, 8));
    return fg_vector(FG_I32, 4, 2, fg_min(rgb, max), bw);
  }
  case FG_BLEND_XOR: return fg_bxor(s, d);
  case FG_BLEND_MULTIPLY: return mul8(s, d);
  case FG_BLEND_ADD: return fg_min(fg_add(s, d), max);
  case FG_BLEND_SUBTRACT: return fg_max(fg_sub(d, s), fg_int(op, 0));
  default: return NULL;
  }
}

fg_field *fg_intrinsic_blend(fg_graph *g, fg_blend_mode mode, fg_field *src,
                             fg_field *dst, const fg_restriction *r) {
  fg_field *f[2] = {src, dst};
  if (!fgo_fields_ok(g, "intrinsic_blend", 2, f))
    return NULL;
  if ((unsigned)mode >= FG_BLEND_MODE_COUNT_)
    return fgo_fail(g, FG_EINVAL, "intrinsic_blend", "mode %d is not an "
                    "fg_blend_mode", (int)mode);
  const char *name = mode_names[mode];
  for (int i = 0; i < 2; i++) {
    fg_type t = fg_field_type(f[i]);
    if (t.elem != FG_U8 || fg_type_tensor_elements(t) != 4 ||
        t.tensor.ndim != 1 || t.field.ndim != 2) {
      char ts[FG_TYPE_STR_MAX];
      return fgo_fail(g, FG_ETYPE, name, "'%s' is %s; expected a 2-D u8 vec4 "
                      "(RGBA) field", fg_field_label(f[i]),
                      fg_type_str(t, ts, sizeof ts));
    }
  }
  if (!fg_shape_equal(fg_field_type(src).field, fg_field_type(dst).field))
    return fgo_fail(g, FG_ESHAPE, name, "source '%s' and destination '%s' "
                    "differ in size", fg_field_label(src), fg_field_label(dst));
  if (!fgo_restriction_ok(g, name, r, fg_field_type(dst).field))
    return NULL;
  fg_op *op = fg_op_begin(g, name, 1, (fg_type[]){fg_field_type(dst)});
  fg_expr *d = fg_var(op, FG_I32, 4), *s = fg_var(op, FG_I32, 4);
  fg_assign(d, fg_convert(fg_read_tensor(op, dst), FG_I32, 4));
  fg_expr *res = fg_var(op, FG_I32, 4);
  fg_assign(res, d);
  fg_expr *inside = fgo_inside(op, r);
  if (inside)
    fg_if(inside);
  fg_assign(s, fg_convert(fg_read_tensor(op, src), FG_I32, 4));
  fg_assign(res, blend(op, mode, s, d));
  if (inside)
    fg_end(op);
  fg_write_tensor(op, 0, fg_convert(res, FG_U8, 4));
  return fg_op_end(op);
}
