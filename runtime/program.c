/* runtime/program.c - compiling a graph into a program (live nodes, one
 * kernel per operator, constant buffers, launch shapes) and running it
 * synchronously.  The program copies everything it needs out of the
 * graph, so the graph may be freed once compiled. */
#include "context_impl.h"
#include "graph/graph_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum pfield_role { PF_DEAD, PF_INPUT, PF_CONST, PF_TEMP } pfield_role;

typedef struct pfield {
  fg_type type;
  pfield_role role;
  int input;                /* PF_INPUT: graph input index */
  fg__buffer *const_buf;    /* PF_CONST */
} pfield;

typedef struct pkernel {
  char *name;
  char *source;
  fg__kbin *bin;
  int nbuf;
  int *field;               /* nbuf field ids: inputs, then outputs */
  int64_t *dims;            /* 3 * (nbuf + 1) */
  bool grouped;
  int group[2];             /* work-group (rows, columns) when grouped */
} pkernel;

struct fg_program {
  fg_context *ctx;
  int n_fields;
  pfield *f;
  int n_in, n_out, n_k;
  char **in_name, **out_name;
  int *in_field, *out_field;
  pkernel *k;
};

static void dims_of(fg_shape s, int64_t *d) {
  d[0] = s.ndim == 3 ? s.dim[0] : 1;
  d[1] = s.ndim >= 2 ? s.dim[s.ndim - 2] : 1;
  d[2] = s.ndim >= 1 ? s.dim[s.ndim - 1] : 1;
}

void fg_program_free(fg_program *p) {
  if (!p)
    return;
  fg__backend *be = p->ctx->be;
  for (int i = 0; i < p->n_k; i++) {
    be->i->kernel_free(be, p->k[i].bin);
    free(p->k[i].name);
    free(p->k[i].source);
    free(p->k[i].field);
    free(p->k[i].dims);
  }
  for (int i = 0; p->f && i < p->n_fields; i++)
    if (p->f[i].const_buf)
      be->i->buffer_free(be, p->f[i].const_buf);
  for (int i = 0; p->in_name && i < p->n_in; i++)
    free(p->in_name[i]);
  for (int i = 0; p->out_name && i < p->n_out; i++)
    free(p->out_name[i]);
  free(p->in_name);
  free(p->out_name);
  free(p->in_field);
  free(p->out_field);
  free(p->k);
  free(p->f);
  free(p);
}

/* Builds the kernel of op node n into pk. */
static fg_status build_kernel(fg_program *p, fg__node *n, pkernel *pk,
                              const fg_compile_options *opt) {
  fg_context *ctx = p->ctx;
  fg__backend *be = ctx->be;
  const fgk_kernel *k = n->kernel;
  char ident[160], entry[200];
  fgk_identifier(k->name, ident, sizeof ident);
  snprintf(entry, sizeof entry, "fg_kernel_%s", ident);
  pk->name = strdup(k->name);
  pk->nbuf = k->n_in + k->n_out;
  pk->field = calloc((size_t)pk->nbuf, sizeof *pk->field);
  pk->dims = calloc(3 * (size_t)(pk->nbuf + 1), sizeof *pk->dims);
  pk->source = fgk_emit(k, be->i->dialect, entry);
  if (!pk->name || !pk->field || !pk->dims || !pk->source)
    return fg__ctx_fail(ctx, FG_ENOMEM, "compile: out of memory");
  for (int i = 0; i < k->n_in; i++) {
    pk->field[i] = n->in[i]->id;
    dims_of(n->in[i]->type.field, pk->dims + 3 * i);
  }
  for (int i = 0; i < k->n_out; i++) {
    pk->field[k->n_in + i] = n->out[i]->id;
    dims_of(n->out[i]->type.field, pk->dims + 3 * (k->n_in + i));
  }
  dims_of(k->threads, pk->dims + 3 * pk->nbuf);
  pk->grouped = k->grouped;
  pk->group[0] = k->local[0];
  pk->group[1] = k->local[1];
  return be->i->build(be, pk->source, entry, k->name, opt, &pk->bin);
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
  fg_program *p = calloc(1, sizeof *p);
  if (!p)
    return fg__ctx_fail(ctx, FG_ENOMEM, "fg_compile: out of memory");
  p->ctx = ctx;
  p->n_fields = g->fields.n;
  p->n_in = g->inputs.n;
  p->n_out = g->outputs.n;
  p->f = calloc((size_t)p->n_fields + 1, sizeof *p->f);
  p->in_name = calloc((size_t)p->n_in + 1, sizeof *p->in_name);
  p->in_field = calloc((size_t)p->n_in + 1, sizeof *p->in_field);
  p->out_name = calloc((size_t)p->n_out + 1, sizeof *p->out_name);
  p->out_field = calloc((size_t)p->n_out + 1, sizeof *p->out_field);
  p->k = calloc((size_t)g->nodes.n + 1, sizeof *p->k);
  bool *live = calloc((size_t)p->n_fields + 1, sizeof *live);
  fg_status st = FG_OK;
  if (!p->f || !p->in_name || !p->in_field || !p->out_name ||
      !p->out_field || !p->k || !live) {
    st = fg__ctx_fail(ctx, FG_ENOMEM, "fg_compile: out of memory");
    goto done;
  }
  for (int i = 0; i < p->n_fields; i++)
    p->f[i].type = ((fg_field *)g->fields.item[i])->type;
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
   * what is live, then build forward. */
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
    } else if (n->kind == FG_NODE_OP) {
      bool used = false;
      for (int j = 0; j < n->n_out; j++)
        used |= live[n->out[j]->id];
      if (!used)
        continue;
      for (int j = 0; j < n->n_out; j++)
        p->f[n->out[j]->id].role = PF_TEMP;
      st = build_kernel(p, n, &p->k[p->n_k++], opt);
    }
  }
done:
  free(live);
  if (st != FG_OK) {
    fg_program_free(p);
    return st;
  }
  *out = p;
  return FG_OK;
}

static bool overlaps(const void *a, size_t na, const void *b, size_t nb) {
  const char *pa = a, *pb = b;
  return na && nb && pa < pb + nb && pb < pa + na;
}

fg_status fg_program_run(fg_program *p, int n_inputs,
                         const void *const *inputs, int n_outputs,
                         void *const *outputs) {
  if (!p)
    return FG_EINVAL;
  fg_context *ctx = p->ctx;
  fg__backend *be = ctx->be;
  if (n_inputs != p->n_in || n_outputs != p->n_out)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_program_run: got %d input(s) "
                        "and %d output(s), the program has %d and %d",
                        n_inputs, n_outputs, p->n_in, p->n_out);
  if ((p->n_in && !inputs) || (p->n_out && !outputs))
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_program_run: %s array is NULL",
                        !outputs ? "outputs" : "inputs");
  for (int i = 0; i < p->n_in; i++)
    if (!inputs[i])
      return fg__ctx_fail(ctx, FG_EINVAL, "fg_program_run: input %d ('%s') "
                          "is NULL", i, p->in_name[i]);
  for (int i = 0; i < p->n_out; i++) {
    size_t ni = fg_type_bytes(p->f[p->out_field[i]].type);
    if (!outputs[i])
      return fg__ctx_fail(ctx, FG_EINVAL, "fg_program_run: output %d ('%s') "
                          "is NULL", i, p->out_name[i]);
    for (int j = 0; j < p->n_in; j++)
      if (overlaps(outputs[i], ni, inputs[j],
                   fg_type_bytes(p->f[p->in_field[j]].type)))
        return fg__ctx_fail(ctx, FG_EINVAL, "fg_program_run: memory of "
                            "output '%s' overlaps input '%s'",
                            p->out_name[i], p->in_name[j]);
    for (int j = 0; j < i; j++)
      if (overlaps(outputs[i], ni, outputs[j],
                   fg_type_bytes(p->f[p->out_field[j]].type)))
        return fg__ctx_fail(ctx, FG_EINVAL, "fg_program_run: memory of "
                            "output '%s' overlaps output '%s'",
                            p->out_name[i], p->out_name[j]);
  }
  fg__buffer **buf = calloc((size_t)p->n_fields + 1, sizeof *buf);
  bool *direct = calloc((size_t)p->n_out + 1, sizeof *direct);
  bool *owned = calloc((size_t)p->n_fields + 1, sizeof *owned);
  fg__buffer *bufs[128];
  fg_status st = FG_OK;
  if (!buf || !direct || !owned) {
    st = fg__ctx_fail(ctx, FG_ENOMEM, "fg_program_run: out of memory");
    goto done;
  }
  for (int i = 0; i < p->n_fields && st == FG_OK; i++) {
    pfield *pf = &p->f[i];
    if (pf->role == PF_INPUT) {
      st = fg__be_wrap_or_upload(be, (void *)inputs[pf->input],
                                 fg_type_bytes(pf->type), &buf[i]);
      owned[i] = st == FG_OK;
    } else if (pf->role == PF_CONST) {
      buf[i] = pf->const_buf;
    }
  }
  /* Operator results that are outputs go straight to the caller's memory
   * where the backend can alias it. */
  for (int i = 0; i < p->n_out && st == FG_OK; i++) {
    int fid = p->out_field[i];
    if (p->f[fid].role == PF_TEMP && !buf[fid] && be->i->wrap) {
      st = be->i->wrap(be, outputs[i], fg_type_bytes(p->f[fid].type),
                       &buf[fid]);
      owned[fid] = direct[i] = st == FG_OK;
    }
  }
  for (int i = 0; i < p->n_fields && st == FG_OK; i++)
    if (p->f[i].role == PF_TEMP && !buf[i]) {
      st = be->i->alloc(be, fg_type_bytes(p->f[i].type), &buf[i]);
      owned[i] = st == FG_OK;
    }
  for (int i = 0; i < p->n_k && st == FG_OK; i++) {
    pkernel *k = &p->k[i];
    for (int j = 0; j < k->nbuf; j++)
      bufs[j] = buf[k->field[j]];
    st = be->i->launch(be, k->bin, k->nbuf, bufs, k->dims,
                       k->grouped ? k->group : NULL);
  }
  if (st == FG_OK)
    st = be->i->wait(be);
  for (int i = 0; i < p->n_out && st == FG_OK; i++)
    if (!direct[i]) {
      int fid = p->out_field[i];
      st = be->i->download(be, buf[fid], outputs[i],
                           fg_type_bytes(p->f[fid].type));
    }
  if (st == FG_OK)
    ctx->stats.runs++;
done:
  for (int i = 0; buf && owned && i < p->n_fields; i++)
    if (owned[i])
      be->i->buffer_free(be, buf[i]);
  free(buf);
  free(owned);
  free(direct);
  return st;
}

int fg_program_input_count(const fg_program *p) { return p ? p->n_in : 0; }
int fg_program_output_count(const fg_program *p) { return p ? p->n_out : 0; }
int fg_program_kernel_count(const fg_program *p) { return p ? p->n_k : 0; }

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
  return p && i >= 0 && i < p->n_k ? p->k[i].source : NULL;
}
const char *fg_program_kernel_name(const fg_program *p, int i) {
  return p && i >= 0 && i < p->n_k ? p->k[i].name : NULL;
}
