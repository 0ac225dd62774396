/*
 * hash.c - the core's hash table and its two key types (see hash.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/hash.h"

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
	uint32_t i = (uint32_t)h->type->hash(key) & mask;

	while (h->used[i] && !h->type->equal(h->keys[i], key))
		i = (i + 1) & mask;
	return i;
}

int gq_hash_get(const gq_hash_t *h, gq_key_t key)
{
	uint32_t i;

	if (!h->cap)
		return -1;
	i = _slot(h, key);
	return h->used[i] ? h->vals[i] : -1;
}

static int _grow(gq_hash_t *h)
{
	gq_hash_t n = { .type = h->type };
	uint32_t i, j;

	n.cap = h->cap ? h->cap * 2 : GQ_HASH_MIN_CAP;
	n.keys = malloc(sizeof(*n.keys) * n.cap);
	n.vals = malloc(sizeof(*n.vals) * n.cap);
	n.used = calloc(n.cap, sizeof(*n.used));
	if (!n.keys || !n.vals || !n.used) {
		free(n.keys);
		free(n.vals);
		free(n.used);
		return -1;
	}
	for (i = 0; i < h->cap; i++) {
		if (!h->used[i])
			continue;
		j = _slot(&n, h->keys[i]);
		n.used[j] = true;
		n.keys[j] = h->keys[i];
		n.vals[j] = h->vals[i];
	}
	n.count = h->count;
	free(h->keys);
	free(h->vals);
	free(h->used);
	*h = n;
	return 0;
}

int gq_hash_put(gq_hash_t *h, gq_key_t key, int val)
{
	uint32_t i;

	if ((h->count + 1) * 2 > h->cap && _grow(h))
		return -1;
	i = _slot(h, key);
	if (!h->used[i]) {
		if (h->type->dup && !h->type->dup(key, &key))
			return -1;
		h->used[i] = true;
		h->keys[i] = key;
		h->count++;
	}
	h->vals[i] = val;
	return 0;
}

void gq_hash_clear(gq_hash_t *h)
{
	uint32_t i;

	if (h->type && h->type->destroy)
		for (i = 0; i < h->cap; i++)
			if (h->used[i])
				h->type->destroy(h->keys[i]);
	if (h->cap)
		memset(h->used, 0, sizeof(*h->used) * h->cap);
	h->count = 0;
}

void gq_hash_free(gq_hash_t *h)
{
	const gq_hash_type_t *type = h->type;

	gq_hash_clear(h);
	free(h->keys);
	free(h->vals);
	free(h->used);
	gq_hash_init(h, type);
}
