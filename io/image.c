/* io/image.c - fieldgraph image files: fg_image_alloc/free, PNG and JPEG
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
 * Writing goes to PATH.tmp-XXXXXX (mkstemp, same directory), which is
 * renamed over PATH only when everything was written; it is unlinked on any
 * failure.  No global writable state: every call is thread safe.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "fieldgraph/image.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <png.h>
#include <jpeglib.h>
#include <jerror.h>

#if defined(__GNUC__) || defined(__clang__)
#define FG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define FG_NORETURN __attribute__((noreturn))
#else
#define FG_PRINTF(f, a)
#define FG_NORETURN
#endif

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

enum fg_format { FG_FORMAT_NONE, FG_FORMAT_PNG, FG_FORMAT_JPEG };

static const unsigned char fg_png_signature[8] = {
  0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'
};

FG_PRINTF(3, 4)
static void fg_set_err(char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;

  if (!err || errlen == 0)
    return;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* strerror_r comes in an XSI (int) and a GNU (char *) flavour depending on
 * feature macros the build may set; pick the right use by its return type. */
static inline const char *fg_strerror_xsi(int rc, char *buf, size_t len,
                                          int errnum)
{
  if (rc != 0)
    snprintf(buf, len, "error %d", errnum);
  return buf;
}

static inline const char *fg_strerror_gnu(const char *rc, char *buf,
                                          size_t len, int errnum)
{
  (void)buf;
  (void)len;
  (void)errnum;
  return rc;
}

static const char *fg_strerror(int errnum, char *buf, size_t len)
{
  buf[0] = '\0';
  return _Generic(strerror_r(errnum, buf, len),
                  int: fg_strerror_xsi,
                  default: fg_strerror_gnu)(strerror_r(errnum, buf, len),
                                            buf, len, errnum);
}

/* Bytes of a width x height x channels image, or FG_EINVAL if any size is
 * out of range or the byte count does not fit in size_t. */
static fg_status fg_image_bytes(unsigned long width, unsigned long height,
                                unsigned long channels, size_t *bytes)
{
  size_t row;

  if (width < 1 || height < 1 || width > FG_IMAGE_MAX_DIM ||
      height > FG_IMAGE_MAX_DIM || channels < 1 || channels > 4)
    return FG_EINVAL;
  row = (size_t)width * (size_t)channels;
  if ((size_t)height > SIZE_MAX / row)
    return FG_EINVAL;
  *bytes = row * (size_t)height;
  return FG_OK;
}

static int fg_lower(int c)
{
  return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* ASCII case-insensitive string equality (locale independent). */
static int fg_ieq(const char *a, const char *b)
{
  while (*a && *b && fg_lower((unsigned char)*a) == fg_lower((unsigned char)*b)) {
    a++;
    b++;
  }
  return *a == '\0' && *b == '\0';
}

static enum fg_format fg_format_from_extension(const char *path)
{
  const char *base = strrchr(path, '/');
  const char *dot;

  base = base ? base + 1 : path;
  dot = strrchr(base, '.');
  if (!dot || dot == base)
    return FG_FORMAT_NONE;
  if (fg_ieq(dot, ".png"))
    return FG_FORMAT_PNG;
  if (fg_ieq(dot, ".jpg") || fg_ieq(dot, ".jpeg"))
    return FG_FORMAT_JPEG;
  return FG_FORMAT_NONE;
}

/* Permission bits for a new file at path: those of the file it replaces,
 * else 0666 minus the umask (read from /proc, since umask() cannot be
 * queried without changing it, which would not be thread safe), else the
 * 0600 that mkstemp already gave. */
static mode_t fg_new_file_mode(const char *path)
{
  struct stat st;
  char line[128];
  mode_t mode = 0600;
  FILE *f;

  if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
    return st.st_mode & 0777;
  f = fopen("/proc/self/status", "r");
  if (!f)
    return mode;
  while (fgets(line, sizeof line, f)) {
    unsigned int mask;

    if (sscanf(line, "Umask: %o", &mask) == 1) {
      mode = 0666 & ~(mode_t)mask;
      break;
    }
  }
  fclose(f);
  return mode;
}

/* ------------------------------------------------------------------ */
/* libpng glue                                                         */
/* ------------------------------------------------------------------ */

struct fg_png_ctx {
  FILE *fp;
  fg_status status;       /* FG_OK until the first error is recorded */
  fg_status default_st;   /* status for errors raised inside libpng */
  char msg[256];
};

FG_NORETURN
static void fg_png_error_cb(png_structp png, png_const_charp msg)
{
  struct fg_png_ctx *ctx = (struct fg_png_ctx *)png_get_error_ptr(png);

  if (ctx->status == FG_OK) {
    ctx->status = ctx->default_st;
    snprintf(ctx->msg, sizeof ctx->msg, "%s",
             msg && *msg ? msg : "libpng error");
  }
  png_longjmp(png, 1);
}

static void fg_png_warning_cb(png_structp png, png_const_charp msg)
{
  (void)png;
  (void)msg;
}

/* Record an error of our own and unwind through libpng's error path. */
FG_NORETURN FG_PRINTF(4, 5)
static void fg_png_fail(png_structp png, struct fg_png_ctx *ctx,
                        fg_status status, const char *fmt, ...)
{
  va_list ap;

  if (ctx->status == FG_OK) {
    ctx->status = status;
    va_start(ap, fmt);
    vsnprintf(ctx->msg, sizeof ctx->msg, fmt, ap);
    va_end(ap);
  }
  png_error(png, ctx->msg);
}

static void fg_png_read_cb(png_structp png, png_bytep buf, size_t len)
{
  struct fg_png_ctx *ctx = (struct fg_png_ctx *)png_get_io_ptr(png);
  char ebuf[128];

  if (fread(buf, 1, len, ctx->fp) == len)
    return;
  if (ferror(ctx->fp)) {
    int e = errno;

    fg_png_fail(png, ctx, FG_EIO, "read error: %s",
                fg_strerror(e, ebuf, sizeof ebuf));
  }
  fg_png_fail(png, ctx, FG_EFORMAT, "truncated PNG (unexpected end of file)");
}

static void fg_png_write_cb(png_structp png, png_bytep buf, size_t len)
{
  struct fg_png_ctx *ctx = (struct fg_png_ctx *)png_get_io_ptr(png);
  char ebuf[128];

  if (fwrite(buf, 1, len, ctx->fp) != len) {
    int e = errno;

    fg_png_fail(png, ctx, FG_EIO, "write error: %s",
                fg_strerror(e, ebuf, sizeof ebuf));
  }
}

static void fg_png_flush_cb(png_structp png)
{
  struct fg_png_ctx *ctx = (struct fg_png_ctx *)png_get_io_ptr(png);
  char ebuf[128];

  if (fflush(ctx->fp) != 0) {
    int e = errno;

    fg_png_fail(png, ctx, FG_EIO, "write error: %s",
                fg_strerror(e, ebuf, sizeof ebuf));
  }
}

/* fp is positioned just after the 8 signature bytes. */
static fg_status fg_read_png(struct fg_png_ctx *ctx, const char *path,
                             fg_image *out, char *err, size_t errlen)
{
  png_structp png;
  png_infop info;
  uint8_t *volatile data = NULL;
  png_uint_32 width, height, y;
  int depth, color_type, passes, pass, channels;
  size_t bytes, stride;

  ctx->status = FG_OK;
  ctx->default_st = FG_EFORMAT;
  ctx->msg[0] = '\0';
  png = png_create_read_struct(PNG_LIBPNG_VER_STRING, ctx, fg_png_error_cb,
                               fg_png_warning_cb);
  if (!png) {
    fg_set_err(err, errlen, "%s: out of memory (libpng)", path);
    return FG_ENOMEM;
  }
  info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, NULL, NULL);
    fg_set_err(err, errlen, "%s: out of memory (libpng)", path);
    return FG_ENOMEM;
  }
  if (setjmp(png_jmpbuf(png))) {
    free(data);
    png_destroy_read_struct(&png, &info, NULL);
    fg_set_err(err, errlen, "%s: %s", path,
               ctx->msg[0] ? ctx->msg : "invalid PNG data");
    return ctx->status != FG_OK ? ctx->status : FG_EFORMAT;
  }

  png_set_read_fn(png, ctx, fg_png_read_cb);
  png_set_sig_bytes(png, (int)sizeof fg_png_signature);
  png_set_user_limits(png, FG_IMAGE_MAX_DIM, FG_IMAGE_MAX_DIM);
  png_read_info(png, info);
  png_get_IHDR(png, info, &width, &height, &depth, &color_type, NULL, NULL,
               NULL);

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
  passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);

  channels = png_get_channels(png, info);
  if (fg_image_bytes(width, height, (unsigned long)channels, &bytes) != FG_OK)
    fg_png_fail(png, ctx, FG_EFORMAT,
                "unsupported PNG size %lux%lu with %d channels (at most %dx%d)",
                (unsigned long)width, (unsigned long)height, channels,
                FG_IMAGE_MAX_DIM, FG_IMAGE_MAX_DIM);
  stride = (size_t)width * (size_t)channels;
  if (png_get_bit_depth(png, info) != 8 || png_get_rowbytes(png, info) != stride)
    fg_png_fail(png, ctx, FG_EFORMAT, "unsupported PNG pixel layout");

  /* calloc: interlaced passes fill each row piecewise. */
  data = calloc(bytes, 1);
  if (!data)
    fg_png_fail(png, ctx, FG_ENOMEM, "out of memory (%zu bytes of pixels)",
                bytes);
  for (pass = 0; pass < passes; pass++)
    for (y = 0; y < height; y++)
      png_read_row(png, data + (size_t)y * stride, NULL);
  png_read_end(png, NULL);
  png_destroy_read_struct(&png, &info, NULL);

  out->width = (int)width;
  out->height = (int)height;
  out->channels = channels;
  out->data = data;
  return FG_OK;
}

static fg_status fg_write_png(struct fg_png_ctx *ctx, const char *path,
                              const fg_image *img, char *err, size_t errlen)
{
  static const int color_types[5] = {
    0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
    PNG_COLOR_TYPE_RGB_ALPHA
  };
  png_structp png;
  png_infop info;
  size_t stride = (size_t)img->width * (size_t)img->channels;
  int y;

  ctx->status = FG_OK;
  ctx->default_st = FG_EIO;
  ctx->msg[0] = '\0';
  png = png_create_write_struct(PNG_LIBPNG_VER_STRING, ctx, fg_png_error_cb,
                                fg_png_warning_cb);
  if (!png) {
    fg_set_err(err, errlen, "%s: out of memory (libpng)", path);
    return FG_ENOMEM;
  }
  info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, NULL);
    fg_set_err(err, errlen, "%s: out of memory (libpng)", path);
    return FG_ENOMEM;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    fg_set_err(err, errlen, "%s: %s", path,
               ctx->msg[0] ? ctx->msg : "PNG write failed");
    return ctx->status != FG_OK ? ctx->status : FG_EIO;
  }

  png_set_write_fn(png, ctx, fg_png_write_cb, fg_png_flush_cb);
  png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height,
               8, color_types[img->channels], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (y = 0; y < img->height; y++)
    png_write_row(png, img->data + (size_t)y * stride);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return FG_OK;
}

/* ------------------------------------------------------------------ */
/* libjpeg glue                                                        */
/* ------------------------------------------------------------------ */

struct fg_jpeg_err {
  struct jpeg_error_mgr pub;   /* first: libjpeg sees only this */
  jmp_buf jb;
  fg_status status;            /* FG_OK until the first error is recorded */
  int sys_errno;               /* errno when the error was raised */
  char msg[JMSG_LENGTH_MAX];
};

struct fg_jpeg_dec {
  struct jpeg_decompress_struct cinfo;
  struct fg_jpeg_err jerr;
};

struct fg_jpeg_enc {
  struct jpeg_compress_struct cinfo;
  struct fg_jpeg_err jerr;
};

FG_NORETURN
static void fg_jpeg_error_exit(j_common_ptr cinfo)
{
  struct fg_jpeg_err *e = (struct fg_jpeg_err *)cinfo->err;
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
static void fg_jpeg_emit_message(j_common_ptr cinfo, int level)
{
  if (level >= 0)
    return;
  switch (cinfo->err->msg_code) {
  case JWRN_JPEG_EOF:
  case JWRN_HIT_MARKER:
  case JWRN_HUFF_BAD_CODE:
  case JWRN_MUST_RESYNC:
  case JWRN_NOT_SEQUENTIAL:
    fg_jpeg_error_exit(cinfo);
  default:
    cinfo->err->num_warnings++;
    break;
  }
}

static void fg_jpeg_output_message(j_common_ptr cinfo)
{
  (void)cinfo;
}

static void fg_jpeg_init_err(struct fg_jpeg_err *e)
{
  jpeg_std_error(&e->pub);
  e->pub.error_exit = fg_jpeg_error_exit;
  e->pub.emit_message = fg_jpeg_emit_message;
  e->pub.output_message = fg_jpeg_output_message;
  e->status = FG_OK;
  e->sys_errno = 0;
  e->msg[0] = '\0';
}

FG_NORETURN FG_PRINTF(3, 4)
static void fg_jpeg_fail(struct fg_jpeg_err *e, fg_status status,
                         const char *fmt, ...)
{
  va_list ap;

  if (e->status == FG_OK) {
    e->status = status;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
  }
  longjmp(e->jb, 1);
}

/* d is zeroed by the caller; fp is positioned at the start of the file. */
static fg_status fg_read_jpeg(struct fg_jpeg_dec *d, FILE *fp,
                              const char *path, fg_image *out, char *err,
                              size_t errlen)
{
  struct jpeg_decompress_struct *ci = &d->cinfo;
  uint8_t *volatile data = NULL;
  size_t bytes, stride;
  int channels;

  fg_jpeg_init_err(&d->jerr);
  ci->err = &d->jerr.pub;
  if (setjmp(d->jerr.jb)) {
    fg_status st = d->jerr.status != FG_OK ? d->jerr.status : FG_EFORMAT;
    char ebuf[128];

    free(data);
    jpeg_destroy_decompress(ci);
    if (ferror(fp)) {
      fg_set_err(err, errlen, "%s: read error: %s", path,
                 fg_strerror(d->jerr.sys_errno, ebuf, sizeof ebuf));
      return FG_EIO;
    }
    fg_set_err(err, errlen, "%s: %s", path,
               d->jerr.msg[0] ? d->jerr.msg : "invalid JPEG data");
    return st;
  }

  jpeg_create_decompress(ci);
  jpeg_stdio_src(ci, fp);
  jpeg_read_header(ci, TRUE);
  if (ci->jpeg_color_space == JCS_CMYK || ci->jpeg_color_space == JCS_YCCK)
    fg_jpeg_fail(&d->jerr, FG_EFORMAT, "CMYK JPEG images are not supported");
  if (ci->jpeg_color_space == JCS_GRAYSCALE) {
    ci->out_color_space = JCS_GRAYSCALE;
    channels = 1;
  } else {
    ci->out_color_space = JCS_RGB;
    channels = 3;
  }
  jpeg_start_decompress(ci);
  if (ci->output_components != channels)
    fg_jpeg_fail(&d->jerr, FG_EFORMAT, "unsupported JPEG colour layout");
  if (fg_image_bytes(ci->output_width, ci->output_height,
                     (unsigned long)channels, &bytes) != FG_OK)
    fg_jpeg_fail(&d->jerr, FG_EFORMAT,
                 "unsupported JPEG size %lux%lu (at most %dx%d)",
                 (unsigned long)ci->output_width,
                 (unsigned long)ci->output_height, FG_IMAGE_MAX_DIM,
                 FG_IMAGE_MAX_DIM);
  stride = (size_t)ci->output_width * (size_t)channels;
  data = malloc(bytes);
  if (!data)
    fg_jpeg_fail(&d->jerr, FG_ENOMEM, "out of memory (%zu bytes of pixels)",
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

/* e is zeroed by the caller. */
static fg_status fg_write_jpeg(struct fg_jpeg_enc *e, FILE *fp,
                               const char *path, const fg_image *img,
                               int quality, char *err, size_t errlen)
{
  struct jpeg_compress_struct *ci = &e->cinfo;
  const int out_channels = img->channels >= 3 ? 3 : 1;
  const size_t stride = (size_t)img->width * (size_t)img->channels;
  uint8_t *volatile rowbuf = NULL; /* volatile: read by the cleanup */

  /* 2 and 4 channels: JPEG has no alpha, drop it into a row buffer. */
  if (img->channels != out_channels) {
    rowbuf = malloc((size_t)img->width * (size_t)out_channels);
    if (!rowbuf) {
      fg_set_err(err, errlen, "%s: out of memory", path);
      return FG_ENOMEM;
    }
  }
  fg_jpeg_init_err(&e->jerr);
  ci->err = &e->jerr.pub;
  if (setjmp(e->jerr.jb)) {
    fg_status st = e->jerr.status != FG_OK ? e->jerr.status : FG_EIO;
    char ebuf[128];

    jpeg_destroy_compress(ci);
    free(rowbuf);
    if (st == FG_EIO || ferror(fp)) {
      fg_set_err(err, errlen, "%s: write error: %s", path,
                 e->jerr.sys_errno
                     ? fg_strerror(e->jerr.sys_errno, ebuf, sizeof ebuf)
                     : e->jerr.msg);
      return FG_EIO;
    }
    fg_set_err(err, errlen, "%s: %s", path,
               e->jerr.msg[0] ? e->jerr.msg : "JPEG write failed");
    return st;
  }

  jpeg_create_compress(ci);
  jpeg_stdio_dest(ci, fp);
  ci->image_width = (JDIMENSION)img->width;
  ci->image_height = (JDIMENSION)img->height;
  ci->input_components = out_channels;
  ci->in_color_space = out_channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_set_defaults(ci);
  jpeg_set_quality(ci, quality, TRUE);
  ci->optimize_coding = TRUE;
  jpeg_start_compress(ci, TRUE);
  while (ci->next_scanline < ci->image_height) {
    uint8_t *src = img->data + (size_t)ci->next_scanline * stride;
    JSAMPROW row;

    if (rowbuf) {
      uint8_t *dst = rowbuf;
      int x, c;

      for (x = 0; x < img->width; x++)
        for (c = 0; c < out_channels; c++)
          dst[(size_t)x * out_channels + c] =
              src[(size_t)x * img->channels + c];
      row = dst;
    } else {
      row = src; /* libjpeg only reads it */
    }
    jpeg_write_scanlines(ci, &row, 1);
  }
  jpeg_finish_compress(ci);
  jpeg_destroy_compress(ci);
  free(rowbuf);
  return FG_OK;
}

/* ------------------------------------------------------------------ */
/* Public API                                                          */
/* ------------------------------------------------------------------ */

fg_status fg_image_alloc(fg_image *out, int width, int height, int channels)
{
  size_t bytes;
  uint8_t *data;

  if (!out)
    return FG_EINVAL;
  memset(out, 0, sizeof *out);
  if (width <= 0 || height <= 0 || channels <= 0 ||
      fg_image_bytes((unsigned long)width, (unsigned long)height,
                     (unsigned long)channels, &bytes) != FG_OK)
    return FG_EINVAL;
  data = calloc(bytes, 1);
  if (!data)
    return FG_ENOMEM;
  out->width = width;
  out->height = height;
  out->channels = channels;
  out->data = data;
  return FG_OK;
}

void fg_image_free(fg_image *img)
{
  if (!img)
    return;
  free(img->data);
  memset(img, 0, sizeof *img);
}

fg_status fg_image_read(const char *path, fg_image *out, char *err,
                        size_t errlen)
{
  unsigned char sig[sizeof fg_png_signature];
  char ebuf[128];
  size_t n;
  FILE *fp;
  fg_status st;

  if (err && errlen)
    err[0] = '\0';
  if (out)
    memset(out, 0, sizeof *out);
  if (!path || !out) {
    fg_set_err(err, errlen, "fg_image_read: %s is NULL",
               !path ? "path" : "out");
    return FG_EINVAL;
  }
  if (!*path) {
    fg_set_err(err, errlen, "fg_image_read: empty path");
    return FG_EINVAL;
  }

  fp = fopen(path, "rb");
  if (!fp) {
    int e = errno;

    fg_set_err(err, errlen, "%s: cannot open: %s", path,
               fg_strerror(e, ebuf, sizeof ebuf));
    return FG_EIO;
  }
  n = fread(sig, 1, sizeof sig, fp);
  if (n < sizeof sig && ferror(fp)) {
    int e = errno;

    fg_set_err(err, errlen, "%s: cannot read: %s", path,
               fg_strerror(e, ebuf, sizeof ebuf));
    st = FG_EIO;
  } else if (n == sizeof sig && memcmp(sig, fg_png_signature, n) == 0) {
    struct fg_png_ctx ctx;

    memset(&ctx, 0, sizeof ctx);
    ctx.fp = fp;
    st = fg_read_png(&ctx, path, out, err, errlen);
  } else if (n >= 3 && sig[0] == 0xff && sig[1] == 0xd8 && sig[2] == 0xff) {
    if (fseek(fp, 0L, SEEK_SET) != 0) {
      int e = errno;

      fg_set_err(err, errlen, "%s: cannot seek: %s", path,
                 fg_strerror(e, ebuf, sizeof ebuf));
      st = FG_EIO;
    } else {
      struct fg_jpeg_dec dec;

      memset(&dec, 0, sizeof dec);
      st = fg_read_jpeg(&dec, fp, path, out, err, errlen);
    }
  } else {
    fg_set_err(err, errlen, "%s: %s", path,
               n == 0 ? "empty file, not a PNG or JPEG image"
                      : "not a PNG or JPEG image (unrecognised signature)");
    st = FG_EFORMAT;
  }
  fclose(fp);
  if (st != FG_OK)
    memset(out, 0, sizeof *out);
  return st;
}

fg_status fg_image_write(const char *path, const fg_image *img, int quality,
                         char *err, size_t errlen)
{
  static const char suffix[] = ".tmp-XXXXXX";
  enum fg_format format;
  char ebuf[128];
  char *tmp;
  size_t len, bytes;
  int fd;
  FILE *fp;
  fg_status st;

  if (err && errlen)
    err[0] = '\0';
  if (!path) {
    fg_set_err(err, errlen, "fg_image_write: path is NULL");
    return FG_EINVAL;
  }
  if (!img) {
    fg_set_err(err, errlen, "%s: image is NULL", path);
    return FG_EINVAL;
  }
  format = fg_format_from_extension(path);
  if (format == FG_FORMAT_NONE) {
    fg_set_err(err, errlen,
               "%s: unknown file extension (expected .png, .jpg or .jpeg)",
               path);
    return FG_EINVAL;
  }
  if (!img->data || img->width <= 0 || img->height <= 0 ||
      img->channels <= 0 ||
      fg_image_bytes((unsigned long)img->width, (unsigned long)img->height,
                     (unsigned long)img->channels, &bytes) != FG_OK) {
    fg_set_err(err, errlen,
               "%s: invalid image (%d x %d, %d channels, data %s; sizes must "
               "be 1..%d, channels 1..4)",
               path, img->width, img->height, img->channels,
               img->data ? "set" : "NULL", FG_IMAGE_MAX_DIM);
    return FG_EINVAL;
  }
  if (format == FG_FORMAT_JPEG) {
    if (quality == 0)
      quality = 90;
    if (quality < 1 || quality > 100) {
      fg_set_err(err, errlen,
                 "%s: JPEG quality %d out of range (1..100, 0 means 90)",
                 path, quality);
      return FG_EINVAL;
    }
  }

  len = strlen(path);
  tmp = malloc(len + sizeof suffix);
  if (!tmp) {
    fg_set_err(err, errlen, "%s: out of memory", path);
    return FG_ENOMEM;
  }
  memcpy(tmp, path, len);
  memcpy(tmp + len, suffix, sizeof suffix);
  fd = mkstemp(tmp);
  if (fd < 0) {
    int e = errno;

    fg_set_err(err, errlen, "%s: cannot create temporary file: %s", path,
               fg_strerror(e, ebuf, sizeof ebuf));
    free(tmp);
    return FG_EIO;
  }
  (void)fchmod(fd, fg_new_file_mode(path));
  fp = fdopen(fd, "wb");
  if (!fp) {
    int e = errno;

    close(fd);
    unlink(tmp);
    free(tmp);
    fg_set_err(err, errlen, "%s: cannot open temporary file: %s", path,
               fg_strerror(e, ebuf, sizeof ebuf));
    return FG_EIO;
  }

  if (format == FG_FORMAT_PNG) {
    struct fg_png_ctx ctx;

    memset(&ctx, 0, sizeof ctx);
    ctx.fp = fp;
    st = fg_write_png(&ctx, path, img, err, errlen);
  } else {
    struct fg_jpeg_enc enc;

    memset(&enc, 0, sizeof enc);
    st = fg_write_jpeg(&enc, fp, path, img, quality, err, errlen);
  }

  if (fclose(fp) != 0 && st == FG_OK) {
    int e = errno;

    fg_set_err(err, errlen, "%s: write error: %s", path,
               fg_strerror(e, ebuf, sizeof ebuf));
    st = FG_EIO;
  }
  if (st == FG_OK && rename(tmp, path) != 0) {
    int e = errno;

    fg_set_err(err, errlen, "%s: cannot rename temporary file into place: %s",
               path, fg_strerror(e, ebuf, sizeof ebuf));
    st = FG_EIO;
  }
  if (st != FG_OK)
    unlink(tmp);
  free(tmp);
  return st;
}
