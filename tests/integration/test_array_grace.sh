#!/usr/bin/env bash
# An array reclaims for its next task as soon as the victims of the last
# one have left, not a whole grace time later (docs/MODEL.md "Warning
# before requeue").  Slurm preempts for one task of an array at a time,
# and takes no new victims for the array for KillWait + MessageTimeout
# (15 s here) after it took some; gpuquota's own pause (no new victims
# while the warned ones leave) ends when a pass finds none of them
# running, instead of lasting grace + KillWait + MessageTimeout (45 s).
# 2 nodes x 1 GPU, settings.grace_time 30 s, KillWait 5 s; team-a (quota
# 0) runs a1 and a2, which exit at once on their warning (SIGTERM).
# team-b (quota 2) submits a 2-task array, in quota: task 0 takes one of
# them and starts within seconds; task 1 takes the other once Slurm's
# own 15 s are up, and both run well before 45 s.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 0},
                          {"name": "team-b", "gpu_quota": 2}],
             "settings": {"grace_time": 30, "recompute_interval": 1}}' \
	--nodes 2 --gpus 1 --conf-extra KillWait=5

for i in 1 2; do
	a=$(submit "a$i" team-a 1)
	wait_state "$a" RUNNING
done
settle 3

t0=$EPOCHSECONDS
arr=$(sl sbatch --parsable -J arr -A team-b --gres=gpu:1 --array=0-1 \
	--wrap 'sleep 3600')
running() { sl squeue -h -t R -A team-b -o %i | grep -c "^${arr}_" || true; }
_wait_eq 60 2 running \
	|| fail "the array runs $(running) of 2 tasks 60 s after its submit: $(grep 'reclaim:' "$DIR/log/slurmctld.log")"
took=$((EPOCHSECONDS - t0))
n=$(grep -c "reclaim: JobId=$arr" "$DIR/log/slurmctld.log" || true)
((n == 2)) || fail "$n reclaims for the array's 2 tasks: $(grep 'reclaim:' "$DIR/log/slurmctld.log")"
((took <= 32)) || fail "the array's 2 tasks both ran only ${took}s after its submit (grace time 30 s, Slurm's own pause 15 s): $(grep 'reclaim:' "$DIR/log/slurmctld.log")"
pass
