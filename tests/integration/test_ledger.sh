#!/usr/bin/env bash
# The reclaim ledger (docs/MODEL.md "Ledger") on the quick start: b2
# reclaims a1, and `gpuquota ledger --json` names both jobs, team-a and
# team-b, 1 GPU and the GPU-seconds a1's requeue lost; the metrics count
# it; slurmctld killed with SIGKILL and restarted, the record is still
# there (the file in StateSaveLocation); the table and --json agree.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'
LEDGER=$(state_dir)/gpuquota-ledger

a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
a2=$(submit a2 team-a 2); wait_state "$a2" RUNNING	# over quota on idle GPUs
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
sleep 2	# a1 has run a while: its requeue loses work
b2=$(submit b2 team-b 1); wait_state "$b2" RUNNING 30
[[ $(restarts "$a1") -ge 1 ]] || fail "a1 was not requeued"

# the record is written by the pass after the reclaim
ledger_records() { sl "$GPUQUOTA" ledger --json | jq '.records | length'; }
_wait_eq 20 1 ledger_records || fail "no ledger record 20 s after the reclaim: $(cat "$LEDGER" 2>&1)"
[[ $(stat -c %a "$LEDGER") == 600 ]] || fail "ledger mode $(stat -c %a "$LEDGER"), want 600"

# check_record: the one record names the jobs, projects, 1 GPU, work lost
check_record() { # WHEN
	local j
	j=$(sl "$GPUQUOTA" ledger --json) || fail "gpuquota ledger --json failed ($1)"
	jq -e --argjson a1 "$a1" --argjson b2 "$b2" '
		(.records | length) == 1 and
		(.records[0] | .victim == $a1 and .preemptor == $b2 and
			.victim_project == "team-a" and
			.preemptor_project == "team-b" and .gpus == 1 and
			.gpu_seconds_lost > 0 and .reason == "quota" and
			.pool == null) and
		(.totals[] | select(.project == "team-a") |
			.gpus_lent == 1 and .reclaims_lent == 1) and
		(.totals[] | select(.project == "team-b") |
			.gpus_borrowed == 1 and .reclaims_borrowed == 1)' \
		<<<"$j" >/dev/null || fail "ledger ($1): $j"
}
check_record "before the crash"

# the metrics carry the totals (the counters start again at a restart;
# the metrics file is written after a pass, at most every 2 s, so it may
# follow the ledger by a pass)
records_counted() {
	sl "$GPUQUOTA" metrics | awk '$1 == "gpuquota_ledger_records_total" { print $2 }'
}
_wait_eq 30 1 records_counted \
	|| fail "gpuquota_ledger_records_total: $(records_counted), want 1"
m=$(sl "$GPUQUOTA" metrics)
awk '$1 == "gpuquota_reclaim_victim_gpu_seconds_lost_total{reason=\"quota\"}" && $2 > 0 { f = 1 } END { exit !f }' <<<"$m" \
	|| fail "lost GPU-seconds: $(grep gpu_seconds_lost <<<"$m")"
# the victim's comment says it too (slurmctld's record only: Slurm's
# accounting_storage/slurmdbd sends no system comment, sacct's SystemComment
# stays empty)
comment=$(sl squeue -h -j "$a1" -O system_comment:100 | sed 's/ *$//')
[[ $comment =~ ^"gpuquota: reclaimed for job $b2 of team-b (in-quota), "[1-9][0-9]*" GPU-seconds lost"$ ]] \
	|| fail "a1 system comment: '$comment'"
lost=$(sl "$GPUQUOTA" ledger --json | jq '.records[0].gpu_seconds_lost')
# with slurmdbd, the run a1's requeue ended has gpuquota's note in its
# admin comment (sent with the run's end: docs/MODEL.md "Ledger")
if [[ ${GQ_ACCOUNTING:-0} == 1 ]]; then
	dbd_note() { sl sacct -n -P -D -j "$a1" -X -o AdminComment | grep -c "gpuquota-reclaim=for:$b2,of:team-b,reason:quota,stage:requeued,gpu_seconds_lost:$lost,run_start:"; }
	_wait_eq 30 1 dbd_note \
		|| fail "slurmdbd's record of a1: $(sl sacct -n -P -D -j "$a1" -X -o JobID,State,AdminComment,SystemComment)"
	echo "$TEST: slurmdbd: $(sl sacct -n -P -D -j "$a1" -X -o JobID,State,AdminComment | head -1)"
fi

# slurmctld killed and restarted: the record is in the file, kept
"$CLUSTER" ctld-restart --dir "$DIR" --signal KILL >/dev/null 2>&1 \
	|| fail "slurmctld did not come back"
settle 4
check_record "after the restart"
# without a controller's answer: the directory itself
jq -e '.records | length == 1' <<<"$(sl "$GPUQUOTA" ledger --json --dir "$(dirname "$LEDGER")")" \
	>/dev/null || fail "gpuquota ledger --dir"

# the table and --json agree on the totals (GPU-hours with 2 decimals)
j=$(sl "$GPUQUOTA" ledger --json)
t=$(sl "$GPUQUOTA" ledger 2>/dev/null)
for p in team-a team-b; do
	want=$(jq -r --arg p "$p" '.totals[] | select(.project == $p) |
		"\(.reclaims_lent) \(.gpus_lent) \(.gpu_hours_lost * 100 | round)
		 \(.reclaims_borrowed) \(.gpus_borrowed) \(.gpu_hours_cost * 100 | round)"' <<<"$j" | xargs)
	got=$(awk -v p="$p" '$1 == "total" && $2 == p {
		printf "%d %d %d %d %d %d\n", $3, $4, $5 * 100 + 0.5, $6, $7, $8 * 100 + 0.5 }' <<<"$t")
	[[ -n $want && $want == "$got" ]] || fail "$p: table '$got', --json '$want'"$'\n'"$t"
done
# a day's rows sum to the totals; --project keeps team-a's rows only
[[ $(awk '$1 != "DAY" && $1 != "total" { n += $4 } END { print n }' <<<"$t") == 1 ]] \
	|| fail "the day rows lend $(awk '$1 != "DAY" && $1 != "total" { n += $4 } END { print n }' <<<"$t") GPUs: $t"
[[ $(sl "$GPUQUOTA" ledger --json --project team-a | jq '[.periods[].project] | unique') == '[
  "team-a"
]' ]] || fail "--project team-a"
[[ $(sl "$GPUQUOTA" ledger --json --since 2000-01-01 --by week | jq '.records | length') == 1 ]] \
	|| fail "--since 2000-01-01 --by week"
[[ $(sl "$GPUQUOTA" ledger --json --since 2999-01-01 | jq '.records | length') == 0 ]] \
	|| fail "--since 2999-01-01"
sl "$GPUQUOTA" ledger --since yesterday >/dev/null 2>&1 && fail "--since yesterday accepted"
pass
