// The histogram idiom as apps write it: rsAtomicInc on an element of a
// script's global array, read back by an invokable and by a later kernel;
// every other rsAtomic* on int and uint scalars, array elements and struct
// members.  The threads of a launch share its globals; what the launch
// leaves is what invokables and later launches read (the host reads it as
// Android's apps do, through rsSendToClient from an invokable).
#pragma version(1)
#pragma rs java_package_name(com.example.globals)

static volatile int histo[256];
int total;
int subbed;
int down;
uint bits_or;
uint bits_and = 0xffffffffu;
uint bits_xor;
int lo = 1000000;
int hi = -1000000;
uint ulo = 0xffffffffu;
uint uhi;
int slots[16];
volatile uint ubins[8];


void RS_KERNEL count(uchar4 in) {
    uint32_t l = (in.r * 77 + in.g * 151 + in.b * 28) >> 8;
    rsAtomicInc(&histo[l]);
}

void RS_KERNEL others(uchar4 in, uint32_t x) {
    rsAtomicAdd(&total, in.r);
    rsAtomicSub(&subbed, in.g);
    rsAtomicDec(&down);
    rsAtomicOr(&bits_or, (uint)in.b << (x % 24));
    rsAtomicAnd(&bits_and, ~(1u << (in.r % 32)));
    rsAtomicXor(&bits_xor, (uint)in.g * 2654435761u);
    rsAtomicMin(&lo, (int)in.r - (int)in.b);
    rsAtomicMax(&hi, (int)in.r - (int)in.b);
    rsAtomicMin(&ulo, (uint)in.g + 7u);
    rsAtomicMax(&uhi, (uint)in.b * 3u);
    rsAtomicCas(&slots[in.r & 15], 0, 1 + (int)x);
    rsAtomicInc(&ubins[in.a & 7]);
}

// a later launch reads what the counting launch left
int RS_KERNEL readBin(uint32_t x) {
    return histo[x];
}

void fetch(void) {
    int d[2] = {0, histo[128]};
    for (int i = 0; i < 256; i++)
        d[0] += histo[i] * (i + 1);
    rsSendToClient(1, d, sizeof(d));
}

void report(void) {
    int d[18];
    d[0] = total;
    d[1] = subbed;
    d[2] = down;
    d[3] = (int)bits_or;
    d[4] = (int)bits_and;
    d[5] = (int)bits_xor;
    d[6] = lo;
    d[7] = hi;
    d[8] = (int)ulo;
    d[9] = (int)uhi;
    for (int k = 0; k < 8; k++)
        d[10 + k] = (int)ubins[k];
    rsSendToClient(2, d, sizeof(d));
    rsSendToClient(3, slots, sizeof(slots));
}

void clear(void) {
    for (int i = 0; i < 256; i++)
        histo[i] = 0;
}

// atomics on members of a global struct
typedef struct Counts { int n; uint bins[4]; } Counts_t;
Counts_t counts;

void RS_KERNEL countStruct(uchar4 in) {
    rsAtomicInc(&counts.n);
    rsAtomicAdd(&counts.bins[in.g & 3], 2u);
}

void reportStruct(void) {
    int d[5] = {counts.n, (int)counts.bins[0], (int)counts.bins[1],
                (int)counts.bins[2], (int)counts.bins[3]};
    rsSendToClient(4, d, sizeof(d));
}
