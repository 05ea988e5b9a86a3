#!/bin/sh
# tools/bench-batch.sh - a benchmark (never a test): images/s of
# `fieldgraph run` over a batch of copies of the 1000x872 sample JPEG
# through the CIELab pipeline (examples/lab.fgp: two PNGs out per image)
# with --jobs 1 and --jobs 2, next to decode+encode alone (a pipeline that
# writes the same two PNGs without L*a*b*) and, when installed, vips
# under GNU parallel -j2 doing JPEG -> Lab -> PNG.  CPU time over wall
# time says how busy the cores were.  It installs nothing: the vips row needs
# `apt-get install libvips-tools parallel`.  Run from the build tree:
#   tools/bench-batch.sh [N]        (N images, default 200)
set -eu
n=${1:-200}
src=$(cd "$(dirname "$0")/.." && pwd)
tool=${FIELDGRAPH:-tools/fieldgraph}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/in"
i=0
while [ $i -lt "$n" ]; do
  cp "$src/data/samples/hubble_deep_field.jpg" "$work/in/p$i.jpg"
  i=$((i + 1))
done
# decode + encode alone: the same two PNGs per image as lab.fgp writes
# (zlib's time depends on the pixels: the halved, flipped photo is the same
# image, a grey version stands in for the lightness), without L*a*b* and
# the mean: what the batch would cost if computing were free
printf 'rgb = input()\nsave(flip(rgb) * 0.5, "{stem}-flipped-half.png")\nsave(grey(rgb), "{stem}-lightness.png")\n' > "$work/copy.fgp"
echo "$n JPEGs of 1000x872 on $(nproc) cores (load: $(cut -d' ' -f1-3 /proc/loadavg))"
# warm the kernel cache so no row pays for compiling
"$tool" run "$src/examples/lab.fgp" -o "$work/warm" -q "$work/in/p0.jpg" >/dev/null
"$tool" run "$work/copy.fgp" -o "$work/warm" -q "$work/in/p0.jpg" >/dev/null
row() {   # name, command...
  name=$1
  shift
  rm -rf "$work/out"
  mkdir "$work/out"
  if ! /usr/bin/time -f "%e %U %S" -o "$work/t" "$@" >/dev/null 2>&1; then
    printf '%-34s failed: %s\n' "$name" "$(head -n 1 "$work/t")"
    return
  fi
  # every row writes its PNGs to $work/out: a row that wrote none failed
  [ -n "$(ls "$work/out")" ] ||
    { printf '%-34s wrote nothing\n' "$name"; return; }
  set -- $(cat "$work/t")
  awk -v name="$name" -v n="$n" -v w="$1" -v u="$2" -v s="$3" 'BEGIN {
    printf "%-34s %7.2f s  %6.1f img/s  cpu/wall %.2f\n", name, w, n / w,
           (u + s) / w }'
  echo "$1 $(echo "$2 $3" | awk '{ print $1 + $2 }')" > "$work/t-$rowid"
}
# The batch's cost over decode+encode alone, in wall time and in CPU time
# (user + system: on a machine shared with other work, the CPU time is the
# steadier of the two).
overhead() {
  [ -f "$work/t-lab2" ] && [ -f "$work/t-copy2" ] || return 0
  set -- $(cat "$work/t-lab2") $(cat "$work/t-copy2")
  awk -v lw="$1" -v lc="$2" -v cw="$3" -v cc="$4" 'BEGIN {
    printf "lab.fgp over decode+encode, --jobs 2: %+.1f%% wall, %+.1f%% CPU\n",
           100 * (lw / cw - 1), 100 * (lc / cc - 1) }'
}
rowid=lab1
row "lab.fgp --jobs 1" "$tool" run "$src/examples/lab.fgp" -o "$work/out" -q -j 1 "$work/in"
rowid=lab2
row "lab.fgp --jobs 2" "$tool" run "$src/examples/lab.fgp" -o "$work/out" -q -j 2 "$work/in"
rowid=copy2
row "decode+encode only --jobs 2" "$tool" run "$work/copy.fgp" -o "$work/out" -q -j 2 "$work/in"
overhead
rowid=vips
if command -v vips >/dev/null && command -v parallel >/dev/null; then
  row "vips (Lab, PNG) parallel -j2" sh -c "ls $work/in/*.jpg | parallel --will-cite -j2 \
    'vips colourspace {} $work/out/{/.}.v lab && vips pngsave $work/out/{/.}.v $work/out/{/.}.png && rm $work/out/{/.}.v'"
else
  echo "vips or GNU parallel not installed: no peer row" \
    "(apt-get install libvips-tools parallel)"
fi
