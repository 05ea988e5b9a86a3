/* examples/pipeline.c - the main job until the `fieldgraph` tool exists:
 * for each photo given, a graph of Cog operators (u8 to float, upsideDown,
 * half, RGBtoCIELAB, back to u8) compiled and run on the CPU backend,
 * writing OUT/<name>-flipped-half.png and OUT/<name>-lightness.png.
 *
 *   pipeline [-o OUTDIR] IMAGE...
 */
#include "operators.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Builds the pipeline for one image type; outputs: flipped-half, lightness. */
static fg_graph *build(fg_type t) {
  fg_graph *g = fg_graph_new("pipeline");
  fg_field *img = fg_input(g, "image", t);
  fg_field *rgb = ex_to_unit_float(g, img);
  fg_output(g, "flipped_half", ex_to_u8(g, ex_half(g, ex_upside_down(g, rgb))));
  fg_output(g, "lightness", ex_lightness_u8(g, ex_rgb_to_cielab(g, rgb)));
  return g;
}

static void stem(const char *path, char *out, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(out, size, "%s", base);
  char *dot = strrchr(out, '.');
  if (dot && dot != out)
    *dot = 0;
}

static int process(fg_context *ctx, const char *path, const char *outdir) {
  fg_image img, half = {0}, light = {0};
  char err[512];
  if (fg_image_read(path, &img, err, sizeof err) != FG_OK) {
    fprintf(stderr, "pipeline: %s\n", err);
    return 1;
  }
  int rc = 1;
  fg_graph *g = build(fg_type_image(FG_U8, img.height, img.width,
                                    img.channels));
  fg_program *prog = NULL;
  if (fg_graph_status(g) != FG_OK) {
    fprintf(stderr, "pipeline: %s: %s\n", path, fg_graph_errmsg(g));
    goto done;
  }
  if (fg_compile(ctx, g, NULL, &prog) != FG_OK ||
      fg_image_alloc(&half, img.width, img.height, img.channels) != FG_OK ||
      fg_image_alloc(&light, img.width, img.height, 1) != FG_OK ||
      fg_program_run(prog, 1, (const void *[]){img.data}, 2,
                     (void *[]){half.data, light.data}) != FG_OK) {
    fprintf(stderr, "pipeline: %s: %s\n", path, fg_context_errmsg(ctx));
    goto done;
  }
  char name[256], out1[4096], out2[4096];
  stem(path, name, sizeof name);
  snprintf(out1, sizeof out1, "%s/%s-flipped-half.png", outdir, name);
  snprintf(out2, sizeof out2, "%s/%s-lightness.png", outdir, name);
  if (fg_image_write(out1, &half, 0, err, sizeof err) != FG_OK ||
      fg_image_write(out2, &light, 0, err, sizeof err) != FG_OK) {
    fprintf(stderr, "pipeline: %s\n", err);
    goto done;
  }
  printf("%s (%dx%d, %d channels, %d kernels)\n  -> %s\n  -> %s\n", path,
         img.width, img.height, img.channels,
         fg_program_kernel_count(prog), out1, out2);
  rc = 0;
done:
  fg_program_free(prog);
  fg_graph_free(g);
  fg_image_free(&img);
  fg_image_free(&half);
  fg_image_free(&light);
  return rc;
}

int main(int argc, char **argv) {
  const char *outdir = "out";
  int first = 1;
  if (argc > 2 && !strcmp(argv[1], "-o")) {
    outdir = argv[2];
    first = 3;
  }
  if (first >= argc) {
    fprintf(stderr, "usage: pipeline [-o OUTDIR] IMAGE...\n");
    return 2;
  }
  if (mkdir(outdir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "pipeline: cannot create %s: %s\n", outdir,
            strerror(errno));
    return 1;
  }
  fg_context *ctx;
  char err[512];
  if (fg_context_new(NULL, &ctx, err, sizeof err) != FG_OK) {
    fprintf(stderr, "pipeline: %s\n", err);
    return 1;
  }
  printf("fieldgraph %s on %s\n", fg_version(), fg_context_device(ctx));
  int failures = 0;
  for (int i = first; i < argc; i++)
    failures += process(ctx, argv[i], outdir);
  fg_context_stats s;
  fg_context_get_stats(ctx, &s);
  printf("%d image(s) written to %s/ (%llu kernels compiled, %llu from the "
         "cache)\n", argc - first - failures, outdir,
         (unsigned long long)s.kernels_compiled,
         (unsigned long long)s.cache_hits);
  fg_context_free(ctx);
  return failures ? 1 : 0;
}
