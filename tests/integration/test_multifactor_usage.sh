#!/usr/bin/env bash
# Usage under gpuquota (accounting mode only): Slurm's usage accrual, which
# priority/multifactor does, still happens with
# PriorityType=priority/gpuquota, so what an admin builds on it holds.
# One node, 8 GPUs; team-a and team-b (gpu_quota 4 each, so no reclaim);
# AccountingStorageEnforce=associations,limits,qos (without "safe": a job
# waits because of the usage already spent, not because of its own time
# limit).
#
# a. RawUsage: after team-a's 1-GPU job a1 has run 20 s and ended,
#    `sshare -A team-a` shows RawUsage > 0 for the account.
# b. GrpTRESMins: team-b has GrpTRESMins=gres/gpu=1.  Its 4-GPU job b1 runs
#    (nothing spent yet) for 20 s: 80 GPU-seconds, past the budget (Slurm
#    compares whole minutes: 80 / 60 = 1 >= 1).  Its next job b2 then waits
#    with reason AssocGrpGRESMinutes.
# c. GrpTRESRunMins given back once: team-a's L (--time=10, 1 GPU) runs;
#    its S (--time=10, 1 GPU) runs 3 s and ends; team-a's used run-minutes
#    in `scontrol show assoc_mgr` are L's reservation (9 or 10), not 0 (S's
#    reservation given back twice, by gpuquota and by multifactor, would
#    eat L's) nor 20 (S's never given back); after L is cancelled, 0.
#    Today's plugin passes c: it guards the delegation to multifactor.
export GQ_ACCOUNTING=1
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 4},
                          {"name": "team-b", "gpu_quota": 4}],
             "settings": {"recompute_interval": 1}}' \
	--nodes 1 --gpus 8 --cpus 8 \
	--conf-extra AccountingStorageEnforce=associations,limits,qos \
	--conf-extra PriorityWeightAge=0 \
	--conf-extra PriorityCalcPeriod=1
cluster=$(sl scontrol show config | awk '/^ClusterName/ { print $3 }')
sl sacctmgr -i modify account where name=team-b cluster="$cluster" \
	set GrpTRESMins=gres/gpu=1 >/dev/null || fail "sacctmgr GrpTRESMins"
sl sacctmgr -i modify account where name=team-a cluster="$cluster" \
	set GrpTRESRunMins=gres/gpu=1000 >/dev/null || fail "sacctmgr GrpTRESRunMins"

# ACCOUNT's KEY as assoc_mgr has it for gres/gpu: "gres/gpu=LIMIT(USED)"
assoc_gpu() { # ACCOUNT KEY
	sl scontrol show assoc_mgr accounts="$1" flags=assoc |
		awk -v a="$1" -v k="$2" '$0 ~ "Account=" a " " && /UserName= / { f = 1 }
			f && $0 ~ " " k "=" {
				if (match($0, k "=[^ ]*gres/gpu=[^,( ]+\\([0-9]+\\)")) {
					s = substr($0, RSTART, RLENGTH); sub(/.*gres\/gpu=/, "gres/gpu=", s); print s
				}
				exit }'
}
_wait_eq 30 "gres/gpu=1(0)" assoc_gpu team-b GrpTRESMins \
	|| fail "team-b's GrpTRESMins not in place: '$(assoc_gpu team-b GrpTRESMins)'"
_wait_eq 30 "gres/gpu=1000(0)" assoc_gpu team-a GrpTRESRunMins \
	|| fail "team-a's GrpTRESRunMins not in place: '$(assoc_gpu team-a GrpTRESRunMins)'"

# an account's row of sshare: FIELD (RawUsage, GrpTRESRaw...)
share_of() { # ACCOUNT FIELD
	sl sshare -n -P -A "$1" -o "Account,User,$2" 2>/dev/null |
		awk -F'|' -v a="$1" '{ gsub(/ /, "", $1) } $1 == a && $2 == "" { print $3 }'
}
raw_gt0() { awk -v r="$(share_of "$1" RawUsage)" 'BEGIN { print (r + 0 > 0) ? "yes" : "no" }'; }

# ---- a and b: a1 and b1 run 20 s side by side and end
a1=$(sl sbatch --parsable -J a1 -A team-a --gres=gpu:1 --time=10 -o /dev/null --wrap 'sleep 20')
b1=$(sl sbatch --parsable -J b1 -A team-b --gres=gpu:4 --time=10 -o /dev/null --wrap 'sleep 20')
wait_state "$a1" RUNNING
wait_state "$b1" RUNNING
_wait_eq 40 "" state "$a1" || fail "a1 ($a1) did not end: $(state "$a1")"
_wait_eq 20 "" state "$b1" || fail "b1 ($b1) did not end: $(state "$b1")"

_wait_eq 10 yes raw_gt0 team-a \
	|| fail "a: after a1 ($a1, 1 GPU, 20 s) ended, sshare -A team-a shows RawUsage '$(share_of team-a RawUsage)', want > 0"

b2=$(sl sbatch --parsable -J b2 -A team-b --gres=gpu:1 --time=1 -o /dev/null --wrap 'sleep 3600')
_wait_eq 15 yes reason_has "$b2" AssocGrpGRESMinutes \
	|| fail "b: after b1 ($b1, 4 GPUs, 20 s) spent team-b's GrpTRESMins=gres/gpu=1, b2 ($b2) is $(state "$b2"), reason '$(sl squeue -h -j "$b2" -o %r)', want PENDING on AssocGrpGRESMinutes; assoc_mgr GrpTRESMins $(assoc_gpu team-b GrpTRESMins), sshare GrpTRESRaw '$(share_of team-b GrpTRESRaw)'"
settle 3
expect_state "$b2" PENDING
sl scancel "$b2"

# ---- c. run-minutes given back once
_wait_eq 10 "gres/gpu=1000(0)" assoc_gpu team-a GrpTRESRunMins \
	|| fail "c: after a1 ($a1) ended, team-a's run-minutes are $(assoc_gpu team-a GrpTRESRunMins), want gres/gpu=1000(0)"
l=$(sl sbatch --parsable -J L -A team-a --gres=gpu:1 --time=10 -o /dev/null --wrap 'sleep 3600')
wait_state "$l" RUNNING
s=$(sl sbatch --parsable -J S -A team-a --gres=gpu:1 --time=10 -o /dev/null --wrap 'sleep 3')
wait_state "$s" RUNNING
_wait_eq 20 "" state "$s" || fail "c: S ($s) did not end: $(state "$s")"
settle 2
got=$(assoc_gpu team-a GrpTRESRunMins)
[[ $got == "gres/gpu=1000(10)" || $got == "gres/gpu=1000(9)" ]] \
	|| fail "c: after S ($s, --time=10, 3 s) ended beside L ($l, --time=10, running), team-a's run-minutes are $got, want L's 10 (or 9 after a decay pass)"
sl scancel "$l"
_wait_eq 10 "gres/gpu=1000(0)" assoc_gpu team-a GrpTRESRunMins \
	|| fail "c: after L ($l) was cancelled, team-a's run-minutes are $(assoc_gpu team-a GrpTRESRunMins), want gres/gpu=1000(0)"
pass
