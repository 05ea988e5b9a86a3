// Functions that share a name through clang's overloadable attribute, as
// Android's own tests write them (rsov's utils.rsh defines checkEq and
// get_T for every type through macros): the compiler of the kernel picks
// the overload by the arguments' types, in kernels and in invokables.
#pragma version(1)
#pragma rs java_package_name(fieldgraph.test)

#define DEFINE_CHECK(T)                                          \
  static int __attribute__((overloadable)) checkEq(T a, T b) {   \
    return a == b;                                               \
  }
#define DEFINE_CHECK2(T)                                         \
  static int __attribute__((overloadable))                       \
  checkEq(T##2 a, T##2 b) {                                      \
    return a.x == b.x && a.y == b.y;                             \
  }
DEFINE_CHECK(float)
DEFINE_CHECK2(float)
DEFINE_CHECK(int)

static float __attribute__((overloadable)) twice(float v) {
  return 2.0f * v + 1.0f;
}
static float2 __attribute__((overloadable)) twice(float2 v) {
  return v * 3.0f;
}
__attribute__((overloadable)) static int twice(int v) { return v * 5 - 1; }
// a prototype of an overload, defined below
static uint __attribute__((overloadable)) twice(uint v);

float RS_KERNEL f1(float in) {
  return twice(in) + (float)checkEq(in, 0.5f);
}

float2 RS_KERNEL f2(float2 in) {
  float2 t = twice(in);
  t.x += (float)checkEq(in, (float2){in.x, 1.0f});
  return t;
}

int RS_KERNEL i1(int in) { return twice(in) + checkEq(in, 7); }

uint RS_KERNEL u1(uint in) { return twice(in); }

static uint __attribute__((overloadable)) twice(uint v) { return v << 1; }

int result;
void compute(int v, float w) { result = twice(v) + (int)twice(w); }

int RS_KERNEL plus_result(int in) { return in + result; }
