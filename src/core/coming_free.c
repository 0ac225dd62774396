/*
 * coming_free.c - GPUs coming free (see coming_free.h).
 */
#include "core/coming_free.h"

/* the `k` largest idle counts, summed (k small: a job's node count) */
static uint64_t _largest_sum(const gq_node_idle_t *n, int count, uint32_t k)
{
	uint64_t sum = 0;
	uint32_t taken = 0, last = UINT32_MAX;
	int i, ties = 0;

	/* repeated max below `last`: O(count x distinct values taken) */
	while (taken < k) {
		uint32_t best = 0;
		bool found = false;

		for (i = 0; i < count; i++)
			if (n[i].idle < last && (!found || n[i].idle > best)) {
				best = n[i].idle;
				found = true;
			}
		if (!found)
			break;
		for (ties = 0, i = 0; i < count; i++)
			ties += n[i].idle == best;
		for (; ties > 0 && taken < k; ties--, taken++)
			sum += best;
		last = best;
	}
	return sum;
}

bool gq_fits_idle(uint32_t gpus, uint32_t gpus_per_node, uint32_t nodes,
		  const gq_node_idle_t *n, int count)
{
	uint32_t want = nodes ? nodes : 1, have = 0;
	int i;

	if (!gpus && !gpus_per_node)
		return false;	/* no GPUs: nothing to wait for */
	if (gpus_per_node) {
		for (i = 0; i < count && have < want; i++)
			have += n[i].idle >= gpus_per_node;
		return have >= want;
	}
	if ((uint32_t)count < want)
		return false;
	return _largest_sum(n, count, want) >= gpus;
}
