/* fieldgraph kernel 'arith' (OpenCL C) */
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
inline int4 fgk_div_int4(int4 a, int4 b) {
  int4 r;
  { int x = a.s0, y = b.s0;
    r.s0 = y == 0 ? 0 : y == -1 ? (int)(0ul - (ulong)x) : x / y; }
  { int x = a.s1, y = b.s1;
    r.s1 = y == 0 ? 0 : y == -1 ? (int)(0ul - (ulong)x) : x / y; }
  { int x = a.s2, y = b.s2;
    r.s2 = y == 0 ? 0 : y == -1 ? (int)(0ul - (ulong)x) : x / y; }
  { int x = a.s3, y = b.s3;
    r.s3 = y == 0 ? 0 : y == -1 ? (int)(0ul - (ulong)x) : x / y; }
  return r;
}
inline int4 fgk_mod_int4(int4 a, int4 b) {
  int4 r;
  { int x = a.s0, y = b.s0;
    r.s0 = y == 0 ? 0 : y == -1 ? (int)(0) : x % y; }
  { int x = a.s1, y = b.s1;
    r.s1 = y == 0 ? 0 : y == -1 ? (int)(0) : x % y; }
  { int x = a.s2, y = b.s2;
    r.s2 = y == 0 ? 0 : y == -1 ? (int)(0) : x % y; }
  { int x = a.s3, y = b.s3;
    r.s3 = y == 0 ? 0 : y == -1 ? (int)(0) : x % y; }
  return r;
}
__kernel void fg_kernel_arith(
    __global const int *restrict in0,
    __global const int *restrict in1,
    __global int *restrict out0,
    __global int *restrict out1,
    long in0_L, long in0_R, long in0_C,
    long in1_L, long in1_R, long in1_C,
    long out0_L, long out0_R, long out0_C,
    long out1_L, long out1_R, long out1_C,
    long fgk_TL, long fgk_TR, long fgk_TC) {
  const long in0_P = in0_L * in0_R * in0_C;
  const long in1_P = in1_L * in1_R * in1_C;
  const long out0_P = out0_L * out0_R * out0_C;
  const long out1_P = out1_L * out1_R * out1_C;
  const int _layers = (int)fgk_TL, _rows = (int)fgk_TR, _columns = (int)fgk_TC;
  const long fgk_c = get_global_id(0), fgk_r = get_global_id(1), fgk_l = get_global_id(2);
  const int _layer = (int)fgk_l, _row = (int)fgk_r, _column = (int)fgk_c;
  /* the global size is rounded up: extra work-items idle */
  if (fgk_c >= fgk_TC || fgk_r >= fgk_TR || fgk_l >= fgk_TL)
    return;
  const long fgk_i = (fgk_l * fgk_TR + fgk_r) * fgk_TC + fgk_c;
  {
    {
      {
        const long fgk_w = fgk_i;
        vstore4(((vload4(0, in0 + (fgk_i * 4)) * vload4(0, in1 + (fgk_i * 4))) + fgk_div_int4(vload4(0, in0 + (fgk_i * 4)), vload4(0, in1 + (fgk_i * 4)))), 0, out0 + fgk_w * 4);
      }
      {
        const long fgk_w = fgk_i;
        vstore4(fgk_mod_int4(vload4(0, in0 + (fgk_i * 4)), vload4(0, in1 + (fgk_i * 4))), 0, out1 + fgk_w * 4);
      }
    }
  }
}
