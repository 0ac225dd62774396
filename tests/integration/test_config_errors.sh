#!/usr/bin/env bash
# A bad gpuquota.json never takes down running work: slurmctld refuses to
# start on one (naming file, key and value); `scontrol reconfigure` with a bad
# edit, or with a file anyone may write, keeps the last good configuration
# and logs why; a good edit is used.  The command shows what slurmctld
# runs: after a bad edit (exit 0, the file's error said, the failure
# counted) and after an edit without reconfigure (the differs line).  `gpuquota check FILE` gives its
# verdict without waiting on a stopped controller.
. "$(dirname "$0")/lib.sh"

# 1. slurmctld does not start on a bad file
printf '{"projects": [{"name": "team-a", "gpu_quota": -2}]}\n' >"$DIR/bad.json"
if "$CLUSTER" up --dir "$DIR" "${PLUGIN_OPTS[@]}" \
	--gpuquota-json "$DIR/bad.json" --timeout 10 \
	--conf-extra PriorityType=priority/gpuquota \
	--conf-extra JobSubmitPlugins=gpuquota \
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
# projects and metrics go on from what slurmctld runs (team-a quota 2),
# say why, and count the failed load once
rc=0; out=$(sl "$GPUQUOTA" projects --json 2>"$DIR/cmd.err") || rc=$?
[[ $rc == 0 ]] || fail "gpuquota projects with a bad file on disk: rc $rc: $(cat "$DIR/cmd.err")"
[[ $(jq -r '.projects[] | select(.name == "team-a") | .gpu_quota + 0' <<<"$out") == 2 ]] \
	|| fail "gpuquota projects: not the running quota 2: $out"
[[ $(jq -r '.config.source, .config.disk_differs' <<<"$out" | tr '\n' ' ') == "running true " ]] \
	|| fail "gpuquota projects --json: config: $(jq -c .config <<<"$out")"
grep -q 'projects\[0\].colour: unknown key; showing the configuration slurmctld runs (loaded ' \
	"$DIR/cmd.err" || fail "gpuquota projects did not say the file is bad: $(cat "$DIR/cmd.err")"
rc=0; m=$(sl "$GPUQUOTA" metrics 2>"$DIR/cmd.err") || rc=$?
[[ $rc == 0 ]] || fail "gpuquota metrics with a bad file on disk: rc $rc: $(cat "$DIR/cmd.err")"
grep -qx 'gpuquota_config_load_failures_total 1' <<<"$m" \
	|| fail "metrics: $(grep '^gpuquota_config_load_failures_total' <<<"$m"), want 1"
grep -qx 'gpuquota_config_disk_differs 1' <<<"$m" || fail "metrics: disk_differs not 1"
grep -qE '^gpuquota_config_info\{hash="[0-9a-f]{16}",loaded="[0-9]+"\} 1$' <<<"$m" \
	|| fail "metrics: no gpuquota_config_info"
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
# an edit without reconfigure: slurmctld runs quota 3, and the command too
printf '{"projects": [{"name": "team-a", "gpu_quota": 5}, {"name": "team-b", "gpu_quota": 1}]}\n' \
	>"$DIR/gpuquota.json"
err=$(sl "$GPUQUOTA" projects 2>&1 >/dev/null) || fail "gpuquota projects after an edit: $err"
[[ $err == *"gpuquota.json differs from the configuration slurmctld runs (loaded "*"); run scontrol reconfigure"* ]] \
	|| fail "gpuquota projects did not say the file differs: '$err'"
[[ $(project_field team-a gpu_quota) == 3 ]] \
	|| fail "gpuquota projects: quota $(project_field team-a gpu_quota), want the running 3"
m=$(sl "$GPUQUOTA" metrics 2>/dev/null) || fail "gpuquota metrics after an edit"
grep -qx 'gpuquota_config_disk_differs 1' <<<"$m" || fail "metrics: disk_differs not 1 after an edit"

# 3. `gpuquota check FILE` never waits on the controller: with it up, the
# fair shares on this cluster; with it stopped (its slurm.conf names a port
# nobody listens on), the same verdict at once, under a timeout far below
# libslurm's own retries (MessageTimeout, 10 s)
msg=$(sl "$GPUQUOTA" check "$DIR/gpuquota.json" 2>&1) || fail "check with the controller up: $msg"
[[ $msg == *"configuration OK: 2 projects, "*" GPUs in the pool"* ]] \
	|| fail "check with the controller up: '$msg'"
# the pid slurmctld wrote itself: from 23.11 `scontrol reconfigure` (step
# 2) starts a new slurmctld, and cluster.sh's own record names the old one
p=$(cat "$DIR/run/slurmctld.pid")
kill -TERM "$p"
for ((i = 0; i < 100; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
! kill -0 "$p" 2>/dev/null || fail "slurmctld $p did not stop"
port=$(awk -F= '/^SlurmctldPort/ { print $2 }' "$DIR/slurm.conf")
! (exec 3<>"/dev/tcp/127.0.0.1/${port%%-*}") 2>/dev/null || fail "something listens on the controller's port $port"
rc=0; msg=$(sl timeout 5 "$GPUQUOTA" check "$DIR/gpuquota.json" 2>&1) || rc=$?
[[ $rc == 0 && $msg == "gpuquota: configuration OK: 2 projects, 0 departments (no controller answered: fair shares not computed)
gpuquota: settings: min_runtime 0 s, grace_time 0 s, room_wait 0 s, move_age 0 s, move_window 3600 s, reclaim_patience 0 s, usage_half_life 0 s, usage_weight 1, recompute_interval 2 s, multifactor true" ]] \
	|| fail "check with the controller stopped: rc $rc: '$msg'"
rc=0; msg=$(sl timeout 5 "$GPUQUOTA" check --json "$DIR/gpuquota.json" 2>&1) || rc=$?
[[ $rc == 0 && $msg == '{"ok": true, "projects": 2, "departments": 0}' ]] \
	|| fail "check --json with the controller stopped: rc $rc: '$msg'"
printf '{"projects": [{"name": "team-a", "gpu_quota": 2, "colour": 1}]}\n' >"$DIR/bad.json"
rc=0; msg=$(sl timeout 5 "$GPUQUOTA" check "$DIR/bad.json" 2>&1) || rc=$?
[[ $rc == 2 && $msg == "gpuquota: $DIR/bad.json: projects[0].colour: unknown key"* ]] \
	|| fail "check of a bad file with the controller stopped: rc $rc: '$msg'"
pass
