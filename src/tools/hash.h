/*
 * hash.h - the core's general hash table: key -> int, O(1) expected.
 *
 * Used for account name -> project, department name -> department,
 * account -> department from Slurm's tree, and the set of (preemptor,
 * victim) pairs of room-making (a view's job ids have their own, smaller
 * table: idmap.h).  What a key is and how it is hashed, compared, copied
 * and freed comes from a small type struct (gq_hash_type_t), as in Redis'
 * dict.
 *
 * Open addressing with linear probing, kept at most half full; growing
 * rehashes every key (amortized O(1) per insert).  Nothing is ever
 * deleted one by one: a pass clears the whole table.
 */
#ifndef GPUQUOTA_HASH_H
#define GPUQUOTA_HASH_H

#include <stdbool.h>
#include <stdint.h>

typedef union {
	uint64_t u;		/* integer keys: job ids, id pairs */
	const char *s;		/* string keys: account names */
} gq_key_t;

typedef struct {
	uint64_t (*hash)(gq_key_t key);
	bool (*equal)(gq_key_t a, gq_key_t b);
	/*
	 * Keys the table owns (strings): copy on insert (false when out of
	 * memory) and free on clear.  NULL: the key is stored as it is.
	 */
	bool (*dup)(gq_key_t key, gq_key_t *copy);
	void (*destroy)(gq_key_t key);
	/* keys are integers compared with ==: probes skip the callback */
	bool plain_ints;
	/* ... and dense (job ids): hashed by their low bits */
	bool dense;
} gq_hash_type_t;

/* Account and department names: compared without case (Slurm stores
 * accounts in lower case, a config may not), copied. */
extern const gq_hash_type_t gq_hash_names;
/* 64-bit integers, any pattern: gq_key_pair() */
extern const gq_hash_type_t gq_hash_ints;
/* Slurm job ids: dense, mostly in sequence (see hash.c) */
extern const gq_hash_type_t gq_hash_job_ids;

/* One slot: key, value and whether it is used, together in one line. */
typedef struct {
	gq_key_t key;
	int val;
	bool used;
} gq_slot_t;

typedef struct {
	const gq_hash_type_t *type;
	gq_slot_t *slots;
	uint32_t cap;		/* a power of two, or 0 */
	uint32_t count;
} gq_hash_t;

static inline gq_key_t gq_key_str(const char *s)
{
	gq_key_t k = { .s = s };

	return k;
}

static inline gq_key_t gq_key_int(uint64_t u)
{
	gq_key_t k = { .u = u };

	return k;
}

/* (preemptor, victim) as one key */
static inline gq_key_t gq_key_pair(uint32_t a, uint32_t b)
{
	return gq_key_int(((uint64_t)a << 32) | b);
}

/* An empty table of a type; allocates nothing until the first put. */
void gq_hash_init(gq_hash_t *h, const gq_hash_type_t *type);

/* The value of key, or -1 when absent. */
int gq_hash_get(const gq_hash_t *h, gq_key_t key);

/* Insert or replace.  Returns 0, or -1 when out of memory (h unchanged). */
int gq_hash_put(gq_hash_t *h, gq_key_t key, int val);

/*
 * The value of key if present (left as it is); else insert val and return
 * it.  -2 when out of memory.  One probe sequence for both.
 */
int gq_hash_get_or_put(gq_hash_t *h, gq_key_t key, int val);

/* Every value v becomes to[v] (the indices it stands for moved).
 * O(capacity). */
void gq_hash_renumber(gq_hash_t *h, const int *to);

/* Forget every key, keep the memory.  O(capacity). */
void gq_hash_clear(gq_hash_t *h);

void gq_hash_free(gq_hash_t *h);

#endif
