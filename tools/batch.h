/* tools/batch.h - `fieldgraph run`'s processes: the supervisor
 * (supervisor.c) hands inputs one at a time to worker processes
 * (worker.c), which run them with the batch's job code (run.c) and send
 * back an fgt_result; the supervisor owns the terminal, the JSON lines and
 * the summary.  A kernel that crashes or never ends takes down its worker
 * only: the input fails alone (class crash or timeout), a new worker takes
 * its place.  Prefix fgt_.
 */
#ifndef FG_TOOLS_BATCH_H
#define FG_TOOLS_BATCH_H

#include "tools/fgt.h"

#include <stddef.h>

enum { FGT_PATH_MAX = 4096 };

/* One input's outcome, as its worker reports it (a plain struct: both ends
 * are the same program). */
typedef struct fgt_result {
  long index;
  int status;                 /* fg_status */
  char err_class[16];         /* read, compile, run, write, interrupted... */
  char err[1024];
  char warn[1024];            /* with FG_OK: what an output could not keep
                               * (fg_image_save's warning), or "" */
  int width, height;          /* of the first input, once read */
  int ran;                    /* the graph ran: the reports hold values */
  int n_reports;
  char report_name[FGT_MAX_IO][64];
  int report_n[FGT_MAX_IO];
  double report[FGT_MAX_IO][FGT_MAX_REPORT];
  char hash[FGT_MAX_IO][65];  /* of each output written, with hashing on */
  double t_decode, t_compute, t_encode;
} fgt_result;

/* What the batch (run.c) gives the supervisor.  paths runs in the
 * supervisor; open, job, interrupted and close run in a worker process
 * (forked by the supervisor, which has no threads, loop or context). */
typedef struct fgt_batch_ops {
  void *user;
  int n_inputs;               /* items 0 .. n_inputs - 1 */
  int n_saves;                /* outputs of every input */
  /* The id (path) of item index, as reports name it. */
  const char *(*id)(void *user, long index);
  /* The output paths of item index into out[0 .. n_saves - 1]; 0, or -1
   * with a message in err. */
  int (*paths)(void *user, long index, char (*out)[FGT_PATH_MAX], char *err,
               size_t errlen);
  /* Creates the worker's loop and context (threads for its kernels) and
   * its SIGINT/SIGTERM handling (cancel the run under way); 0 with the
   * device's description in device, else an exit status (the message
   * printed). */
  int (*open)(void *user, int threads, char *device, size_t devlen);
  /* Runs item index writing outputs paths[0 .. n_saves - 1]; fills *res. */
  void (*job)(void *user, long index, char (*paths)[FGT_PATH_MAX],
              fgt_result *res);
  /* The signal number that interrupted the worker, 0 if none. */
  int (*interrupted)(void *user);
  void (*close)(void *user);
} fgt_batch_ops;

/* The supervisor's options. */
typedef struct fgt_batch_opts {
  int jobs;                   /* worker processes, at most */
  int threads;                /* kernel threads of each worker */
  double timeout;             /* seconds per input; 0: none */
  int json, quiet, verbose, skip_existing, sharded;
  const char *outdir;
} fgt_batch_opts;

/* Runs the batch in worker processes; returns the exit status (0, 1 when
 * an input failed, 128 + signal when interrupted, else the status a
 * worker that could not start gave).  In a worker process it returns the
 * worker's exit status with *is_worker set: the caller frees what it
 * holds and exits with it. */
int fgt_supervise(const fgt_batch_ops *ops, const fgt_batch_opts *o,
                  int *is_worker);

/* A worker's life on socket fd: open, then jobs until the socket closes
 * or a signal interrupts it; returns its exit status (worker.c). */
int fgt_worker_main(const fgt_batch_ops *ops, int fd, int threads);

/* Messages on a worker's socket: a header, then len bytes. */
enum { FGT_MSG_HELLO = 1, FGT_MSG_JOB, FGT_MSG_RESULT };
typedef struct fgt_msg_head {
  unsigned type, len;
} fgt_msg_head;

/* The HELLO a worker sends once its context exists (or failed). */
typedef struct fgt_hello {
  int rc;
  char device[256];
} fgt_hello;

/* Sends one message whole (blocking); 0 or -1 (the peer is gone). */
int fgt_msg_send(int fd, unsigned type, const void *data, size_t len);

#endif
