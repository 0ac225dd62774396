/*
 * run_secs.h - run seconds given back at a job's end (docs/MODEL.md
 * "Slurm wiring": what gpuquota does of priority/basic's duties).
 *
 * When a job starts, Slurm reserves `TRES x time limit` (scaled by its
 * QOS's UsageFactor) in the grp_used_tres_run_secs of its QOS, its
 * partition's QOS and every association up its tree, where
 * GrpTRESRunMins looks.  Only the priority plugin gives that back
 * (priority/basic whole at the job's end, multifactor as time passes and
 * the rest at the end); left there, an account under GrpTRESRunMins is
 * blocked for good after a few short jobs.  gpuquota gives the whole
 * reservation back at the job's end, as priority/basic does.
 */
#ifndef GPUQUOTA_RUN_SECS_H
#define GPUQUOTA_RUN_SECS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The run seconds a job's start reserved, per TRES, into out[n]:
 * tres_alloc[i] x time_limit minutes x 60, times usage_factor when it is
 * >= 0 (a QOS's UsageFactor; < 0: none).  TRES `skip` (Slurm's energy,
 * which is not reserved) and counts equal to `no_consume` (a TRES the job
 * does not consume) are 0.  Computed as acct_policy.c computes what it
 * reserves (unsigned, wrapping), so exactly that is given back.
 */
void gq_run_secs_reserved(const uint64_t *tres_alloc, int n,
			  uint32_t time_limit, double usage_factor, int skip,
			  uint64_t no_consume, uint64_t *out);

/*
 * Give `give` back from `used` (n TRES), never below 0.  Returns the
 * number of TRES that would have gone below 0 (set to 0 instead).
 */
int gq_run_secs_give_back(uint64_t *used, const uint64_t *give, int n);

#endif
