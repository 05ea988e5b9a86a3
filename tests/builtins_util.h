/* tests/builtins_util.h - what the suites of built-in function families
 * (tests/builtins_*.c, run as one program by tests/check_builtins.c)
 * share: graphs of one operator with many outputs, integer element access
 * through 128-bit arithmetic, a repeatable random sequence, floating-point
 * comparisons in ulps, and the check of expressions' result types. */
#ifndef FG_TESTS_BUILTINS_UTIL_H
#define FG_TESTS_BUILTINS_UTIL_H

#include "testutil.h"

#include <stdbool.h>
#include <stdint.h>

typedef __int128 i128;
typedef unsigned __int128 u128;

/* ---- building and running a graph --------------------------------------- */

enum { MAX_IO = 160 };

/* A graph with its input data and output buffers in declaration order. */
typedef struct tb {
  fg_graph *g;
  int n_in, n_out;
  const void *in[MAX_IO];
  void *out[MAX_IO];
} tb;

/* An output's element type and width. */
typedef struct ot {
  fg_elem e;
  int w;
} ot;

/* n tensors of (e, w): a scalar or vector field of one axis. */
fg_type vtype(fg_elem e, int w, int64_t n);
tb *tb_new(const char *name);
/* A graph input of n tensors of (e, w) holding data. */
fg_field *tb_input(tb *t, fg_elem e, int w, int64_t n, const void *data);
/* An operator over n threads with k outputs of the types o. */
fg_op *tb_begin(tb *t, const char *name, int64_t n, int k, const ot *o);
/* Closes op and makes its k outputs graph outputs with buffers; returns
 * the index of the first in t->out. */
int tb_end(tb *t, fg_op *op, int64_t n, int k, const ot *o);
/* Compiles and runs t's graph in a fresh context. */
void tb_run(tb *t);
void tb_free(tb *t);

/* ---- element access ----------------------------------------------------- */

int bits(fg_elem e);
bool is_signed(fg_elem e);
fg_elem unsigned_of(fg_elem e);
/* Least and greatest value of integer type e. */
i128 tmin(fg_elem e);
i128 tmax(fg_elem e);
/* v reduced modulo 2^bits into e's range. */
i128 wrap(i128 v, fg_elem e);
/* v clamped to e's range. */
i128 sat(i128 v, fg_elem e);
/* Element i of integer array p of type e, and its store (wrapped). */
i128 get_i(const void *p, fg_elem e, size_t i);
void set_i(void *p, fg_elem e, size_t i, i128 v);
/* Decimal text of v (for messages), in buf (48 bytes). */
const char *i128s(i128 v, char *buf);

/* The suites' repeatable random sequence, and uniform in [lo, hi). */
uint64_t rnd(void);
double rndf(double lo, double hi);

/* ---- floating-point comparisons ----------------------------------------- */

#define PI_L 3.141592653589793238462643383279502884L

/* The spacing of floats (double when dbl) at |v|. */
double ulp_at(double v, bool dbl);
/* got within ulps of the reference want (float or double results), or
 * both NaN, or equal infinities; abs is an absolute allowance for the
 * reference's own error near zeros. */
bool close_to(double got, long double want, double ulps, double abs,
              bool dbl);
/* Bitwise equality of floats or doubles, any NaN matching any NaN. */
bool same_f(double got, double want);

/* ---- result types ------------------------------------------------------- */

/* An expression and the type it must have. */
typedef struct tycase {
  fg_expr *x;
  fg_elem e;
  int w;
} tycase;

/* Asserts that g has no error and that each of the n cases has its type;
 * messages name what. */
void check_types(fg_graph *g, const tycase *c, int n, const char *what);

/* ---- the families (each file adds its tests to tc) ---------------------- */

void builtins_integer_tests(TCase *tc);
void builtins_math_tests(TCase *tc);
void builtins_geometric_tests(TCase *tc);
void builtins_common_tests(TCase *tc);
void builtins_relational_tests(TCase *tc);
void builtins_vector_tests(TCase *tc);
void builtins_conversion_tests(TCase *tc);
void builtins_types_tests(TCase *tc);

#endif
