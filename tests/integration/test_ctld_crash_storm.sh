#!/usr/bin/env bash
# slurmctld killed with SIGKILL during a config reload and during a storm of
# submits, restarted the usual way (state recovered from StateSaveLocation).
#  a. Reload: the quick start's end (a2, b1, b2 running, a1 pending, Slurm's
#     state saved), gpuquota.json edited (team-a quota 1 limit 2, team-b 3)
#     and slurmctld killed right after `scontrol reconfigure` returns; after
#     the restart the new file is in force (its loaded line; a1 held by
#     team-a's limit; b2 cancelled, its GPU stays idle), every job once,
#     none requeued.  Then the old file back, killed 0.1-0.3 s into the
#     reconfigure: the old quotas are in force (a1 takes the idle GPU).
#  b. Storm: N submits (every 5th an array of 3) from three projects
#     (quotas 2, 1, 1 of 4 GPUs), slurmctld killed halfway and restarted
#     while they go on; no job is there twice, none is requeued twice, the
#     invariant holds and the cluster settles to the quotas.  Slurm loses
#     some jobs it acknowledged just before the kill (docs/RELIABILITY.md):
#     counted and printed, not asserted.
#  c. The same storm on stock Slurm (priority/multifactor, preempt/none, no
#     gpuquota): its own loss, printed beside gpuquota's.
. "$(dirname "$0")/lib.sh"

N=${GQ_STORM_JOBS:-100}
# between submits: sbatch alone answers in ~15 ms here, and Slurm saves at
# most every 5 s; paced, a storm spans a few of its saves
PACE=${GQ_STORM_PACE:-0.1}

# the line of the last gpuquota load in slurmctld's log
last_loaded() { grep 'gpuquota: loaded' "$DIR/log/slurmctld.log" | tail -n 1; }
# every job id of this cluster once, sorted (%F: an array's job id)
all_ids() { sl squeue -h -o %F | sort -nu | tr '\n' ' '; }
no_requeue() { # JOB... : none of them was requeued (again)
	local j
	for j in "$@"; do
		[[ $(restarts "$j") == "${want_restarts[$j]:-0}" ]] \
			|| fail "job $j: Restarts=$(restarts "$j"), want ${want_restarts[$j]:-0} ($round)"
	done
}
kill_ctld() {
	"$CLUSTER" ctld-restart --dir "$DIR" --signal KILL >/dev/null 2>&1 \
		|| fail "slurmctld did not come back ($round)"
}

# ---- a. SIGKILL during a reload
old='{"projects": [{"name": "team-a", "gpu_quota": 2},
                  {"name": "team-b", "gpu_quota": 2}]}'
new='{"projects": [{"name": "team-a", "gpu_quota": 1, "gpu_limit": 2},
                  {"name": "team-b", "gpu_quota": 3}]}'
up_cluster "$old"
declare -A want_restarts=()
a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
a2=$(submit a2 team-a 2); wait_state "$a2" RUNNING
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
b2=$(submit b2 team-b 1); wait_state "$b2" RUNNING 30
wait_state "$a1" PENDING
want_restarts[$a1]=1
wait_stable 30
t0=$(date +%s.%N); wait_saved "$t0" || true	# the last change is saved
jobs="$(printf '%s\n' "$a1" "$a2" "$b1" "$b2" | sort -n | tr '\n' ' ')"

round="kill after the reconfigure returned"
printf '%s\n' "$new" >"$DIR/gpuquota.json"
sl scontrol reconfigure || fail "scontrol reconfigure failed"
kill_ctld
[[ $(last_loaded) == *"team-a(quota=1,weight=1) team-b(quota=3,weight=1)"* ]] \
	|| fail "in force after the restart: '$(last_loaded)', want the new file"
_wait_eq 30 yes reason_has "$a1" "project team-a would pass its gpu_limit (2 GPUs)" \
	|| fail "a1's reason '$(sl squeue -h -j "$a1" -o %r)': the new limit is not in force ($round)"
[[ $(all_ids) == "$jobs" ]] || fail "jobs after the crash: '$(all_ids)', want '$jobs' ($round)"
no_requeue "$a1" "$a2" "$b1" "$b2"
t_cancel=$(date +%s.%N)
sl scancel "$b2"
settle 6	# a1 would start here under the old quotas
expect_state "$a1" PENDING
[[ $(held_gpus team-a) == 2 && $(held_gpus team-b) == 1 ]] \
	|| fail "team-a holds $(held_gpus team-a), team-b $(held_gpus team-b), want 2 and 1 ($round)"
no_requeue "$a1" "$a2" "$b1"
check_invariant 15
wait_saved "$t_cancel" 60 || fail "Slurm did not save b2's cancel within 60 s"

round="kill during the reconfigure"
printf '%s\n' "$old" >"$DIR/gpuquota.json"
sl scontrol reconfigure >/dev/null 2>&1 &
rpid=$!
sleep "0.$((RANDOM % 3 + 1))"
kill_ctld
wait "$rpid" || true	# its answer may be lost with slurmctld
[[ $(last_loaded) == *"team-a(quota=2,weight=1) team-b(quota=2,weight=1)"* ]] \
	|| fail "in force after the restart: '$(last_loaded)', want the old file back"
# The release lets Slurm start a1 at once: a kill right after that start,
# before Slurm saved it, restores a1 pending while n1 still runs its batch
# script, and Slurm then fails a1 ("Killing non-startable batch JobId=N:
# Job credential revoked"): Slurm's loss (docs/RELIABILITY.md, "What
# Slurm loses in a crash"), said and the rest asserted.
a1_lost() { grep -q "Killing non-startable batch JobId=$a1: Job credential revoked" "$DIR/log/slurmctld.log" && echo yes; }
a1_runs_or_lost() { [[ $(state "$a1") == RUNNING || -n $(a1_lost) ]] && echo yes; }
_wait_eq 60 yes a1_runs_or_lost || fail "job $a1: not RUNNING within 60 s: '$(state "$a1")' ($round)"
if [[ -n $(a1_lost) ]]; then
	echo "$TEST: kill just after a1 started: Slurm restored a1 pending while n1 ran it, then failed it" >&2
	kept=("$a2" "$b1")
	wait_held team-a 2 30
else
	kept=("$a1" "$a2" "$b1")
	wait_held team-a 3 30
fi
[[ $(held_gpus team-b) == 1 ]] || fail "team-b holds $(held_gpus team-b), want 1 ($round)"
jobs="$(printf '%s\n' "${kept[@]}" | sort -n | tr '\n' ' ')"
[[ $(all_ids) == "$jobs" ]] || fail "jobs after the crash: '$(all_ids)', want '$jobs' ($round)"
no_requeue "${kept[@]}"
check_invariant 15
"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1
[[ -n ${KEEP:-} ]] || rm -rf "$DIR"

# ---- b, c. SIGKILL during a storm of submits
# sbatch_to OUT NAME ACCOUNT [options]: one submit; "ID NAME TIME" into
# OUT when sbatch acknowledged it
sbatch_to() {
	local out=$1 name=$2 acct=$3 id
	shift 3
	id=$(. "$DIR/env" && cd "$DIR" && timeout 30 sbatch --parsable -J "$name" \
		-A "$acct" --gres=gpu:1 "$@" --wrap 'sleep 3600' 2>/dev/null) || return 0
	if [[ $id =~ ^[0-9]+ ]]; then echo "${BASH_REMATCH[0]} $name $(date +%s.%N)" >>"$out"; fi
}

# storm LABEL [strict]: N submits, slurmctld killed after N/2 acknowledged;
# sets figures: "lost L of A acknowledged (R in the 6 s before the kill;
# lost ones acknowledged at most S s before it), X there unacknowledged".
# strict (gpuquota): fails on a job id or a submit (its name) there twice.
storm() {
	local out=$DIR/acked i spid have tk dups lost acked recent age extra reused
	: >"$out"
	(
		for ((i = 0; i < N; i++)); do
			arr=()
			((i % 5 == 4)) && arr=(--array=0-2)
			sbatch_to "$out" "s$i" "${projects[i % 3]}" "${arr[@]}"
			sleep "$PACE"
		done
	) &
	spid=$!
	_wait_eq 300 yes eval '(($(wc -l <"$out") >= N / 2)) && echo yes' \
		|| fail "$1: fewer than $((N / 2)) submits acknowledged"
	round="$1: kill in the storm"
	tk=$(date +%s.%N)
	kill_ctld
	wait "$spid"
	have=$(sl squeue -h -o '%F %j' | sort -u)
	dups="$(awk '{ print $1 }' <<<"$have" | uniq -d) $(awk '{ print $2 }' <<<"$have" | sort | uniq -d)"
	if [[ -n ${dups// /} ]]; then
		[[ ${2:-} == strict ]] && fail "$1: job ids or submits there twice after the crash: $dups"
		echo "$TEST: $1: job ids or submits there twice after the crash: $dups" >&2
	fi
	acked=$(wc -l <"$out")
	recent=$(awk -v k="$tk" '$3 <= k && $3 > k - 6' "$out" | wc -l)
	# a submit is there when its id names it (Slurm gives a lost job's
	# id again after the restart: "reused" counts those ids)
	lost=$(awk 'NR == FNR { there[$1 " " $2] = 1; next } !(($1 " " $2) in there)' \
		<(echo "$have") "$out" | wc -l)
	reused=$(awk 'NR == FNR { name[$1] = $2; next } ($1 in name) && name[$1] != $2' \
		<(echo "$have") "$out" | wc -l)
	age=$(awk 'NR == FNR { there[$1 " " $2] = 1; next }
		!(($1 " " $2) in there) { a = k - $3; if (a > m) m = a }
		END { printf "%.1f", m }' k="$tk" <(echo "$have") "$out")
	extra=$(awk 'NR == FNR { acked[$2] = 1; next } !($2 in acked)' \
		"$out" <(echo "$have") | wc -l)
	figures="lost $lost of $acked acknowledged ($recent in the 6 s before the kill; lost ones acknowledged at most $age s before it; $reused of their ids given to other submits after the restart), $extra there unacknowledged"
}

projects=(team-a team-b team-c)
storm_conf='{"projects": [{"name": "team-a", "gpu_quota": 2},
                         {"name": "team-b", "gpu_quota": 1},
                         {"name": "team-c", "gpu_quota": 1}]}'

DIR=$(mktemp -d "${TMPDIR:-/tmp}/gq-$TEST.XXXXXX")
up_cluster "$storm_conf"
storm gpuquota strict
gq=$figures
wait_held team-a 2 90
wait_held team-b 1 90
wait_held team-c 1 90
wait_stable 60
while read -r j r; do
	((r <= 1)) || fail "job $j requeued $r times after the crash storm"
done < <(job_restarts)
check_invariant 20
"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1
[[ -n ${KEEP:-} ]] || rm -rf "$DIR"

DIR=$(mktemp -d "${TMPDIR:-/tmp}/gq-$TEST.XXXXXX")
"$CLUSTER" up --dir "$DIR" --conf-extra PriorityType=priority/multifactor \
	--conf-extra PreemptType=preempt/none >/dev/null
storm "stock Slurm"
echo "$TEST: SIGKILL in a storm of $N submits, Slurm with gpuquota: $gq"
echo "$TEST: SIGKILL in a storm of $N submits, stock Slurm: $figures"
"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1
pass
