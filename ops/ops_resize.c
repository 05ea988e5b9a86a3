/* ops/ops_resize.c - resampling operators of the operator library:
 * resize (nearest, bilinear, bicubic, area), halving and doubling.  One
 * operator each, one thread per output pixel, reading the input at
 * explicit, clamped coordinates.  Float steps are separate statements so
 * no backend contracts them into fused multiply-adds. */
#include "ops_impl.h"

static fg_type with_size(fg_type t, int64_t rows, int64_t cols) {
  t.field.dim[t.field.ndim - 2] = rows;
  t.field.dim[t.field.ndim - 1] = cols;
  return t;
}

/* The source coordinate of this thread's pixel centre along one axis:
 * (i + 0.5) * scale - 0.5, as a float variable. */
static fg_expr *centre(fg_op *op, fg_expr *i, fg_expr *scale, fg_elem ae) {
  fg_expr *s = fg_var(op, ae, 1);
  fg_assign(s, fg_add(fg_convert(i, ae, 1), fgo_flit(op, ae, 0.5)));
  fg_assign(s, fg_mul(s, scale));
  fg_assign(s, fg_sub(s, fgo_flit(op, ae, 0.5)));
  return s;
}

/* Splits a float coordinate s into an int variable floor(s) (*i) and s's
 * fraction (returned; s is overwritten). */
static fg_expr *split(fg_op *op, fg_expr *s, fg_expr **i, fg_elem ae) {
  fg_expr *f = fg_var(op, ae, 1);
  fg_assign(f, fg_floor(s));
  *i = fg_var(op, FG_I32, 1);
  fg_assign(*i, fg_convert(f, FG_I32, 1));
  fg_assign(s, fg_sub(s, f));
  return s;
}

/* acc += v * w, the product in a variable. */
static void madd(fg_op *op, fg_expr *acc, fg_expr *v, fg_expr *w, fg_elem ae) {
  fg_expr *p = fg_var(op, ae, fg_expr_width(acc));
  fg_assign(p, fg_mul(v, w));
  fg_assign(acc, fg_add(acc, p));
}

/* Keys' cubic weights for fraction t with parameter a, as variables. */
static void cubic_weights(fg_op *op, fg_expr *t, double a, fg_elem ae,
                          fg_expr *w[4]) {
  for (int k = 0; k < 4; k++)
    w[k] = fg_var(op, ae, 1);
  fg_expr *u = fg_var(op, ae, 1);
  /* w0 = ((a (t+1) - 5a)(t+1) + 8a)(t+1) - 4a */
  fg_assign(u, fg_add(t, fgo_flit(op, ae, 1)));
  fg_assign(w[0], fg_mul(u, fgo_flit(op, ae, a)));
  fg_assign(w[0], fg_sub(w[0], fgo_flit(op, ae, 5 * a)));
  fg_assign(w[0], fg_mul(w[0], u));
  fg_assign(w[0], fg_add(w[0], fgo_flit(op, ae, 8 * a)));
  fg_assign(w[0], fg_mul(w[0], u));
  fg_assign(w[0], fg_sub(w[0], fgo_flit(op, ae, 4 * a)));
  /* w1 = ((a+2) t - (a+3)) t t + 1, w2 the same at 1 - t */
  for (int k = 1; k <= 2; k++) {
    fg_expr *x = k == 1 ? t : u;
    if (k == 2)
      fg_assign(u, fg_sub(fgo_flit(op, ae, 1), t));
    fg_assign(w[k], fg_mul(x, fgo_flit(op, ae, a + 2)));
    fg_assign(w[k], fg_sub(w[k], fgo_flit(op, ae, a + 3)));
    fg_assign(w[k], fg_mul(w[k], x));
    fg_assign(w[k], fg_mul(w[k], x));
    fg_assign(w[k], fg_add(w[k], fgo_flit(op, ae, 1)));
  }
  fg_assign(w[3], fg_sub(fgo_flit(op, ae, 1), w[0]));
  fg_assign(w[3], fg_sub(w[3], w[1]));
  fg_assign(w[3], fg_sub(w[3], w[2]));
}

/* Bilinear or bicubic sample of in at this thread's mapped centre. */
static fg_expr *interpolate(fg_op *op, fg_field *in, fg_expr *sy_scale,
                            fg_expr *sx_scale, bool cubic, fg_elem ae, int n) {
  fg_expr *iy, *ix;
  fg_expr *fy = split(op, centre(op, fg_row(op), sy_scale, ae), &iy, ae);
  fg_expr *fx = split(op, centre(op, fg_column(op), sx_scale, ae), &ix, ae);
  fg_expr *acc = fg_var(op, ae, n);
  fg_expr *row = fg_var(op, ae, n);
  if (!cubic) {
    fg_expr *wx[2] = {fg_var(op, ae, 1), fx}, *wy[2] = {fg_var(op, ae, 1), fy};
    fg_assign(wx[0], fg_sub(fgo_flit(op, ae, 1), fx));
    fg_assign(wy[0], fg_sub(fgo_flit(op, ae, 1), fy));
    for (int r = 0; r < 2; r++) {
      fg_assign(row, fg_convert(fgo_flit(op, ae, 0), ae, n));
      for (int c = 0; c < 2; c++)
        madd(op, row,
             fgo_to_acc(
                 fgo_read(op, in, fg_addi(iy, r), fg_addi(ix, c)), ae),
             wx[c], ae);
      madd(op, acc, row, wy[r], ae);
    }
    return acc;
  }
  fg_expr *wx[4], *wy[4];
  cubic_weights(op, fx, -0.75, ae, wx);
  cubic_weights(op, fy, -0.75, ae, wy);
  for (int r = 0; r < 4; r++) {
    fg_assign(row, fg_convert(fgo_flit(op, ae, 0), ae, n));
    for (int c = 0; c < 4; c++)
      madd(
          op, row,
          fgo_to_acc(
              fgo_read(op, in, fg_addi(iy, r - 1), fg_addi(ix, c - 1)), ae),
          wx[c], ae);
    madd(op, acc, row, wy[r], ae);
  }
  return acc;
}

/* Area average of a shrink by (sy, sx) >= 1: the input cells the output
 * pixel covers, partial ones weighted by their overlap; norm is
 * 1 / (sy sx).  Where both factors are whole numbers (f[0], f[1] > 0),
 * every cell is whole and its weight 1: the loops then run a constant
 * f[k] times from pos * f[k] (counted loops clang unrolls, the column loop
 * no longer waiting on a float comparison per cell), with the same
 * products and sums in the same order, so the bits are the general
 * loop's. */
static fg_expr *area(fg_op *op, fg_field *in, fg_expr *sy, fg_expr *sx,
                     fg_expr *norm, fg_elem ae, int n, const int f[2]) {
  fg_expr *acc = fg_var(op, ae, n), *racc = fg_var(op, ae, n);
  fg_expr *lo[2], *hi[2], *i[2], *w[2];
  fg_expr *pos[2] = {fg_row(op), fg_column(op)};
  fg_expr *s[2] = {sy, sx};
  if (f[0] > 0 && f[1] > 0) {
    fg_expr *at[2];
    for (int k = 0; k < 2; k++) {
      i[k] = fg_var(op, FG_I32, 1);
      fg_for(i[k], fg_int(op, 0), fg_lt(i[k], fg_int(op, f[k])),
             fg_int(op, 1));
      at[k] = fg_add(fg_muli(pos[k], f[k]), i[k]);
      if (k == 0)
        fg_assign(racc, fg_convert(fgo_flit(op, ae, 0), ae, n));
    }
    madd(op, racc, fgo_to_acc(fgo_read(op, in, at[0], at[1]), ae),
         fgo_flit(op, ae, 1), ae);
    fg_end(op);
    madd(op, acc, racc, fgo_flit(op, ae, 1), ae);
    fg_end(op);
    return fg_mul(acc, norm);
  }
  for (int k = 0; k < 2; k++) {
    lo[k] = fg_var(op, ae, 1);
    hi[k] = fg_var(op, ae, 1);
    fg_assign(lo[k], fg_mul(fg_convert(pos[k], ae, 1), s[k]));
    fg_assign(hi[k], fg_mul(fg_convert(fg_addi(pos[k], 1), ae, 1), s[k]));
    i[k] = fg_var(op, FG_I32, 1);
    w[k] = fg_var(op, ae, 1);
  }
  for (int k = 0; k < 2; k++) {
    fg_for(i[k], fg_convert(fg_floor(lo[k]), FG_I32, 1),
           fg_lt(fg_convert(i[k], ae, 1), hi[k]), fg_int(op, 1));
    fg_expr *fi = fg_convert(i[k], ae, 1);
    fg_assign(w[k], fg_sub(fg_min(fg_add(fi, fgo_flit(op, ae, 1)), hi[k]),
                           fg_max(fi, lo[k])));
    if (k == 0)
      fg_assign(racc, fg_convert(fgo_flit(op, ae, 0), ae, n));
  }
  madd(op, racc, fgo_to_acc(fgo_read(op, in, i[0], i[1]), ae), w[1],
       ae);
  fg_end(op);
  madd(op, acc, racc, w[0], ae);
  fg_end(op);
  return fg_mul(acc, norm);
}

fg_field *fg_resize(fg_graph *g, fg_field *in, int64_t rows, int64_t cols,
                    fg_interp interp) {
  if (!fgo_image(g, "resize", in))
    return NULL;
  if (rows < 1 || cols < 1 || (unsigned)interp > FG_INTERP_AREA) {
    fg_graph_set_error(g, FG_EINVAL,
                       "resize: output %lld x %lld with "
                       "interpolation %d; expected at least 1 x 1 and an "
                       "fg_interp",
                       (long long)rows, (long long)cols, (int)interp);
    return NULL;
  }
  int64_t h = fgo_rows(in), w = fgo_cols(in);
  fg_type t = with_size(fg_field_type(in), rows, cols);
  int n = fg_type_tensor_elements(t);
  fg_elem ae = fgo_acc(t.elem);
  double sy = (double)h / rows, sx = (double)w / cols;
  bool shrink = interp == FG_INTERP_AREA && sy >= 1 && sx >= 1;
  /* the scale factors (and the area's 1 / (sy sx)) depend on the sizes:
   * a constant field the kernel reads, so its source serves every size
   * (computed here, in double, as the literals were: the same bits); an
   * area shrink by whole factors has its factors in the source, so it
   * serves every size shrunk by them */
  fg_field *scale = NULL;
  if (interp != FG_INTERP_NEAREST) {
    double v[3] = {sy, sx, 1.0 / (sy * sx)};
    if (!(scale = fgo_uniform(g, "resize.scale", ae, shrink ? 3 : 2, v)))
      return NULL;
  }
  fg_op *op = fg_op_begin(g, "resize", 1, &t);
  if (interp == FG_INTERP_NEAREST) {
    /* floor(i * in / out), exactly, in 64-bit integers */
    fg_expr *r =
        fg_div(fg_mul(fg_convert(fg_row(op), FG_I64, 1),
                      fg_convert(fgo_rows_x(op, in), FG_I64, 1)),
               fg_convert(fg_rows(op), FG_I64, 1));
    fg_expr *c =
        fg_div(fg_mul(fg_convert(fg_column(op), FG_I64, 1),
                      fg_convert(fgo_cols_x(op, in), FG_I64, 1)),
               fg_convert(fg_columns(op), FG_I64, 1));
    /* each coordinate a variable: the column's is then a statement of
     * the column alone, which the C dialect computes once per column
     * (emit/coltab.c) */
    fg_expr *rv = fg_var(op, FG_I32, 1), *cv = fg_var(op, FG_I32, 1);
    fg_assign(rv, fg_convert(r, FG_I32, 1));
    fg_assign(cv, fg_convert(c, FG_I32, 1));
    fg_write_tensor(op, 0, fgo_read(op, in, rv, cv));
    return fg_op_end(op);
  }
  fg_expr *v, *sv = fg_var(op, ae, shrink ? 3 : 2);
  fg_assign(sv, fg_read_tensor(op, scale));
  fg_expr *syx = fg_swizzle(sv, "x"), *sxx = fg_swizzle(sv, "y");
  /* whole factors, up to 16 (beyond, unrolled cells grow the kernel more
   * than they save), on fields whose coordinates floats hold exactly */
  int whole[2] = {0, 0};
  if (shrink && h % rows == 0 && w % cols == 0 && h / rows <= 16 &&
      w / cols <= 16 && h < (1 << 24) && w < (1 << 24)) {
    whole[0] = (int)(h / rows);
    whole[1] = (int)(w / cols);
  }
  if (shrink)
    v = area(op, in, syx, sxx, fg_swizzle(sv, "z"), ae, n, whole);
  else
    v = interpolate(op, in, syx, sxx, interp == FG_INTERP_BICUBIC, ae, n);
  fg_write_tensor(op, 0, fgo_from_acc(v, t.elem));
  return fg_op_end(op);
}

fg_field *fg_downsample2(fg_graph *g, fg_field *in) {
  if (!fgo_image(g, "downsample2", in))
    return NULL;
  fg_type t = with_size(fg_field_type(in), (fgo_rows(in) + 1) / 2,
                        (fgo_cols(in) + 1) / 2);
  int n = fg_type_tensor_elements(t);
  fg_elem ae = fgo_acc(t.elem);
  fg_op *op = fg_op_begin(g, "downsample2", 1, &t);
  fg_expr *acc = fg_var(op, ae, n);
  fg_expr *r = fg_muli(fg_row(op), 2), *c = fg_muli(fg_column(op), 2);
  for (int k = 0; k < 4; k++)
    fg_assign(acc,
              fg_add(acc, fgo_to_acc(fgo_read(op, in, fg_addi(r, k / 2),
                                                      fg_addi(c, k % 2)),
                                         ae)));
  fg_write_tensor(
      op, 0, fgo_from_acc(fg_mul(acc, fgo_flit(op, ae, 0.25)), t.elem));
  return fg_op_end(op);
}

fg_field *fg_upsample2(fg_graph *g, fg_field *in) {
  if (!fgo_image(g, "upsample2", in))
    return NULL;
  return fg_resize(g, in, 2 * fgo_rows(in), 2 * fgo_cols(in),
                   FG_INTERP_BILINEAR);
}
