#!/usr/bin/env bash
# The soak (soak.sh) on the fixed seeds of tests/integration/soak-seeds, one
# cluster each, one after another: every seed that ever failed, so `make
# test` is the same run every time.  Random seeds and longer runs: `make
# soak` (tests/integration/soak-random.sh).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
failed=()
while read -r seed seconds modes; do
	[[ $seed =~ ^[0-9]+$ ]] || continue
	modes=${modes%%#*}
	boundary=0 accounting=0 pools=0
	[[ " $modes " != *" boundary "* ]] || boundary=1
	[[ " $modes " != *" accounting "* ]] || accounting=1
	[[ " $modes " != *" pools "* ]] || pools=1
	GQ_SOAK_SEED=$seed GQ_SOAK_SECONDS=$seconds GQ_SOAK_BOUNDARY=$boundary \
		GQ_ACCOUNTING=$accounting GQ_SOAK_POOLS=$pools bash "$here/soak.sh" || failed+=("$seed")
done <"$here/soak-seeds"
if ((${#failed[@]})); then
	echo "test_soak: FAIL: seeds ${failed[*]} (replay one: GQ_SOAK_SEED=SEED [GQ_SOAK_BOUNDARY=1] [GQ_ACCOUNTING=1] [GQ_SOAK_POOLS=1] tests/integration/run.sh soak, as its line in soak-seeds says)"
	exit 1
fi
echo "test_soak: PASS"
