/* fuzz/fuzz_builder.c - libFuzzer target for the kernel DSL and graph
 * builder driven by random call sequences: each input byte is a builder
 * call (read an input, a constant, an arithmetic or comparison operator,
 * a built-in by name, a conversion, a swizzle, an if block, a variable, a
 * write at explicit coordinates, closing the operator, a reduction) with
 * operands from a small expression stack, so types and shapes often do
 * not fit.  Whatever the builder accepts is compiled with the real clang
 * (CPU backend, at most a few operators, kernel cache under $TMPDIR) and
 * run once on small inputs.  No loops are generated: an endless kernel
 * cannot be stopped yet (issue 17, finding 6).  Built by scripts/fuzz. */
#include "fieldgraph.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fg_context *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fg_context_options opt = {.backend = FG_BACKEND_CPU, .threads = 1};
  char err[512];
  if (fg_context_new(&opt, &ctx, err, sizeof err) != FG_OK) {
    fprintf(stderr, "fuzz_builder: %s\n", err);
    abort();
  }
  return 0;
}

static const char *const fns[] = {"pow", "sqrt", "min", "max", "clamp",
                                  "fabs", "floor", "exp", "log", "mad",
                                  "abs", "nope"};
static const fg_elem elems[] = {FG_F32, FG_I32, FG_U8, FG_U16, FG_I64,
                                FG_F64};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  size_t at = 0;
#define NEXT() (at < size ? data[at++] : 0)
  int n = 4 + NEXT() % 13;
  fg_elem e0 = elems[NEXT() % 6];
  fg_graph *g = fg_graph_new("fuzz");
  fg_field *fields[16];
  int nf = 0;
  fields[nf++] = fg_input(g, "a", fg_type_scalar(e0, fg_shape1(n)));
  fields[nf++] = fg_input(g, "b", fg_type_vector(FG_F32, fg_shape1(n), 4));
  fields[nf++] = fg_input(g, "c", fg_type_scalar(FG_I32, fg_shape2(2, n)));
  int n_ops = 0, depth = 0;
  fg_op *op = NULL;
  fg_expr *st[8];
  int sp = 0;
  while (at < size && n_ops < 4) {
    uint8_t c = NEXT();
    if (!op) {
      fg_elem oe = elems[c % 6];
      int w = 1 + (c >> 3) % 4;
      fg_type t = w == 1 ? fg_type_scalar(oe, fg_shape1(n))
                         : fg_type_vector(oe, fg_shape1(n), w);
      op = fg_op_begin(g, "op", 1, &t);
      sp = depth = 0;
      n_ops++;
      continue;
    }
    fg_expr *a = sp > 0 ? st[sp - 1] : NULL, *b = sp > 1 ? st[sp - 2] : NULL;
    fg_expr *r = NULL;
    switch (c % 16) {
    case 0: r = fg_read_tensor(op, fields[NEXT() % nf]); break;
    case 1: r = fg_float(op, (float)(int8_t)NEXT() / 4); break;
    case 2: r = fg_int(op, (int8_t)NEXT()); break;
    case 3: {
      fg_expr *(*bin[])(fg_expr *, fg_expr *) = {
          fg_add, fg_sub, fg_mul, fg_div, fg_mod, fg_lt, fg_band, fg_shl,
          fg_eq, fg_land};
      r = bin[NEXT() % 10](a, b);
      sp -= sp > 1 ? 2 : sp;
      break;
    }
    case 4: r = fg_neg(a); sp -= sp > 0; break;
    case 5: {
      int k = NEXT() % (int)(sizeof fns / sizeof *fns), na = 1 + NEXT() % 3;
      fg_expr *args[3] = {a, b, sp > 2 ? st[sp - 3] : a};
      r = fg_call(fns[k], na, args);
      sp = sp > na ? sp - na : 0;
      break;
    }
    case 6: {
      /* two reads, in order: the element type, then the width */
      fg_elem ce = elems[NEXT() % 6];
      r = fg_convert(a, ce, 1 + NEXT() % 4);
      sp -= sp > 0;
      break;
    }
    case 7: r = fg_swizzle(a, (const char *[]){"x", "xy", "wzyx", "s0",
                                               "q"}[NEXT() % 5]);
      sp -= sp > 0; break;
    case 8: if (depth < 3) { fg_if(a); depth++; } sp -= sp > 0; break;
    case 9: if (depth > 0) { fg_end(op); depth--; } break;
    case 10: {
      fg_elem ve = elems[NEXT() % 6];
      fg_expr *v = fg_var(op, ve, 1 + NEXT() % 4);
      fg_assign(v, a);
      r = v;
      break;
    }
    case 11:
      fg_write_tensor_at(op, 0, a, 1, b);
      sp = 0;
      break;
    case 12:
      fg_read_tensor_at(op, fields[NEXT() % nf], 1, a);
      break;
    default:
      while (depth > 0) {
        fg_end(op);
        depth--;
      }
      if (c % 16 == 13 || !(c & 0x40))
        fg_write_tensor(op, 0, a);
      fg_field *o = fg_op_end(op);
      op = NULL;
      if (o && nf < 16)
        fields[nf++] = o;
      if (o && (c & 0x80))
        fg_output(g, n_ops == 1 ? "o1" : n_ops == 2 ? "o2" : "o3", o);
      break;
    }
    if (r && sp < 8)
      st[sp++] = r;
  }
  if (op)
    fg_op_end(op);                /* still open: refused, naming it */
  if (nf > 3 && (data[0] & 1))
    fg_output(g, "last", fg_reduce(g, "sum", FG_REDUCE_SUM, fields[nf - 1]));
  if (fg_graph_status(g) != FG_OK) {
    if (!fg_graph_errmsg(g)[0])
      abort();                    /* an error always says what */
    fg_graph_free(g);
    return 0;
  }
  fg_program *p = NULL;
  if (fg_graph_output_count(g) > 0 && fg_compile(ctx, g, NULL, &p) == FG_OK) {
    const void *ins[3];
    void *outs[8] = {0};
    static uint8_t buf[3][8 * 64];
    for (int i = 0; i < 3; i++) {
      for (size_t j = 0; j < sizeof buf[i]; j++)
        buf[i][j] = data[(j * 7 + (size_t)i) % size];
      ins[i] = buf[i];
    }
    fg_run *r = NULL;
    if (fg_program_start(p, 3, ins, 0, NULL, NULL, NULL, &r) == FG_OK) {
      fg_run_wait(r);
      fg_run_free(r);
    }
    (void)outs;
    fg_program_free(p);
  } else if (fg_graph_output_count(g) > 0 && !fg_context_errmsg(ctx)[0]) {
    abort();
  }
  fg_graph_free(g);
  return 0;
}
