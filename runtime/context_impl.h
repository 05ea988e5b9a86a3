/* runtime/context_impl.h - the body of fg_context: the backend, the
 * libuv loop and the queue that brings completions from device threads to
 * it, and the runs waiting for room.  Internal. */
#ifndef FG_RUNTIME_CONTEXT_IMPL_H
#define FG_RUNTIME_CONTEXT_IMPL_H

#include "backend.h"
#include "env.h"

#include <pthread.h>
#include <uv.h>

typedef struct fg__done_node fg__done_node;

/* A completion travelling from a device thread to the loop. */
struct fg__done_node {
  fg__done_node *next;
  fg_run *run;
  int var, task;
  fg_status st;
  char *msg;
  /* Set by the loop thread around starting the operation: a completion
   * reported on that same thread before the start returned (a copy, or a
   * small kernel run inline) is applied there, without the queue and the
   * loop's wake-up.  Other threads read only starter, written before the
   * operation was handed to them. */
  pthread_t starter;
  bool starting, inline_done;
  double t_start, t_end;    /* a kernel's launch and completion (fgu_now) */
};

struct fg_context {
  fg__backend *be;
  fg__env env;
  fg_context_stats stats;
  char cache_dir[4096];
  char errmsg[20000];      /* room for a compiler log */
  /* the loop and the bridge from other threads to it */
  uv_loop_t own_loop;
  uv_loop_t *loop;         /* &own_loop or the user's */
  uv_async_t *wake;        /* heap: closed asynchronously on a user loop */
  void (*process)(fg_context *ctx); /* what the loop calls for completions
                              (fg__ctx_process, given to fg__ctx_loop_init) */
  pthread_mutex_t mu;      /* guards done_head/done_tail only */
  fg__done_node *done_head, *done_tail;
  /* loop-thread state */
  int max_runs;
  unsigned run_timeout_ms; /* every run's deadline; 0: none */
  int active;              /* runs begun and not ended */
  fg_run *pending_head, *pending_tail;   /* runs waiting for room */
  fg_run *sweep;           /* runs whose state changed: look again */
  int depth;               /* nesting of the completion handler */
  pthread_cond_t done_cv;  /* signalled with each completion (waits
                              from inside a callback use it) */
  uint64_t runs_started;
  int64_t live_programs;   /* fg_context_live's counters */
  int64_t live_runs;
  int64_t live_buffers;    /* fg_buffer objects and fg_host_alloc blocks
                              not freed */
  struct fg__host_block *host_blocks;  /* fg_host_alloc's (buffer.c) */
  bool zombie;             /* fg_context_free was called while programs,
                              run handles or buffers lived: the last of them frees
                              the context (fg__ctx_release) */
  int64_t live_handles;
  uint64_t inject_run;     /* run_hooks.h: runs_started value that fails */
  int inject_kernel;       /* -1: no injection */
  char inject_msg[256];
};

/* The context's files call one way, each only those below it:
 *   open.c     fg_context_new, fg_context_free
 *   run.c      runs, fg_context_wait, fg__ctx_process
 *   context.c  the state, errors, freeing
 *   loop.c     the bridge from device threads to the loop
 * (program.c and compile.c build on run.c and context.c.) */

/* ---- context.c: the state ---------------------------------------------- */

/* Sets ctx's message; returns st. */
fg_status fg__ctx_fail(fg_context *ctx, fg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Closes ctx's loop bridge and backend and frees it; no run is in flight
 * and no program or run handle is left. */
void fg__ctx_destroy(fg_context *ctx);

/* Frees a context fg_context_free left for its last program or run
 * handle, once none is left; does nothing otherwise. */
void fg__ctx_release(fg_context *ctx);

/* ---- loop.c: the bridge from device threads to the loop ---------------- */

/* Starts the context's loop bridge (its own loop unless user_loop); the
 * loop calls process(ctx) when completions arrive, and waits call it. */
fg_status fg__ctx_loop_init(fg_context *ctx, uv_loop_t *user_loop,
                            void (*process)(fg_context *ctx),
                            char *err, size_t errlen);
/* Stops it; the caller has waited until no run is in flight. */
void fg__ctx_loop_close(fg_context *ctx);
/* Queues n and wakes the loop; any thread. */
void fg__loop_post(fg_context *ctx, fg__done_node *n);
/* Takes every queued completion, oldest first; loop thread. */
fg__done_node *fg__loop_take(fg_context *ctx);
/* Keeps the loop alive (busy) or lets it end (idle). */
void fg__loop_keep_alive(fg_context *ctx, bool busy);
/* Makes the loop call ctx->process soon. */
void fg__loop_wake(fg_context *ctx);
/* Waits until done(arg) holds.  Runs the loop, or, from inside a
 * callback (where uv_run must not be re-entered), sleeps on the
 * completion condition and processes by hand. */
void fg__loop_wait_until(fg_context *ctx, bool (*done)(const void *),
                         const void *arg);

/* ---- run.c ----------------------------------------------------------- */

/* Applies queued completions, begins queued runs, ends complete ones. */
void fg__ctx_process(fg_context *ctx);

#endif
