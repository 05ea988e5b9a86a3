/* fieldgraph kernel 'square' (C dialect) */
#include <math.h>
#include <stdint.h>
#include <string.h>
_Static_assert(sizeof(long) == 8, "LP64 expected");
typedef signed char schar;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
#define FGK_VEC(T, N) typedef T T##N __attribute__((ext_vector_type(N)));
#define FGK_VECS(T) FGK_VEC(T, 2) FGK_VEC(T, 3) FGK_VEC(T, 4)
FGK_VECS(uchar) FGK_VECS(ushort) FGK_VECS(short) FGK_VECS(int)
FGK_VECS(uint) FGK_VECS(long) FGK_VECS(ulong) FGK_VECS(float)
FGK_VECS(double)
typedef schar char2 __attribute__((ext_vector_type(2)));
typedef schar char3 __attribute__((ext_vector_type(3)));
typedef schar char4 __attribute__((ext_vector_type(4)));
#define FGK_PI 3.14159265358979323846
#define FGK_1_PI 0.31830988618379067154
#define FGK_180_PI 57.295779513082320876
#define FGK_PI_180 0.017453292519943295769
#define fgk_max(a, b) ((a) < (b) ? (b) : (a))
#define fgk_min(a, b) ((b) < (a) ? (b) : (a))
static inline long fgk_ci(long i, long n) {
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}
/* Flat index of (l, r, c) clamped into an L x R x C field. */
static inline long fgk_at(long L, long R, long C,
                             long l, long r, long c) {
  return (fgk_ci(l, L) * R + fgk_ci(r, R)) * C + fgk_ci(c, C);
}
/* Flat index of (l, r, c) in an L x R x C field, -1 outside it. */
static inline long fgk_wat(long L, long R, long C,
                              long l, long r, long c) {
  if (l < 0 || l >= L || r < 0 || r >= R || c < 0 || c >= C)
    return -1;
  return (l * R + r) * C + c;
}
static inline float fgk_signf(float x) {
  return x > 0 ? 1.0f : x < 0 ? -1.0f : x == 0 ? copysignf(0.0f, x) : x;
}
static inline double fgk_sign(double x) {
  return x > 0 ? 1.0 : x < 0 ? -1.0 : x == 0 ? copysign(0.0, x) : x;
}
static inline float fgk_maxmagf(float x, float y) {
  float ax = fabsf(x), ay = fabsf(y);
  return ax > ay ? x : ay > ax ? y : fmaxf(x, y);
}
static inline double fgk_maxmag(double x, double y) {
  double ax = fabs(x), ay = fabs(y);
  return ax > ay ? x : ay > ax ? y : fmax(x, y);
}
static inline float fgk_minmagf(float x, float y) {
  float ax = fabsf(x), ay = fabsf(y);
  return ax < ay ? x : ay < ax ? y : fminf(x, y);
}
static inline double fgk_minmag(double x, double y) {
  double ax = fabs(x), ay = fabs(y);
  return ax < ay ? x : ay < ax ? y : fmin(x, y);
}
static inline float fgk_rootnf(float x, int n) {
  if (n == 0) return NAN;
  if (x < 0 && (n & 1)) return -powf(-x, 1.0f / (float)n);
  return powf(x, 1.0f / (float)n);
}
static inline double fgk_rootn(double x, int n) {
  if (n == 0) return NAN;
  if (x < 0 && (n & 1)) return -pow(-x, 1.0 / (double)n);
  return pow(x, 1.0 / (double)n);
}
void fg_kernel_square_0(void *const *restrict fgk_buf, const long *restrict fgk_dim,
    long fgk_t0, long fgk_t1, long fgk_c0, long fgk_c1) {
  const float *restrict in0 = (const float *)fgk_buf[0];
  const long in0_L = fgk_dim[0], in0_R = fgk_dim[1], in0_C = fgk_dim[2];
  const long in0_P = in0_L * in0_R * in0_C;
  (void)in0_P;
  float *restrict out0 = (float *)fgk_buf[1];
  const long out0_L = fgk_dim[3], out0_R = fgk_dim[4], out0_C = fgk_dim[5];
  const long out0_P = out0_L * out0_R * out0_C;
  (void)out0_P;
  const int _layers = (int)fgk_dim[6], _rows = (int)fgk_dim[7], _columns = (int)fgk_dim[8];
  (void)_layers;
  for (long fgk_t = fgk_t0; fgk_t < fgk_t1; ++fgk_t) {
    const int _layer = (int)(fgk_t / _rows), _row = (int)(fgk_t % _rows);
    (void)_layer; (void)_row;
    for (long fgk_c = fgk_c0; fgk_c < fgk_c1; ++fgk_c) {
      const int _column = (int)fgk_c;
      const long fgk_i = fgk_t * _columns + fgk_c;
      (void)_column; (void)fgk_i;
      float v0;
      /* from operator 'square' */
      for (int _tensorElement = 0; _tensorElement < 9; ++_tensorElement) {
        v0 = (float)0;
        v0 = in0[fgk_i + fgk_ci(_tensorElement, 9) * in0_P];
        {
          const long fgk_w = fgk_i;
          const long fgk_e = _tensorElement;
          if (fgk_w >= 0 && fgk_e >= 0 && fgk_e < 9)
            out0[fgk_e * out0_P + fgk_w] = (v0 * v0);
        }
      }
    }
  }
}
