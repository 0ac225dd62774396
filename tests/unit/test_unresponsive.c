/*
 * test_unresponsive.c - a reclaim decided while a node does not respond
 * (not yet DOWN): what its jobs hold counts as lost, so the reclaim cannot
 * leave a project below its floor once Slurm sets the node DOWN.  The
 * numbers of docs/MODEL.md, "Node failures".
 */
#include <check.h>

#include "core/view.h"
#include "helpers.h"

/* team-a and team-b at quota 4, team-c an account no project lists,
 * min_runtime 600 s */
static gq_view_t *setup(void)
{
	gq_project_cfg_t p[2] = { proj("team-a", 4, 1, GQ_NO_LIMIT),
				  proj("team-b", 4, 1, GQ_NO_LIMIT) };
	gq_config_t cfg = { .projects = p, .nprojects = 2 };

	cfg.settings.min_runtime = 600;
	cfg.settings.recompute_interval = 2;
	return gq_view_create(&cfg);
}

static gq_job_in_t on_n3(gq_job_in_t in, bool not_responding)
{
	in.at_risk = not_responding;
	return in;
}

/*
 * 3 nodes x 4 GPUs, C = 12, at t = 1000.  n1: a1 (id 1, 2 GPUs, started
 * 100), b1 (4, 2, 100); n2: a2 (2, 2, 200: team-a's youngest), c1 (5, 2,
 * 950: inside min_runtime); n3: a3 (3, 2, 50), c2 (6, 2, 950).  b2 (7, 2)
 * pends: A = 2 + 2 = 4 <= 4, in quota.  team-a: a = 6, floor 4.
 *  - n3 responds: team-a may lose 6 - 4 = 2: a2 (youngest first).
 *  - n3 does not respond: a3's 2 GPUs count as lost: 6 - 2 - 4 = 0,
 *    nothing of team-a is offered, nor c2 (on n3) nor c1 (young).
 */
static void _step3(gq_view_t *v, bool n3_not_responding)
{
	gq_view_begin(v, 12, 1000);
	run(v, 1, "team-a", 2, 100);
	run(v, 2, "team-a", 2, 200);
	add(v, "team-a", on_n3(running(3, 2, 50), n3_not_responding));
	run(v, 4, "team-b", 2, 100);
	run(v, 5, "team-c", 2, 950);
	add(v, "team-c", on_n3(running(6, 2, 950), n3_not_responding));
	pend(v, 7, "team-b", 2, 990);
	ck_assert_int_eq(gq_view_compute(v), 0);
	/* what it holds is unchanged: the node still counts (Terms) */
	ck_assert_uint_eq(project(v, "team-a")->alloc, 6);
	ck_assert_int_eq(gq_view_job(v, 7)->band, GQ_BAND_IN_QUOTA);
}

START_TEST(responding_node_reclaims_a2)
{
	gq_view_t *v = setup();

	_step3(v, false);
	ck_assert(gq_view_preemptable(v, 2, 7));
	ck_assert(!gq_view_preemptable(v, 1, 7));
	ck_assert(!gq_view_preemptable(v, 3, 7));
	ck_assert(!gq_view_preemptable(v, 5, 7));	/* inside min_runtime */
	ck_assert(!gq_view_preemptable(v, 6, 7));
	gq_view_free(v);
}
END_TEST

START_TEST(not_responding_node_counts_as_lost)
{
	gq_view_t *v = setup();
	uint32_t id;

	_step3(v, true);
	for (id = 1; id <= 6; id++)
		ck_assert_msg(!gq_view_preemptable(v, id, 7),
			      "job %u offered while n3 does not respond", id);
	ck_assert_uint_eq(project(v, "team-a")->at_risk, 2);
	ck_assert_uint_eq(gq_view_preempt_rank(v, 3), UINT32_MAX);

	/*
	 * Slurm sets n3 DOWN and requeues a3 and c2: C = 8, team-a keeps
	 * a1 and a2 (4: its floor), team-c c1.  b2 still in quota; team-a
	 * offers nothing (4 - 4 = 0); c1 once past min_runtime (t = 1600).
	 */
	gq_view_begin(v, 8, 1000);
	run(v, 1, "team-a", 2, 100);
	run(v, 2, "team-a", 2, 200);
	run(v, 4, "team-b", 2, 100);
	run(v, 5, "team-c", 2, 950);
	pend(v, 7, "team-b", 2, 990);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 7)->band, GQ_BAND_IN_QUOTA);
	ck_assert(!gq_view_preemptable(v, 1, 7));
	ck_assert(!gq_view_preemptable(v, 2, 7));
	ck_assert(!gq_view_preemptable(v, 5, 7));
	gq_view_begin(v, 8, 1600);
	run(v, 1, "team-a", 2, 100);
	run(v, 2, "team-a", 2, 200);
	run(v, 4, "team-b", 2, 100);
	run(v, 5, "team-c", 2, 950);
	pend(v, 7, "team-b", 2, 990);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_preemptable(v, 5, 7));
	ck_assert(!gq_view_preemptable(v, 1, 7));
	ck_assert(!gq_view_preemptable(v, 2, 7));
	gq_view_free(v);
}
END_TEST

/*
 * A job that ends between passes on the node that does not respond
 * leaves its at-risk GPUs with it: the budget is not raised by them.
 * team-a a = 6 with 2 at risk; a3 (at risk) goes: a = 4, at risk 0,
 * budget 4 - 0 - 4 = 0: still nothing offered.
 */
START_TEST(gone_at_risk_job_keeps_budget)
{
	gq_view_t *v = setup();
	uint32_t id;

	_step3(v, true);
	gq_view_job_gone(v, 3);
	ck_assert_uint_eq(project(v, "team-a")->alloc, 4);
	ck_assert_uint_eq(project(v, "team-a")->at_risk, 0);
	for (id = 1; id <= 6; id++)
		ck_assert(!gq_view_preemptable(v, id, 7));
	gq_view_free(v);
}
END_TEST

Suite *unresponsive_suite(void)
{
	Suite *s = suite_create("unresponsive");
	TCase *tc = tcase_create("node");

	tcase_add_test(tc, responding_node_reclaims_a2);
	tcase_add_test(tc, not_responding_node_counts_as_lost);
	tcase_add_test(tc, gone_at_risk_job_keeps_budget);
	suite_add_tcase(s, tc);
	return s;
}
