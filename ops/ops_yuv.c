/* ops/ops_yuv.c - YUV 4:2:0 frames to RGBA: the Toolkit's YuvToRgb
 * intrinsic (its integer BT.601 video-range formula) over NV21, NV12, YV12
 * (Android's strides, V before U) and I420.  Pointwise in the RGBA output;
 * the frame is read at computed offsets (non-local). */
#include "ops_impl.h"

static int64_t align16(int64_t v) { return (v + 15) & ~(int64_t)15; }

/* Offsets of the format's planes and strides; false for a bad format. */
typedef struct yuv_layout {
  int64_t y_stride, c_stride, u_off, v_off, c_step, bytes;
} yuv_layout;

static bool layout(fg_yuv_format f, int64_t w, int64_t h, yuv_layout *l) {
  if (w < 2 || h < 2 || w % 2 || h % 2 || w > FG_MAX_DIM_EXTENT ||
      h > FG_MAX_DIM_EXTENT)
    return false;
  switch (f) {
  case FG_YUV_NV21:
  case FG_YUV_NV12:
    l->y_stride = l->c_stride = w;
    l->c_step = 2;
    l->v_off = w * h + (f == FG_YUV_NV21 ? 0 : 1);
    l->u_off = w * h + (f == FG_YUV_NV21 ? 1 : 0);
    l->bytes = w * h + w * h / 2;
    return true;
  case FG_YUV_YV12:
    l->y_stride = align16(w);
    l->c_stride = align16(l->y_stride / 2);
    l->c_step = 1;
    l->v_off = l->y_stride * h;
    l->u_off = l->v_off + l->c_stride * (h / 2);
    l->bytes = l->u_off + l->c_stride * (h / 2);
    return true;
  case FG_YUV_I420:
    l->y_stride = w;
    l->c_stride = w / 2;
    l->c_step = 1;
    l->u_off = w * h;
    l->v_off = l->u_off + (w / 2) * (h / 2);
    l->bytes = l->v_off + (w / 2) * (h / 2);
    return true;
  default:
    return false;
  }
}

int64_t fg_yuv_frame_bytes(fg_yuv_format format, int64_t width,
                           int64_t height) {
  yuv_layout l;
  return layout(format, width, height, &l) ? l.bytes : 0;
}

fg_field *fg_intrinsic_yuv_to_rgb(fg_graph *g, fg_field *yuv,
                                  fg_yuv_format format, int64_t width,
                                  int64_t height) {
  const char *name = "intrinsic_yuv_to_rgb";
  if (!fgo_fields_ok(g, name, 1, &yuv))
    return NULL;
  yuv_layout l;
  if (!layout(format, width, height, &l))
    return fgo_fail(g, FG_EINVAL, name, "format %d at %lld x %lld: expected "
                    "an fg_yuv_format and an even width and height",
                    (int)format, (long long)width, (long long)height);
  fg_type t = fg_field_type(yuv);
  if (t.elem != FG_U8 || t.field.ndim != 1 ||
      fg_type_tensor_elements(t) != 1 || t.field.dim[0] != l.bytes ||
      l.bytes > INT32_MAX) {
    char ts[FG_TYPE_STR_MAX];
    return fgo_fail(g, FG_ESHAPE, name, "frame '%s' is %s; expected u8[%lld]"
                    " for a %lld x %lld frame", fg_field_label(yuv),
                    fg_type_str(t, ts, sizeof ts), (long long)l.bytes,
                    (long long)width, (long long)height);
  }
  fg_type out = fg_type_vector(FG_U8, fg_shape2(height, width), 4);
  fg_op *op = fg_op_begin(g, name, 1, &out);
  fg_expr *x = fg_column(op), *y = fg_row(op);
  fg_expr *cx = fg_shr(x, fg_int(op, 1)), *cy = fg_shr(y, fg_int(op, 1));
  /* layout()'s strides and offsets from the thread shape (width x
   * height) when the kernel runs, so one build serves every frame size;
   * expressions of the row and the extents, not variables, so that a
   * read's index is such a base plus the column (emit/stencil.c's
   * fge_based: unclamped, affine in the column within a row) */
  fg_expr *w = fg_columns(op), *h = fg_rows(op);
  fg_expr *ys, *cs, *uo, *vo;
  if (format == FG_YUV_YV12) {
    ys = fg_band(fg_addi(w, 15), fg_int(op, ~15));
    cs = fg_band(fg_addi(fg_shr(ys, fg_int(op, 1)), 15), fg_int(op, ~15));
    vo = fg_mul(ys, h);
    uo = fg_add(vo, fg_mul(cs, fg_shr(h, fg_int(op, 1))));
  } else if (format == FG_YUV_I420) {
    ys = w;
    cs = fg_shr(w, fg_int(op, 1));
    uo = fg_mul(w, h);
    vo = fg_add(uo, fg_mul(cs, fg_shr(h, fg_int(op, 1))));
  } else {
    ys = w;
    cs = w;
    vo = fg_addi(fg_mul(w, h), format == FG_YUV_NV21 ? 0 : 1);
    uo = fg_addi(fg_mul(w, h), format == FG_YUV_NV21 ? 1 : 0);
  }
  /* the chroma pair's column, cx * c_step: (_column >> 1) * 2 for the
   * interleaved formats */
  fg_expr *ccol = fg_muli(cx, (int32_t)l.c_step);
  fg_expr *crow = fg_mul(cy, cs);
  fg_expr *yy = fg_var(op, FG_I32, 1), *u = fg_var(op, FG_I32, 1),
          *v = fg_var(op, FG_I32, 1);
  fg_assign(yy, fg_subi(fg_convert(fg_read_tensor_at(
      op, yuv, 1, fg_add(fg_mul(y, ys), x)), FG_I32, 1),
      16));
  fg_assign(u, fg_subi(fg_convert(fg_read_tensor_at(
      op, yuv, 1, fg_add(fg_add(crow, uo), ccol)), FG_I32, 1), 128));
  fg_assign(v, fg_subi(fg_convert(fg_read_tensor_at(
      op, yuv, 1, fg_add(fg_add(crow, vo), ccol)), FG_I32, 1), 128));
  fg_expr *y298 = fg_var(op, FG_I32, 1);
  fg_assign(y298, fg_addi(fg_muli(yy, 298), 128));
  fg_expr *r = fg_add(y298, fg_muli(v, 409));
  fg_expr *gr = fg_sub(fg_sub(y298, fg_muli(u, 100)), fg_muli(v, 208));
  fg_expr *b = fg_add(y298, fg_muli(u, 516));
  fg_expr *rgb = fg_shr(fg_int3(r, gr, b), fg_int(op, 8));
  rgb = fg_clamp(rgb, fg_int(op, 0), fg_int(op, 255));
  fg_write_tensor(op, 0, fg_convert(fg_vector(FG_I32, 4, 2, rgb,
                                              fg_int(op, 255)), FG_U8, 4));
  return fg_op_end(op);
}
