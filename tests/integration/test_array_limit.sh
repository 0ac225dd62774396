#!/usr/bin/env bash
# An array job under gpu_limit: Slurm starts several tasks of one array in
# one scheduling cycle, so gpuquota throttles the array (%N) to the tasks
# that fit; the project never holds more than its limit, the array's tasks
# run as room frees, and the user's own %N comes back when the limit no
# longer binds.  Without the throttle all 3 tasks (the user's %3) start;
# the array is held from its submit until the first pass throttles it.
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
# no task started before the throttle: a new array is held at its submit
# until the pass after it sets %N (Slurm makes the tasks after it asks
# the array's priority); before, a scheduling cycle between the submit and
# that pass could start the user's 3
grep -q "hold JobId=$arr: gpuquota: a new job array" "$DIR/log/slurmctld.log" \
	|| fail "the new array $arr was not held at its submit"
awk -v a="$arr" '
	/array throttle 2, the user.s 3/ && !t { t = NR }
	($0 ~ ("Allocate JobId=" a "_") || $0 ~ ("Started JobId=" a "_")) && !s { s = NR }
	END { exit !(t && s && t < s) }' "$DIR/log/slurmctld.log" \
	|| fail "a task of $arr started before gpuquota throttled the array"
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

# The throttle file of an older gpuquota (job_id user ours), a bad line and
# an entry of another job with the array's id (another submit time: a job
# Slurm lost, its id reused) load after a restart without harm: logged,
# and the file is rewritten in the current form at the next pass.
sd=$(state_dir)
submit_t=$(sl scontrol show job "$arr" | grep -oE 'SubmitTime=[^ ]+' | head -1 | cut -d= -f2)
submit_s=$(date -d "$submit_t" +%s)
printf '# gpuquota: arrays it throttles: job_id user_throttle gpuquota_throttle\n%s 3 1\nnot a line\n%s %s 7 1\n' \
	"$arr" "$arr" "$((submit_s - 100))" >"$sd/gpuquota-array-throttles"
"$CLUSTER" ctld-restart --dir "$DIR" --signal KILL >/dev/null 2>&1 || fail "slurmctld did not restart"
grep -q "gpuquota-array-throttles line 3: not \"job_id submit_time user_throttle gpuquota_throttle\": skipped" \
	"$DIR/log/slurmctld.log" || fail "no log line for the bad line"
grep -q "gpuquota-array-throttles: 1 entry without a submit time" "$DIR/log/slurmctld.log" \
	|| fail "no log line for the old entry"
for ((i = 0; i < 60; i++)); do
	! grep -qE '^[0-9]+ [0-9]+ [0-9]+$' "$sd/gpuquota-array-throttles" && break
	sleep 0.5
done
! grep -qE '^[0-9]+ [0-9]+ [0-9]+$' "$sd/gpuquota-array-throttles" \
	|| fail "the old line is still in the file: $(cat "$sd/gpuquota-array-throttles")"
! grep -q " $((submit_s - 100)) 7 1" "$sd/gpuquota-array-throttles" \
	|| fail "the other job's entry is still in the file"
# the array's entry (if it is throttled now) is the old line's, under its
# submit time; the other job's %7 is never taken as the user's
while read -r id t user _; do
	[[ $id == "#" ]] && continue
	[[ $id == "$arr" && $t == "$submit_s" && $user == 3 ]] \
		|| fail "throttle file entry: '$id $t $user', want '$arr $submit_s 3'"
done <"$sd/gpuquota-array-throttles"
throttle=$(sl scontrol show job "$arr" | grep -oE 'ArrayTaskThrottle=[0-9]+' | head -1)
[[ $throttle == ArrayTaskThrottle=[23] ]] \
	|| fail "after the restart, array throttle: '$throttle', want the user's 3 or gpuquota's 2"
for _ in 1 2 3 4; do
	[[ $(held_gpus team-a) -le 2 ]] || fail "team-a holds $(held_gpus team-a) > gpu_limit 2"
	sleep 1
done
check_invariant 10
pass
