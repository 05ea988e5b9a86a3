/* rs/host.c - a script's invokable functions and init() run on the host,
 * as the Android runtime runs them: with the script's globals.
 *
 * The invokables the host can run (fgr_host_why) are written as host C
 * by the same rewriting that carries a script into a kernel
 * (fgr_emit_host: every global a member of the globals block, reached
 * through the environment), after the C dialect's RenderScript runtime,
 * compiled once by clang into a shared object cached on disk by a hash of
 * its source (DIR/rs/<hash>.so, DIR the kernel cache's directory) and
 * loaded, by the toolchain (toolchain/cc.c) as CPU kernels are.  A call passes the script values of the globals
 * (the unit's live block): what an invokable writes there, static
 * globals included, is what later runs of kernels see, exactly like a
 * value fg_rs_set wrote.  The C values (fg_rs_get) keep what the host
 * set, as Java's getters do on Android.  init() runs when the script is
 * created; a script whose init() cannot run is refused at load, naming
 * why at its line, rather than running its kernels with initializers
 * that init() was meant to replace. */
#define _GNU_SOURCE
#include "config.h"
#include "rs-host/host.h"
#include "emit/emit.h"
#include "runtime/env.h"
#include "toolchain/toolchain.h"
#include "util/fs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- which functions run on the host ------------------------------------ */

static bool in_reduction(const fgr_unit *u, const fgr_func *f) {
  for (int k = 0; k < u->n_reduces; k++) {
    const fgr_reduce *r = &u->reduces[k];
    if (r->init == f || r->accum == f || r->comb == f || r->outc == f)
      return true;
  }
  return false;
}

const char *fgr_host_why(const fgr_unit *u, const fgr_func *f, int *tok) {
  *tok = f->name_tok;
  if (!f->has_body)
    return "has no body";
  if (f->is_kernel)
    return "is a kernel (launch it with fg_rs_map)";
  if (in_reduction(u, f))
    return "belongs to a reduction kernel";
  if (f->overloadable)
    return "is overloaded (__attribute__((overloadable))): an invokable has "
           "one definition to call by name";
  for (int p = 0; p < f->n_params; p++) {
    const fgr_param *q = &f->params[p];
    if (fgr_host_param_ok(q))
      continue;
    *tok = q->tok;
    if (q->ptr == 0 && q->type && q->type->kind == FGR_ALLOC)
      return "takes an rs_allocation (fg_rs_invoke runs such invokables "
             "as part of a graph)";
    return "takes a parameter that is not a scalar, vector or struct";
  }
  const fgr_func *roots[1] = {f};
  const fgr_bad_global *bad = NULL;
  int t = fgr_bad_global_use(u, roots, 1, &bad);
  if (t >= 0) {
    *tok = t;
    return bad->why;
  }
  bool *seen = calloc((size_t)u->n_funcs + 1, 1);
  if (seen) {
    fgr_reach(u, roots, 1, seen);
    for (int k = 0; k < u->n_funcs && t < 0; k++)
      if (seen[k])
        t = fgr_first_unsupported(u, &u->funcs[k], true);
    free(seen);
  }
  if (t >= 0) {
    *tok = t;
    if (fgr_tok_is(u, t, "rsForEach") ||
        fgr_tok_is(u, t, "rsForEachWithOptions"))
      return "launches a kernel (fg_rs_invoke runs such invokables as part "
             "of a graph)";
    return "calls a function that fieldgraph's RenderScript runtime does "
           "not provide";
  }
  /* an rs_allocation global reaches the host as its dimensions only (its
   * binding's, or in a graph invokable the allocation's there) */
  static const char *const alloc_calls[] = {"rsGetElementAt",
                                            "rsSetElementAt", NULL};
  for (int k = 0; alloc_calls[k]; k++) {
    t = fgr_func_mention(u, f, alloc_calls[k], true);
    if (t >= 0) {
      *tok = t;
      return "reads or writes an allocation's elements, which invokables "
             "cannot do on the host";
    }
  }
  /* a pointer global's elements are those of the field bound to it; the
   * host only gives one another's memory (fgr_ptr_alias, host_aliases) */
  char buf[512];
  const char *why = NULL;
  t = fgr_ptr_host_use(u, f, &why, buf, sizeof buf);
  if (t >= 0) {
    *tok = t;
    if (why != buf)
      return why;
    /* kept with the unit: a caller may hold the message */
    why = fgu_arena_strdup(&((fgr_unit *)u)->arena, buf);
    return why ? why : "out of memory";
  }
  return NULL;
}

/* ---- a writer of host code ---------------------------------------------- */

typedef struct host_writer {
  fgk_writer w;
  fgu_buf *b;
  fgu_arena names;
  const char **seen;
  int n_seen, cap;
  bool oom;
} host_writer;

static void hw_put(fgk_writer *w, const char *s) {
  fgu_buf_puts(((host_writer *)w)->b, s);
}
static void hw_vprintf(fgk_writer *w, const char *fmt, va_list ap) {
  fgu_buf_vprintf(((host_writer *)w)->b, fmt, ap);
}
static void hw_expr(fgk_writer *w, const fg_expr *x) {
  (void)x;
  ((host_writer *)w)->oom = true;    /* host code has no IR operands */
}
static const char *hw_type(fgk_writer *w, fgk_type t) {
  (void)w;
  if (t.width == 1 && t.elem == FG_I8)
    return "schar";
  if (t.width == 1 && t.elem == FG_BOOL)
    return "_Bool";
  if (t.elem == FG_I8)
    return t.width == 2 ? "char2" : t.width == 3 ? "char3" : "char4";
  return fgk_type_name(t);
}
static fgk_dialect hw_dialect(fgk_writer *w) {
  (void)w;
  return FGK_DIALECT_C;
}
static const fgk_kernel *hw_kernel(fgk_writer *w) {
  (void)w;
  return NULL;
}
static fgu_buf *hw_helpers(fgk_writer *w) { return ((host_writer *)w)->b; }
static bool hw_first_use(fgk_writer *w, const char *name) {
  host_writer *h = (host_writer *)w;
  for (int k = 0; k < h->n_seen; k++)
    if (!strcmp(h->seen[k], name))
      return false;
  if (h->n_seen == h->cap) {
    int cap = h->cap ? 2 * h->cap : 32;
    const char **n = realloc(h->seen, (size_t)cap * sizeof *n);
    if (!n) {
      h->oom = true;
      return false;
    }
    h->seen = n;
    h->cap = cap;
  }
  const char *c = fgu_arena_strdup(&h->names, name);
  if (!c) {
    h->oom = true;
    return false;
  }
  h->seen[h->n_seen++] = c;
  return true;
}
static void hw_use_fp64(fgk_writer *w) { (void)w; }
static void hw_use_math(fgk_writer *w) {
  if (hw_first_use(w, "fgk_math_text"))
    fge_math_c_text(((host_writer *)w)->b);
}

static const fgk_writer_i host_writer_i = {
  .put = hw_put, .vprintf = hw_vprintf, .expr = hw_expr,
  .type_name = hw_type, .dialect = hw_dialect, .kernel = hw_kernel,
  .helpers = hw_helpers, .first_use = hw_first_use, .use_fp64 = hw_use_fp64,
  .use_math = hw_use_math};

/* The host's side of the runtime, after the C types every C source
 * begins with (fgk_c_prelude). */
static const char host_prelude[] =
  "/* RenderScript invokables on the host */\n"
  /* the host's runtime: rsDebug, rsSendToClient, rsRand (host_rt) */
  "#include <stdarg.h>\n#include <stdio.h>\n"
  "#define FGK_RS_HOST 1\n"
  "typedef struct {\n"
  "  void (*log)(void *, const char *);\n"
  "  void (*send)(void *, int, const void *, unsigned long);\n"
  "  void *ctx;\n  unsigned long long *rand;\n  const long *dims;\n"
  "  long long *dt_last;\n"
  "} fgk_rs_host_t;\n"
  "static __thread fgk_rs_host_t *fgk_rs_h;\n"
  "#define FGK_RSH static __attribute__((overloadable, unused))\n"
  "static __attribute__((format(printf, 1, 2), unused)) void fgk_rs_logf(\n"
  "    const char *fmt, ...) {\n"
  "  char b[1024];\n  va_list ap;\n  va_start(ap, fmt);\n"
  "  vsnprintf(b, sizeof b, fmt, ap);\n  va_end(ap);\n"
  "  fgk_rs_h->log(fgk_rs_h->ctx, b);\n}\n"
  "FGK_RSH void rsDebug(const char *s) { fgk_rs_logf(\"%s\", s); }\n"
  "FGK_RSH void rsDebug(const char *s, float a, float b) {\n"
  "  fgk_rs_logf(\"%s {%f, %f}\", s, a, b);\n}\n"
  "FGK_RSH void rsDebug(const char *s, float a, float b, float c) {\n"
  "  fgk_rs_logf(\"%s {%f, %f, %f}\", s, a, b, c);\n}\n"
  "FGK_RSH void rsDebug(const char *s, float a, float b, float c, float d) {\n"
  "  fgk_rs_logf(\"%s {%f, %f, %f, %f}\", s, a, b, c, d);\n}\n"
  "FGK_RSH void rsDebug(const char *s, const void *p) {\n"
  "  fgk_rs_logf(\"%s %p\", s, p);\n}\n"
  "#define FGK_RS_DBG(T, F, C) \\\n"
  "FGK_RSH void rsDebug(const char *s, T a) { fgk_rs_logf(\"%s \" F, s, (C)a); } \\\n"
  "FGK_RSH void rsDebug(const char *s, T##2 a) { \\\n"
  "  fgk_rs_logf(\"%s {\" F \", \" F \"}\", s, (C)a.x, (C)a.y); } \\\n"
  "FGK_RSH void rsDebug(const char *s, T##3 a) { \\\n"
  "  fgk_rs_logf(\"%s {\" F \", \" F \", \" F \"}\", s, (C)a.x, (C)a.y, (C)a.z); } \\\n"
  "FGK_RSH void rsDebug(const char *s, T##4 a) { \\\n"
  "  fgk_rs_logf(\"%s {\" F \", \" F \", \" F \", \" F \"}\", s, (C)a.x, (C)a.y, \\\n"
  "              (C)a.z, (C)a.w); }\n"
  "FGK_RS_DBG(float, \"%f\", double) FGK_RS_DBG(double, \"%f\", double)\n"
  "FGK_RS_DBG(char, \"%d\", int) FGK_RS_DBG(uchar, \"%u\", unsigned)\n"
  "FGK_RS_DBG(short, \"%d\", int) FGK_RS_DBG(ushort, \"%u\", unsigned)\n"
  "FGK_RS_DBG(int, \"%d\", int) FGK_RS_DBG(uint, \"%u\", unsigned)\n"
  "FGK_RS_DBG(long, \"%lld\", long long)\n"
  "FGK_RS_DBG(ulong, \"%llu\", unsigned long long)\n"
  "FGK_RSH void rsDebug(const char *s, schar a) { fgk_rs_logf(\"%s %d\", s, a); }\n"
  /* rs_debug.rsh's long long ones too: rsUptimeMillis() is an int64_t */
  "FGK_RSH void rsDebug(const char *s, long long a) {\n"
  "  fgk_rs_logf(\"%s %lld\", s, a);\n}\n"
  "FGK_RSH void rsDebug(const char *s, unsigned long long a) {\n"
  "  fgk_rs_logf(\"%s %llu\", s, a);\n}\n"
  "FGK_RSH void rsDebug(const char *s, _Bool a) { fgk_rs_logf(\"%s %d\", s, a); }\n"
  "FGK_RSH _Bool rsSendToClient(int cmd) {\n"
  "  if (fgk_rs_h->send) fgk_rs_h->send(fgk_rs_h->ctx, cmd, 0, 0);\n"
  "  return fgk_rs_h->send != 0;\n}\n"
  "FGK_RSH _Bool rsSendToClient(int cmd, const void *d, uint len) {\n"
  "  if (fgk_rs_h->send) fgk_rs_h->send(fgk_rs_h->ctx, cmd, d, len);\n"
  "  return fgk_rs_h->send != 0;\n}\n"
  "FGK_RSH void rsSendToClientBlocking(int cmd) { rsSendToClient(cmd); }\n"
  "FGK_RSH void rsSendToClientBlocking(int cmd, const void *d, uint len) {\n"
  "  rsSendToClient(cmd, d, len);\n}\n"
  /* xorshift64*: each script its own sequence */
  "static uint fgk_rs_rand32(void) {\n"
  "  unsigned long long x = *fgk_rs_h->rand;\n"
  "  x ^= x >> 12; x ^= x << 25; x ^= x >> 27;\n  *fgk_rs_h->rand = x;\n"
  "  return (uint)((x * 2685821657736338717ull) >> 32);\n}\n"
  "FGK_RSH int rsRand(int max) {\n"
  "  return max <= 0 ? 0 : (int)(fgk_rs_rand32() % (uint)max);\n}\n"
  "FGK_RSH int rsRand(int min, int max) {\n"
  "  return max <= min ? min : min + (int)(fgk_rs_rand32() % (uint)(max - min));\n}\n"
  "FGK_RSH float rsRand(float max) {\n"
  "  return (float)(fgk_rs_rand32() >> 8) * (1.f / 16777216.f) * max;\n}\n"
  "FGK_RSH float rsRand(float min, float max) {\n"
  "  return min + (float)(fgk_rs_rand32() >> 8) * (1.f / 16777216.f) * (max - min);\n}\n";

/* What the host code's fgk_rs_host_t is (host_prelude). */
typedef struct host_rt {
  void (*log)(void *, const char *);
  void (*send)(void *, int, const void *, unsigned long);
  void *ctx;
  unsigned long long *rand;
  const long *dims;             /* x, y, z of each rs_allocation global */
  long long *dt_last;           /* rsGetDt's (rs/time.c) */
} host_rt;

static void rt_log(void *ctx, const char *line) {
  fg_rs_script *s = ctx;
  if (s->log)
    s->log(s->log_user, line);
  else
    fprintf(stderr, "%s: %s\n", s->u->name, line);
}

void fgr_host_log(fg_rs_script *s, const char *line) { rt_log(s, line); }

static void rt_send(void *ctx, int id, const void *data, unsigned long n) {
  fg_rs_script *s = ctx;
  s->message(s->message_user, id, data, (size_t)n);
}

void fg_rs_set_log(fg_rs_script *s, fg_rs_log_fn fn, void *user) {
  if (s) {
    s->log = fn;
    s->log_user = user;
  }
}

void fg_rs_set_message_handler(fg_rs_script *s, fg_rs_message_fn fn,
                               void *user) {
  if (s) {
    s->message = fn;
    s->message_user = user;
  }
}

static const char *const host_flags[] = {
  "-O2", "-fPIC", "-shared", "-std=gnu11", "-fno-math-errno", "-fwrapv",
  "-ffp-contract=off", "-w", NULL};

/* ---- building and loading ----------------------------------------------- */

/* The folder the invokables are cached in: the options' cache_dir, else
 * the kernel cache's, resolved as fg_context_new resolves it. */
static void cache_root_of(const fg_rs_script *s, char *out, size_t n) {
  if (s->cache_dir && *s->cache_dir) {
    snprintf(out, n, "%s", s->cache_dir);
    return;
  }
  fg__env *env = malloc(sizeof *env);
  if (env)
    fg__env_read(env);
  snprintf(out, n, "%s", env ? env->cache_dir : "");
  free(env);
}

/* The host source of s's runnable invokables, malloc'd; NULL when out of
 * memory. */
static char *host_source(const fg_rs_script *s) {
  const fgr_unit *u = s->u;
  const fgr_func **fns = calloc((size_t)u->n_funcs + 1, sizeof *fns);
  if (!fns)
    return NULL;
  int n = 0, tok;
  for (int k = 0; k < u->n_funcs; k++)
    if (!fgr_host_why(u, &u->funcs[k], &tok))
      fns[n++] = &u->funcs[k];
  fgu_buf b = {0};
  fgu_buf_puts(&b, fgk_c_prelude);
  fgu_buf_puts(&b, fge_c_helpers);   /* what the runtime's C text calls */
  fgu_buf_puts(&b, host_prelude);
  fgu_buf_puts(&b, fgr_time_host);
  host_writer h = {.w = {&host_writer_i}, .b = &b};
  fgr_emit_host(&h.w, u, fns, n);
  free(fns);
  free(h.seen);
  fgu_arena_free(&h.names);
  if (h.oom || b.oom) {
    fgu_buf_free(&b);
    return NULL;
  }
  return fgu_buf_take(&b);
}

static fg_status host_build(fg_rs_script *s, char *err, size_t errlen) {
  if (s->host)
    return FG_OK;
  const fgr_unit *u = s->u;
  char *src = host_source(s);
  if (!src) {
    snprintf(err, errlen, "%s: out of memory", u->file);
    return FG_ENOMEM;
  }
  const char *clang = s->clang && *s->clang ? s->clang : FG_CLANG_PATH;
  fgu_sha256 h;
  fgu_sha256_init(&h);
  fgu_sha256_update(&h, "fg-rs-host-1", 13);
  fgu_sha256_update(&h, clang, strlen(clang) + 1);
  for (int i = 0; host_flags[i]; i++)
    fgu_sha256_update(&h, host_flags[i], strlen(host_flags[i]) + 1);
  fgu_sha256_update(&h, src, strlen(src));
  char key[65];
  fgu_sha256_hex(&h, key);
  char root[4096], cerr[1024];
  cache_root_of(s, root, sizeof root);
  fgtc_cache cache;
  if (fgtc_cache_open(&cache, root, "rs", cerr, sizeof cerr) != FG_OK) {
    snprintf(err, errlen, "%s: %s", u->file, cerr);
    free(src);
    return FG_EIO;
  }
  fgtc_cc_result r;
  void *dl = NULL;
  fg_status st = fgtc_cc_build(&cache, clang, host_flags, key, src, &dl, &r,
                               cerr, sizeof cerr);
  fgtc_cache_close(&cache);
  free(src);
  if (st != FG_OK && r.compiled && r.exit.end != FGTC_EXITED) {
    snprintf(err, errlen, "%s: could not run %s to build the invokables",
             u->file, clang);
    st = FG_EIO;
  } else if (st != FG_OK && r.compiled && r.exit.code != 0) {
    char what[4300];
    snprintf(what, sizeof what, "%s: building the invokables (%s)", u->file,
             r.src);
    fgr_clang_first_error(r.log, what, err, errlen);
    st = FG_EBUILD;
  } else if (st != FG_OK) {
    snprintf(err, errlen, "%s: %s", u->file, cerr);
  }
  free(r.log);
  s->host = dl;
  return st;
}

void fgr_host_free(fg_rs_script *s) {
  fgtc_dl_close(s->host);
  s->host = NULL;
}

/* What f's own statements P = Q; P = (T *)Q; and P = NULL;
 * (fgr_ptr_alias) leave, in their order: P follows Q's binding (a launch
 * writing through either makes the field both then read, as C's pointers
 * to one memory), or is unbound. */
static void host_aliases(fg_rs_script *s, const fgr_func *f) {
  const fgr_unit *u = s->u;
  for (int i = f->rparen + 1; i < f->tok1; i++) {
    int d, sg, end = fgr_ptr_alias(u, f, i, &d, &sg);
    if (end < 0)
      continue;
    i = end;
    int a = u->globals[d].alloc_index;
    int root = sg >= 0 ? fgr_bound_root(s, u->globals[sg].alloc_index) : -1;
    if (root == a)
      continue;                 /* P = P, or Q follows P already */
    fgr_binding *b = &s->bound[a];
    fg__alive_unref(b->graph);
    b->graph = NULL;
    b->field = NULL;
    b->name[0] = 0;
    b->alias = root + 1;
  }
}

typedef void (*host_fn)(void *globals, const void *const *args,
                        host_rt *rt);

/* Calls f (runnable) with args; "file:line:col: message" on failure.
 * dims: x, y, z of each rs_allocation global (by its alloc_index), or NULL
 * for those of the fields they are bound to (0 when unbound, as Android's
 * rsAllocationGetDimX of a null allocation). */
fg_status fgr_host_call(fg_rs_script *s, const fgr_func *f,
                        const void *const *args, const long *dims, char *err,
                        size_t errlen) {
  fg_status st = host_build(s, err, errlen);
  if (st != FG_OK)
    return st;
  char sym[300];
  snprintf(sym, sizeof sym, "fgk_rs_invoke_%s", f->name);
  host_fn fn = (host_fn)fgtc_dl_sym(s->host, sym);
  if (!fn) {
    snprintf(err, errlen, "%s: symbol %s missing in the invokables' object",
             s->u->file, sym);
    return FG_EBUILD;
  }
  long *bound = NULL;
  if (!dims && s->u->n_allocs) {
    bound = calloc((size_t)s->u->n_allocs * 3, sizeof *bound);
    if (!bound) {
      snprintf(err, errlen, "%s: out of memory", s->u->file);
      return FG_ENOMEM;
    }
    for (int a = 0; a < s->u->n_allocs; a++) {
      const fg_field *x = fgr_bound_field(s, a);
      for (int d = 0; x && d < 3; d++) {
        fg_shape sh = x->type.field;
        bound[3 * a + d] = d < sh.ndim ? (long)sh.dim[sh.ndim - 1 - d] : 0;
      }
    }
    dims = bound;
  }
  if (!s->rand_state)
    s->rand_state = 0x9e3779b97f4a7c15ull;
  host_rt rt = {rt_log, s->message ? rt_send : NULL, s, &s->rand_state,
                dims, &s->dt_last};
  fn(s->u->live.bytes, args, &rt);
  free(bound);
  host_aliases(s, f);
  return FG_OK;
}

static fg_status host_call(fg_rs_script *s, const fgr_func *f,
                           const void *const *args, char *err,
                           size_t errlen) {
  return fgr_host_call(s, f, args, NULL, err, errlen);
}

static void at_tok(const fgr_unit *u, int t, char *err, size_t errlen,
                   const char *what, const char *why) {
  snprintf(err, errlen, "%s:%d:%d: %s: %s", fgr_tok_file(u, t),
           u->toks[t].line, u->toks[t].col, what, why);
}

fg_status fgr_host_init(fg_rs_script *s, char *err, size_t errlen) {
  const fgr_func *f = fgr_find_func(s->u, "init");
  if (!f || !f->has_body || f->is_kernel)
    return FG_OK;
  int t;
  const char *why = fgr_host_why(s->u, f, &t);
  if (!why && f->n_params)
    why = "takes parameters (init() takes none)";
  if (why) {
    char what[300];
    snprintf(what, sizeof what, "init() of script '%s' cannot run, so its "
             "globals would keep their initializers", s->u->name);
    at_tok(s->u, t, err, errlen, what, why);
    return FG_ENOTSUP;
  }
  return host_call(s, f, NULL, err, errlen);
}

/* ---- the public calls --------------------------------------------------- */

/* The invokable a call names into *out; else the status, with the
 * script's message set. */
static fg_status invokable(fg_rs_script *s, const char *call,
                           const char *name, int n_args,
                           const fgr_func **out) {
  const fgr_unit *u = s->u;
  const fgr_func *f = name ? fgr_find_func(u, name) : NULL;
  *out = NULL;
  if (!f || !f->has_body) {
    snprintf(s->errmsg, sizeof s->errmsg, "%s: script '%s' has no function "
             "'%s'", call, u->name, name ? name : "(null)");
    return FG_EINVAL;
  }
  int t;
  const char *why = fgr_host_why(u, f, &t);
  if (why) {
    char what[300];
    snprintf(what, sizeof what, "%s '%s.%s'", call, u->name, name);
    at_tok(u, t, s->errmsg, sizeof s->errmsg, what, why);
    return FG_ENOTSUP;
  }
  if (n_args >= 0 && n_args != f->n_params) {
    snprintf(s->errmsg, sizeof s->errmsg, "%s '%s.%s': %d arguments given, "
             "the function takes %d", call, u->name, name, n_args,
             f->n_params);
    return FG_EINVAL;
  }
  *out = f;
  return FG_OK;
}

static fg_status call_status(fg_rs_script *s, const fgr_func *f,
                             const void *const *args) {
  char err[1024] = "";
  fg_status st = host_call(s, f, args, err, sizeof err);
  snprintf(s->errmsg, sizeof s->errmsg, "%s", st == FG_OK ? "" : err);
  return st;
}

fg_status fg_rs_call_args(fg_rs_script *s, const char *function, int n_args,
                          const void *const *args) {
  if (!s)
    return FG_EINVAL;
  const fgr_func *f;
  fg_status st = invokable(s, "fg_rs_call_args", function, n_args, &f);
  if (st != FG_OK)
    return st;
  if (n_args > 0 && !args) {
    snprintf(s->errmsg, sizeof s->errmsg, "fg_rs_call_args '%s': args is "
             "NULL", function);
    return FG_EINVAL;
  }
  for (int k = 0; k < n_args; k++)
    if (!args[k]) {
      snprintf(s->errmsg, sizeof s->errmsg, "fg_rs_call_args '%s': argument "
               "%d is NULL", function, k);
      return FG_EINVAL;
    }
  return call_status(s, f, args);
}

fg_status fg_rs_call(fg_rs_script *s, const char *function, ...) {
  if (!s)
    return FG_EINVAL;
  const fgr_func *f;
  fg_status st = invokable(s, "fg_rs_call", function, -1, &f);
  if (st != FG_OK)
    return st;
  /* each argument as the default promotions pass it, into a value of the
   * parameter's type */
  enum { MAX_ARGS = 32 };
  if (f->n_params > MAX_ARGS) {
    snprintf(s->errmsg, sizeof s->errmsg, "fg_rs_call '%s': more than %d "
             "parameters", function, MAX_ARGS);
    return FG_ENOTSUP;
  }
  union {
    _Bool b; int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32;
    uint32_t u32; int64_t i64; uint64_t u64; float f32; double f64;
  } v[MAX_ARGS];
  const void *args[MAX_ARGS + 1];
  va_list ap;
  va_start(ap, function);
  for (int k = 0; k < f->n_params; k++) {
    const fgr_type *t = f->params[k].type;
    args[k] = &v[k];
    if (t->kind == FGR_BOOL) {
      v[k].b = va_arg(ap, int) != 0;
      continue;
    }
    if (t->kind != FGR_NUM || t->width != 1) {
      args[k] = va_arg(ap, const void *);
      continue;
    }
    switch (t->elem) {
    case FG_BOOL: v[k].b = va_arg(ap, int) != 0; break;
    case FG_I8: v[k].i8 = (int8_t)va_arg(ap, int); break;
    case FG_U8: v[k].u8 = (uint8_t)va_arg(ap, int); break;
    case FG_I16: v[k].i16 = (int16_t)va_arg(ap, int); break;
    case FG_U16: v[k].u16 = (uint16_t)va_arg(ap, int); break;
    case FG_I32: v[k].i32 = va_arg(ap, int32_t); break;
    case FG_U32: v[k].u32 = va_arg(ap, uint32_t); break;
    case FG_I64: v[k].i64 = va_arg(ap, int64_t); break;
    case FG_U64: v[k].u64 = va_arg(ap, uint64_t); break;
    case FG_F32: v[k].f32 = (float)va_arg(ap, double); break;
    case FG_F64: v[k].f64 = va_arg(ap, double); break;
    default: args[k] = NULL; break;
    }
    if (!args[k]) {
      va_end(ap);
      snprintf(s->errmsg, sizeof s->errmsg, "fg_rs_call '%s': parameter %d "
               "has a type fg_rs_call cannot pass", function, k);
      return FG_ENOTSUP;
    }
  }
  va_end(ap);
  for (int k = 0; k < f->n_params; k++)
    if (!args[k]) {
      snprintf(s->errmsg, sizeof s->errmsg, "fg_rs_call '%s': argument %d "
               "(a vector or struct, passed by pointer) is NULL", function,
               k);
      return FG_EINVAL;
    }
  return call_status(s, f, args);
}
