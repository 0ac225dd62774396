#!/usr/bin/env bash
# The gpuquota command recomputes what slurmctld decided (accounting mode
# only: QOS come from slurmdbd).  `gpuquota jobs --json` side by side with
#   - pending jobs: the priority slurmctld holds (squeue %Q), the band
#     slurmctld wrote in the reason (squeue %r) and the band of sprio's SITE
#     factor (in-quota above 1400000000, fair-share above 700000000, over
#     the rest: the band's range, multifactor's part left out; a job
#     gpuquota holds has priority 0, a "gpuquota: ..." reason and no sprio
#     line);
#   - running jobs: Slurm's GPU allocation (scontrol -d JOB_GRES).
# Any difference fails, with the table of every job.
#
# JSON fields relied on, per entry of .jobs[]: job_id, name, state, gpus;
# for pending jobs priority (number, 0 while gpuquota holds the job) and
# band ("in-quota", "fair-share", "over-fair-share").
#
# 4 nodes x 2 GPUs, C = 8; min_runtime 3600 s: nothing is reclaimed, so the
# state stays still while it is compared.  QOS high (Priority=100) is
# granted on alpha.  Running, the cluster full:
#   delta  d-run -N 2 --gres=gpu:2 (4 GPUs), d-run2 (2);  beta b-run (1);
#   alpha  a-run (1)
# Pending, in submit order:
#   alpha (q 2)           a-nice (1, --nice=100), a-norm (1), a-high (1, QOS high)
#   beta (q 1, L 2)       b-fits (1), b-held (1: A 3 > L 2, held by gpuquota)
#   gamma (q 0, w 3)      g-arr (--array=0-1 of 1 GPU: demand 2), g-one (1)
#   delta (q 0)           d-wide (-N 2 --gres=gpu:2: 4 GPUs)
# D = alpha 4, beta 2 (b-held is not demand), gamma 3, delta 10; deserved
# 2, 1, 0, 0; the surplus 5 goes 1:1:3:1, nobody capped: f = alpha 2.83,
# beta 1.83, gamma 2.5, delta 0.83.
# Slurm's order in alpha: a-high (QOS), a-norm, a-nice (nice): a-high A 2
# in quota, a-norm 3 and a-nice 4 over fair share; g-arr (A 2: both tasks)
# within fair share, g-one (A 3) over it; b-fits (A 2) and d-wide (A 10)
# over it.
# With PriorityWeightQOS=1000, multifactor (inside gpuquota) gives a-high
# 1000 (QOS factor 100/100), a-norm 0, a-nice -100 (nice): the same order,
# and each priority has that part inside its band's slot (room 1024): the
# command must read it back from Slurm and compose the same priority.
# A model that orders alpha without QOS swaps a-norm and a-high; one that
# counts g-arr as 1 task gives gamma a demand of 2, capped after 2/3 GPU
# per weight: beta's f reaches 2 (b-fits in fair share).
export GQ_ACCOUNTING=1
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

up_cluster '{"settings": {"min_runtime": 3600},
             "projects": [{"name": "alpha", "gpu_quota": 2},
                          {"name": "beta", "gpu_quota": 1, "gpu_limit": 2},
                          {"name": "gamma", "gpu_quota": 0, "over_quota_weight": 3},
                          {"name": "delta", "gpu_quota": 0}]}' \
	--nodes 4 --gpus 2 --cpus 4 \
	--conf-extra AccountingStorageEnforce=associations,limits,qos \
	--conf-extra PriorityWeightQOS=1000
cluster=$(sl scontrol show config | awk '/^ClusterName/ { print $3 }')
sl sacctmgr -i add qos high Priority=100 >/dev/null
sl sacctmgr -i modify user root where account=alpha cluster="$cluster" \
	set QOS=normal,high >/dev/null
settle 2

# fill the cluster: 8 of 8 GPUs
run_wide=$(submit d-run delta 2 -N 2); wait_state "$run_wide" RUNNING
j=$(submit d-run2 delta 2); wait_state "$j" RUNNING
j=$(submit b-run beta 1); wait_state "$j" RUNNING
j=$(submit a-run alpha 1); wait_state "$j" RUNNING

submit a-nice alpha 1 --nice=100 >/dev/null
submit a-norm alpha 1 >/dev/null
submit a-high alpha 1 --qos=high >/dev/null
submit b-fits beta 1 >/dev/null
held=$(submit b-held beta 1)
arr=$(submit g-arr gamma 1 --array=0-1)
submit g-one gamma 1 >/dev/null
wide=$(submit d-wide delta 2 -N 2)

# squeue's "id|state|priority|reason" per job.  Slurm clears a reason's
# gpuquota text when a scheduling attempt fails and the next pass writes it
# again (the top job's at each attempt, every few seconds on a busy
# machine): read 6 times over about 4 s and keep, per job, a line that
# has it.
_squeue_reasons() {
	local i
	for i in 1 2 3 4 5 6; do
		sl squeue -h -o '%A|%T|%Q|%r'
		((i < 6)) && sleep 0.7
	done | awk -F'|' '
		!($1 in line) { order[++n] = $1 }
		!($1 in line) || ($4 ~ /gpuquota/ && line[$1] !~ /gpuquota/) { line[$1] = $0 }
		END { for (i = 1; i <= n; i++) print line[order[i]] }'
}

# The side by side, one row per job; the last column is "ok" or
# "DIFF(what)".
# shellcheck disable=SC2016
_TABLE_JQ='
def rband: if test("gpuquota: in quota") then "in-quota"
	elif test("gpuquota: over quota, within fair share") then "fair-share"
	elif test("gpuquota: over fair share") then "over-fair-share"
	elif test("^gpuquota: ") then "held" else "?" end;
def sband: if . == null then "-" elif (tonumber? // -1) > 1400000000 then "in-quota"
	elif (tonumber? // -1) > 700000000 then "fair-share"
	elif (tonumber? // -1) >= 1 then "over-fair-share"
	else "site=" + . end;
def rows: split("\n") | map(select(length > 0));
($sq | rows | map(split("|") | {key: .[0], value: {state: .[1], prio: .[2],
	reason: (.[3:] | join("|"))}}) | from_entries) as $q
| ($sp | rows | map(split(" ") | map(select(length > 0))
	| {key: .[0], value: .[1]}) | from_entries) as $s
| ($rg | rows | map(split(" ") | {key: .[0], value: .[1]}) | from_entries) as $g
| ($cmd.jobs | map({key: (.job_id | tostring), value: .}) | from_entries) as $c
| ["JOBID", "NAME", "STATE", "CTLD_PRIO", "CMD_PRIO", "REASON_BAND",
   "SPRIO_BAND", "CMD_BAND", "CTLD_GPUS", "CMD_GPUS", "RESULT"],
  ((($q | keys) + ($c | keys) | unique | sort_by(tonumber))[] as $id
   | $q[$id] as $qj | $c[$id] as $cj
   | (($qj.state // $cj.state) == "PENDING") as $pend
   | (if $pend and $cj != null then
	(if $cj.priority == 0 then "held" else $cj.band end) else "-" end) as $want
   | (if $pend and $qj != null then ($qj.reason | rband) else "-" end) as $rb
   | (if $pend then ($s[$id] | sband) else "-" end) as $sb
   | [ if $qj == null then "not in squeue" else empty end,
       if $cj == null then "not in gpuquota jobs" else empty end,
       if $qj != null and $cj != null and $qj.state != $cj.state
         then "state" else empty end,
       if $pend and $qj != null and $cj != null then
         (if ($qj.prio | tonumber) != $cj.priority then "priority" else empty end,
          if $rb != $want then "reason band" else empty end,
          if $sb != (if $want == "held" then "-" else $want end)
            then "sprio band" else empty end)
       elif $qj != null and $cj != null then
         (if ($g[$id] // "?") != ($cj.gpus | tostring) then "gpus" else empty end)
       else empty end ] as $diff
   | [$id, ($cj.name // "?"), ($qj.state // $cj.state),
      (if $pend then $qj.prio // "?" else "-" end),
      (if $pend then ($cj.priority // "?" | tostring) else "-" end),
      $rb, $sb, (if $pend then $cj.band // "?" else "-" end),
      (if $pend then "-" else $g[$id] // "?" end),
      ($cj.gpus // "?" | tostring),
      (if ($diff | length) == 0 then "ok" else "DIFF(" + ($diff | join(",")) + ")" end)])
| @tsv'

compare_with_ctld() {
	local cmd sq sp rg
	cmd=$(sl "$GPUQUOTA" jobs --json) || fail "gpuquota jobs --json failed"
	sq=$(_squeue_reasons)
	sp=$(sl sprio -h -o '%i %S')
	rg=$(running_gpus)
	jq -nr --argjson cmd "$cmd" --arg sq "$sq" --arg sp "$sp" --arg rg "$rg" \
		"$_TABLE_JQ" | _columns
}

# tab-separated rows -> aligned columns
_columns() {
	awk -F'\t' '
		{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) }
		  if (NF > n) n = NF }
		END { for (r = 1; r <= NR; r++) { s = ""
			for (i = 1; i < n; i++) s = s sprintf("%-" w[i] "s  ", c[r, i])
			print s c[r, n] } }'
}

# Compare a still state: the jobs' snapshot is the same before and after
# the reads (else read again).
wait_stable 40
for attempt in 1 2 3 4 5; do
	before=$(jobs_snapshot)
	table=$(compare_with_ctld)
	[[ $(jobs_snapshot) == "$before" ]] && break
	((attempt < 5)) || fail "jobs kept changing while compared"
	wait_stable 20
done
echo "$table" >"$DIR/compare.txt"
if grep -q 'DIFF' <<<"$table"; then
	echo "$TEST: gpuquota jobs --json against slurmctld:" >&2
	echo "$table" >&2
	fail "gpuquota jobs --json differs from slurmctld on $(grep -c 'DIFF' <<<"$table") jobs"
fi

# the scenario is what it says: all three bands, a held job, the array's
# pending record, a multi-node job pending and one running
for band in in-quota fair-share over-fair-share; do
	grep -qE " $band +$band +$band " <<<"$table" \
		|| fail "no pending job in band $band: $table"
done
grep -qE "^$held +b-held +PENDING +0 +0 +held " <<<"$table" \
	|| fail "b-held ($held) is not held by gpuquota: $table"
grep -qE "^$arr +g-arr +PENDING " <<<"$table" || fail "no pending record of g-arr ($arr): $table"
grep -qE "^$wide +d-wide +PENDING .* 4 +ok$" <<<"$table" || fail "d-wide ($wide): $table"
grep -qE "^$run_wide +d-run +RUNNING .* 4 +4 +ok$" <<<"$table" || fail "d-run ($run_wide): $table"
# the command explains alpha's order by multifactor's part
mf_of() { sl "$GPUQUOTA" jobs --json | jq -r --arg n "$1" '.jobs[] | select(.name == $n) | .multifactor'; }
[[ $(mf_of a-high) == 1000 && $(mf_of a-norm) == 0 && $(mf_of a-nice) == -100 ]] \
	|| fail "gpuquota jobs' multifactor parts: a-high $(mf_of a-high), a-norm $(mf_of a-norm), a-nice $(mf_of a-nice); want 1000, 0, -100"
check_invariant 15
pass
