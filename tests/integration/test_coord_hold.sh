#!/usr/bin/env bash
# An account coordinator's hold on a job gpuquota holds stays the
# coordinator's, as an admin's or the owner's does (test_person_hold):
# Slurm lets a coordinator of the job's account update it, so
# job_submit/gpuquota hands gpuquota's hold over to them too.  Without
# job_submit/gpuquota no hold could be told apart: slurmctld refuses to
# start, and `gpuquota check` fails naming JobSubmitPlugins.
# With slurmdbd: 1 node x 4 GPUs, team-a (quota 1, limit 2) runs a1 and
# a1b (root's); a2 (root's) is held by gpuquota's limit.  User gqcoord,
# coordinator of team-a, holds a2.  a1 ends: a2 stays held (JobHeldUser)
# for 8 s; the coordinator's release lets it run.
. "$(dirname "$0")/lib.sh"
export GQ_ACCOUNTING=1

user=gqcoord	# a system user, made once (idempotent)
id -u "$user" >/dev/null 2>&1 || useradd --system --no-create-home \
	--shell /usr/sbin/nologin "$user" || fail "cannot create user $user"
share_with_others
up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 1, "gpu_limit": 2},
                          {"name": "team-b", "gpu_quota": 1}],
             "settings": {"recompute_interval": 1}}' \
	--nodes 1 --gpus 4
chmod o+x "$DIR/munge"
as_user() { (. "$DIR/env" && cd /tmp && runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" "$@"); }
sl sacctmgr -i add user "$user" account=team-b >/dev/null || fail "sacctmgr add user"
sl sacctmgr -i add coordinator account=team-a names="$user" >/dev/null \
	|| fail "sacctmgr add coordinator"

a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
a1b=$(submit a1b team-a 1); wait_state "$a1b" RUNNING
a2=$(submit a2 team-a 1)
settle 3
expect_limit_wait "$a2" team-a 2 a2
# slurmctld learns the coordinator from slurmdbd shortly after sacctmgr
for ((i = 0; i < 20; i++)); do
	as_user scontrol hold "$a2" 2>/dev/null && break
	sleep 1
done
((i < 20)) || fail "the coordinator could not hold a2: $(as_user scontrol hold "$a2" 2>&1)"
grep -q "gpuquota: JobId=$a2 held by uid $(id -u "$user")" "$DIR/log/slurmctld.log" \
	|| fail "no hand-over line for a2 in slurmctld.log"
sl scancel "$a1"
_wait_eq 30 "" state "$a1" || fail "a1 ($a1) did not end"
stays_pending 8 "$a2"
[[ $(sl squeue -h -j "$a2" -o %r) == JobHeldUser ]] \
	|| fail "a2 reason after a1 ended: '$(sl squeue -h -j "$a2" -o %r)'"
as_user scontrol release "$a2" || fail "the coordinator's release of a2"
wait_state "$a2" RUNNING 20

# without job_submit/gpuquota: 22.05 reconfigures in place (the log says
# why that is wrong, `check` fails); no slurmctld starts
sed -i '/^JobSubmitPlugins=/d' "$DIR/slurm.conf"
if ! slurm_at_least 23.11; then
	sl scontrol reconfigure || fail "scontrol reconfigure"
	_wait_eq 20 yes eval 'grep -q "error: gpuquota: slurm.conf: JobSubmitPlugins does not list gpuquota" "$DIR/log/slurmctld.log" && echo yes' \
		|| fail "no error line at reconfigure"
	out=$(sl "$GPUQUOTA" check 2>&1) && fail "gpuquota check passed: $out"
	[[ $? == 2 && $out == *"JobSubmitPlugins does not list gpuquota"* ]] \
		|| fail "gpuquota check: $out"
fi
"$CLUSTER" ctld-restart --dir "$DIR" --signal TERM >/dev/null 2>&1 \
	&& fail "slurmctld started without job_submit/gpuquota"
grep -q "JobSubmitPlugins does not list gpuquota: .* priority/gpuquota does not start" \
	"$DIR/log/slurmctld.log" || fail "no refusal naming JobSubmitPlugins in slurmctld.log"
pass
