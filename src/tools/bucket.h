/*
 * bucket.h - the core's one bucket sort: items 0..n-1 grouped by a small
 * integer (their project, department or node) in O(n + buckets), stable
 * (each bucket keeps the items in increasing order).
 */
#ifndef GPUQUOTA_BUCKET_H
#define GPUQUOTA_BUCKET_H

typedef struct {
	int *start;		/* bucket b is item[start[b] .. start[b + 1]) */
	int *item;
	int nbuckets;
	int *fill;		/* scratch, after start in its allocation */
	int start_cap, item_cap;	/* kept across fills: no allocation
					 * (and no page faults) once large
					 * enough */
} gq_buckets_t;

/* Which bucket an item goes in, in [0, nbuckets), or -1: left out. */
typedef int (*gq_bucket_of_t)(int item, const void *ctx);

/*
 * Group items 0..n-1 into nbuckets buckets, reusing b's memory (b zeroed
 * or filled before).  Returns 0, or -1 when out of memory (b is then
 * empty).  Free with gq_buckets_free().
 */
int gq_buckets_fill(gq_buckets_t *b, int n, int nbuckets,
		    gq_bucket_of_t bucket_of, const void *ctx);

/*
 * Buckets of items already grouped: bucket k is the consecutive items
 * bounds[k * stride] .. bounds[k * stride + 1] - 1 (ascending bounds).
 * Items not in any bucket are left out.  Returns 0, or -1 when out of
 * memory (b is then empty).  O(items + nbuckets), reads no item.
 */
int gq_buckets_runs(gq_buckets_t *b, int nbuckets, const int *bounds,
		    int stride);

void gq_buckets_free(gq_buckets_t *b);

static inline int *gq_bucket(const gq_buckets_t *b, int k)
{
	return b->item + b->start[k];
}

static inline int gq_bucket_len(const gq_buckets_t *b, int k)
{
	return b->start[k + 1] - b->start[k];
}

#endif
