/* rs/scan_impl.h - what the declaration scanner (scan.c) and its
 * constant evaluator (const.c) share: the scanner's state, its error
 * exit (a longjmp to fgr_unit_new with "file:line:col: message"), token
 * and type helpers, and the evaluator's entry points.  Internal to those
 * two files. */
#ifndef FG_RS_SCAN_IMPL_H
#define FG_RS_SCAN_IMPL_H

#include "rs_impl.h"

#include <setjmp.h>

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
  struct cexpr *evals;          /* the constant evaluations under way,
                                   innermost first: fgr_scan_fail frees
                                   their token arrays (const.c) */
} fgr_scan;

typedef struct fgr_cval {
  bool f, uns;
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

/* The constant expression in tokens [a, b) (object-like macros expanded,
 * casts to scalar types, C's operators); fails the scan otherwise, naming
 * what (an "array size"). */
fgr_cval fgr_const_eval(fgr_scan *s, int a, int b, const char *what);
/* Frees what the evaluations under way hold (s->evals): called by
 * fgr_scan_fail before it leaves them. */
void fgr_const_abandon(fgr_scan *s);
/* v converted to an integer. */
fgr_cval fgr_cval_to_int(fgr_cval v);
/* Evaluates global g's initializer into p (its C layout); fails the scan
 * when it cannot.  fgr_try_init_global: failing sets no error, and
 * g->has_value says whether p holds the value. */
void fgr_init_global(fgr_scan *s, const fgr_global *g, unsigned char *p);
void fgr_try_init_global(fgr_scan *s, fgr_global *g, unsigned char *p);

#endif
