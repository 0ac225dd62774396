/*
 * test_room_patience.c - what counts as room on a node, and who a job
 * waits for instead of reclaiming: loans are jobs the waiter's reclaim
 * could take without passing a floor, a patient job is tried after the jobs that can start or
 * reclaim, victims leaving in their grace time are room coming, a node
 * that takes no work is no room.  The numbers of docs/MODEL.md ("Bands
 * and priority", "Making room", "Patience for loans that end soon").
 */
#include <check.h>

#include "core/band.h"
#include "core/view.h"
#include "helpers.h"

/* in quota: base 1 400 000 001; keyed jobs base + 1 + (1 - key) x
 * (700 000 000 - 2) (band.h) */
#define IN_QUOTA_BASE 1400000001u

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

/* team-b's b1 (2 GPUs on one node) and team-d's d1 (1 GPU) pend; n0
 * holds x1, x2 of team-x (q 0), warned when `warned`; n1 y1, y2 of
 * team-y (q 2, at its quota); n0 closed when `closed`. */
static gq_view_t *grace_view(bool warned, bool closed)
{
	gq_project_cfg_t p[3] = { proj("team-b", 4, 1, GQ_NO_LIMIT),
				  proj("team-d", 1, 1, GQ_NO_LIMIT),
				  proj("team-y", 2, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 3, NULL, 0);

	gq_view_begin(v, 4, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	if (closed)
		gq_view_close_node(v, 0);
	for (uint32_t id = 1; id <= 2; id++) {
		gq_job_in_t x = running(id, 1, id);

		x.at_risk = warned;	/* preempt_time set: in its grace */
		add(v, "team-x", x);
		ck_assert_int_eq(gq_view_place(v, id, 0, 1), 0);
	}
	run(v, 3, "team-y", 1, 3);
	run(v, 4, "team-y", 1, 4);
	ck_assert_int_eq(gq_view_place(v, 3, 1, 1), 0);
	ck_assert_int_eq(gq_view_place(v, 4, 1, 1), 0);
	add(v, "team-b", shaped(pending(20, 2, 50), 2, 1));
	pend(v, 30, "team-d", 1, 51);
	ck_assert_int_eq(gq_view_compute(v), 0);
	return v;
}

/*
 * Victims leaving in their grace time are room coming for a preemptor.
 * 2 nodes x 2 GPUs.  n0: x1, x2 of team-x (q 0), warned for b1 (at risk:
 * their GPUs count as lost, team-x's budget is 2 - 2 = 0).  n1: y1, y2
 * of team-y (q 2, at its quota: nothing to take).  team-b (q 4) pends b1,
 * 2 GPUs on one node: A = 2, key 0.5.  team-d (q 1) pends d1, 1 GPU: A =
 * 1, key 1.
 * n0 offers 0 idle + 2 leaving = 2 >= 2: b1 has room coming, keeps its
 * key, 1 400 000 001 + 1 + 0.5 x 699 999 998 = 1 750 000 001, above d1's
 * 1 400 000 002: when x1 and x2 exit, b1 is tried first for n0.
 * The same on a closed n0 (draining): nothing comes there for anyone, b1
 * is roomless (1 400 000 001, below d1).
 */
START_TEST(grace_victims_are_room_coming)
{
	gq_view_t *v = grace_view(true, false);
	const gq_job_t *b1 = gq_view_job(v, 20), *d1 = gq_view_job(v, 30);

	ck_assert_int_eq(b1->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(d1->band, GQ_BAND_IN_QUOTA);
	ck_assert(!b1->roomless);
	ck_assert_uint_eq(b1->priority, 1750000001u);
	ck_assert_uint_eq(d1->priority, IN_QUOTA_BASE + 1);
	for (uint32_t id = 1; id <= 4; id++)
		ck_assert(!gq_view_job(v, id)->victim);
	gq_view_free(v);

	v = grace_view(true, true);
	b1 = gq_view_job(v, 20);
	ck_assert(b1->roomless);
	ck_assert_uint_eq(b1->priority, IN_QUOTA_BASE);
	gq_view_free(v);
}
END_TEST

/*
 * A node that takes no new work (draining, failing) is no room: Slurm
 * starts nothing there, whatever is freed.
 * 2 nodes x 4 GPUs.  n0, draining: x1, x2 of team-x (q 0: 2 over quota,
 * candidates).  n1: y1..y3 of team-y (q 3, at its quota), z1 of team-z
 * (q 0, a candidate).  team-b (q 2) pends b1, 2 GPUs on one node: A = 2,
 * key 1.
 * n0 closed: nothing there; n1: 0 idle + z1's 1 = 1 < 2: no node can give
 * b1 room.  It is roomless, priority 1 400 000 001, and a room waiter (n1
 * emptied has 4 >= 2).  With n0 open, x1 + x2 make room there: not
 * roomless, priority 1 400 000 001 + 1 + 0 = 1 400 000 002.
 */
START_TEST(draining_node_is_no_room)
{
	gq_project_cfg_t p[2] = { proj("team-b", 2, 1, GQ_NO_LIMIT),
				  proj("team-y", 3, 1, GQ_NO_LIMIT) };

	for (int closed = 0; closed <= 1; closed++) {
		gq_view_t *v = view_of(p, 2, NULL, 0);
		const uint32_t *ids;
		const gq_job_t *b1;

		gq_view_begin(v, 8, 100);
		ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
		if (closed)
			gq_view_close_node(v, 0);
		run(v, 1, "team-x", 1, 1);
		run(v, 2, "team-x", 1, 2);
		ck_assert_int_eq(gq_view_place(v, 1, 0, 1), 0);
		ck_assert_int_eq(gq_view_place(v, 2, 0, 1), 0);
		for (uint32_t id = 3; id <= 5; id++) {
			run(v, id, "team-y", 1, id);
			ck_assert_int_eq(gq_view_place(v, id, 1, 1), 0);
		}
		run(v, 6, "team-z", 1, 6);
		ck_assert_int_eq(gq_view_place(v, 6, 1, 1), 0);
		add(v, "team-b", shaped(pending(20, 2, 50), 2, 1));
		ck_assert_int_eq(gq_view_compute(v), 0);
		b1 = gq_view_job(v, 20);
		ck_assert_int_eq(b1->band, GQ_BAND_IN_QUOTA);
		ck_assert(b1->roomless == closed);
		ck_assert_uint_eq(b1->priority, IN_QUOTA_BASE + !closed);
		ck_assert_int_eq(gq_view_room_waiters(v, &ids), closed);
		if (closed)
			ck_assert_uint_eq(ids[0], 20);
		gq_view_free(v);
	}
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

Suite *room_patience_suite(void)
{
	Suite *s = suite_create("room_patience");
	TCase *tc = tcase_create("room_patience");

	tcase_add_test(tc, patience_waits_only_for_loans);
	tcase_add_test(tc, patience_waits_for_older_loan_over_floor);
	tcase_add_test(tc, patient_job_tried_after_jobs_that_can_reclaim);
	tcase_add_test(tc, grace_victims_are_room_coming);
	tcase_add_test(tc, draining_node_is_no_room);
	tcase_add_test(tc, patience_waits_not_on_a_closed_node);
	suite_add_tcase(s, tc);
	return s;
}
