/*
 * coming_free.c - GPUs coming free (see coming_free.h).
 */
#include "core/coming_free.h"

/* the `k` largest idle counts, summed: the first k places of a selection
 * sort (k is a job's node count, small); reorders n.  O(count x k). */
static uint64_t _largest_sum(gq_node_idle_t *n, int count, uint32_t k)
{
	uint64_t sum = 0;
	int i, j, top;

	for (i = 0; i < count && (uint32_t)i < k; i++) {
		gq_node_idle_t t;

		for (top = i, j = i + 1; j < count; j++)
			if (n[j].idle > n[top].idle)
				top = j;
		t = n[i];
		n[i] = n[top];
		n[top] = t;
		sum += n[i].idle;
	}
	return sum;
}

bool gq_fits_idle(uint32_t gpus, uint32_t gpus_per_node, uint32_t nodes,
		  gq_node_idle_t *n, int count)
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
