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

/*
 * Weights beyond the config's bounds (a caller's, or a test's) still split
 * by their ratios: C=8, a (2, 1e308, -, 8), b (2, 1e308, -, 8),
 * c (2, 1, -, 8).  Deserved 2, 2, 2; the surplus 2 goes 1e308:1e308:1, so
 * a and b take 1 each and c about 1e-308: shares 3, 3, 2.  Summing the
 * weights as given gives inf, and 2 * 1e308 / inf is NaN.
 */
START_TEST(huge_weights_split_by_ratio)
{
	gq_claim_t c[3] = { claim(2, 1e308, INFINITY, 8),
			    claim(2, 1e308, INFINITY, 8),
			    claim(2, 1, INFINITY, 8) };

	gq_fair_share(c, 3, 8);
	ck_assert_double_eq_tol(c[0].share, 3, EPS);
	ck_assert_double_eq_tol(c[1].share, 3, EPS);
	ck_assert_double_eq_tol(c[2].share, 2, EPS);
}
END_TEST

/*
 * Two departments of quota 0 and weight 1.5e308, each demanding 4, C 4:
 * the surplus 4 goes 1:1, 2 each (their sum, 3e308, is inf as given).
 */
START_TEST(huge_department_weights_split_evenly)
{
	gq_claim_t c[2] = { claim(0, 1.5e308, INFINITY, 4),
			    claim(0, 1.5e308, INFINITY, 4) };

	gq_fair_share(c, 2, 4);
	ck_assert_double_eq_tol(c[0].share, 2, EPS);
	ck_assert_double_eq_tol(c[1].share, 2, EPS);
}
END_TEST

/* The weights a pass can see: the config's ends (0, 0.001, 1e6), usage's
 * tilt down to 1e-12 of them, and a weight that is not finite (taken as
 * 0). */
static const double range_w[] = { 0, 1e-15, 0.001, 1, 1e6, INFINITY, NAN };

/* Claim i of case k: weight from range_w, demands and quotas mixed. */
static gq_claim_t range_claim(int k, int i)
{
	int nw = sizeof(range_w) / sizeof(range_w[0]), j;

	for (j = 0; j < i; j++)	/* digit i of k in base nw */
		k /= nw;
	return claim(i % 3, range_w[k % nw], i == 1 ? 2 : INFINITY,
		     (double)(i * 3 % 7));
}

/*
 * No share is ever NaN or infinite, and none passes its cap: over every
 * mix of those weights on 4 claims and capacities 0 to 1e6, each share is
 * finite, 0 <= f <= min(D, L), and the shares add up to at most C.
 */
START_TEST(shares_finite_over_the_weight_range)
{
	static const double caps[] = { 0, 1, 7.5, 1e6 };
	int nw = sizeof(range_w) / sizeof(range_w[0]), k, i, ci;

	for (ci = 0; ci < 4; ci++)
		for (k = 0; k < nw * nw * nw * nw; k++) {
			gq_claim_t c[4];
			double sum = 0;

			for (i = 0; i < 4; i++)
				c[i] = range_claim(k, i);
			ck_assert_int_eq(gq_fair_share(c, 4, caps[ci]), 0);
			for (i = 0; i < 4; i++) {
				ck_assert_msg(isfinite(c[i].share) &&
					      isfinite(c[i].deserved),
					      "case %d cap %g claim %d: %g",
					      k, caps[ci], i, c[i].share);
				ck_assert(c[i].share >= 0);
				ck_assert(c[i].share <= fmin(c[i].demand,
							     c[i].limit) + EPS);
				sum += c[i].share;
			}
			ck_assert(sum <= caps[ci] + EPS);
		}
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
	tcase_add_test(tc, huge_weights_split_by_ratio);
	tcase_add_test(tc, huge_department_weights_split_evenly);
	tcase_add_test(tc, shares_finite_over_the_weight_range);
	suite_add_tcase(s, tc);
	return s;
}
