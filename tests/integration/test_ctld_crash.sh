#!/usr/bin/env bash
# slurmctld killed with SIGKILL in the middle of a reclaim, restarted the
# usual way (state recovered from StateSaveLocation): the quick start still
# ends where it would have without the crash (a2, b1, b2 running, a1
# pending), no job is duplicated, and a1 is requeued once for the one
# reclaim, whether the kill came before it, during it or after it.
# Three rounds on fresh clusters, killing 3, 1.5 and 0.5 s after b2's
# submit.  Slurm writes its state some seconds after a change: each round
# waits until Slurm has saved a1, a2 and b1 running before b2 comes; a b2
# Slurm had acknowledged but not saved is lost by Slurm (not gpuquota:
# docs/RELIABILITY.md), said, and submitted again: the outcome must be the
# same.  Likewise a requeue of a1 Slurm had done but not saved: the
# restored a1 runs on a node that killed it, and the node's report ends
# it; said, and the rest of the outcome must hold.
. "$(dirname "$0")/lib.sh"

# lost_requeue JOB: Slurm requeued JOB before the kill (its log says so
# before the restart's "loaded" line) but had not saved it: the restored
# JOB runs, then its node's end of the killed batch script ends it
# (JobState=FAILED or CANCELLED) instead of leaving it pending
lost_requeue() {
	local st
	st=$(sl scontrol -o show job "$1" 2>/dev/null | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2)
	[[ $st == PENDING || $st == RUNNING ]] && return 1
	awk -v j="JobId=$1 " '
		index($0, "preempted " j "has been requeued") { rq = 1 }
		/gpuquota: loaded/ && rq { after = 1 }
		END { exit !after }' "$DIR/log/slurmctld.log"
}

round() { # SECONDS before the kill
	local a1 a2 b1 b2 j ids t0 burn
	up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
	                          {"name": "team-b", "gpu_quota": 2}]}'
	a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
	a2=$(submit a2 team-a 2); wait_state "$a2" RUNNING
	b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
	# Slurm saves its state after a change: make one (a comment), then
	# wait for a save that includes it
	t0=$(date +%s.%N)
	sl scontrol update jobid="$b1" comment=saved || fail "scontrol update failed"
	wait_saved "$t0" 60 || fail "Slurm did not save its job state within 60 s"
	b2=$(submit b2 team-b 1)
	sleep "$1"
	"$CLUSTER" ctld-restart --dir "$DIR" --signal KILL >/dev/null 2>&1 \
		|| fail "slurmctld did not come back (kill after $1 s)"
	if [[ -z $(state "$b2") ]]; then
		echo "$TEST: kill $1 s after the submit: Slurm lost b2 (job $b2) it had acknowledged" >&2
		lost=$((lost + 1))
		# Slurm gives a lost job's id to the next submit, while the
		# node may still run the lost job's batch script: Slurm then
		# fails the new job ("Registered PENDING JobId=4 StepId=
		# 4.batch").  That id goes to a held job, cancelled at once.
		burn=$(sl sbatch --parsable --hold -J burn -A team-b -o /dev/null --wrap true) \
			|| fail "sbatch failed after the restart"
		sl scancel "$burn"
		b2=$(submit b2 team-b 1)
	fi
	# Slurm's restored state may say a1 runs on n1, which had already
	# ended it; once b2 was seen still pending 60 s after such a restart
	# (cause not established): wait as long as Slurm's periodic node
	# ping (100 s with the default SlurmdTimeout), and say when it is
	# slow
	t0=$SECONDS
	if ! _wait_eq 150 RUNNING state "$b2"; then
		for j in "$a1" "$b2"; do sl scontrol show job "$j" >&2; done
		fail "b2 (job $b2) not running 150 s after the restart (kill after $1 s)"
	fi
	if ((SECONDS - t0 > 30)); then
		echo "$TEST: b2 started $((SECONDS - t0)) s after the restart (kill after $1 s)" >&2
	fi
	settle 4
	if lost_requeue "$a1"; then
		echo "$TEST: kill $1 s after the submit: Slurm lost a1's requeue (job $a1) it had done and ended a1 instead" >&2
		lost_rq=$((lost_rq + 1))
		a1=
	else
		expect_state "$a1" PENDING
		[[ $(restarts "$a1") == 1 ]] || fail "a1 requeued $(restarts "$a1") times, want 1 (kill after $1 s)"
	fi
	for j in "$a2" "$b1" "$b2"; do expect_state "$j" RUNNING; done
	for j in "$a2" "$b1" "$b2"; do
		[[ $(restarts "$j") == 0 ]] || fail "job $j was requeued (kill after $1 s)"
	done
	[[ $(held_gpus team-a) == 2 && $(held_gpus team-b) == 2 ]] \
		|| fail "team-a holds $(held_gpus team-a), team-b $(held_gpus team-b) (kill after $1 s)"
	# every job once: nothing lost, nothing duplicated
	ids=$(sl squeue -h -o %i | sort -n | tr '\n' ' ')
	[[ $ids == "$(printf '%s\n' $a1 "$a2" "$b1" "$b2" | sort -n | tr '\n' ' ')" ]] \
		|| fail "jobs after the crash: '$ids', want $a1 $a2 $b1 $b2 (kill after $1 s)"
	check_invariant 15
	"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1
}

lost=0 lost_rq=0
first=$DIR
for s in 3 1.5 0.5; do
	DIR=$(mktemp -d "${TMPDIR:-/tmp}/gq-$TEST.XXXXXX")
	round "$s"
	rm -rf "$DIR"
done
DIR=$first
echo "$TEST: Slurm lost $lost of 3 submits acknowledged before a SIGKILL, $lost_rq of 3 requeues done before it"
pass
