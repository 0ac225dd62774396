#!/usr/bin/env bash
# A project already at its quota submits again into a full cluster: its job
# waits and nothing is preempted.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'

a1=$(submit a1 team-a 2); wait_state "$a1" RUNNING
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
b2=$(submit b2 team-b 1); wait_state "$b2" RUNNING
a2=$(submit a2 team-a 1)
settle 8	# several gpuquota and scheduler passes
expect_state "$a2" PENDING
for j in "$a1" "$b1" "$b2"; do
	expect_state "$j" RUNNING
	[[ $(restarts "$j") == 0 ]] || fail "job $j was requeued"
done
[[ $(held_gpus team-a) == 2 && $(held_gpus team-b) == 2 ]] \
	|| fail "allocation changed"
check_invariant 15
pass
