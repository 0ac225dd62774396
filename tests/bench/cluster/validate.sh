#!/usr/bin/env bash
# Owns `make bench-validate`: a finished `make bench-cluster` work dir
# against `gpuquota simulate` on the same workload, the figures both give
# side by side (docs/PERFORMANCE.md, "Validation against the real
# controller").  Starts no daemon; reads the bench's files only.
#
#   tests/bench/cluster/validate.sh BENCH_DIR [OUT]
#
# BENCH_DIR: run.sh's GQ_BENCH_DIR after its rounds (workload/, the runs'
# rR-SYS.out/ and rR-SYS/slurm.conf); its report dir is GQ_BENCH_OUT as
# run.sh has it (default BENCH_DIR/report).  OUT (default
# BENCH_DIR/validate): the converted workload (to_sim.py), the
# simulator's sim.json and alloc.dat/.png, and validate.md, the tables
# (compare.py) also printed.  The cluster's shape (nodes, GPUs and CPUs a
# node) and the requeue delay (AuthInfo's cred_expire + 1, as Slurm
# delays a requeued job) are read from the gpuquota round's slurm.conf;
# the replay stops at the end of the bench's window (--until: its
# rounds' median), so both sides' figures cover the same time.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=$ROOT/tests/bench/cluster
PY=/usr/bin/python3
GQ=$ROOT/build/gpuquota

say() { echo "bench-validate: $*" >&2; }
die() { say "error: $*"; exit 1; }
need() { [[ -f $1 ]] || die "missing $1 ($2)"; }

(($# >= 1 && $# <= 2)) || { echo "usage: $0 BENCH_DIR [OUT]" >&2; exit 2; }
WORK=$1
[[ -d $WORK ]] || die "no dir '$WORK'"
REPORT=${GQ_BENCH_OUT:-$WORK/report}
OUT=${2:-$WORK/validate}
WL=$WORK/workload
CONF=$WORK/r1-gpuquota/slurm.conf

need "$GQ" "run make"
need "$WL/schedule.tsv" "the bench's workload, workload.py or trace_workload.py"
need "$WL/projects.tsv" "the bench's workload, workload.py or trace_workload.py"
need "$CONF" "scripts/cluster.sh, the bench's gpuquota round 1"
need "$REPORT/results.json" "report.py, after the bench's rounds"

# ---- the cluster's shape, as the bench's slurm.conf has it
shape=$(awk '/^NodeName=/ {
		n++; c = g = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^CPUs=/) c = substr($i, 6)
			if ($i ~ /^Gres=gpu:/) { k = split($i, x, ":"); g = x[k] }
		}
		s = c " " g; if (n > 1 && s != first) uneven = 1; if (n == 1) first = s
	}
	END { if (!n || uneven) print "bad"; else print n " " first }' "$CONF")
[[ $shape =~ ^[0-9]+\ [0-9]+\ [1-9][0-9]*$ ]] \
	|| die "$CONF: want NodeName lines alike, with CPUs= and Gres=gpu:N, got '$shape'"
read -r NODES CPUS GPUS <<<"$shape"
delay=()
cred=$(sed -n 's/^AuthInfo=.*cred_expire=\([0-9]*\).*/\1/p' "$CONF")
[[ -z $cred ]] || delay=(--requeue-delay $((cred + 1)))

mkdir -p "$OUT"
"$PY" "$HERE/to_sim.py" --work "$WL" --out "$OUT"
# the bench's window (its rounds' median) on the simulator's clock, whose
# time 0 is the bench's first submit
until=$(jq -n --slurpfile r "$REPORT/results.json" --slurpfile s "$OUT/to_sim.json" \
	'($r[0].gpuquota | map(.window_s) | sort) as $w
	 | ($w | if length % 2 == 1 then .[length / 2 | floor]
		 else (.[length / 2 - 1] + .[length / 2]) / 2 end)
	 - $s[0].first_submit_s | round')
[[ $until =~ ^[1-9][0-9]*$ ]] || die "$REPORT/results.json: no window to cut the replay to (got '$until')"
say "simulate: $NODES nodes x $GPUS GPUs ($CPUS CPUs), ${delay[1]:-the default} s requeue delay, $(jq .jobs "$OUT/to_sim.json") jobs, the first ${until} s"
rc=0
"$GQ" simulate --trace "$OUT/trace.csv" --nodes "$NODES" --gpus-per-node "$GPUS" \
	--cpus-per-node "$CPUS" "${delay[@]}" --until "$until" --json --plot "$OUT/alloc.png" \
	"$OUT/gpuquota.json" stock >"$OUT/sim.json" || rc=$?
# exit status 1 with the data kept: gnuplot is missing, the PNG alone is
((rc == 0)) || [[ $rc == 1 && -s $OUT/sim.json && -f $OUT/alloc.dat ]] \
	|| die "gpuquota simulate failed ($rc)"
"$PY" "$HERE/compare.py" --work "$WORK" --report "$REPORT" --sim "$OUT"
say "tables: $OUT/validate.md"
