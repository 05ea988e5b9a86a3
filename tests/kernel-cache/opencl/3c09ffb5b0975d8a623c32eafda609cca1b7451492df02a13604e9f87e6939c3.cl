/* fieldgraph kernel 'identityTransform' (OpenCL C) */
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
__attribute__((reqd_work_group_size(32, 1, 1)))
__kernel void fg_kernel_identityTransform_0(
    __global const float *restrict in0,
    __global float *restrict out0,
    long in0_L, long in0_R, long in0_C,
    long out0_L, long out0_R, long out0_C,
    long fgk_TL, long fgk_TR, long fgk_TC) {
  __local float3 v0[1][32];
  const long in0_P = in0_L * in0_R * in0_C;
  const long out0_P = out0_L * out0_R * out0_C;
  const int _layers = (int)fgk_TL, _rows = (int)fgk_TR, _columns = (int)fgk_TC;
  const long fgk_c = get_global_id(0), fgk_r = get_global_id(1), fgk_l = get_global_id(2);
  const int _layer = (int)fgk_l, _row = (int)fgk_r, _column = (int)fgk_c;
  const int _localLayers = 1, _localRows = 1, _localColumns = 32;
  const int _localLayer = 0, _localRow = get_local_id(1), _localColumn = get_local_id(0);
  const int _groupLayer = get_group_id(2), _groupRow = get_group_id(1), _groupColumn = get_group_id(0);
  const int fgk_live = fgk_c < fgk_TC && fgk_r < fgk_TR && fgk_l < fgk_TL;
  const long fgk_i = (min(fgk_l, fgk_TL - 1) * fgk_TR + min(fgk_r, fgk_TR - 1)) * fgk_TC + min(fgk_c, fgk_TC - 1);
  if (get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0) {
  for (int fgk_z = 0; fgk_z < 32; fgk_z++) ((__local float3 *)v0)[fgk_z] = ((float3)((float)((0.0f))));
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  {
    {
      float3 v1;
      /* from operator 'identityTransform' */
      v1 = ((float3)((float)((0.0f))));
      v0[fgk_ci(_localRow, 1)][fgk_ci(_localColumn, 32)] = vload3(0, in0 + (fgk_at(in0_L, in0_R, in0_C, 0, (long)(_row), (long)(_column)) * 3));
      barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
      if (fgk_live) {
        const long fgk_w = fgk_i;
        vstore3(v0[fgk_ci((_row - (_groupRow * _localRows)), 1)][fgk_ci((_column - (_groupColumn * _localColumns)), 32)], 0, out0 + fgk_w * 3);
      }
    }
  }
}
