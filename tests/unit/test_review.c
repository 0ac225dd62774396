/*
 * test_review.c - an independent review's counterexamples to the model.
 * Each comment describes a defect as the review found it (2026-11-30, on
 * the code before the fix); each test asserts the behaviour docs/MODEL.md
 * promises, and passes since the fix.
 */
#include <check.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "core/state.h"
#include "core/view.h"
#include "helpers.h"

/*
 * R1. Floors must hold "whatever subset Slurm ends up requeueing".  Room
 * sets are chosen per preemptor with a fresh budget, so their union with
 * the usual set (or with other preemptors' room sets) exceeds a_v - q_v.
 * 2 nodes x 2 GPUs, team-a (q=2) holds x1..x4 alternately on n0/n1.
 * team-b (q=2) pends b1: 2 GPUs on one node (room set {x3,x1});
 * team-c (q=1) pends c1: 1 GPU (usual set {x4,x3}).
 * Union {x1,x3,x4} = 3 GPUs > a - q = 2: team-a can end at 1 < quota.
 */
START_TEST(room_sets_union_breaks_floor)
{
	gq_project_cfg_t p[3] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT),
				  proj("team-c", 1, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 3, NULL, 0);
	gq_job_in_t in;
	uint32_t id, union_gpus = 0;

	gq_view_begin(v, 4, 100);
	gq_view_set_nodes(v, 2);
	for (id = 1; id <= 4; id++) {
		run(v, id, "team-a", 1, id);
		gq_view_place(v, id, (id + 1) % 2, 1);
	}
	in = pending(5, 2, 50);
	in.gpus_per_node = 2;
	in.nodes = 1;
	add(v, "team-b", in);
	in = pending(6, 1, 60);
	in.gpus_per_node = 1;
	in.nodes = 1;
	add(v, "team-c", in);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 5)->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(gq_view_job(v, 6)->band, GQ_BAND_IN_QUOTA);
	for (id = 1; id <= 4; id++)
		if (gq_view_preemptable(v, id, 5) ||
		    gq_view_preemptable(v, id, 6))
			union_gpus += 1;
	/* contract: at most a_v - floor_v = 4 - 2 */
	ck_assert_uint_le(union_gpus, 2);
	gq_view_free(v);
}
END_TEST

/*
 * R2. Candidates are not re-budgeted when the victim project's allocation
 * drops between passes.  team-a (q=2) holds x1..x4 (1 GPU): candidates
 * x4, x3.  x1 (not a candidate) is requeued (node failure: Slurm calls
 * priority_p_set -> gq_view_add_late).  team-a now holds 3 and may lose
 * 1, yet both x3 and x4 stay preemptable: it can end at 1 < quota.
 */
START_TEST(stale_candidates_after_requeue)
{
	gq_project_cfg_t p[2] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 2, NULL, 0);
	gq_job_in_t in = { .id = 1, .state = GQ_JOB_PENDING, .gpus = 1,
			.tasks = 1, .requeueable = true, .submit_time = 1 };
	uint32_t id, sum = 0;

	gq_view_begin(v, 4, 100);
	for (id = 1; id <= 4; id++)
		run(v, id, "team-a", 1, id);
	pend(v, 5, "team-b", 2, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_add_job(v, "team-a", &in));
	ck_assert_uint_eq(gq_view_project(v, gq_view_find_project(v, "team-a"))->alloc, 3);
	for (id = 2; id <= 4; id++)
		sum += gq_view_preemptable(v, id, 5);
	ck_assert_uint_le(sum, 1);	/* a_v - q_v = 3 - 2 */
	gq_view_free(v);
}
END_TEST

/*
 * R3. A job that needs no GPU is "in quota" for any project at or below
 * its quota -- including an unlisted account (quota 0) -- gets the very
 * top priority, and may quota-reclaim GPU jobs of others.
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
	fprintf(stderr, "R3: guest CPU job band=%s prio=%u; team-b GPU job prio=%u; guest may requeue team-a x3: %d\n",
		gq_band_name(g->band), g->priority, gq_view_job(v, 6)->priority,
		gq_view_preemptable(v, 3, 5));
	ck_assert(!gq_view_preemptable(v, 3, 5));
	ck_assert_uint_lt(g->priority, gq_view_job(v, 6)->priority);
	gq_view_free(v);
}
END_TEST

/*
 * R4. A pending job array adds one task's GPUs to A_k (demand counts all
 * tasks).  team-a q=1 L=2, idle C=8: array of 4 x 1 GPU.  Slurm starts
 * several tasks of one array record in one scheduling pass
 * (job_scheduler.c "Try starting another task of the job array"), so with
 * no hold all 4 start: 4 > L.  And job 2 behind it sees A = 2 instead of
 * 5: not held either.
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
	/* the array's 4 tasks; job 2, held by the limit, is not demand (R5) */
	ck_assert_uint_eq(gq_view_project(v, 0)->pending, 4);
	fprintf(stderr, "R4: array record hold=%d band=%s cum=%g; job 2 hold=%d cum=%g\n",
		gq_view_job(v, 1)->hold, gq_band_name(gq_view_job(v, 1)->band),
		gq_view_job(v, 1)->cum, gq_view_job(v, 2)->hold, gq_view_job(v, 2)->cum);
	/* the array may start 2 tasks (the plugin throttles it to 2):
	 * job 2 comes after them: A = 3 > L = 2 */
	ck_assert_uint_eq(gq_view_job(v, 1)->tasks_now, 2);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_LIMIT);
	gq_view_free(v);
}
END_TEST

/*
 * R5. Demand counts jobs gpuquota itself holds (limit, non-requeueable),
 * which the contract excludes (docs/MODEL.md "Terms": held jobs are not
 * eligible).  With
 * a department the excess share is stranded: C=8, d (q=0) holds p1 (q=0,
 * L=1) demanding 8; p3 (q=0) outside demands 8.  p1 can use 1, so p3's
 * fair share should be 7; the code gives d 4, p1 1, p3 4: 3 GPUs to
 * nobody.
 */
START_TEST(held_demand_strands_share)
{
	gq_project_cfg_t p[2] = { proj("p1", 0, 1, 1),
				  proj("p3", 0, 1, GQ_NO_LIMIT) };
	gq_dept_cfg_t d[1] = { dept("d", 0, GQ_NO_LIMIT) };
	gq_view_t *v;
	uint32_t id = 1;
	int k;

	p[0].department = 0;
	v = view_of(p, 2, d, 1);
	gq_view_begin(v, 8, 100);
	for (k = 0; k < 8; k++) {
		pend(v, id, "p1", 1, id);
		id++;
		pend(v, id, "p3", 1, id);
		id++;
	}
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(gq_view_project(v, 0)->share, 1, 1e-9);
	ck_assert_double_eq_tol(gq_view_project(v, 1)->share, 7, 1e-9);
	gq_view_free(v);
}
END_TEST

/*
 * R5b. Same without departments: held non-requeueable jobs inflate f_p.
 * C=4; p (q=1) runs 1 and has 3 interactive jobs held (may only run in
 * quota); r (q=1) pends 4 batch jobs.  D_p should be 1 -> f_r = 3;
 * code: f_p = 2, f_r = 2 (r's third job "over fair share").
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

/*
 * R6. After a config reload and before the next pass, a job submitted by
 * a project already at its gpu_limit must be held: priority_p_set answers
 * from the state's view, which is the last good pass until a pass on the
 * new config succeeds (never an empty view).
 */
START_TEST(reload_window_ignores_limit)
{
	char *path = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1, \"gpu_limit\": 2}]}");
	char err[GQ_ERR_MAX];
	gq_job_in_t in = { .id = 9, .state = GQ_JOB_PENDING, .gpus = 1,
			   .tasks = 1, .requeueable = true };
	gq_view_t *v;
	const gq_job_t *j;
	uint32_t id;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(path, err, sizeof(err)), 0);
	v = gq_state_next()->view[0];
	gq_view_begin(v, 8, 100);
	for (id = 1; id <= 2; id++)	/* team-a runs 2 GPUs */
		run(v, id, "team-a", 1, id);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	/* the reload (scontrol reconfigure), no pass yet */
	ck_assert_int_eq(gq_state_load(path, err, sizeof(err)), 0);
	j = gq_view_add_job(gq_state()->view->view[0], "team-a", &in);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(j->hold, GQ_HOLD_LIMIT);	/* 3 > L = 2 */
	gq_state_clear();
	gq_state_unlock();
	unlink(path);
	free(path);
}
END_TEST

/*
 * R7 (contract gap). A department over its quota whose projects are each
 * within their own (oversubscribed) quotas gives nothing back to an
 * in-quota project outside: C=8, d (q=4) holds p1 (q=4) 4 and p2 (q=4) 4;
 * p3 (q=4, no department) pends 1 GPU, in quota.  d is 4 over q_d.
 */
START_TEST(dept_over_quota_not_reclaimable)
{
	gq_project_cfg_t p[3] = { proj("p1", 4, 1, GQ_NO_LIMIT),
				  proj("p2", 4, 1, GQ_NO_LIMIT),
				  proj("p3", 4, 1, GQ_NO_LIMIT) };
	gq_dept_cfg_t d[1] = { dept("d", 4, GQ_NO_LIMIT) };
	gq_view_t *v;
	uint32_t id, n = 0;

	p[0].department = 0;
	p[1].department = 0;
	v = view_of(p, 3, d, 1);
	gq_view_begin(v, 8, 100);
	for (id = 1; id <= 4; id++)
		run(v, id, "p1", 1, id);
	for (id = 5; id <= 8; id++)
		run(v, id, "p2", 1, id);
	pend(v, 9, "p3", 1, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 9)->band, GQ_BAND_IN_QUOTA);
	for (id = 1; id <= 8; id++)
		n += gq_view_preemptable(v, id, 9);
	fprintf(stderr, "R7: f_d=%g f_p1=%g f_p2=%g f_p3=%g, victims for p3: %u\n",
		gq_view_dept(v, 0)->share, gq_view_project(v, 0)->share,
		gq_view_project(v, 1)->share, gq_view_project(v, 2)->share, n);
	ck_assert_uint_ge(n, 1);
	gq_view_free(v);
}
END_TEST

/*
 * R8. A job held by its department's limit still adds to its project's
 * A_k (the project walk runs before the department walk), so the job
 * behind it loses the in-quota band it has and cannot reclaim.
 * C=4; d (q=8, L=2) holds p1 (q=4); p2 (q=0, outside) runs 4.  p1 pends
 * j1 (4 GPUs: held, d would pass L=2) then j2 (1 GPU): A should be 1 <= 4
 * (in quota, d at 1 <= 8) -> quota reclaim from p2 (4 over its quota).
 */
START_TEST(dept_held_job_still_counts_in_project_walk)
{
	gq_project_cfg_t p[2] = { proj("p1", 4, 1, GQ_NO_LIMIT),
				  proj("p2", 0, 1, GQ_NO_LIMIT) };
	gq_dept_cfg_t d[1] = { dept("d", 8, 2) };
	gq_view_t *v;
	uint32_t id;

	p[0].department = 0;
	v = view_of(p, 2, d, 1);
	gq_view_begin(v, 4, 100);
	for (id = 1; id <= 4; id++)
		run(v, id, "p2", 1, id);
	pend(v, 5, "p1", 4, 50);
	pend(v, 6, "p1", 1, 60);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 5)->hold, GQ_HOLD_DEPT_LIMIT);
	ck_assert_int_eq(gq_view_job(v, 6)->hold, GQ_HOLD_NONE);
	fprintf(stderr, "R8: j2 cum=%g band=%s, may reclaim p2's job 4: %d\n",
		gq_view_job(v, 6)->cum, gq_band_name(gq_view_job(v, 6)->band),
		gq_view_preemptable(v, 4, 6));
	ck_assert_int_eq(gq_view_job(v, 6)->band, GQ_BAND_IN_QUOTA);
	gq_view_free(v);
}
END_TEST

Suite *review_suite(void)
{
	Suite *s = suite_create("review");
	TCase *tc = tcase_create("review");

	tcase_add_test(tc, room_sets_union_breaks_floor);
	tcase_add_test(tc, stale_candidates_after_requeue);
	tcase_add_test(tc, zero_gpu_job_reclaims_as_in_quota);
	tcase_add_test(tc, array_tasks_pass_limit);
	tcase_add_test(tc, held_demand_strands_share);
	tcase_add_test(tc, held_nonrequeueable_inflates_share);
	tcase_add_test(tc, reload_window_ignores_limit);
	tcase_add_test(tc, dept_over_quota_not_reclaimable);
	tcase_add_test(tc, dept_held_job_still_counts_in_project_walk);
	suite_add_tcase(s, tc);
	return s;
}
