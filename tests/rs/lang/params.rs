// An invokable with numeric parameters that launches kernels, as apps
// write one: its parameters set globals, pass through a helper run on the
// host and bound the launch.
#pragma version(1)
#pragma rs java_package_name(com.example.params)

static float gain;
static int lift;
static float halfv;

static void setHalf(float h) {
    halfv = h / 2;
}

float RS_KERNEL scale(float in) {
    return in * gain + lift + halfv;
}

void apply(rs_allocation in, rs_allocation out, float g, int l, uint rows) {
    gain = g * 2.0f;
    lift = l + 1;
    setHalf(g + l);
    rs_script_call_t sc = {0};
    sc.yEnd = rows;
    rsForEachWithOptions(scale, &sc, in, out);
}
