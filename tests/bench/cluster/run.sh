#!/usr/bin/env bash
# Owns `make bench-cluster`: stock Slurm (multifactor fair share + the QOS
# quota recipe with preempt/qos, accounting on) and gpuquota, side by side,
# on the same cluster shape and the same seeded workload, several rounds;
# then one table (report.py), a plot (plot.gp) and the cause of every second
# of gpuquota's quota-guarantee violation past the grace (episodes.py).
# Every cluster it starts is stopped by its dir, also on failure.
#
# Environment (defaults; GQ_BENCH_QUICK=1 gives the small development size
# in brackets):
#   GQ_BENCH_NODES 64 [4]   nodes, one `slurmd -N` each
#   GQ_BENCH_GPUS 8 [4]     GPUs per node (CPUs per node the same)
#   GQ_BENCH_PROJECTS 24 [5] projects with a quota (the burst one included)
#   GQ_BENCH_ZERO 3 [1]     zero-quota accounts
#   GQ_BENCH_JOBS 2000 [150] submissions (an array counts once)
#   GQ_BENCH_SECONDS 420 [120] submit window; the measured window adds
#   GQ_BENCH_TAIL 60 [30]   seconds after the last submit
#   GQ_BENCH_ROUNDS 3 [1]   rounds; each runs both systems (order alternates)
#   GQ_BENCH_STORM 400 [100] held submits as fast as 4 clients go, after the
#                           measured window (submit throughput; 0: none)
#   GQ_BENCH_SEED 1         workload seed
#   GQ_BENCH_SHAPE mixed    the seeded workload's shape; churn: short one-GPU
#                           jobs only, the controller's cost; gangs: one job
#                           in ten on 2-4 whole nodes, and the four largest
#                           projects submit gangs in quota (workload.py)
#   GQ_BENCH_SYSTEMS "stock gpuquota multifactor"  the systems each round
#                           runs (multifactor: plain priority/multifactor,
#                           preempt/none, no quota: the controller's floor)
#   GQ_BENCH_CHECKPOINT_SHARE 0  the share of the seeded workload's jobs whose
#                           batch script runs `gpuquota checkpoint` every
#   GQ_BENCH_CHECKPOINT_EVERY 30 seconds of its run (on both systems; the
#                           report's work lost counts from the last one)
#   GQ_BENCH_TIME_LIMITS 0  1: every job gets --time, its run time plus
#                           30 s rounded up to minutes (both systems)
#   GQ_BENCH_PATIENCE 0     gpuquota's settings.reclaim_patience (seconds)
#   GQ_BENCH_ROOM_WAIT      gpuquota's settings.room_wait (seconds; unset:
#                           its default)
#   GQ_BENCH_MOVE_AGE       gpuquota's settings.move_age (seconds; unset:
#                           its default, 0: no moves)
#   GQ_BENCH_CTLD_CPU       unset: every process on every CPU; a CPU number:
#                           slurmctld alone on that CPU, the rest of the
#                           cluster, the submitters and squeue on the others
#                           (both systems): a controller with a core of its
#                           own, as on a production host
#   GQ_BENCH_SCHED          SchedulerParameters for every system (unset:
#                           the test clusters' sched_interval=2,bf_interval=2;
#                           Slurm's own defaults are 60 and 30 s)
#   GQ_BENCH_TRACE          a CSV of the Philly trace (docs/PERFORMANCE.md,
#                           "Replaying a public trace"): replay a stretch
#                           of it (trace_workload.py) instead of the seeded
#                           workload; JOBS, SECONDS, PROJECTS, ZERO size
#                           it, no burst project, SEED unused
#   GQ_BENCH_TRACE_START 12750  its first job (row, 0: the file's first)
#   GQ_BENCH_TRACE_LOAD 1.3 offered GPU-seconds over the submit window, a
#                           multiple of the cluster's (run times scaled to it)
#   GQ_BENCH_DIR            work dir (default: a new /tmp/gq-bench.XXXXXX)
#   GQ_BENCH_OUT            where the table, data and PNG go (default DIR/report)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=$ROOT/tests/bench/cluster
CLUSTER=$ROOT/scripts/cluster.sh
PY=/usr/bin/python3

if [[ ${GQ_BENCH_QUICK:-0} == 1 ]]; then
	d=(4 4 5 1 150 120 30 1 100)
else
	d=(64 8 24 3 2000 420 60 3 400)
fi
NODES=${GQ_BENCH_NODES:-${d[0]}}
GPUS=${GQ_BENCH_GPUS:-${d[1]}}
PROJECTS=${GQ_BENCH_PROJECTS:-${d[2]}}
ZERO=${GQ_BENCH_ZERO:-${d[3]}}
JOBS=${GQ_BENCH_JOBS:-${d[4]}}
SECONDS_=${GQ_BENCH_SECONDS:-${d[5]}}
TAIL=${GQ_BENCH_TAIL:-${d[6]}}
ROUNDS=${GQ_BENCH_ROUNDS:-${d[7]}}
STORM=${GQ_BENCH_STORM:-${d[8]}}
CTLD_CPU=${GQ_BENCH_CTLD_CPU:-}
SEED=${GQ_BENCH_SEED:-1}
SHAPE=${GQ_BENCH_SHAPE:-mixed}
read -r -a SYSTEMS <<<"${GQ_BENCH_SYSTEMS:-stock gpuquota multifactor}"
WORK=${GQ_BENCH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/gq-bench.XXXXXX")}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd -P)
OUT=${GQ_BENCH_OUT:-$WORK/report}

say() { echo "bench-cluster: $*" >&2; }
die() { say "error: $*"; exit 1; }

for v in NODES GPUS PROJECTS ZERO JOBS SECONDS_ TAIL ROUNDS STORM SEED; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "GQ_BENCH_${v%_} must be a number, got '${!v}'"
done
((ROUNDS >= 1)) || die "GQ_BENCH_ROUNDS must be >= 1"
[[ $SHAPE == mixed || $SHAPE == churn || $SHAPE == gangs ]] || die "GQ_BENCH_SHAPE must be mixed, churn or gangs, got '$SHAPE'"
for s in "${SYSTEMS[@]}"; do
	[[ $s == stock || $s == gpuquota || $s == multifactor ]] \
		|| die "GQ_BENCH_SYSTEMS: '$s' is not stock, gpuquota or multifactor"
done
((${#SYSTEMS[@]} > 0)) || die "GQ_BENCH_SYSTEMS names no system"
OTHER_CPUS=""	# the CPUs of everything but slurmctld (GQ_BENCH_CTLD_CPU)
if [[ -n $CTLD_CPU ]]; then
	[[ $CTLD_CPU =~ ^[0-9]+$ ]] && ((CTLD_CPU < $(nproc))) \
		|| die "GQ_BENCH_CTLD_CPU must be a CPU number below $(nproc), got '$CTLD_CPU'"
	((CTLD_CPU > 0)) && OTHER_CPUS=0-$((CTLD_CPU - 1))
	((CTLD_CPU + 1 < $(nproc))) && OTHER_CPUS+=${OTHER_CPUS:+,}$((CTLD_CPU + 1))-$(($(nproc) - 1))
	[[ -n $OTHER_CPUS ]] || die "GQ_BENCH_CTLD_CPU needs a machine with 2 CPUs or more"
fi
for b in "$PY" gnuplot sdiag sacctmgr sbatch squeue; do
	command -v "$b" >/dev/null || die "$b not found (run scripts/install-deps.sh --bench)"
done
[[ -x $ROOT/build/priority_gpuquota.so || -f $ROOT/build/priority_gpuquota.so ]] \
	|| die "build/priority_gpuquota.so missing (run make)"

CURRENT=""
cleanup() {
	if [[ -n $CURRENT ]]; then
		"$CLUSTER" down --dir "$CURRENT" >/dev/null 2>&1 || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the workload, the same for every run
WL=$WORK/workload
TRACE=${GQ_BENCH_TRACE:-}
if [[ -n $TRACE ]]; then
	[[ -f $TRACE ]] || die "GQ_BENCH_TRACE: no file '$TRACE'"
	START=${GQ_BENCH_TRACE_START:-12750}
	LOAD=${GQ_BENCH_TRACE_LOAD:-1.3}
	[[ $START =~ ^[0-9]+$ ]] || die "GQ_BENCH_TRACE_START must be a number, got '$START'"
	[[ $LOAD =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "GQ_BENCH_TRACE_LOAD must be a number, got '$LOAD'"
	"$PY" "$HERE/trace_workload.py" --trace "$TRACE" --start "$START" --jobs "$JOBS" --nodes "$NODES" \
		--gpus "$GPUS" --projects "$PROJECTS" --zero "$ZERO" --seconds "$SECONDS_" \
		--load "$LOAD" --out "$WL"
else
	"$PY" "$HERE/workload.py" --seed "$SEED" --nodes "$NODES" --gpus "$GPUS" \
		--projects "$PROJECTS" --zero "$ZERO" --jobs "$JOBS" --seconds "$SECONDS_" \
		--shape "$SHAPE" --ckpt-share "${GQ_BENCH_CHECKPOINT_SHARE:-0}" \
		--ckpt-every "${GQ_BENCH_CHECKPOINT_EVERY:-30}" --out "$WL"
fi
ACCOUNTS=$(cut -f1 "$WL/projects.tsv" | paste -sd,)
PATIENCE=${GQ_BENCH_PATIENCE:-0}
[[ $PATIENCE =~ ^[0-9]+$ ]] || die "GQ_BENCH_PATIENCE must be a number, got '$PATIENCE'"
ROOM_WAIT=${GQ_BENCH_ROOM_WAIT:-}
[[ -z $ROOM_WAIT || $ROOM_WAIT =~ ^[0-9]+$ ]] || die "GQ_BENCH_ROOM_WAIT must be a number, got '$ROOM_WAIT'"
MOVE_AGE=${GQ_BENCH_MOVE_AGE:-}
[[ -z $MOVE_AGE || $MOVE_AGE =~ ^[0-9]+$ ]] || die "GQ_BENCH_MOVE_AGE must be a number, got '$MOVE_AGE'"
export GQ_BENCH_TIME_LIMITS=${GQ_BENCH_TIME_LIMITS:-0}
jq -R -s --argjson patience "$PATIENCE" --arg room_wait "$ROOM_WAIT" --arg move_age "$MOVE_AGE" \
	'split("\n") | map(select(length > 0) | split("\t"))
	| {projects: map({name: .[0], gpu_quota: (.[1] | tonumber)})}
	| if $patience > 0 then .settings.reclaim_patience = $patience else . end
	| if $room_wait != "" then .settings.room_wait = ($room_wait | tonumber) else . end
	| if $move_age != "" then .settings.move_age = ($move_age | tonumber) else . end' \
	"$WL/projects.tsv" >"$WL/gpuquota.json"
say "work dir $WORK: $NODES nodes x $GPUS GPUs, $(wc -l <"$WL/projects.tsv") accounts, $(wc -l <"$WL/schedule.tsv") submits over ${SECONDS_}s, $ROUNDS round(s), ${TRACE:+trace }${TRACE:-seed $SEED}"

# The site's multifactor settings, the same on both sides: stock runs
# priority/multifactor, gpuquota runs it inside itself.
SITE_CONF=(
	PriorityWeightQOS=100000 PriorityWeightFairshare=10000 PriorityWeightAge=1000
	"AccountingStorageEnforce=associations,limits,qos"
	${GQ_BENCH_SCHED:+"SchedulerParameters=$GQ_BENCH_SCHED"}
)
STOCK_CONF=(
	PriorityType=priority/multifactor PreemptType=preempt/qos PreemptMode=REQUEUE
	"${SITE_CONF[@]}"
)
MF_CONF=(PriorityType=priority/multifactor PreemptType=preempt/none PreemptMode=OFF
	"${SITE_CONF[@]}")
GQ_CONF=(PriorityType=priority/gpuquota PreemptType=preempt/gpuquota JobSubmitPlugins=gpuquota PreemptMode=REQUEUE
	"${SITE_CONF[@]}")

# The stock recipe: QOS scavenger (preemptable, requeue), one guaranteed QOS
# q-<acct> per account with GrpTRES=gres/gpu=<quota>; each account and its
# user association may use q-<acct> (default) and scavenger, Fairshare=quota.
stock_qos() { # DIR
	local cl acct q
	cl=$(sed -n 's/^ClusterName=//p' "$1/slurm.conf")
	sacctmgr -i add qos scavenger Priority=0 PreemptMode=requeue >/dev/null
	while read -r acct q; do
		if ((q > 0)); then
			sacctmgr -i add qos "q-$acct" Priority=1000 Preempt=scavenger \
				GrpTRES="gres/gpu=$q" >/dev/null
			sacctmgr -i modify account where name="$acct" cluster="$cl" set \
				QOS="q-$acct,scavenger" DefaultQOS="q-$acct" Fairshare="$q" >/dev/null
			sacctmgr -i modify user where name=root account="$acct" cluster="$cl" set \
				QOS="q-$acct,scavenger" DefaultQOS="q-$acct" Fairshare="$q" >/dev/null
		else
			sacctmgr -i modify account where name="$acct" cluster="$cl" set \
				QOS=scavenger DefaultQOS=scavenger Fairshare=1 >/dev/null
			sacctmgr -i modify user where name=root account="$acct" cluster="$cl" set \
				QOS=scavenger DefaultQOS=scavenger Fairshare=1 >/dev/null
		fi
	done <"$WL/projects.tsv"
	sleep 3	# slurmdbd pushes the changes to slurmctld
	local acct1
	acct1=$(awk '$2 > 0 { print $1; exit }' "$WL/projects.tsv")
	sbatch --test-only -A "$acct1" --qos="q-$acct1" --gres=gpu:1 --wrap true >/dev/null 2>&1 \
		|| die "stock: q-$acct1 not usable by $acct1 after sacctmgr"
}

up() { # SYSTEM DIR: three tries (a port range may meet the ephemeral range)
	local sys=$1 dir=$2 try e
	local -a args=(--dir "$dir" --nodes "$NODES" --gpus "$GPUS" --cpus "$GPUS"
		--timeout 300 --accounting --accounts "$ACCOUNTS")
	if [[ $sys == stock ]]; then
		for e in "${STOCK_CONF[@]}"; do args+=(--conf-extra "$e"); done
	elif [[ $sys == multifactor ]]; then
		for e in "${MF_CONF[@]}"; do args+=(--conf-extra "$e"); done
	else
		args+=(--plugindir "$ROOT/build" --gpuquota-json "$WL/gpuquota.json")
		for e in "${GQ_CONF[@]}"; do args+=(--conf-extra "$e"); done
	fi
	for try in 1 2 3; do
		if "$CLUSTER" up "${args[@]}" >"$dir.up.log" 2>&1; then
			return 0
		fi
		say "$sys: cluster up failed (try $try), see $dir.up.log"
		"$CLUSTER" down --dir "$dir" >/dev/null 2>&1 || true
	done
	die "$sys: cluster did not start"
}

run_one() { # SYSTEM ROUND
	local sys=$1 round=$2 dir=$WORK/r$2-$1 t
	t=$SECONDS
	CURRENT=$dir
	mkdir -p "$dir"
	up "$sys" "$dir"
	# shellcheck source=/dev/null
	. "$dir/env"
	if [[ $sys == stock ]]; then
		stock_qos "$dir"
	elif [[ $sys == gpuquota ]]; then
		grep -q 'gpuquota: loaded' "$dir/log/slurmctld.log" || die "slurmctld did not load gpuquota"
	fi
	say "round $round: $sys: cluster up in $((SECONDS - t))s, replaying"
	local -a pin=()
	if [[ -n $CTLD_CPU ]]; then	# every thread of each daemon; children inherit
		local f
		for f in "$dir"/pids/*.pid; do
			local cpus=$OTHER_CPUS
			[[ $f == */slurmctld.pid ]] && cpus=$CTLD_CPU
			taskset -a -p -c "$cpus" "$(cat "$f")" >/dev/null \
				|| die "$sys: $(basename "$f" .pid) (pid $(cat "$f")) is gone before the replay: see $dir/log"
		done
		pin=(taskset -c "$OTHER_CPUS")
	fi
	(cd "$dir" && "${pin[@]}" "$PY" "$HERE/replay.py" --work "$WL" --system "$sys" --state "$dir/state" \
		--ctld-pid "$(cat "$dir/pids/slurmctld.pid")" --out "$WORK/r$round-$sys.out" --tail "$TAIL" \
		--storm "$STORM" --gpuquota "$ROOT/build/gpuquota")
	"$CLUSTER" down --dir "$dir" >/dev/null 2>&1
	CURRENT=""
	say "round $round: $sys: done in $((SECONDS - t))s"
}

for ((r = 1; r <= ROUNDS; r++)); do
	n=${#SYSTEMS[@]}	# each round starts one system later
	for ((k = 0; k < n; k++)); do run_one "${SYSTEMS[(k + r - 1) % n]}" "$r"; done
done

mkdir -p "$OUT"
"$PY" "$HERE/report.py" --work "$WORK" --rounds "$ROUNDS" --out "$OUT" --systems "${SYSTEMS[*]}" \
	--machine "$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), $(uname -r), load before $(cut -d' ' -f1-3 /proc/loadavg)${CTLD_CPU:+, slurmctld alone on CPU $CTLD_CPU}"
(cd "$OUT" && gnuplot "$HERE/plot.gp")
cat "$OUT/table.md"
"$PY" "$HERE/episodes.py" --work "$WL" --dir "$WORK" --rounds "$ROUNDS" --out "$OUT"
echo
sed -n '1,/^| all /p' "$OUT/episodes.md"
say "table: $OUT/table.md, plot: $OUT/allocation.png, violation episodes: $OUT/episodes.md"
