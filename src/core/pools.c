/*
 * pools.c - one view per pool of GPUs (see pools.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/pools.h"

gq_pools_t *gq_pools_new(const gq_config_t *cfg)
{
	gq_pools_t *p = calloc(1, sizeof(*p));
	int k, n = cfg->npools ? cfg->npools : 1;

	if (!p)
		return NULL;
	p->config = calloc(n, sizeof(*p->config));
	p->name = calloc(n, sizeof(*p->name));
	p->view = calloc(n, sizeof(*p->view));
	if (!p->config || !p->name || !p->view) {
		gq_pools_free(p);
		return NULL;
	}
	for (k = 0; k < n; k++, p->n++) {
		if ((cfg->npools &&
		     !(p->name[k] = strdup(cfg->pools[k].name))) ||
		    !(p->config[k] = gq_config_pool(cfg, k)) ||
		    !(p->view[k] = gq_view_create(p->config[k]))) {
			p->n++;	/* free what was made of it */
			gq_pools_free(p);
			return NULL;
		}
	}
	return p;
}

void gq_pools_free(gq_pools_t *p)
{
	int k;

	if (!p)
		return;
	for (k = 0; k < p->n; k++) {
		gq_view_free(p->view[k]);
		gq_config_free(p->config[k]);
		free(p->name[k]);
	}
	free(p->view);
	free(p->name);
	free(p->config);
	free(p);
}

const gq_job_t *gq_pools_job(const gq_pools_t *p, uint32_t id, int *pool)
{
	const gq_job_t *job;
	int k;

	for (k = 0; p && k < p->n; k++)
		if ((job = gq_view_job(p->view[k], id)) && !job->in.elsewhere) {
			if (pool)
				*pool = k;
			return job;
		}
	return NULL;
}

void gq_pools_shadow(gq_job_in_t *in)
{
	in->state = GQ_JOB_WAITING;
	in->begins_later = true;
	in->elsewhere = true;
}

const gq_job_t *gq_pools_held_elsewhere(const gq_pools_t *p, uint32_t id,
					int *pool)
{
	const gq_job_t *job;
	int k;

	for (k = 0; p && k < p->n; k++)
		if ((job = gq_view_job(p->view[k], id)) && job->in.elsewhere &&
		    job->hold) {
			if (pool)
				*pool = k;
			return job;
		}
	return NULL;
}

const gq_job_t *gq_pools_answer(const gq_pools_t *p, uint32_t id, int *pool)
{
	const gq_job_t *job, *shadow;
	int k;

	if (!(job = gq_pools_job(p, id, &k)))
		return NULL;
	/* one pool: there is no other */
	if (!job->hold && p->n > 1 &&
	    (shadow = gq_pools_held_elsewhere(p, id, &k)))
		job = shadow;
	if (pool)
		*pool = k;
	return job;
}

uint32_t gq_pools_tasks_now(const gq_pools_t *p, uint32_t id)
{
	const gq_job_t *job;
	uint32_t n = UINT32_MAX;
	int k;

	for (k = 0; p && k < p->n; k++) {
		if (!(job = gq_view_job(p->view[k], id)))
			continue;
		if (job->hold)
			return 0;
		if (job->tasks_now < n)
			n = job->tasks_now;
	}
	return n == UINT32_MAX ? 0 : n;
}

int gq_pools_same(const gq_pools_t *p, const gq_pools_t *of, int k)
{
	int i;

	if (!p || !of || k < 0 || k >= of->n)
		return -1;
	for (i = 0; i < p->n; i++)
		if (p->name[i] && of->name[k] ?
		    !strcmp(p->name[i], of->name[k]) :
		    !p->name[i] && !of->name[k])
			return i;
	return -1;
}

bool gq_pools_any(const gq_pools_t *p, bool (*of)(const gq_view_t *v))
{
	int k;

	for (k = 0; p && k < p->n; k++)
		if (of(p->view[k]))
			return true;
	return false;
}

int gq_pools_find(const gq_pools_t *p, uint32_t id)
{
	int k = -1;

	return gq_pools_job(p, id, &k) ? k : -1;
}

int gq_pools_reclaiming(const gq_pools_t *p, uint32_t id)
{
	int k = gq_pools_find(p, id);

	return k >= 0 && gq_view_may_reclaim(p->view[k], id) ? k : -1;
}

bool gq_pools_preemptable(const gq_pools_t *p, uint32_t preemptee,
			  uint32_t preemptor)
{
	int k = gq_pools_find(p, preemptor);

	return k >= 0 && gq_view_job(p->view[k], preemptee) &&
	       gq_view_preemptable(p->view[k], preemptee, preemptor);
}

bool gq_pools_fits_idle(const gq_pools_t *p, uint32_t id, gq_node_idle_t *n,
			int count)
{
	const gq_job_t *preemptor;
	int k, i, m = 0;

	if (!(preemptor = gq_pools_job(p, id, &k)) ||
	    preemptor->in.state != GQ_JOB_PENDING)
		return false;
	for (i = 0; i < count; i++)
		if (gq_view_node_allowed(p->view[k], preemptor->in.node_group,
					 n[i].node))
			n[m++] = n[i];
	return gq_fits_idle(preemptor->in.gpus, preemptor->in.gpus_per_node,
			    preemptor->in.nodes, n, m);
}

bool gq_pools_may_take_leaving(const gq_pools_t *p, uint32_t preemptee_id,
			       uint32_t owner, uint32_t preemptor_id)
{
	const gq_job_t *preemptee, *preemptor;
	int k = gq_pools_find(p, preemptor_id), ke = -1;

	if (k < 0 || !gq_view_may_reclaim(p->view[k], preemptor_id))
		return false;
	if (owner && owner != preemptor_id &&
	    gq_pools_reclaiming(p, owner) >= 0)
		return false;	/* coming free for its owner */
	if (!(preemptee = gq_pools_job(p, preemptee_id, &ke)))
		return true;
	preemptor = gq_view_job(p->view[k], preemptor_id);
	return ke == k && preemptee->project != preemptor->project;
}

void gq_pools_job_gone(gq_pools_t *p, uint32_t id)
{
	int k = gq_pools_find(p, id);

	if (k >= 0)
		gq_view_job_gone(p->view[k], id);
}
