#!/usr/bin/env bash
# A gang's reclaim keeps its victims' nodes from in-quota jobs too
# (docs/MODEL.md "Holds"): the gang needs every GPU freed there, and a
# one-GPU job tried before it would take one.  2 nodes x 2 GPUs, grace
# time 20 s.  team-b (quota 0) runs b1..b4, one GPU each; b1 leaves 5 s
# after its SIGTERM, b2..b4 ignore it and stay for their grace time.
# team-a (quota 4) asks 2 GPUs on each of 2 nodes and reclaims all four.
# team-c (quota 2) then submits c1 (1 GPU, in quota): while the victims
# leave it waits with the gang's text, so b1's GPU stays free; team-a's
# job runs on both nodes once b2..b4 are gone, and c1 never ran before.
# slurmctld is stopped (SIGTERM) and started again while the reclaim is in
# flight: the rebuilt reclaim holds c1 again.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 4},
                          {"name": "team-b", "gpu_quota": 0},
                          {"name": "team-c", "gpu_quota": 2}],
             "settings": {"grace_time": 20}}' --conf-extra KillWait=5

victim() { # NAME NODE TERM_ACTION
	sl sbatch --parsable -J "$1" -A team-b --gres=gpu:1 -w "$2" \
		--wrap "trap '$3' TERM; sleep 3600 & wait; sleep 3600"
}
b1=$(victim b1 n1 'sleep 5; exit 0'); wait_state "$b1" RUNNING
b2=$(victim b2 n1 ''); wait_state "$b2" RUNNING
b3=$(victim b3 n2 ''); wait_state "$b3" RUNNING
b4=$(victim b4 n2 ''); wait_state "$b4" RUNNING

a=$(submit a team-a 2 -N 2)
reclaimed() { grep -q "gpuquota: reclaim.*JobId=$a .*takes JobId=$b1 " "$DIR/log/slurmctld.log" && echo yes; }
_wait_eq 20 yes reclaimed || fail "team-a's gang did not reclaim b1"
c1=$(submit c1 team-c 1)
gang_text="GPUs are being reclaimed for job $a of team-a, which needs every GPU freed on its nodes"
_wait_eq 10 yes reason_has "$c1" "$gang_text" \
	|| fail "c1 not held for the gang: $(sl squeue -h -j "$c1" -o %r)"

"$CLUSTER" ctld-restart --dir "$DIR" --signal TERM >/dev/null 2>&1 \
	|| fail "slurmctld did not restart"
_wait_eq 15 yes reason_has "$c1" "$gang_text" \
	|| fail "after the restart c1 is not held for the gang: $(sl squeue -h -j "$c1" -o %r)"

# b1 leaves; its GPU stays free for the gang while b2..b4 stay
b1_gone() { [[ $(state "$b1") != RUNNING && $(state "$b1") != COMPLETING ]] && echo yes; }
_wait_eq 15 yes b1_gone || fail "b1 did not leave: $(state "$b1")"
settle 4
expect_state "$c1" PENDING
expect_state "$a" PENDING
[[ $(reason_has "$c1" "$gang_text") == yes ]] \
	|| fail "c1 no longer held for the gang: $(sl squeue -h -j "$c1" -o %r)"

# the victims' grace time ends: the gang runs on both nodes; c1 never ran
wait_state "$a" RUNNING 60
[[ $(sl squeue -h -j "$a" -o %N) == "n[1-2]" ]] \
	|| fail "team-a's job runs on $(sl squeue -h -j "$a" -o %N), want n[1-2]"
[[ $(restarts "$c1") == 0 ]] || fail "c1 ran and was requeued"
! grep -qE "(Allocate|[Ss]tarted) JobId=$c1 " "$DIR/log/slurmctld.log" \
	|| fail "c1 was started while GPUs were reclaimed for the gang"
[[ $(held_gpus team-a) == 4 ]] || fail "team-a holds $(held_gpus team-a), want 4"
check_invariant 15
pass
