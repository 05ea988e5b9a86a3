/* io/format.h - output formats by extension (io/format.c).  Internal;
 * prefix fgi_. */
#ifndef FG_IO_FORMAT_H
#define FG_IO_FORMAT_H

#include "fieldgraph/image.h"

#include <stddef.h>

typedef enum fgi_format {
  FGI_NONE, FGI_PNG, FGI_JPEG, FGI_PNM, FGI_TIFF, FGI_WEBP, FGI_GIF,
  FGI_HEIF, FGI_AVIF, FGI_JXL
} fgi_format;

/* The format path's extension names (case-insensitive), FGI_NONE for one
 * this build cannot write. */
fgi_format fgi_format_of(const char *path);
/* The extensions this build writes, as a phrase for messages. */
const char *fgi_known_extensions(void);

/* The most pixels per side format f's encoder takes where that is under
 * FG_IMAGE_MAX_DIM (WebP 16383, JPEG 65500), else 0; *name its name for
 * messages. */
int fgi_format_max_side(fgi_format f, const char **name);

/* The name of the image format whose signature starts the n bytes at p
 * ("TIFF", "PNG", ...), NULL when none matches; for telling a truncated
 * or corrupt file from one that is not an image at all. */
const char *fgi_format_sniff(const void *p, size_t n);

#endif
