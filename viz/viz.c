/* viz/viz.c - Graphviz drawings of a graph, before fusion and after it,
 * built with libcgraph (nodes, edges, clusters and attributes as objects,
 * not printed text) and rendered with libgvc's dot layout.  Reads the
 * graph and, for the fused view, what runtime/program_view.h exposes of a
 * compiled program. */
#include "config.h"
#include "runtime/program_view.h"
#include "util/fs.h"
#include "util/util.h"

#include <gvc.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static void set(void *obj, const char *name, const char *value) {
  agsafeset(obj, (char *)name, (char *)value, "");
}

/* Shape text of a field type ("f32 512x512 vec3"). */
static void shape_label(fg_type t, char *buf, size_t n) {
  fg_type_str(t, buf, n);
}

static Agnode_t *node_for(Agraph_t *root, Agraph_t **clusters,
                          const fg_program *prog, const fg__node *n) {
  char id[32], label[512], ts[128];
  snprintf(id, sizeof id, "n%d", n->id);
  Agraph_t *where = root;
  int k = prog ? fg__program_node_kernel(prog, n->id) : -1;
  if (k >= 0 && clusters[k])
    where = clusters[k];
  Agnode_t *an = agnode(where, id, 1);
  if (n->kind == FG_NODE_OP) {
    fg_type_str(n->out[0]->type, ts, sizeof ts);
    snprintf(label, sizeof label, "%s\\n%s%s", fg__node_label(n), ts,
             n->n_out > 1 ? " (+more)" : "");
    set(an, "shape", "box");
    set(an, "style", "rounded");
  } else {
    fg_type_str(n->out[0]->type, ts, sizeof ts);
    snprintf(label, sizeof label, "%s %s\\n%s",
             n->kind == FG_NODE_INPUT ? "input" : "constant",
             fg__node_label(n), ts);
    set(an, "shape", "ellipse");
  }
  set(an, "label", label);
  /* agnode in a subgraph also puts the node in the root */
  return an;
}

/* Builds the drawing in a new root graph. */
static Agraph_t *build(fg_graph *g, const fg_program *prog) {
  Agraph_t *root = agopen((char *)(prog ? "fused" : "graph"), Agdirected,
                          NULL);
  if (!root)
    return NULL;
  set(root, "rankdir", "TB");
  set(root, "fontname", "Helvetica");
  char title[300];
  snprintf(title, sizeof title, "%s (%s)", g->name,
           prog ? "after fusion" : "as built");
  set(root, "label", title);
  int max_k = -1;
  for (int i = 0; prog && i < g->nodes.n; i++) {
    int k = fg__program_node_kernel(prog, i);
    max_k = k > max_k ? k : max_k;
  }
  Agraph_t **clusters = calloc((size_t)max_k + 2, sizeof *clusters);
  if (!clusters) {
    agclose(root);
    return NULL;
  }
  for (int k = 0; k <= max_k; k++) {
    char name[32], label[96];
    snprintf(name, sizeof name, "cluster_k%d", k);
    /* sibling reductions fused into one kernel: say they share its pass */
    int n_red = fg__program_kernel_reductions(prog, k);
    if (n_red > 1)
      snprintf(label, sizeof label, "kernel %d: %d reductions, one pass", k,
               n_red);
    else
      snprintf(label, sizeof label, "kernel %d", k);
    clusters[k] = agsubg(root, name, 1);
    set(clusters[k], "label", label);
    set(clusters[k], "style", "filled");
    set(clusters[k], "fillcolor", "#eef3fb");
  }
  Agnode_t **an = calloc((size_t)g->nodes.n + 1, sizeof *an);
  if (!an) {
    free(clusters);
    agclose(root);
    return NULL;
  }
  for (int i = 0; i < g->nodes.n; i++)
    an[i] = node_for(root, clusters, prog, g->nodes.item[i]);
  char label[700], ts[128];
  for (int i = 0; i < g->nodes.n; i++) {
    const fg__node *n = g->nodes.item[i];
    for (int p = 0; n->kind == FG_NODE_OP && p < n->n_in; p++) {
      const fg_field *f = n->in[p];
      Agedge_t *e = agedge(root, an[f->producer->id], an[n->id], NULL, 1);
      shape_label(f->type, ts, sizeof ts);
      const char *why = prog && f->producer->kind == FG_NODE_OP
                            ? fg__program_field_reason(prog, f->id)
                            : NULL;
      bool fused = prog && f->producer->kind == FG_NODE_OP && !why;
      bool crosses = prog && fg__program_node_kernel(prog, f->producer->id) !=
                                 fg__program_node_kernel(prog, n->id);
      if (why && crosses)
        snprintf(label, sizeof label, "%s\\n%s", ts, why);
      else
        snprintf(label, sizeof label, "%s", ts);
      set(e, "label", label);
      set(e, "fontsize", "10");
      set(e, "style", fused ? "dashed" : "solid");
      if (why && crosses)
        set(e, "color", "#b03030");
    }
  }
  for (int i = 0; i < g->outputs.n; i++) {
    const fg__output *o = g->outputs.item[i];
    char id[32];
    snprintf(id, sizeof id, "out%d", i);
    Agnode_t *on = agnode(root, id, 1);
    snprintf(label, sizeof label, "output %s", o->name);
    set(on, "label", label);
    set(on, "shape", "ellipse");
    set(on, "style", "bold");
    Agedge_t *e = agedge(root, an[o->field->producer->id], on, NULL, 1);
    shape_label(o->field->type, ts, sizeof ts);
    set(e, "label", ts);
    set(e, "fontsize", "10");
  }
  free(an);
  free(clusters);
  return root;
}

static const char *extension(const char *file) {
  const char *dot = strrchr(file, '.');
  const char *slash = strrchr(file, '/');
  return dot && (!slash || dot > slash) ? dot + 1 : "";
}

fg_status fg_graph_draw(fg_graph *g, const fg_program *prog,
                        const char *file, char *err, size_t errlen) {
  const char *out_path = file;
  if (!g || !out_path || !*out_path)
    return fgu_fail(err, errlen, FG_EINVAL, "fg_graph_draw: %s",
                    !g ? "graph is NULL" : "path is NULL or empty");
  if (g->status != FG_OK)
    return fgu_fail(err, errlen, g->status, "fg_graph_draw: graph '%s' has "
                    "an error: %s", g->name, g->errmsg);
  if (prog && !fg__program_matches(prog, g))
    return fgu_fail(err, errlen, FG_EINVAL, "fg_graph_draw: the program was "
                    "not compiled from graph '%s'", g->name);
  const char *ext = extension(out_path);
  const char *format = !strcasecmp(ext, "svg") ? "svg"
                       : !strcasecmp(ext, "png") ? "png"
                       : (!strcasecmp(ext, "dot") || !strcasecmp(ext, "gv"))
                           ? "dot"
                           : NULL;
  if (!format)
    return fgu_fail(err, errlen, FG_EINVAL, "fg_graph_draw: '%s' does not "
                    "end in .dot, .gv, .svg or .png (got '.%s')", out_path,
                    ext);
  Agraph_t *root = build(g, prog);
  if (!root)
    return fgu_fail(err, errlen, FG_ENOMEM, "fg_graph_draw: out of memory");
  /* The drawing goes to a temporary file renamed over the path at the end,
   * so a reader never sees half a drawing. */
  fgu_atomic out;
  int e = fgu_atomic_begin(&out, out_path, FGU_MODE_DEFAULT);
  if (e != 0) {
    agclose(root);
    char ebuf[128];
    return fgu_fail(err, errlen, FG_EIO, "fg_graph_draw: cannot write '%s' "
                    "(%s)", out_path, fgu_strerror(e, ebuf, sizeof ebuf));
  }
  fg_status st = FG_OK;
  if (!strcmp(format, "dot")) {
    if (agwrite(root, out.fp) != 0)
      st = FG_EIO;
  } else {
    /* Graphviz writes the file by name. */
    fgu_atomic_close(&out);
    GVC_t *gvc = gvContext();
    if (!gvc || gvLayout(gvc, root, "dot") != 0) {
      st = FG_EBACKEND;
    } else {
      if (gvRenderFilename(gvc, root, format, out.tmp) != 0)
        st = FG_EIO;
      gvFreeLayout(gvc, root);
    }
    if (gvc)
      gvFreeContext(gvc);
  }
  agclose(root);
  if (st == FG_OK && fgu_atomic_commit(&out, out_path) != 0)
    st = FG_EIO;
  if (st != FG_OK) {
    fgu_atomic_abort(&out);
    return fgu_fail(err, errlen, st, "fg_graph_draw: cannot write '%s' (%s)",
                    out_path, st == FG_EBACKEND ? "Graphviz layout failed; "
                    "is the graphviz package installed?" : "write failed");
  }
  return FG_OK;
}
