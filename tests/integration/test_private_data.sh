#!/usr/bin/env bash
# Slurm's PrivateData=jobs,accounts: what the gpuquota command and sprio
# show a user who is not root or SlurmUser.  Slurm shows such a user only
# their own jobs, so a model computed from them would be wrong (team-a's
# GPUs would look idle): the command hides allocations, fair shares and
# states, lists only the projects of the user's own jobs, shows their
# pending jobs' bands as slurmctld gave them, and `gpuquota metrics`
# refuses; sprio (through gpuquota's factors) lists only the user's jobs.
# Root sees everything.  The quick start: team-a (root) holds 3 of 4 GPUs,
# team-b (the test user) 1; b2 reclaims a1; b3 waits over its fair share.
. "$(dirname "$0")/lib.sh"

user=gqprivate	# a system user, made once (idempotent)
id -u "$user" >/dev/null 2>&1 || useradd --system --no-create-home \
	--shell /usr/sbin/nologin "$user" || fail "cannot create user $user"
share_with_others
up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}]}' \
	--conf-extra PrivateData=jobs,accounts
# the user reaches the cluster's slurm.conf, munge socket and gpuquota.json
chmod o+x "$DIR/munge"
as_user() { (. "$DIR/env" && cd /tmp && runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" "$@"); }
usubmit() { as_user sbatch --parsable -J "$1" -A "$2" --gres="gpu:$3" -o /dev/null --wrap 'sleep 3600'; }

a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
a2=$(submit a2 team-a 2); wait_state "$a2" RUNNING
b1=$(usubmit b1 team-b 1) || fail "sbatch as $user"
wait_state "$b1" RUNNING
b2=$(usubmit b2 team-b 1); wait_state "$b2" RUNNING 60
b3=$(usubmit b3 team-b 1)
settle 4
expect_state "$a1" PENDING
expect_state "$b3" PENDING
# Slurm itself: the user's squeue lists only their jobs
[[ $(as_user squeue -h -o %i | sort -n | tr '\n' ' ') == "$b1 $b2 $b3 " ]] \
	|| fail "squeue as $user: '$(as_user squeue -h -o %i | tr '\n' ' ')'"

# root: everything
[[ $(project_field team-a allocated) == 2 && $(project_field team-b allocated) == 2 ]] \
	|| fail "root: gpuquota projects: team-a $(project_field team-a allocated), team-b $(project_field team-b allocated)"
# (multifactor's sprio lists a requeued job once its begin time passed)
sprio_ids() { sl sprio -h -o %i | sort -n | tr '\n' ' '; }
_wait_eq 30 "$a1 $b3 " sprio_ids \
	|| fail "root: sprio lists '$(sprio_ids)', want $a1 $b3"

# the user: their project only, its use hidden, never a wrong figure
out=$(as_user "$GPUQUOTA" projects --json 2>"$DIR/projects.err") || fail "gpuquota projects as $user failed"
[[ $(jq -c '[.projects[].name]' <<<"$out") == '["team-b"]' ]] \
	|| fail "gpuquota projects as $user lists: $(jq -c '[.projects[].name]' <<<"$out")"
[[ $(jq -c '.projects[0] | [.gpu_quota, .allocated, .fair_share, .pending, .state]' <<<"$out") == '[2,null,null,null,null]' ]] \
	|| fail "gpuquota projects as $user: $(jq -c '.projects[0]' <<<"$out")"
grep -q "PrivateData=jobs: Slurm shows you only your own jobs" "$DIR/projects.err" \
	|| fail "no note on stderr: $(cat "$DIR/projects.err")"
table=$(as_user "$GPUQUOTA" projects 2>/dev/null)
[[ $(awk '$1 == "team-b" { print $5, $6, $7, $8, $9 }' <<<"$table") == "- - - - -" ]] \
	|| fail "gpuquota projects table as $user: $table"
! grep -q team-a <<<"$table" || fail "team-a shown to $user: $table"
# their jobs: only theirs; b3's band is slurmctld's (over fair share)
out=$(as_user "$GPUQUOTA" jobs --json 2>/dev/null) || fail "gpuquota jobs as $user failed"
[[ $(jq -c '[.jobs[].job_id] | sort' <<<"$out") == "[$b1,$b2,$b3]" ]] \
	|| fail "gpuquota jobs as $user lists $(jq -c '[.jobs[].job_id]' <<<"$out")"
[[ $(jq -r --argjson j "$b3" '.jobs[] | select(.job_id == $j) | .band' <<<"$out") == over-fair-share ]] \
	|| fail "b3's band as $user: $(jq -c --argjson j "$b3" '.jobs[] | select(.job_id == $j)' <<<"$out")"
[[ $(jq -r --argjson j "$b3" '.jobs[] | select(.job_id == $j) | .priority' <<<"$out") == \
   $(sl squeue -h -j "$b3" -o %Q) ]] || fail "b3's priority as $user is not slurmctld's"
[[ $(jq -c --argjson j "$b1" '.jobs[] | select(.job_id == $j) | [.quota, .preemptible, .gpus]' <<<"$out") == '[null,null,1]' ]] \
	|| fail "b1 as $user: $(jq -c --argjson j "$b1" '.jobs[] | select(.job_id == $j)' <<<"$out")"
# root sees b3's band the same
[[ $(sl "$GPUQUOTA" jobs --json | jq -r --argjson j "$b3" '.jobs[] | select(.job_id == $j) | .band') == over-fair-share ]] \
	|| fail "b3's band as root is not over-fair-share"
# metrics would count only the user's jobs: refused
rc=0; msg=$(as_user "$GPUQUOTA" metrics 2>&1 >/dev/null) || rc=$?
[[ $rc == 1 && $msg == *"PrivateData=jobs hides other users' jobs from this user"* ]] \
	|| fail "gpuquota metrics as $user: rc $rc: $msg"
# sprio through gpuquota's factors: the user's pending jobs only
[[ $(as_user sprio -h -o %i | tr -d ' ' | sort -n | tr '\n' ' ') == "$b3 " ]] \
	|| fail "sprio as $user lists '$(as_user sprio -h -o %i | tr '\n' ' ')', want $b3"
pass
