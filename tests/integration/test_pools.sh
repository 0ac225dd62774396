#!/usr/bin/env bash
# Pools: each pool of partitions is its own model.  2 nodes x 2 GPUs of two
# types (Gres=gpu:a100:2 on n1, gpu:h100:2 on n2), pool a100 = partition
# a100 (n1), pool h100 = partition h100 (n2).  team-a is
# promised 2 A100s, team-b 2 H100s.  Each borrows the other's pool while it
# is idle; a submit into its own pool reclaims there only, and the other
# pool is left untouched.
. "$(dirname "$0")/lib.sh"

up_cluster '{"pools": [{"name": "a100", "partitions": ["a100"]},
                       {"name": "h100", "partitions": ["h100"]}],
             "projects": [{"name": "team-a", "gpu_quota": {"a100": 2},
                           "gpu_limit": {"h100": 2}},
                          {"name": "team-b", "gpu_quota": {"h100": 2}}],
             "settings": {"recompute_interval": 1}}' \
	--conf-extra "PartitionName=a100 Nodes=n1 Default=YES MaxTime=INFINITE State=UP" \
	--conf-extra "PartitionName=h100 Nodes=n2 MaxTime=INFINITE State=UP" \
	--gpu-types a100,h100

# each borrows the other's pool (idle), over its quota 0 there
b1=$(submit b1 team-b 1 -p a100); wait_state "$b1" RUNNING
b2=$(submit b2 team-b 1 -p a100); wait_state "$b2" RUNNING
a1=$(submit a1 team-a 1 -p h100); wait_state "$a1" RUNNING
a2=$(submit a2 team-a 1 -p h100); wait_state "$a2" RUNNING

# team-a in its own pool: in quota there (its H100s do not count), reclaims
# one of team-b's A100 jobs; nothing moves in h100
a3=$(submit a3 team-a a100:1 -p a100)	# typed: the same GPUs
settle 3
prio=$(sl squeue -h -j "$a3" -o %Q)
((prio > 1400000000)) || fail "a3 priority $prio: not in the in-quota band of a100"
reason=$(sl squeue -h -j "$a3" -o %r)
[[ $(state "$a3") == RUNNING || $reason == *"gpuquota: in quota in pool a100 (team-a would hold 1 of 2)"* ]] \
	|| fail "a3 reason: '$reason'"
wait_state "$a3" RUNNING 30
[[ $(( $(restarts "$b1") + $(restarts "$b2") )) == 1 ]] \
	|| fail "want exactly one of team-b's A100 jobs requeued"
expect_state "$a1" RUNNING
expect_state "$a2" RUNNING
[[ $(restarts "$a1") == 0 && $(restarts "$a2") == 0 ]] || fail "h100 was touched"

# the command shows each pool apart (as slurmctld decided)
pf() { sl "$GPUQUOTA" projects --json | jq -r --arg pool "$1" --arg p "$2" \
	'.pools[] | select(.name == $pool) | .projects[] | select(.name == $p) | .allocated + 0'; }
[[ $(pf a100 team-a) == 1 && $(pf h100 team-a) == 2 && $(pf a100 team-b) == 1 ]] \
	|| fail "gpuquota projects: a100 team-a $(pf a100 team-a), h100 team-a $(pf h100 team-a), a100 team-b $(pf a100 team-b)"
[[ $(sl "$GPUQUOTA" projects --json | jq '[.pools[].capacity] | add') == 4 ]] \
	|| fail "pool capacities do not add up to 4"
only=$(sl "$GPUQUOTA" projects --pool h100)
grep -q '^POOL h100 (2 GPUs)' <<<"$only" || fail "--pool h100: $only"
! grep -q '^POOL a100' <<<"$only" || fail "--pool h100 shows a100"
[[ $(sl "$GPUQUOTA" jobs --json | jq -r --argjson id "$a3" '.jobs[] | select(.job_id == $id) | .pool') == a100 ]] \
	|| fail "gpuquota jobs: a3 not in pool a100"
metrics=$(sl "$GPUQUOTA" metrics)	# whole (grep -q would cut the pipe)
grep -q '^gpuquota_project_allocated_gpus{pool="h100",project="team-a"} 2$' <<<"$metrics" \
	|| fail "metrics: no pool label: $(grep -E "allocated_gpus|capacity" <<<"$metrics" | tr "\n" " ")"
# a pool of a partition Slurm lacks, or of one without nodes: refused
printf '%s' '{"pools": [{"name": "a100", "partitions": ["a100"]},
                        {"name": "h200", "partitions": ["h200", "empty"]}],
             "projects": []}' >"$DIR/bad-pools.json"
set +e
out=$(sl "$GPUQUOTA" check "$DIR/bad-pools.json" 2>&1); rc=$?
set -e
[[ $rc == 2 ]] || fail "check of a pool of missing partitions: exit $rc, want 2: $out"
grep -q 'pools\[1\].partitions\[0\]: no partition named h200 in Slurm' <<<"$out" \
	|| fail "check: no message for h200: $out"
check=$(sl "$GPUQUOTA" check)
grep -q 'configuration OK: 2 projects, 2 pools: a100 (2 GPUs), h100 (2 GPUs)' <<<"$check" \
	|| fail "gpuquota check: $(head -1 <<<"$check")"

# and the same in h100 for team-b: its A100 job left does not count there
b3=$(submit b3 team-b 1 -p h100)
wait_state "$b3" RUNNING 30
[[ $(( $(restarts "$a1") + $(restarts "$a2") )) == 1 ]] \
	|| fail "want exactly one of team-a's H100 jobs requeued"
expect_state "$a3" RUNNING
[[ $(restarts "$a3") == 0 ]] || fail "a3 was requeued"
grep -q "gpuquota: reclaim in pool a100: JobId=$a3 (team-a, in-quota" "$DIR/log/slurmctld.log" \
	|| fail "no reclaim line for $a3"

# a job listing both pools is demand in a100 (its first), where team-a is
# within its quota, but it may start in h100 too, where team-a holds 1 and
# its requeued job waits: 1 + 1 + 1 > gpu_limit 2 there.  Held, so that no
# limit is escaped by listing partitions; nothing is reclaimed for it.
a4_held() { [[ $(sl squeue -h -j "$a4" -o %Q) == 0 ]] && echo held; }
a4=$(submit a4 team-a 1 -p a100,h100)
_wait_eq 20 held a4_held || fail "a4 not held: priority $(sl squeue -h -j "$a4" -o %Q)"
reason=$(sl squeue -h -j "$a4" -o %r)
[[ $reason == *"team-a would pass its gpu_limit in pool h100 (2 GPUs)"* ]] || fail "a4 reason: '$reason'"
settle 3
expect_state "$a4" PENDING
[[ $(( $(restarts "$b1") + $(restarts "$b2") )) == 1 ]] \
	|| fail "team-b's other A100 job was requeued for a4"
pass
