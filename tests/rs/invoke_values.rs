// Invokables that launch no kernel and take numeric, vector and bool
// parameters, as apps' set-up code does (prepare_converter(int w, int h,
// int left, int top), setCenterMassPos(float x, float y, float z)):
// fg_rs_invoke_args runs each as one thread with the values it passes;
// what they write to pointer globals' elements, allocations and numeric
// globals is what later launches in the graph see.
#pragma version(1)
#pragma rs java_package_name(com.example.values)

int *offsets;               // bound to an allocation of ints
int *result;                // as hello.rs: one int
uchar *dst;                 // bound to an allocation of uchars
static int width, height, start_x, start_y;
float gain = 1.0f;

// the parameters reach a helper, which writes a pointer global
static void fill_offsets(int w, int n, float scale) {
    for (int i = 0; i < n; i++)
        offsets[i] = i * w + (int)(scale * i);
}

void setOffsets(int w, int n, float scale) {
    fill_offsets(w, n, scale);
}

// an allocation parameter beside int and float ones
void ramp(rs_allocation table, float scale, int bias) {
    uint32_t n = rsAllocationGetDimX(table);
    for (uint32_t i = 0; i < n; i++)
        rsSetElementAt_float(table, scale * i + bias, i);
}

// as prepare_converter: globals from the parameters, and a pointer
// global's elements through a helper; the kernel after it reads both
static void init_rows(int w, int h) {
    for (int i = 0; i < h; i++)
        offsets[i] = i * w;
}

void prepare(int w, int h, int left, int top) {
    width = w;
    height = h;
    start_x = left;
    start_y = top;
    init_rows(w, h);
}

void __attribute__((kernel)) place(uchar in, int x, int y) {
    y += start_y;
    x += start_x;
    if (y < height && x < width)
        dst[offsets[y] + x] = in + (uchar)start_x;
}

// globals only: what the kernel after it scales by
void setGain(float g, bool negate) {
    gain = negate ? -g : g;
}

float __attribute__((kernel)) scale(float in) {
    return in * gain;
}

// as hello.rs: *p = v, and the pointer given to rsDebug
void hello(int a, int b) {
    *result = a + b;
    rsDebug("Hello, RenderScript! ", result);
}

// vector, bool and long parameters
void paint(rs_allocation img, float3 tint, int2 at, bool flip, uchar4 base,
           long big) {
    uint32_t n = rsAllocationGetDimX(img);
    for (uint32_t i = 0; i < n; i++) {
        float4 v = convert_float4(base);
        if (flip)
            v = -v;
        v.xyz += tint * (float)((int)i + at.x);
        v.w += (float)at.y + (float)(big >> 32);
        rsSetElementAt_float4(img, v, i);
    }
}

// several allocations and a global from one thread: a parameter's
// elements, two pointer globals' and the gain the kernel after it reads
// (the results: lut, then offsets and dst in the order they are declared)
void calibrate(rs_allocation lut, float g, int n) {
    for (int i = 0; i < n; i++) {
        dst[i] = (uchar)(3 * i + 1);
        rsSetElementAt_float(lut, g * i, i);
        offsets[i] = -i;
    }
    gain = g + 1.0f;
}
