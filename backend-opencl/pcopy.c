/* backend-opencl/pcopy.c - memcpy of large blocks split across a few
 * helper threads, for the staging buffers' host copies (staging.c): one
 * thread copying pageable memory reaches well under what a device's DMA
 * moves from page-locked memory, so one chunk's copy is cut into parts
 * that the caller and the helpers copy at once.  Several callers may copy
 * at the same time; each waits for its own parts only. */
#include "config.h"
#include "cl_impl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PCOPY_HELPERS 3                 /* at most */
#define PCOPY_MIN ((size_t)1 << 20)     /* bytes below which one thread
                                           copies alone */
#define PCOPY_QUEUE 16                  /* parts waiting, at most */

/* One caller's copy. */
typedef struct pcopy_call {
  unsigned char *dst;
  const unsigned char *src;
  size_t bytes, part;                   /* part: bytes per part */
  int left;                             /* parts not yet copied */
} pcopy_call;

typedef struct pcopy_part {
  pcopy_call *call;
  int index;
} pcopy_part;

struct fgcl_pcopy {
  pthread_mutex_t lock;
  pthread_cond_t work, done;
  pcopy_part queue[PCOPY_QUEUE];
  int head, n;
  pthread_t helper[PCOPY_HELPERS];
  int nhelper;
  bool quit;
};

/* Copies part index of call. */
static void copy_part(pcopy_call *c, int index) {
  size_t off = (size_t)index * c->part;
  size_t len = c->bytes - off < c->part ? c->bytes - off : c->part;
  memcpy(c->dst + off, c->src + off, len);
}

static void *helper_main(void *arg) {
  fgcl_pcopy *p = arg;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (p->n == 0 && !p->quit)
      pthread_cond_wait(&p->work, &p->lock);
    if (p->n == 0)
      break;
    pcopy_part part = p->queue[p->head];
    p->head = (p->head + 1) % PCOPY_QUEUE;
    p->n--;
    pthread_mutex_unlock(&p->lock);
    copy_part(part.call, part.index);
    pthread_mutex_lock(&p->lock);
    if (--part.call->left == 0)
      pthread_cond_broadcast(&p->done);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

fgcl_pcopy *fgcl_pcopy_new(void) {
  fgcl_pcopy *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  if (pthread_mutex_init(&p->lock, NULL)) {
    free(p);
    return NULL;
  }
  pthread_cond_init(&p->work, NULL);
  pthread_cond_init(&p->done, NULL);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int want = cpus > 1 ? (int)(cpus - 1) : 0;
  if (want > PCOPY_HELPERS)
    want = PCOPY_HELPERS;
  for (int i = 0; i < want; i++)
    if (pthread_create(&p->helper[p->nhelper], NULL, helper_main, p) == 0)
      p->nhelper++;
  return p;
}

void fgcl_pcopy_run(fgcl_pcopy *p, void *dst, const void *src,
                    size_t bytes) {
  if (!p || p->nhelper == 0 || bytes < PCOPY_MIN) {
    memcpy(dst, src, bytes);
    return;
  }
  int parts = p->nhelper + 1;
  pcopy_call c = {dst, src, bytes, 0, 0};
  /* parts of whole cache lines */
  c.part = ((bytes + (size_t)parts - 1) / (size_t)parts + 63) & ~(size_t)63;
  parts = (int)((bytes + c.part - 1) / c.part);
  pthread_mutex_lock(&p->lock);
  /* parts the queue has no room for, this thread copies itself */
  int queued = 0;
  for (int i = 1; i < parts && p->n < PCOPY_QUEUE; i++, queued++) {
    p->queue[(p->head + p->n) % PCOPY_QUEUE] = (pcopy_part){&c, i};
    p->n++;
  }
  c.left = queued;
  if (queued)
    pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->lock);
  copy_part(&c, 0);
  for (int i = queued + 1; i < parts; i++)
    copy_part(&c, i);
  pthread_mutex_lock(&p->lock);
  while (c.left > 0)
    pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

void fgcl_pcopy_free(fgcl_pcopy *p) {
  if (!p)
    return;
  pthread_mutex_lock(&p->lock);
  p->quit = true;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < p->nhelper; i++)
    pthread_join(p->helper[i], NULL);
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->lock);
  free(p);
}
