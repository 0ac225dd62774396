#!/usr/bin/env bash
# An array job under gpu_limit: Slurm starts several tasks of one array in
# one scheduling cycle, so gpuquota throttles the array (%N) to the tasks
# that fit; the project never holds more than its limit, the array's tasks
# run as room frees, and the user's own %N comes back when the limit no
# longer binds.  Without the throttle all 3 tasks (the user's %3) start.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 1, "gpu_limit": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'

arr=$(sl sbatch --parsable -J arr -A team-a --gres=gpu:1 --array=1-4%3 \
	--wrap 'sleep 3600')
# two tasks run, and no more, for several passes
_wait_eq 30 2 held_gpus team-a || fail "team-a holds $(held_gpus team-a), want 2"
for _ in 1 2 3 4 5 6; do
	[[ $(held_gpus team-a) -le 2 ]] || fail "team-a holds $(held_gpus team-a) > gpu_limit 2"
	sleep 1
done
[[ $(held_gpus team-a) == 2 ]] || fail "team-a holds $(held_gpus team-a), want 2"
grep -q "array throttle 2, the user's 3" "$DIR/log/slurmctld.log" \
	|| fail "no throttle line in slurmctld.log"
# the pending rest of the array is held by the limit, with the user's %3
meta=$(sl squeue -h -r -t PD -j "$arr" -o '%i' | head -1)
[[ -n $meta ]] || fail "no pending task of $arr"
reason=$(sl squeue -h -j "$arr" -t PD -o %r | head -1)
[[ $reason == *"team-a would pass its gpu_limit (2 GPUs)"* ]] \
	|| fail "array reason: '$reason'"
throttle=$(sl scontrol show job "$arr" | grep -oE 'ArrayTaskThrottle=[0-9]+' | head -1)
[[ $throttle == ArrayTaskThrottle=3 ]] || fail "array throttle: '$throttle', want the user's 3"

# a task ends: another starts in its place, still 2
running_tasks() { sl squeue -h -r -t R -j "$arr" -o %i | sort | tr '\n' ' '; }
before=$(running_tasks)
first=${before%% *}
sl scancel "$first"
for ((i = 0; i < 120; i++)); do
	now=$(running_tasks)
	[[ $now != "$before" && $(wc -w <<<"$now") == 2 ]] && break
	sleep 0.25
done
[[ $now != "$before" && $(wc -w <<<"$now") == 2 ]] \
	|| fail "after $first ended, running tasks: '$now' (before: '$before')"
for _ in 1 2 3 4; do
	[[ $(held_gpus team-a) -le 2 ]] || fail "team-a holds $(held_gpus team-a) > gpu_limit 2"
	sleep 1
done
check_invariant 10
pass
