/* tools/inputs.c - what `fieldgraph run` processes: the input list built
 * from files, directories (recursively, filtered by --glob), list files
 * (@list.txt, '-' for stdin), the deterministic --shard K/N selection, and
 * the {stem}/{name}/{dir}/{ext}/{index} file name templates.
 */
#include "tools/inputs.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int push(fgt_inputs *in, const char *path, const char *rel) {
  if (in->n == in->cap) {
    int cap = in->cap ? in->cap * 2 : 64;
    fgt_item *v = realloc(in->items, sizeof *v * (size_t)cap);
    if (!v)
      return -1;
    in->items = v;
    in->cap = cap;
  }
  fgt_item *it = &in->items[in->n];
  it->path = strdup(path);
  it->rel = strdup(rel);
  it->unreadable_dir = 0;
  if (!it->path || !it->rel) {
    free(it->path);
    free(it->rel);
    return -1;
  }
  in->n++;
  return 0;
}

/* Default for directories: the image formats io/ reads (PNG, JPEG,
 * PGM/PPM). */
static int is_image_name(const char *name, const char *glob) {
  if (glob)
    return fnmatch(glob, name, 0) == 0;
  static const char *exts[] = {"*.png", "*.PNG", "*.jpg", "*.JPG", "*.jpeg",
                               "*.JPEG", "*.ppm", "*.pgm", "*.pnm"};
  for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
    if (fnmatch(exts[i], name, 0) == 0)
      return 1;
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the images under dir (sorted, recursively); rel_base is dir's
 * path relative to the directory named on the command line. */
static int walk(fgt_inputs *in, const char *dir, const char *rel_base,
                const char *glob, char *err, size_t errlen) {
  DIR *d = opendir(dir);
  if (!d) {
    int e = errno;
    snprintf(err, errlen, "%s: cannot open directory: %s", dir, strerror(e));
    return -1;
  }
  char **names = NULL;
  int n = 0, cap = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.')
      continue;       /* hidden files, and our own temporaries */
    if (n == cap) {
      cap = cap ? cap * 2 : 32;
      char **v = realloc(names, sizeof *v * (size_t)cap);
      if (!v)
        break;
      names = v;
    }
    names[n++] = strdup(de->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_names);
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char path[4096], rel[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (*rel_base)
      snprintf(rel, sizeof rel, "%s/%s", rel_base, names[i]);
    else
      snprintf(rel, sizeof rel, "%s", names[i]);
    struct stat st;
    if (stat(path, &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode)) {
      if (walk(in, path, rel, glob, err, errlen) != 0) {
        /* an unreadable subdirectory is an input that failed: listed so
         * the run reports it by name */
        push(in, path, rel);
        in->items[in->n - 1].unreadable_dir = 1;
      }
    } else if (is_image_name(names[i], glob) && rc == 0) {
      rc = push(in, path, rel);
    }
  }
  for (int i = 0; i < n; i++)
    free(names[i]);
  free(names);
  return rc;
}

static int add_list(fgt_inputs *in, FILE *fp) {
  char line[4096];
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (!line[0] || line[0] == '#')
      continue;
    const char *slash = strrchr(line, '/');
    if (push(in, line, slash ? slash + 1 : line))
      return -1;
  }
  return 0;
}

int fgt_inputs_add(fgt_inputs *in, const char *arg, const char *glob,
                   char *err, size_t errlen) {
  if (strcmp(arg, "-") == 0)
    return add_list(in, stdin);
  if (arg[0] == '@') {
    FILE *fp = fopen(arg + 1, "r");
    if (!fp) {
      int e = errno;
      snprintf(err, errlen, "%s: cannot open the list: %s", arg + 1,
               strerror(e));
      return -1;
    }
    int rc = add_list(in, fp);
    fclose(fp);
    return rc;
  }
  struct stat st;
  if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", arg);
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
      dir[--len] = '\0';
    if (walk(in, dir, "", glob, err, errlen) != 0) {
      if (push(in, dir, dir))
        return -1;
      in->items[in->n - 1].unreadable_dir = 1;
    }
    return 0;
  }
  /* a file (or a missing one: reported when it is read) */
  const char *slash = strrchr(arg, '/');
  return push(in, arg, slash ? slash + 1 : arg);
}

uint64_t fgt_hash_id(const char *s) {
  uint64_t h = 1469598103934665603ull;       /* FNV-1a, then a mix */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

void fgt_inputs_shard(fgt_inputs *in, int k, int n) {
  int w = 0;
  for (int i = 0; i < in->n; i++) {
    if ((int)(fgt_hash_id(in->items[i].path) % (uint64_t)n) == k - 1) {
      in->items[w++] = in->items[i];
    } else {
      free(in->items[i].path);
      free(in->items[i].rel);
    }
  }
  in->n = w;
}

void fgt_inputs_free(fgt_inputs *in) {
  for (int i = 0; i < in->n; i++) {
    free(in->items[i].path);
    free(in->items[i].rel);
  }
  free(in->items);
  memset(in, 0, sizeof *in);
}

int fgt_expand(char *out, size_t size, const char *tmpl, const char *path,
               const char *rel, long index, char *err, size_t errlen) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  int stem_len = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
  const char *rslash = strrchr(rel, '/');
  int dir_len = rslash ? (int)(rslash - rel) : 0;
  size_t n = 0;
  for (const char *p = tmpl; *p;) {
    char piece[4096];
    int len;
    if (*p == '{') {
      const char *e = strchr(p, '}');
      if (!e) {
        snprintf(err, errlen, "template \"%s\": '{' without '}'", tmpl);
        return -1;
      }
      int k = (int)(e - p - 1);
      if (k == 4 && !strncmp(p + 1, "stem", 4))
        len = snprintf(piece, sizeof piece, "%.*s", stem_len, base);
      else if (k == 4 && !strncmp(p + 1, "name", 4))
        len = snprintf(piece, sizeof piece, "%s", base);
      else if (k == 3 && !strncmp(p + 1, "dir", 3))
        len = snprintf(piece, sizeof piece, "%.*s", dir_len ? dir_len : 1,
                       dir_len ? rel : ".");
      else if (k == 3 && !strncmp(p + 1, "ext", 3))
        len = snprintf(piece, sizeof piece, "%s", dot && dot != base
                                                     ? dot + 1 : "");
      else if (k == 5 && !strncmp(p + 1, "index", 5))
        len = snprintf(piece, sizeof piece, "%ld", index);
      else {
        snprintf(err, errlen, "template \"%s\": unknown field {%.*s} "
                 "(expected {stem}, {name}, {dir}, {ext} or {index})", tmpl,
                 k, p + 1);
        return -1;
      }
      p = e + 1;
    } else {
      piece[0] = *p++;
      len = 1;
    }
    if (n + (size_t)len + 1 > size) {
      snprintf(err, errlen, "template \"%s\": the name is too long", tmpl);
      return -1;
    }
    memcpy(out + n, piece, (size_t)len);
    n += (size_t)len;
  }
  out[n] = '\0';
  return 0;
}
