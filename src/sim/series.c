/*
 * series.c - levels over time in bounded memory (see series.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/series.h"

int gq_sim_series_init(gq_sim_series_t *s, int points, int nseries)
{
	memset(s, 0, sizeof(*s));
	if (points <= 0 || nseries <= 0)
		return 0;
	s->cap = points + (points & 1);
	s->nseries = nseries;
	s->step = 1;
	s->secs = calloc((size_t)s->cap * nseries, sizeof(*s->secs));
	if (!s->secs) {
		s->cap = 0;
		return -1;
	}
	return 0;
}

/* Two steps into one, the step doubled.  O(cap x nseries). */
static void _halve(gq_sim_series_t *s)
{
	int k, x, n = s->nseries;

	for (k = 0; k < s->cap / 2; k++)
		for (x = 0; x < n; x++)
			s->secs[k * n + x] = s->secs[2 * k * n + x] +
					     s->secs[(2 * k + 1) * n + x];
	memset(s->secs + (size_t)(s->cap / 2) * n, 0,
	       (size_t)(s->cap / 2) * n * sizeof(*s->secs));
	s->step *= 2;
}

void gq_sim_series_reach(gq_sim_series_t *s, int64_t from, int64_t to)
{
	if (!s->cap)
		return;
	if (!s->started) {
		s->started = true;
		s->t0 = s->end = from;
	}
	while (to - s->t0 > (int64_t)s->cap * s->step)
		_halve(s);
	if (to > s->end)
		s->end = to;
}

void gq_sim_series_add(gq_sim_series_t *s, int k, double level,
		       int64_t from, int64_t to)
{
	if (!s->cap || level == 0)
		return;
	while (from < to) {
		int64_t i = (from - s->t0) / s->step,
			stop = s->t0 + (i + 1) * s->step;

		if (stop > to)
			stop = to;
		s->secs[i * s->nseries + k] += level * (double)(stop - from);
		from = stop;
	}
}

int gq_sim_series_len(const gq_sim_series_t *s)
{
	return s->cap ? (int)((s->end - s->t0 + s->step - 1) / s->step) : 0;
}

int64_t gq_sim_series_at(const gq_sim_series_t *s, int i)
{
	return s->t0 + (int64_t)i * s->step;
}

double gq_sim_series_mean(const gq_sim_series_t *s, int i, int k)
{
	int64_t at = gq_sim_series_at(s, i),
		len = s->end - at < s->step ? s->end - at : s->step;

	return len > 0 ? s->secs[(size_t)i * s->nseries + k] / (double)len : 0;
}

void gq_sim_series_free(gq_sim_series_t *s)
{
	free(s->secs);
	memset(s, 0, sizeof(*s));
}
