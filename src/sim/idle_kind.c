/*
 * idle_kind.c - why the cluster's idle GPUs are idle while jobs wait
 * (see model.h, gq_sim_idle_kind): a job that fits kept waiting by
 * gpuquota's rules, or no room on one node for a job the idle GPUs
 * would hold in all (fragmentation).  Reads the model, changes nothing.
 */
#include "sim/model.h"

/* The GPUs idle on the nodes a job of shape s may use.  O(1) for a job
 * of no partition, O(N) otherwise. */
static uint64_t _idle_for(const gq_sim_cluster_t *c, const gq_sim_shape_t *s)
{
	uint64_t idle = 0;
	int i;

	if (!s->parts)
		return c->idle_gpus;
	for (i = 0; i < c->n; i++)
		if (c->node[i].parts & s->parts)
			idle += c->free_gpus[i];
	return idle;
}

int gq_sim_idle_kind(const gq_replay_t *R)
{
	const gq_sim_cluster_t *c = R->c;
	int kind = GQ_IDLE_OTHER;
	size_t k;

	for (k = 0; k < R->npending; k++) {
		uint32_t i = R->pending[k];
		const gq_rjob_t *x = &R->job[i];

		if (x->begin > R->now || R->h->job[i].gpus > c->idle_gpus ||
		    R->h->job[i].gpus > _idle_for(c, &x->shape))
			continue;
		if (gq_sim_may_fit(c, &x->shape) &&
		    gq_sim_fit(c, c->free_gpus, c->free_cpus, &x->shape, R->fit))
			return GQ_IDLE_HELD;
		kind = GQ_IDLE_FRAGMENTED;
	}
	return kind;
}
