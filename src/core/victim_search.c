/*
 * victim_search.c - whether Slurm needs to look for victims at all (see
 * victim_search.h and docs/MODEL.md "When Slurm looks for victims").
 *
 * A job wants victims when it may reclaim and either
 *   fits(job, idle GPUs of the open nodes it may use) is false, or
 *   now - submit_time >= GQ_SEARCH_AFTER.
 * The view's idle GPUs are those the pass read; Slurm may start jobs on
 * them before the next pass.  Then the next pass sees them taken.
 */
#include <stdlib.h>

#include "core/coming_free.h"
#include "core/victim_search.h"
#include "core/pass.h"

/* The open nodes `group` may use that have idle GPUs, into n (room for
 * nodes->nnodes); returns how many.  O(nodes). */
static int _idle_nodes(const gq_nodes_t *nodes, uint32_t group,
		       gq_node_idle_t *n)
{
	int i, m = 0;

	for (i = 0; i < nodes->nnodes; i++) {
		if (!nodes->node_free[i] || nodes->node_closed[i] ||
		    !gq_nodes_allowed(nodes, group, i))
			continue;
		n[m].node = i;
		n[m++].idle = nodes->node_free[i];
	}
	return m;
}

/* Does the job fit the idle GPUs of its open nodes, `late` of them taken
 * already by jobs added since the pass?  O(nodes). */
static bool _fits_idle(const gq_nodes_t *nodes, const gq_job_t *job,
		       uint64_t late, gq_node_idle_t *scratch)
{
	int i, m = _idle_nodes(nodes, job->in.node_group, scratch);
	uint64_t idle = 0;

	for (i = 0; i < m; i++)
		idle += scratch[i].idle;
	return late + job->in.gpus <= idle &&
	       gq_fits_idle(job->in.gpus, job->in.gpus_per_node,
			    job->in.nodes, scratch, m);
}

/* A job's shape, as far as fitting the idle GPUs goes. */
typedef struct {
	uint32_t gpus, gpus_per_node, nodes, node_group;
} gq_shape_t;

static bool _same_shape(const gq_shape_t *s, const gq_job_t *job)
{
	return s->gpus == job->in.gpus &&
	       s->gpus_per_node == job->in.gpus_per_node &&
	       s->nodes == job->in.nodes && s->node_group == job->in.node_group;
}

static void _note_shape(gq_shape_t *s, const gq_job_t *job)
{
	s->gpus = job->in.gpus;
	s->gpus_per_node = job->in.gpus_per_node;
	s->nodes = job->in.nodes;
	s->node_group = job->in.node_group;
}

/* Nodes a submit checks without an allocation (8 KB of stack). */
#define GQ_SEARCH_STACK_NODES 1024

bool gq_view_job_unfit(const gq_view_t *v, uint32_t id, gq_job_pick_t *pick,
		       bool aged, uint64_t *late)
{
	const gq_pass_t *pass = gq_view_pass(v);
	const gq_job_t *job = gq_view_job(v, id);
	gq_node_idle_t stack[GQ_SEARCH_STACK_NODES], *scratch = stack;
	bool fits;

	if (!job || !pick(job))
		return false;
	if (pass->nodes.nnodes <= 0 || (aged &&
	    pass->now - job->in.submit_time >= GQ_SEARCH_AFTER))
		return true;
	if (pass->nodes.nnodes > GQ_SEARCH_STACK_NODES &&
	    !(scratch = malloc(sizeof(*scratch) * pass->nodes.nnodes)))
		return true;	/* cannot tell: say so */
	fits = _fits_idle(&pass->nodes, job, *late, scratch);
	if (scratch != stack)
		free(scratch);
	*late += job->in.gpus;
	return !fits;
}

bool gq_view_job_wants_victims(const gq_view_t *v, uint32_t id,
			       uint64_t *late)
{
	return gq_view_job_unfit(v, id, gq_job_may_reclaim, true, late);
}

bool gq_view_any_unfit(const gq_view_t *v, gq_job_pick_t *pick, bool aged)
{
	const gq_pass_t *pass = gq_view_pass(v);
	const gq_nodes_t *nodes = &pass->nodes;
	gq_node_idle_t *scratch = NULL;
	gq_shape_t last = { 0 };
	bool known = false, unfit = false;
	int i;

	for (i = 0; i < gq_view_njobs(v) && !unfit; i++) {
		const gq_job_t *job = gq_view_job_at(v, i);

		if (!pick(job))
			continue;
		if (nodes->nnodes <= 0 || (aged && pass->now -
				job->in.submit_time >= GQ_SEARCH_AFTER))
			unfit = true;
		else if (known && _same_shape(&last, job))
			continue;	/* it fits, as the one before */
		else if (!scratch &&
			 !(scratch = malloc(sizeof(*scratch) * nodes->nnodes)))
			unfit = true;	/* cannot tell: say so */
		else if (!_fits_idle(nodes, job, 0, scratch))
			unfit = true;
		else {
			_note_shape(&last, job);
			known = true;
		}
	}
	free(scratch);
	return unfit;
}

bool gq_view_wants_victims(const gq_view_t *v)
{
	return gq_view_any_unfit(v, gq_job_may_reclaim, true);
}

bool gq_pools_wants_victims(const gq_pools_t *p)
{
	return gq_pools_any(p, gq_view_wants_victims);
}

bool gq_pools_job_wants_victims(const gq_pools_t *p, uint32_t id,
				uint64_t *late)
{
	int k = p ? gq_pools_find(p, id) : -1;

	return k >= 0 && gq_view_job_wants_victims(p->view[k], id, late);
}
