#!/bin/sh
# tests/opencl-suites.sh - runs the backend-parametric Check suites again
# on the OpenCL backend (FG_TEST_BACKEND=opencl).  Skipped (77) when no
# OpenCL device exists, unless FG_REQUIRE_OPENCL is set (CI sets it), in
# which case that is a failure.
# automake runs tests from the top build directory (also in VPATH builds)
dir=tests
"$dir/check_opencl" >/dev/null 2>&1
if [ $? -eq 77 ]; then
  [ -n "${FG_REQUIRE_OPENCL:-}" ] && { echo "no OpenCL device"; exit 1; }
  exit 77
fi
status=0
failed=""
for suite in check_dsl check_run check_examples check_reduce check_builtins \
    check_fuse check_async check_rs check_math check_ops_pointwise \
    check_ops_intrinsics check_badinput check_rs_runtime check_rs_lang \
    check_rs_globals \
    check_ops_nonlocal check_ops_nl_intrinsics check_reduce_loc check_build \
    check_deadline check_ops_table check_bands check_buffers; do
  echo "== $suite on OpenCL"
  rc=0
  FG_TEST_BACKEND=opencl FG_BACKEND=opencl "$dir/$suite" || rc=$?
  if [ $rc -ne 0 ]; then
    echo "== $suite on OpenCL FAILED (exit $rc)"
    failed="$failed $suite"
    status=1
  fi
done
# one line naming the failed suites, last, where a log's tail shows it
[ $status -eq 0 ] || echo "opencl-suites: failed on OpenCL:$failed"
exit $status
