/* backend-cpu/cpu_impl.h - what the CPU backend's files share: the
 * backend, its built kernels and buffers, and a launch split into tiles
 * (launch.c), which cpu.c and the row-band runner (bands.c) run.  Internal. */
#ifndef FG_CPU_IMPL_H
#define FG_CPU_IMPL_H

#include "emit/abi.h"
#include "pool.h"
#include "runtime/backend.h"
#include "toolchain/toolchain.h"

#include <stdbool.h>
#include <stdint.h>

typedef fge_c_kernel_fn fgc_kernel_fn;

/* Work below which a launch runs as one tile (threads cost more than it). */
#define SMALL_WORK 16384

struct fg__kbin {
  void *dl;
  fgc_kernel_fn fn;
};

struct fg__buffer {
  void *p;
  size_t bytes;
  int owned;
  void *mem;                  /* owned: what was allocated, p within it */
};

typedef struct cpu_backend {
  fg__backend base;
  fgp_pool *pool;
  fgtc_cache cache;           /* CACHE/cpu, verified and pinned */
  char *clang;
  char opt[FGTC_PATH];        /* LLVM's opt beside clang, "" if none */
  char key_prefix[128];       /* hash of compiler version, CPU, library */
  char march[96];             /* -march=$FG_CPU_MARCH, default native */
} cpu_backend;

/* One launch split into tiles: rows of the flattened (layer, row) index,
 * or column ranges over every row when there are fewer rows than tiles
 * wanted.  Lives until the last tile finished. */
typedef struct launch {
  fgc_kernel_fn fn;
  const int64_t *dims;
  int64_t rows, cols, tile;
  bool by_columns;
  const int *stop;            /* the run's (emit/abi.h) */
  fg__done_fn done;
  void *done_arg;
  void *ptr[];
} launch;

/* A launch of kernel k as d describes, split into tiles (*ntiles of
 * them; *work: the points or partial items), with no completion yet;
 * zeroes and copies the buffers d asks for.  NULL when out of memory. */
launch *fgc_launch_new(cpu_backend *cb, fg__kbin *k, const fg__launch *d,
                       int64_t *ntiles, int64_t *work);
/* Runs tile t of launch arg, unless the run was stopped. */
void fgc_run_tile(void *arg, int64_t t);

/* fg__backend_i.launch_band (bands.c). */
fg_status fgc_launch_band(fg__backend *be, int n, fg__kbin *const *k,
                          const fg__launch *d, const int *reach,
                          const fg__async *a);

#endif
