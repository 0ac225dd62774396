#!/usr/bin/env bash
# GPUs that come free are kept for an in-quota job that can get room on no
# node yet (docs/MODEL.md "Holds", room wait).  2 nodes x 4 GPUs: team-a
# (quota 4, in quota) runs 1 + 1 GPUs on n1 and 2 on n2; team-c (quota 0,
# no fair share) borrows 2 + 2, spread.  team-b's b1 needs 4 GPUs on one
# node, in quota: each node can free only team-c's 2 within the floors, so
# no room anywhere.  team-c's c5, submitted then, is held with a reason
# naming b1, and stays held when a1 ends (1 GPU idle on n1: still no
# room), where it would otherwise start on the freed GPU.  When a1b ends,
# n1 has 2 idle + team-c's 2: b1 runs there, and c5 never ran.
. "$(dirname "$0")/lib.sh"

up_cluster '{"settings": {"room_wait": 30},
            "projects": [{"name": "team-a", "gpu_quota": 4},
                          {"name": "team-b", "gpu_quota": 4},
                          {"name": "team-c", "gpu_quota": 0,
                           "over_quota_weight": 0}]}' --gpus 4

fill_no_room

b1=$(submit b1 team-b 4)
_wait_eq 15 yes reason_has "$b1" "GPUs that come free are kept for it" \
	|| fail "b1 does not say GPUs are kept for it: $(sl squeue -h -j "$b1" -o %r)"
expect_state "$b1" PENDING
c5=$(submit c5 team-c 1)
kept="gpuquota: GPUs are kept for job $b1 of team-b, which needs 4 GPUs on one node; work outside quotas waits at most 30 s"
_wait_eq 10 yes reason_has "$c5" "$kept" \
	|| fail "c5 not held for b1: $(sl squeue -h -j "$c5" -o %r)"

# a1 ends: 1 GPU idle on n1, still no room for b1; c5 must not take it
sl scancel "$a1"
settle 4
expect_state "$c5" PENDING
expect_state "$b1" PENDING
[[ $(reason_has "$c5" "$kept") == yes ]] \
	|| fail "c5 no longer held for b1: $(sl squeue -h -j "$c5" -o %r)"

# a1b ends: n1 has 2 idle + team-c's 2, room within the floors
sl scancel "$a1b"
wait_state "$b1" RUNNING 30
[[ $(sl squeue -h -j "$b1" -o %N) == n1 ]] \
	|| fail "b1 runs on $(sl squeue -h -j "$b1" -o %N), want n1"
expect_state "$c3" RUNNING
expect_state "$c4" RUNNING
# nothing outside quotas started on the GPUs freed in between
[[ $(restarts "$c5") == 0 ]] || fail "c5 ran and was requeued"
! grep -qE "(Allocate|[Ss]tarted) JobId=$c5 " "$DIR/log/slurmctld.log" \
	|| fail "c5 was started while GPUs were kept for b1"
# b1 runs: c5 waits for GPUs again, no longer for b1
released() { [[ $(reason_has "$c5" "kept for job") != yes ]] && echo yes; }
_wait_eq 15 yes released || fail "c5 still held after b1 started: $(sl squeue -h -j "$c5" -o %r)"
grep -q "hold JobId=$c5: $kept" "$DIR/log/slurmctld.log" \
	|| fail "slurmctld's log has no hold line for c5"
check_invariant 15
pass
