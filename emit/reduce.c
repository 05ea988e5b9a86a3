/* emit/reduce.c - reduction kernels' text: the lanes' accumulators
 * and their identity, the chunk of points a partial folds, the lane
 * loops around the thread body and the fixed order in which lanes and
 * values fold (ir/reduce.h). */
#include "emit_impl.h"
#include "ir/reduce.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* The reduction's type: its output's element type and tensor width. */
fgk_type fge_reduce_type(const fgk_kernel *k) {
  fg_type t = k->out_type[k->reduce.port];
  return fgk_t(t.elem, fg_type_tensor_elements(t));
}

/* Lanes of a built-in reduction: FGK_REDUCE_LANES for floats (the
 * documented order, ir/reduce.h); one for integers, whose wrapping sums
 * and products, minima and maxima are the same bits in any order. */
int fge_reduce_lanes(const fgk_kernel *k) {
  return fgk_is_float(fge_reduce_type(k).elem) ? FGK_REDUCE_LANES : 1;
}

void fgk_reduce_acc_decl(fgk_emitter *e, fgu_buf *out) {
  if (e->k->reduce.kind == FGK_REDUCE_FOREIGN) {
    /* the accumulating call's hooks declare it, written into out */
    if (!e->foreign_acc)
      return;
    fgu_buf tmp = e->out;
    e->out = (fgu_buf){0};
    fgk_foreign_acc_decl(&e->w, e->foreign_acc);
    fgu_buf_puts(out, e->out.s ? e->out.s : "");
    out->oom |= e->out.oom;
    fgu_buf_free(&e->out);
    e->out = tmp;
    return;
  }
  fgk_type t = fge_reduce_type(e->k);
  int lanes = fge_reduce_lanes(e->k);
  const fgk_identity *id = fgk_reduce_identity(e->k->reduce.op, t.elem);
  if (!id) {
    out->oom = 1;      /* no such reduction: fails the emission */
    return;
  }
  /* one accumulator per lane (ir/reduce.h), each from the identity */
  fgu_buf_printf(out, "    %s fgk_acc[%d];\n"
                 "    for (int fgk_l = 0; fgk_l < %d; ++fgk_l)\n"
                 "      fgk_acc[fgk_l] = ", e->d->type_name(t), lanes, lanes);
  if (t.width == 1) {
    fgu_buf_printf(out, "(%s)%s;\n", e->d->type_name(fgk_t(t.elem, 1)),
                   id->text);
  } else {
    /* a splat of the identity, spelled by the dialect */
    fgu_buf tmp = e->out;
    e->out = (fgu_buf){0};
    fg_expr k = {.kind = FGK_E_CONST, .type = fgk_t(t.elem, 1)};
    k.u.k = id->value;
    e->d->splat(e, &k, t);
    fgu_buf_printf(out, "%s;\n", e->out.s ? e->out.s : "0");
    fgu_buf_free(&e->out);
    e->out = tmp;
  }
}

#define LANES_STR_(x) #x
#define LANES_STR(x) LANES_STR_(x)

const char *fgk_reduce_chunk_text(const fgk_kernel *k) {
  if (k->reduce.kind == FGK_REDUCE_BUILTIN)
    return "((fgk_N + fgk_P - 1) / fgk_P + " LANES_STR(FGK_REDUCE_LANES)
           " - 1) / " LANES_STR(FGK_REDUCE_LANES) " * "
           LANES_STR(FGK_REDUCE_LANES);
  return "(fgk_N + fgk_P - 1) / fgk_P";
}

/* Writes "a = b op a" for the reduction op over type t into out, for lane
 * accumulators a and b (C expressions): the order every fold of the
 * reduction uses, the value joining the accumulator on the left. */
void fge_fold_text(fgk_emitter *e, fgu_buf *out, const char *ind,
                      const char *a, const char *b) {
  fgk_type t = fge_reduce_type(e->k);
  fg_reduce_op op = e->k->reduce.op;
  if (op == FG_REDUCE_SUM || op == FG_REDUCE_PROD) {
    fgu_buf_printf(out, "%s%s = %s %c %s;\n", ind, a, a,
                   op == FG_REDUCE_SUM ? '+' : '*', b);
    return;
  }
  char cmp = op == FG_REDUCE_MIN ? '<' : '>';
  for (int c = 0; c < t.width; c++) {
    char ix[16] = "";
    if (t.width > 1)
      snprintf(ix, sizeof ix, ".s%d", c);
    fgu_buf_printf(out, "%s%s%s = %s%s %c %s%s ? %s%s : %s%s;\n", ind, a, ix,
                   b, ix, cmp, a, ix, b, ix, a, ix);
  }
}

/* The column loops of a built-in reduction's chunk around its thread body
 * (emitted once, written three times): points before a lane-aligned
 * index one by one, then whole blocks of FGK_REDUCE_LANES points, the
 * lane loop of constant trip count that the compiler widens into vector
 * registers, then the rest one by one.  Every point goes to lane
 * i % LANES in increasing i (ir/reduce.h). */
/* Appends s to o with every "fgk_acc[" written as "fgk_blk[". */
static void put_block_body(fgu_buf *o, const char *s) {
  const char *hit;
  while ((hit = strstr(s, "fgk_acc["))) {
    fgu_buf_printf(o, "%.*sfgk_blk[", (int)(hit - s), s);
    s = hit + strlen("fgk_acc[");
  }
  fgu_buf_puts(o, s);
}

void fge_lane_loops(fgu_buf *o, const char *body, const char *acc_type,
                       const char *block_pragma, int lanes) {
  if (lanes == 1) {
    /* integers: any order gives the same bits, so one accumulator, which
     * the compiler vectorizes as wide as it likes */
    fgu_buf_puts(o, "      for (long fgk_c = fgk_cb; fgk_c < fgk_ce; "
                 "++fgk_c) {\n"
                 "        const int _column = (int)fgk_c;\n"
                 "        const long fgk_i = fgk_row0 + fgk_c;\n"
                 "        const int fgk_l = 0;\n"
                 "        (void)_column;\n");
    fgu_buf_puts(o, body);
    fgu_buf_puts(o, "      }\n    }\n");
    return;
  }
  static const char *const one =
      "        const int _column = (int)fgk_c;\n"
      "        const long fgk_i = fgk_row0 + fgk_c;\n"
      "        const int fgk_l = (int)(fgk_i % " LANES_STR(FGK_REDUCE_LANES)
      ");\n"
      "        (void)_column;\n";
  fgu_buf_puts(o, "      long fgk_c = fgk_cb;\n"
               "      for (; fgk_c < fgk_ce && (fgk_row0 + fgk_c) % "
               LANES_STR(FGK_REDUCE_LANES) " != 0; ++fgk_c) {\n");
  fgu_buf_puts(o, one);
  fgu_buf_puts(o, body);
  /* the blocks update a copy of the lanes that only constant-trip loops
   * index, so that it lives in (vector) registers */
  fgu_buf_printf(o, "      }\n"
                 "      %s fgk_blk[" LANES_STR(FGK_REDUCE_LANES) "];\n"
                 "      for (int fgk_l = 0; fgk_l < " LANES_STR(FGK_REDUCE_LANES)
                 "; ++fgk_l)\n"
                 "        fgk_blk[fgk_l] = fgk_acc[fgk_l];\n", acc_type);
  fgu_buf_puts(o, block_pragma);
  fgu_buf_puts(o, "      for (; fgk_c + " LANES_STR(FGK_REDUCE_LANES)
               " <= fgk_ce; fgk_c += " LANES_STR(FGK_REDUCE_LANES) ") {\n"
               "       for (int fgk_l = 0; fgk_l < "
               LANES_STR(FGK_REDUCE_LANES) "; ++fgk_l) {\n"
               "        const int _column = (int)(fgk_c + fgk_l);\n"
               "        const long fgk_i = fgk_row0 + fgk_c + fgk_l;\n"
               "        (void)_column;\n");
  put_block_body(o, body);
  fgu_buf_puts(o, "       }\n      }\n"
               "      for (int fgk_l = 0; fgk_l < " LANES_STR(FGK_REDUCE_LANES)
               "; ++fgk_l)\n"
               "        fgk_acc[fgk_l] = fgk_blk[fgk_l];\n"
               "      for (; fgk_c < fgk_ce; ++fgk_c) {\n");
  fgu_buf_puts(o, one);
  fgu_buf_puts(o, body);
  fgu_buf_puts(o, "      }\n    }\n");
}

/* The reduction's write: the value joins the thread's accumulator. */
void fge_accumulate(fgk_emitter *e, const fgk_stmt *s) {
  if (e->k->reduce.kind == FGK_REDUCE_FOREIGN) {
    /* the value is the accumulating foreign call itself, whose hooks then
     * declare the accumulator and store the partial */
    assert(s->u.write.value->kind == FGK_E_FOREIGN);
    e->foreign_acc = s->u.write.value;
    fge_line(e);
    fgk_ex(e, s->u.write.value);
    fgk_put(e, ";\n");
    return;
  }
  fgk_type t = fge_reduce_type(e->k);
  fge_line(e);
  fgk_putf(e, "{\n");
  e->indent++;
  fge_line(e);
  fgk_putf(e, "const %s fgk_v = ", e->d->type_name(t));
  fgk_ex_as_type(e, s->u.write.value, t);
  fgk_put(e, ";\n");
  char ind[64];
  snprintf(ind, sizeof ind, "%*s", e->indent * 2 < 60 ? e->indent * 2 : 60,
           "");
  fge_fold_text(e, &e->out, ind, "fgk_acc[fgk_l]", "fgk_v");
  e->indent--;
  fge_line(e);
  fgk_put(e, "}\n");
}
