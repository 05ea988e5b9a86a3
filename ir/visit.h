/* ir/visit.h - the one read-only walk over a kernel's IR, for every pass
 * that looks at a kernel without rewriting it (fusion's edge classes, the
 * device needs of compile, emission's analyses), as Halide's IRVisitor
 * serves its passes.  Internal. */
#ifndef FG_IR_VISIT_H
#define FG_IR_VISIT_H

#include "ir.h"

/* What a walk calls: expr on every expression (before its operands, the
 * coordinates and element index of reads and writes included), stmt on
 * every statement (before its expressions and nested blocks); either may
 * be NULL.  arg is passed to both. */
typedef struct fgk_visitor {
  void (*expr)(const fg_expr *x, void *arg);
  void (*stmt)(const fgk_stmt *s, void *arg);
  void *arg;
} fgk_visitor;

/* Walks x and its operands (nothing when x is NULL). */
void fgk_visit_expr(const fg_expr *x, const fgk_visitor *v);

/* Walks every statement of b, nested blocks included, in program order. */
void fgk_visit_block(const fgk_block *b, const fgk_visitor *v);

#endif
