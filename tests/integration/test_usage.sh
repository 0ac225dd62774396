#!/usr/bin/env bash
# Fair share that remembers (settings.usage_half_life 60 s, usage_weight
# 4): the project that borrowed before gets the smaller share after, with
# equal weights, its usage survives a slurmctld restart, and sprio's
# SITE (gpuquota's band and place; multifactor's factors beside it)
# shows its effect inside a band.
# 1 node x 4 GPUs (C = 4), team-a and team-b quota 1 each.  team-a runs 4
# jobs (3 GPUs above its quota) for about 40 s while team-b has nothing:
# U_a = 3 x (1 - 2^(-40/60)) x 60 / ln 2, about 96 GPU-s.  Then both ask
# for 4: deserved 1 + 1, the surplus 2 split by weights 1 / (1 + 4 U_a /
# (4 x 60)) = 0.38 and 1: f_a about 1.55, f_b about 2.45 (without usage:
# 2 and 2).  Quotas are untouched.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# team-c (quota 0, not in the config) fills the node below: with
# slurmdbd (GQ_ACCOUNTING=1) its account must exist
GQ_EXTRA_ACCOUNTS=team-c
export GQ_EXTRA_ACCOUNTS
up_cluster '{"projects": [{"name": "team-a", "gpu_quota": 1},
                          {"name": "team-b", "gpu_quota": 1}],
             "settings": {"usage_half_life": 60, "usage_weight": 4}}' \
	--nodes 1 --gpus 4 --cpus 8

for i in 1 2 3 4; do a[i]=$(submit "a$i" team-a 1); done
wait_held team-a 4
sleep 40
for i in 1 2 3 4; do sl scancel "${a[i]}"; done
wait_held team-a 0
for i in 1 2 3 4; do
	submit "a$((i + 4))" team-a 1 >/dev/null
	submit "b$i" team-b 1 >/dev/null
done
settle 4
fa=$(project_field team-a fair_share)
fb=$(project_field team-b fair_share)
ua=$(project_field team-a usage_gpu_seconds)
echo "$TEST: fair shares team-a $fa, team-b $fb; team-a's usage $ua GPU-s (the command's, from the file)"
awk -v a="$fa" -v b="$fb" 'BEGIN { exit !(a < 1.8 && b > 2.2 && a + b > 3.99 && a + b < 4.01) }' \
	|| fail "team-a $fa, team-b $fb: the project that borrowed should get the smaller share"
awk -v u="$ua" 'BEGIN { exit !(u > 20) }' || fail "team-a's usage is $ua"
[[ $(project_field team-a gpu_quota) == 1 ]] || fail "team-a's quota changed"
sl "$GPUQUOTA" projects | grep -q 'USAGE(GPU-h)' || fail "no usage column"
# slurmctld's own numbers: the reasons of the pending jobs
grep -q 'gpuquota: usage' "$DIR/log/slurmctld.log" && fail "usage file trouble: $(grep 'gpuquota: usage' "$DIR/log/slurmctld.log")"
[[ -s $(state_dir)/gpuquota-usage.json ]] || fail "no usage file in StateSaveLocation"

# a restart keeps it (read at init)
# an orderly restart (TERM): slurmctld saves its jobs, gpuquota its usage
"$CLUSTER" ctld-restart --dir "$DIR" --signal TERM >/dev/null 2>&1 || fail "slurmctld did not restart"
_wait_eq 30 1 bash -c "grep -c 'gpuquota: usage of [0-9]* projects read from' '$DIR/log/slurmctld.log'" \
	|| fail "the usage file was not read at start: $(grep 'gpuquota' "$DIR/log/slurmctld.log" | tail -3)"
settle 4
fa=$(project_field team-a fair_share)
awk -v a="$fa" 'BEGIN { exit !(a < 1.9) }' || fail "after the restart team-a's fair share is $fa"

# sprio shows it: SITE, the band and the place inside it, follows the
# tilted weight (the key above quota is (A_k - q) / w').  team-c (not in
# the config: quota 0) fills the node; then a9 and b9 ask 2 GPUs each,
# A - q = 1 for both, and pend above their fair shares (f_a, f_b < 2):
# the same band, keys 1 / w'_a > 1 and 1, so b9 ranks higher.  Without
# usage they would be equal.
# one account a call: 24.11's scancel takes one (22.05 took a list)
sl scancel -A team-a
sl scancel -A team-b
wait_held team-a 0
wait_held team-b 0
c1=$(submit c1 team-c 4)
wait_state "$c1" RUNNING
a9=$(submit a9 team-a 2)
b9=$(submit b9 team-b 2)
settle 4
read -r sa < <(sl sprio -h -j "$a9" -o '%S')
read -r sb < <(sl sprio -h -j "$b9" -o '%S')
echo "$TEST: sprio SITE: a9 $sa, b9 $sb"
# bands: over-fair-share 1..700000000, fair-share to 1400000000
band() { echo $((($1 - 1) / 700000000)); }
[[ -n $sa && -n $sb && $(band "$sa") == $(band "$sb") ]] \
	|| fail "a9 and b9 should be in one band: SITE $sa and $sb"
((sb > sa)) || fail "b9's SITE $sb should be above a9's $sa (team-a borrowed before)"
pass
