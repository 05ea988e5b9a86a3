/* tools/outputs.c - the names `fieldgraph run` writes under -o.  A save()
 * template is checked on its own when the pipeline is built (check and
 * run refuse an absolute one or one with a ".." component before any
 * input is read); each input's expanded name is checked again, since a
 * field's value can itself be ".." (a file named "...png" has the stem
 * ".."); and before the batch starts every input's names are compared, so
 * two inputs that would overwrite each other's output are a usage error,
 * not a silent loss.
 */
#include "tools/outputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The fields that name part of the input; {index} is a number. */
static const char *const path_fields[] = {"{ext}", "{dir}", "{name}",
                                          "{stem}"};
enum { N_PATH_FIELDS = sizeof path_fields / sizeof path_fields[0] };

/* 1 when name, split at '/', has a component equal to comp. */
static int has_component(const char *name, const char *comp) {
  size_t n = strlen(comp);
  for (const char *p = name; p;) {
    const char *e = strchr(p, '/');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !strncmp(p, comp, n))
      return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

/* Why name (a template or its expansion) cannot be a name inside -o, or
 * NULL when it can. */
static const char *bad_name(const char *name) {
  if (!*name)
    return "it is empty; expected a file name";
  if (name[0] == '/')
    return "it is an absolute path; expected a name inside the output "
           "folder (-o)";
  if (name[strlen(name) - 1] == '/')
    return "it ends in '/'; expected a file name";
  if (has_component(name, ".."))
    return "a \"..\" component would leave the output folder (-o); "
           "expected a name inside it";
  return NULL;
}

int fgt_tmpl_check(const char *tmpl, char *err, size_t errlen) {
  const char *why = bad_name(tmpl);
  if (why) {
    snprintf(err, errlen, "template \"%s\": %s", tmpl, why);
    return -1;
  }
  /* unknown fields and a '{' without '}' */
  char out[4096];
  return fgt_expand(out, sizeof out, tmpl, "x.png", "x.png", 0, err, errlen);
}

int fgt_output_name(char *out, size_t size, const char *tmpl,
                    const char *path, const char *rel, long index, char *err,
                    size_t errlen) {
  static const char *const whole[] = {"{stem}", "{name}"};
  for (int i = 0; i < 2; i++) {
    char v[4096];
    if (!strstr(tmpl, whole[i]) ||
        fgt_expand(v, sizeof v, whole[i], path, rel, index, err, errlen))
      continue;
    if (!strcmp(v, ".") || !strcmp(v, "..") || strchr(v, '/')) {
      snprintf(err, errlen, "the input's %s is \"%s\", which template "
               "\"%s\" would turn into a name outside the output folder "
               "(-o) or onto another input's; expected a file name (rename "
               "the input)", whole[i], v, tmpl);
      return -1;
    }
  }
  if (fgt_expand(out, size, tmpl, path, rel, index, err, errlen))
    return -1;
  const char *why = bad_name(out);
  if (why) {
    snprintf(err, errlen, "template \"%s\" gives \"%s\" for this input: %s",
             tmpl, out, why);
    return -1;
  }
  return 0;
}

/* ---- collisions --------------------------------------------------------- */

typedef struct entry {
  char *key;    /* the name without "." components and repeated '/' */
  int item, tmpl;
} entry;

static int cmp_entries(const void *a, const void *b) {
  const entry *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  if (c)
    return c;
  return x->item != y->item ? (x->item < y->item ? -1 : 1)
                            : (x->tmpl > y->tmpl) - (x->tmpl < y->tmpl);
}

/* name with "." components and empty ones dropped (malloc'd). */
static char *normalize(const char *name) {
  char *s = malloc(strlen(name) + 1);
  if (!s)
    return NULL;
  size_t n = 0;
  for (const char *p = name; *p;) {
    const char *e = strchr(p, '/');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len && !(len == 1 && *p == '.')) {
      if (n)
        s[n++] = '/';
      memcpy(s + n, p, len);
      n += len;
    }
    p += len + (e != NULL);
  }
  s[n] = '\0';
  return s;
}

/* Appends to buf (size bytes, NUL-terminated) what fmt gives. */
static void append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t size, const char *fmt, ...) {
  size_t n = strlen(buf);
  if (n + 1 >= size)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + n, size - n, fmt, ap);
  va_end(ap);
}

/* The message for the group e[0..n-1] of one name (more: other names
 * shared too). */
static void describe(const fgt_inputs *in, const char *const *tmpls,
                     const entry *e, int n, int more, char *err,
                     size_t errlen) {
  const fgt_item *a = &in->items[e[0].item];
  int one_input = 1;
  for (int i = 1; i < n; i++)
    one_input &= e[i].item == e[0].item;
  if (one_input) {
    snprintf(err, errlen, "input '%s' would write its outputs \"%s\" and "
             "\"%s\" to one file, %s; expected a name of its own for each "
             "save()", a->path, tmpls[e[0].tmpl], tmpls[e[1].tmpl],
             e[0].key);
  } else {
    snprintf(err, errlen, "inputs would overwrite each other's output "
             "%s (template \"%s\"):", e[0].key, tmpls[e[0].tmpl]);
    int shown = 0, items = 0;
    for (int i = 0; i < n; i++)
      if (i == 0 || e[i].item != e[i - 1].item) {
        if (shown < 8) {
          append(err, errlen, " '%s'", in->items[e[i].item].path);
          shown++;
        }
        items++;
      }
    if (shown < items)
      append(err, errlen, " and %d more", items - shown);
    /* the fields whose values differ between every two of them */
    int found = 0;
    for (int f = 0; f < N_PATH_FIELDS; f++) {
      if (strstr(tmpls[e[0].tmpl], path_fields[f]))
        continue;
      int distinct = 1;
      for (int i = 0; i < n && distinct; i++)
        for (int k = i + 1; k < n && distinct; k++) {
          const fgt_item *x = &in->items[e[i].item];
          const fgt_item *y = &in->items[e[k].item];
          char vx[4096], vy[4096], dummy[64];
          if (x == y)
            continue;
          if (fgt_expand(vx, sizeof vx, path_fields[f], x->path, x->rel, 0,
                         dummy, sizeof dummy) ||
              fgt_expand(vy, sizeof vy, path_fields[f], y->path, y->rel, 0,
                         dummy, sizeof dummy) || !strcmp(vx, vy))
            distinct = 0;
        }
      if (distinct)
        append(err, errlen, "%s %s", found++ ? " or" : "; add",
               path_fields[f]);
    }
    if (found)
      append(err, errlen, " to the template to tell them apart");
    else
      append(err, errlen, "; add {index} to the template to tell them "
             "apart, or name their common folder as the input so that "
             "{dir} does");
  }
  if (more)
    append(err, errlen, " (%d more output name%s shared)", more,
           more > 1 ? "s" : "");
}

int fgt_outputs_collide(const fgt_inputs *in, const char *const *tmpls,
                        int n_tmpls, char *err, size_t errlen) {
  size_t cap = (size_t)in->n * (size_t)n_tmpls, n = 0;
  entry *e = cap ? malloc(sizeof *e * cap) : NULL;
  if (cap && !e) {
    snprintf(err, errlen, "out of memory comparing output names");
    return -1;
  }
  int rc = 0;
  for (int i = 0; i < in->n && rc == 0; i++)
    for (int t = 0; t < n_tmpls; t++) {
      char name[4096], why[1024];
      if (in->items[i].unreadable_dir ||
          fgt_output_name(name, sizeof name, tmpls[t], in->items[i].path,
                          in->items[i].rel, i, why, sizeof why))
        continue;                   /* fails on its own */
      if (!(e[n].key = normalize(name))) {
        snprintf(err, errlen, "out of memory comparing output names");
        rc = -1;
        break;
      }
      e[n].item = i;
      e[n].tmpl = t;
      n++;
    }
  if (rc == 0 && n > 1) {
    qsort(e, n, sizeof *e, cmp_entries);
    size_t first = 0, len = 0;
    int groups = 0;
    for (size_t i = 0; i < n;) {
      size_t k = i + 1;
      while (k < n && !strcmp(e[k].key, e[i].key))
        k++;
      if (k - i > 1 && groups++ == 0) {
        first = i;
        len = k - i;
      }
      i = k;
    }
    if (groups) {
      describe(in, tmpls, e + first, (int)len, groups - 1, err, errlen);
      rc = -1;
    }
  }
  for (size_t i = 0; i < n; i++)
    free(e[i].key);
  free(e);
  return rc;
}

/* Removes PATH.tmp-* files that an earlier run killed while writing path
 * left behind (its pending encodings, PATH.tmp-<n><ext>, and fgu_atomic's
 * temporaries of those and of path): this run owns path now, as shards
 * never share an output. */
void fgt_remove_stale_temporaries(const char *path) {
  const char *slash = strrchr(path, '/');
  char dir[4096];
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1,
           slash ? path : ".");
  const char *base = slash ? slash + 1 : path;
  size_t len = strlen(base);
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, base, len) || strncmp(e->d_name + len, ".tmp-", 5))
      continue;
    char stale[8192];
    snprintf(stale, sizeof stale, "%s/%s", dir, e->d_name);
    unlink(stale);
  }
  closedir(d);
}

int fgt_output_dir_make(const char *outdir, const char *name, char *err,
                        size_t errlen) {
  int dir = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    snprintf(err, errlen, "%s: cannot open the output folder: %s", outdir,
             strerror(errno));
    return -1;
  }
  const char *last = strrchr(name, '/');
  /* An output is encoded under PATH.tmp-<index><ext>, itself written
   * through PATH.tmp-<index><ext>.tmp-XXXXXX: up to FGT_TMP_ROOM bytes
   * more than its own name.  A name that leaves no room failed as
   * "PATH.tmp-0.png.tmp-XXXXXX: File name too long", a file nobody
   * named, though the output's own name was valid. */
  size_t file_len = strlen(last ? last + 1 : name);
  if (file_len > NAME_MAX - FGT_TMP_ROOM) {
    snprintf(err, errlen, "%s/%s: a file name of %zu bytes (at most %d: "
             "it is written under a temporary name up to %d bytes longer "
             "first)", outdir, name, file_len, NAME_MAX - FGT_TMP_ROOM,
             FGT_TMP_ROOM);
    close(dir);
    return -1;
  }
  for (const char *p = name; last && p < last;) {
    const char *e = strchr(p, '/');
    size_t len = (size_t)(e - p);
    char comp[NAME_MAX + 1];
    if (len == 0 || (len == 1 && *p == '.')) { /* "a//b", "./a" */
      p = e + 1;
      continue;
    }
    if (len > NAME_MAX) {
      snprintf(err, errlen, "%s/%s: a folder name of %zu bytes (at most "
               "%d)", outdir, name, len, NAME_MAX);
      close(dir);
      return -1;
    }
    memcpy(comp, p, len);
    comp[len] = '\0';
    if (mkdirat(dir, comp, 0755) != 0 && errno != EEXIST) {
      snprintf(err, errlen, "%s/%s: cannot create its folder %.*s: %s",
               outdir, name, (int)(e - name), name, strerror(errno));
      close(dir);
      return -1;
    }
    int sub = openat(dir, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                    O_CLOEXEC);
    if (sub < 0) {
      int en = errno;
      struct stat st;
      int is_link = fstatat(dir, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                    S_ISLNK(st.st_mode);
      snprintf(err, errlen, "%s/%s: %.*s inside the output folder is %s; "
               "outputs are written only below -o, never through a link",
               outdir, name, (int)(e - name), name,
               is_link ? "a symbolic link"
               : en == ENOTDIR ? "not a folder" : strerror(en));
      close(dir);
      return -1;
    }
    close(dir);
    dir = sub;
    p = e + 1;
  }
  close(dir);
  return 0;
}
