/* emit/reduce.c - reduction kernels' text: the lanes' accumulators
 * and their identity, the chunk of points a partial folds, the lane
 * loops around the thread body and the fixed order in which lanes and
 * values fold (ir/reduce.h). */
#include "emit_impl.h"
#include "ir/reduce.h"
#include "ir/visit.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reduction r's type: its output's element type and tensor width. */
fgk_type fge_reduce_type(const fgk_kernel *k, int r) {
  fg_type t = k->out_type[fgk_reduce_at(k, r).port];
  return fgk_t(t.elem, fg_type_tensor_elements(t));
}

int fge_reduce_of_port(const fgk_kernel *k, int port) {
  for (int r = 0; r < fgk_reduce_count(k); r++)
    if (fgk_reduce_at(k, r).port == port)
      return r;
  return -1;
}

void fge_acc_name(char *buf, size_t n, const char *base, int r) {
  if (r == 0)
    snprintf(buf, n, "%s", base);
  else
    snprintf(buf, n, "%s%d", base, r);
}

/* Lanes of a built-in reduction kernel: FGK_REDUCE_LANES when any of its
 * reductions is over floats (the documented order, ir/reduce.h); one when
 * all are over integers, whose wrapping sums and products, minima and
 * maxima are the same bits in any order (which is also why an integer
 * reduction may share the lanes of a float sibling). */
int fge_reduce_lanes(const fgk_kernel *k) {
  for (int r = 0; r < fgk_reduce_count(k); r++)
    if (fgk_is_float(fge_reduce_type(k, r).elem))
      return FGK_REDUCE_LANES;
  return 1;
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
  int lanes = fge_reduce_lanes(e->k);
  for (int r = 0; r < fgk_reduce_count(e->k); r++) {
    fgk_type t = fge_reduce_type(e->k, r);
    const fgk_identity *id =
        fgk_reduce_identity(fgk_reduce_at(e->k, r).op, t.elem);
    if (!id) {
      out->oom = 1;      /* no such reduction: fails the emission */
      return;
    }
    char acc[32];
    fge_acc_name(acc, sizeof acc, "fgk_acc", r);
    /* one accumulator per lane (ir/reduce.h), each from the identity */
    fgu_buf_printf(out, "    %s %s[%d];\n"
                   "    for (int fgk_l = 0; fgk_l < %d; ++fgk_l)\n"
                   "      %s[fgk_l] = ", e->d->type_name(t), acc, lanes,
                   lanes, acc);
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

/* Writes "a = b op a" for reduction r's op over its type into out, for
 * lane accumulators a and b (C expressions): the order every fold of the
 * reduction uses, the value joining the accumulator on the left. */
void fge_fold_text(fgk_emitter *e, int r, fgu_buf *out, const char *ind,
                   const char *a, const char *b) {
  fgk_type t = fge_reduce_type(e->k, r);
  fg_reduce_op op = fgk_reduce_at(e->k, r).op;
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

/* The markers around a fold in the body's text (fge_accumulate), when
 * the block loop folds vectors: the block's copy of the body stores the
 * value into the lane array instead (put_block_body). */
#define FOLD_OPEN "/*fgk_fold*/\n"
#define FOLD_CLOSE "/*fgk_fold_end*/\n"

typedef struct write_count {
  const fgk_kernel *k;
  int n[FGK_MAX_REDUCTIONS];
} write_count;

static void count_write(const fgk_stmt *s, void *arg) {
  write_count *c = arg;
  int r = s->kind == FGK_S_WRITE
              ? fge_reduce_of_port(c->k, s->u.write.at.port) : -1;
  if (r >= 0)
    c->n[r]++;
}

bool fge_reduce_vector_fold(const fgk_emitter *e) {
  const fgk_kernel *k = e->k;
  if (!e->d->reduce_vector_fold || k->reduce.kind != FGK_REDUCE_BUILTIN ||
      fge_reduce_lanes(k) != FGK_REDUCE_LANES)
    return false;
  int n = fgk_reduce_count(k);
  write_count all = {.k = k};
  fgk_visit_block(&k->body, &(fgk_visitor){NULL, count_write, &all});
  write_count top = {.k = k};
  for (const fgk_stmt *s = k->body.first; s; s = s->next)
    count_write(s, &top);
  for (int r = 0; r < n; r++) {
    fgk_type t = fge_reduce_type(k, r);
    /* one value a point, whatever the branches: a lane the block's loop
     * left unset would join the fold */
    if (all.n[r] != 1 || top.n[r] != 1 || t.width > 4)
      return false;
  }
  for (const fgk_stmt *s = k->body.first; s; s = s->next)
    if (s->kind == FGK_S_WRITE &&
        fge_reduce_of_port(k, s->u.write.at.port) >= 0 &&
        (s->u.write.at.ncoords != 0 || s->u.write.at.element))
      return false;      /* not the accumulating write (emit_write) */
  return true;
}

/* The column loops of a built-in reduction's chunk around its thread body
 * (emitted once, written three times): points before a lane-aligned
 * index one by one, then whole blocks of FGK_REDUCE_LANES points, then
 * the rest one by one.  Every point goes to lane i % LANES in increasing
 * i (ir/reduce.h).  In a block, the lanes are a copy that only
 * constant-trip loops index, so that it lives in (vector) registers; with
 * a vector fold (fge_reduce_vector_fold) the lane loop stores each
 * point's value into an array, which the loop vectorizer widens, and the
 * block folds that array into the lanes as one vector, op by op as a lane
 * would: the same bits, in vector registers. */
/* Appends s to o with every accumulator "fgk_acc..." written as its
 * block copy "fgk_blk..."; with vfold, every marked fold of reduction
 * r's value as a store of it into the block's array fgk_t<r>. */
static void put_block_body(fgu_buf *o, const char *s, bool vfold) {
  for (;;) {
    const char *acc = strstr(s, "fgk_acc");
    const char *fold = vfold ? strstr(s, FOLD_OPEN) : NULL;
    if (fold && (!acc || fold < acc)) {
      const char *end = strstr(fold, FOLD_CLOSE);
      assert(end);
      /* the fold's first line names the lane accumulator: fgk_acc<r>[ */
      const char *a = strstr(fold, "fgk_acc");
      int r = 0;
      if (a && a < end && a[7] >= '0' && a[7] <= '9')
        r = (int)strtol(a + 7, NULL, 10);
      char t[32];
      fge_acc_name(t, sizeof t, "fgk_t", r);
      const char *ind = fold + strlen(FOLD_OPEN);
      int n_ind = (int)strspn(ind, " ");
      fgu_buf_printf(o, "%.*s%.*s%s[fgk_l] = fgk_v;\n", (int)(fold - s), s,
                     n_ind, ind, t);
      s = end + strlen(FOLD_CLOSE);
      continue;
    }
    if (!acc)
      break;
    fgu_buf_printf(o, "%.*sfgk_blk", (int)(acc - s), s);
    s = acc + strlen("fgk_acc");
  }
  fgu_buf_puts(o, s);
}

/* The vector fold of a block: the lanes of reduction r, fgk_bv<r>, join
 * its block's values fgk_t<r> as fge_fold_text joins one lane's. */
static void vector_fold(fgk_emitter *e, fgu_buf *o, int r, const char *at) {
  char bv[32], t[32];
  fge_acc_name(bv, sizeof bv, "fgk_bv", r);
  fge_acc_name(t, sizeof t, "fgk_t", r);
  fgu_buf_printf(o, "       {\n        fgk_rv%d fgk_tv;\n"
                 "        __builtin_memcpy(&fgk_tv, %s%s, sizeof fgk_tv);\n",
                 r, t, at);
  switch (fgk_reduce_at(e->k, r).op) {
  case FG_REDUCE_SUM:
    fgu_buf_printf(o, "        %s = %s + fgk_tv;\n", bv, bv);
    break;
  case FG_REDUCE_PROD:
    fgu_buf_printf(o, "        %s = %s * fgk_tv;\n", bv, bv);
    break;
  default:
    fgu_buf_printf(o, "        %s = fgk_tv %c %s ? fgk_tv : %s;\n", bv,
                   fgk_reduce_at(e->k, r).op == FG_REDUCE_MIN ? '<' : '>',
                   bv, bv);
    break;
  }
  fgu_buf_puts(o, "       }\n");
}

/* Blocks of lanes the vector fold's wide loop takes at a time. */
#define FOLD_WIDE 4

/* Whether the vector fold first runs FOLD_WIDE blocks at a time: where
 * every reduction is of scalars (wider ones would hold FOLD_WIDE times
 * as many vector registers). */
static bool wide_blocks(const fgk_emitter *e) {
  for (int r = 0; r < fgk_reduce_count(e->k); r++)
    if (fge_reduce_type(e->k, r).width != 1)
      return false;
  return true;
}

void fge_lane_loops(fgk_emitter *e, fgu_buf *o, const char *body,
                    const char *const *acc_type, int n_acc,
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
  bool vfold = fge_reduce_vector_fold(e);
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
  fgu_buf_puts(o, "      }\n");
  for (int r = 0; r < n_acc; r++) {
    char acc[32], blk[32];
    fge_acc_name(acc, sizeof acc, "fgk_acc", r);
    fge_acc_name(blk, sizeof blk, vfold ? "fgk_bv" : "fgk_blk", r);
    if (vfold) {
      /* the lanes as one vector of their scalars (a 3-wide type takes a
       * 4-wide one's bytes, its padding folded too and never read) */
      const char *el = e->d->type_name(
          fgk_t(fge_reduce_type(e->k, r).elem, 1));
      fgu_buf_printf(o, "      typedef %s fgk_rv%d __attribute__(("
                     "ext_vector_type(" LANES_STR(FGK_REDUCE_LANES)
                     " * sizeof(%s) / sizeof(%s))));\n"
                     "      fgk_rv%d %s;\n"
                     "      __builtin_memcpy(&%s, %s, sizeof %s);\n", el, r,
                     acc_type[r], el, r, blk, blk, acc, blk);
      continue;
    }
    fgu_buf_printf(o, "      %s %s[" LANES_STR(FGK_REDUCE_LANES) "];\n"
                   "      for (int fgk_l = 0; fgk_l < "
                   LANES_STR(FGK_REDUCE_LANES) "; ++fgk_l)\n"
                   "        %s[fgk_l] = %s[fgk_l];\n", acc_type[r], blk, blk,
                   acc);
  }
  if (vfold && wide_blocks(e)) {
    /* first FOLD_WIDE blocks at a time, their values folded block after
     * block as the loop below would: the same order in every lane, a
     * quarter of its loop overhead and its lanes' round trip through the
     * stack per vector (dot f32: 1.12x the C loop, 1.06x with these) */
    fgu_buf_puts(o, block_pragma);
    fgu_buf_printf(o, "      for (; fgk_c + %d <= fgk_ce; fgk_c += %d) {\n",
                   FOLD_WIDE * FGK_REDUCE_LANES, FOLD_WIDE * FGK_REDUCE_LANES);
    for (int r = 0; r < n_acc; r++) {
      char t[32];
      fge_acc_name(t, sizeof t, "fgk_t", r);
      fgu_buf_printf(o, "       %s %s[%d];\n", acc_type[r], t,
                     FOLD_WIDE * FGK_REDUCE_LANES);
    }
    fgu_buf_printf(o, "       #pragma clang loop unroll(disable) "
                   "vectorize(enable) vectorize_width("
                   LANES_STR(FGK_REDUCE_LANES) ") interleave_count(1)\n"
                   "       for (int fgk_l = 0; fgk_l < %d; ++fgk_l) {\n"
                   "        const int _column = (int)(fgk_c + fgk_l);\n"
                   "        const long fgk_i = fgk_row0 + fgk_c + fgk_l;\n"
                   "        (void)_column;\n", FOLD_WIDE * FGK_REDUCE_LANES);
    put_block_body(o, body, true);
    fgu_buf_puts(o, "       }\n");
    for (int q = 0; q < FOLD_WIDE; q++)
      for (int r = 0; r < n_acc; r++) {
        char at[32];
        snprintf(at, sizeof at, " + %d", q * FGK_REDUCE_LANES);
        vector_fold(e, o, r, at);
      }
    fgu_buf_puts(o, "      }\n");
  }
  fgu_buf_puts(o, block_pragma);
  fgu_buf_puts(o, "      for (; fgk_c + " LANES_STR(FGK_REDUCE_LANES)
               " <= fgk_ce; fgk_c += " LANES_STR(FGK_REDUCE_LANES) ") {\n");
  if (vfold) {
    for (int r = 0; r < n_acc; r++) {
      char t[32];
      fge_acc_name(t, sizeof t, "fgk_t", r);
      fgu_buf_printf(o, "       %s %s[" LANES_STR(FGK_REDUCE_LANES) "];\n",
                     acc_type[r], t);
    }
    fgu_buf_puts(o, "       #pragma clang loop unroll(disable) "
                 "vectorize(enable) vectorize_width("
                 LANES_STR(FGK_REDUCE_LANES) ") interleave_count(1)\n");
  }
  fgu_buf_puts(o, "       for (int fgk_l = 0; fgk_l < "
               LANES_STR(FGK_REDUCE_LANES) "; ++fgk_l) {\n"
               "        const int _column = (int)(fgk_c + fgk_l);\n"
               "        const long fgk_i = fgk_row0 + fgk_c + fgk_l;\n"
               "        (void)_column;\n");
  put_block_body(o, body, vfold);
  fgu_buf_puts(o, "       }\n");
  for (int r = 0; vfold && r < n_acc; r++)
    vector_fold(e, o, r, "");
  fgu_buf_puts(o, "      }\n");
  for (int r = 0; r < n_acc; r++) {
    char acc[32], blk[32];
    fge_acc_name(acc, sizeof acc, "fgk_acc", r);
    fge_acc_name(blk, sizeof blk, vfold ? "fgk_bv" : "fgk_blk", r);
    if (vfold)
      fgu_buf_printf(o, "      __builtin_memcpy(%s, &%s, sizeof %s);\n", acc,
                     blk, blk);
    else
      fgu_buf_printf(o, "      for (int fgk_l = 0; fgk_l < "
                     LANES_STR(FGK_REDUCE_LANES) "; ++fgk_l)\n"
                     "        %s[fgk_l] = %s[fgk_l];\n", acc, blk);
  }
  fgu_buf_puts(o, "      for (; fgk_c < fgk_ce; ++fgk_c) {\n");
  fgu_buf_puts(o, one);
  fgu_buf_puts(o, body);
  fgu_buf_puts(o, "      }\n    }\n");
}

/* ---- reductions with a location ---------------------------------------- */

bool fge_reduce_has_loc(const fgk_kernel *k) {
  for (int r = 0; k->reduce.kind == FGK_REDUCE_BUILTIN &&
                  r < fgk_reduce_count(k); r++)
    if (fgk_reduce_at(k, r).loc)
      return true;
  return false;
}

/* The comparison that makes reduction r's value a strictly better one. */
static char loc_cmp(const fgk_kernel *k, int r) {
  return fgk_reduce_at(k, r).op == FG_REDUCE_MIN ? '<' : '>';
}

void fge_loc_blocks_open(fgk_emitter *e, fgu_buf *o, const char **start,
                         const char **end) {
  const fgk_kernel *k = e->k;
  if (!fge_reduce_has_loc(k)) {
    *start = "fgk_p * fgk_chunk";
    *end = "fgk_end";
    return;
  }
  for (int r = 0; r < fgk_reduce_count(k); r++) {
    fgk_reduction red = fgk_reduce_at(k, r);
    if (!red.loc)
      continue;
    fgk_type t = fge_reduce_type(k, r);
    assert(t.width == 1);
    char best[32], from[32];
    fge_acc_name(best, sizeof best, "fgk_best", r);
    fge_acc_name(from, sizeof from, "fgk_from", r);
    fgu_buf_printf(o, "    %s %s = (%s)%s;\n"
                   "    long %s = fgk_p * fgk_chunk;\n",
                   e->d->type_name(t), best, e->d->type_name(t),
                   fgk_reduce_identity(red.op, t.elem)->text, from);
  }
  fgu_buf_puts(o, "    for (long fgk_b0 = fgk_p * fgk_chunk; fgk_b0 < fgk_end; "
               "fgk_b0 += " LANES_STR(FGK_REDUCE_LOC_BLOCK) ") {\n"
               "    const long fgk_bend = fgk_b0 + "
               LANES_STR(FGK_REDUCE_LOC_BLOCK) " < fgk_end ? fgk_b0 + "
               LANES_STR(FGK_REDUCE_LOC_BLOCK) " : fgk_end;\n");
  *start = "fgk_b0";
  *end = "fgk_bend";
}

void fge_loc_blocks_close(fgk_emitter *e, fgu_buf *o) {
  const fgk_kernel *k = e->k;
  if (!fge_reduce_has_loc(k))
    return;
  int lanes = fge_reduce_lanes(k);
  for (int r = 0; r < fgk_reduce_count(k); r++) {
    if (!fgk_reduce_at(k, r).loc)
      continue;
    char acc[32], best[32], from[32];
    fge_acc_name(acc, sizeof acc, "fgk_acc", r);
    fge_acc_name(best, sizeof best, "fgk_best", r);
    fge_acc_name(from, sizeof from, "fgk_from", r);
    char c = loc_cmp(k, r);
    /* the lanes' extreme, in any order: only compared, never stored */
    fgu_buf_printf(o, "    {\n"
                   "      %s fgk_h = %s[0];\n"
                   "      for (int fgk_l = 1; fgk_l < %d; ++fgk_l)\n"
                   "        fgk_h = %s[fgk_l] %c fgk_h ? %s[fgk_l] : fgk_h;\n"
                   "      if (fgk_h %c %s) {\n"
                   "        %s = fgk_h;\n"
                   "        %s = fgk_b0;\n"
                   "      }\n"
                   "    }\n",
                   e->d->type_name(fge_reduce_type(k, r)), acc, lanes, acc,
                   c, acc, c, best, best, from);
  }
  fgu_buf_puts(o, "    }\n");
}

void fge_loc_search(fgk_emitter *e, fgu_buf *o, int r, const char *body) {
  char at[32], from[32];
  fge_acc_name(at, sizeof at, "fgk_found_at", r);
  fge_acc_name(from, sizeof from, "fgk_from", r);
  /* row by row from the block, as the fold went; it stops at the first
   * point equal to the extreme */
  fgu_buf_printf(o, "    long %s = -1;\n"
                 "    for (long fgk_r0 = %s; fgk_r0 < fgk_end && %s < 0;) {\n"
                 "      const long fgk_lr = fgk_r0 / _columns;\n"
                 "      const int _layer = (int)(fgk_lr / _rows), "
                 "_row = (int)(fgk_lr %% _rows);\n"
                 "      const long fgk_cb = fgk_r0 - fgk_lr * _columns;\n"
                 "      const long fgk_ce = fgk_cb + (fgk_end - fgk_r0) < "
                 "_columns ? fgk_cb + (fgk_end - fgk_r0) : _columns;\n"
                 "      const long fgk_row0 = fgk_lr * _columns;\n"
                 "      fgk_r0 = fgk_row0 + fgk_ce;\n"
                 "      (void)_layer; (void)_row;\n"
                 "      for (long fgk_c = fgk_cb; fgk_c < fgk_ce && %s < 0; "
                 "++fgk_c) {\n"
                 "        const int _column = (int)fgk_c;\n"
                 "        const long fgk_i = fgk_row0 + fgk_c;\n"
                 "        (void)_column;\n", at, from, at, at);
  fgu_buf_puts(o, body);
  fgu_buf_printf(o, "      }\n    }\n    out%d[fgk_p] = %s;\n",
                 fgk_reduce_at(e->k, r).loc_port, at);
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
  int r = fge_reduce_of_port(e->k, s->u.write.at.port);
  assert(r >= 0);
  fgk_type t = fge_reduce_type(e->k, r);
  if (e->rescan && e->rescan != r + 1)
    return;               /* another reduction's search */
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
  if (e->rescan) {
    /* the search for the first point equal to the extreme */
    char at[32], best[32];
    fge_acc_name(at, sizeof at, "fgk_found_at", r);
    fge_acc_name(best, sizeof best, "fgk_best", r);
    fgu_buf_printf(&e->out, "%sif (%s < 0 && fgk_v == %s)\n%s  %s = fgk_i;\n",
                   ind, at, best, ind, at);
    e->indent--;
    fge_line(e);
    fgk_put(e, "}\n");
    return;
  }
  char acc[48];
  fge_acc_name(acc, sizeof acc - 8, "fgk_acc", r);
  strcat(acc, "[fgk_l]");
  bool vfold = fge_reduce_vector_fold(e);
  if (vfold)
    fgk_put(e, FOLD_OPEN);
  fge_fold_text(e, r, &e->out, ind, acc, "fgk_v");
  if (vfold)
    fgk_put(e, FOLD_CLOSE);
  e->indent--;
  fge_line(e);
  fgk_put(e, "}\n");
}
