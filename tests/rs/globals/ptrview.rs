// Pointer globals used beyond p[e], as published scripts use them: *p
// read and written, p->m and (*p).m of a vector pointee, p or p + e given
// to helpers that index it, write through it or pass it on moved, helpers
// reading the memory as another type than the global's (a double pointer
// global written and read as floats, as C does), helpers also given the
// kernel's own arrays, bool pointer globals, pointer locals given p + e
// and moved.  Uses fieldgraph cannot run are refused at their lines: a
// pointer assigned to a plain local, a helper given a pointer global and
// a script global's array, a reduction that writes through a helper, and
// an invokable run on the host that reads through one.
#pragma version(1)
#pragma rs java_package_name(com.example.ptrview)

float *stack;
int *offsets;
float4 *tint;
double *angles;
int len;

static float sum3(const float *a) {
    return a[0] + a[1] + *(a + 2);
}

static float taps(const float *a, int n) {
    float s = 0.f;
    for (int i = 0; i < n; i++)
        s += a[i] * (float)(i + 1);
    return s + sum3(a + 1);
}

float RS_KERNEL filter(float in, uint32_t x) {
    return in * *stack + taps(stack + offsets[x], 3);
}

float RS_KERNEL shade(float in) {
    return in * tint->y + (*tint).w;
}

static void put2(int x, int y, float *array, int n, float v) {
    array[n * x + y] = v;
}

static float get2(int x, int y, float *array, int n) {
    return array[n * x + y];
}

void RS_KERNEL fill(float in, uint32_t x) {
    for (int y = 0; y < len; y++)
        put2(x, y, angles, len, in * (float)y);
}

float RS_KERNEL total(float in, uint32_t x) {
    float s = 0.f;
    for (int y = 0; y < len; y++)
        s += get2(x, y, angles, len);
    return s + in;
}

static void bump(float *a, float v) {
    *a += v;
    a[1] *= 2.f;
}

static void bumpAt(float *a, int i, float v) {
    bump(a + i, v);
}

void RS_KERNEL scale(float in, uint32_t x) {
    bumpAt(stack, 2 * x, in);
}

void RS_KERNEL head(float in, uint32_t x) {
    if (x == 0)
        *stack = in;
}

static float keep(float *a) {
    float *q; q = a;
    return q[0];
}

float RS_KERNEL alias(float in) {
    return keep(stack) + in;
}

static float first(const float *a) {
    return a[0];
}

float RS_KERNEL mixed(float in) {
    float local[2] = {in, in};
    return first(stack) + first(local);
}

#pragma rs reduce(spill) accumulator(spillAcc)
static void spillAcc(float *a, float v) {
    *a += v;
    bump(stack, v);
}

// an invokable on the host cannot reach the bound field: refused
void peek(void) {
    float v = first(stack);
    rsSendToClient(1, &v, sizeof v);
}

// a bool pointer global (a field of bytes): set as C sets a bool, to 0
// or 1; updating one is refused
bool *failed;

void RS_KERNEL check(int in, uint32_t x) {
    if (in < 0)
        *failed = in;
    if (in > 250)
        failed[1] = in & 256;
}

int RS_KERNEL seen(int in) {
    return *failed ? in : -in;
}

void RS_KERNEL toggle(int in) {
    failed[0] += in;
}

// pointer locals given a pointer global and an offset (views of its
// field), written through a helper and read; reassigning one is refused
uchar *bytes;

static void put3(uchar *o, int v) {
    o[0] = v;
    o[1] = v + 1;
    o[2] = v + 2;
}

void RS_KERNEL pack(int in, uint32_t x) {
    uchar *out = bytes + x * 4;
    put3(out, in);
    const uchar *last = out + 3;
    out[3] = *last + 1;
}

int RS_KERNEL unpack(uint32_t x) {
    const uchar *p = bytes + 4 * x;
    return p[0] + p[3];
}

void RS_KERNEL slide(int in, uint32_t x) {
    uchar *out = bytes;
    out = out + x;
    *out = in;
}

// a helper given pointer globals elsewhere, given the kernel's own array
// here (a view of it); a script global's array is refused
int RS_KERNEL local3(int in) {
    uchar tmp[3];
    put3(tmp, in);
    return tmp[0] + tmp[1] + tmp[2];
}

float table[4] = {1.f, 2.f, 3.f, 4.f};

float RS_KERNEL fromTable(float in) {
    return first(table) + in;
}

// a pointer local moved: q = p + e, q++ in a for, q -= e, q += e, ++q,
// --q; given anything else than a pointer global plus an offset, refused
void RS_KERNEL walk(int in, uint32_t x) {
    uchar *q = bytes + 4 * x;
    for (int i = 0; i < 4; i++, q++)
        *q = in + i;
    q -= 4;
    q += 1;
    ++q;
    --q;
    q[0] = q[0] * 2;
}

void RS_KERNEL lose(int in) {
    uchar *q = bytes;
    q = 0;
}

// a pointer local given a cast pointer global, (const uchar4 *)bytes + x:
// the bytes read as uchar4, moved by uchar4s
int RS_KERNEL asWords(uint32_t x) {
    const uchar4 *w = (const uchar4 *)bytes + x;
    uchar4 v = *w;
    return v.x + v.w * 256;
}

// moved inside an argument (no statement of its own): refused
void RS_KERNEL argMove(int in) {
    uchar *q = bytes;
    put3(q++, in);
}

// a pointer local into a constant table, moved and given to a helper:
// on OpenCL the helper's parameter takes the table's address space
static const int steps[4] = {1, 2, 3, 4};

static int sum2(const int *a) {
    return a[0] + a[1];
}

int RS_KERNEL tableWalk(uint32_t x) {
    const int *t = steps;
    t += x % 3;
    return sum2(t);
}

// ... and through a helper's parameter to another helper
static int twice(const int *a) {
    return sum2(a) * 2;
}

int RS_KERNEL tableTwice(uint32_t x) {
    const int *t = steps;
    t += x % 3;
    return twice(t);
}

// pointer globals fieldgraph does not bind: to a struct holding a
// pointer, and with an initializer not NULL; the kernels are refused
typedef struct { float a; float *b; } Pair;
Pair *pairs;
float4 *preset = (float4 *)16;

float RS_KERNEL pairA(uint32_t x) {
    return pairs[x].a;
}

float RS_KERNEL presetX(uint32_t x) {
    return preset[x].x;
}
