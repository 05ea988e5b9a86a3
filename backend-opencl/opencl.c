/* backend-opencl/opencl.c - the OpenCL backend: one device chosen by
 * options, $FG_DEVICE (read by the context) or the default rule (a GPU if any, else the first
 * device), an out-of-order command queue (in order where the device has
 * no other), events bridged to callbacks, kernels built through the binary
 * cache (build.c), buffers, transfers and launches.  Every cl_int is
 * turned into a status and a message naming the call, the error and the
 * kernel here, at the backend boundary. */
#include "config.h"
#include "cl_impl.h"
#include "emit/abi.h"
#include "runtime/backend.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct fg__kbin {
  cl_program prog;
  cl_kernel kernel;
  char name[128];
};

struct fg__buffer {
  cl_mem mem;
  size_t bytes;
  void *mapped;               /* ocl_pin's: where the host sees it */
};

typedef struct cl_backend {
  fg__backend base;
  fgcl_device_info dev;
  cl_context ctx;
  cl_command_queue queue;
  cl_mem go;                  /* a stop flag that stays 0: the argument of
                                 kernels that do not poll (emit/abi.h) */
  fgtc_cache cache;           /* CACHE/opencl; dirfd -1: not cached */
  fgcl_stops *stops;          /* stop flags written to the device (stop.c);
                                 NULL: kernels read the host's in place */
  fgcl_events *events;        /* the thread waiting for events (events.c) */
} cl_backend;

/* Releases a launch's stop-flag buffer (and forgets it). */
static void drop_stop(cl_backend *cb, cl_mem stop) {
  if (!stop)
    return;
  if (cb->stops)
    fgcl_stops_forget(cb->stops, stop);
  clReleaseMemObject(stop);
}

static fg_status cl_fail(fg__backend *be, cl_int rc, const char *call,
                         const char *what) {
  return fg__be_fail(be, fgcl_status(rc), "%s%s%s%s: %s (%d) on %s",
                     what ? "kernel '" : "", what ? what : "",
                     what ? "': " : "", call, fgcl_error_name(rc), (int)rc,
                     be->device);
}

static fg_status ocl_build(fg__backend *be, const char *source,
                           const char *entry, const char *what,
                           const fg_compile_options *opt, fg__kbin **out) {
  cl_backend *cb = (cl_backend *)be;
  *out = NULL;
  /* -w: generated code draws warnings (extra parentheses) that drivers
   * print to stderr; errors still fail the build with their log.
   * Full precision divides and takes square roots correctly rounded where
   * the device can (OpenCL allows 2.5 ulp for float x / y by default, and
   * NVIDIA's GPUs use it): x / y are then the CPU backend's bits, and a
   * fused kernel's the unfused chain's.  Relaxed precision lets a * b + c
   * contract; not -cl-unsafe-math-optimizations, whose approximations on
   * GPUs (NVIDIA's log: 3.2 ulp; pown flushing results near FLT_MIN to 0)
   * leave the relaxed bounds check_math holds every device to, and which
   * measured no faster on the benchmarks (make bench, W1 and W2); and
   * FGK_FAST_MATH selects the relaxed grade of a CPU device's math
   * routines (emit/math_c.c), as the CPU backend's relaxed flags do */
  bool relaxed = opt && opt->precision == FG_PRECISION_RELAXED;
  const char *options =
      relaxed ? "-cl-std=CL1.2 -w -cl-mad-enable -DFGK_FAST_MATH=1"
      : cb->dev.fp32_rounded_div
          ? "-cl-std=CL1.2 -w -cl-fp32-correctly-rounded-divide-sqrt"
          : "-cl-std=CL1.2 -w";
  fg__kbin *k = calloc(1, sizeof *k);
  if (!k)
    return fg__be_fail(be, FG_ENOMEM, "kernel '%s': out of memory", what);
  snprintf(k->name, sizeof k->name, "%s", what);
  bool compiled = false;
  size_t errlen;
  char *err = fg__be_errbuf(be, &errlen);
  fg_status st = fgcl_build(cb->ctx, &cb->dev,
                            cb->cache.dirfd >= 0 ? &cb->cache : NULL, source,
                            options, what, &k->prog, &compiled, err, errlen);
  if (compiled)
    __atomic_fetch_add(&be->stats->kernels_compiled, 1, __ATOMIC_RELAXED);
  else if (st == FG_OK)
    __atomic_fetch_add(&be->stats->cache_hits, 1, __ATOMIC_RELAXED);
  if (st != FG_OK) {
    free(k);
    return st;
  }
  cl_int rc;
  k->kernel = clCreateKernel(k->prog, entry, &rc);
  if (rc != CL_SUCCESS) {
    clReleaseProgram(k->prog);
    free(k);
    return cl_fail(be, rc, "clCreateKernel", what);
  }
  *out = k;
  return FG_OK;
}

static void ocl_kernel_free(fg__backend *be, fg__kbin *k) {
  if (!k)
    return;
  clReleaseKernel(k->kernel);
  clReleaseProgram(k->prog);
  free(k);
}

static fg_status ocl_alloc(fg__backend *be, size_t bytes, fg__buffer **out) {
  cl_backend *cb = (cl_backend *)be;
  *out = NULL;
  if (bytes > cb->dev.max_mem_alloc_size)
    return fg__be_fail(be, FG_ENOMEM, "a buffer of %zu bytes exceeds the "
                       "largest memory allocation of %s (%llu bytes)", bytes,
                       be->device,
                       (unsigned long long)cb->dev.max_mem_alloc_size);
  fg__buffer *b = calloc(1, sizeof *b);
  if (!b)
    return fg__be_fail(be, FG_ENOMEM, "out of memory");
  cl_int rc;
  b->mem = clCreateBuffer(cb->ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL,
                          &rc);
  if (rc != CL_SUCCESS) {
    free(b);
    return cl_fail(be, rc, "clCreateBuffer", NULL);
  }
  b->bytes = bytes;
  *out = b;
  return FG_OK;
}

/* A run's input or output where the caller keeps it (zero copy): on a
 * device that shares the host's memory (cb->base.host_shared) kernels
 * read and write it in place instead of copies made at every run.
 * CL_MEM_USE_HOST_PTR asks that the memory be aligned for the types
 * kernels access it with (OpenCL 1.2, 6.1.5): generated kernels take
 * pointers to the element type and load small tensors with vloadN, so
 * the element's size is enough; PoCL 3.1 then uses the pointer itself as
 * the buffer's memory on its CPU device (lib/CL/clCreateBuffer.c; below
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN, 128 bytes, it only warns in debug
 * output).  Anything less aligned is copied (FG_ENOTSUP).  Results reach
 * the caller once a read of the buffer onto the same pointer ended
 * (download_async), which PoCL completes without copying
 * (pocl_driver_read). */
static fg_status ocl_wrap_host(fg__backend *be, void *host, size_t bytes,
                               size_t align, bool writes, fg__buffer **out) {
  cl_backend *cb = (cl_backend *)be;
  *out = NULL;
  if (bytes == 0 || !host || (align > 1 && (uintptr_t)host % align) ||
      bytes > cb->dev.max_mem_alloc_size)
    return FG_ENOTSUP;
  fg__buffer *b = calloc(1, sizeof *b);
  if (!b)
    return fg__be_fail(be, FG_ENOMEM, "out of memory");
  cl_int rc;
  b->mem = clCreateBuffer(cb->ctx, (writes ? CL_MEM_READ_WRITE
                                           : CL_MEM_READ_ONLY) |
                                       CL_MEM_USE_HOST_PTR,
                          bytes, host, &rc);
  if (rc != CL_SUCCESS) {
    free(b);
    return cl_fail(be, rc, "clCreateBuffer(CL_MEM_USE_HOST_PTR)", NULL);
  }
  b->bytes = bytes;
  *out = b;
  return FG_OK;
}

static void ocl_buffer_free(fg__backend *be, fg__buffer *b) {
  if (!b)
    return;
  if (b->mapped) {
    cl_backend *cb = (cl_backend *)be;
    cl_event ev;
    if (clEnqueueUnmapMemObject(cb->queue, b->mem, b->mapped, 0, NULL,
                                &ev) == CL_SUCCESS) {
      clWaitForEvents(1, &ev);
      clReleaseEvent(ev);
    }
  }
  clReleaseMemObject(b->mem);
  free(b);
}

/* Page-locked host memory for fg_host_alloc: a buffer the driver
 * allocates on the host (CL_MEM_ALLOC_HOST_PTR), mapped once; copies
 * between it and device buffers run at the bus's speed, where copies from
 * ordinary (pageable) memory go through the driver's own staging (NVIDIA's
 * OpenCL guide: about 5 GB/s against the link's 25 or more). */
static fg_status ocl_pin(fg__backend *be, size_t bytes, fg__buffer **out,
                         void **host) {
  cl_backend *cb = (cl_backend *)be;
  fg__buffer *b = calloc(1, sizeof *b);
  if (!b)
    return fg__be_fail(be, FG_ENOMEM, "out of memory");
  cl_int rc;
  b->mem = clCreateBuffer(cb->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                          bytes ? bytes : 1, NULL, &rc);
  if (rc == CL_SUCCESS)
    b->mapped = clEnqueueMapBuffer(cb->queue, b->mem, CL_TRUE,
                                   CL_MAP_READ | CL_MAP_WRITE, 0,
                                   bytes ? bytes : 1, 0, NULL, NULL, &rc);
  if (rc != CL_SUCCESS) {
    if (b->mem)
      clReleaseMemObject(b->mem);
    free(b);
    return cl_fail(be, rc, "page-locked host memory", NULL);
  }
  b->bytes = bytes;
  *out = b;
  *host = b->mapped;
  return FG_OK;
}

static fg_status ocl_upload(fg__backend *be, fg__buffer *dst, const void *src,
                            size_t bytes) {
  cl_backend *cb = (cl_backend *)be;
  if (bytes == 0)
    return FG_OK;
  cl_int rc = clEnqueueWriteBuffer(cb->queue, dst->mem, CL_TRUE, 0, bytes,
                                   src, 0, NULL, NULL);
  return rc == CL_SUCCESS ? FG_OK : cl_fail(be, rc, "clEnqueueWriteBuffer",
                                            NULL);
}

/* The events to wait for, without the NULLs of operations that finished
 * at once. */
static cl_uint wait_list(const fg__async *a, cl_event *out, cl_uint max) {
  cl_uint n = 0;
  for (int i = 0; i < a->n_wait && n < max; i++)
    if (a->wait[i])
      out[n++] = (cl_event)a->wait[i];
  return n;
}

/* After an enqueue that made ev: arranges for done and hands out ev
 * (events.c). */
static fg_status watch(cl_backend *cb, cl_event ev, const fg__async *a,
                       const char *what) {
  return fgcl_events_watch(cb->base.caps.event_wait ? cb->events : NULL,
                           &cb->base, cb->queue, cb->dev.name, ev, a, what);
}

/* Zero bytes: nothing to queue, done at once. */
static fg_status done_now(const fg__async *a) {
  if (a->ev)
    *a->ev = NULL;
  a->done(a->arg, FG_OK, NULL);
  return FG_OK;
}

/* One asynchronous copy between host memory and a buffer. */
static fg_status copy_async(fg__backend *be, cl_mem mem, bool to_device,
                            void *host, size_t bytes, const fg__async *a) {
  cl_backend *cb = (cl_backend *)be;
  if (bytes == 0)
    return done_now(a);
  cl_event w[FG_MAX_WAIT], ev;
  cl_uint nw = wait_list(a, w, FG_MAX_WAIT);
  cl_int rc = to_device
                  ? clEnqueueWriteBuffer(cb->queue, mem, CL_FALSE, 0, bytes,
                                         host, nw, nw ? w : NULL, &ev)
                  : clEnqueueReadBuffer(cb->queue, mem, CL_FALSE, 0, bytes,
                                        host, nw, nw ? w : NULL, &ev);
  if (rc != CL_SUCCESS)
    return cl_fail(be, rc, to_device ? "clEnqueueWriteBuffer"
                                     : "clEnqueueReadBuffer", NULL);
  return watch(cb, ev, a, to_device ? "upload" : "download");
}

static fg_status ocl_upload_async(fg__backend *be, fg__buffer *dst,
                                  const void *src, size_t bytes,
                                  const fg__async *a) {
  return copy_async(be, dst->mem, true, (void *)src, bytes, a);
}

static fg_status ocl_download_async(fg__backend *be, fg__buffer *src,
                                    void *dst, size_t bytes,
                                    const fg__async *a) {
  return copy_async(be, src->mem, false, dst, bytes, a);
}

static void ocl_event_release(fg__backend *be, fg__event *ev) {
  if (ev)
    clReleaseEvent((cl_event)ev);
}

static size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

/* Columns per work-item of a plain kernel on a CPU device (fg__caps.strip):
 * PoCL widens that loop 8 lanes (AVX2, AVX-512), and a longer loop spreads
 * its set-up.  The kernels alone on PoCL (loaded host, minimum of 5): W2
 * fused at 4096^2 with 16 / 32 / 64 / 128 columns 8.2 / 7.1-7.6 / 7.0-7.1
 * / 6.9 ms; W1 fused at 2048 x 1024 with 16 / 32 / 64 13.7-14.2 /
 * 13.7-14.3 / 13.4-13.9 ms (one pixel per work-item with float4 built-ins
 * before: 287-495 ms on the host loaded more). */
#define FGCL_CPU_STRIP 64
/* Rows such a work-item runs when its kernel computes values of the
 * column alone once into tables (emit/coltab.c): the tables' cost spread
 * over that many rows, which a work-item reads further apart the more
 * there are.  Resizes 4000x3000 -> 2000x1500 on PoCL (process CPU time,
 * 1 / 4 / 8 / 16 / 32 rows): nearest u8x3 11.5 / 8.2-8.9 / 8.4 / 8.4-8.6
 * / 9.0 ms, bilinear u8x3 13.5 / 12.5-12.9 / 12.6 / 14.9-17.3 / 18.1;
 * bilinear f32 4096^2 -> 3000^2 31.1 / 24.2-25.8 / 23.4 / 25.3-25.6 /
 * 36.5. */
#define FGCL_CPU_STRIP_ROWS 8

/* Whether the host's CPU, which runs a CPU device's kernels, has FMA. */
static bool host_has_fma(void) {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("fma");
#elif defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

/* Total work of a partials launch from which its work-items run alone. */
#define LONG_LOOP_WORK 16384

/* Work-group shape for a launch of (columns, rows): Cog's default 16 x 16
 * on GPUs, limited by the device; CPU devices get a row of columns, which
 * keeps each work-group's accesses contiguous. */
static void choose_local(const fgcl_device_info *d, size_t cols, size_t rows,
                         size_t local[3]) {
  size_t lx = d->is_gpu ? 16 : 64, ly = d->is_gpu ? 16 : 1;
  while (lx * ly > d->max_work_group_size && lx > 1)
    lx /= 2;
  while (lx * ly > d->max_work_group_size && ly > 1)
    ly /= 2;
  if (lx > d->max_work_item_sizes[0])
    lx = d->max_work_item_sizes[0];
  if (ly > d->max_work_item_sizes[1])
    ly = d->max_work_item_sizes[1];
  /* no group wider than the work itself */
  while (lx > 1 && lx / 2 >= cols)
    lx /= 2;
  /* a narrow launch (a reduction's partials, a row of a few hundred
   * columns) still gives every compute unit of a CPU device a group */
  while (!d->is_gpu && lx > 1 && rows * ((cols + lx - 1) / lx) <
                                     (size_t)d->compute_units)
    lx /= 2;
  while (ly > 1 && ly / 2 >= rows)
    ly /= 2;
  local[0] = lx ? lx : 1;
  local[1] = ly ? ly : 1;
  local[2] = 1;
}

/* Enqueues a zero fill, after the nw events in w, of every buffer of d
 * flagged in d->zero, and a copy of every buffer d->copy_from names;
 * *fills (malloc'd, NULL when none) and *nfill get their events. */
static cl_int zero_outputs(cl_backend *cb, const fg__launch *d,
                           const cl_event *w, cl_uint nw, cl_event **fills,
                           cl_uint *nfill) {
  *fills = NULL;
  *nfill = 0;
  if (!d->zero && !d->copy_from)
    return CL_SUCCESS;
  cl_event *ev = malloc((size_t)d->nbuf * sizeof *ev);
  if (!ev)
    return CL_OUT_OF_HOST_MEMORY;
  const cl_uchar zero = 0;
  cl_int rc = CL_SUCCESS;
  cl_uint n = 0;
  for (int i = 0; i < d->nbuf && rc == CL_SUCCESS; i++) {
    int from = d->copy_from ? d->copy_from[i] : -1;
    if (d->zero && d->zero[i] && d->bufs[i]->bytes > 0 &&
        (rc = clEnqueueFillBuffer(cb->queue, d->bufs[i]->mem, &zero,
                                  sizeof zero, 0, d->bufs[i]->bytes, nw,
                                  nw ? w : NULL, &ev[n])) == CL_SUCCESS)
      n++;
    else if (rc == CL_SUCCESS && from >= 0 && d->bufs[i]->bytes > 0 &&
             d->bufs[from]->mem != d->bufs[i]->mem &&
             (rc = clEnqueueCopyBuffer(cb->queue, d->bufs[from]->mem,
                                       d->bufs[i]->mem, 0, 0,
                                       d->bufs[i]->bytes, nw, nw ? w : NULL,
                                       &ev[n])) == CL_SUCCESS)
      n++;
  }
  if (rc != CL_SUCCESS || n == 0) {
    for (cl_uint i = 0; i < n; i++)
      clReleaseEvent(ev[i]);
    free(ev);
    return rc;
  }
  *fills = ev;
  *nfill = n;
  return CL_SUCCESS;
}

static fg_status ocl_launch(fg__backend *be, fg__kbin *k,
                            const fg__launch *d, const fg__async *a) {
  cl_backend *cb = (cl_backend *)be;
  int nbuf = d->nbuf;
  const int64_t *t = d->threads;
  cl_int rc = CL_SUCCESS;
  for (int i = 0; i < nbuf && rc == CL_SUCCESS; i++)
    rc = clSetKernelArg(k->kernel, fge_cl_buffer_arg(i), sizeof(cl_mem),
                        &d->bufs[i]->mem);
  for (int i = 0; i < fge_abi_dim_count(nbuf) && rc == CL_SUCCESS; i++) {
    cl_long v = d->dims[i];
    rc = clSetKernelArg(k->kernel, fge_cl_dim_arg(nbuf, i), sizeof v, &v);
  }
  if (rc != CL_SUCCESS)
    return cl_fail(be, rc, "clSetKernelArg", k->name);
  /* The stop flag: a kernel that polls it reads the run's flag where the
   * host sets it (a device sharing the host's memory sees the store while
   * the kernel runs), or a copy on the device that a cancel writes
   * (stop.c); the command keeps the buffer alive until the kernel ended. */
  cl_mem stop = NULL;
  if (d->polls && cb->stops) {
    stop = fgcl_stops_watch(cb->stops, d->stop, FGE_STOP_ALIGN, &rc);
    if (rc != CL_SUCCESS)
      return cl_fail(be, rc, "clCreateBuffer(stop flag)", k->name);
  } else if (d->polls) {
    stop = clCreateBuffer(cb->ctx, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                          FGE_STOP_ALIGN, (void *)d->stop, &rc);
    if (rc != CL_SUCCESS)
      return cl_fail(be, rc, "clCreateBuffer(stop flag)", k->name);
  } else if (!cb->go) {
    const cl_int zero[1] = {0};
    cb->go = clCreateBuffer(cb->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            sizeof zero, (void *)zero, &rc);
    if (rc != CL_SUCCESS) {
      cb->go = NULL;
      return cl_fail(be, rc, "clCreateBuffer(stop flag)", k->name);
    }
  }
  rc = clSetKernelArg(k->kernel, fge_cl_stop_arg(nbuf), sizeof(cl_mem),
                      stop ? &stop : &cb->go);
  if (rc != CL_SUCCESS) {
    drop_stop(cb, stop);
    return cl_fail(be, rc, "clSetKernelArg", k->name);
  }
  size_t local[3], global[3];
  /* a work-item of a strip kernel runs d->strip columns (fge_strip), of
   * d->strip_rows rows where it has column tables (fgk_emit_target) */
  size_t strip = d->strip > 1 ? (size_t)d->strip : 1;
  size_t cols = ((size_t)t[2] + strip - 1) / strip;
  size_t srows = d->strip_rows > 1 ? (size_t)d->strip_rows : 1;
  size_t rows = ((size_t)t[1] + srows - 1) / srows;
  if (d->kind == FG__LAUNCH_GROUPED) {
    /* the work-group the operator was written for, or an error */
    local[FGE_CL_AXIS_COLUMNS] = (size_t)d->group[1];
    local[FGE_CL_AXIS_ROWS] = (size_t)d->group[0];
    local[2] = 1;
    if (local[0] * local[1] > cb->dev.max_work_group_size ||
        local[0] > cb->dev.max_work_item_sizes[0] ||
        local[1] > cb->dev.max_work_item_sizes[1]) {
      drop_stop(cb, stop);
      return fg__be_fail(be, FG_ENOTSUP, "kernel '%s': a work-group of %zu x "
                         "%zu threads exceeds %s (at most %zu threads, %zu x "
                         "%zu)", k->name, local[1], local[0], be->device,
                         cb->dev.max_work_group_size,
                         cb->dev.max_work_item_sizes[1],
                         cb->dev.max_work_item_sizes[0]);
    }
  } else {
    choose_local(&cb->dev, cols, rows, local);
    /* Partials are few work-items that each loop over a long chunk.  On
     * a CPU device a group of one work-item leaves that loop as written
     * (PoCL would otherwise interleave the loops of a group's work-items,
     * keeping each one's accumulator, a histogram say, in memory):
     * histogram over 4096 x 4096 7.0 -> 5.1 ms.  Small reductions keep
     * the usual groups. */
    if (!cb->dev.is_gpu && d->kind == FG__LAUNCH_PARTIALS &&
        d->partials * d->work_per_item >= LONG_LOOP_WORK)
      local[0] = local[1] = 1;
  }
  global[FGE_CL_AXIS_COLUMNS] = round_up(cols, local[FGE_CL_AXIS_COLUMNS]);
  global[FGE_CL_AXIS_ROWS] = round_up(rows, local[FGE_CL_AXIS_ROWS]);
  global[FGE_CL_AXIS_LAYERS] = (size_t)t[0];
  cl_event w[FG_MAX_WAIT], ev;
  cl_uint nw = wait_list(a, w, FG_MAX_WAIT);
  cl_event *fills = NULL;
  cl_uint nfill = 0;
  rc = zero_outputs(cb, d, w, nw, &fills, &nfill);
  if (rc != CL_SUCCESS) {
    drop_stop(cb, stop);
    return cl_fail(be, rc, "clEnqueueFillBuffer", k->name);
  }
  /* the fills waited for w: the kernel follows them (out-of-order queue) */
  rc = clEnqueueNDRangeKernel(cb->queue, k->kernel, 3, NULL, global, local,
                              nfill ? nfill : nw,
                              nfill ? fills : nw ? w : NULL, &ev);
  for (cl_uint i = 0; i < nfill; i++)
    clReleaseEvent(fills[i]);
  free(fills);
  if (rc != CL_SUCCESS) {
    drop_stop(cb, stop);
    return cl_fail(be, rc, "clEnqueueNDRangeKernel", k->name);
  }
  if (stop) {
    if (cb->stops)
      fgcl_stops_until(cb->stops, stop, ev);
    clReleaseMemObject(stop);
  }
  be->stats->kernel_launches++;
  char what[160];
  snprintf(what, sizeof what, "kernel '%s'", k->name);
  return watch(cb, ev, a, what);
}

/* A run was cancelled: its kernels on the device see the flag too. */
static void ocl_stop(fg__backend *be, const int *flag) {
  cl_backend *cb = (cl_backend *)be;
  if (cb->stops)
    fgcl_stops_signal(cb->stops, flag);
}

/* Contexts that something of ours still held when their backend ended:
 * each one leaked (a CUDA context costs hundreds of MB of host memory,
 * so a process that made contexts one after another ran out of them). */
static atomic_uint outlived;

unsigned fgcl_contexts_outlived(void) { return atomic_load(&outlived); }

/* Whether ctx has references besides ours once everything the backend
 * made is released.  A driver may still be running a completion callback,
 * which holds its event (and so the context) a moment after clFinish: the
 * count gets a second to settle. */
static bool context_outlives(cl_context ctx) {
  for (int i = 0; i < 1000; i++) {
    cl_uint refs = 0;
    if (clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs,
                         NULL) != CL_SUCCESS || refs <= 1)
      return false;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  return true;
}

static void ocl_destroy(fg__backend *be) {
  cl_backend *cb = (cl_backend *)be;
  fgcl_events_free(cb->events);      /* its events hold the context */
  fgcl_stops_free(cb->stops);
  if (cb->go)
    clReleaseMemObject(cb->go);
  if (cb->queue)
    clReleaseCommandQueue(cb->queue);
  if (cb->ctx) {
    if (context_outlives(cb->ctx))
      atomic_fetch_add(&outlived, 1);
    clReleaseContext(cb->ctx);
  }
  fgtc_cache_close(&cb->cache);
  free(cb);
}

static const fg__backend_i opencl_interface = {
  .name = "opencl",
  .dialect = FGK_DIALECT_CL,
  .build = ocl_build,
  .kernel_free = ocl_kernel_free,
  .alloc = ocl_alloc,
  .wrap = NULL,
  .wrap_host = ocl_wrap_host,
  .buffer_free = ocl_buffer_free,
  .pin = ocl_pin,
  .upload = ocl_upload,
  .launch = ocl_launch,
  .upload_async = ocl_upload_async,
  .download_async = ocl_download_async,
  .event_release = ocl_event_release,
  .stop = ocl_stop,
  .destroy = ocl_destroy,
};

fg_status fg__opencl_backend_new(const fg__config *cfg, fg__backend **out,
                                 char *err, size_t errlen) {
  const char *cache_dir = cfg->cache_dir;
  *out = NULL;
  fgcl_device_info *list = NULL;
  int n = 0;
  fg_status st = fgcl_devices(&list, &n, err, errlen);
  if (st != FG_OK)
    return st;
  const char *sel = cfg->device;
  int idx = fgcl_select(list, n, sel, err, errlen);
  if (idx < 0) {
    free(list);
    return FG_ENODEV;
  }
  cl_backend *cb = calloc(1, sizeof *cb);
  if (!cb) {
    free(list);
    snprintf(err, errlen, "OpenCL backend: out of memory");
    return FG_ENOMEM;
  }
  cb->dev = list[idx];
  free(list);
  /* A cache folder that cannot be used (or is not safe to use) only
   * loses the caching: programs are still built from source. */
  char cerr[1024];
  if (fgtc_cache_open(&cb->cache, cache_dir, "opencl", cerr, sizeof cerr) !=
      FG_OK)
    fprintf(stderr, "fieldgraph: OpenCL programs will not be cached: %s\n",
            cerr);
  cl_int rc;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)cb->dev.platform, 0};
  cb->ctx = clCreateContext(props, 1, &cb->dev.device, NULL, NULL, &rc);
  /* out of order where the device can: independent kernels and runs
   * overlap, ordered only by the events each command waits for */
  cl_command_queue_properties qp = 0;
  if (rc == CL_SUCCESS &&
      clGetDeviceInfo(cb->dev.device, CL_DEVICE_QUEUE_PROPERTIES, sizeof qp,
                      &qp, NULL) == CL_SUCCESS)
    qp &= CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
  else
    qp = 0;
  if (rc == CL_SUCCESS)
    cb->queue = clCreateCommandQueue(cb->ctx, cb->dev.device, qp, &rc);
  if (rc != CL_SUCCESS) {
    snprintf(err, errlen, "OpenCL backend: %s failed with %s (%d) on device "
             "'%s'", cb->ctx ? "clCreateCommandQueue" : "clCreateContext",
             fgcl_error_name(rc), (int)rc, cb->dev.name);
    st = fgcl_status(rc);
    ocl_destroy(&cb->base);
    return st;
  }
  snprintf(cb->base.device, sizeof cb->base.device,
           "OpenCL device %d: %s (%s, %s, driver %s)", cb->dev.index,
           cb->dev.name, cb->dev.is_gpu ? "GPU" : "CPU",
           cb->dev.platform_name, cb->dev.driver_version);
  /* a device that does not share the host's memory does not see the
   * host's stop flag while a kernel runs: a copy on the device is
   * written instead.  Measured on an H100 (NVIDIA's driver 580):
   * check_deadline's endless kernels stop, 7 tests in 7 s; PoCL's CPU
   * device, which reads the flag in place, would not run the write
   * before the kernel ended (it orders commands on one buffer) */
  if (!cb->dev.host_unified) {
    cb->stops = fgcl_stops_new(cb->ctx, cb->dev.device);
    if (!cb->stops) {
      snprintf(err, errlen, "OpenCL backend: out of memory");
      ocl_destroy(&cb->base);
      return FG_ENOMEM;
    }
  }
  if (!(cb->events = fgcl_events_new())) {
    snprintf(err, errlen, "OpenCL backend: out of memory");
    ocl_destroy(&cb->base);
    return FG_ENOMEM;
  }
  cb->base.i = &opencl_interface;
  /* a device sharing the host's memory uses run inputs and outputs in
   * place (ocl_wrap_host): one answering CL_DEVICE_HOST_UNIFIED_MEMORY
   * true (PoCL 3.1's CPU device does), or a CPU device, which runs on the
   * host (the query is deprecated since OpenCL 2.0).  Discrete GPUs keep
   * their copies */
  cb->base.host_shared = cb->dev.host_unified || !cb->dev.is_gpu;
  cb->base.chains = true;
  cb->base.builds_concurrently = true;  /* OpenCL calls are thread safe */
  /* each buffer is a cl_mem and three longs of extents; the thread shape
   * takes three more longs */
  size_t per = sizeof(cl_mem) + 3 * sizeof(cl_long);
  size_t room = cb->dev.max_parameter_size > 3 * sizeof(cl_long)
                    ? cb->dev.max_parameter_size - 3 * sizeof(cl_long) : 0;
  cb->base.caps = (fg__caps){
    .fp64 = cb->dev.fp64,
    .int64_atomics = cb->dev.int64_atomics,
    .max_group_size = cb->dev.max_work_group_size,
    .max_buffers = room / per > FG_MAX_KERNEL_BUFFERS
                       ? FG_MAX_KERNEL_BUFFERS : (int)(room / per),
    .local_mem = cb->dev.local_mem_size,
    .f32_div_rounded = cb->dev.fp32_rounded_div,
    .strip = cb->dev.is_gpu ? 1 : FGCL_CPU_STRIP,
    .strip_rows = FGCL_CPU_STRIP_ROWS,
    .fast_fma = !cb->dev.is_gpu && host_has_fma(),
    /* a discrete GPU's driver may call completion callbacks late
     * (events.c); PoCL's come at once, and a thread waiting in order
     * beside them made its pipelined runs slower (bench_opencl W4, 4 in
     * flight: 9.4-10.4 us a run without, 15-21 with) */
    .event_wait = cb->dev.is_gpu && !cb->dev.host_unified,
  };
  *out = &cb->base;
  return FG_OK;
}

fg_status fg_opencl_devices(fg_device_desc *out, int max, int *n,
                            char *errmsg, size_t errlen) {
  char scratch[8];
  if (!errmsg) {
    errmsg = scratch;
    errlen = sizeof scratch;
  }
  if (!n || max < 0 || (max > 0 && !out)) {
    snprintf(errmsg, errlen, "fg_opencl_devices: %s", !n ? "n is NULL"
             : max < 0 ? "max is negative" : "out is NULL");
    return FG_EINVAL;
  }
  *n = 0;
  fgcl_device_info *list = NULL;
  int count = 0;
  fg_status st = fgcl_devices(&list, &count, errmsg, errlen);
  if (st != FG_OK)
    return st;
  for (int i = 0; i < count && i < max; i++) {
    fg_device_desc *d = &out[i];
    memset(d, 0, sizeof *d);
    d->index = list[i].index;
    snprintf(d->name, sizeof d->name, "%s", list[i].name);
    snprintf(d->platform, sizeof d->platform, "%s", list[i].platform_name);
    snprintf(d->vendor, sizeof d->vendor, "%s", list[i].vendor);
    snprintf(d->driver, sizeof d->driver, "%s", list[i].driver_version);
    snprintf(d->version, sizeof d->version, "%s", list[i].device_version);
    d->is_gpu = list[i].is_gpu;
    d->compute_units = list[i].compute_units;
    d->max_work_group_size = list[i].max_work_group_size;
    d->global_mem = list[i].global_mem_size;
    d->local_mem = list[i].local_mem_size;
    d->max_alloc = list[i].max_mem_alloc_size;
    d->max_parameter_size = list[i].max_parameter_size;
    d->fp64 = list[i].fp64;
  }
  *n = count;
  free(list);
  return FG_OK;
}
