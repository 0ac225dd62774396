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

Suite *glue_throttle_suite(void)
{
	Suite *s = suite_create("glue_throttle");
	TCase *tc = tcase_create("throttle");

	tcase_add_test(tc, array_throttled_to_what_fits_its_limit);
	suite_add_tcase(s, tc);
	return s;
}
