/* examples/draw_fusion.c - writes before/after-fusion drawings of two
 * pipelines: RGB to CIELab (with its conversions) and a blur followed by
 * pointwise operators.  Usage: draw_fusion [OUTDIR] (default "."); writes
 * OUTDIR/{cielab,blur}-{before,after}.svg. */
#include "operators.h"

#include <stdio.h>

/* A 3 x 3 box blur: non-local reads, so its input stays in memory. */
static fg_field *blur(fg_graph *g, fg_field *in) {
  fg_type t = fg_field_type(in);
  fg_op *op = fg_op_begin(g, "blur", 1, &t);
  fg_expr *sum = fg_var(op, FG_F32, fg_type_tensor_elements(t));
  for (int dr = -1; dr <= 1; dr++)
    for (int dc = -1; dc <= 1; dc++)
      fg_assign(sum, fg_add(sum, fg_read_tensor_at(op, in, 2,
                                                   fg_addi(fg_row(op), dr),
                                                   fg_addi(fg_column(op), dc))));
  fg_write_tensor(op, 0, fg_divf(sum, 9.0f));
  return fg_op_end(op);
}

static int draw(fg_context *ctx, fg_graph *g, const char *dir,
                const char *name) {
  fg_program *prog = NULL;
  char before[4096], after[4096], err[512];
  snprintf(before, sizeof before, "%s/%s-before.svg", dir, name);
  snprintf(after, sizeof after, "%s/%s-after.svg", dir, name);
  if (fg_graph_status(g) != FG_OK) {
    fprintf(stderr, "draw_fusion: %s\n", fg_graph_errmsg(g));
    return 1;
  }
  if (fg_compile(ctx, g, NULL, &prog) != FG_OK) {
    fprintf(stderr, "draw_fusion: %s\n", fg_context_errmsg(ctx));
    return 1;
  }
  int rc = 0;
  if (fg_graph_draw(g, NULL, before, err, sizeof err) != FG_OK ||
      fg_graph_draw(g, prog, after, err, sizeof err) != FG_OK) {
    fprintf(stderr, "draw_fusion: %s\n", err);
    rc = 1;
  } else {
    printf("%s: %s, %s\n%s", name, before, after,
           fg_program_fusion_report(prog));
  }
  fg_program_free(prog);
  return rc;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  fg_context *ctx;
  char err[512];
  if (fg_context_new(NULL, &ctx, err, sizeof err) != FG_OK) {
    fprintf(stderr, "draw_fusion: %s\n", err);
    return 1;
  }
  fg_graph *lab = fg_graph_new("RGB to CIELab");
  fg_field *img = fg_input(lab, "image", fg_type_image(FG_U8, 512, 512, 3));
  fg_output(lab, "lightness",
            ex_lightness_u8(lab, ex_rgb_to_cielab(lab,
                                                  ex_to_unit_float(lab, img))));
  fg_graph *bl = fg_graph_new("blur pipeline");
  fg_field *x = fg_input(bl, "image", fg_type_image(FG_U8, 512, 512, 3));
  fg_field *f = ex_to_unit_float(bl, x);
  fg_output(bl, "result", ex_to_u8(bl, ex_half(bl, blur(bl, f))));
  int rc = draw(ctx, lab, dir, "cielab") | draw(ctx, bl, dir, "blur");
  fg_graph_free(lab);
  fg_graph_free(bl);
  fg_context_free(ctx);
  return rc;
}
