/* emit/emit_impl.h - what the parts of emit/ share: the emission state
 * and the dialect hooks.  The walker owns statement and expression
 * structure; a dialect only says how a type, a literal vector, a
 * conversion, a load or a built-in call is spelled.  Internal.
 *
 * The parts call one way, each only those listed after it:
 *   walk.c     statements, declarations, kernel assembly (fgk_emit)
 *   dialect_c.c, dialect_cl.c   the dialects' hooks (math_c.c beside)
 *   scalar.c   small tensors as one scalar per component
 *   reduce.c   reduction kernels' lanes and folds
 *   writer.c   the text writer given to foreign calls
 *   hoist.c    read locations computed once per work-item
 *   taps.c     gathered small tensors read as one word
 *   coltab.c   values of the column alone, in tables per column block
 *   blocks.c   column blocks for kernels that read across rows
 *   expr.c     expressions and the addressing of fields
 *   stencil.c  stencils' interior columns and border rules
 *   flat.c     whether a stencil interior may run over flat elements
 *   out.c      output primitives
 * Expressions reach back to scalar.c, hoist.c and the walker's choices
 * only through the emitter (its dialect d, its comp and read_base
 * hooks); tests/circles.sh holds the order. */
#ifndef FG_EMIT_EMIT_IMPL_H
#define FG_EMIT_EMIT_IMPL_H

#include "emit.h"

typedef struct fgk_emitter fgk_emitter;

typedef struct fgk_dialect_i {
  const char *name;
  fgk_dialect id;
  /* Spelling of a type in this dialect. */
  const char *(*type_name)(fgk_type t);
  /* Scalar x converted to vector type t (a splat). */
  void (*splat)(fgk_emitter *e, const fg_expr *x, fgk_type t);
  /* Vector x converted element-wise to vector type t. */
  void (*vconvert)(fgk_emitter *e, const fg_expr *x, fgk_type t);
  /* x (of type src) converted with saturation (and round-to-nearest-even
   * from floats) to t; src and t have the same width. */
  void (*convert_sat)(fgk_emitter *e, const fg_expr *x, fgk_type src,
                      fgk_type t);
  /* The bits of x reinterpreted as t. */
  void (*as)(fgk_emitter *e, const fg_expr *x, fgk_type t);
  /* A call of a built-in function (x->kind == FGK_E_CALL). */
  void (*call)(fgk_emitter *e, const fg_expr *x);
  /* Opening of a vector literal of type t ("((float4){", "((float4)("),
   * and its closing. */
  void (*vec_open)(fgk_emitter *e, fgk_type t);
  const char *vec_close;
  /* How a helper function is declared ("static inline ", "inline "). */
  const char *helper_prefix;
  /* Loads a small tensor of type t (width > 1) from the address emitted
   * between load_open and ")". */
  void (*load_open)(fgk_emitter *e, fgk_type t);
  /* Stores value (already of type t, width > 1) at address ptr. */
  void (*store)(fgk_emitter *e, fgk_type t, const char *ptr,
                const fg_expr *value);
  /* Everything before the thread body: prelude, helpers (given, already
   * complete), the function header, parameter unpacking and the thread
   * loop or the thread's identity; and the text closing the body. */
  void (*open_kernel)(fgk_emitter *e, fgu_buf *out, const char *helpers,
                      const char *fn_name);
  const char *close_kernel;
  /* An atomic function call (x->kind == FGK_E_ATOMIC). */
  void (*atomic)(fgk_emitter *e, const fg_expr *x);
  /* How a grouped kernel's barriers are realized: natively (barrier()
   * where the statement is), or by splitting the body into phases, each
   * wrapped in phase_open ... phase_close, a loop over the group's threads
   * (variables then live in per-thread arrays indexed by fgk_lt). */
  bool split_phases;
  const char *phase_open, *phase_close;
  /* Qualifier of a work-group shared declaration ("__local " or ""). */
  const char *local_qualifier;
  /* Whether shared declarations go to kernel scope (e->locals) rather than
   * beside the private ones. */
  bool locals_at_kernel_scope;
  /* Closing of a reduction kernel after the walker stored the partial. */
  const char *close_reduce;
  /* Whether small-tensor variables, loads, stores and component-wise
   * arithmetic become one scalar per component (emit/scalar.c). */
  bool scalarize;
  /* Whether stencil kernels run an unclamped interior column loop beside
   * the clamped border loop (emit/stencil.c); open_kernel then emits the
   * interior loop with e->interior_body. */
  bool split_stencils;
  /* Whether those bounds may also be computed from expressions of the row
   * (fge_based), its thread identity being declared where they stand. */
  bool based_columns;
  /* Whether such an interior loop, or a pointwise kernel's column loop,
   * may run over a row's flat elements when every component is computed
   * alike (emit/flat.c); open_kernel then loops fgk_j over them when
   * e->interior_flat is set. */
  bool flat_interior;
  /* Whether clamped reads at coordinates that depend only on the thread
   * take their row base and column from constants declared once before
   * the body (emit/hoist.c). */
  bool hoist_reads;
  /* Whether values that depend only on the column are computed once per
   * block of columns into tables (emit/coltab.c): the C dialect's blocks
   * within a tile of rows, OpenCL C's strip of a work-item running
   * e->strip_rows rows. */
  bool column_tables;
  /* The end of a kernel whose rows run inside a loop over column blocks,
   * or over a work-item's rows (close_kernel and one more brace). */
  const char *close_kernel_tables;
  /* Whether a gathered small tensor of 8- or 16-bit elements is read as
   * one 32-bit word, each component a shift of it (emit/taps.c). */
  bool word_taps;
  /* A line before a reduction's loop over blocks of lanes (walk.c), or
   * "": clang's loop vectorizer would widen that loop across blocks (one
   * vector per lane, gathers); kept scalar, the lanes of one block become
   * one vector. */
  const char *reduce_block_pragma;
  /* Whether the block loop folds a block's values as one vector of the
   * lanes (clang's ext_vector_type; fge_lane_loops): the lane loop only
   * computes the values, which the loop vectorizer widens, so the lanes
   * stay in vector registers without the SLP vectorizer. */
  bool reduce_vector_fold;
  /* Whether a stencil's interior may run in blocks of column lanes, its
   * loops outside (emit/jam.c; the C dialect). */
  bool jam_lanes;
  /* Optional: a vector comparison whose result (the IR's type t, a vector
   * of signed integers) the dialect types otherwise is emitted between
   * vcompare_open and vcompare_close, which convert it to t (clang's C
   * gives 8-bit comparisons plain-char vectors, not char4's signed
   * char); vcompare_open returns whether it opened one. */
  bool (*vcompare_open)(fgk_emitter *e, fgk_type t);
  void (*vcompare_close)(fgk_emitter *e, fgk_type t);
} fgk_dialect_i;

/* Most loop counters of a kernel whose interior runs in lanes. */
#define FGE_LANE_COUNTERS 8

/* Column loops nested deeper than this clamp their reads as before. */
#define FGE_IN_COLS_MAX 8

/* A read of a row at a column table's value (emit/rowtaps.c): read x of
 * input port at (layer + dl or the constant dl, row + dr, col + dc), the
 * variables assigned once; its element table and its column set. */
#define FGE_ROWTAPS_MAX 16
typedef struct fge_rowtap {
  const struct fg_expr *x;
  int port;
  const struct fgk_var *layer, *row, *col;
  long dl, dr, dc;
  int table, cols;
  int bytes;          /* 0: a 4-byte scalar; else a small tensor's bytes,
                         read as a word (emit/taps.c) */
} fge_rowtap;

struct fgk_emitter {
  fgk_writer w;        /* what foreign calls write through (emit/writer.c);
                          first, so that a writer is its emitter */
  const fgk_kernel *k;
  const fgk_dialect_i *d;
  fgu_buf out;         /* the thread body */
  fgu_buf help;        /* helpers, in order of first use */
  fgu_buf names;       /* "\n"-separated names of emitted helpers */
  int indent;
  int foreach_count;   /* > 0 inside _forEachTensorElement */
  bool uses_fp64;
  bool has_foreign;    /* a foreign call (a front end's code, such as
                          RenderScript's, with values of vector type) */
  bool per_thread;     /* private variables are arrays indexed by fgk_lt */
  fgu_buf locals;      /* shared declarations at kernel scope */
  fgu_buf zero_locals; /* statements zeroing the shared variables */
  const char *acc_name; /* NULL, or what variable id -1 is called: a
                          reduction's folded accumulator */
  const fg_expr *foreign_acc; /* a FOREIGN reduction's accumulating call */
  bool *split;         /* by variable id: held as one scalar per component */
  /* Emits component c of x when variables split (emit/scalar.c sets it
   * with split; NULL otherwise). */
  void (*comp)(fgk_emitter *e, const fg_expr *x, int c);
  /* Writes into ptr the pointer a read of buffer buf indexes (walk.c sets
   * it to fge_hoist_base, which may hoist the read's row; NULL: buf
   * itself), so expressions need not know the hoisting below them. */
  bool (*read_base)(fgk_emitter *e, const char *buf, const fgk_access *a,
                    int n, bool big, char *ptr, size_t size);
  bool interior;       /* emitting the interior copy of a stencil's body */
  fgu_buf interior_body; /* that copy, when the kernel is a split stencil */
  int flat;            /* > 1 while emitting that copy over flat elements:
                          of every small tensor (all of this many
                          components) one component is emitted, the one
                          of element fgk_j (emit/flat.c) */
  const fgk_stmt **flat_skip; /* statements the flat body leaves out */
  int n_flat_skip;
  int interior_flat;   /* the flat width of that copy, or of a pointwise
                          kernel's body (0: per pixel) */
  fgu_buf hoist;       /* declarations of hoisted read locations */
  char **hoist_text;   /* n_hoist: their values, fgk_h<i> in order */
  int n_hoist;
  char hoist_col[32];  /* the next location, set by fge_hoist_base */
  /* the loop variables that stay inside an input's columns while their
   * loop's body is emitted (walk.c): reads at them clamp no column */
  struct { const fgk_var *var; int port; } in_cols[FGE_IN_COLS_MAX];
  int n_in_cols;
  int strip;           /* columns one work-item runs as a loop (1: one);
                          > 1 only with fgk_dialect_cl_cpu */
  int strip_rows;      /* rows such a work-item runs: > 1 only with
                          column tables (emit/coltab.c), which fill one
                          table entry per column of the strip */
  bool fast_fma;       /* the device's fma is an instruction (math_c.c) */
  bool word_tapped;    /* a read was emitted as word taps (emit/taps.c) */
  unsigned char *coltab; /* n_coltab: by top-level statement, its class
                          (emit/coltab.c); NULL: no column tables */
  int n_coltab;
  int n_coltab_tables; /* how many column statements have a table */
  int coltab_bytes;    /* the tables' bytes per column */
  bool coltab_pre;     /* emitting the column blocks' statements */
  fgu_buf coltab_decl; /* the tables' declarations */
  fgu_buf coltab_pre_text; /* the loop body filling them */
  fge_rowtap rowtap[FGE_ROWTAPS_MAX]; /* n_rowtap: row taps (emit/rowtaps.c) */
  int n_rowtap;
  int n_rowtap_tables; /* their tables (one per distinct element) */
  int n_rowtap_cols;   /* their column sets (one per distinct column) */
  unsigned char *rowtap_stmt; /* by top-level statement: its class */
  fgu_buf rowtap_decl; /* the tables' declarations */
  fgu_buf rowtap_pre;  /* a row's statements and fills, before its columns */
  int col_block;       /* > 0: the C dialect walks a tile in blocks of this
                          many columns, its rows inside (emit/blocks.c) */
  bool lanes;          /* emitting the column lanes' copy of the body
                          (emit/jam.c): private variables but the lane
                          counters are arrays indexed by fgk_k */
  const fgk_var *lane_uniform[FGE_LANE_COUNTERS]; /* those counters */
  int n_lane_uniform;
  fgu_buf lanes_body;  /* that copy, when there is one */
  int rescan;          /* 0, or 1 + the reduction whose first point the
                          body being emitted looks for (emit/reduce.c):
                          its write compares, every other write is left
                          out */
};

extern const fgk_dialect_i fgk_dialect_c;
extern const fgk_dialect_i fgk_dialect_cl;
/* OpenCL C for a CPU device that widens loops, not vector types (PoCL):
 * small tensors as scalars, float math of emit/math_c.c, and each
 * work-item a loop over e->strip columns (emit/dialect_cl.c). */
extern const fgk_dialect_i fgk_dialect_cl_cpu;

/* Output primitives (emit/out.c). */
void fgk_put(fgk_emitter *e, const char *s);
void fgk_putf(fgk_emitter *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Indentation of a new line at the emitter's depth. */
void fge_line(fgk_emitter *e);
/* True the first time a helper name is seen (and records it). */
bool fgk_first_use(fgk_emitter *e, const char *name);
/* Lowest and highest value of an integer type, as C literals. */
const char *fgk_int_min_literal(fg_elem e);
const char *fgk_int_max_literal(fg_elem e);

/* Expressions (emit/expr.c). */
/* Emits expression x. */
void fgk_ex(fgk_emitter *e, const fg_expr *x);
/* Emits x converted to type t (a cast, a splat or a vector conversion). */
void fgk_ex_as_type(fgk_emitter *e, const fg_expr *x, fgk_type t);
/* A variable's name ("v3", "v3[fgk_lt]" per thread, the accumulator). */
void fge_var_name(fgk_emitter *e, const fgk_var *v);
/* Whether variable v is held as scalars (emit/scalar.c decides). */
bool fge_is_split(const fgk_emitter *e, const fgk_var *v);
/* Emits split variable v as a vector value (its components packed). */
void fge_pack(fgk_emitter *e, const fgk_var *v);
/* Emits fn(L, R, C, layer, row, column) for explicit access a to buffer
 * buf: fn "fgk_at" for reads (clamped, or by a's border rule), "fgk_wat"
 * for writes (-1 outside). */
void fge_location(fgk_emitter *e, const char *fn, const char *buf,
                  const fgk_access *a);
/* Emits the flat element index of access a to buffer buf (n elements per
 * tensor; big: stored as planes; zero_d: the field's only tensor). */
void fge_ex_index(fgk_emitter *e, const char *buf, const fgk_access *a,
                  int n, bool big, bool zero_d);
/* Writes into name the never-trapping integer division (or modulo)
 * helper of type t, emitting its definition on first use. */
void fge_divmod_helper(fgk_emitter *e, bool mod, fgk_type t, char *name,
                       size_t size);
/* The type both operands of a comparison take before comparing. */
fgk_type fge_compare_type(const fg_expr *a, const fg_expr *b);
extern const char *const fge_binop_text[FGK_BINOP_COUNT_];

/* Reductions (emit/reduce.c). */
/* Writes "T fgk_acc[lanes] = <identity>..." for a reduction kernel into
 * out: one array per reduction, fgk_acc for the first, fgk_acc1, ... for
 * its siblings. */
void fgk_reduce_acc_decl(fgk_emitter *e, fgu_buf *out);
/* Writes base (r == 0) or base followed by r into buf: the accumulator's
 * name of reduction r ("fgk_acc", "fgk_acc1"). */
void fge_acc_name(char *buf, size_t n, const char *base, int r);
/* The index r of the reduction that accumulates output port, or -1. */
int fge_reduce_of_port(const fgk_kernel *k, int port);
/* The C (and OpenCL C) expression of a reduction kernel's chunk, the
 * points one partial folds, from fgk_N points and fgk_P partials: a
 * multiple of the lanes for built-in reductions (ir/reduce.h). */
const char *fgk_reduce_chunk_text(const fgk_kernel *k);
/* Reduction r's type: its output's element type and tensor width. */
fgk_type fge_reduce_type(const fgk_kernel *k, int r);
/* Lanes of a built-in reduction kernel (FGK_REDUCE_LANES when any of its
 * reductions is over floats, else 1). */
int fge_reduce_lanes(const fgk_kernel *k);
/* Writes "a = b op a" for reduction r into out, indented by ind, for
 * lane accumulators a and b (C expressions). */
void fge_fold_text(fgk_emitter *e, int r, fgu_buf *out, const char *ind,
                   const char *a, const char *b);
/* The column loops of a built-in reduction's chunk around its thread
 * body, written into o; acc_type: the n_acc accumulators' types. */
void fge_lane_loops(fgk_emitter *e, fgu_buf *o, const char *body,
                    const char *const *acc_type, int n_acc,
                    const char *block_pragma, int lanes);
/* Whether e's kernel folds its blocks of lanes as vectors: the dialect
 * does (reduce_vector_fold), the lanes are FGK_REDUCE_LANES and every
 * reduction is written once, by a statement at the top of the body. */
bool fge_reduce_vector_fold(const fgk_emitter *e);
/* Statement s, the reduction's write: the value joins the accumulator
 * (with e->rescan: the value is compared with the extreme it looks for). */
void fge_accumulate(fgk_emitter *e, const fgk_stmt *s);

/* Reductions with a location (fgk_reduction.loc; emit/reduce.c).  A
 * partial folds its chunk in blocks of FGK_REDUCE_LOC_BLOCK points; after
 * each block, a reduction whose lanes' extreme became strictly better
 * remembers the block's start.  The first point equal to the partial's
 * extreme lies at or after the last such start (no earlier point equals
 * it), so the end of the partial looks for it from there, usually inside
 * that one block (from the chunk's start where the extreme is the
 * identity: +-inf, or the type's largest or smallest value). */
/* Whether kernel k has a reduction with a location. */
bool fge_reduce_has_loc(const fgk_kernel *k);
/* After the dialect's "fgk_end" (the partial's end), for a kernel with a
 * location: the extremes and block starts, and the opening of the loop
 * over blocks; *start and *end name the block's first point and its end
 * for the dialect's row loop (the chunk's otherwise, where nothing is
 * written). */
void fge_loc_blocks_open(fgk_emitter *e, fgu_buf *o, const char **start,
                         const char **end);
/* After the row loops of a block: each extreme's check, and the block
 * loop's end. */
void fge_loc_blocks_close(fgk_emitter *e, fgu_buf *o);
/* After the blocks: reduction r's search for its first point from its
 * block, with body (the thread body emitted with e->rescan = r + 1), and
 * the store of its index partial. */
void fge_loc_search(fgk_emitter *e, fgu_buf *o, int r, const char *body);

/* The text writer over an emitter (emit/writer.c), given to the hooks of
 * foreign calls (ir/foreign.h). */
extern const fgk_writer_i fge_writer_i;

/* Per-component emission of small tensors (emit/scalar.c).  Decides which
 * variables are split (allocates e->split; false when out of memory). */
bool fge_split_vars(fgk_emitter *e);
/* Emits component c of x (x of width > 1; a scalar x is itself). */
void fge_comp(fgk_emitter *e, const fg_expr *x, int c);
/* Declaration and zeroing of a split variable, with indentation. */
void fge_declare(fgk_emitter *e, const fgk_var *v);
void fge_zero(fgk_emitter *e, const fgk_var *v);
/* Statement lhs = rhs where lhs is a split variable; true when handled. */
bool fge_assign(fgk_emitter *e, const fg_expr *lhs, const fg_expr *rhs);
/* Whether x may be evaluated more than once (no side effects). */
bool fge_pure(const fg_expr *x);
/* The store of value (a whole small tensor of n elements of type el, pure)
 * at element index "fgk_w * n" of buffer buf, one component at a time. */
void fge_store(fgk_emitter *e, const char *buf, int n, fg_elem el,
               const fg_expr *value);

/* Stencils (emit/stencil.c).  A column coordinate the interior loop
 * reads unclamped: _column + dc (dc constant), or that clamped to
 * [lo, hi] by clamp() with lo constant and hi constant or _columns + k,
 * which equals _column + dc wherever lo <= _column + dc <= hi. */
typedef struct fge_colref {
  long dc;
  long scale;       /* the column is scale * _column + dc: 1 for a tap, 2-64
                       for a shrink's (fg_downsample2's 2 c + k), then
                       neither reversed nor clamped */
  bool reversed;    /* the column is in<port>_C + dc - _column (a flip),
                       port the read's own: inside for columns from dc + 1
                       to in<port>_C + dc */
  bool clamped;
  long lo;          /* clamped: the least value kept */
  bool hi_columns;  /* clamped: hi is _columns + hi_k, else hi_k */
  long hi_k;
  const struct fg_expr *var; /* NULL, or (scale > 1) the variable v of a
                       counted loop in scale * _column + v + dc, which
                       holds only values in [vlo, vhi] */
  long vlo, vhi;
} fge_colref;
/* Whether x is such a coordinate (or a multiple of the column plus a
 * constant, r->scale > 1, plus a counted loop's variable of kernel k
 * when k is not NULL); fills r. */
bool fge_column_offset(const fgk_kernel *k, const fg_expr *x,
                       fge_colref *r);
/* A column coordinate base + _column + dc, or base + (_column >> 1) * 2 +
 * dc (pair: a 4:2:0 chroma plane's interleaved pair, read as the element
 * at base + _column + dc or the one before it, by the column's parity),
 * with base an int expression of the layer, the row and extents alone
 * (another plane's offset, a row's start in a flat field): inside the
 * field over a run of columns computed once per row, affine in the column
 * there.  Reads of one-element tensors only, in dialects that say
 * based_columns. */
typedef struct fge_based {
  const fg_expr *base;
  long dc;
  bool pair;
} fge_based;
/* Whether read a (of kernel k, clamp border) is such a read and not one
 * fge_read_column takes (a constant base is a tap's offset); fills b. */
bool fge_read_based(const fgk_kernel *k, const fgk_access *a, fge_based *b);
/* After fge_stencil_bounds wrote fgk_lo and fgk_hi into out, narrows
 * them there to where every such read of e's kernel lies inside its field
 * (nothing in a dialect without based_columns) (emit/expr.c). */
void fge_based_bounds(fgk_emitter *e, fgu_buf *out);
/* Whether read a of kernel k's is such a coordinate or the reversed
 * column of a's own input (fge_colref.reversed); fills r. */
bool fge_read_column(const fgk_kernel *k, const fgk_access *a,
                     fge_colref *r);
/* Whether e's kernel reads at constant column offsets and the dialect
 * splits such kernels; with out, writes there the declarations of
 * fgk_lo and fgk_hi, the interior columns of the row. */
bool fge_stencil_bounds(const fgk_emitter *e, fgu_buf *out);
/* Whether e's kernel reads input port at scale * _column + offset with
 * scale > 1 (and fge_stencil_bounds' interior holds); the scale and the
 * least and greatest offset, whose columns the interior keeps inside the
 * input for every thread (emit/stencil.c). */
bool fge_stencil_span(const fgk_emitter *e, int port, long *scale,
                      long *slo, long *shi);
/* The element count n of every small tensor of e's kernel when its
 * stencil interior (e->interior set) or its pointwise column loop may run
 * over flat elements (each component computed
 * from the same component of its operands by the same scalar code, none
 * mixing components), else 0 (emit/flat.c). */
int fge_flat_width(fgk_emitter *e);
/* Whether the flat loop leaves out statement s: element k >= 1's of a
 * body written per element, element 0's standing for all (emit/flat.c). */
bool fge_flat_skipped(const fgk_emitter *e, const fgk_stmt *s);
/* Whether the C dialect asks clang to unroll-and-jam e's column loop: a
 * thread that loops over a reduced axis or taps in straight code
 * (emit/jam.c). */
bool fge_jam_columns(const fgk_emitter *e);
/* Whether such a kernel's interior also runs FGE_LANES columns at a time,
 * its loops outside (emit/jam.c): every loop's bounds are the same in
 * each column; sets e's lane counters. */
bool fge_jam_lanes(fgk_emitter *e);
/* Whether v is one of those counters, a scalar among the lanes' arrays. */
bool fge_lane_uniform(const fgk_emitter *e, const fgk_var *v);
/* Columns a block of lanes runs, and the most bytes its arrays take. */
#define FGE_LANES 128
#define FGE_LANES_BYTES 65536
/* Whether the C dialect adds a copy of e's threads that index their
 * gathers in 32 bits, for small enough inputs (emit/index32.c). */
bool fge_index32(const fgk_emitter *e);
/* The suffix of the flat-index functions of border rule b ("" for
 * CLAMP, "_m", "_r", "_w"); emits their helpers on first use. */
const char *fge_border_suffix(fgk_emitter *e, fg_border b);

/* Read locations (emit/hoist.c).  Writes into ptr the pointer a read a
 * of input buffer buf (n elements per tensor; big: planes) indexes: buf
 * itself, or, when the dialect hoists reads and a is clamped at
 * thread-invariant coordinates, a constant declared in e->hoist pointing
 * at its row; then sets e->hoist_col, which the read's fge_location
 * emits (and clears) as its location within that row, and returns true. */
bool fge_hoist_base(fgk_emitter *e, const char *buf, const fgk_access *a,
                    int n, bool big, char *ptr, size_t size);
/* Word taps (emit/taps.c).  The word size (4 bytes) read a of a small
 * tensor of n elements is loaded as, or 0 when read per component. */
int fge_tap_word(const fgk_emitter *e, const fgk_access *a, int n);
/* Emits component c of read a (fge_tap_word nonzero) of buffer buf
 * through pointer ptr, as a shift of its word. */
void fge_tap_comp(fgk_emitter *e, const char *buf, const char *ptr,
                  const fgk_access *a, int n, int c);
/* Strided words (emit/taps.c).  The word size (2 or 4 bytes) a stencil
 * interior's read x at scale * _column + dc of a tensor of n integer
 * elements is loaded as, or 0 when read per element. */
int fge_stride_word(const fgk_emitter *e, const fg_expr *x, int n);
/* Emits component c of read a (fge_stride_word w) of buffer buf through
 * pointer ptr, as a shift of its word. */
void fge_stride_comp(fgk_emitter *e, const char *buf, const char *ptr,
                     const fgk_access *a, int n, int w, int c);
/* Row taps (emit/rowtaps.c).  Finds the row taps of a kernel with column
 * tables (false when out of memory); e->n_rowtap stays 0 when none. */
bool fge_rowtap_plan(fgk_emitter *e);
/* The table read x is filled into, or -1 (a lookup in the plan, here so
 * that the expression writers need not call into rowtaps.c, which calls
 * them). */
static inline int fge_rowtap_table(const fgk_emitter *e, const fg_expr *x) {
  for (int i = 0; i < e->n_rowtap; i++)
    if (e->rowtap[i].x == x)
      return e->rowtap[i].table;
  return -1;
}
/* Whether top-level statement s computes a value of the row alone (or a
 * constant), which a row's prologue runs before the fills. */
bool fge_rowtap_row_stmt(const fgk_emitter *e, const fgk_stmt *s);
/* Writes the tables' declarations into e->rowtap_decl and the helper. */
void fge_rowtap_emit(fgk_emitter *e);
/* Emits, at the end of the column pass, each column set's clamped
 * column. */
void fge_rowtap_emit_columns(fgk_emitter *e);
/* Writes into o, after the column pass, each column set's windows. */
void fge_rowtap_windows(const fgk_emitter *e, fgu_buf *o);
/* Emits a row's fills of the tables (after its row statements). */
void fge_rowtap_fill(fgk_emitter *e);
/* Frees the row taps' state. */
void fge_rowtap_free(fgk_emitter *e);
/* Column tables (emit/coltab.c).  Classifies the top-level statements
 * of a loop- and branch-free body (false when out of memory); e->coltab
 * stays NULL when none is a column statement. */
bool fge_coltab_plan(fgk_emitter *e);
/* The index of top-level statement s, its class in *cls (0 constant,
 * 1 column, 2 other), or -1. */
int fge_coltab_index(const fgk_emitter *e, const fgk_stmt *s, int *cls);
/* Columns per block for a kernel reading an input at a row coordinate
 * that holds the thread's column (a transpose), when the dialect has
 * column blocks (column_tables) and the kernel neither column tables nor
 * a stencil's interior; else 0 (emit/blocks.c). */
int fge_column_block(const fgk_emitter *e);
/* Writes the tables' declarations into e->coltab_decl. */
void fge_coltab_emit(fgk_emitter *e);
/* Frees the column tables' state. */
void fge_coltab_free(fgk_emitter *e);
/* Frees the hoisting state. */
void fge_hoist_free(fgk_emitter *e);


#endif
