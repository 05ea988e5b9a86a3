/* ops/ops_filter.c - linear and rank filters of the operator library:
 * user-kernel correlation, separable Gaussian and box blurs, Sobel
 * derivatives and the 3x3 median.  Each is one or two operators of the
 * kernel IR whose neighbour reads are explicit reads at constant offsets
 * from the thread's own (row, column), so the emitter can split an
 * unclamped interior from a clamped border; border rules other than clamp
 * remap the coordinates first (ops/ops_nl_common.c).  Products are assigned
 * to variables before they are summed, so no backend contracts them into
 * fused multiply-adds and every backend gives the same bits. */
#include "ops_impl.h"

#include <math.h>
#include <stdlib.h>

static bool border_ok(fg_graph *g, const char *opname, fg_border b) {
  if ((unsigned)b <= FG_BORDER_CONSTANT)
    return true;
  fg_graph_set_error(g, FG_EINVAL,
                     "%s: border %d is not one of "
                     "FG_BORDER_CLAMP, _MIRROR, _REFLECT, _WRAP, _CONSTANT",
                     opname, (int)b);
  return false;
}

/* acc += weight * v, the product in a variable of its own. */
static void accumulate(fg_op *op, fg_expr *acc, fg_expr *v, fg_elem ae,
                       double weight) {
  fg_expr *p = fg_var(op, ae, fg_expr_width(acc));
  fg_assign(p, fg_mul(fgo_to_acc(v, ae), fgo_flit(op, ae, weight)));
  fg_assign(acc, fg_add(acc, p));
}

/* The tensor at offset (dr, dc) from this thread under border b. */
static fg_expr *tap(fg_op *op, fg_field *in, int dr, int dc, fg_border b) {
  return fgo_read_border(op, in, fg_addi(fg_row(op), dr),
                             fg_addi(fg_column(op), dc), (int)b, 0.0);
}

/* Whether e's values summed 129 at a time fit an int exactly. */
static bool small_int(fg_elem e) {
  return e == FG_U8 || e == FG_I8 || e == FG_U16 || e == FG_I16;
}

/* One operator: out(r, c) = sum of w[i] in(r + dr[i], c + dc[i]) over the
 * taps with nonzero weight, in order, converted to out_elem.  Grouped
 * (the separable blurs): the taps of equal weight are summed first, in
 * order, and each sum multiplied once, the groups in the order of their
 * first tap (a Gaussian's mirrored pair, a box's every tap); inputs of at
 * most 16 bits sum as int, exactly, and convert once. */
static fg_field *weighted(fg_graph *g, const char *name, fg_field *in,
                          int ntaps, const int *dr, const int *dc,
                          const double *w, fg_border b, fg_elem out_elem,
                          bool grouped) {
  fg_type t = fg_field_type(in);
  int n = fg_type_tensor_elements(t);
  fg_elem ae = fgo_acc(t.elem);
  fg_elem se = small_int(t.elem) ? FG_I32 : ae;
  fg_type ot = t;
  ot.elem = out_elem;
  fg_op *op = fg_op_begin(g, name, 1, &ot);
  fg_expr *acc = fg_var(op, ae, n);
  bool done[2 * 64 + 1] = {false};
  for (int i = 0; i < ntaps; i++) {
    if (w[i] == 0.0 || done[i])
      continue;
    if (!grouped || ntaps > 2 * 64 + 1) {
      accumulate(op, acc, tap(op, in, dr[i], dc[i], b), ae, w[i]);
      continue;
    }
    fg_expr *sum = fg_var(op, se, n);
    fg_assign(sum, fg_convert(tap(op, in, dr[i], dc[i], b), se, n));
    for (int j = i + 1; j < ntaps; j++)
      if (w[j] == w[i]) {
        fg_assign(sum, fg_add(sum, fg_convert(tap(op, in, dr[j], dc[j], b),
                                              se, n)));
        done[j] = true;
      }
    accumulate(op, acc, sum, ae, w[i]);
  }
  fg_write_tensor(op, 0, fgo_from_acc(acc, out_elem));
  return fg_op_end(op);
}

fg_field *fg_convolve(fg_graph *g, fg_field *in, int krows, int kcols,
                      const float *weights, fg_border border) {
  const char *name = "convolve";
  if (!fgo_image(g, name, in) || !border_ok(g, name, border))
    return NULL;
  if (krows < 1 || kcols < 1 || krows % 2 == 0 || kcols % 2 == 0 ||
      krows > 63 || kcols > 63 || !weights) {
    fg_graph_set_error(g, FG_EINVAL,
                       "convolve: kernel %d x %d%s; expected "
                       "odd sizes from 1 to 63 and weights",
                       krows, kcols, weights ? "" : " without weights");
    return NULL;
  }
  int nt = krows * kcols;
  int *dr = malloc(sizeof *dr * (size_t)nt),
      *dc = malloc(sizeof *dc * (size_t)nt);
  double *w = malloc(sizeof *w * (size_t)nt);
  fg_field *out = NULL;
  if (dr && dc && w) {
    for (int i = 0; i < nt; i++) {
      dr[i] = i / kcols - krows / 2;
      dc[i] = i % kcols - kcols / 2;
      w[i] = weights[i];
    }
    out = weighted(g, name, in, nt, dr, dc, w, border, fg_field_type(in).elem,
                   false);
  } else {
    fg_graph_set_error(g, FG_ENOMEM, "convolve: out of memory");
  }
  free(dr);
  free(dc);
  free(w);
  return out;
}

/* A separable filter: a horizontal pass of w[0..2r] into an f32 (f64)
 * field, then a vertical pass back to the input's element type; each pass
 * sums the taps of equal weight before it multiplies (weighted). */
static fg_field *separable(fg_graph *g, const char *hname, const char *vname,
                           fg_field *in, int r, const double *w, fg_border b) {
  int nt = 2 * r + 1;
  int dr[2 * 64 + 1], dc[2 * 64 + 1], zero[2 * 64 + 1] = {0};
  for (int i = 0; i < nt; i++)
    dr[i] = dc[i] = i - r;
  fg_elem e = fg_field_type(in).elem;
  fg_field *h = weighted(g, hname, in, nt, zero, dc, w, b, fgo_acc(e), true);
  return weighted(g, vname, h, nt, dr, zero, w, b, e, true);
}

fg_field *fg_gaussian_blur(fg_graph *g, fg_field *in, double sigma, int radius,
                           fg_border border) {
  const char *name = "gaussian_blur";
  if (!fgo_image(g, name, in) || !border_ok(g, name, border))
    return NULL;
  if (!(sigma >= 0) || radius < 0 || (sigma == 0 && radius == 0)) {
    fg_graph_set_error(g, FG_EINVAL,
                       "gaussian_blur: sigma %g and radius "
                       "%d; expected sigma > 0 or radius > 0",
                       sigma, radius);
    return NULL;
  }
  if (radius == 0) {
    /* 3 sigma, refused before it is an int (a huge or infinite sigma) */
    double want = ceil(3 * sigma);
    if (!(want <= 64)) {
      fg_graph_set_error(g, FG_EINVAL, "gaussian_blur: sigma %g needs a "
                         "radius of %g; at most 64", sigma, want);
      return NULL;
    }
    radius = (int)want;
  }
  if (sigma == 0)
    sigma = 0.3 * (radius - 1) + 0.8;
  if (radius > 64) {
    fg_graph_set_error(g, FG_EINVAL,
                       "gaussian_blur: radius %d (sigma %g); "
                       "at most 64",
                       radius, sigma);
    return NULL;
  }
  double w[2 * 64 + 1], sum = 0;
  for (int i = -radius; i <= radius; i++)
    sum += w[i + radius] = exp(-(double)i * i / (2 * sigma * sigma));
  for (int i = 0; i <= 2 * radius; i++)
    w[i] /= sum;
  return separable(g, "gaussian_blur.h", "gaussian_blur.v", in, radius, w,
                   border);
}

fg_field *fg_unsharp(fg_graph *g, fg_field *in, double sigma, double amount,
                     fg_border border) {
  const char *name = "unsharp";
  if (!fgo_image(g, name, in) || !border_ok(g, name, border))
    return NULL;
  if (!(sigma > 0 && sigma <= 21) || !(amount >= 0 && amount <= 100)) {
    fg_graph_set_error(g, FG_EINVAL, "unsharp: sigma %g and amount %g; "
                       "expected sigma in (0, 21] and amount in [0, 100]",
                       sigma, amount);
    return NULL;
  }
  fg_elem e = fg_field_type(in).elem;
  bool is_float = e == FG_F32 || e == FG_F64;
  fg_field *x = is_float ? in : fg_cast(g, in, FG_F32);
  fg_field *soft = fg_gaussian_blur(g, x, sigma, 0, border);
  fg_field *detail = fg_binary(g, FG_OP_SUB, x, soft);
  fg_field *out = fg_binary(g, FG_OP_ADD, x,
                            fg_binary_scalar(g, FG_OP_MUL, detail, amount));
  return is_float ? out : fg_cast_sat(g, out, e);
}

fg_field *fg_box_blur(fg_graph *g, fg_field *in, int radius, fg_border border) {
  const char *name = "box_blur";
  if (!fgo_image(g, name, in) || !border_ok(g, name, border))
    return NULL;
  if (radius < 0 || radius > 64) {
    fg_graph_set_error(g, FG_EINVAL,
                       "box_blur: radius %d; expected 0 to "
                       "64",
                       radius);
    return NULL;
  }
  double w[2 * 64 + 1];
  for (int i = 0; i <= 2 * radius; i++)
    w[i] = 1.0 / (2 * radius + 1);
  return separable(g, "box_blur.h", "box_blur.v", in, radius, w, border);
}

void fg_sobel(fg_graph *g, fg_field *in, fg_border border, fg_field **gx,
              fg_field **gy) {
  if (gx)
    *gx = NULL;
  if (gy)
    *gy = NULL;
  if (!fgo_image(g, "sobel", in) || !border_ok(g, "sobel", border))
    return;
  fg_type t = fg_field_type(in);
  int n = fg_type_tensor_elements(t);
  fg_elem ae = fgo_acc(t.elem);
  fg_type ot = t;
  ot.elem = ae;
  fg_op *op = fg_op_begin(g, "sobel", 2, (fg_type[]){ot, ot});
  static const double kx[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
  static const double ky[9] = {-1, -2, -1, 0, 0, 0, 1, 2, 1};
  fg_expr *p[9];
  for (int i = 0; i < 9; i++) {
    if (i == 4)
      continue;
    p[i] = fg_var(op, ae, n);
    fg_assign(p[i],
              fgo_to_acc(tap(op, in, i / 3 - 1, i % 3 - 1, border), ae));
  }
  fg_expr *ax = fg_var(op, ae, n), *ay = fg_var(op, ae, n);
  for (int i = 0; i < 9; i++) {
    if (kx[i] != 0)
      accumulate(op, ax, p[i], ae, kx[i]);
    if (ky[i] != 0)
      accumulate(op, ay, p[i], ae, ky[i]);
  }
  fg_write_tensor(op, 0, ax);
  fg_write_tensor(op, 1, ay);
  fg_field *x = fg_op_end(op);
  if (gx)
    *gx = x;
  if (gy)
    *gy = x ? fg_op_output(op, 1) : NULL;
}

fg_field *fg_median3x3(fg_graph *g, fg_field *in) {
  if (!fgo_image(g, "median3x3", in))
    return NULL;
  fg_type t = fg_field_type(in);
  int n = fg_type_tensor_elements(t);
  fg_op *op = fg_op_begin(g, "median3x3", 1, &t);
  fg_expr *p[9];
  for (int i = 0; i < 9; i++) {
    p[i] = fg_var(op, t.elem, n);
    fg_assign(p[i], tap(op, in, i / 3 - 1, i % 3 - 1, FG_BORDER_CLAMP));
  }
  /* Paeth's 19-exchange median-of-9 network, per channel */
  static const int net[19][2] = {{1, 2}, {4, 5}, {7, 8}, {0, 1}, {3, 4},
                                 {6, 7}, {1, 2}, {4, 5}, {7, 8}, {0, 3},
                                 {5, 8}, {4, 7}, {3, 6}, {1, 4}, {2, 5},
                                 {4, 7}, {4, 2}, {6, 4}, {4, 2}};
  fg_expr *tmp = fg_var(op, t.elem, n);
  for (int i = 0; i < 19; i++) {
    fg_expr *a = p[net[i][0]], *b = p[net[i][1]];
    fg_assign(tmp, fg_min(a, b));
    fg_assign(b, fg_max(a, b));
    fg_assign(a, tmp);
  }
  fg_write_tensor(op, 0, p[4]);
  return fg_op_end(op);
}
