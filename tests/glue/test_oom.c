/*
 * test_oom.c - no allocation that fails in a pass aborts slurmctld
 * (src/plugins/xalloc.h): each allocation the glue makes is made to
 * fail in turn (gq_xalloc_fail_at = 0, 1, ...), and the step fails
 * cleanly: a read fails the pass (the last good one answers), a hold is
 * written all the same (a limit comes first), without its text when that
 * is what failed, and still reads as gpuquota's.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/slurm_compat.h"

#include "state/state.h"
#include "plugins/hold.h"
#include "plugins/read_slurm.h"
#include "plugins/write_slurm.h"
#include "plugins/xalloc.h"
#include "shared/job_facts.h"
#include "glue.h"
#include "helpers.h"

/* a pending job as Slurm left it, before a pass writes its answer */
static void _waiting(job_record_t *j)
{
	j->priority = 1;
	j->direct_set_prio = 0;
	j->state_reason = WAIT_PRIORITY;
	xfree(j->state_desc);
}

/*
 * team-a (q 1, L 1) runs 1 of 4 GPUs: its job 9 is held for the limit;
 * team-b's job 10 is in quota (an explanation of its band).  Every
 * allocation of the write fails in turn: job 9 is held each time, by
 * gpuquota (its text, or noted as gpuquota's without one).
 */
START_TEST(failed_allocation_in_a_write_still_holds)
{
	char *f = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1, \"gpu_limit\": 1},"
			     " {\"name\": \"team-b\", \"gpu_quota\": 2}]}");
	char err[GQ_ERR_MAX];
	job_record_t *j9, *j10;
	gq_view_t *v;
	int n;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	v = gq_state_next()->view[0];
	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 1, 1);
	pend(v, 9, "team-a", 1, 9);
	pend(v, 10, "team-b", 1, 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	glue_jobs_reset();
	j9 = glue_pending(9, "team-a", "gpu", 1);
	j10 = glue_pending(10, "team-b", "gpu", 1);
	for (n = 0; n < 50; n++) {
		_waiting(j9);
		_waiting(j10);
		gq_xalloc_fail_at = n;
		gq_write_pass(gq_state()->view, NULL, 100);
		ck_assert_uint_eq(j9->priority, 0);
		ck_assert_int_eq(j9->state_reason, WAIT_HELD);
		ck_assert_msg(j9->state_desc ?
			      gq_facts_held_by_us(j9->state_reason,
						  j9->state_desc) :
			      gq_hold_lost(j9),
			      "allocation %d failed: job 9 held, but not as gpuquota's", n);
		ck_assert_uint_gt(j10->priority, 0);
		if (gq_xalloc_fail_at >= 0)	/* fewer allocations than n */
			break;
	}
	gq_xalloc_fail_at = -1;
	ck_assert_int_ge(n, 2);		/* the hold's and the band's texts */
	ck_assert_str_eq(j9->state_desc,
			 "gpuquota: project team-a would pass its gpu_limit (1 GPU)");
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

/*
 * A pass's read: each of its allocations failing fails the read (-1),
 * never aborts; once none fails it succeeds.
 */
START_TEST(failed_allocation_in_a_read_fails_the_pass)
{
	char *f = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1}]}");
	char err[GQ_ERR_MAX];
	int n, rc;

	glue_jobs_reset();
	glue_pending(9, "team-a", "gpu", 1);
	part_list = list_create(NULL);
	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	for (n = 0; n < 2; n++) {
		gq_xalloc_fail_at = n;
		rc = gq_read_pass(gq_state_next(), 100);
		ck_assert_int_eq(gq_xalloc_fail_at, -1);	/* it failed */
		ck_assert_int_eq(rc, -1);
	}
	ck_assert_int_eq(gq_read_pass(gq_state_next(), 100), 0);
	gq_state_clear();
	gq_state_unlock();
	FREE_NULL_LIST(part_list);
	unlink(f);
	free(f);
}
END_TEST

Suite *glue_oom_suite(void)
{
	Suite *s = suite_create("glue_oom");
	TCase *tc = tcase_create("oom");

	tcase_add_test(tc, failed_allocation_in_a_write_still_holds);
	tcase_add_test(tc, failed_allocation_in_a_read_fails_the_pass);
	suite_add_tcase(s, tc);
	return s;
}
