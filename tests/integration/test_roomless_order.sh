#!/usr/bin/env bash
# An in-quota job for which no room can be made goes below the in-quota
# jobs that can start or reclaim (docs/MODEL.md "Bands and priority"):
# Slurm's main cycle stops trying a partition at the first job it cannot
# start.  2 nodes x 4 GPUs, full: team-a (quota 4, in quota) runs 1 + 1
# GPUs on n1 and 2 on n2; team-c (quota 0, no fair share) borrows 2 + 2.
# team-b (quota 8) submits b1, 4 GPUs on one node, in quota (key 4/8 =
# 0.5, priority 2 500 000 001 by its key): each node can free only
# team-c's 2 within the floors, no room.  It gets the band's base,
# 2 000 000 001, and says why.  team-d (quota 1) submits d1, 1 GPU (key 1:
# 2 000 000 002): above b1, it reclaims one of team-c's GPUs and runs.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 4},
                          {"name": "team-b", "gpu_quota": 8},
                          {"name": "team-c", "gpu_quota": 0,
                           "over_quota_weight": 0},
                          {"name": "team-d", "gpu_quota": 1}]}' --gpus 4

fill_no_room

prio() { sl squeue -h -j "$1" -o %Q; }
b1=$(submit b1 team-b 4)
_wait_eq 15 1400000001 prio "$b1" \
	|| fail "b1's priority is $(prio "$b1"), want 1400000001 (no room: the in-quota band's base)"
_wait_eq 30 yes reason_has "$b1" "gpuquota: in quota (team-b would hold 4 of 8); no node can free 4 GPUs for it within the other projects' floors yet" \
	|| fail "b1's reason does not say it has no room: $(sl squeue -h -j "$b1" -o %r)"

d1=$(submit d1 team-d 1)
wait_state "$d1" RUNNING 30
expect_state "$b1" PENDING
[[ $(prio "$b1") == 1400000001 ]] || fail "b1's priority is $(prio "$b1") after d1 started"
# d1 reclaimed one of team-c's GPUs; team-a's in-quota jobs stayed
n=0
for c in "$c1" "$c2" "$c3" "$c4"; do
	[[ $(state "$c") == RUNNING ]] && n=$((n + 1))
done
((n == 3)) || fail "$n of team-c's 4 jobs run, want 3 (one reclaimed for d1)"
for a in "$a1" "$a1b" "$a2"; do expect_state "$a" RUNNING; done
grep -qE "gpuquota: reclaim: JobId=$d1 .* takes JobId=($c1|$c2|$c3|$c4) " "$DIR/log/slurmctld.log" \
	|| fail "slurmctld's log has no reclaim of a team-c job for d1"
check_invariant 15
pass
