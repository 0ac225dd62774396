/*
 * hash.c - the core's hash table and its two key types (see hash.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/hash.h"

#define GQ_HASH_MIN_CAP 16

/* FNV-1a over the lower-cased name */
static uint64_t _hash_name(gq_key_t key)
{
	const char *s = key.s;
	uint64_t h = 14695981039346656037ULL;

	while (*s) {
		h ^= (unsigned char)tolower((unsigned char)*s++);
		h *= 1099511628211ULL;
	}
	return h;
}

static bool _equal_name(gq_key_t a, gq_key_t b)
{
	return !strcasecmp(a.s, b.s);
}

static bool _dup_name(gq_key_t key, gq_key_t *copy)
{
	copy->s = strdup(key.s);
	return copy->s != NULL;
}

static void _destroy_name(gq_key_t key)
{
	free((char *)key.s);
}

/* a 64-bit finalizer (murmur3's): ids are dense, spread them */
static uint64_t _hash_int(gq_key_t key)
{
	uint64_t k = key.u;

	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

/*
 * Slurm's job ids are dense: given in sequence, an array's tasks take
 * consecutive ids.  Their low bits spread them over the slots with no
 * collision and keep neighbours in neighbouring slots (a pass adds jobs
 * in id order: one cache line serves several); the bits of a
 * federation's cluster id (26 and up) are folded in.
 */
static uint64_t _fold_dense(gq_key_t key)
{
	return key.u ^ (key.u >> 26);
}

static bool _equal_int(gq_key_t a, gq_key_t b)
{
	return a.u == b.u;
}

const gq_hash_type_t gq_hash_names = {
	.hash = _hash_name,
	.equal = _equal_name,
	.dup = _dup_name,
	.destroy = _destroy_name,
};

const gq_hash_type_t gq_hash_ints = {
	.hash = _hash_int,
	.equal = _equal_int,
	.plain_ints = true,
};

const gq_hash_type_t gq_hash_job_ids = {
	.hash = _fold_dense,
	.equal = _equal_int,
	.plain_ints = true,
	.dense = true,
};

void gq_hash_init(gq_hash_t *h, const gq_hash_type_t *type)
{
	memset(h, 0, sizeof(*h));
	h->type = type;
}

/* The slot of key, or of the empty slot where it would go. */
static uint32_t _slot(const gq_hash_t *h, gq_key_t key)
{
	uint32_t mask = h->cap - 1;
	uint32_t i;

	if (h->type->plain_ints) {	/* the hot path: job ids */
		i = (uint32_t)(h->type->dense ? _fold_dense(key) :
						_hash_int(key)) & mask;
		while (h->slots[i].used && h->slots[i].key.u != key.u)
			i = (i + 1) & mask;
		return i;
	}
	i = (uint32_t)h->type->hash(key) & mask;
	while (h->slots[i].used && !h->type->equal(h->slots[i].key, key))
		i = (i + 1) & mask;
	return i;
}

int gq_hash_get(const gq_hash_t *h, gq_key_t key)
{
	uint32_t i;

	if (!h->cap)
		return -1;
	i = _slot(h, key);
	return h->slots[i].used ? h->slots[i].val : -1;
}

static int _grow(gq_hash_t *h)
{
	gq_hash_t n = { .type = h->type };
	uint32_t i;

	n.cap = h->cap ? h->cap * 2 : GQ_HASH_MIN_CAP;
	if (!(n.slots = calloc(n.cap, sizeof(*n.slots))))
		return -1;
	for (i = 0; i < h->cap; i++)
		if (h->slots[i].used)
			n.slots[_slot(&n, h->slots[i].key)] = h->slots[i];
	n.count = h->count;
	free(h->slots);
	*h = n;
	return 0;
}

/* The slot key is in, inserted (value unset) when new; -1: memory. */
static int64_t _claim(gq_hash_t *h, gq_key_t key, bool *fresh)
{
	uint32_t i;

	*fresh = false;
	if ((h->count + 1) * 2 > h->cap && _grow(h))
		return -1;
	i = _slot(h, key);
	if (!h->slots[i].used) {
		if (h->type->dup && !h->type->dup(key, &key))
			return -1;
		h->slots[i].used = true;
		h->slots[i].key = key;
		h->count++;
		*fresh = true;
	}
	return i;
}

int gq_hash_put(gq_hash_t *h, gq_key_t key, int val)
{
	bool fresh;
	int64_t i = _claim(h, key, &fresh);

	if (i < 0)
		return -1;
	h->slots[i].val = val;
	return 0;
}

int gq_hash_get_or_put(gq_hash_t *h, gq_key_t key, int val)
{
	bool fresh;
	int64_t i = _claim(h, key, &fresh);

	if (i < 0)
		return -2;
	if (fresh)
		h->slots[i].val = val;
	return h->slots[i].val;
}

void gq_hash_renumber(gq_hash_t *h, const int *to)
{
	uint32_t i;

	for (i = 0; i < h->cap; i++)
		if (h->slots[i].used)
			h->slots[i].val = to[h->slots[i].val];
}

void gq_hash_clear(gq_hash_t *h)
{
	uint32_t i;

	if (h->type && h->type->destroy)
		for (i = 0; i < h->cap; i++)
			if (h->slots[i].used)
				h->type->destroy(h->slots[i].key);
	if (h->cap)
		memset(h->slots, 0, sizeof(*h->slots) * h->cap);
	h->count = 0;
}

void gq_hash_free(gq_hash_t *h)
{
	const gq_hash_type_t *type = h->type;

	gq_hash_clear(h);
	free(h->slots);
	gq_hash_init(h, type);
}
