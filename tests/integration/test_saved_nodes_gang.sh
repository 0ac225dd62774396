#!/usr/bin/env bash
# The nodes saved for an in-quota gang no set of nodes can take
# (docs/MODEL.md "The saved node"), with the default settings.  3 nodes x
# 4 GPUs, none idle.  Each node runs one of team-c's jobs (in quota): c1
# on n1 (--time 2 min), c2 on n2 (--time 3 min), c3 on n3 (no time
# limit), and three of team-b's (quota 0): b7-b9 on n3 first (the
# oldest), then b1-b3 on n1, then b4-b6 on n2 (the youngest).  team-a
# (quota 8) asks 4 GPUs on each of 2 nodes: every node gives 3 within the
# floors, so no room; it can start soonest on n1, then n2: both are
# saved.  team-e's e1 (quota 1, 1 GPU) can start on n3, so it reclaims
# one of b7-b9 there, though b4-b6 on n2 are younger (with n1 alone saved
# it would take b6).  c1 and c2 end: team-a's gang reclaims b1-b6 and
# runs on n1 and n2.
. "$(dirname "$0")/lib.sh"

# quotas: team-a 8, team-b 0, team-c 3, team-e 1 (12 GPUs in all)
up_cluster "{\"projects\": [$(for p in a:8 b:0 c:3 e:1; do
	printf '{"name": "team-%s", "gpu_quota": %s},' "${p%:*}" "${p#*:}"
done | sed 's/,$//')]}" --nodes 3 --gpus 4

limit=("-t 2" "-t 3" "")	# c1-c3's --time, in minutes
for i in 1 2 3; do
	# shellcheck disable=SC2086 # limit: none, or an option and its value
	c[i]=$(submit "c$i" team-c 1 -w "n$i" ${limit[i - 1]})
	wait_state "${c[i]}" RUNNING
done
for i in 7 8 9 1 2 3 4 5 6; do
	node=n$(((i - 1) / 3 + 1))
	b[i]=$(submit "b$i" team-b 1 -w "$node"); wait_state "${b[i]}" RUNNING
	sleep 1
done

a=$(submit a team-a 4 -N 2)
wait_logged 15 "gpuquota: saved node: n1, n2 are saved for JobId=$a of team-a, which needs 4 GPUs on each of 2 nodes: jobs that can start elsewhere take no victim there; it can start there soonest (n1: 0 GPUs idle, 3 it may reclaim" \
	"n1 and n2 are saved for team-a's gang"
expect_state "$a" PENDING

e1=$(submit e1 team-e 1)
wait_state "$e1" RUNNING 30
[[ $(sl squeue -h -j "$e1" -o %N) == n3 ]] \
	|| fail "team-e's e1 runs on $(sl squeue -h -j "$e1" -o %N), want n3 (n1 and n2 are saved)"
requeued=0
for i in 1 2 3 4 5 6 7 8 9; do
	[[ $(restarts "${b[i]}") == 0 ]] && continue
	((i >= 7)) || fail "b$i on a saved node was requeued for e1"
	requeued=$((requeued + 1))
done
((requeued == 1)) || fail "$requeued of b7-b9 requeued, want 1 (e1)"
expect_state "$a" PENDING

# c1 and c2 end: n1 and n2 each have 1 idle GPU and 3 of team-b's
sl scancel "${c[1]}" "${c[2]}"
wait_state "$a" RUNNING 90
[[ $(sl squeue -h -j "$a" -o %N) == "n[1-2]" ]] \
	|| fail "team-a's gang runs on $(sl squeue -h -j "$a" -o %N), want n[1-2]"
for j in "${c[3]}" "$e1"; do
	expect_state "$j" RUNNING
done
check_invariant 15
pass
