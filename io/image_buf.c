/* io/image_buf.c - the pixel buffers every codec of io/ fills: the size
 * check of an image (fgi_image_bytes) and fg_image_alloc / fg_image_free;
 * the ground the readers and writers (image.c, pnm.c) stand on. */
#include "io/image_buf.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

fg_status fgi_image_bytes(unsigned long width, unsigned long height,
                          unsigned long channels, size_t *bytes) {
  if (width < 1 || height < 1 || width > FG_IMAGE_MAX_DIM ||
      height > FG_IMAGE_MAX_DIM || channels < 1 || channels > 4)
    return FG_EINVAL;
  size_t row = (size_t)width * (size_t)channels;
  if ((size_t)height > SIZE_MAX / row)
    return FG_EINVAL;
  *bytes = row * (size_t)height;
  return FG_OK;
}

size_t fg_image_type_size(fg_image_type t) {
  switch (t) {
  case FG_IMAGE_U8: return 1;
  case FG_IMAGE_U16: return 2;
  case FG_IMAGE_F32: return 4;
  }
  return 0;
}

fg_status fgi_image_bytes_type(const fg_image *img, size_t *bytes) {
  size_t each = fg_image_type_size(img->type), n;
  if (!each || img->width <= 0 || img->height <= 0 || img->channels <= 0 ||
      fgi_image_bytes((unsigned long)img->width, (unsigned long)img->height,
                      (unsigned long)img->channels, &n) != FG_OK ||
      n > SIZE_MAX / each)
    return FG_EINVAL;
  *bytes = n * each;
  return FG_OK;
}

fg_status fg_image_alloc(fg_image *out, int width, int height, int channels) {
  return fg_image_alloc_type(out, width, height, channels, FG_IMAGE_U8);
}

fg_status fg_image_alloc_type(fg_image *out, int width, int height,
                              int channels, fg_image_type type) {
  if (!out)
    return FG_EINVAL;
  memset(out, 0, sizeof *out);
  size_t bytes;
  fg_image shape = {.width = width, .height = height, .channels = channels,
                    .type = type};
  if (fgi_image_bytes_type(&shape, &bytes) != FG_OK)
    return FG_EINVAL;
  uint8_t *data = calloc(bytes, 1);
  if (!data)
    return FG_ENOMEM;
  out->width = width;
  out->height = height;
  out->channels = channels;
  out->data = data;
  out->type = type;
  return FG_OK;
}

static void meta_free(fg_image_meta *m) {
  if (!m)
    return;
  for (int i = 0; i < FG_IMAGE_META_COUNT; i++)
    free(m->block[i]);
  free(m);
}

fg_status fg_image_copy_meta(fg_image *dst, const fg_image *src) {
  if (!dst || !src)
    return FG_EINVAL;
  meta_free(dst->meta);
  dst->meta = NULL;
  if (!src->meta)
    return FG_OK;
  fg_image_meta *m = calloc(1, sizeof *m);
  if (!m)
    return FG_ENOMEM;
  for (int i = 0; i < FG_IMAGE_META_COUNT; i++) {
    if (!src->meta->block[i])
      continue;
    m->block[i] = malloc(src->meta->size[i]);
    if (!m->block[i]) {
      meta_free(m);
      return FG_ENOMEM;
    }
    memcpy(m->block[i], src->meta->block[i], src->meta->size[i]);
    m->size[i] = src->meta->size[i];
  }
  dst->meta = m;
  return FG_OK;
}

void fg_image_free(fg_image *img) {
  if (!img)
    return;
  meta_free(img->meta);
  free(img->data);
  memset(img, 0, sizeof *img);
}

fg_status fgi_open_input(const char *path, fg_image *out, int *fd,
                         char *err, size_t errlen) {
  *fd = -1;
  if (err && errlen)
    err[0] = '\0';
  if (out)
    memset(out, 0, sizeof *out);
  if (!path || !out)
    return fgu_fail(err, errlen, FG_EINVAL, "fg_image_read: %s is NULL",
                    !path ? "path" : "out");
  if (!*path)
    return fgu_fail(err, errlen, FG_EINVAL, "fg_image_read: empty path");
  char ebuf[128];
  int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (f < 0) {
    int e = errno;
    return fgu_fail(err, errlen, FG_EIO, "%s: cannot open: %s", path,
                    fgu_strerror(e, ebuf, sizeof ebuf));
  }
  struct stat st;
  if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(f);
    return fgu_fail(err, errlen, FG_EIO, "%s: not a regular file (%s); "
                    "expected an image file", path,
                    S_ISDIR(st.st_mode) ? "a folder"
                    : S_ISFIFO(st.st_mode) ? "a FIFO"
                    : S_ISSOCK(st.st_mode) ? "a socket" : "a device");
  }
  *fd = f;
  return FG_OK;
}

fg_status fgi_image_flatten(const fg_image *img, fg_image *out) {
  memset(out, 0, sizeof *out);
  int ch = img->channels;
  if (ch != 2 && ch != 4)
    return FG_OK;
  size_t bytes;
  fg_image flat = *img;
  flat.channels = ch - 1;
  if (fgi_image_bytes_type(&flat, &bytes) != FG_OK)
    return FG_EINVAL;
  flat.data = malloc(bytes);
  if (!flat.data)
    return FG_ENOMEM;
  size_t n = (size_t)img->width * (size_t)img->height;
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < ch - 1; c++) {
      size_t s = i * (size_t)ch + (size_t)c, a = i * (size_t)ch + ch - 1,
             d = i * (size_t)(ch - 1) + (size_t)c;
      if (img->type == FG_IMAGE_U16) {
        const uint16_t *p = (const uint16_t *)img->data;
        ((uint16_t *)flat.data)[d] =
            (uint16_t)((p[s] * (uint32_t)p[a] + 32767) / 65535);
      } else if (img->type == FG_IMAGE_F32) {
        const float *p = (const float *)img->data;
        ((float *)flat.data)[d] = p[s] * p[a];
      } else {
        flat.data[d] =
            (uint8_t)((img->data[s] * (unsigned)img->data[a] + 127) / 255);
      }
    }
  *out = flat;
  return FG_OK;
}

static float encode1(float v) {
  return v <= 0.0031308f ? v * 12.92f
                         : 1.055f * powf(v, 1.0f / 2.4f) - 0.055f;
}

static float decode1(float v) {
  return v <= 0.04045f ? v / 12.92f : powf((v + 0.055f) / 1.055f, 2.4f);
}

void fgi_linear_to_srgb(float *px, size_t npix, int ch) {
  for (size_t i = 0; ch >= 3 && i < npix; i++)
    for (int c = 0; c < 3; c++)
      px[i * (size_t)ch + c] = encode1(px[i * (size_t)ch + c]);
}

void fgi_srgb_to_linear(float *px, size_t npix, int ch) {
  for (size_t i = 0; ch >= 3 && i < npix; i++)
    for (int c = 0; c < 3; c++)
      px[i * (size_t)ch + c] = decode1(px[i * (size_t)ch + c]);
}
