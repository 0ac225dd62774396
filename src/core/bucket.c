/*
 * bucket.c - counting sort into buckets (see bucket.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/bucket.h"

int gq_buckets_fill(gq_buckets_t *b, int n, int nbuckets,
		    gq_bucket_of_t bucket_of, const void *ctx)
{
	int *fill, i, k;

	memset(b, 0, sizeof(*b));
	b->start = calloc(nbuckets + 1, sizeof(*b->start));
	b->item = malloc(sizeof(*b->item) * (n > 0 ? n : 1));
	fill = calloc(nbuckets + 1, sizeof(*fill));
	if (!b->start || !b->item || !fill) {
		free(fill);
		gq_buckets_free(b);
		return -1;
	}
	b->nbuckets = nbuckets;
	/* count, then prefix sums: start[k] is where bucket k begins */
	for (i = 0; i < n; i++)
		if ((k = bucket_of(i, ctx)) >= 0)
			b->start[k + 1]++;
	for (k = 1; k <= nbuckets; k++)
		b->start[k] += b->start[k - 1];
	for (i = 0; i < n; i++)
		if ((k = bucket_of(i, ctx)) >= 0)
			b->item[b->start[k] + fill[k]++] = i;
	free(fill);
	return 0;
}

void gq_buckets_free(gq_buckets_t *b)
{
	free(b->start);
	free(b->item);
	memset(b, 0, sizeof(*b));
}
