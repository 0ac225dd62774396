#!/usr/bin/env bash
# slurmctld restarted while slurmdbd is down (accounting mode; the test
# starts its cluster with slurmdbd itself): slurmctld comes back on the
# association cache it saved (assoc_mgr state), and gpuquota decides as
# before: the quick start settles as usual and an account gpuquota knew
# only from Slurm's account tree (made in sacctmgr under a department's
# account) stays that department's.  Then slurmdbd comes back and a change
# of the tree is picked up.
# The quick start (2 nodes x 2 GPUs, team-a and team-b at quota 2), team-b
# in department research (quota 2, limit 2); account newb made under
# research in sacctmgr (gpuquota.json does not name it):
#  1. slurmdbd stopped; slurmctld stopped with SIGTERM and started again:
#     b2 makes Slurm requeue a1 (not a2): a2, b1, b2 run, a1 waits; a job
#     of newb then waits with research's limit reason.
#  2. the same with SIGKILL (nothing saved on the way out).
#  3. slurmdbd back: account moved made a child of research in sacctmgr is
#     research's within a few passes.
. "$(dirname "$0")/lib.sh"

up_research_dbd

limit_reason='department research would pass its gpu_limit (2 GPUs)'

# an account only Slurm's tree puts in research
sl sacctmgr -i add account newb Parent=research Cluster="$cluster" >/dev/null \
	|| fail "sacctmgr add account newb"
sl sacctmgr -i add user root Account=newb Cluster="$cluster" >/dev/null
# slurmctld knows newb (a job of it is accepted) before slurmdbd stops
for ((i = 0; i < 60; i++)); do
	n0=$(submit n0 newb 1 --begin=now+3600 2>/dev/null) && break
	sleep 1
done
[[ -n ${n0:-} ]] || fail "slurmctld never accepted account newb"
sl scancel "$n0"

a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
a2=$(submit a2 team-a 2); wait_state "$a2" RUNNING
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
wait_stable 30

# 1. and 2.: slurmdbd down, slurmctld restarted with TERM, then with KILL
"$CLUSTER" dbd-stop --dir "$DIR" >/dev/null 2>&1 || fail "cannot stop slurmdbd"
daemon_running slurmdbd && fail "slurmdbd still runs"
round=0
for sig in TERM KILL; do
	round=$((round + 1))
	if [[ $sig == KILL ]]; then
		# what Slurm saved is what comes back: wait for its save of the
		# last change (b2 ended, a1 running again)
		t0=$(date +%s.%N)
		sl scontrol update jobid="$a2" comment="round $round" >/dev/null
		wait_saved "$t0" || fail "Slurm did not save its state before the kill"
	fi
	"$CLUSTER" ctld-restart --dir "$DIR" --signal "$sig" >/dev/null 2>&1 \
		|| fail "slurmctld did not start again after SIG$sig with slurmdbd down"
	grep -q 'gpuquota: loaded' "$DIR/log/slurmctld.log" || fail "no gpuquota after the restart"
	before_a1=$(restarts "$a1")
	b2=$(submit "b2-$sig" team-b 1) || fail "sbatch refused after SIG$sig with slurmdbd down"
	wait_state "$b2" RUNNING 150
	settle 3
	expect_state "$a1" PENDING
	for j in "$a2" "$b1" "$b2"; do expect_state "$j" RUNNING; done
	[[ $(restarts "$a1") == $((before_a1 + 1)) ]] \
		|| fail "SIG$sig: a1 requeued $(($(restarts "$a1") - before_a1)) times for b2, want 1"
	for j in "$a2" "$b1" "$b2"; do
		[[ $(restarts "$j") == 0 ]] || fail "SIG$sig: job $j was requeued"
	done
	[[ $(held_gpus team-a) == 2 && $(held_gpus team-b) == 2 ]] \
		|| fail "SIG$sig: team-a holds $(held_gpus team-a), team-b $(held_gpus team-b), want 2 and 2"
	# newb is still research's (full now): its job waits with the limit
	n1=$(submit "n1-$sig" newb 1) || fail "SIG$sig: sbatch -A newb refused with slurmdbd down"
	_wait_eq 30 yes reason_has "$n1" "$limit_reason" \
		|| fail "SIG$sig: newb's job: reason '$(sl squeue -h -j "$n1" -o %r)', want research's limit: gpuquota forgot the account tree"
	expect_state "$n1" PENDING
	check_invariant 10
	# back to the start of the round: b2 and n1 gone, a1 runs again
	sl scancel "$n1" "$b2"
	wait_state "$a1" RUNNING 90
	wait_held team-a 3 30
done

# 3. slurmdbd back; an account moved under research
"$CLUSTER" dbd-start --dir "$DIR" >/dev/null 2>&1 || fail "slurmdbd did not start again"
move_account moved research || fail "sacctmgr could not move account moved after slurmdbd came back"
b2=$(submit b2-back team-b 1); wait_state "$b2" RUNNING 60
m1=$(submit m1 moved 1)
_wait_eq 60 yes reason_has "$m1" "$limit_reason" \
	|| fail "moved's job: reason '$(sl squeue -h -j "$m1" -o %r)', want research's limit: the move was not seen"
if grep -E 'fatal|error: gpuquota' "$DIR/log/slurmctld.log" >&2; then
	fail "slurmctld logged the lines above"
fi
pass
