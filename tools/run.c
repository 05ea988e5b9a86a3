/* tools/run.c - `fieldgraph run PIPELINE [-o DIR] INPUT...`: the batch.
 *
 * The command parses the pipeline and lists the inputs, then hands the
 * batch to the supervisor (supervisor.c), which runs the inputs in --jobs
 * worker processes (worker.c) and reports them.  What a worker does with
 * one input is here:
 *   decode (libuv worker thread) -> compile, once per set of input sizes
 *   (loop thread; the programs stay cached in the worker) -> the graph's
 *   run (fg_program_start, kernels on the backend's threads) -> encode,
 *   atomic write and hash (worker thread),
 * and the outcome goes back to the supervisor as an fgt_result.  A
 * failing input is reported by name and the others go on; the exit
 * status is 1 when any failed, 2 for usage or pipeline errors.
 */
#include "tools/batch.h"
#include "tools/fgt.h"
#include "tools/inputs.h"
#include "tools/outputs.h"
#include "util/fs.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

typedef struct prog_entry {
  fgt_shape_key key;
  fgt_built built;
  fg_program *prog;
  fg_status st;          /* the build's or compile's failure */
  char *errmsg;
} prog_entry;

typedef struct batch batch;

/* One input on its way through a worker. */
typedef struct job {
  batch *b;
  long index;
  const fgt_item *item;
  uv_work_t work;
  fg_image in[FGT_MAX_IO];
  int n_in;
  prog_entry *pe;
  fg_image out[FGT_MAX_IO];      /* saves */
  double report[FGT_MAX_IO][FGT_MAX_REPORT];  /* reports, as doubles */
  unsigned char *red_buf[FGT_MAX_IO];
  char out_path[FGT_MAX_IO][FGT_PATH_MAX];
  char out_hash[FGT_MAX_IO][65];
  fg_run *run;                   /* the graph's run while it is in flight */
  int finished;
  fg_status st;
  const char *err_class;
  char err[1024];
  char warn[1024];               /* the first save's warning, or "" */
  double t_decode, t_compute, t_encode;
} job;

struct batch {
  uv_loop_t loop;
  fg_context *ctx;
  fg_compile_options copt;
  const fgt_pipeline *p;
  fgt_scripts scripts;
  const char *outdir;
  const char *backend, *device;
  fgt_inputs inputs;
  const char *in_tmpls[FGT_MAX_IO];
  int n_in_tmpls;
  fgt_built proto;            /* built once up front: the save templates */
  prog_entry *progs;
  int n_progs, cap_progs;
  int hash;
  int no_autorotate;             /* --no-autorotate */
  const char *space;             /* the working space, input(profile=) */
  job *cur;                   /* the input under way in this worker */
  job *paths_job;             /* the supervisor's, for output paths */
  int interrupted;            /* SIGINT/SIGTERM: its kernel is cancelled */
  uv_signal_t sigint, sigterm;
};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the steps of one job ----------------------------------------------- */

static void job_fail(job *j, fg_status st, const char *cls, const char *fmt,
                     ...) __attribute__((format(printf, 4, 5)));
static void job_fail(job *j, fg_status st, const char *cls, const char *fmt,
                     ...) {
  if (j->st != FG_OK)
    return;
  j->st = st;
  j->err_class = cls;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(j->err, sizeof j->err, fmt, ap);
  va_end(ap);
}

static void job_free(job *j) {
  for (int i = 0; i < FGT_MAX_IO; i++) {
    fg_image_free(&j->in[i]);
    fg_image_free(&j->out[i]);
    free(j->red_buf[i]);
  }
  free(j);
}

/* The job is over (well or not): the worker reports it. */
static void job_finish(job *j) {
  j->finished = 1;
}

/* The path of extra input i of j (a template next to the input). */
static int extra_path(batch *b, job *j, int i, char *out, size_t size) {
  char name[4096], err[512];
  if (fgt_expand(name, sizeof name, b->in_tmpls[i], j->item->path,
                 j->item->rel, j->item->index, err, sizeof err)) {
    job_fail(j, FG_EINVAL, "input", "%s", err);
    return -1;
  }
  const char *slash = strrchr(j->item->path, '/');
  int n = slash && name[0] != '/'
              ? snprintf(out, size, "%.*s/%s", (int)(slash - j->item->path),
                         j->item->path, name)
              : snprintf(out, size, "%s", name);
  if (n < 0 || (size_t)n >= size) {
    job_fail(j, FG_EINVAL, "input", "%s: the name is too long", name);
    return -1;
  }
  return 0;
}

/* Worker thread: read the input and the files its templates name. */
static void decode_work(uv_work_t *w) {
  job *j = w->data;
  batch *b = j->b;
  double t = now();
  if (j->item->unreadable_dir) {
    job_fail(j, FG_EIO, "read", "cannot list the directory (permission "
             "denied or removed)");
    return;
  }
  for (int i = 0; i < b->n_in_tmpls && j->st == FG_OK; i++) {
    char path[4096], err[1024];
    if (i == 0)
      snprintf(path, sizeof path, "%s", j->item->path);
    else if (extra_path(b, j, i, path, sizeof path))
      break;
    fg_image_load_options lo = FG_IMAGE_LOAD_OPTIONS_INIT;
    lo.no_autorotate = b->no_autorotate;
    if (b->space)
      snprintf(lo.profile, sizeof lo.profile, "%s", b->space);
    fg_status st = fg_image_load(path, &j->in[i], &lo, err, sizeof err);
    if (st != FG_OK) {
      /* the message starts with the path; the report names the input */
      const char *msg = err;
      size_t pl = strlen(path);
      if (i == 0 && !strncmp(err, path, pl) && err[pl] == ':')
        msg = err + pl + 2;
      job_fail(j, st, "read", "%s", msg);
    }
    j->n_in = i + 1;
  }
  j->t_decode = now() - t;
}

static void encode_work(uv_work_t *w);
static void after_encode(uv_work_t *w, int status);

/* Loop thread, after a run. */
static void on_run(fg_run *run, fg_status st, void *user) {
  job *j = user;
  j->t_compute = now() - j->t_compute;
  fg_run_free(j->run);
  j->run = NULL;
  if (st == FG_ECANCELED && j->b->interrupted) {
    job_fail(j, st, "interrupted", "stopped by %s (its kernels "
             "cancelled)", j->b->interrupted == SIGINT ? "SIGINT" :
             "SIGTERM");
    job_finish(j);
    return;
  }
  if (st != FG_OK) {
    job_fail(j, st, "run", "%s", fg_run_errmsg(run));
    job_finish(j);
    return;
  }
  const fgt_built *bt = &j->pe->built;
  for (int i = 0; i < bt->n_reports; i++) {
    const unsigned char *p = j->red_buf[i];
    size_t es = fg_elem_size(bt->reports[i].elem);
    for (int k = 0; k < bt->reports[i].n; k++) {
      const void *q = p + es * (size_t)k;
      double v = 0;
      switch (bt->reports[i].elem) {
      case FG_F32: v = *(const float *)q; break;
      case FG_F64: v = *(const double *)q; break;
      case FG_I8: v = *(const int8_t *)q; break;
      case FG_U8: v = *(const uint8_t *)q; break;
      case FG_I16: v = *(const int16_t *)q; break;
      case FG_U16: v = *(const uint16_t *)q; break;
      case FG_I32: v = *(const int32_t *)q; break;
      case FG_U32: v = *(const uint32_t *)q; break;
      case FG_I64: v = (double)*(const int64_t *)q; break;
      case FG_U64: v = (double)*(const uint64_t *)q; break;
      default: break;
      }
      j->report[i][k] = v;
    }
  }
  if (bt->n_saves == 0) {
    job_finish(j);
    return;
  }
  j->work.data = j;
  uv_queue_work(&j->b->loop, &j->work, encode_work, after_encode);
}

/* The program for j's input sizes: built and compiled on first use. */
static prog_entry *program_for(batch *b, job *j) {
  fgt_shape_key key = {.n = j->n_in};
  for (int i = 0; i < j->n_in; i++) {
    key.width[i] = j->in[i].width;
    key.height[i] = j->in[i].height;
    key.channels[i] = j->in[i].channels;
    key.type[i] = (int)j->in[i].type;
  }
  for (int i = 0; i < b->n_progs; i++)
    if (memcmp(&b->progs[i].key, &key, sizeof key) == 0)
      return &b->progs[i];
  if (b->n_progs == b->cap_progs) {
    int cap = b->cap_progs ? 2 * b->cap_progs : 16;
    prog_entry *v = realloc(b->progs, sizeof *v * (size_t)cap);
    if (!v)
      return NULL;
    b->progs = v;
    b->cap_progs = cap;
  }
  prog_entry *pe = &b->progs[b->n_progs++];
  memset(pe, 0, sizeof *pe);
  pe->key = key;
  char err[4096];
  pe->st = fgt_build(b->p, &b->scripts, &key, &pe->built, err, sizeof err);
  if (pe->st == FG_OK) {
    pe->st = fg_compile(b->ctx, pe->built.g, &b->copt, &pe->prog);
    if (pe->st != FG_OK)
      snprintf(err, sizeof err, "%s", fg_context_errmsg(b->ctx));
  }
  if (pe->st != FG_OK)
    pe->errmsg = strdup(err);
  return pe;
}

/* Loop thread, after decoding: compile if needed, start the run. */
static void after_decode(uv_work_t *w, int status) {
  job *j = w->data;
  batch *b = j->b;
  (void)status;
  if (j->st == FG_OK && b->interrupted)
    job_fail(j, FG_ECANCELED, "interrupted", "stopped by %s before it "
             "ran", b->interrupted == SIGINT ? "SIGINT" : "SIGTERM");
  if (j->st != FG_OK) {
    job_finish(j);
    return;
  }
  prog_entry *pe = program_for(b, j);
  if (!pe) {
    job_fail(j, FG_ENOMEM, "compile", "out of memory");
    job_finish(j);
    return;
  }
  if (pe->st != FG_OK) {
    job_fail(j, pe->st, pe->built.g ? "compile" : "pipeline", "%dx%d, %d "
             "channels: %s", j->in[0].width, j->in[0].height,
             j->in[0].channels, pe->errmsg ? pe->errmsg : "failed");
    job_finish(j);
    return;
  }
  j->pe = pe;
  const fgt_built *bt = &pe->built;
  int n_out = fg_program_output_count(pe->prog);
  void *outs[2 * FGT_MAX_IO] = {0};
  for (int i = 0; i < bt->n_saves; i++) {
    fg_type t = fg_program_output_type(pe->prog, bt->saves[i].output);
    fg_elem e = bt->saves[i].elem;
    if (fg_image_alloc_type(&j->out[i], (int)t.field.dim[1],
                            (int)t.field.dim[0], bt->saves[i].channels,
                            e == FG_U16 ? FG_IMAGE_U16
                            : e == FG_F32 ? FG_IMAGE_F32 : FG_IMAGE_U8)
        != FG_OK) {
      job_fail(j, FG_ENOMEM, "run", "out of memory for output %d", i);
      job_finish(j);
      return;
    }
    /* the input's EXIF, XMP and IPTC go on to every output (save's
     * [strip] drops them) */
    if (fg_image_copy_meta(&j->out[i], &j->in[0]) != FG_OK) {
      job_fail(j, FG_ENOMEM, "run", "out of memory for output %d", i);
      job_finish(j);
      return;
    }
    outs[bt->saves[i].output] = j->out[i].data;
  }
  for (int i = 0; i < bt->n_reports; i++) {
    fg_type t = fg_program_output_type(pe->prog, bt->reports[i].output);
    j->red_buf[i] = calloc(1, fg_type_bytes(t) + 8);
    if (!j->red_buf[i]) {
      job_fail(j, FG_ENOMEM, "run", "out of memory");
      job_finish(j);
      return;
    }
    outs[bt->reports[i].output] = j->red_buf[i];
  }
  const void *ins[FGT_MAX_IO];
  for (int i = 0; i < j->n_in; i++)
    ins[i] = j->in[i].data;
  j->t_compute = now();
  if (fg_program_start(pe->prog, j->n_in, ins, n_out, outs, on_run, j,
                       &j->run) != FG_OK) {
    job_fail(j, FG_EBACKEND, "run", "%s", fg_context_errmsg(b->ctx));
    job_finish(j);
  }
}

/* fgt_proto_key for path, read in a short-lived child process: the image
 * library (libvips starts threads) is initialised only in processes that
 * never fork, so this one stays fit to fork the workers.  The default key
 * when the child cannot report.  Returns 1 in the child, which has sent
 * the key and should free what it holds and exit; 0 here. */
static int proto_key_forked(fgt_shape_key *key, int n, const char *path,
                            int no_autorotate) {
  fgt_proto_key(key, n, NULL);
  int fds[2];
  if (!path || pipe(fds) != 0)
    return 0;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return 0;
  }
  if (pid == 0) {
    close(fds[0]);
    fgt_shape_key k;
    fgt_proto_key(&k, n, NULL);
    fg_image img;
    char err[256];
    fg_image_load_options lo = FG_IMAGE_LOAD_OPTIONS_INIT;
    lo.no_autorotate = no_autorotate;
    if (fg_image_load(path, &img, &lo, err, sizeof err) == FG_OK) {
      for (int i = 0; i < n; i++) {
        k.width[i] = img.width;
        k.height[i] = img.height;
        k.channels[i] = img.channels;
        k.type[i] = (int)img.type;
      }
      fg_image_free(&img);
    }
    if (write(fds[1], &k, sizeof k) != (ssize_t)sizeof k)
      k.n = -1; /* the parent sees a short read and keeps the default */
    close(fds[1]);
    return 1;
  }
  close(fds[1]);
  fgt_shape_key k;
  size_t got = 0;
  while (got < sizeof k) {
    ssize_t r = read(fds[0], (char *)&k + got, sizeof k - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  close(fds[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got == sizeof k)
    *key = k;
  return 0;
}

/* The name an output is encoded to before it replaces path: path with
 * ".tmp-<n>" and path's extension appended (the encoder picks the format
 * by extension; fgt_remove_stale_temporaries matches the prefix). */
static int pending_name(char *buf, size_t size, const char *path, int n) {
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  const char *ext = dot && (!slash || dot > slash) ? dot : "";
  int k = snprintf(buf, size, "%s.tmp-%d%s", path, n, ext);
  return k < 0 || (size_t)k >= size ? -1 : 0;
}

/* Worker thread: encode every output of the input beside its final name,
 * then (all encoded) rename each into place and hash it: a write that
 * fails (a full disk) leaves every earlier output of the input as it was,
 * never one new file of a pair beside an old one. */
static void encode_work(uv_work_t *w) {
  job *j = w->data;
  batch *b = j->b;
  const fgt_built *bt = &j->pe->built;
  double t = now();
  char (*pending)[FGT_PATH_MAX + 32] = malloc(sizeof *pending * FGT_MAX_IO);
  int written = 0;
  if (!pending)
    job_fail(j, FG_ENOMEM, "write", "out of memory");
  for (int i = 0; i < bt->n_saves && j->st == FG_OK; i++) {
    char err[1024];
    const char *path = j->out_path[i];
    /* out_path is "<outdir>/<name>" (output_paths) */
    if (fgt_output_dir_make(b->outdir, path + strlen(b->outdir) + 1, err,
                            sizeof err)) {
      job_fail(j, FG_EIO, "write", "%s", err);
      break;
    }
    fgt_remove_stale_temporaries(path);
    if (pending_name(pending[i], sizeof pending[i], path, (int)j->index)) {
      job_fail(j, FG_EINVAL, "write", "%s: the output name is too long", path);
      break;
    }
    fg_status st = fg_image_save(pending[i], &j->out[i], &bt->saves[i].opt,
                                 err, sizeof err);
    if (st != FG_OK) {
      job_fail(j, st, "write", "%s: not written (the input's outputs are "
               "left as they were): %s", path, err);
      break;
    }
    written = i + 1;
    if (err[0] && !j->warn[0]) {
      /* named by the output, not its temporary name */
      size_t pl = strlen(pending[i]);
      int named = !strncmp(err, pending[i], pl);
      snprintf(j->warn, sizeof j->warn, "%.500s%s%.500s", path,
               named ? "" : ": ", named ? err + pl : err);
    }
  }
  for (int i = 0; i < written; i++) {
    const char *path = j->out_path[i];
    if (j->st != FG_OK) {
      unlink(pending[i]);
      continue;
    }
    if (rename(pending[i], path) != 0) {
      job_fail(j, FG_EIO, "write", "%s: cannot replace it: %s", path,
               strerror(errno));
      unlink(pending[i]);
      continue;
    }
    if (b->hash) {
      size_t n;
      void *data = fgu_read_file(path, (size_t)1 << 31, &n);
      if (data) {
        fgu_sha256 h;
        fgu_sha256_init(&h);
        fgu_sha256_update(&h, data, n);
        fgu_sha256_hex(&h, j->out_hash[i]);
        free(data);
      }
    }
  }
  free(pending);
  j->t_encode = now() - t;
}

static void after_encode(uv_work_t *w, int status) {
  (void)status;
  job_finish(w->data);
}

/* Output paths of item index i (from the templates of built bt). */
static int output_paths(batch *b, const fgt_built *bt, job *j) {
  for (int i = 0; i < bt->n_saves; i++) {
    char name[4096], err[1024];
    if (fgt_output_name(name, sizeof name, bt->saves[i].tmpl, j->item->path,
                        j->item->rel, j->item->index, err, sizeof err)) {
      job_fail(j, FG_EINVAL, "input", "%s", err);
      return -1;
    }
    int n = snprintf(j->out_path[i], sizeof j->out_path[i], "%s/%s",
                     b->outdir, name);
    if (n < 0 || (size_t)n >= sizeof j->out_path[i]) {
      job_fail(j, FG_EINVAL, "pipeline", "%s: the output name is too long",
               name);
      return -1;
    }
  }
  return 0;
}

/* ---- the batch's side of the supervisor (batch.h) ----------------------- */

static const char *op_id(void *user, long index) {
  batch *b = user;
  return b->inputs.items[index].path;
}

/* In the supervisor: item index's output paths. */
static int op_paths(void *user, long index, char (*out)[FGT_PATH_MAX],
                    char *err, size_t errlen) {
  batch *b = user;
  if (!b->paths_job && !(b->paths_job = calloc(1, sizeof *b->paths_job))) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  job *j = b->paths_job;     /* one for every input: only its paths */
  j->b = b;
  j->index = index;
  j->item = &b->inputs.items[index];
  j->st = FG_OK;
  int rc = output_paths(b, &b->proto, j);
  if (rc)
    snprintf(err, errlen, "%s", j->err);
  else
    for (int i = 0; i < b->proto.n_saves; i++)
      memcpy(out[i], j->out_path[i], sizeof out[i]);
  return rc;
}

/* SIGINT or SIGTERM in a worker: the kernel under way is cancelled (its
 * input fails with class interrupted), then the worker ends. */
static void on_signal(uv_signal_t *h, int signum) {
  batch *b = h->data;
  b->interrupted = signum;
  if (b->cur)
    fg_run_cancel(b->cur->run);
}

/* In a worker: its loop, context and signal handling. */
static int op_open(void *user, int threads, char *device, size_t devlen) {
  batch *b = user;
  /* libuv's pool decodes and encodes: read once, at the pool's first use */
  char num[24];
  snprintf(num, sizeof num, "%d", threads);
  setenv("UV_THREADPOOL_SIZE", num, 0);
  if (uv_loop_init(&b->loop))
    return 1;
  int rc = fgt_context_for(b->backend, b->device, threads, &b->loop, 2,
                           &b->ctx);
  if (rc) {
    uv_loop_close(&b->loop);
    return rc;
  }
  snprintf(device, devlen, "%s", fg_context_device(b->ctx));
  b->sigint.data = b->sigterm.data = b;
  uv_signal_init(&b->loop, &b->sigint);
  uv_signal_init(&b->loop, &b->sigterm);
  uv_signal_start(&b->sigint, on_signal, SIGINT);
  uv_signal_start(&b->sigterm, on_signal, SIGTERM);
  /* they do not keep the loop alive: a job's work does */
  uv_unref((uv_handle_t *)&b->sigint);
  uv_unref((uv_handle_t *)&b->sigterm);
  return 0;
}

/* In a worker: runs item index to its end and fills *res. */
static void op_job(void *user, long index, char (*paths)[FGT_PATH_MAX],
                   fgt_result *res) {
  batch *b = user;
  job *j = calloc(1, sizeof *j);
  res->index = index;
  if (!j) {
    res->status = FG_ENOMEM;
    snprintf(res->err_class, sizeof res->err_class, "run");
    snprintf(res->err, sizeof res->err, "out of memory");
    return;
  }
  j->b = b;
  j->index = index;
  j->item = &b->inputs.items[index];
  for (int i = 0; i < b->proto.n_saves; i++)
    memcpy(j->out_path[i], paths[i], sizeof j->out_path[i]);
  b->cur = j;
  j->work.data = j;
  uv_queue_work(&b->loop, &j->work, decode_work, after_decode);
  while (!j->finished)
    if (!uv_run(&b->loop, UV_RUN_ONCE) && !j->finished) {
      job_fail(j, FG_ESTATE, "run", "internal: the loop ran dry before the "
               "input ended");
      break;
    }
  b->cur = NULL;
  res->status = j->st;
  if (j->st == FG_OK)
    snprintf(res->warn, sizeof res->warn, "%s", j->warn);
  if (j->st != FG_OK) {
    snprintf(res->err_class, sizeof res->err_class, "%s", j->err_class);
    snprintf(res->err, sizeof res->err, "%s", j->err);
  }
  res->width = j->in[0].width;
  res->height = j->in[0].height;
  res->ran = j->pe != NULL;
  if (j->pe) {
    const fgt_built *bt = &j->pe->built;
    res->n_reports = bt->n_reports;
    for (int i = 0; i < bt->n_reports; i++) {
      snprintf(res->report_name[i], sizeof res->report_name[i], "%s",
               bt->reports[i].name);
      res->report_n[i] = bt->reports[i].n;
      memcpy(res->report[i], j->report[i], sizeof res->report[i]);
    }
  }
  memcpy(res->hash, j->out_hash, sizeof res->hash);
  res->t_decode = j->t_decode;
  res->t_compute = j->t_compute;
  res->t_encode = j->t_encode;
  job_free(j);
}

static int op_interrupted(void *user) {
  return ((batch *)user)->interrupted;
}

/* In a worker: frees its programs, context and loop. */
static void op_close(void *user) {
  batch *b = user;
  uv_close((uv_handle_t *)&b->sigint, NULL);
  uv_close((uv_handle_t *)&b->sigterm, NULL);
  for (int i = 0; i < b->n_progs; i++) {
    fg_program_free(b->progs[i].prog);
    fgt_built_free(&b->progs[i].built);
    free(b->progs[i].errmsg);
  }
  free(b->progs);
  b->progs = NULL;
  b->n_progs = 0;
  fg_context_free(b->ctx);
  b->ctx = NULL;
  uv_run(&b->loop, UV_RUN_DEFAULT);
  uv_loop_close(&b->loop);
}

/* ---- the command -------------------------------------------------------- */

static const char run_usage[] =
  "usage: fieldgraph run PIPELINE [options] INPUT...\n"
  "Runs the pipeline file over every input image.  INPUT is a file, a\n"
  "directory (searched recursively), @LIST (one path a line) or - (paths\n"
  "on stdin).\n"
  "  -o, --output DIR    where outputs go (default: .); the pipeline's\n"
  "                      save() templates name them inside DIR\n"
  "  -j, --jobs N        worker processes, each running one input at a time\n"
  "                      (default: the number of cores); a crash in one\n"
  "                      fails its input alone (class crash)\n"
  "      --timeout SECONDS  an input not done by then fails (class\n"
  "                      timeout); its worker is stopped (default: none)\n"
  "      --glob PATTERN  file names to take from directories (default:\n"
  "                      the image formats this build reads: .png .jpg\n"
  "                      .jpeg .ppm .pgm .pnm, with libvips also .tif .tiff\n"
  "                      .webp .gif .heic .heif .avif .jxl)\n"
  "      --no-autorotate keep the pixels as stored (default: turned as the\n"
  "                      EXIF orientation says, as cameras mean them)\n"
  "      --follow-symlinks  follow links to folders (each folder is listed\n"
  "                      once); FIFOs and devices are never read\n"
  "      --skip-existing skip inputs whose outputs all exist (outputs are\n"
  "                      written atomically: existing means complete)\n"
  "      --shard K/N     process shard K of N (1 <= K <= N), chosen by a hash\n"
  "                      of each input's path; default from\n"
  "                      SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT or\n"
  "                      JOB_COMPLETION_INDEX (with --shard-count N)\n"
  "      --json          one JSON object per input on stdout (JSON Lines)\n"
  "  -q, --quiet         no progress bar\n"
  "  -v, --verbose       a line per input with its outputs\n"
  "      --backend B     cpu or opencl (default: $FG_BACKEND, else cpu)\n"
  "      --device D      OpenCL device: gpu, cpu, an index or a name part\n"
  "      --fusion MODE   on, off, or check (run fused and unfused, compare)\n"
  "      --dump-kernels DIR  write every generated kernel's source to DIR\n"
  "  -h, --help          this text\n"
  "Exit status: 0 all inputs done, 1 some failed, 2 usage or pipeline "
  "error,\n130 / 143 interrupted by SIGINT / SIGTERM.\n";

/* "K/N" into *k, *n; -1 when malformed. */
static int parse_shard(const char *s, int *k, int *n) {
  char *e;
  long a = strtol(s, &e, 10);
  if (*e != '/')
    return -1;
  long c = strtol(e + 1, &e, 10);
  if (*e || c < 1 || a < 1 || a > c || c > 1000000)
    return -1;
  *k = (int)a;
  *n = (int)c;
  return 0;
}

/* fgt_context_for and fgt_parse_fusion: see fgt.h. */
int fgt_context_for(const char *backend, const char *device, int threads,
                    uv_loop_t *loop, int max_runs, fg_context **ctx) {
  fg_context_options o = {.threads = threads, .device = device,
                          .loop = loop, .max_runs = max_runs};
  if (backend && !strcmp(backend, "cpu"))
    o.backend = FG_BACKEND_CPU;
  else if (backend && !strcmp(backend, "opencl"))
    o.backend = FG_BACKEND_OPENCL;
  else if (backend) {
    fprintf(stderr, "fieldgraph: --backend: expected cpu or opencl, found "
            "'%s'\n", backend);
    return 2;
  }
  char err[1024];
  if (fg_context_new(&o, ctx, err, sizeof err) != FG_OK) {
    fprintf(stderr, "fieldgraph: %s\n", err);
    return 1;
  }
  return 0;
}

int fgt_parse_fusion(const char *s, fg_fusion *out) {
  if (!s || !strcmp(s, "on"))
    *out = s ? FG_FUSION_ON : FG_FUSION_DEFAULT;
  else if (!strcmp(s, "off"))
    *out = FG_FUSION_OFF;
  else if (!strcmp(s, "check"))
    *out = FG_FUSION_CHECK;
  else {
    fprintf(stderr, "fieldgraph: --fusion: expected on, off or check, found "
            "'%s'\n", s);
    return -1;
  }
  return 0;
}

/* The integer in environment variable var into *out: 0 when var is
 * unset, 1 when it holds a number from lo to hi, -1 (after saying so)
 * when it holds anything else. */
static int env_long(const char *var, long lo, long hi, long *out) {
  const char *s = getenv(var);
  if (!s)
    return 0;
  char *e;
  errno = 0;
  long v = strtol(s, &e, 10);
  if (!*s || *e || errno || v < lo || v > hi) {
    fprintf(stderr, "fieldgraph run: %s: expected an integer from %ld to "
            "%ld, found '%s'\n", var, lo, hi, s);
    return -1;
  }
  *out = v;
  return 1;
}

/* The default shard from a batch system's environment, if any (count:
 * --shard-count, 0 when not given).  0, or -1 after saying which
 * variable is malformed. */
static int shard_from_env(int *k, int *n, long count) {
  long id, cnt, min = 0, idx;
  if (getenv("SLURM_ARRAY_TASK_ID") && getenv("SLURM_ARRAY_TASK_COUNT")) {
    if (env_long("SLURM_ARRAY_TASK_COUNT", 1, 1000000, &cnt) < 0 ||
        env_long("SLURM_ARRAY_TASK_ID", 0, 1000000000, &id) < 0 ||
        env_long("SLURM_ARRAY_TASK_MIN", 0, id, &min) < 0)
      return -1;
    *n = (int)cnt;
    *k = (int)(id - min + 1);
    return 0;
  }
  if (count > 0) {
    int got = env_long("JOB_COMPLETION_INDEX", 0, count - 1, &idx);
    if (got < 0)
      return -1;
    if (got) {
      *n = (int)count;
      *k = (int)idx + 1;
    }
  }
  return 0;
}

int fgt_cmd_run(int argc, char **argv) {
  enum { O_GLOB = 256, O_SKIP, O_SHARD, O_JSON, O_BACKEND, O_DEVICE,
         O_FUSION, O_DUMP, O_SHARD_COUNT, O_FOLLOW, O_TIMEOUT,
         O_NO_AUTOROT };
  static const struct option longopts[] = {
    {"output", required_argument, 0, 'o'}, {"jobs", required_argument, 0,
    'j'}, {"glob", required_argument, 0, O_GLOB}, {"skip-existing",
    no_argument, 0, O_SKIP}, {"shard", required_argument, 0, O_SHARD},
    {"shard-count", required_argument, 0, O_SHARD_COUNT},
    {"json", no_argument, 0, O_JSON}, {"quiet", no_argument, 0, 'q'},
    {"verbose", no_argument, 0, 'v'}, {"backend", required_argument, 0,
    O_BACKEND}, {"device", required_argument, 0, O_DEVICE}, {"fusion",
    required_argument, 0, O_FUSION}, {"dump-kernels", required_argument, 0,
    O_DUMP}, {"follow-symlinks", no_argument, 0, O_FOLLOW},
    {"timeout", required_argument, 0, O_TIMEOUT},
    {"no-autorotate", no_argument, 0, O_NO_AUTOROT},
    {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  batch *b = calloc(1, sizeof *b);
  if (!b)
    return 1;
  const char *glob = NULL, *backend = NULL, *device = NULL, *fusion = NULL;
  const char *shard = NULL;
  int jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
  long shard_count = 0;
  fgt_batch_opts o = {0};
  char *end;
  b->outdir = ".";
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:j:qvh", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': b->outdir = optarg; break;
    case 'j':
      jobs = atoi(optarg);
      if (jobs < 1 || jobs > 256) {
        fprintf(stderr, "fieldgraph run: --jobs: expected 1 to 256, found "
                "'%s'\n", optarg);
        free(b);
        return 2;
      }
      break;
    case 'q': o.quiet = 1; break;
    case 'v': o.verbose = 1; break;
    case O_GLOB: glob = optarg; break;
    case O_FOLLOW: b->inputs.follow_symlinks = 1; break;
    case O_SKIP: o.skip_existing = 1; break;
    case O_SHARD: shard = optarg; break;
    case O_SHARD_COUNT: {
      char *e;
      shard_count = strtol(optarg, &e, 10);
      if (*e || e == optarg || shard_count < 1 || shard_count > 1000000) {
        fprintf(stderr, "fieldgraph run: --shard-count: expected 1 to "
                "1000000, found '%s'\n", optarg);
        free(b);
        return 2;
      }
      break;
    }
    case O_JSON: o.json = b->hash = 1; break;
    case O_NO_AUTOROT: b->no_autorotate = 1; break;
    case O_BACKEND: backend = optarg; break;
    case O_DEVICE: device = optarg; break;
    case O_FUSION: fusion = optarg; break;
    case O_DUMP: setenv("FG_DUMP_KERNELS", optarg, 1); break;
    case O_TIMEOUT:
      o.timeout = strtod(optarg, &end);
      if (*end || end == optarg || !(o.timeout > 0 && o.timeout <= 1e7)) {
        fprintf(stderr, "fieldgraph run: --timeout: expected seconds above "
                "0, at most 1e7 (116 days), found '%s'\n", optarg);
        free(b);
        return 2;
      }
      break;
    case 'h': fputs(run_usage, stdout); free(b); return 0;
    default: fputs(run_usage, stderr); free(b); return 2;
    }
  }
  if (argc - optind < 2) {
    fputs(run_usage, stderr);
    free(b);
    return 2;
  }
  int k = 1, n = 1;
  if (!shard && shard_from_env(&k, &n, shard_count)) {
    free(b);
    return 2;
  }
  if (shard && parse_shard(shard, &k, &n)) {
    fprintf(stderr, "fieldgraph run: --shard: expected K/N with 1 <= K <= N, "
            "found '%s'\n", shard);
    free(b);
    return 2;
  }
  if (k < 1 || k > n) {
    fprintf(stderr, "fieldgraph run: shard %d of %d from the environment "
            "(SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1 of "
            "SLURM_ARRAY_TASK_COUNT) is out of range: expected 1 to %d\n",
            k, n, n);
    free(b);
    return 2;
  }
  if (fgt_parse_fusion(fusion, &b->copt.fusion)) {
    free(b);
    return 2;
  }
  char err[4096];
  fgt_pipeline *p = fgt_pipeline_load(argv[optind], err, sizeof err);
  if (!p) {
    fprintf(stderr, "%s\n", err);
    free(b);
    return 2;
  }
  b->p = p;
  int rc = 2;
  if (fgt_pipeline_inputs(p, &b->n_in_tmpls, b->in_tmpls, &b->space,
                          err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    goto out;
  }
  b->inputs.log = stderr;
  for (int i = optind + 1; i < argc; i++)
    if (fgt_inputs_add(&b->inputs, argv[i], glob, err, sizeof err)) {
      fprintf(stderr, "fieldgraph run: %s\n", err);
      goto out;
    }
  /* a first build checks the file before any input runs and gives the
   * output templates: for the first input's size, as that input's own
   * build will be (a size-dependent parameter such as a crop fits the
   * photos, not a stand-in), or check's default size if it is unreadable
   * (then it fails alone, as an input) */
  fgt_shape_key proto;
  if (proto_key_forked(&proto, b->n_in_tmpls,
                       b->inputs.n ? b->inputs.items[0].path : NULL,
                       b->no_autorotate)) {
    rc = 0; /* the probe's child: done */
    goto out;
  }
  if (fgt_build(p, &b->scripts, &proto, &b->proto, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    goto out;
  }
  /* every shard sees the whole list: all refuse the same collisions */
  const char *tmpls[FGT_MAX_IO];
  for (int i = 0; i < b->proto.n_saves; i++)
    tmpls[i] = b->proto.saves[i].tmpl;
  if (fgt_outputs_collide(&b->inputs, tmpls, b->proto.n_saves, err,
                          sizeof err)) {
    fprintf(stderr, "fieldgraph run: %s\n", err);
    goto out;
  }
  if (n > 1)
    fgt_inputs_shard(&b->inputs, k, n);
  int e = fgu_mkdir_p(b->outdir);
  if (e) {
    fprintf(stderr, "fieldgraph run: %s: cannot create: %s\n", b->outdir,
            strerror(e));
    goto out;
  }
  /* the inputs run in worker processes, forked from here: nothing above
   * made a thread, a loop or a context */
  b->backend = backend;
  b->device = device;
  o.jobs = jobs;
  o.sharded = n > 1;
  o.outdir = b->outdir;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  o.threads = cores > jobs ? (int)(cores / jobs) : 1;
  fgt_batch_ops ops = {
    .user = b, .n_inputs = b->inputs.n, .n_saves = b->proto.n_saves,
    .id = op_id, .paths = op_paths, .open = op_open, .job = op_job,
    .interrupted = op_interrupted, .close = op_close};
  int is_worker;
  rc = fgt_supervise(&ops, &o, &is_worker);
out:
  free(b->paths_job);
  fgt_built_free(&b->proto);
  fgt_scripts_free(&b->scripts);
  fgt_inputs_free(&b->inputs);
  fgt_pipeline_free(p);
  free(b);
  return rc;
}
