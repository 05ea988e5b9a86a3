/* emit/flat.c - a stencil's interior, or a pointwise kernel's whole
 * column loop, over flat elements.  A blur of an RGB image computes each of its 3 channels alike,
 * each from the same channel of its taps; clang's loop vectorizer widens
 * the column loop over 3-element pixels only through shuffles of
 * interleaved loads and stores (a u8x3 Gaussian's passes took twice as
 * long per element as a grey one's).  When every component of every
 * small tensor in the kernel is computed by the same scalar code from the
 * same component of its operands, the interior loop runs instead over the
 * row's elements: fgk_j = column * n + k, each iteration the code of one
 * component k, whose reads and store emit/scalar.c indexes (location -
 * fgk_c) n + fgk_j, so every tap is a contiguous load and the store a
 * contiguous one.  Each element is computed by the very operations the
 * per-pixel loop uses, so results are unchanged; a stencil's border
 * columns keep the per-pixel loop.  A pointwise kernel (reads and writes
 * at the thread's own point only: u8x3 convertTo-like scales, chains of
 * them) runs all its columns so.  Both dialects that split stencils take it: the C
 * dialect's column loop and OpenCL's strips on a CPU device. */
#include "emit_impl.h"
#include "ir/visit.h"

typedef struct flat_check {
  const fgk_emitter *e;
  int n;        /* the tensors' element count */
  bool ok;
} flat_check;

/* Whether call x is computed component by component (as scalar.c's
 * elementwise). */
static bool elementwise_call(const fg_expr *x) {
  return *fgk_builtins[x->u.call.fn].c_template ||
         x->u.call.fn == FGK_FN_select;
}

/* Whether var v is a plain scalar or a split small tensor of n. */
static bool var_ok(const flat_check *f, const fgk_var *v) {
  if (v->ndims || v->local || v->volatile_)
    return false;
  if (v->type.width == 1)
    return true;
  return v->type.width == f->n && fge_is_split(f->e, v);
}

/* Operand i of x (NULL past the last), for the width rule. */
static const fg_expr *operand(const fg_expr *x, int i) {
  switch (x->kind) {
  case FGK_E_UNARY:
    return i == 0 ? x->u.bin.a : NULL;
  case FGK_E_BINARY:
    return i == 0 ? x->u.bin.a : i == 1 ? x->u.bin.b : NULL;
  case FGK_E_CALL:
    return i < x->u.call.n ? x->u.call.arg[i] : NULL;
  case FGK_E_VECTOR:
    return i < x->u.vec.n ? x->u.vec.arg[i] : NULL;
  case FGK_E_CONVERT:
    return i == 0 ? x->u.conv.a : NULL;
  default:
    return NULL;
  }
}

static void check_expr(const fg_expr *x, void *arg) {
  flat_check *f = arg;
  int w = x->type.width;
  if (w != 1 && w != f->n) {
    f->ok = false;
    return;
  }
  /* a scalar never comes from a tensor (a dot product, a channel) */
  if (w == 1)
    for (int i = 0; operand(x, i); i++)
      if (operand(x, i)->type.width != 1)
        f->ok = false;
  switch (x->kind) {
  case FGK_E_CONST:
  case FGK_E_THREAD:
  case FGK_E_EXTENT:
  case FGK_E_UNARY:
  case FGK_E_BINARY:
    break;
  case FGK_E_VAR:
    f->ok &= var_ok(f, x->u.var);
    break;
  case FGK_E_CALL:
    f->ok &= w == 1 || elementwise_call(x);
    break;
  case FGK_E_VECTOR:
    /* a splat only */
    f->ok &= w == 1 || (x->u.vec.n == 1 && x->u.vec.arg[0]->type.width == 1);
    break;
  case FGK_E_CONVERT:
    f->ok &= w == 1 || (x->type.elem != FG_BOOL &&
                        (!x->u.conv.sat || fgk_is_int(x->type.elem)));
    break;
  case FGK_E_READ: {
    /* at the thread's own point or a tap of it: contiguous runs */
    const fgk_access *a = &x->u.read;
    fge_colref cr;
    f->ok &= a->port >= 0 && a->port < f->e->k->n_in && !a->element &&
             w == f->n &&
             (a->ncoords == 0 || (f->e->interior && fge_read_column(a, &cr) &&
                                  !cr.reversed));
    break;
  }
  default:
    /* swizzles, bit casts, arrays, addresses, atomics, foreign calls */
    f->ok = false;
    break;
  }
}

static void check_stmt(const fgk_stmt *s, void *arg) {
  flat_check *f = arg;
  switch (s->kind) {
  case FGK_S_DECL:
    f->ok &= var_ok(f, s->u.decl);
    break;
  case FGK_S_ASSIGN:
    f->ok &= s->u.assign.lhs->kind == FGK_E_VAR && fge_pure(s->u.assign.rhs);
    break;
  case FGK_S_FOR:
    f->ok &= var_ok(f, s->u.for_.var) && s->u.for_.var->type.width == 1;
    break;
  case FGK_S_IF:
  case FGK_S_WHILE:
  case FGK_S_COMMENT:
    break;
  case FGK_S_WRITE: {
    const fgk_access *a = &s->u.write.at;
    /* a pointwise kernel's loop has no column to fold a location by */
    f->ok &= !a->element && (a->ncoords == 0 || f->e->interior) &&
             a->port >= 0 && a->port < f->e->k->n_out &&
             fge_pure(s->u.write.value);
    break;
  }
  default:
    /* foreach, barriers, expressions run for their effects */
    f->ok = false;
    break;
  }
}

int fge_flat_width(const fgk_emitter *e) {
  const fgk_kernel *k = e->k;
  if (!e->d->flat_interior || !e->split || k->n_out <= 0 || k->grouped ||
      fgk_is_reduction(k->reduce) || k->thread_elements)
    return 0;
  int n = fg_type_tensor_elements(k->out_type[0]);
  if (n < 2 || n > FG_MAX_SMALL_TENSOR)
    return 0;
  for (int o = 0; o < k->n_out; o++)
    if (fg_type_tensor_elements(k->out_type[o]) != n)
      return 0;
  for (int i = 0; i < k->n_in; i++)
    if (fg_type_tensor_elements(k->in_type[i]) != n)
      return 0;
  flat_check f = {e, n, true};
  fgk_visit_block(&k->body,
                  &(fgk_visitor){.expr = check_expr, .stmt = check_stmt,
                                 .arg = &f});
  return f.ok ? n : 0;
}
