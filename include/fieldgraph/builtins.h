/* fieldgraph/builtins.h - the kernel built-in functions: the integer, math,
 * geometric, common and relational functions of Cog's GPUOperator (OpenCL
 * C's built-ins), called on kernel expressions inside an operator body:
 *
 *   fg_expr *r = fg_sqrt(fg_add(fg_mul(x, x), fg_mul(y, y)));
 *   fg_expr *c = fg_clamp(v, fg_float(0), fg_float(1));
 *
 * Each returns a new expression of the operator that its arguments belong
 * to, or NULL (with the graph's sticky error set, see graph.h) when an
 * argument is NULL or the types do not fit; fg_call (dsl.h) calls one by
 * name.  Vector literals, conversions and the atomics are in dsl.h.
 *
 * Argument types, after each description in brackets: T is the type of the
 * first argument, scalar or vector unless a rule says otherwise; every
 * other argument has type T (a scalar argument is widened to T's vector
 * width) and the result is T, unless the bracket says otherwise.  Two
 * rules need more words:
 *  - relational functions give an int 0 or 1 for scalars, and for a vector
 *    an int (float) or long (double) vector of T's width holding -1 (true)
 *    or 0;
 *  - fg_select(a, b, c) takes a and b of any type T and c an integer vector
 *    of T's width and element size when T is a vector (its most
 *    significant bits select), any integer or bool scalar when T is a
 *    scalar.
 *
 * Left out: the functions with pointer outputs (lgamma_r, remquo, frexp,
 * modf, fract, sincos) and the half types.
 */
#ifndef FIELDGRAPH_BUILTINS_H
#define FIELDGRAPH_BUILTINS_H

/* fg_expr is declared there; dsl.h includes this header at its end, so
 * either may be included first. */
#include "dsl.h"

/* The name of built-in function i (0, 1, ...) as fg_call takes it, NULL
 * past the last: for front ends that list them or suggest a name. */
const char *fg_builtin_name(int i);

/* ---- integer functions --------------------------------------------------- */

/* |x|, as U [T any integer type; result U, its unsigned type] */
fg_expr *fg_abs(fg_expr *x);
/* |x - y| without modulo overflow, as U [T any integer type; result U, its
 * unsigned type] */
fg_expr *fg_abs_diff(fg_expr *x, fg_expr *y);
/* x + y, saturating [T any integer type] */
fg_expr *fg_add_sat(fg_expr *x, fg_expr *y);
/* (x + y) >> 1 without modulo overflow [T any integer type] */
fg_expr *fg_hadd(fg_expr *x, fg_expr *y);
/* (x + y + 1) >> 1 without modulo overflow [T any integer type] */
fg_expr *fg_rhadd(fg_expr *x, fg_expr *y);
/* number of leading 0-bits (the bit width for 0) [T any integer type] */
fg_expr *fg_clz(fg_expr *x);
/* mul_hi(a, b) + c [T any integer type] */
fg_expr *fg_mad_hi(fg_expr *a, fg_expr *b, fg_expr *c);
/* a * b + c, saturating [T any integer type] */
fg_expr *fg_mad_sat(fg_expr *a, fg_expr *b, fg_expr *c);
/* high half of the product x * y [T any integer type] */
fg_expr *fg_mul_hi(fg_expr *x, fg_expr *y);
/* v rotated left by i (modulo the bit width) [T any integer type] */
fg_expr *fg_rotate(fg_expr *v, fg_expr *i);
/* x - y, saturating [T any integer type] */
fg_expr *fg_sub_sat(fg_expr *x, fg_expr *y);
/* a * b + c for 24-bit a and b [T int or uint] */
fg_expr *fg_mad24(fg_expr *a, fg_expr *b, fg_expr *c);
/* a * b for 24-bit a and b [T int or uint] */
fg_expr *fg_mul24(fg_expr *a, fg_expr *b);

/* ---- math functions ------------------------------------------------------ */

/* arc cosine [T float or double] */
fg_expr *fg_acos(fg_expr *x);
/* inverse hyperbolic cosine [T float or double] */
fg_expr *fg_acosh(fg_expr *x);
/* acos(x) / pi [T float or double] */
fg_expr *fg_acospi(fg_expr *x);
/* arc sine [T float or double] */
fg_expr *fg_asin(fg_expr *x);
/* inverse hyperbolic sine [T float or double] */
fg_expr *fg_asinh(fg_expr *x);
/* asin(x) / pi [T float or double] */
fg_expr *fg_asinpi(fg_expr *x);
/* arc tangent [T float or double] */
fg_expr *fg_atan(fg_expr *x);
/* arc tangent of y / x [T float or double] */
fg_expr *fg_atan2(fg_expr *y, fg_expr *x);
/* hyperbolic arc tangent [T float or double] */
fg_expr *fg_atanh(fg_expr *x);
/* atan(x) / pi [T float or double] */
fg_expr *fg_atanpi(fg_expr *x);
/* atan2(y, x) / pi [T float or double] */
fg_expr *fg_atan2pi(fg_expr *y, fg_expr *x);
/* cube root [T float or double] */
fg_expr *fg_cbrt(fg_expr *x);
/* round toward +infinity [T float or double] */
fg_expr *fg_ceil(fg_expr *x);
/* x with the sign of y [T float or double] */
fg_expr *fg_copysign(fg_expr *x, fg_expr *y);
/* cosine [T float or double] */
fg_expr *fg_cos(fg_expr *x);
/* hyperbolic cosine [T float or double] */
fg_expr *fg_cosh(fg_expr *x);
/* cos(pi x) [T float or double] */
fg_expr *fg_cospi(fg_expr *x);
/* x / y for floats, possibly approximated [T float] */
fg_expr *fg_native_divide(fg_expr *x, fg_expr *y);
/* error function [T float or double] */
fg_expr *fg_erf(fg_expr *x);
/* complementary error function [T float or double] */
fg_expr *fg_erfc(fg_expr *x);
/* e to the x [T float or double] */
fg_expr *fg_exp(fg_expr *x);
/* 2 to the x [T float or double] */
fg_expr *fg_exp2(fg_expr *x);
/* 10 to the x [T float or double] */
fg_expr *fg_exp10(fg_expr *x);
/* e to the x, minus 1 [T float or double] */
fg_expr *fg_expm1(fg_expr *x);
/* absolute value [T float or double] */
fg_expr *fg_fabs(fg_expr *x);
/* positive difference [T float or double] */
fg_expr *fg_fdim(fg_expr *x, fg_expr *y);
/* round toward -infinity [T float or double] */
fg_expr *fg_floor(fg_expr *x);
/* a * b + c, rounded once [T float or double] */
fg_expr *fg_fma(fg_expr *a, fg_expr *b, fg_expr *c);
/* larger of x and y [T float or double] */
fg_expr *fg_fmax(fg_expr *x, fg_expr *y);
/* smaller of x and y [T float or double] */
fg_expr *fg_fmin(fg_expr *x, fg_expr *y);
/* x - y * trunc(x / y) [T float or double] */
fg_expr *fg_fmod(fg_expr *x, fg_expr *y);
/* sqrt(x^2 + y^2) [T float or double] */
fg_expr *fg_hypot(fg_expr *x, fg_expr *y);
/* exponent as an integer [T float or double; result int (intn)] */
fg_expr *fg_ilogb(fg_expr *x);
/* x * 2^n [T float or double; n int (intn)] */
fg_expr *fg_ldexp(fg_expr *x, fg_expr *n);
/* log gamma [T float or double] */
fg_expr *fg_lgamma(fg_expr *x);
/* natural logarithm [T float or double] */
fg_expr *fg_log(fg_expr *x);
/* base 2 logarithm [T float or double] */
fg_expr *fg_log2(fg_expr *x);
/* base 10 logarithm [T float or double] */
fg_expr *fg_log10(fg_expr *x);
/* ln(1 + x) [T float or double] */
fg_expr *fg_log1p(fg_expr *x);
/* exponent of x [T float or double] */
fg_expr *fg_logb(fg_expr *x);
/* approximates a * b + c [T float or double] */
fg_expr *fg_mad(fg_expr *a, fg_expr *b, fg_expr *c);
/* argument of larger magnitude [T float or double] */
fg_expr *fg_maxmag(fg_expr *x, fg_expr *y);
/* argument of smaller magnitude [T float or double] */
fg_expr *fg_minmag(fg_expr *x, fg_expr *y);
/* quiet NaN carrying nancode [T uint or ulong; result float or double] */
fg_expr *fg_nan(fg_expr *nancode);
/* next value after x toward y [T float or double] */
fg_expr *fg_nextafter(fg_expr *x, fg_expr *y);
/* x to the power y [T float or double] */
fg_expr *fg_pow(fg_expr *x, fg_expr *y);
/* x to the integer power n [T float or double; n int (intn)] */
fg_expr *fg_pown(fg_expr *x, fg_expr *n);
/* x to the power y, x >= 0 [T float or double] */
fg_expr *fg_powr(fg_expr *x, fg_expr *y);
/* IEEE remainder [T float or double] */
fg_expr *fg_remainder(fg_expr *x, fg_expr *y);
/* round to nearest even [T float or double] */
fg_expr *fg_rint(fg_expr *x);
/* x to the power 1/n [T float or double; n int (intn)] */
fg_expr *fg_rootn(fg_expr *x, fg_expr *n);
/* round half away from zero [T float or double] */
fg_expr *fg_round(fg_expr *x);
/* inverse square root [T float or double] */
fg_expr *fg_rsqrt(fg_expr *x);
/* sine [T float or double] */
fg_expr *fg_sin(fg_expr *x);
/* hyperbolic sine [T float or double] */
fg_expr *fg_sinh(fg_expr *x);
/* sin(pi x) [T float or double] */
fg_expr *fg_sinpi(fg_expr *x);
/* square root [T float or double] */
fg_expr *fg_sqrt(fg_expr *x);
/* tangent [T float or double] */
fg_expr *fg_tan(fg_expr *x);
/* hyperbolic tangent [T float or double] */
fg_expr *fg_tanh(fg_expr *x);
/* tan(pi x) [T float or double] */
fg_expr *fg_tanpi(fg_expr *x);
/* gamma function [T float or double] */
fg_expr *fg_tgamma(fg_expr *x);
/* round toward zero [T float or double] */
fg_expr *fg_trunc(fg_expr *x);

/* ---- geometric functions ------------------------------------------------- */

/* cross product (w of a 4-vector is 0) [T float3, float4, double3 or
 * double4] */
fg_expr *fg_cross(fg_expr *a, fg_expr *b);
/* dot product [T float or double; result T's scalar] */
fg_expr *fg_dot(fg_expr *a, fg_expr *b);
/* vector distance [T float or double; result T's scalar] */
fg_expr *fg_distance(fg_expr *a, fg_expr *b);
/* vector length [T float or double; result T's scalar] */
fg_expr *fg_length(fg_expr *p);
/* vector of length 1 in p's direction [T float or double] */
fg_expr *fg_normalize(fg_expr *p);
/* vector distance, possibly approximated [T float; result float] */
fg_expr *fg_fast_distance(fg_expr *a, fg_expr *b);
/* vector length, possibly approximated [T float; result float] */
fg_expr *fg_fast_length(fg_expr *p);
/* normalize, possibly approximated [T float] */
fg_expr *fg_fast_normalize(fg_expr *p);

/* ---- common functions ---------------------------------------------------- */

/* min(max(x, lo), hi) [T any integer or float type] */
fg_expr *fg_clamp(fg_expr *x, fg_expr *lo, fg_expr *hi);
/* radians to degrees [T float or double] */
fg_expr *fg_degrees(fg_expr *x);
/* y if x < y, else x [T any integer or float type] */
fg_expr *fg_max(fg_expr *x, fg_expr *y);
/* y if y < x, else x [T any integer or float type] */
fg_expr *fg_min(fg_expr *x, fg_expr *y);
/* x + (y - x) * a [T float or double] */
fg_expr *fg_mix(fg_expr *x, fg_expr *y, fg_expr *a);
/* degrees to radians [T float or double] */
fg_expr *fg_radians(fg_expr *x);
/* 1 if x > 0, -1 if x < 0, x for +-0, 0 for NaN [T float or double] */
fg_expr *fg_sign(fg_expr *x);
/* 0 if x < edge, else 1 [T float or double] */
fg_expr *fg_step(fg_expr *edge, fg_expr *x);

/* ---- relational functions ------------------------------------------------ */

/* x == y [T float or double; result int (see above)] */
fg_expr *fg_isequal(fg_expr *x, fg_expr *y);
/* x != y (true if either is NaN) [T float or double; result int (see above)] */
fg_expr *fg_isnotequal(fg_expr *x, fg_expr *y);
/* x > y [T float or double; result int (see above)] */
fg_expr *fg_isgreater(fg_expr *x, fg_expr *y);
/* x >= y [T float or double; result int (see above)] */
fg_expr *fg_isgreaterequal(fg_expr *x, fg_expr *y);
/* x < y [T float or double; result int (see above)] */
fg_expr *fg_isless(fg_expr *x, fg_expr *y);
/* x <= y [T float or double; result int (see above)] */
fg_expr *fg_islessequal(fg_expr *x, fg_expr *y);
/* (x < y) || (x > y) [T float or double; result int (see above)] */
fg_expr *fg_islessgreater(fg_expr *x, fg_expr *y);
/* x is finite [T float or double; result int (see above)] */
fg_expr *fg_isfinite(fg_expr *x);
/* x is +infinity or -infinity [T float or double; result int (see above)] */
fg_expr *fg_isinf(fg_expr *x);
/* x is a NaN [T float or double; result int (see above)] */
fg_expr *fg_isnan(fg_expr *x);
/* x is a normal value [T float or double; result int (see above)] */
fg_expr *fg_isnormal(fg_expr *x);
/* neither x nor y is a NaN [T float or double; result int (see above)] */
fg_expr *fg_isordered(fg_expr *x, fg_expr *y);
/* x or y is a NaN [T float or double; result int (see above)] */
fg_expr *fg_isunordered(fg_expr *x, fg_expr *y);
/* the sign bit of x is set [T float or double; result int (see above)] */
fg_expr *fg_signbit(fg_expr *x);
/* 1 if the MSB of any component is set, else 0 [T any signed integer type;
 * result int] */
fg_expr *fg_any(fg_expr *x);
/* 1 if the MSB of every component is set, else 0 [T any signed integer type;
 * result int] */
fg_expr *fg_all(fg_expr *x);
/* each bit from b where c's bit is 1, else from a [T any integer or float
 * type] */
fg_expr *fg_bitselect(fg_expr *a, fg_expr *b, fg_expr *c);
/* per component: b if c's MSB is set, else a (scalars: c ? b : a) [c an
 * integer type (see above)] */
fg_expr *fg_select(fg_expr *a, fg_expr *b, fg_expr *c);

#endif
