/* io/image_buf.h - pixel buffers of fg_image for the codecs of io/
 * (io/image_buf.c).  Internal. */
#ifndef FG_IO_IMAGE_BUF_H
#define FG_IO_IMAGE_BUF_H

#include "fieldgraph/image.h"

/* Bytes of a width x height x channels image in *bytes, or FG_EINVAL if
 * any size is out of range (1 to FG_IMAGE_MAX_DIM, 1 to 4 channels) or the
 * byte count does not fit in size_t. */
fg_status fgi_image_bytes(unsigned long width, unsigned long height,
                          unsigned long channels, size_t *bytes);

/* Bytes of img's pixels (its width, height, channels and type), or
 * FG_EINVAL as above or for an unknown type. */
fg_status fgi_image_bytes_type(const fg_image *img, size_t *bytes);

/* Starts a read of path into out: checks the arguments (out emptied, err
 * emptied), opens the file non-blocking (a FIFO or a device must not
 * wait) and keeps only a regular file.  The descriptor in *fd, or a
 * failure (FG_EINVAL, FG_EIO) with err naming the file. */
fg_status fgi_open_input(const char *path, fg_image *out, int *fd,
                         char *err, size_t errlen);

/* For a format without alpha (JPEG, PNM): img (grey+alpha or RGBA, any
 * type) flattened against black into *out, as libvips saves it (colour x
 * alpha / max; pixels that were transparent come out black, not their
 * hidden colour); out->meta is img's.  *out zeroed and FG_OK with nothing
 * allocated when img has no alpha; FG_ENOMEM.  Free out->data with
 * free() (the metadata stays img's). */
fg_status fgi_image_flatten(const fg_image *img, fg_image *out);

/* The sRGB transfer function on the colour channels (the first three; px
 * holds npix pixels of ch >= 3 floats, alpha untouched): linear light
 * (scRGB, as libvips takes a float RGB TIFF) to sRGB-encoded, and back.
 * Not clipped: values outside [0, 1] follow the same curves (the linear
 * segment below 0, the power above 1), so each undoes the other. */
void fgi_linear_to_srgb(float *px, size_t npix, int ch);
void fgi_srgb_to_linear(float *px, size_t npix, int ch);

#endif
