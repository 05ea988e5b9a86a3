/* backend-opencl/cl_impl.h - the pieces of the OpenCL backend: error names
 * (cl_errors.c), platform and device discovery and selection (device.c),
 * program builds with the on-disk binary cache (build.c), and the backend
 * interface itself (opencl.c).  Internal; prefix fgcl_. */
#ifndef FG_BACKEND_OPENCL_IMPL_H
#define FG_BACKEND_OPENCL_IMPL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fieldgraph.h"
#include "runtime/backend.h"
#include "toolchain/toolchain.h"

/* ---- cl_errors.c -------------------------------------------------------- */

/* Symbolic name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or
 * "CL_UNKNOWN_ERROR(<n>)" written into a static-free fallback: never NULL.
 * The returned pointer is a string literal for known codes. */
const char *fgcl_error_name(cl_int code);
/* The fieldgraph status an OpenCL error code maps to (out of memory codes
 * -> FG_ENOMEM, build failures -> FG_EBUILD, device not found ->
 * FG_ENODEV, everything else -> FG_EBACKEND). */
fg_status fgcl_status(cl_int code);

/* ---- device.c ----------------------------------------------------------- */

/* What fieldgraph needs to know about one device. */
typedef struct fgcl_device_info {
  cl_platform_id platform;
  cl_device_id device;
  int index;                     /* position in the enumeration order */
  char platform_name[128];
  char platform_version[128];
  char name[128];
  char vendor[128];
  char driver_version[128];
  char device_version[128];
  bool is_gpu;                   /* CL_DEVICE_TYPE_GPU (or accelerator) */
  bool host_unified;             /* CL_DEVICE_HOST_UNIFIED_MEMORY */
  cl_uint compute_units;
  size_t max_work_group_size;
  size_t max_work_item_sizes[3];
  cl_ulong global_mem_size;
  cl_ulong max_mem_alloc_size;
  cl_ulong local_mem_size;
  size_t max_parameter_size;     /* CL_DEVICE_MAX_PARAMETER_SIZE */
  bool fp64;                     /* cl_khr_fp64 or a double fp config */
  bool int64_atomics;
  bool fp32_rounded_div;         /* CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT */
} fgcl_device_info;

/* Enumerates every device of every platform (all device types) in a stable
 * order: platforms as the ICD loader lists them, devices within each in
 * clGetDeviceIDs order, index counting from 0 across platforms.  *out is
 * malloc'd (free() it), *n its length.  No platform at all is FG_ENODEV
 * with a message telling to install an ICD (e.g. pocl-opencl-icd); other
 * failures name the CL call and the error name.  err/errlen receive the
 * message (err may be NULL). */
fg_status fgcl_devices(fgcl_device_info **out, int *n, char *err,
                       size_t errlen);

/* Chooses a device from list[0..n-1] by the selector text: NULL or "" means
 * the default (first GPU or accelerator, else the first device); "gpu" /
 * "cpu" the first of that type; a decimal number the device of that index;
 * anything else the first device whose name, vendor or platform name
 * contains it (case-insensitive).  Returns the index into list, or -1 with
 * a message listing what exists (each device as "index: name (platform)")
 * when nothing matches. */
int fgcl_select(const fgcl_device_info *list, int n, const char *selector,
                char *err, size_t errlen);

/* ---- opencl.c ----------------------------------------------------------- */

/* How many OpenCL contexts of this process were still referenced by an
 * object of the backend's (an event, a buffer, a queue) when their
 * fieldgraph context was freed: 0 unless something leaked (tests). */
unsigned fgcl_contexts_outlived(void);

/* ---- build.c ------------------------------------------------------------ */

/* Builds an OpenCL program for one device, through an on-disk cache of
 * program binaries: the key is SHA-256 (use util/util.h's fgu_sha256_*) of
 * the source, the build options, the device name, device version, driver
 * version, platform name/version and the fieldgraph version (PACKAGE_VERSION
 * from config.h).  Cached binaries live in cache (an open CACHE/opencl;
 * NULL: no caching) as <key>.bin, checked as every cache entry is
 * (toolchain/cache.c), written to a temporary file there then renamed
 * (atomic); the
 * source is kept beside it as <key>.cl for inspection.  A cache hit creates
 * the program with clCreateProgramWithBinary and clBuildProgram (cheap); a
 * corrupt or rejected binary is ignored and rebuilt from source.  On a
 * build failure the message contains `what` (the kernel's name), the path
 * of the kept .cl source, and the build log (CL_PROGRAM_BUILD_LOG),
 * truncated to fit errlen; status FG_EBUILD.  *compiled is set to true when
 * the compiler ran from source (counted by the caller), false on a hit. */
/* Stop flags for devices that do not see host memory while a kernel
 * runs (stop.c).  fgcl_stops_watch gives a device buffer of bytes holding
 * *flag, listed until fgcl_stops_forget or, after fgcl_stops_until, the
 * end of event ev; fgcl_stops_signal writes 1 into every listed buffer of
 * flag through a queue of its own.  Thread safe. */
typedef struct fgcl_stops fgcl_stops;
fgcl_stops *fgcl_stops_new(cl_context ctx, cl_device_id device);
cl_mem fgcl_stops_watch(fgcl_stops *s, const int *flag, size_t bytes,
                        cl_int *rc);
void fgcl_stops_until(fgcl_stops *s, cl_mem m, cl_event ev);
void fgcl_stops_forget(fgcl_stops *s, cl_mem m);
void fgcl_stops_signal(fgcl_stops *s, const int *flag);
void fgcl_stops_free(fgcl_stops *s);

/* How the end of each queued operation reaches the runtime (events.c):
 * fgcl_events_watch arranges for a->done once the command of ev (the
 * enqueue's reference, which it takes) ended, stores a reference of its
 * own in *a->ev when a->ev is non-NULL, and flushes queue.  The driver's
 * completion callback reports, and, with w non-NULL, a thread of w's that
 * waits for the events in order too: whichever first.  Thread safe. */
typedef struct fgcl_events fgcl_events;
fgcl_events *fgcl_events_new(void);
/* Stops w's thread after it has waited for everything queued. */
void fgcl_events_free(fgcl_events *w);
fg_status fgcl_events_watch(fgcl_events *w, fg__backend *be,
                            cl_command_queue queue, const char *device,
                            cl_event ev, const fg__async *a,
                            const char *what);
/* Test hook: microseconds each completion callback sleeps before it
 * reports (a driver whose callbacks come late, as NVIDIA's); 0. */
extern atomic_int fgcl_test_callback_delay_us;

/* A copy of build log with each "<kernel>:L" position (NVIDIA's, which
 * ignores #line) replaced by the file and line source's #line directives
 * give it (log_lines.c); NULL when none is (the log stands as it is). */
char *fgcl_map_log_lines(const char *source, const char *log);

fg_status fgcl_build(cl_context ctx, const fgcl_device_info *dev,
                     fgtc_cache *cache, const char *source,
                     const char *options, const char *what,
                     cl_program *out, bool *compiled, char *err,
                     size_t errlen);

#endif
