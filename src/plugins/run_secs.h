/*
 * run_secs.h - Slurm's run-seconds counters at a job's end (run_secs.c).
 */
#ifndef GPUQUOTA_PLUGIN_RUN_SECS_H
#define GPUQUOTA_PLUGIN_RUN_SECS_H

#include "shared/slurm_compat.h"

/*
 * Give back the TRES run seconds the job's start reserved
 * (acct_policy_job_begin), so GrpTRESRunMins sees them free again.  For
 * priority_p_job_end, which Slurm calls only with
 * AccountingStorageEnforce=limits, without the association manager's
 * locks held.  O(TRES x (2 + depth of its association tree)).
 */
void gq_give_back_run_secs(job_record_t *job_ptr);

#endif
