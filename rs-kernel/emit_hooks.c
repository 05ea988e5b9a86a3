/* rs/emit_hooks.c - carrying a RenderScript script into a kernel of either
 * dialect, and the calls that the kernel IR makes into it: the hooks of
 * its foreign calls (fgr_foreign, ir/foreign.h), which write through the
 * emitter's text writer and never see the emitter itself.
 *
 * The script's text is re-emitted from its tokens, once per kernel that
 * calls it, with #line directives so that the kernel compiler reports
 * errors at the user's file and line.  On the way the tokens are
 * rewritten:
 *  - script-local names (functions, typedefs, struct tags, constants,
 *    macros) get the script's prefix ("rs_<name>_<hash>_"), so two scripts
 *    in one fused kernel never collide;
 *  - every script function takes one more parameter, a pointer to the
 *    script's environment (its globals block and its bound allocations),
 *    and every call passes it on; a reference to a global becomes a member
 *    access through it (OpenCL devices such as PoCL have no program-scope
 *    variables, so globals travel as a kernel argument; a kernel that
 *    writes globals gets its launch's copy of the block, an output that
 *    every thread shares);
 *  - a name OpenCL C reserves (kernel, global, read_only, image2d_t...)
 *    or generated code uses (fgk_) becomes fgk_rs_id_<name>, in both
 *    dialects;
 *  - a value given to a vector local, argument or return passes through
 *    fgk_rs_cv_<type> (RenderScript's implicit vector conversions), and
 *    T *p = rsGetElementAt(a, ...) becomes a const pointer into the
 *    bound field;
 *  - reads and writes through a pointer global (p[e], p[e] = v, +=, ++)
 *    become calls on the field bound to it (fgk_rs_ptr_T, fgk_rs_pst_T,
 *    fgk_rs_padd_T, fgk_rs_pmul_T; a struct's member p->m = v a write
 *    of the member's type at its offset, pointer_mwrite);
 *  - RS_KERNEL and __attribute__((kernel)) disappear, .r .g .b .a become
 *    .x .y .z .w, and a vector literal (float4){ v } of one value splats
 *    it (what the reference's greyscale kernel means; OpenCL C rejects it
 *    and C would fill the rest with zeros).
 * Declarations come out in two passes (types, macros and constants; then
 * the globals block and the environment; then prototypes and functions)
 * so that function bodies see every type.  The calls themselves go
 * through small wrappers that build the environment from the kernel's
 * buffers and put the special arguments in the prototype's order. */
#include "rs-kernel/kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rw {
  fgk_writer *tw;
  const fgr_unit *u;
  fgu_buf *o;
  int out_line;            /* the line the compiler gives the next text */
  int out_file;            /* and its file (an index in u->files) */
  bool bol;                /* at the beginning of an output line */
  bool cl;
  const char **pre;        /* per token: text emitted before it */
  const char **rep;        /* per token: replacement text */
  const fgr_func *fn;      /* the function being emitted, if any */
  int raw_tok;             /* a token emitted as it is (a member name) */
  bool *emit_fn;           /* per function: carried into the kernel */
  bool *local;             /* per token: names a local variable in scope */
  const char **pspace;     /* per parameter (pfirst[f] + p): what
                              param_space_at found, "-" none, NULL not
                              yet asked */
  int *pfirst;             /* per function: its first parameter's slot */
  const char **space;      /* per token: the address space a pointer
                              local's pointee has (OpenCL), or NULL */
  int *vtype;              /* per token: a local of a vector type, 1 + the
                              type's token (0: none) */
  const char *convs;       /* the converters used, "int4\n..." */
  const char **open, **close;  /* per token: text before it (close, then
                                  pre, then open), for rewritten
                                  divisions */
  fgu_arena scratch;       /* those texts */
} rw;

static bool is_cl(fgk_writer *tw) {
  return fgk_writer_dialect(tw) == FGK_DIALECT_CL;
}
static const char *gq(fgk_writer *tw) {
  return is_cl(tw) ? "__global " : "";
}
/* A writer of host code (fgr_emit_host): C, and no kernel. */
static bool is_host(fgk_writer *tw) {
  return !is_cl(tw) && !fgk_writer_kernel(tw);
}

static void put(rw *w, const char *s) {
  fgu_buf_puts(w->o, s);
  size_t n = strlen(s);
  if (n)
    w->bol = s[n - 1] == '\n';
}

static void line_directive(rw *w, int line, int file) {
  if (!w->bol)
    put(w, "\n");
  fgu_buf_printf(w->o, "#line %d \"", line);
  w->out_file = file;
  for (const char *p = w->u->files[file]; *p; p++) {
    if (*p == '"' || *p == '\\')
      fgu_buf_putc(w->o, '\\');
    fgu_buf_putc(w->o, *p);
  }
  put(w, "\"\n");
  w->out_line = line;
}

static int find_named_index(const fgr_unit *u, const char *p, int len) {
  for (int k = u->n_named - 1; k >= 0; k--)
    if ((int)strlen(u->named[k].name) == len &&
        !memcmp(u->named[k].name, p, (size_t)len))
      return k;
  return -1;
}

static int find_enum_index(const fgr_unit *u, const char *p, int len) {
  for (int k = u->n_enums - 1; k >= 0; k--)
    if ((int)strlen(u->enums[k].name) == len &&
        !memcmp(u->enums[k].name, p, (size_t)len))
      return k;
  return -1;
}

static int find_macro_index(const fgr_unit *u, const char *p, int len) {
  for (int k = u->n_macros - 1; k >= 0; k--)
    if ((int)strlen(u->macros[k].name) == len &&
        !memcmp(u->macros[k].name, p, (size_t)len))
      return k;
  return -1;
}

static int find_func_index(const fgr_unit *u, const char *p, int len) {
  int found = -1;
  for (int k = 0; k < u->n_funcs; k++)
    if ((int)strlen(u->funcs[k].name) == len &&
        !memcmp(u->funcs[k].name, p, (size_t)len)) {
      if (u->funcs[k].has_body)
        return k;
      found = k;
    }
  return found;
}

static int find_global_index(const fgr_unit *u, const char *p, int len) {
  for (int k = 0; k < u->n_globals; k++)
    if ((int)strlen(u->globals[k].name) == len &&
        !memcmp(u->globals[k].name, p, (size_t)len))
      return k;
  return -1;
}

/* ---- reserved names ----------------------------------------------------- */

/* Words that OpenCL C keeps for itself but C99, and so RenderScript, lets a
 * script use as a name (address spaces, access qualifiers, its opaque and
 * reserved types); a prefix entry ends in '*'. */
static const char *const cl_reserved[] = {
  "kernel", "__kernel", "global", "__global", "local", "__local",
  "constant", "__constant", "private", "__private", "generic", "__generic",
  "read_only", "__read_only", "write_only", "__write_only", "read_write",
  "__read_write", "uniform", "pipe", "complex", "imaginary", "quad",
  "image1d_t", "image1d_array_t", "image1d_buffer_t", "image2d_t",
  "image2d_array_t", "image2d_depth_t", "image2d_array_depth_t",
  "image2d_msaa_t", "image2d_array_msaa_t", "image2d_msaa_depth_t",
  "image2d_array_msaa_depth_t", "image3d_t", "sampler_t", "event_t",
  "queue_t", "ndrange_t", "clk_event_t", "reserve_id_t",
  "cl_mem_fence_flags", "memory_scope", "memory_order", "atomic_int",
  "atomic_uint", "atomic_long", "atomic_ulong", "atomic_float",
  "atomic_double", "atomic_flag", "atomic_intptr_t", "atomic_uintptr_t",
  "atomic_size_t", "atomic_ptrdiff_t", "fgk_*", "FGK_*",
  NULL};

/* Whether a script's identifier p (len bytes) must be renamed in
 * generated code: an OpenCL C keyword or reserved type (also the vector
 * types of 8 and 16 elements, which RenderScript lacks), or a name of the
 * generated code's own (fgk_, FGK_).  The same names are renamed in both
 * dialects, so a script's text reads the same everywhere. */
static bool reserved_name(const char *p, int len) {
  for (int k = 0; cl_reserved[k]; k++) {
    size_t n = strlen(cl_reserved[k]);
    if (cl_reserved[k][n - 1] == '*') {
      if ((size_t)len >= n - 1 && !memcmp(p, cl_reserved[k], n - 1))
        return true;
    } else if ((size_t)len == n && !memcmp(p, cl_reserved[k], n)) {
      return true;
    }
  }
  static const char *const vec[] = {"char", "uchar", "short", "ushort",
                                    "int", "uint", "long", "ulong", "float",
                                    "double", "half", "bool", NULL};
  for (int k = 0; vec[k]; k++) {
    int n = (int)strlen(vec[k]);
    if (len > n && !memcmp(p, vec[k], (size_t)n) &&
        ((len == n + 1 && p[n] == '8') ||
         (len == n + 2 && p[n] == '1' && p[n + 1] == '6')))
      return true;
  }
  return false;
}

/* Writes script identifier p (len bytes) as generated code spells it:
 * itself, or "fgk_rs_id_<name>" when reserved_name (no script name is
 * spelled so otherwise: those starting with fgk_ are renamed too). */
static void put_ident(fgu_buf *o, const char *p, int len) {
  fgu_buf_printf(o, "%s%.*s", reserved_name(p, len) ? "fgk_rs_id_" : "",
                 len, p);
}

/* The spelling of a global's name in the environment: put_ident's. */
static const char *env_name(const fgr_unit *u, const char *name) {
  int len = (int)strlen(name);
  return reserved_name(name, len)
             ? fgu_arena_printf(&((fgr_unit *)u)->arena, "fgk_rs_id_%s", name)
             : name;
}

static bool is_member_name(const fgr_unit *u, const char *p, int len) {
  const char *s = u->member_names;
  while (s && *s) {
    const char *nl = strchr(s, '\n');
    int n = nl ? (int)(nl - s) : (int)strlen(s);
    if (n == len && !memcmp(s, p, (size_t)len))
      return true;
    s = nl ? nl + 1 : s + n;
  }
  return false;
}

static bool shadowed(const rw *w, const char *p, int len) {
  if (!w->fn)
    return false;
  for (int k = 0; k < w->fn->n_params; k++) {
    const char *n = w->fn->params[k].name;
    if (n && (int)strlen(n) == len && !memcmp(n, p, (size_t)len))
      return true;
  }
  return false;
}

/* The global that token i names (an identifier that is no member after
 * "." or "->" and no local shadowing it), or -1. */
static int global_at(const rw *w, int i) {
  const fgr_unit *u = w->u;
  if (u->toks[i].kind != FGR_T_IDENT || fgr_tok_is(u, i - 1, ".") ||
      fgr_tok_is(u, i - 1, "->"))
    return -1;
  int len;
  const char *p = fgr_tok_text(u, i, &len);
  int g = find_global_index(u, p, len);
  return g >= 0 && !shadowed(w, p, len) ? g : -1;
}

/* ---- scopes ------------------------------------------------------------- */

static bool vector_type_tok(const fgr_unit *u, int i);

/* Whether token i is a word of a declaration's type: a scalar, vector or
 * RenderScript type, a typedef name of the script, or a qualifier. */
static bool type_word(const fgr_unit *u, int i) {
  static const char *const words[] = {
    "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
    "float", "double", "half", "bool", "void", "unsigned", "signed",
    "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
    "uint16_t", "uint32_t", "uint64_t", "rs_allocation", "rs_kernel_context",
    "rs_script_call_t", "rs_time_t", "rs_tm", "rs_quaternion", "const",
    "volatile", "static",
    "register", NULL};
  if (u->toks[i].kind != FGR_T_IDENT)
    return false;
  for (int k = 0; words[k]; k++)
    if (fgr_tok_is(u, i, words[k]))
      return true;
  int len;
  const char *p = fgr_tok_text(u, i, &len);
  int k = find_named_index(u, p, len);
  if (k >= 0 && !u->named[k].tag)
    return true;
  return vector_type_tok(u, i);
}

/* Marks the uses of a local declared at token decl, visible up to token
 * end (exclusive), in w->local. */
static void mark_scope(rw *w, int decl, int end, int vt) {
  const fgr_unit *u = w->u;
  int len;
  const char *name = fgr_tok_text(u, decl, &len);
  for (int i = decl; i < end; i++) {
    int l;
    const char *p = fgr_tok_text(u, i, &l);
    if (u->toks[i].kind == FGR_T_IDENT && l == len &&
        !memcmp(p, name, (size_t)len) &&
        !(i > 0 && (fgr_tok_is(u, i - 1, ".") || fgr_tok_is(u, i - 1, "->")))) {
      w->local[i] = true;
      w->vtype[i] = vt >= 0 ? vt + 1 : 0;
    }
  }
}

/* Whether token i names a built-in vector type (int4, uchar2...). */
static bool builtin_vector(const fgr_unit *u, int i) {
  int len;
  const char *p = fgr_tok_text(u, i, &len);
  return vector_type_tok(u, i) && find_named_index(u, p, len) < 0;
}

/* A pointer local declared at token decl whose initializer [a, b) names
 * a global: on OpenCL its pointee gets the global's address space, which
 * this returns (NULL: none). */
static const char *pointer_space(rw *w, int decl, int a, int b) {
  const fgr_unit *u = w->u;
  for (int i = a; i < b; i++) {
    int g = global_at(w, i);
    if (g < 0 || u->globals[g].alloc_index >= 0)
      continue;
    w->pre[decl] = u->globals[g].buffered ? "__global const "
                                          : "__constant ";
    return w->pre[decl];
  }
  return NULL;
}

/* The declaration that may start at token i (a statement start, or just
 * after "for ("): marks each declarator's uses up to token end.  Returns
 * the token after the declaration, or i when none starts there. */
static int declaration(rw *w, int i, int end, int limit) {
  const fgr_unit *u = w->u;
  int j = i;
  if (fgr_tok_is(u, j, "struct") || fgr_tok_is(u, j, "union") ||
      fgr_tok_is(u, j, "enum")) {
    j += 2;
    if (fgr_tok_is(u, j, "{") && u->match[j] > j)
      j = u->match[j] + 1;
  } else if (type_word(u, j)) {
    while (j < limit && type_word(u, j))
      j++;
  } else {
    return i;
  }
  /* a declaration of built-in vector type (and qualifiers) */
  int vt = -1, n_types = 0;
  for (int k = i; k < j; k++)
    if (!fgr_tok_is(u, k, "const") && !fgr_tok_is(u, k, "volatile") &&
        !fgr_tok_is(u, k, "static") && !fgr_tok_is(u, k, "register")) {
      n_types++;
      vt = builtin_vector(u, k) ? k : -1;
    }
  if (n_types != 1)
    vt = -1;
  int n_decl = 0;
  while (j < limit) {
    bool ptr = false;
    while (j < limit && (fgr_tok_is(u, j, "*") || fgr_tok_is(u, j, "const")
                         || fgr_tok_is(u, j, "volatile")))
      ptr |= fgr_tok_is(u, j++, "*");
    if (j >= limit || u->toks[j].kind != FGR_T_IDENT ||
        fgr_tok_is(u, j + 1, "("))
      return j;
    mark_scope(w, j, end, ptr || fgr_tok_is(u, j + 1, "[") ? -1 : vt);
    int name = j;
    n_decl++;
    j++;
    while (fgr_tok_is(u, j, "[") && u->match[j] > j)
      j = u->match[j] + 1;
    if (fgr_tok_is(u, j, "=")) {
      int init = j + 1;
      while (j < limit && !fgr_tok_is(u, j, ",") && !fgr_tok_is(u, j, ";")) {
        if ((fgr_tok_is(u, j, "(") || fgr_tok_is(u, j, "[") ||
             fgr_tok_is(u, j, "{")) && u->match[j] > j)
          j = u->match[j];
        j++;
      }
      /* OpenCL C: a pointer local into a global array points into the
       * globals block (__global) or a constant (__constant) */
      if (w->cl && ptr && n_decl == 1 && !fgr_tok_is(u, j, ",")) {
        /* its uses carry the space to the parameters given it */
        const char *sp = pointer_space(w, i, init, j);
        int nl, kl;
        const char *np = fgr_tok_text(u, name, &nl);
        for (int k = name; k < end && sp && w->space; k++) {
          const char *kp = fgr_tok_text(u, k, &kl);
          if (w->local[k] && kl == nl && !memcmp(kp, np, (size_t)nl))
            w->space[k] = sp;
        }
      }
    }
    if (!fgr_tok_is(u, j, ","))
      return j;
    j++;
  }
  return j;
}

/* The end (exclusive) of the statement that starts at token i. */
static int statement_end(const fgr_unit *u, int i, int limit) {
  if (fgr_tok_is(u, i, "{") && u->match[i] > i)
    return u->match[i] + 1;
  while (i < limit && !fgr_tok_is(u, i, ";")) {
    if ((fgr_tok_is(u, i, "(") || fgr_tok_is(u, i, "[") ||
         fgr_tok_is(u, i, "{")) && u->match[i] > i)
      i = u->match[i];
    i++;
  }
  return i + 1;
}

/* Marks in w->local the tokens of f's body that name its local variables
 * where they are in scope: a global, function or type of the same name is
 * not what they mean, so they are emitted as they are.  Declarations are
 * found at statement starts (after '{', '}' and ';') and in the first
 * clause of a for; a block's locals live to its '}', a for's to the end of
 * the loop. */
static void mark_locals(rw *w, const fgr_func *f) {
  const fgr_unit *u = w->u;
  int close = f->tok1 - 1;
  if (close <= f->rparen || !fgr_tok_is(u, close, "}"))
    return;
  int open = u->match[close];
  int stack[256], depth = 0;
  stack[depth++] = close;
  bool start = true;
  for (int i = open + 1; i < close; i++) {
    if (fgr_tok_is(u, i, "{")) {
      if (depth < 256)
        stack[depth++] = u->match[i] > i ? u->match[i] : close;
      start = true;
      continue;
    }
    if (fgr_tok_is(u, i, "}")) {
      if (depth > 1)
        depth--;
      start = true;
      continue;
    }
    if (fgr_tok_is(u, i, "for") && fgr_tok_is(u, i + 1, "(") &&
        u->match[i + 1] > i + 1) {
      int rp = u->match[i + 1];
      declaration(w, i + 2, statement_end(u, rp + 1, close), rp);
      start = false;
      continue;
    }
    if (start) {
      int next = declaration(w, i, stack[depth - 1], close);
      if (next > i)
        i = next - 1;
    }
    start = fgr_tok_is(u, i, ";");
  }
}

/* ---- integer division ------------------------------------------------- */

/* A division or modulo in a script never traps (the DSL's rule): x / 0
 * and x % 0 are 0, MIN / -1 wraps, MIN % -1 is 0.  The C text has no
 * types, so each "L / R" becomes fgk_rs_div(L, R), which takes the type of
 * L / R and calls the overload of that type (compat.c): integers go
 * through the checks, floats divide.  L and R are found on the tokens by
 * C's precedence: R is the cast-expression after the operator, L the
 * multiplicative chain before it.  "L /= R" becomes FGK_RS_DIVEQ(L, R).
 * A divisor that is a non-zero integer literal, or a float literal,
 * cannot trap and stays as it is. */

static bool keyword_tok(const fgr_unit *u, int i) {
  static const char *const kw[] = {"return", "case", "sizeof", "else", "do",
                                   "goto", NULL};
  for (int k = 0; kw[k]; k++)
    if (fgr_tok_is(u, i, kw[k]))
      return true;
  return false;
}

/* Whether the group ( ... ) from open to close holds a type name. */
static bool cast_group(const fgr_unit *u, int open, int close) {
  if (open < 0 || close <= open + 1 || !fgr_tok_is(u, open, "("))
    return false;
  int i = open + 1;
  if (fgr_tok_is(u, i, "struct"))
    i += 2;
  else if (!type_word(u, i))
    return false;
  for (; i < close; i++)
    if (!type_word(u, i) && !fgr_tok_is(u, i, "*"))
      return false;
  return true;
}

/* Whether token i ends an operand (so an operator after it is binary). */
static bool operand_end(const fgr_unit *u, int i) {
  /* a postfix ++ or -- ends one when what it follows does: a run of them
   * is walked, not recursed, and only so far (C allows one: x++ is no
   * lvalue, but a hostile script may hold thousands) */
  int run = 0;
  while (i >= 0 && (fgr_tok_is(u, i, "++") || fgr_tok_is(u, i, "--")) &&
         run++ < FGR_MAX_NESTING)
    i--;
  if (i < 0)
    return false;
  fgr_tok_kind k = u->toks[i].kind;
  if (k == FGR_T_IDENT)
    return !keyword_tok(u, i);
  if (k == FGR_T_NUMBER || k == FGR_T_CHAR || k == FGR_T_STRING)
    return true;
  if (fgr_tok_is(u, i, ")"))
    return !cast_group(u, u->match[i], i);
  return fgr_tok_is(u, i, "]");
}

static bool unary_op(const fgr_unit *u, int i) {
  static const char *const ops[] = {"-", "+", "!", "~", "*", "&", "++", "--",
                                    "sizeof", NULL};
  for (int k = 0; ops[k]; k++)
    if (fgr_tok_is(u, i, ops[k]))
      return true;
  return false;
}

/* The first token of the cast-expression ending at token end (at or
 * after lo), or -1. */
static int back_cast(const fgr_unit *u, int end, int lo) {
  int i = end;
  for (;;) {
    if (i <= lo)
      return i == lo ? i : -1;
    if (fgr_tok_is(u, i, ")") || fgr_tok_is(u, i, "]")) {
      if (u->match[i] < lo)
        return -1;
      i = u->match[i];
      int p = i - 1;
      if (p >= lo && ((u->toks[p].kind == FGR_T_IDENT && !keyword_tok(u, p)) ||
                      fgr_tok_is(u, p, "]") ||
                      (fgr_tok_is(u, p, ")") && !cast_group(u, u->match[p],
                                                            p)))) {
        i = p;
        continue;
      }
      break;
    }
    fgr_tok_kind k = u->toks[i].kind;
    if (k == FGR_T_IDENT || k == FGR_T_NUMBER || k == FGR_T_CHAR ||
        k == FGR_T_STRING) {
      if (k == FGR_T_IDENT && keyword_tok(u, i))
        return -1;
      if (i - 2 >= lo && (fgr_tok_is(u, i - 1, ".") ||
                          fgr_tok_is(u, i - 1, "->"))) {
        i -= 2;
        continue;
      }
      break;
    }
    if ((fgr_tok_is(u, i, "++") || fgr_tok_is(u, i, "--")) && i - 1 >= lo) {
      i--;
      continue;
    }
    return -1;
  }
  for (;;) {
    int p = i - 1;
    if (p < lo)
      break;
    if (fgr_tok_is(u, p, ")") && cast_group(u, u->match[p], p) &&
        u->match[p] >= lo) {
      i = u->match[p];
      continue;
    }
    if (unary_op(u, p) && !operand_end(u, p - 1)) {
      i = p;
      continue;
    }
    break;
  }
  return i;
}

/* The end (exclusive) of the cast-expression starting at token i (before
 * hi), or -1. */
static int fwd_cast(const fgr_unit *u, int i, int hi) {
  for (;;) {
    if (i >= hi)
      return -1;
    if (fgr_tok_is(u, i, "sizeof") && fgr_tok_is(u, i + 1, "(") &&
        cast_group(u, i + 1, u->match[i + 1]))
      return u->match[i + 1] + 1;
    if (unary_op(u, i)) {
      i++;
      continue;
    }
    if (fgr_tok_is(u, i, "(") && u->match[i] > i &&
        cast_group(u, i, u->match[i])) {
      i = u->match[i] + 1;
      continue;
    }
    break;
  }
  fgr_tok_kind k = u->toks[i].kind;
  if ((k == FGR_T_IDENT && !keyword_tok(u, i)) || k == FGR_T_NUMBER ||
      k == FGR_T_CHAR || k == FGR_T_STRING)
    i++;
  else if ((fgr_tok_is(u, i, "(") || fgr_tok_is(u, i, "{")) &&
           u->match[i] > i)
    i = u->match[i] + 1;
  else
    return -1;
  for (;;) {
    if (i >= hi)
      return -1;
    if ((fgr_tok_is(u, i, "[") || fgr_tok_is(u, i, "(")) && u->match[i] > i)
      i = u->match[i] + 1;
    else if ((fgr_tok_is(u, i, ".") || fgr_tok_is(u, i, "->")) &&
             u->toks[i + 1].kind == FGR_T_IDENT)
      i += 2;
    else if (fgr_tok_is(u, i, "++") || fgr_tok_is(u, i, "--"))
      i++;
    else
      return i;
  }
}

/* The end (exclusive) of the assignment-expression starting at i. */
static int fwd_assignment(const fgr_unit *u, int i, int hi) {
  while (i < hi && !fgr_tok_is(u, i, ",") && !fgr_tok_is(u, i, ";") &&
         !fgr_tok_is(u, i, ")") && !fgr_tok_is(u, i, "]") &&
         !fgr_tok_is(u, i, "}")) {
    if ((fgr_tok_is(u, i, "(") || fgr_tok_is(u, i, "[") ||
         fgr_tok_is(u, i, "{")) && u->match[i] > i)
      i = u->match[i];
    i++;
  }
  return i < hi ? i : -1;
}

/* Whether the single token i is a divisor that cannot trap: a non-zero
 * integer literal, or a float literal. */
static bool safe_divisor(const fgr_unit *u, int i) {
  if (u->toks[i].kind != FGR_T_NUMBER)
    return false;
  int len;
  const char *p = fgr_tok_text(u, i, &len);
  bool hex = len > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
  bool nonzero = false;
  for (int k = hex ? 2 : 0; k < len; k++) {
    char c = p[k];
    if (c == '.' || (!hex && (c == 'e' || c == 'E' || c == 'f' ||
                              c == 'F')) || (hex && (c == 'p' || c == 'P')))
      return true;
    if (c >= '1' && c <= '9')
      nonzero = true;
    if (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
      nonzero = true;
  }
  return nonzero;
}

static void add_text(rw *w, const char **slot, const char *s, bool front) {
  const char *old = *slot ? *slot : "";
  const char *n = front ? fgu_arena_printf(&w->scratch, "%s%s", s, old)
                        : fgu_arena_printf(&w->scratch, "%s%s", old, s);
  if (n)
    *slot = n;
}

/* Rewrites *(const T *)rsGetElementAt(a, ...) in f's body as
 * rsGetElementAt_T(a, ...): allocations are no memory a kernel may point
 * into (OpenCL has no cast from a buffer to a private pointer). */
static void rewrite_untyped_gets(rw *w, const fgr_func *f) {
  const fgr_unit *u = w->u;
  for (int i = f->rparen + 1; i < f->tok1; i++) {
    int first, type;
    if (!fgr_untyped_get(u, i, &first, &type))
      continue;
    for (int k = first; k < i; k++)
      w->rep[k] = "";
    int len;
    const char *p = fgr_tok_text(u, type, &len);
    w->rep[i] = fgu_arena_printf(&w->scratch, "rsGetElementAt_%.*s", len, p);
  }
}

/* OpenCL C refuses an int operand beside a vector of narrower elements
 * (uchar4 / 2: "scalar operand type has greater rank"), which RenderScript
 * takes, converting the scalar to the element type.  In the OpenCL
 * dialect a decimal integer literal without suffix that is an operand of
 * a binary arithmetic operator is written as the narrowest type holding
 * it: (char)2, (uchar)200, (short)1000.  Beside a scalar the usual
 * promotions make it an int again, so only the vector case changes. */
static bool arith_op(const fgr_unit *u, int i) {
  static const char *const ops[] = {"+", "-", "*", "/", "%", "&", "|", "^",
                                    "<<", ">>", NULL};
  for (int k = 0; ops[k]; k++)
    if (fgr_tok_is(u, i, ops[k]))
      return true;
  return false;
}

static void narrow_literals(rw *w, const fgr_func *f) {
  const fgr_unit *u = w->u;
  for (int i = f->rparen + 1; w->cl && i < f->tok1; i++) {
    if (u->toks[i].kind != FGR_T_NUMBER || w->rep[i])
      continue;
    int len;
    const char *p = fgr_tok_text(u, i, &len);
    if (len > 5 || (len > 1 && p[0] == '0'))
      continue;                 /* octal, hex, or too long */
    long v = 0;
    bool digits = true;
    for (int k = 0; k < len && digits; k++) {
      digits = p[k] >= '0' && p[k] <= '9';
      v = v * 10 + (p[k] - '0');
    }
    if (!digits || v > 32767)
      continue;
    bool left = arith_op(u, i - 1) && operand_end(u, i - 2);
    bool right = arith_op(u, i + 1) && !fgr_tok_is(u, i - 1, ".");
    if (!left && !right)
      continue;
    const char *ty = v <= 127 ? "char" : v <= 255 ? "uchar" : "short";
    w->rep[i] = fgu_arena_printf(&w->scratch, "((%s)%.*s)", ty, len, p);
  }
}

/* Rewrites (volatile int32_t *)rsGetElementAt(a, ...) in f's body, the
 * element an rsAtomic* call updates, as fgk_rs_aptr_int(a, ...): its
 * address in the dialect's address space (compat.c). */
/* T *p = rsGetElementAt(a, ...) (fgr_untyped_ptr) becomes const T *p =
 * fgk_rs_eptr(sizeof(*p), a, ...), __global on OpenCL, the cast dropped:
 * a pointer into the bound allocation's field, which kernels only read
 * (a write through it fails to compile, at its line). */
static void rewrite_untyped_ptrs(rw *w, const fgr_func *f) {
  const fgr_unit *u = w->u;
  for (int i = f->rparen + 1; i + 1 < f->tok1; i++) {
    fgr_eptr e;
    if (!fgr_untyped_ptr(u, i, &e))
      continue;
    w->pre[e.decl] = w->cl ? "__global const " : "const ";
    for (int k = e.cast_open; k >= 0 && k <= e.cast_close; k++)
      w->rep[k] = "";
    int len;
    const char *p = fgr_tok_text(u, e.name, &len);
    w->rep[i] = "fgk_rs_eptr";
    w->rep[i + 1] = fgu_arena_printf(&w->scratch, "(sizeof(*%s%.*s), ",
                                     reserved_name(p, len) ? "fgk_rs_id_"
                                                           : "", len, p);
  }
}

/* The spelling of vector type t (elem, width) in scripts: "int4". */
static const char *vector_name(fgu_arena *a, const fgr_type *t) {
  static const char *const el[FG_ELEM_COUNT_] = {
    [FG_I8] = "char", [FG_U8] = "uchar", [FG_I16] = "short",
    [FG_U16] = "ushort", [FG_I32] = "int", [FG_U32] = "uint",
    [FG_I64] = "long", [FG_U64] = "ulong", [FG_F32] = "float",
    [FG_F64] = "double"};
  if (t->kind != FGR_NUM || t->width < 2 || !el[t->elem])
    return NULL;
  return fgu_arena_printf(a, "%s%d", el[t->elem], t->width);
}

/* Wraps tokens [a, b) in fgk_rs_cv_<to>( ... ) and notes the converter
 * for emit_converters. */
static void wrap_conversion(rw *w, int a, int b, const char *to) {
  add_text(w, &w->open[a], fgu_arena_printf(&w->scratch, "fgk_rs_cv_%s(",
                                            to), true);
  add_text(w, &w->close[b], ")", false);
  add_text(w, &w->convs, fgu_arena_printf(&w->scratch, "%s\n", to), false);
}

/* A vector initialized by braces with fewer elements than it has
 * (float4 c = {r, g, b}; or (float4){r, g, b}): C sets the rest to zero,
 * as for any aggregate, and OpenCL C refuses the initializer; so the
 * OpenCL text gets the zeros written out.  The elements are scalars (C
 * has no other way to initialize a vector's elements); lb is the "{",
 * type the vector type's token.  A vector literal of one value splats
 * (the writer makes it (float4)(v)), so literals need min_items 2. */
static void pad_vector_braces(rw *w, int lb, int type, int min_items) {
  const fgr_unit *u = w->u;
  int len;
  const char *p = fgr_tok_text(u, type, &len);
  int k = len;
  while (k > 0 && p[k - 1] >= '0' && p[k - 1] <= '9')
    k--;
  int width = k < len ? atoi(fgu_arena_printf(&w->scratch, "%.*s",
                                              len - k, p + k)) : 0;
  int rb = u->match[lb], items = 0;
  bool empty = true;
  for (int j = lb + 1; j < rb; j++) {
    if ((fgr_tok_is(u, j, "(") || fgr_tok_is(u, j, "[") ||
         fgr_tok_is(u, j, "{")) && u->match[j] > j) {
      j = u->match[j];
      empty = false;
      continue;
    }
    if (fgr_tok_is(u, j, ",")) {
      items++;
      empty = true;
    } else {
      empty = false;
    }
  }
  if (!empty)
    items++;        /* the last item, when no comma follows it */
  if (items < min_items || width <= items || width > 16)
    return;
  for (int n = items; n < width; n++)
    add_text(w, &w->close[rb], n == items && empty ? "0" : ", 0", false);
}

/* RenderScript converts a vector to another vector type of as many
 * elements implicitly, element by element as C converts scalars (int4 a
 * = u; with u a uint4, float4 f = a); OpenCL C rejects such conversions
 * and the C dialect would reinterpret the bits or reject them.  So the
 * value given to a local of a built-in vector type (initializer or
 * assignment) and the value a function of a vector type returns pass
 * through fgk_rs_cv_<type>, overloaded on every scalar and vector type
 * (a scalar splats; the vector type itself is an identity). */
static void rewrite_conversions(rw *w, const fgr_func *f) {
  const fgr_unit *u = w->u;
  const char *ret = f->ret_ptr ? NULL : vector_name(&w->scratch, f->ret);
  static const char *const assign[] = {"=", "+=", "-=", "*=", "/=", "%=",
                                       "&=", "|=", "^=", "<<=", ">>=", NULL};
  for (int i = f->rparen + 1; i + 2 < f->tok1; i++) {
    bool is_assign = false;
    for (int k = 0; assign[k] && !is_assign; k++)
      is_assign = fgr_tok_is(u, i + 1, assign[k]);
    int len0;
    const char *p0 = fgr_tok_text(u, i, &len0);
    int callee = u->toks[i].kind == FGR_T_IDENT && fgr_tok_is(u, i + 1, "(")
                     && !fgr_tok_is(u, i - 1, ".") &&
                     !fgr_tok_is(u, i - 1, "->") && !w->local[i]
                 ? find_func_index(u, p0, len0) : -1;
    if (callee >= 0 && u->match[i + 1] > i + 1 &&
        !u->funcs[callee].overloadable) {
      /* arguments of a script function's vector parameters (an overloaded
       * name's: the compiler picks the overload by their own types) */
      const fgr_func *c = &u->funcs[callee];
      int rp = u->match[i + 1], a = i + 2, n = 0;
      for (int j = i + 2; j <= rp && rp > i + 2; j++) {
        if (j < rp && (fgr_tok_is(u, j, "(") || fgr_tok_is(u, j, "[") ||
                       fgr_tok_is(u, j, "{")) && u->match[j] > j) {
          j = u->match[j];
          continue;
        }
        if (j < rp && !fgr_tok_is(u, j, ","))
          continue;
        const char *to = n < c->n_params && !c->params[n].ptr
                             ? vector_name(&w->scratch, c->params[n].type)
                             : NULL;
        if (to && j > a && !fgr_tok_is(u, a, "{"))
          wrap_conversion(w, a, j, to);
        n++;
        a = j + 1;
      }
    }
    if (w->cl && w->vtype[i] && fgr_tok_is(u, i + 1, "=") &&
        fgr_tok_is(u, i + 2, "{") && u->match[i + 2] > i + 2)
      pad_vector_braces(w, i + 2, w->vtype[i] - 1, 1);
    else if (w->cl && fgr_tok_is(u, i, "(") && builtin_vector(u, i + 1) &&
             fgr_tok_is(u, i + 2, ")") && i + 3 < f->tok1 &&
             fgr_tok_is(u, i + 3, "{") && u->match[i + 3] > i + 3)
      pad_vector_braces(w, i + 3, i + 1, 2);  /* (float4){r, g, b} */
    if (w->vtype[i] && is_assign && !fgr_tok_is(u, i + 2, "{")) {
      int end = fwd_assignment(u, i + 2, f->tok1);
      int t = w->vtype[i] - 1, len;
      const char *p = fgr_tok_text(u, t, &len);
      if (end > i + 2)
        wrap_conversion(w, i + 2, end,
                        fgu_arena_printf(&w->scratch, "%.*s", len, p));
    } else if (ret && fgr_tok_is(u, i, "return") &&
               !fgr_tok_is(u, i + 1, ";")) {
      int end = i + 1;
      while (end < f->tok1 && !fgr_tok_is(u, end, ";")) {
        if ((fgr_tok_is(u, end, "(") || fgr_tok_is(u, end, "[") ||
             fgr_tok_is(u, end, "{")) && u->match[end] > end)
          end = u->match[end];
        end++;
      }
      wrap_conversion(w, i + 1, end, ret);
    }
  }
}

/* Defines the converters rewrite_conversions used (FGK_RS_CV, compat.c),
 * each once per kernel. */
static void emit_converters(rw *w) {
  const char *s = w->convs;
  while (s && *s) {
    const char *nl = strchr(s, '\n');
    char name[32], key[48];
    snprintf(name, sizeof name, "%.*s", (int)(nl - s), s);
    s = nl + 1;
    snprintf(key, sizeof key, "fgk_rs_cv_%s", name);
    if (!fgk_writer_first_use(w->tw, key))
      continue;
    int n = (int)strlen(name);
    fgu_buf_printf(w->o, "FGK_RS_CV(%s, %.*s, %c)\n", name, n - 1, name,
                   name[n - 1]);
    /* from double where the kernel has it: where the script names it,
     * or where the device has fp64, which makes an unsuffixed literal
     * double (0.5 * x assigned to a uchar4) */
    if (w->cl)
      fgu_buf_printf(w->o, "%sFGK_RS_CV1(%s, %.*s, %c, double)\n%s",
                     w->u->uses_double ? "" : "#ifdef cl_khr_fp64\n", name,
                     n - 1, name, name[n - 1],
                     w->u->uses_double ? "" : "#endif\n");
    w->bol = true;
  }
}

static void rewrite_atomic_gets(rw *w, const fgr_func *f) {
  const fgr_unit *u = w->u;
  for (int i = f->rparen + 1; i < f->tok1; i++) {
    int first;
    bool is_uint;
    if (!fgr_atomic_get(u, i, &first, &is_uint))
      continue;
    for (int k = first; k < i; k++)
      w->rep[k] = "";
    w->rep[i] = is_uint ? "fgk_rs_aptr_uint" : "fgk_rs_aptr_int";
  }
}

/* The index in u->named that names struct t in generated code
 * (fgk_rs_S_<mangle><index>, emit_head), or -1. */
static int struct_index(const fgr_unit *u, const fgr_type *t) {
  for (int k = 0; k < u->n_named; k++)
    if (u->named[k].type == t)
      return k;
  return -1;
}

/* Writes the read at token i that fgr_ptr_read matched (open, close,
 * plus, deref) as fgk_rs_ptr_T(base, offset e): base replaces token i
 * (NULL keeps it), and offset, when not NULL, is added to the index. */
/* "fgk_rs_<what>_T(" for element type t. */
static const char *elem_fn(rw *w, const char *what, const fgr_type *t) {
  static const char *const cname[FG_ELEM_COUNT_] = {
    [FG_I8] = "char", [FG_U8] = "uchar", [FG_I16] = "short",
    [FG_U16] = "ushort", [FG_I32] = "int", [FG_U32] = "uint",
    [FG_I64] = "long", [FG_U64] = "ulong", [FG_F32] = "float",
    [FG_F64] = "double"};
  if (t->kind == FGR_BOOL)      /* a pointer global's bool: a byte */
    return fgu_arena_printf(&w->scratch, "fgk_rs_%s_uchar(", what);
  if (t->kind == FGR_STRUCT)    /* emit_head names the struct */
    return fgu_arena_printf(&w->scratch, "fgk_rs_%s_fgk_rs_S_%s%d(", what,
                            w->u->mangle, struct_index(w->u, t));
  return t->width > 1
      ? fgu_arena_printf(&w->scratch, "fgk_rs_%s_%s%d(", what,
                         cname[t->elem], t->width)
      : fgu_arena_printf(&w->scratch, "fgk_rs_%s_%s(", what, cname[t->elem]);
}

static void ptr_call(rw *w, const fgr_type *t, int i, int open, int close,
                     int plus, int deref, const char *base,
                     const char *offset) {
  const char *fn = elem_fn(w, "ptr", t);
  const char *sep = offset ? fgu_arena_printf(&w->scratch, ", %s + (", offset)
                           : ", ";
  if (base)
    w->rep[i] = base;
  if (plus < 0) {               /* p[e]; inside a division's fgk_rs_div( */
    add_text(w, &w->open[i], fn, false);
    w->rep[open] = sep;
  } else {                      /* *(p + e), (p + e)->m */
    w->rep[open] = fn;
    w->rep[plus] = sep;
    w->rep[deref] = fgr_tok_is(w->u, deref, "*") ? "" : ".";
  }
  w->rep[close] = offset ? "))" : ")";
}

/* The view that pointer tokens [i, end) give, p or p + e with p a
 * pointer of pointee t at token i: a pointer global as
 * fgk_rs_view_T(p, 0 + e), a view (parameter or local) moved as
 * fgk_rs_vadd_T(v, 0 + e) (ptrview.c, compat.c). */
static void wrap_view(rw *w, const fgr_func *f, int i, int end,
                      const fgr_type *t) {
  bool global = !fgr_ptr_is_view(w->u, f, i);
  if (!global && end == i + 1)
    return;                     /* the view as it is */
  add_text(w, &w->open[i], elem_fn(w, global ? "view" : "vadd", t), false);
  if (end == i + 1) {
    add_text(w, &w->close[end], ", 0)", true);
  } else {
    add_text(w, &w->close[i + 1], ", 0", true);
    add_text(w, &w->close[end], ")", false);
  }
}

/* The same after a cast to q's pointee qt, (T *)p + e: p's view moved by
 * e elements of qt. */
static void wrap_cast_view(rw *w, const fgr_func *f, int i, int end,
                           const fgr_type *t, const fgr_type *qt) {
  bool global = !fgr_ptr_is_view(w->u, f, i);
  if (end == i + 1) {
    wrap_view(w, f, i, end, t);
    return;
  }
  add_text(w, &w->open[i], elem_fn(w, "vadd", qt), false);
  if (global) {
    add_text(w, &w->open[i], elem_fn(w, "view", t), false);
    add_text(w, &w->close[i + 1], ", 0), 0", true);
  } else {
    add_text(w, &w->close[i + 1], ", 0", true);
  }
  add_text(w, &w->close[end], ")", false);
}

/* A pointer at token i (pointee t) given to a view parameter, f(p) or
 * f(p + e), or to a view local, T *q = p + e; (whose type becomes
 * fgk_rs_view).  Whether it was. */
static bool pointer_view(rw *w, const fgr_func *f, int i, const fgr_type *t) {
  const fgr_unit *u = w->u;
  const fgr_vlocal *v = fgr_vlocal_source(u, f, i);
  int mend;
  if (v && v->init != i && fgr_vlocal_move(u, f, i - 2, &mend) >= 0) {
    wrap_view(w, f, i, mend, t);        /* q = p + e */
    return true;
  }
  if (fgr_vlocal_move(u, f, i, &mend) >= 0) {
    /* q += e, q -= e, q++... as fgk_rs_vmove_T(&q, e) */
    const char *fn = fgu_arena_printf(&w->scratch, "%s&",
                                      elem_fn(w, "vmove", t));
    bool pre = fgr_tok_is(u, i - 1, "++") || fgr_tok_is(u, i - 1, "--");
    if (pre) {
      w->rep[i - 1] = fn;
      add_text(w, &w->close[i + 1],
               fgr_tok_is(u, i - 1, "++") ? ", 1)" : ", -1)", true);
    } else if (fgr_tok_is(u, i + 1, "++") || fgr_tok_is(u, i + 1, "--")) {
      add_text(w, &w->open[i], fn, false);
      w->rep[i + 1] = fgr_tok_is(u, i + 1, "++") ? ", 1)" : ", -1)";
    } else if (!fgr_tok_is(u, i + 1, "=")) {
      add_text(w, &w->open[i], fn, false);
      w->rep[i + 1] = fgr_tok_is(u, i + 1, "+=") ? ", (" : ", -(";
      add_text(w, &w->close[mend], "))", false);
    }
    return true;
  }
  if (v) {
    w->pre[v->decl] = NULL;     /* no address space: a value */
    w->rep[v->decl] = "fgk_rs_view";
    for (int k = v->decl + 1; k < v->name_tok; k++)
      w->rep[k] = "";
    for (int k = v->name_tok + 2; k < v->init; k++)
      w->rep[k] = "";           /* a cast (T *): the view is bytes */
    if (v->init > v->name_tok + 2)
      wrap_cast_view(w, f, i, v->init_end, t, v->type);
    else
      wrap_view(w, f, i, v->init_end, t);
    return true;
  }
  if (u->vlocal_of && u->vlocal_of[i] >= 0 &&
      u->vlocals[u->vlocal_of[i]].name_tok == i)
    return true;                /* q in its declaration */
  int k, end;
  const fgr_func *callee = fgr_view_arg(u, f, i, &k, &end);
  if (!callee || k >= callee->n_params || !callee->params[k].view)
    return false;
  wrap_view(w, f, i, end, t);
  return true;
}

/* *p and p->m read through a pointer (pointee t) at token i as
 * fgk_rs_ptr_T(p, 0), *p = v as fgk_rs_pst_T(p, 0, v), *p += v as
 * fgk_rs_padd_T(p, 0, v, 0) (-= v: -(v); *=: pmul).  Whether it was. */
static bool pointer_deref(rw *w, const fgr_func *f, int i,
                          const fgr_type *t) {
  const fgr_unit *u = w->u;
  int deref;
  bool write;
  if (!fgr_ptr_deref(u, i, &deref, &write))
    return false;
  if (!write) {
    add_text(w, &w->open[i], elem_fn(w, "ptr", t), false);
    if (deref > i) {            /* p->m */
      w->rep[deref] = ".";
      add_text(w, &w->close[deref], ", 0)", true);
    } else {
      w->rep[deref] = "";
      add_text(w, &w->close[i + 1], ", 0)", true);
    }
    return true;
  }
  int end = fwd_assignment(u, i + 2, f->tok1);
  if (end <= i + 2)
    return false;
  bool set = fgr_tok_is(u, i + 1, "="), neg = fgr_tok_is(u, i + 1, "-=");
  const char *what = set ? "pst" : fgr_tok_is(u, i + 1, "*=") ? "pmul"
                                                                : "padd";
  bool b = set && t->kind == FGR_BOOL;           /* C's bool: 0 or 1 */
  w->rep[deref] = "";
  add_text(w, &w->open[i], elem_fn(w, what, t), false);
  w->rep[i + 1] = neg ? ", 0, -(" : b ? ", 0, (uchar)(0 != (" : ", 0, ";
  add_text(w, &w->close[end], b ? ")))" : set ? ")" : neg ? "), 0)"
                                                           : ", 0)", false);
  return true;
}

/* A member write through a struct pointer at token i (pointee t), which
 * fgr_ptr_mwrite matched: p->m = v as fgk_rs_pst_M(fgk_rs_vmem(V,
 * offsetof(S, m)), 0, v), M the member's type and V the view of the
 * struct (fgk_rs_view_S(p, e) for a pointer global, p or
 * fgk_rs_vadd_S(p, e) for a view); += v, -= v and *= v as
 * fgk_rs_padd_M / fgk_rs_pmul_M(..., 0, v, 0), ++ and -- as (..., 0,
 * +-1, 1).  A write outside the field is skipped, as p[e] = v's is.
 * Whether it was. */
static bool pointer_mwrite(rw *w, const fgr_func *f, int i,
                           const fgr_type *t) {
  const fgr_unit *u = w->u;
  fgr_mwrite m;
  if (!fgr_ptr_mwrite(u, i, t, &m))
    return false;
  int end = m.op + 1;
  bool set = fgr_tok_is(u, m.op, "="), neg = fgr_tok_is(u, m.op, "-=");
  bool incdec = fgr_tok_is(u, m.op, "++") || fgr_tok_is(u, m.op, "--");
  if (!incdec && (end = fwd_assignment(u, m.op + 1, f->tok1)) <= m.op + 1)
    return false;
  bool global = !fgr_ptr_is_view(u, f, i);
  const char *what = set ? "pst" : fgr_tok_is(u, m.op, "*=") ? "pmul"
                                                             : "padd";
  const char *head = fgu_arena_printf(&w->scratch, "%sfgk_rs_vmem(%s",
                                      elem_fn(w, what, m.mt),
                                      m.open < 0 && !global ? ""
                                      : elem_fn(w, global ? "view" : "vadd",
                                                t));
  if (m.open >= 0 && fgr_tok_is(u, m.open, "(")) {     /* (p + e)->m */
    w->rep[m.open] = head;
    w->rep[m.plus] = fgr_tok_is(u, m.plus, "+") ? ", " : ", -";
  } else {
    add_text(w, &w->open[i], head, false);
    if (m.open >= 0) {                                  /* p[e].m */
      w->rep[m.open] = ", ";
      w->rep[m.close] = ")";
    } else if (global) {                                /* p->m */
      add_text(w, &w->close[m.sel], ", 0)", true);
    }
  }
  w->rep[m.sel] = fgu_arena_printf(&w->scratch,
                                   ", __builtin_offsetof(fgk_rs_S_%s%d, ",
                                   u->mangle, struct_index(u, t));
  bool b = set && m.mt->kind == FGR_BOOL;               /* C's bool */
  if (incdec) {
    w->rep[m.op] = fgr_tok_is(u, m.op, "++") ? ")), 0, 1, 1)"
                                             : ")), 0, -1, 1)";
    return true;
  }
  w->rep[m.op] = neg ? ")), 0, -(" : b ? ")), 0, (uchar)(0 != ("
                                       : ")), 0, ";
  add_text(w, &w->close[end], b ? ")))" : set ? ")" : neg ? "), 0)"
                                                         : ", 0)", false);
  return true;
}

/* A view local declared T *q = NULL; (a struct T) as fgk_rs_view q =
 * fgk_rs_vnull(), a view of nothing: reads give zeros, writes are
 * skipped until q is given p + e. */
static void null_views(rw *w, const fgr_func *f) {
  const fgr_unit *u = w->u;
  for (int k = 0; k < u->n_vlocals; k++) {
    const fgr_vlocal *v = &u->vlocals[k];
    if (!v->null || v->decl <= f->rparen || v->decl >= f->tok1)
      continue;
    w->pre[v->decl] = NULL;
    w->rep[v->decl] = "fgk_rs_view";
    for (int j = v->decl + 1; j < v->name_tok; j++)
      w->rep[j] = "";
    w->rep[v->init] = "fgk_rs_vnull()";
  }
}

/* Rewrites the reads of pointer globals in f's body, p[e], *(p + e) and
 * (p + e)->m, as fgk_rs_ptr_T(p, e) (the pointer global is an
 * allocation in the environment), and of a legacy kernel's input pointer
 * as element (the point's + e) of the input field the environment holds. */
static void rewrite_pointer_reads(rw *w, const fgr_func *f) {
  const fgr_unit *u = w->u;
  const char *in = f->legacy_in_indexed ? f->params[f->legacy_in].name : NULL;
  null_views(w, f);
  /* P = Q; (fgr_ptr_alias): what the host does after the call
   * (rs-host/host.c), no code */
  for (int i = f->rparen + 1; i < f->tok1; i++) {
    int d, sg, end = fgr_ptr_alias(u, f, i, &d, &sg);
    for (int j = i; j < end; j++)
      w->rep[j] = "";
    i = end > i ? end : i;
  }
  for (int i = f->rparen + 1; i < f->tok1; i++) {
    const fgr_type *t = fgr_ptr_at(u, f, i);
    int open, close, plus, deref;
    bool input = in && fgr_tok_is(u, i, in) && !fgr_tok_is(u, i - 1, ".") &&
                 !fgr_tok_is(u, i - 1, "->");
    if (input)
      t = f->params[f->legacy_in].type;
    int ak, aend;
    const fgr_func *callee = fgr_arg_callee(u, i, &ak, &aend);
    if (callee && callee->params[ak].view && fgr_private_arg(u, f, i, aend)) {
      /* the function's own memory given to a view parameter */
      add_text(w, &w->open[i], "fgk_rs_pview(", true);
      add_text(w, &w->close[aend], ")", false);
    }
    if (!input && t && pointer_mwrite(w, f, i, t))
      continue;
    int r = !input && t ? fgr_ptr_compare(u, f, i) : -1;
    if (r >= 0) {               /* q != r: their places in the field */
      add_text(w, &w->close[i + 1], ".o", true);
      add_text(w, &w->close[r + 1], ".o", true);
      i = r;
      continue;
    }
    if (!input && t && pointer_view(w, f, i, t))
      continue;
    if (!input && t && pointer_deref(w, f, i, t))
      continue;
    if (!input && t && fgr_ptr_write(u, i, &close)) {
      /* the launch's copy of the field bound to p (nodes.c):
       * p[e] = v as fgk_rs_pst_T(p, e, v), p[e] += v as
       * fgk_rs_padd_T(p, e, v, 0) (-= v: -(v); *=: pmul), p[e]++ as
       * fgk_rs_padd_T(p, e, 1, 1) and ++p[e] as (..., 1, 0) */
      int end = -1;
      bool incdec = fgr_tok_is(u, close + 1, "++") ||
                    fgr_tok_is(u, close + 1, "--");
      bool pre = fgr_tok_is(u, i - 1, "++") || fgr_tok_is(u, i - 1, "--");
      if (!incdec && !pre &&
          (end = fwd_assignment(u, close + 2, f->tok1)) <= close + 2)
        continue;
      const char *what = fgr_tok_is(u, close + 1, "=") ? "pst"
                         : fgr_tok_is(u, close + 1, "*=") ? "pmul" : "padd";
      add_text(w, &w->open[i], elem_fn(w, what, t), false);
      w->rep[i + 1] = ", ";
      if (pre) {
        w->rep[close] = fgr_tok_is(u, i - 1, "++") ? ", 1, 0)" : ", -1, 0)";
        w->rep[i - 1] = "";
      } else if (incdec) {
        w->rep[close] = "";
        w->rep[close + 1] = fgr_tok_is(u, close + 1, "++") ? ", 1, 1)"
                                                           : ", -1, 1)";
      } else {
        bool neg = fgr_tok_is(u, close + 1, "-=");
        bool b = t->kind == FGR_BOOL && what[1] == 's';   /* C's bool */
        w->rep[close] = "";
        w->rep[close + 1] = neg ? ", -(" : b ? ", (uchar)(0 != (" : ", ";
        add_text(w, &w->close[end], b ? ")))" : what[1] == 's' ? ")"
                                    : neg ? "), 0)" : ", 0)", false);
      }
      continue;
    }
    if (!t || (input && t->kind == FGR_BOOL) ||
        !fgr_ptr_read(u, i, &open, &close, &plus, &deref))
      continue;
    if (input)
      ptr_call(w, t, i, open, close, plus, deref, "fgk_env->fgk_inp",
               "fgk_env->fgk_lin");
    else
      ptr_call(w, t, i, open, close, plus, deref, NULL, NULL);
  }
}

/* Rewrites the divisions and modulos of f's body (see above). */
static void rewrite_divisions(rw *w, const fgr_func *f) {
  const fgr_unit *u = w->u;
  int close = f->tok1 - 1;
  if (close <= f->rparen || !fgr_tok_is(u, close, "}"))
    return;
  int open = u->match[close];
  for (int i = open + 1; i < close; i++) {
    bool div = fgr_tok_is(u, i, "/"), mod = fgr_tok_is(u, i, "%");
    bool diveq = fgr_tok_is(u, i, "/="), modeq = fgr_tok_is(u, i, "%=");
    if (!div && !mod && !diveq && !modeq)
      continue;
    if (!operand_end(u, i - 1))
      continue;
    int l = back_cast(u, i - 1, open + 1);
    if (l < 0)
      continue;
    if (div || mod) {
      while (l - 2 > open && (fgr_tok_is(u, l - 1, "*") ||
                              fgr_tok_is(u, l - 1, "/") ||
                              fgr_tok_is(u, l - 1, "%")) &&
             operand_end(u, l - 2)) {
        int l2 = back_cast(u, l - 2, open + 1);
        if (l2 < 0)
          break;
        l = l2;
      }
    }
    int r = div || mod ? fwd_cast(u, i + 1, close)
                       : fwd_assignment(u, i + 1, close);
    if (r < 0 || (r == i + 2 && safe_divisor(u, i + 1)))
      continue;
    const char *fn = div ? "fgk_rs_div(" : mod ? "fgk_rs_mod("
                     : diveq ? "FGK_RS_DIVEQ(" : "FGK_RS_MODEQ(";
    add_text(w, &w->open[l], fn, true);
    w->rep[i] = ",";
    add_text(w, &w->close[r], ")", false);
  }
}

/* Whether identifier token i names a vector type. */
static bool vector_type_tok(const fgr_unit *u, int i) {
  int len;
  const char *p = fgr_tok_text(u, i, &len);
  int k = find_named_index(u, p, len);
  if (k >= 0)
    return !u->named[k].tag && u->named[k].type->kind == FGR_NUM &&
           u->named[k].type->width > 1;
  static const char *const names[] = {"char", "uchar", "short", "ushort",
                                      "int", "uint", "long", "ulong",
                                      "float", "double"};
  for (size_t n = 0; n < sizeof names / sizeof *names; n++) {
    size_t l = strlen(names[n]);
    if ((size_t)len == l + 1 && !memcmp(p, names[n], l) && p[l] >= '2' &&
        p[l] <= '4')
      return true;
  }
  return false;
}

/* A loop of a kernel's function body polls the run's stop flag, so that
 * cancelling the run or its deadline ends it (emit/abi.h): while (c) and
 * do .. while (c) become while (GO && (c)), for (a; c; b) becomes
 * for (a; GO && (c); b) and for (a;; b) for (a; GO; b).  Sets the
 * replacements of the loop's tokens after the keyword i. */
static void poll_loop(rw *w, int i) {
  const fgr_unit *u = w->u;
  bool is_while = fgr_tok_is(u, i, "while");
  if ((!is_while && !fgr_tok_is(u, i, "for")) || !fgr_tok_is(u, i + 1, "(")
      || u->match[i + 1] <= i + 1)
    return;
  int close = u->match[i + 1], semi[2], n = 0;
  if (is_while) {
    if (!w->rep[i + 1] && !w->rep[close]) {
      w->rep[i + 1] = "(fgk_go(fgk_env->fgk_stop) && (";
      w->rep[close] = "))";
    }
    return;
  }
  for (int k = i + 2; k < close && n < 2; k++) {
    if ((fgr_tok_is(u, k, "(") || fgr_tok_is(u, k, "[") ||
         fgr_tok_is(u, k, "{")) && u->match[k] > k)
      k = u->match[k];
    else if (fgr_tok_is(u, k, ";"))
      semi[n++] = k;
  }
  if (n < 2 || w->rep[semi[0]] || w->rep[semi[1]])
    return;
  if (semi[1] == semi[0] + 1) {
    w->rep[semi[1]] = " fgk_go(fgk_env->fgk_stop);";
  } else {
    w->rep[semi[0]] = "; fgk_go(fgk_env->fgk_stop) && (";
    w->rep[semi[1]] = ");";
  }
}

/* Whether name (len bytes) is one of list's. */
static bool listed(const char *const *list, const char *p, int len) {
  for (int k = 0; list[k]; k++)
    if ((int)strlen(list[k]) == len && !memcmp(list[k], p, (size_t)len))
      return true;
  return false;
}

/* A call of a runtime function that the dialect spells differently
 * (compat.c): fgr_c_renames / fgr_cl_renames become fgk_rs_<name>, and a
 * kernel's rsRand steps the point's own state.  Written here, token by
 * token, rather than by function-like macros around the script: OpenCL C
 * before 2.0 has no variadic macros (NVIDIA's compiler refuses them), and
 * these functions take one to three arguments. */
static bool renamed_call(rw *w, int i, const char *p, int len) {
  if (!is_host(w->tw) && len == 6 && !memcmp(p, "rsRand", 6) &&
      !w->rep[i + 1]) {
    put(w, "fgk_rs_krand(fgk_env->fgk_rseed, ");
    w->rep[i + 1] = "";
    return true;
  }
  /* OpenCL C has no printf before 1.2's optional one: rsDebug("x", v)
   * becomes (void)("x", v), its arguments evaluated, nothing printed */
  if (w->cl && len == 7 && !memcmp(p, "rsDebug", 7)) {
    put(w, "(void)");
    return true;
  }
  if (!listed(w->cl ? fgr_cl_renames : fgr_c_renames, p, len))
    return false;
  fgu_buf_printf(w->o, "fgk_rs_%.*s", len, p);
  w->bol = false;
  return true;
}

/* Emits token i, rewritten. */
static void token(rw *w, int i, bool in_pp) {
  const fgr_unit *u = w->u;
  const fgr_tok *t = &u->toks[i];
  if (t->kind == FGR_T_IDENT && !in_pp && w->fn && i > w->fn->rparen &&
      !is_host(w->tw))
    poll_loop(w, i);
  if (t->kind == FGR_T_PP_END) {
    put(w, "\n");
    w->out_line++;
    return;
  }
  if ((t->line > w->out_line || t->file != w->out_file) && !in_pp) {
    if (t->line - w->out_line > 8 || t->file != w->out_file) {
      line_directive(w, t->line, t->file);
    } else {
      while (w->out_line < t->line) {
        put(w, "\n");
        w->out_line++;
      }
    }
    /* the token's own column, so that messages point at it */
    for (int c = 1; c < t->col && c < 200; c++)
      put(w, " ");
  } else if (t->space && !w->bol) {
    put(w, " ");
  }
  if (w->close && w->close[i])
    put(w, w->close[i]);
  if (w->pre[i])
    put(w, w->pre[i]);
  if (w->open && w->open[i])
    put(w, w->open[i]);
  if (w->rep[i]) {
    put(w, w->rep[i]);
    return;
  }
  int len;
  const char *p = fgr_tok_text(u, i, &len);
  char buf[256];
  if (t->kind == FGR_T_PP_BEGIN) {
    put(w, "#");
    return;
  }
  if (t->kind == FGR_T_PUNCT && len == 1 && *p == '{' && i >= 3 &&
      fgr_tok_is(u, i - 1, ")") && fgr_tok_is(u, i - 3, "(") &&
      u->toks[i - 2].kind == FGR_T_IDENT && vector_type_tok(u, i - 2) &&
      u->match[i] > i) {
    /* a vector literal: one value splats, more keep their order */
    int commas = 0, depth = 0;
    for (int k = i + 1; k < u->match[i]; k++) {
      if (fgr_tok_is(u, k, "(") || fgr_tok_is(u, k, "{") ||
          fgr_tok_is(u, k, "["))
        depth++;
      else if (fgr_tok_is(u, k, ")") || fgr_tok_is(u, k, "}") ||
               fgr_tok_is(u, k, "]"))
        depth--;
      else if (depth == 0 && fgr_tok_is(u, k, ","))
        commas++;
    }
    if (commas == 0 || w->cl) {
      put(w, "(");
      w->rep[u->match[i]] = ")";
      return;
    }
  }
  if (t->kind != FGR_T_IDENT) {
    fgu_buf_printf(w->o, "%.*s", len, p);
    w->bol = false;
    return;
  }
  if (i == w->raw_tok) {        /* a global's name in the block */
    put_ident(w->o, p, len);
    w->bol = false;
    return;
  }
  bool member = i > 0 && (fgr_tok_is(u, i - 1, ".") ||
                          fgr_tok_is(u, i - 1, "->"));
  if (member) {
    bool swz = len <= 4 && !is_member_name(u, p, len);
    for (int k = 0; k < len && swz; k++)
      swz = strchr("rgba", p[k]) != NULL;
    if (swz) {
      for (int k = 0; k < len; k++)
        buf[k] = "xyzw"[strchr("rgba", p[k]) - "rgba"];
      buf[len] = 0;
      put(w, buf);
    } else {
      put_ident(w->o, p, len);
      w->bol = false;
    }
    return;
  }
  if (fgr_tok_is(u, i, "RS_KERNEL"))
    return;
  /* C's long long is 64 bits, OpenCL C's long; OpenCL reserves long long */
  if (w->cl && fgr_tok_is(u, i, "long") && fgr_tok_is(u, i + 1, "long"))
    return;
  /* OpenCL C has no function-scope static variables: a static local (a
   * constant table, typically) becomes an automatic one */
  if (w->cl && w->fn && i > w->fn->rparen && fgr_tok_is(u, i, "static"))
    return;
  if ((fgr_tok_is(u, i, "__attribute__") || fgr_tok_is(u, i, "__attribute"))
      && fgr_tok_is(u, i + 1, "(") && u->match[i + 1] > 0) {
    bool kernel = false;
    for (int k = i + 1; k < u->match[i + 1]; k++)
      kernel |= fgr_tok_is(u, k, "kernel");
    if (kernel) {
      for (int k = i + 1; k <= u->match[i + 1]; k++)
        w->rep[k] = "";
      return;
    }
  }
  if (find_macro_index(u, p, len) >= 0) {
    fgu_buf_printf(w->o, "%s%.*s", u->mangle, len, p);
    w->bol = false;
    return;
  }
  if (shadowed(w, p, len) || (w->local && w->local[i])) {
    put_ident(w->o, p, len);
    w->bol = false;
    return;
  }
  int f = find_func_index(u, p, len);
  if (f >= 0) {
    fgu_buf_printf(w->o, "%s%.*s", u->mangle, len, p);
    w->bol = false;
    bool own = w->fn && i == w->fn->name_tok;
    if (!own && fgr_tok_is(u, i + 1, "(") && u->match[i + 1] > 0) {
      int close = u->match[i + 1];
      w->pre[close] = close == i + 2 ? "fgk_env" : ", fgk_env";
    }
    return;
  }
  if (find_named_index(u, p, len) >= 0 || find_enum_index(u, p, len) >= 0) {
    fgu_buf_printf(w->o, "%s%.*s", u->mangle, len, p);
    w->bol = false;
    return;
  }
  int g = find_global_index(u, p, len);
  if (g >= 0) {
    const fgr_global *gl = &u->globals[g];
    if (gl->alloc_index >= 0)
      fgu_buf_printf(w->o, "(fgk_env->%s)", env_name(u, gl->name));
    else if (gl->buffered)
      fgu_buf_printf(w->o, "(fgk_env->fgk_g->%s)", env_name(u, gl->name));
    else
      fgu_buf_printf(w->o, "%s%s", u->mangle, gl->name);
    w->bol = false;
    return;
  }
  if (fgr_tok_is(u, i + 1, "(") && renamed_call(w, i, p, len))
    return;
  put_ident(w->o, p, len);
  w->bol = false;
}

static void tokens(rw *w, int a, int b) {
  bool in_pp = false;
  for (int i = a; i < b; i++) {
    if (w->u->toks[i].kind == FGR_T_PP_BEGIN)
      in_pp = true;
    token(w, i, in_pp);
    if (w->u->toks[i].kind == FGR_T_PP_END)
      in_pp = false;
  }
}

static void start_item(rw *w, int tok) {
  int line = w->u->toks[tok].line, file = w->u->toks[tok].file;
  if (w->out_line != line || w->out_file != file || !w->bol)
    line_directive(w, line, file);
  for (int c = 1; c < w->u->toks[tok].col && c < 200; c++)
    put(w, " ");
}

/* The env parameter at the end of f's parameter list; and no const on
 * parameters passed by value: scripts assign to them (Clamp helpers that
 * take `const float3 t` and set t.r), which Android's compiler let pass,
 * and a by-value parameter's qualifier changes nothing for the caller. */
/* On OpenCL, the address space a pointer parameter p of f takes: that of
 * the globals every call of f in the kernel passes it ("__global " for
 * the globals block, "__constant " for const globals), directly, through
 * a pointer local into one (rw.space) or through a parameter of the
 * caller that takes one (depth: such parameters followed so far), NULL
 * when a call passes something else (a private array: the default
 * space) or none does.  A script passing its LUT global to
 * `float3 lut(const float *t)` compiles as C does. */
static const char *param_space_scan(const rw *w, const fgr_func *f, int p,
                                    int depth);
static const char *param_space_at(const rw *w, const fgr_func *f, int p,
                                  int depth) {
  const char **m = w->pspace && w->pfirst
                       ? &w->pspace[w->pfirst[f - w->u->funcs] + p] : NULL;
  if (m && *m)
    return **m == '-' ? NULL : *m;
  if (m)
    *m = "-";                   /* asked again while under way: none */
  const char *sp = param_space_scan(w, f, p, depth);
  if (m)
    *m = sp ? sp : "-";
  return sp;
}

/* The global whose memory argument tokens [a, j) point into: an array
 * g or g.m (.n...), an array member of a struct global (Refocus passes
 * g_camera_response.lut_remove_crf_float to a helper), or &g, &g.m (its
 * &g_target_layer); -1 otherwise. */
static int global_memory_arg(const fgr_unit *u, int a, int j) {
  bool addr = fgr_tok_is(u, a, "&");
  a += addr;
  if (a >= j)
    return -1;
  int len;
  const char *t = fgr_tok_text(u, a, &len);
  int g = find_global_index(u, t, len);
  if (g < 0)
    return -1;
  const fgr_type *ty = u->globals[g].type;
  int i = a + 1;
  while (i + 1 < j && fgr_tok_is(u, i, ".") && ty->kind == FGR_STRUCT) {
    const fgr_type *mt = NULL;
    for (int k = 0; k < ty->n_members && !mt; k++)
      if (ty->members[k].name && fgr_tok_is(u, i + 1, ty->members[k].name))
        mt = ty->members[k].type;
    if (!mt)
      return -1;
    ty = mt;
    i += 2;
  }
  return i == j && (addr || ty->kind == FGR_ARRAY) ? g : -1;
}

static const char *param_space_scan(const rw *w, const fgr_func *f, int p,
                                    int depth) {
  const fgr_unit *u = w->u;
  const char *space = NULL;
  for (int k = 0; k < u->n_funcs; k++) {
    const fgr_func *c = &u->funcs[k];
    if (!c->has_body || !w->emit_fn[k])
      continue;                 /* only the kernel's own calls count */
    for (int i = c->rparen + 1; i + 1 < c->tok1; i++) {
      if (!fgr_tok_is(u, i, f->name) || !fgr_tok_is(u, i + 1, "(") ||
          fgr_tok_is(u, i - 1, ".") || fgr_tok_is(u, i - 1, "->"))
        continue;
      int rp = u->match[i + 1], a = i + 2, n = 0;
      if (rp < 0)
        return NULL;
      for (int j = i + 2; j <= rp; j++) {
        if (j < rp && (fgr_tok_is(u, j, "(") || fgr_tok_is(u, j, "[") ||
                       fgr_tok_is(u, j, "{"))) {
          j = u->match[j] >= 0 ? u->match[j] : j;
          continue;
        }
        if (j < rp && !fgr_tok_is(u, j, ","))
          continue;
        if (n++ == p) {
          int g = global_memory_arg(u, a, j);
          bool hidden = false;
          for (int q = 0; q < c->n_params && !hidden; q++)
            hidden = c->params[q].name && fgr_tok_is(u, a, c->params[q].name);
          /* a pointer local into a global array (pointer_space), or a
           * parameter of the caller that takes one */
          const char *lsp = j == a + 1 ? w->space[a] : NULL;
          for (int q = 0; q < c->n_params && j == a + 1 && !lsp &&
                          depth < 8; q++)
            if (c->params[q].name && c->params[q].ptr == 1 &&
                !c->params[q].view && fgr_tok_is(u, a, c->params[q].name))
              lsp = param_space_at(w, c, q, depth + 1);
          if (!lsp && (g < 0 || hidden || u->globals[g].alloc_index >= 0))
            return NULL;
          const char *sp = lsp ? (strstr(lsp, "__global") ? "__global "
                                                          : "__constant ")
                           : u->globals[g].buffered ? "__global "
                                                    : "__constant ";
          if (space && strcmp(space, sp))
            return NULL;
          space = sp;
          break;
        }
        a = j + 1;
      }
    }
  }
  return space;
}

static void mark_params(rw *w, const fgr_func *f) {
  const fgr_unit *u = w->u;
  /* a view parameter (ptrview.c): fgk_rs_view name */
  for (int p = 0; p < f->n_params; p++) {
    const fgr_param *q = &f->params[p];
    if (!q->view)
      continue;
    w->rep[q->spec0] = "fgk_rs_view";
    for (int i = q->spec0 + 1; i < q->tok && i < f->rparen; i++)
      w->rep[i] = "";
  }
  for (int p = 0; p < f->n_params && w->cl && !f->is_kernel; p++) {
    const fgr_param *q = &f->params[p];
    /* a pointer, or an array parameter (float lut[N], a pointer too) */
    bool ptr = (q->ptr == 1 && !q->view) ||
               (q->ptr == 0 && q->type->kind == FGR_ARRAY);
    const char *sp = ptr ? param_space_at(w, f, p, 0) : NULL;
    if (sp && (!w->pre[q->spec0] || !strcmp(w->pre[q->spec0], sp)))
      w->pre[q->spec0] = sp;
  }
  for (int p = 0; p < f->n_params; p++) {
    const fgr_param *q = &f->params[p];
    if (q->ptr)
      continue;
    for (int i = q->spec0; i < q->tok && i < f->rparen; i++)
      if (fgr_tok_is(u, i, "const"))
        w->rep[i] = "";
  }
  const char *param = fgu_arena_printf(&((fgr_unit *)u)->arena,
                                       "const %senv *fgk_env", u->mangle);
  if (f->n_params == 0) {
    if (f->rparen == f->lparen + 2)
      w->rep[f->lparen + 1] = "";     /* (void) */
    w->pre[f->rparen] = param;
  } else {
    w->pre[f->rparen] = fgu_arena_printf(&((fgr_unit *)u)->arena, ", %s",
                                         param);
  }
}

/* Marks in emit the functions with a body that the roots reach through
 * calls (each kernel is built with only what it reaches, so a function
 * the kernel never calls cannot break it). */
static void reachable(const fgr_unit *u, const fgr_func *const *roots,
                      int n_roots, bool *emit) {
  for (int r = 0; r < n_roots; r++)
    if (roots[r])
      emit[roots[r] - u->funcs] = roots[r]->has_body;
  bool changed = true;
  while (changed) {
    changed = false;
    for (int k = 0; k < u->n_funcs; k++) {
      if (!emit[k])
        continue;
      for (int i = u->funcs[k].rparen; i < u->funcs[k].tok1; i++) {
        if (u->toks[i].kind != FGR_T_IDENT)
          continue;
        int len;
        const char *p = fgr_tok_text(u, i, &len);
        /* every definition of the name: overloads share it */
        for (int f = 0; f < u->n_funcs; f++)
          if (u->funcs[f].has_body && !emit[f] &&
              (int)strlen(u->funcs[f].name) == len &&
              !memcmp(u->funcs[f].name, p, (size_t)len)) {
            emit[f] = true;
            changed = true;
          }
      }
    }
  }
}

/* Spelling of a script type in generated code. */
static const char *spell(fgk_writer *tw, const fgr_unit *u,
                         const fgr_type *t) {
  fgu_arena *a = &((fgr_unit *)u)->arena;
  if (t->kind == FGR_NUM)
    return fgk_writer_type(tw, fgk_t(t->elem, t->width));
  if (t->kind == FGR_BOOL)
    return is_cl(tw) ? "bool" : "_Bool";
  if (t->kind == FGR_STRUCT && t->name &&
      (!strncmp(t->name, "rs_matrix", 9) || !strcmp(t->name, "rs_sampler")))
    return t->name;
  for (int k = u->n_named - 1; k >= 0; k--)
    if (u->named[k].type == t && !u->named[k].tag)
      return fgu_arena_printf(a, "%s%s", u->mangle, u->named[k].name);
  for (int k = u->n_named - 1; k >= 0; k--)
    if (u->named[k].type == t)
      return fgu_arena_printf(a, "%s %s%s", t->is_union ? "union" : "struct",
                              u->mangle, u->named[k].name);
  return NULL;
}

/* "typedef <t> name;" (arrays spelled out when they have no name). */
static void typedef_of(fgk_writer *tw, const fgr_unit *u, const fgr_type *t,
                       const char *name) {
  const char *s = spell(tw, u, t);
  if (s) {
    fgu_buf_printf(fgk_writer_helpers(tw), "typedef %s %s;\n", s, name);
    return;
  }
  char dims[128] = "";
  size_t n = 0;
  while (t->kind == FGR_ARRAY && n + 24 < sizeof dims) {
    n += (size_t)snprintf(dims + n, sizeof dims - n, "[%lld]",
                          (long long)t->count);
    t = t->of;
  }
  s = spell(tw, u, t);
  fgu_buf_printf(fgk_writer_helpers(tw), "typedef %s %s%s;\n", s ? s : "uchar", name,
                 s ? dims : "[1]");
}

/* The C dialect's own spelling of _Bool, around a script's text. */
static void renames(fgk_writer *tw, bool define) {
  if (!is_cl(tw))
    fgu_buf_puts(fgk_writer_helpers(tw), define ? "#define bool _Bool\n"
                                                : "#undef bool\n");
}

static bool rw_init(rw *w, fgk_writer *tw, const fgr_unit *u) {
  *w = (rw){.tw = tw, .u = u, .o = fgk_writer_helpers(tw), .cl = is_cl(tw),
            .raw_tok = -1, .out_line = -1};
  w->pre = calloc((size_t)u->n_toks + 1, sizeof *w->pre);
  w->rep = calloc((size_t)u->n_toks + 1, sizeof *w->rep);
  w->emit_fn = calloc((size_t)u->n_funcs + 1, sizeof *w->emit_fn);
  w->local = calloc((size_t)u->n_toks + 1, sizeof *w->local);
  w->vtype = calloc((size_t)u->n_toks + 1, sizeof *w->vtype);
  w->space = calloc((size_t)u->n_toks + 1, sizeof *w->space);
  w->pfirst = calloc((size_t)u->n_funcs + 1, sizeof *w->pfirst);
  int n_params = 0;
  for (int k = 0; w->pfirst && k < u->n_funcs; k++) {
    w->pfirst[k] = n_params;
    n_params += u->funcs[k].n_params;
  }
  w->pspace = calloc((size_t)n_params + 1, sizeof *w->pspace);
  w->open = calloc((size_t)u->n_toks + 1, sizeof *w->open);
  w->close = calloc((size_t)u->n_toks + 1, sizeof *w->close);
  if (!w->pre || !w->rep || !w->emit_fn || !w->local || !w->vtype ||
      !w->open ||
      !w->close) {
    fgk_writer_helpers(tw)->oom = 1;
    return false;
  }
  w->bol = !w->o->len || w->o->s[w->o->len - 1] == '\n';
  return true;
}

static void rw_free(rw *w) {
  free(w->pre);
  free(w->rep);
  free(w->emit_fn);
  free(w->local);
  free(w->vtype);
  free(w->space);
  free(w->pfirst);
  free(w->pspace);
  free(w->open);
  free(w->close);
  fgu_arena_free(&w->scratch);
}

/* Emits unit u's declarations into the kernel's helpers (once per
 * kernel): runtime, macros, types and constants, the globals block and
 * the environment. */
static void emit_head(fgk_writer *tw, const fgr_unit *u) {
  if (fgk_writer_first_use(tw, "fgk_rs_compat")) {
    /* the runtime's own arithmetic (rsMatrixMultiply) obeys the same rule
     * as the script's below */
    if (is_cl(tw) && fgk_writer_kernel(tw)->fp != FGK_FP_RELAXED)
      fgu_buf_puts(fgk_writer_helpers(tw), "#pragma OPENCL FP_CONTRACT OFF\n");
    if (!is_cl(tw))   /* C's float math calls the IR's routines */
      fgk_writer_use_math(tw);
    fgu_buf_puts(fgk_writer_helpers(tw), is_cl(tw) ? fgr_compat_cl : fgr_compat_c);
    fgu_buf_puts(fgk_writer_helpers(tw), fgr_matrix_common);
    fgu_buf_puts(fgk_writer_helpers(tw), is_cl(tw) ? fgr_matrix_cl : fgr_matrix_c);
    fgu_buf_puts(fgk_writer_helpers(tw), fgr_sample_rt);
    fgu_buf_puts(fgk_writer_helpers(tw), fgr_time_types);
    fgu_buf_puts(fgk_writer_helpers(tw), is_cl(tw) ? fgr_quaternion_cl
                                                   : fgr_quaternion_c);
    fgu_buf_puts(fgk_writer_helpers(tw), fgr_quaternion_rt);
  }
  if (u->uses_double) {
    fgk_writer_use_fp64(tw);
    if (is_cl(tw) && fgk_writer_first_use(tw, "fgk_rs_compat_f64"))
      fgu_buf_puts(fgk_writer_helpers(tw), fgr_compat_cl_f64);
  }
  if (!fgk_writer_first_use(tw, u->mangle))
    return;
  rw w;
  if (!rw_init(&w, tw, u)) {
    rw_free(&w);
    return;
  }
  fgu_buf_printf(fgk_writer_helpers(tw), "%s/* RenderScript script '%s' (%s) */\n",
                 w.bol ? "" : "\n", u->name, u->file);
  w.bol = true;
  /* full precision is RenderScript's rs_fp_full on both backends: no
   * contraction of a * b + c (the C dialect builds with
   * -ffp-contract=off; OpenCL C contracts unless told not to) */
  if (is_cl(tw) && fgk_writer_kernel(tw)->fp != FGK_FP_RELAXED)
    fgu_buf_puts(fgk_writer_helpers(tw), "#pragma OPENCL FP_CONTRACT OFF\n");
  renames(tw, true);
  /* pass 1: macros, types and constants, in source order */
  for (int k = 0; k < u->n_items; k++) {
    const fgr_item *it = &u->items[k];
    if (it->kind == FGR_I_DIRECTIVE ||
        (it->kind == FGR_I_TYPE && !(w.cl && it->no_cl))) {
      start_item(&w, it->tok0);
      tokens(&w, it->tok0, it->tok1);
    } else if (it->kind == FGR_I_GLOBAL && it->constant && !it->skip) {
      start_item(&w, it->tok0);
      put(&w, w.cl ? "__constant " : "");
      if (!w.cl && !fgr_tok_is(u, it->tok0, "static"))
        put(&w, "static ");
      tokens(&w, it->tok0, it->tok1);
    }
  }
  /* the reads and writes of each struct through pointers (compat.c's
   * FGK_RS_SGET), when the script has pointer globals */
  bool ptrs = false;
  for (int k = 0; k < u->n_globals; k++)
    ptrs |= u->globals[k].pointee != NULL;
  for (int k = 0; k < u->n_named && ptrs; k++) {
    const fgr_type *t = u->named[k].type;
    const char *sp = spell(tw, u, t);
    if (t->kind != FGR_STRUCT || t->size <= 0 || t->has_ptr || !sp ||
        struct_index(u, t) != k)
      continue;
    put(&w, w.bol ? "" : "\n");
    fgu_buf_printf(fgk_writer_helpers(tw), "typedef %s fgk_rs_S_%s%d;\n"
                   "FGK_RS_SGET(fgk_rs_S_%s%d)\n", sp, u->mangle, k,
                   u->mangle, k);
  }
  /* the globals block and the environment */
  put(&w, w.bol ? "" : "\n");
  fgu_buf_puts(fgk_writer_helpers(tw), "typedef struct {\n");
  for (int k = 0; k < u->n_globals; k++) {
    const fgr_global *g = &u->globals[k];
    if (!g->buffered)
      continue;
    const fgr_item *it = &u->items[g->item];
    start_item(&w, g->tok);
    for (int i = it->spec0; i < it->spec1; i++)
      if (!fgr_tok_is(u, i, "static") && !fgr_tok_is(u, i, "const") &&
          !fgr_tok_is(u, i, "volatile"))
        token(&w, i, false);
    /* a later declarator of `int a = 0,b = 0;` has no space before it */
    put(&w, " ");
    w.raw_tok = g->tok;
    /* an array its initializer sizes (`float map[] = {...}`) has the size
     * written out: the block holds no initializers */
    for (int i = g->decl0; i + 1 < g->decl1; i++)
      if (fgr_tok_is(u, i, "[") && fgr_tok_is(u, i + 1, "]") &&
          g->type->kind == FGR_ARRAY)
        w.pre[i + 1] = fgu_arena_printf(&((fgr_unit *)u)->arena, "%lld",
                                        (long long)g->type->count);
    tokens(&w, g->decl0, g->decl1);
    w.raw_tok = -1;
    put(&w, ";");
  }
  put(&w, w.bol ? "" : "\n");
  fgu_buf_printf(fgk_writer_helpers(tw), "  char fgk_pad;\n} %sG;\n", u->mangle);
  /* host code (invokables) writes the globals, and so do kernels whose
   * launch passes its copy of the block (fgr_call.written) */
  fgu_buf_printf(fgk_writer_helpers(tw), "typedef struct {\n  %s%sG *fgk_g;\n",
                 gq(tw), u->mangle);
  for (int k = 0; k < u->n_globals; k++)
    if (u->globals[k].alloc_index >= 0)
      fgu_buf_printf(fgk_writer_helpers(tw), "  rs_allocation %s;\n",
                     env_name(u, u->globals[k].name));
  /* the run's stop flag, which loops in function bodies poll (NULL in
   * host code, whose loops do not) */
  /* the point's rsRand state (compat.c; unused in host code), and a
   * legacy kernel's input field with the point's linear index in it */
  fgu_buf_puts(fgk_writer_helpers(tw), "  uint *fgk_rseed;\n"
               "  rs_allocation fgk_inp;\n  long fgk_lin;\n");
  fgu_buf_printf(fgk_writer_helpers(tw), "  %svolatile const int *fgk_stop;\n"
                 "} %senv;\n", gq(tw), u->mangle);
  renames(tw, false);
  rw_free(&w);
}

/* Emits the functions of u that roots reach and this kernel does not have
 * yet: their prototypes, then their definitions. */
static void emit_functions(fgk_writer *tw, const fgr_unit *u,
                           const fgr_func *const *roots, int n_roots) {
  emit_head(tw, u);
  rw w;
  if (!rw_init(&w, tw, u)) {
    rw_free(&w);
    return;
  }
  reachable(u, roots, n_roots, w.emit_fn);
  bool any = false;
  char key[200];
  for (int k = 0; k < u->n_funcs; k++) {
    if (!w.emit_fn[k])
      continue;
    snprintf(key, sizeof key, "%sfn_%d_%s", u->mangle, k, u->funcs[k].name);
    w.emit_fn[k] = fgk_writer_first_use(tw, key);
    if (w.emit_fn[k]) {
      mark_locals(&w, &u->funcs[k]);
      rewrite_divisions(&w, &u->funcs[k]);
      narrow_literals(&w, &u->funcs[k]);
      rewrite_untyped_gets(&w, &u->funcs[k]);
      rewrite_atomic_gets(&w, &u->funcs[k]);
      rewrite_untyped_ptrs(&w, &u->funcs[k]);
      rewrite_conversions(&w, &u->funcs[k]);
      w.fn = &u->funcs[k];      /* its parameters hide globals */
      rewrite_pointer_reads(&w, &u->funcs[k]);
      w.fn = NULL;
      any = true;
    }
  }
  if (!any) {
    rw_free(&w);
    return;
  }
  put(&w, w.bol ? "" : "\n");
  emit_converters(&w);
  renames(tw, true);
  /* prototypes, then the functions */
  for (int k = 0; k < u->n_funcs; k++) {
    const fgr_func *f = &u->funcs[k];
    if (!w.emit_fn[k])
      continue;
    w.fn = f;
    mark_params(&w, f);
    start_item(&w, f->tok0);
    tokens(&w, f->tok0, f->rparen + 1);
    put(&w, ";");
    w.pre[f->rparen] = NULL;
    w.rep[f->lparen + 1] = NULL;
  }
  for (int k = 0; k < u->n_funcs; k++) {
    const fgr_func *f = &u->funcs[k];
    if (!w.emit_fn[k])
      continue;
    w.fn = f;
    mark_params(&w, f);
    start_item(&w, f->tok0);
    tokens(&w, f->tok0, f->tok1);
  }
  w.fn = NULL;
  put(&w, w.bol ? "" : "\n");
  renames(tw, false);
  fgu_buf_puts(fgk_writer_helpers(tw), "/* end of script */\n");
  rw_free(&w);
}

/* ---- wrappers ----------------------------------------------------------- */

/* Parameters carrying the environment: the globals block and each
 * allocation's data and extents. */
static void env_params(fgk_writer *tw, const fgr_unit *u, fgu_buf *h) {
  fgu_buf_printf(h, "%sconst uchar *fgk_gb", gq(tw));
  for (int k = 0; k < u->n_allocs; k++)
    fgu_buf_printf(h, ", %sconst uchar *fgk_a%d, long fgk_a%dx, "
                   "long fgk_a%dy, long fgk_a%dz", gq(tw), k, k, k, k);
  fgu_buf_printf(h, ", %svolatile const int *fgk_stop", gq(tw));
}

static void env_args(const fgr_unit *u, fgu_buf *h) {
  fgu_buf_puts(h, "fgk_gb");
  for (int k = 0; k < u->n_allocs; k++)
    fgu_buf_printf(h, ", fgk_a%d, fgk_a%dx, fgk_a%dy, fgk_a%dz", k, k, k, k);
  fgu_buf_puts(h, ", fgk_stop");
}

static void env_setup(fgk_writer *tw, const fgr_unit *u, fgu_buf *h) {
  fgu_buf_printf(h, "  %senv fgk_envv;\n  fgk_envv.fgk_g = (%s%sG *)"
                 "fgk_gb;\n  fgk_envv.fgk_stop = fgk_stop;\n"
                 "  uint fgk_rseedv = 0u;\n  fgk_envv.fgk_rseed = &fgk_rseedv;\n"
                 "  (void)fgk_rseedv;\n", u->mangle, gq(tw), u->mangle);
  for (int k = 0; k < u->n_globals; k++) {
    int a = u->globals[k].alloc_index;
    if (a >= 0)
      fgu_buf_printf(h, "  fgk_envv.%s = fgk_rs_alloc(fgk_a%d, fgk_a%dx, "
                     "fgk_a%dy, fgk_a%dz);\n", env_name(u, u->globals[k].name),
                     a, a, a, a);
  }
}

/* Arguments of f's call from a wrapper whose inputs are fgk_i<k> and
 * whose specials are fgk_x, fgk_y, fgk_z and fgk_ctx; first is the
 * parameter the inputs start at. */
static bool is_special(const fgr_func *f, int p) {
  for (int k = 0; k < FGR_SPECIAL_COUNT_; k++)
    if (f->special[k] == p)
      return true;
  return false;
}

static void call_args(const fgr_func *f, int first, fgu_buf *h) {
  static const char *const sp[FGR_SPECIAL_COUNT_] = {"fgk_x", "fgk_y",
                                                     "fgk_z", "fgk_ctx"};
  int in = 0;
  for (int p = first; p < f->n_params; p++) {
    const char *s = NULL;
    for (int k = 0; k < FGR_SPECIAL_COUNT_; k++)
      if (f->special[k] == p)
        s = sp[k];
    if (s)
      fgu_buf_printf(h, "%s, ", s);
    else if (f->params[p].type->kind == FGR_STRUCT)
      fgu_buf_printf(h, "fgk_c%d.s, ", in++);
    else
      fgu_buf_printf(h, "fgk_i%d, ", in++);
  }
  fgu_buf_puts(h, "&fgk_envv");
}

/* A struct travels between kernels in a field of its carrier type (see
 * fgr_type_carrier): a union turns input fgk_i<k> of struct parameters
 * back into the struct, fgk_c<k>.s. */
static void struct_inputs(fgk_writer *tw, const fgr_unit *u,
                          const fgr_func *f, int first, const fg_expr *x,
                          fgu_buf *h) {
  int in = 0;
  for (int p = first; p < f->n_params; p++) {
    if (is_special(f, p) || (f->legacy && p != f->legacy_in))
      continue;
    if (f->params[p].type->kind == FGR_STRUCT)
      fgu_buf_printf(h, "  union { %s s; %s v; } fgk_c%d;\n  fgk_c%d.v = "
                     "fgk_i%d;\n", spell(tw, u, f->params[p].type),
                     fgk_writer_type(tw, x->u.foreign.arg[in]->type), in, in, in);
    in++;
  }
}

static const char special_params[] =
  "int fgk_x, int fgk_y, int fgk_z, long fgk_dx, long fgk_dy, long fgk_dz";
static const char special_setup[] =
  "  rs_kernel_context fgk_ctx = fgk_rs_ctx(fgk_dx, fgk_dy, fgk_dz);\n"
  "  (void)fgk_ctx; (void)fgk_x; (void)fgk_y; (void)fgk_z;\n";

/* The specials' set-up of a wrapper calling f, and the point's rsRand
 * state when f reaches rsRand (a hash per point that no other kernel
 * pays for). */
static void specials_setup(const fgr_unit *u, const fgr_func *f,
                           fgu_buf *h) {
  fgu_buf_puts(h, special_setup);
  if (fgr_func_mention(u, f, "rsRand", false) >= 0)
    fgu_buf_puts(h, "  fgk_rseedv = fgk_rs_seed((uint)fgk_x, (uint)fgk_y, "
                 "(uint)fgk_z);\n");
}

static void acc_types(fgk_writer *tw, const fgr_unit *u,
                      const fgr_reduce *r) {
  char name[160];
  snprintf(name, sizeof name, "%sA_%s", u->mangle, r->name);
  if (fgk_writer_first_use(tw, name)) {
    typedef_of(tw, u, r->acc_type, name);
    snprintf(name, sizeof name, "%sR_%s", u->mangle, r->name);
    typedef_of(tw, u, r->res_type, name);
  }
}

static void init_wrapper(fgk_writer *tw, const fgr_unit *u,
                         const fgr_reduce *r) {
  char name[160];
  snprintf(name, sizeof name, "%sinit_%s", u->mangle, r->name);
  if (!fgk_writer_first_use(tw, name))
    return;
  fgu_buf *h = fgk_writer_helpers(tw);
  fgu_buf_printf(h, "static inline void %s(%sA_%s *fgk_a, ", name, u->mangle,
                 r->name);
  env_params(tw, u, h);
  fgu_buf_puts(h, ") {\n");
  env_setup(tw, u, h);
  if (r->init)
    fgu_buf_printf(h, "  %s%s(fgk_a, &fgk_envv);\n", u->mangle,
                   r->init->name);
  else if (!is_cl(tw))
    fgu_buf_puts(h, "  (void)fgk_envv;\n  memset(fgk_a, 0, sizeof *fgk_a);\n");
  else if (r->acc_type->kind == FGR_NUM)
    fgu_buf_printf(h, "  (void)fgk_envv;\n  *fgk_a = (%s)(0);\n",
                   spell(tw, u, r->acc_type));
  else
    fgu_buf_puts(h, "  (void)fgk_envv;\n  for (ulong fgk_k = 0; fgk_k < "
                 "sizeof(*fgk_a); fgk_k++)\n    ((uchar *)fgk_a)[fgk_k] = "
                 "0;\n");
  fgu_buf_puts(h, "}\n");
}

/* The body of a legacy root()'s wrapper: its output starts as operand
 * base (fgk_i<base>: the output Allocation's contents, fgr_call.out_base),
 * or zeros when base < 0 (fg_rs_map makes a new field), the input is
 * passed by address, usrData is NULL, and what root() wrote through its
 * output pointer is the value. */
static void legacy_call(fgk_writer *tw, const fgr_unit *u, const fgr_func *f,
                        const char *rt, int base, fgu_buf *h) {
  static const char *const sp[3] = {"fgk_x", "fgk_y", "fgk_z"};
  bool out = f->legacy_out >= 0;
  if (out)
    fgu_buf_printf(h, "  union { %s s; %s v; } fgk_r;\n",
                   spell(tw, u, f->ret), rt);
  if (out && base >= 0)
    fgu_buf_printf(h, "  fgk_r.v = fgk_i%d;\n", base);
  else if (out && is_cl(tw))
    fgu_buf_printf(h, "  fgk_r.v = (%s)(0);\n", rt);
  else if (out)
    fgu_buf_puts(h, "  memset(&fgk_r, 0, sizeof fgk_r);\n");
  fgu_buf_printf(h, "  %s%s(", u->mangle, f->name);
  for (int p = 0; p < f->n_params; p++) {
    if (p == f->legacy_in)
      fgu_buf_puts(h, f->params[p].type->kind == FGR_STRUCT ? "&fgk_c0.s, "
                                                            : "&fgk_i0, ");
    else if (p == f->legacy_out)
      fgu_buf_puts(h, "&fgk_r.s, ");
    else if (p == f->legacy_usr)
      fgu_buf_puts(h, "0, ");
    for (int k = 0; k < 3; k++)
      if (f->special[k] == p)
        fgu_buf_printf(h, "%s, ", sp[k]);
  }
  if (out)
    fgu_buf_puts(h, "&fgk_envv);\n  return fgk_r.v;\n}\n");
  else      /* it only sets elements: the call's value is unused */
    fgu_buf_printf(h, "&fgk_envv);\n  return (%s)(0);\n}\n", rt);
}

/* What foreign call x calls (the payload nodes.c gave it). */
static const fgr_call *call_of(const fg_expr *x) {
  return x->u.foreign.payload;
}

/* The wrapper a call of kind call_of(x)->kind goes through; writes its
 * name into name. */
static void wrapper(fgk_writer *tw, const fg_expr *x, char *name,
                    size_t size) {
  const fgr_call *c = call_of(x);
  const fgr_unit *u = c->u;
  fgu_buf *h = fgk_writer_helpers(tw);
  if (c->kind == FGR_CALL_MAP) {
    const fgr_func *f = c->fn;
    snprintf(name, size, "%smap%s_%s", u->mangle, c->out_base ? "b" : "",
             f->name);
    if (!fgk_writer_first_use(tw, name))
      return;
    /* the call's type: the kernel's, or a struct's carrier */
    const char *rt = fgk_writer_type(tw, x->type);
    bool st = f->ret->kind == FGR_STRUCT;
    fgu_buf_printf(h, "static inline %s %s(", rt, name);
    for (int k = 0; k < x->u.foreign.n; k++)
      fgu_buf_printf(h, "%s fgk_i%d, ", fgk_writer_type(tw, x->u.foreign.arg[k]->type),
                     k);
    fgu_buf_printf(h, "%s, ", special_params);
    env_params(tw, u, h);
    if (f->legacy_in_indexed)
      fgu_buf_printf(h, ", %sconst uchar *fgk_ip, long fgk_ipx, long fgk_ipy, "
                     "long fgk_ipz", gq(tw));
    fgu_buf_puts(h, ") {\n");
    env_setup(tw, u, h);
    specials_setup(u, f, h);
    if (f->legacy_in_indexed)
      fgu_buf_puts(h, "  fgk_envv.fgk_inp = fgk_rs_alloc(fgk_ip, fgk_ipx, "
                   "fgk_ipy, fgk_ipz);\n"
                   "  fgk_envv.fgk_lin = ((long)fgk_z * (fgk_ipy > 0 ? fgk_ipy "
                   ": 1) + fgk_y) * fgk_ipx + fgk_x;\n");
    struct_inputs(tw, u, f, 0, x, h);
    if (f->legacy) {
      legacy_call(tw, u, f, rt, c->out_base ? x->u.foreign.n - 1 : -1, h);
      return;
    }
    bool v = f->ret->kind == FGR_VOID;
    if (st)
      fgu_buf_printf(h, "  union { %s s; %s v; } fgk_r;\n  fgk_r.s = ",
                     spell(tw, u, f->ret), rt);
    else
      fgu_buf_puts(h, v ? "  " : "  return ");
    fgu_buf_printf(h, "%s%s(", u->mangle, f->name);
    call_args(f, 0, h);
    if (v)    /* it only sets elements: the call's value is unused */
      fgu_buf_printf(h, ");\n  return (%s)(0);\n}\n", rt);
    else
      fgu_buf_puts(h, st ? ");\n  return fgk_r.v;\n}\n" : ");\n}\n");
    return;
  }
  if (c->kind == FGR_CALL_INVOKE) {
    /* one thread: the function over its allocations and the values of
     * its numeric and bool parameters (each a constant field of its
     * bytes, copied into a local of its type), then nothing */
    const fgr_func *f = c->fn;
    snprintf(name, size, "%sinv_%s", u->mangle, f->name);
    if (!fgk_writer_first_use(tw, name))
      return;
    fgu_buf_printf(h, "static inline uchar %s(%s, ", name, special_params);
    env_params(tw, u, h);
    for (int p = 0; p < f->n_params; p++)
      if (f->params[p].type->kind == FGR_ALLOC)
        fgu_buf_printf(h, ", %sconst uchar *fgk_p%d, long fgk_p%dx, "
                       "long fgk_p%dy, long fgk_p%dz", gq(tw), p, p, p, p);
      else
        fgu_buf_printf(h, ", %sconst uchar *fgk_p%d", gq(tw), p);
    fgu_buf_puts(h, ") {\n");
    env_setup(tw, u, h);
    specials_setup(u, f, h);
    for (int p = 0; p < f->n_params; p++) {
      const fgr_type *t = f->params[p].type;
      if (t->kind == FGR_BOOL)
        fgu_buf_printf(h, "  %s fgk_s%d = fgk_p%d[0] != 0;\n",
                       spell(tw, u, t), p, p);
      else if (t->kind != FGR_ALLOC)
        fgu_buf_printf(h, "  %s fgk_s%d;\n  for (ulong fgk_k = 0; fgk_k < "
                       "sizeof fgk_s%d && fgk_k < %lldul; fgk_k++)\n"
                       "    ((uchar *)&fgk_s%d)[fgk_k] = fgk_p%d[fgk_k];\n",
                       spell(tw, u, t), p, p, (long long)t->size, p, p);
    }
    fgu_buf_printf(h, "  %s%s(", u->mangle, f->name);
    for (int p = 0; p < f->n_params; p++)
      if (f->params[p].type->kind == FGR_ALLOC)
        fgu_buf_printf(h, "fgk_rs_alloc(fgk_p%d, fgk_p%dx, fgk_p%dy, "
                       "fgk_p%dz), ", p, p, p, p);
      else
        fgu_buf_printf(h, "fgk_s%d, ", p);
    fgu_buf_puts(h, "&fgk_envv);\n  return (uchar)0;\n}\n");
    return;
  }
  const fgr_reduce *r = c->red;
  acc_types(tw, u, r);
  init_wrapper(tw, u, r);
  if (c->kind == FGR_CALL_ACC) {
    snprintf(name, size, "%sacc_%s", u->mangle, r->name);
    if (!fgk_writer_first_use(tw, name))
      return;
    fgu_buf_printf(h, "static inline void %s(%sA_%s *fgk_a, ", name,
                   u->mangle, r->name);
    for (int k = 0; k < x->u.foreign.n; k++)
      fgu_buf_printf(h, "%s fgk_i%d, ", fgk_writer_type(tw, x->u.foreign.arg[k]->type),
                     k);
    fgu_buf_printf(h, "%s, ", special_params);
    env_params(tw, u, h);
    fgu_buf_puts(h, ") {\n");
    env_setup(tw, u, h);
    specials_setup(u, r->accum, h);
    struct_inputs(tw, u, r->accum, 1, x, h);
    fgu_buf_printf(h, "  %s%s(fgk_a, ", u->mangle, r->accum->name);
    call_args(r->accum, 1, h);
    fgu_buf_puts(h, ");\n}\n");
    /* storing a partial into the record: [0] the count, then the items */
    char store[160];
    snprintf(store, sizeof store, "%sstore_%s", u->mangle, r->name);
    fgu_buf_printf(h, "static inline void %s(const %sA_%s *fgk_a, %suchar "
                   "*fgk_rec, long fgk_p, long fgk_P) {\n"
                   "  if (fgk_p == 0)\n    ((%slong *)fgk_rec)[0] = fgk_P;\n"
                   "  if (fgk_p >= %d)\n    return;\n"
                   "  %suchar *fgk_d = fgk_rec + 16 + fgk_p * (long)"
                   "sizeof(*fgk_a);\n",
                   store, u->mangle, r->name, gq(tw), gq(tw), FGK_MAX_PARTIALS,
                   gq(tw));
    /* a byte-wise copy would make clang split the accumulator into bytes
     * (SROA follows every access) and reassemble it at every element: the
     * copy is one memcpy, or one typed store of a scalar or vector (the
     * record's items of up to 16 bytes are aligned to their size) */
    if (!is_cl(tw))
      fgu_buf_puts(h, "  memcpy(fgk_d, fgk_a, sizeof *fgk_a);\n}\n");
    else if (r->acc_type->kind == FGR_NUM && r->acc_type->size <= 16)
      fgu_buf_printf(h, "  *(__global %s *)fgk_d = *fgk_a;\n}\n",
                     spell(tw, u, r->acc_type));
    else
      fgu_buf_puts(h, "  for (ulong fgk_k = 0; fgk_k < sizeof(*fgk_a); "
                   "fgk_k++)\n"
                   "    fgk_d[fgk_k] = ((const uchar *)fgk_a)[fgk_k];\n}\n");
    return;
  }
  /* FOLD: every partial combined into an initialized item, then the
   * outconverter; one thread */
  snprintf(name, size, "%sfold_%s", u->mangle, r->name);
  if (!fgk_writer_first_use(tw, name))
    return;
  fgu_buf_printf(h, "static void %s(%sconst uchar *fgk_rec, %suchar *fgk_res, "
                 "long fgk_bytes, ", name, gq(tw), gq(tw));
  env_params(tw, u, h);
  fgu_buf_puts(h, ") {\n");
  env_setup(tw, u, h);
  fgu_buf_printf(h, "  %sA_%s fgk_acc, fgk_other;\n  %sR_%s fgk_out;\n",
                 u->mangle, r->name, u->mangle, r->name);
  fgu_buf_printf(h, "  %sinit_%s(&fgk_acc, ", u->mangle, r->name);
  env_args(u, h);
  fgu_buf_printf(h, ");\n  const long fgk_P = ((%sconst long *)fgk_rec)[0];\n"
                 "  for (long fgk_p = 0; fgk_p < fgk_P && fgk_p < %d; "
                 "fgk_p++) {\n"
                 "    for (ulong fgk_k = 0; fgk_k < sizeof fgk_other; "
                 "fgk_k++)\n"
                 "      ((uchar *)&fgk_other)[fgk_k] = fgk_rec[16 + fgk_p * "
                 "(long)sizeof fgk_other + fgk_k];\n", gq(tw),
                 FGK_MAX_PARTIALS);
  if (r->comb)
    fgu_buf_printf(h, "    %s%s(&fgk_acc, &fgk_other, &fgk_envv);\n",
                   u->mangle, r->comb->name);
  else
    fgu_buf_printf(h, "    %s%s(&fgk_acc, fgk_other, &fgk_envv);\n",
                   u->mangle, r->accum->name);
  fgu_buf_puts(h, "  }\n");
  if (r->outc)
    fgu_buf_printf(h, "  %s%s(&fgk_out, &fgk_acc, &fgk_envv);\n", u->mangle,
                   r->outc->name);
  else
    fgu_buf_puts(h, "  for (ulong fgk_k = 0; fgk_k < sizeof fgk_out; "
                 "fgk_k++)\n    ((uchar *)&fgk_out)[fgk_k] = ((uchar *)"
                 "&fgk_acc)[fgk_k];\n");
  fgu_buf_puts(h, "  for (long fgk_k = 0; fgk_k < fgk_bytes && fgk_k < "
               "(long)sizeof fgk_out; fgk_k++)\n"
               "    fgk_res[fgk_k] = ((uchar *)&fgk_out)[fgk_k];\n}\n");
}

/* ---- call sites --------------------------------------------------------- */

/* An allocation's arguments at a call site: the buffer of input or output
 * port p and its extents (x, y, z; 0 past the field's dimensions). */
static void alloc_arg(fgk_writer *tw, bool out, int p) {
  const fgk_kernel *k = fgk_writer_kernel(tw);
  const char *pre = out ? "out" : "in";
  int nd = out ? k->out_type[p].field.ndim : k->in_type[p].field.ndim;
  static const char *const ax[3] = {"_C", "_R", "_L"};
  fgk_writer_printf(tw, "(%sconst uchar *)%s%d", gq(tw), pre, p);
  for (int a = 0; a < 3; a++)
    if (nd > a)
      fgk_writer_printf(tw, ", %s%d%s", pre, p, ax[a]);
    else
      fgk_writer_put(tw, ", (long)0");
}

/* The output through which call x writes its port slot k (fgr_call's
 * written), or -1 when it only reads it. */
static int written_out(const fg_expr *x, int k) {
  const fgr_call *c = call_of(x);
  for (int i = 0; i < c->n_written && i < x->u.foreign.n_outs; i++)
    if (c->written[i] == k)
      return x->u.foreign.out_port[i];
  return -1;
}

/* The environment's arguments at a call site: the ports of x. */
static void port_args(fgk_writer *tw, const fg_expr *x) {
  const fgr_call *c = call_of(x);
  const fgr_unit *u = c->u;
  for (int k = 0; k <= u->n_allocs; k++) {
    int p = x->u.foreign.port[k];
    int o = c->kind == FGR_CALL_MAP || c->kind == FGR_CALL_INVOKE
                ? written_out(x, k) : -1;
    if (k)
      fgk_writer_put(tw, ", ");
    if (!k && o >= 0)
      /* the launch's copy of the globals block, which its threads write */
      fgk_writer_printf(tw, "(%sconst uchar *)out%d", gq(tw), o);
    else if (o >= 0)
      /* an allocation the kernel sets elements of: its copy, an output
       * (written through the const pointer the environment holds) */
      alloc_arg(tw, true, o);
    else if (p < 0)
      fgk_writer_put(tw, k ? "0, 0, 0, 0" : "0");
    else if (k)
      alloc_arg(tw, false, p);
    else
      fgk_writer_printf(tw, "(%sconst uchar *)in%d", gq(tw), p);
  }
  fgk_writer_put(tw, ", fgk_stop");   /* the kernel's (emit/abi.h) */
  /* an invokable run as one thread: its rs_allocation parameters, and
   * the constant fields of its other parameters' values */
  for (int q = 0; c->kind == FGR_CALL_INVOKE && q < c->fn->n_params; q++) {
    int p = x->u.foreign.port[1 + u->n_allocs + q];
    int o = written_out(x, 1 + u->n_allocs + q);
    fgk_writer_put(tw, ", ");
    if (c->fn->params[q].type->kind != FGR_ALLOC)
      fgk_writer_printf(tw, "(%sconst uchar *)in%d", gq(tw), p);
    else if (o >= 0)
      alloc_arg(tw, true, o);
    else if (p >= 0)
      alloc_arg(tw, false, p);
    else
      fgk_writer_put(tw, "0, 0, 0, 0");
  }
}

static void special_args(fgk_writer *tw) {
  int nd = fgk_writer_kernel(tw)->threads.ndim;
  fgk_writer_printf(tw, "_column, _row, _layer, %s, %s, %s, ",
           nd >= 1 ? "(long)_columns" : "0L", nd >= 2 ? "(long)_rows" : "0L",
           nd >= 3 ? "(long)_layers" : "0L");
}

/* The hooks: the call itself, and for the accumulate call of a reduction
 * the script-typed accumulator of a partial and its store into the
 * partials record. */
static void hook_emit(fgk_writer *tw, const fg_expr *x) {
  const fgr_call *c = call_of(x);
  if (c->kind == FGR_CALL_MAP || c->kind == FGR_CALL_INVOKE) {
    emit_functions(tw, c->u, &c->fn, 1);
  } else {
    const fgr_func *roots[4] = {c->red->init, c->red->accum, c->red->comb,
                                c->red->outc};
    emit_functions(tw, c->u, roots, 4);
  }
  char name[200];
  wrapper(tw, x, name, sizeof name);
  if (c->kind == FGR_CALL_INVOKE) {
    fgk_writer_printf(tw, "%s(", name);
    special_args(tw);
    port_args(tw, x);
    fgk_writer_put(tw, ")");
    return;
  }
  if (c->kind == FGR_CALL_FOLD) {
    int rec = x->u.foreign.port[c->u->n_allocs + 1];
    fgk_writer_printf(tw, "%s((%sconst uchar *)in%d, (%suchar *)out%d, %lldL, ", name,
             gq(tw), rec, gq(tw), x->u.foreign.out_port[0],
             (long long)c->result_bytes);
    port_args(tw, x);
    fgk_writer_put(tw, ")");
    return;
  }
  if (c->kind == FGR_CALL_ACC) {
    if (c->ranged) {
      static const char *const ax[3] = {"_column", "_row", "_layer"};
      fgk_writer_put(tw, "if (1");
      for (int k = 0; k < 3; k++)
        if (c->range[k][1] > 0)
          fgk_writer_printf(tw, " && %s >= %lld && %s < %lld", ax[k],
                   (long long)c->range[k][0], ax[k],
                   (long long)c->range[k][1]);
      fgk_writer_put(tw, ") ");
    }
    fgk_writer_printf(tw, "%s(&fgk_acc, ", name);
  } else {
    fgk_writer_printf(tw, "%s(", name);
  }
  for (int k = 0; k < x->u.foreign.n; k++) {
    fgk_writer_expr(tw, x->u.foreign.arg[k]);
    fgk_writer_put(tw, ", ");
  }
  special_args(tw);
  port_args(tw, x);
  /* a legacy kernel reading other elements through its input pointer:
   * the input field whole (the port after the environment's) */
  if (c->kind == FGR_CALL_MAP && c->fn->legacy_in_indexed) {
    fgk_writer_put(tw, ", ");
    alloc_arg(tw, false, x->u.foreign.port[1 + c->u->n_allocs]);
  }
  fgk_writer_put(tw, ")");
}

static void hook_acc_decl(fgk_writer *tw, const fg_expr *x) {
  const fgr_call *c = call_of(x);
  fgk_writer_printf(tw, "    %sA_%s fgk_acc;\n    %sinit_%s(&fgk_acc, ",
                    c->u->mangle, c->red->name, c->u->mangle, c->red->name);
  port_args(tw, x);
  fgk_writer_put(tw, ");\n");
}

static void hook_store_partial(fgk_writer *tw, const fg_expr *x, int port) {
  const fgr_call *c = call_of(x);
  fgk_writer_printf(tw, "%sstore_%s(&fgk_acc, out%d, fgk_p, fgk_P);\n",
                    c->u->mangle, c->red->name, port);
}

static bool hook_uses_fp64(const fg_expr *x) {
  return call_of(x)->u->uses_double;
}

const fgk_foreign_i fgr_foreign = {
  .name = "RenderScript",
  .uses_fp64 = hook_uses_fp64,
  .emit = hook_emit,
  .acc_decl = hook_acc_decl,
  .store_partial = hook_store_partial,
};

/* ---- host code ---------------------------------------------------------- */

bool fgr_host_param_ok(const fgr_param *p) {
  return p->ptr == 0 && p->type &&
         (p->type->kind == FGR_NUM || p->type->kind == FGR_BOOL ||
          p->type->kind == FGR_STRUCT);
}

void fgr_emit_host(fgk_writer *tw, const fgr_unit *u,
                   const fgr_func *const *fns, int n) {
  emit_functions(tw, u, fns, n);
  fgu_buf *h = fgk_writer_helpers(tw);
  for (int k = 0; k < n; k++) {
    const fgr_func *f = fns[k];
    fgu_buf_printf(h, "void fgk_rs_invoke_%s(void *fgk_gb, const void *const "
                   "*fgk_a, void *fgk_h) {\n  fgk_rs_h = fgk_h;\n  %senv fgk_envv;\n  memset(&fgk_envv, 0, "
                   "sizeof fgk_envv);\n  fgk_envv.fgk_g = (%sG *)fgk_gb;\n"
                   "  (void)fgk_a;\n", f->name, u->mangle, u->mangle);
    for (int j = 0; j < u->n_globals; j++) {
      int a = u->globals[j].alloc_index;
      if (a >= 0)
        fgu_buf_printf(h, "  fgk_envv.%s = fgk_rs_alloc(0, fgk_rs_h->dims[%d], "
                       "fgk_rs_h->dims[%d], fgk_rs_h->dims[%d]);\n",
                       env_name(u, u->globals[j].name), 3 * a, 3 * a + 1,
                       3 * a + 2);
    }
    fgu_buf_printf(h, "  %s%s(", u->mangle, f->name);
    for (int p = 0; p < f->n_params; p++) {
      const char *t = spell(tw, u, f->params[p].type);
      fgu_buf_printf(h, "*(const %s *)fgk_a[%d], ", t ? t : "int", p);
    }
    fgu_buf_puts(h, "&fgk_envv);\n}\n");
  }
}
