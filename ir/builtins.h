/* ir/builtins.h - the table of kernel built-in functions, one row each:
 * the library builds its type checker, both source dialects and the public
 * fg_<name>() functions (dsl/expr.c; declared in fieldgraph/builtins.h)
 * from it.  The rows are grouped as Cog's GPUOperator reference groups
 * them: integer, math, geometric, common and relational functions.
 * Internal; never installed.
 *
 * Columns: name, arity, type rule, C scalar template, OpenCL name, text.
 * In the template %0..%2 are the arguments (one component of each, for
 * vectors), %f is "f" for float and "" for double, and %t is the C name of
 * T's element type (schar, uchar, short, ushort, int, uint, long, ulong,
 * float, double): fgk_<name>_%t names a per-type scalar helper that the C
 * dialect emits on first use.  An empty template marks a function the C
 * dialect writes whole (reductions, cross, normalize, any, all, select).
 *
 * Type rules (T is the type of the first argument; scalar arguments are
 * widened to T's vector width where T is a vector):
 *   FLT     T float/double (scalar or vector); every argument T; result T
 *   NUM     T any integer or float type; every argument T; result T
 *   INT     T any integer type; every argument T; result T
 *   INTU    T any integer type; every argument T; result U, the unsigned
 *           type of T's size and width
 *   INT32   T int or uint (scalar or vector); every argument T; result T
 *   FLTRED  T float/double; every argument T; result is T's scalar
 *   F32     T float (scalar or vector); every argument T; result T
 *   F32RED  T float; every argument T; result float
 *   FLT34   T float3, float4, double3 or double4; every argument T;
 *           result T
 *   FLTINT  T float/double; second argument int (or intn); result T
 *   FLTI    T float/double; result int (or intn of T's width)
 *   REL     T float/double; every argument T; result int 0 or 1 for a
 *           scalar, and for a vector an int (float) or long (double)
 *           vector of T's width holding -1 (true) or 0
 *   SINTRED T any signed integer type; result int 0 or 1
 *   SELECT  T any integer or float type; second argument T; third an
 *           integer vector of T's width and element size when T is a
 *           vector (its most significant bits select), any integer or
 *           bool scalar when T is a scalar; result T
 *   NANCODE T uint or ulong (scalar or vector); result float (uint) or
 *           double (ulong) of T's width
 *
 * A row here needs its declaration in fieldgraph/builtins.h; dsl/expr.c
 * fails to compile when one is missing or has another arity.
 */
#ifndef FG_IR_BUILTINS_H
#define FG_IR_BUILTINS_H

#define FGK_BUILTINS(X)                                                       \
  /* integer functions (U is the unsigned type of T's size) */               \
  X(abs,       1, INTU,   "fgk_abs_%t(%0)",        "abs",       "|x|, as U") \
  X(abs_diff,  2, INTU,   "fgk_abs_diff_%t(%0, %1)", "abs_diff", "|x - y| without modulo overflow, as U") \
  X(add_sat,   2, INT,    "fgk_add_sat_%t(%0, %1)", "add_sat",  "x + y, saturating") \
  X(hadd,      2, INT,    "fgk_hadd_%t(%0, %1)",   "hadd",      "(x + y) >> 1 without modulo overflow") \
  X(rhadd,     2, INT,    "fgk_rhadd_%t(%0, %1)",  "rhadd",     "(x + y + 1) >> 1 without modulo overflow") \
  X(clz,       1, INT,    "fgk_clz_%t(%0)",        "clz",       "number of leading 0-bits (the bit width for 0)") \
  X(mad_hi,    3, INT,    "fgk_mad_hi_%t(%0, %1, %2)", "mad_hi", "mul_hi(a, b) + c") \
  X(mad_sat,   3, INT,    "fgk_mad_sat_%t(%0, %1, %2)", "mad_sat", "a * b + c, saturating") \
  X(mul_hi,    2, INT,    "fgk_mul_hi_%t(%0, %1)", "mul_hi",    "high half of the product x * y") \
  X(rotate,    2, INT,    "fgk_rotate_%t(%0, %1)", "rotate",    "v rotated left by i (modulo the bit width)") \
  X(sub_sat,   2, INT,    "fgk_sub_sat_%t(%0, %1)", "sub_sat",  "x - y, saturating") \
  X(mad24,     3, INT32,  "fgk_mad24_%t(%0, %1, %2)", "mad24",  "a * b + c for 24-bit a and b") \
  X(mul24,     2, INT32,  "fgk_mul24_%t(%0, %1)",  "mul24",     "a * b for 24-bit a and b") \
  /* math functions */                                                        \
  X(acos,      1, FLT,    "acos%f(%0)",            "acos",      "arc cosine") \
  X(acosh,     1, FLT,    "acosh%f(%0)",           "acosh",     "inverse hyperbolic cosine") \
  X(acospi,    1, FLT,    "(acos%f(%0) * FGK_1_PI)", "acospi",  "acos(x) / pi") \
  X(asin,      1, FLT,    "asin%f(%0)",            "asin",      "arc sine") \
  X(asinh,     1, FLT,    "asinh%f(%0)",           "asinh",     "inverse hyperbolic sine") \
  X(asinpi,    1, FLT,    "(asin%f(%0) * FGK_1_PI)", "asinpi",  "asin(x) / pi") \
  X(atan,      1, FLT,    "atan%f(%0)",            "atan",      "arc tangent") \
  X(atan2,     2, FLT,    "atan2%f(%0, %1)",       "atan2",     "arc tangent of y / x") \
  X(atanh,     1, FLT,    "atanh%f(%0)",           "atanh",     "hyperbolic arc tangent") \
  X(atanpi,    1, FLT,    "(atan%f(%0) * FGK_1_PI)", "atanpi",  "atan(x) / pi") \
  X(atan2pi,   2, FLT,    "(atan2%f(%0, %1) * FGK_1_PI)", "atan2pi", "atan2(y, x) / pi") \
  X(cbrt,      1, FLT,    "cbrt%f(%0)",            "cbrt",      "cube root") \
  X(ceil,      1, FLT,    "ceil%f(%0)",            "ceil",      "round toward +infinity") \
  X(copysign,  2, FLT,    "copysign%f(%0, %1)",    "copysign",  "x with the sign of y") \
  X(cos,       1, FLT,    "cos%f(%0)",             "cos",       "cosine") \
  X(cosh,      1, FLT,    "cosh%f(%0)",            "cosh",      "hyperbolic cosine") \
  X(cospi,     1, FLT,    "fgk_cospi%f(%0)",       "cospi",     "cos(pi x)") \
  X(native_divide, 2, F32, "(%0 / %1)",            "native_divide", "x / y for floats, possibly approximated") \
  X(erf,       1, FLT,    "erf%f(%0)",             "erf",       "error function") \
  X(erfc,      1, FLT,    "erfc%f(%0)",            "erfc",      "complementary error function") \
  X(exp,       1, FLT,    "exp%f(%0)",             "exp",       "e to the x") \
  X(exp2,      1, FLT,    "exp2%f(%0)",            "exp2",      "2 to the x") \
  X(exp10,     1, FLT,    "exp10%f(%0)",           "exp10",     "10 to the x") \
  X(expm1,     1, FLT,    "expm1%f(%0)",           "expm1",     "e to the x, minus 1") \
  X(fabs,      1, FLT,    "fabs%f(%0)",            "fabs",      "absolute value") \
  X(fdim,      2, FLT,    "fdim%f(%0, %1)",        "fdim",      "positive difference") \
  X(floor,     1, FLT,    "floor%f(%0)",           "floor",     "round toward -infinity") \
  X(fma,       3, FLT,    "fma%f(%0, %1, %2)",     "fma",       "a * b + c, rounded once") \
  X(fmax,      2, FLT,    "fmax%f(%0, %1)",        "fmax",      "larger of x and y") \
  X(fmin,      2, FLT,    "fmin%f(%0, %1)",        "fmin",      "smaller of x and y") \
  X(fmod,      2, FLT,    "fmod%f(%0, %1)",        "fmod",      "x - y * trunc(x / y)") \
  X(hypot,     2, FLT,    "hypot%f(%0, %1)",       "hypot",     "sqrt(x^2 + y^2)") \
  X(ilogb,     1, FLTI,   "ilogb%f(%0)",           "ilogb",     "exponent as an integer") \
  X(ldexp,     2, FLTINT, "ldexp%f(%0, %1)",       "ldexp",     "x * 2^n") \
  X(lgamma,    1, FLT,    "lgamma%f(%0)",          "lgamma",    "log gamma") \
  X(log,       1, FLT,    "log%f(%0)",             "log",       "natural logarithm") \
  X(log2,      1, FLT,    "log2%f(%0)",            "log2",      "base 2 logarithm") \
  X(log10,     1, FLT,    "log10%f(%0)",           "log10",     "base 10 logarithm") \
  X(log1p,     1, FLT,    "log1p%f(%0)",           "log1p",     "ln(1 + x)") \
  X(logb,      1, FLT,    "logb%f(%0)",            "logb",      "exponent of x") \
  X(mad,       3, FLT,    "(%0 * %1 + %2)",        "mad",       "approximates a * b + c") \
  X(maxmag,    2, FLT,    "fgk_maxmag%f(%0, %1)",  "maxmag",    "argument of larger magnitude") \
  X(minmag,    2, FLT,    "fgk_minmag%f(%0, %1)",  "minmag",    "argument of smaller magnitude") \
  X(nan,       1, NANCODE, "fgk_nan_%t(%0)",       "nan",       "quiet NaN carrying nancode") \
  X(nextafter, 2, FLT,    "nextafter%f(%0, %1)",   "nextafter", "next value after x toward y") \
  X(pow,       2, FLT,    "pow%f(%0, %1)",         "pow",       "x to the power y") \
  X(pown,      2, FLTINT, "pow%f(%0, %1)",         "pown",      "x to the integer power n") \
  X(powr,      2, FLT,    "fgk_powr%f(%0, %1)",    "powr",      "x to the power y, x >= 0") \
  X(remainder, 2, FLT,    "remainder%f(%0, %1)",   "remainder", "IEEE remainder") \
  X(rint,      1, FLT,    "rint%f(%0)",            "rint",      "round to nearest even") \
  X(rootn,     2, FLTINT, "fgk_rootn%f(%0, %1)",   "rootn",     "x to the power 1/n") \
  X(round,     1, FLT,    "round%f(%0)",           "round",     "round half away from zero") \
  X(rsqrt,     1, FLT,    "(1 / sqrt%f(%0))",      "rsqrt",     "inverse square root") \
  X(sin,       1, FLT,    "sin%f(%0)",             "sin",       "sine") \
  X(sinh,      1, FLT,    "sinh%f(%0)",            "sinh",      "hyperbolic sine") \
  X(sinpi,     1, FLT,    "fgk_sinpi%f(%0)",       "sinpi",     "sin(pi x)") \
  X(sqrt,      1, FLT,    "sqrt%f(%0)",            "sqrt",      "square root") \
  X(tan,       1, FLT,    "tan%f(%0)",             "tan",       "tangent") \
  X(tanh,      1, FLT,    "tanh%f(%0)",            "tanh",      "hyperbolic tangent") \
  X(tanpi,     1, FLT,    "fgk_tanpi%f(%0)",       "tanpi",     "tan(pi x)") \
  X(tgamma,    1, FLT,    "tgamma%f(%0)",          "tgamma",    "gamma function") \
  X(trunc,     1, FLT,    "trunc%f(%0)",           "trunc",     "round toward zero") \
  /* geometric functions */                                                   \
  X(cross,     2, FLT34,  "",                      "cross",     "cross product (w of a 4-vector is 0)") \
  X(dot,       2, FLTRED, "",                      "dot",       "dot product") \
  X(distance,  2, FLTRED, "",                      "distance",  "vector distance") \
  X(length,    1, FLTRED, "",                      "length",    "vector length") \
  X(normalize, 1, FLT,    "",                      "normalize", "vector of length 1 in p's direction") \
  X(fast_distance, 2, F32RED, "",                  "fast_distance", "vector distance, possibly approximated") \
  X(fast_length, 1, F32RED, "",                    "fast_length", "vector length, possibly approximated") \
  X(fast_normalize, 1, F32, "",                    "fast_normalize", "normalize, possibly approximated") \
  /* common functions (clamp, max and min serve integers too) */              \
  X(clamp,     3, NUM,    "fgk_min(fgk_max(%0, %1), %2)", "clamp", "min(max(x, lo), hi)") \
  X(degrees,   1, FLT,    "(%0 * FGK_180_PI)",     "degrees",   "radians to degrees") \
  X(max,       2, NUM,    "fgk_max(%0, %1)",       "max",       "y if x < y, else x") \
  X(min,       2, NUM,    "fgk_min(%0, %1)",       "min",       "y if y < x, else x") \
  X(mix,       3, FLT,    "(%0 + (%1 - %0) * %2)", "mix",       "x + (y - x) * a") \
  X(radians,   1, FLT,    "(%0 * FGK_PI_180)",     "radians",   "degrees to radians") \
  X(sign,      1, FLT,    "fgk_sign%f(%0)",        "sign",      "1 if x > 0, -1 if x < 0, x for +-0, 0 for NaN") \
  X(step,      2, FLT,    "(%1 < %0 ? 0 : 1)",     "step",      "0 if x < edge, else 1") \
  /* relational functions */                                                  \
  X(isequal,   2, REL,    "(%0 == %1)",            "isequal",   "x == y") \
  X(isnotequal, 2, REL,   "(%0 != %1)",            "isnotequal", "x != y (true if either is NaN)") \
  X(isgreater, 2, REL,    "isgreater(%0, %1)",     "isgreater", "x > y") \
  X(isgreaterequal, 2, REL, "isgreaterequal(%0, %1)", "isgreaterequal", "x >= y") \
  X(isless,    2, REL,    "isless(%0, %1)",        "isless",    "x < y") \
  X(islessequal, 2, REL,  "islessequal(%0, %1)",   "islessequal", "x <= y") \
  X(islessgreater, 2, REL, "islessgreater(%0, %1)", "islessgreater", "(x < y) || (x > y)") \
  X(isfinite,  1, REL,    "isfinite(%0)",          "isfinite",  "x is finite") \
  X(isinf,     1, REL,    "isinf(%0)",             "isinf",     "x is +infinity or -infinity") \
  X(isnan,     1, REL,    "isnan(%0)",             "isnan",     "x is a NaN") \
  X(isnormal,  1, REL,    "isnormal(%0)",          "isnormal",  "x is a normal value") \
  X(isordered, 2, REL,    "!isunordered(%0, %1)",  "isordered", "neither x nor y is a NaN") \
  X(isunordered, 2, REL,  "isunordered(%0, %1)",   "isunordered", "x or y is a NaN") \
  X(signbit,   1, REL,    "signbit(%0)",           "signbit",   "the sign bit of x is set") \
  X(any,       1, SINTRED, "",                     "any",       "1 if the MSB of any component is set, else 0") \
  X(all,       1, SINTRED, "",                     "all",       "1 if the MSB of every component is set, else 0") \
  X(bitselect, 3, NUM,    "fgk_bitselect_%t(%0, %1, %2)", "bitselect", "each bit from b where c's bit is 1, else from a") \
  X(select,    3, SELECT, "",                      "select",    "per component: b if c's MSB is set, else a (scalars: c ? b : a)")

#endif
