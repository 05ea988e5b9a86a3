/* tests/check_cli.c - the `fieldgraph` command run as a user runs it, as a
 * subprocess: a mixed batch with bad inputs (truncated JPEG, empty file,
 * non-image) and unusual good ones (16-bit PNG, grey+alpha PNG) whose
 * outputs are compared with the same pipeline built with the C API
 * (examples/operators.c); --shard covering every input once; resuming
 * with --skip-existing; parse errors at the right line and column.
 */
#include "examples/operators.h"
#include "testutil.h"

#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <png.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef FG_TOOL
#error FG_TOOL (the path of tools/fieldgraph) must be defined
#endif
#ifndef FG_CLI_DIR
#error FG_CLI_DIR (tests/cli) must be defined
#endif

/* ---- helpers ------------------------------------------------------------ */

/* Runs the tool with args (a shell fragment), stdout and stderr to files in
 * dir; returns its exit status. */
static int tool(const char *dir, const char *args) {
  return tu_shell(dir, "%s %s", FG_TOOL, args);
}

static void copy_file(const char *from, const char *to, long max) {
  FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
  ck_assert(a && b);
  char buf[65536];
  size_t n;
  long total = 0;
  while ((n = fread(buf, 1, sizeof buf, a)) > 0 && (max < 0 || total < max)) {
    if (max >= 0 && total + (long)n > max)
      n = (size_t)(max - total);
    ck_assert_uint_eq(fwrite(buf, 1, n, b), n);
    total += (long)n;
  }
  fclose(a);
  fclose(b);
}

/* A 16-bit RGB PNG holding img's 8-bit values times 257 (which the reader
 * scales back to exactly img). */
static void write_png16(const char *path, const fg_image *img) {
  FILE *f = fopen(path, "wb");
  ck_assert(f != NULL);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
                                            NULL, NULL);
  png_infop info = png_create_info_struct(png);
  ck_assert(png && info && img->channels == 3);
  png_init_io(png, f);
  png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height,
               16, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  size_t w = (size_t)img->width * 3;
  unsigned char *row = malloc(w * 2);
  for (int y = 0; y < img->height; y++) {
    for (size_t x = 0; x < w; x++) {
      unsigned v = img->data[(size_t)y * w + x] * 257u;
      row[2 * x] = (unsigned char)(v >> 8);     /* big-endian */
      row[2 * x + 1] = (unsigned char)v;
    }
    png_write_row(png, row);
  }
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  free(row);
  fclose(f);
}

/* The pipeline's outputs computed with the C API for the image at path:
 * half (flipped, halved), light (L * 2.55 as u8) and the mean of L. */
typedef struct ref {
  fg_image img, half, light;
  double mean_l;
} ref;

static void reference(const char *path, ref *r) {
  char err[1024];
  ck_assert_msg(fg_image_read(path, &r->img, err, sizeof err) == FG_OK, "%s",
                err);
  fg_image *im = &r->img;
  if (im->type == FG_IMAGE_U16) {
    /* the test's 16-bit files hold 8-bit values times 257: exactly */
    fg_image b8;
    ck_assert_int_eq(fg_image_alloc(&b8, im->width, im->height,
                                    im->channels), FG_OK);
    size_t n = (size_t)im->width * im->height * im->channels;
    for (size_t i = 0; i < n; i++)
      b8.data[i] = (uint8_t)(((const uint16_t *)im->data)[i] / 257);
    fg_image_free(im);
    *im = b8;
  }
  fg_graph *g = fg_graph_new("ref");
  fg_field *in = fg_input(g, "in", fg_type_image(FG_U8, im->height,
                                                 im->width, im->channels));
  fg_field *rgb = ex_to_unit_float(g, in);
  fg_field *lab = ex_rgb_to_cielab(g, rgb);
  fg_output(g, "half", ex_to_u8(g, ex_half(g, ex_upside_down(g, rgb))));
  fg_output(g, "light", ex_lightness_u8(g, lab));
  fg_output(g, "lab", lab);
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  ck_assert_int_eq(fg_image_alloc(&r->half, im->width, im->height,
                                  im->channels), FG_OK);
  ck_assert_int_eq(fg_image_alloc(&r->light, im->width, im->height, 1),
                   FG_OK);
  size_t n = (size_t)im->width * (size_t)im->height;
  float *labv = malloc(n * 3 * sizeof *labv);
  ck_assert_msg(fg_program_run(p, 1, (const void *[]){im->data}, 3,
                               (void *[]){r->half.data, r->light.data, labv})
                == FG_OK, "%s", fg_context_errmsg(ctx));
  /* an input's alpha is kept beside its colour: the flip moves it, the
   * halving leaves it (the C graph above halved it as a plain channel) */
  int ch = im->channels;
  if (ch == 2 || ch == 4)
    for (int y = 0; y < im->height; y++)
      for (int x = 0; x < im->width; x++)
        r->half.data[((size_t)y * im->width + x) * ch + ch - 1] =
            im->data[((size_t)(im->height - 1 - y) * im->width + x) * ch +
                     ch - 1];
  double s = 0;
  for (size_t i = 0; i < n; i++)
    s += labv[3 * i];
  r->mean_l = s / (double)n;
  free(labv);
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}

static void ref_free(ref *r) {
  fg_image_free(&r->img);
  fg_image_free(&r->half);
  fg_image_free(&r->light);
}

/* Asserts the image at path equals want within 1 in every byte (float
 * rounding of a fused kernel may differ by one step); a 16-bit image
 * (from a 16-bit input) is compared scaled to 8 bits. */
static void expect_image(const char *path, const fg_image *want) {
  fg_image got;
  char err[1024];
  ck_assert_msg(fg_image_read(path, &got, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert_int_eq(got.width, want->width);
  ck_assert_int_eq(got.height, want->height);
  ck_assert_int_eq(got.channels, want->channels);
  size_t n = (size_t)got.width * got.height * got.channels, off = 0;
  const uint16_t *g16 = (const uint16_t *)got.data;
  for (size_t i = 0; i < n; i++)
    if (abs((got.type == FG_IMAGE_U16 ? (g16[i] + 128) / 257 : got.data[i]) -
            want->data[i]) > 1)
      off++;
  ck_assert_msg(off == 0, "%s: %zu bytes differ by more than 1", path, off);
  fg_image_free(&got);
}

/* Files in dir whose names contain needle (0 when none). */
static int count_named(const char *dir, const char *needle) {
  DIR *d = opendir(dir);
  ck_assert(d != NULL);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strstr(e->d_name, needle))
      n++;
  closedir(d);
  return n;
}

/* The JSON line of id in out (a pointer into it), NULL when none. */
static const char *json_line(const char *out, const char *id) {
  char key[600];
  snprintf(key, sizeof key, "{\"id\":\"%s\"", id);
  return strstr(out, key);
}

static int lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

/* ---- the mixed batch ---------------------------------------------------- */

/* The batch under dir/in: good photos (grey PNG, RGB PNG, JPEG, 16-bit
 * PNG, grey+alpha PNG) and bad files (truncated JPEG, empty, text). */
static const char *good[] = {"camera.png", "chelsea.png", "hubble.jpg",
                             "deep16.png", "greyalpha.png", "cat.ppm"};
enum { N_GOOD = sizeof good / sizeof good[0] };
static const char *bad[] = {"truncated.jpg", "empty.png", "notes.jpg"};

static void make_batch(const char *dir) {
  char in[256], a[512], b[512];
  snprintf(in, sizeof in, "%s/in", dir);
  ck_assert_int_eq(mkdir(in, 0755), 0);
  char sp[512];
  snprintf(b, sizeof b, "%s/camera.png", in);
  copy_file(tu_sample("camera.png", sp, sizeof sp), b, -1);
  snprintf(b, sizeof b, "%s/chelsea.png", in);
  copy_file(tu_sample("chelsea.png", sp, sizeof sp), b, -1);
  snprintf(b, sizeof b, "%s/hubble.jpg", in);
  copy_file(tu_sample("hubble_deep_field.jpg", sp, sizeof sp), b, -1);
  snprintf(b, sizeof b, "%s/truncated.jpg", in);
  copy_file(tu_sample("hubble_deep_field.jpg", sp, sizeof sp), b, 20000);
  snprintf(b, sizeof b, "%s/empty.png", in);
  tu_write_text(b, "");
  snprintf(b, sizeof b, "%s/notes.jpg", in);
  tu_write_text(b, "these are notes, not a JPEG\n");
  fg_image img, ga;
  char err[512];
  ck_assert(fg_image_read(tu_sample("chelsea.png", sp, sizeof sp), &img, err,
                          sizeof err) == FG_OK);
  snprintf(b, sizeof b, "%s/deep16.png", in);
  write_png16(b, &img);
  ck_assert_int_eq(fg_image_alloc(&ga, img.width, img.height, 2), FG_OK);
  for (int i = 0; i < img.width * img.height; i++) {
    ga.data[2 * i] = img.data[3 * i + 1];
    ga.data[2 * i + 1] = (unsigned char)(i % 251);
  }
  snprintf(a, sizeof a, "%s/greyalpha.png", in);
  ck_assert(fg_image_write(a, &ga, 0, err, sizeof err) == FG_OK);
  /* a PPM, read back equal to its source */
  fg_image back;
  snprintf(a, sizeof a, "%s/cat.ppm", in);
  ck_assert(fg_image_write(a, &img, 0, err, sizeof err) == FG_OK);
  ck_assert_msg(fg_image_read(a, &back, err, sizeof err) == FG_OK, "%s", err);
  ck_assert(back.width == img.width && back.height == img.height &&
            back.channels == 3);
  ck_assert(!memcmp(back.data, img.data, (size_t)img.width * img.height * 3));
  fg_image_free(&back);
  fg_image_free(&img);
  fg_image_free(&ga);
}

START_TEST(test_cli_mixed_batch) {
  char dir[64], args[8192];
  tu_tmpdir(dir, sizeof dir, "cli");
  make_batch(dir);
  snprintf(args, sizeof args, "run %s/lab.fgp -o %s/out --json -q -j 2 %s/in",
           FG_CLI_DIR, dir, dir);
  int rc = tool(dir, args);
  char *out = tu_slurp(dir, "stdout"), *err = tu_slurp(dir, "stderr");
  ck_assert_msg(rc == 1, "exit status %d, expected 1 (some failed)\n%s", rc,
                err);
  ck_assert_int_eq(lines(out), N_GOOD + 3);
  char id[512], path[512];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(id, sizeof id, "%s/in/%s", dir, bad[i]);
    const char *l = json_line(out, id);
    static const char failed[] = "\"status\":\"failed\"";
    ck_assert_msg(l && !strncmp(strchr(l, ',') + 1, failed, strlen(failed)),
                  "%s: not reported failed", bad[i]);
    ck_assert_msg(strstr(err, id) != NULL, "stderr does not name %s:\n%s",
                  id, err);
  }
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    snprintf(id, sizeof id, "%s/in/%s", dir, good[i]);
    const char *l = json_line(out, id);
    ck_assert_msg(l && strstr(l, "\"status\":\"ok\"") < strchr(l, '\n') &&
                  strstr(l, "\"status\":\"ok\""), "%s: not ok", good[i]);
    ref r;
    reference(id, &r);
    char stem[256];
    snprintf(stem, sizeof stem, "%.*s", (int)(strrchr(good[i], '.') -
                                             good[i]), good[i]);
    snprintf(path, sizeof path, "%s/out/%s-half.png", dir, stem);
    expect_image(path, &r.half);
    /* a 16-bit input gives a 16-bit PNG where its float result is saved
     * (libvips builds: without, 16-bit inputs are read as 8 bits) */
    fg_image half;
    char e2[512];
    ck_assert(fg_image_read(path, &half, e2, sizeof e2) == FG_OK);
    ck_assert_int_eq(half.type, !strcmp(good[i], "deep16.png") &&
                                    fg_image_format_known("x.tif")
                                    ? FG_IMAGE_U16 : FG_IMAGE_U8);
    fg_image_free(&half);
    snprintf(path, sizeof path, "%s/out/%s-light.png", dir, stem);
    expect_image(path, &r.light);
    const char *m = strstr(l, "\"meanL\":");
    ck_assert(m != NULL && m < strchr(l, '\n'));
    double got = strtod(m + 8, NULL);
    ck_assert_msg(fabs(got - r.mean_l) <= 1e-4 * fabs(r.mean_l) + 1e-4,
                  "%s: meanL %.9g, the C API's %.9g", good[i], got, r.mean_l);
    ck_assert(strstr(l, "\"sha256\":\"") < strchr(l, '\n'));
    ref_free(&r);
  }
  snprintf(path, sizeof path, "%s/out", dir);
  ck_assert_int_eq(count_named(path, ".png"), 2 * N_GOOD);
  ck_assert_int_eq(count_named(path, "tmp"), 0);    /* no temporaries */
  free(out);
  free(err);
  tu_rm_rf(dir);
}
END_TEST

/* ---- shards ------------------------------------------------------------- */

START_TEST(test_cli_shards_cover_once) {
  char dir[64], args[8192];
  tu_tmpdir(dir, sizeof dir, "cli");
  make_batch(dir);
  /* the list in one order, and reversed */
  char list[512], rlist[512], cmd[8500];
  snprintf(list, sizeof list, "%s/list.txt", dir);
  snprintf(rlist, sizeof rlist, "%s/rlist.txt", dir);
  snprintf(cmd, sizeof cmd, "ls -d %s/in/* > %s && sort -r %s > %s", dir,
           list, list, rlist);
  ck_assert_int_eq(system(cmd), 0);
  enum { ALL = N_GOOD + 3 };
  int seen[ALL] = {0};
  const char *all[ALL];
  for (int i = 0; i < N_GOOD; i++)
    all[i] = good[i];
  for (int i = 0; i < 3; i++)
    all[N_GOOD + i] = bad[i];
  for (int k = 1; k <= 3; k++) {
    char shard[2][4096];
    for (int order = 0; order < 2; order++) {
      snprintf(args, sizeof args, "run %s/lab.fgp -o %s/out%d --json "
               "--shard %d/3 @%s", FG_CLI_DIR, dir, k, k,
               order ? rlist : list);
      tool(dir, args);
      char *out = tu_slurp(dir, "stdout");
      /* the ids, in sorted order, as the shard's signature */
      char ids[4096] = "";
      for (int i = 0; i < ALL; i++) {
        char id[512];
        snprintf(id, sizeof id, "%s/in/%s", dir, all[i]);
        if (json_line(out, id)) {
          strcat(ids, all[i]);
          strcat(ids, " ");
          if (order == 0)
            seen[i]++;
        }
      }
      snprintf(shard[order], sizeof shard[order], "%s", ids);
      free(out);
    }
    ck_assert_msg(!strcmp(shard[0], shard[1]), "shard %d/3 changed with the "
                  "list's order: [%s] vs [%s]", k, shard[0], shard[1]);
    /* a Slurm array task (ids from 0) and a Kubernetes Indexed Job
     * (JOB_COMPLETION_INDEX with --shard-count) pick the same shard */
    for (int env = 0; env < 2; env++) {
      snprintf(args, sizeof args, env == 0
               ? "run %s/lab.fgp -o %s/env%d --json @%s"
               : "run %s/lab.fgp -o %s/env%d --json --shard-count 3 @%s",
               FG_CLI_DIR, dir, k, list);
      char prefixed[2200];
      if (env == 0)
        snprintf(prefixed, sizeof prefixed, "SLURM_ARRAY_TASK_ID=%d "
                 "SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=3 %s", k - 1,
                 FG_TOOL);
      else
        snprintf(prefixed, sizeof prefixed, "JOB_COMPLETION_INDEX=%d %s",
                 k - 1, FG_TOOL);
      char line[12000];
      snprintf(line, sizeof line, "env %s %s >%s/stdout 2>%s/stderr",
               prefixed, args, dir, dir);
      int st = system(line);
      ck_assert(st != -1 && WIFEXITED(st));
      char *out = tu_slurp(dir, "stdout");
      char ids[4096] = "";
      for (int i = 0; i < ALL; i++) {
        char id[512];
        snprintf(id, sizeof id, "%s/in/%s", dir, all[i]);
        if (json_line(out, id)) {
          strcat(ids, all[i]);
          strcat(ids, " ");
        }
      }
      ck_assert_msg(!strcmp(ids, shard[0]), "%s: shard %d of 3 is [%s], "
                    "--shard %d/3 gave [%s]", env ? "JOB_COMPLETION_INDEX"
                    : "SLURM_ARRAY_TASK_ID", k, ids, k, shard[0]);
      free(out);
    }
  }
  for (int i = 0; i < ALL; i++)
    ck_assert_msg(seen[i] == 1, "%s is in %d shards, expected 1", all[i],
                  seen[i]);
  tu_rm_rf(dir);
}
END_TEST

/* ---- resuming ----------------------------------------------------------- */

START_TEST(test_cli_skip_existing) {
  char dir[64], args[8192], path[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  make_batch(dir);
  snprintf(args, sizeof args, "run %s/lab.fgp -o %s/out -q %s/in/camera.png "
           "%s/in/chelsea.png %s/in/hubble.jpg", FG_CLI_DIR, dir, dir, dir,
           dir);
  ck_assert_int_eq(tool(dir, args), 0);
  /* what the first run reported for camera.png ("... meanL=52.28") */
  char *first = tu_slurp(dir, "stdout"), meanl[64] = "";
  const char *cam = strstr(first, "camera.png meanL=");
  ck_assert_ptr_nonnull(cam);
  sscanf(cam + strlen("camera.png meanL="), "%63s", meanl);
  free(first);
  /* as if interrupted: one input lost an output, another both */
  snprintf(path, sizeof path, "%s/out/chelsea-light.png", dir);
  ck_assert_int_eq(unlink(path), 0);
  snprintf(path, sizeof path, "%s/out/hubble-half.png", dir);
  ck_assert_int_eq(unlink(path), 0);
  snprintf(path, sizeof path, "%s/out/hubble-light.png", dir);
  ck_assert_int_eq(unlink(path), 0);
  struct stat before, after;
  snprintf(path, sizeof path, "%s/out/camera-half.png", dir);
  ck_assert_int_eq(stat(path, &before), 0);
  snprintf(args, sizeof args, "run %s/lab.fgp -o %s/out --json "
           "--skip-existing %s/in/camera.png %s/in/chelsea.png "
           "%s/in/hubble.jpg", FG_CLI_DIR, dir, dir, dir, dir);
  ck_assert_int_eq(tool(dir, args), 0);
  char *out = tu_slurp(dir, "stdout");
  char id[512];
  snprintf(id, sizeof id, "%s/in/camera.png", dir);
  ck_assert(strstr(json_line(out, id), "\"status\":\"skipped\"") ==
            json_line(out, id) + strlen(id) + 9);
  /* the skipped input carries the results the first run recorded */
  char want[128];
  snprintf(want, sizeof want, "\"results\":{\"meanL\":%s},\"results_from\":",
           meanl);
  const char *cl = json_line(out, id);
  ck_assert_msg(strstr(cl, want) && strstr(cl, want) < strchr(cl, '\n') &&
                strstr(cl, ".fieldgraph-results.jsonl"), "expected '%s' in "
                "%.300s", want, cl);
  snprintf(id, sizeof id, "%s/in/chelsea.png", dir);
  ck_assert(strstr(json_line(out, id), "\"status\":\"ok\"") ==
            json_line(out, id) + strlen(id) + 9);
  snprintf(id, sizeof id, "%s/in/hubble.jpg", dir);
  ck_assert(strstr(json_line(out, id), "\"status\":\"ok\"") ==
            json_line(out, id) + strlen(id) + 9);
  ck_assert_int_eq(stat(path, &after), 0);   /* camera's left untouched */
  ck_assert(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
            before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
  snprintf(path, sizeof path, "%s/out", dir);
  ck_assert_int_eq(count_named(path, ".png"), 6);
  ck_assert_int_eq(count_named(path, "tmp"), 0);
  free(out);
  tu_rm_rf(dir);
}
END_TEST

/* The size of dir/out/name. */
static long file_size(const char *dir, const char *name) {
  char path[512];
  struct stat st;
  snprintf(path, sizeof path, "%s/out/%s", dir, name);
  ck_assert_msg(stat(path, &st) == 0, "%s missing", path);
  return (long)st.st_size;
}

/* Runs the tool on argv (NULL-terminated, argv[0] is the tool) with files
 * limited to limit bytes (RLIMIT_FSIZE, SIGXFSZ ignored: a write past it
 * fails with EFBIG, as on a full disk); stdout and stderr to dir's files;
 * returns the exit status. */
static int tool_limited(const char *dir, long limit, char *const *argv) {
  char so[512], se[512];
  snprintf(so, sizeof so, "%s/stdout", dir);
  snprintf(se, sizeof se, "%s/stderr", dir);
  pid_t pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    FILE *o = freopen(so, "w", stdout), *e = freopen(se, "w", stderr);
    struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
    signal(SIGXFSZ, SIG_IGN);
    if (!o || !e || setrlimit(RLIMIT_FSIZE, &rl) != 0)
      _exit(126);
    execv(FG_TOOL, argv);
    _exit(127);
  }
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert_msg(WIFEXITED(st), "the tool ended by signal %d", WTERMSIG(st));
  return WEXITSTATUS(st);
}

/* A full disk while an input's outputs are written (files limited to a
 * size between the two outputs', so the first fits and the second does
 * not): the input fails, naming the output; both outputs of the earlier
 * run stay as they were (never a new one beside an old one); no temporary
 * is left; a later run with room replaces both. */
START_TEST(test_cli_full_disk_keeps_previous_outputs) {
  char dir[64], fgp[512], in[512], a[512], b[512], out[512], sp[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  snprintf(fgp, sizeof fgp, "%s/two.fgp", dir);
  tu_write_text(fgp, "rgb = input()\n"
                  "save(rgb.x, \"{stem}-a.png\")\n"     /* grey: smaller */
                  "save(rgb * 0.5, \"{stem}-b.png\")\n");
  snprintf(in, sizeof in, "%s/astronaut.png", dir);
  copy_file(tu_sample("astronaut.png", sp, sizeof sp), in, -1);
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(a, sizeof a, "%s/out/astronaut-a.png", dir);
  snprintf(b, sizeof b, "%s/out/astronaut-b.png", dir);
  char *run[] = {FG_TOOL, "run", fgp, "-o", out, "-q", in, NULL};
  ck_assert_int_eq(tool_limited(dir, 1L << 30, run), 0);
  long sa = file_size(dir, "astronaut-a.png"),
       sb = file_size(dir, "astronaut-b.png");
  ck_assert_msg(sa < sb, "grey %ld bytes, RGB %ld", sa, sb);
  /* the earlier run's outputs, recognisable */
  tu_write_text(a, "previous a");
  tu_write_text(b, "previous b");
  char *json[] = {FG_TOOL, "run", fgp, "-o", out, "--json", in, NULL};
  ck_assert_int_ne(tool_limited(dir, (sa + sb) / 2, json), 0);
  char *o = tu_slurp(dir, "stdout"), *e = tu_slurp(dir, "stderr");
  ck_assert_msg(strstr(o, "\"status\":\"failed\"") &&
                strstr(o, "\"class\":\"write\"") &&
                strstr(o, "astronaut-b.png"), "stdout: %s", o);
  ck_assert_msg(strstr(e, "astronaut-b.png"), "stderr: %s", e);
  char *pa = tu_slurp(out, "astronaut-a.png");
  char *pb = tu_slurp(out, "astronaut-b.png");
  ck_assert_str_eq(pa, "previous a");
  ck_assert_str_eq(pb, "previous b");
  ck_assert_int_eq(count_named(out, "tmp"), 0);
  ck_assert_int_eq(count_named(out, ".png"), 2);
  free(o);
  free(e);
  free(pa);
  free(pb);
  /* with room again both are replaced */
  ck_assert_int_eq(tool_limited(dir, 1L << 30, run), 0);
  ck_assert_int_eq(file_size(dir, "astronaut-a.png"), sa);
  ck_assert_int_eq(file_size(dir, "astronaut-b.png"), sb);
  tu_rm_rf(dir);
}
END_TEST

/* Output files in dir/out of the batch of n copies named c00.png ... */
static int outputs_of(const char *dir, int i) {
  char path[512];
  struct stat st;
  int n = 0;
  snprintf(path, sizeof path, "%s/out/c%02d-half.png", dir, i);
  n += stat(path, &st) == 0;
  snprintf(path, sizeof path, "%s/out/c%02d-light.png", dir, i);
  n += stat(path, &st) == 0;
  return n;
}

START_TEST(test_cli_killed_then_resumed) {
  enum { N = 16 };
  char dir[64], path[512], sp[512], args[2048];
  tu_tmpdir(dir, sizeof dir, "cli");
  snprintf(path, sizeof path, "%s/in", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  for (int i = 0; i < N; i++) {
    snprintf(path, sizeof path, "%s/in/c%02d.png", dir, i);
    copy_file(tu_sample("camera.png", sp, sizeof sp), path, -1);
  }
  snprintf(path, sizeof path, "%s/out", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  /* killed (SIGKILL: no chance to clean up) once some outputs exist */
  pid_t pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    char pipe[512], in[512], out[512];
    snprintf(pipe, sizeof pipe, "%s/lab.fgp", FG_CLI_DIR);
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    if (!freopen("/dev/null", "w", stderr) ||
        !freopen("/dev/null", "w", stdout))
      _exit(126);
    execl(FG_TOOL, FG_TOOL, "run", pipe, "-o", out, "-q", "-j", "1", in,
          (char *)NULL);
    _exit(127);
  }
  int done = 0;
  for (int t = 0; t < 6000 && done < 2; t++) {
    usleep(10000);
    done = 0;
    for (int i = 0; i < N; i++)
      done += outputs_of(dir, i) == 2;
  }
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  ck_assert(WIFSIGNALED(status));
  int complete = 0;
  for (int i = 0; i < N; i++)
    complete += outputs_of(dir, i) == 2;
  ck_assert_msg(complete >= 2 && complete < N, "%d of %d done when killed",
                complete, N);
  /* what a kill in the middle of writing leaves: a temporary beside the
   * output (made here, as the moment of the kill is not ours to pick) */
  snprintf(path, sizeof path, "%s/out/c%02d-half.png.tmp-Ab12Cd", dir, N - 1);
  tu_write_text(path, "half a PNG");
  snprintf(args, sizeof args, "run %s/lab.fgp -o %s/out --json "
           "--skip-existing %s/in", FG_CLI_DIR, dir, dir);
  ck_assert_int_eq(tool(dir, args), 0);
  char *out = tu_slurp(dir, "stdout");
  int skipped = 0, ok = 0;
  for (const char *p = out; (p = strstr(p, "\"status\":\"")); p++) {
    skipped += !strncmp(p + 10, "skipped", 7);
    ok += !strncmp(p + 10, "ok", 2);
  }
  ck_assert_int_eq(skipped, complete);
  ck_assert_int_eq(ok, N - complete);
  for (int i = 0; i < N; i++)
    ck_assert_int_eq(outputs_of(dir, i), 2);
  snprintf(path, sizeof path, "%s/out", dir);
  ck_assert_int_eq(count_named(path, ".tmp-"), 0);
  ck_assert_int_eq(count_named(path, ".png"), 2 * N);
  ref r;
  snprintf(path, sizeof path, "%s/in/c%02d.png", dir, N - 1);
  reference(path, &r);
  snprintf(path, sizeof path, "%s/out/c%02d-half.png", dir, N - 1);
  expect_image(path, &r.half);
  ref_free(&r);
  free(out);
  tu_rm_rf(dir);
}
END_TEST

/* ---- a directory that cannot be read ------------------------------------ */

START_TEST(test_cli_unreadable_directory) {
  char dir[64], path[512], sp[512], args[4096];
  tu_tmpdir(dir, sizeof dir, "cli");
  ck_assert_int_eq(chmod(dir, 0777), 0);
  snprintf(path, sizeof path, "%s/in", dir);
  ck_assert_int_eq(mkdir(path, 0777), 0);
  snprintf(path, sizeof path, "%s/in/camera.png", dir);
  copy_file(tu_sample("camera.png", sp, sizeof sp), path, -1);
  ck_assert_int_eq(chmod(path, 0644), 0);
  snprintf(path, sizeof path, "%s/in/locked", dir);
  ck_assert_int_eq(mkdir(path, 0000), 0);
  /* root reads any directory: run the command as nobody then */
  const char *as = "";
  if (geteuid() == 0) {
    if (system("command -v setpriv >/dev/null 2>&1") != 0) {
      fprintf(stderr, "test_cli_unreadable_directory: skipped: running as "
              "root without setpriv, no way to run as another user\n");
      tu_rm_rf(dir);
      return;
    }
    as = "setpriv --reuid=65534 --regid=65534 --clear-groups env "
         "FG_CACHE_DIR=";
  }
  snprintf(args, sizeof args, "run %s/lab.fgp -o %s/out --json %s/in",
           FG_CLI_DIR, dir, dir);
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "%s%s%s %s %s >%s/stdout 2>%s/stderr", as,
           *as ? dir : "", *as ? "/cache" : "", FG_TOOL, args, dir, dir);
  int st = system(cmd);
  ck_assert(WIFEXITED(st));
  char *out = tu_slurp(dir, "stdout"), *err = tu_slurp(dir, "stderr");
  ck_assert_msg(WEXITSTATUS(st) == 1, "exit %d:\n%s", WEXITSTATUS(st), err);
  snprintf(path, sizeof path, "%s/in/locked", dir);
  const char *l = json_line(out, path);
  ck_assert_msg(l && strstr(l, "\"status\":\"failed\""), "%s", out);
  ck_assert(strstr(err, path) != NULL);
  snprintf(path, sizeof path, "%s/in/camera.png", dir);
  l = json_line(out, path);
  ck_assert_msg(l && strstr(l, "\"status\":\"ok\"") < strchr(l, '\n'),
                "%s", out);
  free(out);
  free(err);
  snprintf(path, sizeof path, "%s/in/locked", dir);
  chmod(path, 0755);
  tu_rm_rf(dir);
}
END_TEST

/* ---- PNG encoder options ------------------------------------------------- */

START_TEST(test_cli_png_options) {
  char dir[64], file[128], args[2048], sp[512], path[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  snprintf(file, sizeof file, "%s/p.fgp", dir);
  tu_write_text(file, "rgb = input()\n"
                "save(rgb, \"small.png[compression=9,filter=all]\")\n"
                "save(rgb, \"stored.png\", compression=0)\n"
                "save(rgb, \"default.png\")\n");
  snprintf(args, sizeof args, "run %s -o %s/out -q %s", file, dir,
           tu_sample("coffee.png", sp, sizeof sp));
  ck_assert_int_eq(tool(dir, args), 0);
  long small = file_size(dir, "small.png");
  long def = file_size(dir, "default.png");
  long stored = file_size(dir, "stored.png");
  ck_assert_msg(small < def && def < stored, "sizes: level 9 + all filters "
                "%ld, default %ld, level 0 %ld", small, def, stored);
  /* the same pixels in all three, the input's */
  fg_image in;
  char err[512];
  ck_assert(fg_image_read(sp, &in, err, sizeof err) == FG_OK);
  const char *names[] = {"small.png", "stored.png", "default.png"};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/out/%s", dir, names[i]);
    expect_image(path, &in);
  }
  fg_image_free(&in);
  tu_rm_rf(dir);
}
END_TEST

/* ---- operators with parameters ------------------------------------------- */

START_TEST(test_cli_operator_arguments) {
  char dir[64], file[128], args[2048], sp[512], path[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  snprintf(file, sizeof file, "%s/p.fgp", dir);
  tu_write_text(file, "rgb = input()\n"
                "save(flip(rgb), \"v.png\")                    # defaults\n"
                "save(flip(rgb, horizontal=1, vertical=0), \"h.png\")\n"
                "save(flip(vertical=1, image=rgb, horizontal=1), \"hv.png\")\n"
                "save(flip(rgb, 1), \"hv2.png\")               # positional\n");
  snprintf(args, sizeof args, "run %s -o %s/out -q %s", file, dir,
           tu_sample("chelsea.png", sp, sizeof sp));
  ck_assert_int_eq(tool(dir, args), 0);
  fg_image in, want;
  char err[512];
  ck_assert(fg_image_read(sp, &in, err, sizeof err) == FG_OK);
  int w = in.width, h = in.height, ch = in.channels;
  const char *names[] = {"v.png", "h.png", "hv.png", "hv2.png"};
  const int hflip[] = {0, 1, 1, 1}, vflip[] = {1, 0, 1, 1};
  for (int k = 0; k < 4; k++) {
    ck_assert_int_eq(fg_image_alloc(&want, w, h, ch), FG_OK);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        memcpy(want.data + ((size_t)y * w + x) * ch,
               in.data + ((size_t)(vflip[k] ? h - 1 - y : y) * w +
                          (hflip[k] ? w - 1 - x : x)) * ch, (size_t)ch);
    snprintf(path, sizeof path, "%s/out/%s", dir, names[k]);
    expect_image(path, &want);
    fg_image_free(&want);
  }
  fg_image_free(&in);
  tu_rm_rf(dir);
}
END_TEST

/* Pipelines that use the image's size and pixel coordinates: a vignette,
 * a letterbox to 1024 x 1024, a crop to the central half, a resize to a
 * width keeping the aspect ratio and a watermark overlay, each against C. */
START_TEST(test_cli_size_language) {
  char dir[64], file[128], args[2048], sp[512], path[512], err[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  snprintf(file, sizeof file, "%s/p.fgp", dir);
  tu_write_text(file, "rgb = input()\n"
                "dx = x - width / 2\n"
                "dy = y - height / 2\n"
                "d2 = (dx * dx + dy * dy) / (width * width / 4 + "
                "height * height / 4)\n"
                "save(rgb * (1 - 0.6 * d2), \"vignette.png\")\n"
                "save(pad(rgb, to=[1024, 1024]), \"letterbox.png\")\n"
                "save(crop(rgb, height / 4, width / 4, height / 2, width / 2), "
                "\"centre.png\")\n"
                "small = resize(rgb, width=64)\n"
                "save(small, \"small.png\")\n"
                "save(overlay(rgb, small, width - 70, 6), \"mark.png\")\n");
  snprintf(args, sizeof args, "run %s -o %s/out -q %s", file, dir,
           tu_sample("chelsea.png", sp, sizeof sp));
  ck_assert_int_eq(tool(dir, args), 0);
  fg_image in, got, small;
  ck_assert(fg_image_read(sp, &in, err, sizeof err) == FG_OK);
  int w = in.width, h = in.height, ch = in.channels;
  const uint8_t *px = in.data;
  /* vignette */
  snprintf(path, sizeof path, "%s/out/vignette.png", dir);
  ck_assert(fg_image_read(path, &got, err, sizeof err) == FG_OK);
  ck_assert(got.width == w && got.height == h);
  int worst = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      double dx = x - w / 2.0, dy = y - h / 2.0;
      double d2 = (dx * dx + dy * dy) / (w * w / 4.0 + h * h / 4.0);
      for (int k = 0; k < ch; k++) {
        size_t i = ((size_t)y * w + x) * ch + k;
        double v = px[i] / 255.0 * (1 - 0.6 * d2);
        int want = (int)lround(fmin(fmax(v, 0), 1) * 255);
        int d = abs(got.data[i] - want);
        worst = d > worst ? d : worst;
      }
    }
  ck_assert_msg(worst <= 1, "vignette off by %d", worst);
  fg_image_free(&got);
  /* letterbox: centred, the odd pixel at the bottom and right, black */
  snprintf(path, sizeof path, "%s/out/letterbox.png", dir);
  ck_assert(fg_image_read(path, &got, err, sizeof err) == FG_OK);
  ck_assert(got.width == 1024 && got.height == 1024);
  int top = (1024 - h) / 2, left = (1024 - w) / 2;
  for (int y = 0; y < 1024; y++)
    for (int x = 0; x < 1024; x++)
      for (int k = 0; k < ch; k++) {
        int sy = y - top, sx = x - left;
        int want = sy < 0 || sx < 0 || sy >= h || sx >= w ? 0
                   : px[((size_t)sy * w + sx) * ch + k];
        ck_assert_int_eq(got.data[((size_t)y * 1024 + x) * ch + k], want);
      }
  fg_image_free(&got);
  /* the central half: rows from floor(h / 4), floor(h / 2) of them */
  snprintf(path, sizeof path, "%s/out/centre.png", dir);
  ck_assert(fg_image_read(path, &got, err, sizeof err) == FG_OK);
  ck_assert(got.width == w / 2 && got.height == h / 2);
  for (int y = 0; y < h / 2; y++)
    ck_assert(!memcmp(got.data + (size_t)y * (w / 2) * ch,
                      px + ((size_t)(y + h / 4) * w + w / 4) * ch,
                      (size_t)(w / 2) * ch));
  fg_image_free(&got);
  /* resize to a width: the height keeps the aspect ratio */
  snprintf(path, sizeof path, "%s/out/small.png", dir);
  ck_assert(fg_image_read(path, &small, err, sizeof err) == FG_OK);
  ck_assert_int_eq(small.width, 64);
  ck_assert_int_eq(small.height, (int)floor(h * 64.0 / w + 0.5));
  /* the watermark: small where it lies, the photo elsewhere */
  snprintf(path, sizeof path, "%s/out/mark.png", dir);
  ck_assert(fg_image_read(path, &got, err, sizeof err) == FG_OK);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int sy = y - 6, sx = x - (w - 70);
      const uint8_t *want = sy >= 0 && sx >= 0 && sy < small.height &&
                            sx < small.width
          ? small.data + ((size_t)sy * small.width + sx) * ch
          : px + ((size_t)y * w + x) * ch;
      ck_assert(!memcmp(got.data + ((size_t)y * w + x) * ch, want,
                        (size_t)ch));
    }
  fg_image_free(&got);
  fg_image_free(&small);
  fg_image_free(&in);
  tu_rm_rf(dir);
}
END_TEST

/* A size-dependent parameter is checked against the inputs' own sizes:
 * run no longer refuses a 200 x 200 crop because its stand-in image was
 * 16 x 16, and check with inputs names each input a pipeline does not fit
 * (exit 1), or exits 2 when it fits none. */
START_TEST(test_cli_checked_for_input_sizes) {
  char dir[64], file[128], args[2048], sp[512], sp2[512], path[512];
  char err[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  snprintf(file, sizeof file, "%s/p.fgp", dir);
  tu_write_text(file, "rgb = input()\nsave(crop(rgb, 10, 20, 200, 350), "
                "\"{stem}-c.png\")\n");
  tu_sample("chelsea.png", sp, sizeof sp);     /* 451 x 300 */
  tu_sample("coffee.png", sp2, sizeof sp2);    /* 600 x 400 */
  snprintf(args, sizeof args, "run %s -o %s/out -q %s", file, dir, sp);
  ck_assert_int_eq(tool(dir, args), 0);
  fg_image in, got;
  ck_assert(fg_image_read(sp, &in, err, sizeof err) == FG_OK);
  snprintf(path, sizeof path, "%s/out/chelsea-c.png", dir);
  ck_assert(fg_image_read(path, &got, err, sizeof err) == FG_OK);
  ck_assert(got.width == 350 && got.height == 200);
  for (int y = 0; y < 200; y++)
    ck_assert(!memcmp(got.data + (size_t)y * 350 * 3,
                      in.data + ((size_t)(y + 10) * in.width + 20) * 3,
                      350 * 3));
  fg_image_free(&got);
  fg_image_free(&in);
  snprintf(args, sizeof args, "check %s %s %s", file, sp, sp2);
  ck_assert_int_eq(tool(dir, args), 0);
  /* 420 columns: coffee (600) fits, chelsea (451 - 20 < 420) does not */
  tu_write_text(file, "rgb = input()\nsave(crop(rgb, 10, 40, 200, 420), "
                "\"{stem}-c.png\")\n");
  snprintf(args, sizeof args, "check %s %s %s", file, sp, sp2);
  ck_assert_int_eq(tool(dir, args), 1);
  char *e = tu_slurp(dir, "stderr");
  ck_assert_msg(strstr(e, "does not lie inside") && strstr(e, sp) &&
                !strstr(e, sp2), "%s", e);
  free(e);
  snprintf(args, sizeof args, "check %s %s", file, sp);
  ck_assert_int_eq(tool(dir, args), 2);
  /* a script's kernel that does not compile is check's error, not each
   * input's at run time */
  snprintf(path, sizeof path, "%s/bad.rs", dir);
  tu_write_text(path, "#pragma version(1)\n#pragma rs java_package_name(t)\n"
                "uchar4 RS_KERNEL k(uchar4 in) { return in +; }\n");
  tu_write_text(file, "s = script(\"bad.rs\")\npx = u8(rgba(input()) * 255)\n"
                "save(s.k(px), \"{stem}.png\")\n");
  snprintf(args, sizeof args, "check %s", file);
  ck_assert_int_eq(tool(dir, args), 2);
  e = tu_slurp(dir, "stderr");
  ck_assert_msg(strstr(e, "bad.rs:3:") && strstr(e, "expected expression"),
                "%s", e);
  free(e);
  tu_rm_rf(dir);
}
END_TEST

/* On a terminal, report() lines go above the progress bar: the bar's line
 * is cleared first, so no report line starts after the bar's text (run
 * under a pseudo-terminal by script(1)). */
START_TEST(test_cli_reports_above_progress_bar) {
  char dir[64], cmd[4096], a[512], b[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  tu_sample("chelsea.png", a, sizeof a);
  tu_sample("coffee.png", b, sizeof b);
  snprintf(cmd, sizeof cmd, "script -qec \"%s run %s/lab.fgp -o %s/out %s "
           "%s\" /dev/null >%s/tty 2>&1", FG_TOOL, FG_CLI_DIR, dir, a, b,
           dir);
  int st = system(cmd);
  ck_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  char *t = tu_slurp(dir, "tty");
  int reports = 0;
  for (const char *p = strstr(t, "meanL="); p; p = strstr(p + 1, "meanL=")) {
    /* the start of the report's line: after the last \n, \r or the
     * erase-line sequence before it */
    const char *q = p;
    while (q > t && q[-1] != '\n' && q[-1] != '\r' &&
           !(q - t >= 3 && !strncmp(q - 3, "\033[K", 3)))
      q--;
    ck_assert_msg(!strncmp(q, a, strlen(a)) || !strncmp(q, b, strlen(b)),
                  "a report line begins with \"%.40s\"", q);
    reports++;
  }
  ck_assert_int_eq(reports, 2);
  free(t);
  tu_rm_rf(dir);
}
END_TEST

/* explain and dot speak the pipeline's names: variables with their line,
 * saves by template, operators by call and place; not the builder's
 * internal field names. */
START_TEST(test_cli_explain_and_dot_use_pipeline_names) {
  char dir[64], file[128], args[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  snprintf(file, sizeof file, "%s/p.fgp", dir);
  tu_write_text(file, "rgb = input()\n"
                "lab = cielab(rgb)\n"
                "save(flip(rgb) * 0.5, \"{stem}-half.png\")\n"
                "save(lab.x / 100, \"{stem}-l.png\")\n");
  snprintf(args, sizeof args, "explain %s", file);
  ck_assert_int_eq(tool(dir, args), 0);
  char *out = tu_slurp(dir, "stdout");
  ck_assert_msg(strstr(out, "rgb (p.fgp:1): non-local read by flip() "
                            "(p.fgp:3:6)") &&
                strstr(out, "save \"{stem}-half.png\" (p.fgp:3:1): graph "
                            "output") &&
                !strstr(out, "from_unit.out0") && !strstr(out, "to_unit.out0"),
                "%s", out);
  free(out);
  snprintf(args, sizeof args, "dot %s -o %s/g.dot", file, dir);
  ck_assert_int_eq(tool(dir, args), 0);
  char *dot = tu_slurp(dir, "g.dot");
  ck_assert_msg(strstr(dot, "lab (p.fgp:2)") && strstr(dot, "input()") &&
                strstr(dot, ".x (p.fgp:4:"), "%s", dot);
  free(dot);
  tu_rm_rf(dir);
}
END_TEST

/* ---- the example pipelines ---------------------------------------------- */

/* Runs examples/NAME.fgp on the bundled chelsea.png (RGB) into dir/out with
 * --json; returns its JSON line (malloc'd). */
static char *run_example(const char *dir, const char *name) {
  char args[2048], sp[512];
  snprintf(args, sizeof args, "run %s/../../examples/%s.fgp -o %s/out --json "
           "-q %s", FG_CLI_DIR, name, dir,
           tu_sample("chelsea.png", sp, sizeof sp));
  int rc = tool(dir, args);
  char *out = tu_slurp(dir, "stdout"), *err = tu_slurp(dir, "stderr");
  ck_assert_msg(rc == 0, "%s: exit status %d\n%s", name, rc, err);
  ck_assert_msg(strstr(out, "\"status\":\"ok\""), "%s: %s", name, out);
  free(err);
  return out;
}

/* The number reported as key in a JSON line (values[k] of a list). */
static double json_result(const char *l, const char *key, int k) {
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(strstr(l, "\"results\":"), pat);
  ck_assert_msg(p != NULL, "no result %s in %s", key, l);
  p += strlen(pat);
  if (*p == '[')
    for (p++; k > 0; k--)
      p = strchr(p, ',') + 1;
  return strtod(p, NULL);
}

/* Runs graph g (one u8 input: img) and writes its outputs into outs. */
static void run_api(fg_graph *g, const fg_image *img, int n, void **outs) {
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  ck_assert_msg(fg_program_run(p, 1, (const void *[]){img->data}, n, outs)
                == FG_OK, "%s", fg_context_errmsg(ctx));
  fg_program_free(p);
  fg_graph_free(g);
  tu_context_free(ctx);
}

/* A fresh graph with the image's u8 input, and that input as f32 in
 * [0, 1] (what the pipeline's input() gives). */
static fg_field *api_input(fg_graph *g, const fg_image *im, const char *name,
                           int ch) {
  fg_field *in = fg_input(g, name, fg_type_image(FG_U8, im->height,
                                                 im->width, ch));
  return ch == 4 ? in : fg_to_unit(g, in);
}

static void alloc_like(fg_image *out, int w, int h, int ch) {
  ck_assert_int_eq(fg_image_alloc(out, w, h, ch), FG_OK);
}

static void expect_out(const char *dir, const char *name, const fg_image *im) {
  char path[512];
  snprintf(path, sizeof path, "%s/out/%s", dir, name);
  expect_image(path, im);
}

START_TEST(test_cli_example_lab) {
  char dir[64], sp[512], err[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  char *l = run_example(dir, "lab");
  fg_image im, half, light;
  ck_assert(fg_image_read(tu_sample("chelsea.png", sp, sizeof sp), &im, err,
                          sizeof err) == FG_OK);
  fg_graph *g = fg_graph_new("lab");
  fg_field *rgb = api_input(g, &im, "in", 3);
  fg_field *lab = fg_srgb_to_lab(g, rgb);
  fg_output(g, "half", fg_from_unit(g, fg_scale_offset(g, fg_flip(g, rgb,
                                    false, true), 0.5, 0), FG_U8));
  fg_output(g, "light", fg_from_unit(g, fg_scale_offset(g, fg_channel(g, lab,
                                     0), 0.01, 0), FG_U8));
  fg_output(g, "mean", fg_reduce_mean(g, fg_channel(g, lab, 0)));
  alloc_like(&half, im.width, im.height, 3);
  alloc_like(&light, im.width, im.height, 1);
  float mean;
  run_api(g, &im, 3, (void *[]){half.data, light.data, &mean});
  expect_out(dir, "chelsea-flipped-half.png", &half);
  expect_out(dir, "chelsea-lightness.png", &light);
  ck_assert_double_eq_tol(json_result(l, "mean_lightness", 0), mean, 1e-4);
  fg_image_free(&im);
  fg_image_free(&half);
  fg_image_free(&light);
  free(l);
  tu_rm_rf(dir);
}
END_TEST

START_TEST(test_cli_example_sharpen) {
  char dir[64], sp[512], err[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  char *l = run_example(dir, "sharpen");
  fg_image im, blur, sharp;
  ck_assert(fg_image_read(tu_sample("chelsea.png", sp, sizeof sp), &im, err,
                          sizeof err) == FG_OK);
  fg_graph *g = fg_graph_new("sharpen");
  fg_field *rgb = api_input(g, &im, "in", 3);
  fg_field *soft = fg_gaussian_blur(g, rgb, 2, 0, FG_BORDER_MIRROR);
  fg_field *s = fg_binary(g, FG_OP_ADD, rgb, fg_scale_offset(g,
                          fg_binary(g, FG_OP_SUB, rgb, soft), 1.5, 0));
  fg_field *c = fg_clamp_field(g, fg_scale_offset(g, s, 1.25, -0.125), 0, 1);
  fg_output(g, "blur", fg_from_unit(g, soft, FG_U8));
  fg_output(g, "sharp", fg_from_unit(g, c, FG_U8));
  alloc_like(&blur, im.width, im.height, 3);
  alloc_like(&sharp, im.width, im.height, 3);
  run_api(g, &im, 2, (void *[]){blur.data, sharp.data});
  expect_out(dir, "chelsea-blur.png", &blur);
  expect_out(dir, "chelsea-sharp.png", &sharp);
  /* the sharpening did something: not the photo itself */
  size_t n = (size_t)im.width * im.height * 3, same = 0;
  for (size_t i = 0; i < n; i++)
    same += sharp.data[i] == im.data[i];
  ck_assert(same < n / 2);
  fg_image_free(&im);
  fg_image_free(&blur);
  fg_image_free(&sharp);
  free(l);
  tu_rm_rf(dir);
}
END_TEST

START_TEST(test_cli_example_grey_hist) {
  char dir[64], sp[512], err[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  char *l = run_example(dir, "grey_hist");
  fg_image im, want;
  ck_assert(fg_image_read(tu_sample("chelsea.png", sp, sizeof sp), &im, err,
                          sizeof err) == FG_OK);
  fg_graph *g = fg_graph_new("grey");
  fg_field *y = fg_rgb_to_grey(g, api_input(g, &im, "in", 3));
  fg_output(g, "grey", y);
  fg_output(g, "hist", fg_histogram(g, y, 16, 0, 1));
  size_t n = (size_t)im.width * im.height;
  float *grey = malloc(n * sizeof *grey);
  uint32_t hist[16];
  run_api(g, &im, 2, (void *[]){grey, hist});
  /* min, max and mean on the host, from the C API's grey image */
  double lo = 1, hi = 0, sum = 0;
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    lo = fmin(lo, grey[i]);
    hi = fmax(hi, grey[i]);
    sum += grey[i];
  }
  ck_assert_double_eq_tol(json_result(l, "darkest", 0), lo, 1e-6);
  ck_assert_double_eq_tol(json_result(l, "brightest", 0), hi, 1e-6);
  ck_assert_double_eq_tol(json_result(l, "mean", 0), sum / (double)n, 1e-5);
  for (int k = 0; k < 16; k++) {
    ck_assert_double_eq(json_result(l, "histogram", k), hist[k]);
    total += hist[k];
  }
  ck_assert_uint_eq(total, n);
  alloc_like(&want, im.width, im.height, 1);
  for (size_t i = 0; i < n; i++)
    want.data[i] = (unsigned char)lrint(fmin(fmax((grey[i] - lo) /
                                        fmax(hi - lo, 1e-6), 0), 1) * 255);
  expect_out(dir, "chelsea-stretched.png", &want);
  free(grey);
  fg_image_free(&im);
  fg_image_free(&want);
  free(l);
  tu_rm_rf(dir);
}
END_TEST

START_TEST(test_cli_example_thumbnail) {
  char dir[64], sp[512], err[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  char *l = run_example(dir, "thumbnail");
  fg_image im, thumb, sq;
  ck_assert(fg_image_read(tu_sample("chelsea.png", sp, sizeof sp), &im, err,
                          sizeof err) == FG_OK);
  /* the longer side to 128, the other in proportion */
  ck_assert(im.width > im.height);
  int tw = 128, th = (int)lrint((double)im.height * 128 / im.width);
  fg_graph *g = fg_graph_new("thumb");
  fg_field *rgb = api_input(g, &im, "in", 3);
  fg_output(g, "t", fg_from_unit(g, fg_resize(g, rgb, th, tw,
                                              FG_INTERP_AREA), FG_U8));
  fg_output(g, "s", fg_from_unit(g, fg_resize(g, rgb, 64, 64,
                                              FG_INTERP_BILINEAR), FG_U8));
  alloc_like(&thumb, tw, th, 3);
  alloc_like(&sq, 64, 64, 3);
  run_api(g, &im, 2, (void *[]){thumb.data, sq.data});
  expect_out(dir, "chelsea-thumb.png", &thumb);
  expect_out(dir, "chelsea-64x64.png", &sq);
  fg_image_free(&im);
  fg_image_free(&thumb);
  fg_image_free(&sq);
  free(l);
  tu_rm_rf(dir);
}
END_TEST

/* The photo as u8 RGBA, alpha 255 (what u8(rgba(input()) * 255) gives). */
static void rgba_of(const fg_image *im, fg_image *out) {
  alloc_like(out, im->width, im->height, 4);
  for (int i = 0; i < im->width * im->height; i++) {
    memcpy(out->data + 4 * i, im->data + 3 * i, 3);
    out->data[4 * i + 3] = 255;
  }
}

START_TEST(test_cli_example_rs_blur) {
  char dir[64], sp[512], err[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  char *l = run_example(dir, "rs_blur");
  fg_image im, px, blur, sharp;
  ck_assert(fg_image_read(tu_sample("chelsea.png", sp, sizeof sp), &im, err,
                          sizeof err) == FG_OK);
  rgba_of(&im, &px);
  static const float k[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
  fg_graph *g = fg_graph_new("rs_blur");
  fg_field *in = api_input(g, &px, "in", 4);
  fg_output(g, "blur", fg_intrinsic_blur(g, in, 5, NULL));
  fg_output(g, "sharp", fg_intrinsic_convolve3x3(g, in, k, NULL));
  alloc_like(&blur, im.width, im.height, 4);
  alloc_like(&sharp, im.width, im.height, 4);
  run_api(g, &px, 2, (void *[]){blur.data, sharp.data});
  expect_out(dir, "chelsea-rs-blur.png", &blur);
  expect_out(dir, "chelsea-rs-sharp.png", &sharp);
  fg_image_free(&im);
  fg_image_free(&px);
  fg_image_free(&blur);
  fg_image_free(&sharp);
  free(l);
  tu_rm_rf(dir);
}
END_TEST

/* examples/invert.rs's kernels, on the host: invert keeps alpha; greyscale
 * packs dot(rgba / 255, (0.299, 0.587, 0.114, 0)) into all four. */
START_TEST(test_cli_example_rs_invert) {
  char dir[64], sp[512], err[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  char *l = run_example(dir, "rs_invert");
  fg_image im, inv, grey;
  ck_assert(fg_image_read(tu_sample("chelsea.png", sp, sizeof sp), &im, err,
                          sizeof err) == FG_OK);
  rgba_of(&im, &inv);
  alloc_like(&grey, im.width, im.height, 4);
  for (int i = 0; i < im.width * im.height; i++) {
    unsigned char *p = inv.data + 4 * i;
    for (int c = 0; c < 3; c++)
      p[c] = (unsigned char)(255 - p[c]);
    double v = (0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]) / 255;
    memset(grey.data + 4 * i, (int)lrint(fmin(v, 1) * 255), 4);
  }
  expect_out(dir, "chelsea-inverted.png", &inv);
  expect_out(dir, "chelsea-inverted-grey.png", &grey);
  expect_out(dir, "chelsea-process.png", &grey);
  fg_image_free(&im);
  fg_image_free(&inv);
  fg_image_free(&grey);
  free(l);
  tu_rm_rf(dir);
}
END_TEST

/* ---- parse and type errors ---------------------------------------------- */

/* Writes text to dir/p.fgp, runs `check` on it and asserts the message
 * starts "FILE:LINE:COL:" (col 0: any column), holds want, and shows the
 * line with a caret under the column. */
static void expect_check_error(const char *dir, const char *text, int line,
                               int col, const char *want) {
  char file[128], args[256], head[200];
  snprintf(file, sizeof file, "%s/p.fgp", dir);
  tu_write_text(file, text);
  snprintf(args, sizeof args, "check %s", file);
  ck_assert_int_eq(tool(dir, args), 2);
  char *err = tu_slurp(dir, "stderr");
  if (col)
    snprintf(head, sizeof head, "%s:%d:%d: error: ", file, line, col);
  else
    snprintf(head, sizeof head, "%s:%d:", file, line);
  ck_assert_msg(!strncmp(err, head, strlen(head)), "expected '%s...', got:\n"
                "%s", head, err);
  ck_assert_msg(strstr(err, want), "expected '%s' in:\n%s", want, err);
  if (col) {
    /* the caret line: 4 spaces, col - 1 more, then ^ */
    const char *caret = strrchr(err, '\n');
    char *l2 = strchr(strchr(err, '\n') + 1, '\n') + 1;
    ck_assert(caret && l2);
    ck_assert_int_eq((int)(strchr(l2, '^') - l2), 4 + col - 1);
  }
  free(err);
}

/* expect_check_error on a pipeline file of its own. */
static void expect_parse_error(const char *text, int line, int col,
                               const char *want) {
  char dir[64];
  tu_tmpdir(dir, sizeof dir, "cli");
  expect_check_error(dir, text, line, col, want);
  tu_rm_rf(dir);
}

START_TEST(test_cli_parse_errors) {
  expect_parse_error("rgb = input()\nx = cielab(rgb\nsave(x, \"a.png\")\n",
                     3, 1,
               "the '(' at 2:11 is not closed");
  expect_parse_error("rgb = input()\n\n  y = rgb * * 2\n", 3, 13,
               "expected a value");
  expect_parse_error("rgb = input()\nsave(rgb * foo, \"a.png\")\n", 2, 12,
               "unknown name 'foo'");
  expect_parse_error("# a comment\nrgb = input()\nx = pow(rgb, y=2, 3)\n",
                     3, 19,
               "positional arguments come first");
  expect_parse_error("rgb = input()\n"
                     "save(clamp(rgb, lo=0, top=1), \"a.png\")\n", 2,
               23, "no parameter named 'top'");
  expect_parse_error("rgb = input()\ns = \"abc\n", 2, 5, "unterminated string");
  expect_parse_error("rgb = input()\nx = dot(rgb, [1, 2])\n", 2, 5,
               "float2, expected float3");
  expect_parse_error("rgb = input()\nreport(rgb)\n", 2, 8,
               "expected a single value");
  expect_parse_error("rgb = input()\nx = flip(rgb, vertical=2)\n", 2, 24,
                     "expected 0 or 1 for 'vertical'");
  expect_parse_error("x = flip(horizontal=1)\n", 1, 5,
                     "expected argument 'image'");
  expect_parse_error("rgb = input()\nsave(rgb, \"x.png[level=3]\")\n", 2,
                     11, "unknown option 'level=3' for a PNG file (expected "
                     "compression=0..9");
  /* an extension or option the build cannot write: refused by check,
   * before any input runs */
  expect_parse_error("rgb = input()\nsave(rgb, \"{stem}.bmp\")\n", 2, 11,
                     "unknown file extension '.bmp'");
  expect_parse_error("rgb = input()\nsave(rgb, \"{stem}.jpg[lossless]\")\n",
                     2, 11, "unknown option 'lossless' for a JPEG file");
  expect_parse_error("rgb = input()\nsave(rgb, \"{stem}.jpg[Q=101]\")\n",
                     2, 11, "expected a quality from 1 to 100");
  expect_parse_error("rgb = input()\n"
                     "save(rgb, \"a.png\", compression=12)\n", 2, 32,
               "expected a zlib level from 0 to 9");
  /* names a typo away from a known one are suggested */
  expect_parse_error("rgb = input()\nx = gausian_blur(rgb, sigma=2)\n", 2, 5,
                     "unknown operator 'gausian_blur' (did you mean "
                     "'gaussian_blur'?)");
  expect_parse_error("rgb = input()\nx = box_blur(rgb, radus=2)\n", 2, 19,
                     "no parameter named 'radus' (did you mean 'radius'?)");
  expect_parse_error("light = input()\nsave(lihgt, \"a.png\")\n", 2, 6,
                     "unknown name 'lihgt' (did you mean 'light'?)");
  expect_parse_error("rgb = input()\nsave(rgb, \"{sten}.png\")\n", 2, 11,
                     "unknown field {sten} (did you mean 'stem'?)");
  expect_parse_error("rgb = input()\nsave(rgb, \"a.png\", quality=85)\n",
                     2, 28, "quality= for \"a.png\": unknown option 'Q=85' "
                     "for a PNG file");
  expect_parse_error("rgb = input()\nx = zzzz_blur(rgb)\n", 2, 5,
                     "unknown operator 'zzzz_blur' (`fieldgraph ops`");
}
END_TEST

/* rotate(rgb, degrees): clockwise about the centre, the canvas grown to
 * hold the whole image, bilinear, corners 0; a quarter turn is the exact
 * copy; bit_rotate is the bitwise built-in.  Against C. */
START_TEST(test_cli_rotate) {
  char dir[64], file[128], args[2048], sp[512], path[512], err[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  snprintf(file, sizeof file, "%s/p.fgp", dir);
  tu_write_text(file, "rgb = input()\n"
                "save(rotate(rgb, 10), \"r10.png\")\n"
                "save(rotate(rgb, -90), \"r270.png\")\n"
                "save(bit_rotate(from_unit(rgb), 1), \"bits.png\")\n");
  snprintf(args, sizeof args, "run %s -o %s/out -q %s", file, dir,
           tu_sample("chelsea.png", sp, sizeof sp));
  ck_assert_int_eq(tool(dir, args), 0);
  fg_image in, got;
  ck_assert(fg_image_read(sp, &in, err, sizeof err) == FG_OK);
  int w = in.width, h = in.height, ch = in.channels;
  /* 10 degrees: the grown canvas, then bilinear through the inverse map */
  double a = 10 * 3.14159265358979323846 / 180, c = cos(a), s = sin(a);
  int ow = (int)ceil(w * c + h * s - 1e-6), oh = (int)ceil(w * s + h * c -
                                                            1e-6);
  snprintf(path, sizeof path, "%s/out/r10.png", dir);
  ck_assert(fg_image_read(path, &got, err, sizeof err) == FG_OK);
  ck_assert_int_eq(got.width, ow);
  ck_assert_int_eq(got.height, oh);
  double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
  double ocx = (ow - 1) / 2.0, ocy = (oh - 1) / 2.0;
  int worst = 0;
  for (int y = 0; y < oh; y++)
    for (int x = 0; x < ow; x++) {
      double sx = c * (x - ocx) + s * (y - ocy) + cx;
      double sy = -s * (x - ocx) + c * (y - ocy) + cy;
      int x0 = (int)floor(sx), y0 = (int)floor(sy);
      double fx = sx - x0, fy = sy - y0;
      for (int k = 0; k < ch; k++) {
        double v[4];
        for (int i = 0; i < 4; i++) {
          int xx = x0 + i % 2, yy = y0 + i / 2;
          v[i] = xx < 0 || yy < 0 || xx >= w || yy >= h ? 0
                 : in.data[((size_t)yy * w + xx) * ch + k] / 255.0;
        }
        double top = v[0] + (v[1] - v[0]) * fx;
        double bot = v[2] + (v[3] - v[2]) * fx;
        int want = (int)lround((top + (bot - top) * fy) * 255);
        int d = abs(got.data[((size_t)y * ow + x) * ch + k] - want);
        worst = d > worst ? d : worst;
      }
    }
  ck_assert_msg(worst <= 1, "rotate 10: off by %d from C", worst);
  fg_image_free(&got);
  /* -90: a quarter turn counter-clockwise, exact */
  snprintf(path, sizeof path, "%s/out/r270.png", dir);
  ck_assert(fg_image_read(path, &got, err, sizeof err) == FG_OK);
  ck_assert_int_eq(got.width, h);
  ck_assert_int_eq(got.height, w);
  for (int y = 0; y < w; y++)
    for (int x = 0; x < h; x++)
      ck_assert(!memcmp(got.data + ((size_t)y * h + x) * ch,
                        in.data + ((size_t)x * w + (w - 1 - y)) * ch,
                        (size_t)ch));
  fg_image_free(&got);
  /* bit_rotate: u8 rotated left by one bit */
  snprintf(path, sizeof path, "%s/out/bits.png", dir);
  ck_assert(fg_image_read(path, &got, err, sizeof err) == FG_OK);
  for (size_t i = 0; i < (size_t)w * h * ch; i++)
    ck_assert_int_eq(got.data[i], (uint8_t)((in.data[i] << 1) |
                                            (in.data[i] >> 7)));
  fg_image_free(&got);
  fg_image_free(&in);
  tu_rm_rf(dir);
}
END_TEST

/* Runs pipeline `file` (in dir) on chelsea.png into dir/out, asserting
 * that it succeeds; *im is the photo as read, *want its pixels as RGBA,
 * for the test to change into the output it expects (expect_out). */
static void run_on_chelsea(const char *dir, const char *file, fg_image *im,
                           fg_image *want) {
  char args[1024], sp[512], err[512];
  snprintf(args, sizeof args, "run %s -o %s/out -q %s", file, dir,
           tu_sample("chelsea.png", sp, sizeof sp));
  int rc = tool(dir, args);
  char *e = tu_slurp(dir, "stderr");
  ck_assert_msg(rc == 0, "exit status %d\n%s", rc, e);
  free(e);
  ck_assert(fg_image_read(tu_sample("chelsea.png", sp, sizeof sp), im, err,
                          sizeof err) == FG_OK);
  rgba_of(im, want);
}

/* A pipeline calls a script's function as the script declares it, macros
 * expanded: a kernel that a macro defines is mapped, not invoked (the
 * command used to guess from the source text). */
START_TEST(test_cli_script_kernel_from_a_macro) {
  char dir[64], file[128];
  tu_tmpdir(dir, sizeof dir, "cli");
  snprintf(file, sizeof file, "%s/m.rs", dir);
  tu_write_text(file, "#pragma version(1)\n#pragma rs java_package_name(t)\n"
                "#define INVERT(name) uchar4 __attribute__((kernel)) \\\n"
                "  name(uchar4 in) { uchar4 o = (uchar4)(255) - in; \\\n"
                "  o.a = in.a; return o; }\n"
                "INVERT(negative)\n");
  snprintf(file, sizeof file, "%s/p.fgp", dir);
  tu_write_text(file, "s = script(\"m.rs\")\npx = u8(rgba(input()) * 255)\n"
                "save(s.negative(px), \"{stem}-n.png\")\n");
  fg_image im, want;
  run_on_chelsea(dir, file, &im, &want);
  for (int i = 0; i < im.width * im.height * 4; i++)
    if (i % 4 != 3)
      want.data[i] = (unsigned char)(255 - want.data[i]);
  expect_out(dir, "chelsea-n.png", &want);
  fg_image_free(&im);
  fg_image_free(&want);
  tu_rm_rf(dir);
}
END_TEST

/* Numbers in a call of an invokable go to its numeric parameters in
 * order, each of the parameter's type (fg_rs_invoke_args): gain 0 and
 * lift 1 make every pixel white, which neither alone does; a fraction for
 * an int, a number too many, and a number for a kernel are errors at
 * their column. */
START_TEST(test_cli_script_invokable_takes_numbers) {
  char dir[64], file[128], args[1024], sp[512], err[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  snprintf(file, sizeof file, "%s/a.rs", dir);
  tu_write_text(file, "#pragma version(1)\n#pragma rs java_package_name(t)\n"
                "static float gain;\nstatic int lift;\n"
                "float RS_KERNEL scale(float v) { return v * gain + lift; }\n"
                "void apply(rs_allocation in, rs_allocation out, float g,\n"
                "           int l) {\n"
                "  gain = g;\n  lift = l;\n  rsForEach(scale, in, out);\n}\n");
  snprintf(file, sizeof file, "%s/p.fgp", dir);
  tu_write_text(file, "s = script(\"a.rs\")\nx = input().x\n"
                "y = s.apply(x, 0, 1)\nsave(y, \"{stem}-a.png\")\n");
  snprintf(args, sizeof args, "run %s -o %s/out -q %s", file, dir,
           tu_sample("chelsea.png", sp, sizeof sp));
  int rc = tool(dir, args);
  char *e = tu_slurp(dir, "stderr");
  ck_assert_msg(rc == 0, "exit status %d\n%s", rc, e);
  free(e);
  char path[256];
  snprintf(path, sizeof path, "%s/out/chelsea-a.png", dir);
  fg_image got;
  ck_assert_msg(fg_image_read(path, &got, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert_int_eq(got.channels, 1);
  for (int i = 0; i < got.width * got.height; i++)
    ck_assert_int_eq(got.data[i], 255);
  fg_image_free(&got);
  static const struct { const char *call, *want; int col; } wrong[] = {
    {"s.apply(x, 0.5, 2.5)", "parameter 3 holds i32 numbers; expected one, "
                             "found 2.5", 21},
    {"s.apply(x, 0.5, 1, 7)", "number 7 has no numeric parameter to go to",
     24},
    {"s.scale(x, 2)", "expected a field argument, found a number", 16},
  };
  for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++) {
    char text[256];
    snprintf(text, sizeof text, "s = script(\"a.rs\")\nx = input().x\n"
             "y = %s\n", wrong[k].call);
    expect_check_error(dir, text, 3, wrong[k].col, wrong[k].want);
  }
  tu_rm_rf(dir);
}
END_TEST

/* Script globals set from a pipeline take the global's type: 2 into a
 * float is 2.0f (not the bits of int 2), a fraction or 1e67 into an int is
 * an error at its line, never a wrapped or undefined conversion. */
START_TEST(test_cli_script_globals_take_their_type) {
  char dir[64], file[128];
  tu_tmpdir(dir, sizeof dir, "cli");
  snprintf(file, sizeof file, "%s/g.rs", dir);
  tu_write_text(file, "#pragma version(1)\n#pragma rs java_package_name(t)\n"
                "float gain;\nint offset;\n"
                "uchar4 RS_KERNEL scale(uchar4 in) {\n"
                "  float4 f = convert_float4(in) * gain + offset;\n"
                "  return convert_uchar4(clamp(f, 0.f, 255.f));\n}\n");
  snprintf(file, sizeof file, "%s/p.fgp", dir);
  tu_write_text(file, "s = script(\"g.rs\")\npx = u8(rgba(input()) * 255)\n"
                "s.gain = 2\ns.offset = -3\n"
                "save(s.scale(px), \"{stem}-g.png\")\n");
  fg_image im, want;
  run_on_chelsea(dir, file, &im, &want);
  for (int i = 0; i < im.width * im.height * 4; i++) {
    int v = want.data[i] * 2 - 3;
    want.data[i] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
  expect_out(dir, "chelsea-g.png", &want);
  fg_image_free(&im);
  fg_image_free(&want);
  static const struct { const char *set, *want; } cases[] = {
    {"s.offset = 2.5", "global 'offset' holds i32 numbers; expected one, "
                       "found 2.5"},
    {"s.offset = 7 % 3 * 1e67", "found 1e+67"},
    {"s.offset = 3000000000", "found 3e+09"},
    {"s.gain = [1, 2]", "global 'gain' holds 4 bytes"},
    {"s.gian = 2", "no global named 'gian' (did you mean 'gain'?)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char text[256];
    snprintf(text, sizeof text, "s = script(\"g.rs\")\n%s\n", cases[k].set);
    expect_check_error(dir, text, 2, 0, cases[k].want);
  }
  tu_rm_rf(dir);
}
END_TEST

/* ---- worker processes: a crash or an endless kernel fails alone ---------- */

/* A script whose kernel writes through a wild pointer on a pure green
 * image and loops forever on a pure red one; any other image passes
 * through unchanged. */
static const char hostile_rs[] =
  "#pragma version(1)\n#pragma rs java_package_name(t)\n"
  "uchar4 RS_KERNEL poke(uchar4 in) {\n"
  "  uchar4 out = in;\n"
  "  if (in.r == 0 && in.g == 255 && in.b == 0) {\n"
  "    volatile int *p = (volatile int *)(long)16;\n"
  "    *p = 1;\n"
  "  }\n"
  "  while (in.r == 255 && in.g == 0 && in.b == 0)\n"
  "    out.a = out.a + 1;\n"
  "  return out;\n"
  "}\n";

/* An 8x8 RGB image of one colour at path. */
static void solid_png(const char *path, int r, int g, int b) {
  fg_image im;
  char err[512];
  ck_assert(fg_image_alloc(&im, 8, 8, 3) == FG_OK);
  for (int i = 0; i < 64; i++) {
    im.data[3 * i] = (unsigned char)r;
    im.data[3 * i + 1] = (unsigned char)g;
    im.data[3 * i + 2] = (unsigned char)b;
  }
  ck_assert_msg(fg_image_save(path, &im, NULL, err, sizeof err) == FG_OK,
                "%s", err);
  fg_image_free(&im);
}

/* dir/p.fgp over dir/h.rs, and inputs dir/in/{ok1,ok2,ok3,crash,spin}.png;
 * the kernel cache is warmed (one input run alone) so that no input's
 * time goes into compiling. */
static void make_hostile(const char *dir, const char *backend) {
  char path[512], args[2048];
  snprintf(path, sizeof path, "%s/h.rs", dir);
  tu_write_text(path, hostile_rs);
  snprintf(path, sizeof path, "%s/p.fgp", dir);
  tu_write_text(path, "s = script(\"h.rs\")\npx = u8(rgba(input()) * 255)\n"
                "save(s.poke(px), \"{stem}-o.png\")\n");
  snprintf(path, sizeof path, "%s/in", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  static const struct { const char *name; int r, g, b; } im[] = {
    {"ok1", 10, 20, 30}, {"ok2", 100, 120, 130}, {"ok3", 0, 254, 0},
    {"crash", 0, 255, 0}, {"spin", 255, 0, 0}};
  for (size_t i = 0; i < sizeof im / sizeof im[0]; i++) {
    snprintf(path, sizeof path, "%s/in/%s.png", dir, im[i].name);
    solid_png(path, im[i].r, im[i].g, im[i].b);
  }
  snprintf(args, sizeof args, "run %s/p.fgp --backend %s -o %s/warm -q "
           "%s/in/ok1.png", dir, backend, dir, dir);
  int rc = tool(dir, args);
  char *err = tu_slurp(dir, "stderr");
  ck_assert_msg(rc == 0, "warm-up: exit status %d\n%s", rc, err);
  free(err);
}

/* The error class of id's line in the JSON lines out ("" when it is not
 * reported failed). */
static void expect_failed(const char *out, const char *id, const char *cls,
                          const char *in_message) {
  const char *l = json_line(out, id);
  ck_assert_msg(l != NULL, "%s: not reported:\n%s", id, out);
  const char *eol = strchr(l, '\n');
  char want[128];
  snprintf(want, sizeof want, "\"status\":\"failed\",\"error\":{\"class\":"
           "\"%s\"", cls);
  const char *c = strstr(l, want), *m = strstr(l, in_message);
  ck_assert_msg(c && c < eol && m && m < eol, "%s: expected class %s and "
                "'%s' in:\n%.*s", id, cls, in_message, (int)(eol - l), l);
}

static void hostile_batch(const char *backend) {
  char dir[64], args[4096], path[512], id[512];
  /* a loaded machine (CK_TIMEOUT_MULTIPLIER, as scripts/test sets it) gets
   * a longer --timeout: the crashing input must crash, not time out */
  const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
  int slow = m && atoi(m) > 1 ? atoi(m) : 1, secs = 15 * slow;
  tu_tmpdir(dir, sizeof dir, "cli");
  make_hostile(dir, backend);
  /* what a killed writer leaves beside the crashing input's output: gone
   * once its worker is reaped */
  snprintf(path, sizeof path, "%s/out", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/out/crash-o.png.tmp-3.png", dir);
  tu_write_text(path, "half a PNG");
  /* FIFOs never block the batch: one in the folder is skipped by the walk,
   * one named on the command line fails as unreadable */
  snprintf(path, sizeof path, "%s/in/pipe.png", dir);
  ck_assert_int_eq(mkfifo(path, 0644), 0);
  snprintf(path, sizeof path, "%s/fifo.png", dir);
  ck_assert_int_eq(mkfifo(path, 0644), 0);
  /* a hang fails here (SIGKILL after 60 s) rather than stalling the suite;
   * the batch itself needs --timeout and a second or two */
  /* a sanitizer's SIGSEGV handler would turn the crash into exit(1) */
  snprintf(args, sizeof args, "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:handle_segv="
           "0\" UBSAN_OPTIONS=\"${UBSAN_OPTIONS:-}:handle_segv=0\" "
           "timeout -s KILL %d %s run %s/p.fgp --backend "
           "%s -o %s/out --json -j 2 --timeout %d %s/in %s/fifo.png",
           60 * slow, FG_TOOL, dir, backend, dir, secs, dir, dir);
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "%s >%s/stdout 2>%s/stderr", args, dir, dir);
  int st = system(cmd);
  ck_assert(st != -1 && WIFEXITED(st));
  char *out = tu_slurp(dir, "stdout"), *err = tu_slurp(dir, "stderr");
  ck_assert_msg(WEXITSTATUS(st) == 1, "exit status %d, expected 1\n%s",
                WEXITSTATUS(st), err);
  ck_assert_int_eq(lines(out), 6);
  snprintf(id, sizeof id, "%s/fifo.png", dir);
  expect_failed(out, id, "read", "not a regular file");
  snprintf(id, sizeof id, "%s/in/crash.png", dir);
  expect_failed(out, id, "crash", "killed by SIGSEGV");
  snprintf(id, sizeof id, "%s/in/spin.png", dir);
  char within[64];
  snprintf(within, sizeof within, "--timeout %d s", secs);
  expect_failed(out, id, "timeout", within);
  static const int ok[][3] = {{10, 20, 30}, {100, 120, 130}, {0, 254, 0}};
  for (int i = 0; i < 3; i++) {
    snprintf(id, sizeof id, "%s/in/ok%d.png", dir, i + 1);
    const char *l = json_line(out, id);
    ck_assert_msg(l && strstr(l, "\"status\":\"ok\"") < strchr(l, '\n') &&
                  strstr(l, "\"status\":\"ok\""), "%s: not ok", id);
    fg_image want;
    ck_assert(fg_image_alloc(&want, 8, 8, 4) == FG_OK);
    for (int k = 0; k < 64; k++) {
      for (int c = 0; c < 3; c++)
        want.data[4 * k + c] = (unsigned char)ok[i][c];
      want.data[4 * k + 3] = 255;
    }
    snprintf(path, sizeof path, "%s/out/ok%d-o.png", dir, i + 1);
    expect_image(path, &want);
    fg_image_free(&want);
  }
  snprintf(path, sizeof path, "%s/out", dir);
  ck_assert_int_eq(count_named(path, ".png"), 3);   /* no crash-o, spin-o */
  ck_assert_int_eq(count_named(path, ".tmp-"), 0);
  free(out);
  free(err);
  /* the terminal's summary names them with their class */
  snprintf(args, sizeof args, "run %s/p.fgp --backend %s -o %s/out2 -j 2 "
           "--timeout %d %s/in/spin.png %s/in/ok1.png %s/in/crash.png", dir,
           backend, dir, secs, dir, dir, dir);
  snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:handle_segv="
           "0\" UBSAN_OPTIONS=\"${UBSAN_OPTIONS:-}:handle_segv=0\" "
           "timeout -s KILL %d %s %s >%s/stdout 2>%s/stderr", 60 * slow,
           FG_TOOL, args,
           dir, dir);
  st = system(cmd);
  ck_assert(st != -1 && WIFEXITED(st));
  err = tu_slurp(dir, "stderr");
  ck_assert_msg(WEXITSTATUS(st) == 1, "exit status %d\n%s", WEXITSTATUS(st),
                err);
  char want[600];
  snprintf(want, sizeof want, "1 done, 2 failed");
  ck_assert_msg(strstr(err, want), "no '%s' in:\n%s", want, err);
  snprintf(want, sizeof want, "  failed: %s/in/crash.png (crash): the "
           "worker process running it was killed by SIGSEGV", dir);
  ck_assert_msg(strstr(err, want), "no '%s' in:\n%s", want, err);
  snprintf(want, sizeof want, "  failed: %s/in/spin.png (timeout): did not "
           "finish within --timeout", dir);
  ck_assert_msg(strstr(err, want), "no '%s' in:\n%s", want, err);
  free(err);
  tu_rm_rf(dir);
}

START_TEST(test_cli_crash_and_timeout_fail_alone) {
  hostile_batch("cpu");
}
END_TEST

START_TEST(test_cli_crash_and_timeout_fail_alone_opencl) {
  fg_device_desc d;
  int n = 0;
  char err[512];
  /* as tests/opencl-suites.sh: without a device this case is the CPU's
   * alone, unless OpenCL is required (CI) */
  if (fg_opencl_devices(&d, 1, &n, err, sizeof err) != FG_OK || n == 0) {
    ck_assert_msg(!getenv("FG_REQUIRE_OPENCL"), "no OpenCL device: %s", err);
    return;
  }
  hostile_batch("opencl");
}
END_TEST

/* Starts the tool on argv (stdout and stderr to dir), waits until path
 * exists, sends SIGTERM and returns the exit status; fails when it does
 * not end within a minute of the signal. */
static int term_when(const char *dir, char *const *argv, const char *path) {
  char o[512], e[512];
  snprintf(o, sizeof o, "%s/stdout", dir);
  snprintf(e, sizeof e, "%s/stderr", dir);
  pid_t pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    if (!freopen(o, "w", stdout) || !freopen(e, "w", stderr))
      _exit(126);
    execv(FG_TOOL, argv);
    _exit(127);
  }
  struct stat st;
  for (int t = 0; t < 6000 && stat(path, &st) != 0; t++)
    usleep(10000);
  ck_assert_msg(stat(path, &st) == 0, "%s never appeared", path);
  usleep(300000);             /* the other input is in its kernel by now */
  kill(pid, SIGTERM);
  int status = 0, t;
  for (t = 0; t < 6000 && waitpid(pid, &status, WNOHANG) == 0; t++)
    usleep(10000);
  if (t == 6000) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    ck_abort_msg("still running a minute after SIGTERM");
  }
  ck_assert_msg(WIFEXITED(status), "ended by signal %d", WTERMSIG(status));
  return WEXITSTATUS(status);
}

/* SIGTERM while a kernel spins (no --timeout): the kernel is cancelled and
 * the command ends with 143 (128 + SIGTERM), naming the input. */
START_TEST(test_cli_sigterm_stops_spinning_kernel) {
  char dir[64], pipe[512], out[512], ok[512], spin[512], done[512];
  tu_tmpdir(dir, sizeof dir, "cli");
  make_hostile(dir, "cpu");
  snprintf(pipe, sizeof pipe, "%s/p.fgp", dir);
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(ok, sizeof ok, "%s/in/ok1.png", dir);
  snprintf(spin, sizeof spin, "%s/in/spin.png", dir);
  snprintf(done, sizeof done, "%s/out/ok1-o.png", dir);
  char *argv[] = {FG_TOOL, "run", pipe, "-o", out, "-j", "2", spin, ok,
                  NULL};
  int rc = term_when(dir, argv, done);
  char *err = tu_slurp(dir, "stderr");
  ck_assert_msg(rc == 143, "exit status %d, expected 143\n%s", rc, err);
  char want[600];
  snprintf(want, sizeof want, "%s: stopped by SIGTERM", spin);
  ck_assert_msg(strstr(err, want), "no '%s' in:\n%s", want, err);
  free(err);
  tu_rm_rf(dir);
}
END_TEST


int main(void) {
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("cli");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_cli_mixed_batch);
  tcase_add_test(tc, test_cli_shards_cover_once);
  tcase_add_test(tc, test_cli_skip_existing);
  tcase_add_test(tc, test_cli_parse_errors);
  tcase_add_test(tc, test_cli_killed_then_resumed);
  tcase_add_test(tc, test_cli_full_disk_keeps_previous_outputs);
  tcase_add_test(tc, test_cli_png_options);
  tcase_add_test(tc, test_cli_operator_arguments);
  tcase_add_test(tc, test_cli_rotate);
  tcase_add_test(tc, test_cli_size_language);
  tcase_add_test(tc, test_cli_checked_for_input_sizes);
  tcase_add_test(tc, test_cli_reports_above_progress_bar);
  tcase_add_test(tc, test_cli_explain_and_dot_use_pipeline_names);
  tcase_add_test(tc, test_cli_unreadable_directory);
  tcase_add_test(tc, test_cli_example_lab);
  tcase_add_test(tc, test_cli_example_sharpen);
  tcase_add_test(tc, test_cli_example_grey_hist);
  tcase_add_test(tc, test_cli_example_thumbnail);
  tcase_add_test(tc, test_cli_example_rs_blur);
  tcase_add_test(tc, test_cli_example_rs_invert);
  tcase_add_test(tc, test_cli_script_globals_take_their_type);
  tcase_add_test(tc, test_cli_script_kernel_from_a_macro);
  tcase_add_test(tc, test_cli_script_invokable_takes_numbers);
  suite_add_tcase(s, tc);
  TCase *tw = tcase_create("workers");
  tcase_set_timeout(tw, 600);
  tcase_add_test(tw, test_cli_crash_and_timeout_fail_alone);
  tcase_add_test(tw, test_cli_crash_and_timeout_fail_alone_opencl);
  tcase_add_test(tw, test_cli_sigterm_stops_spinning_kernel);
  suite_add_tcase(s, tw);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
