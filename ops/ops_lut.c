/* ops/ops_lut.c - look-up tables: the per-channel 1-D table and the
 * trilinear 3-D table on any fields, and the Toolkit's LUT and LUT3D
 * intrinsics on u8 RGBA (bit-exact with its C++).  Each is pointwise in its
 * output and reads its table at computed coordinates (non-local there). */
#include "ops_impl.h"

static bool is_float(fg_elem e) { return e == FG_F32 || e == FG_F64; }

fg_field *fg_lut1d(fg_graph *g, fg_field *in, fg_field *table) {
  fg_field *f[2] = {in, table};
  if (!fgo_fields_ok(g, "lut1d", 2, f))
    return NULL;
  fg_type ti = fg_field_type(in), tt = fg_field_type(table);
  int n = fg_type_tensor_elements(ti), nt = fg_type_tensor_elements(tt);
  char a[FG_TYPE_STR_MAX], b[FG_TYPE_STR_MAX];
  if (tt.field.ndim != 1 || (nt != 1 && nt != n) || n > 4 ||
      tt.field.dim[0] < 1 || (is_float(ti.elem) && tt.field.dim[0] < 2))
    return fgo_fail(g, FG_ESHAPE, "lut1d", "table '%s' is %s for input '%s' "
                    "(%s); expected a 1-D table (2 entries or more for float "
                    "input) of one element or one per channel (at most 4)",
                    fg_field_label(table), fg_type_str(tt, b, sizeof b), fg_field_label(in),
                    fg_type_str(ti, a, sizeof a));
  fg_type out = ti;
  out.elem = tt.elem;
  int64_t len = tt.field.dim[0];
  fg_op *op = fg_op_begin(g, "lut1d", 1, &out);
  fg_expr *v = fg_tensor_var(op, in);
  fg_assign(v, fg_read_tensor(op, in));
  fg_expr *r[4];
  for (int c = 0; c < n; c++) {
    fg_expr *x = fgo_comp(v, n, c);
    if (!is_float(ti.elem)) {
      fg_expr *i = fg_var(op, FG_I64, 1);
      fg_assign(i, fg_clamp(fg_convert(x, FG_I64, 1), fg_long(op, 0),
                            fg_long(op, len - 1)));
      fg_expr *e = fg_read_tensor_at(op, table, 1, fg_convert(i, FG_I32, 1));
      r[c] = fgo_comp(e, nt, nt == 1 ? 0 : c);
      continue;
    }
    fg_elem w = ti.elem;
    fg_expr *pos = fg_var(op, w, 1);
    fg_assign(pos, fg_clamp(fg_mul(x, fgo_const(op, w, (double)(len - 1))),
                            fgo_const(op, w, 0),
                            fgo_const(op, w, (double)(len - 1))));
    fg_expr *i0 = fg_var(op, FG_I32, 1);
    fg_assign(i0, fg_min(fg_convert(fg_floor(pos), FG_I32, 1),
                         fg_int(op, (int32_t)(len - 2))));
    fg_expr *fr = fg_sub(pos, fg_convert(i0, w, 1));
    fg_expr *e0 = fgo_to(fgo_comp(fg_read_tensor_at(op, table, 1, i0), nt,
                                  nt == 1 ? 0 : c), w);
    fg_expr *e1 = fgo_to(fgo_comp(fg_read_tensor_at(op, table, 1,
                                                    fg_addi(i0, 1)),
                                  nt, nt == 1 ? 0 : c), w);
    fg_expr *lerp = fg_add(e0, fg_mul(fg_sub(e1, e0), fr));
    r[c] = is_float(tt.elem) ? fgo_to(lerp, tt.elem)
                             : fg_convert_sat(lerp, tt.elem, 1);
  }
  fg_write_tensor(op, 0, fgo_vec(tt.elem, n, r));
  return fg_op_end(op);
}

fg_field *fg_lut3d(fg_graph *g, fg_field *in, fg_field *cube) {
  fg_field *f[2] = {in, cube};
  if (!fgo_fields_ok(g, "lut3d", 2, f))
    return NULL;
  fg_type ti = fg_field_type(in), tc = fg_field_type(cube);
  int n = fg_type_tensor_elements(ti), nc = fg_type_tensor_elements(tc);
  char a[FG_TYPE_STR_MAX], b[FG_TYPE_STR_MAX];
  if (ti.elem != FG_F32 || (n != 3 && n != 4) || tc.elem != FG_F32 ||
      (nc != 3 && nc != 4) || tc.field.ndim != 3 || tc.field.dim[0] < 2 ||
      tc.field.dim[1] < 2 || tc.field.dim[2] < 2)
    return fgo_fail(g, FG_ETYPE, "lut3d", "input '%s' is %s and cube '%s' is "
                    "%s; expected f32 RGB(A) and a 3-D f32 vec3 or vec4 cube "
                    "of at least 2 on each side", fg_field_label(in),
                    fg_type_str(ti, a, sizeof a), fg_field_label(cube),
                    fg_type_str(tc, b, sizeof b));
  bool pass_alpha = n == 4 && nc == 3;
  int no = pass_alpha ? 4 : nc;
  fg_type out = fg_type_vector(FG_F32, ti.field, no);
  fg_op *op = fg_op_begin(g, "lut3d", 1, &out);
  fg_expr *v = fg_var(op, FG_F32, n);
  fg_assign(v, fg_read_tensor(op, in));
  fg_expr *i0[3], *fr[3];
  for (int c = 0; c < 3; c++) {
    /* c = 0 red -> columns (axis 2), 1 green -> rows, 2 blue -> layers */
    float hi = (float)(tc.field.dim[2 - c] - 1);
    fg_expr *pos = fg_var(op, FG_F32, 1);
    fg_assign(pos, fg_clamp(fg_mul(fgo_comp(v, n, c), fg_float(op, hi)),
                            fg_float(op, 0), fg_float(op, hi)));
    i0[c] = fg_var(op, FG_I32, 1);
    fg_assign(i0[c], fg_min(fg_convert(fg_floor(pos), FG_I32, 1),
                            fg_int(op, (int32_t)hi - 1)));
    fr[c] = fg_var(op, FG_F32, 1);
    fg_assign(fr[c], fg_sub(pos, fg_convert(i0[c], FG_F32, 1)));
  }
  /* interpolate along red, then green, then blue */
  fg_expr *yz[4];
  for (int j = 0; j < 4; j++) {
    fg_expr *row = fg_addi(i0[1], j & 1), *lay = fg_addi(i0[2], j >> 1);
    fg_expr *p0 = fg_read_tensor_at(op, cube, 3, lay, row, i0[0]);
    fg_expr *p1 = fg_read_tensor_at(op, cube, 3, lay, row,
                                    fg_addi(i0[0], 1));
    yz[j] = fg_var(op, FG_F32, nc);
    fg_assign(yz[j], fg_mix(p0, p1, fr[0]));
  }
  fg_expr *z0 = fg_mix(yz[0], yz[1], fr[1]);
  fg_expr *z1 = fg_mix(yz[2], yz[3], fr[1]);
  fg_expr *res = fg_mix(z0, z1, fr[2]);
  if (pass_alpha)
    res = fg_vector(FG_F32, 4, 2, res, fg_swizzle(v, "w"));
  fg_write_tensor(op, 0, res);
  return fg_op_end(op);
}

/* ---- the Toolkit's intrinsics ---------------------------------------------- */

/* Checks an intrinsic's u8 vec4 image input. */
static bool rgba8_ok(fg_graph *g, const char *name, fg_field *f) {
  fg_type t = fg_field_type(f);
  if (t.elem != FG_U8 || fg_type_tensor_elements(t) != 4 ||
      t.tensor.ndim != 1 || t.field.ndim != 2) {
    char ts[FG_TYPE_STR_MAX];
    return fgo_fail(g, FG_ETYPE, name, "'%s' is %s; expected a 2-D u8 vec4 "
                    "(RGBA) field", fg_field_label(f),
                    fg_type_str(t, ts, sizeof ts)) != NULL;
  }
  return true;
}

fg_field *fg_intrinsic_lut(fg_graph *g, fg_field *in, const uint8_t red[256],
                           const uint8_t green[256], const uint8_t blue[256],
                           const uint8_t alpha[256],
                           const fg_restriction *r) {
  if (!fgo_fields_ok(g, "intrinsic_lut", 1, &in) ||
      !rgba8_ok(g, "intrinsic_lut", in) ||
      !fgo_restriction_ok(g, "intrinsic_lut", r, fg_field_type(in).field))
    return NULL;
  if (!red || !green || !blue || !alpha)
    return fgo_fail(g, FG_EINVAL, "intrinsic_lut", "a table is NULL");
  uint8_t tab[256][4];
  for (int i = 0; i < 256; i++) {
    tab[i][0] = red[i];
    tab[i][1] = green[i];
    tab[i][2] = blue[i];
    tab[i][3] = alpha[i];
  }
  fg_field *table = fg_constant(g, "intrinsic_lut.table",
                                fg_type_vector(FG_U8, fg_shape1(256), 4),
                                tab);
  if (!table)
    return NULL;
  fg_op *op = fg_op_begin(g, "intrinsic_lut", 1, (fg_type[]){fg_field_type(in)});
  fg_expr *res = fg_var(op, FG_U8, 4);
  fg_expr *inside = fgo_inside(op, r);
  if (inside)
    fg_if(inside);
  fg_expr *v = fg_var(op, FG_U8, 4);
  fg_assign(v, fg_read_tensor(op, in));
  fg_expr *c[4];
  for (int i = 0; i < 4; i++)
    c[i] = fgo_comp(fg_read_tensor_at(op, table, 1,
                                      fg_convert(fgo_comp(v, 4, i), FG_I32,
                                                 1)), 4, i);
  fg_assign(res, fgo_vec(FG_U8, 4, c));
  if (inside)
    fg_end(op);
  fg_write_tensor(op, 0, res);
  return fg_op_end(op);
}

fg_field *fg_intrinsic_lut3d(fg_graph *g, fg_field *in, fg_field *cube,
                             const fg_restriction *r) {
  fg_field *f[2] = {in, cube};
  if (!fgo_fields_ok(g, "intrinsic_lut3d", 2, f) ||
      !rgba8_ok(g, "intrinsic_lut3d", in) ||
      !fgo_restriction_ok(g, "intrinsic_lut3d", r, fg_field_type(in).field))
    return NULL;
  fg_type tc = fg_field_type(cube);
  if (tc.elem != FG_U8 || fg_type_tensor_elements(tc) != 4 ||
      tc.field.ndim != 3 || tc.field.dim[0] < 2 || tc.field.dim[1] < 2 ||
      tc.field.dim[2] < 2 || tc.field.dim[0] > 256 || tc.field.dim[1] > 256 ||
      tc.field.dim[2] > 256) {
    char ts[FG_TYPE_STR_MAX];
    return fgo_fail(g, FG_ETYPE, "intrinsic_lut3d", "cube '%s' is %s; "
                    "expected a 3-D u8 vec4 field of 2-256 on each side",
                    fg_field_label(cube), fg_type_str(tc, ts, sizeof ts));
  }
  /* the C++'s coordMul: (dims - 1) / 255 in float, times 0x8000, truncated
   */
  int32_t mul[3];
  for (int c = 0; c < 3; c++) {
    float m = (1.0f / 255.0f) * (float)(tc.field.dim[2 - c] - 1);
    mul[c] = (int32_t)(m * (float)0x8000);
  }
  fg_op *op = fg_op_begin(g, "intrinsic_lut3d", 1, (fg_type[]){fg_field_type(in)});
  fg_expr *res = fg_var(op, FG_U8, 4);
  fg_expr *inside = fgo_inside(op, r);
  if (inside)
    fg_if(inside);
  fg_expr *v = fg_var(op, FG_U8, 4);
  fg_assign(v, fg_read_tensor(op, in));
  fg_expr *c1[3], *w1[3], *w2[3];
  for (int c = 0; c < 3; c++) {
    fg_expr *base = fg_var(op, FG_I32, 1);
    fg_assign(base, fg_muli(fg_convert(fgo_comp(v, 4, c), FG_I32, 1),
                            mul[c]));
    c1[c] = fg_var(op, FG_I32, 1);
    fg_assign(c1[c], fg_shr(base, fg_int(op, 15)));
    w2[c] = fg_var(op, FG_U32, 1);
    fg_assign(w2[c], fg_convert(fg_band(base, fg_int(op, 0x7fff)), FG_U32,
                                1));
    w1[c] = fg_var(op, FG_U32, 1);
    fg_assign(w1[c], fg_sub(fg_uint(op, 0x8000), w2[c]));
  }
  /* yz[j]: along red at green c1.y + (j & 1), blue c1.z + (j >> 1) */
  fg_expr *yz[4];
  for (int j = 0; j < 4; j++) {
    fg_expr *row = fg_addi(c1[1], j & 1), *lay = fg_addi(c1[2], j >> 1);
    fg_expr *p0 = fg_convert(fg_read_tensor_at(op, cube, 3, lay, row, c1[0]),
                             FG_U32, 4);
    fg_expr *p1 = fg_convert(fg_read_tensor_at(op, cube, 3, lay, row,
                                               fg_addi(c1[0], 1)),
                             FG_U32, 4);
    yz[j] = fg_var(op, FG_U32, 4);
    fg_assign(yz[j], fg_shr(fg_add(fg_mul(p0, w1[0]), fg_mul(p1, w2[0])),
                            fg_int(op, 7)));
  }
  fg_expr *z[2];
  for (int j = 0; j < 2; j++) {
    z[j] = fg_var(op, FG_U32, 4);
    fg_assign(z[j], fg_shr(fg_add(fg_mul(yz[2 * j], w1[1]),
                                  fg_mul(yz[2 * j + 1], w2[1])),
                           fg_int(op, 15)));
  }
  fg_expr *s = fg_shr(fg_add(fg_mul(z[0], w1[2]), fg_mul(z[1], w2[2])),
                      fg_int(op, 15));
  fg_expr *v2 = fg_convert(fg_shr(fg_add(s, fg_uint(op, 0x7f)),
                                  fg_int(op, 8)), FG_U8, 4);
  fg_assign(res, fg_vector(FG_U8, 4, 2, fg_swizzle(v2, "xyz"),
                           fg_swizzle(v, "w")));
  if (inside)
    fg_end(op);
  fg_write_tensor(op, 0, res);
  return fg_op_end(op);
}
