#!/usr/bin/env bash
# An array that lists two pools starts no more tasks than every pool it
# lists lets start: its %N is the fewest tasks any of them lets start,
# so its tasks cannot pass another pool's gpu_limit on that pool's idle
# GPUs while its home pool reclaims.
# 2 nodes x 4 GPUs: pool a100 = partition a100 (n1), pool h100 = partition
# h100 (n2).  team-b fills a100 (4 x 1 GPU, quota 0 there); h100 is idle.
# team-a: quota {a100: 4}, limit {h100: 1}.  Its array (4 x 1 GPU,
# -p a100,h100, no %N) is in quota in a100 (it may reclaim 4 there) and
# may start 1 task in h100.  A %N from a100 alone would start all 4 tasks
# on h100's idle GPUs, team-a holding 4 > 1 there.  Once
# one runs in h100, the rest is held by h100's limit: it is judged in
# every pool it lists (docs/MODEL.md "Pools").
. "$(dirname "$0")/lib.sh"

up_cluster '{"pools": [{"name": "a100", "partitions": ["a100"]},
                       {"name": "h100", "partitions": ["h100"]}],
             "projects": [{"name": "team-a", "gpu_quota": {"a100": 4},
                           "gpu_limit": {"h100": 1}},
                          {"name": "team-b", "gpu_quota": {"h100": 4}}],
             "settings": {"recompute_interval": 1}}' \
	--gpus 4 \
	--conf-extra "PartitionName=a100 Nodes=n1 Default=YES MaxTime=INFINITE State=UP" \
	--conf-extra "PartitionName=h100 Nodes=n2 MaxTime=INFINITE State=UP"

for i in 1 2 3 4; do
	b=$(submit "b$i" team-b 1 -p a100); wait_state "$b" RUNNING
done
arr=$(sl sbatch --parsable -J arr -A team-a --gres=gpu:1 --array=0-3 \
	-p a100,h100 --wrap 'sleep 3600')
# team-a's tasks on n2 (pool h100), from Slurm's allocation
on_h100() { sl squeue -h -t R -A team-a -o '%N' | grep -c '^n2$' || true; }
max=0
for _ in $(seq 1 40); do
	n=$(on_h100)
	((n > max)) && max=$n
	sleep 0.5
done
((max <= 1)) || fail "team-a ran $max tasks of $arr in pool h100, gpu_limit 1 there"
# with one task in h100, the rest would pass h100's limit wherever Slurm
# started them: held (a job is judged in every pool it lists).  Slurm may
# also have started every task (three reclaimed in a100, the last on
# h100's idle GPUs after its victim was requeued): then none waits.
if [[ $(on_h100) == 1 ]]; then
	reason=$(sl squeue -h -j "$arr" -t PD -o %r | head -1)
	[[ -z $reason || $reason == *"team-a would pass its gpu_limit in pool h100 (1 GPU)"* ]] \
		|| fail "the rest of $arr: reason '$reason'"
fi
pass
