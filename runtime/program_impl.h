/* runtime/program_impl.h - the body of a compiled program, shared by the
 * compiler (compile.c), the program object (program.c) and the run engine
 * (run.c): fields, built kernels,
 * the static task graph of one run, and pools of per-run buffers.
 * Internal. */
#ifndef FG_RUNTIME_PROGRAM_IMPL_H
#define FG_RUNTIME_PROGRAM_IMPL_H

#include "context_impl.h"
#include "graph/graph_impl.h"
#include "host_eval.h"

typedef enum fg__pfield_role { PF_DEAD, PF_INPUT, PF_CONST, PF_OP } fg__pfield_role;

typedef struct fg__pfield {
  fg_type type;
  char *name;
  char *label;              /* what reports call it (fg_field_label) */
  fg__pfield_role role;
  int input;                /* PF_INPUT: graph input index */
  fg__buffer *const_buf;    /* PF_CONST */
  void *host_data;          /* PF_CONST without live: its value, for
                               kernels the host evaluates */
  fg__live *live;           /* PF_CONST whose value is taken when each run
                               starts (a script's globals) */
  fg__live *sink;           /* a field whose value each successful run
                               leaves in sink->bytes (fg_field.sink) */
} fg__pfield;

typedef struct fg__pkernel {
  char *name;
  char *source;
  fg__kbin *bin;
  fg__hprog *host;          /* NULL, or the host evaluates it (its inputs
                               are values the host holds; run.c) */
  int nbuf;
  int *field;               /* nbuf field ids: inputs, then outputs */
  bool *zero;               /* NULL, or nbuf flags: outputs the kernel may
                               not write everywhere, zeroed at each launch */
  int *copy_from;           /* NULL, or nbuf: -1, or the input buffer an
                               output is a copy of at each launch (the
                               kernel updates points of it) */
  int64_t *dims;            /* 3 * (nbuf + 1) */
  bool grouped;
  int group[2];             /* work-group (rows, columns) when grouped */
  int64_t threads[3];       /* what the backend launches */
  int n_red;                /* results the host combines: the kernel's
                               reductions (n_kred), then the index of each
                               one's first point that has one (loc) */
  int n_kred;               /* reductions the kernel carries (0, 1, or
                               more fused siblings) */
  fgk_reduction red[2 * FGK_MAX_REDUCTIONS]; /* each one's port: the
                               output its partials go to */
  int loc_of[2 * FGK_MAX_REDUCTIONS]; /* -1, or red[r] is the first
                               point's index of red[loc_of[r]]'s result */
  int red_slot;             /* host-combined ones: the variant's slot of
                               red[0] (red[r] has red_slot + r) */
  int64_t partials;         /* how many (the same for every reduction) */
  fg__launch_kind kind;     /* what a launch of it is (backend.h) */
  int64_t work_per_item;    /* FG__LAUNCH_PARTIALS: points per partial;
                               MAP: points a thread's loops read, 0: none */
  int n_in;                 /* inputs among the nbuf buffers */
  fg_precision precision;   /* what it was built with */
  bool polls;               /* its loops poll the stop flag (emit/abi.h) */
  int strip;                /* columns per work-item (fge_strip) */
  int strip_rows;           /* rows per work-item (fgk_emit_target.rows) */
  bool band_member;         /* in a chain of kernels run in row bands
                               (fg__be_launch_band), not its last: the
                               last one's task launches it, its own task
                               only passes its inputs on */
  int band_len;             /* the last of such a chain: how many kernels
                               it has (this one and those before it), else
                               0 */
  int band_reach;           /* in a chain, after its first: rows above and
                               below its own it reads of the outputs of
                               the kernels before it in the chain */
  bool *band_private;       /* NULL, or nbuf flags: in a chain, not its
                               last, its outputs, each read by later
                               kernels of the chain alone, as are those
                               of every other kernel of the chain but the
                               last (fg__launch.band_private) */
  double prof_seconds;      /* fg_program_kernel_time: launch to completion, */
  long long prof_launches;  /* summed on the loop thread over every run */
} fg__pkernel;

/* One step of a run.  Device steps go through the backend; RT_COMBINE
 * runs on the loop thread. */
typedef enum fg__rtask_kind {
  RT_UPLOAD,        /* graph input `index` into its device buffer */
  RT_GLOBALS,       /* the run's copy of live constant field `index` */
  RT_KERNEL,        /* kernel `index` */
  RT_PARTIALS,      /* reduction `sub` of kernel `index`: its partials to
                       the host */
  RT_COMBINE,       /* ... combined in order on the host */
  RT_RESULT,        /* ... and the result into its field's buffer */
  RT_DOWNLOAD,      /* graph output `index` into the caller's memory */
  RT_SINK,          /* sink field `index` into the run's copy, which the
                       run's end leaves in the field's sink */
  RT_HOST,          /* kernel `index` evaluated on the host, on the loop
                       thread; graph outputs among its results copied to
                       the caller */
  RT_HOST_UP        /* field `index`'s host value into its device buffer,
                       for a device kernel or a sink that reads it */
} fg__rtask_kind;

typedef struct fg__rtask {
  fg__rtask_kind kind;
  int index;
  int sub;                  /* RT_PARTIALS, _COMBINE, _RESULT: which of the
                               kernel's reductions */
  int n_dep;
  int *dep;                 /* tasks that must end first */
} fg__rtask;

/* Buffers of one run in flight, kept in a pool between runs: allocating
 * (and having the OS zero) fresh pages on every run costs more than the
 * kernels. */
typedef struct fg__bufset {
  struct fg__bufset *next;
  fg__buffer **buf;         /* per field: intermediates, live constants,
                               and inputs on a backend that cannot alias
                               host memory */
  fg__buffer **partials;    /* per reduction slot: its partials */
  unsigned char **host;     /* per reduction slot: partials and result on
                               the host */
  unsigned char **hval;     /* per field: its value on the host, for a
                               host-combined reduction's result (inside
                               host[slot]) or a host kernel's output
                               (owned: hown) */
  unsigned char **hown;
} fg__bufset;

/* One way of computing the outputs: fused, or (check mode) unfused. */
typedef struct fg__variant {
  int n_k;
  fg__pkernel *k;
  int n_slot;               /* host-combined reductions of all kernels */
  bool *materialized;       /* per field: an operator output with a buffer */
  char **reason;            /* per field, when materialized */
  fg_fusion_stats stats;
  char *report;
  int *kernel_of_node;      /* per graph node: its kernel, or -1 */
  bool *direct;             /* per output: kernels write the caller's
                               memory (backends that alias host memory) */
  bool *on_host;            /* per field: its value is made on the host
                               (reduction results, host kernels' outputs):
                               graph outputs among them are copied
                               straight to the caller */
  int n_task;
  fg__rtask *task;              /* in an order where deps come first */
  fg__bufset *free_sets;        /* buffers of ended runs */
} fg__variant;

struct fg_program {
  fg_context *ctx;
  int n_nodes;
  int n_fields;
  fg__pfield *f;
  int n_in, n_out;
  char **in_name, **out_name;
  int *in_field, *out_field;
  fg__variant main, check;      /* check.k is NULL unless in check mode */
  int runs;                 /* runs started and not yet ended */
  fg_run *live;             /* those runs */
};

/* Whether output field f of variant v is written straight into the
 * caller's memory (run.c). */
bool fg__direct_field(const fg_program *p, const fg__variant *v, int f);
/* Plans the tasks of one run of variant v (after its kernels are built;
 * compile.c). */
fg_status fg__plan_tasks(fg_program *p, fg__variant *v);
/* Frees v's task plan and pooled buffers (run.c). */
void fg__variant_free_runtime(fg_program *p, fg__variant *v);
/* Cancels p's runs and waits for them to end (run.c, for
 * fg_program_free). */
void fg__program_drain(fg_program *p);
/* Checks fg_program_run / fg_program_start arguments; the message goes to
 * the context. */
fg_status fg__check_run_args(fg_program *p, const char *fn, int n_in,
                             const void *const *in, int n_out,
                             void *const *out, bool null_out_ok);

/* Plans reduction kernel pk (built from k, k->reduce non-zero): its
 * partials, their count, and the launch over them (reduce.c). */
void fg__reduce_plan(fg__pkernel *pk, const fgk_kernel *k);
/* Whether the host combines k's partials (the built-in reductions). */
bool fg__reduce_on_host(const fg__pkernel *k);
/* Combines the downloaded partials of host-combined kernel k's reduction
 * r into out. */
void fg__reduce_combine(const fg_program *p, const fg__pkernel *k, int r,
                        const void *partials, void *out);
/* Combines the downloaded index partials of location entry r of k
 * (loc_of[r] >= 0): the first partial's index whose value equals the
 * combined value, -1 where none has one.  value_partials and value are
 * the downloaded partials and the combined result of red[loc_of[r]]. */
void fg__reduce_combine_loc(const fg_program *p, const fg__pkernel *k, int r,
                            const void *value_partials, const void *value,
                            const void *partials, void *out);
/* Bytes of the partials and of the result of host-combined kernel k's
 * reduction r (reduce.c). */
void fg__reduce_bytes(const fg_program *p, const fg__pkernel *k, int r,
                      size_t *partials, size_t *result);
/* Folds n partials of a reduction (width components each) in order into
 * out, as the kernels fold a chunk: acc = acc op partial. */
void fg__combine_partials(fg_reduce_op op, fg_elem elem, int width,
                          const void *partials, int64_t n, void *out);

#endif
