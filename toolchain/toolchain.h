/* toolchain/toolchain.h - the one place that spawns programs, owns the
 * on-disk cache of compiled code and loads shared objects.  The CPU
 * backend (kernels), RenderScript's host code (invokables) and its
 * preprocessor (clang -E) use it; the OpenCL backend keeps its program
 * binaries in the same kind of cache.  As in libuv, one file per job:
 *
 *   spawn.c  runs a program (output to files, optional time and output
 *            limits) and says how it ended;
 *   dl.c     loads and unloads shared objects (the only dlopen);
 *   cache.c  the cache folders: where they are, keys, verified opening
 *            (owner and mode, as ssh checks ~/.ssh), atomic writes;
 *   cc.c     clang -> cache -> loaded object, the path both C users take.
 *
 * Internal; never installed.  Prefix fgtc_.  Every call is thread safe;
 * nothing here keeps state outside the objects passed in. */
#ifndef FG_TOOLCHAIN_H
#define FG_TOOLCHAIN_H

#include "fieldgraph/status.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- spawn.c: running a program ----------------------------------------- */

/* How a spawned program ended. */
typedef enum fgtc_end {
  FGTC_EXITED,      /* code: its exit status */
  FGTC_SIGNALED,    /* code: the signal that killed it */
  FGTC_TIMED_OUT,   /* killed (with its process group) at timeout_ms */
  FGTC_TOO_MUCH,    /* killed: its output files grew past max_output */
  FGTC_NOT_RUN      /* err: why it could not start or be waited for
                       (ENOENT: no such program; an output file's open) */
} fgtc_end;

typedef struct fgtc_exit {
  fgtc_end end;
  int code;         /* exit status or signal */
  int err;          /* errno value for FGTC_NOT_RUN, else 0 */
} fgtc_exit;

/* Where a program's output goes and how long it may run; zero-initialize.
 * out_path and err_path are created (0600, truncated, never through a
 * symbolic link); the same string for both sends both streams to one
 * file; NULL keeps the caller's stream. */
typedef struct fgtc_spawn_opts {
  const char *out_path;
  const char *err_path;
  const char *watch_path;   /* another file the program writes (its -o) */
  unsigned timeout_ms;      /* 0: no limit */
  size_t max_output;        /* bytes of out, err and watch files together;
                               0: no limit */
} fgtc_spawn_opts;

/* Runs argv (argv[0] a path, not searched in PATH) with the process's
 * environment, standard input from /dev/null, and waits for it.  With a limit the program runs in its own
 * process group, which is killed when the limit is passed.  True when it
 * exited with status 0; *x says how it ended either way. */
bool fgtc_spawn(char *const argv[], const fgtc_spawn_opts *o, fgtc_exit *x);

/* How x ended, for a message ("exit status 1", "killed by signal 9",
 * "timed out after 500 ms", "could not run: No such file or directory"),
 * in buf; returns buf. */
const char *fgtc_exit_str(const fgtc_exit *x, const fgtc_spawn_opts *o,
                          char *buf, size_t size);

/* ---- dl.c: shared objects ------------------------------------------------ */

/* Loads the shared object at path (RTLD_NOW | RTLD_LOCAL); NULL with the
 * loader's message in err.  Callers other than cache.c pass paths they
 * verified (fgtc_cache_load does). */
void *fgtc_dl_open(const char *path, char *err, size_t errlen);
/* Symbol name of lib, or NULL. */
void *fgtc_dl_sym(void *lib, const char *name);
/* Unloads lib; NULL does nothing. */
void fgtc_dl_close(void *lib);

/* ---- cache.c: the cache folders ------------------------------------------ */

enum { FGTC_PATH = 4096 };

/* Where caches live when nothing names one: fg_dir ($FG_CACHE_DIR), else
 * xdg/fieldgraph ($XDG_CACHE_HOME), else home/.cache/fieldgraph ($HOME),
 * else /tmp/fieldgraph-cache-UID, private to the user (its owner and mode
 * are checked when opened, as for any cache folder).  The context's
 * reading of the environment calls it, once. */
void fgtc_cache_default(char *out, size_t size, const char *fg_dir,
                        const char *xdg, const char *home);

/* One open cache folder, ROOT/SUB.  dirfd pins the folder that was
 * verified: entries are opened, checked and loaded through it, so a
 * folder renamed or replaced after the check is never read. */
typedef struct fgtc_cache {
  int dirfd;                 /* -1: not open */
  char path[FGTC_PATH];      /* ROOT/SUB, for the compiler and messages */
  char via[64];              /* "/proc/self/fd/N": the pinned folder by
                                name, for dlopen; "" where /proc lacks */
  unsigned seq;              /* atomic: temporary names */
} fgtc_cache;

/* Opens ROOT/SUB, creating what is missing (the folders themselves 0700,
 * parents of ROOT as mkdir -p does).  ROOT and ROOT/SUB must be folders
 * (not symbolic links) owned by the user and writable by no one else, as
 * ssh requires of ~/.ssh: anything else is refused (FG_EIO with a message
 * naming the folder, its owner and mode, and what was expected), since a
 * file another user could place there would be run.  FG_EIO also when a
 * folder cannot be created.  c is closed on failure. */
fg_status fgtc_cache_open(fgtc_cache *c, const char *root, const char *sub,
                          char *err, size_t errlen);
/* Closes c (a closed one too). */
void fgtc_cache_close(fgtc_cache *c);

/* "PATH/KEY.EXT" into buf (for messages and the compiler); 0, or -1 when
 * it does not fit. */
int fgtc_cache_name(const fgtc_cache *c, const char *key, const char *ext,
                    char *buf, size_t size);

/* Opens entry name (e.g. "KEY.so") for reading: a regular file, not a
 * symbolic link, owned by the user and writable by no one else.  The fd
 * (O_CLOEXEC), or -1: missing, or refused (then removed, with a line on
 * stderr naming it and why, so the caller rebuilds it as for a miss). */
int fgtc_cache_open_entry(fgtc_cache *c, const char *name);

/* The whole entry name, verified as fgtc_cache_open_entry does, in
 * malloc'd memory with FGU_READ_PAD zero bytes after it (util/fs.h); NULL
 * when missing, refused, unreadable or longer than max. */
void *fgtc_cache_read(fgtc_cache *c, const char *name, size_t max,
                      size_t *n);

/* Writes n bytes as entry name atomically (a fresh temporary in the
 * folder, renamed over name), mode 0644.  0 or an errno value. */
int fgtc_cache_write(fgtc_cache *c, const char *name, const void *data,
                     size_t n);

/* Removes entry name; a missing one is fine. */
void fgtc_cache_remove(fgtc_cache *c, const char *name);

/* A fresh name for a temporary entry, "KEY.PID.N.EXT" (the pattern the
 * cache's tests look for), into buf (size >= 128). */
void fgtc_cache_temp(fgtc_cache *c, const char *key, const char *ext,
                     char *buf, size_t size);

/* Renames entry from to to inside the folder, replacing to; first takes
 * away write permission from group and others (a compiler's output gets
 * the umask's mode).  0 or an errno value. */
int fgtc_cache_commit(fgtc_cache *c, const char *from, const char *to);

/* Loads entry name (fgtc_cache_open_entry's checks, then dlopen through
 * the pinned folder).  NULL when missing or refused (*err ""), or when the
 * loader fails (its message in err). */
void *fgtc_cache_load(fgtc_cache *c, const char *name, char *err,
                      size_t errlen);

/* ---- cc.c: C source -> cached shared object ------------------------------ */

/* What fgtc_cc_build did. */
typedef struct fgtc_cc_result {
  bool hit;                  /* loaded from the cache */
  bool compiled;             /* the compiler ran */
  fgtc_exit exit;            /* how it ended, when it ran */
  char *log;                 /* its output when it failed (malloc'd, at
                                most 16000 bytes; NULL: none) */
  char so[FGTC_PATH + 80];   /* PATH/KEY.so and PATH/KEY.c, for messages */
  char src[FGTC_PATH + 80];
} fgtc_cc_result;

/* The shared object for key (a hash of everything that affects it: the
 * caller computes it), from the cache c when a verified one is there, else
 * built: source is written as KEY.c, compiled by `clang FLAGS -o TMP KEY.c
 * -lm` (flags NULL-terminated), renamed to KEY.so and loaded.  FG_OK with
 * *lib; else FG_EIO (a file cannot be written or renamed, the compiler
 * cannot run), FG_EBUILD (the compiler failed: r->exit and r->log; or the
 * object does not load), with a message in err that the caller prefixes
 * with what it builds.  The caller frees r->log. */
fg_status fgtc_cc_build(fgtc_cache *c, const char *clang,
                        const char *const *flags, const char *key,
                        const char *source, void **lib, fgtc_cc_result *r,
                        char *err, size_t errlen);
/* The same with LLVM's opt (path opt, NULL-terminated opt_args: the
 * passes) between clang's front end (`clang FLAGS -emit-llvm -c` with no
 * LLVM pass) and its code generator (`clang FLAGS` on the bitcode, no
 * LLVM pass): for pipelines clang's own flags cannot ask for.  opt NULL:
 * fgtc_cc_build.  The key must tell the two kinds of build apart. */
fg_status fgtc_cc_build_opt(fgtc_cache *c, const char *clang,
                            const char *const *flags, const char *opt,
                            const char *const *opt_args, const char *key,
                            const char *source, void **lib,
                            fgtc_cc_result *r, char *err, size_t errlen);

#endif
