/* emit/out.c - the emitter's output primitives, which every part of
 * emission writes through: text into the thread body, indentation, the
 * record of helpers already emitted, integer limits as literals.  The
 * bottom of emit/: it calls nothing else of the folder. */
#include "emit_impl.h"

#include <stdarg.h>
#include <string.h>

void fgk_put(fgk_emitter *e, const char *s) { fgu_buf_puts(&e->out, s); }

void fgk_putf(fgk_emitter *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fgu_buf_vprintf(&e->out, fmt, ap);
  va_end(ap);
}

void fge_line(fgk_emitter *e) {
  for (int i = 0; i < e->indent; i++)
    fgk_put(e, "  ");
}

bool fgk_first_use(fgk_emitter *e, const char *name) {
  size_t n = strlen(name);
  const char *s = e->names.s;
  while (s && *s) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    if (len == n && !memcmp(s, name, n))
      return false;
    s = nl ? nl + 1 : s + len;
  }
  fgu_buf_printf(&e->names, "%s\n", name);
  return true;
}

const char *fgk_int_min_literal(fg_elem e) {
  switch (e) {
  case FG_I8: return "(-128)";
  case FG_I16: return "(-32768)";
  case FG_I32: return "(-2147483647 - 1)";
  case FG_I64: return "(-9223372036854775807L - 1)";
  default: return "0";
  }
}

const char *fgk_int_max_literal(fg_elem e) {
  switch (e) {
  case FG_I8: return "127";
  case FG_U8: return "255";
  case FG_I16: return "32767";
  case FG_U16: return "65535";
  case FG_I32: return "2147483647";
  case FG_U32: return "4294967295u";
  case FG_I64: return "9223372036854775807L";
  case FG_U64: return "18446744073709551615UL";
  default: return "0";
  }
}
