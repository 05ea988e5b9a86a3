/* rs/decl.c - declaration specifiers, declarators and the types they
 * define, for the declaration scanner (scan.c): the RenderScript scalar,
 * vector and object types, structs and unions with their C layout
 * (packed and aligned attributes), enums and their constants, arrays
 * (also sized by their initializers), pointers and pointers to arrays.
 * Shares the scanner's state and error exit (scan_impl.h). */
#include "scan_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is(fgr_scan *s, int i, const char *str) {
  return fgr_tok_is(s->u, i, str);
}

/* ---- types -------------------------------------------------------------- */

static const char *const elem_rs[FG_ELEM_COUNT_] = {
  [FG_I8] = "char", [FG_U8] = "uchar", [FG_I16] = "short",
  [FG_U16] = "ushort", [FG_I32] = "int", [FG_U32] = "uint",
  [FG_I64] = "long", [FG_U64] = "ulong", [FG_F32] = "float",
  [FG_F64] = "double"};

fgr_type *fgr_scan_num_type(fgr_scan *s, fg_elem e, int w) {
  if (!s->builtin[e][w]) {
    fgr_type *t = fgr_scan_zalloc(s, sizeof *t);
    t->kind = FGR_NUM;
    t->elem = e;
    t->width = w;
    int64_t es = (int64_t)fg_elem_size(e);
    t->size = t->align = es * (w == 3 ? 4 : w);
    t->name = w == 1 ? elem_rs[e]
                     : fgu_arena_printf(&s->u->arena, "%s%d", elem_rs[e], w);
    s->builtin[e][w] = t;
  }
  return s->builtin[e][w];
}

bool fgr_type_fgk(const fgr_type *t, fgk_type *out) {
  if (!t || t->kind != FGR_NUM)
    return false;
  *out = fgk_t(t->elem, t->width);
  return true;
}

const char *fgr_type_str(const fgr_type *t) { return t ? t->name : "?"; }


/* A built-in type named by identifier token i, or NULL. */
const fgr_type *fgr_scan_builtin(fgr_scan *s, int i) {
  int len;
  const char *p = fgr_tok_text(s->u, i, &len);
  char w[48];
  if (len >= (int)sizeof w)
    return NULL;
  memcpy(w, p, (size_t)len);
  w[len] = 0;
  static const struct { const char *n; fg_elem e; } alias[] = {
    {"int8_t", FG_I8}, {"uint8_t", FG_U8}, {"int16_t", FG_I16},
    {"uint16_t", FG_U16}, {"int32_t", FG_I32}, {"uint32_t", FG_U32},
    {"int64_t", FG_I64}, {"uint64_t", FG_U64}, {"size_t", FG_U64},
    {"ssize_t", FG_I64}, {"rs_time_t", FG_I64}};
  for (size_t k = 0; k < sizeof alias / sizeof *alias; k++)
    if (!strcmp(w, alias[k].n))
      return fgr_scan_num_type(s, alias[k].e, 1);
  for (int e = FG_I8; e <= FG_F64; e++) {
    size_t n = strlen(elem_rs[e]);
    if (strncmp(w, elem_rs[e], n))
      continue;
    if (w[n] == 0 && e != FG_I8 && e != FG_I16 && e != FG_I32 &&
        e != FG_I64 && e != FG_F32 && e != FG_F64)
      return fgr_scan_num_type(s, (fg_elem)e,
                               1); /* uchar, ushort, uint, ulong */
    if (w[n] >= '2' && w[n] <= '4' && w[n + 1] == 0)
      return fgr_scan_num_type(s, (fg_elem)e, w[n] - '0');
  }
  if (!strcmp(w, "rs_allocation"))
    return s->t_alloc;
  if (!strcmp(w, "rs_quaternion"))
    return fgr_scan_num_type(s, FG_F32, 4);
  if (!strcmp(w, "rs_kernel_context"))
    return s->t_context;
  if (!strcmp(w, "rs_matrix2x2") || !strcmp(w, "rs_matrix3x3") ||
      !strcmp(w, "rs_matrix4x4")) {
    /* struct { float m[N * N]; }, column-major (rs/matrix.c) */
    int n = w[9] - '0';
    fgr_type *a = fgr_scan_zalloc(s, sizeof *a);
    fgr_type *t = fgr_scan_zalloc(s, sizeof *t);
    fgr_member *m = fgr_scan_zalloc(s, sizeof *m);
    *a = (fgr_type){.kind = FGR_ARRAY, .of = fgr_scan_num_type(s, FG_F32, 1),
                    .count = n * n, .size = 4 * n * n, .align = 4,
                    .name = "float[]"};
    *m = (fgr_member){.name = "m", .type = a, .offset = 0};
    *t = (fgr_type){.kind = FGR_STRUCT, .n_members = 1, .members = m,
                    .size = 4 * n * n, .align = 4,
                    .name = fgr_scan_tok_str(s, i)};
    return t;
  }
  if (!strcmp(w, "rs_sampler")) {
    /* struct { int mag, min, wrap_s, wrap_t; } (rs/sample.c) */
    static const char *const names[4] = {"mag", "min", "wrap_s", "wrap_t"};
    fgr_type *t = fgr_scan_zalloc(s, sizeof *t);
    fgr_member *m = fgr_scan_zalloc(s, 4 * sizeof *m);
    for (int k = 0; k < 4; k++)
      m[k] = (fgr_member){.name = names[k],
                          .type = fgr_scan_num_type(s, FG_I32, 1),
                          .offset = 4 * k};
    *t = (fgr_type){.kind = FGR_STRUCT, .n_members = 4, .members = m,
                    .size = 16, .align = 4, .name = "rs_sampler"};
    return t;
  }
  if (!strncmp(w, "rs_", 3)) {
    fgr_type *t = fgr_scan_zalloc(s, sizeof *t);
    t->kind = FGR_OPAQUE;
    t->name = fgr_scan_tok_str(s, i);
    return t;
  }
  return NULL;
}

const fgr_named *fgr_scan_find_named(const fgr_unit *u, const char *name,
                                     bool tag) {
  for (int k = u->n_named - 1; k >= 0; k--)
    if (u->named[k].tag == tag && !strcmp(u->named[k].name, name))
      return &u->named[k];
  return NULL;
}

/* ---- declarations ------------------------------------------------------- */



static const fgr_type *struct_body(fgr_scan *s, const char *tag,
                                   fgr_attrs before, bool is_union);

static bool attr_is(fgr_scan *s, int i, const char *name) {
  char u[64];
  snprintf(u, sizeof u, "__%s__", name);
  return is(s, i, name) || is(s, i, u);
}

/* Reads __attribute__((...)) at the cursor into *a: kernel, overloadable,
 * packed and aligned / aligned(n) (n a constant expression; without one
 * the target's largest alignment, 16); the others (unused, always_inline,
 * ...) change nothing fieldgraph lays out. */
static bool attribute(fgr_scan *s, fgr_attrs *a) {
  if (!is(s, s->i, "__attribute__") && !is(s, s->i, "__attribute"))
    return false;
  int open = s->i + 1;
  if (!is(s, open, "(") || s->u->match[open] < 0)
    fgr_scan_fail(s, open, "expected '((' after __attribute__");
  int close = s->u->match[open];
  for (int k = open + 1; k < close; k++) {
    if (is(s, k, "kernel")) {
      a->kernel = true;
    } else if (attr_is(s, k, "overloadable")) {
      a->overloadable = true;
    } else if (attr_is(s, k, "packed")) {
      a->packed = true;
    } else if (attr_is(s, k, "aligned")) {
      int64_t n = 16;
      if (is(s, k + 1, "(") && s->u->match[k + 1] > k + 2) {
        n = fgr_cval_to_int(fgr_const_eval(s, k + 2, s->u->match[k + 1],
                                           "an alignment")).i;
        if (n <= 0 || (n & (n - 1)))
          fgr_scan_fail(s, k + 2, "alignment %lld is not a power of two",
                        (long long)n);
        k = s->u->match[k + 1];
      }
      if (n > a->aligned)
        a->aligned = n;
    }
  }
  s->i = close + 1;
  return true;
}

void fgr_scan_attributes(fgr_scan *s, fgr_attrs *a) {
  while (attribute(s, a))
    ;
}

/* The integer constant expression in tokens [a, b) into *v; false when
 * fieldgraph cannot evaluate it (sizeof, say), without failing the scan:
 * the compiler of the generated code evaluates what the script means. */
static bool try_const_int(fgr_scan *s, int a, int b, int64_t *v) {
  jmp_buf saved;
  memcpy(saved, s->fail, sizeof saved);
  struct cexpr *outer = s->evals;   /* a failure here abandons only ours */
  s->evals = NULL;
  volatile bool ok = false;
  int i = s->i;
  if (!setjmp(s->fail)) {
    *v = fgr_cval_to_int(fgr_const_eval(s, a, b, "an enumeration value")).i;
    ok = true;
  }
  s->i = i;
  s->evals = outer;
  memcpy(s->fail, saved, sizeof saved);
  return ok;
}

/* An enum's body at the cursor ('{'): its constants, each the one before
 * plus one unless given a constant expression, go to u->enums; the type
 * is the integer clang gives it (unsigned int unless a constant is
 * negative; 64 bits when int cannot hold them). */
static const fgr_type *enum_body(fgr_scan *s) {
  int open = s->i, close = s->u->match[open];
  if (close < 0)
    fgr_scan_fail(s, open, "unbalanced '{'");
  int64_t next = 0, lo = 0, hi = 0;
  bool any = false, known = true;
  int n_consts = 0;
  s->i = open + 1;
  while (s->i < close) {
    if (fgr_scan_tok(s, s->i)->kind != FGR_T_IDENT)
      fgr_scan_fail(s, s->i, "expected an enumeration constant, got %s",
                    fgr_scan_quote(s, s->i));
    int name = s->i++;
    fgr_attrs ignored = {0};
    fgr_scan_attributes(s, &ignored);
    if (is(s, s->i, "=")) {
      int a = ++s->i, depth = 0;
      while (s->i < close && (depth || !is(s, s->i, ","))) {
        if (is(s, s->i, "(") || is(s, s->i, "["))
          depth++;
        else if (is(s, s->i, ")") || is(s, s->i, "]"))
          depth--;
        s->i++;
      }
      known = try_const_int(s, a, s->i, &next);
    }
    const char *n = fgr_scan_tok_str(s, name);
    for (int k = 0; k < s->u->n_enums; k++)
      if (!strcmp(s->u->enums[k].name, n))
        fgr_scan_fail(s, name, "redefinition of enumerator '%s'", n);
    fgr_enumerator *e = FGR_SCAN_PUSH(s, s->u->enums, n_enums, cap_enums);
    *e = (fgr_enumerator){n, next, name, known};
    if (known) {
      lo = !any || next < lo ? next : lo;
      hi = !any || next > hi ? next : hi;
      any = true;
    }
    n_consts++;
    next++;
    if (is(s, s->i, ","))
      s->i++;
    else if (s->i != close)
      fgr_scan_fail(s, s->i, "expected ',' or '}', got %s",
                    fgr_scan_quote(s, s->i));
  }
  if (!n_consts)
    fgr_scan_fail(s, open, "empty enum");
  s->i = close + 1;
  bool wide = lo < INT32_MIN || hi > (lo < 0 ? INT32_MAX : (int64_t)UINT32_MAX);
  return fgr_scan_num_type(s, lo < 0 ? (wide ? FG_I64 : FG_I32)
                                     : (wide ? FG_U64 : FG_U32), 1);
}

bool fgr_scan_enum_value(fgr_scan *s, int i, int64_t *value) {
  int len;
  const char *p = fgr_tok_text(s->u, i, &len);
  for (int k = s->u->n_enums - 1; k >= 0; k--) {
    const fgr_enumerator *e = &s->u->enums[k];
    if (e->tok < i && (int)strlen(e->name) == len &&
        !memcmp(e->name, p, (size_t)len)) {
      *value = e->value;
      return e->known;
    }
  }
  return false;
}

fgr_spec fgr_scan_specifiers(fgr_scan *s, bool allow_storage) {
  fgr_spec sp = {.tok0 = s->i};
  int n_unsigned = 0, n_signed = 0, n_short = 0, n_long = 0, n_int = 0,
      n_char = 0, n_float = 0, n_double = 0, n_void = 0, n_bool = 0;
  for (;;) {
    int i = s->i;
    fgr_attrs at = {0};
    if (attribute(s, &at)) {
      sp.is_kernel |= at.kernel;
      sp.is_overloadable |= at.overloadable;
      continue;
    }
    if (fgr_scan_tok(s, i)->kind != FGR_T_IDENT)
      break;
    if (is(s, i, "RS_KERNEL")) {
      sp.is_kernel = true;
    } else if (is(s, i, "static")) {
      if (!allow_storage)
        fgr_scan_fail(s, i, "'static' is not allowed here");
      sp.is_static = true;
    } else if (is(s, i, "extern")) {
      sp.is_extern = true;
    } else if (is(s, i, "typedef")) {
      sp.is_typedef = true;
    } else if (is(s, i, "const")) {
      sp.is_const = true;
    } else if (is(s, i, "volatile") || is(s, i, "inline") ||
               is(s, i, "__inline") || is(s, i, "restrict")) {
    } else if (is(s, i, "unsigned")) {
      n_unsigned++;
    } else if (is(s, i, "signed")) {
      n_signed++;
    } else if (is(s, i, "short")) {
      n_short++;
    } else if (is(s, i, "long")) {
      n_long++;
    } else if (is(s, i, "int")) {
      n_int++;
    } else if (is(s, i, "char")) {
      n_char++;
    } else if (is(s, i, "float")) {
      n_float++;
    } else if (is(s, i, "double")) {
      n_double++;
    } else if (is(s, i, "void")) {
      n_void++;
    } else if (is(s, i, "bool") || is(s, i, "_Bool")) {
      n_bool++;
    } else if (!sp.type &&
               (is(s, i, "half") || is(s, i, "half2") || is(s, i, "half3") ||
                is(s, i, "half4"))) {
      /* a type fieldgraph does not hold, like an object handle: what
       * uses it is refused at its line, the rest of the script runs */
      fgr_type *t = fgr_scan_zalloc(s, sizeof *t);
      t->kind = FGR_OPAQUE;
      t->name = fgr_scan_tok_str(s, i);
      sp.type = t;
    } else if (is(s, i, "enum")) {
      /* an integer type; its tag names it as a typedef would */
      if (sp.type)
        fgr_scan_fail(s, i, "two types in one declaration");
      s->i++;
      fgr_attrs ignored = {0};
      fgr_scan_attributes(s, &ignored);
      int tag = -1;
      if (fgr_scan_tok(s, s->i)->kind == FGR_T_IDENT && !is(s, s->i, "{"))
        tag = s->i++;
      fgr_scan_attributes(s, &ignored);
      if (is(s, s->i, "{")) {
        sp.type = enum_body(s);
        sp.defines = true;
        fgr_scan_attributes(s, &ignored);
        if (tag >= 0) {
          fgr_named *n = FGR_SCAN_PUSH(s, s->u->named, n_named, cap_named);
          *n = (fgr_named){fgr_scan_tok_str(s, tag), sp.type, true};
        }
      } else {
        const fgr_named *n =
            tag >= 0 ? fgr_scan_find_named(s->u, fgr_scan_tok_str(s, tag),
                                           true)
                     : NULL;
        if (!n)
          fgr_scan_fail(s, tag >= 0 ? tag : s->i, "enum %s is not defined",
                        tag >= 0 ? fgr_scan_tok_str(s, tag) : "");
        sp.type = n->type;
      }
      continue;
    } else if (is(s, i, "struct") || is(s, i, "union")) {
      bool un = is(s, i, "union");
      if (sp.type)
        fgr_scan_fail(s, i, "two types in one declaration");
      s->i++;
      fgr_attrs before = {0};
      fgr_scan_attributes(s, &before);
      const char *tag = NULL;
      if (fgr_scan_tok(s, s->i)->kind == FGR_T_IDENT) {
        tag = fgr_scan_tok_str(s, s->i);
        s->i++;
      }
      fgr_scan_attributes(s, &before);
      if (is(s, s->i, "{")) {
        sp.type = struct_body(s, tag, before, un);
        sp.defines = true;
      } else {
        const fgr_named *n = tag ? fgr_scan_find_named(s->u, tag, true) : NULL;
        if (!n)
          fgr_scan_fail(s, s->i - 1,
                        "%s %s is not defined (fieldgraph needs "
                        "its members to lay it out)", un ? "union" : "struct",
                        tag ? tag : "");
        sp.type = n->type;
      }
      continue;
    } else {
      const fgr_type *t = NULL;
      if (!sp.type && !n_unsigned + !n_signed + !n_short + !n_long + !n_int +
                          !n_char + !n_float + !n_double + !n_void + !n_bool
                          == 10) {
        t = fgr_scan_builtin(s, i);
        if (!t) {
          const fgr_named *n =
              fgr_scan_find_named(s->u, fgr_scan_tok_str(s, i), false);
          t = n ? n->type : NULL;
        }
      }
      if (!t)
        break;
      sp.type = t;
    }
    s->i++;
  }
  int kw = n_unsigned + n_signed + n_short + n_long + n_int + n_char +
           n_float + n_double + n_void + n_bool;
  if (kw) {
    if (sp.type)
      fgr_scan_fail(s, sp.tok0, "two types in one declaration");
    fg_elem e = FG_I32;
    bool u = n_unsigned > 0;
    if (n_void)
      sp.type = s->t_void;
    else if (n_bool)
      sp.type = s->t_bool;
    else if (n_float)
      sp.type = fgr_scan_num_type(s, FG_F32, 1);
    else if (n_double)
      sp.type = fgr_scan_num_type(s, FG_F64, 1);
    else {
      e = n_char ? (u ? FG_U8 : FG_I8) : n_short ? (u ? FG_U16 : FG_I16)
          : n_long ? (u ? FG_U64 : FG_I64) : (u ? FG_U32 : FG_I32);
      sp.type = fgr_scan_num_type(s, e, 1);
    }
  }
  if (!sp.type)
    fgr_scan_fail(s, s->i, "expected a type, got %s", fgr_scan_quote(s, s->i));
  sp.tok1 = s->i;
  return sp;
}


static const fgr_type *array_of(fgr_scan *s, const fgr_type *of, int64_t n,
                                int tok) {
  if (n <= 0)
    fgr_scan_fail(s, tok, "array size %lld is not positive", (long long)n);
  if (of->size <= 0)
    fgr_scan_fail(s, tok, "array of %s, which has no size", of->name);
  int nest = 1;
  for (const fgr_type *o = of; o->kind == FGR_ARRAY; o = o->of)
    nest++;
  if (nest > FGR_MAX_NESTING)
    fgr_scan_fail(s, tok, "arrays of arrays nested deeper than %d levels",
                  FGR_MAX_NESTING);
  if (n > FGR_MAX_OBJECT_BYTES / of->size)
    fgr_scan_fail(s, tok, "array of %lld %s is larger than %lld bytes",
                  (long long)n, of->name, (long long)FGR_MAX_OBJECT_BYTES);
  fgr_type *t = fgr_scan_zalloc(s, sizeof *t);
  t->kind = FGR_ARRAY;
  t->of = of;
  t->count = n;
  t->size = of->size * n;
  t->align = of->align;
  t->name = fgu_arena_printf(&s->u->arena, "%s[%lld]", of->name,
                             (long long)n);
  return t;
}

/* The number of elements an initializer at token i ("= { ... }" or "=
 * \"...\"") gives an array whose elements hold inner scalars each (braces
 * elided: scalars / inner, rounded up), or 0 when there is none.  A
 * designator [k] = v restarts the count at k, as in C. */
static int64_t initializer_count(fgr_scan *s, int i, int64_t inner) {
  if (!is(s, i, "="))
    return 0;
  if (fgr_scan_tok(s, i + 1)->kind == FGR_T_STRING) {
    int64_t n = 1;              /* the terminating NUL */
    for (int k = i + 1; fgr_scan_tok(s, k)->kind == FGR_T_STRING; k++) {
      int len;
      const char *p = fgr_tok_text(s->u, k, &len);
      for (int c = 1; c < len - 1; c++, n++)
        if (p[c] == '\\') {       /* one escape: \n, \0, \x41, \101 */
          c++;
          if (p[c] == 'x')
            while (c + 1 < len - 1 && strchr("0123456789abcdefABCDEF",
                                             p[c + 1]))
              c++;
          else
            for (int d = 0; d < 2 && p[c] >= '0' && p[c] <= '7' &&
                            p[c + 1] >= '0' && p[c + 1] <= '7'; d++)
              c++;
        }
    }
    return n;
  }
  int open = i + 1, close = s->u->match[open];
  if (!is(s, open, "{") || close < 0)
    return 0;
  int64_t at = 0, most = 0;
  bool braced = false;
  for (int k = open + 1; k < close;) {
    if (is(s, k, "[") && s->u->match[k] > k) {
      int rb = s->u->match[k];
      at = fgr_cval_to_int(fgr_const_eval(s, k + 1, rb, "a designator")).i;
      at *= inner;
      k = rb + 1;
      while (k < close && !is(s, k, "="))
        k++;
      k++;
    }
    braced |= is(s, k, "{");
    int e = k;
    while (e < close && !is(s, e, ",")) {
      if ((is(s, e, "{") || is(s, e, "(") || is(s, e, "[")) &&
          s->u->match[e] > e)
        e = s->u->match[e];
      e++;
    }
    at += is(s, k, "{") ? inner : 1;
    if (at > most)
      most = at;
    k = e + 1;
  }
  (void)braced;
  return (most + inner - 1) / inner;
}

fgr_declarator fgr_scan_declarator(fgr_scan *s, const fgr_type *base,
                                   bool name_optional) {
  fgr_declarator d = {.type = base, .name_tok = s->i, .first = s->i,
                  .ptr_to_array = -1};
  while (is(s, s->i, "*")) {
    d.ptr++;
    s->i++;
    while (is(s, s->i, "const") || is(s, s->i, "restrict") ||
           is(s, s->i, "volatile")) {
      d.ptr_const |= is(s, s->i, "const");
      s->i++;
    }
  }
  fgr_scan_attributes(s, &d.at);
  /* (*name)[n]: a pointer to an array (an outconverter's result) */
  int inner_close = -1;
  if (is(s, s->i, "(") && is(s, s->i + 1, "*") && !d.ptr) {
    d.ptr_to_array = s->i;
    inner_close = s->u->match[s->i];
    s->i += 2;
    d.ptr = 1;
    while (is(s, s->i, "const") || is(s, s->i, "restrict") ||
           is(s, s->i, "volatile"))
      s->i++;
    if (is(s, s->i, "*"))
      fgr_scan_fail(s, s->i, "a pointer to a pointer to an array is not "
                    "supported");
  }
  if (fgr_scan_tok(s, s->i)->kind == FGR_T_IDENT) {
    d.name = fgr_scan_tok_str(s, s->i);
    d.name_tok = s->i;
    s->i++;
  } else if (!name_optional) {
    fgr_scan_fail(s, s->i, "expected a name, got %s", fgr_scan_quote(s, s->i));
  }
  if (d.ptr_to_array >= 0) {
    if (s->i != inner_close)
      fgr_scan_fail(s, s->i, "expected ')' closing the fgr_declarator of '%s'",
                    d.name ? d.name : "");
    s->i++;
    if (is(s, s->i, "(") && s->u->match[s->i] > s->i) {
      /* (*name)(params): a pointer to a function, which fieldgraph holds
       * nowhere (OpenCL C has none): an opaque pointer */
      fgr_type *o = fgr_scan_zalloc(s, sizeof *o);
      o->kind = FGR_OPAQUE;
      o->name = "function pointer";
      d.type = o;
      s->i = s->u->match[s->i] + 1;
      fgr_scan_attributes(s, &d.at);
      return d;
    }
    if (!is(s, s->i, "["))
      fgr_scan_fail(s, s->i, "expected '[' after the fgr_declarator of '%s'",
                    d.name ? d.name : "");
  }
  if (is(s, s->i, "(")) {
    d.is_func = true;
    d.lparen = s->i;
    return d;
  }
  /* array dimensions, innermost last; the first may be empty when an
   * initializer sizes it */
  int dims[8], nd = 0;
  while (is(s, s->i, "[")) {
    int close = s->u->match[s->i];
    if (close < 0)
      fgr_scan_fail(s, s->i, "unbalanced '['");
    if (nd == 8)
      fgr_scan_fail(s, s->i, "too many array dimensions");
    if (close == s->i + 1 && (nd > 0 || d.ptr_to_array >= 0))
      fgr_scan_fail(s, s->i, "arrays need a size here");
    dims[nd++] = s->i;
    s->i = close + 1;
  }
  fgr_scan_attributes(s, &d.at);
  for (int k2 = nd - 1; k2 >= 0; k2--) {
    int open = dims[k2];
    int64_t n;
    if (s->u->match[open] == open + 1) {
      int64_t inner = 1;
      for (const fgr_type *t = d.type; t->kind == FGR_ARRAY; t = t->of)
        inner *= t->count;
      n = initializer_count(s, s->i, inner);
      if (n <= 0)
        fgr_scan_fail(s, open, "arrays need a size here (or an "
                      "initializer that gives one)");
    } else {
      n = fgr_cval_to_int(fgr_const_eval(s, open + 1, s->u->match[open],
                                         "an array size")).i;
    }
    d.type = array_of(s, d.type, n, open + 1);
  }
  return d;
}

static const fgr_type *struct_body(fgr_scan *s, const char *tag,
                                   fgr_attrs before, bool is_union) {
  const char *kw = is_union ? "union" : "struct";
  int open = s->i;
  int close = s->u->match[open];
  if (close < 0)
    fgr_scan_fail(s, open, "unbalanced '{'");
  /* attributes after the body count as those before it */
  s->i = close + 1;
  fgr_scan_attributes(s, &before);
  int after = s->i;
  fgr_type *t = fgr_scan_zalloc(s, sizeof *t);
  t->kind = FGR_STRUCT;
  t->is_union = is_union;
  t->name = tag ? fgu_arena_printf(&s->u->arena, "%s %s", kw, tag) : kw;
  int cap = 0;
  int64_t off = 0, align = 1, end = 0;
  bool alloc_member = false;
  s->i = open + 1;
  while (s->i < close) {
    fgr_spec sp = fgr_scan_specifiers(s, false);
    for (;;) {
      fgr_declarator d = fgr_scan_declarator(s, sp.type, false);
      if (d.is_func)
        fgr_scan_fail(s, d.lparen, "functions cannot be struct members");
      const fgr_type *mt = d.type;
      /* an rs_allocation or pointer member (or a struct holding one): the
       * struct is no value fieldgraph holds (no size), so a global or
       * kernel argument of it is refused where it is used; locals are
       * the compiler's */
      /* so does a member of another type without a size (an object
       * handle: rs_element, rs_type, rs_script...): the script loads, and
       * the kernels that take such a struct are refused at their line */
      bool sizeless = mt->size <= 0 && mt->kind != FGR_ALLOC && !d.ptr;
      alloc_member |= mt->kind == FGR_ALLOC || d.ptr > 0 || sizeless;
      t->has_ptr |= d.ptr > 0 || (sizeless && mt->has_ptr);
      if (t->n_members == cap) {
        int nc = cap ? cap * 2 : 8;
        fgr_member *m = fgr_scan_zalloc(s, (size_t)nc * sizeof *m);
        if (cap)
          memcpy(m, t->members, (size_t)cap * sizeof *m);
        t->members = m;
        cap = nc;
      }
      /* an allocation member is laid out as a pointer, never held; a
       * packed struct's members sit at any byte, unless aligned says
       * otherwise, as in C */
      int64_t ma = mt->align > 0 && !d.ptr ? mt->align : 8;
      if (before.packed || d.at.packed)
        ma = 1;
      if (d.at.aligned > ma)
        ma = d.at.aligned;
      off = is_union ? 0 : (off + ma - 1) / ma * ma;
      t->members[t->n_members++] = (fgr_member){d.name, mt, off};
      fgu_buf_printf(&s->members, "%s\n", d.name);
      off += mt->size > 0 && !d.ptr ? mt->size : 8;
      if (off > FGR_MAX_OBJECT_BYTES)
        fgr_scan_fail(s, d.name_tok, "struct is larger than %lld bytes",
                      (long long)FGR_MAX_OBJECT_BYTES);
      if (off > end)
        end = off;
      if (ma > align)
        align = ma;
      if (is(s, s->i, ",")) {
        s->i++;
        continue;
      }
      break;
    }
    fgr_scan_expect(s, ";");
  }
  if (!t->n_members)
    fgr_scan_fail(s, open, "empty %s", kw);
  if (before.aligned > align)
    align = before.aligned;
  t->align = align;
  t->size = alloc_member ? 0 : (end + align - 1) / align * align;
  s->i = after;
  if (tag) {
    fgr_named *n = FGR_SCAN_PUSH(s, s->u->named, n_named, cap_named);
    *n = (fgr_named){tag, t, true};
    t->name = fgu_arena_printf(&s->u->arena, "%s %s", kw, tag);
  }
  return t;
}
