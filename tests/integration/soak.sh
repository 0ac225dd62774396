#!/usr/bin/env bash
# Soak: a seeded random workload on a real
# cluster of 6 nodes x 4 GPUs (C = 24) for GQ_SOAK_SECONDS (default 180),
# with the reclaim invariant checked all along.
#
# Projects (sum of quotas 21 <= 24; 20 while a node is down):
#   department ml (q 8, L 14): ml-a q 3, ml-b q 3 w 2, ml-c q 0
#   department sim (q 5):      sim-a q 2, sim-b q 2 L 4
#   outside: p1 q 3, p2 q 2 w 3, p3 q 2 L 5, p4 q 1 (accounts p4, p4-ci),
#            p5 q 0, p6 q 0 w 0.5; account guest is in no project (q 0).
#
# The schedule (bash's RANDOM seeded with GQ_SOAK_SEED, printed) is drawn
# from the seed alone before the first step, one step a second, and
# kept in SD/schedule: the same seed replays the same actions at the same
# times (the cluster's own timing aside).  Each step:
#   - submits (72 %) 1, 2 or 4 GPU jobs (`--wrap 'sleep N'`, N 3..40 s),
#     arrays (--array=0-3%2), two-node jobs (-N 2 --gres=gpu:2),
#     --no-requeue jobs;
#   - cancels (6 %) one of the last 20 submits' jobs (scancel);
#   - fails a node now and then: `scontrol update state=down` (the cluster
#     runs ReturnToService=1, so it stays down) or a SIGKILL of its slurmd
#     (SlurmdTimeout=20 makes slurmctld notice), and brings it back after
#     15-55 s (state=resume, or a new slurmd);
#   - reloads the configuration now and then (`scontrol reconfigure`), half
#     of the time with the quota of p1, p2, p3 or p4 changed.
# GQ_SOAK_BOUNDARY=1 adds, from a second stream of the seed, jobs on a
# dependency, jobs with a begin time and admin holds (make_boundary below).
# GQ_SOAK_POOLS=1 splits the cluster into two pools (a100: partition a100,
# n1-n4; h100: partition h100, n5-n6) with quotas and limits by pool, and
# sends each submit to a100, h100, or both (a third stream of the seed:
# arrays and jobs that list two pools); the limits, the invariant and the
# reclaims are then checked pool by pool.
# GQ_ACCOUNTING=1 runs it with slurmdbd and AccountingStorageEnforce=
# associations,limits,qos (Slurm then reports job ends to gpuquota).
# Only one action reads the cluster: a job whose launch failed on a dead
# node (Slurm holds it) is released, as an admin would.
# A checker runs beside it, every ~2 s:
#   - the reclaim invariant (invariant_violation, invariant.sh): a project
#     in violation in every check for GQ_SOAK_GRACE (20) s is a violation.
#     Transitions restart that clock: a node failure, a resume, a reload,
#     a dead slurmd (until slurmctld could have noticed it, 40 s);
#   - gpu_limit: a project or a department holding more than its limit
#     (Slurm's own allocation, squeue) is a violation at once.
# Violations are collected (SD/defects in the work dir, with the time) and
# the test fails at the end listing them all; GQ_SOAK_FAIL_FAST=1 fails at
# the first one instead.  Every violation seen, however short, is in
# SD/violations.log; the driver's actions in SD/events.log.
# At the end (nodes restored, the cluster left alone GQ_SOAK_GRACE s, the
# invariant once more):
#   - no job lost: every job id submitted is known to slurmctld
#     (MinJobAge=3600) as pending, running, completed or cancelled (a
#     --no-requeue job on a failed node: NODE_FAIL); with GQ_ACCOUNTING=1
#     sacct knows every one too; never PREEMPTED (killed by a reclaim);
#   - reclaims (slurmctld's "gpuquota: reclaim:" lines): each leaves its
#     victim's project at or above the floor the line reports, comes from an
#     in-quota (A <= quota) or fair-share (A <= fair share) preemptor of
#     another project, never takes a --no-requeue job, and matches Slurm's
#     own requeue; no victim is reclaimed twice within 60 s for one
#     preemptor, nor again before Slurm started it again (a reclaim of a
#     job that is not running is a loop); GQ_SOAK_MAX_RECLAIMS (default
#     3 + GQ_SOAK_SECONDS / 30, i.e. 9) only guards against a runaway loop:
#     the youngest-first walk rightly picks a 0-quota job again each time it
#     restarts on idle GPUs (one guest array task was seen reclaimed 6
#     times in 113 s, each reclaim legal and for a job submitted after the
#     restart), so how often is not a property of the model.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

SOAK_SECONDS=${GQ_SOAK_SECONDS:-180}
SEED=${GQ_SOAK_SEED:-$(((RANDOM << 15 | RANDOM) % 1000000))}
GRACE=${GQ_SOAK_GRACE:-20}
MAX_RECLAIMS=${GQ_SOAK_MAX_RECLAIMS:-$((3 + SOAK_SECONDS / 30))}
NODES=6
SD=$DIR/soak
mkdir -p "$SD"
echo "$TEST: seed $SEED (replay: GQ_SOAK_SEED=$SEED), ${SOAK_SECONDS}s, work dir $DIR"

GQ_EXTRA_ACCOUNTS=guest
export GQ_EXTRA_ACCOUNTS
ENFORCE=()
[[ ${GQ_ACCOUNTING:-0} != 1 ]] ||
	ENFORCE=(--conf-extra AccountingStorageEnforce=associations,limits,qos)
POOLS=${GQ_SOAK_POOLS:-0}
# GQ_SOAK_MOVE_AGE=S turns moves on (settings.move_age S; docs/MODEL.md
# "Moves"): the invariant then also sees moved jobs restart
MOVES=${GQ_SOAK_MOVE_AGE:+, \"move_age\": $GQ_SOAK_MOVE_AGE}
echo "$TEST: boundary actions ${GQ_SOAK_BOUNDARY:-0}, pools $POOLS, accounting ${GQ_ACCOUNTING:-0}"
# pools: name and partitions ("" and none: one pool, the whole cluster)
POOL_NAMES=("") POOL_PARTS=("")
PART_OPT=()	# the partition of a job that does not draw one
if ((POOLS)); then
	POOL_NAMES=(a100 h100) POOL_PARTS=(a100 h100)
	PART_OPT=(-p a100)
	# quotas by pool: a100 (16 GPUs) 14 in all, h100 (8) 7; p1 has a
	# limit in h100 only, so that its arrays listing both pools meet it
	up_cluster '{"pools": [{"name": "a100", "partitions": ["a100"]},
                       {"name": "h100", "partitions": ["h100"]}],
  "departments": [{"name": "ml", "gpu_quota": {"a100": 6, "h100": 2},
                   "gpu_limit": {"a100": 10, "h100": 4}},
                  {"name": "sim", "gpu_quota": {"a100": 4, "h100": 1}}],
  "projects": [
    {"name": "ml-a", "gpu_quota": {"a100": 3, "h100": 1}, "department": "ml"},
    {"name": "ml-b", "gpu_quota": {"a100": 2, "h100": 1}, "over_quota_weight": 2, "department": "ml"},
    {"name": "ml-c", "gpu_quota": 0, "department": "ml"},
    {"name": "sim-a", "gpu_quota": {"a100": 2, "h100": 1}, "department": "sim"},
    {"name": "sim-b", "gpu_quota": {"a100": 1}, "gpu_limit": 4, "department": "sim"},
    {"name": "p1", "gpu_quota": {"a100": 2, "h100": 2}, "gpu_limit": {"h100": 3}},
    {"name": "p2", "gpu_quota": {"a100": 2, "h100": 1}, "over_quota_weight": 3},
    {"name": "p3", "gpu_quota": {"a100": 1}, "gpu_limit": 5},
    {"name": "p4", "gpu_quota": {"a100": 1, "h100": 1}, "accounts": ["p4", "p4-ci"]},
    {"name": "p5", "gpu_quota": 0},
    {"name": "p6", "gpu_quota": 0, "over_quota_weight": 0.5}],
  "settings": {"recompute_interval": 2'"$MOVES"'}}' \
		--nodes "$NODES" --gpus 4 --cpus 8 \
		--conf-extra "PartitionName=a100 Nodes=n[1-4] MaxTime=INFINITE State=UP" \
		--conf-extra "PartitionName=h100 Nodes=n[5-6] MaxTime=INFINITE State=UP" \
		--conf-extra MinJobAge=3600 --conf-extra ReturnToService=1 \
		--conf-extra SlurmdTimeout=20 "${ENFORCE[@]}"
else
up_cluster '{"departments": [{"name": "ml", "gpu_quota": 8, "gpu_limit": 14},
                             {"name": "sim", "gpu_quota": 5}],
  "projects": [
    {"name": "ml-a", "gpu_quota": 3, "department": "ml"},
    {"name": "ml-b", "gpu_quota": 3, "over_quota_weight": 2, "department": "ml"},
    {"name": "ml-c", "gpu_quota": 0, "department": "ml"},
    {"name": "sim-a", "gpu_quota": 2, "department": "sim"},
    {"name": "sim-b", "gpu_quota": 2, "gpu_limit": 4, "department": "sim"},
    {"name": "p1", "gpu_quota": 3},
    {"name": "p2", "gpu_quota": 2, "over_quota_weight": 3},
    {"name": "p3", "gpu_quota": 2, "gpu_limit": 5},
    {"name": "p4", "gpu_quota": 1, "accounts": ["p4", "p4-ci"]},
    {"name": "p5", "gpu_quota": 0},
    {"name": "p6", "gpu_quota": 0, "over_quota_weight": 0.5}],
  "settings": {"recompute_interval": 2'"$MOVES"'}}' \
	--nodes "$NODES" --gpus 4 --cpus 8 \
	--conf-extra MinJobAge=3600 --conf-extra ReturnToService=1 \
	--conf-extra SlurmdTimeout=20 "${ENFORCE[@]}"
fi
START_EPOCH=$EPOCHSECONDS
START_TIME=$(date +%Y-%m-%dT%H:%M:%S)

# ---------------------------------------------------------------- checker
# "ACCOUNT PARTITION GPUS" for every running job, from squeue (GPUs per
# node x nodes; the partition it runs in)
running_by_account() {
	sl squeue -h -t R -o '%a|%b|%D|%P' | awk -F'|' '{
		g = 0
		if (match($2, /gpu(:[A-Za-z0-9_]+)?:[0-9]+/)) {
			s = substr($2, RSTART, RLENGTH); sub(/.*:/, "", s); g = s
		}
		print tolower($1), $4, g * $3
	}'
}

# Projects and departments past their gpu_limit, one line each, pool by
# pool (a number is the same in every pool; a pool an object leaves out
# has no limit).
# shellcheck disable=SC2016
limit_violation() {
	local run
	run=$(running_by_account) || return 0
	jq -r --arg run "$run" '
		def in_pool($p): if type == "object" then .[$p] else . end;
		. as $c
		| ($run | split("\n") | map(select(length > 0) | split(" ")
		   | {a: .[0], part: .[1], g: (.[2] | tonumber)})) as $all
		| ($c.pools // [{name: "", partitions: null}])[] as $pool
		| (if $pool.name == "" then "" else " in pool \($pool.name)" end) as $in
		| [$all[] | select($pool.partitions == null
		                   or (.part as $x | $pool.partitions | index($x)))] as $r
		| [$c.projects[] | {name, department,
		    gpu_limit: (.gpu_limit | in_pool($pool.name)),
		    accounts: ((.accounts // [.name]) | map(ascii_downcase))}] as $ps
		| [$ps[] | . as $p
		   | {name, department, gpu_limit,
		      held: ([$r[] | select(.a as $a | $p.accounts | index($a)) | .g] | add // 0)}]
		  as $held
		| ($held[] | select(.gpu_limit != null and .held > .gpu_limit)
		   | "project \(.name)\($in) holds \(.held) GPUs, past its gpu_limit \(.gpu_limit)"),
		  ($c.departments // [] | .[] | (.gpu_limit | in_pool($pool.name)) as $dl
		   | select($dl != null) | . as $d
		   | ([$held[] | select(.department == $d.name) | .held] | add // 0) as $h
		   | select($h > $dl)
		   | "department \($d.name)\($in) holds \($h) GPUs, past its gpu_limit \($dl)")
	' "$DIR/gpuquota.json"
}

# The invariant in every pool, one violation a line.
pools_violation() {
	local k
	for k in "${!POOL_NAMES[@]}"; do
		invariant_violation "${POOL_NAMES[k]}" "${POOL_PARTS[k]}"
	done
}

# The end of the last transition (epoch seconds): a violation counts from
# then at the earliest.
calm_from() { echo "$1" >"$SD/calm.tmp" && mv "$SD/calm.tmp" "$SD/calm"; }
calm_from "$EPOCHSECONDS"

# Runs in the background: every ~2 s the invariant and the limits. Each
# violation seen goes to SD/violations.log; a defect (a limit passed, a
# project in violation in every check for GRACE s past the last transition)
# goes to SD/defects, once per episode; with GQ_SOAK_FAIL_FAST=1 the first
# one also goes to SD/FAIL and the checker stops.
defect() { # MESSAGE
	echo "$(date +%T) $1" >>"$SD/defects"
	if [[ ${GQ_SOAK_FAIL_FAST:-0} == 1 ]]; then
		echo "$1" >"$SD/FAIL.tmp" && mv "$SD/FAIL.tmp" "$SD/FAIL"
		return 1
	fi
}
soak_checker() {
	set +e
	local -A first=() seen=() told=() lim_told=() lim_seen=()
	local now calm v u line since lim checks=0
	while :; do
		now=$EPOCHSECONDS
		calm=$(cat "$SD/calm" 2>/dev/null) || calm=0
		checks=$((checks + 1))
		echo "$checks" >"$SD/checks"
		lim=$(limit_violation 2>/dev/null)
		lim_seen=()
		while IFS= read -r line; do
			[[ -n $line ]] || continue
			u=${line%% holds *}
			lim_seen[$u]=1
			echo "$now $line" >>"$SD/violations.log"
			[[ -z ${lim_told[$u]:-} ]] || continue
			lim_told[$u]=1
			defect "gpu_limit: $line" || return 0
		done <<<"$lim"
		for u in "${!lim_told[@]}"; do
			[[ -n ${lim_seen[$u]:-} ]] || unset "lim_told[$u]"
		done
		v=$(pools_violation 2>&1)
		if [[ $v == *"invariant: cannot read the cluster"* ]]; then
			echo "$now unreadable" >>"$SD/violations.log"
			sleep 2
			continue
		fi
		seen=()
		while IFS= read -r line; do
			[[ $line == "project "* ]] || continue
			u=${line#project }
			u=${u%% holds *}
			seen[$u]=1
			[[ -n ${first[$u]:-} ]] || first[$u]=$now
			echo "$now $line" >>"$SD/violations.log"
			since=${first[$u]}
			((since >= calm)) || since=$calm
			if ((now - since >= GRACE)) && [[ -z ${told[$u]:-} ]]; then
				told[$u]=1
				defect "$(printf 'invariant: project %s in violation in every check for %ss (since %s, %ss after the last transition): %s' \
					"$u" "$((now - first[$u]))" "$(date -d "@${first[$u]}" +%T)" \
					"$((now - since))" "$line")" || return 0
			fi
		done <<<"$v"
		for u in "${!first[@]}"; do
			[[ -n ${seen[$u]:-} ]] || unset "first[$u]" "told[$u]"
		done
		sleep 2
	done
}

CHECKER_PID=""
stop_checker() {
	if [[ -n $CHECKER_PID ]]; then
		kill "$CHECKER_PID" 2>/dev/null || true
		wait "$CHECKER_PID" 2>/dev/null || true
		CHECKER_PID=""
	fi
}
trap 'stop_checker; _cleanup' EXIT
soak_checker >"$SD/checker.out" 2>&1 &
CHECKER_PID=$!

check_failed() { [[ ! -s $SD/FAIL ]] || fail "$(cat "$SD/FAIL")"; }

# ---------------------------------------------------------------- schedule
# The whole schedule is drawn from the seed alone, before the cluster is
# touched: one line per action, "STEP ACTION ARGS", step i running i
# seconds after the start.  The same seed makes the same schedule (its
# sha1 is printed): what is submitted, cancelled, failed, reloaded, and
# when.  A cancel names a submit by its number (the job that submit made),
# never a job id read from the cluster.
RANDOM=$SEED
rnd() { R=$((RANDOM % $1)); } # R = 0..N-1, in this shell (never in $(...))

# weighted accounts
ACCTS=(ml-a ml-a ml-a ml-b ml-b ml-b ml-c sim-a sim-a sim-b sim-b
       p1 p1 p1 p2 p2 p3 p3 p4 p4-ci p5 p5 p6 guest guest)
make_schedule() { # STEPS -> the schedule on stdout
	local i nsub=0 down=-1 back=0 next_fail=20 next_reload=30
	local r_act r_acct r_shape r_time r_cancel r_pick a how len p q ch
	for ((i = 0; i < $1; i++)); do
		rnd 100; r_act=$R
		rnd ${#ACCTS[@]}; r_acct=$R
		rnd 100; r_shape=$R
		rnd 38; r_time=$((R + 3))
		rnd 100; r_cancel=$R
		rnd 1000; r_pick=$R
		if ((down >= 0 && i >= back)); then
			echo "$i restore"
			down=-1
			rnd 40; next_fail=$((i + 30 + R))
		elif ((down < 0 && i >= next_fail)); then
			rnd $NODES; down=$R
			rnd 3; how=$R
			rnd 30; len=$((15 + R))
			((how == 0)) && len=$((len + 10))
			echo "$i fail $down $how $len"
			back=$((i + len))
		fi
		if ((i >= next_reload)); then
			rnd 4; p=$R
			rnd 5; q=$R
			rnd 2; ch=$R
			echo "$i reload $p $q $ch"
			rnd 40; next_reload=$((i + 40 + R))
		fi
		# one of the last 20 submits (finished ones: scancel does nothing)
		if ((r_cancel < 6 && nsub > 0)); then
			echo "$i cancel $((nsub - r_pick % (nsub < 20 ? nsub : 20)))"
		fi
		((r_act < 72)) || continue
		a=${ACCTS[r_acct]}
		nsub=$((nsub + 1))
		if ((r_shape < 40)); then echo "$i submit $a single 1 $r_time"
		elif ((r_shape < 65)); then echo "$i submit $a single 2 $r_time"
		elif ((r_shape < 75)); then echo "$i submit $a single 4 $r_time"
		elif ((r_shape < 83)); then echo "$i submit $a array 1 $r_time"
		elif ((r_shape < 90)); then echo "$i submit $a multi 2 $r_time"
		else echo "$i submit $a norequeue $((r_shape % 2 + 1)) $r_time"
		fi
	done
}
make_schedule "$SOAK_SECONDS" >"$SD/schedule"
echo "$TEST: schedule of seed $SEED: $(wc -l <"$SD/schedule") actions, sha1 $(sha1sum <"$SD/schedule" | cut -c1-12)"

# GQ_SOAK_BOUNDARY=1: what Slurm does between gpuquota's passes, drawn
# from a second stream (seed + 7919) so that the schedule above stays the
# same: jobs waiting on a dependency on an earlier submit (afterany: it
# clears when that job ends, and Slurm may start the waiter before the
# next pass), jobs with a begin time 5-30 s ahead, and admin holds
# (scontrol hold) on an earlier submit, released 10-40 s later.  Their
# lines join the schedule after the step's own.
make_boundary() { # STEPS -> boundary actions on stdout
	local i nsub=0 r a h
	local -A subs=()
	while read -r i r _; do [[ $r == submit ]] && subs[$i]=$((${subs[$i]:-0} + 1)); done <"$SD/schedule"
	RANDOM=$((SEED + 7919))
	for ((i = 0; i < $1; i++)); do
		nsub=$((nsub + ${subs[$i]:-0}))
		rnd 100; r=$R
		rnd ${#ACCTS[@]}; a=${ACCTS[R]}
		((nsub > 0)) || continue
		if ((r < 8)); then
			rnd 20; echo "$i depsubmit $a $((R % 2 + 1)) $((R + 5)) $((nsub - R % (nsub < 10 ? nsub : 10)))"
		elif ((r < 12)); then
			rnd 26; echo "$i beginsubmit $a $((R % 2 + 1)) $((R + 5)) $((R + 5))"
		elif ((r < 17)); then
			rnd 10; h=$((nsub - R % (nsub < 10 ? nsub : 10)))
			echo "$i hold $h"
			rnd 31
			((i + 10 + R >= $1)) || echo "$((i + 10 + R)) release $h"
		fi
	done
}
# GQ_SOAK_POOLS=1: each submit's partitions, from a third stream (seed +
# 2 x 7919), appended to its line: a100 (45 %), h100 (25 %), both
# (a100,h100 20 %, h100,a100 10 %: home pool the first one listed).
pick_partitions() { # schedule on stdin -> with partitions on stdout
	local i act rest
	RANDOM=$((SEED + 2 * 7919))
	while read -r i act rest; do
		if [[ $act == submit ]]; then
			rnd 100
			if ((R < 45)); then rest+=" a100"
			elif ((R < 70)); then rest+=" h100"
			elif ((R < 90)); then rest+=" a100,h100"
			else rest+=" h100,a100"
			fi
		fi
		echo "$i $act $rest"
	done
}
if ((POOLS)); then
	pick_partitions <"$SD/schedule" >"$SD/schedule.pools"
	mv "$SD/schedule.pools" "$SD/schedule"
	echo "$TEST: partitions of seed $SEED: sha1 $(sha1sum <"$SD/schedule" | cut -c1-12)"
fi

if [[ ${GQ_SOAK_BOUNDARY:-0} == 1 ]]; then
	make_boundary "$SOAK_SECONDS" >"$SD/boundary"
	echo "$TEST: boundary actions of seed $SEED: $(wc -l <"$SD/boundary"), sha1 $(sha1sum <"$SD/boundary" | cut -c1-12)"
	sort -s -n -k1,1 "$SD/schedule" "$SD/boundary" >"$SD/schedule.all"
else
	cp "$SD/schedule" "$SD/schedule.all"
fi

# ---------------------------------------------------------------- driver
declare -A KIND=()
declare -a SUBMIT_ID=()	# submit number -> its job id ("" if sbatch failed)
n_sub=0 n_arr=0 n_multi=0 n_nr=0 n_cancel=0 n_fail=0 n_kill=0 n_reload=0 n_quota=0 n_release=0
n_dep=0 n_begin=0 n_hold=0 n_two=0
events() { echo "$(date +%T) $*" >>"$SD/events.log"; }

submit_job() { # ACCOUNT KIND GPUS SECONDS [PARTITIONS] -> records the job
	local a=$1 kind=$2 g=$3 t=$4 id
	local -a opt=()
	if [[ -n ${5:-} ]]; then
		opt=(-p "$5")
		[[ $5 != *,* ]] || n_two=$((n_two + 1))
	fi
	case $kind in
	array) opt+=(--array=0-3%2); n_arr=$((n_arr + 1)) ;;
	multi) opt+=(-N 2); n_multi=$((n_multi + 1)) ;;
	norequeue) opt+=(--no-requeue); n_nr=$((n_nr + 1)) ;;
	esac
	n_sub=$((n_sub + 1))
	SUBMIT_ID[n_sub]=""
	id=$(sl sbatch --parsable -J "s$n_sub-$a" -A "$a" --gres="gpu:$g" "${opt[@]}" \
		--wrap "sleep $t" 2>>"$SD/sbatch.err") || { events "sbatch failed: $a $kind $g"; return 0; }
	id=${id%%;*}
	SUBMIT_ID[n_sub]=$id
	KIND[$id]=$kind
	echo "$id $a $kind $g $t" >>"$SD/submitted"
	events "submit $id $a $kind gpu:$g sleep $t"
}

# A boundary job (GQ_SOAK_BOUNDARY): on a dependency or a begin time; it
# takes no submit number (cancels and holds name the schedule's submits).
boundary_submit() { # ACCOUNT GPUS SECONDS dep SUBMIT_NUMBER | begin DELAY
	local a=$1 g=$2 t=$3 id opt
	if [[ $4 == dep ]]; then
		[[ -n ${SUBMIT_ID[$5]:-} ]] || return 0
		opt=--dependency=afterany:${SUBMIT_ID[$5]}
		n_dep=$((n_dep + 1))
	else
		opt=--begin=now+$5
		n_begin=$((n_begin + 1))
	fi
	id=$(sl sbatch --parsable -J "b-$a" -A "$a" --gres="gpu:$g" "$opt" "${PART_OPT[@]}" \
		--wrap "sleep $t" 2>>"$SD/sbatch.err") || { events "sbatch failed: $a $opt"; return 0; }
	id=${id%%;*}
	KIND[$id]=$4
	echo "$id $a $4 $g $t" >>"$SD/submitted"
	events "submit $id $a $opt gpu:$g sleep $t"
}

# An admin's hold on a schedule's submit, and its release (a job that
# started or ended meanwhile: scontrol refuses, nothing happens).
HELD=()
hold_submit() { # hold|release SUBMIT_NUMBER
	local id=${SUBMIT_ID[$2]:-}
	[[ -n $id ]] || return 0
	if [[ $1 == hold ]]; then
		sl scontrol hold "$id" 2>/dev/null || return 0
		HELD+=("$id")
		n_hold=$((n_hold + 1))
	else
		sl scontrol release "$id" 2>/dev/null || return 0
	fi
	events "$1 $id (submit $2)"
}

cancel_submit() { # SUBMIT_NUMBER
	local id=${SUBMIT_ID[$1]:-}
	[[ -n $id ]] || return 0
	sl scancel "$id" 2>/dev/null || true
	n_cancel=$((n_cancel + 1))
	events "scancel $id (submit $1)"
}

node_down="" node_how=""
fail_node() { # INDEX(0..) HOW(0 kill slurmd, else scontrol down) DURATION
	local n=n$(($1 + 1)) pid
	n_fail=$((n_fail + 1))
	if (($2 == 0)); then
		pid=$(cat "$DIR/run/slurmd-$n.pid" 2>/dev/null) || pid=""
		if [[ -n $pid ]]; then kill -KILL "$pid" 2>/dev/null || true; fi
		node_how="kill"
		n_kill=$((n_kill + 1))
		calm_from $((EPOCHSECONDS + 40))
		events "kill slurmd $n (pid $pid) for $3s"
	else
		sl scontrol update nodename="$n" state=down reason=soak || true
		node_how="down"
		calm_from "$EPOCHSECONDS"
		events "scontrol down $n for $3s"
	fi
	node_down=$n
}

restore_node() {
	local n=$node_down
	[[ -n $n ]] || return 0
	if [[ $node_how == kill ]]; then
		restart_slurmd "$n" || events "slurmd $n did not start"
		events "restart slurmd $n"
	else
		sl scontrol update nodename="$n" state=resume || true
		events "resume $n"
	fi
	calm_from "$EPOCHSECONDS"
	node_down="" node_how=""
}

reload() { # P(0..3) QUOTA CHANGE(0/1)
	local p=p$(($1 + 1)) q=$2
	n_reload=$((n_reload + 1))
	if (($3)); then
		# p3's limit is 5: any quota 0..4 stays valid (with pools, the
		# quota in a100, where no limit of p1..p4 is set)
		jq --arg p "$p" --argjson q "$q" \
			'.projects |= map(if .name != $p then .
				elif (.gpu_quota | type) == "object" then .gpu_quota.a100 = $q
				else .gpu_quota = $q end)' \
			"$DIR/gpuquota.json" >"$SD/gpuquota.json.new"
		mv "$SD/gpuquota.json.new" "$DIR/gpuquota.json"
		n_quota=$((n_quota + 1))
		events "reconfigure: $p quota $q"
	else
		events "reconfigure"
	fi
	sl scontrol reconfigure || events "scontrol reconfigure failed"
	calm_from "$EPOCHSECONDS"
}

# A job whose launch failed on a dead node is held by Slurm: released, as
# an admin would.  The one action that reads the cluster, not the schedule.
release_launch_failures() {
	local q id reason
	q=$(sl squeue -h -t PD -o '%A|%r' 2>/dev/null) || return 0
	while IFS='|' read -r id reason; do
		[[ $reason == *"launch failed"* ]] || continue
		sl scontrol release "$id" 2>/dev/null && n_release=$((n_release + 1))
		events "release $id ($reason)"
	done <<<"$q"
}

run_step() { # ACTION ARGS...
	case $1 in
	submit) submit_job "$2" "$3" "$4" "$5" "${6:-}" ;;
	cancel) cancel_submit "$2" ;;
	fail) fail_node "$2" "$3" "$4" ;;
	restore) restore_node ;;
	reload) reload "$2" "$3" "$4" ;;
	depsubmit) boundary_submit "$2" "$3" "$4" dep "$5" ;;
	beginsubmit) boundary_submit "$2" "$3" "$4" begin "$5" ;;
	hold | release) hold_submit "$1" "$2" ;;
	esac
}

# Step i at T0 + i s; a slow cluster makes steps late, never reordered.
T0=$EPOCHREALTIME
last=-1
while read -r step action args; do
	if ((step != last)); then
		check_failed
		release_launch_failures
		late=$(awk -v t0="$T0" -v s="$step" -v now="$EPOCHREALTIME" \
			'BEGIN { d = t0 + s - now; if (d > 0) printf "%.3f", d; else print 0 }')
		[[ $late == 0 ]] || sleep "$late"
		last=$step
	fi
	# shellcheck disable=SC2086
	run_step "$action" $args
done <"$SD/schedule.all"
left=$(awk -v t0="$T0" -v s="$SOAK_SECONDS" -v now="$EPOCHREALTIME" \
	'BEGIN { d = t0 + s - now; if (d > 0) printf "%.3f", d; else print 0 }')
[[ $left == 0 ]] || sleep "$left"
events "driver stopped ($(awk -v t0="$T0" -v now="$EPOCHREALTIME" 'BEGIN { printf "%.0f", now - t0 }')s)"

# ---------------------------------------------------------------- the end
restore_node
# the admin's holds let go (a job held to the end would wait for ever)
for id in "${HELD[@]}"; do sl scontrol release "$id" 2>/dev/null || true; done
# every node back (a restarted slurmd registers within seconds)
for ((i = 0; i < 60; i++)); do
	bad=$(sl sinfo -h -N -o '%N %T' | awk '$2 ~ /down|drain|fail|\*/' | sort -u)
	[[ -z $bad ]] && break
	sleep 1
done
[[ -z $bad ]] || fail "nodes not back after the soak: $bad"
sleep $((GRACE + 5))
check_failed
stop_checker
# once more, the cluster left alone (as check_invariant, without failing here)
t0=$SECONDS
while v=$(pools_violation) && [[ -n $v ]] && ((SECONDS - t0 < GRACE)); do sleep 1; done
[[ -z $v ]] || defect "invariant at the end, for ${GRACE}s: $v" || true
checks=$(cat "$SD/checks" 2>/dev/null || echo 0)
seen=$(grep -vc ' unreadable$' "$SD/violations.log" 2>/dev/null || true)
seen=${seen:-0}	# no violations.log: none seen
((checks > 10)) || fail "the checker ran only $checks times"

# ---- no job lost
sl scontrol -o show job >"$SD/jobs.final" 2>/dev/null || fail "scontrol show job failed"
norequeue_ids() {
	local j
	for j in "${!KIND[@]}"; do
		if [[ ${KIND[$j]} == norequeue ]]; then echo "$j"; fi
	done | paste -sd,
}
nr_ids=$(norequeue_ids)
lost=$(awk -v nr="$nr_ids" '
	BEGIN { n = split(nr, a, ","); for (i = 1; i <= n; i++) norq[a[i]] = 1 }
	FNR == NR { want[$1] = 1; next }
	{
		id = ""; arr = ""; st = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^JobId=/) id = substr($i, 7)
			else if ($i ~ /^ArrayJobId=/) arr = substr($i, 12)
			else if ($i ~ /^JobState=/) st = substr($i, 10)
		}
		key = (arr != "" ? arr : id)
		if (!(key in want)) next
		found[key] = 1
		if (st ~ /^(PENDING|RUNNING|COMPLETING|COMPLETED|CANCELLED|CONFIGURING|REQUEUED|SUSPENDED)$/) next
		if (st == "NODE_FAIL" && (key in norq)) next
		print "job " id (arr != "" && arr != id ? " (array " arr ")" : "") " ended " st
	}
	END { for (k in want) if (!(k in found)) print "job " k " unknown to slurmctld" }
' "$SD/submitted" "$SD/jobs.final")
while IFS= read -r l; do [[ -z $l ]] || defect "lost: $l" || true; done <<<"$lost"
if [[ ${GQ_ACCOUNTING:-0} == 1 ]]; then
	sl sacct -a -X -n -P -o JobIDRaw,JobID,State -S "$START_TIME" >"$SD/sacct" \
		|| fail "sacct failed"
	# sacct lists a job from its eligible time: not one still pending on
	# a dependency or a begin time, nor one an admin held (Slurm resets
	# its eligible time, job_mgr.c _hold_job_rec): slurmctld knows those
	not_eligible=$( { printf '%s\n' "${HELD[@]}"
		awk '{ id = ""; st = ""; for (i = 1; i <= NF; i++) {
			if ($i ~ /^JobId=/) id = substr($i, 7)
			else if ($i ~ /^JobState=/) st = substr($i, 10) }
			if (st == "PENDING") print id }' "$SD/jobs.final"; } | paste -sd,)
	missing=$(awk -F'|' -v skip="$not_eligible" '
		BEGIN { n = split(skip, a, ","); for (i = 1; i <= n; i++) no[a[i]] = 1 }
		FNR == NR { split($0, f, " "); if (!(f[1] in no)) want[f[1]] = 1; next }
		{ k = $2; sub(/_.*/, "", k); seen[k] = 1; seen[$1] = 1 }
		END { for (w in want) if (!(w in seen)) print w }' "$SD/submitted" "$SD/sacct")
	[[ -z $missing ]] || defect "lost: sacct does not know jobs $(paste -sd' ' <<<"$missing")" || true
fi

# ---- reclaims
LOG=$DIR/log/slurmctld.log
grep -E 'gpuquota: reclaim( in pool [^:]+)?: ' "$LOG" >"$SD/reclaims" || true
grep -oE 'preempted JobId=[0-9_]+(\([0-9]+\))? has been requeued to reclaim resources for JobId=[0-9_]+(\([0-9]+\))?' \
	"$LOG" >"$SD/requeues" || true
bad=$(awk -v maxr="$MAX_RECLAIMS" -v nr="$nr_ids" '
	BEGIN { n = split(nr, a, ","); for (i = 1; i <= n; i++) norq[a[i]] = 1 }
	function epoch(ts,   d) {
		d = ts; gsub(/[-T:]/, " ", d); sub(/\..*/, "", d)
		return mktime(d)
	}
	FNR == NR {
		# [time] gpuquota: reclaim: JobId=P (pp, band, A=x, quota q, fair share f)
		#   takes JobId=V (vp, g GPU[s]; vp holds h, quota qv, fair share fv, floor fl)
		t = epoch(substr($1, 2, 23))
		match($0, /JobId=[0-9]+ \(/); p = substr($0, RSTART + 6, RLENGTH - 8)
		match($0, /JobId=[0-9]+ \([^,]+,/); pp = substr($0, RSTART, RLENGTH - 1); sub(/.*\(/, "", pp)
		match($0, /takes JobId=[0-9]+ \([^,]+,/); vp = substr($0, RSTART, RLENGTH - 1); sub(/.*\(/, "", vp)
		match($0, /, (in-quota|fair-share|over-fair-share|[a-z-]+), A=/)
		band = substr($0, RSTART + 2, RLENGTH - 6)
		match($0, /A=[0-9.e+]+, quota [0-9.e+]+, fair share [0-9.]+\)/); s = substr($0, RSTART, RLENGTH)
		A = substr(s, 3) + 0
		match(s, /quota [0-9.e+]+/); pq = substr(s, RSTART + 6, RLENGTH - 6) + 0
		match(s, /fair share [0-9.]+/); pf = substr(s, RSTART + 11, RLENGTH - 11) + 0
		match($0, /takes JobId=[0-9]+/); v = substr($0, RSTART + 12, RLENGTH - 12)
		match($0, /\(([^,]+), [0-9]+ GPUs?;/); s = substr($0, RSTART, RLENGTH)
		match(s, /[0-9]+ GPU/); g = substr(s, RSTART, RLENGTH - 4) + 0
		match($0, /holds [0-9]+/); h = substr($0, RSTART + 6, RLENGTH - 6) + 0
		match($0, /floor [0-9.]+/); fl = substr($0, RSTART + 6, RLENGTH - 6) + 0
		nrec++
		cnt[v]++
		if (band != "in-quota" && band != "fair-share")
			print "reclaim by a " band " job: " $0
		if (band == "in-quota" && A > pq + 1e-9)
			print "in-quota reclaim with A > quota: " $0
		if (band == "fair-share" && A > pf + 0.005)
			print "fair-share reclaim with A > fair share: " $0
		if (pp == vp)
			print "reclaim inside one project: " $0
		if (h - g < fl - 0.005)
			print "reclaim below the floor (" h " - " g " < " fl "): " $0
		if (v in norq)
			print "reclaim of a --no-requeue job: " $0
		if ((v SUBSEP p) in last && t - last[v, p] < 60)
			print "job " v " reclaimed twice within " (t - last[v, p]) "s for job " p
		last[v, p] = t
		rec[v, p] = 1
		next
	}
	{
		# preempted JobId=V[(raw)] has been requeued ... for JobId=P[(raw)]
		v = $2; sub(/^JobId=/, "", v); if (v ~ /\(/) { sub(/.*\(/, "", v); sub(/\)/, "", v) }
		p = $NF; sub(/^JobId=/, "", p); if (p ~ /\(/) { sub(/.*\(/, "", p); sub(/\)/, "", p) }
		nreq++
		if (!(v in cnt)) print "Slurm requeued job " v " (for " p ") without a gpuquota reclaim line"
	}
	END {
		for (v in cnt) if (cnt[v] > maxr) print "job " v " reclaimed " cnt[v] " times"
	}' "$SD/reclaims" "$SD/requeues")
while IFS= read -r l; do [[ -z $l ]] || defect "reclaim: $l" || true; done <<<"$bad"
# A victim runs between two of its reclaims: Slurm's start lines and
# gpuquota's reclaim lines, in the log's order.
bad=$(grep -E 'gpuquota: reclaim( in pool [^:]+)?: |_start_job: Started JobId=|sched: Allocate JobId=' "$LOG" | awk '
	function raw(s) { sub(/^JobId=/, "", s); if (s ~ /\(/) { sub(/.*\(/, "", s); sub(/\).*/, "", s) } return s }
	/gpuquota: reclaim( in pool [^:]+)?: / {
		for (i = 1; i <= NF; i++) if ($i == "takes") v = raw($(i + 1))
		if ((v in reclaimed) && !(v in started))
			print "job " v " reclaimed again without starting in between: " $0
		reclaimed[v] = 1; delete started[v]
		next
	}
	{ for (i = 1; i <= NF; i++) if ($i ~ /^JobId=/) { started[raw($i)] = 1; break } }')
while IFS= read -r l; do [[ -z $l ]] || defect "reclaim: $l" || true; done <<<"$bad"
n_reclaims=$(wc -l <"$SD/reclaims")
# (no reclaim: grep finds nothing; said as a defect below, not an exit)
n_victims=$( (grep -oE 'takes JobId=[0-9]+' "$SD/reclaims" || true) | sort -u | wc -l)
max_per=$( (grep -oE 'takes JobId=[0-9]+' "$SD/reclaims" || true) | sort | uniq -c | sort -rn | awk 'NR == 1 { print $1 + 0 }')
((n_reclaims > 0)) || defect "the soak caused no reclaim at all: not a test of reclaim" || true
states=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^JobState=/) print substr($i, 10) }' "$SD/jobs.final" |
	sort | uniq -c | awk '{ printf "%s%s %s", sep, $2, $1; sep = ", " }')
echo "$TEST: seed $SEED: $n_sub submits ($n_arr arrays, $n_multi two-node, $n_nr --no-requeue), $n_cancel cancels, $n_fail node failures ($n_kill slurmd kills), $n_reload reloads ($n_quota quota changes), $n_release launch-failure releases; $n_dep on a dependency, $n_begin with a begin time, $n_hold admin holds; $n_two listing two pools"
echo "$TEST: $n_reclaims reclaims of $n_victims jobs (at most ${max_per:-0} per job); $checks checks, $seen transient violations; jobs: $states; $((EPOCHSECONDS - START_EPOCH))s"
if [[ -s $SD/defects ]]; then
	fail "$(wc -l <"$SD/defects") violations (seed $SEED):
$(sed 's/^/  /' "$SD/defects")"
fi
pass
