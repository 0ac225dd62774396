#!/usr/bin/env bash
# slurmdbd, then MariaDB, stopped under a daemon_running slurmctld (accounting
# mode; the test starts its cluster with slurmdbd itself): slurmctld keeps
# scheduling with gpuquota's decisions unchanged, and gpuquota picks up
# Slurm's account tree again when they are back.
# The quick start (2 nodes x 2 GPUs, team-a and team-b at quota 2), team-b
# in department research (quota 2, limit 2):
#  1. slurmdbd stopped: priorities stay what they were; b2 makes Slurm
#     requeue a1 (not a2), exactly as in the quick start.
#  2. slurmdbd back: a new account under research, made in sacctmgr, is
#     research's within a few passes: its job waits with the department's
#     limit reason (an unknown account would be a 0-quota project of its own).
#  3. MariaDB stopped (slurmdbd up): b2 ends, a1 runs again on the idle GPU,
#     b3 reclaims it again; MariaDB back: an account moved under research
#     in sacctmgr is research's within a few passes.
# slurmctld is the same process throughout; no sanitizer report (lib.sh).
. "$(dirname "$0")/lib.sh"

up_research_dbd
ctld=$(cat "$DIR/pids/slurmctld.pid")

limit_reason='department research would pass its gpu_limit (2 GPUs)'

a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
a2=$(submit a2 team-a 2); wait_state "$a2" RUNNING
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
wait_stable 30
before=$(jobs_snapshot)

# 1. slurmdbd down
"$CLUSTER" dbd-stop --dir "$DIR" >/dev/null 2>&1 || fail "cannot stop slurmdbd"
daemon_running slurmdbd && fail "slurmdbd still runs"
settle 6
[[ $(jobs_snapshot) == "$before" ]] \
	|| fail "priorities changed with slurmdbd down: '$before' -> '$(jobs_snapshot)'"
# the command answers without slurmdbd, and says what it could not read
out=$(sl "$GPUQUOTA" projects --json 2>"$DIR/projects.err") || fail "gpuquota projects failed with slurmdbd down"
[[ $(jq -r '.projects[] | select(.name == "team-a") | .allocated + 0' <<<"$out") == 3 ]] \
	|| fail "gpuquota projects with slurmdbd down: $out"
grep -q "warning: sacctmgr show assoc failed: Slurm's account tree is not read" "$DIR/projects.err" \
	|| fail "gpuquota projects did not say it could not read the account tree: $(cat "$DIR/projects.err")"
b2=$(submit b2 team-b 1) || fail "sbatch refused with slurmdbd down"
wait_state "$b2" RUNNING 60
settle 3
expect_state "$a1" PENDING
for j in "$a2" "$b1" "$b2"; do expect_state "$j" RUNNING; done
[[ $(restarts "$a1") == 1 ]] || fail "a1 requeued $(restarts "$a1") times, want 1"
for j in "$a2" "$b1" "$b2"; do
	[[ $(restarts "$j") == 0 ]] || fail "job $j was requeued"
done
[[ $(held_gpus team-a) == 2 && $(held_gpus team-b) == 2 ]] \
	|| fail "team-a holds $(held_gpus team-a), team-b $(held_gpus team-b), want 2 and 2"
check_invariant 15

# 2. slurmdbd back; a new account under research
"$CLUSTER" dbd-start --dir "$DIR" >/dev/null 2>&1 || fail "slurmdbd did not start again"
sl sacctmgr -i add account newb Parent=research Cluster="$cluster" >/dev/null \
	|| fail "sacctmgr add account newb"
sl sacctmgr -i add user root Account=newb Cluster="$cluster" >/dev/null
# slurmctld learns the association from slurmdbd; until then sbatch -A newb
# is refused (AccountingStorageEnforce=associations)
for ((i = 0; i < 60; i++)); do
	n1=$(submit n1 newb 1 2>/dev/null) && break
	sleep 1
done
[[ -n ${n1:-} ]] || fail "slurmctld never accepted account newb after slurmdbd came back"
_wait_eq 30 yes reason_has "$n1" "$limit_reason" \
	|| fail "newb's job: reason '$(sl squeue -h -j "$n1" -o %r)', want research's limit: the new account is not in research"
expect_state "$n1" PENDING
sl scancel "$n1"

# 3. MariaDB down (slurmdbd stays up)
"$CLUSTER" db-stop --dir "$DIR" >/dev/null 2>&1 || fail "cannot stop MariaDB"
daemon_running mariadbd && fail "MariaDB still runs"
sl scancel "$b2"
wait_state "$a1" RUNNING 60	# a1 after Slurm's requeue delay, on the idle GPU
wait_held team-a 3 30
b3=$(submit b3 team-b 1) || fail "sbatch refused with MariaDB down"
wait_state "$b3" RUNNING 60
settle 3
expect_state "$a1" PENDING
[[ $(restarts "$a1") == 2 ]] || fail "a1 requeued $(restarts "$a1") times, want 2"
for j in "$a2" "$b1" "$b3"; do
	[[ $(restarts "$j") == 0 ]] || fail "job $j was requeued"
	expect_state "$j" RUNNING
done
[[ $(held_gpus team-a) == 2 && $(held_gpus team-b) == 2 ]] \
	|| fail "team-a holds $(held_gpus team-a), team-b $(held_gpus team-b), want 2 and 2"
check_invariant 15

# MariaDB back; an account moved under research
"$CLUSTER" db-start --dir "$DIR" >/dev/null 2>&1 || fail "MariaDB did not start again"
move_account moved research || fail "sacctmgr could not move account moved after MariaDB came back"
m1=$(submit m1 moved 1)
_wait_eq 30 yes reason_has "$m1" "$limit_reason" \
	|| fail "moved's job: reason '$(sl squeue -h -j "$m1" -o %r)', want research's limit: the move was not seen"

if [[ $(cat "$DIR/pids/slurmctld.pid") != "$ctld" ]] || ! daemon_running slurmctld; then
	fail "slurmctld $ctld did not survive the outages"
fi
if grep -E 'fatal|error: gpuquota' "$DIR/log/slurmctld.log" >&2; then
	fail "slurmctld logged the lines above during the outages"
fi
pass
