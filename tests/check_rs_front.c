/* tests/check_rs_front.c - the RenderScript front end against hostile
 * scripts: constant arithmetic C leaves undefined is an error at its
 * line:column naming the operation (unsigned arithmetic wraps as C says,
 * operands C does not evaluate are not evaluated), nesting past the
 * bound is an error naming the bound, chains of constants are evaluated
 * once each, malformed initializers of unused constants are reported,
 * and sizes are bounded; the preprocessor is bounded in output and time
 * and reported as what happened to it, #include of a FIFO or device is
 * refused, temporaries go to $TMPDIR and do not outlive their process.
 * Nothing here compiles a kernel. */
#include "testutil.h"

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The error a script's text gives (FG_EFORMAT expected). */
static const char *bad(const char *text, char *err, size_t errlen) {
  fg_rs_script *s = NULL;
  fg_status st = fg_rs_script_new_source("t", "t.rs", text, (size_t)-1, &s,
                                         err, errlen);
  ck_assert_msg(st == FG_EFORMAT, "expected FG_EFORMAT, got %s (%s)",
                fg_status_name(st), st == FG_OK ? "loaded" : err);
  ck_assert_ptr_null(s);
  return err;
}

static fg_rs_script *good(const char *text) {
  char err[1024];
  fg_rs_script *s = NULL;
  fg_status st = fg_rs_script_new_source("t", "t.rs", text, (size_t)-1, &s,
                                         err, sizeof err);
  ck_assert_msg(st == FG_OK, "%s", err);
  return s;
}

/* Asserts err holds each of the NULL-terminated strings. */
static void has(const char *err, ...) {
  va_list ap;
  va_start(ap, err);
  for (const char *w; (w = va_arg(ap, const char *));)
    ck_assert_msg(strstr(err, w), "'%s' not in: %s", w, err);
  va_end(ap);
}

/* text repeated n times */
static char *repeat(const char *head, const char *text, int n,
                    const char *tail) {
  size_t l = strlen(text);
  char *p = malloc(strlen(head) + l * (size_t)n + strlen(tail) + 1);
  strcpy(p, head);
  char *q = p + strlen(head);
  for (int k = 0; k < n; k++, q += l)
    memcpy(q, text, l);
  strcpy(q, tail);
  return p;
}

/* ---- undefined arithmetic ----------------------------------------------- */

START_TEST(test_rs_front_undefined_arithmetic_is_an_error) {
  char err[1024];
  /* INT64_MIN / -1 trapped (SIGFPE) while the script loaded */
  has(bad("static const long a = (-9223372036854775807L - 1) / -1;\n", err,
          sizeof err), "t.rs:1:51:", "does not fit in long", "'/'", NULL);
  has(bad("#pragma version(1)\n"
          "const long b = (-9223372036854775807L - 1) % -1;\n", err,
          sizeof err), "t.rs:2:44:", "does not fit in long", NULL);
  has(bad("const int c = (-2147483647 - 1) / -1;\n", err, sizeof err),
      "t.rs:1:33:", "does not fit in int", NULL);
  has(bad("const int d = 2147483647 + 1;\n", err, sizeof err), "t.rs:1:26:",
      "does not fit in int", NULL);
  has(bad("const long e = 4611686018427387904L * 2;\n", err, sizeof err),
      "does not fit in long", NULL);
  has(bad("const int f = 1 << 32;\n", err, sizeof err), "t.rs:1:17:",
      "shift count 32", "width of int", NULL);
  has(bad("const int g = 1 >> -1;\n", err, sizeof err), "negative", NULL);
  has(bad("const int h = -1 << 2;\n", err, sizeof err), "left shift", NULL);
  has(bad("const long i = -(-9223372036854775807L - 1);\n", err, sizeof err),
      "t.rs:1:16:", "negation", NULL);
  has(bad("const int j = (int)1e30;\n", err, sizeof err), "t.rs:1:15:",
      "conversion of 1e+30 to int", "range", NULL);
  has(bad("const uchar k = (uchar)-1.0;\n", err, sizeof err), "conversion",
      NULL);
  has(bad("const uint k2 = (uint)-1.5;\n", err, sizeof err), "conversion",
      NULL);
  has(bad("const int l = 5 % 0;\n", err, sizeof err), "division by zero",
      NULL);
  has(bad("const int m = 99999999999999999999;\n", err, sizeof err),
      "does not fit", NULL);
  /* an array size too */
  has(bad("int n[(-9223372036854775807L - 1) / -1];\n", err, sizeof err),
      "t.rs:1:35:", "does not fit in long", NULL);
}
END_TEST

START_TEST(test_rs_front_defined_arithmetic_keeps_cs_values) {
  fg_rs_script *s = good("const uint a = 0u - 1u;\n"
           "const uint b = 4294967295u + 2u;\n"
           "const ulong c = 0ul - 1ul;\n"
           "const long d = 2147483647 + 1L;\n"
           "const int e = 0 && (1 / 0);\n"
           "const int f = 1 ? 7 : (1 << 40);\n"
           "const int g = -7 / 2 + -7 % 2 * 10;\n"
           "const long h = 1L << 62;\n"
           "const int i = 0xffffffff == -1;\n"
           "const int j = -1 < 0u;\n"
           "const int k = -1L < 0u;\n"
           "const uint l = (uint)-0.5;\n"
           "const int m = (int)(uchar)300;\n");
  uint32_t u;
  uint64_t ul;
  int32_t i;
  int64_t l;
  ck_assert_int_eq(fg_rs_get(s, "a", &u, 4), FG_OK);
  ck_assert_uint_eq(u, 4294967295u);
  ck_assert_int_eq(fg_rs_get(s, "b", &u, 4), FG_OK);
  ck_assert_uint_eq(u, 1);
  ck_assert_int_eq(fg_rs_get(s, "c", &ul, 8), FG_OK);
  ck_assert_uint_eq(ul, UINT64_MAX);
  ck_assert_int_eq(fg_rs_get(s, "d", &l, 8), FG_OK);
  ck_assert_int_eq(l, 2147483648LL);
  ck_assert_int_eq(fg_rs_get(s, "e", &i, 4), FG_OK);
  ck_assert_int_eq(i, 0);
  ck_assert_int_eq(fg_rs_get(s, "f", &i, 4), FG_OK);
  ck_assert_int_eq(i, 7);
  ck_assert_int_eq(fg_rs_get(s, "g", &i, 4), FG_OK);
  ck_assert_int_eq(i, -7 / 2 + -7 % 2 * 10);
  ck_assert_int_eq(fg_rs_get(s, "h", &l, 8), FG_OK);
  ck_assert_int_eq(l, 1LL << 62);
  ck_assert_int_eq(fg_rs_get(s, "i", &i, 4), FG_OK);
  ck_assert_int_eq(i, 1);
  ck_assert_int_eq(fg_rs_get(s, "j", &i, 4), FG_OK);
  ck_assert_int_eq(i, 0);
  ck_assert_int_eq(fg_rs_get(s, "k", &i, 4), FG_OK);
  ck_assert_int_eq(i, 1);
  ck_assert_int_eq(fg_rs_get(s, "l", &u, 4), FG_OK);
  ck_assert_uint_eq(u, 0);
  ck_assert_int_eq(fg_rs_get(s, "m", &i, 4), FG_OK);
  ck_assert_int_eq(i, 44);
  fg_rs_script_free(s);
}
END_TEST

/* ---- nesting ------------------------------------------------------------ */

START_TEST(test_rs_front_nesting_is_bounded) {
  char err[1024];
  /* 20,000 parentheses overflowed the evaluator's stack */
  char *o = repeat("const int a =\n", "(", 20000, "1");
  char *t = repeat(o, ")", 20000, ";\n");
  has(bad(t, err, sizeof err), "t.rs:2:257:", "nested deeper than 256", NULL);
  free(o);
  free(t);
  t = repeat("const int a =\n", "- ", 200000, "1;\n");
  has(bad(t, err, sizeof err), "t.rs:2:", "nested deeper than 256", NULL);
  free(t);
  t = repeat("const int a =\n", "(int)", 200000, "1;\n");
  has(bad(t, err, sizeof err), "t.rs:2:", "nested deeper than 256", NULL);
  free(t);
  t = repeat("const int a =\n", "1 ? ", 200000, "1;\n");
  has(bad(t, err, sizeof err), "t.rs:2:", "nested deeper than 256", NULL);
  free(t);
  o = repeat("int a =\n", "{", 20000, "1");
  t = repeat(o, "}", 20000, ";\n");
  has(bad(t, err, sizeof err), "t.rs:2:", "nested deeper than 256", NULL);
  free(o);
  free(t);
  /* the preprocessor's #if: clang's own evaluator died of its stack */
  o = repeat("int a;\n#if ", "(", 20000, "1");
  t = repeat(o, ")", 20000, "\nint b;\n#endif\n");
  has(bad(t, err, sizeof err), "t.rs:2:261:", "#if nested deeper than 256",
      NULL);
  free(o);
  free(t);
  /* the invokable's integer expressions: a run of signs */
  t = repeat("int RS_KERNEL k(int v) { return v + 1; }\n"
             "void run(rs_allocation in, rs_allocation out) {\n"
             "  int n = ", "- ", 200000, "4;\n"
             "  rs_allocation t = rsCreateAllocation_int(n);\n"
             "  rsForEach(k, in, t);\n  rsForEach(k, t, out);\n}\n");
  fg_rs_script *s = good(t);
  free(t);
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(4)));
  fg_field *out = NULL;
  ck_assert_msg(fg_rs_invoke(g, s, "run", 1, &in, 1, &out) == FG_OK, "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
  s = good("int RS_KERNEL k(int v) { return v + 1; }\n"
           "void run(rs_allocation in, rs_allocation out) {\n"
           "  int n = (-9223372036854775807 - 1) / -1;\n"
           "  rsForEach(k, in, out);\n}\n");
  g = fg_graph_new("t");
  in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(4)));
  ck_assert_int_ne(fg_rs_invoke(g, s, "run", 1, &in, 1, &out), FG_OK);
  has(fg_graph_errmsg(g), "t.rs:3:38:", "overflows long", NULL);
  fg_graph_free(g);
  fg_rs_script_free(s);
  s = good("int RS_KERNEL k(int v) { return v + 1; }\n"
           "void run(rs_allocation in, rs_allocation out) {\n"
           "  int n = 99999999999999999999;\n"
           "  rsForEach(k, in, out);\n}\n");
  g = fg_graph_new("t");
  in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(4)));
  ck_assert_int_ne(fg_rs_invoke(g, s, "run", 1, &in, 1, &out), FG_OK);
  has(fg_graph_errmsg(g), "t.rs:3:11:", "does not fit in long", NULL);
  fg_graph_free(g);
  fg_rs_script_free(s);
  /* arrays of arrays through typedefs */
  {
    size_t cap = 400 * 40, n = 0;
    char *b = malloc(cap);
    n += (size_t)snprintf(b + n, cap - n, "typedef int T0[1];\n");
    for (int k = 1; k < 300; k++)
      n += (size_t)snprintf(b + n, cap - n, "typedef T%d T%d[1];\n", k - 1, k);
    has(bad(b, err, sizeof err), "arrays of arrays nested deeper than 256",
        NULL);
    free(b);
  }
  /* structs of structs through typedefs, initialized by brace elision */
  {
    size_t cap = 300 * 48, n = 0;
    char *b = malloc(cap);
    n += (size_t)snprintf(b + n, cap - n, "typedef struct { int x; } S0;\n");
    for (int k = 1; k < 300; k++)
      n += (size_t)snprintf(b + n, cap - n, "typedef struct { S%d a; } S%d;\n",
                            k - 1, k);
    snprintf(b + n, cap - n, "S299 v = {1};\n");
    has(bad(b, err, sizeof err), "t.rs:301:", "initializer nested deeper "
        "than 256", NULL);
    free(b);
  }
  /* 256 parentheses are fine */
  t = repeat("const int a = ", "(", 200, "5");
  char *u = repeat(t, ")", 200, ";\n");
  s = good(u);
  int v = 0;
  ck_assert_int_eq(fg_rs_get(s, "a", &v, sizeof v), FG_OK);
  ck_assert_int_eq(v, 5);
  fg_rs_script_free(s);
  free(t);
  free(u);
}
END_TEST

/* ---- cost --------------------------------------------------------------- */

/* A script of 20 const globals, each adding up eight copies of the one
 * before: without memory of each value, loading cost 8^20 additions. */
START_TEST(test_rs_front_constant_chains_cost_each_once) {
  size_t cap = 64 * 120, n = 0;
  char *b = malloc(cap);
  n += (size_t)snprintf(b + n, cap - n, "const int a0 = 1;\n");
  for (int k = 1; k < 20; k++) {
    int p = k - 1;
    n += (size_t)snprintf(b + n, cap - n,
                          "const int a%d = (a%d+a%d+a%d+a%d+a%d+a%d+a%d+a%d)"
                          " / 8;\n", k, p, p, p, p, p, p, p, p);
  }
  n += (size_t)snprintf(b + n, cap - n, "int big[a19 + 1];\n");
  fg_rs_script *s = good(b);
  free(b);
  int v = 0;
  ck_assert_int_eq(fg_rs_get(s, "a19", &v, sizeof v), FG_OK);
  ck_assert_int_eq(v, 1);
  ck_assert_uint_eq(fg_rs_global_size(s, "big"), 2 * sizeof(int));
  fg_rs_script_free(s);
}
END_TEST

/* A chain of functions each calling the one before: what a kernel reaches
 * was found by iterating to a fixed point, reading every body once per
 * link (5,000 functions took minutes to load). */
START_TEST(test_rs_front_call_chains_cost_each_body_once) {
  int n = 5000;
  size_t cap = (size_t)n * 64, len = 0;
  char *b = malloc(cap);
  len += (size_t)snprintf(b + len, cap - len, "#pragma version(1)\n"
                          "static int f0(int x) { return x + 1; }\n");
  for (int k = 1; k < n; k++)
    len += (size_t)snprintf(b + len, cap - len,
                            "static int f%d(int x) { return f%d(x); }\n", k,
                            k - 1);
  len += (size_t)snprintf(b + len, cap - len, "int RS_KERNEL k(int v) "
                          "{ return f%d(v); }\n", n - 1);
  fg_rs_script *s = good(b);
  free(b);
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "in", fg_type_scalar(FG_I32, fg_shape1(4)));
  ck_assert_msg(fg_rs_map(g, s, "k", 1, &in, NULL) != NULL, "%s",
                fg_graph_errmsg(g));
  fg_graph_free(g);
  fg_rs_script_free(s);
}
END_TEST

START_TEST(test_rs_front_sizes_are_bounded) {
  char err[1024];
  has(bad("int a[1000000000][1000000000];\n", err, sizeof err),
      "larger than", NULL);
  has(bad("float4 b[100000000];\n", err, sizeof err), "larger than", NULL);
  has(bad("int c[50000000];\nint d[50000000];\n", err, sizeof err),
      "more than", NULL);
}
END_TEST

/* ---- unused constants --------------------------------------------------- */

START_TEST(test_rs_front_malformed_unused_constant_is_reported) {
  char err[1024];
  /* loaded silently: the constant is never used, so never compiled */
  has(bad("#pragma version(1)\n\nstatic const int a = 1 +;\n", err,
          sizeof err), "t.rs:3:", "expected an expression", NULL);
  has(bad("static const int b = (2 3);\n", err, sizeof err), "t.rs:1:25:",
      NULL);
  has(bad("static const float2 c = {1, 2 2};\n", err, sizeof err),
      "t.rs:1:31:", NULL);
  has(bad("static const int3 e = {1, , 2};\n", err, sizeof err),
      "t.rs:1:27:", "expected an initializer", NULL);
  has(bad("static const int d = 1 / 0;\n", err, sizeof err),
      "division by zero", NULL);
  /* what fieldgraph does not evaluate but C may accept stays code */
  fg_rs_script *s = good("static const float e = sqrt(2.0f);\n"
                         "static const int f = sizeof(int);\n"
                         "static const int g = '\\n';\n"
                         "static const int h = 0b101;\n");
  fg_rs_script_free(s);
}
END_TEST

/* ---- the preprocessor --------------------------------------------------- */

/* A private $TMPDIR (Check forks each test, so setenv stays in it). */
static char *private_tmp(char *dir) {
  strcpy(dir, "/tmp/fg-front-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  ck_assert_int_eq(setenv("TMPDIR", dir, 1), 0);
  return dir;
}

/* How many entries dir holds whose name starts with prefix. */
static int count(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    n += !strncmp(e->d_name, prefix, strlen(prefix));
  closedir(d);
  return n;
}

static fg_status load_opt(const char *file, const char *text,
                          const fg_rs_options *o, char *err, size_t errlen) {
  fg_rs_script *s = NULL;
  fg_status st = fg_rs_script_new_source_opt("t", file, text, (size_t)-1, o,
                                             &s, err, errlen);
  fg_rs_script_free(s);
  return st;
}

/* A 635-byte macro bomb wrote to /tmp without bound (10^10 tokens: it is
 * stopped while it writes) */
START_TEST(test_rs_front_preprocessor_output_is_bounded) {
  char tmp[64], err[1024];
  private_tmp(tmp);
  const char *bomb = "#define A x x x x x x x x x x\n"
                     "#define B A A A A A A A A A A\n"
                     "#define C B B B B B B B B B B\n"
                     "#define D C C C C C C C C C C\n"
                     "#define E D D D D D D D D D D\n"
                     "#define F E E E E E E E E E E\n"
                     "#define G F F F F F F F F F F\n"
                     "#define H G G G G G G G G G G\n"
                     "#define I H H H H H H H H H H\n"
                     "#define J I I I I I I I I I I\n"
                     "int y = J;\n";
  fg_rs_options o = {.preprocess_max_bytes = 1 << 20};
  ck_assert_int_eq(load_opt("t.rs", bomb, &o, err, sizeof err), FG_EFORMAT);
  has(err, "t.rs:", "stopped", "output over 1048576 bytes", NULL);
  ck_assert_ptr_null(strstr(err, "install clang"));
  ck_assert_int_eq(count(tmp, "fg-rs-"), 0);
  rmdir(tmp);
}
END_TEST

START_TEST(test_rs_front_include_of_fifo_or_device_is_refused) {
  char tmp[64], err[1024], path[256], text[512];
  private_tmp(tmp);
  snprintf(path, sizeof path, "%s/fifo", tmp);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  /* the script's own #include: refused before the preprocessor runs (it
   * blocked forever) */
  char file[256];
  snprintf(file, sizeof file, "%s/t.rs", tmp);
  fg_rs_options o = {.preprocess_timeout_ms = 60000};
  ck_assert_int_eq(load_opt(file, "int a;\n  #  include \"fifo\"\n", &o, err,
                            sizeof err), FG_EFORMAT);
  has(err, "t.rs:2:14:", "fifo", "not a regular file", "FIFO", NULL);
  ck_assert_int_eq(load_opt(file, "#include </dev/zero>\n#include "
                            "\"/dev/zero\"\n", &o, err, sizeof err),
                   FG_EFORMAT);
  has(err, "t.rs:1:10:", "/dev/zero", "a device", NULL);
  /* a header's: the time bound stops the preprocessor */
  char h[256];
  snprintf(h, sizeof h, "%s/h.rsh", tmp);
  FILE *f = fopen(h, "w");
  fputs("#include \"fifo\"\n", f);
  fclose(f);
  o.preprocess_timeout_ms = 300;
  snprintf(text, sizeof text, "#include \"h.rsh\"\nint a;\n");
  ck_assert_int_eq(load_opt(file, text, &o, err, sizeof err), FG_EFORMAT);
  has(err, "t.rs", "stopped", "timed out after 300 ms", NULL);
  ck_assert_int_eq(count(tmp, "fg-rs-"), 0);
  unlink(h);
  unlink(path);
  rmdir(tmp);
}
END_TEST

/* A preprocessor that dies of a signal is reported so, not as missing */
START_TEST(test_rs_front_killed_preprocessor_is_reported) {
  char tmp[64], err[1024], path[256];
  private_tmp(tmp);
  snprintf(path, sizeof path, "%s/clang", tmp);
  FILE *f = fopen(path, "w");
  fputs("#!/bin/sh\nkill -KILL $$\n", f);
  fclose(f);
  ck_assert_int_eq(chmod(path, 0700), 0);
  fg_rs_options o = {.clang = path};
  ck_assert_int_eq(load_opt("t.rs", "int a;\n", &o, err, sizeof err),
                   FG_EFORMAT);
  has(err, "t.rs", "killed by signal 9", NULL);
  ck_assert_ptr_null(strstr(err, "install clang"));
  ck_assert_int_eq(count(tmp, "fg-rs-"), 0);
  unlink(path);
  /* one that is missing is */
  ck_assert_int_eq(load_opt("t.rs", "int a;\n", &o, err, sizeof err),
                   FG_EIO);
  has(err, "could not run the preprocessor", "install clang", NULL);
  rmdir(tmp);
}
END_TEST

/* Temporaries go to $TMPDIR; a process killed while preprocessing left its
 * fg-rs-* folder behind: the next preprocessing removes those of dead
 * processes, and only those. */
START_TEST(test_rs_front_temporaries_of_dead_processes_are_removed) {
  char tmp[64], dead[256], live[256], p[300];
  private_tmp(tmp);
  pid_t pid = fork();
  if (pid == 0)
    _exit(0);
  ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
  snprintf(dead, sizeof dead, "%s/fg-rs-%ld-AbCdEf", tmp, (long)pid);
  snprintf(live, sizeof live, "%s/fg-rs-%ld-AbCdEf", tmp, (long)getppid());
  const char *dirs[2] = {dead, live};
  for (int k = 0; k < 2; k++) {
    ck_assert_int_eq(mkdir(dirs[k], 0700), 0);
    snprintf(p, sizeof p, "%s/out.i", dirs[k]);
    FILE *f = fopen(p, "w");
    fputs("int x;\n", f);
    fclose(f);
  }
  fg_rs_script *s = good("int a;\n");
  fg_rs_script_free(s);
  struct stat sb;
  ck_assert_int_ne(stat(dead, &sb), 0);
  ck_assert_int_eq(stat(live, &sb), 0);
  ck_assert_int_eq(count(tmp, "fg-rs-"), 1);
  snprintf(p, sizeof p, "%s/out.i", live);
  unlink(p);
  rmdir(live);
  rmdir(tmp);
}
END_TEST

/* ---- files that are not scripts ----------------------------------------- */

static void write_file(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(text, 1, len, f), len);
  fclose(f);
}

/* script("/etc/passwd") quoted the file's first token; a FIFO blocked */
START_TEST(test_rs_front_file_that_is_no_script_is_refused_unquoted) {
  char tmp[64], path[256], inc[256], err[1024], text[512];
  private_tmp(tmp);
  fg_rs_script *s = NULL;
  snprintf(path, sizeof path, "%s/passwd", tmp);
  const char *secret = "root:x:0:0:hunter2secret:/root:/bin/sh\n";
  write_file(path, secret, strlen(secret));
  ck_assert_int_eq(fg_rs_script_new_file(path, &s, err, sizeof err),
                   FG_EFORMAT);
  has(err, path, "not a RenderScript script", "no #pragma version", NULL);
  ck_assert_ptr_null(strstr(err, "hunter2"));
  ck_assert_ptr_null(strstr(err, "root"));
  write_file(path, "#pragma version(1)\n\0\1\2", 22);
  ck_assert_int_eq(fg_rs_script_new_file(path, &s, err, sizeof err),
                   FG_EFORMAT);
  has(err, "binary data", NULL);
  write_file(path, "#pragma version(1)\nint a; /* \xff\xfe */\n", 34);
  ck_assert_int_eq(fg_rs_script_new_file(path, &s, err, sizeof err),
                   FG_EFORMAT);
  has(err, "binary data", NULL);
  /* a FIFO no one writes: refused, not waited on */
  snprintf(inc, sizeof inc, "%s/fifo.rs", tmp);
  ck_assert_int_eq(mkfifo(inc, 0600), 0);
  ck_assert_int_eq(fg_rs_script_new_file(inc, &s, err, sizeof err),
                   FG_EFORMAT);
  has(err, "not a RenderScript script", NULL);
  unlink(inc);
  /* an included file that is no header is not quoted either */
  write_file(path, secret, strlen(secret));
  snprintf(text, sizeof text, "#pragma version(1)\n#include \"%s\"\n", path);
  has(bad(text, err, sizeof err), "passwd:1:1:", "not RenderScript", NULL);
  ck_assert_ptr_null(strstr(err, "hunter2"));
  ck_assert_ptr_null(strstr(err, "'root'"));
  /* scripts in UTF-8 with their pragma load */
  const char *ok = "// d\xc3\xa9j\xc3\xa0 vu\n#pragma version(1)\n"
                   "#pragma rs java_package_name(t)\nint a = 3;\n";
  write_file(path, ok, strlen(ok));
  ck_assert_msg(fg_rs_script_new_file(path, &s, err, sizeof err) == FG_OK,
                "%s", err);
  int a = 0;
  ck_assert_int_eq(fg_rs_get(s, "a", &a, sizeof a), FG_OK);
  ck_assert_int_eq(a, 3);
  fg_rs_script_free(s);
  unlink(path);
  rmdir(tmp);
}
END_TEST

/* Loading one script twice finds its host code in the cache: the
 * preprocessor's line markers named the load's temporary folder, so the
 * text (and the cache key) differed at every load and each load compiled
 * its init() again. */
START_TEST(test_rs_front_same_script_same_cache_entry) {
  char tmp[64], cache[128], rs[160], err[1024];
  private_tmp(tmp);
  snprintf(cache, sizeof cache, "%s/cache", tmp);
  fg_rs_options o = {.cache_dir = cache};
  static const char text[] =
    "#pragma version(1)\n#pragma rs java_package_name(t)\n"
    "float gain;\nstatic float table[4];\n"
    "void init() { for (int i = 0; i < 4; i++) table[i] = i * 0.5f;\n"
    "  gain = table[2]; }\n"
    "float4 RS_KERNEL scale(float4 in) { return in * gain; }\n";
  for (int k = 0; k < 2; k++) {
    fg_rs_script *s = NULL;
    ck_assert_msg(fg_rs_script_new_source_opt("t", "t.rs", text, (size_t)-1,
                                              &o, &s, err, sizeof err) ==
                  FG_OK, "%s", err);
    fg_rs_script_free(s);
  }
  snprintf(rs, sizeof rs, "%s/rs", cache);
  int sos = 0;
  DIR *d = opendir(rs);
  ck_assert_ptr_nonnull(d);
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    sos += n > 3 && !strcmp(e->d_name + n - 3, ".so");
  }
  closedir(d);
  ck_assert_int_eq(sos, 1);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("rs_front");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_rs_front_undefined_arithmetic_is_an_error);
  tcase_add_test(tc, test_rs_front_defined_arithmetic_keeps_cs_values);
  tcase_add_test(tc, test_rs_front_nesting_is_bounded);
  tcase_add_test(tc, test_rs_front_constant_chains_cost_each_once);
  tcase_add_test(tc, test_rs_front_call_chains_cost_each_body_once);
  tcase_add_test(tc, test_rs_front_sizes_are_bounded);
  tcase_add_test(tc, test_rs_front_malformed_unused_constant_is_reported);
  tcase_add_test(tc, test_rs_front_preprocessor_output_is_bounded);
  tcase_add_test(tc, test_rs_front_include_of_fifo_or_device_is_refused);
  tcase_add_test(tc, test_rs_front_killed_preprocessor_is_reported);
  tcase_add_test(tc, test_rs_front_temporaries_of_dead_processes_are_removed);
  tcase_add_test(tc, test_rs_front_file_that_is_no_script_is_refused_unquoted);
  tcase_add_test(tc, test_rs_front_same_script_same_cache_entry);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
