// rs_quaternion and rsQuaternion*, rsFrac and the pi-scaled trigonometry
// in a kernel.
#pragma version(1)
#pragma rs java_package_name(t)

float4 RS_KERNEL quat(float4 in) {
  rs_quaternion a, b, c, s;
  rsQuaternionLoadRotate(&a, in.x * 90.f, 1.f, 2.f, 3.f);
  rsQuaternionLoadRotateUnit(&b, in.y * 45.f, 0.f, 0.f, 1.f);
  rsQuaternionMultiply(&a, &b);
  rsQuaternionSet(&c, &a);
  rsQuaternionConjugate(&c);
  rsQuaternionAdd(&c, &b);
  rsQuaternionMultiply(&c, 0.5f);
  rsQuaternionSlerp(&s, &a, &b, in.z);
  rs_matrix4x4 m;
  rsQuaternionGetMatrixUnit(&m, &s);
  float d = rsQuaternionDot(&c, &s);
  float4 r = {m.m[1] + d, m.m[6] - m.m[9], rsFrac(in.w * 3.3f),
              cospi(in.x) + atan2pi(in.y, in.z)};
  return r;
}
