// Unions, structs holding pointers, pointer and function-pointer typedefs:
// the script loads; what fieldgraph cannot pass between the host and
// kernels is refused where it is used.
#pragma version(1)
#pragma rs java_package_name(t)

typedef union { float f; uint u; } Bits;
union Pair { uchar4 c; int i; };
typedef struct { const float *coeffs; int n; } Filter;
typedef float *FloatPtr;
typedef int (*BinOp)(int, int);

Bits gBits;                     // a union in the globals block
Filter gFilter;                 // holds a pointer: refused where used

uint RS_KERNEL floatBits(float in) {
  Bits b;
  b.f = in;
  return b.u ^ gBits.u;
}

int RS_KERNEL pairs(uchar4 in) {
  union Pair p;
  p.c = in;
  return p.i + (int)sizeof(union Pair) * 0 + (int)sizeof(Bits) - 4;
}

float RS_KERNEL localFilter(float in) {
  float taps[3] = {0.25f, 0.5f, 0.25f};
  Filter f = {taps, 3};
  FloatPtr t = taps;
  float s = 0.f;
  for (int k = 0; k < f.n; k++)
    s += f.coeffs[k] * in + t[k];
  return s;
}

int RS_KERNEL usesGlobalFilter(int in) { return in + gFilter.n; }
