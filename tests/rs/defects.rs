/* tests/rs/defects.rs - valid RenderScript that fieldgraph once got
 * wrong (issue 14's defects 3-7); check_rs.c compares each kernel with
 * plain C on both backends. */
#pragma version(1)
#pragma rs java_package_name(com.example.defects)
#pragma rs_fp_full

float weights[9] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f};
int divisor = 0;
rs_allocation src;

/* RenderScript's overload sets: rsClamp has integer overloads only, clamp
 * no double ones */
int RS_KERNEL clampi(float v) { return rsClamp(v, -3, 4); }
float RS_KERNEL clampf(float v) { return clamp(v, 0.25, 0.75); }

/* a function-scope static table */
int RS_KERNEL table(int v) {
  static const int lut[4] = {5, 7, 11, 13};
  return lut[v & 3];
}

/* full precision: a * b + c is not contracted on either backend; a
 * pointer local into a global array */
float RS_KERNEL conv(float v, uint32_t x) {
  const float *w = weights;
  float s = v;
  for (int k = 0; k < 9; k++)
    s += w[k] * rsGetElementAt_float(src, x + k);
  return s;
}

/* integer division by zero, and INT_MIN / -1, never trap */
int RS_KERNEL divz(int v) {
  return v / divisor + v % divisor + (v / (v - v)) * 3;
}
int RS_KERNEL divmin(int v, uint32_t x) {
  int m = -1;
  int q = v / m;
  int r = v % m;
  q /= (int)(x & 1);
  return q + r;
}
int4 RS_KERNEL divvec(int4 v) {
  int4 d = {0, -1, 2, 3};
  return v / d + v % d;
}

/* true and false (stdbool's, which RenderScript scripts get) */
int RS_KERNEL negative(int v) {
  bool neg = false;
  if (v < 0)
    neg = true;
  return neg == true ? 1 : 0;
}
