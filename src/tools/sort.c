/*
 * sort.c - index sorts with an O(n) path for sorted and reversed input
 * (see sort.h).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <stdlib.h>

#include "tools/sort.h"

void gq_sort_ints(int *a, int n, gq_cmp_t cmp, void *ctx)
{
	int i, up = 1, down = 1;

	for (i = 1; i < n && (up || down); i++) {
		int c = cmp(&a[i - 1], &a[i], ctx);

		up &= c <= 0;
		down &= c > 0;
	}
	if (up)
		return;
	if (down) {
		for (i = 0; i < n / 2; i++) {
			int t = a[i];

			a[i] = a[n - 1 - i];
			a[n - 1 - i] = t;
		}
		return;
	}
	qsort_r(a, n, sizeof(*a), cmp, ctx);
}
