/* tests/rs/suite/gain.rs - another script of the suite: common.rsh and a
 * header found on a user include path. */
#pragma version(1)
#pragma rs java_package_name(com.example.suite)

#include "common.rsh"
#include "gain_params.rsh"

#ifdef USE_SQUARE
#define SHAPE(v) SCALE(v, v)
#else
#define SHAPE(v) (v)
#endif

int RS_KERNEL gain(int v) {
  return SHAPE(v) * GAIN + mix_channel(v, 0);
}
