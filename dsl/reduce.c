/* dsl/reduce.c - the built-in reductions, written in the kernel IR like
 * every built-in operator: one thread per point of the input
 * (_globalThreads), each "writing" its tensor to the 0-D output, which the
 * kernel marks as accumulating (sum, min, max, product).  So a reduction
 * fuses like any operator: its pointwise producers become its body.
 * fg_reduce_index adds a second, i64 output that the kernel fills with
 * the index of the result's first point (fgk_reduction.loc). */
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

fg_field *fg_reduce_index(fg_graph *g, const char *name, fg_reduce_op op,
                          fg_field *field, fg_field **index) {
  if (index)
    *index = NULL;
  if (!g || g->status != FG_OK)
    return NULL;
  const char *nm = name ? name : "(null)";
  if (!field || !index)
    return fg__fail(g, FG_EINVAL, "fg_reduce_index '%s': %s is NULL", nm,
                    field ? "index" : "field");
  if (op != FG_REDUCE_MIN && op != FG_REDUCE_MAX)
    return fg__fail(g, FG_EINVAL, "fg_reduce_index '%s': operation %d is "
                    "not FG_REDUCE_MIN or FG_REDUCE_MAX", nm, (int)op);
  fg_type t = field->type;
  if (fg_type_tensor_elements(t) != 1 || t.elem == FG_BOOL) {
    char ts[FG_TYPE_STR_MAX];
    return fg__fail(g, FG_ETYPE, "fg_reduce_index '%s': field '%s' is %s; "
                    "expected a scalar field of numbers", nm, field->name,
                    fg_type_str(t, ts, sizeof ts));
  }
  fg_type out[2] = {t, fg_type_scalar(FG_I64, fg_shape0())};
  out[0].field = fg_shape0();
  fg_op *o = fg_op_begin(g, name, 2, out);
  fg_global_threads(o, t.field);
  fg_write_tensor(o, 0, fg_read_tensor(o, field));
  if (!fgk_op_set_reduction(o, fgk_reduce_builtin_loc(op, 0, 1)))
    return NULL;
  fg_field *v = fg_op_end(o);
  if (v)
    *index = fg_op_output(o, 1);
  return v;
}
