/* tests/check_opencl.c - the OpenCL backend's own behaviour: device
 * listing and selection (options, $FG_DEVICE, clear errors), a build error
 * reported with the compiler's log and the kernel's name, the on-disk
 * binary cache (a second process builds nothing), and the same graphs run
 * on both backends agreeing (exactly for integers).  Exits 77 (skipped)
 * only when no OpenCL device exists and $FG_REQUIRE_OPENCL is unset; CI
 * sets it, so a missing device fails there. */
#include "config.h"
#include "backend-opencl/cl_impl.h"
#include "runtime/context_impl.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static fg_context *cl_context_in(const char *dir, const char *device) {
  fg_context_options opt = {.backend = FG_BACKEND_OPENCL, .cache_dir = dir,
                            .device = device};
  fg_context *ctx = NULL;
  char err[2048];
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  return ctx;
}

/* Whether some OpenCL device is a CPU (where kernels run as strips). */
static bool has_cpu_device(void) {
  fg_device_desc d[16];
  int nd = 0;
  ck_assert_int_eq(fg_opencl_devices(d, 16, &nd, NULL, 0), FG_OK);
  bool cpu_device = false;
  for (int i = 0; i < nd && i < 16; i++)
    cpu_device |= !d[i].is_gpu;
  return cpu_device;
}

/* A context on backend kind (device: OpenCL's selector or NULL) without
 * the capabilities in disable. */
static fg_context *context_on(fg_backend_kind kind, const char *device,
                              unsigned disable) {
  fg_context_options opt = {.backend = kind, .device = device,
                            .disable = disable};
  fg_context *ctx;
  char err[1024];
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  return ctx;
}

START_TEST(test_opencl_lists_devices) {
  fg_device_desc d[16];
  int n = -1;
  char err[512];
  ck_assert_int_eq(fg_opencl_devices(d, 16, &n, err, sizeof err), FG_OK);
  ck_assert_int_ge(n, 1);
  for (int i = 0; i < n && i < 16; i++) {
    ck_assert_int_eq(d[i].index, i);
    ck_assert_int_gt((int)strlen(d[i].name), 0);
    ck_assert_int_gt((int)strlen(d[i].platform), 0);
    ck_assert_uint_gt(d[i].compute_units, 0);
    ck_assert_uint_gt(d[i].max_work_group_size, 0);
    ck_assert_uint_gt(d[i].max_parameter_size, 255);
  }
  ck_assert_int_eq(fg_opencl_devices(NULL, 0, &n, err, sizeof err), FG_OK);
  ck_assert_int_eq(fg_opencl_devices(d, 4, NULL, err, sizeof err), FG_EINVAL);
  ck_assert_int_eq(fg_opencl_devices(NULL, 3, &n, err, sizeof err), FG_EINVAL);
}
END_TEST

START_TEST(test_opencl_selects_devices_and_explains_failures) {
  fg_device_desc d[16];
  int n;
  ck_assert_int_eq(fg_opencl_devices(d, 16, &n, NULL, 0), FG_OK);
  /* by index, by a piece of the name, and by $FG_DEVICE */
  char idx[16];
  snprintf(idx, sizeof idx, "%d", n - 1);
  fg_context *ctx = cl_context_in(NULL, idx);
  ck_assert_ptr_nonnull(strstr(fg_context_device(ctx), d[n - 1].name));
  ck_assert_str_eq(fg_context_backend_name(ctx), "opencl");
  fg_context_free(ctx);
  char piece[8];
  snprintf(piece, sizeof piece, "%.5s", d[0].name);
  ctx = cl_context_in(NULL, piece);
  fg_context_free(ctx);
  setenv("FG_DEVICE", idx, 1);
  ctx = cl_context_in(NULL, NULL);
  ck_assert_ptr_nonnull(strstr(fg_context_device(ctx), d[n - 1].name));
  fg_context_free(ctx);
  /* no such device: the message lists the devices that exist */
  setenv("FG_DEVICE", "no-such-device-anywhere", 1);
  fg_context_options opt = {.backend = FG_BACKEND_OPENCL};
  char err[2048];
  ctx = (fg_context *)1;
  ck_assert_int_eq(fg_context_new(&opt, &ctx, err, sizeof err), FG_ENODEV);
  ck_assert_ptr_null(ctx);
  ck_assert_ptr_nonnull(strstr(err, "no-such-device-anywhere"));
  ck_assert_ptr_nonnull(strstr(err, d[0].name));
  unsetenv("FG_DEVICE");
  opt.device = "999";
  ck_assert_int_eq(fg_context_new(&opt, &ctx, err, sizeof err), FG_ENODEV);
  ck_assert_ptr_nonnull(strstr(err, "999"));
}
END_TEST

START_TEST(test_opencl_build_error_has_log_and_kernel_name) {
  fgcl_device_info *list;
  int n;
  char err[8192];
  ck_assert_int_eq(fgcl_devices(&list, &n, err, sizeof err), FG_OK);
  int i = fgcl_select(list, n, NULL, err, sizeof err);
  ck_assert_int_ge(i, 0);
  cl_int rc;
  cl_context ctx = clCreateContext(NULL, 1, &list[i].device, NULL, NULL, &rc);
  ck_assert_int_eq(rc, CL_SUCCESS);
  char dir[] = "/tmp/fg-clbuild-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  /* a user's kernel with an undeclared identifier on line 3 */
  const char *src = "__kernel void broken(__global float *out) {\n"
                    "  int i = get_global_id(0);\n"
                    "  out[i] = undeclared_thing * 2.0f;\n"
                    "}\n";
  cl_program prog = NULL;
  bool compiled = false;
  fgtc_cache cache;
  ck_assert_int_eq(fgtc_cache_open(&cache, dir, "opencl", err, sizeof err),
                   FG_OK);
  fg_status st = fgcl_build(ctx, &list[i], &cache, src, "-cl-std=CL1.2",
                            "myBrokenOperator", &prog, &compiled, err,
                            sizeof err);
  ck_assert_int_eq(st, FG_EBUILD);
  ck_assert_ptr_null(prog);
  ck_assert_msg(strstr(err, "myBrokenOperator"), "no kernel name: %s", err);
  ck_assert_msg(strstr(err, "undeclared_thing"), "no compiler log: %s", err);
  ck_assert_msg(strstr(err, ".cl"), "no source path: %s", err);
  fgtc_cache_close(&cache);
  clReleaseContext(ctx);
  free(list);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Builds and runs a small graph on OpenCL in cache dir; returns the number
 * of compiler runs, or -1 on any failure (no Check calls: runs in a child
 * process). */
static int build_in_child(const char *dir) {
  fg_context_options opt = {.backend = FG_BACKEND_OPENCL, .cache_dir = dir};
  fg_context *ctx = NULL;
  if (fg_context_new(&opt, &ctx, NULL, 0) != FG_OK)
    return -1;
  fg_type t = fg_type_vector(FG_F32, fg_shape2(13, 29), 4);
  fg_graph *g = fg_graph_new("cached");
  fg_field *in = fg_input(g, "in", t);
  fg_op *op = fg_op_begin(g, "scale3", 1, &t);
  fg_write_tensor(op, 0, fg_mulf(fg_read_tensor(op, in), 3.0f));
  fg_output(g, "out", fg_op_end(op));
  fg_program *p = NULL;
  float a[13 * 29 * 4], b[13 * 29 * 4];
  for (int i = 0; i < 13 * 29 * 4; i++)
    a[i] = (float)i;
  int result = -1;
  if (fg_compile(ctx, g, NULL, &p) == FG_OK &&
      fg_program_run(p, 1, (const void *[]){a}, 1, (void *[]){b}) == FG_OK) {
    result = 0;
    for (int i = 0; i < 13 * 29 * 4; i++)
      if (b[i] != a[i] * 3.0f)
        result = -1;
    fg_context_stats s;
    fg_context_get_stats(ctx, &s);
    if (result == 0)
      result = (int)s.kernels_compiled;
  }
  fg_program_free(p);
  fg_graph_free(g);
  fg_context_free(ctx);
  return result;
}

static int run_child(const char *dir) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    _exit(build_in_child(dir) + 1);   /* 0 means failure */
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFEXITED(st));
  return WEXITSTATUS(st) - 1;
}

/* NVIDIA's compiler reports "<kernel>:L:C" in the source as given; the
 * log is rewritten through the #line directives, as clang would name it:
 * the line after `#line 10 "a.rs"` is a.rs:10, the next a.rs:11, a later
 * directive without a file keeps the file, positions before any #line and
 * past the end stay. */
START_TEST(test_opencl_log_positions_follow_line_directives) {
  const char *src = "kernel void k() {\n"          /* 1 */
                    "#line 10 \"dir/a \\\"q\\\".rs\"\n" /* 2 */
                    "  x;\n"                         /* 3: a.rs:10 */
                    "  y;\n"                         /* 4: a.rs:11 */
                    "#line 40\n"                      /* 5 */
                    "  z;\n"                         /* 6: a.rs:40 */
                    "}\n";
  char *m = fgcl_map_log_lines(src, "<kernel>:3:3: error: x\n"
                               "<kernel>:4:3: error: y\n<kernel>:6:1: e\n"
                               "<kernel>:1:1: before\n<kernel>:99:1: past\n"
                               "<kernel>:x: odd\n");
  ck_assert_ptr_nonnull(m);
  ck_assert_str_eq(m, "dir/a \\\"q\\\".rs:10:3: error: x\n"
                      "dir/a \\\"q\\\".rs:11:3: error: y\n"
                      "dir/a \\\"q\\\".rs:40:1: e\n"
                      "<kernel>:1:1: before\n<kernel>:99:1: past\n"
                      "<kernel>:x: odd\n");
  free(m);
  /* nothing to map: NULL, the log stands */
  ck_assert_ptr_null(fgcl_map_log_lines(src, "input.cl:3:1: error\n"));
  ck_assert_ptr_null(fgcl_map_log_lines("kernel void k() {}\n",
                                        "<kernel>:1:1: error\n"));
}
END_TEST

START_TEST(test_opencl_second_process_builds_nothing) {
  char dir[] = "/tmp/fg-clcache-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  ck_assert_int_eq(run_child(dir), 1);   /* first start: one build */
  ck_assert_int_eq(run_child(dir), 0);   /* second start: from the cache */
  char cmd[128];
  snprintf(cmd, sizeof cmd, "test -n \"$(ls %s/opencl/*.bin)\" && rm -rf %s",
           dir, dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The program-binary cache trusts what the kernel cache trusts (the
 * toolchain's checks): a .bin others can write, or another user's, is
 * rebuilt and replaced; in a folder others can write nothing is cached,
 * and programs are still built and right. */
START_TEST(test_opencl_cache_refuses_untrusted_binaries) {
  char dir[] = "/tmp/fg-clcache-XXXXXX", sub[64], bin[600], cmd[256];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  ck_assert_int_eq(run_child(dir), 1);
  snprintf(sub, sizeof sub, "%s/opencl", dir);
  struct stat st;
  ck_assert_int_eq(stat(sub, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0700);
  snprintf(cmd, sizeof cmd, "ls %s/*.bin", sub);
  FILE *f = popen(cmd, "r");
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(fgets(bin, sizeof bin, f));
  pclose(f);
  bin[strcspn(bin, "\n")] = 0;
  ck_assert_int_eq(chmod(bin, 0666), 0);
  ck_assert_int_eq(run_child(dir), 1);      /* rebuilt */
  ck_assert_int_eq(stat(bin, &st), 0);
  ck_assert_int_eq(st.st_mode & 022, 0);
  ck_assert_int_eq(run_child(dir), 0);      /* the new one is used */
  ck_assert_int_eq(chown(bin, 65534, 65534), 0);
  ck_assert_int_eq(run_child(dir), 1);
  ck_assert_int_eq(stat(bin, &st), 0);
  ck_assert_uint_eq(st.st_uid, geteuid());
  /* a world-writable folder: not cached, each start builds */
  ck_assert_int_eq(chmod(sub, 0777), 0);
  ck_assert_int_eq(run_child(dir), 1);
  ck_assert_int_eq(run_child(dir), 1);
  ck_assert_int_eq(chmod(sub, 0700), 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The same graph on both backends: a mix of integer and float work. */
static fg_graph *mixed_graph(fg_shape s) {
  fg_graph *g = fg_graph_new("mixed");
  fg_field *img = fg_input(g, "img", fg_type_vector(FG_U8, s, 4));
  fg_field *w = fg_input(g, "w", fg_type_scalar(FG_I32, s));
  fg_type ti = fg_type_vector(FG_I32, s, 4), tf = fg_type_scalar(FG_F32, s);
  fg_op *op = fg_op_begin(g, "ints", 1, &ti);
  fg_expr *p = fg_convert(fg_read_tensor(op, img), FG_I32, 4);
  fg_expr *k = fg_read_tensor(op, w);
  fg_write_tensor(op, 0, fg_add(fg_mul(p, k), fg_mod(p, fg_addi(k, 0))));
  fg_output(g, "ints", fg_op_end(op));
  op = fg_op_begin(g, "floats", 1, &tf);
  fg_expr *f = fg_mulf(fg_convert(fg_read_tensor(op, img), FG_F32, 4),
                       1.0f / 255);
  fg_expr *v = fg_var(op, FG_F32, 1);
  fg_assign(v, fg_dot(f, fg_float4(fg_float(op, 0.25f), fg_float(op, 0.5f),
                                   fg_float(op, 0.125f), fg_float(op, 1))));
  fg_if(fg_gt(v, fg_float(op, 0.5f)));
  fg_assign(v, fg_sqrt(v));
  fg_else(op);
  fg_assign(v, fg_mul(v, v));
  fg_end(op);
  fg_write_tensor(op, 0, fg_add(v, fg_convert(fg_read_tensor_at(
      op, w, 2, fg_subi(fg_row(op), 1), fg_addi(fg_column(op), 2)), FG_F32,
      1)));
  fg_output(g, "floats", fg_op_end(op));
  return g;
}

/* mixed_graph's inputs over np points (caller frees). */
static void mixed_inputs(size_t np, uint8_t **img, int32_t **w) {
  *img = malloc(np * 4);
  *w = malloc(np * 4);
  ck_assert(*img && *w);
  for (size_t i = 0; i < np * 4; i++)
    (*img)[i] = (uint8_t)(i * 131 + 7);
  for (size_t i = 0; i < np; i++)
    (*w)[i] = (int32_t)(i % 17) - 8;
}

START_TEST(test_opencl_agrees_with_cpu) {
  fg_shape s = fg_shape2(61, 77);
  size_t np = 61 * 77;
  uint8_t *img;
  int32_t *w;
  mixed_inputs(np, &img, &w);
  int32_t *ia = malloc(np * 16), *ib = malloc(np * 16);
  float *fa = malloc(np * 4), *fb = malloc(np * 4);
  const char *backends[2] = {"cpu", "opencl"};
  for (int b = 0; b < 2; b++) {
    fg_graph *g = mixed_graph(s);
    fg_context_options opt = {.backend = b ? FG_BACKEND_OPENCL
                                           : FG_BACKEND_CPU};
    fg_context *ctx;
    char err[1024];
    ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                  err);
    fg_program *p = tu_compile(ctx, g);
    ck_assert_msg(fg_program_run(p, 2, (const void *[]){img, w}, 2,
                                 (void *[]){b ? ib : ia, b ? fb : fa}) ==
                  FG_OK, "%s: %s", backends[b], fg_context_errmsg(ctx));
    fg_program_free(p);
    fg_context_free(ctx);
    fg_graph_free(g);
  }
  /* integers exactly, floats within 2 ulp-ish of each other */
  ck_assert_int_eq(memcmp(ia, ib, np * 16), 0);
  for (size_t i = 0; i < np; i++)
    ck_assert_msg(fabsf(fa[i] - fb[i]) <= 3e-7f * fabsf(fa[i]) + 1e-7f,
                  "pixel %zu: cpu %.9g opencl %.9g", i, fa[i], fb[i]);
  free(img);
  free(w);
  free(ia);
  free(ib);
  free(fa);
  free(fb);
}
END_TEST

/* Every event, buffer and queue the backend made is released with the
 * context: an event the runtime waited on kept one reference too many, so
 * each freed context stayed alive in the driver; on an NVIDIA GPU a suite
 * making a context per case then failed clCreateContext with
 * CL_OUT_OF_HOST_MEMORY after some hundreds.  Blocking runs and runs in
 * flight, with and without zero copy, on a graph of several kernels. */
START_TEST(test_opencl_freed_contexts_hold_nothing) {
  fg_shape s = fg_shape2(37, 53);
  size_t np = 37 * 53;
  uint8_t *img = calloc(np, 4);
  int32_t *w = calloc(np, 4);
  int32_t *io[4];
  float *fo[4];
  for (int i = 0; i < 4; i++) {
    io[i] = malloc(np * 16);
    fo[i] = malloc(np * 4);
  }
  unsigned before = fgcl_contexts_outlived();
  for (int zc = 0; zc < 2; zc++) {
    if (zc)
      setenv("FG_DISABLE", "zero_copy", 1);
    fg_graph *g = mixed_graph(s);
    fg_context *ctx = cl_context_in(NULL, NULL);
    fg_program *p = tu_compile(ctx, g);
    for (int rep = 0; rep < 2; rep++)
      ck_assert_int_eq(fg_program_run(p, 2, (const void *[]){img, w}, 2,
                                      (void *[]){io[0], fo[0]}), FG_OK);
    fg_run *runs[4];
    for (int i = 0; i < 4; i++)
      ck_assert_int_eq(fg_program_start(p, 2, (const void *[]){img, w}, 2,
                                        (void *[]){io[i], fo[i]}, NULL, NULL,
                                        &runs[i]),
                       FG_OK);
    for (int i = 0; i < 4; i++) {
      ck_assert_int_eq(fg_run_wait(runs[i]), FG_OK);
      fg_run_free(runs[i]);
    }
    fg_program_free(p);
    tu_context_free(ctx);
    fg_graph_free(g);
    ck_assert_msg(fgcl_contexts_outlived() == before,
                  "%u OpenCL context(s) still referenced after "
                  "fg_context_free (zero copy %s)",
                  fgcl_contexts_outlived() - before, zc ? "off" : "on");
  }
  unsetenv("FG_DISABLE");
  for (int i = 0; i < 4; i++) {
    free(io[i]);
    free(fo[i]);
  }
  free(img);
  free(w);
}
END_TEST

/* ---- strips: a CPU device's work-items as loops over columns ---------- */

enum { ST_ROWS = 6, ST_COLS = 150 };  /* strips of 64, 64 and 22 columns */

/* W1's sRGB curve on a float4 field (pow of a vector, a select, the alpha
 * passed through), cube roots of its result and a dot product of their
 * xyz, and a 3x3 sum of a float field with clamped borders. */
static fg_graph *strip_graph(void) {
  fg_shape s = fg_shape2(ST_ROWS, ST_COLS);
  fg_graph *g = fg_graph_new("strips");
  fg_field *rgba = fg_input(g, "rgba", fg_type_vector(FG_F32, s, 4));
  fg_field *x = fg_input(g, "x", fg_type_scalar(FG_F32, s));
  fg_type t4 = fg_field_type(rgba), t1 = fg_field_type(x);
  fg_op *op = fg_op_begin(g, "linear", 1, &t4);
  fg_expr *c = fg_read_tensor(op, rgba);
  fg_expr *hi = fg_pow(fg_divf(fg_addf(c, 0.055f), 1.055f),
                       fg_float(op, 2.4f));
  fg_write_tensor(op, 0, fg_select(fg_divf(c, 12.92f), hi,
                                   fg_gt(c, fg_float(op, 0.04045f))));
  fg_field *lin = fg_op_end(op);
  fg_output(g, "lin", lin);
  op = fg_op_begin(g, "root", 1, &t1);
  fg_expr *r = fg_var(op, FG_F32, 4);
  fg_assign(r, fg_cbrt(fg_read_tensor(op, lin)));
  fg_write_tensor(op, 0, fg_dot(fg_swizzle(r, "xyz"),
                                fg_float3(fg_float(op, 0.4124f),
                                          fg_float(op, 0.3576f),
                                          fg_float(op, 0.1805f))));
  fg_output(g, "dot", fg_op_end(op));
  op = fg_op_begin(g, "box", 1, &t1);
  fg_expr *v = fg_var(op, FG_F32, 1);
  fg_assign(v, fg_float(op, 0));
  for (int dr = -1; dr <= 1; dr++)
    for (int dc = -1; dc <= 1; dc++)
      fg_assign(v, fg_add(v, fg_read_tensor_at(op, x, 2,
                                               fg_addi(fg_row(op), dr),
                                               fg_addi(fg_column(op), dc))));
  fg_write_tensor(op, 0, v);
  fg_output(g, "box", fg_op_end(op));
  return g;
}

/* Runs strip_graph on backend kind (device: an OpenCL selector or NULL)
 * without the capabilities in disable; outputs into lin, dot, box. */
static void strip_run(fg_backend_kind kind, const char *device,
                      unsigned disable, const float *rgba, const float *x,
                      float *lin, float *dot, float *box) {
  fg_graph *g = strip_graph();
  fg_context *ctx = context_on(kind, device, disable);
  fg_program *p = tu_compile(ctx, g);
  ck_assert_msg(fg_program_run(p, 2, (const void *[]){rgba, x}, 3,
                               (void *[]){lin, dot, box}) == FG_OK, "%s",
                fg_context_errmsg(ctx));
  fg_program_free(p);
  fg_context_free(ctx);
  fg_graph_free(g);
}

/* Within ulps ulp of the float nearest ref. */
static bool near_ulps(float got, double ref, double ulps) {
  double u = ldexp(1.0, (fabs(ref) < FLT_MIN ? -126 : ilogb(ref)) - 23);
  return fabs((double)got - ref) <= ulps * u;
}

/* On a CPU OpenCL device every work-item of a plain kernel runs a row of
 * 64 columns as a loop, small tensors as scalars and float math by the C
 * dialect's routines (emit/dialect_cl.c): the float4 pipeline, the last
 * strip of 22 columns and the stencil's interior and border columns agree
 * element by element with a C reference (pow within 16 ulp, cbrt within 2,
 * the 3x3 sum exactly) and, on a CPU device, bit for bit with the CPU
 * backend (the same routines and order).  With FG_CAP_STRIPS disabled
 * (vector types, the device's pow and cbrt) the bounds hold too. */
START_TEST(test_opencl_strips_match_reference) {
  enum { N = ST_ROWS * ST_COLS };
  float *rgba = malloc(sizeof(float) * N * 4), *x = malloc(sizeof(float) * N);
  for (int i = 0; i < N * 4; i++)
    rgba[i] = (float)((i * 7919) % 1000) / 999.0f;   /* 0 .. 1, both curves */
  for (int i = 0; i < N; i++)
    x[i] = sinf((float)i * 0.731f) * 100.0f;
  bool cpu_device = has_cpu_device();
  float (*lin)[N * 4] = malloc(sizeof *lin * 3);
  float (*dot)[N] = malloc(sizeof *dot * 3);
  float (*box)[N] = malloc(sizeof *box * 3);
  strip_run(FG_BACKEND_CPU, NULL, 0, rgba, x, lin[0], dot[0], box[0]);
  const char *dev = cpu_device ? "cpu" : NULL;
  strip_run(FG_BACKEND_OPENCL, dev, 0, rgba, x, lin[1], dot[1], box[1]);
  strip_run(FG_BACKEND_OPENCL, dev, FG_CAP_STRIPS, rgba, x, lin[2], dot[2],
            box[2]);
  for (int b = 0; b < 3; b++) {
    for (int i = 0; i < N * 4; i++) {
      float c = rgba[i];
      double want = c > 0.04045f ? pow((double)((c + 0.055f) / 1.055f), 2.4)
                                 : (double)(c / 12.92f);
      ck_assert_msg(near_ulps(lin[b][i], want, 16), "run %d lin[%d] of %a: "
                    "%a, want %a", b, i, (double)c, (double)lin[b][i], want);
    }
    for (int i = 0; i < N; i++) {
      /* from this run's lin: each cube root within 2 ulp, then the sum */
      const float *l = &lin[b][i * 4];
      double want = cbrt(l[0]) * 0.4124f + cbrt(l[1]) * 0.3576f +
                    cbrt(l[2]) * 0.1805f;
      ck_assert_msg(fabs(dot[b][i] - want) <= 4e-7 * fabs(want) + 1e-30,
                    "run %d dot[%d]: %.9g, want %.9g", b, i,
                    (double)dot[b][i], want);
      int row = i / ST_COLS, col = i % ST_COLS;
      float s = 0;
      for (int dr = -1; dr <= 1; dr++)
        for (int dc = -1; dc <= 1; dc++) {
          int rr = row + dr < 0 ? 0 : row + dr >= ST_ROWS ? ST_ROWS - 1
                                                          : row + dr;
          int cc = col + dc < 0 ? 0 : col + dc >= ST_COLS ? ST_COLS - 1
                                                          : col + dc;
          s += x[rr * ST_COLS + cc];
        }
      ck_assert_msg(box[b][i] == s, "run %d box[%d] (row %d, column %d): "
                    "%.9g, want %.9g", b, i, row, col, (double)box[b][i],
                    (double)s);
    }
  }
  if (cpu_device) {
    ck_assert_msg(!memcmp(lin[0], lin[1], sizeof lin[0]), "lin: the CPU "
                  "backend and the CPU OpenCL device differ");
    ck_assert_msg(!memcmp(dot[0], dot[1], sizeof dot[0]), "dot: the CPU "
                  "backend and the CPU OpenCL device differ");
  }
  free(lin);
  free(dot);
  free(box);
  free(rgba);
  free(x);
}
END_TEST

/* Resizes and warps of u8 and 16-bit images whose CPU OpenCL kernels
 * read gathered taps as words (emit/taps.c: "fgk_tap4_<bytes>(") and fill
 * column tables once per strip, each work-item then running 8 rows of it
 * (emit/coltab.c: "fgk_col", "fgk_r0 + 8").  Outputs of 150 columns
 * (strips of 64, 64 and 22) and 35 rows (blocks of 8 and one of 3), down
 * and up, from inputs allocated to their size (the last pixels' words end
 * at the buffer's end) agree bit for bit with the CPU backend, as do the
 * device's kernels without strips and a GPU's (which take neither); a
 * 6-byte tensor and an input of fewer than 4 bytes read bytes. */
static const struct {
  fg_elem el;
  int n, h, w, word;   /* word: the taps' element bytes, 0: bytewise */
} sw_types[] = {
  {FG_U8, 1, 37, 301, 0}, {FG_U8, 2, 9, 6, 1},  {FG_U8, 3, 37, 301, 1},
  {FG_U8, 4, 5, 11, 1},   {FG_U16, 2, 3, 9, 2}, {FG_I16, 2, 6, 7, 2},
  {FG_U16, 3, 7, 5, 0},   {FG_U8, 3, 1, 1, 0}};
enum { SW_OUT = 8 };
static const int sw_size[2][2] = {{35, 150}, {17, 86}};

/* The graph of sw_types[t]: nearest, bilinear and bicubic resizes to
 * both sizes, and two nearest warps. */
static fg_graph *sw_graph(size_t t) {
  static const double m[6] = {0.93, 0.21, -3.5, -0.17, 1.07, 2.25};
  fg_graph *g = fg_graph_new("strip_words");
  fg_field *x = fg_input(g, "in", fg_type_image(sw_types[t].el,
                                                sw_types[t].h, sw_types[t].w,
                                                sw_types[t].n));
  char name[8];
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < 3; i++)
      fg_output(g, (snprintf(name, sizeof name, "y%d", 3 * o + i), name),
                fg_resize(g, x, sw_size[o][0], sw_size[o][1],
                                  i == 0   ? FG_INTERP_NEAREST
                                  : i == 1 ? FG_INTERP_BILINEAR
                                           : FG_INTERP_BICUBIC));
  fg_output(g, "w0", fg_warp_affine(g, x, m, 35, 150, FG_INTERP_NEAREST,
                                   FG_BORDER_CONSTANT, 7));
  fg_output(g, "w1", fg_warp_affine(g, x, m, 17, 86, FG_INTERP_NEAREST,
                                   FG_BORDER_CLAMP, 0));
  return g;
}

/* Runs type t's graph on backend kind (device: a selector or NULL)
 * without the capabilities in disable into out (SW_OUT buffers).  Checks
 * the OpenCL kernels' text: with strips (the device a CPU one, strips
 * not disabled) every kernel takes word taps where sw_types[t].word says
 * and a kernel of resizes alone column tables, 8 rows to a work-item;
 * without strips no kernel takes either. */
static void sw_run(size_t t, fg_backend_kind kind, const char *device,
                   unsigned disable, bool strips, const void *in,
                   void **out) {
  fg_graph *g = sw_graph(t);
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  fg_context *ctx = context_on(kind, device, disable);
  fg_program *p = tu_compile(ctx, g);
  char tap[32];
  snprintf(tap, sizeof tap, "fgk_tap4_%d(", sw_types[t].word);
  for (int k = 0; kind == FG_BACKEND_OPENCL &&
                  k < fg_program_kernel_count(p); k++) {
    const char *src = fg_program_kernel_source(p, k);
    const char *name = fg_program_kernel_name(p, k);
    ck_assert_msg(strips == (strstr(src, "(OpenCL C (CPU))") != NULL),
                  "type %zu kernel %s: strips expected %d", t, name, strips);
    bool words = sw_types[t].word && strips;
    ck_assert_msg(words == (strstr(src, tap) != NULL) &&
                  (words || !strstr(src, "fgk_tap4")),
                  "type %zu kernel %s: word taps expected %d", t, name,
                  words);
    bool tables = strstr(src, "fgk_col") && strstr(src, "fgk_r0 + 8,");
    ck_assert_msg(strips ? tables || !strstr(name, "resize") ||
                               strstr(name, "warp")
                         : !strstr(src, "fgk_col") && !strstr(src, "fgk_r0"),
                  "type %zu kernel %s: column tables expected %d", t, name,
                  strips);
  }
  ck_assert_msg(fg_program_run(p, 1, (const void *[]){in}, SW_OUT, out) ==
                FG_OK, "%s", fg_context_errmsg(ctx));
  fg_program_free(p);
  fg_context_free(ctx);
  fg_graph_free(g);
}

START_TEST(test_opencl_strip_words_and_tables_match_cpu) {
  bool cpu_device = has_cpu_device();
  const char *dev = cpu_device ? "cpu" : NULL;
  for (size_t t = 0; t < sizeof sw_types / sizeof *sw_types; t++) {
    size_t bytes = (size_t)sw_types[t].h * sw_types[t].w * sw_types[t].n *
                   fg_elem_size(sw_types[t].el);
    uint8_t *in = malloc(bytes);    /* no slack after the last pixel */
    for (size_t i = 0; i < bytes; i++)
      in[i] = (uint8_t)((i * 2654435761u) >> 11);
    void *out[3][SW_OUT];
    size_t ob[SW_OUT];
    for (int o = 0; o < SW_OUT; o++) {
      const int *sz = sw_size[o < 6 ? o / 3 : o - 6];
      ob[o] = (size_t)sz[0] * sz[1] * sw_types[t].n *
              fg_elem_size(sw_types[t].el);
      for (int b = 0; b < 3; b++)
        out[b][o] = calloc(1, ob[o]);
    }
    sw_run(t, FG_BACKEND_CPU, NULL, 0, false, in, out[0]);
    sw_run(t, FG_BACKEND_OPENCL, dev, 0, cpu_device, in, out[1]);
    sw_run(t, FG_BACKEND_OPENCL, dev, FG_CAP_STRIPS, false, in, out[2]);
    for (int b = 1; b < 3; b++)
      for (int o = 0; o < SW_OUT; o++)
        ck_assert_msg(!memcmp(out[0][o], out[b][o], ob[o]),
                      "type %zu output %d: the OpenCL device (%s) and the "
                      "CPU backend differ", t, o,
                      b == 1 ? "strips" : "no strips");
    for (int b = 0; b < 3; b++)
      for (int o = 0; o < SW_OUT; o++)
        free(out[b][o]);
    free(in);
  }
}
END_TEST

START_TEST(test_opencl_reductions_bit_identical_to_cpu) {
  /* the order of a reduction depends only on the field's size */
  fg_shape s = fg_shape2(517, 203);
  int64_t n = fg_shape_points(s);
  float *x = malloc(sizeof(float) * (size_t)n * 2);
  for (int64_t i = 0; i < 2 * n; i++)
    x[i] = sinf((float)i * 0.37f) * 1000.0f;
  float out[2][2];
  for (int b = 0; b < 2; b++) {
    fg_graph *g = fg_graph_new("sum");
    fg_field *in = fg_input(g, "x", fg_type_vector(FG_F32, s, 2));
    fg_type t = fg_field_type(in);
    fg_op *op = fg_op_begin(g, "sq", 1, &t);
    fg_expr *v = fg_read_tensor(op, in);
    fg_write_tensor(op, 0, fg_mul(v, v));
    fg_output(g, "sum", fg_reduce(g, "total", FG_REDUCE_SUM, fg_op_end(op)));
    fg_context_options opt = {.backend = b ? FG_BACKEND_OPENCL
                                           : FG_BACKEND_CPU};
    fg_context *ctx;
    char err[1024];
    ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                  err);
    fg_program *p = tu_compile(ctx, g);
    ck_assert_int_eq(fg_program_kernel_count(p), 1);
    ck_assert_int_eq(fg_program_run(p, 1, (const void *[]){x}, 1,
                                    (void *[]){out[b]}), FG_OK);
    fg_program_free(p);
    fg_context_free(ctx);
    fg_graph_free(g);
  }
  ck_assert_msg(memcmp(out[0], out[1], sizeof out[0]) == 0,
                "cpu (%.9g, %.9g) opencl (%.9g, %.9g)", out[0][0], out[0][1],
                out[1][0], out[1][1]);
  free(x);
}
END_TEST

static int ends_seen;
static void count_end(fg_run *r, fg_status st, void *user) {
  ck_assert_msg(st == FG_OK, "%s", fg_run_errmsg(r));
  ck_assert_msg(fg_run_done(r), "a callback for a run not ended");
  ends_seen++;
  (void)user;
}

/* With a thread waiting for the events beside the driver's callbacks
 * (FG_CAP_EVENT_WAIT; a GPU's default, forced here on any device) and
 * callbacks made late (3 ms), and without: each operation's end is
 * reported once (a second report would end a run early or twice), and
 * 48 runs of a program of copies and kernels, 4 in flight, give the bits
 * of one blocking run. */
START_TEST(test_opencl_event_wait_reports_each_end_once) {
  fg_shape s = fg_shape2(61, 77);
  size_t np = 61 * 77;
  uint8_t *img;
  int32_t *w;
  mixed_inputs(np, &img, &w);
  enum { RUNS = 48 };
  int32_t *ia = malloc(np * 16), *ib = malloc(np * 16 * RUNS);
  float *fa = malloc(np * 4), *fb = malloc(np * 4 * RUNS);
  ck_assert(ia && ib && fa && fb);
  for (int on = 0; on < 2; on++) {
    fg_graph *g = mixed_graph(s);
    fg_context_options opt = {.backend = FG_BACKEND_OPENCL, .max_runs = 4};
    fg_context *ctx;
    char err[1024];
    ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                  err);
    ctx->be->caps.event_wait = on;
    /* callbacks late, as NVIDIA's: the waiting thread reports first */
    atomic_store(&fgcl_test_callback_delay_us, on ? 3000 : 0);
    fg_program *p = tu_compile(ctx, g);
    ck_assert_msg(fg_program_run(p, 2, (const void *[]){img, w}, 2,
                                 (void *[]){ia, fa}) == FG_OK, "%s",
                  fg_context_errmsg(ctx));
    ends_seen = 0;
    for (int r = 0; r < RUNS; r++)
      ck_assert_int_eq(fg_program_start(p, 2, (const void *[]){img, w}, 2,
                                        (void *[]){ib + r * np * 4,
                                                   fb + r * np},
                                        count_end, NULL, NULL), FG_OK);
    ck_assert_int_eq(fg_context_wait(ctx), FG_OK);
    ck_assert_int_eq(ends_seen, RUNS);
    for (int r = 0; r < RUNS; r++) {
      ck_assert_msg(!memcmp(ia, ib + r * np * 4, np * 16), "run %d (event "
                    "wait %s): integers differ", r, on ? "on" : "off");
      ck_assert_msg(!memcmp(fa, fb + r * np, np * 4), "run %d (event wait "
                    "%s): floats differ", r, on ? "on" : "off");
    }
    fg_program_free(p);
    tu_context_free(ctx);
    fg_graph_free(g);
  }
  free(img);
  free(w);
  free(ia);
  free(ib);
  free(fa);
  free(fb);
}
END_TEST

int main(void) {
  if (!tu_opencl_device_exists()) {
    const char *req = getenv("FG_REQUIRE_OPENCL");
    fprintf(stderr, "check_opencl: no OpenCL device%s\n",
            req && *req ? " (FG_REQUIRE_OPENCL is set: failing)" : "");
    return req && *req ? 1 : 77;
  }
  Suite *s = suite_create("opencl");
  TCase *tc = tcase_create("opencl");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_opencl_lists_devices);
  tcase_add_test(tc, test_opencl_selects_devices_and_explains_failures);
  tcase_add_test(tc, test_opencl_build_error_has_log_and_kernel_name);
  tcase_add_test(tc, test_opencl_log_positions_follow_line_directives);
  tcase_add_test(tc, test_opencl_second_process_builds_nothing);
  tcase_add_test(tc, test_opencl_cache_refuses_untrusted_binaries);
  tcase_add_test(tc, test_opencl_agrees_with_cpu);
  tcase_add_test(tc, test_opencl_freed_contexts_hold_nothing);
  tcase_add_test(tc, test_opencl_event_wait_reports_each_end_once);
  tcase_add_test(tc, test_opencl_reductions_bit_identical_to_cpu);
  tcase_add_test(tc, test_opencl_strips_match_reference);
  tcase_add_test(tc, test_opencl_strip_words_and_tables_match_cpu);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
