/* util/err.c - formatting error messages into a caller's buffer, the
 * pattern of every call that takes (char *err, size_t errlen), and a
 * thread-safe strerror. */
#include "util.h"

#include <stdio.h>
#include <string.h>

fg_status fgu_fail(char *err, size_t errlen, fg_status st, const char *fmt,
                   ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return st;
}

/* strerror_r comes in an XSI (int) and a GNU (char *) flavour depending on
 * feature macros the build may set; pick the right use by its return
 * type. */
static inline const char *strerror_xsi(int rc, char *buf, size_t len,
                                       int errnum) {
  if (rc != 0)
    snprintf(buf, len, "error %d", errnum);
  return buf;
}

static inline const char *strerror_gnu(const char *rc, char *buf, size_t len,
                                       int errnum) {
  return rc;
}

const char *fgu_strerror(int errnum, char *buf, size_t len) {
  buf[0] = '\0';
  return _Generic(strerror_r(errnum, buf, len),
                  int: strerror_xsi,
                  default: strerror_gnu)(strerror_r(errnum, buf, len), buf,
                                         len, errnum);
}
