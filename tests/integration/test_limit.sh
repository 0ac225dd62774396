#!/usr/bin/env bash
# gpu_limit: a project never holds more than its limit, even on an idle
# cluster; the job past it waits with a reason users can read in squeue, and
# starts once it fits, also after its owner held and released it.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 1, "gpu_limit": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'

a1=$(submit a1 team-a 1)
a2=$(submit a2 team-a 1)
a3=$(submit a3 team-a 1)
wait_state "$a1" RUNNING
wait_state "$a2" RUNNING
settle 4
expect_state "$a3" PENDING
expect_limit_wait "$a3" team-a 2 a3
[[ $(held_gpus team-a) == 2 ]] || fail "team-a holds $(held_gpus team-a), limit 2"
# two GPUs are idle, and still a3 waits
[[ $(sl sinfo -h -o %G | grep -c gpu) -ge 1 ]] || fail "no gpu nodes?"
# its owner holds and releases it: gpuquota's hold comes back (Slurm clears
# the reason gpuquota writes while it releases), not an admin's hold
sl scontrol hold "$a3"
sl scontrol release "$a3"
settle 4
expect_state "$a3" PENDING
expect_limit_wait "$a3" team-a 2 "a3, after hold and release"

sl scancel "$a1"
wait_state "$a3" RUNNING 20
[[ $(held_gpus team-a) == 2 ]] || fail "team-a holds $(held_gpus team-a) after a3 started"
check_invariant 15
pass
