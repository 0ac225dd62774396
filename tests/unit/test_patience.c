/*
 * test_patience.c - Patience for loans that end soon
 * (settings.reclaim_patience): an in-quota job waits instead of reclaiming
 * only for a loan (a job its reclaim could take without passing a floor)
 * that ends within the patience on a node that takes work, and while it
 * waits it is tried after the jobs that can start or reclaim.
 * docs/MODEL.md "Reclaim" (Patience for loans that end soon).
 */
#include <check.h>

#include "core/band.h"
#include "core/view.h"
#include "helpers.h"

static gq_view_t *patient_view(gq_project_cfg_t *p, int np, int patience)
{
	gq_config_t cfg = { .projects = p, .nprojects = np };

	cfg.settings.reclaim_patience = patience;
	return gq_view_create(&cfg);
}

static gq_job_in_t ending(uint32_t id, uint32_t gpus, int64_t start,
			  int64_t ends_by)
{
	gq_job_in_t in = running(id, gpus, start);

	in.ends_by = ends_by;
	return in;
}

/*
 * Patience for loans that end soon (settings.reclaim_patience 60 s, now
 * 100).  2 nodes x 2 GPUs: team-a (q 2) runs a1 (n0) and a2 (n1), then
 * a3 on n0 whose time limit ends it at 130 and a4 on n1 with no limit:
 * 2 over its quota, both candidates.  team-b (q 2) submits b1 and b2, 1
 * GPU each, in quota.  b1 (first) waits for a3, which ends within 60 s,
 * and reclaims nothing; b2 finds no loan left (a4 has no end) and
 * reclaims a4.  With a3 ending at 170 (past the patience), or patience 0,
 * both reclaim.
 */
START_TEST(patience_for_loans_that_end_soon)
{
	gq_project_cfg_t p[2] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT) };
	int64_t ends[3] = { 130, 170, 130 };
	int patience[3] = { 60, 60, 0 };

	for (int c = 0; c < 3; c++) {
		gq_config_t cfg = { .projects = p, .nprojects = 2 };
		gq_job_in_t a3 = running(3, 1, 30);
		gq_view_t *v;
		const gq_job_t *b1;

		cfg.settings.reclaim_patience = patience[c];
		ck_assert_ptr_nonnull(v = gq_view_create(&cfg));
		gq_view_begin(v, 4, 100);
		ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
		run(v, 1, "team-a", 1, 10);
		run(v, 2, "team-a", 1, 11);
		a3.ends_by = ends[c];
		add(v, "team-a", a3);
		run(v, 4, "team-a", 1, 31);
		for (uint32_t id = 1; id <= 4; id++)
			ck_assert_int_eq(gq_view_place(v, id, (id + 1) % 2, 1),
					 0);
		pend(v, 20, "team-b", 1, 50);
		pend(v, 21, "team-b", 1, 51);
		ck_assert_int_eq(gq_view_compute(v), 0);
		b1 = gq_view_job(v, 20);
		ck_assert_int_eq(b1->band, GQ_BAND_IN_QUOTA);
		ck_assert_int_eq(gq_view_job(v, 21)->band, GQ_BAND_IN_QUOTA);
		if (c == 0) {
			ck_assert(b1->patient);
			ck_assert_uint_eq(b1->waits_for, 3);
			ck_assert(!gq_view_preemptable(v, 3, 20));
			ck_assert(!gq_view_preemptable(v, 4, 20));
			ck_assert(!gq_view_job(v, 21)->patient);
			ck_assert(gq_view_preemptable(v, 4, 21));
		} else {
			ck_assert(!b1->patient);
			ck_assert(gq_view_preemptable(v, 4, 20));
			ck_assert(gq_view_preemptable(v, 4, 21));
		}
		gq_view_free(v);
	}
}
END_TEST

/*
 * A loan is a job the waiter's reclaim could take without passing a
 * floor.  P = 120 s, now 100.
 *
 * 1 node x 2 GPUs.  team-a (q 1) runs a1 (1 GPU, its time limit ends it at
 * 130, within P): team-a holds 1 = its quota, a1 is no candidate.
 * team-c (no project lists it: q 0) runs c1 (1 GPU, no limit): 1 over
 * its quota, the only candidate.  team-b (q 1) pends b1 (1 GPU): A = 1
 * <= 1, in quota, no idle GPU.  a1 is no loan (it frees nothing b1 could
 * take): b1 is not patient and reclaims c1 now.
 *
 * 1 node x 4 GPUs.  team-b (q 0, w 1) runs b0 (1 GPU, ends at 130) and
 * pends b1 (1 GPU); team-c runs c1, c2, c3 (no limits).  D_b = 2, D_c =
 * 3; nothing deserved by quota, the surplus 4 by weight 1:1: f_b = f_c =
 * 2.  b1: A = 2 > q 0, <= f_b 2: fair share.  b0 is a candidate (team-b
 * 1 over its quota 0: quota reclaim), but of b1's own project: no loan.
 * team-c holds 3 > f 2: may lose 1 to fair-share reclaim, its youngest
 * c3.  b1 is not patient and may take c3.
 */
START_TEST(patience_waits_only_for_loans)
{
	gq_project_cfg_t p[2] = { proj("team-a", 1, 1, GQ_NO_LIMIT),
				  proj("team-b", 1, 1, GQ_NO_LIMIT) };
	gq_project_cfg_t q[1] = { proj("team-b", 0, 1, GQ_NO_LIMIT) };
	gq_view_t *v = patient_view(p, 2, 120);
	const gq_job_t *b1;

	/* an in-quota job is no loan */
	gq_view_begin(v, 2, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 1), 0);
	add(v, "team-a", ending(1, 1, 10, 130));
	run(v, 2, "team-c", 1, 20);
	ck_assert_int_eq(gq_view_place(v, 1, 0, 1), 0);
	ck_assert_int_eq(gq_view_place(v, 2, 0, 1), 0);
	pend(v, 20, "team-b", 1, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	b1 = gq_view_job(v, 20);
	ck_assert_int_eq(b1->band, GQ_BAND_IN_QUOTA);
	ck_assert(!gq_view_job(v, 1)->victim);
	ck_assert(gq_view_job(v, 2)->victim);
	ck_assert(!b1->patient);
	ck_assert(gq_view_preemptable(v, 2, 20));
	ck_assert(!gq_view_preemptable(v, 1, 20));
	gq_view_free(v);

	/* nor is a job of the waiter's own project */
	v = patient_view(q, 1, 120);
	gq_view_begin(v, 4, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 1), 0);
	add(v, "team-b", ending(1, 1, 10, 130));
	run(v, 2, "team-c", 1, 11);
	run(v, 3, "team-c", 1, 12);
	run(v, 4, "team-c", 1, 13);
	for (uint32_t id = 1; id <= 4; id++)
		ck_assert_int_eq(gq_view_place(v, id, 0, 1), 0);
	pend(v, 20, "team-b", 1, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	b1 = gq_view_job(v, 20);
	ck_assert_int_eq(b1->band, GQ_BAND_FAIR_SHARE);
	ck_assert(gq_view_job(v, 1)->victim);	/* team-b over quota 0 */
	ck_assert(!b1->patient);
	ck_assert(gq_view_preemptable(v, 4, 20));
	ck_assert(!gq_view_preemptable(v, 3, 20));	/* team-c keeps 2 */
	gq_view_free(v);
}
END_TEST

/*
 * A loan need not be the job the candidate walk picks (the youngest): the
 * integration test test_patience.  P = 120 s, now 100; 2 nodes x 2 GPUs.
 * team-a (q 2) runs a3 (n0, started 1, its limit ends it at 130), a1 (n0,
 * 2), a2 (n1, 3), a4 (n1, 4): 4, 2 over its quota; the walk offers a4
 * and a2.  team-b (q 2) pends b1 (1 GPU): in quota, no idle GPU.  a3 is
 * older than both, but team-a could lose it and stay at 3 >= 2: a loan.
 * b1 waits for a3 (patient, tried after the in-quota jobs that can
 * reclaim), and reclaims nothing meanwhile.
 */
START_TEST(patience_waits_for_older_loan_over_floor)
{
	gq_project_cfg_t p[2] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT) };
	gq_view_t *v = patient_view(p, 2, 120);
	const gq_job_t *b1;

	gq_view_begin(v, 4, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	add(v, "team-a", ending(3, 1, 1, 130));
	run(v, 1, "team-a", 1, 2);
	run(v, 2, "team-a", 1, 3);
	run(v, 4, "team-a", 1, 4);
	ck_assert_int_eq(gq_view_place(v, 3, 0, 1), 0);
	ck_assert_int_eq(gq_view_place(v, 1, 0, 1), 0);
	ck_assert_int_eq(gq_view_place(v, 2, 1, 1), 0);
	ck_assert_int_eq(gq_view_place(v, 4, 1, 1), 0);
	pend(v, 20, "team-b", 1, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	b1 = gq_view_job(v, 20);
	ck_assert_int_eq(b1->band, GQ_BAND_IN_QUOTA);
	ck_assert(!gq_view_job(v, 3)->victim);
	ck_assert(gq_view_job(v, 4)->victim);
	ck_assert_msg(b1->patient && b1->waits_for == 3,
		      "b1 patient %d, waits for %u: not for a3", b1->patient,
		      b1->waits_for);
	ck_assert(!gq_view_may_reclaim(v, 20));
	gq_view_free(v);
}
END_TEST

/*
 * A loan on a node that takes no work frees nothing anyone can use.  2
 * nodes x 1 GPU, P = 120 s, now 100: team-c (q 0) runs c1 on n0 (ends at
 * 130) and c2 on n1 (no limit), both candidates; team-b (q 1) pends b1 (1
 * GPU, in quota).  n0 open: b1 waits for c1.  n0 draining: c1 is no
 * loan, b1 is not patient and may take c2 on n1.
 */
START_TEST(patience_waits_not_on_a_closed_node)
{
	gq_project_cfg_t p[1] = { proj("team-b", 1, 1, GQ_NO_LIMIT) };

	for (int closed = 0; closed <= 1; closed++) {
		gq_view_t *v = patient_view(p, 1, 120);
		const gq_job_t *b1;

		gq_view_begin(v, 2, 100);
		ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
		if (closed)
			gq_view_close_node(v, 0);
		add(v, "team-c", ending(1, 1, 10, 130));
		run(v, 2, "team-c", 1, 11);
		ck_assert_int_eq(gq_view_place(v, 1, 0, 1), 0);
		ck_assert_int_eq(gq_view_place(v, 2, 1, 1), 0);
		pend(v, 20, "team-b", 1, 50);
		ck_assert_int_eq(gq_view_compute(v), 0);
		b1 = gq_view_job(v, 20);
		ck_assert(b1->patient == !closed);
		ck_assert(gq_view_preemptable(v, 2, 20) == closed);
		gq_view_free(v);
	}
}
END_TEST

/*
 * A patient job starts on nothing and reclaims nothing now: tried after
 * the in-quota jobs that can start or reclaim, like a job with no room
 * (Slurm's main cycle stops a partition at the first job it cannot start).
 *
 * 2 nodes x 2 GPUs, P = 120 s, now 100.  team-c (q 0) runs c1 (n0, ends
 * at 130), c2 (n0), c3, c4 (n1): all 4 over its quota, candidates.
 * team-b (q 4) pends b1 (1 GPU): A = 1, key 1/4 = 0.25; it waits for c1.
 * team-d (q 1) pends d1 (1 GPU): A = 1, key 1; c1 is counted on by b1,
 * no loan is left: d1 may reclaim now.
 * b1 keeps its band, A and key but takes the band's base, 1 400 000 001
 * (keyed it was 1 400 000 001 + 1 + 0.75 x 699 999 998, rounded:
 * 1 925 000 001); d1 keeps 1 400 000 002 (key 1): d1 is tried first.
 */
START_TEST(patient_job_tried_after_jobs_that_can_reclaim)
{
	gq_project_cfg_t p[2] = { proj("team-b", 4, 1, GQ_NO_LIMIT),
				  proj("team-d", 1, 1, GQ_NO_LIMIT) };
	gq_view_t *v = patient_view(p, 2, 120);
	const gq_job_t *b1, *d1;

	gq_view_begin(v, 4, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	add(v, "team-c", ending(1, 1, 10, 130));
	run(v, 2, "team-c", 1, 11);
	run(v, 3, "team-c", 1, 12);
	run(v, 4, "team-c", 1, 13);
	for (uint32_t id = 1; id <= 4; id++)
		ck_assert_int_eq(gq_view_place(v, id, id <= 2 ? 0 : 1, 1), 0);
	pend(v, 20, "team-b", 1, 50);
	pend(v, 30, "team-d", 1, 51);
	ck_assert_int_eq(gq_view_compute(v), 0);
	b1 = gq_view_job(v, 20);
	d1 = gq_view_job(v, 30);
	ck_assert(b1->patient);
	ck_assert_uint_eq(b1->waits_for, 1);
	ck_assert_int_eq(b1->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(b1->key, 0.25, 1e-9);
	ck_assert(!b1->roomless);
	ck_assert_uint_eq(b1->priority, IN_QUOTA_BASE);
	ck_assert_uint_eq(gq_band_priority_roomless(), IN_QUOTA_BASE);
	ck_assert(!d1->patient);
	ck_assert(gq_view_may_reclaim(v, 30));
	ck_assert_uint_eq(d1->priority, IN_QUOTA_BASE + 1);
	ck_assert_uint_gt(d1->priority, b1->priority);
	gq_view_free(v);
}
END_TEST

/*
 * GPUs a reclaim in flight freed are its preemptor's (the 23.11 race of
 * test_patience.sh).  P = 60 s, now 100.  2 nodes x 2 GPUs: team-a (q 2)
 * runs a1 (n0), a2 (n1) and a3 (n0, its time limit ends it at 130): 1
 * over its quota.  team-b (q 2) pends b1 (job 20, first) and b2 (21), 1
 * GPU each, in quota.  b2 reclaimed a4 on n1: a4 is completing, so n1
 * shows 1 idle GPU, and b2 has not started yet.
 *   told nothing (case 0): b1 counts n1's idle GPU as its own, so it does
 *     not wait for a3; once b2 starts there b1 reclaims a2: one requeue
 *     more than patience lets;
 *   told of b2's reclaim on n1 (case 1): the GPU is b2's, b1 waits for
 *     a3; b2 starts on it (not patient);
 *   Slurm gave the GPU to b1 instead (case 2: b1 runs on n1, 0 idle): b2
 *     waits for a3, reclaiming nothing more.
 */
START_TEST(patience_not_on_gpus_promised_to_a_preemptor)
{
	gq_project_cfg_t p[2] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT) };
	gq_reclaim_at_t b2_at = { .preemptor = 21, .nnodes = 1, .node = { 1 } };

	for (int c = 0; c < 3; c++) {
		gq_view_t *v = patient_view(p, 2, 60);
		const gq_job_t *b1, *b2;

		gq_view_begin(v, 4, 100);
		ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
		run(v, 1, "team-a", 1, 10);
		run(v, 2, "team-a", 1, 11);
		add(v, "team-a", ending(3, 1, 30, 130));
		ck_assert_int_eq(gq_view_place(v, 1, 0, 1), 0);
		ck_assert_int_eq(gq_view_place(v, 2, 1, 1), 0);
		ck_assert_int_eq(gq_view_place(v, 3, 0, 1), 0);
		if (c == 2) {
			run(v, 20, "team-b", 1, 90);
			ck_assert_int_eq(gq_view_place(v, 20, 1, 1), 0);
		} else {
			gq_view_node_free(v, 1, 1);
			pend(v, 20, "team-b", 1, 50);
		}
		pend(v, 21, "team-b", 1, 51);
		if (c > 0)
			ck_assert_int_eq(gq_view_expect_reclaims(v, &b2_at, 1),
					 0);
		ck_assert_int_eq(gq_view_compute(v), 0);
		b1 = gq_view_job(v, 20);
		b2 = gq_view_job(v, 21);
		ck_assert_int_eq(b2->band, GQ_BAND_IN_QUOTA);
		if (c == 0) {	/* it would start on the idle GPU */
			ck_assert(!b1->patient);
		} else if (c == 1) {
			ck_assert(b1->patient);
			ck_assert_uint_eq(b1->waits_for, 3);
			ck_assert(!gq_view_preemptable(v, 2, 20));
			ck_assert(!b2->patient);
		} else {
			ck_assert(b2->patient);
			ck_assert_uint_eq(b2->waits_for, 3);
			ck_assert(!gq_view_preemptable(v, 2, 21));
		}
		gq_view_free(v);
	}
}
END_TEST

Suite *patience_suite(void)
{
	Suite *s = suite_create("patience");
	TCase *tc;

	tc = tcase_create("a job waits only for a loan that ends within the patience");
	tcase_add_test(tc, patience_for_loans_that_end_soon);
	tcase_add_test(tc, patience_waits_only_for_loans);
	tcase_add_test(tc, patience_waits_for_older_loan_over_floor);
	tcase_add_test(tc, patience_waits_not_on_a_closed_node);
	tcase_add_test(tc, patience_not_on_gpus_promised_to_a_preemptor);
	suite_add_tcase(s, tc);
	tc = tcase_create("a patient job is tried after the jobs that can reclaim");
	tcase_add_test(tc, patient_job_tried_after_jobs_that_can_reclaim);
	suite_add_tcase(s, tc);
	return s;
}
