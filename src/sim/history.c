/*
 * history.c - a job history to replay (see history.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/history.h"

gq_sim_job_t *gq_sim_history_add(gq_sim_history_t *h)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 1024;
		gq_sim_job_t *j = realloc(h->job, cap * sizeof(*j));

		if (!j)
			return NULL;
		h->job = j;
		h->cap = cap;
	}
	memset(&h->job[h->n], 0, sizeof(h->job[0]));
	return &h->job[h->n++];
}

const char *gq_sim_intern(gq_sim_history_t *h, const char *s, size_t len)
{
	size_t i;
	char *c;

	for (i = 0; i < h->nnames; i++)
		if (strlen(h->name[i]) == len && !memcmp(h->name[i], s, len))
			return h->name[i];
	if (h->nnames == h->names_cap) {
		size_t cap = h->names_cap ? h->names_cap * 2 : 64;
		char **n = realloc(h->name, cap * sizeof(*n));

		if (!n)
			return NULL;
		h->name = n;
		h->names_cap = cap;
	}
	if (!(c = strndup(s, len)))
		return NULL;
	h->name[h->nnames++] = c;
	return c;
}

/* submit time, then the order the input listed them in (src order kept
 * in id before sorting) */
static int _by_submit(const void *a, const void *b)
{
	const gq_sim_job_t *x = a, *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void gq_sim_history_sort(gq_sim_history_t *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		h->job[i].id = (uint32_t)i;	/* the input's order */
	qsort(h->job, h->n, sizeof(*h->job), _by_submit);
	for (i = 0; i < h->n; i++)
		h->job[i].id = (uint32_t)i + 1;
}

void gq_sim_history_free(gq_sim_history_t *h)
{
	size_t i;

	for (i = 0; i < h->nnames; i++)
		free(h->name[i]);
	free(h->name);
	free(h->job);
	memset(h, 0, sizeof(*h));
}
