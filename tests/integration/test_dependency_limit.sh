#!/usr/bin/env bash
# gpu_limit holds for a job that waits on a dependency: when the job it
# waits for ends, Slurm's scheduler runs at once and would start it before
# gpuquota's next pass; so gpuquota holds it in advance when it would pass
# its project's limit.
# 1 node x 4 GPUs.  team-a (quota 1, limit 2) runs a1 and a2 (1 GPU each);
# team-b runs b1 (1 GPU, ends after a few seconds).  team-a's k (1 GPU)
# waits on b1 (afterany).  When b1 ends, 2 GPUs are idle: k must wait
# (team-a would hold 3 > 2) and team-a holds 2; once a1 is cancelled, k
# starts; it must not start when b1 ends (team-a would hold 3).
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 1, "gpu_limit": 2},
                          {"name": "team-b", "gpu_quota": 2}]}' \
	--nodes 1 --gpus 4

a1=$(submit a1 team-a 1)
a2=$(submit a2 team-a 1)
wait_state "$a1" RUNNING
wait_state "$a2" RUNNING
b1=$(sl sbatch --parsable -J b1 -A team-b --gres=gpu:1 --wrap 'sleep 8')
wait_state "$b1" RUNNING
k=$(submit k team-a 1 --dependency="afterany:$b1")
settle 4
expect_state "$k" PENDING
# b1 ends: its dependency clears
_wait_eq 30 "" state "$b1" || fail "b1 ($b1) did not end"
for i in 1 2 3 4 5 6 7 8; do
	[[ $(state "$k") == PENDING ]] \
		|| fail "k ($k) is $(state "$k") after b1 ended: team-a holds $(held_gpus team-a), limit 2"
	sleep 1
done
[[ $(held_gpus team-a) == 2 ]] || fail "team-a holds $(held_gpus team-a), limit 2"
expect_limit_wait "$k" team-a 2 k
sl scancel "$a1"
wait_state "$k" RUNNING 20
[[ $(held_gpus team-a) == 2 ]] || fail "team-a holds $(held_gpus team-a) after k started"
check_invariant 15
pass
