/*
 * job_life.c - a job's life in the simulator's replay (model.h): its
 * submit, start, end and requeue, and the figures they and the passing
 * time move (time below quota, GPUs idle while jobs wait, work lost).
 * Each O(1) but the start's and the requeue's node walk (O(nodes of the
 * job)) and the clock's walk of the accounts and projects (O(A + P) an
 * event time), and while GPUs are idle and jobs wait, of the eligible
 * pending jobs for why (model.h, gq_sim_idle_kind).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"
#include "sim/projects.h"
#include "state/state.h"

void gq_sim_mark(gq_replay_t *R)
{
	if (!R->dirty)
		R->dirty_since = R->now;
	R->dirty = true;
}

/* ---- the figures ------------------------------------------------------ */

/* GPU-seconds idle while jobs waited, and why (model.h). */
static void _idle(gq_replay_t *R, double secs)
{
	int kind = gq_sim_idle_kind(R);

	R->r->idle_waiting_secs += secs;
	if (kind == GQ_IDLE_FRAGMENTED)
		R->r->idle_fragmented_secs += secs;
	else if (kind == GQ_IDLE_HELD)
		R->r->idle_held_secs += secs;
	else if (kind == GQ_IDLE_RESERVED)
		R->r->idle_reserved_secs += secs;
}

/* The projects' GPUs from R->now to t into the series.  O(projects +
 * steps spanned). */
static void _series(gq_replay_t *R, int64_t t)
{
	int p;

	gq_sim_series_reach(&R->r->series, R->now, t);
	for (p = 0; p < R->r->nproj; p++)
		gq_sim_series_add(&R->r->series, p, R->r->proj[p].alloc,
				  R->now, t);
}

/* Time passes from R->now to t: below quota (accounts, projects), idle
 * while jobs waited, the projects' series. */
void gq_sim_advance(gq_replay_t *R, int64_t t)
{
	int64_t dt = t - R->now;
	int a;

	if (dt <= 0)
		return;
	for (a = 0; a < R->r->nacct; a++)
		gq_sim_below_quota(&R->r->acct[a], dt);
	if (R->eligible && R->c->idle_gpus)
		_idle(R, (double)R->c->idle_gpus * dt);
	gq_sim_projects_advance(R->r, dt);
	_series(R, t);
	R->now = t;
}

void gq_sim_eligible(gq_replay_t *R, uint32_t i, int sign)
{
	gq_sim_acct_t *x = &R->r->acct[R->job[i].acct];

	x->pending += sign > 0 ? R->h->job[i].gpus : -(int64_t)R->h->job[i].gpus;
	R->eligible += sign;
}

/* ---- starts, ends, requeues ------------------------------------------- */

/* Job i into a list (pending, running) and out of it: O(1).  A job in
 * either is active (R->active). */
static void _list_add(gq_replay_t *R, uint32_t *list, size_t *n, uint32_t i)
{
	R->job[i].pos = (uint32_t)*n;
	list[(*n)++] = i;
	R->active[i / 64] |= 1ULL << (i % 64);
}

static void _list_drop(gq_replay_t *R, uint32_t *list, size_t *n, uint32_t i)
{
	uint32_t at = R->job[i].pos, last = list[--(*n)];

	list[at] = last;
	R->job[last].pos = at;
	R->active[i / 64] &= ~(1ULL << (i % 64));
}

/* Start job i on `nodes` (a fit).  Its end, and the wake-ups of the rules
 * that read its age: min runtime, reclaim patience. */
int gq_sim_start(gq_replay_t *R, uint32_t i, const int *nodes)
{
	const gq_sim_job_t *hj = &R->h->job[i];
	gq_rjob_t *j = &R->job[i];
	gq_sim_outcome_t *out = &R->r->job[i];
	uint32_t k, g, cp;
	int64_t w = 0;

	memcpy(j->nodes, nodes, j->shape.nodes * sizeof(*nodes));
	gq_sim_take(R->c, &j->shape, j->nodes);
	j->held_gpus = 0;
	for (k = 0; k < j->shape.nodes; k++) {
		gq_sim_held(R->c, &j->shape, nodes[k], &g, &cp);
		j->held_gpus += g;
	}
	gq_sim_eligible(R, i, -1);
	R->r->acct[j->acct].alloc += j->held_gpus;
	out->wait += R->now - j->pend_since;
	if (out->first_start < 0)
		out->first_start = R->now;
	out->last_start = R->now;
	j->st = ST_RUNNING;
	j->start = R->now;
	j->run++;
	_list_drop(R, R->pending, &R->npending, i);
	_list_add(R, R->running, &R->nrunning, i);
	gq_sim_resv_running(&R->resv, i, R->now + gq_sim_resv_limit(hj),
			    &j->shape, j->nodes);
	gq_sim_mark(R);
	if (R->gq) {
		const gq_config_t *cfg = gq_state_config();

		w = cfg->settings.min_runtime;
		if (w > 0 && gq_events_push(&R->ev, R->now + w, GQ_EV_WAKE, 0, 0))
			return -1;
		w = cfg->settings.reclaim_patience;
		if (w > 0 && hj->limit > w &&
		    gq_events_push(&R->ev, R->now + hj->limit - w, GQ_EV_WAKE,
				   0, 0))
			return -1;
	}
	return gq_events_push(&R->ev, R->now + hj->run, GQ_EV_END, i, j->run);
}

/* Job i leaves its nodes: its GPU-seconds counted. */
static void _leave(gq_replay_t *R, uint32_t i)
{
	gq_rjob_t *j = &R->job[i];
	gq_sim_acct_t *x = &R->r->acct[j->acct];

	gq_sim_give(R->c, &j->shape, j->nodes);
	x->alloc -= j->held_gpus;
	x->gpu_secs += (double)j->held_gpus * (R->now - j->start);
	_list_drop(R, R->running, &R->nrunning, i);
	gq_sim_resv_gone(&R->resv, i);
	j->warned = false;
	gq_sim_mark(R);
}

void gq_sim_end(gq_replay_t *R, uint32_t i)
{
	_leave(R, i);
	R->job[i].st = ST_DONE;
	if (R->gq)	/* priority/gpuquota's job_end */
		gq_state_job_gone(R->h->job[i].id);
}

void gq_sim_cut(gq_replay_t *R)
{
	size_t k;

	for (k = 0; k < R->nrunning; k++) {
		const gq_rjob_t *j = &R->job[R->running[k]];

		R->r->acct[j->acct].gpu_secs +=
			(double)j->held_gpus * (R->now - j->start);
	}
}

/*
 * Slurm's requeue: the job pending again, its submit time now, its begin
 * time `requeue_delay` later; its work since its start is lost (the
 * history has no checkpoints) and its whole run is done again.
 */
int gq_sim_requeue(gq_replay_t *R, uint32_t i)
{
	gq_rjob_t *j = &R->job[i];
	gq_sim_acct_t *x = &R->r->acct[j->acct];

	x->lost_secs += (double)j->held_gpus * (R->now - j->start);
	x->requeues++;
	R->r->job[i].requeues++;
	_leave(R, i);
	_list_add(R, R->pending, &R->npending, i);
	j->st = ST_PENDING;
	j->run++;
	j->pend_since = R->now;
	j->begin = R->now + R->o->requeue_delay;
	if (j->begin <= R->now) {	/* no delay: demand at once */
		gq_sim_eligible(R, i, +1);
		return 0;
	}
	return gq_events_push(&R->ev, j->begin, GQ_EV_BEGIN, i, j->run);
}

int gq_sim_submit(gq_replay_t *R, uint32_t i)
{
	gq_rjob_t *j = &R->job[i];

	j->st = ST_PENDING;
	j->pend_since = j->begin = R->now;
	_list_add(R, R->pending, &R->npending, i);
	gq_sim_eligible(R, i, +1);
	R->r->acct[j->acct].jobs++;
	gq_sim_mark(R);
	return R->gq ? gq_sim_add_late(R, i) : 0;
}
