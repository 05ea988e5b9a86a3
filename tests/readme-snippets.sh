#!/bin/sh
# tests/readme-snippets.sh - every ```c block of README.md is a complete
# program that a reader can copy.  Each is compiled against the library
# just built, with the build's compiler and flags (under scripts/check-asan
# the snippets run sanitized too) plus -Wall -Wextra -Werror and libuv's
# flags (for the asynchronous one), then run in the source tree, where the
# bundled photos (data/samples/) and scripts (tests/rs/) it reads are; it
# must exit 0.  Skipped (77) only when the build made no shared library
# (--disable-shared).
# automake runs tests from the top build directory (also in VPATH builds)
set -u
src=$(cd "${srcdir:-.}" && pwd)
libdir=$(pwd)/.libs
[ -f "$libdir/libfieldgraph.so" ] ||
  { echo "no $libdir/libfieldgraph.so (static-only build)"; exit 77; }
uv=$(pkg-config --cflags --libs libuv) || { echo "no libuv.pc"; exit 1; }
# the compiler and flags configure chose, from this build's Makefile
mk() { sed -n "s/^$1 = //p" Makefile | head -n 1; }
cc=$(mk CC) cflags=$(mk CFLAGS) ldflags=$(mk LDFLAGS)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# snippet1.c, snippet2.c, ... in the README's order
awk -v dir="$tmp" '
  /^ *```c *$/ { n++; f = sprintf("%s/snippet%d.c", dir, n); inside = 1; next }
  /^ *```/ && inside { inside = 0; close(f); next }
  inside { print > f }' "$src/README.md"
status=0
n=0
for c in "$tmp"/snippet*.c; do
  [ -f "$c" ] || break
  n=$((n + 1))
  exe=${c%.c}
  name=$(basename "$exe")
  # the first line names it in the log
  echo "$name: $(sed -n '/[^ ]/{p;q}' "$c")"
  # shellcheck disable=SC2086  # lists of flags
  if ! ${cc:-cc} $cflags -Wall -Wextra -Werror -I"$src/include" "$c" \
       -o "$exe" $ldflags -L"$libdir" -Wl,-rpath,"$libdir" -lfieldgraph -lfieldgraph-image \
       $uv -lm; then
    echo "$name: does not compile"; status=1; continue
  fi
  (cd "$src" && "$exe")
  rc=$?
  [ $rc -eq 0 ] || { echo "$name: exited with status $rc"; status=1; }
done
[ "$n" -ge 3 ] ||
  { echo "found $n C blocks in $src/README.md, expected 3 or more"; exit 1; }
echo "$n C snippets compiled and ran"
exit $status
