/* fuzz/fuzz_rs.c - libFuzzer target for the RenderScript front end: the
 * input is a script; it is scanned (already-preprocessed text, the fast
 * path, or through clang's preprocessor with fg_rs_script_new_source for
 * one input in 64), its rs_allocation globals are bound, and every kernel
 * and reduction is made a node over inputs of a type the first byte picks.
 * Nothing is compiled (fuzz_builder does that).  Built by scripts/fuzz. */
#include "rs-host/host.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const fg_elem elems[] = {FG_I32, FG_F32, FG_U8, FG_F64, FG_U32,
                                FG_I16};

/* A script object around unit u (what fg_rs_script_new_source makes). */
static fg_rs_script *wrap(fgr_unit *u) {
  fg_rs_script *s = calloc(1, sizeof *s);
  if (s)
    s->bound = calloc((size_t)u->n_allocs + 1, sizeof *s->bound);
  if (!s || !s->bound) {
    free(s);
    fg__live_unref(&u->live);
    return NULL;
  }
  s->u = u;
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  uint8_t sel = data[0];
  const char *text = (const char *)data + 1;
  size_t len = size - 1;
  fg_rs_script *s = NULL;
  char err[1024];
  if (sel % 64 == 63) {
    if (fg_rs_script_new_source("f", "f.rs", text, len, &s, err,
                                sizeof err) != FG_OK)
      return 0;
  } else {
    fgr_pp pp = {.raw = true};
    fgr_unit *u = fgr_unit_new("f", "f.rs", text, len, &pp, err, sizeof err);
    if (!u || !(s = wrap(u)))
      return 0;
  }
  fg_elem e = elems[(sel >> 1) % (sizeof elems / sizeof *elems)];
  int width = 1 + (sel >> 4) % 4;
  fg_shape sh = sel & 1 ? fg_shape2(3, 5) : fg_shape1(7);
  fg_type t = width == 1 ? fg_type_scalar(e, sh) : fg_type_vector(e, sh, width);
  /* each launch on a fresh graph, so that one refusal does not hide the
   * next (the graph's errors are sticky) */
  int n_launch = s->u->n_funcs + s->u->n_reduces;
  for (int l = 0; l < n_launch; l++) {
    bool map = l < s->u->n_funcs;
    if (map && !s->u->funcs[l].is_kernel)
      continue;
    fg_graph *g = fg_graph_new("fuzz");
    fg_field *in[4];
    for (int i = 0; i < 4; i++) {
      char nm[4] = {'i', (char)('0' + i), 0, 0};
      in[i] = fg_input(g, nm, t);
    }
    for (int k = 0; k < s->u->n_globals; k++)
      if (s->u->globals[k].alloc_index >= 0)
        fg_rs_bind_allocation(s, s->u->globals[k].name, in[k % 4]);
    if (map) {
      int n = s->u->funcs[l].n_inputs;
      fg_rs_map(g, s, s->u->funcs[l].name, n > 4 ? 4 : n, in, NULL);
    } else {
      fg_rs_reduce(g, s, s->u->reduces[l - s->u->n_funcs].name, 1, in,
                   NULL);
    }
    (void)fg_graph_errmsg(g);
    fg_graph_free(g);      /* the bindings lapse with it */
  }
  fg_rs_script_free(s);
  return 0;
}
