#!/usr/bin/env bash
# Departments bound their projects as a group.  2 nodes x 4 GPUs (C=8):
# department ml (quota 4, limit 6) holds projects ml-a (quota 2) and ml-b
# (quota 2); project ops (quota 4) is outside it.
#  1. ml-a alone: 6 of its 7 jobs run (the department's limit), the 7th
#     waits with the department-limit reason although 2 GPUs are idle.
#  2. ops asks for its quota, 4: 2 idle GPUs plus 2 reclaimed from ml-a.
#     ml-a may lose down to its own quota (2) but ml stays at its quota (4):
#     ml-a ends at 4.
#  3. ml-b asks for 2: inside its quota, but ml is at its quota, so it takes
#     from its sibling (fair share inside ml: D ml-a 7, ml-b 2 -> f = 2, 2),
#     never from ops: ml-a 2, ml-b 2, ops 4.
. "$(dirname "$0")/lib.sh"

up_cluster '{"departments": [{"name": "ml", "gpu_quota": 4, "gpu_limit": 6}],
             "projects": [{"name": "ml-a", "gpu_quota": 2, "department": "ml"},
                          {"name": "ml-b", "gpu_quota": 2, "department": "ml"},
                          {"name": "ops", "gpu_quota": 4}]}' \
	--nodes 2 --gpus 4 --cpus 8

a=()
for i in 1 2 3 4 5 6 7; do
	a+=("$(submit "a$i" ml-a 1)")
	sleep 0.3
done
wait_held ml-a 6 30
settle 3
[[ $(held_gpus ml-a) == 6 ]] || fail "ml-a holds $(held_gpus ml-a), want the department limit 6"
reason=$(sl squeue -h -j "${a[6]}" -o %r)
[[ $reason == *"department ml would pass its gpu_limit (6 GPUs)"* ]] || fail "a7 reason: '$reason'"
# gpuquota metrics: the department's numbers, and the hold counted once
m=$(sl "$GPUQUOTA" metrics) || fail "gpuquota metrics"
# (promtool is on the host, not in the version matrix' roots)
if command -v promtool >/dev/null; then
	promtool check metrics <<<"$m" >/dev/null 2>&1 || fail "promtool check metrics: $(promtool check metrics <<<"$m" 2>&1)"
fi
for want in 'gpuquota_department_allocated_gpus{department="ml"} 6' \
	'gpuquota_department_limit_gpus{department="ml"} 6' \
	'gpuquota_department_held_jobs{department="ml"} 1' \
	'gpuquota_project_held_jobs{project="ml-a",department="ml"} 1' \
	'gpuquota_project_quota_gpus{project="ops"} 4' \
	'gpuquota_holds_total{reason="department_limit"} 1'; do
	grep -qxF "$want" <<<"$m" || fail "metrics: no line '$want': $(grep -E 'department|holds' <<<"$m" | grep -v '^#')"
done

o=()
for i in 1 2 3 4; do o+=("$(submit "o$i" ops 1)"); done
wait_held ops 4 40
settle 5
[[ $(held_gpus ml-a) == 4 ]] || fail "ml-a holds $(held_gpus ml-a), want 4 (ml at its quota)"
check_invariant 15

b=()
for i in 1 2; do b+=("$(submit "b$i" ml-b 1)"); done
wait_held ml-b 2 40
settle 5
[[ $(held_gpus ml-a) == 2 ]] || fail "ml-a holds $(held_gpus ml-a), want 2"
[[ $(held_gpus ops) == 4 ]] || fail "ops holds $(held_gpus ops), want 4: ml-b took from outside ml"
for j in "${o[@]}"; do
	[[ $(restarts "$j") == 0 ]] || fail "ops job $j was requeued"
done
[[ $(project_field ml-b fair_share) == 2 ]] || fail "ml-b fair share $(project_field ml-b fair_share)"
check_invariant 15
pass
