// RenderScript's implicit conversions between vectors of the same number
// of elements (a value conversion per element, as C converts scalars):
// initializers, assignments, arguments and returns.
#pragma version(1)
#pragma rs java_package_name(t)

static uint4 twice(int4 v) { return v * 2; }     // int4 returned as uint4
static int4 addOne(int4 v) { return v + 1; }

int4 RS_KERNEL convert(uint4 in) {
  int4 a = in;                  // uint4 -> int4
  uint4 b;
  b = a - 5;                    // int4 -> uint4
  float4 f = a;                 // int4 -> float4, by value
  int4 r = twice(a);            // uint4 -> int4
  int4 t = f * 0.5f;            // float4 -> int4, truncating
  float3 g = in.xyz;            // uint3 -> float3
  int4 c = addOne(in);          // a uint4 argument of an int4 parameter
  c += in;                      // int4 += uint4
  return r + t + (int4)((int)(g.x * 0.25f)) + (int4)((int)b.y) + c;
}

float2 RS_KERNEL narrow(int2 in) {
  short2 s = in;                // int2 -> short2, wrapping
  return s;                     // short2 -> float2
}

// Explicit conversions of compound literals, whose commas are outside
// parentheses.
uchar4 RS_KERNEL literal(int2 in) {
  return convert_uchar4((float4){in.x & 127, in.y & 63, 3.5f, 255}) +
         convert_uchar((float2){1.f, 2.f}.y);
}

// A scalar of C's default floating type (an unsuffixed literal makes it
// so) assigned to a vector splats: OpenCL needs the converter from that
// type too, though the script never names it.
uchar4 RS_KERNEL splat_literal(int2 in) {
  uchar4 c;
  c = 0.25 * (in.x & 255) + 0.5;
  return c;
}

// Braces with fewer elements than the vector has: the rest are zero, as
// C sets them (OpenCL C refuses such initializers).
float4 RS_KERNEL short_braces(int2 in) {
  float4 a = {in.x, in.y, 3.f};
  float3 b = {1.5f,};
  float4 c;
  c = (float4){0.25f, in.x};
  return a + (float4){b.x, b.y, b.z} + c;
}
