#!/usr/bin/env bash
# settings.min_runtime: a job is not reclaimed before it has run that long;
# then it is.  2 nodes x 2 GPUs, team-a (quota 0) fills the cluster, team-b
# (quota 2) asks for 1 GPU at once: it waits until team-a's jobs are 20 s old.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 0},
                          {"name": "team-b", "gpu_quota": 2}],
             "settings": {"min_runtime": 20, "recompute_interval": 1}}'

a=()
for i in 1 2 3 4; do a+=("$(submit "a$i" team-a 1)"); done
for j in "${a[@]}"; do wait_state "$j" RUNNING; done
started=$(date +%s)
b1=$(submit b1 team-b 1)
settle 10
expect_state "$b1" PENDING
for j in "${a[@]}"; do expect_state "$j" RUNNING; done
wait_state "$b1" RUNNING 40
waited=$(($(date +%s) - started))
((waited >= 19)) || fail "b1 started after ${waited}s, before the 20 s minimum runtime"
[[ $(held_gpus team-a) == 3 ]] || fail "team-a holds $(held_gpus team-a), want 3"
check_invariant 15
pass
