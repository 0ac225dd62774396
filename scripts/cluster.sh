#!/usr/bin/env bash
# Owns the local test cluster: starts and stops a real Slurm cluster (the
# installed one, 22.05 or newer) on loopback (its own munged, one slurmctld,
# N slurmd with fake GPU files), all of it inside one work dir, for
# `make demo` and the integration tests.
# With --accounting also a private MariaDB and slurmdbd (associations enforced).
#
#   cluster.sh up   --dir DIR [--nodes N] [--gpus G] [--gpu-types T1,T2,...]
#                   [--cpus C] [--port-base P]
#                   [--plugindir PATH]... [--conf-extra "Key=Val"]...
#                   [--topology-conf FILE]  (copied to DIR/topology.conf)
#                   [--gpuquota-json FILE] [--timeout SECS]
#                   [--accounting [--accounts "a,b,c"]]
#   cluster.sh down --dir DIR
#   cluster.sh ctld-restart --dir DIR [--signal KILL|TERM]
#   cluster.sh dbd-stop|dbd-start|db-stop|db-start --dir DIR
#   cluster.sh free-port-base [--nodes N]
#
# Ports: slurmctld listens on P, node nX on P+X, slurmdbd on P+N+3, MariaDB
# on P+N+4 (127.0.0.1 only); P..P+N+4 are checked free and reserved
# until `down` (see PORT_LOCKS).
# --accounting: sacctmgr gets the cluster, each account of --accounts, and
# user root in each of them (root keeps its default account, root).
# After `up`, `. DIR/env` sets SLURM_CONF for sbatch/squeue/scontrol/sacct.
# `down` finds daemons by a marker in their environment (never by name), so
# clusters with other dirs are left alone; it also kills job processes
# (children of this cluster's slurmstepd, and those whose slurmstepd died).
set -euo pipefail

SYS_PLUGINDIR=${GPUQUOTA_SYS_PLUGINDIR:-/usr/lib/x86_64-linux-gnu/slurm-wlm}
MARKER=GPUQUOTA_CLUSTER_OWNER   # env var set on every daemon; value = DIR

die() { echo "cluster.sh: error: $*" >&2; exit 1; }
say() { echo "cluster.sh: $*" >&2; }

usage() {
	sed -n '8,18p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }
need_uint() { # NAME VALUE MIN
	if ! is_uint "$2" || (($2 < $3)); then die "$1 must be a number >= $3"; fi
}

# ---------------------------------------------------------------- ports
used_ports() {
	# Local TCP ports in any state (listening, established, time-wait).
	ss -Htan 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }' | sort -un
}

ports_free() { # BASE SPAN -> true if BASE..BASE+SPAN are all unused
	local base=$1 span=$2 used p
	used=$(used_ports)
	for ((p = base; p <= base + span; p++)); do
		grep -qx "$p" <<<"$used" && return 1
	done
	return 0
}

# A range checked free is not yet bound: two clusters starting at once
# (integration lanes) could both pick it.  So `up` also reserves its range:
# one directory per 16-port block under PORT_LOCKS, holding the owner's
# DIR.  mkdir is atomic, so one block has one owner.  `down` releases the
# owner's blocks; a block whose owner runs no daemon for 120 s is stale.
PORT_LOCKS=${TMPDIR:-/tmp}/gq-port-locks

lock_stale() { # LOCKDIR -> true if its owner runs nothing and it is old
	local lock=$1 owner age
	owner=$(cat "$lock/owner" 2>/dev/null) || owner=""
	age=$(($(date +%s) - $(stat -c %Y "$lock" 2>/dev/null || date +%s)))
	((age > 120)) || return 1
	[[ -z $owner ]] || [[ -z $(marked_pids "$owner") ]]
}

take_block() { # BLOCK OWNER -> true if the block is now the owner's
	local lock=$PORT_LOCKS/$1
	if ! mkdir "$lock" 2>/dev/null; then
		[[ $(cat "$lock/owner" 2>/dev/null) == "$2" ]] && return 0
		lock_stale "$lock" || return 1
		rm -rf "$lock"
		mkdir "$lock" 2>/dev/null || return 1
	fi
	echo "$2" >"$lock/owner"
}

reserve_ports() { # BASE SPAN OWNER -> true if BASE..BASE+SPAN are now the owner's
	local base=$1 span=$2 owner=$3 b
	mkdir -p "$PORT_LOCKS"
	for ((b = base / 16 * 16; b <= base + span; b += 16)); do
		take_block "$b" "$owner" && continue
		release_ports "$owner"
		return 1
	done
}

release_ports() { # OWNER: drop every block the owner holds
	local f
	for f in "$PORT_LOCKS"/*/owner; do
		[[ -f $f && $(cat "$f" 2>/dev/null) == "$1" ]] && rm -rf "${f%/owner}"
	done
	return 0
}

free_port_base() { # SPAN [OWNER] -> a base whose range is free (reserved for OWNER)
	local span=$1 owner=${2:-} lo hi try base
	# Stay below the ephemeral range so outgoing connections don't take ours.
	lo=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
	hi=$((lo - span - 2))
	((hi > 11000)) || hi=30000
	for ((try = 0; try < 500; try++)); do
		# Random, aligned to 16, so concurrent callers rarely meet.
		base=$(((10000 + (RANDOM * 32768 + RANDOM) % (hi - 10000)) / 16 * 16))
		ports_free "$base" "$span" || continue
		[[ -z $owner ]] || reserve_ports "$base" "$span" "$owner" || continue
		# Checked again: a cluster that reserved nothing may have bound it.
		ports_free "$base" "$span" && { echo "$base"; return 0; }
		[[ -z $owner ]] || release_ports "$owner"
	done
	die "no free port range of $((span + 1)) ports found"
}

# ---------------------------------------------------------------- processes
marked_pids() { # DIR -> pids of processes whose environment carries the marker
	local f p cwd
	grep -lzFx "$MARKER=$1" /proc/[0-9]*/environ 2>/dev/null | while read -r f; do
		f=${f#/proc/}
		echo "${f%/environ}"
	done || true	# none (grep's status 1 under pipefail)
	# slurmstepd writes its process title over its environment: 22.05
	# keeps the last variable (the marker, see up), 24.11 none.  A
	# slurmstepd working in DIR (its cwd is slurmd's, DIR/log) is ours.
	grep -lx slurmstepd /proc/[0-9]*/comm 2>/dev/null | while read -r f; do
		p=${f#/proc/}
		p=${p%/comm}
		cwd=$(readlink "/proc/$p/cwd" 2>/dev/null) || continue
		[[ $cwd == "$1" || $cwd == "$1"/* ]] || continue
		grep -qzFx "$MARKER=$1" "/proc/$p/environ" 2>/dev/null || echo "$p"
	done || true
}

# Job processes whose slurmstepd is gone (killed by a test's restart):
# no marker, no stepd parent, but the submitter's SLURM_CONF of DIR and a
# SLURM_JOB_ID, which job processes carry and test runners do not.
orphan_job_pids() { # DIR -> pids
	local f
	grep -lzFx "SLURM_CONF=$1/slurm.conf" /proc/[0-9]*/environ 2>/dev/null | while read -r f; do
		grep -qz '^SLURM_JOB_ID=' "$f" 2>/dev/null || continue
		f=${f#/proc/}
		echo "${f%/environ}"
	done || true
}

descendants() { # PID... -> all descendants (not the PIDs themselves)
	ps -e -o pid=,ppid= | awk -v roots="$*" '
		BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) want[r[i]] = 1 }
		{ kids[$2] = kids[$2] " " $1 }
		END {
			for (p in want) queue[++qn] = p
			for (i = 1; i <= qn; i++) {
				m = split(kids[queue[i]], k, " ")
				for (j = 1; j <= m; j++)
					if (!(k[j] in seen) && !(k[j] in want)) {
						seen[k[j]] = 1; queue[++qn] = k[j]; print k[j]
					}
			}
		}'
}

self_and_ancestors() {
	local p=$$
	while [[ -n $p && $p != 0 ]]; do
		echo "$p"
		p=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null || true)
	done
	echo "$BASHPID"
}

# Running (a zombie waiting for its parent, here often pid 1, counts as gone).
alive() {
	local st
	kill -0 "$1" 2>/dev/null || return 1
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ -n $st && $st != Z ]]
}

# argv[0] of PID, without directory (slurmstepd rewrites it to "slurmstepd: [..]").
cmd_of() {
	local a
	a=$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | head -n 1) || true
	echo "${a##*/}"
}

# Sends SIG to PIDS, waits up to SECS for them to exit, then SIGKILLs the rest.
stop_pids() { # SIG SECS PID...
	local sig=$1 secs=$2 p left i
	shift 2
	(($# > 0)) || return 0
	kill "-$sig" "$@" 2>/dev/null || true
	for ((i = 0; i < secs * 5; i++)); do
		left=()
		for p in "$@"; do alive "$p" && left+=("$p"); done
		((${#left[@]} == 0)) && return 0
		sleep 0.2
	done
	say "still alive after ${secs}s, sending SIGKILL: ${left[*]}"
	kill -KILL "${left[@]}" 2>/dev/null || true
	sleep 0.2
}

cluster_running() { # DIR -> true if any daemon of DIR is alive
	[[ -n $(marked_pids "$1") ]]
}

# ---------------------------------------------------------------- down
cmd_down() {
	local dir=$1 p c
	[[ -d $dir ]] || { say "down: $dir does not exist, nothing to do"; return 0; }
	dir=$(cd "$dir" && pwd -P)

	local -a marked=() ctl=() slurmd=() stepd=() munged=() other=() jobs=() skip=()
	local -a dbd=() db=()
	mapfile -t skip < <(self_and_ancestors)
	mapfile -t marked < <(marked_pids "$dir")
	# Pid files are only a hint: a pid is ours only if it carries the marker.
	for p in "${marked[@]}"; do
		[[ " ${skip[*]} " == *" $p "* ]] && continue
		c=$(cmd_of "$p")
		case $c in
		slurmctld*) ctl+=("$p") ;;
		slurmstepd*) stepd+=("$p") ;;
		slurmdbd*) dbd+=("$p") ;;
		slurmd*) slurmd+=("$p") ;;
		munged*) munged+=("$p") ;;
		mariadbd* | mysqld* | mariadb-install-db*) db+=("$p") ;;
		*) other+=("$p") ;;
		esac
	done
	if ((${#stepd[@]} + ${#other[@]} > 0)); then
		for p in $(descendants "${stepd[@]}" "${other[@]}"); do
			[[ " ${skip[*]} " == *" $p "* ]] || jobs+=("$p")
		done
	fi
	for p in $(orphan_job_pids "$dir"); do
		[[ " ${skip[*]} ${jobs[*]} " == *" $p "* ]] || jobs+=("$p")
	done

	# Controller and node daemons first (munge must outlive them), job
	# processes killed outright, then slurmdbd (after slurmctld, which sends
	# it the final job records), MariaDB, munged last.
	if ((${#ctl[@]} + ${#slurmd[@]} + ${#stepd[@]} + ${#jobs[@]} + ${#other[@]} > 0)); then
		say "down: stopping slurmctld=${ctl[*]:-} slurmd=${slurmd[*]:-} slurmstepd=${stepd[*]:-} jobs=${jobs[*]:-}"
		kill -KILL "${stepd[@]}" "${jobs[@]}" 2>/dev/null || true
		stop_pids TERM 10 "${ctl[@]}" "${slurmd[@]}" "${other[@]}" "${stepd[@]}" "${jobs[@]}"
	fi
	if ((${#dbd[@]} > 0)); then
		say "down: stopping slurmdbd=${dbd[*]}"
		stop_pids TERM 10 "${dbd[@]}"
	fi
	if ((${#db[@]} > 0)); then
		say "down: stopping mariadbd=${db[*]}"
		stop_pids TERM 30 "${db[@]}"
	fi
	if ((${#munged[@]} > 0)); then
		say "down: stopping munged=${munged[*]}"
		stop_pids TERM 10 "${munged[@]}"
	fi
	# Whatever the tree spawned meanwhile (should be nothing).
	mapfile -t marked < <(marked_pids "$dir")
	for p in "${marked[@]}"; do
		[[ " ${skip[*]} " == *" $p "* ]] || kill -KILL "$p" 2>/dev/null || true
	done
	rm -f "$dir"/pids/*.pid "$dir"/run/*.pid
	rm -f "$dir"/munge/munge.socket.2 "$dir"/munge/munge.socket.2.lock
	rm -f "$dir"/db/mariadbd.sock "$dir"/db/mariadbd.sock.lock "$dir"/db/*.pid
	release_ports "$dir"
	say "down: $dir stopped"
}

# ---------------------------------------------------------------- up
conf_key() { # "Key=Val ..." -> lowercased key
	local k=${1%%=*}
	k=${k//[[:space:]]/}
	echo "${k,,}"
}

wait_pidfile() { # FILE SECS -> prints pid
	local f=$1 secs=$2 i pid
	for ((i = 0; i < secs * 10; i++)); do
		if [[ -s $f ]]; then
			pid=$(tr -dc '0-9' <"$f")
			[[ -n $pid ]] && { echo "$pid"; return 0; }
		fi
		sleep 0.1
	done
	return 1
}

fail_up() { # MESSAGE
	local f
	echo "cluster.sh: error: up failed: $1" >&2
	for f in "$DIR"/log/*; do
		[[ -s $f ]] || continue
		echo "----- tail $f" >&2
		tail -n 15 "$f" >&2
	done
	cmd_down "$DIR" || true
	exit 1
}

# ---------------------------------------------------------------- accounting
# MariaDB: private datadir, socket and port in DIR/db, loopback only, as root;
# the db's root logs in over the socket only (unix_socket auth, no password).
# slurmdbd 22.05 logs an error below half its recommendations (buffer pool
# 1G, log file 64M, lock wait 900 s) but runs; the pool is reserved lazily.
start_mariadb() { # PORT
	local port=$1 cnf=$DIR/db/my.cnf p i
	install -d -m 0700 "$DIR/db" "$DIR/db/data" "$DIR/db/tmp"
	cat >"$cnf" <<-EOF
		# Generated by scripts/cluster.sh for $DIR
		[client]
		socket=$DIR/db/mariadbd.sock
		port=$port
		[mysqld]
		user=root
		datadir=$DIR/db/data
		tmpdir=$DIR/db/tmp
		socket=$DIR/db/mariadbd.sock
		pid-file=$DIR/db/mariadbd.pid
		log-error=$DIR/log/mariadbd.log
		port=$port
		bind-address=127.0.0.1
		skip-name-resolve
		innodb_buffer_pool_size=512M
		innodb_log_file_size=64M
		innodb_lock_wait_timeout=900
		innodb_flush_log_at_trx_commit=2
		innodb_buffer_pool_dump_at_shutdown=OFF
		innodb_buffer_pool_load_at_startup=OFF
	EOF
	env "$MARKER=$DIR" mariadb-install-db --defaults-file="$cnf" \
		--skip-test-db \
		</dev/null >"$DIR/log/mariadb-install-db.log" 2>&1 \
		|| fail_up "mariadb-install-db failed"
	env "$MARKER=$DIR" setsid mariadbd --defaults-file="$cnf" \
		</dev/null >"$DIR/log/mariadbd.stderr" 2>&1 &
	p=$(wait_pidfile "$DIR/db/mariadbd.pid" 30) || fail_up "mariadbd wrote no pid file"
	echo "$p" >"$DIR/pids/mariadbd.pid"
	for ((i = 0; i < 300; i++)); do
		mariadb-admin --defaults-file="$cnf" -uroot ping >/dev/null 2>&1 && return 0
		alive "$p" || break
		sleep 0.1
	done
	fail_up "mariadbd does not answer"
}

# Runs SQL as the database's root (over the socket).
db_sql() { mariadb --defaults-file="$DIR/db/my.cnf" -uroot -e "$1"; }

# slurmdbd reads slurmdbd.conf from the directory of $SLURM_CONF (no -f).
start_slurmdbd() { # DBD_PORT DB_PORT SOCK
	local dbd_port=$1 db_port=$2 sock=$3 pass u p
	pass=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	for u in "'slurm'@'localhost'" "'slurm'@'127.0.0.1'"; do
		db_sql "CREATE USER $u IDENTIFIED BY '$pass';
			GRANT ALL ON slurm_acct_db.* TO $u;" || fail_up "cannot create db user $u"
	done
	(
		umask 077
		cat >"$DIR/slurmdbd.conf" <<-EOF
			# Generated by scripts/cluster.sh for $DIR
			AuthType=auth/munge
			AuthInfo=socket=$sock
			DbdHost=localhost
			DbdAddr=127.0.0.1
			DbdPort=$dbd_port
			SlurmUser=root
			PidFile=$DIR/run/slurmdbd.pid
			LogFile=$DIR/log/slurmdbd.log
			DebugLevel=info
			StorageType=accounting_storage/mysql
			StorageHost=127.0.0.1
			StoragePort=$db_port
			StorageUser=slurm
			StoragePass=$pass
			StorageLoc=slurm_acct_db
		EOF
	)
	chmod 0600 "$DIR/slurmdbd.conf"
	env "$MARKER=$DIR" SLURM_CONF="$DIR/slurm.conf" slurmdbd \
		</dev/null >"$DIR/log/slurmdbd.stderr" 2>&1 || fail_up "slurmdbd exited with an error"
	p=$(wait_pidfile "$DIR/run/slurmdbd.pid" 10) || fail_up "slurmdbd wrote no pid file"
	echo "$p" >"$DIR/pids/slurmdbd.pid"
	local start=$SECONDS
	while ((SECONDS - start < 30)); do
		timeout 5 sacctmgr -i -n show cluster >"$DIR/log/sacctmgr.log" 2>&1 && return 0
		alive "$p" || break
		sleep 0.2
	done
	fail_up "slurmdbd does not answer (sacctmgr show cluster) after $((SECONDS - start))s"
}

# The cluster, the accounts and user root in each (needs SLURM_CONF set).
add_associations() { # CLUSTER ACCOUNTS(comma list, may be empty)
	local cluster=$1 accounts=$2
	timeout 20 sacctmgr -i add cluster "$cluster" >"$DIR/log/sacctmgr.log" 2>&1 \
		|| fail_up "sacctmgr add cluster $cluster failed"
	[[ -n $accounts ]] || return 0
	timeout 20 sacctmgr -i add account "$accounts" Cluster="$cluster" >>"$DIR/log/sacctmgr.log" 2>&1 \
		|| fail_up "sacctmgr add account $accounts failed"
	timeout 20 sacctmgr -i add user root Account="$accounts" Cluster="$cluster" >>"$DIR/log/sacctmgr.log" 2>&1 \
		|| fail_up "sacctmgr add user root Account=$accounts failed"
}

cmd_up() {
	local nodes=2 gpus=2 cpus=4 port_base="" json="" timeout=30
	local accounting=0 accounts="" gpu_types="" topology=""
	local -a plugindirs=() extras=()
	DIR=""
	while (($#)); do
		case $1 in
		--dir) DIR=${2:?}; shift 2 ;;
		--nodes) nodes=${2:?}; shift 2 ;;
		--gpus) gpus=${2:?}; shift 2 ;;
		--gpu-types) gpu_types=${2:?}; shift 2 ;;
		--cpus) cpus=${2:?}; shift 2 ;;
		--port-base) port_base=${2:?}; shift 2 ;;
		--plugindir) plugindirs+=("${2:?}"); shift 2 ;;
		--conf-extra) extras+=("${2:?}"); shift 2 ;;
		--topology-conf) topology=${2:?}; shift 2 ;;
		--gpuquota-json) json=${2:?}; shift 2 ;;
		--timeout) timeout=${2:?}; shift 2 ;;
		--accounting) accounting=1; shift ;;
		--accounts) accounts=${2?}; shift 2 ;;
		-h | --help) usage ;;
		*) die "up: unknown argument '$1'" ;;
		esac
	done
	[[ -n $DIR ]] || die "up: --dir DIR is required"
	need_uint --nodes "$nodes" 1
	need_uint --gpus "$gpus" 0
	need_uint --cpus "$cpus" 1
	need_uint --timeout "$timeout" 1
	[[ -z $json || -r $json ]] || die "--gpuquota-json: cannot read $json"
	if [[ -n $accounts ]]; then
		((accounting)) || die "--accounts needs --accounting"
		accounts=${accounts//[[:space:]]/}
		accounts=$(tr ',' '\n' <<<"$accounts" | awk 'NF && !seen[$0]++' | paste -sd,)
		[[ $accounts =~ ^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$ ]] \
			|| die "--accounts: a comma list of names of [A-Za-z0-9_.-], got '$accounts'"
	fi
	((EUID == 0)) || die "must run as root (SlurmUser=root, SlurmdUser=root)"
	local b
	local -a bins=(munged slurmctld slurmd sinfo ss)
	((accounting)) && bins+=(mariadbd mariadb-install-db mariadb mariadb-admin slurmdbd sacctmgr setsid)
	for b in "${bins[@]}"; do
		command -v "$b" >/dev/null || die "$b not found (run scripts/install-deps.sh)"
	done

	mkdir -p "$DIR"
	DIR=$(cd "$DIR" && pwd -P)
	[[ $DIR != / ]] || die "--dir must not be /"
	[[ $DIR != *[,[:space:]]* ]] || die "--dir must not contain spaces or commas: $DIR"
	local sock=$DIR/munge/munge.socket.2
	((${#sock} < 100)) || die "--dir too long for a unix socket path: $sock"
	if cluster_running "$DIR"; then
		die "a cluster is already running in $DIR; run: $0 down --dir $DIR"
	fi

	local span=$((nodes + 4))
	if [[ -z $port_base ]]; then
		port_base=$(free_port_base "$span" "$DIR")
	else
		need_uint --port-base "$port_base" 1025
		((port_base + span < 65536)) || die "--port-base must be <= $((65535 - span))"
		if ! ports_free "$port_base" "$span" || ! reserve_ports "$port_base" "$span" "$DIR"; then
			die "ports $port_base..$((port_base + span)) are not all free"
		fi
	fi

	local plugindir=$SYS_PLUGINDIR p
	for ((b = ${#plugindirs[@]} - 1; b >= 0; b--)); do
		p=$(cd "${plugindirs[b]}" && pwd -P) || die "--plugindir ${plugindirs[b]} not found"
		plugindir=$p:$plugindir
	done

	# Fresh state every time: old jobs must not come back.
	rm -rf "${DIR:?}"/{state,spool,log,run,pids,munge,dev,db} "${DIR:?}/slurmdbd.conf"
	mkdir -p "$DIR"/{state,spool,log,run,pids,dev}
	install -d -m 0755 "$DIR/munge"
	local cluster
	cluster=$(basename "$DIR" | tr '[:upper:]' '[:lower:]' | tr -cd 'a-z0-9')
	[[ $cluster =~ ^[a-z] ]] || cluster=gq$cluster
	cluster=${cluster:0:24}

	# ---- munged: own key, socket, pid, log, seed; all inside DIR/munge.
	local key=$DIR/munge/munge.key
	if command -v mungekey >/dev/null; then
		mungekey --create --keyfile="$key" --bits=1024 >/dev/null 2>&1 \
			|| dd if=/dev/urandom of="$key" bs=128 count=1 status=none
	else
		dd if=/dev/urandom of="$key" bs=128 count=1 status=none
	fi
	chmod 0400 "$key"
	# munged runs as root here (every client is root). --force: munged wants
	# every directory above the socket world-executable, which a mktemp dir
	# (0700) is not; without it, it refuses to start.
	env "$MARKER=$DIR" munged --force \
		--socket="$sock" --key-file="$key" \
		--pid-file="$DIR/munge/munged.pid" --log-file="$DIR/log/munged.log" \
		--seed-file="$DIR/munge/munged.seed" </dev/null >"$DIR/log/munged.stderr" 2>&1 \
		|| fail_up "munged did not start"
	p=$(wait_pidfile "$DIR/munge/munged.pid" 5) || fail_up "munged wrote no pid file"
	echo "$p" >"$DIR/pids/munged.pid"

	# --gpu-types a100,h100: node i's GPUs are of the ((i - 1) mod n)-th type
	local -a types=()
	[[ -z $gpu_types ]] || IFS=, read -ra types <<<"$gpu_types"
	node_type() { ((${#types[@]})) && echo "${types[($1 - 1) % ${#types[@]}]}"; return 0; }
	node_type_kv() { local t; t=$(node_type "$1"); [[ -z $t ]] || echo " Type=$t"; }

	# ---- fake GPUs and gres.conf
	local i g files
	{
		echo "# Generated by scripts/cluster.sh"
		echo "AutoDetect=off"
		for ((i = 1; i <= nodes; i++)); do
			mkdir -p "$DIR/dev/n$i" "$DIR/spool/n$i"
			for ((g = 0; g < gpus; g++)); do : >"$DIR/dev/n$i/gpu$g"; done
			if ((gpus == 1)); then files=gpu0; else files="gpu[0-$((gpus - 1))]"; fi
			((gpus > 0)) && echo "NodeName=n$i Name=gpu$(node_type_kv "$i") File=$DIR/dev/n$i/$files"
		done
	} >"$DIR/gres.conf"

	# ---- slurm.conf: defaults only for keys --conf-extra does not set.
	local -A given=()
	local e have_part=0 authinfo="socket=$sock,cred_expire=10"
	for e in "${extras[@]}"; do
		b=$(conf_key "$e")
		[[ -z $b ]] || given[$b]=1
		[[ $e =~ ^[[:space:]]*PartitionName=gpu([[:space:]]|$) ]] && have_part=1
	done
	local -a defaults=(
		"ClusterName=$cluster"
		"SlurmctldHost=$(hostname -s)(127.0.0.1)"
		"SlurmctldPort=$port_base"
		"SlurmUser=root"
		"SlurmdUser=root"
		"AuthType=auth/munge"
		"CredType=cred/munge"
		"AuthInfo=$authinfo"
		"PluginDir=$plugindir"
		"StateSaveLocation=$DIR/state"
		"SlurmdSpoolDir=$DIR/spool/%n"
		"SlurmctldPidFile=$DIR/run/slurmctld.pid"
		"SlurmdPidFile=$DIR/run/slurmd-%n.pid"
		"SlurmctldLogFile=$DIR/log/slurmctld.log"
		"SlurmdLogFile=$DIR/log/slurmd-%n.log"
		"SlurmctldDebug=info"
		"SlurmdDebug=info"
		"SlurmdParameters=config_overrides"
		"SelectType=select/cons_tres"
		"SelectTypeParameters=CR_Core"
		"GresTypes=gpu"
		"ProctrackType=proctrack/linuxproc"
		"TaskPlugin=task/none"
		"MailProg=/bin/true"
		"SchedulerParameters=sched_interval=2,bf_interval=2"
		"ReturnToService=2"
		"JobRequeue=1"
		"MinJobAge=300"
		"JobCompType=jobcomp/none"
	)
	local dbd_port=$((port_base + nodes + 3)) db_port=$((port_base + nodes + 4))
	if ((accounting)); then
		defaults+=(
			"AccountingStorageType=accounting_storage/slurmdbd"
			"AccountingStorageHost=127.0.0.1"
			"AccountingStoragePort=$dbd_port"
			"AccountingStoragePass=$sock"
			"AccountingStorageTRES=gres/gpu"
			"AccountingStorageEnforce=associations"
			"JobAcctGatherType=jobacct_gather/none"
		)
	else
		defaults+=("AccountingStorageType=accounting_storage/none")
	fi
	{
		echo "# Generated by scripts/cluster.sh for $DIR"
		for e in "${defaults[@]}"; do
			[[ -n ${given[$(conf_key "$e")]:-} ]] || echo "$e"
		done
		local gres="" t
		for ((i = 1; i <= nodes; i++)); do
			t=$(node_type "$i")
			((gpus > 0)) && gres=" Gres=gpu:${t:+$t:}$gpus"
			echo "NodeName=n$i NodeAddr=127.0.0.1 Port=$((port_base + i)) CPUs=$cpus$gres RealMemory=1000 State=UNKNOWN"
		done
		local all="n1"
		((nodes > 1)) && all="n[1-$nodes]"
		((have_part)) || echo "PartitionName=gpu Nodes=$all Default=YES MaxTime=INFINITE State=UP"
		((${#extras[@]} == 0)) || echo "# --conf-extra"
		for e in "${extras[@]}"; do
			# An AuthInfo without socket= would send us to the system munged.
			if [[ $(conf_key "$e") == authinfo && $e != *socket=* ]]; then
				e="AuthInfo=socket=$sock,${e#*=}"
			fi
			echo "$e"
		done
	} >"$DIR/slurm.conf"
	# 24.11's slurmd starts a cgroup plugin even with proctrack/linuxproc
	# and task/none; a test machine may have no cgroup filesystem for it.
	# 23.11.4 has no CgroupPlugin=disabled (slurmd fails: "cannot find
	# cgroup plugin for disabled"): it autodetects (cgroup/v1 on the host).
	local ver
	ver=$(slurmd -V 2>/dev/null | grep -oE '[0-9]+\.[0-9]+' | head -n 1)
	if [[ -n $ver ]] && ((${ver%%.*} >= 24)); then
		echo "CgroupPlugin=disabled" >"$DIR/cgroup.conf"
	fi
	[[ -z $json ]] || cp "$json" "$DIR/gpuquota.json"
	[[ -z $topology ]] || cp "$topology" "$DIR/topology.conf"
	printf 'export SLURM_CONF=%q\n' "$DIR/slurm.conf" >"$DIR/env"
	export SLURM_CONF=$DIR/slurm.conf

	# ---- accounting: MariaDB, slurmdbd, associations; before slurmctld.
	if ((accounting)); then
		local t0=$SECONDS
		start_mariadb "$db_port"
		start_slurmdbd "$dbd_port" "$db_port" "$sock"
		add_associations "$cluster" "$accounts"
		say "up: accounting: slurmdbd port $dbd_port, MariaDB 127.0.0.1:$db_port, accounts: ${accounts:-none} ($((SECONDS - t0))s)"
	fi

	# ---- slurmctld, then one slurmd per node; both daemonize themselves.
	start_ctld || fail_up "slurmctld did not start"
	for ((i = 1; i <= nodes; i++)); do
		env "$MARKER=$DIR" slurmd -N "n$i" -f "$DIR/slurm.conf" \
			</dev/null >"$DIR/log/slurmd-n$i.stderr" 2>&1 || fail_up "slurmd n$i exited with an error"
	done
	for ((i = 1; i <= nodes; i++)); do
		p=$(wait_pidfile "$DIR/run/slurmd-n$i.pid" 10) || fail_up "slurmd n$i wrote no pid file"
		echo "$p" >"$DIR/pids/slurmd-n$i.pid"
	done

	# ---- wait until every node is idle
	local start=$SECONDS idle=0 f
	while ((SECONDS - start < timeout)); do
		for f in "$DIR"/pids/*.pid; do
			alive "$(cat "$f")" || fail_up "$(basename "$f" .pid) died"
		done
		idle=$(timeout 3 sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | sort -u | wc -l) || idle=0
		((idle == nodes)) && break
		sleep 0.5
	done
	((idle == nodes)) || fail_up "only $idle of $nodes nodes idle after ${timeout}s"
	say "up: cluster '$cluster' in $DIR, slurmctld port $port_base, nodes n1..n$nodes on $((port_base + 1))..$((port_base + nodes)) ($((SECONDS - start))s)"
	say "up: use: . $DIR/env"
}

# ---------------------------------------------------------------- slurmctld
# Start DIR's slurmctld the usual way (its state recovered from
# StateSaveLocation); its pid in DIR/pids.  GQ_CTLD_PRELOAD: a sanitizer
# runtime for plugins built with it (tests/integration/run.sh, GQ_ASAN=1);
# reports go to DIR/log.
start_ctld() {
	local -a preload=()
	local p
	if [[ -n ${GQ_CTLD_PRELOAD:-} ]]; then
		preload=("LD_PRELOAD=$GQ_CTLD_PRELOAD"
			"ASAN_OPTIONS=detect_leaks=0:log_path=$DIR/log/asan"
			"UBSAN_OPTIONS=print_stacktrace=1:log_path=$DIR/log/ubsan")
	fi
	rm -f "$DIR/run/slurmctld.pid"
	env "$MARKER=$DIR" "${preload[@]}" SLURM_CONF="$DIR/slurm.conf" \
		slurmctld -f "$DIR/slurm.conf" </dev/null \
		>>"$DIR/log/slurmctld.stderr" 2>&1 || return 1
	p=$(wait_pidfile "$DIR/run/slurmctld.pid" 10) || return 1
	echo "$p" >"$DIR/pids/slurmctld.pid"
}

# Kill DIR's slurmctld with SIG (KILL: a crash, nothing saved on the way
# out), then start it again; waits until it answers.
cmd_ctld_restart() { # DIR SIG
	local p i
	DIR=$1
	p=$(cat "$DIR/pids/slurmctld.pid" 2>/dev/null) || die "ctld-restart: no slurmctld pid in $DIR"
	kill "-$2" "$p" 2>/dev/null || true
	for ((i = 0; i < 100; i++)); do alive "$p" || break; sleep 0.1; done
	alive "$p" && die "ctld-restart: slurmctld $p still alive"
	start_ctld || die "ctld-restart: slurmctld did not start again; see $DIR/log/slurmctld.log"
	for ((i = 0; i < 60; i++)); do
		SLURM_CONF=$DIR/slurm.conf timeout 3 scontrol ping 2>/dev/null | grep -q UP && return 0
		sleep 0.5
	done
	die "ctld-restart: slurmctld does not answer"
}

# ---------------------------------------------------------------- accounting outage
# Stop DIR's slurmdbd or MariaDB (an outage in accounting mode) and start
# them again, the same daemons on the same ports and data: by the pid in
# DIR/pids, and only a pid that carries DIR's marker.
own_pid() { # NAME -> pid of DIR's daemon NAME, if alive and ours
	local p
	p=$(cat "$DIR/pids/$1.pid" 2>/dev/null) || return 1
	alive "$p" && grep -qzFx "$MARKER=$DIR" "/proc/$p/environ" 2>/dev/null || return 1
	echo "$p"
}

cmd_outage() { # DIR dbd-stop|dbd-start|db-stop|db-start
	local p i
	DIR=$(cd "$1" && pwd -P) || die "$2: no dir $1"
	[[ -f $DIR/slurmdbd.conf ]] || die "$2: $DIR has no accounting (cluster.sh up --accounting)"
	export SLURM_CONF=$DIR/slurm.conf
	case $2 in
	dbd-stop)
		p=$(own_pid slurmdbd) || die "dbd-stop: no slurmdbd of $DIR running"
		stop_pids TERM 20 "$p"
		;;
	db-stop)
		p=$(own_pid mariadbd) || die "db-stop: no mariadbd of $DIR running"
		stop_pids TERM 30 "$p"
		;;
	dbd-start)
		own_pid slurmdbd >/dev/null && die "dbd-start: slurmdbd of $DIR already runs"
		rm -f "$DIR/run/slurmdbd.pid"
		env "$MARKER=$DIR" slurmdbd </dev/null >>"$DIR/log/slurmdbd.stderr" 2>&1 \
			|| die "dbd-start: slurmdbd exited with an error"
		p=$(wait_pidfile "$DIR/run/slurmdbd.pid" 10) || die "dbd-start: slurmdbd wrote no pid file"
		echo "$p" >"$DIR/pids/slurmdbd.pid"
		for ((i = 0; i < 150; i++)); do
			timeout 5 sacctmgr -i -n show cluster >/dev/null 2>&1 && return 0
			alive "$p" || break
			sleep 0.2
		done
		die "dbd-start: slurmdbd does not answer (sacctmgr show cluster)"
		;;
	db-start)
		own_pid mariadbd >/dev/null && die "db-start: mariadbd of $DIR already runs"
		rm -f "$DIR/db/mariadbd.pid"
		env "$MARKER=$DIR" setsid mariadbd --defaults-file="$DIR/db/my.cnf" \
			</dev/null >>"$DIR/log/mariadbd.stderr" 2>&1 &
		p=$(wait_pidfile "$DIR/db/mariadbd.pid" 30) || die "db-start: mariadbd wrote no pid file"
		echo "$p" >"$DIR/pids/mariadbd.pid"
		for ((i = 0; i < 300; i++)); do
			mariadb-admin --defaults-file="$DIR/db/my.cnf" -uroot ping >/dev/null 2>&1 && return 0
			alive "$p" || break
			sleep 0.1
		done
		die "db-start: mariadbd does not answer"
		;;
	esac
}

# ---------------------------------------------------------------- main
main() {
	(($#)) || usage
	local cmd=$1
	shift
	case $cmd in
	up) cmd_up "$@" ;;
	down)
		local dir=""
		while (($#)); do
			case $1 in
			--dir) dir=${2:?}; shift 2 ;;
			*) die "down: unknown argument '$1'" ;;
			esac
		done
		[[ -n $dir ]] || die "down: --dir DIR is required"
		cmd_down "$dir"
		;;
	ctld-restart)
		local dir="" sig=KILL
		while (($#)); do
			case $1 in
			--dir) dir=${2:?}; shift 2 ;;
			--signal) sig=${2:?}; shift 2 ;;
			*) die "ctld-restart: unknown argument '$1'" ;;
			esac
		done
		[[ -n $dir ]] || die "ctld-restart: --dir DIR is required"
		cmd_ctld_restart "$dir" "$sig"
		;;
	dbd-stop | dbd-start | db-stop | db-start)
		local dir=""
		while (($#)); do
			case $1 in
			--dir) dir=${2:?}; shift 2 ;;
			*) die "$cmd: unknown argument '$1'" ;;
			esac
		done
		[[ -n $dir ]] || die "$cmd: --dir DIR is required"
		cmd_outage "$dir" "$cmd"
		;;
	free-port-base)
		local n=8
		while (($#)); do
			case $1 in
			--nodes) n=${2:?}; shift 2 ;;
			*) die "free-port-base: unknown argument '$1'" ;;
			esac
		done
		is_uint "$n" || die "--nodes must be a number"
		free_port_base $((n + 4))
		;;
	-h | --help | help) usage ;;
	*) die "unknown command '$cmd'" ;;
	esac
}

main "$@"
