#!/usr/bin/env bash
# A reclaim for a job array ends when its task starts.  Slurm preempts
# for an array's next task under the array's pending record, then starts
# the task under a new job id while that record stays pending with the
# other tasks (docs/MODEL.md, "Arrays").  Work outside quotas waits for a
# reclaim in flight only until its preemptor starts: here, the task.
# 2 nodes x 3 GPUs, team-a, team-b, team-c at quota 2.  team-c runs c1 on
# n2; team-a runs a1-a3 on n1, a4, a5 on n2 (3 over its quota) and a6
# waits.  team-b submits --array=1-3%2 of 1 GPU: a5 and a4 are requeued
# and tasks 1 and 2 run on n2, task 3 waits for the user's throttle.
# Then c1 ends: its GPU on n2 goes to a6 at once, not after the reclaim's
# GQ_RECLAIM_WAIT (30 s) while the array's record stays pending.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2},
                          {"name": "team-c", "gpu_quota": 2}]}' --gpus 3

c1=$(submit c1 team-c 1 -w n2)
wait_state "$c1" RUNNING
declare -a a
for i in 1 2 3 4 5; do
	node=n1
	((i > 3)) && node=n2
	a[i]=$(submit "a$i" team-a 1 -w "$node")
	wait_state "${a[i]}" RUNNING
done
a6=$(submit a6 team-a 1)
arr=$(sl sbatch --parsable -J arr -A team-b --gres=gpu:1 --array=1-3%2 \
	--wrap 'sleep 3600')
_wait_eq 30 2 held_gpus team-b || fail "team-b holds $(held_gpus team-b), want 2"
for i in 4 5; do
	[[ $(restarts "${a[i]}") == 1 ]] || fail "a$i not requeued for $arr"
done
tasks=$(sl squeue -h -r -t R -j "$arr" -o %N | sort -u)
[[ $tasks == n2 ]] || fail "tasks of $arr run on '$tasks', want n2"
grep -q "gpuquota: hold JobId=$a6.*being reclaimed for job $arr" \
	"$DIR/log/slurmctld.log" || fail "a6 never waited for the array's reclaim"
[[ $(sl squeue -h -r -t PD -j "$arr" | wc -l) == 1 ]] \
	|| fail "task 3 of $arr not pending"

sl scancel "$c1"
wait_state "$a6" RUNNING 10
[[ $(sl squeue -h -j "$a6" -o %N) == n2 ]] || fail "a6 not on n2"
check_invariant 10
pass
