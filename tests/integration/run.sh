#!/usr/bin/env bash
# Owns the integration suite: runs every tests/integration/test_*.sh (and the
# cluster smoke test) one after another on real Slurm daemons, then the tests
# named in GQ_ACCOUNTING_TESTS (space separated; default below) once more with
# GQ_ACCOUNTING=1 (slurmdbd + MariaDB, associations enforced); fails when any
# fails.  GQ_ASAN=1 runs them on the sanitizer build of the plugins.  Usage: tests/integration/run.sh [test-name...]
# With test names given, the accounting pass runs those of them that are in
# GQ_ACCOUNTING_TESTS; GQ_ACCOUNTING_TESTS="" skips it; with GQ_ACCOUNTING=1
# already set every test runs in accounting mode once.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# GQ_SLURM_PREFIX=DIR: the Slurm installed in DIR (scripts/slurm-build.sh V:
# build/slurm-V/install) instead of the system's: its bin and sbin first in
# PATH, its plugin directory as Slurm's own in PluginDir (priority/multifactor
# from there), gpuquota's plugins built against its headers (build/slurm-V)
# into build/v-V, the command against its libslurm (build/v-V/gpuquota).
if [[ -n ${GQ_SLURM_PREFIX:-} ]]; then
	top=$(cd "$here/../.." && pwd)
	GQ_SLURM_PREFIX=$(cd "$GQ_SLURM_PREFIX" && pwd) || exit 1
	[[ ${GQ_ASAN:-0} != 1 ]] || { echo "integration: GQ_ASAN=1 is for the host's Slurm, not GQ_SLURM_PREFIX" >&2; exit 1; }
	v=$("$GQ_SLURM_PREFIX/sbin/slurmctld" -V | awk '{ print $2 }')
	[[ -f $top/build/slurm-$v/VERSION ]] || { echo "integration: no headers of Slurm $v in build/slurm-$v: scripts/slurm-build.sh $v" >&2; exit 1; }
	make -s -C "$top" SLURM_VERSION="$v" SLURM_PREFIX="$GQ_SLURM_PREFIX" all \
		|| { echo "integration: building gpuquota against Slurm $v failed" >&2; exit 1; }
	export PATH=$GQ_SLURM_PREFIX/bin:$GQ_SLURM_PREFIX/sbin:$PATH
	export GPUQUOTA_SYS_PLUGINDIR=$GQ_SLURM_PREFIX/lib/slurm
	# (already set: the installed files, scripts/matrix.sh)
	export GQ_PLUGINDIR=${GQ_PLUGINDIR:-$top/build/v-$v} GQ_GPUQUOTA=${GQ_GPUQUOTA:-$top/build/v-$v/gpuquota}
	echo "integration: Slurm $v from $GQ_SLURM_PREFIX"
fi
# GQ_ASAN=1: slurmctld loads the plugins built with AddressSanitizer and
# UBSan (make asan-plugins), their runtime preloaded; a report fails the test.
if [[ ${GQ_ASAN:-0} == 1 ]]; then
	export GQ_PLUGINDIR=${GQ_PLUGINDIR:-$(cd "$here/../.." && pwd)/build/asan}
	export GQ_CTLD_PRELOAD=${GQ_CTLD_PRELOAD:-$(gcc -print-file-name=libasan.so)}
	[[ -f $GQ_PLUGINDIR/priority_gpuquota.so ]] || { echo "integration: no $GQ_PLUGINDIR/priority_gpuquota.so: make asan-plugins" >&2; exit 1; }
fi
if [[ $# -gt 0 ]]; then
	tests=("$@")
else
	tests=("$here/cluster_smoke.sh" "$here"/test_*.sh)
fi
read -ra acct_list <<<"${GQ_ACCOUNTING_TESTS-test_quick_start test_departments test_ledger test_ledger_grace test_move}"

name() { basename "$1" .sh; }
path() { if [[ -f $1 ]]; then echo "$1"; else echo "$here/$1.sh"; fi; }

acct_tests=()
if [[ ${GQ_ACCOUNTING:-0} != 1 ]]; then
	for a in "${acct_list[@]}"; do
		if [[ $# -eq 0 ]]; then
			acct_tests+=("$a")
			continue
		fi
		for t in "${tests[@]}"; do
			[[ $(name "$t") == "$(name "$a")" ]] && { acct_tests+=("$a"); break; }
		done
	done
fi

# Each run's output is kept; a failed run's last lines are shown again at
# the end, where a CI log's tail has them.  GQ_LANES=N (default 1) runs N
# tests at once, each on its own cluster (its own port range, directory
# and MariaDB: scripts/cluster.sh), the slowest first; a run's output is
# then shown whole when it ends.  With one lane it is shown as it comes.
logs=$(mktemp -d "${TMPDIR:-/tmp}/gq-integration.XXXXXX")
lanes=${GQ_LANES:-1}
[[ $lanes =~ ^[1-9][0-9]*$ ]] || { echo "integration: GQ_LANES=$lanes is not a count of 1 or more" >&2; exit 1; }
runs=0
run() { # LABEL LOG TEST [ENV=VALUE...]: its seconds into LOG.time, rc into LOG.rc
	local label=$1 log=$2 t=$3 t0=$SECONDS rc
	shift 3
	if [[ $lanes == 1 ]]; then
		echo "== $label"
		env "$@" bash "$t" 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
	else
		env "$@" bash "$t" >"$log" 2>&1
		rc=$?
		{ echo "== $label"; cat "$log"; } | flock "$logs/.out" cat
	fi
	echo "$((SECONDS - t0)) $label" >"$log.time"
	echo "$rc" >"$log.rc"
}
# The runs: label, log, test, environment.  The slowest known first, so
# that lanes end together.  A test in `alone` runs with no other beside
# it: the soak's fixed seeds replay a schedule in real time, and a second
# cluster's load changes what it exercises (a seed that made reclaims
# made none).
slow=" test_soak test_node_not_responding test_stability test_ctld_crash_storm test_dbd_outage "
alone=" test_soak "
queue=()
for pass in slow rest; do
	for t in "${tests[@]}"; do
		t=$(path "$t")
		[[ $slow == *" $(name "$t") "* ]] && [[ $pass == rest ]] && continue
		[[ $slow != *" $(name "$t") "* ]] && [[ $pass == slow ]] && continue
		queue+=("$(name "$t")|$logs/$(name "$t").log|$t|")
	done
done
for t in "${acct_tests[@]}"; do
	t=$(path "$t")
	queue+=("accounting: $(name "$t")|$logs/accounting-$(name "$t").log|$t|GQ_ACCOUNTING=1")
done
for q in "${queue[@]}"; do
	IFS='|' read -r label log t envs <<<"$q"
	runs=$((runs + 1))
	if [[ $lanes == 1 ]]; then
		run "$label" "$log" "$t" $envs
		continue
	fi
	if [[ $alone == *" $label "* ]]; then
		wait
		run "$label" "$log" "$t" $envs
		continue
	fi
	while (($(jobs -rp | wc -l) >= lanes)); do
		wait -n
	done
	run "$label" "$log" "$t" $envs &
done
wait
failed=()
times=()
for q in "${queue[@]}"; do
	IFS='|' read -r label log t envs <<<"$q"
	[[ $(cat "$log.rc" 2>/dev/null) == 0 ]] || failed+=("$label")
	times+=("$(cat "$log.time" 2>/dev/null || echo "? $label")")
done
echo "== seconds per run, slowest first:"
printf '%s\n' "${times[@]}" | sort -rn | head -n 15 | sed 's/^/  /'
if [[ ${#failed[@]} -gt 0 ]]; then
	for f in "${failed[@]}"; do
		echo "== the last lines of $f:"
		tail -n 40 "$logs/${f/accounting: /accounting-}.log"
	done
	echo "integration: FAILED: ${failed[*]} (whole output: $logs)"
	exit 1
fi
rm -rf "$logs"
echo "integration: all $runs passed"
