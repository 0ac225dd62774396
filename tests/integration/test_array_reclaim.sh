#!/usr/bin/env bash
# An array wider than what is left of its project's quota, submitted into a
# full cluster: gpuquota splits it at its band (docs/MODEL.md, "Arrays"),
# throttles it to its in-quota tasks, and those reclaim.  2 nodes x 2
# GPUs, team-a and team-b at quota 2; team-a runs 4 x 1 GPU (2 over its
# quota); team-b submits --array=1-3 of 1 GPU, no %N.  Before the split
# the array was banded by all 3 tasks (A = 3 > f = 2: over fair share) and
# waited forever behind team-a's borrowed GPUs.  Now 2 of team-a's jobs
# are requeued, 2 tasks run, the third waits (over quota, nothing idle),
# and the user's throttle (none) comes back.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'

declare -a a
for i in 1 2 3 4; do
	a[i]=$(submit "a$i" team-a 1)
	wait_state "${a[i]}" RUNNING
done
[[ $(held_gpus team-a) == 4 ]] || fail "team-a holds $(held_gpus team-a), want 4"

arr=$(sl sbatch --parsable -J arr -A team-b --gres=gpu:1 --array=1-3 \
	--wrap 'sleep 3600')
_wait_eq 40 2 held_gpus team-b || fail "team-b holds $(held_gpus team-b), want 2 (array not split?)"
settle 6
[[ $(held_gpus team-b) == 2 ]] || fail "team-b holds $(held_gpus team-b), want 2"
[[ $(held_gpus team-a) == 2 ]] || fail "team-a holds $(held_gpus team-a), want 2"
requeued=0
for i in 1 2 3 4; do
	r=$(restarts "${a[i]}")
	[[ $r -le 1 ]] || fail "a$i requeued $r times"
	requeued=$((requeued + r))
done
[[ $requeued == 2 ]] || fail "$requeued of team-a's jobs requeued, want 2"
# the later of team-a's jobs were reclaimed (newest first), a1 and a2 kept
expect_state "${a[1]}" RUNNING
expect_state "${a[2]}" RUNNING
grep -q "JobId=$arr.*more tasks may start before the next pass (array throttle 2, the user's 0)" \
	"$DIR/log/slurmctld.log" || fail "no split throttle line for $arr in slurmctld.log"
pending=$(sl squeue -h -r -t PD -j "$arr" -o %i | wc -l)
[[ $pending == 1 ]] || fail "$pending tasks of $arr pending, want 1"
# the third task is over quota with nothing idle: no split, the user's %N
# (none: scontrol shows no ArrayTaskThrottle); the last task of an array
# is no longer throttled (gpuquota's %2 with 2 running would keep it
# from starting when GPUs come free)
throttle() { sl scontrol show job "$arr" | grep -oE 'ArrayTaskThrottle=[0-9]+' | sort -u | tr '\n' ' '; }
_wait_eq 20 "" throttle \
	|| fail "array throttle not back to the user's: $(throttle)"
# once its in-quota tasks run, the array's last task is over quota: the
# GPUs are no longer kept for it (team-a's requeued jobs, eligible again
# after Slurm's requeue delay, are not held for it; before, they were, for
# up to 30 s, while the array record stayed pending)
eligible() { sl squeue -h -A team-a -t PD -o %r | grep -c BeginTime; }
_wait_eq 40 0 eligible || fail "team-a's requeued jobs still wait for their begin time"
settle 4
reasons=$(sl squeue -h -A team-a -t PD -o %r)
[[ $reasons != *"being reclaimed for job $arr"* ]] \
	|| fail "work outside quota held for $arr after its tasks started: $reasons"
check_invariant 10
pass
