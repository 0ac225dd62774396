/*
 * fairshare.c - fair share f_p: deserved quota, then weighted surplus,
 * across departments and then inside each (see fairshare.h and
 * docs/MODEL.md "Fair share").
 */
#include <math.h>
#include <stdlib.h>

#include "core/fairshare.h"

/* A weight that counts: > 0 and finite (else the claim takes none). */
static bool _counts(double weight)
{
	return weight > 0 && isfinite(weight);
}

/* A claim takes no more once it has no weight or reached its cap. */
static bool _filled(double weight, double cap, double out)
{
	return !_counts(weight) || out >= cap - GQ_EPS;
}

/* The largest weight that counts (1 when none): weights are divided by it,
 * so each is at most 1 and their sum at most n, whatever their scale. */
static double _scale(int n, const double *weight)
{
	double m = 0;
	int i;

	for (i = 0; i < n; i++)
		if (_counts(weight[i]) && weight[i] > m)
			m = weight[i];
	return m > 0 ? m : 1;
}

/*
 * Each round raises every open claim by step * weight, where step is the
 * smallest (cap - out) / weight: at least one claim fills, so at most n
 * rounds of O(n): O(n^2).  Weights in units of the largest: a split
 * depends on their ratios only, and no sum of them overflows.
 */
double gq_waterfill(double total, int n, const double *weight,
		    const double *cap, double *out)
{
	double m = _scale(n, weight);

	while (total > GQ_EPS) {
		double sumw = 0, step = INFINITY;
		int i, capped = -1;

		for (i = 0; i < n; i++) {
			double room;

			if (_filled(weight[i], cap[i], out[i]))
				continue;
			sumw += weight[i] / m;
			room = (cap[i] - out[i]) / (weight[i] / m);
			if (room < step) {
				step = room;
				capped = i;
			}
		}
		if (sumw <= 0)
			break;
		if (capped < 0 || total / sumw <= step) {
			/* everyone takes a proportional part, nobody caps */
			for (i = 0; i < n; i++)
				if (!_filled(weight[i], cap[i], out[i]))
					out[i] += total * (weight[i] / m / sumw);
			total = 0;
			break;
		}
		/* raise everyone until the first claim reaches its cap */
		for (i = 0; i < n; i++)
			if (!_filled(weight[i], cap[i], out[i]))
				out[i] += step * (weight[i] / m);
		total -= step * sumw;
		out[capped] = cap[capped];
	}
	return total > GQ_EPS ? total : 0;
}

int gq_fair_share(gq_claim_t *c, int n, double capacity)
{
	double *w = calloc(n > 0 ? n : 1, sizeof(double));
	double *cap = calloc(n > 0 ? n : 1, sizeof(double));
	double *out = malloc(sizeof(double) * (n > 0 ? n : 1));
	double sum = 0, surplus;
	int i;

	if (!w || !cap || !out) {
		free(w);
		free(cap);
		free(out);
		for (i = 0; i < n; i++)
			c[i].deserved = c[i].share = 0;
		return -1;
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
	return 0;
}

/* A project's claim; `floor`: with its weight as configured, untilted */
static gq_claim_t _project_claim(const gq_project_t *p, bool floor)
{
	gq_claim_t c = { .quota = p->quota,
			 .weight = floor ? p->weight : p->weight * p->tilt,
			 .limit = p->limit,
			 .demand = p->alloc + (double)p->pending };

	return c;
}

/*
 * One level: the claims of department `dept`'s projects (-1: the projects
 * outside any department, after `first` claims already in c) share
 * `capacity`.  slot[i] remembers where project i's claim is.  `floor`:
 * untilted weights, into share_floor; else deserved and share.
 */
static int _share_level(gq_registry_t *r, gq_claim_t *c, int *slot,
			int first, int dept, double capacity, bool floor)
{
	int i, m = first;

	for (i = 0; i < r->nproj; i++) {
		if (r->proj[i].department != dept)
			continue;
		slot[i] = m;
		c[m++] = _project_claim(&r->proj[i], floor);
	}
	if (gq_fair_share(c, m, capacity))
		return -1;
	for (i = 0; i < r->nproj; i++) {
		gq_project_t *p = &r->proj[i];

		if (p->department != dept)
			continue;
		if (floor) {
			p->share_floor = c[slot[i]].share;
			continue;
		}
		p->deserved = c[slot[i]].deserved;
		p->share = c[slot[i]].share;
	}
	return 0;
}

/* The tree once: departments and the projects outside them, then inside
 * each department its share; `floor` as in _share_level. */
static int _share_tree(gq_registry_t *r, gq_claim_t *c, int *slot,
		       double capacity, bool floor)
{
	int d;

	for (d = 0; d < r->ndept; d++) {
		c[d].quota = r->dept[d].quota;
		c[d].weight = r->dept[d].weight;
		c[d].limit = r->dept[d].limit;
		c[d].demand = r->dept[d].demand;
	}
	if (_share_level(r, c, slot, r->ndept, -1, capacity, floor))
		return -1;
	for (d = 0; d < r->ndept; d++)
		*(floor ? &r->dept[d].share_floor : &r->dept[d].share) =
			c[d].share;
	for (d = 0; d < r->ndept; d++)
		if (_share_level(r, c, slot, 0, d,
				 floor ? r->dept[d].share_floor :
					 r->dept[d].share, floor))
			return -1;
	return 0;
}

/* Does usage tilt any project's weight? */
static bool _tilted(const gq_registry_t *r)
{
	int i;

	for (i = 0; i < r->nproj; i++)
		if (r->proj[i].tilt != 1)
			return true;
	return false;
}

/*
 * f_p with usage's tilt (bands, the order of idle GPUs), then without it
 * (share_floor: floors against fair-share reclaim, which usage never
 * moves); once when nothing is tilted.
 */
int gq_fair_share_tree(gq_registry_t *r, double capacity)
{
	gq_claim_t *c = calloc(r->nproj + r->ndept + 1, sizeof(*c));
	int *slot = calloc(r->nproj + 1, sizeof(*slot));
	int d, i, rc = -1;

	if (!c || !slot)
		goto out;
	for (d = 0; d < r->ndept; d++)
		r->dept[d].demand = 0;
	for (i = 0; i < r->nproj; i++) {
		const gq_project_t *p = &r->proj[i];

		if (p->department >= 0)
			r->dept[p->department].demand +=
				p->alloc + (double)p->pending;
	}
	if (_share_tree(r, c, slot, capacity, false))
		goto out;
	if (_tilted(r)) {
		if (_share_tree(r, c, slot, capacity, true))
			goto out;
	} else {
		for (i = 0; i < r->nproj; i++)
			r->proj[i].share_floor = r->proj[i].share;
		for (d = 0; d < r->ndept; d++)
			r->dept[d].share_floor = r->dept[d].share;
	}
	rc = 0;
out:
	free(c);
	free(slot);
	return rc;
}
