#!/usr/bin/env bash
# Checkpoint-aware victims (docs/MODEL.md "Reclaim order"): 2 nodes x 2
# GPUs, team-a quota 1, team-b quota 3.  team-a runs a1, whose batch script
# runs `gpuquota checkpoint` every 2 s, and a2 (younger, never
# checkpoints); team-b runs b1, b2.  team-b's b3 (in quota: 3 <= 3) takes
# one of team-a's GPUs: the one whose requeue loses the least work is a1
# (saved 2 s ago or less), not the youngest a2 (10 s of work or more).
# Another user cannot note a checkpoint on a1; a note copied from another
# job is ignored with a log line.  An array's tasks note their own.
. "$(dirname "$0")/lib.sh"

user=gqprivate	# a system user, made once (idempotent; as test_private_data)
id -u "$user" >/dev/null 2>&1 || useradd --system --no-create-home \
	--shell /usr/sbin/nologin "$user" || fail "cannot create user $user"
share_with_others
up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 1},
                          {"name": "team-b", "gpu_quota": 3}]}'
chmod o+x "$DIR/munge"
as_user() { (. "$DIR/env" && cd /tmp && runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" "$@"); }

a1=$(sl sbatch --parsable -J a1 -A team-a --gres=gpu:1 -o "$DIR/a1.out" \
	--wrap "while true; do $GPUQUOTA checkpoint || exit 1; sleep 2; done")
wait_state "$a1" RUNNING
noted() { sl scontrol show job "$a1" | grep -q "Comment=gpuquota-checkpoint=$a1@" && echo yes; }
_wait_eq 20 yes noted \
	|| fail "a1's comment has no checkpoint note: $(sl scontrol show job "$a1" | grep -o 'Comment=[^ ]*'); $(cat "$DIR/a1.out" 2>/dev/null)"
a2=$(submit a2 team-a 1); wait_state "$a2" RUNNING
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
b2=$(submit b2 team-b 1); wait_state "$b2" RUNNING

# another user may not note a checkpoint on a1 (Slurm's own check)
rc=0; msg=$(as_user "$GPUQUOTA" checkpoint "$a1" 2>&1) || rc=$?
[[ $rc == 1 && $msg == *"job $a1"* ]] || fail "another user's checkpoint on a1: rc $rc, '$msg'"
# a bad job id
rc=0; "$GPUQUOTA" checkpoint 12x >/dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "gpuquota checkpoint 12x: rc $rc, want 2"

# a2's work grows past a1's: a1 saves every 2 s
sleep 10
b3=$(submit b3 team-b 1); wait_state "$b3" RUNNING 30
settle 3
expect_state "$a2" RUNNING
[[ $(restarts "$a1") -ge 1 ]] || fail "a1 was not requeued"
[[ $(restarts "$a2") == 0 ]] || fail "a2 (no checkpoint, the youngest) was requeued"
[[ $(held_gpus team-a) == 1 ]] || fail "team-a holds $(held_gpus team-a) GPUs, want 1"
[[ $(held_gpus team-b) == 3 ]] || fail "team-b holds $(held_gpus team-b) GPUs, want 3"

# a note copied from a1 onto b1 is ignored (b1 is ordered as without one),
# said once in slurmctld's log
sl scontrol update jobid="$b1" comment="gpuquota-checkpoint=$a1@$(date +%s)" \
	|| fail "scontrol update comment"
said() { grep -q "JobId=$b1: its comment has another job's checkpoint (ignored)" "$DIR/log/slurmctld.log" && echo yes; }
_wait_eq 20 yes said \
	|| fail "no log line for b1's copied note"
check_invariant 15

# an array's tasks each note their own checkpoint (a task is updated as
# <array>_<task>: the plain id of the task that carries the array's id
# would write every task's comment)
sl scancel "$a2" "$b3"
arr=$(sl sbatch --parsable -J arr -A team-b --gres=gpu:1 --array=0-1 -o /dev/null \
	--wrap "$GPUQUOTA checkpoint && sleep 3600")
own_notes() {
	local n=0 id c
	while read -r id c; do
		[[ $c == *"gpuquota-checkpoint=$id@"* ]] && n=$((n + 1))
	done < <(sl squeue -h -r -j "$arr" -t R -o '%A %k')
	echo "$n"
}
_wait_eq 30 2 own_notes \
	|| fail "array tasks' notes: $(sl squeue -h -r -j "$arr" -o '%A %i %T %k' | tr '\n' ';')"
pass
