/* io/image_buf.c - the pixel buffers every codec of io/ fills: the size
 * check of an image (fgi_image_bytes) and fg_image_alloc / fg_image_free;
 * the ground the readers and writers (image.c, pnm.c) stand on. */
#include "io/image_buf.h"

#include <stdint.h>
#include <stdlib.h>
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

fg_status fg_image_alloc(fg_image *out, int width, int height, int channels) {
  if (!out)
    return FG_EINVAL;
  memset(out, 0, sizeof *out);
  size_t bytes;
  if (width <= 0 || height <= 0 || channels <= 0 ||
      fgi_image_bytes((unsigned long)width, (unsigned long)height,
                  (unsigned long)channels, &bytes) != FG_OK)
    return FG_EINVAL;
  uint8_t *data = calloc(bytes, 1);
  if (!data)
    return FG_ENOMEM;
  out->width = width;
  out->height = height;
  out->channels = channels;
  out->data = data;
  return FG_OK;
}

void fg_image_free(fg_image *img) {
  if (!img)
    return;
  free(img->data);
  memset(img, 0, sizeof *img);
}
