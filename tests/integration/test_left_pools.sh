#!/usr/bin/env bash
# A job gpuquota holds that is moved out of every pool (scontrol update
# Partition= a partition no pool lists) is gpuquota's no more: its hold is
# taken off, and it runs there as Slurm alone decides.
# settings.partitions ["gpu"]: partition gpu (n1, 2 GPUs) is the pool,
# shared (n2) is not.  team-a (quota 1, limit 1) runs a1 in gpu; a2 in gpu
# is held (limit).  a2 is moved to shared: it runs on n2 while a1 runs.
# It must not stay held with gpuquota's reason for ever.
# Then the pool leaves the job while slurmctld restarts (from 23.11 every
# `scontrol reconfigure` is such a restart): a3 in gpu is held by the
# limit, gpuquota.json names only shared as the pool, slurmctld restarts.
# The first pass has no pass before to compare with; it releases a3,
# which starts on n1's free GPU.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 1, "gpu_limit": 1}],
             "settings": {"partitions": ["gpu"], "recompute_interval": 1}}' \
	--conf-extra "PartitionName=gpu Nodes=n1 Default=YES MaxTime=INFINITE State=UP" \
	--conf-extra "PartitionName=shared Nodes=n2 MaxTime=INFINITE State=UP"

a1=$(submit a1 team-a 1 -p gpu); wait_state "$a1" RUNNING
a2=$(submit a2 team-a 1 -p gpu)
settle 3
expect_state "$a2" PENDING
reason_has "$a2" "would pass its gpu_limit" >/dev/null \
	|| fail "a2 reason: '$(sl squeue -h -j "$a2" -o %r)'"
sl scontrol update jobid="$a2" partition=shared || fail "scontrol update $a2"
wait_state "$a2" RUNNING 30
[[ $(sl squeue -h -j "$a2" -o %N) == n2 ]] || fail "a2 runs on $(sl squeue -h -j "$a2" -o %N)"
expect_state "$a1" RUNNING

a3=$(submit a3 team-a 1 -p gpu)
settle 3
expect_state "$a3" PENDING
reason_has "$a3" "would pass its gpu_limit" >/dev/null \
	|| fail "a3 reason: '$(sl squeue -h -j "$a3" -o %r)'"
printf '%s\n' '{"projects": [{"name": "team-a", "gpu_quota": 1, "gpu_limit": 1}],
 "settings": {"partitions": ["shared"], "recompute_interval": 1}}' >"$DIR/gpuquota.json.new"
chmod 0644 "$DIR/gpuquota.json.new"
mv "$DIR/gpuquota.json.new" "$DIR/gpuquota.json"
"$CLUSTER" ctld-restart --dir "$DIR" --signal TERM >/dev/null 2>&1 || fail "slurmctld did not restart"
wait_state "$a3" RUNNING 20
grep -q "release JobId=$a3: it left the pools" "$DIR/log/slurmctld.log" \
	|| fail "no release of a3 logged"
expect_state "$a1" RUNNING
expect_state "$a2" RUNNING
pass
