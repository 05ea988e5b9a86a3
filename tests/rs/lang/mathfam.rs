// rs_math.rsh beyond the common functions: results through pointers
// (frexp, modf, sincos, remquo, lgamma with its sign), integer exponents
// (rootn, ldexp, ilogb), nan, clz of every integer width, and the
// native_ variants of the functions that have one.
#pragma version(1)
#pragma rs java_package_name(com.example.mathfam)

float4 RS_KERNEL ptrs(float v) {
    int e, q, sg;
    float ip, c;
    float m = frexp(v * 37.f, &e);
    float f = modf(v * 9.5f, &ip);
    float s = sincos(v, &c);
    float r = remquo(v * 10.f, 0.75f, &q);
    float lg = lgamma(v + 0.5f, &sg);
    float ns, nc;
    ns = native_sincos(v * 2.f, &nc);
    return (float4){m + e, f + ip * 100.f, s + c * 10.f + ns + nc,
                    r + (q & 7) * 100.f + lg + sg * 1000.f};
}

float4 RS_KERNEL vecptrs(float4 v) {
    int4 e;
    float4 ip;
    float4 m = frexp(v * 37.f, &e);
    float4 f = modf(v * 9.5f, &ip);
    return m + convert_float4(e) + f + ip * 100.f + ldexp(v, 2) +
           ldexp(v, (int4){1, 2, 3, 4});
}

float4 RS_KERNEL iexp(float v, uint32_t x) {
    int n = (int)(x % 5) + 1;
    return (float4){rootn(v * 50.f - 20.f, n), ldexp(v, n),
                    (float)ilogb(v * 1000.f) + (isnan(nan(3u)) ? 0.5f : 0.f),
                    native_rootn(v, 3)};
}

int4 RS_KERNEL clzs(int v) {
    uchar u = (uchar)v;
    short s = (short)(v * 77);
    char ch = (char)(v >> 2);
    ushort us = (ushort)(v * 3);
    return (int4){clz(v), clz(u) + 100 * clz(ch), clz(s) + 100 * clz(us),
                  clz((uint)v >> 3)};
}

float4 RS_KERNEL natives(float v) {
    return (float4){
        native_acos(v) + native_asin(v) + native_atan(v) +
            native_acosh(v + 1.f) + native_asinh(v) + native_atanh(v * 0.5f),
        native_acospi(v) + native_asinpi(v) + native_atanpi(v) +
            native_cbrt(v) + native_cosh(v) + native_cospi(v),
        native_expm1(v) + native_log1p(v) + native_sinh(v) +
            native_sinpi(v) + native_tanh(v) + native_tanpi(v * 0.2f),
        native_atan2(v, 0.5f) + native_atan2pi(v, 0.25f) +
            native_hypot(v, 3.f) + native_divide(v, 3.f)};
}

// pown of every vector width with an integer vector of exponents
// (rs_math.rsh has float2-4 with int2-4; the C dialect had the scalar)
float4 RS_KERNEL pownv(float4 v) {
    float2 p2 = pown(v.xy, (int2){2, 3});
    float3 p3 = pown(v.xyz, (int3){1, 2, -1});
    return pown(v, (int4){1, 2, 3, -2}) + (float4){p2.x, p2.y, p3.z, p3.y};
}
