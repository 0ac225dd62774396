/*
 * test_sort.c - index sorts: in order, reversed, and any order.
 */
#include <check.h>
#include <stdlib.h>

#include "tools/sort.h"

/* by key[i], ties by index: a total order */
static int _cmp(const void *a, const void *b, void *ctx)
{
	const int *key = ctx;
	int x = *(const int *)a, y = *(const int *)b;

	if (key[x] != key[y])
		return key[x] < key[y] ? -1 : 1;
	return (x > y) - (x < y);
}

START_TEST(sort_cases)
{
	int key[] = { 5, 3, 9, 1, 7, 3 };
	int in_order[] = { 3, 1, 5, 0, 4, 2 };	/* keys 1 3 3 5 7 9 */
	int reversed[] = { 2, 4, 0, 5, 1, 3 };
	int mixed[] = { 0, 1, 2, 3, 4, 5 };
	int want[] = { 3, 1, 5, 0, 4, 2 };
	int one[] = { 4 };
	int i;

	gq_sort_ints(in_order, 6, _cmp, key);
	gq_sort_ints(reversed, 6, _cmp, key);
	gq_sort_ints(mixed, 6, _cmp, key);
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(in_order[i], want[i]);
		ck_assert_int_eq(reversed[i], want[i]);
		ck_assert_int_eq(mixed[i], want[i]);
	}
	gq_sort_ints(one, 1, _cmp, key);
	ck_assert_int_eq(one[0], 4);
	gq_sort_ints(NULL, 0, _cmp, key);
}
END_TEST

/* seeded random inputs, also nearly sorted ones (one pair swapped) */
START_TEST(sort_random)
{
	int c;

	for (c = 0; c < 200; c++) {
		unsigned seed = 20261130u + c;
		int n = 1 + rand_r(&seed) % 300, *a = malloc(sizeof(int) * n);
		int *key = malloc(sizeof(int) * n), i;

		for (i = 0; i < n; i++) {
			key[i] = rand_r(&seed) % 50;
			a[i] = i;
		}
		if (c % 2) {	/* sorted, then the ends swapped */
			gq_sort_ints(a, n, _cmp, key);
			i = a[0];
			a[0] = a[n - 1];
			a[n - 1] = i;
		}
		gq_sort_ints(a, n, _cmp, key);
		for (i = 1; i < n; i++)
			ck_assert_msg(_cmp(&a[i - 1], &a[i], key) < 0,
				      "not sorted: seed %u, at %d", 20261130u + c,
				      i);
		free(a);
		free(key);
	}
}
END_TEST

Suite *sort_suite(void)
{
	Suite *s = suite_create("sort");
	TCase *tc = tcase_create("sort");

	tcase_add_test(tc, sort_cases);
	tcase_add_test(tc, sort_random);
	suite_add_tcase(s, tc);
	return s;
}
