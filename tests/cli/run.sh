#!/usr/bin/env bash
# The gpuquota command's conventions, with no Slurm here (run by make
# unit): each command's --help (exit 0, "Usage"), -V, an unknown command
# named, and --json answering JSON on success and on failure.
#   tests/cli/run.sh [GPUQUOTA]     default build/gpuquota
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
G=${1:-$ROOT/build/gpuquota}
export SLURM_CONF=/nonexistent
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
bad=0
fail() { echo "tests/cli: FAIL: $*" >&2; bad=1; }
is_json() { python3 -m json.tool >/dev/null 2>&1 <"$1"; }

for c in projects jobs check sync checkpoint metrics release ledger simulate import; do
	for h in --help -h; do
		out=$(timeout 5 "$G" "$c" "$h" 2>&1); rc=$?
		[[ $rc == 0 ]] || fail "$c $h: exit $rc"
		[[ $out == Usage:* ]] || fail "$c $h: no Usage: '$out'"
	done
done
out=$("$G" --help) || fail "--help: exit $?"
[[ $out == Usage:* ]] || fail "--help: '$out'"

for v in -V --version; do
	out=$("$G" $v) || fail "$v: exit $?"
	[[ $out =~ ^gpuquota\ [0-9] ]] || fail "$v: '$out'"
done

out=$("$G" projets 2>&1); rc=$?
[[ $rc == 1 ]] || fail "unknown command: exit $rc"
grep -qxF "gpuquota: unknown command 'projets'; see gpuquota --help" <<<"$out" \
	|| fail "unknown command: '$out'"
grep -qF "did you mean 'projects'" <<<"$out" || fail "no did-you-mean: '$out'"

# check --json: a good file and a bad one, each a JSON document on stdout
timeout 5 "$G" check --json "$ROOT/examples/gpuquota.json" >"$TMP/good" 2>"$TMP/good.err" \
	|| fail "check --json good: exit $?: $(cat "$TMP/good.err")"
is_json "$TMP/good" || fail "check --json good: not JSON: $(cat "$TMP/good")"
grep -q '"ok": true' "$TMP/good" || fail "check --json good: $(cat "$TMP/good")"
printf '{"projects": [{"name": "a", "gpu_quota": -1}]}' >"$TMP/bad.json"
timeout 5 "$G" check --json "$TMP/bad.json" >"$TMP/bad" 2>"$TMP/bad.err"; rc=$?
[[ $rc == 2 ]] || fail "check --json bad: exit $rc"
is_json "$TMP/bad" || fail "check --json bad: not JSON: $(cat "$TMP/bad")"
grep -q '"error": *".*bad.json' "$TMP/bad" || fail "check --json bad: $(cat "$TMP/bad")"
[[ -s $TMP/bad.err ]] || fail "check --json bad: nothing on stderr"

# a refused option under --json: JSON on stdout, the line on stderr
"$G" jobs --json --dry-run >"$TMP/opt" 2>"$TMP/opt.err"; rc=$?
[[ $rc == 2 ]] || fail "jobs --json --dry-run: exit $rc"
is_json "$TMP/opt" || fail "jobs --json --dry-run: not JSON: $(cat "$TMP/opt")"
grep -qF -- "--dry-run" "$TMP/opt.err" || fail "jobs --dry-run: $(cat "$TMP/opt.err")"

# ledger: --since's forms, the table parsable and without its header
mkdir -p "$TMP/state"
: >"$TMP/state/gpuquota-ledger"
for s in -2h now-30m -7d 2026-12-01; do
	"$G" ledger --dir "$TMP/state" --since "$s" >/dev/null 2>&1 \
		|| fail "ledger --since $s refused"
done
"$G" ledger --dir "$TMP/state" --since yesterday >/dev/null 2>&1 \
	&& fail "ledger --since yesterday accepted"
out=$("$G" ledger --dir "$TMP/state" --parsable 2>&1)
[[ $out == "DAY|PROJECT|LENT|GPUS_LENT|GPU_H_LOST|BORROWED|GPUS_BACK|GPU_H_COST|OBSERVED" ]] \
	|| fail "ledger --parsable: '$out'"
out=$("$G" ledger --dir "$TMP/state" --noheader 2>&1)
[[ -z $out ]] || fail "ledger --noheader: '$out'"

((bad)) && exit 1
echo "tests/cli: OK"
