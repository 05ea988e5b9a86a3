/* toolchain/dl.c - loading and unloading shared objects: the library's
 * only dlopen.  The objects are those cc.c built into a cache folder;
 * cache.c verifies each before it comes here (fgtc_cache_load). */
#define _GNU_SOURCE
#include "toolchain.h"

#include <dlfcn.h>
#include <stdio.h>

void *fgtc_dl_open(const char *path, char *err, size_t errlen) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib && err && errlen) {
    const char *why = dlerror();
    snprintf(err, errlen, "%s", why ? why : "dlopen failed");
  }
  return lib;
}

void *fgtc_dl_sym(void *lib, const char *name) {
  return lib ? dlsym(lib, name) : NULL;
}

void fgtc_dl_close(void *lib) {
  if (lib)
    dlclose(lib);
}
