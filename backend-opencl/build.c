/* backend-opencl/build.c - builds OpenCL programs for one device through an
 * on-disk cache of program binaries.
 *
 * Cache protocol: the key K is the SHA-256 of everything that affects the
 * binary (source, build options, device, driver, platform, fieldgraph
 * version).  CACHE/opencl/K.bin (a toolchain cache folder, whose entries
 * are checked for owner and mode before use) holds the device's program binary and K.cl
 * the source it came from, for a reader of build errors.  Each is written
 * atomically (toolchain/cache.c: a fresh temporary file in that folder,
 * renamed into place), so a concurrent process sees no file or a whole one.  A binary
 * the driver rejects (corrupt, or from another driver build) is deleted and
 * rebuilt from source.  A cache directory that cannot be created or written
 * only loses the caching: the program is still built from source. */
#define _GNU_SOURCE
#include "config.h"
#include "cl_impl.h"
#include "util/fs.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
  PATH_LEN = 4096,
  /* No program binary is this large; a bigger .bin is not ours. */
  MAX_BINARY = 1 << 30,
};

/* The name of an OpenCL error code, with the number when it is unknown
 * (formatted into buf). */
static const char *error_name(cl_int rc, char buf[48]) {
  const char *name = fgcl_error_name(rc);
  if (strcmp(name, "CL_UNKNOWN_ERROR") != 0)
    return name;
  snprintf(buf, 48, "%s(%d)", name, (int)rc);
  return buf;
}

/* ---- the key ------------------------------------------------------------- */

static void hash_field(fgu_sha256 *h, const char *s) {
  if (!s)
    s = "";
  fgu_sha256_update(h, s, strlen(s) + 1); /* the NUL separates fields */
}

static void cache_key(const fgcl_device_info *dev, const char *source,
                      const char *options, char key[65]) {
  fgu_sha256 h;
  fgu_sha256_init(&h);
  hash_field(&h, "fieldgraph-opencl-cache-1");
  hash_field(&h, PACKAGE_VERSION);
  hash_field(&h, dev->platform_name);
  hash_field(&h, dev->platform_version);
  hash_field(&h, dev->name);
  hash_field(&h, dev->device_version);
  hash_field(&h, dev->driver_version);
  hash_field(&h, options);
  hash_field(&h, source);
  fgu_sha256_hex(&h, key);
}

/* ---- OpenCL -------------------------------------------------------------- */

/* A program from the cached binary at path, built (linked) for the device,
 * or NULL (nothing held) when there is no usable binary. */
static cl_program load_cached(cl_context ctx, const fgcl_device_info *dev,
                              fgtc_cache *cache, const char *name,
                              const char *options) {
  /* The zero bytes fgtc_cache_read puts after the data matter here: a
   * driver checking a short garbage binary's header may read past its
   * end (PoCL does, by up to 16 bytes). */
  size_t n;
  unsigned char *bin = fgtc_cache_read(cache, name, MAX_BINARY, &n);
  if (bin && n == 0) {
    free(bin);
    bin = NULL;
  }
  if (!bin)
    return NULL;
  const unsigned char *bins[1] = {bin};
  cl_int bin_status = CL_SUCCESS, rc;
  cl_program prog = clCreateProgramWithBinary(ctx, 1, &dev->device, &n, bins,
                                              &bin_status, &rc);
  free(bin);
  if (rc == CL_SUCCESS && bin_status == CL_SUCCESS)
    rc = clBuildProgram(prog, 1, &dev->device, options, NULL, NULL);
  else if (rc == CL_SUCCESS)
    rc = bin_status;
  if (rc == CL_SUCCESS)
    return prog;
  if (prog)
    clReleaseProgram(prog);
  return NULL;
}

/* The device's binary of a built program (malloc'd, its size in *n), or
 * NULL when the driver does not give one. */
static unsigned char *program_binary(cl_program prog, cl_device_id device,
                                     size_t *n) {
  *n = 0;
  cl_uint ndev = 0;
  if (clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev,
                       NULL) != CL_SUCCESS ||
      ndev == 0)
    return NULL;
  /* A program from source belongs to every device of its context; the
   * binaries come one per device, in CL_PROGRAM_DEVICES order. */
  cl_device_id *devs = calloc(ndev, sizeof *devs);
  size_t *sizes = calloc(ndev, sizeof *sizes);
  unsigned char **bins = calloc(ndev, sizeof *bins);
  unsigned char *mine = NULL;
  cl_uint at = ndev;
  if (devs && sizes && bins &&
      clGetProgramInfo(prog, CL_PROGRAM_DEVICES, ndev * sizeof *devs, devs,
                       NULL) == CL_SUCCESS &&
      clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, ndev * sizeof *sizes,
                       sizes, NULL) == CL_SUCCESS) {
    for (cl_uint i = 0; i < ndev; i++)
      if (devs[i] == device)
        at = i;
    /* Buffers for every device that has a binary, since not every driver
     * honours NULL entries; only ours is kept. */
    bool ok = at < ndev && sizes[at] > 0 && sizes[at] <= MAX_BINARY;
    for (cl_uint i = 0; ok && i < ndev; i++)
      if (sizes[i] > 0 && !(bins[i] = malloc(sizes[i])))
        ok = false;
    if (ok && clGetProgramInfo(prog, CL_PROGRAM_BINARIES,
                               ndev * sizeof *bins, bins,
                               NULL) == CL_SUCCESS) {
      mine = bins[at];
      bins[at] = NULL;
      *n = sizes[at];
    }
  }
  for (cl_uint i = 0; bins && i < ndev; i++)
    free(bins[i]);
  free(bins);
  free(sizes);
  free(devs);
  return mine;
}

/* The build log for the device (malloc'd, trailing blanks removed), or a
 * note saying why there is none; NULL only when out of memory. */
static char *build_log(cl_program prog, cl_device_id device) {
  size_t size = 0;
  char *log = NULL;
  cl_int rc = clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, 0,
                                    NULL, &size);
  if (rc == CL_SUCCESS && !(log = malloc(size + 1)))
    rc = CL_OUT_OF_HOST_MEMORY;
  if (rc == CL_SUCCESS) {
    rc = clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, size, log,
                               NULL);
    log[size] = 0;
  }
  if (rc != CL_SUCCESS) {
    free(log);
    char name[48];
    fgu_buf b = {0};
    fgu_buf_printf(&b, "(no build log: clGetProgramBuildInfo: %s)",
                   error_name(rc, name));
    return fgu_buf_take(&b);
  }
  size_t n = strlen(log);
  while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == ' ' ||
                   log[n - 1] == '\r' || log[n - 1] == '\t'))
    log[--n] = 0;
  return log;
}

/* ---- the build ----------------------------------------------------------- */

fg_status fgcl_build(cl_context ctx, const fgcl_device_info *dev,
                     fgtc_cache *cache, const char *source,
                     const char *options, const char *what,
                     cl_program *out, bool *compiled, char *err,
                     size_t errlen) {
  *out = NULL;
  *compiled = false;
  if (!what)
    what = "(unnamed)";
  if (!ctx || !dev || !source)
    return fgu_fail(err, errlen, FG_EINVAL, "kernel '%s': OpenCL build "
                    "without a context, device or source", what);

  char key[65], bin_name[80], cl_name[80], cl_path[PATH_LEN] = "";
  cache_key(dev, source, options, key);
  snprintf(bin_name, sizeof bin_name, "%s.bin", key);
  snprintf(cl_name, sizeof cl_name, "%s.cl", key);
  if (cache && fgtc_cache_name(cache, key, "cl", cl_path, sizeof cl_path))
    cache = NULL;

  if (cache) {
    cl_program prog = load_cached(ctx, dev, cache, bin_name, options);
    if (prog) {
      *out = prog;
      return FG_OK;
    }
    /* Missing, or rejected by the driver: a bad file goes, so that the
     * binary built below replaces it. */
    fgtc_cache_remove(cache, bin_name);
  }

  /* The source goes in place first, so that a build error can name a file
   * the user can open.  Failing to write it only costs the caching. */
  int werr = 0;
  bool kept = false;
  if (cache) {
    int fd = fgtc_cache_open_entry(cache, cl_name);
    kept = fd >= 0 || (werr = fgtc_cache_write(cache, cl_name, source,
                                               strlen(source))) == 0;
    if (fd >= 0)
      close(fd);
  }

  char name[48];
  cl_int rc;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &rc);
  if (rc != CL_SUCCESS) {
    if (prog)
      clReleaseProgram(prog);
    return fgu_fail(err, errlen, fgcl_status(rc), "kernel '%s': "
                    "clCreateProgramWithSource: %s", what,
                    error_name(rc, name));
  }
  *compiled = true;
  rc = clBuildProgram(prog, 1, &dev->device, options, NULL, NULL);
  if (rc != CL_SUCCESS) {
    char *log = build_log(prog, dev->device);
    clReleaseProgram(prog);
    char *mapped = fgcl_map_log_lines(source, log);
    if (mapped) {
      free(log);
      log = mapped;
    }
    /* Whatever the code, a failed build is FG_EBUILD unless memory ran
     * out. */
    fg_status st = fgcl_status(rc) == FG_ENOMEM ? FG_ENOMEM : FG_EBUILD;
    char why[200] = "", ebuf[128];
    if (!kept)
      snprintf(why, sizeof why, " (cannot write the kernel cache: %s)",
               werr ? fgu_strerror(werr, ebuf, sizeof ebuf)
                    : "no usable cache folder");
    fgu_fail(err, errlen, st,
             "kernel '%s': clBuildProgram: %s on %s (options \"%s\"), "
             "source %s%s:\n%s", what, error_name(rc, name), dev->name,
             options ? options : "", kept ? cl_path : "not kept", why,
             log ? log : "(no build log: out of memory)");
    free(log);
    return st;
  }

  if (kept) {
    size_t n;
    unsigned char *bin = program_binary(prog, dev->device, &n);
    if (bin)
      fgtc_cache_write(cache, bin_name, bin, n);
    free(bin);
  }
  *out = prog;
  return FG_OK;
}
