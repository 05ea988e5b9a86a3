/* fieldgraph kernel 'total' (OpenCL C) */
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
__kernel void fg_kernel_total_0(
    __global const float *restrict in0,
    __global float *restrict out0,
    long in0_L, long in0_R, long in0_C,
    long out0_L, long out0_R, long out0_C,
    long fgk_TL, long fgk_TR, long fgk_TC) {
  const long in0_P = in0_L * in0_R * in0_C;
  const long out0_P = out0_L * out0_R * out0_C;
  const int _layers = (int)fgk_TL, _rows = (int)fgk_TR, _columns = (int)fgk_TC;
  const long fgk_N = fgk_TL * fgk_TR * fgk_TC;
  const long fgk_P = out0_C;
  const long fgk_chunk = (fgk_N + fgk_P - 1) / fgk_P;
  const long fgk_p = get_global_id(0);
  if (fgk_p >= fgk_P)
    return;
  {
    float fgk_acc = (float)0;
    const long fgk_end = min((fgk_p + 1) * fgk_chunk, fgk_N);
    for (long fgk_i = fgk_p * fgk_chunk; fgk_i < fgk_end; ++fgk_i) {
      const int _layer = (int)(fgk_i / (fgk_TR * fgk_TC));
      const int _row = (int)(fgk_i / fgk_TC % fgk_TR), _column = (int)(fgk_i % fgk_TC);
      float v0;
      /* from operator 'total' */
      v0 = (float)0;
      v0 = in0[fgk_i];
      {
        const float fgk_v = v0;
        fgk_acc = fgk_acc + fgk_v;
      }
    }
    out0[fgk_p] = fgk_acc;
  }
}
