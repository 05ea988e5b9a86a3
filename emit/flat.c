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

#include <stdlib.h>
#include <string.h>

typedef struct flat_check {
  const fgk_emitter *e;
  int n;        /* the tensors' element count */
  bool ok;
  int *tag;     /* per scalar var: the element it holds, or UNIFORM */
  const fgk_var **map;  /* per var of element k: its element-0 twin */
} flat_check;

/* A scalar's element: k (0 to n - 1) when it is computed from element k
 * of the kernel's tensors (a swizzle .k, a var of element k), UNIFORM
 * from none of them, MIXED from several. */
enum { MIXED = -2, UNIFORM = -1 };

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

static int join(int a, int b) {
  return a == UNIFORM ? b : b == UNIFORM || a == b ? a : MIXED;
}

/* The element of x, or MIXED; a tensor-wide value is UNIFORM when each
 * of its elements comes from the same element of its operands. */
static int tag_of(const flat_check *f, const fg_expr *x) {
  switch (x->kind) {
  case FGK_E_VAR:
    return x->type.width == 1 ? f->tag[x->u.var->id] : UNIFORM;
  case FGK_E_SWIZZLE:
    return tag_of(f, x->u.swz.a) == UNIFORM ? x->u.swz.comp[0] : MIXED;
  case FGK_E_VECTOR: {
    int t = UNIFORM;
    for (int i = 0; i < x->u.vec.n; i++) {
      int a = tag_of(f, x->u.vec.arg[i]);
      /* a splat of a scalar no element feeds; element i at i */
      if (a != UNIFORM && (x->u.vec.n == 1 || a != i))
        t = MIXED;
    }
    return t;
  }
  default: {
    int t = UNIFORM;
    for (int i = 0; operand(x, i); i++)
      t = join(t, tag_of(f, operand(x, i)));
    /* a tensor from one element */
    return x->type.width != 1 && t != UNIFORM ? MIXED : t;
  }
  }
}

/* Whether a (of element k) is b (of element 0) with element k for 0: the
 * same operations, swizzle .k for .0, each var of element k for its
 * twin. */
static bool twin(const flat_check *f, const fg_expr *a, const fg_expr *b,
                 int k) {
  if (a == b)
    return true;
  if (a->kind != b->kind || !fgk_type_eq(a->type, b->type))
    return false;
  switch (a->kind) {
  case FGK_E_CONST:
    return memcmp(&a->u.k, &b->u.k, sizeof a->u.k) == 0;
  case FGK_E_VAR:
    if (a->type.width != 1 || f->tag[a->u.var->id] == UNIFORM)
      return a->u.var == b->u.var;
    return f->map[a->u.var->id] == b->u.var;
  case FGK_E_THREAD:
    return a->u.thread == b->u.thread;
  case FGK_E_EXTENT:
    return a->u.extent.port == b->u.extent.port &&
           a->u.extent.axis == b->u.extent.axis;
  case FGK_E_SWIZZLE:
    return a->u.swz.n == 1 && b->u.swz.n == 1 && a->u.swz.comp[0] == k &&
           b->u.swz.comp[0] == 0 && twin(f, a->u.swz.a, b->u.swz.a, 0);
  case FGK_E_UNARY:
  case FGK_E_BINARY:
    if (a->u.bin.op != b->u.bin.op)
      return false;
    break;
  case FGK_E_CALL:
    if (a->u.call.fn != b->u.call.fn || a->u.call.n != b->u.call.n)
      return false;
    break;
  case FGK_E_CONVERT:
    if (a->u.conv.sat != b->u.conv.sat)
      return false;
    break;
  default:
    return false;
  }
  for (int i = 0; operand(a, i) || operand(b, i); i++)
    if (!operand(a, i) || !operand(b, i) ||
        !twin(f, operand(a, i), operand(b, i), k))
      return false;
  return true;
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
    /* a splat, or n scalars (element i at i: written per element) */
    f->ok &= w == 1 || x->u.vec.n == 1 || x->u.vec.n == f->n;
    for (int i = 0; i < x->u.vec.n; i++)
      f->ok &= x->u.vec.arg[i]->type.width == 1;
    break;
  case FGK_E_SWIZZLE:
    /* one element of a tensor (its statement is element k's) */
    f->ok &= w == 1 && x->u.swz.n == 1 && x->u.swz.a->type.width == f->n;
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
             (a->ncoords == 0 ||
              (f->e->interior && fge_read_column(f->e->k, a, &cr) &&
               !cr.reversed && cr.scale == 1));
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

/* Whether every statement outside the top level, and every top-level
 * write, is of no element (f->ok cleared otherwise). */
static void uniform_expr(const fg_expr *x, void *arg) {
  flat_check *f = arg;
  f->ok &= tag_of(f, x) == UNIFORM;
}

static void uniform_stmt(const fgk_stmt *s, void *arg) {
  flat_check *f = arg;
  if (s->kind == FGK_S_ASSIGN && s->u.assign.lhs->type.width == 1)
    f->ok &= f->tag[s->u.assign.lhs->u.var->id] == UNIFORM;
}

/* The element of top-level statement s (UNIFORM: of none). */
static int stmt_tag(const flat_check *f, const fgk_stmt *s) {
  const fgk_var *v = s->kind == FGK_S_DECL     ? s->u.decl
                     : s->kind == FGK_S_ASSIGN ? s->u.assign.lhs->u.var
                                               : NULL;
  return v && v->type.width == 1 ? f->tag[v->id] : UNIFORM;
}

/* Every vector literal of n elements: element k's the twin of element 0's. */
static void twin_literals(const fg_expr *x, void *arg) {
  flat_check *f = arg;
  if (x->kind == FGK_E_VECTOR && x->u.vec.n == f->n && f->n > 1)
    for (int k = 1; k < f->n; k++)
      f->ok &= twin(f, x->u.vec.arg[k], x->u.vec.arg[0], k);
}

/* A body written per element, as the built-in pointwise operators are
 * (fgo_map: a scalar chain per element from swizzle .k, joined by a
 * vector literal).  Each scalar var takes the element it holds; element
 * k's top-level statements must be element 0's with k for 0 (pairwise,
 * in order, each var mapped to its twin), and nothing may mix elements.
 * Then emitting element 0's statements, and those of no element, over
 * flat elements computes element k exactly as its own statements did:
 * e->flat_skip lists the others. */
static bool per_element(flat_check *f, fgk_emitter *e) {
  const fgk_block *body = &e->k->body;
  for (bool changed = true; changed;) {
    changed = false;
    for (const fgk_stmt *s = body->first; s; s = s->next) {
      if (s->kind != FGK_S_ASSIGN)
        continue;
      const fgk_var *v = s->u.assign.lhs->u.var;
      int t = tag_of(f, s->u.assign.rhs);
      if (v->type.width != 1)
        t = t == UNIFORM ? UNIFORM : MIXED;
      else
        t = join(f->tag[v->id], t);
      if (t == MIXED)
        return false;
      if (v->type.width == 1 && t != f->tag[v->id]) {
        f->tag[v->id] = t;
        changed = true;
      }
    }
  }
  fgk_visitor uni = {.expr = uniform_expr, .stmt = uniform_stmt, .arg = f};
  int m = 0;
  for (const fgk_stmt *s = body->first; s; s = s->next, m++)
    if (s->kind == FGK_S_WRITE)
      fgk_visit_expr(s->u.write.value, &uni);
    else if (s->kind != FGK_S_DECL && s->kind != FGK_S_ASSIGN &&
             s->kind != FGK_S_COMMENT) {
      fgk_stmt one = *s;   /* this statement alone, nested blocks and all */
      one.next = NULL;
      fgk_visit_block(&(fgk_block){&one, &one}, &uni);
    }
  if (!f->ok)
    return false;
  const fgk_stmt **seq = calloc((size_t)(f->n * m + 1), sizeof *seq);
  int *len = calloc((size_t)f->n, sizeof *len);
  bool ok = seq && len;
  for (const fgk_stmt *s = body->first; ok && s; s = s->next) {
    int t = stmt_tag(f, s);
    if (t >= 0)
      seq[t * m + len[t]++] = s;
  }
  for (int k = 1; ok && k < f->n; k++) {
    ok = len[k] == len[0];
    for (int i = 0; ok && i < len[0]; i++) {
      const fgk_stmt *a = seq[k * m + i], *b = seq[i];
      ok = a->kind == b->kind;
      if (ok && a->kind == FGK_S_DECL) {
        ok = fgk_type_eq(a->u.decl->type, b->u.decl->type);
        f->map[a->u.decl->id] = b->u.decl;
      } else if (ok) {
        ok = f->map[a->u.assign.lhs->u.var->id] == b->u.assign.lhs->u.var &&
             twin(f, a->u.assign.rhs, b->u.assign.rhs, k);
      }
    }
  }
  if (ok) {
    fgk_visit_block(body, &(fgk_visitor){.expr = twin_literals, .arg = f});
    ok = f->ok;
  }
  /* element k >= 1's statements, which the flat loop leaves out */
  int n_skip = 0;
  for (int k = 1; ok && k < f->n; k++)
    for (int i = 0; i < len[k]; i++)
      seq[n_skip++] = seq[k * m + i];
  free(len);
  free(e->flat_skip);
  e->flat_skip = ok ? seq : NULL;
  e->n_flat_skip = ok ? n_skip : 0;
  if (!ok)
    free(seq);
  return ok;
}

bool fge_flat_skipped(const fgk_emitter *e, const fgk_stmt *s) {
  for (int i = 0; i < e->n_flat_skip; i++)
    if (e->flat_skip[i] == s)
      return true;
  return false;
}

int fge_flat_width(fgk_emitter *e) {
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
  flat_check f = {e, n, true, NULL, NULL};
  fgk_visit_block(&k->body,
                  &(fgk_visitor){.expr = check_expr, .stmt = check_stmt,
                                 .arg = &f});
  if (!f.ok)
    return 0;
  f.tag = malloc((size_t)(k->n_vars + 1) * sizeof *f.tag);
  f.map = calloc((size_t)(k->n_vars + 1), sizeof *f.map);
  if (f.tag && f.map)
    for (int i = 0; i <= k->n_vars; i++)
      f.tag[i] = UNIFORM;
  bool ok = f.tag && f.map && per_element(&f, e);
  free(f.tag);
  free(f.map);
  return ok ? n : 0;
}
