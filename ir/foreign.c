/* ir/foreign.c - what the text writer of foreign calls (ir/foreign.h)
 * needs beyond its inline wrappers (formatted output), and the
 * identifiers generated code is named with. */
#include "foreign.h"

#include <ctype.h>
#include <stdio.h>

void fgk_writer_printf(fgk_writer *w, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  w->i->vprintf(w, fmt, ap);
  va_end(ap);
}

void fgk_identifier(const char *name, char *out, size_t size) {
  size_t j = 0;
  if (size == 0)
    return;
  for (size_t i = 0; name && name[i] && j + 1 < size; i++) {
    unsigned char c = (unsigned char)name[i];
    out[j++] = (char)(isalnum(c) ? c : '_');
  }
  out[j] = 0;
  if (j == 0 || isdigit((unsigned char)out[0])) {
    char tmp[256];
    snprintf(tmp, sizeof tmp, "k_%s", out);
    snprintf(out, size, "%s", tmp);
  }
}
