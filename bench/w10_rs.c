/* bench/w10_rs.c - W10: RenderScript kernels, as a script from elsewhere
 * would have them: the reference's invert and greyscale on a 4000 x 3000
 * uchar4 image, and a float4 tone curve calling pow, exp and log2 on
 * 2048 x 2048, at full precision (rs_fp_full) and relaxed
 * (rs_fp_relaxed).  Each next to a threaded C loop of the same formulas
 * (scalar libm) with the largest difference from it: the rate at which a
 * script's own code runs, compared with the loop a C programmer writes. */
#include "workloads.h"

#include <fieldgraph/renderscript.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W10_W 4000
#define W10_H 3000
#define W10_TONE 2048

static const char w10_script[] =
  "#pragma version(1)\n"
  "#pragma rs java_package_name(bench)\n"
  "#pragma rs_fp_%s\n"
  "static const float4 weight = {0.299f, 0.587f, 0.114f, 0.0f};\n"
  "uchar4 RS_KERNEL invert(uchar4 in) {\n"
  "  uchar4 out = in;\n"
  "  out.r = 255 - in.r; out.g = 255 - in.g; out.b = 255 - in.b;\n"
  "  return out;\n"
  "}\n"
  "uchar4 RS_KERNEL greyscale(uchar4 in) {\n"
  "  const float4 f = rsUnpackColor8888(in);\n"
  "  return rsPackColorTo8888((float4){dot(f, weight)});\n"
  "}\n"
  "float4 RS_KERNEL tone(float4 in) {\n"
  "  float3 c = pow(in.rgb, 1.0f / 2.2f);\n"
  "  return (float4){c.x, c.y, c.z, exp(-in.a * 3.0f) + log2(1.0f + in.r)};\n"
  "}\n";

/* ---- the C loops --------------------------------------------------------- */

typedef struct w10_job {
  const void *in;
  void *out;
} w10_job;

static void invert_slice(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  const w10_job *j = ctx;
  const uint8_t *in = j->in;
  uint8_t *out = j->out;
  for (int64_t i = 4 * b; i < 4 * e; i += 4) {
    out[i] = (uint8_t)(255 - in[i]);
    out[i + 1] = (uint8_t)(255 - in[i + 1]);
    out[i + 2] = (uint8_t)(255 - in[i + 2]);
    out[i + 3] = in[i + 3];
  }
}

/* rsUnpackColor8888, the dot product in the kernel's order, and
 * rsPackColorTo8888 (times 255, plus 1/2, clamped, truncated) */
static uint8_t pack(float v) {
  v = v * 255.0f + 0.5f;
  v = v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v;
  return (uint8_t)v;
}

static void grey_slice(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  const w10_job *j = ctx;
  const uint8_t *in = j->in;
  uint8_t *out = j->out;
  for (int64_t i = 4 * b; i < 4 * e; i += 4) {
    float d = in[i] / 255.0f * 0.299f;
    d += in[i + 1] / 255.0f * 0.587f;
    d += in[i + 2] / 255.0f * 0.114f;
    d += in[i + 3] / 255.0f * 0.0f;
    out[i] = out[i + 1] = out[i + 2] = out[i + 3] = pack(d);
  }
}

static void tone_slice(void *ctx, int64_t b, int64_t e, int t) {
  (void)t;
  const w10_job *j = ctx;
  const float *in = j->in;
  float *out = j->out;
  for (int64_t i = 4 * b; i < 4 * e; i += 4) {
    for (int k = 0; k < 3; k++)
      out[i + k] = powf(in[i + k], 1.0f / 2.2f);
    out[i + 3] = expf(-in[i + 3] * 3.0f) + log2f(1.0f + in[i]);
  }
}

static void invert_c(void *ctx) {
  bench_parallel((int64_t)W10_W * W10_H, invert_slice, ctx);
}
static void grey_c(void *ctx) {
  bench_parallel((int64_t)W10_W * W10_H, grey_slice, ctx);
}
static void tone_c(void *ctx) {
  bench_parallel((int64_t)W10_TONE * W10_TONE, tone_slice, ctx);
}

/* ---- the table ----------------------------------------------------------- */

static fg_rs_script *w10_load(const char *fp) {
  char text[sizeof w10_script + 16], err[1024];
  snprintf(text, sizeof text, w10_script, fp);
  fg_rs_script *s = NULL;
  if (fg_rs_script_new_source("w10", "w10.rs", text, (size_t)-1, &s, err,
                              sizeof err) != FG_OK) {
    fprintf(stderr, "bench: W10 script: %s\n", err);
    exit(1);
  }
  return s;
}

/* Times kernel `name` of s over in (type t) into out, as a row next to
 * the C loop's row crow; err: the largest difference from ref (n values
 * of u8 or f32). */
static void w10_row(bench_table *tb, fg_context *ctx, fg_rs_script *s,
                    const char *name, const char *label, fg_type t,
                    const void *in, void *out, const void *ref, size_t n,
                    bool u8, double bytes, int crow) {
  fg_graph *g = fg_graph_new(name);
  fg_field *f = fg_input(g, "in", t);
  fg_output(g, "out", fg_rs_map(g, s, name, 1, &f, NULL));
  fgb_check_graph(g, "W10 graph");
  fg_program *p = fgb_compile(ctx, g, FG_FUSION_ON, FG_PRECISION_FULL);
  double sec = fgb_time(ctx, p, 1, (const void *[]){in}, 1, (void *[]){out});
  double err = 0;
  if (u8) {
    for (size_t i = 0; i < n; i++) {
      int d = abs((int)((const uint8_t *)out)[i] -
                  (int)((const uint8_t *)ref)[i]);
      err = d > err ? d : err;
    }
  } else {
    err = bench_max_abs_err(out, ref, n);
  }
  int r = bench_row_add(tb, label, sec, bytes, err);
  tb->rows[r].c = crow;
  snprintf(tb->rows[r].note, sizeof tb->rows[r].note, "%d kernel%s, out %08x",
           fg_program_kernel_count(p),
           fg_program_kernel_count(p) == 1 ? "" : "s",
           bench_hash(out, u8 ? n : n * sizeof(float)));
  fg_program_free(p);
  fg_graph_free(g);
}

void bench_w10(fg_context *ctx) {
  const size_t npx = (size_t)W10_W * W10_H, ntone = (size_t)W10_TONE * W10_TONE;
  uint8_t *img = bench_alloc(npx * 4), *out8 = bench_alloc(npx * 4);
  uint8_t *ref8 = bench_alloc(npx * 4);
  float *tin = bench_alloc(ntone * 4 * sizeof(float));
  float *tout = bench_alloc(ntone * 4 * sizeof(float));
  float *tref = bench_alloc(ntone * 4 * sizeof(float));
  for (size_t i = 0; i < npx * 4; i++)
    img[i] = (uint8_t)((i * 2654435761u) >> 24);
  for (size_t i = 0; i < ntone * 4; i++)
    tin[i] = (float)(((uint32_t)i * 2654435761u) >> 16) / 65535.0f;
  char title[160];
  snprintf(title, sizeof title, "W10 RenderScript kernels: invert, greyscale "
           "on uchar4 %dx%d, tone (pow, exp, log2) on float4 %dx%d (%s)",
           W10_W, W10_H, W10_TONE, W10_TONE, fg_context_backend_name(ctx));
  bench_table tb;
  bench_table_init(&tb, title);
  fg_type timg = fg_type_image(FG_U8, W10_H, W10_W, 4);
  fg_type ttone = fg_type_vector(FG_F32, fg_shape2(W10_TONE, W10_TONE), 4);
  double img_io = 2.0 * (double)npx * 4, tone_io = 2.0 * (double)ntone * 16;
  fg_rs_script *full = w10_load("full"), *relaxed = w10_load("relaxed");

  w10_job j = {img, ref8};
  int c = bench_row_add(&tb, "invert C loop", bench_median(invert_c, &j, -1,
                                                            -1), img_io, 0);
  w10_row(&tb, ctx, full, "invert", "invert RenderScript", timg, img, out8,
          ref8, npx * 4, true, img_io, c);
  c = bench_row_add(&tb, "greyscale C loop", bench_median(grey_c, &j, -1, -1),
                    img_io, 0);
  w10_row(&tb, ctx, full, "greyscale", "greyscale RenderScript", timg, img,
          out8, ref8, npx * 4, true, img_io, c);
  w10_job tj = {tin, tref};
  c = bench_row_add(&tb, "tone C loop (scalar libm)",
                    bench_median(tone_c, &tj, -1, -1), tone_io, 0);
  w10_row(&tb, ctx, full, "tone", "tone RenderScript rs_fp_full", ttone, tin,
          tout, tref, ntone * 4, false, tone_io, c);
  w10_row(&tb, ctx, relaxed, "tone", "tone RenderScript rs_fp_relaxed", ttone,
          tin, tout, tref, ntone * 4, false, tone_io, c);
  bench_table_print(&tb);
  fg_rs_script_free(full);
  fg_rs_script_free(relaxed);
  free(img);
  free(out8);
  free(ref8);
  free(tin);
  free(tout);
  free(tref);
}
