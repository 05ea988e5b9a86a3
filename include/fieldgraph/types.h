/* fieldgraph/types.h - element types, shapes and field types.
 *
 * A field type is an element type, a field shape (0-3 dimensions: layers,
 * rows, columns) and a tensor shape (scalar, vector n, matrix r x c):
 *
 *   fg_type rgba = fg_type_vector(FG_U8, fg_shape2(height, width), 4);
 *   fg_type m33  = fg_type_matrix(FG_F32, fg_shape2(64, 64), 3, 3);
 *
 * Tensors of at most 4 elements are "small" (one scalar or vector per point,
 * stored interleaved); larger ones are "big" (one plane per element).
 */
#ifndef FIELDGRAPH_TYPES_H
#define FIELDGRAPH_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Element types, in the order of C's conversion rank.  FG_BOOL exists for
 * kernel variables only; fields never hold it. */
typedef enum fg_elem {
  FG_BOOL, FG_I8, FG_U8, FG_I16, FG_U16, FG_I32, FG_U32, FG_I64, FG_U64,
  FG_F32, FG_F64, FG_ELEM_COUNT_
} fg_elem;

/* A shape of 0-3 dimensions, outermost first: (layers, rows, columns) for a
 * field, (n) or (rows, columns) for a tensor.  Passed by value. */
typedef struct fg_shape {
  int ndim;
  int64_t dim[3];
} fg_shape;

/* The type of a field: what flows along one edge of a graph. */
typedef struct fg_type {
  fg_elem elem;
  fg_shape field;
  fg_shape tensor;
} fg_type;

#define FG_MAX_SMALL_TENSOR 4   /* elements; more makes a tensor "big" */
#define FG_MAX_DIM_EXTENT ((int64_t)1 << 31) /* largest extent of one axis */

/* Shapes of 0, 1, 2 and 3 dimensions. */
fg_shape fg_shape0(void);
fg_shape fg_shape1(int64_t columns);
fg_shape fg_shape2(int64_t rows, int64_t columns);
fg_shape fg_shape3(int64_t layers, int64_t rows, int64_t columns);

/* Number of points in a shape (1 for a 0-dimensional shape). */
int64_t fg_shape_points(fg_shape s);
/* Nonzero when a and b have the same dimensions and extents. */
int fg_shape_equal(fg_shape a, fg_shape b);

/* Field types of scalars, vectors of n and r x c matrices. */
fg_type fg_type_scalar(fg_elem elem, fg_shape field);
fg_type fg_type_vector(fg_elem elem, fg_shape field, int n);
fg_type fg_type_matrix(fg_elem elem, fg_shape field, int rows, int columns);
/* An image of height x width pixels with 1-4 interleaved channels; other
 * channel counts give a type every builder call refuses (FG_ETYPE). */
fg_type fg_type_image(fg_elem elem, int64_t height, int64_t width,
                      int channels);

/* Elements per tensor (1 for a scalar). */
int fg_type_tensor_elements(fg_type t);
/* Nonzero for tensors of more than FG_MAX_SMALL_TENSOR elements. */
int fg_type_is_big(fg_type t);
/* Bytes of one element; 0 for an invalid element type. */
size_t fg_elem_size(fg_elem e);
/* Short name of an element type ("f32", "u8", ...); "?" when invalid. */
const char *fg_elem_name(fg_elem e);
/* Bytes of a whole field of type t; SIZE_MAX when that does not fit a
 * size_t (fg_input refuses such a type). */
size_t fg_type_bytes(fg_type t);
/* Nonzero when a and b are the same type. */
int fg_type_equal(fg_type a, fg_type b);
/* Bytes that always hold fg_type_str's text, whatever the type. */
#define FG_TYPE_STR_MAX 176
/* Writes a readable form ("f32[512x512] vec4") into buf (cut to size;
 * FG_TYPE_STR_MAX bytes always hold it); returns buf. */
char *fg_type_str(fg_type t, char *buf, size_t size);

#endif
