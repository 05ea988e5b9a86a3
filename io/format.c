/* io/format.c - the output formats this build writes, by file extension,
 * and the options each takes in brackets ("out.webp[Q=80,lossless]"):
 * fg_image_format_known, fg_image_save_parse and fgi_format_of, shared by
 * both backends (image_vips.c with libvips, image.c without) so that a
 * pipeline's save() is checked before any input runs. */
#include "io/format.h"
#ifdef FG_HAVE_VIPS
#include "io/profile.h"
#endif
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int lower(int c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

static int ieqn(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]) || !b[i])
      return 0;
  return b[n] == '\0';
}

static const struct {
  const char *ext;
  fgi_format fmt;
} exts[] = {
  {".png", FGI_PNG}, {".jpg", FGI_JPEG}, {".jpeg", FGI_JPEG},
  {".pgm", FGI_PNM}, {".ppm", FGI_PNM}, {".pnm", FGI_PNM},
#ifdef FG_HAVE_VIPS
  {".tif", FGI_TIFF}, {".tiff", FGI_TIFF}, {".webp", FGI_WEBP},
  {".gif", FGI_GIF}, {".heic", FGI_HEIF}, {".heif", FGI_HEIF},
  {".avif", FGI_AVIF}, {".jxl", FGI_JXL},
#endif
};

#ifdef FG_HAVE_VIPS
#define KNOWN_EXTS ".png, .jpg, .jpeg, .pgm, .ppm, .pnm, .tif, .tiff, " \
  ".webp, .gif, .heic, .heif, .avif or .jxl"
#else
#define KNOWN_EXTS ".png, .jpg, .jpeg, .pgm, .ppm or .pnm (this build has " \
  "no libvips for TIFF, WebP, GIF, HEIF/AVIF, JPEG XL)"
#endif

const char *fgi_known_extensions(void) { return KNOWN_EXTS; }

/* The extension of the n bytes of name: from its last '.' after the last
 * '/', or NULL. */
static const char *extension(const char *name, size_t n, size_t *len) {
  const char *dot = NULL;
  for (size_t i = 0; i < n; i++)
    if (name[i] == '/')
      dot = NULL;
    else if (name[i] == '.')
      dot = name + i;
  if (!dot || dot == name || dot[-1] == '/')
    return NULL;
  *len = (size_t)(name + n - dot);
  return dot;
}

static fgi_format format_of_n(const char *name, size_t n) {
  size_t len;
  const char *e = extension(name, n, &len);
  if (!e)
    return FGI_NONE;
  for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
    if (ieqn(e, exts[i].ext, len))
      return exts[i].fmt;
  return FGI_NONE;
}

fgi_format fgi_format_of(const char *path) {
  return format_of_n(path, strlen(path));
}

int fg_image_format_known(const char *path) {
  return path && fgi_format_of(path) != FGI_NONE;
}

int fg_image_format_bits(const char *path) {
  switch (path ? fgi_format_of(path) : FGI_NONE) {
  case FGI_NONE: return 0;
#ifdef FG_HAVE_VIPS
  case FGI_TIFF: return 32;
  case FGI_PNG: return 16;
#endif
  default: return 8;
  }
}

static const char *format_name(fgi_format f) {
  static const char *names[] = {"?", "PNG", "JPEG", "PNM", "TIFF", "WebP",
                                "GIF", "HEIF", "AVIF", "JPEG XL"};
  return names[f];
}

int fgi_format_max_side(fgi_format f, const char **name) {
  *name = format_name(f);
  /* libwebp's WEBP_MAX_DIMENSION, libjpeg's JPEG_MAX_DIMENSION */
  return f == FGI_WEBP ? 16383 : f == FGI_JPEG ? 65500 : 0;
}

/* An integer from lo to hi in s (whole string); 0 on success. */
static int int_in(const char *s, long lo, long hi, int *out) {
  char *end;
  if (!*s)
    return -1;
  long v = strtol(s, &end, 10);
  if (*end || v < lo || v > hi)
    return -1;
  *out = (int)v;
  return 0;
}

static fg_status bad(char *err, size_t errlen, const char *spec,
                     fgi_format f, const char *kv, const char *want) {
  return fgu_fail(err, errlen, FG_EINVAL, "%s: option '%s' of a %s file: "
                  "expected %s", spec, kv, format_name(f), want);
}

/* The options a format takes, for messages. */
static const char *options_of(fgi_format f) {
  switch (f) {
  case FGI_PNG:
    return "compression=0..9, filter=none|sub|up|avg|paeth|all, "
           "bitdepth=8|16, profile= or strip";
  case FGI_JPEG: return "Q=1..100 (quality=), profile= or strip";
  case FGI_TIFF:
    return "compression=none|lzw|deflate|jpeg|zstd, Q=1..100, "
           "bitdepth=8|16, profile= or strip";
  case FGI_WEBP: case FGI_HEIF: case FGI_AVIF: case FGI_JXL:
    return "Q=1..100 (quality=), lossless, profile= or strip";
  default: return "profile=srgb or strip";
  }
}

fg_status fg_image_save_parse(const char *spec, size_t *name_len,
                              fg_image_save_options *opt, char *err,
                              size_t errlen) {
  if (err && errlen)
    err[0] = '\0';
  if (!spec || !name_len || !opt)
    return fgu_fail(err, errlen, FG_EINVAL, "fg_image_save_parse: NULL "
                    "argument");
  fg_image_save_options o = FG_IMAGE_SAVE_OPTIONS_INIT;
  size_t n = strlen(spec);
  const char *br = strchr(spec, '[');
  size_t name_n = br ? (size_t)(br - spec) : n;
  if (br && spec[n - 1] != ']')
    return fgu_fail(err, errlen, FG_EINVAL, "%s: expected options in "
                    "brackets at the end of the name, \"out.png[...]\"",
                    spec);
  fgi_format f = format_of_n(spec, name_n);
  size_t elen = 0;
  const char *e = extension(spec, name_n, &elen);
  int templated = e && memchr(e, '{', elen);
  if (f == FGI_NONE && !templated)
    return fgu_fail(err, errlen, FG_EINVAL, "%s: unknown file extension "
                    "'%.*s' (expected %s)", spec, e ? (int)elen : 0,
                    e ? e : "", KNOWN_EXTS);
  if (br) {
    char opts[512];
    size_t on = n - name_n - 2;
    if (on >= sizeof opts)
      return fgu_fail(err, errlen, FG_EINVAL, "%s: options too long", spec);
    memcpy(opts, br + 1, on);
    opts[on] = '\0';
    char *save = NULL;
    for (char *kv = strtok_r(opts, ",", &save); kv;
         kv = strtok_r(NULL, ",", &save)) {
      char *eq = strchr(kv, '=');
      const char *val = eq ? eq + 1 : NULL;
      size_t kn = eq ? (size_t)(eq - kv) : strlen(kv);
#define KEY(s) (kn == strlen(s) && !strncmp(kv, s, kn))
      int lossy = f == FGI_JPEG || f == FGI_WEBP || f == FGI_HEIF ||
                  f == FGI_AVIF || f == FGI_JXL || f == FGI_TIFF;
      int lossless_ok = f == FGI_WEBP || f == FGI_HEIF || f == FGI_AVIF ||
                        f == FGI_JXL;
      if (KEY("strip") && !val) {
        o.strip = 1;
      } else if ((KEY("Q") || KEY("quality")) && val && lossy) {
        if (int_in(val, 1, 100, &o.quality))
          return bad(err, errlen, spec, f, kv, "a quality from 1 to 100");
      } else if (KEY("lossless") && lossless_ok &&
                 (!val || !strcmp(val, "true") || !strcmp(val, "1"))) {
        o.lossless = 1;
      } else if (KEY("compression") && val && f == FGI_PNG) {
        if (int_in(val, 0, 9, &o.png_compression))
          return bad(err, errlen, spec, f, kv, "a zlib level from 0 to 9");
      } else if (KEY("compression") && val && f == FGI_TIFF) {
        static const char *names[] = {"none", "lzw", "deflate", "jpeg",
                                      "zstd"};
        int k = -1;
        for (int i = 0; i < 5; i++)
          if (!strcmp(val, names[i]))
            k = i;
        if (k < 0)
          return bad(err, errlen, spec, f, kv,
                     "none, lzw, deflate, jpeg or zstd");
        o.tiff_compression = k;
      } else if (KEY("filter") && val && f == FGI_PNG) {
        static const char *names[] = {"none", "sub", "up", "avg", "paeth",
                                      "all"};
        int k = -1;
        for (int i = 0; i < 6; i++)
          if (!strcmp(val, names[i]))
            k = i;
        if (k < 0)
          return bad(err, errlen, spec, f, kv,
                     "a PNG filter (none, sub, up, avg, paeth, all)");
        o.png_filter = (fg_png_filter)k;
      } else if (KEY("bitdepth") && val && (f == FGI_PNG || f == FGI_TIFF)) {
        if (int_in(val, 8, 16, &o.bitdepth) ||
            (o.bitdepth != 8 && o.bitdepth != 16))
          return bad(err, errlen, spec, f, kv, "bitdepth=8 or bitdepth=16");
#ifndef FG_HAVE_VIPS
        if (o.bitdepth == 16)
          return bad(err, errlen, spec, f, kv, "bitdepth=8 (16-bit output "
                     "needs a build with libvips)");
#endif
      } else if (KEY("profile") && val) {
        if (strlen(val) >= sizeof o.profile)
          return bad(err, errlen, spec, f, kv, "a profile name or path of "
                     "at most 255 bytes");
#ifdef FG_HAVE_VIPS
        char why[700];
        if (fgi_profile_check(val, f, why, sizeof why))
          return fgu_fail(err, errlen, FG_EINVAL, "%s: option '%s' of a %s "
                          "file: %s", spec, kv, format_name(f), why);
#else
        if (strcmp(val, "srgb"))
          return bad(err, errlen, spec, f, kv, "profile=srgb (other "
                     "profiles need a build with libvips)");
#endif
        snprintf(o.profile, sizeof o.profile, "%s", val);
      } else if (templated) {
        /* the format is known only per input: the option is checked then */
        return fgu_fail(err, errlen, FG_EINVAL, "%s: options in brackets "
                        "need a fixed extension, not a template field",
                        spec);
      } else {
        return fgu_fail(err, errlen, FG_EINVAL, "%s: unknown option '%s' "
                        "for a %s file (expected %s)", spec, kv,
                        format_name(f), options_of(f));
      }
#undef KEY
    }
  }
  *name_len = name_n;
  *opt = o;
  return FG_OK;
}

fg_status fg_image_space_check(const char *value, char *err, size_t errlen) {
  if (!value)
    return fgu_fail(err, errlen, FG_EINVAL, "working space: NULL");
  if (err && errlen)
    err[0] = '\0';
#ifdef FG_HAVE_VIPS
  char why[700];
  if (fgi_space_check(value, why, sizeof why))
    return fgu_fail(err, errlen, FG_EINVAL, "working space '%s': %s", value,
                    why);
#else
  if (strcmp(value, "srgb"))
    return fgu_fail(err, errlen, FG_EINVAL, "working space '%s': expected "
                    "srgb (other working spaces need a build with libvips)",
                    value);
#endif
  return FG_OK;
}

const char *fgi_format_sniff(const void *p, size_t n) {
  static const struct {
    const char *name;
    size_t at, len;
    const char *sig;
  } sigs[] = {
      {"PNG", 0, 8, "\x89PNG\r\n\x1a\n"}, {"JPEG", 0, 3, "\xff\xd8\xff"},
      {"TIFF", 0, 4, "II*\0"},              {"TIFF", 0, 4, "MM\0*"},
      {"BigTIFF", 0, 4, "II+\0"},           {"BigTIFF", 0, 4, "MM\0+"},
      {"GIF", 0, 4, "GIF8"},                 {"WebP", 8, 4, "WEBP"},
      {"HEIF/AVIF", 4, 4, "ftyp"},           {"JPEG XL", 0, 2, "\xff\x0a"},
      {"JPEG XL", 4, 8, "JXL \r\n\x87\n"},
  };
  const unsigned char *b = p;
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
    if (n >= sigs[i].at + sigs[i].len &&
        !memcmp(b + sigs[i].at, sigs[i].sig, sigs[i].len))
      return sigs[i].name;
  if (n >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '7' &&
      (b[2] == ' ' || b[2] == '\t' || b[2] == '\n' || b[2] == '\r'))
    return "PNM";
  return NULL;
}
