#!/usr/bin/env bash
# The soak's fixed seeds (test_soak) GQ_BUSY_ROUNDS times in a row (3),
# every core kept busy by stress-ng meanwhile: a busy controller's timing,
# where a pass and Slurm's cycles come late and out of step.  Stops at the
# first failing round.  stress-ng is stopped by its PID at exit.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${GQ_BUSY_ROUNDS:-3}
command -v stress-ng >/dev/null || { echo "soak-busy: stress-ng missing (scripts/install-deps.sh)" >&2; exit 2; }
stress-ng --cpu "$(nproc)" --cpu-load 100 --quiet &
busy=$!
trap 'kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null || true' EXIT
for ((r = 1; r <= rounds; r++)); do
	echo "soak-busy: round $r of $rounds (stress-ng on $(nproc) cores)"
	"$here/run.sh" test_soak || { echo "soak-busy: FAIL in round $r" >&2; exit 1; }
done
echo "soak-busy: $rounds rounds passed"
