/* tools/ops_table.c - the pipeline file's operators by name: one row per
 * operator, naming the library call that builds it (ops_lib.c's
 * fgt_op_<name>, one call of include/fieldgraph/ops_*.h each).
 * Pointwise rows (EXPR1-3) wrap a builtin of builtins.h; eval.c makes each
 * call one operator of the graph and fusion merges them.  Builtins without
 * a row are still callable positionally, through fg_call.
 *
 * To add an operator, add its fgt_op_<name> to ops_lib.c (and to
 * FGT_LIB_OPS) and one line here: its signature (one letter a parameter,
 * see fgt_op_row) and its parameters' names, with defaults where the
 * pipeline may leave them out:
 *   OP("box_blur", "FiB", "image,radius=1,border=clamp", box_blur, "..."),
 */
#include "tools/fgt.h"

#include <string.h>

#define FN(f) ((void (*)(void))(f))
#define EXPR1(n, p, f, d) {n, FGT_OP_EXPR1, p, FN(f), 0, d, NULL}
#define EXPR2(n, p, f, d) {n, FGT_OP_EXPR2, p, FN(f), 0, d, NULL}
#define EXPR3(n, p, f, d) {n, FGT_OP_EXPR3, p, FN(f), 0, d, NULL}
#define OP(n, sig, p, f, d) {n, FGT_OP_GRAPH, p, FN(fgt_op_##f), 0, d, sig}
#define FIELD1(n, f, d) OP(n, "F", "image", f, d)
#define REDUCE(n, op, d) {n, FGT_OP_REDUCE, "field", NULL, op, d, NULL}

static const fgt_op_row table[] = {
  /* conversions (input() gives f32 in [0, 1]; save() converts back) */
  FIELD1("to_unit", to_unit, "u8/u16 to f32 in [0, 1]"),
  FIELD1("to_u8", to_u8, "f32 in [0, 1] to u8, rounding, saturating"),
  OP("from_unit", "FE", "image,elem=u8", from_unit,
     "f32 in [0, 1] to u8 or u16, rounding, saturating"),
  OP("cast", "FE", "x,elem", cast, "value conversion (C's rules)"),
  OP("cast_sat", "FE", "x,elem", cast_sat,
     "value conversion, rounding and saturating"),
  EXPR1("u8", "x", fgt_sat_u8, "to u8, rounding and saturating (no scale)"),
  EXPR1("f32", "x", fgt_to_f32, "to f32 (no scale)"),
  OP("channel", "Fi", "image,index", channel, "one channel (0-based)"),
  OP("channels", "Fs", "image,pick", channels,
     "channels by letters: \"bgr\", \"rrr\", \"xyzw\""),
  OP("merge", "FFFF", "a,b,c=none,d=none", merge,
     "2-4 fields' channels into one vector field"),
  /* colour */
  FIELD1("cielab", srgb_to_lab, "sRGB in [0, 1] to CIE L*a*b* (Cog's)"),
  FIELD1("grey", grey, "luma: RGB(A) as rgb_to_grey; grey(+alpha) as is"),
  FIELD1("rgba", rgba, "1-4 channels to RGBA, alpha the maximum"),
  FIELD1("rgb_to_grey", rgb_to_grey, "0.299 R + 0.587 G + 0.114 B"),
  OP("grey_to_rgb", "Fi", "image,channels=3", grey_to_rgb,
     "grey to RGB (3) or RGBA (4)"),
  FIELD1("rgb_to_hsv", rgb_to_hsv, "RGB(A) to HSV(A), H in degrees"),
  FIELD1("hsv_to_rgb", hsv_to_rgb, "HSV(A) to RGB(A)"),
  FIELD1("srgb_decode", srgb_decode, "sRGB to linear light"),
  FIELD1("srgb_encode", srgb_encode, "linear light to sRGB"),
  FIELD1("linear_to_xyz", linear_to_xyz, "linear RGB to CIE XYZ"),
  FIELD1("xyz_to_linear", xyz_to_linear, "CIE XYZ to linear RGB"),
  FIELD1("xyz_to_lab", xyz_to_lab, "CIE XYZ to L*a*b* (D65)"),
  FIELD1("lab_to_xyz", lab_to_xyz, "L*a*b* to CIE XYZ"),
  FIELD1("srgb_to_lab", srgb_to_lab, "sRGB to L*a*b* (as cielab)"),
  FIELD1("lab_to_srgb", lab_to_srgb, "L*a*b* to sRGB"),
  OP("colour_matrix", "Fwwi", "image,matrix,add=0,channels=0",
     colour_matrix, "3x3 or 4x4 matrix, then offsets (floats)"),
  /* arithmetic on fields beyond + - * / */
  OP("binary", "FFO", "a,b,op", binary, "a binary op by name: absdiff, "
     "atan2, lt, ..."),
  OP("unary", "FU", "x,op", unary, "a unary op by name: floor, sign, ..."),
  OP("absdiff", "FF", "a,b", absdiff, "|a - b| without overflow"),
  OP("add_sat", "FF", "a,b", add_sat, "a + b, integers saturating"),
  OP("sub_sat", "FF", "a,b", sub_sat, "a - b, integers saturating"),
  OP("where", "FFF", "cond,a,b", where, "a where cond is nonzero, else b"),
  OP("scale_offset", "Fdd", "x,scale,offset=0", scale_offset,
     "x * scale + offset"),
  /* geometry and resizing */
  OP("flip", "Fbb", "image,horizontal=0,vertical=1", flip,
     "mirror: upside down by default (Cog's upsideDown)"),
  FIELD1("transpose", transpose, "rows <-> columns"),
  OP("rotate90", "Fi", "image,turns=1", rotate90,
     "quarter turns counter-clockwise"),
  OP("crop", "Fllll", "image,row,col,rows,cols", crop, "a rectangle"),
  OP("pad", "FllllBd", "image,top,bottom,left,right,border=constant,"
     "value=0", pad, "margins filled by a border rule"),
  OP("warp_affine", "FwllIBd", "image,matrix,rows,cols,interp=bilinear,"
     "border=constant,value=0", warp_affine,
     "affine map (2x3, output to input)"),
  OP("resize", "FllI", "image,rows,cols,interp=bilinear", resize,
     "resample to rows x cols"),
  OP("thumbnail", "FlI", "image,size,interp=area", thumbnail,
     "longer side to size, aspect kept (never enlarged)"),
  FIELD1("downsample2", downsample2, "half size, 2x2 means"),
  FIELD1("upsample2", upsample2, "double size"),
  /* filters */
  OP("convolve", "FwB", "image,kernel,border=clamp", convolve,
     "correlation with [[...], ...] (odd sizes)"),
  OP("gaussian_blur", "FdiB", "image,sigma,radius=0,border=clamp",
     gaussian_blur, "separable Gaussian (radius 0: 3 sigma)"),
  OP("box_blur", "FiB", "image,radius=1,border=clamp", box_blur,
     "mean over a (2 radius + 1)^2 box"),
  OP("sobel_x", "FB", "image,border=clamp", sobel_x, "Sobel d/dx"),
  OP("sobel_y", "FB", "image,border=clamp", sobel_y, "Sobel d/dy"),
  FIELD1("median3x3", median3x3, "3x3 median"),
  /* RenderScript intrinsics (u8 RGBA images, as the Toolkit) */
  OP("rs_blur", "Fi", "image,radius=5", rs_blur, "ScriptIntrinsicBlur"),
  OP("rs_convolve3x3", "Fw", "image,coefficients", rs_convolve3x3,
     "ScriptIntrinsicConvolve3x3"),
  OP("rs_convolve5x5", "Fw", "image,coefficients", rs_convolve5x5,
     "ScriptIntrinsicConvolve5x5"),
  OP("rs_resize", "Fll", "image,rows,cols", rs_resize,
     "ScriptIntrinsicResize (bicubic)"),
  FIELD1("rs_histogram", rs_histogram, "ScriptIntrinsicHistogram"),
  OP("rs_histogram_dot", "Fw", "image,coefficients", rs_histogram_dot,
     "ScriptIntrinsicHistogram's histogramDot"),
  OP("rs_blend", "FFM", "src,dst,mode=src_over", rs_blend,
     "ScriptIntrinsicBlend: src_over, multiply, ..."),
  OP("rs_color_matrix", "Fwwi", "image,matrix,add=0,channels=4",
     rs_color_matrix, "ScriptIntrinsicColorMatrix"),
  /* reductions: 0-D fields, reported with report() */
  REDUCE("sum", FG_REDUCE_SUM, "sum of every tensor"),
  REDUCE("min", FG_REDUCE_MIN, "smallest tensor, per element"),
  REDUCE("max", FG_REDUCE_MAX, "largest tensor, per element"),
  REDUCE("prod", FG_REDUCE_PROD, "product of every tensor"),
  FIELD1("mean", mean, "mean of every tensor"),
  OP("reduce_axes", "FRwb", "field,op,axes,keepdims=0", reduce_axes,
     "sum/min/max/prod over axes [0-2, 3 tensor]"),
  OP("mean_axes", "Fwb", "field,axes,keepdims=0", mean_axes,
     "mean over axes"),
  OP("histogram", "Fidd", "image,bins=256,lo=0,hi=1", histogram,
     "counts (u32) of a scalar field"),
  /* builtins with named parameters (others: positional, via fg_call) */
  EXPR3("clamp", "x,lo,hi", fg_clamp, "min(max(x, lo), hi)"),
  EXPR3("mix", "x,y,a", fg_mix, "x + (y - x) * a"),
  EXPR3("fma", "a,b,c", fg_fma, "a * b + c, rounded once"),
  EXPR2("pow", "x,y", fg_pow, "x to the power y"),
  EXPR2("fmin", "x,y", fg_fmin, "smaller of x and y"),
  EXPR2("fmax", "x,y", fg_fmax, "larger of x and y"),
  EXPR2("step", "edge,x", fg_step, "0 if x < edge, else 1"),
  EXPR2("dot", "a,b", fg_dot, "dot product"),
  EXPR1("sqrt", "x", fg_sqrt, "square root"),
  EXPR1("exp", "x", fg_exp, "e to the x"),
  EXPR1("log", "x", fg_log, "natural logarithm"),
  EXPR1("fabs", "x", fg_fabs, "absolute value"),
  EXPR1("length", "p", fg_length, "vector length"),
};

/* Enum names in value order (the headers' enums). */
static const char *const border_names[] = {"clamp", "mirror", "reflect",
                                           "wrap", "constant", NULL};
static const char *const interp_names[] = {"nearest", "bilinear", "bicubic",
                                           "area", NULL};
static const char *const blend_names[] = {
  "clear", "src", "dst", "src_over", "dst_over", "src_in", "dst_in",
  "src_out", "dst_out", "src_atop", "dst_atop", "xor", "multiply", "add",
  "subtract", NULL};
static const char *const elem_names[] = {"bool", "i8", "u8", "i16", "u16",
                                         "i32", "u32", "i64", "u64", "f32",
                                         "f64", NULL};
static const char *const binop_names[] = {
  "add", "sub", "mul", "div", "mod", "min", "max", "add_sat", "sub_sat",
  "absdiff", "pow", "atan2", "hypot", "eq", "ne", "lt", "le", "gt", "ge",
  "and", "or", "xor", "band", "bor", "bxor", NULL};
static const char *const unop_names[] = {
  "neg", "abs", "not", "bnot", "sqrt", "exp", "log", "exp2", "log2", "log10",
  "sin", "cos", "tan", "atan", "tanh", "floor", "ceil", "trunc", "round",
  "rint", "sign", NULL};
static const char *const reduce_names[] = {"sum", "min", "max", "prod",
                                           NULL};

_Static_assert(sizeof blend_names / sizeof *blend_names ==
               FG_BLEND_MODE_COUNT_ + 1, "blend names");
_Static_assert(sizeof elem_names / sizeof *elem_names == FG_ELEM_COUNT_ + 1,
               "element names");
_Static_assert(sizeof binop_names / sizeof *binop_names ==
               FG_BINOP_COUNT_ + 1, "binary op names");
_Static_assert(sizeof unop_names / sizeof *unop_names == FG_UNOP_COUNT_ + 1,
               "unary op names");

const char *const *fgt_enum_names(char c) {
  switch (c) {
  case 'B': return border_names;
  case 'I': return interp_names;
  case 'M': return blend_names;
  case 'E': return elem_names;
  case 'O': return binop_names;
  case 'U': return unop_names;
  case 'R': return reduce_names;
  default: return NULL;
  }
}

const fgt_op_row *fgt_op_find(const char *name) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, name) == 0)
      return &table[i];
  return NULL;
}

const fgt_op_row *fgt_op_table(int *n) {
  *n = (int)(sizeof table / sizeof table[0]);
  return table;
}
