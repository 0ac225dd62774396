/*
 * idle_kind.c - why the cluster's idle GPUs are idle while jobs wait
 * (see model.h, gq_sim_idle_kind): a job that fits kept waiting by
 * gpuquota's rules, or kept off them by a backfill reservation, or no
 * room on one node for a job the idle GPUs would hold in all
 * (fragmentation).  Reads the model, changes nothing.
 */
#include "sim/model.h"

/* The GPUs idle in each partition, into by[] (once a call).  O(N x
 * partitions). */
static void _idle_by_part(const gq_sim_cluster_t *c, uint64_t *by)
{
	int i, b;

	for (b = 0; b < c->nparts; b++)
		by[b] = 0;
	for (i = 0; i < c->n; i++)
		for (b = 0; b < c->nparts; b++)
			if (c->node[i].parts & (1ULL << b))
				by[b] += c->free_gpus[i];
}

/* The GPUs idle on the nodes a job of shape s may use: a job names one
 * partition at most (cluster.h's mask, one bit or GQ_SIM_NO_PART). */
static uint64_t _idle_for(const gq_sim_cluster_t *c, const gq_sim_shape_t *s,
			  uint64_t *by, bool *known)
{
	int b;

	if (!s->parts)
		return c->idle_gpus;
	if (s->parts == GQ_SIM_NO_PART)
		return 0;
	if (!*known) {
		_idle_by_part(c, by);
		*known = true;
	}
	b = __builtin_ctzll(s->parts);
	return b < c->nparts ? by[b] : 0;
}

int gq_sim_idle_kind(const gq_replay_t *R)
{
	const gq_sim_cluster_t *c = R->c;
	uint64_t by[GQ_SIM_PARTS_MAX];
	bool known = false;
	int kind = GQ_IDLE_OTHER;
	size_t k;

	for (k = 0; k < R->npending; k++) {
		uint32_t i = R->pending[k];
		const gq_rjob_t *x = &R->job[i];

		if (x->begin > R->now || R->h->job[i].gpus > c->idle_gpus ||
		    R->h->job[i].gpus > _idle_for(c, &x->shape, by, &known))
			continue;
		if (gq_sim_may_fit(c, &x->shape) &&
		    gq_sim_fit(c, c->free_gpus, c->free_cpus, &x->shape, R->fit)) {
			if (x->held)
				return GQ_IDLE_HELD;
			kind = GQ_IDLE_RESERVED;
		} else if (kind == GQ_IDLE_OTHER) {
			kind = GQ_IDLE_FRAGMENTED;
		}
	}
	return kind;
}
