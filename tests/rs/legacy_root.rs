// A legacy filter as Android's older scripts write it: no kernel
// attribute, a root() that reads through its input pointer and writes
// through its output pointer, with usrData and the coordinates.
#pragma version(1)
#pragma rs java_package_name(com.example.legacy)

int threshold = 100;
static const int weights[3] = {77, 151, 28};

static uchar luma(uchar4 p) {
    return (uchar)((p.r * weights[0] + p.g * weights[1] + p.b * weights[2]) >> 8);
}

void root(const uchar4 *v_in, uchar4 *v_out, const void *usrData,
          uint32_t x, uint32_t y) {
    uchar l = luma(*v_in);
    if (l < threshold && ((x + y) & 1) == 0)
        l = 255 - l;
    v_out->r = l;
    v_out->g = (uchar)((l + x) & 255);
    v_out->b = (uchar)((l ^ y) & 255);
    v_out->a = v_in->a;
}
