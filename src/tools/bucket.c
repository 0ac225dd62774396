/*
 * bucket.c - counting sort into buckets, or buckets of runs already
 * grouped (see bucket.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/bucket.h"

/* grow *p to hold n ints; 0 or -1 */
static int _reserve(int **p, int *cap, int n)
{
	int *np;

	if (n <= *cap)
		return 0;
	if (!(np = realloc(*p, sizeof(int) * n)))
		return -1;
	*p = np;
	*cap = n;
	return 0;
}

int gq_buckets_fill(gq_buckets_t *b, int n, int nbuckets,
		    gq_bucket_of_t bucket_of, const void *ctx)
{
	int i, k;

	b->nbuckets = 0;
	if (_reserve(&b->start, &b->start_cap, 2 * (nbuckets + 1)) ||
	    _reserve(&b->item, &b->item_cap, n > 0 ? n : 1)) {
		gq_buckets_free(b);
		return -1;
	}
	b->fill = b->start + nbuckets + 1;
	memset(b->start, 0, sizeof(int) * 2 * (nbuckets + 1));
	b->nbuckets = nbuckets;
	/* count, then prefix sums: start[k] is where bucket k begins */
	for (i = 0; i < n; i++)
		if ((k = bucket_of(i, ctx)) >= 0)
			b->start[k + 1]++;
	for (k = 1; k <= nbuckets; k++)
		b->start[k] += b->start[k - 1];
	for (i = 0; i < n; i++)
		if ((k = bucket_of(i, ctx)) >= 0)
			b->item[b->start[k] + b->fill[k]++] = i;
	return 0;
}

int gq_buckets_runs(gq_buckets_t *b, int nbuckets, const int *bounds,
		    int stride)
{
	int k, i, n = 0;

	b->nbuckets = 0;
	for (k = 0; k < nbuckets; k++)
		n += bounds[k * stride + 1] - bounds[k * stride];
	if (_reserve(&b->start, &b->start_cap, 2 * (nbuckets + 1)) ||
	    _reserve(&b->item, &b->item_cap, n > 0 ? n : 1)) {
		gq_buckets_free(b);
		return -1;
	}
	b->fill = b->start + nbuckets + 1;
	b->nbuckets = nbuckets;
	b->start[0] = 0;
	for (k = 0; k < nbuckets; k++) {
		int *it = b->item + b->start[k];
		int from = bounds[k * stride], len = bounds[k * stride + 1] - from;

		for (i = 0; i < len; i++)
			it[i] = from + i;
		b->start[k + 1] = b->start[k] + len;
	}
	return 0;
}

void gq_buckets_free(gq_buckets_t *b)
{
	free(b->start);
	free(b->item);
	memset(b, 0, sizeof(*b));
}
