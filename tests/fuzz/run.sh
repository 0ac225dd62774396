#!/usr/bin/env bash
# Owns the fuzzing run of `make fuzz`: each libFuzzer target of build/ for
# SECONDS (default 20) from its committed corpus; new inputs go to a
# scratch dir, a crash's input stays in build/fuzz/ with the command that
# replays it.  Usage: tests/fuzz/run.sh [SECONDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-20}
out=$root/build/fuzz
mkdir -p "$out"
declare -A corpus=(
	[fuzz_config]="$root/tests/config/bad $root/examples"
	[fuzz_gres_text]="$root/tests/fuzz/gres_corpus"
)
failed=0
for t in fuzz_config fuzz_gres_text; do
	scratch=$(mktemp -d "$out/$t.corpus.XXXXXX")
	echo "== $t: $secs s"
	# shellcheck disable=SC2086
	if ! "$root/build/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$out/$t-" "$scratch" ${corpus[$t]} \
		>"$out/$t.log" 2>&1; then
		echo "fuzz: $t FAILED; see $out/$t.log; replay: build/$t $out/$t-<crash file>" >&2
		tail -n 30 "$out/$t.log" >&2
		failed=1
	else
		grep -E '^Done|stat::number_of_executed_units' "$out/$t.log" | tail -n 1 || true
	fi
	rm -rf "$scratch"
done
exit $failed
