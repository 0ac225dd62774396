/*
 * model_pass.c - gpuquota's pass on the model, as slurmctld runs it (see
 * model.h): the pass input made of the model's nodes and jobs, filled and
 * computed by shared/pass_input.h, published; each job's answer; a
 * submit between passes added late.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"
#include "state/state.h"
#include "shared/job_facts.h"

/* ---- the core's input, from the model ---------------------------------- */

/* A job's facts as Slurm would give them, into the core's input. */
static void _job_in(gq_replay_t *R, uint32_t i, gq_job_in_t *in)
{
	const gq_sim_job_t *hj = &R->h->job[i];
	const gq_rjob_t *j = &R->job[i];
	bool running = j->st == ST_RUNNING;
	gq_job_facts_t f;

	gq_facts_model_job(&f, running, j->begin, R->now);
	f.id = hj->id;
	f.submit_time = j->pend_since;
	f.start_time = running ? j->start : 0;
	f.end_time = running && hj->limit ? j->start + hj->limit : 0;
	f.time_limit = running || hj->limit > UINT32_MAX ? 0 : hj->limit;
	f.gpus = running ? j->held_gpus : hj->gpus;
	f.nodes = hj->nodes;
	f.gpus_per_node = (hj->gpus + hj->nodes - 1) / hj->nodes;
	gq_job_input(&f, R->now, in);
	in->at_risk = running && j->warned;
}

/* Room in the input for every active job and its places. */
static int _in_room(gq_replay_t *R, size_t jobs, size_t places)
{
	if (jobs > R->in_cap) {
		gq_pass_job_t *j = realloc(R->in.job, jobs * sizeof(*j));

		if (!j)
			return -1;
		R->in.job = j;
		R->in_cap = jobs;
	}
	if (places > R->place_cap) {
		gq_pass_place_t *p = realloc(R->in.place, places * sizeof(*p));

		if (!p)
			return -1;
		R->in.place = p;
		R->place_cap = places;
	}
	return 0;
}

/* The nodes and partitions, once: what the pass reads of them but their
 * allocated GPUs. */
int gq_sim_in_nodes(gq_replay_t *R)
{
	const gq_sim_cluster_t *c = R->c;
	size_t n = 0;
	int i, b;

	R->in.node = calloc(c->n + 1, sizeof(*R->in.node));
	R->in.node_part = calloc((size_t)c->n * (c->nparts + 1) + 1,
				 sizeof(*R->in.node_part));
	if (!R->in.node || !R->in.node_part)
		return -1;
	R->in.part = (const char *const *)c->part;
	R->in.nparts = c->nparts;
	R->in.nnodes = c->n;
	for (i = 0; i < c->n; i++) {
		gq_pass_node_t *pn = &R->in.node[i];

		pn->present = true;
		pn->state = gq_facts_model_node_state();
		pn->gpus = c->node[i].gpus;
		pn->part = n;
		for (b = 0; b < c->nparts; b++)
			if (c->node[i].parts & (1ULL << b)) {
				R->in.node_part[n++] = b;
				pn->nparts++;
			}
	}
	R->in.nnode_parts = n;
	return 0;
}

/* A running job's GPUs node by node into the input. */
static void _in_place(gq_replay_t *R, uint32_t i, gq_pass_job_t *pj)
{
	const gq_rjob_t *j = &R->job[i];
	uint32_t k, g, cp;

	pj->place = R->in.nplaces;
	for (k = 0; k < j->shape.nodes; k++) {
		gq_sim_held(R->c, &j->shape, j->nodes[k], &g, &cp);
		R->in.place[R->in.nplaces].node = j->nodes[k];
		R->in.place[R->in.nplaces++].gpus = g;
		pj->nplaces++;
	}
}

/* One active job into the input (a job of no pool is left out). */
static void _in_job(gq_replay_t *R, gq_pools_t *p, uint32_t i)
{
	const gq_sim_job_t *hj = &R->h->job[i];
	bool pending = R->job[i].st == ST_PENDING;
	gq_pass_job_t *pj = &R->in.job[R->in.njobs];

	memset(pj, 0, sizeof(*pj));
	if ((pj->pool = gq_pass_pool(p, hj->partition, pending)) < 0)
		return;
	pj->account = hj->account;
	pj->partitions = hj->partition;
	pj->pending = pending;
	_job_in(R, i, &pj->in);
	if (!pending)
		_in_place(R, i, pj);
	R->in.njobs++;
}

/*
 * The victims still leaving, as a pass reads them from Slurm's records
 * (gq_pass_victim with the system comment preempt/gpuquota writes).
 */
static void _in_victims(gq_replay_t *R)
{
	size_t k;

	gq_state_leaving_begin();
	for (k = 0; k < R->nrunning; k++) {
		const gq_rjob_t *j = &R->job[R->running[k]];
		gq_job_facts_t f;
		char comment[64];
		uint32_t preemptor;
		int64_t since;
		int grace;

		if (!j->warned)
			continue;
		gq_facts_model_job(&f, true, 0, R->now);
		snprintf(comment, sizeof(comment), GQ_RECLAIMED_FOR "%u",
			 j->preemptor);
		gq_pass_victim(&f, comment, j->warned_at, R->now, false,
			       NULL, -1, &preemptor, &since, &grace);
	}
	gq_state_leaving_end();
}

/* Fill the state's next views from the model, the active jobs in
 * submit order as Slurm's job list has them (a walk of the active bits:
 * O(history / 64 + J)), plus the nodes: O(N). */
static int _fill(gq_replay_t *R, gq_pools_t *p)
{
	size_t places = 0, k, i;

	for (k = 0; k < R->nrunning; k++)
		places += R->job[R->running[k]].shape.nodes;
	if (_in_room(R, R->npending + R->nrunning + 1, places + 1))
		return -1;
	R->in.njobs = 0;
	R->in.nplaces = 0;
	for (i = 0; i < (size_t)R->c->n; i++)
		R->in.node[i].alloc = R->c->node[i].gpus - R->c->free_gpus[i];
	for (k = 0; k < (R->h->n + 63) / 64; k++) {
		uint64_t w = R->active[k];

		while (w) {
			_in_job(R, p, (uint32_t)(k * 64 + __builtin_ctzll(w)));
			w &= w - 1;
		}
	}
	_in_victims(R);
	return gq_pass_fill(p, &R->in, R->now);
}

/* ---- a pass ------------------------------------------------------------ */

/* A pass the plugin would make while a node is saved with moves on
 * (docs/MODEL.md "Moves"): after the grace time, at least the interval
 * between passes.  0: none. */
static int64_t _move_wake(const gq_pools_t *v)
{
	const gq_settings_t *s = &gq_state_config()->settings;
	int k;

	if (!s->move_age)
		return 0;
	for (k = 0; k < v->n; k++)
		if (gq_view_saved_for(v->view[k]) &&
		    !gq_view_move_of(v->view[k])->waiter)
			return s->grace_time > s->recompute_interval ?
				       s->grace_time : s->recompute_interval;
	return 0;
}

/* Wake-ups for the waits the pass began (room waits, moves). */
static int _pass_wakes(gq_replay_t *R)
{
	gq_pools_t *v = gq_state_view();
	int64_t move = _move_wake(v);
	int k, room = gq_state_room_wait();

	if (move && gq_events_push(&R->ev, R->now + move, GQ_EV_WAKE, 0, 0))
		return -1;

	for (k = 0; room > 0 && k < v->n; k++) {
		const uint32_t *ids;

		if (gq_view_room_waiters(v->view[k], &ids) > 0)
			return gq_events_push(&R->ev, R->now + room + 1,
					      GQ_EV_WAKE, 0, 0);
	}
	return 0;
}

/*
 * priority/gpuquota's pass (pass_thread.c, _pass): read, compute,
 * publish, usage counted; the ledger's records taken (the plugin writes
 * them to its file).  O(J + N) plus the core's.
 */
int gq_sim_pass(gq_replay_t *R)
{
	const gq_config_t *cfg = gq_state_config();
	gq_pools_t *next = gq_state_next();
	gq_ledger_rec_t *recs;

	if (!next || _fill(R, next) ||
	    gq_pass_compute(next, gq_state_usage(), gq_state_losses(R->now),
			    &cfg->settings, R->now))
		return -1;
	gq_state_publish();
	if (gq_usage_advance(gq_state_usage(), gq_state_view(),
			     cfg->settings.usage_half_life, R->now))
		return -1;
	gq_state_ledger_take(&recs);
	free(recs);
	R->r->passes++;
	R->dirty = false;
	R->last_pass = R->now;
	return _pass_wakes(R);
}

/* ---- the answers -------------------------------------------------------- */

/* The job's hold and priority now (write_slurm.c's decision: the record
 * gq_pools_answer gives; a job no pass classified yet, or of no pool:
 * priority 1, not held). */
void gq_sim_answer(gq_replay_t *R, uint32_t i)
{
	gq_rjob_t *j = &R->job[i];
	const gq_pools_t *v = R->gq ? gq_state_view() : NULL;
	const gq_job_t *a;
	int k;

	j->held = false;
	j->prio = 1;
	if (!v || !(a = gq_pools_answer(v, R->h->job[i].id, &k)) ||
	    a->in.state == GQ_JOB_RUNNING)
		return;
	j->held = a->hold != GQ_HOLD_NONE;
	j->prio = a->priority;
}

/* A job submitted between passes (priority_p_set, gq_read_add): added
 * late to the published view. */
int gq_sim_add_late(gq_replay_t *R, uint32_t i)
{
	const gq_sim_job_t *hj = &R->h->job[i];
	gq_pools_t *v = gq_state_view();
	gq_job_in_t in;
	int k;

	if (!v || (k = gq_pass_pool(v, hj->partition, true)) < 0)
		return 0;
	_job_in(R, i, &in);
	if (!gq_view_add_late(v->view[k], hj->account, &in))
		return -1;
	return gq_pass_shadows(v, k, hj->account, hj->partition, &in, true);
}

