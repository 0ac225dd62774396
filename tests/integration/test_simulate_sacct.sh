#!/usr/bin/env bash
# `gpuquota simulate` on a real cluster's own history (accounting mode only:
# sacct reads slurmdbd).  The quick start through sbatch with short jobs
# (2 nodes x 2 GPUs, team-a and team-b at quota 2): a1, a2 (team-a, 1 + 2
# GPUs, a2 over quota on idle GPUs), b1; b2 reclaims a1, which runs again
# after its begin time; meanwhile a 2-task array of team-b on idle GPUs.
# Every job ends by itself (sleep, within --time).  Then the README's
# commands ("Before you change a quota"): sacct -a -P -X -D over the test's
# time, scontrol show node, gpuquota simulate --sacct --nodes-from with the
# cluster's gpuquota.json and stock (table and --json).  Asserted:
#  - every job of the workload read: 6 jobs (a1's two runs one job), none
#    left out, accounts team-a and team-b only;
#  - GPU-hours: stock's (nothing requeued) are each account's GPUs x
#    Elapsed of its jobs' last runs on the cluster, exactly, and those are
#    the jobs' sleeps within [-1, +2] s per job (seconds truncated at start
#    and end, plus the launch);
#  - the decision the cluster made: under gpuquota one reclaim, of team-a
#    (1 requeue, team-b none), its GPU-seconds lost those of a 1-GPU job
#    (a1) over a1's first run on the cluster within [-1, +3] s (the replay
#    starts a1 at its submit, the cluster up to a poll later; a2, 2 GPUs,
#    would lose twice as many); team-b's GPU-hours as stock's, team-a's
#    stock's plus what was lost; stock: no reclaim, no requeue.
# On failure the sacct text is printed and kept in the work dir.
export GQ_ACCOUNTING=1
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 2},
                          {"name": "team-b", "gpu_quota": 2}]}'
since=$(date -d '-10 seconds' +%Y-%m-%dT%H:%M:%S)

# job NAME ACCOUNT GPUS SECONDS [sbatch options...]: a job that sleeps
job() {
	local name=$1 acct=$2 gpus=$3 secs=$4
	shift 4
	sl sbatch --parsable -J "$name" -A "$acct" --gres="gpu:$gpus" --time=1 "$@" \
		--wrap "sleep $secs"
}
a1=$(job a1 team-a 1 15); wait_state "$a1" RUNNING
a2=$(job a2 team-a 2 10); wait_state "$a2" RUNNING	# over quota on idle GPUs
b1=$(job b1 team-b 1 10); wait_state "$b1" RUNNING
sleep 5	# a1 has run a while: a requeue of a1 or of a2 loses distinct GPU-seconds
b2=$(job b2 team-b 1 6); wait_state "$b2" RUNNING 30
[[ $(restarts "$a1") -ge 1 ]] || fail "the cluster did not requeue a1"
[[ $(restarts "$a2") == 0 ]] || fail "the cluster requeued a2"
# while a1 waits for its begin time (or runs), on idle GPUs
_wait_eq 30 "$a1" sl squeue -h -o %i || fail "a2, b1, b2 did not end within 30 s"
arr=$(sl sbatch --parsable -J c -A team-b --gres=gpu:1 --time=1 --array=1-2 --wrap 'sleep 2')
queue_empty() { [[ -z $(sl squeue -h -o %i) ]] && echo yes; }
_wait_eq 40 yes queue_empty || fail "the workload did not end within 40 s"

# the README's command; slurmdbd has a job's end a moment after slurmctld
month=$DIR/month.txt
fetch() {
	sl sacct -a -P -X -D -S "$since" -E now \
		--format=JobID,Account,Partition,AllocTRES,ReqTRES,NNodes,Submit,Start,End,Elapsed,Timelimit,State \
		>"$month"
}
# lines: a1's two runs, a2, b1, b2, the array's two tasks; all ended
ended() { fetch && awk -F'|' 'NR > 1 && $9 != "Unknown" { n++ } END { print n + 0 }' "$month"; }
fail_sacct() {
	echo "$TEST: the sacct text ($month):" >&2
	cat "$month" >&2
	fail "$@"
}
_wait_eq 30 7 ended || fail_sacct "slurmdbd's records: want 7 ended runs"
sl scontrol show node >"$DIR/nodes.txt"
ids=$(awk -F'|' 'NR > 1 { print $1 }' "$month" | sort -u | xargs)
want=$(printf '%s\n' "$a1" "$a2" "$b1" "$b2" "${arr}_1" "${arr}_2" | sort -u | xargs)
[[ $ids == "$want" ]] || fail_sacct "sacct's jobs: '$ids', want '$want'"
# a1's first run, on the cluster: its Elapsed (the GPU-seconds it lost)
a1_lost=$(awk -F'|' -v j="$a1" '$1 == j && $12 != "COMPLETED" {
	split($10, t, ":"); print t[1] * 3600 + t[2] * 60 + t[3] }' "$month")
[[ $a1_lost =~ ^[0-9]+$ ]] || fail_sacct "a1's requeued run: '$a1_lost'"

# the replay, as the README runs it
sim=("$GPUQUOTA" simulate --sacct "$month" --nodes-from "$DIR/nodes.txt" "$DIR/gpuquota.json" stock)
table=$("${sim[@]}" 2>"$DIR/simulate.err") || fail_sacct "simulate: $(cat "$DIR/simulate.err")"
[[ $table == *team-a* && $table == *team-b* ]] || fail_sacct "simulate's table: $table"
json=$("${sim[@]}" --json 2>"$DIR/simulate.err") || fail_sacct "simulate --json: $(cat "$DIR/simulate.err")"
[[ ! -s $DIR/simulate.err ]] || fail_sacct "simulate said: $(cat "$DIR/simulate.err")"
echo "$json" >"$DIR/simulate.json"

# fig CONFIG ACCOUNT FIELD: a figure of the --json output (GPU-hours as
# GPU-seconds, rounded)
fig() {
	jq -r --argjson c "$1" --arg a "$2" --arg f "$3" '.[$c].accounts[]
		| select(.account == $a) | .[$f]
		| if ($f | test("gpu_hours")) then . * 3600 | round else . end' <<<"$json"
}
jq -e 'length == 2 and .[0].configuration == "'"$DIR/gpuquota.json"'" and .[1].configuration == "stock"' \
	<<<"$json" >/dev/null || fail_sacct "configurations: $json"
for c in 0 1; do
	accts=$(jq -r --argjson c $c '[.[$c].accounts[].account] | sort | join(" ")' <<<"$json")
	[[ $accts == "team-a team-b" ]] || fail_sacct "[$c] accounts: '$accts'"
	jobs=$(jq --argjson c $c '[.[$c].accounts[].jobs] | add' <<<"$json")
	[[ $jobs == 6 ]] || fail_sacct "[$c] read $jobs jobs, want 6"
	[[ $(fig $c team-a jobs) == 2 && $(fig $c team-b jobs) == 4 ]] \
		|| fail_sacct "[$c] jobs per account: $json"
	[[ $(jq --argjson c $c '[.[$c].accounts[].never_started] | add' <<<"$json") == 0 ]] \
		|| fail_sacct "[$c] a job never started: $json"
done

# GPU-seconds of ACCOUNT's jobs on the cluster: GPUs x Elapsed of each
# job's last run (the line of its latest Start)
ran() {
	awk -F'|' -v a="$1" 'NR > 1 && $2 == a && $8 != "Unknown" {
		if ($8 < start[$1]) next
		start[$1] = $8
		g = $4; sub(/.*gres\/gpu=/, "", g); sub(/,.*/, "", g)
		split($10, t, ":")
		s[$1] = g * (t[1] * 3600 + t[2] * 60 + t[3]) }
		END { for (j in s) n += s[j]; print n + 0 }' "$month"
}
ran_a=$(ran team-a) ran_b=$(ran team-b)
# the workload's sleeps: team-a 1 x 15 + 2 x 10, team-b 10 + 6 + 2 x 2
between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
between "$ran_a" $((35 - 3)) $((35 + 6)) || fail_sacct "team-a ran $ran_a GPU-s, its jobs slept 35"
between "$ran_b" $((20 - 4)) $((20 + 8)) || fail_sacct "team-b ran $ran_b GPU-s, its jobs slept 20"
[[ $(fig 1 team-a gpu_hours) == "$ran_a" && $(fig 1 team-b gpu_hours) == "$ran_b" ]] \
	|| fail_sacct "stock's GPU-seconds $(fig 1 team-a gpu_hours) and $(fig 1 team-b gpu_hours), the cluster's $ran_a and $ran_b"

# the cluster's decision, replayed: a1 requeued, once; stock none
jq -e '.[0].reclaims == 1 and .[1].reclaims == 0' <<<"$json" >/dev/null \
	|| fail_sacct "reclaims: gpuquota $(jq '.[0].reclaims' <<<"$json"), stock $(jq '.[1].reclaims' <<<"$json")"
[[ $(fig 0 team-a requeues) == 1 && $(fig 0 team-b requeues) == 0 ]] \
	|| fail_sacct "gpuquota's requeues: team-a $(fig 0 team-a requeues), team-b $(fig 0 team-b requeues)"
[[ $(fig 1 team-a requeues) == 0 && $(fig 1 team-b requeues) == 0 ]] || fail_sacct "stock requeued: $json"
lost=$(fig 0 team-a gpu_hours_lost)
between "$lost" $((a1_lost - 1)) $((a1_lost + 3)) \
	|| fail_sacct "the replay's requeue lost $lost GPU-s, a1's first run on the cluster $a1_lost s on 1 GPU"
[[ $(fig 0 team-b gpu_hours_lost) == 0 ]] || fail_sacct "team-b lost work in the replay"
[[ $(fig 0 team-b gpu_hours) == "$ran_b" ]] || fail_sacct "gpuquota's team-b GPU-s $(fig 0 team-b gpu_hours), want $ran_b"
between "$(fig 0 team-a gpu_hours)" $((ran_a + lost - 1)) $((ran_a + lost + 1)) \
	|| fail_sacct "gpuquota's team-a GPU-s $(fig 0 team-a gpu_hours), want $ran_a + $lost"
echo "$TEST: cluster: a1's first run ${a1_lost} s, team-a ${ran_a} GPU-s, team-b ${ran_b}; replay: lost ${lost} GPU-s"
pass
