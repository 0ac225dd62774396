/*
 * test_band.c - priority bands and their priority encoding.
 */
#include <check.h>
#include <math.h>

#include "core/band.h"

START_TEST(band_boundaries)
{
	/* q=2, f=3: A=2 in quota, A=3 fair share, A=4 over */
	ck_assert_int_eq(gq_band_of(2, 2, 2, 3, 1), GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(gq_band_of(3, 3, 2, 3, 1), GQ_BAND_FAIR_SHARE);
	ck_assert_int_eq(gq_band_of(4, 4, 2, 3, 1), GQ_BAND_OVER);
	/* fair share below quota: A=2 <= q in quota whatever f is */
	ck_assert_int_eq(gq_band_of(2, 2, 2, 1.5, 1), GQ_BAND_IN_QUOTA);
	/* an ancestor over its quota: not in quota */
	ck_assert_int_eq(gq_band_of(2, 2, 2, 3, 0), GQ_BAND_FAIR_SHARE);
	/* real fair shares compared as is: 2.5 */
	ck_assert_int_eq(gq_band_of(3, 3, 2, 2.5, 1), GQ_BAND_OVER);
}
END_TEST

START_TEST(band_keys)
{
	/* in quota A/q; above (A-q)/w */
	ck_assert_double_eq_tol(gq_band_key(GQ_BAND_IN_QUOTA, 1, 4, 1), 0.25, 1e-12);
	ck_assert_double_eq_tol(gq_band_key(GQ_BAND_FAIR_SHARE, 5, 2, 2), 1.5, 1e-12);
	ck_assert(isinf(gq_band_key(GQ_BAND_OVER, 5, 2, 0)));
	/* q=0 and A=0 (a job without GPUs) */
	ck_assert_double_eq_tol(gq_band_key(GQ_BAND_IN_QUOTA, 0, 0, 1), 0, 1e-12);
}
END_TEST

START_TEST(priority_encoding)
{
	/* in quota key 0.5: 2000000001 + 1 + round(0.5 * 999999998) */
	ck_assert_uint_eq(gq_band_priority(GQ_BAND_IN_QUOTA, 0.5), 2500000001u);
	ck_assert_uint_eq(gq_band_priority(GQ_BAND_IN_QUOTA, 0), 2999999999u + 1);
	ck_assert_uint_eq(gq_band_priority(GQ_BAND_IN_QUOTA, 1), 2000000002u);
	/* the base is kept for in-quota jobs that can get no room */
	ck_assert_uint_eq(gq_band_priority_roomless(), 2000000001u);
	ck_assert_uint_lt(gq_band_priority_roomless(),
			  gq_band_priority(GQ_BAND_IN_QUOTA, 1));
	ck_assert_int_eq(gq_band_from_priority(gq_band_priority_roomless()),
			 GQ_BAND_IN_QUOTA);
	/* fair share key 1: unit 1/2 -> 1000000001 + 500000000 */
	ck_assert_uint_eq(gq_band_priority(GQ_BAND_FAIR_SHARE, 1), 1500000001u);
	ck_assert_uint_eq(gq_band_priority(GQ_BAND_OVER, INFINITY), 1u);
	/* every in-quota job outranks every fair-share job, and so on */
	ck_assert_uint_gt(gq_band_priority(GQ_BAND_IN_QUOTA, 1),
			  gq_band_priority(GQ_BAND_FAIR_SHARE, 0));
	ck_assert_uint_gt(gq_band_priority(GQ_BAND_FAIR_SHARE, 1e12),
			  gq_band_priority(GQ_BAND_OVER, 0));
	/* smaller key first inside a band */
	ck_assert_uint_gt(gq_band_priority(GQ_BAND_OVER, 1),
			  gq_band_priority(GQ_BAND_OVER, 2));
	ck_assert_int_eq(gq_band_from_priority(2000000001u), GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(gq_band_from_priority(2000000000u), GQ_BAND_FAIR_SHARE);
	ck_assert_int_eq(gq_band_from_priority(1000000000u), GQ_BAND_OVER);
	ck_assert_uint_gt(gq_band_priority(GQ_BAND_NONE, 0), 0);
	ck_assert_uint_eq(gq_band_base(GQ_BAND_IN_QUOTA), 2000000001u);
	ck_assert_uint_eq(gq_band_base(GQ_BAND_FAIR_SHARE), 1000000001u);
	ck_assert_uint_eq(gq_band_base(GQ_BAND_OVER), 1u);
}
END_TEST

/* when a pass must ask Slurm to schedule now rather than at its next cycle */
START_TEST(rose_to_reclaim)
{
	/* priority 1: not classified yet (restart, reload) */
	ck_assert(gq_band_rose_to_reclaim(1, GQ_BAND_IN_QUOTA));
	ck_assert(gq_band_rose_to_reclaim(1, GQ_BAND_FAIR_SHARE));
	ck_assert(!gq_band_rose_to_reclaim(1, GQ_BAND_OVER));
	/* fair share (1500000001) up to in quota: yes; down: no */
	ck_assert(gq_band_rose_to_reclaim(1500000001u, GQ_BAND_IN_QUOTA));
	ck_assert(!gq_band_rose_to_reclaim(2000000001u, GQ_BAND_FAIR_SHARE));
	/* moving inside a band is no reason */
	ck_assert(!gq_band_rose_to_reclaim(2500000001u, GQ_BAND_IN_QUOTA));
	ck_assert(!gq_band_rose_to_reclaim(1000000001u, GQ_BAND_FAIR_SHARE));
	ck_assert(!gq_band_rose_to_reclaim(1, GQ_BAND_NONE));
}
END_TEST

Suite *band_suite(void)
{
	Suite *s = suite_create("band");
	TCase *tc = tcase_create("band");

	tcase_add_test(tc, band_boundaries);
	tcase_add_test(tc, band_keys);
	tcase_add_test(tc, priority_encoding);
	tcase_add_test(tc, rose_to_reclaim);
	suite_add_tcase(s, tc);
	return s;
}
