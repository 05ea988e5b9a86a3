/* runtime/context.c - the context: chooses and owns a backend, the kernel
 * cache location, statistics and the last-error message (its loop is in
 * loop.c, its runs in run.c). */
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

/* The capabilities named in $FG_DISABLE ("fp64,int64_atomics"), as
 * FG_CAP_* bits; -1 with a message for an unknown name. */
static int parse_disable(const char *s, char *err, size_t errlen) {
  static const struct { const char *name; int bit; } caps[] = {
    {"fp64", FG_CAP_FP64}, {"int64_atomics", FG_CAP_INT64_ATOMICS}};
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
      snprintf(err, errlen, "FG_DISABLE names '%.*s' (expected fp64 or "
               "int64_atomics, separated by commas)", (int)n, s);
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
  ctx->max_runs = opt && opt->max_runs > 0 ? opt->max_runs : 4;
  ctx->run_timeout_ms = opt ? opt->run_timeout_ms : 0;
  st = fg__ctx_loop_init(ctx, opt ? opt->loop : NULL, errmsg, errlen);
  if (st != FG_OK) {
    fg__be_destroy(ctx->be);
    free(ctx);
    return st;
  }
  *out = ctx;
  return FG_OK;
}

static void ctx_destroy(fg_context *ctx) {
  fg__ctx_loop_close(ctx);
  fg__be_destroy(ctx->be);
  free(ctx);
}

/* As SQLite's sqlite3_close_v2: a context freed before its programs or
 * run handles lingers, unusable, until the last of them is freed. */
void fg_context_free(fg_context *ctx) {
  if (!ctx)
    return;
  fg_context_wait(ctx);
  if (ctx->live_programs > 0 || ctx->live_runs > 0) {
    ctx->zombie = true;
    return;
  }
  ctx_destroy(ctx);
}

void fg__ctx_release(fg_context *ctx) {
  if (ctx->zombie && ctx->live_programs == 0 && ctx->live_runs == 0)
    ctx_destroy(ctx);
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
