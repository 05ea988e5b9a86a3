/* tests/check_examples.c - the examples of Cog's GPUOperator document,
 * run on the CPU backend and checked against values computed here
 * independently: half on scalar, vector, matrix and colour fields,
 * halfDouble, square on big and small tensors, upsideDown and RGBtoCIELAB
 * on real photographs (the latter against a double-precision version of
 * the same formulas). */
#include "../examples/operators.h"
#include "testutil.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

START_TEST(test_examples_half_every_small_tensor) {
  fg_shape s = fg_shape2(33, 65);
  fg_type types[] = {fg_type_scalar(FG_F32, s), fg_type_vector(FG_F32, s, 2),
                     fg_type_vector(FG_F32, s, 3),
                     fg_type_matrix(FG_F32, s, 2, 2),
                     fg_type_vector(FG_F32, s, 4),
                     fg_type_vector(FG_F64, fg_shape3(2, 3, 4), 4)};
  for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
    fg_graph *g = fg_graph_new("half");
    fg_output(g, "out", ex_half(g, fg_input(g, "in", types[t])));
    size_t bytes = fg_type_bytes(types[t]);
    unsigned char *in = malloc(bytes), *out = malloc(bytes);
    bool f64 = types[t].elem == FG_F64;
    size_t n = bytes / (f64 ? 8 : 4);
    for (size_t i = 0; i < n; i++) {
      if (f64)
        ((double *)in)[i] = (double)i * 1.25 - 7;
      else
        ((float *)in)[i] = (float)i * 1.25f - 7;
    }
    tu_run(g, 1, (const void *[]){in}, 1, (void *[]){out});
    for (size_t i = 0; i < n; i++) {
      if (f64)
        ck_assert_double_eq(((double *)out)[i], ((double *)in)[i] / 2);
      else
        ck_assert_float_eq(((float *)out)[i], ((float *)in)[i] / 2);
    }
    free(in);
    free(out);
    fg_graph_free(g);
  }
}
END_TEST

START_TEST(test_examples_half_double_two_outputs) {
  fg_type t = fg_type_vector(FG_F32, fg_shape2(17, 19), 4);
  fg_graph *g = fg_graph_new("halfDouble");
  fg_field *h, *d;
  ex_half_double(g, fg_input(g, "in", t), &h, &d);
  fg_output(g, "half", h);
  fg_output(g, "double", d);
  size_t n = fg_type_bytes(t) / sizeof(float);
  float *in = malloc(n * 4), *oh = malloc(n * 4), *od = malloc(n * 4);
  for (size_t i = 0; i < n; i++)
    in[i] = (float)(i % 97) * 0.5f - 3;
  tu_run(g, 1, (const void *[]){in}, 2, (void *[]){oh, od});
  for (size_t i = 0; i < n; i++) {
    ck_assert_float_eq(oh[i], in[i] / 2);
    ck_assert_float_eq(od[i], in[i] * 2);
  }
  free(in);
  free(oh);
  free(od);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_examples_square_big_and_small) {
  fg_shape s = fg_shape2(21, 23);
  fg_type big = fg_type_matrix(FG_F32, s, 3, 3);     /* 9 planes */
  fg_type small = fg_type_vector(FG_F32, s, 3);      /* interleaved */
  fg_graph *g = fg_graph_new("square");
  fg_output(g, "big", ex_square(g, fg_input(g, "b", big)));
  fg_output(g, "small", ex_square(g, fg_input(g, "s", small)));
  size_t nb = fg_type_bytes(big) / 4, ns = fg_type_bytes(small) / 4;
  float *b = malloc(nb * 4), *bs = malloc(nb * 4);
  float *sm = malloc(ns * 4), *ss = malloc(ns * 4);
  for (size_t i = 0; i < nb; i++)
    b[i] = (float)((i * 31) % 101) - 50;
  for (size_t i = 0; i < ns; i++)
    sm[i] = (float)((i * 17) % 89) / 7 - 6;
  tu_run(g, 2, (const void *[]){b, sm}, 2, (void *[]){bs, ss});
  for (size_t i = 0; i < nb; i++)
    ck_assert_float_eq(bs[i], b[i] * b[i]);
  for (size_t i = 0; i < ns; i++)
    ck_assert_float_eq(ss[i], sm[i] * sm[i]);
  free(b);
  free(bs);
  free(sm);
  free(ss);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_examples_upside_down_real_photo) {
  char path[4096];
  fg_image img;
  char err[512];
  ck_assert_msg(fg_image_read(tu_sample("coffee.png", path, sizeof path), &img,
                              err, sizeof err) == FG_OK, "%s", err);
  fg_graph *g = fg_graph_new("upsideDown");
  fg_field *in = fg_input(g, "image", fg_type_image(FG_U8, img.height,
                                                    img.width, img.channels));
  fg_output(g, "flipped", ex_upside_down(g, in));
  size_t row = (size_t)img.width * (size_t)img.channels;
  uint8_t *out = malloc(row * (size_t)img.height);
  tu_run(g, 1, (const void *[]){img.data}, 1, (void *[]){out});
  for (int r = 0; r < img.height; r++)
    ck_assert_int_eq(memcmp(out + row * (size_t)r,
                            img.data + row * (size_t)(img.height - 1 - r),
                            row), 0);
  free(out);
  fg_image_free(&img);
  fg_graph_free(g);
}
END_TEST

START_TEST(test_examples_upside_down_requires_2d) {
  fg_graph *g = fg_graph_new("upsideDown");
  fg_field *in = fg_input(g, "line", fg_type_scalar(FG_F32, fg_shape1(9)));
  ck_assert_ptr_null(ex_upside_down(g, in));
  ck_assert_int_eq(fg_graph_status(g), FG_ESHAPE);
  ck_assert_ptr_nonnull(strstr(fg_graph_errmsg(g), "requires a 2D field"));
  fg_graph_free(g);
}
END_TEST

/* The reference's formulas in double precision, as an independent check. */
static void lab_reference(double r, double g, double b, double lab[3]) {
  double c[3] = {r, g, b};
  for (int i = 0; i < 3; i++)
    c[i] = c[i] > 0.04045 ? pow((c[i] + 0.055) / 1.055, 2.4) : c[i] / 12.92;
  for (int i = 0; i < 3; i++)
    c[i] *= 100;
  double x = c[0] * 0.4124 + c[1] * 0.3576 + c[2] * 0.1805;
  double y = c[0] * 0.2126 + c[1] * 0.7152 + c[2] * 0.0722;
  double z = c[0] * 0.0193 + c[1] * 0.1192 + c[2] * 0.9505;
  double v[3] = {x / 95.047, y / 100.0, z / 108.883};
  for (int i = 0; i < 3; i++)
    v[i] = v[i] > 0.008856 ? pow(v[i], 1.0 / 3) : 7.787 * v[i] + 16.0 / 116;
  lab[0] = v[1] * 116 - 16;
  lab[1] = (v[0] - v[1]) * 500;
  lab[2] = (v[1] - v[2]) * 200;
}

static void check_cielab(const char *sample) {
  char path[4096], err[512];
  fg_image img;
  ck_assert_msg(fg_image_read(tu_sample(sample, path, sizeof path), &img, err,
                              sizeof err) == FG_OK, "%s", err);
  fg_graph *g = fg_graph_new("lab");
  fg_field *in = fg_input(g, "image", fg_type_image(FG_U8, img.height,
                                                    img.width, img.channels));
  fg_output(g, "lab", ex_rgb_to_cielab(g, ex_to_unit_float(g, in)));
  size_t npix = (size_t)img.width * (size_t)img.height;
  float *lab = malloc(npix * 3 * sizeof *lab);
  tu_run(g, 1, (const void *[]){img.data}, 1, (void *[]){lab});
  double worst = 0;
  for (size_t p = 0; p < npix; p++) {
    const uint8_t *px = img.data + p * (size_t)img.channels;
    double rgb[3];
    for (int c = 0; c < 3; c++)
      rgb[c] = (float)(img.channels >= 3 ? px[c] : px[0]) * (1.0f / 255.0f);
    double want[3];
    lab_reference(rgb[0], rgb[1], rgb[2], want);
    for (int c = 0; c < 3; c++) {
      double d = fabs(lab[p * 3 + c] - want[c]);
      worst = d > worst ? d : worst;
      ck_assert_msg(d < 2e-3, "%s pixel %zu channel %d: %g, want %g", sample,
                    p, c, lab[p * 3 + c], want[c]);
    }
  }
  /* a real photo spans a real range of lightness */
  float lo = 100, hi = 0;
  for (size_t p = 0; p < npix; p++) {
    lo = lab[p * 3] < lo ? lab[p * 3] : lo;
    hi = lab[p * 3] > hi ? lab[p * 3] : hi;
  }
  ck_assert_float_gt(hi - lo, 50);
  free(lab);
  fg_image_free(&img);
  fg_graph_free(g);
}

START_TEST(test_examples_rgb_to_cielab_matches_double_precision) {
  check_cielab("astronaut.png");   /* RGB */
  check_cielab("camera.png");      /* grey */
}
END_TEST

START_TEST(test_examples_identity_transform_local_memory_tile) {
  /* sizes that are not multiples of the work-group: the rounded-up
   * threads must neither write nor break the barrier */
  const int R = 37, C = 53;
  int groups[3][2] = {{0, 0}, {4, 8}, {1, 32}};
  for (int gi = 0; gi < 3; gi++) {
    fg_type t = fg_type_vector(FG_F32, fg_shape2(R, C), 3);
    fg_graph *g = fg_graph_new("identity");
    fg_output(g, "out", ex_identity_transform(g, fg_input(g, "in", t),
                                              groups[gi][0], groups[gi][1]));
    size_t n = fg_type_bytes(t) / 4;
    float *in = malloc(n * 4), *out = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
      in[i] = (float)i * 0.5f - 100;
    tu_run(g, 1, (const void *[]){in}, 1, (void *[]){out});
    for (size_t i = 0; i < n; i++)
      ck_assert_msg(out[i] == in[i], "group %dx%d element %zu: %g != %g",
                    groups[gi][0], groups[gi][1], i, out[i], in[i]);
    free(in);
    free(out);
    fg_graph_free(g);
  }
}
END_TEST

START_TEST(test_examples_atomic_group_tickets) {
  const int R = 19, C = 45, GR = 4, GC = 8;
  fg_graph *g = fg_graph_new("tickets");
  fg_output(g, "t", ex_group_tickets(g, fg_shape2(R, C), GR, GC));
  int32_t *out = malloc(sizeof(int32_t) * R * C);
  tu_run(g, 0, NULL, 1, (void *[]){out});
  for (int gr = 0; gr * GR < R; gr++)
    for (int gc = 0; gc * GC < C; gc++) {
      /* the group's threads inside the field, counted independently */
      int rows = R - gr * GR < GR ? R - gr * GR : GR;
      int cols = C - gc * GC < GC ? C - gc * GC : GC;
      int count = rows * cols;
      bool seen[GR * GC];
      memset(seen, 0, sizeof seen);
      for (int r = gr * GR; r < gr * GR + rows; r++)
        for (int c = gc * GC; c < gc * GC + cols; c++) {
          int v = out[r * C + c];
          ck_assert_int_eq(v / 1000, count);
          int ticket = v % 1000;
          ck_assert_int_ge(ticket, 0);
          ck_assert_int_lt(ticket, count);
          ck_assert_msg(!seen[ticket], "ticket %d twice in group (%d, %d)",
                        ticket, gr, gc);
          seen[ticket] = true;
        }
    }
  free(out);
  fg_graph_free(g);
}
END_TEST

int main(void) {
  Suite *s = suite_create("examples");
  TCase *tc = tcase_create("examples");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_examples_half_every_small_tensor);
  tcase_add_test(tc, test_examples_half_double_two_outputs);
  tcase_add_test(tc, test_examples_square_big_and_small);
  tcase_add_test(tc, test_examples_upside_down_real_photo);
  tcase_add_test(tc, test_examples_upside_down_requires_2d);
  tcase_add_test(tc, test_examples_rgb_to_cielab_matches_double_precision);
  tcase_add_test(tc, test_examples_identity_transform_local_memory_tile);
  tcase_add_test(tc, test_examples_atomic_group_tickets);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
