#!/usr/bin/env bash
# GPUs coming free (docs/MODEL.md "GPUs coming free"): when jobs end, Slurm
# lets nothing start on their nodes until the nodes complete (their epilog
# done, usually within a second).  An in-quota job that becomes eligible in
# that second must take those GPUs, not requeue another project's jobs that
# run elsewhere.  The soak found it: an array's throttled tasks became in
# quota when its first tasks ended, and reclaimed a guest job on another
# node while their own project's GPUs were completing.
#
# 2 nodes x 2 GPUs, with an Epilog of 3 s (sites run health checks and GPU
# resets there): a node stays COMPLETING 3 s after each job, so every
# scheduling cycle in those seconds has the race.  team-a (quota 2) runs an array --array=0-3%2 of 1-GPU
# tasks; tasks 0 and 1 end after 20 s, 2 and 3 run on.  The account guest
# (in no project, quota 0) runs two 1-GPU jobs on the other two GPUs and has
# one more waiting.  Tasks 2 and 3 are held back by the array's throttle
# while 0 and 1 run (not demand).  When 0 and 1 end, team-a holds 0 < 2 and
# tasks 2 and 3 are in quota: they start on the GPUs of 0 and 1, and
# neither guest job is reclaimed.  Three rounds.
. "$(dirname "$0")/lib.sh"

GQ_EXTRA_ACCOUNTS=guest
export GQ_EXTRA_ACCOUNTS
printf '#!/bin/sh\nsleep 3\n' >"$DIR/epilog"
chmod 0755 "$DIR/epilog"
up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2}],
             "settings": {"recompute_interval": 2}}' \
	--conf-extra "Epilog=$DIR/epilog"

reclaims() { grep -c 'gpuquota: reclaim: ' "$DIR/log/slurmctld.log" || true; }

for round in 1 2 3; do
	arr=$(sl sbatch --parsable -J "a$round" -A team-a --gres=gpu:1 --array=0-3%2 \
		--wrap 'if [ "$SLURM_ARRAY_TASK_ID" -lt 2 ]; then sleep 20; else sleep 3600; fi')
	arr=${arr%%;*}
	wait_state "${arr}_0" RUNNING
	wait_state "${arr}_1" RUNNING
	g1=$(submit "g1-$round" guest 1); wait_state "$g1" RUNNING
	g2=$(submit "g2-$round" guest 1); wait_state "$g2" RUNNING
	g3=$(submit "g3-$round" guest 1)
	before=$(reclaims)
	# 0 and 1 end (20 s from their start); 2 and 3 take their GPUs
	wait_state "${arr}_2" RUNNING 60
	wait_state "${arr}_3" RUNNING 30
	settle 4
	for j in "$g1" "$g2"; do
		expect_state "$j" RUNNING
		[[ $(restarts "$j") == 0 ]] || fail "round $round: guest job $j was requeued"
	done
	[[ $(reclaims) == "$before" ]] \
		|| fail "round $round: $(($(reclaims) - before)) reclaims while team-a's own GPUs were coming free: $(grep 'gpuquota: reclaim: ' "$DIR/log/slurmctld.log" | tail -n 2)"
	expect_state "$g3" PENDING
	[[ $(held_gpus team-a) == 2 ]] || fail "round $round: team-a holds $(held_gpus team-a), want 2"
	sl scancel "$arr" "$g1" "$g2" "$g3"
	for ((i = 0; i < 30; i++)); do
		[[ -z $(sl squeue -h -o %A) ]] && break
		sleep 1
	done
done
pass
