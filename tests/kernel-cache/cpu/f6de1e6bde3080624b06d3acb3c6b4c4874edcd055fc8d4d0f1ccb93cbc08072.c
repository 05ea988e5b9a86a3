/* fieldgraph kernel 'toUnitFloat+RGBtoCIELAB' (C dialect) */
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
static inline float3 fgk_splat_float3(float s) {
  float3 r = {s, s, s};
  return r;
}
static inline uchar3 fgk_ld_uchar3(const uchar *p) {
  uchar3 v;
  memcpy(&v, p, 3 * sizeof(uchar));
  return v;
}
static inline float fgk_fn_pow_float(float a0, float a1) {
  return powf(a0, a1);
}
static inline float fgk_fn_dot_float3(float3 a0, float3 a1) {
  float s = 0;
  s += a0.s0 * a1.s0;
  s += a0.s1 * a1.s1;
  s += a0.s2 * a1.s2;
  return s;
}
static inline void fgk_st_float3(float *p, float3 v) {
  memcpy(p, &v, 3 * sizeof(float));
}
void fg_kernel_toUnitFloat_RGBtoCIELAB_0(void *const *restrict fgk_buf, const long *restrict fgk_dim,
    long fgk_t0, long fgk_t1, long fgk_c0, long fgk_c1) {
  const uchar *restrict in0 = (const uchar *)fgk_buf[0];
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
      float3 v0;
      float3 v8;
      float3 v1;
      float v2;
      float v3;
      float v4;
      float v5;
      float v6;
      float v7;
      /* from operator 'toUnitFloat' */
      v0 = fgk_splat_float3((float)((0.0f)));
      v0 = (__builtin_convertvector(fgk_ld_uchar3(in0 + (fgk_i * 3)), float3) * (0.00392156886f));
      /* from operator 'RGBtoCIELAB' */
      v8 = fgk_splat_float3((float)((0.0f)));
      v1 = fgk_splat_float3((float)((0.0f)));
      v1 = v0;
      v2 = (float)0;
      v2 = (v1).x;
      v3 = (float)0;
      v3 = (v1).y;
      v4 = (float)0;
      v4 = (v1).z;
      if ((v2 > (0.0404499993f))) {
        v2 = fgk_fn_pow_float(((v2 + (0.0549999997f)) / (1.05499995f)), (2.4000001f));
      } else {
        v2 = (v2 / (12.9200001f));
      }
      if ((v3 > (0.0404499993f))) {
        v3 = fgk_fn_pow_float(((v3 + (0.0549999997f)) / (1.05499995f)), (2.4000001f));
      } else {
        v3 = (v3 / (12.9200001f));
      }
      if ((v4 > (0.0404499993f))) {
        v4 = fgk_fn_pow_float(((v4 + (0.0549999997f)) / (1.05499995f)), (2.4000001f));
      } else {
        v4 = (v4 / (12.9200001f));
      }
      v5 = (float)0;
      v5 = fgk_fn_dot_float3((((float3){v2, v3, v4}) * (100.0f)), ((float3){(0.412400007f), (0.357600003f), (0.180500001f)}));
      v6 = (float)0;
      v6 = fgk_fn_dot_float3((((float3){v2, v3, v4}) * (100.0f)), ((float3){(0.212599993f), (0.715200007f), (0.0722000003f)}));
      v7 = (float)0;
      v7 = fgk_fn_dot_float3((((float3){v2, v3, v4}) * (100.0f)), ((float3){(0.0193000007f), (0.119199999f), (0.950500011f)}));
      v5 = (v5 / (95.0469971f));
      v6 = (v6 / (100.0f));
      v7 = (v7 / (108.883003f));
      if ((v5 > (0.00885600038f))) {
        v5 = fgk_fn_pow_float(v5, (0.333333343f));
      } else {
        v5 = ((v5 * (7.78700018f)) + (0.137931034f));
      }
      if ((v6 > (0.00885600038f))) {
        v6 = fgk_fn_pow_float(v6, (0.333333343f));
      } else {
        v6 = ((v6 * (7.78700018f)) + (0.137931034f));
      }
      if ((v7 > (0.00885600038f))) {
        v7 = fgk_fn_pow_float(v7, (0.333333343f));
      } else {
        v7 = ((v7 * (7.78700018f)) + (0.137931034f));
      }
      v8 = ((float3){((v6 * (116.0f)) - (16.0f)), ((v5 - v6) * (500.0f)), ((v6 - v7) * (200.0f))});
      {
        const long fgk_w = fgk_i;
        fgk_st_float3(out0 + fgk_w * 3, v8);
      }
    }
  }
}
