/* rs-host/host.h - the script object (fg_rs_script of
 * include/fieldgraph/renderscript.h: its parsed unit, its allocation
 * bindings, its host runtime state) and running a script's code on the
 * host: init() and the invokables that launch no kernel, built as C by
 * the toolchain and loaded (host.c).  Above rs-kernel/, below rs-graph/.
 * Internal; prefix fgr_. */
#ifndef FG_RS_HOST_HOST_H
#define FG_RS_HOST_HOST_H

#include "rs-kernel/kernel.h"

/* ---- the script object --------------------------------------------------- */

/* An rs_allocation global's binding.  The field dies with its graph,
 * which the script may outlive: graph tells whether it still exists. */
typedef struct fgr_binding {
  fg_field *field;              /* NULL: unbound */
  fg__alive *graph;             /* one reference on the field's graph's */
  char name[128];               /* the field's name, for messages */
  int alias;                    /* 1 + the slot whose binding this one
                                   follows (a pointer global an invokable
                                   gave another's memory, fgr_ptr_alias;
                                   field then NULL), or 0 */
} fgr_binding;

struct fg_rs_script {
  fgr_unit *u;                  /* one reference */
  fgr_binding *bound;           /* per rs_allocation global */
  char errmsg[1024];
  /* invokables on the host (host.c): the clang and cache directory of
   * the options (NULL: the defaults), and the loaded object once built */
  char *clang, *cache_dir;
  void *host;
  unsigned long long rand_state;  /* rsRand's */
  fg_rs_log_fn log;             /* rsDebug's lines; NULL: stderr */
  void *log_user;
  long long dt_last;            /* rsGetDt's last time (ns, monotonic) */
  fg_rs_message_fn message;     /* rsSendToClient's; NULL: none */
  void *message_user;
};

/* The slot whose binding slot a follows (fgr_binding.alias): a itself
 * when it follows none. */
static inline int fgr_bound_root(const fg_rs_script *s, int a) {
  for (int n = 0; s->bound[a].alias > 0 && n < s->u->n_allocs; n++)
    a = s->bound[a].alias - 1;
  return a;
}

/* The field bound to rs_allocation global slot a (or to the slot it
 * follows), or NULL when it is unbound or its graph was freed (b->graph
 * then says which). */
static inline fg_field *fgr_bound_field(const fg_rs_script *s, int a) {
  const fgr_binding *b = &s->bound[fgr_bound_root(s, a)];
  return b->field && b->graph->alive ? b->field : NULL;
}

/* ---- code on the host ---------------------------------------------------- */

/* Whether function f of u is an invokable the host can run: a function
 * with a body that is no kernel and no part of a reduction, whose
 * parameters are scalars, vectors or structs, and whose calls reach only
 * the runtime (no rsForEach: fg_rs_invoke runs those) and no allocation.
 * NULL when it can; else why not, with the token to blame in *tok. */
const char *fgr_host_why(const fgr_unit *u, const fgr_func *f, int *tok);
/* Runs init() if the script has one (building its host object); on
 * failure returns the status with "file:line:col: message" in err. */
fg_status fgr_host_init(fg_rs_script *s, char *err, size_t errlen);
/* Unloads the host object. */
void fgr_host_free(fg_rs_script *s);
/* Writes one rsDebug line of s where its log goes (fg_rs_set_log). */
void fgr_host_log(fg_rs_script *s, const char *line);
/* Runs function f (fgr_host_why NULL) on the host with args (one pointer
 * per parameter) and the script's globals; dims: x, y, z per rs_allocation
 * global (alloc_index), NULL for its binding's.  Errors as
 * "file:line:col: message" into err. */
fg_status fgr_host_call(fg_rs_script *s, const fgr_func *f,
                        const void *const *args, const long *dims, char *err,
                        size_t errlen);

#endif
