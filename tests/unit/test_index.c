/*
 * test_index.c - hash maps of the hot path, across growth.
 */
#include <check.h>
#include <stdio.h>

#include "core/index.h"

START_TEST(idmap_many)
{
	gq_idmap_t m = { 0 };
	uint32_t i;

	for (i = 0; i < 10000; i++)
		ck_assert_int_eq(gq_idmap_put(&m, i * 7, (int)i), 0);
	for (i = 0; i < 10000; i++)
		ck_assert_int_eq(gq_idmap_get(&m, i * 7), (int)i);
	ck_assert_int_eq(gq_idmap_get(&m, 3), -1);
	gq_idmap_put(&m, 7, 42);
	ck_assert_int_eq(gq_idmap_get(&m, 7), 42);
	ck_assert_uint_eq(m.count, 10000);
	gq_idmap_clear(&m);
	ck_assert_int_eq(gq_idmap_get(&m, 7), -1);
	gq_idmap_free(&m);
}
END_TEST

START_TEST(strmap_many)
{
	gq_strmap_t m = { 0 };
	char key[32];
	int i;

	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "acct-%d", i);
		ck_assert_int_eq(gq_strmap_put(&m, key, i), 0);
	}
	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "acct-%d", i);
		ck_assert_int_eq(gq_strmap_get(&m, key), i);
	}
	ck_assert_int_eq(gq_strmap_get(&m, "nope"), -1);
	/* Slurm lower-cases accounts: "Team-A" in the config is "team-a" */
	ck_assert_int_eq(gq_strmap_get(&m, "ACCT-7"), 7);
	ck_assert_int_eq(gq_strmap_get(&m, ""), -1);
	gq_strmap_free(&m);
}
END_TEST

START_TEST(pairset_many)
{
	gq_pairset_t s = { 0 };
	uint32_t a, b;

	for (a = 1; a <= 100; a++)
		for (b = 1; b <= 50; b++)
			ck_assert_int_eq(gq_pairset_add(&s, a, b * 3), 0);
	ck_assert_uint_eq(s.count, 5000);
	ck_assert(gq_pairset_has(&s, 7, 9));
	ck_assert(!gq_pairset_has(&s, 9, 7));
	ck_assert(!gq_pairset_has(&s, 7, 10));
	ck_assert(gq_pairset_has(&s, 100, 150));
	gq_pairset_add(&s, 7, 9);
	ck_assert_uint_eq(s.count, 5000);
	gq_pairset_clear(&s);
	ck_assert(!gq_pairset_has(&s, 7, 9));
	gq_pairset_free(&s);
}
END_TEST

Suite *index_suite(void)
{
	Suite *s = suite_create("index");
	TCase *tc = tcase_create("index");

	tcase_add_test(tc, idmap_many);
	tcase_add_test(tc, strmap_many);
	tcase_add_test(tc, pairset_many);
	suite_add_tcase(s, tc);
	return s;
}
