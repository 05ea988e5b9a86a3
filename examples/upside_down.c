/* examples/upside_down.c - Cog's `upsideDown` GPUOperator on a colour
 * image: reads data/samples/chelsea.png (or the file given), writes the
 * flipped image to upside_down.png (or the second argument). */
#include "example_util.h"
#include "operators.h"

#include <stdlib.h>

int main(int argc, char **argv) {
  const char *in_path = argc > 1 ? argv[1] : FG_SAMPLES_DIR "/chelsea.png";
  const char *out_path = argc > 2 ? argv[2] : "upside_down.png";
  fg_image img, flipped;
  char err[512];
  if (fg_image_read(in_path, &img, err, sizeof err) != FG_OK) {
    fprintf(stderr, "upside_down: %s\n", err);
    return 1;
  }
  if (fg_image_alloc(&flipped, img.width, img.height, img.channels) != FG_OK) {
    fg_image_free(&img);
    return 1;
  }
  fg_graph *g = fg_graph_new("upsideDown");
  fg_field *in = fg_input(g, "image", fg_type_image(FG_U8, img.height,
                                                    img.width, img.channels));
  fg_output(g, "flipped", ex_upside_down(g, in));
  int rc = example_run("upside_down", g, 1, (const void *[]){img.data}, 1,
                       (void *[]){flipped.data});
  if (rc == 0 && fg_image_write(out_path, &flipped, 0, err, sizeof err) != FG_OK) {
    fprintf(stderr, "upside_down: %s\n", err);
    rc = 1;
  }
  if (rc == 0)
    printf("wrote %s (%dx%d)\n", out_path, img.width, img.height);
  fg_graph_free(g);
  fg_image_free(&img);
  fg_image_free(&flipped);
  return rc;
}
