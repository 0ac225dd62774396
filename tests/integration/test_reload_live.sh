#!/usr/bin/env bash
# Config edits under running work: a quota lowered below what the
# project holds, then the project removed from gpuquota.json, each applied
# with `scontrol reconfigure` (docs/MODEL.md, "Quotas edited while jobs
# run").  2 nodes x 4 GPUs (C = 8), settings.min_runtime 25 s, grace_time
# 3 s (each victim is warned, SIGTERM, and requeued when it exits).
#
# (a) team-a q 4, team-b q 4, team-c q 0.  a1, a2, b1 (2 GPUs each) run:
#     team-a at its quota 4.  Edit: team-a q 2, team-b q 6.  team-a now
#     holds 4 > 2, but nobody waits: nothing is requeued.
#     a3 (2, team-a) starts on the idle GPUs: D_a = 6, D_b = 2, deserved
#     2 + 2, the surplus 4 goes to team-a: f_a = 6, A = 6: fair share.
#     Once a1 and a2 are past min_runtime, b2 and b3 (2 each, team-b):
#     A = 4, 6 <= q_b = 6, in quota; team-a may lose 6 - 2 = 4 GPUs,
#     youngest first, but a3 is younger than min_runtime: a2 and a1 are
#     requeued, a3 is not (without min_runtime it would be a3 and a2).
#     End: team-a 2 (a3) = its new quota, team-b 6; a1, a2 pending over fair
#     share (D_a = 6, D_b = 6: f_a = 2, A = 4 > 2).  When a3 passes
#     min_runtime nothing more is requeued: team-a is at its quota.
# (b) team-a removed (team-b q 6, team-c q 2).  Its account is unlisted now:
#     a project of its own, quota 0, weight 1.  a3 keeps running (nobody
#     waits); a1 and a2 stay pending, over fair share: D_a = 6, deserved
#     0 + 6 + 0, the surplus 2 goes to team-a: f_a = 2, a1 A = 2 + 2 = 4.
#     c1 (2, team-c): A = 2 <= q_c = 2, in quota; team-a holds 2 > 0, team-b
#     6 = its quota: a3 (past min_runtime) is requeued, c1 runs.
# Not in GQ_ACCOUNTING_TESTS: an account must exist in slurmdbd there.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

MIN_RUNTIME=25
up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 4},
                          {"name": "team-b", "gpu_quota": 4},
                          {"name": "team-c", "gpu_quota": 0}],
             "settings": {"min_runtime": '"$MIN_RUNTIME"', "grace_time": 3, "recompute_interval": 1}}' \
	--nodes 2 --gpus 4 --cpus 8

# reload JSON: write gpuquota.json as the plugin trusts it (root's, 0644,
# replaced whole) and reconfigure; wait for the load line
reload() {
	local n
	n=$(grep -c 'gpuquota: loaded' "$DIR/log/slurmctld.log" || true)
	printf '%s\n' "$1" >"$DIR/gpuquota.json.new"
	chmod 0644 "$DIR/gpuquota.json.new"
	mv "$DIR/gpuquota.json.new" "$DIR/gpuquota.json"
	sl scontrol reconfigure || fail "scontrol reconfigure failed"
	_wait_eq 30 $((n + 1)) grep -c 'gpuquota: loaded' "$DIR/log/slurmctld.log" \
		|| fail "the edit was not loaded"
}
start_epoch() { date -d "$(sl squeue -h -j "$1" -o %S)" +%s; }
expect_restarts() { # JOB N
	local r
	r=$(restarts "$1")
	[[ $r == "$2" ]] || fail "job $1: Restarts=$r, want $2"
}
expect_held() { # ACCOUNT GPUS
	local h
	h=$(held_gpus "$1") || true	# its greps fail when none runs
	[[ $h == "$2" ]] || fail "$1 holds $h GPUs, want $2"
}
expect_field() { # PROJECT FIELD VALUE
	local v
	v=$(project_field "$1" "$2")
	[[ $v == "$3" ]] || fail "gpuquota projects: $1 $2 is $v, want $3"
}
reclaims() { grep -c 'gpuquota: reclaim:' "$DIR/log/slurmctld.log" || true; }
reason() { sl squeue -h -j "$1" -o %r; }
reason_ends() { [[ $(reason "$1") == *"$2" ]] && echo yes; }

# ---- (a) a quota lowered below what the project holds
a1=$(submit a1 team-a 2); wait_state "$a1" RUNNING
a2=$(submit a2 team-a 2); wait_state "$a2" RUNNING
b1=$(submit b1 team-b 2); wait_state "$b1" RUNNING
old=$(start_epoch "$a2")
expect_field team-a state at-quota

reload '{"projects": [{"name": "team-a", "gpu_quota": 2},
                      {"name": "team-b", "gpu_quota": 6},
                      {"name": "team-c", "gpu_quota": 0}],
         "settings": {"min_runtime": '"$MIN_RUNTIME"', "grace_time": 3, "recompute_interval": 1}}'
grep -q 'loaded .*team-a(quota=2,weight=1) team-b(quota=6,weight=1)' \
	"$DIR/log/slurmctld.log" || fail "the lowered quota is not in the load line"
settle 5
wait_stable 30
for j in "$a1" "$a2" "$b1"; do expect_state "$j" RUNNING; expect_restarts "$j" 0; done
expect_field team-a gpu_quota 2
expect_field team-a allocated 4
expect_field team-a over_quota 2
expect_field team-a state over-quota
[[ $(reclaims) == 0 ]] || fail "$(reclaims) reclaims after the edit, nobody waiting"

a3=$(submit a3 team-a 2); wait_state "$a3" RUNNING	# fair share on idle GPUs
# a1 and a2 past min_runtime (with 3 s to spare), a3 well within it
while (($(date +%s) < old + MIN_RUNTIME + 3)); do sleep 1; done
b2=$(submit b2 team-b 2)
b3=$(submit b3 team-b 2)
wait_state "$b2" RUNNING 60
wait_state "$b3" RUNNING 60
young=$(($(date +%s) - $(start_epoch "$a3")))
((young < MIN_RUNTIME)) || fail "a3 was ${young}s old when b2 and b3 ran: the test came too late to tell"
wait_stable 30
expect_state "$a1" PENDING
expect_state "$a2" PENDING
expect_state "$a3" RUNNING
expect_restarts "$a1" 1
expect_restarts "$a2" 1
expect_restarts "$a3" 0
expect_restarts "$b1" 0
expect_held team-a 2
expect_held team-b 6
[[ $(reclaims) == 2 ]] || fail "$(reclaims) reclaims, want 2 (a1, a2)"
for j in "$a1" "$a2"; do
	grep -qE "gpuquota: reclaim: JobId=($b2|$b3) \(team-b, in-quota, .* takes JobId=$j \(team-a, 2 GPUs" \
		"$DIR/log/slurmctld.log" || fail "no reclaim line for job $j"
done
near "$(project_field team-a fair_share)" 2 || fail "team-a fair share $(project_field team-a fair_share), want 2"
# past a3's min_runtime, nothing more: team-a is at its new quota
while (($(date +%s) < $(start_epoch "$a3") + MIN_RUNTIME + 3)); do sleep 1; done
settle 4
expect_state "$a3" RUNNING
expect_restarts "$a3" 0
[[ $(reclaims) == 2 ]] || fail "$(reclaims) reclaims once a3 passed min_runtime, want 2"
check_invariant 15

# ---- (b) team-a removed from gpuquota.json while a3 runs
reload '{"projects": [{"name": "team-b", "gpu_quota": 6},
                      {"name": "team-c", "gpu_quota": 2}],
         "settings": {"min_runtime": '"$MIN_RUNTIME"', "grace_time": 3, "recompute_interval": 1}}'
settle 5
wait_stable 30
expect_state "$a3" RUNNING
expect_restarts "$a3" 0
[[ $(reclaims) == 2 ]] || fail "$(reclaims) reclaims after team-a was removed, want 2"
expect_field team-a configured false
expect_field team-a gpu_quota 0
expect_field team-a allocated 2
expect_field team-a state over-quota
near "$(project_field team-a fair_share)" 2 || fail "team-a fair share $(project_field team-a fair_share), want 2"
# (Slurm clears the text on each failed scheduling attempt; the next pass
# writes it again)
_wait_eq 20 yes reason_ends "$a1" "gpuquota: over fair share, runs on idle GPUs only (team-a would hold 4, quota 0, fair share 2.0)" \
	|| fail "a1's reason: $(reason "$a1")"
[[ $(sl "$GPUQUOTA" jobs --json | jq -r --argjson j "$a3" '.jobs[] | select(.job_id == $j) | .quota') == over-quota ]] \
	|| fail "gpuquota jobs: a3 is not over-quota"

c1=$(submit c1 team-c 2)
wait_state "$c1" RUNNING 60
wait_stable 30
expect_state "$a3" PENDING
expect_restarts "$a3" 1
for j in "$b1" "$b2" "$b3"; do expect_state "$j" RUNNING; expect_restarts "$j" 0; done
expect_held team-a 0
expect_held team-b 6
expect_held team-c 2
[[ $(reclaims) == 3 ]] || fail "$(reclaims) reclaims, want 3"
grep -q "gpuquota: reclaim: JobId=$c1 (team-c, in-quota, A=2, .* takes JobId=$a3 (team-a, 2 GPUs; team-a holds 2, quota 0" \
	"$DIR/log/slurmctld.log" || fail "no reclaim line for c1 taking a3"
check_invariant 15
pass
