/* fieldgraph/dsl.h - writing kernels as operators, in the style of Cog's
 * GPUOperator.  The body describes what ONE thread does to produce ONE
 * tensor of the first output field:
 *
 *   // half: every tensor of the input divided by two
 *   fg_field *half(fg_graph *g, fg_field *in) {
 *     fg_op *op = fg_op_begin(g, "half", 1, (fg_type[]){fg_field_type(in)});
 *     fg_write_tensor(op, 0, fg_divf(fg_read_tensor(op, in), 2.0f));
 *     return fg_op_end(op);
 *   }
 *
 * Names follow Cog's: _readTensor is fg_read_tensor, _out0 is output index
 * 0, `:=` is fg_assign, `===` is fg_eq, _if/_else/_for are fg_if/fg_else/
 * fg_for closed by fg_end.  Expressions (fg_expr) and operators live in the
 * graph's memory and die with it.  Every call accepts NULL arguments coming
 * from earlier failures and returns NULL then (sticky errors, see graph.h);
 * type errors name the operator, the call and both types.
 *
 * Statements append to the innermost open block.  Rules (as in Cog):
 *  - fg_write_tensor statements come last, at the top level of the body;
 *  - fg_for_each_tensor_element is the first and only top-level statement
 *    of a big-tensor body, and fg_read_tensor/fg_write_tensor are illegal
 *    inside it (use the _element calls);
 *  - explicit addressing gives exactly as many coordinates as the field has
 *    dimensions;
 *  - thread allocation (fg_local_threads, fg_global_threads[_elements])
 *    comes before any executable statement; barriers only at the top
 *    level;
 *  - every output is written; at most FG_MAX_OUTPUTS outputs.
 * Reads at explicit coordinates outside the field read the nearest edge
 * tensor (clamp to edge); explicit writes outside the field are dropped.
 */
#ifndef FIELDGRAPH_DSL_H
#define FIELDGRAPH_DSL_H

#include "graph.h"

#define FG_MAX_OUTPUTS 10

typedef struct fg_op fg_op;
typedef struct fg_expr fg_expr;

/* ---- operators ---------------------------------------------------------- */

/* Starts an operator named name with n_outputs outputs of the given types;
 * the first output's field shape is the thread shape.  Only one operator of
 * a graph is open at a time. */
fg_op *fg_op_begin(fg_graph *g, const char *name, int n_outputs,
                   const fg_type *out_types);
/* Starts an operator of one output over the points of shape whose tensor
 * type is inferred: that of the value its fg_write_tensor writes (element
 * type and width; a comparison's bool becomes i32).  What a front end uses
 * for an expression whose result type it does not know (x * 2, dot(a, b))
 * instead of building the operator twice. */
fg_op *fg_op_begin_map(fg_graph *g, const char *name, fg_shape shape);
/* Closes the body, checks the rules and adds the operator to the graph;
 * returns output 0 (NULL on error). */
fg_field *fg_op_end(fg_op *op);
/* Output i of a closed operator (the field a later node reads). */
fg_field *fg_op_output(fg_op *op, int i);
/* The graph the operator is built in. */
fg_graph *fg_op_graph(fg_op *op);
/* The operator an expression belongs to (for GPU functions that take only
 * expressions); NULL for NULL. */
fg_op *fg_expr_op(const fg_expr *e);
/* Type of an expression: element type and vector width (1-4).  Width 0 for
 * NULL. */
fg_elem fg_expr_elem(const fg_expr *e);
int fg_expr_width(const fg_expr *e);

/* ---- constants and variables ------------------------------------------- */

fg_expr *fg_float(fg_op *op, float v);        /* 2.0f */
fg_expr *fg_double(fg_op *op, double v);      /* 2.0 */
fg_expr *fg_int(fg_op *op, int32_t v);        /* 2 */
fg_expr *fg_uint(fg_op *op, uint32_t v);      /* 2u */
fg_expr *fg_long(fg_op *op, int64_t v);       /* 2L */
fg_expr *fg_ulong(fg_op *op, uint64_t v);     /* 2UL */
fg_expr *fg_bool(fg_op *op, int v);           /* true / false */

/* A scalar (width 1) or vector (width 2, 3, 4) variable, zero-initialized:
 * _floatVar() is fg_var(op, FG_F32, 1), _int4Var() is fg_var(op, FG_I32, 4).
 */
fg_expr *fg_var(fg_op *op, fg_elem elem, int width);
/* A thread-local array of 1-3 dimensions, zero-initialized:
 * _floatArray(4, 4) is fg_array(op, FG_F32, 1, 2, 4, 4). */
fg_expr *fg_array(fg_op *op, fg_elem elem, int width, int ndims, ...);

/* Variables and arrays typed after a field of the operator's graph (which
 * they do not read): its tensors (small tensors only) or its tensor
 * elements.  Arrays take 1-3 int extents, like fg_array. */
/* _tensorVar(field): a variable holding one tensor of field. */
fg_expr *fg_tensor_var(fg_op *op, fg_field *field);
/* _tensorArray(field, 4, 4) is fg_tensor_array(op, field, 2, 4, 4). */
fg_expr *fg_tensor_array(fg_op *op, fg_field *field, int ndims, ...);
/* _tensorElementVar(field): a variable holding one tensor element. */
fg_expr *fg_tensor_element_var(fg_op *op, fg_field *field);
/* _tensorElementArray(field, 4, 4): an array of tensor elements. */
fg_expr *fg_tensor_element_array(fg_op *op, fg_field *field, int ndims,
                                 ...);
/* Element of an array variable at ndims integer indices; readable and
 * assignable. */
fg_expr *fg_at(fg_expr *array, int nidx, ...);

/* ---- statements --------------------------------------------------------- */

/* lhs := rhs, lhs a variable or array element; rhs converts implicitly
 * only from a scalar to lhs's element type of no higher rank. */
void fg_assign(fg_expr *lhs, fg_expr *rhs);
/* _if (cond) { ... } _elseif (cond) { ... } _else { ... } fg_end */
void fg_if(fg_expr *cond);
void fg_elseif(fg_expr *cond);
void fg_else(fg_op *op);
/* for (var := init; cond; var += step) { ... } fg_end */
void fg_for(fg_expr *var, fg_expr *init, fg_expr *cond, fg_expr *step);
/* while (cond) { ... } fg_end */
void fg_while(fg_expr *cond);
/* Closes the innermost fg_if / fg_for / fg_while / for-each block. */
void fg_end(fg_op *op);
/* _forEachTensorElement(shape) { ... } fg_end: loops over the elements of
 * a big tensor of the given shape; fg_tensor_element() is the index. */
void fg_for_each_tensor_element(fg_op *op, fg_shape tensor_shape);

/* ---- reading and writing tensor fields ---------------------------------- */

/* What a read outside the field sees (n the extent, edges a and d):
 * CLAMP aaa|abcd|ddd, MIRROR dcb|abcd|cba (OpenCV's REFLECT_101),
 * REFLECT cba|abcd|dcb (edge repeated; libvips' mirror), WRAP bcd|abcd|abc,
 * CONSTANT a given value (0 in filters). */
typedef enum fg_border {
  FG_BORDER_CLAMP,
  FG_BORDER_MIRROR,
  FG_BORDER_REFLECT,
  FG_BORDER_WRAP,
  FG_BORDER_CONSTANT
} fg_border;


/* _readTensor(field): the tensor at this thread's location (or the only
 * tensor of a 0-dimensional field). */
fg_expr *fg_read_tensor(fg_op *op, fg_field *field);
/* _readTensor(field, [layer,] [row,] column): ncoords must equal the
 * field's dimensions. */
fg_expr *fg_read_tensor_at(fg_op *op, fg_field *field, int ncoords, ...);
/* The same read with a border rule for coordinates outside the field
 * (CLAMP is fg_read_tensor_at's; CONSTANT is refused: test the
 * coordinates instead).  On the CPU a stencil's interior columns then
 * read unremapped. */
fg_expr *fg_read_tensor_at_border(fg_op *op, fg_field *field,
                                  fg_border border, int ncoords, ...);
/* _readTensorElement(field, element): element of the tensor at this
 * thread's location; element NULL means fg_tensor_element(). */
fg_expr *fg_read_element(fg_op *op, fg_field *field, fg_expr *element);
/* _readTensorElement(field, [layer,] [row,] column, element). */
fg_expr *fg_read_element_at(fg_op *op, fg_field *field, fg_expr *element,
                            int ncoords, ...);
/* _writeTensor(_outN, value) at this thread's location. */
void fg_write_tensor(fg_op *op, int out, fg_expr *value);
/* _writeTensor(_outN, value, [layer,] [row,] column). */
void fg_write_tensor_at(fg_op *op, int out, fg_expr *value, int ncoords, ...);
/* _writeTensorElement(_outN, value, element); element NULL means
 * fg_tensor_element(). */
void fg_write_element(fg_op *op, int out, fg_expr *value, fg_expr *element);
/* _writeTensorElement(_outN, value, [layer,] [row,] column, element). */
void fg_write_element_at(fg_op *op, int out, fg_expr *value,
                         fg_expr *element, int ncoords, ...);

/* ---- thread constants (int) --------------------------------------------- */

typedef enum fg_thread_const {
  FG_LAYER, FG_ROW, FG_COLUMN,              /* this thread's location */
  FG_LAYERS, FG_ROWS, FG_COLUMNS,           /* the thread shape */
  FG_TENSOR_ELEMENT, FG_TENSOR_ELEMENTS,    /* element index / count (in a
                                               for-each, or per-element
                                               threads) */
  FG_LOCAL_LAYERS, FG_LOCAL_ROWS, FG_LOCAL_COLUMNS,  /* work-group shape */
  FG_LOCAL_LAYER, FG_LOCAL_ROW, FG_LOCAL_COLUMN,     /* place in the group */
  FG_GROUP_LAYER, FG_GROUP_ROW, FG_GROUP_COLUMN,     /* which group */
  FG_THREAD_CONST_COUNT_
} fg_thread_const;
fg_expr *fg_thread(fg_op *op, fg_thread_const which);
#define fg_layer(op)   fg_thread((op), FG_LAYER)
#define fg_row(op)     fg_thread((op), FG_ROW)
#define fg_column(op)  fg_thread((op), FG_COLUMN)
#define fg_layers(op)  fg_thread((op), FG_LAYERS)
#define fg_rows(op)    fg_thread((op), FG_ROWS)
#define fg_columns(op) fg_thread((op), FG_COLUMNS)
#define fg_tensor_element(op)  fg_thread((op), FG_TENSOR_ELEMENT)
#define fg_tensor_elements(op) fg_thread((op), FG_TENSOR_ELEMENTS)
#define fg_local_rows(op)      fg_thread((op), FG_LOCAL_ROWS)
#define fg_local_columns(op)   fg_thread((op), FG_LOCAL_COLUMNS)
#define fg_local_row(op)       fg_thread((op), FG_LOCAL_ROW)
#define fg_local_column(op)    fg_thread((op), FG_LOCAL_COLUMN)
#define fg_group_row(op)       fg_thread((op), FG_GROUP_ROW)
#define fg_group_column(op)    fg_thread((op), FG_GROUP_COLUMN)

/* The extent of field f along FG_LAYERS, FG_ROWS or FG_COLUMNS (1 for an
 * axis f lacks), as an int read when the kernel runs, never a constant of
 * its source: one build then serves every size of f.  f becomes an input
 * of the operator, as if read. */
fg_expr *fg_field_extent(fg_op *op, fg_field *f, fg_thread_const axis);

/* ---- thread allocation (before any executable statement) ---------------- */

/* _localThreads(shape): the work-group shape, (rows, columns) or (columns);
 * a 3-D shape must have 1 layer.  Default 16 x 16 (256 for 1-D fields). */
void fg_local_threads(fg_op *op, fg_shape shape);
/* _globalThreads(shape): one thread per point of shape instead of output
 * 0's field shape; implicit reads and writes then address that shape. */
void fg_global_threads(fg_op *op, fg_shape shape);
/* _globalThreads(fieldShape, tensorShape): one thread per element of a
 * tensorShape tensor at every point of fieldShape (the thread shape); a
 * thread's fg_tensor_element() is its element, which implicit element
 * reads and writes address.  Each point is shared by that many threads,
 * so _writeTensor needs coordinates here; no _forEachTensorElement. */
void fg_global_threads_elements(fg_op *op, fg_shape field_shape,
                                fg_shape tensor_shape);
/* The work-group extent along FG_LAYERS, FG_ROWS or FG_COLUMNS, as a C int
 * known while building (for sizing _local arrays); 0 on error. */
int fg_op_local_extent(fg_op *op, fg_thread_const axis);

/* ---- work groups: local memory, barriers, atomics ----------------------- */

/* _local(v): v (a variable or array, right after declaring it) is shared
 * by the threads of a work-group; zeroed once per group, before any thread
 * runs.  Returns v. */
fg_expr *fg_local(fg_expr *var);
/* _volatile(v): marks v volatile (atomics need _local(_volatile(int))). */
fg_expr *fg_volatile(fg_expr *var);
/* _syncThreadsLocal / _syncThreadsGlobal: a work-group barrier (for local
 * or global memory).  Only at the top level of the body, so every thread
 * of the group reaches it. */
void fg_sync_threads_local(fg_op *op);
void fg_sync_threads_global(fg_op *op);
/* _pointerTo(v): the address of a variable or array element, for the
 * atomic functions. */
fg_expr *fg_pointer_to(fg_expr *lvalue);
/* 32-bit atomics on a _local _volatile int or uint; each returns the old
 * value.  Threads beyond the field's edge (of a rounded-up group) do not
 * touch memory and return 0. */
fg_expr *fg_atomic_add(fg_expr *p, fg_expr *v);
fg_expr *fg_atomic_sub(fg_expr *p, fg_expr *v);
fg_expr *fg_atomic_xchg(fg_expr *p, fg_expr *v);
fg_expr *fg_atomic_min(fg_expr *p, fg_expr *v);
fg_expr *fg_atomic_max(fg_expr *p, fg_expr *v);
fg_expr *fg_atomic_and(fg_expr *p, fg_expr *v);
fg_expr *fg_atomic_or(fg_expr *p, fg_expr *v);
fg_expr *fg_atomic_xor(fg_expr *p, fg_expr *v);
fg_expr *fg_atomic_inc(fg_expr *p);
fg_expr *fg_atomic_dec(fg_expr *p);
fg_expr *fg_atomic_compxchg(fg_expr *p, fg_expr *cmp, fg_expr *v);

/* ---- operators on expressions (C99 semantics, OpenCL vector rules) ------ */

fg_expr *fg_add(fg_expr *a, fg_expr *b);   /* a + b */
fg_expr *fg_sub(fg_expr *a, fg_expr *b);   /* a - b */
fg_expr *fg_mul(fg_expr *a, fg_expr *b);   /* a * b */
fg_expr *fg_div(fg_expr *a, fg_expr *b);   /* a / b (integer x/0 is 0) */
fg_expr *fg_mod(fg_expr *a, fg_expr *b);   /* a % b, integers (x%0 is 0) */
fg_expr *fg_neg(fg_expr *a);               /* -a */
fg_expr *fg_eq(fg_expr *a, fg_expr *b);    /* a === b */
fg_expr *fg_ne(fg_expr *a, fg_expr *b);    /* a !== b */
fg_expr *fg_lt(fg_expr *a, fg_expr *b);    /* a < b */
fg_expr *fg_le(fg_expr *a, fg_expr *b);    /* a <= b */
fg_expr *fg_gt(fg_expr *a, fg_expr *b);    /* a > b */
fg_expr *fg_ge(fg_expr *a, fg_expr *b);    /* a >= b */
fg_expr *fg_land(fg_expr *a, fg_expr *b);  /* a && b, scalars */
fg_expr *fg_lor(fg_expr *a, fg_expr *b);   /* a || b, scalars */
fg_expr *fg_lnot(fg_expr *a);              /* !a, scalars */
fg_expr *fg_band(fg_expr *a, fg_expr *b);  /* a & b, integers */
fg_expr *fg_bor(fg_expr *a, fg_expr *b);   /* a | b, integers */
fg_expr *fg_bxor(fg_expr *a, fg_expr *b);  /* a ^ b, integers */
fg_expr *fg_bnot(fg_expr *a);              /* ~a, integers */
fg_expr *fg_shl(fg_expr *a, fg_expr *b);   /* a << b, integers */
fg_expr *fg_shr(fg_expr *a, fg_expr *b);   /* a >> b, integers */
/* The same with a float or int literal as the right operand. */
fg_expr *fg_addf(fg_expr *a, float b);
fg_expr *fg_subf(fg_expr *a, float b);
fg_expr *fg_mulf(fg_expr *a, float b);
fg_expr *fg_divf(fg_expr *a, float b);
fg_expr *fg_addi(fg_expr *a, int32_t b);
fg_expr *fg_subi(fg_expr *a, int32_t b);
fg_expr *fg_muli(fg_expr *a, int32_t b);

/* Vector components, read-only: fg_swizzle(v, "x"), (v, "zyx"), (p, "rgb");
 * 1-4 letters from xyzw or rgba. */
fg_expr *fg_swizzle(fg_expr *v, const char *components);
/* Vector literal of the given element type and width from nargs scalars
 * and vectors whose components add up to width, or one scalar replicated:
 * _float3(r, g, b) is fg_float3(r, g, b). */
fg_expr *fg_vector(fg_elem elem, int width, int nargs, ...);
#define FG__NARGS(...) FG__NARGS_(__VA_ARGS__, 4, 3, 2, 1, 0)
#define FG__NARGS_(a, b, c, d, n, ...) n
/* Vector literal functions, _<type><n>(e1, ...) for every element type
 * and n = 2, 3, 4: fg_float4(x, y, z, w), fg_uchar3(v), fg_long2(a, b). */
#define FG__VLIT(elem, n, ...) \
  fg_vector((elem), (n), FG__NARGS(__VA_ARGS__), __VA_ARGS__)
/* _char2(...) .. _char4(...): char vectors */
#define fg_char2(...) FG__VLIT(FG_I8, 2, __VA_ARGS__)
#define fg_char3(...) FG__VLIT(FG_I8, 3, __VA_ARGS__)
#define fg_char4(...) FG__VLIT(FG_I8, 4, __VA_ARGS__)
/* _uchar2(...) .. _uchar4(...): uchar vectors */
#define fg_uchar2(...) FG__VLIT(FG_U8, 2, __VA_ARGS__)
#define fg_uchar3(...) FG__VLIT(FG_U8, 3, __VA_ARGS__)
#define fg_uchar4(...) FG__VLIT(FG_U8, 4, __VA_ARGS__)
/* _short2(...) .. _short4(...): short vectors */
#define fg_short2(...) FG__VLIT(FG_I16, 2, __VA_ARGS__)
#define fg_short3(...) FG__VLIT(FG_I16, 3, __VA_ARGS__)
#define fg_short4(...) FG__VLIT(FG_I16, 4, __VA_ARGS__)
/* _ushort2(...) .. _ushort4(...): ushort vectors */
#define fg_ushort2(...) FG__VLIT(FG_U16, 2, __VA_ARGS__)
#define fg_ushort3(...) FG__VLIT(FG_U16, 3, __VA_ARGS__)
#define fg_ushort4(...) FG__VLIT(FG_U16, 4, __VA_ARGS__)
/* _int2(...) .. _int4(...): int vectors */
#define fg_int2(...) FG__VLIT(FG_I32, 2, __VA_ARGS__)
#define fg_int3(...) FG__VLIT(FG_I32, 3, __VA_ARGS__)
#define fg_int4(...) FG__VLIT(FG_I32, 4, __VA_ARGS__)
/* _uint2(...) .. _uint4(...): uint vectors */
#define fg_uint2(...) FG__VLIT(FG_U32, 2, __VA_ARGS__)
#define fg_uint3(...) FG__VLIT(FG_U32, 3, __VA_ARGS__)
#define fg_uint4(...) FG__VLIT(FG_U32, 4, __VA_ARGS__)
/* _long2(...) .. _long4(...): long vectors */
#define fg_long2(...) FG__VLIT(FG_I64, 2, __VA_ARGS__)
#define fg_long3(...) FG__VLIT(FG_I64, 3, __VA_ARGS__)
#define fg_long4(...) FG__VLIT(FG_I64, 4, __VA_ARGS__)
/* _ulong2(...) .. _ulong4(...): ulong vectors */
#define fg_ulong2(...) FG__VLIT(FG_U64, 2, __VA_ARGS__)
#define fg_ulong3(...) FG__VLIT(FG_U64, 3, __VA_ARGS__)
#define fg_ulong4(...) FG__VLIT(FG_U64, 4, __VA_ARGS__)
/* _float2(...) .. _float4(...): float vectors */
#define fg_float2(...) FG__VLIT(FG_F32, 2, __VA_ARGS__)
#define fg_float3(...) FG__VLIT(FG_F32, 3, __VA_ARGS__)
#define fg_float4(...) FG__VLIT(FG_F32, 4, __VA_ARGS__)
/* _double2(...) .. _double4(...): double vectors */
#define fg_double2(...) FG__VLIT(FG_F64, 2, __VA_ARGS__)
#define fg_double3(...) FG__VLIT(FG_F64, 3, __VA_ARGS__)
#define fg_double4(...) FG__VLIT(FG_F64, 4, __VA_ARGS__)
/* _convert_<type>(e): value conversion to elem with e's width (or width,
 * when width > 0; a scalar is then replicated).  Float to integer rounds
 * toward zero; out-of-range values are undefined, as in OpenCL. */
fg_expr *fg_convert(fg_expr *e, fg_elem elem, int width);
/* _convert_<type>_sat_rte(e): float to integer rounding to nearest even
 * and saturating to the target range (what image output needs). */
fg_expr *fg_convert_sat(fg_expr *e, fg_elem elem, int width);
/* _as_<type>(e): reinterpret the bits of e (same total size). */
fg_expr *fg_as(fg_expr *e, fg_elem elem, int width);

/* Type conversion and reinterpretation functions, _convert_<type>[n](e)
 * and _as_<type>[n](e) for every element type and n = 2, 3, 4:
 * fg_convert_float4(e) is fg_convert(e, FG_F32, 4) (a scalar e is
 * replicated), fg_as_uint(e) is fg_as(e, FG_U32, 1). */
/* _convert_char .. _convert_char4: value conversion to char */
#define fg_convert_char(e)  fg_convert((e), FG_I8, 1)
#define fg_convert_char2(e) fg_convert((e), FG_I8, 2)
#define fg_convert_char3(e) fg_convert((e), FG_I8, 3)
#define fg_convert_char4(e) fg_convert((e), FG_I8, 4)
/* _convert_uchar .. _convert_uchar4: value conversion to uchar */
#define fg_convert_uchar(e)  fg_convert((e), FG_U8, 1)
#define fg_convert_uchar2(e) fg_convert((e), FG_U8, 2)
#define fg_convert_uchar3(e) fg_convert((e), FG_U8, 3)
#define fg_convert_uchar4(e) fg_convert((e), FG_U8, 4)
/* _convert_short .. _convert_short4: value conversion to short */
#define fg_convert_short(e)  fg_convert((e), FG_I16, 1)
#define fg_convert_short2(e) fg_convert((e), FG_I16, 2)
#define fg_convert_short3(e) fg_convert((e), FG_I16, 3)
#define fg_convert_short4(e) fg_convert((e), FG_I16, 4)
/* _convert_ushort .. _convert_ushort4: value conversion to ushort */
#define fg_convert_ushort(e)  fg_convert((e), FG_U16, 1)
#define fg_convert_ushort2(e) fg_convert((e), FG_U16, 2)
#define fg_convert_ushort3(e) fg_convert((e), FG_U16, 3)
#define fg_convert_ushort4(e) fg_convert((e), FG_U16, 4)
/* _convert_int .. _convert_int4: value conversion to int */
#define fg_convert_int(e)  fg_convert((e), FG_I32, 1)
#define fg_convert_int2(e) fg_convert((e), FG_I32, 2)
#define fg_convert_int3(e) fg_convert((e), FG_I32, 3)
#define fg_convert_int4(e) fg_convert((e), FG_I32, 4)
/* _convert_uint .. _convert_uint4: value conversion to uint */
#define fg_convert_uint(e)  fg_convert((e), FG_U32, 1)
#define fg_convert_uint2(e) fg_convert((e), FG_U32, 2)
#define fg_convert_uint3(e) fg_convert((e), FG_U32, 3)
#define fg_convert_uint4(e) fg_convert((e), FG_U32, 4)
/* _convert_long .. _convert_long4: value conversion to long */
#define fg_convert_long(e)  fg_convert((e), FG_I64, 1)
#define fg_convert_long2(e) fg_convert((e), FG_I64, 2)
#define fg_convert_long3(e) fg_convert((e), FG_I64, 3)
#define fg_convert_long4(e) fg_convert((e), FG_I64, 4)
/* _convert_ulong .. _convert_ulong4: value conversion to ulong */
#define fg_convert_ulong(e)  fg_convert((e), FG_U64, 1)
#define fg_convert_ulong2(e) fg_convert((e), FG_U64, 2)
#define fg_convert_ulong3(e) fg_convert((e), FG_U64, 3)
#define fg_convert_ulong4(e) fg_convert((e), FG_U64, 4)
/* _convert_float .. _convert_float4: value conversion to float */
#define fg_convert_float(e)  fg_convert((e), FG_F32, 1)
#define fg_convert_float2(e) fg_convert((e), FG_F32, 2)
#define fg_convert_float3(e) fg_convert((e), FG_F32, 3)
#define fg_convert_float4(e) fg_convert((e), FG_F32, 4)
/* _convert_double .. _convert_double4: value conversion to double */
#define fg_convert_double(e)  fg_convert((e), FG_F64, 1)
#define fg_convert_double2(e) fg_convert((e), FG_F64, 2)
#define fg_convert_double3(e) fg_convert((e), FG_F64, 3)
#define fg_convert_double4(e) fg_convert((e), FG_F64, 4)
/* _as_char .. _as_char4: the bits reinterpreted as char */
#define fg_as_char(e)  fg_as((e), FG_I8, 1)
#define fg_as_char2(e) fg_as((e), FG_I8, 2)
#define fg_as_char3(e) fg_as((e), FG_I8, 3)
#define fg_as_char4(e) fg_as((e), FG_I8, 4)
/* _as_uchar .. _as_uchar4: the bits reinterpreted as uchar */
#define fg_as_uchar(e)  fg_as((e), FG_U8, 1)
#define fg_as_uchar2(e) fg_as((e), FG_U8, 2)
#define fg_as_uchar3(e) fg_as((e), FG_U8, 3)
#define fg_as_uchar4(e) fg_as((e), FG_U8, 4)
/* _as_short .. _as_short4: the bits reinterpreted as short */
#define fg_as_short(e)  fg_as((e), FG_I16, 1)
#define fg_as_short2(e) fg_as((e), FG_I16, 2)
#define fg_as_short3(e) fg_as((e), FG_I16, 3)
#define fg_as_short4(e) fg_as((e), FG_I16, 4)
/* _as_ushort .. _as_ushort4: the bits reinterpreted as ushort */
#define fg_as_ushort(e)  fg_as((e), FG_U16, 1)
#define fg_as_ushort2(e) fg_as((e), FG_U16, 2)
#define fg_as_ushort3(e) fg_as((e), FG_U16, 3)
#define fg_as_ushort4(e) fg_as((e), FG_U16, 4)
/* _as_int .. _as_int4: the bits reinterpreted as int */
#define fg_as_int(e)  fg_as((e), FG_I32, 1)
#define fg_as_int2(e) fg_as((e), FG_I32, 2)
#define fg_as_int3(e) fg_as((e), FG_I32, 3)
#define fg_as_int4(e) fg_as((e), FG_I32, 4)
/* _as_uint .. _as_uint4: the bits reinterpreted as uint */
#define fg_as_uint(e)  fg_as((e), FG_U32, 1)
#define fg_as_uint2(e) fg_as((e), FG_U32, 2)
#define fg_as_uint3(e) fg_as((e), FG_U32, 3)
#define fg_as_uint4(e) fg_as((e), FG_U32, 4)
/* _as_long .. _as_long4: the bits reinterpreted as long */
#define fg_as_long(e)  fg_as((e), FG_I64, 1)
#define fg_as_long2(e) fg_as((e), FG_I64, 2)
#define fg_as_long3(e) fg_as((e), FG_I64, 3)
#define fg_as_long4(e) fg_as((e), FG_I64, 4)
/* _as_ulong .. _as_ulong4: the bits reinterpreted as ulong */
#define fg_as_ulong(e)  fg_as((e), FG_U64, 1)
#define fg_as_ulong2(e) fg_as((e), FG_U64, 2)
#define fg_as_ulong3(e) fg_as((e), FG_U64, 3)
#define fg_as_ulong4(e) fg_as((e), FG_U64, 4)
/* _as_float .. _as_float4: the bits reinterpreted as float */
#define fg_as_float(e)  fg_as((e), FG_F32, 1)
#define fg_as_float2(e) fg_as((e), FG_F32, 2)
#define fg_as_float3(e) fg_as((e), FG_F32, 3)
#define fg_as_float4(e) fg_as((e), FG_F32, 4)
/* _as_double .. _as_double4: the bits reinterpreted as double */
#define fg_as_double(e)  fg_as((e), FG_F64, 1)
#define fg_as_double2(e) fg_as((e), FG_F64, 2)
#define fg_as_double3(e) fg_as((e), FG_F64, 3)
#define fg_as_double4(e) fg_as((e), FG_F64, 4)

/* Any built-in by name, e.g. fg_call("pow", 2, (fg_expr *[]){x, y}). */
fg_expr *fg_call(const char *name, int nargs, fg_expr *const *args);

/* The built-in functions themselves (fg_sqrt, fg_pow, fg_clamp, ...). */
#include "builtins.h"

#endif
