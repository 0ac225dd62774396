/*
 * edit_distance.c - Levenshtein distance of two short names (see
 * edit_distance.h): two rows of the classic table.
 */
#include <string.h>

#include "tools/edit_distance.h"

static int _min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

int gq_edit_distance(const char *a, const char *b, int max)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int prev[GQ_EDIT_NAME_MAX + 1], cur[GQ_EDIT_NAME_MAX + 1], best;

	if (max < 0 || la > GQ_EDIT_NAME_MAX || lb > GQ_EDIT_NAME_MAX)
		return max + 1;
	/* lengths further apart than max need more than max inserts */
	if ((la > lb ? la - lb : lb - la) > (size_t)max)
		return max + 1;
	for (j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (i = 1; i <= la; i++) {
		cur[0] = (int)i;
		best = cur[0];
		for (j = 1; j <= lb; j++) {
			cur[j] = _min3(prev[j] + 1, cur[j - 1] + 1,
				       prev[j - 1] + (a[i - 1] != b[j - 1]));
			if (cur[j] < best)
				best = cur[j];
		}
		if (best > max)	/* every later row is at least this */
			return max + 1;
		memcpy(prev, cur, sizeof(int) * (lb + 1));
	}
	return prev[lb] > max ? max + 1 : prev[lb];
}
