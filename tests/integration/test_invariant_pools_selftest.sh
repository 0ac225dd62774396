#!/usr/bin/env bash
# The invariant checker (invariant.sh) pool by pool, as the soak runs it
# with GQ_SOAK_POOLS=1: with Slurm's preempt/none, team-b's in-quota job
# in pool a100 waits behind team-a's over-quota jobs there, and the check
# of pool a100 fires; pool h100, where team-b is under its quota too but
# has nothing pending, and whose nodes team-a does not use, stays clean.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

printf '%s\n' '{"pools": [{"name": "a100", "partitions": ["a100"]},
                          {"name": "h100", "partitions": ["h100"]}],
                "projects": [{"name": "team-a", "gpu_quota": 0},
                             {"name": "team-b", "gpu_quota": 2}]}' >"$DIR/gpuquota.in.json"
"$CLUSTER" up --dir "$DIR" "${PLUGIN_OPTS[@]}" \
	--gpuquota-json "$DIR/gpuquota.in.json" --nodes 2 --gpus 2 \
	--conf-extra "PartitionName=a100 Nodes=n1 MaxTime=INFINITE State=UP" \
	--conf-extra "PartitionName=h100 Nodes=n2 MaxTime=INFINITE State=UP" \
	--conf-extra PriorityType=priority/gpuquota \
	--conf-extra JobSubmitPlugins=gpuquota \
	--conf-extra PreemptType=preempt/none \
	--conf-extra PreemptMode=OFF >/dev/null

a1=$(submit a1 team-a 1 -p a100); a2=$(submit a2 team-a 1 -p a100)
wait_state "$a1" RUNNING; wait_state "$a2" RUNNING
b1=$(submit b1 team-b 1 -p a100)
settle 4
expect_state "$b1" PENDING
v=$(invariant_violation a100 a100)
[[ $v == *"project team-b in pool a100 holds 0 GPUs, below its floor 1"* ]] \
	|| fail "the check of pool a100 missed team-b under its floor: '$v'"
v=$(invariant_violation h100 h100)
[[ -z $v ]] || fail "the check of pool h100 fired: '$v'"
pass
