#!/usr/bin/env bash
# `gpuquota metrics` during the quick start: the exposition passes a real
# parser (promtool check metrics, Debian's prometheus package), the plugin's
# counters move (passes; a reclaim and its victim when b2 takes a1's GPU;
# a hold at team-c's gpu_limit and its release), the per-project numbers
# are Slurm's, a missing or bad metrics file is said, and `--listen` serves
# the same at /metrics, reading slurmctld at most once an interval at 100
# requests a second.
. "$(dirname "$0")/lib.sh"

command -v promtool >/dev/null || fail "promtool missing (scripts/install-deps.sh installs prometheus)"
command -v curl >/dev/null || fail "curl missing (scripts/install-deps.sh installs it)"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2},
                          {"name": "team-c", "gpu_quota": 0, "gpu_limit": 1}]}'
STATEFILE=$DIR/state/gpuquota-metrics.json

# metrics: one scrape, checked by promtool (exit 0: parses, no lint problem)
metrics() {
	sl "$GPUQUOTA" metrics >"$DIR/metrics.prom" 2>"$DIR/metrics.err" \
		|| fail "gpuquota metrics failed: $(cat "$DIR/metrics.err")"
	promtool check metrics <"$DIR/metrics.prom" >"$DIR/promtool.out" 2>&1 \
		|| fail "promtool check metrics: $(cat "$DIR/promtool.out")"
	cat "$DIR/metrics.prom"
}
# value SERIES (exact text before the value, e.g. 'x{a="b"}') SCRAPE
value() { awk -v s="$1" '$1 == s { print $2; f = 1 } END { if (!f) print "absent" }' <<<"$2"; }
# metric_now SERIES: its value in a new scrape
metric_now() { value "$1" "$(sl "$GPUQUOTA" metrics 2>/dev/null)"; }

_wait_eq 30 yes bash -c "[[ -s '$STATEFILE' ]] && echo yes" \
	|| fail "no metrics file $STATEFILE after 30 s"
m0=$(metrics)
[[ $(value gpuquota_metrics_file_ok "$m0") == 1 ]] || fail "metrics file not read: $(cat "$DIR/metrics.err")"
p0=$(value gpuquota_passes_total "$m0")
[[ $p0 =~ ^[0-9]+$ && $p0 -ge 1 ]] || fail "passes_total: $p0"
[[ $(value 'gpuquota_reclaims_total{reason="quota"}' "$m0") == 0 ]] \
	|| fail "a reclaim before any job"
[[ $(value gpuquota_capacity_gpus "$m0") == 4 ]] || fail "capacity"
[[ $(value 'gpuquota_project_quota_gpus{project="team-a"}' "$m0") == 2 ]] \
	|| fail "team-a quota: $(grep team-a <<<"$m0")"
[[ $(value 'gpuquota_project_limit_gpus{project="team-c"}' "$m0") == 1 ]] \
	|| fail "team-c limit"
[[ $(value 'gpuquota_project_limit_gpus{project="team-a"}' "$m0") == absent ]] \
	|| fail "team-a has no limit, yet a limit series"

# the quick start
a1=$(submit a1 team-a 1); wait_state "$a1" RUNNING
a2=$(submit a2 team-a 2); wait_state "$a2" RUNNING
b1=$(submit b1 team-b 1); wait_state "$b1" RUNNING
b2=$(submit b2 team-b 1); wait_state "$b2" RUNNING 30
settle 3
[[ $(restarts "$a1") -ge 1 ]] || fail "a1 was not requeued"
m1=$(metrics)
p1=$(value gpuquota_passes_total "$m1")
((p1 > p0)) || fail "passes_total did not move: $p0 -> $p1"
[[ $(value 'gpuquota_reclaims_total{reason="quota"}' "$m1") == 1 ]] \
	|| fail "reclaims: $(grep reclaim <<<"$m1")"
[[ $(value 'gpuquota_reclaim_victims_total{reason="quota"}' "$m1") == 1 ]] \
	|| fail "victims: $(grep victims <<<"$m1")"
[[ $(value 'gpuquota_reclaim_victim_gpus_total{reason="quota"}' "$m1") == 1 ]] \
	|| fail "victim GPUs: $(grep victim_gpus <<<"$m1")"
[[ $(value 'gpuquota_reclaims_total{reason="fair_share"}' "$m1") == 0 ]] \
	|| fail "a fair-share reclaim in the quick start"
[[ $(value 'gpuquota_project_allocated_gpus{project="team-a"}' "$m1") == 2 ]] \
	|| fail "team-a allocated: $(grep allocated <<<"$m1")"
[[ $(value 'gpuquota_project_allocated_gpus{project="team-b"}' "$m1") == 2 ]] \
	|| fail "team-b allocated"
[[ $(value 'gpuquota_project_state{project="team-a",state="at-quota"}' "$m1") == 1 ]] \
	|| fail "team-a state: $(grep _state <<<"$m1")"
[[ $(value 'gpuquota_project_state{project="team-a",state="over-quota"}' "$m1") == 0 ]] \
	|| fail "team-a state"
count=$(value gpuquota_pass_duration_seconds_count "$m1")
[[ $count == "$p1" ]] || fail "pass histogram count $count, passes $p1"
inf=$(value 'gpuquota_pass_lock_hold_seconds_bucket{le="+Inf"}' "$m1")
[[ $inf == "$(value gpuquota_pass_lock_hold_seconds_count "$m1")" ]] \
	|| fail "lock hold +Inf bucket $inf is not its count"
# passes are made in two holds (docs/DEVELOPING.md): read-lock holds counted
reads=$(value gpuquota_pass_read_lock_seconds_count "$m1")
[[ $reads =~ ^[0-9]+$ ]] && ((reads >= 1)) \
	|| fail "read-lock holds: $(grep read_lock <<<"$m1")"
# the state file the bench reads: its fixed keys
jq -e '.version == 1 and .passes_total >= 1 and .reclaims_total == 1 and
	.victims_total == 1 and (.recent_passes | length) >= 1 and
	(.recent_passes[-1] | has("at") and has("pass_us") and has("lock_hold_us") and
		has("read_hold_us") and .tries >= 1) and
	.read_hold_seconds.count >= 1 and
	.lock_hold_seconds.buckets["+Inf"] == .lock_hold_seconds.count' \
	"$STATEFILE" >/dev/null || fail "metrics file: $(head -c 600 "$STATEFILE")"

# the plugin cannot write its file (a directory where its temporary file
# goes): it says so once in slurmctld's log.  The command, with the file
# gone, still prints Slurm's side and says the plugin's part is missing;
# with a file that is not the plugin's, it fails naming the file and key.
mkdir "$STATEFILE.tmp"
_wait_eq 15 yes bash -c "grep -q 'gpuquota: metrics file: .*gpuquota-metrics.json.tmp' '$DIR/log/slurmctld.log' && echo yes" \
	|| fail "no log line for the failed metrics write"
rm -f "$STATEFILE"
gone=$(metrics)
[[ $(value gpuquota_metrics_file_ok "$gone") == 0 ]] || fail "file_ok with no file"
[[ $(value gpuquota_passes_total "$gone") == absent ]] || fail "plugin metrics without a file"
[[ $(value 'gpuquota_project_allocated_gpus{project="team-b"}' "$gone") == 2 ]] \
	|| fail "Slurm's side left out with no file"
grep -q "warning: $STATEFILE: no such file" "$DIR/metrics.err" \
	|| fail "no warning for the missing file: $(cat "$DIR/metrics.err")"
echo '{"version": 1, "written_at": "soon"}' >"$STATEFILE"
rc=0
sl "$GPUQUOTA" metrics >/dev/null 2>"$DIR/metrics.err" || rc=$?
[[ $rc == 1 ]] && grep -qF "$STATEFILE: key \"written_at\": expected a number, found \"soon\"" "$DIR/metrics.err" \
	|| fail "bad metrics file: rc $rc, $(cat "$DIR/metrics.err")"
rmdir "$STATEFILE.tmp"
_wait_eq 15 yes bash -c "grep -q 'gpuquota: metrics file .* written again' '$DIR/log/slurmctld.log' && echo yes" \
	|| fail "the plugin did not write its file again"
[[ $(metric_now gpuquota_metrics_file_ok) == 1 ]] || fail "file not back"
[[ $(grep -c 'gpuquota: metrics file: ' "$DIR/log/slurmctld.log") == 1 ]] \
	|| fail "the failed write was logged more than once"

# a hold at team-c's gpu_limit (1), released when c1 leaves
c1=$(submit c1 team-c 1)
c2=$(submit c2 team-c 1)
_wait_eq 20 1 metric_now 'gpuquota_holds_total{reason="limit"}' \
	|| fail "no hold counted for c2: $(sl "$GPUQUOTA" metrics | grep holds)"
m2=$(metrics)
[[ $(value 'gpuquota_project_held_jobs{project="team-c"}' "$m2") == 1 ]] \
	|| fail "team-c held jobs: $(grep held <<<"$m2")"
sl scancel "$c1"
_wait_eq 20 1 metric_now gpuquota_releases_total \
	|| fail "c2 not released: $(sl "$GPUQUOTA" metrics | grep -E 'holds|releases')"
[[ $(value 'gpuquota_project_held_jobs{project="team-c"}' "$(metrics)") == 0 ]] \
	|| fail "team-c still has a held job"

# --listen: the same series at /metrics; bad addresses are refused
if sl "$GPUQUOTA" metrics --listen 'nohost' 2>"$DIR/listen.err"; then
	fail "--listen nohost accepted"
fi
grep -q 'expected ADDR:PORT' "$DIR/listen.err" || fail "bad ADDR:PORT: $(cat "$DIR/listen.err")"
rc=0
sl "$GPUQUOTA" metrics --listen 127.0.0.1:70000 2>"$DIR/listen.err" || rc=$?
[[ $rc == 2 ]] && grep -q 'port "70000"' "$DIR/listen.err" || fail "port 70000: rc $rc, $(cat "$DIR/listen.err")"

(. "$DIR/env" && exec "$GPUQUOTA" metrics --listen 127.0.0.1:0) 2>"$DIR/serve.err" &
serve_pid=$!
trap 'kill "$serve_pid" 2>/dev/null || true; _cleanup' EXIT
_wait_eq 10 yes bash -c "grep -q 'serving metrics on' '$DIR/serve.err' && echo yes" \
	|| fail "--listen did not start: $(cat "$DIR/serve.err")"
port=$(grep -oE 'on 127\.0\.0\.1:[0-9]+' "$DIR/serve.err" | cut -d: -f2)
# a second server on the same port: a clear error
rc=0
sl "$GPUQUOTA" metrics --listen "127.0.0.1:$port" 2>"$DIR/listen.err" || rc=$?
[[ $rc == 1 ]] && grep -q "cannot listen on 127.0.0.1:$port" "$DIR/listen.err" \
	|| fail "port in use: rc $rc, $(cat "$DIR/listen.err")"
curl -sS -D "$DIR/headers" "http://127.0.0.1:$port/metrics" >"$DIR/served.prom" \
	|| fail "curl /metrics"
direct=$(metrics)
grep -qi '^content-type: text/plain; version=0.0.4' "$DIR/headers" \
	|| fail "content type: $(cat "$DIR/headers")"
promtool check metrics <"$DIR/served.prom" >"$DIR/promtool.out" 2>&1 \
	|| fail "promtool on /metrics: $(cat "$DIR/promtool.out")"
# the same series and, but for what moves with every pass, the same values
# (the served text also says its cache's: gpuquota_scrape_*)
series() { grep -v '^#' | grep -v '^gpuquota_scrape_' | awk '{ print $1 }'; }
stable() { grep -vE '^gpuquota_(metrics_file_age|passes_total|last_pass|pass_|scrape_)' | grep -v '^#'; }
diff <(series <"$DIR/served.prom") <(series <<<"$direct") >"$DIR/diff" \
	|| fail "/metrics has other series: $(cat "$DIR/diff")"
diff <(stable <"$DIR/served.prom") <(stable <<<"$direct") >"$DIR/diff" \
	|| fail "/metrics differs: $(cat "$DIR/diff")"
# the Grafana dashboard in examples/ asks only for metrics printed here
jq -e '.panels | length > 0' "$ROOT/examples/grafana-gpuquota.json" >/dev/null \
	|| fail "examples/grafana-gpuquota.json is not a dashboard"
for name in $(grep -oE 'gpuquota_[a-z_]+' "$ROOT/examples/grafana-gpuquota.json" |
	sed -E 's/_(bucket|sum|count)$//' | sort -u); do
	grep -q "^# TYPE $name " "$DIR/served.prom" \
		|| fail "the dashboard asks for $name, which gpuquota metrics does not print"
done

# the cache: 100 requests a second for 10 s read slurmctld at most once an
# interval (the pass interval: recompute_interval, 2 s by default), plus
# the first.  A load asks for the jobs once (REQUEST_JOB_INFO in sdiag);
# the plugin sends no RPC, and the test sends none in the window.
job_info() { sl sdiag | sed -n 's/^[[:space:]]*REQUEST_JOB_INFO[[:space:]].*count:\([0-9]*\).*/\1/p'; }
served=$(<"$DIR/served.prom")
iv=$(value gpuquota_scrape_cache_seconds "$served")
[[ $iv == 2 ]] || fail "cache seconds $iv, not the pass interval 2"
for ((i = 0; i < 1000; i++)); do
	printf 'url = "http://127.0.0.1:%s/metrics"\noutput = "/dev/null"\n' "$port"
done >"$DIR/urls.curl"
loads0=$(value gpuquota_scrape_loads_total "$(curl -s "http://127.0.0.1:$port/metrics")")
rpc0=$(job_info)
t0=$(date +%s.%N)
curl -s --rate 100/s -w '%{http_code}\n' -K "$DIR/urls.curl" >"$DIR/codes"
t1=$(date +%s.%N)
rpc1=$(job_info)
loads1=$(value gpuquota_scrape_loads_total "$(curl -s "http://127.0.0.1:$port/metrics")")
[[ $(grep -c '^200$' "$DIR/codes") == 1000 ]] \
	|| fail "not every request answered 200: $(sort "$DIR/codes" | uniq -c)"
bound=$(awk -v a="$t0" -v b="$t1" -v i="$iv" 'BEGIN { print int((b - a) / i) + 1 }')
[[ $rpc0 =~ ^[0-9]+$ && $rpc1 =~ ^[0-9]+$ ]] || fail "sdiag REQUEST_JOB_INFO: '$rpc0' '$rpc1'"
(( rpc1 - rpc0 <= bound && rpc1 - rpc0 >= 1 )) \
	|| fail "1000 requests in $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s: $((rpc1 - rpc0)) job reads by slurmctld, at most $bound allowed"
# (the scrape that reads loads1 may load once more)
(( loads1 - loads0 <= bound + 1 )) || fail "loads $loads0 -> $loads1, at most $bound in the window"
echo "cache: 1000 requests, $((rpc1 - rpc0)) REQUEST_JOB_INFO (bound $bound), loads $loads0 -> $loads1"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nothing")
[[ $code == 404 ]] || fail "/nothing: HTTP $code"
kill "$serve_pid"
wait "$serve_pid" || fail "--listen did not stop cleanly on SIGTERM"
pass
