# compare.sh - the gpuquota command side by side with slurmctld, job by
# job (sourced by tests after lib.sh): compare_with_ctld prints one row
# per job with the priority slurmctld holds and the command computes, the
# band of slurmctld's reason and of sprio's SITE factor against the
# command's band (a job gpuquota holds: priority 0, "held"), and running
# jobs' GPUs; the last column "ok" or "DIFF(what)".
# JSON fields relied on, per entry of `gpuquota jobs --json`: job_id,
# name, state, gpus; for pending jobs priority and band.

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
