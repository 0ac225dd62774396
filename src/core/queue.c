/*
 * queue.c - A_k, bands, holds, demand and department bounds (see queue.h).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fairshare.h"
#include "core/queue.h"
#include "core/requeue_budget.h"
#include "tools/sort.h"

/* gq_queue_cmp of two queued jobs by index, for gq_sort_ints */
static int _cmp_queue(const void *a, const void *b, void *ctx)
{
	const gq_job_t *jobs = ctx;

	return gq_queue_cmp(&jobs[*(const int *)a].in,
			    &jobs[*(const int *)b].in);
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
 * The band, key and priority of a job of `size` GPUs after the jobs
 * summed in *s (first fit): in quota when it fits the quota on top of the
 * jobs banded in quota before it (and in_ancestors: its department stays
 * within its quota), fair share when it fits the fair share on top of
 * those banded in quota or fair share, else over.  A job too large for a
 * band does not count in that band's sum, so it does not push the
 * smaller jobs behind it out of the band they fit.  Its A (cum) is the
 * sum its band was judged on.  A job without GPUs is not ordered by
 * gpuquota.
 */
static void _set_band(const gq_project_t *p, gq_job_t *job,
		      const gq_sums_t *s, double size, bool in_ancestors)
{
	double inq = s->inq + size, fair = s->fair + size;

	job->band = job->in.gpus ?
		    gq_band_of(inq, fair, p->quota, p->share, in_ancestors) :
		    GQ_BAND_NONE;
	job->cum = job->band == GQ_BAND_IN_QUOTA ? inq :
		   job->band == GQ_BAND_FAIR_SHARE ? fair : s->all + size;
	/* the weight the surplus was split by: usage tilts it (fairshare.c) */
	job->key = gq_band_key(job->band, job->cum, p->quota,
			       p->weight * p->tilt);
	job->priority = gq_band_priority(job->band, job->key);
}

static void _sums_start(gq_sums_t *s, double alloc)
{
	s->all = s->inq = s->fair = alloc;
	s->later = 0;
}

/* What a limit bounds a job by: all that may start before it. */
static double _bounded(const gq_sums_t *s)
{
	return s->all + s->later;
}

/* A job that may start: it counts in all, and in its band's sums. */
static void _sums_add(gq_sums_t *s, const gq_job_t *job)
{
	double size = (double)job->in.gpus * job->tasks_now;

	s->all += size;
	if (job->band == GQ_BAND_IN_QUOTA)
		s->inq += size;
	if (job->band <= GQ_BAND_FAIR_SHARE)
		s->fair += size;
}

/* Jobs started since the pass raised alloc: no sum below it. */
static void _sums_at_least(gq_sums_t *s, double alloc)
{
	if (s->all < alloc)
		s->all = alloc;
	if (s->inq < alloc)
		s->inq = alloc;
	if (s->fair < alloc)
		s->fair = alloc;
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

/*
 * An array split at its band (first fit, task by task): a pending array
 * record carries one priority, that of its first task, but its tasks are
 * as many jobs.  When the idle GPUs do not cover all it may start now
 * (so some tasks would start only by reclaim), tasks_now shrinks to the
 * tasks that fit the band its first task fits: in quota (the project's
 * quota on top of *s, and `dept_room`, what its department has left of
 * its quota), else fair share.  The plugin throttles the array to them;
 * the tasks after them are banded at the next pass.  So an array wider
 * than what is left of its quota still reclaims its in-quota part, and
 * no task of it reclaims past the band it was judged in.  O(1).
 */
static void _split(const gq_project_t *p, gq_job_t *job, const gq_sums_t *s,
		   double dept_room, double idle)
{
	double g = job->in.gpus, room;

	if (!job->in.gpus || job->tasks_now <= 1 ||
	    g * job->tasks_now <= idle + GQ_EPS)
		return;
	if (s->inq + g <= p->quota + GQ_EPS && g <= dept_room + GQ_EPS)
		room = fmin(p->quota - s->inq, dept_room);
	else if (s->fair + g <= p->share + GQ_EPS)
		room = p->share - s->fair;
	else
		return;
	_fit(job, 0, room);
}

/*
 * The project's bounds: tasks_now starts from all the job may start.  A
 * project that lost its requeue budget borrows no more: its job waits to
 * fit in its quota, as work that cannot be requeued does.
 */
static gq_hold_t _project_hold(const gq_project_t *p, gq_job_t *job,
			       double before)
{
	double cap = gq_requeue_budget_cap(p);
	gq_hold_t h;

	job->tasks_now = _at_once(job);
	h = _hold(job, before, p->limit, p->quota, GQ_HOLD_LIMIT);
	if (h || !job->in.gpus || cap < 0)
		return h;
	_fit(job, before, cap);
	return job->tasks_now ? GQ_HOLD_NONE : GQ_HOLD_BUDGET;
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


/*
 * Can no eligible job of the project be held, whatever A it meets?  No
 * gpu_limit (its fit passes at any A), and none that cannot be requeued
 * (held past quota): then every eligible job is demand.
 */
static bool _holds_free(const gq_project_t *p, const gq_queue_seen_t *s)
{
	return !s->hard && p->limit == INFINITY;
}

void gq_queue_demand(gq_registry_t *r, const gq_job_t *jobs,
		     const gq_buckets_t *queued, uint8_t *demand,
		     const gq_queue_seen_t *seen)
{
	int i, k;

	for (i = 0; i < r->nproj; i++) {
		gq_project_t *p = &r->proj[i];
		int *q = gq_bucket(queued, i), n = gq_bucket_len(queued, i);
		double cum = p->alloc + p->landing;

		if (!seen || seen[i].unordered)
			gq_sort_ints(q, n, _cmp_queue, (void *)jobs);
		if (seen && _holds_free(p, &seen[i])) {
			/* demand[] as the grouping wrote it: eligible */
			p->pending = seen[i].pending;
			continue;
		}
		p->pending = 0;
		for (k = 0; k < n; k++)
			demand[q[k]] = false;
		for (k = 0; k < n && _eligible(&jobs[q[k]]); k++) {
			const gq_job_in_t *in = &jobs[q[k]].in;
			/* what the project's holds read of the job: the
			 * record is the walk's to write */
			gq_job_t job = {
				.in.gpus = in->gpus,
				.in.tasks = in->tasks,
				.in.tasks_at_once = in->tasks_at_once,
				.in.requeueable = in->requeueable,
			};

			/* a landing's GPUs are in cum already */
			if (!jobs[q[k]].landing) {
				if (_project_hold(p, &job, cum))
					continue;
				cum += _size(&job);
			}
			p->pending += (uint64_t)in->gpus * in->tasks;
			demand[q[k]] = true;
		}
	}
}

/* A job whose band and hold are settled: listed when it may reclaim. */
static void _settled(gq_reclaimers_t *l, const gq_job_t *jobs,
		     const gq_job_t *job)
{
	if (l->job && _eligible(job) && !job->hold &&
	    job->band <= GQ_BAND_FAIR_SHARE)
		l->job[l->n++] = (int)(job - jobs);
}

static int _cmp_index(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return *(const int *)a - *(const int *)b;
}

/*
 * A queued job as the walk comes to it: whether it is demand
 * (gq_queue_demand), and the tasks it may start at once, which a job not
 * eligible yet is banded on.
 */
static void _walk_start(gq_job_t *job, const uint8_t *demand, int k)
{
	job->demand = demand[k];
	job->tasks_now = _at_once(job);
}

/*
 * The next job of a project outside any department, its project at *s
 * before it.
 */
static void _project_step(const gq_project_t *p, gq_job_t *job, gq_sums_t *s,
			  double idle)
{
	job->hold = _eligible(job) ?
		    _project_hold(p, job, _bounded(s)) : GQ_HOLD_NONE;
	if (_eligible(job) && !job->hold)
		_split(p, job, s, INFINITY, idle);
	_set_band(p, job, s, job->hold ? _asked(job) : _size(job), true);
	if (_eligible(job) && !job->hold)
		_sums_add(s, job);
}

/*
 * A job that will be eligible on its own (its begin time passes: a
 * requeued job) may start before the next pass sees it eligible: hold it
 * now if it would pass a limit on top of the eligible jobs and of the
 * jobs of this kind before it (*s, *ds: project, department; dp, ds NULL
 * outside departments).  Not demand, adds nothing to A; let through, it
 * counts in s->later (and ds->later), which bounds the jobs submitted
 * before the next pass (gq_queue_late) as it bounds the jobs after it.
 */
static void _begins_later_hold(const gq_project_t *p, const gq_dept_t *dp,
			       gq_job_t *job, gq_sums_t *s, gq_sums_t *ds)
{
	job->later = false;
	if (!job->in.begins_later || _eligible(job))
		return;
	job->hold = _project_hold(p, job, _bounded(s));
	if (!job->hold && dp)
		job->hold = _dept_hold(dp, job, _bounded(ds));
	if (job->hold || !job->in.gpus)
		return;
	job->later = true;
	s->later += _size(job);
	if (ds)
		ds->later += _size(job);
}

/*
 * A moved job not running again yet (job->landing, move.c): its GPUs stay
 * its project's, as while it ran.  The sums start with them (the walk's
 * a_p + landing), so it is walked first wherever it stands: in quota
 * when its project and department held no more than their quotas, and
 * adding nothing again.  Its limits read the sums without it.  The jobs
 * behind it meet the project as if it still ran.  dp NULL outside
 * departments.
 */
static void _landing_step(const gq_project_t *p, const gq_dept_t *dp,
			  gq_job_t *job, const gq_sums_t *s,
			  const gq_sums_t *ds)
{
	double own = _asked(job);

	job->later = false;
	job->hold = _project_hold(p, job, _bounded(s) - own);
	if (!job->hold && dp)
		job->hold = _dept_hold(dp, job, _bounded(ds) - own);
	_set_band(p, job, s, 0, !dp || ds->inq <= dp->quota + GQ_EPS);
}

/* One department's walk: its projects' queues merged in Slurm's order. */
typedef struct {
	gq_project_t *p;
	const int *q;
	int n, head;
	gq_sums_t s;
} gq_lane_t;

/*
 * The head of a lane as Slurm would see it now: its band (demoted when
 * the department would pass its quota) and priority.  Jobs the project
 * holds are passed over first.
 */
static gq_job_t *_lane_head(gq_lane_t *l, gq_job_t *jobs,
			    const uint8_t *demand, const gq_dept_t *d,
			    const gq_sums_t *ds, double idle)
{
	while (l->head < l->n) {
		gq_job_t *job = &jobs[l->q[l->head]];

		_walk_start(job, demand, l->q[l->head]);
		if (!_eligible(job))
			return NULL;	/* waiting jobs come last */
		if (job->landing) {
			_landing_step(l->p, d, job, &l->s, ds);
			return job;
		}
		job->hold = _project_hold(l->p, job, _bounded(&l->s));
		if (!job->hold) {
			/* the band of what fits the project; the department's
			 * bounds may shrink it further (a lower band at most) */
			_split(l->p, job, &l->s, d->quota - ds->inq, idle);
			_set_band(l->p, job, &l->s, _size(job),
				  ds->inq + _size(job) <= d->quota + GQ_EPS);
			return job;
		}
		_set_band(l->p, job, &l->s, _asked(job), false);
		l->head++;
	}
	return NULL;
}

/* What is not eligible yet in a lane: bands from where the sums ended. */
static void _lane_rest(gq_lane_t *l, gq_job_t *jobs, const uint8_t *demand,
		       const gq_dept_t *dp, gq_sums_t *ds)
{
	int i;

	for (i = l->head; i < l->n; i++) {
		gq_job_t *job = &jobs[l->q[i]];

		_walk_start(job, demand, l->q[i]);
		if (job->landing) {
			_landing_step(l->p, dp, job, &l->s, ds);
			continue;
		}
		_set_band(l->p, job, &l->s, _size(job),
			  ds->inq + _size(job) <= dp->quota + GQ_EPS);
		job->hold = GQ_HOLD_NONE;
		_begins_later_hold(l->p, dp, job, &l->s, ds);
	}
	l->p->tail = l->s;
}

static int _walk_dept(gq_registry_t *r, gq_job_t *jobs,
		      const gq_buckets_t *queued, const uint8_t *demand,
		      gq_reclaimers_t *l, int d)
{
	gq_dept_t *dp = &r->dept[d];
	gq_lane_t *lane = malloc(sizeof(*lane) * (r->nproj + 1));
	gq_sums_t ds;
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
		_sums_start(&lane[nl++].s,
			    r->proj[i].alloc + r->proj[i].landing);
	}
	_sums_start(&ds, dp->alloc + dp->landing);
	while (true) {
		gq_job_t *best = NULL, *job;
		gq_lane_t *from = NULL;

		for (k = 0; k < nl; k++)
			if ((job = _lane_head(&lane[k], jobs, demand, dp, &ds,
					      r->idle)) &&
			    (!best || _before(job, best))) {
				best = job;
				from = &lane[k];
			}
		if (!best)
			break;
		from->head++;
		if (!best->landing)
			best->hold = _dept_hold(dp, best, _bounded(&ds));
		_settled(l, jobs, best);
		if (best->hold || best->landing)
			continue;
		_sums_add(&from->s, best);
		_sums_add(&ds, best);
	}
	for (k = 0; k < nl; k++)
		_lane_rest(&lane[k], jobs, demand, dp, &ds);
	dp->tail = ds;
	free(lane);
	return 0;
}

int gq_queue_walk(gq_registry_t *r, gq_job_t *jobs, const gq_buckets_t *queued,
		  const uint8_t *demand, gq_reclaimers_t *reclaimers)
{
	gq_reclaimers_t l = { reclaimers->job, 0 };
	int i, k, d;

	for (i = 0; i < r->nproj; i++) {
		gq_project_t *p = &r->proj[i];
		int *q = gq_bucket(queued, i);
		gq_sums_t s;

		if (p->department >= 0)
			continue;
		_sums_start(&s, p->alloc + p->landing);
		for (k = 0; k < gq_bucket_len(queued, i); k++) {
			gq_job_t *job = &jobs[q[k]];

			_walk_start(job, demand, q[k]);
			if (job->landing) {
				_landing_step(p, NULL, job, &s, NULL);
				_settled(&l, jobs, job);
				continue;
			}
			_project_step(p, job, &s, r->idle);
			_settled(&l, jobs, job);
			/* waiting jobs come last: s.later grows after
			 * every eligible job is summed */
			if (!_eligible(job))
				_begins_later_hold(p, NULL, job, &s, NULL);
		}
		p->tail = s;
	}
	for (d = 0; d < r->ndept; d++)
		if (_walk_dept(r, jobs, queued, demand, &l, d))
			return -1;
	/* by index: the order those steps read jobs in */
	if (l.job)
		gq_sort_ints(l.job, l.n, _cmp_index, NULL);
	reclaimers->n = l.n;
	return 0;
}

bool gq_queue_late(gq_registry_t *r, gq_job_t *job)
{
	gq_project_t *p = &r->proj[job->project];
	gq_dept_t *dp = p->department >= 0 ? &r->dept[p->department] : NULL;

	job->tasks_now = _at_once(job);
	_sums_at_least(&p->tail, p->alloc);
	if (dp)
		_sums_at_least(&dp->tail, dp->alloc);
	if (job->landing) {
		_landing_step(p, dp, job, &p->tail, dp ? &dp->tail : NULL);
		return _eligible(job);
	}
	if (!dp) {
		_project_step(p, job, &p->tail, r->idle);
		_begins_later_hold(p, NULL, job, &p->tail, NULL);
		return _eligible(job) && !job->hold;
	}
	job->hold = GQ_HOLD_NONE;
	if (!_eligible(job)) {
		_set_band(p, job, &p->tail, _size(job),
			  dp->tail.inq + _size(job) <= dp->quota + GQ_EPS);
		_begins_later_hold(p, dp, job, &p->tail, &dp->tail);
		return false;
	}
	if (!(job->hold = _project_hold(p, job, _bounded(&p->tail))))
		job->hold = _dept_hold(dp, job, _bounded(&dp->tail));
	if (job->hold) {
		_set_band(p, job, &p->tail, _asked(job), false);
		return false;
	}
	_split(p, job, &p->tail, dp->quota - dp->tail.inq, r->idle);
	_set_band(p, job, &p->tail, _size(job),
		  dp->tail.inq + _size(job) <= dp->quota + GQ_EPS);
	_sums_add(&p->tail, job);
	_sums_add(&dp->tail, job);
	return true;
}

void gq_queue_unlate(gq_registry_t *r, gq_job_t *job, bool started)
{
	gq_project_t *p = &r->proj[job->project];
	gq_dept_t *dp = p->department >= 0 ? &r->dept[p->department] : NULL;
	double size = _size(job);

	if (!job->later)
		return;
	job->later = false;
	p->tail.later -= size;
	if (dp)
		dp->tail.later -= size;
	if (!started)
		return;
	p->tail.all += size;
	if (dp)
		dp->tail.all += size;
}

int gq_queue_pass_alloc_jobs(gq_queue_pass_t *q, int n)
{
	void *d, *r;

	if (q->by_job_cap >= n)
		return 0;
	if ((d = realloc(q->demand, sizeof(*q->demand) * n)))
		q->demand = d;
	if (!(r = d ? realloc(q->reclaimers.job, sizeof(int) * n) : NULL))
		return -1;
	q->reclaimers.job = r;
	q->by_job_cap = n;
	return 0;
}

int gq_queue_pass_alloc_seen(gq_queue_pass_t *q, int nproj)
{
	if (q->seen_cap < nproj) {
		gq_queue_seen_t *ns = realloc(q->seen, sizeof(*ns) * nproj);

		if (!ns)
			return -1;
		q->seen = ns;
		q->seen_cap = nproj;
	}
	if (nproj)
		memset(q->seen, 0, sizeof(*q->seen) * nproj);
	return 0;
}

void gq_queue_pass_free(gq_queue_pass_t *q)
{
	free(q->demand);
	free(q->seen);
	free(q->reclaimers.job);
	gq_buckets_free(&q->queued);
	gq_buckets_free(&q->running);
}
