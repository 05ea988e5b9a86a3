/* tests/check_image_vips.c - the libvips image backend against files made
 * independently: the test writes PGM/PPM itself, the `vips` command
 * converts them to each format (and the library's outputs back to PPM,
 * which the test parses itself); pixels compared exactly for lossless
 * formats, by PSNR for lossy ones.  Also 16 bits, float TIFF, EXIF
 * orientation (a JPEG whose EXIF block the test writes), ICC conversion
 * (Display P3 and CMYK against lcms's own transform through `vips
 * icc_transform`) and the output options.  Built only with libvips. */
#include "testutil.h"

#include <lcms2.h>
#include <math.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void setup(void) { tu_tmpdir(dir, sizeof dir, "vips"); }

static void teardown(void) { tu_rm_rf(dir); }

static const char *at(const char *name) {
  static char buf[4][256];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
  return buf[k];
}

/* A smooth pattern with some detail, 8 or 16 bits, ch channels. */
static fg_image pattern(int w, int h, int ch, fg_image_type t) {
  fg_image img;
  ck_assert_int_eq(fg_image_alloc_type(&img, w, h, ch, t), FG_OK);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < ch; c++) {
        double v = 0.5 + 0.4 * sin(x * 0.21 + c) * cos(y * 0.17 - c) +
                   0.05 * ((x * 7 + y * 13 + c * 5) % 3 - 1);
        size_t i = ((size_t)y * w + x) * ch + c;
        if (t == FG_IMAGE_U16)
          ((uint16_t *)img.data)[i] = (uint16_t)(v * 65535 + 0.5);
        else
          img.data[i] = (uint8_t)(v * 255 + 0.5);
      }
  return img;
}

/* The test's own PGM/PPM writer (maxval 255 or 65535, big-endian). */
static void write_pnm(const char *path, const fg_image *img) {
  FILE *f = fopen(path, "wb");
  ck_assert(f != NULL);
  int sixteen = img->type == FG_IMAGE_U16;
  fprintf(f, "P%d\n%d %d\n%d\n", img->channels == 1 ? 5 : 6, img->width,
          img->height, sixteen ? 65535 : 255);
  size_t n = (size_t)img->width * img->height * img->channels;
  for (size_t i = 0; i < n; i++) {
    if (sixteen) {
      uint16_t v = ((const uint16_t *)img->data)[i];
      fputc(v >> 8, f);
      fputc(v & 255, f);
    } else {
      fputc(img->data[i], f);
    }
  }
  ck_assert_int_eq(fclose(f), 0);
}

/* The test's own PGM/PPM reader: samples as 16-bit values (8-bit files
 * keep their 0..255), *maxval set. */
static uint16_t *read_pnm(const char *path, int *w, int *h, int *ch,
                          int *maxval) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "%s", path);
  int p, v[3], k = 0;
  ck_assert(fscanf(f, "P%d", &p) == 1);
  while (k < 3) { /* numbers, skipping # comments (vips writes one) */
    int c = fgetc(f);
    ck_assert(c != EOF);
    if (c == '#') {
      while ((c = fgetc(f)) != '\n' && c != EOF) {
      }
    } else if (c >= '0' && c <= '9') {
      ungetc(c, f);
      ck_assert(fscanf(f, "%d", &v[k++]) == 1);
    }
  }
  *w = v[0];
  *h = v[1];
  *maxval = v[2];
  fgetc(f);
  *ch = p == 5 ? 1 : 3;
  size_t n = (size_t)*w * *h * *ch;
  uint16_t *s = malloc(n * sizeof *s);
  for (size_t i = 0; i < n; i++) {
    int a = fgetc(f);
    s[i] = (uint16_t)(*maxval > 255 ? a << 8 | fgetc(f) : a);
  }
  ck_assert(!feof(f));
  fclose(f);
  return s;
}

static double sample(const fg_image *img, size_t i) {
  return img->type == FG_IMAGE_U16 ? ((const uint16_t *)img->data)[i]
         : img->type == FG_IMAGE_F32 ? ((const float *)img->data)[i]
                                     : img->data[i];
}

/* PSNR of got against want (same size), peak 255 or 65535. */
static double psnr(const fg_image *got, const fg_image *want, double peak) {
  ck_assert_int_eq(got->width, want->width);
  ck_assert_int_eq(got->height, want->height);
  ck_assert_int_eq(got->channels, want->channels);
  size_t n = (size_t)got->width * got->height * got->channels;
  double se = 0;
  for (size_t i = 0; i < n; i++) {
    double d = sample(got, i) - sample(want, i);
    se += d * d;
  }
  return se == 0 ? INFINITY : 10 * log10(peak * peak / (se / (double)n));
}

static void expect_equal(const fg_image *got, const fg_image *want,
                         const char *what) {
  ck_assert_int_eq(got->type, want->type);
  double p = psnr(got, want, 255);
  ck_assert_msg(isinf(p), "%s: pixels differ (PSNR %.1f dB)", what, p);
}

static fg_image read_ok(const char *path) {
  fg_image img;
  char err[512];
  ck_assert_msg(fg_image_read(path, &img, err, sizeof err) == FG_OK, "%s",
                err);
  return img;
}

/* An fg_image of a PNM file read by the test's own reader. */
static fg_image pnm_image(const char *path) {
  int w, h, ch, maxval;
  uint16_t *v = read_pnm(path, &w, &h, &ch, &maxval);
  fg_image img;
  ck_assert_int_eq(fg_image_alloc_type(&img, w, h, ch, maxval > 255 ?
                                       FG_IMAGE_U16 : FG_IMAGE_U8), FG_OK);
  for (size_t i = 0; i < (size_t)w * h * ch; i++)
    if (maxval > 255)
      ((uint16_t *)img.data)[i] = v[i];
    else
      img.data[i] = (uint8_t)v[i];
  free(v);
  return img;
}

/* The largest absolute difference of two files' samples, as vips computes
 * it (any format and band count). */
static double file_max_diff(const char *a, const char *b) {
  tu_sh("vips subtract '%s' '%s' '%s'", a, b, at("d.v"));
  tu_sh("vips abs '%s' '%s'", at("d.v"), at("e.v"));
  char cmd[600];
  snprintf(cmd, sizeof cmd, "vips max '%s'", at("e.v"));
  FILE *p = popen(cmd, "r");
  ck_assert(p != NULL);
  double m = -1;
  ck_assert_int_eq(fscanf(p, "%lf", &m), 1);
  ck_assert_int_eq(pclose(p), 0);
  return m;
}

/* Whether two files embed the same ICC profile (as vipsheader prints its
 * bytes, base64). */
static int same_profile(const char *a, const char *b) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "test \"$(vipsheader -f icc-profile-data '%s')\" "
           "= \"$(vipsheader -f icc-profile-data '%s')\"", a, b);
  return system(cmd) == 0;
}

/* ---- formats made by vips, read here ------------------------------------ */

static const struct {
  const char *name;  /* vips output name with options */
  double min_psnr;   /* INFINITY: lossless, exact */
} made[] = {
  {"a.png", INFINITY}, {"a.tif", INFINITY},
  {"b.tif[compression=lzw]", INFINITY}, {"a.webp[lossless]", INFINITY},
  {"a.jxl[lossless]", INFINITY}, {"a.ppm", INFINITY},
  {"a.jpg[Q=95]", 35}, {"b.webp[Q=90]", 25}, {"a.heic[Q=90]", 30},
  {"a.avif[Q=90]", 30}, {"a.gif", 24},
};

START_TEST(test_vips_reads_every_format) {
  fg_image src = pattern(67, 43, 3, FG_IMAGE_U8);
  write_pnm(at("src.ppm"), &src);
  for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
    tu_sh("vips copy '%s' '%s'", at("src.ppm"), at(made[i].name));
    char file[128];
    snprintf(file, sizeof file, "%s", made[i].name);
    char *br = strchr(file, '[');
    if (br)
      *br = '\0';
    fg_image got = read_ok(at(file));
    if (isinf(made[i].min_psnr)) {
      expect_equal(&got, &src, file);
    } else {
      double p = psnr(&got, &src, 255);
      ck_assert_msg(p > made[i].min_psnr, "%s: PSNR %.1f dB, expected more "
                    "than %.0f", file, p, made[i].min_psnr);
    }
    fg_image_free(&got);
  }
  fg_image_free(&src);
}
END_TEST

/* ---- written here, read back by vips ------------------------------------ */

static const struct {
  const char *spec;
  double min_psnr;
} written[] = {
  {"w.png", INFINITY}, {"w.png[compression=9,filter=all]", INFINITY},
  {"w.tif", INFINITY}, {"w.tif[compression=deflate]", INFINITY},
  {"w.webp[lossless]", INFINITY}, {"w.jxl[lossless]", INFINITY},
  {"w.ppm", INFINITY}, {"w.jpg[Q=95]", 35}, {"w.webp[Q=90]", 25},
  {"w.heic[Q=90]", 30}, {"w.gif", 24}, {"w.png[strip]", INFINITY},
};

START_TEST(test_vips_writes_every_format) {
  fg_image src = pattern(53, 31, 3, FG_IMAGE_U8);
  for (size_t i = 0; i < sizeof written / sizeof written[0]; i++) {
    fg_image_save_options o;
    size_t n;
    char err[512], name[128];
    ck_assert_msg(fg_image_save_parse(written[i].spec, &n, &o, err,
                                      sizeof err) == FG_OK, "%s", err);
    snprintf(name, sizeof name, "%.*s", (int)n, written[i].spec);
    ck_assert_msg(fg_image_save(at(name), &src, &o, err, sizeof err) ==
                  FG_OK, "%s", err);
    tu_sh("vips copy '%s' '%s'", at(name), at("back.ppm"));
    fg_image got = pnm_image(at("back.ppm"));
    if (isinf(written[i].min_psnr)) {
      expect_equal(&got, &src, written[i].spec);
    } else {
      double p = psnr(&got, &src, 255);
      ck_assert_msg(p > written[i].min_psnr, "%s: PSNR %.1f dB, expected "
                    "more than %.0f", written[i].spec, p,
                    written[i].min_psnr);
    }
    fg_image_free(&got);
  }
  fg_image_free(&src);
}
END_TEST

/* Alpha: RGBA and grey+alpha through PNG, WebP and TIFF both ways. */
START_TEST(test_vips_alpha_roundtrip) {
  static const char *exts[] = {"png", "tif", "webp[lossless]"};
  for (int ch = 2; ch <= 4; ch += 2) {
    fg_image src = pattern(29, 17, ch, FG_IMAGE_U8);
    /* WebP has no grey: grey+alpha comes back RGBA, checked by vips above */
    for (size_t i = 0; i < 3; i++) {
      char spec[64], name[64], err[512];
      snprintf(spec, sizeof spec, "al%d.%s", ch, exts[i]);
      fg_image_save_options o;
      size_t n;
      ck_assert(fg_image_save_parse(spec, &n, &o, err, sizeof err) == FG_OK);
      snprintf(name, sizeof name, "%.*s", (int)n, spec);
      ck_assert_msg(fg_image_save(at(name), &src, &o, err, sizeof err) ==
                    FG_OK, "%s", err);
      /* vips sees the alpha band: its last band equals ours (WebP stores
       * grey+alpha as RGBA) */
      tu_sh("f='%s'; vips extract_band \"$f\" '%s' "
            "$(($(vipsheader -f bands \"$f\") - 1))", at(name), at("a.pgm"));
      fg_image alpha = pnm_image(at("a.pgm"));
      for (int k = 0; k < src.width * src.height; k++)
        ck_assert_int_eq(alpha.data[k], src.data[k * ch + ch - 1]);
      fg_image_free(&alpha);
      fg_image got = read_ok(at(name));
      if (ch == 2 && i == 2) {
        ck_assert_int_eq(got.channels, 4);
        for (int k = 0; k < src.width * src.height; k++)
          for (int c = 0; c < 3; c++)
            ck_assert_int_eq(got.data[4 * k + c], src.data[2 * k]);
      } else {
        expect_equal(&got, &src, spec);
      }
      fg_image_free(&got);
    }
    fg_image_free(&src);
  }
}
END_TEST

/* JPEG and PNM have no alpha: RGBA and grey+alpha are flattened against
 * black as libvips saves them (colour x alpha / 255), so a transparent
 * pixel's hidden colour never shows; before, the alpha was dropped.  The
 * expected pixels are computed here; vips converts the outputs back. */
START_TEST(test_vips_no_alpha_formats_flatten) {
  static const struct { const char *spec; double min_psnr; } outs[] = {
      {"f.ppm", INFINITY}, {"f.jpg[Q=100]", 40}};
  for (int ch = 2; ch <= 4; ch += 2) {
    fg_image src = pattern(37, 23, ch, FG_IMAGE_U8);
    fg_image want;
    ck_assert_int_eq(fg_image_alloc(&want, 37, 23, ch - 1), FG_OK);
    for (int k = 0; k < 37 * 23; k++) {
      /* alpha: fully transparent, half and opaque columns */
      uint8_t a = (uint8_t)(k % 37 < 12 ? 0 : k % 37 < 24 ? 128 : 255);
      src.data[k * ch + ch - 1] = a;
      for (int c = 0; c < ch - 1; c++)
        want.data[k * (ch - 1) + c] =
            (uint8_t)((src.data[k * ch + c] * a + 127) / 255);
    }
    for (size_t i = 0; i < 2; i++) {
      fg_image_save_options o;
      size_t n;
      char err[512], name[64];
      ck_assert(fg_image_save_parse(outs[i].spec, &n, &o, err, sizeof err) ==
                FG_OK);
      snprintf(name, sizeof name, "%.*s", (int)n, outs[i].spec);
      if (ch == 2)
        name[n - 2] = name[n - 3] == 'p' ? 'g' : name[n - 2]; /* f.pgm */
      ck_assert_msg(fg_image_save(at(name), &src, &o, err, sizeof err) ==
                    FG_OK, "%s", err);
      tu_sh("vips copy '%s' '%s'", at(name),
            at(ch == 2 ? "back.pgm" : "back.ppm"));
      fg_image got = pnm_image(at(ch == 2 ? "back.pgm" : "back.ppm"));
      ck_assert_int_eq(got.channels, ch - 1);
      if (isinf(outs[i].min_psnr)) {
        expect_equal(&got, &want, name);
      } else {
        double p = psnr(&got, &want, 255);
        ck_assert_msg(p > outs[i].min_psnr, "%s (%d channels): PSNR %.1f dB "
                      "against the flattened pixels, expected more than "
                      "%.0f", name, ch, p, outs[i].min_psnr);
      }
      fg_image_free(&got);
    }
    fg_image_free(&want);
    fg_image_free(&src);
  }
}
END_TEST

/* ---- 16 bits and float -------------------------------------------------- */

START_TEST(test_vips_sixteen_bits_kept) {
  fg_image src = pattern(41, 27, 3, FG_IMAGE_U16);
  write_pnm(at("s16.ppm"), &src);
  tu_sh("vips copy '%s' '%s'", at("s16.ppm"), at("s16.png"));
  tu_sh("vips copy '%s' '%s'", at("s16.ppm"), at("s16.tif"));
  static const char *in[] = {"s16.png", "s16.tif", "s16.ppm"};
  for (int i = 0; i < 3; i++) {
    fg_image got = read_ok(at(in[i]));
    expect_equal(&got, &src, in[i]);
    fg_image_free(&got);
  }
  /* written as 16 bits (the image's own), read back by vips exactly */
  static const char *out[] = {"o16.png", "o16.tif"};
  for (int i = 0; i < 2; i++) {
    char err[512];
    ck_assert_msg(fg_image_save(at(out[i]), &src, NULL, err, sizeof err) ==
                  FG_OK, "%s", err);
    tu_sh("vips copy '%s' '%s'", at(out[i]), at("b16.ppm"));
    fg_image got = pnm_image(at("b16.ppm"));
    expect_equal(&got, &src, out[i]);
    fg_image_free(&got);
  }
  /* [bitdepth=16] from 8 bits: v * 257; [bitdepth=8] from 16: rounded */
  fg_image s8 = pattern(41, 27, 3, FG_IMAGE_U8);
  fg_image_save_options o;
  size_t n;
  char err[512];
  ck_assert(fg_image_save_parse("x.png[bitdepth=16]", &n, &o, err,
                                sizeof err) == FG_OK);
  ck_assert_int_eq(o.bitdepth, 16);
  ck_assert(fg_image_save(at("up.png"), &s8, &o, err, sizeof err) == FG_OK);
  tu_sh("vips copy '%s' '%s'", at("up.png"), at("up.ppm"));
  fg_image up = pnm_image(at("up.ppm"));
  ck_assert_int_eq(up.type, FG_IMAGE_U16);
  for (size_t i = 0; i < (size_t)41 * 27 * 3; i++)
    ck_assert_uint_eq(((uint16_t *)up.data)[i], s8.data[i] * 257u);
  o.bitdepth = 8;
  ck_assert(fg_image_save(at("down.png"), &src, &o, err, sizeof err) ==
            FG_OK);
  tu_sh("vips copy '%s' '%s'", at("down.png"), at("down.ppm"));
  fg_image down = pnm_image(at("down.ppm"));
  ck_assert_int_eq(down.type, FG_IMAGE_U8);
  for (size_t i = 0; i < (size_t)41 * 27 * 3; i++)
    ck_assert_int_eq(down.data[i],
                     (int)(((uint16_t *)src.data)[i] / 257.0 + 0.5));
  fg_image_free(&up);
  fg_image_free(&down);
  fg_image_free(&s8);
  fg_image_free(&src);
}
END_TEST

static const char *sample_path(const char *name);
static void save_spec_ok(const char *spec, const fg_image *img);

/* The largest |a x scale - b| over two files' samples (vips computes). */
static double file_max_diff_scaled(const char *a, double scale,
                                   const char *b) {
  char bb[512];
  snprintf(bb, sizeof bb, "%s", b); /* at() reuses its buffers */
  tu_sh("vips linear '%s' '%s' %.17g 0", a, at("scaled.v"), scale);
  return file_max_diff(at("scaled.v"), bb);
}

/* A float TIFF made by vips (scRGB, linear light, with a float alpha
 * beside it) reads as vips' own colourspace to sRGB gives it: within 0.51
 * of an 8-bit step (vips rounds to 8 bits), the alpha as stored. */
START_TEST(test_vips_float_tiff_scrgb_in) {
  tu_sh("vips crop '%s' '%s' 200 150 48 40", sample_path("astronaut.png"),
        at("c.v"));
  tu_sh("vips cast '%s' '%s' float", at("c.v"), at("cf.v"));
  tu_sh("vips colourspace '%s' '%s' scrgb", at("cf.v"), at("lin.v"));
  tu_sh("vips bandjoin_const '%s' '%s' 0.75", at("lin.v"), at("lin.tif"));
  tu_sh("vipsheader '%s' | grep -q 'float, 4 bands, scrgb'", at("lin.tif"));
  tu_sh("vips colourspace '%s' '%s' srgb", at("lin.tif"), at("ref.v"));
  fg_image got = read_ok(at("lin.tif"));
  ck_assert_int_eq(got.type, FG_IMAGE_F32);
  ck_assert_int_eq(got.channels, 4);
  /* the colour against vips' 8 bits, the alpha exactly */
  fg_image rgb;
  ck_assert_int_eq(fg_image_alloc_type(&rgb, 48, 40, 3, FG_IMAGE_F32),
                   FG_OK);
  for (size_t i = 0; i < (size_t)48 * 40; i++) {
    memcpy((float *)rgb.data + 3 * i, (float *)got.data + 4 * i,
           3 * sizeof(float));
    ck_assert_float_eq(((float *)got.data)[4 * i + 3], 0.75f);
  }
  tu_sh("vips extract_band '%s' '%s' 0 --n 3", at("ref.v"), at("ref3.v"));
  save_spec_ok(at("got.png[bitdepth=16]"), &rgb);
  double d = file_max_diff_scaled(at("got.png"), 255 / 65535.0, at("ref3.v"));
  ck_assert_msg(d <= 0.51, "scRGB TIFF read: %g of 255 from vips' sRGB", d);
  /* and not the samples as stored (the old reading): far off */
  tu_sh("vips linear '%s' '%s' 255 0", at("lin.v"), at("raw.v"));
  ck_assert(file_max_diff(at("raw.v"), at("ref3.v")) > 20);
  fg_image_free(&rgb);
  fg_image_free(&got);
}
END_TEST

/* fieldgraph's float TIFF, which vips reads as scRGB, converted by vips
 * to sRGB shows what fieldgraph's 8-bit PNG shows (within one 8-bit step:
 * vips rounds its scRGB to sRGB through 8 bits; vips copy to PNG would
 * only cast the linear floats, in vips 8.14 as for vips' own scRGB);
 * values outside [0, 1] go through the curve unclipped and come back. */
START_TEST(test_vips_float_tiff_out_matches_png) {
  fg_image a = read_ok(sample_path("chelsea.png"));
  fg_image f;
  ck_assert_int_eq(fg_image_alloc_type(&f, a.width, a.height, a.channels,
                                       FG_IMAGE_F32), FG_OK);
  size_t n = (size_t)a.width * a.height * a.channels;
  for (size_t i = 0; i < n; i++)
    ((float *)f.data)[i] = a.data[i] / 255.0f;
  save_spec_ok(at("fo.tif"), &f);
  save_spec_ok(at("fo.png"), &f);
  tu_sh("vipsheader '%s' | grep -q 'float, 3 bands, scrgb'", at("fo.tif"));
  tu_sh("vips colourspace '%s' '%s' srgb", at("fo.tif"), at("fo_vips.png"));
  double d = file_max_diff(at("fo_vips.png"), at("fo.png"));
  ck_assert_msg(d <= 1, "vips copy of the float TIFF: %g from the PNG", d);
  /* HDR: 1.5 and -0.25 sRGB-encoded, stored linear, read back */
  float *p = (float *)f.data;
  p[0] = 1.5f;
  p[1] = -0.25f;
  p[2] = 0.5f;
  save_spec_ok(at("hdr.tif"), &f);
  fg_image b = read_ok(at("hdr.tif"));
  for (size_t i = 0; i < n; i++)
    ck_assert_double_eq_tol(((float *)b.data)[i], p[i], 2e-6);
  /* what the file holds, by the formulas in double */
  char cmd[600];
  snprintf(cmd, sizeof cmd, "vips getpoint '%s' 0 0", at("hdr.tif"));
  FILE *pp = popen(cmd, "r");
  ck_assert(pp != NULL);
  double v[3];
  ck_assert_int_eq(fscanf(pp, "%lf %lf %lf", &v[0], &v[1], &v[2]), 3);
  ck_assert_int_eq(pclose(pp), 0);
  ck_assert_double_eq_tol(v[0], pow((1.5 + 0.055) / 1.055, 2.4), 1e-5);
  ck_assert_double_eq_tol(v[1], -0.25 / 12.92, 1e-6);
  ck_assert_double_eq_tol(v[2], pow((0.5 + 0.055) / 1.055, 2.4), 1e-6);
  fg_image_free(&b);
  fg_image_free(&f);
  fg_image_free(&a);
}
END_TEST

START_TEST(test_vips_float_tiff) {
  fg_image src = pattern(19, 11, 3, FG_IMAGE_U8);
  write_pnm(at("f.ppm"), &src);
  /* vips makes float samples v / 512 + 0.125 */
  tu_sh("vips linear '%s' '%s' 0.001953125 0.125", at("f.ppm"), at("f.tif"));
  fg_image got = read_ok(at("f.tif"));
  ck_assert_int_eq(got.type, FG_IMAGE_F32);
  /* a float RGB TIFF is linear light (libvips' scRGB): sRGB-encoded on
   * load by the sRGB curve, computed here in double */
  for (size_t i = 0; i < (size_t)19 * 11 * 3; i++) {
    double v = src.data[i] * 0.001953125 + 0.125;
    double e = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055;
    ck_assert_double_eq_tol(((float *)got.data)[i], e, 1e-6);
  }
  /* written back as float: vips reads the same values */
  char err[512];
  ck_assert_msg(fg_image_save(at("g.tif"), &got, NULL, err, sizeof err) ==
                FG_OK, "%s", err);
  /* (rounded: the two curves in float come back within 1e-7) */
  tu_sh("vips linear --uchar -- '%s' '%s' 512 -63.5", at("g.tif"),
        at("g.ppm"));
  fg_image back = pnm_image(at("g.ppm"));
  expect_equal(&back, &src, "float TIFF written");
  fg_image_free(&back);
  fg_image_free(&got);
  fg_image_free(&src);
}
END_TEST

/* ---- the options of an output name -------------------------------------- */

START_TEST(test_vips_save_parse) {
  fg_image_save_options o;
  size_t n;
  char err[512];
  ck_assert(fg_image_save_parse("{stem}.webp[Q=80,lossless,strip]", &n, &o,
                                err, sizeof err) == FG_OK);
  ck_assert_uint_eq(n, strlen("{stem}.webp"));
  ck_assert_int_eq(o.quality, 80);
  ck_assert(o.lossless && o.strip);
  ck_assert(fg_image_save_parse("x.TIF[compression=lzw,bitdepth=16]", &n, &o,
                                err, sizeof err) == FG_OK);
  ck_assert_int_eq(o.tiff_compression, FG_TIFF_LZW);
  static const struct {
    const char *spec, *want;
  } bad[] = {
    {"{stem}.bmp", "unknown file extension '.bmp'"},
    {"{stem}", "unknown file extension"},
    {"x.png[Q=80]", "unknown option 'Q=80' for a PNG file"},
    {"x.jpg[lossless]", "unknown option 'lossless' for a JPEG file"},
    {"x.webp[Q=0]", "a quality from 1 to 100"},
    {"x.png[bitdepth=12]", "bitdepth=8 or bitdepth=16"},
    {"x.tif[compression=lzma]", "none, lzw, deflate, jpeg or zstd"},
    {"x.png[compression=10]", "a zlib level from 0 to 9"},
    {"x.png[strip", "expected options in brackets"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(fg_image_save_parse(bad[i].spec, &n, &o, err,
                                         sizeof err), FG_EINVAL);
    ck_assert_msg(strstr(err, bad[i].want), "%s: got '%s', expected '%s'",
                  bad[i].spec, err, bad[i].want);
  }
  /* and the writer refuses the extension, writing nothing */
  fg_image img = pattern(4, 4, 3, FG_IMAGE_U8);
  ck_assert_int_eq(fg_image_save(at("x.bmp"), &img, NULL, err, sizeof err),
                   FG_EINVAL);
  ck_assert_int_ne(access(at("x.bmp"), F_OK), 0);
  ck_assert_int_eq(fg_image_format_bits("a.tif"), 32);
  ck_assert_int_eq(fg_image_format_bits("a.png"), 16);
  ck_assert_int_eq(fg_image_format_bits("a.jpg"), 8);
  ck_assert_int_eq(fg_image_format_bits("a.bmp"), 0);
  fg_image_free(&img);
}
END_TEST

/* ---- orientation -------------------------------------------------------- */

/* Inserts an APP1 segment holding the n bytes of payload after a JPEG's
 * SOI marker. */
static void insert_app1(const char *path, const void *payload, size_t n) {
  FILE *f = fopen(path, "rb");
  ck_assert(f != NULL);
  static unsigned char buf[1 << 20];
  size_t len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  ck_assert(len > 2 && len < sizeof buf && buf[0] == 0xff && buf[1] == 0xd8);
  unsigned char head[4] = {0xff, 0xe1, (unsigned char)((n + 2) >> 8),
                           (unsigned char)(n + 2)};
  f = fopen(path, "wb");
  ck_assert(f != NULL);
  fwrite(buf, 1, 2, f);
  fwrite(head, 1, 4, f);
  fwrite(payload, 1, n, f);
  fwrite(buf + 2, 1, len - 2, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* An EXIF block with Orientation = o. */
static void add_exif_orientation(const char *path, int o) {
  unsigned char exif[] = {
    'E', 'x', 'i', 'f', 0, 0,
    'I', 'I', 42, 0, 8, 0, 0, 0,          /* little-endian, IFD at 8 */
    1, 0,                                 /* one entry */
    0x12, 0x01, 3, 0, 1, 0, 0, 0, 0, 0, 0, 0, /* Orientation SHORT 1 */
    0, 0, 0, 0};                          /* no next IFD */
  exif[6 + 18] = (unsigned char)o;        /* the value's low byte */
  insert_app1(path, exif, sizeof exif);
}

/* An XMP packet naming a creator. */
static const char xmp[] =
  "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x='adobe:ns:meta/'>"
  "<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
  "<rdf:Description rdf:about='' xmlns:dc='http://purl.org/dc/elements/1.1/'>"
  "<dc:creator>fieldgraph-test-creator</dc:creator></rdf:Description>"
  "</rdf:RDF></x:xmpmeta>";

START_TEST(test_vips_exif_orientation) {
  fg_image src = pattern(48, 32, 3, FG_IMAGE_U8);
  write_pnm(at("o.ppm"), &src);
  tu_sh("vips copy '%s' '%s'", at("o.ppm"), at("o.jpg[Q=95]"));
  add_exif_orientation(at("o.jpg"), 6);
  tu_sh("vipsheader -f orientation '%s' | grep -qx 6", at("o.jpg"));
  /* as stored */
  fg_image raw;
  char err[512];
  fg_image_load_options lo = FG_IMAGE_LOAD_OPTIONS_INIT;
  lo.no_autorotate = 1;
  ck_assert_msg(fg_image_load(at("o.jpg"), &raw, &lo, err, sizeof err) ==
                FG_OK, "%s", err);
  ck_assert_int_eq(raw.width, 48);
  ck_assert_int_eq(raw.height, 32);
  /* turned: orientation 6 is 90 degrees clockwise, as vips autorot does */
  fg_image got = read_ok(at("o.jpg"));
  ck_assert_int_eq(got.width, 32);
  ck_assert_int_eq(got.height, 48);
  for (int y = 0; y < 48; y++)
    for (int x = 0; x < 32; x++)
      for (int c = 0; c < 3; c++)
        ck_assert_int_eq(got.data[(y * 32 + x) * 3 + c],
                         raw.data[((31 - x) * 48 + y) * 3 + c]);
  tu_sh("vips autorot '%s' '%s'", at("o.jpg"), at("ref.ppm"));
  fg_image ref = pnm_image(at("ref.ppm"));
  expect_equal(&got, &ref, "autorotated against vips autorot");
  /* an output carries no orientation: viewers show it as computed */
  ck_assert(fg_image_save(at("out.jpg"), &got, NULL, err, sizeof err) ==
            FG_OK);
  tu_sh("test \"$(vipsheader -f orientation '%s' 2>/dev/null || echo 1)\" = 1",
        at("out.jpg"));
  fg_image_free(&ref);
  fg_image_free(&got);
  fg_image_free(&raw);
  fg_image_free(&src);
}
END_TEST

/* Every EXIF orientation (1 to 8, as the EXIF standard defines them: the
 * turn or mirror that shows the stored pixels upright) against the test's
 * own transform of the pixels as stored (no_autorotate), in JPEG, PNG,
 * TIFF and WebP. */
START_TEST(test_vips_exif_all_orientations) {
  fg_image src = pattern(13, 7, 3, FG_IMAGE_U8);
  write_pnm(at("a.ppm"), &src);
  char err[512];
  for (int o = 1; o <= 8; o++) {
    char name[32];
    snprintf(name, sizeof name, "o%d.jpg", o);
    tu_sh("vips copy '%s' '%s[Q=95]'", at("a.ppm"), at(name));
    add_exif_orientation(at(name), o);
    fg_image raw, got;
    fg_image_load_options lo = FG_IMAGE_LOAD_OPTIONS_INIT;
    lo.no_autorotate = 1;
    ck_assert_msg(fg_image_load(at(name), &raw, &lo, err, sizeof err) ==
                  FG_OK, "%s", err);
    got = read_ok(at(name));
    const int W = raw.width, H = raw.height, turned = o >= 5;
    ck_assert_int_eq(got.width, turned ? H : W);
    ck_assert_int_eq(got.height, turned ? W : H);
    for (int y = 0; y < got.height; y++)
      for (int x = 0; x < got.width; x++) {
        int sx, sy; /* the stored pixel shown at (x, y) */
        switch (o) {
        case 1: sx = x, sy = y; break;
        case 2: sx = W - 1 - x, sy = y; break;          /* mirrored */
        case 3: sx = W - 1 - x, sy = H - 1 - y; break;  /* 180 */
        case 4: sx = x, sy = H - 1 - y; break;          /* flipped */
        case 5: sx = y, sy = x; break;                  /* transposed */
        case 6: sx = y, sy = H - 1 - x; break;          /* 90 clockwise */
        case 7: sx = W - 1 - y, sy = H - 1 - x; break;  /* transversed */
        default: sx = W - 1 - y, sy = x; break;         /* 90 counter */
        }
        for (int c = 0; c < 3; c++)
          ck_assert_msg(got.data[(y * got.width + x) * 3 + c] ==
                        raw.data[(sy * W + sx) * 3 + c],
                        "orientation %d: (%d, %d) channel %d", o, x, y, c);
      }
    /* the same tag in the lossless formats that carry one (vips copies
     * it: PNG's eXIf, TIFF's Orientation, WebP's EXIF) turns them alike */
    static const char *const lossless[] = {"png", "tif", "webp[lossless]"};
    for (int k = 0; k < 3; k++) {
      char other[48];
      snprintf(other, sizeof other, "o%d.%s", o, lossless[k]);
      tu_sh("vips copy '%s' '%s'", at(name), at(other));
      char *bracket = strchr(other, '[');
      if (bracket)
        *bracket = '\0';
      tu_sh("vipsheader -f orientation '%s' | grep -qx %d", at(other), o);
      fg_image same = read_ok(at(other));
      expect_equal(&same, &got, other);
      fg_image_free(&same);
    }
    fg_image_free(&got);
    fg_image_free(&raw);
  }
  fg_image_free(&src);
}
END_TEST

/* ---- metadata ----------------------------------------------------------- */

START_TEST(test_vips_metadata_copied_unless_strip) {
  fg_image src = pattern(24, 16, 3, FG_IMAGE_U8);
  write_pnm(at("m.ppm"), &src);
  tu_sh("vips copy '%s' '%s'", at("m.ppm"), at("m.jpg[strip]"));
  add_exif_orientation(at("m.jpg"), 6);
  insert_app1(at("m.jpg"), xmp, sizeof xmp - 1);
  fg_image img = read_ok(at("m.jpg"));
  ck_assert_ptr_nonnull(img.meta);
  ck_assert_ptr_nonnull(img.meta->block[FG_IMAGE_META_EXIF]);
  ck_assert_ptr_nonnull(img.meta->block[FG_IMAGE_META_XMP]);
  char err[512];
  ck_assert(fg_image_save(at("keep.jpg"), &img, NULL, err, sizeof err) ==
            FG_OK);
  /* what vips reads from the output: the XMP, EXIF with orientation 1
   * (the pixels were turned), an sRGB profile */
  tu_sh("grep -q fieldgraph-test-creator '%s'", at("keep.jpg"));
  tu_sh("vipsheader -f orientation '%s' | grep -qx 1", at("keep.jpg"));
  tu_sh("vipsheader -a '%s' | grep -q '^exif-data'", at("keep.jpg"));
  tu_sh("vipsheader -a '%s' | grep -q '^icc-profile-data'", at("keep.jpg"));
  /* a copy keeps them too (as fieldgraph run gives the input's to each
   * output) */
  fg_image other = pattern(24, 16, 3, FG_IMAGE_U8);
  ck_assert_int_eq(fg_image_copy_meta(&other, &img), FG_OK);
  ck_assert(fg_image_save(at("copy.png"), &other, NULL, err, sizeof err) ==
            FG_OK);
  tu_sh("vipsheader -a '%s' | grep -q '^xmp-data'", at("copy.png"));
  /* [strip]: none of it */
  fg_image_save_options o;
  size_t n;
  ck_assert(fg_image_save_parse("s.jpg[strip]", &n, &o, err, sizeof err) ==
            FG_OK);
  ck_assert(fg_image_save(at("s.jpg"), &img, &o, err, sizeof err) == FG_OK);
  tu_sh("! grep -q fieldgraph-test-creator '%s'", at("s.jpg"));
  tu_sh("! vipsheader -a '%s' | grep -q -e '^exif-data' -e '^icc-profile'",
        at("s.jpg"));
  fg_image_free(&other);
  fg_image_free(&img);
  fg_image_free(&src);
}
END_TEST

/* A JPEG of src whose XMP packet (as libvips counts it, after the
 * namespace header) is n bytes: the creator's packet padded with spaces. */
static void jpeg_with_xmp(const char *path, size_t n) {
  static const char ns[] = "http://ns.adobe.com/xap/1.0/";
  const char *packet = xmp + sizeof ns;
  size_t pn = strlen(packet), tail = strlen("</x:xmpmeta>");
  ck_assert(n > pn);
  char *p = malloc(sizeof ns + n);
  memcpy(p, ns, sizeof ns);
  memcpy(p + sizeof ns, packet, pn - tail);
  memset(p + sizeof ns + pn - tail, ' ', n - pn);
  memcpy(p + sizeof ns + n - tail, "</x:xmpmeta>", tail);
  insert_app1(path, p, sizeof ns + n);
  free(p);
}

/* A JPEG output whose XMP is over 60000 bytes: left out as libvips does,
 * with its warning ("large XMP not saved") in err on FG_OK, and from
 * fieldgraph run on stderr naming the output; 60000 bytes are kept, and
 * PNG keeps the larger one, without a warning. */
START_TEST(test_vips_jpeg_large_xmp_warns) {
  fg_image src = pattern(24, 16, 3, FG_IMAGE_U8);
  write_pnm(at("x.ppm"), &src);
  ck_assert_int_eq(mkdir(at("xin"), 0755), 0);
  tu_sh("vips copy '%s' '%s'", at("x.ppm"), at("xin/big.jpg[strip]"));
  tu_sh("vips copy '%s' '%s'", at("x.ppm"), at("edge.jpg[strip]"));
  jpeg_with_xmp(at("xin/big.jpg"), 60001);
  jpeg_with_xmp(at("edge.jpg"), 60000);
  fg_image big = read_ok(at("xin/big.jpg"));
  ck_assert_uint_eq(big.meta->size[FG_IMAGE_META_XMP], 60001);
  char err[512];
  ck_assert(fg_image_save(at("big-out.jpg"), &big, NULL, err, sizeof err) ==
            FG_OK);
  ck_assert_msg(strstr(err, "large XMP not saved") &&
                strstr(err, "60001 bytes") && strstr(err, "big-out.jpg"),
                "%s", err);
  tu_sh("! vipsheader -a '%s' | grep -q '^xmp-data'", at("big-out.jpg"));
  ck_assert(fg_image_save(at("big-out.png"), &big, NULL, err, sizeof err) ==
            FG_OK);
  ck_assert_str_eq(err, "");
  tu_sh("vipsheader -a '%s' | grep -q '^xmp-data: 60001 bytes'",
        at("big-out.png"));
  fg_image edge = read_ok(at("edge.jpg"));
  ck_assert(fg_image_save(at("edge-out.jpg"), &edge, NULL, err, sizeof err) ==
            FG_OK);
  ck_assert_str_eq(err, "");
  tu_sh("vipsheader -a '%s' | grep -q '^xmp-data: 60000 bytes'",
        at("edge-out.jpg"));
  /* fieldgraph run: the output written, the warning on stderr */
  FILE *f = fopen(at("x.fgp"), "w");
  ck_assert(f != NULL);
  fputs("rgb = input()\nsave(rgb, \"{stem}.jpg\")\n", f);
  fclose(f);
  /* (in a subshell: tu_sh sends the command's own stderr to /dev/null) */
  tu_sh("('%s' run -q -o '%s' '%s' '%s' 2>'%s')", FG_TOOL, at("xout"),
        at("x.fgp"), at("xin"), at("x.err"));
  tu_sh("grep -q 'warning: .*xout/big.jpg: large XMP not saved (60001 "
        "bytes' '%s'", at("x.err"));
  tu_sh("vipsheader '%s' | grep -q '24x16'", at("xout/big.jpg"));
  fg_image_free(&edge);
  fg_image_free(&big);
  fg_image_free(&src);
}
END_TEST

/* fieldgraph run: turned by default, as stored with --no-autorotate; the
 * input's metadata on the outputs, none with [strip] */
START_TEST(test_vips_run_orientation_and_metadata) {
  fg_image src = pattern(48, 32, 3, FG_IMAGE_U8);
  write_pnm(at("r.ppm"), &src);
  ck_assert_int_eq(mkdir(at("in"), 0755), 0);
  tu_sh("vips copy '%s' '%s'", at("r.ppm"), at("in/p.jpg[Q=95,strip]"));
  add_exif_orientation(at("in/p.jpg"), 6);
  insert_app1(at("in/p.jpg"), xmp, sizeof xmp - 1);
  FILE *f = fopen(at("p.fgp"), "w");
  ck_assert(f != NULL);
  fputs("rgb = input()\nsave(rgb * 1.0, \"{stem}.png\")\n"
        "save(rgb, \"{stem}-s.png[strip]\")\n", f);
  fclose(f);
  tu_sh("'%s' run -q -o '%s' '%s' '%s'", FG_TOOL, at("out"), at("p.fgp"),
        at("in"));
  tu_sh("vipsheader '%s' | grep -q '32x48'", at("out/p.png"));
  tu_sh("vipsheader -a '%s' | grep -q '^xmp-data'", at("out/p.png"));
  tu_sh("! vipsheader -a '%s' | grep -q '^xmp-data'", at("out/p-s.png"));
  tu_sh("'%s' run -q --no-autorotate -o '%s' '%s' '%s'", FG_TOOL, at("raw"),
        at("p.fgp"), at("in"));
  tu_sh("vipsheader '%s' | grep -q '48x32'", at("raw/p.png"));
  fg_image_free(&src);
}
END_TEST

/* ---- alpha through a pipeline ------------------------------------------- */

/* The README's flip(rgb) * 0.5 over RGBA and grey+alpha inputs (made by
 * vips from the test's colour and alpha files): the colour is flipped and
 * halved, the alpha flipped only; a crop moves the alpha too; a channel
 * pick (rgb.x) drops it. */
START_TEST(test_vips_run_keeps_alpha) {
  enum { W = 16, H = 12 };
  for (int ch = 2; ch <= 4; ch += 2) {
    fg_image col = pattern(W, H, ch - 1, FG_IMAGE_U8);
    fg_image al = pattern(W, H, 1, FG_IMAGE_U8);
    for (int i = 0; i < W * H; i++)
      al.data[i] = (uint8_t)(i % 3 == 0 ? 200 : i % 3 == 1 ? 255 : i % 251);
    write_pnm(at(ch == 4 ? "c.ppm" : "c.pgm"), &col);
    write_pnm(at("a.pgm"), &al);
    char in[64];
    snprintf(in, sizeof in, "in%d", ch);
    ck_assert_int_eq(mkdir(at(in), 0755), 0);
    snprintf(in, sizeof in, "in%d/p.png", ch);
    tu_sh("vips bandjoin '%s %s' '%s'", at(ch == 4 ? "c.ppm" : "c.pgm"),
          at("a.pgm"), at(in));
    FILE *f = fopen(at("a.fgp"), "w");
    ck_assert(f != NULL);
    fputs("rgb = input()\nsave(flip(rgb) * 0.5, \"{stem}-half.png\")\n"
          "save(crop(rgb, 2, 3, 5, 7), \"{stem}-crop.png\")\n", f);
    if (ch == 4) /* grey's colour is a scalar: no .x */
      fputs("save(rgb.x, \"{stem}-x.png\")\n", f);
    fclose(f);
    char out[64];
    snprintf(out, sizeof out, "out%d", ch);
    snprintf(in, sizeof in, "in%d", ch);
    tu_sh("'%s' run -q -o '%s' '%s' '%s'", FG_TOOL, at(out), at("a.fgp"),
          at(in));
    char name[96];
    snprintf(name, sizeof name, "%s/p-half.png", out);
    fg_image half = read_ok(at(name));
    ck_assert_int_eq(half.channels, ch);
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        size_t o = ((size_t)y * W + x) * ch, s = (size_t)(H - 1 - y) * W + x;
        ck_assert_int_eq(half.data[o + ch - 1], al.data[s]);
        for (int c = 0; c < ch - 1; c++)
          ck_assert_int_le(abs(half.data[o + c] -
                               (int)(col.data[s * (ch - 1) + c] * 0.5 + 0.5)),
                           1);
      }
    snprintf(name, sizeof name, "%s/p-crop.png", out);
    fg_image crop = read_ok(at(name));
    ck_assert_int_eq(crop.channels, ch);
    ck_assert_int_eq(crop.width, 7);
    ck_assert_int_eq(crop.height, 5);
    for (int y = 0; y < 5; y++)
      for (int x = 0; x < 7; x++)
        ck_assert_int_eq(crop.data[((size_t)y * 7 + x) * ch + ch - 1],
                         al.data[(size_t)(y + 2) * W + x + 3]);
    if (ch == 4) {
      snprintf(name, sizeof name, "%s/p-x.png", out);
      fg_image px = read_ok(at(name));
      ck_assert_int_eq(px.channels, 1);
      fg_image_free(&px);
    }
    fg_image_free(&crop);
    fg_image_free(&half);
    fg_image_free(&al);
    fg_image_free(&col);
  }
}
END_TEST

/* overlay and rgba take an input's alpha: overlay composites through the
 * top image's alpha ("over", against vips composite2), over an opaque base
 * and over a base with alpha (the result keeps alpha); rgba(rgb) of an
 * RGBA input is that input, its alpha included. */
START_TEST(test_vips_run_overlay_and_rgba_use_alpha) {
  enum { W = 16, H = 12 };
  fg_image col = pattern(W, H, 3, FG_IMAGE_U8), al = pattern(W, H, 1,
                                                           FG_IMAGE_U8);
  for (int i = 0; i < W * H; i++)
    al.data[i] = (uint8_t)(i % 3 == 0 ? 200 : i % 3 == 1 ? 255 : i % 251);
  fg_image base = pattern(40, 30, 3, FG_IMAGE_U8);
  for (size_t i = 0; i < 40 * 30 * 3; i++)
    base.data[i] = (uint8_t)(255 - base.data[i]);
  write_pnm(at("c.ppm"), &col);
  write_pnm(at("a.pgm"), &al);
  write_pnm(at("b.ppm"), &base);
  tu_sh("vips bandjoin '%s %s' '%s'", at("c.ppm"), at("a.pgm"), at("p.png"));
  tu_sh("vips copy '%s' '%s'", at("b.ppm"), at("p_base.png"));
  FILE *f = fopen(at("o.fgp"), "w");
  ck_assert(f != NULL);
  fputs("rgb = input()\nbase = input(\"{stem}_base.png\")\n"
        "save(overlay(base, rgb, 5, 4), \"{stem}-ov.png\")\n"
        "save(overlay(rgb, flip(rgb)), \"{stem}-ov2.png\")\n"
        "save(rgba(rgb), \"{stem}-rgba.png\")\n", f);
  fclose(f);
  tu_sh("'%s' run -q -o '%s' '%s' '%s'", FG_TOOL, at("out"), at("o.fgp"),
     at("p.png"));
  /* over an opaque base: RGB out, as vips composites (its alpha 255) */
  tu_sh("vips composite2 '%s' '%s' '%s' over --x 5 --y 4", at("p_base.png"),
     at("p.png"), at("ref.png"));
  tu_sh("vips extract_band '%s' '%s' 0 --n 3", at("ref.png"), at("ref3.v"));
  tu_sh("vipsheader '%s' | grep -q '40x30 uchar, 3 bands'", at("out/p-ov.png"));
  double d = file_max_diff(at("out/p-ov.png"), at("ref3.v"));
  ck_assert_msg(d <= 1, "over an opaque base: %g", d);
  /* over itself flipped: alphas combined, colours weighted by them */
  tu_sh("vips flip '%s' '%s' vertical", at("p.png"), at("pf.png"));
  tu_sh("vips composite2 '%s' '%s' '%s' over", at("p.png"), at("pf.png"),
     at("ref2.png"));
  tu_sh("vipsheader '%s' | grep -q '16x12 uchar, 4 bands'", at("out/p-ov2.png"));
  d = file_max_diff(at("out/p-ov2.png"), at("ref2.png"));
  ck_assert_msg(d <= 1, "over a base with alpha: %g", d);
  /* rgba(rgb): the input as it was, alpha and all */
  d = file_max_diff(at("out/p-rgba.png"), at("p.png"));
  ck_assert_msg(d == 0, "rgba: %g", d);
  fg_image_free(&base);
  fg_image_free(&al);
  fg_image_free(&col);
}
END_TEST

/* A blur over transparent red beside opaque blue: premultiplied, as vips
 * resamples, the red never bleeds into the blue; the alpha is blurred. */
START_TEST(test_vips_run_resamples_premultiplied) {
  enum { W = 9, H = 5 };
  fg_image col, al;
  ck_assert_int_eq(fg_image_alloc(&col, W, H, 3), FG_OK);
  ck_assert_int_eq(fg_image_alloc(&al, W, H, 1), FG_OK);
  for (int i = 0; i < W * H; i++) {
    int left = i % W < 4;
    col.data[3 * i] = left ? 255 : 0;
    col.data[3 * i + 2] = left ? 0 : 255;
    al.data[i] = left ? 0 : 255;
  }
  write_pnm(at("c.ppm"), &col);
  write_pnm(at("a.pgm"), &al);
  ck_assert_int_eq(mkdir(at("in"), 0755), 0);
  tu_sh("vips bandjoin '%s %s' '%s'", at("c.ppm"), at("a.pgm"), at("in/b.png"));
  FILE *f = fopen(at("b.fgp"), "w");
  ck_assert(f != NULL);
  fputs("rgb = input()\nsave(box_blur(rgb, 1), \"{stem}-blur.png\")\n", f);
  fclose(f);
  tu_sh("'%s' run -q -o '%s' '%s' '%s'", FG_TOOL, at("out"), at("b.fgp"),
        at("in"));
  fg_image got = read_ok(at("out/b-blur.png"));
  ck_assert_int_eq(got.channels, 4);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const uint8_t *p = got.data + ((size_t)y * W + x) * 4;
      /* the alpha: the box's mean (clamped border) */
      int opaque = 0;
      for (int dx = -1; dx <= 1; dx++) {
        int xx = x + dx < 0 ? 0 : x + dx >= W ? W - 1 : x + dx;
        opaque += xx >= 4;
      }
      ck_assert_int_eq(p[3], (int)(opaque * 255 / 3.0 + 0.5));
      if (p[3] > 0) {
        ck_assert_int_le(p[0], 1);   /* no red from transparent pixels */
        ck_assert_int_ge(p[2], 254);
      }
    }
  fg_image_free(&got);
  fg_image_free(&al);
  fg_image_free(&col);
}
END_TEST

/* ---- colour profiles ---------------------------------------------------- */

static int max_diff(const fg_image *a, const fg_image *b) {
  int m = 0;
  size_t n = (size_t)a->width * a->height * a->channels;
  for (size_t i = 0; i < n; i++) {
    int d = abs(a->data[i] - b->data[i]);
    m = d > m ? d : m;
  }
  return m;
}

START_TEST(test_vips_icc_p3_to_srgb) {
  fg_image src = pattern(40, 30, 3, FG_IMAGE_U8);
  write_pnm(at("c.ppm"), &src);
  /* lcms (through vips) moves the sRGB pattern to Display P3 and tags the
   * file with the P3 profile */
  tu_sh("vips icc_transform '%s' '%s' p3 --input-profile srgb", at("c.ppm"),
        at("p3.png"));
  tu_sh("vips copy '%s' '%s'", at("p3.png"), at("stored.ppm"));
  fg_image stored = pnm_image(at("stored.ppm"));
  ck_assert_int_gt(max_diff(&stored, &src), 8); /* P3 numbers differ */
  fg_image got = read_ok(at("p3.png"));
  /* lcms's own transform back to sRGB */
  tu_sh("vips icc_transform '%s' '%s' srgb --embedded", at("p3.png"),
        at("ref.ppm"));
  fg_image ref = pnm_image(at("ref.ppm"));
  ck_assert_int_le(max_diff(&got, &ref), 1);
  ck_assert_int_le(max_diff(&got, &src), 3); /* the round trip */
  fg_image_free(&ref);
  fg_image_free(&got);
  fg_image_free(&stored);
  fg_image_free(&src);
}
END_TEST

START_TEST(test_vips_icc_cmyk_jpeg) {
  fg_image src = pattern(40, 30, 3, FG_IMAGE_U8);
  write_pnm(at("c.ppm"), &src);
  tu_sh("vips icc_transform '%s' '%s' cmyk --input-profile srgb", at("c.ppm"),
        at("cmyk.jpg[Q=98]"));
  tu_sh("vipsheader '%s' | grep -q cmyk", at("cmyk.jpg"));
  fg_image got = read_ok(at("cmyk.jpg"));
  ck_assert_int_eq(got.channels, 3);
  tu_sh("vips icc_transform '%s' '%s' srgb --embedded", at("cmyk.jpg"),
        at("ref.ppm"));
  fg_image ref = pnm_image(at("ref.ppm"));
  ck_assert_int_le(max_diff(&got, &ref), 1);
  ck_assert_msg(psnr(&got, &src, 255) > 25, "PSNR %.1f",
                psnr(&got, &src, 255));
  fg_image_free(&ref);
  fg_image_free(&got);
  fg_image_free(&src);
}
END_TEST

/* ASCII PBM/PGM/PPM: good files read as written (comments anywhere, PBM
 * packed without spaces, 1 black); malformed or truncated ones refused
 * naming the file (libvips alone read "P3 [2 52525" as 1x52525 zeros,
 * found by fuzz_image, and any truncated file with zeros at the end). */
START_TEST(test_vips_ascii_pnm_checked) {
  tu_write_text(at("g.pgm"), "P2\n# c\n3 2\n# c\n200\n0 100 # c\n200 1 2 3\n");
  fg_image g = read_ok(at("g.pgm"));
  ck_assert_int_eq(g.channels, 1);
  ck_assert_int_eq(g.width, 3);
  ck_assert_int_eq(g.height, 2);
  static const int gv[] = {0, 100, 200, 1, 2, 3};
  for (int i = 0; i < 6; i++) /* scaled from maxval 200 to 255 */
    ck_assert_int_le(abs(g.data[i] - (int)lround(gv[i] * 255 / 200.0)), 1);
  tu_write_text(at("c.ppm"), "P3 2 1 255 10 20 30 40 50 60\n");
  fg_image c = read_ok(at("c.ppm"));
  ck_assert_int_eq(c.channels, 3);
  for (int i = 0; i < 6; i++)
    ck_assert_int_eq(c.data[i], 10 * (i + 1));
  tu_write_text(at("b.pbm"), "P1\n4 2\n1010\n0 1 1 0\n");
  fg_image b = read_ok(at("b.pbm"));
  static const int bv[] = {1, 0, 1, 0, 0, 1, 1, 0};
  for (int i = 0; i < 8; i++)
    ck_assert_int_eq(b.data[i], (bv[i] ? 0 : 255));
  /* binary ones through libvips, scaled too: maxval 200 (8 bits) and
   * 1023 (10 bits, to 16) are white */
  tu_write_text(at("m.pgm"), "P5\n2 1\n200\n\144\310");
  fg_image m = read_ok(at("m.pgm"));
  ck_assert_int_eq(m.type, FG_IMAGE_U8);
  ck_assert_int_eq(m.data[0], 128);
  ck_assert_int_eq(m.data[1], 255);
  tu_write_text(at("t.pgm"), "P5\n2 1\n1023\n\003\377\001\001");
  fg_image t = read_ok(at("t.pgm"));
  ck_assert_int_eq(t.type, FG_IMAGE_U16);
  ck_assert_int_eq(((uint16_t *)t.data)[0], 65535);
  ck_assert_int_eq(((uint16_t *)t.data)[1], 16464); /* 257 * 65535 / 1023 */
  fg_image_free(&t);
  fg_image_free(&m);
  static const struct {
    const char *name, *text, *want;
  } bad[] = {
    {"w.ppm", "P3 [2\n52525\n", "bad ASCII P3 header"},
    {"t.ppm", "P3\n2 2\n255\n1 2 3\n", "truncated ASCII P3 data"},
    {"u.ppm", "P3\n2 2\n255\n10 20 30 40 50 60 70 80 90\n",
     "truncated ASCII P3 data: 9 of 12"},
    {"l.pgm", "P2\n2 2\n255\n1 2 x 4\n", "bad ASCII P2 sample 3"},
    {"m.pgm", "P2\n2 1\n100\n1 101\n", "bad ASCII P2 sample 2"},
    {"n.pgm", "P2\n2 1\n255\n1 -2\n", "bad ASCII P2 sample 2"},
    {"t.pbm", "P1\n3 2\n1 0 1\n", "truncated ASCII P1 data: 3 of 6"},
    {"z.pbm", "P1\n2 1\n12\n", "bad ASCII P1 sample 2"},
    {"h.pgm", "P2\n0 1\n255\n", "bad ASCII P2 header"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tu_write_text(at(bad[i].name), bad[i].text);
    fg_image img;
    char err[512];
    ck_assert_int_eq(fg_image_read(at(bad[i].name), &img, err, sizeof err),
                     FG_EFORMAT);
    ck_assert_msg(strstr(err, bad[i].want) && strstr(err, bad[i].name),
                  "%s: %s", bad[i].name, err);
    ck_assert_ptr_null(img.data);
  }
  fg_image_free(&b);
  fg_image_free(&c);
  fg_image_free(&g);
}
END_TEST

/* Writes the first keep bytes of from (-keep per cent when negative) to
 * to. */
static void cut_file(const char *from, const char *to, int keep) {
  FILE *f = fopen(from, "rb");
  ck_assert(f != NULL);
  static unsigned char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  ck_assert(n > 0 && n < sizeof buf);
  size_t k = keep < 0 ? n * (size_t)-keep / 100 : (size_t)keep;
  ck_assert(k < n);
  f = fopen(to, "wb");
  ck_assert(f != NULL);
  ck_assert_int_eq(fwrite(buf, 1, k, f), k);
  ck_assert_int_eq(fclose(f), 0);
}

/* A file that starts with a known format's signature but that no loader
 * opens (a TIFF cut short fails libtiff's header read before any loader is
 * chosen) is named as a broken file of that format, not as a file of an
 * unknown format; a text file is still "not an image".  The files are cut
 * from ones the vips command writes. */
START_TEST(test_vips_truncated_named_by_signature) {
  fg_image src = pattern(64, 48, 3, FG_IMAGE_U8);
  write_pnm(at("t.ppm"), &src);
  fg_image_free(&src);
  tu_sh("vips copy '%s' '%s'", at("t.ppm"), at("t.tif[tile,compression=lzw]"));
  tu_sh("vips copy '%s' '%s'", at("t.ppm"), at("t.gif"));
  /* keep: bytes kept, or per cent of the file when negative */
  static const struct { const char *from, *name, *want; int keep; } cut[] = {
      {"t.tif", "half.tif", "starts as a TIFF file", -50},
      {"t.tif", "eight.tif", "starts as a TIFF file", 8},
      {"t.gif", "six.gif", "invalid image", 6}, /* the GIF loader says */
      {"t.ppm", "two.ppm", "truncated or corrupt", 3},
      {NULL, "notes.txt", "not an image in a format", 0},
  };
  for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
    if (cut[i].from)
      cut_file(at(cut[i].from), at(cut[i].name), cut[i].keep);
    else
      tu_write_text(at(cut[i].name), "Pictures to sort\n");
    fg_image img;
    char err[512];
    ck_assert_int_eq(fg_image_read(at(cut[i].name), &img, err, sizeof err),
                     FG_EFORMAT);
    ck_assert_msg(strstr(err, cut[i].want) && strstr(err, cut[i].name),
                  "%s: %s", cut[i].name, err);
    ck_assert_ptr_null(img.data);
  }
}
END_TEST

/* 32-bit integer samples (a TIFF of int or uint, which vips writes) have
 * no scale to read them in: refused by name, not taken as floats in
 * [0, 1] (before, a grey 212 came out saturated white). */
START_TEST(test_vips_int32_samples_refused) {
  fg_image src = pattern(40, 30, 1, FG_IMAGE_U8);
  write_pnm(at("g.pgm"), &src);
  fg_image_free(&src);
  static const char *const kind[][2] = {{"int", "signed"},
                                        {"uint", "unsigned"}};
  for (int i = 0; i < 2; i++) {
    char name[32], err[512];
    snprintf(name, sizeof name, "%s.tif", kind[i][0]);
    tu_sh("vips cast '%s' '%s' %s", at("g.pgm"), at(name), kind[i][0]);
    tu_sh("vipsheader -f format '%s' | grep -q %s", at(name),
          i ? "UINT" : "_INT");
    fg_image img;
    ck_assert_int_eq(fg_image_read(at(name), &img, err, sizeof err),
                     FG_EFORMAT);
    ck_assert_msg(strstr(err, name) && strstr(err, kind[i][1]) &&
                  strstr(err, "32-bit") &&
                  strstr(err, "expected 8 or 16 bits or floating point"),
                  "%s: %s", name, err);
    ck_assert_ptr_null(img.data);
  }
}
END_TEST

/* WebP and JPEG hold at most 16383 and 65500 pixels per side: a wider
 * image is refused by name with the limit and nothing written (before,
 * the encoder's own "webpsave: image too large"); at the limit it is
 * written, and vips reads it back at that size. */
START_TEST(test_vips_format_side_limits) {
  static const struct { const char *name; int side; } lim[] = {
      {"wide.webp", 16383}, {"wide.jpg", 65500}};
  for (size_t i = 0; i < 2; i++)
    for (int over = 0; over <= 1; over++) {
      fg_image img;
      int w = lim[i].side + over;
      ck_assert_int_eq(fg_image_alloc(&img, w, 2, 3), FG_OK);
      memset(img.data, 90, (size_t)w * 2 * 3);
      char err[512];
      fg_status st = fg_image_save(at(lim[i].name), &img, NULL, err,
                                   sizeof err);
      fg_image_free(&img);
      struct stat sb;
      if (over) {
        char want[64];
        snprintf(want, sizeof want, "%d x 2 pixels", w);
        ck_assert_int_eq(st, FG_EINVAL);
        ck_assert_msg(strstr(err, lim[i].name) && strstr(err, want) &&
                      strstr(err, "per side"), "%s", err);
        ck_assert_int_ne(stat(at(lim[i].name), &sb), 0);
      } else {
        ck_assert_msg(st == FG_OK, "%s", err);
        tu_sh("vipsheader -f width '%s' | grep -qx %d", at(lim[i].name), w);
        ck_assert_int_eq(unlink(at(lim[i].name)), 0);
      }
    }
}
END_TEST

/* ---- output profiles ([profile=...]) ------------------------------------ */

#define ADOBE_ICC "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"

static void save_spec_ok(const char *spec, const fg_image *img) {
  size_t n;
  fg_image_save_options o;
  char err[768], path[512];
  ck_assert_msg(fg_image_save_parse(spec, &n, &o, err, sizeof err) == FG_OK,
                "%s", err);
  snprintf(path, sizeof path, "%.*s", (int)n, spec);
  ck_assert_msg(fg_image_save(path, img, &o, err, sizeof err) == FG_OK, "%s",
                err);
}

/* [profile=p3|adobergb|cmyk|file]: the sRGB pixels as lcms's own transform
 * (vips icc_transform; for adobergb through icc-profiles-free's Adobe RGB
 * compatible profile, not the one the library makes) gives them, and the
 * profile embedded: the same bytes vips embeds, and reading the file back
 * through it gives the sRGB pattern again. */
START_TEST(test_vips_profile_out_as_lcms) {
  fg_image src = pattern(40, 30, 3, FG_IMAGE_U8);
  write_pnm(at("c.ppm"), &src);
  static const struct {
    const char *opt, *out, *ref; /* ref: vips' output profile argument */
    int same_bytes;
  } cases[] = {
    {"p3", "p3.png", "p3", 1},
    {"adobergb", "a.tif", ADOBE_ICC, 0},
    {ADOBE_ICC, "f.png", ADOBE_ICC, 1},
    {"p3", "p3.jpg", "p3", 1},
    {"cmyk", "k.tif", "cmyk", 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char spec[512], ref[64];
    snprintf(spec, sizeof spec, "%s[profile=%s%s]", at(cases[i].out),
             cases[i].opt, strstr(cases[i].out, ".jpg") ? ",Q=100" : "");
    save_spec_ok(spec, &src);
    const char *ext = strrchr(cases[i].out, '.');
    snprintf(ref, sizeof ref, "ref%zu%s%s", i, ext,
             !strcmp(ext, ".jpg") ? "[Q=100]" : "");
    tu_sh("vips icc_transform '%s' '%s' '%s' --input-profile srgb", at("c.ppm"),
       at(ref), cases[i].ref);
    snprintf(ref, sizeof ref, "ref%zu%s", i, ext);
    double d = file_max_diff(at(cases[i].out), at(ref));
    ck_assert_msg(d <= (!strcmp(ext, ".jpg") ? 4 : 1), "%s: %g", spec, d);
    ck_assert_msg(!strcmp(cases[i].opt, "cmyk") ||
                  file_max_diff(at(cases[i].out), at("c.ppm")) > 8,
                  "%s: not converted", spec);
    if (cases[i].same_bytes)
      ck_assert_msg(same_profile(at(cases[i].out), at(ref)), "%s", spec);
    else
      tu_sh("vipsheader -f icc-profile-data '%s' | base64 -d | "
         "grep -a -q 'Adobe RGB (1998) compatible'", at(cases[i].out));
    if (!strcmp(cases[i].opt, "cmyk"))
      tu_sh("vipsheader '%s' | grep -q '4 bands.*cmyk'", at(cases[i].out));
    /* back to sRGB through the embedded profile */
    fg_image back = read_ok(at(cases[i].out));
    ck_assert_int_eq(back.channels, 3);
    /* two 8-bit roundings; Adobe RGB's wider gamut has coarser steps;
     * CMYK clips the pattern's most saturated colours */
    if (!strcmp(cases[i].opt, "cmyk")) {
      ck_assert_msg(psnr(&back, &src, 255) > 25, "%s: round trip PSNR %.1f",
                    spec, psnr(&back, &src, 255));
    } else {
      int tol = !strcmp(ext, ".jpg") ? 12
                : !strcmp(cases[i].opt, "p3") ? 2 : 3;
      ck_assert_msg(max_diff(&back, &src) <= tol, "%s: round trip %d", spec,
                    max_diff(&back, &src));
    }
    fg_image_free(&back);
  }
  fg_image_free(&src);
}
END_TEST

/* 16 bits, float and alpha: converted in their own precision (16 bits
 * against vips icc_transform --depth 16), the alpha copied as it was. */
START_TEST(test_vips_profile_out_depths_and_alpha) {
  fg_image s16 = pattern(40, 30, 3, FG_IMAGE_U16);
  write_pnm(at("c16.ppm"), &s16);
  save_spec_ok(at("o16.png[profile=p3]"), &s16);
  tu_sh("vips icc_transform '%s' '%s' p3 --input-profile srgb --depth 16",
     at("c16.ppm"), at("r16.png"));
  tu_sh("vipsheader '%s' | grep -q ushort", at("o16.png"));
  double d = file_max_diff(at("o16.png"), at("r16.png"));
  ck_assert_msg(d <= 16, "16 bits: %g of 65535", d);
  /* float: the 16-bit reference, scaled (lcms' float transform is exact
   * where vips' goes through 16-bit tables: within a quarter of an 8-bit
   * step) */
  fg_image f;
  ck_assert_int_eq(fg_image_alloc_type(&f, 40, 30, 3, FG_IMAGE_F32), FG_OK);
  for (size_t i = 0; i < 40 * 30 * 3; i++)
    ((float *)f.data)[i] = ((uint16_t *)s16.data)[i] / 65535.0f;
  save_spec_ok(at("of.tif[profile=p3]"), &f);
  tu_sh("vips linear '%s' '%s' %.10g 0", at("r16.png"), at("rf.v"),
     1 / 65535.0);
  d = file_max_diff(at("of.tif"), at("rf.v"));
  ck_assert_msg(d <= 1 / 1024.0, "float: %g", d);
  ck_assert(same_profile(at("of.tif"), at("r16.png")));
  /* RGBA: alpha as it was, colour as without alpha */
  fg_image a = pattern(40, 30, 4, FG_IMAGE_U8), c = pattern(40, 30, 3,
                                                            FG_IMAGE_U8);
  for (int i = 0; i < 40 * 30; i++)
    memcpy(c.data + 3 * i, a.data + 4 * i, 3);
  save_spec_ok(at("a.png[profile=adobergb]"), &a);
  save_spec_ok(at("c.png[profile=adobergb]"), &c);
  tu_sh("vips extract_band '%s' '%s' 3", at("a.png"), at("alpha.v"));
  tu_sh("vips extract_band '%s' '%s' 0 --n 3", at("a.png"), at("colour.v"));
  ck_assert(file_max_diff(at("colour.v"), at("c.png")) == 0);
  fg_image back = read_ok(at("a.png"));
  ck_assert_int_eq(back.channels, 4);
  for (int i = 0; i < 40 * 30; i++)
    ck_assert_int_eq(back.data[4 * i + 3], a.data[4 * i + 3]);
  fg_image_free(&back);
  fg_image_free(&c);
  fg_image_free(&a);
  fg_image_free(&f);
  fg_image_free(&s16);
}
END_TEST

/* [profile=input]: the input's own profile embedded again (its bytes), the
 * pixels back in it as the file had them; an untagged input gives sRGB; a
 * CMYK input's profile only where CMYK goes (JPEG, TIFF). */
START_TEST(test_vips_profile_input_kept) {
  fg_image src = pattern(40, 30, 3, FG_IMAGE_U8);
  write_pnm(at("c.ppm"), &src);
  tu_sh("vips icc_transform '%s' '%s' '%s' --input-profile srgb", at("c.ppm"),
     at("adobe.tif"), ADOBE_ICC);
  fg_image in = read_ok(at("adobe.tif"));
  ck_assert_ptr_nonnull(in.meta);
  ck_assert_ptr_nonnull(in.meta->block[FG_IMAGE_META_ICC]);
  ck_assert_int_le(max_diff(&in, &src), 3); /* converted to sRGB */
  save_spec_ok(at("k.png[profile=input]"), &in);
  ck_assert(same_profile(at("k.png"), at("adobe.tif")));
  double d = file_max_diff(at("k.png"), at("adobe.tif"));
  ck_assert_msg(d <= 1, "%g", d);
  /* without the option: sRGB, as vips' srgb profile */
  save_spec_ok(at("plain.png"), &in);
  tu_sh("vips icc_transform '%s' '%s' srgb --input-profile srgb", at("c.ppm"),
     at("srgb.png"));
  ck_assert(same_profile(at("plain.png"), at("srgb.png")));
  ck_assert(!same_profile(at("plain.png"), at("adobe.tif")));
  /* an untagged input: sRGB */
  fg_image un = read_ok(at("c.ppm"));
  save_spec_ok(at("u.png[profile=input]"), &un);
  ck_assert(same_profile(at("u.png"), at("srgb.png")));
  ck_assert(file_max_diff(at("u.png"), at("c.ppm")) == 0);
  /* CMYK: kept in a JPEG, refused for a PNG */
  tu_sh("vips icc_transform '%s' '%s' cmyk --input-profile srgb", at("c.ppm"),
     at("cmyk.jpg[Q=98]"));
  fg_image k = read_ok(at("cmyk.jpg"));
  ck_assert_int_eq(k.channels, 3);
  save_spec_ok(at("k2.jpg[profile=input,Q=98]"), &k);
  tu_sh("vipsheader '%s' | grep -q cmyk", at("k2.jpg"));
  ck_assert(same_profile(at("k2.jpg"), at("cmyk.jpg")));
  size_t n;
  fg_image_save_options o;
  char err[768];
  ck_assert_int_eq(fg_image_save_parse(at("k3.png[profile=input]"), &n, &o,
                                       err, sizeof err), FG_OK);
  ck_assert_int_eq(fg_image_save(at("k3.png"), &k, &o, err, sizeof err),
                   FG_EINVAL);
  ck_assert_msg(strstr(err, "profile=input") && strstr(err, "CMYK") &&
                strstr(err, "PNG"), "%s", err);
  ck_assert_int_ne(access(at("k3.png"), F_OK), 0);
  fg_image_free(&k);
  fg_image_free(&un);
  fg_image_free(&in);
  fg_image_free(&src);
}
END_TEST

/* Bad profile= values are refused naming the option, what was expected and
 * what was found, before anything is written. */
START_TEST(test_vips_profile_refused) {
  FILE *f = fopen(at("bogus.icc"), "w");
  ck_assert(f != NULL);
  fputs("not a profile\n", f);
  fclose(f);
  char spec[3][512];
  snprintf(spec[0], sizeof spec[0], "x.png[profile=%s]", at("bogus.icc"));
  snprintf(spec[1], sizeof spec[1], "x.png[profile=%s]", at("none.icc"));
  snprintf(spec[2], sizeof spec[2], "x.png[profile=%s]",
           "/usr/share/color/icc/Gray.icc");
  static const struct {
    const char *spec, *want[3];
  } bad[] = {
    {"x.png[profile=rec2020]",
     {"option 'profile=rec2020'", "expected srgb, p3, adobergb",
      "found 'rec2020'"}},
    {"x.png[profile=cmyk]", {"'profile=cmyk'", "PNG", "CMYK"}},
    {"x.webp[profile=cmyk]", {"'profile=cmyk'", "WebP", "CMYK"}},
    {"x.gif[profile=p3]", {"'profile=p3'", "GIF", "found 'p3'"}},
    {"x.ppm[profile=input]", {"'profile=input'", "PNM", "found 'input'"}},
    {"x.png[profile=]", {"'profile='", "expected srgb", "found ''"}},
    {NULL, {"bogus.icc", "expected an ICC profile", "lcms cannot read"}},
    {NULL, {"none.icc", "expected a readable ICC profile file", "missing"}},
    {NULL, {"Gray.icc", "expected an RGB or CMYK profile", "grey"}},
  };
  for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
    const char *s = bad[i].spec ? bad[i].spec : spec[i - 6];
    size_t n;
    fg_image_save_options o;
    char err[768];
    ck_assert_int_eq(fg_image_save_parse(s, &n, &o, err, sizeof err),
                     FG_EINVAL);
    for (int k = 0; k < 3; k++)
      ck_assert_msg(strstr(err, bad[i].want[k]), "%s: '%s' not in: %s", s,
                    bad[i].want[k], err);
  }
  /* a grey output takes no CMYK profile; nothing written */
  fg_image g = pattern(8, 8, 1, FG_IMAGE_U8);
  fg_image_save_options o = FG_IMAGE_SAVE_OPTIONS_INIT;
  snprintf(o.profile, sizeof o.profile, "cmyk");
  char err[768];
  ck_assert_int_eq(fg_image_save(at("g.tif"), &g, &o, err, sizeof err),
                   FG_EINVAL);
  ck_assert_msg(strstr(err, "profile=cmyk") && strstr(err, "grey"), "%s",
                err);
  ck_assert_int_ne(access(at("g.tif"), F_OK), 0);
  snprintf(o.profile, sizeof o.profile, "input");
  ck_assert_int_eq(fg_image_save(at("g.png"), &g, &o, err, sizeof err),
                   FG_OK);
  /* the command: refused by check, before any input */
  f = fopen(at("p.fgp"), "w");
  ck_assert(f != NULL);
  fputs("rgb = input()\nsave(rgb, \"{stem}.png[profile=displayp3]\")\n", f);
  fclose(f);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s' check '%s' 2>&1 | grep -q "
           "\"option 'profile=displayp3' of a PNG file: expected srgb, p3\"",
           FG_TOOL, at("p.fgp"));
  ck_assert_int_eq(system(cmd), 0);
  fg_image_free(&g);
}
END_TEST

/* fieldgraph run: [profile=p3] on a save, as lcms converts. */
START_TEST(test_vips_run_profile) {
  fg_image src = pattern(40, 30, 3, FG_IMAGE_U8);
  ck_assert_int_eq(mkdir(at("in"), 0755), 0);
  write_pnm(at("in/c.ppm"), &src);
  FILE *f = fopen(at("p.fgp"), "w");
  ck_assert(f != NULL);
  fputs("rgb = input()\nsave(rgb, \"{stem}.png[profile=p3,strip]\")\n", f);
  fclose(f);
  tu_sh("'%s' run -q -o '%s' '%s' '%s'", FG_TOOL, at("out"), at("p.fgp"),
     at("in"));
  tu_sh("vips icc_transform '%s' '%s' p3 --input-profile srgb", at("in/c.ppm"),
     at("ref.png"));
  double d = file_max_diff(at("out/c.png"), at("ref.png"));
  ck_assert_msg(d <= 1, "%g", d);
  ck_assert(same_profile(at("out/c.png"), at("ref.png")));
  fg_image_free(&src);
}
END_TEST

/* ---- working spaces (input(profile=...)) and grey profiles ------------- */

/* The ICC profile embedded in the image file img, written to icc. */
static void embedded_icc(const char *img, const char *icc) {
  tu_sh("{ vipsheader -f icc-profile-data '%s' | base64 -d > '%s'; }", img,
        icc);
}

/* lcms's own transform of img's 8-bit samples (grey, RGB or CMYK)
 * from the profile file from to the profile file to, relative
 * colorimetric: a new image of to's channels. */
static fg_image lcms_ref(const fg_image *img, const char *from,
                         const char *to) {
  cmsHPROFILE a = cmsOpenProfileFromFile(from, "r");
  cmsHPROFILE b = cmsOpenProfileFromFile(to, "r");
  ck_assert_msg(a && b, "%s, %s", from, to);
  int out_ch = cmsGetColorSpace(b) == cmsSigGrayData ? 1 : 3;
  cmsHTRANSFORM x = cmsCreateTransform(
      a, img->channels == 1 ? TYPE_GRAY_8 : img->channels == 4 ? TYPE_CMYK_8
                                                              : TYPE_RGB_8, b,
      out_ch == 1 ? TYPE_GRAY_8 : TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC,
      0);
  ck_assert(x != NULL);
  fg_image r;
  ck_assert_int_eq(fg_image_alloc(&r, img->width, img->height, out_ch),
                   FG_OK);
  cmsDoTransform(x, img->data, r.data,
                 (cmsUInt32Number)(img->width * img->height));
  cmsDeleteTransform(x);
  cmsCloseProfile(a);
  cmsCloseProfile(b);
  return r;
}

/* sRGB's tone curve (IEC 61966-2-1) or a pure power. */
static cmsToneCurve *test_curve(double gamma) {
  static const cmsFloat64Number p[5] = {2.4, 1 / 1.055, 0.055 / 1.055,
                                        1 / 12.92, 0.04045};
  return gamma > 0 ? cmsBuildGamma(NULL, gamma)
                   : cmsBuildParametricToneCurve(NULL, 4, p);
}

/* A grey profile of that curve (D50 white), made here with lcms. */
static void write_grey_icc(const char *path, double gamma) {
  cmsToneCurve *c = test_curve(gamma);
  cmsHPROFILE h = cmsCreateGrayProfile(cmsD50_xyY(), c);
  ck_assert(h != NULL);
  ck_assert(cmsSaveProfileToFile(h, path));
  cmsCloseProfile(h);
  cmsFreeToneCurve(c);
}

/* That the profile file icc is a grey one whose tone curve is the curve
 * of gamma (0: sRGB's) within 1/1000 at every 1/64. */
static void expect_grey_icc(const char *icc, double gamma) {
  cmsHPROFILE h = cmsOpenProfileFromFile(icc, "r");
  ck_assert_msg(h != NULL, "%s", icc);
  ck_assert_int_eq(cmsGetColorSpace(h), cmsSigGrayData);
  cmsToneCurve *t = cmsReadTag(h, cmsSigGrayTRCTag), *want =
      test_curve(gamma);
  ck_assert(t != NULL);
  for (int i = 0; i <= 64; i++) {
    float v = (float)i / 64;
    ck_assert_msg(fabsf(cmsEvalToneCurveFloat(t, v) -
                        cmsEvalToneCurveFloat(want, v)) < 1e-3f,
                  "%s: curve at %g: %g, expected %g", icc, v,
                  cmsEvalToneCurveFloat(t, v),
                  cmsEvalToneCurveFloat(want, v));
  }
  cmsFreeToneCurve(want);
  cmsCloseProfile(h);
}

static fg_image load_in(const char *path, const char *space) {
  fg_image_load_options lo = FG_IMAGE_LOAD_OPTIONS_INIT;
  snprintf(lo.profile, sizeof lo.profile, "%s", space);
  fg_image img;
  char err[512];
  ck_assert_msg(fg_image_load(path, &img, &lo, err, sizeof err) == FG_OK,
                "%s", err);
  return img;
}

/* The stored samples of an image file, as vips copies them to PNM. */
static fg_image stored_of(const char *path, const char *pnm) {
  tu_sh("vips copy '%s' '%s'", path, at(pnm));
  return pnm_image(at(pnm));
}

/* A working space: an Adobe RGB input (made by vips with icc-profiles-
 * free's profile) converted to Display P3 as lcms's own transform of the
 * same stored pixels gives (8-bit rounding: within 1), the output tagged
 * P3 by default with those pixels, [profile=srgb] back to sRGB; an
 * untagged input from sRGB; a P3 input to Adobe RGB; a CMYK one to P3;
 * P3's own numbers kept when the space is P3 (no clipping to sRGB). */
START_TEST(test_vips_working_space_as_lcms) {
  fg_image src = pattern(40, 30, 3, FG_IMAGE_U8);
  write_pnm(at("c.ppm"), &src);
  tu_sh("vips icc_transform '%s' '%s' '%s' --input-profile srgb", at("c.ppm"),
        at("adobe.tif"), ADOBE_ICC);
  tu_sh("vips icc_transform '%s' '%s' p3 --input-profile srgb", at("c.ppm"),
        at("p3.png"));
  tu_sh("vips icc_transform '%s' '%s' srgb --input-profile srgb",
        at("c.ppm"), at("srgb.png"));
  embedded_icc(at("p3.png"), at("p3.icc"));
  embedded_icc(at("srgb.png"), at("srgb.icc"));
  fg_image stored = stored_of(at("adobe.tif"), "adobe.ppm");
  fg_image got = load_in(at("adobe.tif"), "p3");
  ck_assert_int_eq(got.channels, 3);
  ck_assert_ptr_nonnull(got.meta);
  ck_assert_ptr_nonnull(got.meta->block[FG_IMAGE_META_SPACE]);
  fg_image ref = lcms_ref(&stored, ADOBE_ICC, at("p3.icc"));
  ck_assert_int_le(max_diff(&got, &ref), 1);
  ck_assert_int_gt(max_diff(&got, &src), 8); /* P3 numbers, not sRGB */
  /* saved: tagged P3 (vips' own bytes), the pixels as they are */
  save_spec_ok(at("o.png"), &got);
  ck_assert(same_profile(at("o.png"), at("p3.png")));
  fg_image o = stored_of(at("o.png"), "o.ppm");
  ck_assert_int_eq(max_diff(&o, &got), 0);
  /* even with [strip]: untagged, the P3 numbers would read as sRGB */
  save_spec_ok(at("os.png[strip]"), &got);
  ck_assert(same_profile(at("os.png"), at("p3.png")));
  /* [profile=srgb]: to sRGB, as lcms takes the Adobe RGB pixels there
   * (through 8-bit P3: two roundings, within 3) */
  save_spec_ok(at("s.png[profile=srgb]"), &got);
  ck_assert(same_profile(at("s.png"), at("srgb.png")));
  fg_image s = stored_of(at("s.png"), "s.ppm");
  fg_image ref_s = lcms_ref(&stored, ADOBE_ICC, at("srgb.icc"));
  ck_assert_int_le(max_diff(&s, &ref_s), 3);
  /* an untagged input: from sRGB */
  fg_image un = load_in(at("c.ppm"), "p3");
  fg_image ref_u = lcms_ref(&src, at("srgb.icc"), at("p3.icc"));
  ck_assert_int_le(max_diff(&un, &ref_u), 1);
  /* a P3 input to Adobe RGB: the library's own Adobe RGB compatible
   * profile against icc-profiles-free's (within 1), embedded */
  fg_image p3s = stored_of(at("p3.png"), "p3s.ppm");
  fg_image ad = load_in(at("p3.png"), "adobergb");
  fg_image ref_a = lcms_ref(&p3s, at("p3.icc"), ADOBE_ICC);
  ck_assert_int_le(max_diff(&ad, &ref_a), 1);
  save_spec_ok(at("a.tif"), &ad);
  tu_sh("vipsheader -f icc-profile-data '%s' | base64 -d | grep -a -q "
        "'Adobe RGB (1998) compatible'", at("a.tif"));
  /* 16 bits converted in 16 bits: as vips icc_transform --depth 16 (lcms
   * through vips' 16-bit tables: within 16 of 65535) */
  fg_image s16 = pattern(40, 30, 3, FG_IMAGE_U16);
  write_pnm(at("c16.ppm"), &s16);
  tu_sh("vips icc_transform '%s' '%s' p3 --input-profile srgb --depth 16",
        at("c16.ppm"), at("r16.png"));
  fg_image r16 = stored_of(at("r16.png"), "r16.ppm");
  fg_image g16 = load_in(at("c16.ppm"), "p3");
  ck_assert_int_eq(g16.type, FG_IMAGE_U16);
  for (size_t i = 0; i < 40 * 30 * 3; i++)
    ck_assert_int_le(abs(((uint16_t *)g16.data)[i] -
                         ((uint16_t *)r16.data)[i]), 16);
  fg_image_free(&g16);
  fg_image_free(&r16);
  fg_image_free(&s16);
  /* a CMYK JPEG (vips' generic CMYK profile, embedded) straight to P3 */
  tu_sh("vips icc_transform '%s' '%s' cmyk --input-profile srgb", at("c.ppm"),
        at("k.jpg[Q=98]"));
  embedded_icc(at("k.jpg"), at("k.icc"));
  tu_sh("vips rawsave '%s' '%s'", at("k.jpg"), at("k.raw"));
  fg_image ks;
  ck_assert_int_eq(fg_image_alloc(&ks, 40, 30, 4), FG_OK);
  FILE *kf = fopen(at("k.raw"), "rb");
  ck_assert(kf != NULL);
  ck_assert_int_eq(fread(ks.data, 1, 40 * 30 * 4, kf), 40 * 30 * 4);
  fclose(kf);
  fg_image kp = load_in(at("k.jpg"), "p3");
  fg_image ref_k = lcms_ref(&ks, at("k.icc"), at("p3.icc"));
  ck_assert_int_eq(kp.channels, 3);
  ck_assert_int_le(max_diff(&kp, &ref_k), 1);
  fg_image_free(&ref_k);
  fg_image_free(&kp);
  fg_image_free(&ks);
  /* P3's most saturated green stays as it is in P3 (sRGB would clip it) */
  fg_image green;
  ck_assert_int_eq(fg_image_alloc(&green, 4, 4, 3), FG_OK);
  for (int i = 0; i < 16; i++)
    green.data[3 * i + 1] = 255;
  write_pnm(at("g.ppm"), &green);
  tu_sh("vips icc_transform '%s' '%s' p3 --input-profile p3", at("g.ppm"),
        at("g3.png"));
  fg_image g3 = stored_of(at("g3.png"), "g3.ppm");
  fg_image gk = load_in(at("g3.png"), "p3");
  ck_assert_int_eq(max_diff(&gk, &g3), 0);
  fg_image gs = read_ok(at("g3.png")), gb = lcms_ref(&gs, at("srgb.icc"),
                                                     at("p3.icc"));
  ck_assert_int_gt(max_diff(&gb, &g3), 8); /* through sRGB: clipped */
  fg_image *all[] = {&gb, &gs, &gk, &g3, &green, &ref_a, &ad, &p3s, &ref_u, &un,
                     &ref_s, &s, &o, &ref, &got, &stored, &src};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    fg_image_free(all[i]);
}
END_TEST

/* Bad working spaces are refused naming the value and what is accepted,
 * before the file is read. */
START_TEST(test_vips_working_space_refused) {
  static const struct {
    const char *value, *want;
  } bad[] = {
    {"rec2020", "expected srgb, p3, adobergb or the path of an RGB ICC"},
    {"cmyk", "found 'cmyk'"},
    {"input", "found 'input'"},
    {"/usr/share/color/icc/Gray.icc", "expected an RGB or CMYK profile"},
    {"/no/such.icc", "expected a readable ICC profile file"},
  };
  fg_image src = pattern(8, 8, 3, FG_IMAGE_U8);
  write_pnm(at("c.ppm"), &src);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char err[768];
    ck_assert_int_eq(fg_image_space_check(bad[i].value, err, sizeof err),
                     FG_EINVAL);
    ck_assert_msg(strstr(err, bad[i].value) && strstr(err, bad[i].want),
                  "%s: %s", bad[i].value, err);
    fg_image_load_options lo = FG_IMAGE_LOAD_OPTIONS_INIT;
    snprintf(lo.profile, sizeof lo.profile, "%s", bad[i].value);
    fg_image img;
    ck_assert_int_eq(fg_image_load(at("c.ppm"), &img, &lo, err, sizeof err),
                     FG_EINVAL);
    ck_assert_msg(strstr(err, bad[i].want), "%s: %s", bad[i].value, err);
    ck_assert_ptr_null(img.data);
  }
  ck_assert_int_eq(fg_image_space_check(ADOBE_ICC, NULL, 0), FG_OK);
  fg_image_free(&src);
}
END_TEST

/* Grey: a grey input tagged Gray Gamma 2.2 (a profile made here with
 * lcms; vips converts the test's pattern to it) is read as grey, as
 * lcms's own transform to sGrey (sRGB's tone curve) gives it; grey outputs
 * are tagged with a grey profile of sRGB's curve (libvips' sgrey); in an
 * Adobe RGB working space, with Adobe RGB's grey (gamma 563/256); WebP
 * holds grey as RGB: tagged sRGB, R = G = B; a grey profile on an RGB file
 * is ignored. */
START_TEST(test_vips_grey_profiles) {
  fg_image src = pattern(40, 30, 1, FG_IMAGE_U8);
  write_pnm(at("g.pgm"), &src);
  write_grey_icc(at("sgrey.icc"), 0);
  write_grey_icc(at("g22.icc"), 2.2);
  write_grey_icc(at("adobe-grey.icc"), 563.0 / 256);
  tu_sh("vips icc_transform '%s' '%s' '%s' --input-profile '%s'", at("g.pgm"),
        at("g22.png"), at("g22.icc"), at("sgrey.icc"));
  tu_sh("vipsheader '%s' | grep -q '1 band'", at("g22.png"));
  fg_image stored = stored_of(at("g22.png"), "s.pgm");
  ck_assert_int_gt(max_diff(&stored, &src), 3); /* gamma 2.2 numbers */
  fg_image got = read_ok(at("g22.png"));
  ck_assert_int_eq(got.channels, 1);
  fg_image ref = lcms_ref(&stored, at("g22.icc"), at("sgrey.icc"));
  ck_assert_int_le(max_diff(&got, &ref), 1);
  ck_assert_int_le(max_diff(&got, &src), 2); /* the round trip */
  /* out: tagged with sRGB's grey, the pixels as they are */
  save_spec_ok(at("o.png"), &got);
  embedded_icc(at("o.png"), at("o.icc"));
  expect_grey_icc(at("o.icc"), 0);
  fg_image o = stored_of(at("o.png"), "o.pgm");
  ck_assert_int_eq(max_diff(&o, &got), 0);
  save_spec_ok(at("p.jpg[profile=p3,Q=100]"), &got); /* P3's grey: sRGB's */
  embedded_icc(at("p.jpg"), at("p.icc"));
  expect_grey_icc(at("p.icc"), 0);
  save_spec_ok(at("n.png[strip]"), &got); /* sRGB: stripped as colour is */
  tu_sh("! vipsheader -a '%s' | grep -q '^icc-profile'", at("n.png"));
  /* in an Adobe RGB working space */
  fg_image ad = load_in(at("g22.png"), "adobergb");
  ck_assert_int_eq(ad.channels, 1);
  fg_image ref_a = lcms_ref(&stored, at("g22.icc"), at("adobe-grey.icc"));
  ck_assert_int_le(max_diff(&ad, &ref_a), 1);
  save_spec_ok(at("a.tif"), &ad);
  embedded_icc(at("a.tif"), at("a.icc"));
  expect_grey_icc(at("a.icc"), 563.0 / 256);
  fg_image a = stored_of(at("a.tif"), "a.pgm");
  ck_assert_int_eq(max_diff(&a, &ad), 0);
  /* [profile=srgb] from there: back to sRGB's grey as lcms does */
  save_spec_ok(at("b.png[profile=srgb]"), &ad);
  fg_image b = stored_of(at("b.png"), "b.pgm");
  fg_image ref_b = lcms_ref(&stored, at("g22.icc"), at("sgrey.icc"));
  ck_assert_int_le(max_diff(&b, &ref_b), 2);
  /* WebP: RGB tagged sRGB, each channel the grey */
  save_spec_ok(at("w.webp[lossless]"), &got);
  tu_sh("vipsheader '%s' | grep -q '3 bands'", at("w.webp"));
  fg_image rgb = pattern(8, 8, 3, FG_IMAGE_U8);
  write_pnm(at("c.ppm"), &rgb);
  fg_image_free(&rgb);
  tu_sh("vips icc_transform '%s' '%s' srgb --input-profile srgb",
        at("c.ppm"), at("srgb.png"));
  ck_assert(same_profile(at("w.webp"), at("srgb.png")));
  for (int c = 0; c < 3; c++) {
    char name[32];
    snprintf(name, sizeof name, "w%d.v", c);
    tu_sh("vips extract_band '%s' '%s' %d", at("w.webp"), at(name), c);
    ck_assert(file_max_diff(at(name), at("o.png")) <= 1);
  }
  /* an RGB file with the grey profile (vips colourspace keeps it): the
   * profile ignored, as libvips 8.14.2 does (it read as 6 channels) */
  const char *mixed[] = {"rg.tif", "rg.webp[lossless]"};
  for (int i = 0; i < 2; i++) {
    tu_sh("vips colourspace '%s' '%s' srgb", at("g22.png"), at(mixed[i]));
    char name[32];
    snprintf(name, sizeof name, "%.7s", mixed[i]);
    tu_sh("vipsheader -a '%s' | grep -q '^icc-profile-data'", at(name));
    fg_image m = read_ok(at(name));
    ck_assert_int_eq(m.channels, 3);
    for (int k = 0; k < 40 * 30 * 3; k++)
      ck_assert_int_eq(m.data[k], stored.data[k / 3]);
    fg_image_free(&m);
  }
  /* CMYK has no grey: refused, nothing written */
  size_t n;
  fg_image_save_options so;
  char err[768];
  ck_assert_int_eq(fg_image_save_parse(at("k.jpg[profile=cmyk]"), &n, &so,
                                       err, sizeof err), FG_OK);
  ck_assert_int_eq(fg_image_save(at("k.jpg"), &got, &so, err, sizeof err),
                   FG_EINVAL);
  ck_assert_msg(strstr(err, "profile=cmyk") && strstr(err, "grey"), "%s",
                err);
  ck_assert_int_ne(access(at("k.jpg"), F_OK), 0);
  fg_image *all[] = {&ref_b, &b, &a, &ref_a, &ad, &o, &ref, &got, &stored,
                     &src};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    fg_image_free(all[i]);
}
END_TEST

/* fieldgraph run with input(profile="p3"): the outputs in P3 as lcms
 * converts the Adobe RGB input, tagged P3; check refuses a bad value at
 * its place, and profile= on a companion input. */
START_TEST(test_vips_run_working_space) {
  fg_image src = pattern(40, 30, 3, FG_IMAGE_U8);
  write_pnm(at("c.ppm"), &src);
  ck_assert_int_eq(mkdir(at("in"), 0755), 0);
  tu_sh("vips icc_transform '%s' '%s' '%s' --input-profile srgb", at("c.ppm"),
        at("in/a.tif"), ADOBE_ICC);
  tu_sh("vips icc_transform '%s' '%s' p3 --input-profile srgb", at("c.ppm"),
        at("p3.png"));
  embedded_icc(at("p3.png"), at("p3.icc"));
  tu_write_text(at("p.fgp"), "rgb = input(profile=\"p3\")\n"
                "save(rgb, \"{stem}.png\")\n"
                "save(rgb, \"{stem}-s.png[profile=srgb]\")\n");
  tu_sh("'%s' run -q -o '%s' '%s' '%s'", FG_TOOL, at("out"), at("p.fgp"),
        at("in"));
  ck_assert(same_profile(at("out/a.png"), at("p3.png")));
  fg_image stored = stored_of(at("in/a.tif"), "a.ppm");
  fg_image ref = lcms_ref(&stored, ADOBE_ICC, at("p3.icc"));
  fg_image out = stored_of(at("out/a.png"), "o.ppm");
  ck_assert_int_le(max_diff(&out, &ref), 1);
  tu_sh("vips icc_transform '%s' '%s' srgb --input-profile srgb",
        at("c.ppm"), at("srgb.png"));
  ck_assert(same_profile(at("out/a-s.png"), at("srgb.png")));
  /* (the wants hold no single quote: they go to grep in one) */
  static const struct {
    const char *text, *want, *want2;
  } bad[] = {
    {"rgb = input(profile=\"rec2020\")\nsave(rgb, \"{stem}.png\")\n",
     "p.fgp:1:21: error: input: profile=\"rec2020\": working space",
     "expected srgb, p3, adobergb or the path of an RGB ICC profile file"},
    {"rgb = input(profile=cmyk)\nsave(rgb, \"{stem}.png\")\n",
     "p.fgp:1:21: error: input: profile=\"cmyk\"", "expected srgb, p3"},
    {"rgb = input()\nm = input(\"{stem}_m.png\", profile=\"p3\")\n"
     "save(rgb * m, \"{stem}.png\")\n",
     "p.fgp:2:35: error: input: profile: the working space is the "
     "pipeline", "given on the first input() only"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tu_write_text(at("p.fgp"), bad[i].text);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' check p.fgp > msg.txt 2>&1; "
             "test $? = 2 && grep -q -F '%s' msg.txt && grep -q -F '%s' "
             "msg.txt", dir, FG_TOOL, bad[i].want, bad[i].want2);
    ck_assert_msg(system(cmd) == 0, "%s", bad[i].want);
  }
  fg_image_free(&out);
  fg_image_free(&ref);
  fg_image_free(&stored);
  fg_image_free(&src);
}
END_TEST

/* ---- limits ------------------------------------------------------------- */

START_TEST(test_vips_pixel_limit_every_format) {
  fg_image src = pattern(40, 30, 3, FG_IMAGE_U8);
  write_pnm(at("l.ppm"), &src);
  static const char *names[] = {"l.tif", "l.webp", "l.gif", "l.heic",
                                "l.jxl"};
  for (int i = 0; i < 5; i++) {
    tu_sh("vips copy '%s' '%s'", at("l.ppm"), at(names[i]));
    fg_image img;
    char err[512];
    fg_image_load_options lo = FG_IMAGE_LOAD_OPTIONS_INIT;
    lo.max_pixels = 40 * 30 - 1;
    ck_assert_int_eq(fg_image_load(at(names[i]), &img, &lo, err, sizeof err),
                     FG_EFORMAT);
    ck_assert_msg(strstr(err, "max_pixels") && strstr(err, names[i]), "%s",
                  err);
    ck_assert_ptr_null(img.data);
  }
  fg_image_free(&src);
}
END_TEST

/* ---- the bundled samples (data/samples, scripts/make-samples) ----------- */

static const char *sample_path(const char *name) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", FG_SAMPLES_DIR, name);
  return buf[k];
}

START_TEST(test_vips_samples_come_out_right) {
  /* the portrait phone photo: stored landscape, shown upright */
  fg_image p = read_ok(sample_path("portrait_exif6.jpg"));
  ck_assert_int_eq(p.width, 400);
  ck_assert_int_eq(p.height, 600);
  tu_sh("vips rot '%s' '%s' d90", sample_path("coffee.png"), at("upright.ppm"));
  fg_image up = pnm_image(at("upright.ppm"));
  ck_assert_msg(psnr(&p, &up, 255) > 30, "portrait: PSNR %.1f",
                psnr(&p, &up, 255));
  /* the 16-bit TIFF: every sample as vips reads it, and truly 16 bits */
  fg_image a = read_ok(sample_path("astronaut16.tif"));
  ck_assert_int_eq(a.type, FG_IMAGE_U16);
  tu_sh("vips copy '%s' '%s'", sample_path("astronaut16.tif"), at("a16.ppm"));
  fg_image a16 = pnm_image(at("a16.ppm"));
  expect_equal(&a, &a16, "astronaut16.tif");
  size_t odd = 0;
  for (size_t i = 0; i < (size_t)a.width * a.height * 3; i++)
    odd += ((uint16_t *)a.data)[i] % 257 != 0;
  ck_assert_uint_gt(odd, (size_t)a.width * a.height);
  /* Adobe RGB and CMYK: as lcms converts them to sRGB, near the original */
  fg_image c = read_ok(sample_path("chelsea.png"));
  static const char *cs[] = {"chelsea_adobergb.jpg", "chelsea_cmyk.jpg"};
  static const char *how[] = {"--embedded", "--input-profile cmyk"};
  for (int i = 0; i < 2; i++) {
    fg_image got = read_ok(sample_path(cs[i]));
    ck_assert_int_eq(got.channels, 3);
    tu_sh("vips icc_transform '%s' '%s' srgb %s", sample_path(cs[i]),
          at("ref.ppm"), how[i]);
    fg_image ref = pnm_image(at("ref.ppm"));
    ck_assert_int_le(max_diff(&got, &ref), 1);
    ck_assert_msg(psnr(&got, &c, 255) > 28, "%s: PSNR %.1f", cs[i],
                  psnr(&got, &c, 255));
    fg_image_free(&ref);
    fg_image_free(&got);
  }
  /* the RGBA PNG: a soft alpha, opaque to transparent */
  fg_image r = read_ok(sample_path("chelsea_rgba.png"));
  ck_assert_int_eq(r.channels, 4);
  int lo = 255, hi = 0, mid = 0;
  for (int i = 0; i < r.width * r.height; i++) {
    int v = r.data[4 * i + 3];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    mid += v > 0 && v < 255;
  }
  ck_assert(lo == 0 && hi == 255 && mid > 1000);
  fg_image_free(&r);
  fg_image_free(&c);
  fg_image_free(&a16);
  fg_image_free(&a);
  fg_image_free(&up);
  fg_image_free(&p);
}
END_TEST

/* The README's main job over the samples: every one done, the portrait
 * upright, the 16-bit TIFF's result in 16 bits. */
START_TEST(test_vips_main_job_over_samples) {
  tu_sh("'%s' run -q -j 1 -o '%s' '%s/../../examples/lab.fgp' '%s'", FG_TOOL,
        at("out"), FG_SAMPLES_DIR, FG_SAMPLES_DIR);
  tu_sh("vipsheader '%s' | grep -q '400x600 uchar'",
        at("out/portrait_exif6-flipped-half.png"));
  tu_sh("vipsheader '%s' | grep -q '184x184 ushort'",
        at("out/astronaut16-flipped-half.png"));
  tu_sh("vipsheader '%s' | grep -q '451x300 uchar, 3 bands'",
        at("out/chelsea_cmyk-flipped-half.png"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("image_vips");
  TCase *tc = tcase_create("vips");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_vips_reads_every_format);
  tcase_add_test(tc, test_vips_ascii_pnm_checked);
  tcase_add_test(tc, test_vips_truncated_named_by_signature);
  tcase_add_test(tc, test_vips_int32_samples_refused);
  tcase_add_test(tc, test_vips_format_side_limits);
  tcase_add_test(tc, test_vips_writes_every_format);
  tcase_add_test(tc, test_vips_alpha_roundtrip);
  tcase_add_test(tc, test_vips_no_alpha_formats_flatten);
  tcase_add_test(tc, test_vips_sixteen_bits_kept);
  tcase_add_test(tc, test_vips_float_tiff);
  tcase_add_test(tc, test_vips_jpeg_large_xmp_warns);
  tcase_add_test(tc, test_vips_float_tiff_scrgb_in);
  tcase_add_test(tc, test_vips_float_tiff_out_matches_png);
  tcase_add_test(tc, test_vips_save_parse);
  tcase_add_test(tc, test_vips_exif_orientation);
  tcase_add_test(tc, test_vips_exif_all_orientations);
  tcase_add_test(tc, test_vips_metadata_copied_unless_strip);
  tcase_add_test(tc, test_vips_run_orientation_and_metadata);
  tcase_add_test(tc, test_vips_run_keeps_alpha);
  tcase_add_test(tc, test_vips_run_overlay_and_rgba_use_alpha);
  tcase_add_test(tc, test_vips_run_resamples_premultiplied);
  tcase_add_test(tc, test_vips_icc_p3_to_srgb);
  tcase_add_test(tc, test_vips_icc_cmyk_jpeg);
  tcase_add_test(tc, test_vips_profile_out_as_lcms);
  tcase_add_test(tc, test_vips_profile_out_depths_and_alpha);
  tcase_add_test(tc, test_vips_profile_input_kept);
  tcase_add_test(tc, test_vips_profile_refused);
  tcase_add_test(tc, test_vips_run_profile);
  tcase_add_test(tc, test_vips_working_space_as_lcms);
  tcase_add_test(tc, test_vips_working_space_refused);
  tcase_add_test(tc, test_vips_grey_profiles);
  tcase_add_test(tc, test_vips_run_working_space);
  tcase_add_test(tc, test_vips_pixel_limit_every_format);
  tcase_add_test(tc, test_vips_samples_come_out_right);
  tcase_add_test(tc, test_vips_main_job_over_samples);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
