#!/usr/bin/env bash
# A job spanning nodes counts all its GPUs and is requeued as a whole:
# 2 nodes x 2 GPUs, team-a quota 0, team-b quota 4.  team-a's `-N 2
# --gres=gpu:2` job holds all 4 GPUs (2 on each node) on idle GPUs; team-b's
# 1-GPU job is in quota, so the whole 4-GPU job is requeued (both nodes
# freed) and team-b's job runs.  team-a's job then stays pending: its A = 4
# is above its fair share 3 (C 4 - team-b's demand 1), so it cannot reclaim,
# and it does not fit in the 3 GPUs left (2 needed on each node).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 0},
                          {"name": "team-b", "gpu_quota": 4}]}' \
	--nodes 2 --gpus 2 --cpus 4

a=$(submit a-wide team-a 2 -N 2); wait_state "$a" RUNNING
[[ $(sl squeue -h -j "$a" -o %D) == 2 ]] || fail "job $a does not span 2 nodes"
[[ $(held_gpus team-a) == 4 ]] || fail "team-a holds $(held_gpus team-a) GPUs, want 4"
settle 3
[[ $(project_field team-a allocated) == 4 ]] \
	|| fail "gpuquota: team-a allocated $(project_field team-a allocated), want 4"
got=$(sl "$GPUQUOTA" jobs --json | jq -r --argjson id "$a" \
	'.jobs[] | select(.job_id == $id) | "\(.gpus) \(.preemptible)"')
[[ $got == "4 true" ]] || fail "gpuquota jobs: job $a gpus/preemptible '$got', want '4 true'"

b=$(submit b1 team-b 1); wait_state "$b" RUNNING 30
settle 3
expect_state "$a" PENDING
[[ $(restarts "$a") -ge 1 ]] || fail "job $a was not requeued"
[[ $(held_gpus team-a) == 0 ]] || fail "team-a still holds $(held_gpus team-a) GPUs"
[[ $(held_gpus team-b) == 1 ]] || fail "team-b holds $(held_gpus team-b) GPUs, want 1"
# both nodes freed: only b1's GPU is in use, on one node
used=$(sl scontrol -d -o show node | grep -oE 'GresUsed=gpu(:[A-Za-z0-9_]+)?:[0-9]+' |
	grep -oE '[0-9]+$' | awk '{ s += $1 } END { print s + 0 }')
[[ $used == 1 ]] || fail "$used GPUs in use on the nodes, want 1 (b1's)"
[[ $(project_field team-a allocated) == 0 ]] || fail "gpuquota: team-a allocated"
[[ $(project_field team-b allocated) == 1 ]] || fail "gpuquota: team-b allocated"

# once its BeginTime has passed it is demand again, and still does not move
settle 12
expect_state "$a" PENDING
expect_state "$b" RUNNING
[[ $(restarts "$b") == 0 ]] || fail "b1 was requeued"
[[ $(project_field team-a pending) == 4 ]] \
	|| fail "gpuquota: team-a pending $(project_field team-a pending), want 4"
near "$(project_field team-a fair_share)" 3 \
	|| fail "gpuquota: team-a fair_share $(project_field team-a fair_share), want 3"
check_invariant 15
pass
