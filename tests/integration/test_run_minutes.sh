#!/usr/bin/env bash
# GrpTRESRunMins (accounting mode only): Slurm reserves `GPUs x time
# limit` in an account's running GPU-minutes when a job starts, and only
# the priority plugin gives the unused part back when it ends.  Without
# that, an account under GrpTRESRunMins is blocked for good
# (AssocGrpGRESRunMinutes) after a few short jobs although nothing runs.
#
# team-a has GrpTRESRunMins=gres/gpu=30.  Six 1-GPU jobs with --time=10
# (10 GPU-minutes reserved each) that end after 3 s run one after the
# other: each starts, and after each the account's used run-minutes in
# `scontrol show assoc_mgr` are back to 0.  Before gpuquota gave them
# back, the fourth job waited on AssocGrpGRESRunMinutes (3 x 10 = 30).
# With multifactor off (settings.multifactor false): gpuquota gives them
# back itself, as priority/basic does (test_multifactor_usage has
# multifactor do it).
export GQ_ACCOUNTING=1
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2}],
             "settings": {"multifactor": false}}' \
	--conf-extra AccountingStorageEnforce=associations,limits,qos
cluster=$(sl scontrol show config | awk '/^ClusterName/ { print $3 }')
sl sacctmgr -i modify account where name=team-a cluster="$cluster" \
	set GrpTRESRunMins=gres/gpu=30 >/dev/null || fail "sacctmgr GrpTRESRunMins"

# team-a's GrpTRESRunMins as assoc_mgr has it: "gres/gpu=LIMIT(USED)"
run_mins() {
	sl scontrol show assoc_mgr accounts=team-a flags=assoc |
		awk '/Account=team-a / && /UserName= / { a = 1 } a && /GrpTRESRunMins=/ {
			if (match($0, /gres\/gpu=[^,( ]+\([0-9]+\)/)) print substr($0, RSTART, RLENGTH)
			exit }'
}
for ((i = 0; i < 30; i++)); do
	[[ $(run_mins) == "gres/gpu=30("* ]] && break
	sleep 1
done
[[ $(run_mins) == "gres/gpu=30(0)" ]] || fail "team-a's GrpTRESRunMins not in place: '$(run_mins)'"

for k in 1 2 3 4 5 6; do
	j=$(sl sbatch --parsable -J "r$k" -A team-a --gres=gpu:1 --time=10 --wrap 'sleep 3')
	_wait_eq 30 "" state "$j" \
		|| fail "job $k ($j) did not run and end: $(sl squeue -h -j "$j" -o '%T %r')"
	_wait_eq 10 "gres/gpu=30(0)" run_mins \
		|| fail "after job $k: team-a's run-minutes are $(run_mins), want gres/gpu=30(0)"
done
pass
