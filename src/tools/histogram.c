/*
 * histogram.c - Prometheus histogram bucketing (see histogram.h).
 */
#include <math.h>

#include "tools/histogram.h"

const double gq_hist_pass_bounds[] = {
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
	0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
};
const int gq_hist_pass_nbounds =
	sizeof(gq_hist_pass_bounds) / sizeof(gq_hist_pass_bounds[0]);

int gq_hist_init(gq_hist_t *h, const double *le, int n)
{
	int i;

	if (n < 0 || n > GQ_HIST_MAX)
		return -1;
	for (i = 0; i < n; i++)
		if (!isfinite(le[i]) || (i && le[i] <= le[i - 1]))
			return -1;
	*h = (gq_hist_t){ .n = n };
	for (i = 0; i < n; i++)
		h->le[i] = le[i];
	return 0;
}

void gq_hist_observe(gq_hist_t *h, double v)
{
	int lo = 0, hi = h->n;

	/* first bound >= v: binary search over at most GQ_HIST_MAX */
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (v <= h->le[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo < h->n)
		h->in[lo]++;
	h->count++;
	h->sum += v;
}

uint64_t gq_hist_cumulative(const gq_hist_t *h, int i)
{
	uint64_t c = 0;
	int k;

	if (i >= h->n)
		return h->count;
	for (k = 0; k <= i; k++)
		c += h->in[k];
	return c;
}
