/* fuzz/fuzz_pipeline.c - libFuzzer target for the `fieldgraph` command's
 * pipeline files: the input is the text of a pipeline file; it is lexed
 * and parsed (tools/lexer.c, parse.c), its inputs listed, and its graph
 * built onto the C builder (tools/eval.c) for RGB inputs and for inputs
 * of 1 to 4 channels as the last byte picks, as `fieldgraph check` does;
 * every save's name template is expanded for a sample input path.
 * Nothing is compiled or run (fuzz_builder does that).  A failure must
 * come with a diagnostic naming the file.  The file lives in examples/
 * (FG_FUZZ_PIPELINE_DIR), so script("invert.rs") finds a real script.
 * Built by scripts/fuzz; tests/fuzz_replay.c replays its corpus and
 * regressions in `make check`. */
#include "tools/fgt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FG_FUZZ_PIPELINE_DIR
#define FG_FUZZ_PIPELINE_DIR "examples"
#endif

/* Aborts unless err holds a diagnostic about the fuzzed file. */
static void expect_diag(const char *path, const char *err) {
  if (strncmp(err, path, strlen(path)) != 0 &&
      !strstr(err, "out of memory")) {
    fprintf(stderr, "fuzz_pipeline: a failure without a diagnostic on "
            "%s: '%s'\n", path, err);
    abort();
  }
}

/* Builds p for n inputs of the given channel count (every dimension
 * small) and expands each save's template. */
static void build(const fgt_pipeline *p, fgt_scripts *scripts, int n,
                  int channels) {
  fgt_shape_key key = {.n = n};
  for (int i = 0; i < n; i++) {
    key.width[i] = 19;
    key.height[i] = 7;
    key.channels[i] = channels;
  }
  fgt_built b;
  char err[4096];
  err[0] = '\0';
  if (fgt_build(p, scripts, &key, &b, err, sizeof err) != FG_OK) {
    expect_diag(p->src.path, err);
    if (b.g)
      abort();                 /* a failed build holds no graph */
    return;
  }
  if (b.n_inputs != n || (b.n_saves == 0 && b.n_reports == 0) ||
      fg_graph_status(b.g) != FG_OK)
    abort();
  for (int i = 0; i < b.n_saves; i++) {
    char name[4096];
    (void)fgt_expand(name, sizeof name, b.saves[i].tmpl,
                     "photos/cat/chelsea.png", "cat/chelsea.png", i, err,
                     sizeof err);
  }
  (void)fg_graph_op_count(b.g);
  fgt_built_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* the command refuses a file with a NUL byte before parsing it; and
   * script() must not be pointed at a device or a process's files (a
   * read of /dev/zero never ends) */
  if (memchr(data, '\0', size))
    return 0;
  char *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  if (strstr(text, "/dev") || strstr(text, "/proc") || strstr(text, "/sys")) {
    free(text);
    return 0;
  }
  const char *path = FG_FUZZ_PIPELINE_DIR "/fuzz.fgp";
  char err[4096];
  err[0] = '\0';
  fgt_pipeline *p = fgt_pipeline_parse(path, text, err, sizeof err);
  free(text);
  if (!p) {
    expect_diag(path, err);
    return 0;
  }
  const char *tmpls[FGT_MAX_IO];
  int n;
  if (fgt_pipeline_inputs(p, &n, tmpls, NULL, err, sizeof err) == 0) {
    fgt_scripts scripts = {0};
    build(p, &scripts, n, 3);
    int channels = size ? 1 + data[size - 1] % 4 : 3;
    if (channels != 3)
      build(p, &scripts, n, channels);
    fgt_scripts_free(&scripts);
  } else {
    expect_diag(path, err);
  }
  fgt_pipeline_free(p);
  return 0;
}
