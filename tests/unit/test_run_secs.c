/*
 * test_run_secs.c - run seconds given back at a job's end (priority/basic's
 * bookkeeping), so GrpTRESRunMins never stays used after jobs end.
 */
#include <check.h>
#include <stdint.h>

#include "core/run_secs.h"
#include "helpers.h"

#define NO_CONSUME (UINT64_MAX - 1)

/*
 * TRES cpu, mem, energy, node, billing, gres/gpu = 2, 4096, 5, 1, 2, 1 for
 * a 10-minute job: 600 s each: 1200, 2 457 600, 0 (energy is not
 * reserved), 600, 1200, 600.  UsageFactor 0.5: 300 s each; UsageFactor -1
 * (none): 600.  A TRES it does not consume: 0.  No time limit left (0
 * minutes): 0.
 */
START_TEST(reserved_run_seconds)
{
	uint64_t alloc[6] = { 2, 4096, 5, 1, 2, 1 }, out[6];
	uint64_t want[6] = { 1200, 2457600, 0, 600, 1200, 600 };

	gq_run_secs_reserved(alloc, 6, 10, -1, 2, NO_CONSUME, out);
	for (int i = 0; i < 6; i++)
		ck_assert_uint_eq(out[i], want[i]);
	gq_run_secs_reserved(alloc, 6, 10, 0.5, 2, NO_CONSUME, out);
	ck_assert_uint_eq(out[0], 600);
	ck_assert_uint_eq(out[5], 300);
	alloc[3] = NO_CONSUME;
	gq_run_secs_reserved(alloc, 6, 10, 1, 2, NO_CONSUME, out);
	ck_assert_uint_eq(out[3], 0);
	ck_assert_uint_eq(out[5], 600);
	gq_run_secs_reserved(alloc, 6, 0, 1, 2, NO_CONSUME, out);
	ck_assert_uint_eq(out[0], 0);
}
END_TEST

/*
 * An account under GrpTRESRunMins=gres/gpu=30 (1 800 GPU-seconds): a
 * 10-minute 1-GPU job reserves 600 at its start and gives 600 back at its
 * end, however soon it ends; six in a row leave 0 each time.  Giving back
 * more than is used (Slurm's own counts were reset) stops at 0 and is
 * counted.
 */
START_TEST(give_back_never_below_zero)
{
	uint64_t used[2] = { 0, 0 }, give[2] = { 0, 600 };

	for (int job = 0; job < 6; job++) {
		used[1] += 600;	/* acct_policy_job_begin */
		ck_assert_int_eq(gq_run_secs_give_back(used, give, 2), 0);
		ck_assert_uint_eq(used[1], 0);
	}
	used[1] = 500;
	ck_assert_int_eq(gq_run_secs_give_back(used, give, 2), 1);
	ck_assert_uint_eq(used[1], 0);
	ck_assert_uint_eq(used[0], 0);
}
END_TEST

Suite *run_secs_suite(void)
{
	Suite *s = suite_create("run_secs");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, reserved_run_seconds);
	tcase_add_test(tc, give_back_never_below_zero);
	suite_add_tcase(s, tc);
	return s;
}
