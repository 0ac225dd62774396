#!/usr/bin/env bash
# Owns the smoke test of scripts/cluster.sh: a stock-plugin cluster in a temp
# dir runs two 1-GPU jobs, then `down` leaves no daemon or job process behind.
# Usage: tests/integration/cluster_smoke.sh   (as root; KEEP=1 keeps the dir)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER=$ROOT/scripts/cluster.sh
DIR=$(mktemp -d "${TMPDIR:-/tmp}/gq-smoke.XXXXXX")
ok=0

cleanup() {
	"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true
	if [[ $ok == 1 && -z ${KEEP:-} ]]; then
		rm -rf "$DIR"
	else
		echo "smoke: work dir kept: $DIR" >&2
	fi
}
trap cleanup EXIT

fail() {
	echo "smoke: FAIL: $*" >&2
	[[ -f $DIR/log/slurmctld.log ]] && tail -n 20 "$DIR/log/slurmctld.log" >&2
	exit 1
}

# Client commands run with SLURM_CONF from DIR/env, in a subshell, so this
# shell's own environment stays clean for the leftover check at the end.
# shellcheck source=/dev/null
sl() { (. "$DIR/env" && cd "$DIR" && "$@"); }

"$CLUSTER" up --dir "$DIR"

j1=$(sl sbatch --parsable -A team-a --gres=gpu:1 --wrap 'sleep 30')
j2=$(sl sbatch --parsable -A team-a --gres=gpu:1 --wrap 'sleep 30')
echo "smoke: submitted $j1 $j2"

running=0
for _ in $(seq 1 40); do
	running=$(sl squeue -h -j "$j1,$j2" -t RUNNING -o %i | wc -l)
	[[ $running == 2 ]] && break
	sleep 0.5
done
sl squeue
[[ $running == 2 ]] || fail "expected 2 running jobs, got $running"

for j in "$j1" "$j2"; do
	# -d prints the per-node allocation: "GRES=gpu:1(IDX:n)".
	alloc=$(sl scontrol -d show job "$j" | grep -oE 'GRES=gpu[^ ]*\(IDX:[^)]*\)' || true)
	[[ $alloc =~ ^GRES=gpu(:[a-z0-9_]+)?:1\(IDX:[0-9]+\)$ ]] \
		|| fail "job $j: no GPU allocated ($(sl scontrol -d show job "$j" | grep -i gres))"
	echo "smoke: job $j allocated $alloc"
done

pids=$(cat "$DIR"/pids/*.pid)
[[ -n $pids ]] || fail "no pid files"
"$CLUSTER" down --dir "$DIR"
for p in $pids; do
	# A zombie (exited, not yet reaped by pid 1) is not alive.
	st=$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null || true)
	[[ -z $st || $st == Z ]] || fail "daemon pid $p still alive after down (state $st)"
done
# Daemons, slurmstepd and job processes all carry SLURM_CONF=DIR/slurm.conf.
left=$(grep -lzFx "SLURM_CONF=$DIR/slurm.conf" /proc/[0-9]*/environ 2>/dev/null || true)
[[ -z $left ]] || fail "processes left after down: $left"
ls "$DIR"/pids/*.pid >/dev/null 2>&1 && fail "pid files left after down"

ok=1
echo "smoke: PASS"
