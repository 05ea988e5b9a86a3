// A filter as pre-API-24 scripts write one: the invokable computes its
// factors from float, double and integer globals and the input's size,
// calls a helper with float arguments, sets launch bounds from globals,
// then launches root().
#pragma version(1)
#pragma rs java_package_name(com.example.setup)

rs_allocation gIn;
rs_allocation gOut;
rs_script gScript;
float gContrast = 0.5f;
double gBias = 0.125;
int gShift = 7;
uint gRows = 3;

static float factor;
static float offset;
static int steps;
static double fine;
static uchar wrapped;
static float scaled;

// sign and powr are helpers of the C dialect, which the host's code
// must have too
static void setScale(float s, int n) {
    scaled = s * n * sign(s - 10.f) + powr(4.f, 0.5f);
}

void filter() {
    factor = (1.0f + gContrast) * (1.0f + gContrast);
    offset = gContrast / 3 + gShift - 0.1;
    steps = (int)(gContrast * 100.0f) + gShift % 4 - (int)2.9f;
    fine = 1.0 / 3 + gBias * rsAllocationGetDimX(gIn);
    wrapped = (uchar)(gShift * 50);
    setScale(gContrast * 2.0f + 0.25f, gShift / 2);
    rs_script_call_t sc = {0};
    sc.yStart = 1;
    sc.yEnd = gRows + 1;
    rsForEach(gScript, gIn, gOut, 0, 0, &sc);
}

void root(const float *in, float *out, uint32_t x, uint32_t y) {
    *out = *in * factor + offset + steps + (float)fine + wrapped + scaled;
}
