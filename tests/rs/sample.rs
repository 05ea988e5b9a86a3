// Resampling an image with a sampler, as Android's zoom and scale
// scripts do: normalized coordinates, a little past both edges, through
// rsSample with the sampler the host set (linear, clamp to edge).
#pragma version(1)
#pragma rs java_package_name(com.example.zoom)

rs_allocation gIn;
rs_sampler gSampler;
int gOutWidth = 1;
int gOutHeight = 1;

float4 RS_KERNEL resample(uint32_t x, uint32_t y) {
    float2 uv;
    uv.x = ((float)x + 0.5f) / (float)gOutWidth * 1.25f - 0.125f;
    uv.y = ((float)y + 0.5f) / (float)gOutHeight * 1.25f - 0.125f;
    return rsSample(gIn, gSampler, uv);
}
