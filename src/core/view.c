/*
 * view.c - one scheduling pass: the order of the pass' steps, the adds
 * between passes, and the lookups (see view.h).  The view holds what each
 * step keeps, in the step's own struct: the pass' input (pass.h: the
 * registry, the jobs' store, the nodes), the queue's (queue.h), the
 * reclaim order (reclaim.h), room-making's (room.h), the waits (waits.h)
 * and the reclaims in flight patience reads (patience.h); each step is
 * given only what it reads.
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
#include "core/move.h"
#include "core/room.h"
#include "core/saved_node.h"
#include "core/waits.h"
#include "core/view.h"
#include "core/view_steps.h"

struct gq_view {
	gq_pass_t pass;		/* projects, jobs, nodes, now */
	gq_queue_pass_t queue;	/* groupings, demand, who may reclaim */
	gq_reclaim_runs_t runs;	/* eligible victims in reclaim order */
	gq_room_t room;		/* room sets and room waiters */
	gq_waits_t waits;	/* who waits for GPUs coming free */
	gq_saved_node_t saved;	/* the node saved for a room waiter */
	gq_move_t move;		/* a move for it (move.h) */
	bool move_planned;	/* gq_view_move ran for this pass: its plan
				 * (and its pairs) stand until the next */
	gq_inflight_t inflight;	/* reclaims in flight, as the pass began */

	double capacity;
	int min_runtime;	/* from the config */
	int patience;		/* settings.reclaim_patience */
	int min_runtime_pass;	/* max(config, Slurm's), this pass */
	bool computed;		/* gq_view_compute ran: adds are late */
	bool expect_wait;	/* work outside quotas will wait for one */
	bool failed;		/* memory ran out during this pass */
};

#ifdef GQ_PASS_STEPS	/* view_steps.h: the benchmark's clock per step */
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
	gq_store_init(&v->pass.store);
	gq_room_init(&v->room);
	v->min_runtime = cfg->settings.min_runtime;
	v->patience = cfg->settings.reclaim_patience;
	v->min_runtime_pass = v->min_runtime;
	if (gq_registry_init(&v->pass.reg, cfg)) {
		gq_view_free(v);
		return NULL;
	}
	return v;
}

void gq_view_free(gq_view_t *v)
{
	if (!v)
		return;
	gq_registry_free(&v->pass.reg);
	gq_store_free(&v->pass.store);
	gq_nodes_free(&v->pass.nodes);
	gq_queue_pass_free(&v->queue);
	gq_reclaim_runs_free(&v->runs);
	gq_room_free(&v->room);
	gq_waits_free(&v->waits);
	free(v->inflight.at);
	free(v);
}

void gq_view_begin(gq_view_t *v, double capacity, int64_t now)
{
	gq_store_clear(&v->pass.store);
	v->capacity = capacity;
	v->pass.now = now;
	v->pass.nsaved_before = 0;
	v->min_runtime_pass = v->min_runtime;
	v->computed = false;
	gq_waits_clear(&v->waits);
	gq_saved_node_clear(&v->saved);
	gq_move_clear(&v->move);
	v->move_planned = false;
	v->expect_wait = false;
	v->inflight.n = 0;
	v->failed = false;
	gq_nodes_clear(&v->pass.nodes);
	gq_room_clear(&v->room);
}

void gq_view_set_capacity(gq_view_t *v, double capacity)
{
	v->pass.reg.idle += capacity - v->capacity;
	v->capacity = capacity;
}

double gq_view_capacity(const gq_view_t *v)
{
	return v->capacity;
}

int gq_view_account_parent(gq_view_t *v, const char *account,
			   const char *parent)
{
	if (gq_registry_account_parent(&v->pass.reg, account, parent)) {
		v->failed = true;
		return -1;
	}
	return 0;
}

void gq_view_set_usage(gq_view_t *v, int project, double usage, double tilt)
{
	if (project < 0 || project >= v->pass.reg.nproj)
		return;
	v->pass.reg.proj[project].usage = usage;
	v->pass.reg.proj[project].tilt = tilt;
}

void gq_view_set_lost(gq_view_t *v, int project, double gpu_hours)
{
	if (project < 0 || project >= v->pass.reg.nproj)
		return;
	v->pass.reg.proj[project].lost = gpu_hours;
}

void gq_view_expect_reclaim_wait(gq_view_t *v, bool waiting)
{
	v->expect_wait = waiting;
}

int gq_view_expect_reclaims(gq_view_t *v, const gq_reclaim_at_t *r, int n)
{
	return gq_inflight_set(&v->inflight, r, n);
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
	gq_registry_alloc(&v->pass.reg, job->project, sign * (int64_t)job->in.gpus,
			  job->in.at_risk);
	v->pass.reg.idle -= sign * (double)job->in.gpus;
}

/*
 * Take a stored job out of its project's numbers (it is added again with
 * new input): between passes only.
 */
static void _untally(gq_view_t *v, gq_job_t *job)
{
	gq_project_t *p = &v->pass.reg.proj[job->project];

	if (job->in.state == GQ_JOB_RUNNING)
		_add_alloc(v, job, -1);
	else if (job->demand)
		p->pending -= _pending_gpus(&job->in);
	job->demand = false;
	job->victim = 0;
	job->preempt_rank = UINT32_MAX;
}

/* gq_reclaim_shrink, on the view's reclaim order. */
static void _shrink_candidates(gq_view_t *v, int project)
{
	gq_reclaim_shrink(&v->runs, &v->pass.reg,
			  gq_store_records(&v->pass.store), project);
}

/* Placement (placement.h): the view's calls, memory failures noted. */
int gq_view_set_nodes(gq_view_t *v, int nnodes)
{
	if (gq_nodes_set(&v->pass.nodes, nnodes)) {
		v->failed = true;
		return -1;
	}
	return 0;
}

void gq_view_close_node(gq_view_t *v, int node)
{
	gq_nodes_close(&v->pass.nodes, node);
}

int gq_view_set_groups(gq_view_t *v, int ngroups)
{
	return gq_nodes_set_groups(&v->pass.nodes, ngroups, &v->failed);
}

int gq_view_node_group(gq_view_t *v, int node, int group)
{
	return gq_nodes_group(&v->pass.nodes, node, group);
}

int gq_view_node_domain(gq_view_t *v, int node, int domain)
{
	return gq_nodes_domain(&v->pass.nodes, node, domain);
}

bool gq_view_node_allowed(const gq_view_t *v, uint32_t node_group, int node)
{
	return gq_nodes_allowed(&v->pass.nodes, node_group, node);
}

void gq_view_node_free(gq_view_t *v, int node, uint32_t free_gpus)
{
	gq_nodes_idle(&v->pass.nodes, node, free_gpus);
}

int gq_view_place(gq_view_t *v, uint32_t job_id, int node, uint32_t gpus)
{
	return gq_nodes_place(&v->pass.nodes, &v->pass.store, v->computed,
			      job_id, node, gpus, &v->failed);
}

/* The waits (waits.h) on the view's jobs and nodes. */
int gq_view_wait_for_reclaims(gq_view_t *v, const gq_reclaim_at_t *r, int n)
{
	return gq_waits_for_reclaims(&v->waits, &v->pass.store,
				     &v->pass.nodes, r, n);
}

bool gq_view_keep_room(gq_view_t *v, uint32_t id, int prefer)
{
	bool kept = gq_waits_keep_room(&v->waits, &v->pass, id, prefer);
	const gq_job_t *w = kept ? gq_store_find(&v->pass.store, id) : NULL;
	gq_room_node_t at[GQ_RECLAIM_NODES];
	int n = 0;

	/* the node kept is the first node saved; a gang's others follow */
	if (w)
		n = gq_room_wait_nodes(&v->pass, w,
				       &gq_waits_kept_node(&v->waits)->node, 1,
				       at, GQ_RECLAIM_NODES);
	if (kept)
		gq_saved_node_set(&v->saved, &v->pass, id, at, n);
	return kept;
}

bool gq_view_save_nodes(gq_view_t *v, uint32_t id, const int *prefer,
			int nprefer)
{
	const gq_job_t *w = id ? gq_store_find(&v->pass.store, id) : NULL;
	gq_room_node_t at[GQ_RECLAIM_NODES];
	int n = 0;

	if (gq_job_still_room_waiter(w) && v->pass.nodes.nnodes)
		n = gq_room_wait_nodes(&v->pass, w, prefer, nprefer, at,
				       GQ_RECLAIM_NODES);
	gq_saved_node_set(&v->saved, &v->pass, id, at, n);
	return v->saved.saved_for != 0;
}

bool gq_view_save_node(gq_view_t *v, uint32_t id, int prefer)
{
	return gq_view_save_nodes(v, id, &prefer, prefer >= 0);
}

void gq_view_saved_before(gq_view_t *v, const int *nodes, int n)
{
	v->pass.nsaved_before = 0;
	while (n-- > 0 && v->pass.nsaved_before < GQ_RECLAIM_NODES)
		v->pass.saved_before[v->pass.nsaved_before++] = *nodes++;
}

uint32_t gq_view_saved_for(const gq_view_t *v)
{
	return v->saved.saved_for;
}

const gq_room_node_t *gq_view_saved_node(const gq_view_t *v)
{
	return &v->saved.on;
}

int gq_view_saved_nodes(const gq_view_t *v, const int **nodes)
{
	*nodes = v->saved.nodes;
	return v->saved.nnodes;
}

bool gq_view_move(gq_view_t *v, const gq_move_rules_t *rules)
{
	gq_move_rules_t r = *rules;
	gq_job_t *w = v->saved.saved_for ?
		gq_store_find(&v->pass.store, v->saved.saved_for) : NULL;

	if (v->move_planned)	/* between passes: the pass' plan stands */
		return v->move.waiter != 0;
	v->move_planned = true;
	r.min_runtime = v->min_runtime_pass;
	r.inflight = v->inflight.at;
	r.ninflight = v->inflight.n;
	return gq_move_plan(&v->pass, &v->room, w, &v->saved.on,
			    v->saved.nodes, v->saved.nnodes, &r, &v->move);
}

const gq_move_t *gq_view_move_of(const gq_view_t *v)
{
	return &v->move;
}

int gq_view_move_to(const gq_view_t *v, uint32_t preemptor, uint32_t victim)
{
	return gq_move_to(&v->move, preemptor, victim);
}

uint32_t gq_view_kept_for(const gq_view_t *v)
{
	return gq_waits_kept_for(&v->waits);
}

const gq_room_node_t *gq_view_kept_node(const gq_view_t *v)
{
	return gq_waits_kept_node(&v->waits);
}

int gq_view_room_waiters(const gq_view_t *v, const uint32_t **ids)
{
	return gq_room_waiters(&v->room, ids);
}

/* A landing job runs again between passes: its GPUs are a_p now. */
static void _landed(gq_view_t *v, gq_job_t *job)
{
	gq_project_t *p = &v->pass.reg.proj[job->project];

	job->landing = false;
	p->landing -= job->in.gpus;
	if (p->department >= 0)
		v->pass.reg.dept[p->department].landing -= job->in.gpus;
}

/* A job added after the pass: the same rules, at the tail of its queue. */
static const gq_job_t *_add_late(gq_view_t *v, int project,
				 const gq_job_in_t *in)
{
	int idx = gq_store_index(&v->pass.store, in->id);
	int old_project = -1;
	bool was_running = false;
	gq_job_t *job;

	if (idx >= 0) {
		job = gq_store_at(&v->pass.store, idx);
		/* still pending in the same project: keep its place */
		if (job->in.state == in->state && job->project == project &&
		    in->state != GQ_JOB_RUNNING)
			return job;
		/* requeued, released or moved: take it out of its project */
		if (job->landing && in->state == GQ_JOB_RUNNING)
			_landed(v, job);
		was_running = job->in.state == GQ_JOB_RUNNING;
		old_project = job->project;
		_untally(v, job);
		gq_queue_unlate(&v->pass.reg, job,
				in->state == GQ_JOB_RUNNING &&
				project == old_project);
		job->project = project;
		job->in = *in;
		if (!job->in.tasks)
			job->in.tasks = 1;
	} else if (!(job = gq_store_add(&v->pass.store, in, project))) {
		return NULL;
	}
	if (job->in.state == GQ_JOB_RUNNING) {
		_add_alloc(v, job, 1);
		job->band = GQ_BAND_NONE;
	} else {
		if ((job->demand = gq_queue_late(&v->pass.reg, job)))
			v->pass.reg.proj[project].pending +=
				_pending_gpus(&job->in);
		/* eligible, or on its own before the next pass */
		gq_waits_hold(&v->waits, &v->pass.nodes, job);
	}
	gq_saved_node_mark_late(&v->saved, &v->pass, job);
	if (was_running)
		_shrink_candidates(v, old_project);
	return job;
}

const gq_job_t *gq_view_add_late(gq_view_t *v, const char *account,
				 const gq_job_in_t *in)
{
	int project = gq_registry_project_of(&v->pass.reg, account);

	if (project < 0 || !v->computed)
		return NULL;
	return _add_late(v, project, in);
}

const gq_job_t *gq_view_add_job(gq_view_t *v, const char *account,
				const gq_job_in_t *in)
{
	int project = gq_registry_project_of(&v->pass.reg, account);
	gq_job_t *job = NULL;

	if (project >= 0 && v->computed)
		return _add_late(v, project, in);
	if (project >= 0)
		job = gq_store_stage(&v->pass.store, in, project);
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
	gq_job_t *jobs = gq_store_records(&v->pass.store);
	int k;

	for (k = 0; k < v->pass.nodes.npl; k++) {
		gq_job_t *job = &jobs[v->pass.nodes.pl_job[k]];

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

	v->pass.reg.idle = v->capacity;
	for (i = 0; i < v->pass.reg.nproj; i++)
		v->pass.reg.idle -= v->pass.reg.proj[i].alloc;
}

/*
 * Start every job and bucket them: grouped by project (job_store.h,
 * gq_store_group), or, without memory for that, where they are.  A
 * record staged this pass is seen for gq_queue_demand as it goes by
 * (q->seen: its order, eligible demand; demand[]), so that the demand
 * step need not read the queued records again, and its placement is
 * counted in after (_set_places, O(entries)).  Returns 0 or -1 (memory).
 * O(J + P), plus O(capacity) to renumber the id table.
 */
/*
 * The moved jobs not running again yet (the landings in flight): each
 * flagged, its GPUs still its project's and department's in the walk
 * (queue.c, _landing_step).  O(J + landings).
 */
static void _mark_landings(gq_view_t *v)
{
	gq_registry_t *r = &v->pass.reg;
	int i;

	for (i = 0; i < gq_store_count(&v->pass.store); i++)
		gq_store_at(&v->pass.store, i)->landing = false;
	for (i = 0; i < v->inflight.n; i++) {
		gq_job_t *j = gq_store_find(&v->pass.store,
					    v->inflight.at[i].preemptor);

		/* a moved job is one job: an array's record never is */
		if (!v->inflight.at[i].landing || !j || j->landing ||
		    j->in.state == GQ_JOB_RUNNING || j->in.tasks > 1)
			continue;
		j->landing = true;
		r->proj[j->project].landing += j->in.gpus;
		if (r->proj[j->project].department >= 0)
			r->dept[r->proj[j->project].department].landing +=
				j->in.gpus;
	}
}

static int _start_jobs(gq_view_t *v)
{
	gq_job_store_t *s = &v->pass.store;
	gq_queue_pass_t *q = &v->queue;
	bool staged = gq_store_staged(s);
	gq_store_sweep_t sweep = { .reg = &v->pass.reg };
	int rc = -1;

	q->seen_now = false;
	if (gq_queue_pass_alloc_jobs(q, gq_store_capacity(s)))
		return -1;
	if (!staged || !gq_queue_pass_alloc_seen(q, v->pass.reg.nproj)) {
		sweep.seen = q->seen;
		sweep.demand = q->demand;
		rc = gq_store_group(s, v->pass.reg.nproj, &sweep, &q->queued,
				    &q->running);
	}
	if (rc != -1) {
		q->seen_now = staged;
		gq_store_renumber(s, v->pass.nodes.pl_job, v->pass.nodes.npl);
	} else {
		gq_store_start_in_place(s, &v->pass.reg);
	}
	if (staged)
		_set_places(v);
	if (rc != -1)
		return rc;
	if (gq_buckets_fill(&q->queued, gq_store_count(s), v->pass.reg.nproj,
			    _queue_of, gq_store_records(s)) ||
	    gq_buckets_fill(&q->running, gq_store_count(s), v->pass.reg.nproj,
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
 * make bench prints the time of each (view_steps.h, GQ_PASS_STEPS).
 */
int gq_view_compute(gq_view_t *v)
{
	gq_pass_t *pass = &v->pass;
	gq_registry_t *r = &pass->reg;
	gq_queue_pass_t *q = &v->queue;
	gq_job_t *jobs;
	gq_allowance_t *allowance = NULL;
	int rc = -1;
	STEP_BEGIN();

	v->computed = true;
	v->runs.norder = v->runs.nruns = 0;
	if (v->failed ||
	    gq_reclaim_runs_alloc(&v->runs, gq_store_count(&pass->store),
				  r->nproj))
		goto out;
	gq_registry_reset(r);
	if (_start_jobs(v))
		goto out;
	_mark_landings(v);
	jobs = gq_store_records(&pass->store);
	_set_idle(v);
	if (v->expect_wait)	/* not open to the arrays' outside part */
		r->idle = 0;
	STEP(GQ_STEP_START);
	gq_queue_demand(r, jobs, &q->queued, q->demand,
			q->seen_now ? q->seen : NULL);
	STEP(GQ_STEP_DEMAND);
	if (gq_fair_share_tree(r, v->capacity))
		goto out;
	STEP(GQ_STEP_SHARE);
	q->reclaimers.n = 0;
	if (gq_queue_walk(r, jobs, &q->queued, q->demand, &q->reclaimers))
		goto out;
	STEP(GQ_STEP_WALK);
	gq_reclaim_floors(r);
	if (!(allowance = gq_allowance_new(r)) ||
	    gq_reclaim_order(r, jobs, &q->running, pass->now,
			     v->min_runtime_pass, allowance, &v->runs))
		goto out;
	STEP(GQ_STEP_RECLAIM);
	if (pass->nodes.nnodes)
		gq_room_nodes(pass);
	if (gq_patience_apply(pass, &q->reclaimers, &v->inflight, v->patience))
		goto out;
	if (pass->nodes.nnodes &&
	    gq_room_make(pass, &v->room, &q->reclaimers, &v->runs, &allowance))
		goto out;
	STEP(GQ_STEP_ROOM);
	rc = 0;
out:
	gq_allowance_free(allowance);
	if (rc)
		v->failed = true;
	return rc;
}

const gq_pass_t *gq_view_pass(const gq_view_t *v)
{
	return &v->pass;
}

const gq_job_t *gq_view_job(const gq_view_t *v, uint32_t id)
{
	return gq_store_find(&v->pass.store, id);
}

int gq_view_njobs(const gq_view_t *v)
{
	return v ? gq_store_count(&v->pass.store) : 0;
}

const gq_job_t *gq_view_job_at(const gq_view_t *v, int i)
{
	return gq_store_at(&v->pass.store, i);
}

const gq_project_t *gq_view_project(const gq_view_t *v, int idx)
{
	return (idx >= 0 && idx < v->pass.reg.nproj) ? &v->pass.reg.proj[idx] : NULL;
}

int gq_view_nprojects(const gq_view_t *v)
{
	return v->pass.reg.nproj;
}

int gq_view_find_project(const gq_view_t *v, const char *account)
{
	return gq_registry_find(&v->pass.reg, account);
}

const gq_dept_t *gq_view_dept(const gq_view_t *v, int idx)
{
	return (idx >= 0 && idx < v->pass.reg.ndept) ? &v->pass.reg.dept[idx] : NULL;
}

int gq_view_ndepts(const gq_view_t *v)
{
	return v->pass.reg.ndept;
}

int gq_view_min_runtime(const gq_view_t *v)
{
	return v->min_runtime_pass;
}

void gq_view_job_gone(gq_view_t *v, uint32_t id)
{
	int idx = gq_store_index(&v->pass.store, id);
	bool was_running;
	gq_job_t *job;

	if (idx < 0 || !v->computed)
		return;
	job = gq_store_at(&v->pass.store, idx);
	was_running = job->in.state == GQ_JOB_RUNNING;
	_untally(v, job);
	gq_queue_unlate(&v->pass.reg, job, false);
	/* gone: waits for nothing of its own (not a begin-time waiter) */
	job->in.state = GQ_JOB_WAITING;
	job->in.begins_later = false;
	if (was_running)
		_shrink_candidates(v, job->project);
}

bool gq_view_may_reclaim(const gq_view_t *v, uint32_t preemptor_id)
{
	const gq_job_t *preemptor = gq_view_job(v, preemptor_id);

	return preemptor && gq_job_may_reclaim(preemptor);
}

bool gq_view_preemptable(const gq_view_t *v, uint32_t preemptee_id,
			 uint32_t preemptor_id)
{
	const gq_job_t *preemptor = gq_view_job(v, preemptor_id);
	const gq_job_t *preemptee;

	/* most preemptors Slurm asks about cannot reclaim: answer at once */
	if (!gq_view_may_reclaim(v, preemptor_id))
		return false;
	preemptee = gq_view_job(v, preemptee_id);
	if (!preemptee || preemptee->in.state != GQ_JOB_RUNNING ||
	    preemptee->project == preemptor->project)
		return false;
	if (preemptor->room)
		return !v->pass.reg.proj[preemptee->project].room_void &&
		       gq_room_pair(&v->room, preemptor->in.id,
				    preemptee->in.id);
	return gq_reclaim_allowed(&v->pass.reg, preemptee, preemptor) &&
	       !gq_saved_node_refuses(&v->saved, &v->pass, preemptor, preemptee);
}

uint32_t gq_view_preempt_rank(const gq_view_t *v, uint32_t id)
{
	const gq_job_t *job = gq_view_job(v, id);

	return job ? job->preempt_rank : UINT32_MAX;
}
