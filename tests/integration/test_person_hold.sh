#!/usr/bin/env bash
# An admin's or user's hold on a job gpuquota holds stays theirs: Slurm
# changes nothing in the record of a job already at priority 0, so
# job_submit/gpuquota makes gpuquota's hold the person's first; gpuquota
# never releases it, `scontrol release` does.
# 1 node x 4 GPUs.  team-a (quota 1, limit 2) runs a1 and a1b; a2 and a3
# are held by gpuquota (limit).  The admin holds a2 (scontrol hold) and
# uholds a3.  a1 ends: team-a is under its limit, yet a2 and a3 stay held
# (gpuquota must not release them).  scontrol release a2:
# it runs.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 1, "gpu_limit": 2}],
             "settings": {"recompute_interval": 1}}' \
	--nodes 1 --gpus 4

a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
a1b=$(submit a1b team-a 1); wait_state "$a1b" RUNNING
a2=$(submit a2 team-a 1)
a3=$(submit a3 team-a 1)
settle 3
expect_limit_wait "$a2" team-a 2 a2
expect_limit_wait "$a3" team-a 2 a3
sl scontrol hold "$a2" || fail "scontrol hold $a2"
sl scontrol uhold "$a3" || fail "scontrol uhold $a3"
[[ $(sl squeue -h -j "$a2" -o %r) == JobHeldAdmin ]] \
	|| fail "a2 reason after scontrol hold: '$(sl squeue -h -j "$a2" -o %r)'"
[[ $(sl squeue -h -j "$a3" -o %r) == JobHeldUser ]] \
	|| fail "a3 reason after scontrol uhold: '$(sl squeue -h -j "$a3" -o %r)'"
grep -q "gpuquota: JobId=$a2 held by uid 0" "$DIR/log/slurmctld.log" \
	|| fail "no hand-over line for a2 in slurmctld.log"
sl scancel "$a1"
_wait_eq 30 "" state "$a1" || fail "a1 ($a1) did not end"
stays_pending 8 "$a2" "$a3"
[[ $(sl squeue -h -j "$a2" -o %r) == JobHeldAdmin ]] \
	|| fail "a2 reason after a1 ended: '$(sl squeue -h -j "$a2" -o %r)'"
sl scontrol release "$a2" || fail "scontrol release $a2"
wait_state "$a2" RUNNING 20
expect_state "$a3" PENDING
[[ $(held_gpus team-a) == 2 ]] || fail "team-a holds $(held_gpus team-a), limit 2"
check_invariant 5
pass
