/* backend-opencl/device.c - OpenCL platform and device discovery (every
 * device of every platform, with what fieldgraph needs to know about each)
 * and the choice of one device from a user's selector text ("gpu", "cpu",
 * an index, or part of a name). */
#include "cl_impl.h"
#include "util/util.h"

#include <CL/cl_ext.h>           /* CL_PLATFORM_NOT_FOUND_KHR (cl_khr_icd) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "<call>: <error name>" (with the number when the name is unknown)
 * followed by the context, mapped to its status. */
static fg_status cl_fail(char *err, size_t errlen, const char *call,
                         cl_int rc, const char *context) {
  const char *name = fgcl_error_name(rc);
  if (!strcmp(name, "CL_UNKNOWN_ERROR"))
    return fgu_fail(err, errlen, fgcl_status(rc), "%s: %s(%d) %s", call, name,
                (int)rc, context);
  return fgu_fail(err, errlen, fgcl_status(rc), "%s: %s %s", call, name, context);
}

/* ---- info queries -------------------------------------------------------- */

/* Removes leading and trailing blanks (some drivers pad device names). */
static void trim(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
    s[--n] = 0;
  size_t k = strspn(s, " \t\n");
  if (k)
    memmove(s, s + k, n - k + 1);
}

/* A string property of a platform (device NULL) or a device, whatever its
 * length, into *out (malloc'd, trimmed).  CL_SUCCESS or the CL error;
 * CL_OUT_OF_HOST_MEMORY when malloc fails. */
static cl_int query_string(cl_platform_id platform, cl_device_id device,
                           cl_uint param, char **out) {
  *out = NULL;
  size_t size = 0;
  cl_int rc = device ? clGetDeviceInfo(device, param, 0, NULL, &size)
                     : clGetPlatformInfo(platform, param, 0, NULL, &size);
  if (rc != CL_SUCCESS)
    return rc;
  char *s = malloc(size + 1);
  if (!s)
    return CL_OUT_OF_HOST_MEMORY;
  rc = device ? clGetDeviceInfo(device, param, size, s, NULL)
              : clGetPlatformInfo(platform, param, size, s, NULL);
  if (rc != CL_SUCCESS) {
    free(s);
    return rc;
  }
  s[size] = 0;
  trim(s);
  *out = s;
  return CL_SUCCESS;
}

/* query_string into a fixed field of fgcl_device_info (truncated). */
static cl_int query_field(cl_platform_id platform, cl_device_id device,
                          cl_uint param, char *field, size_t size) {
  char *s;
  cl_int rc = query_string(platform, device, param, &s);
  if (rc == CL_SUCCESS)
    fgu_strlcpy(field, s, size);
  free(s);
  return rc;
}

/* Whether the space-separated list contains the word. */
static bool has_word(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
      return true;
  return false;
}

/* Fills everything about one device except platform fields and index.
 * CL_SUCCESS or the code of the clGetDeviceInfo that failed. */
static cl_int describe(cl_device_id d, fgcl_device_info *di) {
  const struct {
    cl_uint param;
    char *field;
  } strings[] = {
      {CL_DEVICE_NAME, di->name},
      {CL_DEVICE_VENDOR, di->vendor},
      {CL_DRIVER_VERSION, di->driver_version},
      {CL_DEVICE_VERSION, di->device_version},
  };
  cl_int rc;
  /* Every one of these fields is 128 bytes, as sizeof di->name. */
  for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
    rc = query_field(NULL, d, strings[i].param, strings[i].field,
                     sizeof di->name);
    if (rc != CL_SUCCESS)
      return rc;
  }
  cl_device_type type = 0;
  if ((rc = clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL)) ||
      (rc = clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS,
                            sizeof di->compute_units, &di->compute_units,
                            NULL)) ||
      (rc = clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                            sizeof di->max_work_group_size,
                            &di->max_work_group_size, NULL)) ||
      (rc = clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE,
                            sizeof di->global_mem_size, &di->global_mem_size,
                            NULL)) ||
      (rc = clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                            sizeof di->max_mem_alloc_size,
                            &di->max_mem_alloc_size, NULL)) ||
      (rc = clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE,
                            sizeof di->local_mem_size, &di->local_mem_size,
                            NULL)) ||
      (rc = clGetDeviceInfo(d, CL_DEVICE_MAX_PARAMETER_SIZE,
                            sizeof di->max_parameter_size,
                            &di->max_parameter_size, NULL)))
    return rc;
  di->is_gpu = (type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0;
  /* deprecated in OpenCL 2.0 but still answered; a device that does not
   * answer is taken to have its own memory */
  cl_bool unified = CL_FALSE;
  if (clGetDeviceInfo(d, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified,
                      &unified, NULL) != CL_SUCCESS)
    unified = CL_FALSE;
  di->host_unified = unified == CL_TRUE;

  /* The work-item sizes come as one size_t per dimension (at least 3). */
  size_t bytes = 0;
  if ((rc = clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, 0, NULL,
                            &bytes)) != CL_SUCCESS)
    return rc;
  size_t *sizes = malloc(bytes ? bytes : 1);
  if (!sizes)
    return CL_OUT_OF_HOST_MEMORY;
  rc = clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, bytes, sizes, NULL);
  for (size_t i = 0; rc == CL_SUCCESS && i < 3; i++)
    di->max_work_item_sizes[i] = i < bytes / sizeof *sizes ? sizes[i] : 1;
  free(sizes);
  if (rc != CL_SUCCESS)
    return rc;

  char *ext;
  if ((rc = query_string(NULL, d, CL_DEVICE_EXTENSIONS, &ext)) != CL_SUCCESS)
    return rc;
  /* Before OpenCL 1.2 a device without doubles may reject the query. */
  cl_device_fp_config fp64 = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64,
                      NULL) != CL_SUCCESS)
    fp64 = 0;
  di->fp64 = fp64 != 0 || has_word(ext, "cl_khr_fp64");
  di->int64_atomics = has_word(ext, "cl_khr_int64_base_atomics");
  cl_device_fp_config fp32 = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp32, &fp32,
                      NULL) != CL_SUCCESS)
    fp32 = 0;
  di->fp32_rounded_div = (fp32 & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  free(ext);
  return CL_SUCCESS;
}

/* ---- enumeration --------------------------------------------------------- */

/* Appends the devices of one platform to *list (length *n, capacity *cap).
 * A platform without devices adds nothing and is no error. */
static fg_status add_platform(cl_platform_id p, fgcl_device_info **list,
                              int *n, int *cap, char *err, size_t errlen) {
  char pname[128], pversion[128], ctx[300];
  cl_int rc = query_field(p, NULL, CL_PLATFORM_NAME, pname, sizeof pname);
  if (rc == CL_SUCCESS)
    rc = query_field(p, NULL, CL_PLATFORM_VERSION, pversion, sizeof pversion);
  if (rc != CL_SUCCESS)
    return cl_fail(err, errlen, "clGetPlatformInfo", rc,
                   "(reading a platform's name and version)");
  snprintf(ctx, sizeof ctx, "(platform '%s')", pname);

  cl_uint nd = 0;
  rc = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
  if (rc == CL_DEVICE_NOT_FOUND || (rc == CL_SUCCESS && nd == 0))
    return FG_OK;
  if (rc != CL_SUCCESS)
    return cl_fail(err, errlen, "clGetDeviceIDs", rc, ctx);
  cl_device_id *ids = malloc(nd * sizeof *ids);
  if (!ids)
    return fgu_fail(err, errlen, FG_ENOMEM, "out of memory listing OpenCL "
                "devices");
  rc = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ids, &nd);
  if (rc != CL_SUCCESS) {
    free(ids);
    if (rc == CL_DEVICE_NOT_FOUND)
      return FG_OK;
    return cl_fail(err, errlen, "clGetDeviceIDs", rc, ctx);
  }
  if (*n + (int)nd > *cap) {
    int want = *cap ? *cap : 4;
    while (want < *n + (int)nd)
      want *= 2;
    fgcl_device_info *grown = realloc(*list, (size_t)want * sizeof **list);
    if (!grown) {
      free(ids);
      return fgu_fail(err, errlen, FG_ENOMEM, "out of memory listing OpenCL "
                  "devices");
    }
    *list = grown;
    *cap = want;
  }
  for (cl_uint i = 0; i < nd; i++) {
    fgcl_device_info *di = &(*list)[*n];
    memset(di, 0, sizeof *di);
    di->platform = p;
    di->device = ids[i];
    di->index = *n;
    memcpy(di->platform_name, pname, sizeof pname);
    memcpy(di->platform_version, pversion, sizeof pversion);
    rc = describe(ids[i], di);
    if (rc != CL_SUCCESS) {
      free(ids);
      snprintf(ctx, sizeof ctx, "(device %u of platform '%s')", i, pname);
      return cl_fail(err, errlen, "clGetDeviceInfo", rc, ctx);
    }
    (*n)++;
  }
  free(ids);
  return FG_OK;
}

fg_status fgcl_devices(fgcl_device_info **out, int *n, char *err,
                       size_t errlen) {
  *out = NULL;
  *n = 0;
  cl_uint np = 0;
  cl_int rc = clGetPlatformIDs(0, NULL, &np);
  if (rc == CL_PLATFORM_NOT_FOUND_KHR || (rc == CL_SUCCESS && np == 0))
    return fgu_fail(err, errlen, FG_ENODEV, "no OpenCL platform found: install "
                "an OpenCL driver (ICD), e.g. pocl-opencl-icd for the CPU or "
                "the GPU vendor's OpenCL runtime");
  if (rc != CL_SUCCESS)
    return cl_fail(err, errlen, "clGetPlatformIDs", rc,
                   "(listing OpenCL platforms)");
  cl_platform_id *plats = malloc(np * sizeof *plats);
  if (!plats)
    return fgu_fail(err, errlen, FG_ENOMEM, "out of memory listing OpenCL "
                "platforms");
  rc = clGetPlatformIDs(np, plats, &np);
  if (rc != CL_SUCCESS) {
    free(plats);
    return cl_fail(err, errlen, "clGetPlatformIDs", rc,
                   "(listing OpenCL platforms)");
  }
  fgcl_device_info *list = NULL;
  int count = 0, cap = 0;
  for (cl_uint i = 0; i < np; i++) {
    fg_status st = add_platform(plats[i], &list, &count, &cap, err, errlen);
    if (st != FG_OK) {
      free(plats);
      free(list);
      return st;
    }
  }
  free(plats);
  if (count == 0) {
    free(list);
    return fgu_fail(err, errlen, FG_ENODEV, "no OpenCL device found on %u "
                "OpenCL platform%s", np, np == 1 ? "" : "s");
  }
  *out = list;
  *n = count;
  return FG_OK;
}

/* ---- selection ----------------------------------------------------------- */

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

/* Case-insensitive (ASCII) substring test. */
static bool contains(const char *hay, const char *needle) {
  for (; *hay; hay++) {
    size_t i = 0;
    while (needle[i] && lower((unsigned char)hay[i]) ==
                            lower((unsigned char)needle[i]))
      i++;
    if (!needle[i])
      return true;
  }
  return !*needle;
}

static bool equals(const char *a, const char *b) {
  for (; *a && lower((unsigned char)*a) == lower((unsigned char)*b); a++, b++)
    ;
  return !*a && !*b;
}

/* The message for a selector that matched nothing: what exists. */
static int no_match(const fgcl_device_info *list, int n, const char *why,
                    const char *selector, char *err, size_t errlen) {
  fgu_buf b = {0};
  fgu_buf_printf(&b, "%s '%s'; OpenCL devices:", why, selector);
  for (int i = 0; i < n; i++)
    fgu_buf_printf(&b, "%s %d: %s (%s)", i ? ";" : "", list[i].index,
                   list[i].name, list[i].platform_name);
  if (n == 0)
    fgu_buf_puts(&b, " none");
  char *s = fgu_buf_take(&b);
  fgu_strlcpy(err, s ? s : "no OpenCL device matches the selector", errlen);
  free(s);
  return -1;
}

int fgcl_select(const fgcl_device_info *list, int n, const char *selector,
                char *err, size_t errlen) {
  if (!selector || !*selector) {
    for (int i = 0; i < n; i++)
      if (list[i].is_gpu)
        return i;
    if (n > 0)
      return 0;
    return no_match(list, n, "no OpenCL device for", "(default)", err,
                    errlen);
  }
  bool want_gpu = equals(selector, "gpu");
  if (want_gpu || equals(selector, "cpu")) {
    for (int i = 0; i < n; i++)
      if (list[i].is_gpu == want_gpu)
        return i;
    return no_match(list, n, "no OpenCL device of type", selector, err,
                    errlen);
  }
  if (strspn(selector, "0123456789") == strlen(selector)) {
    long index = 0;
    for (const char *p = selector; *p && index <= n; p++)
      index = index * 10 + (*p - '0');
    for (int i = 0; i < n; i++)
      if (list[i].index == index)
        return i;
    return no_match(list, n, "no OpenCL device with index", selector, err,
                    errlen);
  }
  for (int i = 0; i < n; i++)
    if (contains(list[i].name, selector) ||
        contains(list[i].vendor, selector) ||
        contains(list[i].platform_name, selector))
      return i;
  return no_match(list, n, "no OpenCL device name, vendor or platform "
                  "contains", selector, err, errlen);
}
