/* backend-cpu/pool.c - worker threads for the CPU backend's tiles.  Workers
 * sleep on a condition variable between jobs (nothing spins); tasks are
 * handed out with an atomic counter so fast threads take more tiles. */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

struct fgp_pool {
  pthread_mutex_t mu;
  pthread_cond_t wake, idle;
  pthread_t *threads;
  int nworkers;
  bool stop;
  uint64_t generation;     /* bumped per job */
  int busy;                /* workers still inside the current job */
  /* the current job */
  fgp_task_fn fn;
  void *arg;
  int64_t n;
  atomic_int_fast64_t next;
};

static void drain(fgp_pool *p) {
  for (;;) {
    int64_t t = atomic_fetch_add(&p->next, 1);
    if (t >= p->n)
      return;
    p->fn(p->arg, t);
  }
}

static void *worker(void *arg) {
  fgp_pool *p = arg;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->stop && p->generation == seen)
      pthread_cond_wait(&p->wake, &p->mu);
    if (p->stop)
      break;
    seen = p->generation;
    pthread_mutex_unlock(&p->mu);
    drain(p);
    pthread_mutex_lock(&p->mu);
    if (--p->busy == 0)
      pthread_cond_signal(&p->idle);
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
  pthread_cond_init(&p->idle, NULL);
  p->threads = calloc((size_t)nthreads, sizeof *p->threads);
  if (!p->threads) {
    fgp_free(p);
    return NULL;
  }
  for (int i = 0; i < nthreads - 1; i++) {
    if (pthread_create(&p->threads[i], NULL, worker, p) != 0)
      break;
    p->nworkers++;
  }
  return p;
}

int fgp_threads(const fgp_pool *p) { return p->nworkers + 1; }

void fgp_run(fgp_pool *p, int64_t n, fgp_task_fn fn, void *arg) {
  if (n <= 0)
    return;
  if (n == 1 || p->nworkers == 0) {
    for (int64_t t = 0; t < n; t++)
      fn(arg, t);
    return;
  }
  pthread_mutex_lock(&p->mu);
  p->fn = fn;
  p->arg = arg;
  p->n = n;
  atomic_store(&p->next, 0);
  p->busy = p->nworkers;
  p->generation++;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  drain(p);
  pthread_mutex_lock(&p->mu);
  while (p->busy > 0)
    pthread_cond_wait(&p->idle, &p->mu);
  pthread_mutex_unlock(&p->mu);
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
  free(p->threads);
  pthread_cond_destroy(&p->wake);
  pthread_cond_destroy(&p->idle);
  pthread_mutex_destroy(&p->mu);
  free(p);
}
