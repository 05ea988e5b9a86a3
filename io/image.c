/* io/image.c - fieldgraph image files: PNG and JPEG
 * reading (fg_image_read, format chosen by the file's signature bytes) and
 * writing (fg_image_write, format chosen by the path's extension), on top of
 * libpng and libjpeg(-turbo).
 *
 * Error handling: both libraries report errors by longjmp.  Every function
 * that calls setjmp has one cleanup path; the library state (png/info
 * structs, jpeg cinfo and error manager, message buffers) lives in the
 * caller's frame so it is not "a local changed between setjmp and longjmp",
 * and the only local assigned after setjmp that the cleanup reads (the pixel
 * buffer) is volatile.  Library warnings are never printed; libjpeg warnings
 * that mean corrupt or truncated data are turned into errors.
 *
 * Writing goes through util/fs.h's atomic replacement: a temporary file
 * PATH.tmp-XXXXXX in the same directory, renamed over PATH only when
 * everything was written and unlinked on any failure.  No global writable
 * state: every call is thread safe.
 */
#include "fieldgraph/image.h"
#include "io/image_buf.h"
#include "io/pnm.h"
#include "util/fs.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <png.h>
#include <jpeglib.h>
#include <jerror.h>

/* ---- small helpers ------------------------------------------------------- */

typedef enum format {
  FORMAT_NONE, FORMAT_PNG, FORMAT_JPEG, FORMAT_PNM
} format;

static const unsigned char png_signature[8] = {0x89, 'P',  'N',  'G',
                                               '\r', '\n', 0x1a, '\n'};

static int lower(int c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

/* ASCII case-insensitive string equality (locale independent). */
static int ieq(const char *a, const char *b) {
  while (*a && *b && lower((unsigned char)*a) == lower((unsigned char)*b)) {
    a++;
    b++;
  }
  return *a == '\0' && *b == '\0';
}

static format format_from_extension(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  if (!dot || dot == base)
    return FORMAT_NONE;
  if (ieq(dot, ".png"))
    return FORMAT_PNG;
  if (ieq(dot, ".jpg") || ieq(dot, ".jpeg"))
    return FORMAT_JPEG;
  if (ieq(dot, ".pgm") || ieq(dot, ".ppm") || ieq(dot, ".pnm"))
    return FORMAT_PNM;
  return FORMAT_NONE;
}

/* ---- libpng glue --------------------------------------------------------- */

typedef struct pngio {
  FILE *fp;
  size_t max_chunk;     /* reading: fg_image_load_options.max_chunk_bytes */
  uint64_t pos;         /* reading: offset in the file */
  uint64_t next_chunk;  /* reading: offset of the next chunk header */
  fg_status status;     /* FG_OK until the first error is recorded */
  fg_status default_st; /* status for errors raised inside libpng */
  char msg[256];
} pngio;

static void on_png_error(png_structp png, png_const_charp msg)
    __attribute__((noreturn));
static void on_png_error(png_structp png, png_const_charp msg) {
  pngio *ctx = (pngio *)png_get_error_ptr(png);
  if (ctx->status == FG_OK) {
    ctx->status = ctx->default_st;
    snprintf(ctx->msg, sizeof ctx->msg, "%s",
             msg && *msg ? msg : "libpng error");
  }
  png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg) {}

/* Records an error of our own and unwinds through libpng's error path. */
static void fail_png(png_structp png, pngio *ctx, fg_status status,
                     const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));
static void fail_png(png_structp png, pngio *ctx, fg_status status,
                     const char *fmt, ...) {
  if (ctx->status == FG_OK) {
    ctx->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
    va_end(ap);
  }
  png_error(png, ctx->msg);
}

static void pngio_read(png_structp png, png_bytep buf, size_t len) {
  pngio *ctx = (pngio *)png_get_io_ptr(png);
  if (fread(buf, 1, len, ctx->fp) == len) {
    /* libpng reads each chunk header (length, type) as one 8-byte read and
     * the chunks in order: an ancillary chunk (type's first letter lower
     * case) declaring more than the limit is refused before libpng
     * allocates anything for it (this libpng does not check tEXt's) */
    if (ctx->pos == ctx->next_chunk && len >= 8) {
      uint64_t n = (uint64_t)buf[0] << 24 | (uint64_t)buf[1] << 16 |
                   (uint64_t)buf[2] << 8 | buf[3];
      if ((buf[4] & 0x20) && n > ctx->max_chunk)
        fail_png(png, ctx, FG_EFORMAT,
                 "ancillary chunk %.4s of %llu bytes is over the limit of "
                 "%zu bytes (fg_image_load_options.max_chunk_bytes)",
                 (const char *)buf + 4, (unsigned long long)n,
                 ctx->max_chunk);
      ctx->next_chunk = ctx->pos + 12 + n;
    }
    ctx->pos += len;
    return;
  }
  if (ferror(ctx->fp)) {
    int e = errno;
    char ebuf[128];
    fail_png(png, ctx, FG_EIO, "read error: %s",
             fgu_strerror(e, ebuf, sizeof ebuf));
  }
  fail_png(png, ctx, FG_EFORMAT, "truncated PNG (unexpected end of file)");
}

static void pngio_write(png_structp png, png_bytep buf, size_t len) {
  pngio *ctx = (pngio *)png_get_io_ptr(png);
  if (fwrite(buf, 1, len, ctx->fp) != len) {
    int e = errno;
    char ebuf[128];
    fail_png(png, ctx, FG_EIO, "write error: %s",
             fgu_strerror(e, ebuf, sizeof ebuf));
  }
}

static void pngio_flush(png_structp png) {
  pngio *ctx = (pngio *)png_get_io_ptr(png);
  if (fflush(ctx->fp) != 0) {
    int e = errno;
    char ebuf[128];
    fail_png(png, ctx, FG_EIO, "write error: %s",
             fgu_strerror(e, ebuf, sizeof ebuf));
  }
}

/* Decodes the PNG in ctx->fp, positioned just after the 8 signature bytes,
 * into out (pixels malloc'd), within lim.  On failure out is untouched and
 * err says why. */
static fg_status read_png(pngio *ctx, const char *path,
                          const fg_image_load_options *lim, fg_image *out,
                          char *err, size_t errlen) {
  uint8_t *volatile data = NULL;
  ctx->status = FG_OK;
  ctx->default_st = FG_EFORMAT;
  ctx->msg[0] = '\0';
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, ctx,
                                           on_png_error, on_png_warning);
  if (!png)
    return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory (libpng)",
                    path);
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, NULL, NULL);
    return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory (libpng)",
                    path);
  }
  if (setjmp(png_jmpbuf(png))) {
    free(data);
    png_destroy_read_struct(&png, &info, NULL);
    return fgu_fail(err, errlen,
                    ctx->status != FG_OK ? ctx->status : FG_EFORMAT, "%s: %s",
                    path, ctx->msg[0] ? ctx->msg : "invalid PNG data");
  }

  png_set_read_fn(png, ctx, pngio_read);
  png_set_sig_bytes(png, (int)sizeof png_signature);
  png_set_user_limits(png, FG_IMAGE_MAX_DIM, FG_IMAGE_MAX_DIM);
  /* ancillary chunks: each at most max_chunk bytes (pngio_read refuses a
   * larger declared length before libpng allocates), at most 1000 kept */
  ctx->max_chunk = lim->max_chunk_bytes;
  ctx->pos = ctx->next_chunk = sizeof png_signature;
  png_set_chunk_malloc_max(png, lim->max_chunk_bytes);
  png_set_chunk_cache_max(png, 1000);
  png_read_info(png, info);
  png_uint_32 width, height;
  int depth, color_type;
  png_get_IHDR(png, info, &width, &height, &depth, &color_type, NULL, NULL,
               NULL);
  if ((uint64_t)width * height > lim->max_pixels)
    fail_png(png, ctx, FG_EFORMAT,
             "PNG of %lux%lu pixels is over the limit of %llu pixels "
             "(fg_image_load_options.max_pixels)",
             (unsigned long)width, (unsigned long)height,
             (unsigned long long)lim->max_pixels);

  if (depth == 16) {
#ifdef PNG_READ_SCALE_16_TO_8_SUPPORTED
    png_set_scale_16(png);
#else
    png_set_strip_16(png);
#endif
  }
  if (color_type == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && depth < 8)
    png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS))
    png_set_tRNS_to_alpha(png);
  int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);

  int channels = png_get_channels(png, info);
  size_t bytes;
  if (fgi_image_bytes(width, height, (unsigned long)channels, &bytes) != FG_OK)
    fail_png(png, ctx, FG_EFORMAT,
             "unsupported PNG size %lux%lu with %d channels (at most %dx%d)",
             (unsigned long)width, (unsigned long)height, channels,
             FG_IMAGE_MAX_DIM, FG_IMAGE_MAX_DIM);
  size_t stride = (size_t)width * (size_t)channels;
  if (png_get_bit_depth(png, info) != 8 ||
      png_get_rowbytes(png, info) != stride)
    fail_png(png, ctx, FG_EFORMAT, "unsupported PNG pixel layout");

  /* calloc: interlaced passes fill each row piecewise. */
  data = calloc(bytes, 1);
  if (!data)
    fail_png(png, ctx, FG_ENOMEM, "out of memory (%zu bytes of pixels)",
             bytes);
  for (int pass = 0; pass < passes; pass++)
    for (png_uint_32 y = 0; y < height; y++)
      png_read_row(png, data + (size_t)y * stride, NULL);
  png_read_end(png, NULL);
  png_destroy_read_struct(&png, &info, NULL);

  out->width = (int)width;
  out->height = (int)height;
  out->channels = channels;
  out->data = data;
  return FG_OK;
}

/* Encodes img as PNG into ctx->fp. */
static fg_status write_png(pngio *ctx, const char *path, const fg_image *img,
                           const fg_image_save_options *opt, char *err,
                           size_t errlen) {
  static const int filters[] = {PNG_FILTER_NONE, PNG_FILTER_SUB,
                                PNG_FILTER_UP, PNG_FILTER_AVG,
                                PNG_FILTER_PAETH, PNG_ALL_FILTERS};
  static const int color_types[5] = {0, PNG_COLOR_TYPE_GRAY,
                                     PNG_COLOR_TYPE_GRAY_ALPHA,
                                     PNG_COLOR_TYPE_RGB,
                                     PNG_COLOR_TYPE_RGB_ALPHA};
  size_t stride = (size_t)img->width * (size_t)img->channels;
  ctx->status = FG_OK;
  ctx->default_st = FG_EIO;
  ctx->msg[0] = '\0';
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, ctx,
                                            on_png_error, on_png_warning);
  if (!png)
    return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory (libpng)",
                    path);
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, NULL);
    return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory (libpng)",
                    path);
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return fgu_fail(err, errlen, ctx->status != FG_OK ? ctx->status : FG_EIO,
                    "%s: %s", path,
                    ctx->msg[0] ? ctx->msg : "PNG write failed");
  }

  png_set_write_fn(png, ctx, pngio_write, pngio_flush);
  if (opt) {
    png_set_compression_level(png, opt->png_compression);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filters[opt->png_filter]);
  }
  png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height,
               8, color_types[img->channels], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < img->height; y++)
    png_write_row(png, img->data + (size_t)y * stride);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return FG_OK;
}

/* ---- libjpeg glue -------------------------------------------------------- */

typedef struct jerr_state {
  struct jpeg_error_mgr pub; /* first: libjpeg sees only this */
  jmp_buf jb;
  fg_status status; /* FG_OK until the first error is recorded */
  int sys_errno;    /* errno when the error was raised */
  char msg[JMSG_LENGTH_MAX];
} jerr_state;

typedef struct jdec {
  struct jpeg_decompress_struct cinfo;
  jerr_state jerr;
} jdec;

typedef struct jenc {
  struct jpeg_compress_struct cinfo;
  jerr_state jerr;
} jenc;

static void on_jpeg_error_exit(j_common_ptr cinfo) __attribute__((noreturn));
static void on_jpeg_error_exit(j_common_ptr cinfo) {
  jerr_state *e = (jerr_state *)cinfo->err;
  int sys = errno;
  if (e->status == FG_OK) {
    e->sys_errno = sys;
    switch (cinfo->err->msg_code) {
    case JERR_OUT_OF_MEMORY:
      e->status = FG_ENOMEM;
      break;
    case JERR_FILE_WRITE:
      e->status = FG_EIO;
      break;
    default:
      e->status = FG_EFORMAT;
      break;
    }
    (*cinfo->err->format_message)(cinfo, e->msg);
  }
  longjmp(e->jb, 1);
}

/* Trace messages are ignored; warnings that mean the data is corrupt or
 * truncated (libjpeg would otherwise pad the image with grey) are fatal. */
static void on_jpeg_emit_message(j_common_ptr cinfo, int level) {
  if (level >= 0)
    return;
  switch (cinfo->err->msg_code) {
  case JWRN_JPEG_EOF:
  case JWRN_HIT_MARKER:
  case JWRN_HUFF_BAD_CODE:
  case JWRN_MUST_RESYNC:
  case JWRN_NOT_SEQUENTIAL:
    on_jpeg_error_exit(cinfo);
  default:
    cinfo->err->num_warnings++;
    break;
  }
}

static void on_jpeg_output_message(j_common_ptr cinfo) {}

static void init_jerr(jerr_state *e) {
  jpeg_std_error(&e->pub);
  e->pub.error_exit = on_jpeg_error_exit;
  e->pub.emit_message = on_jpeg_emit_message;
  e->pub.output_message = on_jpeg_output_message;
  e->status = FG_OK;
  e->sys_errno = 0;
  e->msg[0] = '\0';
}

/* Records an error of our own and unwinds to the caller's setjmp. */
static void fail_jpeg(jerr_state *e, fg_status status, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
static void fail_jpeg(jerr_state *e, fg_status status, const char *fmt, ...) {
  if (e->status == FG_OK) {
    e->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
  }
  longjmp(e->jb, 1);
}

/* Bytes libjpeg's coefficient controller allocates for a whole image:
 * what a file with several scans (progressive, or components in separate
 * scans) needs (jdcoefct.c: block rows and columns rounded up to the
 * sampling factors).  Valid after jpeg_read_header. */
static uint64_t jpeg_coef_bytes(const struct jpeg_decompress_struct *ci) {
  if (!ci->progressive_mode && ci->comps_in_scan >= ci->num_components)
    return 0;
  uint64_t bytes = 0;
  for (int c = 0; c < ci->num_components; c++) {
    const jpeg_component_info *cp = &ci->comp_info[c];
    uint64_t h = (uint64_t)cp->h_samp_factor, v = (uint64_t)cp->v_samp_factor;
    uint64_t wb = (cp->width_in_blocks + h - 1) / h * h;
    uint64_t hb = (cp->height_in_blocks + v - 1) / v * v;
    bytes += wb * hb * DCTSIZE2 * sizeof(JCOEF);
  }
  return bytes;
}

/* Decodes the JPEG in fp, positioned at the start of the file, into out
 * (pixels malloc'd), within lim.  d is zeroed by the caller.  On failure
 * out is untouched and err says why. */
static fg_status read_jpeg(jdec *d, FILE *fp, const char *path,
                           const fg_image_load_options *lim, fg_image *out,
                           char *err, size_t errlen) {
  struct jpeg_decompress_struct *ci = &d->cinfo;
  uint8_t *volatile data = NULL;
  init_jerr(&d->jerr);
  ci->err = &d->jerr.pub;
  if (setjmp(d->jerr.jb)) {
    fg_status st = d->jerr.status != FG_OK ? d->jerr.status : FG_EFORMAT;
    free(data);
    jpeg_destroy_decompress(ci);
    if (ferror(fp)) {
      char ebuf[128];
      return fgu_fail(err, errlen, FG_EIO, "%s: read error: %s", path,
                      fgu_strerror(d->jerr.sys_errno, ebuf, sizeof ebuf));
    }
    return fgu_fail(err, errlen, st, "%s: %s", path,
                    d->jerr.msg[0] ? d->jerr.msg : "invalid JPEG data");
  }

  jpeg_create_decompress(ci);
  jpeg_stdio_src(ci, fp);
  jpeg_read_header(ci, TRUE);
  /* the declared size, before libjpeg allocates anything of it */
  if ((uint64_t)ci->image_width * ci->image_height > lim->max_pixels)
    fail_jpeg(&d->jerr, FG_EFORMAT,
              "JPEG of %lux%lu pixels is over the limit of %llu pixels "
              "(fg_image_load_options.max_pixels)",
              (unsigned long)ci->image_width, (unsigned long)ci->image_height,
              (unsigned long long)lim->max_pixels);
  uint64_t budget = lim->max_pixels <= (UINT64_MAX >> 4)
                        ? lim->max_pixels * 8 + ((uint64_t)16 << 20)
                        : UINT64_MAX;
  uint64_t coef = jpeg_coef_bytes(ci);
  if (coef > budget)
    fail_jpeg(&d->jerr, FG_EFORMAT,
              "JPEG of %lux%lu pixels in several scans needs %llu bytes of "
              "coefficients, over the limit of %llu bytes (8 per pixel of "
              "fg_image_load_options.max_pixels, plus 16 MiB)",
              (unsigned long)ci->image_width, (unsigned long)ci->image_height,
              (unsigned long long)coef, (unsigned long long)budget);
  ci->mem->max_memory_to_use = budget > (uint64_t)LONG_MAX ? LONG_MAX
                                                           : (long)budget;
  if (ci->jpeg_color_space == JCS_CMYK || ci->jpeg_color_space == JCS_YCCK)
    fail_jpeg(&d->jerr, FG_EFORMAT, "CMYK JPEG images are not supported");
  int channels;
  if (ci->jpeg_color_space == JCS_GRAYSCALE) {
    ci->out_color_space = JCS_GRAYSCALE;
    channels = 1;
  } else {
    ci->out_color_space = JCS_RGB;
    channels = 3;
  }
  jpeg_start_decompress(ci);
  if (ci->output_components != channels)
    fail_jpeg(&d->jerr, FG_EFORMAT, "unsupported JPEG colour layout");
  size_t bytes;
  if (fgi_image_bytes(ci->output_width, ci->output_height,
                  (unsigned long)channels, &bytes) != FG_OK)
    fail_jpeg(&d->jerr, FG_EFORMAT,
              "unsupported JPEG size %lux%lu (at most %dx%d)",
              (unsigned long)ci->output_width,
              (unsigned long)ci->output_height, FG_IMAGE_MAX_DIM,
              FG_IMAGE_MAX_DIM);
  size_t stride = (size_t)ci->output_width * (size_t)channels;
  data = malloc(bytes);
  if (!data)
    fail_jpeg(&d->jerr, FG_ENOMEM, "out of memory (%zu bytes of pixels)",
              bytes);
  while (ci->output_scanline < ci->output_height) {
    JSAMPROW row = data + (size_t)ci->output_scanline * stride;
    jpeg_read_scanlines(ci, &row, 1);
  }
  jpeg_finish_decompress(ci);

  out->width = (int)ci->output_width;
  out->height = (int)ci->output_height;
  out->channels = channels;
  out->data = data;
  jpeg_destroy_decompress(ci);
  return FG_OK;
}

/* Encodes img as JPEG of the given quality (1..100) into fp.  e is zeroed
 * by the caller. */
static fg_status write_jpeg(jenc *e, FILE *fp, const char *path,
                            const fg_image *img, int quality, char *err,
                            size_t errlen) {
  struct jpeg_compress_struct *ci = &e->cinfo;
  const int out_channels = img->channels >= 3 ? 3 : 1;
  const size_t stride = (size_t)img->width * (size_t)img->channels;
  uint8_t *volatile rowbuf = NULL; /* volatile: read by the cleanup */

  /* 2 and 4 channels: JPEG has no alpha, drop it into a row buffer. */
  if (img->channels != out_channels) {
    rowbuf = malloc((size_t)img->width * (size_t)out_channels);
    if (!rowbuf)
      return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory", path);
  }
  init_jerr(&e->jerr);
  ci->err = &e->jerr.pub;
  if (setjmp(e->jerr.jb)) {
    fg_status st = e->jerr.status != FG_OK ? e->jerr.status : FG_EIO;
    jpeg_destroy_compress(ci);
    free(rowbuf);
    if (st == FG_EIO || ferror(fp)) {
      char ebuf[128];
      return fgu_fail(err, errlen, FG_EIO, "%s: write error: %s", path,
                      e->jerr.sys_errno ? fgu_strerror(e->jerr.sys_errno, ebuf,
                                                       sizeof ebuf)
                                        : e->jerr.msg);
    }
    return fgu_fail(err, errlen, st, "%s: %s", path,
                    e->jerr.msg[0] ? e->jerr.msg : "JPEG write failed");
  }

  jpeg_create_compress(ci);
  jpeg_stdio_dest(ci, fp);
  ci->image_width = (JDIMENSION)img->width;
  ci->image_height = (JDIMENSION)img->height;
  ci->input_components = out_channels;
  ci->in_color_space = out_channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_set_defaults(ci);
  jpeg_set_quality(ci, quality, TRUE);
  if (quality >= 90 && out_channels == 3) {
    /* no chroma subsampling at high quality, as libvips saves JPEG */
    for (int c = 0; c < ci->num_components; c++)
      ci->comp_info[c].h_samp_factor = ci->comp_info[c].v_samp_factor = 1;
  }
  ci->optimize_coding = TRUE;
  jpeg_start_compress(ci, TRUE);
  while (ci->next_scanline < ci->image_height) {
    uint8_t *src = img->data + (size_t)ci->next_scanline * stride;
    JSAMPROW row = src; /* libjpeg only reads it */
    if (rowbuf) {
      uint8_t *dst = rowbuf;
      for (int x = 0; x < img->width; x++)
        for (int c = 0; c < out_channels; c++)
          dst[(size_t)x * out_channels + c] =
              src[(size_t)x * img->channels + c];
      row = dst;
    }
    jpeg_write_scanlines(ci, &row, 1);
  }
  jpeg_finish_compress(ci);
  jpeg_destroy_compress(ci);
  free(rowbuf);
  return FG_OK;
}

/* ---- public API ---------------------------------------------------------- */

static fg_status write_image(const char *path, const fg_image *img,
                             int quality, const fg_image_save_options *png,
                             char *err, size_t errlen);

fg_status fg_image_read(const char *path, fg_image *out, char *err,
                        size_t errlen) {
  return fg_image_load(path, out, NULL, err, errlen);
}

fg_status fg_image_load(const char *path, fg_image *out,
                        const fg_image_load_options *opt, char *err,
                        size_t errlen) {
  fg_image_load_options lim = FG_IMAGE_LOAD_OPTIONS_INIT;
  if (opt && opt->max_pixels)
    lim.max_pixels = opt->max_pixels;
  if (opt && opt->max_chunk_bytes)
    lim.max_chunk_bytes = opt->max_chunk_bytes;
  if (opt && opt->profile[0] &&
      fg_image_space_check(opt->profile, err, errlen) != FG_OK) {
    if (out)
      memset(out, 0, sizeof *out);
    return FG_EINVAL;
  }
  char ebuf[128];
  int fd;
  fg_status ost = fgi_open_input(path, out, &fd, err, errlen);
  if (ost != FG_OK)
    return ost;
  FILE *fp = fdopen(fd, "rb");
  if (!fp) {
    int e = errno;
    close(fd);
    return fgu_fail(err, errlen, FG_EIO, "%s: cannot open: %s", path,
                    fgu_strerror(e, ebuf, sizeof ebuf));
  }
  unsigned char sig[sizeof png_signature];
  size_t n = fread(sig, 1, sizeof sig, fp);
  fg_status st;
  if (n < sizeof sig && ferror(fp)) {
    int e = errno;
    st = fgu_fail(err, errlen, FG_EIO, "%s: cannot read: %s", path,
                  fgu_strerror(e, ebuf, sizeof ebuf));
  } else if (n == sizeof sig && memcmp(sig, png_signature, n) == 0) {
    pngio ctx = {.fp = fp};
    st = read_png(&ctx, path, &lim, out, err, errlen);
  } else if (n >= 3 && sig[0] == 0xff && sig[1] == 0xd8 && sig[2] == 0xff) {
    if (fseek(fp, 0L, SEEK_SET) != 0) {
      int e = errno;
      st = fgu_fail(err, errlen, FG_EIO, "%s: cannot seek: %s", path,
                    fgu_strerror(e, ebuf, sizeof ebuf));
    } else {
      jdec dec;
      memset(&dec, 0, sizeof dec);
      st = read_jpeg(&dec, fp, path, &lim, out, err, errlen);
    }
  } else if (n >= 2 && sig[0] == 'P' && (sig[1] == '5' || sig[1] == '6')) {
    if (fseek(fp, 0L, SEEK_SET) != 0) {
      int e = errno;
      st = fgu_fail(err, errlen, FG_EIO, "%s: cannot seek: %s", path,
                    fgu_strerror(e, ebuf, sizeof ebuf));
    } else {
      st = fgi_read_pnm(fp, path, lim.max_pixels, out, err, errlen);
    }
  } else {
    st = fgu_fail(err, errlen, FG_EFORMAT, "%s: %s", path,
                  n == 0 ? "empty file, not a PNG or JPEG image"
                         : "not a PNG or JPEG image (unrecognised "
                           "signature)");
  }
  fclose(fp);
  if (st != FG_OK)
    memset(out, 0, sizeof *out);
  return st;
}

fg_status fg_image_write(const char *path, const fg_image *img, int quality,
                         char *err, size_t errlen) {
  return write_image(path, img, quality, NULL, err, errlen);
}

fg_status fg_image_save(const char *path, const fg_image *img,
                        const fg_image_save_options *opt, char *err,
                        size_t errlen) {
  fg_image_save_options o = FG_IMAGE_SAVE_OPTIONS_INIT;
  if (opt)
    o = *opt;
  if (o.png_compression < 0 || o.png_compression > 9 ||
      (unsigned)o.png_filter > FG_PNG_FILTER_ALL)
    return fgu_fail(err, errlen, FG_EINVAL, "%s: PNG compression %d or "
                    "filter %d out of range (0..9, fg_png_filter)",
                    path ? path : "(null)", o.png_compression,
                    (int)o.png_filter);
  return write_image(path, img, o.quality, &o, err, errlen);
}

/* fg_image_write and fg_image_save: png NULL keeps libpng's defaults. */
static fg_status write_image(const char *path, const fg_image *img,
                             int quality, const fg_image_save_options *png,
                             char *err, size_t errlen) {
  if (err && errlen)
    err[0] = '\0';
  if (!path)
    return fgu_fail(err, errlen, FG_EINVAL, "fg_image_write: path is NULL");
  if (!img)
    return fgu_fail(err, errlen, FG_EINVAL, "%s: image is NULL", path);
  format fmt = format_from_extension(path);
  if (fmt == FORMAT_NONE)
    return fgu_fail(err, errlen, FG_EINVAL, "%s: unknown file extension "
                    "(expected .png, .jpg, .jpeg, .pgm, .ppm or .pnm)",
                    path);
  if (img->type != FG_IMAGE_U8)
    return fgu_fail(err, errlen, FG_EINVAL, "%s: 16-bit or float samples; "
                    "this build (without libvips) writes 8 bits only",
                    path);
  size_t bytes;
  if (!img->data || img->width <= 0 || img->height <= 0 ||
      img->channels <= 0 ||
      fgi_image_bytes((unsigned long)img->width, (unsigned long)img->height,
                  (unsigned long)img->channels, &bytes) != FG_OK)
    return fgu_fail(err, errlen, FG_EINVAL, "%s: invalid image (%d x %d, %d "
                    "channels, data %s; sizes must be 1..%d, channels 1..4)",
                    path, img->width, img->height, img->channels,
                    img->data ? "set" : "NULL", FG_IMAGE_MAX_DIM);
  if (fmt != FORMAT_PNG && (img->channels == 2 || img->channels == 4)) {
    /* no alpha in JPEG and PNM: flattened against black, as libvips does */
    fg_image flat;
    if (fgi_image_flatten(img, &flat) != FG_OK)
      return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory", path);
    fg_status st = write_image(path, &flat, quality, png, err, errlen);
    free(flat.data);
    return st;
  }
  if (fmt == FORMAT_JPEG) {
    if (quality == 0)
      quality = 90;
    if (quality < 1 || quality > 100)
      return fgu_fail(err, errlen, FG_EINVAL, "%s: JPEG quality %d out of "
                      "range (1..100, 0 means 90)", path, quality);
  }

  char ebuf[128];
  fgu_atomic out;
  int e = fgu_atomic_begin(&out, path, FGU_MODE_DEFAULT);
  if (e != 0)
    return fgu_fail(err, errlen, e == ENOMEM ? FG_ENOMEM : FG_EIO,
                    "%s: cannot create temporary file: %s", path,
                    fgu_strerror(e, ebuf, sizeof ebuf));
  fg_status st;
  if (fmt == FORMAT_PNG) {
    pngio ctx = {.fp = out.fp};
    st = write_png(&ctx, path, img, png, err, errlen);
  } else if (fmt == FORMAT_PNM) {
    st = fgi_write_pnm(out.fp, path, img, err, errlen);
  } else {
    jenc enc;
    memset(&enc, 0, sizeof enc);
    st = write_jpeg(&enc, out.fp, path, img, quality, err, errlen);
  }
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
                    "into place: %s", path,
                    fgu_strerror(e, ebuf, sizeof ebuf));
  return FG_OK;
}
