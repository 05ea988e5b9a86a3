/* ops/ops_hist.c - histograms in the kernel IR: per-row counts in a
 * thread-local array (two, for even and odd columns, where small; rows
 * enough for 64 points a bin per thread), written to a [threads, bins]
 * field, then summed per bin (fgo_histogram), and fg_histogram, N bins
 * over a range, with its validity test, floor and clamps left out where
 * the range proves them needless.  No atomics, so
 * any backend gives the same counts; the input is read at explicit coordinates,
 * so its producer is materialized. */
#include "ops_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

/* The bytes of counts a histogram thread keeps (fgo_histogram). */
enum { HIST_PRIVATE = 8192 };

fg_field *fgo_histogram(fg_graph *g, const char *name, fg_field *in,
                            int bins, int channels, fg_elem count_elem,
                            fgo_bin_fn fn, const void *user,
                            const fg_restriction *rect) {
  fg_type t = fg_field_type(in);
  int nd = t.field.ndim;
  int64_t cols = t.field.dim[nd - 1];
  int64_t h = nd >= 2 ? t.field.dim[nd - 2] : 1;
  int64_t layers = nd == 3 ? t.field.dim[0] : 1;
  int64_t y0 = 0, y1 = h, x0 = 0, x1 = cols;
  if (rect) {
    y0 = rect->y0, y1 = rect->y1, x0 = rect->x0, x1 = rect->x1;
  }
  int64_t nrows = layers * (y1 - y0);
  /* rows per thread: 64 points per bin, to outweigh the bins each thread
   * clears and writes and the sum reads (4 per bin left a 4096^2 float
   * histogram 8 ms of 46 in summing 4096 rows of 256 counts), while
   * leaving 64 threads where there are rows */
  int64_t per = (64 * (int64_t)bins + (x1 - x0) - 1) / (x1 - x0);
  if (per > nrows / 64)
    per = nrows / 64;
  if (per < 1)
    per = 1;
  int64_t nthreads = (nrows + per - 1) / per;
  /* a thread's private counts stay within HIST_PRIVATE bytes: a GPU keeps
   * them in memory it reserves for every thread in flight (5000 u32
   * counts a thread failed to launch on an H100, CL_OUT_OF_HOST_MEMORY);
   * more bins are counted in blocks, each thread one block of bins over
   * its rows, the rows read once a block */
  int64_t csize = (int64_t)fg_elem_size(count_elem);
  int64_t blk = bins;
  if ((int64_t)bins * channels * csize > HIST_PRIVATE)
    blk = HIST_PRIVATE / (channels * csize);
  if (blk < 1)
    blk = 1;
  int64_t nblocks = (bins + blk - 1) / blk;
  char pname[96];
  snprintf(pname, sizeof pname, "%s.rows", name);
  fg_type pt = fg_type_vector(count_elem, fg_shape2(nthreads, bins), channels);
  fg_op *op = fg_op_begin(g, pname, 1, &pt);
  fg_global_threads(op, fg_shape1(nthreads * nblocks));
  /* two histograms, for even and odd columns: a run of equal values
   * then adds to two counts in turn, not one, whose every increment
   * waited for the last (a flat 4096^2 float field: 40 -> 35 ms of
   * counting; random values unchanged), where they stay small */
  int subs = 2 * blk * channels * csize <= HIST_PRIVATE / 4 ? 2 : 1;
  fg_expr *counts = fg_array(op, count_elem, 1, 3, subs, (int)blk, channels);
  fg_expr *x = fg_var(op, FG_I32, 1), *j = fg_var(op, FG_I32, 1);
  fg_expr *wr = fg_var(op, FG_I32, 1);
  /* the thread's chunk of rows and its block of bins */
  fg_expr *r = fg_var(op, FG_I32, 1), *bk = fg_var(op, FG_I32, 1);
  fg_assign(r, nblocks > 1 ? fg_div(fg_column(op), fg_int(op, (int32_t)nblocks))
                           : fg_column(op));
  fg_assign(bk, nblocks > 1 ? fg_mod(fg_column(op), fg_int(op, (int32_t)nblocks))
                            : fg_int(op, 0));
  fg_expr *nchunks = nblocks > 1 ? fg_div(fg_columns(op),
                                          fg_int(op, (int32_t)nblocks))
                                 : fg_columns(op);
  /* the sizes as the kernel reads them, so one build serves every size:
   * the rows of work (ny a layer), and the rows a thread takes, spread
   * over the threads there are (the counts are integers, so any split
   * of the rows gives the same bins) */
  fg_expr *ny = fg_var(op, FG_I32, 1), *nrw = fg_var(op, FG_I32, 1);
  fg_expr *kper = fg_var(op, FG_I32, 1);
  fg_assign(ny, rect ? fg_int(op, (int32_t)(y1 - y0))
                     : nd >= 2 ? fgo_rows_x(op, in) : fg_int(op, 1));
  fg_assign(nrw, nd == 3 ? fg_mul(fgo_layers_x(op, in), ny) : ny);
  fg_assign(kper, fg_div(fg_add(nrw, fg_subi(nchunks, 1)), nchunks));
  fg_for(j, fg_int(op, 0), fg_lt(j, kper), fg_int(op, 1));
  fg_assign(wr, fg_add(fg_mul(r, kper), j)); /* a row of work */
  fg_if(fg_lt(wr, nrw));
  fg_expr *row = rect ? fg_addi(fg_mod(wr, ny), (int32_t)y0) : fg_mod(wr, ny);
  fg_for(x, fg_int(op, (int32_t)x0),
         fg_lt(x, rect ? fg_int(op, (int32_t)x1) : fgo_cols_x(op, in)),
         fg_int(op, 1));
  fg_expr *v = fg_var(op, t.elem, fg_type_tensor_elements(t));
  if (nd == 3)
    fg_assign(v, fg_read_tensor_at(op, in, 3,
                                   fg_div(wr, ny),
                                   row, x));
  else if (nd == 2)
    fg_assign(v, fg_read_tensor_at(op, in, 2, row, x));
  else
    fg_assign(v, fg_read_tensor_at(op, in, 1, x));
  for (int ch = 0; ch < channels; ch++) {
    fg_expr *valid = NULL;
    fg_expr *b = fn(op, v, ch, &valid, user);
    if (valid)
      fg_if(valid);
    if (nblocks > 1) {
      /* the bin within this thread's block, when it is in the block */
      fg_expr *bb = fg_var(op, FG_I32, 1);
      fg_assign(bb, fg_sub(b, fg_mul(bk, fg_int(op, (int32_t)blk))));
      fg_if(fg_land(fg_ge(bb, fg_int(op, 0)),
                    fg_lt(bb, fg_int(op, (int32_t)blk))));
      b = bb;
    }
    fg_expr *sub = subs > 1 ? fg_band(x, fg_int(op, 1)) : fg_int(op, 0);
    fg_expr *cell = fg_at(counts, 3, sub, b, fg_int(op, ch));
    fg_assign(cell, fg_add(cell, fg_convert(fg_int(op, 1), count_elem, 1)));
    if (nblocks > 1)
      fg_end(op);
    if (valid)
      fg_end(op);
  }
  fg_end(op); /* x */
  fg_end(op); /* if */
  fg_end(op); /* j */
  fg_expr *b = fg_var(op, FG_I32, 1);
  fg_for(b, fg_int(op, 0), fg_lt(b, fg_int(op, (int32_t)blk)), fg_int(op, 1));
  fg_expr *gb = fg_var(op, FG_I32, 1); /* the bin of the whole histogram */
  fg_assign(gb, fg_add(fg_mul(bk, fg_int(op, (int32_t)blk)), b));
  fg_if(fg_lt(gb, fg_int(op, bins)));
  fg_expr *val, *c[4];
  for (int ch = 0; ch < channels; ch++) {
    c[ch] = fg_at(counts, 3, fg_int(op, 0), b, fg_int(op, ch));
    if (subs > 1)
      c[ch] = fg_add(c[ch], fg_at(counts, 3, fg_int(op, 1), b,
                                  fg_int(op, ch)));
  }
  if (channels == 1)
    val = c[0];
  else
    val = fg_vector(count_elem, channels, channels, c[0], c[1],
                    channels > 2 ? c[2] : NULL, channels > 3 ? c[3] : NULL);
  fg_write_tensor_at(op, 0, val, 2, r, gb);
  fg_end(op); /* if */
  fg_end(op); /* b */
  fg_field *part = fg_op_end(op);
  if (!part)
    return NULL;

  fg_type ot = fg_type_vector(count_elem, fg_shape1(bins), channels);
  fg_op *sum = fg_op_begin(g, name, 1, &ot);
  fg_expr *acc = fg_var(sum, count_elem, channels);
  fg_expr *i = fg_var(sum, FG_I32, 1);
  fg_for(i, fg_int(sum, 0), fg_lt(i, fgo_rows_x(sum, part)), fg_int(sum, 1));
  fg_assign(acc,
            fg_add(acc, fg_read_tensor_at(sum, part, 2, i, fg_column(sum))));
  fg_end(sum);
  fg_write_tensor(sum, 0, acc);
  return fg_op_end(sum);
}

typedef struct range {
  double lo, hi, scale;
  int bins;
  fg_elem acc;
  bool all_in;  /* every value of the input's type lies in [lo, hi] */
  bool trunc;   /* the scaled offset provably lies in (-1, bins + 1) */
} range;

/* x rounded to the accumulation type acc, as the kernel holds it. */
static double in_acc(fg_elem acc, double x) {
  return acc == FG_F64 ? x : (double)(float)x;
}

/* The least and greatest values of an integer element type, in double
 * (the 64-bit ones rounded: compared only after conversion to acc). */
static bool int_limits(fg_elem e, double *min, double *max) {
  switch (e) {
  case FG_U8:  *min = 0, *max = UINT8_MAX; return true;
  case FG_I8:  *min = INT8_MIN, *max = INT8_MAX; return true;
  case FG_U16: *min = 0, *max = UINT16_MAX; return true;
  case FG_I16: *min = INT16_MIN, *max = INT16_MAX; return true;
  case FG_U32: *min = 0, *max = UINT32_MAX; return true;
  case FG_I32: *min = INT32_MIN, *max = INT32_MAX; return true;
  case FG_U64: *min = 0, *max = (double)UINT64_MAX; return true;
  case FG_I64: *min = (double)INT64_MIN, *max = (double)INT64_MAX;
    return true;
  default: return false;
  }
}

/* What the kernel may skip for a range over inputs of element type elem:
 * the validity test where every value of the type converts into [lo, hi];
 * floor and the clamp below 0 where the offset (v - lo) * scale of a value
 * inside lies in (-1, bins + 1) under any order of evaluation: lo, hi and
 * the scale finite and max(|lo|, |hi|) * scale under 2^20, so that each
 * rounding (relaxed math may compute v * scale - lo * scale) errs by
 * under 2^-4, and truncation then gives floor's bin, or 0 for an offset
 * that rounded just below 0. */
static void range_proofs(range *r, fg_elem elem) {
  double flo = in_acc(r->acc, r->lo), fhi = in_acc(r->acc, r->hi);
  double fsc = in_acc(r->acc, r->scale), min, max;
  r->all_in = int_limits(elem, &min, &max) && in_acc(r->acc, min) >= flo &&
              in_acc(r->acc, max) <= fhi;
  double m = fmax(fabs(flo), fabs(fhi)) * fsc;
  r->trunc = isfinite(flo) && isfinite(fhi) && isfinite(fsc) && fsc > 0 &&
             m < 1048576.0;
}

static fg_expr *range_bin(fg_op *op, fg_expr *v, int ch, fg_expr **valid,
                          const void *user) {
  (void)ch;
  const range *r = user;
  fg_expr *f = fg_var(op, r->acc, 1);
  fg_assign(f, fg_convert(v, r->acc, 1));
  *valid = r->all_in ? NULL
                     : fg_land(fg_ge(f, fgo_flit(op, r->acc, r->lo)),
                               fg_le(f, fgo_flit(op, r->acc, r->hi)));
  fg_expr *s = fg_var(op, r->acc, 1);
  fg_assign(s, fg_sub(f, fgo_flit(op, r->acc, r->lo)));
  fg_assign(s, fg_mul(s, fgo_flit(op, r->acc, r->scale)));
  if (r->trunc) {
    /* one unsigned min, as a C loop's: the bin is in range whatever
     * the offset, so the private histogram's index needs no clamp */
    fg_expr *u = fg_convert(fg_convert(s, FG_I32, 1), FG_U32, 1);
    return fg_convert(fg_min(u, fg_uint(op, (uint32_t)r->bins - 1)), FG_I32,
                      1);
  }
  return fg_min(fg_max(fg_convert(fg_floor(s), FG_I32, 1), fg_int(op, 0)),
                fg_int(op, r->bins - 1));
}

fg_field *fg_histogram(fg_graph *g, fg_field *in, int bins, double lo,
                       double hi) {
  if (!fgo_ready(g, in))
    return NULL;
  fg_type t = fg_field_type(in);
  char ts[FG_TYPE_STR_MAX];
  if (t.field.ndim < 1 || fg_type_tensor_elements(t) != 1) {
    fg_graph_set_error(g, FG_ETYPE,
                       "histogram: field '%s' is %s; expected "
                       "a field of 1 to 3 dimensions holding scalars",
                       fg_field_label(in), fg_type_str(t, ts, sizeof ts));
    return NULL;
  }
  if (bins < 1 || bins > 16384 || !(lo < hi)) {
    fg_graph_set_error(g, FG_EINVAL,
                       "histogram: %d bins over [%g, %g]; "
                       "expected 1 to 16384 bins and lo < hi",
                       bins, lo, hi);
    return NULL;
  }
  range r = {lo, hi, bins / (hi - lo), bins, fgo_acc(t.elem), false, false};
  range_proofs(&r, t.elem);
  return fgo_histogram(g, "histogram", in, bins, 1, FG_U32, range_bin, &r,
                           NULL);
}
