/* runtime/context.c - the context: chooses and owns a backend, the kernel
 * cache location, statistics and the last-error message (its loop is in
 * loop.c, its runs in run.c). */
#include "config.h"
#include "context_impl.h"

#include <stdarg.h>
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

/* Where kernels are cached when the options do not say. */
static void default_cache_dir(char *out, size_t size) {
  const char *env = getenv("FG_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  if (env && *env)
    snprintf(out, size, "%s", env);
  else if (xdg && *xdg)
    snprintf(out, size, "%s/fieldgraph", xdg);
  else if (home && *home)
    snprintf(out, size, "%s/.cache/fieldgraph", home);
  else
    snprintf(out, size, "/tmp/fieldgraph-cache");
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
  fg_backend_kind kind = opt ? opt->backend : FG_BACKEND_DEFAULT;
  if (kind == FG_BACKEND_DEFAULT) {
    const char *env = getenv("FG_BACKEND");
    if (!env || !*env || !strcmp(env, "cpu")) {
      kind = FG_BACKEND_CPU;
    } else if (!strcmp(env, "opencl")) {
      kind = FG_BACKEND_OPENCL;
    } else {
      snprintf(errmsg, errlen, "FG_BACKEND is '%s' (expected 'cpu' or "
               "'opencl')", env);
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
  fg_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    snprintf(errmsg, errlen, "fg_context_new: out of memory");
    return FG_ENOMEM;
  }
  if (opt && opt->cache_dir && *opt->cache_dir)
    snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", opt->cache_dir);
  else
    default_cache_dir(ctx->cache_dir, sizeof ctx->cache_dir);
  fg_status st = kind == FG_BACKEND_OPENCL
                     ? fg__opencl_backend_new(opt, ctx->cache_dir, &ctx->be,
                                              errmsg, errlen)
                     : fg__cpu_backend_new(opt, ctx->cache_dir, &ctx->be,
                                           errmsg, errlen);
  if (st != FG_OK) {
    free(ctx);
    return st;
  }
  ctx->be->errmsg = ctx->errmsg;
  ctx->be->errlen = sizeof ctx->errmsg;
  ctx->be->stats = &ctx->stats;
  ctx->max_runs = opt && opt->max_runs > 0 ? opt->max_runs : 4;
  st = fg__ctx_loop_init(ctx, opt ? opt->loop : NULL, errmsg, errlen);
  if (st != FG_OK) {
    ctx->be->i->destroy(ctx->be);
    free(ctx);
    return st;
  }
  *out = ctx;
  return FG_OK;
}

void fg_context_free(fg_context *ctx) {
  if (!ctx)
    return;
  fg_context_wait(ctx);
  fg__ctx_loop_close(ctx);
  if (ctx->be)
    ctx->be->i->destroy(ctx->be);
  free(ctx);
}

const char *fg_context_errmsg(const fg_context *ctx) {
  return ctx ? ctx->errmsg : "context is NULL";
}

const char *fg_context_backend_name(const fg_context *ctx) {
  return ctx ? ctx->be->i->name : "";
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
