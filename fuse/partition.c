/* fuse/partition.c - partitioning the live operators of a graph into
 * kernel groups.  Greedy, in topological order: an operator joins the
 * group of one of its producers when the edge is fusable (DESIGN.md's four
 * conditions: local read, local write, same thread shape, no work-group
 * features), no other input of it comes from that group non-locally, the
 * group stays within the node and buffer caps, the join keeps scalar-only
 * and vectorizable operators apart (fuse.h's cost rule), and it forms no
 * cycle between groups (tracked with transitive dependency sets); the
 * other groups it reads locally then join that group where the same rules
 * allow (absorbable).  Then joins sibling reductions and one-point groups
 * (horizontal fusion: merge_siblings), decides which fields are
 * materialized, and why, and orders the groups. */
#include "fuse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct group {
  int n_nodes;
  int *nodes;
  bool *deps;          /* transitive: groups this one depends on */
  bool has_reduce;     /* ends in a reduction: takes no more members */
  int n_reduce;        /* its reductions (more than one: siblings) */
  bool builtin_only;   /* each of them a built-in reduction */
} group;

typedef struct state {
  fg_graph *g;
  const bool *live;
  const fgf_options *opt;
  fgf_plan *plan;
  fgf_node_info *info;     /* per node */
  int *group_of;           /* per node, -1 for non-operators */
  group *groups;           /* indexed by group id */
  int n_groups;
  const char **join_note;  /* per node: why it did not join (caps, cycle) */
  bool cyclic;             /* the groups could not be ordered */
} state;

static fg__node *node(state *s, int i) { return s->g->nodes.item[i]; }

static bool is_live_op(state *s, const fg__node *n) {
  if (n->kind != FG_NODE_OP)
    return false;
  for (int j = 0; j < n->n_out; j++)
    if (s->live[n->out[j]->id])
      return true;
  return false;
}

/* Group of the producer of field f, or -1. */
static int producer_group(state *s, const fg_field *f) {
  return f->producer->kind == FG_NODE_OP ? s->group_of[f->producer->id] : -1;
}

/* Distinct buffers groups ga and gb (-1 for none) would touch joined,
 * with node n (or NULL) added: an upper bound, every input from outside
 * them and every output of every member. */
static int buffers_of(state *s, int ga, int gb, const fg__node *n) {
  int count = 0;
  const fg_field *seen[512];
  int nseen = 0;
  for (int k = 0; k < 3; k++) {
    const group *gr = k < 2 && (k ? gb : ga) >= 0 ? &s->groups[k ? gb : ga]
                                                  : NULL;
    int members = gr ? gr->n_nodes : k == 2 && n ? 1 : 0;
    for (int m = 0; m < members; m++) {
      const fg__node *x = gr ? node(s, gr->nodes[m]) : n;
      count += x->n_out;
      for (int p = 0; p < x->n_in; p++) {
        const fg_field *f = x->in[p];
        int pg = producer_group(s, f);
        if (pg >= 0 && (pg == ga || pg == gb))
          continue;
        bool dup = false;
        for (int i = 0; i < nseen && !dup; i++)
          dup = seen[i] == f;
        if (!dup && nseen < 512)
          seen[nseen++] = f;
      }
    }
  }
  return count + nseen;
}

/* The group node n may join, or -1 (with a note when a cap or a cycle was
 * the only obstacle). */
static int choose_group(state *s, const fg__node *n) {
  if (!s->opt->fuse || !s->info[n->id].simple)
    return -1;
  int max_nodes = s->opt->max_nodes > 0 ? s->opt->max_nodes : FGF_MAX_NODES;
  int max_bufs = s->opt->max_buffers > 0 ? s->opt->max_buffers
                                         : FGF_MAX_BUFFERS;
  for (int p = 0; p < n->n_in; p++) {
    int gid = producer_group(s, n->in[p]);
    if (gid < 0 || !s->info[n->in[p]->producer->id].simple ||
        !s->info[n->id].read_local[p])
      continue;
    group *gr = &s->groups[gid];
    /* a reduction's result exists only once all its threads are done: it
     * ends its group */
    if (gr->has_reduce)
      continue;
    const fg__node *lead_node = node(s, gr->nodes[0]);
    const fgk_kernel *lead = lead_node->kernel;
    if (!fg_shape_equal(lead->threads, n->kernel->threads))
      continue;
    /* the vectorization cost rule (fuse.h): scalar-only and vectorizable
     * operators never share a kernel (all members agree with the lead) */
    const fgf_node_info *li = &s->info[lead_node->id], *ni = &s->info[n->id];
    if (li->scalar_only != ni->scalar_only) {
      const fg__node *sc = ni->scalar_only ? n : lead_node;
      const fg__node *vec = ni->scalar_only ? lead_node : n;
      s->join_note[n->id] = fgu_arena_printf(
          &s->plan->arena, "cost rule: %s calls %s, which does not "
          "vectorize, and %s does", fg__node_label(sc), s->info[sc->id].scalar_why,
          fg__node_label(vec));
      continue;
    }
    bool ok = true;
    for (int q = 0; q < n->n_in && ok; q++) {
      int qg = producer_group(s, n->in[q]);
      if (qg == gid && !s->info[n->id].read_local[q])
        ok = false;         /* a non-local read inside the group */
      else if (qg >= 0 && qg != gid && s->groups[qg].deps[gid]) {
        s->join_note[n->id] = "would form a cycle between kernels";
        ok = false;
      }
    }
    if (!ok)
      continue;
    if (gr->n_nodes >= max_nodes) {
      s->join_note[n->id] = "kernel size cap (operators per kernel)";
      continue;
    }
    if (buffers_of(s, gid, -1, n) > max_bufs) {
      s->join_note[n->id] = "kernel size cap (device buffer limit)";
      continue;
    }
    return gid;
  }
  return -1;
}

static bool add_dep(state *s, int gid, int dep) {
  group *gr = &s->groups[gid];
  bool changed = !gr->deps[dep];
  gr->deps[dep] = true;
  for (int i = 0; i < s->n_groups; i++)
    if (s->groups[dep].deps[i] && !gr->deps[i]) {
      gr->deps[i] = true;
      changed = true;
    }
  return changed;
}

static bool join_groups(state *s, int ga, int gb);

/* Whether group gb, which produces fields the newest member of group gid
 * reads, may join gid too: a consumer reading two groups joins only one
 * of them in choose_group, and the other's fields would be written and
 * read again (a = f(x), b = g(y), a + b; mean * mean beside q / n in
 * var = q / n - mean * mean).  The rules are choose_group's for the whole
 * group: the members of both fuse (their leads are simple: one that is
 * not, the fold of a script's reduction say, writes outputs no member
 * after it could read as values), gb ends in no reduction, over the same
 * threads, on the same side of the cost rule, every edge between the two
 * groups a local read, no third group on a path between them (the join
 * would form a cycle), within the caps. */
static bool absorbable(state *s, int gid, int gb) {
  const group *a = &s->groups[gid], *b = &s->groups[gb];
  if (!b->n_nodes || b->has_reduce)
    return false;
  const fg__node *la = node(s, a->nodes[0]), *lb = node(s, b->nodes[0]);
  if (!s->info[la->id].simple || !s->info[lb->id].simple ||
      s->info[la->id].scalar_only != s->info[lb->id].scalar_only ||
      !fg_shape_equal(la->kernel->threads, lb->kernel->threads))
    return false;
  for (int k = 0; k < 2; k++) {
    const group *gr = k ? b : a;
    int other = k ? gid : gb;
    for (int m = 0; m < gr->n_nodes; m++) {
      const fg__node *x = node(s, gr->nodes[m]);
      for (int p = 0; p < x->n_in; p++)
        if (producer_group(s, x->in[p]) == other &&
            !s->info[x->id].read_local[p])
          return false;
    }
  }
  for (int c = 0; c < s->n_groups; c++)
    if (c != gid && c != gb &&
        ((a->deps[c] && s->groups[c].deps[gb]) ||
         (b->deps[c] && s->groups[c].deps[gid])))
      return false;
  int max_nodes = s->opt->max_nodes > 0 ? s->opt->max_nodes : FGF_MAX_NODES;
  int max_bufs = s->opt->max_buffers > 0 ? s->opt->max_buffers
                                         : FGF_MAX_BUFFERS;
  return a->n_nodes + b->n_nodes <= max_nodes &&
         buffers_of(s, gid, gb, NULL) <= max_bufs;
}

static bool partition(state *s) {
  fgu_arena *a = &s->plan->arena;
  int N = s->g->nodes.n;
  for (int i = 0; i < N; i++) {
    fg__node *n = node(s, i);
    if (!is_live_op(s, n))
      continue;
    int gid = choose_group(s, n);
    if (gid < 0) {
      gid = s->n_groups++;
      group *gr = &s->groups[gid];
      gr->nodes = fgu_arena_alloc(a, (size_t)N * sizeof *gr->nodes);
      gr->deps = fgu_arena_alloc(a, (size_t)N * sizeof *gr->deps);
      if (!gr->nodes || !gr->deps)
        return false;
    }
    group *gr = &s->groups[gid];
    gr->nodes[gr->n_nodes++] = i;
    if (fgk_is_reduction(n->kernel->reduce)) {
      gr->builtin_only = gr->n_reduce == 0 || gr->builtin_only;
      gr->builtin_only &= n->kernel->reduce.kind == FGK_REDUCE_BUILTIN;
      gr->n_reduce++;
    }
    gr->has_reduce |= fgk_is_reduction(n->kernel->reduce);
    s->group_of[i] = gid;
    bool changed = false;
    for (int p = 0; p < n->n_in; p++) {
      int pg = producer_group(s, n->in[p]);
      if (pg >= 0 && pg != gid)
        changed |= add_dep(s, gid, pg);
    }
    /* keep the sets transitive: whoever depends on this group now also
     * depends on what it gained */
    if (changed)
      for (int k = 0; k < s->n_groups; k++)
        if (k != gid && s->groups[k].deps[gid])
          for (int j = 0; j < s->n_groups; j++)
            s->groups[k].deps[j] |= gr->deps[j];
    /* the other groups it reads locally join it where they may */
    for (int p = 0; s->opt->fuse && gr->n_nodes > 1 && p < n->n_in; p++) {
      int pg = producer_group(s, n->in[p]);
      if (pg >= 0 && pg != gid && s->info[i].read_local[p] &&
          absorbable(s, gid, pg) && !join_groups(s, gid, pg))
        return false;
    }
  }
  return true;
}

/* ---- sibling reductions --------------------------------------------------
 * Two groups that each end in built-in reductions over the same threads
 * become one kernel that reads the inputs once and keeps an accumulator
 * set per reduction (XLA's multi-output fusion): sum(x) beside
 * sum(x * x), min(x) beside max(x).  Each reduction still folds its
 * values in the documented order (ir/reduce.h), so the results are the
 * same bits.  They join when they read a field in common (or one reads a
 * pointwise field of the other, which then stays virtual), every edge
 * between them is a local read of a non-reduction field, no third group
 * lies on a path between them (the join would form a cycle), and the caps
 * and the vectorization cost rule allow it. */

/* Whether a member of group gb reads a field that group ga's members
 * read or write; false, with *bad set, where such a read is non-local or
 * of a reduction's result. */
static bool reads_from(state *s, int ga, int gb, bool *bad) {
  const group *a = &s->groups[ga], *b = &s->groups[gb];
  bool shared = false;
  for (int i = 0; i < b->n_nodes; i++) {
    const fg__node *n = node(s, b->nodes[i]);
    for (int p = 0; p < n->n_in; p++) {
      const fg_field *f = n->in[p];
      if (producer_group(s, f) == ga) {
        shared = true;
        if (!s->info[n->id].read_local[p] ||
            fgk_is_reduction(f->producer->kernel->reduce))
          *bad = true;
        continue;
      }
      for (int j = 0; j < a->n_nodes && !shared; j++) {
        const fg__node *x = node(s, a->nodes[j]);
        for (int q = 0; q < x->n_in && !shared; q++)
          shared = x->in[q] == f;
      }
    }
  }
  return shared;
}

/* Whether groups ga and gb may become one kernel (see above). */
static bool siblings(state *s, int ga, int gb) {
  const group *a = &s->groups[ga], *b = &s->groups[gb];
  if (!a->n_nodes || !b->n_nodes || !a->n_reduce || !b->n_reduce ||
      !a->builtin_only || !b->builtin_only ||
      a->n_reduce + b->n_reduce > FGK_MAX_REDUCTIONS)
    return false;
  const fg__node *la = node(s, a->nodes[0]), *lb = node(s, b->nodes[0]);
  if (!s->info[la->id].simple || !s->info[lb->id].simple ||
      s->info[la->id].scalar_only != s->info[lb->id].scalar_only ||
      !fg_shape_equal(la->kernel->threads, lb->kernel->threads))
    return false;
  int max_nodes = s->opt->max_nodes > 0 ? s->opt->max_nodes : FGF_MAX_NODES;
  int max_bufs = s->opt->max_buffers > 0 ? s->opt->max_buffers
                                         : FGF_MAX_BUFFERS;
  if (a->n_nodes + b->n_nodes > max_nodes ||
      buffers_of(s, ga, gb, NULL) > max_bufs)
    return false;
  /* a path through a third group would become a cycle */
  for (int c = 0; c < s->n_groups; c++)
    if (c != ga && c != gb &&
        ((a->deps[c] && s->groups[c].deps[gb]) ||
         (b->deps[c] && s->groups[c].deps[ga])))
      return false;
  bool bad = false;
  bool shared = reads_from(s, ga, gb, &bad);
  shared |= reads_from(s, gb, ga, &bad);
  return shared && !bad;
}

/* Moves group gb's members into group ga (gb stays, empty); false when
 * out of memory. */
static bool join_groups(state *s, int ga, int gb) {
  group *a = &s->groups[ga], *b = &s->groups[gb];
  /* members in node order, which is topological; the arrays hold every
   * node */
  int n = a->n_nodes + b->n_nodes, i = 0, j = 0;
  int *merged = fgu_arena_alloc(&s->plan->arena,
                                (size_t)s->g->nodes.n * sizeof *merged);
  if (!merged)
    return false;
  for (int k = 0; k < n; k++)
    merged[k] = j >= b->n_nodes || (i < a->n_nodes && a->nodes[i] < b->nodes[j])
                    ? a->nodes[i++] : b->nodes[j++];
  a->nodes = merged;
  a->n_nodes = n;
  for (int k = 0; k < b->n_nodes; k++)
    s->group_of[b->nodes[k]] = ga;
  b->n_nodes = 0;
  a->n_reduce += b->n_reduce;
  b->n_reduce = 0;
  for (int c = 0; c < s->n_groups; c++)
    a->deps[c] |= b->deps[c];
  a->deps[ga] = a->deps[gb] = false;
  /* whoever depended on either now depends on the join and all it needs */
  for (int c = 0; c < s->n_groups; c++) {
    group *x = &s->groups[c];
    if (c == ga || c == gb || !(x->deps[ga] || x->deps[gb]))
      continue;
    x->deps[gb] = false;
    x->deps[ga] = true;
    for (int d = 0; d < s->n_groups; d++)
      x->deps[d] |= a->deps[d];
  }
  memset(b->deps, 0, (size_t)s->n_groups * sizeof *b->deps);
  return true;
}

/* Whether groups ga and gb each compute one point, without reductions,
 * and may share a kernel (absorbable's rules): independent one-point
 * arithmetic after reductions (s / n and q / n as two outputs) then costs
 * one launch, not one each.  Larger groups join only when they share
 * work (a consumer, siblings' inputs): beside each other alone they would
 * save no memory traffic. */
static bool one_point_pair(state *s, int ga, int gb) {
  const group *a = &s->groups[ga];
  return a->n_nodes && !a->has_reduce &&
         fg_shape_points(node(s, a->nodes[0])->kernel->threads) == 1 &&
         absorbable(s, ga, gb);
}

/* Joins every pair of sibling groups, and of one-point groups, earlier
 * groups taking later ones; false when out of memory. */
static bool merge_siblings(state *s) {
  for (int ga = 0; s->opt->fuse && ga < s->n_groups; ga++)
    for (int gb = ga + 1; gb < s->n_groups; gb++)
      if ((siblings(s, ga, gb) || one_point_pair(s, ga, gb)) &&
          !join_groups(s, ga, gb))
        return false;
  return true;
}

/* Why consumer n (port p) does not read field f inside f's group. */
static const char *edge_reason(state *s, const fg__node *n, int p) {
  fgu_arena *a = &s->plan->arena;
  const fg_field *f = n->in[p];
  if (!s->opt->fuse)
    return "fusion off";
  if (fgk_is_reduction(f->producer->kernel->reduce))
    return fgu_arena_printf(a, "reduction result read by %s", fg__node_label(n));
  if (!s->info[n->id].simple)
    return fgu_arena_printf(a, "read by %s (%s)", fg__node_label(n),
                            s->info[n->id].why_not);
  if (!s->info[n->id].read_local[p])
    return fgu_arena_printf(a, "non-local read by %s", fg__node_label(n));
  if (!fg_shape_equal(f->producer->kernel->threads, n->kernel->threads))
    return fgu_arena_printf(a, "thread shapes differ (%s)", fg__node_label(n));
  if (s->join_note[n->id])
    return fgu_arena_printf(a, "%s (%s)", s->join_note[n->id], fg__node_label(n));
  if (s->groups[s->group_of[f->producer->id]].has_reduce)
    return fgu_arena_printf(a, "reduction input, also read by %s", fg__node_label(n));
  return fgu_arena_printf(a, "used by two groups (%s)", fg__node_label(n));
}

static void materialize(state *s) {
  fgf_plan *pl = s->plan;
  fg_graph *g = s->g;
  for (int i = 0; i < g->outputs.n; i++) {
    fg_field *f = ((fg__output *)g->outputs.item[i])->field;
    if (f->producer->kind == FG_NODE_OP && !pl->materialized[f->id]) {
      pl->materialized[f->id] = true;
      pl->reason[f->id] = "graph output";
    }
  }
  for (int i = 0; i < g->nodes.n; i++) {
    fg__node *n = node(s, i);
    if (!is_live_op(s, n))
      continue;
    if (!s->info[i].simple)
      for (int o = 0; o < n->n_out; o++)
        if (!pl->materialized[n->out[o]->id]) {
          pl->materialized[n->out[o]->id] = true;
          pl->reason[n->out[o]->id] = fgu_arena_printf(
              &pl->arena, "written by %s (%s)", fg__node_label(n),
              s->info[i].why_not);
        }
    for (int p = 0; p < n->n_in; p++) {
      fg_field *f = n->in[p];
      if (f->producer->kind != FG_NODE_OP || pl->materialized[f->id])
        continue;
      if (s->group_of[f->producer->id] != s->group_of[i] ||
          !s->info[i].read_local[p]) {
        pl->materialized[f->id] = true;
        pl->reason[f->id] = edge_reason(s, n, p);
      }
    }
  }
}

/* Orders the non-empty groups so that each comes after every group it
 * depends on; *n: how many. */
static bool order_groups(state *s, int *order, int *n) {
  bool *done = calloc((size_t)s->n_groups + 1, sizeof *done);
  if (!done)
    return false;
  *n = 0;
  for (int c = 0; c < s->n_groups; c++) {
    done[c] = s->groups[c].n_nodes == 0;   /* joined into a sibling */
    *n += !done[c];
  }
  for (int k = 0; k < *n; k++) {
    int pick = -1;
    for (int c = 0; c < s->n_groups && pick < 0; c++) {
      if (done[c])
        continue;
      bool ready = true;
      for (int d = 0; d < s->n_groups && ready; d++)
        ready = !s->groups[c].deps[d] || done[d];
      if (ready)
        pick = c;
    }
    if (pick < 0) {        /* cannot happen: the partition is acyclic */
      s->cyclic = true;
      free(done);
      return false;
    }
    done[pick] = true;
    order[k] = pick;
  }
  free(done);
  return true;
}

static int64_t field_bytes(const fg_field *f) {
  return (int64_t)fg_type_bytes(f->type);
}

fg_status fgf_plan_graph(fg_graph *g, const bool *live,
                         const fgf_options *opt, fgf_plan **out, char *err,
                         size_t errlen) {
  *out = NULL;
  fgf_plan *pl = calloc(1, sizeof *pl);
  if (!pl) {
    snprintf(err, errlen, "fusion: out of memory");
    return FG_ENOMEM;
  }
  int N = g->nodes.n, F = g->fields.n;
  fgu_arena *a = &pl->arena;
  state s = {.g = g, .live = live, .opt = opt, .plan = pl};
  pl->n_fields = F;
  pl->materialized = fgu_arena_alloc(a, (size_t)(F + 1) * sizeof(bool));
  pl->reason = fgu_arena_alloc(a, (size_t)(F + 1) * sizeof(char *));
  s.info = fgu_arena_alloc(a, (size_t)(N + 1) * sizeof *s.info);
  s.group_of = fgu_arena_alloc(a, (size_t)(N + 1) * sizeof(int));
  s.groups = fgu_arena_alloc(a, (size_t)(N + 1) * sizeof *s.groups);
  s.join_note = fgu_arena_alloc(a, (size_t)(N + 1) * sizeof(char *));
  int *order = fgu_arena_alloc(a, (size_t)(N + 1) * sizeof(int));
  bool ok = pl->materialized && pl->reason && s.info && s.group_of &&
            s.groups && s.join_note && order;
  for (int i = 0; ok && i < N; i++) {
    s.group_of[i] = -1;
    fg__node *n = node(&s, i);
    if (is_live_op(&s, n)) {
      ok = fgf_classify(n, a, &s.info[i]);
      if (ok && opt->vectorizes)
        s.info[i].scalar_only = !opt->vectorizes(n->kernel, opt->vectorizes_arg,
                                                 &s.info[i].scalar_why);
      pl->kernels_unfused++;
      for (int p = 0; p < n->n_in; p++)
        pl->bytes_unfused += field_bytes(n->in[p]);
      /* an unfused kernel writes its live outputs, and all of them when
       * it cannot drop a write (an unfusable operator) */
      for (int o = 0; o < n->n_out; o++)
        if (live[n->out[o]->id] || !s.info[i].simple)
          pl->bytes_unfused += field_bytes(n->out[o]);
    }
  }
  ok = ok && partition(&s);
  int n_ordered = 0;
  ok = ok && merge_siblings(&s);
  if (ok) {
    materialize(&s);
    ok = order_groups(&s, order, &n_ordered);
  }
  pl->kernels = ok ? fgu_arena_alloc(a, (size_t)(n_ordered + 1) *
                                            sizeof *pl->kernels)
                   : NULL;
  ok = ok && pl->kernels;
  for (int k = 0; ok && k < n_ordered; k++) {
    int gid = order[k];
    fgf_kernel *kern = &pl->kernels[pl->n_kernels++];
    kern->n_nodes = s.groups[gid].n_nodes;
    kern->nodes = s.groups[gid].nodes;
    ok = fgf_merge(g, kern, pl->materialized, s.group_of, gid,
                   s.info[kern->nodes[0]].simple, a);
    for (int i = 0; ok && i < kern->k->n_in; i++)
      pl->bytes_fused += field_bytes(g->fields.item[kern->in_field[i]]);
    for (int i = 0; ok && i < kern->k->n_out; i++)
      pl->bytes_fused += field_bytes(g->fields.item[kern->out_field[i]]);
  }
  if (!ok) {
    bool cyclic = s.cyclic;
    fgf_plan_free(pl);
    if (cyclic) {
      snprintf(err, errlen, "fusion: internal error in graph '%s': its "
               "kernels depend on each other in a cycle; FG_FUSION=0 avoids "
               "it (please report)", g->name);
      return FG_EBACKEND;
    }
    snprintf(err, errlen, "fusion: out of memory");
    return FG_ENOMEM;
  }
  *out = pl;
  return FG_OK;
}

void fgf_plan_free(fgf_plan *p) {
  if (!p)
    return;
  fgu_arena_free(&p->arena);
  free(p);
}
