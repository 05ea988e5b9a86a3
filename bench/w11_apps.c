/* bench/w11_apps.c - W11: three of Halide's own example applications
 * (apps/blur, apps/unsharp, apps/harris in Halide's source tree) written
 * as a fieldgraph user would write them, one operator per Halide Func,
 * next to Halide with the apps' CPU schedules (peer_halide.cpp) and C
 * loops computing one stage at a time:
 *
 *   blur     u16 6400 x 4800 (the app's own size, about): blur_x = (in[x-1] + in[x] + in[x+1]) / 3,
 *            blur_y the same down the rows, in u16 arithmetic;
 *   unsharp  float3 3072 x 2048: grey, a 7-tap Gaussian (sigma 1.5) down
 *            then across, sharpen = 2 grey - blur, ratio = sharpen / grey,
 *            out = ratio * in (9 operators);
 *   harris   float3 3072 x 2048: grey, Ix and Iy (Sobel / 12), their
 *            products, 3x3 box sums of them, det - 0.04 trace^2
 *            (11 operators);
 *   stencil_chain  u16 3072 x 2048: 8 stencils in a row, each the 5x5
 *            mean (sum + 12) / 25 of the one before (the app's shape;
 *            Halide's schedule slides every stage along strips of rows).
 *
 * Edges repeat (Halide's repeat_edge on the input).  Where Halide's
 * stages read an intermediate outside the image (harris's box sums of
 * Ix, Iy at column -1) the results differ at the border, so errors are
 * taken over the interior, 4 pixels in. */
#include "peers.h"
#include "workloads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W11_BW 6400
#define W11_BH 4800
#define W11_W 3072
#define W11_H 2048
#define W11_EDGE 4
#define W11_STAGES 8   /* stencil_chain; its border differs 16 rows in */

/* ---- the graphs ---------------------------------------------------------- */

/* f at (row + dr, column + dc), edges repeated */
static fg_expr *at(fg_op *op, fg_field *f, int dr, int dc) {
  return fg_read_tensor_at_border(op, f, FG_BORDER_CLAMP, 2,
                                  fg_addi(fg_row(op), dr),
                                  fg_addi(fg_column(op), dc));
}

static fg_graph *blur_graph(void) {
  fg_type t = fg_type_scalar(FG_U16, fg_shape2(W11_BH, W11_BW));
  fg_graph *g = fg_graph_new("w11_blur");
  fg_field *in = fg_input(g, "in", t);
  /* ushort + ushort is an int, as in OpenCL C: the sum / 3 converted */
  fg_op *op = fg_op_begin(g, "blur_x", 1, &t);
  fg_expr *sum = fg_add(fg_add(at(op, in, 0, -1), at(op, in, 0, 0)),
                        at(op, in, 0, 1));
  fg_write_tensor(op, 0, fg_convert(fg_div(sum, fg_int(op, 3)), FG_U16, 1));
  fg_field *bx = fg_op_end(op);
  op = fg_op_begin(g, "blur_y", 1, &t);
  sum = fg_add(fg_add(at(op, bx, -1, 0), at(op, bx, 0, 0)), at(op, bx, 1, 0));
  fg_write_tensor(op, 0, fg_convert(fg_div(sum, fg_int(op, 3)), FG_U16, 1));
  fg_output(g, "out", fg_op_end(op));
  fgb_check_graph(g, "W11 blur graph");
  return g;
}

/* grey = 0.299 r + 0.587 g + 0.114 b of a float3 image */
static fg_field *grey_op(fg_graph *g, fg_field *in, fg_type t) {
  fg_op *op = fg_op_begin(g, "gray", 1, &t);
  fg_expr *r = fg_read_element(op, in, fg_int(op, 0));
  fg_expr *gr = fg_read_element(op, in, fg_int(op, 1));
  fg_expr *b = fg_read_element(op, in, fg_int(op, 2));
  fg_write_tensor(op, 0, fg_add(fg_add(fg_mulf(r, 0.299f), fg_mulf(gr, 0.587f)),
                                fg_mulf(b, 0.114f)));
  return fg_op_end(op);
}

/* the unsharp app's kernel(i), i = 0..3 */
static void unsharp_weights(float k[4]) {
  const float sigma = 1.5f, pi = 3.14159265358979310000f;
  for (int i = 0; i < 4; i++)
    k[i] = expf(-(float)(i * i) / (2 * sigma * sigma)) /
           (sqrtf(2 * pi) * sigma);
}

/* k0 f(0) + k1 (f(-1) + f(1)) + k2 (f(-2) + f(2)) + k3 (f(-3) + f(3)),
 * down the rows (vertical) or across */
static fg_field *gauss7_op(fg_graph *g, const char *name, fg_field *f,
                           fg_type t, int vertical) {
  float k[4];
  unsharp_weights(k);
  fg_op *op = fg_op_begin(g, name, 1, &t);
  fg_expr *acc = fg_mulf(at(op, f, 0, 0), k[0]);
  for (int i = 1; i <= 3; i++) {
    fg_expr *pair = vertical ? fg_add(at(op, f, -i, 0), at(op, f, i, 0))
                             : fg_add(at(op, f, 0, -i), at(op, f, 0, i));
    acc = fg_add(acc, fg_mulf(pair, k[i]));
  }
  fg_write_tensor(op, 0, acc);
  return fg_op_end(op);
}

static fg_graph *unsharp_graph(void) {
  fg_type t3 = fg_type_image(FG_F32, W11_H, W11_W, 3);
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(W11_H, W11_W));
  fg_graph *g = fg_graph_new("w11_unsharp");
  fg_field *in = fg_input(g, "in", t3);
  fg_field *grey = grey_op(g, in, t);
  fg_field *by = gauss7_op(g, "blur_y", grey, t, 1);
  fg_field *bx = gauss7_op(g, "blur_x", by, t, 0);
  fg_op *op = fg_op_begin(g, "sharpen", 1, &t);
  fg_write_tensor(op, 0, fg_sub(fg_mulf(fg_read_tensor(op, grey), 2.0f),
                                fg_read_tensor(op, bx)));
  fg_field *sharp = fg_op_end(op);
  op = fg_op_begin(g, "ratio", 1, &t);
  fg_write_tensor(op, 0, fg_div(fg_read_tensor(op, sharp),
                                fg_read_tensor(op, grey)));
  fg_field *ratio = fg_op_end(op);
  op = fg_op_begin(g, "output", 1, &t3);
  fg_write_tensor(op, 0, fg_mul(fg_read_tensor(op, ratio),
                                fg_read_tensor(op, in)));
  fg_output(g, "out", fg_op_end(op));
  fgb_check_graph(g, "W11 unsharp graph");
  return g;
}

/* the harris app's Ix (dx) or Iy: Sobel / 12 */
static fg_field *sobel_op(fg_graph *g, const char *name, fg_field *grey,
                          fg_type t, int dx) {
  fg_op *op = fg_op_begin(g, name, 1, &t);
  fg_expr *acc = NULL;
  for (int i = -1; i <= 1; i++) {
    float w = (i ? 1.0f : 2.0f) / 12;
    fg_expr *lo = dx ? at(op, grey, i, -1) : at(op, grey, -1, i);
    fg_expr *hi = dx ? at(op, grey, i, 1) : at(op, grey, 1, i);
    fg_expr *term = fg_add(fg_mulf(lo, -w), fg_mulf(hi, w));
    acc = acc ? fg_add(acc, term) : term;
  }
  fg_write_tensor(op, 0, acc);
  return fg_op_end(op);
}

static fg_field *product_op(fg_graph *g, const char *name, fg_field *a,
                            fg_field *b, fg_type t) {
  fg_op *op = fg_op_begin(g, name, 1, &t);
  fg_write_tensor(op, 0, fg_mul(fg_read_tensor(op, a), fg_read_tensor(op, b)));
  return fg_op_end(op);
}

static fg_field *box3_op(fg_graph *g, const char *name, fg_field *f,
                         fg_type t) {
  fg_op *op = fg_op_begin(g, name, 1, &t);
  fg_expr *acc = NULL;
  for (int dc = -1; dc <= 1; dc++)
    for (int dr = -1; dr <= 1; dr++)
      acc = acc ? fg_add(acc, at(op, f, dr, dc)) : at(op, f, dr, dc);
  fg_write_tensor(op, 0, acc);
  return fg_op_end(op);
}

static fg_graph *harris_graph(void) {
  fg_type t3 = fg_type_image(FG_F32, W11_H, W11_W, 3);
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(W11_H, W11_W));
  fg_graph *g = fg_graph_new("w11_harris");
  fg_field *in = fg_input(g, "in", t3);
  fg_field *grey = grey_op(g, in, t);
  fg_field *ix = sobel_op(g, "Ix", grey, t, 1);
  fg_field *iy = sobel_op(g, "Iy", grey, t, 0);
  fg_field *sxx = box3_op(g, "Sxx", product_op(g, "Ixx", ix, ix, t), t);
  fg_field *syy = box3_op(g, "Syy", product_op(g, "Iyy", iy, iy, t), t);
  fg_field *sxy = box3_op(g, "Sxy", product_op(g, "Ixy", ix, iy, t), t);
  fg_op *op = fg_op_begin(g, "response", 1, &t);
  fg_expr *a = fg_read_tensor(op, sxx), *b = fg_read_tensor(op, syy);
  fg_expr *c = fg_read_tensor(op, sxy);
  fg_expr *det = fg_sub(fg_mul(a, b), fg_mul(c, c));
  fg_expr *trace = fg_add(a, b);
  fg_write_tensor(op, 0, fg_sub(det, fg_mulf(fg_mul(trace, trace), 0.04f)));
  fg_output(g, "out", fg_op_end(op));
  fgb_check_graph(g, "W11 harris graph");
  return g;
}

static fg_graph *chain_graph(void) {
  fg_type t = fg_type_scalar(FG_U16, fg_shape2(W11_H, W11_W));
  fg_graph *g = fg_graph_new("w11_stencil_chain");
  fg_field *f = fg_input(g, "in", t);
  for (int s = 0; s < W11_STAGES; s++) {
    char name[24];
    snprintf(name, sizeof name, "stage%d", s);
    fg_op *op = fg_op_begin(g, name, 1, &t);
    fg_expr *acc = fg_int(op, 12);
    for (int dr = -2; dr <= 2; dr++)
      for (int dc = -2; dc <= 2; dc++)
        acc = fg_add(acc, at(op, f, dr, dc));
    fg_write_tensor(op, 0, fg_convert(fg_div(acc, fg_int(op, 25)), FG_U16, 1));
    f = fg_op_end(op);
  }
  fg_output(g, "out", f);
  fgb_check_graph(g, "W11 stencil_chain graph");
  return g;
}

/* ---- C loops, one stage at a time ---------------------------------------- */

typedef struct w11_job {
  const void *in;
  void *out;
  float *grey, *a, *b, *c, *d, *e; /* intermediates */
  uint16_t *bx;
} w11_job;

static int clampi(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

static void blur_x_rows(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  w11_job *j = ctx;
  const uint16_t *in = j->in;
  for (int64_t y = b; y < e; y++)
    for (int x = 0; x < W11_BW; x++) {
      const uint16_t *row = in + y * W11_BW;
      j->bx[y * W11_BW + x] =
          (uint16_t)((row[clampi(x - 1, 0, W11_BW - 1)] + row[x] +
                      row[clampi(x + 1, 0, W11_BW - 1)]) / 3);
    }
}

static void blur_y_rows(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  w11_job *j = ctx;
  uint16_t *out = j->out;
  for (int64_t y = b; y < e; y++) {
    const uint16_t *r0 = j->bx + (int64_t)clampi((int)y - 1, 0, W11_BH - 1) * W11_BW;
    const uint16_t *r1 = j->bx + y * W11_BW;
    const uint16_t *r2 = j->bx + (int64_t)clampi((int)y + 1, 0, W11_BH - 1) * W11_BW;
    for (int x = 0; x < W11_BW; x++)
      out[y * W11_BW + x] = (uint16_t)((r0[x] + r1[x] + r2[x]) / 3);
  }
}

static void blur_c(void *ctx) {
  bench_parallel(W11_BH, blur_x_rows, ctx);
  bench_parallel(W11_BH, blur_y_rows, ctx);
}

static void grey_rows(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  w11_job *j = ctx;
  const float *in = j->in;
  for (int64_t i = b * W11_W; i < e * W11_W; i++)
    j->grey[i] = 0.299f * in[3 * i] + 0.587f * in[3 * i + 1] +
                 0.114f * in[3 * i + 2];
}

/* f at (y, x), edges repeated */
static float px(const float *f, int y, int x) {
  return f[(int64_t)clampi(y, 0, W11_H - 1) * W11_W + clampi(x, 0, W11_W - 1)];
}

static void gauss_y_rows(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  w11_job *j = ctx;
  float k[4];
  unsharp_weights(k);
  for (int y = (int)b; y < e; y++)
    for (int x = 0; x < W11_W; x++) {
      float acc = px(j->grey, y, x) * k[0];
      for (int i = 1; i <= 3; i++)
        acc = acc + (px(j->grey, y - i, x) + px(j->grey, y + i, x)) * k[i];
      j->a[(int64_t)y * W11_W + x] = acc;
    }
}

static void gauss_x_out_rows(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  w11_job *j = ctx;
  const float *in = j->in;
  float *out = j->out;
  float k[4];
  unsharp_weights(k);
  for (int y = (int)b; y < e; y++)
    for (int x = 0; x < W11_W; x++) {
      float acc = px(j->a, y, x) * k[0];
      for (int i = 1; i <= 3; i++)
        acc = acc + (px(j->a, y, x - i) + px(j->a, y, x + i)) * k[i];
      int64_t p = (int64_t)y * W11_W + x;
      float ratio = (j->grey[p] * 2.0f - acc) / j->grey[p];
      for (int c = 0; c < 3; c++)
        out[3 * p + c] = ratio * in[3 * p + c];
    }
}

static void unsharp_c(void *ctx) {
  bench_parallel(W11_H, grey_rows, ctx);
  bench_parallel(W11_H, gauss_y_rows, ctx);
  bench_parallel(W11_H, gauss_x_out_rows, ctx);
}

static void harris_d_rows(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  w11_job *j = ctx;
  for (int y = (int)b; y < e; y++)
    for (int x = 0; x < W11_W; x++) {
      float ix = 0, iy = 0;
      for (int i = -1; i <= 1; i++) {
        float w = (i ? 1.0f : 2.0f) / 12;
        ix = ix + (px(j->grey, y + i, x - 1) * -w + px(j->grey, y + i, x + 1) * w);
        iy = iy + (px(j->grey, y - 1, x + i) * -w + px(j->grey, y + 1, x + i) * w);
      }
      int64_t p = (int64_t)y * W11_W + x;
      j->a[p] = ix * ix;
      j->b[p] = iy * iy;
      j->c[p] = ix * iy;
    }
}

static void harris_out_rows(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  w11_job *j = ctx;
  float *out = j->out;
  for (int y = (int)b; y < e; y++)
    for (int x = 0; x < W11_W; x++) {
      float s[3] = {0, 0, 0};
      const float *f[3] = {j->a, j->b, j->c};
      for (int k = 0; k < 3; k++)
        for (int dc = -1; dc <= 1; dc++)
          for (int dr = -1; dr <= 1; dr++)
            s[k] = s[k] + px(f[k], y + dr, x + dc);
      float det = s[0] * s[1] - s[2] * s[2], trace = s[0] + s[1];
      out[(int64_t)y * W11_W + x] = det - trace * trace * 0.04f;
    }
}

static void harris_c(void *ctx) {
  bench_parallel(W11_H, grey_rows, ctx);
  bench_parallel(W11_H, harris_d_rows, ctx);
  bench_parallel(W11_H, harris_out_rows, ctx);
}

typedef struct chain_job {
  const uint16_t *src;
  uint16_t *dst;
} chain_job;

static void chain_rows(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  chain_job *j = ctx;
  for (int y = (int)b; y < e; y++)
    for (int x = 0; x < W11_W; x++) {
      int acc = 12;
      for (int dr = -2; dr <= 2; dr++) {
        const uint16_t *row =
            j->src + (int64_t)clampi(y + dr, 0, W11_H - 1) * W11_W;
        for (int dc = -2; dc <= 2; dc++)
          acc += row[clampi(x + dc, 0, W11_W - 1)];
      }
      j->dst[(int64_t)y * W11_W + x] = (uint16_t)(acc / 25);
    }
}

/* in -> 8 stages, ping-pong through tmp; the last into out */
static void chain_c(void *ctx) {
  w11_job *j = ctx;
  const uint16_t *src = j->in;
  for (int s = 0; s < W11_STAGES; s++) {
    uint16_t *dst = s == W11_STAGES - 1 ? j->out : s % 2 ? (uint16_t *)j->a
                                                         : j->bx;
    chain_job cj = {src, dst};
    bench_parallel(W11_H, chain_rows, &cj);
    src = dst;
  }
}

/* ---- the table ----------------------------------------------------------- */

/* Largest |a - b| over the interior of an h x w image of ch channels,
 * relative to max(1, |b|). */
static double interior_err(const float *a, const float *b, int w, int h,
                           int ch) {
  double m = 0;
  for (int y = W11_EDGE; y < h - W11_EDGE; y++)
    for (int x = W11_EDGE * ch; x < (w - W11_EDGE) * ch; x++) {
      size_t i = (size_t)y * w * ch + x;
      double d = fabs((double)a[i] - b[i]) / fmax(1.0, fabs((double)b[i]));
      if (!(d <= m))
        m = isnan(d) ? INFINITY : d;
    }
  return m;
}

static double interior_err_u16(const uint16_t *a, const uint16_t *b, int w,
                               int h, int edge) {
  int m = 0;
  for (int y = edge; y < h - edge; y++)
    for (int x = edge; x < w - edge; x++) {
      size_t i = (size_t)y * w + x;
      int d = abs((int)a[i] - (int)b[i]);
      m = d > m ? d : m;
    }
  return m;
}

/* fieldgraph's rows (fused and unfused) of graph g over in into out */
static void w11_fg_rows(bench_table *tb, fg_context *ctx, fg_graph *g,
                    const char *app, const void *in, void *out, size_t out_n,
                    const void *ref, int u16, int w, int h, int ch,
                    double bytes, int crow, int hrow) {
  for (int f = 0; f < 2; f++) {
    fg_fusion fusion = f ? FG_FUSION_OFF : FG_FUSION_ON;
    fg_program *p = fgb_compile(ctx, g, fusion, FG_PRECISION_FULL);
    if (!f && getenv("BENCH_FUSION_REPORT"))
      printf("%s", fg_program_fusion_report(p));
    memset(out, 0, out_n);
    double sec = fgb_time(ctx, p, 1, (const void *[]){in}, 1, (void *[]){out});
    double err = u16 ? interior_err_u16(out, ref, w, h, 2 * W11_STAGES)
                     : interior_err(out, ref, w, h, ch);
    char label[48];
    snprintf(label, sizeof label, "%s fieldgraph %s", app,
             f ? "unfused" : "fused");
    int r = bench_row_add(tb, label, sec, bytes, err);
    tb->rows[r].c = crow;
    tb->rows[r].halide = hrow;
    if (!f)
      tb->rows[r].unfused = r + 1;
    snprintf(tb->rows[r].note, sizeof tb->rows[r].note, "%d kernel%s, out %08x",
             fg_program_kernel_count(p),
             fg_program_kernel_count(p) == 1 ? "" : "s",
             bench_hash(out, out_n));
    fg_program_free(p);
  }
}

#ifdef BENCH_HALIDE
/* the Halide row of an app, its error against ref */
static int halide_row(bench_table *tb, const char *app, double sec,
                      double err, double bytes) {
  char label[48];
  snprintf(label, sizeof label, "%s Halide (app schedule)", app);
  return bench_row_add(tb, label, sec, bytes, err);
}
#endif

void bench_w11(fg_context *ctx) {
  const size_t nb = (size_t)W11_BW * W11_BH, np = (size_t)W11_W * W11_H;
  uint16_t *bin = bench_alloc(nb * 2), *bout = bench_alloc(nb * 2);
  uint16_t *bref = bench_alloc(nb * 2), *btmp = bench_alloc(nb * 2);
  float *in = bench_alloc(np * 3 * sizeof(float));
  float *out = bench_alloc(np * 3 * sizeof(float));
  float *ref = bench_alloc(np * 3 * sizeof(float));
  float *tmp[5];
  for (int i = 0; i < 5; i++)
    tmp[i] = bench_alloc(np * sizeof(float));
  /* the blur app's input: 12-bit values, so u16 sums cannot wrap */
  for (size_t i = 0; i < nb; i++)
    bin[i] = (uint16_t)(((uint32_t)i * 2654435761u) >> 20);
  /* a smooth picture plus noise, every value in [0.05, 1] (grey > 0) */
  for (int y = 0; y < W11_H; y++)
    for (int x = 0; x < W11_W; x++)
      for (int c = 0; c < 3; c++) {
        size_t i = ((size_t)y * W11_W + x) * 3 + c;
        float v = 0.5f + 0.3f * sinf(x * 0.013f + c) * cosf(y * 0.021f) +
                  0.1f * (float)((i * 2654435761u) >> 24) / 255.0f;
        in[i] = fminf(fmaxf(v, 0.05f), 1.0f);
      }
  char title[160];
  snprintf(title, sizeof title, "W11 Halide's apps: blur u16 %dx%d, unsharp "
           "and harris float3 %dx%d, stencil_chain u16 (%s)", W11_BW, W11_BH,
           W11_W, W11_H, fg_context_backend_name(ctx));
  bench_table tb;
  bench_table_init(&tb, title);

  /* blur */
  w11_job j = {.in = bin, .out = bref, .bx = btmp};
  double io = 2.0 * nb * 2;
  int c = bench_row_add(&tb, "blur C loop, two passes",
                        bench_median(blur_c, &j, -1, -1), io, 0);
  int h = -1;
#ifdef BENCH_HALIDE
  memset(bout, 0, nb * 2);
  double hs = peer_halide_app_blur(bin, bout, W11_BW, W11_BH);
  h = halide_row(&tb, "blur", hs,
                 interior_err_u16(bout, bref, W11_BW, W11_BH, W11_EDGE), io);
  tb.rows[h].c = c;
#endif
  fg_graph *g = blur_graph();
  w11_fg_rows(&tb, ctx, g, "blur", bin, bout, nb * 2, bref, 1, W11_BW, W11_BH,
              1, io, c, h);
  fg_graph_free(g);

  /* unsharp */
  j = (w11_job){.in = in, .out = ref, .grey = tmp[0], .a = tmp[1]};
  io = 2.0 * np * 3 * sizeof(float);
  c = bench_row_add(&tb, "unsharp C loop, three passes",
                    bench_median(unsharp_c, &j, -1, -1), io, 0);
  h = -1;
#ifdef BENCH_HALIDE
  float k[4];
  unsharp_weights(k);
  memset(out, 0, np * 3 * sizeof(float));
  hs = peer_halide_app_unsharp(in, out, W11_W, W11_H, k);
  h = halide_row(&tb, "unsharp", hs, interior_err(out, ref, W11_W, W11_H, 3),
                 io);
  tb.rows[h].c = c;
#endif
  g = unsharp_graph();
  w11_fg_rows(&tb, ctx, g, "unsharp", in, out, np * 3 * sizeof(float), ref, 0,
          W11_W, W11_H, 3, io, c, h);
  fg_graph_free(g);

  /* harris */
  j = (w11_job){.in = in, .out = ref, .grey = tmp[0], .a = tmp[1],
                .b = tmp[2], .c = tmp[3]};
  io = (double)np * 4 * sizeof(float);
  c = bench_row_add(&tb, "harris C loop, three passes",
                    bench_median(harris_c, &j, -1, -1), io, 0);
  h = -1;
#ifdef BENCH_HALIDE
  memset(out, 0, np * sizeof(float));
  hs = peer_halide_app_harris(in, out, W11_W, W11_H);
  h = halide_row(&tb, "harris", hs, interior_err(out, ref, W11_W, W11_H, 1),
                 io);
  tb.rows[h].c = c;
#endif
  g = harris_graph();
  w11_fg_rows(&tb, ctx, g, "harris", in, out, np * sizeof(float), ref, 0, W11_W,
          W11_H, 1, io, c, h);
  fg_graph_free(g);

  /* stencil_chain, on the first W x H values of the blur's input */
  j = (w11_job){.in = bin, .out = bref, .bx = btmp, .a = tmp[0]};
  io = 2.0 * np * 2;
  c = bench_row_add(&tb, "stencil_chain C loop, 8 passes",
                    bench_median(chain_c, &j, -1, -1), io, 0);
  h = -1;
#ifdef BENCH_HALIDE
  memset(bout, 0, np * 2);
  hs = peer_halide_app_stencil_chain(bin, bout, W11_W, W11_H, W11_STAGES);
  h = halide_row(&tb, "stencil_chain", hs,
                 interior_err_u16(bout, bref, W11_W, W11_H, 2 * W11_STAGES),
                 io);
  tb.rows[h].c = c;
#endif
  g = chain_graph();
  w11_fg_rows(&tb, ctx, g, "stencil_chain", bin, bout, np * 2, bref, 1, W11_W,
              W11_H, 1, io, c, h);
  fg_graph_free(g);

  bench_table_print(&tb);
  free(bin);
  free(bout);
  free(bref);
  free(btmp);
  free(in);
  free(out);
  free(ref);
  for (int i = 0; i < 5; i++)
    free(tmp[i]);
}
