/* runtime/backend.h - the backend interface: a struct of function pointers
 * that the CPU and OpenCL backends fill in (ggml's ggml_backend_i, SQLite's
 * io_methods).  The compiler and the runtime talk to devices only through
 * it; optional slots may be NULL and are reached through the wrappers
 * below.  Internal. */
#ifndef FG_RUNTIME_BACKEND_H
#define FG_RUNTIME_BACKEND_H

#include "ir/foreign.h"      /* fgk_dialect */

typedef struct fg__backend fg__backend;
typedef struct fg__kbin fg__kbin;        /* a built kernel */
typedef struct fg__buffer fg__buffer;    /* device memory */
typedef struct fg__event fg__event;      /* a chaining backend's event */
typedef struct fg__launch fg__launch;

/* Called once when an asynchronous operation ended: st FG_OK and msg
 * NULL, or the failure and its message (valid during the call only). */
typedef void (*fg__done_fn)(void *arg, fg_status st, const char *msg);

/* Most buffers one kernel takes, on any backend: a backend's caps may say
 * fewer, never more (fg__be_check_needs refuses a kernel past its caps, so
 * a launch's buffer table of this size is never overrun). */
#define FG_MAX_KERNEL_BUFFERS 128

/* Most kernels one launch_band runs. */
#define FG_BAND_STAGES 8

/* Most events one operation waits for. */
#define FG_MAX_WAIT 256

/* How an asynchronous operation starts and reports. */
typedef struct fg__async {
  int n_wait;                  /* events it must follow (chaining only),
                                  at most FG_MAX_WAIT */
  fg__event *const *wait;
  fg__event **ev;              /* NULL, or where its own event goes */
  fg__done_fn done;
  void *arg;
} fg__async;

/* What a launch is, so that a backend never guesses it from sizes. */
typedef enum fg__launch_kind {
  FG__LAUNCH_MAP,        /* pointwise: one cheap thread per point, tiled
                            freely by the backend */
  FG__LAUNCH_GROUPED,    /* work-group kernel: runs in groups of exactly
                            group[0] rows x group[1] columns */
  FG__LAUNCH_PARTIALS    /* reduction: `partials` threads, each folding
                            about work_per_item points in a loop */
} fg__launch_kind;

/* One kernel launch.  bufs and dims follow emit/abi.h (inputs then
 * outputs; their extent triples, then the thread shape); threads is what
 * to launch (layers, rows, columns). */
typedef struct fg__launch {
  fg__launch_kind kind;
  int nbuf;
  fg__buffer *const *bufs;
  const int64_t *dims;
  int64_t threads[3];
  int group[2];              /* GROUPED: (rows, columns) */
  int64_t partials;          /* PARTIALS: how many items */
  int64_t work_per_item;     /* PARTIALS: points each item folds; MAP:
                                about the points each thread's loops read
                                (0: no loops), for tiling */
  const bool *zero;          /* NULL, or nbuf flags: buffers the backend
                                sets to zero before the kernel runs */
  const int *copy_from;      /* NULL, or nbuf: -1, or the buffer whose
                                bytes the backend copies into this one
                                before the kernel runs (same size) */
  const int *stop;           /* the run's stop flag (emit/abi.h), never
                                NULL; other threads set it (atomically)
                                while the kernel runs */
  bool polls;                /* the kernel's loops poll stop: it may run
                                until stopped, so never on the calling
                                thread */
  int strip;                 /* columns per work-item (fge_strip; 0 or
                                1: one) */
  int strip_rows;            /* rows per work-item (fgk_emit_target.rows;
                                0 or 1: one) */
  const bool *band_private;  /* NULL, or nbuf flags: in a launch_band
                                chain, outputs that only later kernels of
                                the chain read, near their own rows
                                (within their reach), with border
                                rules that stay near the field's edges;
                                set on every kernel but the last for all
                                their outputs, or on none.  While the chain
                                runs in bands the backend may keep only
                                the rows still to be read, in memory of
                                its own, and never write the buffers */
} fg__launch;

/* What a device can run.  fg_compile refuses a kernel needing more. */
typedef struct fg__caps {
  bool fp64;                 /* double precision */
  bool int64_atomics;        /* atomics on 64-bit integers */
  size_t max_group_size;     /* threads in one work-group */
  int max_buffers;           /* buffers one kernel may take */
  uint64_t local_mem;        /* bytes of work-group (local) memory */
  bool f32_div_rounded;      /* float x / y correctly rounded, as the host
                                divides (host_eval.h) */
  bool host_eval;            /* one-point kernels of plain arithmetic may
                                run on the host (not FG_CAP_HOST_EVAL) */
  int strip;                 /* > 1: a CPU OpenCL device that widens a
                                work-item's loops, not its vector types
                                (PoCL): plain kernels run rows of this
                                many columns per work-item (fge_strip) */
  int strip_rows;            /* with strip: rows such a work-item runs when
                                its kernel has column tables
                                (fgk_emit_target) */
  bool fast_fma;             /* fma is an instruction of the device */
  bool row_windows;          /* launch_band keeps band_private outputs in
                                windows of rows (not FG_CAP_ROW_WINDOWS) */
  bool event_wait;           /* OpenCL: a thread waits for each operation's
                                event beside the driver's callback (not
                                FG_CAP_EVENT_WAIT) */
} fg__caps;

/* Settings a backend is made with: fg_context_options resolved against
 * the environment, which fg_context_new reads once. */
typedef struct fg__config {
  int threads;               /* CPU worker threads; 0: one per core */
  const char *cache_dir;     /* kernel cache root */
  const char *device;        /* OpenCL device selector ($FG_DEVICE) */
  const char *cpu_march;     /* -march value ($FG_CPU_MARCH) */
  const char *clang;         /* C compiler ($FG_CLANG) */
} fg__config;

/* Objects the backend seam has handed out and not yet taken back. */
typedef struct fg__live_counts {
  int64_t buffers, kernels, events;
} fg__live_counts;

typedef struct fg__backend_i {
  const char *name;            /* "cpu", "opencl" */
  fgk_dialect dialect;         /* what source it builds */
  /* Builds source (or loads it from the cache); entry is the kernel
   * function's name, what names the kernel in messages. */
  fg_status (*build)(fg__backend *be, const char *source, const char *entry,
                     const char *what, const fg_compile_options *opt,
                     fg__kbin **out);
  void (*kernel_free)(fg__backend *be, fg__kbin *k);
  fg_status (*alloc)(fg__backend *be, size_t bytes, fg__buffer **out);
  /* Optional: a buffer that aliases host memory (no copy). */
  fg_status (*wrap)(fg__backend *be, void *host, size_t bytes,
                    fg__buffer **out);
  /* Optional, used when wrap is NULL and the instance sets host_shared
   * (its device works on the host's memory): a buffer over a run's input
   * (writes false) or output (writes true) where the caller keeps it,
   * which kernels read and write in place.  The caller leaves an input
   * unchanged and an output untouched until the run completed; an
   * output's results are in its memory once a download_async from the
   * buffer onto that same memory ended (the synchronisation the device's
   * API asks for; no copy there).  FG_ENOTSUP, without a message, when
   * host cannot be aliased (not aligned to align bytes, the natural
   * alignment of the field's element type): the run copies it instead. */
  fg_status (*wrap_host)(fg__backend *be, void *host, size_t bytes,
                         size_t align, bool writes, fg__buffer **out);
  void (*buffer_free)(fg__backend *be, fg__buffer *b);
  /* Optional, for a device with memory of its own: a buffer whose memory
   * is page-locked host memory, mapped at *host until the buffer is
   * freed, which the device copies to and from at the bus's full speed
   * (fg_host_alloc).  NULL: ordinary memory serves as well. */
  fg_status (*pin)(fg__backend *be, size_t bytes, fg__buffer **out,
                   void **host);
  /* A blocking copy into a buffer (a program's constants, at compile
   * time); runs use upload_async. */
  fg_status (*upload)(fg__backend *be, fg__buffer *dst, const void *src,
                      size_t bytes);
  /* Starts kernel k as l describes (below) and returns at once.  A
   * chaining backend (chains below) runs it after the n_wait events in
   * a->wait and, when a->ev is non-NULL, stores in *a->ev an event later
   * launches may wait on.  a->done(a->arg, st, msg) is called exactly
   * once, from any thread, when the kernel finished (msg NULL) or failed
   * (small work may run on the calling thread and call done before
   * launch returns: the runtime then applies it without a thread hop);
   * a non-OK return means it never started and done is not called.
   * Called from one thread at a time. */
  fg_status (*launch)(fg__backend *be, fg__kbin *k, const fg__launch *l,
                      const fg__async *a);
  /* Optional: starts the n kernels k[0..n) (launches l[0..n)) one after
   * another as one operation, with launch's rules, where each k[s] reads
   * the outputs of those before it only within reach[s] rows of its own
   * and all are plain map kernels over the same single layer of threads
   * (fuse/bands.c, runtime/compile.c): the backend may interleave their
   * rows, each row of an earlier kernel before any row of a later one
   * within reach of it, so that results are read while in cache.  Each
   * kernel runs every one of its threads (a kernel whose outputs are all
   * band_private, some of them more than once: only into memory of the
   * backend's own), so the results are those of launching them in
   * order.  2 <= n <= FG_BAND_STAGES. */
  fg_status (*launch_band)(fg__backend *be, int n, fg__kbin *const *k,
                           const fg__launch *l, const int *reach,
                           const fg__async *a);
  /* Asynchronous copies host -> device and device -> host, with the same
   * rules as launch; host memory must stay valid until done. */
  fg_status (*upload_async)(fg__backend *be, fg__buffer *dst,
                            const void *src, size_t bytes,
                            const fg__async *a);
  fg_status (*download_async)(fg__backend *be, fg__buffer *src, void *dst,
                              size_t bytes, const fg__async *a);
  /* Releases an event from launch / upload_async / download_async. */
  void (*event_release)(fg__backend *be, fg__event *ev);
  /* Optional: stop flag was just set (a run cancelled); kernels polling
   * it on a device that cannot read it in place must learn it. */
  void (*stop)(fg__backend *be, const int *flag);
  void (*destroy)(fg__backend *be);
} fg__backend_i;

/* The part of a backend every implementation shares. */
struct fg__backend {
  const fg__backend_i *i;
  char device[640];            /* one-line description */
  char *errmsg;                /* the owning context's message buffer */
  size_t errlen;
  fg_context_stats *stats;     /* the owning context's counters */
  fg__caps caps;               /* what the device can run (after the
                                  context's disabled capabilities) */
  fg__live_counts live;        /* kept by the wrappers (backend.c) */
  bool host_shared;            /* wrap_host may alias a run's inputs and
                                  outputs (zero copy); cleared by
                                  FG_CAP_ZERO_COPY */
  bool chains;                 /* operations may be queued behind events
                                  of unfinished ones (OpenCL); otherwise
                                  the runtime starts an operation only
                                  when the ones it needs have finished */
  bool builds_concurrently;    /* build may run on several threads at once
                                  (its messages through fg__be_fail or
                                  fg__be_errbuf, its counters atomic) */
};

/* ---- backend.c: the seam ------------------------------------------------
 * Everything outside backend.c reaches a backend through these wrappers,
 * which handle optional slots and count live objects. */

/* Writes a message into the backend's context; returns st. */
fg_status fg__be_fail(fg__backend *be, fg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Makes the backend of kind kind (FG_BACKEND_CPU or _OPENCL). */
fg_status fg__be_new(fg_backend_kind kind, const fg__config *cfg,
                     fg__backend **out, char *err, size_t errlen);
void fg__be_destroy(fg__backend *be);
const char *fg__be_name(const fg__backend *be);
fgk_dialect fg__be_dialect(const fg__backend *be);

fg_status fg__be_build(fg__backend *be, const char *source,
                       const char *entry, const char *what,
                       const fg_compile_options *opt, fg__kbin **out);
/* One kernel of fg__be_build_many: what fg__be_build takes, and what
 * came of it. */
typedef struct fg__build_job {
  const char *source, *entry, *what;
  fg_compile_options opt;
  fg__kbin *bin;               /* out: the kernel, NULL unless st is OK */
  fg_status st;                /* out */
} fg__build_job;

/* Builds jobs[0..n) as fg__be_build would one after another, on up to one
 * thread per core when the backend builds concurrently.  Returns FG_OK, or
 * the status and message of the first job (lowest index) that failed;
 * then every kernel built is freed again and no job after the failing one
 * is started once the failure is known. */
fg_status fg__be_build_many(fg__backend *be, fg__build_job *jobs, int n);
/* The message buffer fg__be_fail writes on this thread (a build thread's
 * own during fg__be_build_many, else be's), and its size. */
char *fg__be_errbuf(fg__backend *be, size_t *len);
/* Makes fg__be_fail on this thread write into buf (len bytes, emptied)
 * instead of the backend's buffer; NULL goes back to the backend's. */
void fg__be_errbuf_redirect(char *buf, size_t len);
/* Frees k; NULL does nothing. */
void fg__be_kernel_free(fg__backend *be, fg__kbin *k);
fg_status fg__be_alloc(fg__backend *be, size_t bytes, fg__buffer **out);
/* Whether buffers may alias the caller's memory (optional wrap slot). */
bool fg__be_can_wrap(const fg__backend *be);
/* A buffer over host memory; FG_ENOTSUP when the backend cannot. */
fg_status fg__be_wrap(fg__backend *be, void *host, size_t bytes,
                      fg__buffer **out);
/* Whether kernels always use a run's inputs where the caller keeps them
 * (wrap: the runtime plans no uploads). */
bool fg__be_wraps_inputs(const fg__backend *be);
/* Whether a run's inputs and outputs may be aliased one by one with
 * fg__be_wrap_host (the runtime plans uploads and downloads, and skips an
 * aliased input's upload). */
bool fg__be_shares_host(const fg__backend *be);
/* A buffer over a run's input or output (wrap_host above): FG_OK, or
 * FG_ENOTSUP without a message when the run must copy it, or another
 * failure with its message. */
fg_status fg__be_wrap_host(fg__backend *be, void *host, size_t bytes,
                           size_t align, bool writes, fg__buffer **out);
/* Turns host sharing off unless on (FG_CAP_ZERO_COPY), and appends to
 * the device description how runs reach the caller's memory: in place,
 * copied because disabled, or copied to a device of its own.  Called once,
 * when the context opens the backend. */
void fg__be_set_zero_copy(fg__backend *be, bool on);
/* Frees b; NULL does nothing. */
void fg__be_buffer_free(fg__backend *be, fg__buffer *b);
/* The pin slot above: FG_ENOTSUP without a message where the backend has
 * none or its device shares the host's memory (ordinary memory is as
 * fast), else its status. */
fg_status fg__be_pin(fg__backend *be, size_t bytes, fg__buffer **out,
                     void **host);
fg_status fg__be_upload(fg__backend *be, fg__buffer *dst, const void *src,
                        size_t bytes);
fg_status fg__be_launch(fg__backend *be, fg__kbin *k, const fg__launch *l,
                        const fg__async *a);
/* Whether the backend runs chains of kernels in row bands
 * (launch_band). */
bool fg__be_can_band(const fg__backend *be);
/* launch_band above; only where fg__be_can_band. */
fg_status fg__be_launch_band(fg__backend *be, int n, fg__kbin *const *k,
                             const fg__launch *l, const int *reach,
                             const fg__async *a);
fg_status fg__be_upload_async(fg__backend *be, fg__buffer *dst,
                              const void *src, size_t bytes,
                              const fg__async *a);
fg_status fg__be_download_async(fg__backend *be, fg__buffer *src, void *dst,
                                size_t bytes, const fg__async *a);
/* A blocking copy out of a buffer (fg_buffer_read), after nothing else
 * uses it; the message is the backend's on failure. */
fg_status fg__be_download(fg__backend *be, fg__buffer *src, void *dst,
                          size_t bytes);
/* Releases ev; NULL does nothing. */
void fg__be_event_release(fg__backend *be, fg__event *ev);

/* What one kernel needs of a device (compile.c fills it from the IR). */
typedef struct fg__needs {
  bool fp64, int64_atomics;
  size_t group_size;         /* 0 unless grouped */
  int buffers;
  uint64_t local_mem;
} fg__needs;

/* FG_ENOTSUP with a message naming `what` (an operator) and the missing
 * capability when the device cannot run a kernel needing n, else FG_OK. */
fg_status fg__be_check_needs(fg__backend *be, const fg__needs *n,
                             const char *what);

/* Backend constructors (backend.c's registry calls them). */
fg_status fg__cpu_backend_new(const fg__config *cfg, fg__backend **out,
                              char *err, size_t errlen);
fg_status fg__opencl_backend_new(const fg__config *cfg, fg__backend **out,
                                 char *err, size_t errlen);

#endif
