/* runtime/run.c - runs of compiled programs, driven by a libuv loop.
 *
 * A run walks its program's task graph (program_impl.h): a task starts
 * when the tasks it needs have ended or, on a chaining backend (OpenCL),
 * when they are queued with an event it can wait on.  Backends report the
 * end of each operation from their own threads through task_done, which
 * queues a node under a mutex and wakes the loop (loop.c); the
 * loop thread applies completions, starts what became ready, begins queued
 * runs while fewer than max_runs are in flight, and calls callbacks.  No
 * thread spins: workers sleep in the pool, the loop in epoll, a blocking
 * wait inside a callback on a condition variable.
 *
 * Every run has its own buffers (a bufset from the program's pool), so
 * runs of one program overlap freely; fg_program_run is start + wait.
 * The queue that carries completions to the loop is in loop.c, the task
 * plan this walks is made by compile.c. */
#include "program_impl.h"
#include "buffer_impl.h"
#include "run_hooks.h"
#include "emit/abi.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TS_WAIT, TS_STARTED, TS_DONE };

typedef struct tstate {
  int state;
  fg__event *ev;            /* a chaining backend's event, else NULL */
  fg__done_node node;
} tstate;

/* One variant's part of a run. */
typedef struct vrun {
  fg__variant *v;
  fg__bufset *bs;
  fg__buffer **view;        /* per field: the buffer kernels use */
  fg__buffer **wrapped;     /* per field: aliases of this run's memory */
  void *const *out;
  tstate *t;
  int n_done;
} vrun;

struct fg_run {
  fg_context *ctx;
  fg_program *prog;
  fg_run *next;             /* ctx's pending queue */
  fg_run *sweep_next;       /* ctx's sweep list */
  fg_run *live_prev, *live_next;   /* prog's runs that have not ended */
  bool in_sweep, begun, done, canceled, user_ref, in_cb;
  fg_run_cb cb;
  void *user;
  const void **in;
  void **out;
  void **check_out;         /* check mode: the unfused outputs */
  void **owned_out;         /* outputs the caller left NULL: the run's */
  size_t *out_bytes;        /* per output (the program may be freed before
                               the run) */
  unsigned char **globals;  /* per field: live constants as the run was
                               started (RenderScript: a set applies to the
                               launches after it) */
  fg_buffer **bin, **bout;  /* a run over buffers: per input and output
                               (fg_program_start_buffers), else NULL; a
                               wrapped one's memory (fg_buffer_wrap) is
                               in r->in / r->out as a host run's */
  void **in_host;           /* a run over buffers: per input, NULL or its
                               value on the host, for the kernels the host
                               evaluates (fetched as the run begins) */
  unsigned char **sunk;     /* per field: a sink field's value at the run's
                               end, left in its sink when the run ends
                               well (fg_field.sink) */
  int n_var;
  int n_in, n_out, n_fields;
  vrun vr[2];
  int in_flight;            /* device operations started, not ended */
  int fail_kernel;          /* run_hooks.h, -1 when none */
  int *stop;                /* kernels poll it (emit/abi.h): set once,
                               atomically, by fg_run_cancel or the
                               deadline; its own aligned block, which an
                               OpenCL device reads in place */
  uv_timer_t *deadline;     /* NULL, or the timer that ends the run */
  unsigned timeout_ms;
  fg_status status;
  char errmsg[4096];
};

static fg_status run_fail(fg_run *r, fg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static fg_status run_fail(fg_run *r, fg_status st, const char *fmt, ...) {
  if (r->status == FG_OK) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->errmsg, sizeof r->errmsg, fmt, ap);
    va_end(ap);
    r->status = st;
  }
  return st;
}

/* ---- completions from device threads ------------------------------------ */

static void sweep_add(fg_context *ctx, fg_run *r) {
  if (r->in_sweep)
    return;
  r->in_sweep = true;
  r->sweep_next = ctx->sweep;
  ctx->sweep = r;
}

/* The backend's done callback: carries the result to the loop (loop.c). */
static void task_done(void *arg, fg_status st, const char *msg) {
  fg__done_node *n = arg;
  n->t_end = fgu_now();
  n->st = st;
  n->msg = msg ? strdup(msg) : NULL;
  if (pthread_equal(pthread_self(), n->starter) && n->starting) {
    n->inline_done = true;       /* start_task applies it on return */
    return;
  }
  fg__loop_post(n->run->ctx, n);
}

/* Applies completion n on the loop thread. */
static void apply_done(fg_context *ctx, fg__done_node *n) {
  fg_run *r = n->run;
  vrun *vr = &r->vr[n->var];
  vr->t[n->task].state = TS_DONE;
  vr->n_done++;
  const fg__rtask *t = &vr->v->task[n->task];
  if (t->kind == RT_KERNEL || t->kind == RT_HOST) {
    vr->v->k[t->index].prof_seconds += n->t_end - n->t_start;
    vr->v->k[t->index].prof_launches++;
  }
  r->in_flight--;
  if (n->st != FG_OK)
    run_fail(r, n->st, "%s", n->msg ? n->msg : fg_status_str(n->st));
  free(n->msg);
  n->msg = NULL;
  sweep_add(ctx, r);
}


/* The wake handle keeps the loop alive only while there is work. */
static void update_ref(fg_context *ctx) {
  fg__loop_keep_alive(ctx, ctx->active || ctx->pending_head || ctx->sweep);
}

/* ---- buffers of a run ----------------------------------------------------- */

static void bufset_free(fg__backend *be, fg_program *p, fg__variant *v,
                        fg__bufset *bs) {
  for (int i = 0; bs->buf && i < p->n_fields; i++)
    if (bs->buf[i])
      fg__be_buffer_free(be, bs->buf[i]);
  for (int i = 0; bs->partials && i < v->n_slot; i++)
    if (bs->partials[i])
      fg__be_buffer_free(be, bs->partials[i]);
  for (int i = 0; bs->host && i < v->n_slot; i++)
    free(bs->host[i]);
  for (int i = 0; bs->hown && i < p->n_fields; i++)
    free(bs->hown[i]);
  free(bs->hval);
  free(bs->hown);
  free(bs->buf);
  free(bs->partials);
  free(bs->host);
  free(bs);
}


/* Whether a run of v keeps field f in a buffer of its own: intermediates,
 * live constants, and inputs and outputs that do not alias the caller's
 * memory. */
static bool needs_buffer(const fg_program *p, const fg__variant *v, int f) {
  const fg__pfield *pf = &p->f[f];
  return (pf->role == PF_OP && v->materialized[f] &&
          !fg__direct_field(p, v, f)) ||
         (pf->role == PF_INPUT && !fg__be_wraps_inputs(p->ctx->be)) ||
         (pf->role == PF_CONST && pf->live);
}

/* The output whose memory kernels may write field f in, one run at a time
 * (fg__be_shares_host: the device works on the host's memory), or -1: the
 * first output that is f, when kernels on the device make f.  Outputs
 * never overlap inputs or each other (fg__check_run_args), so the alias
 * is the only buffer over that memory.  A second output that is f is
 * copied from it (its download follows the alias's, compile.c). */
static int aliased_output(const fg_program *p, const fg__variant *v, int f) {
  if (!fg__be_shares_host(p->ctx->be) || p->f[f].role != PF_OP ||
      !v->materialized[f] || v->on_host[f])
    return -1;
  for (int i = 0; i < p->n_out; i++)
    if (p->out_field[i] == f)
      return i;
  return -1;
}

/* Whether input i of run r is read from a device buffer of its own. */
static bool device_input(const fg_run *r, int i) {
  return r->bin && r->bin[i]->mem;
}

/* Whether a run over buffers has kernels write output i straight into its
 * device buffer (a result of the device's, the first output that is it);
 * the other outputs come to the host and go up to their buffers as the
 * run ends (a wrapped buffer's memory is the output's, as a host run's). */
static bool bound_output(const fg_run *r, const vrun *vr, int i) {
  const fg_program *p = r->prog;
  const fg__variant *v = vr->v;
  int f = p->out_field[i];
  if (!r->bout || vr != &r->vr[0] || !r->bout[i]->mem)
    return false;
  if (v->direct[i])
    return true;
  if (p->f[f].role != PF_OP || !v->materialized[f] || v->on_host[f])
    return false;
  for (int j = 0; j < i; j++)
    if (p->out_field[j] == f)
      return false;
  return true;
}

/* Whether field f of variant v is one a run over buffers may take from
 * its buffers (the main variant's inputs, and its outputs the device
 * makes): its pooled buffer is allocated when a run first needs it, so
 * runs over buffers alone never make it. */
static bool may_bind(const fg_program *p, const fg__variant *v, int f) {
  const fg__pfield *pf = &p->f[f];
  if (v != &p->main)
    return false;
  if (pf->role == PF_INPUT)
    return true;
  if (pf->role != PF_OP || !v->materialized[f] || v->on_host[f])
    return false;
  for (int i = 0; i < p->n_out; i++)
    if (p->out_field[i] == f)
      return true;
  return false;
}

/* Whether run r's variant vr takes field f from a device buffer. */
static bool field_bound(const fg_run *r, const vrun *vr, int f) {
  const fg_program *p = r->prog;
  if (p->f[f].role == PF_INPUT)
    return device_input(r, p->f[f].input);
  for (int i = 0; i < p->n_out; i++)
    if (p->out_field[i] == f && bound_output(r, vr, i))
      return true;
  return false;
}

static fg_status bufset_new(fg_program *p, fg__variant *v, fg__bufset **out) {
  fg__backend *be = p->ctx->be;
  fg__bufset *bs = calloc(1, sizeof *bs);
  fg_status st = FG_OK;
  if (!bs || !(bs->buf = calloc((size_t)p->n_fields + 1, sizeof *bs->buf)) ||
      !(bs->partials = calloc((size_t)v->n_slot + 1,
                              sizeof *bs->partials)) ||
      !(bs->host = calloc((size_t)v->n_slot + 1, sizeof *bs->host)) ||
      !(bs->hval = calloc((size_t)p->n_fields + 1, sizeof *bs->hval)) ||
      !(bs->hown = calloc((size_t)p->n_fields + 1, sizeof *bs->hown))) {
    st = fg__ctx_fail(p->ctx, FG_ENOMEM, "out of memory");
    goto fail;
  }
  /* what a run may alias, or take from its buffers, is allocated when a
   * run first copies it */
  for (int i = 0; i < p->n_fields && st == FG_OK; i++)
    if (needs_buffer(p, v, i) && aliased_output(p, v, i) < 0 &&
        !(p->f[i].role == PF_INPUT && fg__be_shares_host(be)) &&
        !may_bind(p, v, i))
      st = fg__be_alloc(be, fg_type_bytes(p->f[i].type), &bs->buf[i]);
  for (int k = 0; k < v->n_k && st == FG_OK; k++) {
    const fg__pkernel *pk = &v->k[k];
    for (int r = 0; fg__reduce_on_host(pk) && r < pk->n_red && st == FG_OK;
         r++) {
      size_t pb, rb;
      int slot = pk->red_slot + r;
      fg__reduce_bytes(p, pk, r, &pb, &rb);
      st = fg__be_alloc(be, pb, &bs->partials[slot]);
      if (st == FG_OK && !(bs->host[slot] = malloc(pb + rb)))
        st = fg__ctx_fail(p->ctx, FG_ENOMEM, "out of memory");
      if (st == FG_OK)
        bs->hval[pk->field[pk->n_in + pk->red[r].port]] = bs->host[slot] + pb;
    }
    for (int j = pk->n_in; pk->host && j < pk->nbuf && st == FG_OK; j++) {
      int f = pk->field[j];
      if (!(bs->hval[f] = bs->hown[f] =
                calloc(1, fg_type_bytes(p->f[f].type) + 1)))
        st = fg__ctx_fail(p->ctx, FG_ENOMEM, "out of memory");
    }
  }
  if (st == FG_OK) {
    *out = bs;
    return FG_OK;
  }
fail:
  if (bs)
    bufset_free(be, p, v, bs);
  return st;
}

/* Gives run r's variant vr its buffers: pooled ones, constants, and
 * aliases of the caller's memory where the backend can. */
static fg_status vrun_setup(fg_run *r, vrun *vr) {
  fg_program *p = r->prog;
  fg__backend *be = p->ctx->be;
  fg__variant *v = vr->v;
  fg_status st = FG_OK;
  if (v->free_sets) {
    vr->bs = v->free_sets;
    v->free_sets = vr->bs->next;
  } else if ((st = bufset_new(p, v, &vr->bs)) != FG_OK) {
    return st;
  }
  for (int i = 0; i < p->n_fields && st == FG_OK; i++) {
    const fg__pfield *pf = &p->f[i];
    size_t bytes = fg_type_bytes(pf->type);
    size_t align = fg_elem_size(pf->type.elem);
    /* a run over buffers writes the main variant's outputs there */
    int o = aliased_output(p, v, i);
    if (o >= 0 && bound_output(r, vr, o))
      o = -1;
    vr->view[i] = vr->bs->buf[i];
    if (pf->role == PF_INPUT && device_input(r, pf->input)) {
      vr->view[i] = r->bin[pf->input]->mem;
    } else if (pf->role == PF_CONST && !pf->live) {
      vr->view[i] = pf->const_buf;
    } else if (pf->role == PF_INPUT && fg__be_wraps_inputs(be)) {
      st = fg__be_wrap(be, (void *)r->in[pf->input], bytes, &vr->wrapped[i]);
      vr->view[i] = vr->wrapped[i];
    } else if (pf->role == PF_INPUT || o >= 0) {
      /* zero copy where the pointer allows it, else a copy (FG_ENOTSUP) */
      bool in = pf->role == PF_INPUT;
      st = fg__be_wrap_host(be, in ? (void *)r->in[pf->input] : vr->out[o],
                            bytes, align, !in, &vr->wrapped[i]);
      if (st == FG_ENOTSUP)
        st = vr->bs->buf[i] ? FG_OK
                            : fg__be_alloc(be, bytes, &vr->bs->buf[i]);
      vr->view[i] = vr->wrapped[i] ? vr->wrapped[i] : vr->bs->buf[i];
    } else if (needs_buffer(p, v, i) && may_bind(p, v, i) &&
               !field_bound(r, vr, i)) {
      /* an output the device makes, into the pool's buffer this time */
      if (!vr->bs->buf[i])
        st = fg__be_alloc(be, bytes, &vr->bs->buf[i]);
      vr->view[i] = vr->bs->buf[i];
    }
  }
  for (int i = 0; i < p->n_out && st == FG_OK; i++) {
    int f = p->out_field[i];
    if (bound_output(r, vr, i)) {
      vr->view[f] = r->bout[i]->mem;
    } else if (v->direct[i]) {
      st = fg__be_wrap(be, vr->out[i], fg_type_bytes(p->f[f].type),
                       &vr->wrapped[f]);
      vr->view[f] = vr->wrapped[f];
    }
  }
  /* what the run uses in place and what it copies (fg_context_stats; the
   * program's own variant, not check mode's unfused one) */
  fg_context_stats *cs = &p->ctx->stats;
  for (int i = 0; vr == &r->vr[0] && i < p->n_in && st == FG_OK; i++)
    *(vr->wrapped[p->in_field[i]] || device_input(r, i) ? &cs->in_place
                                                          : &cs->copied) += 1;
  for (int i = 0; vr == &r->vr[0] && i < p->n_out && st == FG_OK; i++) {
    int f = p->out_field[i];
    if (v->direct[i] || bound_output(r, vr, i) ||
        (vr->wrapped[f] && aliased_output(p, v, f) == i))
      cs->in_place++;
    else if (!v->on_host[f])
      cs->copied++;
  }
  return st;
}

static void vrun_release(fg_run *r, vrun *vr) {
  fg_program *p = r->prog;
  fg__backend *be = p->ctx->be;
  for (int i = 0; vr->t && i < vr->v->n_task; i++)
    if (vr->t[i].ev)
      fg__be_event_release(be, vr->t[i].ev);
  for (int i = 0; vr->wrapped && i < p->n_fields; i++)
    if (vr->wrapped[i])
      fg__be_buffer_free(be, vr->wrapped[i]);
  if (vr->bs) {
    vr->bs->next = vr->v->free_sets;
    vr->v->free_sets = vr->bs;
    vr->bs = NULL;
  }
  free(vr->t);
  free(vr->view);
  free(vr->wrapped);
  vr->t = NULL;
  vr->view = vr->wrapped = NULL;
}

/* ---- starting tasks ------------------------------------------------------- */

static bool ready(const fg_run *r, const vrun *vr, const fg__rtask *t) {
  /* host work needs its inputs there, not merely queued */
  bool chains = r->ctx->be->chains && t->kind != RT_COMBINE &&
                t->kind != RT_HOST;
  for (int d = 0; d < t->n_dep; d++) {
    const tstate *s = &vr->t[t->dep[d]];
    if (s->state != TS_DONE && !(chains && s->state == TS_STARTED && s->ev))
      return false;
  }
  return true;
}

/* Copies field f's host value into every graph output that is f (the
 * variant's outputs: the caller's memory, or check mode's). */
static void copy_outputs(fg_run *r, vrun *vr, int f) {
  const fg_program *p = r->prog;
  for (int i = 0; i < p->n_out; i++)
    if (p->out_field[i] == f)
      memcpy(vr->out[i], vr->bs->hval[f], fg_type_bytes(p->f[f].type));
}

/* The launch of kernel k in run variant vr, over bufs (room for
 * FG_MAX_KERNEL_BUFFERS + 1). */
static void launch_of(const fg_run *r, const vrun *vr, const fg__pkernel *k,
                      fg__buffer **bufs, fg__launch *l) {
  assert(k->nbuf <= FG_MAX_KERNEL_BUFFERS);
  for (int j = 0; j < k->nbuf; j++)
    bufs[j] = vr->view[k->field[j]];
  for (int j = 0; fg__reduce_on_host(k) && j < k->n_red; j++)
    bufs[k->n_in + k->red[j].port] = vr->bs->partials[k->red_slot + j];
  *l = (fg__launch){.kind = k->kind, .nbuf = k->nbuf, .bufs = bufs,
                    .dims = k->dims, .partials = k->partials,
                    .work_per_item = k->work_per_item, .zero = k->zero,
                    .copy_from = k->copy_from,
                    .band_private = k->band_private,
                    .stop = r->stop, .polls = k->polls,
                    .strip = k->strip, .strip_rows = k->strip_rows};
  memcpy(l->threads, k->threads, sizeof l->threads);
  memcpy(l->group, k->group, sizeof l->group);
}

/* Launches the chain of kernels that kernel last ends (plan_bands), in
 * row bands. */
static fg_status launch_chain(fg_run *r, vrun *vr, int last,
                              const fg__async *a) {
  const fg__pkernel *k = &vr->v->k[last];
  int n = k->band_len;
  assert(n >= 2 && n <= FG_BAND_STAGES && last - n + 1 >= 0);
  fg__buffer *bufs[FG_BAND_STAGES][FG_MAX_KERNEL_BUFFERS + 1];
  fg__launch l[FG_BAND_STAGES];
  fg__kbin *bin[FG_BAND_STAGES];
  int reach[FG_BAND_STAGES];
  for (int s = 0; s < n; s++) {
    const fg__pkernel *ks = &vr->v->k[last - n + 1 + s];
    launch_of(r, vr, ks, bufs[s], &l[s]);
    bin[s] = ks->bin;
    reach[s] = s ? ks->band_reach : 0;
  }
  return fg__be_launch_band(r->ctx->be, n, bin, l, reach, a);
}

static void start_task(fg_run *r, vrun *vr, int ti) {
  fg_program *p = r->prog;
  fg_context *ctx = p->ctx;
  fg__backend *be = ctx->be;
  const fg__rtask *t = &vr->v->task[ti];
  tstate *ts = &vr->t[ti];
  fg__event *wait[FG_MAX_WAIT];
  int n_wait = 0;
  for (int d = 0; d < t->n_dep && n_wait < FG_MAX_WAIT; d++)
    if (vr->t[t->dep[d]].state == TS_STARTED && vr->t[t->dep[d]].ev)
      wait[n_wait++] = vr->t[t->dep[d]].ev;
  fg__async a = {n_wait, wait, be->chains ? &ts->ev : NULL, task_done,
                 &ts->node};
  ts->state = TS_STARTED;
  r->in_flight++;
  ts->node.starter = pthread_self();
  ts->node.starting = true;
  ts->node.t_start = fgu_now();
  ts->node.inline_done = false;
  fg_status st = FG_OK;
  const fg__pkernel *k = t->kind == RT_UPLOAD || t->kind == RT_DOWNLOAD ||
                             t->kind == RT_GLOBALS || t->kind == RT_SINK ||
                             t->kind == RT_HOST_UP
                         ? NULL : &vr->v->k[t->index];
  size_t pb = 0, rb = 0;
  int slot = -1;          /* RT_PARTIALS, _COMBINE, _RESULT: the reduction */
  if (k && fg__reduce_on_host(k) && t->kind != RT_KERNEL) {
    slot = k->red_slot + t->sub;
    fg__reduce_bytes(p, k, t->sub, &pb, &rb);
  }
  switch (t->kind) {
  case RT_UPLOAD: {
    int f = p->in_field[t->index];
    if (vr->wrapped[f] || device_input(r, t->index)) {  /* in place */
      task_done(&ts->node, FG_OK, NULL);
      break;
    }
    st = fg__be_upload_async(be, vr->view[f], r->in[t->index],
                             fg_type_bytes(p->f[f].type), &a);
    break;
  }
  case RT_GLOBALS: {
    int f = t->index;
    st = fg__be_upload_async(be, vr->view[f], r->globals[f],
                             fg_type_bytes(p->f[f].type), &a);
    break;
  }
  case RT_KERNEL: {
    if (r->fail_kernel == t->index && vr == &r->vr[0]) {
      task_done(&ts->node, FG_EBACKEND, ctx->inject_msg);
      break;
    }
    if (k->band_member) {
      /* the last kernel of its chain launches it, with itself */
      task_done(&ts->node, FG_OK, NULL);
      break;
    }
    if (k->band_len) {
      st = launch_chain(r, vr, t->index, &a);
      break;
    }
    fg__buffer *bufs[FG_MAX_KERNEL_BUFFERS + 1];
    fg__launch l;
    launch_of(r, vr, k, bufs, &l);
    st = fg__be_launch(be, k->bin, &l, &a);
    break;
  }
  case RT_PARTIALS:
    st = fg__be_download_async(be, vr->bs->partials[slot],
                               vr->bs->host[slot], pb, &a);
    break;
  case RT_COMBINE: {
    if (k->loc_of[t->sub] >= 0) {
      /* a first point's index: after its value's combine (compile.c) */
      size_t vpb, vrb;
      const unsigned char *vh = vr->bs->host[k->red_slot + k->loc_of[t->sub]];
      fg__reduce_bytes(p, k, k->loc_of[t->sub], &vpb, &vrb);
      fg__reduce_combine_loc(p, k, t->sub, vh, vh + vpb, vr->bs->host[slot],
                             vr->bs->host[slot] + pb);
    } else {
      fg__reduce_combine(p, k, t->sub, vr->bs->host[slot],
                         vr->bs->host[slot] + pb);
    }
    copy_outputs(r, vr, k->field[k->n_in + k->red[t->sub].port]);
    ts->node.starting = false;
    r->in_flight--;
    ts->state = TS_DONE;
    vr->n_done++;
    return;
  }
  case RT_HOST: {
    if (r->fail_kernel == t->index && vr == &r->vr[0]) {
      task_done(&ts->node, FG_EBACKEND, ctx->inject_msg);
      break;
    }
    const void *in[FG_MAX_KERNEL_BUFFERS + 1];
    void *out[FG_MAX_KERNEL_BUFFERS + 1];
    assert(k->nbuf <= FG_MAX_KERNEL_BUFFERS);
    for (int j = 0; j < k->n_in; j++) {
      const fg__pfield *pf = &p->f[k->field[j]];
      in[j] = pf->role == PF_INPUT ? (device_input(r, pf->input)
                                          ? r->in_host[pf->input]
                                          : r->in[pf->input])
              : pf->role == PF_CONST ? pf->host_data
                                     : vr->bs->hval[k->field[j]];
    }
    for (int j = k->n_in; j < k->nbuf; j++)
      out[j - k->n_in] = vr->bs->hval[k->field[j]];
    fg__host_run(k->host, in, out);
    for (int j = k->n_in; j < k->nbuf; j++)
      copy_outputs(r, vr, k->field[j]);
    task_done(&ts->node, FG_OK, NULL);
    break;
  }
  case RT_HOST_UP: {
    int f = t->index;
    st = fg__be_upload_async(be, vr->view[f], vr->bs->hval[f],
                             fg_type_bytes(p->f[f].type), &a);
    break;
  }
  case RT_RESULT:
    st = fg__be_upload_async(be,
                             vr->view[k->field[k->n_in + k->red[t->sub].port]],
                             vr->bs->host[slot] + pb, rb, &a);
    break;
  case RT_SINK: {
    int f = t->index;
    st = fg__be_download_async(be, vr->view[f], r->sunk[f],
                               fg_type_bytes(p->f[f].type), &a);
    break;
  }
  case RT_DOWNLOAD: {
    int f = p->out_field[t->index];
    if (!vr->out[t->index]) {  /* kernels wrote it in its buffer */
      task_done(&ts->node, FG_OK, NULL);
      break;
    }
    st = fg__be_download_async(be, vr->view[f], vr->out[t->index],
                               fg_type_bytes(p->f[f].type), &a);
    break;
  }
  }
  ts->node.starting = false;
  if (st != FG_OK) {
    r->in_flight--;
    ts->state = TS_DONE;
    vr->n_done++;
    run_fail(r, st, "%s", ctx->errmsg);
  } else if (ts->node.inline_done) {
    apply_done(ctx, &ts->node);
  }
}

/* Starts every task of r that can start. */
static void advance(fg_run *r) {
  if (!r->begun || r->done)
    return;
  for (int var = 0; var < r->n_var; var++) {
    vrun *vr = &r->vr[var];
    for (int i = 0; i < vr->v->n_task; i++) {
      if (r->status != FG_OK || r->canceled)
        return;
      if (vr->t[i].state == TS_WAIT && ready(r, vr, &vr->v->task[i]))
        start_task(r, vr, i);
    }
  }
}

static bool complete(const fg_run *r) {
  if (r->done)
    return false;
  if (!r->begun)
    return r->canceled;
  if (r->in_flight > 0)
    return false;
  if (r->status != FG_OK || r->canceled)
    return true;
  for (int var = 0; var < r->n_var; var++)
    if (r->vr[var].n_done < r->vr[var].v->n_task)
      return false;
  return true;
}

/* ---- runs over buffers ------------------------------------------------------ */

/* Whether a kernel the host evaluates (in either variant) reads field f. */
static bool host_reads(const fg_program *p, int f) {
  const fg__variant *vs[2] = {&p->main, p->check.k ? &p->check : NULL};
  for (int n = 0; n < 2 && vs[n]; n++)
    for (int k = 0; k < vs[n]->n_k; k++)
      for (int j = 0; vs[n]->k[k].host && j < vs[n]->k[k].n_in; j++)
        if (vs[n]->k[k].field[j] == f)
          return true;
  return false;
}

/* A run over buffers that begins: the inputs the host computes with come
 * to the host (a blocking copy, a 0-D value as a rule), and its buffers
 * count it as a reader or writer (pump). */
static fg_status begin_buffers(fg_run *r) {
  fg_program *p = r->prog;
  for (int i = 0; i < p->n_in; i++)
    r->bin[i]->readers++;
  for (int i = 0; i < p->n_out; i++)
    r->bout[i]->writers++;
  for (int i = 0; i < p->n_in; i++) {
    if (!device_input(r, i) || !host_reads(p, p->in_field[i]))
      continue;
    size_t bytes = r->bin[i]->bytes;
    if (!(r->in_host[i] = malloc(bytes + 1)))
      return run_fail(r, FG_ENOMEM, "input '%s': out of memory",
                      p->in_name[i]);
    if (fg__be_download(p->ctx->be, r->bin[i]->mem, r->in_host[i], bytes))
      return run_fail(r, FG_EBACKEND, "input '%s': %s", p->in_name[i],
                      p->ctx->errmsg);
  }
  return FG_OK;
}

/* Whether r must wait before it begins: a run begun before it writes one
 * of its buffers, or reads or writes one r writes. */
static bool buffers_busy(const fg_run *r) {
  for (int i = 0; r->bout && i < r->prog->n_in; i++)
    if (r->bin[i]->writers)
      return true;
  for (int i = 0; r->bout && i < r->prog->n_out; i++)
    if (r->bout[i]->writers || r->bout[i]->readers)
      return true;
  return false;
}

/* A run over buffers that ends well: the outputs that came to the host go
 * up to their device buffers. */
static void store_outputs(fg_run *r) {
  fg_program *p = r->prog;
  for (int i = 0; r->status == FG_OK && i < p->n_out; i++)
    if (r->out[i] && r->bout[i]->mem &&
        fg__be_upload(p->ctx->be, r->bout[i]->mem, r->out[i],
                      r->out_bytes[i]) != FG_OK)
      run_fail(r, FG_EBACKEND, "output '%s': %s", p->out_name[i],
               p->ctx->errmsg);
}

/* A run over buffers that ends: its buffers no longer count it. */
static void end_buffers(fg_run *r) {
  for (int i = 0; i < r->n_in; i++) {
    r->bin[i]->uses--;
    r->bin[i]->readers -= r->begun;
  }
  for (int i = 0; i < r->n_out; i++) {
    r->bout[i]->uses--;
    r->bout[i]->writers -= r->begun;
  }
}

/* Begins a run taken from the pending queue: buffers, then its first
 * tasks. */
static void begin(fg_run *r) {
  fg_context *ctx = r->ctx;
  r->begun = true;
  ctx->active++;
  if (r->bout)
    begin_buffers(r);
  for (int var = 0; var < r->n_var && r->status == FG_OK; var++) {
    vrun *vr = &r->vr[var];
    fg_status st = vrun_setup(r, vr);
    if (st != FG_OK)
      run_fail(r, st, "%s", ctx->errmsg);
  }
  advance(r);
  sweep_add(ctx, r);
}

static void pump(fg_context *ctx) {
  while (ctx->active < ctx->max_runs && ctx->pending_head) {
    fg_run *r = ctx->pending_head;
    if (buffers_busy(r))
      break;          /* begins when the runs before it let go */
    if (!(ctx->pending_head = r->next))
      ctx->pending_tail = NULL;
    r->next = NULL;
    begin(r);
  }
}

static void close_deadline(fg_run *r);

static void run_destroy(fg_run *r) {
  r->ctx->live_runs--;
  close_deadline(r);
  free(r->stop);
  for (int var = 0; var < 2; var++) {
    free(r->vr[var].t);
    free(r->vr[var].view);
    free(r->vr[var].wrapped);
  }
  for (int i = 0; r->check_out && i < r->n_out; i++)
    free(r->check_out[i]);
  for (int i = 0; r->owned_out && i < r->n_out; i++)
    free(r->owned_out[i]);
  free(r->check_out);
  free(r->owned_out);
  free(r->out_bytes);
  for (int i = 0; r->globals && i < r->n_fields; i++)
    free(r->globals[i]);
  free(r->globals);
  for (int i = 0; r->sunk && i < r->n_fields; i++)
    free(r->sunk[i]);
  free(r->sunk);
  for (int i = 0; r->in_host && i < r->n_in; i++)
    free(r->in_host[i]);
  free(r->in_host);
  free(r->bin);
  free(r->bout);
  free(r->in);
  free(r->out);
  fg_context *ctx = r->ctx;
  free(r);
  fg__ctx_release(ctx);
}

/* Check mode: the fused and unfused outputs must agree byte for byte. */
static void compare_outputs(fg_run *r) {
  fg_program *p = r->prog;
  for (int i = 0; i < p->n_out; i++) {
    size_t n = fg_type_bytes(p->f[p->out_field[i]].type);
    const unsigned char *a = r->out[i], *b = r->check_out[i];
    unsigned char *fetched = NULL;      /* a device buffer's: from there */
    if (r->bout && r->bout[i]->mem) {
      if (!(fetched = malloc(n + 1))) {
        run_fail(r, FG_ENOMEM, "fusion check: out of memory");
        return;
      }
      if (fg__be_download(p->ctx->be, r->bout[i]->mem, fetched, n)) {
        run_fail(r, FG_EBACKEND, "fusion check: output '%s': %s",
                 p->out_name[i], p->ctx->errmsg);
        free(fetched);
        return;
      }
      a = fetched;
    }
    for (size_t j = 0; j < n; j++)
      if (a[j] != b[j]) {
        run_fail(r, FG_EBACKEND, "fusion check: output '%s' differs between "
                 "the fused and unfused programs at byte %zu of %zu (fused "
                 "%u, unfused %u)", p->out_name[i], j, n, a[j], b[j]);
        break;
      }
    free(fetched);
    if (r->status != FG_OK)
      return;
  }
}

/* Ends a run: releases its buffers, calls its callback, frees it unless
 * the caller holds a handle. */
static void finish(fg_run *r) {
  fg_context *ctx = r->ctx;
  fg_program *p = r->prog;
  if (r->status == FG_OK && r->canceled)
    run_fail(r, FG_ECANCELED, "run of program with output '%s' canceled",
             p->n_out ? p->out_name[0] : "?");
  if (r->status == FG_OK && r->bout)
    store_outputs(r);
  if (r->status == FG_OK && r->n_var == 2)
    compare_outputs(r);
  /* what the run's launches left in a script's globals; in field order,
   * so the last launch's copy is the one left */
  for (int f = 0; r->status == FG_OK && r->sunk && f < r->n_fields; f++)
    if (r->sunk[f] && p->f[f].sink) {
      size_t bytes = fg_type_bytes(p->f[f].type);
      memcpy(p->f[f].sink->bytes, r->sunk[f],
             p->f[f].sink->size < bytes ? p->f[f].sink->size : bytes);
    }
  for (int var = 0; var < r->n_var; var++)
    vrun_release(r, &r->vr[var]);
  close_deadline(r);
  if (r->bout)
    end_buffers(r);
  if (r->begun)
    ctx->active--;
  if (r->live_prev)
    r->live_prev->live_next = r->live_next;
  else
    p->live = r->live_next;
  if (r->live_next)
    r->live_next->live_prev = r->live_prev;
  p->runs--;
  if (r->status == FG_OK)
    ctx->stats.runs++;
  r->done = true;
  if (r->cb) {
    r->in_cb = true;
    r->cb(r, r->status, r->user);
    r->in_cb = false;
  }
  if (!r->user_ref)
    run_destroy(r);
}

/* Applies the completions that arrived, begins queued runs and ends the
 * runs that are complete, until nothing changes.  Runs on the loop thread;
 * callbacks may start, cancel and wait, so every list is re-read after
 * each step. */
void fg__ctx_process(fg_context *ctx) {
  ctx->depth++;
  for (;;) {
    fg__done_node *n = fg__loop_take(ctx);
    while (n) {
      fg__done_node *next = n->next;
      apply_done(ctx, n);
      n = next;
    }
    pump(ctx);
    if (!ctx->sweep)
      break;
    while (ctx->sweep) {
      fg_run *r = ctx->sweep;
      ctx->sweep = r->sweep_next;
      r->in_sweep = false;
      advance(r);
      /* a completion applied while advancing put r back on the list:
       * it is looked at again there, never freed while listed */
      if (!r->in_sweep && complete(r))
        finish(r);
    }
  }
  ctx->depth--;
  update_ref(ctx);
}

/* ---- deadlines -------------------------------------------------------------
 * A run with a deadline owns a libuv timer on the context's loop; when it
 * fires before the run ended, the run fails with FG_ETIMEDOUT and is
 * cancelled (its kernels see the stop flag and return). */

static void free_timer(uv_handle_t *h) { free(h); }

/* Stops and closes r's timer, if any; the loop frees it later and never
 * touches r again. */
static void close_deadline(fg_run *r) {
  if (!r->deadline)
    return;
  uv_timer_stop(r->deadline);
  uv_close((uv_handle_t *)r->deadline, free_timer);
  r->deadline = NULL;
  r->ctx->live_handles--;
}

static void on_deadline(uv_timer_t *h) {
  fg_run *r = h->data;
  if (r->done || r->canceled)   /* a cancelled run ends FG_ECANCELED */
    return;
  run_fail(r, FG_ETIMEDOUT, "run of program with output '%s' passed its "
           "deadline of %u ms", r->n_out ? r->prog->out_name[0] : "?",
           r->timeout_ms);
  fg_run_cancel(r);
}

/* Ends r ms milliseconds from now unless it ended before: FG_OK, or
 * FG_ENOMEM (r unchanged but for an old deadline, which is replaced). */
static fg_status set_deadline(fg_run *r, unsigned ms) {
  close_deadline(r);
  r->timeout_ms = ms;
  if (ms == 0)
    return FG_OK;
  uv_timer_t *t = malloc(sizeof *t);
  if (!t || uv_timer_init(r->ctx->loop, t) != 0) {
    free(t);
    return FG_ENOMEM;
  }
  t->data = r;
  r->deadline = t;
  r->ctx->live_handles++;
  /* libuv times timers from the loop's cached clock, which stood still
   * while the loop did not run (the caller compiling, say): from now */
  uv_update_time(r->ctx->loop);
  uv_timer_start(t, on_deadline, ms, 0);
  return FG_OK;
}

static bool run_ended(const void *r) { return ((const fg_run *)r)->done; }
static bool ctx_idle(const void *c) {
  const fg_context *ctx = c;
  return !ctx->active && !ctx->pending_head && !ctx->sweep;
}
static bool program_idle(const void *p) {
  return ((const fg_program *)p)->runs == 0;
}

/* ---- the public calls ----------------------------------------------------- */

static bool overlaps(const void *a, size_t na, const void *b, size_t nb) {
  const char *pa = a, *pb = b;
  return na && nb && pa < pb + nb && pb < pa + na;
}

fg_status fg__check_run_args(fg_program *p, const char *fn, int n_in,
                             const void *const *in, int n_out,
                             void *const *out, bool null_out_ok) {
  fg_context *ctx = p->ctx;
  if (n_in != p->n_in || n_out != p->n_out)
    return fg__ctx_fail(ctx, FG_EINVAL, "%s: got %d input(s) and %d "
                        "output(s), the program has %d and %d", fn, n_in,
                        n_out, p->n_in, p->n_out);
  if ((p->n_in && !in) || (p->n_out && !out && !null_out_ok))
    return fg__ctx_fail(ctx, FG_EINVAL, "%s: %s array is NULL", fn,
                        !out && p->n_out ? "outputs" : "inputs");
  if (!out)
    return FG_OK;
  for (int i = 0; i < p->n_in; i++)
    if (!in[i])
      return fg__ctx_fail(ctx, FG_EINVAL, "%s: input %d ('%s') is NULL", fn,
                          i, p->in_name[i]);
  for (int i = 0; i < p->n_out; i++) {
    size_t ni = fg_type_bytes(p->f[p->out_field[i]].type);
    if (!out[i] && null_out_ok)
      continue;
    if (!out[i])
      return fg__ctx_fail(ctx, FG_EINVAL, "%s: output %d ('%s') is NULL",
                          fn, i, p->out_name[i]);
    for (int j = 0; j < p->n_in; j++)
      if (overlaps(out[i], ni, in[j],
                   fg_type_bytes(p->f[p->in_field[j]].type)))
        return fg__ctx_fail(ctx, FG_EINVAL, "%s: memory of output '%s' "
                            "overlaps input '%s'", fn, p->out_name[i],
                            p->in_name[j]);
    for (int j = 0; j < i; j++)
      if (overlaps(out[i], ni, out[j],
                   fg_type_bytes(p->f[p->out_field[j]].type)))
        return fg__ctx_fail(ctx, FG_EINVAL, "%s: memory of output '%s' "
                            "overlaps output '%s'", fn, p->out_name[i],
                            p->out_name[j]);
  }
  return FG_OK;
}

/* fg__check_run_args for a run over buffers. */
static fg_status check_buffer_args(fg_program *p, const char *fn, int n_in,
                                   fg_buffer *const *in, int n_out,
                                   fg_buffer *const *out) {
  fg_context *ctx = p->ctx;
  if (n_in != p->n_in || n_out != p->n_out)
    return fg__ctx_fail(ctx, FG_EINVAL, "%s: got %d input(s) and %d "
                        "output(s), the program has %d and %d", fn, n_in,
                        n_out, p->n_in, p->n_out);
  if ((p->n_in && !in) || (p->n_out && !out))
    return fg__ctx_fail(ctx, FG_EINVAL, "%s: %s array is NULL", fn,
                        !out && p->n_out ? "outputs" : "inputs");
  for (int i = 0; i < n_in + n_out; i++) {
    bool is_in = i < n_in;
    int k = is_in ? i : i - n_in;
    fg_buffer *b = is_in ? in[k] : out[k];
    const char *what = is_in ? "input" : "output";
    const char *name = is_in ? p->in_name[k] : p->out_name[k];
    fg_type t = p->f[is_in ? p->in_field[k] : p->out_field[k]].type;
    char want[FG_TYPE_STR_MAX], got[FG_TYPE_STR_MAX];
    if (!b)
      return fg__ctx_fail(ctx, FG_EINVAL, "%s: %s %d ('%s') is NULL", fn,
                          what, k, name);
    if (b->ctx != ctx)
      return fg__ctx_fail(ctx, FG_EINVAL, "%s: the buffer of %s '%s' "
                          "belongs to another context", fn, what, name);
    if (!fg_type_equal(b->type, t))
      return fg__ctx_fail(ctx, FG_EINVAL, "%s: %s '%s' is %s, its buffer "
                          "holds %s", fn, what, name,
                          fg_type_str(t, want, sizeof want),
                          fg_type_str(b->type, got, sizeof got));
    for (int j = 0; !is_in && j < n_in; j++)
      if (in[j] == b)
        return fg__ctx_fail(ctx, FG_EINVAL, "%s: output '%s' and input "
                            "'%s' are the same buffer", fn, name,
                            p->in_name[j]);
    for (int j = 0; !is_in && j < k; j++)
      if (out[j] == b)
        return fg__ctx_fail(ctx, FG_EINVAL, "%s: outputs '%s' and '%s' are "
                            "the same buffer", fn, p->out_name[j], name);
    /* wrapped memory: as fg_program_run's, outputs overlap nothing */
    for (int j = 0; !is_in && b->host && j < n_in + k; j++) {
      const fg_buffer *o = j < n_in ? in[j] : out[j - n_in];
      if (o->host && overlaps(b->host, b->bytes, o->host, o->bytes))
        return fg__ctx_fail(ctx, FG_EINVAL, "%s: the memory of output '%s' "
                            "overlaps %s '%s'", fn, name,
                            j < n_in ? "input" : "output",
                            j < n_in ? p->in_name[j]
                                     : p->out_name[j - n_in]);
    }
  }
  return FG_OK;
}

static fg_status vrun_alloc(fg_run *r, int var, fg__variant *v, void **out) {
  vrun *vr = &r->vr[var];
  fg_program *p = r->prog;
  vr->v = v;
  vr->out = out;
  vr->t = calloc((size_t)v->n_task + 1, sizeof *vr->t);
  vr->view = calloc((size_t)p->n_fields + 1, sizeof *vr->view);
  vr->wrapped = calloc((size_t)p->n_fields + 1, sizeof *vr->wrapped);
  if (!vr->t || !vr->view || !vr->wrapped)
    return FG_ENOMEM;
  for (int i = 0; i < v->n_task; i++) {
    vr->t[i].node.run = r;
    vr->t[i].node.var = var;
    vr->t[i].node.task = i;
  }
  return FG_OK;
}

/* The run's arguments: host memory (in, out), or buffers (bin, bout). */
typedef struct run_args {
  const void *const *in;
  void *const *out;
  fg_buffer *const *bin, *const *bout;
  bool buffers;
} run_args;

static fg_status start(fg_program *p, const char *fn, int n_in, int n_out,
                       const run_args *args, fg_run_cb cb, void *user,
                       fg_run **res) {
  fg_context *ctx = p->ctx;
  bool null_out_ok = !strcmp(fn, "fg_program_start");
  bool bufs = args->buffers;
  const void *const *in = args->in;
  void *const *out = args->out;
  fg_status st =
      bufs ? check_buffer_args(p, fn, n_in, args->bin, n_out, args->bout)
           : fg__check_run_args(p, fn, n_in, in, n_out, out, null_out_ok);
  if (st != FG_OK)
    return st;
  fg_run *r = calloc(1, sizeof *r);
  if (!r)
    return fg__ctx_fail(ctx, FG_ENOMEM, "%s: out of memory", fn);
  r->ctx = ctx;
  ctx->live_runs++;
  r->prog = p;
  r->cb = cb;
  r->user = user;
  r->fail_kernel = -1;
  r->n_var = p->check.k ? 2 : 1;
  r->stop = aligned_alloc(FGE_STOP_ALIGN, FGE_STOP_ALIGN);
  if (r->stop)
    *r->stop = 0;
  r->n_in = p->n_in;
  r->n_out = p->n_out;
  r->n_fields = p->n_fields;
  r->in = calloc((size_t)p->n_in + 1, sizeof *r->in);
  r->out = calloc((size_t)p->n_out + 1, sizeof *r->out);
  r->out_bytes = calloc((size_t)p->n_out + 1, sizeof *r->out_bytes);
  if (r->n_var == 2)
    r->check_out = calloc((size_t)p->n_out + 1, sizeof *r->check_out);
  st = r->in && r->out && r->out_bytes && r->stop &&
               (r->n_var == 1 || r->check_out)
           ? FG_OK : FG_ENOMEM;
  for (int i = 0; st == FG_OK && i < p->n_out; i++)
    r->out_bytes[i] = fg_type_bytes(p->f[p->out_field[i]].type);
  if (bufs && st == FG_OK) {
    r->bin = calloc((size_t)p->n_in + 1, sizeof *r->bin);
    r->bout = calloc((size_t)p->n_out + 1, sizeof *r->bout);
    r->in_host = calloc((size_t)p->n_in + 1, sizeof *r->in_host);
    if (!r->bin || !r->bout || !r->in_host)
      st = FG_ENOMEM;
    for (int i = 0; st == FG_OK && i < p->n_in; i++) {
      r->bin[i] = args->bin[i];
      r->in[i] = r->bin[i]->host;      /* NULL for a device buffer */
    }
    for (int i = 0; st == FG_OK && i < p->n_out; i++)
      r->bout[i] = args->bout[i];
    r->vr[0].v = &p->main;       /* what bound_output asks */
  }
  for (int i = 0; !bufs && i < p->n_in; i++)
    r->in[i] = in[i];
  for (int i = 0; i < p->n_out && st == FG_OK; i++) {
    r->out[i] = out ? out[i] : bufs ? r->bout[i]->host : NULL;
    if (bufs && bound_output(r, &r->vr[0], i))
      ;                          /* kernels write its buffer */
    else if (!r->out[i]) {
      /* the run keeps this output: fg_run_output / fg_run_get read it */
      if (!r->owned_out &&
          !(r->owned_out = calloc((size_t)p->n_out, sizeof *r->owned_out))) {
        st = FG_ENOMEM;
        break;
      }
      r->out[i] = r->owned_out[i] =
          malloc(fg_type_bytes(p->f[p->out_field[i]].type) + 1);
      if (!r->out[i]) {
        st = FG_ENOMEM;
        break;
      }
    }
    if (r->check_out &&
        !(r->check_out[i] = malloc(fg_type_bytes(p->f[p->out_field[i]].type)
                                   + 1)))
      st = FG_ENOMEM;
  }
  for (int f = 0; st == FG_OK && f < p->n_fields; f++) {
    const fg__pfield *pf = &p->f[f];
    if (pf->role != PF_CONST || !pf->live)
      continue;
    size_t bytes = fg_type_bytes(pf->type);
    if ((!r->globals &&
         !(r->globals = calloc((size_t)p->n_fields, sizeof *r->globals))) ||
        !(r->globals[f] = calloc(1, bytes + 1))) {
      st = FG_ENOMEM;
      break;
    }
    memcpy(r->globals[f], pf->live->bytes,
           pf->live->size < bytes ? pf->live->size : bytes);
  }
  for (int f = 0; st == FG_OK && f < p->n_fields; f++) {
    if (!p->f[f].sink || !p->main.materialized[f])
      continue;
    if ((!r->sunk &&
         !(r->sunk = calloc((size_t)p->n_fields, sizeof *r->sunk))) ||
        !(r->sunk[f] = malloc(fg_type_bytes(p->f[f].type) + 1)))
      st = FG_ENOMEM;
  }
  if (st == FG_OK)
    st = vrun_alloc(r, 0, &p->main, r->out);
  if (st == FG_OK && r->n_var == 2)
    st = vrun_alloc(r, 1, &p->check, r->check_out);
  if (st != FG_OK) {
    run_destroy(r);
    return fg__ctx_fail(ctx, FG_ENOMEM, "%s: out of memory", fn);
  }
  if (ctx->run_timeout_ms &&
      (st = set_deadline(r, ctx->run_timeout_ms)) != FG_OK) {
    run_destroy(r);
    return fg__ctx_fail(ctx, st, "%s: cannot start the run's deadline "
                        "timer", fn);
  }
  if (ctx->inject_kernel >= 0 && ctx->runs_started == ctx->inject_run) {
    r->fail_kernel = ctx->inject_kernel;
    ctx->inject_kernel = -1;
  }
  ctx->runs_started++;
  for (int i = 0; bufs && i < p->n_in; i++)
    r->bin[i]->uses++;
  for (int i = 0; bufs && i < p->n_out; i++)
    r->bout[i]->uses++;
  r->live_next = p->live;
  if (p->live)
    p->live->live_prev = r;
  p->live = r;
  p->runs++;
  if (ctx->pending_tail)
    ctx->pending_tail->next = r;
  else
    ctx->pending_head = r;
  ctx->pending_tail = r;
  if (res) {
    r->user_ref = true;
    *res = r;
  }
  /* work starts now; callbacks only ever come from the loop.  A blocking
   * run is finished by its own wait on this thread, so it needs no wake:
   * a run that completed while starting ends without a thread hop. */
  pump(ctx);
  update_ref(ctx);
  if (cb || !res || strncmp(fn, "fg_program_run", 14))
    fg__loop_wake(ctx);
  return FG_OK;
}

fg_status fg_program_start(fg_program *p, int n_in, const void *const *in,
                           int n_out, void *const *out, fg_run_cb cb,
                           void *user, fg_run **res) {
  if (res)
    *res = NULL;
  if (!p)
    return FG_EINVAL;
  run_args args = {.in = in, .out = out};
  return start(p, "fg_program_start", n_in, n_out, &args, cb, user, res);
}

fg_status fg_program_start_buffers(fg_program *p, int n_in,
                                   fg_buffer *const *in, int n_out,
                                   fg_buffer *const *out, fg_run_cb cb,
                                   void *user, fg_run **res) {
  if (res)
    *res = NULL;
  if (!p)
    return FG_EINVAL;
  run_args args = {.bin = in, .bout = out, .buffers = true};
  return start(p, "fg_program_start_buffers", n_in, n_out, &args, cb, user,
               res);
}

/* Starts a run and waits for it; its failure's message goes to the
 * context too. */
static fg_status run_blocking(fg_program *p, const char *fn, int n_in,
                              int n_out, const run_args *args) {
  fg_run *r;
  fg_status st = start(p, fn, n_in, n_out, args, NULL, NULL, &r);
  if (st != FG_OK)
    return st;
  st = fg_run_wait(r);
  if (st != FG_OK)
    fg__ctx_fail(p->ctx, st, "%s", r->errmsg);
  fg_run_free(r);
  return st;
}

fg_status fg_program_run_buffers(fg_program *p, int n_in,
                                 fg_buffer *const *in, int n_out,
                                 fg_buffer *const *out) {
  if (!p)
    return FG_EINVAL;
  run_args args = {.bin = in, .bout = out, .buffers = true};
  return run_blocking(p, "fg_program_run_buffers", n_in, n_out, &args);
}

fg_status fg_program_run(fg_program *p, int n_in, const void *const *in,
                         int n_out, void *const *out) {
  if (!p)
    return FG_EINVAL;
  run_args args = {.in = in, .out = out};
  return run_blocking(p, "fg_program_run", n_in, n_out, &args);
}

fg_status fg_run_wait(fg_run *r) {
  if (!r)
    return FG_EINVAL;
  fg__loop_wait_until(r->ctx, run_ended, r);
  return r->status;
}

void fg_run_cancel(fg_run *r) {
  if (!r || r->done || r->canceled)
    return;
  fg_context *ctx = r->ctx;
  r->canceled = true;
  __atomic_store_n(r->stop, 1, __ATOMIC_RELEASE);  /* kernels return */
  if (ctx->be->i->stop)
    ctx->be->i->stop(ctx->be, r->stop);
  if (!r->begun) {
    fg_run **pp = &ctx->pending_head, *prev = NULL;
    while (*pp && *pp != r) {
      prev = *pp;
      pp = &(*pp)->next;
    }
    if (*pp) {
      *pp = r->next;
      if (ctx->pending_tail == r)
        ctx->pending_tail = prev;
      r->next = NULL;
    }
  }
  sweep_add(ctx, r);
  update_ref(ctx);
  fg__loop_wake(ctx);
}

fg_status fg_run_set_timeout(fg_run *r, unsigned ms) {
  if (!r)
    return FG_EINVAL;
  if (r->done)
    return fg__ctx_fail(r->ctx, FG_ESTATE, "fg_run_set_timeout: the run "
                        "has ended");
  if (set_deadline(r, ms) != FG_OK)
    return fg__ctx_fail(r->ctx, FG_ENOMEM, "fg_run_set_timeout: cannot "
                        "start a timer");
  return FG_OK;
}

bool fg_run_done(const fg_run *r) { return r && r->done; }

fg_status fg_run_status(const fg_run *r) {
  if (!r)
    return FG_EINVAL;
  return r->done ? r->status : FG_ESTATE;
}

const char *fg_run_errmsg(const fg_run *r) {
  if (!r)
    return "run is NULL";
  return r->done ? r->errmsg : "";
}

const void *fg_run_output(const fg_run *r, int i) {
  if (!r || !r->done || r->status != FG_OK || i < 0 || i >= r->n_out ||
      r->bout)
    return NULL;
  return r->out[i];
}

fg_status fg_run_get(fg_run *r, int i, void *dst, size_t size) {
  if (!r)
    return FG_EINVAL;
  fg_context *ctx = r->ctx;
  if (i < 0 || i >= r->n_out)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_run_get: output %d does not "
                        "exist (the program has %d)", i, r->n_out);
  if (r->bout)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_run_get: output %d of a run "
                        "over buffers is in its buffer (fg_buffer_read)", i);
  size_t bytes = r->out_bytes[i];
  if (!dst || size != bytes)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_run_get: output %d holds %zu "
                        "bytes, got %s of %zu", i, bytes,
                        dst ? "room" : "NULL", size);
  fg_status st = fg_run_wait(r);
  if (st != FG_OK)
    return fg__ctx_fail(ctx, st, "%s", r->errmsg);
  memcpy(dst, r->out[i], bytes);
  return FG_OK;
}

void fg_run_free(fg_run *r) {
  if (!r)
    return;
  r->user_ref = false;
  if (r->done && !r->in_cb)
    run_destroy(r);
}

fg_status fg_context_wait(fg_context *ctx) {
  if (!ctx)
    return FG_EINVAL;
  fg__loop_wait_until(ctx, ctx_idle, ctx);
  return FG_OK;
}

struct uv_loop_s *fg_context_loop(fg_context *ctx) {
  return ctx ? ctx->loop : NULL;
}

fg_status fg_context_set_max_runs(fg_context *ctx, int n) {
  if (!ctx)
    return FG_EINVAL;
  if (n < 1)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_context_set_max_runs: n is %d "
                        "(expected at least 1)", n);
  ctx->max_runs = n;
  pump(ctx);
  update_ref(ctx);
  fg__loop_wake(ctx);
  return FG_OK;
}

void fg__context_fail_kernel(fg_context *ctx, int nth, int kernel,
                             const char *msg) {
  ctx->inject_run = ctx->runs_started + (uint64_t)(nth < 0 ? 0 : nth);
  ctx->inject_kernel = kernel;
  snprintf(ctx->inject_msg, sizeof ctx->inject_msg, "%s",
           msg ? msg : "injected failure");
}

/* ---- programs and contexts ------------------------------------------------- */

void fg__program_drain(fg_program *p) {
  for (fg_run *r = p->live; r; r = r->live_next)
    fg_run_cancel(r);
  fg__loop_wait_until(p->ctx, program_idle, p);
}

bool fg__direct_field(const fg_program *p, const fg__variant *v, int f) {
  for (int i = 0; i < p->n_out; i++)
    if (v->direct[i] && p->out_field[i] == f)
      return true;
  return false;
}

void fg__variant_free_runtime(fg_program *p, fg__variant *v) {
  fg__backend *be = p->ctx->be;
  while (v->free_sets) {
    fg__bufset *bs = v->free_sets;
    v->free_sets = bs->next;
    bufset_free(be, p, v, bs);
  }
  for (int i = 0; v->task && i < v->n_task; i++)
    free(v->task[i].dep);
  free(v->task);
  free(v->direct);
  free(v->on_host);
  v->task = NULL;
  v->direct = NULL;
  v->on_host = NULL;
}

