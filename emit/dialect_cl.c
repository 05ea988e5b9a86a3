/* emit/dialect_cl.c - the OpenCL C dialect, for the OpenCL backend.  Most of
 * the IR maps onto OpenCL C's own vectors and built-ins; what it adds is a
 * never-trapping integer division (a CPU device such as PoCL's would trap
 * on x / 0), packed vloadN/vstoreN for tensors of 3, and the guard that
 * keeps work-items of a rounded-up global size idle.  A second form of it,
 * for CPU devices (fgk_dialect_cl_cpu, at the end), runs each work-item of
 * a plain kernel as a loop over a row of columns with small tensors as
 * scalars and the C dialect's float math, which PoCL's compiler widens. */
#include "emit_impl.h"
#include "math_c.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *cl_type(fgk_type t) { return fgk_type_name(t); }

static const char *const cl_prelude =
  "#define FGK_PI 3.14159265358979323846\n"
  "#define fgk_go(p) (!*(p))      /* the run goes on (emit/abi.h) */\n"
  "inline long fgk_ci(long i, long n) {\n"
  "  return i < 0 ? 0 : i >= n ? n - 1 : i;\n"
  "}\n"
  "/* Flat index of (l, r, c) clamped into an L x R x C field. */\n"
  "inline long fgk_at(long L, long R, long C, long l, long r, long c) {\n"
  "  return (fgk_ci(l, L) * R + fgk_ci(r, R)) * C + fgk_ci(c, C);\n"
  "}\n"
  "/* Flat index of (l, r, c), l and r clamped, c inside the field. */\n"
  "inline long fgk_atx(long L, long R, long C, long l, long r, long c) {\n"
  "  return (fgk_ci(l, L) * R + fgk_ci(r, R)) * C + c;\n"
  "}\n"
  "/* Flat index of (l, r, c) in an L x R x C field, -1 outside it. */\n"
  "inline long fgk_wat(long L, long R, long C, long l, long r, long c) {\n"
  "  if (l < 0 || l >= L || r < 0 || r >= R || c < 0 || c >= C)\n"
  "    return -1;\n"
  "  return (l * R + r) * C + c;\n"
  "}\n";

static void cl_splat(fgk_emitter *e, const fg_expr *x, fgk_type t) {
  fgk_putf(e, "((%s)((%s)(", cl_type(t), cl_type(fgk_t(t.elem, 1)));
  fgk_ex(e, x);
  fgk_put(e, ")))");
}

static void cl_vconvert(fgk_emitter *e, const fg_expr *x, fgk_type t) {
  fgk_putf(e, "convert_%s(", cl_type(t));
  fgk_ex(e, x);
  fgk_put(e, ")");
}

/* The largest value of float type f (f32 or f64) that converts into
 * integer type t: t's maximum, or the value below it where f rounds that
 * up (2^32 - 256 for u32 from f32). */
static double below_max(fg_elem f, fg_elem t) {
  static const double max[FG_ELEM_COUNT_] = {
      [FG_I8] = 127, [FG_U8] = 255, [FG_I16] = 32767, [FG_U16] = 65535,
      [FG_I32] = 2147483647.0, [FG_U32] = 4294967295.0,
      [FG_I64] = 9223372036854775807.0, [FG_U64] = 18446744073709551615.0};
  double m = max[t];
  if (f == FG_F32) {
    float v = (float)m;
    return (double)v > m ? (double)nextafterf(v, 0) : (double)v;
  }
  /* 64-bit maxima round up to 2^63 and 2^64 as doubles */
  return fg_elem_size(t) == 8 ? nextafter(m, 0) : m;
}

/* Saturating conversion from f to t.  From floats a helper rounds, clamps
 * into the range and converts: PoCL's convert_<t>_sat_rte, and its rint,
 * of a large constant (1e30f) fold to poison, and the kernel then writes
 * nothing at all; so rint sees only values below 2^23 (2^52), and the
 * conversion only values in range. */
static void cl_convert_sat(fgk_emitter *e, const fg_expr *x, fgk_type f,
                           fgk_type t) {
  if (!fgk_is_float(f.elem)) {
    fgk_putf(e, "convert_%s_sat(", cl_type(t));
    fgk_ex(e, x);
    fgk_put(e, ")");
    return;
  }
  char name[96];
  snprintf(name, sizeof name, "fgk_sat_%s_%s", cl_type(t), cl_type(f));
  if (fgk_first_use(e, name)) {
    fgu_buf *h = &e->help;
    const char *sf = cl_type(fgk_t(f.elem, 1)), *st = cl_type(fgk_t(t.elem, 1));
    const char *lo = fgk_int_min_literal(t.elem);
    const char *hi = fgk_int_max_literal(t.elem);
    fgu_buf_printf(h, "inline %s %s(%s a) {\n  %s r;\n", cl_type(t), name,
                   cl_type(f), cl_type(t));
    for (int c = 0; c < t.width; c++) {
      char ix[16] = "";
      if (t.width > 1)
        snprintf(ix, sizeof ix, ".s%d", c);
      /* values of 2^23 (2^52) and more are integers already */
      fgu_buf_printf(h, "  { %s v = fabs(a%s) < (%s)%s ? rint(a%s) : a%s;\n"
                     "    %s w = fmin(fmax(v, (%s)%s), (%s)%.17g);\n"
                     "    r%s = v != v ? 0 : v >= (%s)%s ? %s : (%s)w; }\n",
                     sf, ix, sf, f.elem == FG_F32 ? "8388608" :
                     "4503599627370496", ix, ix, sf, sf, lo, sf,
                     below_max(f.elem, t.elem), ix, sf, hi, hi, st);
    }
    fgu_buf_puts(h, "  return r;\n}\n");
  }
  fgk_putf(e, "%s(", name);
  fgk_ex(e, x);
  fgk_put(e, ")");
}

static void cl_as(fgk_emitter *e, const fg_expr *x, fgk_type t) {
  fgk_putf(e, "as_%s(", cl_type(t));
  fgk_ex(e, x);
  fgk_put(e, ")");
}

/* A helper applying scalar helper sname to each component of type t's
 * n arguments (a0..a2, of types at[]); the helper's name is written to
 * name.  For the vectors of the built-ins below, whose scalar forms need
 * a test per value. */
static void cl_componentwise(fgk_emitter *e, const char *name,
                             const char *sname, fgk_type t, int n,
                             const fgk_type *at) {
  if (!fgk_first_use(e, name))
    return;
  fgu_buf *h = &e->help;
  fgu_buf_printf(h, "inline %s %s(", cl_type(t), name);
  for (int i = 0; i < n; i++)
    fgu_buf_printf(h, "%s%s a%d", i ? ", " : "", cl_type(at[i]), i);
  fgu_buf_printf(h, ") {\n  %s r;\n", cl_type(t));
  for (int c = 0; c < t.width; c++) {
    fgu_buf_printf(h, "  r.s%d = %s(", c, sname);
    for (int i = 0; i < n; i++)
      fgu_buf_printf(h, "%sa%d.s%d", i ? ", " : "", i, c);
    fgu_buf_puts(h, ");\n");
  }
  fgu_buf_puts(h, "  return r;\n}\n");
}

/* Built-ins some devices get wrong, as found on NVIDIA's OpenCL (driver
 * 580, an H100, scripts/gpu-bundle): sign(-0.0) is +0.0, normalize(NaN)
 * of a scalar is 1, rootn(FLT_MAX, 1) overflows to inf, and 64-bit
 * mad_sat(LONG_MIN, 2, 0) is 0.  Each gets a helper of ours, on every
 * device, with the specification's value (the C dialect's, dialect_c.c);
 * NULL when fn of type t needs none, else its name (in name, size bytes). */
static const char *cl_own_builtin(fgk_emitter *e, const fg_expr *x,
                                  fgk_type t, char *name, size_t size) {
  char sname[64];
  const char *ty = cl_type(t), *sty = cl_type(fgk_t(t.elem, 1));
  fgu_buf *h = &e->help;
  switch (x->u.call.fn) {
  case FGK_FN_sign:
    if (!fgk_is_float(t.elem))
      return NULL;
    snprintf(name, size, "fgk_sign_%s", ty);
    /* a vector's comparisons select per component */
    if (fgk_first_use(e, name))
      fgu_buf_printf(h, "inline %s %s(%s x) {\n  return x > (%s)(0) ? "
                     "(%s)(1) : x < (%s)(0) ? (%s)(-1) : x == x ? x : "
                     "(%s)(0);\n}\n", ty, name, ty, ty, ty, ty, ty, ty);
    break;
  case FGK_FN_normalize:
    snprintf(name, size, "fgk_normalize_%s", ty);
    /* a NaN makes all NaN; infinities count as +-1 and the finite
     * components then as 0 */
    if (!fgk_first_use(e, name))
      break;
    if (t.width == 1)
      fgu_buf_printf(h, "inline %s %s(%s x) {\n  return isnan(x) ? x : "
                     "isinf(x) ? copysign((%s)(1), x) : normalize(x);\n}\n",
                     ty, name, ty, ty);
    else
      fgu_buf_printf(h, "inline %s %s(%s x) {\n  if (any(isnan(x)))\n"
                     "    return (%s)(NAN);\n  if (any(isinf(x)))\n"
                     "    x = select((%s)(0), copysign((%s)(1), x), "
                     "isinf(x));\n  return normalize(x);\n}\n", ty, name,
                     ty, ty, ty, ty);
    break;
  case FGK_FN_rootn: {
    snprintf(sname, sizeof sname, "fgk_rootn_%s", sty);
    if (fgk_first_use(e, sname))
      fgu_buf_printf(h, "inline %s %s(%s x, int n) {\n  return n == 1 ? x "
                     ": rootn(x, n);\n}\n", sty, sname, sty);
    if (t.width == 1) {
      snprintf(name, size, "%s", sname);
      return name;
    }
    snprintf(name, size, "fgk_rootn_%s", ty);
    fgk_type at[2] = {t, fgk_t(FG_I32, t.width)};
    cl_componentwise(e, name, sname, t, 2, at);
    break;
  }
  case FGK_FN_mad_sat: {
    if (fg_elem_size(t.elem) != 8)
      return NULL;
    bool is_signed = t.elem == FG_I64;
    snprintf(sname, sizeof sname, "fgk_mad_sat_%s", sty);
    /* the 128-bit product, plus c, saturated */
    if (fgk_first_use(e, sname)) {
      if (is_signed)
        fgu_buf_printf(h, "inline long %s(long a, long b, long c) {\n"
                       "  long hi = mul_hi(a, b);\n"
                       "  ulong lo = (ulong)a * (ulong)b, s = lo + (ulong)c;\n"
                       "  hi += (c < 0 ? -1 : 0) + (s < lo ? 1 : 0);\n"
                       "  return hi == ((long)s >> 63) ? (long)s : hi < 0 ? "
                       "LONG_MIN : LONG_MAX;\n}\n", sname);
      else
        fgu_buf_printf(h, "inline ulong %s(ulong a, ulong b, ulong c) {\n"
                       "  ulong lo = a * b, s = lo + c;\n"
                       "  return mul_hi(a, b) != 0 || s < lo ? ULONG_MAX : s;"
                       "\n}\n", sname);
    }
    if (t.width == 1) {
      snprintf(name, size, "%s", sname);
      return name;
    }
    snprintf(name, size, "fgk_mad_sat_%s", ty);
    fgk_type at[3] = {t, t, t};
    cl_componentwise(e, name, sname, t, 3, at);
    break;
  }
  default:
    return NULL;
  }
  return name;
}

static void cl_call(fgk_emitter *e, const fg_expr *x) {
  const fgk_builtin_info *b = &fgk_builtins[x->u.call.fn];
  fgk_type t = x->u.call.arg[0]->type;
  /* OpenCL's pown/rootn/ldexp take an int vector as wide as x */
  fgk_type a1 = fgk_t(FG_I32, t.width);
  if (!strcmp(b->cl_name, "rint")) {
    /* PoCL folds rint of a constant of 2^31 or more to poison (the kernel
     * then writes nothing); values of 2^23 (2^52) and more are integers */
    char name[64];
    snprintf(name, sizeof name, "fgk_rint_%s", cl_type(t));
    if (fgk_first_use(e, name))
      fgu_buf_printf(&e->help, "inline %s %s(%s a) {\n  return fabs(a) < "
                     "(%s)%s ? rint(a) : a;\n}\n", cl_type(t), name,
                     cl_type(t), cl_type(fgk_t(t.elem, 1)),
                     t.elem == FG_F32 ? "8388608" : "4503599627370496");
    fgk_putf(e, "%s(", name);
    fgk_ex_as_type(e, x->u.call.arg[0], t);
    fgk_put(e, ")");
    return;
  }
  char own_name[64];
  const char *own = cl_own_builtin(e, x, t, own_name, sizeof own_name);
  fgk_putf(e, "%s(", own ? own : b->cl_name);
  for (int i = 0; i < x->u.call.n; i++) {
    const fg_expr *a = x->u.call.arg[i];
    if (i)
      fgk_put(e, ", ");
    if (i == 2 && b->rule == FGK_RULE_SELECT) {
      if (t.width > 1) {
        fgk_ex(e, a);       /* already an integer vector like T */
      } else {
        /* scalar select tests c != 0; OpenCL wants c as wide as T */
        fg_elem ce = fg_elem_size(t.elem) == 1 ? FG_I8
                     : fg_elem_size(t.elem) == 2 ? FG_I16
                     : fg_elem_size(t.elem) == 4 ? FG_I32 : FG_I64;
        fgk_putf(e, "(%s)((", cl_type(fgk_t(ce, 1)));
        fgk_ex(e, a);
        fgk_put(e, ") != 0)");
      }
      continue;
    }
    fgk_ex_as_type(e, a, i == 1 && b->rule == FGK_RULE_FLTINT ? a1 : t);
  }
  fgk_put(e, ")");
}

/* Calls on a CPU device (fgk_dialect_cl_cpu): f32 cbrt, exp, log, pow...
 * of a scalar are the routines of emit/math_c.c, always inlined, which
 * the device's loop vectorizer widens (PoCL's own are calls it does not
 * inline, and its float4 forms are slow); a dot product of a split small
 * tensor is summed from its components as the C dialect sums it, so no
 * vector value stands in the loop.  Everything else as cl_call. */
static void cl_cpu_call(fgk_emitter *e, const fg_expr *x) {
  const fgk_builtin_info *b = &fgk_builtins[x->u.call.fn];
  fgk_type t = x->u.call.arg[0]->type;
  const char *tpl = t.width == 1 ? fge_math_c_template(e, x) : NULL;
  if (tpl) {
    for (const char *p = tpl; *p; p++) {
      if (*p == '%' && p[1] >= '0' && p[1] <= '1') {
        int i = p[1] - '0';
        fgk_ex_as_type(e, x->u.call.arg[i], i == 1 &&
                       b->rule == FGK_RULE_FLTINT ? fgk_t(FG_I32, 1) : t);
        p++;
      } else {
        char c[2] = {*p, 0};
        fgk_put(e, c);
      }
    }
    return;
  }
  if (x->u.call.fn == FGK_FN_dot && e->split && t.width > 1 &&
      fgk_is_float(t.elem)) {
    const fg_expr *a = x->u.call.arg[0], *bb = x->u.call.arg[1];
    const char *st = cl_type(fgk_t(t.elem, 1));
    fgk_put(e, "(");
    for (int c = 0; c < t.width; c++)
      fgk_put(e, "(");
    fgk_putf(e, "(%s)0", st);
    for (int c = 0; c < t.width; c++) {
      fgk_putf(e, " + (%s)(", st);
      fge_comp(e, a, c);
      fgk_putf(e, ") * (%s)(", st);
      fge_comp(e, bb, c);
      fgk_put(e, "))");
    }
    fgk_put(e, ")");
    return;
  }
  cl_call(e, x);
}

static void cl_vec_open(fgk_emitter *e, fgk_type t) {
  fgk_putf(e, "((%s)(", cl_type(t));
}

static void cl_load_open(fgk_emitter *e, fgk_type t) {
  fgk_putf(e, "vload%d(0, ", t.width);
}

static void cl_store(fgk_emitter *e, fgk_type t, const char *ptr,
                     const fg_expr *value) {
  fgk_putf(e, "vstore%d(", t.width);
  fgk_ex(e, value);
  fgk_putf(e, ", 0, %s);\n", ptr);
}

static void cl_buffer_arg(fgu_buf *o, const char *pfx, int i, fg_type t,
                          bool is_const) {
  fgu_buf_printf(o, "    __global %s%s *restrict %s%d,\n",
                 is_const ? "const " : "", cl_type(fgk_t(t.elem, 1)), pfx, i);
}

static void cl_open_kernel(fgk_emitter *e, fgu_buf *o, const char *helpers,
                           const char *fn_name) {
  const fgk_kernel *k = e->k;
  if (e->uses_fp64)
    fgu_buf_puts(o, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  /* OpenCL C may contract a * b + c into fma unless told not to; the C
   * dialect builds with -ffp-contract=off: float +, -, * are the same
   * bits on both backends (as RenderScript's code, rs-kernel/emit_hooks.c) */
  if (k->fp != FGK_FP_RELAXED || e->strip > 1)
    fgu_buf_puts(o, "#pragma OPENCL FP_CONTRACT OFF\n");
  if (e->strip > 1 && e->fast_fma)
    fgu_buf_puts(o, "#define FGK_FAST_FMA 1\n");
  fgu_buf_puts(o, cl_prelude);
  fgu_buf_puts(o, helpers);
  /* the math routines' compensated steps are never contracted; relaxed
   * kernels contract their own code */
  if (k->fp == FGK_FP_RELAXED && e->strip > 1)
    fgu_buf_puts(o, "#pragma OPENCL FP_CONTRACT ON\n");
  if (k->grouped)
    fgu_buf_printf(o, "__attribute__((reqd_work_group_size(%d, %d, 1)))\n",
                   k->local[1], k->local[0]);
  fgu_buf_printf(o, "__kernel void %s(\n", fn_name);
  for (int i = 0; i < k->n_in; i++)
    cl_buffer_arg(o, "in", i, k->in_type[i], true);
  for (int i = 0; i < k->n_out; i++)
    cl_buffer_arg(o, "out", i, k->out_type[i], false);
  for (int i = 0; i < k->n_in + k->n_out; i++) {
    const char *pfx = i < k->n_in ? "in" : "out";
    int j = i < k->n_in ? i : i - k->n_in;
    fgu_buf_printf(o, "    long %s%d_L, long %s%d_R, long %s%d_C,\n", pfx, j,
                   pfx, j, pfx, j);
  }
  fgu_buf_puts(o, "    long fgk_TL, long fgk_TR, long fgk_TC,\n"
               "    __global volatile const int *fgk_stop) {\n");
  if (e->locals.s)
    fgu_buf_puts(o, e->locals.s);
  for (int i = 0; i < k->n_in + k->n_out; i++) {
    const char *pfx = i < k->n_in ? "in" : "out";
    int j = i < k->n_in ? i : i - k->n_in;
    fgu_buf_printf(o, "  const long %s%d_P = %s%d_L * %s%d_R * %s%d_C;\n",
                   pfx, j, pfx, j, pfx, j, pfx, j);
  }
  fgu_buf_puts(o, "  const int _layers = (int)fgk_TL, _rows = (int)fgk_TR, "
               "_columns = (int)fgk_TC;\n");
  if (fgk_is_reduction(k->reduce)) {
    /* one work-item per partial, each reducing a fixed chunk of the
     * flattened threads: the order of additions depends only on the shape */
    fgu_buf_printf(o, "  const long fgk_N = fgk_TL * fgk_TR * fgk_TC;\n"
                   "  const long fgk_P = out%d_C;\n"
                   "  const long fgk_chunk = %s;\n"
                   "  const long fgk_p = get_global_id(0);\n"
                   "  if (fgk_p >= fgk_P)\n    return;\n  {\n",
                   k->reduce.port, fgk_reduce_chunk_text(k));
    fgk_reduce_acc_decl(e, o);
    /* row by row, as in the C dialect: two divisions per row */
    fgu_buf_puts(o, "    const long fgk_end = min((fgk_p + 1) * fgk_chunk, "
                 "fgk_N);\n");
    /* a reduction with a location folds in blocks (emit/reduce.c) */
    const char *from, *to;
    fge_loc_blocks_open(e, o, &from, &to);
    fgu_buf_printf(o, "    for (long fgk_r0 = %s; fgk_r0 < %s;) "
                   "{\n"
                   "      const long fgk_lr = fgk_r0 / fgk_TC;\n"
                   "      const int _layer = (int)(fgk_lr / fgk_TR), "
                   "_row = (int)(fgk_lr %% fgk_TR);\n"
                   "      const long fgk_cb = fgk_r0 - fgk_lr * fgk_TC;\n"
                   "      const long fgk_ce = min(fgk_cb + (%s - fgk_r0), "
                   "fgk_TC);\n"
                   "      const long fgk_row0 = fgk_lr * fgk_TC;\n"
                   "      fgk_r0 = fgk_row0 + fgk_ce;\n", from, to, to);
    if (k->reduce.kind == FGK_REDUCE_FOREIGN)
      fgu_buf_puts(o, "      for (long fgk_c = fgk_cb; fgk_c < fgk_ce; "
                   "++fgk_c) {\n"
                   "      const int _column = (int)fgk_c;\n"
                   "      const long fgk_i = fgk_row0 + fgk_c;\n");
    return;
  }
  if (e->strip > 1) {
    /* a row of e->strip columns, a loop the device's compiler widens */
    assert(!k->grouped);
    /* with column tables, e->strip_rows rows of the strip (walk.c) */
    int rows = e->strip_rows;
    const char *r = rows > 1 ? "fgk_r0" : "fgk_r";
    fgu_buf_printf(o, "  const long fgk_c0 = (long)get_global_id(0) * %d, "
                   "%s = (long)get_global_id(1) * %d, "
                   "fgk_l = get_global_id(2)%s;\n", e->strip, r, rows,
                   k->thread_elements ? " % fgk_TL" : "");
    if (k->thread_elements)
      fgu_buf_puts(o, "  const int _tensorElement = (int)(get_global_id(2) "
                   "/ fgk_TL);\n");
    fgu_buf_printf(o, "  if (fgk_c0 >= fgk_TC || %s >= fgk_TR || "
                   "fgk_l >= fgk_TL)\n    return;\n"
                   "  const long fgk_c1 = min(fgk_c0 + %d, fgk_TC);\n",
                   r, e->strip);
    if (rows > 1) {
      /* the column statements once for the strip, into tables its rows'
       * threads read (emit/coltab.c); then the rows */
      assert(e->coltab_pre_text.s && !e->interior_body.s &&
             !e->interior_flat);
      fgu_buf_printf(o, "  enum { fgk_CB = %d };\n", e->strip);
      if (e->coltab_decl.s)
        fgu_buf_puts(o, e->coltab_decl.s);
      fgu_buf_printf(o, "  const long fgk_cb = fgk_c0, fgk_ce = fgk_c1;\n"
                     "  for (long fgk_c = fgk_cb; fgk_c < fgk_ce; ++fgk_c) "
                     "{\n    const int _column = (int)fgk_c;\n%s  }\n"
                     "  const long fgk_r1 = min(fgk_r0 + %d, fgk_TR);\n"
                     "  for (long fgk_r = fgk_r0; fgk_r < fgk_r1; ++fgk_r) "
                     "{\n", e->coltab_pre_text.s, rows);
    }
    static const char *const thread =
      "  const int _layer = (int)fgk_l, _row = (int)fgk_r, "
      "_column = (int)fgk_c;\n"
      "  const long fgk_i = (fgk_l * fgk_TR + fgk_r) * fgk_TC + fgk_c;\n"
      "  {\n    {\n";
    if (e->interior_body.s && fge_stencil_bounds(e, o)) {
      /* a stencil (emit/stencil.c): the strip's interior columns with
       * unclamped taps, then the others */
      int n = e->interior_flat;
      if (n > 1)   /* over the row's elements (emit/flat.c) */
        fgu_buf_printf(o, "  for (long fgk_j = fgk_lo * %d; fgk_j < fgk_hi * "
                       "%d; ++fgk_j) {\n  const long fgk_c = fgk_j / %d;\n"
                       "%s%s    }\n  }\n  }\n", n, n, n, thread,
                       e->interior_body.s);
      else
        fgu_buf_printf(o, "  for (long fgk_c = fgk_lo; fgk_c < fgk_hi; "
                       "++fgk_c) {\n%s%s    }\n  }\n  }\n", thread,
                       e->interior_body.s);
      fgu_buf_printf(o, "  for (long fgk_c = fgk_lo == fgk_c0 ? fgk_hi : "
                     "fgk_c0; fgk_c < fgk_c1;\n       fgk_c = fgk_c + 1 == "
                     "fgk_lo ? fgk_hi : fgk_c + 1) {\n%s", thread);
      return;
    }
    /* the math routines are long dependency chains: two vectors in
     * flight hide their latency, as in the C dialect (W1 fused at 2048 x
     * 1024, the kernel alone: 20.1 / 20.5 ms -> 13.9 / 14.9), and of 16
     * lanes where the device has AVX-512, as the C dialect's thread
     * loops (W1 fused on PoCL, bench_opencl W1: 98 -> 57 ms; the CPU
     * backend 49-51 in the same runs) */
    if (fge_math_c_used(e))
      fgu_buf_puts(o, "#if defined(__AVX512F__)\n"
                   "  #pragma clang loop vectorize_width(16) "
                   "interleave_count(2)\n#else\n"
                   "  #pragma clang loop interleave_count(2)\n#endif\n");
    else if (e->word_tapped)
      /* the words' gathers: PoCL's cost model widens 8 lanes, where 16
       * (a zmm gather of words per tap) took a word-tapped resize
       * 4000x3000 -> 2000x1500 on PoCL from 21.9 to 12.9 ms (bilinear
       * u8x3; bicubic 38.6 -> 26.3; process CPU time); without word
       * taps 16 lanes gained nothing (bilinear 27.4 / 27.6 ms) */
      fgu_buf_puts(o, "#if defined(__AVX512F__)\n"
                   "  #pragma clang loop vectorize_width(16)\n#endif\n");
    int n = e->interior_flat;
    if (n > 1)   /* pointwise, over the strip's elements (emit/flat.c) */
      fgu_buf_printf(o, "  for (long fgk_j = fgk_c0 * %d; fgk_j < fgk_c1 * "
                     "%d; ++fgk_j) {\n  const long fgk_c = fgk_j / %d;\n%s",
                     n, n, n, thread);
    else
      fgu_buf_printf(o, "  for (long fgk_c = fgk_c0; fgk_c < fgk_c1; "
                     "++fgk_c) {\n%s", thread);
    return;
  }
  /* per-element threads (_globalThreads(fieldShape, tensorShape)): the
   * third axis runs over elements times layers */
  fgu_buf_printf(o, "  const long fgk_c = get_global_id(0), "
                 "fgk_r = get_global_id(1), fgk_l = get_global_id(2)%s;\n"
                 "  const int _layer = (int)fgk_l, _row = (int)fgk_r, "
                 "_column = (int)fgk_c;\n",
                 k->thread_elements ? " % fgk_TL" : "");
  if (k->thread_elements)
    fgu_buf_puts(o, "  const int _tensorElement = (int)(get_global_id(2) / "
                 "fgk_TL);\n");
  if (!k->grouped) {
    fgu_buf_puts(o, "  /* the global size is rounded up: extra work-items "
                 "idle */\n"
                 "  if (fgk_c >= fgk_TC || fgk_r >= fgk_TR || fgk_l >= fgk_TL)"
                 "\n    return;\n"
                 "  const long fgk_i = (fgk_l * fgk_TR + fgk_r) * fgk_TC + "
                 "fgk_c;\n  {\n    {\n");
    return;
  }
  /* a grouped kernel's extra work-items reach the barriers too: they read
   * clamped locations and write nothing */
  fgu_buf_printf(o, "  const int _localLayers = 1, _localRows = %d, "
                 "_localColumns = %d;\n", k->local[0], k->local[1]);
  fgu_buf_puts(o, "  const int _localLayer = 0, _localRow = get_local_id(1), "
               "_localColumn = get_local_id(0);\n"
               "  const int _groupLayer = get_group_id(2), "
               "_groupRow = get_group_id(1), _groupColumn = get_group_id(0);\n"
               "  const int fgk_live = fgk_c < fgk_TC && fgk_r < fgk_TR && "
               "fgk_l < fgk_TL;\n"
               "  const long fgk_i = (min(fgk_l, fgk_TL - 1) * fgk_TR + "
               "min(fgk_r, fgk_TR - 1)) * fgk_TC + min(fgk_c, fgk_TC - 1);\n");
  if (e->zero_locals.s) {
    fgu_buf_puts(o, "  if (get_local_id(0) == 0 && get_local_id(1) == 0 && "
                 "get_local_id(2) == 0) {\n");
    fgu_buf_puts(o, e->zero_locals.s);
    fgu_buf_puts(o, "  }\n  barrier(CLK_LOCAL_MEM_FENCE);\n");
  }
  fgu_buf_puts(o, "  {\n    {\n");
}

static void cl_atomic(fgk_emitter *e, const fg_expr *x) {
  fgk_atomic at = x->u.atomic.op;
  fgk_putf(e, "(fgk_live ? %s(", fgk_atomic_name(at));
  fgk_ex(e, x->u.atomic.p);
  if (x->u.atomic.a) {
    fgk_put(e, ", ");
    fgk_ex_as_type(e, x->u.atomic.a, x->type);
  }
  if (x->u.atomic.b) {
    fgk_put(e, ", ");
    fgk_ex_as_type(e, x->u.atomic.b, x->type);
  }
  fgk_putf(e, ") : (%s)0)", cl_type(x->type));
}

const fgk_dialect_i fgk_dialect_cl = {
  .name = "OpenCL C",
  .id = FGK_DIALECT_CL,
  .type_name = cl_type,
  .splat = cl_splat,
  .vconvert = cl_vconvert,
  .convert_sat = cl_convert_sat,
  .as = cl_as,
  .call = cl_call,
  .vec_open = cl_vec_open,
  .vec_close = "))",
  .helper_prefix = "inline ",
  .load_open = cl_load_open,
  .store = cl_store,
  .open_kernel = cl_open_kernel,
  .close_kernel = "    }\n  }\n}\n",
  .atomic = cl_atomic,
  .split_phases = false,
  .local_qualifier = "__local ",
  .locals_at_kernel_scope = true,
  .close_reduce = "  }\n}\n",
  .reduce_block_pragma = "",
  /* small tensors stay vector types: PoCL's SLP vectorizer packs a
   * scalarized float4's four components into short vectors, which stops
   * its work-item loop vectorizer, and scalar pow/cbrt calls are never
   * widened; W1 fused took 2.6x as long scalarized (its float4 pow and
   * cbrt are PoCL's 4-lane routines) */
  .scalarize = false,
  .hoist_reads = true,
  /* no column tables: a work-item is one pixel, so a table would be
   * filled for the one value read from it; no word taps: small tensors
   * stay vectors, loaded whole (vloadN) */
};

/* The same OpenCL C for a CPU device whose compiler widens a work-item's
 * loops but not its vector types (PoCL: its first pass packs a
 * work-item's float4 into short vectors, after which it cannot widen
 * across work-items, and its float4 pow and cbrt are slow routines).
 * Small tensors become scalars as in the C dialect, f32 math the C
 * dialect's routines, and each work-item a loop over a row of columns
 * (e->strip, fgk_emit), which the compiler vectorizes before it builds
 * the work-group.  W1 (float4 L*a*b*, 8 operators, 4096^2) fused on
 * PoCL: see the README's Speed section.  As in the C dialect, gathered
 * taps of small 8- and 16-bit tensors are word loads (emit/taps.c), and
 * values of the column alone go to tables (emit/coltab.c), filled once
 * for the strip by a work-item that then runs e->strip_rows rows of it. */
const fgk_dialect_i fgk_dialect_cl_cpu = {
  .name = "OpenCL C (CPU)",
  .id = FGK_DIALECT_CL,
  .type_name = cl_type,
  .splat = cl_splat,
  .vconvert = cl_vconvert,
  .convert_sat = cl_convert_sat,
  .as = cl_as,
  .call = cl_cpu_call,
  .vec_open = cl_vec_open,
  .vec_close = "))",
  .helper_prefix = "inline ",
  .load_open = cl_load_open,
  .store = cl_store,
  .open_kernel = cl_open_kernel,
  .close_kernel = "    }\n  }\n  }\n}\n",
  .atomic = cl_atomic,
  .split_phases = false,
  .local_qualifier = "__local ",
  .locals_at_kernel_scope = true,
  .close_reduce = "  }\n}\n",
  .reduce_block_pragma = "",
  .scalarize = true,
  .split_stencils = true,
  .flat_interior = true,
  /* a strip's rows share its columns' tables (e->strip_rows) */
  .column_tables = true,
  .close_kernel_tables = "    }\n  }\n  }\n  }\n}\n",
  .word_taps = true,
};
