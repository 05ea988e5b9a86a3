/* fieldgraph kernel 'arrays' (OpenCL C) */
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
__kernel void fg_kernel_arrays_0(
    __global const float *restrict in0,
    __global float *restrict out0,
    long in0_L, long in0_R, long in0_C,
    long out0_L, long out0_R, long out0_C,
    long fgk_TL, long fgk_TR, long fgk_TC) {
  const long in0_P = in0_L * in0_R * in0_C;
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
      float v7;
      float v0;
      float v1[5];
      int v2[2][3];
      float v3[3];
      int v4;
      int v5;
      int v6;
      /* from operator 'arrays' */
      v7 = (float)0;
      v0 = (float)0;
      v0 = in0[fgk_i];
      for (int fgk_z = 0; fgk_z < 5; fgk_z++) ((float *)v1)[fgk_z] = (float)0;
      for (int fgk_z = 0; fgk_z < 6; fgk_z++) ((int *)v2)[fgk_z] = (int)0;
      for (int fgk_z = 0; fgk_z < 3; fgk_z++) ((float *)v3)[fgk_z] = (float)0;
      v4 = (int)0;
      v5 = (int)0;
      v6 = (int)0;
      for (v4 = (0); (v4 < (5)); v4 += (1)) {
        v1[fgk_ci(v4, 5)] = (v0 * ((float)(v4)));
      }
      for (v5 = (0); (v5 < (2)); v5 += (1)) {
        for (v6 = (0); (v6 < (3)); v6 += (1)) {
          v2[fgk_ci(v5, 2)][fgk_ci(v6, 3)] = ((v5 * (3)) + v6);
        }
      }
      v3[fgk_ci((0), 3)] = (100.0f);
      v7 = (((v1[fgk_ci((4), 5)] + v1[fgk_ci((1), 5)]) + ((float)(v2[fgk_ci((1), 2)][fgk_ci((2), 3)]))) + v3[fgk_ci((2), 3)]);
      {
        const long fgk_w = fgk_i;
        out0[fgk_w] = v7;
      }
    }
  }
}
