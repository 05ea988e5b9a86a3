/* A colour filter whose matrix the host sets up through invokables, as
 * the Android image-processing samples do from their sliders: init()
 * starts from the identity, setParams() builds a saturation matrix with a
 * loop, an if and locals, and the kernel reads only static globals. */
#pragma version(1)
#pragma rs java_package_name(com.example.filters)

static float m[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
static float bias = 0.f;
static int calls = -1;
int calls_seen;

static void identity(float *d) {
    for (int i = 0; i < 9; i++)
        d[i] = (i % 4 == 0) ? 1.f : 0.f;
}

void init() {
    identity(m);
    bias = 0.f;
    calls = 0;
}

void setParams(float saturation, int invert, float brightness) {
    const float rW = 0.299f;
    const float gW = 0.587f;
    const float bW = 0.114f;
    float w[3] = {rW, gW, bW};
    float oneMinusS = 1.0f - saturation;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            float v = oneMinusS * w[c];
            if (r == c)
                v += saturation;
            m[r * 3 + c] = invert ? -v : v;
        }
    }
    bias = invert ? 255.f + brightness : brightness;
    calls++;
    calls_seen = calls;
}

uchar4 RS_KERNEL apply(uchar4 in) {
    float3 p = convert_float3(in.rgb);
    float o[3];
    for (int r = 0; r < 3; r++) {
        float v = m[r * 3] * p.r + m[r * 3 + 1] * p.g + m[r * 3 + 2] * p.b;
        o[r] = clamp(v + bias, 0.f, 255.f);
    }
    uchar4 out;
    out.r = (uchar)o[0];
    out.g = (uchar)o[1];
    out.b = (uchar)o[2];
    out.a = in.a;
    return out;
}
