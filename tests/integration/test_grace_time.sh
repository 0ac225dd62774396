#!/usr/bin/env bash
# Warning before requeue (settings.grace_time 20 s): a victim gets SIGTERM
# and is requeued when it exits or when its grace time is up, whichever
# comes first; the preemptor starts as soon as the GPUs are free, and no
# second victim is taken while the first one is in its grace time.
# 2 nodes x 2 GPUs; team-a (quota 1) runs a1..a4, 3 over its quota; a3
# traps SIGTERM (writes a checkpoint file and exits), a4 ignores it.
# Youngest first: b1 takes a4, which stays until the 20 s are up (team-a
# could give 3, but a4's GPU is already on its way: Slurm waits for it);
# then b2 takes a3, which saves and exits at once.  KillWait 15 s: a4,
# which ignores SIGTERM, is killed 15 s after its grace time, as Slurm
# stops any job; Slurm's own pause after a preemption (KillWait +
# MessageTimeout, 25 s) ends while a4 is still on its way out.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 1},
                          {"name": "team-b", "gpu_quota": 3}],
             "settings": {"grace_time": 20}}' --conf-extra KillWait=15

for i in 1 2; do
	a=$(submit "a$i" team-a 1)
	wait_state "$a" RUNNING
done
ckpt=$DIR/a3.checkpoint
a3=$(sl sbatch --parsable -J a3 -A team-a --gres=gpu:1 \
	--wrap "trap 'echo saved > $ckpt; exit 0' TERM; sleep 3600 & wait")
wait_state "$a3" RUNNING
a4=$(sl sbatch --parsable -J a4 -A team-a --gres=gpu:1 \
	--wrap "trap '' TERM; sleep 3600 & wait; sleep 3600")
wait_state "$a4" RUNNING
settle 3

# b1: a4 is warned, not requeued, and nothing else is taken meanwhile
t0=$EPOCHSECONDS
b1=$(submit b1 team-b 1)
_wait_eq 15 1 bash -c "grep -c 'reclaim: JobId=$b1 .*takes JobId=$a4 .*warned first' '$DIR/log/slurmctld.log'" \
	|| fail "b1 did not reclaim a4 with a warning: $(grep 'reclaim:' "$DIR/log/slurmctld.log")"
sleep 10
expect_state "$a4" RUNNING
expect_state "$b1" PENDING
wait_state "$b1" RUNNING 45
# Slurm's own pause after a preemption (25 s) ended before a4 left:
# gpuquota offered nothing new meanwhile
n=$(grep -c "reclaim: JobId=$b1 " "$DIR/log/slurmctld.log" || true)
[[ $n == 1 ]] || fail "b1 took $n victims for one GPU: $(grep 'reclaim:' "$DIR/log/slurmctld.log")"
waited=$((EPOCHSECONDS - t0))
((waited >= 18)) || fail "b1 ran after ${waited}s, before a4's grace time of 20 s was up"
# requeued at the end of its grace time: by Slurm's own check of
# preempted jobs, or by gpuquota's pass if that comes first
grep -qE "(preempted JobId=$a4 has been requeued|reclaimed JobId=$a4 reached the end of its grace time: requeued)" \
	"$DIR/log/slurmctld.log" \
	|| fail "a4 not requeued at the end of its grace time: $(grep "JobId=$a4\\b" "$DIR/log/slurmctld.log")"
wait_state "$a4" PENDING
[[ $(restarts "$a4") == 1 ]] || fail "a4 restarted $(restarts "$a4") times, want 1"

# b2: a3 saves its work and exits at once; it is requeued, b2 runs
t0=$EPOCHSECONDS
b2=$(submit b2 team-b 1)
wait_state "$b2" RUNNING 15
[[ $(cat "$ckpt" 2>/dev/null) == saved ]] || fail "a3's checkpoint handler did not run"
# requeued: Slurm 22.05 would leave it COMPLETED, so gpuquota's next pass
# requeues it; 24.11 requeues a job that ends in its preemption grace time
# itself (GRACE_PREEMPT in _slurm_rpc_complete_batch_script), and then
# gpuquota has nothing to do
_wait_eq 10 1 bash -c "grep -qE 'reclaimed JobId=$a3 exited in its grace time: requeued|_job_complete: requeue JobId=$a3 per user/system request' '$DIR/log/slurmctld.log' && echo 1" \
	|| fail "a3 not requeued when it exited: $(grep "JobId=$a3\\b" "$DIR/log/slurmctld.log")"
_wait_eq 10 PENDING state "$a3" || fail "a3 is $(state "$a3"), not requeued"
[[ $(restarts "$a3") == 1 ]] || fail "a3 restarted $(restarts "$a3") times, want 1"
echo "$TEST: b1 ran ${waited}s after its submit (a4 ignored SIGTERM), b2 $((EPOCHSECONDS - t0))s or less (a3 saved and exited)"
[[ $(held_gpus team-a) == 2 && $(held_gpus team-b) == 2 ]] \
	|| fail "team-a holds $(held_gpus team-a), team-b $(held_gpus team-b); want 2 and 2"
check_invariant 15
pass
