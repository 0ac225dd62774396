/*
 * pass_soon.c - whether a submit or a job's end brings the next pass
 * sooner (see pass_soon.h and docs/MODEL.md "When").
 *
 *   at_once(job)   = min(tasks, the array's own %N), 1 for other jobs
 *   kept_back(job) = hold != NONE
 *                    or (eligible and tasks_now < at_once(job))
 *   blocked(job)   = pending, eligible, not held, and the idle GPUs of
 *                    its open nodes cannot start it (victim_search.h)
 *   soon           = some job of some pool is kept back or blocked
 *
 * A job waiting for its begin time or a dependency counts when it is held
 * in advance (a limit).  An array the user throttles with %N runs on
 * Slurm's throttle alone: it counts only when gpuquota throttles it more.
 */
#include "core/pass_soon.h"
#include "core/victim_search.h"

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

/* Pending, eligible and not held by gpuquota. */
static bool _waits_free(const gq_job_t *job)
{
	return job->in.state == GQ_JOB_PENDING && !job->hold;
}

bool gq_view_blocked(const gq_view_t *v)
{
	return gq_view_any_unfit(v, _waits_free, false);
}

bool gq_pools_blocked(const gq_pools_t *p)
{
	return gq_pools_any(p, gq_view_blocked);
}

bool gq_pools_job_blocked(const gq_pools_t *p, uint32_t id, uint64_t *late)
{
	int k = p ? gq_pools_find(p, id) : -1;

	return k >= 0 && gq_view_job_unfit(p->view[k], id, _waits_free,
					   false, late);
}

bool gq_pools_pass_soon(const gq_pools_t *p)
{
	return gq_pools_keep_back(p) || gq_pools_blocked(p);
}
