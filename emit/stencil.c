/* emit/stencil.c - stencils for dialects that split the column loop (the
 * C dialect, and OpenCL C's strips on a CPU device).  A read whose column
 * coordinate is the thread's own column plus a constant (_column + dc, as
 * a 3x3 blur's taps) needs clamping only within |dc| of the field's edge.
 * Such a kernel's threads run in two loops per row: an interior loop over
 * the columns where every such tap lies inside its field, whose reads are
 * affine and unclamped in the column (rows and layers stay clamped:
 * loop-invariant there), and a border loop over the rest, with the
 * clamped reads of every other kernel.  Both read the same elements, so
 * results are unchanged.  A column the operator clamps itself
 * (clamp(_column + dc, 0, _columns - 1), as Cog's stencils write it)
 * counts too: the interior is narrowed to where that clamp keeps its
 * value; and so does a flip's column (extent - 1 - _column), inside its
 * field wherever the thread's own column is, and a shrink's (s _column +
 * dc, s a small constant: fg_downsample2's 2 x 2 blocks), inside for the
 * columns whose block lies in the field, also when the offset within the
 * block is a counted loop's variable (an area resize's s x s sums:
 * s _column + v, v over [0, s)), from the least to the greatest value
 * the variable takes. */
#include "emit_impl.h"
#include "ir/visit.h"

#include <stdlib.h>

/* Whether x is a signed integer constant within +-65536; its value. */
static bool small_const(const fg_expr *x, long *v) {
  if (x->kind != FGK_E_CONST || !fgk_is_int(x->type.elem) ||
      !fgk_is_signed(x->type.elem) || x->u.k.i < -65536 ||
      x->u.k.i > 65536)
    return false;
  *v = (long)x->u.k.i;
  return true;
}

/* Whether x is _column * s or s * _column for a constant s in [2, 64];
 * s. */
static bool column_times(const fg_expr *x, long *s) {
  if (x->kind != FGK_E_BINARY || x->u.bin.op != FGK_MUL)
    return false;
  const fg_expr *a = x->u.bin.a, *b = x->u.bin.b;
  if (a->kind == FGK_E_CONST) {
    const fg_expr *t = a;
    a = b;
    b = t;
  }
  return a->kind == FGK_E_THREAD && a->u.thread == FG_COLUMN &&
         small_const(b, s) && *s >= 2 && *s <= 64;
}

/* Whether x is s _column + v (either order) for a constant s in [2, 64]
 * and a counted loop's variable v of kernel k (fge_counter_range); fills
 * r's scale and variable. */
static bool column_times_plus_counter(const fgk_kernel *k, const fg_expr *x,
                                      fge_colref *r) {
  if (!k || x->kind != FGK_E_BINARY || x->u.bin.op != FGK_ADD)
    return false;
  const fg_expr *a = x->u.bin.a, *b = x->u.bin.b;
  if (a->kind == FGK_E_VAR) {
    const fg_expr *t = a;
    a = b;
    b = t;
  }
  return b->kind == FGK_E_VAR && column_times(a, &r->scale) &&
         fgk_counter_range(k, b->u.var, &r->vlo, &r->vhi) &&
         (r->var = b, true);
}

bool fge_column_offset(const fgk_kernel *k, const fg_expr *x,
                       fge_colref *r) {
  *r = (fge_colref){.scale = 1};
  if (fgk_thread_plus(x, FG_COLUMN, &r->dc))
    return true;
  /* s _column + dc: each thread reads its own block of s columns (a 2x2
   * shrink's taps), inside the field for whole blocks */
  if (column_times(x, &r->scale))
    return true;
  /* s _column + v, v a counted loop's variable: the block's columns in a
   * loop (an area resize's) */
  if (column_times_plus_counter(k, x, r))
    return true;
  *r = (fge_colref){.scale = 1};
  long v;
  if (x->kind == FGK_E_BINARY &&
      (x->u.bin.op == FGK_ADD || x->u.bin.op == FGK_SUB)) {
    const fg_expr *a = x->u.bin.a, *b = x->u.bin.b;
    if (x->u.bin.op == FGK_ADD && a->kind == FGK_E_CONST) {
      const fg_expr *t = a;
      a = b;
      b = t;
    }
    if ((column_times(a, &r->scale) ||
         column_times_plus_counter(k, a, r)) && small_const(b, &v)) {
      r->dc = x->u.bin.op == FGK_ADD ? v : -v;
      return true;
    }
    *r = (fge_colref){.scale = 1};
  }
  r->scale = 1;
  /* clamp(_column + dc, lo, hi): the explicit clamp a Cog stencil writes */
  if (x->kind != FGK_E_CALL || x->u.call.fn != FGK_FN_clamp ||
      x->u.call.n != 3 || !fgk_thread_plus(x->u.call.arg[0], FG_COLUMN, &r->dc) ||
      !small_const(x->u.call.arg[1], &r->lo))
    return false;
  r->clamped = true;
  const fg_expr *hi = x->u.call.arg[2];
  if (small_const(hi, &r->hi_k))
    return true;
  r->hi_columns = true;
  return fgk_thread_plus(hi, FG_COLUMNS, &r->hi_k);
}

/* Whether x is the column extent of an input plus a small constant
 * (fg_field_extent(op, f, FG_COLUMNS) - 1, as a flip writes it); the
 * input's port and the constant. */
static bool extent_plus(const fg_expr *x, int *port, long *k) {
  if (x->kind == FGK_E_EXTENT && x->u.extent.axis == FG_COLUMNS) {
    *port = x->u.extent.port;
    *k = 0;
    return true;
  }
  long v;
  if (x->kind != FGK_E_BINARY ||
      (x->u.bin.op != FGK_ADD && x->u.bin.op != FGK_SUB) ||
      !small_const(x->u.bin.b, &v) || !extent_plus(x->u.bin.a, port, k))
    return false;
  *k += x->u.bin.op == FGK_ADD ? v : -v;
  return true;
}

bool fge_read_column(const fgk_kernel *k, const fgk_access *a,
                     fge_colref *r) {
  *r = (fge_colref){0};
  if (a->ncoords == 0)
    return false;
  const fg_expr *x = a->coord[a->ncoords - 1];
  if (fge_column_offset(k, x, r))
    return true;
  /* extent + k - _column: a flip's column, inside the read's own input
   * for the columns dc + 1 .. extent + dc */
  int port;
  if (x->kind != FGK_E_BINARY || x->u.bin.op != FGK_SUB ||
      x->u.bin.b->kind != FGK_E_THREAD || x->u.bin.b->u.thread != FG_COLUMN ||
      !extent_plus(x->u.bin.a, &port, &r->dc) || port != a->port) {
    *r = (fge_colref){0};
    return false;
  }
  r->reversed = true;
  r->scale = 1;
  return true;
}

/* Whether x is an int expression that stays the same along a row:
 * constants, the layer, the row, extents, and integer arithmetic on them
 * that needs no helper (no division, call, variable or read). */
static bool row_invariant(const fg_expr *x) {
  if (!fgk_is_int(x->type.elem) || x->type.width != 1)
    return false;
  switch (x->kind) {
  case FGK_E_CONST:
  case FGK_E_EXTENT:
    return true;
  case FGK_E_THREAD:
    return x->u.thread == FG_LAYER || x->u.thread == FG_ROW ||
           x->u.thread == FG_LAYERS || x->u.thread == FG_ROWS ||
           x->u.thread == FG_COLUMNS;
  case FGK_E_UNARY:
    return x->u.bin.op == FGK_NEG && row_invariant(x->u.bin.a);
  case FGK_E_BINARY:
    switch (x->u.bin.op) {
    case FGK_ADD: case FGK_SUB: case FGK_MUL: case FGK_BAND: case FGK_BOR:
    case FGK_BXOR: case FGK_SHL: case FGK_SHR:
      return row_invariant(x->u.bin.a) && row_invariant(x->u.bin.b);
    default:
      return false;
    }
  default:
    return false;
  }
}

/* Whether x is a const int of value v. */
static bool const_is(const fg_expr *x, long v) {
  long k;
  return small_const(x, &k) && k == v;
}

/* Whether x is (_column >> 1) * 2, either way round. */
static bool column_pair(const fg_expr *x) {
  if (x->kind != FGK_E_BINARY || x->u.bin.op != FGK_MUL)
    return false;
  const fg_expr *a = x->u.bin.a, *b = x->u.bin.b;
  if (const_is(a, 2)) {
    const fg_expr *t = a;
    a = b;
    b = t;
  }
  return const_is(b, 2) && a->kind == FGK_E_BINARY &&
         a->u.bin.op == FGK_SHR && const_is(a->u.bin.b, 1) &&
         a->u.bin.a->kind == FGK_E_THREAD &&
         a->u.bin.a->u.thread == FG_COLUMN;
}

bool fge_read_based(const fgk_kernel *k, const fgk_access *a,
                    fge_based *b) {
  *b = (fge_based){0};
  fge_colref cr;     /* a tap of the thread's column keeps that form */
  if (fge_read_column(k, a, &cr))
    return false;
  if (a->ncoords == 0 || a->element || a->border > FG_BORDER_CLAMP ||
      a->port < 0 || a->port >= k->n_in ||
      fg_type_tensor_elements(k->in_type[a->port]) != 1)
    return false;
  /* int arithmetic throughout: the sum wraps as the read's own would, and
   * where the interior keeps it inside the field it does not wrap */
  const fg_expr *x = a->coord[a->ncoords - 1];
  if (x->kind != FGK_E_BINARY || x->u.bin.op != FGK_ADD ||
      x->type.elem != FG_I32 || x->type.width != 1 ||
      x->u.bin.a->type.elem != FG_I32 || x->u.bin.b->type.elem != FG_I32)
    return false;
  for (int i = 0; i < 2; i++) {
    const fg_expr *base = i ? x->u.bin.b : x->u.bin.a;
    const fg_expr *col = i ? x->u.bin.a : x->u.bin.b;
    if (!row_invariant(base))
      continue;
    long dc;
    if (fgk_thread_plus(col, FG_COLUMN, &dc)) {
      *b = (fge_based){.base = base, .dc = dc};
      return true;
    }
    if (column_pair(col)) {
      *b = (fge_based){.base = base, .pair = true};
      return true;
    }
  }
  return false;
}

typedef struct taps {
  const fgk_kernel *k;
  int n_in;
  bool *any;      /* n_in: an input read with a column offset */
  long *lo, *hi;  /* n_in: least and greatest offset */
  /* n_in: reads at scale * _column + dc with scale > 1 (one scale per
   * input, else mixed), their least and greatest dc */
  long *scale, *slo, *shi;
  bool mixed;
  /* over clamped taps, where every clamp keeps its value: columns c with
   * c >= c_lo, c < _columns + cols_hi (any_cols), c < const_hi (any_const) */
  long c_lo, cols_hi, const_hi;
  bool any_cols, any_const;
  /* reads at a row's base (fge_based), in a dialect that takes them */
  bool based;
  const fgk_emitter *e;
} taps;

/* Records the column offset of read x. */
static void tap(const fg_expr *x, void *arg) {
  taps *t = arg;
  const fgk_access *a = &x->u.read;
  fge_colref cr;
  fge_based b;
  if (x->kind == FGK_E_READ && t->e->d->based_columns &&
      fge_read_based(t->k, a, &b)) {
    t->based = true;     /* its bounds: fge_based_bounds */
    return;
  }
  if (x->kind != FGK_E_READ || a->ncoords == 0 || a->port < 0 ||
      a->port >= t->n_in || !fge_read_column(t->k, a, &cr))
    return;
  int p = a->port;
  if (cr.scale > 1) {
    /* inside for the columns c with 0 <= scale c + dc < in_C */
    if (t->scale[p] && t->scale[p] != cr.scale)
      t->mixed = true;
    /* a counter's block offsets: dc plus each value it may hold */
    long dlo = cr.dc + (cr.var ? cr.vlo : 0);
    long dhi = cr.dc + (cr.var ? cr.vhi : 0);
    t->slo[p] = !t->scale[p] || dlo < t->slo[p] ? dlo : t->slo[p];
    t->shi[p] = !t->scale[p] || dhi > t->shi[p] ? dhi : t->shi[p];
    t->scale[p] = cr.scale;
    return;
  }
  /* a reversed column is inside where a tap at -(dc + 1) is */
  long dc = cr.reversed ? -(cr.dc + 1) : cr.dc;
  if (cr.clamped) {
    long lo = cr.lo - dc, hi = cr.hi_k - dc + 1;
    t->c_lo = lo > t->c_lo ? lo : t->c_lo;
    if (cr.hi_columns) {
      t->cols_hi = !t->any_cols || hi < t->cols_hi ? hi : t->cols_hi;
      t->any_cols = true;
    } else {
      t->const_hi = !t->any_const || hi < t->const_hi ? hi : t->const_hi;
      t->any_const = true;
    }
  }
  t->lo[p] = !t->any[p] || dc < t->lo[p] ? dc : t->lo[p];
  t->hi[p] = !t->any[p] || dc > t->hi[p] ? dc : t->hi[p];
  t->any[p] = true;
}

bool fge_stencil_bounds(const fgk_emitter *e, fgu_buf *out) {
  const fgk_kernel *k = e->k;
  if (!e->d->split_stencils || k->grouped || fgk_is_reduction(k->reduce) ||
      k->thread_elements || k->n_in <= 0)
    return false;
  taps t = {.k = k, .n_in = k->n_in, .e = e};
  t.any = calloc((size_t)k->n_in, sizeof *t.any);
  t.lo = calloc((size_t)k->n_in, sizeof *t.lo);
  t.hi = calloc((size_t)k->n_in, sizeof *t.hi);
  t.scale = calloc((size_t)k->n_in, sizeof *t.scale);
  t.slo = calloc((size_t)k->n_in, sizeof *t.slo);
  t.shi = calloc((size_t)k->n_in, sizeof *t.shi);
  bool found = false;
  if (t.any && t.lo && t.hi && t.scale && t.slo && t.shi) {
    fgk_visit_block(&k->body, &(fgk_visitor){.expr = tap, .arg = &t});
    for (int p = 0; p < k->n_in; p++)
      found |= t.any[p] || t.scale[p];
    found |= t.based;
    found &= !t.mixed;
  }
  if (found && out) {
    /* [fgk_lo, fgk_hi): the columns where every tap of every input lies
     * inside that input's columns, within this launch's [c0, c1) */
    fgu_buf_puts(out, "    long fgk_lo = fgk_c0, fgk_hi = fgk_c1;\n");
    for (int p = 0; p < k->n_in; p++) {
      if (!t.any[p])
        continue;
      fgu_buf_printf(out, "    if (fgk_lo < %ldL) fgk_lo = %ldL;\n",
                     -t.lo[p], -t.lo[p]);
      fgu_buf_printf(out, "    if (fgk_hi > in%d_C - %ldL) fgk_hi = in%d_C - "
                     "%ldL;\n", p, t.hi[p], p, t.hi[p]);
    }
    for (int p = 0; p < k->n_in; p++) {
      long s = t.scale[p];
      if (!s)
        continue;
      /* c >= ceil(-slo / s) and c <= floor((in_C - 1 - shi) / s) */
      if (t.slo[p] < 0)
        fgu_buf_printf(out, "    if (fgk_lo < %ldL) fgk_lo = %ldL;\n",
                       (-t.slo[p] + s - 1) / s, (-t.slo[p] + s - 1) / s);
      fgu_buf_printf(out, "    { long fgk_m = in%d_C - %ldL; if (fgk_hi > "
                     "(fgk_m < 0 ? 0 : fgk_m / %ldL + 1)) fgk_hi = fgk_m < 0 "
                     "? 0 : fgk_m / %ldL + 1; }\n", p, 1 + t.shi[p], s, s);
    }
    if (t.c_lo > 0)
      fgu_buf_printf(out, "    if (fgk_lo < %ldL) fgk_lo = %ldL;\n", t.c_lo,
                     t.c_lo);
    if (t.any_cols)
      fgu_buf_printf(out, "    if (fgk_hi > _columns + %ldL) fgk_hi = "
                     "_columns + %ldL;\n", t.cols_hi, t.cols_hi);
    if (t.any_const)
      fgu_buf_printf(out, "    if (fgk_hi > %ldL) fgk_hi = %ldL;\n",
                     t.const_hi, t.const_hi);
    fgu_buf_puts(out, "    if (fgk_hi < fgk_lo) fgk_hi = fgk_lo;\n");
  }
  free(t.any);
  free(t.lo);
  free(t.hi);
  free(t.scale);
  free(t.slo);
  free(t.shi);
  return found;
}

bool fge_stencil_span(const fgk_emitter *e, int port, long *scale,
                      long *slo, long *shi) {
  const fgk_kernel *k = e->k;
  if (port < 0 || port >= k->n_in)
    return false;
  taps t = {.k = k, .n_in = k->n_in, .e = e};
  t.any = calloc((size_t)k->n_in, sizeof *t.any);
  t.lo = calloc((size_t)k->n_in, sizeof *t.lo);
  t.hi = calloc((size_t)k->n_in, sizeof *t.hi);
  t.scale = calloc((size_t)k->n_in, sizeof *t.scale);
  t.slo = calloc((size_t)k->n_in, sizeof *t.slo);
  t.shi = calloc((size_t)k->n_in, sizeof *t.shi);
  bool ok = t.any && t.lo && t.hi && t.scale && t.slo && t.shi;
  if (ok) {
    fgk_visit_block(&k->body, &(fgk_visitor){.expr = tap, .arg = &t});
    /* the same walk as fge_stencil_bounds': its bounds hold these */
    ok = !t.mixed && t.scale[port] > 1;
    *scale = t.scale[port];
    *slo = t.slo[port];
    *shi = t.shi[port];
  }
  free(t.any);
  free(t.lo);
  free(t.hi);
  free(t.scale);
  free(t.slo);
  free(t.shi);
  return ok;
}

/* The border rules of explicit reads other than clamping (fg_border), in
 * both dialects: the index remaps fgk_bm (MIRROR), fgk_br (REFLECT),
 * fgk_bw (WRAP) of an index i into an extent n, as the operator library
 * computed them in the IR before, and the flat-index functions fgk_at_<s>
 * (every coordinate remapped) and fgk_atx_<s> (the column inside). */
static const char border_helpers[] =
  "#ifdef __OPENCL_VERSION__\n"
  "#define FGK_INL inline\n"
  "#else\n"
  "#define FGK_INL static inline\n"
  "#endif\n"
  "FGK_INL long fgk_bm(long i, long n) {   /* dcb|abcd|cba */\n"
  "  long p = 2 * n - 2, m = (i < 0 ? -i : i) % (p > 0 ? p : 1);\n"
  "  return m < p - m ? m : p - m;\n"
  "}\n"
  "FGK_INL long fgk_br(long i, long n) {   /* cba|abcd|dcb */\n"
  "  long p = 2 * n, m = (i < -1 - i ? -1 - i : i) % p;\n"
  "  return m < p - 1 - m ? m : p - 1 - m;\n"
  "}\n"
  "FGK_INL long fgk_bw(long i, long n) {   /* bcd|abcd|abc */\n"
  "  return (i % n + n) % n;\n"
  "}\n"
  "#define FGK_AT_BORDER(s, b)                                              \\\n"
  "  FGK_INL long fgk_at_##s(long L, long R, long C, long l, long r,       \\\n"
  "                          long c) {                                     \\\n"
  "    return (b(l, L) * R + b(r, R)) * C + b(c, C);                       \\\n"
  "  }                                                                     \\\n"
  "  FGK_INL long fgk_atx_##s(long L, long R, long C, long l, long r,      \\\n"
  "                           long c) {                                    \\\n"
  "    return (b(l, L) * R + b(r, R)) * C + c;                             \\\n"
  "  }\n"
  "FGK_AT_BORDER(m, fgk_bm)\n"
  "FGK_AT_BORDER(r, fgk_br)\n"
  "FGK_AT_BORDER(w, fgk_bw)\n";

const char *fge_border_suffix(fgk_emitter *e, fg_border b) {
  static const char *const suffix[] = {"", "_m", "_r", "_w"};
  if (b <= FG_BORDER_CLAMP || b > FG_BORDER_WRAP)
    return "";
  if (fgk_first_use(e, "fgk_at_border"))
    fgu_buf_puts(&e->help, border_helpers);
  return suffix[b];
}
