#!/usr/bin/env bash
# A floor holds when a job ends between passes and Slurm does not tell
# gpuquota (no AccountingStorageEnforce=limits: priority_p_job_end is not
# called), and Slurm's scheduler, run by that end, preempts at once from
# the candidates of the last pass.
# 2 nodes x 2 GPUs, no slurmdbd, a pass every 30 s.  team-a (quota 2)
# runs a1, a2 on n1 and a3, a4 on n2 (1 GPU each; a1 holds the one
# license and ends after a few seconds).  team-b (quota 2) pends b1 (2 GPUs
# on one node, the license): in quota, it cannot start before a1 ends.
# The pass offers a4 and a3 (team-a may lose 2).  a1 ends: team-a holds
# 3 and may lose 1: were a3 and a4 both still candidates, Slurm would
# requeue them for b1 (n1 has a2 and one idle GPU), leaving team-a 1 < 2.
# team-a never holds less than 2, and b1 runs (on n1, in place of a2,
# after the next pass).
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}],
             "settings": {"recompute_interval": 30}}' \
	--nodes 2 --gpus 2 --conf-extra Licenses=lic:1

a1=$(sl sbatch --parsable -J a1 -A team-a --gres=gpu:1 -w n1 -L lic:1 --wrap 'sleep 12')
wait_state "$a1" RUNNING
a2=$(submit a2 team-a 1 -w n1); wait_state "$a2" RUNNING
a3=$(submit a3 team-a 1 -w n2); wait_state "$a3" RUNNING
a4=$(submit a4 team-a 1 -w n2); wait_state "$a4" RUNNING
b1=$(submit b1 team-b 2 -N 1 -L lic:1)
settle 3
expect_state "$b1" PENDING
_wait_eq 30 "" state "$a1" || fail "a1 ($a1) did not end"
# Slurm's scheduler runs at once on a1's end; the next pass is up to 30 s
# away: for 8 s team-a must keep its quota
for i in $(seq 1 16); do
	h=$(held_gpus team-a)
	((h >= 2)) || fail "team-a holds $h < its quota 2 after a1 ended (b1 $(state "$b1"); a3 $(state "$a3"), a4 $(state "$a4"))"
	sleep 0.5
done
wait_state "$b1" RUNNING 60
h=$(held_gpus team-a)
((h >= 2)) || fail "team-a holds $h < its quota 2 once b1 runs"
check_invariant 10
pass
