/*
 * view.c - one scheduling pass: the order of the pass' steps, the adds
 * between passes, and the lookups (see view.h; the jobs' records are the
 * store's, job_store.c; the nodes and placement are placement.c's).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "tools/bucket.h"
#include "core/fairshare.h"
#include "core/job_store.h"
#include "core/queue.h"
#include "core/reclaim.h"
#include "core/patience.h"
#include "core/room.h"
#include "core/victim_search.h"
#include "core/waits.h"
#include "core/view.h"
#include "core/view_impl.h"

#ifdef GQ_PASS_STEPS	/* view_impl.h: the benchmark's clock per step */
#include <time.h>
double gq_pass_steps[GQ_NSTEPS];

static double _step_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define STEP_BEGIN() double _step_t = _step_clock()
#define STEP(i)                                                         \
	do {                                                            \
		double _n = _step_clock();                              \
		gq_pass_steps[i] = _n - _step_t;                        \
		_step_t = _n;                                           \
	} while (0)
#else
#define STEP_BEGIN() do { } while (0)
#define STEP(i) do { } while (0)
#endif

gq_view_t *gq_view_create(const gq_config_t *cfg)
{
	gq_view_t *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	gq_store_init(&v->store);
	gq_hash_init(&v->room, &gq_hash_ints);
	v->min_runtime = cfg->settings.min_runtime;
	v->patience = cfg->settings.reclaim_patience;
	v->min_runtime_pass = v->min_runtime;
	if (gq_registry_init(&v->reg, cfg)) {
		gq_view_free(v);
		return NULL;
	}
	return v;
}

void gq_view_free(gq_view_t *v)
{
	if (!v)
		return;
	gq_registry_free(&v->reg);
	gq_store_free(&v->store);
	free(v->demand);
	free(v->seen);
	free(v->reclaimers);
	free(v->node_free);
	free(v->node_closed);
	free(v->node_room);
	free(v->groups);
	free(v->pl_node);
	free(v->pl_gpus);
	free(v->pl_job);
	gq_hash_free(&v->room);
	free(v->roomless);
	free(v->wait_at);
	free(v->wait_at_for);
	free(v->inflight);
	free(v->order);
	free(v->run_first);
	free(v->run_len);
	gq_buckets_free(&v->queued);
	gq_buckets_free(&v->running);
	gq_buckets_free(&v->bynode);
	free(v);
}

void gq_view_begin(gq_view_t *v, double capacity, int64_t now)
{
	gq_store_clear(&v->store);
	v->capacity = capacity;
	v->now = now;
	v->min_runtime_pass = v->min_runtime;
	v->computed = false;
	v->waits_for = 0;
	v->kept_on.node = -1;
	v->nwait_at = 0;
	v->wait_anywhere = false;
	v->expect_wait = false;
	v->ninflight = 0;
	v->failed = false;
	v->nnodes = 0;
	v->npl = 0;
	v->ngroups = 0;
	gq_hash_clear(&v->room);
	v->nroomless = 0;
}

void gq_view_set_capacity(gq_view_t *v, double capacity)
{
	v->reg.idle += capacity - v->capacity;
	v->capacity = capacity;
}

int gq_view_account_parent(gq_view_t *v, const char *account,
			   const char *parent)
{
	if (gq_registry_account_parent(&v->reg, account, parent)) {
		v->failed = true;
		return -1;
	}
	return 0;
}

void gq_view_set_usage(gq_view_t *v, int project, double usage, double tilt)
{
	if (project < 0 || project >= v->reg.nproj)
		return;
	v->reg.proj[project].usage = usage;
	v->reg.proj[project].tilt = tilt;
}

void gq_view_set_lost(gq_view_t *v, int project, double gpu_hours)
{
	if (project < 0 || project >= v->reg.nproj)
		return;
	v->reg.proj[project].lost = gpu_hours;
}

void gq_view_expect_reclaim_wait(gq_view_t *v, bool waiting)
{
	v->expect_wait = waiting;
}

int gq_view_expect_reclaims(gq_view_t *v, const gq_reclaim_at_t *r, int n)
{
	v->ninflight = 0;
	if (n > v->inflight_cap) {
		gq_reclaim_at_t *p = realloc(v->inflight, sizeof(*p) * n);

		if (!p)
			return -1;
		v->inflight = p;
		v->inflight_cap = n;
	}
	if (n > 0)
		memcpy(v->inflight, r, sizeof(*r) * n);
	v->ninflight = n;
	return 0;
}

void gq_view_min_runtime_at_least(gq_view_t *v, int seconds)
{
	if (seconds > v->min_runtime_pass)
		v->min_runtime_pass = seconds;
}

/* GPUs a job adds to its project's demand beyond allocation: x tasks */
static uint64_t _pending_gpus(const gq_job_in_t *in)
{
	return (uint64_t)in->gpus * in->tasks;
}

/* a_p and a_d of a running job's project and department, and the pool's
 * idle GPUs (between passes) */
static void _add_alloc(gq_view_t *v, const gq_job_t *job, int sign)
{
	gq_registry_alloc(&v->reg, job->project, sign * (int64_t)job->in.gpus,
			  job->in.at_risk);
	v->reg.idle -= sign * (double)job->in.gpus;
}

/*
 * Take a stored job out of its project's numbers (it is added again with
 * new input): between passes only.
 */
static void _untally(gq_view_t *v, gq_job_t *job)
{
	gq_project_t *p = &v->reg.proj[job->project];

	if (job->in.state == GQ_JOB_RUNNING)
		_add_alloc(v, job, -1);
	else if (job->demand)
		p->pending -= _pending_gpus(&job->in);
	job->demand = false;
	job->victim = 0;
	job->preempt_rank = UINT32_MAX;
}

/* Room for the reclaim order and each project's run in it. */
static int _alloc_order(gq_view_t *v)
{
	int *o = realloc(v->order,
			 sizeof(int) * (gq_store_count(&v->store) + 1));
	int *f, *l;

	if (!o)
		return -1;
	v->order = o;
	f = realloc(v->run_first, sizeof(int) * (v->reg.nproj + 1));
	if (f)
		v->run_first = f;
	l = f ? realloc(v->run_len, sizeof(int) * (v->reg.nproj + 1)) : NULL;
	if (!l)
		return -1;
	v->run_len = l;
	return 0;
}

/*
 * A running job of project `project` is gone between passes (requeued,
 * reclaimed, ended): the allowances of its project, and of its department's
 * projects when it has one, shrank.  Offer their jobs again from allowances
 * of what they hold now, in reclaim order, and void their room sets until
 * the next pass, so that the candidates stay within the floors at every
 * preemption, not only at pass time.  O(P + jobs of those projects).
 */
static int _cmp_run(const void *a, const void *b, void *ctx)
{
	const int *first = ctx;

	return first[*(const int *)a] - first[*(const int *)b];
}

static void _shrink_candidates(gq_view_t *v, int project)
{
	gq_registry_t *r = &v->reg;
	gq_job_t *jobs = gq_store_records(&v->store);
	int d = r->proj[project].department, i, k, n = 0, nmine = 0;
	int *runs, *mine;
	gq_allowance_t *b = NULL;

	if (project >= v->nruns)
		return;
	runs = malloc(sizeof(int) * (v->nruns + 1));
	mine = malloc(sizeof(int) * (v->norder + 1));
	if (!runs) {	/* no memory: offer nobody until the next pass */
		for (k = 0; k < v->norder; k++)
			jobs[v->order[k]].victim = 0;
		free(mine);
		return;
	}
	if (mine)
		b = gq_allowance_new(r);
	/* the affected projects' runs, in reclaim order (each contiguous) */
	for (i = 0; i < v->nruns; i++)
		if (i == project || (d >= 0 && r->proj[i].department == d))
			runs[n++] = i;
	qsort_r(runs, n, sizeof(*runs), _cmp_run, v->run_first);
	for (i = 0; i < n; i++) {
		r->proj[runs[i]].room_void = true;
		for (k = 0; k < v->run_len[runs[i]]; k++) {
			int j = v->order[v->run_first[runs[i]] + k];

			jobs[j].victim = jobs[j].chain = 0;
			if (mine && jobs[j].in.state == GQ_JOB_RUNNING)
				mine[nmine++] = j;
		}
	}
	/* no memory for an allowance: offer none of them until the next pass */
	if (b)
		gq_reclaim_mark(b, r, jobs, mine, nmine);
	gq_allowance_free(b);
	free(runs);
	free(mine);
}


int gq_view_room_waiters(const gq_view_t *v, const uint32_t **ids)
{
	*ids = v->roomless;
	return v->nroomless;
}

/* A job added after the pass: the same rules, at the tail of its queue. */
static const gq_job_t *_add_late(gq_view_t *v, int project,
				 const gq_job_in_t *in)
{
	int idx = gq_store_index(&v->store, in->id);
	int old_project = -1;
	bool was_running = false;
	gq_job_t *job;

	if (idx >= 0) {
		job = gq_store_at(&v->store, idx);
		/* still pending in the same project: keep its place */
		if (job->in.state == in->state && job->project == project &&
		    in->state != GQ_JOB_RUNNING)
			return job;
		/* requeued, released or moved: take it out of its project */
		was_running = job->in.state == GQ_JOB_RUNNING;
		old_project = job->project;
		_untally(v, job);
		gq_queue_unlate(&v->reg, job,
				in->state == GQ_JOB_RUNNING &&
				project == old_project);
		job->project = project;
		job->in = *in;
		if (!job->in.tasks)
			job->in.tasks = 1;
	} else if (!(job = gq_store_add(&v->store, in, project))) {
		return NULL;
	}
	if (job->in.state == GQ_JOB_RUNNING) {
		_add_alloc(v, job, 1);
		job->band = GQ_BAND_NONE;
	} else if ((job->demand = gq_queue_late(&v->reg, job))) {
		v->reg.proj[project].pending += _pending_gpus(&job->in);
		gq_waits_hold(v, job);
	}
	if (was_running)
		_shrink_candidates(v, old_project);
	return job;
}

const gq_job_t *gq_view_add_late(gq_view_t *v, const char *account,
				 const gq_job_in_t *in)
{
	int project = gq_registry_project_of(&v->reg, account);

	if (project < 0 || !v->computed)
		return NULL;
	return _add_late(v, project, in);
}

const gq_job_t *gq_view_add_job(gq_view_t *v, const char *account,
				const gq_job_in_t *in)
{
	int project = gq_registry_project_of(&v->reg, account);
	gq_job_t *job = NULL;

	if (project >= 0 && v->computed)
		return _add_late(v, project, in);
	if (project >= 0)
		job = gq_store_stage(&v->store, in, project);
	if (!job && !v->computed)
		v->failed = true;
	return job;
}

/*
 * Staged records grouped or started: each job's placement entries
 * (consecutive, gq_view_place) counted into its record.  O(entries).
 */
static void _set_places(gq_view_t *v)
{
	gq_job_t *jobs = gq_store_records(&v->store);
	int k;

	for (k = 0; k < v->npl; k++) {
		gq_job_t *job = &jobs[v->pl_job[k]];

		if (!job->place_n)
			job->place_first = k;
		job->place_n++;
	}
}

/* bucket of a pending or waiting job: its project; running: -1 */
static int _queue_of(int k, const void *ctx)
{
	const gq_job_t *job = &((const gq_job_t *)ctx)[k];

	return job->in.state == GQ_JOB_RUNNING ? -1 : job->project;
}

/* bucket of a running job: its project; others: -1 */
static int _running_of(int k, const void *ctx)
{
	const gq_job_t *job = &((const gq_job_t *)ctx)[k];

	return job->in.state == GQ_JOB_RUNNING ? job->project : -1;
}

/* GPUs no running job holds: capacity minus every a_p.  O(P). */
static void _set_idle(gq_view_t *v)
{
	int i;

	v->reg.idle = v->capacity;
	for (i = 0; i < v->reg.nproj; i++)
		v->reg.idle -= v->reg.proj[i].alloc;
}

/* Room for the pass' arrays by job index: demand, reclaimers. */
static int _alloc_by_job(gq_view_t *v)
{
	int n = gq_store_capacity(&v->store);
	void *d, *r;

	if (v->by_job_cap >= n)
		return 0;
	if ((d = realloc(v->demand, sizeof(*v->demand) * n)))
		v->demand = d;
	if (!(r = d ? realloc(v->reclaimers, sizeof(int) * n) : NULL))
		return -1;
	v->reclaimers = r;
	v->by_job_cap = n;
	return 0;
}

/* Each project's queue as the grouping will see it, zeroed; -1: memory. */
static int _alloc_seen(gq_view_t *v)
{
	int n = v->reg.nproj;

	if (v->seen_cap < n) {
		gq_queue_seen_t *ns = realloc(v->seen, sizeof(*ns) * n);

		if (!ns)
			return -1;
		v->seen = ns;
		v->seen_cap = n;
	}
	if (n)
		memset(v->seen, 0, sizeof(*v->seen) * n);
	return 0;
}

/*
 * Start every job and bucket them: grouped by project (job_store.h,
 * gq_store_group), or, without memory for that, where they are.  A
 * record staged this pass is seen for gq_queue_demand as it goes by
 * (v->seen: its order, eligible demand; demand[]), so that the demand
 * step need not read the queued records again, and its placement is
 * counted in after (_set_places, O(entries)).  Returns 0 or -1 (memory).
 * O(J + P), plus O(capacity) to renumber the id table.
 */
static int _start_jobs(gq_view_t *v)
{
	gq_job_store_t *s = &v->store;
	bool staged = gq_store_staged(s);
	gq_store_sweep_t sweep = { .reg = &v->reg };
	int rc = -1;

	v->seen_now = false;
	if (_alloc_by_job(v))
		return -1;
	if (!staged || !_alloc_seen(v)) {
		sweep.seen = v->seen;
		sweep.demand = v->demand;
		rc = gq_store_group(s, v->reg.nproj, &sweep, &v->queued,
				    &v->running);
	}
	if (rc != -1) {
		v->seen_now = staged;
		gq_store_renumber(s, v->pl_job, v->npl);
	} else {
		gq_store_start_in_place(s, &v->reg);
	}
	if (staged)
		_set_places(v);
	if (rc != -1)
		return rc;
	if (gq_buckets_fill(&v->queued, gq_store_count(s), v->reg.nproj,
			    _queue_of, gq_store_records(s)) ||
	    gq_buckets_fill(&v->running, gq_store_count(s), v->reg.nproj,
			    _running_of, gq_store_records(s)))
		return -1;
	return 0;
}

/*
 * The pass, in order, and what each step costs (J jobs, P projects):
 *  - the jobs grouped by project and started, a_p: O(J + P), one copy of
 *    the records (_start_jobs; job_store.h, gq_store_group);
 *  - each project's queue sorted and its demand (what its own holds keep
 *    back is not demand): O(J) when Slurm listed it in order, O(J log J)
 *    only for the projects whose jobs came out of order (sort.h); it
 *    reads the queued records' input and writes no record, and reads
 *    none of a project the grouping saw in order and without holds
 *    (O(1) for it: queue.h, gq_queue_seen_t);
 *  - fair shares: O(P^2) water-filling;
 *  - bands and holds, departments' bounds: O(J), and O(J_d x P_d) in a
 *    department (queue.h); it also lists the jobs that may reclaim, O(R
 *    log R) for R of them when Slurm's order is not the index order, the
 *    only jobs patience and room-making look at;
 *  - floors, then each project's candidates, reclaim order and the usual
 *    sets in one sweep of the running jobs: O(P log P + J) (reclaim.h);
 *  - with placement only: what each node offers now, O(N + E) for E
 *    placement entries (room.h, gq_room_nodes); patience (patience.h);
 *    room (room.c).
 * make bench prints the time of each (view_impl.h, GQ_PASS_STEPS).
 */
int gq_view_compute(gq_view_t *v)
{
	gq_registry_t *r = &v->reg;
	gq_buckets_t *queued = &v->queued, *running = &v->running;
	gq_allowance_t *allowance = NULL;
	int rc = -1;
	STEP_BEGIN();

	v->computed = true;
	v->norder = v->nruns = 0;
	if (v->failed || _alloc_order(v))
		goto out;
	gq_registry_reset(r);
	if (_start_jobs(v))
		goto out;
	_set_idle(v);
	if (v->expect_wait)	/* not open to the arrays' outside part */
		r->idle = 0;
	STEP(GQ_STEP_START);
	gq_queue_demand(r, gq_store_records(&v->store), queued, v->demand,
			v->seen_now ? v->seen : NULL);
	STEP(GQ_STEP_DEMAND);
	if (gq_fair_share_tree(r, v->capacity))
		goto out;
	STEP(GQ_STEP_SHARE);
	v->nreclaimers = 0;
	if (gq_queue_walk(r, gq_store_records(&v->store), queued, v->demand,
			  v->reclaimers, &v->nreclaimers))
		goto out;
	STEP(GQ_STEP_WALK);
	gq_reclaim_floors(r);
	if (!(allowance = gq_allowance_new(r)) ||
	    gq_reclaim_order(r, gq_store_records(&v->store), running, v->now,
			     v->min_runtime_pass, allowance, v->order, &v->norder,
			     v->run_first, v->run_len))
		goto out;
	v->nruns = r->nproj;
	STEP(GQ_STEP_RECLAIM);
	if (v->nnodes)
		gq_room_nodes(v);
	if (gq_patience_apply(v, v->patience))
		goto out;
	if (v->nnodes && gq_room_make(v, v->order, v->norder, &allowance))
		goto out;
	STEP(GQ_STEP_ROOM);
	rc = 0;
out:
	gq_allowance_free(allowance);
	if (rc)
		v->failed = true;
	return rc;
}

const gq_job_t *gq_view_job(const gq_view_t *v, uint32_t id)
{
	return gq_store_find(&v->store, id);
}

int gq_view_njobs(const gq_view_t *v)
{
	return v ? gq_store_count(&v->store) : 0;
}

const gq_job_t *gq_view_job_at(const gq_view_t *v, int i)
{
	return gq_store_at(&v->store, i);
}

const gq_project_t *gq_view_project(const gq_view_t *v, int idx)
{
	return (idx >= 0 && idx < v->reg.nproj) ? &v->reg.proj[idx] : NULL;
}

int gq_view_nprojects(const gq_view_t *v)
{
	return v->reg.nproj;
}

int gq_view_find_project(const gq_view_t *v, const char *account)
{
	return gq_registry_find(&v->reg, account);
}

const gq_dept_t *gq_view_dept(const gq_view_t *v, int idx)
{
	return (idx >= 0 && idx < v->reg.ndept) ? &v->reg.dept[idx] : NULL;
}

int gq_view_ndepts(const gq_view_t *v)
{
	return v->reg.ndept;
}

int gq_view_min_runtime(const gq_view_t *v)
{
	return v->min_runtime_pass;
}

void gq_view_job_gone(gq_view_t *v, uint32_t id)
{
	int idx = gq_store_index(&v->store, id);
	bool was_running;
	gq_job_t *job;

	if (idx < 0 || !v->computed)
		return;
	job = gq_store_at(&v->store, idx);
	was_running = job->in.state == GQ_JOB_RUNNING;
	_untally(v, job);
	gq_queue_unlate(&v->reg, job, false);
	/* gone: waits for nothing of its own (not a begin-time waiter) */
	job->in.state = GQ_JOB_WAITING;
	job->in.begins_later = false;
	if (was_running)
		_shrink_candidates(v, job->project);
}

bool gq_view_may_reclaim(const gq_view_t *v, uint32_t preemptor)
{
	const gq_job_t *er = gq_view_job(v, preemptor);

	return er && gq_job_may_reclaim(er);
}

bool gq_view_preemptable(const gq_view_t *v, uint32_t preemptee,
			 uint32_t preemptor)
{
	const gq_job_t *er = gq_view_job(v, preemptor);
	const gq_job_t *ee;

	/* most preemptors Slurm asks about cannot reclaim: answer at once */
	if (!gq_view_may_reclaim(v, preemptor))
		return false;
	ee = gq_view_job(v, preemptee);
	if (!ee || ee->in.state != GQ_JOB_RUNNING || ee->project == er->project)
		return false;
	if (er->room)
		return !v->reg.proj[ee->project].room_void &&
		       gq_hash_get(&v->room, gq_key_pair(er->in.id,
							 ee->in.id)) >= 0;
	return gq_reclaim_allowed(&v->reg, ee, er);
}

uint32_t gq_view_preempt_rank(const gq_view_t *v, uint32_t id)
{
	const gq_job_t *job = gq_view_job(v, id);

	return job ? job->preempt_rank : UINT32_MAX;
}
