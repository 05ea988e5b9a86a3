/* bench/w2_blur.c - W2: a 3x3 box blur (edge tensors repeated), then
 * scale, add an offset and clamp to [0, 1], on a float 4096 x 4096 field:
 * 4 operators, one of them a stencil.  Timed fused and unfused, full and
 * relaxed precision, next to a threaded C loop adding the taps in the same
 * order (full precision should match it bit for bit) and the peers:
 * Halide computing the blur per tile, OpenCV's blur + convertTo + min/max.
 */
#include "peers.h"
#include "workloads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define W2_SIZE 4096
#define W2_SCALE 1.5f
#define W2_OFFSET (-0.25f)

static fg_graph *w2_graph(int64_t size) {
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(size, size));
  fg_graph *g = fg_graph_new("w2_blur");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, "blur3x3", 1, &t);
  fg_expr *acc = fg_var(op, FG_F32, 1);
  for (int dr = -1; dr <= 1; dr++)
    for (int dc = -1; dc <= 1; dc++) {
      fg_expr *r = fg_clamp(fg_addi(fg_row(op), dr), fg_int(op, 0),
                            fg_subi(fg_rows(op), 1));
      fg_expr *c = fg_clamp(fg_addi(fg_column(op), dc), fg_int(op, 0),
                            fg_subi(fg_columns(op), 1));
      fg_assign(acc, fg_add(acc, fg_read_tensor_at(op, x, 2, r, c)));
    }
  fg_write_tensor(op, 0, fg_divf(acc, 9.0f));
  fg_field *b = fg_op_end(op);
  op = fg_op_begin(g, "scale", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, b), W2_SCALE));
  fg_field *s = fg_op_end(op);
  op = fg_op_begin(g, "add", 1, &t);
  fg_write_tensor(op, 0, fg_addf(fg_read_tensor(op, s), W2_OFFSET));
  fg_field *a = fg_op_end(op);
  op = fg_op_begin(g, "clamp", 1, &t);
  fg_write_tensor(op, 0, fg_clamp(fg_read_tensor(op, a), fg_float(op, 0.0f),
                                  fg_float(op, 1.0f)));
  fg_output(g, "y", fg_op_end(op));
  fgb_check_graph(g, "W2 graph");
  return g;
}

typedef struct w2_job {
  const float *in;
  float *out;
  int n;
} w2_job;

static int clampi(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

/* Rows [begin, end): the taps in the graph's order, then the pointwise
 * tail; one fused loop, as a C programmer would write it. */
static void w2_slice(void *ctx, int64_t begin, int64_t end, int thread) {
  (void)thread;
  w2_job *j = ctx;
  const int n = j->n;
  for (int64_t r = begin; r < end; r++)
    for (int c = 0; c < n; c++) {
      float acc = 0;
      for (int dr = -1; dr <= 1; dr++) {
        const float *row = j->in + (size_t)clampi((int)r + dr, 0, n - 1) * n;
        for (int dc = -1; dc <= 1; dc++)
          acc += row[clampi(c + dc, 0, n - 1)];
      }
      float v = acc / 9.0f * W2_SCALE + W2_OFFSET;
      j->out[(size_t)r * n + c] = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    }
}

static void w2_c(void *ctx) {
  bench_parallel(((w2_job *)ctx)->n, w2_slice, ctx);
}

void bench_w2(fg_context *ctx) {
  const size_t n = (size_t)W2_SIZE * W2_SIZE, bytes = n * sizeof(float);
  float *in = bench_alloc(bytes), *ref = bench_alloc(bytes);
  float *out = bench_alloc(bytes);
  for (size_t i = 0; i < n; i++)
    in[i] = (float)(((uint32_t)i * 2654435761u) >> 8) / 16777215.0f;
  char title[200];
  snprintf(title, sizeof title, "W2 3x3 blur -> scale -> add -> clamp, float "
           "%dx%d, 4 operators (%s); median of %d after %d warm-up",
           W2_SIZE, W2_SIZE, fg_context_backend_name(ctx), bench.reps,
           bench.warmup);
  bench_table t;
  bench_table_init(&t, title);
  double io = 2.0 * (double)bytes;
  w2_job job = {in, ref, W2_SIZE};
  int crow = bench_row_add(&t, "C loop (clamped taps, threads)",
                           bench_median(w2_c, &job, -1, -1), io, 0);
  int hal = -1, cv = -1;
#ifdef BENCH_HALIDE
  double hs = peer_halide_blur(in, out, W2_SIZE, W2_SIZE, W2_SCALE,
                               W2_OFFSET);     /* before reading out */
  hal = bench_row_add(&t, "Halide (blur per 256x32 tile)", hs, io,
                      bench_max_abs_err(out, ref, n));
  t.rows[hal].c = crow;
#endif
#ifdef BENCH_OPENCV
  double cs = peer_cv_blur(in, out, W2_SIZE, W2_SIZE, W2_SCALE, W2_OFFSET);
  cv = bench_row_add(&t, "OpenCV blur+convertTo+max+min", cs, io,
                     bench_max_abs_err(out, ref, n));
  t.rows[cv].c = crow;
  snprintf(t.rows[cv].note, sizeof t.rows[cv].note, "4 passes");
#endif
  fg_graph *g = w2_graph(W2_SIZE);
  for (int prec = 0; prec < 2; prec++) {
    fg_precision p = prec ? FG_PRECISION_RELAXED : FG_PRECISION_FULL;
    int rows[2];
    for (int fu = 0; fu < 2; fu++) {
      fg_fusion fusion = fu ? FG_FUSION_OFF : FG_FUSION_ON;
      fg_program *prog = fgb_compile(ctx, g, fusion, p);
      double s = fgb_time(ctx, prog, 1, (const void *[]){in}, 1,
                          (void *[]){out});
      char label[64];
      rows[fu] = bench_row_add(&t, fgb_label(label, sizeof label, NULL,
                                             fusion, p),
                               s, io, bench_max_abs_err(out, ref, n));
      bench_row *r = &t.rows[rows[fu]];
      r->c = crow;
      r->halide = hal;
      r->opencv = cv;
      snprintf(r->note, sizeof r->note, "%d kernel%s",
               fg_program_kernel_count(prog),
               fg_program_kernel_count(prog) == 1 ? "" : "s");
      fg_program_free(prog);
    }
    t.rows[rows[0]].unfused = rows[1];
    int cpu = fgb_cpu_row(&t, ctx, g, p, rows[0], crow, 1,
                          (const void *[]){in}, 1, (void *[]){out}, ref, n);
    /* OpenCL: the same with the fields kept on the device */
    int dev[2] = {-1, -1};
    for (int fu = 0; fu < 2 && cpu >= 0 && !prec; fu++) {
      dev[fu] = fgb_device_row(&t, ctx, g, NULL, fu ? FG_FUSION_OFF : FG_FUSION_ON,
                               p, crow, in, out);
      t.rows[dev[fu]].err = bench_max_abs_err(out, ref, n);
    }
    if (cpu >= 0 && !prec) {
      t.rows[dev[0]].unfused = dev[1];
      int pr = fgb_pinned_row(&t, ctx, g, p, crow, in, out);
      t.rows[pr].err = bench_max_abs_err(out, ref, n);
    }
  }
  fg_graph_free(g);
  bench_table_print(&t);
  free(in);
  free(ref);
  free(out);
}
