/* runtime/buffer_impl.h - the body of fg_buffer (a field kept in device
 * memory between runs) and what runs need of it: buffer.c holds the
 * public calls, run.c binds buffers to runs and orders the runs sharing
 * one.  Internal. */
#ifndef FG_RUNTIME_BUFFER_IMPL_H
#define FG_RUNTIME_BUFFER_IMPL_H

#include "context_impl.h"

struct fg_buffer {
  fg_context *ctx;
  fg_type type;
  size_t bytes;
  fg__buffer *mem;          /* the backend's buffer; NULL for a buffer
                               over the caller's memory (fg_buffer_wrap) */
  void *host;               /* that memory (mem NULL) */
  int uses;                 /* runs started with it and not ended, queued
                               ones included (reads, writes and frees wait
                               for none) */
  int readers, writers;     /* begun runs reading / writing it */
};

/* Whether no run uses buf (fg__loop_wait_until's predicate). */
bool fg__buffer_idle(const void *buf);

#endif
