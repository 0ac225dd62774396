/*
 * replay.c - the simulator's event loop (see replay.h).
 *
 * Costs: each event time walks the accounts for the figures (O(A)); each
 * scheduling attempt sorts the eligible pending jobs (O(P log P)) and
 * tries each at a glance (O(1)), a first fit (O(N)) only when the glance
 * allows; each pass is the core's (O(J)) plus its input (O(J + N));
 * a preemptor that does not fit walks the running jobs (O(R log R)) and
 * fits again after each candidate (O(N) each).  What grows with a
 * month's history is the number of event times and passes, linearly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/events.h"
#include "sim/replay.h"
#include "state/ledger.h"
#include "state/state.h"
#include "shared/job_facts.h"
#include "shared/pass_input.h"

enum { ST_FUTURE, ST_PENDING, ST_RUNNING, ST_DONE };

/* A job as the model has it now. */
typedef struct {
	uint8_t st;
	bool warned;		/* a victim in its grace time */
	bool held;		/* gpuquota's answer: held */
	bool reclaims;		/* may reclaim (this scheduling attempt) */
	uint32_t prio;		/* the priority Slurm orders it by */
	uint32_t run;		/* its runs so far (stale events) */
	uint32_t preemptor;	/* warned: the job it was taken for */
	int64_t warned_at;	/* Slurm's preempt_time */
	int acct;
	uint32_t pos;		/* its place in the pending or running list */
	int64_t pend_since;	/* submitted, or requeued (Slurm's submit
				 * time then) */
	int64_t begin;		/* not before */
	int64_t start;
	uint32_t held_gpus;	/* running: all its nodes' */
	gq_sim_shape_t shape;
	int *nodes;		/* running: shape.nodes of them */
} gq_rjob_t;

typedef struct {
	const gq_sim_opts_t *o;
	const gq_sim_history_t *h;
	gq_sim_cluster_t *c;
	gq_sim_result_t *r;
	bool gq;		/* gpuquota (else stock) */
	gq_rjob_t *job;
	gq_events_t ev;
	int64_t now;
	bool dirty;		/* something changed since the last pass */
	int64_t dirty_since, last_pass, base;
	int interval;
	uint32_t *running;	/* indexes of running jobs */
	size_t nrunning;
	uint32_t *pending;	/* indexes of pending jobs */
	size_t npending;
	uint64_t *active;	/* bit i: job i pending or running */
	uint32_t *order;	/* the scheduler's scratch */
	uint64_t eligible;	/* eligible pending jobs */
	gq_pass_in_t in;	/* the pass input, its arrays reused */
	size_t in_cap, place_cap;
	uint32_t *scratch_g, *scratch_c;	/* what-if idle GPUs, CPUs */
	int *fit;
	struct cand { uint32_t rank, job; } *cand;
} gq_replay_t;

double gq_sim_quota_of(const gq_config_t *cfg, const char *account)
{
	int i, a, k;

	for (i = 0; cfg && i < cfg->nprojects; i++) {
		const gq_project_cfg_t *p = &cfg->projects[i];
		bool ours = !p->naccounts && !strcmp(p->name, account);
		double q = 0;

		for (a = 0; a < p->naccounts; a++)
			ours = ours || !strcmp(p->accounts[a], account);
		if (!ours)
			continue;
		if (!cfg->npools)
			return p->gpu_quota;
		for (k = 0; k < cfg->npools; k++)
			q += p->by_pool[k].gpu_quota;
		return q;
	}
	return 0;
}

static void _mark(gq_replay_t *R)
{
	if (!R->dirty)
		R->dirty_since = R->now;
	R->dirty = true;
}

/* ---- the figures ------------------------------------------------------ */

/* Time passes from R->now to t: below quota, idle while jobs waited. */
static void _advance(gq_replay_t *R, int64_t t)
{
	int64_t dt = t - R->now;
	int a;

	if (dt <= 0)
		return;
	for (a = 0; a < R->r->nacct; a++) {
		gq_sim_acct_t *x = &R->r->acct[a];
		double demand = x->alloc + (double)x->pending;

		if (x->pending &&
		    x->alloc < (x->quota < demand ? x->quota : demand))
			x->below_secs += dt;
	}
	if (R->eligible)
		R->r->idle_waiting_secs += (double)R->c->idle_gpus * dt;
	R->now = t;
}

static void _eligible(gq_replay_t *R, uint32_t i, int sign)
{
	gq_sim_acct_t *x = &R->r->acct[R->job[i].acct];

	x->pending += sign > 0 ? R->h->job[i].gpus : -(int64_t)R->h->job[i].gpus;
	R->eligible += sign;
}

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
static int _in_nodes(gq_replay_t *R)
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
			       &preemptor, &since, &grace);
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

/* Wake-ups for the waits the pass began (room waits). */
static int _pass_wakes(gq_replay_t *R)
{
	gq_pools_t *v = gq_state_view();
	int k, room = gq_state_room_wait();

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
static int _pass(gq_replay_t *R)
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
static void _answer(gq_replay_t *R, uint32_t i)
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
static int _add_late(gq_replay_t *R, uint32_t i)
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
static int _start(gq_replay_t *R, uint32_t i, const int *nodes)
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
	_eligible(R, i, -1);
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
	_mark(R);
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
	j->warned = false;
	_mark(R);
}

static void _end(gq_replay_t *R, uint32_t i)
{
	_leave(R, i);
	R->job[i].st = ST_DONE;
	if (R->gq)	/* priority/gpuquota's job_end */
		gq_state_job_gone(R->h->job[i].id);
}

/*
 * Slurm's requeue: the job pending again, its submit time now, its begin
 * time `requeue_delay` later; its work since its start is lost (the
 * history has no checkpoints) and its whole run is done again.
 */
static int _requeue(gq_replay_t *R, uint32_t i)
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
		_eligible(R, i, +1);
		return 0;
	}
	return gq_events_push(&R->ev, j->begin, GQ_EV_BEGIN, i, j->run);
}

/* ---- reclaim, as preempt/gpuquota answers Slurm ------------------------- */

/*
 * Victim i taken for job `er` (preempt_gpuquota.c's _grace_time: its
 * grace time, the reclaim noted and work outside quotas held for it,
 * its GPUs gone from its project); requeued now, or warned until its
 * grace time ends.
 */
static int _take(gq_replay_t *R, uint32_t i, uint32_t er)
{
	gq_pools_t *v = gq_state_view();
	const gq_job_t *jr, *je;
	int k, grace = 0;

	if ((jr = gq_pools_job(v, er, &k)) &&
	    (je = gq_view_job(v->view[k], R->h->job[i].id))) {
		grace = gq_config_grace_time(gq_state_config(),
			gq_view_project(v->view[k], je->project)->name);
		gq_ledger_rec_t rec;

		/* the record the requeue budgets read (_ledger_note) */
		gq_ledger_record(&rec, v->name[k], v->view[k], jr, je, R->now);
		gq_state_ledger_note(&rec);
	}
	if (gq_state_note_reclaim(er, R->now, grace))
		gq_state_wait_for_reclaims(v, R->now);
	gq_state_job_gone(R->h->job[i].id);
	R->r->reclaims++;
	if (gq_events_push(&R->ev, R->now + GQ_RECLAIM_WAIT + grace + 1,
			   GQ_EV_WAKE, 0, 0))
		return -1;
	if (!grace)
		return _requeue(R, i);
	R->job[i].warned = true;
	R->job[i].warned_at = R->now;
	R->job[i].preemptor = er;
	return gq_events_push(&R->ev, R->now + grace, GQ_EV_GRACE, i,
			      R->job[i].run);
}

static int _by_rank(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

/*
 * The candidates preempt/gpuquota offers for `er`, in the order it ranks
 * them (preempt_p_preemptable, _prio): a victim in its grace time first
 * (rank 0) when it may count on it, then gq_view_preempt_rank's.
 * O(R log R).
 */
static size_t _candidates(gq_replay_t *R, const gq_pools_t *v, uint32_t er)
{
	size_t k, n = 0;

	for (k = 0; k < R->nrunning; k++) {
		uint32_t i = R->running[k], ee = R->h->job[i].id;
		const gq_rjob_t *j = &R->job[i];
		int p;

		if (j->warned) {
			if (gq_pools_may_take_leaving(v, ee, j->preemptor, er))
				R->cand[n++] = (struct cand){ 0, i };
		} else if (gq_pools_preemptable(v, ee, er) &&
			   (p = gq_pools_find(v, ee)) >= 0) {
			R->cand[n++] = (struct cand){
				gq_view_preempt_rank(v->view[p], ee), i };
		}
	}
	qsort(R->cand, n, sizeof(*R->cand), _by_rank);
	return n;
}

/* Does candidate job i hold GPUs on one of the fit's nodes? */
static bool _on_fit(const gq_replay_t *R, uint32_t i, const int *fit,
		    uint32_t nfit)
{
	const gq_rjob_t *j = &R->job[i];
	uint32_t a, b;

	for (a = 0; a < j->shape.nodes; a++)
		for (b = 0; b < nfit; b++)
			if (j->nodes[a] == fit[b])
				return true;
	return false;
}

/*
 * Job i (id er) does not fit: cons_tres's choice of victims among the
 * candidates, modelled: each candidate in order taken out of a what-if
 * copy of the idle GPUs until the job fits; the victims are those taken
 * out on the nodes it would get.  Victims already leaving are waited
 * for, not taken again; the job starts at once when every victim left
 * at once (no grace time: Slurm starts it a few seconds later, after
 * KillWait).  O(R log R + candidates x N).
 */
static int _reclaim(gq_replay_t *R, uint32_t i)
{
	const gq_pools_t *v = gq_state_view();
	uint32_t er = R->h->job[i].id, g, cp, d;
	size_t n, m;
	bool leaving = false;

	if (!v || gq_pools_reclaiming(v, er) < 0 ||
	    gq_state_reclaim_settling(er, R->now, 0) ||
	    !(n = _candidates(R, v, er)))
		return 0;
	memcpy(R->scratch_g, R->c->free_gpus, R->c->n * sizeof(uint32_t));
	memcpy(R->scratch_c, R->c->free_cpus, R->c->n * sizeof(uint32_t));
	for (m = 0; m < n; m++) {
		const gq_rjob_t *c = &R->job[R->cand[m].job];

		for (d = 0; d < c->shape.nodes; d++) {
			gq_sim_held(R->c, &c->shape, c->nodes[d], &g, &cp);
			R->scratch_g[c->nodes[d]] += g;
			R->scratch_c[c->nodes[d]] += cp;
		}
		if (gq_sim_fit(R->c, R->scratch_g, R->scratch_c,
			       &R->job[i].shape, R->fit))
			break;
	}
	if (m == n)
		return 0;
	for (n = 0; n <= m; n++) {
		uint32_t c = R->cand[n].job;

		if (!_on_fit(R, c, R->fit, R->job[i].shape.nodes))
			continue;
		if (R->job[c].warned)
			leaving = true;
		else if (_take(R, c, er))
			return -1;
		leaving = leaving || R->job[c].warned;
	}
	if (leaving || !gq_sim_fit(R->c, R->c->free_gpus, R->c->free_cpus,
				   &R->job[i].shape, R->fit))
		return 0;
	return _start(R, i, R->fit);
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
 * Slurm's order: not held, and fitting at a glance or able to reclaim.
 * *reclaimers: how many may reclaim.  O(P) lookups.
 */
static size_t _candidates_now(gq_replay_t *R, size_t *reclaimers)
{
	const gq_pools_t *v = R->gq ? gq_state_view() : NULL;
	size_t i, n = 0;

	*reclaimers = 0;
	for (i = 0; i < R->npending; i++) {
		uint32_t j = R->pending[i];
		gq_rjob_t *x = &R->job[j];

		if (x->begin > R->now)
			continue;
		_answer(R, j);
		x->reclaims = v && gq_pools_reclaiming(v, R->h->job[j].id) >= 0;
		if (x->held || (!x->reclaims && !gq_sim_may_fit(R->c, &x->shape)))
			continue;
		*reclaimers += x->reclaims;
		R->order[n++] = j;
	}
	for (i = n / 2; i-- > 0;)
		_sift(R, n, i);
	return n;
}

/*
 * A scheduling attempt: the eligible pending jobs in Slurm's order, each
 * started when it fits now (held ones never); with gpuquota, one that
 * does not fit may reclaim.  Only the jobs that may do something are
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
			_answer(R, j);	/* holds written during the attempt */
			if (x->held)
				continue;
			if (gq_sim_may_fit(R->c, &x->shape) &&
			    gq_sim_fit(R->c, R->c->free_gpus, R->c->free_cpus,
				       &x->shape, R->fit)) {
				if (_start(R, j, R->fit))
					return -1;
			} else if (x->reclaims && _reclaim(R, j)) {
				return -1;
			}
		}
		again = R->r->reclaims != before;
	}
	return 0;
}

/* ---- events ------------------------------------------------------------- */

static int _submit(gq_replay_t *R, uint32_t i)
{
	gq_rjob_t *j = &R->job[i];

	j->st = ST_PENDING;
	j->pend_since = j->begin = R->now;
	_list_add(R, R->pending, &R->npending, i);
	_eligible(R, i, +1);
	R->r->acct[j->acct].jobs++;
	_mark(R);
	return R->gq ? _add_late(R, i) : 0;
}

static int _event(gq_replay_t *R, const gq_ev_t *e)
{
	gq_rjob_t *j = &R->job[e->job];

	switch (e->kind) {
	case GQ_EV_SUBMIT:
		return _submit(R, e->job);
	case GQ_EV_END:
		if (j->st == ST_RUNNING && j->run == e->run)
			_end(R, e->job);
		return 0;
	case GQ_EV_GRACE:
		if (j->st == ST_RUNNING && j->run == e->run && j->warned)
			return _requeue(R, e->job);
		return 0;
	case GQ_EV_BEGIN:
		if (j->st == ST_PENDING && j->run == e->run) {
			_eligible(R, e->job, +1);
			_mark(R);
		}
		return 0;
	case GQ_EV_WAKE:
		_mark(R);
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
 * scheduling attempt after.
 */
static int _loop(gq_replay_t *R)
{
	gq_ev_t e;
	int rc = 0;

	while (!rc) {
		int64_t te = gq_events_next(&R->ev), tp = _next_pass(R);
		int64_t t = te < tp ? te : tp;

		if (t == INT64_MAX)
			break;
		_advance(R, t);
		while (!rc && gq_events_next(&R->ev) == t &&
		       gq_events_pop(&R->ev, &e))
			rc = _event(R, &e);
		if (!rc && t >= tp)
			rc = _pass(R);
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
		R->job[i].acct = a;
	}
	return 0;
}

static int _setup(gq_replay_t *R)
{
	size_t n = R->h->n, i;

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
	if (!R->job || !R->r->job || !R->running || !R->pending ||
	    !R->active || !R->order || !R->cand || !R->scratch_g ||
	    !R->scratch_c || !R->fit || _accounts(R) || _in_nodes(R))
		return -1;
	for (i = 0; i < n; i++) {
		const gq_sim_job_t *hj = &R->h->job[i];
		gq_rjob_t *j = &R->job[i];

		R->r->job[i].first_start = -1;
		j->shape = (gq_sim_shape_t){
			.gpus = hj->gpus, .cpus = hj->cpus,
			.nodes = hj->nodes,
			.parts = gq_sim_part_mask(R->c, hj->partition) };
		if (!(j->nodes = calloc(hj->nodes, sizeof(int))) ||
		    gq_events_push(&R->ev, hj->submit, GQ_EV_SUBMIT,
				   (uint32_t)i, 0))
			return -1;
	}
	R->now = R->base = R->last_pass = n ? R->h->job[0].submit : 0;
	return 0;
}

static int _by_wait(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
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
		qsort(w, n, sizeof(*w), _by_wait);
		x->wait_p50 = n ? w[(n * 50 + 99) / 100 - 1] : 0;
		x->wait_p95 = n ? w[(n * 95 + 99) / 100 - 1] : 0;
	}
	free(w);
	return 0;
}

static void _free(gq_replay_t *R)
{
	size_t i;

	for (i = 0; R->job && i < R->h->n; i++)
		free(R->job[i].nodes);
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
	gq_replay_t R = { .o = o, .h = o->history, .c = o->cluster, .r = r,
			  .gq = o->config != NULL };
	int rc = -1;

	memset(r, 0, sizeof(*r));
	_idle(R.c);
	gq_state_lock();
	gq_state_clear();
	if (R.gq && gq_state_load(o->config, err, errlen)) {
		gq_state_unlock();
		return -1;
	}
	R.interval = o->pass_interval > 0 ? o->pass_interval :
		     R.gq ? gq_state_config()->settings.recompute_interval : 1;
	if (!_setup(&R) && !_loop(&R) && !_waits(&R))
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
	memset(r, 0, sizeof(*r));
}
