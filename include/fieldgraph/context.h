/* fieldgraph/context.h - contexts, compiled programs and runs.
 *
 *   fg_context *ctx;
 *   fg_program *prog;
 *   if (fg_context_new(NULL, &ctx) != FG_OK) ...      // default backend
 *   if (fg_compile(ctx, g, NULL, &prog) != FG_OK)
 *     fprintf(stderr, "%s\n", fg_context_errmsg(ctx));
 *   const void *in[] = {pixels};
 *   void *out[] = {result};
 *   fg_program_run(prog, 1, in, 1, out);             // blocks until done
 *   fg_program_free(prog);
 *   fg_context_free(ctx);
 *
 * Runs are asynchronous underneath: fg_program_start returns at once and
 * a callback reports completion on the context's libuv loop;
 * fg_program_run is start + fg_run_wait.
 *
 *   static void done(fg_run *run, fg_status st, void *user) {
 *     if (st != FG_OK) fprintf(stderr, "%s\n", fg_run_errmsg(run));
 *   }
 *   for (int i = 0; i < n; i++)                      // up to max_runs at
 *     fg_program_start(prog, 1, &in[i], 1, &out[i],  // once, the rest wait
 *                      done, NULL, NULL);            // in a queue
 *   fg_context_wait(ctx);                            // or uv_run(loop, ..)
 *
 * Threads: a context, its programs and its runs belong to the thread that
 * runs the context's loop (or, with the context's own loop, the thread
 * calling fg_run_wait / fg_context_wait); callbacks are called on that
 * thread.  Kernels run on the backend's own threads.  Different contexts
 * are independent and may be used from different threads.
 *
 * What a kernel can do to its host: kernels are native code in the
 * calling process (the CPU backend loads them as a shared object; an
 * OpenCL CPU device such as PoCL runs them on the process's own threads).
 * A kernel from an untrusted source (a RenderScript pointer, or an input
 * that drives an address out of range) can write or read any memory of
 * the process and crash it (SIGSEGV) with every run, program and context
 * in it; no status reports that.  A kernel that never ends stops only at
 * fg_run_cancel or its deadline (run_timeout_ms).  To survive such
 * kernels, run them in a separate process and treat its death as the
 * input's failure, as `fieldgraph run` does (a worker process per job).
 */
#ifndef FIELDGRAPH_CONTEXT_H
#define FIELDGRAPH_CONTEXT_H

#include "graph.h"

#include <stdbool.h>

typedef struct fg_context fg_context;
typedef struct fg_program fg_program;
typedef struct fg_run fg_run;
struct uv_loop_s;

typedef enum fg_backend_kind {
  FG_BACKEND_DEFAULT,  /* $FG_BACKEND ("cpu" or "opencl"), else the CPU */
  FG_BACKEND_CPU,      /* C compiled by clang, run on a thread pool */
  FG_BACKEND_OPENCL    /* an OpenCL device */
} fg_backend_kind;

/* Floating-point precision of generated kernels. */
typedef enum fg_precision {
  FG_PRECISION_FULL,     /* IEEE results as the C library gives them */
  FG_PRECISION_RELAXED   /* fast-math: vectorized approximations allowed;
                            NaN and infinities still behave as IEEE's */
} fg_precision;

/* Options for fg_context_new; zero-initialize, then set what matters. */
typedef struct fg_context_options {
  fg_backend_kind backend;
  int threads;             /* CPU worker threads; 0: one per core */
  const char *cache_dir;   /* kernel cache; NULL: $FG_CACHE_DIR, else
                              $XDG_CACHE_HOME/fieldgraph, else
                              ~/.cache/fieldgraph, else
                              /tmp/fieldgraph-cache-UID.  It must be the
                              user's own and writable by no one else
                              (created 0700): else FG_EIO */
  const char *device;      /* OpenCL device: NULL means $FG_DEVICE, else a
                              GPU if one exists, else the first device;
                              "gpu", "cpu", an index from
                              fg_opencl_devices, or a piece of the name */
  struct uv_loop_s *loop;  /* libuv loop for completions; NULL: the
                              context makes and runs its own */
  int max_runs;            /* runs in flight at once (each has its own
                              buffers); more wait in a queue.  0: 4 */
  unsigned disable;        /* FG_CAP_* bits the device is treated as
                              lacking (testing what fg_compile refuses on
                              a smaller device); $FG_DISABLE ("fp64",
                              "int64_atomics", "host_eval", "strips",
                              "zero_copy", "row_windows", "event_wait",
                              comma-separated) adds more */
  unsigned run_timeout_ms; /* every run's deadline, from its start: a run
                              not ended by then fails with FG_ETIMEDOUT,
                              as fg_run_set_timeout.  0: none */
} fg_context_options;

/* Device capabilities that fg_context_options.disable can take away.  A
 * kernel needing a missing one fails fg_compile with FG_ENOTSUP and a
 * message naming the operator and the capability. */
enum {
  FG_CAP_FP64 = 1u << 0,           /* double precision (f64) */
  FG_CAP_INT64_ATOMICS = 1u << 1,  /* atomics on 64-bit integers */
  /* Not the device's: evaluating one-point kernels of plain arithmetic
   * (on reductions' results, constants, 0-D inputs) on the host, which
   * gives the device's bits without a launch.  Disabled, every kernel
   * runs on the device (to compare the two). */
  FG_CAP_HOST_EVAL = 1u << 2,
  /* Not the device's: on a CPU OpenCL device (PoCL), each work-item of a
   * plain kernel runs a row of columns as a loop its compiler vectorizes,
   * with small tensors as scalars.  Disabled, one point per work-item,
   * small tensors as OpenCL vectors (to compare the two). */
  FG_CAP_STRIPS = 1u << 3,
  /* Not the device's: on an OpenCL device sharing the host's memory (a
   * CPU device, CL_DEVICE_HOST_UNIFIED_MEMORY), kernels read a run's
   * inputs and write its outputs where the caller keeps them (suitably
   * aligned memory; other runs copy).  Disabled, every run copies its
   * inputs to device buffers and its outputs back (to compare the two). */
  FG_CAP_ZERO_COPY = 1u << 4,
  /* Not the device's: on the CPU backend, a chain of kernels run in row
   * bands keeps intermediates that only later kernels of the chain read
   * in small windows of rows ("kept only while read" in the fusion
   * report; fg_context_stats.windowed_chains).  Disabled, they go to
   * memory of their own size (to compare the two). */
  FG_CAP_ROW_WINDOWS = 1u << 5,
  /* Not the device's: on an OpenCL GPU with memory of its own, a thread
   * of the backend waits for each queued operation in turn
   * (clWaitForEvents) and reports its end beside the driver's completion
   * callback, whichever comes first (NVIDIA's driver calls callbacks
   * late: a kernel-only run on an H100 took 20 ms whatever it did).
   * Disabled, only callbacks report (to compare the two); CPU devices
   * always use callbacks alone. */
  FG_CAP_EVENT_WAIT = 1u << 6,
  FG_CAP_ALL_ = (1u << 7) - 1
};

/* One OpenCL device, as fg_opencl_devices describes it. */
typedef struct fg_device_desc {
  int index;                  /* what FG_DEVICE=<index> selects */
  char name[128], platform[128], vendor[128], driver[128], version[128];
  int is_gpu;
  unsigned compute_units;
  size_t max_work_group_size;
  uint64_t global_mem, local_mem, max_alloc;
  size_t max_parameter_size;
  int fp64;                   /* double precision supported */
} fg_device_desc;

/* Lists the OpenCL devices of every platform: fills out[0..max-1] and sets
 * *n to how many exist (which may exceed max).  FG_ENODEV with a message
 * when no OpenCL platform is installed.  Any thread. */
fg_status fg_opencl_devices(fg_device_desc *out, int max, int *n,
                            char *errmsg, size_t errlen);

/* Whether fg_compile fuses operators into fewer kernels. */
typedef enum fg_fusion {
  FG_FUSION_DEFAULT,   /* $FG_FUSION ("0" off, "check" check), else on */
  FG_FUSION_ON,
  FG_FUSION_OFF,       /* one kernel per operator (debugging, benchmarks) */
  FG_FUSION_CHECK      /* build both; every run computes both and fails
                          with FG_EBACKEND if any output differs */
} fg_fusion;

/* Options for fg_compile; zero-initialize, then set what matters. */
typedef struct fg_compile_options {
  fg_precision precision;
  fg_fusion fusion;
} fg_compile_options;

/* What fusion did to a program. */
typedef struct fg_fusion_stats {
  int kernels_unfused;        /* one per live operator */
  int kernels;                /* what a run launches */
  int fields_materialized;    /* operator results held in memory */
  int fields_virtual;         /* fused away: registers only */
  int64_t bytes_unfused;      /* global memory read + written per run, */
  int64_t bytes;              /* estimated from the buffers kernels touch */
} fg_fusion_stats;

/* Counters a context keeps, for tests and tuning. */
typedef struct fg_context_stats {
  uint64_t kernels_compiled;   /* compiler invocations */
  uint64_t cache_hits;         /* kernels loaded from the on-disk cache */
  uint64_t kernel_launches;
  uint64_t runs;
  uint64_t in_place;           /* run inputs and outputs kernels used
                                  where the caller keeps them (zero copy;
                                  FG_CAP_ZERO_COPY) */
  uint64_t copied;             /* run inputs and outputs copied to or from
                                  device memory (each run counts its
                                  program's own, not check mode's) */
  uint64_t windowed_chains;    /* launches of kernel chains run in row
                                  bands that kept their intermediate rows
                                  in small windows, never in the fields'
                                  memory (CPU backend; the fusion report
                                  says which fields may) */
} fg_context_stats;

/* Creates a context; opt may be NULL.  On failure *out is NULL and, when
 * errmsg is non-NULL, a message is written there (errlen bytes). */
fg_status fg_context_new(const fg_context_options *opt, fg_context **out,
                         char *errmsg, size_t errlen);
/* Frees a context after waiting for its runs (a run in an endless kernel
 * ends only by its deadline: free or cancel it first).  Programs, run
 * handles and buffers should be freed first; when some are still alive
 * (any order a user may plausibly write), the context becomes unusable but
 * stays allocated, and the last fg_program_free / fg_run_free /
 * fg_buffer_free frees it (as SQLite's sqlite3_close_v2).  Only those free
 * calls are allowed on them then.  NULL does nothing. */
void fg_context_free(fg_context *ctx);
/* Message of the context's last failure, "" if none; owned by ctx, valid
 * until the next call on ctx.  Never NULL. */
const char *fg_context_errmsg(const fg_context *ctx);
/* The backend in use ("cpu", "opencl"), and a one-line device description
 * owned by ctx. */
const char *fg_context_backend_name(const fg_context *ctx);
const char *fg_context_device(const fg_context *ctx);
/* Copies the context's counters into *stats. */
fg_status fg_context_get_stats(const fg_context *ctx, fg_context_stats *stats);

/* Objects of a context that are alive now: what a leak check compares
 * with zero before fg_context_free (loop_handles is 1 while the context
 * lives: its wake-up handle). */
typedef struct fg_live_objects {
  int64_t programs;            /* compiled and not freed */
  int64_t runs;                /* started and not destroyed (a run handle
                                  the caller holds counts until
                                  fg_run_free) */
  int64_t kernels;             /* built kernels held by programs */
  int64_t buffers;             /* device buffers (constants, pooled run
                                  buffers, aliases of caller memory) */
  int64_t events;              /* device events held by runs in flight */
  int64_t loop_handles;        /* libuv handles the context opened */
} fg_live_objects;

/* Fills *out with ctx's live objects.  Loop thread. */
fg_status fg_context_live(const fg_context *ctx, fg_live_objects *out);

/* Compiles graph g for ctx: checks it, fuses operators into kernels (see
 * fg_compile_options.fusion), plans buffers, generates and builds (or
 * loads from the cache) each kernel.  opt may be NULL.  With
 * $FG_DUMP_KERNELS set to a directory, every kernel's source is written
 * there.  The program owns what it needs: g may be freed afterwards. */
fg_status fg_compile(fg_context *ctx, fg_graph *g,
                     const fg_compile_options *opt, fg_program **out);
/* Frees a program after cancelling its runs still in flight and waiting
 * for them (a kernel stuck in an endless loop stops at its stop flag);
 * NULL does nothing. */
void fg_program_free(fg_program *prog);

/* Runs the program once and waits for it: inputs[i] points at the data of
 * graph input i (fg_type_bytes of its type, declaration order), outputs[i]
 * at room for graph output i.  Output memory must not overlap inputs or
 * other outputs.  On failure the message is in fg_context_errmsg.  Also
 * allowed inside a callback (see fg_run_wait). */
fg_status fg_program_run(fg_program *prog, int n_inputs,
                         const void *const *inputs, int n_outputs,
                         void *const *outputs);

/* ---- asynchronous runs ---------------------------------------------------
 * A run's kernels are scheduled by their dependencies (independent kernels
 * overlap), and up to max_runs runs (fg_context_options) are in flight at
 * once.  Inputs and outputs must stay valid, and outputs untouched, until
 * the run completed. */

/* Called once on the loop thread when a run ended: status FG_OK, the
 * failure (message in fg_run_errmsg), FG_ECANCELED or FG_ETIMEDOUT (its
 * deadline passed).  run is valid during the call. */
typedef void (*fg_run_cb)(fg_run *run, fg_status status, void *user);

/* Starts a run of prog with fg_program_run's arguments and returns at
 * once.  An output left NULL (or outputs NULL) is kept by the run, read
 * with fg_run_output / fg_run_get: a future.  cb may be NULL.  When out is non-NULL it receives a handle the
 * caller releases with fg_run_free; when NULL the run frees itself after
 * its callback.  A non-OK return (bad arguments) starts nothing and calls
 * nothing; the message is in fg_context_errmsg. */
fg_status fg_program_start(fg_program *prog, int n_inputs,
                           const void *const *inputs, int n_outputs,
                           void *const *outputs, fg_run_cb cb, void *user,
                           fg_run **out);
/* Waits for run to end, running the context's loop; returns its status.
 * Inside a callback on that loop (where uv_run must not be re-entered) it
 * sleeps until completions arrive and handles them itself. */
fg_status fg_run_wait(fg_run *run);
/* Cancels a run that has not ended: kernels not yet started never start,
 * kernels running stop at their next loop test (a loop that may not end
 * tests a stop flag; a counted one finishes), its buffers are released once
 * the ones in flight returned, its outputs are undefined, and its callback
 * gets FG_ECANCELED.  Does nothing to a run that ended.  Loop thread. */
void fg_run_cancel(fg_run *run);
/* Gives run a deadline ms milliseconds from now (0 removes it), replacing
 * any earlier one: if it has not ended by then it is cancelled and ends
 * with FG_ETIMEDOUT.  The loop must run to notice (fg_run_wait does, but
 * not a wait inside a callback).
 * FG_ESTATE when the run ended.  Loop thread. */
fg_status fg_run_set_timeout(fg_run *run, unsigned ms);
/* Whether run has ended (its callback was called). */
bool fg_run_done(const fg_run *run);
/* Status of an ended run; FG_ESTATE while it is in flight. */
fg_status fg_run_status(const fg_run *run);
/* Message of a failed run, "" otherwise; owned by the run. */
const char *fg_run_errmsg(const fg_run *run);
/* Output i of a run that ended well (the caller's memory or the run's own,
 * valid until fg_run_free); NULL while in flight or after a failure. */
const void *fg_run_output(const fg_run *run, int i);
/* A future's get: waits for run (as fg_run_wait), then copies output i
 * (size must be its fg_type_bytes) into dst, e.g. a reduction's value. */
fg_status fg_run_get(fg_run *run, int i, void *dst, size_t size);
/* Releases the caller's handle.  A run still in flight goes on and frees
 * itself after its callback.  NULL does nothing. */
void fg_run_free(fg_run *run);
/* Runs the context's loop until no run of ctx is in flight or queued
 * (inside a callback: as fg_run_wait). */
fg_status fg_context_wait(fg_context *ctx);
/* The loop the context reports completions on (its own or the user's). */
struct uv_loop_s *fg_context_loop(fg_context *ctx);
/* Changes how many runs may be in flight at once (n >= 1); queued runs
 * start as room frees up. */
fg_status fg_context_set_max_runs(fg_context *ctx, int n);

/* ---- fields kept on the device ----------------------------------------------
 * A buffer holds one field in the context's device memory between runs,
 * as Halide's device buffers and OpenCV's UMat do: a run given buffers
 * reads its inputs and writes its outputs there, so a pipeline of
 * programs (or the same program again) over data that stays on a GPU
 * copies nothing over the bus.  On the CPU backend a buffer is host memory.
 *
 *   fg_buffer *in, *out;
 *   fg_buffer_new(ctx, fg_program_input_type(prog, 0), &in);
 *   fg_buffer_new(ctx, fg_program_output_type(prog, 0), &out);
 *   fg_buffer_write(in, pixels, bytes);                // once
 *   fg_program_run_buffers(prog, 1, &in, 1, &out);    // no copy
 *   fg_buffer_read(out, result, bytes);                // when needed
 *
 * Order: a run with buffers begins only after every run started before it
 * that writes one of its buffers, or reads one it writes, has ended (runs
 * begin in the order they were started; they overlap otherwise).  Reads,
 * writes and frees of a buffer wait for the runs using it, started or
 * queued.  Loop thread, as runs. */
typedef struct fg_buffer fg_buffer;

/* Makes a buffer for one field of type t in ctx's device memory, filled
 * with zero bytes.  FG_EINVAL for an invalid type, FG_ENOMEM when the
 * device has no room (message in fg_context_errmsg). */
fg_status fg_buffer_new(fg_context *ctx, fg_type t, fg_buffer **out);
/* A buffer over the caller's memory at host (fg_type_bytes(t) bytes,
 * aligned for t's element type, valid until the buffer is freed): runs
 * over buffers take it as fg_program_run takes host memory (copied to
 * and from a GPU, used in place elsewhere), so one run mixes fields kept
 * on the device with the caller's, in the same order as other buffers.
 * The caller leaves it alone while runs use it. */
fg_status fg_buffer_wrap(fg_context *ctx, fg_type t, void *host,
                         fg_buffer **out);
/* Frees buf after the runs using it have ended (a wrapped buffer's memory
 * stays the caller's); NULL does nothing. */
void fg_buffer_free(fg_buffer *buf);
/* The field type buf holds (the zero type for NULL). */
fg_type fg_buffer_type(const fg_buffer *buf);
/* Copies size bytes (fg_type_bytes of its type, exactly) from src into
 * buf, after the runs using it have ended. */
fg_status fg_buffer_write(fg_buffer *buf, const void *src, size_t size);
/* Copies buf's size bytes (exactly) into dst, after the runs using it have
 * ended. */
fg_status fg_buffer_read(fg_buffer *buf, void *dst, size_t size);

/* Host memory (bytes, 16-byte aligned at least) that ctx's device copies
 * to and from at the bus's full speed: page-locked where the device has
 * memory of its own (a GPU; as cudaMallocHost), ordinary memory
 * elsewhere.  Runs whose
 * inputs and outputs lie in it copy faster (an H100: W1's 256 MB each way
 * from ordinary memory at about 5 GB/s).  NULL on failure (message in
 * fg_context_errmsg).  Page-locked memory is scarce: for run data. */
void *fg_host_alloc(fg_context *ctx, size_t bytes);
/* Frees a block of fg_host_alloc after ctx's runs have ended; NULL does
 * nothing, another pointer is refused (message in fg_context_errmsg). */
void fg_host_free(fg_context *ctx, void *p);

/* fg_program_run over buffers: inputs[i] and outputs[i] are buffers of
 * ctx holding exactly the type of graph input / output i.  A buffer may
 * be several inputs, but neither an input and an output nor two outputs. */
fg_status fg_program_run_buffers(fg_program *prog, int n_inputs,
                                 fg_buffer *const *inputs, int n_outputs,
                                 fg_buffer *const *outputs);
/* fg_program_start over buffers (every output given; the results are in
 * the buffers: fg_run_output is NULL, fg_run_get refuses). */
fg_status fg_program_start_buffers(fg_program *prog, int n_inputs,
                                   fg_buffer *const *inputs, int n_outputs,
                                   fg_buffer *const *outputs, fg_run_cb cb,
                                   void *user, fg_run **out);

/* Inputs and outputs of a compiled program, in declaration order. */
int fg_program_input_count(const fg_program *prog);
int fg_program_output_count(const fg_program *prog);
/* Name and type of input / output i; NULL / zero type when out of range.
 * Names are owned by the program. */
const char *fg_program_input_name(const fg_program *prog, int i);
const char *fg_program_output_name(const fg_program *prog, int i);
fg_type fg_program_input_type(const fg_program *prog, int i);
fg_type fg_program_output_type(const fg_program *prog, int i);
/* Index of the input / output with that name, -1 if none. */
int fg_program_input_index(const fg_program *prog, const char *name);
int fg_program_output_index(const fg_program *prog, const char *name);
/* Number of kernels the program runs per run, those the host evaluates
 * included (one-point arithmetic after reductions, FG_CAP_HOST_EVAL): the
 * fusion report marks them "(on the host)". */
int fg_program_kernel_count(const fg_program *prog);
/* Generated source of kernel i (dialect of the context's backend); owned by
 * the program; NULL when out of range. */
const char *fg_program_kernel_source(const fg_program *prog, int i);
/* Name of kernel i: its operators joined by '+' ("toUnitFloat+half");
 * NULL when out of range. */
const char *fg_program_kernel_name(const fg_program *prog, int i);
/* Precision kernel i was built with: the compile options', unless its
 * code asked for one (RenderScript's fp pragmas; a fused kernel is relaxed
 * only if all its operators allow it).  FULL when out of range. */
fg_precision fg_program_kernel_precision(const fg_program *prog, int i);
/* Time kernel i has taken over every run of prog so far: *seconds, from
 * each launch to its completion as the context's loop saw it (on a device
 * that queues launches, the wait behind earlier work included), and
 * *launches (either may be NULL; a kernel the host evaluates counts its
 * evaluations; kernels run together in row bands, as the fusion report
 * says, count their time on the last of them).  FG_EINVAL when out of
 * range. */
fg_status fg_program_kernel_time(const fg_program *prog, int i,
                                 double *seconds, long long *launches);

/* Fusion counters of a compiled program. */
fg_status fg_program_fusion_stats(const fg_program *prog,
                                  fg_fusion_stats *stats);
/* Why the field named field_name (an operator output, "half.out0") is held
 * in memory ("graph output", "non-local read by blur", ...); NULL when it
 * was fused away or is unknown.  Owned by the program. */
const char *fg_program_field_reason(const fg_program *prog,
                                    const char *field_name);
/* A readable report: kernels with their operators, each materialized
 * field with its reason, memory traffic before and after.  Owned by the
 * program. */
const char *fg_program_fusion_report(const fg_program *prog);

#endif
