/* tools/eval.c - builds the graph of a parsed pipeline for one set of
 * input image types.  Each statement's value is a number, a vector, a
 * string, a field of the graph, a script or a script's function.
 * Arithmetic and builtins on fields become pointwise operators (one each,
 * merged by the fusion pass); numbers and vectors become literals inside
 * them.  A pointwise operator's result type is found by building its body
 * once in a scratch graph first, so the DSL's own type rules decide and
 * its message is the one reported, at the right place in the file.
 */
#include "tools/fgt.h"
#include "tools/outputs.h"
#include "tools/suggest.h"

#include <assert.h>
#include <math.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct var {
  const char *name;
  fgt_value v;
} var;

typedef struct eval {
  const fgt_pipeline *p;
  fgt_scripts *scripts;
  const fgt_shape_key *key;
  fgt_built *b;
  fg_graph *g;
  var *vars;              /* the names bound so far (grows) */
  int n_vars, cap_vars;
  int want_results;       /* names on the left of the current statement */
  fgt_value results[FGT_MAX_IO];
  int n_results;
  char *err;
  size_t errlen;
  fg_status st;
} eval;

static fgt_value none(void) { return (fgt_value){.kind = FGT_V_NONE}; }

/* Records the first error at pos; returns a NONE value. */
static fgt_value failv(eval *ev, fg_status st, fgt_pos pos, const char *fmt,
                       ...) __attribute__((format(printf, 4, 5)));
static fgt_value failv(eval *ev, fg_status st, fgt_pos pos, const char *fmt,
                       ...) {
  if (ev->st == FG_OK) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ev->st = st;
    fgt_diag(ev->err, ev->errlen, &ev->p->src, pos, "%s", msg);
  }
  return none();
}

/* After a builder call: the graph's sticky error, reported at pos. */
static int graph_failed(eval *ev, fgt_pos pos) {
  if (ev->st != FG_OK)
    return 1;
  if (fg_graph_status(ev->g) == FG_OK)
    return 0;
  failv(ev, fg_graph_status(ev->g), pos, "%s", fg_graph_errmsg(ev->g));
  return 1;
}

static const char *kind_name(fgt_vkind k) {
  static const char *names[] = {"nothing", "a number", "a vector",
                                "a string", "a field", "a script",
                                "a script function"};
  return names[k];
}

static fgt_value field_value(fg_field *f) {
  return (fgt_value){.kind = FGT_V_FIELD, .field = f};
}

static fg_expr *body_swizzle(fg_op *op, fg_expr **a, int n, const void *ctx);

/* ---- alpha beside colour ------------------------------------------------ */

/* input() of an image with alpha gives its colour channels, the alpha kept
 * beside them (fgt_value.alpha): operators act on colour, and the alpha
 * goes on unchanged to their result where the result has its shape (a
 * reduction or a channel pick drops it); operators that move pixels (the
 * geometric and filter rows of spatial_ops) are applied to the alpha too;
 * save() writes it back as the last channel. */

/* A graph row over fields in a, or NULL after an error. */
static fg_field *row_call(fg_graph *g, const char *name, fg_field *a,
                          fg_field *b, const char *str) {
  const fg_op_info *row = fg_ops_find(name);
  fg_op_args args;
  memset(&args, 0, sizeof args);
  args.field[0] = a;
  args.field[1] = b;
  args.str[1] = str;
  return row ? fg_ops_call(g, row, &args) : NULL;
}

/* The alpha a result f inherits from the first argument with alpha, when
 * f has its shape. */
static fg_field *inherit_alpha(const fgt_value *args, int n, fg_field *f) {
  for (int i = 0; i < n && f; i++)
    if (args[i].kind == FGT_V_FIELD && args[i].alpha)
      return fg_shape_equal(fg_field_type(args[i].alpha).field,
                            fg_field_type(f).field) ? args[i].alpha : NULL;
  return NULL;
}

/* Rows that move pixels: the alpha goes through them as the colour does. */
static int spatial_op(const char *name) {
  static const char *const ops[] = {
    "flip", "transpose", "rotate90", "rotate", "crop", "pad", "warp_affine",
    "resize", "thumbnail", "downsample2", "upsample2", "convolve",
    "gaussian_blur", "box_blur", "median3x3", "rs_blur", "rs_resize"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (!strcmp(name, ops[i]))
      return 1;
  return 0;
}

/* Rows that resample (mix neighbouring pixels): with alpha they work on
 * premultiplied colour, as vips does, so a transparent pixel's colour
 * never bleeds into its neighbours. */
static int resampling_op(const char *name) {
  static const char *const ops[] = {
    "rotate", "warp_affine", "resize", "thumbnail", "downsample2",
    "upsample2", "convolve", "gaussian_blur", "box_blur", "rs_blur",
    "rs_resize"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (!strcmp(name, ops[i]))
      return 1;
  return 0;
}

/* colour / alpha, 0 where the alpha is (fg_fmax keeps the divisor off 0:
 * the premultiplied colour is 0 there too). */
static fg_expr *body_unpremultiply(fg_op *op, fg_expr **a, int n,
                                   const void *ctx) {
  (void)n, (void)ctx;
  return fg_div(a[0], fg_fmax(a[1], fg_float(op, 1e-6f)));
}

/* Rows that take alpha as a channel (overlay composites through the top
 * image's alpha, "over"; rgba builds RGBA from it): an argument with alpha
 * beside it is given with it as its last channel, and a result that
 * carries alpha (overlay over a base with alpha) has it split off again. */
static int alpha_channel_op(const char *name) {
  return !strcmp(name, "overlay") || !strcmp(name, "rgba");
}

/* colour (1 or 3 channels) with alpha (in [0, 1]) as its last channel, in
 * colour's element type; NULL after an error. */
static fg_field *join_alpha(fg_graph *g, fg_field *colour, fg_field *alpha) {
  fg_elem e = fg_field_type(colour).elem;
  if (e != FG_F32)
    alpha = fg_from_unit(g, alpha, e);
  return row_call(g, "merge", colour, alpha, NULL);
}

/* f's last channel split off as alpha (in [0, 1], f32) beside the rest. */
static fgt_value split_alpha(fg_graph *g, fg_field *f) {
  int n = fg_type_tensor_elements(fg_field_type(f));
  fgt_value v = field_value(row_call(g, "channels", f, NULL,
                                     n == 4 ? "xyz" : "x"));
  v.alpha = row_call(g, "channels", f, NULL, n == 4 ? "w" : "y");
  if (v.alpha && fg_field_type(v.alpha).elem != FG_F32)
    v.alpha = fg_to_unit(g, v.alpha);
  return v;
}

/* Rows whose result is channels picked or built explicitly: no alpha. */
static int channel_op(const char *name) {
  return !strcmp(name, "channel") || !strcmp(name, "channels") ||
         !strcmp(name, "merge") || !strcmp(name, "rgba") ||
         !strcmp(name, "grey_to_rgb");
}

/* ---- pointwise operators ------------------------------------------------ */

/* Builds the body's result from the argument expressions. */
typedef fg_expr *(*body_fn)(fg_op *op, fg_expr **args, int n,
                            const void *ctx);

/* A literal for value v in an operator whose field arguments have element
 * type elem (FG_BOOL: none). */
static fg_expr *literal(fg_op *op, const fgt_value *v, fg_elem elem) {
  int integer = elem != FG_BOOL && elem < FG_F32;
  if (v->kind == FGT_V_NUMBER) {
    /* an integer literal is an int, a long beyond int's range, a double
     * beyond long's (range first: converting outside it is undefined) */
    double d = v->v[0];
    if (v->is_integer && (integer || elem == FG_BOOL)) {
      if (d >= -2147483648.0 && d < 2147483648.0)
        return fg_int(op, (int32_t)d);
      if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
        return fg_long(op, (int64_t)d);
      return fg_double(op, d);
    }
    return elem == FG_F64 ? fg_double(op, v->v[0])
                          : fg_float(op, (float)v->v[0]);
  }
  fg_expr *c[4] = {0};
  for (int i = 0; i < v->n; i++)
    c[i] = elem == FG_F64 ? fg_double(op, v->v[i])
                          : fg_float(op, (float)v->v[i]);
  fg_elem e = elem == FG_F64 ? FG_F64 : FG_F32;
  if (v->n == 1)
    return c[0];
  return v->n == 2 ? fg_vector(e, 2, 2, c[0], c[1])
       : v->n == 3 ? fg_vector(e, 3, 3, c[0], c[1], c[2])
                   : fg_vector(e, 4, 4, c[0], c[1], c[2], c[3]);
}

/* Starts op reading fields (fields[i] of the graph, or NULL for a
 * literal) and returns body's value. */
static fg_expr *body_call(fg_op *op, fg_expr **a, int n, const void *ctx);

/* Whether an integer literal v fits integer element type e. */
static int fits(double v, fg_elem e) {
  static const double lo[] = {[FG_I8] = -128, [FG_U8] = 0, [FG_I16] = -32768,
                              [FG_U16] = 0, [FG_I32] = -2147483648.0,
                              [FG_U32] = 0, [FG_I64] = -9.2e18, [FG_U64] = 0};
  static const double hi[] = {[FG_I8] = 127, [FG_U8] = 255, [FG_I16] = 32767,
                              [FG_U16] = 65535, [FG_I32] = 2147483647.0,
                              [FG_U32] = 4294967295.0, [FG_I64] = 9.2e18,
                              [FG_U64] = 1.8e19};
  return e >= FG_I8 && e <= FG_U64 && v >= lo[e] && v <= hi[e];
}

static fg_expr *pw_body(fg_op *op, fg_field **fields, const fgt_value *args,
                        int n, fg_elem elem, body_fn body, const void *ctx) {
  fg_expr *e[8];
  for (int i = 0; i < n; i++) {
    e[i] = fields[i] ? fg_read_tensor(op, fields[i])
                     : literal(op, &args[i], elem);
    /* a built-in takes its operands in one type (OpenCL C's rule): an
     * integer literal that fits the fields' integer type is of it, as
     * bit_rotate(px, 1) on u8 pixels means */
    if (!fields[i] && body == body_call && args[i].kind == FGT_V_NUMBER &&
        args[i].is_integer && fits(args[i].v[0], elem))
      e[i] = fg_convert(e[i], elem, 1);
  }
  return body(op, e, n, ctx);
}

/* One pointwise operator named name over args (fields, numbers, vectors);
 * its thread shape is the largest field's, 0-D fields broadcast. */
static fgt_value pointwise(eval *ev, const char *name, fgt_pos pos,
                           const fgt_value *args, int n, body_fn body,
                           const void *ctx) {
  fg_shape shape = fg_shape0();
  fg_elem elem = FG_BOOL;
  int any = 0;
  for (int i = 0; i < n; i++) {
    if (args[i].kind == FGT_V_FIELD) {
      fg_type t = fg_field_type(args[i].field);
      if (!any || t.field.ndim > shape.ndim)
        shape = t.field;
      if (!any)
        elem = t.elem;
      any = 1;
    } else if (args[i].kind != FGT_V_NUMBER &&
               args[i].kind != FGT_V_VECTOR) {
      return failv(ev, FG_ETYPE, pos, "%s: expected a field, a number or a "
                   "vector as argument %d, found %s", name, i + 1,
                   kind_name(args[i].kind));
    }
  }
  if (!any)
    return failv(ev, FG_ETYPE, pos, "%s: expected at least one field "
                 "argument (an image or a value computed from one)", name);
  for (int i = 0; i < n; i++) {
    if (args[i].kind != FGT_V_FIELD)
      continue;
    fg_type t = fg_field_type(args[i].field);
    if (t.field.ndim != 0 && !fg_shape_equal(t.field, shape)) {
      char a[FG_TYPE_STR_MAX], b[FG_TYPE_STR_MAX];
      fg_type ts = t;
      ts.field = shape;
      return failv(ev, FG_ESHAPE, pos, "%s: argument %d is %s, expected the "
                   "shape of the others (%s) or a single value", name, i + 1,
                   fg_type_str(t, a, sizeof a), fg_type_str(ts, b, sizeof b));
    }
  }
  /* one build: the operator's result type is that of its value */
  fg_field *rf[8] = {0};
  for (int i = 0; i < n; i++)
    rf[i] = args[i].kind == FGT_V_FIELD ? args[i].field : NULL;
  fg_op *op = fg_op_begin_map(ev->g, name, shape);
  fg_expr *r = pw_body(op, rf, args, n, elem, body, ctx);
  fg_write_tensor(op, 0, r);
  fg_field *f = fg_op_end(op);
  if (graph_failed(ev, pos))
    return none();
  fgt_value res = field_value(f);
  if (body != body_swizzle) /* a channel pick (lab.x) drops alpha */
    res.alpha = inherit_alpha(args, n, f);
  return res;
}

static fg_expr *body_binary(fg_op *op, fg_expr **a, int n, const void *ctx) {
  (void)op;
  (void)n;
  switch (*(const char *)ctx) {
  case '+': return fg_add(a[0], a[1]);
  case '-': return fg_sub(a[0], a[1]);
  case '*': return fg_mul(a[0], a[1]);
  case '/': return fg_div(a[0], a[1]);
  case '%': return fg_mod(a[0], a[1]);
  default: return fg_pow(a[0], a[1]);
  }
}

static fg_expr *body_neg(fg_op *op, fg_expr **a, int n, const void *ctx) {
  (void)op, (void)n, (void)ctx;
  return fg_neg(a[0]);
}

static fg_expr *body_swizzle(fg_op *op, fg_expr **a, int n, const void *ctx) {
  (void)op, (void)n;
  return fg_swizzle(a[0], ctx);
}

static fg_expr *body_row(fg_op *op, fg_expr **a, int n, const void *ctx) {
  const fg_op_info *row = ctx;
  (void)op, (void)n;
  switch (row->kind) {
  case FG_OPK_EXPR1: return row->expr1(a[0]);
  case FG_OPK_EXPR2: return row->expr2(a[0], a[1]);
  default: return row->expr3(a[0], a[1], a[2]);
  }
}

static fg_expr *body_call(fg_op *op, fg_expr **a, int n, const void *ctx) {
  (void)op;
  return fg_call(ctx, n, a);
}

/* ---- expressions -------------------------------------------------------- */

static fgt_value eval_node(eval *ev, const fgt_node *n);
static void label_field(eval *ev, fg_field *f, const char *what,
                        fgt_pos pos);

static double fold(char op, double a, double b) {
  switch (op) {
  case '+': return a + b;
  case '-': return a - b;
  case '*': return a * b;
  case '/': return a / b;
  /* fmod is C's % on every integer a double holds exactly, and defined
   * where a cast to an integer type would not be (|a| >= 2^63) */
  case '%': return b != 0 ? __builtin_fmod(a, b) : 0;
  default: {
    double r = 1;                     /* integer powers only when exact */
    if (b >= 0 && b < 64 && b == (int)b) {
      for (int i = 0; i < (int)b; i++)
        r *= a;
      return r;
    }
    return __builtin_pow(a, b);
  }
  }
}

static fgt_value eval_binary(eval *ev, const fgt_node *n) {
  fgt_value v[2] = {eval_node(ev, n->a), eval_node(ev, n->b)};
  if (ev->st != FG_OK)
    return none();
  if (v[0].kind == FGT_V_NUMBER && v[1].kind == FGT_V_NUMBER) {
    fgt_value r = {.kind = FGT_V_NUMBER, .n = 1};
    r.v[0] = fold(n->op, v[0].v[0], v[1].v[0]);
    r.is_integer = v[0].is_integer && v[1].is_integer && n->op != '/';
    return r;
  }
  static const char *names[] = {"add", "sub", "mul", "div", "mod", "pow"};
  const char *ops = "+-*/%^";
  const char *name = names[strchr(ops, n->op) - ops];
  return pointwise(ev, name, n->pos, v, 2, body_binary, &n->op);
}

/* Arguments of a call in the order of params ("x,lo,hi"); named ones are
 * placed by name.  Returns the count, or -1 after an error. */
static int order_args(eval *ev, const fgt_node *call, const char *fname,
                      const char *params, const fgt_node **out, int max,
                      int holes) {
  int n = 0;
  for (int i = 0; i < max; i++)
    out[i] = NULL;
  for (int i = 0; i < call->n; i++) {
    int slot = i;
    if (call->arg_names[i]) {
      slot = -1;
      int k = 0;
      for (const char *p = params; p && *p; k++) {
        size_t len = strcspn(p, ","), name_len = strcspn(p, "=,");
        if (name_len == strlen(call->arg_names[i]) &&
            strncmp(p, call->arg_names[i], name_len) == 0)
          slot = k;
        p += len + (p[len] == ',');
      }
      if (slot < 0) {
        fgt_suggest sg;
        char hint[96];
        fgt_suggest_begin(&sg, call->arg_names[i], strlen(call->arg_names[i]));
        for (const char *p = params; p && *p;) {
          size_t len = strcspn(p, ",");
          fgt_suggest_offer(&sg, p, strcspn(p, "=,"));
          p += len + (p[len] == ',');
        }
        failv(ev, FG_EINVAL, call->arg_pos[i], "%s: no parameter named "
              "'%s'%s (expected one of: %s)", fname, call->arg_names[i],
              fgt_suggest_text(&sg, hint, sizeof hint),
              params && *params ? params : "none");
        return -1;
      }
    }
    if (slot >= max) {
      failv(ev, FG_EINVAL, call->items[i]->pos, "%s: expected at most %d "
            "arguments", fname, max);
      return -1;
    }
    if (out[slot]) {
      failv(ev, FG_EINVAL, call->arg_pos[i], "%s: argument '%s' given "
            "twice", fname, call->arg_names[i]);
      return -1;
    }
    out[slot] = call->items[i];
    if (slot + 1 > n)
      n = slot + 1;
  }
  for (int i = 0; i < n && !holes; i++)
    if (!out[i]) {
      failv(ev, FG_EINVAL, call->pos, "%s: argument %d is missing", fname,
            i + 1);
      return -1;
    }
  return n;
}

/* The image input of a call to input(): graph input of the key's type,
 * converted to f32 in [0, 1].  input(profile="p3") on the first input
 * names the working space every input is converted to when it is read
 * (run.c reads it with fgt_pipeline_inputs); its value is checked here,
 * so that check refuses a bad one before any input runs. */
static fgt_value call_input(eval *ev, const fgt_node *c) {
  fgt_built *b = ev->b;
  const char *tmpl = NULL;
  const fgt_node *a[2];
  int n = order_args(ev, c, "input", "file,profile", a, 2, 1);
  if (n < 0)
    return none();
  if (a[0] && a[0]->kind != FGT_N_STRING)
    return failv(ev, FG_EINVAL, a[0]->pos, "input: expected no argument "
                 "(the input file) or one string, a file name template "
                 "such as \"{stem}_mask.png\"");
  if (a[0])
    tmpl = a[0]->text;
  if (a[1]) {
    if (a[1]->kind != FGT_N_STRING && a[1]->kind != FGT_N_NAME)
      return failv(ev, FG_EINVAL, a[1]->pos, "input: profile: expected a "
                   "working space, \"srgb\", \"p3\", \"adobergb\" or an ICC "
                   "profile file's path");
    if (tmpl)
      return failv(ev, FG_EINVAL, a[1]->pos, "input: profile: the working "
                   "space is the pipeline's, given on the first input() "
                   "only; every input is converted to it");
    char why[1024];
    if (fg_image_space_check(a[1]->text, why, sizeof why) != FG_OK)
      return failv(ev, FG_EINVAL, a[1]->pos, "input: profile=\"%s\": %s",
                   a[1]->text, why);
  }
  if (b->n_inputs >= ev->key->n)
    return failv(ev, FG_EINVAL, c->pos, "input: more inputs than images "
                 "given (%d)", ev->key->n);
  int i = b->n_inputs;
  if ((i == 0) != (tmpl == NULL))
    return failv(ev, FG_EINVAL, c->pos, i == 0
                 ? "input: expected input() first, for the input file "
                   "itself; templates name the files beside it"
                 : "input: the input file is already input(); expected a "
                   "file name template for the next one");
  char name[32];
  snprintf(name, sizeof name, "input%d", i);
  static const fg_elem elems[] = {FG_U8, FG_U16, FG_F32};
  int ty = ev->key->type[i];
  fg_field *f = fg_input(ev->g, name, fg_type_image(
                             elems[ty >= 0 && ty <= 2 ? ty : 0],
                             ev->key->height[i], ev->key->width[i],
                             ev->key->channels[i]));
  b->inputs[i] = (fgt_input){.tmpl = tmpl, .index = i};
  b->n_inputs++;
  char what[300];
  snprintf(what, sizeof what, tmpl ? "input(\"%s\")" : "input()",
           tmpl ? tmpl : "");
  label_field(ev, f, what, c->pos);
  f = fg_to_unit(ev->g, f);
  if (graph_failed(ev, c->pos))
    return none();
  int ch = ev->key->channels[i];
  if (ch != 2 && ch != 4)
    return field_value(f);
  /* colour, the alpha beside it */
  fgt_value v = field_value(row_call(ev->g, "channels", f, NULL,
                                     ch == 4 ? "xyz" : "x"));
  v.alpha = row_call(ev->g, "channels", f, NULL, ch == 4 ? "w" : "y");
  if (graph_failed(ev, c->pos))
    return none();
  return v;
}

static int want_number(eval *ev, const fgt_node *n, double lo, double hi,
                       const char *what, double *out) {
  fgt_value v = eval_node(ev, n);
  if (ev->st != FG_OK)
    return -1;
  if (v.kind != FGT_V_NUMBER || v.v[0] < lo || v.v[0] > hi) {
    failv(ev, FG_EINVAL, n->pos, "expected %s (a number from %g to %g)",
          what, lo, hi);
    return -1;
  }
  *out = v.v[0];
  return 0;
}

/* Whether option (as the brackets would write it: "Q=85") suits the
 * format of template tmpl, asked of the image library's own parser; 0, or
 * -1 with why in err.  A template whose extension is itself a field
 * ({ext}) is checked per input when written. */
static int option_suits(const char *tmpl, const char *option, char *err,
                        size_t errlen) {
  const char *slash = strrchr(tmpl, '/'), *dot = strrchr(tmpl, '.');
  if (!dot || (slash && dot < slash) || strchr(dot, '{'))
    return 0;
  char spec[256];
  snprintf(spec, sizeof spec, "x%.*s[%s]", (int)(strlen(dot) < 32
                                                 ? strlen(dot) : 32), dot,
           option);
  size_t len;
  fg_image_save_options o;
  return fg_image_save_parse(spec, &len, &o, err, errlen) == FG_OK ? 0 : -1;
}

/* save(image, "template", compression=N, filter="none", quality=Q) */
static fgt_value call_save(eval *ev, const fgt_node *c) {
  const fgt_node *a[5];
  int n = order_args(ev, c, "save", "image,file,compression,filter,quality",
                     a, 5, 1);
  if (n < 0)
    return none();
  /* named arguments may leave the image or the template out (holes) */
  if (n < 2 || !a[0] || !a[1] || a[1]->kind != FGT_N_STRING)
    return failv(ev, FG_EINVAL, n >= 2 && a[1] ? a[1]->pos : c->pos, "save: "
                 "expected an image and a file name template such as "
                 "\"{stem}-lab.png\"");
  fgt_value img = eval_node(ev, a[0]);
  if (ev->st != FG_OK)
    return none();
  if (img.kind != FGT_V_FIELD)
    return failv(ev, FG_ETYPE, a[0]->pos, "save: expected an image, found "
                 "%s", kind_name(img.kind));
  fgt_save *s = &ev->b->saves[ev->b->n_saves];
  fg_image_save_options o;
  double d;
  /* vips' style: "out.png[compression=1,filter=all]"; the extension and
   * the options are checked here, before any input runs */
  const char *tmpl = a[1]->text;
  size_t tlen = strlen(tmpl);
  if (tlen >= sizeof s->tmpl)
    return failv(ev, FG_EINVAL, a[1]->pos, "save: expected a file name "
                 "template of at most %zu bytes", sizeof s->tmpl - 1);
  char perr[1024];
  if (fg_image_save_parse(tmpl, &tlen, &o, perr, sizeof perr) != FG_OK)
    return failv(ev, FG_EINVAL, a[1]->pos, "save: %s", perr);
  snprintf(s->tmpl, sizeof s->tmpl, "%.*s", (int)tlen, tmpl);
  char why[1024];
  if (fgt_tmpl_check(s->tmpl, why, sizeof why))
    return failv(ev, FG_EINVAL, a[1]->pos, "save: %s", why);
  /* the same template twice names the same file for every input */
  for (int k = 0; k < ev->b->n_saves; k++)
    if (!strcmp(ev->b->saves[k].tmpl, s->tmpl))
      return failv(ev, FG_EINVAL, a[1]->pos, "save: \"%s\" is already the "
                   "template of save() number %d: both outputs of every "
                   "input would be one file; expected another name", s->tmpl,
                   k + 1);
  /* the named options as the brackets would give them: each must suit
   * the output's format (quality=85 on a PNG was silently ignored) */
  static const char *const opt_name[] = {"compression", "filter", "Q"};
  for (int k = 2; k < 5 && k < n; k++) {
    if (!a[k])
      continue;
    char opt[96], oerr[512];
    if (a[k]->kind == FGT_N_STRING)
      snprintf(opt, sizeof opt, "%s=%s", opt_name[k - 2], a[k]->text);
    else if (a[k]->kind == FGT_N_NUMBER)
      snprintf(opt, sizeof opt, "%s=%g", opt_name[k - 2], a[k]->number);
    else
      continue;
    if (option_suits(s->tmpl, opt, oerr, sizeof oerr)) {
      const char *reason = strstr(oerr, "]: ");   /* past "x.png[...]" */
      return failv(ev, FG_EINVAL, a[k]->pos, "save: %s= for \"%s\": %s",
                   k == 4 ? "quality" : opt_name[k - 2], s->tmpl,
                   reason ? reason + 3 : oerr);
    }
  }
  if (n > 2 && a[2]) {
    if (want_number(ev, a[2], 0, 9, "a PNG compression level", &d))
      return none();
    o.png_compression = (int)d;
  }
  if (n > 3 && a[3]) {
    static const char *filters[] = {"none", "sub", "up", "avg", "paeth",
                                    "all"};
    int k = -1;
    for (int i = 0; i < 6 && a[3]->kind == FGT_N_STRING; i++)
      if (strcmp(a[3]->text, filters[i]) == 0)
        k = i;
    if (k < 0)
      return failv(ev, FG_EINVAL, a[3]->pos, "save: expected a PNG filter: "
                   "\"none\", \"sub\", \"up\", \"avg\", \"paeth\" or \"all\"");
    o.png_filter = (fg_png_filter)k;
  }
  if (n > 4 && a[4]) {
    if (want_number(ev, a[4], 1, 100, "a JPEG quality", &d))
      return none();
    o.quality = (int)d;
  }
  if (ev->b->n_saves >= FGT_MAX_IO)
    return failv(ev, FG_EINVAL, c->pos, "save: at most %d outputs",
                 FGT_MAX_IO);
  fg_type t = fg_field_type(img.field);
  int ch = fg_type_tensor_elements(t);
  if (t.field.ndim != 2 || ch > 4 || fg_type_is_big(t) ||
      (t.elem != FG_U8 && t.elem != FG_U16 && t.elem != FG_F32)) {
    char buf[FG_TYPE_STR_MAX];
    return failv(ev, FG_ETYPE, a[0]->pos, "save: expected a 2-D image of u8, "
                 "u16 or f32 (in [0, 1]) with 1-4 channels, found %s",
                 fg_type_str(t, buf, sizeof buf));
  }
  fg_field *f = img.field;
  /* the input's alpha back as the last channel */
  if (img.alpha && (ch == 1 || ch == 3)) {
    f = join_alpha(ev->g, f, img.alpha);
    if (graph_failed(ev, a[0]->pos))
      return none();
    ch++;
  }
  /* a float image is stored as the first input's samples were (16 bits
   * stay 16 bits, float TIFF stays float) where the format holds them, or
   * as [bitdepth=N] asks, else as 8 bits */
  fg_elem out = t.elem;
  if (t.elem == FG_F32) {
    int bits = fg_image_format_bits(s->tmpl);
    int in = ev->key->n > 0 ? ev->key->type[0] : FG_IMAGE_U8;
    out = o.bitdepth == 16 || (!o.bitdepth && bits >= 16 &&
                               in == FG_IMAGE_U16) ? FG_U16
          : !o.bitdepth && bits == 32 && in == FG_IMAGE_F32 ? FG_F32 : FG_U8;
    if (out != FG_F32) {
      f = fg_from_unit(ev->g, f, out);
      char what[300];
      snprintf(what, sizeof what, "save \"%s\"", s->tmpl);
      label_field(ev, f, what, c->pos);
    }
  }
  char name[32];
  snprintf(name, sizeof name, "save%d", ev->b->n_saves);
  fg_output(ev->g, name, f);
  if (graph_failed(ev, c->pos))
    return none();
  s->output = fg_graph_output_count(ev->g) - 1;
  s->opt = o;
  s->elem = out;
  s->channels = ch;
  ev->b->n_saves++;
  return none();
}

/* report(value) or report(value, "name"): a 0-D field's value by name. */
static fgt_value call_report(eval *ev, const fgt_node *c) {
  const fgt_node *a[2];
  int n = order_args(ev, c, "report", "value,name", a, 2, 0);
  if (n < 0)
    return none();
  if (n < 1)
    return failv(ev, FG_EINVAL, c->pos, "report: expected a value");
  char name[sizeof ev->b->reports[0].name];
  const char *given = n > 1 && a[1]->kind == FGT_N_STRING ? a[1]->text
                      : n == 1 && a[0]->kind == FGT_N_NAME ? a[0]->text
                      : "";
  if (strlen(given) >= sizeof name)
    return failv(ev, FG_EINVAL, a[n > 1]->pos, "report: expected a name of "
                 "at most %zu bytes, found %zu", sizeof name - 1,
                 strlen(given));
  if (n > 1 && a[1]->kind == FGT_N_STRING)
    snprintf(name, sizeof name, "%s", a[1]->text);
  else if (n > 1)
    return failv(ev, FG_EINVAL, a[1]->pos, "report: expected a name (a "
                 "string)");
  else if (a[0]->kind == FGT_N_NAME)
    snprintf(name, sizeof name, "%s", a[0]->text);
  else
    snprintf(name, sizeof name, "report%d", ev->b->n_reports);
  fgt_value v = eval_node(ev, a[0]);
  if (ev->st != FG_OK)
    return none();
  fg_type t = fg_field_type(v.field);
  int64_t nv = fg_shape_points(t.field) * fg_type_tensor_elements(t);
  if (v.kind != FGT_V_FIELD || t.field.ndim > 1 || fg_type_is_big(t) ||
      nv > FGT_MAX_REPORT) {
    char buf[64];
    return failv(ev, FG_ETYPE, a[0]->pos, "report: expected a single value "
                 "(a reduction such as sum(x)) or a list of at most %d "
                 "(a histogram), found %s", FGT_MAX_REPORT,
                 v.kind == FGT_V_FIELD ? fg_type_str(t, buf, sizeof buf)
                                       : kind_name(v.kind));
  }
  for (int i = 0; i < ev->b->n_reports; i++)
    if (strcmp(ev->b->reports[i].name, name) == 0)
      return failv(ev, FG_EINVAL, a[0]->pos, "report: '%s' is reported "
                   "twice", name);
  if (ev->b->n_reports >= FGT_MAX_IO)
    return failv(ev, FG_EINVAL, c->pos, "report: at most %d values",
                 FGT_MAX_IO);
  char oname[80];
  snprintf(oname, sizeof oname, "report:%s", name);
  fg_output(ev->g, oname, v.field);
  if (graph_failed(ev, c->pos))
    return none();
  fgt_report *r = &ev->b->reports[ev->b->n_reports++];
  r->output = fg_graph_output_count(ev->g) - 1;
  snprintf(r->name, sizeof r->name, "%s", name);
  r->elem = t.elem;
  r->n = (int)nv;
  return none();
}

/* script("file.rs"): loaded once per pipeline, relative to its file. */
static fgt_value call_script(eval *ev, const fgt_node *c) {
  if (c->n != 1 || c->items[0]->kind != FGT_N_STRING)
    return failv(ev, FG_EINVAL, c->pos, "script: expected the path of a "
                 "RenderScript file (a string)");
  const char *rel = c->items[0]->text;
  char path[4096];
  const char *slash = strrchr(ev->p->src.path, '/');
  if (rel[0] == '/' || !slash)
    snprintf(path, sizeof path, "%s", rel);
  else
    snprintf(path, sizeof path, "%.*s/%s", (int)(slash - ev->p->src.path),
             ev->p->src.path, rel);
  fgt_scripts *ss = ev->scripts;
  for (int i = 0; i < ss->n; i++)
    if (strcmp(ss->path[i], path) == 0)
      return (fgt_value){.kind = FGT_V_SCRIPT, .script = ss->s[i]};
  if (ss->n >= 16)
    return failv(ev, FG_EINVAL, c->pos, "script: at most 16 scripts");
  char err[1024];
  fg_rs_script *s;
  if (fg_rs_script_new_file(path, &s, err, sizeof err) != FG_OK)
    return failv(ev, FG_EFORMAT, c->items[0]->pos, "%s", err);
  ss->path[ss->n] = strdup(path);
  ss->s[ss->n] = s;
  ss->n++;
  return (fgt_value){.kind = FGT_V_SCRIPT, .script = s};
}

static int store_number(double d, fg_elem e, unsigned char *dst);

/* s.f(args): a kernel or reduction over field arguments, or an invokable,
 * whose number arguments go to its numeric parameters in order (the
 * fields to its rs_allocation parameters, as fg_rs_invoke takes them). */
static fgt_value call_method(eval *ev, const fgt_node *c, fgt_value m) {
  fg_field *in[8];
  unsigned char num[8][8];
  const void *values[64] = {0};
  int n_in = 0, n_num = 0, next_param = 0;
  if (c->n > 8)
    return failv(ev, FG_EINVAL, c->pos, "%s: at most 8 arguments", m.str);
  fg_rs_kind kind = fg_rs_function_kind(m.script, m.str);
  for (int i = 0; i < c->n; i++) {
    fgt_value v = eval_node(ev, c->items[i]);
    if (ev->st != FG_OK)
      return none();
    if (v.kind == FGT_V_NUMBER && kind == FG_RS_INVOKABLE) {
      fg_elem e = FG_F32;
      fg_status pst = FG_ETYPE;
      while (next_param < 64 &&
             (pst = fg_rs_function_param(m.script, m.str, next_param,
                                         &e)) == FG_ETYPE)
        next_param++;
      if (pst != FG_OK)
        return failv(ev, FG_EINVAL, c->items[i]->pos, "%s: number %g has "
                     "no numeric parameter to go to (%d of them)", m.str,
                     v.v[0], n_num);
      if (!store_number(v.v[0], e, num[i]))
        return failv(ev, FG_ETYPE, c->items[i]->pos, "%s: parameter %d "
                     "holds %s numbers; expected one, found %g", m.str,
                     next_param, fg_elem_name(e), v.v[0]);
      values[next_param++] = num[i];
      n_num++;
      continue;
    }
    if (v.kind != FGT_V_FIELD)
      return failv(ev, FG_ETYPE, c->items[i]->pos, "%s: expected a field "
                   "argument%s, found %s", m.str,
                   kind == FG_RS_INVOKABLE ? " or a number" : "",
                   kind_name(v.kind));
    in[n_in++] = v.field;
  }
  if (kind == FG_RS_KERNEL || kind == FG_RS_REDUCTION) {
    fg_field *f = kind == FG_RS_KERNEL
                      ? fg_rs_map(ev->g, m.script, m.str, n_in, in, NULL)
                      : fg_rs_reduce(ev->g, m.script, m.str, n_in, in, NULL);
    if (graph_failed(ev, c->pos))
      return none();
    return field_value(f);
  }
  int nr = ev->want_results;
  fg_field *res[FGT_MAX_IO] = {0};
  fg_status st = n_num ? fg_rs_invoke_args(ev->g, m.script, m.str, values,
                                           n_in, in, nr, res)
                       : fg_rs_invoke(ev->g, m.script, m.str, n_in, in, nr,
                                      res);
  if (graph_failed(ev, c->pos))
    return none();
  if (st != FG_OK)
    return failv(ev, st, c->pos, "%s", fg_rs_script_errmsg(m.script));
  for (int i = 0; i < nr; i++)
    ev->results[i] = field_value(res[i]);
  ev->n_results = nr;
  return nr ? ev->results[0] : none();
}

/* One number of a list (any expression giving a number) appended to w;
 * 0, or -1 after an error. */
static int number_list_item(eval *ev, const fgt_node *n, const char *fname,
                            fgt_floats *w) {
  fgt_value v = eval_node(ev, n);
  if (ev->st != FG_OK)
    return -1;
  int k = v.kind == FGT_V_NUMBER ? 1 : v.kind == FGT_V_VECTOR ? v.n : 0;
  if (!k) {
    failv(ev, FG_ETYPE, n->pos, "%s: expected a number, found %s", fname,
          kind_name(v.kind));
    return -1;
  }
  if (w->n + k > FGT_MAX_FLOATS) {
    failv(ev, FG_EINVAL, n->pos, "%s: more than %d numbers", fname,
          FGT_MAX_FLOATS);
    return -1;
  }
  for (int i = 0; i < k; i++)
    w->v[w->n++] = (float)v.v[i];
  return 0;
}

/* A number list argument: a vector literal (nested one level for a
 * matrix's rows) or any value that is a number or a vector, into w.
 * 0, or -1 after an error. */
static int number_list(eval *ev, const fgt_node *n, const char *fname,
                       fgt_floats *w) {
  w->n = 0;
  w->rows = 1;
  if (n->kind == FGT_N_VECTOR && n->n > 0 && n->items[0]->kind ==
      FGT_N_VECTOR) {
    w->rows = n->n;
    w->cols = n->items[0]->n;
    for (int r = 0; r < n->n; r++) {
      const fgt_node *row = n->items[r];
      if (row->kind != FGT_N_VECTOR || row->n != w->cols) {
        failv(ev, FG_EINVAL, row->pos, "%s: expected a row of %d numbers "
              "(every row of a matrix the same length)", fname, w->cols);
        return -1;
      }
      for (int k = 0; k < row->n; k++)
        if (number_list_item(ev, row->items[k], fname, w) < 0)
          return -1;
    }
    return 0;
  }
  if (n->kind == FGT_N_VECTOR) {
    for (int k = 0; k < n->n; k++)
      if (number_list_item(ev, n->items[k], fname, w) < 0)
        return -1;
  } else if (number_list_item(ev, n, fname, w) < 0)
    return -1;
  w->cols = w->n;
  return 0;
}

/* An enum argument, by name (bare or quoted) among names; -1 after an
 * error naming the choices. */
static int enum_value(eval *ev, const fgt_node *n, const char *fname,
                      const char *param, int plen, const char *const *names) {
  if (n->kind == FGT_N_NAME || n->kind == FGT_N_STRING)
    for (int i = 0; names[i]; i++)
      if (strcmp(names[i], n->text) == 0)
        return i;
  char list[512] = "";
  for (int i = 0; names[i]; i++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
             i ? ", " : "", names[i]);
  failv(ev, FG_EINVAL, n->pos, "%s: expected one of %s for '%.*s'", fname,
        list, plen, param);
  return -1;
}

/* A default value of a row's params ("border=clamp") for signature letter
 * c into args slot i. */
static void default_arg(char c, const char *text, size_t len, int i,
                        fg_op_args *args, fgt_floats *w,
                        fg_op_list *list) {
  const char *const *names = fg_ops_enum_names(c);
  if (names) {
    for (int k = 0; names[k]; k++)
      if (strlen(names[k]) == len && !strncmp(names[k], text, len))
        args->num[i] = k;
  } else if (c == 'w') {
    w->n = 1;
    w->rows = w->cols = 1;
    w->v[0] = strtof(text, NULL);
    *list = (fg_op_list){w->n, w->rows, w->cols, w->v};
    args->list[i] = list;
  } else if (c != 'F') {  /* "none": an optional field left out */
    args->num[i] = strtod(text, NULL);
  }
}

/* A row of kind FG_OPK_GRAPH: arguments by position or name, defaults
 * from the row's params, each checked against its letter of the row's
 * signature, then the row's library call. */
static fgt_value call_graph(eval *ev, const fgt_node *c,
                            const fg_op_info *row) {
  const char *sig = row->sig;
  int np = fg_ops_param_count(row);
  const fgt_node *a[FG_OP_MAX_PARAMS];
  fg_op_list lists[FG_OP_MAX_PARAMS];
  assert(np <= FG_OP_MAX_PARAMS);
  int n = order_args(ev, c, row->name, row->params, a, np, 1);
  if (n < 0)
    return none();
  fg_op_args args;
  memset(&args, 0, sizeof args);
  fgt_floats *w = calloc(np, sizeof *w);
  if (!w)
    return failv(ev, FG_ENOMEM, c->pos, "%s: out of memory", row->name);
  fgt_value result = none();
  fg_field *img_alpha = NULL; /* of the first field argument with alpha */
  int img_i = -1, alpha_base = 0; /* alpha_channel_op's first with alpha */
  const char *p = row->params;
  for (int i = 0; i < np; i++, p += strcspn(p, ",") + (p[strcspn(p, ",")]
                                                      == ',')) {
    size_t len = strcspn(p, ","), name_len = strcspn(p, "=,");
    const char *const *names = fg_ops_enum_names(sig[i]);
    if (i >= n || !a[i]) {
      if (name_len == len) {
        failv(ev, FG_EINVAL, c->pos, "%s: expected argument '%.*s' "
              "(parameters: %s)", row->name, (int)name_len, p, row->params);
        goto out;
      }
      default_arg(sig[i], p + name_len + 1, len - name_len - 1, i, &args,
                  &w[i], &lists[i]);
      continue;
    }
    if (names) {
      int k = enum_value(ev, a[i], row->name, p, (int)name_len, names);
      if (k < 0)
        goto out;
      args.num[i] = k;
      continue;
    }
    if (sig[i] == 's') {
      if (a[i]->kind != FGT_N_STRING) {
        failv(ev, FG_ETYPE, a[i]->pos, "%s: expected a string for '%.*s'",
              row->name, (int)name_len, p);
        goto out;
      }
      args.str[i] = a[i]->text;
      continue;
    }
    if (sig[i] == 'w') {
      if (number_list(ev, a[i], row->name, &w[i]) < 0)
        goto out;
      lists[i] = (fg_op_list){w[i].n, w[i].rows, w[i].cols, w[i].v};
      args.list[i] = &lists[i];
      continue;
    }
    fgt_value v = eval_node(ev, a[i]);
    if (ev->st != FG_OK)
      goto out;
    if (sig[i] == 'F') {
      if (v.kind != FGT_V_FIELD) {
        failv(ev, FG_ETYPE, a[i]->pos, "%s: expected a field for '%.*s', "
              "found %s", row->name, (int)name_len, p, kind_name(v.kind));
        goto out;
      }
      args.field[i] = v.field;
      int vc = fg_type_tensor_elements(fg_field_type(v.field));
      if (v.alpha && alpha_channel_op(row->name) && (vc == 1 || vc == 3)) {
        args.field[i] = join_alpha(ev->g, v.field, v.alpha);
        if (graph_failed(ev, a[i]->pos))
          goto out;
        alpha_base |= i == 0;
        continue;
      }
      if (!img_alpha && v.alpha) {
        img_alpha = v.alpha;
        img_i = i;
      }
      continue;
    }
    int integer = sig[i] != 'd';
    /* a pixel count or position ('l') computed from the image's size may
     * be a fraction (width / 2 of an odd width): rounded down, as integer
     * division would */
    if (sig[i] == 'l' && v.kind == FGT_V_NUMBER && isfinite(v.v[0]))
      v.v[0] = floor(v.v[0]);
    /* the range first: converting a double outside it is undefined (int
     * for 'i' and 'b', int64_t for 'l') */
    double lim = sig[i] == 'l' ? 9223372036854775808.0 : 2147483648.0;
    int in_range = v.kind == FGT_V_NUMBER && v.v[0] >= -lim && v.v[0] < lim;
    if (v.kind != FGT_V_NUMBER || (integer && (!in_range ||
                                   v.v[0] != (double)(int64_t)v.v[0])) ||
        (sig[i] == 'b' && v.v[0] != 0 && v.v[0] != 1)) {
      failv(ev, FG_ETYPE, a[i]->pos, "%s: expected %s for '%.*s', found %s",
            row->name, sig[i] == 'b' ? "0 or 1" : integer ? "an integer"
            : "a number", (int)name_len, p,
            v.kind != FGT_V_NUMBER ? kind_name(v.kind) : in_range
            ? "a fraction" : "a number out of range");
      goto out;
    }
    args.num[i] = v.v[0];
  }
  int premul = img_alpha && resampling_op(row->name) &&
               fg_field_type(args.field[img_i]).elem == FG_F32 &&
               fg_field_type(img_alpha).elem == FG_F32;
  if (premul) {
    fgt_value pv[2] = {field_value(args.field[img_i]),
                       field_value(img_alpha)};
    fgt_value m = pointwise(ev, "premultiply", c->pos, pv, 2, body_binary,
                            "*");
    if (ev->st != FG_OK)
      goto out;
    args.field[img_i] = m.field;
  }
  fg_field *f = fg_ops_call(ev->g, row, &args);
  if (!graph_failed(ev, c->pos)) {
    result = field_value(f);
    if (alpha_base && !channel_op(row->name)) {
      result = split_alpha(ev->g, f);
      if (graph_failed(ev, c->pos))
        result = none();
    } else if (img_alpha && !channel_op(row->name)) {
      if (spatial_op(row->name)) {
        /* the alpha moves with the pixels */
        args.field[img_i] = img_alpha;
        result.alpha = fg_ops_call(ev->g, row, &args);
        if (graph_failed(ev, c->pos)) {
          result = none();
        } else if (premul) {
          fgt_value dv[2] = {field_value(f), field_value(result.alpha)};
          fgt_value q = pointwise(ev, "unpremultiply", c->pos, dv, 2,
                                  body_unpremultiply, NULL);
          result.field = ev->st == FG_OK ? q.field : NULL;
          if (ev->st != FG_OK)
            result = none();
        }
      } else if (fg_shape_equal(fg_field_type(img_alpha).field,
                                fg_field_type(f).field)) {
        result.alpha = img_alpha;
      }
    }
  }
out:
  free(w);
  return result;
}

/* Functions of numbers alone computed while the pipeline is read (sizes,
 * angles: crop(rgb, 0, 0, floor(width / 3), height)); fields go through
 * the kernel's built-ins. */
static const struct {
  const char *name;
  int n;
  double (*f1)(double);
  double (*f2)(double, double);
} number_fns[] = {
  {"floor", 1, floor, NULL}, {"ceil", 1, ceil, NULL},
  {"round", 1, round, NULL}, {"trunc", 1, trunc, NULL},
  {"sqrt", 1, sqrt, NULL}, {"fabs", 1, fabs, NULL}, {"abs", 1, fabs, NULL},
  {"exp", 1, exp, NULL}, {"log", 1, log, NULL}, {"sin", 1, sin, NULL},
  {"cos", 1, cos, NULL}, {"tan", 1, tan, NULL},
  {"min", 2, NULL, fmin}, {"max", 2, NULL, fmax}, {"fmin", 2, NULL, fmin},
  {"fmax", 2, NULL, fmax}, {"pow", 2, NULL, pow}, {"atan2", 2, NULL, atan2},
  {"hypot", 2, NULL, hypot},
};

/* fname of n plain numbers as a number in *out; 0 when it is not such a
 * call. */
static int fold_numbers(const char *fname, const fgt_value *v, int n,
                        fgt_value *out) {
  for (int i = 0; i < n; i++)
    if (v[i].kind != FGT_V_NUMBER)
      return 0;
  for (size_t k = 0; k < sizeof number_fns / sizeof *number_fns; k++) {
    if (strcmp(number_fns[k].name, fname) || number_fns[k].n != n)
      continue;
    double r = n == 1 ? number_fns[k].f1(v[0].v[0])
                      : number_fns[k].f2(v[0].v[0], v[1].v[0]);
    int integer = r == floor(r) && fabs(r) < 9007199254740992.0 &&
                  (v[0].is_integer || !strcmp(fname, "floor") ||
                   !strcmp(fname, "ceil") || !strcmp(fname, "round") ||
                   !strcmp(fname, "trunc"));
    *out = (fgt_value){.kind = FGT_V_NUMBER, .n = 1, .is_integer = integer,
                       .v = {r}};
    return 1;
  }
  return 0;
}

/* The built-in function (fg_call's name) a pipeline calls as fname, or
 * NULL: `rotate` is the image rotation of the operator table, so the
 * bitwise built-in of that name is called bit_rotate. */
static const char *builtin_name(const char *fname) {
  if (!strcmp(fname, "bit_rotate"))
    return "rotate";
  if (!strcmp(fname, "rotate"))
    return NULL;
  for (int i = 0; fg_builtin_name(i); i++)
    if (!strcmp(fg_builtin_name(i), fname))
      return fg_builtin_name(i);
  return NULL;
}

static fgt_value eval_call(eval *ev, const fgt_node *c) {
  if (c->a->kind != FGT_N_NAME) {
    fgt_value m = eval_node(ev, c->a);
    if (ev->st != FG_OK)
      return none();
    if (m.kind != FGT_V_METHOD)
      return failv(ev, FG_ETYPE, c->pos, "expected a function or a script's "
                   "kernel before '(', found %s", kind_name(m.kind));
    return call_method(ev, c, m);
  }
  const char *fname = c->a->text;
  if (strcmp(fname, "input") == 0)
    return call_input(ev, c);
  if (strcmp(fname, "save") == 0)
    return call_save(ev, c);
  if (strcmp(fname, "report") == 0)
    return call_report(ev, c);
  if (strcmp(fname, "script") == 0)
    return call_script(ev, c);
  const fg_op_info *row = fg_ops_find(fname);
  const fgt_node *a[8];
  int n;
  if (row && row->kind == FG_OPK_GRAPH)
    return call_graph(ev, c, row);
  if (row && !(row->kind == FG_OPK_REDUCE && c->n > 1)) {
    int want = row->kind == FG_OPK_REDUCE ? 1 : fg_ops_param_count(row);
    n = order_args(ev, c, fname, row->params, a, want, 0);
    if (n < 0)
      return none();
    if (n != want)
      return failv(ev, FG_EINVAL, c->pos, "%s: expected %d argument%s (%s), "
                   "found %d", fname, want, want > 1 ? "s" : "",
                   row->params, n);
  } else {
    if (!builtin_name(fname)) {
      fgt_suggest sg;
      char hint[96];
      fgt_suggest_begin(&sg, fname, strlen(fname));
      int nrows;
      const fg_op_info *t = fg_ops_table(&nrows);
      for (int i = 0; i < nrows; i++)
        fgt_suggest_offer(&sg, t[i].name, strlen(t[i].name));
      for (int i = 0; fg_builtin_name(i); i++)
        fgt_suggest_offer(&sg, fg_builtin_name(i), strlen(fg_builtin_name(i)));
      static const char *const calls[] = {"input", "save", "report",
                                          "script", "bit_rotate"};
      for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        fgt_suggest_offer(&sg, calls[i], strlen(calls[i]));
      return failv(ev, FG_EINVAL, c->a->pos, "unknown operator '%s'%s "
                   "(`fieldgraph ops` lists them)", fname,
                   fgt_suggest_text(&sg, hint, sizeof hint));
    }
    for (int i = 0; i < c->n; i++)
      if (c->arg_names[i])
        return failv(ev, FG_EINVAL, c->items[i]->pos, "%s: takes no named "
                     "arguments (it is a builtin without a row in the "
                     "operator table)", fname);
    if (c->n > 8)
      return failv(ev, FG_EINVAL, c->pos, "%s: at most 8 arguments", fname);
    n = c->n;
    for (int i = 0; i < n; i++)
      a[i] = c->items[i];
    row = NULL;
  }
  fgt_value v[8];
  for (int i = 0; i < n; i++) {
    v[i] = eval_node(ev, a[i]);
    if (ev->st != FG_OK)
      return none();
  }
  fgt_value folded;
  if ((!row || row->kind != FG_OPK_REDUCE) && fold_numbers(fname, v, n,
                                                           &folded))
    return folded;
  if (row && row->kind == FG_OPK_REDUCE) {
    if (v[0].kind != FGT_V_FIELD)
      return failv(ev, FG_ETYPE, a[0]->pos, "%s: expected a field, found %s",
                   fname, kind_name(v[0].kind));
    fg_field *f = fg_reduce(ev->g, fname, row->reduce_op, v[0].field);
    if (graph_failed(ev, c->pos))
      return none();
    return field_value(f);
  }
  if (row)
    return pointwise(ev, fname, c->pos, v, n, body_row, row);
  return pointwise(ev, fname, c->pos, v, n, body_call, builtin_name(fname));
}

/* The column (x) or row (y) of every pixel of the input image, as an f32
 * field of its size: a pointwise operator that fuses with its readers. */
static fgt_value coordinate(eval *ev, const fgt_node *n, int column) {
  fg_op *op = fg_op_begin_map(ev->g, column ? "x" : "y",
                              fg_shape2(ev->key->height[0],
                                        ev->key->width[0]));
  fg_write_tensor(op, 0, fg_convert(column ? fg_column(op) : fg_row(op),
                                    FG_F32, 1));
  fg_field *f = fg_op_end(op);
  if (graph_failed(ev, n->pos))
    return none();
  return field_value(f);
}

static fgt_value lookup(eval *ev, const fgt_node *n) {
  for (int i = ev->n_vars - 1; i >= 0; i--)
    if (strcmp(ev->vars[i].name, n->text) == 0)
      return ev->vars[i].v;
  if (strcmp(n->text, "pi") == 0)
    return (fgt_value){.kind = FGT_V_NUMBER, .n = 1, .v = {3.14159265358979}};
  /* the input image's size (numbers: a graph is built for each size) and
   * its pixel coordinates (fields) */
  if (ev->key->n > 0 && (!strcmp(n->text, "width") ||
                         !strcmp(n->text, "height")))
    return (fgt_value){.kind = FGT_V_NUMBER, .n = 1, .is_integer = 1,
                       .v = {n->text[0] == 'w' ? ev->key->width[0]
                                               : ev->key->height[0]}};
  if (ev->key->n > 0 && (!strcmp(n->text, "x") || !strcmp(n->text, "y")))
    return coordinate(ev, n, n->text[0] == 'x');
  fgt_suggest sg;
  char hint[96];
  fgt_suggest_begin(&sg, n->text, strlen(n->text));
  for (int i = 0; i < ev->n_vars; i++)
    fgt_suggest_offer(&sg, ev->vars[i].name, strlen(ev->vars[i].name));
  fgt_suggest_offer(&sg, "pi", 2);
  return failv(ev, FG_EINVAL, n->pos, "unknown name '%s'%s (expected a value "
               "named earlier in the file)", n->text,
               fgt_suggest_text(&sg, hint, sizeof hint));
}

/* Labels an unlabelled field with what made it and where, so drawings
 * and `explain` speak the pipeline's words ("cielab (lab.fgp:3:7)"); a
 * binding relabels it with its name (bind). */
static void label_field(eval *ev, fg_field *f, const char *what,
                        fgt_pos pos) {
  if (!f || fg_field_label(f) != fg_field_name(f))
    return;
  const char *file = strrchr(ev->p->src.path, '/');
  file = file ? file + 1 : ev->p->src.path;
  char l[256];
  snprintf(l, sizeof l, "%s (%s:%d:%d)", what, file, pos.line, pos.col);
  fg_field_set_label(f, l);
}

static fgt_value eval_node_here(eval *ev, const fgt_node *n);

static fgt_value eval_node(eval *ev, const fgt_node *n) {
  fgt_value v = eval_node_here(ev, n);
  if (v.kind == FGT_V_FIELD) {
    char what[80];
    if (n->kind == FGT_N_CALL && n->a->kind == FGT_N_NAME)
      snprintf(what, sizeof what, "%s()", n->a->text);
    else if (n->kind == FGT_N_BINARY)
      snprintf(what, sizeof what, "%c", n->op);
    else if (n->kind == FGT_N_MEMBER)
      snprintf(what, sizeof what, ".%s", n->text);
    else if (n->kind == FGT_N_UNARY)
      snprintf(what, sizeof what, "-");
    else
      snprintf(what, sizeof what, "value");
    label_field(ev, v.field, what, n->pos);
  }
  return v;
}

static fgt_value eval_node_here(eval *ev, const fgt_node *n) {
  if (ev->st != FG_OK)
    return none();
  switch (n->kind) {
  case FGT_N_NUMBER:
    return (fgt_value){.kind = FGT_V_NUMBER, .n = 1, .v = {n->number},
                       .is_integer = n->is_integer};
  case FGT_N_STRING:
    return (fgt_value){.kind = FGT_V_STRING, .str = n->text};
  case FGT_N_NAME:
    return lookup(ev, n);
  case FGT_N_VECTOR: {
    fgt_value r = {.kind = FGT_V_VECTOR, .n = n->n};
    if (n->n > 4)
      return failv(ev, FG_EINVAL, n->pos, "expected a vector of 1 to 4 "
                   "numbers, found %d (longer lists are only arguments of "
                   "operators taking a kernel or a matrix)", n->n);
    for (int i = 0; i < n->n; i++) {
      fgt_value v = eval_node(ev, n->items[i]);
      if (ev->st != FG_OK)
        return none();
      if (v.kind != FGT_V_NUMBER)
        return failv(ev, FG_ETYPE, n->items[i]->pos, "expected a number in "
                     "a vector, found %s", kind_name(v.kind));
      r.v[i] = v.v[0];
    }
    return r;
  }
  case FGT_N_UNARY: {
    fgt_value v = eval_node(ev, n->a);
    if (ev->st != FG_OK)
      return none();
    if (v.kind == FGT_V_NUMBER || v.kind == FGT_V_VECTOR) {
      for (int i = 0; i < v.n; i++)
        v.v[i] = -v.v[i];
      return v;
    }
    return pointwise(ev, "neg", n->pos, &v, 1, body_neg, NULL);
  }
  case FGT_N_BINARY:
    return eval_binary(ev, n);
  case FGT_N_MEMBER: {
    fgt_value v = eval_node(ev, n->a);
    if (ev->st != FG_OK)
      return none();
    if (v.kind == FGT_V_SCRIPT)
      return (fgt_value){.kind = FGT_V_METHOD, .script = v.script,
                         .str = n->text};
    if (v.kind != FGT_V_FIELD)
      return failv(ev, FG_ETYPE, n->pos, "expected a field or a script "
                   "before '.%s', found %s", n->text, kind_name(v.kind));
    char name[32];
    snprintf(name, sizeof name, "swizzle_%s", n->text);
    return pointwise(ev, name, n->pos, &v, 1, body_swizzle, n->text);
  }
  case FGT_N_CALL:
    return eval_call(ev, n);
  }
  return none();
}

/* Writes d into dst as one element of type e (bool: 0 or 1); 0 when e
 * cannot hold it exactly: a fraction or out of range for an integer, NaN
 * or infinity included (the range is checked before the conversion, which
 * outside it is undefined).  Floats take any number, rounded. */
static int store_number(double d, fg_elem e, unsigned char *dst) {
  static const double lo[] = {0, -128.0, 0, -32768.0, 0, -2147483648.0, 0,
                              -9223372036854775808.0, 0};
  static const double hi[] = {2, 128.0, 256.0, 32768.0, 65536.0,
                              2147483648.0, 4294967296.0,
                              9223372036854775808.0, 18446744073709551616.0};
  if (e == FG_F32) {
    float f = (float)d;
    memcpy(dst, &f, 4);
    return 1;
  }
  if (e == FG_F64) {
    memcpy(dst, &d, 8);
    return 1;
  }
  if (!(d >= lo[e] && d < hi[e]) || d != __builtin_trunc(d))
    return 0;
  switch (e) {
  case FG_BOOL: case FG_U8: *dst = (uint8_t)d; break;
  case FG_I8: { int8_t x = (int8_t)d; memcpy(dst, &x, 1); break; }
  case FG_I16: { int16_t x = (int16_t)d; memcpy(dst, &x, 2); break; }
  case FG_U16: { uint16_t x = (uint16_t)d; memcpy(dst, &x, 2); break; }
  case FG_I32: { int32_t x = (int32_t)d; memcpy(dst, &x, 4); break; }
  case FG_U32: { uint32_t x = (uint32_t)d; memcpy(dst, &x, 4); break; }
  case FG_I64: { int64_t x = (int64_t)d; memcpy(dst, &x, 8); break; }
  default: { uint64_t x = (uint64_t)d; memcpy(dst, &x, 8); break; }
  }
  return 1;
}

/* script.global = number or vector: each number is converted to the
 * global's element type (an int global takes integers only). */
static void set_global(eval *ev, const fgt_stmt *s) {
  fgt_value sv = lookup(ev, &(fgt_node){.kind = FGT_N_NAME,
                                        .text = s->names[0],
                                        .pos = s->name_pos[0]});
  if (ev->st != FG_OK)
    return;
  if (sv.kind != FGT_V_SCRIPT) {
    failv(ev, FG_ETYPE, s->name_pos[0], "expected a script before '.%s', "
          "found %s", s->names[1], kind_name(sv.kind));
    return;
  }
  fgt_value v = eval_node(ev, s->expr);
  if (ev->st != FG_OK)
    return;
  size_t size = fg_rs_global_size(sv.script, s->names[1]);
  if (!size) {
    fgt_suggest sg;
    char hint[96];
    fgt_suggest_begin(&sg, s->names[1], strlen(s->names[1]));
    for (int i = 0; fg_rs_global_name(sv.script, i); i++)
      fgt_suggest_offer(&sg, fg_rs_global_name(sv.script, i),
                        strlen(fg_rs_global_name(sv.script, i)));
    failv(ev, FG_EINVAL, s->name_pos[1], "the script has no global named "
          "'%s'%s", s->names[1], fgt_suggest_text(&sg, hint, sizeof hint));
    return;
  }
  unsigned char buf[64];
  int n = v.kind == FGT_V_VECTOR ? v.n : 1;
  if (v.kind != FGT_V_NUMBER && v.kind != FGT_V_VECTOR) {
    failv(ev, FG_ETYPE, s->expr->pos, "expected a number or a vector for a "
          "script global, found %s", kind_name(v.kind));
    return;
  }
  fg_elem elem;
  if (fg_rs_global_elem(sv.script, s->names[1], &elem) != FG_OK) {
    failv(ev, FG_ETYPE, s->name_pos[1], "global '%s' holds neither numbers "
          "nor an array of them; a pipeline sets only those", s->names[1]);
    return;
  }
  size_t each = elem == FG_BOOL ? 1 : fg_elem_size(elem);
  if (size > sizeof buf || each * (size_t)n != size) {
    failv(ev, FG_ETYPE, s->expr->pos, "global '%s' holds %zu bytes; "
          "expected a value of that size (%d number%s given)", s->names[1],
          size, n, n > 1 ? "s" : "");
    return;
  }
  for (int i = 0; i < n; i++)
    if (!store_number(v.v[i], elem, buf + each * (size_t)i)) {
      failv(ev, FG_ETYPE, s->expr->pos, "global '%s' holds %s numbers; "
            "expected one, found %g (a fraction, or out of range)",
            s->names[1], elem == FG_BOOL ? "bool" : fg_elem_name(elem),
            v.v[i]);
      return;
    }
  if (fg_rs_set(sv.script, s->names[1], buf, size) != FG_OK)
    failv(ev, FG_EINVAL, s->expr->pos, "%s",
          fg_rs_script_errmsg(sv.script));
}

/* Binds name to v (a later binding hides an earlier one); fails the
 * build only when memory runs out. */
static void bind(eval *ev, const char *name, fgt_value v, fgt_pos pos) {
  if (ev->n_vars == ev->cap_vars) {
    int cap = ev->cap_vars ? 2 * ev->cap_vars : 64;
    var *nv = realloc(ev->vars, sizeof *nv * (size_t)cap);
    if (!nv) {
      failv(ev, FG_ENOMEM, pos, "out of memory binding '%s'", name);
      return;
    }
    ev->vars = nv;
    ev->cap_vars = cap;
  }
  ev->vars[ev->n_vars++] = (var){name, v};
  if (v.kind == FGT_V_FIELD) {
    const char *file = strrchr(ev->p->src.path, '/');
    file = file ? file + 1 : ev->p->src.path;
    char l[256];
    snprintf(l, sizeof l, "%s (%s:%d)", name, file, pos.line);
    fg_field_set_label(v.field, l);
  }
}

fg_status fgt_build(const fgt_pipeline *p, fgt_scripts *scripts,
                    const fgt_shape_key *key, fgt_built *out, char *err,
                    size_t errlen) {
  memset(out, 0, sizeof *out);
  eval ev = {.p = p, .scripts = scripts, .key = key, .b = out,
             .err = err, .errlen = errlen};
  const char *base = strrchr(p->src.path, '/');
  out->g = ev.g = fg_graph_new(base ? base + 1 : p->src.path);
  if (!ev.g) {
    snprintf(err, errlen, "out of memory");
    return FG_ENOMEM;
  }
  for (int i = 0; i < p->n_stmts && ev.st == FG_OK; i++) {
    const fgt_stmt *s = &p->stmts[i];
    ev.want_results = s->kind == FGT_S_ASSIGN ? s->n_names : 0;
    ev.n_results = 0;
    if (s->kind == FGT_S_SET) {
      set_global(&ev, s);
      continue;
    }
    fgt_value v = eval_node(&ev, s->expr);
    if (ev.st != FG_OK)
      break;
    if (s->kind == FGT_S_ASSIGN && s->n_names > 1) {
      if (ev.n_results != s->n_names) {
        failv(&ev, FG_EINVAL, s->expr->pos, "expected %d results (one per "
              "name on the left), the value gives %d", s->n_names,
              ev.n_results ? ev.n_results : 1);
        break;
      }
      for (int k = 0; k < s->n_names; k++)
        bind(&ev, s->names[k], ev.results[k], s->name_pos[k]);
    } else if (s->kind == FGT_S_ASSIGN) {
      if (v.kind == FGT_V_NONE) {
        failv(&ev, FG_EINVAL, s->expr->pos, "expected a value for '%s'; "
              "this call gives nothing", s->names[0]);
        break;
      }
      bind(&ev, s->names[0], v, s->name_pos[0]);
    }
  }
  if (ev.st == FG_OK && out->n_inputs == 0)
    failv(&ev, FG_EINVAL, (fgt_pos){1, 1}, "expected an input: the "
          "pipeline never calls input()");
  if (ev.st == FG_OK && out->n_saves == 0 && out->n_reports == 0)
    failv(&ev, FG_EINVAL, (fgt_pos){1, 1}, "expected an output: the "
          "pipeline never calls save() or report()");
  free(ev.vars);
  if (ev.st != FG_OK) {
    fg_graph_free(out->g);
    memset(out, 0, sizeof *out);
  }
  return ev.st;
}

int fgt_pipeline_inputs(const fgt_pipeline *p, int *n, const char **tmpls,
                        const char **space, char *err, size_t errlen) {
  if (space)
    *space = NULL;
  /* walks the tree for calls of input() in statement order, with a stack
   * on the heap: a call of many arguments pushes them all */
  *n = 0;
  const fgt_node **stack = NULL;
  int cap = 0, rc = 0;
  for (int i = 0; i < p->n_stmts && rc == 0; i++) {
    int sp = 0;
    const fgt_node *root = p->stmts[i].expr;
    /* depth-first, left to right: push children in reverse */
    while (rc == 0 && (root || sp > 0)) {
      const fgt_node *x = root ? root : stack[--sp];
      root = NULL;
      if (x->kind == FGT_N_CALL && x->a->kind == FGT_N_NAME &&
          strcmp(x->a->text, "input") == 0) {
        if (*n >= FGT_MAX_IO) {
          fgt_diag(err, errlen, &p->src, x->pos, "at most %d inputs",
                   FGT_MAX_IO);
          rc = -1;
          break;
        }
        /* the template: the first argument, unnamed; the working space:
         * profile= of the first input() */
        tmpls[*n] = x->n >= 1 && !x->arg_names[0] &&
                    x->items[0]->kind == FGT_N_STRING ? x->items[0]->text
                                                      : NULL;
        for (int k = 0; k < x->n && space && *n == 0; k++)
          if (x->arg_names[k] && !strcmp(x->arg_names[k], "profile") &&
              (x->items[k]->kind == FGT_N_STRING ||
               x->items[k]->kind == FGT_N_NAME))
            *space = x->items[k]->text;
        (*n)++;
        continue;
      }
      if (sp + x->n + 2 > cap) {
        int c = 2 * (sp + x->n + 2);
        const fgt_node **v = realloc(stack, sizeof *v * (size_t)c);
        if (!v) {
          snprintf(err, errlen, "%s: out of memory", p->src.path);
          rc = -1;
          break;
        }
        stack = v;
        cap = c;
      }
      for (int k = x->n - 1; k >= 0; k--)
        stack[sp++] = x->items[k];
      if (x->b)
        stack[sp++] = x->b;
      if (x->a)
        stack[sp++] = x->a;
    }
  }
  free(stack);
  return rc;
}

void fgt_built_free(fgt_built *b) {
  if (!b)
    return;
  fg_graph_free(b->g);
  memset(b, 0, sizeof *b);
}

void fgt_scripts_free(fgt_scripts *s) {
  for (int i = 0; i < s->n; i++) {
    fg_rs_script_free(s->s[i]);
    free(s->path[i]);
  }
  s->n = 0;
}

void fgt_proto_key(fgt_shape_key *key, int n, const char *path) {
  int w = FGT_PROTO_SIZE, h = FGT_PROTO_SIZE, ch = 3, ty = FG_IMAGE_U8;
  fg_image img;
  char err[512];
  if (path && fg_image_read(path, &img, err, sizeof err) == FG_OK) {
    w = img.width;
    h = img.height;
    ch = img.channels;
    ty = (int)img.type;
    fg_image_free(&img);
  }
  memset(key, 0, sizeof *key);
  key->n = n;
  for (int i = 0; i < n; i++) {
    key->width[i] = w;
    key->height[i] = h;
    key->channels[i] = ch;
    key->type[i] = ty;
  }
}
