/* rsDebug, rsSendToClient and rsRand in invokables, and rsDebug in a
 * kernel (which prints nothing there). */
#pragma version(1)
#pragma rs java_package_name(com.example.runtime)
#include "rs_debug.rsh"

static int table[8];
static int offset;

void fill(int n, float scale) {
    rsDebug("fill n", n);
    rsDebug("fill scale", scale);
    rsDebug("fill vec", (float2){scale, 2.f * scale});
    int64_t big = (int64_t)n * 1000000000000;
    rsDebug("fill big", big);
    int sum = 0;
    for (int i = 0; i < 8; i++) {
        table[i] = rsRand(n);
        sum += table[i];
    }
    float f = rsRand(1.f, 2.f);
    offset = sum + (f >= 1.f && f < 2.f ? 1000 : -1000);
    int msg[2] = {sum, n};
    rsSendToClient(7, msg, sizeof(msg));
    rsSendToClient(8);
}

int RS_KERNEL shifted(int v) {
    rsDebug("v", v);
    return v + offset;
}
