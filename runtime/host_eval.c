/* runtime/host_eval.c - the host's interpreter of one-point kernels
 * (host_eval.h): translation of the kernel IR into a flat tree of typed
 * nodes, refusing anything but plain scalar arithmetic, and its
 * evaluation with the semantics of the C the emitters write.  Values are
 * held per element type: integers sign- or zero-extended to 64 bits,
 * floats as float or double; every integer result is wrapped to its type
 * (the kernels are built with wrapping arithmetic, -fwrapv and OpenCL's
 * two's complement), every float result is rounded to its type on its
 * own (stored through a volatile: never contracted into an FMA). */
#include "host_eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef union hv {
  int64_t i;
  uint64_t u;
  float f;
  double d;
} hv;

/* Variables of a host kernel at most (its values live on the stack). */
#define HOST_MAX_VARS 256
/* Nodes of a host kernel at most; a larger one runs on the device. */
#define HOST_MAX_NODES 4096

enum { H_CONST, H_VAR, H_READ, H_UNARY, H_BINARY, H_CONVERT, H_SELECT };

typedef struct hnode {
  int kind;
  int op;             /* H_UNARY, H_BINARY: fgk_unop / fgk_binop */
  fg_elem t;          /* the value's type */
  fg_elem ot;         /* H_BINARY: the type the operands take */
  int a, b, c;        /* operand nodes */
  int index;          /* H_VAR: variable id; H_READ: input port */
  hv k;               /* H_CONST */
} hnode;

typedef struct hstmt {
  bool write;         /* write output `index`, else assign variable */
  int index;
  fg_elem t;          /* the variable's or the output's element type */
  int value;          /* node */
} hstmt;

struct fg__hprog {
  int n_node, n_stmt, n_var, n_in, n_out;
  hnode *node;
  hstmt *stmt;
  fg_elem *in_elem, *out_elem;
};

/* ---- values ---------------------------------------------------------------- */

static bool supported_elem(fg_elem e) {
  return e >= FG_I8 && e <= FG_F64;
}

/* bits wrapped to integer type e and extended back to 64 bits */
static hv wrap(uint64_t bits, fg_elem e) {
  hv r;
  switch (e) {
  case FG_I8: r.i = (int8_t)bits; break;
  case FG_U8: r.u = (uint8_t)bits; break;
  case FG_I16: r.i = (int16_t)bits; break;
  case FG_U16: r.u = (uint16_t)bits; break;
  case FG_I32: r.i = (int32_t)bits; break;
  case FG_U32: r.u = (uint32_t)bits; break;
  case FG_I64: r.i = (int64_t)bits; break;
  default: r.u = bits; break;
  }
  return r;
}

/* C's cast of v (type from) to type to.  A float outside the range of an
 * integer type converts as the host's C does, which the kernels leave
 * undefined (fg_cast). */
static hv convert(hv v, fg_elem from, fg_elem to) {
  hv r = {0};
  if (from == to)
    return v;
  if (fgk_is_int(from) && fgk_is_int(to))
    return wrap(v.u, to);
  if (fgk_is_int(from)) {
    bool s = fgk_is_signed(from);
    if (to == FG_F32)
      r.f = s ? (float)v.i : (float)v.u;
    else
      r.d = s ? (double)v.i : (double)v.u;
    return r;
  }
  double d = from == FG_F32 ? (double)v.f : v.d;
  if (to == FG_F32) {
    r.f = from == FG_F32 ? v.f : (float)v.d;
    return r;
  }
  if (to == FG_F64) {
    r.d = d;
    return r;
  }
#define FTOI(E, T, M)                                                        \
  case E:                                                                  \
    r.M = from == FG_F32 ? (T)v.f : (T)v.d;                                \
    break;
  switch (to) {
    FTOI(FG_I8, int8_t, i)
    FTOI(FG_U8, uint8_t, u)
    FTOI(FG_I16, int16_t, i)
    FTOI(FG_U16, uint16_t, u)
    FTOI(FG_I32, int32_t, i)
    FTOI(FG_U32, uint32_t, u)
    FTOI(FG_I64, int64_t, i)
    FTOI(FG_U64, uint64_t, u)
  default:
    break;
  }
#undef FTOI
  return r;
}

static bool truthy(hv v, fg_elem e) {
  return e == FG_F32 ? v.f != 0 : e == FG_F64 ? v.d != 0 : v.u != 0;
}

static hv load(const void *p, fg_elem e) {
  hv r = {0};
  switch (e) {
#define LD(E, T, M)                                                          \
  case E: {                                                                \
    T x;                                                                   \
    memcpy(&x, p, sizeof x);                                               \
    r.M = x;                                                               \
    break;                                                                 \
  }
    LD(FG_I8, int8_t, i)
    LD(FG_U8, uint8_t, u)
    LD(FG_I16, int16_t, i)
    LD(FG_U16, uint16_t, u)
    LD(FG_I32, int32_t, i)
    LD(FG_U32, uint32_t, u)
    LD(FG_I64, int64_t, i)
    LD(FG_U64, uint64_t, u)
    LD(FG_F32, float, f)
    LD(FG_F64, double, d)
#undef LD
  default:
    break;
  }
  return r;
}

static void store(void *p, hv v, fg_elem e) {
  switch (e) {
#define ST(E, T, M)                                                          \
  case E: {                                                                \
    T x = (T)v.M;                                                          \
    memcpy(p, &x, sizeof x);                                               \
    break;                                                                 \
  }
    ST(FG_I8, int8_t, i)
    ST(FG_U8, uint8_t, u)
    ST(FG_I16, int16_t, i)
    ST(FG_U16, uint16_t, u)
    ST(FG_I32, int32_t, i)
    ST(FG_U32, uint32_t, u)
    ST(FG_I64, int64_t, i)
    ST(FG_U64, uint64_t, u)
    ST(FG_F32, float, f)
    ST(FG_F64, double, d)
#undef ST
  default:
    break;
  }
}

/* ---- translation ---------------------------------------------------------- */

typedef struct tr {
  const fgk_kernel *k;
  const fg__host_target *t;
  fg__hprog *hp;
  int cap_node, cap_stmt;
  bool ok;
} tr;

static int add_node(tr *s, hnode n) {
  /* shared subexpressions are copied: bound the copies */
  if (s->ok && s->hp->n_node >= HOST_MAX_NODES)
    s->ok = false;
  if (!s->ok)
    return -1;
  if (s->hp->n_node == s->cap_node) {
    int cap = s->cap_node ? 2 * s->cap_node : 32;
    hnode *m = realloc(s->hp->node, (size_t)cap * sizeof *m);
    if (!m) {
      s->ok = false;
      return -1;
    }
    s->hp->node = m;
    s->cap_node = cap;
  }
  s->hp->node[s->hp->n_node] = n;
  return s->hp->n_node++;
}

/* The type both operands of a scalar comparison take (the emitters'
 * fge_compare_type): each promoted to at least int, then the higher. */
static fg_elem compare_elem(fg_elem a, fg_elem b) {
  if (a < FG_I32)
    a = FG_I32;
  if (b < FG_I32)
    b = FG_I32;
  return a >= b ? a : b;
}

/* A literal as the source text gives it: a float constant is printed
 * with 9 digits and read back as a float literal by the kernel's
 * compiler. */
static hv literal(const fg_expr *x) {
  hv r = {0};
  switch (x->type.elem) {
  case FG_F32: {
    char num[64];
    snprintf(num, sizeof num, "%.9g", x->u.k.f);
    r.f = strtof(num, NULL);
    break;
  }
  case FG_F64:
    r.d = x->u.k.f;
    break;
  default:
    r = wrap(fgk_is_signed(x->type.elem) ? (uint64_t)x->u.k.i : x->u.k.u,
             x->type.elem);
    break;
  }
  return r;
}

static int tr_expr(tr *s, const fg_expr *x) {
  if (!s->ok || !x)
    return s->ok = false, -1;
  fg_elem t = x->type.elem;
  if (x->type.width != 1 || !supported_elem(t))
    return s->ok = false, -1;
  hnode n = {.t = t, .a = -1, .b = -1, .c = -1};
  switch (x->kind) {
  case FGK_E_CONST:
    n.kind = H_CONST;
    n.k = literal(x);
    break;
  case FGK_E_VAR: {
    const fgk_var *v = x->u.var;
    if (v->ndims || v->local || v->id < 0 || v->id >= s->k->n_vars ||
        v->type.width != 1 || v->type.elem != t)
      return s->ok = false, -1;
    n.kind = H_VAR;
    n.index = v->id;
    break;
  }
  case FGK_E_READ: {
    const fgk_access *a = &x->u.read;
    if (a->ncoords || a->element || a->port < 0 || a->port >= s->k->n_in ||
        s->k->in_type[a->port].elem != t ||
        fg_type_tensor_elements(s->k->in_type[a->port]) != 1 ||
        fg_shape_points(s->k->in_type[a->port].field) != 1)
      return s->ok = false, -1;
    n.kind = H_READ;
    n.index = a->port;
    break;
  }
  case FGK_E_UNARY:
    /* the value's type must be C's too: no promoted small integers */
    if (fgk_is_int(t) && t < FG_I32)
      return s->ok = false, -1;
    n.kind = H_UNARY;
    n.op = x->u.bin.op;
    if (n.op == FGK_BNOT && !fgk_is_int(t))
      return s->ok = false, -1;
    n.a = tr_expr(s, x->u.bin.a);
    break;
  case FGK_E_BINARY: {
    int op = x->u.bin.op;
    if (op == FGK_SHL || op == FGK_SHR || (fgk_is_int(t) && t < FG_I32))
      return s->ok = false, -1;
    n.kind = H_BINARY;
    n.op = op;
    n.a = tr_expr(s, x->u.bin.a);
    n.b = tr_expr(s, x->u.bin.b);
    if (!s->ok)
      return -1;
    fg_elem ea = x->u.bin.a->type.elem, eb = x->u.bin.b->type.elem;
    n.ot = op >= FGK_EQ && op <= FGK_GE ? compare_elem(ea, eb) : t;
    if (op == FGK_DIV && n.ot == FG_F32 && !s->t->f32_div_rounded)
      return s->ok = false, -1;
    if ((op == FGK_MOD || op >= FGK_BAND) && !fgk_is_int(n.ot))
      return s->ok = false, -1;
    break;
  }
  case FGK_E_CONVERT:
    if (x->u.conv.sat)
      return s->ok = false, -1;
    n.kind = H_CONVERT;
    n.a = tr_expr(s, x->u.conv.a);
    break;
  case FGK_E_VECTOR:
    /* one scalar made a one-element value: a cast */
    if (x->u.vec.n != 1)
      return s->ok = false, -1;
    n.kind = H_CONVERT;
    n.a = tr_expr(s, x->u.vec.arg[0]);
    break;
  case FGK_E_CALL:
    /* select(a, b, c) of scalars: c ? b : a */
    if (x->u.call.fn != FGK_FN_select || x->u.call.n != 3 ||
        x->u.call.arg[0]->type.elem != t || x->u.call.arg[1]->type.elem != t)
      return s->ok = false, -1;
    n.kind = H_SELECT;
    n.a = tr_expr(s, x->u.call.arg[0]);
    n.b = tr_expr(s, x->u.call.arg[1]);
    n.c = tr_expr(s, x->u.call.arg[2]);
    break;
  default:
    return s->ok = false, -1;
  }
  return add_node(s, n);
}

static void add_stmt(tr *s, hstmt st) {
  if (!s->ok)
    return;
  if (s->hp->n_stmt == s->cap_stmt) {
    int cap = s->cap_stmt ? 2 * s->cap_stmt : 16;
    hstmt *m = realloc(s->hp->stmt, (size_t)cap * sizeof *m);
    if (!m) {
      s->ok = false;
      return;
    }
    s->hp->stmt = m;
    s->cap_stmt = cap;
  }
  s->hp->stmt[s->hp->n_stmt++] = st;
}

/* Only straight-line code: declarations, assignments to plain variables,
 * local writes of whole (one-element) outputs, comments. */
static void tr_block(tr *s, const fgk_block *b) {
  for (const fgk_stmt *st = b->first; st && s->ok; st = st->next) {
    switch (st->kind) {
    case FGK_S_DECL:
    case FGK_S_COMMENT:
      break;
    case FGK_S_ASSIGN: {
      const fg_expr *l = st->u.assign.lhs;
      if (l->kind != FGK_E_VAR || l->u.var->ndims || l->u.var->local ||
          l->u.var->id < 0 || l->u.var->id >= s->k->n_vars ||
          l->type.width != 1 || !supported_elem(l->type.elem)) {
        s->ok = false;
        break;
      }
      int v = tr_expr(s, st->u.assign.rhs);
      add_stmt(s, (hstmt){false, l->u.var->id, l->type.elem, v});
      break;
    }
    case FGK_S_WRITE: {
      const fgk_access *a = &st->u.write.at;
      if (a->ncoords || a->element || a->port < 0 || a->port >= s->k->n_out ||
          fg_type_tensor_elements(s->k->out_type[a->port]) != 1 ||
          !supported_elem(s->k->out_type[a->port].elem)) {
        s->ok = false;
        break;
      }
      int v = tr_expr(s, st->u.write.value);
      add_stmt(s, (hstmt){true, a->port, s->k->out_type[a->port].elem, v});
      break;
    }
    default:
      s->ok = false;
      break;
    }
  }
}

fg__hprog *fg__host_compile(const fgk_kernel *k, const fg__host_target *t) {
  if (fg_shape_points(k->threads) != 1 || fgk_is_reduction(k->reduce) ||
      k->grouped || k->thread_elements || k->out_partial || k->out_init ||
      k->fp == FGK_FP_RELAXED || k->n_vars > HOST_MAX_VARS)
    return NULL;
  for (int i = 0; i < k->n_out; i++)
    if (fg_shape_points(k->out_type[i].field) != 1)
      return NULL;
  fg__hprog *hp = calloc(1, sizeof *hp);
  if (!hp)
    return NULL;
  hp->n_var = k->n_vars;
  hp->n_in = k->n_in;
  hp->n_out = k->n_out;
  hp->in_elem = calloc((size_t)k->n_in + 1, sizeof *hp->in_elem);
  hp->out_elem = calloc((size_t)k->n_out + 1, sizeof *hp->out_elem);
  tr s = {.k = k, .t = t, .hp = hp, .ok = hp->in_elem && hp->out_elem};
  for (int i = 0; s.ok && i < k->n_in; i++)
    hp->in_elem[i] = k->in_type[i].elem;
  for (int i = 0; s.ok && i < k->n_out; i++)
    hp->out_elem[i] = k->out_type[i].elem;
  tr_block(&s, &k->body);
  /* every output written exactly once, after the values it needs */
  for (int o = 0; s.ok && o < k->n_out; o++) {
    int writes = 0;
    for (int i = 0; i < hp->n_stmt; i++)
      writes += hp->stmt[i].write && hp->stmt[i].index == o;
    s.ok = writes == 1;
  }
  if (!s.ok) {
    fg__host_free(hp);
    return NULL;
  }
  return hp;
}

void fg__host_free(fg__hprog *hp) {
  if (!hp)
    return;
  free(hp->node);
  free(hp->stmt);
  free(hp->in_elem);
  free(hp->out_elem);
  free(hp);
}

/* ---- evaluation ------------------------------------------------------------ */

/* a op b for floats of type e, rounded to e on its own */
static hv float_op(int op, hv a, hv b, fg_elem e) {
  hv r = {0};
  if (e == FG_F32) {
    volatile float x;
    switch (op) {
    case FGK_ADD: x = a.f + b.f; break;
    case FGK_SUB: x = a.f - b.f; break;
    case FGK_MUL: x = a.f * b.f; break;
    default: x = a.f / b.f; break;
    }
    r.f = x;
  } else {
    volatile double x;
    switch (op) {
    case FGK_ADD: x = a.d + b.d; break;
    case FGK_SUB: x = a.d - b.d; break;
    case FGK_MUL: x = a.d * b.d; break;
    default: x = a.d / b.d; break;
    }
    r.d = x;
  }
  return r;
}

/* a op b for integers of type e (at least 32 bits): wrapping, and the
 * emitters' division helper (x / 0 and x % 0 are 0, MIN / -1 wraps) */
static hv int_op(int op, hv a, hv b, fg_elem e) {
  bool s = fgk_is_signed(e);
  switch (op) {
  case FGK_ADD: return wrap(a.u + b.u, e);
  case FGK_SUB: return wrap(a.u - b.u, e);
  case FGK_MUL: return wrap(a.u * b.u, e);
  case FGK_BAND: return wrap(a.u & b.u, e);
  case FGK_BOR: return wrap(a.u | b.u, e);
  case FGK_BXOR: return wrap(a.u ^ b.u, e);
  case FGK_DIV:
  case FGK_MOD:
    if (b.u == 0)
      return wrap(0, e);
    if (s && b.i == -1)
      return wrap(op == FGK_DIV ? 0 - a.u : 0, e);
    if (s)
      return wrap((uint64_t)(op == FGK_DIV ? a.i / b.i : a.i % b.i), e);
    return wrap(op == FGK_DIV ? a.u / b.u : a.u % b.u, e);
  default:
    return wrap(0, e);
  }
}

static bool compare(int op, hv a, hv b, fg_elem e) {
  int c;
  if (e == FG_F32 || e == FG_F64) {
    double x = e == FG_F32 ? a.f : a.d, y = e == FG_F32 ? b.f : b.d;
    switch (op) {   /* NaN: only != holds */
    case FGK_EQ: return x == y;
    case FGK_NE: return x != y;
    case FGK_LT: return x < y;
    case FGK_LE: return x <= y;
    case FGK_GT: return x > y;
    default: return x >= y;
    }
  }
  if (fgk_is_signed(e))
    c = a.i < b.i ? -1 : a.i > b.i;
  else
    c = a.u < b.u ? -1 : a.u > b.u;
  switch (op) {
  case FGK_EQ: return c == 0;
  case FGK_NE: return c != 0;
  case FGK_LT: return c < 0;
  case FGK_LE: return c <= 0;
  case FGK_GT: return c > 0;
  default: return c >= 0;
  }
}

static hv eval(const fg__hprog *hp, int ni, const hv *var,
               const void *const *in) {
  const hnode *n = &hp->node[ni];
  hv r = {0};
  switch (n->kind) {
  case H_CONST:
    return n->k;
  case H_VAR:
    return var[n->index];
  case H_READ:
    return load(in[n->index], hp->in_elem[n->index]);
  case H_CONVERT: {
    const hnode *a = &hp->node[n->a];
    return convert(eval(hp, n->a, var, in), a->t, n->t);
  }
  case H_SELECT: {
    const hnode *c = &hp->node[n->c];
    bool pick = truthy(eval(hp, n->c, var, in), c->t);
    return eval(hp, pick ? n->b : n->a, var, in);
  }
  case H_UNARY: {
    const hnode *a = &hp->node[n->a];
    hv v = eval(hp, n->a, var, in);
    if (n->op == FGK_LNOT) {
      r.i = !truthy(v, a->t);
      return wrap((uint64_t)r.i, n->t);
    }
    v = convert(v, a->t, n->t);
    if (n->op == FGK_BNOT)
      return wrap(~v.u, n->t);
    if (n->t == FG_F32)
      r.f = -v.f;
    else if (n->t == FG_F64)
      r.d = -v.d;
    else
      r = wrap(0 - v.u, n->t);
    return r;
  }
  case H_BINARY: {
    const hnode *a = &hp->node[n->a], *b = &hp->node[n->b];
    hv x = eval(hp, n->a, var, in), y = eval(hp, n->b, var, in);
    if (n->op == FGK_LAND || n->op == FGK_LOR) {
      bool p = truthy(x, a->t), q = truthy(y, b->t);
      return wrap(n->op == FGK_LAND ? p && q : p || q, n->t);
    }
    x = convert(x, a->t, n->ot);
    y = convert(y, b->t, n->ot);
    if (n->op >= FGK_EQ && n->op <= FGK_GE)
      return wrap(compare(n->op, x, y, n->ot), n->t);
    if (n->ot == FG_F32 || n->ot == FG_F64)
      return float_op(n->op, x, y, n->ot);
    return int_op(n->op, x, y, n->ot);
  }
  default:
    return r;
  }
}

void fg__host_run(const fg__hprog *hp, const void *const *in,
                  void *const *out) {
  hv var[HOST_MAX_VARS] = {{0}};
  for (int i = 0; i < hp->n_stmt; i++) {
    const hstmt *st = &hp->stmt[i];
    const hnode *v = &hp->node[st->value];
    hv x = convert(eval(hp, st->value, var, in), v->t, st->t);
    if (st->write)
      store(out[st->index], x, st->t);
    else
      var[st->index] = x;
  }
}
