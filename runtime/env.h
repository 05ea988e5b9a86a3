/* runtime/env.h - the environment variables the library reads, read in
 * one place (context.c): fg_context_new keeps a copy in its context, and
 * code that runs without a context (a RenderScript script's invokables)
 * reads them through the same call, so both resolve the kernel cache's
 * folder alike.  Internal. */
#ifndef FG_RUNTIME_ENV_H
#define FG_RUNTIME_ENV_H

/* The environment as fg__env_read found it ("" for an unset variable). */
typedef struct fg__env {
  char backend[64];         /* FG_BACKEND */
  char device[256];         /* FG_DEVICE */
  char cpu_march[96];       /* FG_CPU_MARCH */
  char clang[1024];         /* FG_CLANG */
  char fusion[64];          /* FG_FUSION, checked by fg_compile */
  char dump_kernels[1024];  /* FG_DUMP_KERNELS */
  char disable[256];        /* FG_DISABLE */
  char cache_dir[4096];     /* FG_CACHE_DIR, else from XDG_CACHE_HOME or
                               HOME, else a per-user folder in /tmp
                               (fgtc_cache_default) */
} fg__env;

/* Reads every environment variable the library looks at into *env: the
 * library's only getenv calls.  Any thread (getenv's own caveats). */
void fg__env_read(fg__env *env);

#endif
