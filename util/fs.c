/* util/fs.c - mkdir -p, whole-file reads and atomic file replacement, one
 * implementation for the kernel caches, the image writer and the graph
 * drawer (util/fs.h has the contracts).  No state: every call is thread
 * safe. */
#define _GNU_SOURCE
#include "fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* errno, or EIO where a failing call left it 0. */
static int last_error(void) { return errno ? errno : EIO; }

int fgu_mkdir_p(const char *path) {
  if (!path || !*path)
    return EINVAL;
  char *tmp = strdup(path);
  if (!tmp)
    return ENOMEM;
  int rc = 0;
  for (char *p = tmp + 1; *p && rc == 0; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        rc = last_error();
      *p = '/';
    }
  struct stat st;
  if (rc == 0 && mkdir(tmp, 0755) != 0)
    rc = errno != EEXIST                          ? last_error()
         : stat(tmp, &st) == 0 && S_ISDIR(st.st_mode) ? 0
                                                  : ENOTDIR;
  free(tmp);
  return rc;
}

void *fgu_read_fd(int fd, size_t max, size_t *n) {
  *n = 0;
  struct stat st;
  unsigned char *data = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
      (unsigned long long)st.st_size <= max)
    data = calloc(1, (size_t)st.st_size + FGU_READ_PAD);
  size_t got = 0;
  while (data && got < (size_t)st.st_size) {
    ssize_t r = read(fd, data + got, (size_t)st.st_size - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  /* A file that shrank while we read it is as good as unreadable. */
  if (data && got != (size_t)st.st_size) {
    free(data);
    return NULL;
  }
  if (data)
    *n = got;
  return data;
}

void *fgu_read_file(const char *path, size_t max, size_t *n) {
  *n = 0;
  /* non-blocking: opening a FIFO for reading waits for a writer, forever;
   * fgu_read_fd's fstat refuses it (O_NONBLOCK is nothing to a regular
   * file's reads) */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    return NULL;
  void *data = fgu_read_fd(fd, max, n);
  close(fd);
  return data;
}

/* Permission bits for a new file at path: those of the file it replaces,
 * else 0666 minus the umask (read from /proc, since umask() cannot be
 * queried without changing it, which would not be thread safe), else the
 * 0600 that mkstemp already gave. */
static mode_t default_mode(const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
    return st.st_mode & 0777;
  mode_t mode = 0600;
  FILE *f = fopen("/proc/self/status", "r");
  if (!f)
    return mode;
  char line[128];
  while (fgets(line, sizeof line, f)) {
    unsigned int mask;
    if (sscanf(line, "Umask: %o", &mask) == 1) {
      mode = 0666 & ~(mode_t)mask;
      break;
    }
  }
  fclose(f);
  return mode;
}

int fgu_atomic_begin(fgu_atomic *a, const char *path, int mode) {
  static const char suffix[] = ".tmp-XXXXXX";
  *a = (fgu_atomic){0};
  size_t len = strlen(path);
  /* the temporary's own name must fit NAME_MAX: a valid name of over
   * NAME_MAX - 11 bytes made the write fail as "File name too long";
   * its base name is cut short for the temporary then */
  const char *slash = strrchr(path, '/');
  size_t base = strlen(slash ? slash + 1 : path);
  size_t room = NAME_MAX - (sizeof suffix - 1);
  if (base > room)
    len -= base - room;
  a->tmp = malloc(len + sizeof suffix);
  if (!a->tmp)
    return ENOMEM;
  memcpy(a->tmp, path, len);
  memcpy(a->tmp + len, suffix, sizeof suffix);
  int fd = mkstemp(a->tmp);
  if (fd < 0) {
    int e = last_error();
    free(a->tmp);
    a->tmp = NULL;
    return e;
  }
  /* mkstemp gives 0600; a failed fchmod only leaves the file private. */
  (void)fchmod(fd, mode == FGU_MODE_DEFAULT ? default_mode(path)
                                            : (mode_t)mode);
  a->fp = fdopen(fd, "wb");
  if (!a->fp) {
    int e = last_error();
    close(fd);
    unlink(a->tmp);
    free(a->tmp);
    a->tmp = NULL;
    return e;
  }
  return 0;
}

int fgu_atomic_close(fgu_atomic *a) {
  if (!a->fp)
    return 0;
  int e = 0;
  if (ferror(a->fp))
    e = EIO;
  if (fclose(a->fp) != 0 && e == 0)
    e = last_error();
  a->fp = NULL;
  return e;
}

int fgu_atomic_commit(fgu_atomic *a, const char *path) {
  int e = fgu_atomic_close(a);
  if (e == 0 && rename(a->tmp, path) != 0)
    e = last_error();
  if (e != 0)
    unlink(a->tmp);
  free(a->tmp);
  a->tmp = NULL;
  return e;
}

void fgu_atomic_abort(fgu_atomic *a) {
  fgu_atomic_close(a);
  if (a->tmp)
    unlink(a->tmp);
  free(a->tmp);
  a->tmp = NULL;
}

int fgu_write_file_atomic(const char *path, const void *data, size_t n,
                          int mode) {
  fgu_atomic a;
  int e = fgu_atomic_begin(&a, path, mode);
  if (e != 0)
    return e;
  if (n > 0 && fwrite(data, 1, n, a.fp) != n) {
    e = last_error();
    fgu_atomic_abort(&a);
    return e;
  }
  return fgu_atomic_commit(&a, path);
}

bool fgu_dir_full(const char *dir) {
  struct statvfs sv;
  return statvfs(dir, &sv) == 0 &&
         (sv.f_bavail == 0 || (sv.f_files > 0 && sv.f_favail == 0));
}

int fgu_cache_path(char *buf, size_t size, const char *dir, const char *key,
                   const char *ext) {
  int n = snprintf(buf, size, "%s/%s.%s", dir, key, ext);
  return n >= 0 && (size_t)n < size ? 0 : -1;
}
