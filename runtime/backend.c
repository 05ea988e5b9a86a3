/* runtime/backend.c - the runtime's side of the backend seam
 * (backend.h): error messages written into the owning context, and what
 * the runtime asks of a backend instance. */
#include "backend.h"

#include <stdarg.h>
#include <stdio.h>

fg_status fg__be_fail(fg__backend *be, fg_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(be->errmsg, be->errlen, fmt, ap);
  va_end(ap);
  return st;
}

bool fg__be_wraps_inputs(const fg__backend *be) {
  return be->i->wrap || (be->i->wrap_input && be->inputs_in_place);
}
