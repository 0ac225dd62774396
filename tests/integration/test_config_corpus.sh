#!/usr/bin/env bash
# The corpus of bad configurations (tests/config/bad: each NN-what.json with
# the message it must get in NN-what.err) on the real command and daemon:
#  1. `gpuquota check FILE` with no Slurm here (a config repository's CI)
#     refuses each one with exit 2 and the message naming file, key and
#     value, at once;
#  2. a running slurmctld, told to reload each one in turn, logs the same
#     message and keeps the last good configuration: the running job and the
#     projects are untouched;
#  3. slurmctld refuses to start on a few of them, with the same message.
. "$(dirname "$0")/lib.sh"

CORPUS=$ROOT/tests/config/bad
files=("$CORPUS"/*.json)
((${#files[@]} >= 50)) || fail "corpus has ${#files[@]} files"

# 0. the command says its version and the Slurm it was built for: this one
v=$("$GPUQUOTA" --version)
[[ $v == "gpuquota "*" (built for Slurm $(slurmctld -V | awk '{ print $2 }'))" ]] \
	|| fail "gpuquota --version: '$v', slurmctld: $(slurmctld -V)"

# 1. offline
for f in "${files[@]}"; do
	want="gpuquota: $f: $(cat "${f%.json}.err")"
	rc=0
	got=$(SLURM_CONF=/nonexistent timeout 5 "$GPUQUOTA" check "$f" 2>&1) || rc=$?
	[[ $rc == 2 ]] || fail "check $(basename "$f"): exit $rc, want 2"
	[[ $got == "$want" ]] || fail "check $(basename "$f"):
  got:  $got
  want: $want"
done

# 2. reload each one into a running slurmctld
up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'
a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
for f in "${files[@]}"; do
	cp "$f" "$DIR/gpuquota.json"
	# from 23.11 the reconfiguring slurmctld refuses it and scontrol fails
	if ! sl scontrol reconfigure 2>/dev/null; then
		slurm_at_least 23.11 || fail "scontrol reconfigure failed"
	fi
	msg="gpuquota: $DIR/gpuquota.json: $(cat "${f%.json}.err"); keeping the last good configuration"
	_wait_eq 10 yes logged "$msg" || fail "reload of $(basename "$f") not refused with: $msg"
done
expect_state "$a1" RUNNING
# the plugin still knows team-a's quota of 2: a 1-GPU job is in quota
# (the command cannot tell: it reads the file, which is bad now)
a2=$(submit a2 team-a 1)
_wait_eq 20 RUNNING state "$a2" || fail "a2 did not start"
prio=$(sl squeue -h -j "$a2" -o %Q)
((prio > 1400000000)) || fail "a2's priority $prio is not in the in-quota band"
"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1

# 3. slurmctld does not start on them
for f in "$CORPUS"/01-*.json "$CORPUS"/61-*.json "$CORPUS"/67-*.json; do
	d=$(mktemp -d "${TMPDIR:-/tmp}/gq-corpus-start.XXXXXX")
	if "$CLUSTER" up --dir "$d" "${PLUGIN_OPTS[@]}" \
		--gpuquota-json "$f" --timeout 10 \
		--conf-extra PriorityType=priority/gpuquota \
		--conf-extra JobSubmitPlugins=gpuquota \
		--conf-extra PreemptType=preempt/gpuquota \
		--conf-extra PreemptMode=REQUEUE >/dev/null 2>&1; then
		"$CLUSTER" down --dir "$d" >/dev/null 2>&1
		fail "slurmctld started on $(basename "$f")"
	fi
	grep -qF -- ": $(cat "${f%.json}.err")" "$d/log/slurmctld.log" \
		|| fail "slurmctld did not say why it refused $(basename "$f")"
	"$CLUSTER" down --dir "$d" >/dev/null 2>&1
	rm -rf "$d"
done
pass
