#!/usr/bin/env bash
# Slurm's priority/multifactor under gpuquota (accounting mode only): what
# an admin who sets PriorityWeightQOS and PriorityWeightFairshare expects
# still holds with PriorityType=priority/gpuquota.
#
# n1 (1 GPU) is partition gpu, the pool (settings.partitions); n2 is
# partition cpu, outside it; each node has one CPU, so one job fills it.
# Weights: QOS 100000, fair share 10000, age 0 (age never decides).
# team-a (gpu_quota 4, all its waiting jobs in quota) has users root and
# gqmf (a system user); QOS high has Priority=1000 and is allowed to
# root in team-a.  root runs a job first, so root's usage is the higher.
#
# a. Outside the pool, QOS decides: behind root's blocker on cpu, q1 (QOS
#    normal, older) and q2 (QOS high, newer) wait; sprio shows q2 a
#    nonzero QOS factor; when the blocker ends, q2 starts, q1 waits.
# b. Outside the pool, fair share decides: once sshare ranks root's fair
#    share below gqmf's, root's r1 (older) and gqmf's g1 (newer) wait
#    behind a blocker on cpu; when it ends, g1 starts, r1 waits.
# c. Inside one band of one project, fair share decides too: behind
#    team-a's own blocker on the pool's GPU (nothing to reclaim), root's
#    r2 (older) and gqmf's g2 (newer), both in quota, wait; when the
#    blocker ends, g2 starts, r2 waits.
export GQ_ACCOUNTING=1
. "$(dirname "$0")/lib.sh"

user=gqmf	# a system user, made once (idempotent)
id -u "$user" >/dev/null 2>&1 || useradd --system --no-create-home \
	--shell /usr/sbin/nologin "$user" || fail "cannot create user $user"
share_with_others
up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 4}],
             "settings": {"partitions": ["gpu"], "recompute_interval": 1}}' \
	--nodes 2 --gpus 1 --cpus 1 \
	--conf-extra "PartitionName=gpu Nodes=n1 Default=YES MaxTime=INFINITE State=UP" \
	--conf-extra "PartitionName=cpu Nodes=n2 MaxTime=INFINITE State=UP" \
	--conf-extra AccountingStorageEnforce=associations,limits,qos \
	--conf-extra PriorityWeightQOS=100000 \
	--conf-extra PriorityWeightFairshare=10000 \
	--conf-extra PriorityWeightAge=0 \
	--conf-extra PriorityWeightJobSize=0 \
	--conf-extra PriorityWeightPartition=0 \
	--conf-extra PriorityDecayHalfLife=7-0 \
	--conf-extra PriorityCalcPeriod=1
chmod o+x "$DIR/munge"
cluster=$(sl scontrol show config | awk '/^ClusterName/ { print $3 }')
as_user() { (. "$DIR/env" && cd /tmp && runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" "$@"); }

sl sacctmgr -i add qos high Priority=1000 >/dev/null || fail "sacctmgr add qos high"
sl sacctmgr -i modify user where name=root account=team-a cluster="$cluster" \
	set QOS+=high >/dev/null || fail "sacctmgr: QOS high for root in team-a"
sl sacctmgr -i add user "$user" Account=team-a Cluster="$cluster" >/dev/null \
	|| fail "sacctmgr add user $user"
# slurmdbd pushes both to slurmctld within a few seconds
qos_ok() { sl sbatch --test-only -A team-a -p cpu --qos=high --wrap true >/dev/null 2>&1 && echo yes; }
user_ok() { as_user sbatch --test-only -A team-a -p cpu --wrap true >/dev/null 2>&1 && echo yes; }
_wait_eq 30 yes qos_ok || fail "QOS high not usable by root in team-a after 30 s"
_wait_eq 30 yes user_ok || fail "$user has no association in team-a after 30 s"

csubmit() { # NAME [sbatch options...]: root, team-a, partition cpu
	local name=$1
	shift
	sl sbatch --parsable -J "$name" -A team-a -p cpu -o /dev/null "$@" --wrap 'sleep 3600'
}
usubmit() { # NAME [sbatch options...]: the user, team-a
	local name=$1
	shift
	as_user sbatch --parsable -J "$name" -A team-a -o /dev/null "$@" --wrap 'sleep 3600'
}
# first_of A B: waits (30 s) until A or B runs; prints the running ones
first_of() {
	local i j out
	for ((i = 0; i < 120; i++)); do
		out=""
		for j in "$@"; do
			[[ $(state "$j") == RUNNING ]] && out+="$j "
		done
		[[ -n $out ]] && { echo "${out% }"; return 0; }
		sleep 0.25
	done
	echo none
}
prio() { sl squeue -h -j "$1" -o %Q; }

# ---- a. QOS priority outside the pool
# u0 runs 8 s and ends: root's usage for b and c (usage comes at a job's end)
u0=$(sl sbatch --parsable -J u0 -A team-a -p cpu -o /dev/null --wrap 'sleep 8')
wait_state "$u0" RUNNING
q1=$(csubmit q1 --qos=normal)
q2=$(csubmit q2 --qos=high)
wait_state "$q1" PENDING
wait_state "$q2" PENDING
qf=$(sl sprio -h -j "$q2" -o %Q | tr -d ' ')
[[ $qf =~ ^[0-9]+$ && $qf -gt 0 ]] \
	|| fail "a: sprio shows QOS factor '$qf' for q2 ($q2, QOS high, Priority=1000, PriorityWeightQOS=100000), want > 0"
_wait_eq 20 "" state "$u0" || fail "a: the blocker u0 ($u0) did not end: $(state "$u0")"
got=$(first_of "$q1" "$q2")
[[ $got == "$q2" ]] || fail "a: when the blocker u0 ($u0) ended on cpu, running: $got; want q2 ($q2, QOS high, priority $(prio "$q2")) before q1 ($q1, QOS normal, older, priority $(prio "$q1"))"
sl scancel "$q1" "$q2"

# ---- b. fair share outside the pool
# "FAIRSHARE" of USER in team-a as sshare shows it (Fair Tree's factor)
fs_of() {
	sl sshare -n -P -A team-a -a -o Account,User,RawUsage,FairShare 2>/dev/null |
		awk -F'|' -v u="$1" '{ gsub(/ /, "", $1) } $1 == "team-a" && $2 == u { print $4 }'
}
raw_of() {
	sl sshare -n -P -A team-a -a -o Account,User,RawUsage,FairShare 2>/dev/null |
		awk -F'|' -v u="$1" '{ gsub(/ /, "", $1) } $1 == "team-a" && $2 == u { print $3 }'
}
root_below() {
	awk -v r="$(fs_of root)" -v g="$(fs_of "$user")" \
		'BEGIN { print (r != "" && g != "" && r + 0 < g + 0) ? "yes" : "no" }'
}
# usage comes at a job's end; Fair Tree ranks it at the next decay pass
# (PriorityCalcPeriod, 1 minute at least)
_wait_eq 75 yes root_below \
	|| fail "b: sshare never ranked root below $user in team-a: root RawUsage '$(raw_of root)' FairShare '$(fs_of root)', $user RawUsage '$(raw_of "$user")' FairShare '$(fs_of "$user")'"
b0=$(csubmit b0); wait_state "$b0" RUNNING
r1=$(csubmit r1)
g1=$(usubmit g1 -p cpu) || fail "b: sbatch as $user"
wait_state "$r1" PENDING
wait_state "$g1" PENDING
sl scancel "$b0"
got=$(first_of "$r1" "$g1")
[[ $got == "$g1" ]] || fail "b: when the blocker b0 ($b0) ended on cpu, running: $got; want g1 ($g1, $user, FairShare $(fs_of "$user"), priority $(prio "$g1")) before r1 ($r1, root, FairShare $(fs_of root), older, priority $(prio "$r1"))"
sl scancel "$r1" "$g1"

# ---- c. fair share inside one band of one project (the pool)
band_of() {
	sl "$GPUQUOTA" jobs --json | jq -r --argjson j "$1" '.jobs[] | select(.job_id == $j) | .band'
}
c0=$(submit c0 team-a 1 -p gpu -o /dev/null); wait_state "$c0" RUNNING
r2=$(submit r2 team-a 1 -p gpu -o /dev/null)
g2=$(usubmit g2 -p gpu --gres=gpu:1) || fail "c: sbatch as $user"
_wait_eq 15 in-quota band_of "$r2" || fail "c: r2 ($r2) band '$(band_of "$r2")', want in-quota"
_wait_eq 15 in-quota band_of "$g2" || fail "c: g2 ($g2) band '$(band_of "$g2")', want in-quota"
expect_state "$r2" PENDING
expect_state "$g2" PENDING
sl scancel "$c0"
got=$(first_of "$r2" "$g2")
[[ $got == "$g2" ]] || fail "c: when team-a's blocker c0 ($c0) ended on the pool's GPU, running: $got; want g2 ($g2, $user, FairShare $(fs_of "$user"), priority $(prio "$g2")) before r2 ($r2, root, FairShare $(fs_of root), older, priority $(prio "$r2")), both in quota in team-a"
pass
