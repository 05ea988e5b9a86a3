/* examples/identity_transform.c - Cog's local-memory example: `tile` reads
 * each work-group's tile of a photo into local memory
 * (_local(_tensorArray(field, _localRows, _localColumns)), one tensor per
 * thread, then a barrier) and `identityTransform` writes every pixel back
 * from its tile.  Writes OUTDIR/<name>-identity.png, which must equal the
 * input, and says so in one line.
 *
 *   identity_transform [-o OUTDIR] [IMAGE]   (default data/samples/chelsea.png)
 */
#include "example_util.h"
#include "operators.h"

int main(int argc, char **argv) {
  const char *outdir;
  int first = example_outdir(argc, argv, &outdir);
  if (argc > first + 1) {
    fprintf(stderr, "usage: identity_transform [-o OUTDIR] [IMAGE]\n");
    return 2;
  }
  const char *in_path = first < argc ? argv[first]
                                     : FG_SAMPLES_DIR "/chelsea.png";
  if (example_mkdir("identity_transform", outdir))
    return 1;
  fg_image img, copy = {0};
  char err[512];
  if (fg_image_read(in_path, &img, err, sizeof err) != FG_OK) {
    fprintf(stderr, "identity_transform: %s\n", err);
    return 1;
  }
  int rc = 1;
  if (fg_image_alloc(&copy, img.width, img.height, img.channels) != FG_OK) {
    fprintf(stderr, "identity_transform: out of memory\n");
    fg_image_free(&img);
    return 1;
  }
  /* 16 x 16 work-groups (Cog's default); the photo's edges fall inside
   * partial groups, whose extra threads copy nothing */
  fg_graph *g = fg_graph_new("identityTransform");
  fg_field *in = fg_input(g, "image", fg_type_image(FG_U8, img.height,
                                                    img.width, img.channels));
  fg_output(g, "copy", ex_identity_transform(g, in, 16, 16));
  rc = example_run("identity_transform", g, 1, (const void *[]){img.data}, 1,
                   (void *[]){copy.data});
  char name[256], out_path[4096];
  example_stem(in_path, name, sizeof name);
  snprintf(out_path, sizeof out_path, "%s/%s-identity.png", outdir, name);
  if (rc == 0 && fg_image_write(out_path, &copy, 0, err, sizeof err) != FG_OK) {
    fprintf(stderr, "identity_transform: %s\n", err);
    rc = 1;
  }
  if (rc == 0) {
    size_t bytes = (size_t)img.width * (size_t)img.height *
                   (size_t)img.channels;
    int same = memcmp(img.data, copy.data, bytes) == 0;
    printf("identity_transform: %s (%dx%d, %d channels) through 16x16 "
           "local-memory tiles -> %s: %s\n", in_path, img.width, img.height,
           img.channels, out_path, same ? "identical" : "DIFFERS");
    rc = same ? 0 : 1;
  }
  fg_graph_free(g);
  fg_image_free(&img);
  fg_image_free(&copy);
  return rc;
}
