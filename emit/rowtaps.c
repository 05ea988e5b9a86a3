/* emit/rowtaps.c - gathered reads of a row, filled once per row into
 * tables.  A kernel with column tables (emit/coltab.c) that reads an
 * input of 4-byte scalars at (row value, column value + k), the row value
 * a variable of the row alone (of the layer, the row, constants, 0-D
 * inputs) and the column value one of the column tables' variables (a
 * bilinear resize's four taps, a nearest one's), reads the same element
 * for every thread of a row and column: in the thread body the read is a
 * gather, which clang widens into one hardware gather per tap
 * (vgatherdps: on AMD Zen 4 about two cycles an element, two thirds of
 * W6's bilinear resize of f32 4096^2 to 3000^2).  Here the column pass
 * also stores each tap's clamped column, and for each input and group of
 * 16 columns (8 with AVX2 alone) the start of a window of 2 x 16
 * elements of the row that holds every tap of the group, where one does
 * (a shrink by less than about 2, any growth); then each row, before its
 * columns, copies its taps into a table per tap (fgk_rowgather4): a
 * group with a window as two contiguous loads and one permute per tap
 * (vpermt2d; AVX2: two vpermd and a blend), any other element by element
 * (also on targets other than x86); and the thread body reads its table,
 * contiguously.  No gathers: on any x86, Intel's included, permuting
 * loaded rows costs less than gathering their elements one by one.  The
 * values are the input's elements, copied, so results are unchanged.
 * A small tensor of 8- or 16-bit elements that emit/taps.c reads as one
 * 4-byte word (u8x3, u8x4, u16x2) takes the same path with the words'
 * byte offsets (fgk_rowgatherw): its window is 2 x 16 dwords of the row
 * from the group's least offset, each word two permuted dwords shifted
 * together; element by element as fgk_tap4 reads them (the last pixel's
 * word ending at the buffer's end).  The C dialect only (OpenCL C keeps
 * its reads). */
#include "emit_impl.h"
#include "ir/visit.h"

#include <stdlib.h>

enum { R_INV, R_COL, R_ROW, R_OTHER };

static int join(int a, int b) {
  return a == b ? a : a == R_INV ? b : b == R_INV ? a : R_OTHER;
}

/* The class of x given the variables' classes cls. */
static int cls_of(const fgk_emitter *e, const unsigned char *cls,
                  const fg_expr *x) {
  if (!x)
    return R_INV;
  switch (x->kind) {
  case FGK_E_CONST:
  case FGK_E_EXTENT:
    return R_INV;
  case FGK_E_THREAD:
    switch (x->u.thread) {
    case FG_COLUMN:
      return R_COL;
    case FG_ROW:
    case FG_LAYER:
      return R_ROW;
    case FG_LAYERS:
    case FG_ROWS:
    case FG_COLUMNS:
      return R_INV;
    default:
      return R_OTHER;
    }
  case FGK_E_VAR:
    return x->u.var->id >= 0 && x->u.var->id < e->k->n_vars
               ? cls[x->u.var->id] : R_OTHER;
  case FGK_E_UNARY:
  case FGK_E_BINARY:
    return join(cls_of(e, cls, x->u.bin.a), cls_of(e, cls, x->u.bin.b));
  case FGK_E_CONVERT:
  case FGK_E_AS:
    return cls_of(e, cls, x->u.conv.a);
  case FGK_E_SWIZZLE:
    return cls_of(e, cls, x->u.swz.a);
  case FGK_E_CALL: {
    int c = R_INV;
    for (int i = 0; i < x->u.call.n; i++)
      c = join(c, cls_of(e, cls, x->u.call.arg[i]));
    return c;
  }
  case FGK_E_READ:
    /* the only tensor of a 0-D input: the same for every thread */
    return x->u.read.ncoords == 0 && !x->u.read.element &&
                   x->u.read.port >= 0 && x->u.read.port < e->k->n_in &&
                   e->k->in_type[x->u.read.port].field.ndim == 0
               ? R_INV : R_OTHER;
  default:
    return R_OTHER;
  }
}

/* Whether x is variable v or v +- a small constant: v and the constant. */
static const fgk_var *var_plus(const fg_expr *x, long *k) {
  *k = 0;
  if (x->kind == FGK_E_VAR)
    return x->u.var;
  if (x->kind != FGK_E_BINARY ||
      (x->u.bin.op != FGK_ADD && x->u.bin.op != FGK_SUB) ||
      x->u.bin.a->kind != FGK_E_VAR || x->u.bin.b->kind != FGK_E_CONST ||
      !fgk_is_int(x->u.bin.b->type.elem) || x->u.bin.b->u.k.i < -64 ||
      x->u.bin.b->u.k.i > 64)
    return NULL;
  *k = x->u.bin.op == FGK_ADD ? (long)x->u.bin.b->u.k.i
                              : -(long)x->u.bin.b->u.k.i;
  return x->u.bin.a->u.var;
}

typedef struct plan {
  fgk_emitter *e;
  unsigned char *cls;         /* by variable: its class */
  int *assigns;               /* by variable: its assignments */
  const fgk_stmt **at;        /* by variable: its (last) assignment */
} plan;

/* Whether coordinate x is a once-assigned int variable of class c (plus
 * a constant); the variable and the constant. */
static const fgk_var *coord(const plan *p, const fg_expr *x, int c,
                            long *k) {
  const fgk_var *v = var_plus(x, k);
  if (!v || v->id < 0 || v->id >= p->e->k->n_vars || v->ndims ||
      v->type.width != 1 || !fgk_is_int(v->type.elem) ||
      p->cls[v->id] != c || p->assigns[v->id] != 1)
    return NULL;
  /* a column variable's value is the column pass's, its table's */
  int cc;
  if (c == R_COL && (fge_coltab_index(p->e, p->at[v->id], &cc) < 0 ||
                     cc != 1))
    return NULL;
  return v;
}

/* Records read x as a row tap when it is one. */
static void find_taps(const fg_expr *x, void *arg) {
  plan *p = arg;
  fgk_emitter *e = p->e;
  const fgk_kernel *k = e->k;
  if (x->kind != FGK_E_READ || e->n_rowtap >= FGE_ROWTAPS_MAX)
    return;
  const fgk_access *a = &x->u.read;
  if (a->element || a->ncoords < 2 || a->border > FG_BORDER_CLAMP ||
      a->port < 0 || a->port >= k->n_in)
    return;
  /* a 4-byte scalar, or a small tensor read as a word (emit/taps.c) */
  int n = fg_type_tensor_elements(k->in_type[a->port]);
  int s = (int)fg_elem_size(k->in_type[a->port].elem);
  int bytes = n == 1 && s == 4 ? 0 : n > 1 && fge_tap_word(e, a, n) == 4
                                         ? n * s : -1;
  if (bytes < 0)
    return;
  fge_rowtap t = {.x = x, .port = a->port, .bytes = bytes};
  if (!(t.col = coord(p, a->coord[a->ncoords - 1], R_COL, &t.dc)) ||
      !(t.row = coord(p, a->coord[a->ncoords - 2], R_ROW, &t.dr)))
    return;
  if (a->ncoords == 3 &&
      !(t.layer = coord(p, a->coord[0], R_ROW, &t.dl))) {
    /* a constant layer is the plainest row value */
    if (a->coord[0]->kind != FGK_E_CONST ||
        !fgk_is_int(a->coord[0]->type.elem))
      return;
    t.dl = (long)a->coord[0]->u.k.i;
  }
  /* a tap of the same element shares its table; a column of the same
   * value its index and windows */
  t.table = t.cols = -1;
  for (int i = 0; i < e->n_rowtap; i++) {
    const fge_rowtap *u = &e->rowtap[i];
    if (u->col == t.col && u->dc == t.dc && u->port == t.port)
      t.cols = u->cols;
    if (u->port == t.port && u->row == t.row && u->dr == t.dr &&
        u->layer == t.layer && u->dl == t.dl && u->col == t.col &&
        u->dc == t.dc)
      t.table = u->table;
  }
  if (t.cols < 0)
    t.cols = e->n_rowtap_cols++;
  if (t.table < 0)
    t.table = e->n_rowtap_tables++;
  e->rowtap[e->n_rowtap++] = t;
}

static void count_assigns(const fgk_stmt *s, void *arg) {
  int *n = ((plan *)arg)->assigns;
  const fgk_var *v = NULL;
  if (s->kind == FGK_S_ASSIGN) {
    const fg_expr *l = s->u.assign.lhs;
    while (l->kind == FGK_E_SWIZZLE)
      l = l->u.swz.a;
    v = l->kind == FGK_E_VAR     ? l->u.var
        : l->kind == FGK_E_INDEX ? l->u.index.var : NULL;
  } else if (s->kind == FGK_S_FOR) {
    v = s->u.for_.var;
  }
  if (v && v->id >= 0 && v->id < ((plan *)arg)->e->k->n_vars)
    n[v->id] += s->kind == FGK_S_FOR ? 2 : 1;
}

bool fge_rowtap_plan(fgk_emitter *e) {
  const fgk_kernel *k = e->k;
  e->n_rowtap = e->n_rowtap_tables = e->n_rowtap_cols = 0;
  if (e->d->id != FGK_DIALECT_C || !e->coltab || e->strip > 1 ||
      e->per_thread || k->n_vars <= 0)
    return true;
  unsigned char *cls = calloc((size_t)k->n_vars, 1);
  int *assigns = calloc((size_t)k->n_vars, sizeof *assigns);
  const fgk_stmt **at = calloc((size_t)k->n_vars, sizeof *at);
  unsigned char *st = calloc((size_t)e->n_coltab + 1, 1);
  if (!cls || !assigns || !at || !st) {
    free(cls);
    free(assigns);
    free(at);
    free(st);
    return false;
  }
  plan p = {e, cls, assigns, at};
  fgk_visit_block(&k->body, &(fgk_visitor){.stmt = count_assigns,
                                          .arg = &p});
  /* the body is loop- and branch-free (fge_coltab_plan): its top-level
   * statements in order give each variable its class; a statement's reads
   * see the classes before its own assignment */
  int i = 0;
  for (const fgk_stmt *s = k->body.first; s && i < e->n_coltab;
       s = s->next, i++) {
    /* (a tap in another statement, a write's, keeps its gather) */
    if (s->kind == FGK_S_ASSIGN)
      fgk_visit_expr(s->u.assign.rhs, &(fgk_visitor){.expr = find_taps,
                                                     .arg = &p});
    if (s->kind != FGK_S_ASSIGN) {
      st[i] = s->kind == FGK_S_DECL ? R_INV : R_OTHER;
      continue;
    }
    int c = cls_of(e, cls, s->u.assign.rhs);
    const fg_expr *l = s->u.assign.lhs;
    if (l->kind == FGK_E_VAR && !l->u.var->ndims && !l->u.var->local &&
        !l->u.var->volatile_ && !fge_is_split(e, l->u.var) &&
        l->u.var->id >= 0 && l->u.var->id < k->n_vars) {
      cls[l->u.var->id] = (unsigned char)c;
      at[l->u.var->id] = s;
    } else {
      /* a whole variable held otherwise (split into components) keeps a
       * constant's or the row's class (the prologue assigns it alike); a
       * part of a variable makes the whole of it another's */
      if (l->kind != FGK_E_VAR || c == R_COL)
        c = R_OTHER;
      while (l->kind == FGK_E_SWIZZLE)
        l = l->u.swz.a;
      const fgk_var *v = l->kind == FGK_E_VAR     ? l->u.var
                         : l->kind == FGK_E_INDEX ? l->u.index.var : NULL;
      if (v && v->id >= 0 && v->id < k->n_vars)
        cls[v->id] = (unsigned char)c;
    }
    st[i] = (unsigned char)c;
  }
  free(cls);
  free(assigns);
  free(at);
  if (!e->n_rowtap) {
    free(st);
    return true;
  }
  e->rowtap_stmt = st;
  return true;
}

bool fge_rowtap_row_stmt(const fgk_emitter *e, const fgk_stmt *s) {
  int i = 0;
  for (const fgk_stmt *t = e->k->body.first; t && e->rowtap_stmt;
       t = t->next, i++)
    if (t == s)
      return e->rowtap_stmt[i] == R_ROW || e->rowtap_stmt[i] == R_INV;
  return false;
}

/* The helper: d0[i] = row[i0[i]] and, unless d1 is NULL, d1[i] =
 * row[i1[i]], for i < n, 4-byte elements; wb[g] the start of group g's
 * window of 2 FGK_RG elements (every index of the group inside it, and it
 * inside the row), or -1. */
static const char gather_helper[] =
  "#if defined(__x86_64__) && defined(__AVX512F__)\n"
  "#include <immintrin.h>\n#define FGK_RG 16\n"
  "#elif defined(__x86_64__) && defined(__AVX2__)\n"
  "#include <immintrin.h>\n#define FGK_RG 8\n"
  "#else\n#define FGK_RG 1\n#endif\n"
  "#include <limits.h>\n"
  "typedef uint fgk_u32a __attribute__((may_alias));\n"
  "#if FGK_RG == 16\n"
  "static inline __m512i fgk_rg_perm(__m512i lo, __m512i hi, const int *ix,\n"
  "                                  int b) {\n"
  "  return _mm512_permutex2var_epi32(\n"
  "      lo, _mm512_sub_epi32(_mm512_loadu_si512(ix), _mm512_set1_epi32(b)),"
  " hi);\n"
  "}\n"
  "#elif FGK_RG == 8\n"
  "static inline __m256i fgk_rg_perm(__m256i lo, __m256i hi, const int *ix,\n"
  "                                  int b) {\n"
  "  __m256i x = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)ix),\n"
  "                               _mm256_set1_epi32(b));\n"
  "  return _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, x),\n"
  "                            _mm256_permutevar8x32_epi32(hi, x),\n"
  "                            _mm256_cmpgt_epi32(x, _mm256_set1_epi32(7)));\n"
  "}\n"
  "#endif\n"
  "static void fgk_rowgather4(void *restrict d0, const int *restrict i0,\n"
  "                           void *restrict d1, const int *restrict i1,\n"
  "                           const void *restrict row, const int *restrict "
  "wb,\n"
  "                           long n) {\n"
  "  fgk_u32a *e0 = (fgk_u32a *)d0, *e1 = (fgk_u32a *)d1;\n"
  "  const fgk_u32a *r = (const fgk_u32a *)row;\n"
  "  long i = 0;\n"
  "#if FGK_RG > 1\n"
  "  for (; i + FGK_RG <= n; i += FGK_RG) {\n"
  "    const int b = wb[i / FGK_RG];\n"
  "    if (b < 0) {\n"
  "#pragma clang loop vectorize(disable)\n"
  "      for (long j = i; j < i + FGK_RG; j++) {\n"
  "        e0[j] = r[i0[j]];\n"
  "        if (e1)\n"
  "          e1[j] = r[i1[j]];\n"
  "      }\n"
  "      continue;\n"
  "    }\n"
  "#if FGK_RG == 16\n"
  "    __m512i lo = _mm512_loadu_si512(r + b);\n"
  "    __m512i hi = _mm512_loadu_si512(r + b + 16);\n"
  "    _mm512_storeu_si512(e0 + i, fgk_rg_perm(lo, hi, i0 + i, b));\n"
  "    if (e1)\n"
  "      _mm512_storeu_si512(e1 + i, fgk_rg_perm(lo, hi, i1 + i, b));\n"
  "#else\n"
  "    __m256i lo = _mm256_loadu_si256((const __m256i *)(r + b));\n"
  "    __m256i hi = _mm256_loadu_si256((const __m256i *)(r + b + 8));\n"
  "    _mm256_storeu_si256((__m256i *)(e0 + i), fgk_rg_perm(lo, hi, i0 + i, "
  "b));\n"
  "    if (e1)\n"
  "      _mm256_storeu_si256((__m256i *)(e1 + i), fgk_rg_perm(lo, hi, i1 + "
  "i, b));\n"
  "#endif\n"
  "  }\n"
  "#endif\n"
  "#pragma clang loop vectorize(disable)\n"
  "  for (; i < n; i++) {\n"
  "    e0[i] = r[i0[i]];\n"
  "    if (e1)\n"
  "      e1[i] = r[i1[i]];\n"
  "  }\n"
  "}\n"
  /* words: d0[i] = the 4 bytes from byte row + i0[i] of buf (size bytes
   * in all), as fgk_tap4 reads them (at the buffer's end, the word ending
   * there, shifted down); a group with a window: the two dwords holding
   * them, permuted from the window's loads, and funnel-shifted */
  "static inline uint fgk_rg_word(const uchar *buf, long size, long off) "
  "{\n"
  "  long a = off < size - 4 ? off : size - 4;\n"
  "  uint w;\n"
  "  memcpy(&w, buf + a, 4);\n"
  "  return w >> (8 * (off - a));\n"
  "}\n"
  "#if FGK_RG == 16\n"
  "static inline __m512i fgk_rg_wperm(__m512i lo, __m512i hi, const int *ix,"
  "\n"
  "                                   int b) {\n"
  "  __m512i x = _mm512_sub_epi32(_mm512_loadu_si512(ix), "
  "_mm512_set1_epi32(b));\n"
  "  __m512i k = _mm512_srli_epi32(x, 2);\n"
  "  __m512i sh = _mm512_slli_epi32(_mm512_and_si512(x, "
  "_mm512_set1_epi32(3)), 3);\n"
  "  __m512i w0 = _mm512_permutex2var_epi32(lo, k, hi);\n"
  "  __m512i w1 = _mm512_permutex2var_epi32(\n"
  "      lo, _mm512_add_epi32(k, _mm512_set1_epi32(1)), hi);\n"
  "  return _mm512_or_si512(_mm512_srlv_epi32(w0, sh),\n"
  "                         _mm512_sllv_epi32(w1, "
  "_mm512_sub_epi32(_mm512_set1_epi32(32), sh)));\n"
  "}\n"
  "#elif FGK_RG == 8\n"
  "static inline __m256i fgk_rg_wperm(__m256i lo, __m256i hi, const int *ix,"
  "\n"
  "                                   int b) {\n"
  "  __m256i x = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)ix),\n"
  "                               _mm256_set1_epi32(b));\n"
  "  __m256i k = _mm256_srli_epi32(x, 2);\n"
  "  __m256i sh = _mm256_slli_epi32(_mm256_and_si256(x, "
  "_mm256_set1_epi32(3)), 3);\n"
  "  __m256i k1 = _mm256_add_epi32(k, _mm256_set1_epi32(1));\n"
  "  __m256i seven = _mm256_set1_epi32(7);\n"
  "  __m256i w0 = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, k),\n"
  "                                  _mm256_permutevar8x32_epi32(hi, k),\n"
  "                                  _mm256_cmpgt_epi32(k, seven));\n"
  "  __m256i w1 = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, k1),\n"
  "                                  _mm256_permutevar8x32_epi32(hi, k1),\n"
  "                                  _mm256_cmpgt_epi32(k1, seven));\n"
  "  return _mm256_or_si256(_mm256_srlv_epi32(w0, sh),\n"
  "                         _mm256_sllv_epi32(w1, "
  "_mm256_sub_epi32(_mm256_set1_epi32(32), sh)));\n"
  "}\n"
  "#endif\n"
  "static void fgk_rowgatherw(uint *restrict d0, const int *restrict i0,\n"
  "                           uint *restrict d1, const int *restrict i1,\n"
  "                           const uchar *restrict buf, long size, long "
  "row,\n"
  "                           const int *restrict wb, long n) {\n"
  "  long i = 0;\n"
  "#if FGK_RG > 1\n"
  "  for (; i + FGK_RG <= n; i += FGK_RG) {\n"
  "    const int b = wb[i / FGK_RG];\n"
  "    if (b < 0) {\n"
  "#pragma clang loop vectorize(disable)\n"
  "      for (long j = i; j < i + FGK_RG; j++) {\n"
  "        d0[j] = fgk_rg_word(buf, size, row + i0[j]);\n"
  "        if (d1)\n"
  "          d1[j] = fgk_rg_word(buf, size, row + i1[j]);\n"
  "      }\n"
  "      continue;\n"
  "    }\n"
  "    const uchar *r = buf + row + b;\n"
  "#if FGK_RG == 16\n"
  "    __m512i lo = _mm512_loadu_si512(r), hi = _mm512_loadu_si512(r + "
  "64);\n"
  "    _mm512_storeu_si512(d0 + i, fgk_rg_wperm(lo, hi, i0 + i, b));\n"
  "    if (d1)\n"
  "      _mm512_storeu_si512(d1 + i, fgk_rg_wperm(lo, hi, i1 + i, b));\n"
  "#else\n"
  "    __m256i lo = _mm256_loadu_si256((const __m256i *)r);\n"
  "    __m256i hi = _mm256_loadu_si256((const __m256i *)(r + 32));\n"
  "    _mm256_storeu_si256((__m256i *)(d0 + i), fgk_rg_wperm(lo, hi, i0 + i,"
  " b));\n"
  "    if (d1)\n"
  "      _mm256_storeu_si256((__m256i *)(d1 + i), fgk_rg_wperm(lo, hi, i1 + "
  "i, b));\n"
  "#endif\n"
  "  }\n"
  "#endif\n"
  "#pragma clang loop vectorize(disable)\n"
  "  for (; i < n; i++) {\n"
  "    d0[i] = fgk_rg_word(buf, size, row + i0[i]);\n"
  "    if (d1)\n"
  "      d1[i] = fgk_rg_word(buf, size, row + i1[i]);\n"
  "  }\n"
  "}\n";

void fge_rowtap_emit(fgk_emitter *e) {
  if (!e->n_rowtap)
    return;
  if (fgk_first_use(e, "fgk_rowgather4"))
    fgu_buf_puts(&e->help, gather_helper);
  fgu_buf *d = &e->rowtap_decl;
  for (int t = 0; t < e->n_rowtap_tables; t++)
    for (int i = 0; i < e->n_rowtap; i++)
      if (e->rowtap[i].table == t) {
        fgu_buf_printf(d, "  %s fgk_rt%d[fgk_CB];\n",
                       e->rowtap[i].bytes
                           ? "uint"
                           : e->d->type_name(fgk_t(
                                 e->k->in_type[e->rowtap[i].port].elem, 1)),
                       t);
        break;
      }
  for (int c = 0; c < e->n_rowtap_cols; c++)
    fgu_buf_printf(d, "  int fgk_rx%d[fgk_CB];\n", c);
  for (int p = 0; p < e->k->n_in; p++)
    for (int i = 0; i < e->n_rowtap; i++)
      if (e->rowtap[i].port == p) {
        fgu_buf_printf(d, "  int fgk_rw%d[fgk_CB / FGK_RG + 1];\n", p);
        break;
      }
  e->n_coltab_tables += e->n_rowtap_tables + e->n_rowtap_cols;
  e->coltab_bytes += 4 * (e->n_rowtap_tables + e->n_rowtap_cols);
}

/* The first tap of column set c. */
static const fge_rowtap *cols_tap(const fgk_emitter *e, int c) {
  for (int i = 0; i < e->n_rowtap; i++)
    if (e->rowtap[i].cols == c)
      return &e->rowtap[i];
  return NULL;
}

/* The first tap of table t. */
static const fge_rowtap *table_tap(const fgk_emitter *e, int t) {
  for (int i = 0; i < e->n_rowtap; i++)
    if (e->rowtap[i].table == t)
      return &e->rowtap[i];
  return NULL;
}

void fge_rowtap_emit_columns(fgk_emitter *e) {
  /* each column set's clamped column, at the end of the column pass
   * (the column variables are assigned once, above) */
  for (int c = 0; c < e->n_rowtap_cols; c++) {
    const fge_rowtap *t = cols_tap(e, c);
    fge_line(e);
    fgk_putf(e, "fgk_rx%d[fgk_c - fgk_cb] = (int)fgk_ci((long)(", c);
    fge_var_name(e, t->col);
    fgk_putf(e, ") + %ldL, in%d_C) * %d;\n", t->dc, t->port,
             t->bytes ? t->bytes : 1);
  }
}

void fge_rowtap_windows(const fgk_emitter *e, fgu_buf *o) {
  /* one window per group for every column set of an input: the taps of
   * one row share its loads */
  for (int p = 0; p < e->k->n_in; p++) {
    bool any = false;
    for (int c = 0; c < e->n_rowtap_cols; c++)
      any = any || cols_tap(e, c)->port == p;
    if (!any)
      continue;
    fgu_buf_printf(o,
        "    for (long fgk_g = 0; fgk_g * FGK_RG < fgk_ce - fgk_cb; "
        "++fgk_g) {\n"
        "      const long fgk_g0 = fgk_g * FGK_RG;\n"
        "      int fgk_lo = INT_MAX, fgk_hi = INT_MIN;\n"
        "      for (long fgk_j = fgk_g0; fgk_j < fgk_g0 + FGK_RG && fgk_j < "
        "fgk_ce - fgk_cb; ++fgk_j) {\n");
    for (int c = 0; c < e->n_rowtap_cols; c++)
      if (cols_tap(e, c)->port == p)
        fgu_buf_printf(o,
            "        fgk_lo = fgk_rx%d[fgk_j] < fgk_lo ? fgk_rx%d[fgk_j] : "
            "fgk_lo;\n"
            "        fgk_hi = fgk_rx%d[fgk_j] > fgk_hi ? fgk_rx%d[fgk_j] : "
            "fgk_hi;\n", c, c, c, c);
    int bytes = 0;
    for (int c = 0; c < e->n_rowtap_cols; c++)
      if (cols_tap(e, c)->port == p)
        bytes = cols_tap(e, c)->bytes;
    /* elements: 2 FGK_RG of them; words: at byte offsets, the dwords
     * holding each word's bytes, 2 FGK_RG dwords */
    if (bytes)
      fgu_buf_printf(o,
          "      }\n"
          "      fgk_rw%d[fgk_g] = FGK_RG > 1 && fgk_g0 + FGK_RG <= fgk_ce - "
          "fgk_cb && fgk_hi - fgk_lo + 8 <= 8 * FGK_RG && fgk_lo + 8L * "
          "FGK_RG <= in%d_C * %d ? fgk_lo : -1;\n"
          "    }\n", p, p, bytes);
    else
      fgu_buf_printf(o,
          "      }\n"
          "      fgk_rw%d[fgk_g] = FGK_RG > 1 && fgk_g0 + FGK_RG <= fgk_ce - "
          "fgk_cb && fgk_hi - fgk_lo < 2 * FGK_RG && fgk_lo + 2L * FGK_RG <= "
          "in%d_C ? fgk_lo : -1;\n"
          "    }\n", p, p);
  }
}

/* Whether taps t and u read the same row of the same input. */
static bool same_row(const fge_rowtap *t, const fge_rowtap *u) {
  return t->port == u->port && t->layer == u->layer && t->dl == u->dl &&
         t->row == u->row && t->dr == u->dr;
}

void fge_rowtap_fill(fgk_emitter *e) {
  /* the tables of one row two by two, sharing their windows' loads */
  bool done[FGE_ROWTAPS_MAX] = {false};
  for (int tb = 0; tb < e->n_rowtap_tables; tb++) {
    if (done[tb])
      continue;
    const fge_rowtap *t = table_tap(e, tb), *u = NULL;
    for (int ub = tb + 1; ub < e->n_rowtap_tables && !u; ub++)
      if (!done[ub] && same_row(t, table_tap(e, ub)))
        u = table_tap(e, ub);
    done[tb] = true;
    if (u)
      done[u->table] = true;
    int p = t->port;
    fge_line(e);
    fgk_putf(e, "fgk_rowgather%s(fgk_rt%d, fgk_rx%d, ", t->bytes ? "w" : "4",
             tb, t->cols);
    if (u)
      fgk_putf(e, "fgk_rt%d, fgk_rx%d, ", u->table, u->cols);
    else
      fgk_put(e, "NULL, NULL, ");
    /* words: the buffer, its bytes and the row's first byte (the word of
     * the last pixel ends at the buffer's end, as fgk_tap4's) */
    if (t->bytes)
      fgk_putf(e, "(const uchar *)in%d, in%d_P * %d, (", p, p, t->bytes);
    else
      fgk_putf(e, "in%d + (", p);
    fgk_put(e, "fgk_ci(");
    if (t->layer) {
      fgk_put(e, "(long)(");
      fge_var_name(e, t->layer);
      fgk_put(e, ") + ");
    }
    fgk_putf(e, "%ldL, in%d_L) * in%d_R + fgk_ci((long)(", t->dl, p, p);
    fge_var_name(e, t->row);
    fgk_putf(e, ") + %ldL, in%d_R)) * in%d_C", t->dr, p, p);
    if (t->bytes)
      fgk_putf(e, " * %d", t->bytes);
    fgk_putf(e, ", fgk_rw%d, fgk_ce - fgk_cb);\n", p);
  }
}

void fge_rowtap_free(fgk_emitter *e) {
  free(e->rowtap_stmt);
  e->rowtap_stmt = NULL;
  e->n_rowtap = e->n_rowtap_tables = e->n_rowtap_cols = 0;
  fgu_buf_free(&e->rowtap_decl);
  fgu_buf_free(&e->rowtap_pre);
}
