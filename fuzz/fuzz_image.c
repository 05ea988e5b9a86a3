/* fuzz/fuzz_image.c - libFuzzer target for the image decoders as the
 * library calls them: the input is written to a temporary file and read
 * with fg_image_load (every format the build reads, chosen by the
 * signature); a decoded image is checked for consistent dimensions, every
 * byte touched, and written back as PNG, then as TIFF in the file's own
 * colour profile ([profile=input]: lcms reads the profile the fuzzer
 * mutated, and converts the pixels to it).  Images over 2^20 pixels are
 * refused by the load options, as libjpeg-turbo's and libvips' own fuzzers
 * do: a 700-byte file may declare 16000 x 16000 pixels, and decoding (then
 * refusing) that many under ASan takes longer than the 30 s timeout
 * without finding anything the small images do not.  The default limit
 * itself is tested in tests/check_image.c.  Built by scripts/fuzz. */
#include "fieldgraph.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char in_path[256], out_path[256], tif_path[256];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!in_path[0]) {
    const char *dir = getenv("TMPDIR");
    snprintf(in_path, sizeof in_path, "%s/fg-fuzz-image-%d.in",
             dir && *dir ? dir : "/tmp", (int)getpid());
    snprintf(out_path, sizeof out_path, "%s/fg-fuzz-image-%d.png",
             dir && *dir ? dir : "/tmp", (int)getpid());
    snprintf(tif_path, sizeof tif_path, "%s/fg-fuzz-image-%d.tif",
             dir && *dir ? dir : "/tmp", (int)getpid());
  }
  FILE *f = fopen(in_path, "wb");
  if (!f)
    abort();
  if (size && fwrite(data, 1, size, f) != size)
    abort();
  fclose(f);
  fg_image img;
  char err[512];
  fg_image_load_options opt = FG_IMAGE_LOAD_OPTIONS_INIT;
  opt.max_pixels = (uint64_t)1 << 20;
  fg_status st = fg_image_load(in_path, &img, &opt, err, sizeof err);
  if (st != FG_OK) {
    if (!err[0] || img.data)
      abort();                  /* a failure names its cause, holds nothing */
    return 0;
  }
  if (img.width < 1 || img.height < 1 || img.channels < 1 ||
      img.channels > 4 || !img.data)
    abort();
  size_t n = (size_t)img.width * (size_t)img.height * (size_t)img.channels;
  unsigned sum = 0;
  for (size_t i = 0; i < n; i++)  /* uninitialized or short: MSan/ASan */
    sum += img.data[i];
  (void)sum;
  if (n <= (1u << 20) &&
      fg_image_write(out_path, &img, 90, err, sizeof err) != FG_OK)
    abort();
  fg_image_save_options so = FG_IMAGE_SAVE_OPTIONS_INIT;
  snprintf(so.profile, sizeof so.profile, "input");
  if (n <= (1u << 20) && img.meta && img.meta->block[FG_IMAGE_META_ICC] &&
      fg_image_save(tif_path, &img, &so, err, sizeof err) != FG_OK)
    abort();
  fg_image_free(&img);
  return 0;
}
