// A luminance histogram counted with atomics into a bound allocation, and
// a plain kernel beside it.  fieldgraph does not run atomics on bound
// allocations yet: the load names the call at its line, and the other
// kernel runs.
#pragma version(1)
#pragma rs java_package_name(com.example.hist)

rs_allocation gHist;

void RS_KERNEL count(uchar4 in) {
    uint32_t l = (in.r * 77 + in.g * 151 + in.b * 28) >> 8;
    rsAtomicInc((volatile int32_t *)rsGetElementAt(gHist, l));
}

uchar RS_KERNEL luma(uchar4 in) {
    return (uchar)((in.r * 77 + in.g * 151 + in.b * 28) >> 8);
}
