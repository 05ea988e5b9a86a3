/* tests/check_cli_inputs.c - hostile inputs of `fieldgraph run`: save()
 * templates and file names that would write outside -o, inputs whose
 * outputs collide, folder trees too deep to recurse into, links to "."
 * and FIFOs among the inputs, pipelines of many names, malformed shard
 * variables, empty folders and missing paths.  Each is checked on the
 * tools' functions (tools/outputs.c, inputs.c, parse.c, eval.c, linked
 * in) and end to end, running the command on folders made here.
 */
#include "testutil.h"
#include "tools/fgt.h"
#include "tools/inputs.h"
#include "tools/outputs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef FG_TOOL
#error FG_TOOL (the path of tools/fieldgraph) must be defined
#endif

/* ---- helpers ------------------------------------------------------------ */

/* Runs the tool with args (a shell fragment, env assignments may come
 * first in pre), stdout and stderr to files in dir; its exit status.  A
 * run that hangs (a FIFO read) is killed after 120 s and gives 124. */
static int tool_env(const char *dir, const char *pre, const char *args) {
  return tu_shell(dir, "%s timeout 120 %s %s", pre, FG_TOOL, args);
}

static int tool(const char *dir, const char *args) {
  return tool_env(dir, "", args);
}

/* A small RGB image whose pixels depend on seed, written to path (PNG or
 * JPEG by its name) and returned in *img when img is not NULL. */
static void write_image(const char *path, int seed, fg_image *img) {
  fg_image m;
  char err[512];
  ck_assert_int_eq(fg_image_alloc(&m, 7, 5, 3), FG_OK);
  for (int i = 0; i < 7 * 5 * 3; i++)
    m.data[i] = (unsigned char)(i * 37 + seed * 11);
  ck_assert_msg(fg_image_write(path, &m, 95, err, sizeof err) == FG_OK, "%s",
                err);
  if (img)
    *img = m;
  else
    fg_image_free(&m);
}

/* Asserts the image at path holds exactly want's pixels. */
static void expect_image(const char *path, const fg_image *want) {
  fg_image got;
  char err[1024];
  ck_assert_msg(fg_image_read(path, &got, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert_int_eq(got.width, want->width);
  ck_assert_int_eq(got.height, want->height);
  ck_assert_int_eq(got.channels, want->channels);
  ck_assert(!memcmp(got.data, want->data,
                    (size_t)got.width * got.height * got.channels));
  fg_image_free(&got);
}

/* Regular files under dir, recursively (links not followed). */
static int count_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    /* the output folder's results journal is no output */
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
        !strcmp(e->d_name, ".fieldgraph-results.jsonl"))
      continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    ck_assert(lstat(p, &st) == 0);
    n += S_ISDIR(st.st_mode) ? count_files(p) : S_ISREG(st.st_mode);
  }
  closedir(d);
  return n;
}

static int exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

static const char identity[] = "x = input()\nsave(x, \"{stem}.png\")\n";

/* ---- output names (tools/outputs.c) ------------------------------------- */

START_TEST(test_outputs_template_checked_alone) {
  static const char *bad[] = {"../../x.png", "/tmp/x.png", "a/../../b.png",
                              "{stem}/..", "{stem}/", "", "{bogus}.png",
                              "{stem.png"};
  static const char *good[] = {"{stem}.png", "{dir}/{stem}-{ext}.png",
                               "..x.png", "a..b/{name}", "./{index}.png"};
  char err[1024];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    ck_assert_msg(fgt_tmpl_check(bad[i], err, sizeof err) == -1,
                  "\"%s\" accepted", bad[i]);
    ck_assert_msg(err[0] != '\0', "\"%s\": no message", bad[i]);
  }
  ck_assert(fgt_tmpl_check("../../x.png", err, sizeof err) == -1);
  ck_assert_msg(strstr(err, "../../x.png") && strstr(err, "-o"), "%s", err);
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    ck_assert_msg(fgt_tmpl_check(good[i], err, sizeof err) == 0, "\"%s\": %s",
                  good[i], err);
}
END_TEST

START_TEST(test_outputs_values_stay_inside) {
  char out[4096], err[1024];
  /* a file named "...png": its stem is ".." */
  ck_assert_int_eq(fgt_output_name(out, sizeof out, "{stem}/{stem}/x.png",
                                   "in/...png", "...png", 0, err, sizeof err),
                   -1);
  ck_assert_msg(strstr(err, "{stem}") && strstr(err, "\"..\""), "%s", err);
  /* "..png": the stem "." */
  ck_assert_int_eq(fgt_output_name(out, sizeof out, "{stem}/x.png",
                                   "..png", "..png", 0, err, sizeof err), -1);
  /* a name of ".." from a list */
  ck_assert_int_eq(fgt_output_name(out, sizeof out, "{name}", "a/..", "..",
                                   0, err, sizeof err), -1);
  /* fields that together spell "..": "..{ext}" for a name without one */
  ck_assert_int_eq(fgt_output_name(out, sizeof out, "..{ext}/x.png", "in/a",
                                   "a", 0, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "\"../x.png\""), "%s", err);
  /* the ordinary cases */
  ck_assert_int_eq(fgt_output_name(out, sizeof out, "{dir}/{stem}-{ext}.png",
                                   "in/s/a.jpg", "s/a.jpg", 3, err,
                                   sizeof err), 0);
  ck_assert_str_eq(out, "s/a-jpg.png");
  ck_assert_int_eq(fgt_output_name(out, sizeof out, "{stem}.png", "in/.a.png",
                                   ".a.png", 0, err, sizeof err), 0);
  ck_assert_str_eq(out, ".a.png");
}
END_TEST

/* An input list of the given (path, rel) pairs. */
static void make_list(fgt_inputs *in, const char *const *pairs, int n) {
  memset(in, 0, sizeof *in);
  in->cap = n;
  in->items = calloc((size_t)n, sizeof *in->items);
  for (int i = 0; i < n; i++) {
    in->items[i].path = strdup(pairs[2 * i]);
    in->items[i].rel = strdup(pairs[2 * i + 1]);
  }
  in->n = n;
}

START_TEST(test_outputs_collisions_found) {
  char err[4096];
  fgt_inputs in;
  /* one stem, two extensions */
  const char *ext[] = {"in/a.png", "a.png", "in/a.jpg", "a.jpg",
                       "in/b.png", "b.png"};
  make_list(&in, ext, 3);
  const char *t1[] = {"{stem}.png"};
  ck_assert_int_eq(fgt_outputs_collide(&in, t1, 1, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "'in/a.png'") && strstr(err, "'in/a.jpg'") &&
                !strstr(err, "in/b.png") && strstr(err, "{ext}") &&
                strstr(err, "a.png"), "%s", err);
  const char *t2[] = {"{stem}-{ext}.png"};
  ck_assert_int_eq(fgt_outputs_collide(&in, t2, 1, err, sizeof err), 0);
  fgt_inputs_free(&in);
  /* one name in two folders of a walk: {dir} tells them apart */
  const char *dirs[] = {"in/a/x.png", "a/x.png", "in/b/x.png", "b/x.png"};
  make_list(&in, dirs, 2);
  ck_assert_int_eq(fgt_outputs_collide(&in, t1, 1, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "{dir}") && !strstr(err, "{ext}"), "%s", err);
  const char *t3[] = {"{dir}/{stem}.png"};
  ck_assert_int_eq(fgt_outputs_collide(&in, t3, 1, err, sizeof err), 0);
  fgt_inputs_free(&in);
  /* the same two named on the command line: only {index} does */
  const char *cli[] = {"a/x.png", "x.png", "b/x.png", "x.png"};
  make_list(&in, cli, 2);
  ck_assert_int_eq(fgt_outputs_collide(&in, t1, 1, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "{index}"), "%s", err);
  /* one input, two saves naming one file ("./x.png" is "x.png") */
  fgt_inputs one;
  make_list(&one, cli, 1);
  const char *t4[] = {"{dir}/{stem}.png", "{stem}.png"};
  ck_assert_int_eq(fgt_outputs_collide(&one, t4, 2, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "'a/x.png'") && strstr(err, "one file"), "%s",
                err);
  fgt_inputs_free(&one);
  fgt_inputs_free(&in);
}
END_TEST

/* ---- the walk (tools/inputs.c) ------------------------------------------ */

/* dir/d/d/.../d (levels deep) with an image at the bottom; its path in
 * bottom. */
static void make_deep(const char *dir, int levels, char *bottom,
                      size_t size) {
  size_t n = (size_t)snprintf(bottom, size, "%s/in", dir);
  ck_assert_int_eq(mkdir(bottom, 0755), 0);
  for (int i = 0; i < levels; i++) {
    ck_assert(n + 3 < size);
    n += (size_t)snprintf(bottom + n, size - n, "/d");
    ck_assert_msg(mkdir(bottom, 0755) == 0, "level %d: %s", i,
                  strerror(errno));
  }
  snprintf(bottom + n, size - n, "/deep.png");
}

START_TEST(test_inputs_deep_tree_no_recursion) {
  char dir[64], bottom[8192], arg[128], err[1024];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  make_deep(dir, 1500, bottom, sizeof bottom);
  write_image(bottom, 1, NULL);
  fgt_inputs in = {0};
  snprintf(arg, sizeof arg, "%s/in", dir);
  ck_assert_msg(fgt_inputs_add(&in, arg, NULL, err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(in.n, 1);
  ck_assert_str_eq(in.items[0].path, bottom);
  ck_assert_str_eq(in.items[0].rel, bottom + strlen(arg) + 1);
  ck_assert_int_eq(in.items[0].unreadable_dir, 0);
  fgt_inputs_free(&in);
  tu_rm_rf(dir);
}
END_TEST

/* dir/in: a.png, sub/b.png, two links to ".", a link to sub, a FIFO
 * named f.png and a dangling link named gone.png. */
static void make_linked(const char *dir) {
  char p[512];
  snprintf(p, sizeof p, "%s/in", dir);
  ck_assert_int_eq(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/in/sub", dir);
  ck_assert_int_eq(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/in/a.png", dir);
  write_image(p, 2, NULL);
  snprintf(p, sizeof p, "%s/in/sub/b.png", dir);
  write_image(p, 3, NULL);
  snprintf(p, sizeof p, "%s/in/here1", dir);
  ck_assert_int_eq(symlink(".", p), 0);
  snprintf(p, sizeof p, "%s/in/here2", dir);
  ck_assert_int_eq(symlink(".", p), 0);
  snprintf(p, sizeof p, "%s/in/zsub", dir);
  ck_assert_int_eq(symlink("sub", p), 0);
  snprintf(p, sizeof p, "%s/in/f.png", dir);
  ck_assert_int_eq(mkfifo(p, 0644), 0);
  snprintf(p, sizeof p, "%s/in/gone.png", dir);
  ck_assert_int_eq(symlink("nothing-here.png", p), 0);
}

START_TEST(test_inputs_links_and_fifos) {
  char dir[64], arg[128], err[1024];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  make_linked(dir);
  snprintf(arg, sizeof arg, "%s/in", dir);
  for (int follow = 0; follow < 2; follow++) {
    char *log = NULL;
    size_t loglen = 0;
    fgt_inputs in = {.follow_symlinks = follow};
    in.log = open_memstream(&log, &loglen);
    ck_assert_msg(fgt_inputs_add(&in, arg, NULL, err, sizeof err) == 0, "%s",
                  err);
    fclose(in.log);
    /* each image once, the FIFO never: with links followed too, since
     * every folder is listed once */
    ck_assert_int_eq(in.n, 2);
    ck_assert_str_eq(in.items[0].rel, "a.png");
    ck_assert_str_eq(in.items[1].rel, "sub/b.png");
    ck_assert_msg(strstr(log, "f.png") && strstr(log, "FIFO"), "%s", log);
    ck_assert_msg(strstr(log, "here1") && strstr(log, "here2"), "%s", log);
    fgt_inputs_free(&in);
    free(log);
  }
  /* a FIFO named on the command line is an input, refused when read,
   * without waiting for a writer */
  char fifo[128];
  snprintf(fifo, sizeof fifo, "%s/in/f.png", dir);
  fgt_inputs in = {0};
  ck_assert_int_eq(fgt_inputs_add(&in, fifo, NULL, err, sizeof err), 0);
  ck_assert_int_eq(in.n, 1);
  fgt_inputs_free(&in);
  fg_image img;
  ck_assert_int_eq(fg_image_read(fifo, &img, err, sizeof err), FG_EIO);
  ck_assert_msg(strstr(err, fifo) && strstr(err, "FIFO") &&
                strstr(err, "regular file"), "%s", err);
  tu_rm_rf(dir);
}
END_TEST

START_TEST(test_inputs_missing_empty_and_long_lines) {
  char dir[64], p[512], err[1024];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  fgt_inputs in = {0};
  snprintf(p, sizeof p, "%s/missing.png", dir);
  ck_assert_int_eq(fgt_inputs_add(&in, p, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, p) && strstr(err, "No such file"), "%s", err);
  snprintf(p, sizeof p, "%s/empty", dir);
  ck_assert_int_eq(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/empty/notes.txt", dir);
  tu_write_text(p, "not an image\n");
  snprintf(p, sizeof p, "%s/empty", dir);
  ck_assert_int_eq(fgt_inputs_add(&in, p, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, p) && strstr(err, "no images"), "%s", err);
  ck_assert_int_eq(in.n, 0);
  /* a list's line of 6000 bytes is one input, not two */
  char *line = malloc(7000);
  memset(line, 'a', 6000);
  strcpy(line + 6000, ".png\nb.png\n");
  snprintf(p, sizeof p, "%s/list.txt", dir);
  tu_write_text(p, line);
  char at[520];
  snprintf(at, sizeof at, "@%s", p);
  ck_assert_int_eq(fgt_inputs_add(&in, at, NULL, err, sizeof err), 0);
  ck_assert_int_eq(in.n, 2);
  ck_assert_uint_eq(strlen(in.items[0].path), 6004);
  ck_assert_str_eq(in.items[1].path, "b.png");
  free(line);
  fgt_inputs_free(&in);
  tu_rm_rf(dir);
}
END_TEST

/* ---- tables that grow (tools/parse.c, eval.c) --------------------------- */

START_TEST(test_pipeline_inputs_of_a_wide_call) {
  /* input() as the first of 300 arguments: the walk's stack once held
   * 256 nodes and dropped the rest */
  size_t cap = 8192, n = 0;
  char *text = malloc(cap);
  n += (size_t)snprintf(text + n, cap - n, "x = input()\ny = max(input("
                        "\"{stem}_m.png\")");
  for (int i = 0; i < 300; i++)
    n += (size_t)snprintf(text + n, cap - n, ", 1");
  snprintf(text + n, cap - n, ")\nsave(x * y, \"{stem}.png\")\n");
  char err[4096];
  fgt_pipeline *p = fgt_pipeline_parse("wide.fgp", text, err, sizeof err);
  ck_assert_msg(p != NULL, "%s", err);
  const char *tmpls[FGT_MAX_IO];
  int k = 0;
  ck_assert_int_eq(fgt_pipeline_inputs(p, &k, tmpls, NULL, err, sizeof err), 0);
  ck_assert_int_eq(k, 2);
  ck_assert(tmpls[0] == NULL);
  ck_assert_str_eq(tmpls[1], "{stem}_m.png");
  fgt_pipeline_free(p);
  free(text);
}
END_TEST

START_TEST(test_pipeline_limits_named) {
  char err[4096];
  /* 33 names on the left of '=' */
  char text[1024] = "a0";
  for (int i = 1; i < FGT_MAX_IO + 1; i++)
    snprintf(text + strlen(text), sizeof text - strlen(text), ", a%d", i);
  strcat(text, " = f()\n");
  ck_assert(fgt_pipeline_parse("names.fgp", text, err, sizeof err) == NULL);
  ck_assert_msg(strstr(err, "at most 32 names"), "%s", err);
  /* a report name longer than the table holds */
  char rep[512];
  snprintf(rep, sizeof rep, "x = input()\nreport(sum(x), \"%0100d\")\n", 0);
  fgt_pipeline *p = fgt_pipeline_parse("rep.fgp", rep, err, sizeof err);
  ck_assert_msg(p != NULL, "%s", err);
  fgt_scripts sc = {0};
  fgt_shape_key key = {.n = 1, .width = {8}, .height = {8},
                       .channels = {3}};
  fgt_built b;
  ck_assert_int_eq(fgt_build(p, &sc, &key, &b, err, sizeof err), FG_EINVAL);
  ck_assert_msg(strstr(err, "rep.fgp:2:") && strstr(err, "at most 63"), "%s",
                err);
  fgt_scripts_free(&sc);
  fgt_pipeline_free(p);
}
END_TEST

/* ---- end to end ---------------------------------------------------------- */

START_TEST(test_cli_templates_stay_inside_output) {
  char dir[64], p[1024], out[512], args[4096];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  snprintf(out, sizeof out, "%s/o1/o2/out", dir);
  snprintf(p, sizeof p, "%s/up.fgp", dir);
  tu_write_text(p, "x = input()\nsave(x, \"../../x.png\")\n");
  /* check refuses it, at the template */
  snprintf(args, sizeof args, "check %s", p);
  ck_assert_int_eq(tool(dir, args), 2);
  char *e = tu_slurp(dir, "stderr");
  ck_assert_msg(strstr(e, "up.fgp:2:9:") && strstr(e, "\"..\""), "%s", e);
  free(e);
  /* and so does run, before any input */
  char img[512];
  snprintf(img, sizeof img, "%s/a.png", dir);
  write_image(img, 4, NULL);
  snprintf(args, sizeof args, "run %s -o %s -q %s", p, out, img);
  ck_assert_int_eq(tool(dir, args), 2);
  snprintf(p, sizeof p, "%s/o1/x.png", dir);
  ck_assert(!exists(p));
  snprintf(p, sizeof p, "%s/o1", dir);
  ck_assert_int_eq(count_files(p), 0);
  /* a stem of "..": that input fails, the others run */
  snprintf(p, sizeof p, "%s/st.fgp", dir);
  tu_write_text(p, "x = input()\nsave(x, \"{stem}/{stem}/x.png\")\n");
  char dots[512];
  snprintf(dots, sizeof dots, "%s/...png", dir);
  fg_image want;
  write_image(dots, 5, NULL);
  write_image(img, 4, &want);
  snprintf(args, sizeof args, "run %s -o %s -q %s %s", p, out, dots, img);
  ck_assert_int_eq(tool(dir, args), 1);
  e = tu_slurp(dir, "stderr");
  ck_assert_msg(strstr(e, dots) && strstr(e, "{stem}") &&
                strstr(e, "\"..\""), "%s", e);
  free(e);
  snprintf(p, sizeof p, "%s/x.png", dir);
  ck_assert(!exists(p));
  snprintf(p, sizeof p, "%s/o1/x.png", dir);
  ck_assert(!exists(p));
  snprintf(p, sizeof p, "%s/a/a/x.png", out);
  expect_image(p, &want);
  snprintf(p, sizeof p, "%s/o1", dir);
  ck_assert_int_eq(count_files(p), 1);
  fg_image_free(&want);
  tu_rm_rf(dir);
}
END_TEST

/* A symbolic link planted inside -o does not lead an output out of it:
 * that input fails naming the link, nothing is written where it points,
 * and an output whose folders are real folders is written. */
START_TEST(test_cli_link_inside_output_not_followed) {
  char dir[64], p[1024], out[512], away[512], args[4096];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(away, sizeof away, "%s/away", dir);
  ck_assert_int_eq(mkdir(out, 0755), 0);
  ck_assert_int_eq(mkdir(away, 0755), 0);
  snprintf(p, sizeof p, "%s/a", out);
  ck_assert_int_eq(symlink(away, p), 0); /* out/a -> away */
  snprintf(p, sizeof p, "%s/b", out);
  ck_assert_int_eq(symlink("../away", p), 0); /* out/b -> ../away */
  snprintf(p, sizeof p, "%s/st.fgp", dir);
  tu_write_text(p, "x = input()\nsave(x, \"{stem}/sub/x.png\")\n");
  char a[512], b[512], c[512];
  fg_image want;
  snprintf(a, sizeof a, "%s/a.png", dir);
  snprintf(b, sizeof b, "%s/b.png", dir);
  snprintf(c, sizeof c, "%s/c.png", dir);
  write_image(a, 4, NULL);
  write_image(b, 5, NULL);
  write_image(c, 6, &want);
  snprintf(args, sizeof args, "run %s -o %s -q %s %s %s", p, out, a, b, c);
  ck_assert_int_eq(tool(dir, args), 1);
  char *e = tu_slurp(dir, "stderr");
  ck_assert_msg(strstr(e, "a.png") && strstr(e, "b.png") &&
                strstr(e, "symbolic link"), "%s", e);
  free(e);
  ck_assert_int_eq(count_files(away), 0);
  snprintf(p, sizeof p, "%s/c/sub/x.png", out);
  expect_image(p, &want);
  fg_image_free(&want);
  tu_rm_rf(dir);
}
END_TEST

/* Two save()s with one template name one file for every input: check
 * refuses the second at its column, before any input. */
START_TEST(test_cli_same_template_twice_refused_by_check) {
  char dir[64], p[1024], args[4096];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  snprintf(p, sizeof p, "%s/dup.fgp", dir);
  tu_write_text(p, "x = input()\nsave(x, \"{stem}.png\")\n"
                   "save(x * 0.5, \"{stem}.png[compression=1]\")\n");
  snprintf(args, sizeof args, "check %s", p);
  ck_assert_int_eq(tool(dir, args), 2);
  char *e = tu_slurp(dir, "stderr");
  ck_assert_msg(strstr(e, "dup.fgp:3:15:") && strstr(e, "{stem}.png") &&
                strstr(e, "save() number 1"), "%s", e);
  free(e);
  tu_rm_rf(dir);
}
END_TEST

START_TEST(test_cli_collisions_before_any_input) {
  char dir[64], p[512], args[4096];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  snprintf(p, sizeof p, "%s/in", dir);
  ck_assert_int_eq(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/in/a.png", dir);
  write_image(p, 6, NULL);
  snprintf(p, sizeof p, "%s/in/a.jpg", dir);
  write_image(p, 7, NULL);
  snprintf(p, sizeof p, "%s/p.fgp", dir);
  tu_write_text(p, identity);
  snprintf(args, sizeof args, "run %s -o %s/out -q %s/in", p, dir, dir);
  ck_assert_int_eq(tool(dir, args), 2);
  char *e = tu_slurp(dir, "stderr");
  char a[512], b[512];
  snprintf(a, sizeof a, "'%s/in/a.png'", dir);
  snprintf(b, sizeof b, "'%s/in/a.jpg'", dir);
  ck_assert_msg(strstr(e, a) && strstr(e, b) && strstr(e, "{ext}"), "%s", e);
  free(e);
  snprintf(p, sizeof p, "%s/out", dir);
  ck_assert(!exists(p));             /* nothing ran */
  /* a/x.png and b/x.png under one folder */
  snprintf(p, sizeof p, "%s/in2", dir);
  ck_assert_int_eq(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/in2/a", dir);
  ck_assert_int_eq(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/in2/b", dir);
  ck_assert_int_eq(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/in2/a/x.png", dir);
  write_image(p, 8, NULL);
  snprintf(p, sizeof p, "%s/in2/b/x.png", dir);
  write_image(p, 9, NULL);
  snprintf(args, sizeof args, "run %s/p.fgp -o %s/out -q %s/in2", dir, dir,
           dir);
  ck_assert_int_eq(tool(dir, args), 2);
  e = tu_slurp(dir, "stderr");
  ck_assert_msg(strstr(e, "in2/a/x.png") && strstr(e, "in2/b/x.png") &&
                strstr(e, "{dir}"), "%s", e);
  free(e);
  snprintf(p, sizeof p, "%s/out", dir);
  ck_assert(!exists(p));
  tu_rm_rf(dir);
}
END_TEST

START_TEST(test_cli_deep_tree) {
  char dir[64], bottom[8192], p[512], args[4096];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  make_deep(dir, 1500, bottom, sizeof bottom);
  fg_image want;
  write_image(bottom, 10, &want);
  snprintf(p, sizeof p, "%s/p.fgp", dir);
  tu_write_text(p, identity);
  snprintf(args, sizeof args, "run %s -o %s/out -q %s/in", p, dir, dir);
  int rc = tool(dir, args);
  char *e = tu_slurp(dir, "stderr");
  ck_assert_msg(rc == 0, "exit %d:\n%s", rc, e);
  free(e);
  snprintf(p, sizeof p, "%s/out/deep.png", dir);
  expect_image(p, &want);
  fg_image_free(&want);
  tu_rm_rf(dir);
}
END_TEST

START_TEST(test_cli_links_and_fifos) {
  char dir[64], p[512], args[4096];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  make_linked(dir);
  snprintf(p, sizeof p, "%s/p.fgp", dir);
  tu_write_text(p, "x = input()\nsave(x, \"{dir}/{stem}.png\")\n");
  for (int follow = 0; follow < 2; follow++) {
    snprintf(args, sizeof args, "run %s -o %s/out%d --json %s %s/in", p, dir,
             follow, follow ? "--follow-symlinks" : "", dir);
    int rc = tool(dir, args);
    char *o = tu_slurp(dir, "stdout"), *e = tu_slurp(dir, "stderr");
    ck_assert_msg(rc == 0, "exit %d:\n%s", rc, e);
    ck_assert_msg(strstr(e, "f.png") && strstr(e, "FIFO"), "%s", e);
    int lines = 0;
    for (const char *s = o; *s; s++)
      lines += *s == '\n';
    ck_assert_msg(lines == 2, "%d inputs run:\n%s", lines, o);
    snprintf(p, sizeof p, "%s/out%d", dir, follow);
    ck_assert_int_eq(count_files(p), 2);
    snprintf(p, sizeof p, "%s/out%d/sub/b.png", dir, follow);
    ck_assert(exists(p));
    snprintf(p, sizeof p, "%s/p.fgp", dir);
    free(o);
    free(e);
  }
  /* named on the command line, the FIFO fails as an input */
  snprintf(args, sizeof args, "run %s -o %s/out3 -q %s/in/f.png %s/in/a.png",
           p, dir, dir, dir);
  ck_assert_int_eq(tool(dir, args), 1);
  char *e = tu_slurp(dir, "stderr");
  ck_assert_msg(strstr(e, "in/f.png: not a regular file (a FIFO)"), "%s", e);
  free(e);
  snprintf(p, sizeof p, "%s/out3/a.png", dir);
  ck_assert(exists(p));
  tu_rm_rf(dir);
}
END_TEST

START_TEST(test_cli_many_names_bound) {
  char dir[64], p[512], img[512], args[4096];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  size_t cap = 16384, n = 0;
  char *text = malloc(cap);
  n += (size_t)snprintf(text + n, cap - n, "x = input()\n");
  for (int i = 0; i < 300; i++)
    n += (size_t)snprintf(text + n, cap - n, "v%d = %d\n", i, i);
  snprintf(text + n, cap - n, "x = x * 0\nsave(x, \"{stem}-zero.png\")\n");
  snprintf(p, sizeof p, "%s/many.fgp", dir);
  tu_write_text(p, text);
  free(text);
  snprintf(img, sizeof img, "%s/a.png", dir);
  write_image(img, 11, NULL);
  snprintf(args, sizeof args, "run %s -o %s/out -q %s", p, dir, img);
  ck_assert_int_eq(tool(dir, args), 0);
  fg_image zero;
  ck_assert_int_eq(fg_image_alloc(&zero, 7, 5, 3), FG_OK);
  memset(zero.data, 0, 7 * 5 * 3);
  snprintf(p, sizeof p, "%s/out/a-zero.png", dir);
  expect_image(p, &zero);
  fg_image_free(&zero);
  tu_rm_rf(dir);
}
END_TEST

/* {index} is the input's position in the whole list, the same whichever
 * shard runs it: two shards writing "{index}.png" into one folder give
 * each input its own file (the collision check numbers the whole list). */
START_TEST(test_cli_index_is_global_under_shards) {
  char dir[64], p[1024], out[512], args[8192];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  snprintf(p, sizeof p, "%s/p.fgp", dir);
  tu_write_text(p, "x = input()\nsave(x, \"{index}.png\")\n");
  snprintf(out, sizeof out, "%s/out", dir);
  enum { N = 6 };
  fg_image want[N];
  char list[4096] = "";
  for (int i = 0; i < N; i++) {
    char img[512];
    snprintf(img, sizeof img, "%s/in%d.png", dir, i); /* sorted order */
    write_image(img, 20 + i, &want[i]);
    snprintf(list + strlen(list), sizeof list - strlen(list), " %s", img);
  }
  for (int k = 1; k <= 2; k++) {
    snprintf(args, sizeof args, "run %s --shard %d/2 -o %s -q%s", p, k, out,
             list);
    ck_assert_int_eq(tool(dir, args), 0);
  }
  ck_assert_int_eq(count_files(out), N);
  for (int i = 0; i < N; i++) {
    snprintf(p, sizeof p, "%s/%d.png", out, i);
    expect_image(p, &want[i]);
    fg_image_free(&want[i]);
  }
  tu_rm_rf(dir);
}
END_TEST

START_TEST(test_cli_malformed_shard_variables) {
  char dir[64], p[512], img[512], args[4096];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  snprintf(p, sizeof p, "%s/p.fgp", dir);
  tu_write_text(p, identity);
  snprintf(img, sizeof img, "%s/a.png", dir);
  write_image(img, 12, NULL);
  static const struct {
    const char *env, *args, *var, *value;
  } cases[] = {
    {"JOB_COMPLETION_INDEX=1x", "--shard-count 3", "JOB_COMPLETION_INDEX",
     "'1x'"},
    {"JOB_COMPLETION_INDEX=3", "--shard-count 3", "JOB_COMPLETION_INDEX",
     "'3'"},
    {"SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=99999999999999999999", "",
     "SLURM_ARRAY_TASK_COUNT", "'99999999999999999999'"},
    {"SLURM_ARRAY_TASK_ID=zero SLURM_ARRAY_TASK_COUNT=2", "",
     "SLURM_ARRAY_TASK_ID", "'zero'"},
    {"", "--shard-count 3x", "--shard-count", "'3x'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(args, sizeof args, "run %s %s -o %s/out -q %s", p,
             cases[i].args, dir, img);
    int rc = tool_env(dir, cases[i].env, args);
    char *e = tu_slurp(dir, "stderr");
    ck_assert_msg(rc == 2 && strstr(e, cases[i].var) &&
                  strstr(e, "expected") && strstr(e, cases[i].value),
                  "%s %s: exit %d:\n%s", cases[i].env, cases[i].args, rc, e);
    free(e);
  }
  snprintf(p, sizeof p, "%s/out", dir);
  ck_assert(!exists(p));
  tu_rm_rf(dir);
}
END_TEST

START_TEST(test_cli_empty_folder_and_missing_path) {
  char dir[64], p[512], args[4096];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  snprintf(p, sizeof p, "%s/empty", dir);
  ck_assert_int_eq(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/p.fgp", dir);
  tu_write_text(p, identity);
  snprintf(args, sizeof args, "run %s -o %s/out %s/empty", p, dir, dir);
  ck_assert_int_eq(tool(dir, args), 2);
  char *e = tu_slurp(dir, "stderr");
  ck_assert_msg(strstr(e, "/empty: no images"), "%s", e);
  free(e);
  snprintf(args, sizeof args, "run %s -o %s/out %s/nothere.png", p, dir, dir);
  ck_assert_int_eq(tool(dir, args), 2);
  e = tu_slurp(dir, "stderr");
  ck_assert_msg(strstr(e, "/nothere.png:") && strstr(e, "No such file"), "%s",
                e);
  free(e);
  tu_rm_rf(dir);
}
END_TEST

/* Names under dir (not recursing) holding part, counted. */
static int count_named(const char *dir, const char *part) {
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "cannot open %s", dir);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    n += strstr(e->d_name, part) != NULL;
  closedir(d);
  return n;
}

/* `fieldgraph run --json ... | head -c1`: the reader goes away after one
 * byte.  The supervisor was killed by SIGPIPE at its next JSON line, its
 * workers with it, and the input under way left its pending output
 * (NAME.tmp-N.png) in the output folder.  Now it stops as on SIGTERM:
 * kernels cancelled, pending outputs removed, exit status 128 + SIGPIPE;
 * every output left is a whole image. */
START_TEST(test_cli_reader_gone_leaves_no_pending_file) {
  char dir[64], p[512], in[512], src[1024];
  tu_tmpdir(dir, sizeof dir, "cli-sigpipe");
  snprintf(in, sizeof in, "%s/in", dir);
  ck_assert_int_eq(mkdir(in, 0755), 0);
  for (int i = 0; i < 8; i++)
    tu_sh("cp %s %s/i%d.png", tu_sample("astronaut.png", src, sizeof src),
          in, i);
  snprintf(p, sizeof p, "%s/p.fgp", dir);
  tu_write_text(p, "x = input()\n"
                "s = gaussian_blur(x, sigma=3, border=mirror)\n"
                "save(s, \"{stem}-s.png\")\n"
                "save(clamp(x + (x - s) * 1.5, lo=0, hi=1), \"{stem}-t.png\")\n");
  for (int round = 0; round < 3; round++) {
    char out[600];
    snprintf(out, sizeof out, "%s/out%d", dir, round);
    int rc = tu_shell(dir, "(timeout 120 %s run %s -o %s -j 1 --json %s "
                      "2>%s/err; echo $? >%s/rc) | head -c1", FG_TOOL, p, out,
                      in, dir, dir);
    ck_assert_int_eq(rc, 0);
    char *r = tu_slurp(dir, "rc"), *e = tu_slurp(dir, "err");
    ck_assert_msg(atoi(r) == 128 + SIGPIPE, "exit %s:\n%s", r, e);
    ck_assert_msg(strstr(e, "SIGPIPE"), "%s", e);
    ck_assert_msg(count_named(out, ".tmp-") == 0, "pending files left:\n%s",
                  e);
    DIR *d = opendir(out);
    ck_assert(d != NULL);
    struct dirent *de;
    while ((de = readdir(d))) {
      if (!strstr(de->d_name, ".png"))
        continue;
      fg_image m;
      char err[1024];
      snprintf(src, sizeof src, "%s/%s", out, de->d_name);
      ck_assert_msg(fg_image_read(src, &m, err, sizeof err) == FG_OK, "%s",
                    err);
      fg_image_free(&m);
    }
    closedir(d);
    free(r);
    free(e);
  }
  tu_rm_rf(dir);
}
END_TEST

/* Standard output that cannot be written (a full disk, a closed
 * descriptor): the command's listing or JSON lines are lost, and it said
 * nothing and ended with status 0.  Now it names the error and ends 1. */
START_TEST(test_cli_stdout_write_error_fails) {
  char dir[64], p[512], args[4096], img[512];
  tu_tmpdir(dir, sizeof dir, "cli-stdout");
  snprintf(p, sizeof p, "%s/p.fgp", dir);
  tu_write_text(p, identity);
  snprintf(img, sizeof img, "%s/a.png", dir);
  write_image(img, 1, NULL);
  static const char *const cmds[] = {"ops", "explain %s", "run %s -o %s/o "
                                     "--json %s"};
  static const char *const sinks[] = {">/dev/full", ">&-"};
  for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++)
    for (size_t k = 0; k < 2; k++) {
      char cmd[2048];
      snprintf(cmd, sizeof cmd, cmds[c], p, dir, img);
      int rc = tu_shell(dir, "(%s %s %s 2>%s/err)", FG_TOOL, cmd, sinks[k],
                        dir);
      char *e = tu_slurp(dir, "err");
      ck_assert_msg(rc == 1, "'%s %s': exit %d\n%s", cmd, sinks[k], rc, e);
      ck_assert_msg(strstr(e, "cannot write standard output"), "'%s %s': %s",
                    cmd, sinks[k], e);
      free(e);
    }
  /* the images themselves were written whole */
  snprintf(args, sizeof args, "%s/o/a.png", dir);
  ck_assert(exists(args));
  tu_rm_rf(dir);
}
END_TEST

/* @LIST that cannot be read (a folder) or holds a NUL byte in a line: the
 * folder gave 0 inputs and exit status 0; "a.png\0junk" was cut at the
 * NUL and ran a.png.  Both are refused, naming the list and the line. */
START_TEST(test_inputs_list_unreadable_or_nul) {
  char dir[64], p[512], at[520], err[1024];
  tu_tmpdir(dir, sizeof dir, "cli-inputs");
  fgt_inputs in = {0};
  snprintf(at, sizeof at, "@%s", dir);
  ck_assert_int_eq(fgt_inputs_add(&in, at, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, dir) && strstr(err, "cannot read the list") &&
                strstr(err, "Is a directory"), "%s", err);
  snprintf(p, sizeof p, "%s/list.txt", dir);
  FILE *f = fopen(p, "wb");
  ck_assert(f != NULL);
  fwrite("b.png\na.png\0junk\n", 1, 17, f);
  fclose(f);
  snprintf(at, sizeof at, "@%s", p);
  ck_assert_int_eq(fgt_inputs_add(&in, at, NULL, err, sizeof err), -1);
  ck_assert_msg(strstr(err, p) && strstr(err, "line 2") &&
                strstr(err, "NUL byte"), "%s", err);
  fgt_inputs_free(&in);
  /* end to end: a usage error, nothing run */
  char args[2048];
  snprintf(p, sizeof p, "%s/p.fgp", dir);
  tu_write_text(p, identity);
  snprintf(args, sizeof args, "run %s -o %s/o -q @%s/list.txt", p, dir, dir);
  ck_assert_int_eq(tool(dir, args), 2);
  snprintf(args, sizeof args, "run %s -o %s/o -q - <&-", p, dir);
  ck_assert_int_eq(tool(dir, args), 2);
  char *e = tu_slurp(dir, "stderr");
  ck_assert_msg(strstr(e, "standard input: cannot read the list"), "%s", e);
  free(e);
  tu_rm_rf(dir);
}
END_TEST

/* A pipeline file that is a FIFO blocked `check` and `run` forever (in
 * open, waiting for a writer); a folder or a device was refused as only
 * "cannot read the pipeline file".  Each is refused now, naming what was
 * found instead of a text file. */
START_TEST(test_cli_pipeline_not_a_file) {
  char dir[64], p[512], args[2048];
  tu_tmpdir(dir, sizeof dir, "cli-pipeline");
  snprintf(p, sizeof p, "%s/fifo.fgp", dir);
  ck_assert_int_eq(mkfifo(p, 0600), 0);
  static const struct { const char *path, *found; } cases[] = {
    {"%s/fifo.fgp", "found a FIFO"}, {"%s", "found a folder"},
    {"/dev/zero", "found a device"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    snprintf(p, sizeof p, cases[i].path, dir);
    for (int run = 0; run < 2; run++) {
      snprintf(args, sizeof args, run ? "timeout 20 %s run %s -o %s/o "
               "/dev/null" : "timeout 20 %s check %s", FG_TOOL, p, dir);
      int rc = tu_shell(dir, "%s", args);
      char *e = tu_slurp(dir, "stderr");
      ck_assert_msg(rc == 2, "%s: exit %d\n%s", args, rc, e);
      ck_assert_msg(strstr(e, p) && strstr(e, cases[i].found), "%s: %s",
                    args, e);
      free(e);
    }
  }
  tu_rm_rf(dir);
}
END_TEST

/* Input names that are not UTF-8 (Latin-1 "\xff\xfe.png"): --json copied
 * the bytes raw, and the line was no JSON (RFC 8259 asks for UTF-8; a
 * strict reader refused it).  Each such byte is \udcXX now, which
 * Python's surrogateescape maps back to the file's name; valid UTF-8 and
 * control characters keep their forms; a resumed run finds its journal
 * entry by that name. */
START_TEST(test_cli_json_names_not_utf8) {
  char dir[64], p[640], in[512], args[2048];
  tu_tmpdir(dir, sizeof dir, "cli-json");
  snprintf(in, sizeof in, "%s/in", dir);
  ck_assert_int_eq(mkdir(in, 0755), 0);
  snprintf(p, sizeof p, "%s/\xff\xfe.png", in);
  write_image(p, 1, NULL);
  snprintf(p, sizeof p, "%s/\xc3\xa9\t\x7f.png", in);  /* é, tab, DEL */
  write_image(p, 2, NULL);
  snprintf(p, sizeof p, "%s/p.fgp", dir);
  tu_write_text(p, identity);
  for (int again = 0; again < 2; again++) {
    snprintf(args, sizeof args, "run %s -o %s/o --json --skip-existing %s",
             p, dir, in);
    ck_assert_int_eq(tool(dir, args), 0);
    char *o = tu_slurp(dir, "stdout");
    ck_assert_msg(strstr(o, "/\\udcff\\udcfe.png\""), "%s", o);
    ck_assert_msg(strstr(o, "/\xc3\xa9\\u0009\\u007f.png\""), "%s", o);
    ck_assert_msg(!strchr(o, '\xff') && !strchr(o, '\xfe'), "%s", o);
    if (again) {                  /* both found in the journal */
      const char *a = strstr(o, "\\udcff\\udcfe.png\",\"status\":\"skipped\"");
      ck_assert_msg(a != NULL, "%s", o);
      ck_assert_msg(strstr(o, "\\u007f.png\",\"status\":\"skipped\""), "%s",
                    o);
    }
    free(o);
  }
  tu_rm_rf(dir);
}
END_TEST

/* A literal past the largest double (1e999, or 1e400 under a minus) was
 * read by strtod as infinity and accepted: `x * 1e999` made every pixel
 * inf or NaN with exit status 0.  Refused now, naming the literal. */
START_TEST(test_pipeline_number_out_of_range) {
  static const char *const texts[] = {
    "x = input()\nsave(x * 1e999, \"a.png\")\n",
    "x = input()\nsave(gaussian_blur(x, sigma=-1e400), \"a.png\")\n",
    "x = input()\ny = x + 0x1p99999\nsave(y, \"a.png\")\n"};
  static const char *const lits[] = {"number 1e999", "number 1e400",
                                     "number 0x1p99999"};
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    char err[4096];
    ck_assert(fgt_pipeline_parse("n.fgp", texts[i], err, sizeof err) == NULL);
    ck_assert_msg(strstr(err, lits[i]) && strstr(err, "out of range") &&
                  strstr(err, "finite"), "%s", err);
  }
  /* the largest finite literal stays a number */
  char err[4096];
  fgt_pipeline *p = fgt_pipeline_parse("n.fgp", "x = input()\n"
                                       "save(x * 1.7e308, \"a.png\")\n", err,
                                       sizeof err);
  ck_assert_msg(p != NULL, "%s", err);
  fgt_pipeline_free(p);
}
END_TEST

/* --timeout past its bound (1e300 seconds) was refused as "expected
 * seconds above 0", which it was: the message names the bound now. */
START_TEST(test_cli_timeout_bound_named) {
  char dir[64], args[512];
  tu_tmpdir(dir, sizeof dir, "cli-timeout");
  static const char *const vals[] = {"1e300", "inf", "0", "nan"};
  for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
    snprintf(args, sizeof args, "run /dev/null --timeout %s x.png", vals[i]);
    ck_assert_int_eq(tool(dir, args), 2);
    char *e = tu_slurp(dir, "stderr");
    ck_assert_msg(strstr(e, "--timeout") && strstr(e, "at most 1e7") &&
                  strstr(e, vals[i]), "%s", e);
    free(e);
  }
  tu_rm_rf(dir);
}
END_TEST

/* An output name near NAME_MAX (a 248-byte stem, 252 bytes with ".png")
 * failed as "NAME.png.tmp-0.png: cannot write: File name too long",
 * naming a file nobody asked for.  It is refused naming the output, its
 * length and the limit; the longest name allowed is written. */
START_TEST(test_cli_output_name_near_name_max) {
  char dir[64], p[512], args[2048], stem[300];
  tu_tmpdir(dir, sizeof dir, "cli-namemax");
  snprintf(p, sizeof p, "%s/p.fgp", dir);
  tu_write_text(p, identity);
  static const int lens[] = {248, NAME_MAX - FGT_TMP_ROOM - 4};
  for (int i = 0; i < 2; i++) {
    memset(stem, 'b', (size_t)lens[i]);
    stem[lens[i]] = '\0';
    char img[1024], src[600];
    snprintf(src, sizeof src, "%s/short.png", dir);
    write_image(src, i, NULL);  /* its own temporary name would not fit */
    snprintf(img, sizeof img, "%s/%s.png", dir, stem);
    ck_assert_int_eq(rename(src, img), 0);
    snprintf(args, sizeof args, "run %s -o %s/o%d -q '%s'", p, dir, i, img);
    int rc = tool(dir, args);
    char *e = tu_slurp(dir, "stderr");
    char out[1200];
    snprintf(out, sizeof out, "%s/o%d/%s.png", dir, i, stem);
    if (i == 0) {
      ck_assert_msg(rc == 1, "exit %d: %s", rc, e);
      ck_assert_msg(strstr(e, "a file name of 252 bytes") &&
                    strstr(e, "at most 215") && !strstr(e, ".tmp-"), "%s",
                    e);
      ck_assert(!exists(out));
      snprintf(out, sizeof out, "%s/o%d", dir, i);
      ck_assert_int_eq(count_files(out), 0);
    } else {
      ck_assert_msg(rc == 0, "exit %d: %s", rc, e);
      ck_assert(exists(out));
    }
    free(e);
  }
  tu_rm_rf(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cli_inputs");
  TCase *u = tcase_create("units");
  tcase_set_timeout(u, 120);
  tcase_add_test(u, test_outputs_template_checked_alone);
  tcase_add_test(u, test_outputs_values_stay_inside);
  tcase_add_test(u, test_outputs_collisions_found);
  tcase_add_test(u, test_inputs_deep_tree_no_recursion);
  tcase_add_test(u, test_inputs_links_and_fifos);
  tcase_add_test(u, test_inputs_missing_empty_and_long_lines);
  tcase_add_test(u, test_pipeline_inputs_of_a_wide_call);
  tcase_add_test(u, test_pipeline_limits_named);
  tcase_add_test(u, test_inputs_list_unreadable_or_nul);
  tcase_add_test(u, test_pipeline_number_out_of_range);
  suite_add_tcase(s, u);
  TCase *tc = tcase_create("cli");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_cli_templates_stay_inside_output);
  tcase_add_test(tc, test_cli_collisions_before_any_input);
  tcase_add_test(tc, test_cli_deep_tree);
  tcase_add_test(tc, test_cli_links_and_fifos);
  tcase_add_test(tc, test_cli_link_inside_output_not_followed);
  tcase_add_test(tc, test_cli_many_names_bound);
  tcase_add_test(tc, test_cli_malformed_shard_variables);
  tcase_add_test(tc, test_cli_index_is_global_under_shards);
  tcase_add_test(tc, test_cli_same_template_twice_refused_by_check);
  tcase_add_test(tc, test_cli_empty_folder_and_missing_path);
  tcase_add_test(tc, test_cli_reader_gone_leaves_no_pending_file);
  tcase_add_test(tc, test_cli_stdout_write_error_fails);
  tcase_add_test(tc, test_cli_pipeline_not_a_file);
  tcase_add_test(tc, test_cli_json_names_not_utf8);
  tcase_add_test(tc, test_cli_timeout_bound_named);
  tcase_add_test(tc, test_cli_output_name_near_name_max);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
