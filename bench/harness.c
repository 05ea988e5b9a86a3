/* bench/harness.c - timing, threads, checks and tables of the benchmark
 * suite (see bench.h), and W0, the memory-bandwidth probe every program
 * prints first: the other streaming lines are reported against its copy
 * bandwidth. */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bench_cfg bench = {5, 1, 1, 0, 0};

static int env_int(const char *name, int def, int lo) {
  const char *s = getenv(name);
  if (!s || !*s)
    return def;
  int v = atoi(s);
  return v < lo ? lo : v;
}

void bench_init(void) {
  bench.reps = env_int("BENCH_REPS", 5, 1);
  bench.warmup = env_int("BENCH_WARMUP", 1, 0);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  bench.threads = n < 1 ? 1 : n > 64 ? 64 : (int)n;
  bench.threads = env_int("BENCH_THREADS", bench.threads, 1);
  bench.threads = bench.threads > 64 ? 64 : bench.threads;
  const char *clock = getenv("BENCH_CLOCK");
  bench.cpu_clock = clock && !strcmp(clock, "cpu");
}

double bench_now(void) {
  struct timespec ts;
  clock_gettime(bench.cpu_clock ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC,
                &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double bench_median(bench_fn fn, void *ctx, int warmup, int reps) {
  if (warmup < 0)
    warmup = bench.warmup;
  if (reps < 1)
    reps = bench.reps;
  for (int i = 0; i < warmup; i++)
    fn(ctx);
  double *t = malloc((size_t)reps * sizeof *t);
  if (!t)
    abort();
  for (int i = 0; i < reps; i++) {
    double t0 = bench_now();
    fn(ctx);
    t[i] = bench_now() - t0;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp_double);
  double m = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
  free(t);
  return m;
}

/* The C loops' thread pool: bench.threads - 1 workers parked on a
 * condition variable, the caller doing slice 0, as a pool-based runtime
 * would (creating threads per call costs milliseconds on a loaded
 * machine). */
typedef struct pool {
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  unsigned long generation;   /* bumped per bench_parallel call */
  int pending;                /* workers still running this generation */
  bench_range_fn fn;
  void *ctx;
  int64_t n;
  int started;
  pthread_t tid[64];
} pool;

static pool the_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                        PTHREAD_COND_INITIALIZER, 0, 0, NULL, NULL, 0, 0, {0}};

static void run_slice(pool *p, int i) {
  int nt = bench.threads;
  int64_t chunk = (p->n + nt - 1) / nt;
  int64_t a = chunk * i < p->n ? chunk * i : p->n;
  int64_t b = a + chunk < p->n ? a + chunk : p->n;
  p->fn(p->ctx, a, b, i);
}

static void *worker(void *arg) {
  int i = (int)(intptr_t)arg;
  pool *p = &the_pool;
  unsigned long seen = 0;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->generation == seen)
      pthread_cond_wait(&p->go, &p->mu);
    seen = p->generation;
    pthread_mutex_unlock(&p->mu);
    run_slice(p, i);
    pthread_mutex_lock(&p->mu);
    if (--p->pending == 0)
      pthread_cond_signal(&p->done);
  }
  return NULL;
}

void bench_parallel(int64_t n, bench_range_fn fn, void *ctx) {
  pool *p = &the_pool;
  if (!p->started) {
    for (int i = 1; i < bench.threads; i++)
      if (pthread_create(&p->tid[i], NULL, worker, (void *)(intptr_t)i)) {
        fprintf(stderr, "bench: pthread_create failed\n");
        exit(1);
      }
    p->started = 1;
  }
  pthread_mutex_lock(&p->mu);
  p->fn = fn;
  p->ctx = ctx;
  p->n = n;
  p->pending = bench.threads - 1;
  p->generation++;
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  run_slice(p, 0);
  pthread_mutex_lock(&p->mu);
  while (p->pending > 0)
    pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
}

void *bench_alloc(size_t n) {
  void *p = NULL;
  if (posix_memalign(&p, 64, n ? n : 64) != 0 || !p) {
    fprintf(stderr, "bench: out of memory (%zu bytes)\n", n);
    exit(1);
  }
  memset(p, 0, n);
  return p;
}

static double abs_diff(float a, float b) {
  if (isnan(a) || isnan(b))
    return isnan(a) && isnan(b) ? 0 : INFINITY;
  return fabs((double)a - (double)b);
}

double bench_max_abs_err(const float *a, const float *b, size_t n) {
  return bench_max_abs_err_strided(a, 1, b, 1, n, 1);
}

double bench_max_abs_err_strided(const float *a, int sa, const float *b,
                                 int sb, size_t n, int channels) {
  double m = 0;
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < channels; c++) {
      double d = abs_diff(a[i * (size_t)sa + c], b[i * (size_t)sb + c]);
      m = d > m ? d : m;
    }
  return m;
}

/* ---- tables ------------------------------------------------------------- */

void bench_table_init(bench_table *t, const char *title) {
  memset(t, 0, sizeof *t);
  snprintf(t->title, sizeof t->title, "%s", title);
  t->scale = 1e3;
  t->unit = "ms";
}

int bench_row_add(bench_table *t, const char *label, double sec,
                  double bytes, double err) {
  if (t->n == BENCH_MAX_ROWS) {
    fprintf(stderr, "bench: table '%s' is full\n", t->title);
    exit(1);
  }
  bench_row *r = &t->rows[t->n];
  memset(r, 0, sizeof *r);
  snprintf(r->label, sizeof r->label, "%s", label);
  r->sec = sec;
  r->bytes = bytes;
  r->err = err;
  r->unfused = r->c = r->halide = r->opencv = -1;
  return t->n++;
}

/* Prints this row's time over row j's, or a dash. */
static void print_ratio(const bench_table *t, const bench_row *r, int j) {
  if (j < 0 || j >= t->n || isnan(r->sec) || isnan(t->rows[j].sec) ||
      t->rows[j].sec <= 0)
    printf(" %8s", "-");
  else
    printf(" %7.2fx", r->sec / t->rows[j].sec);
}

void bench_table_print(const bench_table *t) {
  printf("\n%s\n", t->title);
  printf("  %-40s %9s %7s %6s %9s %8s %8s %8s %9s\n", "variant", t->unit,
         "GB/s", "/W0cp", "fus/unf", "ours/C", "/Halide", "/OpenCV",
         "max|err|");
  for (int i = 0; i < t->n; i++) {
    const bench_row *r = &t->rows[i];
    printf("  %-40s", r->label);
    if (isnan(r->sec))
      printf(" %9s", "-");
    else
      printf(" %9.*f", r->sec * t->scale < 10 ? 3 : 1, r->sec * t->scale);
    if (r->bytes > 0 && !isnan(r->sec)) {
      double bw = r->bytes / r->sec;
      printf(" %7.1f", bw / 1e9);
      if (bench.w0_copy > 0)
        printf(" %6.2f", bw / bench.w0_copy);
      else
        printf(" %6s", "-");
    } else {
      printf(" %7s %6s", "-", "-");
    }
    print_ratio(t, r, r->unfused);
    print_ratio(t, r, r->c);
    print_ratio(t, r, r->halide);
    print_ratio(t, r, r->opencv);
    if (isnan(r->err))
      printf(" %9s", "-");
    else
      printf(" %9.2g", r->err);
    if (r->note[0])
      printf("  %s", r->note);
    printf("\n");
  }
  fflush(stdout);
  bench_targets_note(t);
}

/* ---- W0 ----------------------------------------------------------------- */

typedef struct w0_job {
  float *a, *b, *c;
  int triad;
} w0_job;

static void w0_slice(void *ctx, int64_t begin, int64_t end, int thread) {
  (void)thread;
  w0_job *j = ctx;
  float *restrict a = j->a, *restrict b = j->b;
  const float *restrict c = j->c;
  if (j->triad)
    for (int64_t i = begin; i < end; i++)
      a[i] = b[i] + 3.0f * c[i];
  else
    memcpy(b + begin, a + begin, (size_t)(end - begin) * sizeof *a);
}

#define W0_N ((int64_t)32 << 20)   /* floats per array: 128 MB */

static void w0_run(void *ctx) { bench_parallel(W0_N, w0_slice, ctx); }

void bench_w0(void) {
  size_t bytes = (size_t)W0_N * sizeof(float);
  w0_job j = {bench_alloc(bytes), bench_alloc(bytes), bench_alloc(bytes), 0};
  for (int64_t i = 0; i < W0_N; i++) {
    j.a[i] = (float)(i & 1023);
    j.c[i] = 1.0f;
  }
  double copy = bench_median(w0_run, &j, 1, bench.reps * 2);
  j.triad = 1;
  double triad = bench_median(w0_run, &j, 1, bench.reps * 2);
  /* checks: b is a copy of the original a, a = b + 3c */
  for (int64_t i = 0; i < W0_N; i += 4093)
    if (j.b[i] != (float)(i & 1023) || j.a[i] != j.b[i] + 3.0f) {
      fprintf(stderr, "bench: W0 computed a wrong result at %lld\n",
              (long long)i);
      exit(1);
    }
  bench.w0_copy = 2.0 * (double)bytes / copy;
  char title[160];
  snprintf(title, sizeof title, "W0 memory bandwidth: %d threads, 3 arrays "
           "of %lld MB floats (bytes read + written, as STREAM counts)",
           bench.threads, (long long)(bytes >> 20));
  bench_table t;
  bench_table_init(&t, title);
  bench_row_add(&t, "copy  b = a", copy, 2.0 * (double)bytes, NAN);
  bench_row_add(&t, "triad a = b + s*c", triad, 3.0 * (double)bytes, NAN);
  bench_table_print(&t);
  free(j.a);
  free(j.b);
  free(j.c);
}

uint32_t bench_hash(const void *p, size_t n) {
  const uint8_t *b = p;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 16777619u;
  return h;
}
