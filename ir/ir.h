/* ir/ir.h - the kernel IR: a small typed tree of statements and
 * expressions that every operator (built-in or user-written) is expressed
 * in.  The DSL builder (dsl/builder.c, dsl/expr.c) creates it, the fusion
 * pass (fuse/) groups it, the emitters (emit/) turn it into source.
 * Internal; prefix fgk_.  All nodes live in the owning graph's arena.
 */
#ifndef FG_IR_IR_H
#define FG_IR_IR_H

#include "fieldgraph.h"
#include "builtins.h"
#include "util/util.h"

#include <stdbool.h>

/* The type of a kernel value: element type and vector width 1..4. */
typedef struct fgk_type {
  fg_elem elem;
  int width;
} fgk_type;

static inline bool fgk_is_float(fg_elem e) { return e == FG_F32 || e == FG_F64; }
static inline bool fgk_is_int(fg_elem e) {
  return e >= FG_I8 && e <= FG_U64;
}
static inline bool fgk_is_signed(fg_elem e) {
  return e == FG_I8 || e == FG_I16 || e == FG_I32 || e == FG_I64;
}
static inline fgk_type fgk_t(fg_elem e, int w) { return (fgk_type){e, w}; }
static inline bool fgk_type_eq(fgk_type a, fgk_type b) {
  return a.elem == b.elem && a.width == b.width;
}

/* OpenCL-style type name ("float4", "uchar", "bool") of t. */
const char *fgk_type_name(fgk_type t);
/* C declarations of those names in clang's ext_vector dialect (schar,
 * uchar4, ...) after the C headers they need: how every C source begins,
 * the C dialect's kernels (emit/) and RenderScript's host code (rs/). */
extern const char fgk_c_prelude[];

/* Builtin function ids, in the order of FGK_BUILTINS (ir/builtins.h). */
typedef enum fgk_builtin {
#define FGK__BUILTIN_ID(name, arity, rule, ctmpl, clname, text) FGK_FN_##name,
  FGK_BUILTINS(FGK__BUILTIN_ID)
#undef FGK__BUILTIN_ID
  FGK_FN_COUNT_
} fgk_builtin;

/* Type rules of built-ins; ir/builtins.h describes each. */
typedef enum fgk_rule { FGK_RULE_FLT, FGK_RULE_NUM, FGK_RULE_INT,
                        FGK_RULE_INTU, FGK_RULE_INT32,
                        FGK_RULE_FLTRED, FGK_RULE_F32, FGK_RULE_F32RED,
                        FGK_RULE_FLT34, FGK_RULE_FLTINT, FGK_RULE_FLTI,
                        FGK_RULE_REL, FGK_RULE_SINTRED, FGK_RULE_SELECT,
                        FGK_RULE_NANCODE } fgk_rule;

typedef struct fgk_builtin_info {
  const char *name;
  int arity;
  fgk_rule rule;
  const char *c_template;
  const char *cl_name;
  const char *text;
} fgk_builtin_info;

extern const fgk_builtin_info fgk_builtins[FGK_FN_COUNT_];

typedef enum fgk_binop {
  FGK_ADD, FGK_SUB, FGK_MUL, FGK_DIV, FGK_MOD,
  FGK_EQ, FGK_NE, FGK_LT, FGK_LE, FGK_GT, FGK_GE,
  FGK_LAND, FGK_LOR, FGK_BAND, FGK_BOR, FGK_BXOR, FGK_SHL, FGK_SHR,
  FGK_BINOP_COUNT_
} fgk_binop;

typedef enum fgk_unop { FGK_NEG, FGK_LNOT, FGK_BNOT } fgk_unop;

/* Variables: scalars, vectors and arrays of them. */
typedef struct fgk_var {
  int id;               /* unique within its operator */
  fgk_type type;
  int ndims;            /* 0 for a plain variable, 1-3 for arrays */
  int dims[3];
  bool local;           /* shared by the work-group (_local) */
  bool volatile_;       /* _volatile */
} fgk_var;

typedef enum fgk_atomic {
  FGK_AT_ADD, FGK_AT_SUB, FGK_AT_XCHG, FGK_AT_MIN, FGK_AT_MAX, FGK_AT_AND,
  FGK_AT_OR, FGK_AT_XOR, FGK_AT_INC, FGK_AT_DEC, FGK_AT_CMPXCHG,
  FGK_AT_COUNT_
} fgk_atomic;

/* OpenCL name of an atomic function ("atomic_add"). */
const char *fgk_atomic_name(fgk_atomic a);

typedef enum fgk_expr_kind {
  FGK_E_CONST, FGK_E_VAR, FGK_E_THREAD, FGK_E_UNARY, FGK_E_BINARY,
  FGK_E_CALL, FGK_E_SWIZZLE, FGK_E_VECTOR, FGK_E_CONVERT, FGK_E_AS,
  FGK_E_READ, FGK_E_INDEX, FGK_E_ADDR, FGK_E_ATOMIC,
  FGK_E_FOREIGN,    /* an opaque, already-typed call into code a front end
                       carries, written by its hooks (ir/foreign.h) */
  FGK_E_EXTENT      /* an input field's extent along one axis (an int read
                       from the kernel's extent arguments, emit/abi.h), so
                       that no image size is a constant of the IR */
} fgk_expr_kind;

/* How a foreign call is written: the front end's hooks (ir/foreign.h). */
typedef struct fgk_foreign_i fgk_foreign_i;

/* A constant's value, read as the member its type selects. */
typedef union fgk_const { int64_t i; uint64_t u; double f; } fgk_const;

/* ---- reductions ----------------------------------------------------------
 * A reduction kernel runs its threads in a few chunks ("partials"); one
 * output, the reduction's port (0-D), accumulates what each thread writes
 * to it.  BUILTIN: the kernel keeps an accumulator of the output's type,
 * starting from the op's identity (ir/reduce.h), stores one per partial,
 * and the host folds the partials in order.  FOREIGN: the write's value is
 * a foreign call that updates an accumulator of the front end's own type;
 * the call's hooks declare it and store each partial into the output
 * (the front end folds them in a kernel of its own; nothing on the host).
 */
typedef enum fgk_reduce_kind {
  FGK_REDUCE_NONE, FGK_REDUCE_BUILTIN, FGK_REDUCE_FOREIGN
} fgk_reduce_kind;

typedef struct fgk_reduction {
  fgk_reduce_kind kind;
  fg_reduce_op op;       /* BUILTIN */
  int port;              /* the output that accumulates */
  bool loc;              /* BUILTIN MIN or MAX of scalars: also the first
                            point equal to the result (XLA's variadic
                            (value, index) reduce, one pass; emit/reduce.c) */
  int loc_port;          /* loc: the i64 0-D output of that point's flat
                            row-major index, -1 where none (only NaNs);
                            each partial stores its own, the host keeps the
                            first partial's whose value equals the result */
} fgk_reduction;

static inline fgk_reduction fgk_reduce_builtin(fg_reduce_op op, int port) {
  return (fgk_reduction){FGK_REDUCE_BUILTIN, op, port, false, -1};
}
/* A built-in minimum or maximum into port that also gives its first
 * point's index in loc_port. */
static inline fgk_reduction fgk_reduce_builtin_loc(fg_reduce_op op, int port,
                                                   int loc_port) {
  return (fgk_reduction){FGK_REDUCE_BUILTIN, op, port, true, loc_port};
}
static inline fgk_reduction fgk_reduce_foreign(int port) {
  return (fgk_reduction){FGK_REDUCE_FOREIGN, FG_REDUCE_SUM, port, false, -1};
}
/* Whether a kernel with reduction r reduces at all. */
static inline bool fgk_is_reduction(fgk_reduction r) {
  return r.kind != FGK_REDUCE_NONE;
}
/* Whether the host combines the kernel's partials (BUILTIN) rather than
 * the kernel writing its own output (NONE, FOREIGN). */
static inline bool fgk_reduce_on_host(fgk_reduction r) {
  return r.kind == FGK_REDUCE_BUILTIN;
}

/* Most partials a reduction kernel is launched over (runtime/program.c). */
#define FGK_MAX_PARTIALS 256
/* Most built-in reductions one kernel carries: sibling reductions of the
 * same threads (fuse/partition.c) share one pass over their inputs, each
 * with its own accumulators, partials and host combine. */
#define FGK_MAX_REDUCTIONS 8

/* How a read or write addresses its field. */
typedef struct fgk_access {
  int port;              /* input index (reads) or output index (writes) */
  bool element;          /* _readTensorElement / _writeTensorElement */
  int ncoords;           /* 0: implicit (this thread's location) */
  struct fg_expr *coord[3];
  struct fg_expr *elem;  /* element index when element is true */
  fg_border border;      /* explicit reads: coordinates outside the field
                            (CLAMP, MIRROR, REFLECT or WRAP) */
} fgk_access;

struct fg_expr {
  fgk_expr_kind kind;
  fgk_type type;
  fg_op *op;
  union {
    fgk_const k;                                     /* CONST */
    fgk_var *var;                                    /* VAR */
    fg_thread_const thread;                          /* THREAD */
    struct { int port; fg_thread_const axis; } extent; /* EXTENT: input
                          port, FG_LAYERS, FG_ROWS or FG_COLUMNS */
    struct { int op; struct fg_expr *a, *b; } bin;   /* UNARY, BINARY */
    struct { fgk_builtin fn; int n; struct fg_expr *arg[3]; } call;
    struct { struct fg_expr *a; int n; int comp[4]; } swz;
    struct { int n; struct fg_expr *arg[4]; } vec;   /* VECTOR */
    struct { struct fg_expr *a; bool sat; } conv;    /* CONVERT, AS */
    fgk_access read;                                 /* READ */
    struct { fgk_var *var; int n; struct fg_expr *idx[3]; } index;
    struct fg_expr *addr;                            /* ADDR: an lvalue */
    struct { fgk_atomic op; struct fg_expr *p, *a, *b; } atomic;
    struct { const fgk_foreign_i *hooks;   /* FOREIGN: how to write it */
             const void *payload;          /* the front end's callee */
             int n; struct fg_expr **arg;  /* operands */
             int n_ports; int *port;       /* inputs it reads anywhere
                                              (-1: none), the payload's */
             int n_outs; int *out_port; } foreign;  /* outputs it writes
                                              itself, in the payload's
                                              order (-1: none) */
  } u;
};

typedef enum fgk_stmt_kind {
  FGK_S_DECL, FGK_S_ASSIGN, FGK_S_IF, FGK_S_FOR, FGK_S_WHILE,
  FGK_S_WRITE, FGK_S_FOREACH, FGK_S_BARRIER, FGK_S_COMMENT,
  FGK_S_EXPR        /* an expression evaluated for its effect */
} fgk_stmt_kind;

typedef struct fgk_stmt fgk_stmt;
typedef struct fgk_block {
  fgk_stmt *first, *last;
} fgk_block;

struct fgk_stmt {
  fgk_stmt_kind kind;
  fgk_stmt *next;
  union {
    fgk_var *decl;                                         /* DECL */
    struct { struct fg_expr *lhs, *rhs; } assign;          /* ASSIGN */
    struct { struct fg_expr *cond; fgk_block then, els; } if_;
    struct { fgk_var *var; struct fg_expr *init, *cond, *step;
             fgk_block body; } for_;
    struct { struct fg_expr *cond; fgk_block body; } while_;
    struct { fgk_access at; struct fg_expr *value; } write; /* WRITE */
    struct { int count; fgk_block body; } foreach;          /* FOREACH */
    bool global_fence;                                      /* BARRIER */
    const char *comment;                                    /* COMMENT */
    struct fg_expr *expr;                                   /* EXPR */
  } u;
};

/* A finished operator's kernel: what the emitters need. */
typedef struct fgk_kernel {
  const char *name;
  int n_in, n_out;
  fg_type *in_type;      /* n_in */
  fg_type *out_type;     /* n_out */
  fg_shape threads;      /* thread shape: output 0's field shape, or what
                            _globalThreads asked for */
  int thread_elements;   /* 0, or _globalThreads(threads, tensorShape)'s
                            element count: that many threads per point,
                            each with its own _tensorElement */
  int local[2];          /* work-group (rows, columns) of a grouped kernel */
  fgk_reduction reduce;  /* kind NONE, or how output reduce.port (0-D)
                            accumulates over all threads */
  int n_sibling;         /* BUILTIN: further built-in reductions over the
                            same threads, fused beside reduce (at most
                            FGK_MAX_REDUCTIONS - 1); each accumulates its
                            own 0-D output port in the documented order
                            (ir/reduce.h), as if it ran alone */
  fgk_reduction *sibling;
  bool grouped;          /* uses work-group features: local memory,
                            barriers, atomics, local/group constants; runs
                            with the local shape above and never fuses */
  fgk_block body;
  int n_vars;
  bool *in_nonlocal;     /* n_in: read with explicit addressing somewhere */
  int fp;                /* FGK_FP_*: the precision its code asked for */
  bool *out_partial;     /* NULL, or n_out flags: output o may keep points
                            the kernel never writes (no top-level implicit
                            _writeTensor); the runtime zeroes it first */
  int *out_init;         /* NULL, or n_out: -1, or the input port whose
                            values output o holds before any thread runs
                            (a kernel that updates a copy of an input at
                            points of its choosing: RenderScript's
                            rsSetElementAt); such an output is not zeroed */
} fgk_kernel;

/* How many reductions kernel k carries (0, 1, or 1 + its siblings), and
 * the i-th of them (0: k->reduce). */
static inline int fgk_reduce_count(const fgk_kernel *k) {
  return fgk_is_reduction(k->reduce) ? 1 + k->n_sibling : 0;
}
static inline fgk_reduction fgk_reduce_at(const fgk_kernel *k, int i) {
  return i == 0 ? k->reduce : k->sibling[i - 1];
}

/* A kernel's floating-point precision: DEFAULT follows the compile
 * options; FULL and RELAXED are what its code asked for (RenderScript's
 * rs_fp_full, rs_fp_relaxed / rs_fp_imprecise).  A fused kernel is relaxed
 * only if every member allows it: any FULL member makes it FULL, any
 * DEFAULT member leaves it to the options, otherwise it is RELAXED. */
enum { FGK_FP_DEFAULT, FGK_FP_FULL, FGK_FP_RELAXED };

static inline int fgk_fp_merge(int a, int b) {
  if (a == FGK_FP_FULL || b == FGK_FP_FULL)
    return FGK_FP_FULL;
  if (a == FGK_FP_DEFAULT || b == FGK_FP_DEFAULT)
    return FGK_FP_DEFAULT;
  return FGK_FP_RELAXED;
}

/* Whether x is t + k, k + t or t - k for thread constant t and a signed
 * integer constant k within +-65536 (k = 0 when x is t itself); k. */
bool fgk_thread_plus(const fg_expr *x, fg_thread_const t, long *k);
/* Whether int variable v of kernel k is set only by one loop for (v = a;
 * v < b (or <= b); v += 1), a and b small constants, nothing else
 * assigning it or taking its address; the least and greatest value it
 * holds anywhere (its declaration's 0 before the loop, the bound after
 * it) in lo and hi.  (A stencil's taps in a loop: emit/stencil.c,
 * fuse/bands.c.) */
bool fgk_counter_range(const fgk_kernel *k, const fgk_var *v, long *lo,
                       long *hi);
/* Whether scalar integer expression x of kernel k is known to lie in
 * [*lo, *hi]: constants, conversions that keep the value, clamp, min and
 * max of known ranges, a mask by a constant, a variable assigned once (or
 * 0, its declaration's value, before that), else its type's range when
 * narrower than a long.  (An index proven inside a field needs no clamp:
 * emit/expr.c.) */
bool fgk_int_range(const fgk_kernel *k, const fg_expr *x, long *lo,
                   long *hi);

#endif
