#!/usr/bin/env bash
# The gpuquota command recomputes what slurmctld decided (accounting mode
# only: QOS come from slurmdbd).  `gpuquota jobs --json` side by side with
#   - pending jobs: the priority slurmctld holds (squeue %Q), the band
#     slurmctld wrote in the reason (squeue %r) and the band of sprio's SITE
#     factor (in-quota above 1400000000, fair-share above 700000000, over
#     the rest: the band's range, multifactor's part left out; a job
#     gpuquota holds has priority 0, a "gpuquota: ..." reason and no sprio
#     line);
#   - running jobs: Slurm's GPU allocation (scontrol -d JOB_GRES).
# Any difference fails, with the table of every job.
#
# JSON fields relied on, per entry of .jobs[]: job_id, name, state, gpus;
# for pending jobs priority (number, 0 while gpuquota holds the job) and
# band ("in-quota", "fair-share", "over-fair-share").
#
# 4 nodes x 2 GPUs, C = 8; min_runtime 3600 s: nothing is reclaimed, so the
# state stays still while it is compared.  QOS high (Priority=100) is
# granted on alpha.  Running, the cluster full:
#   delta  d-run -N 2 --gres=gpu:2 (4 GPUs), d-run2 (2);  beta b-run (1);
#   alpha  a-run (1)
# Pending, in submit order:
#   alpha (q 2)           a-nice (1, --nice=100), a-norm (1), a-high (1, QOS high)
#   beta (q 1, L 2)       b-fits (1), b-held (1: A 3 > L 2, held by gpuquota)
#   gamma (q 0, w 3)      g-arr (--array=0-1 of 1 GPU: demand 2), g-one (1)
#   delta (q 0)           d-wide (-N 2 --gres=gpu:2: 4 GPUs)
# D = alpha 4, beta 2 (b-held is not demand), gamma 3, delta 10; deserved
# 2, 1, 0, 0; the surplus 5 goes 1:1:3:1, nobody capped: f = alpha 2.83,
# beta 1.83, gamma 2.5, delta 0.83.
# Slurm's order in alpha: a-high (QOS), a-norm, a-nice (nice): a-high A 2
# in quota, a-norm 3 and a-nice 4 over fair share; g-arr (A 2: both tasks)
# within fair share, g-one (A 3) over it; b-fits (A 2) and d-wide (A 10)
# over it.
# With PriorityWeightQOS=1000, multifactor (inside gpuquota) gives a-high
# 1000 (QOS factor 100/100), a-norm 0, a-nice -100 (nice): the same order,
# and each priority has that part inside its band's slot (room 1024): the
# command must read it back from Slurm and compose the same priority.
# A model that orders alpha without QOS swaps a-norm and a-high; one that
# counts g-arr as 1 task gives gamma a demand of 2, capped after 2/3 GPU
# per weight: beta's f reaches 2 (b-fits in fair share).
export GQ_ACCOUNTING=1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=compare.sh
. "$(dirname "$0")/compare.sh"

up_cluster '{"settings": {"min_runtime": 3600},
             "projects": [{"name": "alpha", "gpu_quota": 2},
                          {"name": "beta", "gpu_quota": 1, "gpu_limit": 2},
                          {"name": "gamma", "gpu_quota": 0, "over_quota_weight": 3},
                          {"name": "delta", "gpu_quota": 0}]}' \
	--nodes 4 --gpus 2 --cpus 4 \
	--conf-extra AccountingStorageEnforce=associations,limits,qos \
	--conf-extra PriorityWeightQOS=1000
cluster=$(sl scontrol show config | awk '/^ClusterName/ { print $3 }')
sl sacctmgr -i add qos high Priority=100 >/dev/null
sl sacctmgr -i modify user root where account=alpha cluster="$cluster" \
	set QOS=normal,high >/dev/null
settle 2

# fill the cluster: 8 of 8 GPUs
run_wide=$(submit d-run delta 2 -N 2); wait_state "$run_wide" RUNNING
j=$(submit d-run2 delta 2); wait_state "$j" RUNNING
j=$(submit b-run beta 1); wait_state "$j" RUNNING
j=$(submit a-run alpha 1); wait_state "$j" RUNNING

submit a-nice alpha 1 --nice=100 >/dev/null
submit a-norm alpha 1 >/dev/null
submit a-high alpha 1 --qos=high >/dev/null
submit b-fits beta 1 >/dev/null
held=$(submit b-held beta 1)
arr=$(submit g-arr gamma 1 --array=0-1)
submit g-one gamma 1 >/dev/null
wide=$(submit d-wide delta 2 -N 2)

# Compare a still state: the jobs' snapshot is the same before and after
# the reads (else read again).
wait_stable 40
for attempt in 1 2 3 4 5; do
	before=$(jobs_snapshot)
	table=$(compare_with_ctld)
	[[ $(jobs_snapshot) == "$before" ]] && break
	((attempt < 5)) || fail "jobs kept changing while compared"
	wait_stable 20
done
echo "$table" >"$DIR/compare.txt"
if grep -q 'DIFF' <<<"$table"; then
	echo "$TEST: gpuquota jobs --json against slurmctld:" >&2
	echo "$table" >&2
	fail "gpuquota jobs --json differs from slurmctld on $(grep -c 'DIFF' <<<"$table") jobs"
fi

# the scenario is what it says: all three bands, a held job, the array's
# pending record, a multi-node job pending and one running
for band in in-quota fair-share over-fair-share; do
	grep -qE " $band +$band +$band " <<<"$table" \
		|| fail "no pending job in band $band: $table"
done
grep -qE "^$held +b-held +PENDING +0 +0 +held " <<<"$table" \
	|| fail "b-held ($held) is not held by gpuquota: $table"
grep -qE "^$arr +g-arr +PENDING " <<<"$table" || fail "no pending record of g-arr ($arr): $table"
grep -qE "^$wide +d-wide +PENDING .* 4 +ok$" <<<"$table" || fail "d-wide ($wide): $table"
grep -qE "^$run_wide +d-run +RUNNING .* 4 +4 +ok$" <<<"$table" || fail "d-run ($run_wide): $table"
# the command explains alpha's order by multifactor's part
mf_of() { sl "$GPUQUOTA" jobs --json | jq -r --arg n "$1" '.jobs[] | select(.name == $n) | .multifactor'; }
[[ $(mf_of a-high) == 1000 && $(mf_of a-norm) == 0 && $(mf_of a-nice) == -100 ]] \
	|| fail "gpuquota jobs' multifactor parts: a-high $(mf_of a-high), a-norm $(mf_of a-norm), a-nice $(mf_of a-nice); want 1000, 0, -100"
check_invariant 15
pass
