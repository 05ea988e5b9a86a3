/* util/buf.c - growable string buffer used by the source emitters and for
 * error messages.  Allocation failure is sticky (oom) and checked once. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int reserve(fgu_buf *b, size_t extra) {
  if (b->oom)
    return 0;
  if (b->len + extra + 1 <= b->cap)
    return 1;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1)
    cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) {
    b->oom = 1;
    return 0;
  }
  b->s = s;
  b->cap = cap;
  return 1;
}

void fgu_buf_puts(fgu_buf *b, const char *s) {
  size_t n = strlen(s);
  if (!reserve(b, n))
    return;
  memcpy(b->s + b->len, s, n + 1);
  b->len += n;
}

void fgu_buf_putc(fgu_buf *b, char c) {
  if (!reserve(b, 1))
    return;
  b->s[b->len++] = c;
  b->s[b->len] = 0;
}

void fgu_buf_vprintf(fgu_buf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0 || !reserve(b, (size_t)n))
    return;
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}

void fgu_buf_printf(fgu_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fgu_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

char *fgu_buf_take(fgu_buf *b) {
  char *s = b->oom ? NULL : b->s;
  if (b->oom)
    free(b->s);
  else if (!s)
    s = calloc(1, 1);
  b->s = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
  return s;
}

void fgu_buf_free(fgu_buf *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
}

void fgu_strlcpy(char *dst, const char *src, size_t size) {
  if (!dst || size == 0)
    return;
  snprintf(dst, size, "%s", src ? src : "");
}

int fgu_cpu_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

double fgu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
