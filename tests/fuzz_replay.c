/* tests/fuzz_replay.c - replays inputs through one libFuzzer target
 * without libFuzzer: linked with fuzz/<target>.c, this main() calls its
 * LLVMFuzzerTestOneInput once per file, so every crash input committed
 * under fuzz/regressions/<target>/ (and the seed corpus under
 * fuzz/corpus/<target>/) runs in each `make check`, and under the
 * sanitizers in scripts/check-asan.  With no arguments it replays those
 * two folders (FG_FUZZ_DIR, FG_FUZZ_TARGET); otherwise the files and
 * folders named.  A target signals a bad input by crashing or aborting,
 * so success is simply getting to the end.  The targets write their
 * scratch files under $TMPDIR: a fresh folder, removed at the end.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FG_FUZZ_TARGET
#error FG_FUZZ_TARGET (the name of the target, fuzz_rs say) must be defined
#endif
#ifndef FG_FUZZ_DIR
#error FG_FUZZ_DIR (fuzz/ of the source tree) must be defined
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* optional: the targets that set up state once define it */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* Replays the file at path; 1 if it ran, 0 if it could not be read
 * (reported), -1 if it is no regular file. */
static int replay_file(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
    return -1;
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open\n", path);
    return 0;
  }
  size_t size = (size_t)st.st_size;
  /* one byte more than needed, so an empty file is a valid buffer */
  uint8_t *data = malloc(size + 1);
  size_t got = data ? fread(data, 1, size, f) : 0;
  fclose(f);
  if (!data || got != size) {
    fprintf(stderr, "%s: cannot read\n", path);
    free(data);
    return 0;
  }
  LLVMFuzzerTestOneInput(data, size);
  free(data);
  return 1;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every regular file of dir in name order (or dir itself when it
 * is a file).  A missing folder is no error: a target may have no
 * regressions yet.  Adds the number replayed to *n; -1 on a read error. */
static int replay_path(const char *dir, int *n) {
  int r = replay_file(dir);
  if (r >= 0) {
    *n += r;
    return r ? 0 : -1;
  }
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  char **names = NULL;
  int count = 0, cap = 0, status = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    if (count == cap) {
      cap = cap ? 2 * cap : 64;
      char **v = realloc(names, sizeof *v * (size_t)cap);
      if (!v) {
        status = -1;
        break;
      }
      names = v;
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!(names[count] = malloc(len))) {
      status = -1;
      break;
    }
    snprintf(names[count++], len, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (count)
    qsort(names, (size_t)count, sizeof *names, cmp_names);
  for (int i = 0; i < count; i++) {
    r = replay_file(names[i]);
    if (r == 0)
      status = -1;
    *n += r > 0;
    free(names[i]);
  }
  free(names);
  return status;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

int main(int argc, char **argv) {
  char tmp[] = "/tmp/fg-fuzz-replay-XXXXXX";
  if (!mkdtemp(tmp) || setenv("TMPDIR", tmp, 1) != 0) {
    perror("fuzz_replay: a temporary folder");
    return 1;
  }
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  int n = 0, status = 0;
  if (argc > 1) {
    for (int i = 1; i < argc; i++)
      status |= replay_path(argv[i], &n);
  } else {
    status |= replay_path(FG_FUZZ_DIR "/corpus/" FG_FUZZ_TARGET, &n);
    status |= replay_path(FG_FUZZ_DIR "/regressions/" FG_FUZZ_TARGET, &n);
  }
  nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  printf("%s: %d inputs replayed%s\n", FG_FUZZ_TARGET, n,
         status ? ", some unreadable" : "");
  if (n == 0 && argc == 1) {
    fprintf(stderr, "%s: no inputs under %s\n", FG_FUZZ_TARGET, FG_FUZZ_DIR);
    return 1;
  }
  return status ? 1 : 0;
}
