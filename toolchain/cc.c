/* toolchain/cc.c - C source to a loaded shared object through the cache:
 * the path the CPU backend's kernels and RenderScript's invokables share.
 *
 * Protocol: the object for key K is PATH/K.so.  A build writes K.c
 * atomically, compiles it to K.<pid>.<n>.so (its log beside it), and
 * renames that to K.so; rename is atomic, so a concurrent process sees no
 * object or a whole one.  The compile is clang alone, or clang's front
 * end, LLVM's opt and clang's code generator (fgtc_cc_build_opt).  Every object is checked before it is loaded
 * (cache.c): one that fails the check, or does not load, is built again. */
#define _GNU_SOURCE
#include "toolchain.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ARGV = 64 };

/* Runs `PROGRAM ARGS... EXTRA...` (both lists NULL-terminated) with its
 * output and errors in log; whether it exited 0.  *who names the
 * program, *x says how it ended (FGTC_NOT_RUN, E2BIG: more than MAX_ARGV
 * words). */
static bool run(const char *program, const char *const *args,
                const char *const *extra, const char *log, const char **who,
                fgtc_exit *x) {
  const char *argv[MAX_ARGV];
  int k = 0;
  *who = program;
  argv[k++] = program;
  for (int l = 0; l < 2; l++)
    for (const char *const *a = l ? extra : args; a && *a; a++) {
      if (k == MAX_ARGV - 1) {
        *x = (fgtc_exit){FGTC_NOT_RUN, 0, E2BIG};
        return false;
      }
      argv[k++] = *a;
    }
  argv[k] = NULL;
  fgtc_spawn_opts o = {.out_path = log, .err_path = log};
  return fgtc_spawn((char *const *)argv, &o, x);
}

/* Compiles src to the shared object tmp: clang alone, or with opt between
 * its front end and its code generator (intermediate bitcode in the cache
 * folder, removed after).  Whether every step exited 0; *who and *x: the
 * last step that ran. */
static bool compile(fgtc_cache *c, const char *clang, const char *const *flags,
                    const char *opt, const char *const *opt_args,
                    const char *key, const char *src, const char *tmp,
                    const char *log, const char **who, fgtc_exit *x) {
  if (!opt)
    return run(clang, flags, (const char *const[]){"-o", tmp, src, "-lm",
                                                    NULL}, log, who, x);
  char n1[160], n2[160], bc1[FGTC_PATH + 200], bc2[FGTC_PATH + 200];
  fgtc_cache_temp(c, key, "bc", n1, sizeof n1);
  fgtc_cache_temp(c, key, "opt.bc", n2, sizeof n2);
  snprintf(bc1, sizeof bc1, "%s/%s", c->path, n1);
  snprintf(bc2, sizeof bc2, "%s/%s", c->path, n2);
  /* the front end with no LLVM pass, opt's passes, then code generation
   * with none again (the flags' -O level still sets the code
   * generator's) */
  bool ok =
      run(clang, flags,
          (const char *const[]){"-emit-llvm", "-c", "-Xclang",
                                "-disable-llvm-optzns", "-o", bc1, src, NULL},
          log, who, x) &&
      run(opt, opt_args, (const char *const[]){"-o", bc2, bc1, NULL}, log,
          who, x) &&
      run(clang, flags,
          (const char *const[]){"-Xclang", "-disable-llvm-passes", "-o", tmp,
                                bc2, "-lm", NULL},
          log, who, x);
  fgtc_cache_remove(c, n1);
  fgtc_cache_remove(c, n2);
  return ok;
}

fg_status fgtc_cc_build(fgtc_cache *c, const char *clang,
                        const char *const *flags, const char *key,
                        const char *source, void **lib, fgtc_cc_result *r,
                        char *err, size_t errlen) {
  return fgtc_cc_build_opt(c, clang, flags, NULL, NULL, key, source, lib, r,
                           err, errlen);
}

fg_status fgtc_cc_build_opt(fgtc_cache *c, const char *clang,
                            const char *const *flags, const char *opt,
                            const char *const *opt_args, const char *key,
                            const char *source, void **lib,
                            fgtc_cc_result *r, char *err, size_t errlen) {
  *lib = NULL;
  memset(r, 0, sizeof *r);
  char so_name[128], c_name[128], tmp_name[160], log_name[160];
  snprintf(so_name, sizeof so_name, "%.100s.so", key);
  snprintf(c_name, sizeof c_name, "%.100s.c", key);
  if (fgtc_cache_name(c, key, "so", r->so, sizeof r->so) != 0 ||
      fgtc_cache_name(c, key, "c", r->src, sizeof r->src) != 0)
    return fgu_fail(err, errlen, FG_EIO, "cache folder name too long: %s",
                    c->path);
  char lerr[1024];
  *lib = fgtc_cache_load(c, so_name, lerr, sizeof lerr);
  if (*lib) {
    r->hit = true;
    return FG_OK;
  }
  /* The source goes in place first (atomically), so that the compiler's
   * messages name the file a user can open. */
  char ebuf[128];
  int e = fgtc_cache_write(c, c_name, source, strlen(source));
  if (e != 0)
    return fgu_fail(err, errlen, FG_EIO, "cannot write %s: %s", r->src,
                    fgu_strerror(e, ebuf, sizeof ebuf));
  fgtc_cache_temp(c, key, "so", tmp_name, sizeof tmp_name);
  fgtc_cache_temp(c, key, "log", log_name, sizeof log_name);
  char tmp[FGTC_PATH + 200], log[FGTC_PATH + 200];
  snprintf(tmp, sizeof tmp, "%s/%s", c->path, tmp_name);
  snprintf(log, sizeof log, "%s/%s", c->path, log_name);
  r->compiled = true;
  const char *who = clang;
  bool ok = compile(c, clang, flags, opt, opt_args, key, r->src, tmp, log,
                    &who, &r->exit);
  if (!ok) {
    size_t ln;
    r->log = fgtc_cache_read(c, log_name, 1 << 20, &ln);
    fgtc_cache_remove(c, tmp_name);
    fgtc_cache_remove(c, log_name);
    char why[256];
    fgtc_spawn_opts o = {.out_path = log, .err_path = log};
    return fgu_fail(err, errlen,
                    r->exit.end == FGTC_NOT_RUN ? FG_EIO : FG_EBUILD,
                    "%s failed (%s) compiling %s", who,
                    fgtc_exit_str(&r->exit, &o, why, sizeof why), r->src);
  }
  fgtc_cache_remove(c, log_name);
  if ((e = fgtc_cache_commit(c, tmp_name, so_name)) != 0) {
    fgtc_cache_remove(c, tmp_name);
    return fgu_fail(err, errlen, FG_EIO, "cannot rename %s to %s: %s", tmp,
                    r->so, fgu_strerror(e, ebuf, sizeof ebuf));
  }
  *lib = fgtc_cache_load(c, so_name, lerr, sizeof lerr);
  if (!*lib)
    return fgu_fail(err, errlen, FG_EBUILD, "dlopen(%s): %s", r->so,
                    *lerr ? lerr : "refused by the cache's checks");
  return FG_OK;
}
