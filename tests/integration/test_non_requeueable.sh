#!/usr/bin/env bash
# Work that cannot be requeued (interactive srun, sbatch --no-requeue) only
# starts inside its project's quota, and is never a victim.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'

srun_bg() { # NAME ACCOUNT [srun options]: an interactive job in the background
	local name=$1 acct=$2
	shift 2
	(. "$DIR/env" && cd "$DIR" && exec timeout 300 srun -J "$name" -A "$acct" \
		--gres=gpu:1 "$@" sleep 300) >"$DIR/$name.out" 2>&1 &
	echo $! >>"$DIR/srun.pids"
}
jid() { sl squeue -h -n "$1" -o %i; }
stop_sruns() {
	if [[ -f $DIR/srun.pids ]]; then xargs -r kill <"$DIR/srun.pids" 2>/dev/null || true; fi
}
trap 'stop_sruns; _cleanup' EXIT

# 1. team-a q=2: a1 runs; interactive ia1 fits in quota (A=2) and runs, with
#    the lowest priority of team-a (nice) so that the victim walk meets it
#    first; a2 (batch) runs over quota on an idle GPU.
a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
srun_bg ia1 team-a --nice=500
for _ in $(seq 40); do [[ -n $(jid ia1) ]] && break; sleep 0.25; done
ia1=$(jid ia1); [[ -n $ia1 ]] || fail "srun ia1 did not submit: $(cat "$DIR/ia1.out")"
wait_state "$ia1" RUNNING
a2=$(submit a2 team-a 1); wait_state "$a2" RUNNING

# 2. an interactive job and a --no-requeue job past the quota wait, saying why
srun_bg ia2 team-a
nr=$(submit nr team-a 1 --no-requeue)
for _ in $(seq 40); do [[ -n $(jid ia2) ]] && break; sleep 0.25; done
ia2=$(jid ia2)
settle 3
for j in "$ia2" "$nr"; do
	expect_state "$j" PENDING
	reason=$(sl squeue -h -j "$j" -o %r)
	[[ $reason == *"cannot be requeued"* ]] || fail "job $j reason: '$reason'"
done

# 3. team-b fills the last GPU, then asks for its quota: Slurm reclaims from
#    team-a, over quota by 1: a2, never ia1 (lowest priority, 1 GPU, but it
#    cannot be requeued)
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
b2=$(submit b2 team-b 1); wait_state "$b2" RUNNING 30
settle 3
expect_state "$ia1" RUNNING
expect_state "$a1" RUNNING
[[ $(state "$a2") == PENDING && $(restarts "$a2") -ge 1 ]] || fail "a2 was not the victim"
[[ $(held_gpus team-a) == 2 && $(held_gpus team-b) == 2 ]] \
	|| fail "want 2 and 2, have $(held_gpus team-a) and $(held_gpus team-b)"
check_invariant 15
pass
