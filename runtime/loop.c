/* runtime/loop.c - the bridge between device threads and the context's
 * libuv loop: a queue of completions under a mutex, a uv_async_t that
 * wakes the loop, and the blocking wait that runs the loop (or, inside a
 * callback, sleeps on a condition variable).  What a completion means to
 * a run is run.c's business: the loop calls the process function given to
 * fg__ctx_loop_init (fg__ctx_process), and nothing else of runtime/. */
#include "context_impl.h"

#include <stdio.h>
#include <stdlib.h>

void fg__loop_post(fg_context *ctx, fg__done_node *n) {
  n->next = NULL;
  /* the send happens under the lock: once the loop thread has seen the
   * node (and maybe ended the run and freed the context) this thread no
   * longer touches anything of the context */
  pthread_mutex_lock(&ctx->mu);
  if (ctx->done_tail)
    ctx->done_tail->next = n;
  else
    ctx->done_head = n;
  ctx->done_tail = n;
  pthread_cond_broadcast(&ctx->done_cv);
  uv_async_send(ctx->wake);
  pthread_mutex_unlock(&ctx->mu);
}

fg__done_node *fg__loop_take(fg_context *ctx) {
  pthread_mutex_lock(&ctx->mu);
  fg__done_node *n = ctx->done_head;
  ctx->done_head = ctx->done_tail = NULL;
  pthread_mutex_unlock(&ctx->mu);
  return n;
}

void fg__loop_keep_alive(fg_context *ctx, bool busy) {
  if (busy)
    uv_ref((uv_handle_t *)ctx->wake);
  else
    uv_unref((uv_handle_t *)ctx->wake);
}

void fg__loop_wake(fg_context *ctx) { uv_async_send(ctx->wake); }

static void on_wake(uv_async_t *h) {
  fg_context *ctx = h->data;
  ctx->process(ctx);
}

void fg__loop_wait_until(fg_context *ctx, bool (*done)(const void *),
                          const void *arg) {
  while (!done(arg)) {
    if (ctx->sweep) {
      /* runs whose state changed on this thread (a run that completed
       * while starting): end them here, not after a wake-up */
      ctx->process(ctx);
    } else if (ctx->depth == 0) {
      uv_run(ctx->loop, UV_RUN_ONCE);
    } else {
      pthread_mutex_lock(&ctx->mu);
      while (!ctx->done_head && !ctx->sweep)
        pthread_cond_wait(&ctx->done_cv, &ctx->mu);
      pthread_mutex_unlock(&ctx->mu);
      ctx->process(ctx);
    }
  }
}

static void free_handle(uv_handle_t *h) { free(h); }

fg_status fg__ctx_loop_init(fg_context *ctx, uv_loop_t *user_loop,
                            void (*process)(fg_context *ctx), char *err,
                            size_t errlen) {
  int rc = 0;
  ctx->process = process;
  ctx->inject_kernel = -1;
  if (user_loop) {
    ctx->loop = user_loop;
  } else if ((rc = uv_loop_init(&ctx->own_loop)) == 0) {
    ctx->loop = &ctx->own_loop;
  } else {
    snprintf(err, errlen, "fg_context_new: uv_loop_init: %s",
             uv_strerror(rc));
    return FG_ENOMEM;
  }
  ctx->wake = malloc(sizeof *ctx->wake);
  if (!ctx->wake || (rc = uv_async_init(ctx->loop, ctx->wake, on_wake))) {
    snprintf(err, errlen, "fg_context_new: uv_async_init: %s",
             ctx->wake ? uv_strerror(rc) : "out of memory");
    free(ctx->wake);
    ctx->wake = NULL;
    if (ctx->loop == &ctx->own_loop)
      uv_loop_close(&ctx->own_loop);
    ctx->loop = NULL;
    return FG_ENOMEM;
  }
  ctx->wake->data = ctx;
  ctx->live_handles++;
  uv_unref((uv_handle_t *)ctx->wake);
  pthread_mutex_init(&ctx->mu, NULL);
  pthread_cond_init(&ctx->done_cv, NULL);
  return FG_OK;
}

void fg__ctx_loop_close(fg_context *ctx) {
  if (!ctx->wake)
    return;
  pthread_mutex_lock(&ctx->mu);      /* no device thread is in task_done */
  pthread_mutex_unlock(&ctx->mu);
  /* a user's loop frees the handle when it next runs, as libuv wants */
  uv_close((uv_handle_t *)ctx->wake, free_handle);
  ctx->wake = NULL;
  ctx->live_handles--;
  if (ctx->loop == &ctx->own_loop) {
    uv_run(&ctx->own_loop, UV_RUN_DEFAULT);
    uv_loop_close(&ctx->own_loop);
  }
  pthread_cond_destroy(&ctx->done_cv);
  pthread_mutex_destroy(&ctx->mu);
}
