/* graph/types.c - element types, shapes and field types: constructors,
 * sizes and printable names (fieldgraph/types.h). */
#include "fieldgraph.h"

#include <stdio.h>
#include <string.h>

static const struct { const char *name; size_t size; } elems[FG_ELEM_COUNT_] = {
  [FG_BOOL] = {"bool", 1}, [FG_I8] = {"i8", 1},   [FG_U8] = {"u8", 1},
  [FG_I16] = {"i16", 2},   [FG_U16] = {"u16", 2}, [FG_I32] = {"i32", 4},
  [FG_U32] = {"u32", 4},   [FG_I64] = {"i64", 8}, [FG_U64] = {"u64", 8},
  [FG_F32] = {"f32", 4},   [FG_F64] = {"f64", 8},
};

fg_shape fg_shape0(void) { return (fg_shape){0, {0, 0, 0}}; }
fg_shape fg_shape1(int64_t c) { return (fg_shape){1, {c, 0, 0}}; }
fg_shape fg_shape2(int64_t r, int64_t c) { return (fg_shape){2, {r, c, 0}}; }
fg_shape fg_shape3(int64_t l, int64_t r, int64_t c) {
  return (fg_shape){3, {l, r, c}};
}

int64_t fg_shape_points(fg_shape s) {
  int64_t n = 1;
  for (int i = 0; i < s.ndim && i < 3; i++)
    n *= s.dim[i];
  return n;
}

int fg_shape_equal(fg_shape a, fg_shape b) {
  if (a.ndim != b.ndim)
    return 0;
  for (int i = 0; i < a.ndim && i < 3; i++)
    if (a.dim[i] != b.dim[i])
      return 0;
  return 1;
}

fg_type fg_type_scalar(fg_elem e, fg_shape f) {
  return (fg_type){e, f, fg_shape0()};
}
fg_type fg_type_vector(fg_elem e, fg_shape f, int n) {
  return (fg_type){e, f, fg_shape1(n)};
}
fg_type fg_type_matrix(fg_elem e, fg_shape f, int r, int c) {
  return (fg_type){e, f, fg_shape2(r, c)};
}
fg_type fg_type_image(fg_elem e, int64_t h, int64_t w, int channels) {
  if (channels < 1 || channels > 4) {
    /* a type every builder refuses, naming the channels (fg__check_type) */
    fg_type t = fg_type_vector(e, fg_shape2(h, w), 1);
    t.tensor.dim[0] = -(int64_t)(channels < 0 ? 0 : channels) - 1;
    return t;
  }
  return channels == 1 ? fg_type_scalar(e, fg_shape2(h, w))
                       : fg_type_vector(e, fg_shape2(h, w), channels);
}

int fg_type_tensor_elements(fg_type t) {
  return (int)fg_shape_points(t.tensor);
}

int fg_type_is_big(fg_type t) {
  return fg_type_tensor_elements(t) > FG_MAX_SMALL_TENSOR;
}

size_t fg_elem_size(fg_elem e) {
  return (unsigned)e < FG_ELEM_COUNT_ ? elems[e].size : 0;
}

const char *fg_elem_name(fg_elem e) {
  return (unsigned)e < FG_ELEM_COUNT_ ? elems[e].name : "?";
}

size_t fg_type_bytes(fg_type t) {
  /* checked products: a type that fg_input refuses as too large must not
   * come back as a small, wrapped size */
  size_t n = fg_elem_size(t.elem), m;
  int64_t tensor = fg_type_tensor_elements(t);
  if (tensor < 0 || __builtin_mul_overflow(n, (size_t)tensor, &n))
    return SIZE_MAX;
  for (int i = 0; i < t.field.ndim && i < 3; i++) {
    if (t.field.dim[i] < 0 ||
        __builtin_mul_overflow(n, (size_t)t.field.dim[i], &m))
      return SIZE_MAX;
    n = m;
  }
  return n;
}

int fg_type_equal(fg_type a, fg_type b) {
  return a.elem == b.elem && fg_shape_equal(a.field, b.field) &&
         fg_shape_equal(a.tensor, b.tensor);
}

char *fg_type_str(fg_type t, char *buf, size_t size) {
  if (!buf || size == 0)
    return buf;
  char field[96] = "";
  size_t n = 0;
  for (int i = 0; i < t.field.ndim && i < 3; i++)
    n += (size_t)snprintf(field + n, sizeof field - n, "%s%lld",
                          i ? "x" : "", (long long)t.field.dim[i]);
  const char *tname = "";
  char tensor[48] = "";
  if (t.tensor.ndim == 1)
    snprintf(tensor, sizeof tensor, " vec%lld", (long long)t.tensor.dim[0]);
  else if (t.tensor.ndim == 2)
    snprintf(tensor, sizeof tensor, " mat%lldx%lld",
             (long long)t.tensor.dim[0], (long long)t.tensor.dim[1]);
  else if (t.tensor.ndim != 0)
    tname = " <bad tensor shape>";
  snprintf(buf, size, "%s[%s]%s%s", fg_elem_name(t.elem), field, tensor,
           tname);
  return buf;
}
