/* fieldgraph kernel 'toUnitFloat+RGBtoCIELAB' (OpenCL C) */
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
__kernel void fg_kernel_toUnitFloat_RGBtoCIELAB_0(
    __global const uchar *restrict in0,
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
      v0 = ((float3)((float)((0.0f))));
      v0 = (convert_float3(vload3(0, in0 + (fgk_i * 3))) * (0.00392156886f));
      /* from operator 'RGBtoCIELAB' */
      v8 = ((float3)((float)((0.0f))));
      v1 = ((float3)((float)((0.0f))));
      v1 = v0;
      v2 = (float)0;
      v2 = (v1).x;
      v3 = (float)0;
      v3 = (v1).y;
      v4 = (float)0;
      v4 = (v1).z;
      if ((v2 > (0.0404499993f))) {
        v2 = pow(((v2 + (0.0549999997f)) / (1.05499995f)), (2.4000001f));
      } else {
        v2 = (v2 / (12.9200001f));
      }
      if ((v3 > (0.0404499993f))) {
        v3 = pow(((v3 + (0.0549999997f)) / (1.05499995f)), (2.4000001f));
      } else {
        v3 = (v3 / (12.9200001f));
      }
      if ((v4 > (0.0404499993f))) {
        v4 = pow(((v4 + (0.0549999997f)) / (1.05499995f)), (2.4000001f));
      } else {
        v4 = (v4 / (12.9200001f));
      }
      v5 = (float)0;
      v5 = dot((((float3)(v2, v3, v4)) * (100.0f)), ((float3)((0.412400007f), (0.357600003f), (0.180500001f))));
      v6 = (float)0;
      v6 = dot((((float3)(v2, v3, v4)) * (100.0f)), ((float3)((0.212599993f), (0.715200007f), (0.0722000003f))));
      v7 = (float)0;
      v7 = dot((((float3)(v2, v3, v4)) * (100.0f)), ((float3)((0.0193000007f), (0.119199999f), (0.950500011f))));
      v5 = (v5 / (95.0469971f));
      v6 = (v6 / (100.0f));
      v7 = (v7 / (108.883003f));
      if ((v5 > (0.00885600038f))) {
        v5 = pow(v5, (0.333333343f));
      } else {
        v5 = ((v5 * (7.78700018f)) + (0.137931034f));
      }
      if ((v6 > (0.00885600038f))) {
        v6 = pow(v6, (0.333333343f));
      } else {
        v6 = ((v6 * (7.78700018f)) + (0.137931034f));
      }
      if ((v7 > (0.00885600038f))) {
        v7 = pow(v7, (0.333333343f));
      } else {
        v7 = ((v7 * (7.78700018f)) + (0.137931034f));
      }
      v8 = ((float3)(((v6 * (116.0f)) - (16.0f)), ((v5 - v6) * (500.0f)), ((v6 - v7) * (200.0f))));
      {
        const long fgk_w = fgk_i;
        vstore3(v8, 0, out0 + fgk_w * 3);
      }
    }
  }
}
