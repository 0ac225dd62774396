/*
 * idmap.c - job id -> index (see idmap.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/idmap.h"

#define GQ_IDMAP_MIN_CAP 16

/* low bits, a federation's cluster id folded in (idmap.h) */
static inline uint32_t _fold(uint32_t id)
{
	return id ^ (id >> 26);
}

void gq_idmap_init(gq_idmap_t *m)
{
	memset(m, 0, sizeof(*m));
}

/* The slot of id, or of the free slot where it would go. */
static inline uint32_t _slot(const gq_idmap_t *m, uint32_t id)
{
	uint32_t mask = m->cap - 1, i = _fold(id) & mask;

	while (m->slots[i].idx >= 0 && m->slots[i].id != id)
		i = (i + 1) & mask;
	return i;
}

int gq_idmap_get(const gq_idmap_t *m, uint32_t id)
{
	if (!m->cap)
		return -1;
	return m->slots[_slot(m, id)].idx;
}

static int _grow(gq_idmap_t *m)
{
	gq_idmap_t n = { .cap = m->cap ? m->cap * 2 : GQ_IDMAP_MIN_CAP };
	uint32_t i;

	if (!(n.slots = malloc(sizeof(*n.slots) * n.cap)))
		return -1;
	memset(n.slots, 0xff, sizeof(*n.slots) * n.cap);	/* idx -1 */
	for (i = 0; i < m->cap; i++)
		if (m->slots[i].idx >= 0)
			n.slots[_slot(&n, m->slots[i].id)] = m->slots[i];
	n.count = m->count;
	free(m->slots);
	*m = n;
	return 0;
}

int gq_idmap_get_or_put(gq_idmap_t *m, uint32_t id, int idx)
{
	uint32_t i;

	if ((m->count + 1) * 2 > m->cap && _grow(m))
		return -2;
	i = _slot(m, id);
	if (m->slots[i].idx < 0) {
		m->slots[i].id = id;
		m->slots[i].idx = idx;
		m->count++;
	}
	return m->slots[i].idx;
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
