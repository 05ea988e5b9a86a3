/* backend-cpu/pool.c - worker threads for the CPU backend's tiles.  Jobs
 * wait in a FIFO; workers sleep on a condition variable while it is empty
 * (nothing spins), claim one task at a time under the lock (tasks are
 * tiles, a few per thread, so the lock is cold) and the worker that
 * finishes a job's last task calls its done function.  Each worker has
 * scratch memory of its own (fgp_scratch, fgp_ring). */
#include "pool.h"
#include "ring.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct job {
  struct job *next;
  fgp_task_fn fn;
  void *arg;
  fgp_done_fn done;
  void *done_arg;
  int64_t n, claimed, finished;
} job;

typedef struct scratch {
  void *p;
  size_t bytes;
  fgr_ring ring[FGP_RINGS];
} scratch;

struct fgp_pool {
  pthread_mutex_t mu;
  pthread_cond_t wake;
  pthread_t *threads;
  scratch *scratch;        /* one per worker */
  int nworkers;
  int started;             /* workers that took their scratch slot */
  bool stop;
  job *head, *tail;        /* jobs with unclaimed tasks */
};

/* the calling worker's scratch, NULL on other threads */
static __thread scratch *my_scratch;

void *fgp_scratch(size_t bytes) {
  scratch *s = my_scratch;
  if (!s)
    return NULL;
  if (s->bytes < bytes) {
    size_t want = (bytes + 4095) & ~(size_t)4095;
    void *n = want >= bytes ? aligned_alloc(64, want) : NULL;
    if (!n)
      return NULL;
    free(s->p);
    s->p = n;
    s->bytes = want;
  }
  return s->p;
}

static bool rings_off;      /* fgp_test_rings */

void fgp_test_rings(bool on) {
  __atomic_store_n(&rings_off, !on, __ATOMIC_RELAXED);
}

void *fgp_ring(int i, size_t bytes, size_t *size) {
  scratch *s = my_scratch;
  if (!s || i < 0 || i >= FGP_RINGS ||
      __atomic_load_n(&rings_off, __ATOMIC_RELAXED))
    return NULL;
  fgr_ring *r = &s->ring[i];
  if (r->size < bytes && !fgr_ring_map(r, bytes))
    return NULL;
  *size = r->size;
  return r->base;
}

static void *worker(void *arg) {
  fgp_pool *p = arg;
  pthread_mutex_lock(&p->mu);
  my_scratch = &p->scratch[p->started++];
  for (;;) {
    while (!p->head && !p->stop)
      pthread_cond_wait(&p->wake, &p->mu);
    job *j = p->head;
    if (!j)
      break;                        /* stopping and nothing queued */
    int64_t t = j->claimed++;
    if (j->claimed == j->n && !(p->head = j->next))
      p->tail = NULL;
    pthread_mutex_unlock(&p->mu);
    j->fn(j->arg, t);
    pthread_mutex_lock(&p->mu);
    if (++j->finished == j->n) {
      pthread_mutex_unlock(&p->mu);
      j->done(j->done_arg);
      free(j);
      pthread_mutex_lock(&p->mu);
    }
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

fgp_pool *fgp_new(int nthreads) {
  fgp_pool *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  if (nthreads < 1)
    nthreads = 1;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  p->threads = calloc((size_t)nthreads, sizeof *p->threads);
  p->scratch = calloc((size_t)nthreads, sizeof *p->scratch);
  if (!p->threads || !p->scratch) {
    fgp_free(p);
    return NULL;
  }
  for (int i = 0; i < nthreads; i++) {
    if (pthread_create(&p->threads[i], NULL, worker, p) != 0)
      break;
    p->nworkers++;
  }
  if (p->nworkers == 0) {
    fgp_free(p);
    return NULL;
  }
  return p;
}

int fgp_threads(const fgp_pool *p) { return p->nworkers; }

int fgp_submit(fgp_pool *p, int64_t n, fgp_task_fn fn, void *arg,
               fgp_done_fn done, void *done_arg) {
  if (n <= 0) {
    done(done_arg);
    return 0;
  }
  job *j = calloc(1, sizeof *j);
  if (!j)
    return -1;
  j->fn = fn;
  j->arg = arg;
  j->done = done;
  j->done_arg = done_arg;
  j->n = n;
  pthread_mutex_lock(&p->mu);
  if (p->tail)
    p->tail->next = j;
  else
    p->head = j;
  p->tail = j;
  if (n == 1)
    pthread_cond_signal(&p->wake);
  else
    pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  return 0;
}

void fgp_free(fgp_pool *p) {
  if (!p)
    return;
  pthread_mutex_lock(&p->mu);
  p->stop = true;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->nworkers; i++)
    pthread_join(p->threads[i], NULL);
  for (int i = 0; p->scratch && i < p->nworkers; i++) {
    free(p->scratch[i].p);
    for (int r = 0; r < FGP_RINGS; r++)
      fgr_ring_unmap(&p->scratch[i].ring[r]);
  }
  free(p->scratch);
  free(p->threads);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->mu);
  free(p);
}
