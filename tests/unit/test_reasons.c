/*
 * test_reasons.c - which pending jobs are demand, by Slurm's reasons.
 */
#include <check.h>

#include "shared/job_reasons.h"

START_TEST(reasons_demand)
{
	/* waiting for GPUs or for its turn: demand */
	ck_assert(!gq_reason_not_demand(WAIT_RESOURCES, 5, false, false));
	ck_assert(!gq_reason_not_demand(WAIT_PRIORITY, 5, false, false));
	ck_assert(!gq_reason_not_demand(WAIT_NO_REASON, 5, false, false));
	/* held by a user or an admin: not demand; held by gpuquota: demand */
	ck_assert(gq_reason_not_demand(WAIT_HELD, 0, false, false));
	ck_assert(gq_reason_not_demand(WAIT_HELD_USER, 0, false, false));
	ck_assert(!gq_reason_not_demand(WAIT_HELD, 0, true, false));
	/* dependency, begin time */
	ck_assert(gq_reason_not_demand(WAIT_DEPENDENCY, 5, false, false));
	ck_assert(gq_reason_not_demand(WAIT_TIME, 5, false, true));
	/* Slurm's association and QOS limits */
	ck_assert(gq_reason_not_demand(WAIT_ASSOC_GRP_GRES, 5, false, false));
	ck_assert(gq_reason_not_demand(WAIT_QOS_GRP_GRES, 5, false, false));
	ck_assert(gq_reason_not_demand(WAIT_QOS_MAX_GRES_PER_USER, 5, false, false));
	ck_assert(gq_reason_not_demand(WAIT_ASSOC_RESOURCE_LIMIT, 5, false, false));
	ck_assert(gq_reason_not_demand(WAIT_QOS_MIN_BILLING, 5, false, false));
	ck_assert(!gq_reason_slurm_limited(WAIT_RESV_DELETED));
}
END_TEST

Suite *reasons_suite(void)
{
	Suite *s = suite_create("reasons");
	TCase *tc = tcase_create("reasons");

	tcase_add_test(tc, reasons_demand);
	suite_add_tcase(s, tc);
	return s;
}
