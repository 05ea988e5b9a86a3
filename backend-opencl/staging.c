/* backend-opencl/staging.c - copies between the caller's (pageable) memory
 * and a device that does not share it, through page-locked staging
 * buffers.  A driver copies pageable memory through a small bounce buffer
 * of its own, one piece after another (about 5 GB/s on an H100); from
 * page-locked memory the device's DMA engine reads and writes directly.
 *
 * A transfer is cut into chunks of FGCL_STAGE_CHUNK bytes carried by up to
 * FGCL_STAGE_LANES staging buffers ("slots") in turn, so that the host's
 * copy of one chunk overlaps the device transfers of others (each chunk's
 * copy itself split across a few threads, pcopy.c).  Chunks are
 * chained by events alone, never by event callbacks (a driver may deliver
 * those late, and chunks waiting on them serialize on that latency):
 *  - an upload runs on the thread that starts it: for each chunk it waits
 *    (clWaitForEvents) for its slot's previous write, copies the chunk in
 *    and queues the slot's write; one marker after the last writes is the
 *    upload's event, which what follows waits for on the device;
 *  - a download queues every chunk's read at once, a read reusing a slot
 *    waiting for a user event that says the chunk before it was copied
 *    out; one worker thread waits for each read in order, copies it out,
 *    sets that user event, and reports the end (done) after the last.
 *
 * Staging buffers are CL_MEM_ALLOC_HOST_PTR buffers mapped once (the
 * pinned-memory pattern drivers document), pooled per backend (at most
 * FGCL_STAGE_SLOTS; a transfer finding none free goes through the driver's
 * copy) and unmapped when the backend ends.  A slot goes back to the pool
 * with its last write still in flight (its event kept): whoever takes it
 * next waits for that first. */
#include "config.h"
#include "cl_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A page-locked staging buffer, mapped for its whole life. */
typedef struct stage_slot {
  cl_mem mem;
  unsigned char *host;
  cl_event busy;              /* its last write to the device, or NULL */
} stage_slot;

/* One staged download, from the reads being queued until done. */
typedef struct stage_down {
  struct stage_down *next;    /* the worker's list */
  cl_mem mem;
  unsigned char *host;
  size_t bytes, nchunk;
  size_t nqueued;             /* chunks whose read was queued */
  cl_event *read;             /* nchunk: each chunk's read (NULL: none) */
  cl_event *freed;            /* nchunk: user events, set once the chunk
                                 was copied out (NULL: no read follows) */
  stage_slot *slot[FGCL_STAGE_LANES];
  int nslot;
  cl_int err;                 /* the first failure, CL_SUCCESS if none */
  const char *failed_call;    /* its CL call, or NULL: a command failed */
  fgcl_stage_done_fn done;
  void *arg;
} stage_down;

struct fgcl_stager {
  cl_context ctx;
  cl_command_queue queue;
  pthread_mutex_t lock;
  pthread_cond_t work;        /* a download queued, or quitting */
  stage_slot slots[FGCL_STAGE_SLOTS];
  stage_slot *free_slots[FGCL_STAGE_SLOTS];
  int nslots, nfree;          /* made; free among them */
  stage_down *head, *tail;    /* downloads the worker copies out, in turn */
  fgcl_pcopy *pcopy;          /* the chunks' host copies (pcopy.c) */
  pthread_t worker;
  bool has_worker, quit;
};

fgcl_stager *fgcl_stager_new(cl_context ctx, cl_command_queue queue) {
  fgcl_stager *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->ctx = ctx;
  s->queue = queue;
  if (pthread_mutex_init(&s->lock, NULL)) {
    free(s);
    return NULL;
  }
  if (pthread_cond_init(&s->work, NULL)) {
    pthread_mutex_destroy(&s->lock);
    free(s);
    return NULL;
  }
  return s;
}

void fgcl_stager_free(fgcl_stager *s) {
  if (!s)
    return;
  pthread_mutex_lock(&s->lock);
  s->quit = true;
  pthread_cond_broadcast(&s->work);
  pthread_mutex_unlock(&s->lock);
  if (s->has_worker)
    pthread_join(s->worker, NULL);
  fgcl_pcopy_free(s->pcopy);
  /* every transfer ended before its run did: all slots are free, their
   * last writes perhaps still in flight */
  for (int i = 0; i < s->nslots; i++) {
    if (s->slots[i].busy) {
      clWaitForEvents(1, &s->slots[i].busy);
      clReleaseEvent(s->slots[i].busy);
    }
    clEnqueueUnmapMemObject(s->queue, s->slots[i].mem, s->slots[i].host, 0,
                            NULL, NULL);
  }
  if (s->nslots)
    clFinish(s->queue);
  for (int i = 0; i < s->nslots; i++)
    clReleaseMemObject(s->slots[i].mem);
  pthread_cond_destroy(&s->work);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

/* Makes one more staging buffer; called by the one thread that starts
 * transfers, outside the lock (the map may wait for the device). */
static bool slot_make(fgcl_stager *s, stage_slot *slot) {
  cl_int rc;
  slot->busy = NULL;
  slot->mem = clCreateBuffer(s->ctx, CL_MEM_READ_WRITE |
                                         CL_MEM_ALLOC_HOST_PTR,
                             FGCL_STAGE_CHUNK, NULL, &rc);
  if (rc != CL_SUCCESS)
    return false;
  slot->host = clEnqueueMapBuffer(s->queue, slot->mem, CL_TRUE,
                                  CL_MAP_READ | CL_MAP_WRITE, 0,
                                  FGCL_STAGE_CHUNK, 0, NULL, NULL, &rc);
  if (rc != CL_SUCCESS) {
    clReleaseMemObject(slot->mem);
    return false;
  }
  return true;
}

/* Takes up to want free slots into out, making new ones while the pool is
 * below FGCL_STAGE_SLOTS; returns how many it took. */
static int take_slots(fgcl_stager *s, stage_slot **out, int want) {
  int n = 0;
  pthread_mutex_lock(&s->lock);
  while (n < want && s->nfree > 0)
    out[n++] = s->free_slots[--s->nfree];
  while (n < want && s->nslots < FGCL_STAGE_SLOTS) {
    /* only this thread adds slots: slots[nslots] is ours to fill */
    stage_slot *slot = &s->slots[s->nslots];
    pthread_mutex_unlock(&s->lock);
    bool ok = slot_make(s, slot);
    pthread_mutex_lock(&s->lock);
    if (!ok)
      break;
    s->nslots++;
    out[n++] = slot;
  }
  pthread_mutex_unlock(&s->lock);
  return n;
}

/* Gives n slots back to the pool. */
static void give_slots(fgcl_stager *s, stage_slot **slot, int n) {
  pthread_mutex_lock(&s->lock);
  for (int i = 0; i < n; i++)
    s->free_slots[s->nfree++] = slot[i];
  pthread_mutex_unlock(&s->lock);
}

/* Bytes of chunk k of a bytes-long transfer. */
static size_t chunk_len(size_t bytes, size_t k) {
  size_t off = k * FGCL_STAGE_CHUNK;
  return bytes - off < FGCL_STAGE_CHUNK ? bytes - off : FGCL_STAGE_CHUNK;
}

/* Waits for ev and releases it: its command's status (negative: failed). */
static cl_int wait_release(cl_event ev) {
  cl_int st = CL_COMPLETE;
  cl_int rc = clWaitForEvents(1, &ev);
  if (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                     NULL) != CL_SUCCESS)
    st = rc != CL_SUCCESS ? rc : CL_INVALID_EVENT;
  clReleaseEvent(ev);
  return st < 0 ? st : CL_SUCCESS;
}

/* A wait list of the transfer's events and one more (NULL: none) in buf
 * (nwait + 1 long); returns its length. */
static cl_uint with_one(cl_event *buf, const cl_event *wait, cl_uint nwait,
                        cl_event more) {
  for (cl_uint i = 0; i < nwait; i++)
    buf[i] = wait[i];
  if (more)
    buf[nwait++] = more;
  return nwait;
}

cl_int fgcl_stage_upload(fgcl_stager *s, cl_mem mem, const void *host,
                         size_t bytes, const cl_event *wait, cl_uint nwait,
                         cl_event *ev, const char **call) {
  *ev = NULL;
  *call = NULL;
  if (bytes == 0)
    return FGCL_NOT_STAGED;
  if (!s->pcopy)
    s->pcopy = fgcl_pcopy_new();   /* NULL: copies on this thread alone */
  size_t nchunk = (bytes + FGCL_STAGE_CHUNK - 1) / FGCL_STAGE_CHUNK;
  stage_slot *slot[FGCL_STAGE_LANES];
  int nslot = take_slots(s, slot, nchunk < FGCL_STAGE_LANES
                                      ? (int)nchunk : FGCL_STAGE_LANES);
  if (nslot == 0)
    return FGCL_NOT_STAGED;
  const unsigned char *src = host;
  cl_int err = CL_SUCCESS;
  for (size_t k = 0; k < nchunk && err == CL_SUCCESS; k++) {
    stage_slot *sl = slot[k % (size_t)nslot];
    if (sl->busy) {
      /* its previous write (this transfer's, or one before that already
       * reported its own end) must have read the slot */
      cl_int st = wait_release(sl->busy);
      sl->busy = NULL;
      if (st != CL_SUCCESS && k >= (size_t)nslot) {
        err = st;
        break;
      }
    }
    size_t len = chunk_len(bytes, k);
    fgcl_pcopy_run(s->pcopy, sl->host, src + k * FGCL_STAGE_CHUNK, len);
    err = clEnqueueWriteBuffer(s->queue, mem, CL_FALSE, k * FGCL_STAGE_CHUNK,
                               len, sl->host, nwait, nwait ? wait : NULL,
                               &sl->busy);
    if (err != CL_SUCCESS) {
      sl->busy = NULL;
      *call = "clEnqueueWriteBuffer";
    }
    clFlush(s->queue);
  }
  /* the writes still in flight are the slots' last ones: the earlier
   * ones ended before their slot took its next chunk */
  cl_event last[FGCL_STAGE_LANES];
  cl_uint nlast = 0;
  for (int i = 0; i < nslot; i++)
    if (slot[i]->busy)
      last[nlast++] = slot[i]->busy;
  if (err == CL_SUCCESS) {
    err = clEnqueueMarkerWithWaitList(s->queue, nlast, last, ev);
    if (err != CL_SUCCESS) {
      *ev = NULL;
      *call = "clEnqueueMarkerWithWaitList";
    }
    clFlush(s->queue);
  }
  if (err != CL_SUCCESS)
    /* nothing may stay in flight from a failed upload */
    for (int i = 0; i < nslot; i++)
      if (slot[i]->busy) {
        wait_release(slot[i]->busy);
        slot[i]->busy = NULL;
      }
  give_slots(s, slot, nslot);
  return err;
}

/* Releases a download's events, gives its slots back, frees it and
 * reports (done last: after it the run may end and the backend too). */
static void down_end(fgcl_stager *s, stage_down *d) {
  for (size_t k = 0; k < d->nchunk; k++) {
    if (d->read[k])
      clReleaseEvent(d->read[k]);
    if (d->freed[k])
      clReleaseEvent(d->freed[k]);
  }
  give_slots(s, d->slot, d->nslot);
  fgcl_stage_done_fn done = d->done;
  void *arg = d->arg;
  cl_int err = d->err;
  const char *call = d->failed_call;
  free(d->read);
  free(d->freed);
  free(d);
  done(arg, err, call);
}

/* Copies one download's chunks out as their reads end, in order; every
 * read queued is waited for, failed or not, before the download ends. */
static void down_copy(fgcl_stager *s, stage_down *d) {
  for (size_t k = 0; k < d->nqueued; k++) {
    cl_int st = wait_release(d->read[k]);
    d->read[k] = NULL;
    if (st != CL_SUCCESS && d->err == CL_SUCCESS) {
      d->err = st;
      d->failed_call = NULL;
    }
    if (d->err == CL_SUCCESS)
      fgcl_pcopy_run(s->pcopy, d->host + k * FGCL_STAGE_CHUNK,
                 d->slot[k % (size_t)d->nslot]->host, chunk_len(d->bytes, k));
    if (d->freed[k])
      clSetUserEventStatus(d->freed[k], CL_COMPLETE);
  }
  down_end(s, d);
}

/* The worker: copies queued downloads out, in turn, until the stager
 * ends (every download ended before that). */
static void *worker_main(void *arg) {
  fgcl_stager *s = arg;
  pthread_mutex_lock(&s->lock);
  for (;;) {
    while (!s->head && !s->quit)
      pthread_cond_wait(&s->work, &s->lock);
    stage_down *d = s->head;
    if (!d)
      break;
    s->head = d->next;
    if (!s->head)
      s->tail = NULL;
    pthread_mutex_unlock(&s->lock);
    down_copy(s, d);
    pthread_mutex_lock(&s->lock);
  }
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

cl_int fgcl_stage_download(fgcl_stager *s, cl_mem mem, void *host,
                           size_t bytes, const cl_event *wait, cl_uint nwait,
                           fgcl_stage_done_fn done, void *arg) {
  if (bytes == 0)
    return FGCL_NOT_STAGED;
  if (!s->pcopy)
    s->pcopy = fgcl_pcopy_new();   /* before the worker reads it */
  if (!s->has_worker) {
    if (pthread_create(&s->worker, NULL, worker_main, s) != 0)
      return FGCL_NOT_STAGED;
    s->has_worker = true;
  }
  stage_down *d = calloc(1, sizeof *d);
  cl_event *wl = malloc((nwait + 1) * sizeof *wl);
  if (!d || !wl) {
    free(d);
    free(wl);
    return FGCL_NOT_STAGED;
  }
  d->nchunk = (bytes + FGCL_STAGE_CHUNK - 1) / FGCL_STAGE_CHUNK;
  d->read = calloc(d->nchunk, sizeof *d->read);
  d->freed = calloc(d->nchunk, sizeof *d->freed);
  if (d->read && d->freed)
    d->nslot = take_slots(s, d->slot, d->nchunk < FGCL_STAGE_LANES
                                          ? (int)d->nchunk
                                          : FGCL_STAGE_LANES);
  if (d->nslot == 0) {
    free(d->read);
    free(d->freed);
    free(d);
    free(wl);
    return FGCL_NOT_STAGED;
  }
  d->mem = mem;
  d->host = host;
  d->bytes = bytes;
  d->done = done;
  d->arg = arg;
  size_t ns = (size_t)d->nslot;
  for (size_t k = 0; k < d->nchunk; k++) {
    stage_slot *sl = d->slot[k % ns];
    cl_event after = NULL;
    cl_int rc = CL_SUCCESS;
    if (k < ns) {
      after = sl->busy;        /* a write of an earlier upload reading it */
    } else {
      /* the slot's chunk before this one must have been copied out */
      d->freed[k - ns] = clCreateUserEvent(s->ctx, &rc);
      if (rc != CL_SUCCESS) {
        d->freed[k - ns] = NULL;
        d->err = rc;
        d->failed_call = "clCreateUserEvent";
        break;
      }
      after = d->freed[k - ns];
    }
    cl_uint n = with_one(wl, wait, nwait, after);
    rc = clEnqueueReadBuffer(s->queue, mem, CL_FALSE, k * FGCL_STAGE_CHUNK,
                             chunk_len(bytes, k), sl->host, n, n ? wl : NULL,
                             &d->read[k]);
    if (rc != CL_SUCCESS) {
      d->read[k] = NULL;
      d->err = rc;
      d->failed_call = "clEnqueueReadBuffer";
      break;
    }
    d->nqueued++;
    if (k < ns && sl->busy) {
      clReleaseEvent(sl->busy);   /* the read follows it now */
      sl->busy = NULL;
    }
  }
  clFlush(s->queue);
  free(wl);
  /* the worker copies out what was queued, and reports a failure */
  pthread_mutex_lock(&s->lock);
  if (s->tail)
    s->tail->next = d;
  else
    s->head = d;
  s->tail = d;
  pthread_cond_signal(&s->work);
  pthread_mutex_unlock(&s->lock);
  return CL_SUCCESS;
}
