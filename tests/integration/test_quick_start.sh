#!/usr/bin/env bash
# The quick start of docs/MODEL.md on a real cluster: 2 nodes x 2 GPUs,
# team-a and team-b at quota 2.  b2 makes Slurm requeue a1 (not a2): team-a
# ends at exactly its quota, team-b at its quota.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'

a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
a2=$(submit a2 team-a 2); wait_state "$a2" RUNNING	# over quota on idle GPUs
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
[[ $(held_gpus team-a) == 3 ]] || fail "team-a should hold 3 GPUs before b2"

b2=$(submit b2 team-b 1); wait_state "$b2" RUNNING 30
settle 3
expect_state "$a1" PENDING
expect_state "$a2" RUNNING
expect_state "$b1" RUNNING
expect_state "$b2" RUNNING
[[ $(restarts "$a1") -ge 1 ]] || fail "a1 was not requeued"
[[ $(restarts "$a2") == 0 ]] || fail "a2 was requeued"
[[ $(held_gpus team-a) == 2 ]] || fail "team-a holds $(held_gpus team-a) GPUs, want 2"
[[ $(held_gpus team-b) == 2 ]] || fail "team-b holds $(held_gpus team-b) GPUs, want 2"
# the gpuquota command sees the same
[[ $(project_field team-a allocated) == 2 ]] || fail "gpuquota: team-a allocated"
[[ $(project_field team-b allocated) == 2 ]] || fail "gpuquota: team-b allocated"
[[ $(project_field team-a state) == at-quota ]] || fail "gpuquota: team-a state"
check_invariant 15
pass
