/* tests/check_cache.c - the toolchain (toolchain/): how a spawned program
 * ended (exit status, signal, time and output limits, a missing program),
 * and the trust checks of the cache of compiled code.  A shared object
 * planted under a cache name has a constructor that creates a marker
 * file: loaded, the marker appears.  A control shows that a planted
 * object the checks accept is indeed loaded; objects in a folder others
 * can write, objects others own or can write, and symbolic links are
 * never loaded, and the results stay right.  Tests run as root in CI:
 * "another user" is uid 65534, which root can chown to. */
#include "config.h"
#include "runtime/env.h"
#include "toolchain/toolchain.h"
#include "util/fs.h"
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { OTHER_UID = 65534 };

/* ---- helpers ------------------------------------------------------------- */

static const char *clang_path(void) {
  const char *c = getenv("FG_CLANG");
  return c && *c ? c : FG_CLANG_PATH;
}

static void fresh_dir(char *buf, size_t size) {
  snprintf(buf, size, "/tmp/fg-cachetest-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(buf));
}

static void remove_tree(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

static bool exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

/* Compiles a shared object at so whose constructor creates marker. */
static void build_planted(const char *so, const char *marker) {
  char src[600];
  snprintf(src, sizeof src, "%s.plant.c", marker);
  FILE *f = fopen(src, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "#include <fcntl.h>\n#include <unistd.h>\n"
          "__attribute__((constructor)) static void planted(void) {\n"
          "  int fd = open(\"%s\", O_CREAT | O_WRONLY, 0600);\n"
          "  if (fd >= 0) close(fd);\n}\n", marker);
  ck_assert_int_eq(fclose(f), 0);
  char *argv[] = {(char *)clang_path(), "-shared", "-fPIC", "-o", (char *)so,
                  src, NULL};
  fgtc_exit x;
  ck_assert_msg(fgtc_spawn(argv, NULL, &x), "cannot build %s", so);
  unlink(src);
}

/* The one file ending in ext in dir (its path into out). */
static void the_entry(const char *dir, const char *ext, char *out,
                      size_t size) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int found = 0;
  struct dirent *e;
  size_t el = strlen(ext);
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n > el && !strcmp(e->d_name + n - el, ext)) {
      int k = snprintf(out, size, "%s/%s", dir, e->d_name);
      ck_assert(k > 0 && (size_t)k < size);
      found++;
    }
  }
  closedir(d);
  ck_assert_int_eq(found, 1);
}

/* A graph whose kernel is unique to salt. */
static fg_graph *salted_graph(unsigned salt) {
  fg_type t = fg_type_scalar(FG_U32, fg_shape1(1000));
  fg_graph *g = fg_graph_new("salted");
  fg_field *in = fg_input(g, "in", t);
  fg_op *op = fg_op_begin(g, "salt", 1, &t);
  fg_write_tensor(op, 0, fg_bxor(fg_read_tensor(op, in), fg_uint(op, salt)));
  fg_output(g, "out", fg_op_end(op));
  return g;
}

/* In a child process (a fresh start, as a second run of a program would
 * be): builds and runs the salted graph on the CPU with cache dir.
 * Returns 100 + kernels compiled when the results are right, 1 when the
 * context is refused, 2 when compiling fails, 3 for wrong results. */
static int child_run(const char *dir, unsigned salt) {
  fg_context_options opt = {.backend = FG_BACKEND_CPU, .cache_dir = dir};
  fg_context *ctx = NULL;
  if (fg_context_new(&opt, &ctx, NULL, 0) != FG_OK)
    return 1;
  fg_graph *g = salted_graph(salt);
  fg_program *p = NULL;
  int rc = 0;
  uint32_t in[1000], out[1000];
  for (unsigned i = 0; i < 1000; i++)
    in[i] = i * 2654435761u;
  if (fg_compile(ctx, g, NULL, &p) != FG_OK)
    rc = 2;
  else if (fg_program_run(p, 1, (const void *[]){in}, 1, (void *[]){out}) !=
           FG_OK)
    rc = 3;
  for (unsigned i = 0; i < 1000 && !rc; i++)
    if (out[i] != (in[i] ^ salt))
      rc = 3;
  if (!rc) {
    fg_context_stats s;
    fg_context_get_stats(ctx, &s);
    rc = 100 + (int)s.kernels_compiled;
  }
  fg_program_free(p);
  fg_graph_free(g);
  fg_context_free(ctx);
  return rc;
}

static int run_child(const char *dir, unsigned salt) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    _exit(child_run(dir, salt));
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFEXITED(st));
  return WEXITSTATUS(st);
}

/* A cache at dir/cache holding the salted kernel; its object's path into
 * so, and a marker path (absent) into marker. */
static void primed_cache(char *dir, size_t dsize, char *cache, char *so,
                         char *marker, unsigned salt) {
  fresh_dir(dir, dsize);
  snprintf(cache, 600, "%s/cache", dir);
  snprintf(marker, 600, "%s/marker", dir);
  ck_assert_int_eq(run_child(cache, salt), 101);
  char cpu[700];
  snprintf(cpu, sizeof cpu, "%s/cpu", cache);
  the_entry(cpu, ".so", so, 700);
}

/* ---- spawning ------------------------------------------------------------ */

START_TEST(test_cache_spawn_says_how_a_program_ended) {
  fgtc_exit x;
  char *ok[] = {"/bin/sh", "-c", "exit 0", NULL};
  ck_assert(fgtc_spawn(ok, NULL, &x));
  ck_assert_int_eq(x.end, FGTC_EXITED);
  char *three[] = {"/bin/sh", "-c", "exit 3", NULL};
  ck_assert(!fgtc_spawn(three, NULL, &x));
  ck_assert_int_eq(x.end, FGTC_EXITED);
  ck_assert_int_eq(x.code, 3);
  char *killed[] = {"/bin/sh", "-c", "kill -9 $$", NULL};
  ck_assert(!fgtc_spawn(killed, NULL, &x));
  ck_assert_int_eq(x.end, FGTC_SIGNALED);
  ck_assert_int_eq(x.code, 9);
  char buf[128];
  ck_assert_ptr_nonnull(strstr(fgtc_exit_str(&x, NULL, buf, sizeof buf),
                               "killed by signal 9"));
  char *missing[] = {"/nonexistent/clang", NULL};
  ck_assert(!fgtc_spawn(missing, NULL, &x));
  ck_assert_int_eq(x.end, FGTC_NOT_RUN);
  ck_assert_int_eq(x.err, ENOENT);
  ck_assert_ptr_nonnull(strstr(fgtc_exit_str(&x, NULL, buf, sizeof buf),
                               strerror(ENOENT)));
}
END_TEST

START_TEST(test_cache_spawn_limits_time_and_output) {
  char dir[64], out[128];
  fresh_dir(dir, sizeof dir);
  snprintf(out, sizeof out, "%s/out", dir);
  fgtc_exit x;
  /* a program that never ends is killed at its deadline, with its
   * process group (the shell's sleep would keep it waiting otherwise) */
  char *sleeper[] = {"/bin/sh", "-c", "sleep 60 & wait", NULL};
  fgtc_spawn_opts o = {.timeout_ms = 200};
  ck_assert(!fgtc_spawn(sleeper, &o, &x));
  ck_assert_int_eq(x.end, FGTC_TIMED_OUT);
  char buf[128];
  ck_assert_str_eq(fgtc_exit_str(&x, &o, buf, sizeof buf),
                   "timed out after 200 ms");
  /* one that writes without end is killed past max_output */
  char *yes[] = {"/bin/sh", "-c", "while :; do echo yyyyyyyyyyyyyyyy; done",
                 NULL};
  o = (fgtc_spawn_opts){.out_path = out, .max_output = 100000};
  ck_assert(!fgtc_spawn(yes, &o, &x));
  ck_assert_int_eq(x.end, FGTC_TOO_MUCH);
  /* a limit that is not reached changes nothing */
  char *quick[] = {"/bin/sh", "-c", "echo hi; exit 4", NULL};
  o = (fgtc_spawn_opts){.out_path = out, .timeout_ms = 60000,
                        .max_output = 100000};
  ck_assert(!fgtc_spawn(quick, &o, &x));
  ck_assert_int_eq(x.end, FGTC_EXITED);
  ck_assert_int_eq(x.code, 4);
  size_t n;
  char *text = fgu_read_file(out, 1000, &n);
  ck_assert_ptr_nonnull(text);
  ck_assert_str_eq(text, "hi\n");
  free(text);
  remove_tree(dir);
}
END_TEST

/* ---- where the cache is, and its folders --------------------------------- */

START_TEST(test_cache_without_home_is_private_per_user) {
  unsetenv("FG_CACHE_DIR");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  fg__env env;
  fg__env_read(&env);
  char want[64];
  snprintf(want, sizeof want, "/tmp/fieldgraph-cache-%u",
           (unsigned)geteuid());
  ck_assert_str_eq(env.cache_dir, want);
  /* a context made without options uses it, created private */
  fg_context_options opt = {.backend = FG_BACKEND_CPU};
  fg_context *ctx = NULL;
  char err[1024];
  ck_assert_msg(fg_context_new(&opt, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  fg_context_free(ctx);
  struct stat st;
  ck_assert_int_eq(lstat(want, &st), 0);
  ck_assert(S_ISDIR(st.st_mode));
  ck_assert_uint_eq(st.st_uid, geteuid());
  ck_assert_int_eq(st.st_mode & 077, 0);
  /* the resolution the RenderScript host code shares: also per user */
  char out[64];
  fgtc_cache_default(out, sizeof out, NULL, NULL, NULL);
  ck_assert_str_eq(out, want);
  fgtc_cache_default(out, sizeof out, "", "", "/h");
  ck_assert_str_eq(out, "/h/.cache/fieldgraph");
}
END_TEST

START_TEST(test_cache_folders_are_created_private) {
  char dir[64], cache[128], sub[160];
  fresh_dir(dir, sizeof dir);
  snprintf(cache, sizeof cache, "%s/a/b/cache", dir);
  ck_assert_int_eq(run_child(cache, 11u), 101);
  struct stat st;
  ck_assert_int_eq(stat(cache, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0700);
  snprintf(sub, sizeof sub, "%s/cpu", cache);
  ck_assert_int_eq(stat(sub, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0700);
  /* the cached object is writable by no one else, whatever the umask */
  umask(0);
  ck_assert_int_eq(run_child(cache, 12u), 101);
  char so[700];
  snprintf(sub, sizeof sub, "%s/cpu", cache);
  ck_assert_int_eq(run_child(cache, 12u), 100);     /* and it is used */
  umask(022);
  DIR *d = opendir(sub);
  ck_assert_ptr_nonnull(d);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    snprintf(so, sizeof so, "%s/%s", sub, e->d_name);
    ck_assert_int_eq(stat(so, &st), 0);
    ck_assert_msg(!(st.st_mode & 022), "%s has mode %o", so,
                  (unsigned)st.st_mode);
  }
  closedir(d);
  remove_tree(dir);
}
END_TEST

/* ---- planted objects ----------------------------------------------------- */

START_TEST(test_cache_planted_object_loads_only_when_trusted) {
  char dir[64], cache[600], so[700], marker[600], elsewhere[700];
  primed_cache(dir, sizeof dir, cache, so, marker, 21u);
  /* control: the user's own file, mode 0644, is what the cache runs (the
   * marker shows its constructor ran; it lacks the kernel, so the build
   * fails) */
  build_planted(so, marker);
  ck_assert_int_eq(chmod(so, 0644), 0);
  ck_assert_int_eq(run_child(cache, 21u), 2);
  ck_assert_msg(exists(marker), "the control's object was not loaded");
  unlink(marker);
  /* writable by others: not loaded, rebuilt, right results */
  build_planted(so, marker);
  ck_assert_int_eq(chmod(so, 0666), 0);
  ck_assert_int_eq(run_child(cache, 21u), 101);
  ck_assert_msg(!exists(marker), "a mode 0666 object was loaded");
  struct stat st;
  ck_assert_int_eq(lstat(so, &st), 0);
  ck_assert_int_eq(st.st_mode & 022, 0);
  ck_assert_int_eq(run_child(cache, 21u), 100);   /* the rebuilt one */
  /* group-writable: the same */
  build_planted(so, marker);
  ck_assert_int_eq(chmod(so, 0664), 0);
  ck_assert_int_eq(run_child(cache, 21u), 101);
  ck_assert(!exists(marker));
  /* owned by another user */
  build_planted(so, marker);
  ck_assert_int_eq(chmod(so, 0644), 0);
  ck_assert_int_eq(chown(so, OTHER_UID, OTHER_UID), 0);
  ck_assert_int_eq(run_child(cache, 21u), 101);
  ck_assert_msg(!exists(marker), "another user's object was loaded");
  ck_assert_int_eq(lstat(so, &st), 0);
  ck_assert_uint_eq(st.st_uid, geteuid());
  /* a symbolic link to an object elsewhere, even the user's own */
  snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere.so", dir);
  build_planted(elsewhere, marker);
  ck_assert_int_eq(unlink(so), 0);
  ck_assert_int_eq(symlink(elsewhere, so), 0);
  ck_assert_int_eq(run_child(cache, 21u), 101);
  ck_assert_msg(!exists(marker), "a symbolic link was followed");
  ck_assert_int_eq(lstat(so, &st), 0);
  ck_assert(S_ISREG(st.st_mode));
  remove_tree(dir);
}
END_TEST

/* A folder others can write (or another user's) is refused: the context
 * is not made, with a message naming it; nothing in it is loaded. */
static void assert_folder_refused(const char *cache, const char *folder,
                                  const char *marker) {
  fg_context_options opt = {.backend = FG_BACKEND_CPU, .cache_dir = cache};
  fg_context *ctx = (fg_context *)1;
  char err[2048];
  ck_assert_int_eq(fg_context_new(&opt, &ctx, err, sizeof err), FG_EIO);
  ck_assert_ptr_null(ctx);
  ck_assert_msg(strstr(err, folder) && strstr(err, "writable by no one "
                                                   "else"),
                "message: %s", err);
  ck_assert_int_eq(run_child(cache, 31u), 1);
  ck_assert_msg(!exists(marker), "an object in %s was loaded", folder);
}

START_TEST(test_cache_untrusted_folder_is_refused) {
  char dir[64], cache[600], so[700], marker[600], cpu[700];
  primed_cache(dir, sizeof dir, cache, so, marker, 31u);
  snprintf(cpu, sizeof cpu, "%s/cpu", cache);
  build_planted(so, marker);
  ck_assert_int_eq(chmod(so, 0644), 0);
  ck_assert_int_eq(chmod(cpu, 0777), 0);          /* world-writable */
  assert_folder_refused(cache, cpu, marker);
  ck_assert_int_eq(chmod(cpu, 0770), 0);          /* group-writable */
  assert_folder_refused(cache, cpu, marker);
  ck_assert_int_eq(chmod(cpu, 0700), 0);
  ck_assert_int_eq(chmod(cache, 01777), 0);       /* the root folder */
  assert_folder_refused(cache, cache, marker);
  ck_assert_int_eq(chmod(cache, 0700), 0);
  ck_assert_int_eq(chown(cpu, OTHER_UID, OTHER_UID), 0);  /* another's */
  assert_folder_refused(cache, cpu, marker);
  ck_assert_int_eq(chown(cpu, geteuid(), getegid()), 0);
  /* a cache folder that is another user's symbolic link to it */
  char link[700];
  snprintf(link, sizeof link, "%s/link", dir);
  ck_assert_int_eq(symlink(cache, link), 0);
  ck_assert_int_eq(lchown(link, OTHER_UID, OTHER_UID), 0);
  assert_folder_refused(link, link, marker);
  /* the user's own link is followed, to the folder it names */
  ck_assert_int_eq(lchown(link, geteuid(), getegid()), 0);
  ck_assert_int_eq(run_child(link, 31u), 2);      /* the control again */
  ck_assert(exists(marker));
  remove_tree(dir);
}
END_TEST

/* ---- RenderScript invokables ------------------------------------------- */

static void on_log(void *user, const char *line) {
  snprintf(user, 128, "%s", line);
}

/* In a child: loads a script whose invokable prints a + 1 with rsDebug,
 * caching in dir, and calls it with 41: 0 when it printed "v 42". */
static int child_script(const char *dir) {
  static const char src[] =
      "#pragma version(1)\n#pragma rs java_package_name(t)\n"
      "void hello(int a) { rsDebug(\"v\", a + 1); }\n";
  fg_rs_options opt = {.cache_dir = dir};
  fg_rs_script *s = NULL;
  if (fg_rs_script_new_source_opt("hello", NULL, src, (size_t)-1, &opt, &s,
                                  NULL, 0) != FG_OK)
    return 1;
  char line[128] = "";
  fg_rs_set_log(s, on_log, line);
  int rc = fg_rs_call(s, "hello", 41) != FG_OK ? 2
           : strcmp(line, "v 42")              ? 3
                                               : 0;
  fg_rs_script_free(s);
  return rc;
}

static int run_script_child(const char *dir) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    _exit(child_script(dir));
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFEXITED(st));
  return WEXITSTATUS(st);
}

/* The invokables' folder is made private and refused when others can
 * write it.  (Their objects are loaded by the path every cached object
 * takes, fgtc_cc_build, whose refusals the next test shows.) */
START_TEST(test_cache_invokables_folder_is_checked) {
  char dir[64], cache[128], rs[160];
  fresh_dir(dir, sizeof dir);
  snprintf(cache, sizeof cache, "%s/cache", dir);
  snprintf(rs, sizeof rs, "%s/rs", cache);
  ck_assert_int_eq(run_script_child(cache), 0);
  struct stat st;
  ck_assert_int_eq(stat(rs, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0700);
  ck_assert_int_eq(chmod(rs, 0777), 0);
  fg_rs_options opt = {.cache_dir = cache};
  fg_rs_script *s = NULL;
  char err[1024] = "";
  ck_assert_int_eq(fg_rs_script_new_source_opt(
                       "hello", NULL, "void hello(int a) { rsDebug(\"v\", a); "
                       "}\n", (size_t)-1, &opt, &s, err, sizeof err), FG_OK);
  ck_assert_int_eq(fg_rs_call(s, "hello", 1), FG_EIO);
  ck_assert_msg(strstr(fg_rs_script_errmsg(s), rs) &&
                strstr(fg_rs_script_errmsg(s), "writable by no one else"),
                "message: %s", fg_rs_script_errmsg(s));
  fg_rs_script_free(s);
  ck_assert_int_eq(run_script_child(cache), 2);
  remove_tree(dir);
}
END_TEST

/* In a child: fgtc_cc_build of a function returning 7 under a fixed key
 * in dir/t; 100 + 10 * (compiled) + f() when it loads and runs, 1 when
 * the folder is refused, 2 when the build fails, 3 without f. */
static int child_cc(const char *dir) {
  static const char *const flags[] = {"-O1", "-fPIC", "-shared", "-w", NULL};
  char key[65];
  memset(key, 'a', 64);
  key[64] = 0;
  fgtc_cache c;
  char err[2048];
  if (fgtc_cache_open(&c, dir, "t", err, sizeof err) != FG_OK)
    return 1;
  void *lib = NULL;
  fgtc_cc_result r;
  fg_status st = fgtc_cc_build(&c, clang_path(), flags, key,
                               "int f(void) { return 7; }\n", &lib, &r, err,
                               sizeof err);
  free(r.log);
  fgtc_cache_close(&c);
  if (st != FG_OK)
    return 2;
  int (*f)(void) = (int (*)(void))fgtc_dl_sym(lib, "f");
  int rc = f ? 100 + 10 * r.compiled + f() : 3;
  fgtc_dl_close(lib);
  return rc;
}

static int run_cc_child(const char *dir) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    _exit(child_cc(dir));
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFEXITED(st));
  return WEXITSTATUS(st);
}

START_TEST(test_cache_cc_build_refuses_planted_objects) {
  char dir[64], so[160], marker[128];
  fresh_dir(dir, sizeof dir);
  snprintf(so, sizeof so, "%s/t/%064d.so", dir, 0);
  memset(strrchr(so, '/') + 1, 'a', 64);
  snprintf(marker, sizeof marker, "%s/marker", dir);
  ck_assert_int_eq(run_cc_child(dir), 117);      /* built */
  ck_assert_int_eq(run_cc_child(dir), 107);      /* from the cache */
  build_planted(so, marker);                     /* control: loaded */
  ck_assert_int_eq(chmod(so, 0644), 0);
  ck_assert_int_eq(run_cc_child(dir), 3);
  ck_assert(exists(marker));
  unlink(marker);
  build_planted(so, marker);
  ck_assert_int_eq(chmod(so, 0646), 0);          /* world-writable */
  ck_assert_int_eq(run_cc_child(dir), 117);
  ck_assert(!exists(marker));
  build_planted(so, marker);
  ck_assert_int_eq(chmod(so, 0644), 0);
  ck_assert_int_eq(chown(so, OTHER_UID, 0), 0);  /* another user's */
  ck_assert_int_eq(run_cc_child(dir), 117);
  ck_assert(!exists(marker));
  ck_assert_int_eq(run_cc_child(dir), 107);
  remove_tree(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cache");
  TCase *tc = tcase_create("cache");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_cache_spawn_says_how_a_program_ended);
  tcase_add_test(tc, test_cache_spawn_limits_time_and_output);
  tcase_add_test(tc, test_cache_without_home_is_private_per_user);
  tcase_add_test(tc, test_cache_folders_are_created_private);
  tcase_add_test(tc, test_cache_planted_object_loads_only_when_trusted);
  tcase_add_test(tc, test_cache_untrusted_folder_is_refused);
  tcase_add_test(tc, test_cache_invokables_folder_is_checked);
  tcase_add_test(tc, test_cache_cc_build_refuses_planted_objects);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
