#!/usr/bin/env bash
# A warned victim's loss counted when its run ends (docs/MODEL.md
# "Ledger"): settings.grace_time 20 s, 2 nodes x 2 GPUs; team-a (quota 0)
# runs a1, whose batch script traps SIGTERM and runs `gpuquota checkpoint`
# before it exits, and a2, which does not (SIGTERM ends it); team-b runs
# b1, b2 and its in-quota b3, b4 take both of team-a's GPUs.  In the
# ledger each requeue loses its run (>= 15 s; a1's note, its owner's
# word, lowers nothing): each victim's warned record is settled by its
# after-grace record, the file
# keeps both, the metrics count the work lost per project when the runs
# ended, and a1's system comment says what it lost.  Then slurmctld is
# killed (SIGKILL) while a victim is warned: a3, younger than a4, whose
# SIGTERM handler takes 15 s before it runs `gpuquota checkpoint` and
# exits; b5 takes it, and after the restart its run's end is still
# settled: its run to its exit lost (>= 20 s), one warned record and one
# after-grace record for it.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 0},
                          {"name": "team-b", "gpu_quota": 4}],
             "settings": {"grace_time": 20}}' --conf-extra KillWait=15
LEDGER=$(state_dir)/gpuquota-ledger

a1=$(sl sbatch --parsable -J a1 -A team-a --gres=gpu:1 -o "$DIR/a1.out" \
	--wrap "trap '$GPUQUOTA checkpoint; exit 0' TERM; sleep 3600 & wait")
wait_state "$a1" RUNNING
a2=$(submit a2 team-a 1); wait_state "$a2" RUNNING
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
b2=$(submit b2 team-b 1); wait_state "$b2" RUNNING
sleep 15	# both of team-a's jobs have run 15 s

b3=$(submit b3 team-b 1); wait_state "$b3" RUNNING 30
b4=$(submit b4 team-b 1); wait_state "$b4" RUNNING 30
_wait_eq 20 1 restarts "$a1" || fail "a1 not requeued: $(sl scontrol show job "$a1" | grep -oE 'JobState=[^ ]*|Restarts=[^ ]*')"
_wait_eq 20 1 restarts "$a2" || fail "a2 not requeued: $(sl scontrol show job "$a2" | grep -oE 'JobState=[^ ]*|Restarts=[^ ]*')"

# each victim settled: one record per victim, its loss as its run ended
settled() { sl "$GPUQUOTA" ledger --json | jq '[.records[] | select(.stage == "requeued_after_grace")] | length'; }
_wait_eq 20 2 settled || fail "victims not settled: $(sl "$GPUQUOTA" ledger --json | jq -c .records); $(cat "$LEDGER")"
j=$(sl "$GPUQUOTA" ledger --json)
lost() { jq --argjson v "$1" '.records[] | select(.victim == $v) | .gpu_seconds_lost' <<<"$j"; }
l1=$(lost "$a1"); l2=$(lost "$a2")
echo "$TEST: a1 (checkpoint on SIGTERM) lost $l1 GPU-seconds, a2 $l2"
[[ $(jq '.records | length' <<<"$j") == 2 ]] || fail "records: $(jq -c .records <<<"$j")"
((l1 >= 15)) || fail "a1's note lowered its loss to $l1 GPU-seconds: $(jq -c .records <<<"$j")"
((l2 >= 15)) || fail "a2 ran 15 s, yet lost only $l2 GPU-seconds"
# the file keeps the decisions too: two warned, two settled
[[ $(grep -c ' warned ' "$LEDGER") == 2 && $(grep -c ' requeued_after_grace ' "$LEDGER") == 2 ]] \
	|| fail "ledger file: $(cat "$LEDGER")"
jq -e '.totals[] | select(.project == "team-a") | .reclaims_lent == 2 and .gpus_lent == 2' \
	<<<"$j" >/dev/null || fail "team-a's totals: $(jq -c .totals <<<"$j")"

# the metrics: the work lost when the runs ended, per project (the
# metrics file is written at each pass: a settle after a pass's write
# shows at the next)
metric_now() { sl "$GPUQUOTA" metrics 2>/dev/null | awk -v k="$1" '$1 == k { print $2 }'; }
_wait_eq 20 $((l1 + l2)) metric_now 'gpuquota_reclaim_victim_gpu_seconds_lost_total{reason="quota"}' || true
m=$(sl "$GPUQUOTA" metrics)
metric() { awk -v k="$1" '$1 == k { print $2 }' <<<"$m"; }
[[ $(metric 'gpuquota_project_gpu_seconds_lost_total{project="team-a",reason="quota"}') == $((l1 + l2)) ]] \
	|| fail "team-a's lost GPU-seconds: $(grep 'gpuquota_project_gpu_seconds_lost_total' <<<"$m")"
[[ $(metric 'gpuquota_reclaim_victim_gpu_seconds_lost_total{reason="quota"}') == $((l1 + l2)) ]] \
	|| fail "lost GPU-seconds: $(grep 'gpuquota_reclaim_victim_gpu_seconds_lost_total' <<<"$m")"
[[ $(metric 'gpuquota_project_gpus_lent_total{project="team-a",reason="quota"}') == 2 ]] \
	|| fail "team-a's GPUs lent: $(grep 'gpuquota_project_gpus_lent_total' <<<"$m")"
[[ $(metric 'gpuquota_project_gpus_reclaimed_total{project="team-b",reason="quota"}') == 2 ]] \
	|| fail "team-b's GPUs reclaimed: $(grep 'gpuquota_project_gpus_reclaimed_total' <<<"$m")"
# the per-project samples parse and pass Prometheus' lint
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <<<"$m" 2>&1) || fail "promtool: $out"
fi

# a1's system comment says what its requeue lost
comment=$(sl squeue -h -j "$a1" -O system_comment:100 | sed 's/ *$//')
[[ $comment =~ ^"gpuquota: reclaimed for job "[0-9]+" of team-b (in-quota), $l1 GPU-seconds lost"$ ]] \
	|| fail "a1 system comment: '$comment'"
# with slurmdbd: the run a1's requeue ended says the same (gpuquota wrote
# its admin comment before it requeued a1, which sends the run's end)
if [[ ${GQ_ACCOUNTING:-0} == 1 ]]; then
	dbd_note() { sl sacct -n -P -D -j "$a1" -X -o AdminComment | grep -c "stage:requeued_after_grace,gpu_seconds_lost:$l1,"; }
	_wait_eq 30 1 dbd_note \
		|| fail "slurmdbd's record of a1: $(sl sacct -n -P -D -j "$a1" -X -o JobID,State,AdminComment)"
	echo "$TEST: slurmdbd: $(sl sacct -n -P -D -j "$a1" -X -o JobID,State,AdminComment | head -1)"
fi

# a victim warned when slurmctld dies: settled after the restart
sl scancel "$a1" "$a2" "$b3" "$b4"
_wait_eq 30 2 held_gpus team-b || fail "team-b does not hold 2 GPUs: $(sl squeue -h -o "%i %T")"
_wait_eq 30 0 held_gpus team-a || fail "team-a still runs: $(sl squeue -h -o "%i %T")"
a4=$(submit a4 team-a 1); wait_state "$a4" RUNNING
a3=$(sl sbatch --parsable -J a3 -A team-a --gres=gpu:1 -o "$DIR/a3.out" \
	--wrap "trap 'sleep 15; $GPUQUOTA checkpoint; exit 0' TERM; sleep 3600 & wait")
wait_state "$a3" RUNNING
sleep 5
b5=$(submit b5 team-b 1)
_wait_eq 15 1 bash -c "grep -c 'reclaim: JobId=$b5 .*takes JobId=$a3 .*warned first' '$DIR/log/slurmctld.log'" \
	|| fail "b5 did not warn a3: $(grep 'reclaim:' "$DIR/log/slurmctld.log")"
# a change after the warning: Slurm's next save (which waits for one)
# holds the warning too
t0=$(date +%s.%N)
sl scontrol update jobid="$b1" comment=saved || fail "scontrol update"
wait_saved "$t0" || fail "Slurm did not save a3's warning"
"$CLUSTER" ctld-restart --dir "$DIR" --signal KILL >/dev/null 2>&1 \
	|| fail "slurmctld did not come back"
settled3() { sl "$GPUQUOTA" ledger --json | jq --argjson v "$a3" '[.records[] | select(.victim == $v and .stage == "requeued_after_grace")] | length'; }
_wait_eq 40 1 settled3 || fail "a3 not settled after the restart: $(grep -E "JobId=$a3\\b" "$DIR/log/slurmctld.log" | tail -5); $(cat "$LEDGER")"
l3=$(sl "$GPUQUOTA" ledger --json | jq --argjson v "$a3" '.records[] | select(.victim == $v) | .gpu_seconds_lost')
echo "$TEST: a3, warned across a restart, lost $l3 GPU-seconds"
# its run: 5 s before b5, then 15 s in its SIGTERM handler
((l3 >= 20)) || fail "a3 ran 20 s or more, yet lost $l3 GPU-seconds: $(cat "$LEDGER")"
[[ $(grep -c " $a3 team-a 1 [0-9]* warned " "$LEDGER") == 1 ]] || fail "a3's warned records: $(cat "$LEDGER")"
pass
