#!/usr/bin/env bash
# test_reclaim_wait with the reclaim inside Slurm's main scheduling cycle
# (sched/builtin: no backfill).  The cycle queued c1 before gpuquota held
# it and puts c1's priority back when it reaches it; gpuquota must still
# know the hold as its own, write it again at once and release it when a1
# runs (before, the hold faded into "Dependency" and c1 could start).
# shellcheck disable=SC2034 # read by test_reclaim_wait.sh
RW_CONF=(--conf-extra SchedulerType=sched/builtin)
# shellcheck source-path=SCRIPTDIR source=test_reclaim_wait.sh
. "$(dirname "$0")/test_reclaim_wait.sh"
