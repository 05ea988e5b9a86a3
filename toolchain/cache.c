/* toolchain/cache.c - the on-disk cache of compiled code (CPU kernels,
 * RenderScript invokables, OpenCL program binaries): where it lives, and
 * every access to its folders and entries.
 *
 * A cached shared object is run by dlopen, so whoever can place a file
 * under a cache name can run code in the user's process.  The cache is
 * therefore trusted only as ssh trusts ~/.ssh: a folder (ROOT and
 * ROOT/SUB) must be the user's own and writable by no one else, and is
 * created 0700; an entry must be a regular file (not a symbolic link)
 * owned by the user and writable by no one else, or it is removed and
 * rebuilt.  The checks look at what was opened (fstat of an fd opened with
 * O_NOFOLLOW), and every later access goes through the verified folder's
 * fd (openat, renameat; dlopen by "/proc/self/fd/N/NAME"), so replacing a
 * folder after its check changes nothing.  Inside a verified folder only
 * the user (or root) can add, rename or remove entries, which closes the
 * window between an entry's check and its dlopen. */
#define _GNU_SOURCE
#include "toolchain.h"
#include "util/fs.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fgtc_cache_default(char *out, size_t size, const char *fg_dir,
                        const char *xdg, const char *home) {
  if (fg_dir && *fg_dir)
    snprintf(out, size, "%s", fg_dir);
  else if (xdg && *xdg)
    snprintf(out, size, "%.4000s/fieldgraph", xdg);
  else if (home && *home)
    snprintf(out, size, "%.4000s/.cache/fieldgraph", home);
  else   /* a per-user folder (as tmux's), never one shared by all */
    snprintf(out, size, "/tmp/fieldgraph-cache-%u", (unsigned)geteuid());
}

/* Why st (of path) is no cache folder or entry of this user, in buf;
 * NULL when it is fine.  want_dir: a folder, else a regular file. */
static const char *untrusted(const struct stat *st, bool want_dir, char *buf,
                             size_t size) {
  const char *kind = S_ISDIR(st->st_mode)   ? "a folder"
                     : S_ISREG(st->st_mode) ? "a file"
                     : S_ISLNK(st->st_mode) ? "a symbolic link"
                                            : "not a file or folder";
  bool kind_ok = want_dir ? S_ISDIR(st->st_mode) : S_ISREG(st->st_mode);
  if (kind_ok && st->st_uid == geteuid() && !(st->st_mode & 022))
    return NULL;
  snprintf(buf, size, "%s owned by uid %u with mode %04o (expected %s "
           "owned by uid %u and writable by no one else)", kind,
           (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777),
           want_dir ? "a folder" : "a regular file", (unsigned)geteuid());
  return buf;
}

/* Opens folder name in at (AT_FDCWD: a path), creating it 0700 when
 * missing, and checks it; the fd, or -1 with a message. */
static int open_folder(int at, const char *name, const char *shown,
                       char *err, size_t errlen) {
  char ebuf[128], why[256];
  if (mkdirat(at, name, 0700) != 0 && errno == ENOENT && at == AT_FDCWD) {
    /* missing parents: made as mkdir -p makes them */
    char *parent = strdup(name);
    char *slash = parent ? strrchr(parent, '/') : NULL;
    if (slash && slash != parent) {
      *slash = 0;
      (void)fgu_mkdir_p(parent);
    }
    free(parent);
    (void)mkdirat(at, name, 0700);
  }
  const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  int fd = openat(at, name, flags | O_NOFOLLOW);
  struct stat st;
  /* A symbolic link of the user's own (a cache kept on another disk) is
   * followed, and its target checked; anyone else's is refused.  (Linux
   * says ENOTDIR, not ELOOP, for a link opened with O_DIRECTORY.) */
  if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) &&
      fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK(st.st_mode) && st.st_uid == geteuid())
    fd = openat(at, name, flags);
  if (fd < 0) {
    int e = errno;
    if ((e == ELOOP || e == ENOTDIR) &&
        fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        untrusted(&st, true, why, sizeof why)) {
      snprintf(err, errlen, "the cache folder %s is %s; set FG_CACHE_DIR "
               "(or the cache_dir option) to a folder of your own", shown,
               why);
      return -1;
    }
    snprintf(err, errlen, "cannot create the cache folder %s: %s", shown,
             fgu_strerror(e, ebuf, sizeof ebuf));
    return -1;
  }
  if (fstat(fd, &st) != 0 || untrusted(&st, true, why, sizeof why)) {
    snprintf(err, errlen, "refusing the cache folder %s: it is %s, so "
             "others could place code there that would run; make it "
             "private (chmod 700) or set FG_CACHE_DIR (or the cache_dir "
             "option) to a folder of your own", shown, why);
    close(fd);
    return -1;
  }
  return fd;
}

fg_status fgtc_cache_open(fgtc_cache *c, const char *root, const char *sub,
                          char *err, size_t errlen) {
  *c = (fgtc_cache){.dirfd = -1};
  char r[FGTC_PATH];
  size_t n = root ? strlen(root) : 0;
  while (n > 1 && root[n - 1] == '/')   /* "x/" would follow a link */
    n--;
  if (n == 0 || n >= sizeof r ||
      snprintf(c->path, sizeof c->path, "%.*s/%s", (int)n, root, sub) >=
          (int)sizeof c->path) {
    snprintf(err, errlen, "cache folder '%s' is %s", root ? root : "(null)",
             n ? "too long" : "empty");
    return FG_EIO;
  }
  snprintf(r, sizeof r, "%.*s", (int)n, root);
  int rootfd = open_folder(AT_FDCWD, r, r, err, errlen);
  if (rootfd < 0)
    return FG_EIO;
  c->dirfd = open_folder(rootfd, sub, c->path, err, errlen);
  close(rootfd);
  if (c->dirfd < 0)
    return FG_EIO;
  /* The pinned folder by name, where /proc shows it. */
  struct stat a, b;
  snprintf(c->via, sizeof c->via, "/proc/self/fd/%d", c->dirfd);
  if (stat(c->via, &a) != 0 || fstat(c->dirfd, &b) != 0 ||
      a.st_dev != b.st_dev || a.st_ino != b.st_ino)
    c->via[0] = 0;
  return FG_OK;
}

void fgtc_cache_close(fgtc_cache *c) {
  if (c->dirfd >= 0)
    close(c->dirfd);
  c->dirfd = -1;
}

int fgtc_cache_name(const fgtc_cache *c, const char *key, const char *ext,
                    char *buf, size_t size) {
  return fgu_cache_path(buf, size, c->path, key, ext);
}

int fgtc_cache_open_entry(fgtc_cache *c, const char *name) {
  int fd = openat(c->dirfd, name,
                  O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  char why[256];
  if (fd < 0 && errno != ELOOP)
    return -1;                    /* missing (or unreadable: rebuilt) */
  if (fd < 0 && fstatat(c->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return -1;
  if (fd >= 0 && fstat(fd, &st) != 0) {
    close(fd);
    return -1;
  }
  if (!untrusted(&st, false, why, sizeof why))
    return fd;
  if (fd >= 0)
    close(fd);
  unlinkat(c->dirfd, name, 0);
  fprintf(stderr, "fieldgraph: not using the cached %s/%s: it is %s; "
          "removed, to be rebuilt\n", c->path, name, why);
  return -1;
}

void *fgtc_cache_read(fgtc_cache *c, const char *name, size_t max,
                      size_t *n) {
  *n = 0;
  int fd = fgtc_cache_open_entry(c, name);
  if (fd < 0)
    return NULL;
  void *data = fgu_read_fd(fd, max, n);
  close(fd);
  return data;
}

void fgtc_cache_temp(fgtc_cache *c, const char *key, const char *ext,
                     char *buf, size_t size) {
  unsigned q = __atomic_add_fetch(&c->seq, 1, __ATOMIC_RELAXED);
  snprintf(buf, size, "%s.%d.%u.%s", key, (int)getpid(), q, ext);
}

int fgtc_cache_write(fgtc_cache *c, const char *name, const void *data,
                     size_t n) {
  char tmp[FGTC_PATH];
  int fd = -1, e = 0;
  for (int tries = 0; fd < 0 && tries < 100; tries++) {
    unsigned q = __atomic_add_fetch(&c->seq, 1, __ATOMIC_RELAXED);
    snprintf(tmp, sizeof tmp, "%.200s.tmp-%d-%u", name, (int)getpid(), q);
    fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                O_CLOEXEC, 0644);
    e = fd < 0 ? errno : 0;
    if (fd < 0 && e != EEXIST)    /* EEXIST: a dead process's; next */
      return e ? e : EIO;
  }
  if (fd < 0)
    return e ? e : EIO;
  (void)fchmod(fd, 0644);
  const char *p = data;
  while (n > 0 && e == 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      e = w < 0 && errno ? errno : EIO;
    else {
      p += w;
      n -= (size_t)w;
    }
  }
  if (close(fd) != 0 && e == 0)
    e = errno ? errno : EIO;
  if (e == 0 && renameat(c->dirfd, tmp, c->dirfd, name) != 0)
    e = errno ? errno : EIO;
  if (e != 0)
    unlinkat(c->dirfd, tmp, 0);
  return e;
}

void fgtc_cache_remove(fgtc_cache *c, const char *name) {
  unlinkat(c->dirfd, name, 0);
}

int fgtc_cache_commit(fgtc_cache *c, const char *from, const char *to) {
  struct stat st;
  if (fstatat(c->dirfd, from, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno ? errno : EIO;
  if ((st.st_mode & 022) &&
      fchmodat(c->dirfd, from, st.st_mode & 07755, 0) != 0)
    return errno ? errno : EIO;
  return renameat(c->dirfd, from, c->dirfd, to) == 0 ? 0
                                                     : (errno ? errno : EIO);
}

void *fgtc_cache_load(fgtc_cache *c, const char *name, char *err,
                      size_t errlen) {
  if (errlen)
    err[0] = 0;
  int fd = fgtc_cache_open_entry(c, name);
  if (fd < 0)
    return NULL;
  /* Through the pinned folder: the name resolves to the entry just
   * checked, which only this user can have replaced since. */
  char path[FGTC_PATH + 256];
  snprintf(path, sizeof path, "%s/%s", c->via[0] ? c->via : c->path, name);
  void *lib = fgtc_dl_open(path, err, errlen);
  close(fd);
  return lib;
}
