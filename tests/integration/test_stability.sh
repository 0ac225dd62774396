#!/usr/bin/env bash
# Stability: a mixed steady workload from three projects on 2 nodes x 4
# GPUs, submitted in waves over a minute and then left alone.  Every step
# is checked with the reclaim invariant; at the end: no job was requeued
# twice, no reclaim was undone by a counter-reclaim (a project that lost a
# job for another never takes one back from it), and nothing is requeued
# once the cluster has settled.
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "p1", "gpu_quota": 2},
                          {"name": "p2", "gpu_quota": 3, "over_quota_weight": 2},
                          {"name": "p3", "gpu_quota": 1}]}' \
	--nodes 2 --gpus 4 --cpus 8

# waves: "account:gpus ..." (all long jobs: demand stays constant)
waves=("p1:1 p1:2 p1:1"
       "p1:1 p3:1 p1:2"
       "p2:2 p2:1"
       "p3:1 p2:1 p2:2"
       "p3:1 p2:1")
declare -A acct_of
n=0
for w in "${waves[@]}"; do
	for spec in $w; do
		a=${spec%:*} g=${spec#*:}
		n=$((n + 1))
		j=$(submit "j$n" "$a" "$g")
		acct_of[$j]=$a
	done
	settle 8
	check_invariant 20
done

# settled: nothing more is requeued over another minute (a requeued job
# is eligible again after Slurm's requeue delay, about 11 s here)
settle 15
check_invariant 20
requeues() { grep -c 'has been requeued to reclaim resources' "$DIR/log/slurmctld.log" || true; }
before=$(requeues)
for _ in 1 2 3 4; do
	settle 15
	check_invariant 20
done
after=$(requeues)
[[ $after == "$before" ]] || fail "$((after - before)) requeues after settling"
((after > 0)) || fail "the workload caused no reclaim at all: not a test of stability"

# no job requeued twice
for j in "${!acct_of[@]}"; do
	r=$(restarts "$j")
	((r <= 1)) || fail "job $j (${acct_of[$j]}) requeued $r times"
done

# no counter-reclaim: victim project V lost a job to preemptor project P,
# so P never loses a job to V afterwards
declare -A lost_to
while read -r victim preemptor; do
	v=${acct_of[$victim]:-?} p=${acct_of[$preemptor]:-?}
	[[ -z ${lost_to[$p>$v]:-} ]] || fail "counter-reclaim: $p lost a job to $v, then $v lost job $victim to $p"
	lost_to[$v>$p]=1
done < <(grep -oE 'preempted JobId=[0-9]+ has been requeued to reclaim resources for JobId=[0-9]+' \
	"$DIR/log/slurmctld.log" | awk '{ sub("JobId=", "", $2); sub("JobId=", "", $NF); print $2, $NF }')
echo "$TEST: $after reclaims, none undone; allocation p1=$(held_gpus p1) p2=$(held_gpus p2) p3=$(held_gpus p3)"
pass
