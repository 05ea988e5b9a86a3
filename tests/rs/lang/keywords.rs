// Identifiers that OpenCL C (or the generated C) keeps for itself, used as
// the names of a script's globals, functions, parameters, locals, members
// and types: valid RenderScript, which is C99.
#pragma version(1)
#pragma rs java_package_name(t)

typedef struct { int global; float local; } sampler_t;  // a typedef, members
const int *kernel;              // a pointer global, bound as an allocation
int constant = 3;               // a global block member
float private = 0.5f;
rs_allocation image2d_t;        // an allocation global
#define read_write(v) ((v) + 1)

static int read_only(int global) {
  int local = global * 2;
  return local;
}

static int write_only(int event_t, int __kernel) { return event_t - __kernel; }

int RS_KERNEL event_t(int __global, uint32_t x) {
  int global = kernel[x];
  int local = read_only(global);
  sampler_t generic;
  generic.global = local;
  generic.local = private;
  int fgk_env = rsGetElementAt_int(image2d_t, x);
  int __local = read_write(constant);
  return write_only(generic.global, __global) + __local +
         (int)(generic.local * 4) + fgk_env;
}

// an invokable on the host, writing globals of reserved names
void read_write_set(float local, int global) {
  private = local;
  constant = global;
}

// a reduction whose functions and parameters have reserved names
#pragma rs reduce(local) accumulator(__constant) combiner(write_only_comb)
static void __constant(int *global, int local) { *global += local * constant; }
static void write_only_comb(int *global, const int *local) { *global += *local; }
