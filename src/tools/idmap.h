/*
 * idmap.h - the view's job id -> index table: open addressing over 8-byte
 * slots (the id and its index), half the bytes of the general hash table
 * (hash.h), because a pass clears, fills and renumbers it whole: at
 * 200 000 jobs it is 4 MB, not 8.
 *
 * Slurm's job ids are dense (given in sequence; an array's tasks take
 * consecutive ids), so an id is hashed by its low bits, the bits of a
 * federation's cluster id (26 and up) folded in: neighbouring ids fall in
 * neighbouring slots, one cache line serving eight.  Kept at most half
 * full; get and put O(1) expected, growing rehashes (amortized O(1));
 * renumber and clear O(capacity).  Nothing is deleted one by one.
 */
#ifndef GPUQUOTA_IDMAP_H
#define GPUQUOTA_IDMAP_H

#include <stdint.h>

typedef struct {
	uint32_t id;
	int32_t idx;		/* -1: a free slot */
} gq_idslot_t;

typedef struct {
	gq_idslot_t *slots;
	uint32_t cap;		/* a power of two, or 0 */
	uint32_t count;
} gq_idmap_t;

/* An empty table; allocates nothing until the first put. */
void gq_idmap_init(gq_idmap_t *m);

/* Twice the slots, every id placed again; 0, or -1 when out of memory. */
int gq_idmap_grow(gq_idmap_t *m);

/*
 * The lookups are inline: a pass adds and looks up every job (200 000
 * times at 200 000 jobs).
 */
/* low bits, a federation's cluster id folded in (see above) */
static inline uint32_t gq_idmap_fold(uint32_t id)
{
	return id ^ (id >> 26);
}

/* The slot of id, or of the free slot where it would go. */
static inline uint32_t gq_idmap_slot(const gq_idmap_t *m, uint32_t id)
{
	uint32_t mask = m->cap - 1, i = gq_idmap_fold(id) & mask;

	while (m->slots[i].idx >= 0 && m->slots[i].id != id)
		i = (i + 1) & mask;
	return i;
}

/* The index of job `id`, or -1 when absent. */
static inline int gq_idmap_get(const gq_idmap_t *m, uint32_t id)
{
	if (!m->cap)
		return -1;
	return m->slots[gq_idmap_slot(m, id)].idx;
}

/*
 * The index of `id` if present (left as it is); else `idx` (>= 0) is
 * stored for it and returned.  -2 when out of memory (m unchanged).
 */
static inline int gq_idmap_get_or_put(gq_idmap_t *m, uint32_t id, int idx)
{
	uint32_t i;

	if ((m->count + 1) * 2 > m->cap && gq_idmap_grow(m))
		return -2;
	i = gq_idmap_slot(m, id);
	if (m->slots[i].idx < 0) {
		m->slots[i].id = id;
		m->slots[i].idx = idx;
		m->count++;
	}
	return m->slots[i].idx;
}

/* Every index i becomes to[i] (the records moved).  O(capacity). */
void gq_idmap_renumber(gq_idmap_t *m, const int *to);

/* Forget every id, keep the memory.  O(capacity). */
void gq_idmap_clear(gq_idmap_t *m);

void gq_idmap_free(gq_idmap_t *m);

#endif
