/* tools/json.c - JSON string literals (tools/json.h). */
#include "tools/json.h"

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 when s does
 * not start one (overlong forms, surrogates and code points past
 * U+10FFFF are invalid, as RFC 3629 says). */
static int utf8_len(const unsigned char *s) {
  unsigned c = s[0];
  int n;
  unsigned min, cp;
  if (c < 0x80)
    return 1;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, cp = c & 0x1f, min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, cp = c & 0x0f, min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;               /* also stops at the terminating NUL */
    cp = cp << 6 | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

void fgt_json_str(FILE *f, const char *str) {
  const unsigned char *s = (const unsigned char *)str;
  fputc('"', f);
  while (*s) {
    unsigned char c = *s;
    int n = utf8_len(s);
    if (!n) {
      fprintf(f, "\\udc%02x", c);
      s++;
    } else if (c == '"' || c == '\\') {
      fprintf(f, "\\%c", c);
      s++;
    } else if (c == '\n') {
      fputs("\\n", f);
      s++;
    } else if (c < 0x20 || c == 0x7f) {
      fprintf(f, "\\u%04x", c);
      s++;
    } else {
      fwrite(s, 1, (size_t)n, f);
      s += n;
    }
  }
  fputc('"', f);
}
