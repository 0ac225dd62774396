#!/usr/bin/env bash
# Over-quota use is allowed while GPUs are idle: team-a (quota 1) alone on
# 4 GPUs runs all four 1-GPU jobs; then team-b (quota 3) takes back 3 of
# them, leaving team-a exactly its quota.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 1},
                          {"name": "team-b", "gpu_quota": 3}]}'

ids=()
for i in 1 2 3 4; do
	ids+=("$(submit "a$i" team-a 1)")
done
for j in "${ids[@]}"; do wait_state "$j" RUNNING; done
[[ $(held_gpus team-a) == 4 ]] || fail "team-a should hold all 4 GPUs"

b=()
for i in 1 2 3; do
	b+=("$(submit "b$i" team-b 1)")
done
for j in "${b[@]}"; do wait_state "$j" RUNNING 40; done
settle 3
[[ $(held_gpus team-a) == 1 ]] || fail "team-a holds $(held_gpus team-a), want its quota 1"
[[ $(held_gpus team-b) == 3 ]] || fail "team-b holds $(held_gpus team-b), want 3"
# the oldest team-a job is the one kept (youngest reclaimed first)
expect_state "${ids[0]}" RUNNING
check_invariant 15
pass
