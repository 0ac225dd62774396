/*
 * metrics.c - the plugins' counters (see metrics.h).
 */
#include <string.h>

#include "state/metrics.h"

_Static_assert(GQ_HOLD_BUDGET + 1 == GQ_HOLD_NREASONS,
	       "a counter for each hold reason");

void gq_metrics_init(gq_metrics_t *m, double now)
{
	memset(m, 0, sizeof(*m));
	m->started_at = now;
	gq_hist_init(&m->pass_seconds, gq_hist_pass_bounds,
		     gq_hist_pass_nbounds);
	gq_hist_init(&m->lock_hold_seconds, gq_hist_pass_bounds,
		     gq_hist_pass_nbounds);
	gq_hist_init(&m->read_hold_seconds, gq_hist_pass_bounds,
		     gq_hist_pass_nbounds);
}

void gq_metrics_pass(gq_metrics_t *m, const gq_pass_rec_t *r)
{
	gq_pass_rec_t *slot;

	if (!r->rehold) {
		m->passes_total++;
		if (!r->ok)
			m->pass_failures_total++;
		gq_hist_observe(&m->pass_seconds, r->pass_us / 1e6);
		if (r->read_hold_us)	/* 0: made whole, in one hold */
			gq_hist_observe(&m->read_hold_seconds,
					r->read_hold_us / 1e6);
	}
	gq_hist_observe(&m->lock_hold_seconds, r->lock_hold_us / 1e6);
	if (m->recent_n < GQ_RECENT_PASSES) {
		slot = &m->recent[(m->recent_first + m->recent_n++) %
				  GQ_RECENT_PASSES];
	} else {	/* full: the oldest makes room */
		slot = &m->recent[m->recent_first];
		m->recent_first = (m->recent_first + 1) % GQ_RECENT_PASSES;
	}
	*slot = *r;
}

const gq_pass_rec_t *gq_metrics_recent(const gq_metrics_t *m, int i)
{
	return &m->recent[(m->recent_first + i) % GQ_RECENT_PASSES];
}

void gq_metrics_victim(gq_metrics_t *m, uint32_t preemptor, gq_band_t band,
		       bool moved, uint32_t gpus)
{
	int r = band == GQ_BAND_FAIR_SHARE ? GQ_RECLAIM_FAIR_SHARE :
					     GQ_RECLAIM_QUOTA;

	if (preemptor != m->last_preemptor)
		m->reclaims_total[r]++;
	m->last_preemptor = preemptor;
	if (moved)
		r = GQ_RECLAIM_MOVE;
	m->victims_total[r]++;
	m->victim_gpus_total[r] += gpus;
}

/* project `name`'s counters, added when new; NULL past the table */
static gq_metrics_project_t *_project(gq_metrics_t *m, const char *name)
{
	int i;

	for (i = 0; i < m->nprojects; i++)
		if (!strcmp(m->project[i].name, name))
			return &m->project[i];
	if (m->nprojects == GQ_METRICS_PROJECTS)
		return NULL;
	gq_ledger_name(m->project[m->nprojects].name, name);
	return &m->project[m->nprojects++];
}

void gq_metrics_ledger(gq_metrics_t *m, const gq_ledger_rec_t *r,
		       bool queued)
{
	gq_metrics_project_t *v, *p;
	int why = r->reason;

	if (queued)
		m->ledger_records_total++;
	else
		m->ledger_dropped_total++;
	if (r->stage == GQ_LEDGER_OBSERVED)	/* not acted on */
		return;
	v = _project(m, r->victim_project);
	p = _project(m, r->preemptor_project);
	if (!v || !p)
		m->projects_uncounted_total++;
	if (why >= 0 && why < GQ_RECLAIM_NREASONS &&
	    r->stage != GQ_LEDGER_WARNED) {
		m->lost_gpu_seconds_total[why] += r->lost;
		if (v)
			v->lost[why] += r->lost;
	}
	if (why >= 0 && why < GQ_RECLAIM_NREASONS &&
	    r->stage != GQ_LEDGER_AFTER_GRACE) {
		if (v) {
			v->victims[why]++;
			v->gpus_lent[why] += r->gpus;
		}
		if (p)
			p->gpus_reclaimed[why] += r->gpus;
	}
}

void gq_metrics_ledger_dropped(gq_metrics_t *m, int n)
{
	m->ledger_dropped_total += n;
}

void gq_metrics_config_failed(gq_metrics_t *m)
{
	m->config_load_failures_total++;
}

void gq_metrics_load_failed(gq_metrics_t *m)
{
	m->state_load_failures_total++;
}

void gq_metrics_hold(gq_metrics_t *m, gq_hold_t why)
{
	if (why > GQ_HOLD_NONE && (int)why < GQ_HOLD_NREASONS)
		m->holds_total[why]++;
}

void gq_metrics_release(gq_metrics_t *m)
{
	m->releases_total++;
}

const char *gq_metrics_hold_reason(int h)
{
	static const char *const names[GQ_HOLD_NREASONS] = {
		NULL, "limit", "department_limit", "not_requeueable",
		"reclaim_in_flight", "room_wait", "requeue_budget",
	};

	return h > 0 && h < GQ_HOLD_NREASONS ? names[h] : NULL;
}
