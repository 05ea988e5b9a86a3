#pragma version(1)
#pragma rs java_package_name(com.example.suite)
#include "bad_header.rsh"
int RS_KERNEL k(int v) { return broken(v); }
