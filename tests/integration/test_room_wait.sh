#!/usr/bin/env bash
# GPUs that come free are kept on one node for an in-quota job that can
# get room on no node yet (docs/MODEL.md "Holds", room wait), and only
# there.  3 nodes x 4 GPUs, full: team-a (quota 8, in quota) runs a1, a1b
# (1 + 1 GPU, --time 10 min) on n1, a2, a2b (1 + 1, --time 3 min) on n2,
# a3 (2, --time 10 min) on n3; team-c (quota 0, no fair share) borrows 2
# on each node.  team-b's b1 needs 4 GPUs on one node, in quota: each
# node can free only team-c's 2 within the floors, so no room anywhere.
# It waits on n2, where it can start soonest (a2 and a2b's --time ends
# first).  n1 and n3 have the feature x, n2 not.  team-c's c5 (any node)
# could start on n2: held, with a reason naming n2 and b1; c8
# (--constraint=x) could not: not held, and it starts on n1 when c1 ends
# there.  c9 (--time 1 min) ends before b1 could start on n2: not held.
# a2 ends: 1 GPU idle on n2, still no room; c5 does not take it, c9 does.
# a2b ends: n2 has 1 idle + team-c's 3: b1 runs there; c5 never ran.
. "$(dirname "$0")/lib.sh"

up_cluster '{"settings": {"room_wait": 60},
            "projects": [{"name": "team-a", "gpu_quota": 8},
                          {"name": "team-b", "gpu_quota": 4},
                          {"name": "team-c", "gpu_quota": 0,
                           "over_quota_weight": 0}]}' --nodes 3 --gpus 4
for n in n1 n3; do
	sl scontrol update nodename=$n availablefeatures=x activefeatures=x \
		|| fail "could not give $n the feature x"
done

a1=$(submit a1 team-a 1 -w n1 -t 10); wait_state "$a1" RUNNING
a1b=$(submit a1b team-a 1 -w n1 -t 10); wait_state "$a1b" RUNNING
a2=$(submit a2 team-a 1 -w n2 -t 3); wait_state "$a2" RUNNING
a2b=$(submit a2b team-a 1 -w n2 -t 3); wait_state "$a2b" RUNNING
a3=$(submit a3 team-a 2 -w n3 -t 10); wait_state "$a3" RUNNING
c1=$(submit c1 team-c 1 -w n1); wait_state "$c1" RUNNING
c2=$(submit c2 team-c 1 -w n1); wait_state "$c2" RUNNING
c3=$(submit c3 team-c 1 -w n2); wait_state "$c3" RUNNING
c4=$(submit c4 team-c 1 -w n2); wait_state "$c4" RUNNING
c6=$(submit c6 team-c 1 -w n3); wait_state "$c6" RUNNING
c7=$(submit c7 team-c 1 -w n3); wait_state "$c7" RUNNING

b1=$(submit b1 team-b 4)
# The wait's line in slurmctld's log (squeue shows the same in b1's
# reason, but Slurm clears that at each scheduling attempt, so a poll may
# never see it; its text: tests/glue/test_write.c)
waits="gpuquota: room wait: GPUs that come free on n2 are kept for JobId=$b1 of team-b, which needs 4 GPUs on one node, at most 60 s: it can start there soonest (0 GPUs idle, 2 it may reclaim, the rest when jobs there reach their time limit, in "
wait_logged 15 "$waits" "GPUs are kept for b1 on n2, and why"
expect_state "$b1" PENDING
c5=$(submit c5 team-c 1)
c8=$(submit c8 team-c 1 --constraint=x)
kept="gpuquota: GPUs that come free on n2 are kept for job $b1 of team-b, which needs 4 GPUs on one node; work outside quotas that could start there waits at most 60 s"
_wait_eq 10 yes reason_has "$c5" "$kept" \
	|| fail "c5 not held for b1: $(sl squeue -h -j "$c5" -o %r)"
settle 3
[[ $(reason_has "$c8" "kept for job") != yes ]] \
	|| fail "c8, which cannot run on n2, is held: $(sl squeue -h -j "$c8" -o %r)"

# c1 ends on n1: c8 takes its GPU; c5, held for n2, does not
sl scancel "$c1"
wait_state "$c8" RUNNING 15
[[ $(sl squeue -h -j "$c8" -o %N) == n1 ]] \
	|| fail "c8 runs on $(sl squeue -h -j "$c8" -o %N), want n1"
expect_state "$c5" PENDING

# c9's --time (1 min) ends before b1 can start on n2 (a2b's, 3 min):
# not held (backfill)
c9=$(submit c9 team-c 1 -t 1)
settle 3
[[ $(reason_has "$c9" "kept for job") != yes ]] \
	|| fail "c9, which ends before b1 could start on n2, is held: $(sl squeue -h -j "$c9" -o %r)"

# a2 ends: 1 GPU idle on n2, still no room for b1; c5 must not take it,
# c9 does
sl scancel "$a2"
wait_state "$c9" RUNNING 15
[[ $(sl squeue -h -j "$c9" -o %N) == n2 ]] \
	|| fail "c9 runs on $(sl squeue -h -j "$c9" -o %N), want n2"
expect_state "$c5" PENDING
expect_state "$b1" PENDING
[[ $(reason_has "$c5" "$kept") == yes ]] \
	|| fail "c5 no longer held for b1: $(sl squeue -h -j "$c5" -o %r)"

# a2b ends: n2 has 1 idle + team-c's 3 (c9 too), room within the floors
sl scancel "$a2b"
wait_state "$b1" RUNNING 30
[[ $(sl squeue -h -j "$b1" -o %N) == n2 ]] \
	|| fail "b1 runs on $(sl squeue -h -j "$b1" -o %N), want n2"
# outside work on the other nodes ran on; team-a's in-quota jobs too
for j in "$c2" "$c6" "$c7" "$c8" "$a1" "$a1b" "$a3"; do
	expect_state "$j" RUNNING
done
for j in "$a1" "$a1b" "$a3"; do
	[[ $(restarts "$j") == 0 ]] || fail "in-quota job $j was requeued"
done
# nothing outside quotas started on the GPUs freed on n2 in between
[[ $(restarts "$c5") == 0 ]] || fail "c5 ran and was requeued"
! grep -qE "(Allocate|[Ss]tarted) JobId=$c5 " "$DIR/log/slurmctld.log" \
	|| fail "c5 was started while GPUs were kept for b1"
# b1 runs: c5 waits for GPUs again, no longer for b1
released() { [[ $(reason_has "$c5" "kept for job") != yes ]] && echo yes; }
_wait_eq 15 yes released || fail "c5 still held after b1 started: $(sl squeue -h -j "$c5" -o %r)"
[[ $(grep -cF "gpuquota: room wait: " "$DIR/log/slurmctld.log") == 1 ]] \
	|| fail "the room wait was logged as begun more than once: $(grep -F "gpuquota: room wait" "$DIR/log/slurmctld.log")"
[[ $(logged "gpuquota: room wait for JobId=$b1 ended") == yes ]] \
	|| fail "no line says b1's room wait ended"
grep -q "hold JobId=$c5: $kept" "$DIR/log/slurmctld.log" \
	|| fail "slurmctld's log has no hold line for c5"
check_invariant 15
pass
