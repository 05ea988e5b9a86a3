// enum types (named, anonymous, typedef'd, explicit values and constant
// expressions), attributes on types, arrays sized by their initializers
// and a pointer-to-array parameter in a reduction's outconverter.
#pragma version(1)
#pragma rs java_package_name(t)

enum Mode { ADD, SUB = 5, MUL, SHIFT = SUB * 2 + (1 << 2) };   // 0 5 6 14
typedef enum { RED = -1, GREEN, BLUE = 'b' } Colour;
enum { COUNT = 3, LAST = COUNT - 1 };
enum { SIZED = sizeof(int) * 2 };     // the compiler evaluates it
typedef enum Mode Mode_t;

typedef struct __attribute__((packed)) Packed { uchar tag; int value; } Packed;
struct __attribute__((aligned(16))) Wide { int a; };
typedef struct Acc { int v[4]; } Acc;

enum Mode mode = MUL;           // a global of an enum type
Colour colour = BLUE;
static float map[] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f};
static const int table[][3] = {{1, 2, 3}, {4, 5, 6}};
const int tableRows = sizeof(table) / sizeof(table[0]);

static int apply(Mode_t m, int a, int b) {
  switch (m) {
  case ADD: return a + b;
  case SUB: return a - b;
  case MUL: return a * b;
  default: return a << (m - SHIFT + 1);
  }
}

int RS_KERNEL enums(int in, uint32_t x) {
  enum Mode local = (enum Mode)(x % 4 == 3 ? SHIFT : x % 4 == 2 ? MUL :
                                x % 4 == 1 ? SUB : ADD);
  Colour c = colour;
  Packed p;
  p.tag = (uchar)c;
  p.value = apply(local, in, LAST);
  int sizes = (int)sizeof(Packed) * 100 + (int)sizeof(struct Wide);
  return p.value + p.tag + sizes * 1000 + (mode == MUL ? 7 : 0) + RED +
         SIZED;
}

float RS_KERNEL lookup(int in) {
  int n = sizeof(map) / sizeof(map[0]);
  int i = in < 0 ? -in : in;
  return map[i % n] + (float)table[i % tableRows][i % COUNT];
}

#pragma rs reduce(bins) accumulator(binAcc) combiner(binComb) \
  outconverter(binOut)
static void binAcc(Acc *a, int in) { a->v[(in & 3)] += 1; }
static void binComb(Acc *a, const Acc *b) {
  for (int k = 0; k < 4; k++)
    a->v[k] += b->v[k];
}
static void binOut(int (*result)[4], const Acc *a) {
  for (int k = 0; k < 4; k++)
    (*result)[k] = a->v[k] * 10 + k;
}
