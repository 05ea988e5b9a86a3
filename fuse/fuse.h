/* fuse/fuse.h - the fusion pass: classifies every edge of a graph from its
 * operators' IR (classify.c), partitions the live operators into kernel
 * groups under the rules of DESIGN.md (partition.c), and merges each
 * group's IR into one kernel (merge.c).  With fusion off the same code
 * yields one group per operator, so the compiler has one path.  It never
 * emits source text.  Internal; prefix fgf_.
 *
 * Cost rule for fan-out (recompute or materialize): a field consumed inside
 * its group and by another group is written once, as an extra output of
 * its group; it is never recomputed.  Recomputing would save the write and
 * the read only when the producer is cheaper than two memory passes, and
 * fieldgraph does not yet estimate operator cost, so it never duplicates
 * work: no operator ever runs twice per run.  RenderScript kernels rely on
 * this: a foreign call (FGK_E_FOREIGN, ir/foreign.h: a script's kernel)
 * is opaque, may be expensive, and must run exactly once per coordinate.
 *
 * Cost rule for vectorization: a fused kernel must never be slower than its
 * parts.  A kernel's thread loop is vectorized across threads only when
 * every operation in it has a vector form on the target; one call with
 * none (scalar libm's cbrt on the CPU) keeps the whole loop scalar.  Fusing such an operator with vectorizable ones
 * would make their arithmetic scalar too, which costs more than the
 * memory pass it saves, so the partition never puts a scalar-only and a
 * vectorizable operator in one kernel (fgf_options.vectorizes; the
 * fusion report names the call).  Scalar-only operators still fuse with
 * each other, and vectorizable ones with each other.
 *
 * Foreign reductions (k->reduce.kind == FGK_REDUCE_FOREIGN) end their
 * group like the built-in ones; their accumulating call stays in place as
 * the group's last write (merge.c), since it updates an accumulator of
 * the front end's type rather than producing a value.
 *
 * A consumer reading fields of several groups locally joins one of them
 * and takes the others with it where the rules allow (a = f(x), b = g(y),
 * a + b is one kernel), and one-point groups (arithmetic on reductions'
 * 0-D results) share one kernel even without a common consumer: each
 * such kernel is a launch that does one point's work (partition.c).
 *
 * Sibling reductions: groups that each end in built-in reductions over
 * the same threads and read a field in common join into one kernel (one
 * pass over the inputs, k->reduce plus k->sibling, partition.c), unless
 * one needs the other's result or a path through a third group joins
 * them.  Each reduction keeps its own accumulators and folds in the
 * documented order, so the results do not change.
 */
#ifndef FG_FUSE_H
#define FG_FUSE_H

#include "graph/graph_impl.h"

/* How one operator reads and writes, from its IR. */
typedef struct fgf_node_info {
  bool simple;            /* fusable at all: not grouped, one thread per
                             point, no for-each, no element or explicit
                             writes, each output written by one top-level
                             local _writeTensor */
  const char *why_not;    /* when !simple: a short phrase */
  bool *read_local;       /* per input port: read only with implicit
                             addressing, as whole tensors */
  bool scalar_only;       /* its thread loop does not vectorize */
  const char *scalar_why; /* then: the call that prevents it */
} fgf_node_info;

typedef struct fgf_kernel {
  fgk_kernel *k;          /* merged IR (in the plan's arena) */
  const char *name;       /* "toUnitFloat+half+toU8" */
  int n_nodes;
  int *nodes;             /* member node ids, topological order */
  int *in_field;          /* k->n_in graph field ids */
  int *out_field;         /* k->n_out graph field ids */
} fgf_kernel;

typedef struct fgf_options {
  bool fuse;              /* false: one kernel per operator */
  /* Whether operator kernel k's thread loop vectorizes on the target
   * (NULL: every one does); when not, *why names the obstacle.  See the
   * vectorization cost rule above. */
  bool (*vectorizes)(const fgk_kernel *k, void *arg, const char **why);
  void *vectorizes_arg;
  int max_nodes;          /* operators per kernel (0: FGF_MAX_NODES) */
  int max_buffers;        /* buffers per kernel, from the device
                             (0: FGF_MAX_BUFFERS) */
} fgf_options;

/* Operators fused into one kernel at most, by default: past it a group is
 * split (a kernel of hundreds of operators builds slowly and spills). */
#define FGF_MAX_NODES 64
/* Buffers of one fused kernel when the device gives no bound. */
#define FGF_MAX_BUFFERS 64

typedef struct fgf_plan {
  fgu_arena arena;
  int n_kernels;
  fgf_kernel *kernels;    /* in an order that respects dependencies */
  int n_fields;           /* = graph fields */
  bool *materialized;     /* per field: a buffer exists during a run */
  const char **reason;    /* per materialized operator output: why */
  int kernels_unfused;    /* live operators */
  int64_t bytes_unfused;  /* global memory traffic estimates per run */
  int64_t bytes_fused;
} fgf_plan;

/* Plans the live part of g (live[field id] marks fields needed by an
 * output).  On failure returns a status with a message in err. */
fg_status fgf_plan_graph(fg_graph *g, const bool *live,
                         const fgf_options *opt, fgf_plan **out, char *err,
                         size_t errlen);
void fgf_plan_free(fgf_plan *p);

/* Classification of node n (an operator) into info, allocated in a. */
bool fgf_classify(const fg__node *n, fgu_arena *a, fgf_node_info *info);

/* Builds group's merged kernel IR in a, from its members (kernel->nodes,
 * topological) and which fields are materialized.  simple: the members are
 * fusable (their _writeTensor values become variables); otherwise the one
 * member keeps its own writes.  Fills kernel->k, in_field and out_field. */
bool fgf_merge(fg_graph *g, fgf_kernel *kernel, const bool *materialized,
               const int *group_of, int group, bool simple, fgu_arena *a);

/* Row bands (bands.c): a consumer kernel may run interleaved with the
 * kernel that makes one of its inputs, in bands of rows, when both are
 * plain and it reads that input only within FGF_BAND_REACH rows of its
 * own. */
#define FGF_BAND_REACH 64

/* Whether k is plain: not grouped, one thread per point, no reduction,
 * foreign call or atomic, and each output written only at the thread's
 * own point by top-level writes, so that its rows may run in any order
 * and any grouping. */
bool fgf_band_plain(const fgk_kernel *k);

/* Whether every read k makes of input port is at its own point or at
 * row _row + d (|d| <= FGF_BAND_REACH; any column); the greatest |d| in
 * *most (0 when none).  *near_edges: whether each read's border rule
 * takes a row outside the field to one at most *most rows inside it
 * (clamp, mirror, reflect; not wrap), so that a kernel's rows near an
 * edge read only rows near that edge. */
bool fgf_band_reach(const fgk_kernel *k, int port, long *most,
                    bool *near_edges);

#endif
