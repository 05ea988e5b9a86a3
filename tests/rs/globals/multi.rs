// Kernels and invokables that set elements of several allocations, as
// apps write them (an FFT filter's root() scaling its real and imaginary
// parts, lookup tables filled in one pass): each written allocation is one
// more result of the launch, a copy of its bound field with the writes,
// of its own element type; later launches read what the launch left.
#pragma version(1)
#pragma rs java_package_name(com.example.multi)

rs_allocation gRe;      // float4
rs_allocation gIm;      // float4
rs_allocation gCount;   // int
rs_allocation gMask;    // uchar
int32_t *d0;            // pointer globals, bound like allocations
int32_t *d1;
int width;
int len;

// returns a value and sets elements of two allocations of other types
int RS_KERNEL split(float4 in, uint32_t x, uint32_t y) {
    rsSetElementAt_float4(gRe, in * 2.f, x, y);
    if (x % 2 == 0)
        rsSetElementAt_uchar(gMask, (uchar)(x + 3 * y), x, y);
    return (int)in.x + (int)x;
}

// a legacy root: reads what it then overwrites in both, and an output
void root(const float4 *in, float4 *out, uint32_t x, uint32_t y) {
    float4 re = rsGetElementAt_float4(gRe, x, y);
    float4 im = rsGetElementAt_float4(gIm, x, y);
    float h = 1.f / (1.f + x + y);
    rsSetElementAt_float4(gRe, re * h, x, y);
    rsSetElementAt_float4(gIm, im * h + *in, x, y);
    *out = *in + re;
}

static void note(int v, uint32_t x) {
    rsSetElementAt_uchar(gMask, (uchar)(v & 255), width - 1 - x);
}

// through a helper too, and at a mirrored index
int RS_KERNEL mark(int in, uint32_t x) {
    rsSetElementAt_int(gCount, in * 3, x);
    note(in, x);
    return in + 1;
}

int RS_KERNEL readBack(int in, uint32_t x) {
    return rsGetElementAt_int(gCount, x) + rsGetElementAt_uchar(gMask, x) + in;
}

// launches mark, which writes gCount and gMask, then readBack: results
// dst, gCount, gMask
void process(rs_allocation src, rs_allocation dst) {
    rs_allocation tmp = rsCreateAllocation_int(rsAllocationGetDimX(src));
    rsForEach(mark, src, tmp);
    rsForEach(readBack, tmp, dst);
}

// runs as one thread: writes both parameters and a global
void scan(rs_allocation a, rs_allocation b) {
    uint32_t n = rsAllocationGetDimX(a);
    int s = 0;
    for (uint32_t i = 0; i < n; i++) {
        s += rsGetElementAt_int(a, i);
        rsSetElementAt_int(a, s, i);
        rsSetElementAt_float(b, (float)s / (float)(i + 1), i);
        rsSetElementAt_uchar(gMask, (uchar)(s & 255), i);
    }
}

// as one thread over two pointer globals, reading back what it wrote
void rows() {
    int32_t s = 0;
    for (int32_t x = 0; x < len; ++x) {
        s += x;
        d0[x] = s;
    }
    for (int32_t x = 1; x < len; ++x)
        d1[x] = d0[x - 1] + d1[x - 1];
}

// what fieldgraph does not run: a write to an allocation it picks
void RS_KERNEL pick(int in, uint32_t x) {
    rsSetElementAt_int(gCount, in, x);
    rsSetElementAt_int(in > 0 ? gCount : gMask, in, x);
}

// a legacy kernel that writes its output only at even x: the rest keeps
// the output Allocation's contents (here its input's), as on Android,
// where the output pointer points into the Allocation
void evens(const int *in, int *out, uint32_t x) {
    if (x % 2 == 0)
        *out = *in * 10;
}

void keepOdd(rs_allocation buf) {
    rsForEach(evens, buf, buf);
}

// a mapping kernel writing two pointer globals, one at a mirrored index
void RS_KERNEL twoPtrs(int in, uint32_t x) {
    d0[x] = in;
    d1[len - 1 - x] = in * 2;
}
