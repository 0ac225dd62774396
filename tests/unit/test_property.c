/*
 * test_property.c - the guarantees of the model on seeded random cases
 * (docs/MODEL.md): random clusters, projects, departments and jobs, random
 * events between passes; after every pass and event:
 *   - no project or department can be taken below its floor, whatever
 *     subset of the offered candidates Slurm requeues, for any mix of
 *     preemptors (the union of what every preemptor is offered);
 *   - no gpu_limit can be passed by the jobs gpuquota lets start;
 *   - no job that cannot be requeued may start outside quota;
 *   - fair shares respect their caps and add up to what can be given;
 *   - no job reclaims from its own project, and a victim requeued for a
 *     preemptor cannot reclaim back (no ping-pong);
 *   - GPUs are kept only for an in-quota job that has no room but would
 *     fit, and only work outside quotas waits for it (room wait);
 *   - an in-quota job that asks GPUs per node has a room set, no room, or
 *     a usual set that gives it room (never room it does not have).
 * Limits are checked after every event too: a submit between passes (a
 * job, an array) is judged on top of what the pass let start, begin-time
 * and dependency waiters included (they start on their own).
 * A reload (a quota changed) comes between the events and the next pass.
 * A pass may find reclaims in flight (gq_view_expect_reclaims before it,
 * gq_view_wait_for_reclaims after): pending preemptors whose victims'
 * GPUs are on their way.
 * With two pools (random_pools_keep_limits_in_every_pool), jobs list one
 * pool or both (a shadow in the other, gq_pools_shadow): each pool's view
 * keeps the guarantees above, and after Slurm starts everything the pools
 * let start (a job listing both in either, an array's tasks each in
 * either, as many as gq_pools_tasks_now), no pool's limit is passed.
 * With the clock stepping (random_clock_steps_bound_every_wait), the
 * controller's clock jumps +1 h, -1 h, +1 year or -1 year between passes
 * (real time runs on, a pass every 1 to 60 s), and across the steps:
 *   - the guarantees above hold at every pass, whatever the clock reads;
 *   - no job is exempt by min_runtime for min_runtime or more in a row
 *     (real time; the steps are longer than min_runtime);
 *   - a requeue's loss counts in the budget's window at most the window
 *     after it was written, plus one pass for each step back since (the
 *     time between the last reading and the step is not seen);
 *   - usage's reference is the clock at every advance (never frozen after
 *     a step back), and usage never grows while no project is above its
 *     quota;
 *   - no wait (a reclaim's settling time, work outside quotas waiting for
 *     a reclaim, a preemptor waiting for GPUs coming free, GPUs kept for a
 *     room waiter) lasts its length or more after the later of its start
 *     and the last step back;
 *   - slurmctld restarts one pass in ten: gpuquota's state is gone, each
 *     reclaim read back from its victim, warned or requeued (Slurm
 *     requeues a victim at the first pass past its grace time).  A wait
 *     read back lasts no longer than above, or than its length from the
 *     requeue, counted from the restart too when the clock stepped back
 *     before it (a preempt_time then lies ahead); the waits kept in
 *     memory alone begin again;
 *   - no job waits patiently for one loan for its patience plus a pass
 *     or more after the later of its first wait for it and the last step
 *     back (Slurm ends a job when the clock passes its time limit: a step
 *     forward ends loans, a step back makes them loans no more).
 * Odd cases keep GPUs for room waiters (settings.room_wait); even ones
 * note reclaims in flight instead (a pass forgets a reclaim whose
 * preemptor it does not see pending).
 * A failure prints its seed: GQ_SEED=<seed> replays that one case,
 * GQ_CASES=<n> runs more (make test runs a fixed budget).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "core/coming_free.h"
#include "core/pools.h"
#include "core/reclaim.h"
#include "core/room.h"
#include "core/waits.h"
#include "core/view.h"
#include "shared/job_facts.h"
#include "shared/pass_input.h"
#include "state/losses.h"
#include "state/state.h"
#include "state/usage.h"

#define MAXP 6
#define MAXD 2
#define MAXJ 48
#define MAXN 8
#define EPS 1e-6
#define DEFAULT_CASES 1500

static uint64_t rng;

static uint32_t rnd(uint32_t n)	/* xorshift64*, uniform enough here */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return n ? (uint32_t)((rng * 2685821657736338717ULL) >> 33) % n : 0;
}

typedef struct {
	gq_job_in_t in;
	int proj;
	int node;		/* running: where (one node) */
	bool live;		/* still known (not ended) */
	int pool;		/* with pools: running, its node's; pending,
				 * its home (the first it lists) */
	bool both;		/* pending, listing both pools */
} rjob_t;

typedef struct {
	uint64_t seed;
	int nproj, ndept, nnodes, gpn;
	char names[MAXP][16];
	char *acct[MAXP];
	gq_project_cfg_t p[MAXP];
	gq_dept_cfg_t d[MAXD];
	char dnames[MAXD][16];
	gq_config_t cfg;
	rjob_t jobs[MAXJ];
	int njobs;
	bool down[MAXN];	/* failed nodes: out of C */
	uint32_t next_id;
	int64_t now;
	/* with pools (make_pools): nodes split in two, numbers by pool */
	int node_pool[MAXN];
	gq_pool_cfg_t pools[2];
	char *parts[2];
	gq_pool_numbers_t pn[MAXP][2], dn[MAXD][2];
} world_t;

static void make_world(world_t *w, uint64_t seed)
{
	int i, used[MAXN] = { 0 };

	memset(w, 0, sizeof(*w));
	w->seed = seed;
	rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	w->nproj = 2 + rnd(MAXP - 1);
	w->ndept = rnd(MAXD + 1);
	w->nnodes = 1 + rnd(MAXN);
	w->gpn = 1 + rnd(8);
	for (i = 0; i < w->ndept; i++) {
		snprintf(w->dnames[i], sizeof(w->dnames[i]), "d%d", i);
		w->d[i].name = w->dnames[i];
		w->d[i].gpu_quota = rnd(w->nnodes * w->gpn + 1);
		w->d[i].over_quota_weight = rnd(4);
		w->d[i].gpu_limit = rnd(3) ? GQ_NO_LIMIT :
				    w->d[i].gpu_quota + (int)rnd(6);
	}
	for (i = 0; i < w->nproj; i++) {
		snprintf(w->names[i], sizeof(w->names[i]), "p%d", i);
		w->acct[i] = w->names[i];
		w->p[i].name = w->names[i];
		w->p[i].accounts = &w->acct[i];
		w->p[i].naccounts = 1;
		w->p[i].gpu_quota = rnd(w->gpn * 3 + 1);
		w->p[i].over_quota_weight = (double)rnd(4) / (1 + rnd(2));
		w->p[i].gpu_limit = rnd(3) ? GQ_NO_LIMIT :
				    w->p[i].gpu_quota + (int)rnd(5);
		w->p[i].department = w->ndept && rnd(2) ?
				     (int)rnd(w->ndept) : -1;
	}
	w->cfg.projects = w->p;
	w->cfg.nprojects = w->nproj;
	w->cfg.depts = w->d;
	w->cfg.ndepts = w->ndept;
	w->cfg.settings.min_runtime = rnd(2) ? 0 : 30;
	w->cfg.settings.recompute_interval = 2;
	w->now = 1000;
	w->next_id = 1;
	/* running jobs fill some GPUs, one node each */
	for (i = 0; i < w->nnodes * 2 && w->njobs < MAXJ / 2; i++) {
		int n = rnd(w->nnodes);
		uint32_t g = 1 + rnd(w->gpn);
		rjob_t *j;

		if (used[n] + (int)g > w->gpn)
			continue;
		used[n] += g;
		j = &w->jobs[w->njobs++];
		j->proj = rnd(w->nproj);
		j->node = n;
		j->live = true;
		j->in.id = w->next_id++;
		j->in.state = GQ_JOB_RUNNING;
		j->in.gpus = g;
		j->in.tasks = 1;
		j->in.requeueable = rnd(5) != 0;
		j->in.order = rnd(3);
		j->in.start_time = j->in.submit_time = w->now - rnd(100);
	}
}

static void random_pending(world_t *w, rjob_t *j)
{
	j->proj = rnd(w->nproj);
	j->node = -1;
	j->live = true;
	j->in.id = w->next_id++;
	j->in.state = rnd(6) ? GQ_JOB_PENDING : GQ_JOB_WAITING;
	j->in.begins_later = j->in.state == GQ_JOB_WAITING && rnd(2);
	j->in.gpus = rnd(8) ? 1 + rnd(w->gpn) : 0;
	j->in.tasks = rnd(5) ? 1 : 2 + rnd(3);
	j->in.tasks_at_once = j->in.tasks > 1 && rnd(2) ? 1 + rnd(2) : 0;
	j->in.requeueable = rnd(4) != 0;
	j->in.order = rnd(3);
	j->in.submit_time = w->now - rnd(50);
	/* a --time on one job in four (no draw: the seeds' worlds stay) */
	j->in.time_limit = j->in.id % 4 ? 0 : 60 * (1 + j->in.id % 7);
	if (rnd(2) && j->in.gpus) {
		j->in.nodes = 1 + rnd(2);
		j->in.gpus_per_node = (j->in.gpus + j->in.nodes - 1) /
				      j->in.nodes;
		if (j->in.gpus_per_node > (uint32_t)w->gpn)
			j->in.gpus_per_node = w->gpn;
	}
}

static double capacity(const world_t *w)
{
	int i, up = 0;

	for (i = 0; i < w->nnodes; i++)
		up += !w->down[i];
	return (double)up * w->gpn;
}

/*
 * Reclaims in flight at a pass (Slurm requeued victims for a preemptor
 * that has not started yet): up to two pending jobs of the world, each
 * with its victims' nodes (1 or 2 drawn, or not known).  Or a moved job's
 * landing (move.h): a running job (in its grace time) or a pending one
 * (its requeue delay) and one node.  Into r; how many.
 */
static int in_flight(world_t *w, gq_reclaim_at_t *r)
{
	int n = 0, tries, k;

	for (tries = 0; tries < 4 && n < 2; tries++) {
		rjob_t *j = &w->jobs[rnd(w->njobs ? w->njobs : 1)];
		bool landing = !rnd(3);

		if (!w->njobs || !j->live || !j->in.gpus ||
		    (j->in.state != GQ_JOB_PENDING &&
		     !(landing && j->in.state == GQ_JOB_RUNNING)))
			continue;
		r[n].preemptor = j->in.id;
		r[n].landing = landing;
		if (landing) {
			r[n].nnodes = 1;
			r[n].node[0] = rnd(w->nnodes);
			n++;
			continue;
		}
		r[n].nnodes = (int)rnd(3) - 1;	/* -1: any node */
		if (!r[n].nnodes)
			r[n].nnodes = -1;
		for (k = 0; k < r[n].nnodes; k++)
			r[n].node[k] = rnd(w->nnodes);
		n++;
	}
	return n;
}

/* The world's live jobs, placed, and its nodes' idle GPUs into view v. */
static void fill_view(const world_t *w, gq_view_t *v)
{
	uint32_t idle[MAXN];
	int i;

	gq_view_begin(v, capacity(w), w->now);
	ck_assert_int_eq(gq_view_set_nodes(v, w->nnodes), 0);
	for (i = 0; i < w->nnodes; i++)
		idle[i] = w->gpn;
	for (i = 0; i < w->njobs; i++) {
		const rjob_t *j = &w->jobs[i];

		if (!j->live)
			continue;
		ck_assert_ptr_nonnull(gq_view_add_job(v, w->names[j->proj], &j->in));
		if (j->in.state != GQ_JOB_RUNNING)
			continue;
		ck_assert_int_eq(gq_view_place(v, j->in.id, j->node,
					       j->in.gpus), 0);
		idle[j->node] -= j->in.gpus;
	}
	for (i = 0; i < w->nnodes; i++)
		if (!w->down[i])
			gq_view_node_free(v, i, idle[i]);
	/* switches in two seeds of three, from the seed (no draw) */
	for (i = 0; w->seed % 3 && i < w->nnodes; i++)
		ck_assert_int_eq(gq_view_node_domain(v, i,
				 i % (int)(1 + w->seed % 3)), 0);
}

/*
 * A job held for a reclaim in flight (or a landing) is pending, waits for
 * one of them, never for itself, and that job still waits
 * (gq_waits_still_for).  It is outside quotas, or in quota and held for
 * an in-quota gang's reclaim (a preemptor of several nodes) while it is
 * no preemptor in flight itself.
 */
static void check_reclaim_holds(const gq_view_t *v, const world_t *w,
				const gq_reclaim_at_t *r, int nr)
{
	int k, i;

	for (k = 0; k < w->njobs; k++) {
		const gq_job_t *j = gq_view_job(v, w->jobs[k].in.id);
		const gq_job_t *er;
		bool known = false, gang = false, self = false;

		if (!j || j->hold != GQ_HOLD_RECLAIM)
			continue;
		er = gq_view_job(v, j->waits_for);
		for (i = 0; i < nr; i++) {
			known |= r[i].preemptor == j->waits_for &&
				 gq_waits_still_for(&r[i], er);
			gang |= r[i].preemptor == j->waits_for &&
				!r[i].landing && er && er->in.nodes > 1 &&
				er->band == GQ_BAND_IN_QUOTA;
			self |= r[i].preemptor == j->in.id;
		}
		ck_assert_msg((j->in.state == GQ_JOB_PENDING ||
			       j->in.begins_later) &&
			      (j->band != GQ_BAND_IN_QUOTA || (gang && !self)) &&
			      known && j->waits_for != j->in.id,
			      "seed %llu: job %u (state %d, band %d) held for %u",
			      (unsigned long long)w->seed, j->in.id,
			      j->in.state, j->band, j->waits_for);
	}
}

static gq_view_t *pass(world_t *w)
{
	gq_view_t *v = gq_view_create(&w->cfg);
	gq_reclaim_at_t r[2];
	int nr = rnd(3) ? 0 : in_flight(w, r);

	ck_assert_ptr_nonnull(v);
	fill_view(w, v);
	ck_assert_int_eq(gq_view_expect_reclaims(v, r, nr), 0);
	ck_assert_msg(gq_view_compute(v) == 0, "seed %llu: pass failed",
		      (unsigned long long)w->seed);
	gq_view_wait_for_reclaims(v, r, nr);
	check_reclaim_holds(v, w, r, nr);
	return v;
}

static const gq_project_t *proj_of(const gq_view_t *v, const world_t *w,
				   int i)
{
	return gq_view_project(v, gq_view_find_project(v, w->names[i]));
}

/* GPUs of project i's running jobs that pending jobs `pick` may take */
enum { ANY, Q_IN, F_IN, Q_OUT, F_OUT, ALL_IN, ALL_OUT };

static bool kind_match(const gq_view_t *v, const gq_job_t *ee,
		       const gq_job_t *er, int kind)
{
	int de = gq_view_project(v, ee->project)->department;
	int dr = gq_view_project(v, er->project)->department;
	bool out = de >= 0 && de != dr;
	bool q = er->band == GQ_BAND_IN_QUOTA;

	switch (kind) {
	case Q_IN: return !out && q;
	case F_IN: return !out && !q;
	case Q_OUT: return out && q;
	case F_OUT: return out && !q;
	case ALL_IN: return !out;
	case ALL_OUT: return out;
	default: return true;
	}
}

static double offered(const gq_view_t *v, const world_t *w, int pi,
		      int dept, int kind)
{
	double sum = 0;
	int a, b;

	for (a = 0; a < w->njobs; a++) {
		const gq_job_t *ee = gq_view_job(v, w->jobs[a].in.id);
		bool taken = false;

		if (!ee || ee->in.state != GQ_JOB_RUNNING ||
		    (pi >= 0 && ee->project != gq_view_find_project(v, w->names[pi])) ||
		    (dept >= 0 && gq_view_project(v, ee->project)->department != dept))
			continue;
		for (b = 0; b < w->njobs && !taken; b++) {
			const gq_job_t *er = gq_view_job(v, w->jobs[b].in.id);

			taken = er && er->in.state == GQ_JOB_PENDING &&
				kind_match(v, ee, er, kind) &&
				gq_view_preemptable(v, ee->in.id, er->in.id);
		}
		if (taken)
			sum += ee->in.gpus;
	}
	return sum;
}

static void check_floor(const world_t *w, double sum, double alloc,
			double floor, const char *what, const char *who)
{
	double room = alloc - floor > 0 ? alloc - floor : 0;

	ck_assert_msg(sum <= room + EPS,
		      "seed %llu: %s %s: offered %g GPUs, holds %g, floor %g",
		      (unsigned long long)w->seed, who, what, sum, alloc,
		      floor);
}

static void check_floors(const gq_view_t *v, const world_t *w)
{
	int i, d;

	for (i = 0; i < w->nproj; i++) {
		const gq_project_t *p = proj_of(v, w, i);
		double q = p->quota, f = p->share, qo = p->quota_out;

		if (!p)
			continue;
		check_floor(w, offered(v, w, i, -1, Q_IN), p->alloc, q,
			    "quota reclaim", p->name);
		check_floor(w, offered(v, w, i, -1, F_IN), p->alloc,
			    fmax(q, f), "fair-share reclaim", p->name);
		check_floor(w, offered(v, w, i, -1, ALL_IN), p->alloc, q,
			    "reclaim from inside", p->name);
		check_floor(w, offered(v, w, i, -1, Q_OUT), p->alloc, qo,
			    "quota reclaim from outside", p->name);
		check_floor(w, offered(v, w, i, -1, F_OUT), p->alloc,
			    fmax(qo, f), "fair-share reclaim from outside",
			    p->name);
		check_floor(w, offered(v, w, i, -1, ANY), p->alloc,
			    fmin(q, qo), "any reclaim", p->name);
	}
	for (d = 0; d < gq_view_ndepts(v); d++) {
		const gq_dept_t *dp = gq_view_dept(v, d);

		check_floor(w, offered(v, w, -1, d, ALL_OUT), dp->alloc,
			    dp->quota, "reclaim from outside", dp->name);
		check_floor(w, offered(v, w, -1, d, F_OUT), dp->alloc,
			    fmax(dp->quota, dp->share),
			    "fair-share reclaim from outside", dp->name);
	}
}

/*
 * What a job may start before the next pass: tasks_now of its tasks (the
 * plugin throttles an array to it), at least one and at most all it may
 * start at once when it is not held.
 */
static double starts(const gq_job_t *j, const world_t *w)
{
	uint32_t n = j->in.tasks ? j->in.tasks : 1;

	if (j->in.tasks_at_once && j->in.tasks_at_once < n)
		n = j->in.tasks_at_once;
	if (j->in.gpus)
		ck_assert_msg(j->tasks_now >= 1 && j->tasks_now <= n,
			      "seed %llu: job %u may start %u of %u tasks",
			      (unsigned long long)w->seed, j->in.id,
			      j->tasks_now, n);
	return (double)j->in.gpus * j->tasks_now;
}

/* What gpuquota lets start stays within limits and quotas. */
static void check_holds(const gq_view_t *v, const world_t *w)
{
	double start[MAXP] = { 0 }, dstart[MAXD] = { 0 }, inq[MAXP] = { 0 };
	int i, k;

	for (k = 0; k < w->njobs; k++) {
		const gq_job_t *j = gq_view_job(v, w->jobs[k].in.id);
		const gq_project_t *p;

		/* eligible jobs, and jobs that become eligible on their own */
		if (!j || j->hold || (j->in.state != GQ_JOB_PENDING &&
				      !j->in.begins_later))
			continue;
		p = gq_view_project(v, j->project);
		/* a job that cannot be requeued starts only inside quota
		 * (A of an eligible job: all it may start, and before it) */
		if (!j->in.requeueable && j->in.gpus &&
		    j->in.state == GQ_JOB_PENDING)
			ck_assert_msg(j->cum <= p->quota + EPS,
				      "seed %llu: job %u cannot be requeued, A %g > quota %g",
				      (unsigned long long)w->seed, j->in.id,
				      j->cum, p->quota);
		/* the jobs banded in quota fit the quota together */
		if (j->project < MAXP && j->band == GQ_BAND_IN_QUOTA &&
		    j->in.state == GQ_JOB_PENDING) {
			inq[j->project] += starts(j, w);
			ck_assert_msg(p->alloc + inq[j->project] <= p->quota + EPS,
				      "seed %llu: %s's in-quota jobs reach %g > quota %g",
				      (unsigned long long)w->seed, p->name,
				      p->alloc + inq[j->project], p->quota);
		}
		if (j->project < MAXP)
			start[j->project] += starts(j, w);
		if (p->department >= 0)
			dstart[p->department] += starts(j, w);
	}
	for (i = 0; i < gq_view_nprojects(v) && i < MAXP; i++) {
		const gq_project_t *p = gq_view_project(v, i);

		/* every unheld job starting at once (one task of an array) */
		if (start[i])
			ck_assert_msg(p->alloc + start[i] <= p->limit + EPS,
				      "seed %llu: %s could reach %g > gpu_limit %g",
				      (unsigned long long)w->seed, p->name,
				      p->alloc + start[i], p->limit);
	}
	for (i = 0; i < gq_view_ndepts(v); i++) {
		const gq_dept_t *d = gq_view_dept(v, i);

		if (dstart[i])
			ck_assert_msg(d->alloc + dstart[i] <= d->limit + EPS,
				      "seed %llu: department %s could reach %g > gpu_limit %g",
				      (unsigned long long)w->seed, d->name,
				      d->alloc + dstart[i], d->limit);
	}
}

/* the shares of a view whose capacity (GPUs of up nodes) is c */
static void check_shares(const gq_view_t *v, const world_t *w, double c)
{
	double sum = 0, cap = 0;
	bool all_weighted = true;
	int i;

	for (i = 0; i < gq_view_nprojects(v); i++) {
		const gq_project_t *p = gq_view_project(v, i);
		double d = p->alloc + (double)p->pending;

		ck_assert_msg(p->share <= fmin(d, p->limit) + EPS,
			      "seed %llu: %s fair share %g over min(D %g, L %g)",
			      (unsigned long long)w->seed, p->name, p->share,
			      d, p->limit);
		if (p->department < 0) {
			sum += p->share;
			cap += fmin(d, p->limit);
			all_weighted &= p->weight > 0;
		}
	}
	for (i = 0; i < gq_view_ndepts(v); i++) {
		const gq_dept_t *d = gq_view_dept(v, i);

		sum += d->share;
		cap += fmin(d->demand, d->limit);
		all_weighted &= d->weight > 0;
	}
	ck_assert_msg(sum <= c + EPS,
		      "seed %llu: shares %g exceed C", (unsigned long long)w->seed, sum);
	if (all_weighted)
		ck_assert_msg(fabs(sum - fmin(c, cap)) < EPS,
			      "seed %llu: shares add up to %g, not min(C %g, demand %g)",
			      (unsigned long long)w->seed, sum, c, cap);
}

/*
 * Take one offered victim for one preemptor, as Slurm would, and run the
 * next pass: the victim, pending again, may not take back from the
 * preemptor's project.
 */
static void check_no_ping_pong(world_t *w, gq_view_t *v)
{
	int a, b, ee = -1, er = -1;

	for (b = 0; b < w->njobs && ee < 0; b++)
		for (a = 0; a < w->njobs; a++)
			if (w->jobs[a].live && w->jobs[b].live &&
			    gq_view_preemptable(v, w->jobs[a].in.id,
						w->jobs[b].in.id)) {
				ee = a;
				er = b;
				break;
			}
	if (ee < 0 || w->jobs[er].in.tasks > 1) {
		gq_view_free(v);
		return;
	}
	/* the victim is requeued, the preemptor runs on its node */
	w->jobs[ee].in.state = GQ_JOB_PENDING;
	w->jobs[ee].in.submit_time = ++w->now;
	w->jobs[er].in.state = GQ_JOB_RUNNING;
	w->jobs[er].in.start_time = w->now;
	w->jobs[er].node = w->jobs[ee].node;
	w->jobs[ee].node = -1;
	if (w->jobs[er].in.gpus > w->jobs[ee].in.gpus)
		w->jobs[er].in.gpus = w->jobs[ee].in.gpus;	/* fits there */
	gq_view_free(v);
	v = pass(w);
	for (a = 0; a < w->njobs; a++) {
		const gq_job_t *x = gq_view_job(v, w->jobs[a].in.id);

		if (x && x->in.state == GQ_JOB_RUNNING &&
		    w->jobs[a].proj == w->jobs[er].proj)
			ck_assert_msg(!gq_view_preemptable(v, x->in.id,
							  w->jobs[ee].in.id),
				      "seed %llu: ping-pong: job %u, requeued for job %u, may take job %u back",
				      (unsigned long long)w->seed,
				      w->jobs[ee].in.id, w->jobs[er].in.id,
				      x->in.id);
	}
	gq_view_free(v);
}

/*
 * The saved node (docs/MODEL.md "The saved node"), W's node saved by
 * gq_view_keep_room: a job that keeps off it is a usual preemptor, not W,
 * and can start on another up node from its idle GPUs plus the victims
 * it may take there; every victim with GPUs on W's node is refused to it.
 */
static int saved_kept_off;	/* Each node's idle GPUs in the world (0 when down) into idle[]; returns
 * how many nodes are up. */
static int world_idle(const world_t *w, uint32_t *idle)
{
	int a, node, up = 0;

	for (node = 0; node < w->nnodes; node++) {
		idle[node] = w->down[node] ? 0 : w->gpn;
		up += !w->down[node];
	}
	for (a = 0; a < w->njobs; a++)
		if (w->jobs[a].live && w->jobs[a].in.state == GQ_JOB_RUNNING)
			idle[w->jobs[a].node] -= w->jobs[a].in.gpus;
	return up;
}

/* The up nodes other than `skip` (-1: none) where job `id` finds `need`
 * GPUs: idle, plus the running jobs there the view offers it. */
static int nodes_with_room(const gq_view_t *v, const world_t *w,
			   const uint32_t *idle, uint32_t id, uint32_t need,
			   int skip)
{
	int node, b, rooms = 0;

	for (node = 0; node < w->nnodes; node++) {
		uint32_t r = idle[node];

		if (node == skip || w->down[node])
			continue;
		for (b = 0; b < w->njobs; b++)
			if (w->jobs[b].live && w->jobs[b].node == node &&
			    w->jobs[b].in.state == GQ_JOB_RUNNING &&
			    gq_view_preemptable(v, w->jobs[b].in.id, id))
				r += w->jobs[b].in.gpus;
		rooms += r >= need;
	}
	return rooms;
}

/* jobs seen keeping off a saved node */

static void check_saved_node(gq_view_t *v, const world_t *w,
			     const uint32_t *idle, uint32_t waiter)
{
	int saved = gq_view_saved_node(v)->node, a, b, fit;

	ck_assert_uint_eq(gq_view_saved_for(v), waiter);
	for (a = 0; a < w->njobs; a++) {
		const gq_job_t *p = gq_view_job(v, w->jobs[a].in.id);
		uint32_t need;

		if (!w->jobs[a].live || !p || !p->off_saved)
			continue;
		saved_kept_off++;
		ck_assert_msg(gq_job_may_reclaim(p) && !p->room &&
			      p->in.id != waiter,
			      "seed %llu: job %u keeps off the saved node, may not reclaim",
			      (unsigned long long)w->seed, p->in.id);
		need = p->in.gpus_per_node ? p->in.gpus_per_node : p->in.gpus;
		fit = nodes_with_room(v, w, idle, p->in.id, need, saved);
		ck_assert_msg(fit >= (int)(p->in.nodes ? p->in.nodes : 1) ||
			      (!p->in.gpus_per_node && p->in.nodes > 1),
			      "seed %llu: job %u keeps off node %d but fits on %d other nodes",
			      (unsigned long long)w->seed, p->in.id, saved, fit);
		for (b = 0; b < w->njobs; b++)
			ck_assert_msg(!w->jobs[b].live || w->jobs[b].node != saved ||
				      w->jobs[b].in.state != GQ_JOB_RUNNING ||
				      !gq_view_preemptable(v, w->jobs[b].in.id,
							   p->in.id),
				      "seed %llu: job %u takes victim %u on the saved node %d",
				      (unsigned long long)w->seed, p->in.id,
				      w->jobs[b].in.id, saved);
	}
}

/*
 * Room sets count idle GPUs once per pass (docs/MODEL.md "Making room"):
 * a waiter that finds room with every node's idle GPUs may lack it once a
 * room set made before it counted them.  Then another pending job that
 * asks GPUs per node has a room set, and the waiter's victims alone give
 * too few nodes (victims are shared, so they never explain it).
 */
static bool idle_counted(const gq_view_t *v, const world_t *w,
			 const gq_job_t *er)
{
	uint32_t none[MAXN] = { 0 };
	int a;

	if (nodes_with_room(v, w, none, er->in.id, er->in.gpus_per_node,
			    -1) >= (int)er->in.nodes)
		return false;
	for (a = 0; a < w->njobs; a++) {
		const gq_job_t *r = gq_view_job(v, w->jobs[a].in.id);

		if (w->jobs[a].live && r && r != er && r->room &&
		    r->in.state == GQ_JOB_PENDING && r->in.gpus_per_node)
			return true;
	}
	return false;
}

/*
 * The room wait (docs/MODEL.md "Holds"): a job freed GPUs may be kept for
 * is pending, in quota, not held, without a room set, and needs more than
 * one GPU; it would fit on the
 * nodes that are up were they empty (a job that can never fit keeps
 * nothing), and fewer than the nodes it needs have room for it from their
 * idle GPUs and the jobs there it may take (idle GPUs a room set counted
 * excepted: idle_counted).  Keeping GPUs for the first
 * holds only pending work outside quotas, and no floor moves.
 */
static void check_room_wait(gq_view_t *v, const world_t *w)
{
	const uint32_t *ids;
	int n = gq_view_room_waiters(v, &ids), i, a, up, rooms, first = -1;
	const gq_room_node_t *kept;
	uint32_t idle[MAXN];

	up = world_idle(w, idle);
	for (i = 0; i < n; i++) {
		const gq_job_t *er = gq_view_job(v, ids[i]);

		ck_assert_ptr_nonnull(er);
		/* held since the listing for a gang's reclaim in flight
		 * (check_reclaim_holds): it waits for that instead */
		if (er->hold == GQ_HOLD_RECLAIM)
			continue;
		if (first < 0)
			first = i;
		ck_assert_msg(er->in.state == GQ_JOB_PENDING && !er->hold &&
			      er->band == GQ_BAND_IN_QUOTA && !er->room &&
			      er->in.gpus_per_node &&
			      (er->in.gpus_per_node > 1 || er->in.nodes > 1),
			      "seed %llu: job %u waits for room: state %d hold %d band %d room %d",
			      (unsigned long long)w->seed, er->in.id,
			      er->in.state, er->hold, er->band, er->room);
		ck_assert_msg(er->in.gpus_per_node <= (uint32_t)w->gpn &&
			      er->in.nodes <= (uint32_t)up,
			      "seed %llu: job %u waits for room it can never get (%u GPUs on %u nodes, %d up nodes of %d)",
			      (unsigned long long)w->seed, er->in.id,
			      er->in.gpus_per_node, er->in.nodes, up, w->gpn);
		rooms = nodes_with_room(v, w, idle, er->in.id,
					er->in.gpus_per_node, -1);
		ck_assert_msg(rooms < (int)er->in.nodes ||
			      idle_counted(v, w, er),
			      "seed %llu: job %u waits for room, but %d nodes have it",
			      (unsigned long long)w->seed, er->in.id, rooms);
	}
	if (first < 0)
		return;
	ids += first;
	/* a listed waiter fits an up node emptied: one is chosen */
	ck_assert(gq_view_keep_room(v, ids[0], -1));
	ck_assert_uint_eq(gq_view_kept_for(v), ids[0]);
	kept = gq_view_kept_node(v);
	ck_assert_msg(kept->node >= 0 && !w->down[kept->node] &&
		      kept->gpus >= gq_view_job(v, ids[0])->in.gpus_per_node,
		      "seed %llu: GPUs kept on node %d", (unsigned long long)w->seed,
		      kept->node);
	for (a = 0; a < w->njobs; a++) {
		const gq_job_t *j = gq_view_job(v, w->jobs[a].in.id);

		if (!w->jobs[a].live || !j || j->hold != GQ_HOLD_ROOM)
			continue;
		/* held: outside quotas, and could start on the kept node */
		ck_assert_msg((j->in.state == GQ_JOB_PENDING ||
			       j->in.begins_later) &&
			      j->band != GQ_BAND_IN_QUOTA &&
			      j->waits_for == ids[0] &&
			      gq_waits_could_land(&gq_view_pass(v)->nodes, j, kept),
			      "seed %llu: job %u held for room: band %d waits for %u",
			      (unsigned long long)w->seed, j->in.id, j->band,
			      j->waits_for);
	}
	check_saved_node(v, w, idle, ids[0]);
	check_floors(v, w);
}

/* The moved jobs landing on each node (land[]) fit in its idle GPUs
 * and the GPUs there of projects over their quota. */
static void check_landings(const world_t *w, const gq_view_t *v,
			   const uint32_t *idle, const uint32_t *land)
{
	uint32_t cap;
	int a, node;

	for (node = 0; node < w->nnodes; node++) {
		for (a = 0, cap = idle[node]; a < w->njobs; a++) {
			const rjob_t *j = &w->jobs[a];
			const gq_project_t *p = proj_of(v, w, j->proj);

			/* over its quota, or over its part of its
			 * department's against reclaim from outside */
			if (j->live && j->in.state == GQ_JOB_RUNNING &&
			    j->node == node &&
			    p->alloc > fmin(p->quota, p->quota_out))
				cap += j->in.gpus;
		}
		ck_assert_msg(land[node] <= cap,
			      "seed %llu: %u GPUs land on node %d, room %u",
			      (unsigned long long)w->seed, land[node], node, cap);
	}
}

static int moves_made;	/* moves offered (check_move) */
static int gang_moves;	/* of them, for a gang */

/*
 * Moves (docs/MODEL.md "Moves"), on a pass of their own: a moved job is
 * taken below its project's floor by design, so the offers checked
 * above stay apart.  The waiter's victims are all on its saved nodes
 * (one, or a gang's), their GPUs on each at most its GPUs per node, and
 * with the node's idle GPUs they make room on every one.  Each moved job
 * is another project's, requeueable, younger than move_age, and lands
 * on an up node none of the waiter's; the moved jobs
 * landing on a node fit in its idle GPUs and the GPUs there of projects
 * over their quota.
 */
static void check_move(const world_t *world)
{
	static world_t copy;	/* running jobs without time limits */
	const world_t *w = &copy;
	gq_view_t *v = gq_view_create(&world->cfg);
	gq_move_rules_t r = { .age = 40 + (int64_t)(world->seed % 80),
			      .waited = 1 };
	uint32_t idle[MAXN], land[MAXN] = { 0 }, sum[MAXN] = { 0 };
	const uint32_t *ids;
	const gq_move_t *m;
	const gq_job_t *er;
	const int *sv;
	int a, node, moved = 0, ns, n;

	/* a running job's ends_by is its old submit time here: in the past,
	 * so every node would look free soon */
	copy = *world;
	for (a = 0; a < copy.njobs; a++)
		if (copy.jobs[a].in.state == GQ_JOB_RUNNING)
			copy.jobs[a].in.ends_by = 0;
	fill_view(w, v);
	ck_assert_int_eq(gq_view_compute(v), 0);
	if (!(n = gq_view_room_waiters(v, &ids)))
		goto out;
	/* odd seeds: the first gang among the waiters, when there is one */
	for (a = 0; world->seed % 2 && a < n; a++)
		if (gq_view_job(v, ids[a])->in.nodes > 1)
			break;
	if (!gq_view_save_node(v, ids[a < n ? a : 0], -1) ||
	    !gq_view_move(v, &r))
		goto out;
	moves_made++;
	m = gq_view_move_of(v);
	er = gq_view_job(v, m->waiter);
	ck_assert_uint_eq(m->waiter, gq_view_saved_for(v));
	ck_assert_int_eq(m->node, gq_view_saved_node(v)->node);
	ns = gq_view_saved_nodes(v, &sv);
	for (node = 0; node < w->nnodes; node++)
		idle[node] = w->down[node] ? 0 : w->gpn;
	for (a = 0; a < w->njobs; a++)
		if (w->jobs[a].live && w->jobs[a].in.state == GQ_JOB_RUNNING)
			idle[w->jobs[a].node] -= w->jobs[a].in.gpus;
	for (a = 0; a < w->njobs; a++) {
		const rjob_t *j = &w->jobs[a];
		int to;

		if (!j->live || j->in.state != GQ_JOB_RUNNING ||
		    !gq_view_preemptable(v, j->in.id, m->waiter))
			continue;
		ck_assert_msg(gq_node_in(sv, ns, j->node),
			      "seed %llu: move for %u takes %u on node %d, not its",
			      (unsigned long long)w->seed, m->waiter, j->in.id,
			      j->node);
		sum[j->node] += j->in.gpus;
		if ((to = gq_view_move_to(v, m->waiter, j->in.id)) < 0)
			continue;
		moved++;
		ck_assert_msg(gq_view_job(v, j->in.id)->project != er->project &&
			      j->in.requeueable &&
			      w->now - j->in.start_time < r.age &&
			      !gq_node_in(sv, ns, to) && !w->down[to],
			      "seed %llu: job %u moved to node %d",
			      (unsigned long long)w->seed, j->in.id, to);
		land[to] += j->in.gpus;
	}
	ck_assert_int_eq(moved, m->n);
	for (a = 0; a < ns; a++)
		ck_assert_msg(sum[sv[a]] <= er->in.gpus_per_node &&
			      idle[sv[a]] + sum[sv[a]] >= er->in.gpus_per_node,
			      "seed %llu: move for %u requeues %u GPUs on node %d, %u idle, needs %u",
			      (unsigned long long)w->seed, m->waiter,
			      sum[sv[a]], sv[a], idle[sv[a]],
			      er->in.gpus_per_node);
	gang_moves += ns > 1;
	check_landings(w, v, idle, land);
out:
	gq_view_free(v);
}

/*
 * A gang's room set never spreads over more nodes than it asks (docs/
 * MODEL.md "Gangs"): its victims (the pairs gq_view_preemptable answers
 * for a job with room) sit on at most in.nodes nodes.
 */
static void check_gang_room(const gq_view_t *v, const world_t *w)
{
	int a, b, n;

	for (a = 0; a < w->njobs; a++) {
		const gq_job_t *p = gq_view_job(v, w->jobs[a].in.id);
		bool on[MAXN] = { false };

		if (!w->jobs[a].live || !p || !p->room || p->in.nodes < 2)
			continue;
		for (b = 0; b < w->njobs; b++)
			if (w->jobs[b].live && w->jobs[b].node >= 0 &&
			    gq_view_preemptable(v, w->jobs[b].in.id, p->in.id))
				on[w->jobs[b].node] = true;
		for (b = n = 0; b < w->nnodes; b++)
			n += on[b];
		ck_assert_msg(n <= (int)p->in.nodes,
			      "seed %llu: gang %u of %u nodes takes victims on %d",
			      (unsigned long long)w->seed, p->in.id,
			      p->in.nodes, n);
	}
}

/*
 * Every pending job that may reclaim and asks GPUs per node is told its
 * room (docs/MODEL.md "Making room"): a room set, no room (roomless), or
 * a usual set that gives it room on as many nodes as it asks, from each
 * up node's idle GPUs and the running jobs there it may take.  A job
 * told it fits the usual sets, but which they do not fit, is tried first
 * and stops Slurm's main cycle for its partition.
 */
static void check_room_told(const gq_view_t *v, const world_t *w)
{
	uint32_t idle[MAXN];
	int a, rooms;

	world_idle(w, idle);
	for (a = 0; a < w->njobs; a++) {
		const gq_job_t *p = gq_view_job(v, w->jobs[a].in.id);

		if (!w->jobs[a].live || !p || p->in.state != GQ_JOB_PENDING ||
		    p->hold || p->patient || !p->in.gpus_per_node ||
		    p->band != GQ_BAND_IN_QUOTA || !gq_job_may_reclaim(p) ||
		    p->room || p->roomless)
			continue;
		rooms = nodes_with_room(v, w, idle, p->in.id,
					p->in.gpus_per_node, -1);
		ck_assert_msg(rooms >= (int)(p->in.nodes ? p->in.nodes : 1),
			      "seed %llu: job %u (%u GPUs on each of %u nodes) is left to its usual set, which gives room on %d nodes",
			      (unsigned long long)w->seed, p->in.id,
			      p->in.gpus_per_node, p->in.nodes, rooms);
	}
}

static void check_all(gq_view_t *v, world_t *w)
{
	int a, b;

	check_floors(v, w);
	check_holds(v, w);
	for (a = 0; a < w->njobs; a++)
		for (b = 0; b < w->njobs; b++)
			if (w->jobs[a].proj == w->jobs[b].proj)
				ck_assert(!gq_view_preemptable(v, w->jobs[a].in.id,
							       w->jobs[b].in.id));
	check_room_told(v, w);
	check_room_wait(v, w);
	check_gang_room(v, w);
	check_move(w);
}

/*
 * Slurm starts pending job j on a node with room for it, if any (one node
 * each in this world); it runs from the next pass on.
 */
static void start_job(world_t *w, rjob_t *j)
{
	int used[MAXN] = { 0 }, i, n;

	for (i = 0; i < w->njobs; i++)
		if (w->jobs[i].live && w->jobs[i].in.state == GQ_JOB_RUNNING)
			used[w->jobs[i].node] += w->jobs[i].in.gpus;
	for (n = 0; n < w->nnodes; n++)
		if (!w->down[n] && used[n] + (int)j->in.gpus <= w->gpn)
			break;
	if (n == w->nnodes)
		return;
	j->in.state = GQ_JOB_RUNNING;
	j->in.begins_later = false;
	j->in.start_time = w->now;
	j->in.nodes = j->in.gpus_per_node = 0;
	j->node = n;
}

/*
 * Events between passes, as slurmctld reports them to the view: a submit
 * (priority_p_set), a reclaim of any subset of one preemptor's offered
 * candidates (each victim gone), a job that ends (reported by Slurm), or
 * ends unreported (without AccountingStorageEnforce=limits) and is found
 * ended by preempt/gpuquota when it next offers candidates, a node
 * that fails (its jobs requeued; C drops at the next pass).  Floors and
 * limits after each.  And what Slurm does that the view learns only at
 * the next pass: a job started (one gpuquota lets start), a person's hold,
 * a dependency or begin time cleared; the next pass's guarantees are
 * checked on the world they leave.
 */
static void events(world_t *w, gq_view_t *v)
{
	int e, nev = 1 + rnd(6), a, b;

	for (e = 0; e < nev; e++) {
		switch (rnd(7)) {
		case 6:	/* jobs end unreported: found ended (_note_ends in
			 * preempt_gpuquota.c) before the next candidate */
			for (a = rnd(3); a >= 0; a--) {
				b = rnd(w->njobs);
				w->jobs[b].live = false;
			}
			for (a = 0; a < w->njobs; a++)
				if (!w->jobs[a].live &&
				    gq_view_job(v, w->jobs[a].in.id))
					gq_view_job_gone(v, w->jobs[a].in.id);
			break;
		case 5:	/* a person holds a pending job (scontrol hold), or a
			 * waiter's dependency clears / begin time passes: the
			 * view learns of it at the next pass; until then what
			 * it lets start must hold as it is */
			a = rnd(w->njobs);
			if (w->jobs[a].live &&
			    w->jobs[a].in.state != GQ_JOB_RUNNING) {
				bool held = w->jobs[a].in.state ==
					    GQ_JOB_PENDING;

				w->jobs[a].in.state = held ? GQ_JOB_WAITING :
							     GQ_JOB_PENDING;
				w->jobs[a].in.begins_later = false;
			}
			break;
		case 4:	/* Slurm starts a job gpuquota lets start: eligible
			 * and not held, or a waiter on its own (begins_later);
			 * the view learns of it at the next pass */
			a = rnd(w->njobs);
			if (w->jobs[a].live && w->jobs[a].in.gpus &&
			    w->jobs[a].in.tasks == 1 &&
			    (w->jobs[a].in.state == GQ_JOB_PENDING ||
			     w->jobs[a].in.begins_later)) {
				const gq_job_t *j = gq_view_job(v, w->jobs[a].in.id);

				if (j && !j->hold)
					start_job(w, &w->jobs[a]);
			}
			break;
		case 3:	/* a node fails: Slurm requeues its jobs */
			b = rnd(w->nnodes);
			w->down[b] = true;
			for (a = 0; a < w->njobs; a++)
				if (w->jobs[a].live && w->jobs[a].node == b &&
				    w->jobs[a].in.state == GQ_JOB_RUNNING) {
					gq_view_job_gone(v, w->jobs[a].in.id);
					w->jobs[a].in.state = GQ_JOB_PENDING;
					w->jobs[a].node = -1;
				}
			break;
		case 0:	/* submit */
			if (w->njobs < MAXJ) {
				rjob_t *j = &w->jobs[w->njobs++];

				random_pending(w, j);
				ck_assert_ptr_nonnull(gq_view_add_job(v, w->names[j->proj], &j->in));
			}
			break;
		case 1:	/* a reclaim of a random subset of the offered set */
			b = rnd(w->njobs);
			for (a = 0; a < w->njobs; a++)
				if (w->jobs[a].live &&
				    gq_view_preemptable(v, w->jobs[a].in.id,
							w->jobs[b].in.id) &&
				    rnd(2)) {
					gq_view_job_gone(v, w->jobs[a].in.id);
					w->jobs[a].in.state = GQ_JOB_PENDING;
					w->jobs[a].in.submit_time = w->now;
					w->jobs[a].node = -1;
					/* requeued: priority_p_set, sometimes */
					if (rnd(2))
						ck_assert_ptr_nonnull(gq_view_add_job(
							v, w->names[w->jobs[a].proj],
							&w->jobs[a].in));
				}
			break;
		default:	/* a job ends */
			a = rnd(w->njobs);
			if (w->jobs[a].live) {
				gq_view_job_gone(v, w->jobs[a].in.id);
				w->jobs[a].live = false;
			}
			break;
		}
		check_floors(v, w);
		check_holds(v, w);
	}
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 10) : dflt;
}

/* ---- two pools ------------------------------------------------------ */

static void random_numbers(gq_pool_numbers_t *n, int most)
{
	n->gpu_quota = rnd(most + 1);
	n->over_quota_weight = (double)rnd(4) / (1 + rnd(2));
	n->gpu_limit = rnd(3) ? GQ_NO_LIMIT : n->gpu_quota + (int)rnd(4);
}

/*
 * Two pools, "a" and "b" of partitions of those names: nodes 0..split-1
 * in a, the rest in b (one at least each); every project's and
 * department's numbers drawn by pool; running jobs in their node's pool.
 */
static void make_pools(world_t *w)
{
	int i, k, split;

	if (w->nnodes < 2)
		w->nnodes = 2;
	split = 1 + rnd(w->nnodes - 1);
	for (i = 0; i < w->nnodes; i++)
		w->node_pool[i] = i >= split;
	for (k = 0; k < 2; k++) {
		w->parts[k] = k ? "b" : "a";
		w->pools[k].name = w->parts[k];
		w->pools[k].partitions = &w->parts[k];
		w->pools[k].npartitions = 1;
	}
	w->cfg.pools = w->pools;
	w->cfg.npools = 2;
	for (i = 0; i < w->nproj; i++) {
		for (k = 0; k < 2; k++)
			random_numbers(&w->pn[i][k], w->gpn * 2);
		w->p[i].by_pool = w->pn[i];
	}
	for (i = 0; i < w->ndept; i++) {
		for (k = 0; k < 2; k++)
			random_numbers(&w->dn[i][k], w->nnodes * w->gpn);
		w->d[i].by_pool = w->dn[i];
	}
	for (i = 0; i < w->njobs; i++)
		w->jobs[i].pool = w->node_pool[w->jobs[i].node];
}

/* a pending job of a random home pool, a third of them listing both */
static void random_pending_pools(world_t *w, rjob_t *j)
{
	random_pending(w, j);
	j->pool = rnd(2);
	j->both = rnd(3) == 0;
}

/* job j in its pool's view and, pending and listing both, a shadow in
 * the other (as read_slurm.c adds them) */
static void pools_add_job(gq_pools_t *p, const world_t *w, const rjob_t *j)
{
	gq_job_in_t shadow;

	ck_assert_ptr_nonnull(gq_view_add_job(p->view[j->pool],
					      w->names[j->proj], &j->in));
	if (!j->both || j->in.state == GQ_JOB_RUNNING)
		return;
	shadow = j->in;
	gq_pools_shadow(&shadow);
	ck_assert_ptr_nonnull(gq_view_add_job(p->view[!j->pool],
					      w->names[j->proj], &shadow));
}

/* GPUs of the up nodes of pool k */
static double pool_capacity(const world_t *w, int k)
{
	int i, up = 0;

	for (i = 0; i < w->nnodes; i++)
		up += !w->down[i] && w->node_pool[i] == k;
	return (double)up * w->gpn;
}

static gq_pools_t *pools_pass(world_t *w)
{
	gq_pools_t *p = gq_pools_new(&w->cfg);
	uint32_t idle[MAXN];
	int i, k;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->n, 2);
	for (k = 0; k < 2; k++) {
		gq_view_begin(p->view[k], pool_capacity(w, k), w->now);
		ck_assert_int_eq(gq_view_set_nodes(p->view[k], w->nnodes), 0);
	}
	for (i = 0; i < w->nnodes; i++)
		idle[i] = w->gpn;
	for (i = 0; i < w->njobs; i++) {
		rjob_t *j = &w->jobs[i];

		if (!j->live)
			continue;
		pools_add_job(p, w, j);
		if (j->in.state != GQ_JOB_RUNNING)
			continue;
		ck_assert_int_eq(gq_view_place(p->view[j->pool], j->in.id,
					       j->node, j->in.gpus), 0);
		idle[j->node] -= j->in.gpus;
	}
	for (i = 0; i < w->nnodes; i++)
		if (!w->down[i])
			gq_view_node_free(p->view[w->node_pool[i]], i, idle[i]);
	for (k = 0; k < 2; k++)
		ck_assert_msg(gq_view_compute(p->view[k]) == 0,
			      "seed %llu: pass of pool %d failed",
			      (unsigned long long)w->seed, k);
	return p;
}

/*
 * Each pool's view keeps the guarantees of one; nothing is reclaimed
 * across pools (a victim and its preemptor are of one pool).
 */
static void pools_check(const gq_pools_t *p, const world_t *w)
{
	int k, a, b;

	for (k = 0; k < 2; k++) {
		check_shares(p->view[k], w, pool_capacity(w, k));
		check_floors(p->view[k], w);
		check_holds(p->view[k], w);
	}
	for (a = 0; a < w->njobs; a++)
		for (b = 0; b < w->njobs; b++)
			if (w->jobs[a].proj == w->jobs[b].proj ||
			    w->jobs[a].pool != w->jobs[b].pool)
				ck_assert_msg(!gq_pools_preemptable(p, w->jobs[a].in.id,
								    w->jobs[b].in.id),
					      "seed %llu: job %u offered to job %u (pools %d, %d)",
					      (unsigned long long)w->seed,
					      w->jobs[a].in.id, w->jobs[b].in.id,
					      w->jobs[a].pool, w->jobs[b].pool);
}

/* a node of a pool in `mask` with room for g GPUs, from a random one */
static int node_with_room(const world_t *w, int mask, uint32_t g,
			  const int *used)
{
	int i, first = rnd(w->nnodes);

	for (i = 0; i < w->nnodes; i++) {
		int n = (first + i) % w->nnodes;

		if (!w->down[n] && (mask & (1 << w->node_pool[n])) &&
		    used[n] + (int)g <= w->gpn)
			return n;
	}
	return -1;
}

/* task t of pending job j starts on node n: a running job of its own */
static void start_task(world_t *w, rjob_t *j, int n)
{
	rjob_t *r = &w->jobs[w->njobs++];

	*r = *j;
	r->in.id = w->next_id++;
	r->in.state = GQ_JOB_RUNNING;
	r->in.begins_later = false;
	r->in.tasks = 1;
	r->in.tasks_at_once = 0;
	r->in.start_time = w->now;
	r->node = n;
	r->pool = w->node_pool[n];
	r->both = false;
	if (j->in.tasks > 1)
		j->in.tasks--;
	else
		j->live = false;
}

/*
 * Slurm starts everything the pools let start, before the next pass: of
 * each single-node job that is eligible (or starts on its own), as many
 * tasks as gq_pools_tasks_now, each on a node with room in any pool the
 * job lists.
 */
static void slurm_starts_all(world_t *w, const gq_pools_t *p)
{
	int used[MAXN] = { 0 }, a, n0 = w->njobs;

	for (a = 0; a < w->njobs; a++)
		if (w->jobs[a].live && w->jobs[a].in.state == GQ_JOB_RUNNING)
			used[w->jobs[a].node] += w->jobs[a].in.gpus;
	for (a = 0; a < n0; a++) {
		rjob_t *j = &w->jobs[a];
		uint32_t t, n;

		if (!j->live || j->in.state == GQ_JOB_RUNNING ||
		    !j->in.gpus || j->in.nodes > 1 ||
		    (j->in.state != GQ_JOB_PENDING && !j->in.begins_later))
			continue;
		n = gq_pools_tasks_now(p, j->in.id);
		for (t = 0; t < n && j->live && w->njobs < MAXJ; t++) {
			int node = node_with_room(w, j->both ? 3 : 1 << j->pool,
						  j->in.gpus, used);

			if (node < 0)
				break;
			used[node] += j->in.gpus;
			start_task(w, j, node);
		}
	}
}

/* GPUs held by each project and department in each pool */
typedef struct {
	double p[2][MAXP], d[2][MAXD];
} held_t;

static void pools_held(const gq_pools_t *p, const world_t *w, held_t *h)
{
	int k, i;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < w->nproj; i++)
			h->p[k][i] = proj_of(p->view[k], w, i)->alloc;
		for (i = 0; i < gq_view_ndepts(p->view[k]) && i < MAXD; i++)
			h->d[k][i] = gq_view_dept(p->view[k], i)->alloc;
	}
}

/* after Slurm's starts, none holds more than its limit in any pool (or,
 * past it already, more than before) */
static void check_pool_limits(const gq_pools_t *p, const world_t *w,
			      const held_t *was)
{
	held_t now;
	int k, i;

	pools_held(p, w, &now);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < w->nproj; i++) {
			double l = proj_of(p->view[k], w, i)->limit;

			ck_assert_msg(now.p[k][i] <= fmax(l, was->p[k][i]) + EPS,
				      "seed %llu: %s holds %g in pool %s, gpu_limit %g (held %g)",
				      (unsigned long long)w->seed, w->names[i],
				      now.p[k][i], w->parts[k], l, was->p[k][i]);
		}
		for (i = 0; i < gq_view_ndepts(p->view[k]) && i < MAXD; i++) {
			double l = gq_view_dept(p->view[k], i)->limit;

			ck_assert_msg(now.d[k][i] <= fmax(l, was->d[k][i]) + EPS,
				      "seed %llu: department %d holds %g in pool %s, gpu_limit %g (held %g)",
				      (unsigned long long)w->seed, i,
				      now.d[k][i], w->parts[k], l, was->d[k][i]);
		}
	}
}

START_TEST(random_pools_keep_limits_in_every_pool)
{
	uint64_t only = env_u64("GQ_SEED", 0);
	uint64_t cases = only ? 1 : env_u64("GQ_CASES", DEFAULT_CASES) / 2;
	uint64_t c;

	for (c = 0; c < cases; c++) {
		world_t w;
		gq_pools_t *p;
		held_t was;
		int k, npend;

		make_world(&w, only ? only : c + 1);
		make_pools(&w);
		npend = rnd(MAXJ / 2 - w.njobs);
		for (k = 0; k < npend; k++)
			random_pending_pools(&w, &w.jobs[w.njobs++]);
		p = pools_pass(&w);
		pools_check(p, &w);
		pools_held(p, &w, &was);
		slurm_starts_all(&w, p);
		gq_pools_free(p);
		p = pools_pass(&w);
		pools_check(p, &w);
		check_pool_limits(p, &w, &was);
		gq_pools_free(p);
	}
}
END_TEST

/* Seeds past the default run that once failed, run with it: a gang whose
 * usual set gives room over several switches alone; a move landing on a
 * department's borrowed GPUs; a job left to a usual set a room set took
 * from. */
static const uint64_t found_seeds[] = { 1636, 9023, 1459, 9118 };
#define NFOUND (sizeof(found_seeds) / sizeof(found_seeds[0]))

START_TEST(random_clusters_keep_the_guarantees)
{
	uint64_t only = env_u64("GQ_SEED", 0);
	uint64_t cases = only ? 1 : env_u64("GQ_CASES", DEFAULT_CASES);
	uint64_t c, extra = only ? 0 : NFOUND;

	for (c = 0; c < cases + extra; c++) {
		world_t w;
		gq_view_t *v;
		int k, npend;

		make_world(&w, only ? only :
			   c < cases ? c + 1 : found_seeds[c - cases]);
		npend = rnd(MAXJ - w.njobs);
		for (k = 0; k < npend; k++)
			random_pending(&w, &w.jobs[w.njobs++]);
		v = pass(&w);
		check_shares(v, &w, capacity(&w));
		check_all(v, &w);
		events(&w, v);
		gq_view_free(v);
		if (rnd(2)) {	/* a reload with one quota changed */
			gq_project_cfg_t *p = &w.p[rnd(w.nproj)];

			p->gpu_quota = rnd(w.gpn * 3 + 1);
			if (p->gpu_limit != GQ_NO_LIMIT &&
			    p->gpu_limit < p->gpu_quota)
				p->gpu_limit = p->gpu_quota;
		}
		v = pass(&w);
		check_shares(v, &w, capacity(&w));
		check_all(v, &w);
		check_no_ping_pong(&w, v);
	}
	/* the saved node's rule was met, not passed by */
	if (!only)
		ck_assert_int_gt(saved_kept_off, 0);
	printf("saved node: %d jobs kept off it\n", saved_kept_off);
	if (!only)
		ck_assert_int_gt(moves_made, 0);
	printf("moves: %d offered, %d for a gang\n", moves_made, gang_moves);
}
END_TEST

/* ---- the clock steps ------------------------------------------------ */

#define YEAR (365 * 86400LL)
#define WINDOW 600		/* the budget's window (shorter than a case) */
#define MAX_GAP 60		/* longest real time between passes */
#define HALF_LIFE 600
#define SETTLE 40
#define NREC 64
#define NRC 16
#define NCF 3
#define CLOCK_PASSES 40

/* Passes that kept GPUs for a room waiter, patient jobs seen and
 * restarts, over all cases: the run asserts it met each. */
static int seen_kept, seen_patient, seen_restart, seen_rebuilt;

/* real time and the clock, and what each wait began at in real time */
typedef struct {
	int64_t real, off;	/* the clock reads real + off */
	int64_t last_back;	/* the pass that first read the last step back */
	int nback;		/* steps back so far */
	int nrec, rec_back[NREC];	/* losses: steps back when written */
	int64_t rec_real[NREC];
	int nrc, rc_grace[NRC];		/* reclaims noted (job 7000 + i) */
	int64_t rc_real[NRC];
	int64_t rc_clock[NRC];		/* the clock at the note: the
					 * victim's preempt_time */
	int64_t rc_req_real[NRC];	/* Slurm requeued the victim (real
					 * time; 0: still warned) */
	int64_t rc_req_clock[NRC];	/* and its clock then: its submit
					 * time */
	int64_t restart;		/* the last slurmctld restart; -1 */
	int64_t restart_back;		/* the last restart after a step
					 * back; -1 */
	int64_t cf_real[NCF];		/* coming-free waits (job 9000 + i) */
	int64_t exempt_from[MAXJ];	/* exempt by min_runtime since; -1 */
	int room_wait;			/* odd cases: settings.room_wait */
	int64_t kept_from[MAXJ];	/* GPUs kept for it since; -1 */
	uint32_t loan[MAXJ];		/* patient: the loan it waits for */
	int64_t loan_from[MAXJ];	/* waiting for that loan since */
} tick_t;

static int64_t later(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* Real time runs 1 to MAX_GAP s; one pass in eight the clock steps. */
static void tick(tick_t *t)
{
	static const int64_t steps[4] = { 3600, -3600, YEAR, -YEAR };
	int64_t step;

	t->real += 1 + rnd(MAX_GAP);
	if (rnd(8))
		return;
	step = steps[rnd(4)];
	t->off += step;
	if (step < 0) {
		t->nback++;
		t->last_back = t->real;
	}
}

/* A pass of one pool at the clock (w->now): the view in p */
static void clock_pass(world_t *w, gq_pools_t *p)
{
	gq_view_t *v = p->view[0];

	fill_view(w, v);
	ck_assert_msg(gq_view_compute(v) == 0, "seed %llu: pass failed",
		      (unsigned long long)w->seed);
}

/* No job exempt by min_runtime for min_runtime or more in a row. */
static void check_exempt(const world_t *w, const gq_view_t *v, tick_t *t)
{
	int mr = gq_view_min_runtime(v), a;

	for (a = 0; a < w->njobs; a++) {
		const gq_job_in_t *in = &w->jobs[a].in;

		if (!w->jobs[a].live || in->state != GQ_JOB_RUNNING ||
		    !in->requeueable || !in->gpus ||
		    gq_victim_eligible(in, w->now, mr)) {
			t->exempt_from[a] = -1;
			continue;
		}
		if (t->exempt_from[a] < 0)
			t->exempt_from[a] = t->real;
		ck_assert_msg(t->real - t->exempt_from[a] < mr,
			      "seed %llu: job %u exempt for %lld s (min_runtime %d)",
			      (unsigned long long)w->seed, in->id,
			      (long long)(t->real - t->exempt_from[a]), mr);
	}
}

/* A loss noted now (one pass in three); then none counts too long. */
static void check_losses(const world_t *w, gq_losses_t *l, tick_t *t)
{
	int i;

	if (t->nrec < NREC && !rnd(3)) {
		gq_ledger_rec_t r;

		memset(&r, 0, sizeof(r));
		r.at = r.end = w->now;
		r.victim = 100 + t->nrec;
		r.gpus = 1;
		r.lost = 60;
		gq_ledger_name(r.victim_project, "p0");
		gq_losses_clock(l, w->now);
		ck_assert_int_eq(gq_losses_add(l, &r, 0), 0);
		t->rec_real[t->nrec] = t->real;
		t->rec_back[t->nrec++] = t->nback;
	}
	gq_losses_clock(l, w->now);
	gq_losses_prune(l, w->now - WINDOW);
	for (i = 0; i < l->n; i++) {
		int k = (int)l->e[i].victim - 100;

		if (l->e[i].at < w->now - WINDOW)
			continue;
		ck_assert_msg(t->real - t->rec_real[k] <=
				      WINDOW + (t->nback - t->rec_back[k]) * MAX_GAP,
			      "seed %llu: a loss written %lld s ago still counts",
			      (unsigned long long)w->seed,
			      (long long)(t->real - t->rec_real[k]));
	}
}

/* Usage follows the clock, and grows only with someone above quota. */
static void check_usage(const world_t *w, const gq_pools_t *p, gq_usage_t *u)
{
	const gq_view_t *v = p->view[0];
	double before = 0, after = 0;
	bool above = false;
	int i;

	for (i = 0; i < gq_view_nprojects(v); i++)
		above |= gq_view_project(v, i)->alloc >
			 gq_view_project(v, i)->quota;
	for (i = 0; i < u->n; i++)
		before += u->e[i].gpu_seconds;
	ck_assert_int_eq(gq_usage_advance(u, p, HALF_LIFE, (double)w->now), 0);
	for (i = 0; i < u->n; i++)
		after += u->e[i].gpu_seconds;
	ck_assert_msg(u->at == (double)w->now,
		      "seed %llu: usage's reference %.0f, the clock %lld",
		      (unsigned long long)w->seed, u->at, (long long)w->now);
	ck_assert_msg(above || after <= before + EPS,
		      "seed %llu: usage grew from %g to %g, nobody above quota",
		      (unsigned long long)w->seed, before, after);
}

/*
 * May reclaim i's wait of len past its grace time still run?  Less than
 * grace + len after the later of its note, the last step back and the
 * last restart after a step back (a preempt_time read back ahead of the
 * clock counts from the restart); or, rebuilt by a restart from its
 * requeued victim, less than len after the later of the requeue and
 * those (Slurm may requeue it a pass after its grace time).
 */
static bool rc_may_run(const tick_t *t, int i, int len)
{
	int64_t from = later(t->last_back, t->restart_back);

	if (t->real - later(t->rc_real[i], from) < t->rc_grace[i] + len)
		return true;
	return t->rc_req_real[i] && t->restart >= t->rc_req_real[i] &&
	       t->real - later(t->rc_req_real[i], from) < len;
}

/* The state's waits: each over its length after its start, the last
 * step back or a restart (rc_may_run), whichever is later; then new ones
 * begin.  Not in a room case: its passes forget the waits of jobs they
 * do not see pending. */
static void check_waits(const world_t *w, tick_t *t)
{
	int64_t now = w->now;
	bool any = false;
	int i;

	if (t->room_wait)
		return;
	if (gq_state_reclaim_waiting(NULL, 0, now)) {
		for (i = 0; i < t->nrc; i++)
			any |= rc_may_run(t, i, GQ_RECLAIM_WAIT);
		ck_assert_msg(any, "seed %llu: work waits for a reclaim over",
			      (unsigned long long)w->seed);
	}
	for (i = 0; i < t->nrc; i++)
		if (gq_state_reclaim_settling(7000 + i, now, SETTLE))
			ck_assert_msg(rc_may_run(t, i, SETTLE),
				      "seed %llu: reclaim %d settles too long",
				      (unsigned long long)w->seed, i);
	for (i = 0; i < NCF; i++) {
		if (rnd(4))
			continue;
		if (!t->cf_real[i])
			t->cf_real[i] = t->real;
		if (gq_state_wait_coming_free(9000 + i, true, now))
			ck_assert_msg(t->real - later(t->cf_real[i], t->last_back) <
					      GQ_COMING_FREE_WAIT,
				      "seed %llu: waits for GPUs coming free too long",
				      (unsigned long long)w->seed);
	}
	if (t->nrc < NRC && !rnd(4)) {
		static const int grace[3] = { 0, 30, 300 };

		t->rc_grace[t->nrc] = grace[rnd(3)];
		t->rc_real[t->nrc] = t->real;
		t->rc_clock[t->nrc] = now;
		ck_assert(gq_state_note_reclaim(7000 + t->nrc, now,
						t->rc_grace[t->nrc]));
		t->nrc++;
	}
}

/* Slurm requeues each warned victim at the first pass past its grace
 * time (real time); its submit time is the clock then. */
static void slurm_requeues(tick_t *t, int64_t now)
{
	int i;

	for (i = 0; i < t->nrc; i++)
		if (!t->rc_req_real[i] &&
		    t->real - t->rc_real[i] >= t->rc_grace[i]) {
			t->rc_req_real[i] = t->real;
			t->rc_req_clock[i] = now;
		}
}

/* The state's settings.room_wait: a configuration of that setting only
 * (the passes use the world's own). */
static void load_room_wait(const world_t *w, int room_wait)
{
	char text[160], err[GQ_ERR_MAX], *f;

	snprintf(text, sizeof(text),
		 "{\"settings\": {\"room_wait\": %d}, \"projects\":"
		 " [{\"name\": \"p0\", \"gpu_quota\": 1}]}", room_wait);
	f = write_temp(text);
	ck_assert_msg(gq_state_load(f, err, sizeof(err)) == 0, "seed %llu: %s",
		      (unsigned long long)w->seed, err);
	unlink(f);
	free(f);
}

/*
 * slurmctld restarts: gpuquota's state is gone and read back from what
 * Slurm keeps of each reclaim's victim (gq_pass_victim at the first pass):
 * warned and running (its preempt_time, its end time the grace time's
 * end) or requeued (pending, its submit time the requeue).  The waits
 * kept in memory alone (GPUs coming free, the room wait) begin again.
 */
static void restart(const world_t *w, tick_t *t)
{
	char note[192];
	uint32_t pre;
	int64_t since;
	int i, grace, rc;

	gq_state_clear();
	if (t->room_wait)
		load_room_wait(w, t->room_wait);
	for (i = 0; i < t->nrc; i++) {
		bool requeued = t->rc_req_real[i] != 0;
		gq_job_facts_t f = {
			.id = 7100 + i,
			.job_state = requeued ? JOB_PENDING : JOB_RUNNING,
			.submit_time = requeued ? t->rc_req_clock[i] : 1,
			.end_time = t->rc_clock[i] + t->rc_grace[i] };

		snprintf(note, sizeof(note), GQ_RECLAIMED_WARNED, 7000 + i,
			 "p0", "in-quota");
		rc = gq_pass_victim(&f, note, requeued ? 0 : t->rc_clock[i],
				    w->now, true, NULL, -1, &pre, &since, &grace);
		ck_assert_int_ge(rc, 0);
		seen_rebuilt += rc;
	}
	t->restart = t->real;
	if (t->last_back >= 0)
		t->restart_back = t->real;
	memset(t->cf_real, 0, sizeof(t->cf_real));
	for (i = 0; i < MAXJ; i++)
		t->kept_from[i] = -1;
	seen_restart++;
}

/* GPUs kept for a room waiter: less than the room wait after the later
 * of its first keep and the last step back. */
static int seen_backfill;	/* jobs a room wait let through by --time */

/* No job held for a room waiter ends by its --time before the waiter can
 * start on the kept node (backfill); count those let through. */
static void check_backfill(const world_t *w, const gq_view_t *v)
{
	const gq_room_node_t *at = gq_view_kept_node(v);
	int a;

	for (a = 0; at->node >= 0 && a < w->njobs; a++) {
		const gq_job_t *j = gq_view_job(v, w->jobs[a].in.id);
		bool first = j && j->in.state == GQ_JOB_PENDING &&
			     j->in.time_limit && at->when != INT64_MAX &&
			     gq_view_pass(v)->now + j->in.time_limit <=
				     at->when;

		if (!first || !w->jobs[a].live)
			continue;
		ck_assert_msg(j->hold != GQ_HOLD_ROOM,
			      "seed %llu: job %u held for room, ends by %lld, before %lld",
			      (unsigned long long)w->seed, j->in.id,
			      (long long)(gq_view_pass(v)->now +
					  j->in.time_limit),
			      (long long)at->when);
		seen_backfill += j->band != GQ_BAND_IN_QUOTA &&
				 gq_waits_could_land(&gq_view_pass(v)->nodes,
						     j, at);
	}
}

static void check_room_kept(const world_t *w, const gq_pools_t *p, tick_t *t)
{
	uint32_t kept = gq_view_kept_for(p->view[0]);
	int a;

	check_backfill(w, p->view[0]);
	for (a = 0; a < w->njobs; a++) {
		if (w->jobs[a].in.id != kept || !w->jobs[a].live) {
			t->kept_from[a] = -1;
			continue;
		}
		if (t->kept_from[a] < 0)
			t->kept_from[a] = t->real;
		seen_kept++;
		ck_assert_msg(t->real - later(t->kept_from[a], t->last_back) <
				      t->room_wait,
			      "seed %llu: GPUs kept for job %u %lld s (room_wait %d)",
			      (unsigned long long)w->seed, kept,
			      (long long)(t->real - t->kept_from[a]), t->room_wait);
	}
}

/* A patient job waits for one loan at most its patience plus a pass
 * after the later of its first wait for it and the last step back. */
static void check_patience(const world_t *w, const gq_view_t *v, tick_t *t)
{
	int64_t bound = w->cfg.settings.reclaim_patience + MAX_GAP;
	int a;

	for (a = 0; a < w->njobs; a++) {
		const gq_job_t *j = gq_view_job(v, w->jobs[a].in.id);

		if (!w->jobs[a].live || !j || !j->patient) {
			t->loan[a] = 0;
			continue;
		}
		seen_patient++;
		if (t->loan[a] != j->waits_for) {
			t->loan[a] = j->waits_for;
			t->loan_from[a] = t->real;
		}
		ck_assert_msg(t->real - later(t->loan_from[a], t->last_back) <
				      bound,
			      "seed %llu: job %u waits for loan %u %lld s",
			      (unsigned long long)w->seed, j->in.id, j->waits_for,
			      (long long)(t->real - t->loan_from[a]));
	}
}

/* A running job's time limit, 1 to 90 minutes: some end within a
 * patience, some do not. */
static void set_limit(rjob_t *j)
{
	j->in.ends_by = j->in.start_time + 60 * (1 + rnd(90));
}

/* Slurm between passes: a job gpuquota lets start starts (its start the
 * clock's reading, its time limit from there), a job ends, and Slurm
 * ends every job whose time limit the clock has passed. */
static void clock_events(world_t *w, const gq_view_t *v)
{
	int a = rnd(w->njobs);
	const gq_job_t *j = gq_view_job(v, w->jobs[a].in.id);

	if (w->jobs[a].live && w->jobs[a].in.gpus &&
	    w->jobs[a].in.tasks == 1 &&
	    w->jobs[a].in.state == GQ_JOB_PENDING && j && !j->hold) {
		start_job(w, &w->jobs[a]);
		if (w->jobs[a].in.state == GQ_JOB_RUNNING)
			set_limit(&w->jobs[a]);
	}
	a = rnd(w->njobs);
	if (!rnd(4))
		w->jobs[a].live = false;
	for (a = 0; a < w->njobs; a++)
		if (w->jobs[a].in.state == GQ_JOB_RUNNING &&
		    w->jobs[a].in.ends_by <= w->now)
			w->jobs[a].live = false;
}

/* One case: the world's times moved to the clock, then the passes. */
static void clock_case(uint64_t seed)
{
	world_t w;
	tick_t t;
	gq_pools_t *p;
	gq_losses_t l = { 0 };
	gq_usage_t u = { 0 };
	int k, npend;

	make_world(&w, seed);
	memset(&t, 0, sizeof(t));
	t.real = 50 * YEAR;
	t.last_back = t.restart = t.restart_back = -1;
	t.room_wait = seed % 2 ? 30 * (1 + (int)rnd(10)) : 0;
	w.cfg.settings.reclaim_patience = 60 * (1 + (int)rnd(30));
	for (k = 0; k < MAXJ; k++)
		t.exempt_from[k] = t.kept_from[k] = -1;
	for (k = 0; k < w.njobs; k++) {
		w.jobs[k].in.start_time += t.real - w.now;
		w.jobs[k].in.submit_time += t.real - w.now;
		if (w.jobs[k].in.state == GQ_JOB_RUNNING)
			set_limit(&w.jobs[k]);
	}
	w.now = t.real;
	npend = rnd(MAXJ - w.njobs);
	for (k = 0; k < npend; k++)
		random_pending(&w, &w.jobs[w.njobs++]);
	ck_assert_ptr_nonnull(p = gq_pools_new(&w.cfg));
	gq_state_lock();
	if (t.room_wait)
		load_room_wait(&w, t.room_wait);
	for (k = 0; k < CLOCK_PASSES; k++) {
		tick(&t);
		w.now = t.real + t.off;
		slurm_requeues(&t, w.now);
		if (!rnd(10))
			restart(&w, &t);
		check_waits(&w, &t);
		clock_pass(&w, p);
		if (t.room_wait) {
			gq_state_wait_for_reclaims(p, w.now);
			check_room_kept(&w, p, &t);
		}
		check_floors(p->view[0], &w);
		check_holds(p->view[0], &w);
		check_exempt(&w, p->view[0], &t);
		check_patience(&w, p->view[0], &t);
		check_losses(&w, &l, &t);
		check_usage(&w, p, &u);
		clock_events(&w, p->view[0]);
	}
	gq_state_clear();
	gq_state_unlock();
	gq_losses_free(&l);
	gq_usage_free(&u);
	gq_pools_free(p);
}

START_TEST(random_clock_steps_bound_every_wait)
{
	uint64_t only = env_u64("GQ_SEED", 0);
	uint64_t cases = only ? 1 : env_u64("GQ_CASES", DEFAULT_CASES) / 5;
	uint64_t c;

	seen_kept = seen_patient = seen_backfill = seen_restart = 0;
	seen_rebuilt = 0;
	for (c = 0; c < cases; c++)
		clock_case(only ? only : c + 1);
	if (only)
		return;
	fprintf(stderr, "clock steps: %d passes kept GPUs, %d patient jobs, %d let through by --time, %d restarts rebuilt %d reclaims\n",
		seen_kept, seen_patient, seen_backfill, seen_restart,
		seen_rebuilt);
	ck_assert_msg(seen_kept && seen_patient && seen_backfill &&
		      seen_rebuilt,
		      "no pass kept GPUs (%d), found a patient job (%d), let one through by --time (%d) or rebuilt a reclaim (%d)",
		      seen_kept, seen_patient, seen_backfill, seen_rebuilt);
}
END_TEST

Suite *property_suite(void)
{
	Suite *s = suite_create("property");
	TCase *tc = tcase_create("property");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, random_clusters_keep_the_guarantees);
	tcase_add_test(tc, random_pools_keep_limits_in_every_pool);
	tcase_add_test(tc, random_clock_steps_bound_every_wait);
	suite_add_tcase(s, tc);
	return s;
}
