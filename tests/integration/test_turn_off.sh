#!/usr/bin/env bash
# Turning gpuquota off, as README "Turning it off" says: slurm.conf back
# to priority/multifactor and preempt/qos, slurmctld restarted, then
# `gpuquota release`.  Before the release, what gpuquota set stays in
# Slurm's saved state (its hold at priority 0, an array's lowered %N, its
# site factors); after it, every job is Slurm's own.
# 2 nodes x 4 GPUs.  team-a (quota 1, limit 2) runs a1 and a1b; a2 is held
# by the limit.  team-b (quota 1, limit 1) runs one task of its array
# --array=1-4%4; the array's record is held by the limit (its throttle
# back to the user's 4).  team-c's c1 waits on a dependency, with
# gpuquota's site factor.  After the switch and the release (2 holds,
# c1's site factor): a2 and the array's three tasks start (7 of 8 GPUs),
# c1's site factor is 0.  An array throttle gpuquota lowered and left
# (a limit that lets some tasks start) is given back the same way, from
# the throttle file the plugin keeps.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 1, "gpu_limit": 2},
                          {"name": "team-b", "gpu_quota": 1, "gpu_limit": 1},
                          {"name": "team-c", "gpu_quota": 4}],
             "settings": {"recompute_interval": 1}}' \
	--nodes 2 --gpus 4

a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
a1b=$(submit a1b team-a 1); wait_state "$a1b" RUNNING
a2=$(submit a2 team-a 1)
b=$(sl sbatch --parsable -J b -A team-b --gres=gpu:1 --array=1-4%4 \
	-o /dev/null --wrap 'sleep 3600') || fail "sbatch the array"
wait_state "${b}_1" RUNNING
c1=$(submit c1 team-c 1 --dependency=afterok:"$a1")
settle 3
expect_limit_wait "$a2" team-a 2 a2
throttle() { sl scontrol show job "$1" | grep -oE 'ArrayTaskThrottle=[0-9]+' | head -n 1 | cut -d= -f2; }
reason_has "$b" "would pass its gpu_limit" >/dev/null || fail "the array is not held: $(sl squeue -h -j "$b" -o %r)"

# slurm.conf back to Slurm's own plugins; slurmctld restarted
sed -i -e 's|^PriorityType=.*|PriorityType=priority/multifactor|' \
	-e 's|^PreemptType=.*|PreemptType=preempt/qos|' \
	-e '/^JobSubmitPlugins=/d' "$DIR/slurm.conf"
"$CLUSTER" ctld-restart --dir "$DIR" --signal TERM >/dev/null 2>&1 || fail "slurmctld did not restart"
settle 5
# what gpuquota set is still there
expect_state "$a2" PENDING
[[ $(sl squeue -h -j "$a2" -o %Q) == 0 ]] || fail "a2 priority after the switch: $(sl squeue -h -j "$a2" -o %Q)"
[[ $(sl squeue -h -j "$b" -t PD -o %Q | sort -u) == 0 ]] || fail "array priority after the switch: $(sl squeue -h -j "$b" -t PD -o %Q)"

out=$(sl "$GPUQUOTA" release --dry-run) || fail "gpuquota release --dry-run: $out"
[[ $out == *"dry run: 2 holds released, 0 array throttles given back, "* &&
   $out == *"job $c1 (dry run): site factor reset to 0"* ]] || fail "dry run: $out"
expect_state "$a2" PENDING
out=$(sl "$GPUQUOTA" release) || fail "gpuquota release: $out"
[[ $out == *"2 holds released, 0 array throttles given back, "* ]] || fail "release: $out"
wait_state "$a2" RUNNING 10
for t in 2 3 4; do wait_state "${b}_$t" RUNNING 10; done
[[ $(throttle "$b") == 4 ]] || fail "array throttle after release: $(throttle "$b")"
grep -q "setting AdinPrioFactor to 2147483648 for JobId=$c1" "$DIR/log/slurmctld.log" \
	|| fail "c1's site factor not reset"
out=$(sl "$GPUQUOTA" release --dry-run) || fail "gpuquota release --dry-run again: $out"
[[ $out == "dry run: 0 holds released, 0 array throttles given back, 0 site factors reset" ]] \
	|| fail "release left something: $out"
expect_state "$c1" PENDING
expect_state "$a1" RUNNING
pass
