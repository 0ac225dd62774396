/*
 * test_queue.c - A project's queue in a pass: the band each pending job is
 * in (its A against its quota and fair share, first fit), the order a
 * project's jobs are tried in (Slurm's order, multifactor before QOS, a
 * requeued job's place), the holds (gpu_limit, work that cannot be
 * requeued, a begin time ahead) and demand without held jobs.
 * docs/MODEL.md "Bands and priority", "Holds".
 */
#include <check.h>
#include <math.h>
#include <stdio.h>

#include "core/band.h"
#include "core/view.h"
#include "helpers.h"

/*
 * Step 2-3: before b2, team-a's a2 was over quota but fits the fair share:
 * a1 runs (1), a2 pends (2): D_a=3, D_b=1 (b1 running), C=4:
 * deserved 2+1, surplus 1 -> team-a: f_a=3.  a2: A=3 <= f_a: fair-share
 * band; it may start on idle GPUs.
 */
START_TEST(over_quota_job_in_fair_share_band)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);

	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 1, 10);
	pend(v, 2, "team-a", 2, 20);
	run(v, 3, "team-b", 1, 30);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 3, 1e-9);
	ck_assert_double_eq_tol(project(v, "team-b")->share, 1, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 2)->band, GQ_BAND_FAIR_SHARE);
	/* fair-share reclaim: team-b holds 1 <= max(q, f) = 2: no victim */
	ck_assert(!gq_view_preemptable(v, 3, 2));
	gq_view_free(v);
}
END_TEST

/*
 * Interleaving by share: team-a q=2 and team-b q=4, each with four 1-GPU
 * jobs pending on an empty cluster, C=6.  In quota keys: team-a 1/2, 2/2;
 * team-b 1/4, 2/4, 3/4, 4/4 -> order b1, (a1 = b2: older first), b3,
 * (a2 = b4).  Past quota: team-a's 3rd job key (3-2)/1 = 1.
 */
START_TEST(interleaving_by_share)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 4, 0);
	uint32_t id;

	gq_view_begin(v, 6, 100);
	for (id = 1; id <= 4; id++)
		pend(v, id, "team-a", 1, id);
	for (id = 5; id <= 8; id++)
		pend(v, id, "team-b", 1, id);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_gt(gq_view_job(v, 5)->priority, gq_view_job(v, 1)->priority);
	ck_assert_uint_eq(gq_view_job(v, 1)->priority, gq_view_job(v, 6)->priority);
	ck_assert_uint_gt(gq_view_job(v, 6)->priority, gq_view_job(v, 7)->priority);
	ck_assert_uint_gt(gq_view_job(v, 7)->priority, gq_view_job(v, 2)->priority);
	ck_assert_uint_eq(gq_view_job(v, 2)->priority, gq_view_job(v, 8)->priority);
	ck_assert_int_eq(gq_view_job(v, 3)->band, GQ_BAND_OVER);
	ck_assert_double_eq_tol(gq_view_job(v, 3)->key, 1, 1e-9);
	gq_view_free(v);
}
END_TEST

/*
 * First fit: a job too large for a band does not push the smaller jobs
 * behind it out of the band they fit.  C = 8, team-a (q 4) pends big (8
 * GPUs), then s1 (1), s2 (2), s3 (2); team-b (q 4) runs 8 x 1 GPU.  Both
 * demand more than 4: fair shares 4 and 4.
 *   big: 0 + 8 > 4 (quota), 0 + 8 > 4 (share): over, A = 8.
 *   s1: in quota 0 + 1 <= 4: in-quota, A = 1.  s2: 1 + 2 = 3 <= 4:
 *   in-quota, A = 3.  s3: 3 + 2 = 5 > 4, and 3 + 2 > 4: over,
 *   A = 0 + 8 + 1 + 2 + 2 = 13.
 * So team-a (0 < 4) reclaims for s1 and s2 from team-b (8 > 4), not for
 * big.  Were the band decided by the running sum alone, all four would be
 * over (A = 8, 9, 11, 13) and team-a would never reclaim while big waits
 * at its head.
 */
START_TEST(large_head_job_keeps_smaller_in_quota)
{
	gq_view_t *v = view2("team-a", 4, "team-b", 4, 0);
	uint32_t id;

	gq_view_begin(v, 8, 100);
	for (id = 1; id <= 8; id++)
		run(v, id, "team-b", 1, id);
	pend(v, 11, "team-a", 8, 11);
	pend(v, 12, "team-a", 1, 12);
	pend(v, 13, "team-a", 2, 13);
	pend(v, 14, "team-a", 2, 14);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 4, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 11)->band, GQ_BAND_OVER);
	ck_assert_double_eq_tol(gq_view_job(v, 11)->cum, 8, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 12)->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(gq_view_job(v, 12)->cum, 1, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 13)->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(gq_view_job(v, 13)->cum, 3, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 14)->band, GQ_BAND_OVER);
	ck_assert_double_eq_tol(gq_view_job(v, 14)->cum, 13, 1e-9);
	ck_assert(gq_view_preemptable(v, 8, 12));
	ck_assert(gq_view_preemptable(v, 8, 13));
	ck_assert(!gq_view_preemptable(v, 8, 11));
	ck_assert(!gq_view_preemptable(v, 8, 14));
	/* Slurm tries s1 and s2 first */
	ck_assert_uint_gt(gq_view_job(v, 13)->priority,
			  gq_view_job(v, 11)->priority);
	gq_view_free(v);
}
END_TEST

/*
 * A job that asks for no GPU takes no GPU from anyone: an unlisted
 * account's (quota 0) CPU-only job does not outrank another project's
 * in-quota GPU job and may requeue no GPU job.
 */
START_TEST(zero_gpu_job_reclaims_as_in_quota)
{
	gq_project_cfg_t p[2] = { proj("team-a", 1, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 2, NULL, 0);
	const gq_job_t *g;

	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 1, 20);
	run(v, 3, "team-a", 1, 30);
	run(v, 4, "team-b", 1, 40);
	pend(v, 5, "guest", 0, 50);	/* CPU-only job, unlisted account */
	pend(v, 6, "team-b", 1, 60);	/* a genuine in-quota GPU job */
	ck_assert_int_eq(gq_view_compute(v), 0);
	g = gq_view_job(v, 5);
	/* contract: quota 0, first reclaimed; it must not outrank team-b's
	 * in-quota GPU job nor requeue team-a's GPU jobs */
	ck_assert(!gq_view_preemptable(v, 3, 5));
	ck_assert_uint_lt(g->priority, gq_view_job(v, 6)->priority);
	gq_view_free(v);
}
END_TEST

/*
 * Slurm order before age in the walk: the lowest-order job goes first even
 * when older.  team-a q=0: job 1 (order 5, old), job 2 (order 9, young).
 */
START_TEST(walk_lowest_order_first)
{
	gq_view_t *v = view2("team-a", 0, "team-b", 4, 0);

	gq_view_begin(v, 4, 100);
	add(v, "team-a", with_order(running(1, 1, 10), 5));
	add(v, "team-a", with_order(running(2, 1, 20), 9));
	pend(v, 3, "team-b", 1, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_lt(gq_view_preempt_rank(v, 1), gq_view_preempt_rank(v, 2));
	gq_view_free(v);
}
END_TEST

/*
 * multifactor's part (site_order) orders a project's queue before QOS and
 * nice: team-a q=2, C=4.  Job 1 (2 GPUs, QOS order 9, multifactor 100)
 * and job 2 (2 GPUs, order 0, multifactor 5000, submitted later): job 2
 * is first in team-a's queue, A=2 in quota; job 1 A=4, past the quota.
 */
START_TEST(walk_multifactor_before_qos)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	gq_job_in_t j1 = with_order(pending(1, 2, 10), 9),
		    j2 = pending(2, 2, 20);

	j1.site_order = 100;
	j2.site_order = 5000;
	gq_view_begin(v, 4, 100);
	add(v, "team-a", j1);
	add(v, "team-a", j2);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 2)->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(gq_view_job(v, 2)->cum, 2, 1e-9);
	ck_assert_int_ne(gq_view_job(v, 1)->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(gq_view_job(v, 1)->cum, 4, 1e-9);
	ck_assert_uint_gt(gq_view_job(v, 2)->priority,
			  gq_view_job(v, 1)->priority);
	gq_view_free(v);
}
END_TEST

/*
 * A requeued job keeps its place in its project's queue: Slurm resets its
 * submit time, so the queue goes by job id (the order of submission).
 * team-a (q 1) pends job 7 (submitted at 50) and job 3, requeued at 90
 * (submit time 90): job 3 comes first, in quota (A = 1); job 7: A = 2.
 */
START_TEST(requeued_job_keeps_its_place)
{
	gq_view_t *v = view2("team-a", 1, "team-b", 1, 0);

	gq_view_begin(v, 2, 100);
	pend(v, 7, "team-a", 1, 50);
	pend(v, 3, "team-a", 1, 90);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 3)->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(gq_view_job(v, 3)->cum, 1, 1e-9);
	ck_assert_int_ne(gq_view_job(v, 7)->band, GQ_BAND_IN_QUOTA);
	ck_assert_uint_gt(gq_view_job(v, 3)->priority,
			  gq_view_job(v, 7)->priority);
	gq_view_free(v);
}
END_TEST

/*
 * gpu_limit holds: team-a q=1 L=2 alone on C=8 pends four 1-GPU jobs.
 * f_a = min(D=4, L=2) = 2.  A: 1 in quota, 2 fair share, the third would
 * make 3 > L: held; held jobs do not add to A, so the fourth is held too.
 */
START_TEST(limit_holds_jobs_past_it)
{
	gq_project_cfg_t p[1] = { proj("team-a", 1, 1, 2) };
	gq_config_t cfg = { .projects = p, .nprojects = 1 };
	gq_view_t *v = gq_view_create(&cfg);
	uint32_t id;

	gq_view_begin(v, 8, 100);
	for (id = 1; id <= 4; id++)
		pend(v, id, "team-a", 1, id);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 2, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 1)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 1)->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 2)->band, GQ_BAND_FAIR_SHARE);
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_LIMIT);
	ck_assert_int_eq(gq_view_job(v, 4)->hold, GQ_HOLD_LIMIT);

	/* two of them run: the others stay held; a late one is held too */
	gq_view_begin(v, 8, 200);
	run(v, 1, "team-a", 1, 150);
	run(v, 2, "team-a", 1, 150);
	pend(v, 3, "team-a", 1, 3);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_LIMIT);
	{
		gq_job_in_t in = { .id = 9, .state = GQ_JOB_PENDING, .gpus = 1,
				.tasks = 1, .requeueable = true };

		ck_assert_int_eq(gq_view_add_job(v, "team-a", &in)->hold,
				 GQ_HOLD_LIMIT);
	}
	gq_view_free(v);
}
END_TEST

/*
 * Work that cannot be requeued starts only inside quota: team-a q=2 runs
 * one GPU; interactive job 2 (1 GPU) gives A=2 <= q: may start; interactive
 * job 3 would make A=3 > q: held; a batch job 4 behind it (A=3) is not held:
 * it runs over quota where it can be reclaimed.
 */
START_TEST(not_requeueable_only_inside_quota)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);

	gq_view_begin(v, 8, 100);
	run(v, 1, "team-a", 1, 10);
	add(v, "team-a", no_requeue(pending(2, 1, 20)));
	add(v, "team-a", no_requeue(pending(3, 1, 30)));
	pend(v, 4, "team-a", 1, 40);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_NOT_REQUEUEABLE);
	ck_assert_int_eq(gq_view_job(v, 4)->hold, GQ_HOLD_NONE);
	ck_assert_double_eq_tol(gq_view_job(v, 4)->cum, 3, 1e-9);
	gq_view_free(v);
}
END_TEST

/*
 * A requeued job waits for its begin time and then may start before the
 * next pass sees it eligible: it is held in advance when it would pass the
 * limit.  team-a q=1 L=2 runs jobs 1 and 2; job 3 (requeued, begins later)
 * would make 3 > 2: held; it is not demand (D = 2).  On team-b (no limit)
 * a job that begins later is not held.
 */
START_TEST(begins_later_held_in_advance)
{
	gq_project_cfg_t p[2] = { proj("team-a", 1, 1, 2),
				  proj("team-b", 1, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 2, NULL, 0);
	gq_job_in_t later = pending(3, 1, 30);

	later.state = GQ_JOB_WAITING;
	later.begins_later = true;
	gq_view_begin(v, 8, 100);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 1, 20);
	add(v, "team-a", later);
	later.id = 4;
	add(v, "team-b", later);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_LIMIT);
	ck_assert_int_eq(gq_view_job(v, 4)->hold, GQ_HOLD_NONE);
	ck_assert_uint_eq(project(v, "team-a")->pending, 0);
	/* the same between passes (a requeue seen by priority_p_set) */
	later.id = 5;
	ck_assert_int_eq(add(v, "team-a", later)->hold, GQ_HOLD_LIMIT);
	gq_view_free(v);
}
END_TEST

/*
 * Held jobs are no demand, so they take no fair share from others
 * (docs/MODEL.md "Terms": held jobs are not eligible).  C=4; p (q=1) runs
 * 1 and has 3 interactive jobs held (they may only run in quota); r (q=1)
 * pends 4 batch jobs.  D_p = 1 -> f_r = 3 (counting the held jobs would
 * give f_p = 2, f_r = 2, and r's third job "over fair share").
 */
START_TEST(held_nonrequeueable_inflates_share)
{
	gq_project_cfg_t p[2] = { proj("p", 1, 1, GQ_NO_LIMIT),
				  proj("r", 1, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 2, NULL, 0);
	uint32_t id;

	gq_view_begin(v, 4, 100);
	run(v, 1, "p", 1, 1);
	for (id = 2; id <= 4; id++)
	{
		gq_job_in_t in = pending(id, 1, id);

		in.requeueable = false;
		add(v, "p", in);
	}
	for (id = 5; id <= 8; id++)
		pend(v, id, "r", 1, id);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_NOT_REQUEUEABLE);
	ck_assert_double_eq_tol(gq_view_project(v, 1)->share, 3, 1e-9);
	gq_view_free(v);
}
END_TEST

Suite *queue_suite(void)
{
	Suite *s = suite_create("queue");
	TCase *tc;

	tc = tcase_create("a job's band: its A against quota and fair share, first fit");
	tcase_add_test(tc, over_quota_job_in_fair_share_band);
	tcase_add_test(tc, interleaving_by_share);
	tcase_add_test(tc, large_head_job_keeps_smaller_in_quota);
	tcase_add_test(tc, zero_gpu_job_reclaims_as_in_quota);
	suite_add_tcase(s, tc);
	tc = tcase_create("a queue goes in Slurm's order, multifactor first, by job id");
	tcase_add_test(tc, walk_lowest_order_first);
	tcase_add_test(tc, walk_multifactor_before_qos);
	tcase_add_test(tc, requeued_job_keeps_its_place);
	suite_add_tcase(s, tc);
	tc = tcase_create("holds: past gpu_limit, not requeueable outside quota, begin time ahead");
	tcase_add_test(tc, limit_holds_jobs_past_it);
	tcase_add_test(tc, not_requeueable_only_inside_quota);
	tcase_add_test(tc, begins_later_held_in_advance);
	suite_add_tcase(s, tc);
	tc = tcase_create("demand leaves held jobs out");
	tcase_add_test(tc, held_nonrequeueable_inflates_share);
	suite_add_tcase(s, tc);
	tc = tcase_create("a pass answers from the jobs as they are now");
	suite_add_tcase(s, tc);
	return s;
}
