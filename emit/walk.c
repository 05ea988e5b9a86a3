/* emit/walk.c - the IR walker shared by both source dialects:
 * statements, writes of tensor fields, variable declarations, loops that
 * may not end, and kernel assembly (fgk_emit).  The top of emit/: it
 * builds on expressions (emit/expr.c), reductions (emit/reduce.c),
 * scalarized small tensors (emit/scalar.c), stencils (emit/stencil.c) and
 * the dialects (emit/dialect_c.c, emit/dialect_cl.c), and none of them
 * calls back into it. */
#include "emit_impl.h"
#include "ir/reduce.h"
#include "ir/visit.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- statements --------------------------------------------------------- */

static void block(fgk_emitter *e, const fgk_block *b);

static void open_block(fgk_emitter *e) {
  fgk_put(e, ") {\n");
  e->indent++;
}

static void close_block(fgk_emitter *e) {
  e->indent--;
  fge_line(e);
  fgk_put(e, "}\n");
}


static void emit_write(fgk_emitter *e, const fgk_stmt *s) {
  const fgk_access *a = &s->u.write.at;
  if (fge_reduce_of_port(e->k, a->port) >= 0 && a->ncoords == 0 &&
      !a->element) {
    fge_accumulate(e, s);
    return;
  }
  if (e->rescan)
    return;        /* the search for a first point writes nothing */
  fg_type ot = e->k->out_type[a->port];
  int n = fg_type_tensor_elements(ot);
  bool big = n > FG_MAX_SMALL_TENSOR;
  fgk_type vt = fgk_t(ot.elem, a->element ? 1 : n);
  char buf[16];
  snprintf(buf, sizeof buf, "out%d", a->port);
  fge_line(e);
  /* threads of a rounded-up work-group beyond the field write nothing */
  fgk_put(e, e->k->grouped ? "if (fgk_live) {\n" : "{\n");
  e->indent++;
  fge_line(e);
  fgk_put(e, "const long fgk_w = ");
  if (a->ncoords > 0) {
    fge_location(e, "fgk_wat", buf, a);
    fgk_put(e, ";\n");
  } else {
    fgk_put(e, ot.field.ndim == 0 ? "0;\n" : "fgk_i;\n");
  }
  fge_line(e);
  if (a->element) {
    fgk_put(e, "const long fgk_e = ");
    if (a->elem)
      fgk_ex(e, a->elem);
    else
      fgk_put(e, "_tensorElement");
    fgk_put(e, ";\n");
    fge_line(e);
    fgk_putf(e, "if (fgk_w >= 0 && fgk_e >= 0 && fgk_e < %d)\n", n);
    fge_line(e);
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
        fge_line(e);
      }
      fge_store(e, buf, n, ot.elem, s->u.write.value);
      if (a->ncoords > 0) {
        e->indent--;
        fge_line(e);
        fgk_put(e, "}\n");
      }
      goto end;
    }
    if (a->ncoords > 0) {
      fgk_put(e, "if (fgk_w >= 0)\n");
      fge_line(e);
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
  fge_line(e);
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
    fge_var_name(e, v);
    fgk_put(e, ")[fgk_z] = ");
  } else {
    fge_var_name(e, v);
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

/* Opens for loop s: "for (v = init; cond; v += step) {", the condition
 * polling the stop flag first when poll (emit/abi.h). */
static void for_header(fgk_emitter *e, const fgk_stmt *s, bool poll) {
  const fgk_var *v = s->u.for_.var;
  fge_line(e);
  fgk_put(e, "for (");
  fge_var_name(e, v);
  fgk_put(e, " = ");
  fgk_ex_as_type(e, s->u.for_.init, v->type);
  fgk_put(e, poll ? "; fgk_go(fgk_stop) && (" : "; ");
  fgk_ex(e, s->u.for_.cond);
  fgk_put(e, poll ? "); " : "; ");
  fge_var_name(e, v);
  fgk_put(e, " += ");
  fgk_ex_as_type(e, s->u.for_.step, v->type);
  open_block(e);
}

/* The input whose columns a for loop's variable stays inside while the
 * body runs, or -1: for (v = c; v < that input's column extent; v += 1)
 * with v an int, c >= 0 and the body never assigning v (a step of 1 from
 * c >= 0 below an int bound never wraps; the bound, the extent narrowed
 * to int, is at most the extent itself). */
static int column_loop(const fgk_stmt *s) {
  const fgk_var *v = s->u.for_.var;
  const fg_expr *init = s->u.for_.init, *cond = s->u.for_.cond,
                *step = s->u.for_.step;
  if (v->type.elem != FG_I32 || v->type.width != 1 || !init || !cond ||
      !step || init->kind != FGK_E_CONST || init->type.elem != FG_I32 ||
      init->type.width != 1 || init->u.k.i < 0 ||
      step->kind != FGK_E_CONST || step->type.elem != FG_I32 ||
      step->type.width != 1 || step->u.k.i != 1 ||
      cond->kind != FGK_E_BINARY || cond->u.bin.op != FGK_LT ||
      cond->u.bin.a->kind != FGK_E_VAR || cond->u.bin.a->u.var != v ||
      cond->u.bin.b->kind != FGK_E_EXTENT ||
      cond->u.bin.b->u.extent.axis != FG_COLUMNS ||
      assigns(&s->u.for_.body, v))
    return -1;
  return cond->u.bin.b->u.extent.port;
}

static void stmt(fgk_emitter *e, const fgk_stmt *s) {
  if (e->flat && fge_flat_skipped(e, s))
    return;        /* another element's, emit/flat.c */
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
    fge_line(e);
    zero_fill(e, v);
    break;
  }
  case FGK_S_BARRIER:
    if (!e->d->split_phases) {
      fge_line(e);
      fgk_putf(e, "barrier(%s);\n", s->u.global_fence
                                        ? "CLK_GLOBAL_MEM_FENCE | "
                                          "CLK_LOCAL_MEM_FENCE"
                                        : "CLK_LOCAL_MEM_FENCE");
    }
    break;
  case FGK_S_ASSIGN: {
    int cls, i = e->coltab && !e->coltab_pre
                     ? fge_coltab_index(e, s, &cls) : -1;
    if (i >= 0 && cls == 1) {
      /* a column statement: its value from the column block's table */
      fge_line(e);
      fgk_ex(e, s->u.assign.lhs);
      fgk_putf(e, " = fgk_col%d[fgk_c - fgk_cb];\n", i);
      break;
    }
  }
    if (fge_assign(e, s->u.assign.lhs, s->u.assign.rhs))
      break;
    fge_line(e);
    fgk_ex(e, s->u.assign.lhs);
    fgk_put(e, " = ");
    fgk_ex_as_type(e, s->u.assign.rhs, s->u.assign.lhs->type);
    fgk_put(e, ";\n");
    break;
  case FGK_S_IF:
    fge_line(e);
    fgk_put(e, "if (");
    fgk_ex(e, s->u.if_.cond);
    open_block(e);
    block(e, &s->u.if_.then);
    if (s->u.if_.els.first) {
      e->indent--;
      fge_line(e);
      fgk_put(e, "} else {\n");
      e->indent++;
      block(e, &s->u.if_.els);
    }
    close_block(e);
    break;
  case FGK_S_FOR: {
    int cols = column_loop(s);
    for_header(e, s, !counted(s) && !has_barrier(&s->u.for_.body));
    bool pushed = cols >= 0 && e->n_in_cols < FGE_IN_COLS_MAX;
    if (pushed) {
      e->in_cols[e->n_in_cols].var = s->u.for_.var;
      e->in_cols[e->n_in_cols++].port = cols;
    }
    block(e, &s->u.for_.body);
    if (pushed)
      e->n_in_cols--;
    close_block(e);
    break;
  }
  case FGK_S_WHILE:
    fge_line(e);
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
    fge_line(e);
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
    fge_line(e);
    fgk_putf(e, "/* %s */\n", s->u.comment);
    break;
  case FGK_S_EXPR:
    fge_line(e);
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
          fge_line(e);
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
      fge_line(e);
      fgk_putf(e, "%s%s v%d", v->volatile_ ? "volatile " : "",
               e->d->type_name(v->type), v->id);
      if (e->per_thread)
        fgk_putf(e, "[%d]", e->k->local[0] * e->k->local[1]);
      else if (e->lanes && !fge_lane_uniform(e, v))
        fgk_putf(e, "[%d]", FGE_LANES);
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

/* ---- column lanes (emit/jam.c) -------------------------------------------
 * The interior of a kernel whose loops are the same in every column, for
 * FGE_LANES columns from fgk_cb: the top-level statements in order, each
 * run of per-column ones a loop over the columns, each loop over the
 * columns inside, and what sets the counters once. */

static void lanes_open(fgk_emitter *e) {
  fge_line(e);
  fgk_putf(e, "for (int fgk_k = 0; fgk_k < %d; ++fgk_k) {\n", FGE_LANES);
  e->indent++;
  fge_line(e);
  fgk_put(e, "const long fgk_c = fgk_cb + fgk_k;\n");
  fge_line(e);
  fgk_put(e, "const int _column = (int)fgk_c;\n");
  fge_line(e);
  fgk_put(e, "const long fgk_i = fgk_t * _columns + fgk_c;\n");
  fge_line(e);
  fgk_put(e, "(void)_column; (void)fgk_i;\n");
}

static void lanes_close(fgk_emitter *e) {
  e->indent--;
  fge_line(e);
  fgk_put(e, "}\n");
}

/* Whether top-level statement s is the same in every column. */
static bool lanes_uniform_stmt(const fgk_emitter *e, const fgk_stmt *s) {
  return (s->kind == FGK_S_DECL && fge_lane_uniform(e, s->u.decl)) ||
         (s->kind == FGK_S_ASSIGN && s->u.assign.lhs->kind == FGK_E_VAR &&
          fge_lane_uniform(e, s->u.assign.lhs->u.var));
}

static void lanes_block(fgk_emitter *e, const fgk_block *b) {
  bool open = false;
  for (const fgk_stmt *s = b->first; s; s = s->next) {
    bool per_column = s->kind != FGK_S_FOR && !lanes_uniform_stmt(e, s);
    if (per_column && !open)
      lanes_open(e);
    else if (!per_column && open)
      lanes_close(e);
    open = per_column;
    if (s->kind != FGK_S_FOR) {
      stmt(e, s);
      continue;
    }
    for_header(e, s, !counted(s));
    lanes_open(e);
    block(e, &s->u.for_.body);
    lanes_close(e);
    close_block(e);
  }
  if (open)
    lanes_close(e);
}

int fge_strip(const fgk_kernel *k, fgk_dialect d, int strip) {
  return d == FGK_DIALECT_CL && strip > 1 && !k->grouped &&
         !fgk_is_reduction(k->reduce) ? strip : 1;
}

char *fgk_emit(const fgk_kernel *k, fgk_dialect d, const char *fn_name) {
  return fgk_emit_for(k, d, fn_name, NULL);
}

char *fgk_emit_for(const fgk_kernel *k, fgk_dialect d, const char *fn_name,
                   fgk_emit_target *target) {
  fgk_emitter e = {.w = {&fge_writer_i}, .k = k, .indent = 3};
  e.strip = fge_strip(k, d, target ? target->strip : 1);
  e.strip_rows = e.strip > 1 && target && target->strip_rows > 1
                     ? target->strip_rows : 1;
  e.fast_fma = target && target->fast_fma;
  e.d = d == FGK_DIALECT_C ? &fgk_dialect_c
        : e.strip > 1 ? &fgk_dialect_cl_cpu : &fgk_dialect_cl;
  e.read_base = fge_hoist_base;
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
  /* a pointwise kernel computing every component alike: its whole column
   * loop runs over the row's elements (emit/flat.c); else values of the
   * column alone may go to tables (emit/coltab.c) */
  bool stencil = fge_stencil_bounds(&e, NULL);
  if (!stencil)
    e.flat = e.interior_flat = fge_flat_width(&e);
  if (!e.flat && !fge_coltab_plan(&e))
    e.out.oom = 1;
  if (!fge_rowtap_plan(&e))
    e.out.oom = 1;
  if (!e.coltab)
    e.strip_rows = 1;     /* a strip's rows are its tables' only gain */
  if (target)
    target->rows = e.strip_rows;
  e.col_block = fge_column_block(&e);
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
    const char *acc_type[FGK_MAX_REDUCTIONS];
    int n_acc = fgk_reduce_count(k);
    assert(n_acc <= FGK_MAX_REDUCTIONS);
    for (int r = 0; r < n_acc; r++)
      acc_type[r] = e.d->type_name(fge_reduce_type(k, r));
    fge_lane_loops(&e, &e.out, body.s ? body.s : "", acc_type, n_acc,
                   e.d->reduce_block_pragma, fge_reduce_lanes(k));
    e.out.oom |= body.oom;
    fgu_buf_free(&body);
    if (fge_reduce_has_loc(k)) {
      /* the end of a block, then each location's search for its first
       * point, with a copy of the body that compares instead of folding */
      fge_loc_blocks_close(&e, &e.out);
      for (int r = 0; r < n_acc; r++) {
        if (!fgk_reduce_at(k, r).loc)
          continue;
        fgu_buf folds = e.out;
        e.out = (fgu_buf){0};
        e.rescan = r + 1;
        declare_vars(&e, &k->body);
        block(&e, &k->body);
        e.rescan = 0;
        fgu_buf search = e.out;
        e.out = folds;
        fge_loc_search(&e, &e.out, r, search.s ? search.s : "");
        e.out.oom |= search.oom;
        fgu_buf_free(&search);
      }
    }
  } else {
    block(&e, &k->body);
    if (e.coltab) {
      /* the column blocks' loop body: the constant and column statements
       * in order, each column one's value stored in its table */
      fgu_buf body = e.out;
      e.out = (fgu_buf){0};
      e.coltab_pre = true;
      declare_vars(&e, &k->body);
      int i = 0, cls;
      for (const fgk_stmt *s = k->body.first; s; s = s->next, i++) {
        if (fge_coltab_index(&e, s, &cls) < 0 || cls == 2)
          continue;
        stmt(&e, s);
        if (cls == 1) {
          fge_line(&e);
          fgk_putf(&e, "fgk_col%d[fgk_c - fgk_cb] = ", i);
          fgk_ex(&e, s->u.assign.lhs);
          fgk_put(&e, ";\n");
        }
      }
      fge_rowtap_emit_columns(&e);
      e.coltab_pre = false;
      e.coltab_pre_text = e.out;
      e.out = body;
      fge_coltab_emit(&e);
      if (e.n_rowtap) {
        /* a row's prologue: its statements of the row alone, then the
         * fills of its taps' tables (emit/rowtaps.c) */
        body = e.out;
        e.out = (fgu_buf){0};
        e.coltab_pre = true;
        int indent = e.indent;
        e.indent = 3;
        declare_vars(&e, &k->body);
        for (const fgk_stmt *s = k->body.first; s; s = s->next)
          if (fge_rowtap_row_stmt(&e, s))
            stmt(&e, s);
        fge_rowtap_fill(&e);
        e.indent = indent;
        e.coltab_pre = false;
        e.rowtap_pre = e.out;
        e.out = body;
        fge_rowtap_emit(&e);
      }
    }
    if (e.hoist.s) {
      /* the read locations the body uses, computed once */
      fgu_buf body = e.out;
      e.out = e.hoist;
      e.hoist = (fgu_buf){0};
      if (body.s)
        fgk_put(&e, body.s);
      e.out.oom |= body.oom;
      fgu_buf_free(&body);
    }
  }
  e.flat = 0;
  if (stencil) {
    /* the interior copy of the body, for open_kernel's interior loop */
    fgu_buf border = e.out;
    e.out = (fgu_buf){0};
    e.interior = true;
    e.flat = e.interior_flat = fge_flat_width(&e);
    declare_vars(&e, &k->body);
    block(&e, &k->body);
    e.flat = 0;
    e.interior_body = e.out;
    e.out = (fgu_buf){0};
    if (fge_jam_lanes(&e)) {
      /* and its copy in blocks of column lanes (emit/jam.c) */
      e.lanes = true;
      e.indent = 3;
      declare_vars(&e, &k->body);
      lanes_block(&e, &k->body);
      e.lanes = false;
      e.lanes_body = e.out;
      e.out = (fgu_buf){0};
    }
    e.interior = false;
    e.out = border;
  }
  if (k->reduce.kind == FGK_REDUCE_FOREIGN) {
    /* end of the chunk: the call's hooks store the partial */
    fgk_put(&e, "      }\n    }\n    ");
    if (e.foreign_acc)
      fgk_foreign_store_partial(&e.w, e.foreign_acc, k->reduce.port);
  } else if (fgk_is_reduction(k->reduce)) {
    /* end of the thread's chunk: fold each reduction's lanes by the fixed
     * tree, store its partial */
    for (int r = 0; r < fgk_reduce_count(k); r++) {
      fgk_type t = fge_reduce_type(k, r);
      int port = fgk_reduce_at(k, r).port;
      char acc[32], a[48], b[64], ptr[64];
      fge_acc_name(acc, sizeof acc, "fgk_acc", r);
      snprintf(a, sizeof a, "%s[fgk_l]", acc);
      snprintf(ptr, sizeof ptr, "out%d + fgk_p * %d", port, t.width);
      for (int w = fge_reduce_lanes(k) / 2; w >= 1; w /= 2) {
        fgk_putf(&e, "    for (int fgk_l = 0; fgk_l < %d; ++fgk_l) {\n", w);
        snprintf(b, sizeof b, "%s[fgk_l + %d]", acc, w);
        fge_fold_text(&e, r, &e.out, "      ", a, b);
        fgk_put(&e, "    }\n");
      }
      fgk_put(&e, "    ");
      if (t.width == 1) {
        fgk_putf(&e, "out%d[fgk_p] = %s[0];\n", port, acc);
      } else {
        fg_expr accx = {.kind = FGK_E_VAR, .type = t};
        fgk_var accv = {.id = -1, .type = t};
        accx.u.var = &accv;
        e.acc_name = acc;
        e.d->store(&e, t, ptr, &accx);
        e.acc_name = NULL;
      }
    }
  }
  fgu_buf src = {0};
  fgu_buf_printf(&src, "/* fieldgraph kernel '%s' (%s) */\n", k->name,
                 e.d->name);
  e.d->open_kernel(&e, &src, e.help.s ? e.help.s : "", fn_name);
  if (e.out.s)
    fgu_buf_puts(&src, e.out.s);
  fgu_buf_puts(&src, fgk_is_reduction(k->reduce) ? e.d->close_reduce
                     : e.coltab_pre_text.s || e.col_block
                         ? e.d->close_kernel_tables
                         : e.d->close_kernel);
  bool oom = e.out.oom || e.help.oom || e.names.oom || e.locals.oom ||
             e.zero_locals.oom || e.interior_body.oom || e.hoist.oom ||
             e.lanes_body.oom ||
             e.coltab_decl.oom || e.coltab_pre_text.oom ||
             e.rowtap_decl.oom || e.rowtap_pre.oom;
  fge_coltab_free(&e);
  fge_rowtap_free(&e);
  fge_hoist_free(&e);
  free(e.flat_skip);
  fgu_buf_free(&e.interior_body);
  fgu_buf_free(&e.lanes_body);
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

