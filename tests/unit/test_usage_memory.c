/*
 * test_usage_memory.c - what gpuquota remembers between and across
 * passes, and whose it is: the jobs a pass let through before they were
 * eligible (they bound the jobs submitted before the next pass), usage
 * kept by project identity, floors usage never moves, and the reclaim
 * pause rebuilt after a slurmctld restart.  Numbers worked by hand in
 * each test's comment.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/pools.h"
#include "core/state.h"
#include "core/usage.h"
#include "core/view.h"
#include "helpers.h"

static gq_job_in_t begins_later(uint32_t id, uint32_t gpus, int64_t submit)
{
	gq_job_in_t in = pending(id, gpus, submit);

	in.state = GQ_JOB_WAITING;
	in.begins_later = true;
	return in;
}

/*
 * A job submitted between passes is bounded by the jobs the pass let
 * through before they were eligible, as the pass would bound it.
 * team-a (q 1, L 2), C 8, all idle.  Pass: J (job 20, 1 GPU, eligible):
 * A = 1.  K (job 10, 1 GPU, requeued, waiting for its begin time): held
 * in advance only past L: 1 + 1 = 2 <= 2, let through.  N (job 30, 1
 * GPU) submitted before the next pass: J 1 + K 1 + N 1 = 3 > L 2: held
 * (gpu_limit), as the pass walking all three would hold one of them.
 * Without K (team-b, same numbers but K absent) N fits: 1 + 1 = 2.
 */
START_TEST(late_submit_bounded_by_begins_later_jobs)
{
	gq_project_cfg_t p[2] = { proj("team-a", 1, 1, 2),
				  proj("team-b", 1, 1, 2) };
	gq_view_t *v = view_of(p, 2, NULL, 0);
	const gq_job_t *n;

	gq_view_begin(v, 8, 100);
	pend(v, 20, "team-a", 1, 20);
	add(v, "team-a", begins_later(10, 1, 10));
	pend(v, 21, "team-b", 1, 21);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 10)->hold, GQ_HOLD_NONE);
	n = pend(v, 30, "team-a", 1, 30);	/* between passes */
	ck_assert_int_eq(n->hold, GQ_HOLD_LIMIT);
	ck_assert(!n->demand);
	ck_assert_int_eq(pend(v, 31, "team-b", 1, 31)->hold, GQ_HOLD_NONE);
	gq_view_free(v);
}
END_TEST

/*
 * The same job is counted once, whatever it does before the next pass.
 * team-a (q 1, L 2), C 8.  Pass: J (job 20) eligible, A = 1; K (job 10,
 * begins later) let through (1 + 1 <= 2).
 * - K's begin time passes (pending again): judged on J 1 + K 1 = 2 <= 2,
 *   not held (its own GPU no longer also in the later sum: 3 would hold
 *   it).  Then N (job 30): 1 + 1 + 1 = 3 > 2: held.
 * - Second pass, K let through again; K starts (running): a_p 1, and
 *   the sums J 1 + K 1 = 2.  N (job 31): 3 > 2: held.
 * - Third pass without J: K let through (0 + 1), K starts: 1; N (job
 *   32): 1 + 1 = 2 <= 2, not held (K not counted twice).
 */
START_TEST(begins_later_job_counted_once_between_passes)
{
	gq_project_cfg_t p[1] = { proj("team-a", 1, 1, 2) };
	gq_view_t *v = view_of(p, 1, NULL, 0);
	gq_job_in_t k = begins_later(10, 1, 10);

	gq_view_begin(v, 8, 100);
	pend(v, 20, "team-a", 1, 20);
	add(v, "team-a", k);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(pend(v, 10, "team-a", 1, 10)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(pend(v, 30, "team-a", 1, 30)->hold, GQ_HOLD_LIMIT);

	gq_view_begin(v, 8, 200);
	pend(v, 20, "team-a", 1, 20);
	add(v, "team-a", k);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 10)->hold, GQ_HOLD_NONE);
	run(v, 10, "team-a", 1, 210);
	ck_assert_int_eq(pend(v, 31, "team-a", 1, 31)->hold, GQ_HOLD_LIMIT);

	gq_view_begin(v, 8, 300);
	add(v, "team-a", k);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 10)->hold, GQ_HOLD_NONE);
	run(v, 10, "team-a", 1, 310);
	ck_assert_int_eq(pend(v, 32, "team-a", 1, 32)->hold, GQ_HOLD_NONE);
	gq_view_free(v);
}
END_TEST

/*
 * The same in a department: d (q 4, L 3) holds team-a (q 1) and team-b
 * (q 1), C 8.  Pass: team-a's J (job 20, 1 GPU) eligible: d at 1;
 * team-b's K (job 10, 1 GPU, begins later): d 1 + 1 = 2 <= 3, let
 * through.  team-b's N (job 30, 2 GPUs) submitted between passes: d 1 +
 * K 1 + 2 = 4 > L 3: held (department limit); without K, 3 <= 3.
 */
START_TEST(late_submit_bounded_by_department_begins_later_jobs)
{
	gq_project_cfg_t p[2] = { proj("team-a", 1, 1, GQ_NO_LIMIT),
				  proj("team-b", 1, 1, GQ_NO_LIMIT) };
	gq_dept_cfg_t d[1] = { dept("d", 4, 3) };
	gq_view_t *v;

	p[0].department = p[1].department = 0;
	v = view_of(p, 2, d, 1);
	gq_view_begin(v, 8, 100);
	pend(v, 20, "team-a", 1, 20);
	add(v, "team-b", begins_later(10, 1, 10));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 10)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(pend(v, 30, "team-b", 2, 30)->hold,
			 GQ_HOLD_DEPT_LIMIT);
	gq_view_free(v);
}
END_TEST

Suite *usage_memory_suite(void)
{
	Suite *s = suite_create("usage_memory");
	TCase *tc = tcase_create("usage_memory");

	tcase_add_test(tc, late_submit_bounded_by_begins_later_jobs);
	tcase_add_test(tc, begins_later_job_counted_once_between_passes);
	tcase_add_test(tc, late_submit_bounded_by_department_begins_later_jobs);
	suite_add_tcase(s, tc);
	return s;
}
