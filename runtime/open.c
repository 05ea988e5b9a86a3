/* runtime/open.c - opening and closing a context: fg_context_new checks
 * the options and the environment, opens the backend and the loop bridge
 * (loop.c), whose completions go to the run engine (run.c,
 * fg__ctx_process); fg_context_free waits for the context's runs first.
 * The top of the context's files: context.c holds its state, loop.c the
 * bridge, run.c the runs, and none of them calls this file. */
#include "context_impl.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The capabilities named in $FG_DISABLE ("fp64,host_eval,zero_copy"...), as
 * FG_CAP_* bits; -1 with a message for an unknown name. */
static int parse_disable(const char *s, char *err, size_t errlen) {
  static const struct { const char *name; int bit; } caps[] = {
    {"fp64", FG_CAP_FP64}, {"int64_atomics", FG_CAP_INT64_ATOMICS},
    {"host_eval", FG_CAP_HOST_EVAL}, {"strips", FG_CAP_STRIPS},
    {"zero_copy", FG_CAP_ZERO_COPY}, {"row_windows", FG_CAP_ROW_WINDOWS},
    {"event_wait", FG_CAP_EVENT_WAIT}};
  int bits = 0;
  while (*s) {
    size_t n = strcspn(s, ", ");
    bool found = false;
    for (size_t i = 0; n && i < sizeof caps / sizeof caps[0]; i++)
      if (strlen(caps[i].name) == n && !strncmp(s, caps[i].name, n)) {
        bits |= caps[i].bit;
        found = true;
      }
    if (n && !found) {
      snprintf(err, errlen, "FG_DISABLE names '%.*s' (expected fp64, "
               "int64_atomics, host_eval, strips, zero_copy, row_windows or "
               "event_wait, "
               "separated by commas)",
               (int)n, s);
      return -1;
    }
    s += n;
    s += strspn(s, ", ");
  }
  return bits;
}

fg_status fg_context_new(const fg_context_options *opt, fg_context **out,
                         char *errmsg, size_t errlen) {
  char scratch[8];
  if (!errmsg) {
    errmsg = scratch;
    errlen = sizeof scratch;
  }
  if (errlen)
    errmsg[0] = 0;
  if (!out) {
    snprintf(errmsg, errlen, "fg_context_new: out is NULL");
    return FG_EINVAL;
  }
  *out = NULL;
  fg__env env;
  fg__env_read(&env);
  fg_backend_kind kind = opt ? opt->backend : FG_BACKEND_DEFAULT;
  if (kind == FG_BACKEND_DEFAULT) {
    if (!*env.backend || !strcmp(env.backend, "cpu")) {
      kind = FG_BACKEND_CPU;
    } else if (!strcmp(env.backend, "opencl")) {
      kind = FG_BACKEND_OPENCL;
    } else {
      snprintf(errmsg, errlen, "FG_BACKEND is '%s' (expected 'cpu' or "
               "'opencl')", env.backend);
      return FG_EINVAL;
    }
  }
  if (kind != FG_BACKEND_CPU && kind != FG_BACKEND_OPENCL) {
    snprintf(errmsg, errlen, "fg_context_new: backend %d is not one of "
             "FG_BACKEND_DEFAULT, FG_BACKEND_CPU, FG_BACKEND_OPENCL",
             (int)kind);
    return FG_EINVAL;
  }
  if (opt && opt->max_runs < 0) {
    snprintf(errmsg, errlen, "fg_context_new: max_runs is %d (expected 0 "
             "for the default, or a positive count)", opt->max_runs);
    return FG_EINVAL;
  }
  if (opt && opt->threads < 0) {
    snprintf(errmsg, errlen, "fg_context_new: threads is %d (expected 0 "
             "for one per core, or a positive count)", opt->threads);
    return FG_EINVAL;
  }
  if (opt && (opt->disable & ~(unsigned)FG_CAP_ALL_)) {
    snprintf(errmsg, errlen, "fg_context_new: disable is 0x%x (expected "
             "FG_CAP_* bits)", opt->disable);
    return FG_EINVAL;
  }
  int disable = parse_disable(env.disable, errmsg, errlen);
  if (disable < 0)
    return FG_EINVAL;
  if (opt)
    disable |= (int)opt->disable;
  fg_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    snprintf(errmsg, errlen, "fg_context_new: out of memory");
    return FG_ENOMEM;
  }
  ctx->env = env;
  if (opt && opt->cache_dir && *opt->cache_dir)
    snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", opt->cache_dir);
  else
    snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", env.cache_dir);
  fg__config cfg = {
    .threads = opt ? opt->threads : 0,
    .cache_dir = ctx->cache_dir,
    .device = opt && opt->device && *opt->device ? opt->device
                                                 : ctx->env.device,
    .cpu_march = ctx->env.cpu_march,
    .clang = ctx->env.clang,
  };
  fg_status st = fg__be_new(kind, &cfg, &ctx->be, errmsg, errlen);
  if (st != FG_OK) {
    free(ctx);
    return st;
  }
  ctx->be->errmsg = ctx->errmsg;
  ctx->be->errlen = sizeof ctx->errmsg;
  ctx->be->stats = &ctx->stats;
  if (disable & FG_CAP_FP64)
    ctx->be->caps.fp64 = false;
  if (disable & FG_CAP_INT64_ATOMICS)
    ctx->be->caps.int64_atomics = false;
  ctx->be->caps.host_eval = !(disable & FG_CAP_HOST_EVAL);
  if (disable & FG_CAP_STRIPS)
    ctx->be->caps.strip = 1;
  fg__be_set_zero_copy(ctx->be, !(disable & FG_CAP_ZERO_COPY));
  if (disable & FG_CAP_ROW_WINDOWS)
    ctx->be->caps.row_windows = false;
  if (disable & FG_CAP_EVENT_WAIT)
    ctx->be->caps.event_wait = false;
  ctx->max_runs = opt && opt->max_runs > 0 ? opt->max_runs : 4;
  ctx->run_timeout_ms = opt ? opt->run_timeout_ms : 0;
  st = fg__ctx_loop_init(ctx, opt ? opt->loop : NULL, fg__ctx_process,
                         errmsg, errlen);
  if (st != FG_OK) {
    fg__be_destroy(ctx->be);
    free(ctx);
    return st;
  }
  *out = ctx;
  return FG_OK;
}

/* As SQLite's sqlite3_close_v2: a context freed before its programs, run
 * handles or buffers lingers, unusable, until the last of them is freed. */
void fg_context_free(fg_context *ctx) {
  if (!ctx)
    return;
  fg_context_wait(ctx);
  if (ctx->live_programs > 0 || ctx->live_runs > 0 ||
      ctx->live_buffers > 0) {
    ctx->zombie = true;
    return;
  }
  fg__ctx_destroy(ctx);
}
