/* runtime/build_many.c - fg__be_build_many (backend.h): the kernels of one
 * program built at once, each build on one of a few threads (one per core
 * at most), when the backend says its build slot allows it.  Each thread
 * writes its messages into its own buffer; the first failing job's message
 * (in job order, as a build one after another would report) becomes the
 * context's. */
#include "backend.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Most build threads, whatever the core count. */
#define MAX_BUILD_THREADS 16


typedef struct shared {
  fg__backend *be;
  fg__build_job *jobs;
  char *err;                   /* n messages of be->errlen bytes */
  int n;
  atomic_int next;             /* the next job to claim */
  atomic_bool failed;          /* a job failed: claim no more */
} shared;

static void build_one(shared *s, int i) {
  fg__build_job *j = &s->jobs[i];
  fg__be_errbuf_redirect(s->err + (size_t)i * s->be->errlen,
                         s->be->errlen);
  j->st = s->be->i->build(s->be, j->source, j->entry, j->what, &j->opt,
                          &j->bin);
  if (j->st != FG_OK)
    j->bin = NULL;
  fg__be_errbuf_redirect(NULL, 0);
}

/* Claims jobs in order until none is left or one failed, so that every
 * job before a failing one has been started. */
static void *worker(void *arg) {
  shared *s = arg;
  for (;;) {
    if (atomic_load(&s->failed))
      break;
    int i = atomic_fetch_add(&s->next, 1);
    if (i >= s->n)
      break;
    build_one(s, i);
    if (s->jobs[i].st != FG_OK)
      atomic_store(&s->failed, true);
  }
  return NULL;
}

/* How many threads build n jobs. */
static int thread_count(const fg__backend *be, int n) {
  if (!be->builds_concurrently || n < 2)
    return 1;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int t = cores > 0 ? (int)cores : 1;
  if (t > MAX_BUILD_THREADS)
    t = MAX_BUILD_THREADS;
  return t < n ? t : n;
}

fg_status fg__be_build_many(fg__backend *be, fg__build_job *jobs, int n) {
  for (int i = 0; i < n; i++) {
    jobs[i].bin = NULL;
    jobs[i].st = FG_OK;        /* also what a job never started keeps */
  }
  int nt = thread_count(be, n);
  if (nt <= 1) {               /* one after another, on this thread */
    for (int i = 0; i < n; i++) {
      jobs[i].st = fg__be_build(be, jobs[i].source, jobs[i].entry,
                                jobs[i].what, &jobs[i].opt, &jobs[i].bin);
      if (jobs[i].st != FG_OK) {
        for (int k = 0; k < i; k++) {
          fg__be_kernel_free(be, jobs[k].bin);
          jobs[k].bin = NULL;
        }
        return jobs[i].st;
      }
    }
    return FG_OK;
  }
  shared s = {.be = be, .jobs = jobs, .n = n};
  atomic_init(&s.next, 0);
  atomic_init(&s.failed, false);
  pthread_t tid[MAX_BUILD_THREADS];
  s.err = calloc((size_t)n, be->errlen);
  if (!s.err)
    return fg__be_fail(be, FG_ENOMEM, "compile: out of memory");
  int started = 0;
  for (int t = 1; t < nt; t++)  /* this thread is the first builder */
    if (pthread_create(&tid[started], NULL, worker, &s) == 0)
      started++;
  worker(&s);
  for (int t = 0; t < started; t++)
    pthread_join(tid[t], NULL);
  fg_status st = FG_OK;
  int first = -1;
  for (int i = 0; i < n && first < 0; i++)
    if (jobs[i].st != FG_OK)
      first = i;
  for (int i = 0; i < n; i++)
    if (jobs[i].bin)
      be->live.kernels++;
  if (first >= 0) {
    st = jobs[first].st;
    memcpy(be->errmsg, s.err + (size_t)first * be->errlen, be->errlen);
    be->errmsg[be->errlen - 1] = 0;
    for (int i = 0; i < n; i++) {
      fg__be_kernel_free(be, jobs[i].bin);
      jobs[i].bin = NULL;
    }
  }
  free(s.err);
  return st;
}
