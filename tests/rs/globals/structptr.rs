// Pointer globals of struct pointee, as Refocus's layered filter uses
// them: a struct of float and uchar members over a float4 buffer that the
// host binds, which an invokable gives a static struct pointer (by a
// cast), members written at computed indices through p + i, p[i].m,
// (p + i)->m and pointer locals (one declared NULL and given p - 1
// later), struct pointers passed to helpers that read and write members,
// a second kernel reading what the first left; a struct of ints read
// through an offset; a number pointer global declared = NULL.  The
// kernels and invokables at the end are refused at their lines.
#pragma version(1)
#pragma rs java_package_name(com.example.structptr)

typedef struct Pixel {
    float red;
    float green;
    float blue;
    uchar depth;
    uchar active;
    uchar matte;
    uchar dilated;
} Pixel_t;

typedef struct Info {
    int offset;
    int rx;
    int ry;
} Info_t;

float4 *buffer = NULL;
static Pixel_t *pixels = NULL;
Info_t *info;
float *gain = NULL;
int width;

static void activate(Pixel_t *p, int m) {
    p->active = 1;
    p->matte += m;
}

static float lum(const Pixel_t *p) {
    return p->red + p->green * 2.f + p->blue * 4.f;
}

typedef struct Layer {
    int front, back;
    float lut[4];
} Layer_t;

static Layer_t layer;

void setup(void) {
    pixels = (Pixel_t *)buffer;
    layer.front = 40;
    layer.back = 20;
    for (int i = 0; i < 4; i++)
        layer.lut[i] = i * 0.5f + 1.f;
}

void drop(void) {
    pixels = NULL;
}

void RS_KERNEL unpack(uchar4 in, uint32_t x) {
    Pixel_t *px = pixels + x;
    px->red = in.r * (1.f / 255.f);
    px->green = in.g * (1.f / 255.f);
    pixels[x].blue = in.b * *gain;
    (pixels + x)->depth = in.a >> 2;
    px->active = 0;
    px->matte = 0;
    px->dilated = 0;
}

void RS_KERNEL mark(uchar4 in, uint32_t x) {
    if (in.a < 100 || x == 0)
        return;
    Pixel_t *px = pixels + x;
    Pixel_t *nb = NULL;
    nb = px - 1;
    px->dilated = nb->depth;
    activate(px, width);
    px->matte++;
    pixels[x].red *= 2.f;
    px->green -= 0.5f;
}

float RS_KERNEL pack(uint32_t x) {
    const Pixel_t *px = pixels + x;
    const Info_t *ki = info + (x % 2);
    return lum(px) + px->matte * 100.f + pixels[x].active * 10.f +
           (pixels + x)->dilated * 1000.f + ki->rx * 0.5f + info[1].ry;
}

void RS_KERNEL badDivide(uchar4 in, uint32_t x) {
    (pixels + x)->red /= 2.f;
}

void RS_KERNEL badWhole(uchar4 in, uint32_t x) {
    Pixel_t p = pixels[0];
    pixels[x] += p;
}

static float *floats;

void badAlias(void) {
    floats = (float *)buffer;
}

void condAlias(int c) {
    if (c)
        pixels = (Pixel_t *)buffer;
}

// a walk over a row, as Refocus's integral image: views compared
float RS_KERNEL rowSum(uint32_t x) {
    const Pixel_t *p = pixels + x * 3;
    const Pixel_t *last = p + 3;
    float s = 0.f;
    for (; p != last; p++)
        s += p->red;
    return s;
}

// a static struct's address and array member given to helpers (OpenCL:
// pointers into the globals block)
static bool onLayer(int d, const Layer_t *l) {
    return d >= l->back && d <= l->front;
}

static float lookup(float v, float lut[4]) {
    return lut[(int)v & 3];
}

float RS_KERNEL layered(uint32_t x) {
    return onLayer(pixels[x].depth, &layer) ?
           lookup(pixels[x].red * 4.f, layer.lut) : -1.f;
}

// a struct holding a float3 (16 bytes, as a float4) and a struct member:
// the vector member set whole, the nested one's members updated
typedef struct Meta {
    float w;
    int n;
} Meta_t;

typedef struct Particle {
    float3 pos;
    int id;
    Meta_t meta;
} Particle_t;

Particle_t *parts;

void RS_KERNEL move(float in, uint32_t x) {
    Particle_t *p = parts + x;
    p->pos = p->pos + in;
    p->meta.n += 2;
    parts[x].meta.w = p->pos.y;
    (parts + x)->id = x * 3;
}

void RS_KERNEL badSwizzle(float in, uint32_t x) {
    parts[x].pos.x = in;
}
