#!/usr/bin/env bash
# A bad gpuquota.json never takes down running work: slurmctld refuses to
# start on one (naming file, key and value); `scontrol reconfigure` with a bad
# edit, or with a file anyone may write, keeps the last good configuration
# and logs why; a good edit is used.
. "$(dirname "$0")/lib.sh"

# 1. slurmctld does not start on a bad file
printf '{"projects": [{"name": "team-a", "gpu_quota": -2}]}\n' >"$DIR/bad.json"
if "$CLUSTER" up --dir "$DIR" "${PLUGIN_OPTS[@]}" \
	--gpuquota-json "$DIR/bad.json" --timeout 10 \
	--conf-extra PriorityType=priority/gpuquota \
	--conf-extra PreemptType=preempt/gpuquota \
	--conf-extra PreemptMode=REQUEUE >/dev/null 2>&1; then
	fail "slurmctld started on a bad gpuquota.json"
fi
grep -q "gpuquota.json: projects\[0\].gpu_quota: must be an integer >= 0, got -2" \
	"$DIR/log/slurmctld.log" || fail "no clear message in slurmctld.log"
"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1

# 2. reload: a bad edit keeps the last good config, a good one is taken
up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'
a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
printf '{"projects": [{"name": "team-a", "gpu_quota": 2, "colour": 1}]}\n' >"$DIR/gpuquota.json"
# 22.05 rereads in place; from 23.11 slurmctld reconfigures by starting a
# new slurmctld, which refuses the bad file (scontrol reports the failure),
# and the running one goes on with the last good configuration.
if ! sl scontrol reconfigure 2>/dev/null; then
	slurm_at_least 23.11 || fail "scontrol reconfigure failed"
fi
settle 3
grep -q 'projects\[0\].colour: unknown key.*keeping the last good configuration' \
	"$DIR/log/slurmctld.log" || fail "bad edit not reported"
expect_state "$a1" RUNNING
# gpuquota check says the same, and fails
rc=0; msg=$(sl "$GPUQUOTA" check 2>&1) || rc=$?
[[ $rc == 2 && $msg == *"projects[0].colour: unknown key"* ]] \
	|| fail "gpuquota check: rc $rc: $msg"
# a file anyone may write is not trusted: it decides whose GPUs are taken
printf '{"projects": [{"name": "team-a", "gpu_quota": 8}]}\n' >"$DIR/gpuquota.json"
chmod 0666 "$DIR/gpuquota.json"
if ! sl scontrol reconfigure 2>/dev/null; then
	slurm_at_least 23.11 || fail "scontrol reconfigure failed"
fi
settle 3
grep -q 'gpuquota.json: cannot trust: writable by anyone (mode 0666).*keeping the last good configuration' \
	"$DIR/log/slurmctld.log" || fail "a world-writable file was not refused"
chmod 0644 "$DIR/gpuquota.json"
printf '{"projects": [{"name": "team-a", "gpu_quota": 3}, {"name": "team-b", "gpu_quota": 1}]}\n' \
	>"$DIR/gpuquota.json"
sl scontrol reconfigure
settle 3
grep -q 'loaded .*team-a(quota=3,weight=1) team-b(quota=1,weight=1)' \
	"$DIR/log/slurmctld.log" || fail "good edit not loaded"
[[ $(project_field team-a gpu_quota) == 3 ]] || fail "gpuquota projects: quota not 3"
expect_state "$a1" RUNNING
pass
