# shellcheck shell=bash
# Owns the reclaim invariant of the integration tests; sourced by lib.sh
# (needs its sl, fail and GPUQUOTA).
#
# Invariant (docs/MODEL.md "Reclaim", quota reclaim): no project u sits below
# its floor min(q_u, D_u) while
#   - another project v holds reclaimable GPUs beyond its own quota (running
#     `preemptible: true` jobs of v, taken only while v stays >= q_v), and
#   - a pending eligible job of u would fit, on some node, in the free GPUs
#     and CPUs plus what those jobs of other projects free there.
#
# Kept sound (it fires only where the plugins must act), so it may miss cases:
#   - u counts only if *every* eligible pending job J of u is in quota by
#     itself (a_u + g_J <= q_u, g_J counting all the pending tasks of an
#     array: its band is its last task's) and would fit: then the first job
#     of u's queue, whichever Slurm's order puts first, is in the in-quota
#     band (its A_1 = a_u + g_J) and can reclaim; this also holds with the
#     implementation's first-fit A_k rule (docs/MODEL.md, "Bands and
#     priority");
#   - in a department d, u's job is in quota only if d stays within q_d too:
#     u counts only if a_d + g_J, plus every pending job of d's other
#     projects that may be demand (any of them may come first in d's walk),
#     stays within q_d for every eligible J;
#   - u is skipped when it has an eligible multi-node pending job (its
#     per-node need is not known here), a pending job squeue no longer
#     shows, or a pending job that may be demand to gpuquota without being
#     eligible here (e.g. ReqNodeNotAvail): it may come first in u's queue;
#   - victims are single-node running jobs only, packed greedily within
#     a_v - q_v per project and, for u outside v's department d, within
#     a_d - q_d for d's projects together (d's floor against outsiders)
#     (an achievable set, so "room can be made" is true);
#   - eligible = squeue reason Resources, Priority or None, possibly followed
#     by gpuquota's ", gpuquota: <band>" (not held, not on
#     a dependency or a begin time such as a requeued job's); not demand =
#     held (JobHeld*, gpuquota's holds, Slurm's launch failure hold), on a
#     dependency or a begin time, or held back by Slurm's limits (Assoc*,
#     QOS*), as src/shared/job_facts.c reads them (an array waiting on
#     its own throttle, JobArrayTaskLimit, is demand);
#   - the sources (gpuquota projects/jobs --json, squeue, scontrol) are read
#     one after another, so check_invariant retries: a reclaim in flight or a
#     torn read passes as soon as one later check is clean.
#
#   invariant_violation [POOL PARTITIONS]
#                               prints the violations now (nothing when
#                               none); with a pool (gpuquota.json's
#                               `pools`), of that pool alone: its projects
#                               and jobs (gpuquota --pool), the nodes of
#                               its partitions (a comma list), victims
#                               running there (each pool is its own model,
#                               docs/MODEL.md "Pools")
#   check_invariant [SECONDS]   fails the test if every check for SECONDS
#                               (default 15) finds a violation

# One JSON document with everything the check needs, on stdout.
_invariant_input() { # [POOL PARTITIONS]
	local projects jobs pend run nodes pool=${1:-} parts=${2:-}
	if [[ -n $pool ]]; then
		projects=$(sl "$GPUQUOTA" projects --pool "$pool" --json | jq '.pools[0]') || return 1
		jobs=$(sl "$GPUQUOTA" jobs --pool "$pool" --json) || return 1
	else
		projects=$(sl "$GPUQUOTA" projects --json) || return 1
		jobs=$(sl "$GPUQUOTA" jobs --json) || return 1
	fi
	# pending: id|reason|cpus|min nodes; %A, the record's job id as in
	# gpuquota jobs (%i of a pending array is "10_[0-3]")
	pend=$(sl squeue -h -t PD -o '%A|%r|%C|%D' | jq -R -s '
		split("\n") | map(select(length > 0) | split("|")
		| {id: (.[0] | tonumber), reason: .[1],
		   cpus: (.[2] | tonumber), nodes: (.[3] | tonumber)})') || return 1
	run=$(sl squeue -h -t R -o '%A|%C' | jq -R -s '
		split("\n") | map(select(length > 0) | split("|")
		| {key: .[0], value: (.[1] | tonumber)}) | from_entries') || return 1
	# usable nodes (of the pool's partitions): GPUs and CPUs, total and
	# in use
	nodes=$(sl scontrol -d -o show node | awk -v parts="$parts" '
		BEGIN { np = split(parts, want, ",") }
		{
			name = ""; g = 0; gu = 0; c = 0; ca = 0; st = ""; in_pool = !np
			for (i = 1; i <= NF; i++) {
				split($i, kv, "=")
				if (kv[1] == "NodeName") name = kv[2]
				else if (kv[1] == "State") st = kv[2]
				else if (kv[1] == "Partitions")
					for (k = 1; k <= np; k++)
						if (index("," kv[2] ",", "," want[k] ","))
							in_pool = 1
				else if (kv[1] == "CPUTot") c = kv[2]
				else if (kv[1] == "CPUAlloc") ca = kv[2]
				else if (kv[1] == "Gres" || kv[1] == "GresUsed") {
					v = 0
					if (match(kv[2], /gpu(:[A-Za-z0-9_]+)?:[0-9]+/)) {
						s = substr(kv[2], RSTART, RLENGTH)
						sub(/.*:/, "", s); v = s
					}
					if (kv[1] == "Gres") g = v; else gu = v
				}
			}
			if (name == "" || !in_pool ||
			    st ~ /DOWN|DRAIN|FAIL|NOT_RESPONDING|FUTURE|\*/)
				next
			printf "{\"name\":\"%s\",\"gpus\":%d,\"gpus_used\":%d,\"cpus\":%d,\"cpus_used\":%d}\n",
				name, g, gu, c, ca
		}' | jq -s .) || return 1
	jq -n --argjson p "$projects" --argjson j "$jobs" --argjson pend "$pend" \
		--argjson run "$run" --argjson nodes "$nodes" --arg pool "$pool" \
		'{p: $p, j: $j, pend: $pend, run: $run, nodes: $nodes,
		  in: (if $pool == "" then "" else " in pool \($pool)" end)}'
}

# jq: the violations in an _invariant_input document, one string each.
# shellcheck disable=SC2016
_INVARIANT_JQ='
def dem: .gpus * ([.tasks // 1, 1] | max);
.p as $p | .j as $j | .pend as $pend | .run as $runcpu | .nodes as $nodes | .in as $in
| ($p.projects | map({key: .name, value: .gpu_quota}) | from_entries) as $quota
| ($p.projects | map({key: .name, value: .department}) | from_entries) as $dept
| (($p.departments // []) | map({key: .name, value: .gpu_quota}) | from_entries) as $dquota
| ($pend | map({key: (.id | tostring), value: .}) | from_entries) as $pinfo
| [$j.jobs[] | select(.state == "RUNNING")] as $running
| ($running | group_by(.project)
   | map({key: .[0].project, value: (map(.gpus) | add)}) | from_entries) as $alloc
| ($running | map(select($dept[.project] != null)) | group_by($dept[.project])
   | map({key: $dept[.[0].project], value: (map(.gpus) | add)}) | from_entries) as $dalloc
| [$j.jobs[] | select(.state == "PENDING")
   | . + {info: $pinfo[.job_id | tostring]}
   | . + {maybe_demand: (.info == null or (.info.reason
          | test("^(BeginTime|Dependency|JobHeld|launch failed|gpuquota: |Assoc|QOS)") | not))}]
  as $pending
| ($pending | map(.project) | unique)[] as $u
| ($quota[$u] // 0) as $qu
| ($alloc[$u] // 0) as $au
| $dept[$u] as $du
| [$pending[] | select(.project == $u)] as $mine
| [$mine[] | select(.info != null
                    and (.info.reason | test("^(Resources|Priority|None)($|, gpuquota: )")))] as $elig
| select(($mine | all(.info != null)) and ($elig | length > 0)
         and ($elig | all(.info.nodes == 1)))
| select([$mine[] | select(.maybe_demand)] | length == ($elig | length))
| ([$qu, $au + ($elig | map(dem) | add)] | min) as $floor
| select($au < $floor)
| select($elig | all($au + dem <= $qu))
| (if $du == null then 0
   else [$pending[] | select(.project != $u and $dept[.project] == $du
                             and .maybe_demand) | dem] | add // 0 end) as $sib
| select($du == null
         or ($elig | all(($dalloc[$du] // 0) + $sib + dem <= ($dquota[$du] // 0))))
| [$nodes[] as $n
   | ([$running[] | select(.project != $u and .preemptible and .nodes == $n.name
                           and $runcpu[.job_id | tostring] != null)]
   | sort_by(-.gpus)
   | reduce .[] as $c ({pl: {}, dl: {}, g: 0, c: 0, ids: []};
       ($c.project) as $v
       | (if $dept[$v] != null and $dept[$v] != $du then $dept[$v] else null end) as $dv
       | ((.pl[$v]) // (($alloc[$v] // 0) - ($quota[$v] // 0))) as $pleft
       | (if $dv == null then null
          else ((.dl[$dv]) // (($dalloc[$dv] // 0) - ($dquota[$dv] // 0))) end) as $dleft
       | if $c.gpus <= $pleft and ($dv == null or $c.gpus <= $dleft) then
           .pl[$v] = ($pleft - $c.gpus)
           | (if $dv == null then . else .dl[$dv] = ($dleft - $c.gpus) end)
           | .g += $c.gpus | .c += $runcpu[$c.job_id | tostring]
           | .ids += [$c.job_id]
         else . end)) as $pick
   | {node: $n.name,
      reclaim: $pick.g,
      victims: $pick.ids,
      gpus: ($n.gpus - $n.gpus_used + $pick.g),
      cpus: ($n.cpus - $n.cpus_used + $pick.c)}
   | select(.reclaim > 0)] as $rooms
| select($rooms | length > 0)
| select($elig | all(. as $J | $rooms
                     | any(.gpus >= $J.gpus and .cpus >= $J.info.cpus)))
| "project \($u)\($in) holds \($au) GPUs, below its floor \($floor) (quota \($qu));"
  + " pending in-quota jobs \($elig | map(.job_id))"
  + " would fit by requeueing other projects over quota: "
  + ($rooms | map("\(.node): jobs \(.victims) (free after: \(.gpus) GPUs)")
     | join(", "))
'

invariant_violation() { # [POOL PARTITIONS]
	local doc
	doc=$(_invariant_input "$@") || { echo "invariant: cannot read the cluster"; return 0; }
	jq -r "$_INVARIANT_JQ" <<<"$doc"
}

check_invariant() {
	local t=${1:-15} start=$SECONDS v
	while :; do
		v=$(invariant_violation)
		[[ -z $v ]] && return 0
		((SECONDS - start < t)) || break
		sleep 1
	done
	fail "invariant violated for ${t}s: $v"
}
