#!/usr/bin/env bash
# settings.partitions: only the named partitions' GPUs form the pool.  Jobs
# elsewhere are neither counted nor ordered by gpuquota.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 1},
                          {"name": "team-b", "gpu_quota": 1}],
             "settings": {"partitions": ["gpu"], "recompute_interval": 1}}' \
	--conf-extra "PartitionName=gpu Nodes=n1 Default=YES MaxTime=INFINITE State=UP" \
	--conf-extra "PartitionName=shared Nodes=n2 MaxTime=INFINITE State=UP"

# team-a fills the shared partition: outside the pool, not counted
s1=$(submit s1 team-a 1 -p shared); wait_state "$s1" RUNNING
s2=$(submit s2 team-a 1 -p shared); wait_state "$s2" RUNNING
# team-b holds the pool's 2 GPUs, one over its quota
b1=$(submit b1 team-b 1 -p gpu); wait_state "$b1" RUNNING
b2=$(submit b2 team-b 1 -p gpu); wait_state "$b2" RUNNING
# team-a's first pool job: a_p = 0 in the pool, so A = 1 <= quota: in quota
a1=$(submit a1 team-a 1 -p gpu)
settle 3
prio=$(sl squeue -h -j "$a1" -o %Q)
((prio > 1400000000)) || fail "a1 priority $prio: not in the in-quota band"
# and it reclaims from team-b (over its quota of 1 in the pool): b2
wait_state "$a1" RUNNING 30
expect_state "$b1" RUNNING
[[ $(restarts "$b2") -ge 1 ]] || fail "b2 was not reclaimed"
[[ $(project_field team-a allocated) == 1 ]] || fail "gpuquota: team-a allocated in the pool"
cap=$(sl "$GPUQUOTA" projects --json | jq .capacity)
[[ $cap == 2 ]] || fail "pool capacity is $cap, not 2"
expect_state "$s1" RUNNING
expect_state "$s2" RUNNING
check_invariant 15
pass
