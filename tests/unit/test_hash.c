/*
 * test_hash.c - the core's hash table with both key types, across growth,
 * and its bucket sort.
 */
#include <check.h>
#include <stdlib.h>
#include <stdio.h>

#include "tools/bucket.h"
#include "tools/hash.h"

/* both integer types: any ints, and job ids (dense, hashed by low bits) */
static const gq_hash_type_t *const int_types[] = { &gq_hash_ints,
						    &gq_hash_job_ids };

START_TEST(ints_many)
{
	gq_hash_t m;
	uint32_t i;

	gq_hash_init(&m, int_types[_i]);
	for (i = 0; i < 10000; i++)
		ck_assert_int_eq(gq_hash_put(&m, gq_key_int(i * 7), (int)i), 0);
	for (i = 0; i < 10000; i++)
		ck_assert_int_eq(gq_hash_get(&m, gq_key_int(i * 7)), (int)i);
	ck_assert_int_eq(gq_hash_get(&m, gq_key_int(3)), -1);
	/* job id 0 is a key like any other */
	ck_assert_int_eq(gq_hash_get(&m, gq_key_int(0)), 0);
	gq_hash_put(&m, gq_key_int(7), 42);
	ck_assert_int_eq(gq_hash_get(&m, gq_key_int(7)), 42);
	ck_assert_uint_eq(m.count, 10000);
	gq_hash_clear(&m);
	ck_assert_int_eq(gq_hash_get(&m, gq_key_int(7)), -1);
	ck_assert_uint_eq(m.count, 0);
	gq_hash_free(&m);
}
END_TEST

/* Job ids of a federation (cluster id in bits 26 and up) and in sequence:
 * all found, none confused. */
START_TEST(job_ids_federated)
{
	gq_hash_t m;
	uint32_t c, i;

	gq_hash_init(&m, &gq_hash_job_ids);
	for (c = 1; c <= 3; c++)
		for (i = 1; i <= 3000; i++)
			ck_assert_int_eq(gq_hash_put(&m, gq_key_int((c << 26) | i),
						     (int)(c * 10000 + i)), 0);
	for (c = 1; c <= 3; c++)
		for (i = 1; i <= 3000; i++)
			ck_assert_int_eq(gq_hash_get(&m, gq_key_int((c << 26) | i)),
					 (int)(c * 10000 + i));
	ck_assert_int_eq(gq_hash_get(&m, gq_key_int(1)), -1);
	ck_assert_uint_eq(m.count, 9000);
	gq_hash_free(&m);
}
END_TEST

START_TEST(names_many)
{
	gq_hash_t m;
	char key[32];
	int i;

	gq_hash_init(&m, &gq_hash_names);
	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "acct-%d", i);
		ck_assert_int_eq(gq_hash_put(&m, gq_key_str(key), i), 0);
	}
	/* the table owns copies: the caller's buffer is reused above */
	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "acct-%d", i);
		ck_assert_int_eq(gq_hash_get(&m, gq_key_str(key)), i);
	}
	ck_assert_int_eq(gq_hash_get(&m, gq_key_str("nope")), -1);
	/* Slurm lower-cases accounts: "Team-A" in the config is "team-a" */
	ck_assert_int_eq(gq_hash_get(&m, gq_key_str("ACCT-7")), 7);
	ck_assert_int_eq(gq_hash_get(&m, gq_key_str("")), -1);
	gq_hash_clear(&m);	/* frees the copies (ASan checks) */
	ck_assert_int_eq(gq_hash_get(&m, gq_key_str("acct-7")), -1);
	gq_hash_put(&m, gq_key_str("again"), 1);
	gq_hash_free(&m);
}
END_TEST

START_TEST(pairs_many)
{
	gq_hash_t s;
	uint32_t a, b;

	gq_hash_init(&s, &gq_hash_ints);
	for (a = 1; a <= 100; a++)
		for (b = 1; b <= 50; b++)
			ck_assert_int_eq(gq_hash_put(&s, gq_key_pair(a, b * 3), 1), 0);
	ck_assert_uint_eq(s.count, 5000);
	ck_assert_int_ge(gq_hash_get(&s, gq_key_pair(7, 9)), 0);
	ck_assert_int_lt(gq_hash_get(&s, gq_key_pair(9, 7)), 0);
	ck_assert_int_lt(gq_hash_get(&s, gq_key_pair(7, 10)), 0);
	ck_assert_int_ge(gq_hash_get(&s, gq_key_pair(100, 150)), 0);
	gq_hash_put(&s, gq_key_pair(7, 9), 1);
	ck_assert_uint_eq(s.count, 5000);
	gq_hash_free(&s);
}
END_TEST

/* odd items in bucket (item % 3), even ones left out */
static int _odd_mod3(int item, const void *ctx)
{
	(void)ctx;
	return item % 2 ? item % 3 : -1;
}

START_TEST(buckets_stable)
{
	gq_buckets_t b = { 0 };

	ck_assert_int_eq(gq_buckets_fill(&b, 10, 3, _odd_mod3, NULL), 0);
	/* odd items 1 3 5 7 9: mod 3 -> 1 0 2 1 0 */
	ck_assert_int_eq(gq_bucket_len(&b, 0), 2);
	ck_assert_int_eq(gq_bucket(&b, 0)[0], 3);
	ck_assert_int_eq(gq_bucket(&b, 0)[1], 9);
	ck_assert_int_eq(gq_bucket_len(&b, 1), 2);
	ck_assert_int_eq(gq_bucket(&b, 1)[0], 1);
	ck_assert_int_eq(gq_bucket(&b, 1)[1], 7);
	ck_assert_int_eq(gq_bucket_len(&b, 2), 1);
	ck_assert_int_eq(gq_bucket(&b, 2)[0], 5);
	/* filled again in the same memory, more buckets, fewer items:
	 * odd items 1 3 5 -> buckets 1 0 2, bucket 3 empty */
	ck_assert_int_eq(gq_buckets_fill(&b, 6, 4, _odd_mod3, NULL), 0);
	ck_assert_int_eq(gq_bucket_len(&b, 0), 1);
	ck_assert_int_eq(gq_bucket(&b, 0)[0], 3);
	ck_assert_int_eq(gq_bucket_len(&b, 1), 1);
	ck_assert_int_eq(gq_bucket(&b, 1)[0], 1);
	ck_assert_int_eq(gq_bucket_len(&b, 2), 1);
	ck_assert_int_eq(gq_bucket(&b, 2)[0], 5);
	ck_assert_int_eq(gq_bucket_len(&b, 3), 0);
	gq_buckets_free(&b);
	/* nothing to sort */
	ck_assert_int_eq(gq_buckets_fill(&b, 0, 0, _odd_mod3, NULL), 0);
	gq_buckets_free(&b);
}
END_TEST

/* runs of consecutive items: bounds with stride 2, as the pass uses them
 * (queued then running items of each project) */
START_TEST(buckets_runs)
{
	/* project 0: queued 0..1, running 2..4; project 1: none, running
	 * 5; project 2: queued 6, none running (prefix sums, as the pass
	 * makes them) */
	const int bounds[] = { 0, 2, 5, 5, 6, 7, 7 };
	gq_buckets_t b = { 0 };
	int k;

	ck_assert_int_eq(gq_buckets_runs(&b, 3, bounds, 2), 0);
	ck_assert_int_eq(gq_bucket_len(&b, 0), 2);
	ck_assert_int_eq(gq_bucket(&b, 0)[0], 0);
	ck_assert_int_eq(gq_bucket(&b, 0)[1], 1);
	ck_assert_int_eq(gq_bucket_len(&b, 1), 0);
	ck_assert_int_eq(gq_bucket_len(&b, 2), 1);
	ck_assert_int_eq(gq_bucket(&b, 2)[0], 6);
	/* the running runs, in the same memory */
	ck_assert_int_eq(gq_buckets_runs(&b, 3, bounds + 1, 2), 0);
	ck_assert_int_eq(gq_bucket_len(&b, 0), 3);
	for (k = 0; k < 3; k++)
		ck_assert_int_eq(gq_bucket(&b, 0)[k], 2 + k);
	ck_assert_int_eq(gq_bucket_len(&b, 1), 1);
	ck_assert_int_eq(gq_bucket(&b, 1)[0], 5);
	ck_assert_int_eq(gq_bucket_len(&b, 2), 0);
	/* no buckets */
	ck_assert_int_eq(gq_buckets_runs(&b, 0, bounds, 2), 0);
	gq_buckets_free(&b);
}
END_TEST

/* item i's bucket: key[i] (the items are sorted by it) */
static int _key_of(int item, const void *ctx)
{
	return ((const int *)ctx)[item];
}

/*
 * Seeded random groupings: runs from the prefix sums of items already
 * grouped (2 groups per bucket, as the pass makes them) give the same
 * buckets as the counting sort over the same items.
 */
START_TEST(buckets_runs_random)
{
	int c;

	for (c = 0; c < 100; c++) {
		unsigned seed = 20261201u + c;
		int nb = 1 + rand_r(&seed) % 50, ng = 2 * nb;
		int n = rand_r(&seed) % 400, i, k;
		int *key = malloc(sizeof(int) * (n + 1));
		int *side = malloc(sizeof(int) * (n + 1));
		int *bounds = calloc(ng + 1, sizeof(int));
		gq_buckets_t runs = { 0 }, fill = { 0 };

		/* items in group order: group g = 2 x bucket + side */
		for (i = 0; i < n; i++)
			bounds[1 + rand_r(&seed) % ng]++;
		for (k = 1; k <= ng; k++)
			bounds[k] += bounds[k - 1];
		for (k = 0, i = 0; k < ng; k++)
			for (; i < bounds[k + 1]; i++)
				side[i] = k;
		for (k = 0; k < 2; k++) {
			for (i = 0; i < n; i++)
				key[i] = side[i] % 2 == k ? side[i] / 2 : -1;
			ck_assert_int_eq(gq_buckets_runs(&runs, nb, bounds + k,
							 2), 0);
			ck_assert_int_eq(gq_buckets_fill(&fill, n, nb, _key_of,
							 key), 0);
			for (i = 0; i < nb; i++) {
				int j;

				ck_assert_msg(gq_bucket_len(&runs, i) ==
					      gq_bucket_len(&fill, i),
					      "seed %u bucket %d", 20261201u + c,
					      i);
				for (j = 0; j < gq_bucket_len(&runs, i); j++)
					ck_assert_msg(gq_bucket(&runs, i)[j] ==
						      gq_bucket(&fill, i)[j],
						      "seed %u bucket %d item %d",
						      20261201u + c, i, j);
			}
		}
		gq_buckets_free(&runs);
		gq_buckets_free(&fill);
		free(key);
		free(side);
		free(bounds);
	}
}
END_TEST

Suite *hash_suite(void)
{
	Suite *s = suite_create("hash");
	TCase *tc = tcase_create("hash");

	tcase_add_loop_test(tc, ints_many, 0, 2);
	tcase_add_test(tc, job_ids_federated);
	tcase_add_test(tc, names_many);
	tcase_add_test(tc, pairs_many);
	tcase_add_test(tc, buckets_stable);
	tcase_add_test(tc, buckets_runs);
	tcase_add_test(tc, buckets_runs_random);
	suite_add_tcase(s, tc);
	return s;
}
