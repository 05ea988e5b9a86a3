// An image filter as Android's ICS-era scripts write it: the script's own
// handle (rs_script) and its allocations as globals, launched by an
// invokable with rsForEach; pointer globals, read like allocations; legacy kernels besides
// root(); a neighbour read through the untyped rsGetElementAt; const
// globals in constant expressions; a helper that assigns to its const
// by-value parameter, as old headers do.
#pragma version(1)
#pragma rs java_package_name(com.example.oldfilter)

rs_allocation gIn;
rs_allocation gOut;
rs_script gScript;
const uchar4 *gPixels;

static const int kLevels = 4;
static const float kStep = 255.0f / (kLevels - 1);
static const int kTable = kLevels * 2;
float table[kTable];
bool invert = false;
int gain = 3,bias = 5;

static float3 clamp01(const float3 t) {
    t.r = t.r < 0.f ? 0.f : t.r > 1.f ? 1.f : t.r;
    t.g = t.g < 0.f ? 0.f : t.g > 1.f ? 1.f : t.g;
    t.b = t.b < 0.f ? 0.f : t.b > 1.f ? 1.f : t.b;
    return t;
}

void filter() {
    rsForEach(gScript, gIn, gOut, 0, 0);
}

void root(const uchar4 *v_in, uchar4 *v_out, const void *usrData,
          uint32_t x, uint32_t y) {
    float4 f = rsUnpackColor8888(*v_in);
    float3 c = clamp01(f.rgb * 1.5f - 0.25f);
    if (invert)
        c = 1.f - c;
    *v_out = rsPackColorTo8888(c);
}

// a legacy kernel that is not root(): forEach_posterize on Android
void posterize(const uchar4 *v_in, uchar4 *v_out) {
    uchar4 o = *v_in;
    o.r = (uchar)((int)(o.r / kStep + 0.5f) * kStep);
    o.g = (uchar)(o.g * gain / 4 + bias);
    *v_out = o;
}

// the right-hand neighbour, read through the untyped rsGetElementAt
void relief(const uchar4 *v_in, uchar4 *v_out, uint32_t x, uint32_t y) {
    uchar4 n = *(const uchar4 *)rsGetElementAt(gIn, x + 1, y);
    *v_out = (uchar4){(v_in->r - n.r) / 2 + 128, (v_in->g - n.g) / 2 + 128,
                      (v_in->b - n.b) / 2 + 128, 255};
}

// reads the pointer global (bound with fg_rs_bind_allocation)
void blend(const uchar4 *v_in, uchar4 *v_out, uint32_t x, uint32_t y) {
    *v_out = *v_in / (uchar4)2 + gPixels[x] / (uchar4)2;
}

// no output pointer: runs, to no visible effect
void count(const uchar4 *v_in, uint32_t x) {
    rsDebug("pixel", x);
}

// the script's handle as a parameter, NULL usrData (the preprocessor
// leaves ((void *)0))
void filterTo(rs_script script, rs_allocation src, rs_allocation dst) {
    rsForEach(script, src, dst, NULL);
}

// user data that root() does not read: the launch runs as without it
void withData() {
    int k = 1;
    rsForEach(gScript, gIn, gOut, &k, sizeof(k));
}

// the pointer global read through pointer arithmetic
void shifted(const uchar4 *v_in, uchar4 *v_out, uint32_t x) {
    uchar4 n = *(gPixels + x + 1);
    v_out->r = (gPixels + x)->g;
    v_out->g = n.b;
    v_out->b = v_in->b;
    v_out->a = 255;
}

int *hits;

// increments through a pointer global (each x its own element)
void tally(const uchar4 *v_in, uchar4 *v_out, uint32_t x) {
    hits[x]++;
    *v_out = *v_in;
}

// a global array passed to a helper's pointer parameter (on OpenCL the
// parameter takes the globals' address space)
static float gTable[4] = {0.f, 10.f, 20.f, 30.f};

static float lookup(const float *t, int i) {
    return t[i & 3];
}

void tabled(const uchar4 *v_in, float *v_out) {
    *v_out = lookup(gTable, v_in->r) + v_in->g;
}
