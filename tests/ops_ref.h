/* tests/ops_ref.h - what the operator-library suites share: random
 * fields, element access as double, the border rules written as plain
 * loops (independent of the library's closed forms), running a graph of
 * one input and several outputs, and comparisons that report the first
 * mismatch. */
#ifndef FG_TESTS_OPS_REF_H
#define FG_TESTS_OPS_REF_H

#include "testutil.h"

#include <math.h>
#include <stdint.h>

static inline uint32_t rnd(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (uint32_t)(*s >> 11);
}

/* n random elements of e: integers over their range (u8, u16, i32 small),
 * floats in [-1, 1) scaled by 100. */
static inline void *random_data(fg_elem e, size_t n, uint64_t seed) {
  uint64_t s = seed * 2654435761u + 1;
  void *p = malloc(n * fg_elem_size(e) + 1);
  for (size_t i = 0; i < n; i++) {
    uint32_t r = rnd(&s);
    switch (e) {
    case FG_U8:
      ((uint8_t *)p)[i] = (uint8_t)r;
      break;
    case FG_U16:
      ((uint16_t *)p)[i] = (uint16_t)r;
      break;
    case FG_I32:
      ((int32_t *)p)[i] = (int32_t)(r % 2001) - 1000;
      break;
    case FG_F64:
      ((double *)p)[i] = (r % 2000000) / 10000.0 - 100;
      break;
    default:
      ((float *)p)[i] = (float)((r % 2000000) / 10000.0 - 100);
      break;
    }
  }
  return p;
}

static inline double get_elem(fg_elem e, const void *p, size_t i) {
  switch (e) {
  case FG_U8:
    return ((const uint8_t *)p)[i];
  case FG_U16:
    return ((const uint16_t *)p)[i];
  case FG_I32:
    return ((const int32_t *)p)[i];
  case FG_U32:
    return ((const uint32_t *)p)[i];
  case FG_F64:
    return ((const double *)p)[i];
  default:
    return ((const float *)p)[i];
  }
}

/* A double as elem would hold it: rounded to nearest even and saturated
 * for integers. */
static inline double as_elem(fg_elem e, double v) {
  double lo = 0, hi = 0;
  switch (e) {
  case FG_U8:
    lo = 0, hi = 255;
    break;
  case FG_U16:
    lo = 0, hi = 65535;
    break;
  case FG_I32:
    lo = -2147483648.0, hi = 2147483647.0;
    break;
  case FG_F32:
    return (float)v;
  default:
    return v;
  }
  v = nearbyint(v);
  return v < lo ? lo : v > hi ? hi : v;
}

/* Border rules, by cases: the index read for i in a field of n, or -1
 * for a constant. */
static inline int64_t border_ref(int64_t i, int64_t n, fg_border b) {
  switch (b) {
  case FG_BORDER_CLAMP:
    return i < 0 ? 0 : i >= n ? n - 1 : i;
  case FG_BORDER_WRAP:
    return ((i % n) + n) % n;
  case FG_BORDER_MIRROR:
    if (n == 1)
      return 0;
    while (i < 0 || i >= n)
      i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
  case FG_BORDER_REFLECT:
    while (i < 0 || i >= n)
      i = i < 0 ? -i - 1 : 2 * n - 1 - i;
    return i;
  default:
    return i < 0 || i >= n ? -1 : i;
  }
}

/* A field of L layers of H x W points with C elements each, as doubles. */
typedef struct ref_img {
  int64_t L, H, W;
  int C;
  double *v;
} ref_img;

static inline ref_img ref_from(fg_type t, const void *p) {
  ref_img r;
  int nd = t.field.ndim;
  r.L = nd == 3 ? t.field.dim[0] : 1;
  r.H = t.field.dim[nd - 2];
  r.W = t.field.dim[nd - 1];
  r.C = fg_type_tensor_elements(t);
  size_t n = (size_t)(r.L * r.H * r.W * r.C);
  r.v = malloc(n * sizeof *r.v + 8);
  for (size_t i = 0; i < n; i++)
    r.v[i] = get_elem(t.elem, p, i);
  return r;
}

/* Element c at (l, y, x) under border b (constant: cval). */
static inline double ref_at(const ref_img *r, int64_t l, int64_t y, int64_t x,
                            int c, fg_border b, double cval) {
  int64_t yy = border_ref(y, r->H, b), xx = border_ref(x, r->W, b);
  if (yy < 0 || xx < 0)
    return cval;
  return r->v[((l * r->H + yy) * r->W + xx) * r->C + c];
}

/* Asserts |got - want| <= atol + rtol |want| elementwise (both 0:
 * equal), naming what and the first index that differs. */
static inline void expect_close(const char *what, fg_elem e, const void *got,
                                const double *want, size_t n, double atol,
                                double rtol) {
  for (size_t i = 0; i < n; i++) {
    double g = get_elem(e, got, i);
    double d = fabs(g - want[i]);
    ck_assert_msg(d <= atol + rtol * fabs(want[i]) || g == want[i],
                  "%s: element %zu is %.9g, expected %.9g", what, i, g,
                  want[i]);
  }
}

/* Marks f as the next output of g, named by its index. */
static inline fg_field *out_n(fg_graph *g, fg_field *f) {
  char name[32];
  snprintf(name, sizeof name, "out%d", fg_graph_output_count(g));
  return fg_output(g, name, f);
}

/* Compiles g (one input, n_out outputs), runs it on in and returns the
 * outputs in freshly allocated buffers. */
static inline void run_graph(fg_graph *g, const void *in, int n_out,
                             void **out) {
  ck_assert_msg(fg_graph_status(g) == FG_OK, "graph: %s", fg_graph_errmsg(g));
  fg_context *ctx = tu_context();
  fg_program *p = tu_compile(ctx, g);
  for (int i = 0; i < n_out; i++)
    out[i] = calloc(1, fg_type_bytes(fg_program_output_type(p, i)) + 8);
  fg_status st = fg_program_run(p, 1, &in, n_out, out);
  ck_assert_msg(st == FG_OK, "run: %s", fg_context_errmsg(ctx));
  fg_program_free(p);
  tu_context_free(ctx);
}

#endif
