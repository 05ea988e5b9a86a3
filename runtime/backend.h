/* runtime/backend.h - the backend interface: a struct of function pointers
 * that the CPU and OpenCL backends fill in (ggml's ggml_backend_i, SQLite's
 * io_methods).  The compiler and the runtime talk to devices only through
 * it; optional slots may be NULL and are reached through the wrappers
 * below.  Internal. */
#ifndef FG_RUNTIME_BACKEND_H
#define FG_RUNTIME_BACKEND_H

#include "emit/emit.h"

typedef struct fg__backend fg__backend;
typedef struct fg__kbin fg__kbin;        /* a built kernel */
typedef struct fg__buffer fg__buffer;    /* device memory */
typedef struct fg__event fg__event;      /* a chaining backend's event */

/* Called once when an asynchronous operation ended: st FG_OK and msg
 * NULL, or the failure and its message (valid during the call only). */
typedef void (*fg__done_fn)(void *arg, fg_status st, const char *msg);

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
  /* Optional, used for a run's inputs when wrap is NULL and the instance
   * sets inputs_in_place: a read-only buffer over host memory that the
   * caller leaves unchanged until the run completes (a device sharing the
   * host's memory reads it in place, instead of a copy uploaded at every
   * run). */
  fg_status (*wrap_input)(fg__backend *be, const void *host, size_t bytes,
                          fg__buffer **out);
  void (*buffer_free)(fg__backend *be, fg__buffer *b);
  /* A blocking copy into a buffer (a program's constants, at compile
   * time); runs use upload_async. */
  fg_status (*upload)(fg__backend *be, fg__buffer *dst, const void *src,
                      size_t bytes);
  /* Starts kernel k over threads (layers, rows, columns) and returns at
   * once: bufs are its inputs then outputs, dims their (L, R, C) followed
   * by the kernel's thread shape (which a reduction kernel iterates
   * itself, launched over its partials).  group is NULL for a kernel the
   * backend may tile freely, else the (rows, columns) of the work-group a
   * grouped kernel was written for.  A chaining backend (chains below)
   * runs it after the n_wait events in wait and, when ev is non-NULL,
   * stores in *ev an event later launches may wait on.  done(arg, st,
   * msg) is called exactly once, from any thread, when the kernel
   * finished (msg NULL) or failed; a non-OK return means it never started
   * and done is not called.  Called from one thread at a time. */
  fg_status (*launch)(fg__backend *be, fg__kbin *k, int nbuf,
                      fg__buffer *const *bufs, const int64_t *dims,
                      const int64_t *threads, const int *group,
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
  void (*destroy)(fg__backend *be);
} fg__backend_i;

/* The part of a backend every implementation shares. */
struct fg__backend {
  const fg__backend_i *i;
  char device[640];            /* one-line description */
  char *errmsg;                /* the owning context's message buffer */
  size_t errlen;
  fg_context_stats *stats;     /* the owning context's counters */
  int max_kernel_buffers;      /* most buffers one kernel may take */
  bool inputs_in_place;        /* wrap_input may alias run inputs */
  bool chains;                 /* operations may be queued behind events
                                  of unfinished ones (OpenCL); otherwise
                                  the runtime starts an operation only
                                  when the ones it needs have finished */
};

/* Writes a message into the backend's context; returns st. */
fg_status fg__be_fail(fg__backend *be, fg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether kernels read a run's inputs where the caller keeps them. */
bool fg__be_wraps_inputs(const fg__backend *be);

/* Backend constructors. */
fg_status fg__cpu_backend_new(const fg_context_options *opt,
                              const char *cache_dir, fg__backend **out,
                              char *err, size_t errlen);
fg_status fg__opencl_backend_new(const fg_context_options *opt,
                                 const char *cache_dir, fg__backend **out,
                                 char *err, size_t errlen);

#endif
