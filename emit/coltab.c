/* emit/coltab.c - values that depend only on the column, computed once
 * per block of columns into tables.  A resize's source column, its
 * floor, fraction and weights are the same on every row, yet the thread
 * body recomputed them for every pixel.  A statement at the top of a
 * loop-free body that assigns a scalar variable from the thread's
 * column, constants, extents, 0-D inputs and variables of the same kind
 * is a column statement: the kernel runs those statements (and the
 * constant ones they need) in a loop over a block of columns before the
 * rows, storing each one's value in a table, and the thread body loads
 * it from there instead (clang drops the loads nobody reads).  The C
 * dialect's blocks lie in a tile of rows (emit/dialect_c.c); OpenCL C's
 * block is the strip of a CPU work-item that runs several rows
 * (e->strip_rows, emit/dialect_cl.c), its tables private arrays.  The
 * values are computed by the same statements in the same order, so
 * results are unchanged. */
#include "emit_impl.h"
#include "ir/visit.h"

#include <stdlib.h>

/* Anything that may change a variable behind its assignments. */
static void escapes(const fg_expr *x, void *arg) {
  if (x->kind == FGK_E_ADDR || x->kind == FGK_E_FOREIGN ||
      x->kind == FGK_E_ATOMIC)
    *(bool *)arg = true;
}

enum { K_INV, K_COL, K_OTHER };

/* The class of x given the variables' classes cls: K_INV (no thread
 * coordinate), K_COL (the column, nothing else per thread) or K_OTHER. */
static int cls_of(const fgk_emitter *e, const unsigned char *cls,
                  const fg_expr *x) {
  if (!x)
    return K_INV;
  switch (x->kind) {
  case FGK_E_CONST:
  case FGK_E_EXTENT:
    return K_INV;
  case FGK_E_THREAD:
    return x->u.thread == FG_COLUMN ? K_COL
           : x->u.thread == FG_LAYERS || x->u.thread == FG_ROWS ||
                   x->u.thread == FG_COLUMNS
               ? K_INV : K_OTHER;
  case FGK_E_VAR:
    return x->u.var->id >= 0 && x->u.var->id < e->k->n_vars
               ? cls[x->u.var->id] : K_OTHER;
  case FGK_E_UNARY:
  case FGK_E_BINARY: {
    int a = cls_of(e, cls, x->u.bin.a), b = cls_of(e, cls, x->u.bin.b);
    return a > b ? a : b;
  }
  case FGK_E_CONVERT:
  case FGK_E_AS:
    return cls_of(e, cls, x->u.conv.a);
  case FGK_E_SWIZZLE:
    return cls_of(e, cls, x->u.swz.a);
  case FGK_E_CALL:
  case FGK_E_VECTOR: {
    int n = x->kind == FGK_E_CALL ? x->u.call.n : x->u.vec.n, c = K_INV;
    for (int i = 0; i < n; i++) {
      int a = cls_of(e, cls, x->kind == FGK_E_CALL ? x->u.call.arg[i]
                                                   : x->u.vec.arg[i]);
      c = a > c ? a : c;
    }
    return c;
  }
  case FGK_E_READ:
    /* the only tensor of a 0-D input: the same for every thread */
    return x->u.read.ncoords == 0 && !x->u.read.element &&
                   x->u.read.port >= 0 && x->u.read.port < e->k->n_in &&
                   e->k->in_type[x->u.read.port].field.ndim == 0
               ? K_INV : K_OTHER;
  default:
    return K_OTHER;
  }
}

/* Whether s is a plain top-level assignment of a whole scalar variable
 * the emitter holds as one C variable. */
static const fgk_var *plain_var(const fgk_emitter *e, const fgk_stmt *s) {
  if (s->kind != FGK_S_ASSIGN || s->u.assign.lhs->kind != FGK_E_VAR)
    return NULL;
  const fgk_var *v = s->u.assign.lhs->u.var;
  if (v->ndims || v->local || v->volatile_ || v->id < 0 ||
      v->id >= e->k->n_vars || fge_is_split(e, v))
    return NULL;
  return v;
}

bool fge_coltab_plan(fgk_emitter *e) {
  const fgk_kernel *k = e->k;
  e->n_coltab = 0;
  /* a strip of one row would fill its tables for that row alone */
  if (!e->d->column_tables || (e->strip > 1 && e->strip_rows <= 1) ||
      k->grouped || fgk_is_reduction(k->reduce) ||
      k->thread_elements || k->out_init || e->per_thread ||
      fge_stencil_bounds(e, NULL) || k->n_vars <= 0)
    return true;
  int n = 0;
  for (const fgk_stmt *s = k->body.first; s; s = s->next) {
    if (s->kind == FGK_S_FOR || s->kind == FGK_S_WHILE ||
        s->kind == FGK_S_FOREACH || s->kind == FGK_S_IF)
      return true;      /* loops and branches: left as they are */
    n++;
  }
  bool esc = false;
  fgk_visit_block(&k->body, &(fgk_visitor){.expr = escapes, .arg = &esc});
  if (esc)
    return true;
  unsigned char *cls = calloc((size_t)k->n_vars, 1);
  unsigned char *st = calloc((size_t)n + 1, 1);
  if (!cls || !st) {
    free(cls);
    free(st);
    return false;
  }
  int i = 0, cols = 0;
  for (const fgk_stmt *s = k->body.first; s; s = s->next, i++) {
    const fgk_var *v = plain_var(e, s);
    if (s->kind == FGK_S_DECL) {
      st[i] = K_INV;
      continue;
    }
    int c = s->kind == FGK_S_ASSIGN ? cls_of(e, cls, s->u.assign.rhs)
                                    : K_OTHER;
    if (v) {
      cls[v->id] = (unsigned char)c;
    } else if (s->kind == FGK_S_ASSIGN) {
      /* a whole variable held otherwise (split into components) keeps a
       * constant's class, not a column's (it has no table); a part of a
       * variable makes the whole of it another's */
      const fg_expr *l = s->u.assign.lhs;
      if (l->kind != FGK_E_VAR || c == K_COL)
        c = K_OTHER;
      while (l->kind == FGK_E_SWIZZLE)
        l = l->u.swz.a;
      if (l->kind == FGK_E_VAR && l->u.var->id >= 0 &&
          l->u.var->id < k->n_vars)
        cls[l->u.var->id] = (unsigned char)c;
      else if (l->kind == FGK_E_INDEX && l->u.index.var->id >= 0 &&
               l->u.index.var->id < k->n_vars)
        cls[l->u.index.var->id] = K_OTHER;
    }
    st[i] = (unsigned char)c;
    cols += c == K_COL;
  }
  free(cls);
  if (!cols) {
    free(st);
    return true;
  }
  e->coltab = st;
  e->n_coltab = n;
  return true;
}

int fge_coltab_index(const fgk_emitter *e, const fgk_stmt *s, int *cls) {
  int i = 0;
  for (const fgk_stmt *t = e->k->body.first; t && i < e->n_coltab;
       t = t->next, i++)
    if (t == s) {
      *cls = e->coltab[i] == K_COL ? 1 : e->coltab[i] == K_INV ? 0 : 2;
      return i;
    }
  return -1;
}

void fge_coltab_emit(fgk_emitter *e) {
  const fgk_kernel *k = e->k;
  int i = 0;
  for (const fgk_stmt *s = k->body.first; s && i < e->n_coltab;
       s = s->next, i++) {
    if (e->coltab[i] != K_COL)
      continue;
    const fgk_var *v = s->u.assign.lhs->u.var;
    e->n_coltab_tables++;
    e->coltab_bytes += (int)fg_elem_size(v->type.elem) * v->type.width;
    fgu_buf_printf(&e->coltab_decl, "  %s fgk_col%d[fgk_CB];\n",
                   e->d->type_name(v->type), i);
  }
}

void fge_coltab_free(fgk_emitter *e) {
  free(e->coltab);
  e->coltab = NULL;
  e->n_coltab = 0;
  e->n_coltab_tables = 0;
  e->coltab_bytes = 0;
  fgu_buf_free(&e->coltab_decl);
  fgu_buf_free(&e->coltab_pre_text);
}
