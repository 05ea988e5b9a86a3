/* fieldgraph/image.h - read and write image files (libfieldgraph-image, a
 * library of its own beside libfieldgraph: the compute library needs none
 * of this).  Built on libvips when configure finds it (--with-vips): PNG,
 * JPEG, PNM, TIFF, WebP, GIF, HEIF/AVIF and JPEG XL as this libvips
 * supports them; else on libpng and libjpeg: PNG, JPEG and PNM, 8 bits.
 *
 * Pixels are interleaved, top row first, of 8 or 16 bits or 32-bit floats
 * per channel (fg_image.type).  Example:
 *
 *   fg_image img;
 *   char err[256];
 *   if (fg_image_read("in.png", &img, err, sizeof err) != FG_OK) {
 *     fprintf(stderr, "%s\n", err);
 *     return 1;
 *   }
 *   img.data[0] = 255;                          (first channel of pixel 0,0)
 *   fg_status st = fg_image_write("out.jpg", &img, 0, err, sizeof err);
 *   fg_image_free(&img);
 *
 * Every call is thread safe: there is no global writable state.
 */
#ifndef FIELDGRAPH_IMAGE_H
#define FIELDGRAPH_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Largest width or height accepted anywhere in this module. */
#define FG_IMAGE_MAX_DIM 65535

/* The element type of an image's samples; 0 (a zeroed struct) is 8 bits. */
typedef enum fg_image_type {
  FG_IMAGE_U8 = 0,  /* 0..255 */
  FG_IMAGE_U16,     /* 0..65535, host byte order */
  FG_IMAGE_F32      /* float, nominally 0..1 */
} fg_image_type;

typedef struct fg_image {
  int width, height;   /* pixels */
  int channels;        /* 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA */
  uint8_t *data;       /* height rows of width*channels samples of type, interleaved, top row first; owned, free with fg_image_free */
  fg_image_type type;  /* sample type (FG_IMAGE_U8 unless set) */
  struct fg_image_meta *meta; /* the file's EXIF, XMP, IPTC and ICC blocks (libvips builds), NULL if none; owned, freed by fg_image_free */
} fg_image;

/* Metadata blocks as libvips holds them (EXIF, the XMP packet, IPTC, and
 * the ICC profile the file had, before its pixels were converted), and
 * the working space the pixels were converted to when not sRGB
 * (fg_image_load_options.profile: an RGB ICC profile; a grey image is in
 * that space's grey); each NULL/0 when absent.  Saving writes
 * EXIF, XMP and IPTC unless [strip]; the ICC block with [profile=input];
 * the working space by default. */
typedef struct fg_image_meta {
  unsigned char *block[5];  /* FG_IMAGE_META_EXIF, _XMP, _IPTC, _ICC, _SPACE */
  size_t size[5];
} fg_image_meta;
enum { FG_IMAGE_META_EXIF, FG_IMAGE_META_XMP, FG_IMAGE_META_IPTC,
       FG_IMAGE_META_ICC, FG_IMAGE_META_SPACE, FG_IMAGE_META_COUNT };

/* Copies src's metadata into dst (replacing dst's), so that saving dst
 * writes it (unless [strip]); FG_ENOMEM leaves dst without any. */
fg_status fg_image_copy_meta(fg_image *dst, const fg_image *src);

/* Bytes of one sample of type t (1, 2 or 4; 0 for an unknown type). */
size_t fg_image_type_size(fg_image_type t);

/* Read an image file (format detected from the file's signature bytes, not its name); with libvips its EXIF, XMP and IPTC blocks are kept in out->meta and fg_image_save writes them again (orientation reset to 1, as the pixels are turned), unless [strip].  With libvips: 8-bit files give FG_IMAGE_U8, 16-bit ones FG_IMAGE_U16, float TIFFs FG_IMAGE_F32; TIFF's first page, GIF's first frame; the EXIF orientation applied (fg_image_load_options.no_autorotate keeps pixels as stored); an embedded ICC profile (Adobe RGB, Display P3, CMYK) converted to sRGB, CMYK without a profile through a generic CMYK profile.  Without libvips: PNG, JPEG and PGM/PPM, 16 bits reduced to 8, CMYK JPEGs refused.  Palettes and low bit depths expanded, tRNS becomes alpha. On failure *out is zeroed and err (if non-NULL, errlen bytes) holds a message naming the path and the reason.
 * FG_EINVAL bad arguments, FG_EIO file cannot be opened or read, FG_EFORMAT not PNG/JPEG, corrupt or truncated data, CMYK, larger than FG_IMAGE_MAX_DIM, or over a limit of FG_IMAGE_LOAD_OPTIONS_INIT (fg_image_load); FG_ENOMEM. */
fg_status fg_image_read(const char *path, fg_image *out, char *err, size_t errlen);

/* Default pixel limit of fg_image_load: 2^28 (16384 x 16384). */
#define FG_IMAGE_MAX_PIXELS ((uint64_t)1 << 28)

/* Limits against decompression bombs: a file declaring more is refused
 * (FG_EFORMAT, the message naming the file and the limit) before anything
 * of that size is allocated.  Start from FG_IMAGE_LOAD_OPTIONS_INIT. */
typedef struct fg_image_load_options {
  /* width x height; 0 means the default.  A decoder's own working memory
   * (libjpeg's coefficient buffers for progressive files) is held to 8
   * bytes per allowed pixel. */
  uint64_t max_pixels;
  /* Largest PNG ancillary chunk (tEXt, zTXt, iTXt, sPLT, iCCP, unknown)
   * read; larger ones are refused.  0 means the default, 8 MiB.  JPEG
   * markers other than the image's own are skipped, never stored. */
  size_t max_chunk_bytes;
  /* nonzero: keep the pixels as stored, ignoring the EXIF orientation */
  int no_autorotate;
  /* The working space (libvips builds): "" or "srgb" converts colour to
   * sRGB; "p3" (Display P3), "adobergb" (Adobe RGB (1998) compatible) or
   * the path of an RGB ICC profile file converts from the file's profile
   * (sRGB when untagged) to it with lcms, relative colorimetric, and
   * records it in meta's FG_IMAGE_META_SPACE, so that fg_image_save tags
   * outputs with it.  Grey images go to the space's grey (sGrey, sRGB's
   * tone curve, for srgb and p3).  fg_image_space_check tells the values. */
  char profile[256];
} fg_image_load_options;
#define FG_IMAGE_LOAD_OPTIONS_INIT {FG_IMAGE_MAX_PIXELS, (size_t)8 << 20, 0, ""}

/* Whether value names a working space this build converts to
 * (fg_image_load_options.profile): FG_OK, or FG_EINVAL with err naming the
 * value and the accepted ones.  A profile file is read and checked. */
fg_status fg_image_space_check(const char *value, char *err, size_t errlen);

/* fg_image_read with limits (opt NULL: FG_IMAGE_LOAD_OPTIONS_INIT). */
fg_status fg_image_load(const char *path, fg_image *out,
                        const fg_image_load_options *opt, char *err,
                        size_t errlen);

/* Write by the path's extension, case-insensitive (fg_image_format_known: .png, .jpg, .jpeg, .pgm, .ppm, .pnm, and with libvips .tif, .tiff, .webp, .gif, .heic, .heif, .avif, .jxl; PGM/PPM: 1 channel P5, else P6); quality is the JPEG quality 1..100 (0 means 90), ignored for PNG. Written to a temporary file in the same directory and renamed, so a failure never leaves a partial or truncated file at path. JPEG and PGM/PPM cannot store 2 or 4 channels: alpha is dropped (documented).
 * FG_EINVAL bad arguments, image or extension; FG_EIO creating, writing or renaming failed; FG_ENOMEM.  A replaced file keeps its permission bits. */
fg_status fg_image_write(const char *path, const fg_image *img, int quality, char *err, size_t errlen);

/* PNG row filters (libpng's): NONE is the fastest to encode; ALL tries
 * every filter on every row (libpng's default: smaller, ~3x slower). */
typedef enum fg_png_filter {
  FG_PNG_FILTER_NONE, FG_PNG_FILTER_SUB, FG_PNG_FILTER_UP,
  FG_PNG_FILTER_AVG, FG_PNG_FILTER_PAETH, FG_PNG_FILTER_ALL
} fg_png_filter;

/* Encoder options for fg_image_save; start from FG_IMAGE_SAVE_OPTIONS_INIT
 * (quality 90, PNG zlib level 6 with filter NONE, as vips' pngsave). */
typedef struct fg_image_save_options {
  int quality;             /* JPEG, WebP, HEIF/AVIF, JPEG XL quality 1..100 */
  int png_compression;     /* zlib level 0 (store) .. 9 (smallest) */
  fg_png_filter png_filter;
  int lossless;            /* WebP, HEIF/AVIF, JPEG XL: lossless */
  int bitdepth;            /* PNG/TIFF/PNM 8 or 16; 0: the image's own */
  int strip;               /* write no metadata */
  int tiff_compression;    /* fg_tiff_compression */
  /* The output's colour profile (libvips builds): "" (the default) or
   * "srgb" tags colour outputs sRGB; "p3" (Display P3), "adobergb" (Adobe
   * RGB (1998) compatible), "cmyk" (libvips' generic CMYK: JPEG and TIFF
   * only) or the path of an ICC profile file converts the sRGB pixels to
   * it (lcms, relative colorimetric, as vips_icc_transform) and embeds it;
   * "input" does so with the input's own profile (meta's ICC block; sRGB
   * when it had none).  The pixels are converted from the working space
   * they are in (meta's FG_IMAGE_META_SPACE, else sRGB), which "" tags.
   * Grey outputs take the profile's grey (sGrey, sRGB's tone curve, for
   * srgb and p3: libvips' sgrey); "cmyk" is refused for them.  Written even
   * with [strip], as is a working space other than sRGB. */
  char profile[256];
} fg_image_save_options;
#define FG_IMAGE_SAVE_OPTIONS_INIT {90, 6, FG_PNG_FILTER_NONE, 0, 0, 0, 0, ""}

/* TIFF compressions ([compression=none|lzw|deflate|jpeg|zstd] on a .tif). */
typedef enum fg_tiff_compression {
  FG_TIFF_NONE, FG_TIFF_LZW, FG_TIFF_DEFLATE, FG_TIFF_JPEG, FG_TIFF_ZSTD
} fg_tiff_compression;

/* Whether this build can write files named like path (by its extension). */
int fg_image_format_known(const char *path);

/* The deepest samples the format named by path's extension stores: 32
 * (float: TIFF), 16 (PNG) or 8; 0 for an unknown extension. */
int fg_image_format_bits(const char *path);

/* Parses an output name with options in brackets, vips' style:
 * "out.webp[Q=80,lossless]", "x.png[compression=1,filter=all,bitdepth=16]",
 * "x.tif[compression=lzw,bitdepth=16]", "[strip]" on any,
 * "x.jpg[profile=p3]" (fg_image_save_options.profile; a profile file is
 * read and checked here) on all but GIF and PNM.  Stores the name's
 * length without the brackets in *name_len and the options in *opt (started
 * from FG_IMAGE_SAVE_OPTIONS_INIT).  An extension this build cannot write
 * (unless it holds a '{' template field) or an option unknown to the format
 * or out of range: FG_EINVAL, err naming it and what was expected. */
fg_status fg_image_save_parse(const char *spec, size_t *name_len,
                              fg_image_save_options *opt, char *err,
                              size_t errlen);

/* fg_image_write with encoder options (opt NULL: the INIT values); the same
 * atomic replacement and errors, FG_EINVAL for options out of range.  On
 * FG_OK err holds a warning when some of img's metadata could not be kept
 * (a JPEG's XMP over 60000 bytes: "large XMP not saved", as libvips),
 * else is empty. */
fg_status fg_image_save(const char *path, const fg_image *img,
                        const fg_image_save_options *opt, char *err,
                        size_t errlen);

/* fg_image_alloc with a sample type. */
fg_status fg_image_alloc_type(fg_image *out, int width, int height,
                              int channels, fg_image_type type);

/* Allocate a zeroed 8-bit image; FG_EINVAL for sizes <= 0 (or > FG_IMAGE_MAX_DIM) or channels outside 1..4 or width*height*channels overflowing.
 * *out is zeroed on any failure; FG_ENOMEM when the allocation fails. */
fg_status fg_image_alloc(fg_image *out, int width, int height, int channels);

/* Release the pixels and zero the struct; NULL or an already freed image is fine. */
void fg_image_free(fg_image *img);

#endif
