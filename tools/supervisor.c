/* tools/supervisor.c - `fieldgraph run`'s supervisor: forks up to --jobs
 * worker processes (worker.c), hands each one input at a time over a
 * socket and reports what comes back: the JSON lines, the terminal lines,
 * the progress bar and the summary are all written here.  A worker that
 * dies (a kernel writing through a wild pointer) fails its input alone
 * with class crash; one that overruns --timeout is asked to cancel its
 * kernel (SIGTERM), killed a second later if it has not ended, and fails
 * its input with class timeout; each is replaced.  A killed input's
 * pending outputs are removed.  SIGINT/SIGTERM/SIGHUP, and SIGPIPE (the
 * reader of the JSON lines went away, as `| head` does): nothing new
 * starts, the workers cancel their kernels and get 5 s to end before
 * SIGKILL, their pending outputs are removed; a second SIGINT, SIGTERM
 * or SIGHUP kills them at once (SIGPIPE repeats with every write, so it
 * does not count twice).
 *
 * The supervisor itself runs no kernel and has no threads or libuv loop,
 * so forking a new worker is safe at any time; it waits in poll(2), with
 * signals arriving through a self-pipe.
 */
#include "tools/batch.h"
#include "tools/journal.h"
#include "tools/json.h"
#include "tools/outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

enum { GRACE_S = 5 };          /* after SIGINT/SIGTERM, before SIGKILL */
static const double CANCEL_S = 1;  /* a timed-out kernel's time to stop */
enum { CLOSE_S = 60 };         /* an idle worker's time to exit */

typedef enum { W_DEAD, W_STARTING, W_IDLE, W_BUSY } wstate;

/* One input handed out (or about to be). */
typedef struct task {
  long index;
  char (*paths)[FGT_PATH_MAX];
  double t0;                  /* handed out; reset when the worker is up */
} task;

typedef struct worker {
  wstate state;
  pid_t pid;
  int fd;
  task *t;                    /* the input it runs, if any */
  double deadline;            /* --timeout passes; 0: none */
  double kill_at;             /* SIGKILL then; 0: not asked to stop */
  int signalled;              /* the supervisor sent it a signal */
  const char *fate_class;     /* set when the supervisor stopped it */
  char fate[256];
  unsigned char *buf;         /* what came from the socket, unparsed */
  size_t len, cap;
} worker;

typedef struct sup {
  const fgt_batch_ops *ops;
  const fgt_batch_opts *o;
  worker *w;
  int n_w;
  long next;                  /* the next item to hand out */
  int done, failed, skipped;
  int tty, started;
  int interrupted;            /* the signal; nothing new starts */
  int fatal;                  /* a worker could not start: its status */
  int worker_errors;          /* workers that ended badly between inputs */
  double start, grace_at;
  int sigpipe[2];
  struct sigaction old_int, old_term, old_hup, old_pipe;
  char **failures;            /* "PATH (CLASS)" of each failed input */
  int n_failures;
  fgt_journal journal;        /* results by input, for resumed runs */
} sup;

/* The self-pipe's write end for the handler (signal handlers take no
 * argument: this is the one writable file-scope variable of the tool). */
static int sig_fd = -1;

static void on_signal(int signum) {
  int e = errno;
  unsigned char c = (unsigned char)signum;
  if (write(sig_fd, &c, 1) < 0) {
    /* a full pipe already holds a signal to handle */
  }
  errno = e;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "SIGSEGV" for the signals a crash or a kill brings. */
static const char *signame(int s) {
  switch (s) {
  case SIGSEGV: return "SIGSEGV";
  case SIGBUS: return "SIGBUS";
  case SIGILL: return "SIGILL";
  case SIGFPE: return "SIGFPE";
  case SIGABRT: return "SIGABRT";
  case SIGKILL: return "SIGKILL";
  case SIGTERM: return "SIGTERM";
  case SIGINT: return "SIGINT";
  case SIGTRAP: return "SIGTRAP";
  case SIGSYS: return "SIGSYS";
  case SIGPIPE: return "SIGPIPE";
  case SIGXCPU: return "SIGXCPU";
  case SIGXFSZ: return "SIGXFSZ";
  case SIGHUP: return "SIGHUP";
  default: return NULL;
  }
}

static void describe_signal(char *buf, size_t size, const char *what, int s) {
  const char *n = signame(s);
  if (n)
    snprintf(buf, size, "%s %s", what, n);
  else
    snprintf(buf, size, "%s signal %d", what, s);
}

/* Sends w a signal; an exit it brings is no error of the worker's. */
static void signal_worker(worker *w, int signum) {
  w->signalled = 1;
  kill(w->pid, signum);
}

/* ---- reports (JSON lines, terminal, progress) --------------------------- */

static void json_num(FILE *f, double v) {
  if (v != v || v - v != 0)
    fputs("null", f);          /* NaN and infinities are not JSON */
  else
    fprintf(f, "%.9g", v);
}

/* The results object of r: {"name": value or [values], ...}. */
static void write_results(FILE *f, const fgt_result *r) {
  fputc('{', f);
  if (r->status == FG_OK && r->ran)
    for (int i = 0; i < r->n_reports; i++) {
      fprintf(f, "%s", i ? "," : "");
      fgt_json_str(f, r->report_name[i]);
      fputc(':', f);
      if (r->report_n[i] == 1) {
        json_num(f, r->report[i][0]);
      } else {
        fputc('[', f);
        for (int k = 0; k < r->report_n[i]; k++) {
          if (k)
            fputc(',', f);
          json_num(f, r->report[i][k]);
        }
        fputc(']', f);
      }
    }
  fputc('}', f);
}

/* One JSON line for t; a skipped input carries the results the journal
 * recorded for it (recorded, or NULL) and says where they came from. */
static void report_json(sup *s, const task *t, const fgt_result *r,
                        const char *status, const char *recorded) {
  FILE *f = stdout;
  fputs("{\"id\":", f);
  fgt_json_str(f, s->ops->id(s->ops->user, t->index));
  fprintf(f, ",\"status\":\"%s\"", status);
  if (r->status != FG_OK) {
    fputs(",\"error\":{\"class\":", f);
    fgt_json_str(f, r->err_class);
    fputs(",\"code\":", f);
    fgt_json_str(f, fg_status_name((fg_status)r->status));
    fputs(",\"message\":", f);
    fgt_json_str(f, r->err);
    fputc('}', f);
  }
  fputs(",\"outputs\":[", f);
  for (int i = 0; i < s->ops->n_saves && (r->status == FG_OK ||
                                          !strcmp(status, "skipped")); i++) {
    fprintf(f, "%s{\"path\":", i ? "," : "");
    fgt_json_str(f, t->paths[i]);
    if (r->hash[i][0])
      fprintf(f, ",\"sha256\":\"%s\"", r->hash[i]);
    fputc('}', f);
  }
  fputs("],\"results\":", f);
  if (recorded)
    fputs(recorded, f);
  else
    write_results(f, r);
  if (!strcmp(status, "skipped")) {
    fputs(",\"results_from\":", f);
    if (recorded)
      fgt_json_str(f, s->journal.path);
    else
      fputs("null", f);
  }
  fprintf(f, ",\"time_ms\":{\"decode\":%.3f,\"compute\":%.3f,"
          "\"encode\":%.3f,\"total\":%.3f}}\n", r->t_decode * 1e3,
          r->t_compute * 1e3, r->t_encode * 1e3, (now() - t->t0) * 1e3);
  fflush(f);
}

static void progress(sup *s) {
  if (!s->tty || s->o->quiet)
    return;
  int total = s->ops->n_inputs;
  double el = now() - s->start;
  double rate = el > 0 ? s->done / el : 0;
  double eta = rate > 0 ? (total - s->done) / rate : 0;
  int width = 30, fill = total ? width * s->done / total : width;
  fprintf(stderr, "\r[%.*s%*s] %d/%d %.1f img/s ETA %d:%02d%s",
          fill, "##############################", width - fill, "",
          s->done, total, rate, (int)eta / 60, (int)eta % 60,
          s->failed ? " (failures)" : "");
  if (s->done == total)
    fputc('\n', stderr);
  fflush(stderr);
}

/* Forgets the progress bar's line before other text goes to stderr. */
static void clear_progress(sup *s) {
  if (s->tty && !s->o->quiet)
    fputs("\r\033[K", stderr);
}

static void task_free(task *t) {
  if (t)
    free(t->paths);
  free(t);
}

/* Input t is over (well or not): report it. */
static void finish(sup *s, task *t, const fgt_result *r) {
  const char *id = s->ops->id(s->ops->user, t->index);
  s->done++;
  if (r->status != FG_OK) {
    s->failed++;
    clear_progress(s);
    fprintf(stderr, "fieldgraph: %s: %s\n", id, r->err);
    char **v = realloc(s->failures, sizeof *v * (size_t)(s->n_failures + 1));
    size_t n = strlen(id) + strlen(r->err_class) + strlen(r->err) + 8;
    char *line = malloc(n);
    if (v && line) {
      snprintf(line, n, "%s (%s): %s", id, r->err_class, r->err);
      s->failures = v;
      s->failures[s->n_failures++] = line;
    } else {
      if (v)
        s->failures = v;
      free(line);
    }
  } else if (r->warn[0]) {
    clear_progress(s);
    fprintf(stderr, "fieldgraph: %s: warning: %s\n", id, r->warn);
  }
  if (r->status == FG_OK && s->o->verbose) {
    clear_progress(s);
    fprintf(stderr, "%s (%dx%d) %.0f ms\n", id, r->width, r->height,
            (now() - t->t0) * 1e3);
    for (int i = 0; i < s->ops->n_saves; i++)
      fprintf(stderr, "  -> %s\n", t->paths[i]);
  }
  /* the journal first: a resumed run finds what this one reported */
  if (r->status == FG_OK && r->ran) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m) {
      write_results(m, r);
      if (fclose(m) == 0)
        fgt_journal_add(&s->journal, id, buf);
    }
    free(buf);
  }
  if (s->o->json)
    report_json(s, t, r, r->status == FG_OK ? "ok" : "failed", NULL);
  else if (r->status == FG_OK && r->ran && r->n_reports) {
    /* above the progress bar, which progress() draws again below it */
    clear_progress(s);
    printf("%s", id);
    for (int i = 0; i < r->n_reports; i++) {
      printf(" %s=", r->report_name[i]);
      for (int k = 0; k < r->report_n[i]; k++)
        printf("%s%.9g", k ? "," : "", r->report[i][k]);
    }
    printf("\n");
    fflush(stdout);
  }
  progress(s);
}

/* Fails t with a message the supervisor made (no worker result). */
static void finish_failed(sup *s, task *t, fg_status st, const char *cls,
                          const char *msg) {
  fgt_result *r = calloc(1, sizeof *r);
  if (!r)
    return;
  r->index = t->index;
  r->status = st;
  snprintf(r->err_class, sizeof r->err_class, "%s", cls);
  snprintf(r->err, sizeof r->err, "%s", msg);
  finish(s, t, r);
  free(r);
}

/* ---- handing out inputs ------------------------------------------------- */

/* The next input to run, or NULL when none is left; inputs skipped
 * (--skip-existing) or failing before they run are reported here. */
static task *next_task(sup *s) {
  while (s->next < s->ops->n_inputs) {
    task *t = calloc(1, sizeof *t);
    char (*paths)[FGT_PATH_MAX] = malloc(sizeof *paths *
                                         (size_t)(s->ops->n_saves + 1));
    if (!t || !paths) {
      free(t);
      free(paths);
      return NULL;
    }
    t->paths = paths;
    t->index = s->next++;
    t->t0 = now();
    char err[1024];
    if (s->ops->paths(s->ops->user, t->index, t->paths, err, sizeof err)) {
      finish_failed(s, t, FG_EINVAL, "pipeline", err);
      task_free(t);
      continue;
    }
    if (s->o->skip_existing) {
      int all = s->ops->n_saves > 0;
      struct stat st;
      for (int i = 0; i < s->ops->n_saves; i++)
        if (stat(t->paths[i], &st) != 0)
          all = 0;
      if (all) {
        fgt_result *r = calloc(1, sizeof *r);
        s->done++;
        s->skipped++;
        if (s->o->json && r)
          report_json(s, t, r, "skipped",
                      fgt_journal_find(&s->journal,
                                       s->ops->id(s->ops->user, t->index)));
        else if (s->o->verbose)
          fprintf(stderr, "%s: skipped (outputs exist)\n",
                  s->ops->id(s->ops->user, t->index));
        free(r);
        progress(s);
        task_free(t);
        continue;
      }
    }
    return t;
  }
  return NULL;
}

/* Sends t to w (idle or starting: a starting one reads it once up). */
static void assign(sup *s, worker *w, task *t) {
  size_t len = sizeof(long) + sizeof(int);
  for (int i = 0; i < s->ops->n_saves; i++)
    len += strlen(t->paths[i]) + 1;
  char *msg = malloc(len), *p = msg;
  w->t = t;
  if (w->state == W_IDLE) {
    w->state = W_BUSY;
    t->t0 = now();
    w->deadline = s->o->timeout > 0 ? t->t0 + s->o->timeout : 0;
  }
  if (!msg) {
    signal_worker(w, SIGKILL);  /* reported as its crash: out of memory */
    return;
  }
  memcpy(p, &t->index, sizeof t->index);
  p += sizeof t->index;
  memcpy(p, &s->ops->n_saves, sizeof(int));
  p += sizeof(int);
  for (int i = 0; i < s->ops->n_saves; i++) {
    size_t n = strlen(t->paths[i]) + 1;
    memcpy(p, t->paths[i], n);
    p += n;
  }
  /* a worker that died meanwhile shows as its socket's end */
  fgt_msg_send(w->fd, FGT_MSG_JOB, msg, len);
  free(msg);
}

/* Forks worker w.  Returns 0 in the supervisor (w starting, or dead when
 * fork failed), 1 in the new worker process. */
static int spawn(sup *s, worker *w) {
  int sv[2];
  memset(w, 0, sizeof *w);
  w->fd = -1;
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
    fprintf(stderr, "fieldgraph run: cannot create a worker's socket: %s\n",
            strerror(errno));
    return 0;
  }
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGPIPE);
  sigprocmask(SIG_BLOCK, &set, &old);
  fflush(stdout);
  fflush(stderr);
  pid_t supervisor = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    /* the worker: the batch's own handlers take over in open; signals
     * stay blocked until then (fgt_worker_main unblocks them) */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGHUP, SIG_IGN);  /* a hangup reaches it from the supervisor,
                               * as SIGTERM, so that its outputs are
                               * cleaned */
    sigemptyset(&set);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGPIPE);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    close(s->sigpipe[0]);
    close(s->sigpipe[1]);
    for (int i = 0; i < s->n_w; i++)
      if (&s->w[i] != w && s->w[i].state != W_DEAD)
        close(s->w[i].fd);
    close(sv[0]);
    w->fd = sv[1];
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);   /* a killed supervisor takes it */
#endif
    if (getppid() != supervisor)
      _exit(1);
    dup2(2, 1);               /* stdout is the supervisor's (JSON lines) */
    return 1;
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  close(sv[1]);
  if (pid < 0) {
    fprintf(stderr, "fieldgraph run: cannot start a worker: %s\n",
            strerror(errno));
    close(sv[0]);
    return 0;
  }
  fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
  w->pid = pid;
  w->fd = sv[0];
  w->state = W_STARTING;
  return 0;
}

/* Starts inputs on free workers, forking new ones up to --jobs.  Returns 1
 * in a new worker process (with *wk its slot). */
static int hand_out(sup *s, worker **wk) {
  while (!s->interrupted && !s->fatal) {
    worker *free_w = NULL, *dead = NULL;
    int starting = 0;
    for (int i = 0; i < s->n_w; i++) {
      if (s->w[i].state == W_IDLE && !s->w[i].t && !free_w)
        free_w = &s->w[i];
      if (s->w[i].state == W_DEAD && !dead)
        dead = &s->w[i];
      starting += s->w[i].state == W_STARTING;
    }
    /* until one worker is up, no second one starts: a context that cannot
     * be made (no OpenCL device) fails once, with one message */
    if (!free_w && (!dead || (starting && !s->started)))
      return 0;
    task *t = next_task(s);
    if (!t)
      return 0;
    if (!free_w) {
      if (spawn(s, dead)) {
        task_free(t);
        *wk = dead;
        return 1;
      }
      if (dead->state == W_DEAD) {   /* no process: nothing more starts */
        finish_failed(s, t, FG_EIO, "crash", "no worker process could be "
                      "started");
        task_free(t);
        s->fatal = 1;
        return 0;
      }
      free_w = dead;
    }
    assign(s, free_w, t);
  }
  return 0;
}

/* ---- what comes back ---------------------------------------------------- */

/* Worker w's socket ended: the process is gone (or going); reap it and
 * settle its input. */
static void reap(sup *s, worker *w) {
  int status = 0;
  while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
    ;
  close(w->fd);
  task *t = w->t;
  char msg[512];
  if (WIFSIGNALED(status))
    describe_signal(msg, sizeof msg, "killed by", WTERMSIG(status));
  else
    snprintf(msg, sizeof msg, "ended with status %d",
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  if (w->state == W_STARTING && !s->fatal && !s->interrupted) {
    clear_progress(s);
    fprintf(stderr, "fieldgraph run: a worker process %s while starting\n",
            msg);
    s->fatal = 1;
  } else if (t && w->state == W_BUSY) {
    /* what the killed job was writing is not an output */
    for (int i = 0; i < s->ops->n_saves; i++)
      fgt_remove_stale_temporaries(t->paths[i]);
    char full[1024];
    if (w->fate_class) {
      snprintf(full, sizeof full, "%s", w->fate);
      finish_failed(s, t, !strcmp(w->fate_class, "timeout") ? FG_ETIMEDOUT
                    : FG_ECANCELED, w->fate_class, full);
    } else {
      snprintf(full, sizeof full, "the worker process running it was %s "
               "(a kernel or a codec crashed on this input)", msg);
      if (!WIFSIGNALED(status))
        snprintf(full, sizeof full, "the worker process running it %s", msg);
      finish_failed(s, t, FG_EBACKEND, "crash", full);
    }
  } else if (!w->signalled && !s->fatal && (WIFSIGNALED(status) ||
                                          WEXITSTATUS(status))) {
    /* between inputs: a sanitizer's or valgrind's report at its exit, say */
    clear_progress(s);
    fprintf(stderr, "fieldgraph run: a worker process %s\n", msg);
    s->worker_errors++;
  }
  task_free(t);
  free(w->buf);
  memset(w, 0, sizeof *w);
  w->state = W_DEAD;
  w->fd = -1;
}

/* Handles one whole message from w. */
static void on_message(sup *s, worker *w, unsigned type, const void *data,
                       size_t len) {
  if (type == FGT_MSG_HELLO && len == sizeof(fgt_hello) &&
      w->state == W_STARTING) {
    const fgt_hello *h = data;
    if (h->rc) {
      s->fatal = h->rc;
      return;
    }
    if (!s->started && s->o->verbose)
      fprintf(stderr, "fieldgraph %s: %d input(s)%s on %s, %d job(s)\n",
              fg_version(), s->ops->n_inputs, s->o->sharded ?
              " in this shard" : "", h->device, s->o->jobs);
    s->started = 1;
    w->state = w->t ? W_BUSY : W_IDLE;
    if (w->t) {
      w->t->t0 = now();
      w->deadline = s->o->timeout > 0 ? w->t->t0 + s->o->timeout : 0;
    }
    return;
  }
  if (type == FGT_MSG_RESULT && len == sizeof(fgt_result) &&
      w->state == W_BUSY && w->t &&
      ((const fgt_result *)data)->index == w->t->index) {
    const fgt_result *r = data;
    /* one the supervisor stopped is reported when it is reaped, unless it
     * finished after all */
    if (w->fate_class && r->status != FG_OK)
      return;
    finish(s, w->t, r);
    task_free(w->t);
    w->t = NULL;
    w->state = W_IDLE;
    w->deadline = 0;
    if (w->kill_at)           /* it was asked to stop: it ends now */
      w->state = W_BUSY;
    return;
  }
  /* anything else: a worker out of step; stop it */
  signal_worker(w, SIGKILL);
}

/* Reads what w sent; reaps it at the socket's end. */
static void on_readable(sup *s, worker *w) {
  for (;;) {
    if (w->cap - w->len < 65536) {
      size_t cap = w->cap ? 2 * w->cap : 131072;
      unsigned char *b = realloc(w->buf, cap);
      if (!b) {
        signal_worker(w, SIGKILL);
        return;
      }
      w->buf = b;
      w->cap = cap;
    }
    ssize_t n = read(w->fd, w->buf + w->len, w->cap - w->len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      break;
    if (n <= 0) {
      reap(s, w);
      return;
    }
    w->len += (size_t)n;
    size_t off = 0;
    while (w->len - off >= sizeof(fgt_msg_head)) {
      fgt_msg_head h;
      memcpy(&h, w->buf + off, sizeof h);
      if (h.len > (1u << 24)) {
        signal_worker(w, SIGKILL);
        return;
      }
      if (w->len - off - sizeof h < h.len)
        break;
      on_message(s, w, h.type, w->buf + off + sizeof h, h.len);
      off += sizeof h + h.len;
    }
    memmove(w->buf, w->buf + off, w->len - off);
    w->len -= off;
  }
}

/* Asks w to end (its kernel cancelled) and kills it after wait seconds;
 * its input fails with class cls (msg) unless it finishes meanwhile. */
static void stop_worker(worker *w, const char *cls, const char *msg,
                        double wait) {
  if (cls && !w->fate_class) {
    w->fate_class = cls;
    snprintf(w->fate, sizeof w->fate, "%s", msg);
  }
  if (!w->kill_at) {
    signal_worker(w, SIGTERM);
    w->kill_at = now() + wait;
  }
}

/* The first SIGINT/SIGTERM: nothing new starts; idle workers end; busy
 * ones cancel their kernels and have GRACE_S to end. */
static void interrupt(sup *s, int signum) {
  int busy = 0;
  s->interrupted = signum;
  s->grace_at = now() + GRACE_S;
  for (int i = 0; i < s->n_w; i++) {
    worker *w = &s->w[i];
    if (w->state == W_DEAD)
      continue;
    if (!w->t) {              /* waiting for work: its socket ends */
      shutdown(w->fd, SHUT_WR);
      w->kill_at = s->grace_at;
      continue;
    }
    busy++;
    /* a worker cancels its kernel and ends on SIGINT or SIGTERM */
    signal_worker(w, signum == SIGINT ? SIGINT : SIGTERM);
    w->kill_at = s->grace_at;
  }
  clear_progress(s);
  if (signum == SIGPIPE)
    fprintf(stderr, "fieldgraph: standard output was closed by its reader "
            "(SIGPIPE): stopping %d input(s) under way\n", busy);
  else
    fprintf(stderr, "fieldgraph: interrupted by %s: stopping %d input(s) "
            "under way (again to stop at once)\n", signame(signum), busy);
}

/* Poll timeout (ms) until the next deadline, -1 if none. */
static int next_wakeup(sup *s) {
  double t = 0, n = now();
  for (int i = 0; i < s->n_w; i++) {
    worker *w = &s->w[i];
    if (w->state == W_DEAD)
      continue;
    double d = w->kill_at ? w->kill_at : w->deadline;
    if (d && (!t || d < t))
      t = d;
  }
  if (!t)
    return -1;
  double ms = (t - n) * 1e3 + 1;
  return ms < 0 ? 0 : ms > 60000 ? 60000 : (int)ms;
}

static void check_deadlines(sup *s) {
  double n = now();
  for (int i = 0; i < s->n_w; i++) {
    worker *w = &s->w[i];
    if (w->state == W_DEAD)
      continue;
    if (w->kill_at && n >= w->kill_at) {
      if (s->interrupted && !w->fate_class && w->state == W_BUSY) {
        w->fate_class = "interrupted";
        describe_signal(w->fate, sizeof w->fate, "stopped by",
                        s->interrupted);
        size_t l = strlen(w->fate);
        snprintf(w->fate + l, sizeof w->fate - l, " (killed: it did not "
                 "end within %d s)", GRACE_S);
      }
      signal_worker(w, SIGKILL);
      w->kill_at = n + 3600;  /* reaped when its socket ends */
    } else if (w->state == W_BUSY && w->deadline && n >= w->deadline &&
               !w->kill_at) {
      char msg[256];
      snprintf(msg, sizeof msg, "did not finish within --timeout %g s "
               "(stopped)", s->o->timeout);
      stop_worker(w, "timeout", msg, CANCEL_S);
    }
  }
}

/* Workers left at the end: their sockets close, they free what they hold
 * and exit (killed if that takes CLOSE_S: valgrind's leak check needs a
 * while). */
static void close_all(sup *s) {
  for (int i = 0; i < s->n_w; i++) {
    worker *w = &s->w[i];
    if (w->state == W_DEAD)
      continue;
    shutdown(w->fd, SHUT_WR);
    if (!w->kill_at)
      w->kill_at = now() + CLOSE_S;
  }
}

static int run_loop(sup *s, worker **wk) {
  struct pollfd *pf = calloc((size_t)s->n_w + 1, sizeof *pf);
  int *who = calloc((size_t)s->n_w + 1, sizeof *who);
  if (!pf || !who) {
    free(pf);
    free(who);
    return 0;
  }
  int closing = 0;
  for (;;) {
    if (hand_out(s, wk)) {
      free(pf);
      free(who);
      return 1;
    }
    int live = 0, busy = 0;
    for (int i = 0; i < s->n_w; i++) {
      live += s->w[i].state != W_DEAD;
      busy += s->w[i].state == W_BUSY || s->w[i].state == W_STARTING;
    }
    if (!live)
      break;
    if (!busy && !closing) {  /* every input is handed out and done */
      close_all(s);
      closing = 1;
    }
    if (s->fatal && !closing) {
      for (int i = 0; i < s->n_w; i++)
        if (s->w[i].state != W_DEAD)
          stop_worker(&s->w[i], NULL, NULL, GRACE_S);
      close_all(s);
      closing = 1;
    }
    int n = 0;
    pf[n].fd = s->sigpipe[0];
    pf[n++].events = POLLIN;
    for (int i = 0; i < s->n_w; i++)
      if (s->w[i].state != W_DEAD) {
        who[n] = i;
        pf[n].fd = s->w[i].fd;
        pf[n++].events = POLLIN;
      }
    int r = poll(pf, (nfds_t)n, next_wakeup(s));
    if (r < 0 && errno != EINTR)
      break;
    if (r > 0 && (pf[0].revents & POLLIN)) {
      unsigned char c;
      while (read(s->sigpipe[0], &c, 1) == 1) {
        if (!s->interrupted) {
          interrupt(s, c);
        } else if (c != SIGPIPE) {
          /* again: stop at once */
          for (int i = 0; i < s->n_w; i++)
            if (s->w[i].state != W_DEAD)
              signal_worker(&s->w[i], SIGKILL);
          for (int i = 0; i < s->n_w; i++)
            if (s->w[i].state != W_DEAD) {
              s->w[i].state = W_BUSY;
              s->w[i].fate_class = "interrupted";
              describe_signal(s->w[i].fate, sizeof s->w[i].fate,
                              "killed on a second", c);
              reap(s, &s->w[i]);
            }
        }
      }
    }
    for (int i = 1; r > 0 && i < n; i++)
      if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
        on_readable(s, &s->w[who[i]]);
    check_deadlines(s);
  }
  free(pf);
  free(who);
  return 0;
}

int fgt_supervise(const fgt_batch_ops *ops, const fgt_batch_opts *o,
                  int *is_worker) {
  sup *s = calloc(1, sizeof *s);
  *is_worker = 0;
  if (!s)
    return 1;
  s->ops = ops;
  s->o = o;
  s->n_w = o->jobs < ops->n_inputs ? o->jobs : ops->n_inputs;
  s->w = calloc((size_t)(s->n_w ? s->n_w : 1), sizeof *s->w);
  s->tty = isatty(2);
  s->start = now();
  if (!s->w || pipe(s->sigpipe)) {
    free(s->w);
    free(s);
    return 1;
  }
  for (int i = 0; i < 2; i++) {
    fcntl(s->sigpipe[i], F_SETFD, FD_CLOEXEC);
    fcntl(s->sigpipe[i], F_SETFL, O_NONBLOCK);
  }
  for (int i = 0; i < s->n_w; i++) {
    s->w[i].state = W_DEAD;
    s->w[i].fd = -1;
  }
  sig_fd = s->sigpipe[1];
  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &s->old_int);
  sigaction(SIGTERM, &sa, &s->old_term);
  sigaction(SIGHUP, &sa, &s->old_hup);
  sigaction(SIGPIPE, &sa, &s->old_pipe);
  worker *wk = NULL;
  int rc;
  fgt_journal_open(&s->journal, o->outdir, o->skip_existing);
  if (run_loop(s, &wk)) {
    fgt_journal_close(&s->journal);
    /* a worker process: leave the supervisor's state behind */
    int fd = wk->fd;
    for (int i = 0; i < s->n_w; i++)
      if (&s->w[i] != wk) {
        task_free(s->w[i].t);
        free(s->w[i].buf);
      }
    for (int i = 0; i < s->n_failures; i++)
      free(s->failures[i]);
    free(s->failures);
    int threads = o->threads;
    free(s->w);
    free(s);
    *is_worker = 1;
    rc = fgt_worker_main(ops, fd, threads);
    close(fd);
    return rc;
  }
  sigaction(SIGINT, &s->old_int, NULL);
  sigaction(SIGTERM, &s->old_term, NULL);
  sigaction(SIGHUP, &s->old_hup, NULL);
  /* the summary below must not kill the process by SIGPIPE */
  signal(SIGPIPE, SIG_IGN);
  close(s->sigpipe[0]);
  close(s->sigpipe[1]);
  sig_fd = -1;
  if (!o->quiet && !o->json && !s->fatal) {
    clear_progress(s);
    fprintf(stderr, "fieldgraph: %d input(s): %d done, %d failed, %d "
            "skipped in %.1f s (%s/)\n", ops->n_inputs,
            s->done - s->failed - s->skipped, s->failed, s->skipped,
            now() - s->start, o->outdir);
    for (int i = 0; i < s->n_failures && i < 20; i++)
      fprintf(stderr, "  failed: %s\n", s->failures[i]);
    if (s->n_failures > 20)
      fprintf(stderr, "  (and %d more)\n", s->n_failures - 20);
  }
  rc = s->fatal ? s->fatal : s->interrupted ? 128 + s->interrupted
       : s->failed || s->worker_errors ? 1 : 0;
  for (int i = 0; i < s->n_failures; i++)
    free(s->failures[i]);
  free(s->failures);
  fgt_journal_close(&s->journal);
  free(s->w);
  free(s);
  return rc;
}
