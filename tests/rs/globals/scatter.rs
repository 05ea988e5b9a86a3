// Kernels that write through pointer globals bound to allocations, as
// apps write them: output[aux] = v at an index the kernel computes (a
// transpose), a kernel that returns a value and also writes (an index
// outside the allocation is skipped), a vector element type, and a later
// kernel that reads what was written.  Each launch that writes makes a
// copy of the bound field with the writes; the global is rebound to it.
// Compound assignments (+=, -=, *=, ++, --) through a pointer global; a
// division through one, and a reduction that writes through one, are
// refused at their lines.
#pragma version(1)
#pragma rs java_package_name(com.example.scatter)

int *output;
float4 *colours;
int height;
int width;

void RS_KERNEL transpose(int in, uint32_t x, uint32_t y) {
    int aux = x * height + y;
    output[aux] = in * 3;
}

int RS_KERNEL mirror(int in, uint32_t x) {
    int v;
    v = output[width - 1 - x] = in + 1;
    output[x + 100000] = 7;
    return v * 2;
}

void RS_KERNEL paint(float in, uint32_t x) {
    colours[x] = (float4){in, in * 2.f, 0.f, 1.f};
}

int RS_KERNEL readOut(uint32_t x) {
    return output[x] + 1;
}

void RS_KERNEL bump(int in, uint32_t x) {
    output[x] /= in;
}

#pragma rs reduce(spill) accumulator(spillAcc)
static void spillAcc(int *a, int v) {
    *a += v;
    output[0] = v;
}

// each x its own element: no two threads race
int RS_KERNEL compound(int in, uint32_t x) {
    int old = output[x]++;
    ++output[x];
    output[x] += in;
    output[x] -= 3;
    output[x] *= 2;
    --output[x];
    output[x + 100000] += 1;
    return old + output[x]--;
}

// writes a global and through a pointer global: refused at its line
void RS_KERNEL both(int in, uint32_t x) {
    width = in;
    output[x] = in;
}
