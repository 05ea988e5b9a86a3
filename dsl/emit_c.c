/* dsl/emit_c.c - the C dialect, for the CPU backend.  C11 with clang's
 * ext_vector_type vectors (OpenCL-style float4, swizzles, scalar
 * broadcast, vector comparisons), so the IR's vector semantics carry over
 * unchanged.  Built-in functions, never-trapping integer division,
 * saturating conversions, splats and unaligned loads become small static
 * inline helpers, emitted only when the kernel uses them.  The thread loop
 * runs along columns innermost with restrict pointers so clang can
 * vectorize it. */
#include "emit_impl.h"

#include <stdio.h>
#include <string.h>

/* C spelling of a type: OpenCL names, except that the scalar i8 is
 * "schar" (plain char's signedness varies) and bool is _Bool. */
static const char *cty(fgk_type t) {
  if (t.width == 1 && t.elem == FG_I8)
    return "schar";
  if (t.width == 1 && t.elem == FG_BOOL)
    return "_Bool";
  return fgk_type_name(t);
}

static const char *cscalar(fg_elem e) { return cty(fgk_t(e, 1)); }

static const char *prelude =
  "#include <math.h>\n"
  "#include <stdint.h>\n"
  "#include <string.h>\n"
  "_Static_assert(sizeof(long) == 8, \"LP64 expected\");\n"
  "typedef signed char schar;\n"
  "typedef unsigned char uchar;\n"
  "typedef unsigned short ushort;\n"
  "typedef unsigned int uint;\n"
  "typedef unsigned long ulong;\n"
  "#define FGK_VEC(T, N) typedef T T##N __attribute__((ext_vector_type(N)));\n"
  "#define FGK_VECS(T) FGK_VEC(T, 2) FGK_VEC(T, 3) FGK_VEC(T, 4)\n"
  "FGK_VECS(uchar) FGK_VECS(ushort) FGK_VECS(short) FGK_VECS(int)\n"
  "FGK_VECS(uint) FGK_VECS(long) FGK_VECS(ulong) FGK_VECS(float)\n"
  "FGK_VECS(double)\n"
  "typedef schar char2 __attribute__((ext_vector_type(2)));\n"
  "typedef schar char3 __attribute__((ext_vector_type(3)));\n"
  "typedef schar char4 __attribute__((ext_vector_type(4)));\n"
  "#define FGK_PI 3.14159265358979323846\n"
  "#define FGK_1_PI 0.31830988618379067154\n"
  "#define FGK_180_PI 57.295779513082320876\n"
  "#define FGK_PI_180 0.017453292519943295769\n"
  "#define fgk_max(a, b) ((a) < (b) ? (b) : (a))\n"
  "#define fgk_min(a, b) ((b) < (a) ? (b) : (a))\n"
  "static inline long fgk_ci(long i, long n) {\n"
  "  return i < 0 ? 0 : i >= n ? n - 1 : i;\n"
  "}\n"
  "/* Flat index of (l, r, c) clamped into an L x R x C field. */\n"
  "static inline long fgk_at(long L, long R, long C,\n"
  "                             long l, long r, long c) {\n"
  "  return (fgk_ci(l, L) * R + fgk_ci(r, R)) * C + fgk_ci(c, C);\n"
  "}\n"
  "/* Flat index of (l, r, c) in an L x R x C field, -1 outside it. */\n"
  "static inline long fgk_wat(long L, long R, long C,\n"
  "                              long l, long r, long c) {\n"
  "  if (l < 0 || l >= L || r < 0 || r >= R || c < 0 || c >= C)\n"
  "    return -1;\n"
  "  return (l * R + r) * C + c;\n"
  "}\n"
  "static inline float fgk_signf(float x) {\n"
  "  return x > 0 ? 1.0f : x < 0 ? -1.0f : x == 0 ? copysignf(0.0f, x) : x;\n"
  "}\n"
  "static inline double fgk_sign(double x) {\n"
  "  return x > 0 ? 1.0 : x < 0 ? -1.0 : x == 0 ? copysign(0.0, x) : x;\n"
  "}\n"
  "static inline float fgk_maxmagf(float x, float y) {\n"
  "  float ax = fabsf(x), ay = fabsf(y);\n"
  "  return ax > ay ? x : ay > ax ? y : fmaxf(x, y);\n"
  "}\n"
  "static inline double fgk_maxmag(double x, double y) {\n"
  "  double ax = fabs(x), ay = fabs(y);\n"
  "  return ax > ay ? x : ay > ax ? y : fmax(x, y);\n"
  "}\n"
  "static inline float fgk_minmagf(float x, float y) {\n"
  "  float ax = fabsf(x), ay = fabsf(y);\n"
  "  return ax < ay ? x : ay < ax ? y : fminf(x, y);\n"
  "}\n"
  "static inline double fgk_minmag(double x, double y) {\n"
  "  double ax = fabs(x), ay = fabs(y);\n"
  "  return ax < ay ? x : ay < ax ? y : fmin(x, y);\n"
  "}\n"
  "static inline float fgk_rootnf(float x, int n) {\n"
  "  if (n == 0) return NAN;\n"
  "  if (x < 0 && (n & 1)) return -powf(-x, 1.0f / (float)n);\n"
  "  return powf(x, 1.0f / (float)n);\n"
  "}\n"
  "static inline double fgk_rootn(double x, int n) {\n"
  "  if (n == 0) return NAN;\n"
  "  if (x < 0 && (n & 1)) return -pow(-x, 1.0 / (double)n);\n"
  "  return pow(x, 1.0 / (double)n);\n"
  "}\n";


/* ---- helpers emitted on demand ------------------------------------------ */

/* A built-in applied component-wise through its scalar template, e.g.
 * fgk_sqrt_float4; emits the definition once and writes the call. */
static void c_call(fgk_emitter *e, const fg_expr *x) {
  fgk_builtin fn = x->u.call.fn;
  const fgk_builtin_info *b = &fgk_builtins[fn];
  fgk_type t = x->u.call.arg[0]->type;
  fgk_type a1 = x->u.call.n > 1 ? x->u.call.arg[1]->type : t;
  if (b->rule == FGK_RULE_FLTINT)
    a1 = fgk_t(FG_I32, a1.width);
  fgk_type r = fgk_builtin_result(fn, t);
  char name[96];
  snprintf(name, sizeof name, "fgk_%s_%s%s%s", b->name, fgk_type_name(t),
           b->rule == FGK_RULE_FLTINT ? "_" : "",
           b->rule == FGK_RULE_FLTINT ? fgk_type_name(a1) : "");
  if (fgk_first_use(e, name)) {
    fgu_buf *h = &e->help;
    const char *ty = cty(t), *rty = cty(r);
    const char *sfx = t.elem == FG_F32 ? "f" : "";
    fgu_buf_printf(h, "static inline %s %s(%s a0", rty, name, ty);
    for (int i = 1; i < b->arity; i++)
      fgu_buf_printf(h, ", %s a%d", i == 1 && b->rule == FGK_RULE_FLTINT
                                        ? cty(a1) : ty, i);
    fgu_buf_puts(h, ") {\n");
    if (b->rule == FGK_RULE_FLTRED) {
      fgu_buf_printf(h, "  %s s = 0;\n", cscalar(t.elem));
      for (int c = 0; c < t.width; c++) {
        char ix[16] = "";
        if (t.width > 1)
          snprintf(ix, sizeof ix, ".s%d", c);
        if (fn == FGK_FN_dot)
          fgu_buf_printf(h, "  s += a0%s * a1%s;\n", ix, ix);
        else if (fn == FGK_FN_distance)
          fgu_buf_printf(h, "  s += (a0%s - a1%s) * (a0%s - a1%s);\n", ix,
                         ix, ix, ix);
        else
          fgu_buf_printf(h, "  s += a0%s * a0%s;\n", ix, ix);
      }
      if (fn == FGK_FN_dot)
        fgu_buf_puts(h, "  return s;\n}\n");
      else
        fgu_buf_printf(h, "  return sqrt%s(s);\n}\n", sfx);
    } else {
      if (t.width > 1)
        fgu_buf_printf(h, "  %s r;\n  for (int i = 0; i < %d; i++)\n"
                       "    r[i] = ", rty, t.width);
      else
        fgu_buf_puts(h, "  return ");
      const char *ix = t.width > 1 ? "[i]" : "";
      for (const char *p = b->c_template; *p; p++) {
        if (*p == '%' && p[1] >= '0' && p[1] <= '2') {
          int a = p[1] - '0';
          bool vec = !(b->rule == FGK_RULE_FLTINT && a == 1 && a1.width == 1);
          fgu_buf_printf(h, "a%d%s", a, vec ? ix : "");
          p++;
        } else if (*p == '%' && p[1] == 'f') {
          fgu_buf_puts(h, sfx);
          p++;
        } else {
          fgu_buf_putc(h, *p);
        }
      }
      fgu_buf_puts(h, t.width > 1 ? ";\n  return r;\n}\n" : ";\n}\n");
    }
  }
  fgk_putf(e, "%s(", name);
  for (int i = 0; i < x->u.call.n; i++) {
    if (i)
      fgk_put(e, ", ");
    fgk_ex_as_type(e, x->u.call.arg[i],
                   i == 1 && b->rule == FGK_RULE_FLTINT ? a1 : t);
  }
  fgk_put(e, ")");
}

/* Integer division or modulo that never traps: x / 0 and x % 0 are 0, and
 * MIN / -1 wraps. */
static void c_divmod(fgk_emitter *e, bool mod, fgk_type t, char *name,
                     size_t size) {
  snprintf(name, size, "fgk_%s_%s", mod ? "mod" : "div", fgk_type_name(t));
  if (fgk_first_use(e, name)) {
    const char *ty = cty(t), *ety = cscalar(t.elem);
    fgu_buf *h = &e->help;
    fgu_buf_printf(h, "static inline %s %s(%s a, %s b) {\n  %s r;\n", ty,
                   name, ty, ty, ty);
    for (int c = 0; c < t.width; c++) {
      char ix[16] = "";
      if (t.width > 1)
        snprintf(ix, sizeof ix, ".s%d", c);
      fgu_buf_printf(h, "  { %s x = a%s, y = b%s;\n    r%s = ", ety, ix, ix,
                     ix);
      if (fgk_is_signed(t.elem))
        fgu_buf_printf(h, "y == 0 ? 0 : y == -1 ? (%s)(%s) : x %c y; }\n",
                       ety, mod ? "0" : "0ul - (unsigned long)x",
                       mod ? '%' : '/');
      else
        fgu_buf_printf(h, "y == 0 ? 0 : x %c y; }\n", mod ? '%' : '/');
    }
    fgu_buf_puts(h, "  return r;\n}\n");
  }
}

static void c_splat(fgk_emitter *e, const fg_expr *x, fgk_type t) {
  char name[64];
  snprintf(name, sizeof name, "fgk_splat_%s", fgk_type_name(t));
  if (fgk_first_use(e, name)) {
    const char *ty = cty(t), *ety = cscalar(t.elem);
    fgu_buf_printf(&e->help, "static inline %s %s(%s s) {\n  %s r = {", ty,
                   name, ety, ty);
    for (int i = 0; i < t.width; i++)
      fgu_buf_printf(&e->help, "%ss", i ? ", " : "");
    fgu_buf_puts(&e->help, "};\n  return r;\n}\n");
  }
  fgk_putf(e, "%s((%s)(", name, cscalar(t.elem));
  fgk_ex(e, x);
  fgk_put(e, "))");
}

static void c_vconvert(fgk_emitter *e, const fg_expr *x, fgk_type t) {
  fgk_put(e, "__builtin_convertvector(");
  fgk_ex(e, x);
  fgk_putf(e, ", %s)", cty(t));
}

/* Saturating conversion from f to t, rounding floats to nearest even. */
static void c_convert_sat(fgk_emitter *e, const fg_expr *x, fgk_type f,
                          fgk_type t) {
  char name[96];
  snprintf(name, sizeof name, "fgk_sat_%s_%s", fgk_type_name(t),
           fgk_type_name(f));
  if (fgk_first_use(e, name)) {
    fgu_buf *h = &e->help;
    const char *ty = cty(t), *ety = cscalar(t.elem);
    const char *lo = fgk_int_min_literal(t.elem);
    const char *hi = fgk_int_max_literal(t.elem);
    fgu_buf_printf(h, "static inline %s %s(%s a) {\n  %s r;\n", ty, name,
                   cty(f), ty);
    for (int c = 0; c < t.width; c++) {
      char ix[16] = "";
      if (t.width > 1)
        snprintf(ix, sizeof ix, ".s%d", c);
      if (fgk_is_float(f.elem)) {
        fgu_buf_printf(h, "  { double v = rint((double)a%s);\n    r%s = v != v"
                       " ? 0 : v <= (double)%s ? %s : v >= (double)%s ? %s : "
                       "(%s)v; }\n", ix, ix, lo, lo, hi, hi, ety);
      } else if (fgk_is_signed(f.elem)) {
        fgu_buf_printf(h, "  { long v = (long)a%s;\n    r%s = v < (long)%s ? "
                       "%s : v > 0 && (unsigned long)v > (unsigned long)%s "
                       "? %s : (%s)v; }\n", ix, ix, lo, lo, hi, hi, ety);
      } else {
        fgu_buf_printf(h, "  { unsigned long v = (unsigned long)a%s;\n    "
                       "r%s = v > (unsigned long)%s ? %s : (%s)v; }\n", ix, ix,
                       hi, hi, ety);
      }
    }
    fgu_buf_puts(h, "  return r;\n}\n");
  }
  fgk_putf(e, "%s(", name);
  fgk_ex(e, x);
  fgk_put(e, ")");
}

static void c_as(fgk_emitter *e, const fg_expr *x, fgk_type t) {
  char name[96];
  snprintf(name, sizeof name, "fgk_as_%s_%s", fgk_type_name(t),
           fgk_type_name(x->type));
  if (fgk_first_use(e, name))
    fgu_buf_printf(&e->help, "static inline %s %s(%s a) {\n  %s r;\n"
                   "  memcpy(&r, &a, sizeof r);\n  return r;\n}\n", cty(t),
                   name, cty(x->type), cty(t));
  fgk_putf(e, "%s(", name);
  fgk_ex(e, x);
  fgk_put(e, ")");
}

static void c_vec_open(fgk_emitter *e, fgk_type t) {
  fgk_putf(e, "((%s){", cty(t));
}

/* Loads and stores of small tensors: memcpy makes them alignment-free and
 * reads exactly the tensor's elements (3, not 4, for a float3). */
static void c_load_open(fgk_emitter *e, fgk_type t) {
  char name[64];
  snprintf(name, sizeof name, "fgk_ld_%s", fgk_type_name(t));
  if (fgk_first_use(e, name))
    fgu_buf_printf(&e->help, "static inline %s %s(const %s *p) {\n  %s v;\n"
                   "  memcpy(&v, p, %d * sizeof(%s));\n  return v;\n}\n",
                   cty(t), name, cscalar(t.elem), cty(t), t.width,
                   cscalar(t.elem));
  fgk_putf(e, "%s(", name);
}

static void c_store(fgk_emitter *e, fgk_type t, const char *ptr,
                    const fg_expr *value) {
  char name[64];
  snprintf(name, sizeof name, "fgk_st_%s", fgk_type_name(t));
  if (fgk_first_use(e, name))
    fgu_buf_printf(&e->help, "static inline void %s(%s *p, %s v) {\n"
                   "  memcpy(p, &v, %d * sizeof(%s));\n}\n", name,
                   cscalar(t.elem), cty(t), t.width, cscalar(t.elem));
  fgk_putf(e, "%s(%s, ", name, ptr);
  fgk_ex(e, value);
  fgk_put(e, ");\n");
}

static void c_buffer(fgu_buf *o, const char *pfx, int i, int slot, fg_type t,
                     bool is_const) {
  const char *q = is_const ? "const " : "";
  fgu_buf_printf(o, "  %s%s *restrict %s%d = (%s%s *)fgk_buf[%d];\n", q,
                 cscalar(t.elem), pfx, i, q, cscalar(t.elem), slot);
  fgu_buf_printf(o, "  const long %s%d_L = fgk_dim[%d], %s%d_R = fgk_dim[%d], "
                 "%s%d_C = fgk_dim[%d];\n", pfx, i, 3 * slot, pfx, i,
                 3 * slot + 1, pfx, i, 3 * slot + 2);
  fgu_buf_printf(o, "  const long %s%d_P = %s%d_L * %s%d_R * %s%d_C;\n", pfx,
                 i, pfx, i, pfx, i, pfx, i);
  fgu_buf_printf(o, "  (void)%s%d_P;\n", pfx, i);
}

static void c_open_kernel(fgk_emitter *e, fgu_buf *o, const char *helpers,
                          const char *fn_name) {
  const fgk_kernel *k = e->k;
  int nb = k->n_in + k->n_out;
  fgu_buf_puts(o, prelude);
  fgu_buf_puts(o, helpers);
  fgu_buf_printf(o, "void %s(void *const *restrict fgk_buf, "
                 "const long *restrict fgk_dim,\n    long fgk_t0, long fgk_t1, "
                 "long fgk_c0, long fgk_c1) {\n", fn_name);
  for (int i = 0; i < k->n_in; i++)
    c_buffer(o, "in", i, i, k->in_type[i], true);
  for (int i = 0; i < k->n_out; i++)
    c_buffer(o, "out", i, k->n_in + i, k->out_type[i], false);
  fgu_buf_printf(o, "  const int _layers = (int)fgk_dim[%d], "
                 "_rows = (int)fgk_dim[%d], _columns = (int)fgk_dim[%d];\n",
                 3 * nb, 3 * nb + 1, 3 * nb + 2);
  fgu_buf_puts(o, "  (void)_layers;\n");
  if (k->grouped) {
    /* t and c count work-groups: (layer, group row) flattened, and group
     * columns; the threads of a group run one after another, phase by
     * phase, which is what a barrier needs */
    fgu_buf_printf(o, "  enum { fgk_LY = %d, fgk_LX = %d };\n"
                   "  const int _localLayers = 1, _localRows = fgk_LY, "
                   "_localColumns = fgk_LX;\n"
                   "  const long fgk_GY = (_rows + fgk_LY - 1) / fgk_LY;\n"
                   "  (void)_localLayers; (void)_localRows; "
                   "(void)_localColumns;\n", k->local[0], k->local[1]);
    fgu_buf_puts(o, "  for (long fgk_t = fgk_t0; fgk_t < fgk_t1; ++fgk_t) {\n"
                 "    const int _layer = (int)(fgk_t / fgk_GY), "
                 "_groupRow = (int)(fgk_t % fgk_GY);\n"
                 "    const int _groupLayer = _layer, _localLayer = 0;\n"
                 "    (void)_groupLayer; (void)_localLayer;\n"
                 "    for (long fgk_c = fgk_c0; fgk_c < fgk_c1; ++fgk_c) {\n"
                 "      const int _groupColumn = (int)fgk_c;\n"
                 "      (void)_groupColumn;\n");
    return;
  }
  fgu_buf_puts(o, "  for (long fgk_t = fgk_t0; fgk_t < fgk_t1; ++fgk_t) {\n"
               "    const int _layer = (int)(fgk_t / _rows), "
               "_row = (int)(fgk_t % _rows);\n"
               "    (void)_layer; (void)_row;\n"
               "    for (long fgk_c = fgk_c0; fgk_c < fgk_c1; ++fgk_c) {\n"
               "      const int _column = (int)fgk_c;\n"
               "      const long fgk_i = fgk_t * _columns + fgk_c;\n"
               "      (void)_column; (void)fgk_i;\n");
}

/* Atomics of a grouped kernel: its threads run one at a time on one OS
 * thread and groups share no memory, so a plain read-modify-write is
 * atomic here. */
static void c_atomic(fgk_emitter *e, const fg_expr *x) {
  fgk_atomic at = x->u.atomic.op;
  const char *ty = cty(x->type);
  char name[64];
  snprintf(name, sizeof name, "fgk_%s_%s", fgk_atomic_name(at), ty);
  if (fgk_first_use(e, name)) {
    static const char *const update[FGK_AT_COUNT_] = {
      "o + a", "o - a", "a", "a < o ? a : o", "a > o ? a : o", "o & a",
      "o | a", "o ^ a", "o + 1", "o - 1", "o == a ? b : o"};
    fgu_buf_printf(&e->help, "static inline %s %s(volatile %s *p, %s a, "
                   "%s b) {\n  %s o = *p;\n  (void)a; (void)b;\n"
                   "  *p = %s;\n  return o;\n}\n", ty, name, ty, ty, ty,
                   ty, update[at]);
  }
  fgk_putf(e, "(fgk_live ? %s(", name);
  fgk_ex(e, x->u.atomic.p);
  fgk_put(e, ", ");
  if (x->u.atomic.a)
    fgk_ex_as_type(e, x->u.atomic.a, x->type);
  else
    fgk_put(e, "0");
  fgk_put(e, ", ");
  if (x->u.atomic.b)
    fgk_ex_as_type(e, x->u.atomic.b, x->type);
  else
    fgk_put(e, "0");
  fgk_putf(e, ") : (%s)0)", ty);
}

const fgk_dialect_i fgk_dialect_c = {
  .name = "C dialect",
  .type_name = cty,
  .splat = c_splat,
  .vconvert = c_vconvert,
  .convert_sat = c_convert_sat,
  .as = c_as,
  .call = c_call,
  .vec_open = c_vec_open,
  .vec_close = "})",
  .divmod = c_divmod,
  .load_open = c_load_open,
  .store = c_store,
  .open_kernel = c_open_kernel,
  .close_kernel = "    }\n  }\n}\n",
  .atomic = c_atomic,
  .split_phases = true,
  .phase_open =
    "      for (int fgk_lt = 0; fgk_lt < fgk_LX * fgk_LY; ++fgk_lt) {\n"
    "        const int _localRow = fgk_lt / fgk_LX, "
    "_localColumn = fgk_lt % fgk_LX;\n"
    "        const int _row = _groupRow * fgk_LY + _localRow;\n"
    "        const int _column = _groupColumn * fgk_LX + _localColumn;\n"
    "        const int fgk_live = _row < _rows && _column < _columns;\n"
    "        const long fgk_i = ((long)_layer * _rows + (_row < _rows ? _row "
    ": _rows - 1)) * _columns + (_column < _columns ? _column : _columns - "
    "1);\n"
    "        (void)_localRow; (void)_localColumn; (void)fgk_live; "
    "(void)fgk_i;\n",
  .phase_close = "      }\n",
  .local_qualifier = "",
  .locals_at_kernel_scope = false,
};
