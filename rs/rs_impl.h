/* rs/rs_impl.h - the RenderScript front end's internals: the tokenizer
 * (lex.c), the preprocessor (pp.c), the declaration scanner and type
 * layout (scan.c, decl.c, const.c), the analyses the later parts ask of a
 * parsed script, and the RenderScript runtime library as text (compat.c,
 * matrix.c, quaternion.c, sample.c, time.c).  The parts above it, each in
 * a folder of its own and each including only what is below it:
 * rs-kernel/ (a script's functions as kernel text of either dialect),
 * rs-host/ (the script object, init() and invokables run on the host)
 * and rs-graph/ (graph nodes, fg_rs_* of include/fieldgraph/renderscript.h).
 *
 * A script is parsed once into an fgr_unit: its tokens, its top-level
 * declarations in source order, the types they define (with C layout, so
 * the host can pack globals exactly as the device reads them) and its
 * reduction kernels.  The unit is immutable afterwards except for the
 * script values of its globals, and it is shared by reference count
 * between the script object, the graphs whose nodes call into it and the
 * programs that upload its globals at every run.  Internal; prefix fgr_.
 */
#ifndef FG_RS_RS_IMPL_H
#define FG_RS_RS_IMPL_H

#include "dsl/dsl_impl.h"
#include "fieldgraph/renderscript.h"
#include "ir/foreign.h"

/* ---- bounds on a script ------------------------------------------------ */

/* What a hostile script can make the front end spend, each refused with
 * an error naming the bound: brackets nested (clang's own
 * -fbracket-depth default) and any recursive descent (operators, casts,
 * conditionals, array types) nested deeper; tokens macros expand to in
 * one constant expression; bytes of one object and of all globals. */
enum { FGR_MAX_NESTING = 256, FGR_MAX_MACRO_TOKENS = 1 << 20 };
#define FGR_MAX_OBJECT_BYTES ((int64_t)1 << 28)

/* ---- tokens ------------------------------------------------------------- */

typedef enum fgr_tok_kind {
  FGR_T_EOF, FGR_T_IDENT, FGR_T_NUMBER, FGR_T_STRING, FGR_T_CHAR,
  FGR_T_PUNCT,
  FGR_T_PP_BEGIN,     /* '#' opening a directive line */
  FGR_T_PP_END        /* the end of that line */
} fgr_tok_kind;

typedef struct fgr_tok {
  fgr_tok_kind kind;
  int off, len;       /* in the source text */
  int line, col;      /* 1-based, in the user's file */
  int file;           /* the user's file: an index in fgr_unit.files */
  bool space;         /* whitespace or a comment came before it */
} fgr_tok;

/* What a tokenizer reads: the preprocessed text (clang -E's output, with
 * line markers) of the script that the user wrote as src (the main file,
 * named file), for columns; file names go to arena. */
typedef struct fgr_lex_in {
  const char *file;
  const char *src;
  size_t src_len;
  const char *text;
  size_t len;
  fgu_arena *arena;
} fgr_lex_in;

/* Tokenizes in->text into *out (malloc'd, ending in FGR_T_EOF), each
 * token at its line and column in the user's file (line markers followed;
 * tokens of other files realigned on the columns of their source lines);
 * the file names go to *files (*n_files of them, [0] the main file, in
 * the arena).  On error returns false with "file:line:col: message" in
 * err. */
bool fgr_lex(const fgr_lex_in *in, fgr_tok **out, int *n_out,
             const char ***files, int *n_files, char *err, size_t errlen);

/* ---- preprocessing (pp.c) ------------------------------------------------ */

typedef struct fgr_pp {
  const char *clang;            /* NULL: the clang configure found */
  const char *const *dirs;      /* include paths after the script's own */
  int n_dirs;
  bool raw;                     /* text is already preprocessed: no clang
                                   (the fuzz targets' fast path) */
  int timeout_ms;               /* bound on clang -E's run; 0: default */
  size_t max_bytes;             /* bound on its output; 0: default */
} fgr_pp;

/* The preprocessor's default bounds: a script's preprocessing is stopped
 * past these (fg_rs_options may set others). */
enum { FGR_PP_TIMEOUT_MS = 30000 };
#define FGR_PP_MAX_BYTES ((size_t)4 * FG_RS_MAX_SOURCE)

/* Runs clang's preprocessor over text (len bytes) of the script called
 * file; returns its output (malloc'd, NUL-terminated, *out_len bytes), or
 * NULL with "file:line:col: message" in err. */
char *fgr_preprocess(const fgr_pp *pp, const char *file, const char *text,
                     size_t len, size_t *out_len, char *err, size_t errlen);

/* ---- types -------------------------------------------------------------- */

typedef enum fgr_tkind {
  FGR_VOID, FGR_BOOL, FGR_NUM, FGR_STRUCT, FGR_ARRAY, FGR_ALLOC,
  FGR_CONTEXT, FGR_OPAQUE
} fgr_tkind;

typedef struct fgr_member fgr_member;

typedef struct fgr_type {
  fgr_tkind kind;
  fg_elem elem;                 /* NUM */
  int width;                    /* NUM: 1 for a scalar, 2-4 for vectors */
  const struct fgr_type *of;    /* ARRAY */
  int64_t count;                /* ARRAY */
  int n_members;                /* STRUCT */
  fgr_member *members;
  int64_t size, align;          /* C layout (vec3 as vec4); 0 if unsized */
  const char *name;             /* as the user spells it */
  bool is_union;                /* STRUCT: a union (every member at 0) */
  bool has_ptr;                 /* STRUCT: a pointer member, here or in a
                                   member struct (size 0: no value the
                                   host and kernels pass) */
} fgr_type;

struct fgr_member {
  const char *name;
  const fgr_type *type;
  int64_t offset;
};

/* ---- declarations ------------------------------------------------------- */

typedef struct fgr_param {
  const char *name;             /* NULL when unnamed (prototypes) */
  const fgr_type *type;         /* the pointed-to type when ptr > 0 */
  int ptr;                      /* levels of '*' */
  bool is_const;
  int tok;                      /* the name's token (or the type's) */
  int spec0;                    /* first token of its specifiers */
  bool view;                    /* a pointer to a number or struct that
                                   calls give a pointer global p or p + e:
                                   a view of the field bound to it
                                   (ptrview.c) */
  bool view_written;            /* a view the function writes through */
} fgr_param;

enum { FGR_SPECIAL_X, FGR_SPECIAL_Y, FGR_SPECIAL_Z, FGR_SPECIAL_CONTEXT,
       FGR_SPECIAL_COUNT_ };

typedef struct fgr_func {
  const char *name;
  bool is_static, is_kernel, has_body;
  bool overloadable;            /* clang's __attribute__((overloadable)):
                                   several may share the name, the
                                   compiler of the kernel picks by type */
  const fgr_type *ret;
  int ret_ptr;
  int n_params;
  fgr_param *params;
  int special[FGR_SPECIAL_COUNT_];  /* param index, or -1 */
  int n_inputs;                 /* params that are not special */
  int tok0, tok1;               /* the whole declaration */
  int name_tok, lparen, rparen; /* its name and parameter parentheses */
  int unsupported;              /* first call the runtime lacks, or -1 */
  /* a legacy kernel, void root(const T *in, U *out, const void *usrData,
   * uint32_t x, uint32_t y): its pointer parameters (-1 when absent);
   * ret is then *out's type and the index parameters its specials */
  bool legacy;
  int legacy_in, legacy_out, legacy_usr;
  /* the input pointer also reads other elements, in[e], *(in + e) or
   * (in + e)->m: element (the point's linear index + e) of the input
   * field, which the launch passes whole (emit_hooks.c) */
  bool legacy_in_indexed;
  /* a kernel fieldgraph cannot run (a root() of another shape): refused
   * when launched, at bad_tok (-1: none) with bad_why */
  int bad_tok;
  const char *bad_why;
} fgr_func;

typedef struct fgr_global {
  const char *name;
  const fgr_type *type;
  bool is_static, is_const;
  bool buffered;                /* a member of the globals block */
  bool has_value;               /* its C value is known (c_values) */
  int64_t offset;               /* in c_values (and the block, when
                                   buffered) */
  int alloc_index;              /* rs_allocation: its binding slot, else -1 */
  const fgr_type *pointee;      /* a pointer global `const T *p` (or
                                   `= NULL`), bound like an rs_allocation
                                   and read as p[i] (fgr_ptr_read): T, a
                                   number, vector, bool or struct; else
                                   NULL */
  const char *host_why;         /* a pointer global: why invokables on the
                                   host cannot use it (rs-host/host.c) */
  int tok;                      /* the name's token */
  int init0, init1;             /* initializer tokens, init0 < 0: none */
  int decl0, decl1;             /* declarator tokens (no initializer) */
  int item;                     /* index of its declaration in items */
} fgr_global;

typedef struct fgr_reduce {
  const char *name;
  int line, col;                /* of the pragma */
  const fgr_func *init, *accum, *comb, *outc;   /* NULL when absent */
  const fgr_type *acc_type;     /* *accum's first parameter */
  const fgr_type *res_type;     /* the outconverter's, else acc_type */
} fgr_reduce;

typedef struct fgr_macro {
  const char *name;
  int tok0, tok1;               /* replacement tokens */
  bool function_like;
} fgr_macro;

typedef struct fgr_enumerator {   /* an enumeration constant */
  const char *name;
  int64_t value;
  int tok;                      /* its name's token */
  bool known;                   /* fieldgraph could evaluate value (not
                                   sizeof, say; the compiler does) */
} fgr_enumerator;

typedef struct fgr_named {        /* a typedef name or a struct tag */
  const char *name;
  const fgr_type *type;
  bool tag;
} fgr_named;

typedef enum fgr_item_kind {
  FGR_I_DIRECTIVE,              /* #define / #undef: carried over */
  FGR_I_PRAGMA,                 /* read by the scanner, not carried */
  FGR_I_TYPE,                   /* typedef, struct definition */
  FGR_I_FUNC,
  FGR_I_GLOBAL                  /* a declaration of one or more globals */
} fgr_item_kind;

typedef struct fgr_item {
  fgr_item_kind kind;
  int tok0, tok1;
  int func;                     /* FUNC: index in funcs */
  bool constant;                /* GLOBAL: const globals kept as code */
  bool skip;                    /* GLOBAL: only globals fieldgraph cannot
                                   hold (fgr_bad_global): not emitted */
  int spec0, spec1;             /* GLOBAL: the declaration specifiers */
  bool no_cl;                   /* TYPE: a function (pointer) typedef,
                                   which OpenCL C rejects: not emitted
                                   there (what uses it fails at its line) */
} fgr_item;

/* A global fieldgraph cannot hold (a pointer, an rs_script): the script
 * loads, and the functions that reach it are refused, naming it. */
typedef struct fgr_bad_global {
  const char *name;
  int tok;                      /* its name's token */
  const char *why;              /* "pointer global 'p' is not supported..." */
  bool script;                  /* an rs_script: fg_rs_invoke reads it in
                                   rsForEach(script, in, out, ...) */
} fgr_bad_global;

/* A pointer local given a pointer global, `T *q = p + e;`: a view of
 * the bound field as q's pointee T (ptrview.c). */
typedef struct fgr_vlocal {
  int name_tok;                 /* q in its declaration */
  int decl;                     /* the declaration's first token */
  int init, init_end;           /* p (after a cast (T *), if any), and
                                   the ';' */
  const fgr_type *type;         /* T */
  bool written;                 /* the function writes through it */
  bool null;                    /* declared T *q = NULL; (init: the NULL),
                                   given p + e later */
} fgr_vlocal;

/* A parsed script.  `live` must stay the first member: graphs and
 * programs hold the unit through it. */
typedef struct fgr_unit {
  fg__live live;                /* bytes = script values of the globals */
  fgu_arena arena;
  char *name, *file, *text;   /* text: the preprocessed script */
  size_t text_len;
  const char **files;           /* the files tokens come from; [0] file */
  int n_files;
  fgr_tok *toks;
  int n_toks;
  int *match;                   /* per token: its matching bracket, or -1 */
  char mangle[48];              /* "rs_<name>_<hash>_" */
  char hash[65];                /* of the text: names generated code */
  fg_rs_fp fp;
  int n_items, n_funcs, n_globals, n_reduces, n_macros, n_named;
  fgr_item *items;
  fgr_func *funcs;
  fgr_global *globals;
  fgr_reduce *reduces;
  fgr_macro *macros;
  fgr_named *named;
  fgr_enumerator *enums;        /* every enum's constants, in source order */
  int n_enums;
  int n_allocs;                 /* rs_allocation globals */
  fgr_bad_global *bad_globals;
  int n_bad_globals;
  fgr_vlocal *vlocals;          /* view locals (ptrview.c) */
  int n_vlocals;
  int *vlocal_of;               /* per token: the view local it names, or
                                   -1; NULL when there are none */
  int64_t block_size;           /* the globals block (>= 8) */
  unsigned char *c_values;      /* what fg_rs_get reads: the C side (the
                                   block, then const globals) */
  int n_buffered;               /* globals in the block */
  bool uses_double;
  char *warnings;               /* "file:line:col: message\n" per feature
                                   that kernels cannot use; "" if none */
  const char *member_names;     /* "\n" separated: struct members, which
                                   keep .r .g .b .a from being swizzles */
} fgr_unit;

/* Parses a script: tokens, declarations, types and layouts, initial values
 * of the globals, and the reference's rules for kernels and reductions.
 * On error returns NULL with "file:line:col: message" in err. */
fgr_unit *fgr_unit_new(const char *name, const char *file, const char *text,
                       size_t len, const fgr_pp *pp, char *err,
                       size_t errlen);

/* The file token i comes from. */
static inline const char *fgr_tok_file(const struct fgr_unit *u, int i);

/* Lookups; NULL / -1 when absent. */
const fgr_func *fgr_find_func(const fgr_unit *u, const char *name);
int fgr_find_global(const fgr_unit *u, const char *name);
const fgr_reduce *fgr_find_reduce(const fgr_unit *u, const char *name);

/* Text of token i (not terminated): pointer and length. */
static inline const char *fgr_tok_text(const fgr_unit *u, int i, int *len) {
  *len = u->toks[i].len;
  return u->text + u->toks[i].off;
}
static inline const char *fgr_tok_file(const fgr_unit *u, int i) {
  return u->files[u->toks[i].file];
}
/* Nonzero when token i is the identifier or punctuator s. */
bool fgr_tok_is(const fgr_unit *u, int i, const char *s);

/* Whether function f (transitively, through the script functions it
 * calls and the macros it uses) mentions identifier name. */
bool fgr_func_mentions(const fgr_unit *u, const fgr_func *f,
                       const char *name);
/* The same, as the token that mentions it (with prefix: an identifier
 * starting with name), or -1. */
int fgr_func_mention(const fgr_unit *u, const fgr_func *f, const char *name,
                     bool prefix);

/* The field element type and width of a NUM type; false otherwise. */
bool fgr_type_fgk(const fgr_type *t, fgk_type *out);
/* The field element type and width that carry a value of type t between
 * kernels: a NUM type's own; bool's a u8 (0 or 1); for a struct of up to
 * 32 bytes, the widest
 * elements (u64, u32, u16, u8) of which at most 4 hold its bytes.  False
 * for other types. */
bool fgr_type_carrier(const fgr_type *t, fgk_type *out);
/* Writes a readable spelling of t ("uchar4", "struct MinAndMax"). */
const char *fgr_type_str(const fgr_type *t);

/* Bytes of a partials record of a reduction: a header, then one
 * accumulator per partial, room for FGK_MAX_PARTIALS. */
int64_t fgr_record_bytes(const fgr_reduce *r);

/* clang's first error in log as "file:line:col: message" into err
 * (what: what failed, for a log without one). */
void fgr_clang_first_error(const char *log, const char *what, char *err,
                           size_t errlen);

/* The time functions of invokables on the host (time.c): their C, after
 * the host's runtime; whether name (p, len bytes) is one of them; the
 * monotonic clock rsGetDt starts from, in nanoseconds. */
extern const char fgr_time_host[];
/* rs_time_t and rs_tm, for kernels of both dialects (emit_hooks.c). */
extern const char fgr_time_types[];
bool fgr_time_has(const char *p, int len);
long long fgr_time_now_ns(void);

/* The RenderScript runtime for each dialect (compat.c), and the names
 * the C dialect reaches as fgk_rs_<name> around a script's text. */
extern const char fgr_compat_c[], fgr_compat_cl[], fgr_compat_cl_f64[];
/* rs_matrix* and rsMatrix* (matrix.c): the types and by-value helpers of
 * both dialects, then OpenCL C's macros or the C dialect's functions. */
extern const char fgr_matrix_common[], fgr_matrix_cl[], fgr_matrix_c[];
/* rs_sampler and rsSample (sample.c), after the runtime in both
 * dialects. */
extern const char fgr_sample_rt[];
/* rs_quaternion, rsQuaternion* and rsFrac (quaternion.c), after the
 * runtime in both dialects and on the host, the dialect's float math
 * (fgr_quaternion_c or _cl) before it. */
extern const char fgr_quaternion_rt[], fgr_quaternion_c[],
    fgr_quaternion_cl[];
extern const char *const fgr_c_renames[];
/* Names OpenCL C renames around a script's text (fgk_rs_<name>). */
extern const char *const fgr_cl_renames[];
/* Whether a script may call the function called name (p, len bytes) from
 * a kernel: the runtime of both dialects provides it. */
bool fgr_runtime_has(const char *p, int len);
/* Whether the runtime of invokables on the host adds the function called
 * name (p, len bytes): rsDebug, rsSendToClient, rsRand, rsMatrix*. */
bool fgr_host_runtime_has(const char *p, int len);
/* The first call in f's body of a function that the script does not
 * define and the runtime (of kernels, or with host that of invokables)
 * does not provide, or -1. */
int fgr_first_unsupported(const fgr_unit *u, const fgr_func *f, bool host);
/* Marks in seen (n_funcs) the functions with a body that roots reach
 * through calls, roots included. */
void fgr_reach(const fgr_unit *u, const fgr_func *const *roots, int n_roots,
               bool *seen);
/* The first call, in the functions that roots reach, of a function that
 * neither the script defines nor the runtime provides: its token, or -1
 * (the scanner notes one per function, fgr_func.unsupported). */
/* Whether token i is rsGetElementAt read through a cast to an Element
 * type, *(const T *)rsGetElementAt(a, x[, y[, z]]) (const optional): the
 * element read as rsGetElementAt_T reads it.  *first: the dereferencing
 * '*'; *type: T's token. */
bool fgr_untyped_get(const fgr_unit *u, int i, int *first, int *type);
/* rsGetElementAt's value given to a pointer local, as Android's scripts
 * read elements: `[const] T *p = [(T *)]rsGetElementAt(a, x[, y[, z]]);`
 * (T one identifier, or struct and its tag).  Tokens: the declaration's
 * first, T's, p's, and the cast's parentheses (-1 without one). */
typedef struct fgr_eptr {
  int decl, type, name, cast_open, cast_close;
  bool is_struct;
} fgr_eptr;
/* Whether token i is rsGetElementAt in such a declaration: *e. */
bool fgr_untyped_ptr(const fgr_unit *u, int i, fgr_eptr *e);
/* Whether token i is rsGetElementAt in (volatile int32_t *)rsGetElementAt(
 * a, x[, y[, z]]) (int, uint, int32_t or uint32_t; volatile optional):
 * the address of an element that an rsAtomic* call updates; *first the
 * cast's '(', *is_uint its signedness. */
bool fgr_atomic_get(const fgr_unit *u, int i, int *first, bool *is_uint);
/* The first token where a function roots reach writes a global that is
 * not an rs_allocation (its index into *global), or -1. */
int fgr_global_write(const fgr_unit *u, const fgr_func *const *roots,
                     int n_roots, int *global);
/* Whether token i, naming pointer global g, is read as fieldgraph reads
 * one: p[e], *(p + e) or (p + e)->m, nothing assigned to it.  *open and
 * *close: the tokens that enclose e ('[' ']' or '(' ')'); *plus the '+'
 * (-1 for p[e]); *deref the '*' of *(p + e) or the '->' (-1 for p[e]). */
bool fgr_ptr_read(const fgr_unit *u, int i, int *open, int *close,
                  int *plus, int *deref);
/* Whether token i, naming pointer global g, is written as fieldgraph
 * writes one in a kernel: p[e] = v, p[e] += v, -= v, *= v, p[e]++,
 * p[e]--, ++p[e] or --p[e] (an element of the field bound to it, in
 * memory order).  *close: the ']'. */
bool fgr_ptr_write(const fgr_unit *u, int i, int *close);
/* Whether token t is an assignment operator (=, +=, ..., ++, --). */
bool fgr_assign_op(const fgr_unit *u, int t);
/* Pointer globals beyond p[e] and views of their fields (ptrview.c). */
/* Whether token t ends an operand (a '*' after it is then a product): an
 * identifier that is no statement keyword (return...), a literal, ')' or
 * ']'. */
bool fgr_operand_end(const fgr_unit *u, int t);
/* Whether the member accesses from token t (.m, ->m, [e], any number)
 * end in an assignment operator: a write, no read. */
bool fgr_member_assigned(const fgr_unit *u, int t);
/* Whether token i, naming a pointer, is *p or p->m (*deref: the '*' or
 * the '->'), read, or *p = v, +=, -=, *= (*write). */
bool fgr_ptr_deref(const fgr_unit *u, int i, int *deref, bool *write);
/* The pointee type of the pointer token i names in function f: a pointer
 * global's (no parameter of f hiding it) or a view parameter's; else
 * NULL. */
const fgr_type *fgr_ptr_at(const fgr_unit *u, const fgr_func *f, int i);
/* Whether token i starts an argument of a call of a script function: the
 * function name's token (-1 if not), the argument's index in *k, the
 * token after the argument (the ',' or ')') in *end. */
int fgr_call_arg(const fgr_unit *u, int i, int *k, int *end);
/* Whether token i (a pointer in function f) starts argument k of a call
 * of a script function as p, p + e or p - e: the function (the first of
 * that name), with *k and *end as fgr_call_arg's; else NULL. */
const fgr_func *fgr_view_arg(const fgr_unit *u, const fgr_func *f, int i,
                             int *k, int *end);
/* The script function whose argument token i starts (with *k and *end
 * as fgr_call_arg's, *k one of its parameters), or NULL. */
const fgr_func *fgr_arg_callee(const fgr_unit *u, int i, int *k, int *end);
/* Whether argument [i, end) in function f is the function's own memory
 * (no pointer, no script global: a local array, &local), which a view
 * parameter is given as fgk_rs_pview(arg). */
bool fgr_private_arg(const fgr_unit *u, const fgr_func *f, int i, int end);
/* Whether token i, a pointer in function f, writes the field there: p[e]
 * = v and the updates, *p = v, or passing it to a view parameter that
 * the callee writes through. */
bool fgr_ptr_writes(const fgr_unit *u, const fgr_func *f, int i);
/* A write of a member through a struct pointer (a pointer global, view
 * parameter or view local of struct pointee): p->m, p[e].m or
 * (p + e)->m, (p - e)->m, with m a member (.n of a struct member too) of
 * number, vector or bool type, followed by = v, or by += v, -= v, *= v,
 * ++ or -- for a number (fgr_ptr_mwrite). */
typedef struct fgr_mwrite {
  int open, close;              /* '[' ']' or '(' ')' around p + e; -1 */
  int plus;                     /* the '+' or '-' of (p + e), else -1 */
  int sel;                      /* the '->' or '.' before the members */
  int m1;                       /* the last member's token */
  int op;                       /* the operator after it */
  const fgr_type *mt;           /* the last member's type */
} fgr_mwrite;
/* Whether token i, a pointer of pointee t, starts a member write. */
bool fgr_ptr_mwrite(const fgr_unit *u, int i, const fgr_type *t,
                    fgr_mwrite *w);
/* Whether token i starts a statement of f's own body (not nested) that
 * gives pointer global P another's memory: P = Q;, P = (T *)Q; (the
 * same bytes read as T) or P = NULL; (0): the ';' after it, P's global
 * index in *dst, Q's in *src (-1 for NULL); else -1.  Invokables on the
 * host run these (rs-host/host.c: P then follows Q's binding). */
int fgr_ptr_alias(const fgr_unit *u, const fgr_func *f, int i, int *dst,
                  int *src);
/* The first use of a pointer global by invokable f or what it calls that
 * the host cannot run (anything but f's own fgr_ptr_alias statements
 * between elements of one size): its token, and in *why the global's
 * host_why or buf (n_buf bytes) with a message; -1 when none. */
int fgr_ptr_host_use(const fgr_unit *u, const fgr_func *f,
                     const char **why, char *buf, size_t n_buf);
/* Whether token i starts a comparison of two views (view locals or
 * parameters) of one field, q != r, q == r, q < r..., as a whole operand:
 * the second view's token; else -1. */
int fgr_ptr_compare(const fgr_unit *u, const fgr_func *f, int i);
/* Whether token i names a view parameter or a view local (a value of
 * type fgk_rs_view in the kernel) rather than a pointer global. */
bool fgr_ptr_is_view(const fgr_unit *u, const fgr_func *f, int i);
/* The view local whose initializer starts at token i, or NULL. */
const fgr_vlocal *fgr_vlocal_init(const fgr_unit *u, int i);
/* Whether token i (in function f) moves a view local as a statement or
 * for-clause: q = p + e, q += e, q -= e, q++, q--, ++q, --q; its index,
 * the clause's end (';', ',' or ')') in *end; else -1. */
int fgr_vlocal_move(const fgr_unit *u, const fgr_func *f, int i, int *end);
/* The view local that token i gives a value: its initializer's or an
 * assignment q = p + e's first token; else NULL. */
const fgr_vlocal *fgr_vlocal_source(const fgr_unit *u, const fgr_func *f,
                                    int i);
/* The first use by roots (n_roots, NULL entries skipped) or what they
 * call of a pointer global or view parameter that the forms above do not
 * take, or of a view parameter given other memory: its token, and why
 * (a message naming it) in why; -1 when none. */
int fgr_bad_ptr_use(const fgr_unit *u, const fgr_func *const *roots,
                    int n_roots, char *why, size_t n_why);
/* The first mention of a global fieldgraph cannot hold by functions
 * roots (n_roots, NULL entries skipped) or what they call: its token, and
 * the global in *bad; -1 when none. */
int fgr_bad_global_use(const fgr_unit *u, const fgr_func *const *roots,
                       int n_roots, const fgr_bad_global **bad);
int fgr_unsupported_call(const fgr_unit *u, const fgr_func *const *roots,
                         int n_roots);


#endif
