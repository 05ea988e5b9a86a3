// Kernels as Android's runtime tests write them to check types: void
// kernels with no visible effect, and bool inputs and results.
#pragma version(1)
#pragma rs java_package_name(t)

void RS_KERNEL test_bool(bool in) {}
void RS_KERNEL test_uchar4(uchar4 in, uint32_t x, uint32_t y) {
  uchar c = in.x;
  (void)c;
}
void root(const int *in) {}

bool RS_KERNEL negate(bool in) { return !in; }
int RS_KERNEL count(bool in, uint32_t x) { return in ? (int)x : -1; }
