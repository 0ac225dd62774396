#!/usr/bin/env bash
# The gpuquota command and slurmctld read one cluster the same way in the
# middle of a reclaim: while a victim is in its grace time, `gpuquota jobs
# --json` gives every pending job the priority, band and hold slurmctld
# gives it, and every running job the GPUs Slurm allocated
# (compare.sh).  The command rebuilds the reclaim in flight from the
# victim's preempt time and the comment gpuquota wrote on it, as
# slurmctld's first pass after a restart does.
# 2 nodes x 2 GPUs, grace_time 60 s; team-a (quota 2) runs a1 (1) and a2
# (2), team-b (quota 2) runs b1 (1): full.  b2 (team-b, in quota)
# reclaims a1, which ignores SIGTERM and so stays for its grace time.
# Meanwhile a3 (team-a, over quota) and c1 (team-c, quota 0) pend: work
# outside quotas waits for the reclaim (held by gpuquota, priority 0);
# b2 pends in quota.  A command that ignores the reclaim in flight gives
# a3 and c1 their over-quota bands instead (DIFF).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=compare.sh
. "$(dirname "$0")/compare.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2},
                          {"name": "team-c", "gpu_quota": 0}],
             "settings": {"grace_time": 60}}' --conf-extra KillWait=5

a1=$(sl sbatch --parsable -J a1 -A team-a --gres=gpu:1 \
	--wrap "trap '' TERM; sleep 3600 & wait; sleep 3600")
wait_state "$a1" RUNNING
a2=$(submit a2 team-a 2); wait_state "$a2" RUNNING
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
settle 3

b2=$(submit b2 team-b 1)
_wait_eq 20 1 bash -c "grep -c 'reclaim: JobId=$b2 .*takes JobId=$a1 .*warned first' '$DIR/log/slurmctld.log'" \
	|| fail "b2 did not reclaim a1 with a warning: $(grep 'reclaim:' "$DIR/log/slurmctld.log")"
a3=$(submit a3 team-a 1)
c1=$(submit c1 team-c 1)
# both held by slurmctld for the reclaim before comparing
prios() { sl squeue -h -j "$a3,$c1" -o %Q | tr '\n' ' '; }
_wait_eq 20 "0 0 " prios \
	|| fail "a3 and c1 not held while b2's reclaim is in flight: $(sl squeue -o '%A %j %Q %r')"

for attempt in 1 2 3; do
	before=$(jobs_snapshot)
	table=$(compare_with_ctld)
	[[ $(jobs_snapshot) == "$before" ]] && break
	((attempt < 3)) || fail "jobs kept changing while compared"
done
echo "$table" >"$DIR/compare.txt"
# still in a1's grace time: the comparison was made mid-reclaim
expect_state "$a1" RUNNING
expect_state "$b2" PENDING
if grep -q 'DIFF' <<<"$table"; then
	echo "$TEST: gpuquota jobs --json against slurmctld mid-reclaim:" >&2
	echo "$table" >&2
	fail "gpuquota jobs --json differs from slurmctld on $(grep -c 'DIFF' <<<"$table") jobs"
fi
for j in "$a3" "$c1"; do
	grep -qE "^$j +[a-z0-9]+ +PENDING +0 +0 +held " <<<"$table" \
		|| fail "job $j not held by both for the reclaim: $table"
done
grep -qE "^$b2 +b2 +PENDING .* in-quota +in-quota +in-quota " <<<"$table" \
	|| fail "b2 ($b2) not in quota in both: $table"
check_invariant 15
pass
