/*
 * index.c - hash maps for account names and job ids (see index.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/index.h"

static uint32_t _hash_str(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s) {
		h ^= (unsigned char)tolower((unsigned char)*s++);
		h *= 16777619u;
	}
	return h;
}

static uint32_t _hash_id(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

int gq_strmap_get(const gq_strmap_t *m, const char *key)
{
	uint32_t i;

	if (!m->cap)
		return -1;
	for (i = _hash_str(key) & (m->cap - 1); m->keys[i];
	     i = (i + 1) & (m->cap - 1))
		if (!strcasecmp(m->keys[i], key))
			return m->vals[i];
	return -1;
}

static int _strmap_grow(gq_strmap_t *m)
{
	uint32_t ncap = m->cap ? m->cap * 2 : 16, i, j;
	char **keys = calloc(ncap, sizeof(*keys));
	int *vals = calloc(ncap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		for (j = _hash_str(m->keys[i]) & (ncap - 1); keys[j];
		     j = (j + 1) & (ncap - 1))
			;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = ncap;
	return 0;
}

int gq_strmap_put(gq_strmap_t *m, const char *key, int val)
{
	uint32_t i;

	if ((m->count + 1) * 2 > m->cap && _strmap_grow(m))
		return -1;
	for (i = _hash_str(key) & (m->cap - 1); m->keys[i];
	     i = (i + 1) & (m->cap - 1)) {
		if (!strcasecmp(m->keys[i], key)) {
			m->vals[i] = val;
			return 0;
		}
	}
	if (!(m->keys[i] = strdup(key)))
		return -1;
	m->vals[i] = val;
	m->count++;
	return 0;
}

void gq_strmap_free(gq_strmap_t *m)
{
	uint32_t i;

	for (i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

int gq_idmap_get(const gq_idmap_t *m, uint32_t id)
{
	uint32_t i;

	if (!m->cap)
		return -1;
	for (i = _hash_id(id) & (m->cap - 1); m->keys[i];
	     i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == id + 1)
			return m->vals[i];
	return -1;
}

static int _idmap_grow(gq_idmap_t *m)
{
	uint32_t ncap = m->cap ? m->cap * 2 : 64, i, j;
	uint32_t *keys = calloc(ncap, sizeof(*keys));
	int *vals = calloc(ncap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		for (j = _hash_id(m->keys[i] - 1) & (ncap - 1); keys[j];
		     j = (j + 1) & (ncap - 1))
			;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = ncap;
	return 0;
}

int gq_idmap_put(gq_idmap_t *m, uint32_t id, int val)
{
	uint32_t i;

	if ((m->count + 1) * 2 > m->cap && _idmap_grow(m))
		return -1;
	for (i = _hash_id(id) & (m->cap - 1); m->keys[i];
	     i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == id + 1) {
			m->vals[i] = val;
			return 0;
		}
	}
	m->keys[i] = id + 1;
	m->vals[i] = val;
	m->count++;
	return 0;
}

void gq_idmap_clear(gq_idmap_t *m)
{
	if (m->cap)
		memset(m->keys, 0, sizeof(*m->keys) * m->cap);
	m->count = 0;
}

void gq_idmap_free(gq_idmap_t *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static uint32_t _hash_pair(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (uint32_t)k;
}

int gq_pairset_has(const gq_pairset_t *s, uint32_t a, uint32_t b)
{
	uint64_t key = (((uint64_t)a << 32) | b) + 1;
	uint32_t i;

	if (!s->cap)
		return 0;
	for (i = _hash_pair(key) & (s->cap - 1); s->keys[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->keys[i] == key)
			return 1;
	return 0;
}

static int _pairset_grow(gq_pairset_t *s)
{
	uint32_t ncap = s->cap ? s->cap * 2 : 64, i, j;
	uint64_t *keys = calloc(ncap, sizeof(*keys));

	if (!keys)
		return -1;
	for (i = 0; i < s->cap; i++) {
		if (!s->keys[i])
			continue;
		for (j = _hash_pair(s->keys[i]) & (ncap - 1); keys[j];
		     j = (j + 1) & (ncap - 1))
			;
		keys[j] = s->keys[i];
	}
	free(s->keys);
	s->keys = keys;
	s->cap = ncap;
	return 0;
}

int gq_pairset_add(gq_pairset_t *s, uint32_t a, uint32_t b)
{
	uint64_t key = (((uint64_t)a << 32) | b) + 1;
	uint32_t i;

	if ((s->count + 1) * 2 > s->cap && _pairset_grow(s))
		return -1;
	for (i = _hash_pair(key) & (s->cap - 1); s->keys[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->keys[i] == key)
			return 0;
	s->keys[i] = key;
	s->count++;
	return 0;
}

void gq_pairset_clear(gq_pairset_t *s)
{
	if (s->cap)
		memset(s->keys, 0, sizeof(*s->keys) * s->cap);
	s->count = 0;
}

void gq_pairset_free(gq_pairset_t *s)
{
	free(s->keys);
	memset(s, 0, sizeof(*s));
}
