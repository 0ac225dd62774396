#!/usr/bin/env bash
# Room that can be made is made: on a fragmented cluster the usual victims
# (youngest first) would free one GPU on each node, useless to a 2-GPU
# preemptor; gpuquota picks victims on one node instead, within the floors.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'

# team-a: x1 n1, x2 n2, x3 n1, x4 n2 (x4 youngest): 4 GPUs, 2 over quota
x1=$(submit x1 team-a 1 -w n1); wait_state "$x1" RUNNING
x2=$(submit x2 team-a 1 -w n2); wait_state "$x2" RUNNING
x3=$(submit x3 team-a 1 -w n1); wait_state "$x3" RUNNING
x4=$(submit x4 team-a 1 -w n2); wait_state "$x4" RUNNING

# team-b, under quota, needs 2 GPUs on one node
b1=$(submit b1 team-b 2)
wait_state "$b1" RUNNING 40
settle 3
[[ $(held_gpus team-a) == 2 ]] || fail "team-a holds $(held_gpus team-a), want its quota 2"
[[ $(held_gpus team-b) == 2 ]] || fail "team-b holds $(held_gpus team-b), want 2"
# the two team-a survivors share the node b1 did not take
node=$(sl squeue -h -j "$b1" -o %N)
requeued=0
for j in "$x1" "$x2" "$x3" "$x4"; do
	if [[ $(state "$j") == RUNNING ]]; then
		[[ $(sl squeue -h -j "$j" -o %N) != "$node" ]] || fail "job $j still on $node"
	else
		requeued=$((requeued + 1))
	fi
done
[[ $requeued == 2 ]] || fail "$requeued team-a jobs requeued, want exactly 2"
check_invariant 15
pass
