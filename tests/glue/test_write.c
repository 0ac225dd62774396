/*
 * test_write.c - a pass's answers written into Slurm's job records
 * (src/plugins/write_slurm.c, hold.c, array_throttle.c).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugins/slurm_compat.h"

#include "core/state.h"
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

Suite *glue_write_suite(void)
{
	Suite *s = suite_create("glue_write");
	TCase *tc = tcase_create("write");

	tcase_add_test(tc, limit_hold_written_and_released);
	suite_add_tcase(s, tc);
	return s;
}
