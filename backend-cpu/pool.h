/* backend-cpu/pool.h - a fixed pool of worker threads running parallel
 * loops: fgp_run splits task indices 0..n-1 among the workers and the
 * calling thread, and returns when all are done.  Internal. */
#ifndef FG_CPU_POOL_H
#define FG_CPU_POOL_H

#include <stdint.h>

typedef struct fgp_pool fgp_pool;
typedef void (*fgp_task_fn)(void *arg, int64_t task);

/* A pool of nthreads threads in all, counting the caller (so nthreads - 1
 * workers are started); NULL on failure. */
fgp_pool *fgp_new(int nthreads);
/* Runs fn(arg, t) for every t in [0, n); blocks until all returned.  Only
 * one fgp_run at a time per pool. */
void fgp_run(fgp_pool *p, int64_t n, fgp_task_fn fn, void *arg);
/* Threads in the pool, counting the caller. */
int fgp_threads(const fgp_pool *p);
/* Stops and joins the workers; NULL does nothing. */
void fgp_free(fgp_pool *p);

#endif
