/* runtime/context.c - the context's state: its backend, the kernel cache
 * location, statistics, the last-error message, the status table and the
 * environment, and freeing it.  Opening and closing it is open.c's; its
 * loop bridge is in loop.c, its runs in run.c. */
#include "config.h"
#include "context_impl.h"
#include "toolchain/toolchain.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_text[] = {
#define FG__STATUS_TEXT(code, text) text,
  FG_STATUS_TABLE(FG__STATUS_TEXT)
#undef FG__STATUS_TEXT
};
static const char *const status_names[] = {
#define FG__STATUS_NAME(code, text) #code,
  FG_STATUS_TABLE(FG__STATUS_NAME)
#undef FG__STATUS_NAME
};

const char *fg_status_str(fg_status s) {
  return (unsigned)s < FG_STATUS_COUNT_ ? status_text[s] : "unknown status";
}

const char *fg_status_name(fg_status s) {
  return (unsigned)s < FG_STATUS_COUNT_ ? status_names[s] : "FG_E?";
}

const char *fg_version(void) { return PACKAGE_VERSION; }

fg_status fg__ctx_fail(fg_context *ctx, fg_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->errmsg, sizeof ctx->errmsg, fmt, ap);
  va_end(ap);
  return st;
}

/* Copies environment variable name into out ("" when unset). */
static void env_copy(const char *name, char *out, size_t size) {
  const char *v = getenv(name);
  snprintf(out, size, "%s", v ? v : "");
}

void fg__env_read(fg__env *env) {
  env_copy("FG_BACKEND", env->backend, sizeof env->backend);
  env_copy("FG_DEVICE", env->device, sizeof env->device);
  env_copy("FG_CPU_MARCH", env->cpu_march, sizeof env->cpu_march);
  env_copy("FG_CLANG", env->clang, sizeof env->clang);
  env_copy("FG_FUSION", env->fusion, sizeof env->fusion);
  env_copy("FG_DUMP_KERNELS", env->dump_kernels, sizeof env->dump_kernels);
  env_copy("FG_DISABLE", env->disable, sizeof env->disable);
  char dir[4096], xdg[4096], home[4096];
  env_copy("FG_CACHE_DIR", dir, sizeof dir);
  env_copy("XDG_CACHE_HOME", xdg, sizeof xdg);
  env_copy("HOME", home, sizeof home);
  /* where kernels are cached when the options do not say */
  fgtc_cache_default(env->cache_dir, sizeof env->cache_dir, dir, xdg, home);
}

void fg__ctx_destroy(fg_context *ctx) {
  fg__ctx_loop_close(ctx);
  fg__be_destroy(ctx->be);
  free(ctx);
}

void fg__ctx_release(fg_context *ctx) {
  if (ctx->zombie && ctx->live_programs == 0 && ctx->live_runs == 0 &&
      ctx->live_buffers == 0)
    fg__ctx_destroy(ctx);
}

const char *fg_context_errmsg(const fg_context *ctx) {
  return ctx ? ctx->errmsg : "context is NULL";
}

const char *fg_context_backend_name(const fg_context *ctx) {
  return ctx ? fg__be_name(ctx->be) : "";
}

const char *fg_context_device(const fg_context *ctx) {
  return ctx ? ctx->be->device : "";
}

fg_status fg_context_get_stats(const fg_context *ctx, fg_context_stats *s) {
  if (!ctx || !s)
    return FG_EINVAL;
  *s = ctx->stats;
  return FG_OK;
}

fg_status fg_context_live(const fg_context *ctx, fg_live_objects *out) {
  if (!ctx || !out)
    return FG_EINVAL;
  *out = (fg_live_objects){
    .programs = ctx->live_programs,
    .runs = ctx->live_runs,
    .kernels = ctx->be->live.kernels,
    .buffers = ctx->be->live.buffers,
    .events = ctx->be->live.events,
    .loop_handles = ctx->live_handles,
  };
  return FG_OK;
}
