#!/usr/bin/env bash
# A move for a gang (docs/MODEL.md "Moves"), with settings.move_age 600.
# 3 nodes x 4 GPUs, none idle.  n1 runs team-c's c1 and team-b's b1-b3,
# n2 team-c's c2 and b4-b6 (team-c in quota 2, its jobs --time 20 min,
# not pinned: a pinned job is never moved; team-b quota 0), n3 team-d's
# d1, d2 (in quota 2) and a filler that then ends: 2 GPUs idle.  team-a
# (quota 8) asks 4 GPUs on each of 2 nodes: each node gives 3 or 2 within
# the floors, so no room; n1 and n2 free first (20 min, past move_age),
# so both are saved.  A pass later c1 and c2 are moved: each can restart
# at once on n3's idle GPUs.  team-a's gang takes b1-b6, c1, c2 and runs
# on n1 and n2; c1 and c2 restart on n3 (Slurm's requeue delay:
# cred_expire 10 s + 1), where their landing is kept from team-b's
# requeued jobs.  d1 and d2 stay.
. "$(dirname "$0")/lib.sh"

up_cluster '{"settings": {"move_age": 600},
             "projects": [{"name": "team-a", "gpu_quota": 8},
                          {"name": "team-b", "gpu_quota": 0},
                          {"name": "team-c", "gpu_quota": 2},
                          {"name": "team-d", "gpu_quota": 2}]}' \
	--nodes 3 --gpus 4

for i in 1 2 3 4 5 6; do
	b[i]=$(submit "b$i" team-b 1 -w "n$(((i - 1) / 3 + 1))")
	wait_state "${b[i]}" RUNNING
done
d1=$(submit d1 team-d 1 -w n3); wait_state "$d1" RUNNING
d2=$(submit d2 team-d 1 -w n3); wait_state "$d2" RUNNING
y=$(submit y team-d 2 -w n3); wait_state "$y" RUNNING
# one GPU free on n1 and on n2: c1 and c2 land there unpinned
c1=$(submit c1 team-c 1 --time 20); wait_state "$c1" RUNNING
c2=$(submit c2 team-c 1 --time 20); wait_state "$c2" RUNNING
declare -A on=([$c1]=$(sl squeue -h -j "$c1" -o %N) [$c2]=$(sl squeue -h -j "$c2" -o %N))
[[ ${on[$c1]}${on[$c2]} == n1n2 || ${on[$c1]}${on[$c2]} == n2n1 ]] \
	|| fail "placement: $(sl squeue -h -o '%i %j %N')"
sl scancel "$y"
_wait_eq 30 "" state "$y" || fail "the filler $y is still $(state "$y")"

a=$(submit a team-a 4 -N 2)
wait_state "$a" RUNNING 60
[[ $(sl squeue -h -j "$a" -o %N) == "n[1-2]" ]] \
	|| fail "team-a's gang runs on $(sl squeue -h -j "$a" -o %N), want n[1-2]"
for j in "$c1" "$c2"; do
	(($(restarts "$j") >= 1)) || fail "team-c's job $j was not moved"
	[[ $(logged "gpuquota: move: JobId=$j of team-c (in quota) is requeued to empty ${on[$j]} for JobId=$a of team-a, which needs it whole; it restarts on n3") ]] \
		|| fail "no move line for $j (from ${on[$j]}) in slurmctld's log"
	wait_state "$j" RUNNING 60
	[[ $(sl squeue -h -j "$j" -o %N) == n3 ]] \
		|| fail "moved job $j runs on $(sl squeue -h -j "$j" -o %N), want n3"
done
# the in-quota jobs not moved stay; team-b's borrowed work is all that
# was taken besides the moved jobs, and it waits (nothing idle)
for j in "$d1" "$d2"; do
	expect_state "$j" RUNNING
	[[ $(restarts "$j") == 0 ]] || fail "job $j was requeued"
done
for i in 1 2 3 4 5 6; do
	[[ $(restarts "${b[i]}") == 1 ]] \
		|| fail "team-b's b$i: $(restarts "${b[i]}") restarts, want 1 (requeued for the gang, then no room)"
	expect_state "${b[i]}" PENDING
done
moves() { sl "$GPUQUOTA" ledger --json | jq '[.records[] | select(.reason == "move")] | length'; }
_wait_eq 20 2 moves || fail "the ledger has $(moves) moves, want 2: $(sl "$GPUQUOTA" ledger --json)"
check_invariant 15
pass
