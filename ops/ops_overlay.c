/* ops/ops_overlay.c - fg_overlay: one image composited over another at an
 * offset, through the top image's alpha (straight, not premultiplied, as
 * image files hold it), Porter and Duff's "over" as vips_composite does
 * it: alpha (when the base has one) = a + base_a (1 - a), colour = (top a
 * + base base_a (1 - a)) / alpha (top a + base (1 - a) over an opaque
 * base).  Built on the public builder API only. */
#include "ops_impl.h"

/* The largest value of an integer element type as a float (what alpha 1
 * is); 1 for floats. */
static double opaque(fg_elem e) {
  switch (e) {
  case FG_U8: return 255;
  case FG_I8: return 127;
  case FG_U16: return 65535;
  case FG_I16: return 32767;
  case FG_U32: return 4294967295.0;
  case FG_I32: return 2147483647.0;
  default: return 1;
  }
}

/* Colour channels of an image of n channels: grey+alpha and RGBA carry
 * alpha last. */
static int colours(int n) { return n == 2 || n == 4 ? n - 1 : n; }

fg_field *fg_overlay(fg_graph *g, fg_field *base, fg_field *top, int64_t x,
                     int64_t y) {
  if (!fgo_image(g, "overlay", base) || !fgo_image(g, "overlay", top))
    return NULL;
  fg_type bt = fg_field_type(base), tt = fg_field_type(top);
  int bn = fg_type_tensor_elements(bt), tn = fg_type_tensor_elements(tt);
  char a[FG_TYPE_STR_MAX], b[FG_TYPE_STR_MAX];
  if (bt.elem != tt.elem || colours(bn) != colours(tn) ||
      bt.field.ndim != 2 || tt.field.ndim != 2)
    return fgo_fail(g, FG_ETYPE, "overlay", "base '%s' is %s and top '%s' "
                    "is %s; expected 2-D images of one element type and "
                    "as many colour channels (either may carry alpha)",
                    fg_field_label(base), fg_type_str(bt, a, sizeof a),
                    fg_field_label(top), fg_type_str(tt, b, sizeof b));
  if (x < -FG_MAX_DIM_EXTENT || x > FG_MAX_DIM_EXTENT ||
      y < -FG_MAX_DIM_EXTENT || y > FG_MAX_DIM_EXTENT)
    return fgo_fail(g, FG_EINVAL, "overlay", "position (%lld, %lld) out of "
                    "range", (long long)x, (long long)y);
  int cc = colours(bn);
  bool top_alpha = tn != cc, base_alpha = bn != cc;
  fg_elem acc = fgo_acc(bt.elem);
  double one = opaque(bt.elem);
  fg_op *op = fg_op_begin(g, "overlay", 1, &bt);
  fg_expr *r = fg_var(op, FG_I64, 1), *c = fg_var(op, FG_I64, 1);
  fg_assign(r, fg_sub(fg_convert(fg_row(op), FG_I64, 1),
                      fg_long(op, y)));
  fg_assign(c, fg_sub(fg_convert(fg_column(op), FG_I64, 1),
                      fg_long(op, x)));
  /* the base's channels as scalars, replaced where top covers them */
  fg_expr *bv[4], *base_px = fgo_to_acc(fg_read_tensor(op, base), acc);
  for (int k = 0; k < bn; k++) {
    bv[k] = fg_var(op, acc, 1);
    fg_assign(bv[k], fgo_comp(base_px, bn, k));
  }
  /* outside the top image its alpha is 0: the base as it was */
  fg_if(fg_land(fg_land(fg_ge(r, fg_long(op, 0)),
                        fg_lt(r, fg_convert(fgo_rows_x(op, top), FG_I64,
                                            1))),
                fg_land(fg_ge(c, fg_long(op, 0)),
                        fg_lt(c, fg_convert(fgo_cols_x(op, top), FG_I64,
                                            1)))));
  {
    fg_expr *tv = fg_var(op, acc, tn);
    fg_assign(tv, fgo_to_acc(fgo_read(op, top, fg_convert(r, FG_I32, 1),
                                      fg_convert(c, FG_I32, 1)),
                             acc));
    fg_expr *al = fg_var(op, acc, 1), *rest = fg_var(op, acc, 1);
    fg_assign(al, top_alpha ? fg_div(fgo_comp(tv, tn, tn - 1),
                                     fgo_flit(op, acc, one))
                            : fgo_flit(op, acc, 1));
    fg_assign(rest, fg_sub(fgo_flit(op, acc, 1), al));
    if (base_alpha) {
      /* the base shows through by its own alpha too: the colours weighted
       * by what each contributes, over the alpha they make together (a
       * transparent base's colour counts for nothing) */
      fg_expr *wb = fg_var(op, acc, 1), *oa = fg_var(op, acc, 1);
      fg_assign(wb, fg_mul(fg_div(bv[bn - 1], fgo_flit(op, acc, one)),
                           rest));
      fg_assign(oa, fg_add(al, wb));
      fg_expr *d = fg_fmax(oa, fgo_flit(op, acc, 1e-20));
      for (int k = 0; k < cc; k++)
        fg_assign(bv[k], fg_div(fg_add(fg_mul(fgo_comp(tv, tn, k), al),
                                       fg_mul(bv[k], wb)), d));
      fg_assign(bv[bn - 1], fg_mul(oa, fgo_flit(op, acc, one)));
    } else {
      for (int k = 0; k < cc; k++)
        fg_assign(bv[k], fg_add(fg_mul(fgo_comp(tv, tn, k), al),
                                fg_mul(bv[k], rest)));
    }
  }
  fg_end(op);
  fg_write_tensor(op, 0, fgo_from_acc(fgo_vec(acc, bn, bv), bt.elem));
  return fg_op_end(op);
}
