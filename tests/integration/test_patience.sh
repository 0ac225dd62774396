#!/usr/bin/env bash
# Patience for loans that end soon (settings.reclaim_patience 120 s): a
# job with a short --time on idle GPUs is a loan that is never taken back.
# 2 nodes x 2 GPUs; team-a (quota 2) runs a3 with --time=1 (its limit ends
# it within a minute), a1, a2 and a4 without a limit: 2 over its quota.
# team-b (quota 2) submits b1: it waits for a3 (its reason says so) and
# nothing is requeued; b2 then finds no loan left and takes a4 at once
# (the GPU goes to the higher of the two; the other waits for a3).  a3
# ends at its limit, never requeued, and both run.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}],
             "settings": {"reclaim_patience": 120}}' --conf-extra KillWait=5

a3=$(submit a3 team-a 1 --time=1)
wait_state "$a3" RUNNING
a1=$(submit a1 team-a 1)
wait_state "$a1" RUNNING
a2=$(submit a2 team-a 1)
wait_state "$a2" RUNNING
a4=$(submit a4 team-a 1)
wait_state "$a4" RUNNING
settle 3

b1=$(submit b1 team-b 1)
waiting() { [[ $(sl squeue -h -j "$b1" -o %r) == *"waiting up to "*" s for team-a's job $a3 to end instead of requeueing it"* ]] && echo yes; }
_wait_eq 15 yes waiting || fail "b1 does not wait for a3: $(sl squeue -h -j "$b1" -o %r)"
expect_state "$b1" PENDING
! grep -q "reclaim: JobId=$b1 " "$DIR/log/slurmctld.log" || fail "b1 reclaimed: $(grep 'reclaim:' "$DIR/log/slurmctld.log")"

# the other side: no other loan ends soon, so b2 reclaims at once (a4).
# Slurm gives the freed GPU to the higher of the two, b1; b2 then waits
# for a3 in its turn: one requeue for the two of them, none of a3
b2=$(submit b2 team-b 1)
_wait_eq 20 1 held_gpus team-b || fail "no team-b job runs after b2's reclaim"
grep -q "reclaim: JobId=$b2 .*takes JobId=$a4 " "$DIR/log/slurmctld.log" \
	|| fail "b2 did not take a4: $(grep 'reclaim:' "$DIR/log/slurmctld.log")"
waiter=$b2
[[ $(state "$b2") == RUNNING ]] && waiter=$b1
b1=$waiter
_wait_eq 15 yes waiting || fail "job $waiter does not wait for a3: $(sl squeue -h -j "$waiter" -o %r)"

# a3 ends at its limit (Slurm checks limits every 30 s); the waiter runs
wait_state "$waiter" RUNNING 120
a3_state=$(sl scontrol show job "$a3" | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2)
[[ $a3_state == TIMEOUT ]] || fail "a3 is $a3_state, not ended by its time limit"
[[ $(restarts "$a3") == 0 ]] || fail "a3 was requeued"
n=$(grep -c "gpuquota: reclaim: " "$DIR/log/slurmctld.log" || true)
[[ $n == 1 ]] || fail "$n reclaims, want 1 (a4): $(grep 'reclaim:' "$DIR/log/slurmctld.log")"
[[ $(held_gpus team-a) == 2 && $(held_gpus team-b) == 2 ]] \
	|| fail "team-a holds $(held_gpus team-a), team-b $(held_gpus team-b); want 2 and 2"
check_invariant 15
pass
