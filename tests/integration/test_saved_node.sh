#!/usr/bin/env bash
# The node saved for an in-quota job no node can take (docs/MODEL.md "The
# saved node"), with the default settings.  2 nodes x 4 GPUs.  n1 runs
# team-c's c1 (in quota, --time 2 min) and team-b's b1-b3 (quota 0); n2
# runs team-c's c2 (in quota, no time limit) and b4-b6.  team-a (quota 4)
# asks 4 GPUs on one node: room on neither (3 of team-b's and c's 1 in
# quota on each), soonest on n1 (c1's --time).  n1 is saved for it.
# team-e (quota 2) submits e1 and e2 (1 GPU each): they can start on n2,
# so they reclaim two of b4-b6 there and leave b1-b3 alone, though b1-b3
# are younger.  c1 ends: n1 has 1
# idle + b1-b3 to reclaim: team-a's job reclaims them and runs there.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 4},
                          {"name": "team-b", "gpu_quota": 0},
                          {"name": "team-c", "gpu_quota": 2},
                          {"name": "team-e", "gpu_quota": 2}]}' \
	--nodes 2 --gpus 4

c1=$(submit c1 team-c 1 -w n1 -t 2); wait_state "$c1" RUNNING
c2=$(submit c2 team-c 1 -w n2); wait_state "$c2" RUNNING
# b1-b3 are the youngest: reclaim order (youngest first) alone would
# take two of them, on n1
for i in 4 5 6 1 2 3; do
	node=n1
	((i > 3)) && node=n2
	b[i]=$(submit "b$i" team-b 1 -w $node); wait_state "${b[i]}" RUNNING
	sleep 1
done

a=$(submit a team-a 4)
# which node is saved, and why: in slurmctld's log, which Slurm does not
# clear as it clears a squeue reason (text: tests/glue/test_write.c)
why="(0 GPUs idle, 3 it may reclaim, the rest when jobs there reach their time limit, in "
wait_logged 15 "gpuquota: saved node: n1 is saved for JobId=$a of team-a, which needs 4 GPUs on one node: jobs that can start elsewhere take no victim there; it can start there soonest $why" \
	"n1 is saved for team-a's job"
expect_state "$a" PENDING

e1=$(submit e1 team-e 1)
e2=$(submit e2 team-e 1)
for e in "$e1" "$e2"; do
	wait_state "$e" RUNNING 30
	[[ $(sl squeue -h -j "$e" -o %N) == n2 ]] \
		|| fail "team-e's job $e runs on $(sl squeue -h -j "$e" -o %N), want n2 (n1 is saved)"
done
for i in 1 2 3; do
	expect_state "${b[i]}" RUNNING
done
requeued=0
for i in 4 5 6; do
	[[ $(restarts "${b[i]}") == 0 ]] || requeued=$((requeued + 1))
done
((requeued == 2)) || fail "$requeued of b4-b6 requeued, want 2 (e1, e2)"
expect_state "$a" PENDING

# c1 ends: n1 has 1 idle GPU and b1-b3 over quota: room for team-a's job
sl scancel "$c1"
wait_state "$a" RUNNING 60
[[ $(sl squeue -h -j "$a" -o %N) == n1 ]] \
	|| fail "team-a's job runs on $(sl squeue -h -j "$a" -o %N), want n1"
for j in "$c2" "$e1" "$e2"; do
	expect_state "$j" RUNNING
done
check_invariant 15
pass
