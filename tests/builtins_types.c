/* tests/builtins_types.c - the type rules of built-in calls: the result
 * type of each call, and a type error for arguments a function does not
 * take.
 * Run by tests/check_builtins.c on the backend $FG_TEST_BACKEND names. */
#include "builtins_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Builds one call on fresh variables of the given types; returns the
 * graph's status (the call's result type through *e, *w). */
static fg_status try_call(const char *fn, int n, const ot *args, fg_elem *e,
                          int *w) {
  fg_graph *g = fg_graph_new("rules");
  fg_op *op = fg_op_begin(g, "rules", 1,
                          (fg_type[]){fg_type_scalar(FG_F32, fg_shape1(4))});
  fg_expr *a[3];
  for (int i = 0; i < n; i++)
    a[i] = fg_var(op, args[i].e, args[i].w);
  fg_expr *r = fg_call(fn, n, a);
  fg_status st = fg_graph_status(g);
  ck_assert_msg((r == NULL) == (st != FG_OK), "%s: result and status "
                "disagree", fn);
  if (r) {
    *e = fg_expr_elem(r);
    *w = fg_expr_width(r);
  }
  fg_graph_free(g);
  return st;
}

START_TEST(test_builtins_type_rules) {
  /* result types, as OpenCL's */
  struct { const char *fn; int n; ot a[3]; ot r; } ok[] = {
    {"abs", 1, {{FG_I8, 4}}, {FG_U8, 4}},
    {"abs_diff", 2, {{FG_I64, 1}, {FG_I64, 1}}, {FG_U64, 1}},
    {"abs", 1, {{FG_U16, 2}}, {FG_U16, 2}},
    {"clz", 1, {{FG_U64, 3}}, {FG_U64, 3}},
    {"mul24", 2, {{FG_U32, 2}, {FG_U32, 2}}, {FG_U32, 2}},
    {"add_sat", 2, {{FG_I16, 4}, {FG_I16, 1}}, {FG_I16, 4}},
    {"nan", 1, {{FG_U32, 1}}, {FG_F32, 1}},
    {"nan", 1, {{FG_U64, 3}}, {FG_F64, 3}},
    {"native_divide", 2, {{FG_F32, 4}, {FG_F32, 1}}, {FG_F32, 4}},
    {"cross", 2, {{FG_F64, 4}, {FG_F64, 4}}, {FG_F64, 4}},
    {"fast_length", 1, {{FG_F32, 4}}, {FG_F32, 1}},
    {"fast_normalize", 1, {{FG_F32, 3}}, {FG_F32, 3}},
    {"normalize", 1, {{FG_F64, 2}}, {FG_F64, 2}},
    {"isnan", 1, {{FG_F32, 3}}, {FG_I32, 3}},
    {"isnan", 1, {{FG_F64, 2}}, {FG_I64, 2}},
    {"isequal", 2, {{FG_F64, 1}, {FG_F64, 1}}, {FG_I32, 1}},
    {"signbit", 1, {{FG_F32, 1}}, {FG_I32, 1}},
    {"any", 1, {{FG_I16, 3}}, {FG_I32, 1}},
    {"all", 1, {{FG_I64, 1}}, {FG_I32, 1}},
    {"bitselect", 3, {{FG_F32, 2}, {FG_F32, 2}, {FG_F32, 2}}, {FG_F32, 2}},
    {"select", 3, {{FG_U8, 4}, {FG_U8, 4}, {FG_I8, 4}}, {FG_U8, 4}},
    {"select", 3, {{FG_F64, 2}, {FG_F64, 2}, {FG_U64, 2}}, {FG_F64, 2}},
    {"select", 3, {{FG_F32, 1}, {FG_F32, 1}, {FG_I32, 1}}, {FG_F32, 1}},
    {"max", 2, {{FG_I8, 4}, {FG_I8, 1}}, {FG_I8, 4}},
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    fg_elem e = FG_BOOL;
    int w = 0;
    fg_status st = try_call(ok[i].fn, ok[i].n, ok[i].a, &e, &w);
    ck_assert_msg(st == FG_OK, "%s case %zu refused", ok[i].fn, i);
    ck_assert_msg(e == ok[i].r.e && w == ok[i].r.w, "%s case %zu: %s%d, want "
                  "%s%d", ok[i].fn, i, fg_elem_name(e), w,
                  fg_elem_name(ok[i].r.e), ok[i].r.w);
  }
  /* refused with a type error */
  struct { const char *fn; int n; ot a[3]; } bad[] = {
    {"abs", 1, {{FG_F32, 1}}},                       /* integers only */
    {"mad24", 3, {{FG_I64, 1}, {FG_I64, 1}, {FG_I64, 1}}},  /* 32-bit */
    {"mul24", 2, {{FG_I16, 2}, {FG_I16, 2}}},
    {"clz", 1, {{FG_F64, 1}}},
    {"add_sat", 2, {{FG_I32, 2}, {FG_I32, 4}}},      /* widths differ */
    {"nan", 1, {{FG_I32, 1}}},                       /* unsigned codes */
    {"native_divide", 2, {{FG_F64, 1}, {FG_F64, 1}}},  /* float only */
    {"cross", 2, {{FG_F32, 2}, {FG_F32, 2}}},        /* 3 or 4 wide */
    {"fast_length", 1, {{FG_F64, 4}}},              /* float only */
    {"fast_normalize", 1, {{FG_F64, 1}}},
    {"isnan", 1, {{FG_I32, 1}}},                     /* floats only */
    {"isless", 2, {{FG_F32, 4}, {FG_F64, 4}}},
    {"any", 1, {{FG_U32, 4}}},                       /* signed only */
    {"all", 1, {{FG_F32, 1}}},
    {"select", 3, {{FG_F32, 4}, {FG_F32, 4}, {FG_I16, 4}}},  /* size */
    {"select", 3, {{FG_F32, 4}, {FG_F32, 4}, {FG_I32, 2}}},  /* width */
    {"select", 3, {{FG_F32, 4}, {FG_F32, 4}, {FG_F32, 4}}},  /* integer c */
    {"select", 3, {{FG_I32, 1}, {FG_I32, 1}, {FG_I32, 4}}},
    {"bitselect", 3, {{FG_BOOL, 1}, {FG_BOOL, 1}, {FG_BOOL, 1}}},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    fg_elem e;
    int w;
    fg_status st = try_call(bad[i].fn, bad[i].n, bad[i].a, &e, &w);
    ck_assert_msg(st == FG_ETYPE, "%s bad case %zu: status %d, want a type "
                  "error", bad[i].fn, i, (int)st);
  }
}
END_TEST

void builtins_types_tests(TCase *tc) {
  tcase_add_test(tc, test_builtins_type_rules);
}
