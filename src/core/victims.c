/*
 * victims.c - victim candidate sets with floors.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <math.h>
#include <stdlib.h>

#include "core/fairshare.h"
#include "core/victims.h"

/* lowest Slurm order first; among equals the youngest (latest start) */
static int _cmp_walk(const void *a, const void *b, void *ctx)
{
	const gq_job_t *jobs = ctx;
	const gq_job_t *x = &jobs[*(const int *)a];
	const gq_job_t *y = &jobs[*(const int *)b];

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if (x->start_time != y->start_time)
		return x->start_time > y->start_time ? -1 : 1;
	if (x->id != y->id)
		return x->id > y->id ? -1 : 1;
	return 0;
}

int gq_victim_eligible(const gq_job_t *job, int64_t now, int min_runtime)
{
	if (job->state != GQ_JOB_RUNNING || !job->requeueable || !job->gpus)
		return 0;
	if (min_runtime > 0 && now - job->start_time < min_runtime)
		return 0;
	return 1;
}

void gq_victims_mark(gq_job_t *jobs, int *run, int n, double alloc,
		     double quota, double share, int64_t now, int min_runtime)
{
	double left_quota = alloc - quota;
	double left_fair = alloc - fmax(quota, share);
	double left_over = alloc - quota;
	int i;

	qsort_r(run, n, sizeof(*run), _cmp_walk, jobs);
	for (i = 0; i < n; i++) {
		gq_job_t *job = &jobs[run[i]];

		job->victim = 0;
		/* the same walk, eligibility aside: which GPUs are the
		 * project's over-quota ones (what users see) */
		job->over_quota = job->gpus && job->gpus <= left_over + GQ_EPS;
		if (job->over_quota)
			left_over -= job->gpus;
		if (!gq_victim_eligible(job, now, min_runtime))
			continue;
		if (job->gpus <= left_quota + GQ_EPS) {
			job->victim |= GQ_VICTIM_QUOTA;
			left_quota -= job->gpus;
		}
		if (job->gpus <= left_fair + GQ_EPS) {
			job->victim |= GQ_VICTIM_FAIR;
			left_fair -= job->gpus;
		}
	}
}

double gq_overservice(double alloc, double quota, double share)
{
	double floor = fmax(quota, share);

	if (floor <= GQ_EPS)
		return alloc > 0 ? INFINITY : 0;
	return alloc / floor;
}
