/* util/fs.h - the file-system plumbing shared by the kernel cache
 * (toolchain/), the image writer (io/) and the graph
 * drawer (viz/): mkdir -p, reading a whole file, and replacing a file
 * atomically (temporary file in the same directory, then rename, so a
 * reader sees the old file or the whole new one, never a partial one).
 * Internal; never installed.  Prefix fgu_.
 *
 * Functions that can fail return 0 or an errno value (for the caller's
 * message); they leave errno itself unspecified.  All are thread safe.
 */
#ifndef FG_UTIL_FS_H
#define FG_UTIL_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Creates path and its missing parents (mode 0755 before the umask); an
 * existing directory is fine.  0 or an errno value. */
int fgu_mkdir_p(const char *path);

/* Zero bytes that follow the data fgu_read_file returns. */
enum { FGU_READ_PAD = 64 };

/* The whole file at path in malloc'd memory (the caller frees), followed
 * by FGU_READ_PAD zero bytes: text comes NUL-terminated, and an OpenCL
 * driver peeking past a short binary's end finds zeros.  The length goes
 * to *n.  NULL (and *n = 0) when the file is missing, not a regular file,
 * unreadable, longer than max bytes, or memory runs out. */
void *fgu_read_file(const char *path, size_t max, size_t *n);
/* The same from an open file descriptor (read from its current offset,
 * which should be the start; fd stays open). */
void *fgu_read_fd(int fd, size_t max, size_t *n);

/* Mode argument meaning: the mode of the file being replaced, else 0666
 * minus the process's umask (what fopen would give a new file). */
enum { FGU_MODE_DEFAULT = -1 };

/* An atomic replacement of a file under way: write through fp (or to the
 * file named tmp), then fgu_atomic_commit or fgu_atomic_abort. */
typedef struct fgu_atomic {
  char *tmp; /* PATH.tmp-XXXXXX, malloc'd (PATH's base name cut to fit
              * NAME_MAX) */
  FILE *fp;  /* open for writing; NULL once closed */
} fgu_atomic;

/* Creates a fresh temporary file next to path (mkstemp, so concurrent
 * writers never share one) with the given mode (or FGU_MODE_DEFAULT) and
 * opens it in *a.  0, or an errno value with nothing left behind. */
int fgu_atomic_begin(fgu_atomic *a, const char *path, int mode);
/* Closes the stream, flushing it; 0 or the write's errno value.  The
 * temporary file stays until commit or abort.  Closing twice is fine. */
int fgu_atomic_close(fgu_atomic *a);
/* Closes the stream if still open and renames the temporary file over
 * path.  0, or an errno value (of the write or the rename) with the
 * temporary file removed.  Either way a is released. */
int fgu_atomic_commit(fgu_atomic *a, const char *path);
/* Closes and removes the temporary file and releases a. */
void fgu_atomic_abort(fgu_atomic *a);

/* Writes n bytes of data as the file path, atomically (above).  0 or an
 * errno value, with no temporary file left behind. */
int fgu_write_file_atomic(const char *path, const void *data, size_t n,
                          int mode);

/* True when the filesystem holding dir has no block or no inode left for
 * an unprivileged writer: what to name when a program writing there failed
 * without a word (its log could not be written either). */
bool fgu_dir_full(const char *dir);

/* "DIR/KEY.EXT" into buf, the name of a cache entry.  0, or -1 when it
 * does not fit in size bytes. */
int fgu_cache_path(char *buf, size_t size, const char *dir, const char *key,
                   const char *ext);

#endif
