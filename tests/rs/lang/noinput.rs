// A legacy root() without an input pointer, launched as old scripts do
// with an input allocation (rsForEach(script, in, out)): it runs over the
// input's cells and reads the input itself; the invokable ends in a
// return statement.
#pragma version(1)
#pragma rs java_package_name(com.example.noinput)

rs_allocation gIn;
rs_allocation gOut;
rs_script gScript;
int gBias = 3;

void root(int *out, uint32_t x, uint32_t y) {
    *out = rsGetElementAt_int(gIn, x, y) * 2 + x + 10 * y + gBias;
}

void run() {
    rsForEach(gScript, gIn, gOut);
    return;
}
