/* emit/walk.c - the IR walker shared by both source dialects: statements,
 * expressions, addressing of tensor fields (implicit, explicit with
 * clamp-to-edge reads and dropped out-of-field writes, big and small
 * tensors), variable declarations and kernel assembly.  What differs
 * between C and OpenCL C is asked of the dialect (emit/emit_impl.h). */
#include "emit_impl.h"
#include "abi.h"
#include "ir/reduce.h"
#include "ir/visit.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output helpers ----------------------------------------------------- */

void fgk_put(fgk_emitter *e, const char *s) { fgu_buf_puts(&e->out, s); }

void fgk_putf(fgk_emitter *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fgu_buf_vprintf(&e->out, fmt, ap);
  va_end(ap);
}

static void line(fgk_emitter *e) {
  for (int i = 0; i < e->indent; i++)
    fgk_put(e, "  ");
}

void fge_line(fgk_emitter *e) { line(e); }

bool fgk_first_use(fgk_emitter *e, const char *name) {
  size_t n = strlen(name);
  const char *s = e->names.s;
  while (s && *s) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    if (len == n && !memcmp(s, name, n))
      return false;
    s = nl ? nl + 1 : s + len;
  }
  fgu_buf_printf(&e->names, "%s\n", name);
  return true;
}

const char *fgk_int_min_literal(fg_elem e) {
  switch (e) {
  case FG_I8: return "(-128)";
  case FG_I16: return "(-32768)";
  case FG_I32: return "(-2147483647 - 1)";
  case FG_I64: return "(-9223372036854775807L - 1)";
  default: return "0";
  }
}

const char *fgk_int_max_literal(fg_elem e) {
  switch (e) {
  case FG_I8: return "127";
  case FG_U8: return "255";
  case FG_I16: return "32767";
  case FG_U16: return "65535";
  case FG_I32: return "2147483647";
  case FG_U32: return "4294967295u";
  case FG_I64: return "9223372036854775807L";
  case FG_U64: return "18446744073709551615UL";
  default: return "0";
  }
}

/* ---- expressions -------------------------------------------------------- */

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
 * group's threads. */
static void var_name(fgk_emitter *e, const fgk_var *v) {
  if (v->id < 0 && e->acc_name) {
    fgk_put(e, "fgk_acc[0]");
    return;
  }
  fgk_putf(e, "v%d", v->id);
  if (e->per_thread && !v->local)
    fgk_put(e, "[fgk_lt]");
}

static const char *const binop_text[FGK_BINOP_COUNT_] = {
  "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||",
  "&", "|", "^", "<<", ">>"};
const char *const fge_binop_text[FGK_BINOP_COUNT_] = {
  "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||",
  "&", "|", "^", "<<", ">>"};


/* Emits fn(L, R, C, layer, row, column) for an explicit access to buffer
 * buf: the prelude's fgk_at (clamped, for reads; fgk_at_<rule> under
 * another border rule) or fgk_wat (-1 outside, for writes); missing
 * leading coordinates are 0. */
static void ex_location(fgk_emitter *e, const char *fn, const char *buf,
                        const fgk_access *a) {
  /* a stencil's interior: the column is inside the field, unclamped */
  fge_colref cr = {0};
  bool inside = e->interior && !strcmp(fn, "fgk_at") && a->ncoords > 0 &&
                fge_column_offset(a->coord[a->ncoords - 1], &cr);
  const char *rule = !strcmp(fn, "fgk_at") ? fge_border_suffix(e, a->border)
                                           : "";
  fge_colref any = {0};
  bool stencil = a->ncoords > 0 &&
                 fge_column_offset(a->coord[a->ncoords - 1], &any);
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
    } else if (inside && i == 2) {
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
static void ex_index(fgk_emitter *e, const char *buf, const fgk_access *a,
                     int n, bool big, bool zero_d) {
  if (a->ncoords > 0)
    ex_location(e, "fgk_at", buf, a);
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

void fge_ex_index(fgk_emitter *e, const char *buf, const fgk_access *a,
                  int n, bool big, bool zero_d) {
  ex_index(e, buf, a, n, big, zero_d);
}

/* Writes into name the integer division (or modulo) helper of type t,
 * emitting its definition on first use.  It never traps, in either
 * dialect (a CPU OpenCL device traps too): x / 0 and x % 0 are 0, and
 * MIN / -1 wraps. */
static void divmod_helper(fgk_emitter *e, bool mod, fgk_type t, char *name,
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

void fge_divmod_helper(fgk_emitter *e, bool mod, fgk_type t, char *name,
                       size_t size) {
  divmod_helper(e, mod, t, name, size);
}

/* The type both operands of a comparison take before comparing. */
static fgk_type compare_type(const fg_expr *a, const fg_expr *b) {
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

fgk_type fge_compare_type(const fg_expr *a, const fg_expr *b) {
  return compare_type(a, b);
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
      var_name(e, x->u.var);
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
    fgk_type ot = opc >= FGK_EQ && opc <= FGK_GE ? compare_type(a, b)
                                                 : x->type;
    if (opc == FGK_LAND || opc == FGK_LOR) {
      fgk_put(e, "(");
      fgk_ex(e, a);
      fgk_putf(e, " %s ", binop_text[opc]);
      fgk_ex(e, b);
      fgk_put(e, ")");
    } else if (opc == FGK_SHL || opc == FGK_SHR) {
      /* shift counts wrap at the bit width, as OpenCL defines them */
      int bits = (int)fg_elem_size(x->type.elem) * 8;
      fgk_put(e, "(");
      fgk_ex_as_type(e, a, x->type);
      fgk_putf(e, " %s (", binop_text[opc]);
      fgk_ex_as_type(e, b, b->type.width > 1 ? x->type
                                             : fgk_t(x->type.elem, 1));
      /* the mask in the element type: OpenCL C refuses short4 & int */
      fgk_putf(e, " & (%s)%d))",
               e->d->type_name(fgk_t(x->type.elem, 1)), bits - 1);
    } else if ((opc == FGK_DIV || opc == FGK_MOD) && fgk_is_int(ot.elem)) {
      char name[64];
      divmod_helper(e, opc == FGK_MOD, ot, name, sizeof name);
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
      fgk_putf(e, " %s ", binop_text[opc]);
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
    if (e->split && x->u.swz.n == 1) {
      fge_comp(e, x->u.swz.a, x->u.swz.comp[0]);
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
    char buf[16];
    snprintf(buf, sizeof buf, "in%d", a->port);
    if (!a->element && n > 1) {
      e->d->load_open(e, x->type);
      fgk_putf(e, "%s + (", buf);
      ex_index(e, buf, a, n, false, ft.field.ndim == 0);
      fgk_put(e, "))");
    } else {
      fgk_putf(e, "%s[", buf);
      ex_index(e, buf, a, n, n > FG_MAX_SMALL_TENSOR, ft.field.ndim == 0);
      fgk_put(e, "]");
    }
    break;
  }
  case FGK_E_INDEX: {
    const fgk_var *v = x->u.index.var;
    var_name(e, v);
    for (int i = 0; i < x->u.index.n; i++) {
      fgk_put(e, "[fgk_ci(");
      fgk_ex(e, x->u.index.idx[i]);
      fgk_putf(e, ", %d)]", v->dims[i]);
    }
    break;
  }
  }
}

/* ---- statements --------------------------------------------------------- */

static void block(fgk_emitter *e, const fgk_block *b);

static void open_block(fgk_emitter *e) {
  fgk_put(e, ") {\n");
  e->indent++;
}

static void close_block(fgk_emitter *e) {
  e->indent--;
  line(e);
  fgk_put(e, "}\n");
}

/* The reduction's type: its output's element type and tensor width. */
static fgk_type reduce_type(const fgk_kernel *k) {
  fg_type t = k->out_type[k->reduce.port];
  return fgk_t(t.elem, fg_type_tensor_elements(t));
}

/* Lanes of a built-in reduction: FGK_REDUCE_LANES for floats (the
 * documented order, ir/reduce.h); one for integers, whose wrapping sums
 * and products, minima and maxima are the same bits in any order. */
static int reduce_lanes(const fgk_kernel *k) {
  return fgk_is_float(reduce_type(k).elem) ? FGK_REDUCE_LANES : 1;
}

void fgk_reduce_acc_decl(fgk_emitter *e, fgu_buf *out) {
  if (e->k->reduce.kind == FGK_REDUCE_FOREIGN) {
    /* the accumulating call's hooks declare it, written into out */
    if (!e->foreign_acc)
      return;
    fgu_buf tmp = e->out;
    e->out = (fgu_buf){0};
    fgk_foreign_acc_decl(&e->w, e->foreign_acc);
    fgu_buf_puts(out, e->out.s ? e->out.s : "");
    out->oom |= e->out.oom;
    fgu_buf_free(&e->out);
    e->out = tmp;
    return;
  }
  fgk_type t = reduce_type(e->k);
  int lanes = reduce_lanes(e->k);
  const fgk_identity *id = fgk_reduce_identity(e->k->reduce.op, t.elem);
  if (!id) {
    out->oom = 1;      /* no such reduction: fails the emission */
    return;
  }
  /* one accumulator per lane (ir/reduce.h), each from the identity */
  fgu_buf_printf(out, "    %s fgk_acc[%d];\n"
                 "    for (int fgk_l = 0; fgk_l < %d; ++fgk_l)\n"
                 "      fgk_acc[fgk_l] = ", e->d->type_name(t), lanes, lanes);
  if (t.width == 1) {
    fgu_buf_printf(out, "(%s)%s;\n", e->d->type_name(fgk_t(t.elem, 1)),
                   id->text);
  } else {
    /* a splat of the identity, spelled by the dialect */
    fgu_buf tmp = e->out;
    e->out = (fgu_buf){0};
    fg_expr k = {.kind = FGK_E_CONST, .type = fgk_t(t.elem, 1)};
    k.u.k = id->value;
    e->d->splat(e, &k, t);
    fgu_buf_printf(out, "%s;\n", e->out.s ? e->out.s : "0");
    fgu_buf_free(&e->out);
    e->out = tmp;
  }
}

#define LANES_STR_(x) #x
#define LANES_STR(x) LANES_STR_(x)

const char *fgk_reduce_chunk_text(const fgk_kernel *k) {
  if (k->reduce.kind == FGK_REDUCE_BUILTIN)
    return "((fgk_N + fgk_P - 1) / fgk_P + " LANES_STR(FGK_REDUCE_LANES)
           " - 1) / " LANES_STR(FGK_REDUCE_LANES) " * "
           LANES_STR(FGK_REDUCE_LANES);
  return "(fgk_N + fgk_P - 1) / fgk_P";
}

/* Writes "a = b op a" for the reduction op over type t into out, for lane
 * accumulators a and b (C expressions): the order every fold of the
 * reduction uses, the value joining the accumulator on the left. */
static void fold_text(fgk_emitter *e, fgu_buf *out, const char *ind,
                      const char *a, const char *b) {
  fgk_type t = reduce_type(e->k);
  fg_reduce_op op = e->k->reduce.op;
  if (op == FG_REDUCE_SUM || op == FG_REDUCE_PROD) {
    fgu_buf_printf(out, "%s%s = %s %c %s;\n", ind, a, a,
                   op == FG_REDUCE_SUM ? '+' : '*', b);
    return;
  }
  char cmp = op == FG_REDUCE_MIN ? '<' : '>';
  for (int c = 0; c < t.width; c++) {
    char ix[16] = "";
    if (t.width > 1)
      snprintf(ix, sizeof ix, ".s%d", c);
    fgu_buf_printf(out, "%s%s%s = %s%s %c %s%s ? %s%s : %s%s;\n", ind, a, ix,
                   b, ix, cmp, a, ix, b, ix, a, ix);
  }
}

/* The column loops of a built-in reduction's chunk around its thread body
 * (emitted once, written three times): points before a lane-aligned
 * index one by one, then whole blocks of FGK_REDUCE_LANES points, the
 * lane loop of constant trip count that the compiler widens into vector
 * registers, then the rest one by one.  Every point goes to lane
 * i % LANES in increasing i (ir/reduce.h). */
/* Appends s to o with every "fgk_acc[" written as "fgk_blk[". */
static void put_block_body(fgu_buf *o, const char *s) {
  const char *hit;
  while ((hit = strstr(s, "fgk_acc["))) {
    fgu_buf_printf(o, "%.*sfgk_blk[", (int)(hit - s), s);
    s = hit + strlen("fgk_acc[");
  }
  fgu_buf_puts(o, s);
}

static void lane_loops(fgu_buf *o, const char *body, const char *acc_type,
                       const char *block_pragma, int lanes) {
  if (lanes == 1) {
    /* integers: any order gives the same bits, so one accumulator, which
     * the compiler vectorizes as wide as it likes */
    fgu_buf_puts(o, "      for (long fgk_c = fgk_cb; fgk_c < fgk_ce; "
                 "++fgk_c) {\n"
                 "        const int _column = (int)fgk_c;\n"
                 "        const long fgk_i = fgk_row0 + fgk_c;\n"
                 "        const int fgk_l = 0;\n"
                 "        (void)_column;\n");
    fgu_buf_puts(o, body);
    fgu_buf_puts(o, "      }\n    }\n");
    return;
  }
  static const char *const one =
      "        const int _column = (int)fgk_c;\n"
      "        const long fgk_i = fgk_row0 + fgk_c;\n"
      "        const int fgk_l = (int)(fgk_i % " LANES_STR(FGK_REDUCE_LANES)
      ");\n"
      "        (void)_column;\n";
  fgu_buf_puts(o, "      long fgk_c = fgk_cb;\n"
               "      for (; fgk_c < fgk_ce && (fgk_row0 + fgk_c) % "
               LANES_STR(FGK_REDUCE_LANES) " != 0; ++fgk_c) {\n");
  fgu_buf_puts(o, one);
  fgu_buf_puts(o, body);
  /* the blocks update a copy of the lanes that only constant-trip loops
   * index, so that it lives in (vector) registers */
  fgu_buf_printf(o, "      }\n"
                 "      %s fgk_blk[" LANES_STR(FGK_REDUCE_LANES) "];\n"
                 "      for (int fgk_l = 0; fgk_l < " LANES_STR(FGK_REDUCE_LANES)
                 "; ++fgk_l)\n"
                 "        fgk_blk[fgk_l] = fgk_acc[fgk_l];\n", acc_type);
  fgu_buf_puts(o, block_pragma);
  fgu_buf_puts(o, "      for (; fgk_c + " LANES_STR(FGK_REDUCE_LANES)
               " <= fgk_ce; fgk_c += " LANES_STR(FGK_REDUCE_LANES) ") {\n"
               "       for (int fgk_l = 0; fgk_l < "
               LANES_STR(FGK_REDUCE_LANES) "; ++fgk_l) {\n"
               "        const int _column = (int)(fgk_c + fgk_l);\n"
               "        const long fgk_i = fgk_row0 + fgk_c + fgk_l;\n"
               "        (void)_column;\n");
  put_block_body(o, body);
  fgu_buf_puts(o, "       }\n      }\n"
               "      for (int fgk_l = 0; fgk_l < " LANES_STR(FGK_REDUCE_LANES)
               "; ++fgk_l)\n"
               "        fgk_acc[fgk_l] = fgk_blk[fgk_l];\n"
               "      for (; fgk_c < fgk_ce; ++fgk_c) {\n");
  fgu_buf_puts(o, one);
  fgu_buf_puts(o, body);
  fgu_buf_puts(o, "      }\n    }\n");
}

/* The reduction's write: the value joins the thread's accumulator. */
static void emit_accumulate(fgk_emitter *e, const fgk_stmt *s) {
  if (e->k->reduce.kind == FGK_REDUCE_FOREIGN) {
    /* the value is the accumulating foreign call itself, whose hooks then
     * declare the accumulator and store the partial */
    assert(s->u.write.value->kind == FGK_E_FOREIGN);
    e->foreign_acc = s->u.write.value;
    line(e);
    fgk_ex(e, s->u.write.value);
    fgk_put(e, ";\n");
    return;
  }
  fgk_type t = reduce_type(e->k);
  line(e);
  fgk_putf(e, "{\n");
  e->indent++;
  line(e);
  fgk_putf(e, "const %s fgk_v = ", e->d->type_name(t));
  fgk_ex_as_type(e, s->u.write.value, t);
  fgk_put(e, ";\n");
  char ind[64];
  snprintf(ind, sizeof ind, "%*s", e->indent * 2 < 60 ? e->indent * 2 : 60,
           "");
  fold_text(e, &e->out, ind, "fgk_acc[fgk_l]", "fgk_v");
  e->indent--;
  line(e);
  fgk_put(e, "}\n");
}

static void emit_write(fgk_emitter *e, const fgk_stmt *s) {
  const fgk_access *a = &s->u.write.at;
  if (fgk_is_reduction(e->k->reduce) && a->port == e->k->reduce.port &&
      a->ncoords == 0 &&
      !a->element) {
    emit_accumulate(e, s);
    return;
  }
  fg_type ot = e->k->out_type[a->port];
  int n = fg_type_tensor_elements(ot);
  bool big = n > FG_MAX_SMALL_TENSOR;
  fgk_type vt = fgk_t(ot.elem, a->element ? 1 : n);
  char buf[16];
  snprintf(buf, sizeof buf, "out%d", a->port);
  line(e);
  /* threads of a rounded-up work-group beyond the field write nothing */
  fgk_put(e, e->k->grouped ? "if (fgk_live) {\n" : "{\n");
  e->indent++;
  line(e);
  fgk_put(e, "const long fgk_w = ");
  if (a->ncoords > 0) {
    ex_location(e, "fgk_wat", buf, a);
    fgk_put(e, ";\n");
  } else {
    fgk_put(e, ot.field.ndim == 0 ? "0;\n" : "fgk_i;\n");
  }
  line(e);
  if (a->element) {
    fgk_put(e, "const long fgk_e = ");
    if (a->elem)
      fgk_ex(e, a->elem);
    else
      fgk_put(e, "_tensorElement");
    fgk_put(e, ";\n");
    line(e);
    fgk_putf(e, "if (fgk_w >= 0 && fgk_e >= 0 && fgk_e < %d)\n", n);
    line(e);
    if (big)
      fgk_putf(e, "  %s[fgk_e * %s_P + fgk_w] = ", buf, buf);
    else
      fgk_putf(e, "  %s[fgk_w * %d + fgk_e] = ", buf, n);
    fgk_ex_as_type(e, s->u.write.value, vt);
    fgk_put(e, ";\n");
  } else {
    /* local writes always land inside the field: no guard, so the
     * column loop stays vectorizable */
    if (n > 1 && e->split && fge_pure(s->u.write.value)) {
      /* one store per component; none outside the field */
      if (a->ncoords > 0) {
        fgk_put(e, "if (fgk_w >= 0) {\n");
        e->indent++;
        line(e);
      }
      fge_store(e, buf, n, ot.elem, s->u.write.value);
      if (a->ncoords > 0) {
        e->indent--;
        line(e);
        fgk_put(e, "}\n");
      }
      goto end;
    }
    if (a->ncoords > 0) {
      fgk_put(e, "if (fgk_w >= 0)\n");
      line(e);
      fgk_put(e, "  ");
    }
    if (n == 1) {
      fgk_putf(e, "%s[fgk_w] = ", buf);
      fgk_ex_as_type(e, s->u.write.value, vt);
      fgk_put(e, ";\n");
    } else {
      char ptr[64];
      snprintf(ptr, sizeof ptr, "%s + fgk_w * %d", buf, n);
      if (!fgk_type_eq(s->u.write.value->type, vt)) {
        /* a scalar written to a vector output: replicate it */
        fg_expr conv = *s->u.write.value;
        conv.kind = FGK_E_VECTOR;
        conv.type = vt;
        conv.u.vec.n = 1;
        conv.u.vec.arg[0] = (fg_expr *)s->u.write.value;
        e->d->store(e, vt, ptr, &conv);
      } else {
        e->d->store(e, vt, ptr, s->u.write.value);
      }
    }
  }
end:
  e->indent--;
  line(e);
  fgk_put(e, "}\n");
}

/* Emits one statement setting every element of v to zero. */
static void zero_fill(fgk_emitter *e, const fgk_var *v) {
  fgk_type et = fgk_t(v->type.elem, 1);
  if (v->ndims) {
    int total = 1;
    for (int i = 0; i < v->ndims; i++)
      total *= v->dims[i];
    fgk_putf(e, "for (int fgk_z = 0; fgk_z < %d; fgk_z++) ((%s%s%s *)",
             total, v->local ? e->d->local_qualifier : "",
             v->volatile_ ? "volatile " : "", e->d->type_name(v->type));
    var_name(e, v);
    fgk_put(e, ")[fgk_z] = ");
  } else {
    var_name(e, v);
    fgk_put(e, " = ");
  }
  if (v->type.width == 1) {
    fgk_putf(e, "(%s)0;\n", e->d->type_name(et));
  } else {
    fg_expr zero = {.kind = FGK_E_CONST, .type = et};
    e->d->splat(e, &zero, v->type);
    fgk_put(e, ";\n");
  }
}

/* ---- loops that may not end ----------------------------------------------
 * A loop the IR cannot prove finite polls the run's stop flag in its
 * condition (fgk_go, emit/abi.h), so that cancelling the run or its
 * deadline ends the kernel; the volatile read also keeps the C compiler
 * from deleting an endless loop without side effects (C11 6.8.5p6).
 * Counted loops get no poll: it would keep clang from unrolling and
 * vectorizing stencil taps; nor do loops holding a barrier (below). */

/* Whether x may be changed by the statements of b: it reads a variable
 * b assigns (or takes the address of) or anything but constants, thread
 * constants and variables. */
typedef struct assigned_ctx {
  const fgk_var *var;
  bool hit;
} assigned_ctx;

static void assigned_visit(const fg_expr *x, void *arg) {
  assigned_ctx *c = arg;
  if (x->kind == FGK_E_ADDR && x->u.addr->kind == FGK_E_VAR &&
      x->u.addr->u.var == c->var)
    c->hit = true;
}

static void assigned_stmt(const fgk_stmt *s, void *arg) {
  assigned_ctx *c = arg;
  if (s->kind == FGK_S_ASSIGN) {
    const fg_expr *l = s->u.assign.lhs;
    while (l->kind == FGK_E_SWIZZLE)
      l = l->u.swz.a;
    if ((l->kind == FGK_E_VAR && l->u.var == c->var) ||
        (l->kind == FGK_E_INDEX && l->u.index.var == c->var))
      c->hit = true;
  } else if (s->kind == FGK_S_FOR && s->u.for_.var == c->var) {
    c->hit = true;
  }
}

/* Whether anything in b assigns v: an assignment to it or an element of
 * it, a for loop over it, or its address taken. */
static bool assigns(const fgk_block *b, const fgk_var *v) {
  assigned_ctx c = {v, false};
  fgk_visit_block(b, &(fgk_visitor){.expr = assigned_visit,
                                    .stmt = assigned_stmt, .arg = &c});
  return c.hit;
}

/* Whether x keeps its value while body runs. */
static bool invariant(const fg_expr *x, const fgk_block *body) {
  switch (x->kind) {
  case FGK_E_CONST:
  case FGK_E_THREAD:
  case FGK_E_EXTENT:
    return true;
  case FGK_E_VAR:
    return x->u.var->ndims == 0 && !x->u.var->local &&
           !x->u.var->volatile_ && !assigns(body, x->u.var);
  case FGK_E_UNARY:
    return invariant(x->u.bin.a, body);
  case FGK_E_BINARY:
    return invariant(x->u.bin.a, body) && invariant(x->u.bin.b, body);
  case FGK_E_CONVERT:
  case FGK_E_AS:
    return invariant(x->u.conv.a, body);
  default:
    return false;
  }
}

/* Largest value of integer element type t (signed types wrap, -fwrapv). */
static int64_t int_max(fg_elem t) {
  switch (t) {
  case FG_I8: return INT8_MAX;
  case FG_U8: return UINT8_MAX;
  case FG_I16: return INT16_MAX;
  case FG_U16: return UINT16_MAX;
  case FG_I32: return INT32_MAX;
  case FG_U32: return UINT32_MAX;
  default: return INT64_MAX;
  }
}

/* Whether b holds a barrier: such a loop must not poll, since work-items
 * that saw the flag at different times would leave it apart and never
 * meet at the barrier. */
static bool has_barrier(const fgk_block *b) {
  for (const fgk_stmt *s = b->first; s; s = s->next)
    if (s->kind == FGK_S_BARRIER ||
        (s->kind == FGK_S_IF &&
         (has_barrier(&s->u.if_.then) || has_barrier(&s->u.if_.els))) ||
        (s->kind == FGK_S_FOR && has_barrier(&s->u.for_.body)) ||
        (s->kind == FGK_S_WHILE && has_barrier(&s->u.while_.body)) ||
        (s->kind == FGK_S_FOREACH && has_barrier(&s->u.foreach.body)))
      return true;
  return false;
}

/* Whether for loop s provably ends: an integer counter that only the loop
 * steps, by a constant, towards a bound that does not change, without
 * wrapping past it. */
static bool counted(const fgk_stmt *s) {
  const fgk_var *v = s->u.for_.var;
  const fg_expr *c = s->u.for_.cond, *st = s->u.for_.step;
  if (v->ndims || v->type.width != 1 || !fgk_is_int(v->type.elem) ||
      v->local || v->volatile_ || st->kind != FGK_E_CONST ||
      fgk_is_float(st->type.elem) || c->kind != FGK_E_BINARY ||
      c->u.bin.a->kind != FGK_E_VAR || c->u.bin.a->u.var != v ||
      assigns(&s->u.for_.body, v) || !invariant(c->u.bin.b, &s->u.for_.body))
    return false;
  bool uns = v->type.elem == FG_U8 || v->type.elem == FG_U16 ||
             v->type.elem == FG_U32 || v->type.elem == FG_U64;
  int64_t step = st->u.k.i;
  int op = c->u.bin.op;
  bool up = op == FGK_LT || op == FGK_LE, down = op == FGK_GT || op == FGK_GE;
  if ((!up && !down) || step == 0 || (up ? step < 0 : step > 0) ||
      (uns && down) || step == INT64_MIN)
    return false;
  int64_t mag = step < 0 ? -step : step;
  const fg_expr *b = c->u.bin.b;
  if (b->kind == FGK_E_CONST && !fgk_is_float(b->type.elem) &&
      !(uns && b->u.k.i < 0)) {
    /* the counter stops within a step past the bound: room for it */
    int64_t max = int_max(v->type.elem), bound = b->u.k.i;
    int64_t min = uns ? 0 : -max - 1;
    int64_t slack = mag - (op == FGK_LT || op == FGK_GT ? 1 : 0);
    return up ? bound <= max - slack : bound >= min + slack;
  }
  /* an unknown bound: a unit step towards a strict bound never wraps */
  return mag == 1 && (op == FGK_LT || op == FGK_GT) && !uns;
}

static void stmt(fgk_emitter *e, const fgk_stmt *s) {
  switch (s->kind) {
  case FGK_S_DECL: {
    const fgk_var *v = s->u.decl;
    if (v->type.elem == FG_F64)
      e->uses_fp64 = true;
    if (v->local)
      break;          /* shared: zeroed once per group, before any thread */
    if (fge_is_split(e, v)) {
      fge_zero(e, v);
      break;
    }
    line(e);
    zero_fill(e, v);
    break;
  }
  case FGK_S_BARRIER:
    if (!e->d->split_phases) {
      line(e);
      fgk_putf(e, "barrier(%s);\n", s->u.global_fence
                                        ? "CLK_GLOBAL_MEM_FENCE | "
                                          "CLK_LOCAL_MEM_FENCE"
                                        : "CLK_LOCAL_MEM_FENCE");
    }
    break;
  case FGK_S_ASSIGN:
    if (fge_assign(e, s->u.assign.lhs, s->u.assign.rhs))
      break;
    line(e);
    fgk_ex(e, s->u.assign.lhs);
    fgk_put(e, " = ");
    fgk_ex_as_type(e, s->u.assign.rhs, s->u.assign.lhs->type);
    fgk_put(e, ";\n");
    break;
  case FGK_S_IF:
    line(e);
    fgk_put(e, "if (");
    fgk_ex(e, s->u.if_.cond);
    open_block(e);
    block(e, &s->u.if_.then);
    if (s->u.if_.els.first) {
      e->indent--;
      line(e);
      fgk_put(e, "} else {\n");
      e->indent++;
      block(e, &s->u.if_.els);
    }
    close_block(e);
    break;
  case FGK_S_FOR: {
    const fgk_var *v = s->u.for_.var;
    line(e);
    fgk_put(e, "for (");
    var_name(e, v);
    fgk_put(e, " = ");
    fgk_ex_as_type(e, s->u.for_.init, v->type);
    bool poll = !counted(s) && !has_barrier(&s->u.for_.body);
    fgk_put(e, poll ? "; fgk_go(fgk_stop) && (" : "; ");
    fgk_ex(e, s->u.for_.cond);
    fgk_put(e, poll ? "); " : "; ");
    var_name(e, v);
    fgk_put(e, " += ");
    fgk_ex_as_type(e, s->u.for_.step, v->type);
    open_block(e);
    block(e, &s->u.for_.body);
    close_block(e);
    break;
  }
  case FGK_S_WHILE:
    line(e);
    if (has_barrier(&s->u.while_.body)) {
      fgk_put(e, "while (");
      fgk_ex(e, s->u.while_.cond);
    } else {
      fgk_put(e, "while (fgk_go(fgk_stop) && (");
      fgk_ex(e, s->u.while_.cond);
      fgk_put(e, ")");
    }
    open_block(e);
    block(e, &s->u.while_.body);
    close_block(e);
    break;
  case FGK_S_FOREACH:
    line(e);
    fgk_putf(e, "for (int _tensorElement = 0; _tensorElement < %d; "
             "++_tensorElement", s->u.foreach.count);
    open_block(e);
    e->foreach_count = s->u.foreach.count;
    block(e, &s->u.foreach.body);
    e->foreach_count = 0;
    close_block(e);
    break;
  case FGK_S_WRITE:
    emit_write(e, s);
    break;
  case FGK_S_COMMENT:
    line(e);
    fgk_putf(e, "/* %s */\n", s->u.comment);
    break;
  case FGK_S_EXPR:
    line(e);
    fgk_ex(e, s->u.expr);
    fgk_put(e, ";\n");
    break;
  }
}

static void block(fgk_emitter *e, const fgk_block *b) {
  for (const fgk_stmt *s = b->first; s; s = s->next)
    stmt(e, s);
}

/* Declares every variable of the kernel at the top of the thread body, so
 * that block scoping never hides one the IR still uses. */
static void declare_vars(fgk_emitter *e, const fgk_block *b) {
  for (const fgk_stmt *s = b->first; s; s = s->next) {
    switch (s->kind) {
    case FGK_S_DECL: {
      const fgk_var *v = s->u.decl;
      if (v->local) {
        /* shared by the group: declared once, zeroed before any thread */
        fgu_buf *to = e->d->locals_at_kernel_scope ? &e->locals : &e->out;
        if (to == &e->out)
          line(e);
        else
          fgu_buf_puts(to, "  ");
        fgu_buf_printf(to, "%s%s%s v%d", e->d->local_qualifier,
                       v->volatile_ ? "volatile " : "",
                       e->d->type_name(v->type), v->id);
        for (int i = 0; i < v->ndims; i++)
          fgu_buf_printf(to, "[%d]", v->dims[i]);
        fgu_buf_puts(to, ";\n");
        fgu_buf tmp = e->out;        /* zero_fill writes to e->out */
        e->out = e->zero_locals;
        fgk_put(e, "  ");
        zero_fill(e, v);
        e->zero_locals = e->out;
        e->out = tmp;
        break;
      }
      if (fge_is_split(e, v)) {
        fge_declare(e, v);
        break;
      }
      line(e);
      fgk_putf(e, "%s%s v%d", v->volatile_ ? "volatile " : "",
               e->d->type_name(v->type), v->id);
      if (e->per_thread)
        fgk_putf(e, "[%d]", e->k->local[0] * e->k->local[1]);
      for (int i = 0; i < v->ndims; i++)
        fgk_putf(e, "[%d]", v->dims[i]);
      fgk_put(e, ";\n");
      break;
    }
    case FGK_S_IF:
      declare_vars(e, &s->u.if_.then);
      declare_vars(e, &s->u.if_.els);
      break;
    case FGK_S_FOR:
      declare_vars(e, &s->u.for_.body);
      break;
    case FGK_S_WHILE:
      declare_vars(e, &s->u.while_.body);
      break;
    case FGK_S_FOREACH:
      declare_vars(e, &s->u.foreach.body);
      break;
    default:
      break;
    }
  }
}

char *fgk_emit(const fgk_kernel *k, fgk_dialect d, const char *fn_name) {
  fgk_emitter e = {.w = {&fge_writer_i}, .k = k, .indent = 3};
  e.d = d == FGK_DIALECT_CL ? &fgk_dialect_cl : &fgk_dialect_c;
  for (int i = 0; i < k->n_in; i++)
    e.uses_fp64 |= k->in_type[i].elem == FG_F64;
  for (int i = 0; i < k->n_out; i++)
    e.uses_fp64 |= k->out_type[i].elem == FG_F64;
  e.per_thread = k->grouped && e.d->split_phases;
  if (!fge_split_vars(&e))
    return NULL;
  if (fgk_reduce_on_host(k->reduce)) {
    /* the accumulator's declaration comes after the helpers: register
     * the ones it uses (a splat) before the body is emitted */
    fgu_buf acc = {0};
    fgk_reduce_acc_decl(&e, &acc);
    fgu_buf_free(&acc);
  }
  declare_vars(&e, &k->body);
  if (e.per_thread) {
    /* shared variables are zeroed per group, then the body runs in phases
     * separated by its barriers, each phase a loop over the group */
    if (e.zero_locals.s)
      fgk_put(&e, e.zero_locals.s);
    const fgk_stmt *s = k->body.first;
    while (s) {
      fgk_put(&e, e.d->phase_open);
      e.indent = 4;
      for (; s && s->kind != FGK_S_BARRIER; s = s->next)
        stmt(&e, s);
      e.indent = 3;
      fgk_put(&e, e.d->phase_close);
      if (s)
        s = s->next;
    }
  } else if (k->reduce.kind == FGK_REDUCE_BUILTIN) {
    /* the body goes inside the lane loops */
    block(&e, &k->body);
    fgu_buf body = e.out;
    e.out = (fgu_buf){0};
    lane_loops(&e.out, body.s ? body.s : "",
               e.d->type_name(reduce_type(k)), e.d->reduce_block_pragma,
               reduce_lanes(k));
    e.out.oom |= body.oom;
    fgu_buf_free(&body);
  } else {
    block(&e, &k->body);
  }
  if (fge_stencil_bounds(&e, NULL)) {
    /* the interior copy of the body, for open_kernel's interior loop */
    fgu_buf border = e.out;
    e.out = (fgu_buf){0};
    e.interior = true;
    declare_vars(&e, &k->body);
    block(&e, &k->body);
    e.interior = false;
    e.interior_body = e.out;
    e.out = border;
  }
  if (k->reduce.kind == FGK_REDUCE_FOREIGN) {
    /* end of the chunk: the call's hooks store the partial */
    fgk_put(&e, "      }\n    }\n    ");
    if (e.foreign_acc)
      fgk_foreign_store_partial(&e.w, e.foreign_acc, k->reduce.port);
  } else if (fgk_is_reduction(k->reduce)) {
    /* end of the thread's chunk: fold the lanes by the fixed tree, store
     * the partial */
    fgk_type t = reduce_type(k);
    char ptr[64];
    snprintf(ptr, sizeof ptr, "out%d + fgk_p * %d", k->reduce.port, t.width);
    for (int w = reduce_lanes(k) / 2; w >= 1; w /= 2) {
      fgk_putf(&e, "    for (int fgk_l = 0; fgk_l < %d; ++fgk_l) {\n", w);
      char b[64];
      snprintf(b, sizeof b, "fgk_acc[fgk_l + %d]", w);
      fold_text(&e, &e.out, "      ", "fgk_acc[fgk_l]", b);
      fgk_put(&e, "    }\n");
    }
    fgk_put(&e, "    ");
    if (t.width == 1) {
      fgk_putf(&e, "out%d[fgk_p] = fgk_acc[0];\n", k->reduce.port);
    } else {
      fg_expr acc = {.kind = FGK_E_VAR, .type = t};
      fgk_var accv = {.id = -1, .type = t};
      acc.u.var = &accv;
      e.acc_name = true;
      e.d->store(&e, t, ptr, &acc);
      e.acc_name = false;
    }
  }
  fgu_buf src = {0};
  fgu_buf_printf(&src, "/* fieldgraph kernel '%s' (%s) */\n", k->name,
                 e.d->name);
  e.d->open_kernel(&e, &src, e.help.s ? e.help.s : "", fn_name);
  if (e.out.s)
    fgu_buf_puts(&src, e.out.s);
  fgu_buf_puts(&src, fgk_is_reduction(k->reduce) ? e.d->close_reduce
                                                 : e.d->close_kernel);
  bool oom = e.out.oom || e.help.oom || e.names.oom || e.locals.oom ||
             e.zero_locals.oom || e.interior_body.oom;
  fgu_buf_free(&e.interior_body);
  fgu_buf_free(&e.out);
  fgu_buf_free(&e.help);
  fgu_buf_free(&e.names);
  fgu_buf_free(&e.locals);
  fgu_buf_free(&e.zero_locals);
  free(e.split);
  if (oom) {
    fgu_buf_free(&src);
    return NULL;
  }
  return fgu_buf_take(&src);
}
