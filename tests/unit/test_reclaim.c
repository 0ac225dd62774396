/*
 * test_reclaim.c - Reclaim: which running jobs an in-quota or fair-share
 * job may take.  Victims keep their project at or above its floor
 * (max(quota, fair share)) whatever subset Slurm requeues, the most
 * over-served project and, inside it, the job whose requeue loses the
 * least work (the latest saved: the youngest without checkpoints) go
 * first, jobs that cannot be requeued or are younger than min_runtime are
 * never victims.  docs/MODEL.md "Reclaim" (Reclaim order).
 */
#include <check.h>
#include <stdio.h>

#include "core/view.h"
#include "helpers.h"

/*
 * Floors hold whatever subset is taken: team-a q=1 holds 4 one-GPU jobs and
 * a 2-GPU job (a=6); team-b (q=4) submits 2.  Budget a-q = 5: the walk
 * (youngest first: ids 5(2 GPUs),4,3,2,1) takes 5 (2), 4, 3, 2 (1 each) =5
 * and skips 1: team-a keeps at least 1 GPU.
 */
START_TEST(floor_bounds_candidate_gpus)
{
	gq_view_t *v = view2("team-a", 1, "team-b", 4, 0);
	uint32_t id, sum = 0;

	gq_view_begin(v, 6, 100);
	for (id = 1; id <= 4; id++)
		run(v, id, "team-a", 1, id);
	run(v, 5, "team-a", 2, 5);
	pend(v, 6, "team-b", 2, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	for (id = 1; id <= 5; id++)
		if (gq_view_preemptable(v, id, 6))
			sum += gq_view_job(v, id)->in.gpus;
	ck_assert_uint_eq(sum, 5);
	ck_assert(!gq_view_preemptable(v, 1, 6));
	/* walk order is reclaim order: youngest first */
	ck_assert_uint_lt(gq_view_preempt_rank(v, 5), gq_view_preempt_rank(v, 4));
	ck_assert_uint_lt(gq_view_preempt_rank(v, 4), gq_view_preempt_rank(v, 2));
	gq_view_free(v);
}
END_TEST

/*
 * Fair-share reclaim: C=6, a q=1 w=1, b q=1 w=1.  a holds 5, b holds 1 and
 * pends 2.  D_a=5, D_b=3: deserved 1,1; surplus 4 -> 2 each: f_a=3, f_b=3.
 * b's job: A=1+2=3 > q_b, <= f_b: fair-share band; a may lose
 * a - max(q, f) = 2.  With a second pending 1-GPU job: A=4 > f_b: over, and
 * takes nothing.
 */
START_TEST(fair_share_reclaim_floor)
{
	gq_view_t *v = view2("a", 1, "b", 1, 0);
	uint32_t id, sum = 0;

	gq_view_begin(v, 6, 100);
	for (id = 1; id <= 5; id++)
		run(v, id, "a", 1, id);
	run(v, 6, "b", 1, 6);
	pend(v, 7, "b", 2, 50);
	pend(v, 8, "b", 1, 60);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "a")->share, 3, 1e-9);
	ck_assert_double_eq_tol(project(v, "b")->share, 3, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 7)->band, GQ_BAND_FAIR_SHARE);
	ck_assert_int_eq(gq_view_job(v, 8)->band, GQ_BAND_OVER);
	for (id = 1; id <= 5; id++) {
		if (gq_view_preemptable(v, id, 7))
			sum += 1;
		ck_assert(!gq_view_preemptable(v, id, 8));
	}
	ck_assert_uint_eq(sum, 2);
	gq_view_free(v);
}
END_TEST

/*
 * A project at its quota submits again into a full cluster: team-a holds 2
 * (q=2), team-b holds 2 (q=2), team-a submits 1 GPU: A=3 > q; D_a=3, D_b=2,
 * f_a=2: over its fair share: it may take nothing.
 */
START_TEST(at_quota_preempts_nothing)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	uint32_t ee;

	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 2, 10);
	run(v, 2, "team-b", 1, 20);
	run(v, 3, "team-b", 1, 30);
	pend(v, 4, "team-a", 1, 40);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 4)->band, GQ_BAND_OVER);
	for (ee = 1; ee <= 3; ee++)
		ck_assert(!gq_view_preemptable(v, ee, 4));
	gq_view_free(v);
}
END_TEST

/*
 * No ping-pong: after the quick start's reclaim, a1 pends again.  team-a
 * holds 2 (a2), team-b 2 (b1, b2); D_a = 3, D_b = 2: f = 2, 2.  a1:
 * A = 2 + 1 = 3 > q_a and > f_a: over its fair share, it takes nothing
 * back, and team-b (at its quota and fair share) offers no candidate.
 */
START_TEST(no_ping_pong_after_reclaim)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	uint32_t id;

	gq_view_begin(v, 4, 200);
	pend(v, 1, "team-a", 1, 150);
	run(v, 2, "team-a", 2, 20);
	run(v, 3, "team-b", 1, 30);
	run(v, 4, "team-b", 1, 160);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 1)->band, GQ_BAND_OVER);
	for (id = 2; id <= 4; id++)
		ck_assert(!gq_view_preemptable(v, id, 1));
	ck_assert(!(gq_view_job(v, 4)->victim));
	ck_assert(!(gq_view_job(v, 3)->victim));
	gq_view_free(v);
}
END_TEST

/*
 * The quick start, step 4: a1 (1 GPU, id 1) and a2 (2 GPUs, id 2) of
 * team-a, b1 (1, id 3) of team-b run on C=4; b2 (1, id 4) of team-b pends.
 * D_a=3, D_b=2 -> f_a=2, f_b=2.  b2: A=1+1=2 <= q_b=2: in quota.
 * team-a may lose a_a - q_a = 1 GPU: the walk (youngest first) skips a2
 * (2 GPUs) and takes a1.
 */
START_TEST(quick_start_reclaims_a1)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);

	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 2, 20);
	run(v, 3, "team-b", 1, 30);
	pend(v, 4, "team-b", 1, 40);
	ck_assert_int_eq(gq_view_compute(v), 0);

	ck_assert_uint_eq(project(v, "team-a")->alloc, 3);
	ck_assert_uint_eq(project(v, "team-b")->alloc, 1);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 2, 1e-9);
	ck_assert_double_eq_tol(project(v, "team-b")->share, 2, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 4)->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(gq_view_job(v, 4)->cum, 2, 1e-9);

	ck_assert(gq_view_preemptable(v, 1, 4));	/* a1 */
	ck_assert(!gq_view_preemptable(v, 2, 4));	/* a2: team-a below quota */
	ck_assert(!gq_view_preemptable(v, 3, 4));	/* own project */
	ck_assert(gq_view_job(v, 1)->over_quota);	/* a1's GPU: beyond q */
	ck_assert(!gq_view_job(v, 2)->over_quota);
	ck_assert(!gq_view_job(v, 3)->over_quota);
	ck_assert(!gq_view_preemptable(v, 4, 4));	/* not running */
	ck_assert(!gq_view_preemptable(v, 1, 99));	/* unknown preemptor */
	/* every running job that could ever be a victim has a rank; the
	 * youngest (a2) comes first in the walk, before a1 */
	ck_assert_uint_lt(gq_view_preempt_rank(v, 2), gq_view_preempt_rank(v, 1));
	ck_assert_uint_eq(gq_view_preempt_rank(v, 4), UINT32_MAX);
	gq_view_free(v);
}
END_TEST

/*
 * Most over-served project first: C=8, p q=1 holds 4 (ratio vs
 * max(q,f)), r q=2 holds 4; s (q=5) pends 5.  D: p 4, r 4, s 5: quotas
 * 1+2+5=8=C, no surplus: f = 1, 2, 5.  Over-service: p 4/1=4, r 4/2=2:
 * every p candidate ranks before every r candidate.
 */
START_TEST(most_over_served_first)
{
	gq_project_cfg_t p[3] = { proj("p", 1, 1, GQ_NO_LIMIT),
				  proj("r", 2, 1, GQ_NO_LIMIT),
				  proj("s", 5, 1, GQ_NO_LIMIT) };
	gq_config_t cfg = { .projects = p, .nprojects = 3 };
	gq_view_t *v = gq_view_create(&cfg);

	gq_view_begin(v, 8, 100);
	run(v, 1, "r", 2, 5);
	run(v, 2, "r", 2, 6);
	run(v, 3, "p", 1, 7);
	run(v, 4, "p", 1, 8);
	run(v, 5, "p", 2, 9);
	pend(v, 6, "s", 5, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "s")->share, 5, 1e-9);
	/* p: budget 3: walk 5 (2), 4 (1) -> 3; job 3 skipped */
	ck_assert(gq_view_preemptable(v, 5, 6));
	ck_assert(gq_view_preemptable(v, 4, 6));
	ck_assert(!gq_view_preemptable(v, 3, 6));
	/* r: budget 2: job 2 (youngest, 2 GPUs) */
	ck_assert(gq_view_preemptable(v, 2, 6));
	ck_assert(!gq_view_preemptable(v, 1, 6));
	/* p (over-service 4) before r (2), each youngest first */
	ck_assert_uint_eq(gq_view_preempt_rank(v, 5), 1);
	ck_assert_uint_eq(gq_view_preempt_rank(v, 4), 2);
	ck_assert_uint_eq(gq_view_preempt_rank(v, 3), 3);
	ck_assert_uint_eq(gq_view_preempt_rank(v, 2), 4);
	ck_assert_uint_eq(gq_view_preempt_rank(v, 1), 5);
	gq_view_free(v);
}
END_TEST

/*
 * Never victims: --no-requeue / interactive jobs, and jobs younger than the
 * minimum runtime (60 s).  team-a q=0 holds three 1-GPU jobs: one not
 * requeueable, one started 30 s ago (now=100, start 70), one eligible.
 */
START_TEST(exempt_jobs_are_never_victims)
{
	gq_view_t *v = view2("team-a", 0, "team-b", 2, 60);

	gq_view_begin(v, 4, 100);
	add(v, "team-a", no_requeue(running(1, 1, 10)));
	run(v, 2, "team-a", 1, 70);
	run(v, 3, "team-a", 1, 20);
	pend(v, 4, "team-b", 1, 90);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(!gq_view_preemptable(v, 1, 4));
	ck_assert(!gq_view_preemptable(v, 2, 4));
	ck_assert(gq_view_preemptable(v, 3, 4));
	/* all three are over team-a's quota of 0, reclaimable or not */
	ck_assert(gq_view_job(v, 1)->over_quota);
	ck_assert(gq_view_job(v, 2)->over_quota);
	ck_assert(gq_view_job(v, 3)->over_quota);

	/* Slurm's PreemptExemptTime, when longer, wins: 90 s > 80 s run */
	gq_view_begin(v, 4, 100);
	run(v, 3, "team-a", 1, 20);
	pend(v, 4, "team-b", 1, 90);
	gq_view_min_runtime_at_least(v, 90);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_min_runtime(v), 90);
	ck_assert(!gq_view_preemptable(v, 3, 4));
	/* and a shorter one does not lower the configured minimum */
	gq_view_begin(v, 4, 100);
	run(v, 3, "team-a", 1, 20);
	pend(v, 4, "team-b", 1, 90);
	gq_view_min_runtime_at_least(v, 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_min_runtime(v), 60);
	ck_assert(gq_view_preemptable(v, 3, 4));
	gq_view_free(v);
}
END_TEST

/*
 * min_runtime 60 s, the clock stepped back an hour: team-a's job 3
 * started at 3700 by the clock then, the pass reads 200.  Its age is
 * unknown (3700 is after 200): it may be a victim now, not once the clock
 * reaches 3760.  Job 2, started at 170 (30 s ago), stays exempt.
 */
START_TEST(min_runtime_after_a_clock_step)
{
	gq_view_t *v = view2("team-a", 0, "team-b", 2, 60);

	gq_view_begin(v, 4, 200);
	run(v, 2, "team-a", 1, 170);
	run(v, 3, "team-a", 1, 3700);
	pend(v, 4, "team-b", 1, 190);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(!gq_view_preemptable(v, 2, 4));
	ck_assert(gq_view_preemptable(v, 3, 4));
	gq_view_free(v);
}
END_TEST

/* The pass of walk_prefers_latest_saved, a1 as given. */
static void _walk_pass(gq_view_t *v, gq_job_in_t a1)
{
	gq_view_begin(v, 4, 400);
	add(v, "team-a", a1);
	run(v, 2, "team-a", 1, 200);
	run(v, 3, "team-a", 1, 300);
	run(v, 4, "team-b", 1, 50);
	pend(v, 9, "team-b", 1, 390);
	ck_assert_int_eq(gq_view_compute(v), 0);
}

/*
 * Reclaim order by the work a requeue loses: C = 4, team-a q = 1 runs a1 (start
 * 100), a2 (start 200), a3 (start 300); team-b (q 3) holds 1 and pends 1
 * at t = 400: A_b = 2 <= 3, in quota; team-a may lose 3 - 1 = 2.
 * Without checkpoints the walk takes the youngest: a3 (loses 100 s), a2
 * (200 s); a1 (300 s) is kept.  a1 checkpointed at 390: it loses 10 s per
 * GPU, the least: a1 and a3 are the candidates, a1 first, a2 kept.
 */
START_TEST(walk_prefers_latest_saved)
{
	gq_view_t *v = view2("team-a", 1, "team-b", 3, 0);
	gq_job_in_t a1 = running(1, 1, 100);

	_walk_pass(v, a1);
	ck_assert(gq_view_preemptable(v, 3, 9));
	ck_assert(gq_view_preemptable(v, 2, 9));
	ck_assert(!gq_view_preemptable(v, 1, 9));

	a1.saved_secs = 290;	/* saved at 390 */
	_walk_pass(v, a1);
	ck_assert(gq_view_preemptable(v, 1, 9));
	ck_assert(gq_view_preemptable(v, 3, 9));
	ck_assert(!gq_view_preemptable(v, 2, 9));
	ck_assert_uint_lt(gq_view_preempt_rank(v, 1), gq_view_preempt_rank(v, 3));

	gq_view_free(v);
}
END_TEST

/*
 * A checkpoint never makes a job a victim that the floors protect:
 * team-a (q 2) runs exactly its quota, a1 checkpointed just now; team-b
 * (q 2) pends 1 into the full cluster (C = 4, team-b holds 2): A_b = 3 >
 * q_b, and team-a is at its floor: no candidate at all.
 */
START_TEST(checkpoint_never_passes_a_floor)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	gq_job_in_t a1 = running(1, 1, 100);

	a1.saved_secs = 299;	/* saved at 399 */
	gq_view_begin(v, 4, 400);
	add(v, "team-a", a1);
	run(v, 2, "team-a", 1, 200);
	run(v, 3, "team-b", 1, 50);
	run(v, 4, "team-b", 1, 60);
	pend(v, 9, "team-b", 1, 390);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(!gq_view_preemptable(v, 1, 9));
	ck_assert(!gq_view_preemptable(v, 2, 9));
	gq_view_free(v);
}
END_TEST

Suite *reclaim_suite(void)
{
	Suite *s = suite_create("reclaim");
	TCase *tc;

	tc = tcase_create("victims keep their project at or above its floor");
	tcase_add_test(tc, floor_bounds_candidate_gpus);
	tcase_add_test(tc, walk_prefers_latest_saved);
	tcase_add_test(tc, checkpoint_never_passes_a_floor);
	tcase_add_test(tc, fair_share_reclaim_floor);
	tcase_add_test(tc, at_quota_preempts_nothing);
	tcase_add_test(tc, no_ping_pong_after_reclaim);
	suite_add_tcase(s, tc);
	tc = tcase_create("most over-served project first, youngest job first");
	tcase_add_test(tc, quick_start_reclaims_a1);
	tcase_add_test(tc, most_over_served_first);
	suite_add_tcase(s, tc);
	tc = tcase_create("not requeueable or under min_runtime: never a victim");
	tcase_add_test(tc, exempt_jobs_are_never_victims);
	tcase_add_test(tc, min_runtime_after_a_clock_step);
	suite_add_tcase(s, tc);
	tc = tcase_create("a job submitted between passes reclaims at once");
	suite_add_tcase(s, tc);
	return s;
}
