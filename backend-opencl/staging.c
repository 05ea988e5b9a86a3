/* backend-opencl/staging.c - copies between the caller's (pageable) memory
 * and a device that does not share it, through page-locked staging
 * buffers.  A driver copies pageable memory through a small bounce buffer
 * of its own, one piece after another (about 5 GB/s on an H100); from
 * page-locked memory the device's DMA engine reads and writes directly.
 *
 * A transfer is cut into chunks of FGCL_STAGE_CHUNK bytes that move
 * through up to FGCL_STAGE_LANES staging buffers ("lanes") at once: an
 * upload copies chunk k into a lane's buffer on a worker thread and queues
 * its write to the device, and once that write ended the lane takes the
 * next chunk; a download queues a lane's read from the device and copies
 * the chunk out on a worker once it ended.  So the host's copies of some
 * chunks overlap the device transfers of others, and the lanes' copies
 * run on several workers at once (FGCL_STAGE_WORKERS threads).
 *
 * Staging buffers are CL_MEM_ALLOC_HOST_PTR buffers mapped once (the
 * pinned-memory pattern drivers document), pooled per backend (at most
 * FGCL_STAGE_SLOTS; a transfer finding none free falls back to the
 * driver's copy) and unmapped when the backend ends.  Everything is
 * asynchronous: event callbacks (driver threads) hand chunks to the
 * workers, and the transfer's done is called once, from either, after its
 * last chunk.  No event is handed to the runtime, which then starts what
 * follows the transfer when done was called. */
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
} stage_slot;

typedef struct stage_job stage_job;

/* One staging buffer of a transfer and the chunk it carries now. */
typedef struct stage_lane {
  stage_job *job;
  stage_slot *slot;
  size_t chunk;
} stage_lane;

/* One staged transfer. */
struct stage_job {
  fgcl_stager *s;
  cl_mem mem;
  bool up;
  unsigned char *host;
  size_t bytes, nchunk;
  cl_event *wait;             /* retained; every upload chunk's write
                                 follows them, a download's first reads */
  cl_uint nwait;
  stage_lane lane[FGCL_STAGE_LANES];
  int nlane, lanes_live;
  size_t next;                /* the next chunk a lane takes */
  cl_int err;                 /* the first failure, CL_SUCCESS if none */
  const char *failed_call;    /* its CL call, or NULL: a command failed */
  fgcl_stage_done_fn done;
  void *arg;
};

struct fgcl_stager {
  cl_context ctx;
  cl_command_queue queue;
  pthread_mutex_t lock;
  pthread_cond_t work;        /* tasks queued, or quitting */
  stage_slot slots[FGCL_STAGE_SLOTS];
  stage_slot *free_slots[FGCL_STAGE_SLOTS];
  int nslots, nfree;          /* made; free among them */
  /* lanes whose chunk a worker copies next: each lane holds a slot, so
   * there are never more than FGCL_STAGE_SLOTS */
  stage_lane *tasks[FGCL_STAGE_SLOTS];
  int task_head, ntask;
  pthread_t workers[FGCL_STAGE_WORKERS];
  int nworkers;
  bool quit;
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
  for (int i = 0; i < s->nworkers; i++)
    pthread_join(s->workers[i], NULL);
  /* every transfer ended before its run did: all slots are free */
  for (int i = 0; i < s->nslots; i++)
    clEnqueueUnmapMemObject(s->queue, s->slots[i].mem, s->slots[i].host, 0,
                            NULL, NULL);
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

/* Takes up to want free slots into job's lanes, making new ones while the
 * pool is below FGCL_STAGE_SLOTS; returns how many it took. */
static int take_slots(fgcl_stager *s, stage_job *job, int want) {
  int n = 0;
  pthread_mutex_lock(&s->lock);
  while (n < want && s->nfree > 0)
    job->lane[n++].slot = s->free_slots[--s->nfree];
  while (n < want && s->nslots < FGCL_STAGE_SLOTS) {
    /* only this thread adds slots: slots[nslots] is ours to fill */
    stage_slot *slot = &s->slots[s->nslots];
    pthread_mutex_unlock(&s->lock);
    bool ok = slot_make(s, slot);
    pthread_mutex_lock(&s->lock);
    if (!ok)
      break;
    s->nslots++;
    job->lane[n++].slot = slot;
  }
  pthread_mutex_unlock(&s->lock);
  return n;
}

static void *worker_main(void *arg);

/* Starts the workers on the first staged transfer (a backend that never
 * stages has none).  Fewer than asked still work; none is a failure. */
static bool start_workers(fgcl_stager *s) {
  if (s->nworkers > 0)
    return true;
  for (int i = 0; i < FGCL_STAGE_WORKERS; i++)
    if (pthread_create(&s->workers[s->nworkers], NULL, worker_main, s) == 0)
      s->nworkers++;
  return s->nworkers > 0;
}

/* Queues lane for a worker: its chunk is copied next. */
static void push_task(stage_lane *lane) {
  fgcl_stager *s = lane->job->s;
  pthread_mutex_lock(&s->lock);
  s->tasks[(s->task_head + s->ntask) % FGCL_STAGE_SLOTS] = lane;
  s->ntask++;
  pthread_cond_signal(&s->work);
  pthread_mutex_unlock(&s->lock);
}

/* Records job's first failure. */
static void job_fail(stage_job *job, cl_int rc, const char *call) {
  pthread_mutex_lock(&job->s->lock);
  if (job->err == CL_SUCCESS) {
    job->err = rc;
    job->failed_call = call;
  }
  pthread_mutex_unlock(&job->s->lock);
}

/* The lane has nothing left to carry: the last one to end gives the
 * slots back, frees the job and reports (done last: after it the run may
 * end and the backend with it). */
static void lane_end(stage_lane *lane) {
  stage_job *job = lane->job;
  fgcl_stager *s = job->s;
  pthread_mutex_lock(&s->lock);
  bool last = --job->lanes_live == 0;
  if (last)
    for (int i = 0; i < job->nlane; i++)
      s->free_slots[s->nfree++] = job->lane[i].slot;
  pthread_mutex_unlock(&s->lock);
  if (!last)
    return;
  for (cl_uint i = 0; i < job->nwait; i++)
    clReleaseEvent(job->wait[i]);
  free(job->wait);
  fgcl_stage_done_fn done = job->done;
  void *arg = job->arg;
  cl_int err = job->err;
  const char *call = job->failed_call;
  bool up = job->up;
  free(job);
  done(arg, up, err, call);
}

static void CL_CALLBACK on_chunk(cl_event ev, cl_int status, void *user);

/* Queues the device's side of lane's chunk: the write of what the worker
 * copied, or the read into the slot; on_chunk follows it.  first: a
 * download's first reads, which wait for the job's events (later ones
 * follow a read that did). */
static void queue_chunk(stage_lane *lane, bool first) {
  stage_job *job = lane->job;
  fgcl_stager *s = job->s;
  size_t off = lane->chunk * FGCL_STAGE_CHUNK;
  size_t len = job->bytes - off < FGCL_STAGE_CHUNK ? job->bytes - off
                                                   : FGCL_STAGE_CHUNK;
  cl_uint nw = job->up || first ? job->nwait : 0;
  cl_event ev;
  cl_int rc = job->up
                  ? clEnqueueWriteBuffer(s->queue, job->mem, CL_FALSE, off,
                                         len, lane->slot->host, nw,
                                         nw ? job->wait : NULL, &ev)
                  : clEnqueueReadBuffer(s->queue, job->mem, CL_FALSE, off,
                                        len, lane->slot->host, nw,
                                        nw ? job->wait : NULL, &ev);
  if (rc != CL_SUCCESS) {
    job_fail(job, rc, job->up ? "clEnqueueWriteBuffer" :
                                "clEnqueueReadBuffer");
    lane_end(lane);
    return;
  }
  clFlush(s->queue);
  if (clSetEventCallback(ev, CL_COMPLETE, on_chunk, lane) != CL_SUCCESS) {
    /* queued: wait for it here rather than lose it */
    cl_int st = CL_SUCCESS;
    clWaitForEvents(1, &ev);
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                   NULL);
    on_chunk(ev, st, lane);
  }
}

/* Gives lane the job's next chunk, or ends it. */
static void lane_next(stage_lane *lane) {
  stage_job *job = lane->job;
  pthread_mutex_lock(&job->s->lock);
  bool more = job->err == CL_SUCCESS && job->next < job->nchunk;
  if (more)
    lane->chunk = job->next++;
  pthread_mutex_unlock(&job->s->lock);
  if (!more)
    lane_end(lane);
  else if (job->up)
    push_task(lane);
  else
    queue_chunk(lane, false);
}

/* A chunk's device transfer ended (a driver thread): an upload's lane
 * takes the next chunk, a download's chunk goes to a worker. */
static void CL_CALLBACK on_chunk(cl_event ev, cl_int status, void *user) {
  stage_lane *lane = user;
  stage_job *job = lane->job;
  clReleaseEvent(ev);
  if (status < 0) {
    job_fail(job, status, NULL);
    lane_end(lane);
  } else if (job->up) {
    lane_next(lane);
  } else {
    push_task(lane);
  }
}

/* A worker: copies queued chunks between the caller's memory and the
 * slots until the stager ends. */
static void *worker_main(void *arg) {
  fgcl_stager *s = arg;
  pthread_mutex_lock(&s->lock);
  for (;;) {
    while (s->ntask == 0 && !s->quit)
      pthread_cond_wait(&s->work, &s->lock);
    if (s->ntask == 0)
      break;
    stage_lane *lane = s->tasks[s->task_head];
    s->task_head = (s->task_head + 1) % FGCL_STAGE_SLOTS;
    s->ntask--;
    stage_job *job = lane->job;
    bool failed = job->err != CL_SUCCESS;
    pthread_mutex_unlock(&s->lock);
    size_t off = lane->chunk * FGCL_STAGE_CHUNK;
    size_t len = job->bytes - off < FGCL_STAGE_CHUNK ? job->bytes - off
                                                     : FGCL_STAGE_CHUNK;
    if (failed) {
      lane_end(lane);
    } else if (job->up) {
      memcpy(lane->slot->host, job->host + off, len);
      queue_chunk(lane, false);
    } else {
      memcpy(job->host + off, lane->slot->host, len);
      lane_next(lane);
    }
    pthread_mutex_lock(&s->lock);
  }
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

cl_int fgcl_stage(fgcl_stager *s, cl_mem mem, bool to_device, void *host,
                  size_t bytes, const cl_event *wait, cl_uint nwait,
                  fgcl_stage_done_fn done, void *arg) {
  if (bytes == 0 || !start_workers(s))
    return FGCL_NOT_STAGED;
  stage_job *job = calloc(1, sizeof *job);
  if (!job)
    return FGCL_NOT_STAGED;
  job->wait = nwait ? malloc(nwait * sizeof *job->wait) : NULL;
  if (nwait && !job->wait) {
    free(job);
    return FGCL_NOT_STAGED;
  }
  job->s = s;
  job->mem = mem;
  job->up = to_device;
  job->host = host;
  job->bytes = bytes;
  job->nchunk = (bytes + FGCL_STAGE_CHUNK - 1) / FGCL_STAGE_CHUNK;
  job->done = done;
  job->arg = arg;
  int want = job->nchunk < FGCL_STAGE_LANES ? (int)job->nchunk
                                            : FGCL_STAGE_LANES;
  job->nlane = take_slots(s, job, want);
  if (job->nlane == 0) {
    free(job->wait);
    free(job);
    return FGCL_NOT_STAGED;
  }
  for (cl_uint i = 0; i < nwait; i++) {
    clRetainEvent(wait[i]);
    job->wait[i] = wait[i];
  }
  job->nwait = nwait;
  /* every lane has its chunk before any starts: a lane may end the job */
  job->lanes_live = job->nlane;
  for (int i = 0; i < job->nlane; i++) {
    job->lane[i].job = job;
    job->lane[i].chunk = (size_t)i;
  }
  job->next = (size_t)job->nlane;
  int n = job->nlane;
  for (int i = 0; i < n; i++) {
    if (to_device)
      push_task(&job->lane[i]);
    else
      queue_chunk(&job->lane[i], true);
  }
  return CL_SUCCESS;
}
