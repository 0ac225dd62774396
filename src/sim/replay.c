/*
 * replay.c - the simulator's event loop (see replay.h): the clock and its
 * events, and Slurm's scheduling as modelled; a job's starts, ends and
 * requeues and the figures they move are job_life.c's, gpuquota's pass
 * and answers model_pass.c's, a reclaim model_reclaim.c's (model.h).
 *
 * Costs: each event time walks the accounts for the figures (O(A)); each
 * scheduling attempt walks the eligible pending jobs (O(P) lookups), and
 * takes from a heap only those that may start or reclaim (O(log P)
 * each), a first fit (O(N)) only when a glance allows; each pass is the
 * core's (O(J)) plus its input (O(J + N)); a preemptor that does not fit
 * walks the running jobs (O(R log R)) and fits again after each candidate
 * (O(N) each); the first blocked job of a partition is reserved for
 * (reservation.h: O(N + the running jobs walked)).  Behind a reservation
 * idle GPUs may stay idle, so an attempt may try every eligible job; a
 * failed fit kept makes most of those tries O(1).  What grows with a
 * month's history is the number of event times and passes, linearly,
 * each costing the queue's length.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"
#include "sim/projects.h"
#include "state/state.h"

double gq_sim_quota_of(const gq_config_t *cfg, const char *account)
{
	int p = gq_sim_project_of(cfg, account);

	return p < 0 ? 0 : gq_sim_project_quota(cfg, p);
}

/* ---- Slurm's scheduling ------------------------------------------------- */

/* Slurm's order: does job a come before job b (priority, then submit
 * time, then id)? */
static bool _ahead(const gq_replay_t *R, uint32_t a, uint32_t b)
{
	const gq_rjob_t *x = &R->job[a], *y = &R->job[b];

	if (x->prio != y->prio)
		return x->prio > y->prio;
	if (x->pend_since != y->pend_since)
		return x->pend_since < y->pend_since;
	return a < b;
}

static bool _ahead_ctx(const void *R, uint32_t a, uint32_t b)
{
	return _ahead(R, a, b);
}

/* The heap R->order[0..n) on _ahead, from i down.  O(log n). */
static void _sift(gq_replay_t *R, size_t n, size_t i)
{
	uint32_t *h = R->order;

	while (true) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		uint32_t t;

		if (l < n && _ahead(R, h[l], h[m]))
			m = l;
		if (r < n && _ahead(R, h[r], h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/*
 * The eligible pending jobs that may do something now, into a heap in
 * Slurm's order: not held, and fitting at a glance or able to reclaim,
 * or the first of its partitions that does neither (it may be reserved
 * for, reservation.h).  *reclaimers: how many may reclaim.  O(P)
 * lookups.
 */
static size_t _candidates_now(gq_replay_t *R, size_t *reclaimers)
{
	const gq_pools_t *v = R->gq ? gq_state_view() : NULL;
	size_t i, n = 0;

	*reclaimers = 0;
	gq_sim_resv_begin(&R->resv);
	for (i = 0; i < R->npending; i++) {
		uint32_t j = R->pending[i];
		gq_rjob_t *x = &R->job[j];

		if (x->begin > R->now)
			continue;
		gq_sim_answer(R, j);
		x->reclaims = v && gq_pools_reclaiming(v, R->h->job[j].id) >= 0;
		if (x->held)
			continue;
		if (!x->reclaims && !gq_sim_may_fit(R->c, &x->shape)) {
			gq_sim_resv_head(&R->resv, x->shape.parts, j,
					 _ahead_ctx, R);
			continue;
		}
		*reclaimers += x->reclaims;
		R->order[n++] = j;
	}
	n += gq_sim_resv_heads(&R->resv, R->order + n);
	for (i = n / 2; i-- > 0;)
		_sift(R, n, i);
	return n;
}

/*
 * A scheduling attempt: the eligible pending jobs in Slurm's order, each
 * started when it fits now without delaying a reservation (held ones
 * never); with gpuquota, one that does not fit may reclaim; the first of
 * its partitions that does not start is reserved for.  Only the jobs that may do something are
 * taken, from a heap, and only while GPUs are idle or a job that may
 * reclaim is left; after a reclaim (GPUs freed beyond what the preemptor
 * took) the attempt is made again.  O(P + taken x log P + starts x N +
 * reclaims).
 */
static int _schedule(gq_replay_t *R)
{
	bool again = true;

	while (again) {
		size_t reclaimers, n = _candidates_now(R, &reclaimers);
		uint64_t before = R->r->reclaims;

		while (n && (R->c->idle_gpus || reclaimers)) {
			uint32_t j = R->order[0];
			gq_rjob_t *x = &R->job[j];

			R->order[0] = R->order[--n];
			_sift(R, n, 0);
			reclaimers -= x->reclaims;
			gq_sim_answer(R, j);	/* holds written during the attempt */
			if (x->held)
				continue;
			if (gq_sim_may_fit(R->c, &x->shape) &&
			    gq_sim_resv_fit(&R->resv, R->c, &x->shape, R->now +
					    gq_sim_resv_limit(&R->h->job[j]),
					    R->fit)) {
				if (gq_sim_start(R, j, R->fit))
					return -1;
			} else if (x->reclaims && gq_sim_reclaim(R, j)) {
				return -1;
			}
			if (x->st == ST_PENDING && !R->o->no_reservation &&
			    gq_sim_resv_make(&R->resv, R->c, &x->shape, R->now))
				return -1;
		}
		again = R->r->reclaims != before;
	}
	return 0;
}

/* ---- events ------------------------------------------------------------- */

static int _event(gq_replay_t *R, const gq_ev_t *e)
{
	gq_rjob_t *j = &R->job[e->job];

	switch (e->kind) {
	case GQ_EV_SUBMIT:
		return gq_sim_submit(R, e->job);
	case GQ_EV_END:
		if (j->st == ST_RUNNING && j->run == e->run)
			gq_sim_end(R, e->job);
		return 0;
	case GQ_EV_GRACE:
		if (j->st == ST_RUNNING && j->run == e->run && j->warned)
			return gq_sim_requeue(R, e->job);
		return 0;
	case GQ_EV_BEGIN:
		if (j->st == ST_PENDING && j->run == e->run) {
			gq_sim_eligible(R, e->job, +1);
			gq_sim_mark(R);
		}
		return 0;
	case GQ_EV_WAKE:
		gq_sim_mark(R);
		return 0;
	}
	return 0;
}

/* When the next pass runs: the first tick of the interval at or after
 * the first change since the last pass (a start in the scheduling
 * attempt after a pass is read by the next tick's); with usage, at least
 * every idle_pass seconds while jobs wait; INT64_MAX: none due. */
static int64_t _next_pass(const gq_replay_t *R)
{
	int64_t t;

	if (!R->gq)
		return INT64_MAX;
	if (R->dirty) {	/* one pass a tick at most (slurmctld's pacing) */
		t = R->dirty_since - R->base;
		t = R->base + (t + R->interval - 1) / R->interval * R->interval;
		return t > R->last_pass || !R->r->passes ? t :
		       R->last_pass + R->interval;
	}
	/* idle passes only while something is still to come: a job that
	 * fits on no node would otherwise keep the replay going forever */
	if (gq_state_config()->settings.usage_half_life > 0 && R->eligible &&
	    R->o->idle_pass > 0 && gq_events_next(&R->ev) != INT64_MAX)
		return R->last_pass + R->o->idle_pass;
	return INT64_MAX;
}

/*
 * The loop: the earliest of the next event and the next pass; the
 * figures advanced to it, its events handled, the pass run when due, a
 * scheduling attempt after.  Past opts.until the figures are cut there.
 */
static int _loop(gq_replay_t *R)
{
	int64_t stop = R->o->until > 0 ? R->base + R->o->until : INT64_MAX;
	gq_ev_t e;
	int rc = 0;

	while (!rc) {
		int64_t te = gq_events_next(&R->ev), tp = _next_pass(R);
		int64_t t = te < tp ? te : tp;

		if (t == INT64_MAX)
			break;
		if (t > stop) {
			gq_sim_advance(R, stop);
			gq_sim_cut(R);
			break;
		}
		gq_sim_advance(R, t);
		while (!rc && gq_events_next(&R->ev) == t &&
		       gq_events_pop(&R->ev, &e))
			rc = _event(R, &e);
		if (!rc && t >= tp)
			rc = gq_sim_pass(R);
		if (!rc)
			rc = _schedule(R);
	}
	return rc;
}

/* ---- set up, the result ------------------------------------------------- */

static int _accounts(gq_replay_t *R)
{
	const gq_sim_history_t *h = R->h;
	size_t i;
	int a;

	R->r->acct = calloc(h->nnames + 1, sizeof(*R->r->acct));
	if (!R->r->acct)
		return -1;
	for (i = 0; i < h->n; i++) {
		for (a = 0; a < R->r->nacct; a++)
			if (R->r->acct[a].account == h->job[i].account)
				break;
		if (a == R->r->nacct) {
			R->r->acct[a].account = h->job[i].account;
			R->r->acct[a].quota = gq_sim_quota_of(R->o->quotas,
							      h->job[i].account);
			R->r->nacct++;
		}
		R->job[i].acct = R->r->job[i].acct = a;
	}
	return 0;
}

static int _setup(gq_replay_t *R)
{
	size_t n = R->h->n, i, nodes = 0, off = 0;

	for (i = 0; i < n; i++)
		nodes += R->h->job[i].nodes;
	/* the jobs' node lists in one block, in job order: each pass reads
	 * the running jobs' lists, and jobs near in time share cache lines */
	R->node_pool = calloc(nodes + 1, sizeof(int));
	R->job = calloc(n + 1, sizeof(*R->job));
	R->r->job = calloc(n + 1, sizeof(*R->r->job));
	R->running = calloc(n + 1, sizeof(*R->running));
	R->pending = calloc(n + 1, sizeof(*R->pending));
	R->active = calloc(n / 64 + 1, sizeof(*R->active));
	R->order = calloc(n + 1, sizeof(*R->order));
	R->cand = calloc(n + 1, sizeof(*R->cand));
	R->scratch_g = calloc(R->c->n + 1, sizeof(uint32_t));
	R->scratch_c = calloc(R->c->n + 1, sizeof(uint32_t));
	R->fit = calloc(R->c->n + 1, sizeof(int));
	if (!R->node_pool || !R->job || !R->r->job || !R->running || !R->pending ||
	    !R->active || !R->order || !R->cand || !R->scratch_g ||
	    !R->scratch_c || !R->fit || _accounts(R) || gq_sim_in_nodes(R) ||
	    gq_sim_projects_init(R->r, R->o->quotas, R->o->fold_unlisted) ||
	    gq_sim_series_init(&R->r->series, R->o->series_points, R->r->nproj) ||
	    gq_sim_resv_init(&R->resv, R->c->n, n))
		return -1;
	for (i = 0; i < n; i++) {
		const gq_sim_job_t *hj = &R->h->job[i];
		gq_rjob_t *j = &R->job[i];

		R->r->job[i].first_start = -1;
		j->shape = (gq_sim_shape_t){
			.gpus = hj->gpus, .cpus = hj->cpus,
			.nodes = hj->nodes,
			.parts = gq_sim_part_mask(R->c, hj->partition) };
		j->nodes = R->node_pool + off;
		off += hj->nodes;
		if (gq_events_push(&R->ev, hj->submit, GQ_EV_SUBMIT,
				   (uint32_t)i, 0))
			return -1;
	}
	R->now = R->base = R->last_pass = n ? R->h->job[0].submit : 0;
	return 0;
}

/* Each account's waits, p50 and p95 (nearest rank); a job that never
 * started waited until the replay's end.  O(J log J). */
static int _waits(gq_replay_t *R)
{
	int64_t *w = calloc(R->h->n + 1, sizeof(*w));
	int a;

	if (!w)
		return -1;
	for (a = 0; a < R->r->nacct; a++) {
		gq_sim_acct_t *x = &R->r->acct[a];
		size_t i, n = 0;

		for (i = 0; i < R->h->n; i++) {
			gq_sim_outcome_t *o = &R->r->job[i];

			if (R->job[i].acct != a)
				continue;
			if (R->job[i].st == ST_PENDING) {
				o->wait += R->now - R->job[i].pend_since;
				x->never_started += o->first_start < 0;
			}
			w[n++] = o->wait;
		}
		gq_sim_wait_ranks(w, n, &x->wait_p50, &x->wait_p95);
	}
	free(w);
	return 0;
}

static void _free(gq_replay_t *R)
{
	free(R->node_pool);
	free(R->job);
	free(R->running);
	free(R->pending);
	free(R->active);
	free(R->order);
	free(R->cand);
	free(R->scratch_g);
	free(R->scratch_c);
	free(R->fit);
	free(R->in.job);
	free(R->in.place);
	free(R->in.node);
	free(R->in.node_part);
	gq_sim_resv_free(&R->resv);
	gq_events_free(&R->ev);
}

/* The cluster idle again, as the replay begins. */
static void _idle(gq_sim_cluster_t *c)
{
	int i;

	for (i = 0; i < c->n; i++) {
		c->free_gpus[i] = c->node[i].gpus;
		c->free_cpus[i] = c->node[i].cpus;
	}
	gq_sim_give(c, &(gq_sim_shape_t){ .nodes = 0 }, NULL);
}

int gq_sim_replay(const gq_sim_opts_t *o, gq_sim_result_t *r, char *err,
		  size_t errlen)
{
	gq_sim_history_t cut = *o->history;
	gq_replay_t R = { .o = o, .h = &cut, .c = o->cluster, .r = r,
			  .gq = o->config != NULL };
	int rc = -1;

	memset(r, 0, sizeof(*r));
	/* with until, the jobs submitted by then (the history is in submit
	 * order) */
	while (o->until > 0 && cut.n &&
	       cut.job[cut.n - 1].submit > cut.job[0].submit + o->until)
		cut.n--;
	_idle(R.c);
	gq_state_lock();
	gq_state_clear();
	if (R.gq && gq_state_load(o->config, err, errlen)) {
		gq_state_unlock();
		return -1;
	}
	R.interval = o->pass_interval > 0 ? o->pass_interval :
		     R.gq ? gq_state_config()->settings.recompute_interval : 1;
	if (!_setup(&R) && !_loop(&R) && !_waits(&R) &&
	    !gq_sim_projects_finish(r, R.h->n))
		rc = 0;
	else if (!*err)
		snprintf(err, errlen, "simulate: out of memory");
	r->span = R.now - R.base;
	gq_state_clear();
	gq_state_unlock();
	_free(&R);
	return rc;
}

void gq_sim_result_free(gq_sim_result_t *r)
{
	free(r->acct);
	free(r->job);
	free(r->proj);
	gq_sim_series_free(&r->series);
	memset(r, 0, sizeof(*r));
}
