/* backend-cpu/bands.c - the CPU backend's row bands (fg__be_launch_band):
 * a chain of kernels, each reading the outputs of those before it at most
 * its `reach` rows from its own (a separable filter's two passes, a
 * gradient and the box sums of its products), run interleaved over bands
 * of rows so that each result is read back while it is in cache.
 *
 * Two ways.  Where every output of the chain but the last kernel's is
 * read by later kernels of the chain alone (fg__launch.band_private),
 * each tile of rows keeps those outputs in windows of a few rows in its
 * worker's memory (fgp_ring: rings mapped twice in a row, so that a
 * window advances without moving its rows; else fgp_scratch, rows moved
 * to its start) and makes every row it reads itself, the rows within
 * reach of its neighbours' included: the intermediates never go to
 * memory at all (Halide's store_at / compute_at with a sliding window,
 * the tiles' overlaps recomputed).  Otherwise the intermediates are the
 * full buffers and the tiles leave the rows within reach of each other to
 * be run afterwards. */
#include "cpu_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the full buffers ---------------------------------------------------
 * A chain of kernels, each reading the outputs of those before it at most
 * its `reach` rows from its own (a separable filter's two passes).  Each
 * tile of rows runs the first kernel BAND_ROWS rows at a time and, after
 * each band, every later kernel on the rows of the tile that the bands so
 * far complete and whose reads lie inside the tile's own rows of the
 * kernels before: results are read back from cache.  A kernel's rows left
 * over (within reach of what the tile made of the kernels before it, and
 * the field's own first and last reach rows, whose border rules may read
 * any row) run when every tile has ended, one kernel after another.
 * Where the tiles would be too short for that to pay, the kernels run one
 * after another, each tiled as cpu_launch tiles it.  Every kernel runs
 * each of its threads once either way (with windows, the kernels before
 * the last run some twice, into different windows). */

/* Rows of the first kernel per band: bench_cpu W8 (a 4000 x 3000 photo,
 * one thread) was as fast with 4 to 16 and slower past 32. */
#define BAND_ROWS 8

typedef struct band {
  int n;
  launch *l[FG_BAND_STAGES];  /* each kernel's own tiling */
  int64_t ntile[FG_BAND_STAGES];
  int64_t reach[FG_BAND_STAGES];
  int64_t margin;             /* the reaches summed */
  bool interleave;            /* else: each kernel's tiles in turn */
  int64_t tile, ntiles;       /* interleaved: tiles of rows */
  int64_t (*gap)[2];          /* interleaved: a stage's rows left over, at
                                 most `tile` rows each */
  int64_t n_gap;
  int stage;                  /* the kernel that runs next after the tiles */
  int nbuf[FG_BAND_STAGES];
  int n_win;                  /* windowed: the private outputs */
  struct window *win;
  size_t scratch;             /* windowed: bytes of a tile's scratch: */
  size_t tables;              /* the windows, then from here each kernel's
                                 pointer table */
  int failed;                 /* windowed: a tile had no scratch (atomic) */
  fgp_pool *pool;
  fg__done_fn done;
  void *done_arg;
} band;

/* Kernel s's rows [lo[s], hi[s]) that tile [a, b) runs itself: those
 * whose reads all lie inside the field and inside what the tile runs of
 * the kernels before it. */
static void band_own(const band *l, int64_t a, int64_t b, int64_t *lo,
                     int64_t *hi) {
  int64_t n = l->l[0]->rows;
  lo[0] = a;
  hi[0] = b;
  for (int s = 1; s < l->n; s++) {
    int64_t r = l->reach[s];
    lo[s] = lo[s - 1] + r > r ? lo[s - 1] + r : r;
    hi[s] = hi[s - 1] - r < n - r ? hi[s - 1] - r : n - r;
    if (hi[s] < lo[s])
      hi[s] = lo[s];
  }
}

static void band_window_tile(band *l, int64_t a, int64_t b);

static void band_tile(void *arg, int64_t t) {
  band *l = arg;
  int64_t a = t * l->tile, b = a + l->tile < l->l[0]->rows
                                   ? a + l->tile : l->l[0]->rows;
  if (l->n_win) {
    band_window_tile(l, a, b);
    return;
  }
  int64_t lo[FG_BAND_STAGES], hi[FG_BAND_STAGES];
  band_own(l, a, b, lo, hi);
  for (int64_t y = a; y < b; y += BAND_ROWS) {
    if (__atomic_load_n(l->l[0]->stop, __ATOMIC_ACQUIRE))
      return;
    int64_t made = y + BAND_ROWS < b ? y + BAND_ROWS : b;
    const launch *k = l->l[0];
    k->fn(k->ptr, k->dims, y, made, 0, k->cols, k->stop);
    /* each kernel up to the rows that read only rows made before it */
    for (int s = 1; s < l->n; s++) {
      int64_t e = made - l->reach[s] < hi[s] ? made - l->reach[s] : hi[s];
      k = l->l[s];
      if (e > lo[s]) {
        k->fn(k->ptr, k->dims, lo[s], e, 0, k->cols, k->stop);
        lo[s] = e;
      }
      made = lo[s];
    }
  }
}

/* ---- windows --------------------------------------------------------------
 * Output `buf` of kernel `stage`, read only by later kernels of the chain
 * (`readers`, a bit per kernel) within their reach: a tile keeps its rows
 * [first, first + cap) at `offset` in its scratch, and gives the kernels
 * a pointer that puts row `first` there.  Rows leave when no reader
 * reads them any more. */
typedef struct window {
  int stage, buf;
  unsigned readers;
  void *own;                  /* the buffer's memory, which stays untouched */
  int64_t row_bytes;
  int64_t cap;
  size_t offset;
} window;

/* Where a tile keeps window w's rows: at mem, from row first on; in a
 * ring of `ring` bytes (fgp_ring) at row first's place in it, or flat
 * (ring 0) at mem's start, rows moved there as the window advances. */
typedef struct tile_window {
  char *mem;
  size_t ring;
  int64_t first;
} tile_window;

/* Where window i's rows start in its ring, past the ring's page-aligned
 * start: a different place within a page for each window.  Rows of 4 KiB
 * multiples (3072 floats) at the same place in every page fall in the
 * same sets of an 8-way L1 cache, and a kernel reading 3 rows of 3
 * windows and writing a fourth then evicts its own lines. */
static size_t window_skew(int i) { return (size_t)(i * 7 % 64) * 64; }

/* Points kernel w->stage and w's readers (their pointer tables ptr) at
 * tile window t: row first where t keeps it.  The pointer lies before
 * that by first rows: kernels add the row back. */
static void window_point(const band *l, void **ptr[], const window *w,
                         const tile_window *t) {
  uintptr_t row = (uintptr_t)(t->first * w->row_bytes);
  void *at = (void *)((uintptr_t)t->mem + (t->ring ? row % t->ring : 0) -
                      row);
  for (int s = w->stage; s < l->n; s++)
    for (int j = 0; (s == w->stage || (w->readers >> s & 1)) &&
                    j < l->nbuf[s]; j++)
      if (l->l[s]->ptr[j] == w->own)
        ptr[s][j] = at;
}

/* Tile [a, b) of the last kernel's rows, with windows: each kernel makes
 * the rows the next one reads for the tile, BAND_ROWS rows of the first
 * at a time and then every later kernel as far as the rows made allow
 * (rows [lo[s], hi[s]) still to run; at the field's edges the border
 * rules read rows near the edge, which the tile made). */
static void band_window_tile(band *l, int64_t a, int64_t b) {
  int n = l->n;
  char *mem = fgp_scratch(l->scratch);
  if (!mem) {
    __atomic_store_n(&l->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  void **ptr[FG_BAND_STAGES];
  size_t at = l->tables;
  for (int s = 0; s < n; s++) {
    ptr[s] = (void **)(mem + at);
    memcpy(ptr[s], l->l[s]->ptr, (size_t)l->nbuf[s] * sizeof(void *));
    at += (size_t)l->nbuf[s] * sizeof(void *);
  }
  int64_t rows = l->l[0]->rows, lo[FG_BAND_STAGES], hi[FG_BAND_STAGES];
  lo[n - 1] = a;
  hi[n - 1] = b;
  for (int s = n - 1; s > 0; s--) {
    lo[s - 1] = lo[s] - l->reach[s] > 0 ? lo[s] - l->reach[s] : 0;
    hi[s - 1] = hi[s] + l->reach[s] < rows ? hi[s] + l->reach[s] : rows;
  }
  tile_window tw[FGP_RINGS];
  for (int i = 0; i < l->n_win; i++) {
    const window *w = &l->win[i];
    size_t ring = 0, skew = window_skew(i);
    char *r = fgp_ring(i, (size_t)(w->cap * w->row_bytes) + skew, &ring);
    tw[i] = (tile_window){r ? r + skew : mem + w->offset, r ? ring : 0,
                          lo[w->stage]};
    window_point(l, ptr, w, &tw[i]);
  }
  while (lo[n - 1] < hi[n - 1]) {
    if (__atomic_load_n(l->l[0]->stop, __ATOMIC_ACQUIRE))
      return;
    for (int s = 0; s < n; s++) {
      int64_t e = s == 0 ? lo[0] + BAND_ROWS
                  : lo[s - 1] == hi[s - 1] ? hi[s] : lo[s - 1] - l->reach[s];
      e = e < hi[s] ? e : hi[s];
      if (e <= lo[s])
        continue;
      for (int i = 0; i < l->n_win; i++) {
        const window *w = &l->win[i];
        tile_window *t = &tw[i];
        if (w->stage != s || e <= t->first + w->cap)
          continue;
        /* the window starts at the first row its readers still read */
        int64_t keep = lo[s];
        for (int r = s + 1; r < n; r++)
          if (w->readers >> r & 1 && lo[r] - l->reach[r] < keep)
            keep = lo[r] - l->reach[r];
        keep = keep > t->first ? keep : t->first;
        if (!t->ring)
          memmove(t->mem, t->mem + (keep - t->first) * w->row_bytes,
                  (size_t)((lo[s] - keep) * w->row_bytes));
        t->first = keep;
        window_point(l, ptr, w, t);
      }
      const launch *k = l->l[s];
      k->fn(ptr[s], k->dims, lo[s], e, 0, k->cols, k->stop);
      lo[s] = e;
    }
  }
}

/* Whether the chain's intermediates can live in windows: the runtime
 * flags every output of every kernel but the last (band_private), or
 * none; each holds one row per row of threads.
 * Sets l->win and l->scratch (false when out of memory too). */
static bool band_windows(band *l, const fg__launch *d) {
  int n = l->n, count = 0;
  for (int s = 0; s < n - 1; s++) {
    if (!d[s].band_private)
      return false;
    for (int o = 0; o < d[s].nbuf; o++)
      count += d[s].band_private[o];
  }
  if (count == 0 || count > FGP_RINGS ||
      !(l->win = calloc((size_t)count, sizeof *l->win)))
    return false;
  int64_t rows = l->l[0]->rows, step = BAND_ROWS;
  size_t at = 0;
  for (int s = 0; s < n - 1; s++) {
    /* most rows kernel s runs at once: BAND_ROWS for the first, then
     * what its input gained plus its reach when that input is complete */
    step += s ? l->reach[s] : 0;
    for (int o = 0; o < d[s].nbuf; o++) {
      if (!d[s].band_private[o])
        continue;
      window *w = &l->win[l->n_win++];
      size_t bytes = d[s].bufs[o]->bytes;
      if (rows <= 0 || bytes % (size_t)rows)
        return false;
      /* a reader r runs to rows[s] - (the reaches of s + 1 .. r) and
       * reads reach[r] rows before its own: the rows kept are fewer than
       * twice the reaches summed; then the rows kernel s adds */
      *w = (window){.stage = s, .buf = o, .own = d[s].bufs[o]->p,
                    .row_bytes = (int64_t)(bytes / (size_t)rows),
                    .cap = 2 * l->margin + step + 1, .offset = at};
      for (int r = s + 1; r < n; r++)
        for (int j = 0; j < d[r].nbuf; j++)
          if (d[r].bufs[j]->p == w->own)
            w->readers |= 1u << r;
      /* a kernel may load a few bytes past a row's last element */
      at += ((size_t)(w->cap * w->row_bytes) + 64 + 63) & ~(size_t)63;
    }
  }
  /* two windows of one buffer would not hold one content */
  for (int i = 0; i < l->n_win; i++)
    for (int j = 0; j < l->n_win; j++)
      if (i != j && l->win[i].own == l->win[j].own)
        return false;
  l->tables = at;
  for (int s = 0; s < n; s++)
    at += (size_t)d[s].nbuf * sizeof(void *);
  l->scratch = at;
  return true;
}

static void band_gap(void *arg, int64_t g) {
  band *l = arg;
  const launch *k = l->l[l->stage];
  if (!__atomic_load_n(k->stop, __ATOMIC_ACQUIRE))
    k->fn(k->ptr, k->dims, l->gap[g][0], l->gap[g][1], 0, k->cols, k->stop);
}

static void band_free(band *l) {
  free(l->gap);
  free(l->win);
  for (int s = 0; s < l->n; s++)
    free(l->l[s]);
  free(l);
}

/* Lists in l->gap kernel s's rows that no tile runs, in pieces of at most
 * a tile. */
static void band_gaps(band *l, int s) {
  int64_t rows = l->l[0]->rows, cur = 0;
  l->n_gap = 0;
  for (int64_t t = 0; t <= l->ntiles; t++) {
    int64_t lo[FG_BAND_STAGES], hi[FG_BAND_STAGES];
    lo[s] = hi[s] = rows;
    if (t < l->ntiles) {
      int64_t b = (t + 1) * l->tile < rows ? (t + 1) * l->tile : rows;
      band_own(l, t * l->tile, b, lo, hi);
      if (hi[s] == lo[s])
        continue;
    }
    for (; cur < lo[s]; cur += l->tile) {
      l->gap[l->n_gap][0] = cur;
      l->gap[l->n_gap++][1] = cur + l->tile < lo[s] ? cur + l->tile : lo[s];
    }
    cur = hi[s];
  }
}

/* What ran last ended: the next kernel's part starts (the pool takes
 * jobs from any thread), or runs here when there is no memory to queue
 * it; after the last, the launch reports. */
static void band_next(void *arg) {
  band *l = arg;
  if (l->n_win)
    l->stage = l->n;          /* the tiles made every row */
  while (++l->stage < l->n) {
    fgp_task_fn fn = l->interleave ? band_gap : fgc_run_tile;
    void *fn_arg = l->interleave ? (void *)l : (void *)l->l[l->stage];
    int64_t n = l->ntile[l->stage];
    if (l->interleave) {
      band_gaps(l, l->stage);
      n = l->n_gap;
    }
    if (n > 0 && fgp_submit(l->pool, n, fn, fn_arg, band_next, l) == 0)
      return;
    for (int64_t i = 0; i < n; i++)
      fn(fn_arg, i);
  }
  fg__done_fn done = l->done;
  void *done_arg = l->done_arg;
  bool failed = __atomic_load_n(&l->failed, __ATOMIC_RELAXED);
  size_t scratch = l->scratch;
  band_free(l);
  if (failed) {
    char msg[128];
    snprintf(msg, sizeof msg, "kernel launch in row bands: out of memory "
             "(%zu bytes of a worker's scratch)", scratch);
    done(done_arg, FG_ENOMEM, msg);
    return;
  }
  done(done_arg, FG_OK, NULL);
}

fg_status fgc_launch_band(fg__backend *be, int n, fg__kbin *const *k,
                          const fg__launch *d, const int *reach,
                          const fg__async *a) {
  cpu_backend *cb = (cpu_backend *)be;
  for (int s = 0; s < n; s++)
    if (d[s].nbuf > 128)
      return fg__be_fail(be, FG_ENOTSUP, "kernel with %d buffers (the CPU "
                         "backend takes at most 128)", d[s].nbuf);
  band *l = calloc(1, sizeof *l);
  if (!l)
    return fg__be_fail(be, FG_ENOMEM, "kernel launch: out of memory");
  l->n = n;
  int64_t work = 0;
  bool ok = true;
  for (int s = 0; s < n; s++) {
    ok &= (l->l[s] = fgc_launch_new(cb, k[s], &d[s], &l->ntile[s], &work)) !=
          NULL;
    l->reach[s] = s ? reach[s] : 0;
    l->margin += l->reach[s];
    l->nbuf[s] = d[s].nbuf;
  }
  int threads = fgp_threads(cb->pool);
  int64_t rows = ok ? l->l[0]->rows : 0, most = (int64_t)threads * 4;
  /* tiles long enough that the rows left over are few, and about as many
   * as a launch of its own would have (at least half) */
  int64_t want = rows / (8 * (l->margin + 1));
  if (want > most)
    want = most;
  l->interleave = ok && work >= SMALL_WORK && want >= 1 &&
                  2 * want >= (l->ntile[n - 1] < most ? l->ntile[n - 1]
                                                      : most);
  if (l->interleave) {
    l->tile = (rows + want - 1) / want;
    l->ntiles = (rows + l->tile - 1) / l->tile;
    ok = (l->gap = malloc(sizeof *l->gap * (size_t)(2 * l->ntiles + 4 +
                                                    rows / l->tile))) != NULL;
    if (ok && !band_windows(l, d)) {
      free(l->win);           /* the full buffers, then */
      l->win = NULL;
      l->n_win = 0;
    }
  }
  if (!ok) {
    band_free(l);
    return fg__be_fail(be, FG_ENOMEM, "kernel launch: out of memory");
  }
  l->pool = cb->pool;
  l->done = a->done;
  l->done_arg = a->arg;
  be->stats->kernel_launches += n;
  be->stats->windowed_chains += l->n_win > 0;
  if (a->ev)
    *a->ev = NULL;
  if (!l->interleave && l->ntile[0] == 1 && work < SMALL_WORK) {
    /* small work on the calling thread, as cpu_launch runs it */
    for (int s = 0; s < n; s++)
      for (int64_t i = 0; i < l->ntile[s]; i++)
        fgc_run_tile(l->l[s], i);
    l->stage = n;
    band_next(l);
    return FG_OK;
  }
  if (fgp_submit(cb->pool, l->interleave ? l->ntiles : l->ntile[0],
                 l->interleave ? band_tile : fgc_run_tile,
                 l->interleave ? (void *)l : (void *)l->l[0], band_next,
                 l) != 0) {
    band_free(l);
    return fg__be_fail(be, FG_ENOMEM, "kernel launch: out of memory");
  }
  return FG_OK;
}
