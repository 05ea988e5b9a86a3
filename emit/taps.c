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
