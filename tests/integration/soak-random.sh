#!/usr/bin/env bash
# `make soak`: the soak (soak.sh) on random seeds, one cluster after
# another (through run.sh: GQ_ASAN=1 as in `make test`), for GQ_SOAK_MINUTES (default 60) minutes of wall time, each seed
# GQ_SOAK_SECONDS (default 180) long.  Prints each seed's verdict as it
# ends and, at the end, the seeds run, the minutes, and every failing seed
# (replay: GQ_SOAK_SEED=SEED tests/integration/run.sh soak); each failure's
# work dir is kept.  Every seed runs with the boundary actions
# (GQ_SOAK_BOUNDARY=1), every other one with slurmdbd (GQ_ACCOUNTING=1),
# every third one with two pools (GQ_SOAK_POOLS=1).
# Results are appended to build/soak/results ("SEED SECONDS MODES VERDICT
# DATE").  Exits 1 when any seed failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/../../build/soak
mkdir -p "$out"
minutes=${GQ_SOAK_MINUTES:-60}
seconds=${GQ_SOAK_SECONDS:-180}
end=$((EPOCHSECONDS + minutes * 60))
start=$EPOCHSECONDS
n=0
failed=()
while ((EPOCHSECONDS < end)); do
	seed=$(((RANDOM << 15 | RANDOM) % 1000000))
	n=$((n + 1))
	log=$out/soak-$seed.log
	# every seed with the boundary actions; every other one with slurmdbd
	accounting=$((n % 2 == 0))
	pools=$((n % 3 == 0))
	modes=boundary
	((accounting == 0)) || modes+=" accounting"
	((pools == 0)) || modes+=" pools"
	if GQ_SOAK_SEED=$seed GQ_SOAK_SECONDS=$seconds GQ_SOAK_BOUNDARY=1 \
		GQ_ACCOUNTING=$accounting GQ_SOAK_POOLS=$pools GQ_ACCOUNTING_TESTS="" "$here/run.sh" soak >"$log" 2>&1; then
		verdict=pass
	else
		verdict=FAIL
		failed+=("$seed")
	fi
	echo "$seed $seconds $modes $verdict $(date -u +%FT%TZ)" >>"$out/results"
	echo "soak: seed $seed: $verdict ($(grep -m1 -E ' submits ' "$log" | sed 's/^soak: //'))"
	[[ $verdict == pass ]] || grep -E 'FAIL|^  ' "$log" | head -n 20
done
echo "soak: $n seeds, $(((EPOCHSECONDS - start) / 60)) minutes, ${#failed[@]} failed${failed:+: ${failed[*]}}"
((${#failed[@]} == 0))
