/* ops/table_call.c - calling a row of the operator table from generic
 * arguments (fg_ops_call): the checks every front end would otherwise
 * repeat (fields present and of the graph, lists present), then the row's
 * adapter or fg_reduce. */
#include "ops_impl.h"
#include "fieldgraph/op_table.h"

#include <string.h>

int fg_ops_param_count(const fg_op_info *op) {
  return op && op->sig ? (int)strlen(op->sig) : 0;
}

/* The name of parameter i of op's params ("image" of "image,radius=1")
 * into buf. */
static const char *param_name(const fg_op_info *op, int i, char *buf,
                              size_t size) {
  const char *p = op->params;
  for (int k = 0; k < i && p; k++) {
    p = strchr(p, ',');
    p = p ? p + 1 : NULL;
  }
  size_t len = p ? strcspn(p, "=,") : 0;
  if (len >= size)
    len = size - 1;
  memcpy(buf, p ? p : "", len);
  buf[len] = 0;
  return buf;
}

/* Whether parameter i of op may be left out (its default is "none"). */
static bool optional(const fg_op_info *op, int i) {
  const char *p = op->params;
  for (int k = 0; k < i && p; k++) {
    p = strchr(p, ',');
    p = p ? p + 1 : NULL;
  }
  if (!p)
    return false;
  size_t len = strcspn(p, ","), name = strcspn(p, "=,");
  return len > name && len - name - 1 == 4 && !strncmp(p + name + 1, "none", 4);
}

fg_field *fg_ops_call(fg_graph *g, const fg_op_info *op, const fg_op_args *a) {
  if (!g || fg_graph_status(g) != FG_OK)
    return NULL;
  if (!op || !a)
    return fgo_fail(g, FG_EINVAL, "fg_ops_call", "%s is NULL",
                    !op ? "the operator" : "the arguments");
  if (op->kind != FG_OPK_GRAPH && op->kind != FG_OPK_REDUCE)
    return fgo_fail(g, FG_EINVAL, op->name, "an expression row (%s): apply "
                    "it inside an operator of your own", op->c_call);
  int n = fg_ops_param_count(op);
  char pname[64];
  for (int i = 0; i < n; i++) {
    if (op->sig[i] == 'F') {
      if (!a->field[i] && !optional(op, i))
        return fgo_fail(g, FG_EINVAL, op->name, "argument '%s' (field) is "
                        "missing", param_name(op, i, pname, sizeof pname));
      if (a->field[i] && fg_field_graph(a->field[i]) != g)
        return fgo_fail(g, FG_EINVAL, op->name, "field '%s' for '%s' "
                        "belongs to another graph",
                        fg_field_label(a->field[i]),
                        param_name(op, i, pname, sizeof pname));
    } else if (op->sig[i] == 'w' && (!a->list[i] || (a->list[i]->n > 0 &&
                                                     !a->list[i]->v))) {
      return fgo_fail(g, FG_EINVAL, op->name, "argument '%s' (a list of "
                      "numbers) is missing",
                      param_name(op, i, pname, sizeof pname));
    } else if (op->sig[i] == 's' && !a->str[i]) {
      return fgo_fail(g, FG_EINVAL, op->name, "argument '%s' (a string) is "
                      "missing", param_name(op, i, pname, sizeof pname));
    }
  }
  if (op->kind == FG_OPK_REDUCE)
    return fg_reduce(g, op->name, op->reduce_op, a->field[0]);
  return op->build(g, a);
}
