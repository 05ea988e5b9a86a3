/* A vertex transform: an invokable builds a 4x4 matrix (translate, then
 * scale, then rotate about z) and its inverse; kernels multiply by them. */
#pragma version(1)
#pragma rs java_package_name(com.example.matrix)

static rs_matrix4x4 gM;
static rs_matrix4x4 gInv;
rs_matrix3x3 colour;

void setup(float tx, float ty, float s, float angle) {
    rsMatrixLoadTranslate(&gM, tx, ty, 0.f);
    rsMatrixScale(&gM, s, s, 1.f);
    rsMatrixRotate(&gM, angle, 0.f, 0.f, 1.f);
    rsMatrixSet(&gM, 3, 2, rsMatrixGet(&gM, 3, 2) + 0.5f);
    rsMatrixLoad(&gInv, &gM);
    rsMatrixInverse(&gInv);
}

float4 RS_KERNEL transform(float4 v) {
    return rsMatrixMultiply(&gM, v);
}

float4 RS_KERNEL untransform(float4 v) {
    return rsMatrixMultiply(&gInv, v);
}

float3 RS_KERNEL recolour(float3 v) {
    return rsMatrixMultiply(&colour, v);
}
