/* runtime/backend.h - the backend interface: a struct of function pointers
 * that the CPU and OpenCL backends fill in (ggml's ggml_backend_i, SQLite's
 * io_methods).  The compiler and the runtime talk to devices only through
 * it; optional slots may be NULL and are reached through the wrappers
 * below.  Internal. */
#ifndef FG_RUNTIME_BACKEND_H
#define FG_RUNTIME_BACKEND_H

#include "dsl/emit.h"

typedef struct fg__backend fg__backend;
typedef struct fg__kbin fg__kbin;        /* a built kernel */
typedef struct fg__buffer fg__buffer;    /* device memory */

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
  void (*buffer_free)(fg__backend *be, fg__buffer *b);
  fg_status (*upload)(fg__backend *be, fg__buffer *dst, const void *src,
                      size_t bytes);
  fg_status (*download)(fg__backend *be, fg__buffer *src, void *dst,
                        size_t bytes);
  /* Runs kernel k over threads (layers, rows, columns): bufs are its
   * inputs then outputs, dims their (L, R, C) followed by the kernel's
   * thread shape (which a reduction kernel iterates itself, launched over
   * its partials).  group is NULL for a kernel the backend may tile
   * freely, else the (rows, columns) of the work-group a grouped kernel
   * was written for. */
  fg_status (*launch)(fg__backend *be, fg__kbin *k, int nbuf,
                      fg__buffer *const *bufs, const int64_t *dims,
                      const int64_t *threads, const int *group);
  /* Waits for everything launched to finish. */
  fg_status (*wait)(fg__backend *be);
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
};

/* Writes a message into the backend's context; returns st. */
fg_status fg__be_fail(fg__backend *be, fg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A buffer aliasing host memory where the backend can, else a copy. */
fg_status fg__be_wrap_or_upload(fg__backend *be, void *host, size_t bytes,
                                fg__buffer **out);

/* Backend constructors. */
fg_status fg__cpu_backend_new(const fg_context_options *opt,
                              const char *cache_dir, fg__backend **out,
                              char *err, size_t errlen);
fg_status fg__opencl_backend_new(const fg_context_options *opt,
                                 const char *cache_dir, fg__backend **out,
                                 char *err, size_t errlen);

#endif
