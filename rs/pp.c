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
 * Errors come back as clang's first "file:line:col: message". */
#define _GNU_SOURCE
#include "config.h"
#include "rs_impl.h"
#include "toolchain/toolchain.h"
#include "util/fs.h"

#include <errno.h>
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

static void remove_tree(const char *dir) {
  char p[4096];
  for (int k = 0; system_headers[k]; k++) {
    snprintf(p, sizeof p, "%s/sys/%s", dir, system_headers[k]);
    unlink(p);
  }
  static const char *const files[] = {"src.rs", "out.i", "log", NULL};
  for (int k = 0; files[k]; k++) {
    snprintf(p, sizeof p, "%s/%s", dir, files[k]);
    unlink(p);
  }
  snprintf(p, sizeof p, "%s/sys", dir);
  rmdir(p);
  rmdir(dir);
}

char *fgr_preprocess(const fgr_pp *pp, const char *file, const char *text,
                     size_t len, size_t *out_len, char *err, size_t errlen) {
  char dir[] = "/tmp/fg-rs-XXXXXX";
  if (!mkdtemp(dir)) {
    snprintf(err, errlen, "%s: cannot create a temporary directory for the "
             "preprocessor: %s", file, strerror(errno));
    return NULL;
  }
  char *result = NULL;
  char p[4200], sys[64], src[64], out[64], log[64];
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
  /* the script's directory */
  char sdir[4096] = ".";
  const char *slash = strrchr(file, '/');
  if (slash)
    snprintf(sdir, sizeof sdir, "%.*s", (int)(slash - file) ? (int)(slash - file)
                                                              : 1, file);
  int n_args = 20 + 2 * pp->n_dirs;
  char **argv = calloc((size_t)n_args, sizeof *argv);
  if (!argv) {
    snprintf(err, errlen, "%s: out of memory", file);
    remove_tree(dir);
    return NULL;
  }
  int n = 0;
  argv[n++] = (char *)(pp->clang && *pp->clang ? pp->clang : FG_CLANG_PATH);
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
  argv[n++] = "-o";
  argv[n++] = out;
  argv[n] = NULL;
  fgtc_spawn_opts so = {.err_path = log};
  fgtc_exit x;
  bool ran = fgtc_spawn(argv, &so, &x);
  free(argv);
  size_t n_out = 0;
  if (!ran) {
    char *msg = fgu_read_file(log, 1 << 20, &n_out);
    char what[4200];
    snprintf(what, sizeof what, "%s: the preprocessor", file);
    if (x.end != FGTC_EXITED)
      snprintf(err, errlen, "%s: could not run the preprocessor %s (install "
               "clang, or name one in fg_rs_options.clang)", file,
               pp->clang && *pp->clang ? pp->clang : FG_CLANG_PATH);
    else
      fgr_clang_first_error(msg, what, err, errlen);
    free(msg);
  } else {
    result = fgu_read_file(out, (size_t)1 << 30, &n_out);
    if (!result)
      snprintf(err, errlen, "%s: cannot read the preprocessor's output",
               file);
    *out_len = n_out;
  }
  remove_tree(dir);
  return result;
}
