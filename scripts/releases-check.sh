#!/usr/bin/env bash
# Owns the CI check of the Slurm releases the host does not run (`make
# releases-check`, part of `make test`): for each release V of RELEASES
# (default: every slurm-V.tar.xz of SLURM_SRC_DIR, by default the cache
# build/slurm-src: SchedMD's tarballs are not fetched, an admin or CI puts
# them there), its checksum checked against scripts/slurm-releases.sha256,
# Slurm's source configured for its headers (scripts/prepare-slurm.sh --source into build/slurm-V; no make of
# Slurm), then gpuquota's three plugins built against them with -Werror
# into build/v-V and the command's sources compiled against its public
# slurm.h (not linked: no libslurm of V is built).  One configure cache
# (build/releases-config.cache, filled by the first) serves every release;
# after the first, two releases are checked at a time (nice).
# Log: build/releases-check.log.  Exit status 0 when every release built.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# the releases' source: SLURM_SRC_DIR, else the cache in the checkout
srcdir=${SLURM_SRC_DIR:-$top/build/slurm-src}
if [[ ! -d $srcdir ]]; then
	# a machine without the releases' source: nothing to check, said
	# loudly (SLURM_SRC_DIR=DIR names one)
	echo "releases-check: NOT RUN: no Slurm source directory $srcdir (SLURM_SRC_DIR=DIR names one)" >&2
	exit 0
fi
log=$top/build/releases-check.log
mkdir -p "$top/build"
: >"$log"
if [[ -n ${RELEASES:-} ]]; then
	read -ra rel <<<"$RELEASES"
else
	mapfile -t rel < <(cd "$srcdir" 2>/dev/null && ls slurm-*.tar.xz | sed 's/^slurm-//; s/\.tar\.xz$//' | sort -V)
fi
((${#rel[@]})) || { echo "releases-check: no slurm-V.tar.xz in $srcdir" >&2; exit 1; }

cache=$top/build/releases-config.cache

# check V: configure (a copy of the shared cache: configures running at the
# same time do not write one file) and build; its output in build/v-V.check
check() { # VERSION
	local v=$1 t0=$SECONDS tarball=$srcdir/slurm-$1.tar.xz want out=$top/build/v-$1.check
	want=$(awk -v f="slurm-$v.tar.xz" '$2 == f { print $1 }' "$top/scripts/slurm-releases.sha256" 2>/dev/null)
	if [[ -z $want || $(sha256sum "$tarball" 2>/dev/null | cut -d' ' -f1) != "$want" ]]; then
		echo "releases-check: $v: $tarball missing or its checksum differs from scripts/slurm-releases.sha256" >"$out"
		return 1
	fi
	[[ -f $cache ]] && cp "$cache" "$cache.$v"
	if SLURM_PREP_DIR=$top/build/slurm-$v SLURM_CONFIGURE_FLAGS="--cache-file=$cache.$v ${SLURM_CONFIGURE_FLAGS:-}" \
		nice "$top/scripts/prepare-slurm.sh" --source "$tarball" >"$out" 2>&1 &&
		nice make -C "$top" SLURM_VERSION="$v" build/v-$v/priority_gpuquota.so \
			build/v-$v/preempt_gpuquota.so build/v-$v/job_submit_gpuquota.so cli-objs >>"$out" 2>&1; then
		echo "releases-check: $v: plugins and command ok ($((SECONDS - t0)) s)" >>"$out"
	else
		echo "releases-check: $v: FAILED ($((SECONDS - t0)) s)" >>"$out"
		return 1
	fi
}

# The first alone (it fills the configure cache), then two at a time; each
# says how it went in the last line of its build/v-V.check.
for v in "${rel[@]}"; do
	if [[ $v == "${rel[0]}" ]]; then
		check "$v"
		[[ -f $cache.$v ]] && cp "$cache.$v" "$cache"
		continue
	fi
	while (($(jobs -rp | wc -l) >= 2)); do wait -n || true; done
	check "$v" &
done
wait
failed=()
for v in "${rel[@]}"; do
	tail -n 1 "$top/build/v-$v.check" | tee -a "$log"
	tail -n 1 "$top/build/v-$v.check" | grep -q ': plugins and command ok ' || failed+=("$v")
done
for v in "${rel[@]}"; do
	cat "$top/build/v-$v.check" >>"$log"
	rm -f "$cache.$v"
done
if ((${#failed[@]})); then
	echo "releases-check: FAILED: ${failed[*]} (see $log)"
	exit 1
fi
echo "releases-check: ${rel[*]}: ok"
