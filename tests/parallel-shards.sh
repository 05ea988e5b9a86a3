#!/bin/sh
# tests/parallel-shards.sh - GNU parallel (Debian's package) running
# `fieldgraph run --shard K/3` for K = 1, 2, 3 into one directory writes
# the same files, byte for byte, as one unsharded run, and reports every
# input exactly once with the same results.  Skipped (77) when GNU parallel
# is not installed (scripts/setup installs it).
# automake runs tests from the top build directory (also in VPATH builds)
set -u
src=$(cd "${srcdir:-.}" && pwd)
tool=$(pwd)/tools/fieldgraph
parallel --version 2>/dev/null | grep -q 'GNU parallel' ||
  { echo "GNU parallel is not installed"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$*"; exit 1; }
"$tool" run "$src/examples/lab.fgp" -o "$tmp/out" -q --json \
  "$src/data/samples" > "$tmp/one.jsonl" || fail "the unsharded run failed"
parallel --will-cite -j3 "$tool" run "$src/examples/lab.fgp" \
  -o "$tmp/sharded" -q --jobs 1 --json --shard {}/3 "$src/data/samples" \
  ::: 1 2 3 > "$tmp/sharded.jsonl" || fail "a sharded run failed"
# the JSON lines without timings, output directories named alike, sorted
norm() {
  sed -e 's/,"time_ms":{[^}]*}//' -e "s|$tmp/[a-z]*/|OUT/|g" "$1" | sort
}
norm "$tmp/one.jsonl" > "$tmp/one.txt"
norm "$tmp/sharded.jsonl" > "$tmp/sharded.txt"
n=$(wc -l < "$tmp/one.txt")
[ "$n" -ge 5 ] || fail "the unsharded run reported $n inputs, expected 5"
dups=$(sed 's/^{"id":"\([^"]*\)".*/\1/' "$tmp/sharded.txt" | uniq -d)
[ -z "$dups" ] || fail "reported by more than one shard: $dups"
diff "$tmp/one.txt" "$tmp/sharded.txt" ||
  fail "the shards' JSON lines differ from the unsharded run's"
# the results journal: the same lines, in the order the shards finished
j=.fieldgraph-results.jsonl
diff -r -x "$j" "$tmp/out" "$tmp/sharded" ||
  fail "the shards' outputs differ from the unsharded run's"
sort "$tmp/out/$j" > "$tmp/j1.txt"
sort "$tmp/sharded/$j" > "$tmp/j3.txt"
[ "$(wc -l < "$tmp/j1.txt")" -eq "$n" ] ||
  fail "the results journal holds $(wc -l < "$tmp/j1.txt") lines for $n inputs"
diff "$tmp/j1.txt" "$tmp/j3.txt" ||
  fail "the shards' results journal differs from the unsharded run's"
echo "$n inputs, $(find "$tmp/out" -type f -name '*.png' | wc -l) outputs:" \
  "the shards match one run"
