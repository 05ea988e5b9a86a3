// NV21 camera frame to RGBA, as camera apps wrote it: the frame is a YUV
// Allocation read with the YUV getters, converted with the BT.601 integer
// formula of Android's rsYuvToRGBA_uchar4.
#pragma version(1)
#pragma rs java_package_name(com.example.camera)

rs_allocation gCurrentFrame;

static uchar clamp255(int v) {
    return (uchar)rsClamp(v, 0, 255);
}

uchar4 __attribute__((kernel)) yuv2rgba(uint32_t x, uint32_t y) {
    int Y = (int)rsGetElementAtYuv_uchar_Y(gCurrentFrame, x, y) - 16;
    int U = (int)rsGetElementAtYuv_uchar_U(gCurrentFrame, x, y) - 128;
    int V = (int)rsGetElementAtYuv_uchar_V(gCurrentFrame, x, y) - 128;
    uchar4 out;
    out.r = clamp255((Y * 298 + V * 409 + 128) >> 8);
    out.g = clamp255((Y * 298 - U * 100 - V * 208 + 128) >> 8);
    out.b = clamp255((Y * 298 + U * 516 + 128) >> 8);
    out.a = 255;
    return out;
}

// The same with the runtime's conversion.
uchar4 RS_KERNEL yuv2rgba_rt(uint32_t x, uint32_t y) {
    return rsYuvToRGBA_uchar4(rsGetElementAtYuv_uchar_Y(gCurrentFrame, x, y),
                              rsGetElementAtYuv_uchar_U(gCurrentFrame, x, y),
                              rsGetElementAtYuv_uchar_V(gCurrentFrame, x, y));
}

// The float conversion of the runtime (alpha is the luma, as Android's).
float4 RS_KERNEL yuv2float(uint32_t x, uint32_t y) {
    return rsYuvToRGBA_float4(rsGetElementAtYuv_uchar_Y(gCurrentFrame, x, y),
                              rsGetElementAtYuv_uchar_U(gCurrentFrame, x, y),
                              rsGetElementAtYuv_uchar_V(gCurrentFrame, x, y));
}
