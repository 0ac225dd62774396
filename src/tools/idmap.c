/*
 * idmap.c - job id -> index (see idmap.h): growing, renumbering,
 * clearing; the lookups are inline in idmap.h.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/idmap.h"

#define GQ_IDMAP_MIN_CAP 16

void gq_idmap_init(gq_idmap_t *m)
{
	memset(m, 0, sizeof(*m));
}

int gq_idmap_grow(gq_idmap_t *m)
{
	gq_idmap_t n = { .cap = m->cap ? m->cap * 2 : GQ_IDMAP_MIN_CAP };
	uint32_t i;

	if (!(n.slots = malloc(sizeof(*n.slots) * n.cap)))
		return -1;
	memset(n.slots, 0xff, sizeof(*n.slots) * n.cap);	/* idx -1 */
	for (i = 0; i < m->cap; i++) {
		const gq_idslot_t *s = &m->slots[i];

		if (s->idx >= 0)
			n.slots[gq_idmap_slot(&n, s->id)] = *s;
	}
	n.count = m->count;
	free(m->slots);
	*m = n;
	return 0;
}

void gq_idmap_renumber(gq_idmap_t *m, const int *to)
{
	uint32_t i;

	for (i = 0; i < m->cap; i++)
		if (m->slots[i].idx >= 0)
			m->slots[i].idx = to[m->slots[i].idx];
}

void gq_idmap_clear(gq_idmap_t *m)
{
	if (m->cap)
		memset(m->slots, 0xff, sizeof(*m->slots) * m->cap);
	m->count = 0;
}

void gq_idmap_free(gq_idmap_t *m)
{
	free(m->slots);
	gq_idmap_init(m);
}
