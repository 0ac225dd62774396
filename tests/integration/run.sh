#!/usr/bin/env bash
# Owns the integration suite: runs every tests/integration/test_*.sh (and the
# cluster smoke test) one after another on real Slurm daemons; fails when any
# fails.  Usage: tests/integration/run.sh [test-name...]
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [[ $# -gt 0 ]]; then
	tests=("$@")
else
	tests=("$here/cluster_smoke.sh" "$here"/test_*.sh)
fi
failed=()
for t in "${tests[@]}"; do
	[[ -f $t ]] || t=$here/$t.sh
	echo "== $(basename "$t" .sh)"
	if ! bash "$t"; then
		failed+=("$(basename "$t" .sh)")
	fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
	echo "integration: FAILED: ${failed[*]}"
	exit 1
fi
echo "integration: all ${#tests[@]} passed"
