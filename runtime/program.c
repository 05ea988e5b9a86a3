/* runtime/program.c - the compiled program object: freeing it (after its
 * runs have ended, run.c), and what it tells about itself (inputs,
 * outputs, kernels, fusion report, and the view viz/ draws).  fg_compile,
 * which makes it, is in compile.c; its runs are in run.c, which calls
 * nothing here. */
#include "program_impl.h"
#include "program_view.h"

#include <stdlib.h>
#include <string.h>

static void variant_free(fg_program *p, fg__variant *v) {
  fg__backend *be = p->ctx->be;
  for (int i = 0; v->k && i < v->n_k; i++) {
    fg__be_kernel_free(be, v->k[i].bin);
    fg__host_free(v->k[i].host);
    free(v->k[i].name);
    free(v->k[i].source);
    free(v->k[i].field);
    free(v->k[i].zero);
    free(v->k[i].band_private);
    free(v->k[i].copy_from);
    free(v->k[i].dims);
  }
  for (int i = 0; v->reason && i < p->n_fields; i++)
    free(v->reason[i]);
  fg__variant_free_runtime(p, v);
  free(v->kernel_of_node);
  free(v->k);
  free(v->materialized);
  free(v->reason);
  free(v->report);
}

void fg_program_free(fg_program *p) {
  if (!p)
    return;
  fg__backend *be = p->ctx->be;
  fg__program_drain(p);
  p->ctx->live_programs--;
  variant_free(p, &p->main);
  variant_free(p, &p->check);
  for (int i = 0; p->f && i < p->n_fields; i++) {
    fg__be_buffer_free(be, p->f[i].const_buf);
    free(p->f[i].host_data);
    fg__live_unref(p->f[i].live);
    fg__live_unref(p->f[i].sink);
    free(p->f[i].name);
    free(p->f[i].label);
  }
  for (int i = 0; p->in_name && i < p->n_in; i++)
    free(p->in_name[i]);
  for (int i = 0; p->out_name && i < p->n_out; i++)
    free(p->out_name[i]);
  free(p->in_name);
  free(p->out_name);
  free(p->in_field);
  free(p->out_field);
  free(p->f);
  fg_context *ctx = p->ctx;
  free(p);
  fg__ctx_release(ctx);
}

int fg_program_input_count(const fg_program *p) { return p ? p->n_in : 0; }
int fg_program_output_count(const fg_program *p) { return p ? p->n_out : 0; }
int fg_program_kernel_count(const fg_program *p) { return p ? p->main.n_k : 0; }

const char *fg_program_input_name(const fg_program *p, int i) {
  return p && i >= 0 && i < p->n_in ? p->in_name[i] : NULL;
}
const char *fg_program_output_name(const fg_program *p, int i) {
  return p && i >= 0 && i < p->n_out ? p->out_name[i] : NULL;
}

fg_type fg_program_input_type(const fg_program *p, int i) {
  if (p && i >= 0 && i < p->n_in)
    return p->f[p->in_field[i]].type;
  return fg_field_type(NULL);
}
fg_type fg_program_output_type(const fg_program *p, int i) {
  if (p && i >= 0 && i < p->n_out)
    return p->f[p->out_field[i]].type;
  return fg_field_type(NULL);
}

int fg_program_input_index(const fg_program *p, const char *name) {
  for (int i = 0; p && name && i < p->n_in; i++)
    if (!strcmp(p->in_name[i], name))
      return i;
  return -1;
}
int fg_program_output_index(const fg_program *p, const char *name) {
  for (int i = 0; p && name && i < p->n_out; i++)
    if (!strcmp(p->out_name[i], name))
      return i;
  return -1;
}

const char *fg_program_kernel_source(const fg_program *p, int i) {
  return p && i >= 0 && i < p->main.n_k ? p->main.k[i].source : NULL;
}
const char *fg_program_kernel_name(const fg_program *p, int i) {
  return p && i >= 0 && i < p->main.n_k ? p->main.k[i].name : NULL;
}

fg_status fg_program_kernel_time(const fg_program *p, int i,
                                 double *seconds, long long *launches) {
  if (!p || i < 0 || i >= p->main.n_k)
    return FG_EINVAL;
  if (seconds)
    *seconds = p->main.k[i].prof_seconds;
  if (launches)
    *launches = p->main.k[i].prof_launches;
  return FG_OK;
}

fg_precision fg_program_kernel_precision(const fg_program *p, int i) {
  return p && i >= 0 && i < p->main.n_k ? p->main.k[i].precision
                                        : FG_PRECISION_FULL;
}

fg_status fg_program_fusion_stats(const fg_program *p, fg_fusion_stats *s) {
  if (!p || !s)
    return FG_EINVAL;
  *s = p->main.stats;
  return FG_OK;
}

const char *fg_program_field_reason(const fg_program *p, const char *name) {
  for (int i = 0; p && name && i < p->n_fields; i++)
    if (p->main.materialized[i] && !strcmp(p->f[i].name, name))
      return p->main.reason[i] ? p->main.reason[i] : "";
  return NULL;
}

const char *fg_program_fusion_report(const fg_program *p) {
  return p && p->main.report ? p->main.report : "";
}

/* ---- what viz/ reads of a program (runtime/program_view.h) -------------- */

bool fg__program_matches(const fg_program *p, const fg_graph *g) {
  if (!p || !g || p->n_nodes != g->nodes.n || p->n_fields != g->fields.n)
    return false;
  for (int i = 0; i < p->n_fields; i++) {
    const fg_field *f = g->fields.item[i];
    if (strcmp(p->f[i].name, f->name) || p->f[i].type.elem != f->type.elem ||
        !fg_shape_equal(p->f[i].type.field, f->type.field) ||
        !fg_shape_equal(p->f[i].type.tensor, f->type.tensor))
      return false;
  }
  return true;
}

int fg__program_node_kernel(const fg_program *p, int node) {
  return node >= 0 && node < p->n_nodes ? p->main.kernel_of_node[node] : -1;
}

int fg__program_kernel_reductions(const fg_program *p, int k) {
  return k >= 0 && k < p->main.n_k ? p->main.k[k].n_kred : 0;
}

const char *fg__program_field_reason(const fg_program *p, int field) {
  if (field < 0 || field >= p->n_fields || !p->main.materialized[field])
    return NULL;
  return p->main.reason[field] ? p->main.reason[field] : "";
}
