/*
 * test_view.c - one pass on a view (src/core/view.c): computed again from
 * the same inputs it answers as a fresh one; a job added twice counts
 * once; adds between passes (gq_view_add_late) only on a computed view,
 * and a job submitted between passes may reclaim at once; a job gone
 * between passes (requeued, ended) is no candidate any more.
 * docs/MODEL.md "Reclaim", docs/DEVELOPING.md "One reader, one pass".
 */
#include <check.h>
#include <stdio.h>

#include "core/view.h"
#include "helpers.h"

/* The jobs of a pass: team-a runs 1 and 4, team-b pends 2 and 5. */
static void _recompute_jobs(gq_view_t *v)
{
	run(v, 1, "team-a", 2, 10);
	pend(v, 2, "team-b", 1, 20);
	run(v, 4, "team-a", 1, 40);
	pend(v, 5, "team-b", 2, 50);
}

/*
 * The late add has its own name: before the pass is computed it adds
 * nothing (a pass stores with gq_view_add_job); after, it places the job
 * as gq_view_add_job does.  team-a (q 1) runs 1 GPU on C = 2; job 9
 * added late pends over quota (A = 2), in team-a's queue behind nothing.
 */
START_TEST(late_add_only_after_the_pass)
{
	gq_view_t *v = view2("team-a", 1, "team-b", 1, 0);
	gq_job_in_t in = pending(9, 1, 95);
	const gq_job_t *j;

	gq_view_begin(v, 2, 100);
	run(v, 1, "team-a", 1, 10);
	ck_assert_ptr_null(gq_view_add_late(v, "team-a", &in));
	ck_assert_ptr_null(gq_view_job(v, 9));
	ck_assert_int_eq(gq_view_compute(v), 0);
	j = gq_view_add_late(v, "team-a", &in);
	ck_assert_ptr_nonnull(j);
	ck_assert_ptr_eq(gq_view_job(v, 9), j);
	ck_assert_int_ne(j->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(j->cum, 2, 1e-9);
	gq_view_free(v);
}
END_TEST

/*
 * A pass computed again without gq_view_begin, after jobs came and went
 * between (a late running job in another project, a job gone, a job
 * re-added in another state), answers as a fresh pass over the same
 * jobs: the pass regroups from the records as they are now, not from
 * what it noted when the jobs were first added.
 */
START_TEST(recompute_after_changes_as_fresh)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	gq_view_t *f = view2("team-a", 2, "team-b", 2, 0);
	uint32_t id;

	gq_view_begin(v, 6, 100);
	_recompute_jobs(v);
	ck_assert_int_eq(gq_view_compute(v), 0);
	run(v, 3, "team-b", 1, 30);	/* late, running */
	gq_view_job_gone(v, 4);		/* waits now */
	run(v, 2, "team-b", 1, 60);	/* pending -> running */
	ck_assert_int_eq(gq_view_compute(v), 0);

	gq_view_begin(f, 6, 100);
	_recompute_jobs(f);
	run(f, 3, "team-b", 1, 30);
	add(f, "team-a", (gq_job_in_t){ .id = 4, .state = GQ_JOB_WAITING,
					.gpus = 1, .tasks = 1,
					.requeueable = true,
					.start_time = 40 });
	run(f, 2, "team-b", 1, 60);
	ck_assert_int_eq(gq_view_compute(f), 0);

	ck_assert_uint_eq(project(v, "team-a")->alloc, 2);
	ck_assert_uint_eq(project(v, "team-b")->alloc, 2);
	for (id = 1; id <= 5; id++) {
		const gq_job_t *a = gq_view_job(v, id), *b = gq_view_job(f, id);

		ck_assert_int_eq(a->in.state, b->in.state);
		ck_assert_int_eq(a->project, b->project);
		if (a->in.state == GQ_JOB_RUNNING) {
			ck_assert_uint_eq(a->victim, b->victim);
			ck_assert_uint_eq(a->preempt_rank, b->preempt_rank);
			ck_assert_int_eq(a->over_quota, b->over_quota);
		} else {	/* a running job keeps its old priority */
			ck_assert_int_eq(a->band, b->band);
			ck_assert_uint_eq(a->priority, b->priority);
			ck_assert_int_eq(a->hold, b->hold);
		}
	}
	ck_assert_uint_ne(gq_view_preempt_rank(v, 3), UINT32_MAX);
	ck_assert_double_eq_tol(project(v, "team-a")->share,
				project(f, "team-a")->share, 1e-9);
	ck_assert_double_eq_tol(project(v, "team-b")->share,
				project(f, "team-b")->share, 1e-9);
	gq_view_free(v);
	gq_view_free(f);
}
END_TEST

/*
 * The same job twice in a pass (Slurm lists a job once; a reader may not):
 * the last one counts, as one task when it names none.  team-a pends job
 * 5 of 2 GPUs, added twice with tasks 0: pending 2, not 0 or 4.
 */
START_TEST(same_job_twice_counts_once)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	gq_job_in_t in = pending(5, 2, 5);

	in.tasks = 0;
	gq_view_begin(v, 4, 100);
	add(v, "team-a", in);
	add(v, "team-a", in);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(project(v, "team-a")->pending, 2);
	ck_assert_uint_eq(gq_view_job(v, 5)->in.tasks, 1);
	gq_view_free(v);
}
END_TEST

/*
 * Candidates are budgeted again when the victim project's allocation drops
 * between passes, so the floor holds.  team-a (q=2) holds x1..x4 (1 GPU
 * each): candidates x4, x3.  x1 (not a candidate) is requeued (node
 * failure: Slurm calls priority_p_set -> gq_view_add_late).  team-a now
 * holds 3 and may lose 1: x3 and x4 may not both stay preemptable, or it
 * could end at 1 < quota.
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
 * A job submitted between passes (priority_p_set on submit): placed at the
 * tail of its project's queue, and can reclaim at once.  Pass with a1, a2,
 * b1 running (f_a=3, f_b=1); b2 arrives late: A = 1 + 1 = 2 <= q_b.
 * Victims of that pass: team-a quota budget 3-2 = 1 -> a1.
 */
START_TEST(late_submit_reclaims)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	gq_job_in_t in = { .id = 4, .state = GQ_JOB_PENDING, .gpus = 1, .tasks = 1,
			.requeueable = true, .submit_time = 40 };
	const gq_job_t *b2, *again;

	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 2, 20);
	run(v, 3, "team-b", 1, 30);
	ck_assert_int_eq(gq_view_compute(v), 0);
	b2 = gq_view_add_job(v, "team-b", &in);
	ck_assert_ptr_nonnull(b2);
	ck_assert_int_eq(b2->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(b2->cum, 2, 1e-9);
	ck_assert(gq_view_preemptable(v, 1, 4));
	ck_assert(!gq_view_preemptable(v, 2, 4));
	/* set again (an update): keeps its place, A is not counted twice */
	again = gq_view_add_job(v, "team-b", &in);
	ck_assert_double_eq_tol(again->cum, 2, 1e-9);
	/* a second late job of team-b: A = 3 > q: not in quota */
	in.id = 5;
	ck_assert_int_ne(gq_view_add_job(v, "team-b", &in)->band,
			 GQ_BAND_IN_QUOTA);
	/* a1 requeued: priority_p_set for it moves it to pending */
	in.id = 1;
	ck_assert_int_eq(gq_view_add_job(v, "team-a", &in)->in.state,
			 GQ_JOB_PENDING);
	ck_assert_uint_eq(project(v, "team-a")->alloc, 2);
	gq_view_free(v);
}
END_TEST

Suite *view_suite(void)
{
	Suite *s = suite_create("view");
	TCase *tc = tcase_create("view");

	tcase_add_test(tc, late_add_only_after_the_pass);
	tcase_add_test(tc, recompute_after_changes_as_fresh);
	tcase_add_test(tc, same_job_twice_counts_once);
	tcase_add_test(tc, stale_candidates_after_requeue);
	tcase_add_test(tc, late_submit_reclaims);
	suite_add_tcase(s, tc);
	return s;
}
