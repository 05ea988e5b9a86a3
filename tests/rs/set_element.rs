// Kernels that set elements of bound allocations (rsSetElementAt_<type>),
// as apps write them: a mirror into an output allocation, a legacy kernel
// without an output pointer, a kernel that returns a value and also sets
// elements, and a kernel that reads back what the others wrote.  Each
// launch that writes makes a new field, a copy of the bound one with the
// writes; the global is rebound to it.
#pragma version(1)
#pragma rs java_package_name(com.example.setelement)

rs_allocation gOut;
rs_allocation gGrey;

void RS_KERNEL mirror(uchar4 in, uint32_t x, uint32_t y) {
    uint32_t w = rsAllocationGetDimX(gOut);
    rsSetElementAt_uchar4(gOut, in.wzyx, w - 1 - x, y);
}

void grey(const uchar4 *v_in, uint32_t x, uint32_t y) {
    uchar g = (uchar)((v_in->r + v_in->g + v_in->b) / 3);
    rsSetElementAt_uchar(gGrey, g, x, y);
    rsSetElementAt_uchar(gGrey, 255, x + 1000, y);  /* outside: skipped */
}

int RS_KERNEL evens(uchar4 in, uint32_t x, uint32_t y) {
    if (x % 2 == 0)
        rsSetElementAt_uchar4(gOut, in, x, y);
    return in.r + (int)x;
}

uchar4 RS_KERNEL readBack(uint32_t x, uint32_t y) {
    return rsGetElementAt_uchar4(gOut, x, y);
}
