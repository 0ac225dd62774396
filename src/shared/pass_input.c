/*
 * pass_input.c - a pass's input into the pools' views (see pass_input.h).
 */
#include <stdlib.h>
#include <string.h>

#include "shared/pass_input.h"

#include "core/constraint.h"
#include "core/pass_soon.h"
#include "core/victim_search.h"
#include "state/state.h"
#include "shared/job_facts.h"

int gq_pass_pool(const gq_pools_t *p, const char *partitions, bool pending)
{
	return gq_pool_of_job(p->config, p->n, partitions, !pending);
}

int gq_pass_shadows(gq_pools_t *p, int home, const char *account,
		    const char *partitions, const gq_job_in_t *in, bool late)
{
	gq_job_in_t shadow;
	int k;

	if (in->state != GQ_JOB_PENDING && !in->begins_later)
		return 0;
	for (k = 0; k < p->n; k++) {
		if (k == home || !partitions ||
		    !gq_pool_has(p->config[k], partitions))
			continue;
		shadow = *in;
		gq_pools_shadow(&shadow);
		if (!(late ? gq_view_add_late : gq_view_add_job)(p->view[k],
								 account,
								 &shadow))
			return -1;
	}
	return 0;
}

/* Is the node in the pool's partitions (whatever its state)?  A pool
 * that names none has every node. */
static bool _node_in_pool(const gq_config_t *cfg, const gq_pass_in_t *in,
			  const gq_pass_node_t *n)
{
	uint32_t i;

	if (!n->present)
		return false;
	if (!cfg->settings.npartitions)
		return true;
	for (i = 0; i < n->nparts; i++)
		if (gq_pool_has(cfg, in->part[in->node_part[n->part + i]]))
			return true;
	return false;
}

double gq_pass_capacity(const gq_pass_in_t *in, const gq_config_t *cfg)
{
	double c = 0;
	size_t i;

	for (i = 0; i < in->nnodes; i++)
		if (_node_in_pool(cfg, in, &in->node[i]))
			c += gq_node_capacity(in->node[i].state,
					      in->node[i].gpus,
					      in->node[i].alloc);
	return c;
}

int gq_pass_part_index(const gq_pass_in_t *in, const char *name, size_t len)
{
	int i;

	for (i = 0; name && i < in->nparts; i++)
		if (in->part[i] && strlen(in->part[i]) == len &&
		    !strncmp(in->part[i], name, len))
			return i;
	return -1;
}

/* A partition's node group (its number from 1), by name; 0: none. */
static int _group_of(const gq_pass_in_t *in, const char *name, size_t len)
{
	return gq_pass_part_index(in, name, len) + 1;
}

/* Is the node in node group `group` (a partition's)? */
static bool _node_in_group(const gq_pass_in_t *in, const gq_pass_node_t *n,
			   int group)
{
	uint32_t i;

	for (i = 0; group && i < n->nparts; i++)
		if (in->node_part[n->part + i] + 1 == group)
			return true;
	return false;
}

/* A job's partition group: 0 when it lists several (any of the pool's) */
static int _job_part(const gq_pass_in_t *in, const gq_pass_job_t *j)
{
	if (!j->partitions || strchr(j->partitions, ','))
		return 0;
	return _group_of(in, j->partitions, strlen(j->partitions));
}

static bool _narrow_of(const gq_pass_in_t *in, const gq_pass_job_t *j,
		       gq_narrow_t *w)
{
	return gq_narrow_of(_job_part(in, j), j->features, j->tres_per_node,
			    j->tres_per_job, w);
}

/* The distinct narrowings of the pending jobs, in the jobs' order.
 * O(J x W) lookups. */
static void _note_narrows(const gq_pass_in_t *in, gq_narrows_t *narrows)
{
	size_t i;

	for (i = 0; i < in->njobs; i++) {
		gq_narrow_t w;

		if (in->job[i].pending && _narrow_of(in, &in->job[i], &w))
			gq_narrows_add(narrows, &w);
	}
}

/* A job's nodes: its narrowing's group, else its partition's (0: any of
 * the pool's).  A running job pinned to nodes, or whose narrowing no
 * pending job has: GQ_NODES_UNKNOWN (moves need its nodes). */
static uint32_t _node_group(const gq_pass_in_t *in, const gq_pass_job_t *j,
			    const gq_narrows_t *narrows)
{
	gq_narrow_t w;
	int g;

	bool running = j->in.state == GQ_JOB_RUNNING;

	if (running && j->pinned)
		return GQ_NODES_UNKNOWN;
	if (!_narrow_of(in, j, &w))
		return _job_part(in, j);
	if ((g = gq_narrows_find(narrows, &w)) >= 0)
		return in->nparts + 1 + g;
	return running ? GQ_NODES_UNKNOWN : (uint32_t)_job_part(in, j);
}

/* A node's groups: each of its partitions, each narrowing it allows. */
static void _node_groups(gq_view_t *view, const gq_pass_in_t *in, int i,
			 const gq_narrows_t *narrows)
{
	const gq_pass_node_t *n = &in->node[i];
	uint32_t p;
	int k;

	for (p = 0; p < n->nparts; p++)
		gq_view_node_group(view, i, in->node_part[n->part + p] + 1);
	for (k = 0; k < narrows->n; k++) {
		const gq_narrow_t *w = &narrows->w[k];

		if (gq_narrow_allows(w, _node_in_group(in, n, w->part),
				     n->features, n->gres))
			gq_view_node_group(view, i, in->nparts + 1 + k);
	}
}

/*
 * A pool's nodes: every node's groups (a job of the pool may list
 * another pool's partition too) and domain, then the pool's own nodes' idle GPUs
 * where they take work, else closed (no room there).  O(N x node
 * partitions x (W + pool partitions)).
 */
static int _read_nodes(gq_view_t *view, const gq_config_t *cfg,
		       const gq_pass_in_t *in, const gq_narrows_t *narrows)
{
	size_t i;

	if (gq_view_set_nodes(view, in->nnodes) ||
	    gq_view_set_groups(view, in->nparts + narrows->n))
		return -1;
	for (i = 0; i < in->nnodes; i++) {
		const gq_pass_node_t *n = &in->node[i];

		if (!n->present)
			continue;
		_node_groups(view, in, i, narrows);
		if (n->domain > 0)
			gq_view_node_domain(view, i, n->domain - 1);
		if (!_node_in_pool(cfg, in, n))
			continue;
		if (gq_node_takes_work(n->state))
			gq_view_node_free(view, i, n->gpus > n->alloc ?
					  (uint32_t)(n->gpus - n->alloc) : 0);
		else
			gq_view_close_node(view, i);
	}
	return 0;
}

/* A job into its pool: placement when running, else its node group and
 * its shadows. */
static int _add_job(gq_pools_t *p, int k, const gq_pass_in_t *in,
		    gq_pass_job_t *j, const gq_narrows_t *narrows)
{
	uint32_t i;

	j->in.node_group = _node_group(in, j, narrows);
	if (!gq_view_add_job(p->view[k], j->account, &j->in))
		return -1;
	if (j->in.state != GQ_JOB_RUNNING)
		return gq_pass_shadows(p, k, j->account, j->partitions,
				       &j->in, false);
	for (i = 0; i < j->nplaces && j->place + i < in->nplaces; i++) {
		const gq_pass_place_t *pl = &in->place[j->place + i];

		if (pl->gpus && gq_view_place(p->view[k], j->in.id,
					      pl->node, pl->gpus))
			return -1;
	}
	return 0;
}

int gq_pass_fill(gq_pools_t *p, gq_pass_in_t *in, int64_t now)
{
	gq_narrows_t *narrows = calloc(1, sizeof(*narrows));
	size_t i;
	int k, rc = -1;

	if (!narrows)
		goto out;
	_note_narrows(in, narrows);
	for (k = 0; k < p->n; k++) {
		gq_view_begin(p->view[k], gq_pass_capacity(in, p->config[k]),
			      now);
		if (_read_nodes(p->view[k], p->config[k], in, narrows))
			goto out;
		gq_view_min_runtime_at_least(p->view[k], in->min_runtime);
	}
	for (i = 0; i < in->njobs; i++)
		if (in->job[i].pool >= 0 && in->job[i].pool < p->n &&
		    _add_job(p, in->job[i].pool, in, &in->job[i], narrows))
			goto out;
	rc = 0;
out:
	free(narrows);
	return rc;
}

int gq_pass_victim(const gq_job_facts_t *f, const char *system_comment,
		   int64_t preempt_time, int64_t now, bool rebuild,
		   const int *nodes, int nnodes,
		   uint32_t *preemptor, int64_t *since, int *grace)
{
	bool running = (f->job_state & JOB_STATE_BASE) == JOB_RUNNING;
	uint32_t owner;
	int rc = 0;

	*grace = 0;
	if (rebuild &&
	    (gq_facts_reclaim_of(f, system_comment, preempt_time, f->end_time,
				 preemptor, since, grace) ||
	     gq_facts_requeued_for(f, system_comment, now, preemptor, since)))
		rc = gq_state_rebuild_reclaim(*preemptor, *since, *grace) ?
		     1 : -1;
	if (rc > 0)	/* a requeued victim's nodes are gone: any node */
		gq_state_rebuild_nodes(*preemptor, nodes,
				       running ? nnodes : -1);
	if (((preempt_time && running) || (f->job_state & JOB_COMPLETING)) &&
	    (owner = gq_facts_reclaimed_for(system_comment)))
		gq_state_victim_leaving(owner);
	if (running && f->array_job_id && f->array_job_id != f->id)
		gq_state_array_task_running(f->array_job_id, f->start_time);
	return rc;
}

bool gq_pass_landing(const gq_job_facts_t *f, const char *system_comment,
		     int64_t preempt_time, int64_t now, int node, int kill_wait,
		     int delay)
{
	uint32_t preemptor;
	int64_t since;
	int grace;

	if (node < 0)
		return false;
	if (gq_facts_reclaim_of(f, system_comment, preempt_time, f->end_time,
				&preemptor, &since, &grace))
		return gq_state_rebuild_landing(f->id, node, since,
						grace + kill_wait, delay, 0);
	if (gq_facts_reclaimed_for(system_comment) &&
	    gq_facts_requeued_within(f, now, GQ_RECLAIM_WAIT + delay))
		return gq_state_rebuild_landing(f->id, node, f->submit_time, 0,
						delay, f->submit_time);
	return false;
}

int gq_pass_compute(gq_pools_t *p, const gq_usage_t *usage,
		    const gq_losses_t *losses, const gq_settings_t *s,
		    int64_t now)
{
	int k, rc = 0;

	gq_usage_apply(usage, p, s->usage_weight, s->usage_half_life);
	/* a walk of the window's losses: only where a budget reads them */
	if (gq_config_has_budget(p->config[0]) &&
	    gq_losses_apply(losses, p, now - s->requeue_budget_window))
		return -1;
	for (k = 0; !rc && k < p->n; k++) {	/* each pool its own model */
		gq_view_expect_reclaim_wait(p->view[k],
			gq_state_reclaim_waiting(p, k, now));
		gq_state_expect_reclaims(p, k, now);
		gq_state_saved_before(p, k);
		rc = gq_view_compute(p->view[k]);
	}
	if (!rc)	/* work outside quotas waits for reclaims in flight */
		gq_state_wait_for_reclaims(p, now);
	/* after the holds: a held job takes no victims */
	p->wants_victims = !rc && gq_pools_wants_victims(p);
	p->soon = !rc && gq_pools_pass_soon(p);
	return rc;
}
