#!/usr/bin/env bash
# gpuquota with slurmdbd and MariaDB (accounting mode only):
#  1. gpuquota sync --dry-run / sync -i --reparent: departments become
#     parent accounts, projects' accounts go under them (only with
#     --reparent: without it a note says what stays), gpu_limit becomes
#     GrpTRES=gres/gpu=N; without -i and a terminal nothing is applied; a
#     second sync has nothing to do.
#  2. Slurm's account tree is structure: an account under a department's
#     account belongs to the department even when gpuquota.json does not say.
#  3. A configured account missing from slurmdbd is reported in the log and
#     by gpuquota check.
#  4. A job held by Slurm's association limit (AssocGrpGRES) is not demand.
#  5. A higher-priority QOS orders jobs inside a project.
export GQ_ACCOUNTING=1
. "$(dirname "$0")/lib.sh"

conf='{"departments": [{"name": "research", "gpu_quota": 2, "gpu_limit": 4}],
       "projects": [{"name": "nlp", "gpu_quota": 1, "gpu_limit": 3, "department": "research"},
                    {"name": "vision", "gpu_quota": 1},
                    {"name": "ops", "gpu_quota": 2}]}'
up_cluster "$conf" --conf-extra AccountingStorageEnforce=associations,limits,qos
cluster=$(sl scontrol show config | awk '/^ClusterName/ { print $3 }')
assoc() { # ACCOUNT -> "parent|grptres" of the account's association
	sl sacctmgr -n -P show assoc cluster="$cluster" account="$1" format=User,ParentName,GrpTRES |
		awk -F'|' '$1 == "" { print $2 "|" $3 }'
}

# 1. sync
plan=$(sl "$GPUQUOTA" sync --dry-run 2>&1)
[[ $plan == *"would run: sacctmgr -i add account research Cluster=$cluster Parent=root"* ]] \
	|| fail "dry run: no research account: $plan"
[[ $plan != *"set Parent=research"* ]] || fail "dry run: nlp moved without --reparent: $plan"
[[ $plan == *"note: account nlp: its parent is root in slurmdbd, research in the configuration: not moved"* ]] \
	|| fail "dry run: no note on nlp's parent: $plan"
plan=$(sl "$GPUQUOTA" sync --dry-run --reparent)
[[ $plan == *"would run: sacctmgr -i modify account where name=nlp cluster=$cluster set Parent=research"* ]] \
	|| fail "dry run --reparent: nlp not moved: $plan"
[[ $(assoc research) == "" ]] || fail "--dry-run changed slurmdbd"
out=$(sl "$GPUQUOTA" sync --reparent </dev/null) || fail "gpuquota sync without -i failed"
[[ $out == *"nothing applied; use -i"* ]] || fail "sync without -i: $out"
[[ $(assoc research) == "" ]] || fail "sync without -i changed slurmdbd"
sl "$GPUQUOTA" sync -i --reparent >/dev/null || fail "gpuquota sync failed"
[[ $(assoc research) == "root|gres/gpu=4" ]] || fail "research: $(assoc research)"
[[ $(assoc nlp) == "research|gres/gpu=3" ]] || fail "nlp: $(assoc nlp)"
[[ $(sl "$GPUQUOTA" sync -i) == *"already match"* ]] || fail "second sync not empty"

# 2. the tree: vision moved under research by an admin
sl sacctmgr -i modify account where name=vision cluster="$cluster" set Parent=research >/dev/null
settle 4
dept=$(sl "$GPUQUOTA" projects --json | jq -r '.projects[] | select(.name == "vision") | .department')
[[ $dept == research ]] || fail "vision's department: $dept"

# 3. a configured account slurmdbd does not have
printf '%s\n' "$(jq '.projects += [{"name": "ghost", "gpu_quota": 1}]' <<<"$conf")" \
	>"$DIR/gpuquota.json"
sl scontrol reconfigure
settle 4
grep -q 'gpuquota: project ghost: account ghost does not exist in slurmdbd' \
	"$DIR/log/slurmctld.log" || fail "missing account not logged"
msg=$(sl "$GPUQUOTA" check 2>&1 >/dev/null)
[[ $msg == *"warning: project ghost: account ghost does not exist in slurmdbd"* ]] \
	|| fail "gpuquota check: '$msg'"

# 4. Slurm's own limit: ops may hold 1 GPU (GrpTRES); its 2nd job waits
#    with AssocGrpGRES and is not demand
sl sacctmgr -i modify account where name=ops cluster="$cluster" set GrpTRES=gres/gpu=1 >/dev/null
o1=$(submit o1 ops 1); wait_state "$o1" RUNNING
o2=$(submit o2 ops 1)
settle 5
expect_state "$o2" PENDING
reason=$(sl squeue -h -j "$o2" -o %r)
[[ $reason == AssocGrpGRES* ]] || fail "o2 reason: '$reason'"
[[ $(project_field ops pending) == 0 ]] || fail "ops pending $(project_field ops pending), want 0"

# 5. QOS priority orders a project's jobs: fill the cluster (o1, nlp's 2
#    GPUs and vision's v0, so that vision is at its quota and neither of
#    its next jobs may reclaim whichever comes first), then vision submits
#    v1 (normal) and v2 (QOS high): v2 first
sl sacctmgr -i add qos high Priority=100 >/dev/null
sl sacctmgr -i modify user root where account=vision cluster="$cluster" set QOS=normal,high >/dev/null
settle 2
f1=$(submit f1 nlp 2); wait_state "$f1" RUNNING
v0=$(submit v0 vision 1); wait_state "$v0" RUNNING
v1=$(submit v1 vision 1)
v2=$(submit v2 vision 1 --qos=high)
settle 4
expect_state "$v1" PENDING
expect_state "$v2" PENDING
p1=$(sl squeue -h -j "$v1" -o %Q); p2=$(sl squeue -h -j "$v2" -o %Q)
((p2 > p1)) || fail "QOS high did not order v2 ($p2) before v1 ($p1)"
pass
