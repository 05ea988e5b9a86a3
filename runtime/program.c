/* runtime/program.c - compiling a graph into a program, and what a
 * program tells about itself (runs are in run.c).  Compiling finds the live operators, asks the fusion
 * pass (fuse/) for kernel groups and their merged IR, emits and builds
 * each kernel, and uploads constants; the program copies everything it
 * needs out of the graph, so the graph may be freed once compiled.  In
 * check mode a second, unfused variant is built and every run compares
 * the two. */
#include "program_impl.h"
#include "fuse/fuse.h"
#include "program_view.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void dims_of(fg_shape s, int64_t *d) {
  d[0] = s.ndim == 3 ? s.dim[0] : 1;
  d[1] = s.ndim >= 2 ? s.dim[s.ndim - 2] : 1;
  d[2] = s.ndim >= 1 ? s.dim[s.ndim - 1] : 1;
}

static void variant_free(fg_program *p, variant *v) {
  fg__backend *be = p->ctx->be;
  for (int i = 0; v->k && i < v->n_k; i++) {
    be->i->kernel_free(be, v->k[i].bin);
    free(v->k[i].name);
    free(v->k[i].source);
    free(v->k[i].field);
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
  variant_free(p, &p->main);
  variant_free(p, &p->check);
  for (int i = 0; p->f && i < p->n_fields; i++) {
    if (p->f[i].const_buf)
      be->i->buffer_free(be, p->f[i].const_buf);
    fg__live_unref(p->f[i].live);
    free(p->f[i].name);
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
  free(p);
}

/* Writes a kernel's source to $FG_DUMP_KERNELS/<index>-<name>.<ext>. */
static void dump_kernel(const char *dir, int index, const pkernel *pk,
                        fgk_dialect d) {
  char ident[128], path[4096];
  fgk_identifier(pk->name, ident, sizeof ident);
  mkdir(dir, 0755);
  snprintf(path, sizeof path, "%s/%02d-%s.%s", dir, index, ident,
           d == FGK_DIALECT_CL ? "cl" : "c");
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(pk->source, f);
    fclose(f);
  }
}

/* Emits and builds plan kernel fk into pk. */
static fg_status build_kernel(fg_program *p, const fgf_kernel *fk, int index,
                              pkernel *pk, const fg_compile_options *opt) {
  fg_context *ctx = p->ctx;
  fg__backend *be = ctx->be;
  const fgk_kernel *k = fk->k;
  char ident[160], entry[200];
  fgk_identifier(fk->name, ident, sizeof ident);
  snprintf(entry, sizeof entry, "fg_kernel_%.48s_%d", ident, index);
  pk->name = strdup(fk->name);
  pk->nbuf = k->n_in + k->n_out;
  pk->n_in = k->n_in;
  pk->field = calloc((size_t)pk->nbuf + 1, sizeof *pk->field);
  pk->dims = calloc(3 * (size_t)(pk->nbuf + 1), sizeof *pk->dims);
  pk->source = fgk_emit(k, be->i->dialect, entry);
  if (!pk->name || !pk->field || !pk->dims || !pk->source)
    return fg__ctx_fail(ctx, FG_ENOMEM, "compile: out of memory");
  for (int i = 0; i < k->n_in; i++) {
    pk->field[i] = fk->in_field[i];
    dims_of(p->f[fk->in_field[i]].type.field, pk->dims + 3 * i);
  }
  for (int i = 0; i < k->n_out; i++) {
    pk->field[k->n_in + i] = fk->out_field[i];
    dims_of(p->f[fk->out_field[i]].type.field,
            pk->dims + 3 * (k->n_in + i));
  }
  dims_of(k->threads, pk->dims + 3 * pk->nbuf);
  memcpy(pk->threads, pk->dims + 3 * pk->nbuf, sizeof pk->threads);
  /* per-element threads: the kernel splits the element off the layer
   * (never a reduction: such kernels do not fuse) */
  assert(!k->reduce || !k->thread_elements);
  if (k->thread_elements > 0)
    pk->threads[0] *= k->thread_elements;
  if (k->reduce) {
    /* a fixed number of partials for the shape, each a contiguous chunk:
     * the order of operations never depends on the backend or threads */
    int64_t n = fg_shape_points(k->threads);
    pk->partials = (n + 16383) / 16384;
    if (pk->partials > FGK_MAX_PARTIALS)
      pk->partials = FGK_MAX_PARTIALS;
    pk->reduce = k->reduce;
    pk->reduce_port = k->reduce_port;
    int64_t *d = pk->dims + 3 * (k->n_in + k->reduce_port);
    d[0] = d[1] = 1;
    d[2] = pk->partials;
    pk->threads[0] = pk->threads[1] = 1;
    pk->threads[2] = pk->partials;
  }
  pk->grouped = k->grouped;
  pk->group[0] = k->local[0];
  pk->group[1] = k->local[1];
  const char *dump = getenv("FG_DUMP_KERNELS");
  if (dump && *dump)
    dump_kernel(dump, index, pk, be->i->dialect);
  /* the kernel's own precision, when its code asked for one */
  fg_compile_options kopt = opt ? *opt : (fg_compile_options){0};
  if (k->fp == FGK_FP_FULL)
    kopt.precision = FG_PRECISION_FULL;
  else if (k->fp == FGK_FP_RELAXED)
    kopt.precision = FG_PRECISION_RELAXED;
  pk->precision = kopt.precision;
  return be->i->build(be, pk->source, entry, fk->name, &kopt, &pk->bin);
}

/* The readable fusion report of a variant. */
static char *make_report(fg_program *p, const variant *v) {
  fgu_buf b = {0};
  const fg_fusion_stats *s = &v->stats;
  fgu_buf_printf(&b, "kernels: %d (unfused: %d)\n", s->kernels,
                 s->kernels_unfused);
  for (int i = 0; i < v->n_k; i++)
    fgu_buf_printf(&b, "  kernel %d: %s\n", i, v->k[i].name);
  fgu_buf_printf(&b, "fields: %d materialized, %d virtual\n",
                 s->fields_materialized, s->fields_virtual);
  for (int i = 0; i < p->n_fields; i++)
    if (v->materialized[i])
      fgu_buf_printf(&b, "  %s: %s\n", p->f[i].name,
                     v->reason[i] ? v->reason[i] : "?");
  fgu_buf_printf(&b, "memory traffic per run: %lld bytes (unfused: %lld, "
                 "%.2fx less)\n", (long long)s->bytes,
                 (long long)s->bytes_unfused,
                 s->bytes ? (double)s->bytes_unfused / (double)s->bytes : 0);
  return fgu_buf_take(&b);
}

/* Whether kernel k vectorizes in the backend's dialect at the compile's
 * precision (arg: a vec_target), for the fusion cost rule. */
typedef struct vec_target {
  fgk_dialect dialect;
  bool relaxed;
} vec_target;

static bool kernel_vectorizes(const fgk_kernel *k, void *arg,
                              const char **why) {
  const vec_target *t = arg;
  return fge_vectorizes(k, t->dialect, t->relaxed, why);
}

/* Plans, emits and builds one variant of the program. */
static fg_status compile_variant(fg_program *p, fg_graph *g, const bool *live,
                                 bool fuse, const fg_compile_options *opt,
                                 variant *v) {
  fg_context *ctx = p->ctx;
  vec_target vt = {.dialect = ctx->be->i->dialect,
                   .relaxed = opt && opt->precision == FG_PRECISION_RELAXED};
  fgf_options fo = {.fuse = fuse, .max_nodes = 64,
                    .max_buffers = ctx->be->max_kernel_buffers,
                    .vectorizes = kernel_vectorizes, .vectorizes_arg = &vt};
  fgf_plan *plan = NULL;
  fg_status st = fgf_plan_graph(g, live, &fo, &plan, ctx->errmsg,
                                sizeof ctx->errmsg);
  if (st != FG_OK)
    return st;
  v->k = calloc((size_t)plan->n_kernels + 1, sizeof *v->k);
  v->materialized = calloc((size_t)p->n_fields + 1, sizeof(bool));
  v->reason = calloc((size_t)p->n_fields + 1, sizeof(char *));
  v->kernel_of_node = calloc((size_t)p->n_nodes + 1, sizeof(int));
  if (!v->k || !v->materialized || !v->reason || !v->kernel_of_node) {
    fgf_plan_free(plan);
    return fg__ctx_fail(ctx, FG_ENOMEM, "compile: out of memory");
  }
  for (int i = 0; i < p->n_fields; i++) {
    v->materialized[i] = plan->materialized[i];
    if (plan->reason[i] && !(v->reason[i] = strdup(plan->reason[i]))) {
      fgf_plan_free(plan);
      return fg__ctx_fail(ctx, FG_ENOMEM, "compile: out of memory");
    }
    if (p->f[i].role == PF_OP) {
      if (v->materialized[i])
        v->stats.fields_materialized++;
      else if (live[i])
        v->stats.fields_virtual++;
    }
  }
  for (int i = 0; i < p->n_nodes; i++)
    v->kernel_of_node[i] = -1;
  for (int k = 0; k < plan->n_kernels; k++)
    for (int m = 0; m < plan->kernels[k].n_nodes; m++)
      v->kernel_of_node[plan->kernels[k].nodes[m]] = k;
  v->stats.kernels_unfused = plan->kernels_unfused;
  v->stats.kernels = plan->n_kernels;
  v->stats.bytes_unfused = plan->bytes_unfused;
  v->stats.bytes = plan->bytes_fused;
  for (int i = 0; i < plan->n_kernels && st == FG_OK; i++) {
    st = build_kernel(p, &plan->kernels[i], i, &v->k[i], opt);
    v->n_k = i + 1;
  }
  fgf_plan_free(plan);
  if (st == FG_OK && !(v->report = make_report(p, v)))
    st = fg__ctx_fail(ctx, FG_ENOMEM, "compile: out of memory");
  if (st == FG_OK)
    st = fg__plan_tasks(p, v);
  return st;
}

/* The fusion mode asked for, by the options or else $FG_FUSION. */
static fg_status fusion_mode(fg_context *ctx, const fg_compile_options *opt,
                             fg_fusion *mode) {
  *mode = opt ? opt->fusion : FG_FUSION_DEFAULT;
  if ((unsigned)*mode > FG_FUSION_CHECK)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_compile: fusion %d is not one of "
                        "FG_FUSION_DEFAULT, _ON, _OFF, _CHECK", (int)*mode);
  if (*mode == FG_FUSION_DEFAULT) {
    const char *env = getenv("FG_FUSION");
    if (!env || !*env || !strcmp(env, "1") || !strcmp(env, "on"))
      *mode = FG_FUSION_ON;
    else if (!strcmp(env, "0") || !strcmp(env, "off"))
      *mode = FG_FUSION_OFF;
    else if (!strcmp(env, "check"))
      *mode = FG_FUSION_CHECK;
    else
      return fg__ctx_fail(ctx, FG_EINVAL, "FG_FUSION is '%s' (expected 1, "
                          "0 or check)", env);
  }
  return FG_OK;
}

fg_status fg_compile(fg_context *ctx, fg_graph *g,
                     const fg_compile_options *opt, fg_program **out) {
  if (!ctx)
    return FG_EINVAL;
  if (!out)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_compile: out is NULL");
  *out = NULL;
  if (!g)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_compile: graph is NULL");
  if (g->status != FG_OK)
    return fg__ctx_fail(ctx, g->status, "fg_compile: graph '%s' has an "
                        "error: %s", g->name, g->errmsg);
  if (g->open_op)
    return fg__ctx_fail(ctx, FG_ESTATE, "fg_compile: operator '%s' of graph "
                        "'%s' is still open (call fg_op_end)",
                        g->open_op_name, g->name);
  if (g->outputs.n == 0)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_compile: graph '%s' has no "
                        "outputs (mark results with fg_output)", g->name);
  if (opt && opt->precision != FG_PRECISION_FULL &&
      opt->precision != FG_PRECISION_RELAXED)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_compile: precision %d is not "
                        "FG_PRECISION_FULL or FG_PRECISION_RELAXED",
                        (int)opt->precision);
  fg_fusion mode;
  fg_status st = fusion_mode(ctx, opt, &mode);
  if (st != FG_OK)
    return st;
  fg_program *p = calloc(1, sizeof *p);
  if (!p)
    return fg__ctx_fail(ctx, FG_ENOMEM, "fg_compile: out of memory");
  p->ctx = ctx;
  p->n_nodes = g->nodes.n;
  p->n_fields = g->fields.n;
  p->n_in = g->inputs.n;
  p->n_out = g->outputs.n;
  p->f = calloc((size_t)p->n_fields + 1, sizeof *p->f);
  p->in_name = calloc((size_t)p->n_in + 1, sizeof *p->in_name);
  p->in_field = calloc((size_t)p->n_in + 1, sizeof *p->in_field);
  p->out_name = calloc((size_t)p->n_out + 1, sizeof *p->out_name);
  p->out_field = calloc((size_t)p->n_out + 1, sizeof *p->out_field);
  bool *live = calloc((size_t)p->n_fields + 1, sizeof *live);
  if (!p->f || !p->in_name || !p->in_field || !p->out_name ||
      !p->out_field || !live) {
    st = fg__ctx_fail(ctx, FG_ENOMEM, "fg_compile: out of memory");
    goto done;
  }
  for (int i = 0; i < p->n_fields; i++) {
    fg_field *f = g->fields.item[i];
    p->f[i].type = f->type;
    if (!(p->f[i].name = strdup(f->name))) {
      st = fg__ctx_fail(ctx, FG_ENOMEM, "fg_compile: out of memory");
      goto done;
    }
  }
  for (int i = 0; i < p->n_in; i++) {
    fg_field *f = g->inputs.item[i];
    p->in_field[i] = f->id;
    p->f[f->id].role = PF_INPUT;
    p->f[f->id].input = i;
    if (!(p->in_name[i] = strdup(f->name))) {
      st = fg__ctx_fail(ctx, FG_ENOMEM, "fg_compile: out of memory");
      goto done;
    }
  }
  for (int i = 0; i < p->n_out; i++) {
    fg__output *o = g->outputs.item[i];
    p->out_field[i] = o->field->id;
    live[o->field->id] = true;
    if (!(p->out_name[i] = strdup(o->name))) {
      st = fg__ctx_fail(ctx, FG_ENOMEM, "fg_compile: out of memory");
      goto done;
    }
  }
  /* Nodes are in topological order: walk back from the outputs to find
   * what is live. */
  for (int i = g->nodes.n - 1; i >= 0; i--) {
    fg__node *n = g->nodes.item[i];
    bool used = false;
    for (int j = 0; j < n->n_out; j++)
      used |= live[n->out[j]->id];
    if (used && n->kind == FG_NODE_OP)
      for (int j = 0; j < n->n_in; j++)
        live[n->in[j]->id] = true;
  }
  for (int i = 0; i < g->nodes.n && st == FG_OK; i++) {
    fg__node *n = g->nodes.item[i];
    if (n->kind == FG_NODE_CONST && live[n->out[0]->id]) {
      pfield *pf = &p->f[n->out[0]->id];
      size_t bytes = fg_type_bytes(pf->type);
      pf->role = PF_CONST;
      st = ctx->be->i->alloc(ctx->be, bytes, &pf->const_buf);
      if (st == FG_OK)
        st = ctx->be->i->upload(ctx->be, pf->const_buf, n->data, bytes);
      if (n->live) {         /* a script's globals: each run's own copy */
        pf->live = n->live;
        fg__live_ref(n->live);
      }
    } else if (n->kind == FG_NODE_OP) {
      for (int j = 0; j < n->n_out; j++)
        p->f[n->out[j]->id].role = PF_OP;
    }
  }
  if (st == FG_OK)
    st = compile_variant(p, g, live, mode != FG_FUSION_OFF, opt, &p->main);
  if (st == FG_OK && mode == FG_FUSION_CHECK)
    st = compile_variant(p, g, live, false, opt, &p->check);
done:
  free(live);
  if (st != FG_OK) {
    fg_program_free(p);
    return st;
  }
  *out = p;
  return FG_OK;
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
  for (int i = 0; i < p->n_fields; i++)
    if (strcmp(p->f[i].name, ((fg_field *)g->fields.item[i])->name))
      return false;
  return true;
}

int fg__program_node_kernel(const fg_program *p, int node) {
  return node >= 0 && node < p->n_nodes ? p->main.kernel_of_node[node] : -1;
}

const char *fg__program_field_reason(const fg_program *p, int field) {
  if (field < 0 || field >= p->n_fields || !p->main.materialized[field])
    return NULL;
  return p->main.reason[field] ? p->main.reason[field] : "";
}
