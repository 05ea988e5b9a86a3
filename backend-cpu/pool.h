/* backend-cpu/pool.h - a fixed pool of worker threads running parallel
 * jobs: fgp_submit queues a job of task indices 0..n-1, returns at once,
 * and the worker that finishes the job's last task calls its done
 * function.  Several jobs may be queued; workers take tasks from the
 * oldest job first.  Internal. */
#ifndef FG_CPU_POOL_H
#define FG_CPU_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fgp_pool fgp_pool;
typedef void (*fgp_task_fn)(void *arg, int64_t task);
typedef void (*fgp_done_fn)(void *arg);

/* A pool of nthreads worker threads (at least 1); NULL on failure. */
fgp_pool *fgp_new(int nthreads);
/* Queues fn(arg, t) for every t in [0, n) and returns; done(done_arg) runs
 * on a worker thread after the last task returned (at once, on the
 * caller's thread, when n <= 0).  Any thread.  0, or -1 when out of
 * memory (nothing was queued). */
int fgp_submit(fgp_pool *p, int64_t n, fgp_task_fn fn, void *arg,
               fgp_done_fn done, void *done_arg);
/* Memory of at least `bytes`, aligned to 64, that only the calling worker
 * thread uses: kept from task to task (grown when asked for more) and
 * freed with the pool.  NULL on a thread that is no pool's worker, or
 * when out of memory. */
void *fgp_scratch(size_t bytes);
/* Ring `i` (0 <= i < FGP_RINGS) of the calling worker thread: memory of
 * at least `bytes` mapped twice in a row (ring.h), kept and grown as
 * fgp_scratch keeps its memory; its size in *size.  NULL on a thread that
 * is no pool's worker, for i out of range, or when the system cannot map
 * it. */
#define FGP_RINGS 64
void *fgp_ring(int i, size_t bytes, size_t *size);
/* Tests: off, fgp_ring answers NULL in every pool, as where the system
 * cannot map a ring, so that its callers' other way runs. */
void fgp_test_rings(bool on);
/* Worker threads in the pool. */
int fgp_threads(const fgp_pool *p);
/* Finishes every queued job, then stops and joins the workers; NULL does
 * nothing. */
void fgp_free(fgp_pool *p);

#endif
