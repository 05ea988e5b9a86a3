/* tools/inputs.c - what `fieldgraph run` processes: the input list built
 * from files, directories (recursively, without recursion on the stack,
 * each directory once, regular files only, filtered by --glob), list files
 * (@list.txt, '-' for stdin), the deterministic --shard K/N selection, and
 * the {stem}/{name}/{dir}/{ext}/{index} file name templates.
 */
#include "fieldgraph/image.h"
#include "tools/inputs.h"
#include "tools/suggest.h"

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
  it->index = in->n;
  if (!it->path || !it->rel) {
    free(it->path);
    free(it->rel);
    return -1;
  }
  in->n++;
  return 0;
}

/* Default for directories: the image formats this build's io/ reads and
 * writes (PNG, JPEG, PGM/PPM; with libvips TIFF, WebP, GIF, HEIF/AVIF,
 * JPEG XL), by extension, in any case. */
static int is_image_name(const char *name, const char *glob) {
  if (glob)
    return fnmatch(glob, name, 0) == 0;
  return fg_image_format_known(name);
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- the directory walk ------------------------------------------------- */

/* The directories a walk has listed, by (st_dev, st_ino): an open
 * addressing set, so a link to an ancestor (or a bind mount's cycle) is
 * listed once instead of forever. */
typedef struct dirid {
  dev_t dev;
  ino_t ino;
  int used;
} dirid;

typedef struct dirset {
  dirid *v;
  size_t cap, n;
} dirset;

static size_t dirid_slot(const dirset *s, dev_t dev, ino_t ino) {
  uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ (uint64_t)ino;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  size_t i = (size_t)(h ^ (h >> 32)) & (s->cap - 1);
  while (s->v[i].used && !(s->v[i].dev == dev && s->v[i].ino == ino))
    i = (i + 1) & (s->cap - 1);
  return i;
}

/* Adds (dev, ino): 1 when new, 0 when listed already, -1 out of memory. */
static int dirset_add(dirset *s, dev_t dev, ino_t ino) {
  if (2 * (s->n + 1) > s->cap) {
    dirset g = {.cap = s->cap ? 2 * s->cap : 64};
    if (!(g.v = calloc(g.cap, sizeof *g.v)))
      return -1;
    for (size_t i = 0; i < s->cap; i++)
      if (s->v[i].used)
        g.v[dirid_slot(&g, s->v[i].dev, s->v[i].ino)] = s->v[i];
    g.n = s->n;
    free(s->v);
    *s = g;
  }
  size_t i = dirid_slot(s, dev, ino);
  if (s->v[i].used)
    return 0;
  s->v[i] = (dirid){dev, ino, 1};
  s->n++;
  return 1;
}

/* A directory being listed: its sorted entries and the next one. */
typedef struct frame {
  char *path, *rel;
  char **names;
  int n, next;
} frame;

static void frame_free(frame *f) {
  for (int i = 0; i < f->n; i++)
    free(f->names[i]);
  free(f->names);
  free(f->path);
  free(f->rel);
}

/* "a/b" (or b alone when a is empty), malloc'd. */
static char *join(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *s = malloc(la + lb + 2);
  if (s) {
    memcpy(s, a, la);
    s[la] = '/';
    memcpy(s + (la ? la + 1 : 0), b, lb + 1);
  }
  return s;
}

/* Lists dir's entries into f (sorted; hidden ones, and so our own
 * temporaries, left out).  0; 1 when dir cannot be opened; -1 out of
 * memory. */
static int frame_open(frame *f, char *path, char *rel) {
  memset(f, 0, sizeof *f);
  f->path = path;
  f->rel = rel;
  DIR *d = opendir(path);
  if (!d)
    return 1;
  int cap = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.')
      continue;
    if (f->n == cap) {
      cap = cap ? cap * 2 : 32;
      char **v = realloc(f->names, sizeof *v * (size_t)cap);
      if (!v)
        break;
      f->names = v;
    }
    if (!(f->names[f->n] = strdup(de->d_name)))
      break;
    f->n++;
  }
  int oom = de != NULL;
  closedir(d);
  if (oom)
    return -1;
  if (f->n > 1)       /* an empty folder has no array: qsort's is NULL */
    qsort(f->names, (size_t)f->n, sizeof *f->names, cmp_names);
  return 0;
}

static const char *special_kind(mode_t m) {
  return S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
       : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
       : "not a regular file";
}

/* Pushes an input that stands for a directory that cannot be listed:
 * the run reports it by name as an input that failed. */
static int push_unreadable(fgt_inputs *in, const char *path,
                           const char *rel) {
  if (push(in, path, rel))
    return -1;
  in->items[in->n - 1].unreadable_dir = 1;
  return 0;
}

/* Adds the images under root (sorted, depth first), each with its path
 * relative to root.  No recursion: the directories being listed are a
 * stack on the heap, so a tree thousands of levels deep is no risk.
 * Links to directories are followed only with in->follow_symlinks, and
 * each directory is listed once.  0, or -1 (out of memory) with err. */
static int walk(fgt_inputs *in, const char *root, const struct stat *root_st,
                const char *glob, char *err, size_t errlen) {
  dirset seen = {0};
  frame *stack = NULL;
  int sp = 0, cap = 0, rc = 0;
  char *path = strdup(root), *rel = strdup("");
  if (!path || !rel || dirset_add(&seen, root_st->st_dev,
                                  root_st->st_ino) < 0) {
    free(path);
    free(rel);
    rc = -1;
    goto done;
  }
  for (;;) {
    if (path) {            /* a directory to list: push it */
      if (sp == cap) {
        int c = cap ? 2 * cap : 16;
        frame *v = realloc(stack, sizeof *v * (size_t)c);
        if (!v) {
          free(path);
          free(rel);
          rc = -1;
          break;
        }
        stack = v;
        cap = c;
      }
      int o = frame_open(&stack[sp], path, rel);
      path = rel = NULL;
      if (o != 0) {
        frame *f = &stack[sp];
        /* the root's failure names the root, as given */
        rc = o < 0 ? -1 : push_unreadable(in, sp ? f->path : root,
                                          sp ? f->rel : root);
        frame_free(f);
        if (rc)
          break;
      } else {
        sp++;
      }
    }
    if (sp == 0)
      break;
    frame *f = &stack[sp - 1];
    if (f->next == f->n) {
      frame_free(f);
      sp--;
      continue;
    }
    const char *name = f->names[f->next++];
    char *cpath = join(f->path, name), *crel = join(f->rel, name);
    if (!cpath || !crel) {
      free(cpath);
      free(crel);
      rc = -1;
      break;
    }
    struct stat st;
    int is_link = 0, ok = lstat(cpath, &st) == 0;
    if (ok && S_ISLNK(st.st_mode)) {
      is_link = 1;
      ok = stat(cpath, &st) == 0;
    }
    if (!ok) {
      /* removed meanwhile, or a dangling link: nothing to read */
    } else if (S_ISDIR(st.st_mode)) {
      int added = 0;
      if (is_link && !in->follow_symlinks) {
        if (in->log)
          fprintf(in->log, "fieldgraph run: %s: skipped: a link to a folder "
                  "(--follow-symlinks follows them)\n", cpath);
      } else if ((added = dirset_add(&seen, st.st_dev, st.st_ino)) < 0) {
        rc = -1;
      } else if (!added && in->log) {
        fprintf(in->log, "fieldgraph run: %s: skipped: a folder listed "
                "already (a link to it, or a cycle)\n", cpath);
      }
      if (added > 0) {
        path = cpath;      /* listed at the top of the loop */
        rel = crel;
        continue;
      }
    } else if (is_image_name(name, glob)) {
      if (S_ISREG(st.st_mode))
        rc = push(in, cpath, crel);
      else if (in->log)
        fprintf(in->log, "fieldgraph run: %s: skipped: %s, not a regular "
                "file\n", cpath, special_kind(st.st_mode));
    }
    free(cpath);
    free(crel);
    if (rc)
      break;
  }
  while (sp > 0)
    frame_free(&stack[--sp]);
done:
  free(stack);
  free(seen.v);
  if (rc)
    snprintf(err, errlen, "%s: out of memory listing the folder", root);
  return rc;
}

/* Adds the paths of list fp (one a line; blank lines and '#' comments
 * skipped), named name in messages.  0, or -1 with err: a read error (a
 * folder given as @LIST, a closed stdin) or a line holding a NUL byte
 * (no path can; the line was cut there and another file run). */
static int add_list(fgt_inputs *in, FILE *fp, const char *name, char *err,
                    size_t errlen) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  long no = 0;
  int rc = 0;
  errno = 0;
  while (rc == 0 && (len = getline(&line, &cap, fp)) >= 0) {
    no++;
    if (memchr(line, '\0', (size_t)len)) {
      snprintf(err, errlen, "%s line %ld: expected one path a line; found "
               "a NUL byte in it", name, no);
      rc = -1;
      break;
    }
    line[strcspn(line, "\r\n")] = '\0';
    if (!line[0] || line[0] == '#')
      continue;
    const char *slash = strrchr(line, '/');
    rc = push(in, line, slash ? slash + 1 : line);
    if (rc)
      snprintf(err, errlen, "%s: out of memory reading the list", name);
  }
  if (rc == 0 && ferror(fp)) {
    int e = errno;
    snprintf(err, errlen, "%s: cannot read the list: %s", name,
             e ? strerror(e) : "read error");
    rc = -1;
  }
  free(line);
  return rc;
}

int fgt_inputs_add(fgt_inputs *in, const char *arg, const char *glob,
                   char *err, size_t errlen) {
  if (strcmp(arg, "-") == 0)
    return add_list(in, stdin, "standard input", err, errlen);
  if (arg[0] == '@') {
    FILE *fp = fopen(arg + 1, "r");
    if (!fp) {
      int e = errno;
      snprintf(err, errlen, "%s: cannot open the list: %s", arg + 1,
               strerror(e));
      return -1;
    }
    int rc = add_list(in, fp, arg + 1, err, errlen);
    fclose(fp);
    return rc;
  }
  struct stat st;
  if (stat(arg, &st) != 0) {
    int e = errno;
    snprintf(err, errlen, "%s: expected an image file, a folder, @LIST or "
             "-; found nothing there (%s)", arg, strerror(e));
    return -1;
  }
  if (S_ISDIR(st.st_mode)) {
    size_t len = strlen(arg);
    while (len > 1 && arg[len - 1] == '/')
      len--;
    char *dir = strndup(arg, len);
    int before = in->n;
    if (!dir) {
      snprintf(err, errlen, "%s: out of memory", arg);
      return -1;
    }
    int rc = walk(in, dir, &st, glob, err, errlen);
    if (rc == 0 && in->n == before) {
      snprintf(err, errlen, "%s: no images in the folder or under it "
               "(expected files named %s)", dir,
               glob ? glob : "with an image extension such as .png, .jpg, "
               ".tif or .webp");
      rc = -1;
    }
    free(dir);
    return rc;
  }
  /* a file: one that is not a regular file fails when it is read */
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
        static const char *const fields[] = {"stem", "name", "dir", "ext",
                                             "index"};
        fgt_suggest sg;
        char hint[96];
        fgt_suggest_begin(&sg, p + 1, (size_t)k);
        for (int f = 0; f < 5; f++)
          fgt_suggest_offer(&sg, fields[f], strlen(fields[f]));
        snprintf(err, errlen, "template \"%s\": unknown field {%.*s}%s "
                 "(expected {stem}, {name}, {dir}, {ext} or {index})", tmpl,
                 k, p + 1, fgt_suggest_text(&sg, hint, sizeof hint));
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
