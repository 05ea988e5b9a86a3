/* io/profile.h - output colour profiles, [profile=...] on a save
 * (io/profile.c, libvips builds).  Internal; prefix fgi_. */
#ifndef FG_IO_PROFILE_H
#define FG_IO_PROFILE_H

#include "fieldgraph/image.h"
#include "io/format.h"

/* What the profile= values may be, for messages. */
#define FGI_PROFILE_VALUES "srgb, p3, adobergb, cmyk, input or the path " \
  "of an ICC profile file (.icc, .icm, or a name with a '/')"

/* Whether value (fg_image_save_options.profile) names a profile that a
 * file of format f can carry: 0, or -1 with why (a phrase: "expected ...,
 * found ...") in why.  A file is read and checked with lcms (an RGB or
 * CMYK profile usable for output); libvips is not needed (nor started). */
int fgi_profile_check(const char *value, fgi_format f, char *why,
                      size_t whylen);

/* A resolved output profile: the ICC bytes to embed and whether the sRGB
 * pixels must be converted to it first. */
typedef struct fgi_profile {
  unsigned char *icc;  /* owned (malloc), NULL for none */
  size_t n;
  int cmyk;            /* a CMYK profile: 4 colour channels out */
  int convert;         /* 0: the pixels are sRGB already */
} fgi_profile;

/* Resolves value for an output of format f whose input's metadata is meta
 * (may be NULL): "" and "srgb" give libvips' sRGB profile unconverted;
 * "input" the ICC block of meta (sRGB when absent, grey or itself sRGB:
 * then unconverted).  libvips must be started.  FG_EINVAL with err
 * naming path, the option and the reason; FG_ENOMEM. */
fg_status fgi_profile_resolve(const char *value, const fg_image_meta *meta,
                              fgi_format f, fgi_profile *out,
                              const char *path, char *err, size_t errlen);

/* img's colour (3 channels, or 4 with alpha; sRGB, described by the ICC
 * bytes srgb) converted to p with lcms, relative colorimetric: *out a new
 * malloc'd buffer of img's type and size with *out_ch channels (3 or 4
 * colour, alpha copied).  FG_EFORMAT/FG_ENOMEM with err naming path. */
fg_status fgi_profile_convert(const fg_image *img, const void *srgb,
                              size_t srgb_n, const fgi_profile *p,
                              uint8_t **out, int *out_ch, const char *path,
                              char *err, size_t errlen);

/* Whether ICC bytes describe sRGB (their description starts "sRGB"). */
int fgi_profile_is_srgb(const unsigned char *p, size_t n);

void fgi_profile_free(fgi_profile *p);

#endif
