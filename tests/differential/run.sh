#!/usr/bin/env bash
# Owns the differential check of the core: builds tests/differential/dump.c
# against this tree's src/ and against git revision REV's (default main),
# runs both on the same seeded passes and compares every answer.  For a
# change meant to make the core faster without changing what it decides:
# any difference fails, and the first lines of the diff name the case
# (its seed: `dump 1 SEED` replays it).  Not part of `make test` (it needs
# a second revision).  Usage: tests/differential/run.sh [REV [CASES [FIRST_SEED]]]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rev=${1:-main}
cases=${2:-20000}
first=${3:-1000}
out=$root/build/differential
cflags=(-std=gnu11 -Wall -Wextra -Werror -O1 $(pkg-config --cflags json-c))
libs=($(pkg-config --libs json-c 2>/dev/null || echo -ljson-c) -lm)
# the library's sources of a tree (src/tools and src/state: since the
# core's split; a revision before it has them in src/core)
srcs() { local d; for d in tools config core state; do ls "$1/src/$d"/*.c 2>/dev/null || true; done; }
rm -rf "$out/rev"
mkdir -p "$out/rev"
git -C "$root" archive "$rev" src | tar -x -C "$out/rev"
gcc "${cflags[@]}" -I"$root/src" -o "$out/dump-tree" "$root/tests/differential/dump.c" \
	$(srcs "$root") "${libs[@]}"
gcc "${cflags[@]}" -I"$out/rev/src" -o "$out/dump-rev" "$root/tests/differential/dump.c" \
	$(srcs "$out/rev") "${libs[@]}"
"$out/dump-rev" "$cases" "$first" >"$out/rev.txt"
"$out/dump-tree" "$cases" "$first" >"$out/tree.txt"
if ! cmp -s "$out/rev.txt" "$out/tree.txt"; then
	echo "differential: the answers differ from $rev's ($cases cases from seed $first):" >&2
	{ diff "$out/rev.txt" "$out/tree.txt" || true; } | head -20 >&2
	awk -v n="$(cmp "$out/rev.txt" "$out/tree.txt" | sed 's/.*line //' || true)" \
		'NR <= n && /^case / { c = $2 } END { print "first differing case: seed " c }' "$out/rev.txt" >&2
	exit 1
fi
echo "differential: $cases cases from seed $first, the same answers as $rev ($(wc -l <"$out/tree.txt") lines)"
