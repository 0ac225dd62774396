#!/usr/bin/env bash
# The README's admin path, followed as it is written, on one cluster:
# "Trial: observe mode", then enforce, then "Turning it off".  Each
# command and setting the test uses is first found in README.md, so that
# a README that changes them fails here.
# 1 node x 4 GPUs.  team-a (quota 1, limit 2) runs a1..a3 in observe:
# nothing held, the command says observe.  Enforce (the mode set, scontrol
# reconfigure): a4 is held by the limit.  Turned off (slurm.conf back to
# multifactor and preempt/qos, slurmctld restarted, `gpuquota release
# --dry-run`, `gpuquota release`): a4 is Slurm's own again and runs.
. "$(dirname "$0")/lib.sh"

readme=$(cd "$(dirname "$0")/../.." && pwd)/README.md
section() { # TITLE: the README's section of that heading
	awk -v t="$1" '/^#+ /{ on = index($0, t) > 0 } on' "$readme"
}
said() { # SECTION TEXT: the README's section says TEXT (lines joined)
	section "$1" | tr '\n' ' ' | grep -qF -- "$2" || fail "README \"$1\" does not say: $2"
}
said "Trial: observe mode" '"settings": {"mode": "observe"}'
said "Trial: observe mode" '"enforce"'
said "Trial: observe mode" 'scontrol'
said "Trial: observe mode" 'mode: observe'
said "Turning it off" 'PriorityType=priority/multifactor'
said "Turning it off" 'preempt/qos'
said "Turning it off" 'JobSubmitPlugins'
said "Turning it off" 'gpuquota release --dry-run'
said "Turning it off" 'then `gpuquota release`'

json() { # MODE
	printf '{"projects": [{"name": "team-a", "gpu_quota": 1, "gpu_limit": 2}],
 "settings": {"mode": "%s", "recompute_interval": 1}}\n' "$1"
}
up_cluster "$(json observe)" --nodes 1 --gpus 4

# 1. observe: Slurm schedules as multifactor would
a=()
for i in 1 2 3; do
	a[i]=$(submit "a$i" team-a 1)
	wait_state "${a[i]}" RUNNING
done
settle 3
[[ $(held_gpus team-a) == 3 ]] || fail "observe: team-a holds $(held_gpus team-a), want 3 (no limit applied)"
out=$(sl "$GPUQUOTA" projects) || fail "gpuquota projects: $out"
[[ $out == "mode: observe"* ]] || fail "observe: projects does not say so: $out"

# 2. enforce: "set "enforce" and scontrol reconfigure"
n=$(grep -c 'gpuquota: loaded' "$DIR/log/slurmctld.log" || true)
json enforce >"$DIR/gpuquota.json.new"
chmod 0644 "$DIR/gpuquota.json.new"
mv "$DIR/gpuquota.json.new" "$DIR/gpuquota.json"
sl scontrol reconfigure || fail "scontrol reconfigure failed"
_wait_eq 30 $((n + 1)) grep -c 'gpuquota: loaded' "$DIR/log/slurmctld.log" \
	|| fail "the enforce configuration was not loaded"
a4=$(submit a4 team-a 1)
settle 3
expect_limit_wait "$a4" team-a 2 a4
out=$(sl "$GPUQUOTA" projects) || fail "gpuquota projects: $out"
[[ $out != *"mode: observe"* ]] || fail "enforce: projects still says observe"

# 3. turning it off: step 1, slurm.conf and a restart
sed -i -e 's|^PriorityType=.*|PriorityType=priority/multifactor|' \
	-e 's|^PreemptType=.*|PreemptType=preempt/qos|' \
	-e '/^JobSubmitPlugins=/d' "$DIR/slurm.conf"
"$CLUSTER" ctld-restart --dir "$DIR" --signal TERM >/dev/null 2>&1 || fail "slurmctld did not restart"
settle 3
[[ $(sl squeue -h -j "$a4" -o %Q) == 0 ]] || fail "a4's priority after the switch: $(sl squeue -h -j "$a4" -o %Q)"
# step 2: the dry run, then the release; the next cycle starts a4
out=$(sl "$GPUQUOTA" release --dry-run) || fail "gpuquota release --dry-run: $out"
[[ $out == *"dry run: 1 holds released"* ]] || fail "dry run: $out"
expect_state "$a4" PENDING
out=$(sl "$GPUQUOTA" release) || fail "gpuquota release: $out"
[[ $out == *"1 holds released"* ]] || fail "release: $out"
wait_state "$a4" RUNNING 20
pass
