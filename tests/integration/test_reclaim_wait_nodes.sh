#!/usr/bin/env bash
# While GPUs are reclaimed for a job, only the work outside quotas that
# could start on its victims' nodes waits (docs/MODEL.md "Holds", reclaim
# in flight); the rest may start elsewhere.  2 nodes x 2 GPUs, grace time
# 30 s; n2 has the feature x.  team-b (quota 0) fills both nodes, its
# jobs on n1 ignoring SIGTERM so that they stay for their grace time.
# team-a's a1 (quota 2, in quota, -w n1) reclaims b1 and b2 on n1.  While
# they leave, team-c's c9 (any node) is held for a1; c1
# (--constraint=x, never on n1) is not, and starts on n2 when b3 ends
# there.  a1 runs on n1 once its victims are gone.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 0},
                          {"name": "team-c", "gpu_quota": 0,
                           "over_quota_weight": 0}],
             "settings": {"grace_time": 30}}' --conf-extra KillWait=5
sl scontrol update nodename=n2 availablefeatures=x activefeatures=x \
	|| fail "could not give n2 the feature x"

stubborn() {
	sl sbatch --parsable -J "$1" -A team-b --gres=gpu:1 -w n1 \
		--wrap "trap '' TERM; sleep 3600 & wait; sleep 3600"
}
b1=$(stubborn b1); wait_state "$b1" RUNNING
b2=$(stubborn b2); wait_state "$b2" RUNNING
b3=$(submit b3 team-b 1 -w n2); wait_state "$b3" RUNNING
b4=$(submit b4 team-b 1 -w n2); wait_state "$b4" RUNNING

a1=$(submit a1 team-a 2 -w n1)
reclaimed() { grep -q "gpuquota: reclaim.*JobId=$a1 .*takes JobId=$b2 " "$DIR/log/slurmctld.log" && echo yes; }
_wait_eq 20 yes reclaimed || fail "a1 did not reclaim b2"
c9=$(submit c9 team-c 1)
c1=$(submit c1 team-c 1 --constraint=x)
_wait_eq 15 yes reason_has "$c9" "GPUs are being reclaimed for job $a1 of team-a" \
	|| fail "c9 not held for a1: $(sl squeue -h -j "$c9" -o %r)"
expect_state "$a1" PENDING
# (held at its submit, which knows no job's nodes yet: the next pass,
# which does, releases it)
free_of_a1() { [[ $(reason_has "$c1" "being reclaimed") != yes ]] && echo yes; }
_wait_eq 10 yes free_of_a1 \
	|| fail "c1, which cannot run on n1, is held: $(sl squeue -h -j "$c1" -o %r)"

# b3 ends on n2 while a1's victims leave n1: c1 takes its GPU there
sl scancel "$b3"
wait_state "$c1" RUNNING 15
[[ $(sl squeue -h -j "$c1" -o %N) == n2 ]] \
	|| fail "c1 runs on $(sl squeue -h -j "$c1" -o %N), want n2"
expect_state "$a1" PENDING
expect_state "$c9" PENDING

# the victims' grace time ends: a1 runs on n1; c9 never ran
wait_state "$a1" RUNNING 60
[[ $(sl squeue -h -j "$a1" -o %N) == n1 ]] \
	|| fail "a1 runs on $(sl squeue -h -j "$a1" -o %N), want n1"
[[ $(restarts "$c9") == 0 ]] || fail "c9 ran and was requeued"
! grep -qE "(Allocate|[Ss]tarted) JobId=$c9 " "$DIR/log/slurmctld.log" \
	|| fail "c9 was started while GPUs were reclaimed for a1"
released() { [[ $(reason_has "$c9" "being reclaimed") != yes ]] && echo yes; }
_wait_eq 15 yes released || fail "c9 still held after a1 started: $(sl squeue -h -j "$c9" -o %r)"
check_invariant 15
pass
