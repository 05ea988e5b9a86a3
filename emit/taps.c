/* emit/taps.c - a gathered small tensor read as one word.  A read at
 * computed coordinates (a resize's, a warp's taps) of a small tensor of
 * 8- or 16-bit elements is, in a dialect that scalarizes small tensors
 * (emit/scalar.c), one load per component; clang's loop vectorizer turns
 * each into a lane-by-lane extract of the index and a byte insert (twelve
 * per pixel for a bilinear RGB u8 resize).  Where the tensor's bytes fit
 * a 32-bit word (u8x2-4, u16x2), every component is a shift of the same
 * word load instead: clang loads it once per tap (the components' loads
 * are equal) and widens it into one hardware gather (a 64-bit word, for
 * u16x3-4, made a bilinear resize slower: not taken).  Only threads
 * without loops take it: a loop's taps are not one vector lane each, and
 * a scalar word load and shifts cost more than the byte loads.  The word starts at the tensor,
 * or, where that would pass the end of the buffer, ends there and is
 * shifted down; so the input must hold a word's bytes, which its compiled
 * shape says (a kernel whose text has word taps serves no smaller input:
 * a smaller one's text reads bytes).  A column that steps with the
 * thread's (an area shrink's cells, _column * f + i) is no gather: the
 * vectorizer reads such taps as strided runs, which stay.  The value read
 * is the tensor's, so results are unchanged.  OpenCL C on a CPU device
 * (its strips, emit/dialect_cl.c) takes the same words: PoCL's loop
 * vectorizer widens them alike; a GPU's work-items keep their vector
 * loads (fgk_dialect_cl does not scalarize). */
#include "emit_impl.h"
#include "abi.h"
#include "ir/visit.h"

#include <stdio.h>

/* The helpers: the word of 4 bytes ending no later than the buffer's
 * end (size bytes in all), shifted so that byte off comes first; the
 * _32 copy indexes in ints, for emit/index32.c's threads.  In OpenCL C
 * (a CPU device's strips) a helper per element size s over a __global
 * pointer: on a little-endian device a load through a uint of alignment
 * 1 (no memcpy there; a vload4 is a vector value, which PoCL's loop
 * vectorizer refuses to widen: "instruction return type cannot be
 * vectorized"); a big-endian one builds the word from the bytes, each
 * element's in the device's order, so that the shifts find the same
 * values. */
static void helpers(fgk_emitter *e, int s) {
  if (e->d->id == FGK_DIALECT_CL) {
    char name[32];
    snprintf(name, sizeof name, "fgk_tap4_%d", s);
    if (!fgk_first_use(e, name))
      return;
    if (fgk_first_use(e, "fgk_uint_u"))
      fgu_buf_puts(&e->help, "typedef uint fgk_uint_u "
                   "__attribute__((aligned(1)));\n");
    fgu_buf_printf(&e->help,
                   "inline uint fgk_tap4_%d(const __global void *p, long "
                   "size, long off) {\n"
                   "  long a = off < size - 4 ? off : size - 4;\n"
                   "  const __global uchar *q = (const __global uchar *)p "
                   "+ a;\n"
                   "#ifdef __ENDIAN_LITTLE__\n"
                   "  uint w = *(const __global fgk_uint_u *)q;\n#else\n"
                   "  uint w = %s;\n#endif\n"
                   "  return w >> (8 * (off - a));\n}\n", s,
                   s == 2 ? "(uint)q[1] | (uint)q[0] << 8 | (uint)q[3] << "
                            "16 | (uint)q[2] << 24"
                          : "(uint)q[0] | (uint)q[1] << 8 | (uint)q[2] << "
                            "16 | (uint)q[3] << 24");
    return;
  }
  if (!fgk_first_use(e, "fgk_tap4"))
    return;
  for (int i32 = 0; i32 < 2; i32++) {
    const char *ix = i32 ? "int" : "long";
    fgu_buf_printf(&e->help,
                   "static inline uint fgk_tap4%s(const void *p, %s size, "
                   "%s off) {\n"
                   "  %s a = off < size - 4 ? off : size - 4;\n"
                   "  uint w;\n"
                   "  memcpy(&w, (const uchar *)p + a, 4);\n"
                   "  return w >> (8 * (off - a));\n}\n",
                   i32 ? "_32" : "", ix, ix, ix);
  }
}

static void loop_visit(const fgk_stmt *st, void *arg) {
  if (st->kind == FGK_S_FOR || st->kind == FGK_S_WHILE ||
      st->kind == FGK_S_FOREACH)
    *(bool *)arg = true;
}

/* Whether column coordinate x is a loop variable the body being emitted
 * keeps inside the columns of input port (walk.c's column loops): those
 * reads step through a row, not gathers. */
static bool loop_column(const fgk_emitter *e, const fg_expr *x, int port) {
  if (x->kind != FGK_E_VAR)
    return false;
  for (int i = 0; i < e->n_in_cols; i++)
    if (e->in_cols[i].var == x->u.var && e->in_cols[i].port == port)
      return true;
  return false;
}

static bool affine(const fgk_block *body, const fg_expr *x, int depth);

typedef struct assigns {
  const fgk_block *body;
  const fgk_var *v;
  int depth;
  bool affine;
} assigns;

static void assign_visit(const fgk_stmt *st, void *arg) {
  assigns *a = arg;
  if (st->kind == FGK_S_ASSIGN) {
    const fg_expr *l = st->u.assign.lhs;
    while (l->kind == FGK_E_SWIZZLE)
      l = l->u.swz.a;
    if ((l->kind == FGK_E_VAR && l->u.var == a->v) ||
        (l->kind == FGK_E_INDEX && l->u.index.var == a->v))
      a->affine = a->affine && l->kind == FGK_E_VAR &&
                  affine(a->body, st->u.assign.rhs, a->depth);
  } else if (st->kind == FGK_S_FOR && st->u.for_.var == a->v) {
    a->affine = a->affine && affine(a->body, st->u.for_.init, a->depth) &&
                st->u.for_.step->kind == FGK_E_CONST;
  }
}

/* Whether integer expression x steps with the thread's coordinates as
 * sums and products do (no division, conversion from a float, call or
 * read between them and x); a variable, when every assignment to it
 * does (a counted loop's variable, when its start does). */
static bool affine(const fgk_block *body, const fg_expr *x, int depth) {
  if (!x || depth > 8)
    return false;
  switch (x->kind) {
  case FGK_E_CONST:
  case FGK_E_THREAD:
  case FGK_E_EXTENT:
    return true;
  case FGK_E_UNARY:
    return x->u.bin.op == FGK_NEG && affine(body, x->u.bin.a, depth + 1);
  case FGK_E_BINARY:
    return (x->u.bin.op == FGK_ADD || x->u.bin.op == FGK_SUB ||
            x->u.bin.op == FGK_MUL) &&
           affine(body, x->u.bin.a, depth + 1) &&
           affine(body, x->u.bin.b, depth + 1);
  case FGK_E_CONVERT:
    return fgk_is_int(x->u.conv.a->type.elem) &&
           affine(body, x->u.conv.a, depth + 1);
  case FGK_E_VAR: {
    if (x->u.var->ndims || x->u.var->local)
      return false;
    assigns a = {body, x->u.var, depth + 1, true};
    fgk_visit_block(body, &(fgk_visitor){.stmt = assign_visit, .arg = &a});
    return a.affine;
  }
  default:
    return false;
  }
}

int fge_tap_word(const fgk_emitter *e, const fgk_access *a, int n) {
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
  /* the C helper's shifts take the first byte as the lowest (OpenCL's
   * builds its word in the device's order) */
  if (e->d->id == FGK_DIALECT_C)
    return 0;
#endif
  const fgk_kernel *k = e->k;
  /* the helper indexes the buffer itself (its size bounds the word): no
   * hoisted row base (emit/hoist.c) */
  if (!e->d->word_taps || e->d->hoist_reads || e->interior || e->flat ||
      a->ncoords <= 0 || a->element || a->port < 0 || a->port >= k->n_in ||
      n < 2 || n > FG_MAX_SMALL_TENSOR)
    return 0;
  fg_type ft = k->in_type[a->port];
  int s = (int)fg_elem_size(ft.elem);
  if (!fgk_is_int(ft.elem) || s > 2 || n * s > 4)
    return 0;
  bool loops = false;
  fgk_visit_block(&k->body, &(fgk_visitor){.stmt = loop_visit,
                                           .arg = &loops});
  if (loops)
    return 0;
  fge_colref cr;
  if (fge_read_column(k, a, &cr) ||
      loop_column(e, a->coord[a->ncoords - 1], a->port) ||
      affine(&k->body, a->coord[a->ncoords - 1], 0))
    return 0;
  int64_t d[FGE_DIM_AXES];
  fge_abi_shape_dims(ft.field, d);
  return fge_abi_points(d) * n * s < 4 ? 0 : 4;
}

void fge_tap_comp(fgk_emitter *e, const char *buf, const char *ptr,
                  const fgk_access *a, int n, int c) {
  fg_type ft = e->k->in_type[a->port];
  int s = (int)fg_elem_size(ft.elem);
  helpers(e, s);
  e->word_tapped = true;
  /* OpenCL C: the helper of the element size (helpers) */
  char suffix[8] = "";
  if (e->d->id == FGK_DIALECT_CL)
    snprintf(suffix, sizeof suffix, "_%d", s);
  fgk_putf(e, "((%s)(fgk_tap4%s(%s, %s_P * %d, (",
           e->d->type_name(fgk_t(ft.elem, 1)), suffix, ptr, buf, n * s);
  fge_ex_index(e, buf, a, n, false, ft.field.ndim == 0);
  fgk_putf(e, ") * %d) >> %d))", s, 8 * s * c);
}

/* ---- strided words ------------------------------------------------------ */

/* A stencil interior's read of a shrink (scale * _column + dc, emit/
 * stencil.c: fg_downsample2's 2 x 2 block, an area resize's s x s cells)
 * steps scale points per thread: its components are an interleaved group
 * of scale * n members, which clang's loop vectorizer loads whole and
 * splits with shuffles.  x86's backend splits well only some groups (3 or
 * 4 bytes, and what general shuffles of 16- and 32-bit lanes make); a
 * group of 6 bytes (u8x3 by 2) it assembles byte by byte (vpextrb and
 * vpinsrb, some 3400 of them in the kernel; W9 downsample2 u8x3, one
 * thread: 12.3 ms against OpenCV's 4.0 on AMD Zen 4).  Where the thread's
 * bytes (scale n s, elements of s bytes) divide into words of w = 4 or 2
 * bytes wider than an element, each component is read as a shift of the
 * word that holds it, at a word offset within the thread's block: the
 * group is then one of words (3 16-bit words for u8x3 by 2; 3 32-bit
 * words for u8x3 by 4), which splits with word shuffles on any x86 (no
 * gathers: the loads stay contiguous) and with fewer of them (4.3 ms
 * above).  A word may hold bytes of the block's neighbouring points; it
 * is taken only where those lie among the points the interior keeps
 * inside the input (fge_stencil_span), so it reads no byte past the row
 * the interior bounds allow.  The value read is the element's, so results
 * are unchanged.  Little-endian C only (the shifts take the first byte as
 * the lowest); OpenCL C hoists its rows' reads (hoist_reads) and keeps
 * its element loads. */

static void stride_helpers(fgk_emitter *e) {
  if (!fgk_first_use(e, "fgk_ldw"))
    return;
  fgu_buf_puts(&e->help,
               "static inline uint fgk_ldw2(const uchar *p) {\n"
               "  ushort w;\n  memcpy(&w, p, 2);\n  return w;\n}\n"
               "static inline uint fgk_ldw4(const uchar *p) {\n"
               "  uint w;\n  memcpy(&w, p, 4);\n  return w;\n}\n");
}

typedef struct loop_find {
  const fg_expr *x;     /* the read */
  const fgk_var *v;     /* the counted loop's variable */
  const fgk_stmt *loop; /* the loop over v whose body holds x */
  bool found;
} loop_find;

static void find_expr(const fg_expr *y, void *arg) {
  loop_find *f = arg;
  f->found = f->found || y == f->x;
}

static void find_loop(const fgk_stmt *st, void *arg) {
  loop_find *f = arg;
  if (st->kind != FGK_S_FOR || st->u.for_.var != f->v)
    return;
  loop_find g = {.x = f->x};
  fgk_visit_block(&st->u.for_.body, &(fgk_visitor){.expr = find_expr,
                                                   .arg = &g});
  if (g.found)
    f->loop = st;
}

/* The values [*lo, *hi] counted loop variable v of read x's column (cr,
 * fge_colref.var) holds at x: the loop's own range [a, b) where x lies in
 * its body (an area resize's cells), else fge_counter_range's, which
 * counts the value past the loop too. */
static void var_range(const fgk_kernel *k, const fg_expr *x,
                      const fge_colref *cr, long *lo, long *hi) {
  *lo = cr->vlo;
  *hi = cr->vhi;
  loop_find f = {.x = x, .v = cr->var->u.var};
  fgk_visit_block(&k->body, &(fgk_visitor){.stmt = find_loop, .arg = &f});
  if (!f.loop)
    return;
  /* fge_counter_range took this loop: constant start, v < b or v <= b */
  const fg_expr *cond = f.loop->u.for_.cond;
  long a = (long)f.loop->u.for_.init->u.k.i;
  long b = (long)cond->u.bin.b->u.k.i - (cond->u.bin.op == FGK_LT ? 1 : 0);
  if (b >= a) {
    *lo = a;
    *hi = b;
  }
}

int fge_stride_word(const fgk_emitter *e, const fg_expr *x, int n) {
  const fgk_access *a = &x->u.read;
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
  if (e->d->id == FGK_DIALECT_C)
    return 0;
#endif
  const fgk_kernel *k = e->k;
  if (e->d->id != FGK_DIALECT_C || !e->d->word_taps || e->d->hoist_reads ||
      !e->interior || e->flat || a->ncoords <= 0 || a->element ||
      a->port < 0 || a->port >= k->n_in || n < 1 ||
      n > FG_MAX_SMALL_TENSOR || a->border > FG_BORDER_CLAMP)
    return 0;
  fg_type ft = k->in_type[a->port];
  long s = (long)fg_elem_size(ft.elem);
  fge_colref cr;
  if (!fgk_is_int(ft.elem) || s > 2 || !fge_read_column(k, a, &cr) ||
      cr.scale < 2 || cr.reversed || cr.clamped)
    return 0;
  long scale, slo, shi;
  if (!fge_stencil_span(e, a->port, &scale, &slo, &shi) ||
      scale != cr.scale)
    return 0;
  long bytes = scale * n * s;
  long vlo = 0, vhi = 0;
  if (cr.var)
    var_range(k, x, &cr, &vlo, &vhi);
  long jlo = cr.dc + vlo, jhi = cr.dc + vhi;
  for (long w = 4; w >= 2; w /= 2) {
    if (w <= s || bytes % w)
      continue;
    /* every word this read may load lies among the kept points */
    bool inside = true;
    for (long j = jlo; j <= jhi && inside; j++)
      for (long c = 0; c < n && inside; c++) {
        long off = (j * n + c) * s, start = off - (off & (w - 1));
        inside = start >= slo * n * s && start + w <= (shi + 1) * n * s;
      }
    if (inside)
      return (int)w;
  }
  return 0;
}

/* Emits the byte offset of component c of read cr from the start of
 * the thread's block, (j n + c) s for its point j = var + dc there (a
 * constant without a variable), rounded down to its word of w bytes
 * (mask -w) or its byte within that word (mask w - 1). */
static void stride_off(fgk_emitter *e, const fge_colref *cr, int n, int c,
                       int s, long mask) {
  if (!cr->var) {
    fgk_putf(e, "%ldL", ((cr->dc * n + c) * s) & mask);
    return;
  }
  fgk_put(e, "((((long)(");
  fgk_ex(e, cr->var);
  fgk_putf(e, ") + %ldL) * %d + %d) * %d & %ldL)", cr->dc, n, c, s, mask);
}

void fge_stride_comp(fgk_emitter *e, const char *buf, const char *ptr,
                     const fgk_access *a, int n, int w, int c) {
  fg_type ft = e->k->in_type[a->port];
  int s = (int)fg_elem_size(ft.elem);
  fge_colref cr;
  fge_read_column(e->k, a, &cr);
  stride_helpers(e);
  /* the block's first point, scale * _column: every word of the block is
   * then that location plus a constant, the same text for the same word
   * (two components' loads of one word merge before the vectorizer
   * groups them: left as two expressions of one address, one stayed
   * outside the group, a byte-by-byte gather) */
  fgk_type i32 = fgk_t(FG_I32, 1);
  fg_expr col = {.kind = FGK_E_THREAD, .type = i32};
  col.u.thread = FG_COLUMN;
  fg_expr k = {.kind = FGK_E_CONST, .type = i32};
  k.u.k.i = cr.scale;
  fg_expr block = {.kind = FGK_E_BINARY, .type = i32};
  block.u.bin.op = FGK_MUL;
  block.u.bin.a = &col;
  block.u.bin.b = &k;
  fgk_access at = *a;
  at.coord[at.ncoords - 1] = &block;
  fgk_putf(e, "((%s)(fgk_ldw%d((const uchar *)%s + ",
           e->d->type_name(fgk_t(ft.elem, 1)), w, ptr);
  fge_location(e, "fgk_at", buf, &at);
  fgk_putf(e, " * %dL + ", n * s);
  stride_off(e, &cr, n, c, s, -(long)w);
  fgk_put(e, ") >> 8 * ");
  stride_off(e, &cr, n, c, s, w - 1);
  fgk_put(e, "))");
}
