#!/usr/bin/env bash
# Observe mode (docs/MODEL.md "Observe mode"): gpuquota decides, logs and
# counts, and Slurm schedules as priority/multifactor would; switched by
# `scontrol reconfigure` both ways.
# 1 node x 4 GPUs.  team-a (quota 1, limit 2), team-b (quota 2, limit 3).
#  1. observe: a1..a4 (team-a, 1 GPU each) all run, past the limit 2;
#     a5 waits for room; gpuquota would hold it (limit).  b1 (team-b, in
#     quota: 1 <= 2) waits; gpuquota would reclaim a team-a job for it.
#     Nothing is held or requeued; the "would" lines are in the log, the
#     reclaim in the ledger as observed; the metric and the command say
#     observe.
#  2. enforce: a5 is held (limit), b1 reclaims one team-a job and runs.
#     team-b's array (1 GPU tasks, %4): its limit 3 lets at most 2 more
#     start, so gpuquota throttles it below the user's 4 (or holds it
#     while no task may start).
#  3. observe again: gpuquota's holds are lifted and the array's %N is the
#     user's 4 again; the array and team-a's running jobs end: a5 runs (the
#     victim waits for its requeue's begin time).
. "$(dirname "$0")/lib.sh"

json() { # MODE
	printf '{"projects": [{"name": "team-a", "gpu_quota": 1, "gpu_limit": 2},
              {"name": "team-b", "gpu_quota": 2, "gpu_limit": 3}],
 "settings": {"recompute_interval": 1, "mode": "%s"}}\n' "$1"
}
up_cluster "$(json observe)" --nodes 1 --gpus 4

# reload MODE: gpuquota.json as the plugin trusts it, reconfigure, the load
reload() {
	local n
	n=$(grep -c 'gpuquota: loaded' "$DIR/log/slurmctld.log" || true)
	json "$1" >"$DIR/gpuquota.json.new"
	chmod 0644 "$DIR/gpuquota.json.new"
	mv "$DIR/gpuquota.json.new" "$DIR/gpuquota.json"
	sl scontrol reconfigure || fail "scontrol reconfigure failed"
	_wait_eq 30 $((n + 1)) grep -c 'gpuquota: loaded' "$DIR/log/slurmctld.log" \
		|| fail "the $1 configuration was not loaded"
}
# pending jobs whose reason is gpuquota's hold
gq_held() { sl squeue -h -t PD -o '%i %r' | grep -c 'gpuquota:' || true; }
log_has() { grep -q -- "$1" "$DIR/log/slurmctld.log"; }
throttle() { sl scontrol show job "$1" | grep -oE 'ArrayTaskThrottle=[0-9]+' | head -n 1 | cut -d= -f2; }

# 1. observe
a=()
for i in 1 2 3 4; do
	a[i]=$(submit "a$i" team-a 1)
	wait_state "${a[i]}" RUNNING
done
a5=$(submit a5 team-a 1)
b1=$(submit b1 team-b 1)
settle 5
expect_state "$a5" PENDING
expect_state "$b1" PENDING
[[ $(held_gpus team-a) == 4 ]] || fail "team-a holds $(held_gpus team-a), want 4 (no limit applied)"
[[ $(gq_held) == 0 ]] || fail "observe: gpuquota holds: $(sl squeue -h -t PD -o '%i %r')"
for i in 1 2 3 4; do
	[[ $(restarts "${a[i]}") == 0 ]] || fail "observe: a$i was requeued"
done
_wait_eq 20 yes eval 'log_has "gpuquota: observe: would hold JobId=$a5 (gpuquota: project team-a would pass its gpu_limit" && echo yes' \
	|| fail "no 'would hold' line for a5"
_wait_eq 20 yes eval 'log_has "gpuquota: observe: would reclaim JobId=[0-9]* for JobId=$b1" && echo yes' \
	|| fail "no 'would reclaim' line for b1"
# one line per job and decision, not one a pass
n=$(grep -c "gpuquota: observe: would hold JobId=$a5 " "$DIR/log/slurmctld.log")
((n <= 2)) || fail "'would hold' for a5 logged $n times"
prio=$(sl squeue -h -j "$b1" -o %Q)
((prio < 700000001)) || fail "observe: b1 has gpuquota's band priority $prio"
sl "$GPUQUOTA" metrics >"$DIR/metrics.prom" 2>/dev/null || fail "gpuquota metrics"
grep -qx 'gpuquota_mode{mode="observe"} 1' "$DIR/metrics.prom" || fail "no gpuquota_mode observe 1"
out=$(sl "$GPUQUOTA" jobs) || fail "gpuquota jobs"
[[ $(head -n 1 <<<"$out") == "mode: observe"* ]] || fail "gpuquota jobs: no mode line: $out"
grep -E "^a5 +$a5 .*would hold" <<<"$out" >/dev/null || fail "gpuquota jobs: a5 not 'would hold': $out"
[[ $(sl "$GPUQUOTA" projects --json | jq -r .mode) == observe ]] || fail "gpuquota projects --json: mode"
_wait_eq 20 true eval 'sl "$GPUQUOTA" ledger --json | jq "[.records[] | select(.observe and .preemptor == $b1)] | length > 0"' \
	|| fail "no observed ledger record for b1: $(sl "$GPUQUOTA" ledger --json)"

# 2. enforce
reload enforce
wait_state "$b1" RUNNING 30
_wait_eq 20 yes reason_has "$a5" "would pass its gpu_limit" || fail "enforce: a5 not held: $(sl squeue -h -j "$a5" -o %r)"
requeued=0
for i in 1 2 3 4; do
	[[ $(restarts "${a[i]}") == 0 ]] || { requeued=$((requeued + 1)); victim=${a[i]}; }
done
[[ $requeued == 1 ]] || fail "enforce: $requeued team-a jobs requeued, want 1"
arr=$(sl sbatch --parsable -J arr -A team-b --gres=gpu:1 --array=1-4%4 \
	-o /dev/null --wrap 'sleep 3600') || fail "sbatch the array"
_wait_eq 20 yes eval 'grep -qE "gpuquota: JobId=${arr}_\\*: [0-9]+ more tasks? may start before the next pass \\(array throttle [0-3], the user.s 4\\)" "$DIR/log/slurmctld.log" && echo yes' \
	|| fail "enforce: the array $arr was not throttled: %N $(throttle "$arr")"
[[ $(gq_held) -ge 1 ]] || fail "enforce: nothing held"

# 3. observe again
reload observe
_wait_eq 20 0 gq_held || fail "observe: gpuquota holds left: $(sl squeue -h -t PD -o '%i %r')"
_wait_eq 20 4 throttle "$arr" || fail "observe: the array's %N is $(throttle "$arr"), want the user's 4"
log_has "gpuquota: observe: release JobId=$a5" || fail "no observe release line for a5"
reason_has "$victim" "gpuquota:" && fail "victim $victim still held"
sl scancel "$arr"
for i in 1 2 3 4; do
	[[ ${a[i]} == "$victim" ]] || sl scancel "${a[i]}"
done
wait_state "$a5" RUNNING 30
expect_state "$b1" RUNNING
sl "$GPUQUOTA" metrics >"$DIR/metrics.prom" 2>/dev/null || fail "gpuquota metrics"
grep -qx 'gpuquota_mode{mode="observe"} 1' "$DIR/metrics.prom" || fail "no gpuquota_mode observe 1 after the switch back"
pass
