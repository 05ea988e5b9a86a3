/* runtime/host_eval.h - evaluating one-point kernels on the host: a kernel
 * whose threads are one point and whose IR is plain scalar arithmetic
 * (constants, variables, reads of its 0-D inputs, + - * / %, comparisons,
 * logical and bitwise operators, negation, conversions, select) is
 * translated at compile time into a small tree the host interprets with
 * the semantics the C dialect writes (emit/): the kernels' types and
 * promotions, integer x / 0 and x % 0 giving 0, MIN / -1 wrapping, float
 * operations in float and never contracted.  The run engine (run.c) calls
 * it for kernels whose inputs the host already holds (reductions' combined
 * results, other host kernels' outputs, constants, graph inputs), saving
 * a launch and two transfers per kernel.  Anything else stays on the
 * device.  Internal; prefix fg__host_. */
#ifndef FG_RUNTIME_HOST_EVAL_H
#define FG_RUNTIME_HOST_EVAL_H

#include "ir/ir.h"

typedef struct fg__hprog fg__hprog;

/* What the target computes exactly as the host does. */
typedef struct fg__host_target {
  bool f32_div_rounded;  /* float x / y correctly rounded (else a kernel
                            dividing floats stays on the device) */
} fg__host_target;

/* Translates kernel k into a host program, or returns NULL when k is not
 * one point of plain scalar arithmetic (or memory ran out): then it runs
 * on the device.  The result owns what it needs; k may be freed. */
fg__hprog *fg__host_compile(const fgk_kernel *k, const fg__host_target *t);

/* Runs hp: in[i] holds input i's one tensor (k->in_type[i]), out[o]
 * receives output o's.  Any thread; hp is only read. */
void fg__host_run(const fg__hprog *hp, const void *const *in,
                  void *const *out);

void fg__host_free(fg__hprog *hp);

#endif
