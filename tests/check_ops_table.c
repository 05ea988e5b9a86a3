/* tests/check_ops_table.c - the operator table (fieldgraph/op_table.h)
 * against what it describes: every row's C call is declared in the public
 * headers, every operator of ops_pointwise.h / ops_nonlocal.h has a row
 * (or a stated reason why a pipeline cannot call it), the reference table
 * of docs/pipeline.md is the table row for row, signatures agree with
 * parameters, and fg_ops_call checks its arguments and builds what the C
 * call builds (results against plain C loops). */
#include "testutil.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>

/* Public operators that no row calls, each with why: the pipeline
 * language reaches them by syntax, or they take what a pipeline cannot
 * make. */
static const char *const not_rows[][2] = {
  {"fg_binary_scalar", "arithmetic with a number: x * 0.5"},
  {"fg_scalar_binary", "arithmetic with a number: 0.5 * x"},
  {"fg_clamp_field", "clamp(x, lo, hi) with numbers"},
  {"fg_scalar_constant", "a number in an expression"},
  {"fg_broadcast", "implicit: a number or a smaller field beside a field"},
  {"fg_lut3d", "takes a 3-D cube field"},
  {"fg_intrinsic_lut3d", "takes a 3-D cube field"},
  {"fg_intrinsic_yuv_to_rgb", "takes a raw YUV frame, not an image"},
};

/* The text of file rel under the source tree (malloc'd). */
static char *slurp(const char *rel) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", FG_SRC_DIR, rel);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = 0;
  fclose(f);
  return s;
}

/* Whether text declares function name: "name(" at the start of a
 * declaration (after a return type on the same line), not in a comment. */
static bool declares(const char *text, const char *name) {
  size_t len = strlen(name);
  for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
    if (p[len] != '(' || (p > text && (isalnum((unsigned char)p[-1]) ||
                                       p[-1] == '_')))
      continue;
    const char *line = p;
    while (line > text && line[-1] != '\n')
      line--;
    if (*line != ' ' && *line != '/' && *line != '*')
      return true;
  }
  return false;
}

static char *headers(void) {
  static const char *const h[] = {
    "include/fieldgraph/ops_pointwise.h", "include/fieldgraph/ops_nonlocal.h",
    "include/fieldgraph/builtins.h", "include/fieldgraph/graph.h",
    "include/fieldgraph/dsl.h"};
  size_t n = 0;
  char *all = NULL;
  for (size_t i = 0; i < sizeof h / sizeof *h; i++) {
    char *t = slurp(h[i]);
    size_t k = strlen(t);
    all = realloc(all, n + k + 2);
    ck_assert_ptr_nonnull(all);
    memcpy(all + n, t, k);
    n += k;
    all[n++] = '\n';
    all[n] = 0;
    free(t);
  }
  return all;
}

START_TEST(test_rows_name_declared_calls) {
  char *h = headers();
  int n;
  const fg_op_info *t = fg_ops_table(&n);
  ck_assert_int_gt(n, 60);
  for (int i = 0; i < n; i++) {
    ck_assert_msg(declares(h, t[i].c_call), "row '%s' calls %s, which no "
                  "public header declares", t[i].name, t[i].c_call);
    ck_assert_ptr_eq(fg_ops_find(t[i].name), &t[i]);
    for (int j = 0; j < i; j++)
      ck_assert_msg(strcmp(t[i].name, t[j].name), "two rows named '%s'",
                    t[i].name);
  }
  ck_assert_ptr_null(fg_ops_find("no_such_operator"));
  ck_assert_ptr_null(fg_ops_find(NULL));
  free(h);
}
END_TEST

/* Every function the two operator headers declare is some row's C call or
 * listed in not_rows with its reason. */
START_TEST(test_every_operator_has_a_row) {
  static const char *const files[] = {"include/fieldgraph/ops_pointwise.h",
                                      "include/fieldgraph/ops_nonlocal.h"};
  int n, missing = 0;
  const fg_op_info *t = fg_ops_table(&n);
  for (size_t f = 0; f < 2; f++) {
    char *text = slurp(files[f]);
    for (char *line = text; line && *line;) {
      char *end = strchr(line, '\n');
      if (end)
        *end = 0;
      /* an operator's declaration: "fg_field *fg_...(" at the line's
       * start (helpers such as fg_yuv_frame_bytes return other types) */
      char *p = !strncmp(line, "fg_field *fg_", 13) ? line + 10 : NULL;
      if (p) {
        char *q = p;
        while (*q == '_' || isalnum((unsigned char)*q))
          q++;
        if (*q == '(') {
          char name[96];
          snprintf(name, sizeof name, "%.*s", (int)(q - p), p);
          bool found = false;
          for (int i = 0; i < n && !found; i++)
            found = !strcmp(t[i].c_call, name);
          for (size_t k = 0; k < sizeof not_rows / sizeof *not_rows; k++)
            found |= !strcmp(not_rows[k][0], name);
          if (!found) {
            fprintf(stderr, "%s: %s has no row in the operator table\n",
                    files[f], name);
            missing++;
          }
        }
      }
      line = end ? end + 1 : NULL;
    }
    free(text);
  }
  ck_assert_msg(missing == 0, "%d public operators without a row", missing);
}
END_TEST

/* The row as docs/pipeline.md writes it (`fieldgraph ops --markdown`). */
static void doc_line(const fg_op_info *r, char *buf, size_t size) {
  size_t k = (size_t)snprintf(buf, size, "| `%s` | ", r->name);
  for (const char *p = r->params; *p && k + 3 < size; p++) {
    if (*p == ',') {
      buf[k++] = ',';
      buf[k++] = ' ';
    } else {
      buf[k++] = *p;
    }
  }
  k += (size_t)snprintf(buf + k, size - k, " | ");
  for (const char *p = r->doc; *p && k + 3 < size; p++) {
    if (*p == '|' || *p == '*')
      buf[k++] = '\\';
    buf[k++] = *p;
  }
  snprintf(buf + k, size - k, " | `%s` |", r->c_call);
}

START_TEST(test_docs_table_is_the_table) {
  char *doc = slurp("docs/pipeline.md");
  const char *p = strstr(doc, "| name | parameters | what | C call |");
  ck_assert_msg(p != NULL, "docs/pipeline.md has no operator table");
  p = strchr(p, '\n') + 1;   /* header */
  p = strchr(p, '\n') + 1;   /* --- */
  int n;
  const fg_op_info *t = fg_ops_table(&n);
  for (int i = 0; i < n; i++) {
    char want[1024];
    doc_line(&t[i], want, sizeof want);
    const char *end = strchr(p, '\n');
    ck_assert_ptr_nonnull(end);
    ck_assert_msg((size_t)(end - p) == strlen(want) &&
                  !strncmp(p, want, strlen(want)),
                  "docs/pipeline.md's operator table, row %d: \"%.*s\"; the "
                  "table says \"%s\" (fieldgraph ops --markdown prints it)",
                  i + 1, (int)(end - p), p, want);
    p = end + 1;
  }
  ck_assert_msg(!strncmp(p, "| every builtin", 15), "docs/pipeline.md has "
                "rows the table does not: \"%.40s\"", p);
  free(doc);
}
END_TEST

/* Signatures and parameter lists agree: one letter per parameter, known
 * letters, enum defaults that are names of the enum. */
START_TEST(test_signatures_match_parameters) {
  int n;
  const fg_op_info *t = fg_ops_table(&n);
  for (int i = 0; i < n; i++) {
    int commas = 0;
    for (const char *p = t[i].params; *p; p++)
      commas += *p == ',';
    ck_assert_msg(fg_ops_param_count(&t[i]) == commas + 1, "row '%s': sig "
                  "\"%s\" for params \"%s\"", t[i].name, t[i].sig,
                  t[i].params);
    ck_assert_int_le(fg_ops_param_count(&t[i]), FG_OP_MAX_PARAMS);
    const char *p = t[i].params;
    for (const char *s = t[i].sig; *s; s++) {
      ck_assert_msg(strchr("Fdilbsw", *s) || fg_ops_enum_names(*s),
                    "row '%s': unknown letter '%c'", t[i].name, *s);
      size_t len = strcspn(p, ","), name = strcspn(p, "=,");
      const char *const *names = fg_ops_enum_names(*s);
      if (names && len > name) {
        bool ok = false;
        for (int k = 0; names[k]; k++)
          ok |= strlen(names[k]) == len - name - 1 &&
                !strncmp(names[k], p + name + 1, len - name - 1);
        ck_assert_msg(ok, "row '%s': default \"%.*s\" is no name of its "
                      "enum", t[i].name, (int)len, p);
      }
      p += len + (p[len] == ',');
    }
    switch (t[i].kind) {
    case FG_OPK_EXPR1: ck_assert_ptr_nonnull(t[i].expr1); break;
    case FG_OPK_EXPR2: ck_assert_ptr_nonnull(t[i].expr2); break;
    case FG_OPK_EXPR3: ck_assert_ptr_nonnull(t[i].expr3); break;
    case FG_OPK_GRAPH: ck_assert_ptr_nonnull(t[i].build); break;
    case FG_OPK_REDUCE: break;
    }
  }
}
END_TEST

/* rgba() of an image without alpha: the alpha is the type's maximum
 * (1 for floats), exactly, for every element type (an i8 image's was
 * 255 converted out of range; a 64-bit one's cannot pass a double). */
START_TEST(test_call_rgba_alpha_is_the_type_maximum) {
  static const struct { fg_elem e; uint64_t max; } t[] = {
      {FG_I8, INT8_MAX}, {FG_U8, UINT8_MAX}, {FG_I16, INT16_MAX},
      {FG_U16, UINT16_MAX}, {FG_I32, INT32_MAX}, {FG_U32, UINT32_MAX},
      {FG_I64, INT64_MAX}, {FG_U64, UINT64_MAX}};
  for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
    fg_graph *g = fg_graph_new("rgba");
    fg_field *img = fg_input(g, "rgb", fg_type_vector(t[i].e, fg_shape2(2, 3),
                                                       3));
    fg_op_args a = {.field = {img}};
    fg_output(g, "rgba", fg_ops_call(g, fg_ops_find("rgba"), &a));
    ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
    size_t es = fg_elem_size(t[i].e);
    unsigned char in[6 * 3 * 8] = {0}, out[6 * 4 * 8];
    tu_run(g, 1, (const void *[]){in}, 1, (void *[]){out});
    for (int p = 0; p < 6; p++) {
      uint64_t v = 0;
      memcpy(&v, out + (size_t)(p * 4 + 3) * es, es);  /* little-endian */
      ck_assert_msg(v == t[i].max, "%s pixel %d: alpha %llu, expected %llu",
                    fg_elem_name(t[i].e), p, (unsigned long long)v,
                    (unsigned long long)t[i].max);
    }
    fg_graph_free(g);
  }
}
END_TEST

START_TEST(test_call_checks_arguments) {
  fg_graph *g = fg_graph_new("t");
  fg_field *img = fg_input(g, "img", fg_type_image(FG_F32, 4, 4, 1));
  /* a required field missing */
  fg_op_args a = {0};
  ck_assert_ptr_null(fg_ops_call(g, fg_ops_find("box_blur"), &a));
  expect_error(g, FG_EINVAL, "box_blur", "'image'", "missing", NULL);
  fg_graph_free(g);

  g = fg_graph_new("t");
  fg_graph *other = fg_graph_new("t");
  fg_field *foreign = fg_input(other, "x", fg_type_image(FG_F32, 4, 4, 1));
  a = (fg_op_args){.field = {foreign}};
  ck_assert_ptr_null(fg_ops_call(g, fg_ops_find("transpose"), &a));
  expect_error(g, FG_EINVAL, "transpose", "another graph", NULL);
  fg_graph_free(other);
  fg_graph_free(g);

  /* a list missing; an expression row; NULL arguments */
  g = fg_graph_new("t");
  img = fg_input(g, "img", fg_type_image(FG_F32, 4, 4, 1));
  a = (fg_op_args){.field = {img}};
  ck_assert_ptr_null(fg_ops_call(g, fg_ops_find("lut1d"), &a));
  expect_error(g, FG_EINVAL, "lut1d", "'table'", "list", NULL);
  fg_graph_free(g);
  g = fg_graph_new("t");
  img = fg_input(g, "img", fg_type_image(FG_F32, 4, 4, 1));
  a = (fg_op_args){.field = {img}};
  ck_assert_ptr_null(fg_ops_call(g, fg_ops_find("sqrt"), &a));
  expect_error(g, FG_EINVAL, "sqrt", "expression row", NULL);
  fg_graph_free(g);
  g = fg_graph_new("t");
  ck_assert_ptr_null(fg_ops_call(g, NULL, &a));
  expect_error(g, FG_EINVAL, "fg_ops_call", "operator", NULL);
  fg_graph_free(g);
  (void)img;
}
END_TEST

/* min_loc / max_loc through the table against a C scan; the reduction
 * rows against a C sum. */
START_TEST(test_call_locations_and_reductions) {
  enum { H = 37, W = 53 };
  static float px[H][W];
  unsigned s = 12345;
  for (int r = 0; r < H; r++)
    for (int c = 0; c < W; c++) {
      s = s * 1103515245u + 12345u;
      px[r][c] = (float)((s >> 8) % 1000) / 7.0f;
    }
  px[20][3] = -5;     /* the minimum, once */
  px[2][40] = 500;    /* the maximum, twice: the first in row order */
  px[30][1] = 500;
  fg_graph *g = fg_graph_new("t");
  fg_field *img = fg_input(g, "img", fg_type_image(FG_F32, H, W, 1));
  fg_op_args a = {.field = {img}};
  fg_output(g, "lo", fg_ops_call(g, fg_ops_find("min_loc"), &a));
  fg_output(g, "hi", fg_ops_call(g, fg_ops_find("max_loc"), &a));
  fg_output(g, "sum", fg_ops_call(g, fg_ops_find("sum"), &a));
  expect_ok(g);
  int64_t lo[3], hi[3];
  float sum;
  tu_run(g, 1, (const void *[]){px}, 3, (void *[]){lo, hi, &sum});
  ck_assert_msg(lo[0] == 0 && lo[1] == 20 && lo[2] == 3, "min at (%lld, "
                "%lld, %lld)", (long long)lo[0], (long long)lo[1],
                (long long)lo[2]);
  ck_assert_msg(hi[0] == 0 && hi[1] == 2 && hi[2] == 40, "max at (%lld, "
                "%lld, %lld)", (long long)hi[0], (long long)hi[1],
                (long long)hi[2]);
  double ref = 0;
  for (int r = 0; r < H; r++)
    for (int c = 0; c < W; c++)
      ref += px[r][c];
  ck_assert_msg(fabs(sum - ref) <= 1e-4 * fabs(ref), "sum %g, C %g", sum,
                ref);
  fg_graph_free(g);
}
END_TEST

/* lut1d and rs_lut through the table against C look-ups. */
START_TEST(test_call_tables) {
  enum { H = 5, W = 9 };
  uint8_t px[H][W][4];
  float unit[H][W];
  for (int r = 0; r < H; r++)
    for (int c = 0; c < W; c++) {
      for (int k = 0; k < 4; k++)
        px[r][c][k] = (uint8_t)(r * 50 + c * 7 + k * 31);
      unit[r][c] = (float)(r * W + c) / (H * W - 1);
    }
  float tab[4][256], lut[3] = {0.0f, 10.0f, 40.0f};
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < 256; i++)
      tab[k][i] = (float)((i * (k + 3) + 11 * k) % 256);
  fg_op_list l[4], t1 = {3, 1, 3, lut};
  for (int k = 0; k < 4; k++)
    l[k] = (fg_op_list){256, 1, 256, tab[k]};
  fg_graph *g = fg_graph_new("t");
  fg_field *in = fg_input(g, "px", fg_type_image(FG_U8, H, W, 4));
  fg_field *u = fg_input(g, "unit", fg_type_image(FG_F32, H, W, 1));
  fg_op_args a = {.field = {in}, .list = {NULL, &l[0], &l[1], &l[2], &l[3]}};
  fg_output(g, "lut", fg_ops_call(g, fg_ops_find("rs_lut"), &a));
  fg_op_args b = {.field = {u}, .list = {NULL, &t1}};
  fg_output(g, "lut1d", fg_ops_call(g, fg_ops_find("lut1d"), &b));
  expect_ok(g);
  uint8_t out[H][W][4];
  float o1[H][W];
  tu_run(g, 2, (const void *[]){px, unit}, 2, (void *[]){out, o1});
  for (int r = 0; r < H; r++)
    for (int c = 0; c < W; c++) {
      for (int k = 0; k < 4; k++)
        ck_assert_int_eq(out[r][c][k], (int)tab[k][px[r][c][k]]);
      /* linear between entries at x (N - 1) */
      double x = unit[r][c] * 2.0;
      int i0 = (int)floor(x);
      if (i0 > 1)
        i0 = 1;
      double want = lut[i0] + (lut[i0 + 1] - lut[i0]) * (x - i0);
      ck_assert_msg(fabs(o1[r][c] - want) < 1e-4, "lut1d(%g) = %g, C %g",
                    unit[r][c], o1[r][c], want);
    }
  fg_graph_free(g);

  /* a table entry out of u8's range names the channel and entry */
  tab[2][7] = 300;
  g = fg_graph_new("t");
  in = fg_input(g, "px", fg_type_image(FG_U8, H, W, 4));
  a.field[0] = in;
  ck_assert_ptr_null(fg_ops_call(g, fg_ops_find("rs_lut"), &a));
  expect_error(g, FG_EINVAL, "rs_lut", "blue[7]", "300", NULL);
  fg_graph_free(g);
}
END_TEST

/* overlay through the table: f32 RGB under RGBA (alpha blends colour), u8
 * RGBA under RGBA (Porter-Duff "over": a half-transparent base's colour
 * counts by its alpha), the top partly outside the base; against C. */
START_TEST(test_call_overlay) {
  enum { H = 6, W = 7, TH = 3, TW = 4, X = -1, Y = 4 };
  float base[H][W][3], top[TH][TW][4];
  uint8_t b8[H][W][4], t8[TH][TW][4];
  for (int r = 0; r < H; r++)
    for (int c = 0; c < W; c++)
      for (int k = 0; k < 4; k++) {
        if (k < 3)
          base[r][c][k] = (float)(r * 7 + c + k) / 50.0f;
        b8[r][c][k] = (uint8_t)(r * 31 + c * 7 + k * 50);
      }
  for (int r = 0; r < TH; r++)
    for (int c = 0; c < TW; c++)
      for (int k = 0; k < 4; k++) {
        top[r][c][k] = k == 3 ? (float)(r * TW + c) / (TH * TW - 1)
                              : (float)(k + 1) / 4.0f;
        t8[r][c][k] = (uint8_t)(k == 3 ? (r * TW + c) * 23 : 200 + k * 10);
      }
  fg_graph *g = fg_graph_new("t");
  fg_field *fb = fg_input(g, "b", fg_type_image(FG_F32, H, W, 3));
  fg_field *ft = fg_input(g, "t", fg_type_image(FG_F32, TH, TW, 4));
  fg_field *ub = fg_input(g, "ub", fg_type_image(FG_U8, H, W, 4));
  fg_field *ut = fg_input(g, "ut", fg_type_image(FG_U8, TH, TW, 4));
  const fg_op_info *ov = fg_ops_find("overlay");
  fg_op_args a = {.field = {fb, ft}, .num = {0, 0, X, Y}};
  fg_output(g, "f", fg_ops_call(g, ov, &a));
  fg_op_args b = {.field = {ub, ut}, .num = {0, 0, X, Y}};
  fg_output(g, "u", fg_ops_call(g, ov, &b));
  expect_ok(g);
  float of[H][W][3];
  uint8_t ou[H][W][4];
  tu_run(g, 4, (const void *[]){base, top, b8, t8}, 2, (void *[]){of, ou});
  for (int r = 0; r < H; r++)
    for (int c = 0; c < W; c++) {
      int tr = r - Y, tc = c - X;
      int in = tr >= 0 && tc >= 0 && tr < TH && tc < TW;
      double al = in ? top[tr][tc][3] : 0, al8 = in ? t8[tr][tc][3] / 255.0
                                                    : 0;
      for (int k = 0; k < 3; k++) {
        double want = in ? top[tr][tc][k] * al + base[r][c][k] * (1 - al)
                         : base[r][c][k];
        ck_assert_msg(fabs(of[r][c][k] - want) < 1e-6, "f32 (%d, %d, %d): %g,"
                      " C %g", r, c, k, of[r][c][k], want);
        /* "over" (vips_composite's): each colour weighted by the alpha
         * it contributes, over the alpha they make together */
        double ba = b8[r][c][3] / 255.0, oa = al8 + ba * (1 - al8);
        double w8 = !in ? b8[r][c][k]
                    : oa > 0 ? (t8[tr][tc][k] * al8 +
                                b8[r][c][k] * ba * (1 - al8)) / oa
                             : 0;
        ck_assert_msg(abs(ou[r][c][k] - (int)lround(w8)) <= 1, "u8 (%d, %d, "
                      "%d): %d, C %g", r, c, k, ou[r][c][k], w8);
      }
      double wa = in ? 255 * al8 + b8[r][c][3] * (1 - al8) : b8[r][c][3];
      ck_assert_msg(abs(ou[r][c][3] - (int)lround(wa)) <= 1, "u8 alpha (%d, "
                    "%d): %d, C %g", r, c, ou[r][c][3], wa);
    }
  fg_graph_free(g);

  /* types that do not combine are named */
  g = fg_graph_new("t");
  fb = fg_input(g, "b", fg_type_image(FG_F32, H, W, 3));
  ut = fg_input(g, "ut", fg_type_image(FG_U8, TH, TW, 4));
  a = (fg_op_args){.field = {fb, ut}};
  ck_assert_ptr_null(fg_ops_call(g, ov, &a));
  expect_error(g, FG_ETYPE, "overlay", "'b'", "'ut'", NULL);
  fg_graph_free(g);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ops_table");
  TCase *tc = tcase_create("table");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_rows_name_declared_calls);
  tcase_add_test(tc, test_every_operator_has_a_row);
  tcase_add_test(tc, test_docs_table_is_the_table);
  tcase_add_test(tc, test_signatures_match_parameters);
  tcase_add_test(tc, test_call_checks_arguments);
  tcase_add_test(tc, test_call_locations_and_reductions);
  tcase_add_test(tc, test_call_tables);
  tcase_add_test(tc, test_call_overlay);
  tcase_add_test(tc, test_call_rgba_alpha_is_the_type_maximum);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
