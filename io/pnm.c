/* io/pnm.c - binary PGM (P5) and PPM (P6) reading and writing for
 * fg_image_read / fg_image_write (io/image.c chooses the format; the
 * atomic replacement of the file is done there), and ASCII PBM/PGM/PPM
 * (P1-P3) reading, which io/image_vips.c uses instead of libvips' (8.14
 * reads a malformed or truncated file as zeros, packed PBM rows as
 * numbers, and keeps samples unscaled).
 */
#include "io/image_buf.h"
#include "io/pnm.h"
#include "util/util.h"

#include <ctype.h>
#include <stdint.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

/* The first byte of fp after whitespace and # comments (or EOF). */
static int skip_blanks(FILE *fp) {
  int c = fgetc(fp);
  for (;;) {
    while (c != EOF && isspace(c))
      c = fgetc(fp);
    if (c != '#')
      return c;
    while (c != EOF && c != '\n')
      c = fgetc(fp);
  }
}

/* The next header number of fp, skipping whitespace and # comments; -1 on
 * a malformed or missing number. */
static long header_number(FILE *fp) {
  int c = skip_blanks(fp);
  if (c == EOF || !isdigit(c))
    return -1;
  long v = 0;
  while (c != EOF && isdigit(c)) {
    v = v * 10 + (c - '0');
    if (v > 1000000)
      return -1;
    c = fgetc(fp);
  }
  /* exactly one whitespace byte ends the header's last number */
  return c != EOF && isspace(c) ? v : -1;
}

fg_status fgi_read_pnm(FILE *fp, const char *path, uint64_t max_pixels,
                       fg_image *out, char *err, size_t errlen) {
  char magic[2];
  if (fread(magic, 1, 2, fp) != 2 || magic[0] != 'P' ||
      (magic[1] != '5' && magic[1] != '6'))
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: not a binary PGM/PPM "
                    "(P5/P6) image", path);
  int channels = magic[1] == '5' ? 1 : 3;
  long w = header_number(fp), h = header_number(fp), maxval = header_number(fp);
  if (w < 1 || h < 1 || maxval < 1 || maxval > 65535 ||
      w > FG_IMAGE_MAX_DIM || h > FG_IMAGE_MAX_DIM)
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: bad PGM/PPM header "
                    "(width, height 1..%d, maxval 1..65535)", path,
                    FG_IMAGE_MAX_DIM);
  if ((uint64_t)w * (uint64_t)h > max_pixels)
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: PGM/PPM of %ldx%ld pixels "
                    "is over the limit of %llu pixels "
                    "(fg_image_load_options.max_pixels)", path, w, h,
                    (unsigned long long)max_pixels);
  /* a regular file shorter than its header says: refused before the
   * pixels are allocated */
  uint64_t need = (uint64_t)w * (uint64_t)h * (uint64_t)channels *
                  (maxval > 255 ? 2u : 1u);
  struct stat sb;
  long pos = ftell(fp);
  if (pos >= 0 && fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode) &&
      (uint64_t)(sb.st_size - pos) < need)
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: truncated PGM/PPM data "
                    "(%lld bytes after the header, %llu needed)", path,
                    (long long)(sb.st_size - pos), (unsigned long long)need);
  fg_status st = fg_image_alloc(out, (int)w, (int)h, channels);
  if (st != FG_OK)
    return fgu_fail(err, errlen, st, "%s: out of memory", path);
  size_t n = (size_t)w * (size_t)h * (size_t)channels;
  int wide = maxval > 255;
  unsigned char *raw = wide ? malloc(2 * n) : out->data;
  if (!raw) {
    fg_image_free(out);
    return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory", path);
  }
  size_t got = fread(raw, wide ? 2 : 1, n, fp);
  if (got != n) {
    if (wide)
      free(raw);
    fg_image_free(out);
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: truncated PGM/PPM data "
                    "(%zu of %zu samples)", path, got, n);
  }
  for (size_t i = 0; i < n; i++) {
    unsigned v = wide ? (unsigned)raw[2 * i] << 8 | raw[2 * i + 1] : raw[i];
    out->data[i] = (unsigned char)((v * 255u + (unsigned)maxval / 2) /
                                   (unsigned)maxval);
  }
  if (wide)
    free(raw);
  return FG_OK;
}

/* The next ASCII number of fp (whitespace and # comments skipped before
 * it; whitespace, a comment or the end after it): 0 with *v set, 1 at the
 * end of the file, -1 for anything else (a sign, a letter, over limit). */
static int ascii_number(FILE *fp, unsigned long limit, unsigned long *v) {
  int c = skip_blanks(fp);
  if (c == EOF)
    return 1;
  if (!isdigit(c))
    return -1;
  *v = 0;
  while (c != EOF && isdigit(c)) {
    *v = *v * 10 + (unsigned long)(c - '0');
    if (*v > limit)
      return -1;
    c = fgetc(fp);
  }
  if (c == '#')
    ungetc(c, fp);
  return c == EOF || isspace(c) || c == '#' ? 0 : -1;
}

/* The next P1 sample: a '0' or '1' with or without whitespace between
 * (Netpbm ignores it), in *v; 0, 1 at the end, -1 for another byte. */
static int bit_sample(FILE *fp, unsigned long *v) {
  int c;
  for (;;) {
    c = fgetc(fp);
    if (c == '#') {
      while (c != EOF && c != '\n')
        c = fgetc(fp);
    }
    if (c == EOF || !isspace(c))
      break;
  }
  *v = c == '1';
  return c == '0' || c == '1' ? 0 : c == EOF ? 1 : -1;
}

fg_status fgi_read_ascii_pnm(FILE *fp, const char *path, uint64_t max_pixels,
                             fg_image *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  char magic[2];
  if (fread(magic, 1, 2, fp) != 2 || magic[0] != 'P' || magic[1] < '1' ||
      magic[1] > '3')
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: not an ASCII PBM/PGM/PPM "
                    "(P1/P2/P3) image", path);
  int kind = magic[1] - '0', channels = kind == 3 ? 3 : 1;
  unsigned long w = 0, h = 0, maxval = 1;
  if (ascii_number(fp, FG_IMAGE_MAX_DIM, &w) || ascii_number(fp,
      FG_IMAGE_MAX_DIM, &h) || w < 1 || h < 1 ||
      (kind != 1 && (ascii_number(fp, 65535, &maxval) || maxval < 1)))
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: bad ASCII P%d header: "
                    "expected width and height 1..%d%s as decimal numbers",
                    path, kind, FG_IMAGE_MAX_DIM,
                    kind == 1 ? "" : " and maxval 1..65535");
  if ((uint64_t)w * h > max_pixels)
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: %lux%lu pixels is over "
                    "the limit of %llu pixels (fg_image_load_options."
                    "max_pixels)", path, w, h,
                    (unsigned long long)max_pixels);
  /* every sample takes a byte at least (and a separator but in P1): a
   * regular file too short is refused before the pixels are allocated */
  uint64_t n = (uint64_t)w * h * (uint64_t)channels;
  uint64_t need = kind == 1 ? n : 2 * n - 1;
  struct stat sb;
  long pos = ftell(fp);
  if (pos >= 0 && fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode) &&
      (uint64_t)(sb.st_size - pos) < need)
    return fgu_fail(err, errlen, FG_EFORMAT, "%s: truncated ASCII P%d data "
                    "(%lld bytes after the header, %llu samples needed)",
                    path, kind, (long long)(sb.st_size - pos),
                    (unsigned long long)n);
  int wide = maxval > 255;
  fg_status st = fg_image_alloc_type(out, (int)w, (int)h, channels,
                                     wide ? FG_IMAGE_U16 : FG_IMAGE_U8);
  if (st != FG_OK)
    return fgu_fail(err, errlen, st, "%s: out of memory", path);
  unsigned long full = wide ? 65535 : 255;
  for (uint64_t i = 0; i < n; i++) {
    unsigned long v = 0;
    int r = kind == 1 ? bit_sample(fp, &v) : ascii_number(fp, maxval, &v);
    if (r) {
      fg_image_free(out);
      if (r == 1)
        return fgu_fail(err, errlen, FG_EFORMAT, "%s: truncated ASCII P%d "
                        "data: %llu of %llu samples", path, kind,
                        (unsigned long long)i, (unsigned long long)n);
      return fgu_fail(err, errlen, FG_EFORMAT, "%s: bad ASCII P%d sample "
                      "%llu: expected %s", path, kind,
                      (unsigned long long)i + 1, kind == 1
                      ? "0 or 1" : "a decimal number up to maxval");
    }
    /* PBM: 1 is black; others scaled so that maxval is white */
    unsigned long x = kind == 1 ? (v ? 0 : 255)
                      : (v * full + maxval / 2) / maxval;
    if (wide)
      ((uint16_t *)out->data)[i] = (uint16_t)x;
    else
      out->data[i] = (uint8_t)x;
  }
  return FG_OK;
}

fg_status fgi_write_pnm(FILE *fp, const char *path, const fg_image *img,
                        char *err, size_t errlen) {
  int colour = img->channels >= 3;
  int out_ch = colour ? 3 : 1;
  if (fprintf(fp, "P%c\n%d %d\n255\n", colour ? '6' : '5', img->width,
              img->height) < 0)
    return fgu_fail(err, errlen, FG_EIO, "%s: write error", path);
  if (img->channels == out_ch) {
    size_t n = (size_t)img->width * img->height * (size_t)out_ch;
    if (fwrite(img->data, 1, n, fp) != n)
      return fgu_fail(err, errlen, FG_EIO, "%s: write error", path);
    return FG_OK;
  }
  size_t row = (size_t)img->width * (size_t)out_ch;
  unsigned char *buf = malloc(row);
  if (!buf)
    return fgu_fail(err, errlen, FG_ENOMEM, "%s: out of memory", path);
  for (int y = 0; y < img->height; y++) {
    const unsigned char *src = img->data + (size_t)y * img->width *
                                               (size_t)img->channels;
    for (int x = 0; x < img->width; x++)
      memcpy(buf + (size_t)x * (size_t)out_ch,
             src + (size_t)x * (size_t)img->channels, (size_t)out_ch);
    if (fwrite(buf, 1, row, fp) != row) {
      free(buf);
      return fgu_fail(err, errlen, FG_EIO, "%s: write error", path);
    }
  }
  free(buf);
  return FG_OK;
}
