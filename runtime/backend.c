/* runtime/backend.c - the runtime's side of the backend seam (backend.h):
 * the registry of backend constructors, wrappers for every slot (optional
 * ones handle NULL; all count what they hand out, for the leak check of
 * fg_context_live), and the check of a kernel's needs against the
 * device's capabilities.  Nothing else calls a backend's slots. */
#include "backend.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The message buffer of the job this thread is building, if any. */
static _Thread_local char *tls_err;
static _Thread_local size_t tls_errlen;

char *fg__be_errbuf(fg__backend *be, size_t *len) {
  if (tls_err) {
    *len = tls_errlen;
    return tls_err;
  }
  *len = be->errlen;
  return be->errmsg;
}

void fg__be_errbuf_redirect(char *buf, size_t len) {
  tls_err = buf;
  tls_errlen = buf ? len : 0;
  if (buf && len)
    buf[0] = 0;
}

fg_status fg__be_fail(fg__backend *be, fg_status st, const char *fmt, ...) {
  size_t len;
  char *buf = fg__be_errbuf(be, &len);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, len, fmt, ap);
  va_end(ap);
  return st;
}

/* ---- registry --------------------------------------------------------- */

typedef fg_status (*backend_ctor)(const fg__config *cfg, fg__backend **out,
                                  char *err, size_t errlen);

static const struct {
  fg_backend_kind kind;
  backend_ctor make;
} registry[] = {
  {FG_BACKEND_CPU, fg__cpu_backend_new},
  {FG_BACKEND_OPENCL, fg__opencl_backend_new},
};

fg_status fg__be_new(fg_backend_kind kind, const fg__config *cfg,
                     fg__backend **out, char *err, size_t errlen) {
  *out = NULL;
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
    if (registry[i].kind == kind)
      return registry[i].make(cfg, out, err, errlen);
  snprintf(err, errlen, "backend %d is not built in", (int)kind);
  return FG_ENOTSUP;
}

void fg__be_destroy(fg__backend *be) {
  if (be)
    be->i->destroy(be);
}

const char *fg__be_name(const fg__backend *be) { return be->i->name; }
fgk_dialect fg__be_dialect(const fg__backend *be) { return be->i->dialect; }

/* ---- wrappers --------------------------------------------------------- */

fg_status fg__be_build(fg__backend *be, const char *source,
                       const char *entry, const char *what,
                       const fg_compile_options *opt, fg__kbin **out) {
  fg_status st = be->i->build(be, source, entry, what, opt, out);
  if (st == FG_OK)
    be->live.kernels++;
  return st;
}

void fg__be_kernel_free(fg__backend *be, fg__kbin *k) {
  if (!k)
    return;
  be->live.kernels--;
  be->i->kernel_free(be, k);
}

fg_status fg__be_alloc(fg__backend *be, size_t bytes, fg__buffer **out) {
  fg_status st = be->i->alloc(be, bytes, out);
  if (st == FG_OK)
    be->live.buffers++;
  return st;
}

bool fg__be_can_wrap(const fg__backend *be) { return be->i->wrap != NULL; }

fg_status fg__be_wrap(fg__backend *be, void *host, size_t bytes,
                      fg__buffer **out) {
  *out = NULL;
  if (!be->i->wrap)
    return fg__be_fail(be, FG_ENOTSUP, "the %s backend cannot alias host "
                       "memory", be->i->name);
  fg_status st = be->i->wrap(be, host, bytes, out);
  if (st == FG_OK)
    be->live.buffers++;
  return st;
}

bool fg__be_wraps_inputs(const fg__backend *be) { return be->i->wrap != NULL; }

bool fg__be_shares_host(const fg__backend *be) {
  return !be->i->wrap && be->i->wrap_host && be->host_shared;
}

fg_status fg__be_pin(fg__backend *be, size_t bytes, fg__buffer **out,
                     void **host) {
  *out = NULL;
  *host = NULL;
  if (!be->i->pin || be->host_shared)
    return FG_ENOTSUP;
  fg_status st = be->i->pin(be, bytes, out, host);
  if (st == FG_OK)
    be->live.buffers++;
  return st;
}

fg_status fg__be_wrap_host(fg__backend *be, void *host, size_t bytes,
                           size_t align, bool writes, fg__buffer **out) {
  *out = NULL;
  if (!fg__be_shares_host(be))
    return FG_ENOTSUP;
  fg_status st = be->i->wrap_host(be, host, bytes, align, writes, out);
  if (st == FG_OK)
    be->live.buffers++;
  return st;
}

void fg__be_set_zero_copy(fg__backend *be, bool on) {
  bool could = fg__be_shares_host(be);
  if (!on)
    be->host_shared = false;
  size_t n = strlen(be->device);
  snprintf(be->device + n, sizeof be->device - n, "; %s",
           fg__be_can_wrap(be) || fg__be_shares_host(be)
               ? "zero copy: kernels use run inputs and outputs in place"
           : could ? "zero copy disabled: runs copy inputs and outputs"
                   : "runs copy inputs and outputs to and from the device");
}

void fg__be_buffer_free(fg__backend *be, fg__buffer *b) {
  if (!b)
    return;
  be->live.buffers--;
  be->i->buffer_free(be, b);
}

fg_status fg__be_upload(fg__backend *be, fg__buffer *dst, const void *src,
                        size_t bytes) {
  return be->i->upload(be, dst, src, bytes);
}

/* An event handed out is counted until fg__be_event_release. */
static void count_event(fg__backend *be, const fg__async *a, fg_status st) {
  if (st == FG_OK && a->ev && *a->ev)
    be->live.events++;
}

fg_status fg__be_launch(fg__backend *be, fg__kbin *k, const fg__launch *l,
                        const fg__async *a) {
  fg_status st = be->i->launch(be, k, l, a);
  count_event(be, a, st);
  return st;
}

bool fg__be_can_band(const fg__backend *be) {
  return be->i->launch_band != NULL;
}

fg_status fg__be_launch_band(fg__backend *be, int n, fg__kbin *const *k,
                             const fg__launch *l, const int *reach,
                             const fg__async *a) {
  fg_status st = be->i->launch_band(be, n, k, l, reach, a);
  count_event(be, a, st);
  return st;
}

fg_status fg__be_upload_async(fg__backend *be, fg__buffer *dst,
                              const void *src, size_t bytes,
                              const fg__async *a) {
  fg_status st = be->i->upload_async(be, dst, src, bytes, a);
  count_event(be, a, st);
  return st;
}

fg_status fg__be_download_async(fg__backend *be, fg__buffer *src, void *dst,
                                size_t bytes, const fg__async *a) {
  fg_status st = be->i->download_async(be, src, dst, bytes, a);
  count_event(be, a, st);
  return st;
}

/* A blocking download: download_async, then a wait for its done call
 * (from any thread, or on this one before the call returned). */
typedef struct sync_wait {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool done;
  fg_status st;
  char msg[512];
} sync_wait;

static void sync_done(void *arg, fg_status st, const char *msg) {
  sync_wait *w = arg;
  pthread_mutex_lock(&w->mu);
  w->st = st;
  snprintf(w->msg, sizeof w->msg, "%s", msg ? msg : "the copy failed");
  w->done = true;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

fg_status fg__be_download(fg__backend *be, fg__buffer *src, void *dst,
                          size_t bytes) {
  sync_wait w = {.mu = PTHREAD_MUTEX_INITIALIZER,
                 .cv = PTHREAD_COND_INITIALIZER};
  fg__async a = {0, NULL, NULL, sync_done, &w};
  fg_status st = fg__be_download_async(be, src, dst, bytes, &a);
  if (st != FG_OK)
    return st;
  pthread_mutex_lock(&w.mu);
  while (!w.done)
    pthread_cond_wait(&w.cv, &w.mu);
  pthread_mutex_unlock(&w.mu);
  pthread_mutex_destroy(&w.mu);
  pthread_cond_destroy(&w.cv);
  if (w.st != FG_OK)
    return fg__be_fail(be, w.st, "%s", w.msg);
  return FG_OK;
}

void fg__be_event_release(fg__backend *be, fg__event *ev) {
  if (!ev)
    return;
  be->live.events--;
  if (be->i->event_release)
    be->i->event_release(be, ev);
}

/* ---- capabilities ----------------------------------------------------- */

fg_status fg__be_check_needs(fg__backend *be, const fg__needs *n,
                             const char *what) {
  const fg__caps *c = &be->caps;
  if (n->fp64 && !c->fp64)
    return fg__be_fail(be, FG_ENOTSUP, "operator '%s' uses double precision "
                       "(f64), which %s lacks (capability fp64)", what,
                       be->device);
  if (n->int64_atomics && !c->int64_atomics)
    return fg__be_fail(be, FG_ENOTSUP, "operator '%s' uses atomics on "
                       "64-bit integers, which %s lacks (capability "
                       "int64_atomics)", what, be->device);
  if (n->group_size > c->max_group_size)
    return fg__be_fail(be, FG_ENOTSUP, "operator '%s' asks for work-groups "
                       "of %zu threads; %s runs at most %zu (capability "
                       "max_group_size)", what, n->group_size, be->device,
                       c->max_group_size);
  if (n->buffers > c->max_buffers)
    return fg__be_fail(be, FG_ENOTSUP, "operator '%s' takes %d buffers; %s "
                       "passes at most %d to a kernel (capability "
                       "max_buffers)", what, n->buffers, be->device,
                       c->max_buffers);
  if (n->local_mem > c->local_mem)
    return fg__be_fail(be, FG_ENOTSUP, "operator '%s' uses %llu bytes of "
                       "local memory; %s has %llu (capability local_mem)",
                       what, (unsigned long long)n->local_mem, be->device,
                       (unsigned long long)c->local_mem);
  return FG_OK;
}
