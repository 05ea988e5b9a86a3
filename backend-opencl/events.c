/* backend-opencl/events.c - how the end of each queued operation reaches
 * the runtime: the driver's completion callback and, beside it, a thread
 * of the backend that waits for the operations' events in the order they
 * were queued (clWaitForEvents); whichever learns of the end first
 * reports it, once.  NVIDIA's driver calls completion callbacks on a
 * thread of its own well after the command ended (a kernel-only run on an
 * H100 took 20.0 ms whatever its kernels did), while its waits return as
 * the command ends.  The callback alone reports when the waiting thread
 * is off (FG_CAP_EVENT_WAIT) and for whatever the thread has not reached
 * yet (it waits in order: an endless kernel holds it until cancelled). */
#include "cl_impl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* One operation whose end is still to be reported. */
typedef struct cl_pending {
  struct cl_pending *next;    /* the waiting thread's queue */
  atomic_int refs;            /* the callback's, the thread's */
  atomic_bool reported;
  fg__done_fn done;
  void *arg;
  cl_event ev;                /* the enqueue's reference, held to the end */
  char what[200];             /* "kernel 'x'" or the copy, for messages */
  char device[160];
} cl_pending;

struct fgcl_events {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  cl_pending *head, *tail;
  bool started, stop;
  pthread_t thread;
};

/* Reports p's end with the command's status, unless reported already. */
static void report(cl_pending *p, cl_int status) {
  if (atomic_exchange(&p->reported, true))
    return;
  if (status < 0) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s: execution failed: %s (%d) on %s",
             p->what, fgcl_error_name(status), (int)status, p->device);
    p->done(p->arg, fgcl_status(status), msg);
  } else {
    p->done(p->arg, FG_OK, NULL);
  }
}

static void drop(cl_pending *p) {
  if (atomic_fetch_sub(&p->refs, 1) == 1) {
    clReleaseEvent(p->ev);
    free(p);
  }
}

atomic_int fgcl_test_callback_delay_us;

/* Called by the OpenCL runtime, on its own thread, when the command ended. */
static void CL_CALLBACK on_complete(cl_event ev, cl_int status, void *user) {
  (void)ev;
  int late = atomic_load(&fgcl_test_callback_delay_us);
  if (late > 0) {
    struct timespec t = {late / 1000000, late % 1000000 * 1000L};
    nanosleep(&t, NULL);
  }
  report(user, status);
  drop(user);
}

static void *wait_in_order(void *arg) {
  fgcl_events *w = arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->head && !w->stop)
      pthread_cond_wait(&w->cv, &w->mu);
    cl_pending *p = w->head;
    if (!p)
      break;
    if (!(w->head = p->next))
      w->tail = NULL;
    pthread_mutex_unlock(&w->mu);
    cl_int st = CL_QUEUED;
    if (!atomic_load(&p->reported)) {
      clWaitForEvents(1, &p->ev);
      if (clGetEventInfo(p->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st,
                         &st, NULL) == CL_SUCCESS &&
          (st == CL_COMPLETE || st < 0))
        report(p, st);
    }
    drop(p);
    pthread_mutex_lock(&w->mu);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

fgcl_events *fgcl_events_new(void) {
  fgcl_events *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  return w;
}

void fgcl_events_free(fgcl_events *w) {
  if (!w)
    return;
  pthread_mutex_lock(&w->mu);
  w->stop = true;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
  if (w->started)
    pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->cv);
  pthread_mutex_destroy(&w->mu);
  free(w);
}

/* Hands p to the waiting thread (started on first use); false when the
 * thread cannot start (the callback reports alone). */
static bool wait_later(fgcl_events *w, cl_pending *p) {
  bool ok = true;
  pthread_mutex_lock(&w->mu);
  if (!w->started)
    ok = w->started = !pthread_create(&w->thread, NULL, wait_in_order, w);
  if (ok) {
    atomic_fetch_add(&p->refs, 1);
    p->next = NULL;
    if (w->tail)
      w->tail->next = p;
    else
      w->head = p;
    w->tail = p;
    pthread_cond_signal(&w->cv);
  }
  pthread_mutex_unlock(&w->mu);
  return ok;
}

fg_status fgcl_events_watch(fgcl_events *w, fg__backend *be,
                            cl_command_queue queue, const char *device,
                            cl_event ev, const fg__async *a,
                            const char *what) {
  cl_pending *p = calloc(1, sizeof *p);
  if (!p) {
    clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
    return fg__be_fail(be, FG_ENOMEM, "%s: out of memory", what);
  }
  atomic_init(&p->refs, 1);
  atomic_init(&p->reported, false);
  p->done = a->done;
  p->arg = a->arg;
  p->ev = ev;
  snprintf(p->what, sizeof p->what, "%s", what);
  snprintf(p->device, sizeof p->device, "%s", device);
  if (a->ev) {
    clRetainEvent(ev);          /* one reference for the runtime */
    *a->ev = (fg__event *)ev;
  }
  if (w)
    wait_later(w, p);
  cl_int rc = clSetEventCallback(ev, CL_COMPLETE, on_complete, p);
  if (rc != CL_SUCCESS) {
    /* the command is queued: wait for it here rather than lose it */
    cl_int st = CL_SUCCESS;
    clWaitForEvents(1, &ev);
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                   NULL);
    on_complete(ev, st, p);
  }
  clFlush(queue);
  return FG_OK;
}
