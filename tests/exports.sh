#!/bin/sh
# tests/exports.sh - the shared library exports the public API and nothing
# else: every defined dynamic symbol is fg_ followed by a lower-case letter
# or digit (no fg__ internals, no fgk_/fgu_/fgcl_ module symbols, no stray
# globals), a few known entry points are there, and so is every built-in
# function that include/fieldgraph/builtins.h declares.  Skipped (77) only when
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
for want in fg_graph_new fg_context_new fg_program_run fg_sqrt; do
  printf '%s\n' "$syms" | grep -qx "$want" || {
    echo "public symbol $want is not exported"; status=1; }
done
header=${srcdir:-.}/include/fieldgraph/builtins.h
decls=$(sed -n 's/^fg_expr \*\(fg_[a-z0-9_]*\)(.*/\1/p' "$header")
[ -n "$decls" ] || { echo "no declarations read from $header"; exit 1; }
for want in $decls; do
  printf '%s\n' "$syms" | grep -qx "$want" || {
    echo "built-in $want is declared but not exported"; status=1; }
done
# image files are a library of their own: the compute library has none
if printf '%s\n' "$syms" | grep -q '^fg_image'; then
  echo "libfieldgraph exports image I/O (it belongs to libfieldgraph-image)"
  status=1
fi
ilib=.libs/libfieldgraph-image.so
isyms=$($nm -D --defined-only "$ilib" | awk 'NF >= 3 { print $3 }') || exit 1
bad=$(printf '%s\n' "$isyms" | grep -v '^fg_image')
if [ -n "$bad" ]; then
  echo "exported by $ilib but not its API:"
  printf '  %s\n' $bad
  status=1
fi
for want in fg_image_read fg_image_save fg_image_save_parse; do
  printf '%s\n' "$isyms" | grep -qx "$want" || {
    echo "public symbol $want is not exported by $ilib"; status=1; }
done
echo "$(printf '%s\n' "$syms" "$isyms" | wc -l) exported symbols checked"
exit $status
