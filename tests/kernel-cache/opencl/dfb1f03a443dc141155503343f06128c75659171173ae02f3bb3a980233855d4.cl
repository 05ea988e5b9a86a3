/* fieldgraph kernel 'mul' (OpenCL C) */
#define FGK_PI 3.14159265358979323846
inline long fgk_ci(long i, long n) {
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}
/* Flat index of (l, r, c) clamped into an L x R x C field. */
inline long fgk_at(long L, long R, long C, long l, long r, long c) {
  return (fgk_ci(l, L) * R + fgk_ci(r, R)) * C + fgk_ci(c, C);
}
/* Flat index of (l, r, c) in an L x R x C field, -1 outside it. */
inline long fgk_wat(long L, long R, long C, long l, long r, long c) {
  if (l < 0 || l >= L || r < 0 || r >= R || c < 0 || c >= C)
    return -1;
  return (l * R + r) * C + c;
}
__kernel void fg_kernel_mul_0(
    __global const float *restrict in0,
    __global const float *restrict in1,
    __global float *restrict out0,
    long in0_L, long in0_R, long in0_C,
    long in1_L, long in1_R, long in1_C,
    long out0_L, long out0_R, long out0_C,
    long fgk_TL, long fgk_TR, long fgk_TC) {
  const long in0_P = in0_L * in0_R * in0_C;
  const long in1_P = in1_L * in1_R * in1_C;
  const long out0_P = out0_L * out0_R * out0_C;
  const int _layers = (int)fgk_TL, _rows = (int)fgk_TR, _columns = (int)fgk_TC;
  const long fgk_c = get_global_id(0), fgk_r = get_global_id(1), fgk_l = get_global_id(2);
  const int _layer = (int)fgk_l, _row = (int)fgk_r, _column = (int)fgk_c;
  /* the global size is rounded up: extra work-items idle */
  if (fgk_c >= fgk_TC || fgk_r >= fgk_TR || fgk_l >= fgk_TL)
    return;
  const long fgk_i = (fgk_l * fgk_TR + fgk_r) * fgk_TC + fgk_c;
  {
    {
      float v0;
      /* from operator 'mul' */
      v0 = (float)0;
      v0 = (in1[fgk_i] * in0[fgk_i]);
      {
        const long fgk_w = fgk_i;
        out0[fgk_w] = v0;
      }
    }
  }
}
