/*
 * test_throttle.c - an array's own throttle (%N) as the plugin writes it
 * (src/plugins/array_throttle.c) on a record as slurmctld holds it.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/slurm_compat.h"

#include "core/view.h"
#include "plugins/array_throttle.h"
#include "glue.h"
#include "helpers.h"

/*
 * team-a (q 2, L 2), nothing running, 8 idle GPUs, its array `id` of
 * `tasks` x 1 GPU pending: the core's answer (tasks_now 2).
 */
static gq_view_t *pass_of(uint32_t id, uint32_t tasks, const gq_job_t **job)
{
	static gq_project_cfg_t p[1];
	gq_view_t *v;

	p[0] = proj("team-a", 2, 1, 2);
	v = view_of(p, 1, NULL, 0);
	gq_view_begin(v, 8, 2000);
	add(v, "team-a", with_tasks(pending(id, 1, 1000), tasks));
	ck_assert_int_eq(gq_view_compute(v), 0);
	*job = gq_view_job(v, id);
	return v;
}

static void apply(job_record_t *job_ptr, const gq_job_t *job)
{
	gq_throttle_pass_begin();
	gq_throttle_apply(job_ptr, job, job->tasks_now);
	gq_throttle_pass_end();
}

/*
 * An array is throttled to the tasks that fit its project's limit, and
 * gets the user's %N (none) back when all its pending tasks fit.  team-a
 * (q 2, L 2), 8 idle GPUs, array R of 6 x 1 GPU: %N 2.  With 2 pending
 * left and 2 fitting: no throttle.
 */
START_TEST(array_throttled_to_what_fits_its_limit)
{
	job_record_t *r;
	gq_view_t *v;
	const gq_job_t *j;

	glue_jobs_reset();
	gq_throttle_clear();
	r = glue_array(400, 6);
	v = pass_of(400, 6, &j);
	apply(r, j);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 2);
	gq_view_free(v);

	r->array_recs->task_cnt = 2;
	v = pass_of(400, 2, &j);
	apply(r, j);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 0);
	gq_view_free(v);
	gq_throttle_clear();
}
END_TEST

/*
 * A pass in two lock holds counts the tasks Slurm starts between its
 * holds once: they were pending when it counted tasks_now (read hold) and
 * run when it writes %N (write hold).  team-a (q 2, L 2), array R of 6 x
 * 1 GPU, 8 idle GPUs: the first pass lets 2 start (%N 2).  The next reads
 * R with 6 pending (tasks_now 2); between its holds Slurm starts the 2.
 * Its write keeps %N at 2, not 2 running + 2: team-a never holds more
 * than its limit.
 */
START_TEST(two_hold_pass_counts_started_tasks_once)
{
	job_record_t *r;
	gq_view_t *v0, *v1;
	const gq_job_t *j0, *j1;

	glue_jobs_reset();
	gq_throttle_clear();
	r = glue_array(500, 6);
	v0 = pass_of(500, 6, &j0);
	ck_assert_uint_eq(j0->tasks_now, 2);
	apply(r, j0);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 2);

	v1 = pass_of(500, 6, &j1);		/* read hold: 6 pending */
	ck_assert_uint_eq(j1->tasks_now, 2);
	r->array_recs->tot_run_tasks = 2;	/* between the holds */
	r->array_recs->task_cnt = 4;
	apply(r, j1);				/* write hold */
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 2);

	/* one of them ended before the write hold: still none more */
	r->array_recs->tot_run_tasks = 1;
	apply(r, j1);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 1);
	/* both did: %N 0 would be no throttle; one may start */
	r->array_recs->tot_run_tasks = 0;
	apply(r, j1);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 1);

	/* read and written at one moment (a pass in one hold) */
	r->array_recs->tot_run_tasks = 2;
	gq_view_free(v1);
	v1 = pass_of(500, 4, &j1);
	ck_assert_uint_eq(j1->tasks_now, 2);
	apply(r, j1);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 4);
	gq_view_free(v0);
	gq_view_free(v1);
	gq_throttle_clear();
}
END_TEST

Suite *glue_throttle_suite(void)
{
	Suite *s = suite_create("glue_throttle");
	TCase *tc = tcase_create("throttle");

	tcase_add_test(tc, array_throttled_to_what_fits_its_limit);
	tcase_add_test(tc, two_hold_pass_counts_started_tasks_once);
	suite_add_tcase(s, tc);
	return s;
}
