/*
 * model_reclaim.c - a reclaim on the model (see model.h): the candidates
 * preempt/gpuquota offers, cons_tres's choice of victims among them
 * (modelled), and each victim taken as preempt/gpuquota notes it.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grace.h"
#include "sim/model.h"
#include "state/ledger.h"
#include "state/state.h"

/* ---- reclaim, as preempt/gpuquota answers Slurm ------------------------- */

/*
 * Victim i taken for job `er` (preempt_gpuquota.c's _take_victim: its
 * grace time, the reclaim noted and work outside quotas held for it,
 * its GPUs gone from its project); requeued now, or warned until its
 * grace time ends.
 */
static int _take(gq_replay_t *R, uint32_t i, uint32_t er)
{
	gq_pools_t *v = gq_state_view();
	const gq_job_t *jr, *je;
	int k, grace = 0, to = -1;
	bool fresh;

	if ((jr = gq_pools_job(v, er, &k)) &&
	    (je = gq_view_job(v->view[k], R->h->job[i].id))) {
		grace = gq_grace_of(gq_state_config(),
			gq_view_project(v->view[k], je->project)->name);
		gq_ledger_rec_t rec;

		/* the record the requeue budgets read (_ledger_note) */
		gq_ledger_record(&rec, v->name[k], v->view[k], jr, je, R->now);
		gq_state_ledger_note(&rec);
		R->r->moves += rec.reason == GQ_RECLAIM_MOVE;
		to = gq_view_move_to(v->view[k], er, je->in.id);
		if (to >= 0)	/* its landing kept while it restarts */
			gq_state_note_landing(je->in.id, to, R->now, grace,
					      GQ_SIM_REQUEUE_DELAY);
	}
	/* as preempt/gpuquota's _note_reclaim: the victim's nodes (the
	 * model's node i is the pass' node i), so that only the work that
	 * could start on them waits */
	fresh = gq_state_note_reclaim(er, R->now, grace);
	if (gq_state_reclaim_nodes(er, R->job[i].nodes,
				   (int)R->job[i].shape.nodes) || fresh || to >= 0)
		gq_state_wait_for_reclaims(v, R->now);
	gq_state_job_gone(R->h->job[i].id);
	R->r->reclaims++;
	if (gq_events_push(&R->ev, R->now + GQ_RECLAIM_WAIT + grace + 1 +
				   (to >= 0 ? GQ_SIM_REQUEUE_DELAY : 0),
			   GQ_EV_WAKE, 0, 0))
		return -1;
	if (!grace)
		return gq_sim_requeue(R, i);
	if (R->now + grace < R->resv.run[i].end)	/* Slurm's end_time */
		gq_sim_resv_ends(&R->resv, i, R->now + grace);
	R->job[i].warned = true;
	R->job[i].warned_at = R->now;
	R->job[i].preemptor = er;
	return gq_events_push(&R->ev, R->now + grace, GQ_EV_GRACE, i,
			      R->job[i].run);
}

static int _by_rank(const void *a, const void *b)
{
	const gq_sim_cand_t *x = a, *y = b;

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
				R->cand[n++] = (gq_sim_cand_t){ 0, i };
		} else if (gq_pools_preemptable(v, ee, er) &&
			   (p = gq_pools_find(v, ee)) >= 0) {
			R->cand[n++] = (gq_sim_cand_t){
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
int gq_sim_reclaim(gq_replay_t *R, uint32_t i)
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
	return gq_sim_start(R, i, R->fit);
}

