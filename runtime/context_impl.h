/* runtime/context_impl.h - the body of fg_context.  Internal. */
#ifndef FG_RUNTIME_CONTEXT_IMPL_H
#define FG_RUNTIME_CONTEXT_IMPL_H

#include "backend.h"

struct fg_context {
  fg__backend *be;
  fg_context_stats stats;
  char cache_dir[4096];
  char errmsg[20000];      /* room for a compiler log */
};

/* Sets ctx's message; returns st. */
fg_status fg__ctx_fail(fg_context *ctx, fg_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
