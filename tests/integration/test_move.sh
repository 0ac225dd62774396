#!/usr/bin/env bash
# A move (docs/MODEL.md "Moves"), with settings.move_age 600.  2 nodes x 4
# GPUs.  One node runs team-c's c1, c2 (in quota 2, --time 20 min) and
# team-b's b1, b2 (quota 0); the other team-d's d1, d2 (in quota 2),
# team-b's b3 and one idle GPU.  team-a (quota 4) asks 4 GPUs on one node:
# on each only 2 are idle or reclaimable; c1's node frees first (20 min,
# past move_age; the other node's jobs have no time limit), so it is saved.
# A pass later c1 and c2 are moved: they can restart at once on the other
# node, on its idle GPU and b3's.  team-a's job takes b1, b2, c1, c2 and
# runs; c1 and c2 restart (Slurm's requeue delay: cred_expire 10 s + 1).
# Meanwhile their landing is kept: team-b's b5, submitted then, does not
# take the idle GPU, nor do b1 and b2, requeued with them.  c1 or c2
# starts on it, the other reclaims b3.  team-c also asks 4 GPUs more (c3,
# room on no node): it asks past its quota, yet c1 and c2 are moved, as
# they restart first in team-c's queue; c3 never runs.
# slurmctld restarts while they wait: their landing is rebuilt, and b5
# stays held.  Everything that should run runs within a minute of
# team-a's submit.
. "$(dirname "$0")/lib.sh"

# In the accounting run (GQ_ACCOUNTING=1) as a production site runs
# Slurm: slurmdbd enforcing associations, limits and QOS, and a
# `scontrol reconfigure` while the moved jobs restart.
acct=(); [[ ${GQ_ACCOUNTING:-0} != 1 ]] ||
	acct=(--conf-extra AccountingStorageEnforce=associations,limits,qos)
up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 4},
                          {"name": "team-b", "gpu_quota": 0},
                          {"name": "team-c", "gpu_quota": 2},
                          {"name": "team-d", "gpu_quota": 2}],
             "settings": {"move_age": 600}}' \
	--nodes 2 --gpus 4 "${acct[@]}"

# placed without --nodelist (a pinned job is never moved): a 4-GPU
# filler takes one node, d1, d2, b3 and a 1-GPU filler the other; the
# first filler ends and c1, c2, b1, b2 take its node; the second ends
x=$(submit x team-d 4); wait_state "$x" RUNNING
d1=$(submit d1 team-d 1); wait_state "$d1" RUNNING
d2=$(submit d2 team-d 1); wait_state "$d2" RUNNING
b3=$(submit b3 team-b 1); wait_state "$b3" RUNNING
y=$(submit y team-d 1); wait_state "$y" RUNNING
sl scancel "$x"
_wait_eq 30 "" state "$x" || fail "the filler $x is still $(state "$x")"
c1=$(submit c1 team-c 1 --time 20); wait_state "$c1" RUNNING
c2=$(submit c2 team-c 1 --time 20); wait_state "$c2" RUNNING
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
b2=$(submit b2 team-b 1); wait_state "$b2" RUNNING
node=$(sl squeue -h -j "$c1" -o %N) other=$(sl squeue -h -j "$d1" -o %N)
[[ $node == $(sl squeue -h -j "$b2" -o %N) && $node != "$other" &&
   $other == $(sl squeue -h -j "$y" -o %N) ]] \
	|| fail "placement: $(sl squeue -h -o '%i %j %N')"
sl scancel "$y"
_wait_eq 30 "" state "$y" || fail "the filler $y is still $(state "$y")"
c3=$(submit c3 team-c 4)

a=$(submit a team-a 4)
wait_state "$a" RUNNING 60
# the landing is kept across a reconfigure (the same slurmctld on 22.05;
# from 23.11 a new one, which rebuilds it as after the restart below)
[[ ${GQ_ACCOUNTING:-0} != 1 ]] || sl scontrol reconfigure
# c1 and c2 wait out Slurm's requeue delay: b5 could take the idle GPU
b5=$(submit b5 team-b 1)
[[ $(sl squeue -h -j "$a" -o %N) == "$node" ]] \
	|| fail "team-a's job runs on $(sl squeue -h -j "$a" -o %N), want $node"
wait_logged 15 "hold JobId=$b5: gpuquota: GPUs are kept for job" \
	"b5 waits for a moved job's landing"
# the metrics count them as moves, b1 and b2 as quota reclaims (written
# after a pass; a restart starts them again from zero)
victims() { sl "$GPUQUOTA" metrics | grep -F "gpuquota_reclaim_victims_total{reason=\"$1\"}" | awk '{print $2}'; }
moves_quota() { echo "$(victims move) $(victims quota)"; }
counted() { [[ $(victims move) == 2 && $(victims quota) -ge 2 ]] && echo yes; }
_wait_eq 6 yes counted \
	|| fail "victims by reason: move $(victims move), quota $(victims quota); want 2 and 2 (b1, b2)"
quota_before=$(victims quota)	# 3 if c1 or c2 took b3 already
# slurmctld restarts while they wait: each landing is rebuilt from the
# moved job's comment, unless the job ran again before the first pass
"$CLUSTER" ctld-restart --dir "$DIR" --signal TERM >/dev/null 2>&1 \
	|| fail "slurmctld did not restart"
rebuilt() { logged "JobId=$1, moved to $other, is restarting: its landing is kept again"; }
landing_back() { [[ $(rebuilt "$1") == yes || $(state "$1") == RUNNING ]] && echo yes; }
for j in "$c1" "$c2"; do
	_wait_eq 10 yes landing_back "$j" \
		|| fail "moved job $j is $(state "$j") after the restart and its landing was not rebuilt"
done
[[ $(rebuilt "$c1")$(rebuilt "$c2") == *yes* ]] \
	|| echo "test_move: c1 and c2 ran again before slurmctld was back: no landing to rebuild" >&2
# b1 and b2, requeued for team-a, wait out the same delay as c1 and c2:
# held before it ends (slurmctld's clock: the hold's log line before the
# job's EligibleTime), as Slurm may start them at once
held_at() { grep -F "hold JobId=$1: gpuquota: GPUs are" "$DIR/log/slurmctld.log" | head -1 | cut -c2-20; }
for b in "$b1" "$b2"; do
	wait_logged 15 "hold JobId=$b: gpuquota: GPUs are" \
		"team-b's $b is held for the landing"
	eligible=$(sl scontrol show job "$b" | grep -oE 'EligibleTime=[^ ]+' | cut -d= -f2)
	[[ $(held_at "$b") < $eligible ]] \
		|| fail "team-b's $b was held at $(held_at "$b"), not before its requeue delay ended ($eligible)"
done
for j in "$c1" "$c2"; do
	(($(restarts "$j") >= 1)) || fail "team-c's job $j was not moved"
	# where it went and why, on the job itself
	sl scontrol show job "$j" | grep -qF "SystemComment=gpuquota: reclaimed for job $a of team-a (moved: that job needs this node whole; this one restarts on $other, where GPUs are idle or borrowed)" \
		|| fail "job $j's comment does not say it was moved: $(sl scontrol show job "$j" | grep -o 'SystemComment=.*')"
	wait_state "$j" RUNNING 60
	[[ $(sl squeue -h -j "$j" -o %N) == "$other" ]] \
		|| fail "moved job $j runs on $(sl squeue -h -j "$j" -o %N), want $other"
	[[ $(logged "gpuquota: move: JobId=$j of team-c (in quota) is requeued to empty $node for JobId=$a of team-a, which needs it whole; it restarts on $other") ]] \
		|| fail "no move line for $j in slurmctld's log"
done
# the other in-quota jobs stay; team-b's borrowed work is all that was
# taken besides the moved jobs; b5 never ran
for j in "$d1" "$d2"; do
	expect_state "$j" RUNNING
	[[ $(restarts "$j") == 0 ]] || fail "job $j was requeued"
done
expect_state "$a" RUNNING
for b in "$b1" "$b2" "$b3" "$b5" "$c3"; do
	expect_state "$b" PENDING
done
[[ $(restarts "$c3") == 0 ]] || fail "team-c's c3 ran"
[[ $(restarts "$b5") == 0 ]] || fail "b5 ran on the moved jobs' GPUs"
for b in "$b1" "$b2"; do
	[[ $(restarts "$b") == 1 ]] \
		|| fail "team-b's $b ran again on the landing ($(restarts "$b") restarts)"
done
# the ledger says move for both (written after the next pass)
moves() { sl "$GPUQUOTA" ledger --json | jq '[.records[] | select(.reason == "move")] | length'; }
_wait_eq 20 2 moves || fail "the ledger has $(moves) moves, want 2: $(sl "$GPUQUOTA" ledger --json)"
# since the restart the metrics count b3 (reclaimed by c1 or c2), unless
# counted before it
_wait_eq 20 "0 $((3 - quota_before))" moves_quota \
	|| fail "victims by reason since the restart: move $(victims move), quota $(victims quota); want 0 and 1 (b3)"
pass
