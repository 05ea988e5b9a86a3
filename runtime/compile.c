/* runtime/compile.c - fg_compile end to end: finds the live operators,
 * asks the fusion pass (fuse/) for kernel groups and their merged IR,
 * emits and builds each kernel, uploads constants, and plans the tasks of
 * one run (the static task graph run.c walks).  The program copies
 * everything it needs out of the graph, so the graph may be freed once
 * compiled.  In check mode a second, unfused variant is built and every
 * run compares the two. */
#include "program_impl.h"
#include "emit/abi.h"
#include "emit/emit.h"
#include "fuse/fuse.h"
#include "ir/visit.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- what a kernel needs of the device ---------------------------------- */

static void type_needs(fgk_type t, fg__needs *n) {
  n->fp64 |= t.elem == FG_F64;
}

static void expr_needs(const fg_expr *x, void *arg) {
  fg__needs *n = arg;
  type_needs(x->type, n);
  if (x->kind == FGK_E_VAR) {
    type_needs(x->u.var->type, n);
  } else if (x->kind == FGK_E_INDEX) {
    type_needs(x->u.index.var->type, n);
  } else if (x->kind == FGK_E_ATOMIC) {
    n->int64_atomics |= fg_elem_size(x->type.elem) == 8;
  } else if (x->kind == FGK_E_FOREIGN) {
    if (x->u.foreign.hooks->uses_fp64)
      n->fp64 |= x->u.foreign.hooks->uses_fp64(x);
  }
}

static void stmt_needs(const fgk_stmt *s, void *arg) {
  fg__needs *n = arg;
  if (s->kind == FGK_S_DECL) {
    const fgk_var *v = s->u.decl;
    type_needs(v->type, n);
    if (v->local) {
      uint64_t bytes = (uint64_t)fg_elem_size(v->type.elem) *
                       (uint64_t)(v->type.width == 3 ? 4 : v->type.width);
      for (int d = 0; d < v->ndims; d++)
        bytes *= (uint64_t)v->dims[d];
      n->local_mem += bytes;
    }
  } else if (s->kind == FGK_S_FOR && s->u.for_.var) {
    type_needs(s->u.for_.var->type, n);
  }
}

/* What kernel k needs of a device to run: its types, atomics, work-group
 * shape, buffers and local memory. */
static void kernel_needs(const fgk_kernel *k, fg__needs *n) {
  *n = (fg__needs){.buffers = k->n_in + k->n_out};
  for (int i = 0; i < k->n_in; i++)
    n->fp64 |= k->in_type[i].elem == FG_F64;
  for (int i = 0; i < k->n_out; i++)
    n->fp64 |= k->out_type[i].elem == FG_F64;
  if (k->grouped)
    n->group_size = (size_t)k->local[0] * (size_t)k->local[1];
  fgk_visit_block(&k->body, &(fgk_visitor){.expr = expr_needs,
                                           .stmt = stmt_needs, .arg = n});
}

static void stmt_loops(const fgk_stmt *s, void *arg) {
  *(bool *)arg |= s->kind == FGK_S_FOR || s->kind == FGK_S_WHILE;
}

/* What a thread of map kernel k over `points` threads reads in its loops,
 * by the sizes of its inputs: the points of its largest input over its
 * threads where its threads loop (a histogram's thousand threads count a
 * 4096 x 4096 field, an axis reduction's read every layer), else 0.  The
 * backend tiles on points times this (a kernel of few threads with long
 * loops is no small launch to run on the calling thread). */
static int64_t loop_work(const fg_program *p, const fgf_kernel *fk,
                         const fgk_kernel *k, int64_t points) {
  bool loops = false;
  fgk_visit_block(&k->body, &(fgk_visitor){.stmt = stmt_loops,
                                           .arg = &loops});
  int64_t most = 0;
  for (int i = 0; loops && i < k->n_in; i++) {
    int64_t n = fg_shape_points(p->f[fk->in_field[i]].type.field);
    most = n > most ? n : most;
  }
  return loops && points > 0 && most > points ? (most + points - 1) / points
                                              : 0;
}

/* Writes a kernel's source to $FG_DUMP_KERNELS/<index>-<name>.<ext>. */
static void dump_kernel(const char *dir, int index, const fg__pkernel *pk,
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

/* Emits plan kernel fk into pk and describes its build in job (entry:
 * where its function's name goes, 200 bytes, kept until the build). */
static fg_status emit_kernel(fg_program *p, const fgf_kernel *fk, int index,
                             fg__pkernel *pk, const fg_compile_options *opt,
                             fg__build_job *job, char entry[200]) {
  fg_context *ctx = p->ctx;
  fg__backend *be = ctx->be;
  const fgk_kernel *k = fk->k;
  char ident[160];
  fgk_identifier(fk->name, ident, sizeof ident);
  snprintf(entry, 200, "fg_kernel_%.48s_%d", ident, index);
  pk->name = strdup(fk->name);
  pk->nbuf = k->n_in + k->n_out;
  pk->n_in = k->n_in;
  pk->field = calloc((size_t)pk->nbuf + 1, sizeof *pk->field);
  pk->dims = calloc((size_t)fge_abi_dim_count(pk->nbuf), sizeof *pk->dims);
  fgk_emit_target target = {
      .strip = fge_strip(k, fg__be_dialect(be), be->caps.strip),
      .strip_rows = be->caps.strip_rows,
      .fast_fma = be->caps.fast_fma};
  pk->strip = target.strip;
  pk->source = fgk_emit_for(k, fg__be_dialect(be), entry, &target);
  pk->strip_rows = target.rows;
  pk->polls = pk->source && fge_source_polls(pk->source);
  if (!pk->name || !pk->field || !pk->dims || !pk->source)
    return fg__ctx_fail(ctx, FG_ENOMEM, "compile: out of memory");
  for (int i = 0; i < k->n_in; i++) {
    pk->field[i] = fk->in_field[i];
    fge_abi_shape_dims(p->f[fk->in_field[i]].type.field,
            fge_abi_buffer_dims(pk->dims, i));
  }
  if (k->out_partial &&
      !(pk->zero = calloc((size_t)pk->nbuf, sizeof *pk->zero)))
    return fg__ctx_fail(ctx, FG_ENOMEM, "compile: out of memory");
  if (k->out_init &&
      !(pk->copy_from = malloc((size_t)pk->nbuf * sizeof *pk->copy_from)))
    return fg__ctx_fail(ctx, FG_ENOMEM, "compile: out of memory");
  for (int i = 0; pk->copy_from && i < pk->nbuf; i++)
    pk->copy_from[i] = i >= k->n_in ? k->out_init[i - k->n_in] : -1;
  for (int i = 0; i < k->n_out; i++) {
    if (pk->zero)
      pk->zero[k->n_in + i] = k->out_partial[i];
    pk->field[k->n_in + i] = fk->out_field[i];
    fge_abi_shape_dims(p->f[fk->out_field[i]].type.field,
            fge_abi_buffer_dims(pk->dims, k->n_in + i));
  }
  fge_abi_shape_dims(k->threads, fge_abi_buffer_dims(pk->dims, pk->nbuf));
  memcpy(pk->threads, fge_abi_thread_dims(pk->dims, pk->nbuf),
         sizeof pk->threads);
  /* per-element threads: the kernel splits the element off the layer
   * (never a reduction: such kernels do not fuse) */
  assert(!fgk_is_reduction(k->reduce) || !k->thread_elements);
  if (k->thread_elements > 0)
    pk->threads[0] *= k->thread_elements;
  pk->kind = k->grouped ? FG__LAUNCH_GROUPED : FG__LAUNCH_MAP;
  if (pk->kind == FG__LAUNCH_MAP)
    pk->work_per_item = loop_work(p, fk, k, pk->threads[0] * pk->threads[1] *
                                  pk->threads[2]);
  if (fgk_is_reduction(k->reduce))
    fg__reduce_plan(pk, k);
  assert(fgk_reduce_count(k) <= FGK_MAX_REDUCTIONS);
  pk->grouped = k->grouped;
  pk->group[0] = k->local[0];
  pk->group[1] = k->local[1];
  if (*ctx->env.dump_kernels)
    dump_kernel(ctx->env.dump_kernels, index, pk, fg__be_dialect(be));
  /* the kernel's own precision, when its code asked for one */
  fg_compile_options kopt = opt ? *opt : (fg_compile_options){0};
  if (k->fp == FGK_FP_FULL)
    kopt.precision = FG_PRECISION_FULL;
  else if (k->fp == FGK_FP_RELAXED)
    kopt.precision = FG_PRECISION_RELAXED;
  pk->precision = kopt.precision;
  *job = (fg__build_job){.source = pk->source, .entry = entry,
                         .what = pk->name, .opt = kopt};
  return FG_OK;
}

/* Whether the host holds field f's value before kernel `before` of v
 * runs: a graph input, a constant (not a script's globals), or a result
 * of an earlier kernel the host evaluates or whose reduction the host
 * combines. */
static bool held_on_host(const fg_program *p, const fg__variant *v, int f,
                         int before) {
  const fg__pfield *pf = &p->f[f];
  if (pf->role == PF_INPUT)
    return true;
  if (pf->role == PF_CONST)
    return pf->host_data != NULL;
  for (int q = 0; q < before; q++) {
    const fg__pkernel *pk = &v->k[q];
    for (int o = pk->n_in; pk->host && o < pk->nbuf; o++)
      if (pk->field[o] == f)
        return true;
    for (int r = 0; fg__reduce_on_host(pk) && r < pk->n_red; r++)
      if (pk->field[pk->n_in + pk->red[r].port] == f)
        return true;
  }
  return false;
}

/* Makes kernel i of v (built from k) one the host evaluates, where it
 * computes one point of plain arithmetic at full precision on values the
 * host holds (host_eval.h); else it stays on the device. */
static void plan_host(fg_program *p, fg__variant *v, int i,
                      const fgk_kernel *k) {
  const fg__backend *be = p->ctx->be;
  fg__pkernel *pk = &v->k[i];
  if (!be->caps.host_eval || pk->precision != FG_PRECISION_FULL)
    return;
  for (int j = 0; j < pk->n_in; j++)
    if (!held_on_host(p, v, pk->field[j], i))
      return;
  fg__host_target t = {.f32_div_rounded = be->caps.f32_div_rounded};
  pk->host = fg__host_compile(k, &t);
}

/* The readable fusion report of a variant. */
static char *make_report(fg_program *p, const fg__variant *v) {
  fgu_buf b = {0};
  const fg_fusion_stats *s = &v->stats;
  fgu_buf_printf(&b, "kernels: %d (unfused: %d)\n", s->kernels,
                 s->kernels_unfused);
  for (int i = 0; i < v->n_k; i++) {
    fgu_buf_printf(&b, "  kernel %d: %s%s", i, v->k[i].name,
                   v->k[i].host ? " (on the host)" : "");
    if (i > 0 && v->k[i - 1].band_member)
      fgu_buf_printf(&b, " (in row bands with kernel %d, reading %d rows "
                     "either side)", i - 1, v->k[i].band_reach);
    int kept = 0;
    for (int o = 0; v->k[i].band_private && o < v->k[i].nbuf; o++)
      if (v->k[i].band_private[o])
        fgu_buf_printf(&b, "%s%s", kept++ ? ", " : "; in bands, rows of ",
                       p->f[v->k[i].field[o]].label);
    if (kept)
      fgu_buf_puts(&b, " kept only while read");
    fgu_buf_puts(&b, "\n");
  }
  fgu_buf_printf(&b, "fields: %d materialized, %d virtual\n",
                 s->fields_materialized, s->fields_virtual);
  for (int i = 0; i < p->n_fields; i++)
    if (v->materialized[i])
      fgu_buf_printf(&b, "  %s: %s\n", p->f[i].label,
                     v->reason[i] ? v->reason[i] : "?");
  fgu_buf_printf(&b, "memory traffic per run: %lld bytes (unfused: %lld, "
                 "%.2fx less)\n", (long long)s->bytes,
                 (long long)s->bytes_unfused,
                 s->bytes ? (double)s->bytes_unfused / (double)s->bytes : 0);
  return fgu_buf_take(&b);
}

static fg_status add_task(fg__rtask *t, int *n, fg__rtask_kind kind, int index,
                          const int *deps, int n_deps) {
  fg__rtask *x = &t[(*n)++];
  x->kind = kind;
  x->index = index;
  x->sub = 0;
  x->dep = calloc((size_t)n_deps + 1, sizeof *x->dep);
  if (!x->dep)
    return FG_ENOMEM;
  for (int i = 0; i < n_deps; i++) {
    bool seen = deps[i] < 0;
    for (int j = 0; j < x->n_dep && !seen; j++)
      seen = x->dep[j] == deps[i];
    if (!seen)
      x->dep[x->n_dep++] = deps[i];
  }
  return FG_OK;
}

fg_status fg__plan_tasks(fg_program *p, fg__variant *v) {
  fg__backend *be = p->ctx->be;
  int cap = 3 * p->n_fields + p->n_in + (1 + 6 * FGK_MAX_REDUCTIONS) * v->n_k +
            p->n_out + 1;
  int *producer = malloc(((size_t)p->n_fields + 1) * sizeof *producer);
  /* per field: the task after which the host holds its value */
  int *hready = malloc(((size_t)p->n_fields + 1) * sizeof *hready);
  /* per field: a kernel on the device reads it */
  bool *dev_read = calloc((size_t)p->n_fields + 1, sizeof *dev_read);
  v->on_host = calloc((size_t)p->n_fields + 1, sizeof *v->on_host);
  int *deps = malloc(((size_t)p->n_fields + 257) * sizeof *deps);
  bool *used = calloc((size_t)p->n_fields + 1, sizeof *used);
  v->task = calloc((size_t)cap, sizeof *v->task);
  v->direct = calloc((size_t)p->n_out + 1, sizeof *v->direct);
  fg_status st = producer && deps && used && v->task && v->direct &&
                         hready && dev_read && v->on_host
                     ? FG_OK : FG_ENOMEM;
  for (int i = 0; st == FG_OK && i < p->n_fields; i++)
    producer[i] = hready[i] = -1;
  for (int k = 0; st == FG_OK && k < v->n_k; k++) {
    const fg__pkernel *pk = &v->k[k];
    for (int j = 0; !pk->host && j < pk->n_in; j++)
      dev_read[pk->field[j]] = true;
    for (int j = pk->n_in; pk->host && j < pk->nbuf; j++)
      v->on_host[pk->field[j]] = true;
    for (int r = 0; fg__reduce_on_host(pk) && r < pk->n_red; r++)
      v->on_host[pk->field[pk->n_in + pk->red[r].port]] = true;
  }
  for (int k = 0; st == FG_OK && k < v->n_k; k++) {
    if (v->k[k].nbuf > 256)
      st = fg__ctx_fail(p->ctx, FG_ENOTSUP, "kernel '%s' takes %d buffers "
                        "(at most 256)", v->k[k].name, v->k[k].nbuf);
    /* the host reads a host kernel's inputs where they are */
    for (int j = 0; st == FG_OK && !v->k[k].host && j < v->k[k].n_in; j++)
      used[v->k[k].field[j]] = true;
  }
  for (int i = 0; i < p->n_out; i++)
    used[p->out_field[i]] = true;
  for (int f = 0; f < p->n_fields; f++)
    used[f] |= p->f[f].sink != NULL;
  /* kernels write the caller's memory where the backend aliases it */
  for (int i = 0; st == FG_OK && i < p->n_out; i++) {
    int f = p->out_field[i];
    v->direct[i] = fg__be_can_wrap(be) && p->f[f].role == PF_OP &&
                   v->materialized[f] && !v->on_host[f] &&
                   !fg__direct_field(p, v, f);
  }
  /* each run uploads its own copy of a script's globals */
  for (int f = 0; st == FG_OK && f < p->n_fields; f++)
    if (p->f[f].role == PF_CONST && p->f[f].live && used[f]) {
      producer[f] = v->n_task;
      st = add_task(v->task, &v->n_task, RT_GLOBALS, f, NULL, 0);
    }
  if (!fg__be_wraps_inputs(be))
    for (int i = 0; st == FG_OK && i < p->n_in; i++)
      if (used[p->in_field[i]]) {
        producer[p->in_field[i]] = v->n_task;
        st = add_task(v->task, &v->n_task, RT_UPLOAD, i, NULL, 0);
      }
  for (int k = 0; st == FG_OK && k < v->n_k; k++) {
    const fg__pkernel *pk = &v->k[k];
    if (pk->host) {
      /* after what made its inputs on the host; its results go up only
       * for a device kernel or a sink that reads them */
      for (int j = 0; j < pk->n_in; j++)
        deps[j] = hready[pk->field[j]];
      int kt = v->n_task;
      st = add_task(v->task, &v->n_task, RT_HOST, k, deps, pk->n_in);
      for (int j = pk->n_in; st == FG_OK && j < pk->nbuf; j++) {
        int f = pk->field[j];
        hready[f] = producer[f] = kt;
        if (dev_read[f] || p->f[f].sink) {
          st = add_task(v->task, &v->n_task, RT_HOST_UP, f, &kt, 1);
          producer[f] = v->n_task - 1;
        }
      }
      continue;
    }
    for (int j = 0; j < pk->n_in; j++)
      deps[j] = producer[pk->field[j]];
    int kt = v->n_task;
    st = add_task(v->task, &v->n_task, RT_KERNEL, k, deps, pk->n_in);
    for (int j = pk->n_in; j < pk->nbuf; j++)
      producer[pk->field[j]] = kt;
    /* the kernels before it in its chain run in this task too
     * (plan_bands): their results are there when this one's are */
    for (int m = k - pk->band_len + 1; pk->band_len && m < k; m++)
      for (int j = v->k[m].n_in; j < v->k[m].nbuf; j++)
        producer[v->k[m].field[j]] = kt;
    /* each reduction's partials come back, fold and go up on their own;
     * a first point's index folds after its value (red[loc_of[r]], an
     * earlier entry) */
    int combine[2 * FGK_MAX_REDUCTIONS];
    for (int r = 0; fg__reduce_on_host(pk) && st == FG_OK && r < pk->n_red;
         r++) {
      int d = kt;
      if ((st = add_task(v->task, &v->n_task, RT_PARTIALS, k, &d, 1)))
        break;
      v->task[v->n_task - 1].sub = r;
      int cd[2] = {v->n_task - 1, pk->loc_of[r] >= 0
                                      ? combine[pk->loc_of[r]] : -1};
      if ((st = add_task(v->task, &v->n_task, RT_COMBINE, k, cd,
                         cd[1] >= 0 ? 2 : 1)))
        break;
      combine[r] = v->n_task - 1;
      v->task[v->n_task - 1].sub = r;
      d = v->n_task - 1;
      int f = pk->field[pk->n_in + pk->red[r].port];
      hready[f] = producer[f] = d;
      if (!dev_read[f] && !p->f[f].sink)
        continue;     /* graph outputs are copied from the host */
      st = add_task(v->task, &v->n_task, RT_RESULT, k, &d, 1);
      v->task[v->n_task - 1].sub = r;
      producer[f] = v->n_task - 1;
    }
  }
  /* Where the run may alias an output (fg__be_shares_host), its download
   * is a read of the buffer onto the buffer's own memory, which OpenCL
   * defines only when no other command uses the buffer meanwhile: it
   * follows every kernel reading the field and the field's earlier
   * downloads too. */
  int *after = malloc(((size_t)v->n_task + p->n_out + 2) * sizeof *after);
  if (st == FG_OK && !after)
    st = FG_ENOMEM;
  for (int i = 0; st == FG_OK && i < p->n_out; i++) {
    int f = p->out_field[i];
    if (v->direct[i] || v->on_host[f])
      continue;
    int n = 0;
    after[n++] = producer[f];
    for (int t = 0; fg__be_shares_host(be) && t < v->n_task; t++) {
      const fg__rtask *x = &v->task[t];
      bool uses = x->kind == RT_DOWNLOAD && p->out_field[x->index] == f;
      for (int j = 0; x->kind == RT_KERNEL && j < v->k[x->index].n_in; j++)
        uses |= v->k[x->index].field[j] == f;
      if (uses)
        after[n++] = t;
    }
    st = add_task(v->task, &v->n_task, RT_DOWNLOAD, i, after, n);
  }
  free(after);
  /* what a run leaves in a script's globals: the main variant's */
  for (int f = 0; st == FG_OK && f < p->n_fields; f++)
    if (p->f[f].sink && v == &p->main && v->materialized[f]) {
      /* after an aliased output's download of the same field (above) */
      int d[2] = {producer[f], -1};
      for (int t = 0; fg__be_shares_host(be) && t < v->n_task; t++)
        if (v->task[t].kind == RT_DOWNLOAD &&
            p->out_field[v->task[t].index] == f)
          d[1] = t;
      st = add_task(v->task, &v->n_task, RT_SINK, f, d, 2);
    }
  free(producer);
  free(hready);
  free(dev_read);
  free(deps);
  free(used);
  if (st == FG_ENOMEM)
    fg__ctx_fail(p->ctx, st, "compile: out of memory");
  return st;
}

/* Chains kernels that follow each other, for a backend that runs such
 * chains in row bands (fg__be_launch_band): a kernel joins the chain of
 * the one before it (or starts one with it) where both are plain map
 * kernels over the same single layer of threads, and it reads the
 * chain's outputs, those of the kernel before it among them, only a few
 * rows from its own (fuse/bands.c); at most FG_BAND_STAGES kernels a
 * chain. */
static void plan_bands(fg_program *p, fg__variant *v, const fgf_plan *plan) {
  if (!fg__be_can_band(p->ctx->be))
    return;
  int start = 0;              /* the chain that kernel i - 1 ends */
  for (int i = 1; i < v->n_k; i++) {
    fg__pkernel *a = &v->k[i - 1], *b = &v->k[i];
    if (a->band_len && i - start >= FG_BAND_STAGES)
      continue;               /* a ends a chain that is long enough */
    if (!a->band_len)
      start = i - 1;          /* a is in no chain: one may start with it */
    if (a->host || b->host || a->kind != FG__LAUNCH_MAP ||
        b->kind != FG__LAUNCH_MAP || a->polls || b->polls || a->zero ||
        b->zero || a->copy_from || b->copy_from ||
        memcmp(a->threads, b->threads, sizeof a->threads) ||
        a->threads[0] != 1 || a->threads[1] < 2 ||
        !fgf_band_plain(plan->kernels[i - 1].k) ||
        !fgf_band_plain(plan->kernels[i].k))
      continue;
    bool ok = true, reads_a = false;
    for (int o = a->n_in; ok && o < a->nbuf; o++)   /* one point a thread */
      ok = !memcmp(fge_abi_buffer_dims(a->dims, o), a->threads,
                   sizeof a->threads);
    long reach = 0;
    for (int j = 0; ok && j < b->n_in; j++) {
      bool made = false;
      for (int m = start; m < i; m++)
        for (int o = v->k[m].n_in; o < v->k[m].nbuf; o++)
          if (v->k[m].field[o] == b->field[j]) {
            made = true;
            reads_a |= m == i - 1;
          }
      long most;
      bool near_edges;
      if (made && !(ok = fgf_band_reach(plan->kernels[i].k, j, &most,
                                        &near_edges)))
        break;
      if (made && most > reach)
        reach = most;
    }
    if (!ok || !reads_a)
      continue;
    a->band_member = true;
    b->band_len = i - start + 1;
    a->band_len = 0;
    b->band_reach = (int)reach;
  }
}

/* Whether field f is read only by kernels after `maker` up to `last` of
 * v (no graph output, sink or other kernel), each of them near its own
 * rows, with border rules that stay near the field's edges. */
static bool read_in_chain_only(const fg_program *p, const fg__variant *v,
                               const fgf_plan *plan, int f, int maker,
                               int last) {
  if (p->f[f].sink)
    return false;
  for (int o = 0; o < p->n_out; o++)
    if (p->out_field[o] == f)
      return false;
  bool read = false;
  for (int m = 0; m < v->n_k; m++)
    for (int j = 0; j < v->k[m].n_in; j++) {
      if (v->k[m].field[j] != f)
        continue;
      long most;
      bool near_edges;
      if (m <= maker || m > last ||
          !fgf_band_reach(plan->kernels[m].k, j, &most, &near_edges) ||
          !near_edges)
        return false;
      read = true;
    }
  return read;
}

/* Flags, in each chain of row bands (plan_bands), the outputs of its
 * kernels but the last when every one of them is read by later kernels
 * of the chain alone (read_in_chain_only): a backend running the chain
 * in bands may then keep just a window of their rows
 * (fg__launch.band_private). */
static fg_status plan_band_private(const fg_program *p, fg__variant *v,
                                   const fgf_plan *plan) {
  for (int i = 0; p->ctx->be->caps.row_windows && i < v->n_k; i++) {
    int start = i - v->k[i].band_len + 1;
    bool all = v->k[i].band_len > 0;
    for (int m = start; all && m < i; m++)
      for (int o = v->k[m].n_in; all && o < v->k[m].nbuf; o++)
        all = read_in_chain_only(p, v, plan, v->k[m].field[o], m, i);
    for (int m = start; all && m < i; m++) {
      fg__pkernel *a = &v->k[m];
      if (!(a->band_private = calloc((size_t)a->nbuf, sizeof(bool))))
        return FG_ENOMEM;
      for (int o = a->n_in; o < a->nbuf; o++)
        a->band_private[o] = true;
    }
  }
  return FG_OK;
}

/* Plans, emits and builds one variant of the program. */
/* Whether kernel k vectorizes in the backend's dialect at the compile's
 * precision (arg: a vec_target), for the fusion cost rule. */
typedef struct vec_target {
  fgk_dialect dialect;
  int strip;
  bool relaxed;
} vec_target;

static bool kernel_vectorizes(const fgk_kernel *k, void *arg,
                              const char **why) {
  const vec_target *t = arg;
  return fge_vectorizes(k, t->dialect, t->strip, t->relaxed, why);
}

static fg_status compile_variant(fg_program *p, fg_graph *g, const bool *live,
                                 bool fuse, const fg_compile_options *opt,
                                 fg__variant *v) {
  fg_context *ctx = p->ctx;
  vec_target vt = {.dialect = fg__be_dialect(ctx->be),
                   .strip = ctx->be->caps.strip,
                   .relaxed = opt && opt->precision == FG_PRECISION_RELAXED};
  fgf_options fo = {.fuse = fuse, .max_nodes = FGF_MAX_NODES,
                    .max_buffers = ctx->be->caps.max_buffers,
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
  /* every kernel emitted first, then all built at once */
  int nk = plan->n_kernels;
  fg__build_job *jobs = calloc((size_t)nk + 1, sizeof *jobs);
  char (*entry)[200] = calloc((size_t)nk + 1, sizeof *entry);
  if (!jobs || !entry)
    st = fg__ctx_fail(ctx, FG_ENOMEM, "compile: out of memory");
  for (int i = 0; i < nk && st == FG_OK; i++) {
    st = emit_kernel(p, &plan->kernels[i], i, &v->k[i], opt, &jobs[i],
                     entry[i]);
    v->n_k = i + 1;
    if (st == FG_OK)
      plan_host(p, v, i, plan->kernels[i].k);
    v->k[i].red_slot = v->n_slot;
    if (st == FG_OK && fg__reduce_on_host(&v->k[i]))
      v->n_slot += v->k[i].n_red;
  }
  if (st == FG_OK)
    st = fg__be_build_many(ctx->be, jobs, nk);
  for (int i = 0; st == FG_OK && i < nk; i++)
    v->k[i].bin = jobs[i].bin;
  free(jobs);
  free(entry);
  if (st == FG_OK) {
    plan_bands(p, v, plan);
    if (plan_band_private(p, v, plan) != FG_OK)
      st = fg__ctx_fail(ctx, FG_ENOMEM, "compile: out of memory");
  }
  fgf_plan_free(plan);
  if (st == FG_OK && !(v->report = make_report(p, v)))
    st = fg__ctx_fail(ctx, FG_ENOMEM, "compile: out of memory");
  if (st == FG_OK)
    st = fg__plan_tasks(p, v);
  return st;
}

/* The fusion mode asked for, by the options or else $FG_FUSION (as the
 * context read it). */
static fg_status fusion_mode(fg_context *ctx, const fg_compile_options *opt,
                             fg_fusion *mode) {
  *mode = opt ? opt->fusion : FG_FUSION_DEFAULT;
  if ((unsigned)*mode > FG_FUSION_CHECK)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_compile: fusion %d is not one of "
                        "FG_FUSION_DEFAULT, _ON, _OFF, _CHECK", (int)*mode);
  if (*mode == FG_FUSION_DEFAULT) {
    const char *env = ctx->env.fusion;
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
  /* a graph whose only results are what its launches leave in a
   * script's globals (fg_field.sink) has those */
  bool sinks = false;
  for (int i = 0; i < g->fields.n && !sinks; i++)
    sinks = ((fg_field *)g->fields.item[i])->sink != NULL;
  if (g->outputs.n == 0 && !sinks)
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
  ctx->live_programs++;
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
    if (!(p->f[i].name = strdup(f->name)) ||
        !(p->f[i].label = strdup(fg_field_label(f)))) {
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
  /* fields whose value a run leaves in a script's globals are live as
   * outputs are */
  for (int i = 0; i < p->n_fields; i++) {
    fg_field *f = g->fields.item[i];
    if (f->sink && f->producer->kind == FG_NODE_OP) {
      live[i] = true;
      p->f[i].sink = f->sink;
      fg__live_ref(f->sink);
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
  /* refuse what the device cannot run before building anything */
  for (int i = 0; i < g->nodes.n && st == FG_OK; i++) {
    fg__node *n = g->nodes.item[i];
    bool used = false;
    for (int j = 0; j < n->n_out; j++)
      used |= live[n->out[j]->id];
    if (used && n->kind == FG_NODE_OP && n->kernel) {
      fg__needs needs;
      kernel_needs(n->kernel, &needs);
      st = fg__be_check_needs(ctx->be, &needs, n->name);
    }
  }
  for (int i = 0; i < g->nodes.n && st == FG_OK; i++) {
    fg__node *n = g->nodes.item[i];
    if (n->kind == FG_NODE_CONST && live[n->out[0]->id]) {
      fg__pfield *pf = &p->f[n->out[0]->id];
      size_t bytes = fg_type_bytes(pf->type);
      pf->role = PF_CONST;
      st = fg__be_alloc(ctx->be, bytes, &pf->const_buf);
      if (st == FG_OK)
        st = fg__be_upload(ctx->be, pf->const_buf, n->data, bytes);
      if (st == FG_OK && !n->live && (pf->host_data = malloc(bytes + 1)))
        memcpy(pf->host_data, n->data, bytes);
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

