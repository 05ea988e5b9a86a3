#!/bin/sh
# tests/circles.sh - the files of each folder of the library call one way:
# no circle of files A -> B -> ... -> A where each uses a symbol (function
# or variable) that the next defines, read with nm from the built objects.
# Folders listed in $FG_CIRCLES_ALLOWED (default: rs, whose parser's
# declarations and constant expressions recurse into each other: an array
# size is a constant, a constant may hold sizeof(type) or a cast) are
# reported but do not fail.  A circle names its files and the symbols of each edge.
# Fails when no objects are found: it runs after the build, so none means
# it looked in the wrong place, which must not pass as "no circle".
# automake runs tests from the top build directory (also in VPATH builds)
nm=${NM:-nm}
folders="backend-cpu backend-opencl dsl emit fuse graph io ir ops rs rs-kernel
rs-host rs-graph runtime toolchain util viz tools"
allowed="${FG_CIRCLES_ALLOWED-rs}"
status=0
seen=0
for f in $folders; do
  objs=$(ls "$f"/.libs/*.o 2>/dev/null)
  [ -n "$objs" ] || objs=$(ls "$f"/*.o 2>/dev/null | grep -v '/tests_')
  [ -n "$objs" ] || continue
  seen=1
  # "object type symbol" for every defined and undefined symbol
  out=$(for o in $objs; do
          b=$(basename "$o" .o); b=${b##*_la-}; b=${b#fieldgraph-}
          $nm "$o" | awk -v o="$b" 'NF == 2 && $1 == "U" { print o, "U", $2 }
              NF == 3 && $2 ~ /^[TDBRVWCG]$/ { print o, "D", $3 }'
        done | awk '
    $2 == "D" { def[$3] = $1; next }
    { use[++n] = $1 " " $3 }
    END {
      for (i = 1; i <= n; i++) {
        split(use[i], u, " ")
        b = def[u[2]]
        if (b == "" || b == u[1]) continue
        if (!((u[1], b) in edge)) { edge[u[1], b] = u[2]; node[u[1]]; node[b] }
        else if (length(edge[u[1], b]) < 60) edge[u[1], b] = edge[u[1], b] " " u[2]
        reach[u[1], b] = 1
      }
      for (k in node) for (i in node) if ((i, k) in reach)
        for (j in node) if ((k, j) in reach) reach[i, j] = 1
      for (a in node) {
        if (!((a, a) in reach) || (a in done)) continue
        line = "circle:"
        for (b in node) if (b == a || (((a, b) in reach) && ((b, a) in reach))) {
          done[b]; line = line " " b; member[b] = a
        }
        print line
        for (key in edge) {
          split(key, p, SUBSEP)
          if (member[p[1]] == a && member[p[2]] == a)
            print "  " p[1] " -> " p[2] ": " edge[key]
        }
      }
    }')
  [ -n "$out" ] || continue
  case " $allowed " in
    *" $f "*) echo "$f (known, allowed for now):" ;;
    *) echo "$f:"; status=1 ;;
  esac
  printf '%s\n' "$out" | sed 's/^/  /'
done
[ $seen = 1 ] || { echo "no objects found under $(pwd)"; exit 1; }
[ $status = 0 ] && echo "no circle inside a folder (but in: $allowed)"
exit $status
