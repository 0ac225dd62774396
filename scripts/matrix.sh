#!/usr/bin/env bash
# Owns `make matrix`: gpuquota built, packaged and tested against each
# supported Slurm, each in a cached Debian root (scripts/root.sh) with
# Debian's own Slurm of that release:
#   bookworm 22.05, trixie 24.11, forky 26.05.
# In each root: this tree copied in, Slurm's headers prepared
# (scripts/prepare-slurm.sh), `make all`, `make deb`, the package installed
# with `apt-get install ./gpuquota_*.deb`, and the core integration tests run
# on the root's real slurmctld and slurmd against the installed files
# (GQ_INSTALLED=1).  Ends with a table: release, Slurm, build, tests.
# A release whose Slurm source the mirror does not serve cannot be built
# (no internal headers): "no source" in the table, not a failure.
#
#   matrix.sh [--others] [--quick] [RELEASE...]
#     --others   leave out the release the host runs (`make test` tests
#                that one with the full suite on the host)
#     --quick    the quick start, limits, multi-node and config errors
#                only (`make test`; `make matrix` runs them all)
# Logs: build/matrix/<release>.log.  Exit status: 0 when every build and
# test passed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
roots=$top/build/roots
logs=$top/build/matrix
ALL=(bookworm trixie forky)
TESTS=(test_quick_start test_at_quota_no_reclaim test_weighted_share test_limit
       test_departments test_multinode test_config_errors
       test_grace_time test_patience test_usage test_roomless_order)
QUICK=(test_quick_start test_limit test_multinode test_config_errors)

others=0
releases=()
while (($#)); do
	case $1 in
	--others) others=1; shift ;;
	--quick) TESTS=("${QUICK[@]}"); shift ;;
	-h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) releases+=("$1"); shift ;;
	esac
done
((${#releases[@]})) || releases=("${ALL[@]}")
if ((others)); then
	host=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	kept=()
	for r in "${releases[@]}"; do [[ $r == "$host" ]] || kept+=("$r"); done
	releases=("${kept[@]}")
fi
mkdir -p "$logs"

# The tree (without build/ and .git) into ROOT/gpuquota; the root's own
# build/ (its prepared Slurm headers) is kept, what it built is not.
sync_tree() { # ROOT
	local dst=$1/gpuquota
	mkdir -p "$dst"
	find "$dst" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
	rm -rf "$dst"/build/{obj,deb,matrix} "$dst"/build/*.so "$dst"/build/*.deb "$dst/build/gpuquota"
	tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$dst" -xf -
}

# A root left mounted (interrupted run) is unmounted on the way out.
current=""
trap '[[ -z $current ]] || "$top/scripts/root.sh" umount "$current"' EXIT

declare -A slurm build tests
failed=0 skipped=0 passed=0 nfailed=0
for r in "${releases[@]}"; do
	log=$logs/$r.log
	t0=$SECONDS
	: >"$log"
	slurm[$r]="-"
	build[$r]="FAIL"
	tests[$r]="not run"
	echo "matrix: $r: root" | tee -a "$log"
	if ! "$top/scripts/root.sh" make "$r" >>"$log" 2>&1; then
		echo "matrix: $r: the root could not be made (see $log)"
		failed=1
		continue
	fi
	slurm[$r]=$("$top/scripts/root.sh" slurm "$r")
	sync_tree "$roots/$r"
	current=$r
	"$top/scripts/root.sh" mount "$r"
	echo "matrix: $r: Slurm ${slurm[$r]}: headers, build and package" | tee -a "$log"
	rc=0
	"$top/scripts/root.sh" run "$r" bash -c 'cd /gpuquota && scripts/prepare-slurm.sh' \
		>>"$log" 2>&1 || rc=$?
	if ((rc == 3)); then
		# Without Slurm's source there are no internal headers to build
		# with: said in the table, not counted as a failure of gpuquota.
		build[$r]="no source"
		tests[$r]="not run: the Debian mirror serves no source of this Slurm"
		skipped=$((skipped + ${#TESTS[@]}))
	elif ((rc != 0)); then
		failed=1
	elif "$top/scripts/root.sh" run "$r" bash -c '
		set -e
		cd /gpuquota
		make -j2 all
		make deb
		if dpkg-query -W -f="\${Status}" gpuquota 2>/dev/null | grep -q "ok installed"; then
			apt-get remove -y -qq gpuquota
		fi
		apt-get install -y -qq --no-install-recommends ./build/gpuquota_*.deb
		dpkg -L gpuquota | grep -E "slurm-wlm/.*\.so$|bin/gpuquota$"' >>"$log" 2>&1; then
		build[$r]=ok
		echo "matrix: $r: tests: ${TESTS[*]}" | tee -a "$log"
		"$top/scripts/root.sh" run "$r" env GQ_INSTALLED=1 GQ_ACCOUNTING_TESTS= \
			bash /gpuquota/tests/integration/run.sh "${TESTS[@]}" >>"$log" 2>&1
		n=$(grep -c '^== ' "$log")
		bad=$(grep -oE ': FAILED: .*' "$log" | wc -w)
		((bad > 0)) && bad=$((bad - 2))	# ": FAILED:" itself
		tests[$r]="$((n - bad)) passed, $bad failed"
		passed=$((passed + n - bad))
		nfailed=$((nfailed + bad))
		((bad == 0)) || failed=1
	else
		failed=1
	fi
	"$top/scripts/root.sh" umount "$r"
	current=""
	echo "matrix: $r: done in $((SECONDS - t0))s" | tee -a "$log"
done

echo
printf '%-10s %-22s %-9s %s\n' release slurm build tests
for r in "${releases[@]}"; do
	printf '%-10s %-22s %-9s %s\n' "$r" "${slurm[$r]}" "${build[$r]}" "${tests[$r]}"
done
if ((skipped)); then
	echo "matrix: a release was not built (no source): its tests count as skipped"
	echo "matrix: $passed passed, $nfailed failed, $skipped skipped"
else
	echo "matrix: $passed passed, $nfailed failed"
fi
exit $failed
