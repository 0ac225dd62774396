/*
 * queue.c - A_k, bands, holds, demand and department bounds (see queue.h).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <math.h>
#include <stdlib.h>

#include "core/fairshare.h"
#include "core/queue.h"

/* A project's pending queue: eligible before waiting, then Slurm's order
 * (higher first), then oldest submit, then lowest id. */
static int _cmp_queue(const void *a, const void *b, void *ctx)
{
	const gq_job_t *jobs = ctx;
	const gq_job_in_t *x = &jobs[*(const int *)a].in;
	const gq_job_in_t *y = &jobs[*(const int *)b].in;

	if (x->state != y->state)
		return x->state == GQ_JOB_PENDING ? -1 : 1;
	if (x->order != y->order)
		return x->order > y->order ? -1 : 1;
	if (x->submit_time != y->submit_time)
		return x->submit_time < y->submit_time ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;
}

/* Does x go before y in the order Slurm tries jobs: priority, older, id? */
static bool _before(const gq_job_t *x, const gq_job_t *y)
{
	if (x->priority != y->priority)
		return x->priority > y->priority;
	if (x->in.submit_time != y->in.submit_time)
		return x->in.submit_time < y->in.submit_time;
	return x->in.id < y->in.id;
}

/*
 * A job that would bring its project to A = cum: its band, key and
 * priority.  in_ancestors: its department stays within quota.  A job
 * without GPUs is not ordered by gpuquota.
 */
static void _set_band(const gq_project_t *p, gq_job_t *job, double cum,
		      bool in_ancestors)
{
	job->cum = cum;
	job->band = job->in.gpus ?
		    gq_band_of(cum, p->quota, p->share, in_ancestors) :
		    GQ_BAND_NONE;
	job->key = gq_band_key(job->band, cum, p->quota, p->weight);
	job->priority = gq_band_priority(job->band, job->key);
}

/*
 * The tasks of a pending array record that Slurm may start at once: all
 * of them in one scheduling cycle, or as many as the array's own %N
 * throttle lets run.  1 for any other job.
 */
static uint32_t _at_once(const gq_job_t *job)
{
	uint32_t n = job->in.tasks ? job->in.tasks : 1;

	if (job->in.tasks_at_once && job->in.tasks_at_once < n)
		n = job->in.tasks_at_once;
	return n;
}

/*
 * GPUs a job adds to A: its tasks that may start before the next pass
 * (tasks_now), so that its band never lets a task reclaim past quota and
 * the jobs behind it see them.  A held job adds nothing; its band is
 * that of all it asked for (_asked).
 */
static double _size(const gq_job_t *job)
{
	return (double)job->in.gpus * job->tasks_now;
}

static double _asked(const gq_job_t *job)
{
	return (double)job->in.gpus * _at_once(job);
}

/*
 * How many of the tasks it may start now (tasks_now) fit under `bound` (a
 * limit, or a quota for work that cannot be requeued) on top of
 * `before`: tasks_now shrinks to them.  Slurm starts an array's tasks one
 * by one and the plugin throttles the array to tasks_now (%N), so a wide
 * array runs part of its tasks rather than none or all.
 */
static void _fit(gq_job_t *job, double before, double bound)
{
	double room = bound - before + GQ_EPS, n;

	if (room < job->in.gpus) {
		job->tasks_now = 0;
		return;
	}
	n = floor(room / job->in.gpus);
	if (n < job->tasks_now)
		job->tasks_now = (uint32_t)n;
}

/*
 * What keeps a job from starting, its project or department at `before`
 * without it: `limit` (held as past_limit), or `quota` for work that
 * cannot be requeued.  Shrinks tasks_now to what fits; held when no task
 * fits.
 */
static gq_hold_t _hold(gq_job_t *job, double before, double limit,
		       double quota, gq_hold_t past_limit)
{
	if (!job->in.gpus)
		return GQ_HOLD_NONE;
	_fit(job, before, limit);
	if (!job->tasks_now)
		return past_limit;
	if (!job->in.requeueable) {
		_fit(job, before, quota);
		if (!job->tasks_now)
			return GQ_HOLD_NOT_REQUEUEABLE;
	}
	return GQ_HOLD_NONE;
}

/* The project's bounds: tasks_now starts from all the job may start. */
static gq_hold_t _project_hold(const gq_project_t *p, gq_job_t *job,
			       double before)
{
	job->tasks_now = _at_once(job);
	return _hold(job, before, p->limit, p->quota, GQ_HOLD_LIMIT);
}

/* The department's bounds, after the project's: tasks_now shrinks more. */
static gq_hold_t _dept_hold(const gq_dept_t *d, gq_job_t *job, double before)
{
	return _hold(job, before, d->limit, d->quota, GQ_HOLD_DEPT_LIMIT);
}

static bool _eligible(const gq_job_t *job)
{
	return job->in.state == GQ_JOB_PENDING;
}


void gq_queue_demand(gq_registry_t *r, gq_job_t *jobs,
		     const gq_buckets_t *queued)
{
	int i, k;

	for (i = 0; i < r->nproj; i++) {
		gq_project_t *p = &r->proj[i];
		int *q = gq_bucket(queued, i), n = gq_bucket_len(queued, i);
		double cum = p->alloc;

		qsort_r(q, n, sizeof(*q), _cmp_queue, jobs);
		p->pending = 0;
		for (k = 0; k < n; k++)
			jobs[q[k]].tasks_now = _at_once(&jobs[q[k]]);
		for (k = 0; k < n && _eligible(&jobs[q[k]]); k++) {
			const gq_job_in_t *in = &jobs[q[k]].in;

			if (_project_hold(p, &jobs[q[k]], cum))
				continue;
			cum += _size(&jobs[q[k]]);
			p->pending += (uint64_t)in->gpus * in->tasks;
			jobs[q[k]].demand = true;
		}
	}
}

/*
 * The next job of a project outside any department, its project at *cum
 * before it.
 */
static void _project_step(const gq_project_t *p, gq_job_t *job, double *cum)
{
	double next;

	job->hold = _eligible(job) ?
		    _project_hold(p, job, *cum) : GQ_HOLD_NONE;
	next = *cum + (job->hold ? _asked(job) : _size(job));
	_set_band(p, job, next, true);
	if (_eligible(job) && !job->hold)
		*cum = next;
}

/*
 * A job that will be eligible on its own (its begin time passes: a
 * requeued job) may start before the next pass sees it eligible: hold it
 * now if it would pass a limit on top of the eligible jobs and of the
 * jobs of this kind before it (*wcum, *dwcum: project, department; dp
 * NULL outside departments).  Not demand, adds nothing to A.
 */
static void _begins_later_hold(const gq_project_t *p, const gq_dept_t *dp,
			       gq_job_t *job, double *wcum, double *dwcum)
{
	if (!job->in.begins_later || _eligible(job))
		return;
	job->hold = _project_hold(p, job, *wcum);
	if (!job->hold && dp)
		job->hold = _dept_hold(dp, job, *dwcum);
	if (job->hold)
		return;
	*wcum += _size(job);
	if (dp)
		*dwcum += _size(job);
}

/* One department's walk: its projects' queues merged in Slurm's order. */
typedef struct {
	gq_project_t *p;
	const int *q;
	int n, head;
	double cum;
} gq_lane_t;

/*
 * The head of a lane as Slurm would see it now: its band (demoted when
 * the department would pass its quota) and priority.  Jobs the project
 * holds are passed over first.
 */
static gq_job_t *_lane_head(gq_lane_t *l, gq_job_t *jobs, const gq_dept_t *d,
			    double dcum)
{
	while (l->head < l->n) {
		gq_job_t *job = &jobs[l->q[l->head]];

		if (!_eligible(job))
			return NULL;	/* waiting jobs come last */
		job->hold = _project_hold(l->p, job, l->cum);
		if (!job->hold) {
			/* the band of what fits the project; the department's
			 * bounds may shrink it further (a lower band at most) */
			_set_band(l->p, job, l->cum + _size(job),
				  dcum + _size(job) <= d->quota + GQ_EPS);
			return job;
		}
		_set_band(l->p, job, l->cum + _asked(job), false);
		l->head++;
	}
	return NULL;
}

static int _walk_dept(gq_registry_t *r, gq_job_t *jobs,
		      const gq_buckets_t *queued, int d)
{
	gq_dept_t *dp = &r->dept[d];
	gq_lane_t *lane = malloc(sizeof(*lane) * (r->nproj + 1));
	double dcum = dp->alloc, dwcum;
	int i, k, nl = 0;

	if (!lane)
		return -1;
	for (i = 0; i < r->nproj; i++) {
		if (r->proj[i].department != d)
			continue;
		lane[nl].p = &r->proj[i];
		lane[nl].q = gq_bucket(queued, i);
		lane[nl].n = gq_bucket_len(queued, i);
		lane[nl].head = 0;
		lane[nl++].cum = r->proj[i].alloc;
	}
	while (true) {
		gq_job_t *best = NULL, *job;
		gq_lane_t *from = NULL;

		for (k = 0; k < nl; k++)
			if ((job = _lane_head(&lane[k], jobs, dp, dcum)) &&
			    (!best || _before(job, best))) {
				best = job;
				from = &lane[k];
			}
		if (!best)
			break;
		from->head++;
		best->hold = _dept_hold(dp, best, dcum);
		if (best->hold)
			continue;
		from->cum += _size(best);
		dcum += _size(best);
	}
	/* what is not eligible yet: bands from where the sums ended */
	dwcum = dcum;
	for (k = 0; k < nl; k++) {
		double wcum = lane[k].cum;

		for (i = lane[k].head; i < lane[k].n; i++) {
			gq_job_t *job = &jobs[lane[k].q[i]];
			double next = lane[k].cum + _size(job);

			_set_band(lane[k].p, job, next,
				  dcum + _size(job) <= dp->quota + GQ_EPS);
			job->hold = GQ_HOLD_NONE;
			_begins_later_hold(lane[k].p, dp, job, &wcum, &dwcum);
		}
		lane[k].p->tail = lane[k].cum;
	}
	dp->tail = dcum;
	free(lane);
	return 0;
}

int gq_queue_walk(gq_registry_t *r, gq_job_t *jobs, const gq_buckets_t *queued)
{
	int i, k, d;

	for (i = 0; i < r->nproj; i++) {
		gq_project_t *p = &r->proj[i];
		int *q = gq_bucket(queued, i);
		double cum = p->alloc, wcum = -1, unused = 0;

		if (p->department >= 0)
			continue;
		for (k = 0; k < gq_bucket_len(queued, i); k++) {
			gq_job_t *job = &jobs[q[k]];

			_project_step(p, job, &cum);
			if (!_eligible(job)) {	/* waiting jobs come last */
				if (wcum < 0)
					wcum = cum;
				_begins_later_hold(p, NULL, job, &wcum,
						   &unused);
			}
		}
		p->tail = cum;
	}
	for (d = 0; d < r->ndept; d++)
		if (_walk_dept(r, jobs, queued, d))
			return -1;
	return 0;
}

bool gq_queue_late(gq_registry_t *r, gq_job_t *job)
{
	gq_project_t *p = &r->proj[job->project];
	gq_dept_t *dp = p->department >= 0 ? &r->dept[p->department] : NULL;

	job->tasks_now = _at_once(job);
	if (p->tail < p->alloc)
		p->tail = p->alloc;
	if (!dp) {
		double wcum = p->tail, unused = 0;

		_project_step(p, job, &p->tail);
		_begins_later_hold(p, NULL, job, &wcum, &unused);
		return _eligible(job) && !job->hold;
	}
	if (dp->tail < dp->alloc)
		dp->tail = dp->alloc;
	job->hold = GQ_HOLD_NONE;
	if (!_eligible(job)) {
		double wcum = p->tail, dwcum = dp->tail;

		_set_band(p, job, p->tail + _size(job),
			  dp->tail + _size(job) <= dp->quota + GQ_EPS);
		_begins_later_hold(p, dp, job, &wcum, &dwcum);
		return false;
	}
	if (!(job->hold = _project_hold(p, job, p->tail)))
		job->hold = _dept_hold(dp, job, dp->tail);
	if (job->hold) {
		_set_band(p, job, p->tail + _asked(job), false);
		return false;
	}
	_set_band(p, job, p->tail + _size(job),
		  dp->tail + _size(job) <= dp->quota + GQ_EPS);
	p->tail += _size(job);
	dp->tail += _size(job);
	return true;
}
