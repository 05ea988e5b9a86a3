// A luminance histogram counted with atomics into a bound allocation, a
// per-green-level maximum of red with rsAtomicMax, and a plain kernel
// beside them.  Each atomic launch makes a copy of the allocation's field
// with the updates (a fusion boundary); the global is rebound to it.  An
// atomic on a script's global array updates the launch's copy of the
// globals, which a later kernel reads; one on a float global is refused
// at its line.
#pragma version(1)
#pragma rs java_package_name(com.example.hist)

rs_allocation gHist;
rs_allocation gMax;
int32_t tally[256];

void RS_KERNEL count(uchar4 in) {
    uint32_t l = (in.r * 77 + in.g * 151 + in.b * 28) >> 8;
    rsAtomicInc((volatile int32_t *)rsGetElementAt(gHist, l));
}

void RS_KERNEL maxima(uchar4 in) {
    rsAtomicMax((volatile int32_t *)rsGetElementAt(gMax, in.g), in.r);
}

uchar RS_KERNEL luma(uchar4 in) {
    return (uchar)((in.r * 77 + in.g * 151 + in.b * 28) >> 8);
}

void RS_KERNEL countGlobal(uchar4 in) {
    rsAtomicInc(&tally[in.r]);
}

int RS_KERNEL readTally(uint32_t x) {
    return tally[x];
}

float ftally[4];

void RS_KERNEL countFloat(uchar4 in) {
    rsAtomicInc(&ftally[in.r & 3]);
}
