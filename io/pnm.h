/* io/pnm.h - binary PGM (P5) and PPM (P6) images for io/image.c (test data
 * and lossless interchange without a codec), ASCII P1-P3 for both.  Internal; prefix fgi_. */
#ifndef FG_IO_PNM_H
#define FG_IO_PNM_H

#include "fieldgraph/image.h"

#include <stdio.h>

/* Decodes the P5/P6 file fp (positioned at its start) into out; 16-bit
 * samples (maxval > 255) are scaled to 8 bits with rounding.  FG_EFORMAT
 * for a bad header, more than max_pixels pixels or short data (a regular
 * file too short for its header is refused before allocating),
 * FG_ENOMEM; err names path. */
fg_status fgi_read_pnm(FILE *fp, const char *path, uint64_t max_pixels,
                       fg_image *out, char *err, size_t errlen);
/* Decodes the ASCII PBM/PGM/PPM (P1, P2, P3) file fp (positioned at its
 * start) into out: 8 bits (16 when maxval > 255), scaled so that maxval
 * is white (PBM: 1 black, 0 white; its samples may be packed).  FG_EFORMAT
 * for a bad header or sample, more than max_pixels pixels or missing
 * samples (a regular file too short is refused before allocating),
 * FG_ENOMEM; err names path, *out zeroed on failure. */
fg_status fgi_read_ascii_pnm(FILE *fp, const char *path, uint64_t max_pixels,
                             fg_image *out, char *err, size_t errlen);
/* Encodes img (1 channel as P5, 3 as P6; 2 and 4 drop alpha) to fp. */
fg_status fgi_write_pnm(FILE *fp, const char *path, const fg_image *img,
                        char *err, size_t errlen);

#endif
