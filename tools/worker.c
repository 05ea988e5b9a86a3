/* tools/worker.c - a worker process of `fieldgraph run`: creates its own
 * loop and context, then takes one input at a time from the supervisor
 * over its socket, runs it with the batch's job code (run.c; programs
 * compiled once per input size stay cached in the worker) and sends the
 * result back.  SIGTERM or SIGINT cancels the kernel under way (the
 * batch's handler calls fg_run_cancel); the worker then reports that
 * input and exits.  The message framing both ends use is here too.
 */
#include "tools/batch.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int fgt_msg_send(int fd, unsigned type, const void *data, size_t len) {
  fgt_msg_head h = {type, (unsigned)len};
  struct iovec iov[2] = {{&h, sizeof h}, {(void *)data, len}};
  struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
  while (iov[0].iov_len + iov[1].iov_len) {
    ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    for (int i = 0; i < 2; i++) {
      size_t k = (size_t)n < iov[i].iov_len ? (size_t)n : iov[i].iov_len;
      iov[i].iov_base = (char *)iov[i].iov_base + k;
      iov[i].iov_len -= k;
      n -= (ssize_t)k;
    }
    if (!iov[0].iov_len) {   /* sendmsg with an empty first entry is fine */
      m.msg_iov = &iov[1];
      m.msg_iovlen = 1;
    }
  }
  return 0;
}

/* Reads exactly len bytes; 0, or -1 at EOF or an error. */
static int read_all(int fd, void *buf, size_t len) {
  char *p = buf;
  while (len) {
    ssize_t n = read(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

/* One JOB message: the item's index, then its n output paths. */
static int run_job(const fgt_batch_ops *ops, int fd, const char *msg,
                   size_t len, char (*paths)[FGT_PATH_MAX], fgt_result *res) {
  long index;
  int n;
  if (len < sizeof index + sizeof n)
    return -1;
  memcpy(&index, msg, sizeof index);
  memcpy(&n, msg + sizeof index, sizeof n);
  if (n != ops->n_saves || index < 0 || index >= ops->n_inputs)
    return -1;
  const char *p = msg + sizeof index + sizeof n, *end = msg + len;
  for (int i = 0; i < n; i++) {
    const char *z = memchr(p, '\0', (size_t)(end - p));
    if (!z || z - p >= FGT_PATH_MAX)
      return -1;
    memcpy(paths[i], p, (size_t)(z - p + 1));
    p = z + 1;
  }
  memset(res, 0, sizeof *res);
  res->index = index;
  ops->job(ops->user, index, paths, res);
  return fgt_msg_send(fd, FGT_MSG_RESULT, res, sizeof *res);
}

int fgt_worker_main(const fgt_batch_ops *ops, int fd, int threads) {
  fgt_hello hello = {0};
  hello.rc = ops->open(ops->user, threads, hello.device,
                       sizeof hello.device);
  if (fgt_msg_send(fd, FGT_MSG_HELLO, &hello, sizeof hello) || hello.rc) {
    if (!hello.rc)
      ops->close(ops->user);
    return hello.rc ? hello.rc : 1;
  }
  /* the supervisor blocked these across fork: the batch's handlers are
   * installed now */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  char (*paths)[FGT_PATH_MAX] = malloc(sizeof *paths * FGT_MAX_IO);
  fgt_result *res = malloc(sizeof *res);
  char *msg = NULL;
  int rc = paths && res ? 0 : 1;
  while (!rc && !ops->interrupted(ops->user)) {
    fgt_msg_head h;
    if (read_all(fd, &h, sizeof h))
      break;                  /* the supervisor is done with this worker */
    if (h.type != FGT_MSG_JOB || h.len > FGT_MAX_IO * (FGT_PATH_MAX + 1) +
                                             64) {
      rc = 1;
      break;
    }
    free(msg);
    msg = malloc(h.len ? h.len : 1);
    if (!msg || read_all(fd, msg, h.len) ||
        run_job(ops, fd, msg, h.len, paths, res))
      rc = 1;
  }
  free(msg);
  free(res);
  free(paths);
  ops->close(ops->user);
  return rc;
}
