/* fieldgraph/ops_nonlocal.h - the operator library's non-local operators
 * (filters, geometry, resizing), the RenderScript intrinsics that read
 * neighbours (Blur, Convolve, Resize, Histogram), and reductions (whole
 * fields, along axes, histograms).
 *
 *   fg_field *img  = fg_input(g, "img", fg_type_image(FG_U8, h, w, 4));
 *   fg_field *soft = fg_gaussian_blur(g, img, 2.0, 0, FG_BORDER_MIRROR);
 *   fg_field *half = fg_resize(g, soft, h / 2, w / 2, FG_INTERP_AREA);
 *   fg_field *mean = fg_mean_axes(g, "m", half, FG_AXIS(0) | FG_AXIS(1),
 *                                 false);
 *
 * Every operator is written in the kernel IR (fieldgraph/dsl.h) and fuses
 * like user code.  Fusion classes, as the one-line comments say:
 *  - pointwise: fuses with producers and consumers;
 *  - non-local: reads its input at other coordinates, so its producer is
 *    materialized; its pointwise consumers fuse after it;
 *  - reduction: its pointwise producers fuse into it (fg_reduce); its
 *    result is a boundary.
 * Image operators take fields of 2 dimensions (rows, columns) or 3
 * (layers of images, each filtered on its own) holding small tensors
 * (1-4 interleaved channels).  They compute in float (double for f64
 * input) and return the input's element type; integer results are
 * rounded to nearest (ties to even) and saturated, unless a line says
 * otherwise.  Errors (sticky, see graph.h) name the operator.
 */
#ifndef FIELDGRAPH_OPS_NONLOCAL_H
#define FIELDGRAPH_OPS_NONLOCAL_H

#include "graph.h"
#include "ops_pointwise.h"   /* fg_restriction */

#include <stdbool.h>

/* fg_border, what a read outside the field sees, is in dsl.h (explicit
 * reads take one: fg_read_tensor_at_border). */

/* Interpolation.  Pixel centres are at +0.5 (OpenCV's convention):
 * source = (destination + 0.5) * scale - 0.5.  NEAREST takes
 * floor(destination * scale) as OpenCV does; BICUBIC is Keys' cubic with
 * a = -0.75 (OpenCV); AREA averages the source pixels a destination pixel
 * covers, weighting partial ones (for shrinking; when growing it is
 * BILINEAR). */
typedef enum fg_interp {
  FG_INTERP_NEAREST,
  FG_INTERP_BILINEAR,
  FG_INTERP_BICUBIC,
  FG_INTERP_AREA
} fg_interp;

/* ---- filters (non-local) ------------------------------------------------- */

/* Correlation with a krows x kcols kernel (odd sizes up to 63, row-major
 * weights, centred; taps of weight 0 are skipped), border rule border;
 * non-local. */
fg_field *fg_convolve(fg_graph *g, fg_field *in, int krows, int kcols,
                      const float *weights, fg_border border);
/* Separable Gaussian: sigma > 0 and radius 0 takes radius ceil(3 sigma);
 * sigma 0 takes OpenCV's 0.3 (radius - 1) + 0.8; weights normalized to
 * sum 1; a horizontal pass into an f32 field, then a vertical pass, each
 * summing a mirrored pair of taps before multiplying it by its weight (in
 * int for inputs of at most 16 bits, exactly), the pairs from the outside
 * in, the centre last; non-local (two kernels). */
fg_field *fg_gaussian_blur(fg_graph *g, fg_field *in, double sigma, int radius,
                           fg_border border);
/* Unsharp mask: in + amount (in - fg_gaussian_blur(in, sigma)), computed
 * in f32 (f64 stays f64) and converted back to in's element type rounding
 * to nearest and saturating; sigma in (0, 21], amount in [0, 100];
 * non-local (the blur's two kernels, the arithmetic fused into the
 * second). */
fg_field *fg_unsharp(fg_graph *g, fg_field *in, double sigma, double amount,
                     fg_border border);
/* Mean over the (2 radius + 1)^2 box, separable as fg_gaussian_blur
 * (each pass sums its taps, then multiplies once); non-local. */
fg_field *fg_box_blur(fg_graph *g, fg_field *in, int radius, fg_border border);
/* Sobel 3x3 derivatives along columns (*gx, [-1 0 1] x [1 2 1]^T) and rows
 * (*gy), as f32 (f64 for f64) fields of in's tensor width, one operator
 * with two outputs; non-local. */
void fg_sobel(fg_graph *g, fg_field *in, fg_border border, fg_field **gx,
              fg_field **gy);
/* Median of the 3x3 neighbourhood per channel, clamp border, exact for
 * every element type; non-local. */
fg_field *fg_median3x3(fg_graph *g, fg_field *in);

/* ---- geometry (non-local, exact copies) ---------------------------------- */

/* Mirrors columns (horizontal) and/or rows (vertical); non-local. */
fg_field *fg_flip(fg_graph *g, fg_field *in, bool horizontal, bool vertical);
/* Rows become columns: out(r, c) = in(c, r); non-local. */
fg_field *fg_transpose(fg_graph *g, fg_field *in);
/* Rotation by turns quarter turns clockwise (any integer); non-local. */
fg_field *fg_rotate90(fg_graph *g, fg_field *in, int turns);
/* The rows x cols window at (row, col), which must lie inside in;
 * non-local. */
fg_field *fg_crop(fg_graph *g, fg_field *in, int64_t row, int64_t col,
                  int64_t rows, int64_t cols);
/* in surrounded by top/bottom rows and left/right columns filled by the
 * border rule (CONSTANT: value, converted to the element type as a C
 * cast would); non-local. */
fg_field *fg_pad(fg_graph *g, fg_field *in, int64_t top, int64_t bottom,
                 int64_t left, int64_t right, fg_border border, double value);
/* Affine warp to rows x cols: output pixel (x, y) samples in at
 * (m[0] x + m[1] y + m[2], m[3] x + m[4] y + m[5]) (the inverse map, as
 * OpenCV's WARP_INVERSE_MAP, coordinates of pixel centres), NEAREST
 * (rounded) or BILINEAR, outside in by the border rule; non-local. */
fg_field *fg_warp_affine(fg_graph *g, fg_field *in, const double m[6],
                         int64_t rows, int64_t cols, fg_interp interp,
                         fg_border border, double value);
/* top composited over base with its top-left pixel at column x, row y
 * (either may be negative or reach past base: what lies outside base is
 * cut), through top's alpha when it has one (grey+alpha, RGBA; straight
 * alpha, 1 being the element type's largest value), Porter-Duff "over":
 * alpha = a + base alpha (1 - a), colour = (top a + base base_alpha
 * (1 - a)) / alpha (0 where alpha is), top a + base (1 - a) over a base
 * without alpha.  One element type, as many
 * colour channels; the result is base's type.  Non-local in top. */
fg_field *fg_overlay(fg_graph *g, fg_field *base, fg_field *top, int64_t x,
                     int64_t y);
/* Rotation by degrees clockwise about the image's centre, the canvas grown
 * to hold all of the rotated image (as `vips rotate`): whole quarter turns
 * are exact copies (fg_rotate90), other angles an fg_warp_affine (NEAREST
 * or BILINEAR) with the uncovered corners by the border rule; non-local. */
fg_field *fg_rotate_angle(fg_graph *g, fg_field *in, double degrees,
                          fg_interp interp, fg_border border,
                          double value);

/* ---- resizing (non-local) ------------------------------------------------ */

/* in resampled to rows x cols with interp (clamped edges); non-local. */
fg_field *fg_resize(fg_graph *g, fg_field *in, int64_t rows, int64_t cols,
                    fg_interp interp);
/* Mean of each 2x2 block, ceil(rows/2) x ceil(cols/2) (an odd edge
 * averages its clamped copy); non-local. */
fg_field *fg_downsample2(fg_graph *g, fg_field *in);
/* Bilinear doubling, 2 rows x 2 cols (fg_resize BILINEAR); non-local. */
fg_field *fg_upsample2(fg_graph *g, fg_field *in);

/* ---- RenderScript intrinsics (the Toolkit's C++ semantics) ---------------
 * uchar fields of 1-4 channels, 2-D.  restriction (NULL: the whole field)
 * limits the pixels computed to [x0, x1) x [y0, y1) (the Toolkit's
 * Range2d); the output keeps the input's size and is 0 elsewhere (what a
 * fresh Toolkit output array holds); reads still see the whole input,
 * clamped at its edges.  Where the Toolkit's C++ and Kotlin differ these
 * follow the C++: Blur and Convolve accumulate in float and the result is
 * truncated (Blur) or +0.5 then truncated (Convolve), with no integer
 * overflow at any radius.  The float steps are those of the Toolkit's
 * portable C++ (its SIMD paths may differ in the last bit), computed
 * without contraction, so results are the same bits on every backend. */
/* Restrictions are ops_pointwise.h's fg_restriction: columns [x0, x1),
 * rows [y0, y1). */

/* Gaussian blur, radius 1-25, sigma 0.4 radius + 0.6, a vertical float
 * pass then a horizontal one, truncated; non-local (two kernels). */
fg_field *fg_intrinsic_blur(fg_graph *g, fg_field *in, int radius,
                            const fg_restriction *restriction);
/* 3x3 / 5x5 correlation with float coefficients (row-major), clamped
 * edges, sum + 0.5 clamped to [0, 255] and truncated; non-local. */
fg_field *fg_intrinsic_convolve3x3(fg_graph *g, fg_field *in,
                                   const float coefficients[9],
                                   const fg_restriction *restriction);
fg_field *fg_intrinsic_convolve5x5(fg_graph *g, fg_field *in,
                                   const float coefficients[25],
                                   const fg_restriction *restriction);
/* Bicubic resize to rows x cols (the Toolkit's cubic, a = -0.5, source
 * (x + 0.5) * scale - 0.5, float math, +0.5 clamped and truncated); the
 * restriction applies to the output; non-local. */
fg_field *fg_intrinsic_resize(fg_graph *g, fg_field *in, int64_t rows,
                              int64_t cols, const fg_restriction *restriction);
/* Counts of each value 0-255 per channel: an i32 field of 256 points
 * holding in's channel count per point; reduction (two kernels). */
fg_field *fg_intrinsic_histogram(fg_graph *g, fg_field *in,
                                 const fg_restriction *restriction);
/* Counts of (sum_i ci * p_i + 0x7f) >> 8 with ci = (int)(coefficient_i
 * 256 + 0.5) over the channels (NULL: 0.299, 0.587, 0.114, 0; each >= 0,
 * sum <= 1): an i32 field of 256 points; reduction (two kernels). */
fg_field *fg_intrinsic_histogram_dot(fg_graph *g, fg_field *in,
                                     const float coefficients[4],
                                     const fg_restriction *restriction);

/* ---- reductions ---------------------------------------------------------- */

/* 0-D sum / minimum / maximum of every tensor, element by element
 * (fg_reduce's rules: integers wrap, fixed float order); reduction. */
fg_field *fg_reduce_sum(fg_graph *g, fg_field *in);
fg_field *fg_reduce_min(fg_graph *g, fg_field *in);
fg_field *fg_reduce_max(fg_graph *g, fg_field *in);
/* 0-D mean: the sum (in f32, or f64 for f64 and 64-bit integers) divided
 * by the point count; reduction then a pointwise divide. */
fg_field *fg_reduce_mean(fg_graph *g, fg_field *in);
/* The minimum (op FG_REDUCE_MIN) or maximum (FG_REDUCE_MAX) of a scalar
 * field of any element type (not bool) and where it first occurs: returns
 * the value (0-D, in's element type; fg_reduce's value) and sets
 * *location to a 0-D i64 vector of 3, the (layer, row, column) of the
 * first point in row-major order equal (==) to it, missing axes 0:
 * (0, 0, c) for a 1-D field.  Ties, and -0.0 against +0.0, go to the
 * lowest index.  NaN points are skipped (they are never the minimum or
 * maximum); a field with no other point gives value NaN and location
 * (-1, -1, -1).  One pass over in (fg_reduce_index: the value and the
 * first point's index; min and max of one field share it), then a 0-D
 * operator for the coordinates; name (NULL: "reduce_loc") names the
 * operators.  NULL with the graph's error set on failure. */
fg_field *fg_reduce_loc(fg_graph *g, const char *name, fg_reduce_op op,
                        fg_field *in, fg_field **location);

/* Axes of fg_reduce_axes: field axis i (0 outermost, as fg_shape counts
 * them) and the elements of each point's tensor. */
#define FG_AXIS(i) (1u << (i))
#define FG_AXIS_TENSOR (1u << 3)

/* op (sum, min, max, prod) over the axes in the mask: x[N,H,W] vec4 over
 * FG_AXIS(0) is [1,H,W] vec4 with keepdims, [H,W] vec4 without; over
 * FG_AXIS_TENSOR each point's elements combine into a scalar.  Sums and
 * products run in the element type (integers wrap), field axes first
 * (over some of them in index order, over all in fg_reduce's fixed
 * order), then the tensor's elements in order; the result is a field.
 * Fusion: over the tensor only it is pointwise; over every field axis it
 * is a reduction (producers fuse into it); over some field axes it is
 * non-local (its producer is materialized, its pointwise consumers fuse
 * after it). */
fg_field *fg_reduce_axes(fg_graph *g, const char *name, fg_reduce_op op,
                         fg_field *in, unsigned axes, bool keepdims);
/* Mean over the axes: the sum in f32 (f64 for f64 and 64-bit integers)
 * divided by the count (field axes, then the tensor's); fusion as
 * fg_reduce_axes. */
fg_field *fg_mean_axes(fg_graph *g, const char *name, fg_field *in,
                       unsigned axes, bool keepdims);

/* Histogram of a scalar field: bins counts (u32, a 1-D field of bins
 * points) of floor((v - lo) / (hi - lo) * bins) for lo <= v < hi (v ==
 * hi counts in the last bin, as numpy; values outside and NaN are
 * ignored); reduction (two kernels: counts per few rows, then their sum). */
fg_field *fg_histogram(fg_graph *g, fg_field *in, int bins, double lo,
                       double hi);

#endif
