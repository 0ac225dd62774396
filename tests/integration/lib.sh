# shellcheck shell=bash
# Owns the helpers of the integration tests: a real cluster running the
# gpuquota plugins (scripts/cluster.sh), submitting with sbatch, waiting for
# and asserting job states and per-project GPU counts read from squeue,
# scontrol and the gpuquota command.  Sourced by tests/integration/test_*.sh.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLUSTER=$ROOT/scripts/cluster.sh
# GQ_INSTALLED=1: test the installed package (make deb): the plugins from
# Slurm's own PluginDir, the command from PATH; else this tree's build/.
if [[ ${GQ_INSTALLED:-0} == 1 ]]; then
	PLUGIN_OPTS=()
	GPUQUOTA=$(command -v gpuquota) || { echo "GQ_INSTALLED=1: no gpuquota in PATH" >&2; exit 1; }
else
	# GQ_PLUGINDIR: another build of the plugins (run.sh, GQ_ASAN=1: the
	# sanitizer build, its runtime preloaded into slurmctld)
	PLUGIN_OPTS=(--plugindir "${GQ_PLUGINDIR:-$ROOT/build}")
	# GQ_GPUQUOTA: another build of the command (run.sh, GQ_SLURM_PREFIX:
	# the one linked against that Slurm's libslurm)
	GPUQUOTA=${GQ_GPUQUOTA:-$ROOT/build/gpuquota}
fi
TEST=$(basename "$0" .sh)
DIR=$(mktemp -d "${TMPDIR:-/tmp}/gq-$TEST.XXXXXX")
_ok=0

_cleanup() {
	local r
	"$CLUSTER" down --dir "$DIR" >/dev/null 2>&1 || true
	# a sanitizer report of slurmctld (written at the error, or at exit)
	for r in "$DIR"/log/asan.* "$DIR"/log/ubsan.*; do
		[[ -f $r ]] || continue
		echo "$TEST: FAIL: sanitizer report from slurmctld: $r" >&2
		head -n 40 "$r" >&2
		_ok=0
		trap - EXIT
		echo "$TEST: work dir kept: $DIR" >&2
		exit 1
	done
	if [[ $_ok == 1 && -z ${KEEP:-} ]]; then
		rm -rf "$DIR"
	else
		echo "$TEST: work dir kept: $DIR" >&2
	fi
}
trap _cleanup EXIT

fail() {
	echo "$TEST: FAIL: $*" >&2
	sl squeue -o '%.6i %.8j %.10a %.3t %.12r %.12Q %b %N' >&2 || true
	sl sinfo -N -h -o 'node %N %T %E' >&2 || true
	[[ -f $DIR/log/slurmctld.log ]] && grep -E 'gpuquota|preempt' "$DIR/log/slurmctld.log" | tail -n 20 >&2
	exit 1
}

pass() {
	_ok=1
	echo "$TEST: PASS"
}

# slurm_at_least MAJOR.MINOR: is the Slurm under test that version or newer?
slurm_at_least() {
	local v
	v=$(slurmctld -V | grep -oE '[0-9]+\.[0-9]+' | head -n 1)
	awk -v v="$v" -v w="$1" 'BEGIN { split(v, a, "."); split(w, b, ".");
		exit !(a[1] > b[1] || (a[1] == b[1] && a[2] >= b[2])) }'
}

# Run a Slurm client in the cluster's environment.
# shellcheck source=/dev/null
sl() { (. "$DIR/env" && cd "$DIR" && "$@"); }

# Every account a gpuquota.json names (project names and "accounts"
# entries) plus GQ_EXTRA_ACCOUNTS, as a comma list.
config_accounts() { # JSON_FILE
	{
		jq -r '(.projects // [])[] | .name, (.accounts // [])[]
			| select(type == "string")' "$1" 2>/dev/null || true
		tr ',' '\n' <<<"${GQ_EXTRA_ACCOUNTS:-}"
	} | awk 'NF && !seen[$0]++' | paste -sd, -
}

# share_with_others: for a test that runs commands as another user, before
# up_cluster.  That user may not be able to enter the checkout (a clone
# under /root or any mode-0700 directory), so the plugins slurm.conf's
# PluginDir names and the gpuquota command are copied into DIR/share,
# which the user can traverse (DIR and DIR/munge too); DIR goes with the
# test.  The installed package (GQ_INSTALLED=1) is in system directories.
share_with_others() {
	local from f
	chmod o+x "$DIR"
	[[ ${GQ_INSTALLED:-0} == 1 ]] && return 0
	from=${PLUGIN_OPTS[1]}
	install -d -m 0755 "$DIR/share"
	for f in "$from"/*.so; do
		install -m 0755 "$f" "$DIR/share/"
	done
	install -m 0755 "$GPUQUOTA" "$DIR/share/gpuquota"
	PLUGIN_OPTS=(--plugindir "$DIR/share")
	GPUQUOTA=$DIR/share/gpuquota
}

# up_cluster CONFIG_JSON [cluster.sh up options...]: the plugins, REQUEUE.
# GQ_ACCOUNTING=1: with slurmdbd, every account of CONFIG_JSON (and of
# GQ_EXTRA_ACCOUNTS) created, associations enforced.
up_cluster() {
	local json=$1
	shift
	printf '%s\n' "$json" >"$DIR/gpuquota.in.json"
	local -a acct_opts=()
	if [[ ${GQ_ACCOUNTING:-0} == 1 ]]; then
		acct_opts=(--accounting --accounts "$(config_accounts "$DIR/gpuquota.in.json")")
	fi
	"$CLUSTER" up --dir "$DIR" "${PLUGIN_OPTS[@]}" \
		--gpuquota-json "$DIR/gpuquota.in.json" \
		--conf-extra PriorityType=priority/gpuquota \
		--conf-extra PreemptType=preempt/gpuquota \
		--conf-extra JobSubmitPlugins=gpuquota \
		--conf-extra PreemptMode=REQUEUE "${acct_opts[@]}" "$@" >/dev/null
	grep -q 'gpuquota: loaded' "$DIR/log/slurmctld.log" \
		|| fail "slurmctld did not load gpuquota"
}

# restart_slurmd NODE: start a killed node's slurmd again as cluster.sh
# does, with its marker the last variable of its environment: slurmstepd's
# process title overwrites all of its environment but the last variable,
# and `cluster.sh down` finds a job's slurmstepd by the marker (with
# SLURM_CONF after it, slurmd's own setenv, the steps it starts were left
# running after down)
restart_slurmd() {
	local n=$1 cdir i
	cdir=$(cd "$DIR" && pwd -P)	# the marker's value (cluster.sh)
	rm -f "$DIR/run/slurmd-$n.pid"
	(cd "$cdir" && env "SLURM_CONF=$cdir/slurm.conf" "GPUQUOTA_CLUSTER_OWNER=$cdir" \
		slurmd -N "$n" -f "$cdir/slurm.conf" \
		</dev/null >>"$cdir/log/slurmd-$n.stderr" 2>&1) || return 1
	for ((i = 0; i < 50; i++)); do
		[[ -s $DIR/run/slurmd-$n.pid ]] && break
		sleep 0.2
	done
	cp "$DIR/run/slurmd-$n.pid" "$DIR/pids/slurmd-$n.pid" 2>/dev/null || true
}

# up_research_dbd: the quick start (2 nodes x 2 GPUs, team-a and team-b at
# quota 2) with team-b in department research (quota 2, limit 2), with
# slurmdbd (accounts research and moved made too); $cluster: ClusterName.
up_research_dbd() {
	GQ_ACCOUNTING=1 GQ_EXTRA_ACCOUNTS=research,moved \
		up_cluster '{"departments": [{"name": "research", "gpu_quota": 2, "gpu_limit": 2}],
			     "projects": [{"name": "team-a", "gpu_quota": 2},
					  {"name": "team-b", "gpu_quota": 2, "department": "research"}]}'
	cluster=$(sl scontrol show config | awk '/^ClusterName/ { print $3 }')
}

# move_account ACCOUNT PARENT: make ACCOUNT a child of PARENT in sacctmgr,
# retrying for up to 60 s while slurmdbd comes back; false when it never
# took (uses $cluster, see up_research_dbd)
move_account() {
	local i
	for ((i = 0; i < 60; i++)); do
		sl sacctmgr -i modify account where name="$1" cluster="$cluster" set Parent="$2" \
			>/dev/null 2>&1 && [[ $(sl sacctmgr -n -P show assoc cluster="$cluster" account="$1" \
				format=User,ParentName | awk -F'|' '$1 == "" { print $2 }') == "$2" ]] && return 0
		sleep 1
	done
	return 1
}

# daemon_running NAME: is the daemon of DIR/pids/NAME.pid running (a zombie
# is gone)?
daemon_running() {
	local st
	st=$(awk '{ print $3 }' "/proc/$(cat "$DIR/pids/$1.pid" 2>/dev/null)/stat" 2>/dev/null) || return 1
	[[ -n $st && $st != Z ]]
}

# logged TEXT: "yes" when slurmctld's log holds TEXT (a line Slurm does
# not clear, unlike a squeue reason)
logged() { grep -qF -- "$1" "$DIR/log/slurmctld.log" && echo yes; }
# wait_logged SECONDS TEXT WHAT: fail ("no line ... says WHAT") unless
# slurmctld's log holds TEXT within SECONDS
wait_logged() {
	_wait_eq "$1" yes logged "$2" \
		|| fail "no line in slurmctld's log says $3"
}

# reason_has JOB TEXT: "yes" when the job's squeue reason holds TEXT
reason_has() { [[ $(sl squeue -h -j "$1" -o %r) == *"$2"* ]] && echo yes; }

# _descendants PID: every process below PID (children first)
_descendants() {
	local k
	for k in $(ps -o pid= --ppid "$1"); do
		echo "$k"
		_descendants "$k"
	done
}

# crash_node NODE JOB...: SIGKILL the node's slurmd and the slurmstepd of
# each JOB (its processes first), as a machine that dies.  Killing slurmd
# alone would leave the jobs' slurmstepd running: when the node registers
# again Slurm kills those and revokes the job's credential on that node, and
# a requeued job it starts there in the same second fails ("Job credential
# revoked"), Slurm's behaviour, seen in a first version of test_node_failure.
crash_node() {
	local node=$1 pid j p cmd cdir
	local -a marked kids
	shift
	cdir=$(cd "$DIR" && pwd -P)	# the marker's value (cluster.sh)
	pid=$(cat "$DIR/run/slurmd-$node.pid")
	kill -KILL "$pid"
	mapfile -t marked < <(grep -lzFx "GPUQUOTA_CLUSTER_OWNER=$cdir" /proc/[0-9]*/environ 2>/dev/null |
		cut -d/ -f3)
	for j in "$@"; do
		for p in "${marked[@]}"; do
			cmd=$(tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | head -n 1) || continue
			[[ $cmd == "slurmstepd: [$j."* ]] || continue
			# its job's processes (the script and what it started),
			# then the slurmstepd itself
			mapfile -t kids < <(_descendants "$p")
			kill -KILL "${kids[@]}" "$p" 2>/dev/null || true
		done
	done
}

# submit NAME ACCOUNT GPUS [sbatch options...] -> prints the job id
submit() {
	local name=$1 acct=$2 gpus=$3
	shift 3
	sl sbatch --parsable -J "$name" -A "$acct" --gres="gpu:$gpus" "$@" \
		--wrap 'sleep 3600'
}

state() { sl squeue -h -j "$1" -o %T 2>/dev/null || true; }

# 2 nodes x 4 GPUs filled so that a 4-GPU job gets room on neither:
# team-a runs a1, a1b (1 + 1 GPU) on n1 and a2 (2) on n2, team-c c1, c2
# on n1 and c3, c4 on n2 (1 each).  Sets a1 a1b a2 c1 c2 c3 c4.
fill_no_room() {
	a1=$(submit a1 team-a 1 -w n1); wait_state "$a1" RUNNING
	a1b=$(submit a1b team-a 1 -w n1); wait_state "$a1b" RUNNING
	a2=$(submit a2 team-a 2 -w n2); wait_state "$a2" RUNNING
	c1=$(submit c1 team-c 1 -w n1); wait_state "$c1" RUNNING
	c2=$(submit c2 team-c 1 -w n1); wait_state "$c2" RUNNING
	c3=$(submit c3 team-c 1 -w n2); wait_state "$c3" RUNNING
	c4=$(submit c4 team-c 1 -w n2); wait_state "$c4" RUNNING
}
restarts() { sl scontrol show job "$1" | grep -oE 'Restarts=[0-9]+' | cut -d= -f2; }

# stays_pending SECONDS JOB...: each JOB pending every second for SECONDS
stays_pending() {
	local t=$1 i j
	shift
	for ((i = 0; i < t; i++)); do
		for j in "$@"; do expect_state "$j" PENDING; done
		sleep 1
	done
}

# wait_state JOB STATE [SECONDS]
# _wait_eq SECONDS WANT CMD...: until CMD prints WANT; false on timeout
_wait_eq() {
	local t=$1 want=$2 i
	shift 2
	for ((i = 0; i < t * 4; i++)); do
		[[ $("$@") == "$want" ]] && return 0
		sleep 0.25
	done
	return 1
}

wait_state() {
	_wait_eq "${3:-30}" "$2" state "$1" \
		|| fail "job $1: expected $2 within ${3:-30}s, is $(state "$1")"
}

# expect_state JOB STATE: asserts now
expect_state() {
	local got
	got=$(state "$1")
	[[ $got == "$2" ]] || fail "job $1: expected $2, is $got"
}

# GPUs held by running jobs of an account, from Slurm's own allocation
# (scontrol -d: "JOB_GRES=gpu:N", all nodes of a job; the per-node
# "Nodes=n[1-2] ... GRES=gpu:N(IDX:...)" lines give N once for a whole
# hostlist, so they undercount a job spanning nodes)
held_gpus() {
	sl scontrol -d -o show job 2>/dev/null |
		grep -i " Account=$1 " | grep ' JobState=RUNNING ' |
		grep -oE ' JOB_GRES=[^ ]+' |
		grep -oE '[=,]gpu(:[A-Za-z0-9_]+)?:[0-9]+' | grep -oE '[0-9]+$' |
		awk '{ s += $1 } END { print s + 0 }'
}

# "JOBID GPUS" for every running job, from Slurm's allocation (JOB_GRES of
# scontrol -d, all nodes of a job, as held_gpus)
running_gpus() {
	sl scontrol -d -o show job 2>/dev/null | grep ' JobState=RUNNING ' |
		awk '{
			id = ""; n = 0
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^JobId=/) id = substr($i, 7)
				if ($i !~ /^JOB_GRES=/) continue
				s = substr($i, 10)
				while (match(s, /(^|,)gpu(:[A-Za-z0-9_]+)?:[0-9]+/)) {
					g = substr(s, RSTART, RLENGTH)
					sub(/.*:/, "", g)
					n += g
					s = substr(s, RSTART + RLENGTH)
				}
			}
			if (id != "") print id, n
		}'
}

# A project field from `gpuquota projects --json`; numbers as jq prints a
# computed one (json-c 0.18 writes 2.0 where 0.16 wrote 2, and jq 1.7
# prints literals as written)
project_field() { # PROJECT FIELD
	sl "$GPUQUOTA" projects --json |
		jq -r --arg p "$1" --arg f "$2" '.projects[] | select(.name == $p) | .[$f]
			| if type == "number" then . + 0 else . end'
}

# Let at least one gpuquota pass and one scheduling pass go by.
settle() { sleep "${1:-6}"; }

# Every job's id, state and priority (squeue %A %T %Q; %A of a pending
# array is the array's job id), sorted: what a settled cluster keeps.
jobs_snapshot() { sl squeue -h -o '%A %T %Q' | sort -n; }

# wait_stable [SECONDS]: until two jobs_snapshots 3 s apart, with at least
# one gpuquota pass (every 2 s) between them, are the same
wait_stable() {
	local t=${1:-30} start=$SECONDS a b
	b=$(jobs_snapshot)
	while :; do
		sleep 3
		a=$b
		b=$(jobs_snapshot)
		[[ $a == "$b" ]] && return 0
		((SECONDS - start < t)) || fail "jobs did not settle within ${t}s"
	done
}

# wait_held ACCOUNT GPUS [SECONDS]: until held_gpus ACCOUNT is GPUS
# expect_limit_wait JOB ACCOUNT LIMIT [WHAT]: JOB waits with the reason
# that ACCOUNT's project would pass its gpu_limit of LIMIT GPUs
expect_limit_wait() {
	local reason
	reason=$(sl squeue -h -j "$1" -o %r)
	[[ $reason == *"$2 would pass its gpu_limit ($3 GPUs)"* ]] \
		|| fail "job $1${4:+ ($4)} reason: '$reason'"
}

wait_held() {
	_wait_eq "${3:-30}" "$2" held_gpus "$1" \
		|| fail "$1: expected $2 GPUs held within ${3:-30}s, holds $(held_gpus "$1")"
}

# near X Y: true if the numbers X and Y differ by less than 0.01
near() { awk -v x="$1" -v y="$2" 'BEGIN { d = x - y; exit !(d < 0.01 && d > -0.01) }'; }

# Slurm's StateSaveLocation (crash tests: what a restarted slurmctld reads)
state_dir() { sl scontrol show config | awk '/^StateSaveLocation/ { print $3 }'; }

# wait_saved T0 [SECONDS]: until Slurm has written its job state after
# second T0; false if it did not within SECONDS (default 12).  Slurm saves
# at most 5 s (SAVE_MAX_WAIT) after a change and not at all without one: a
# SIGKILL before that save loses the change (docs/RELIABILITY.md).  So
# after a change at T0 it must come; with no change since T0 there is
# nothing to save and it times out.
# (T0 from `date +%s.%N`: Slurm may save in the same second.)
wait_saved() {
	local t0=$1 t=${2:-12} d i
	d=$(state_dir)
	for ((i = 0; i < t * 4; i++)); do
		awk -v m="$(stat -c %.9Y "$d/job_state" 2>/dev/null || echo 0)" -v t="$t0" \
			'BEGIN { exit !(m > t) }' && return 0
		sleep 0.25
	done
	return 1
}

# "JOBID RESTARTS" of every job slurmctld knows (array tasks each)
job_restarts() {
	sl scontrol -o show job 2>/dev/null |
		grep -oE '^JobId=[0-9]+|Restarts=[0-9]+' | paste -d' ' - - |
		sed -E 's/JobId=//; s/Restarts=//'
}

# check_invariant [SECONDS], invariant_violation: see invariant.sh
# shellcheck source-path=SCRIPTDIR source=invariant.sh
. "$ROOT/tests/integration/invariant.sh"
