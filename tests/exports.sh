#!/bin/sh
# tests/exports.sh - the shared library exports the public API and nothing
# else: every defined dynamic symbol is fg_ followed by a lower-case letter
# or digit (no fg__ internals, no fgk_/fgu_/fgcl_ module symbols, no stray
# globals), and a few known entry points are there.  Skipped (77) only when
# the build made no shared library (--disable-shared).
# automake runs tests from the top build directory (also in VPATH builds)
lib=.libs/libfieldgraph.so
[ -f "$lib" ] || { echo "no $lib (static-only build)"; exit 77; }
nm=${NM:-nm}
syms=$($nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }') || exit 1
[ -n "$syms" ] || { echo "no exported symbols read from $lib"; exit 1; }
status=0
bad=$(printf '%s\n' "$syms" | grep -v '^fg_[a-z0-9]')
if [ -n "$bad" ]; then
  echo "exported but not public API:"
  printf '  %s\n' $bad
  status=1
fi
for want in fg_graph_new fg_context_new fg_program_run fg_sqrt fg_image_read; do
  printf '%s\n' "$syms" | grep -qx "$want" || {
    echo "public symbol $want is not exported"; status=1; }
done
echo "$(printf '%s\n' "$syms" | wc -l) exported symbols checked"
exit $status
