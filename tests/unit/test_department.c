/*
 * test_department.c - Departments: fair share is divided top-down
 * (departments, then their projects), a department's quota bounds its
 * projects' bands, its floor bounds reclaim from outside it, its gpu_limit
 * holds its projects' jobs. docs/MODEL.md "Fair share", "Bands and
 * priority" (Department bound), "Reclaim" (Departments).
 */
#include <check.h>
#include <stdio.h>

#include "core/view.h"
#include "helpers.h"

/* three projects, p1 and p2 in department d */
static gq_view_t *dept_view(int qd, int ld, int q1, int q2, int q3)
{
	gq_project_cfg_t p[3] = { proj("p1", q1, 1, GQ_NO_LIMIT),
				  proj("p2", q2, 1, GQ_NO_LIMIT),
				  proj("p3", q3, 1, GQ_NO_LIMIT) };
	gq_dept_cfg_t d[1] = { { .name = "d", .gpu_quota = qd,
				 .over_quota_weight = 1, .gpu_limit = ld } };
	gq_config_t cfg = { .projects = p, .nprojects = 3, .depts = d,
			    .ndepts = 1 };

	p[0].department = 0;
	p[1].department = 0;
	return gq_view_create(&cfg);
}

/*
 * Fair share top-down: C=8; d (q=4) holds p1 (q=3) and p2 (q=3); p3 (q=4)
 * outside; all demand 8.  Top: d min(4, 16) = 4, p3 4: no surplus.  Inside
 * d, C=4: caps 3 and 3 sum past 4: by quota 3:3 -> 2 and 2.
 */
START_TEST(department_fair_share_top_down)
{
	gq_view_t *v = dept_view(4, GQ_NO_LIMIT, 3, 3, 4);
	uint32_t id = 1;
	int k;

	gq_view_begin(v, 8, 100);
	for (k = 0; k < 8; k++) {
		pend(v, id, "p1", 1, id);
		id++;
		pend(v, id, "p2", 1, id);
		id++;
		pend(v, id, "p3", 1, id);
		id++;
	}
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(gq_view_dept(v, 0)->share, 4, 1e-9);
	ck_assert_double_eq_tol(project(v, "p1")->share, 2, 1e-9);
	ck_assert_double_eq_tol(project(v, "p2")->share, 2, 1e-9);
	ck_assert_double_eq_tol(project(v, "p3")->share, 4, 1e-9);
	gq_view_free(v);
}
END_TEST

/*
 * Jobs gpuquota holds (limit, non-requeueable) are no demand
 * (docs/MODEL.md "Terms": held jobs are not eligible), so no share is
 * stranded in a department: C=8, d (q=0) holds p1 (q=0, L=1) demanding 8;
 * p3 (q=0) outside demands 8.  p1 can use 1, so p3's fair share is 7
 * (counting the held jobs would give d 4, p1 1, p3 4: 3 GPUs to nobody).
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
 * A project at ease inside its own quota but in a department at its quota
 * is not in quota: C=8, d q=4: p1 (q=3) holds 3, p2 (q=3) holds 1, p3 (q=4)
 * holds 4; p2 pends 1: A=2 <= 3 for p2, but d would hold 5 > 4.
 * D: p1 3, p2 2, p3 4; top: d deserves 4, p3 4: f_d = 4; inside d caps
 * 3 and 2 sum past 4: by quota 3:3 -> 2 each (p2 capped at 2): f_p2 = 2.
 * So the job is fair-share (A=2 <= 2), and takes nothing: p1 is at
 * max(q, f) = 3, p3 at max(4, 4).
 */
START_TEST(department_quota_bounds_band)
{
	gq_view_t *v = dept_view(4, GQ_NO_LIMIT, 3, 3, 4);
	uint32_t id;

	gq_view_begin(v, 8, 100);
	run(v, 1, "p1", 3, 10);
	run(v, 2, "p2", 1, 20);
	run(v, 3, "p3", 4, 30);
	pend(v, 4, "p2", 1, 40);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "p2")->share, 2, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 4)->band, GQ_BAND_FAIR_SHARE);
	for (id = 1; id <= 3; id++)
		ck_assert(!gq_view_preemptable(v, id, 4));
	gq_view_free(v);
}
END_TEST

/*
 * A job held by its department's limit adds nothing to its project's A_k,
 * so the job behind it keeps the in-quota band it fits and may reclaim.
 * C=4; d (q=8, L=2) holds p1 (q=4); p2 (q=0, outside) runs 4.  p1 pends
 * j1 (4 GPUs: held, d would pass L=2) then j2 (1 GPU): A = 1 <= 4 (in
 * quota, d at 1 <= 8) -> quota reclaim from p2 (4 over its quota).
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
	ck_assert_int_eq(gq_view_job(v, 6)->band, GQ_BAND_IN_QUOTA);
	gq_view_free(v);
}
END_TEST

/*
 * A department's floor bounds reclaim from outside it, not from inside:
 * C=6, d (q=4) holds p1 (q=1) with four 1-GPU jobs; p3 (q=4, outside) holds
 * 2 and pends 2 (A=4 <= 4: in quota); p2 (q=3, in d) pends 1.
 * Top: d deserves min(4, 5) = 4, p3 4: 8 > 6: by quota 4:4 -> 3 and 3.
 * Inside d (C=3): deserved p1 1, p2 1; surplus 1 to p1 (p2's demand is 1):
 * f_p1 = 2, f_p2 = 1.  p3's job: d holds 4 = q_d: nothing from outside.
 * p2's job: A=1 <= q_p2, but d would hold 5 > q_d: fair-share (A <= f = 1):
 * it may take from p1 down to max(q, f) = 2.
 */
START_TEST(department_floor_bounds_outside_reclaim)
{
	gq_view_t *v = dept_view(4, GQ_NO_LIMIT, 1, 3, 4);
	uint32_t id, from_p2 = 0;

	gq_view_begin(v, 6, 100);
	for (id = 1; id <= 4; id++)
		run(v, id, "p1", 1, id);
	run(v, 5, "p3", 2, 5);
	pend(v, 6, "p3", 2, 60);
	pend(v, 7, "p2", 1, 70);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "p1")->share, 2, 1e-9);
	ck_assert_double_eq_tol(project(v, "p2")->share, 1, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 6)->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(gq_view_job(v, 7)->band, GQ_BAND_FAIR_SHARE);
	for (id = 1; id <= 4; id++) {
		ck_assert(!gq_view_preemptable(v, id, 6));
		from_p2 += gq_view_preemptable(v, id, 7);
	}
	ck_assert_uint_eq(from_p2, 2);
	gq_view_free(v);
}
END_TEST

/*
 * A department over its quota gives back to an in-quota project outside
 * it, even when its projects are each within their own (oversubscribed)
 * quotas: C=8, d (q=4) holds p1 (q=4) 4 and p2 (q=4) 4; p3 (q=4, no
 * department) pends 1 GPU, in quota.  d is 4 over q_d: p3 has a victim.
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
	ck_assert_uint_ge(n, 1);
	gq_view_free(v);
}
END_TEST

/*
 * A department's limit holds its projects' jobs: d q=1 L=2 holds p1 (q=2,
 * no limit of its own); p1 pends three 1-GPU jobs on an idle C=8: the
 * third would take d to 3 > 2: held.
 */
START_TEST(department_limit_holds)
{
	gq_view_t *v = dept_view(1, 2, 2, 0, 0);

	gq_view_begin(v, 8, 100);
	pend(v, 1, "p1", 1, 1);
	pend(v, 2, "p1", 1, 2);
	pend(v, 3, "p1", 1, 3);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 1)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_DEPT_LIMIT);
	/* d q=1: the second job is past the department's quota */
	ck_assert_int_eq(gq_view_job(v, 1)->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_ne(gq_view_job(v, 2)->band, GQ_BAND_IN_QUOTA);
	gq_view_free(v);
}
END_TEST

Suite *department_suite(void)
{
	Suite *s = suite_create("department");
	TCase *tc;

	tc = tcase_create("fair share is divided top-down");
	tcase_add_test(tc, department_fair_share_top_down);
	tcase_add_test(tc, held_demand_strands_share);
	suite_add_tcase(s, tc);
	tc = tcase_create("a department's quota bounds its projects' bands");
	tcase_add_test(tc, department_quota_bounds_band);
	tcase_add_test(tc, dept_held_job_still_counts_in_project_walk);
	suite_add_tcase(s, tc);
	tc = tcase_create("a department's floor bounds reclaim from outside it");
	tcase_add_test(tc, department_floor_bounds_outside_reclaim);
	tcase_add_test(tc, dept_over_quota_not_reclaimable);
	suite_add_tcase(s, tc);
	tc = tcase_create("a department's gpu_limit holds its projects' jobs");
	tcase_add_test(tc, department_limit_holds);
	suite_add_tcase(s, tc);
	return s;
}
