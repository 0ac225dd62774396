/*
 * test_write.c - a pass's answers written into Slurm's job records
 * (src/plugins/write_slurm.c, hold.c, array_throttle.c).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/slurm_compat.h"

#include "core/pools.h"
#include "state/state.h"
#include "plugins/array_throttle.h"
#include "plugins/write_slurm.h"
#include "glue.h"
#include "helpers.h"

/*
 * A pass holds a pending job that would pass its project's gpu_limit:
 * priority 0, Slurm's WAIT_HELD and gpuquota's reason, which is how the
 * next pass knows the hold for its own; it releases the job once it fits.
 * team-a (q 1, L 1) runs 1 of 4 GPUs; its job 9 waits.
 */
START_TEST(limit_hold_written_and_released)
{
	char *f = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1, \"gpu_limit\": 1}]}");
	char err[GQ_ERR_MAX];
	job_record_t *j;
	gq_view_t *v;

	glue_jobs_reset();
	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	v = gq_state_next()->view[0];
	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 1, 1);
	pend(v, 9, "team-a", 1, 9);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	j = glue_pending(9, "team-a", "gpu", 1);
	gq_write_pass(gq_state()->view, NULL, 100);
	ck_assert_uint_eq(j->priority, 0);
	ck_assert_int_eq(j->state_reason, WAIT_HELD);
	ck_assert_str_eq(j->state_desc,
			 "gpuquota: project team-a would pass its gpu_limit (1 GPU)");

	/* job 1 ended: the next pass releases 9 */
	v = gq_state_next()->view[0];
	gq_view_begin(v, 4, 200);
	pend(v, 9, "team-a", 1, 9);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	ck_assert(gq_write_pass(gq_state()->view, NULL, 200));	/* kick */
	ck_assert_uint_gt(j->priority, 0);
	ck_assert_int_ne(j->state_reason, WAIT_HELD);
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

/*
 * An array listing two pools is throttled to the fewest tasks any of them
 * lets start (gq_pools_tasks_now), not its home pool's alone: Slurm may
 * start each task in either.  Pools a100 and h100, 8 GPUs each; a100
 * full of team-b.  team-a: quota {a100: 8}, limit {h100: 2}.  Its array
 * of 8 x 1 GPU, -p a100,h100: in quota at home (8 may start there), 2 in
 * h100: %N 2.
 */
START_TEST(array_listing_pools_throttled_to_fewest_tasks)
{
	char *f = write_temp(
		"{\"pools\": [{\"name\": \"a100\", \"partitions\": [\"a100\"]},"
		"            {\"name\": \"h100\", \"partitions\": [\"h100\"]}],"
		" \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": {\"a100\": 8},"
		"                 \"gpu_limit\": {\"h100\": 2}}]}");
	char err[GQ_ERR_MAX];
	gq_job_in_t in = with_tasks(pending(30, 1, 30), 8);
	gq_view_t *a, *h;
	job_record_t *r;

	glue_jobs_reset();
	gq_throttle_clear();
	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	a = gq_state_next()->view[0];
	h = gq_state_next()->view[1];
	gq_view_begin(a, 8, 100);
	gq_view_begin(h, 8, 100);
	for (uint32_t id = 1; id <= 8; id++)
		run(a, id, "team-b", 1, id);
	add(a, "team-a", in);
	gq_pools_shadow(&in);
	add(h, "team-a", in);
	ck_assert_int_eq(gq_view_compute(a), 0);
	ck_assert_int_eq(gq_view_compute(h), 0);
	gq_state_publish();
	ck_assert_uint_eq(gq_view_job(gq_state()->view->view[0], 30)->tasks_now, 8);

	r = glue_array(30, 8);
	xfree(r->partition);
	r->partition = xstrdup("a100,h100");
	gq_write_pass(gq_state()->view, NULL, 100);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 2);
	ck_assert_uint_gt(r->priority, 0);
	gq_state_clear();
	gq_state_unlock();
	gq_throttle_clear();
	unlink(f);
	free(f);
}
END_TEST

Suite *glue_write_suite(void)
{
	Suite *s = suite_create("glue_write");
	TCase *tc = tcase_create("write");

	tcase_add_test(tc, limit_hold_written_and_released);
	tcase_add_test(tc, array_listing_pools_throttled_to_fewest_tasks);
	suite_add_tcase(s, tc);
	return s;
}
