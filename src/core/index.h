/*
 * index.h - O(1) lookups used on the hot path: account name -> project and
 * job id -> job.  Open addressing with linear probing, kept at most half
 * full; growing rehashes (amortized O(1) per insert).  Account names
 * compare without case, as Slurm stores accounts in lower case.
 */
#ifndef GPUQUOTA_INDEX_H
#define GPUQUOTA_INDEX_H

#include <stdint.h>

typedef struct {
	char **keys;
	int *vals;
	uint32_t cap;		/* power of two, or 0 */
	uint32_t count;
} gq_strmap_t;

typedef struct {
	uint32_t *keys;		/* job id + 1; 0 marks an empty slot */
	int *vals;
	uint32_t cap;
	uint32_t count;
} gq_idmap_t;

/* A set of (preemptor, preemptee) job id pairs. */
typedef struct {
	uint64_t *keys;		/* (a << 32 | b) + 1; 0 marks an empty slot */
	uint32_t cap;
	uint32_t count;
} gq_pairset_t;

/* Returns the value for key, or -1. */
int gq_strmap_get(const gq_strmap_t *m, const char *key);
/* Inserts or replaces; the key is copied.  Returns 0, or -1 (no memory). */
int gq_strmap_put(gq_strmap_t *m, const char *key, int val);
void gq_strmap_free(gq_strmap_t *m);

int gq_idmap_get(const gq_idmap_t *m, uint32_t id);
int gq_idmap_put(gq_idmap_t *m, uint32_t id, int val);
void gq_idmap_clear(gq_idmap_t *m);
void gq_idmap_free(gq_idmap_t *m);

int gq_pairset_has(const gq_pairset_t *s, uint32_t a, uint32_t b);
int gq_pairset_add(gq_pairset_t *s, uint32_t a, uint32_t b);
void gq_pairset_clear(gq_pairset_t *s);
void gq_pairset_free(gq_pairset_t *s);

#endif
