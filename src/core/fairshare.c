/*
 * fairshare.c - fair share f_p: deserved quota, then weighted surplus.
 * See fairshare.h and SEMANTICS.md "Fair share".
 */
#include <math.h>
#include <stdlib.h>

#include "core/fairshare.h"

double gq_waterfill(double total, int n, const double *weight,
		    const double *cap, double *out)
{
	char *done = calloc(n > 0 ? n : 1, 1);

	if (!done)
		return total;
	while (total > GQ_EPS) {
		double sumw = 0, step = INFINITY;
		int i, capped = -1;

		for (i = 0; i < n; i++) {
			double room;

			if (done[i] || weight[i] <= 0 || out[i] >= cap[i] - GQ_EPS) {
				done[i] = 1;
				continue;
			}
			sumw += weight[i];
			room = (cap[i] - out[i]) / weight[i];
			if (room < step) {
				step = room;
				capped = i;
			}
		}
		if (sumw <= 0)
			break;
		if (total / sumw <= step) {
			/* everyone takes a proportional part, nobody caps */
			for (i = 0; i < n; i++)
				if (!done[i])
					out[i] += total * weight[i] / sumw;
			total = 0;
			break;
		}
		/* raise everyone until the first claim reaches its cap */
		for (i = 0; i < n; i++)
			if (!done[i])
				out[i] += step * weight[i];
		total -= step * sumw;
		out[capped] = cap[capped];
		done[capped] = 1;
	}
	free(done);
	return total > GQ_EPS ? total : 0;
}

void gq_fair_share(gq_claim_t *c, int n, double capacity)
{
	double *w = malloc(sizeof(double) * (n > 0 ? n : 1));
	double *cap = malloc(sizeof(double) * (n > 0 ? n : 1));
	double *out = malloc(sizeof(double) * (n > 0 ? n : 1));
	double sum = 0, surplus;
	int i;

	if (!w || !cap || !out) {
		free(w);
		free(cap);
		free(out);
		for (i = 0; i < n; i++)
			c[i].deserved = c[i].share = 0;
		return;
	}
	if (capacity < 0)
		capacity = 0;

	/* 1. deserved: min(q, D, L) (L >= q, so min(q, D)) */
	for (i = 0; i < n; i++) {
		cap[i] = fmin(c[i].quota, fmin(c[i].demand, c[i].limit));
		sum += cap[i];
	}
	if (sum <= capacity + GQ_EPS) {
		for (i = 0; i < n; i++)
			out[i] = cap[i];
		surplus = capacity - sum;
	} else {
		/* quotas oversubscribed: C in proportion to quota, capped */
		for (i = 0; i < n; i++) {
			w[i] = c[i].quota;
			out[i] = 0;
		}
		surplus = gq_waterfill(capacity, n, w, cap, out);
	}
	for (i = 0; i < n; i++)
		c[i].deserved = out[i];

	/* 2. surplus by over-quota weight, capped at min(D, L) */
	for (i = 0; i < n; i++) {
		w[i] = c[i].weight;
		cap[i] = fmin(c[i].demand, c[i].limit);
	}
	if (surplus > GQ_EPS)
		gq_waterfill(surplus, n, w, cap, out);
	for (i = 0; i < n; i++)
		c[i].share = out[i];

	free(w);
	free(cap);
	free(out);
}
