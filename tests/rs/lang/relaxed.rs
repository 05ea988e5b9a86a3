// rs_fp_relaxed as Android defines it: approximations and flushed
// subnormals allowed, but no assumption that values are finite: NaN and
// infinities pass through fmax, fmin, isnan and comparisons as IEEE says.
#pragma version(1)
#pragma rs java_package_name(t)
#pragma rs_fp_relaxed

float4 RS_KERNEL nans(float2 in) {
  float a = in.x, b = in.y;
  float4 r;
  r.x = fmax(a, b);
  r.y = fmin(a, b);
  r.z = isnan(a) ? 1.f : isinf(a) ? 2.f : isfinite(a) ? 3.f : 4.f;
  r.w = a != a ? 5.f : a < b ? 6.f : a == b ? 7.f : 8.f;
  return r;
}
