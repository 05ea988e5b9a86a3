/* io/image_vips.c - fieldgraph image files through libvips (the build's
 * image backend when configure finds vips; io/image.c is the libpng +
 * libjpeg one otherwise).
 *
 * Reading: the file is opened once (a regular file only), a PNG's chunk
 * headers are checked against max_chunk_bytes, then libvips sniffs the
 * format from the signature bytes, restricted to the image formats named
 * in allowed_loaders (never ImageMagick, PDF, SVG or matrix loaders on
 * untrusted files); the declared size is checked against max_pixels before
 * any pixel is decoded.  The EXIF orientation is applied (vips_autorot), an
 * embedded ICC profile or CMYK is converted to sRGB (vips_icc_transform),
 * other colour spaces go to sRGB (vips_colourspace); a grey profile on a
 * grey image, and any profile when a working space other than sRGB is
 * asked for, are converted with lcms (io/profile.c) straight to the target
 * (sGrey, the working space or its grey); 8-bit samples give FG_IMAGE_U8,
 * 16-bit FG_IMAGE_U16 and floating-point FG_IMAGE_F32; a float RGB TIFF
 * is linear light to libvips (scRGB): sRGB-encoded on load, linear again
 * when written as float (io/image_buf.h's curves, unclipped).
 *
 * Writing: the image is wrapped (no copy), converted to what the format
 * stores (8 or 16 bits, alpha flattened against black for JPEG and PNM,
 * as libvips saves them), encoded to memory and written with util/fs.h's
 * atomic replacement (a temporary file renamed into place), so a failure never leaves a partial file.
 *
 * libvips is initialised on the first call (pthread_once): in `fieldgraph
 * run` that is inside a worker process, after the fork, never before. */
#include "fieldgraph/image.h"
#include "io/format.h"
#include "io/image_buf.h"
#include "io/pnm.h"
#include "io/profile.h"
#include "util/fs.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vips/vips.h>

/* The largest XMP packet libvips 8.14 writes into a JPEG (APP1 holds
 * 65533 bytes with its namespace header; vips stops at 60000). */
enum { FGI_JPEG_MAX_XMP = 60000 };

static pthread_once_t vips_once = PTHREAD_ONCE_INIT;
static int vips_ok;
static VipsBlob *srgb_profile; /* tagged on colour outputs */
static unsigned char *sgrey_profile; /* on grey ones (sRGB's tone curve) */
static size_t sgrey_n;

static const char *const meta_names[3] = {VIPS_META_EXIF_NAME,
                                          VIPS_META_XMP_NAME,
                                          VIPS_META_IPTC_NAME};

/* libvips' warnings (corrupt data it works around) are not printed: a
 * file that fails is refused with the error instead. */
static void quiet(const gchar *domain, GLogLevelFlags level,
                  const gchar *msg, gpointer user) {}

static void vips_start(void) {
  if (VIPS_INIT("fieldgraph") == 0) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, quiet, NULL);
    /* every call decodes a different file: caching operations would only
     * hold memory and open files */
    vips_cache_set_max(0);
    if (vips_profile_load("srgb", &srgb_profile, NULL))
      vips_error_clear();
    sgrey_profile = fgi_profile_sgrey(&sgrey_n);
    vips_ok = srgb_profile && sgrey_profile;
  }
}

/* libvips' last error message, without its trailing newline, cleared. */
static fg_status vips_fail(char *err, size_t errlen, fg_status st,
                           const char *path, const char *what) {
  char msg[512];
  snprintf(msg, sizeof msg, "%s", vips_error_buffer());
  vips_error_clear();
  size_t n = strlen(msg);
  while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
    msg[--n] = '\0';
  for (char *p = msg; *p; p++)
    if (*p == '\n')
      *p = ';';
  return fgu_fail(err, errlen, st, "%s: %s%s%s", path, what,
                  n ? ": " : "", msg);
}

static fg_status start(const char *path, char *err, size_t errlen) {
  pthread_once(&vips_once, vips_start);
  if (!vips_ok)
    return fgu_fail(err, errlen, FG_EIO, "%s: libvips failed to start",
                    path);
  return FG_OK;
}

/* ---- reading ------------------------------------------------------------- */

static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G',
                                         '\r', '\n', 0x1a, '\n'};

/* Walks a PNG's chunk headers: an ancillary chunk (type's first letter
 * lower case) longer than max is refused before libvips reads it. */
static fg_status png_chunks_ok(int fd, const char *path, size_t max,
                               char *err, size_t errlen) {
  off_t pos = 8;
  unsigned char h[8];
  for (int i = 0; i < 1000000; i++) {
    ssize_t r = pread(fd, h, 8, pos);
    if (r < 8)
      return FG_OK; /* end of file: libvips reports truncation */
    uint64_t n = (uint64_t)h[0] << 24 | (uint64_t)h[1] << 16 |
                 (uint64_t)h[2] << 8 | h[3];
    if ((h[4] & 0x20) && n > max)
      return fgu_fail(err, errlen, FG_EFORMAT, "%s: ancillary chunk %.4s "
                      "of %llu bytes is over the limit of %zu bytes "
                      "(fg_image_load_options.max_chunk_bytes)", path,
                      (const char *)h + 4, (unsigned long long)n, max);
    if (!memcmp(h + 4, "IEND", 4))
      return FG_OK;
    pos += 12 + (off_t)n;
  }
  return FG_OK;
}

/* The loaders used for untrusted files: image formats only. */
static int allowed_loader(const char *name) {
  static const char *ok[] = {"VipsForeignLoadPng", "VipsForeignLoadJpeg",
                             "VipsForeignLoadPpm", "VipsForeignLoadTiff",
                             "VipsForeignLoadWebp", "VipsForeignLoadNsgif",
                             "VipsForeignLoadGif", "VipsForeignLoadHeif",
                             "VipsForeignLoadJxl"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (!strncmp(name, ok[i], strlen(ok[i])))
      return 1;
  return 0;
}

/* Drops a profile blob (a VipsArea, not a GObject), NULL after. */
static void blob_free(VipsBlob **b) {
  if (*b)
    vips_area_unref(VIPS_AREA(*b));
  *b = NULL;
}

/* Replaces *im by t (the result of an operation on it). */
static void take(VipsImage **im, VipsImage *t) {
  g_object_unref(*im);
  *im = t;
}

/* To sRGB (or grey) of 8 or 16 bits or float, at most 4 bands.  icc:
 * ICC_APPLY converts from an embedded profile, ICC_IGNORE leaves one that
 * does not fit the image (a grey profile on RGB: libvips 8.14.2 ignores
 * it too), ICC_DECODE_ONLY only decodes (the caller converts with lcms). */
enum { ICC_APPLY, ICC_IGNORE, ICC_DECODE_ONLY };
static int to_srgb(VipsImage **im, int icc_mode) {
  VipsImage *t;
  VipsInterpretation in = vips_image_get_interpretation(*im);
  int sixteen = (*im)->BandFmt == VIPS_FORMAT_USHORT;
  int cmyk = in == VIPS_INTERPRETATION_CMYK && (*im)->Bands >= 4;
  if ((*im)->Coding != VIPS_CODING_NONE) {
    if (vips_image_decode(*im, &t))
      return -1;
    take(im, t);
  }
  if (icc_mode == ICC_DECODE_ONLY)
    return 0;
  const void *icc = NULL;
  size_t icc_n = 0;
  if (icc_mode == ICC_APPLY &&
      vips_image_get_typeof(*im, VIPS_META_ICC_NAME) &&
      vips_image_get_blob(*im, VIPS_META_ICC_NAME, &icc, &icc_n))
    return -1;
  if (cmyk || (icc && !fgi_profile_is_srgb(icc, icc_n))) {
    /* as vips does: an unusable embedded profile leaves the pixels as they
     * are (untagged means sRGB); CMYK falls back to a generic profile */
    if (!vips_icc_transform(*im, &t, "srgb", "embedded", TRUE,
                            "input_profile", cmyk ? "cmyk" : "srgb",
                            "depth", sixteen ? 16 : 8, NULL)) {
      take(im, t);
      if (vips_image_remove(*im, VIPS_META_ICC_NAME) == FALSE)
        vips_error_clear();
    } else if (cmyk) {
      return -1;
    } else {
      vips_error_clear();
    }
    in = vips_image_get_interpretation(*im);
  }
  int colour = (*im)->Bands >= 3;
  switch (in) {
  case VIPS_INTERPRETATION_sRGB: case VIPS_INTERPRETATION_RGB16:
  case VIPS_INTERPRETATION_B_W: case VIPS_INTERPRETATION_GREY16:
  case VIPS_INTERPRETATION_MULTIBAND:
    break;
  case VIPS_INTERPRETATION_scRGB:
    /* float RGB (a float TIFF): linear light, to sRGB by the caller in
     * float (fgi_linear_to_srgb), unclipped */
    if (vips_band_format_isfloat((*im)->BandFmt))
      break;
    /* fall through */
  default:
    if (vips_colourspace(*im, &t, colour ? (sixteen ?
                           VIPS_INTERPRETATION_RGB16 :
                           VIPS_INTERPRETATION_sRGB) :
                         (sixteen ? VIPS_INTERPRETATION_GREY16 :
                          VIPS_INTERPRETATION_B_W), NULL))
      vips_error_clear(); /* a space vips cannot convert: keep the samples */
    else
      take(im, t);
  }
  return 0;
}

fg_status fg_image_read(const char *path, fg_image *out, char *err,
                        size_t errlen) {
  return fg_image_load(path, out, NULL, err, errlen);
}

/* pix (w x h of type t: colorants k of the profile from, alpha more)
 * converted to the working space (space, NULL for sRGB), or to its grey
 * for a grey image: *out a new buffer of *out_ch channels, or NULL when
 * from is that profile already. */
static fg_status convert_to_space(const void *pix, int w, int h,
                                  fg_image_type t, int alpha,
                                  const void *from, size_t from_n, int k,
                                  const unsigned char *space, size_t space_n,
                                  uint8_t **out, int *out_ch,
                                  const char *path, char *err,
                                  size_t errlen) {
  *out = NULL;
  unsigned char *grey = NULL;
  const void *to;
  size_t to_n = 0;
  if (k == 1 && space) {
    if (!(grey = fgi_profile_grey(space, space_n, &to_n)))
      return fgu_fail(err, errlen, FG_EINVAL, "%s: lcms cannot make the "
                      "grey of the working space", path);
    to = grey;
  } else if (k == 1) {
    to = sgrey_profile;
    to_n = sgrey_n;
  } else if (space) {
    to = space;
    to_n = space_n;
  } else {
    to = vips_blob_get(srgb_profile, &to_n);
  }
  fg_status st = FG_OK;
  if (!fgi_profile_same(from, from_n, to, to_n))
    st = fgi_profile_transform(pix, w, h, t, alpha, from, from_n, to, to_n,
                               out, out_ch, path, err, errlen);
  free(grey);
  return st;
}

static fg_status load(const char *path, fg_image *out,
                      const fg_image_load_options *opt,
                      const unsigned char *space, size_t space_n, char *err,
                      size_t errlen);

fg_status fg_image_load(const char *path, fg_image *out,
                        const fg_image_load_options *opt, char *err,
                        size_t errlen) {
  unsigned char *space = NULL;
  size_t space_n = 0;
  if (opt && opt->profile[0] && strcmp(opt->profile, "srgb")) {
    /* the working space, checked before the file is opened */
    fg_status st = start(path, err, errlen);
    if (st == FG_OK)
      st = fgi_space_resolve(opt->profile, &space, &space_n, path, err,
                             errlen);
    if (st != FG_OK) {
      if (out)
        memset(out, 0, sizeof *out);
      return st;
    }
  }
  fg_status st = load(path, out, opt, space, space_n, err, errlen);
  if (st == FG_OK && space) {
    if (!out->meta && !(out->meta = calloc(1, sizeof *out->meta))) {
      free(space);
      fg_image_free(out);
      return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory", path);
    }
    out->meta->block[FG_IMAGE_META_SPACE] = space;
    out->meta->size[FG_IMAGE_META_SPACE] = space_n;
    space = NULL;
  }
  free(space);
  return st;
}

/* fg_image_load's work, converting to the working space space (its ICC
 * bytes; NULL: sRGB), which the caller owns. */
static fg_status load(const char *path, fg_image *out,
                      const fg_image_load_options *opt,
                      const unsigned char *space, size_t space_n, char *err,
                      size_t errlen) {
  fg_image_load_options lim = FG_IMAGE_LOAD_OPTIONS_INIT;
  if (opt && opt->max_pixels)
    lim.max_pixels = opt->max_pixels;
  if (opt && opt->max_chunk_bytes)
    lim.max_chunk_bytes = opt->max_chunk_bytes;
  if (opt)
    lim.no_autorotate = opt->no_autorotate;
  VipsBlob *cmyk_blob = NULL;
  char ebuf[128];
  int fd;
  fg_status ost = fgi_open_input(path, out, &fd, err, errlen);
  if (ost != FG_OK)
    return ost;
  unsigned char sig[8];
  ssize_t got = pread(fd, sig, sizeof sig, 0);
  fg_status st = FG_OK;
  if (got < 0) {
    int e = errno;
    st = fgu_fail(err, errlen, FG_EIO, "%s: cannot read: %s", path,
                  fgu_strerror(e, ebuf, sizeof ebuf));
  } else if (got == 0) {
    st = fgu_fail(err, errlen, FG_EFORMAT, "%s: empty file, not an image",
                  path);
  } else if (got == 8 && !memcmp(sig, png_sig, 8)) {
    st = png_chunks_ok(fd, path, lim.max_chunk_bytes, err, errlen);
  } else if (got >= 2 && sig[0] == 'P' && sig[1] >= '1' && sig[1] <= '3') {
    /* ASCII PNM through io/pnm.c: libvips 8.14 reads a malformed or
     * truncated one as zeros and packed PBM rows as numbers */
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
      close(fd);
      return fgu_fail(err, errlen, FG_ENOMEM, "%s: cannot read", path);
    }
    st = fgi_read_ascii_pnm(fp, path, lim.max_pixels, out, err, errlen);
    fclose(fp);
    if (st == FG_OK && space) {
      /* untagged: from sRGB (or sGrey) to the working space */
      int grey = out->channels <= 2, ch = 0;
      size_t n = 0;
      const void *from = grey ? sgrey_profile
                              : vips_blob_get(srgb_profile, &n);
      uint8_t *conv = NULL;
      st = convert_to_space(out->data, out->width, out->height, out->type,
                            !(out->channels & 1), from, grey ? sgrey_n : n,
                            grey ? 1 : 3, space, space_n, &conv, &ch, path,
                            err, errlen);
      if (st != FG_OK)
        fg_image_free(out);
      if (conv) {
        free(out->data);
        out->data = conv;
      }
    }
    return st;
  }
  if (st == FG_OK)
    st = start(path, err, errlen);
  if (st != FG_OK) {
    close(fd);
    return st;
  }
  VipsSource *src = vips_source_new_from_descriptor(fd);
  close(fd); /* the source holds its own duplicate */
  if (!src)
    return vips_fail(err, errlen, FG_EIO, path, "cannot read");
  const char *loader = vips_foreign_find_load_source(src);
  if (!loader || !allowed_loader(loader)) {
    vips_error_clear();
    /* a known signature that no loader opens: a broken file of that
     * format (a TIFF cut short fails libtiff's header read, say) */
    unsigned char *head = NULL;
    gint64 avail = vips_source_sniff_at_most(src, &head, 12);
    const char *known =
        avail > 0 && head ? fgi_format_sniff(head, (size_t)avail) : NULL;
    vips_error_clear();
    VIPS_UNREF(src);
    if (known)
      return fgu_fail(err, errlen, FG_EFORMAT, "%s: invalid image data "
                      "(truncated or corrupt): it starts as a %s file, but "
                      "no decoder can open it", path, known);
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: not an image in a format "
                    "this build reads (PNG, JPEG, PNM, TIFF, WebP, GIF, "
                    "HEIF/AVIF, JPEG XL; unrecognised signature)", path);
  }
  VipsImage *im = vips_image_new_from_source(src, "", "fail_on",
                                             VIPS_FAIL_ON_ERROR, NULL);
  VIPS_UNREF(src);
  if (!im)
    return vips_fail(err, errlen, FG_EFORMAT, path, "invalid image");
  uint64_t px = (uint64_t)im->Xsize * (uint64_t)im->Ysize;
  if (im->Xsize > FG_IMAGE_MAX_DIM || im->Ysize > FG_IMAGE_MAX_DIM ||
      px > lim.max_pixels) {
    st = fgu_fail(err, errlen, FG_EFORMAT, "%s: %dx%d pixels is over the "
                  "limit of %llu pixels (fg_image_load_options.max_pixels) "
                  "or of %d per side", path, im->Xsize, im->Ysize,
                  (unsigned long long)lim.max_pixels, FG_IMAGE_MAX_DIM);
    g_object_unref(im);
    return st;
  }
  /* a PGM/PPM's samples are kept as stored (0..maxval): scaled here to
   * the full 8 or 16 bits, as io/pnm.c does, so that maxval is white */
  int pmax = 0, full = im->BandFmt == VIPS_FORMAT_UCHAR ? 255
                       : im->BandFmt == VIPS_FORMAT_USHORT ? 65535 : 0;
  if (full && vips_image_get_typeof(im, "ppm-max-value") &&
      !vips_image_get_int(im, "ppm-max-value", &pmax) && pmax > 0 &&
      pmax != full) {
    VipsImage *s1, *s2;
    if (vips_linear1(im, &s1, (double)full / pmax, 0.5, NULL))
      goto vips_error_early;
    int bad = vips_cast(s1, &s2, im->BandFmt, NULL);
    g_object_unref(s1);
    if (bad)
      goto vips_error_early;
    take(&im, s2);
  }
  vips_error_clear();
  /* the file's own profile, kept for [profile=input] */
  unsigned char *icc0 = NULL;
  size_t icc0_n = 0;
  const void *ib;
  if (vips_image_get_typeof(im, VIPS_META_ICC_NAME) &&
      !vips_image_get_blob(im, VIPS_META_ICC_NAME, &ib, &icc0_n) &&
      icc0_n && (icc0 = malloc(icc0_n)))
    memcpy(icc0, ib, icc0_n);
  else
    icc0_n = 0;
  vips_error_clear();
  VipsImage *t;
  if (!lim.no_autorotate) {
    if (vips_autorot(im, &t, NULL))
      goto vips_error;
    take(&im, t);
  }
  /* Where lcms converts from the file's own profile: a grey one on a grey
   * image (libvips 8.14 would make it RGB), and with a working space
   * other than sRGB an RGB or CMYK one, or untagged CMYK (libvips'
   * generic profile): straight to the working space, so that colours
   * outside sRGB are kept.  Otherwise libvips goes to sRGB (or grey) and,
   * with a working space, lcms from there. */
  const unsigned char *lc_from = NULL;
  size_t lc_n = 0;
  int lc_k = 0;
  VipsInterpretation in0 = vips_image_get_interpretation(im);
  int is_cmyk = in0 == VIPS_INTERPRETATION_CMYK && im->Bands >= 4;
  int know_k = icc0 && (space || im->Bands <= 2 ||
                        !fgi_profile_is_srgb(icc0, icc0_n));
  if (know_k) {
    lc_k = fgi_profile_colorants(icc0, icc0_n);
    if ((lc_k == 1 && im->Bands <= 2) ||
        (space && ((lc_k == 3 && !is_cmyk && im->Bands >= 3) ||
                   (lc_k == 4 && is_cmyk)))) {
      lc_from = icc0;
      lc_n = icc0_n;
    }
  }
  if (!lc_from && space && is_cmyk) {
    if (vips_profile_load("cmyk", &cmyk_blob, NULL))
      goto vips_error;
    lc_from = vips_blob_get(cmyk_blob, &lc_n);
    lc_k = 4;
  }
  /* a profile of other colorants than the image's is ignored (an sRGB
   * one on a colour image is not looked into: it is what the pixels are
   * taken to be anyway) */
  int unfit = know_k && !is_cmyk && (lc_k == 1) != (im->Bands <= 2);
  if (to_srgb(&im, lc_from ? ICC_DECODE_ONLY : unfit ? ICC_IGNORE
                                                     : ICC_APPLY))
    goto vips_cmyk_error;
  /* a float RGB TIFF is linear light (scRGB) to libvips: sRGB-encoded
   * here, as vips_colourspace to sRGB does but in float (an embedded
   * profile lcms converts from describes the samples as they are) */
  int linear = !lc_from && im->Bands >= 3 &&
               vips_band_format_isfloat(im->BandFmt) &&
               vips_image_get_interpretation(im) ==
                   VIPS_INTERPRETATION_scRGB;
  if (!lc_from && space) {
    size_t n = 0;
    lc_from = im->Bands >= 3 ? vips_blob_get(srgb_profile, &n)
                             : sgrey_profile;
    lc_n = im->Bands >= 3 ? n : sgrey_n;
    lc_k = im->Bands >= 3 ? 3 : 1;
  }
  fg_image_type type;
  switch (im->BandFmt) {
  case VIPS_FORMAT_UCHAR: type = FG_IMAGE_U8; break;
  case VIPS_FORMAT_USHORT: type = FG_IMAGE_U16; break;
  case VIPS_FORMAT_CHAR: case VIPS_FORMAT_SHORT:
    type = im->BandFmt == VIPS_FORMAT_CHAR ? FG_IMAGE_U8 : FG_IMAGE_U16;
    break;
  case VIPS_FORMAT_FLOAT: case VIPS_FORMAT_DOUBLE:
    type = FG_IMAGE_F32;
    break;
  case VIPS_FORMAT_INT: case VIPS_FORMAT_UINT:
    /* no scale to read them in: taken as floats in [0, 1] they saturate
     * (212 came out white), taken as stored they depend on the output's
     * depth (as in libvips); refused rather than guessed */
    st = fgu_fail(err, errlen, FG_EFORMAT, "%s: 32-bit %s integer samples; "
                  "expected 8 or 16 bits or floating point (convert it, "
                  "e.g. vips cast IN OUT.tif float, after scaling to "
                  "[0, 1])", path,
                  im->BandFmt == VIPS_FORMAT_INT ? "signed" : "unsigned");
    goto fail;
  default:
    st = fgu_fail(err, errlen, FG_EFORMAT, "%s: complex samples; expected "
                  "8 or 16 bits or floating point", path);
    goto fail;
  }
  VipsBandFormat want = type == FG_IMAGE_U8 ? VIPS_FORMAT_UCHAR
                        : type == FG_IMAGE_U16 ? VIPS_FORMAT_USHORT
                                               : VIPS_FORMAT_FLOAT;
  if (im->BandFmt != want) {
    if (vips_cast(im, &t, want, NULL))
      goto vips_cmyk_error;
    take(&im, t);
  }
  /* the channels the caller gets: the target's colorants, one alpha */
  int alpha = lc_from ? im->Bands - lc_k : 0;
  int bands = lc_from ? (lc_k == 1 ? 1 : 3) + alpha : im->Bands;
  if (bands > 4 || alpha < 0 || alpha > 1) {
    st = fgu_fail(err, errlen, FG_EFORMAT, "%s: %d channels; expected 1 to "
                  "4 (grey, grey+alpha, RGB, RGBA)", path, im->Bands);
    goto fail;
  }
  size_t size = 0;
  void *pix = vips_image_write_to_memory(im, &size);
  if (!pix)
    goto vips_cmyk_error;
  if (linear && size == (size_t)im->Xsize * (size_t)im->Ysize *
                            (size_t)im->Bands * sizeof(float))
    fgi_linear_to_srgb(pix, (size_t)im->Xsize * (size_t)im->Ysize,
                       im->Bands);
  uint8_t *conv = NULL;
  if (lc_from) {
    int ch = 0;
    st = convert_to_space(pix, im->Xsize, im->Ysize, type, alpha, lc_from,
                          lc_n, lc_k, space, space_n, &conv, &ch, path, err,
                          errlen);
    if (st == FG_OK && conv && ch != bands)
      st = fgu_fail(err, errlen, FG_EFORMAT, "%s: %d channels after "
                    "colour conversion, expected %d", path, ch, bands);
    if (st != FG_OK) {
      g_free(pix);
      free(conv);
      goto fail;
    }
    if (conv)
      size = (size_t)im->Xsize * (size_t)im->Ysize * (size_t)bands *
             fg_image_type_size(type);
  }
  blob_free(&cmyk_blob);
  st = fg_image_alloc_type(out, im->Xsize, im->Ysize, bands, type);
  if (st != FG_OK) {
    g_free(pix);
    free(conv);
    free(icc0);
    g_object_unref(im);
    return fgu_fail(err, errlen, st, "%s: out of memory for %d x %d pixels",
                    path, im->Xsize, im->Ysize);
  }
  size_t want_bytes;
  fgi_image_bytes_type(out, &want_bytes);
  if (size != want_bytes) {
    g_free(pix);
    free(conv);
    free(icc0);
    g_object_unref(im);
    fg_image_free(out);
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: decoded %zu bytes, "
                    "expected %zu", path, size, want_bytes);
  }
  memcpy(out->data, conv ? conv : (uint8_t *)pix, size);
  g_free(pix);
  free(conv);
  /* the file's metadata, for the outputs */
  for (int i = 0; i < 3; i++) {
    const void *b;
    size_t bn;
    if (!vips_image_get_typeof(im, meta_names[i]) ||
        vips_image_get_blob(im, meta_names[i], &b, &bn) || !bn)
      continue;
    if (!out->meta && !(out->meta = calloc(1, sizeof *out->meta)))
      break;
    if ((out->meta->block[i] = malloc(bn))) {
      memcpy(out->meta->block[i], b, bn);
      out->meta->size[i] = bn;
    }
  }
  if (icc0 && (out->meta || (out->meta = calloc(1, sizeof *out->meta)))) {
    out->meta->block[FG_IMAGE_META_ICC] = icc0;
    out->meta->size[FG_IMAGE_META_ICC] = icc0_n;
  } else {
    free(icc0);
  }
  vips_error_clear();
  g_object_unref(im);
  return FG_OK;

fail: /* st and err set */
  blob_free(&cmyk_blob);
  free(icc0);
  g_object_unref(im);
  fg_image_free(out);
  return st;

vips_cmyk_error:
  blob_free(&cmyk_blob);
vips_error:
  free(icc0);
vips_error_early:
  g_object_unref(im);
  fg_image_free(out);
  return vips_fail(err, errlen, FG_EFORMAT, path,
                   "invalid image data (truncated or corrupt)");
}

/* ---- writing ------------------------------------------------------------- */

fg_status fg_image_write(const char *path, const fg_image *img, int quality,
                         char *err, size_t errlen) {
  fg_image_save_options o = FG_IMAGE_SAVE_OPTIONS_INIT;
  if (quality != 0)
    o.quality = quality;
  return fg_image_save(path, img, &o, err, errlen);
}

/* The samples of m as 8 bits (from u16 or f32 in [0, 1], rounded and
 * clamped) or 16 bits (from u8 or f32). */
static int to_depth(VipsImage **m, fg_image_type from, int bits) {
  VipsImage *t;
  double scale = 1;
  if (bits == 8)
    scale = from == FG_IMAGE_U16 ? 1 / 257.0
            : from == FG_IMAGE_F32 ? 255 : 1;
  else
    scale = from == FG_IMAGE_U8 ? 257 : from == FG_IMAGE_F32 ? 65535 : 1;
  if (scale == 1)
    return 0;
  if (vips_linear1(*m, &t, scale, 0.5, NULL))
    return -1;
  take(m, t);
  if (vips_cast(*m, &t, bits == 8 ? VIPS_FORMAT_UCHAR : VIPS_FORMAT_USHORT,
                NULL))
    return -1;
  take(m, t);
  return 0;
}

static int encode(VipsImage *m, fgi_format f, const fg_image_save_options *o,
                  void **buf, size_t *len) {
  static const VipsForeignPngFilter filters[] = {
    VIPS_FOREIGN_PNG_FILTER_NONE, VIPS_FOREIGN_PNG_FILTER_SUB,
    VIPS_FOREIGN_PNG_FILTER_UP, VIPS_FOREIGN_PNG_FILTER_AVG,
    VIPS_FOREIGN_PNG_FILTER_PAETH, VIPS_FOREIGN_PNG_FILTER_ALL};
  static const VipsForeignTiffCompression tiffc[] = {
    VIPS_FOREIGN_TIFF_COMPRESSION_NONE, VIPS_FOREIGN_TIFF_COMPRESSION_LZW,
    VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE, VIPS_FOREIGN_TIFF_COMPRESSION_JPEG,
    VIPS_FOREIGN_TIFF_COMPRESSION_ZSTD};
  gboolean strip = o->strip != 0, lossless = o->lossless != 0;
  switch (f) {
  case FGI_PNG:
    return vips_pngsave_buffer(m, buf, len, "compression", o->png_compression,
                               "filter", filters[o->png_filter], "strip",
                               strip, NULL);
  case FGI_JPEG:
    return vips_jpegsave_buffer(m, buf, len, "Q", o->quality, "strip", strip,
                                NULL);
  case FGI_TIFF:
    return vips_tiffsave_buffer(m, buf, len, "compression",
                                tiffc[o->tiff_compression], "Q", o->quality,
                                "strip", strip, NULL);
  case FGI_WEBP:
    return vips_webpsave_buffer(m, buf, len, "Q", o->quality, "lossless",
                                lossless, "strip", strip, NULL);
  case FGI_GIF:
    return vips_gifsave_buffer(m, buf, len, "strip", strip, NULL);
  case FGI_HEIF: case FGI_AVIF:
    return vips_heifsave_buffer(m, buf, len, "Q", o->quality, "lossless",
                                lossless, "compression",
                                f == FGI_AVIF ? VIPS_FOREIGN_HEIF_COMPRESSION_AV1
                                              : VIPS_FOREIGN_HEIF_COMPRESSION_HEVC,
                                "strip", strip, NULL);
  case FGI_JXL:
    return vips_jxlsave_buffer(m, buf, len, "Q", o->quality, "lossless",
                               lossless, "strip", strip, NULL);
  default:
    vips_error("fieldgraph", "no encoder");
    return -1;
  }
}

/* PNM through io/pnm.c (8 bits; alpha dropped), atomically. */
static fg_status save_pnm(const char *path, const fg_image *img, char *err,
                          size_t errlen) {
  char ebuf[128];
  fgu_atomic out;
  int e = fgu_atomic_begin(&out, path, FGU_MODE_DEFAULT);
  if (e != 0)
    return fgu_fail(err, errlen, e == ENOMEM ? FG_ENOMEM : FG_EIO,
                    "%s: cannot create temporary file: %s", path,
                    fgu_strerror(e, ebuf, sizeof ebuf));
  fg_status st = fgi_write_pnm(out.fp, path, img, err, errlen);
  e = fgu_atomic_close(&out);
  if (e != 0 && st == FG_OK)
    st = fgu_fail(err, errlen, FG_EIO, "%s: write error: %s", path,
                  fgu_strerror(e, ebuf, sizeof ebuf));
  if (st != FG_OK) {
    fgu_atomic_abort(&out);
    return st;
  }
  e = fgu_atomic_commit(&out, path);
  if (e != 0)
    return fgu_fail(err, errlen, FG_EIO, "%s: cannot rename temporary file "
                    "into place: %s", path, fgu_strerror(e, ebuf,
                                                         sizeof ebuf));
  return FG_OK;
}

fg_status fg_image_save(const char *path, const fg_image *img,
                        const fg_image_save_options *opt, char *err,
                        size_t errlen) {
  fg_image_save_options o = FG_IMAGE_SAVE_OPTIONS_INIT;
  if (opt)
    o = *opt;
  if (err && errlen)
    err[0] = '\0';
  if (!path)
    return fgu_fail(err, errlen, FG_EINVAL, "fg_image_write: path is NULL");
  if (!img)
    return fgu_fail(err, errlen, FG_EINVAL, "%s: image is NULL", path);
  fgi_format f = fgi_format_of(path);
  if (f == FGI_NONE)
    return fgu_fail(err, errlen, FG_EINVAL, "%s: unknown file extension "
                    "(expected %s)", path, fgi_known_extensions());
  size_t bytes;
  if (!img->data || fgi_image_bytes_type(img, &bytes) != FG_OK)
    return fgu_fail(err, errlen, FG_EINVAL, "%s: invalid image (%d x %d, %d "
                    "channels, type %d, data %s; sizes must be 1..%d, "
                    "channels 1..4)", path, img->width, img->height,
                    img->channels, (int)img->type,
                    img->data ? "set" : "NULL", FG_IMAGE_MAX_DIM);
  int lossy = f == FGI_JPEG || f == FGI_WEBP || f == FGI_HEIF ||
              f == FGI_AVIF || f == FGI_JXL ||
              (f == FGI_TIFF && o.tiff_compression == FG_TIFF_JPEG);
  if (!lossy)
    o.quality = 90; /* ignored */
  if (o.quality < 1 || o.quality > 100 || o.png_compression < 0 ||
      o.png_compression > 9 || (unsigned)o.png_filter > FG_PNG_FILTER_ALL ||
      (o.bitdepth != 0 && o.bitdepth != 8 && o.bitdepth != 16) ||
      o.tiff_compression < 0 || o.tiff_compression > FG_TIFF_ZSTD)
    return fgu_fail(err, errlen, FG_EINVAL, "%s: options out of range "
                    "(quality %d: 1..100, PNG compression %d: 0..9, filter "
                    "%d: fg_png_filter, bitdepth %d: 0, 8 or 16, TIFF "
                    "compression %d: fg_tiff_compression)", path, o.quality,
                    o.png_compression, (int)o.png_filter, o.bitdepth,
                    o.tiff_compression);
  const char *fname;
  int side = fgi_format_max_side(f, &fname);
  if (side && (img->width > side || img->height > side))
    return fgu_fail(err, errlen, FG_EINVAL, "%s: %d x %d pixels; %s holds "
                    "at most %d per side (save it as PNG or TIFF, or "
                    "resize it)", path, img->width, img->height, fname,
                    side);
  /* what the format stores: 16 bits only in PNG and TIFF (asked for, or
   * the image's own), float only in TIFF */
  int bits = 8;
  if (f == FGI_PNG || f == FGI_TIFF)
    bits = o.bitdepth ? o.bitdepth
           : img->type == FG_IMAGE_U16 ? 16
           : (img->type == FG_IMAGE_F32 && f == FGI_TIFF) ? 32 : 8;
  char why[700];
  if (o.profile[0] && fgi_profile_check(o.profile, f, why, sizeof why))
    return fgu_fail(err, errlen, FG_EINVAL, "%s: option 'profile=%s': %s",
                    path, o.profile, why);
  /* the working space the pixels are in (NULL: sRGB) */
  const unsigned char *space = img->meta ? img->meta->block[
                                   FG_IMAGE_META_SPACE] : NULL;
  size_t space_n = img->meta ? img->meta->size[FG_IMAGE_META_SPACE] : 0;
  if ((f == FGI_JPEG || f == FGI_PNM) && (img->channels == 2 ||
                                           img->channels == 4)) {
    /* no alpha in these formats: flattened against black, as libvips
     * saves them (a transparent pixel's hidden colour is not shown) */
    fg_image flat;
    if (fgi_image_flatten(img, &flat) != FG_OK)
      return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory", path);
    fg_status st = fg_image_save(path, &flat, &o, err, errlen);
    free(flat.data);
    return st;
  }
  if (f == FGI_PNM && img->type == FG_IMAGE_U8 && !space)
    return save_pnm(path, img, err, errlen);

  fg_status st = start(path, err, errlen);
  if (st != FG_OK)
    return st;
  /* the output's profile: the working space's (sRGB by default; for grey
   * images its grey, sGrey for sRGB) tagged unless [strip], or the one
   * asked for (written even with [strip], as is a working space other
   * than sRGB), the pixels converted to it; GIF and PNM carry none: sRGB */
  fgi_profile prof = {0};
  const uint8_t *pix = img->data;
  uint8_t *conv = NULL;
  /* WebP and HEIF/AVIF hold grey as RGB: there the grey goes to the RGB
   * profile (lcms makes R = G = B) */
  int ch = img->channels;
  int grey = ch <= 2 && f != FGI_WEBP && f != FGI_HEIF && f != FGI_AVIF;
  const char *value = o.profile;
  if (!value[0] && space && (f == FGI_GIF || f == FGI_PNM))
    value = "srgb";
  if (!o.strip || value[0] || space) {
    st = fgi_profile_resolve(value, img->meta, f, grey, &prof, path, err,
                             errlen);
    unsigned char *from_grey = NULL;
    const void *from = NULL;
    size_t from_n = 0;
    if (st == FG_OK) {
      if (ch <= 2 && space) {
        from = from_grey = fgi_profile_grey(space, space_n, &from_n);
        if (!from)
          st = fgu_fail(err, errlen, FG_EINVAL, "%s: lcms cannot make the "
                        "grey of the working space", path);
      } else if (ch <= 2) {
        from = sgrey_profile;
        from_n = sgrey_n;
      } else if (space) {
        from = space;
        from_n = space_n;
      } else {
        from = vips_blob_get(srgb_profile, &from_n);
      }
    }
    if (st == FG_OK && !fgi_profile_same(from, from_n, prof.icc, prof.n))
      st = fgi_profile_transform(img->data, img->width, img->height,
                                 img->type, !(ch & 1), from, from_n,
                                 prof.icc, prof.n, &conv, &ch, path, err,
                                 errlen);
    free(from_grey);
    if (st != FG_OK) {
      fgi_profile_free(&prof);
      return st;
    }
    if (conv) {
      pix = conv;
      bytes = bytes / (size_t)img->channels * (size_t)ch;
    }
  }
  int alpha = prof.cmyk ? ch == 5 : (ch == 2 || ch == 4);
  /* a float RGB TIFF in sRGB holds linear light (scRGB), as libvips
   * writes and reads one: the sRGB curve undone on a copy, unclipped */
  int linear = bits == 32 && ch >= 3 && !prof.cmyk &&
               (!prof.icc || fgi_profile_is_srgb(prof.icc, prof.n));
  if (linear) {
    if (!conv) {
      conv = malloc(bytes);
      if (!conv) {
        fgi_profile_free(&prof);
        return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory", path);
      }
      memcpy(conv, img->data, bytes);
      pix = conv;
    }
    fgi_srgb_to_linear((float *)conv, (size_t)img->width *
                       (size_t)img->height, ch);
  }
  static const VipsBandFormat fmt[] = {VIPS_FORMAT_UCHAR, VIPS_FORMAT_USHORT,
                                       VIPS_FORMAT_FLOAT};
  VipsImage *m = vips_image_new_from_memory(pix, bytes, img->width,
                                            img->height, ch,
                                            fmt[img->type]);
  if (!m) {
    fgi_profile_free(&prof);
    free(conv);
    return vips_fail(err, errlen, FG_ENOMEM, path, "cannot wrap the pixels");
  }
  VipsImage *t;
  int keep = ch;
  if ((f == FGI_JPEG || f == FGI_PNM) && alpha)
    keep--; /* no alpha in these formats: dropped */
  if (keep != ch) {
    if (vips_extract_band(m, &t, 0, "n", keep, NULL))
      goto fail;
    take(&m, t);
  }
  if (bits != 32 && to_depth(&m, img->type, bits))
    goto fail;
  VipsInterpretation in = prof.cmyk ? VIPS_INTERPRETATION_CMYK
      : linear ? VIPS_INTERPRETATION_scRGB
      : keep >= 3
      ? (bits == 16 ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB)
      : (bits == 16 ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_B_W);
  if (vips_copy(m, &t, "interpretation", in, NULL))
    goto fail;
  take(&m, t);
  size_t xmp_dropped = 0;
  if (!o.strip) {
    /* the input's metadata (orientation 1: the pixels are as meant); a
     * JPEG holds at most FGI_JPEG_MAX_XMP bytes of XMP (libvips drops a
     * larger one with a warning): left out, the caller warned */
    for (int i = 0; img->meta && i < FG_IMAGE_META_ICC; i++)
      if (i == FG_IMAGE_META_XMP && f == FGI_JPEG && img->meta->block[i] &&
          img->meta->size[i] > FGI_JPEG_MAX_XMP)
        xmp_dropped = img->meta->size[i];
      else if (img->meta->block[i])
        vips_image_set_blob_copy(m, meta_names[i], img->meta->block[i],
                                 img->meta->size[i]);
    vips_image_set_int(m, VIPS_META_ORIENTATION, 1);
  }
  if (prof.icc)
    vips_image_set_blob_copy(m, VIPS_META_ICC_NAME, prof.icc, prof.n);
  /* [strip] keeps a profile asked for: the image holds nothing else */
  o.strip = o.strip && !prof.icc;
  fgi_profile_free(&prof);
  if (f == FGI_PNM) {
    /* 8 bits through io/pnm.c, from the converted samples */
    size_t n = 0;
    void *px = vips_image_write_to_memory(m, &n);
    g_object_unref(m);
    free(conv);
    if (!px)
      return vips_fail(err, errlen, FG_ENOMEM, path, "cannot convert");
    fg_image tmp = {.width = img->width, .height = img->height,
                    .channels = keep, .data = px};
    st = save_pnm(path, &tmp, err, errlen);
    g_free(px);
    return st;
  }
  void *buf = NULL;
  size_t len = 0;
  if (encode(m, f, &o, &buf, &len))
    goto fail;
  g_object_unref(m);
  free(conv);
  char ebuf[128];
  int e = fgu_write_file_atomic(path, buf, len, FGU_MODE_DEFAULT);
  g_free(buf);
  if (e != 0)
    return fgu_fail(err, errlen, e == ENOMEM ? FG_ENOMEM : FG_EIO,
                    "%s: cannot write: %s", path,
                    fgu_strerror(e, ebuf, sizeof ebuf));
  if (xmp_dropped && err && errlen)
    snprintf(err, errlen, "%s: large XMP not saved (%zu bytes; JPEG holds "
             "at most %d, as libvips writes it: save as PNG, TIFF or WebP "
             "to keep it)", path, xmp_dropped, FGI_JPEG_MAX_XMP);
  return FG_OK;

fail:
  g_object_unref(m);
  fgi_profile_free(&prof);
  free(conv);
  return vips_fail(err, errlen, FG_EIO, path, "cannot encode");
}
