/* tests/check_image.c - Check suite for io/image.c (fg_image_*).
 *
 * Round trips PNG (exact, 1..4 channels) and JPEG (within a tolerance),
 * reads the real sample photos, PNG variants made directly with libpng
 * (16-bit, palette, low bit depth, tRNS, interlaced) and a CMYK JPEG made
 * with libjpeg, and checks the error paths: missing, truncated, garbage and
 * empty files, bad arguments, unknown extensions, unwritable destinations,
 * and that a failed write leaves an existing file and no temporary behind.
 *
 * The samples directory is $FG_SAMPLES_DIR if set, else the compile-time
 * FG_SAMPLES_DIR if defined, else ../shared/samples seen from the source
 * tree root (tried relative to the working directory and to this file).
 * Every test works in its own mkdtemp directory, removed by its teardown;
 * all of them live under one mkdtemp root that the parent process removes
 * at the end, so even a test that dies leaves nothing behind.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <png.h>
#include <jpeglib.h>

#include "fieldgraph/image.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static char g_root[PATH_MAX]; /* per test case, made and removed by the parent */
static char g_dir[PATH_MAX];  /* per test, inside g_root */

static const char *join_path(char *buf, size_t len, const char *a,
                             const char *b)
{
  int n = snprintf(buf, len, "%s/%s", a, b);

  ck_assert_msg(n >= 0 && (size_t)n < len, "path too long: %s/%s", a, b);
  return buf;
}

static void remove_tree(const char *path)
{
  DIR *d = opendir(path);
  struct dirent *ent;

  if (!d)
    return;
  while ((ent = readdir(d)) != NULL) {
    char child[PATH_MAX];
    struct stat st;

    if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
      continue;
    if (snprintf(child, sizeof child, "%s/%s", path, ent->d_name) >=
        (int)sizeof child)
      continue;
    if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
      remove_tree(child);
    else
      unlink(child);
  }
  closedir(d);
  rmdir(path);
}

/* Unchecked fixture (runs in the parent process): the root of all scratch
 * directories, removed even when a forked test dies before its teardown. */
static void setup_root(void)
{
  const char *base = getenv("TMPDIR");
  int n;

  if (!base || !*base)
    base = "/tmp";
  n = snprintf(g_root, sizeof g_root, "%s/fg_check_image.XXXXXX", base);
  ck_assert(n > 0 && (size_t)n < sizeof g_root);
  ck_assert_msg(mkdtemp(g_root) != NULL, "mkdtemp(%s): %s", g_root,
                strerror(errno));
}

static void teardown_root(void)
{
  if (g_root[0])
    remove_tree(g_root);
  g_root[0] = '\0';
}

/* Checked fixture: a fresh mkdtemp directory for each test. */
static void setup(void)
{
  join_path(g_dir, sizeof g_dir, g_root, "test.XXXXXX");
  ck_assert_msg(mkdtemp(g_dir) != NULL, "mkdtemp(%s): %s", g_dir,
                strerror(errno));
}

static void teardown(void)
{
  if (g_dir[0])
    remove_tree(g_dir);
  g_dir[0] = '\0';
}

/* Path of name inside the scratch directory. */
static const char *tmp_path(char *buf, size_t len, const char *name)
{
  return join_path(buf, len, g_dir, name);
}

/* Entries in a directory, not counting . and .. */
static int count_entries(const char *path)
{
  DIR *d = opendir(path);
  struct dirent *ent;
  int n = 0;

  ck_assert_msg(d != NULL, "opendir(%s): %s", path, strerror(errno));
  while ((ent = readdir(d)) != NULL)
    if (strcmp(ent->d_name, ".") != 0 && strcmp(ent->d_name, "..") != 0)
      n++;
  closedir(d);
  return n;
}

static int path_exists(const char *path)
{
  struct stat st;

  return lstat(path, &st) == 0;
}

/* Whole file into a malloc'd buffer; fails the test if unreadable. */
static uint8_t *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  uint8_t *buf;
  long n;

  ck_assert_msg(f != NULL, "fopen(%s): %s", path, strerror(errno));
  ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
  n = ftell(f);
  ck_assert_int_ge(n, 0);
  ck_assert_int_eq(fseek(f, 0, SEEK_SET), 0);
  buf = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(buf);
  ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static void spit(const char *path, const void *buf, size_t len)
{
  FILE *f = fopen(path, "wb");

  ck_assert_msg(f != NULL, "fopen(%s): %s", path, strerror(errno));
  ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
  ck_assert_int_eq(fclose(f), 0);
}

static uint32_t rng_next(uint32_t *state)
{
  uint32_t x = *state;

  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

static void fill_random(fg_image *img, uint32_t seed)
{
  size_t n = (size_t)img->width * img->height * img->channels, i;

  for (i = 0; i < n; i++)
    img->data[i] = (uint8_t)(rng_next(&seed) >> 24);
}

/* Smooth gradient: channel c of (x, y) varies slowly with x and y. */
static void fill_gradient(fg_image *img)
{
  int x, y, c;

  for (y = 0; y < img->height; y++)
    for (x = 0; x < img->width; x++)
      for (c = 0; c < img->channels; c++) {
        int v;

        switch (c) {
        case 0: v = x * 255 / (img->width - 1); break;
        case 1: v = y * 255 / (img->height - 1); break;
        case 2: v = (x + y) * 255 / (img->width + img->height - 2); break;
        default: v = 255 - x * 255 / (img->width - 1); break;
        }
        img->data[((size_t)y * img->width + x) * img->channels + c] =
            (uint8_t)v;
      }
}

static int all_equal(const uint8_t *p, size_t n)
{
  size_t i;

  for (i = 1; i < n; i++)
    if (p[i] != p[0])
      return 0;
  return 1;
}

/* Mean absolute error between the first `channels` channels of each pixel
 * of a (stride ca) and b (stride cb). */
static double mean_abs_error(const fg_image *a, const fg_image *b,
                             int channels)
{
  size_t npix = (size_t)a->width * a->height, i;
  double sum = 0;
  int c;

  for (i = 0; i < npix; i++)
    for (c = 0; c < channels; c++)
      sum += abs((int)a->data[i * a->channels + c] -
                 (int)b->data[i * b->channels + c]);
  return sum / ((double)npix * channels);
}

static void assert_zeroed(const fg_image *img)
{
  ck_assert_int_eq(img->width, 0);
  ck_assert_int_eq(img->height, 0);
  ck_assert_int_eq(img->channels, 0);
  ck_assert_ptr_null(img->data);
}

static void make_junk(fg_image *img)
{
  img->width = 7;
  img->height = 9;
  img->channels = 3;
  img->data = (uint8_t *)&g_dir; /* never freed: must be overwritten */
}

static const uint8_t png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

static int file_is_png(const char *path)
{
  size_t len;
  uint8_t *b = slurp(path, &len);
  int ok = len >= 8 && memcmp(b, png_sig, 8) == 0;

  free(b);
  return ok;
}

static int file_is_jpeg(const char *path)
{
  size_t len;
  uint8_t *b = slurp(path, &len);
  int ok = len >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff;

  free(b);
  return ok;
}

/* The samples directory, or NULL (the caller fails the test). */
static const char *samples_dir(char *buf, size_t len)
{
  const char *env = getenv("FG_SAMPLES_DIR");
  const char *cands[4];
  char here[PATH_MAX];
  const char *slash;
  size_t i, n = 0;

  if (env && *env) {
    snprintf(buf, len, "%s", env);
    return buf;
  }
#ifdef FG_SAMPLES_DIR
  cands[n++] = FG_SAMPLES_DIR;
#endif
  cands[n++] = "../shared/samples";    /* run from the tree root */
  cands[n++] = "../../shared/samples"; /* run from tests/ */
  snprintf(here, sizeof here, "%s", __FILE__);
  slash = strrchr(here, '/');
  if (slash) {
    snprintf(here + (slash - here), sizeof here - (size_t)(slash - here),
             "/../../shared/samples");
    cands[n++] = here;
  }
  for (i = 0; i < n; i++) {
    char probe[PATH_MAX];

    int m = snprintf(probe, sizeof probe, "%s/astronaut.png", cands[i]);

    if (m > 0 && (size_t)m < sizeof probe && access(probe, R_OK) == 0) {
      snprintf(buf, len, "%s", cands[i]);
      return buf;
    }
  }
  return NULL;
}

static const char *sample_path(char *buf, size_t len, const char *name)
{
  char dir[PATH_MAX];

  ck_assert_msg(samples_dir(dir, sizeof dir) != NULL,
                "sample images not found: set FG_SAMPLES_DIR");
  join_path(buf, len, dir, name);
  ck_assert_msg(access(buf, R_OK) == 0, "%s: %s", buf, strerror(errno));
  return buf;
}

/* Write a PNG directly with libpng (rows already in PNG layout). */
struct png_spec {
  png_uint_32 w, h;
  int depth, color_type, interlace;
  const png_color *palette;
  int npalette;
  const png_byte *trans_alpha;
  int ntrans;
  const png_color_16 *trans_color;
};

static int write_png_direct(const char *path, const struct png_spec *s,
                            png_bytep *rows)
{
  FILE *fp = fopen(path, "wb");
  png_structp png;
  png_infop info;

  if (!fp)
    return 0;
  png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png ? png_create_info_struct(png) : NULL;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    fclose(fp);
    return 0;
  }
  png_init_io(png, fp);
  png_set_IHDR(png, info, s->w, s->h, s->depth, s->color_type, s->interlace,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (s->palette)
    png_set_PLTE(png, info, s->palette, s->npalette);
  if (s->trans_alpha || s->trans_color)
    png_set_tRNS(png, info, s->trans_alpha, s->ntrans, s->trans_color);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return fclose(fp) == 0;
}

/* libjpeg error manager for the test's own encoder/decoder. */
struct test_jerr {
  struct jpeg_error_mgr pub;
  jmp_buf jb;
};

static void test_jpeg_error_exit(j_common_ptr cinfo)
{
  longjmp(((struct test_jerr *)cinfo->err)->jb, 1);
}

/* A CMYK JPEG made with libjpeg (in_color_space JCS_CMYK). */
static int write_cmyk_jpeg(const char *path, int w, int h)
{
  struct jpeg_compress_struct ci;
  struct test_jerr jerr;
  FILE *fp = fopen(path, "wb");
  uint8_t *row = malloc((size_t)w * 4);
  int ok = 0, x;

  memset(&ci, 0, sizeof ci);
  if (!fp || !row)
    goto out;
  for (x = 0; x < w * 4; x++)
    row[x] = (uint8_t)(x * 7);
  ci.err = jpeg_std_error(&jerr.pub);
  jerr.pub.error_exit = test_jpeg_error_exit;
  if (setjmp(jerr.jb)) {
    jpeg_destroy_compress(&ci);
    goto out;
  }
  jpeg_create_compress(&ci);
  jpeg_stdio_dest(&ci, fp);
  ci.image_width = (JDIMENSION)w;
  ci.image_height = (JDIMENSION)h;
  ci.input_components = 4;
  ci.in_color_space = JCS_CMYK;
  jpeg_set_defaults(&ci);
  jpeg_start_compress(&ci, TRUE);
  while (ci.next_scanline < ci.image_height) {
    JSAMPROW r = row;

    jpeg_write_scanlines(&ci, &r, 1);
  }
  jpeg_finish_compress(&ci);
  jpeg_destroy_compress(&ci);
  ok = 1;
out:
  if (fp && fclose(fp) != 0)
    ok = 0;
  free(row);
  return ok;
}

/* Decode a JPEG to RGB with plain libjpeg, as an independent reference. */
static uint8_t *decode_jpeg_direct(const char *path, int *w, int *h)
{
  struct jpeg_decompress_struct ci;
  struct test_jerr jerr;
  FILE *fp = fopen(path, "rb");
  uint8_t *volatile buf = NULL;

  if (!fp)
    return NULL;
  memset(&ci, 0, sizeof ci);
  ci.err = jpeg_std_error(&jerr.pub);
  jerr.pub.error_exit = test_jpeg_error_exit;
  if (setjmp(jerr.jb)) {
    jpeg_destroy_decompress(&ci);
    fclose(fp);
    free(buf);
    return NULL;
  }
  jpeg_create_decompress(&ci);
  jpeg_stdio_src(&ci, fp);
  jpeg_read_header(&ci, TRUE);
  ci.out_color_space = JCS_RGB;
  jpeg_start_decompress(&ci);
  buf = malloc((size_t)ci.output_width * ci.output_height * 3);
  if (!buf)
    longjmp(jerr.jb, 1);
  while (ci.output_scanline < ci.output_height) {
    JSAMPROW r = buf + (size_t)ci.output_scanline * ci.output_width * 3;

    jpeg_read_scanlines(&ci, &r, 1);
  }
  jpeg_finish_decompress(&ci);
  *w = (int)ci.output_width;
  *h = (int)ci.output_height;
  jpeg_destroy_decompress(&ci);
  fclose(fp);
  return buf;
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

START_TEST(test_image_alloc_and_free)
{
  fg_image img;
  size_t i;

  make_junk(&img);
  ck_assert_int_eq(fg_image_alloc(&img, 13, 7, 3), FG_OK);
  ck_assert_int_eq(img.width, 13);
  ck_assert_int_eq(img.height, 7);
  ck_assert_int_eq(img.channels, 3);
  ck_assert_ptr_nonnull(img.data);
  for (i = 0; i < 13 * 7 * 3; i++)
    ck_assert_uint_eq(img.data[i], 0);
  fg_image_free(&img);
  assert_zeroed(&img);
  fg_image_free(&img); /* already freed: fine */
  assert_zeroed(&img);
  fg_image_free(NULL);

  ck_assert_int_eq(fg_image_alloc(&img, FG_IMAGE_MAX_DIM, 1, 4), FG_OK);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_alloc_rejects_bad_sizes)
{
  static const int bad[][3] = {
    { 0, 1, 1 }, { 1, 0, 1 }, { -1, 5, 3 }, { 5, -1, 3 }, { 1, 1, 0 },
    { 1, 1, 5 }, { 1, 1, -2 }, { FG_IMAGE_MAX_DIM + 1, 1, 1 },
    { 1, FG_IMAGE_MAX_DIM + 1, 1 }, { INT_MAX, INT_MAX, 4 },
    { INT_MIN, 2, 1 },
  };
  size_t i;

  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fg_image img;

    make_junk(&img);
    ck_assert_msg(fg_image_alloc(&img, bad[i][0], bad[i][1], bad[i][2]) ==
                      FG_EINVAL,
                  "alloc(%d, %d, %d) not refused", bad[i][0], bad[i][1],
                  bad[i][2]);
    assert_zeroed(&img);
  }
  ck_assert_int_eq(fg_image_alloc(NULL, 2, 2, 1), FG_EINVAL);
}
END_TEST

START_TEST(test_image_png_roundtrip_all_channel_counts)
{
  int c;

  for (c = 1; c <= 4; c++) {
    char path[PATH_MAX], name[32], err[512];
    fg_image img, back;

    snprintf(name, sizeof name, "rt_%d.png", c);
    tmp_path(path, sizeof path, name);
    /* odd sizes so a stride bug cannot hide */
    ck_assert_int_eq(fg_image_alloc(&img, 37, 23, c), FG_OK);
    fill_random(&img, 0x9e3779b9u + (uint32_t)c);
    ck_assert_msg(fg_image_write(path, &img, 0, err, sizeof err) == FG_OK,
                  "%s", err);
    ck_assert_str_eq(err, "");
    ck_assert(file_is_png(path));
    ck_assert_msg(fg_image_read(path, &back, err, sizeof err) == FG_OK, "%s",
                  err);
    ck_assert_int_eq(back.width, 37);
    ck_assert_int_eq(back.height, 23);
    ck_assert_int_eq(back.channels, c);
    ck_assert_int_eq(memcmp(back.data, img.data, 37 * 23 * (size_t)c), 0);
    fg_image_free(&img);
    fg_image_free(&back);
  }
  /* only the four images: no temporary files left behind */
  ck_assert_int_eq(count_entries(g_dir), 4);
}
END_TEST

START_TEST(test_image_jpeg_roundtrip_gradient)
{
  char path[PATH_MAX], err[512];
  fg_image img, back;
  double mae;

  tmp_path(path, sizeof path, "gradient.jpg");
  ck_assert_int_eq(fg_image_alloc(&img, 96, 64, 3), FG_OK);
  fill_gradient(&img);
  ck_assert_msg(fg_image_write(path, &img, 0, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert(file_is_jpeg(path));
  ck_assert_msg(fg_image_read(path, &back, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert_int_eq(back.width, 96);
  ck_assert_int_eq(back.height, 64);
  ck_assert_int_eq(back.channels, 3);
  mae = mean_abs_error(&img, &back, 3);
  ck_assert_msg(mae < 3.0, "mean abs error %.3f", mae);
  fg_image_free(&img);
  fg_image_free(&back);
  ck_assert_int_eq(count_entries(g_dir), 1);
}
END_TEST

START_TEST(test_image_jpeg_roundtrip_grey)
{
  char path[PATH_MAX], err[512];
  fg_image img, back;
  double mae;

  tmp_path(path, sizeof path, "grey.jpeg");
  ck_assert_int_eq(fg_image_alloc(&img, 80, 50, 1), FG_OK);
  fill_gradient(&img);
  ck_assert_msg(fg_image_write(path, &img, 95, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert_msg(fg_image_read(path, &back, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert_int_eq(back.channels, 1);
  ck_assert_int_eq(back.width, 80);
  ck_assert_int_eq(back.height, 50);
  mae = mean_abs_error(&img, &back, 1);
  ck_assert_msg(mae < 3.0, "mean abs error %.3f", mae);
  fg_image_free(&img);
  fg_image_free(&back);
}
END_TEST

START_TEST(test_image_jpeg_flattens_alpha)
{
  int c;

  for (c = 2; c <= 4; c += 2) {
    char path[PATH_MAX], err[512];
    fg_image img, back;
    size_t i, npix;
    uint32_t seed = 12345;
    double mae;

    tmp_path(path, sizeof path, c == 2 ? "ga.jpg" : "rgba.jpg");
    ck_assert_int_eq(fg_image_alloc(&img, 64, 40, c), FG_OK);
    fill_gradient(&img);
    npix = (size_t)img.width * img.height;
    for (i = 0; i < npix; i++) /* alpha is noise */
      img.data[i * c + (c - 1)] = (uint8_t)(rng_next(&seed) >> 24);
    ck_assert_msg(fg_image_write(path, &img, 100, err, sizeof err) == FG_OK,
                  "%s", err);
    ck_assert_msg(fg_image_read(path, &back, err, sizeof err) == FG_OK, "%s",
                  err);
    ck_assert_int_eq(back.channels, c - 1);
    /* JPEG has no alpha: the colour flattened against black, as libvips
     * saves it (colour x alpha / 255) */
    for (i = 0; i < npix; i++)
      for (int k = 0; k < c - 1; k++)
        img.data[i * c + k] = (uint8_t)(
            (img.data[i * c + k] * (unsigned)img.data[i * c + c - 1] + 127) /
            255);
    mae = mean_abs_error(&img, &back, c - 1);
    ck_assert_msg(mae < 3.0, "%d channels: mean abs error %.3f", c, mae);
    fg_image_free(&img);
    fg_image_free(&back);
  }
}
END_TEST

START_TEST(test_image_jpeg_quality_changes_size)
{
  char lo[PATH_MAX], hi[PATH_MAX], err[512];
  fg_image img;
  struct stat slo, shi;

  ck_assert_int_eq(fg_image_alloc(&img, 64, 64, 3), FG_OK);
  fill_random(&img, 777);
  tmp_path(lo, sizeof lo, "q10.jpg");
  tmp_path(hi, sizeof hi, "q100.jpg");
  ck_assert_msg(fg_image_write(lo, &img, 10, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert_msg(fg_image_write(hi, &img, 100, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert_int_eq(stat(lo, &slo), 0);
  ck_assert_int_eq(stat(hi, &shi), 0);
  ck_assert_msg(slo.st_size * 2 < shi.st_size, "q10 %ld bytes, q100 %ld",
                (long)slo.st_size, (long)shi.st_size);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_write_extension_case_insensitive)
{
  static const struct { const char *name; int png; } cases[] = {
    { "UPPER.PNG", 1 }, { "Mixed.Png", 1 }, { "a.JPG", 0 },
    { "b.JpEg", 0 }, { "dotted.name.jpeg", 0 },
  };
  fg_image img;
  size_t i;

  ck_assert_int_eq(fg_image_alloc(&img, 16, 16, 3), FG_OK);
  fill_gradient(&img);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[PATH_MAX], err[512];
    fg_image back;

    tmp_path(path, sizeof path, cases[i].name);
    ck_assert_msg(fg_image_write(path, &img, 0, err, sizeof err) == FG_OK,
                  "%s", err);
    ck_assert_msg(cases[i].png ? file_is_png(path) : file_is_jpeg(path),
                  "%s has the wrong format", cases[i].name);
    ck_assert_msg(fg_image_read(path, &back, err, sizeof err) == FG_OK, "%s",
                  err);
    ck_assert_int_eq(back.channels, 3);
    fg_image_free(&back);
  }
  ck_assert_int_eq(count_entries(g_dir), 5);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_read_detects_format_by_signature)
{
  char png_path[PATH_MAX], jpg_path[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
  char err[512];
  fg_image img, back;

  ck_assert_int_eq(fg_image_alloc(&img, 20, 10, 4), FG_OK);
  fill_random(&img, 4242);
  tmp_path(png_path, sizeof png_path, "real_png.png");
  tmp_path(jpg_path, sizeof jpg_path, "real_jpg.jpg");
  ck_assert_int_eq(fg_image_write(png_path, &img, 0, err, sizeof err), FG_OK);
  ck_assert_int_eq(fg_image_write(jpg_path, &img, 0, err, sizeof err), FG_OK);
  /* swap the names: the contents decide */
  tmp_path(a, sizeof a, "actually_png.jpg");
  tmp_path(b, sizeof b, "actually_jpeg.png");
  ck_assert_int_eq(rename(png_path, a), 0);
  ck_assert_int_eq(rename(jpg_path, b), 0);

  ck_assert_msg(fg_image_read(a, &back, err, sizeof err) == FG_OK, "%s", err);
  ck_assert_int_eq(back.channels, 4);
  ck_assert_int_eq(memcmp(back.data, img.data, 20 * 10 * 4), 0);
  fg_image_free(&back);

  ck_assert_msg(fg_image_read(b, &back, err, sizeof err) == FG_OK, "%s", err);
  ck_assert_int_eq(back.channels, 3);
  ck_assert_int_eq(back.width, 20);
  ck_assert_int_eq(back.height, 10);
  fg_image_free(&back);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_read_astronaut_png)
{
  char path[PATH_MAX], err[512];
  fg_image img;
  png_image ref;
  uint8_t *ref_buf, *raw;
  size_t raw_len;
  uint32_t ihdr_w, ihdr_h;

  sample_path(path, sizeof path, "astronaut.png");
  ck_assert_msg(fg_image_read(path, &img, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert_int_eq(img.width, 512);
  ck_assert_int_eq(img.height, 512);
  ck_assert_int_eq(img.channels, 3);
  ck_assert(!all_equal(img.data, 512 * 512 * 3));

  /* independent check 1: the size stored in the file's IHDR chunk */
  raw = slurp(path, &raw_len);
  ck_assert_uint_ge(raw_len, 24);
  ck_assert_int_eq(memcmp(raw + 12, "IHDR", 4), 0);
  ihdr_w = (uint32_t)raw[16] << 24 | (uint32_t)raw[17] << 16 |
           (uint32_t)raw[18] << 8 | raw[19];
  ihdr_h = (uint32_t)raw[20] << 24 | (uint32_t)raw[21] << 16 |
           (uint32_t)raw[22] << 8 | raw[23];
  ck_assert_uint_eq(ihdr_w, (uint32_t)img.width);
  ck_assert_uint_eq(ihdr_h, (uint32_t)img.height);
  free(raw);

  /* independent check 2: libpng's simplified API decodes the same pixels */
  memset(&ref, 0, sizeof ref);
  ref.version = PNG_IMAGE_VERSION;
  ck_assert(png_image_begin_read_from_file(&ref, path));
  ref.format = PNG_FORMAT_RGB;
  ref_buf = malloc(PNG_IMAGE_SIZE(ref));
  ck_assert_ptr_nonnull(ref_buf);
  ck_assert_msg(png_image_finish_read(&ref, NULL, ref_buf, 0, NULL), "%s",
                ref.message);
  ck_assert_uint_eq(PNG_IMAGE_SIZE(ref), 512u * 512u * 3u);
  ck_assert_int_eq(memcmp(ref_buf, img.data, 512 * 512 * 3), 0);
  free(ref_buf);
  png_image_free(&ref);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_read_hubble_jpeg)
{
  char path[PATH_MAX], err[512];
  fg_image img;
  uint8_t *ref;
  int rw = 0, rh = 0;
  size_t n = 1000 * 872 * 3;

  sample_path(path, sizeof path, "hubble_deep_field.jpg");
  ck_assert_msg(fg_image_read(path, &img, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert_int_eq(img.width, 1000);
  ck_assert_int_eq(img.height, 872);
  ck_assert_int_eq(img.channels, 3);
  ck_assert(!all_equal(img.data, n));

  /* same pixels as a plain libjpeg decode (checks rows, order, stride) */
  ref = decode_jpeg_direct(path, &rw, &rh);
  ck_assert_ptr_nonnull(ref);
  ck_assert_int_eq(rw, 1000);
  ck_assert_int_eq(rh, 872);
  ck_assert_int_eq(memcmp(ref, img.data, n), 0);
  free(ref);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_read_png_transformations)
{
  char path[PATH_MAX], err[512];
  fg_image img;
  uint32_t seed = 99;
  png_uint_32 x, y;
  int vips = fg_image_format_known("x.tif"); /* the build's backend */

  /* 16-bit RGB: kept, every sample exactly (libvips builds); reduced to 8
   * bits without libvips (v*257 -> v exactly, others within 1) */
  {
    enum { W = 9, H = 4 };
    uint8_t buf[H][W * 6];
    png_bytep rows[H];
    struct png_spec s = { W, H, 16, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                          NULL, 0, NULL, 0, NULL };

    for (y = 0; y < H; y++) {
      rows[y] = buf[y];
      for (x = 0; x < W * 3; x++) {
        unsigned v = (x % 2) ? (rng_next(&seed) >> 24) * 257u
                             : rng_next(&seed) >> 16;
        buf[y][2 * x] = (uint8_t)(v >> 8);
        buf[y][2 * x + 1] = (uint8_t)v;
      }
    }
    tmp_path(path, sizeof path, "rgb16.png");
    ck_assert(write_png_direct(path, &s, rows));
    ck_assert_msg(fg_image_read(path, &img, err, sizeof err) == FG_OK, "%s",
                  err);
    ck_assert_int_eq(img.channels, 3);
    ck_assert_int_eq(img.width, W);
    ck_assert_int_eq(img.height, H);
    ck_assert_int_eq(img.type, vips ? FG_IMAGE_U16 : FG_IMAGE_U8);
    for (y = 0; y < H; y++)
      for (x = 0; x < W * 3; x++) {
        unsigned v = (unsigned)buf[y][2 * x] << 8 | buf[y][2 * x + 1];
        int got = img.data[y * W * 3 + x];
        if (vips)
          ck_assert_uint_eq(((uint16_t *)img.data)[y * W * 3 + x], v);
        else if (x % 2)
          ck_assert_int_eq(got, (int)(v / 257));
        else
          ck_assert_int_le(abs(got - (int)(v * 255.0 / 65535.0 + 0.5)), 1);
      }
    fg_image_free(&img);
  }

  /* 2-bit palette with tRNS: expanded to RGBA */
  {
    enum { W = 7, H = 3 };
    static const png_color pal[4] = {
      { 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 }, { 10, 20, 30 }
    };
    static const png_byte trans[2] = { 0, 128 };
    uint8_t buf[H][(W * 2 + 7) / 8];
    png_bytep rows[H];
    struct png_spec s = { W, H, 2, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE,
                          pal, 4, trans, 2, NULL };

    memset(buf, 0, sizeof buf);
    for (y = 0; y < H; y++) {
      rows[y] = buf[y];
      for (x = 0; x < W; x++)
        buf[y][x / 4] |= (uint8_t)(((x + y) % 4) << (6 - 2 * (x % 4)));
    }
    tmp_path(path, sizeof path, "pal2.png");
    ck_assert(write_png_direct(path, &s, rows));
    ck_assert_msg(fg_image_read(path, &img, err, sizeof err) == FG_OK, "%s",
                  err);
    ck_assert_int_eq(img.channels, 4);
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++) {
        int idx = (int)((x + y) % 4);
        const uint8_t *p = img.data + (y * W + x) * 4;

        ck_assert_int_eq(p[0], pal[idx].red);
        ck_assert_int_eq(p[1], pal[idx].green);
        ck_assert_int_eq(p[2], pal[idx].blue);
        ck_assert_int_eq(p[3], idx < 2 ? trans[idx] : 255);
      }
    fg_image_free(&img);
  }

  /* 1-bit grey, width not a multiple of 8: expanded to 0 / 255 */
  {
    enum { W = 10, H = 3 };
    uint8_t buf[H][2];
    png_bytep rows[H];
    struct png_spec s = { W, H, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                          NULL, 0, NULL, 0, NULL };

    memset(buf, 0, sizeof buf);
    for (y = 0; y < H; y++) {
      rows[y] = buf[y];
      for (x = 0; x < W; x++)
        if ((x * 3 + y) % 2)
          buf[y][x / 8] |= (uint8_t)(0x80 >> (x % 8));
    }
    tmp_path(path, sizeof path, "grey1.png");
    ck_assert(write_png_direct(path, &s, rows));
    ck_assert_msg(fg_image_read(path, &img, err, sizeof err) == FG_OK, "%s",
                  err);
    ck_assert_int_eq(img.channels, 1);
    ck_assert_int_eq(img.width, W);
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++)
        ck_assert_int_eq(img.data[y * W + x], (x * 3 + y) % 2 ? 255 : 0);
    fg_image_free(&img);
  }

  /* 8-bit grey with a tRNS colour: grey + alpha */
  {
    enum { W = 6, H = 2 };
    uint8_t buf[H][W];
    png_bytep rows[H];
    png_color_16 tc;
    struct png_spec s = { W, H, 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                          NULL, 0, NULL, 0, &tc };

    memset(&tc, 0, sizeof tc);
    tc.gray = 77;
    for (y = 0; y < H; y++) {
      rows[y] = buf[y];
      for (x = 0; x < W; x++)
        buf[y][x] = (uint8_t)(x % 3 == 0 ? 77 : 10 * x + y);
    }
    tmp_path(path, sizeof path, "grey_trns.png");
    ck_assert(write_png_direct(path, &s, rows));
    ck_assert_msg(fg_image_read(path, &img, err, sizeof err) == FG_OK, "%s",
                  err);
    ck_assert_int_eq(img.channels, 2);
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++) {
        ck_assert_int_eq(img.data[(y * W + x) * 2], buf[y][x]);
        ck_assert_int_eq(img.data[(y * W + x) * 2 + 1],
                         buf[y][x] == 77 ? 0 : 255);
      }
    fg_image_free(&img);
  }

  /* 16-bit grey + alpha: 2 channels, 16 bits kept (8 without libvips) */
  {
    enum { W = 5, H = 5 };
    uint8_t buf[H][W * 4];
    png_bytep rows[H];
    struct png_spec s = { W, H, 16, PNG_COLOR_TYPE_GRAY_ALPHA,
                          PNG_INTERLACE_NONE, NULL, 0, NULL, 0, NULL };

    for (y = 0; y < H; y++) {
      rows[y] = buf[y];
      for (x = 0; x < W * 2; x++)
        buf[y][2 * x] = buf[y][2 * x + 1] = (uint8_t)(x * 20 + y);
    }
    tmp_path(path, sizeof path, "ga16.png");
    ck_assert(write_png_direct(path, &s, rows));
    ck_assert_msg(fg_image_read(path, &img, err, sizeof err) == FG_OK, "%s",
                  err);
    ck_assert_int_eq(img.channels, 2);
    for (y = 0; y < H; y++)
      for (x = 0; x < W * 2; x++)
        if (vips)
          ck_assert_int_eq(((uint16_t *)img.data)[y * W * 2 + x],
                           (x * 20 + y) * 257);
        else
          ck_assert_int_eq(img.data[y * W * 2 + x], x * 20 + y);
    fg_image_free(&img);
  }

  /* Adam7 interlaced RGBA: exact */
  {
    enum { W = 13, H = 11 };
    uint8_t buf[H][W * 4];
    png_bytep rows[H];
    struct png_spec s = { W, H, 8, PNG_COLOR_TYPE_RGB_ALPHA,
                          PNG_INTERLACE_ADAM7, NULL, 0, NULL, 0, NULL };

    for (y = 0; y < H; y++) {
      rows[y] = buf[y];
      for (x = 0; x < W * 4; x++)
        buf[y][x] = (uint8_t)(rng_next(&seed) >> 24);
    }
    tmp_path(path, sizeof path, "adam7.png");
    ck_assert(write_png_direct(path, &s, rows));
    ck_assert_msg(fg_image_read(path, &img, err, sizeof err) == FG_OK, "%s",
                  err);
    ck_assert_int_eq(img.channels, 4);
    ck_assert_int_eq(img.width, W);
    ck_assert_int_eq(img.height, H);
    ck_assert_int_eq(memcmp(img.data, buf, sizeof buf), 0);
    fg_image_free(&img);
  }
}
END_TEST

START_TEST(test_image_read_cmyk_jpeg_converted)
{
  char path[PATH_MAX], err[512];
  fg_image img;

  /* an untagged CMYK JPEG goes to sRGB through a generic CMYK profile;
   * without libvips it is refused */
  tmp_path(path, sizeof path, "cmyk.jpg");
  ck_assert(write_cmyk_jpeg(path, 16, 8));
  ck_assert(file_is_jpeg(path));
  if (!fg_image_format_known("x.tif")) {
    ck_assert_int_eq(fg_image_read(path, &img, err, sizeof err), FG_EFORMAT);
    ck_assert_msg(strstr(err, "CMYK") != NULL, "message: %s", err);
    return;
  }
  ck_assert_msg(fg_image_read(path, &img, err, sizeof err) == FG_OK, "%s",
                err);
  ck_assert_int_eq(img.width, 16);
  ck_assert_int_eq(img.height, 8);
  ck_assert_int_eq(img.channels, 3);
  ck_assert_int_eq(img.type, FG_IMAGE_U8);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_read_too_large_png)
{
  enum { W = FG_IMAGE_MAX_DIM + 10 };
  char path[PATH_MAX], err[512];
  uint8_t *row = calloc(W, 1);
  png_bytep rows[1];
  struct png_spec s = { W, 1, 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                        NULL, 0, NULL, 0, NULL };
  fg_image img;

  ck_assert_ptr_nonnull(row);
  rows[0] = row;
  tmp_path(path, sizeof path, "wide.png");
  ck_assert(write_png_direct(path, &s, rows));
  free(row);
  make_junk(&img);
  ck_assert_int_eq(fg_image_read(path, &img, err, sizeof err), FG_EFORMAT);
  assert_zeroed(&img);
  ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
}
END_TEST

/* ---- issue 17 findings 4 and 5: decompression bombs ------------------ */

/* Writes n bytes to path. */
static void put_file(const char *path, const void *bytes, size_t n)
{
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
  ck_assert_int_eq(fclose(f), 0);
}

/* PNG's CRC-32 (ISO 3309), bitwise: independent of libpng and zlib. */
static uint32_t crc32_of(const uint8_t *p, size_t n)
{
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++)
      c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return c ^ 0xffffffffu;
}

static size_t put_be32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
  return 4;
}

/* Appends a PNG chunk whose length field says declared (data holds n
 * bytes, the CRC covers them) at p; returns the bytes written. */
static size_t put_chunk(uint8_t *p, const char *type, uint32_t declared,
                        const uint8_t *data, size_t n)
{
  size_t k = put_be32(p, declared);
  memcpy(p + k, type, 4);
  memcpy(p + k + 4, data, n);
  k += 4 + n;
  return k + put_be32(p + k, crc32_of(p + 4, 4 + n));
}

/* A PNG signature and IHDR of width x height, 8-bit grey; returns bytes. */
static size_t put_png_head(uint8_t *p, uint32_t width, uint32_t height)
{
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a,
                                 '\n'};
  uint8_t ihdr[13] = {0};
  put_be32(ihdr, width);
  put_be32(ihdr + 4, height);
  ihdr[8] = 8; /* depth; colour type 0, deflate, filter 0, no interlace */
  memcpy(p, sig, 8);
  return 8 + put_chunk(p + 8, "IHDR", 13, ihdr, 13);
}

/* Loads path in a child process: its status, message and peak resident
 * memory in KiB (what the decoder allocated and touched; the most of any
 * child this test waited for). */
static fg_status load_in_child(const char *path,
                               const fg_image_load_options *opt, char *err,
                               size_t errlen, long *maxrss_kib)
{
  int fd[2];
  ck_assert_int_eq(pipe(fd), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    fg_image img;
    char msg[512];
    fg_status st = fg_image_load(path, &img, opt, msg, sizeof msg);
    fg_image_free(&img);
    int32_t s = (int32_t)st;
    if (write(fd[1], &s, sizeof s) != sizeof s ||
        write(fd[1], msg, strlen(msg) + 1) < 0)
      _exit(2);
    _exit(0);
  }
  close(fd[1]);
  int32_t s = 0;
  ck_assert_int_eq(read(fd[0], &s, sizeof s), (ssize_t)sizeof s);
  ssize_t n = read(fd[0], err, errlen - 1);
  err[n > 0 ? n : 0] = '\0';
  close(fd[0]);
  int wst;
  struct rusage ru;
  ck_assert_int_eq(waitpid(pid, &wst, 0), pid);
  ck_assert(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
  /* the largest of this test's children, all loads of this kind */
  ck_assert_int_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
  *maxrss_kib = ru.ru_maxrss;
  return (fg_status)s;
}

/* Asserts path is refused with FG_EFORMAT, a message naming the file and
 * want, and less than 200 MiB touched. */
static void expect_refused(const char *path, const fg_image_load_options *o,
                           const char *want)
{
  char err[512];
  long kib = 0;
  fg_status st = load_in_child(path, o, err, sizeof err, &kib);
  ck_assert_msg(st == FG_EFORMAT, "%s: status %d: %s", path, (int)st, err);
  ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
  ck_assert_msg(strstr(err, want) != NULL, "message lacks %s: %s", want, err);
  ck_assert_msg(kib < 200 * 1024, "%ld KiB resident: %s", kib, err);
}

START_TEST(test_image_bomb_png_header_refused)
{
  uint8_t buf[128];
  size_t n = put_png_head(buf, 65535, 65535);
  static const uint8_t idat[] = {0x78, 0x9c, 0x63, 0x00, 0x00};
  n += put_chunk(buf + n, "IDAT", sizeof idat, idat, sizeof idat);
  char path[PATH_MAX];
  tmp_path(path, sizeof path, "bomb.png");
  put_file(path, buf, n);
  expect_refused(path, NULL, "over the limit of 268435456 pixels");
  expect_refused(path, NULL, "max_pixels");
}
END_TEST

START_TEST(test_image_bomb_png_text_chunk_refused)
{
  uint8_t buf[256];
  size_t n = put_png_head(buf, 1, 1);
  static const uint8_t text[] = "Comment\0aaaaaaaaaaaaaaaa";
  /* declares 2 GB, holds 24 bytes */
  n += put_chunk(buf + n, "tEXt", 0x7ffffff0u, text, sizeof text - 1);
  char path[PATH_MAX];
  tmp_path(path, sizeof path, "text-bomb.png");
  put_file(path, buf, n);
  expect_refused(path, NULL, "max_chunk_bytes");
  /* and a user limit below a chunk that fits the default */
  n = put_png_head(buf, 1, 1);
  uint8_t big[200];
  memset(big, 'a', sizeof big);
  memcpy(big, "Comment", 8);
  n += put_chunk(buf + n, "tEXt", sizeof big, big, sizeof big);
  put_file(path, buf, n);
  fg_image_load_options o = {.max_chunk_bytes = 100};
  expect_refused(path, &o, "tEXt of 200 bytes is over the limit of 100 "
                          "bytes");
}
END_TEST

START_TEST(test_image_bomb_jpeg_header_refused)
{
  /* SOI, SOF (65500 x 65500, 1 component), SOS: 31 bytes */
  uint8_t jpg[] = {0xff, 0xd8, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0xff, 0xdc,
                   0xff, 0xdc, 0x01, 0x01, 0x11, 0x00, 0xff, 0xda, 0x00,
                   0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, 0x12, 0x34,
                   0x56, 0x78, 0xff, 0xd9};
  char path[PATH_MAX];
  tmp_path(path, sizeof path, "bomb.jpg");
  put_file(path, jpg, sizeof jpg);
  expect_refused(path, NULL, "65500x65500 pixels is over the limit of "
                             "268435456 pixels");
  /* progressive (SOF2), 3 components: refused before its coefficients */
  uint8_t prog[] = {0xff, 0xd8, 0xff, 0xc2, 0x00, 0x11, 0x08, 0xff, 0xdc,
                    0xff, 0xdc, 0x03, 0x01, 0x11, 0x00, 0x02, 0x11, 0x00,
                    0x03, 0x11, 0x00, 0xff, 0xda, 0x00, 0x08, 0x01, 0x01,
                    0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0xff, 0xd9};
  put_file(path, prog, sizeof prog);
  expect_refused(path, NULL, "max_pixels");
}
END_TEST

START_TEST(test_image_bomb_pnm_header_refused)
{
  static const char pgm[] = "P5\n65535 65535\n255\nabcd";
  char path[PATH_MAX];
  tmp_path(path, sizeof path, "bomb.pgm");
  put_file(path, pgm, sizeof pgm - 1);
  expect_refused(path, NULL, "over the limit of 268435456 pixels");
  /* under the pixel limit but far longer than the file */
  static const char ppm[] = "P6\n16000 16000\n255\nabcd";
  put_file(path, ppm, sizeof ppm - 1);
  expect_refused(path, NULL, "truncated");
}
END_TEST

START_TEST(test_image_load_pixel_limit_is_settable)
{
  char path[PATH_MAX], err[512];
  fg_image img;
  ck_assert_int_eq(fg_image_alloc(&img, 16, 8, 3), FG_OK);
  for (int i = 0; i < 16 * 8 * 3; i++)
    img.data[i] = (uint8_t)i;
  static const char *const names[] = {"lim.png", "lim.jpg", "lim.ppm"};
  for (int f = 0; f < 3; f++) {
    tmp_path(path, sizeof path, names[f]);
    ck_assert_msg(fg_image_write(path, &img, 0, err, sizeof err) == FG_OK,
                  "%s", err);
    fg_image_load_options o = FG_IMAGE_LOAD_OPTIONS_INIT;
    o.max_pixels = 16 * 8;
    fg_image back;
    ck_assert_msg(fg_image_load(path, &back, &o, err, sizeof err) == FG_OK,
                  "%s", err);
    ck_assert_int_eq(back.width, 16);
    fg_image_free(&back);
    o.max_pixels = 16 * 8 - 1;
    expect_refused(path, &o, "16x8 pixels is over the limit of 127 pixels");
  }
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_read_missing_file)
{
  char path[PATH_MAX], err[512];
  fg_image img;

  tmp_path(path, sizeof path, "does_not_exist.png");
  make_junk(&img);
  ck_assert_int_eq(fg_image_read(path, &img, err, sizeof err), FG_EIO);
  assert_zeroed(&img);
  ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
  ck_assert_msg(strstr(err, strerror(ENOENT)) != NULL, "message: %s", err);
  /* NULL err and zero errlen are accepted */
  ck_assert_int_eq(fg_image_read(path, &img, NULL, 0), FG_EIO);
  err[0] = 'x';
  ck_assert_int_eq(fg_image_read(path, &img, err, 0), FG_EIO);
  ck_assert_int_eq(err[0], 'x');
  /* a tiny buffer is truncated, still terminated */
  memset(err, 'x', sizeof err);
  ck_assert_int_eq(fg_image_read(path, &img, err, 8), FG_EIO);
  ck_assert_uint_eq(strlen(err), 7);
}
END_TEST

START_TEST(test_image_read_directory)
{
  char err[512];
  fg_image img;

  make_junk(&img);
  ck_assert_int_eq(fg_image_read(g_dir, &img, err, sizeof err), FG_EIO);
  assert_zeroed(&img);
  ck_assert_msg(strstr(err, g_dir) != NULL, "message: %s", err);
}
END_TEST

START_TEST(test_image_read_truncated_png)
{
  char src[PATH_MAX], path[PATH_MAX], err[512];
  uint8_t *raw;
  size_t len;
  fg_image img;

  raw = slurp(sample_path(src, sizeof src, "astronaut.png"), &len);
  ck_assert_uint_gt(len, 1000);
  tmp_path(path, sizeof path, "truncated.png");
  spit(path, raw, 1000);
  free(raw);
  make_junk(&img);
  ck_assert_int_eq(fg_image_read(path, &img, err, sizeof err), FG_EFORMAT);
  assert_zeroed(&img);
  ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
}
END_TEST

START_TEST(test_image_read_truncated_png_after_pixels_start)
{
  /* cut inside the pixel data, so the decoder has already allocated */
  char src[PATH_MAX], path[PATH_MAX], err[512];
  uint8_t *raw;
  size_t len;
  fg_image img;

  raw = slurp(sample_path(src, sizeof src, "astronaut.png"), &len);
  tmp_path(path, sizeof path, "half.png");
  spit(path, raw, len / 2);
  free(raw);
  make_junk(&img);
  ck_assert_int_eq(fg_image_read(path, &img, err, sizeof err), FG_EFORMAT);
  assert_zeroed(&img);
}
END_TEST

START_TEST(test_image_read_truncated_jpeg)
{
  char src[PATH_MAX], path[PATH_MAX], err[512];
  uint8_t *raw;
  size_t len;
  fg_image img;

  raw = slurp(sample_path(src, sizeof src, "hubble_deep_field.jpg"), &len);
  tmp_path(path, sizeof path, "half.jpg");
  spit(path, raw, len / 2);
  free(raw);
  make_junk(&img);
  ck_assert_int_eq(fg_image_read(path, &img, err, sizeof err), FG_EFORMAT);
  assert_zeroed(&img);
  ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
}
END_TEST

START_TEST(test_image_read_garbage_file)
{
  char path[PATH_MAX], err[512];
  uint8_t junk[4096];
  uint32_t seed = 2024;
  fg_image img;
  size_t i;

  for (i = 0; i < sizeof junk; i++)
    junk[i] = (uint8_t)(rng_next(&seed) >> 24);
  junk[0] = 'G'; /* neither 0x89 (PNG) nor 0xff (JPEG) */

  tmp_path(path, sizeof path, "garbage.png");
  spit(path, junk, sizeof junk);
  make_junk(&img);
  ck_assert_int_eq(fg_image_read(path, &img, err, sizeof err), FG_EFORMAT);
  assert_zeroed(&img);
  ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);

  /* a valid PNG signature followed by garbage */
  memcpy(junk, png_sig, sizeof png_sig);
  tmp_path(path, sizeof path, "garbage_sig.png");
  spit(path, junk, sizeof junk);
  make_junk(&img);
  ck_assert_int_eq(fg_image_read(path, &img, err, sizeof err), FG_EFORMAT);
  assert_zeroed(&img);

  /* a JPEG start-of-image marker followed by garbage */
  junk[0] = 0xff;
  junk[1] = 0xd8;
  junk[2] = 0xff;
  junk[3] = 0xe0;
  tmp_path(path, sizeof path, "garbage_sig.jpg");
  spit(path, junk, sizeof junk);
  make_junk(&img);
  ck_assert_int_eq(fg_image_read(path, &img, err, sizeof err), FG_EFORMAT);
  assert_zeroed(&img);
}
END_TEST

START_TEST(test_image_read_empty_file)
{
  char path[PATH_MAX], err[512];
  fg_image img;

  tmp_path(path, sizeof path, "empty.png");
  spit(path, "", 0);
  make_junk(&img);
  ck_assert_int_eq(fg_image_read(path, &img, err, sizeof err), FG_EFORMAT);
  assert_zeroed(&img);
  ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
}
END_TEST

START_TEST(test_image_invalid_arguments)
{
  char path[PATH_MAX], err[512];
  fg_image img, bad;

  tmp_path(path, sizeof path, "x.png");
  ck_assert_int_eq(fg_image_read(NULL, &img, err, sizeof err), FG_EINVAL);
  ck_assert_int_ne(err[0], '\0');
  ck_assert_int_eq(fg_image_read(path, NULL, err, sizeof err), FG_EINVAL);
  ck_assert_int_eq(fg_image_read("", &img, err, sizeof err), FG_EINVAL);

  ck_assert_int_eq(fg_image_alloc(&img, 4, 4, 3), FG_OK);
  ck_assert_int_eq(fg_image_write(NULL, &img, 0, err, sizeof err), FG_EINVAL);
  ck_assert_int_eq(fg_image_write(path, NULL, 0, err, sizeof err), FG_EINVAL);
  ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);

  bad = img;
  bad.data = NULL;
  ck_assert_int_eq(fg_image_write(path, &bad, 0, err, sizeof err), FG_EINVAL);
  bad = img;
  bad.width = 0;
  ck_assert_int_eq(fg_image_write(path, &bad, 0, err, sizeof err), FG_EINVAL);
  bad = img;
  bad.height = -3;
  ck_assert_int_eq(fg_image_write(path, &bad, 0, err, sizeof err), FG_EINVAL);
  bad = img;
  bad.width = FG_IMAGE_MAX_DIM + 1;
  ck_assert_int_eq(fg_image_write(path, &bad, 0, err, sizeof err), FG_EINVAL);
  bad = img;
  bad.channels = 0;
  ck_assert_int_eq(fg_image_write(path, &bad, 0, err, sizeof err), FG_EINVAL);

  tmp_path(path, sizeof path, "x.jpg");
  ck_assert_int_eq(fg_image_write(path, &img, -1, err, sizeof err), FG_EINVAL);
  ck_assert_int_eq(fg_image_write(path, &img, 101, err, sizeof err),
                   FG_EINVAL);
  ck_assert_msg(strstr(err, "101") != NULL, "message: %s", err);
  ck_assert_int_eq(count_entries(g_dir), 0);

  /* quality is ignored for PNG */
  tmp_path(path, sizeof path, "q.png");
  ck_assert_int_eq(fg_image_write(path, &img, 500, err, sizeof err), FG_OK);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_write_unknown_extension)
{
  static const char *names[] = {
    "out.bmp", "out", "out.png.bak", "out.jp", "out.pngx", ".png", "out.",
  };
  fg_image img;
  size_t i;

  ck_assert_int_eq(fg_image_alloc(&img, 4, 4, 3), FG_OK);
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[PATH_MAX], err[512];

    tmp_path(path, sizeof path, names[i]);
    ck_assert_msg(fg_image_write(path, &img, 0, err, sizeof err) == FG_EINVAL,
                  "%s accepted", names[i]);
    ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
    ck_assert_msg(strstr(err, ".png") && strstr(err, ".jpg") &&
                      strstr(err, ".jpeg"),
                  "message: %s", err);
    ck_assert(!path_exists(path));
  }
  ck_assert_int_eq(count_entries(g_dir), 0);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_write_into_missing_directory)
{
  char dir[PATH_MAX], path[PATH_MAX], err[512];
  fg_image img;

  ck_assert_int_eq(fg_image_alloc(&img, 4, 4, 1), FG_OK);
  tmp_path(dir, sizeof dir, "no_such_dir");
  join_path(path, sizeof path, dir, "out.png");
  ck_assert_int_eq(fg_image_write(path, &img, 0, err, sizeof err), FG_EIO);
  ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
  ck_assert(!path_exists(dir));
  ck_assert_int_eq(count_entries(g_dir), 0);
  join_path(path, sizeof path, dir, "out.jpg");
  ck_assert_int_eq(fg_image_write(path, &img, 0, err, sizeof err), FG_EIO);
  ck_assert_int_eq(count_entries(g_dir), 0);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_failed_write_keeps_existing_file)
{
  char path[PATH_MAX], err[512];
  fg_image img, bad, back;
  uint8_t *before, *after;
  size_t before_len, after_len;

  tmp_path(path, sizeof path, "keep.png");
  ck_assert_int_eq(fg_image_alloc(&img, 31, 17, 3), FG_OK);
  fill_random(&img, 31337);
  ck_assert_int_eq(fg_image_write(path, &img, 0, err, sizeof err), FG_OK);
  before = slurp(path, &before_len);

  ck_assert_int_eq(fg_image_alloc(&bad, 31, 17, 4), FG_OK);
  bad.channels = 5; /* invalid */
  ck_assert_int_eq(fg_image_write(path, &bad, 0, err, sizeof err), FG_EINVAL);
  ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
  bad.channels = 4;
  fg_image_free(&bad);

  after = slurp(path, &after_len);
  ck_assert_uint_eq(after_len, before_len);
  ck_assert_int_eq(memcmp(before, after, before_len), 0);
  ck_assert_int_eq(fg_image_read(path, &back, err, sizeof err), FG_OK);
  ck_assert_int_eq(back.channels, 3);
  ck_assert_int_eq(memcmp(back.data, img.data, 31 * 17 * 3), 0);
  ck_assert_int_eq(count_entries(g_dir), 1);
  free(before);
  free(after);
  fg_image_free(&back);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_write_failing_midway_keeps_existing_file)
{
  /* A file-size limit makes the write itself fail half way (EFBIG), after
   * the temporary file exists: the destination must stay intact and the
   * temporary must be gone. */
  char path[PATH_MAX], err[512];
  fg_image small, big, back;
  uint8_t *before, *after;
  size_t before_len, after_len;
  struct rlimit old, lim;
  void (*old_handler)(int);
  fg_status st_png, st_jpg;
  char jpg[PATH_MAX];

  tmp_path(path, sizeof path, "dest.png");
  tmp_path(jpg, sizeof jpg, "dest.jpg");
  ck_assert_int_eq(fg_image_alloc(&small, 8, 8, 3), FG_OK);
  fill_random(&small, 5);
  ck_assert_int_eq(fg_image_write(path, &small, 0, err, sizeof err), FG_OK);
  ck_assert_int_eq(fg_image_write(jpg, &small, 0, err, sizeof err), FG_OK);
  before = slurp(path, &before_len);
  ck_assert_int_eq(fg_image_alloc(&big, 512, 512, 3), FG_OK);
  fill_random(&big, 6); /* noise: compresses to ~800 kB */

  ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
  lim = old;
  lim.rlim_cur = 64 * 1024;
  old_handler = signal(SIGXFSZ, SIG_IGN);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  st_png = fg_image_write(path, &big, 0, err, sizeof err);
  st_jpg = fg_image_write(jpg, &big, 100, NULL, 0);
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, old_handler);

  ck_assert_int_eq(st_png, FG_EIO);
  ck_assert_int_eq(st_jpg, FG_EIO);
  ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
  after = slurp(path, &after_len);
  ck_assert_uint_eq(after_len, before_len);
  ck_assert_int_eq(memcmp(before, after, before_len), 0);
  ck_assert_int_eq(fg_image_read(path, &back, err, sizeof err), FG_OK);
  ck_assert_int_eq(memcmp(back.data, small.data, 8 * 8 * 3), 0);
  fg_image_free(&back);
  ck_assert_int_eq(fg_image_read(jpg, &back, err, sizeof err), FG_OK);
  ck_assert_int_eq(back.width, 8);
  fg_image_free(&back);
  ck_assert_int_eq(count_entries(g_dir), 2); /* no temporaries */
  free(before);
  free(after);
  fg_image_free(&small);
  fg_image_free(&big);
}
END_TEST

START_TEST(test_image_failed_rename_leaves_no_temp_file)
{
  /* The destination is a directory: the temporary is written, the rename
   * fails, and the temporary must be removed. */
  char path[PATH_MAX], err[512];
  fg_image img;

  tmp_path(path, sizeof path, "taken.png");
  ck_assert_int_eq(mkdir(path, 0700), 0);
  ck_assert_int_eq(fg_image_alloc(&img, 4, 4, 3), FG_OK);
  ck_assert_int_eq(fg_image_write(path, &img, 0, err, sizeof err), FG_EIO);
  ck_assert_msg(strstr(err, path) != NULL, "message: %s", err);
  ck_assert_int_eq(count_entries(g_dir), 1);
  ck_assert_int_eq(count_entries(path), 0);
  fg_image_free(&img);
}
END_TEST

START_TEST(test_image_overwrite_replaces_and_keeps_mode)
{
  char path[PATH_MAX], fresh[PATH_MAX], err[512];
  fg_image a, b, back;
  struct stat st;
  mode_t old_mask;

  tmp_path(path, sizeof path, "over.png");
  tmp_path(fresh, sizeof fresh, "fresh.png");
  ck_assert_int_eq(fg_image_alloc(&a, 10, 10, 1), FG_OK);
  ck_assert_int_eq(fg_image_alloc(&b, 12, 9, 2), FG_OK);
  fill_random(&a, 1);
  fill_random(&b, 2);

  old_mask = umask(022);
  ck_assert_int_eq(fg_image_write(fresh, &a, 0, err, sizeof err), FG_OK);
  umask(old_mask);
  ck_assert_int_eq(stat(fresh, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0644); /* umask, not mkstemp's 0600 */

  ck_assert_int_eq(fg_image_write(path, &a, 0, err, sizeof err), FG_OK);
  ck_assert_int_eq(chmod(path, 0640), 0);
  ck_assert_int_eq(fg_image_write(path, &b, 0, err, sizeof err), FG_OK);
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0640);
  ck_assert_int_eq(fg_image_read(path, &back, err, sizeof err), FG_OK);
  ck_assert_int_eq(back.width, 12);
  ck_assert_int_eq(back.height, 9);
  ck_assert_int_eq(back.channels, 2);
  ck_assert_int_eq(memcmp(back.data, b.data, 12 * 9 * 2), 0);
  ck_assert_int_eq(count_entries(g_dir), 2);
  fg_image_free(&back);
  fg_image_free(&a);
  fg_image_free(&b);
}
END_TEST

static Suite *image_suite(void)
{
  Suite *s = suite_create("image");
  TCase *tc = tcase_create("core");

  tcase_add_unchecked_fixture(tc, setup_root, teardown_root);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_image_alloc_and_free);
  tcase_add_test(tc, test_image_alloc_rejects_bad_sizes);
  tcase_add_test(tc, test_image_png_roundtrip_all_channel_counts);
  tcase_add_test(tc, test_image_jpeg_roundtrip_gradient);
  tcase_add_test(tc, test_image_jpeg_roundtrip_grey);
  tcase_add_test(tc, test_image_jpeg_flattens_alpha);
  tcase_add_test(tc, test_image_jpeg_quality_changes_size);
  tcase_add_test(tc, test_image_write_extension_case_insensitive);
  tcase_add_test(tc, test_image_read_detects_format_by_signature);
  tcase_add_test(tc, test_image_read_astronaut_png);
  tcase_add_test(tc, test_image_read_hubble_jpeg);
  tcase_add_test(tc, test_image_read_png_transformations);
  tcase_add_test(tc, test_image_read_cmyk_jpeg_converted);
  tcase_add_test(tc, test_image_read_too_large_png);
  tcase_add_test(tc, test_image_bomb_png_header_refused);
  tcase_add_test(tc, test_image_bomb_png_text_chunk_refused);
  tcase_add_test(tc, test_image_bomb_jpeg_header_refused);
  tcase_add_test(tc, test_image_bomb_pnm_header_refused);
  tcase_add_test(tc, test_image_load_pixel_limit_is_settable);
  tcase_add_test(tc, test_image_read_missing_file);
  tcase_add_test(tc, test_image_read_directory);
  tcase_add_test(tc, test_image_read_truncated_png);
  tcase_add_test(tc, test_image_read_truncated_png_after_pixels_start);
  tcase_add_test(tc, test_image_read_truncated_jpeg);
  tcase_add_test(tc, test_image_read_garbage_file);
  tcase_add_test(tc, test_image_read_empty_file);
  tcase_add_test(tc, test_image_invalid_arguments);
  tcase_add_test(tc, test_image_write_unknown_extension);
  tcase_add_test(tc, test_image_write_into_missing_directory);
  tcase_add_test(tc, test_image_failed_write_keeps_existing_file);
  tcase_add_test(tc, test_image_write_failing_midway_keeps_existing_file);
  tcase_add_test(tc, test_image_failed_rename_leaves_no_temp_file);
  tcase_add_test(tc, test_image_overwrite_replaces_and_keeps_mode);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(image_suite());
  int failed;

  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
