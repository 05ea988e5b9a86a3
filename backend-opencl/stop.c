/* backend-opencl/stop.c - a run's stop flag for devices that do not see
 * host memory while a kernel runs (discrete GPUs).  A kernel that polls
 * gets a device buffer of its own holding the flag's value at launch; when
 * the run is cancelled (fg_run_cancel, a deadline), a write of 1 into every
 * such buffer of that flag goes through a second queue, which the device
 * runs beside the spinning kernel (a copy engine's write reaches the
 * kernel's volatile loads).  Each buffer is forgotten when its kernel
 * completes. */
#include "config.h"
#include "cl_impl.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

typedef struct stop_entry {
  const int *flag;
  cl_mem mem;
  struct stop_entry *next;
} stop_entry;

struct fgcl_stops {
  cl_context ctx;
  cl_device_id device;
  cl_command_queue control;     /* in order; made at the first signal */
  pthread_mutex_t lock;
  pthread_cond_t idle;          /* signalled when pending drops to 0 */
  int pending;                  /* completion callbacks not yet run */
  stop_entry *head;
};

static const cl_int one = 1;

fgcl_stops *fgcl_stops_new(cl_context ctx, cl_device_id device) {
  fgcl_stops *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->ctx = ctx;
  s->device = device;
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->idle, NULL);
  return s;
}

/* Queues the write of 1 into m (under s->lock). */
static void write_one(fgcl_stops *s, cl_mem m) {
  cl_int rc = CL_SUCCESS;
  if (!s->control)
    s->control = clCreateCommandQueue(s->ctx, s->device, 0, &rc);
  if (!s->control || rc != CL_SUCCESS) {
    s->control = NULL;
    return;
  }
  clEnqueueWriteBuffer(s->control, m, CL_FALSE, 0, sizeof one, &one, 0,
                       NULL, NULL);
  clFlush(s->control);
}

cl_mem fgcl_stops_watch(fgcl_stops *s, const int *flag, size_t bytes,
                        cl_int *rc) {
  cl_mem m = clCreateBuffer(s->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            bytes, (void *)flag, rc);
  if (*rc != CL_SUCCESS)
    return NULL;
  stop_entry *e = malloc(sizeof *e);
  if (!e) {
    clReleaseMemObject(m);
    *rc = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  e->flag = flag;
  e->mem = m;
  clRetainMemObject(m);         /* the entry's reference */
  pthread_mutex_lock(&s->lock);
  e->next = s->head;
  s->head = e;
  /* a cancel between the copy above and the entry's listing */
  if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
    write_one(s, m);
  pthread_mutex_unlock(&s->lock);
  return m;
}

void fgcl_stops_forget(fgcl_stops *s, cl_mem m) {
  pthread_mutex_lock(&s->lock);
  for (stop_entry **pp = &s->head; *pp; pp = &(*pp)->next)
    if ((*pp)->mem == m) {
      stop_entry *e = *pp;
      *pp = e->next;
      clReleaseMemObject(e->mem);
      free(e);
      break;
    }
  pthread_mutex_unlock(&s->lock);
}

typedef struct { fgcl_stops *s; cl_mem m; } forget_arg;

static void CL_CALLBACK on_kernel_end(cl_event ev, cl_int status, void *p) {
  (void)ev;
  (void)status;
  forget_arg *f = p;
  fgcl_stops *s = f->s;
  fgcl_stops_forget(s, f->m);
  free(f);
  /* the last touch of s: fgcl_stops_free waits for it */
  pthread_mutex_lock(&s->lock);
  if (--s->pending == 0)
    pthread_cond_broadcast(&s->idle);
  pthread_mutex_unlock(&s->lock);
}

void fgcl_stops_until(fgcl_stops *s, cl_mem m, cl_event ev) {
  forget_arg *f = malloc(sizeof *f);
  if (!f)
    return;     /* listed until the backend ends: a write to it is harmless */
  f->s = s;
  f->m = m;
  /* counted before the callback can run (the event may be complete) */
  pthread_mutex_lock(&s->lock);
  s->pending++;
  pthread_mutex_unlock(&s->lock);
  if (clSetEventCallback(ev, CL_COMPLETE, on_kernel_end, f) != CL_SUCCESS) {
    free(f);
    pthread_mutex_lock(&s->lock);
    s->pending--;
    pthread_mutex_unlock(&s->lock);
  }
}

void fgcl_stops_signal(fgcl_stops *s, const int *flag) {
  pthread_mutex_lock(&s->lock);
  for (stop_entry *e = s->head; e; e = e->next)
    if (e->flag == flag)
      write_one(s, e->mem);
  pthread_mutex_unlock(&s->lock);
}

void fgcl_stops_free(fgcl_stops *s) {
  if (!s)
    return;
  /* a driver calls completion callbacks on a thread of its own, and may
   * do so after clFinish returned (NVIDIA's does): freeing s under a
   * callback that is still to run crashed runs of polling kernels on an
   * H100.  Wait for them, a bounded while (a kernel the driver never
   * completes must not hang the backend's end). */
  pthread_mutex_lock(&s->lock);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 10;
  while (s->pending > 0 &&
         pthread_cond_timedwait(&s->idle, &s->lock, &until) == 0) {
  }
  bool leak = s->pending > 0;
  pthread_mutex_unlock(&s->lock);
  if (leak)
    return;     /* a callback may still come: s stays, rather than freed */
  if (s->control) {
    clFinish(s->control);
    clReleaseCommandQueue(s->control);
  }
  while (s->head) {
    stop_entry *e = s->head;
    s->head = e->next;
    clReleaseMemObject(e->mem);
    free(e);
  }
  pthread_cond_destroy(&s->idle);
  pthread_mutex_destroy(&s->lock);
  free(s);
}
