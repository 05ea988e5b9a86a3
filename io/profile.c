/* io/profile.c - the colour profile an output is saved in ([profile=...],
 * libvips builds).  Names resolve to ICC bytes: libvips' built-in sRGB,
 * Display P3 and CMYK profiles, an Adobe RGB (1998) compatible profile
 * made here with lcms (libvips has none), a profile file, or the input's
 * own (kept in fg_image_meta by the reader).  The check before any input
 * runs needs only lcms; converting the sRGB pixels to the profile is done
 * with lcms directly (relative colorimetric, as vips_icc_transform's
 * default), since libvips 8.14 takes output profiles only by file name.
 * The caller (image_vips.c) embeds the bytes. */
#include "io/profile.h"
#include "util/fs.h"
#include "util/util.h"

#include <lcms2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vips/vips.h>

/* Largest profile file read (CMYK profiles are a few MB). */
#define MAX_ICC_BYTES ((size_t)64 << 20)

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}

int fgi_profile_is_srgb(const unsigned char *p, size_t n) {
  if (n < 132)
    return 0;
  uint32_t count = be32(p + 128);
  for (uint32_t i = 0; i < count && 132 + 12 * (size_t)(i + 1) <= n; i++) {
    const unsigned char *t = p + 132 + 12 * (size_t)i;
    if (memcmp(t, "desc", 4))
      continue;
    size_t off = be32(t + 4), len = be32(t + 8);
    if (off > n || len > n - off || len < 16)
      return 0;
    const unsigned char *d = p + off;
    if (!memcmp(d, "desc", 4))
      return len >= 16 && be32(d + 8) >= 4 && !memcmp(d + 12, "sRGB", 4);
    if (!memcmp(d, "mluc", 4) && len >= 28) {
      size_t so = be32(d + 20), sl = be32(d + 24);
      if (so > len || sl > len - so || sl < 8)
        return 0;
      const unsigned char *u = d + so; /* UTF-16BE */
      return !u[0] && u[1] == 's' && !u[2] && u[3] == 'R' && !u[4] &&
             u[5] == 'G' && !u[6] && u[7] == 'B';
    }
    return 0;
  }
  return 0;
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  if (n < m)
    return 0;
  for (size_t i = 0; i < m; i++) {
    char c = s[n - m + i];
    if ((c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != tail[i])
      return 0;
  }
  return 1;
}

static int is_file_name(const char *v) {
  return strchr(v, '/') || ends_with(v, ".icc") || ends_with(v, ".icm");
}

static int holds_cmyk(fgi_format f) { return f == FGI_JPEG || f == FGI_TIFF; }

static const char *format_name(fgi_format f) {
  static const char *names[] = {"?", "PNG", "JPEG", "PNM", "TIFF", "WebP",
                                "GIF", "HEIF", "AVIF", "JPEG XL"};
  return names[f];
}

/* The colour channels of the ICC profile in b (3 RGB, 4 CMYK), or 0 with
 * why ("expected ..., found ...") when lcms cannot use it for output: not
 * a profile, a device link, abstract or named-colour profile, a space
 * other than RGB and CMYK, or no transform from sRGB to it. */
static int icc_colorants(const void *b, size_t n, const char *what,
                         char *why, size_t whylen) {
  cmsHPROFILE h = cmsOpenProfileFromMemTHR(NULL, b, (cmsUInt32Number)n);
  if (!h) {
    snprintf(why, whylen, "expected an ICC profile, found %s, which lcms "
             "cannot read as one", what);
    return 0;
  }
  cmsProfileClassSignature cls = cmsGetDeviceClass(h);
  cmsColorSpaceSignature cs = cmsGetColorSpace(h);
  int k = 0;
  if (cls == cmsSigLinkClass || cls == cmsSigAbstractClass ||
      cls == cmsSigNamedColorClass)
    snprintf(why, whylen, "expected a device profile, found %s, a device "
             "link, abstract or named-colour profile", what);
  else if (cs != cmsSigRgbData && cs != cmsSigCmykData)
    snprintf(why, whylen, "expected an RGB or CMYK profile, found %s, a "
             "profile of another colour space (grey, Lab, ...)", what);
  else
    k = cs == cmsSigRgbData ? 3 : 4;
  if (k) {
    /* lcms must be able to go there from sRGB */
    cmsHPROFILE s = cmsCreate_sRGBProfileTHR(NULL);
    cmsHTRANSFORM x = s ? cmsCreateTransformTHR(
        NULL, s, TYPE_RGB_8, h, k == 3 ? TYPE_RGB_8 : TYPE_CMYK_8,
        INTENT_RELATIVE_COLORIMETRIC, 0) : NULL;
    if (!x) {
      snprintf(why, whylen, "expected a profile usable for output, found "
               "%s, which lcms cannot convert sRGB to", what);
      k = 0;
    }
    if (x)
      cmsDeleteTransform(x);
    if (s)
      cmsCloseProfile(s);
  }
  cmsCloseProfile(h);
  return k;
}

int fgi_profile_check(const char *value, fgi_format f, char *why,
                      size_t whylen) {
  if (!strcmp(value, "srgb"))
    return 0;
  if (f == FGI_GIF || f == FGI_PNM) {
    snprintf(why, whylen, "expected profile=srgb (a %s file carries no "
             "colour profile), found '%s'", format_name(f), value);
    return -1;
  }
  if (!strcmp(value, "p3") || !strcmp(value, "adobergb") ||
      !strcmp(value, "input"))
    return 0;
  if (!strcmp(value, "cmyk")) {
    if (holds_cmyk(f))
      return 0;
    snprintf(why, whylen, "expected an RGB profile (a %s file holds no "
             "CMYK; JPEG and TIFF do), found 'cmyk'", format_name(f));
    return -1;
  }
  if (!is_file_name(value)) {
    snprintf(why, whylen, "expected %s, found '%s'", FGI_PROFILE_VALUES,
             value);
    return -1;
  }
  size_t n;
  void *b = fgu_read_file(value, MAX_ICC_BYTES, &n);
  if (!b) {
    snprintf(why, whylen, "expected a readable ICC profile file, found "
             "'%s', which is missing, not a regular file, unreadable or "
             "over %zu MiB", value, MAX_ICC_BYTES >> 20);
    return -1;
  }
  char what[300];
  snprintf(what, sizeof what, "'%s'", value);
  int k = icc_colorants(b, n, what, why, whylen);
  free(b);
  if (!k)
    return -1;
  if (k == 4 && !holds_cmyk(f)) {
    snprintf(why, whylen, "expected an RGB profile (a %s file holds no "
             "CMYK; JPEG and TIFF do), found '%s', a CMYK profile",
             format_name(f), value);
    return -1;
  }
  return 0;
}

/* An Adobe RGB (1998) compatible profile (the specification's D65 white,
 * primaries and gamma 563/256) as ICC v2 bytes; NULL without memory. */
static unsigned char *adobergb(size_t *n) {
  cmsCIExyY d65 = {0.3127, 0.3290, 1.0};
  cmsCIExyYTRIPLE prim = {{0.64, 0.33, 1.0}, {0.21, 0.71, 1.0},
                          {0.15, 0.06, 1.0}};
  cmsToneCurve *g = cmsBuildGamma(NULL, 563.0 / 256.0);
  if (!g)
    return NULL;
  cmsToneCurve *trc[3] = {g, g, g};
  cmsHPROFILE h = cmsCreateRGBProfileTHR(NULL, &d65, &prim, trc);
  cmsFreeToneCurve(g);
  if (!h)
    return NULL;
  unsigned char *b = NULL;
  cmsSetProfileVersion(h, 2.1);
  cmsMLU *desc = cmsMLUalloc(NULL, 1), *cprt = cmsMLUalloc(NULL, 1);
  cmsUInt32Number len = 0;
  if (desc && cprt &&
      cmsMLUsetASCII(desc, "en", "US", "Adobe RGB (1998) compatible") &&
      cmsMLUsetASCII(cprt, "en", "US", "No copyright, use freely") &&
      cmsWriteTag(h, cmsSigProfileDescriptionTag, desc) &&
      cmsWriteTag(h, cmsSigCopyrightTag, cprt) &&
      cmsSaveProfileToMem(h, NULL, &len) && (b = malloc(len)) &&
      !cmsSaveProfileToMem(h, b, &len)) {
    free(b);
    b = NULL;
  }
  *n = len;
  if (desc)
    cmsMLUfree(desc);
  if (cprt)
    cmsMLUfree(cprt);
  cmsCloseProfile(h);
  return b;
}

static unsigned char *dup_bytes(const void *p, size_t n) {
  unsigned char *b = malloc(n ? n : 1);
  if (b)
    memcpy(b, p, n);
  return b;
}

/* libvips' built-in profile name as malloc'd bytes, NULL on failure. */
static unsigned char *builtin(const char *name, size_t *n) {
  VipsBlob *blob = NULL;
  if (vips_profile_load(name, &blob, NULL) || !blob) {
    vips_error_clear();
    return NULL;
  }
  const void *p = vips_blob_get(blob, n);
  unsigned char *b = dup_bytes(p, *n);
  vips_area_unref(VIPS_AREA(blob));
  return b;
}

fg_status fgi_profile_resolve(const char *value, const fg_image_meta *meta,
                              fgi_format f, fgi_profile *out,
                              const char *path, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  char why[700];
  if (value[0] && fgi_profile_check(value, f, why, sizeof why))
    return fgu_fail(err, errlen, FG_EINVAL, "%s: option 'profile=%s': %s",
                    path, value, why);
  const char *name = value[0] ? value : "srgb";
  if (!strcmp(name, "input")) {
    const unsigned char *icc = meta ? meta->block[FG_IMAGE_META_ICC] : NULL;
    size_t n = meta ? meta->size[FG_IMAGE_META_ICC] : 0;
    int k = icc ? icc_colorants(icc, n, "the input's", why, sizeof why) : 0;
    if (!k) {
      name = "srgb"; /* untagged or grey: the pixels are sRGB */
    } else if (k == 4 && !holds_cmyk(f)) {
      return fgu_fail(err, errlen, FG_EINVAL, "%s: option 'profile=input': "
                      "expected an RGB profile (a %s file holds no CMYK; "
                      "JPEG and TIFF do), found the input's, a CMYK "
                      "profile", path, format_name(f));
    } else {
      if (!(out->icc = dup_bytes(icc, n)))
        return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory", path);
      out->n = n;
      out->cmyk = k == 4;
      out->convert = !fgi_profile_is_srgb(icc, n);
      return FG_OK;
    }
  }
  if (!strcmp(name, "srgb") || !strcmp(name, "p3") ||
      !strcmp(name, "cmyk")) {
    out->icc = builtin(name, &out->n);
    out->convert = strcmp(name, "srgb") != 0;
    out->cmyk = !strcmp(name, "cmyk");
  } else if (!strcmp(name, "adobergb")) {
    out->icc = adobergb(&out->n);
    out->convert = 1;
  } else {
    /* a file: checked again, it may have changed since */
    out->icc = fgu_read_file(name, MAX_ICC_BYTES, &out->n);
    int k = out->icc ? icc_colorants(out->icc, out->n, name, why,
                                     sizeof why) : 0;
    if (!k) {
      fgi_profile_free(out);
      return fgu_fail(err, errlen, FG_EINVAL, "%s: option 'profile=%s': %s",
                      path, value, out->icc ? why : "cannot be read");
    }
    out->cmyk = k == 4;
    out->convert = 1;
  }
  if (!out->icc)
    return fgu_fail(err, errlen, FG_ENOMEM, "%s: option 'profile=%s': "
                    "cannot load or make the profile", path, name);
  return FG_OK;
}

/* lcms' pixel format: colorants of space, extra (alpha) channels, of the
 * image's sample type. */
static cmsUInt32Number lcms_format(int space, int colorants, int extra,
                                   fg_image_type t) {
  cmsUInt32Number f = COLORSPACE_SH(space) | CHANNELS_SH(colorants) |
                      EXTRA_SH(extra);
  switch (t) {
  case FG_IMAGE_U8: return f | BYTES_SH(1);
  case FG_IMAGE_U16: return f | BYTES_SH(2);
  default: return f | FLOAT_SH(1) | BYTES_SH(4);
  }
}

fg_status fgi_profile_convert(const fg_image *img, const void *srgb,
                              size_t srgb_n, const fgi_profile *p,
                              uint8_t **out, int *out_ch, const char *path,
                              char *err, size_t errlen) {
  *out = NULL;
  int alpha = img->channels == 4, colorants = p->cmyk ? 4 : 3;
  cmsHPROFILE in = cmsOpenProfileFromMemTHR(NULL, srgb,
                                            (cmsUInt32Number)srgb_n);
  cmsHPROFILE to = cmsOpenProfileFromMemTHR(NULL, p->icc,
                                            (cmsUInt32Number)p->n);
  cmsHTRANSFORM x = NULL;
  if (in && to)
    x = cmsCreateTransformTHR(
        NULL, in, lcms_format(PT_RGB, 3, alpha, img->type), to,
        lcms_format(p->cmyk ? PT_CMYK : PT_RGB, colorants, alpha, img->type),
        INTENT_RELATIVE_COLORIMETRIC, alpha ? cmsFLAGS_COPY_ALPHA : 0);
  if (in)
    cmsCloseProfile(in);
  if (to)
    cmsCloseProfile(to);
  if (!x)
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: lcms cannot convert sRGB "
                    "to the output's profile", path);
  size_t ts = fg_image_type_size(img->type);
  size_t w = (size_t)img->width, och = (size_t)(colorants + alpha);
  uint8_t *buf = malloc(w * (size_t)img->height * och * ts);
  if (!buf) {
    cmsDeleteTransform(x);
    return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory converting "
                    "to the output's profile", path);
  }
  size_t in_row = w * (size_t)img->channels * ts, out_row = w * och * ts;
  for (int y = 0; y < img->height; y++)
    cmsDoTransform(x, img->data + (size_t)y * in_row,
                   buf + (size_t)y * out_row, (cmsUInt32Number)w);
  cmsDeleteTransform(x);
  if (p->cmyk && img->type == FG_IMAGE_F32) {
    /* lcms' float CMYK is ink in percent */
    float *s = (float *)buf;
    for (size_t i = 0; i < w * (size_t)img->height * och; i++)
      if (i % och < 4)
        s[i] *= 0.01f;
  }
  *out = buf;
  *out_ch = (int)och;
  return FG_OK;
}

void fgi_profile_free(fgi_profile *p) {
  if (!p)
    return;
  free(p->icc);
  memset(p, 0, sizeof *p);
}
