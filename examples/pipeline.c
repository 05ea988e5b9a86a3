/* examples/pipeline.c - the main job until the `fieldgraph` tool exists:
 * for each photo given, a graph of Cog operators (u8 to float, upsideDown,
 * half, RGBtoCIELAB, back to u8) compiled and run asynchronously (two
 * photos in flight; each run's callback writes its images and starts the
 * next photo), writing OUT/<name>-flipped-half.png and
 * OUT/<name>-lightness.png.
 *
 *   pipeline [-o OUTDIR] IMAGE...
 */
#include "example_util.h"
#include "operators.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Builds the pipeline for one image type; outputs: flipped-half, lightness. */
static fg_graph *build(fg_type t) {
  fg_graph *g = fg_graph_new("pipeline");
  fg_field *img = fg_input(g, "image", t);
  fg_field *rgb = ex_to_unit_float(g, img);
  fg_output(g, "flipped_half", ex_to_u8(g, ex_half(g, ex_upside_down(g, rgb))));
  fg_output(g, "lightness", ex_lightness_u8(g, ex_rgb_to_cielab(g, rgb)));
  return g;
}

/* The batch: photos start as earlier ones finish, a few in flight, each
 * compiled for its size (the kernel cache makes repeats cheap). */
typedef struct batch {
  fg_context *ctx;
  const char *outdir;
  char **paths;
  int n, next, written, failures;
} batch;

/* One photo on its way through the pipeline. */
typedef struct job {
  batch *b;
  const char *path;
  fg_image img, half, light;
  fg_graph *g;
  fg_program *prog;
} job;

static void job_free(job *j) {
  fg_program_free(j->prog);
  fg_graph_free(j->g);
  fg_image_free(&j->img);
  fg_image_free(&j->half);
  fg_image_free(&j->light);
  free(j);
}

static void start_next(batch *b);

/* On the loop thread when a photo's run ended: write its images and start
 * the next photo. */
static void on_done(fg_run *run, fg_status st, void *user) {
  job *j = user;
  batch *b = j->b;
  char err[512], name[256], out1[4096], out2[4096];
  if (st != FG_OK) {
    fprintf(stderr, "pipeline: %s: %s\n", j->path, fg_run_errmsg(run));
    b->failures++;
  } else {
    example_stem(j->path, name, sizeof name);
    snprintf(out1, sizeof out1, "%s/%s-flipped-half.png", b->outdir, name);
    snprintf(out2, sizeof out2, "%s/%s-lightness.png", b->outdir, name);
    if (fg_image_write(out1, &j->half, 0, err, sizeof err) != FG_OK ||
        fg_image_write(out2, &j->light, 0, err, sizeof err) != FG_OK) {
      fprintf(stderr, "pipeline: %s\n", err);
      b->failures++;
    } else {
      printf("%s (%dx%d, %d channels, %d kernels)\n  -> %s\n  -> %s\n",
             j->path, j->img.width, j->img.height, j->img.channels,
             fg_program_kernel_count(j->prog), out1, out2);
      b->written++;
    }
  }
  job_free(j);          /* a run's program may be freed in its callback */
  start_next(b);
}

/* Reads, builds, compiles and starts the next photo; a photo that fails
 * before its run starts is reported and skipped. */
static void start_next(batch *b) {
  while (b->next < b->n) {
    job *j = calloc(1, sizeof *j);
    char err[512];
    if (!j) {
      fprintf(stderr, "pipeline: out of memory\n");
      b->failures += b->n - b->next;
      b->next = b->n;
      return;
    }
    j->b = b;
    j->path = b->paths[b->next++];
    if (fg_image_read(j->path, &j->img, err, sizeof err) != FG_OK) {
      fprintf(stderr, "pipeline: %s\n", err);
      goto fail;
    }
    j->g = build(fg_type_image(FG_U8, j->img.height, j->img.width,
                               j->img.channels));
    if (fg_graph_status(j->g) != FG_OK) {
      fprintf(stderr, "pipeline: %s: %s\n", j->path, fg_graph_errmsg(j->g));
      goto fail;
    }
    if (fg_compile(b->ctx, j->g, NULL, &j->prog) != FG_OK ||
        fg_image_alloc(&j->half, j->img.width, j->img.height,
                       j->img.channels) != FG_OK ||
        fg_image_alloc(&j->light, j->img.width, j->img.height, 1) != FG_OK ||
        fg_program_start(j->prog, 1, (const void *[]){j->img.data}, 2,
                         (void *[]){j->half.data, j->light.data}, on_done, j,
                         NULL) != FG_OK) {
      fprintf(stderr, "pipeline: %s: %s\n", j->path,
              fg_context_errmsg(b->ctx));
      goto fail;
    }
    return;
  fail:
    b->failures++;
    job_free(j);
  }
}

int main(int argc, char **argv) {
  const char *outdir;
  int first = example_outdir(argc, argv, &outdir);
  if (first >= argc) {
    fprintf(stderr, "usage: pipeline [-o OUTDIR] IMAGE...\n");
    return 2;
  }
  if (example_mkdir("pipeline", outdir))
    return 1;
  fg_context *ctx;
  char err[512];
  if (fg_context_new(NULL, &ctx, err, sizeof err) != FG_OK) {
    fprintf(stderr, "pipeline: %s\n", err);
    return 1;
  }
  printf("fieldgraph %s on %s\n", fg_version(), fg_context_device(ctx));
  /* two photos in flight: one computing while the other is read, compiled
   * or written */
  batch b = {.ctx = ctx, .outdir = outdir, .paths = argv + first,
             .n = argc - first};
  start_next(&b);
  start_next(&b);
  fg_context_wait(ctx);
  fg_context_stats s;
  fg_context_get_stats(ctx, &s);
  printf("%d image(s) written to %s/ (%llu kernels compiled, %llu from the "
         "cache)\n", b.written, outdir,
         (unsigned long long)s.kernels_compiled,
         (unsigned long long)s.cache_hits);
  fg_context_free(ctx);
  return b.failures ? 1 : 0;
}
