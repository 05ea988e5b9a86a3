/* io/profile.c - colour profiles (libvips builds): the profile an output
 * is saved in ([profile=...]), the working space inputs are converted to
 * (fg_image_load_options.profile, input(profile=...) in pipelines) and the
 * grey profiles of grey images.  Names resolve to ICC bytes: libvips'
 * built-in sRGB, Display P3 and CMYK profiles, an Adobe RGB (1998)
 * compatible profile and sGrey (a grey profile of sRGB's tone curve, as
 * libvips 8.14.3's sgrey) made here with lcms, a profile file, or the
 * input's own (kept in fg_image_meta by the reader); the grey of an RGB
 * profile is made from its neutral axis.  The checks before any input
 * runs need only lcms; pixels are converted with lcms directly (relative
 * colorimetric, as vips_icc_transform's default), since libvips 8.14 takes
 * output profiles only by file name and has no grey fallback.  The caller
 * (image_vips.c) embeds the bytes. */
#include "io/profile.h"
#include "util/fs.h"
#include "util/util.h"

#include <lcms2.h>
#include <math.h>
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

static cmsToneCurve *srgb_curve(void);
static cmsHPROFILE grey_profile(cmsToneCurve *c);

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
static int icc_colorants_any(const void *b, size_t n, const char *what,
                             int grey_ok, char *why, size_t whylen) {
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
  else if (cs != cmsSigRgbData && cs != cmsSigCmykData &&
           (cs != cmsSigGrayData || !grey_ok))
    snprintf(why, whylen, "expected an RGB or CMYK profile, found %s, a "
             "profile of another colour space (grey, Lab, ...)", what);
  else
    k = cs == cmsSigRgbData ? 3 : cs == cmsSigCmykData ? 4 : 1;
  if (k) {
    /* lcms must be able to go there from sRGB (from sGrey for grey) */
    cmsHPROFILE s = k == 1 ? grey_profile(srgb_curve())
                           : cmsCreate_sRGBProfileTHR(NULL);
    cmsHTRANSFORM x = s ? cmsCreateTransformTHR(
        NULL, s, k == 1 ? TYPE_GRAY_8 : TYPE_RGB_8, h,
        k == 1 ? TYPE_GRAY_8 : k == 3 ? TYPE_RGB_8 : TYPE_CMYK_8,
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

/* RGB or CMYK profiles only (what [profile=...] and a working space
 * take). */
static int icc_colorants(const void *b, size_t n, const char *what,
                         char *why, size_t whylen) {
  return icc_colorants_any(b, n, what, 0, why, whylen);
}

/* The colour channels of the ICC profile in file value (3 RGB, 4 CMYK,
 * 1 grey), or 0 with why set: unreadable, too big, not a profile. */
static int file_colorants(const char *value, char *why, size_t whylen) {
  size_t n;
  void *b = fgu_read_file(value, MAX_ICC_BYTES, &n);
  if (!b) {
    snprintf(why, whylen, "expected a readable ICC profile file, found "
             "'%s', which is missing, not a regular file, unreadable or "
             "over %zu MiB", value, MAX_ICC_BYTES >> 20);
    return 0;
  }
  char what[300];
  snprintf(what, sizeof what, "'%s'", value);
  int k = icc_colorants(b, n, what, why, whylen);
  free(b);
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
  int k = file_colorants(value, why, whylen);
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

/* h (closed here) as ICC bytes described desc, with a fixed creation date
 * so that the same profile gives the same bytes (outputs do not change
 * from run to run); NULL without memory. */
static unsigned char *profile_bytes(cmsHPROFILE h, const char *desc,
                                    size_t *n) {
  unsigned char *b = NULL;
  cmsMLU *d = cmsMLUalloc(NULL, 1), *cprt = cmsMLUalloc(NULL, 1);
  cmsUInt32Number len = 0;
  if (d && cprt && cmsMLUsetASCII(d, "en", "US", desc) &&
      cmsMLUsetASCII(cprt, "en", "US", "No copyright, use freely") &&
      cmsWriteTag(h, cmsSigProfileDescriptionTag, d) &&
      cmsWriteTag(h, cmsSigCopyrightTag, cprt) &&
      cmsSaveProfileToMem(h, NULL, &len) && len > 128 &&
      (b = malloc(len)) && !cmsSaveProfileToMem(h, b, &len)) {
    free(b);
    b = NULL;
  }
  if (b) {
    /* dateTimeNumber at 24: 2000-01-01 00:00:00 (the ID stays 0) */
    static const unsigned char date[12] = {0x07, 0xd0, 0, 1, 0, 1};
    memcpy(b + 24, date, sizeof date);
  }
  *n = b ? len : 0;
  if (d)
    cmsMLUfree(d);
  if (cprt)
    cmsMLUfree(cprt);
  cmsCloseProfile(h);
  return b;
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
  cmsSetProfileVersion(h, 2.1);
  return profile_bytes(h, "Adobe RGB (1998) compatible", n);
}

/* sRGB's tone curve (IEC 61966-2-1); NULL without memory. */
static cmsToneCurve *srgb_curve(void) {
  const cmsFloat64Number p[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92,
                                 0.04045};
  return cmsBuildParametricToneCurve(NULL, 4, p);
}

/* A grey display profile of tone curve c (freed here), its white the
 * PCS's D50 as libvips' sGrey has (grey maps to the PCS white scaled by
 * the curve); NULL on failure. */
static cmsHPROFILE grey_profile(cmsToneCurve *c) {
  if (!c)
    return NULL;
  cmsHPROFILE h = cmsCreateGrayProfileTHR(NULL, cmsD50_xyY(), c);
  cmsFreeToneCurve(c);
  return h;
}

unsigned char *fgi_profile_sgrey(size_t *n) {
  cmsHPROFILE h = grey_profile(srgb_curve());
  return h ? profile_bytes(h, "sGrey", n) : NULL;
}

/* The curve grey(v) = relative luminance of (v, v, v) in the RGB profile
 * h (closed here), sampled at 4096 points; *srgb set when it is sRGB's
 * curve (within 1/1000), *gamma to a pure power it follows as closely,
 * else 0.  NULL on failure. */
static cmsToneCurve *neutral_axis(cmsHPROFILE h, int *srgb, double *gamma) {
  enum { N = 4096 };
  cmsHPROFILE xyz = cmsCreateXYZProfileTHR(NULL);
  cmsHTRANSFORM x = xyz ? cmsCreateTransformTHR(
      NULL, h, TYPE_RGB_DBL, xyz, TYPE_XYZ_DBL, INTENT_RELATIVE_COLORIMETRIC,
      cmsFLAGS_NOCACHE | cmsFLAGS_NOOPTIMIZE) : NULL;
  cmsCloseProfile(h);
  if (xyz)
    cmsCloseProfile(xyz);
  if (!x)
    return NULL;
  float *y = malloc(N * sizeof *y);
  cmsToneCurve *c = NULL, *s = srgb_curve();
  if (y && s) {
    double rgb[3], out[3], white;
    rgb[0] = rgb[1] = rgb[2] = 1;
    cmsDoTransform(x, rgb, out, 1);
    white = out[1] > 0 ? out[1] : 1;
    double ds = 0, dg = 0;
    for (int i = 0; i < N; i++) {
      rgb[0] = rgb[1] = rgb[2] = (double)i / (N - 1);
      cmsDoTransform(x, rgb, out, 1);
      y[i] = (float)(out[1] / white);
    }
    /* the power through the middle grey: ln y / ln v at v = 1/2 */
    double g = y[N / 2] > 0 ? log(y[N / 2]) / log((double)(N / 2) / (N - 1))
                            : 0;
    for (int i = 0; i < N; i++) {
      double v = (double)i / (N - 1);
      ds = fmax(ds, fabs(y[i] - cmsEvalToneCurveFloat(s, (float)v)));
      dg = fmax(dg, fabs(y[i] - (g > 0 ? pow(v, g) : -1)));
    }
    *srgb = ds < 1e-3;
    *gamma = !*srgb && dg < 1e-3 ? g : 0;
    c = cmsBuildTabulatedToneCurveFloat(NULL, N, y);
  }
  free(y);
  if (s)
    cmsFreeToneCurve(s);
  cmsDeleteTransform(x);
  return c;
}

unsigned char *fgi_profile_grey(const void *rgb, size_t rgb_n, size_t *n) {
  /* sRGB's grey without sampling its neutral axis: every grey output of
   * the default working space asks for it */
  if (fgi_profile_is_srgb(rgb, rgb_n))
    return fgi_profile_sgrey(n);
  cmsHPROFILE h = cmsOpenProfileFromMemTHR(NULL, rgb,
                                           (cmsUInt32Number)rgb_n);
  if (!h || cmsGetColorSpace(h) != cmsSigRgbData) {
    if (h)
      cmsCloseProfile(h);
    return NULL;
  }
  char desc[200] = "";
  cmsGetProfileInfoASCII(h, cmsInfoDescription, "en", "US", desc,
                         sizeof desc);
  int srgb = 0;
  double gamma = 0;
  cmsToneCurve *c = neutral_axis(h, &srgb, &gamma);
  if (!c)
    return NULL;
  if (srgb) {
    cmsFreeToneCurve(c);
    return fgi_profile_sgrey(n);
  }
  if (gamma > 0) {
    cmsFreeToneCurve(c);
    /* a pure power: kept as one, as a grey profile states it */
    c = cmsBuildGamma(NULL, round(gamma * 256) / 256);
  }
  cmsHPROFILE g = grey_profile(c);
  char name[256];
  snprintf(name, sizeof name, "Grey of %s", desc[0] ? desc : "an RGB "
           "profile");
  return g ? profile_bytes(g, name, n) : NULL;
}

int fgi_profile_same(const void *a, size_t an, const void *b, size_t bn) {
  /* the header's date and ID aside, the tags say what a profile is */
  return an == bn && an > 128 &&
         !memcmp((const char *)a + 128, (const char *)b + 128, an - 128) &&
         !memcmp((const char *)a + 12, (const char *)b + 12, 12);
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

/* The ICC bytes (malloc) of a profile named srgb, p3, cmyk or adobergb,
 * or of a file (checked: RGB or CMYK, or grey too when grey_ok); NULL
 * with why.  libvips must be started for the names. */
static unsigned char *load_named(const char *name, int grey_ok, size_t *n,
                                 int *colorants, char *why, size_t whylen) {
  unsigned char *b = NULL;
  *colorants = 3;
  if (!strcmp(name, "srgb") || !strcmp(name, "p3") || !strcmp(name, "cmyk")) {
    b = builtin(name, n);
    *colorants = strcmp(name, "cmyk") ? 3 : 4;
  } else if (!strcmp(name, "adobergb")) {
    b = adobergb(n);
  } else {
    /* a file: checked again, it may have changed since */
    b = fgu_read_file(name, MAX_ICC_BYTES, n);
    if (!b) {
      snprintf(why, whylen, "cannot be read");
      return NULL;
    }
    char what[300];
    snprintf(what, sizeof what, "'%s'", name);
    *colorants = icc_colorants_any(b, *n, what, grey_ok, why, whylen);
    if (!*colorants) {
      free(b);
      return NULL;
    }
    return b;
  }
  if (!b)
    snprintf(why, whylen, "cannot load or make the profile");
  return b;
}

int fgi_space_check(const char *value, char *why, size_t whylen) {
  if (!strcmp(value, "srgb") || !strcmp(value, "p3") ||
      !strcmp(value, "adobergb"))
    return 0;
  if (!is_file_name(value)) {
    snprintf(why, whylen, "expected %s, found '%s'", FGI_SPACE_VALUES,
             value);
    return -1;
  }
  int k = file_colorants(value, why, whylen);
  if (k == 4)
    snprintf(why, whylen, "expected an RGB profile (the pipeline computes "
             "on RGB), found '%s', a CMYK profile", value);
  return k == 3 ? 0 : -1;
}

fg_status fgi_space_resolve(const char *value, unsigned char **icc,
                            size_t *n, const char *path, char *err,
                            size_t errlen) {
  *icc = NULL;
  *n = 0;
  char why[700];
  if (!value[0] || !strcmp(value, "srgb"))
    return FG_OK;
  int k = 0;
  if (fgi_space_check(value, why, sizeof why) ||
      !(*icc = load_named(value, 0, n, &k, why, sizeof why)) || k != 3) {
    free(*icc);
    *icc = NULL;
    return fgu_fail(err, errlen, FG_EINVAL, "%s: working space '%s': %s",
                    path, value, why);
  }
  if (fgi_profile_is_srgb(*icc, *n)) {
    free(*icc); /* sRGB itself: the default */
    *icc = NULL;
    *n = 0;
  }
  return FG_OK;
}

fg_status fgi_profile_resolve(const char *value, const fg_image_meta *meta,
                              fgi_format f, int grey, fgi_profile *out,
                              const char *path, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  char why[700];
  if (value[0] && fgi_profile_check(value, f, why, sizeof why))
    return fgu_fail(err, errlen, FG_EINVAL, "%s: option 'profile=%s': %s",
                    path, value, why);
  const unsigned char *space = meta ? meta->block[FG_IMAGE_META_SPACE]
                                    : NULL;
  size_t space_n = meta ? meta->size[FG_IMAGE_META_SPACE] : 0;
  const char *name = value[0] ? value : "srgb";
  int k = 0;
  if (!strcmp(name, "input")) {
    /* the input's own, if the output's colours fit it: else sRGB */
    const unsigned char *icc = meta ? meta->block[FG_IMAGE_META_ICC] : NULL;
    size_t n = meta ? meta->size[FG_IMAGE_META_ICC] : 0;
    k = icc ? icc_colorants_any(icc, n, "the input's", grey, why,
                                sizeof why) : 0;
    if (k == 4 && !holds_cmyk(f))
      return fgu_fail(err, errlen, FG_EINVAL, "%s: option 'profile=input': "
                      "expected an RGB profile (a %s file holds no CMYK; "
                      "JPEG and TIFF do), found the input's, a CMYK "
                      "profile", path, format_name(f));
    if (k == 1 && !grey)
      k = 0; /* a grey input's profile, a colour output: sRGB */
    if (k) {
      if (!(out->icc = dup_bytes(icc, n)))
        return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory", path);
      out->n = n;
    } else {
      name = "srgb";
    }
  } else if (!value[0] && space) {
    /* the working space the pixels are in */
    if (!(out->icc = dup_bytes(space, space_n)))
      return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory", path);
    out->n = space_n;
    k = 3;
  }
  if (!out->icc) {
    out->icc = load_named(name, 1, &out->n, &k, why, sizeof why);
    if (!out->icc)
      return fgu_fail(err, errlen, FG_EINVAL, "%s: option 'profile=%s': %s",
                      path, name, why);
  }
  out->cmyk = k == 4;
  if (grey && k == 4) {
    fgi_profile_free(out);
    return fgu_fail(err, errlen, FG_EINVAL, "%s: option 'profile=%s': "
                    "expected an RGB or grey profile for a grey image, "
                    "found a CMYK one", path, value);
  }
  if (!grey && k == 1) {
    fgi_profile_free(out);
    return fgu_fail(err, errlen, FG_EINVAL, "%s: option 'profile=%s': "
                    "expected an RGB profile for a colour image, found a "
                    "grey one", path, value);
  }
  if (grey && k == 3) {
    /* a grey image takes the RGB profile's grey */
    size_t gn = 0;
    unsigned char *g = fgi_profile_grey(out->icc, out->n, &gn);
    fgi_profile_free(out);
    if (!g)
      return fgu_fail(err, errlen, FG_EINVAL, "%s: option 'profile=%s': "
                      "lcms cannot make the grey of this profile", path,
                      name);
    out->icc = g;
    out->n = gn;
  }
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

/* The colorants of an open profile (1, 3, 4) and lcms' space for them. */
static int space_of(cmsHPROFILE h, int *pt) {
  switch (cmsGetColorSpace(h)) {
  case cmsSigGrayData: *pt = PT_GRAY; return 1;
  case cmsSigRgbData: *pt = PT_RGB; return 3;
  case cmsSigCmykData: *pt = PT_CMYK; return 4;
  default: return 0;
  }
}

fg_status fgi_profile_transform(const uint8_t *pix, int w, int h,
                                fg_image_type t, int alpha, const void *from,
                                size_t from_n, const void *to, size_t to_n,
                                uint8_t **out, int *out_ch, const char *path,
                                char *err, size_t errlen) {
  *out = NULL;
  cmsHPROFILE in = cmsOpenProfileFromMemTHR(NULL, from,
                                            (cmsUInt32Number)from_n);
  cmsHPROFILE po = cmsOpenProfileFromMemTHR(NULL, to, (cmsUInt32Number)to_n);
  int pt_in = 0, pt_out = 0;
  int c_in = in ? space_of(in, &pt_in) : 0, c_out = po ? space_of(po, &pt_out)
                                                       : 0;
  cmsHTRANSFORM x = NULL;
  if (c_in && c_out)
    x = cmsCreateTransformTHR(
        NULL, in, lcms_format(pt_in, c_in, alpha, t), po,
        lcms_format(pt_out, c_out, alpha, t), INTENT_RELATIVE_COLORIMETRIC,
        alpha ? cmsFLAGS_COPY_ALPHA : 0);
  if (in)
    cmsCloseProfile(in);
  if (po)
    cmsCloseProfile(po);
  if (!x)
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: lcms cannot convert "
                    "between the colour profiles", path);
  size_t ts = fg_image_type_size(t), n = (size_t)w * (size_t)h;
  size_t ich = (size_t)(c_in + alpha), och = (size_t)(c_out + alpha);
  uint8_t *buf = malloc(n * och * ts);
  float *tmp = NULL;
  if (buf && t == FG_IMAGE_F32 && c_in == 4 &&
      (tmp = malloc(n * ich * sizeof *tmp))) {
    /* lcms' float CMYK is ink in percent */
    for (size_t i = 0; i < n * ich; i++)
      tmp[i] = ((const float *)pix)[i] * (i % ich < 4 ? 100.0f : 1.0f);
    pix = (const uint8_t *)tmp;
  }
  if (!buf || (t == FG_IMAGE_F32 && c_in == 4 && !tmp)) {
    free(buf);
    cmsDeleteTransform(x);
    return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory converting "
                    "colours", path);
  }
  size_t in_row = (size_t)w * ich * ts, out_row = (size_t)w * och * ts;
  for (int y = 0; y < h; y++)
    cmsDoTransform(x, pix + (size_t)y * in_row, buf + (size_t)y * out_row,
                   (cmsUInt32Number)w);
  cmsDeleteTransform(x);
  free(tmp);
  if (c_out == 4 && t == FG_IMAGE_F32) {
    float *s = (float *)buf;
    for (size_t i = 0; i < n * och; i++)
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

int fgi_profile_colorants(const void *icc, size_t n) {
  /* the header and tag table only (no transform is built: this runs on
   * every tagged input); a profile lcms then cannot convert fails the
   * conversion */
  cmsHPROFILE h = cmsOpenProfileFromMemTHR(NULL, icc, (cmsUInt32Number)n);
  if (!h)
    return 0;
  cmsProfileClassSignature cls = cmsGetDeviceClass(h);
  int pt;
  int k = cls == cmsSigLinkClass || cls == cmsSigAbstractClass ||
      cls == cmsSigNamedColorClass ? 0 : space_of(h, &pt);
  cmsCloseProfile(h);
  return k;
}
