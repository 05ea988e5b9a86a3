/* fieldgraph kernel 'groupTickets' (OpenCL C) */
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
__attribute__((reqd_work_group_size(8, 4, 1)))
__kernel void fg_kernel_groupTickets_0(
    __global int *restrict out0,
    long out0_L, long out0_R, long out0_C,
    long fgk_TL, long fgk_TR, long fgk_TC) {
  __local volatile int v0;
  const long out0_P = out0_L * out0_R * out0_C;
  const int _layers = (int)fgk_TL, _rows = (int)fgk_TR, _columns = (int)fgk_TC;
  const long fgk_c = get_global_id(0), fgk_r = get_global_id(1), fgk_l = get_global_id(2);
  const int _layer = (int)fgk_l, _row = (int)fgk_r, _column = (int)fgk_c;
  const int _localLayers = 1, _localRows = 4, _localColumns = 8;
  const int _localLayer = 0, _localRow = get_local_id(1), _localColumn = get_local_id(0);
  const int _groupLayer = get_group_id(2), _groupRow = get_group_id(1), _groupColumn = get_group_id(0);
  const int fgk_live = fgk_c < fgk_TC && fgk_r < fgk_TR && fgk_l < fgk_TL;
  const long fgk_i = (min(fgk_l, fgk_TL - 1) * fgk_TR + min(fgk_r, fgk_TR - 1)) * fgk_TC + min(fgk_c, fgk_TC - 1);
  if (get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0) {
  v0 = (int)0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  {
    {
      int v2;
      int v1;
      /* from operator 'groupTickets' */
      v2 = (int)0;
      v1 = (int)0;
      v1 = (fgk_live ? atomic_inc(&(v0)) : (int)0);
      barrier(CLK_LOCAL_MEM_FENCE);
      v2 = ((v0 * (1000)) + v1);
      if (fgk_live) {
        const long fgk_w = fgk_i;
        out0[fgk_w] = v2;
      }
    }
  }
}
