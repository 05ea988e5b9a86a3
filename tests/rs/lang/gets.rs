// rsGetElementAt's pointer given to pointer locals without a cast (void *
// converts in C), and Elements read as other types of the same size, as
// Android's runtime reads them.
#pragma version(1)
#pragma rs java_package_name(t)

rs_allocation vecs;             // float4, 2-D
rs_allocation img;              // uchar4, 2-D
rs_allocation bytes;            // uchar, 1-D

typedef struct Px { uchar r, g, b, a; } Px;

float4 RS_KERNEL viaPointer(uint32_t x, uint32_t y) {
  float4 *p = rsGetElementAt(vecs, x, y);
  const float4 *q = (const float4 *)rsGetElementAt(vecs, x + 1, y);
  return *p + q->wzyx;
}

int RS_KERNEL reinterpret(uint32_t x, uint32_t y) {
  char4 c = rsGetElementAt_char4(img, x, y);      // a uchar4 Element
  char b = rsGetElementAt_char(bytes, x);         // a U8 Element
  const Px *px = rsGetElementAt(img, x, y);       // a struct of 4 bytes
  uint32_t *word = rsGetElementAt(img, x, y);     // all 4 at once
  return c.x + c.y + c.z + c.w + b * 1000 + px->g * 100000 +
         (int)(*word >> 24);
}

float RS_KERNEL wrongSize(uint32_t x) {
  double *d = rsGetElementAt(bytes, x);           // 8 bytes of a 1-byte one
  return (float)*d;
}

float4 RS_KERNEL assignedLater(uint32_t x, uint32_t y) {
  const float4 *p;
  p = rsGetElementAt(vecs, x, y);                 // not a declaration's
  return *p;
}
