/* tests/check_util.c - the shared file helpers of util/fs.h and the error
 * formatter of util/util.h: mkdir -p over existing and missing parents,
 * whole-file reads (padding, size limit, refusals), atomic replacement
 * (content, mode, no temporary file left after success or abort) and
 * fgu_fail's truncation.  Links the library's objects statically (the
 * helpers are not exported). */
#include "util/fs.h"
#include "util/util.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void setup(void) {
  const char *base = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/fg_check_util.XXXXXX",
           base && *base ? base : "/tmp");
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
}

static void teardown(void) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* Entries of path other than . and .. */
static int count_entries(const char *path) {
  DIR *d = opendir(path);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

START_TEST(test_util_mkdir_p) {
  char path[400];
  snprintf(path, sizeof path, "%s/a/b/c", dir);
  ck_assert_int_eq(fgu_mkdir_p(path), 0);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert(S_ISDIR(st.st_mode));
  ck_assert_int_eq(fgu_mkdir_p(path), 0); /* existing: fine */
  /* a regular file in the way is an error, not success */
  char file[400];
  snprintf(file, sizeof file, "%s/a/f", dir);
  ck_assert_int_eq(fgu_write_file_atomic(file, "x", 1, 0644), 0);
  ck_assert_int_eq(fgu_mkdir_p(file), ENOTDIR);
  snprintf(path, sizeof path, "%s/a/f/g", dir);
  ck_assert_int_ne(fgu_mkdir_p(path), 0);
}
END_TEST

START_TEST(test_util_read_file) {
  char path[400];
  snprintf(path, sizeof path, "%s/data.bin", dir);
  const char data[] = {'a', 0, 'b', 'c'};
  ck_assert_int_eq(fgu_write_file_atomic(path, data, sizeof data, 0644), 0);
  size_t n = 99;
  unsigned char *got = fgu_read_file(path, 1000, &n);
  ck_assert_ptr_nonnull(got);
  ck_assert_uint_eq(n, sizeof data);
  ck_assert_int_eq(memcmp(got, data, sizeof data), 0);
  for (int i = 0; i < FGU_READ_PAD; i++)
    ck_assert_int_eq(got[sizeof data + i], 0);
  free(got);
  /* exactly at the limit is fine, one byte over is refused */
  got = fgu_read_file(path, sizeof data, &n);
  ck_assert_ptr_nonnull(got);
  free(got);
  n = 99;
  ck_assert_ptr_null(fgu_read_file(path, sizeof data - 1, &n));
  ck_assert_uint_eq(n, 0);
  /* missing file, directory */
  snprintf(path, sizeof path, "%s/missing", dir);
  ck_assert_ptr_null(fgu_read_file(path, 1000, &n));
  ck_assert_ptr_null(fgu_read_file(dir, 1000, &n));
  /* an empty file reads as an empty, terminated string */
  snprintf(path, sizeof path, "%s/empty", dir);
  ck_assert_int_eq(fgu_write_file_atomic(path, "", 0, 0644), 0);
  char *text = fgu_read_file(path, 1000, &n);
  ck_assert_ptr_nonnull(text);
  ck_assert_uint_eq(n, 0);
  ck_assert_str_eq(text, "");
  free(text);
}
END_TEST

START_TEST(test_util_atomic_replace) {
  char path[400];
  snprintf(path, sizeof path, "%s/out.txt", dir);
  ck_assert_int_eq(fgu_write_file_atomic(path, "first", 5, 0640), 0);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0640);
  /* a replacement in progress is invisible; abort leaves the old file */
  fgu_atomic a;
  ck_assert_int_eq(fgu_atomic_begin(&a, path, FGU_MODE_DEFAULT), 0);
  ck_assert_int_eq(count_entries(dir), 2);
  fputs("second", a.fp);
  fgu_atomic_abort(&a);
  ck_assert_int_eq(count_entries(dir), 1);
  size_t n;
  char *text = fgu_read_file(path, 100, &n);
  ck_assert_str_eq(text, "first");
  free(text);
  /* commit replaces it whole and keeps the replaced file's mode */
  ck_assert_int_eq(fgu_atomic_begin(&a, path, FGU_MODE_DEFAULT), 0);
  fputs("second", a.fp);
  text = fgu_read_file(path, 100, &n);
  ck_assert_str_eq(text, "first");
  free(text);
  ck_assert_int_eq(fgu_atomic_commit(&a, path), 0);
  ck_assert_ptr_null(a.tmp);
  ck_assert_int_eq(count_entries(dir), 1);
  text = fgu_read_file(path, 100, &n);
  ck_assert_str_eq(text, "second");
  free(text);
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0640);
  /* a name of NAME_MAX bytes: its temporary's name is cut to fit (the
   * write failed with ENAMETOOLONG) */
  char longp[700];
  int k = snprintf(longp, sizeof longp, "%s/", dir);
  memset(longp + k, 'n', NAME_MAX);
  longp[k + NAME_MAX] = '\0';
  ck_assert_int_eq(fgu_write_file_atomic(longp, "long", 4, 0644), 0);
  text = fgu_read_file(longp, 100, &n);
  ck_assert_str_eq(text, "long");
  free(text);
  ck_assert_int_eq(unlink(longp), 0);
  ck_assert_int_eq(count_entries(dir), 1);
  /* a directory that does not exist: an error and nothing created */
  char bad[400];
  snprintf(bad, sizeof bad, "%s/no/such/file", dir);
  ck_assert_int_eq(fgu_write_file_atomic(bad, "x", 1, 0644), ENOENT);
  ck_assert_int_eq(count_entries(dir), 1);
}
END_TEST

START_TEST(test_util_fail_and_paths) {
  char err[8];
  ck_assert_int_eq(fgu_fail(err, sizeof err, FG_EIO, "%s-%d", "abcdef", 42),
                   FG_EIO);
  ck_assert_str_eq(err, "abcdef-"); /* truncated, terminated */
  ck_assert_int_eq(fgu_fail(NULL, 0, FG_EINVAL, "ignored"), FG_EINVAL);
  char buf[16];
  ck_assert_int_eq(fgu_cache_path(buf, sizeof buf, "d", "k", "so"), 0);
  ck_assert_str_eq(buf, "d/k.so");
  ck_assert_int_eq(fgu_cache_path(buf, 6, "d", "k", "so"), -1);
  char ebuf[64];
  ck_assert_ptr_nonnull(strstr(fgu_strerror(ENOENT, ebuf, sizeof ebuf),
                               "No such file"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("util");
  TCase *tc = tcase_create("fs");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_util_mkdir_p);
  tcase_add_test(tc, test_util_read_file);
  tcase_add_test(tc, test_util_atomic_replace);
  tcase_add_test(tc, test_util_fail_and_paths);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
