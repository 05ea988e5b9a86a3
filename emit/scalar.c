/* emit/scalar.c - small tensors as one scalar per component, for dialects
 * that ask for it (the C dialect).  A float4 variable becomes v3_0..v3_3,
 * a load or store of a small tensor one access per component, and
 * component-wise arithmetic, conversions, swizzles, vector literals and
 * element-wise built-ins are resolved at emission time into scalar
 * expressions.  The thread loop then holds only scalar code, which clang's
 * loop vectorizer widens across pixels, and components nobody reads
 * vanish.  Each component is computed by the same IEEE operation as the
 * vector form, so results are bit-identical.
 *
 * Whatever needs a whole vector (cross, normalize, a RenderScript call)
 * still gets one: a split variable used whole is packed
 * ("((float4){v3_0, v3_1, v3_2, v3_3})"), and a vector result is
 * unpacked into the components.  Expressions with side effects
 * (atomics, RenderScript calls) are never evaluated once per component. */
#include "emit_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- which variables split ----------------------------------------------- */

static void mark_addr(bool *no, int n, const fg_expr *x);

static void mark_args(bool *no, int n, const fg_expr *const *a, int na) {
  for (int i = 0; i < na; i++)
    mark_addr(no, n, a[i]);
}

/* Marks in no[] every variable whose address is taken in x. */
static void mark_addr(bool *no, int n, const fg_expr *x) {
  if (!x)
    return;
  switch (x->kind) {
  case FGK_E_ADDR: {
    const fg_expr *a = x->u.addr;
    while (a && a->kind == FGK_E_SWIZZLE)
      a = a->u.swz.a;
    if (a && a->kind == FGK_E_VAR && a->u.var->id >= 0 && a->u.var->id < n)
      no[a->u.var->id] = true;
    if (a && a->kind == FGK_E_INDEX && a->u.index.var->id >= 0 &&
        a->u.index.var->id < n)
      no[a->u.index.var->id] = true;
    mark_addr(no, n, x->u.addr);
    break;
  }
  case FGK_E_UNARY:
  case FGK_E_BINARY:
    mark_addr(no, n, x->u.bin.a);
    mark_addr(no, n, x->u.bin.b);
    break;
  case FGK_E_CALL:
    mark_args(no, n, (const fg_expr *const *)x->u.call.arg, x->u.call.n);
    break;
  case FGK_E_SWIZZLE:
    mark_addr(no, n, x->u.swz.a);
    break;
  case FGK_E_VECTOR:
    mark_args(no, n, (const fg_expr *const *)x->u.vec.arg, x->u.vec.n);
    break;
  case FGK_E_CONVERT:
  case FGK_E_AS:
    mark_addr(no, n, x->u.conv.a);
    break;
  case FGK_E_READ:
    mark_args(no, n, (const fg_expr *const *)x->u.read.coord,
              x->u.read.ncoords);
    mark_addr(no, n, x->u.read.elem);
    break;
  case FGK_E_INDEX:
    mark_args(no, n, (const fg_expr *const *)x->u.index.idx, x->u.index.n);
    break;
  case FGK_E_ATOMIC:
    mark_addr(no, n, x->u.atomic.p);
    mark_addr(no, n, x->u.atomic.a);
    mark_addr(no, n, x->u.atomic.b);
    break;
  case FGK_E_FOREIGN:
    /* a foreign (script) function may take the address of any variable it is
     * passed (out parameters): none of them splits */
    for (int i = 0; i < x->u.foreign.n; i++) {
      const fg_expr *a = x->u.foreign.arg[i];
      if (a->kind == FGK_E_VAR && a->u.var->id >= 0 && a->u.var->id < n)
        no[a->u.var->id] = true;
      mark_addr(no, n, a);
    }
    break;
  default:
    break;
  }
}

/* Walks block b: candidates[] gets every plain small-tensor variable
 * declared, no[] every one whose address is taken or that drives a loop. */
static void scan(const fgk_block *b, bool *cand, bool *no, int n) {
  for (const fgk_stmt *s = b->first; s; s = s->next) {
    switch (s->kind) {
    case FGK_S_DECL: {
      const fgk_var *v = s->u.decl;
      if (v->id >= 0 && v->id < n && v->type.width > 1 && v->ndims == 0 &&
          !v->local && !v->volatile_)
        cand[v->id] = true;
      break;
    }
    case FGK_S_ASSIGN:
      mark_addr(no, n, s->u.assign.lhs);
      mark_addr(no, n, s->u.assign.rhs);
      break;
    case FGK_S_IF:
      mark_addr(no, n, s->u.if_.cond);
      scan(&s->u.if_.then, cand, no, n);
      scan(&s->u.if_.els, cand, no, n);
      break;
    case FGK_S_FOR:
      if (s->u.for_.var->id >= 0 && s->u.for_.var->id < n)
        no[s->u.for_.var->id] = true;
      mark_addr(no, n, s->u.for_.init);
      mark_addr(no, n, s->u.for_.cond);
      mark_addr(no, n, s->u.for_.step);
      scan(&s->u.for_.body, cand, no, n);
      break;
    case FGK_S_WHILE:
      mark_addr(no, n, s->u.while_.cond);
      scan(&s->u.while_.body, cand, no, n);
      break;
    case FGK_S_FOREACH:
      scan(&s->u.foreach.body, cand, no, n);
      break;
    case FGK_S_WRITE:
      mark_args(no, n, (const fg_expr *const *)s->u.write.at.coord,
                s->u.write.at.ncoords);
      mark_addr(no, n, s->u.write.at.elem);
      mark_addr(no, n, s->u.write.value);
      break;
    case FGK_S_EXPR:
      mark_addr(no, n, s->u.expr);
      break;
    default:
      break;
    }
  }
}

bool fge_split_vars(fgk_emitter *e) {
  const fgk_kernel *k = e->k;
  int n = k->n_vars > 0 ? k->n_vars : 0;
  if (!e->d->scalarize || e->per_thread || k->grouped)
    return true;
  /* non-NULL even without variables: e->split also turns on the
   * per-component loads and stores */
  bool *cand = calloc((size_t)n + 1, sizeof *cand);
  bool *no = calloc((size_t)n + 1, sizeof *no);
  if (!cand || !no) {
    free(cand);
    free(no);
    return false;
  }
  scan(&k->body, cand, no, n);
  for (int i = 0; i < n; i++)
    cand[i] = cand[i] && !no[i];
  free(no);
  e->split = cand;
  e->comp = fge_comp;
  return true;
}

/* ---- expressions ---------------------------------------------------------- */

/* Whether x may be evaluated more than once (once per component). */
bool fge_pure(const fg_expr *x) {
  if (!x)
    return true;
  switch (x->kind) {
  case FGK_E_ATOMIC:
  case FGK_E_FOREIGN:
    return false;
  case FGK_E_UNARY:
  case FGK_E_BINARY:
    return fge_pure(x->u.bin.a) && fge_pure(x->u.bin.b);
  case FGK_E_CALL:
    for (int i = 0; i < x->u.call.n; i++)
      if (!fge_pure(x->u.call.arg[i]))
        return false;
    return true;
  case FGK_E_SWIZZLE:
    return fge_pure(x->u.swz.a);
  case FGK_E_VECTOR:
    for (int i = 0; i < x->u.vec.n; i++)
      if (!fge_pure(x->u.vec.arg[i]))
        return false;
    return true;
  case FGK_E_CONVERT:
  case FGK_E_AS:
    return fge_pure(x->u.conv.a);
  case FGK_E_READ:
    for (int i = 0; i < x->u.read.ncoords; i++)
      if (!fge_pure(x->u.read.coord[i]))
        return false;
    return fge_pure(x->u.read.elem);
  case FGK_E_INDEX:
    for (int i = 0; i < x->u.index.n; i++)
      if (!fge_pure(x->u.index.idx[i]))
        return false;
    return true;
  case FGK_E_ADDR:
    return fge_pure(x->u.addr);
  default:
    return true;
  }
}

/* Whether x mentions variable v. */
static bool mentions(const fg_expr *x, const fgk_var *v) {
  if (!x)
    return false;
  switch (x->kind) {
  case FGK_E_VAR:
    return x->u.var == v;
  case FGK_E_UNARY:
  case FGK_E_BINARY:
    return mentions(x->u.bin.a, v) || mentions(x->u.bin.b, v);
  case FGK_E_CALL:
    for (int i = 0; i < x->u.call.n; i++)
      if (mentions(x->u.call.arg[i], v))
        return true;
    return false;
  case FGK_E_SWIZZLE:
    return mentions(x->u.swz.a, v);
  case FGK_E_VECTOR:
    for (int i = 0; i < x->u.vec.n; i++)
      if (mentions(x->u.vec.arg[i], v))
        return true;
    return false;
  case FGK_E_CONVERT:
  case FGK_E_AS:
    return mentions(x->u.conv.a, v);
  default:
    /* reads, indexing, calls into scripts: addressed variables never
     * split, and indices are scalars */
    return false;
  }
}

/* Narrow integers compute in int in C but in their own width in a vector:
 * such a result is cast back to its element type. */
static bool narrow(fg_elem el) { return fgk_is_int(el) && fg_elem_size(el) < 4; }

/* Emits component c of x converted to element type el. */
static void comp_as(fgk_emitter *e, const fg_expr *x, int c, fg_elem el) {
  if (x->type.elem == el) {
    fge_comp(e, x, c);
    return;
  }
  fgk_putf(e, "((%s)(", e->d->type_name(fgk_t(el, 1)));
  fge_comp(e, x, c);
  fgk_put(e, "))");
}

/* A vector comparison's component: -1 for true, in the result's type. */
static void open_truth(fgk_emitter *e, fg_elem el) {
  fgk_putf(e, "((%s)-(", e->d->type_name(fgk_t(el, 1)));
}

static void comp_binary(fgk_emitter *e, const fg_expr *x, int c) {
  int opc = x->u.bin.op;
  const fg_expr *a = x->u.bin.a, *b = x->u.bin.b;
  fg_elem el = x->type.elem;
  if (opc >= FGK_EQ && opc <= FGK_GE) {
    fg_elem ot = fge_compare_type(a, b).elem;
    open_truth(e, el);
    comp_as(e, a, c, ot);
    fgk_putf(e, " %s ", fge_binop_text[opc]);
    comp_as(e, b, c, ot);
    fgk_put(e, "))");
  } else if (opc == FGK_LAND || opc == FGK_LOR) {
    open_truth(e, el);
    fge_comp(e, a, c);
    fgk_putf(e, " %s ", fge_binop_text[opc]);
    fge_comp(e, b, c);
    fgk_put(e, "))");
  } else if (opc == FGK_SHL || opc == FGK_SHR) {
    int bits = (int)fg_elem_size(el) * 8;
    fgk_putf(e, "((%s)(", e->d->type_name(fgk_t(el, 1)));
    comp_as(e, a, c, el);
    fgk_putf(e, " %s (", fge_binop_text[opc]);
    comp_as(e, b, c, el);
    fgk_putf(e, " & %d)))", bits - 1);
  } else if ((opc == FGK_DIV || opc == FGK_MOD) && fgk_is_int(el)) {
    char name[64];
    fge_divmod_helper(e, opc == FGK_MOD, fgk_t(el, 1), name, sizeof name);
    fgk_putf(e, "%s(", name);
    comp_as(e, a, c, el);
    fgk_put(e, ", ");
    comp_as(e, b, c, el);
    fgk_put(e, ")");
  } else {
    bool cast = narrow(el);
    if (cast)
      fgk_putf(e, "((%s)", e->d->type_name(fgk_t(el, 1)));
    fgk_put(e, "(");
    comp_as(e, a, c, el);
    fgk_putf(e, " %s ", fge_binop_text[opc]);
    comp_as(e, b, c, el);
    fgk_put(e, cast ? "))" : ")");
  }
}

/* Component c of element-wise built-in call x: the same built-in on the
 * components (a scalar call, spelled by the dialect). */
static void comp_call(fgk_emitter *e, const fg_expr *x, int c) {
  const fgk_builtin_info *b = &fgk_builtins[x->u.call.fn];
  fg_elem el = x->type.elem;
  if (x->u.call.fn == FGK_FN_select) {
    /* the most significant bit of the condition's component selects */
    fg_elem ce = x->u.call.arg[2]->type.elem;
    fg_elem se = fgk_is_signed(ce) ? ce : (fg_elem)(ce - 1);
    fgk_putf(e, "((%s)", e->d->type_name(fgk_t(se, 1)));
    fge_comp(e, x->u.call.arg[2], c);
    fgk_put(e, " < 0 ? ");
    comp_as(e, x->u.call.arg[1], c, el);
    fgk_put(e, " : ");
    comp_as(e, x->u.call.arg[0], c, el);
    fgk_put(e, ")");
    return;
  }
  fg_expr call = *x, sw[3];
  bool rel = b->rule == FGK_RULE_REL;
  call.type = fgk_t(rel ? FG_I32 : el, 1);
  for (int i = 0; i < x->u.call.n; i++) {
    const fg_expr *a = x->u.call.arg[i];
    if (a->type.width == 1)
      continue;
    sw[i] = (fg_expr){.kind = FGK_E_SWIZZLE, .type = fgk_t(a->type.elem, 1),
                      .op = a->op};
    sw[i].u.swz.a = (fg_expr *)a;
    sw[i].u.swz.n = 1;
    sw[i].u.swz.comp[0] = c;
    call.u.call.arg[i] = &sw[i];
  }
  if (rel)
    open_truth(e, el);
  e->d->call(e, &call);
  if (rel)
    fgk_put(e, "))");
}

/* Whether call x is computed component by component. */
static bool elementwise(const fg_expr *x) {
  return *fgk_builtins[x->u.call.fn].c_template ||
         (x->u.call.fn == FGK_FN_select && x->type.width > 1);
}

void fge_comp(fgk_emitter *e, const fg_expr *x, int c) {
  if (x->type.width == 1) {
    fgk_ex(e, x);
    return;
  }
  switch (x->kind) {
  case FGK_E_VAR:
    if (fge_is_split(e, x->u.var)) {
      fgk_putf(e, "v%d_%d", x->u.var->id, c);
      return;
    }
    break;
  case FGK_E_UNARY: {
    int op = x->u.bin.op;
    const fg_expr *a = x->u.bin.a;
    fg_elem el = x->type.elem;
    if (op == FGK_LNOT) {
      open_truth(e, el);
      fgk_put(e, "!");
      fge_comp(e, a, c);
      fgk_put(e, "))");
    } else {
      fgk_putf(e, "((%s)(%s", e->d->type_name(fgk_t(el, 1)),
               op == FGK_NEG ? "-" : "~");
      comp_as(e, a, c, el);
      fgk_put(e, "))");
    }
    return;
  }
  case FGK_E_BINARY:
    comp_binary(e, x, c);
    return;
  case FGK_E_CALL:
    if (elementwise(x)) {
      comp_call(e, x, c);
      return;
    }
    break;
  case FGK_E_SWIZZLE:
    fge_comp(e, x->u.swz.a, x->u.swz.comp[c]);
    return;
  case FGK_E_VECTOR: {
    int off = 0;
    for (int i = 0; i < x->u.vec.n; i++) {
      const fg_expr *a = x->u.vec.arg[i];
      if (x->u.vec.n == 1 && a->type.width == 1) {
        comp_as(e, a, 0, x->type.elem);   /* a splat */
        return;
      }
      if (c < off + a->type.width) {
        comp_as(e, a, c - off, x->type.elem);
        return;
      }
      off += a->type.width;
    }
    break;
  }
  case FGK_E_CONVERT: {
    const fg_expr *a = x->u.conv.a;
    if (!x->u.conv.sat && x->type.elem != FG_BOOL) {
      comp_as(e, a, c, x->type.elem);
      return;
    }
    if (x->u.conv.sat && fgk_is_int(x->type.elem) && fge_pure(a)) {
      /* the scalar saturating conversion of the component: a vector
       * helper's result, unpacked per component, stops the vectorizer */
      fg_expr sw = {.kind = FGK_E_SWIZZLE, .type = fgk_t(a->type.elem, 1),
                    .op = a->op};
      sw.u.swz.a = (fg_expr *)a;
      sw.u.swz.n = 1;
      sw.u.swz.comp[0] = a->type.width > 1 ? c : 0;
      e->d->convert_sat(e, a->type.width > 1 ? &sw : a, sw.type,
                        fgk_t(x->type.elem, 1));
      return;
    }
    break;
  }
  case FGK_E_READ: {
    const fgk_access *a = &x->u.read;
    fg_type ft = e->k->in_type[a->port];
    int n = fg_type_tensor_elements(ft);
    if (a->element || n <= 1 || n > FG_MAX_SMALL_TENSOR)
      break;
    char buf[16], ptr[32];
    snprintf(buf, sizeof buf, "in%d", a->port);
    fge_hoist_base(e, buf, a, n, false, ptr, sizeof ptr);
    if (e->flat) {
      /* (location - fgk_c) n + fgk_j, which is location n + k: clang
       * folds the column away and sees one contiguous run */
      fgk_putf(e, "%s[(", ptr);
      if (a->ncoords > 0)
        fge_location(e, "fgk_at", buf, a);
      else
        fgk_put(e, ft.field.ndim == 0 ? "0" : "fgk_i");
      fgk_putf(e, " - fgk_c) * %d + fgk_j]", n);
      return;
    }
    int w, tb = e->n_rowtap && !e->coltab_pre ? fge_rowtap_table(e, x) : -1;
    if (tb >= 0) {
      /* a row tap's word (emit/rowtaps.c), as fgk_tap4's */
      int s = (int)fg_elem_size(ft.elem);
      fgk_putf(e, "((%s)(fgk_rt%d[fgk_c - fgk_cb] >> %d))",
               e->d->type_name(fgk_t(ft.elem, 1)), tb, 8 * s * c);
      return;
    }
    if (!e->hoist_col[0] && (w = fge_stride_word(e, x, n))) {
      fge_stride_comp(e, buf, ptr, a, n, w, c);
      return;
    }
    if (fge_tap_word(e, a, n)) {
      fge_tap_comp(e, buf, ptr, a, n, c);
      return;
    }
    fgk_putf(e, "%s[", ptr);
    fge_ex_index(e, buf, a, n, false, ft.field.ndim == 0);
    fgk_putf(e, " + %d]", c);
    return;
  }
  default:
    break;
  }
  /* a whole vector, then its component */
  fgk_put(e, "(");
  fgk_ex(e, x);
  fgk_putf(e, ").s%d", c);
}

/* ---- statements ----------------------------------------------------------- */

void fge_declare(fgk_emitter *e, const fgk_var *v) {
  fge_line(e);
  fgk_putf(e, "%s ", e->d->type_name(fgk_t(v->type.elem, 1)));
  for (int c = 0; c < v->type.width; c++)
    fgk_putf(e, "%sv%d_%d", c ? ", " : "", v->id, c);
  fgk_put(e, ";\n");
}

void fge_zero(fgk_emitter *e, const fgk_var *v) {
  fge_line(e);
  for (int c = 0; c < (e->flat ? 1 : v->type.width); c++)
    fgk_putf(e, "%sv%d_%d = (%s)0;", c ? " " : "", v->id, c,
             e->d->type_name(fgk_t(v->type.elem, 1)));
  fgk_put(e, "\n");
}

bool fge_assign(fgk_emitter *e, const fg_expr *lhs, const fg_expr *rhs) {
  const fgk_var *v = lhs->kind == FGK_E_VAR ? lhs->u.var
                   : lhs->kind == FGK_E_INDEX && lhs->u.index.n == 0
                       ? lhs->u.index.var : NULL;
  if (!v || !fge_is_split(e, v))
    return false;
  fg_elem el = v->type.elem;
  const char *ety = e->d->type_name(fgk_t(el, 1));
  int w = e->flat ? 1 : v->type.width;
  if (!fge_pure(rhs)) {
    /* evaluated once, whole, then unpacked */
    fge_line(e);
    fgk_putf(e, "{ const %s fgk_s = ", e->d->type_name(v->type));
    fgk_ex_as_type(e, rhs, v->type);
    fgk_put(e, ";");
    for (int c = 0; c < w; c++)
      fgk_putf(e, " v%d_%d = fgk_s.s%d;", v->id, c, c);
    fgk_put(e, " }\n");
  } else if (mentions(rhs, v)) {
    /* every component from the old value: through temporaries */
    fge_line(e);
    fgk_put(e, "{\n");
    for (int c = 0; c < w; c++) {
      fge_line(e);
      fgk_putf(e, "  const %s fgk_s%d = ", ety, c);
      comp_as(e, rhs, c, el);
      fgk_put(e, ";\n");
    }
    fge_line(e);
    for (int c = 0; c < w; c++)
      fgk_putf(e, " v%d_%d = fgk_s%d;", v->id, c, c);
    fgk_put(e, "\n");
    fge_line(e);
    fgk_put(e, "}\n");
  } else {
    for (int c = 0; c < w; c++) {
      fge_line(e);
      fgk_putf(e, "v%d_%d = ", v->id, c);
      comp_as(e, rhs, c, el);
      fgk_put(e, ";\n");
    }
  }
  return true;
}

void fge_store(fgk_emitter *e, const char *buf, int n, fg_elem el,
               const fg_expr *value) {
  if (e->flat) {   /* element fgk_w n + k, as a read's (fge_comp) */
    fgk_putf(e, "%s[(fgk_w - fgk_c) * %d + fgk_j] = ", buf, n);
    comp_as(e, value, 0, el);
    fgk_put(e, ";\n");
    return;
  }
  for (int c = 0; c < n; c++) {
    if (c)
      fge_line(e);
    fgk_putf(e, "%s[fgk_w * %d + %d] = ", buf, n, c);
    comp_as(e, value, c, el);
    fgk_put(e, ";\n");
  }
}
