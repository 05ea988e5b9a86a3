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

/* What a working space (fg_image_load_options.profile) may be. */
#define FGI_SPACE_VALUES "srgb, p3, adobergb or the path of an RGB ICC " \
  "profile file (.icc, .icm, or a name with a '/')"

/* Whether value names a working space: 0, or -1 with why ("expected ...,
 * found ...").  A file is read and checked with lcms (an RGB profile);
 * libvips is not needed. */
int fgi_space_check(const char *value, char *why, size_t whylen);

/* The ICC bytes (malloc'd, *icc) of the working space value; NULL for
 * sRGB ("", "srgb", or a file describing sRGB).  libvips must be started.
 * FG_EINVAL with err naming path and the value. */
fg_status fgi_space_resolve(const char *value, unsigned char **icc,
                            size_t *n, const char *path, char *err,
                            size_t errlen);

/* A resolved output profile: the ICC bytes to embed. */
typedef struct fgi_profile {
  unsigned char *icc;  /* owned (malloc), NULL for none */
  size_t n;
  int cmyk;            /* a CMYK profile: 4 colour channels out */
} fgi_profile;

/* Resolves value for an output of format f whose input's metadata is meta
 * (may be NULL), for a grey image (grey nonzero: the result is a grey
 * profile, the grey of an RGB one) or a colour one: "" gives the working
 * space the pixels are in (meta's FG_IMAGE_META_SPACE, else libvips'
 * sRGB); "input" the ICC block of meta (sRGB when absent or unfit).
 * libvips must be started.  FG_EINVAL with err naming path, the option and
 * the reason; FG_ENOMEM. */
fg_status fgi_profile_resolve(const char *value, const fg_image_meta *meta,
                              fgi_format f, int grey, fgi_profile *out,
                              const char *path, char *err, size_t errlen);

/* w x h pixels of type t (the profile from's colorants, plus one alpha
 * when alpha) converted to the profile to with lcms, relative
 * colorimetric as vips_icc_transform's default: *out a new malloc'd
 * buffer with *out_ch channels (to's colorants, alpha copied).  Grey, RGB
 * and CMYK profiles.  FG_EFORMAT/FG_ENOMEM with err naming path. */
fg_status fgi_profile_transform(const uint8_t *pix, int w, int h,
                                fg_image_type t, int alpha, const void *from,
                                size_t from_n, const void *to, size_t to_n,
                                uint8_t **out, int *out_ch, const char *path,
                                char *err, size_t errlen);

/* sGrey: a grey profile with sRGB's tone curve and white (libvips' sgrey
 * fallback), as malloc'd ICC bytes; NULL without memory. */
unsigned char *fgi_profile_sgrey(size_t *n);

/* The grey of the RGB profile rgb: a grey profile whose tone curve is the
 * relative luminance of rgb's neutral axis (R = G = B), so that a grey
 * keeps its value between the two; sGrey when that is sRGB's curve, a
 * power curve when it is one.  Malloc'd bytes; NULL when rgb is not an RGB
 * profile lcms can use. */
unsigned char *fgi_profile_grey(const void *rgb, size_t rgb_n, size_t *n);

/* The colour channels of ICC bytes lcms can use for an image: 1 grey, 3
 * RGB, 4 CMYK; 0 for anything else. */
int fgi_profile_colorants(const void *icc, size_t n);

/* Whether two ICC profiles are the same but for their header's date and
 * ID. */
int fgi_profile_same(const void *a, size_t an, const void *b, size_t bn);

/* Whether ICC bytes describe sRGB (their description starts "sRGB"). */
int fgi_profile_is_srgb(const unsigned char *p, size_t n);

void fgi_profile_free(fgi_profile *p);

#endif
