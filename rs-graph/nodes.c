/* rs/nodes.c - RenderScript scripts and their kernels as graph nodes
 * (the public API of fieldgraph/renderscript.h).
 *
 * A mapping kernel becomes an ordinary operator built with the kernel DSL:
 * it reads its inputs locally, calls the kernel (a foreign call,
 * FGK_E_FOREIGN, into the carried script) and writes the value locally, so
 * the fusion pass treats it like any pointwise operator.  A reduction
 * kernel becomes two nodes: an accumulate operator over the inputs'
 * coordinates that the runtime launches over a few partials (a
 * FGK_REDUCE_FOREIGN reduction, ir/ir.h; its pointwise
 * producers fuse into it like into the built-in reductions), writing each
 * partial's script-typed accumulator into a record field; and a one-thread
 * node that folds the record with the combiner and applies the
 * outconverter, producing the 0-D result.  The script's globals reach
 * both through a constant field whose bytes the program re-reads at every
 * run; bound allocations are extra inputs read non-locally. */
#include "rs-graph/graph.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scripts ------------------------------------------------------------ */

static void put_err(char *errmsg, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void put_err(char *errmsg, size_t errlen, const char *fmt, ...) {
  if (!errmsg || !errlen)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(errmsg, errlen, fmt, ap);
  va_end(ap);
}

fg_status fg_rs_script_new_source(const char *name, const char *file,
                                  const char *text, size_t len,
                                  fg_rs_script **out, char *errmsg,
                                  size_t errlen) {
  return fg_rs_script_new_source_opt(name, file, text, len, NULL, out,
                                     errmsg, errlen);
}

fg_status fg_rs_script_new_source_opt(const char *name, const char *file,
                                      const char *text, size_t len,
                                      const fg_rs_options *opt,
                                      fg_rs_script **out, char *errmsg,
                                      size_t errlen) {
  if (errmsg && errlen)
    errmsg[0] = 0;
  if (!out) {
    put_err(errmsg, errlen, "fg_rs_script_new_source: out is NULL");
    return FG_EINVAL;
  }
  *out = NULL;
  if (!name || !*name) {
    put_err(errmsg, errlen, "fg_rs_script_new_source: name is %s (expected "
            "a non-empty string)", name ? "empty" : "NULL");
    return FG_EINVAL;
  }
  if (!text) {
    put_err(errmsg, errlen, "fg_rs_script_new_source '%s': text is NULL",
            name);
    return FG_EINVAL;
  }
  if (len == (size_t)-1)
    len = strlen(text);
  fg_rs_options none = {0};
  if (!opt)
    opt = &none;
  if (opt->n_include_dirs < 0 || (opt->n_include_dirs && !opt->include_dirs)) {
    put_err(errmsg, errlen, "fg_rs_script_new_source '%s': %d include "
            "directories at %p", name, opt->n_include_dirs,
            (const void *)opt->include_dirs);
    return FG_EINVAL;
  }
  /* the compiler a context's CPU backend uses ($FG_CLANG) unless the
   * options name one: one variable moves every use of clang */
  const char *clang = opt->clang;
  if (!clang || !*clang)
    clang = getenv("FG_CLANG");
  if (clang && !*clang)
    clang = NULL;
  fgr_pp pp = {clang, opt->include_dirs, opt->n_include_dirs, false,
               opt->preprocess_timeout_ms, opt->preprocess_max_bytes};
  char err[1024] = "";
  fgr_unit *u = fgr_unit_new(name, file ? file : name, text, len, &pp, err,
                             sizeof err);
  if (!u) {
    put_err(errmsg, errlen, "%s", err);
    return strstr(err, "out of memory") ? FG_ENOMEM
           : strstr(err, "could not run the preprocessor") ? FG_EIO
                                                           : FG_EFORMAT;
  }
  fg_rs_script *s = calloc(1, sizeof *s);
  if (s)
    s->bound = calloc((size_t)u->n_allocs + 1, sizeof *s->bound);
  if (!s || !s->bound) {
    free(s);
    fg__live_unref(&u->live);
    put_err(errmsg, errlen, "script '%s': out of memory", name);
    return FG_ENOMEM;
  }
  s->u = u;
  s->dt_last = fgr_time_now_ns();
  if ((clang && !(s->clang = strdup(clang))) ||
      (opt->cache_dir && !(s->cache_dir = strdup(opt->cache_dir)))) {
    fg_rs_script_free(s);
    put_err(errmsg, errlen, "script '%s': out of memory", name);
    return FG_ENOMEM;
  }
  /* init() runs when the script is created, as on Android */
  fg_status st = fgr_host_init(s, err, sizeof err);
  if (st != FG_OK) {
    fg_rs_script_free(s);
    put_err(errmsg, errlen, "%s", err);
    return st;
  }
  *out = s;
  return FG_OK;
}

/* Why text (len bytes) read from a file is no RenderScript script, or
 * NULL: a script is text (UTF-8, no NUL byte) that states its version or a
 * pragma (`#pragma version(1)`, `#pragma rs ...`, as the RenderScript
 * compiler requires) or declares a kernel.  Any file a user names gets
 * here (script("/etc/passwd")): what is refused is never quoted. */
static const char *not_a_script(const char *text, size_t len) {
  for (size_t i = 0; i < len;) {
    unsigned char c = (unsigned char)text[i];
    int n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 && c >= 0xc2 ? 1
            : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 && c <= 0xf4 ? 3
            : -1;
    if (c == 0 || n < 0 || i + (size_t)n >= len)
      return "it holds binary data, not text";
    for (int k = 1; k <= n; k++)
      if ((text[i + k] & 0xc0) != 0x80)
        return "it holds binary data, not text";
    i += (size_t)n + 1;
  }
  if (strstr(text, "RS_KERNEL") || strstr(text, "__attribute__((kernel))"))
    return NULL;
  for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
    while (*l == ' ' || *l == '\t')
      l++;
    if (*l != '#')
      continue;
    l++;
    while (*l == ' ' || *l == '\t')
      l++;
    if (strncmp(l, "pragma", 6) || (l[6] != ' ' && l[6] != '\t'))
      continue;
    l += 6;
    while (*l == ' ' || *l == '\t')
      l++;
    if (!strncmp(l, "version", 7) ||
        (!strncmp(l, "rs", 2) && (l[2] == ' ' || l[2] == '\t')))
      return NULL;
  }
  return "no #pragma version, #pragma rs or RS_KERNEL in it";
}

fg_status fg_rs_script_new_file(const char *path, fg_rs_script **out,
                                char *errmsg, size_t errlen) {
  return fg_rs_script_new_file_opt(path, NULL, out, errmsg, errlen);
}

fg_status fg_rs_script_new_file_opt(const char *path,
                                    const fg_rs_options *opt,
                                    fg_rs_script **out, char *errmsg,
                                    size_t errlen) {
  if (out)
    *out = NULL;
  if (!path || !out) {
    put_err(errmsg, errlen, "fg_rs_script_new_file: %s is NULL",
            path ? "out" : "path");
    return FG_EINVAL;
  }
  /* non-blocking, so that opening a FIFO no one writes does not hang;
   * reads block again once open */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
  if (!f) {
    put_err(errmsg, errlen, "%s: cannot open: %s", path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return FG_EIO;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0)
    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  struct stat sb;
  if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
    fclose(f);
    put_err(errmsg, errlen, "%s: is a directory (expected a script file)",
            path);
    return FG_EIO;
  }
  /* a regular file states its size; anything else (a pipe, /dev/zero) is
   * read until it ends or passes the limit */
  if (S_ISREG(sb.st_mode) && sb.st_size > FG_RS_MAX_SOURCE) {
    fclose(f);
    put_err(errmsg, errlen, "%s: %lld bytes, more than a script may have "
            "(FG_RS_MAX_SOURCE, %d bytes)", path, (long long)sb.st_size,
            FG_RS_MAX_SOURCE);
    return FG_EFORMAT;
  }
  fgu_buf b = {0};
  char chunk[4096];
  size_t n;
  bool big = false;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    size_t at = b.len;
    if (at + n > (size_t)FG_RS_MAX_SOURCE) {
      big = true;
      break;
    }
    for (size_t i = 0; i < n; i++)
      fgu_buf_putc(&b, chunk[i]);
    if (b.oom || b.len != at + n)
      break;
  }
  bool bad = ferror(f) != 0;
  fclose(f);
  if (big) {
    fgu_buf_free(&b);
    put_err(errmsg, errlen, "%s: longer than a script may be "
            "(FG_RS_MAX_SOURCE, %d bytes)", path, FG_RS_MAX_SOURCE);
    return FG_EFORMAT;
  }
  if (bad || b.oom) {
    fgu_buf_free(&b);
    put_err(errmsg, errlen, "%s: %s", path, bad ? "read error"
                                                : "out of memory");
    return bad ? FG_EIO : FG_ENOMEM;
  }
  const char *why = not_a_script(b.s ? b.s : "", b.len);
  if (why) {
    fgu_buf_free(&b);
    put_err(errmsg, errlen, "%s: not a RenderScript script (%s)", path, why);
    return FG_EFORMAT;
  }
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char name[256];
  snprintf(name, sizeof name, "%s", base);
  size_t nl = strlen(name);
  if (nl > 3 && !strcmp(name + nl - 3, ".rs"))
    name[nl - 3] = 0;
  fg_status st = fg_rs_script_new_source_opt(name, path, b.s ? b.s : "",
                                             b.len, opt, out, errmsg,
                                             errlen);
  fgu_buf_free(&b);
  return st;
}

void fg_rs_script_free(fg_rs_script *s) {
  if (!s)
    return;
  for (int a = 0; a < s->u->n_allocs; a++)
    fg__alive_unref(s->bound[a].graph);
  fgr_host_free(s);
  fg__live_unref(&s->u->live);
  free(s->bound);
  free(s->clang);
  free(s->cache_dir);
  free(s);
}

const char *fg_rs_script_errmsg(const fg_rs_script *s) {
  return s ? s->errmsg : "script is NULL";
}

const char *fg_rs_script_warnings(const fg_rs_script *s) {
  return s ? s->u->warnings : "";
}

const char *fg_rs_script_name(const fg_rs_script *s) {
  return s ? s->u->name : "";
}

fg_rs_kind fg_rs_function_kind(const fg_rs_script *s, const char *name) {
  if (!s || !name)
    return FG_RS_NONE;
  if (fgr_find_reduce(s->u, name))
    return FG_RS_REDUCTION;
  const fgr_func *f = fgr_find_func(s->u, name);
  if (!f || !f->has_body)
    return FG_RS_NONE;
  if (f->is_kernel || f->legacy)
    return FG_RS_KERNEL;
  return f->is_static ? FG_RS_NONE : FG_RS_INVOKABLE;
}

fg_status fg_rs_function_param(const fg_rs_script *s, const char *name,
                               int i, fg_elem *elem) {
  const fgr_func *f = s && name ? fgr_find_func(s->u, name) : NULL;
  if (!f || !f->has_body || i < 0 || i >= f->n_params)
    return FG_EINVAL;
  const fgr_param *pa = &f->params[i];
  if (pa->type->kind != FGR_NUM || pa->type->width != 1 || pa->ptr)
    return FG_ETYPE;
  if (elem)
    *elem = pa->type->elem;
  return FG_OK;
}

fg_rs_fp fg_rs_script_fp(const fg_rs_script *s) {
  return s ? s->u->fp : FG_RS_FP_FULL;
}

static fg_status script_fail(fg_rs_script *s, fg_status st, const char *fmt,
                             ...) __attribute__((format(printf, 3, 4)));

static fg_status script_fail(fg_rs_script *s, fg_status st, const char *fmt,
                             ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
  va_end(ap);
  return st;
}

/* The global a set/get names, or NULL with the script's message set. */
static const fgr_global *user_global(fg_rs_script *s, const char *call,
                                     const char *name, size_t size,
                                     bool set) {
  const fgr_unit *u = s->u;
  int k = name ? fgr_find_global(u, name) : -1;
  if (k < 0) {
    script_fail(s, FG_EINVAL, "%s: script '%s' has no global '%s'", call,
                u->name, name ? name : "(null)");
    return NULL;
  }
  const fgr_global *g = &u->globals[k];
  const char *why = g->is_static ? "is static (only the script sees it)"
                    : g->alloc_index >= 0 ? "is an rs_allocation (use "
                                            "fg_rs_bind_allocation)"
                    : set && g->is_const ? "is const" : NULL;
  if (!why && !set && !g->has_value)
    why = "has an initializer fieldgraph cannot evaluate";
  if (why) {
    script_fail(s, FG_EINVAL, "%s: global '%s' of script '%s' %s", call,
                name, u->name, why);
    return NULL;
  }
  if ((int64_t)size != g->type->size) {
    script_fail(s, FG_EINVAL, "%s: global '%s' of script '%s' is %s, %lld "
                "bytes (got %zu)", call, name, u->name, g->type->name,
                (long long)g->type->size, size);
    return NULL;
  }
  return g;
}

fg_status fg_rs_set(fg_rs_script *s, const char *global, const void *value,
                    size_t size) {
  if (!s)
    return FG_EINVAL;
  if (!value)
    return script_fail(s, FG_EINVAL, "fg_rs_set '%s': value is NULL",
                       global ? global : "(null)");
  const fgr_global *g = user_global(s, "fg_rs_set", global, size, true);
  if (!g)
    return FG_EINVAL;
  memcpy(s->u->c_values + g->offset, value, size);
  memcpy(s->u->live.bytes + g->offset, value, size);
  s->errmsg[0] = 0;
  return FG_OK;
}

fg_status fg_rs_get(fg_rs_script *s, const char *global, void *value,
                    size_t size) {
  if (!s)
    return FG_EINVAL;
  if (!value)
    return script_fail(s, FG_EINVAL, "fg_rs_get '%s': value is NULL",
                       global ? global : "(null)");
  const fgr_global *g = user_global(s, "fg_rs_get", global, size, false);
  if (!g)
    return FG_EINVAL;
  memcpy(value, s->u->c_values + g->offset, size);
  s->errmsg[0] = 0;
  return FG_OK;
}

size_t fg_rs_global_size(const fg_rs_script *s, const char *global) {
  int k = s && global ? fgr_find_global(s->u, global) : -1;
  return k < 0 ? 0 : (size_t)s->u->globals[k].type->size;
}

const char *fg_rs_global_name(const fg_rs_script *s, int i) {
  return s && i >= 0 && i < s->u->n_globals ? s->u->globals[i].name : NULL;
}

fg_status fg_rs_global_elem(const fg_rs_script *s, const char *global,
                            fg_elem *elem) {
  int k = s && global ? fgr_find_global(s->u, global) : -1;
  if (k < 0 || !elem)
    return FG_EINVAL;
  const fgr_type *t = s->u->globals[k].type;
  while (t->kind == FGR_ARRAY)
    t = t->of;
  if (t->kind == FGR_BOOL) {
    *elem = FG_BOOL;
    return FG_OK;
  }
  if (t->kind != FGR_NUM)
    return FG_ETYPE;
  *elem = t->elem;
  return FG_OK;
}

fg_status fg_rs_bind_allocation(fg_rs_script *s, const char *global,
                                fg_field *field) {
  if (!s)
    return FG_EINVAL;
  int k = global ? fgr_find_global(s->u, global) : -1;
  if (k < 0 || s->u->globals[k].alloc_index < 0)
    return script_fail(s, FG_EINVAL, "fg_rs_bind_allocation: script '%s' "
                       "has no rs_allocation global '%s'", s->u->name,
                       global ? global : "(null)");
  if (field && fg_type_is_big(field->type)) {
    char ts[128];
    return script_fail(s, FG_ETYPE, "fg_rs_bind_allocation '%s': field "
                       "'%s' is %s; allocations hold small tensors (at most "
                       "%d elements)", global, field->name,
                       fg_type_str(field->type, ts, sizeof ts),
                       FG_MAX_SMALL_TENSOR);
  }
  if (field && field->type.field.ndim == 0)
    return script_fail(s, FG_ESHAPE, "fg_rs_bind_allocation '%s': field "
                       "'%s' has no dimensions (an Allocation has 1 to 3)",
                       global, field->name);
  const fgr_type *pt = s->u->globals[k].pointee;
  bool pbool = pt && pt->kind == FGR_BOOL;     /* bytes 0 and 1 */
  /* a struct: any field whose points are the struct's bytes (float4 for
   * a struct of 16, as Java binds an Allocation of another Element) */
  int64_t pbytes = field ? (int64_t)fg_elem_size(field->type.elem) *
                               fg_type_tensor_elements(field->type) : 0;
  if (field && pt && pt->kind == FGR_STRUCT && pbytes != pt->size) {
    char ts[128];
    return script_fail(s, FG_ETYPE, "fg_rs_bind_allocation '%s': field "
                       "'%s' is %s, %lld bytes a point; the pointer global "
                       "reads %s, %lld bytes", global, field->name,
                       fg_type_str(field->type, ts, sizeof ts),
                       (long long)pbytes, pt->name, (long long)pt->size);
  }
  if (field && pt && pt->kind != FGR_STRUCT &&
      (field->type.elem != (pbool ? FG_U8 : pt->elem) ||
       fg_type_tensor_elements(field->type) != (pbool ? 1 : pt->width))) {
    char ts[128];
    return script_fail(s, FG_ETYPE, "fg_rs_bind_allocation '%s': field "
                       "'%s' is %s; the pointer global reads %s", global,
                       field->name, fg_type_str(field->type, ts, sizeof ts),
                       pt->name);
  }
  fgr_binding *b = &s->bound[s->u->globals[k].alloc_index];
  b->alias = 0;                 /* its own binding now */
  fg__alive *alive = field ? fg__graph_alive(field->graph) : NULL;
  if (field && !alive)
    return script_fail(s, FG_ENOMEM, "fg_rs_bind_allocation '%s': out of "
                       "memory", global);
  fg__alive_unref(b->graph);
  b->field = field;
  b->graph = alive;
  snprintf(b->name, sizeof b->name, "%s", field ? field->name : "");
  s->errmsg[0] = 0;
  return FG_OK;
}

/* Binds field, the copy a launch wrote through global k, where k's
 * binding is: to the global whose binding k follows (fgr_binding.alias),
 * so both read it next. */
static fg_status rebind(fg_rs_script *s, int k, fg_field *field) {
  int root = fgr_bound_root(s, s->u->globals[k].alloc_index);
  for (int j = 0; j < s->u->n_globals; j++)
    if (s->u->globals[j].alloc_index == root)
      k = j;
  return fg_rs_bind_allocation(s, s->u->globals[k].name, field);
}

bool fgr_type_carrier(const fgr_type *t, fgk_type *out) {
  if (fgr_type_fgk(t, out))
    return true;
  if (t && t->kind == FGR_BOOL) {   /* Android's BOOLEAN Element: a byte */
    *out = fgk_t(FG_U8, 1);
    return true;
  }
  if (!t || t->kind != FGR_STRUCT || t->size <= 0 || t->size > 32)
    return false;
  static const fg_elem e[4] = {FG_U64, FG_U32, FG_U16, FG_U8};
  for (int k = 0; k < 4; k++) {
    int64_t es = (int64_t)fg_elem_size(e[k]);
    if (t->size % es == 0 && t->size / es <= 4) {
      *out = fgk_t(e[k], (int)(t->size / es));
      return true;
    }
  }
  return false;
}

/* ---- launching ---------------------------------------------------------- */

typedef struct launch {
  fg_graph *g;
  fg_rs_script *s;
  const char *what;             /* "fg_rs_map 'script.kernel'" */
  fg_shape shape;
  int64_t range[3][2];
  bool ranged;
  /* an invokable run as one thread (fgr_invoke_single): its rs_allocation
   * parameters, which name fields as globals do, and those fields */
  const fgr_func *pf;
  fg_field *const *pfield;
} launch;

/* The rs_allocation parameter of l->pf named p (len bytes), or -1. */
static int param_alloc(const launch *l, const char *p, int len) {
  for (int k = 0; l->pf && k < l->pf->n_params; k++) {
    const fgr_param *q = &l->pf->params[k];
    if (q->name && q->type->kind == FGR_ALLOC && !q->ptr &&
        (int)strlen(q->name) == len && !memcmp(q->name, p, (size_t)len))
      return k;
  }
  return -1;
}

/* Checks inputs against the parameters params[first..] (the inputs of a
 * kernel or an accumulator) and sets l->shape. */
static bool check_inputs(launch *l, const fgr_func *f, int first, int n_in,
                         fg_field *const *in) {
  fg_graph *g = l->g;
  const fgr_unit *u = l->s->u;
  if (n_in != f->n_inputs) {
    fg__fail(g, FG_EINVAL, "%s: got %d input(s), the prototype of '%s' "
             "(%s:%d:%d) takes %d", l->what, n_in, f->name,
             fgr_tok_file(u, f->name_tok),
             u->toks[f->name_tok].line, u->toks[f->name_tok].col,
             f->n_inputs);
    return false;
  }
  if (n_in && !in) {
    fg__fail(g, FG_EINVAL, "%s: the input array is NULL", l->what);
    return false;
  }
  for (int k = 0; k < n_in; k++) {
    if (!in[k]) {
      fg__fail(g, FG_EINVAL, "%s: input %d is NULL", l->what, k);
      return false;
    }
    if (in[k]->graph != g) {
      fg__fail(g, FG_EINVAL, "%s: input %d ('%s') belongs to another graph",
               l->what, k, in[k]->name);
      return false;
    }
    const fgr_param *pa = &f->params[first + k];
    fg_type t = in[k]->type;
    fgk_type want;
    char ts[128];
    if (!fgr_type_carrier(pa->type, &want)) {
      fg__fail(g, FG_ENOTSUP, "%s: argument '%s' of '%s' (%s:%d:%d) is %s; "
               "fieldgraph passes scalar and vector Elements and structs of "
               "up to 32 bytes only", l->what,
               pa->name ? pa->name : "?", f->name, fgr_tok_file(u, pa->tok),
               u->toks[pa->tok].line, u->toks[pa->tok].col, pa->type->name);
      return false;
    }
    if (t.elem != want.elem || fg_type_is_big(t) ||
        fg_type_tensor_elements(t) != want.width) {
      fg__fail(g, FG_ETYPE, "%s: input %d ('%s') is %s, but argument '%s' "
               "of '%s' (%s:%d:%d) is %s: the Element types must match",
               l->what, k, in[k]->name, fg_type_str(t, ts, sizeof ts),
               pa->name ? pa->name : "?", f->name, fgr_tok_file(u, pa->tok),
               u->toks[pa->tok].line, u->toks[pa->tok].col, pa->type->name);
      return false;
    }
    if (t.field.ndim == 0) {
      fg__fail(g, FG_ESHAPE, "%s: input %d ('%s') has no dimensions (an "
               "Allocation has 1 to 3)", l->what, k, in[k]->name);
      return false;
    }
    if (k && !fg_shape_equal(t.field, in[0]->type.field)) {
      char ts0[128];
      fg__fail(g, FG_ESHAPE, "%s: input %d ('%s') is %s but input 0 ('%s') "
               "is %s: the inputs of a launch have the same dimensions",
               l->what, k, in[k]->name, fg_type_str(t, ts, sizeof ts),
               in[0]->name, fg_type_str(in[0]->type, ts0, sizeof ts0));
      return false;
    }
  }
  if (n_in)
    l->shape = in[0]->type.field;
  return true;
}

/* Reads the launch options' range into l. */
static bool check_range(launch *l, const fg_rs_launch *opt) {
  if (!opt)
    return true;
  const int64_t se[3][2] = {{opt->x_start, opt->x_end},
                            {opt->y_start, opt->y_end},
                            {opt->z_start, opt->z_end}};
  static const char axis[3] = {'x', 'y', 'z'};
  for (int a = 0; a < 3; a++) {
    int64_t s = se[a][0], e = se[a][1];
    int nd = l->shape.ndim;
    int64_t extent = a < nd ? l->shape.dim[nd - 1 - a] : 1;
    if (s == 0 && e == 0) {
      l->range[a][0] = 0;
      l->range[a][1] = 0;
      continue;
    }
    if (a >= nd || s < 0 || e < s || e > extent) {
      fg__fail(l->g, FG_EINVAL, "%s: launch range %c [%lld, %lld) is not "
               "within [0, %lld)%s", l->what, axis[a], (long long)s,
               (long long)e, (long long)(a < nd ? extent : 0),
               a >= nd ? " (the launch has no such dimension)" : "");
      return false;
    }
    l->range[a][0] = s;
    l->range[a][1] = e;
    l->ranged = true;
  }
  return true;
}

/* The field of u's globals block that g's next launch reads: the copy
 * the last launch that wrote globals left (the field whose sink is u's
 * globals), else the constant field of the script's values (made on
 * first use). */
static fg_field *globals_field(fg_graph *g, fgr_unit *u) {
  for (int i = g->fields.n - 1; i >= 0; i--) {
    fg_field *f = g->fields.item[i];
    if (f->sink == &u->live)
      return f;
  }
  for (int i = 0; i < g->nodes.n; i++) {
    fg__node *n = g->nodes.item[i];
    if (n->kind == FG_NODE_CONST && n->live == &u->live)
      return n->out[0];
  }
  char name[300];
  snprintf(name, sizeof name, "%s.globals", u->name);
  fg_field *f = fg_constant(g, name, fg_type_scalar(FG_U8,
                                                    fg_shape1(u->block_size)),
                            u->live.bytes);
  if (!f || !fg__graph_hold(g, &u->live))
    return NULL;
  f->producer->live = &u->live;
  return f;
}

/* Whether function f has a parameter called name (which hides a
 * global of that name). */
static bool shadows(const fgr_func *f, const char *name) {
  for (int p = 0; p < f->n_params; p++)
    if (f->params[p].name && !strcmp(f->params[p].name, name))
      return true;
  return false;
}

/* The buffered global that rsAtomic* at token i updates, rsAtomicInc(&g)
 * or with elements and members, &g[i].m[j]..., or -1; *type: the type of
 * what it updates (NULL when fieldgraph cannot tell). */
static int atomic_global(const fgr_unit *u, int i, const fgr_type **type) {
  if (!fgr_tok_is(u, i + 1, "(") || !fgr_tok_is(u, i + 2, "&") ||
      u->toks[i + 3].kind != FGR_T_IDENT)
    return -1;
  int len;
  const char *p = fgr_tok_text(u, i + 3, &len);
  int g = -1;
  for (int k = 0; k < u->n_globals && g < 0; k++)
    if (u->globals[k].buffered && (int)strlen(u->globals[k].name) == len &&
        !memcmp(u->globals[k].name, p, (size_t)len))
      g = k;
  if (g < 0)
    return -1;
  const fgr_type *t = u->globals[g].type;
  int j = i + 4;
  while (t) {
    if (fgr_tok_is(u, j, "[") && u->match[j] > j) {
      t = t->kind == FGR_ARRAY ? t->of : NULL;
      j = u->match[j] + 1;
    } else if (fgr_tok_is(u, j, ".") && u->toks[j + 1].kind == FGR_T_IDENT) {
      const fgr_type *m = NULL;
      for (int k = 0; t->kind == FGR_STRUCT && k < t->n_members && !m; k++)
        if (fgr_tok_is(u, j + 1, t->members[k].name))
          m = t->members[k].type;
      t = m;
      j += 2;
    } else {
      break;
    }
  }
  if (!fgr_tok_is(u, j, ",") && !fgr_tok_is(u, j, ")"))
    return -1;
  *type = t;
  return g;
}

/* The first token where functions fns (and what they call) write a
 * global of the globals block: an assignment, ++ or -- of it or of an
 * element or member (fgr_global_write), or an rsAtomic* on &g or &g[i]
 * (an int or uint); its index into *gi.  -1 when none, -2 after an error
 * (an atomic on a global of another type). */
static int globals_write(launch *l, const fgr_func *const *fns, int n,
                         int *gi) {
  const fgr_unit *u = l->s->u;
  bool *seen = calloc((size_t)u->n_funcs + 1, 1);
  if (!seen) {
    fg__fail(l->g, FG_ENOMEM, "%s: out of memory", l->what);
    return -2;
  }
  fgr_reach(u, fns, n, seen);
  int t = -1;
  for (int f = 0; f < u->n_funcs && t == -1; f++)
    for (int i = u->funcs[f].rparen + 1; seen[f] && i < u->funcs[f].tok1 &&
                                         t == -1; i++) {
      int len;
      const char *p = fgr_tok_text(u, i, &len);
      int g;
      const fgr_type *e = NULL;
      if (u->toks[i].kind != FGR_T_IDENT || len <= 8 ||
          memcmp(p, "rsAtomic", 8) || (g = atomic_global(u, i, &e)) < 0)
        continue;
      if (!e || e->kind != FGR_NUM || e->width != 1 ||
          (e->elem != FG_I32 && e->elem != FG_U32)) {
        fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: %.*s updates %s of "
                 "global '%s' (expected an int or a uint)",
                 fgr_tok_file(u, i), u->toks[i].line, u->toks[i].col,
                 l->what, len, p, e ? fgr_type_str(e) : "a part",
                 u->globals[g].name);
        t = -2;
        break;
      }
      *gi = g;
      t = i;
    }
  free(seen);
  if (t != -1)
    return t;
  int g = -1;
  t = fgr_global_write(u, fns, n, &g);
  if (t >= 0 && !u->globals[g].buffered)
    return -1;          /* a const global: the compiler names the write */
  if (t >= 0)
    *gi = g;
  return t;
}

/* Refuses functions fns that write a global where a launch keeps no
 * copy of the globals (a reduction, an invokable run as one thread). */
static bool no_globals_write(launch *l, const fgr_func *const *fns, int n,
                             const char *where) {
  int g = -1;
  int t = globals_write(l, fns, n, &g);
  if (t == -2)
    return false;
  if (t < 0)
    return true;
  const fgr_unit *u = l->s->u;
  fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: writes global '%s' from %s, "
           "which fieldgraph does not run (a mapping kernel may: its launch "
           "leaves what it writes in the script's globals)",
           fgr_tok_file(u, t), u->toks[t].line, u->toks[t].col, l->what,
           u->globals[g].name, where);
  return false;
}

/* The rs_allocation globals (and for an invokable run as one thread,
 * l->pf, its rs_allocation parameters) that functions fns write with
 * rsSetElementAt_<type>(a, value, x[, y[, z]]), an rsAtomic* on
 * (volatile int32_t *)rsGetElementAt(a, ...) or p[e] = v through a
 * pointer global p.  gtok[k] (u->n_globals entries) is set to the token
 * of the first write of global k, ptok[p] (l->pf's parameters, when
 * l->pf) that of parameter p, -1 where none; returns how many
 * allocations they write, -2 after an error.  Such a write sets points
 * of the thread's choosing (a non-local write): the launch makes one new
 * field per written allocation, a copy of the field it is bound to with
 * the kernel's writes (threads writing one point race, as in
 * RenderScript), and rebinds the global to it.  The allocation must be
 * named directly. */
static int written_allocs(launch *l, const fgr_func *const *fns, int n,
                          int *gtok, int *ptok) {
  const fgr_unit *u = l->s->u;
  for (int k = 0; k < u->n_globals; k++)
    gtok[k] = -1;
  for (int p = 0; l->pf && p < l->pf->n_params; p++)
    ptok[p] = -1;
  bool *seen = calloc((size_t)u->n_funcs + 1, 1);
  if (!seen) {
    fg__fail(l->g, FG_ENOMEM, "%s: out of memory", l->what);
    return -2;
  }
  fgr_reach(u, fns, n, seen);
  static const char pre[] = "rsSetElementAt";
  const int pl = (int)sizeof pre - 1;
  int count = 0, r = 0;
  for (int f = 0; f < u->n_funcs && r == 0; f++) {
    if (!seen[f])
      continue;
    for (int i = u->funcs[f].rparen + 1; i < u->funcs[f].tok1 && r == 0;
         i++) {
      int len;
      const char *p = fgr_tok_text(u, i, &len);
      const fgr_type *at_type;
      bool atomic = u->toks[i].kind == FGR_T_IDENT && len > 8 &&
                    !memcmp(p, "rsAtomic", 8) && fgr_tok_is(u, i + 1, "(");
      /* p[e] = v through a pointer global bound like an allocation */
      int pw = -1;
      for (int k = 0; k < u->n_globals && pw < 0 &&
                      u->toks[i].kind == FGR_T_IDENT; k++)
        if (u->globals[k].pointee && fgr_tok_is(u, i, u->globals[k].name) &&
            !shadows(&u->funcs[f], u->globals[k].name) &&
            fgr_ptr_writes(u, &u->funcs[f], i))
          pw = k;
      if (pw < 0 && (u->toks[i].kind != FGR_T_IDENT ||
                     (!atomic && (len < pl || memcmp(p, pre, (size_t)pl))) ||
                     (atomic && atomic_global(u, i, &at_type) >= 0)))
        continue;     /* an atomic on a global: globals_write */
      /* the allocation: set's first argument; an atomic's address,
       * (volatile int32_t *)rsGetElementAt(global, ...) */
      int at = i + 2;
      if (atomic && pw < 0) {
        int j = i + 2, first = -1;
        bool is_uint;
        while (j <= i + 7 && !fgr_atomic_get(u, j, &first, &is_uint))
          j++;
        if (first != i + 2) {
          fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: %.*s updates something "
                   "else than an element of an rs_allocation global; "
                   "fieldgraph runs atomics as %.*s((volatile int32_t *)"
                   "rsGetElementAt(global, x[, y[, z]])...)",
                   fgr_tok_file(u, i), u->toks[i].line, u->toks[i].col,
                   l->what, len, p, len, p);
          r = -2;
          break;
        }
        at = j + 2;
      }
      int alen = 0;
      const char *ap = fgr_tok_text(u, at, &alen);
      int g = pw >= 0 ? pw
              : fgr_tok_is(u, at - 1, "(") && fgr_tok_is(u, at + 1, ",") &&
                        u->toks[at].kind == FGR_T_IDENT
                  ? -1 : -3;
      /* an rs_allocation parameter of an invokable run as one thread */
      int pp = pw < 0 && g == -1 && l->pf && f == (int)(l->pf - u->funcs)
                   ? param_alloc(l, ap, alen) : -1;
      for (int k = 0; k < u->n_globals && g == -1 && pp < 0; k++)
        if ((int)strlen(u->globals[k].name) == alen &&
            !memcmp(u->globals[k].name, ap, (size_t)alen) &&
            u->globals[k].alloc_index >= 0)
          g = k;
      if (g < 0 && pp < 0) {
        fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: %.*s writes %s; fieldgraph "
                 "runs writes to an rs_allocation global named as the first "
                 "argument", fgr_tok_file(u, i), u->toks[i].line,
                 u->toks[i].col, l->what, len, p,
                 g == -3 ? "an allocation it does not name directly"
                         : "something that is not an rs_allocation global");
        r = -2;
        break;
      }
      int *tok = pp >= 0 ? &ptok[pp] : &gtok[g];
      if (*tok < 0) {
        *tok = i;
        count++;
      }
      fg_field *b = pp >= 0 && atomic ? l->pfield[pp]
                    : g >= 0 && atomic
                    ? fgr_bound_field(l->s, u->globals[g].alloc_index) : NULL;
      if (b && (fg_type_is_big(b->type) ||
                fg_type_tensor_elements(b->type) != 1 ||
                (b->type.elem != FG_I32 && b->type.elem != FG_U32))) {
        char ts[128];
        fg__fail(l->g, FG_ETYPE, "%s:%d:%d: %s: %.*s updates an int of "
                 "rs_allocation '%s', which is bound to field '%s' of type "
                 "%s (expected i32 or u32 elements)", fgr_tok_file(u, i),
                 u->toks[i].line, u->toks[i].col, l->what, len, p,
                 pp >= 0 ? l->pf->params[pp].name : u->globals[g].name,
                 b->name, fg_type_str(b->type, ts, sizeof ts));
        r = -2;
      }
    }
  }
  free(seen);
  if (r == -2)
    return r;
  /* one through a macro, which the scan above does not follow */
  for (int k = 0; k < n && count == 0; k++) {
    int t = fns[k] ? fgr_func_mention(u, fns[k], pre, true) : -1;
    if (t >= 0) {
      fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: %s is reached through a "
               "macro; fieldgraph runs rsSetElementAt_<type> written in a "
               "function", fgr_tok_file(u, t), u->toks[t].line,
               u->toks[t].col, l->what, pre);
      return -2;
    }
  }
  return count;
}

void fgr_kernel_sets(fg_rs_script *s, const fgr_func *kf, bool *set) {
  const fgr_unit *u = s->u;
  launch l = {.s = s, .what = ""};      /* no graph: no message */
  int *gtok = malloc(((size_t)u->n_globals + 1) * sizeof *gtok);
  int n = gtok ? written_allocs(&l, &kf, 1, gtok, NULL) : -2;
  for (int k = 0; k < u->n_globals; k++)
    set[k] = n > 0 && gtok[k] >= 0;
  free(gtok);
}

/* Refuses a launch whose outputs (one beside the allocations when also
 * is not NULL: the kernel's value, or an invokable's copy of the globals
 * block, which also names; then the allocations gtok and ptok mark:
 * written_allocs) are more than a node has, naming the write that is one
 * too many. */
static bool few_enough_writes(launch *l, const char *also, const int *gtok,
                              const int *ptok) {
  const fgr_unit *u = l->s->u;
  int n = also != NULL, last = -1;
  for (int p = 0; l->pf && p < l->pf->n_params; p++)
    if (ptok[p] >= 0 && ++n > FG_MAX_OUTPUTS && last < 0)
      last = ptok[p];
  for (int k = 0; k < u->n_globals; k++)
    if (gtok[k] >= 0 && ++n > FG_MAX_OUTPUTS && last < 0)
      last = gtok[k];
  if (last < 0)
    return true;
  int len;
  const char *p = fgr_tok_text(u, last, &len);
  fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: %.*s writes one of %d "
           "allocations%s; fieldgraph runs a launch with at most %d "
           "results (the value or the globals, and each allocation "
           "written)", fgr_tok_file(u, last), u->toks[last].line,
           u->toks[last].col, l->what, len, p, n - (also != NULL),
           also ? also : "", FG_MAX_OUTPUTS);
  return false;
}

/* Refuses functions fns that write a bound allocation, where a launch
 * cannot keep what they write (a reduction's functions). */
static bool no_set_element(launch *l, const fgr_func *const *fns, int n) {
  const fgr_unit *u = l->s->u;
  bool *seen = calloc((size_t)u->n_funcs + 1, 1);
  if (!seen) {
    fg__fail(l->g, FG_ENOMEM, "%s: out of memory", l->what);
    return false;
  }
  fgr_reach(u, fns, n, seen);
  int pt = -1, pg = -1;
  for (int f = 0; f < u->n_funcs && pt < 0; f++)
    for (int i = u->funcs[f].rparen + 1; seen[f] && i < u->funcs[f].tok1 &&
                                         pt < 0; i++)
      for (int k = 0; k < u->n_globals && pt < 0; k++)
        if (u->globals[k].pointee && fgr_tok_is(u, i, u->globals[k].name) &&
            !shadows(&u->funcs[f], u->globals[k].name) &&
            fgr_ptr_writes(u, &u->funcs[f], i)) {
          pt = i;
          pg = k;
        }
  free(seen);
  if (pt >= 0) {
    fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: writes through pointer "
             "global '%s' from a reduction, which fieldgraph does not run "
             "(a mapping kernel may: its launch makes the written copy)",
             fgr_tok_file(u, pt), u->toks[pt].line, u->toks[pt].col, l->what,
             u->globals[pg].name);
    return false;
  }
  for (int k = 0; k < n; k++) {
    int t = fns[k] ? fgr_func_mention(u, fns[k], "rsSetElementAt", true)
                   : -1;
    if (t < 0)
      continue;
    int len;
    const char *p = fgr_tok_text(u, t, &len);
    fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: %.*s writes a bound "
             "allocation from a reduction, which fieldgraph does not run "
             "(a mapping kernel may: its launch makes the written copy)",
             fgr_tok_file(u, t), u->toks[t].line, u->toks[t].col, l->what,
             len, p);
    return false;
  }
  return true;
}

/* Refuses functions fns that fieldgraph cannot run: a kernel of a shape
 * it does not run (a root() without an output), one that reaches a global
 * it cannot hold (a pointer, an rs_script) or a call the runtime lacks,
 * naming it at its file:line:column (the script's other kernels are
 * unaffected: each kernel is built with only the functions it reaches). */
static bool no_unsupported(launch *l, const fgr_func *const *fns, int n) {
  const fgr_unit *u = l->s->u;
  for (int k = 0; k < n; k++)
    if (fns[k] && fns[k]->bad_why) {
      int b = fns[k]->bad_tok;
      fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: %s", fgr_tok_file(u, b),
               u->toks[b].line, u->toks[b].col, l->what, fns[k]->bad_why);
      return false;
    }
  char why[600];
  int t = fgr_bad_ptr_use(u, fns, n, why, sizeof why);
  if (t >= 0) {
    fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: %s", fgr_tok_file(u, t),
             u->toks[t].line, u->toks[t].col, l->what, why);
    return false;
  }
  const fgr_bad_global *bad = NULL;
  t = fgr_bad_global_use(u, fns, n, &bad);
  if (t >= 0) {
    fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: uses global '%s', which "
             "fieldgraph cannot hold (%s:%d:%d: %s)", fgr_tok_file(u, t),
             u->toks[t].line, u->toks[t].col, l->what, bad->name,
             fgr_tok_file(u, bad->tok), u->toks[bad->tok].line,
             u->toks[bad->tok].col, bad->why);
    return false;
  }
  t = fgr_unsupported_call(u, fns, n);
  if (t < 0)
    return true;
  int len;
  const char *p = fgr_tok_text(u, t, &len);
  if (len == 14 && !memcmp(p, "rsGetElementAt", 14))
    fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: rsGetElementAt's pointer is "
             "used as fieldgraph does not: it reads *(const T *)"
             "rsGetElementAt(a, x, ...), T *p = rsGetElementAt(a, x, ...) "
             "declaring p, and (volatile int32_t *)rsGetElementAt(...) for "
             "the atomics", fgr_tok_file(u, t), u->toks[t].line,
             u->toks[t].col, l->what);
  else if (fgr_host_runtime_has(p, len))
    fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: '%.*s' runs only in "
             "invokables on the host (fg_rs_call), not in kernels",
             fgr_tok_file(u, t), u->toks[t].line, u->toks[t].col, l->what,
             len, p);
  else
    fg__fail(l->g, FG_ENOTSUP, "%s:%d:%d: %s: '%.*s' is not a function of "
             "fieldgraph's RenderScript runtime (the script does not define "
             "it either)", fgr_tok_file(u, t), u->toks[t].line,
             u->toks[t].col, l->what, len, p);
  return false;
}

/* The element type and width rsGetElementAt_<suffix> reads (p, len
 * bytes after the prefix); false for another suffix. */
static bool get_suffix(const char *p, int len, fg_elem *e, int *w) {
  static const struct { const char *n; fg_elem e; } el[] = {
    {"char", FG_I8}, {"uchar", FG_U8}, {"short", FG_I16}, {"ushort", FG_U16},
    {"int", FG_I32}, {"uint", FG_U32}, {"long", FG_I64}, {"ulong", FG_U64},
    {"float", FG_F32}, {"double", FG_F64}};
  for (size_t k = 0; k < sizeof el / sizeof *el; k++) {
    int n = (int)strlen(el[k].n);
    if (len < n || memcmp(p, el[k].n, (size_t)n))
      continue;
    if (len == n) {
      *e = el[k].e;
      *w = 1;
      return true;
    }
    if (len == n + 1 && p[n] >= '2' && p[n] <= '4') {
      *e = el[k].e;
      *w = p[n] - '0';
      return true;
    }
  }
  return false;
}

/* Bytes of the type T names at token t of an untyped rsGetElementAt's
 * pointer (fgr_untyped_ptr): a scalar or vector (a 3-element vector:
 * *vec3 set, its 16 bytes past an element of 12), a fixed-width integer,
 * or a script type; 0 when unknown. */
static int64_t ptr_type_bytes(const fgr_unit *u, const fgr_eptr *e,
                              bool *vec3) {
  int len;
  const char *p = fgr_tok_text(u, e->type, &len);
  fg_elem el;
  int w;
  *vec3 = false;
  if (!e->is_struct && get_suffix(p, len, &el, &w)) {
    *vec3 = w == 3;
    return (int64_t)fg_elem_size(el) * w;
  }
  static const struct { const char *n; int b; } fixed[] = {
    {"int8_t", 1}, {"uint8_t", 1}, {"int16_t", 2}, {"uint16_t", 2},
    {"int32_t", 4}, {"uint32_t", 4}, {"int64_t", 8}, {"uint64_t", 8}};
  for (size_t k = 0; k < sizeof fixed / sizeof *fixed && !e->is_struct; k++)
    if ((int)strlen(fixed[k].n) == len && !memcmp(fixed[k].n, p, (size_t)len))
      return fixed[k].b;
  for (int k = u->n_named - 1; k >= 0; k--)
    if (u->named[k].tag == e->is_struct &&
        (int)strlen(u->named[k].name) == len &&
        !memcmp(u->named[k].name, p, (size_t)len)) {
      const fgr_type *t = u->named[k].type;
      *vec3 = t->kind == FGR_NUM && t->width == 3;
      return t->size;
    }
  return 0;
}

/* Whether field b, bound to global g that the YUV getter (or with
 * sample, rsSample) at token i reads, holds what it reads: an NV21 image,
 * a 2-D uchar field of h * 3 / 2 rows and w columns (h is then even); for
 * rsSample a 2-D uchar4 image. */
static bool image_field(launch *l, int i, int g, const fg_field *b,
                        bool sample) {
  const fgr_unit *u = l->s->u;
  const fg_shape sh = b->type.field;
  if (b->type.elem == FG_U8 && !fg_type_is_big(b->type) &&
      fg_type_tensor_elements(b->type) == (sample ? 4 : 1) &&
      sh.ndim == 2 && (sample || sh.dim[0] % 3 == 0))
    return true;
  int len;
  const char *p = fgr_tok_text(u, i, &len);
  char ts[128];
  fg__fail(l->g, FG_ETYPE, "%s:%d:%d: %s: %.*s reads rs_allocation '%s', "
           "which is bound to field '%s' of type %s: %s", fgr_tok_file(u, i),
           u->toks[i].line, u->toks[i].col, l->what, len, p,
           u->globals[g].name, b->name, fg_type_str(b->type, ts, sizeof ts),
           sample ? "rsSample reads a 2-D uchar4 Allocation (an RGBA image)"
                  : "a YUV (NV21) allocation is bound as a 2-D uchar field "
                    "of h * 3 / 2 rows and w columns");
  return false;
}

/* Refuses rsGetElementAt_<T>(a, ...) in the functions fns reach when a is
 * bound to a field of another element type or width: the read would
 * reinterpret the field's bytes and index past its end. */
static bool get_element_types(launch *l, const fgr_func *const *fns,
                              int n) {
  const fgr_unit *u = l->s->u;
  bool *seen = calloc((size_t)u->n_funcs + 1, 1);
  if (!seen) {
    fg__fail(l->g, FG_ENOMEM, "%s: out of memory", l->what);
    return false;
  }
  fgr_reach(u, fns, n, seen);
  static const char pre[] = "rsGetElementAt_",
                    yuv_pre[] = "rsGetElementAtYuv_",
                    set_pre[] = "rsSetElementAt_";
  const int pl = (int)sizeof pre - 1, yl = (int)sizeof yuv_pre - 1,
            spl = (int)sizeof set_pre - 1;
  bool ok = true;
  for (int f = 0; f < u->n_funcs && ok; f++) {
    if (!seen[f])
      continue;
    for (int i = u->funcs[f].rparen + 1; i + 2 < u->funcs[f].tok1 && ok;
         i++) {
      int len;
      const char *p = fgr_tok_text(u, i, &len);
      bool yuv = len > yl && !memcmp(p, yuv_pre, (size_t)yl);
      bool sample = len == 8 && !memcmp(p, "rsSample", 8);
      int d0, ty, tlen;
      bool untyped = fgr_untyped_get(u, i, &d0, &ty);
      fgr_eptr ep;
      bool eptr = !untyped && fgr_untyped_ptr(u, i, &ep);
      /* a write of another type would also write past the field */
      bool set = len > spl && !memcmp(p, set_pre, (size_t)spl);
      if (u->toks[i].kind != FGR_T_IDENT || !fgr_tok_is(u, i + 1, "(") ||
          (!yuv && !sample && !untyped && !set && !eptr &&
           (len <= pl || memcmp(p, pre, (size_t)pl))))
        continue;
      int alen;
      const char *ap = fgr_tok_text(u, i + 2, &alen);
      int g = -1;
      for (int k = 0; k < u->n_globals && g < 0; k++)
        if ((int)strlen(u->globals[k].name) == alen &&
            !memcmp(u->globals[k].name, ap, (size_t)alen) &&
            u->globals[k].alloc_index >= 0)
          g = k;
      /* an invokable's rs_allocation parameter, in its own body */
      int pp = g < 0 && l->pf && f == (int)(l->pf - u->funcs)
                   ? param_alloc(l, ap, alen) : -1;
      if (g < 0 && (pp < 0 || yuv || sample))
        continue;
      fg_field *b = pp >= 0 ? l->pfield[pp]
                            : fgr_bound_field(l->s, u->globals[g].alloc_index);
      const char *aname = pp >= 0 ? l->pf->params[pp].name : u->globals[g].name;
      fg_elem e;
      int w;
      if (b && (yuv || sample)) {
        ok = image_field(l, i, g, b, sample);
        continue;
      }
      if (!b)
        continue;
      /* the bytes of one element of the field, and of what is read: an
       * Element of another type of the same size reads the same bytes,
       * as Android's runtime lets it (uchar4 as char4, U8 as char) */
      int64_t have = fg_type_is_big(b->type) ? -1
          : (int64_t)fg_elem_size(b->type.elem) *
                fg_type_tensor_elements(b->type), want;
      bool vec3 = false;
      const char *suf;
      if (eptr) {
        suf = fgr_tok_text(u, ep.type, &tlen);
        want = ptr_type_bytes(u, &ep, &vec3);
      } else {
        suf = untyped ? fgr_tok_text(u, ty, &tlen) : set ? p + spl : p + pl;
        if (!untyped)
          tlen = len - (set ? spl : pl);
        if (!get_suffix(suf, tlen, &e, &w))
          continue;
        want = (int64_t)fg_elem_size(e) * w;
        /* rsGetElementAt_<type>: integers of another signedness (an
         * explicit cast through a pointer reads any type of the size) */
        if (!untyped && have > 0 && e != b->type.elem &&
            (fgk_is_float(e) || fgk_is_float(b->type.elem)))
          want = -1;
      }
      if (want > 0 && want == have && !vec3)
        continue;
      char ts[128];
      fg__fail(l->g, FG_ETYPE, "%s:%d:%d: %s: %s%.*s %s rs_allocation "
               "'%s', which is %s field '%s' of type %s: %s",
               fgr_tok_file(u, i), u->toks[i].line, u->toks[i].col, l->what,
               untyped || eptr ? "rsGetElementAt as " : "",
               untyped || eptr ? tlen : len, untyped || eptr ? suf : p,
               set ? "writes" : "reads", aname,
               pp >= 0 ? "the argument," : "bound to", b->name,
               fg_type_str(b->type, ts, sizeof ts),
               vec3 ? "a pointer to a 3-element vector reads 4 elements' "
                      "bytes (read it with rsGetElementAt_<type>)"
               : want == 0 ? "fieldgraph cannot size the pointer's type"
               : want < 0 ? "the Element types must match (or differ only "
                            "in signedness)"
                          : "the Elements must be of the same size");
      ok = false;
    }
  }
  free(seen);
  return ok;
}

/* Fills ports[0 .. n_allocs] (globals, allocations) for a call of u whose
 * functions fns mention globals and allocations; the fields are in
 * fields[] (port i reads fields[i], NULL for -1). */
static bool env_fields(launch *l, const fgr_func *const *fns, int n_fns,
                       fg_field **fields) {
  fgr_unit *u = l->s->u;
  fields[0] = u->n_buffered ? globals_field(l->g, u) : NULL;
  if (u->n_buffered && !fields[0])
    return false;
  for (int k = 0; k < u->n_globals; k++) {
    int a = u->globals[k].alloc_index;
    if (a < 0)
      continue;
    fg_field *b = fgr_bound_field(l->s, a);
    bool used = false;
    for (int f = 0; f < n_fns && !used; f++)
      used = fns[f] && fgr_func_mentions(u, fns[f], u->globals[k].name);
    if (used && !b && l->s->bound[a].field) {
      fg__fail(l->g, FG_ESTATE, "%s: the kernel reads rs_allocation '%s', "
               "which is bound to field '%s' of a graph that was freed "
               "(bind it again with fg_rs_bind_allocation)", l->what,
               u->globals[k].name, l->s->bound[a].name);
      return false;
    }
    if (used && !b) {
      fg__fail(l->g, FG_EINVAL, "%s: the kernel reads %s '%s', "
               "which is not bound (fg_rs_bind_allocation)", l->what,
               u->globals[k].pointee ? "pointer global" : "rs_allocation",
               u->globals[k].name);
      return false;
    }
    if (used && b->graph != l->g) {
      fg__fail(l->g, FG_EINVAL, "%s: rs_allocation '%s' is bound to field "
               "'%s' of another graph", l->what, u->globals[k].name,
               b->name);
      return false;
    }
    fields[1 + a] = used ? b : NULL;
  }
  return true;
}

static fgr_call *new_call(launch *l, fgr_call_kind kind) {
  fgr_call *c = fgu_arena_alloc(&l->g->arena, sizeof *c);
  if (!c)
    return fg__fail(l->g, FG_ENOMEM, "%s: out of memory", l->what);
  c->kind = kind;
  c->u = l->s->u;
  c->n_written = 0;
  c->written = NULL;
  c->out_base = false;
  memcpy(c->range, l->range, sizeof c->range);
  c->ranged = l->ranged;
  return c;
}

/* A foreign call of c: an expression of op with the given arguments; ports from
 * fields[0 .. nf-1] (registered as non-local inputs). */
static fg_expr *call_expr(fg_op *op, const fgr_call *c, fgk_type type, int n,
                          fg_expr **args, fg_field **fields, int nf) {
  for (int k = 0; k < n; k++)
    if (!args[k])
      return NULL;
  fg_expr *x = fgk_expr_new(op, FGK_E_FOREIGN, type);
  if (!x)
    return NULL;
  fgu_arena *a = &op->g->arena;
  x->u.foreign.hooks = &fgr_foreign;
  x->u.foreign.payload = c;
  x->u.foreign.n = n;
  x->u.foreign.arg = fgu_arena_alloc(a, (size_t)(n + 1) * sizeof *args);
  x->u.foreign.port = fgu_arena_alloc(a, (size_t)(nf + 1) * sizeof(int));
  if (!x->u.foreign.arg || !x->u.foreign.port)
    return fgk_fail(op, FG_ENOMEM, "out of memory");
  if (n > 0)     /* args may be NULL when there are none */
    memcpy(x->u.foreign.arg, args, (size_t)n * sizeof *args);
  x->u.foreign.n_ports = nf;
  x->u.foreign.n_outs = 0;
  x->u.foreign.out_port = NULL;
  for (int k = 0; k < nf; k++) {
    x->u.foreign.port[k] = fields[k] ? fgk_op_input(op, fields[k], "script call")
                                : -1;
    if (fields[k] && x->u.foreign.port[k] < 0)
      return NULL;
    if (x->u.foreign.port[k] >= 0)
      op->in_nonlocal[x->u.foreign.port[k]] = true;
  }
  return x;
}

/* Call x writes n outputs of op itself, first .. first + n - 1 (its
 * payload's written slots, in order). */
static bool set_outs(fg_op *op, fg_expr *x, int first, int n) {
  x->u.foreign.out_port = fgu_arena_alloc(&op->g->arena,
                                          (size_t)(n + 1) * sizeof(int));
  if (!x->u.foreign.out_port) {
    fgk_fail(op, FG_ENOMEM, "out of memory");
    return false;
  }
  for (int i = 0; i < n; i++)
    x->u.foreign.out_port[i] = first + i;
  x->u.foreign.n_outs = n;
  return true;
}

/* After the node of call c is built (r, one of its outputs), later
 * launches read what it wrote: outputs first .. first + c->n_written - 1,
 * in c->written's order.  An allocation's global is rebound to its copy
 * (fg_rs_allocation_field returns it); the globals block's copy is what
 * each run leaves in the script's globals (the graph holds u->live). */
static bool keep_written(launch *l, const fgr_call *c, fg_field *r,
                         int first) {
  fg_graph *g = l->g;
  fgr_unit *u = l->s->u;
  for (int i = 0; i < c->n_written; i++) {
    fg_field *copy = r->producer->out[first + i];
    if (!c->written[i]) {
      for (int j = 0; j < g->fields.n; j++)
        if (((fg_field *)g->fields.item[j])->sink == &u->live)
          ((fg_field *)g->fields.item[j])->sink = NULL;
      copy->sink = &u->live;
      continue;
    }
    if (c->written[i] > u->n_allocs)
      continue;                 /* an invokable's parameter */
    int k = 0;
    while (u->globals[k].alloc_index != c->written[i] - 1)
      k++;
    if (rebind(l->s, k, copy) != FG_OK) {
      fg__fail(g, FG_EINVAL, "%s: %s", l->what, l->s->errmsg);
      return false;
    }
  }
  return true;
}

static bool launch_begin(launch *l, fg_graph *g, fg_rs_script *s,
                         const char *call, const char *name) {
  l->g = g;
  l->s = s;
  if (!g || g->status != FG_OK)
    return false;
  if (!s) {
    fg__fail(g, FG_EINVAL, "%s: script is NULL", call);
    return false;
  }
  if (!name) {
    fg__fail(g, FG_EINVAL, "%s: script '%s': kernel name is NULL", call,
             s->u->name);
    return false;
  }
  l->what = fgu_arena_printf(&g->arena, "%s '%s.%s'", call, s->u->name,
                             name);
  if (!l->what) {
    fg__fail(g, FG_ENOMEM, "%s: out of memory", call);
    return false;
  }
  if (!fg__graph_hold(g, &s->u->live))
    return false;
  return true;
}

/* The node of f (NULL passes through) asks for its script's precision. */
static fg_field *with_fp(fg_field *f, const fgr_unit *u) {
  if (f && f->producer && f->producer->kernel)
    f->producer->kernel->fp = u->fp == FG_RS_FP_FULL ? FGK_FP_FULL
                                                     : FGK_FP_RELAXED;
  return f;
}

/* Names of u's kernels of one kind, for messages. */
static const char *kernel_list(fg_graph *g, const fgr_unit *u, bool reduce) {
  fgu_buf b = {0};
  if (reduce)
    for (int k = 0; k < u->n_reduces; k++)
      fgu_buf_printf(&b, "%s%s", b.len ? ", " : "", u->reduces[k].name);
  else
    for (int k = 0; k < u->n_funcs; k++)
      if (u->funcs[k].is_kernel && u->funcs[k].has_body)
        fgu_buf_printf(&b, "%s%s", b.len ? ", " : "", u->funcs[k].name);
  char *s = fgu_buf_take(&b);
  const char *r = fgu_arena_strdup(&g->arena, s && *s ? s : "none");
  free(s);
  return r ? r : "?";
}

fg_field *fg_rs_map(fg_graph *g, fg_rs_script *s, const char *kernel,
                    int n_in, fg_field *const *in, const fg_rs_launch *opt) {
  launch l = {0};
  if (!launch_begin(&l, g, s, "fg_rs_map", kernel))
    return NULL;
  fgr_unit *u = s->u;
  const fgr_func *f = fgr_find_func(u, kernel);
  if (!f || !f->is_kernel || !f->has_body)
    return fg__fail(g, FG_EINVAL, "%s: script '%s' has no mapping kernel "
                    "'%s' (its mapping kernels: %s)", l.what, u->name,
                    kernel, kernel_list(g, u, false));
  /* a call the runtime lacks is named first, then what the kernel writes
   * (a void kernel may write through rsSetElementAt only) */
  if (!no_unsupported(&l, &f, 1))
    return NULL;
  /* the allocations it sets elements of, each one more result */
  int *gtok = fgu_arena_alloc(&g->arena, ((size_t)u->n_globals + 1) *
                                             sizeof *gtok);
  if (!gtok)
    return fg__fail(g, FG_ENOMEM, "%s: out of memory", l.what);
  int nw = written_allocs(&l, &f, 1, gtok, NULL);
  if (nw == -2)
    return NULL;
  int wg = -1;          /* the first written, in declaration order */
  for (int k = 0; k < u->n_globals && wg < 0; k++)
    if (gtok[k] >= 0)
      wg = k;
  /* a kernel that writes script globals updates the launch's copy of the
   * globals block, which every thread shares (atomics are atomic, plain
   * writes race: some thread's last write is what is left) */
  int gg = -1;
  int gt = globals_write(&l, &f, 1, &gg);
  if (gt == -2)
    return NULL;
  if (gt >= 0 && wg >= 0)
    return fg__fail(g, FG_ENOTSUP, "%s:%d:%d: %s: kernel '%s' writes global "
                    "'%s' and %s '%s'; fieldgraph runs kernels that write "
                    "one of the two", fgr_tok_file(u, gt), u->toks[gt].line,
                    u->toks[gt].col, l.what, kernel, u->globals[gg].name,
                    u->globals[wg].pointee ? "writes through pointer global"
                                           : "sets elements of rs_allocation",
                    u->globals[wg].name);
  bool is_void = f->ret->kind == FGR_VOID && !f->ret_ptr;
  fgk_type rt = fgk_t(FG_U8, 1);
  /* a void kernel that sets nothing (Android's tests launch such kernels
   * to check types) runs over the launch's points; its value is a u8
   * field of zeros of that shape, which nothing needs to read */
  bool value_out = !is_void || (wg < 0 && gt < 0);
  if (!few_enough_writes(&l, value_out ? " of a kernel that also returns "
                                         "a value" : NULL, gtok, NULL))
    return NULL;
  if (!is_void && (f->ret_ptr || !fgr_type_carrier(f->ret, &rt)))
    return fg__fail(g, FG_ENOTSUP, "%s: kernel '%s' returns %s; fieldgraph "
                    "runs mapping kernels that return a scalar or vector "
                    "Element or a struct of up to 32 bytes", l.what, kernel,
                    f->ret->name);
  if (!check_inputs(&l, f, 0, n_in, in))
    return NULL;
  if (n_in == 0) {
    l.shape = opt ? opt->shape : fg_shape0();
    if (l.shape.ndim < 1 || l.shape.ndim > 3)
      return fg__fail(g, FG_ESHAPE, "%s: kernel '%s' takes no input, so the "
                      "launch options must give the output's shape (1 to 3 "
                      "dimensions, got %d)", l.what, kernel, l.shape.ndim);
  }
  if (!check_range(&l, opt))
    return NULL;
  fg_type out = rt.width == 1 ? fg_type_scalar(rt.elem, l.shape)
                              : fg_type_vector(rt.elem, l.shape, rt.width);
  fg_field *base = opt ? opt->base : NULL;
  if (base && !is_void &&
      (base->graph != g || !fg_type_equal(base->type, out))) {
    char ts[128], ts2[128];
    return fg__fail(g, FG_ETYPE, "%s: base field '%s' is %s (expected %s%s)",
                    l.what, base->name, fg_type_str(base->type, ts, sizeof ts),
                    fg_type_str(out, ts2, sizeof ts2),
                    base->graph != g ? " in this graph" : "");
  }
  fg_field *env[2 + 64] = {0};
  if (u->n_allocs > 64)
    return fg__fail(g, FG_ENOTSUP, "%s: more than 64 rs_allocation globals",
                    l.what);
  if (!env_fields(&l, &f, 1, env) || !get_element_types(&l, &f, 1))
    return NULL;
  /* a legacy kernel that reads other elements through its input pointer
   * takes the input whole too, after the environment's ports */
  int nf = 1 + u->n_allocs;
  if (f->legacy_in_indexed && n_in == 1)
    env[nf++] = in[0];
  /* each written allocation (or the globals block): an output that
   * starts as its bound field; the kernel reaches it through that output,
   * not as an input.  Results: the value, then the allocations in the
   * order they are declared */
  fgr_call *c = new_call(&l, FGR_CALL_MAP);
  int *slots = fgu_arena_alloc(&g->arena, (size_t)(nw + 2) * sizeof *slots);
  if (!c || !slots)
    return c ? fg__fail(g, FG_ENOMEM, "%s: out of memory", l.what) : NULL;
  c->fn = f;
  c->written = slots;
  fg_type types[FG_MAX_OUTPUTS];
  fg_field *starts[FG_MAX_OUTPUTS];
  int n_out = 0;
  if (value_out)
    types[n_out++] = out;
  int first_out = n_out;
  if (gt >= 0) {
    if (!env[0])
      return NULL;
    slots[c->n_written++] = 0;
    starts[n_out] = env[0];
    types[n_out++] = env[0]->type;
    env[0] = NULL;
  }
  for (int k = 0; k < u->n_globals; k++) {
    int wa = u->globals[k].alloc_index;
    if (gtok[k] < 0)
      continue;
    if (!env[1 + wa])
      return fg__fail(g, FG_EINVAL, "%s: the kernel sets elements of "
                      "%s '%s', which is not bound (fg_rs_bind_allocation)",
                      l.what, u->globals[k].pointee ? "pointer global"
                                                    : "rs_allocation",
                      u->globals[k].name);
    slots[c->n_written++] = 1 + wa;
    starts[n_out] = env[1 + wa];
    types[n_out++] = env[1 + wa]->type;
    env[1 + wa] = NULL;
  }
  bool written = c->n_written > 0;
  fg_op *op = fg_op_begin(g, kernel, n_out, types);
  if (!op)
    return NULL;
  for (int o = first_out; o < n_out; o++)
    if (!fgk_op_output_starts_as(op, o, starts[o]))
      return NULL;
  /* a void kernel's points are the launch's, whatever the shape of the
   * allocation it writes (its only output) */
  if (written && is_void)
    fg_global_threads(op, l.shape);
  fg_expr *args[FGK_MAX_INPUTS + 1] = {0};
  for (int k = 0; k < n_in; k++)
    args[k] = fg_read_tensor(op, in[k]);
  /* a legacy root()'s output pointer points into the output Allocation,
   * as on Android: what the root() does not write keeps base's value */
  c->out_base = base && f->legacy && f->legacy_out >= 0;
  if (c->out_base)
    args[n_in] = fg_read_tensor(op, base);
  fg_expr *value = call_expr(op, c, rt, n_in + c->out_base, args, env, nf);
  if (value && !set_outs(op, value, first_out, c->n_written))
    return NULL;
  fg_field *r = NULL;
  if (!l.ranged && !value_out) {
    fgk_op_eval(op, value);
    r = fg_op_end(op);
  } else if (!l.ranged) {
    fg_write_tensor(op, 0, value);
    r = fg_op_end(op);
  } else {
    /* a sub-range: the kernel runs only inside it; outside, the output
     * keeps base's values (zeros without one) */
    static const fg_thread_const ax[3] = {FG_COLUMN, FG_ROW, FG_LAYER};
    fg_expr *v = value_out ? fg_var(op, rt.elem, rt.width) : NULL;
    fg_expr *cond = fg_bool(op, 1);
    for (int a = 0; a < 3; a++)
      if (l.range[a][1] > 0)
        cond = fg_land(cond, fg_land(
            fg_ge(fg_thread(op, ax[a]), fg_long(op, l.range[a][0])),
            fg_lt(fg_thread(op, ax[a]), fg_long(op, l.range[a][1]))));
    fg_if(cond);
    if (!value_out)
      fgk_op_eval(op, value);
    else
      fg_assign(v, value);
    if (base && !is_void) {
      fg_else(op);
      fg_assign(v, fg_read_tensor(op, base));
    }
    fg_end(op);
    if (value_out)
      fg_write_tensor(op, 0, v);
    r = fg_op_end(op);
  }
  r = with_fp(r, u);
  if (!r || !written)
    return r;
  /* later launches read the copies (the graph holds u->live:
   * launch_begin) */
  if (!keep_written(&l, c, r, first_out))
    return NULL;
  return is_void ? r->producer->out[first_out] : r;
}

/* Whether parameter q of an invokable run as one thread is a value
 * (fg_rs_invoke_args passes it): a named numeric scalar or vector, or a
 * bool. */
static bool value_param(const fgr_param *q) {
  return q->name && !q->ptr &&
         ((q->type->kind == FGR_NUM && q->type->width >= 1 &&
           q->type->width <= 4) || q->type->kind == FGR_BOOL);
}

fg_status fgr_invoke_single(fg_graph *g, fg_rs_script *s, const fgr_func *f,
                            const char *what, const void *const *values,
                            int n_args, fg_field *const *args,
                            fg_field **results, int *n_results) {
  *n_results = 0;
  fgr_unit *u = s->u;
  launch l = {.g = g, .s = s, .what = what, .pf = f, .pfield = args};
  if (!fg__graph_hold(g, &u->live))
    return g->status;
  int n_alloc_params = 0;
  for (int p = 0; p < f->n_params; p++) {
    const fgr_param *q = &f->params[p];
    if (value_param(q) && (!values || !values[p])) {
      fg__fail(g, FG_EINVAL, "%s:%d:%d: %s: parameter %s of '%s' is %s; "
               "pass its value with fg_rs_invoke_args",
               fgr_tok_file(u, q->tok), u->toks[q->tok].line,
               u->toks[q->tok].col, what, q->name, f->name, q->type->name);
      return g->status;
    }
    if (value_param(q))
      continue;
    if (q->type->kind != FGR_ALLOC || q->ptr || !q->name) {
      fg__fail(g, FG_ENOTSUP, "%s:%d:%d: %s: parameter %s of '%s' is %s%s; "
               "an invokable run as one thread takes named rs_allocation, "
               "numeric and bool parameters only", fgr_tok_file(u, q->tok),
               u->toks[q->tok].line, u->toks[q->tok].col, what,
               q->name ? q->name : "?", f->name, q->type->name,
               q->ptr ? " *" : "");
      return g->status;
    }
    n_alloc_params++;
  }
  if (n_args != n_alloc_params) {
    fg__fail(g, FG_EINVAL, "%s: '%s' runs as one thread over its %d "
             "rs_allocation parameter(s), each an argument; got %d",
             what, f->name, n_alloc_params, n_args);
    return g->status;
  }
  for (int a = 0; a < n_args; a++)
    if (!args[a] || args[a]->graph != g) {
      fg__fail(g, FG_EINVAL, "%s: argument %d is %s", what, a,
               args[a] ? "a field of another graph" : "NULL");
      return g->status;
    }
  if (FGK_MAX_INPUTS < 2 + u->n_allocs + f->n_params) {
    fg__fail(g, FG_ENOTSUP, "%s: more than %d allocations and parameters",
             what, FGK_MAX_INPUTS - 2);
    return g->status;
  }
  if (!no_unsupported(&l, &f, 1))
    return g->status;
  /* the allocations it sets elements of, each a result; globals it
   * writes go to a copy of the globals block, which later launches read
   * and each run leaves in the script's globals (as a mapping kernel's,
   * fg_rs_map) */
  int *gtok = fgu_arena_alloc(&g->arena, ((size_t)u->n_globals + 1) *
                                             sizeof *gtok);
  int ptok[FGK_MAX_INPUTS];
  if (!gtok) {
    fg__fail(g, FG_ENOMEM, "%s: out of memory", what);
    return g->status;
  }
  int nw = written_allocs(&l, &f, 1, gtok, ptok);
  if (nw == -2)
    return g->status;
  int gg = -1;
  int gt = globals_write(&l, &f, 1, &gg);
  if (gt == -2 ||
      !few_enough_writes(&l, gt >= 0 ? " of a function that also writes "
                                       "script globals" : NULL, gtok, ptok))
    return g->status;
  fg_field *env[1 + 64 + FGK_MAX_INPUTS] = {0};
  if (u->n_allocs > 64) {
    fg__fail(g, FG_ENOTSUP, "%s: more than 64 rs_allocation globals", what);
    return g->status;
  }
  if (!env_fields(&l, &f, 1, env) || !get_element_types(&l, &f, 1))
    return g->status;
  if (nw == 0 && gt < 0) {
    fg__fail(g, FG_ENOTSUP, "%s:%d:%d: %s: '%s' launches no kernel and "
             "sets no element of an allocation (rsSetElementAt_<type>, "
             "rsAtomic*) and no global: run as a graph, it would leave "
             "nothing", fgr_tok_file(u, f->name_tok),
             u->toks[f->name_tok].line, u->toks[f->name_tok].col, what,
             f->name);
    return g->status;
  }
  /* the parameters' fields follow the environment's, in order (a
   * parameter's index among the allocation parameters is its argument) */
  int pslot[64], a = 0;
  for (int p = 0; p < f->n_params && p < 64; p++)
    pslot[p] = f->params[p].type->kind == FGR_ALLOC ? a++ : -1;
  fgr_call *c = new_call(&l, FGR_CALL_INVOKE);
  int *slots = fgu_arena_alloc(&g->arena, (size_t)(nw + 2) * sizeof *slots);
  if (!c || !slots) {
    if (c)
      fg__fail(g, FG_ENOMEM, "%s: out of memory", what);
    return g->status;
  }
  c->fn = f;
  c->written = slots;
  /* what it writes, each an output that starts as its field: the
   * allocation parameters in order, then the rs_allocation globals in the
   * order they are declared (fg_rs_invoke's results), then the globals
   * block when it writes script globals */
  fg_type types[FG_MAX_OUTPUTS];
  fg_field *starts[FG_MAX_OUTPUTS];
  int nf = 1 + u->n_allocs;
  for (int p = 0; p < f->n_params; p++, nf++) {
    const fgr_param *q = &f->params[p];
    env[nf] = pslot[p] >= 0 && ptok[p] < 0 ? args[pslot[p]] : NULL;
    if (value_param(q)) {
      /* a value: a constant field of its bytes (a bool: one byte) */
      int64_t size = q->type->kind == FGR_BOOL ? 1 : q->type->size;
      char name[300];
      snprintf(name, sizeof name, "%s.%s.%s", u->name, f->name, q->name);
      env[nf] = fg_constant(g, name, fg_type_scalar(FG_U8, fg_shape1(size)),
                            values[p]);
      if (!env[nf])
        return g->status;
      continue;
    }
    if (ptok[p] < 0)
      continue;
    starts[c->n_written] = args[pslot[p]];
    slots[c->n_written++] = nf;
  }
  for (int k = 0; k < u->n_globals; k++) {
    int wa = u->globals[k].alloc_index;
    if (gtok[k] < 0)
      continue;
    if (!env[1 + wa]) {
      fg__fail(g, FG_EINVAL, "%s: '%s' sets elements of %s '%s', which is "
               "not bound (fg_rs_bind_allocation)", what, f->name,
               u->globals[k].pointee ? "pointer global" : "rs_allocation",
               u->globals[k].name);
      return g->status;
    }
    starts[c->n_written] = env[1 + wa];
    slots[c->n_written++] = 1 + wa;
    env[1 + wa] = NULL;
  }
  int n_allocs_written = c->n_written;
  if (gt >= 0) {
    if (!env[0])
      return g->status;
    starts[c->n_written] = env[0];
    slots[c->n_written++] = 0;
    env[0] = NULL;
  }
  for (int i = 0; i < c->n_written; i++)
    types[i] = starts[i]->type;
  /* one thread, which writes the copies */
  fg_op *op = fg_op_begin(g, f->name, c->n_written, types);
  if (!op)
    return g->status;
  fg_global_threads(op, fg_shape1(1));
  for (int i = 0; i < c->n_written; i++)
    if (!fgk_op_output_starts_as(op, i, starts[i]))
      return g->status;
  fg_expr *value = call_expr(op, c, fgk_t(FG_U8, 1), 0, NULL, env, nf);
  if (value && !set_outs(op, value, 0, c->n_written))
    return g->status;
  fgk_op_eval(op, value);
  fg_field *r = with_fp(fg_op_end(op), u);
  if (!r)
    return g->status;
  /* later launches read the copies (the graph holds u->live) */
  if (!keep_written(&l, c, r, 0))
    return g->status;
  for (int i = 0; i < n_allocs_written; i++)
    results[i] = r->producer->out[i];
  *n_results = n_allocs_written;
  return FG_OK;
}

fg_field *fg_rs_allocation_field(fg_rs_script *s, const char *global) {
  int k = s && global ? fgr_find_global(s->u, global) : -1;
  if (k < 0 || s->u->globals[k].alloc_index < 0)
    return NULL;
  return fgr_bound_field(s, s->u->globals[k].alloc_index);
}

/* The 0-D field type of a reduction's result. */
static bool result_type(launch *l, const fgr_type *t, fg_type *out) {
  fg_shape z = fg_shape0();
  if (t->kind == FGR_NUM) {
    *out = t->width == 1 ? fg_type_scalar(t->elem, z)
                         : fg_type_vector(t->elem, z, t->width);
    return true;
  }
  if (t->kind == FGR_ARRAY && t->of->kind == FGR_NUM && t->of->width != 3 &&
      t->count * t->of->width <= 4096) {
    *out = fg_type_vector(t->of->elem, z, (int)(t->count * t->of->width));
    return true;
  }
  if (t->size > 4096) {
    fg__fail(l->g, FG_ENOTSUP, "%s: the result type %s has %lld bytes; "
             "fieldgraph holds results of up to 4096", l->what, t->name,
             (long long)t->size);
    return false;
  }
  *out = fg_type_vector(FG_U8, z, (int)t->size);    /* its bytes */
  return true;
}

fg_field *fg_rs_reduce(fg_graph *g, fg_rs_script *s, const char *reduction,
                       int n_in, fg_field *const *in,
                       const fg_rs_launch *opt) {
  launch l = {0};
  if (!launch_begin(&l, g, s, "fg_rs_reduce", reduction))
    return NULL;
  fgr_unit *u = s->u;
  const fgr_reduce *r = fgr_find_reduce(u, reduction);
  if (!r)
    return fg__fail(g, FG_EINVAL, "%s: script '%s' has no reduction kernel "
                    "'%s' (its reduction kernels: %s)", l.what, u->name,
                    reduction, kernel_list(g, u, true));
  if (!check_inputs(&l, r->accum, 1, n_in, in) || !check_range(&l, opt))
    return NULL;
  fg_type res;
  if (!result_type(&l, r->res_type, &res))
    return NULL;
  int64_t rec_bytes = fgr_record_bytes(r);
  if (rec_bytes > (int64_t)4096 * 4096)
    return fg__fail(g, FG_ENOTSUP, "%s: accumulator type %s is too large",
                    l.what, r->acc_type->name);
  fg_field *env[1 + 64 + 1] = {0};
  if (u->n_allocs > 64)
    return fg__fail(g, FG_ENOTSUP, "%s: more than 64 rs_allocation globals",
                    l.what);
  const fgr_func *fns[4] = {r->init, r->accum, r->comb, r->outc};
  if (!no_set_element(&l, fns, 4) || !no_unsupported(&l, fns, 4) ||
      !no_globals_write(&l, fns, 4, "a reduction") ||
      !env_fields(&l, fns, 4, env) || !get_element_types(&l, fns, 4))
    return NULL;
  /* the accumulate pass: one "thread" per input coordinate, launched over
   * a few partials that each accumulate a contiguous chunk */
  fgr_call *acc = new_call(&l, FGR_CALL_ACC);
  fgr_call *fold = new_call(&l, FGR_CALL_FOLD);
  if (!acc || !fold)
    return NULL;
  acc->red = fold->red = r;
  fold->result_bytes = (int64_t)fg_type_bytes(res);
  /* the record: a 0-D field of rec_bytes bytes (a big tensor), which the
   * kernel writes whole; built as a byte, then widened, because the DSL's
   * _writeTensor writes small tensors only */
  fg_type rec_type = rec_bytes <= 4096
      ? fg_type_vector(FG_U8, fg_shape0(), (int)rec_bytes)
      : fg_type_matrix(FG_U8, fg_shape0(), (int)((rec_bytes + 4095) / 4096),
                       4096);
  fg_type byte = fg_type_scalar(FG_U8, fg_shape0());
  char name[300];
  snprintf(name, sizeof name, "%s.accumulate", reduction);
  fg_op *op = fg_op_begin(g, name, 1, &byte);
  if (!op)
    return NULL;
  fg_global_threads(op, l.shape);
  fg_expr *args[FGK_MAX_INPUTS] = {0};
  for (int k = 0; k < n_in; k++)
    args[k] = fg_read_tensor(op, in[k]);
  fg_write_tensor(op, 0, call_expr(op, acc, fgk_t(FG_U8, 1), n_in, args, env,
                                   1 + u->n_allocs));
  if (!fgk_op_set_reduction(op, fgk_reduce_foreign(0)))
    return NULL;
  fg_field *rec = with_fp(fg_op_end(op), u);
  if (!rec)
    return NULL;
  rec->type = rec_type;
  rec->producer->kernel->out_type[0] = rec_type;
  /* the fold: one thread, partials -> combiner -> outconverter */
  int nf = 2 + u->n_allocs;
  env[nf - 1] = rec;
  fgk_kernel *k = fgu_arena_alloc(&g->arena, sizeof *k);
  fg_field **fin = fgu_arena_alloc(&g->arena, (size_t)nf * sizeof *fin);
  fg_type *in_type = fgu_arena_alloc(&g->arena, (size_t)nf * sizeof *in_type);
  bool *nonlocal = fgu_arena_alloc(&g->arena, (size_t)nf * sizeof *nonlocal);
  fg_type *out_type = fgu_arena_alloc(&g->arena, sizeof *out_type);
  fg_expr *x = fgu_arena_alloc(&g->arena, sizeof *x);
  fgk_stmt *st = fgu_arena_alloc(&g->arena, sizeof *st);
  int *port = fgu_arena_alloc(&g->arena, (size_t)nf * sizeof *port);
  int *out_port = fgu_arena_alloc(&g->arena, sizeof *out_port);
  if (!k || !fin || !in_type || !nonlocal || !out_type || !x || !st ||
      !port || !out_port)
    return fg__fail(g, FG_ENOMEM, "%s: out of memory", l.what);
  int m = 0;
  for (int i = 0; i < nf; i++) {
    port[i] = env[i] ? m : -1;
    if (env[i]) {
      fin[m] = env[i];
      in_type[m] = env[i]->type;
      nonlocal[m] = true;
      m++;
    }
  }
  x->kind = FGK_E_FOREIGN;
  x->type = fgk_t(FG_U8, 1);
  x->u.foreign.hooks = &fgr_foreign;
  x->u.foreign.payload = fold;
  x->u.foreign.n_ports = nf;
  x->u.foreign.port = port;
  out_port[0] = 0;      /* the result, which the fold writes itself */
  x->u.foreign.n_outs = 1;
  x->u.foreign.out_port = out_port;
  st->kind = FGK_S_EXPR;
  st->u.expr = x;
  *out_type = res;
  snprintf(name, sizeof name, "%s", reduction);
  k->name = fgu_arena_strdup(&g->arena, name);
  k->n_in = m;
  k->n_out = 1;
  k->in_type = in_type;
  k->out_type = out_type;
  k->in_nonlocal = nonlocal;
  k->threads = fg_shape0();
  k->local[0] = k->local[1] = 1;
  k->body.first = k->body.last = st;
  fg__node *n = fg__node_new(g, FG_NODE_OP, name, 1, &res);
  if (!n || !k->name)
    return n ? fg__fail(g, FG_ENOMEM, "%s: out of memory", l.what) : NULL;
  n->kernel = k;
  n->in = fin;
  n->n_in = m;
  return with_fp(n->out[0], u);
}
