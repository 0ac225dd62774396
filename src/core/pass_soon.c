/*
 * pass_soon.c - whether a submit or a job's end brings the next pass
 * sooner (see pass_soon.h and docs/MODEL.md "When").
 *
 *   at_once(job)   = min(tasks, the array's own %N), 1 for other jobs
 *   kept_back(job) = hold != NONE
 *                    or (eligible and tasks_now < at_once(job))
 *   soon           = some job of some pool is kept back
 *
 * A job waiting for its begin time or a dependency counts when it is held
 * in advance (a limit).  An array the user throttles with %N runs on
 * Slurm's throttle alone: it counts only when gpuquota throttles it more.
 */
#include "core/pass_soon.h"

bool gq_job_kept_back(const gq_job_t *job)
{
	uint32_t at_once = job->in.tasks ? job->in.tasks : 1;

	if (job->in.state == GQ_JOB_RUNNING)
		return false;
	if (job->hold != GQ_HOLD_NONE)
		return true;
	if (job->in.tasks_at_once && job->in.tasks_at_once < at_once)
		at_once = job->in.tasks_at_once;
	return job->in.state == GQ_JOB_PENDING && job->tasks_now < at_once;
}

bool gq_view_keeps_back(const gq_view_t *v)
{
	int i;

	for (i = 0; i < gq_view_njobs(v); i++)
		if (gq_job_kept_back(gq_view_job_at(v, i)))
			return true;
	return false;
}

bool gq_pools_keep_back(const gq_pools_t *p)
{
	return gq_pools_any(p, gq_view_keeps_back);
}
