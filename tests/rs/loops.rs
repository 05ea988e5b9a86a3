// Invokables that launch no kernel but loop over allocations with
// rsGetElementAt / rsSetElementAt, as apps write their set-up and
// reference code: fg_rs_invoke runs each whole, as one thread, over its
// rs_allocation parameters; the one it writes is a copy with the writes.
#pragma version(1)
#pragma rs java_package_name(com.example.loops)

rs_allocation gLut;

void mirrorScaled(rs_allocation src, rs_allocation dst) {
    uint32_t w = rsAllocationGetDimX(src), h = rsAllocationGetDimY(src);
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uchar v = rsGetElementAt_uchar(src, x, y);
            int k = rsGetElementAt_int(gLut, v & 7);
            rsSetElementAt_int(dst, v * k, w - 1 - x, h - 1 - y);
        }
    }
    rsSetElementAt_int(dst, -1, w, 0);  /* outside: skipped */
}

// a running sum in place: each step reads what the previous one wrote
void prefix(rs_allocation a) {
    uint32_t n = rsAllocationGetDimX(a);
    for (uint32_t i = 1; i < n; i++)
        rsSetElementAt_int(a, rsGetElementAt_int(a, i - 1) +
                              rsGetElementAt_int(a, i), i);
}

void nothing(rs_allocation a) {
    rsDebug("n", rsGetElementAt_int(a, 0));
}
