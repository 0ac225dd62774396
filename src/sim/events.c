/*
 * events.c - a binary heap of events (see events.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/events.h"

static bool _before(const gq_ev_t *a, const gq_ev_t *b)
{
	if (a->at != b->at)
		return a->at < b->at;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->seq < b->seq;
}

static void _swap(gq_ev_t *a, gq_ev_t *b)
{
	gq_ev_t t = *a;

	*a = *b;
	*b = t;
}

int gq_events_push(gq_events_t *q, int64_t at, gq_ev_kind_t kind,
		   uint32_t job, uint32_t run)
{
	size_t i;

	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 1024;
		gq_ev_t *e = realloc(q->e, cap * sizeof(*e));

		if (!e)
			return -1;
		q->e = e;
		q->cap = cap;
	}
	i = q->n++;
	q->e[i] = (gq_ev_t){ .at = at, .kind = kind, .seq = q->seq++,
			     .job = job, .run = run };
	while (i && _before(&q->e[i], &q->e[(i - 1) / 2])) {
		_swap(&q->e[i], &q->e[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	return 0;
}

bool gq_events_pop(gq_events_t *q, gq_ev_t *out)
{
	size_t i = 0;

	if (!q->n)
		return false;
	*out = q->e[0];
	q->e[0] = q->e[--q->n];
	while (true) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < q->n && _before(&q->e[l], &q->e[m]))
			m = l;
		if (r < q->n && _before(&q->e[r], &q->e[m]))
			m = r;
		if (m == i)
			break;
		_swap(&q->e[i], &q->e[m]);
		i = m;
	}
	return true;
}

int64_t gq_events_next(const gq_events_t *q)
{
	return q->n ? q->e[0].at : INT64_MAX;
}

void gq_events_free(gq_events_t *q)
{
	free(q->e);
	memset(q, 0, sizeof(*q));
}
