/* emit/expr.c - expressions, for both source dialects: literals,
 * variables, operators, conversions, vector literals, swizzles, and the
 * addressing of tensor fields (implicit, explicit with clamp-to-edge or
 * another border rule for reads and dropped out-of-field writes, big and
 * small tensors).  What differs between C and OpenCL C is asked of the
 * dialect; a component of a scalarized small tensor of emit/scalar.c,
 * through the emitter's comp hook. */
#include "emit_impl.h"
#include "abi.h"
#include "ir/visit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void fgk_ex_as_type(fgk_emitter *e, const fg_expr *x, fgk_type t) {
  if (fgk_type_eq(x->type, t)) {
    fgk_ex(e, x);
  } else if (t.width == 1) {
    fgk_putf(e, "((%s)(", e->d->type_name(t));
    fgk_ex(e, x);
    fgk_put(e, "))");
  } else if (x->type.width == 1) {
    e->d->splat(e, x, t);
  } else {
    e->d->vconvert(e, x, t);
  }
}

static void ex_literal(fgk_emitter *e, const fg_expr *x) {
  fg_elem el = x->type.elem;
  const char *ty = e->d->type_name(fgk_t(el, 1));
  switch (el) {
  case FG_F32:
  case FG_F64: {
    double v = x->u.k.f;
    const char *sfx = el == FG_F32 ? "f" : "";
    if (isnan(v)) {
      fgk_putf(e, "((%s)NAN)", ty);
    } else if (isinf(v)) {
      fgk_putf(e, "((%s)%sINFINITY)", ty, v < 0 ? "-" : "");
    } else {
      char num[64];
      snprintf(num, sizeof num, el == FG_F32 ? "%.9g" : "%.17g", v);
      bool has_point = strpbrk(num, ".e") != NULL;
      fgk_putf(e, "(%s%s%s)", num, has_point ? "" : ".0", sfx);
    }
    break;
  }
  case FG_I64:
    if (x->u.k.i == INT64_MIN)
      fgk_put(e, fgk_int_min_literal(FG_I64));
    else
      fgk_putf(e, "(%lldL)", (long long)x->u.k.i);
    break;
  case FG_U64:
    fgk_putf(e, "(%lluUL)", (unsigned long long)x->u.k.u);
    break;
  case FG_U32:
    fgk_putf(e, "(%lluu)", (unsigned long long)x->u.k.u);
    break;
  case FG_I32:
    if (x->u.k.i == INT32_MIN)
      fgk_put(e, fgk_int_min_literal(FG_I32));
    else
      fgk_putf(e, "(%lld)", (long long)x->u.k.i);
    break;
  default:
    fgk_putf(e, "((%s)%lld)", ty, (long long)x->u.k.i);
  }
}

static const char *const thread_name[FG_THREAD_CONST_COUNT_] = {
  "_layer", "_row", "_column", "_layers", "_rows", "_columns",
  "_tensorElement", "_tensorElements", "_localLayers", "_localRows",
  "_localColumns", "_localLayer", "_localRow", "_localColumn",
  "_groupLayer", "_groupRow", "_groupColumn"};

/* A variable's name; in per-thread mode a private one is an array of the
 * group's threads, in the lanes' copy one of the block's columns. */
void fge_var_name(fgk_emitter *e, const fgk_var *v) {
  if (v->id < 0 && e->acc_name) {
    fgk_putf(e, "%s[0]", e->acc_name);
    return;
  }
  fgk_putf(e, "v%d", v->id);
  if (e->per_thread && !v->local)
    fgk_put(e, "[fgk_lt]");
  else if (e->lanes && !v->local && !fge_lane_uniform(e, v))
    fgk_put(e, "[fgk_k]");
}

bool fge_is_split(const fgk_emitter *e, const fgk_var *v) {
  return e->split && v->id >= 0 && v->id < e->k->n_vars && e->split[v->id];
}

void fge_pack(fgk_emitter *e, const fgk_var *v) {
  e->d->vec_open(e, v->type);
  for (int c = 0; c < v->type.width; c++)
    fgk_putf(e, "%sv%d_%d", c ? ", " : "", v->id, c);
  fgk_put(e, e->d->vec_close);
}

const char *const fge_binop_text[FGK_BINOP_COUNT_] = {
  "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||",
  "&", "|", "^", "<<", ">>"};


/* Whether access a's column is a variable that the loop being emitted
 * keeps inside a's input's columns (walk.c's column loops). */
static bool in_columns(const fgk_emitter *e, const fgk_access *a) {
  if (a->ncoords < 1 || a->port < 0 || a->port >= e->k->n_in)
    return false;
  const fg_expr *c = a->coord[a->ncoords - 1];
  if (!c || c->kind != FGK_E_VAR)
    return false;
  for (int i = 0; i < e->n_in_cols; i++)
    if (e->in_cols[i].var == c->u.var && e->in_cols[i].port == a->port)
      return true;
  return false;
}

/* Whether read a's column is known to lie inside its input's columns:
 * its range (fgk_int_range: a lookup table's index clamped to the table's
 * length, a byte, a mask) within the columns the input's type has.  The
 * kernel's source then differs from the clamped one, so a build of it
 * never serves a narrower field. */
static bool column_known_inside(const fgk_emitter *e, const fgk_access *a) {
  if (a->ncoords < 1 || a->port < 0 || a->port >= e->k->n_in)
    return false;
  const fg_expr *c = a->coord[a->ncoords - 1];
  long lo, hi;
  int64_t d[FGE_DIM_AXES];
  fge_abi_shape_dims(e->k->in_type[a->port].field, d);
  return c && fgk_int_range(e->k, c, &lo, &hi) && lo >= 0 &&
         hi < d[FGE_DIM_COLUMNS];
}

/* Whether e emits a stencil interior in which read a is a based read
 * (fge_based, emit/stencil.c): its element base + _column + dc lies inside
 * the field there; fills b. */
static bool interior_based(const fgk_emitter *e, const fgk_access *a,
                           fge_based *b) {
  return e->interior && e->d->based_columns && fge_read_based(e->k, a, b);
}

/* Emits the flat index of based read a in the interior: its column as
 * (long)base + fgk_c + dc, affine in the column (the even element of a
 * pair). */
static void based_location(fgk_emitter *e, const char *buf,
                           const fgk_access *a, const fge_based *b) {
  fgk_putf(e, "fgk_atx(%s_L, %s_R, %s_C, ", buf, buf, buf);
  for (int i = 0; i < 2; i++) {
    int ci = i - (3 - a->ncoords);
    if (ci < 0) {
      fgk_put(e, "0, ");
    } else {
      fgk_put(e, "(long)(");
      fgk_ex(e, a->coord[ci]);
      fgk_put(e, "), ");
    }
  }
  fgk_put(e, "(long)(");
  fgk_ex(e, b->base);
  fgk_putf(e, ") + fgk_c + %ldL)", b->dc);
}

/* Narrows [fgk_lo, fgk_hi) to the columns c where based read x's
 * elements base + c + dc (and the one before, for a pair) lie inside its
 * input's columns. */
static void based_bounds(const fg_expr *x, void *arg) {
  fgk_emitter *e = arg;
  fge_based b;
  if (x->kind != FGK_E_READ || !fge_read_based(e->k, &x->u.read, &b))
    return;
  long lo = b.dc - (b.pair ? 1 : 0), hi = b.dc;
  int p = x->u.read.port;
  fgk_put(e, "    { const long fgk_b = (long)(");
  fgk_ex(e, b.base);
  fgk_putf(e, ");\n      if (fgk_lo < %ldL - fgk_b) fgk_lo = %ldL - fgk_b;\n"
           "      if (fgk_hi > in%d_C - %ldL - fgk_b) fgk_hi = in%d_C - %ldL "
           "- fgk_b; }\n", -lo, -lo, p, hi, p, hi);
}

void fge_based_bounds(fgk_emitter *e, fgu_buf *out) {
  if (!e->d->based_columns)
    return;
  fgu_buf saved = e->out;
  e->out = *out;
  size_t len = e->out.len;
  fgk_visit_block(&e->k->body, &(fgk_visitor){.expr = based_bounds,
                                              .arg = e});
  if (e->out.len != len)   /* a stencil without such reads keeps its text */
    fgk_put(e, "    if (fgk_hi < fgk_lo) fgk_hi = fgk_lo;\n");
  *out = e->out;
  e->out = saved;
}

/* Emits fn(L, R, C, layer, row, column) for an explicit access to buffer
 * buf: the prelude's fgk_at (clamped, for reads; fgk_at_<rule> under
 * another border rule) or fgk_wat (-1 outside, for writes); missing
 * leading coordinates are 0. */
void fge_location(fgk_emitter *e, const char *fn, const char *buf,
                        const fgk_access *a) {
  if (!strcmp(fn, "fgk_at") && e->hoist_col[0]) {
    fgk_put(e, e->hoist_col);       /* within a hoisted row */
    e->hoist_col[0] = 0;
    return;
  }
  fge_based based;
  if (!strcmp(fn, "fgk_at") && interior_based(e, a, &based)) {
    based_location(e, buf, a, &based);
    return;
  }
  /* a stencil's interior: the column is inside the field, unclamped */
  fge_colref cr = {0};
  bool inside = e->interior && !strcmp(fn, "fgk_at") && a->ncoords > 0 &&
                fge_read_column(e->k, a, &cr);
  const char *rule = !strcmp(fn, "fgk_at") ? fge_border_suffix(e, a->border)
                                           : "";
  /* a column loop's variable over this input's columns, or a column
   * known inside them: unclamped too */
  bool loop_col = !inside && !*rule && !strcmp(fn, "fgk_at") &&
                  (in_columns(e, a) || column_known_inside(e, a));
  inside = inside || loop_col;
  fge_colref any = {0};
  bool stencil = a->ncoords > 0 && fge_read_column(e->k, a, &any);
  if (*rule && a->port >= 0 && a->port < e->k->n_in && !stencil) {
    /* a read at computed coordinates (a warp's) remaps every point: the
     * field's extents as constants turn the rule's remainders into
     * multiplications (bilinear warp with a mirror border over 2048^2
     * floats, CPU: 15 ms against 41-60 ms with the extents as
     * arguments), so such a kernel is built per size */
    int64_t d[FGE_DIM_AXES];
    fge_abi_shape_dims(e->k->in_type[a->port].field, d);
    fgk_putf(e, "%s%s(%lldL, %lldL, %lldL, ", inside ? "fgk_atx" : fn, rule,
             (long long)d[FGE_DIM_LAYERS], (long long)d[FGE_DIM_ROWS],
             (long long)d[FGE_DIM_COLUMNS]);
  } else if (*rule && a->port >= 0 && a->port < e->k->n_in) {
    /* a stencil's read (the thread's column plus a constant) remaps only
     * near the edges: the extents are the buffer's arguments, so one
     * build serves every size, as fast (the remainders never divide by
     * zero, so a row's is hoisted out of the column loop); an axis the
     * field lacks is 1, which its rank says, not its size */
    int nd = e->k->in_type[a->port].field.ndim;
    fgk_putf(e, "%s%s(", inside ? "fgk_atx" : fn, rule);
    for (int ax = 0; ax < 3; ax++) {
      if (ax < 3 - nd)
        fgk_put(e, "1L, ");
      else
        fgk_putf(e, "%s_%c, ", buf, "LRC"[ax]);
    }
  } else {
    fgk_putf(e, "%s%s(%s_L, %s_R, %s_C, ", inside ? "fgk_atx" : fn, rule,
             buf, buf, buf);
  }
  for (int i = 0; i < 3; i++) {
    int ci = i - (3 - a->ncoords);
    if (i)
      fgk_put(e, ", ");
    if (ci < 0) {
      fgk_put(e, "0");
    } else if (inside && !loop_col && i == 2 && cr.reversed) {
      fgk_putf(e, "%s_C + %ldL - fgk_c", buf, cr.dc);
    } else if (inside && !loop_col && i == 2 && cr.scale > 1 && cr.var) {
      /* in longs, so the column stays affine in fgk_c (-fwrapv ints
       * are not) */
      fgk_putf(e, "fgk_c * %ldL + (long)(", cr.scale);
      fgk_ex(e, cr.var);
      fgk_putf(e, ") + %ldL", cr.dc);
    } else if (inside && !loop_col && i == 2 && cr.scale > 1) {
      fgk_putf(e, "fgk_c * %ldL + %ldL", cr.scale, cr.dc);
    } else if (inside && !loop_col && i == 2) {
      fgk_putf(e, "fgk_c + %ldL", cr.dc);
    } else {
      fgk_put(e, "(long)(");
      fgk_ex(e, a->coord[ci]);
      fgk_put(e, ")");
    }
  }
  fgk_put(e, ")");
}

/* Emits the flat element index of an access to buffer buf (n elements per
 * tensor; big: stored as planes; zero_d: the field's only tensor). */
void fge_ex_index(fgk_emitter *e, const char *buf, const fgk_access *a,
                  int n, bool big, bool zero_d) {
  if (a->ncoords > 0)
    fge_location(e, "fgk_at", buf, a);
  else
    fgk_put(e, zero_d ? "0" : "fgk_i");
  if (a->element) {
    fgk_put(e, big ? " + fgk_ci(" : "");
    if (!big)
      fgk_putf(e, " * %d + fgk_ci(", n);
    if (a->elem)
      fgk_ex(e, a->elem);
    else
      fgk_put(e, "_tensorElement");
    fgk_putf(e, ", %d)", n);
    if (big)
      fgk_putf(e, " * %s_P", buf);
  } else if (n > 1) {
    fgk_putf(e, " * %d", n);
  }
}


/* Writes into name the integer division (or modulo) helper of type t,
 * emitting its definition on first use.  It never traps, in either
 * dialect (a CPU OpenCL device traps too): x / 0 and x % 0 are 0, and
 * MIN / -1 wraps. */
void fge_divmod_helper(fgk_emitter *e, bool mod, fgk_type t, char *name,
                       size_t size) {
  snprintf(name, size, "fgk_%s_%s", mod ? "mod" : "div", fgk_type_name(t));
  if (!fgk_first_use(e, name))
    return;
  const char *ty = e->d->type_name(t);
  const char *ety = e->d->type_name(fgk_t(t.elem, 1));
  fgu_buf *h = &e->help;
  fgu_buf_printf(h, "%s%s %s(%s a, %s b) {\n  %s r;\n", e->d->helper_prefix,
                 ty, name, ty, ty, ty);
  for (int c = 0; c < t.width; c++) {
    char ix[16] = "";
    if (t.width > 1)
      snprintf(ix, sizeof ix, ".s%d", c);
    fgu_buf_printf(h, "  { %s x = a%s, y = b%s;\n    r%s = ", ety, ix, ix, ix);
    if (fgk_is_signed(t.elem))
      fgu_buf_printf(h, "y == 0 ? 0 : y == -1 ? (%s)(%s) : x %c y; }\n", ety,
                     mod ? "0" : "0ul - (ulong)x", mod ? '%' : '/');
    else
      fgu_buf_printf(h, "y == 0 ? 0 : x %c y; }\n", mod ? '%' : '/');
  }
  fgu_buf_puts(h, "  return r;\n}\n");
}


/* The type both operands of a comparison take before comparing. */
fgk_type fge_compare_type(const fg_expr *a, const fg_expr *b) {
  if (a->type.width > 1)
    return a->type;
  if (b->type.width > 1)
    return b->type;
  fgk_type pa = a->type, pb = b->type;
  if (pa.elem < FG_I32)
    pa.elem = FG_I32;
  if (pb.elem < FG_I32)
    pb.elem = FG_I32;
  return pa.elem >= pb.elem ? pa : pb;
}


void fgk_ex(fgk_emitter *e, const fg_expr *x) {
  const fgk_kernel *k = e->k;
  if (x->type.elem == FG_F64)
    e->uses_fp64 = true;
  switch (x->kind) {
  case FGK_E_CONST:
    ex_literal(e, x);
    break;
  case FGK_E_VAR:
    if (fge_is_split(e, x->u.var))
      fge_pack(e, x->u.var);
    else
      fge_var_name(e, x->u.var);
    break;
  case FGK_E_ADDR:
    fgk_put(e, "&(");
    fgk_ex(e, x->u.addr);
    fgk_put(e, ")");
    break;
  case FGK_E_ATOMIC:
    e->d->atomic(e, x);
    break;
  case FGK_E_FOREIGN:
    e->has_foreign = true;
    fgk_foreign_emit(&e->w, x);
    break;
  case FGK_E_THREAD:
    if (x->u.thread == FG_TENSOR_ELEMENTS)
      fgk_putf(e, "%d", e->foreach_count > 0    ? e->foreach_count
                        : k->thread_elements > 0 ? k->thread_elements
                        : fg_type_tensor_elements(k->out_type[0]));
    else
      fgk_put(e, thread_name[x->u.thread]);
    break;
  case FGK_E_EXTENT:
    /* the input buffer's extent argument (emit/abi.h), as the int that
     * _rows and _columns are */
    fgk_putf(e, "((int)in%d_%c)", x->u.extent.port,
             x->u.extent.axis == FG_LAYERS ? 'L'
             : x->u.extent.axis == FG_ROWS ? 'R' : 'C');
    break;
  case FGK_E_UNARY:
    fgk_put(e, "(");
    fgk_put(e, x->u.bin.op == FGK_NEG ? "-" : x->u.bin.op == FGK_LNOT ? "!"
                                                                      : "~");
    fgk_ex_as_type(e, x->u.bin.a,
                   x->u.bin.op == FGK_LNOT ? x->u.bin.a->type : x->type);
    fgk_put(e, ")");
    break;
  case FGK_E_BINARY: {
    int opc = x->u.bin.op;
    const fg_expr *a = x->u.bin.a, *b = x->u.bin.b;
    fgk_type ot = opc >= FGK_EQ && opc <= FGK_GE ? fge_compare_type(a, b)
                                                 : x->type;
    if (opc == FGK_LAND || opc == FGK_LOR) {
      fgk_put(e, "(");
      fgk_ex(e, a);
      fgk_putf(e, " %s ", fge_binop_text[opc]);
      fgk_ex(e, b);
      fgk_put(e, ")");
    } else if (opc == FGK_SHL || opc == FGK_SHR) {
      /* shift counts wrap at the bit width, as OpenCL defines them */
      int bits = (int)fg_elem_size(x->type.elem) * 8;
      fgk_put(e, "(");
      fgk_ex_as_type(e, a, x->type);
      fgk_putf(e, " %s (", fge_binop_text[opc]);
      fgk_ex_as_type(e, b, b->type.width > 1 ? x->type
                                             : fgk_t(x->type.elem, 1));
      /* the mask in the element type: OpenCL C refuses short4 & int */
      fgk_putf(e, " & (%s)%d))",
               e->d->type_name(fgk_t(x->type.elem, 1)), bits - 1);
    } else if ((opc == FGK_DIV || opc == FGK_MOD) && fgk_is_int(ot.elem)) {
      char name[64];
      fge_divmod_helper(e, opc == FGK_MOD, ot, name, sizeof name);
      fgk_putf(e, "%s(", name);
      fgk_ex_as_type(e, a, ot);
      fgk_put(e, ", ");
      fgk_ex_as_type(e, b, ot);
      fgk_put(e, ")");
    } else {
      /* scalars of a vector operation convert to its element type */
      fgk_type ta = a->type.width == 1 && ot.width > 1 ? fgk_t(ot.elem, 1)
                                                       : ot;
      fgk_type tb = b->type.width == 1 && ot.width > 1 ? fgk_t(ot.elem, 1)
                                                       : ot;
      bool vcmp = opc >= FGK_EQ && opc <= FGK_GE && x->type.width > 1 &&
                  e->d->vcompare_open && e->d->vcompare_open(e, x->type);
      fgk_put(e, "(");
      fgk_ex_as_type(e, a, ta);
      fgk_putf(e, " %s ", fge_binop_text[opc]);
      fgk_ex_as_type(e, b, tb);
      fgk_put(e, ")");
      if (vcmp)
        e->d->vcompare_close(e, x->type);
    }
    break;
  }
  case FGK_E_CALL:
    e->d->call(e, x);
    break;
  case FGK_E_SWIZZLE:
    if (e->comp && x->u.swz.n == 1) {
      e->comp(e, x->u.swz.a, x->u.swz.comp[0]);
      break;
    }
    fgk_put(e, "(");
    fgk_ex(e, x->u.swz.a);
    fgk_put(e, ").");
    for (int i = 0; i < x->u.swz.n; i++)
      fgk_putf(e, "%c", "xyzw"[x->u.swz.comp[i]]);
    break;
  case FGK_E_VECTOR: {
    fgk_type t = x->type;
    if (x->u.vec.n == 1 && x->u.vec.arg[0]->type.width == 1) {
      fgk_ex_as_type(e, x->u.vec.arg[0], t);
      break;
    }
    e->d->vec_open(e, t);
    int comp = 0;
    for (int i = 0; i < x->u.vec.n; i++) {
      const fg_expr *a = x->u.vec.arg[i];
      for (int c = 0; c < a->type.width; c++, comp++) {
        if (comp)
          fgk_put(e, ", ");
        if (a->type.width == 1) {
          fgk_ex_as_type(e, a, fgk_t(t.elem, 1));
        } else {
          fgk_put(e, "(");
          fgk_ex(e, a);
          fgk_putf(e, ").%c", "xyzw"[c]);
        }
      }
    }
    fgk_put(e, e->d->vec_close);
    break;
  }
  case FGK_E_CONVERT: {
    const fg_expr *a = x->u.conv.a;
    if (x->u.conv.sat && fgk_is_int(x->type.elem)) {
      fgk_type src = fgk_t(a->type.elem, x->type.width);
      if (a->type.width == 1 && x->type.width > 1) {
        /* replicate first, then convert */
        fg_expr splat = *x;
        splat.kind = FGK_E_VECTOR;
        splat.type = src;
        splat.u.vec.n = 1;
        splat.u.vec.arg[0] = (fg_expr *)a;
        e->d->convert_sat(e, &splat, src, x->type);
      } else {
        e->d->convert_sat(e, a, src, x->type);
      }
    } else if (x->type.elem == FG_BOOL) {
      fgk_put(e, "((");
      fgk_ex(e, a);
      fgk_put(e, ") != 0)");
    } else {
      fgk_ex_as_type(e, a, x->type);
    }
    break;
  }
  case FGK_E_AS:
    e->d->as(e, x->u.conv.a, x->type);
    break;
  case FGK_E_READ: {
    const fgk_access *a = &x->u.read;
    fg_type ft = k->in_type[a->port];
    int n = fg_type_tensor_elements(ft);
    char buf[16], ptr[32];
    fge_based based;
    int tb = e->n_rowtap && !e->coltab_pre ? fge_rowtap_table(e, x) : -1;
    if (tb >= 0) {
      /* a row tap: its row's table (emit/rowtaps.c) */
      fgk_putf(e, "fgk_rt%d[fgk_c - fgk_cb]", tb);
      break;
    }
    snprintf(buf, sizeof buf, "in%d", a->port);
    if (!e->read_base ||
        !e->read_base(e, buf, a, n, n > FG_MAX_SMALL_TENSOR, ptr, sizeof ptr))
      snprintf(ptr, sizeof ptr, "%s", buf);
    if (!a->element && n > 1) {
      e->d->load_open(e, x->type);
      fgk_putf(e, "%s + (", ptr);
      fge_ex_index(e, buf, a, n, false, ft.field.ndim == 0);
      fgk_put(e, "))");
    } else if (interior_based(e, a, &based) && based.pair) {
      /* a pair's element, (_column >> 1) * 2 + dc: the one at _column +
       * dc or the one before it, both loaded (contiguous vectors, not a
       * gather) and one kept by the column's parity */
      fgk_putf(e, "({ const long fgk_x = ");
      fge_ex_index(e, buf, a, n, false, false);
      fgk_putf(e, "; const %s fgk_e0 = %s[fgk_x], fgk_e1 = %s[fgk_x - 1]; "
               "(fgk_c & 1) ? fgk_e1 : fgk_e0; })",
               e->d->type_name(x->type), ptr, ptr);
    } else {
      fgk_putf(e, "%s[", ptr);
      fge_ex_index(e, buf, a, n, n > FG_MAX_SMALL_TENSOR,
                   ft.field.ndim == 0);
      fgk_put(e, "]");
    }
    break;
  }
  case FGK_E_INDEX: {
    const fgk_var *v = x->u.index.var;
    fge_var_name(e, v);
    for (int i = 0; i < x->u.index.n; i++) {
      fgk_put(e, "[fgk_ci(");
      fgk_ex(e, x->u.index.idx[i]);
      fgk_putf(e, ", %d)]", v->dims[i]);
    }
    break;
  }
  }
}
