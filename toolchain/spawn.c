/* toolchain/spawn.c - runs a program and says how it ended: the library's
 * only posix_spawn.  Used for clang (kernels, invokables, the version
 * check) and clang -E (RenderScript's preprocessor).  Limits (a time and
 * an output size) are checked while waiting: a pidfd wakes the wait the
 * moment the program ends, a short sleep stands in where the kernel has
 * none; a program over a limit is killed with its process group (clang's
 * own children: the linker). */
#define _GNU_SOURCE
#include "toolchain.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static size_t file_size(const char *path) {
  struct stat st;
  return path && stat(path, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size
                                                        : 0;
}

static bool over_output(const fgtc_spawn_opts *o) {
  size_t n = file_size(o->out_path) + file_size(o->watch_path);
  if (o->err_path && (!o->out_path || strcmp(o->err_path, o->out_path)))
    n += file_size(o->err_path);
  return n > o->max_output;
}

/* Waits for pid, blocking; its status into *st.  0 or an errno value. */
static int reap(pid_t pid, int *st) {
  while (waitpid(pid, st, 0) < 0)
    if (errno != EINTR)
      return errno ? errno : ECHILD;
  return 0;
}

/* Waits for pid within o's limits; the end into *x when a limit killed
 * it (returns 1), else 0 with the status in *st, or an errno value. */
static int wait_limited(pid_t pid, const fgtc_spawn_opts *o, int *st,
                        fgtc_exit *x) {
  int64_t deadline = o->timeout_ms ? now_ms() + o->timeout_ms : INT64_MAX;
  int pidfd = -1;
#ifdef SYS_pidfd_open
  pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
  int nap = 1;                    /* ms between looks at the output */
  for (;;) {
    pid_t r = waitpid(pid, st, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) {
      int e = r < 0 ? (errno ? errno : ECHILD) : 0;
      if (pidfd >= 0)
        close(pidfd);
      return e;
    }
    fgtc_end end = FGTC_EXITED;
    if (o->max_output && over_output(o))
      end = FGTC_TOO_MUCH;
    else if (now_ms() >= deadline)
      end = FGTC_TIMED_OUT;
    if (end != FGTC_EXITED) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      int e = reap(pid, st);
      if (pidfd >= 0)
        close(pidfd);
      if (e)
        return e;
      *x = (fgtc_exit){.end = end};
      return -1;
    }
    int64_t left = deadline - now_ms();
    int wait = o->max_output ? nap : left > 1000 ? 1000 : (int)left;
    if (wait < 1)
      wait = 1;
    if (nap < 50)
      nap *= 2;
    if (pidfd >= 0) {
      struct pollfd p = {.fd = pidfd, .events = POLLIN};
      (void)poll(&p, 1, wait);
    } else {
      struct timespec ts = {wait / 1000, (long)(wait % 1000) * 1000000};
      if (ts.tv_nsec > 5000000 && !o->max_output)
        ts.tv_nsec = 5000000;     /* no pidfd: look often */
      nanosleep(&ts, NULL);
    }
  }
}

bool fgtc_spawn(char *const argv[], const fgtc_spawn_opts *o, fgtc_exit *x) {
  static const fgtc_spawn_opts none = {0};
  if (!o)
    o = &none;
  *x = (fgtc_exit){.end = FGTC_NOT_RUN};
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW;
  bool limited = o->timeout_ms || o->max_output;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&at);
  /* compilers here read files, never their standard input: a terminal's
   * or a pipe's would only let one wait forever */
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (o->out_path)
    posix_spawn_file_actions_addopen(&fa, 1, o->out_path, flags, 0600);
  if (o->err_path && o->out_path && !strcmp(o->err_path, o->out_path))
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
  else if (o->err_path)
    posix_spawn_file_actions_addopen(&fa, 2, o->err_path, flags, 0600);
  if (limited) {                  /* its own group, killed as one */
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
  }
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, &at, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rc != 0) {
    x->err = rc;
    return false;
  }
  int st = 0;
  int e = limited ? wait_limited(pid, o, &st, x) : reap(pid, &st);
  if (e < 0)
    return false;                 /* a limit: *x says which */
  if (e > 0) {
    x->err = e;
    return false;
  }
  if (WIFSIGNALED(st))
    *x = (fgtc_exit){.end = FGTC_SIGNALED, .code = WTERMSIG(st)};
  else
    *x = (fgtc_exit){.end = FGTC_EXITED, .code = WEXITSTATUS(st)};
  return x->end == FGTC_EXITED && x->code == 0;
}

const char *fgtc_exit_str(const fgtc_exit *x, const fgtc_spawn_opts *o,
                          char *buf, size_t size) {
  char ebuf[128];
  switch (x->end) {
  case FGTC_EXITED:
    snprintf(buf, size, "exit status %d", x->code);
    break;
  case FGTC_SIGNALED:
    snprintf(buf, size, "killed by signal %d (%s)", x->code,
             strsignal(x->code));
    break;
  case FGTC_TIMED_OUT:
    snprintf(buf, size, "timed out after %u ms", o ? o->timeout_ms : 0);
    break;
  case FGTC_TOO_MUCH:
    snprintf(buf, size, "output over %zu bytes", o ? o->max_output : 0);
    break;
  default:
    snprintf(buf, size, "could not run: %s",
             fgu_strerror(x->err ? x->err : EIO, ebuf, sizeof ebuf));
  }
  return buf;
}
