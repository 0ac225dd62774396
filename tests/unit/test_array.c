/*
 * test_array.c - Job arrays: an array is banded by the tasks Slurm may
 * start at once, split at its band (its in-quota tasks reclaim, the plugin
 * throttles it to them), starts as many tasks as fit its bounds, and GPUs
 * reclaimed for it are kept only while it may reclaim.  docs/MODEL.md
 * "Terms" (Job arrays).
 */
#include <check.h>
#include <stdio.h>

#include "core/view.h"
#include "helpers.h"

/*
 * An array's band counts the tasks Slurm may start at once: team-a (q=2)
 * pends an array of 8 x 1 GPU, team-b (q=0) holds all 4 GPUs.  With %2,
 * A = 2 <= 2: in quota, it reclaims 2 GPUs.  Without a throttle all 8
 * could start at once (A = 8 > 2), but no GPU is idle, so the array is
 * split at its band: its first 2 tasks are in quota (tasks_now 2, the
 * plugin throttles it to them) and it reclaims as with %2.  Demand is all
 * 8 tasks either way.
 */
START_TEST(array_band_counts_tasks_at_once)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 0, 0);
	gq_job_in_t arr = with_tasks(pending(9, 1, 50), 8);
	uint32_t at_once, id, n;

	for (at_once = 0; at_once <= 2; at_once += 2) {	/* none, %2 */
		arr.tasks_at_once = at_once;
		gq_view_begin(v, 4, 100);
		for (id = 1; id <= 4; id++)
			run(v, id, "team-b", 1, id);
		add(v, "team-a", arr);
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_uint_eq(project(v, "team-a")->pending, 8);
		for (id = 1, n = 0; id <= 4; id++)
			n += gq_view_preemptable(v, id, 9);
		ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 2);
		ck_assert_double_eq_tol(gq_view_job(v, 9)->cum, 2, 1e-9);
		ck_assert_int_eq(gq_view_job(v, 9)->band, GQ_BAND_IN_QUOTA);
		/* team-b is over its quota 0: all of it for an in-quota job */
		ck_assert_uint_eq(n, 4);
	}
	gq_view_free(v);
}
END_TEST

START_TEST(array_split_at_its_band)
{
	gq_project_cfg_t p[2] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 0, 1, GQ_NO_LIMIT) };
	gq_dept_cfg_t d[1] = { dept("d", 3, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 2, NULL, 0);
	const gq_job_t *j;
	uint32_t id;

	gq_view_begin(v, 8, 100);	/* A */
	add(v, "team-a", with_tasks(pending(9, 1, 50), 8));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 8);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 8, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 9)->band, GQ_BAND_FAIR_SHARE);
	ck_assert_double_eq_tol(gq_view_job(v, 9)->cum, 8, 1e-9);

	for (int late = 0; late <= 1; late++) {	/* B */
		gq_view_begin(v, 8, 100);
		run(v, 1, "team-b", 1, 1);
		run(v, 2, "team-b", 1, 2);
		if (!late)
			add(v, "team-a", with_tasks(pending(9, 1, 50), 8));
		ck_assert_int_eq(gq_view_compute(v), 0);
		j = late ? add(v, "team-a", with_tasks(pending(9, 1, 50), 8)) :
			   gq_view_job(v, 9);
		ck_assert_uint_eq(j->tasks_now, 2);
		ck_assert_int_eq(j->band, GQ_BAND_IN_QUOTA);
		ck_assert_double_eq_tol(j->cum, 2, 1e-9);
		ck_assert(gq_view_preemptable(v, 1, 9));
	}

	gq_view_begin(v, 8, 100);	/* C */
	run(v, 1, "team-a", 1, 1);
	run(v, 2, "team-a", 1, 2);
	for (id = 3; id <= 6; id++)
		run(v, id, "team-b", 1, id);
	add(v, "team-a", with_tasks(pending(9, 1, 50), 4));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 5, 1e-9);
	ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 3);
	ck_assert_int_eq(gq_view_job(v, 9)->band, GQ_BAND_FAIR_SHARE);
	ck_assert_double_eq_tol(gq_view_job(v, 9)->cum, 5, 1e-9);
	gq_view_free(v);

	p[0] = proj("team-a", 4, 1, GQ_NO_LIMIT);	/* D */
	p[0].department = 0;
	v = view_of(p, 2, d, 1);
	gq_view_begin(v, 8, 100);
	for (id = 1; id <= 8; id++)
		run(v, id, "team-b", 1, id);
	add(v, "team-a", with_tasks(pending(9, 1, 50), 6));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 3);
	ck_assert_int_eq(gq_view_job(v, 9)->band, GQ_BAND_IN_QUOTA);
	ck_assert(gq_view_preemptable(v, 1, 9));
	gq_view_free(v);
}
END_TEST

/*
 * While work outside quotas waits for a reclaim in flight, the idle GPUs
 * are not open to it: an array is split at its band even where they would
 * cover it.  Case A of array_split_at_its_band (team-a q 2, 8 idle, an
 * array of 8 x 1): whole, fair share (A = 8), it would be held for team-c's
 * reclaim; split, its 2 in-quota tasks (A = 2) are not held.
 */
START_TEST(array_split_while_a_reclaim_waits)
{
	gq_project_cfg_t p[3] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 0, 1, GQ_NO_LIMIT),
				  proj("team-c", 2, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 3, NULL, 0);
	const gq_job_t *j;
	gq_reclaim_at_t c1 = { .preemptor = 20, .nnodes = -1 };

	for (int waiting = 0; waiting <= 1; waiting++) {
		gq_view_begin(v, 8, 100);
		gq_view_expect_reclaim_wait(v, waiting);
		add(v, "team-a", with_tasks(pending(9, 1, 50), 8));
		pend(v, c1.preemptor, "team-c", 1, 60);
		ck_assert_int_eq(gq_view_compute(v), 0);
		gq_view_wait_for_reclaims(v, &c1, 1);
		j = gq_view_job(v, 9);
		if (!waiting) {
			ck_assert_uint_eq(j->tasks_now, 8);
			ck_assert_int_ne(j->band, GQ_BAND_IN_QUOTA);
			ck_assert_int_eq(j->hold, GQ_HOLD_RECLAIM);
		} else {
			ck_assert_uint_eq(j->tasks_now, 2);
			ck_assert_int_eq(j->band, GQ_BAND_IN_QUOTA);
			ck_assert_double_eq_tol(j->cum, 2, 1e-9);
			ck_assert_int_eq(j->hold, GQ_HOLD_NONE);
		}
	}
	/* a new pass forgets it */
	gq_view_begin(v, 8, 100);
	add(v, "team-a", with_tasks(pending(9, 1, 50), 8));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 8);
	gq_view_free(v);
}
END_TEST

/*
 * GPUs reclaimed for an array are kept for it while it may reclaim, not
 * while its record stays pending: 2 x 2 GPUs, team-a and team-b q 2.
 * team-a runs 4; team-b's array 9 of 3 is split to its 2 in-quota tasks
 * and reclaims: work outside quotas waits.  Its 2 tasks run (10, 11),
 * team-a's jobs 3 and 4 are requeued; the record's last task is over
 * quota (A = 2 + 1 > 2 = f): nobody waits for it any more.
 */
START_TEST(reclaim_wait_ends_with_the_array_band)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	gq_reclaim_at_t arr = { .preemptor = 9, .nnodes = -1 };
	uint32_t id;
	int after;

	for (after = 0; after <= 1; after++) {
		gq_view_begin(v, 4, 100);
		for (id = 1; id <= 4; id++)
			add(v, "team-a", after && id > 2 ? pending(id, 1, id) :
							   running(id, 1, id));
		for (id = 10; after && id <= 11; id++)
			run(v, id, "team-b", 1, 60);
		add(v, "team-b", with_tasks(pending(9, 1, 50), after ? 1 : 3));
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_int_eq(gq_view_job(v, 9)->band,
				 after ? GQ_BAND_OVER : GQ_BAND_IN_QUOTA);
		ck_assert_int_eq(gq_view_wait_for_reclaims(v, &arr, 1), !after);
	}
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_NONE);
	gq_view_free(v);
}
END_TEST

/*
 * An array record may start as many tasks as fit its bounds (tasks_now;
 * the plugin throttles the array to it), the jobs behind it see them, and
 * it is held only when not one task fits.  Numbers by hand, 1-GPU tasks
 * on an idle 8-GPU cluster:
 *   team-a q=1 L=2, array of 4: 2 fit (0 + 2 <= 2), A = 2; job 2 behind
 *   it: 2 + 1 > 2, held.
 *   team-a q=1 L=4 running 2, array of 3: 2 fit (2 + 2 <= 4), though
 *   all 3 would not.
 *   the same array with %1: 1.
 *   team-a q=2 (no limit) running 1, array of 3 that cannot be requeued:
 *   1 fits the quota (1 + 1 <= 2); running 2: none, held.
 *   department d L=3 with team-a (no limit) running 1, array of 4: 2
 *   fit the department (1 + 2 <= 3).
 */
START_TEST(array_starts_what_fits)
{
	gq_project_cfg_t p[1];
	gq_dept_cfg_t d[1] = { dept("d", 8, 3) };
	gq_view_t *v;
	gq_job_in_t arr;

	p[0] = proj("team-a", 1, 1, 2);
	v = view_of(p, 1, NULL, 0);
	gq_view_begin(v, 8, 100);
	add(v, "team-a", with_tasks(pending(1, 1, 1), 4));
	pend(v, 2, "team-a", 1, 2);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(gq_view_job(v, 1)->tasks_now, 2);
	ck_assert_int_eq(gq_view_job(v, 1)->hold, GQ_HOLD_NONE);
	ck_assert_double_eq_tol(gq_view_job(v, 1)->cum, 2, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_LIMIT);
	ck_assert_uint_eq(gq_view_job(v, 2)->tasks_now, 0);
	gq_view_free(v);

	p[0] = proj("team-a", 1, 1, 4);
	v = view_of(p, 1, NULL, 0);
	for (uint32_t at_once = 0; at_once <= 1; at_once++) {
		gq_view_begin(v, 8, 100);
		run(v, 1, "team-a", 1, 1);
		run(v, 2, "team-a", 1, 2);
		arr = with_tasks(pending(3, 1, 3), 3);
		arr.tasks_at_once = at_once;
		add(v, "team-a", arr);
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_uint_eq(gq_view_job(v, 3)->tasks_now,
				  at_once ? 1 : 2);
		ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_NONE);
	}
	gq_view_free(v);

	p[0] = proj("team-a", 2, 1, GQ_NO_LIMIT);
	v = view_of(p, 1, NULL, 0);
	for (uint32_t nrun = 1; nrun <= 2; nrun++) {
		gq_view_begin(v, 8, 100);
		for (uint32_t id = 1; id <= nrun; id++)
			run(v, id, "team-a", 1, id);
		add(v, "team-a", no_requeue(with_tasks(pending(9, 1, 9), 3)));
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 2 - nrun);
		ck_assert_int_eq(gq_view_job(v, 9)->hold,
				 nrun == 2 ? GQ_HOLD_NOT_REQUEUEABLE :
					     GQ_HOLD_NONE);
	}
	gq_view_free(v);

	p[0] = proj("team-a", 1, 1, GQ_NO_LIMIT);
	p[0].department = 0;
	v = view_of(p, 1, d, 1);
	gq_view_begin(v, 8, 100);
	run(v, 1, "team-a", 1, 1);
	add(v, "team-a", with_tasks(pending(2, 1, 2), 4));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(gq_view_job(v, 2)->tasks_now, 2);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_NONE);
	gq_view_free(v);
}
END_TEST

/*
 * An array's tasks count in A_k as Slurm may start them, not as one task.
 * Slurm starts several tasks of one array record in one scheduling pass
 * (job_scheduler.c "Try starting another task of the job array"), so an
 * array counted as one task could start all its tasks past the limit.
 * team-a q=1 L=2, idle C=8: array of 4 x 1 GPU and job 2 behind it.
 */
START_TEST(array_tasks_pass_limit)
{
	gq_project_cfg_t p[1] = { proj("team-a", 1, 1, 2) };
	gq_view_t *v = view_of(p, 1, NULL, 0);
	gq_job_in_t arr = pending(1, 1, 1);

	gq_view_begin(v, 8, 100);
	arr.tasks = 4;
	add(v, "team-a", arr);
	pend(v, 2, "team-a", 1, 2);
	ck_assert_int_eq(gq_view_compute(v), 0);
	/* the array's 4 tasks; job 2, held by the limit, is not demand */
	ck_assert_uint_eq(gq_view_project(v, 0)->pending, 4);
	/* the array may start 2 tasks (the plugin throttles it to 2):
	 * job 2 comes after them: A = 3 > L = 2 */
	ck_assert_uint_eq(gq_view_job(v, 1)->tasks_now, 2);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_LIMIT);
	gq_view_free(v);
}
END_TEST

Suite *array_suite(void)
{
	Suite *s = suite_create("array");
	TCase *tc;

	tc = tcase_create("an array is banded by the tasks that may start at once");
	tcase_add_test(tc, array_band_counts_tasks_at_once);
	tcase_add_test(tc, array_split_at_its_band);
	tcase_add_test(tc, array_split_while_a_reclaim_waits);
	tcase_add_test(tc, reclaim_wait_ends_with_the_array_band);
	suite_add_tcase(s, tc);
	tc = tcase_create("an array starts what fits its quota and limits");
	tcase_add_test(tc, array_starts_what_fits);
	tcase_add_test(tc, array_tasks_pass_limit);
	suite_add_tcase(s, tc);
	return s;
}
