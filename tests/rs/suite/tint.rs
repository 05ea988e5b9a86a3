/* tests/rs/suite/tint.rs - one script of a suite sharing common.rsh. */
#pragma version(1)
#pragma rs java_package_name(com.example.suite)

#include "rs_debug.rsh"
#include "common.rsh"
#include "common.rsh"

uchar4 tint_color = {10, 200, 30, 255};

uchar4 RS_KERNEL tint(uchar4 in) {
  uchar4 out;
  out.r = mix_channel(in.r, tint_color.r);
  out.g = mix_channel(in.g, tint_color.g);
  out.b = mix_channel(in.b, tint_color.b);
  out.a = in.a;
  return out;
}
