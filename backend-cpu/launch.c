/* backend-cpu/launch.c - a launch split into tiles of rows (or of
 * columns, when there are fewer rows than tiles wanted), and running one
 * tile: what cpu.c's launches and bands.c's chains share. */
#include "cpu_impl.h"

#include <stdlib.h>
#include <string.h>

/* The tiles left of a cancelled run cost nothing, and a kernel's own
 * loops poll the flag (emit/abi.h). */
void fgc_run_tile(void *arg, int64_t t) {
  launch *l = arg;
  int64_t a = t * l->tile;
  if (__atomic_load_n(l->stop, __ATOMIC_ACQUIRE))
    return;
  if (l->by_columns) {
    int64_t b = a + l->tile < l->cols ? a + l->tile : l->cols;
    l->fn(l->ptr, l->dims, 0, l->rows, a, b, l->stop);
  } else {
    int64_t b = a + l->tile < l->rows ? a + l->tile : l->rows;
    l->fn(l->ptr, l->dims, a, b, 0, l->cols, l->stop);
  }
}

launch *fgc_launch_new(cpu_backend *cb, fg__kbin *k, const fg__launch *d,
                       int64_t *ntiles, int64_t *work) {
  int nbuf = d->nbuf;
  const int64_t *t = d->threads;
  bool grouped = d->kind == FG__LAUNCH_GROUPED;
  launch *l = malloc(sizeof *l + (size_t)nbuf * sizeof l->ptr[0]);
  if (!l)
    return NULL;
  *l = (launch){.fn = k->fn, .dims = d->dims, .stop = d->stop};
  for (int i = 0; i < nbuf; i++) {
    l->ptr[i] = d->bufs[i]->p;
    if (d->zero && d->zero[i]) /* every wait ended: nothing uses it now */
      memset(d->bufs[i]->p, 0, d->bufs[i]->bytes);
    int from = d->copy_from ? d->copy_from[i] : -1;
    if (from >= 0 && d->bufs[from]->p != d->bufs[i]->p)
      memcpy(d->bufs[i]->p, d->bufs[from]->p, d->bufs[i]->bytes);
  }
  int64_t points = t[0] * t[1] * t[2];
  if (grouped) {
    /* a grouped kernel's units are whole work-groups */
    l->rows = t[0] * ((t[1] + d->group[0] - 1) / d->group[0]);
    l->cols = (t[2] + d->group[1] - 1) / d->group[1];
  } else {
    l->rows = t[0] * t[1];
    l->cols = t[2];
  }
  int threads = fgp_threads(cb->pool);
  /* A few tiles per thread balance uneven rows; tiny work runs as one
   * tile.  Partials are few threads, each with much work: every one may
   * be its own tile.  A map whose threads loop counts what they read
   * (a 256-bin histogram of 4096 x 4096 floats is 1024 threads that
   * each count 4 rows: one tile, on one thread, until it counted so) */
  if (d->kind == FG__LAUNCH_PARTIALS)
    *work = d->partials * d->work_per_item;
  else if (d->kind == FG__LAUNCH_MAP && d->work_per_item > 1)
    *work = points * d->work_per_item;
  else
    *work = points;
  bool heavy = d->kind == FG__LAUNCH_PARTIALS && *work >= SMALL_WORK;
  int64_t want = *work < SMALL_WORK ? 1 : (int64_t)threads * 4;
  l->by_columns = l->rows < want &&
                  l->cols >= (grouped || heavy ? 1 : 4) * want;
  int64_t span = l->by_columns ? l->cols : l->rows;
  if (want > span)
    want = span;
  l->tile = want > 0 ? (span + want - 1) / want : 1;
  *ntiles = (span + l->tile - 1) / l->tile;
  return l;
}
