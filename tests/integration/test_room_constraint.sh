#!/usr/bin/env bash
# Room is made where the preemptor can run: team-b's 2-GPU job asks for
# the feature "ib", which only n2 has, so gpuquota frees n2 (x2 and x4),
# not n1, although freeing n1 would do for a job without the constraint
# (n1 comes first among equally full nodes).  team-a ends at its quota on
# n1; nothing else is requeued.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'
sl scontrol update nodename=n2 availablefeatures=ib activefeatures=ib \
	|| fail "could not give n2 the feature ib"

# team-a: x1 n1, x2 n2, x3 n1, x4 n2: 4 GPUs, 2 over its quota
x1=$(submit x1 team-a 1 -w n1); wait_state "$x1" RUNNING
x2=$(submit x2 team-a 1 -w n2); wait_state "$x2" RUNNING
x3=$(submit x3 team-a 1 -w n1); wait_state "$x3" RUNNING
x4=$(submit x4 team-a 1 -w n2); wait_state "$x4" RUNNING

# team-b, under quota: 2 GPUs on one node with the feature ib
b1=$(submit b1 team-b 2 --constraint=ib)
wait_state "$b1" RUNNING 40
settle 3
[[ $(sl squeue -h -j "$b1" -o %N) == n2 ]] || fail "b1 runs on $(sl squeue -h -j "$b1" -o %N), want n2"
for j in "$x1" "$x3"; do expect_state "$j" RUNNING; done
for j in "$x2" "$x4"; do expect_state "$j" PENDING; done
for j in "$x1" "$x3"; do
	[[ $(restarts "$j") == 0 ]] || fail "job $j on n1 was requeued"
done
[[ $(held_gpus team-a) == 2 && $(held_gpus team-b) == 2 ]] \
	|| fail "team-a holds $(held_gpus team-a), team-b $(held_gpus team-b), want 2 and 2"
check_invariant 15
pass
