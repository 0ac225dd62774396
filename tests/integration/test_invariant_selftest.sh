#!/usr/bin/env bash
# The invariant checker (invariant.sh) fires when reclaim is missing: the
# gpuquota priority plugin with Slurm's preempt/none, so team-b's in-quota
# job waits behind team-a's over-quota jobs with nothing requeued.  A held
# job is not demand, so holding it clears the violation.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

printf '%s\n' '{"projects": [{"name": "team-a", "gpu_quota": 0},
                             {"name": "team-b", "gpu_quota": 2}]}' >"$DIR/gpuquota.in.json"
"$CLUSTER" up --dir "$DIR" "${PLUGIN_OPTS[@]}" \
	--gpuquota-json "$DIR/gpuquota.in.json" --nodes 1 --gpus 2 \
	--conf-extra PriorityType=priority/gpuquota \
	--conf-extra JobSubmitPlugins=gpuquota \
	--conf-extra PreemptType=preempt/none \
	--conf-extra PreemptMode=OFF >/dev/null

a1=$(submit a1 team-a 1); a2=$(submit a2 team-a 1)
wait_state "$a1" RUNNING; wait_state "$a2" RUNNING
check_invariant 5	# nobody under its floor yet

b1=$(submit b1 team-b 1)
settle 4
expect_state "$b1" PENDING
v=$(invariant_violation)
[[ $v == *"project team-b holds 0 GPUs, below its floor 1"* ]] \
	|| fail "checker missed team-b under its floor: '$v'"
if (check_invariant 3) 2>/dev/null; then
	fail "check_invariant passed on a missing reclaim"
fi

sl scontrol hold "$b1"
settle 3
v=$(invariant_violation)
[[ -z $v ]] || fail "checker fired on a held job: '$v'"
pass
