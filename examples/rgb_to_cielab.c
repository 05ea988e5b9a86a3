/* examples/rgb_to_cielab.c - Cog's colour-conversion example: a photo's
 * pixels (u8, scaled to [0, 1]) through RGBtoCIELAB, i.e. pixelRGBtoXYZ
 * then pixelXYZtoCIELAB, in single precision on the device.  Writes
 * OUTDIR/<name>-lab.png, the L, a and b planes side by side as grey
 * images (L * 2.55, a + 128, b + 128), as the reference's figure shows
 * them, and prints one line with the largest difference from the same
 * formulas computed here independently in double precision.
 *
 *   rgb_to_cielab [-o OUTDIR] [IMAGE]   (default data/samples/astronaut.png)
 */
#include "example_util.h"
#include "operators.h"

#include <math.h>
#include <stdlib.h>

/* The reference's formulas (easyrgb.com) in double precision. */
static void lab_double(double r, double g, double b, double lab[3]) {
  double c[3] = {r, g, b};
  for (int i = 0; i < 3; i++)
    c[i] = 100 * (c[i] > 0.04045 ? pow((c[i] + 0.055) / 1.055, 2.4)
                                 : c[i] / 12.92);
  double xyz[3] = {c[0] * 0.4124 + c[1] * 0.3576 + c[2] * 0.1805,
                   c[0] * 0.2126 + c[1] * 0.7152 + c[2] * 0.0722,
                   c[0] * 0.0193 + c[1] * 0.1192 + c[2] * 0.9505};
  static const double white[3] = {95.047, 100.0, 108.883};
  for (int i = 0; i < 3; i++) {
    double v = xyz[i] / white[i];
    xyz[i] = v > 0.008856 ? cbrt(v) : 7.787 * v + 16.0 / 116;
  }
  lab[0] = 116 * xyz[1] - 16;
  lab[1] = 500 * (xyz[0] - xyz[1]);
  lab[2] = 200 * (xyz[1] - xyz[2]);
}

static uint8_t to_u8(double v) {
  return v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)lround(v);
}

int main(int argc, char **argv) {
  const char *outdir;
  int first = example_outdir(argc, argv, &outdir);
  if (argc > first + 1) {
    fprintf(stderr, "usage: rgb_to_cielab [-o OUTDIR] [IMAGE]\n");
    return 2;
  }
  const char *in_path = first < argc ? argv[first]
                                     : FG_SAMPLES_DIR "/astronaut.png";
  if (example_mkdir("rgb_to_cielab", outdir))
    return 1;
  fg_image img, planes = {0};
  char err[512];
  if (fg_image_read(in_path, &img, err, sizeof err) != FG_OK) {
    fprintf(stderr, "rgb_to_cielab: %s\n", err);
    return 1;
  }
  size_t npix = (size_t)img.width * (size_t)img.height;
  float *lab = malloc(npix * 3 * sizeof *lab);
  if (!lab || img.width > FG_IMAGE_MAX_DIM / 3 ||
      fg_image_alloc(&planes, 3 * img.width, img.height, 1) != FG_OK) {
    fprintf(stderr, "rgb_to_cielab: %s is too large\n", in_path);
    free(lab);
    fg_image_free(&img);
    return 1;
  }
  fg_graph *g = fg_graph_new("RGBtoCIELAB");
  fg_field *in = fg_input(g, "image", fg_type_image(FG_U8, img.height,
                                                    img.width, img.channels));
  fg_output(g, "lab", ex_rgb_to_cielab(g, ex_to_unit_float(g, in)));
  int rc = example_run("rgb_to_cielab", g, 1, (const void *[]){img.data}, 1,
                       (void *[]){lab});
  double worst[3] = {0, 0, 0};
  for (size_t p = 0; rc == 0 && p < npix; p++) {
    /* the device's input exactly: grey images have r = g = b */
    const uint8_t *px = img.data + p * (size_t)img.channels;
    double rgb[3], want[3];
    for (int c = 0; c < 3; c++)
      rgb[c] = (float)(img.channels >= 3 ? px[c] : px[0]) * (1.0f / 255.0f);
    lab_double(rgb[0], rgb[1], rgb[2], want);
    for (int c = 0; c < 3; c++) {
      double d = fabs(lab[p * 3 + c] - want[c]);
      worst[c] = d > worst[c] ? d : worst[c];
    }
    size_t row = p / (size_t)img.width, col = p % (size_t)img.width;
    uint8_t *out = planes.data + row * (size_t)planes.width + col;
    out[0] = to_u8(lab[p * 3] * 2.55);
    out[img.width] = to_u8(lab[p * 3 + 1] + 128);
    out[2 * img.width] = to_u8(lab[p * 3 + 2] + 128);
  }
  char name[256], out_path[4096];
  example_stem(in_path, name, sizeof name);
  snprintf(out_path, sizeof out_path, "%s/%s-lab.png", outdir, name);
  if (rc == 0 &&
      fg_image_write(out_path, &planes, 0, err, sizeof err) != FG_OK) {
    fprintf(stderr, "rgb_to_cielab: %s\n", err);
    rc = 1;
  }
  if (rc == 0)
    printf("rgb_to_cielab: %s (%dx%d, %d channels) -> %s (L | a | b); max "
           "error vs double precision: L %.2g, a %.2g, b %.2g\n", in_path,
           img.width, img.height, img.channels, out_path, worst[0], worst[1],
           worst[2]);
  fg_graph_free(g);
  free(lab);
  fg_image_free(&img);
  fg_image_free(&planes);
  return rc;
}
