/* ops/ops_colour.c - colour conversions, each one pointwise operator: RGB
 * and grey, HSV, the sRGB transfer function, linear RGB <-> CIE XYZ <->
 * CIE L*a*b* (Cog's RGBtoCIELAB, formerly an example, is fg_srgb_to_lab),
 * and the float colour matrix.  Every conversion of three channels goes
 * through rgb_op, which passes an alpha channel through. */
#include "ops_impl.h"

/* Turns three scalar f32 expressions into three (written to out). */
typedef void (*rgb_fn)(fg_op *op, fg_expr *const in[3], fg_expr *out[3]);

/* A float colour operator: in has 3 or 4 channels (or, with grey_ok, 1 or
 * 2: grey [+ alpha], spread to three); the result has 3 channels plus in's
 * alpha when keep_alpha. */
static fg_field *rgb_op(fg_graph *g, const char *name, fg_field *in,
                        bool grey_ok, bool keep_alpha, rgb_fn fn) {
  if (!fgo_fields_ok(g, name, 1, &in))
    return NULL;
  fg_type t = fg_field_type(in);
  int n = fg_type_tensor_elements(t);
  if (t.elem != FG_F32 || (n != 3 && n != 4 && !(grey_ok && n <= 2)) ||
      t.tensor.ndim > 1) {
    char ts[FG_TYPE_STR_MAX];
    return fgo_fail(g, FG_ETYPE, name, "'%s' is %s; expected f32 %s "
                    "(fg_to_unit converts u8 and u16)", fg_field_label(in),
                    fg_type_str(t, ts, sizeof ts),
                    grey_ok ? "grey, grey+alpha, RGB or RGBA" : "vec3 or vec4");
  }
  bool alpha = keep_alpha && (n == 4 || n == 2);
  fg_type out = fg_type_vector(FG_F32, t.field, alpha ? 4 : 3);
  fg_op *op = fg_op_begin(g, name, 1, &out);
  fg_expr *v = fg_var(op, FG_F32, n);
  fg_assign(v, fg_read_tensor(op, in));
  fg_expr *c[3], *r[4];
  for (int i = 0; i < 3; i++)
    c[i] = n <= 2 ? fgo_comp(v, n, 0) : fgo_comp(v, n, i);
  fn(op, c, r);
  if (alpha)
    r[3] = fgo_comp(v, n, n - 1);
  fg_write_tensor(op, 0, fgo_vec(FG_F32, alpha ? 4 : 3, r));
  return fg_op_end(op);
}

/* A scalar f32 variable holding e (so e is computed once). */
static fg_expr *let(fg_op *op, fg_expr *e) {
  fg_expr *v = fg_var(op, FG_F32, 1);
  fg_assign(v, e);
  return v;
}

static fg_expr *k(fg_op *op, float v) { return fg_float(op, v); }

/* m (3x3, row-major) times c. */
static void mat3(fg_op *op, const float m[9], fg_expr *const c[3],
                 fg_expr *out[3]) {
  for (int i = 0; i < 3; i++)
    out[i] = let(op, fg_add(fg_add(fg_mul(k(op, m[3 * i]), c[0]),
                                   fg_mul(k(op, m[3 * i + 1]), c[1])),
                            fg_mul(k(op, m[3 * i + 2]), c[2])));
}

/* ---- grey ------------------------------------------------------------------ */

fg_field *fg_rgb_to_grey(fg_graph *g, fg_field *rgb) {
  if (!fgo_fields_ok(g, "rgb_to_grey", 1, &rgb))
    return NULL;
  fg_type t = fg_field_type(rgb);
  int n = fg_type_tensor_elements(t);
  if ((n != 3 && n != 4) || t.tensor.ndim != 1) {
    char ts[FG_TYPE_STR_MAX];
    return fgo_fail(g, FG_ETYPE, "rgb_to_grey", "'%s' is %s; expected RGB or "
                    "RGBA (vec3 or vec4)", fg_field_label(rgb),
                    fg_type_str(t, ts, sizeof ts));
  }
  fg_elem w = fgo_float_of(t.elem);
  fg_type out = fg_type_scalar(t.elem, t.field);
  fg_op *op = fg_op_begin(g, "rgb_to_grey", 1, &out);
  fg_expr *v = fg_tensor_var(op, rgb);
  fg_assign(v, fg_read_tensor(op, rgb));
  fg_expr *y = fg_add(fg_add(fg_mul(fgo_const(op, w, 0.299),
                                    fgo_to(fg_swizzle(v, "x"), w)),
                             fg_mul(fgo_const(op, w, 0.587),
                                    fgo_to(fg_swizzle(v, "y"), w))),
                      fg_mul(fgo_const(op, w, 0.114),
                             fgo_to(fg_swizzle(v, "z"), w)));
  if (t.elem != FG_F32 && t.elem != FG_F64)
    y = fg_convert_sat(y, t.elem, 1);
  fg_write_tensor(op, 0, y);
  return fg_op_end(op);
}

fg_field *fg_grey_to_rgb(fg_graph *g, fg_field *grey, int channels) {
  if (!fgo_fields_ok(g, "grey_to_rgb", 1, &grey))
    return NULL;
  fg_type t = fg_field_type(grey);
  if (fg_type_tensor_elements(t) != 1)
    return fgo_fail(g, FG_ETYPE, "grey_to_rgb", "'%s' has %d channels; "
                    "expected 1", fg_field_label(grey), fg_type_tensor_elements(t));
  if (channels != 3 && channels != 4)
    return fgo_fail(g, FG_EINVAL, "grey_to_rgb", "%d channels; expected 3 "
                    "or 4", channels);
  fg_type out = fg_type_vector(t.elem, t.field, channels);
  fg_op *op = fg_op_begin(g, "grey_to_rgb", 1, &out);
  fg_expr *v = fg_tensor_var(op, grey);
  fg_assign(v, fg_read_tensor(op, grey));
  double max = t.elem == FG_F32 || t.elem == FG_F64 ? 1.0
               : t.elem == FG_U8 ? 255 : t.elem == FG_I8 ? 127
               : t.elem == FG_U16 ? 65535 : t.elem == FG_I16 ? 32767
               : t.elem == FG_U32 ? 4294967295.0 : t.elem == FG_I32
               ? 2147483647.0 : t.elem == FG_I64 ? 9223372036854775807.0
               : 18446744073709551615.0;
  fg_expr *c[4] = {v, v, v, fgo_const(op, t.elem, max)};
  fg_write_tensor(op, 0, fgo_vec(t.elem, channels, c));
  return fg_op_end(op);
}

/* ---- HSV ------------------------------------------------------------------- */

static void rgb_to_hsv(fg_op *op, fg_expr *const c[3], fg_expr *out[3]) {
  fg_expr *r = c[0], *gg = c[1], *b = c[2];
  fg_expr *v = let(op, fg_max(fg_max(r, gg), b));
  fg_expr *d = let(op, fg_sub(v, fg_min(fg_min(r, gg), b)));
  fg_expr *s = fg_var(op, FG_F32, 1), *h = fg_var(op, FG_F32, 1);
  fg_if(fg_gt(v, k(op, 0)));
  fg_assign(s, fg_div(d, v));
  fg_end(op);
  fg_if(fg_gt(d, k(op, 0)));
  {
    fg_if(fg_eq(v, r));
    fg_assign(h, fg_div(fg_mul(k(op, 60), fg_sub(gg, b)), d));
    fg_elseif(fg_eq(v, gg));
    fg_assign(h, fg_add(k(op, 120), fg_div(fg_mul(k(op, 60), fg_sub(b, r)),
                                           d)));
    fg_else(op);
    fg_assign(h, fg_add(k(op, 240), fg_div(fg_mul(k(op, 60), fg_sub(r, gg)),
                                           d)));
    fg_end(op);
    fg_if(fg_lt(h, k(op, 0)));
    fg_assign(h, fg_add(h, k(op, 360)));
    fg_end(op);
  }
  fg_end(op);
  out[0] = h;
  out[1] = s;
  out[2] = v;
}

static void hsv_to_rgb(fg_op *op, fg_expr *const c[3], fg_expr *out[3]) {
  fg_expr *h = let(op, fg_fmod(c[0], k(op, 360)));
  fg_if(fg_lt(h, k(op, 0)));
  fg_assign(h, fg_add(h, k(op, 360)));
  fg_end(op);
  fg_expr *s = c[1], *v = c[2];
  fg_expr *h6 = let(op, fg_div(h, k(op, 60)));
  fg_expr *fi = let(op, fg_floor(h6));
  fg_expr *f = let(op, fg_sub(h6, fi));
  fg_expr *p = let(op, fg_mul(v, fg_sub(k(op, 1), s)));
  fg_expr *q = let(op, fg_mul(v, fg_sub(k(op, 1), fg_mul(s, f))));
  fg_expr *t = let(op, fg_mul(v, fg_sub(k(op, 1),
                                        fg_mul(s, fg_sub(k(op, 1), f)))));
  fg_expr *i = fg_var(op, FG_I32, 1);
  fg_assign(i, fg_convert(fi, FG_I32, 1));
  fg_expr *r = fg_var(op, FG_F32, 1), *gg = fg_var(op, FG_F32, 1),
          *b = fg_var(op, FG_F32, 1);
  fg_expr *sector[6][3] = {{v, t, p}, {q, v, p}, {p, v, t},
                           {p, q, v}, {t, p, v}, {v, p, q}};
  for (int n = 0; n < 6; n++) {
    if (n == 0)
      fg_if(fg_le(i, fg_int(op, 0)));   /* h in [0, 60) (and rounding) */
    else if (n < 5)
      fg_elseif(fg_eq(i, fg_int(op, n)));
    else
      fg_else(op);                       /* 5, and 6 from rounding */
    fg_assign(r, sector[n][0]);
    fg_assign(gg, sector[n][1]);
    fg_assign(b, sector[n][2]);
  }
  fg_end(op);
  out[0] = r;
  out[1] = gg;
  out[2] = b;
}

fg_field *fg_rgb_to_hsv(fg_graph *g, fg_field *rgb) {
  return rgb_op(g, "rgb_to_hsv", rgb, false, true, rgb_to_hsv);
}
fg_field *fg_hsv_to_rgb(fg_graph *g, fg_field *hsv) {
  return rgb_op(g, "hsv_to_rgb", hsv, false, true, hsv_to_rgb);
}

/* ---- sRGB transfer function ------------------------------------------------ */

static fg_expr *decode1(fg_op *op, fg_expr *c) {
  fg_expr *lin = fg_div(c, k(op, 12.92f));
  fg_expr *pw = fg_pow(fg_div(fg_add(c, k(op, 0.055f)), k(op, 1.055f)),
                       k(op, 2.4f));
  return let(op, fg_select(lin, pw, fg_gt(c, k(op, 0.04045f))));
}

static fg_expr *encode1(fg_op *op, fg_expr *c) {
  fg_expr *lin = fg_mul(c, k(op, 12.92f));
  fg_expr *pw = fg_sub(fg_mul(k(op, 1.055f), fg_pow(c, k(op, 1 / 2.4f))),
                       k(op, 0.055f));
  return let(op, fg_select(lin, pw, fg_gt(c, k(op, 0.0031308f))));
}

static void decode3(fg_op *op, fg_expr *const c[3], fg_expr *out[3]) {
  for (int i = 0; i < 3; i++)
    out[i] = decode1(op, c[i]);
}
static void encode3(fg_op *op, fg_expr *const c[3], fg_expr *out[3]) {
  for (int i = 0; i < 3; i++)
    out[i] = encode1(op, c[i]);
}

fg_field *fg_srgb_decode(fg_graph *g, fg_field *srgb) {
  return rgb_op(g, "srgb_decode", srgb, false, true, decode3);
}
fg_field *fg_srgb_encode(fg_graph *g, fg_field *linear) {
  return rgb_op(g, "srgb_encode", linear, false, true, encode3);
}

/* ---- XYZ and L*a*b* --------------------------------------------------------- */

static const float rgb2xyz[9] = {0.4124f, 0.3576f, 0.1805f,
                                 0.2126f, 0.7152f, 0.0722f,
                                 0.0193f, 0.1192f, 0.9505f};
static const float xyz2rgb[9] = {3.2406f, -1.5372f, -0.4986f,
                                 -0.9689f, 1.8758f, 0.0415f,
                                 0.0557f, -0.2040f, 1.0570f};
static const float white[3] = {0.95047f, 1.0f, 1.08883f};

static void to_xyz(fg_op *op, fg_expr *const c[3], fg_expr *out[3]) {
  mat3(op, rgb2xyz, c, out);
}
static void from_xyz(fg_op *op, fg_expr *const c[3], fg_expr *out[3]) {
  mat3(op, xyz2rgb, c, out);
}

static fg_expr *lab_f(fg_op *op, fg_expr *t) {
  fg_expr *lin = fg_add(fg_mul(t, k(op, 7.787f)), k(op, 16.0f / 116));
  return let(op, fg_select(lin, fg_cbrt(t), fg_gt(t, k(op, 0.008856f))));
}

static fg_expr *lab_finv(fg_op *op, fg_expr *f) {
  fg_expr *f3 = let(op, fg_mul(fg_mul(f, f), f));
  fg_expr *lin = fg_div(fg_sub(f, k(op, 16.0f / 116)), k(op, 7.787f));
  return let(op, fg_select(lin, f3, fg_gt(f3, k(op, 0.008856f))));
}

static void xyz_to_lab(fg_op *op, fg_expr *const c[3], fg_expr *out[3]) {
  fg_expr *f[3];
  for (int i = 0; i < 3; i++)
    f[i] = lab_f(op, fg_div(c[i], k(op, white[i])));
  out[0] = fg_sub(fg_mul(k(op, 116), f[1]), k(op, 16));
  out[1] = fg_mul(k(op, 500), fg_sub(f[0], f[1]));
  out[2] = fg_mul(k(op, 200), fg_sub(f[1], f[2]));
}

static void lab_to_xyz(fg_op *op, fg_expr *const c[3], fg_expr *out[3]) {
  fg_expr *fy = let(op, fg_div(fg_add(c[0], k(op, 16)), k(op, 116)));
  fg_expr *f[3] = {fg_add(fy, fg_div(c[1], k(op, 500))), fy,
                   fg_sub(fy, fg_div(c[2], k(op, 200)))};
  for (int i = 0; i < 3; i++)
    out[i] = let(op, fg_mul(lab_finv(op, let(op, f[i])), k(op, white[i])));
}

fg_field *fg_linear_to_xyz(fg_graph *g, fg_field *rgb) {
  return rgb_op(g, "linear_to_xyz", rgb, false, false, to_xyz);
}
fg_field *fg_xyz_to_linear(fg_graph *g, fg_field *xyz) {
  return rgb_op(g, "xyz_to_linear", xyz, false, false, from_xyz);
}
fg_field *fg_xyz_to_lab(fg_graph *g, fg_field *xyz) {
  return rgb_op(g, "xyz_to_lab", xyz, false, false, xyz_to_lab);
}
fg_field *fg_lab_to_xyz(fg_graph *g, fg_field *lab) {
  return rgb_op(g, "lab_to_xyz", lab, false, false, lab_to_xyz);
}

static void lab_to_srgb(fg_op *op, fg_expr *const c[3], fg_expr *out[3]) {
  fg_expr *xyz[3], *lin[3];
  lab_to_xyz(op, c, xyz);
  from_xyz(op, xyz, lin);
  encode3(op, lin, out);
}

fg_field *fg_lab_to_srgb(fg_graph *g, fg_field *lab) {
  return rgb_op(g, "lab_to_srgb", lab, false, false, lab_to_srgb);
}

/* Cog's RGBtoCIELAB, as the reference writes it: one sRGB channel to
 * linear with _if/_else (the _if of pixelRGBtoXYZ). */
static void linearize(fg_expr *c) {
  fg_op *op = fg_expr_op(c);
  fg_if(fg_gt(c, k(op, 0.04045f)));
  fg_assign(c, fg_pow(fg_divf(fg_addf(c, 0.055f), 1.055f), k(op, 2.4f)));
  fg_else(op);
  fg_assign(c, fg_divf(c, 12.92f));
  fg_end(op);
}

/* Phase 2 of pixelXYZtoCIELAB for one coordinate. */
static void cog_lab_f(fg_expr *c) {
  fg_op *op = fg_expr_op(c);
  fg_if(fg_gt(c, k(op, 0.008856f)));
  fg_assign(c, fg_pow(c, k(op, 1.0f / 3)));
  fg_else(op);
  fg_assign(c, fg_addf(fg_mulf(c, 7.787f), 16.0f / 116));
  fg_end(op);
}

static void srgb_to_lab(fg_op *op, fg_expr *const c[3], fg_expr *out[3]) {
  /* pixelRGBtoXYZ: linearize, scale to 100, the 4-digit matrix */
  fg_expr *lin[3];
  for (int i = 0; i < 3; i++) {
    lin[i] = let(op, c[i]);
    linearize(lin[i]);
  }
  fg_expr *scaled = fg_mulf(fg_float3(lin[0], lin[1], lin[2]), 100.0f);
  fg_expr *xyz[3];
  for (int i = 0; i < 3; i++)
    xyz[i] = fg_dot(scaled, fg_float3(k(op, rgb2xyz[3 * i]),
                                      k(op, rgb2xyz[3 * i + 1]),
                                      k(op, rgb2xyz[3 * i + 2])));
  /* pixelXYZtoCIELAB: divide by the white point (scaled to 100), f, mix */
  static const float white100[3] = {95.047f, 100.0f, 108.883f};
  fg_expr *f[3];
  for (int i = 0; i < 3; i++) {
    f[i] = let(op, xyz[i]);
    fg_assign(f[i], fg_divf(f[i], white100[i]));
  }
  for (int i = 0; i < 3; i++)
    cog_lab_f(f[i]);
  out[0] = fg_subf(fg_mulf(f[1], 116.0f), 16.0f);
  out[1] = fg_mulf(fg_sub(f[0], f[1]), 500.0f);
  out[2] = fg_mulf(fg_sub(f[1], f[2]), 200.0f);
}

fg_field *fg_srgb_to_lab(fg_graph *g, fg_field *rgb) {
  return rgb_op(g, "srgb_to_lab", rgb, true, false, srgb_to_lab);
}

/* ---- colour matrix ----------------------------------------------------------- */

fg_field *fg_colour_matrix(fg_graph *g, fg_field *in, const float m[16],
                           const float add[4], int out_channels) {
  if (!fgo_fields_ok(g, "colour_matrix", 1, &in))
    return NULL;
  fg_type t = fg_field_type(in);
  int n = fg_type_tensor_elements(t);
  if (!m)
    return fgo_fail(g, FG_EINVAL, "colour_matrix", "matrix is NULL");
  if (out_channels < 1 || out_channels > 4)
    return fgo_fail(g, FG_EINVAL, "colour_matrix", "%d output channels; "
                    "expected 1-4", out_channels);
  if (t.elem != FG_F32 || n > 4) {
    char ts[FG_TYPE_STR_MAX];
    return fgo_fail(g, FG_ETYPE, "colour_matrix", "'%s' is %s; expected f32 "
                    "with 1-4 channels", fg_field_label(in),
                    fg_type_str(t, ts, sizeof ts));
  }
  fg_type out = out_channels == 1
                    ? fg_type_scalar(FG_F32, t.field)
                    : fg_type_vector(FG_F32, t.field, out_channels);
  fg_op *op = fg_op_begin(g, "colour_matrix", 1, &out);
  fg_expr *v = fg_var(op, FG_F32, n);
  fg_assign(v, fg_read_tensor(op, in));
  fg_expr *r[4];
  for (int i = 0; i < out_channels; i++) {
    fg_expr *s = NULL;
    for (int j = 0; j < n; j++) {
      fg_expr *p = fg_mul(k(op, m[4 * i + j]), fgo_comp(v, n, j));
      s = s ? fg_add(s, p) : p;
    }
    r[i] = fg_add(s, k(op, add ? add[i] : 0.0f));
  }
  fg_write_tensor(op, 0, fgo_vec(FG_F32, out_channels, r));
  return fg_op_end(op);
}

/* ---- the Toolkit's ColorMatrix intrinsic ----------------------------------- */

fg_field *fg_intrinsic_color_matrix(fg_graph *g, fg_field *in,
                                    int out_channels, const float m[16],
                                    const float add[4],
                                    const fg_restriction *r) {
  const char *name = "intrinsic_color_matrix";
  if (!fgo_fields_ok(g, name, 1, &in))
    return NULL;
  fg_type t = fg_field_type(in);
  int n = fg_type_tensor_elements(t);
  if (t.elem != FG_U8 || n > 4 || t.tensor.ndim > 1 || t.field.ndim != 2) {
    char ts[FG_TYPE_STR_MAX];
    return fgo_fail(g, FG_ETYPE, name, "'%s' is %s; expected a 2-D u8 field "
                    "of 1-4 channels", fg_field_label(in),
                    fg_type_str(t, ts, sizeof ts));
  }
  if (!m)
    return fgo_fail(g, FG_EINVAL, name, "matrix is NULL");
  if (out_channels < 1 || out_channels > 4)
    return fgo_fail(g, FG_EINVAL, name, "%d output channels; expected 1-4",
                    out_channels);
  if (!fgo_restriction_ok(g, name, r, t.field))
    return NULL;
  fg_type out = out_channels == 1
                    ? fg_type_scalar(FG_U8, t.field)
                    : fg_type_vector(FG_U8, t.field, out_channels);
  fg_op *op = fg_op_begin(g, name, 1, &out);
  fg_expr *res = fg_var(op, FG_U8, out_channels);
  fg_expr *inside = fgo_inside(op, r);
  if (inside)
    fg_if(inside);
  fg_expr *v = fg_var(op, FG_F32, n);
  fg_assign(v, fg_convert(fg_read_tensor(op, in), FG_F32, n));
  fg_expr *c[4];
  for (int i = 0; i < out_channels; i++) {
    /* each product its own statement: no contraction into fma, so both
     * backends round as the C++ does, term by term in order */
    fg_expr *s = fg_var(op, FG_F32, 1);
    for (int j = 0; j < n; j++) {
      fg_expr *p = fg_var(op, FG_F32, 1);
      fg_assign(p, fg_mul(fgo_comp(v, n, j), k(op, m[4 * j + i])));
      fg_assign(s, j ? fg_add(s, p) : p);
    }
    fg_assign(s, fg_add(s, k(op, add ? add[i] * 255.0f : 0.0f)));
    c[i] = fg_convert(fg_clamp(s, k(op, 0), k(op, 255.5f)), FG_U8, 1);
  }
  fg_assign(res, fgo_vec(FG_U8, out_channels, c));
  if (inside)
    fg_end(op);
  fg_write_tensor(op, 0, res);
  return fg_op_end(op);
}
