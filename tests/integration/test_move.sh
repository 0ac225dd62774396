#!/usr/bin/env bash
# A move (docs/MODEL.md "Moves"), with settings.move_age 600.  2 nodes x 4
# GPUs.  One node runs team-c's c1, c2 (in quota 2) and team-b's b1, b2
# (quota 0); the other team-d's d1, d2 (in quota 2) and team-b's b3, b4.  team-a
# (quota 4) asks 4 GPUs on one node: on each node only team-b's 2 are
# reclaimable, and no node frees by waiting before the partition's time
# limit; one is saved for it (say c1's).  A pass later the in-quota jobs
# there (c1, c2) are moved: they can restart at once on the other node,
# in b3's and b4's GPUs.  team-a's job takes b1, b2, c1, c2 and runs on
# c1's node; c1 and c2 restart (Slurm's requeue delay: cred_expire 10 s
# + 1), reclaim b3 and b4, and run on the other.
# Everything that should run runs within a minute of team-a's submit.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 4},
                          {"name": "team-b", "gpu_quota": 0},
                          {"name": "team-c", "gpu_quota": 2},
                          {"name": "team-d", "gpu_quota": 2}],
             "settings": {"move_age": 600}}' \
	--nodes 2 --gpus 4

# placed without --nodelist (a pinned job is never moved): a 4-GPU
# filler takes one node, d1, d2, b3, b4 the other; the filler ends and
# c1, c2, b1, b2 take its node
x=$(submit x team-d 4); wait_state "$x" RUNNING
d1=$(submit d1 team-d 1); wait_state "$d1" RUNNING
d2=$(submit d2 team-d 1); wait_state "$d2" RUNNING
b3=$(submit b3 team-b 1); wait_state "$b3" RUNNING
b4=$(submit b4 team-b 1); wait_state "$b4" RUNNING
sl scancel "$x"
_wait_eq 30 "" state "$x" || fail "the filler $x is still $(state "$x")"
c1=$(submit c1 team-c 1); wait_state "$c1" RUNNING
c2=$(submit c2 team-c 1); wait_state "$c2" RUNNING
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
b2=$(submit b2 team-b 1); wait_state "$b2" RUNNING
[[ $(sl squeue -h -j "$c1" -o %N) == $(sl squeue -h -j "$b2" -o %N) &&
   $(sl squeue -h -j "$c1" -o %N) != $(sl squeue -h -j "$d1" -o %N) ]] \
	|| fail "placement: $(sl squeue -h -o '%i %j %N')"

a=$(submit a team-a 4)
wait_state "$a" RUNNING 60
# the nodes are alike (both free only when jobs reach the partition's
# time limit): the saved node is either; the in-quota jobs there move
# (which were: the team whose first job was requeued)
node=$(sl squeue -h -j "$a" -o %N)
case $node in
n1) other=n2 ;;
n2) other=n1 ;;
*) fail "team-a's job runs on '$node'" ;;
esac
if (($(restarts "$c1") >= 1)); then
	moved=("$c1" "$c2") stay=("$d1" "$d2") team=team-c
else
	moved=("$d1" "$d2") stay=("$c1" "$c2") team=team-d
fi
for j in "${moved[@]}"; do
	(($(restarts "$j") >= 1)) || fail "$team's job $j was not moved"
	# where it went and why, on the job itself
	sl scontrol show job "$j" | grep -qF "SystemComment=gpuquota: reclaimed for job $a of team-a (moved: that job needs this node whole; this one restarts on $other, where GPUs are idle or borrowed)" \
		|| fail "job $j's comment does not say it was moved: $(sl scontrol show job "$j" | grep -o 'SystemComment=.*')"
	wait_state "$j" RUNNING 60
	[[ $(sl squeue -h -j "$j" -o %N) == "$other" ]] \
		|| fail "moved job $j runs on $(sl squeue -h -j "$j" -o %N), want $other"
	[[ $(logged "gpuquota: move: JobId=$j of $team (in quota) is requeued to empty $node for JobId=$a of team-a, which needs it whole; it restarts on $other") ]] \
		|| fail "no move line for $j in slurmctld's log"
done
# the other in-quota jobs stay; team-b's borrowed work is all that was
# taken besides the moved jobs
for j in "${stay[@]}"; do
	expect_state "$j" RUNNING
	[[ $(restarts "$j") == 0 ]] || fail "job $j was requeued"
done
expect_state "$a" RUNNING
for b in "$b1" "$b2" "$b3" "$b4"; do
	expect_state "$b" PENDING
done
# the ledger says move for both (written after the next pass)
moves() { sl "$GPUQUOTA" ledger --json | jq '[.records[] | select(.reason == "move")] | length'; }
_wait_eq 20 2 moves || fail "the ledger has $(moves) moves, want 2: $(sl "$GPUQUOTA" ledger --json)"
pass
