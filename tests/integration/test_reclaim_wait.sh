#!/usr/bin/env bash
# GPUs freed by a reclaim are kept for the job they were freed for: while
# team-a's in-quota a1 waits for its victims to leave, team-c's over-quota
# c1 is held with a reason saying so (it could otherwise start on the freed
# GPUs and be requeued again seconds later), and it is released once a1
# starts (seen between passes, not at the next one).  2 nodes x 2 GPUs;
# team-b (quota 0) fills them first; team-c's weight 0 gives it no fair
# share, so c1 never reclaims itself.
# test_reclaim_wait_in_cycle.sh plays it with the reclaim inside Slurm's
# main scheduling cycle (RW_CONF: no backfill).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ ${RW_CONF+set} ]] || RW_CONF=()

# passes every 30 s: only a1's start, seen between passes, ends c1's
# hold within the 10 s waited for below
up_cluster '{"settings": {"recompute_interval": 30},
            "projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 0},
                          {"name": "team-c", "gpu_quota": 0,
                           "over_quota_weight": 0}]}' "${RW_CONF[@]}"

for i in 1 2 3 4; do
	b=$(submit "b$i" team-b 1)
	wait_state "$b" RUNNING
done
c1=$(submit c1 team-c 1)
settle 3
expect_state "$c1" PENDING
a1=$(submit a1 team-a 2)
wait_state "$a1" RUNNING 30
grep -q "hold JobId=$c1: gpuquota: GPUs are being reclaimed for job $a1 of team-a" \
	"$DIR/log/slurmctld.log" || fail "c1 was not held while GPUs were reclaimed for a1"
# The hold is written inside Slurm's main cycle, which then puts c1's
# priority back from its queue: gpuquota still knows the hold as its own
# and writes it again at once (a debug line), not as a new hold.
holds=$(grep -c "gpuquota: hold JobId=$c1:" "$DIR/log/slurmctld.log" || true)
[[ $holds == 1 ]] || fail "c1 held $holds times for one reclaim: $(grep "JobId=$c1\b" "$DIR/log/slurmctld.log")"
# a1 runs: c1 waits for GPUs again, no longer for a1
released() { [[ $(sl squeue -h -j "$c1" -o %r) != *"being reclaimed"* ]] && echo yes; }
_wait_eq 10 yes released || fail "c1 still held 10 s after a1 started: $(sl squeue -h -j "$c1" -o %r)"
# released by gpuquota, not lost (a hold Slurm's cycle had undone used to
# fade into "Dependency" and then nothing, with no release)
grep -q "gpuquota: release JobId=$c1\$" "$DIR/log/slurmctld.log" \
	|| fail "c1's hold was not released by gpuquota: $(grep "JobId=$c1\b" "$DIR/log/slurmctld.log")"
expect_state "$c1" PENDING
[[ $(restarts "$c1") == 0 ]] || fail "c1 ran and was requeued"
[[ $(held_gpus team-a) == 2 ]] || fail "team-a holds $(held_gpus team-a), want 2"
check_invariant 15
pass
