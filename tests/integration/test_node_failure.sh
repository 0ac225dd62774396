#!/usr/bin/env bash
# A node fails under an over-quota and an in-quota job, then comes back.
# 3 nodes x 4 GPUs (C = 12); team-a, team-b, team-c quota 4 each (sum
# 12); SlurmdTimeout=20, ReturnToService=1.
#
# Before: n1 a1 (4, team-a), n2 c1 (2, team-c) + a2 (2, team-a),
#         n3 a3 (2, team-a) + b1 (2, team-b).  team-a holds 8, quota 4: its
#         over-quota GPUs are a2 and a3 (youngest first within 8 - 4 = 4);
#         b1 is in quota.  Nobody waits: nothing is reclaimed.
# n3 crashes: its slurmd and its jobs' processes are killed (SIGKILL).
# Slurm marks n3 DOWN and requeues a3 and b1 (Restarts=1).  C = 8: a holds
# 6 (a1, a2), c 2, b 0; pending a3, b1 (after Slurm's requeue delay).  D_a = 8, D_b = 2, D_c = 2: deserved
# min(q, D) = 4, 2, 2 = 8 = C, no surplus: f = 4, 2, 2.
#   b1: A = 2 <= q_b = 4, in quota: reclaims from team-a (6 > 4), within
#       6 - 4 = 2 GPUs: a2 (the only one that fits; a1 has 4).
#   a3: A = 6 + 2 = 8 > f_a = 4: over fair share, takes nothing.
# So exactly a2 is requeued; a1 and c1 never.  End: a 4 (a1), b 2 (b1 on
# n2), c 2; a2, a3 pending, over fair share (A = 6, 8 > 4).
# n3 comes back (a new slurmd): C = 12, deserved 4, 2, 2, the surplus 4 goes
# to team-a (the only one with demand left): f_a = 8.  a2 (A = 6) and a3
# (A = 8) are in the fair-share band and start on n3's idle GPUs; nothing
# running is requeued.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 4},
                          {"name": "team-b", "gpu_quota": 4},
                          {"name": "team-c", "gpu_quota": 4}],
             "settings": {"recompute_interval": 1}}' \
	--nodes 3 --gpus 4 --cpus 8 \
	--conf-extra SlurmdTimeout=20 --conf-extra ReturnToService=1

node_of() { sl squeue -h -j "$1" -o %N; }
# scontrol's State= (sinfo's %T still showed mixed* for n3 after slurmctld
# had logged setting it DOWN)
node_state() { sl scontrol -o show node "$1" | grep -oE ' State=[^ ]+' | cut -d= -f2; }
node_down() { [[ $(node_state "$1") == DOWN* ]] && echo yes; }
capacity() { sl "$GPUQUOTA" projects --json | jq -r .capacity; }
job_field() { # JOB FIELD: from gpuquota jobs --json
	sl "$GPUQUOTA" jobs --json |
		jq -r --argjson j "$1" --arg f "$2" '.jobs[] | select(.job_id == $j) | .[$f]'
}
expect_restarts() { # JOB N
	local r
	r=$(restarts "$1")
	[[ $r == "$2" ]] || fail "job $1: Restarts=$r, want $2"
}
wait_restarts() { # JOB N SECONDS
	_wait_eq "$3" "$2" restarts "$1" \
		|| fail "job $1: Restarts=$(restarts "$1") after $3s, want $2"
}
expect_held() { # ACCOUNT GPUS
	local h
	h=$(held_gpus "$1") || true	# its greps fail when none runs
	[[ $h == "$2" ]] || fail "$1 holds $h GPUs, want $2"
}

# ---- placement: n2 drained while a1, a3, b1 start, so a3 and b1 share n3
# (no -w: a job that names its node could not run elsewhere after a requeue)
sl scontrol update nodename=n2 state=drain reason=placement
a1=$(submit a1 team-a 4 -w n1); wait_state "$a1" RUNNING
a3=$(submit a3 team-a 2); wait_state "$a3" RUNNING
b1=$(submit b1 team-b 2); wait_state "$b1" RUNNING
sl scontrol update nodename=n2 state=resume
# n2 idle and responding (its slurmd may register after the drain): else
# c1 finds no idle node and reclaims a3 (seen once in CI)
n2_ready() { [[ $(node_state n2) == IDLE ]] && echo yes; }
_wait_eq 30 yes n2_ready || fail "n2 not IDLE after resume: $(node_state n2)"
c1=$(submit c1 team-c 2); wait_state "$c1" RUNNING
a2=$(submit a2 team-a 2); wait_state "$a2" RUNNING
[[ $(node_of "$a3") == n3 && $(node_of "$b1") == n3 ]] \
	|| fail "a3 on $(node_of "$a3"), b1 on $(node_of "$b1"): want both on n3"
[[ $(node_of "$a2") == n2 && $(node_of "$c1") == n2 ]] \
	|| fail "a2 on $(node_of "$a2"), c1 on $(node_of "$c1"): want both on n2"
settle 4
[[ $(capacity) == 12 ]] || fail "capacity $(capacity), want 12"
expect_held team-a 8
[[ $(job_field "$a3" quota) == over-quota ]] || fail "a3 is $(job_field "$a3" quota), want over-quota"
[[ $(job_field "$a2" quota) == over-quota ]] || fail "a2 is $(job_field "$a2" quota), want over-quota"
[[ $(job_field "$b1" quota) == in-quota ]] || fail "b1 is $(job_field "$b1" quota), want in-quota"
[[ $(job_field "$a1" quota) == in-quota ]] || fail "a1 is $(job_field "$a1" quota), want in-quota"
for j in "$a1" "$a2" "$a3" "$b1" "$c1"; do expect_restarts "$j" 0; done

# ---- n3 fails, with a3 and b1 on it
crash_node n3 "$a3" "$b1"
_wait_eq 90 yes node_down n3 || fail "n3 not DOWN 90 s after its slurmd was killed: $(node_state n3)"
# Slurm requeues the jobs it had there
wait_restarts "$a3" 1 30
wait_restarts "$b1" 1 30
_wait_eq 30 8 capacity || fail "capacity $(capacity) with n3 down, want 8"
# b1 (in quota) reclaims a2, exactly; it waits Slurm's requeue delay first
wait_state "$b1" RUNNING 60
wait_state "$a2" PENDING 30
wait_stable 40
expect_state "$a1" RUNNING
expect_state "$c1" RUNNING
expect_state "$a3" PENDING
[[ $(node_of "$b1") == n2 ]] || fail "b1 runs on $(node_of "$b1"), want n2"
expect_restarts "$a1" 0
expect_restarts "$c1" 0
expect_restarts "$a2" 1
expect_restarts "$a3" 1
expect_restarts "$b1" 1
expect_held team-a 4
expect_held team-b 2
expect_held team-c 2
near "$(project_field team-a fair_share)" 4 || fail "team-a fair share $(project_field team-a fair_share), want 4"
near "$(project_field team-b fair_share)" 2 || fail "team-b fair share $(project_field team-b fair_share), want 2"
near "$(project_field team-c fair_share)" 2 || fail "team-c fair share $(project_field team-c fair_share), want 2"
for j in "$a2" "$a3"; do
	[[ $(job_field "$j" band) == over-fair-share ]] \
		|| fail "job $j: band $(job_field "$j" band), want over-fair-share"
done
grep -q "gpuquota: reclaim: JobId=$b1 (team-b, in-quota, A=2, .* takes JobId=$a2 (team-a, 2 GPU" \
	"$DIR/log/slurmctld.log" || fail "no reclaim line for b1 taking a2"
n=$(grep -c 'gpuquota: reclaim:' "$DIR/log/slurmctld.log" || true)
[[ $n == 1 ]] || fail "$n reclaims, want 1"
check_invariant 15

# ---- n3 comes back: a new slurmd, as soak does
restart_slurmd n3 || fail "slurmd n3 did not start"
_wait_eq 60 12 capacity || fail "capacity $(capacity) with n3 back, want 12"
# f_a = 8: a2 (A = 6) and a3 (A = 8) run on n3's idle GPUs
wait_state "$a2" RUNNING 60
wait_state "$a3" RUNNING 60
wait_stable 40
[[ $(node_of "$a2") == n3 && $(node_of "$a3") == n3 ]] \
	|| fail "a2 on $(node_of "$a2"), a3 on $(node_of "$a3"): want both on n3"
for j in "$a1" "$b1" "$c1"; do expect_state "$j" RUNNING; done
expect_restarts "$a1" 0
expect_restarts "$c1" 0
expect_restarts "$b1" 1
expect_restarts "$a2" 1
expect_restarts "$a3" 1
expect_held team-a 8
expect_held team-b 2
expect_held team-c 2
near "$(project_field team-a fair_share)" 8 || fail "team-a fair share $(project_field team-a fair_share), want 8"
n=$(grep -c 'gpuquota: reclaim:' "$DIR/log/slurmctld.log" || true)
[[ $n == 1 ]] || fail "$n reclaims after n3 came back, want 1"
check_invariant 15
pass
