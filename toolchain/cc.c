/* toolchain/cc.c - C source to a loaded shared object through the cache:
 * the path the CPU backend's kernels and RenderScript's invokables share.
 *
 * Protocol: the object for key K is PATH/K.so.  A build writes K.c
 * atomically, compiles it to K.<pid>.<n>.so (its log beside it), and
 * renames that to K.so; rename is atomic, so a concurrent process sees no
 * object or a whole one.  Every object is checked before it is loaded
 * (cache.c): one that fails the check, or does not load, is built again. */
#define _GNU_SOURCE
#include "toolchain.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fg_status fgtc_cc_build(fgtc_cache *c, const char *clang,
                        const char *const *flags, const char *key,
                        const char *source, void **lib, fgtc_cc_result *r,
                        char *err, size_t errlen) {
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
  int nf = 0;
  while (flags[nf])
    nf++;
  char **argv = calloc((size_t)nf + 6, sizeof *argv);
  if (!argv)
    return fgu_fail(err, errlen, FG_ENOMEM, "out of memory");
  int n = 0;
  argv[n++] = (char *)clang;
  for (int i = 0; i < nf; i++)
    argv[n++] = (char *)flags[i];
  argv[n++] = "-o";
  argv[n++] = tmp;
  argv[n++] = r->src;
  argv[n++] = "-lm";
  argv[n] = NULL;
  fgtc_spawn_opts o = {.out_path = log, .err_path = log};
  r->compiled = true;
  bool ok = fgtc_spawn(argv, &o, &r->exit);
  free(argv);
  if (!ok) {
    size_t ln;
    r->log = fgtc_cache_read(c, log_name, 1 << 20, &ln);
    fgtc_cache_remove(c, tmp_name);
    fgtc_cache_remove(c, log_name);
    char why[256];
    return fgu_fail(err, errlen,
                    r->exit.end == FGTC_NOT_RUN ? FG_EIO : FG_EBUILD,
                    "%s failed (%s) compiling %s", clang,
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
