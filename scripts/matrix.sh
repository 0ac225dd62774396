#!/usr/bin/env bash
# Owns `make matrix`: gpuquota built and tested against each supported
# Slurm release, one row each:
#   22.05  Debian bookworm's slurm-wlm, in a cached Debian root
#   23.11  SchedMD's 23.11.4 (Ubuntu 24.04's), built from source
#   24.11  Debian trixie's slurm-wlm, in a cached Debian root
#   25.05, 25.11, 26.05  SchedMD's 25.05.8, 25.11.7, 26.05.3, from source
#   (forky: Debian's 26.05.5 in a root, only when named; its source is not
#   served, so it is "no source")
# In a root (scripts/root.sh): this tree copied in, Slurm's headers prepared
# (scripts/prepare-slurm.sh), `make all`, `make deb`, the package installed
# with `apt-get install ./gpuquota_*.deb`, the tests run on the root's real
# slurmctld and slurmd against the installed files (GQ_INSTALLED=1).
# A source release runs on the host: Slurm built once into
# build/slurm-V/install (scripts/slurm-build.sh V, cached), gpuquota built
# against its headers and libslurm (build/v-V) and installed with `make
# install` into build/v-V/installed, the tests run on its daemons against
# the installed files (tests/integration/run.sh with GQ_SLURM_PREFIX).
# Ends with a table: release, from, Slurm, built, tests, minutes.
#
#   matrix.sh [--others] [--quick] [RELEASE...]
#     RELEASE    22.05 23.11 24.11 25.05 25.11 26.05 (default: all), or a
#                Debian codename (bookworm, trixie, forky)
#     --others   leave out the release the host runs (`make test` tests
#                that one with the full suite on the host)
#     --quick    the quick start, limits, multi-node and config errors
#                only (`make matrix` runs them all)
# Logs: build/matrix/<release>.log.  Exit status: 0 when every build and
# test passed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
roots=$top/build/roots
logs=$top/build/matrix
ALL=(22.05 23.11 24.11 25.05 25.11 26.05)
# Where each release comes from: a Debian codename (a root) or the version
# of a SchedMD tarball in SLURM_SRC_DIR (scripts/slurm-build.sh).
declare -A ORIGIN=([22.05]=bookworm [23.11]=23.11.4 [24.11]=trixie
		   [25.05]=25.05.8 [25.11]=25.11.7 [26.05]=26.05.3)
# Releases whose list runs in accounting mode (slurmdbd and MariaDB, as
# every site of that release runs): without slurmdbd, 23.11.4's main
# scheduler refuses each job it considers ("has invalid account",
# assoc_mgr_validate_assoc_id in job_scheduler.c), so a waiting job's
# reason is InvalidAccount, not gpuquota's text.
declare -A ACCOUNTING=([23.11]=1)
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
	-h | --help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	bookworm) releases+=(22.05); shift ;;
	trixie) releases+=(24.11); shift ;;
	forky | sid) ORIGIN[26.05-debian]=$1; releases+=(26.05-debian); shift ;;
	*)
		[[ -n ${ORIGIN[$1]:-} ]] || { echo "matrix: unknown release '$1' (${ALL[*]}, bookworm, trixie, forky)" >&2; exit 2; }
		releases+=("$1"); shift ;;
	esac
done
((${#releases[@]})) || releases=("${ALL[@]}")
if ((others)); then
	host=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	kept=()
	for r in "${releases[@]}"; do [[ ${ORIGIN[$r]} == "$host" ]] || kept+=("$r"); done
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

declare -A slurm build tests from minutes
failed=0 skipped=0 passed=0 nfailed=0

# count_tests LOG: the rows's "P/T passed" from run.sh's output (a "== NAME"
# line per test run, "integration: FAILED: NAME... (whole output: DIR)")
count_tests() { # ROW LOG
	local n bad
	n=$(grep -E '^== ' "$2" | grep -vc '^== the last lines of ')
	bad=$(sed -n 's/^integration: FAILED: \(.*\) (whole output: .*/\1/p' "$2" | wc -w)
	tests[$1]="$((n - bad))/$n passed"
	((bad == 0)) || tests[$1]+=" (failed: $(sed -n 's/^integration: FAILED: \(.*\) (whole output: .*/\1/p' "$2"))"
	passed=$((passed + n - bad))
	nfailed=$((nfailed + bad))
	((bad == 0)) || failed=1
}

# A Debian release in its root: the package built and installed there.
run_root() { # ROW CODENAME LOG
	local r=$1 c=$2 log=$3 rc=0
	from[$r]="Debian $c root"
	echo "matrix: $r: root $c" | tee -a "$log"
	if ! "$top/scripts/root.sh" make "$c" >>"$log" 2>&1; then
		echo "matrix: $r: the root could not be made (see $log)"
		failed=1
		return
	fi
	slurm[$r]=$("$top/scripts/root.sh" slurm "$c")
	sync_tree "$roots/$c"
	current=$c
	"$top/scripts/root.sh" mount "$c"
	echo "matrix: $r: Slurm ${slurm[$r]}: headers, build and package" | tee -a "$log"
	"$top/scripts/root.sh" run "$c" bash -c 'cd /gpuquota && scripts/prepare-slurm.sh' \
		>>"$log" 2>&1 || rc=$?
	if ((rc == 3)); then
		# Without Slurm's source there are no internal headers to build
		# with: said in the table, not counted as a failure of gpuquota.
		build[$r]="no source"
		tests[$r]="not run: the Debian mirror serves no source of this Slurm"
		skipped=$((skipped + ${#TESTS[@]}))
	elif ((rc != 0)); then
		failed=1
	elif "$top/scripts/root.sh" run "$c" bash -c '
		set -e
		cd /gpuquota
		make -j2 all
		make deb
		if dpkg-query -W -f="\${Status}" gpuquota 2>/dev/null | grep -q "ok installed"; then
			apt-get remove -y -qq gpuquota
		fi
		apt-get install -y -qq --no-install-recommends ./build/gpuquota_*.deb
		dpkg -L gpuquota | grep -E "slurm-wlm/.*\.so$|bin/gpuquota$"' >>"$log" 2>&1; then
		build[$r]=yes
		echo "matrix: $r: tests: ${TESTS[*]}" | tee -a "$log"
		"$top/scripts/root.sh" run "$c" env GQ_INSTALLED=1 GQ_ACCOUNTING_TESTS= \
			bash /gpuquota/tests/integration/run.sh "${TESTS[@]}" >>"$log" 2>&1
		count_tests "$r" "$log"
	else
		failed=1
	fi
	"$top/scripts/root.sh" umount "$c"
	current=""
}

# A SchedMD release on the host: Slurm built once (cached), gpuquota
# against it and installed as an admin would (`make install` into a staging
# root, build/v-V/installed: the plugins in PLUGINDIR, the command in
# PREFIX/bin), the tests on its daemons against the installed files.
run_source() { # ROW VERSION LOG
	local r=$1 v=$2 log=$3 prefix=$top/build/slurm-$2/install
	local dest=$top/build/v-$2/installed plugindir=/usr/lib/slurm-gpuquota
	from[$r]="SchedMD source"
	slurm[$r]=$v
	echo "matrix: $r: Slurm $v from source (scripts/slurm-build.sh, cached)" | tee -a "$log"
	rm -rf "$dest"
	if ! "$top/scripts/slurm-build.sh" "$v" >>"$log" 2>&1 ||
		! make -C "$top" -j2 SLURM_VERSION="$v" SLURM_PREFIX="$prefix" all >>"$log" 2>&1 ||
		! make -C "$top" SLURM_VERSION="$v" SLURM_PREFIX="$prefix" DESTDIR="$dest" \
			PLUGINDIR="$plugindir" PREFIX=/usr install >>"$log" 2>&1; then
		echo "matrix: $r: build failed (see $log)"
		failed=1
		return
	fi
	build[$r]=yes
	echo "matrix: $r: tests: ${TESTS[*]} (installed files in $dest${ACCOUNTING[$r]:+; accounting mode})" | tee -a "$log"
	GQ_ACCOUNTING=${ACCOUNTING[$r]:-0} GQ_SLURM_PREFIX=$prefix GQ_ACCOUNTING_TESTS='' GQ_PLUGINDIR=$dest$plugindir \
		GQ_GPUQUOTA=$dest/usr/bin/gpuquota \
		"$top/tests/integration/run.sh" "${TESTS[@]}" >>"$log" 2>&1
	count_tests "$r" "$log"
}

for r in "${releases[@]}"; do
	log=$logs/$r.log
	t0=$SECONDS
	: >"$log"
	slurm[$r]="-"
	build[$r]="no"
	tests[$r]="not run"
	o=${ORIGIN[$r]}
	if [[ $o == [0-9]* ]]; then
		run_source "$r" "$o" "$log"
	else
		run_root "$r" "$o" "$log"
	fi
	minutes[$r]=$(awk -v s=$((SECONDS - t0)) 'BEGIN { printf "%.1f", s / 60 }')
	echo "matrix: $r: done in $((SECONDS - t0))s" | tee -a "$log"
done

echo
fmt='%-13s %-20s %-22s %-9s %-8s %s\n'
printf "$fmt" release from slurm built minutes tests
for r in "${releases[@]}"; do
	printf "$fmt" "$r" "${from[$r]}" "${slurm[$r]}" "${build[$r]}" "${minutes[$r]}" "${tests[$r]}"
done
if ((skipped)); then
	echo "matrix: a release was not built (no source): its tests count as skipped"
	echo "matrix: $passed passed, $nfailed failed, $skipped skipped"
else
	echo "matrix: $passed passed, $nfailed failed"
fi
exit $failed
