/*
 * test_fairshare.c - fair share f_p, numbers worked out by hand in comments.
 */
#include <check.h>
#include <math.h>

#include "core/fairshare.h"

#define EPS 1e-9

static gq_claim_t claim(double q, double w, double l, double d)
{
	gq_claim_t c = { .quota = q, .weight = w, .limit = l, .demand = d };

	return c;
}

/* Quick start after b1: C=4, team-a q2 D3, team-b q2 D1.
 * deserved 2 and 1; surplus 1 goes to team-a (team-b has no unmet demand). */
START_TEST(quick_start_before_b2)
{
	gq_claim_t c[2] = { claim(2, 1, INFINITY, 3), claim(2, 1, INFINITY, 1) };

	gq_fair_share(c, 2, 4);
	ck_assert_double_eq_tol(c[0].deserved, 2, EPS);
	ck_assert_double_eq_tol(c[1].deserved, 1, EPS);
	ck_assert_double_eq_tol(c[0].share, 3, EPS);
	ck_assert_double_eq_tol(c[1].share, 1, EPS);
}
END_TEST

/* After b2: D_a=3, D_b=2: deserved 2+2 = C, no surplus. */
START_TEST(quick_start_after_b2)
{
	gq_claim_t c[2] = { claim(2, 1, INFINITY, 3), claim(2, 1, INFINITY, 2) };

	gq_fair_share(c, 2, 4);
	ck_assert_double_eq_tol(c[0].share, 2, EPS);
	ck_assert_double_eq_tol(c[1].share, 2, EPS);
}
END_TEST

/* C=10; p1 q2 w1 D10, p2 q2 w3 D10, p3 q0 w1 D1.
 * deserved 2,2,0; surplus 6 by weights 1:3:1 would give p3 1.2 > D 1:
 * first round raises all by 1 per weight (p3 caps at 1, 5 GPUs used),
 * the last GPU goes 1:3 -> p1 2+1+0.25 = 3.25, p2 2+3+0.75 = 5.75. */
START_TEST(weighted_surplus_with_cap)
{
	gq_claim_t c[3] = { claim(2, 1, INFINITY, 10), claim(2, 3, INFINITY, 10),
			    claim(0, 1, INFINITY, 1) };

	gq_fair_share(c, 3, 10);
	ck_assert_double_eq_tol(c[0].share, 3.25, EPS);
	ck_assert_double_eq_tol(c[1].share, 5.75, EPS);
	ck_assert_double_eq_tol(c[2].share, 1, EPS);
}
END_TEST

/* Oversubscribed quotas: C=4, p1 q4 D4, p2 q4 D1: caps 4 and 1 sum to 5 > 4.
 * By quota (4:4) each would get 2, but p2 caps at 1; p1 takes the other 3. */
START_TEST(oversubscribed_quotas)
{
	gq_claim_t c[2] = { claim(4, 1, INFINITY, 4), claim(4, 1, INFINITY, 1) };

	gq_fair_share(c, 2, 4);
	ck_assert_double_eq_tol(c[0].share, 3, EPS);
	ck_assert_double_eq_tol(c[1].share, 1, EPS);
	ck_assert_double_eq_tol(c[0].deserved, 3, EPS);
}
END_TEST

/* Oversubscribed, uneven quotas: C=6, q 6 and 3, both D 9: 6*6/9=4, 6*3/9=2. */
START_TEST(oversubscribed_proportional)
{
	gq_claim_t c[2] = { claim(6, 1, INFINITY, 9), claim(3, 1, INFINITY, 9) };

	gq_fair_share(c, 2, 6);
	ck_assert_double_eq_tol(c[0].share, 4, EPS);
	ck_assert_double_eq_tol(c[1].share, 2, EPS);
}
END_TEST

/* Limit: C=8, p1 q1 L2 D8, p2 q1 D8: deserved 1,1; surplus 6 -> 3 each, but
 * p1 caps at its limit 2; p2 gets the remaining 5 -> 6. */
START_TEST(limit_caps_share)
{
	gq_claim_t c[2] = { claim(1, 1, 2, 8), claim(1, 1, INFINITY, 8) };

	gq_fair_share(c, 2, 8);
	ck_assert_double_eq_tol(c[0].share, 2, EPS);
	ck_assert_double_eq_tol(c[1].share, 6, EPS);
}
END_TEST

/* Weight 0 gets no surplus: C=4, p1 q1 w0 D4, p2 q1 w1 D2 -> 1 and 2,
 * one GPU stays unassigned. */
START_TEST(zero_weight_gets_no_surplus)
{
	gq_claim_t c[2] = { claim(1, 0, INFINITY, 4), claim(1, 1, INFINITY, 2) };

	gq_fair_share(c, 2, 4);
	ck_assert_double_eq_tol(c[0].share, 1, EPS);
	ck_assert_double_eq_tol(c[1].share, 2, EPS);
}
END_TEST

/* No demand, no share; demand below quota deserves only the demand. */
START_TEST(demand_bounds_deserved)
{
	gq_claim_t c[2] = { claim(3, 1, INFINITY, 0), claim(3, 1, INFINITY, 1) };

	gq_fair_share(c, 2, 8);
	ck_assert_double_eq_tol(c[0].share, 0, EPS);
	ck_assert_double_eq_tol(c[1].share, 1, EPS);
}
END_TEST

/* Waterfill returns what nobody can take. */
START_TEST(waterfill_leftover)
{
	double w[2] = { 1, 1 }, cap[2] = { 1, 2 }, out[2] = { 0, 0 };

	ck_assert_double_eq_tol(gq_waterfill(5, 2, w, cap, out), 2, EPS);
	ck_assert_double_eq_tol(out[0], 1, EPS);
	ck_assert_double_eq_tol(out[1], 2, EPS);
}
END_TEST

Suite *fairshare_suite(void)
{
	Suite *s = suite_create("fairshare");
	TCase *tc = tcase_create("fairshare");

	tcase_add_test(tc, quick_start_before_b2);
	tcase_add_test(tc, quick_start_after_b2);
	tcase_add_test(tc, weighted_surplus_with_cap);
	tcase_add_test(tc, oversubscribed_quotas);
	tcase_add_test(tc, oversubscribed_proportional);
	tcase_add_test(tc, limit_caps_share);
	tcase_add_test(tc, zero_weight_gets_no_surplus);
	tcase_add_test(tc, demand_bounds_deserved);
	tcase_add_test(tc, waterfill_leftover);
	suite_add_tcase(s, tc);
	return s;
}
