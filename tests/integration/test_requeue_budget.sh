#!/usr/bin/env bash
# The requeue budget (docs/MODEL.md "Requeue budget") on a real cluster:
# 2 nodes x 2 GPUs; team-a quota 1, over_quota_weight 0, requeue budget
# 0.001 GPU-hours (3.6 GPU-seconds); team-b quota 1; team-c quota 2.
# team-a borrows (a1, a2, a3), team-b runs b1.  c1 (in quota) reclaims a3,
# which had run 6 s and more: team-a is past its budget.  Then a3 waits
# instead of borrowing again (held, its reason names the budget); team-b's
# b3, in its fair share (f_b = 3: team-a's weight is 0) but over its quota,
# takes none of team-a's GPUs (fair-share reclaim spares it); team-c's c2,
# in quota, does (quota reclaim goes on).
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [
	{"name": "team-a", "gpu_quota": 1, "over_quota_weight": 0, "requeue_budget": 0.001},
	{"name": "team-b", "gpu_quota": 1},
	{"name": "team-c", "gpu_quota": 2}]}'

a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
a2=$(submit a2 team-a 1); wait_state "$a2" RUNNING
a3=$(submit a3 team-a 1); wait_state "$a3" RUNNING
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
sleep 6		# a3's work: 6 GPU-seconds and more

c1=$(submit c1 team-c 1); wait_state "$c1" RUNNING 30
[[ $(restarts "$a3") -ge 1 ]] || fail "a3 was not requeued for c1"
budget_held() { reason_has "$a3" "requeue budget"; }
_wait_eq 60 yes budget_held \
	|| fail "a3 is not held for team-a's requeue budget: $(sl squeue -h -j "$a3" -o '%T %r')"
[[ $(project_field team-a state) == at-budget ]] || fail "gpuquota: team-a state $(project_field team-a state)"
lost=$(project_field team-a requeue_lost_gpu_hours)
awk -v x="$lost" 'BEGIN { exit !(x >= 0.001) }' || fail "gpuquota: team-a lost $lost GPU-hours"

# an idle GPU: b2 takes it (a3 does not borrow it)
sl scancel "$c1"
b2=$(submit b2 team-b 1); wait_state "$b2" RUNNING 30
expect_state "$a3" PENDING

# b3: fair-share band, and team-a past its budget: no fair-share reclaim
b3=$(submit b3 team-b 1)
settle 10
expect_state "$b3" PENDING
expect_state "$a1" RUNNING
expect_state "$a2" RUNNING
[[ $(restarts "$a2") == 0 ]] || fail "a2 was taken by fair-share reclaim past team-a's budget"

# c2: in quota: quota reclaim takes from team-a all the same
c2=$(submit c2 team-c 1); wait_state "$c2" RUNNING 30
[[ $(restarts "$a2") -ge 1 || $(restarts "$a1") -ge 1 ]] || fail "quota reclaim took nothing from team-a"
[[ $(held_gpus team-a) == 1 ]] || fail "team-a holds $(held_gpus team-a) GPUs, want its quota 1"
check_invariant 15
pass
