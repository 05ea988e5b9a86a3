/* tools/journal.c - the results journal of an output folder (tools/
 * journal.h). */
#include "tools/journal.h"
#include "tools/json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A JSON string at *p (after its opening quote) unescaped into a new
 * string, *p moved past the closing quote; NULL when malformed. */
static char *json_string(const char **p) {
  const char *s = *p;
  size_t n = strlen(s);
  char *out = malloc(n + 1), *o = out;
  if (!out)
    return NULL;
  for (; *s && *s != '"'; s++) {
    if (*s != '\\') {
      *o++ = *s;
      continue;
    }
    s++;
    if (*s == 'n')
      *o++ = '\n';
    else if (*s == 'u' && s[1] && s[2] && s[3] && s[4]) {
      char hex[5] = {s[1], s[2], s[3], s[4], 0};
      /* \u00XX a control character, \udcXX a byte that was no UTF-8
       * (tools/json.h): the low eight bits are the byte */
      *o++ = (char)strtol(hex, NULL, 16);
      s += 4;
    } else if (*s) {
      *o++ = *s;
    } else {
      break;
    }
  }
  if (*s != '"') {
    free(out);
    return NULL;
  }
  *o = 0;
  *p = s + 1;
  return out;
}

/* The object starting at p ('{'): its length, or 0 when unbalanced. */
static size_t object_len(const char *p) {
  int depth = 0, in_str = 0;
  for (const char *s = p; *s && *s != '\n'; s++) {
    if (in_str) {
      if (*s == '\\' && s[1])
        s++;
      else if (*s == '"')
        in_str = 0;
    } else if (*s == '"') {
      in_str = 1;
    } else if (*s == '{') {
      depth++;
    } else if (*s == '}' && --depth == 0) {
      return (size_t)(s - p) + 1;
    }
  }
  return 0;
}

/* By id, then in the order the lines were written. */
static int by_id(const void *a, const void *b) {
  const fgt_journal_entry *x = a, *y = b;
  int c = strcmp(x->id, y->id);
  return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static void load(fgt_journal *j) {
  FILE *f = fopen(j->path, "r");
  if (!f)
    return;
  char *line = NULL;
  size_t cap = 0, n_cap = 0;
  ssize_t len;
  while ((len = getline(&line, &cap, f)) > 0) {
    const char *p = strstr(line, "{\"id\":\"");
    if (p != line)
      continue;
    p += 7;
    char *id = json_string(&p);
    const char *r = id ? strstr(p, "\"results\":{") : NULL;
    size_t rl = r ? object_len(r + 10) : 0;
    if (!rl) {
      free(id);
      continue;
    }
    if (j->n == n_cap) {
      n_cap = n_cap ? 2 * n_cap : 64;
      fgt_journal_entry *e = realloc(j->e, n_cap * sizeof *e);
      if (!e) {
        free(id);
        break;
      }
      j->e = e;
    }
    j->e[j->n].id = id;
    j->e[j->n].seq = j->n;
    j->e[j->n].results = strndup(r + 10, rl);
    if (!j->e[j->n].results) {
      free(id);
      break;
    }
    j->n++;
  }
  free(line);
  fclose(f);
  qsort(j->e, j->n, sizeof *j->e, by_id);
}

int fgt_journal_open(fgt_journal *j, const char *outdir, int load_it) {
  memset(j, 0, sizeof *j);
  snprintf(j->path, sizeof j->path, "%s/%s", outdir, FGT_JOURNAL_NAME);
  if (load_it)
    load(j);
  j->fd = open(j->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
               O_NOFOLLOW, 0644);
  return j->fd < 0 ? -1 : 0;
}

void fgt_journal_add(fgt_journal *j, const char *id, const char *results) {
  if (j->fd < 0)
    return;
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m)
    return;
  fputs("{\"id\":", m);
  fgt_json_str(m, id);
  fprintf(m, ",\"results\":%s}\n", results);
  if (fclose(m) == 0 && buf) {
    ssize_t w = write(j->fd, buf, len);
    (void)w;      /* a journal that cannot grow only costs the resume */
  }
  free(buf);
}

const char *fgt_journal_find(const fgt_journal *j, const char *id) {
  size_t lo = 0, hi = j->n;
  const char *found = NULL;
  while (lo < hi) {       /* the last entry of id */
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(j->e[mid].id, id);
    if (c <= 0) {
      if (c == 0)
        found = j->e[mid].results;
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return found;
}

void fgt_journal_close(fgt_journal *j) {
  if (j->fd >= 0)
    close(j->fd);
  for (size_t i = 0; i < j->n; i++) {
    free(j->e[i].id);
    free(j->e[i].results);
  }
  free(j->e);
  memset(j, 0, sizeof *j);
  j->fd = -1;
}
