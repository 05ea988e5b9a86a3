/* fieldgraph/ops_pointwise.h - the pointwise part of the operator library:
 * arithmetic and conversions, colour, look-up tables and the pointwise
 * RenderScript intrinsics (Blend, ColorMatrix, LUT, LUT3D, YuvToRgb).
 *
 *   fg_field *x = fg_input(g, "x", fg_type_image(FG_U8, h, w, 4));
 *   fg_field *f = fg_to_unit(g, x);                      // f32 in [0, 1]
 *   fg_field *y = fg_binary_scalar(g, FG_OP_MUL, f, 0.5); // f * 0.5
 *   fg_output(g, "y", fg_from_unit(g, y, FG_U8));        // one kernel
 *
 * Every call builds one operator node with a short name ("add", "where",
 * "srgb_to_lab", "blend_src_over"; the kernel names show them), written in
 * the kernel IR, so it fuses like user code: chains of these operators
 * become one kernel.  Errors are sticky (graph.h): a bad argument records a
 * message naming the operator and returns NULL.
 *
 * Fusion class: every operator here is POINTWISE (reads its inputs at the
 * thread's own point, writes there) unless its line says otherwise; the
 * look-up tables (a table or cube field read at computed coordinates) and
 * the YUV conversion (planes read at computed coordinates) are pointwise in
 * their output, non-local in the table/plane input.
 *
 * Broadcasting (binary operators and fg_where): two fields combine when
 * their field shapes are equal or one is 0-dimensional (one tensor for all
 * points), and their tensors have the same number of elements or one has a
 * single element (repeated for every element of the other).  The result
 * has the larger field shape and tensor.  Big tensors (more than 4
 * elements) are handled element by element.
 *
 * Result element type of arithmetic: the higher of the operands' in the
 * order i8 < u8 < i16 < u16 < i32 < u32 < i64 < u64 < f32 < f64.  Integer
 * results wrap (two's complement) unless the operation says it saturates;
 * integer x / 0 and x % 0 are 0.  Float +, -, * are IEEE (bit-identical on
 * both backends); /, sqrt and the transcendental functions have OpenCL's
 * error bounds (the tests hold them to 1e-6 and 2e-6 relative).
 */
#ifndef FIELDGRAPH_OPS_POINTWISE_H
#define FIELDGRAPH_OPS_POINTWISE_H

#include "dsl.h"

/* ---- arithmetic ----------------------------------------------------------- */

typedef enum fg_binop {
  FG_OP_ADD, FG_OP_SUB, FG_OP_MUL, FG_OP_DIV,   /* a+b a-b a*b a/b */
  FG_OP_MOD,          /* integers: C's %; floats: fmod (sign of a) */
  FG_OP_MIN, FG_OP_MAX,
  FG_OP_ADD_SAT, FG_OP_SUB_SAT,  /* integers saturate; floats as ADD/SUB */
  FG_OP_ABSDIFF,      /* |a - b| without overflow (as OpenCV absdiff) */
  FG_OP_POW, FG_OP_ATAN2, FG_OP_HYPOT,  /* float result (f32 unless f64) */
  FG_OP_EQ, FG_OP_NE, FG_OP_LT, FG_OP_LE, FG_OP_GT, FG_OP_GE,
                      /* comparisons: u8 result, 1 true, 0 false */
  FG_OP_AND, FG_OP_OR, FG_OP_XOR,       /* logical (nonzero is true): u8 0/1 */
  FG_OP_BAND, FG_OP_BOR, FG_OP_BXOR,    /* bitwise, integers only */
  FG_BINOP_COUNT_
} fg_binop;

typedef enum fg_unop {
  FG_OP_NEG,          /* -a (integers wrap) */
  FG_OP_ABS,          /* |a|, same type; the most negative integer stays */
  FG_OP_NOT,          /* logical not: u8 1 where a == 0, else 0 */
  FG_OP_BNOT,         /* ~a, integers only */
  FG_OP_SQRT, FG_OP_EXP, FG_OP_LOG, FG_OP_EXP2, FG_OP_LOG2, FG_OP_LOG10,
  FG_OP_SIN, FG_OP_COS, FG_OP_TAN, FG_OP_ATAN, FG_OP_TANH,
                      /* float result (f32 unless f64); integers convert */
  FG_OP_FLOOR, FG_OP_CEIL, FG_OP_TRUNC,
  FG_OP_ROUND,        /* half away from zero; integers are returned as is */
  FG_OP_RINT,         /* half to even; integers are returned as is */
  FG_OP_SIGN,         /* -1, 0 or 1 in a's type (floats: NaN gives 0) */
  FG_UNOP_COUNT_
} fg_unop;

/* a op b, element by element, with broadcasting (see above). */
fg_field *fg_binary(fg_graph *g, fg_binop op, fg_field *a, fg_field *b);
/* a op s for a number s, converted to a's element type first (an integer
 * field takes s truncated toward zero). */
fg_field *fg_binary_scalar(fg_graph *g, fg_binop op, fg_field *a, double s);
/* s op a: the same with the number on the left. */
fg_field *fg_scalar_binary(fg_graph *g, fg_binop op, double s, fg_field *a);
/* op a, element by element. */
fg_field *fg_unary(fg_graph *g, fg_unop op, fg_field *a);
/* cond ? a : b element by element; cond any numeric field (nonzero is
 * true) broadcast like a binary operand; a and b of one element type. */
fg_field *fg_where(fg_graph *g, fg_field *cond, fg_field *a, fg_field *b);
/* min(max(a, lo), hi) with numbers lo and hi in a's element type. */
fg_field *fg_clamp_field(fg_graph *g, fg_field *a, double lo, double hi);
/* a * scale + offset: floats in their own type; integers computed in f32
 * and converted back rounding to nearest even and saturating (as OpenCV's
 * convertTo(alpha, beta)). */
fg_field *fg_scale_offset(fg_graph *g, fg_field *a, double scale,
                          double offset);

/* ---- conversions and channels ------------------------------------------- */

/* Value conversion to elem, C's rules: floats to integers truncate toward
 * zero (out of range undefined), integers wrap. */
fg_field *fg_cast(fg_graph *g, fg_field *a, fg_elem elem);
/* Conversion to an integer elem rounding to nearest even and saturating
 * (NaN becomes 0); from integers it saturates. */
fg_field *fg_cast_sat(fg_graph *g, fg_field *a, fg_elem elem);
/* u8 or u16 to f32 in [0, 1]: x / 255 or x / 65535, correctly rounded
 * (f32 division).  Float fields pass unchanged (as a copy). */
fg_field *fg_to_unit(fg_graph *g, fg_field *a);
/* f32 or f64 in [0, 1] to u8 or u16: x * 255 (65535) rounded to nearest
 * even and saturated, so out-of-range values clamp and NaN gives 0. */
fg_field *fg_from_unit(fg_graph *g, fg_field *a, fg_elem elem);
/* Channel i (0-based) of a small-tensor field, as a scalar field. */
fg_field *fg_channel(fg_graph *g, fg_field *a, int i);
/* One vector field from n fields of one element type and field shape,
 * their channels in order (2-4 channels in all). */
fg_field *fg_merge(fg_graph *g, int n, fg_field *const *parts);
/* Channels picked by letters from xyzw or rgba, 1-4 of them, repeats
 * allowed: "bgra" swaps red and blue, "rrr" replicates red. */
fg_field *fg_channels(fg_graph *g, fg_field *a, const char *pick);
/* The tensor of a 0-D field (or a one-element tensor, then repeated to
 * `channels` elements when channels > 1) at every point of shape. */
fg_field *fg_broadcast(fg_graph *g, fg_field *a, fg_shape shape,
                       int channels);
/* A 0-D constant field of elem holding value (for broadcasting); an
 * integer elem takes value truncated toward zero, and a value that does
 * not fit it (or NaN) is an FG_EINVAL naming both. */
fg_field *fg_scalar_constant(fg_graph *g, fg_elem elem, double value);

/* ---- colour --------------------------------------------------------------
 * Float colour fields hold values in [0, 1] (use fg_to_unit); channel 3 of
 * an RGBA field (alpha) passes through every conversion unchanged. */

/* RGB(A) to grey: 0.299 R + 0.587 G + 0.114 B (Rec. 601, as OpenCV).  u8
 * and u16 compute in f32 and round to nearest even; floats stay floats. */
fg_field *fg_rgb_to_grey(fg_graph *g, fg_field *rgb);
/* Grey to RGB (channels 3) or RGBA (4, alpha the type's maximum, 1.0 for
 * floats). */
fg_field *fg_grey_to_rgb(fg_graph *g, fg_field *grey, int channels);
/* Float RGB(A) to HSV(A): H in degrees [0, 360), S and V in [0, 1]; H = 0
 * for greys (as OpenCV's float conversion). */
fg_field *fg_rgb_to_hsv(fg_graph *g, fg_field *rgb);
/* Float HSV(A) to RGB(A), the inverse (H taken modulo 360). */
fg_field *fg_hsv_to_rgb(fg_graph *g, fg_field *hsv);
/* sRGB transfer function (IEC 61966-2-1): decode non-linear sRGB to
 * linear light, and encode linear light to sRGB; floats. */
fg_field *fg_srgb_decode(fg_graph *g, fg_field *srgb);
fg_field *fg_srgb_encode(fg_graph *g, fg_field *linear);
/* Linear RGB (sRGB primaries, D65) to CIE XYZ with white Y = 1, and back:
 * the IEC 61966-2-1 matrix.  Floats, RGB(A) to vec3 (A dropped). */
fg_field *fg_linear_to_xyz(fg_graph *g, fg_field *rgb);
fg_field *fg_xyz_to_linear(fg_graph *g, fg_field *xyz);
/* CIE XYZ (white Y = 1) to CIE L*a*b* relative to D65 (0.95047, 1,
 * 1.08883), and back; vec3 f32 (L in [0, 100]). */
fg_field *fg_xyz_to_lab(fg_graph *g, fg_field *xyz);
fg_field *fg_lab_to_xyz(fg_graph *g, fg_field *lab);
/* Non-linear sRGB(A) or grey floats to L*a*b* in one operator: Cog's
 * RGBtoCIELAB (pixelRGBtoXYZ then pixelXYZtoCIELAB), with its constants
 * (4-digit matrix, 7.787 t + 16/116 below 0.008856).  White (1, 1, 1)
 * gives L = 100, a and b within 0.01 of 0. */
fg_field *fg_srgb_to_lab(fg_graph *g, fg_field *rgb);
/* L*a*b* back to non-linear sRGB floats (vec3, not clamped). */
fg_field *fg_lab_to_srgb(fg_graph *g, fg_field *lab);
/* Colour matrix with offsets on float vectors: out_i = sum_j m[4 i + j]
 * in_j + add[i] (m row-major 4x4, add NULL for 0), in's missing channels
 * read 0; out_channels 1-4.  f32 result, summed in order j = 0..3. */
fg_field *fg_colour_matrix(fg_graph *g, fg_field *in, const float m[16],
                           const float add[4], int out_channels);

/* ---- look-up tables ------------------------------------------------------ */

/* Per-channel 1-D table: table is a 1-D field of N entries whose tensor
 * has in's channel count (or one element, shared by every channel).
 * Integer inputs index it directly (clamped to [0, N-1]); float inputs in
 * [0, 1] are interpolated linearly between entries at x (N - 1).  Result
 * has the table's element type (integer tables with float input: rounded
 * to nearest even).  Non-local in table. */
fg_field *fg_lut1d(fg_graph *g, fg_field *in, fg_field *table);
/* 3-D table with trilinear interpolation: in is float RGB(A) in [0, 1],
 * cube a 3-D field [layers = blue, rows = green, columns = red] of f32
 * vec3 or vec4; the result is f32 of the cube's tensor (alpha of an RGBA
 * input passes when the cube is vec3: then the result is vec4).
 * Coordinates clamp to the cube.  Non-local in cube. */
fg_field *fg_lut3d(fg_graph *g, fg_field *in, fg_field *cube);

/* ---- YUV ------------------------------------------------------------------ */

typedef enum fg_yuv_format {
  FG_YUV_NV21,  /* Y plane, then interleaved V,U pairs (Android camera) */
  FG_YUV_NV12,  /* Y plane, then interleaved U,V pairs */
  FG_YUV_YV12,  /* Y, then V, then U planes; Android's strides: Y stride
                   width rounded up to 16, chroma stride (Y stride / 2)
                   rounded up to 16 (android.graphics.ImageFormat.YV12) */
  FG_YUV_I420   /* Y, then U, then V planes, unpadded (YUV420 planar) */
} fg_yuv_format;

/* Bytes of one width x height frame in format (0 for odd or bad sizes). */
int64_t fg_yuv_frame_bytes(fg_yuv_format format, int64_t width,
                           int64_t height);

/* ---- the RenderScript intrinsics (Intrinsics Replacement Toolkit) --------
 * Same results as android/renderscript-intrinsics-replacement-toolkit's
 * C++ library, bit for bit, which is what apps ran; where its Kotlin
 * reference implementations differ we follow the C++ (noted per call).
 * Inputs and outputs are 2-D u8 fields (rows = sizeY, columns = sizeX).
 *
 * A restriction (LaunchOptions' setX/setY) limits the work to columns
 * [x0, x1) and rows [y0, y1); NULL is the whole field.  Outside it the
 * result is 0 (the Toolkit's Kotlin API returns a zeroed array there),
 * except for Blend, whose result there is the destination unchanged. */
typedef struct fg_restriction {
  int64_t x0, x1;   /* columns [x0, x1) */
  int64_t y0, y1;   /* rows [y0, y1) */
} fg_restriction;

typedef enum fg_blend_mode {
  FG_BLEND_CLEAR, FG_BLEND_SRC, FG_BLEND_DST, FG_BLEND_SRC_OVER,
  FG_BLEND_DST_OVER, FG_BLEND_SRC_IN, FG_BLEND_DST_IN, FG_BLEND_SRC_OUT,
  FG_BLEND_DST_OUT, FG_BLEND_SRC_ATOP, FG_BLEND_DST_ATOP, FG_BLEND_XOR,
  FG_BLEND_MULTIPLY, FG_BLEND_ADD, FG_BLEND_SUBTRACT, FG_BLEND_MODE_COUNT_
} fg_blend_mode;

/* Blend src into dst (both u8 vec4, same shape); the result is what the
 * Toolkit leaves in dst.  Integer arithmetic, products shifted right by 8
 * (not divided by 255); SRC_ATOP and DST_ATOP add both products and shift
 * the sum once (the Kotlin reference shifts each); XOR is the bitwise xor
 * of the bytes, as the C++ does; ADD and SUBTRACT saturate. */
fg_field *fg_intrinsic_blend(fg_graph *g, fg_blend_mode mode, fg_field *src,
                             fg_field *dst, const fg_restriction *r);
/* ColorMatrix: u8 in of 1-4 channels (missing channels read 0) to u8 out of
 * out_channels 1-4: out_i = sum_j in_j * matrix[4 j + i] + add[i] * 255
 * (the Toolkit's column-major matrix, add NULL for 0) in f32, summed in
 * order j = 0..3, clamped to [0, 255.5] and truncated (the Kotlin
 * reference rounds). */
fg_field *fg_intrinsic_color_matrix(fg_graph *g, fg_field *in,
                                    int out_channels, const float m[16],
                                    const float add[4],
                                    const fg_restriction *r);
/* LUT: u8 vec4 pixels through four 256-entry tables, one per channel. */
fg_field *fg_intrinsic_lut(fg_graph *g, fg_field *in, const uint8_t red[256],
                           const uint8_t green[256], const uint8_t blue[256],
                           const uint8_t alpha[256], const fg_restriction *r);
/* LUT3D: u8 vec4 pixels through a cube of u8 vec4 entries (a 3-D field,
 * [blue][green][red], each side 2-256), interpolated trilinearly in 15-bit
 * fixed point as the C++ does (the Kotlin reference uses floats); alpha
 * passes unchanged.  Non-local in cube. */
fg_field *fg_intrinsic_lut3d(fg_graph *g, fg_field *in, fg_field *cube,
                             const fg_restriction *r);
/* YuvToRgb: one frame (a 1-D u8 field of fg_yuv_frame_bytes bytes) to u8
 * vec4 RGBA of height x width (both even), alpha 255, with the Toolkit's
 * integer BT.601 video-range formula (298 Y' + 409 V' + 128) >> 8 etc.,
 * clamped.  YV12 reads V before U as Android documents (the C++ reads U
 * first).  No restriction (the Toolkit takes none).  Non-local in the
 * frame. */
fg_field *fg_intrinsic_yuv_to_rgb(fg_graph *g, fg_field *yuv,
                                  fg_yuv_format format, int64_t width,
                                  int64_t height);

#endif
