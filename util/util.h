/* util/util.h - small helpers every stage uses: a bump arena, a growable
 * string buffer, SHA-256, error-message formatting and a few others
 * (util/fs.h has the file helpers).  Internal;
 * never installed.  Prefix fgu_.
 */
#ifndef FG_UTIL_H
#define FG_UTIL_H

#include "fieldgraph/status.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* ---- arena: many small allocations freed together ----------------------- */

typedef struct fgu_arena_chunk fgu_arena_chunk;
typedef struct fgu_arena {
  fgu_arena_chunk *head;
} fgu_arena;

/* Zeroed, 16-byte aligned memory living until fgu_arena_free; NULL when out
 * of memory. */
void *fgu_arena_alloc(fgu_arena *a, size_t size);
/* Copy of s in the arena (NULL for NULL or out of memory). */
char *fgu_arena_strdup(fgu_arena *a, const char *s);
/* printf into the arena. */
char *fgu_arena_printf(fgu_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Frees every allocation; the arena may be reused afterwards. */
void fgu_arena_free(fgu_arena *a);

/* ---- string buffer ------------------------------------------------------ */

/* A growable NUL-terminated string.  After an allocation failure oom is set
 * and further appends do nothing (checked once at the end). */
typedef struct fgu_buf {
  char *s;
  size_t len, cap;
  int oom;
} fgu_buf;

void fgu_buf_puts(fgu_buf *b, const char *s);
void fgu_buf_putc(fgu_buf *b, char c);
void fgu_buf_printf(fgu_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void fgu_buf_vprintf(fgu_buf *b, const char *fmt, va_list ap);
/* Takes the string out of b (caller frees; never NULL unless oom) and
 * resets b. */
char *fgu_buf_take(fgu_buf *b);
void fgu_buf_free(fgu_buf *b);

/* ---- hashing ------------------------------------------------------------ */

typedef struct fgu_sha256 {
  uint32_t h[8];
  uint64_t len;
  uint8_t block[64];
  size_t fill;
} fgu_sha256;

void fgu_sha256_init(fgu_sha256 *c);
void fgu_sha256_update(fgu_sha256 *c, const void *data, size_t n);
/* Writes 64 lowercase hex digits and a NUL into hex. */
void fgu_sha256_hex(fgu_sha256 *c, char hex[65]);

/* ---- error messages ----------------------------------------------------- */

/* Formats the message into err (truncated to errlen; nothing when err is
 * NULL or errlen 0) and returns st: `return fgu_fail(err, errlen, FG_EIO,
 * "%s: ...", path);`. */
fg_status fgu_fail(char *err, size_t errlen, fg_status st, const char *fmt,
                   ...) __attribute__((format(printf, 4, 5)));
/* The text of errno value errnum, thread safe (in buf, or a static string
 * of the C library); never NULL. */
const char *fgu_strerror(int errnum, char *buf, size_t len);

/* ---- misc --------------------------------------------------------------- */

/* snprintf that always terminates and tolerates size 0 / NULL buf. */
void fgu_strlcpy(char *dst, const char *src, size_t size);
/* Number of online processors, at least 1. */
int fgu_cpu_count(void);
/* Monotonic time in seconds. */
double fgu_now(void);

#endif
