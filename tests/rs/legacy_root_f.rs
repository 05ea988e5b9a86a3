// A legacy float filter: root() with only its input and output pointers.
#pragma version(1)
#pragma rs java_package_name(com.example.legacy)

float gain = 0.5f;

void root(const float4 *in, float4 *out) {
    float4 v = *in;
    *out = v * gain + 1.5f;
}
