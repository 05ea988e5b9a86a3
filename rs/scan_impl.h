/* rs/scan_impl.h - what the declaration scanner (scan.c), its types and
 * declarators (decl.c) and its constant evaluator (const.c) share: the
 * scanner's state, its error exit (a longjmp to fgr_unit_new with
 * "file:line:col: message"), token, allocation and type helpers, and the
 * entry points of decl.c and the evaluator.  Internal to those files. */
#ifndef FG_RS_SCAN_IMPL_H
#define FG_RS_SCAN_IMPL_H

#include "rs_impl.h"

#include <setjmp.h>
#include <string.h>

typedef struct fgr_scan {
  fgr_unit *u;
  int i;                        /* cursor */
  char *err;
  size_t errlen;
  jmp_buf fail;
  int cap_items, cap_funcs, cap_globals, cap_reduces, cap_macros, cap_named;
  int cap_bad_globals, cap_enums;
  fgr_type *builtin[FG_ELEM_COUNT_][5];
  fgr_type *t_void, *t_bool, *t_alloc, *t_context;
  fgu_buf members;
  fgu_buf notes;                /* warnings found while reading (unknown
                                   pragmas), before note_unsupported's */
  struct cexpr *evals;          /* the constant evaluations under way,
                                   innermost first: fgr_scan_fail frees
                                   their token arrays (const.c) */
  int depth;                    /* nesting of the evaluations under way */
  bool soft;                    /* the failure under way is only a
                                   construct fieldgraph does not evaluate
                                   (fgr_try_init_global tolerates it) */
  struct fgr_memo *memo;        /* per global: its constant value once
                                   evaluated (const.c), malloc'd */
  int n_memo;
} fgr_scan;

/* A constant's value: a double (f), or an integer of C's type int
 * (neither wide nor uns), unsigned int (uns), long (wide) or unsigned
 * long (wide, uns), whose value i holds (an unsigned int's zero-extended,
 * an unsigned long's bits). */
typedef struct fgr_cval {
  bool f, uns, wide;
  double d;
  int64_t i;
} fgr_cval;

/* Token i (the last one, EOF, past the end). */
const fgr_tok *fgr_scan_tok(fgr_scan *s, int i);
/* Token i's text, NUL-terminated, in the unit's arena. */
char *fgr_scan_tok_str(fgr_scan *s, int i);
/* Token i quoted for messages ("'foo'", "end of line"). */
const char *fgr_scan_quote(fgr_scan *s, int i);
/* Records "file:line:col: message" at token tok and leaves the scan. */
_Noreturn void fgr_scan_fail(fgr_scan *s, int tok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The NUM type of element e and width w (one object per pair). */
fgr_type *fgr_scan_num_type(fgr_scan *s, fg_elem e, int w);
/* The built-in type identifier token i names (uchar4, uint32_t,
 * rs_allocation, ...), or NULL. */
const fgr_type *fgr_scan_builtin(fgr_scan *s, int i);
/* The latest typedef name (tag false) or struct tag (true) called name. */
const fgr_named *fgr_scan_find_named(const fgr_unit *u, const char *name,
                                     bool tag);

/* Whether identifier token i names an enumeration constant declared
 * before it: its value into *value. */
bool fgr_scan_enum_value(fgr_scan *s, int i, int64_t *value);


/* Token i is the identifier or punctuator p, else the scan fails. */
static inline void fgr_scan_expect(fgr_scan *s, const char *p) {
  if (!fgr_tok_is(s->u, s->i, p))
    fgr_scan_fail(s, s->i, "expected '%s', got %s", p,
                  fgr_scan_quote(s, s->i));
  s->i++;
}

/* n bytes in the unit's arena (zeroed), or the scan fails. */
static inline void *fgr_scan_zalloc(fgr_scan *s, size_t n) {
  void *p = fgu_arena_alloc(&s->u->arena, n);
  if (!p)
    fgr_scan_fail(s, s->i, "out of memory");
  return p;
}

/* arr (n elements of size bytes, room for *cap) with room for one more,
 * in the arena. */
static inline void *fgr_scan_grow(fgr_scan *s, void *arr, int *cap, int n,
                                  size_t size) {
  if (n < *cap)
    return arr;
  int nc = *cap ? *cap * 2 : 16;
  void *p = fgu_arena_alloc(&s->u->arena, (size_t)nc * size);
  if (!p)
    fgr_scan_fail(s, s->i, "out of memory");
  if (n)
    memcpy(p, arr, (size_t)n * size);
  *cap = nc;
  return p;
}

/* A new element at the end of the unit's array arr (count u->n, room
 * s->cap). */
#define FGR_SCAN_PUSH(s, arr, n, cap)                                        \
  ((arr) = fgr_scan_grow((s), (arr), &(s)->cap, (s)->u->n, sizeof *(arr)),   \
   &(arr)[(s)->u->n++])

/* Declaration specifiers (decl.c): the type, storage and qualifiers,
 * tokens [tok0, tok1). */
typedef struct fgr_spec {
  const fgr_type *type;
  bool is_static, is_const, is_kernel, is_extern, is_typedef;
  bool is_overloadable;         /* __attribute__((overloadable)) */
  bool defines;                 /* it defines a struct or an enum */
  int tok0, tok1;
} fgr_spec;

/* What attributes say about a declaration: the kernel attribute, clang's
 * overloadable, and the layout ones (packed; aligned(n), 0 when
 * absent). */
typedef struct fgr_attrs {
  bool kernel, packed, overloadable;
  int64_t aligned;
} fgr_attrs;

/* One declarator (decl.c): its name, pointer levels and type. */
typedef struct fgr_declarator {
  const char *name;
  int name_tok;
  int ptr;
  bool ptr_const;
  const fgr_type *type;         /* with array dimensions applied */
  bool is_func;
  int lparen;
  int first;                    /* its first token */
  int ptr_to_array;             /* (*name)[n]: the '(' (ptr counts its '*'),
                                   else -1 */
  fgr_attrs at;                 /* the attributes after its name */
} fgr_declarator;

/* The declaration specifiers at the cursor (storage classes only where
 * allow_storage); the scan fails without a type. */
fgr_spec fgr_scan_specifiers(fgr_scan *s, bool allow_storage);
/* The declarator at the cursor of a declaration of type base (its name
 * optional in prototypes); a function's stops at its '('. */
fgr_declarator fgr_scan_declarator(fgr_scan *s, const fgr_type *base,
                                   bool name_optional);
/* Reads the __attribute__((...)) lists at the cursor into *a. */
void fgr_scan_attributes(fgr_scan *s, fgr_attrs *a);

/* The constant expression in tokens [a, b) (object-like macros expanded,
 * casts to scalar types, C's operators); fails the scan otherwise, naming
 * what (an "array size"). */
fgr_cval fgr_const_eval(fgr_scan *s, int a, int b, const char *what);
/* Frees what the evaluations under way hold (s->evals): called by
 * fgr_scan_fail before it leaves them. */
void fgr_const_abandon(fgr_scan *s);
/* v converted to an integer (a double out of long's range saturates, NaN
 * gives 0: the callers' range checks then refuse it). */
fgr_cval fgr_cval_to_int(fgr_cval v);
/* Evaluates global g's initializer into p (its C layout); fails the scan
 * when it cannot.  fgr_try_init_global: failing sets no error, and
 * g->has_value says whether p holds the value. */
void fgr_init_global(fgr_scan *s, const fgr_global *g, unsigned char *p);
void fgr_try_init_global(fgr_scan *s, fgr_global *g, unsigned char *p);

/* Marks the view parameters (fgr_param.view, .view_written) and view
 * locals (fgr_unit.vlocals) of every function, ptrview.c; the scanner
 * calls it once the functions are read. */
void fgr_mark_views(fgr_scan *s);

#endif
