/* rs/pp.c - a script's preprocessing: clang's own preprocessor (clang -E)
 * runs over the script before the tokenizer sees it, so #include of the
 * script's local headers, #if / #ifdef and function-like macros behave as
 * in the RenderScript compiler (itself clang).  The script's text goes to
 * a private temporary directory behind a #line naming the user's file;
 * quoted includes search the script's directory, then the user's include
 * paths; the RenderScript system headers (rs_debug.rsh, rs_math.rsh, ...)
 * are empty stand-ins there, because fieldgraph provides the runtime
 * itself.  clang's output keeps line markers, which the tokenizer (lex.c)
 * reads, so every later message points at the user's file and line.
 * Errors come back as clang's first "file:line:col: message".
 *
 * A hostile script cannot make the preprocessor run away: its output and
 * its log are bounded in size, its run in time (past a bound it is killed
 * and the message names the bound), a script's own #include of something
 * that is not a regular file (a FIFO that would block, a device) or #if
 * nested past FGR_MAX_NESTING is refused before clang runs, a clang that
 * dies of a signal is reported so, and the temporary directory (under $TMPDIR,
 * named for the process) is removed on every path, or by the next
 * preprocessing of any process once its owner died without removing it. */
#define _GNU_SOURCE
#include "config.h"
#include "rs_impl.h"
#include "toolchain/toolchain.h"
#include "util/fs.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The RenderScript headers a script may include; they declare what
 * fieldgraph's runtime (compat.c) defines. */
static const char *const system_headers[] = {
  "rs_allocation.rsh", "rs_allocation_create.rsh", "rs_allocation_data.rsh",
  "rs_atomic.rsh", "rs_convert.rsh", "rs_core.rsh", "rs_core_math.rsh",
  "rs_debug.rsh", "rs_element.rsh", "rs_for_each.rsh", "rs_graphics.rsh",
  "rs_io.rsh", "rs_math.rsh", "rs_matrix.rsh", "rs_mesh.rsh",
  "rs_object_info.rsh", "rs_object_types.rsh", "rs_program.rsh",
  "rs_quaternion.rsh", "rs_sampler.rsh", "rs_time.rsh", "rs_types.rsh",
  "rs_value_types.rsh", "rs_vector_math.rsh", "rs_cl.rsh", "rs_atomic.rsh",
  "rs_graphics_types.rsh", NULL};

/* clang's first error in log as "file:line:col: message" (its "error: "
 * and "fatal error: " words dropped) into err. */
void fgr_clang_first_error(const char *log, const char *file, char *err,
                           size_t errlen) {
  const char *line = log;
  while (line && *line) {
    const char *nl = strchr(line, '\n');
    int n = nl ? (int)(nl - line) : (int)strlen(line);
    const char *e = strstr(line, ": fatal error: ");
    size_t skip = 15;
    if (!e || e > line + n) {
      e = strstr(line, ": error: ");
      skip = 9;
    }
    if (e && e < line + n) {
      snprintf(err, errlen, "%.*s: %.*s", (int)(e - line), line,
               (int)(line + n - e - skip), e + skip);
      return;
    }
    line = nl ? nl + 1 : NULL;
  }
  snprintf(err, errlen, "%s failed: %.300s", file,
           log && *log ? log : "(no message)");
}

/* Removes dir, the temporary directory fgr_preprocess made: its files,
 * those clang left (a killed clang leaves its output's temporary), and its
 * sys/ folder of headers.  Links are removed, never followed. */
static void remove_tree(const char *dir) {
  char p[4600];
  for (int level = 0; level < 2; level++) {
    const char *d = dir;
    char sub[4300];
    if (level == 0) {
      snprintf(sub, sizeof sub, "%s/sys", dir);
      d = sub;
    }
    DIR *h = opendir(d);
    if (!h)
      continue;
    for (struct dirent *e; (e = readdir(h));) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
          (level == 1 && !strcmp(e->d_name, "sys")))
        continue;
      snprintf(p, sizeof p, "%s/%s", d, e->d_name);
      unlink(p);
    }
    closedir(h);
    rmdir(d);
  }
}

/* The directory temporaries go to: $TMPDIR when it names one, else /tmp. */
static const char *tmp_dir(void) {
  const char *t = getenv("TMPDIR");
  return t && *t == '/' && strlen(t) < 4000 ? t : "/tmp";
}

/* Removes the fg-rs-PID-* directories under tmp of processes that are
 * gone (killed while preprocessing): only directories of this user, and
 * only the files fgr_preprocess makes there. */
static void remove_stale(const char *tmp) {
  DIR *d = opendir(tmp);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    if (strncmp(e->d_name, "fg-rs-", 6) || e->d_name[6] < '1' ||
        e->d_name[6] > '9')
      continue;
    long pid = strtol(e->d_name + 6, &end, 10);
    if (*end != '-' || pid <= 0 || pid == (long)getpid() ||
        kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue;
    char p[4200];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", tmp, e->d_name);
    if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && sb.st_uid == getuid())
      remove_tree(p);
  }
  closedir(d);
}

/* Replaces every mention of the temporary folder dir in the
 * preprocessor's output (its line markers name the folder's files) by
 * "fg-rs": the same script gives the same text on every load, so what is
 * cached by its hash (the invokables' compiled code) is found again.
 * Returns the new length; text stays NUL-terminated. */
static size_t unname_temporaries(char *text, size_t len, const char *dir) {
  static const char as[] = "fg-rs";
  size_t dl = strlen(dir), w = 0;
  if (dl < sizeof as - 1)
    return len;
  for (size_t r = 0; r < len;) {
    if (text[r] == dir[0] && r + dl <= len && !memcmp(text + r, dir, dl)) {
      memcpy(text + w, as, sizeof as - 1);
      w += sizeof as - 1;
      r += dl;
    } else {
      text[w++] = text[r++];
    }
  }
  text[w] = 0;
  return w;
}

/* Refuses (false, "file:line:col: message" in err) a directive of the
 * script's own text that clang would not survive: an #include whose file,
 * found as clang would (absolute, the script's directory for quotes, the
 * include paths), exists but is not a regular file (clang would block on
 * a FIFO or read a device forever), or an #if or #elif whose parentheses
 * nest deeper than FGR_MAX_NESTING (clang's evaluator recurses on them
 * until its stack overflows).  Headers' own directives are left to the
 * preprocessor's bounds. */
static bool check_directives(const fgr_pp *pp, const char *file,
                             const char *sdir, const char *text, size_t len,
                             char *err, size_t errlen) {
  int line = 1;
  for (size_t i = 0; i < len; line++) {
    size_t e = i;
    while (e < len && text[e] != '\n')
      e++;
    size_t k = i;
    while (k < e && (text[k] == ' ' || text[k] == '\t'))
      k++;
    if (k < e && text[k] == '#') {
      k++;
      while (k < e && (text[k] == ' ' || text[k] == '\t'))
        k++;
      if ((e - k > 2 && !memcmp(text + k, "if", 2)) ||
          (e - k > 4 && !memcmp(text + k, "elif", 4))) {
        int depth = 0;
        for (size_t q = k; q < e; q++) {
          depth += text[q] == '(';
          depth -= text[q] == ')';
          if (depth > FGR_MAX_NESTING) {
            snprintf(err, errlen, "%s:%d:%d: parentheses in #%s nested "
                     "deeper than %d levels", file, line, (int)(q - i) + 1,
                     text[k] == 'i' ? "if" : "elif", FGR_MAX_NESTING);
            return false;
          }
        }
      }
      if (e - k > 7 && !memcmp(text + k, "include", 7)) {
        k += 7;
        while (k < e && (text[k] == ' ' || text[k] == '\t'))
          k++;
        char close = k < e && text[k] == '"' ? '"' : k < e && text[k] == '<'
                                                         ? '>' : 0;
        size_t q = k + 1;
        while (close && q < e && text[q] != close)
          q++;
        if (close && q < e && q - k - 1 < 1024) {
          char name[1024], path[4096 + 1024 + 2];
          snprintf(name, sizeof name, "%.*s", (int)(q - k - 1), text + k + 1);
          struct stat sb;
          bool found = false;
          for (int d = close == '"' ? -2 : -1; !found && d < pp->n_dirs;
               d++) {
            if (name[0] == '/')
              snprintf(path, sizeof path, "%s", name);
            else if (d == -2)
              snprintf(path, sizeof path, "%s/%s", sdir, name);
            else if (d == -1)
              continue;
            else
              snprintf(path, sizeof path, "%s/%s", pp->dirs[d], name);
            found = stat(path, &sb) == 0;
            if (name[0] == '/')
              break;
          }
          if (found && !S_ISREG(sb.st_mode)) {
            snprintf(err, errlen, "%s:%d:%d: #include %c%s%c: %s is not a "
                     "regular file (%s)", file, line, (int)(k - i) + 1,
                     close == '"' ? '"' : '<', name, close, path,
                     S_ISFIFO(sb.st_mode) ? "a FIFO"
                     : S_ISDIR(sb.st_mode) ? "a directory"
                     : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device"
                     : "a special file");
            return false;
          }
        }
      }
    }
    i = e + 1;
  }
  return true;
}

char *fgr_preprocess(const fgr_pp *pp, const char *file, const char *text,
                     size_t len, size_t *out_len, char *err, size_t errlen) {
  /* the script's directory */
  char sdir[4096] = ".";
  const char *slash = strrchr(file, '/');
  if (slash)
    snprintf(sdir, sizeof sdir, "%.*s", (int)(slash - file) ? (int)(slash - file)
                                                              : 1, file);
  if (!check_directives(pp, file, sdir, text, len, err, errlen))
    return NULL;
  const char *tmp = tmp_dir();
  remove_stale(tmp);
  char dir[4100];
  snprintf(dir, sizeof dir, "%s/fg-rs-%ld-XXXXXX", tmp, (long)getpid());
  if (!mkdtemp(dir)) {
    snprintf(err, errlen, "%s: cannot create a temporary directory for the "
             "preprocessor in %s: %s", file, tmp, strerror(errno));
    return NULL;
  }
  char *result = NULL;
  char p[4400], sys[4200], src[4200], out[4200], log[4200];
  snprintf(sys, sizeof sys, "%s/sys", dir);
  snprintf(src, sizeof src, "%s/src.rs", dir);
  snprintf(out, sizeof out, "%s/out.i", dir);
  snprintf(log, sizeof log, "%s/log", dir);
  bool ok = mkdir(sys, 0700) == 0;
  for (int k = 0; ok && system_headers[k]; k++) {
    snprintf(p, sizeof p, "%s/%s", sys, system_headers[k]);
    ok = fgu_write_file_atomic(p, "", 0, 0600) == 0;
  }
  /* the text, behind a #line naming the user's file */
  fgu_buf b = {0};
  fgu_buf_puts(&b, "#line 1 \"");
  for (const char *c = file; *c; c++) {
    if (*c == '"' || *c == '\\')
      fgu_buf_putc(&b, '\\');
    fgu_buf_putc(&b, *c);
  }
  fgu_buf_puts(&b, "\"\n");
  size_t head = b.len;
  for (size_t i = 0; i < len; i++)
    fgu_buf_putc(&b, text[i]);
  if (b.oom || b.len != head + len) {
    snprintf(err, errlen, "%s: out of memory", file);
    fgu_buf_free(&b);
    remove_tree(dir);
    return NULL;
  }
  ok = ok && fgu_write_file_atomic(src, b.s, b.len, 0600) == 0;
  fgu_buf_free(&b);
  if (!ok) {
    snprintf(err, errlen, "%s: cannot write the preprocessor's input in %s",
             file, dir);
    remove_tree(dir);
    return NULL;
  }
  int n_args = 20 + 2 * pp->n_dirs;
  char **argv = calloc((size_t)n_args, sizeof *argv);
  if (!argv) {
    snprintf(err, errlen, "%s: out of memory", file);
    remove_tree(dir);
    return NULL;
  }
  const char *clang = pp->clang && *pp->clang ? pp->clang : FG_CLANG_PATH;
  int n = 0;
  argv[n++] = (char *)clang;
  argv[n++] = "-E";
  argv[n++] = "-x";
  argv[n++] = "c";
  argv[n++] = "-std=gnu11";
  argv[n++] = "-nostdinc";
  argv[n++] = "-w";
  argv[n++] = "-DRS_VERSION=24";
  argv[n++] = "-iquote";
  argv[n++] = sdir;
  for (int k = 0; k < pp->n_dirs; k++) {
    argv[n++] = "-I";
    argv[n++] = (char *)pp->dirs[k];
  }
  argv[n++] = "-idirafter";
  argv[n++] = sys;
  argv[n++] = src;
  argv[n] = NULL;
  int timeout_ms = pp->timeout_ms > 0 ? pp->timeout_ms : FGR_PP_TIMEOUT_MS;
  size_t max_bytes = pp->max_bytes ? pp->max_bytes : FGR_PP_MAX_BYTES;
  fgtc_spawn_opts so = {.out_path = out, .err_path = log,
                        .timeout_ms = (unsigned)timeout_ms,
                        .max_output = max_bytes};
  fgtc_exit x;
  bool ran = fgtc_spawn(argv, &so, &x);
  free(argv);
  size_t n_out = 0;
  if (x.end == FGTC_NOT_RUN) {
    snprintf(err, errlen, "%s: could not run the preprocessor %s: %s "
             "(install clang, or name one in fg_rs_options.clang)", file,
             clang, strerror(x.err));
  } else if (x.end != FGTC_EXITED) {
    char why[200];
    snprintf(err, errlen, "%s: the preprocessor %s was stopped: %s", file,
             clang, fgtc_exit_str(&x, &so, why, sizeof why));
  } else if (!ran) {
    char *msg = fgu_read_file(log, 1 << 20, &n_out);
    char what[4200];
    snprintf(what, sizeof what, "%s: the preprocessor", file);
    fgr_clang_first_error(msg, what, err, errlen);
    free(msg);
  } else {
    result = fgu_read_file(out, max_bytes, &n_out);
    if (!result)
      snprintf(err, errlen, "%s: cannot read the preprocessor's output (or "
               "it passed %zu bytes)", file, max_bytes);
    else
      n_out = unname_temporaries(result, n_out, dir);
    *out_len = n_out;
  }
  remove_tree(dir);
  return result;
}
