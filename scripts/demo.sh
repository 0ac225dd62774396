#!/usr/bin/env bash
# Owns `make demo`: the quick start of docs/MODEL.md on a local cluster of
# 2 nodes x 2 GPUs, team-a and team-b at quota 2.  Submits a1, a2, b1, shows
# the workload and project tables, submits b2, shows them again (a1 reclaimed
# and pending; a2, b1, b2 running), then stops the cluster.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/gpuquota-demo.XXXXXX")}
G=$ROOT/build/gpuquota

trap '"$ROOT/scripts/cluster.sh" down --dir "$DIR" >/dev/null 2>&1 || true' EXIT

cat >"$DIR/demo.json" <<'JSON'
{"projects": [{"name": "team-a", "gpu_quota": 2},
              {"name": "team-b", "gpu_quota": 2}]}
JSON
echo "== starting a local Slurm cluster: 2 nodes x 2 GPUs (work dir $DIR)"
"$ROOT/scripts/cluster.sh" up --dir "$DIR" --nodes 2 --gpus 2 \
	--plugindir "$ROOT/build" --gpuquota-json "$DIR/demo.json" \
	--conf-extra PriorityType=priority/gpuquota \
	--conf-extra PreemptType=preempt/gpuquota \
	--conf-extra JobSubmitPlugins=gpuquota \
	--conf-extra PreemptMode=REQUEUE >/dev/null 2>"$DIR/up.log" \
	|| { cat "$DIR/up.log" >&2; exit 1; }
# shellcheck source=/dev/null
. "$DIR/env"
cd "$DIR"

submit() { # NAME ACCOUNT GPUS
	echo "\$ sbatch -J $1 -A $2 --gres=gpu:$3 --wrap 'sleep 3600'"
	sbatch --parsable -J "$1" -A "$2" --gres="gpu:$3" --wrap 'sleep 3600' >/dev/null
}

wait_running() { # NAME...: until each named job runs (20 s at most)
	local n i
	for n in "$@"; do
		for ((i = 0; i < 80; i++)); do
			[[ $(squeue -h -n "$n" -t RUNNING -o %i | wc -l) -ge 1 ]] && break
			sleep 0.25
		done
	done
}

tables() {
	echo
	echo "Workloads:"
	"$G" jobs | sed 's/^/  /'
	echo
	echo "Projects:"
	"$G" projects | sed 's/^/  /'
	echo
}

submit a1 team-a 1; wait_running a1
submit a2 team-a 2; wait_running a2
submit b1 team-b 1; wait_running b1
sleep 3
echo
echo "== team-a holds 3 GPUs, one over its quota of 2: idle GPUs may be used."
tables

submit b2 team-b 1; wait_running b2
sleep 3
echo
echo "== team-b is under its quota, so Slurm requeued a1 (not a2: that would"
echo "   leave team-a below its quota). a1 waits; a2, b1, b2 run."
tables
echo "squeue (a1 waits out Slurm's requeue delay, BeginTime; its comment says why it was requeued):"
squeue -O 'jobid:7,name:5,account:8,state:9,reason:11,system_comment:52' | sed 's/^/  /'
echo
echo "== stopping the cluster"
