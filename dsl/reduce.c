/* dsl/reduce.c - the built-in reductions, written in the kernel IR like
 * every built-in operator: one thread per point of the input
 * (_globalThreads), each "writing" its tensor to the 0-D output, which the
 * kernel marks as accumulating (sum, min, max, product).  So a reduction
 * fuses like any operator: its pointwise producers become its body. */
#include "dsl_impl.h"

#include <stdio.h>

fg_field *fg_reduce(fg_graph *g, const char *name, fg_reduce_op op,
                    fg_field *field) {
  if (!g || g->status != FG_OK)
    return NULL;
  if (!field)       /* a clean graph: no earlier call explains the NULL */
    return fg__fail(g, FG_EINVAL, "fg_reduce '%s': field is NULL",
                    name ? name : "(null)");
  if ((unsigned)op > FG_REDUCE_PROD)
    return fg__fail(g, FG_EINVAL, "fg_reduce '%s': operation %d is not "
                    "FG_REDUCE_SUM, _MIN, _MAX or _PROD",
                    name ? name : "(null)", (int)op);
  fg_type t = field->type;
  if (fg_type_is_big(t)) {
    char ts[FG_TYPE_STR_MAX];
    return fg__fail(g, FG_ETYPE, "fg_reduce '%s': field '%s' is %s; "
                    "reductions take small tensors (at most %d elements)",
                    name ? name : "(null)", field->name,
                    fg_type_str(t, ts, sizeof ts), FG_MAX_SMALL_TENSOR);
  }
  fg_type out = t;
  out.field = fg_shape0();
  fg_op *o = fg_op_begin(g, name, 1, &out);
  fg_global_threads(o, t.field);
  fg_write_tensor(o, 0, fg_read_tensor(o, field));
  if (!fgk_op_set_reduction(o, fgk_reduce_builtin(op, 0)))
    return NULL;
  return fg_op_end(o);
}
