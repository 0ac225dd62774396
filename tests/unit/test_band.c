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
	/* in quota key 0.5: 1400000001 + 1 + round(0.5 * 699999998) */
	ck_assert_uint_eq(gq_band_priority(GQ_BAND_IN_QUOTA, 0.5), 1750000001u);
	/* key 0: base + 1 + 699999998, the top; below 2^31 */
	ck_assert_uint_eq(gq_band_priority(GQ_BAND_IN_QUOTA, 0), 2100000000u);
	ck_assert_uint_eq(gq_band_priority(GQ_BAND_IN_QUOTA, 1), 1400000002u);
	/* the base is kept for in-quota jobs that can get no room */
	ck_assert_uint_eq(gq_band_priority_roomless(), 1400000001u);
	ck_assert_uint_lt(gq_band_priority_roomless(),
			  gq_band_priority(GQ_BAND_IN_QUOTA, 1));
	ck_assert_int_eq(gq_band_from_priority(gq_band_priority_roomless()),
			 GQ_BAND_IN_QUOTA);
	/* fair share key 1: unit 1/2 -> 700000001 + round(349999999.5) */
	ck_assert_uint_eq(gq_band_priority(GQ_BAND_FAIR_SHARE, 1), 1050000001u);
	ck_assert_uint_eq(gq_band_priority(GQ_BAND_OVER, INFINITY), 1u);
	/* every in-quota job outranks every fair-share job, and so on */
	ck_assert_uint_gt(gq_band_priority(GQ_BAND_IN_QUOTA, 1),
			  gq_band_priority(GQ_BAND_FAIR_SHARE, 0));
	ck_assert_uint_gt(gq_band_priority(GQ_BAND_FAIR_SHARE, 1e12),
			  gq_band_priority(GQ_BAND_OVER, 0));
	/* smaller key first inside a band */
	ck_assert_uint_gt(gq_band_priority(GQ_BAND_OVER, 1),
			  gq_band_priority(GQ_BAND_OVER, 2));
	ck_assert_int_eq(gq_band_from_priority(1400000001u), GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(gq_band_from_priority(1400000000u), GQ_BAND_FAIR_SHARE);
	ck_assert_int_eq(gq_band_from_priority(700000000u), GQ_BAND_OVER);
	ck_assert_uint_gt(gq_band_priority(GQ_BAND_NONE, 0), 0);
	ck_assert_uint_eq(gq_band_base(GQ_BAND_IN_QUOTA), 1400000001u);
	ck_assert_uint_eq(gq_band_base(GQ_BAND_FAIR_SHARE), 700000001u);
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
	/* fair share (1050000001) up to in quota: yes; down: no */
	ck_assert(gq_band_rose_to_reclaim(1050000001u, GQ_BAND_IN_QUOTA));
	ck_assert(!gq_band_rose_to_reclaim(1400000001u, GQ_BAND_FAIR_SHARE));
	/* moving inside a band is no reason */
	ck_assert(!gq_band_rose_to_reclaim(1750000001u, GQ_BAND_IN_QUOTA));
	ck_assert(!gq_band_rose_to_reclaim(700000001u, GQ_BAND_FAIR_SHARE));
	ck_assert(!gq_band_rose_to_reclaim(1, GQ_BAND_NONE));
}
END_TEST

/* multifactor's room: a power of two above the weights' sum, capped */
START_TEST(multifactor_room)
{
	ck_assert_uint_eq(gq_band_room(-1), 1);	/* no multifactor */
	ck_assert_uint_eq(gq_band_room(0), 1);	/* no weights */
	ck_assert_uint_eq(gq_band_room(1), 2);
	ck_assert_uint_eq(gq_band_room(2), 4);
	/* PriorityWeightFairshare=10000 + QOS 1000 + Age 1000 + ... 14000 */
	ck_assert_uint_eq(gq_band_room(14000), 16384);
	ck_assert_uint_eq(gq_band_room(1e9), GQ_BAND_ROOM_MAX);
}
END_TEST

/*
 * Band, place and multifactor's part in one priority, by hand: room 16384
 * gives 700000000 / 16384 - 2 = 42722 slots.
 */
START_TEST(multifactor_compose)
{
	uint32_t iq_half = gq_band_priority(GQ_BAND_IN_QUOTA, 0.5);

	/* room 1: the band's priority as it is */
	ck_assert_uint_eq(gq_band_compose(iq_half, 500, -1, 1), iq_half);
	/* roomless (the base): slot 0, after a margin of one room:
	 * 1400000001 + 16384 + 500 */
	ck_assert_uint_eq(gq_band_compose(1400000001u, 500, 14000, 16384),
			  1400016885u);
	/* key 0.5 (offset 350000000): slot 1 + 349999999 * 42721 /
	 * 699999999 = 21361; 1400000001 + 16384 * 21362 + 500 */
	ck_assert_uint_eq(gq_band_compose(iq_half, 500, 14000, 16384),
			  1749995509u);
	/* the top place stays a room below the band's end */
	ck_assert_uint_eq(gq_band_compose(2100000000u, 16383, 14000, 16384),
			  2099973632u);
	ck_assert_uint_lt(2099973632u + 16384, 2100000001u);
	/* fair-share base: 700000001 + 16384 + 0; a negative part is 0 */
	ck_assert_uint_eq(gq_band_compose(700000001u, -25, 14000, 16384),
			  700016385u);
	/* past the room: clamped to room - 1 */
	ck_assert_uint_eq(gq_band_compose(1400000001u, 1e6, 14000, 16384),
			  1400000001u + 16384 + 16383);
	/* weights above the cap: scaled, 5e6 * 4194304 / (1e7 + 1) */
	ck_assert_uint_eq(gq_band_compose(1400000001u, 5e6, 1e7,
					  GQ_BAND_ROOM_MAX),
			  1400000001u + GQ_BAND_ROOM_MAX + 2097151u);
	/* the place's order is kept: a higher place never lands lower */
	for (uint32_t p = 1400000001u; p < 2100000000u; p += 9999991u)
		ck_assert_uint_le(gq_band_compose(p, 0, 14000, 16384),
				  gq_band_compose(p + 9999991u, 0, 14000,
						  16384));
	/* every band stays in its range */
	ck_assert_int_eq(gq_band_from_priority(gq_band_compose(
		gq_band_priority(GQ_BAND_FAIR_SHARE, 0), 1e9, 1e9,
		GQ_BAND_ROOM_MAX)), GQ_BAND_FAIR_SHARE);
	ck_assert_int_eq(gq_band_from_priority(gq_band_compose(
		gq_band_priority(GQ_BAND_OVER, 0), 1e9, 1e9,
		GQ_BAND_ROOM_MAX)), GQ_BAND_OVER);
}
END_TEST

/* the site factor that makes multifactor's own sum the composed priority */
START_TEST(multifactor_site_factor)
{
	/* 2147483648 + 1400016885 - 500 */
	ck_assert_uint_eq(gq_band_site_factor(1400016885u, 500), 3547500033u);
	/* a large nice (negative part) clamps, never wraps */
	ck_assert_uint_eq(gq_band_site_factor(2100000000u, -1e10),
			  UINT32_MAX);
	ck_assert_uint_eq(gq_band_site_factor(1, 3e9), 0);
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
	tcase_add_test(tc, multifactor_room);
	tcase_add_test(tc, multifactor_compose);
	tcase_add_test(tc, multifactor_site_factor);
	suite_add_tcase(s, tc);
	return s;
}
