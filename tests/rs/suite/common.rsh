/* tests/rs/suite/common.rsh - a header shared by the scripts of a suite:
 * a function-like macro, a conditional and a static helper. */
#ifndef COMMON_RSH
#define COMMON_RSH

#define SCALE(v, k) ((v) * (k))
#define CLAMP255(v) ((v) < 0 ? 0 : (v) > 255 ? 255 : (v))

#if RS_VERSION >= 23
#define OFFSET 7
#else
#define OFFSET 1000
#endif

static int mix_channel(int a, int b) {
  return CLAMP255(SCALE(a, 3) / 4 + b / 4 + OFFSET);
}

#endif
