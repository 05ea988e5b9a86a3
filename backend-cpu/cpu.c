/* backend-cpu/cpu.c - the CPU backend: kernels are C (emit/dialect_c.c)
 * compiled by the system's clang into shared objects, cached on disk by a
 * hash of everything that affects the object, loaded with dlopen, and run
 * over row (or column) tiles on a thread pool.
 *
 * The compiler, the cache and the loading are the toolchain's
 * (toolchain/cc.c: clang -> verified cache -> dlopen); this file chooses
 * the flags and the key. */
#define _GNU_SOURCE
#include "config.h"
#include "cpu_impl.h"
#include "toolchain/toolchain.h"
#include "util/fs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Work-group memory a grouped kernel may declare: its arrays live on a
 * pool thread's stack. */
#define LOCAL_MEM (1u << 20)


/* Full precision keeps IEEE semantics (no contraction, so fused and unfused
 * kernels round alike); relaxed lets clang call libmvec's vector math and
 * reassociate, but assumes no finite math: NaN and infinities still
 * compare, test (isnan) and pass through fmax / fmin as IEEE says, as
 * RenderScript's rs_fp_relaxed keeps them (FGK_FAST_MATH selects the
 * relaxed math routines, emit/math_c.c, which __FAST_MATH__ no longer
 * does without -ffinite-math-only).  Signed integers wrap (-fwrapv), as
 * OpenCL devices do in practice.  Unroll-and-jam runs only on the loops
 * whose pragma asks for it (emit/jam.c). */
/* No SLP vectorizer on x86-64: clang 14 miscompiles, with AVX-512 (VL),
 * the <4 x i8> select it makes of four saturating float-to-u8
 * conversions (v <= 0 ? 0 : (uchar)v, one per lane, as scale_offset emits
 * for u8 vectors): it converts to four dwords, masks them bytewise
 * (vmovdqu8 {k}{z}, or vpand with a byte mask without AVX512BW) without
 * packing them to bytes, and reads lane 0 back as a whole dword
 * (0xff000000 where it should be 0), so a fused kernel took the other
 * branch of a test and differed from the unfused ones
 * (tests/check_fuse.c, test_fuse_sat_u8_select_avx512).  -mno-avx512bw
 * is no cure (the same error through vpand) and -mno-avx512vl costs more
 * (W1 a third slower, resize nearly twice); without SLP the benchmarks'
 * W1, W2 and W6 stay within about 10% on this Xeon (kernels are written
 * in vector types already; the loop vectorizer still runs). */
/* Nor AVX-512's byte and word instructions (BW): clang 14's loop
 * vectorizer, widening a stencil's conditional byte read (a mirrored row
 * of an i8 field, once u8x3 loops vectorized at all), made a masked byte
 * load (vmovdqu8 {k}{z}) from a wrong base, which crashed the kernel
 * (found by the differential fuzzer; fuzz/regressions/fuzz_diff/
 * masked_byte_load_avx512bw).  Without BW the same loop vectorizes with
 * AVX2's byte instructions, the kernels' preferred width anyway. */
/* Interleaved access groups of up to 16 members (LLVM's default is 8):
 * an area resize by 4 of u8x3 reads 12 consecutive bytes per point per
 * row, which the vectorizer otherwise gathers byte by byte (vpinsrb);
 * as one group it loads them whole and shuffles (W8 area /4 u8x3, one
 * thread: 15 -> 4.7 ms for the kernel alone).  Kernels whose groups are
 * at most 8 wide compile to the same code. */
#define FLAGS_GROUPS "-mllvm", "-max-interleave-group-factor=16",
/* No -mprefer-vector-width=256, though on AMD Zen 4 clang 14 (znver3
 * tuning with AVX-512) widens loops to 512 bits where an Intel target
 * prefers 256: measured on a Zen 4, one thread (BENCH_CLOCK=cpu
 * BENCH_THREADS=1 BENCH_REPS=3, least of three alternated runs of W1 W2
 * W3 W6 W8 W9 W10 W11), it costs more than it gains: W2 fused 9.6 -> 11.3
 * ms, W8 scale_offset u8x3 3.6 -> 4.8, W9 filter2D 3x3 u8x3 9.3 -> 11.6,
 * addWeighted 5.1 -> 6.1, grey->rgb 1.7 -> 2.2, W10 tone (through opt)
 * 19.7 -> 27.5, W11 blur 12.9 -> 14.1; it gains on area resizes (W8 /4
 * u8x3 13.5 -> 6.5, W9 downsample2 12.5 -> 5.5) and W3 dot (5.8 -> 5.2),
 * gains for those kernels to take on their own.  Outputs are the same
 * bits either way.  Kernels calling emit/math_c.c's routines ask for
 * 512-bit registers themselves (min_vector_width, emit/dialect_c.c). */
#if defined(__x86_64__)
#define FLAGS_TARGET "-fno-slp-vectorize", "-mno-avx512bw",
#else
#define FLAGS_TARGET
#endif
static const char *const flags_full[] = {
  "-O3", "-fPIC", "-shared", "-std=gnu11", "-fno-math-errno", "-fwrapv",
  "-ffp-contract=off", "-mllvm", "-enable-unroll-and-jam", FLAGS_GROUPS
  FLAGS_TARGET
  "-w", NULL};
static const char *const flags_relaxed[] = {
  "-O3", "-fPIC", "-shared", "-std=gnu11", "-ffast-math",
  "-fno-finite-math-only", "-DFGK_FAST_MATH=1", "-fwrapv",
  "-fveclib=libmvec", "-mllvm", "-enable-unroll-and-jam", FLAGS_GROUPS
  FLAGS_TARGET
  "-w", NULL};

/* A kernel whose thread loop computes values of vector type (a front
 * end's code: RenderScript's float4, uchar4; emit/abi.h) goes through
 * LLVM's opt with the scalarizer placed before the loop vectorizer, which
 * widens scalar code only: clang's flags cannot put a pass there; the
 * script's functions are inlined whole into the thread loop (a higher
 * threshold: the vectorizer needs one loop body; the DSL's kernels are
 * one function already).  The rest is clang's -O3 pipeline with the
 * flags' options (unroll-and-jam, interleaved groups of 16; no SLP
 * vectorizer, as -fno-slp-vectorize: its threshold out of reach;
 * relaxed: libmvec).  One thread: RenderScript's greyscale kernel on a
 * 4000x3000 uchar4 image 36 -> 15 ms; a float4 kernel calling pow, exp
 * and log2 (full precision, the math routines of emit/math_c.c through
 * rs/compat.c) on 2048x2048, 77 -> 25 ms. */
static const char *const opt_full[] = {
  "-passes=default<O3>", "-passes-ep-vectorizer-start=scalarizer",
  "-scalarize-load-store", "-inline-threshold=2000", "-enable-unroll-and-jam",
  "-max-interleave-group-factor=16", "-slp-threshold=1000000", NULL};
static const char *const opt_relaxed[] = {
  "-passes=default<O3>", "-passes-ep-vectorizer-start=scalarizer",
  "-scalarize-load-store", "-inline-threshold=2000", "-enable-unroll-and-jam",
  "-max-interleave-group-factor=16", "-slp-threshold=1000000",
#if defined(__x86_64__)
  "-vector-library=LIBMVEC-X86",
#endif
  NULL};

/* opt of the LLVM clang belongs to: beside clang's real path (Debian's
 * /usr/bin/clang leads to /usr/lib/llvm-14/bin/clang), into out; "" when
 * there is none (such kernels then build with clang alone). */
static void find_opt(const char *clang, char *out, size_t size) {
  out[0] = 0;
  char *real = realpath(clang, NULL);
  char *slash = real ? strrchr(real, '/') : NULL;
  if (slash && (size_t)snprintf(out, size, "%.*s/opt", (int)(slash - real),
                                real) < size && access(out, X_OK) == 0) {
    free(real);
    return;
  }
  out[0] = 0;
  free(real);
}

/* ---- messages ----------------------------------------------------------- */

/* Why the compiler ended as x did, for a message; with no log to show, a
 * full filesystem under dir is named (the compiler could not write its
 * output or its log). */
static const char *run_failure(const fgtc_exit *x, bool no_log,
                               const char *dir, char *buf, size_t size) {
  char ebuf[128];
  if (x->end == FGTC_EXITED && no_log && fgu_dir_full(dir))
    snprintf(buf, size, "exit status %d, no log: %s has no space left "
             "(%s)", x->code, dir, fgu_strerror(ENOSPC, ebuf, sizeof ebuf));
  else
    fgtc_exit_str(x, NULL, buf, size);
  return buf;
}

/* The CPU as the compiler will target it: model name and flags from
 * /proc/cpuinfo (what -march=native resolves from). */
static void cpu_identity(fgu_sha256 *h) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[8192];
  int seen = 0;
  while (f && fgets(line, sizeof line, f) && seen < 3) {
    if (!strncmp(line, "model name", 10) || !strncmp(line, "flags", 5) ||
        !strncmp(line, "Features", 8) || !strncmp(line, "CPU part", 8)) {
      fgu_sha256_update(h, line, strlen(line));
      seen++;
    }
  }
  if (f)
    fclose(f);
}

/* ---- the interface ------------------------------------------------------ */

/* The cache key of one build: the backend's prefix, the flags, opt's
 * arguments (NULL: no opt), the target (march), the entry symbol and the
 * source. */
static void build_key(const cpu_backend *cb, const char *const *flags,
                      const char *const *opt_args, const char *march,
                      const char *entry, const char *source, char key[65]) {
  fgu_sha256 h;
  fgu_sha256_init(&h);
  fgu_sha256_update(&h, cb->key_prefix, strlen(cb->key_prefix));
  for (int i = 0; flags[i]; i++)
    fgu_sha256_update(&h, flags[i], strlen(flags[i]) + 1);
  for (int i = 0; opt_args && opt_args[i]; i++) {
    fgu_sha256_update(&h, "opt", 4);
    fgu_sha256_update(&h, opt_args[i], strlen(opt_args[i]) + 1);
  }
  fgu_sha256_update(&h, march, strlen(march) + 1);
  fgu_sha256_update(&h, entry, strlen(entry) + 1);
  fgu_sha256_update(&h, source, strlen(source));
  fgu_sha256_hex(&h, key);
}

/* Whether a failed build is clang's own crash (a signal, or its backend
 * giving up: clang 14 cannot select some AVX-512 mask shifts at
 * -march=native) rather than an error in the source. */
static bool compiler_crashed(const fgtc_cc_result *r) {
  return r->exit.end == FGTC_SIGNALED ||
         (r->exit.end == FGTC_EXITED && r->exit.code != 0 &&
          (r->exit.code == 70 || (r->log && (strstr(r->log, "error in "
                                                    "backend") ||
                                             strstr(r->log, "Cannot select")))));
}

/* The narrower target a native build falls back to when clang crashes:
 * AVX2 and FMA, which every x86-64 machine with AVX-512 also runs. */
#define FALLBACK_MARCH "-march=x86-64-v3"

static fg_status cpu_build(fg__backend *be, const char *source,
                           const char *entry, const char *what,
                           const fg_compile_options *opt, fg__kbin **out) {
  cpu_backend *cb = (cpu_backend *)be;
  *out = NULL;
  bool relaxed = opt && opt->precision == FG_PRECISION_RELAXED;
  const char *const *flags = relaxed ? flags_relaxed : flags_full;
  const char *const *opt_args = NULL;
  if (*cb->opt && fge_source_vector_values(source))
    opt_args = relaxed ? opt_relaxed : opt_full;
  /* the target asked for, then (native only) a narrower one if clang
   * itself crashes on it: the kernel is the same, less widely vectorized */
  const char *marches[2] = {cb->march, FALLBACK_MARCH};
  int n_marches = strcmp(cb->march, "-march=native") ? 1 : 2;
  void *dl = NULL;
  fgtc_cc_result r;
  char err[1024];
  fg_status st = FG_OK;
  for (int m = 0; m < n_marches; m++) {
    if (m > 0)
      free(r.log);
    char key[65];
    build_key(cb, flags, opt_args, marches[m], entry, source, key);
    const char *argv_flags[32];
    int n = 0;
    argv_flags[n++] = marches[m];
    for (int i = 0; flags[i]; i++)
      argv_flags[n++] = flags[i];
    argv_flags[n] = NULL;
    st = fgtc_cc_build_opt(&cb->cache, cb->clang, argv_flags,
                           opt_args ? cb->opt : NULL, opt_args, key, source,
                           &dl, &r, err, sizeof err);
    if (r.hit)
      __atomic_fetch_add(&be->stats->cache_hits, 1, __ATOMIC_RELAXED);
    if (r.compiled)
      __atomic_fetch_add(&be->stats->kernels_compiled, 1, __ATOMIC_RELAXED);
    if (st == FG_OK || !r.compiled || !compiler_crashed(&r))
      break;
  }
  if (st != FG_OK && r.compiled && !(r.exit.end == FGTC_EXITED &&
                                     r.exit.code == 0)) {
    char why[512];
    bool no_log = !r.log || !*r.log;
    if (r.log && strlen(r.log) > 16000)
      r.log[16000] = 0;
    fg__be_fail(be, st, "kernel '%s': %s failed (%s) compiling %s:\n%s",
                what, cb->clang,
                run_failure(&r.exit, no_log, cb->cache.path, why, sizeof why),
                r.src, no_log ? "(no log)" : r.log);
    free(r.log);
    return st;
  }
  free(r.log);
  if (st != FG_OK)
    return fg__be_fail(be, st, "kernel '%s': %s", what, err);
  fgc_kernel_fn fn = (fgc_kernel_fn)fgtc_dl_sym(dl, entry);
  if (!fn) {
    fgtc_dl_close(dl);
    return fg__be_fail(be, FG_EBUILD, "kernel '%s': symbol %s missing in %s",
                       what, entry, r.so);
  }
  fg__kbin *k = calloc(1, sizeof *k);
  if (!k) {
    fgtc_dl_close(dl);
    return fg__be_fail(be, FG_ENOMEM, "kernel '%s': out of memory", what);
  }
  k->dl = dl;
  k->fn = fn;
  *out = k;
  return FG_OK;
}

static void cpu_kernel_free(fg__backend *be, fg__kbin *k) {
  if (!k)
    return;
  fgtc_dl_close(k->dl);
  free(k);
}

/* Buffers of 64 KiB and more start, in turn, at one of 64 places within
 * a page: large allocations all start at the same place in a page, so a
 * kernel reading the same point (or the rows above and below) of several
 * intermediates whose rows are multiples of 4 KiB hits the same sets of
 * an 8-way L1 cache with every stream and evicts its own lines (the
 * windows of bands.c are skewed the same way). */
static size_t alloc_skew(size_t bytes) {
  static unsigned turn;
  if (bytes < 65536)
    return 0;
  return (size_t)(__atomic_fetch_add(&turn, 1, __ATOMIC_RELAXED) * 7 % 64) *
         64;
}

static fg_status cpu_alloc(fg__backend *be, size_t bytes, fg__buffer **out) {
  fg__buffer *b = calloc(1, sizeof *b);
  size_t rounded = (bytes + 63) & ~(size_t)63, skew = alloc_skew(bytes);
  void *mem = b && rounded <= SIZE_MAX - 64 - skew
                  ? aligned_alloc(64, (rounded ? rounded : 64) + skew) : NULL;
  if (!mem) {
    free(b);
    return fg__be_fail(be, FG_ENOMEM, "cannot allocate a buffer of %zu "
                       "bytes", bytes);
  }
  b->mem = mem;
  b->p = (char *)mem + skew;
  b->bytes = bytes;
  b->owned = 1;
  *out = b;
  return FG_OK;
}

static fg_status cpu_wrap(fg__backend *be, void *host, size_t bytes,
                          fg__buffer **out) {
  fg__buffer *b = calloc(1, sizeof *b);
  if (!b)
    return fg__be_fail(be, FG_ENOMEM, "out of memory");
  b->p = host;
  b->bytes = bytes;
  *out = b;
  return FG_OK;
}

static void cpu_buffer_free(fg__backend *be, fg__buffer *b) {
  if (!b)
    return;
  if (b->owned)
    free(b->mem);
  free(b);
}

static fg_status cpu_upload(fg__backend *be, fg__buffer *dst, const void *src,
                            size_t bytes) {
  memcpy(dst->p, src, bytes);
  return FG_OK;
}

static void launch_done(void *arg) {
  launch *l = arg;
  fg__done_fn done = l->done;
  void *done_arg = l->done_arg;
  free(l);
  done(done_arg, FG_OK, NULL);
}


static fg_status cpu_launch(fg__backend *be, fg__kbin *k,
                            const fg__launch *d, const fg__async *a) {
  cpu_backend *cb = (cpu_backend *)be;
  if (d->nbuf > 128)
    return fg__be_fail(be, FG_ENOTSUP, "kernel with %d buffers (the CPU "
                       "backend takes at most 128)", d->nbuf);
  int64_t ntiles, work;
  launch *l = fgc_launch_new(cb, k, d, &ntiles, &work);
  if (!l)
    return fg__be_fail(be, FG_ENOMEM, "kernel launch: out of memory");
  l->done = a->done;
  l->done_arg = a->arg;
  be->stats->kernel_launches++;
  if (a->ev)
    *a->ev = NULL;
  if (ntiles == 1 && work < SMALL_WORK && !d->polls) {
    /* small work runs on the calling thread and reports before
     * returning: waking a worker would cost more than the kernel (one
     * that may loop until stopped goes to a worker: the calling thread
     * runs the loop that stops it) */
    fgc_run_tile(l, 0);
    launch_done(l);
    return FG_OK;
  }
  if (fgp_submit(cb->pool, ntiles, fgc_run_tile, l, launch_done, l) != 0) {
    free(l);
    return fg__be_fail(be, FG_ENOMEM, "kernel launch: out of memory");
  }
  return FG_OK;
}

/* Host memory is device memory here: copies finish before they return. */
static fg_status cpu_upload_async(fg__backend *be, fg__buffer *dst,
                                  const void *src, size_t bytes,
                                  const fg__async *a) {
  memcpy(dst->p, src, bytes);
  if (a->ev)
    *a->ev = NULL;
  a->done(a->arg, FG_OK, NULL);
  return FG_OK;
}

static fg_status cpu_download_async(fg__backend *be, fg__buffer *src,
                                    void *dst, size_t bytes,
                                    const fg__async *a) {
  memcpy(dst, src->p, bytes);
  if (a->ev)
    *a->ev = NULL;
  a->done(a->arg, FG_OK, NULL);
  return FG_OK;
}

static void cpu_event_release(fg__backend *be, fg__event *ev) {}

static void cpu_destroy(fg__backend *be) {
  cpu_backend *cb = (cpu_backend *)be;
  fgp_free(cb->pool);
  fgtc_cache_close(&cb->cache);
  free(cb->clang);
  free(cb);
}

static const fg__backend_i cpu_interface = {
  .name = "cpu",
  .dialect = FGK_DIALECT_C,
  .build = cpu_build,
  .kernel_free = cpu_kernel_free,
  .alloc = cpu_alloc,
  .wrap = cpu_wrap,
  .buffer_free = cpu_buffer_free,
  .upload = cpu_upload,
  .launch = cpu_launch,
  .launch_band = fgc_launch_band,
  .upload_async = cpu_upload_async,
  .download_async = cpu_download_async,
  .event_release = cpu_event_release,
  .destroy = cpu_destroy,
};

fg_status fg__cpu_backend_new(const fg__config *cfg, fg__backend **out,
                              char *err, size_t errlen) {
  const char *cache_dir = cfg->cache_dir;
  *out = NULL;
  cpu_backend *cb = calloc(1, sizeof *cb);
  if (!cb) {
    snprintf(err, errlen, "CPU backend: out of memory");
    return FG_ENOMEM;
  }
  /* FG_CPU_MARCH picks the target (e.g. x86-64-v3 for running under
   * valgrind, which lacks AVX-512); native by default. */
  const char *march = cfg->cpu_march;
  snprintf(cb->march, sizeof cb->march, "-march=%s",
           march && *march ? march : "native");
  const char *clang = cfg->clang;
  cb->clang = strdup(clang && *clang ? clang : FG_CLANG_PATH);
  cb->cache.dirfd = -1;
  if (!cb->clang) {
    snprintf(err, errlen, "CPU backend: out of memory");
    cpu_destroy(&cb->base);
    return FG_ENOMEM;
  }
  find_opt(cb->clang, cb->opt, sizeof cb->opt);
  char cerr[1024];
  if (fgtc_cache_open(&cb->cache, cache_dir, "cpu", cerr, sizeof cerr) !=
      FG_OK) {
    snprintf(err, errlen, "CPU backend: %s", cerr);
    cpu_destroy(&cb->base);
    return FG_EIO;
  }
  /* The compiler's identity is part of every cache key. */
  char log[4700];
  snprintf(log, sizeof log, "%s/version.%d.log", cb->cache.path,
           (int)getpid());
  char *argv[] = {cb->clang, "--version", NULL};
  fgtc_spawn_opts o = {.out_path = log, .err_path = log};
  fgtc_exit x;
  bool ok = fgtc_spawn(argv, &o, &x);
  size_t vlen;
  char *version = fgu_read_file(log, 1 << 16, &vlen);
  unlink(log);
  if (!ok || !version || !*version) {
    char why[512];
    snprintf(err, errlen, "CPU backend: cannot run the C compiler '%s' "
             "--version (%s; output to %s)%s", cb->clang,
             run_failure(&x, !version || !*version, cb->cache.path, why,
                         sizeof why), log,
             x.end == FGTC_NOT_RUN && (x.err == ENOENT || x.err == EACCES ||
                                       x.err == ENOEXEC)
                 ? ": install clang, or set FG_CLANG to a clang binary"
                 : "");
    free(version);
    cpu_destroy(&cb->base);
    return FG_ENODEV;
  }
  fgu_sha256 h;
  fgu_sha256_init(&h);
  fgu_sha256_update(&h, version, strlen(version));
  cpu_identity(&h);
  fgu_sha256_update(&h, PACKAGE_VERSION, strlen(PACKAGE_VERSION));
  char hex[65];
  fgu_sha256_hex(&h, hex);
  snprintf(cb->key_prefix, sizeof cb->key_prefix, "fieldgraph-cpu-%s", hex);
  char *nl = strchr(version, '\n');
  if (nl)
    *nl = 0;
  int threads = cfg->threads > 0 ? cfg->threads : fgu_cpu_count();
  cb->pool = fgp_new(threads);
  if (!cb->pool) {
    free(version);
    snprintf(err, errlen, "CPU backend: cannot start %d threads", threads);
    cpu_destroy(&cb->base);
    return FG_ENOMEM;
  }
  snprintf(cb->base.device, sizeof cb->base.device,
           "CPU, %d threads, kernels by %s", fgp_threads(cb->pool), version);
  free(version);
  cb->base.i = &cpu_interface;
  cb->base.builds_concurrently = true;  /* one clang process per build */
  /* grouped kernels run a group's threads in a loop: any group size */
  cb->base.caps = (fg__caps){.fp64 = true, .int64_atomics = true,
                             .max_group_size = (size_t)1 << 20,
                             .max_buffers = FG_MAX_KERNEL_BUFFERS, .local_mem = LOCAL_MEM,
                             .f32_div_rounded = true, .row_windows = true};
  *out = &cb->base;
  return FG_OK;
}
