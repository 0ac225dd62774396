#!/usr/bin/env bash
# A warned victim's GPUs come free for the job it was reclaimed for, not
# for a second preemptor (docs/MODEL.md "Warning before requeue").
# 2 nodes x 1 GPU, settings.grace_time 15 s, KillWait 5 s; team-a (quota
# 0) runs a1 and a2, both ignoring SIGTERM (they stay their whole grace
# time).  team-b (quota 2) submits b1 and b2 at once, both in quota.  b1
# takes one of team-a's jobs; b2 must take the other: were it offered the
# first (Slurm takes jobs in their grace time first), it would take
# nothing new, wait for b1 to start, and only then warn a victim of its
# own: a second grace time, about 40 s after the submit instead of 20.
# Slurm's main cycle tries one preemptor per partition (b1 waiting for its
# victim fails the partition for the rest of the cycle): b2 reclaims
# through the backfill cycle, on the node b1 does not wait for (backfill
# keeps whole nodes for the jobs ahead of it).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 0},
                          {"name": "team-b", "gpu_quota": 2}],
             "settings": {"grace_time": 15, "recompute_interval": 1}}' \
	--nodes 2 --gpus 1 --conf-extra KillWait=5

for i in 1 2; do
	a=$(sl sbatch --parsable -J "a$i" -A team-a --gres=gpu:1 \
		--wrap "trap '' TERM; sleep 3600 & wait; sleep 3600")
	wait_state "$a" RUNNING
done
settle 3

t0=$EPOCHSECONDS
b1=$(submit b1 team-b 1)
b2=$(submit b2 team-b 1)
wait_state "$b1" RUNNING 45
wait_state "$b2" RUNNING 45
took=$((EPOCHSECONDS - t0))
reclaims=$(grep -E "reclaim: JobId=($b1|$b2) " "$DIR/log/slurmctld.log")
victims=$(grep -oE 'takes JobId=[0-9]+' <<<"$reclaims" | sort -u | wc -l)
((victims == 2)) || fail "b1 and b2 took $victims distinct victims: $reclaims"
((took <= 32)) || fail "b1 and b2 both ran only ${took}s after their submit (grace time 15 s, KillWait 5 s): $reclaims"
pass
