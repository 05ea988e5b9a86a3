/* rs-kernel/kernel.h - a script's functions as kernel text: the payload
 * of a call into a script (an FGK_E_FOREIGN expression of the kernel IR)
 * and the hooks that write it in either dialect (emit_hooks.c), and the
 * host C of invokables.  Above the front end (rs/), below rs-host/ and
 * rs-graph/.  Internal; prefix fgr_. */
#ifndef FG_RS_KERNEL_KERNEL_H
#define FG_RS_KERNEL_KERNEL_H

#include "rs/rs_impl.h"

typedef enum fgr_call_kind {
  FGR_CALL_MAP,       /* value = mapping kernel(inputs, specials) */
  FGR_CALL_ACC,       /* accumulate into the kernel's fgk_acc */
  FGR_CALL_FOLD,      /* one thread: partials -> combiner -> outconverter */
  FGR_CALL_INVOKE     /* one thread: an invokable over its allocations */
} fgr_call_kind;

/* What a call into a script calls: the payload of its FGK_E_FOREIGN
 * expression, whose hooks are fgr_foreign; in the graph's arena.  Ports of
 * the call (expression's u.foreign.port): [0] the globals block (or -1),
 * [1 .. n_allocs] the bound allocations (-1 unbound), and for FOLD
 * [n_allocs + 1] the partials record; FOLD's u.foreign.out_port[0] is its
 * result.  An ACC call is the value its kernel's FGK_REDUCE_FOREIGN
 * output accumulates. */
typedef struct fgr_call {
  fgr_call_kind kind;
  const fgr_unit *u;
  const fgr_func *fn;           /* MAP */
  const fgr_reduce *red;        /* ACC, FOLD */
  int64_t range[3][2];          /* ACC: (x, y, z) [start, end) */
  bool ranged;
  int64_t result_bytes;         /* FOLD: bytes of the result field */
  /* MAP, INVOKE: what the call writes itself, each through the output
   * u.foreign.out_port[i] that starts as a copy of it: written[i] is a
   * port slot, 0 the globals block (the launch's copy, which MAP's
   * threads share), 1 + a the rs_allocation global (binding slot) a whose
   * elements it sets, or for INVOKE 1 + n_allocs + p its rs_allocation
   * parameter p.  MAP writes the globals block or allocations (in the
   * order they are declared), not both;
   * INVOKE lists its parameters in order, then its globals in the order
   * they are declared, then the globals block.  INVOKE's parameters are
   * the ports after the environment's (1 + n_allocs + p): an
   * rs_allocation's field (-1 where written), a numeric, vector or bool
   * one's value as a constant field of its bytes. */
  int n_written;
  const int *written;
  bool out_base;                /* MAP of a legacy kernel with an output
                                   pointer: its last operand is what the
                                   pointee holds before the call */
} fgr_call;

/* How every call into a script is written (emit_hooks.c). */
extern const fgk_foreign_i fgr_foreign;

/* ---- invokables as host C ---------------------------------------------- */

/* Whether a parameter can be passed from the host: a scalar, a vector or
 * a struct, by value. */
bool fgr_host_param_ok(const fgr_param *p);
/* Writes host C for functions fns of u (writer tw: C, whose kernel() is
 * NULL) after the runtime: the functions they reach, and per function a
 * wrapper `void fgk_rs_invoke_<name>(void *globals, const void *const
 * *args, void *rt)`
 * (args: one pointer per parameter; rt: the host's runtime, host.c). */
void fgr_emit_host(fgk_writer *tw, const fgr_unit *u,
                   const fgr_func *const *fns, int n);

#endif
