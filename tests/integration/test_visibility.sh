#!/usr/bin/env bash
# What users and admins see during the quick start: gpuquota projects/jobs
# --json, squeue's reason for a job gpuquota keeps waiting, the victim's
# system comment, sprio's factors, and the reclaim line in slurmctld's log.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'

a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
a2=$(submit a2 team-a 2); wait_state "$a2" RUNNING
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
settle 3

# before b2: team-a holds 3, over quota by 1, fair share 3
pj=$(sl "$GPUQUOTA" projects --json)
jq -e '.capacity == 4' <<<"$pj" >/dev/null || fail "capacity: $pj"
jq -e '.projects[] | select(.name == "team-a") |
	.allocated == 3 and .over_quota == 1 and .fair_share == 3 and
	.gpu_quota == 2 and .gpu_limit == null and .state == "over-quota" and
	.configured == true and .department == null' <<<"$pj" >/dev/null \
	|| fail "team-a before b2: $(jq -c '.projects[] | select(.name == "team-a")' <<<"$pj")"
jq -e '.projects[] | select(.name == "team-b") |
	.allocated == 1 and .fair_share == 1 and .state == "under-quota"' <<<"$pj" >/dev/null \
	|| fail "team-b before b2"
jj=$(sl "$GPUQUOTA" jobs --json)
jq -e --argjson id "$a1" '.jobs[] | select(.job_id == $id) |
	.name == "a1" and .type == "batch" and .state == "RUNNING" and
	.project == "team-a" and .gpus == 1 and .quota == "over-quota" and
	.preemptible == true' <<<"$jj" >/dev/null || fail "a1 before b2: $jj"
jq -e --argjson id "$a2" '.jobs[] | select(.job_id == $id) |
	.gpus == 2 and .quota == "in-quota" and .preemptible == false' <<<"$jj" >/dev/null \
	|| fail "a2 before b2"
[[ $(sl "$GPUQUOTA" jobs -A team-b --json | jq '.jobs | length') == 1 ]] || fail "jobs -A team-b"

b2=$(submit b2 team-b 1); wait_state "$b2" RUNNING 30
a3=$(submit a3 team-a 1)
settle 4

# after b2: team-a and team-b at quota; a1 and a3 wait over their fair share
pj=$(sl "$GPUQUOTA" projects --json)
jq -e '[.projects[] | select(.allocated == 2 and .state == "at-quota")] | length == 2' \
	<<<"$pj" >/dev/null || fail "after b2: $pj"
jj=$(sl "$GPUQUOTA" jobs --json)
jq -e --argjson id "$a1" '.jobs[] | select(.job_id == $id) | .state == "PENDING"' \
	<<<"$jj" >/dev/null || fail "a1 not pending: $jj"

# squeue: the reason says gpuquota's band (Slurm clears the text on each
# failed scheduling attempt; the next pass writes it again)
a3_band() { [[ $(sl squeue -h -j "$a3" -o %r) == *"gpuquota: over fair share, runs on idle GPUs only (team-a would hold"* ]] && echo yes; }
_wait_eq 10 yes a3_band || fail "a3 reason: '$(sl squeue -h -j "$a3" -o %r)'"
# the victim says for which job it was reclaimed
comment=$(sl squeue -h -j "$a1" -O system_comment:80 | sed 's/ *$//')
[[ $comment =~ ^"gpuquota: reclaimed for job $b2 of team-b (in-quota), "[0-9]+" GPU-seconds lost"$ ]] \
	|| fail "a1 system comment: '$comment'"
# slurmctld's log: one line per reclaim decision, with the numbers
grep -q "gpuquota: reclaim: JobId=$b2 (team-b, in-quota, A=2, quota 2, fair share 2.00) takes JobId=$a1 (team-a, 1 GPU; team-a holds 3, quota 2, fair share 2.00, floor 2.00)" \
	"$DIR/log/slurmctld.log" || fail "no reclaim line in slurmctld.log"
grep -q "gpuquota: loaded .*: 2 projects: team-a(quota=2,weight=1) team-b(quota=2,weight=1)" \
	"$DIR/log/slurmctld.log" || fail "no config load line"

# sprio (multifactor's, inside gpuquota): SITE is gpuquota's band and
# place, the other factors multifactor's (no PriorityWeight* set here: 0);
# they add up to PRIORITY.  a3 is over its fair share: SITE 1..700000000.
line=$(sl sprio -h -j "$a3" -o '%Y %S %F')
read -r prio site fs <<<"$line"
[[ -n $prio ]] || fail "no sprio line for a3"
[[ $prio == $(sl squeue -h -j "$a3" -o %Q) ]] || fail "sprio priority $prio"
((site >= 1 && site <= 700000000 && fs == 0 && fs + site == prio)) \
	|| fail "sprio factors: '$line'"
pass
