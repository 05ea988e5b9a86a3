/* backend-opencl/log_lines.c - positions in a build log mapped through the
 * source's #line directives.  Generated kernels carry `#line N "file.rs"`
 * before a script's text so that a compiler's message names the user's
 * line; clang-based compilers (PoCL, Intel, AMD) honour it, NVIDIA's
 * OpenCL compiler prints "<kernel>:L:C: error: ..." with L counted in the
 * source as given.  Such positions are rewritten as the preprocessor would
 * have named them. */
#include "backend-opencl/cl_impl.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* The file and line that line L (from 1) of src is, by its #line
 * directives: *file, *flen (the name as written, in src), *line.  False
 * where no #line with a file name comes before L. */
static bool map_line(const char *src, long L, const char **file, int *flen,
                     long *line) {
  const char *p = src, *f = NULL;
  long n = 1, base = 0, at = 0;
  int fl = 0;
  while (n < L) {
    const char *q = p;
    while (*q == ' ' || *q == '\t')
      q++;
    if (!strncmp(q, "#line", 5) && (q[5] == ' ' || q[5] == '\t')) {
      char *end;
      long v = strtol(q + 5, &end, 10);
      if (end != q + 5) {
        base = v;
        at = n;
        while (*end == ' ' || *end == '\t')
          end++;
        if (*end == '"') {
          const char *s = end + 1;
          while (*s && *s != '"' && *s != '\n')
            s += s[0] == '\\' && s[1] && s[1] != '\n' ? 2 : 1;
          f = end + 1;
          fl = (int)(s - f);
        }
      }
    }
    if (!(p = strchr(p, '\n')))
      return false;
    p++;
    n++;
  }
  if (!f || !at)
    return false;
  *file = f;
  *flen = fl;
  *line = base + (L - at - 1);
  return true;
}

char *fgcl_map_log_lines(const char *source, const char *log) {
  static const char tag[] = "<kernel>:";
  if (!source || !log || !strstr(log, tag))
    return NULL;
  fgu_buf b = {0};
  const char *p = log, *hit;
  int mapped = 0;
  while ((hit = strstr(p, tag))) {
    char *end;
    const char *num = hit + sizeof tag - 1;
    long L = strtol(num, &end, 10);
    const char *file;
    int flen;
    long line;
    if (end == num || *end != ':' || L < 1 ||
        !map_line(source, L, &file, &flen, &line)) {
      fgu_buf_printf(&b, "%.*s", (int)(num - p), p);
      p = num;
      continue;
    }
    fgu_buf_printf(&b, "%.*s%.*s:%ld", (int)(hit - p), p, flen, file, line);
    mapped++;
    p = end;
  }
  fgu_buf_puts(&b, p);
  if (!mapped) {
    fgu_buf_free(&b);
    return NULL;
  }
  return fgu_buf_take(&b);
}
